#!/usr/bin/env python3
"""trace.py: kernels/gemm_wgmma.cu with the thirteenth round's trace hooks, written to argv[1]
(drift.cu includes it as gemm_wgmma_trace.cu). When the device pointer gqx_trace is set, thread
0 of each CTA writes %globaltimer at its start (slot 0), its SM (slot 1), after every fourth
K-block its consumers finish (slot 2 + i / 4, below GQX_TSLOTS - 1) and after its tile's adds
(slot GQX_TSLOTS - 1).

    python3 results/h200/logs/wgrad-experiments/round13/trace.py /tmp/trace/gemm_wgmma_trace.cu \
        [SRC]

SRC: the kernel's source, default kernels/gemm_wgmma.cu; the anchors are those of ca46f66 to
c77c08c's tree (the thirteenth round's runs), e.g. `git show ca46f66:kernels/gemm_wgmma.cu`.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from kernel_src import KernelSource  # noqa: E402

kernel = KernelSource('trace.py', sys.argv)
put = kernel.put


put("/* STREAM_B: B's copies", '''#define GQX_TSLOTS 128
__device__ unsigned long long *gqx_trace;
__device__ __forceinline__ unsigned long long gqx_now()
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}
__device__ __forceinline__ unsigned long long *gqx_slots()
{
	unsigned long long *t = gqx_trace;
	if (!t)
		return NULL;
	const unsigned cta = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
	return t + (size_t)cta * GQX_TSLOTS;
}

''', before=True)
put('''	const int tid = threadIdx.x;
''', '''	if (tid == 0) {
		unsigned long long *tr = gqx_slots();
		if (tr) {
			unsigned sm;
			asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
			tr[0] = gqx_now();
			tr[1] = sm;
		}
	}
''')
put('''		gq_wg_next_stage<C::STAGES>(s, parity, true);
''', '''		if (tid == 0 && (i & 3) == 3 && 2 + i / 4 < GQX_TSLOTS - 1) {
			unsigned long long *tr = gqx_slots();
			if (tr)
				tr[2 + i / 4] = gqx_now();
		}
''')
put('''		                                          (int)(n0 + WN * wn), (int)(m0 + 64 * wm));
''', '''		if (tid == 0) {
			unsigned long long *tr = gqx_slots();
			if (tr)
				tr[GQX_TSLOTS - 1] = gqx_now();
		}
''')
kernel.write()

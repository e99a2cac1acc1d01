#!/usr/bin/env python3
"""pad.py: the wgrad kernel's source with the fourteenth round's padding, written to argv[1]
(energy.cu includes it as gemm_wgmma_pad.cu). The consumers of gq_wg_kernel, after releasing each
stage, run gqx_pad rounds of integer work that changes nothing they compute: each round eight
multiply-adds with shifts over four registers (about 18 instructions a warp, with the loop's), whose
result only decides a store to gqx_sink that never happens. gqx_pad = 0 (the default) skips it with
one branch per K-block.

    git show 7f660a7:kernels/gemm_wgmma.cu > /tmp/pad/src.cu
    python3 results/h200/logs/wgrad-experiments/round14/pad.py /tmp/pad/gemm_wgmma_pad.cu \
        /tmp/pad/src.cu

SRC (the second argument): the kernel's source, default kernels/gemm_wgmma.cu; the anchors are
7f660a7's, the kernel call 2 ran.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from kernel_src import KernelSource  # noqa: E402

kernel = KernelSource('pad.py', sys.argv)
put = kernel.put

put("/* STREAM_B: B's copies", '''__device__ int gqx_pad;
__device__ unsigned gqx_sink;

''', before=True)
put('''		gq_wg_release<CL>(empty0 + 8 * s, tid);
''', '''
		if (pad > 0) {
#pragma unroll 1
			for (int q = 0; q < pad; q++) {
#pragma unroll
				for (int u = 0; u < 2; u++) {
					x0 = x0 * 0x9E3779B1u + (x1 >> 7);
					x1 = x1 * 0x85EBCA77u + (x2 >> 9);
					x2 = x2 * 0xC2B2AE3Du + (x3 >> 11);
					x3 = x3 * 0x27D4EB2Fu + (x0 >> 13);
				}
			}
		}
''')
put('''	int s = 0;
	uint32_t parity = 0;
	for (int i = 0; i < (int)nkb; i++) {
		gq_wg_bar_wait(full0 + 8 * s, parity);
		const uint64_t step = (uint64_t)(s * C::STAGE_BYTES) >> 4;''', '''
	const int pad = gqx_pad;
	uint32_t x0 = tid, x1 = tid * 3u + 1u, x2 = tid * 5u + 2u, x3 = tid * 7u + 3u;
''', before=True)
put('''	/* Epilogue. Accumulator j of lane l in warp w (of the warpgroup) is row 16w + l/4 + 8·((j/2)''',
    '''	if ((x0 ^ x1 ^ x2 ^ x3) == 0x7fffffffu + (uint32_t)p.m)
		gqx_sink = x0;

''', before=True)
kernel.write()

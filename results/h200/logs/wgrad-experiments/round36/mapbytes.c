/* mapbytes.c: which encode parameter sets which byte of a CUtensorMap (round 36, call 5).
 * Round 34 found nvjet's x map differing from ours in byte 8 (0x22 against 0x10) and byte 23
 * (0x10 against 0) besides the box rows and the L2 promotion; this encodes a map of the same x
 * buffer (BF16, 4096 columns × 65537 rows, 128-byte swizzle) with one parameter changed at a time
 * and prints the first 64 bytes of each. No kernel runs: the encode needs only the driver.
 *   cc -O2 -I/usr/local/cuda/include mapbytes.c -o mapbytes -L/usr/local/cuda/lib64/stubs -lcuda */
#include <cuda.h>
#include <stdio.h>
#include <stdint.h>

static void show(const char *what, CUresult r, const CUtensorMap *m)
{
	const unsigned char *b = (const unsigned char *)m;
	printf("%-44s rc=%d ", what, (int)r);
	for (int i = 0; i < 64; i++)
		printf("%02x%s", b[i], (i % 8 == 7) ? " " : "");
	printf("\n");
}

int main(void)
{
	CUdevice dev;
	CUcontext ctx;
	if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) || cuCtxSetCurrent(ctx)) {
		fprintf(stderr, "mapbytes: no CUDA device\n");
		return 1;
	}
	CUdeviceptr x;
	if (cuMemAlloc(&x, (size_t)4096 * 65537 * 2)) {
		fprintf(stderr, "mapbytes: cuMemAlloc failed\n");
		return 1;
	}
	CUtensorMap m;
	struct {
		const char *what;
		int rank;
		cuuint32_t box_rows;
		CUtensorMapL2promotion promo;
		CUtensorMapFloatOOBfill fill;
		CUtensorMapDataType type;
		int dim3;
		int swizzle; /* a CUtensorMapSwizzle; 0: 128B, as ours; -1: none */
		cuuint32_t box_cols, estride1; /* 0: 64 and 1, as ours */
	} v[] = {
	    {"2D ours (64 rows, no promotion)", 2, 64, CU_TENSOR_MAP_L2_PROMOTION_NONE,
	     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 1},
	    {"2D, 32 rows", 2, 32, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
	     CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 1},
	    {"2D, 128B promotion", 2, 64, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
	     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 1},
	    {"2D, OOB fill NaN", 2, 64, CU_TENSOR_MAP_L2_PROMOTION_NONE,
	     CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 1},
	    {"2D, FP16", 2, 64, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
	     CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 1},
	    {"2D, UINT16", 2, 64, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
	     CU_TENSOR_MAP_DATA_TYPE_UINT16, 1},
	    {"3D, third dim 1", 3, 64, CU_TENSOR_MAP_L2_PROMOTION_NONE,
	     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 1},
	    {"3D, third dim 1, 32 rows, 128B, NaN fill", 3, 32, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
	     CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 1},
	    {"2D, 64B promotion", 2, 64, CU_TENSOR_MAP_L2_PROMOTION_L2_64B,
	     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 1},
	    {"2D, 256B promotion", 2, 64, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
	     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 1},
	    {"2D, no swizzle", 2, 64, CU_TENSOR_MAP_L2_PROMOTION_NONE,
	     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 1,
	     -1},
	    {"2D, 64B swizzle, 32 columns", 2, 64, CU_TENSOR_MAP_L2_PROMOTION_NONE,
	     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 1,
	     CU_TENSOR_MAP_SWIZZLE_64B, 32},
	    {"2D, 128B swizzle, 32 columns", 2, 64, CU_TENSOR_MAP_L2_PROMOTION_NONE,
	     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 1,
	     CU_TENSOR_MAP_SWIZZLE_128B, 32},
	    {"2D, 128B swizzle, atom 32B", 2, 64, CU_TENSOR_MAP_L2_PROMOTION_NONE,
	     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 1,
	     CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B},
	    {"2D, 128B swizzle, atom 64B", 2, 64, CU_TENSOR_MAP_L2_PROMOTION_NONE,
	     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 1,
	     CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B},
	    {"2D, element stride 2 along rows", 2, 64, CU_TENSOR_MAP_L2_PROMOTION_NONE,
	     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 1,
	     CU_TENSOR_MAP_SWIZZLE_128B, 64, 2},
	    {"3D, third dim 2", 3, 64, CU_TENSOR_MAP_L2_PROMOTION_NONE,
	     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2},
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		const cuuint64_t dims[3] = {4096, v[i].dim3 > 1 ? 32768 : 65537,
		                            (cuuint64_t)v[i].dim3};
		const cuuint64_t strides[2] = {4096 * 2, (cuuint64_t)4096 * 2 * dims[1]};
		const cuuint32_t cols = v[i].box_cols ? v[i].box_cols : 64;
		const cuuint32_t box[3] = {cols, v[i].box_rows, 1};
		const cuuint32_t es[3] = {1, v[i].estride1 ? v[i].estride1 : 1, 1};
		const CUtensorMapSwizzle sw = v[i].swizzle < 0    ? CU_TENSOR_MAP_SWIZZLE_NONE
		                              : v[i].swizzle ? (CUtensorMapSwizzle)v[i].swizzle
		                                             : CU_TENSOR_MAP_SWIZZLE_128B;
		const CUresult r = cuTensorMapEncodeTiled(
		    &m, v[i].type, (cuuint32_t)v[i].rank, (void *)x, dims, strides, box,
		    es, CU_TENSOR_MAP_INTERLEAVE_NONE, sw, v[i].promo, v[i].fill);
		show(v[i].what, r, &m);
	}
	return 0;
}

/* test_inputs.c: the input generator (reference/inputs.c, reference/philox.h): Philox against the
 * published Random123 known answers, our log and cos against long double libm, the distributions'
 * moments, determinism and independence, and the BF16 rounding from double. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "inputs.h"
#include "philox.h"
#include "reference.h"

/* Random123 1.14, examples/kat_vectors, the three "philox4x32 10" lines: counter, key, output. */
static void test_philox_known_answers(void)
{
	static const uint32_t kat[3][10] = {
	    {0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x6627e8d5,
	     0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
	    {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d,
	     0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
	    {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09,
	     0x94fdcceb, 0x5001e420, 0x24126ea1},
	};
	for (int t = 0; t < 3; t++) {
		uint32_t out[4];
		gq_philox4x32_10(&kat[t][0], &kat[t][4], out);
		for (int i = 0; i < 4; i++)
			CHECK_MSG(out[i] == kat[t][6 + i], "vector %d word %d: %08x, want %08x", t,
			          i, out[i], kat[t][6 + i]);
	}
}

/* 53 random bits. */
static uint64_t rand53(void)
{
	return (((uint64_t)rand() << 31) ^ (uint64_t)rand() ^ ((uint64_t)rand() << 22)) &
	       ((1ull << 53) - 1);
}

/* Our log on (0, 1] within 1e-15 relative of logl, including the ends and the √2 split, over
 * uniforms of the generator's grid and over every binade down to 2^-60. */
static void test_log_accuracy(void)
{
	double worst = 0;
	double fixed[] = {
	    0x1p-53, 0x1p-52,       0.5, 0x1.6a09e667f3bcdp-1, 0x1.6a09e667f3bcep-1, 0.7,
	    0.999,   1.0 - 0x1p-53, 1.0};
	for (int i = 0; i < (int)(sizeof(fixed) / sizeof(fixed[0])) + 200000; i++) {
		double u;
		if (i < (int)(sizeof(fixed) / sizeof(fixed[0])))
			u = fixed[i];
		else if (i % 2)
			u = (double)(rand53() + 1) * 0x1p-53;
		else
			u = ldexp(0.5 + (double)rand53() * 0x1p-54, -(rand() % 60));
		long double want = logl((long double)u);
		double got = gq_hd_log(u);
		double err = want == 0 ? fabs(got) : (double)fabsl((got - want) / want);
		if (err > worst)
			worst = err;
	}
	CHECK_MSG(worst < 1e-15, "worst relative error of log %.3g", worst);
	CHECK(gq_hd_log(1.0) == 0.0);
}

/* cos(2π·x/2^53) within 1e-15 of cosl for every quadrant and the reduction's edges. */
static void test_cos_accuracy(void)
{
	const long double two_pi = 6.283185307179586476925286766559L;
	double worst = 0;
	uint64_t fixed[] = {0,          1,          1ull << 50, (1ull << 50) - 1, (1ull << 50) + 1,
	                    1ull << 51, 3ull << 50, 1ull << 52, 3ull << 51,       (1ull << 53) - 1};
	int nfixed = (int)(sizeof(fixed) / sizeof(fixed[0]));
	for (int i = 0; i < nfixed + 200000; i++) {
		uint64_t x = i < nfixed ? fixed[i] : rand53();
		long double want = cosl(two_pi * (long double)x / 9007199254740992.0L);
		double err = (double)fabsl(gq_hd_cos2pi53(x) - want);
		if (err > worst)
			worst = err;
	}
	CHECK_MSG(worst < 1e-15, "worst absolute error of cos %.3g", worst);
	CHECK(gq_hd_cos2pi53(0) == 1.0);
}

/* Normal N(0, s²) over 1e6 elements: mean within 5 standard errors (5·s/√n), variance within
 * 1 % (5·√(2/n)), kurtosis within 0.05 of 3, P(|z| < 1) within 0.0025 of 0.682689 (5σ). The
 * BF16-rounded values keep the variance within 1.5 %. */
static void test_normal_moments(void)
{
	const int n = 1000000;
	const double s = 0.5;
	gq_input_spec spec = {GQ_DIST_NORMAL, s};
	uint16_t *bf = malloc(sizeof(uint16_t) * n);
	double sum = 0, sum2 = 0, sum4 = 0, bsum2 = 0;
	int inside = 0;
	gq_inputs_fill_bf16(42, GQ_TENSOR_X, spec, 0, n, bf);
	for (int i = 0; i < n; i++) {
		double v = gq_input_value(42, GQ_TENSOR_X, (uint64_t)i, spec);
		double z = v / s, b = (double)gq_bf16_to_float(bf[i]);
		sum += v;
		sum2 += v * v;
		sum4 += z * z * z * z;
		bsum2 += b * b;
		inside += fabs(z) < 1.0;
	}
	double mean = sum / n, var = sum2 / n - mean * mean;
	CHECK_MSG(fabs(mean) < 5 * s / sqrt(n), "mean %g", mean);
	CHECK_MSG(fabs(var / (s * s) - 1) < 0.01, "variance %g", var);
	CHECK_MSG(fabs(sum4 / n - 3) < 0.05, "kurtosis %g", sum4 / n);
	CHECK_MSG(fabs((double)inside / n - 0.682689) < 0.0025, "P(|z|<1) %g", (double)inside / n);
	CHECK_MSG(fabs(bsum2 / n / (s * s) - 1) < 0.015, "bf16 variance %g", bsum2 / n);
	free(bf);
}

/* Uniform U[−s, s): every value in range, both ends approached, mean ≈ 0, variance ≈ s²/3. */
static void test_uniform_moments(void)
{
	const int n = 1000000;
	const double s = 2.0;
	gq_input_spec spec = {GQ_DIST_UNIFORM, s};
	double sum = 0, sum2 = 0, lo = s, hi = -s;
	int out_of_range = 0;
	for (int i = 0; i < n; i++) {
		double v = gq_input_value(7, GQ_TENSOR_W, (uint64_t)i, spec);
		out_of_range += !(v >= -s && v < s);
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
		sum += v;
		sum2 += v * v;
	}
	double mean = sum / n, var = sum2 / n - mean * mean;
	CHECK(out_of_range == 0);
	CHECK_MSG(lo < -s + 1e-4 && hi > s - 1e-4, "range [%g, %g]", lo, hi);
	CHECK_MSG(fabs(mean) < 5 * s / sqrt(3.0 * n), "mean %g", mean);
	CHECK_MSG(fabs(var / (s * s / 3) - 1) < 0.01, "variance %g", var);
}

/* Sample correlation of two streams of n values. */
static double correlation(const double *a, const double *b, int n)
{
	double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
	for (int i = 0; i < n; i++) {
		sa += a[i], sb += b[i];
		saa += a[i] * a[i], sbb += b[i] * b[i], sab += a[i] * b[i];
	}
	double ca = saa - sa * sa / n, cb = sbb - sb * sb / n, cab = sab - sa * sb / n;
	return cab / sqrt(ca * cb);
}

/* Streams differing in tensor id, in the seed's low or high word, or in the index's high word are
 * uncorrelated (|ρ| < 5/√n) and not equal; the same (seed, tensor, index) gives the same bits. */
static void test_independence(void)
{
	const int n = 200000;
	gq_input_spec spec = {GQ_DIST_NORMAL, 1.0};
	struct {
		uint64_t seed;
		int tensor;
		uint64_t offset;
	} streams[] = {{1, 0, 0},         {1, 1, 0}, {1, 2, 0}, {2, 0, 0}, {1 + (1ull << 32), 0, 0},
	               {1, 0, 1ull << 32}};
	int ns = (int)(sizeof(streams) / sizeof(streams[0]));
	double *v = malloc(sizeof(double) * (size_t)n * ns);
	for (int s = 0; s < ns; s++)
		for (int i = 0; i < n; i++)
			v[(size_t)s * n + i] =
			    gq_input_value(streams[s].seed, streams[s].tensor,
			                   streams[s].offset + (uint64_t)i, spec);
	for (int s = 1; s < ns; s++) {
		double rho = correlation(v, v + (size_t)s * n, n);
		int same = 0;
		for (int i = 0; i < n; i++)
			same += v[i] == v[(size_t)s * n + i];
		CHECK_MSG(fabs(rho) < 5 / sqrt(n), "stream %d: correlation %g", s, rho);
		CHECK_MSG(same < 10, "stream %d: %d equal values", s, same);
	}
	/* neighbours within one stream are uncorrelated too */
	double rho1 = correlation(v, v + 1, n - 1);
	CHECK_MSG(fabs(rho1) < 5 / sqrt(n), "lag-1 correlation %g", rho1);
	for (int i = 0; i < 1000; i++)
		CHECK(gq_input_value(1, 0, (uint64_t)i, spec) == v[i]);
	free(v);
}

/* A fill is the per-element value rounded, whatever the thread split or the first index. */
static void test_fill_determinism(void)
{
	const int64_t n = (1 << 18) + 17; /* several threads' worth with a ragged end */
	const uint64_t first = (1ull << 32) - 1000;
	for (int d = 0; d < GQ_DIST_COUNT; d++) {
		gq_input_spec spec = {(gq_dist)d, d == GQ_DIST_NORMAL ? 0.02 : 1.0};
		uint16_t *a = malloc(sizeof(uint16_t) * n), *b = malloc(sizeof(uint16_t) * n);
		gq_inputs_fill_bf16(99, GQ_TENSOR_G, spec, first, n, a);
		gq_inputs_fill_bf16(99, GQ_TENSOR_G, spec, first, n, b);
		CHECK(memcmp(a, b, sizeof(uint16_t) * n) == 0);
		int wrong = 0;
		for (int64_t i = 0; i < n; i += 97)
			wrong += a[i] != gq_double_to_bf16(gq_input_value(
			                     99, GQ_TENSOR_G, first + (uint64_t)i, spec));
		CHECK_MSG(wrong == 0, "%s: %d elements differ from gq_input_value", gq_dist_name(d),
		          wrong);
		/* a fill from an offset inside is the matching slice */
		gq_inputs_fill_bf16(99, GQ_TENSOR_G, spec, first + 12345, 1000, b);
		CHECK(memcmp(a + 12345, b, sizeof(uint16_t) * 1000) == 0);
		free(a);
		free(b);
	}
}

/* The value of BF16 bits b, exact. */
static double bf16_value(uint16_t b)
{
	return (double)gq_bf16_to_float(b);
}

static void test_bf16_rounding(void)
{
	CHECK(gq_double_to_bf16(1.0) == 0x3f80);
	CHECK(gq_double_to_bf16(-2.0) == 0xc000);
	CHECK(gq_double_to_bf16(0.0) == 0x0000);
	CHECK(gq_double_to_bf16(-0.0) == 0x8000);
	/* ties to even: 1 + 2^-8 lies halfway between 0x3f80 and 0x3f81 */
	CHECK(gq_double_to_bf16(1.0 + 0x1p-8) == 0x3f80);
	CHECK(gq_double_to_bf16(1.0 + 3 * 0x1p-8) == 0x3f82);
	CHECK(gq_double_to_bf16(-(1.0 + 3 * 0x1p-8)) == 0xbf82);
	CHECK(gq_float_to_bf16(1.0f + 0x1p-8f) == 0x3f80);
	CHECK(gq_float_to_bf16(1.0f + 3 * 0x1p-8f) == 0x3f82);
	/* one rounding, not two: via float, 1 + 2^-8 + 2^-40 first becomes the tie 1 + 2^-8 */
	double above = 1.0 + 0x1p-8 + 0x1p-40;
	CHECK(gq_double_to_bf16(above) == 0x3f81);
	CHECK(gq_float_to_bf16((float)above) == 0x3f80);
	/* NaN stays a quiet NaN with its sign; ±Inf stay */
	uint16_t qn = gq_double_to_bf16(NAN), nn = gq_double_to_bf16(-NAN);
	CHECK((qn & 0x7f80) == 0x7f80 && (qn & 0x0040) && !(qn & 0x8000));
	CHECK((nn & 0x7f80) == 0x7f80 && (nn & 0x007f) && (nn & 0x8000));
	CHECK(isnan(gq_bf16_to_float(gq_float_to_bf16(NAN))));
	uint32_t snan_bits =
	    0x7f800001u; /* a signalling NaN whose payload is all in the low half */
	float snan;
	memcpy(&snan, &snan_bits, sizeof(snan));
	CHECK(isnan(gq_bf16_to_float(gq_float_to_bf16(snan))));
	CHECK(gq_double_to_bf16(INFINITY) == 0x7f80 && gq_double_to_bf16(-INFINITY) == 0xff80);
	CHECK(gq_float_to_bf16(INFINITY) == 0x7f80 && gq_float_to_bf16(-INFINITY) == 0xff80);
	/* overflow: the largest BF16 is (2 − 2^-7)·2^127 (0x7f7f); the halfway point to 2^128 ties
	 * to even, which is +Inf */
	double top = ldexp(2.0 - 0x1p-8, 127);
	CHECK(gq_double_to_bf16(ldexp(2.0 - 0x1p-7, 127)) == 0x7f7f);
	CHECK(gq_double_to_bf16(nextafter(top, 0)) == 0x7f7f);
	CHECK(gq_double_to_bf16(top) == 0x7f80);
	CHECK(gq_double_to_bf16(-top) == 0xff80);
	CHECK(gq_double_to_bf16(DBL_MAX) == 0x7f80 && gq_double_to_bf16(1e300) == 0x7f80);
	CHECK(gq_float_to_bf16(FLT_MAX) == 0x7f80);
	/* subnormals: the least BF16 subnormal is 2^-133 */
	CHECK(gq_double_to_bf16(0x1p-133) == 0x0001);
	CHECK(gq_double_to_bf16(0x1p-134) == 0x0000);
	CHECK(gq_double_to_bf16(0x1p-134 * (1 + 0x1p-40)) == 0x0001);
	CHECK(gq_double_to_bf16(3 * 0x1p-134) == 0x0002);
	CHECK(gq_double_to_bf16(0x1p-126) == 0x0080);
	CHECK(gq_double_to_bf16(0x1p-126 - 0x1p-134) == 0x0080);
	CHECK(gq_double_to_bf16(0x1p-126 - 3 * 0x1p-135) == 0x007f);
	CHECK(gq_double_to_bf16(0x1p-126 - 3 * 0x1p-134) == 0x007e);
	CHECK(gq_double_to_bf16(-0x1p-133) == 0x8001);
	CHECK(gq_double_to_bf16(1e-300) == 0x0000 && gq_double_to_bf16(-1e-300) == 0x8000);
	CHECK(gq_double_to_bf16(DBL_MIN / 4) == 0x0000);
	CHECK(gq_float_to_bf16(0x1p-133f) == 0x0001 && gq_float_to_bf16(0x1p-134f) == 0x0000);

	/* every finite BF16 is a fixed point of both roundings, and its value is ±(1 +
	 * m/128)·2^(e−127) (±m/128·2^-126 for e = 0) */
	int bad = 0;
	for (uint32_t b = 0; b < 0x10000; b++) {
		int e = (b >> 7) & 0xff, mant = b & 0x7f;
		if (e == 0xff)
			continue;
		double want = e ? ldexp(1.0 + mant / 128.0, e - 127) : ldexp(mant / 128.0, -126);
		if (b & 0x8000)
			want = -want;
		bad += bf16_value((uint16_t)b) != want;
		bad += gq_double_to_bf16(want) != b || gq_float_to_bf16((float)want) != b;
	}
	CHECK_MSG(bad == 0, "%d BF16 values convert wrongly", bad);

	/* between neighbours lo and lo+1: below half → lo, above → lo+1, half → the even one */
	int wrong = 0;
	srand(5);
	for (int t = 0; t < 200000; t++) {
		uint16_t lo = (uint16_t)(rand() % 0x7f7f); /* positive finite, below the largest */
		int neg = rand() & 1;
		double a = bf16_value(lo), step = bf16_value((uint16_t)(lo + 1)) - a;
		uint64_t f = ((uint64_t)rand() << 9) % (1ull << 40); /* f/2^40 of the gap, exact */
		if (t % 4 == 0)
			f = 1ull << 39; /* a tie */
		double v = a + step * ldexp((double)f, -40);
		uint16_t want = f < (1ull << 39)   ? lo
		                : f > (1ull << 39) ? lo + 1
		                : (lo & 1)         ? lo + 1
		                                   : lo;
		uint16_t got = gq_double_to_bf16(neg ? -v : v);
		wrong += got != (uint16_t)(want | (neg ? 0x8000 : 0));
	}
	CHECK_MSG(wrong == 0, "%d of 200000 roundings wrong", wrong);
}

/* double → FP32 by integers (philox.h) equals the C conversion, round to nearest even, on
 * values across the whole range: normal, halfway cases, subnormal, overflow, ±0, NaN, ±Inf. */
static void test_fp32_rounding(void)
{
	uint64_t state = 12345;
	int bad = 0;
	for (int i = 0; i < 2000000; i++) {
		state = state * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t bits = state;
		/* exponents near FP32's: its normal range, its subnormals and its overflow */
		uint64_t ex = 1023 - 160 + (bits >> 52) % 300;
		bits = (bits & 0x800fffffffffffffull) | (ex << 52);
		if (i % 7 == 0) /* exact halfway cases: 25 significant bits ending in 1 */
			bits = (bits & ~((1ull << 28) - 1)) | (1ull << 28);
		double v;
		memcpy(&v, &bits, sizeof(v));
		float want = (float)v;
		uint32_t w;
		memcpy(&w, &want, sizeof(w));
		bad += gq_hd_double_to_fp32_bits(v) != w;
	}
	CHECK_MSG(bad == 0, "%d values round differently from the C conversion", bad);
	const double special[] = {0.0,   -0.0,   INFINITY, -INFINITY, 3.4028235677973366e38,
	                          1e-46, -1e-45, 0x1p-149, 0x1p-150,  0x1.8p-150};
	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++) {
		float want = (float)special[i];
		uint32_t w;
		memcpy(&w, &want, sizeof(w));
		CHECK_MSG(gq_hd_double_to_fp32_bits(special[i]) == w, "%a", special[i]);
	}
	CHECK((gq_hd_double_to_fp32_bits(NAN) & 0x7fc00000u) == 0x7fc00000u);
	/* an FP32 fill: element i is the FP32 rounding of the same FP64 value as the BF16 fill */
	gq_input_spec spec = {GQ_DIST_NORMAL, 2.0};
	uint32_t f[1000];
	gq_inputs_fill_fp32(7, GQ_TENSOR_G, spec, 123, 1000, f);
	int wrong = 0;
	for (int i = 0; i < 1000; i++) {
		float want = (float)gq_input_value(7, GQ_TENSOR_G, 123 + (uint64_t)i, spec);
		uint32_t w;
		memcpy(&w, &want, sizeof(w));
		wrong += f[i] != w;
	}
	CHECK_MSG(wrong == 0, "%d FP32 inputs differ from their values", wrong);
	/* an FP32 input carries more than BF16's 8 bits: some elements are not BF16 values */
	int beyond_bf16 = 0;
	for (int i = 0; i < 1000; i++)
		beyond_bf16 += (f[i] & 0xffff) != 0;
	CHECK(beyond_bf16 > 900);
}

static void test_dist_names(void)
{
	for (int d = 0; d < GQ_DIST_COUNT; d++)
		CHECK(gq_dist_parse(gq_dist_name((gq_dist)d)) == d);
	CHECK(strcmp(gq_dist_name(GQ_DIST_NORMAL), "normal") == 0);
	CHECK(strcmp(gq_dist_name(GQ_DIST_UNIFORM), "uniform") == 0);
	CHECK(gq_dist_parse("gaussian") == -1 && gq_dist_parse(NULL) == -1);
}

int main(void)
{
	test_philox_known_answers();
	test_log_accuracy();
	test_cos_accuracy();
	test_normal_moments();
	test_uniform_moments();
	test_independence();
	test_fill_determinism();
	test_bf16_rounding();
	test_fp32_rounding();
	test_dist_names();
	return gq_check_exit("test_inputs");
}

/* philox.h: the input generator's arithmetic, shared by the CPU (inputs.c) and the GPU
 * (inputs_gpu.cu) as static inline functions, so both sides run one text.
 *
 * Bit parity rests on three rules:
 *   - integers only for Philox4x32-10, the 53-bit uniforms, the range reductions and the BF16
 *     rounding;
 *   - floating point only through GQ_ADD, GQ_SUB, GQ_MUL, GQ_DIV and GQ_SQRT, each one IEEE-754
 *     binary64 operation rounded to nearest. On the GPU they are the __d*_rn intrinsics, which
 *     nvcc never fuses into FMAs; on the CPU plain operators, compiled with -ffp-contract=off;
 *   - log and cos are our own series built from those operations, never libm's or CUDA's, whose
 *     last bits differ.
 * The constants are hexadecimal literals, so no decimal conversion can differ either.
 */
#ifndef GQ_PHILOX_H
#define GQ_PHILOX_H

#include <stdint.h>
#include <string.h>

#include "inputs.h"

#ifdef __CUDACC__
#define GQ_HD __host__ __device__
#else
#define GQ_HD
#endif

#if defined(__CUDA_ARCH__)
#define GQ_ADD(a, b) __dadd_rn((a), (b))
#define GQ_SUB(a, b) __dsub_rn((a), (b))
#define GQ_MUL(a, b) __dmul_rn((a), (b))
#define GQ_DIV(a, b) __ddiv_rn((a), (b))
#define GQ_SQRT(a)   __dsqrt_rn((a))
#else
#include <math.h>
#define GQ_ADD(a, b) ((a) + (b))
#define GQ_SUB(a, b) ((a) - (b))
#define GQ_MUL(a, b) ((a) * (b))
#define GQ_DIV(a, b) ((a) / (b))
#define GQ_SQRT(a)   sqrt((a))
#endif

/* Random123's Philox4x32 constants: the multipliers and the Weyl key increments. */
#define GQ_PHILOX_M0 0xD2511F53u
#define GQ_PHILOX_M1 0xCD9E8D57u
#define GQ_PHILOX_W0 0x9E3779B9u
#define GQ_PHILOX_W1 0xBB67AE85u

/* The raw bits of a double and back. */
static inline GQ_HD uint64_t gq_hd_double_bits(double x)
{
#if defined(__CUDA_ARCH__)
	return (uint64_t)__double_as_longlong(x);
#else
	uint64_t u;
	memcpy(&u, &x, sizeof(u));
	return u;
#endif
}

static inline GQ_HD double gq_hd_bits_double(uint64_t u)
{
#if defined(__CUDA_ARCH__)
	return __longlong_as_double((long long)u);
#else
	double x;
	memcpy(&x, &u, sizeof(x));
	return x;
#endif
}

/* The high 32 bits of the 64-bit product a·b. */
static inline GQ_HD uint32_t gq_hd_mulhi32(uint32_t a, uint32_t b)
{
#if defined(__CUDA_ARCH__)
	return __umulhi(a, b);
#else
	return (uint32_t)(((uint64_t)a * b) >> 32);
#endif
}

/* Philox4x32-10 (Salmon et al., SC'11; Random123's philox4x32_R with R = 10): one round is
 *   (c0, c1, c2, c3) → (hi(M1·c2) ^ c1 ^ k0, lo(M1·c2), hi(M0·c0) ^ c3 ^ k1, lo(M0·c0)),
 * and the key gains (W0, W1) between rounds. out may alias ctr. */
static inline GQ_HD void gq_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2],
                                          uint32_t out[4])
{
	uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
	uint32_t k0 = key[0], k1 = key[1];
	for (int r = 0; r < 10; r++) {
		if (r > 0) {
			k0 += GQ_PHILOX_W0;
			k1 += GQ_PHILOX_W1;
		}
		uint32_t hi0 = gq_hd_mulhi32(GQ_PHILOX_M0, c0), lo0 = GQ_PHILOX_M0 * c0;
		uint32_t hi1 = gq_hd_mulhi32(GQ_PHILOX_M1, c2), lo1 = GQ_PHILOX_M1 * c2;
		c0 = hi1 ^ c1 ^ k0;
		c1 = lo1;
		c2 = hi0 ^ c3 ^ k1;
		c3 = lo0;
	}
	out[0] = c0, out[1] = c1, out[2] = c2, out[3] = c3;
}

/* The 53 high bits of the 64-bit word hi:lo, an integer in [0, 2^53). */
static inline GQ_HD uint64_t gq_hd_bits53(uint32_t hi, uint32_t lo)
{
	return (((uint64_t)hi << 32) | lo) >> 11;
}

/* ln(u) for u in (0, 1] (u normal). u = m·2^e exactly with m in [√½, √2) (a bit split), then
 *   ln u = e·ln2_hi + (e·ln2_lo + 2·atanh(s)),  s = (m − 1)/(m + 1), |s| ≤ 0.1716,
 *   2·atanh(s) = 2s + 2s·Σ_{n=1..10} s^{2n}/(2n+1)   (truncation < 1e-18 relative).
 * m − 1 is exact (Sterbenz); e·ln2_hi is exact (ln2_hi has 32 significant bits, |e| ≤ 1074).
 * About 2 ulp from ln u. */
static inline GQ_HD double gq_hd_log(double u)
{
	const double ln2_hi = 0x1.62e42feep-1, ln2_lo = 0x1.a39ef35793c76p-33;
	const double sqrt2 = 0x1.6a09e667f3bcdp+0;
	uint64_t bits = gq_hd_double_bits(u);
	int e = (int)((bits >> 52) & 0x7ff) - 1023;
	double m = gq_hd_bits_double((bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
	if (m > sqrt2) {
		m = GQ_MUL(m, 0.5);
		e += 1;
	}
	double s = GQ_DIV(GQ_SUB(m, 1.0), GQ_ADD(m, 1.0));
	double s2 = GQ_MUL(s, s);
	double p = 0x1.8618618618618p-5;                 /* 1/21 */
	p = GQ_ADD(GQ_MUL(p, s2), 0x1.af286bca1af28p-5); /* 1/19 */
	p = GQ_ADD(GQ_MUL(p, s2), 0x1.e1e1e1e1e1e1ep-5); /* 1/17 */
	p = GQ_ADD(GQ_MUL(p, s2), 0x1.1111111111111p-4); /* 1/15 */
	p = GQ_ADD(GQ_MUL(p, s2), 0x1.3b13b13b13b14p-4); /* 1/13 */
	p = GQ_ADD(GQ_MUL(p, s2), 0x1.745d1745d1746p-4); /* 1/11 */
	p = GQ_ADD(GQ_MUL(p, s2), 0x1.c71c71c71c71cp-4); /* 1/9 */
	p = GQ_ADD(GQ_MUL(p, s2), 0x1.2492492492492p-3); /* 1/7 */
	p = GQ_ADD(GQ_MUL(p, s2), 0x1.999999999999ap-3); /* 1/5 */
	p = GQ_ADD(GQ_MUL(p, s2), 0x1.5555555555555p-2); /* 1/3 */
	double two_s = GQ_MUL(2.0, s);
	double log_m = GQ_ADD(two_s, GQ_MUL(two_s, GQ_MUL(s2, p)));
	double de = (double)e;
	return GQ_ADD(GQ_MUL(de, ln2_hi), GQ_ADD(GQ_MUL(de, ln2_lo), log_m));
}

/* cos(2π·x/2^53) for an integer x in [0, 2^53). The reduction is exact, in integers:
 *   q = round(x/2^51), r = x − q·2^51 in [−2^50, 2^50],  θ = r·(2π/2^53) in [−π/4, π/4],
 *   cos(θ + qπ/2) = cos θ, −sin θ, −cos θ, sin θ for q mod 4 = 0, 1, 2, 3;
 *   cos θ = Σ_{n=0..9} (−1)^n θ^{2n}/(2n)!,  sin θ = θ·Σ_{n=0..9} (−1)^n θ^{2n}/(2n+1)!
 * (truncation below 1e-18). About 2 ulp from the true value. */
static inline GQ_HD double gq_hd_cos2pi53(uint64_t x)
{
	uint64_t q = (x + (1ull << 50)) >> 51;
	int64_t r = (int64_t)x - (int64_t)(q << 51);
	double th = GQ_MUL((double)r, 0x1.921fb54442d18p-51); /* 2π/2^53 */
	double t2 = GQ_MUL(th, th);
	double v;
	if ((q & 1) == 0) {
		double p = -0x1.6827863b97d97p-53;                 /* −1/18! */
		p = GQ_ADD(GQ_MUL(p, t2), 0x1.ae7f3e733b81fp-45);  /* 1/16! */
		p = GQ_ADD(GQ_MUL(p, t2), -0x1.93974a8c07c9dp-37); /* −1/14! */
		p = GQ_ADD(GQ_MUL(p, t2), 0x1.1eed8eff8d898p-29);  /* 1/12! */
		p = GQ_ADD(GQ_MUL(p, t2), -0x1.27e4fb7789f5cp-22); /* −1/10! */
		p = GQ_ADD(GQ_MUL(p, t2), 0x1.a01a01a01a01ap-16);  /* 1/8! */
		p = GQ_ADD(GQ_MUL(p, t2), -0x1.6c16c16c16c17p-10); /* −1/6! */
		p = GQ_ADD(GQ_MUL(p, t2), 0x1.5555555555555p-5);   /* 1/4! */
		p = GQ_ADD(GQ_MUL(p, t2), -0.5);                   /* −1/2! */
		v = GQ_ADD(GQ_MUL(p, t2), 1.0);
	} else {
		double p = -0x1.2f49b46814157p-57;                 /* −1/19! */
		p = GQ_ADD(GQ_MUL(p, t2), 0x1.952c77030ad4ap-49);  /* 1/17! */
		p = GQ_ADD(GQ_MUL(p, t2), -0x1.ae7f3e733b81fp-41); /* −1/15! */
		p = GQ_ADD(GQ_MUL(p, t2), 0x1.6124613a86d09p-33);  /* 1/13! */
		p = GQ_ADD(GQ_MUL(p, t2), -0x1.ae64567f544e4p-26); /* −1/11! */
		p = GQ_ADD(GQ_MUL(p, t2), 0x1.71de3a556c734p-19);  /* 1/9! */
		p = GQ_ADD(GQ_MUL(p, t2), -0x1.a01a01a01a01ap-13); /* −1/7! */
		p = GQ_ADD(GQ_MUL(p, t2), 0x1.1111111111111p-7);   /* 1/5! */
		p = GQ_ADD(GQ_MUL(p, t2), -0x1.5555555555555p-3);  /* −1/3! */
		v = GQ_ADD(th, GQ_MUL(th, GQ_MUL(p, t2)));
	}
	return (q & 3) == 1 || (q & 3) == 2 ? -v : v;
}

/* One element's FP64 value (inputs.h): Philox4x32-10 with key (seed low, seed high) and counter
 * (index low, index high, tensor, 0) gives words w0..w3;
 *   uniform: x = top 53 bits of w1:w0, value = scale·(2x/2^53 − 1), in [−scale, scale)
 *   normal:  u1 = (x1 + 1)/2^53 in (0, 1] with x1 from w1:w0, x2 from w3:w2 (Box–Muller),
 *            value = scale·sqrt(−2·ln u1)·cos(2π·x2/2^53)
 * 2x − 2^53 and x1 + 1 are exact integers below 2^53, so only the named operations round. */
static inline GQ_HD double gq_hd_input_value(uint64_t seed, int tensor, uint64_t index, int dist,
                                             double scale)
{
	uint32_t ctr[4] = {(uint32_t)index, (uint32_t)(index >> 32), (uint32_t)tensor, 0};
	uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
	uint32_t w[4];
	gq_philox4x32_10(ctr, key, w);
	const double two_m53 = 0x1p-53;
	uint64_t x1 = gq_hd_bits53(w[1], w[0]);
	if (dist == GQ_DIST_UNIFORM) {
		double v = GQ_MUL((double)((int64_t)(2 * x1) - (int64_t)(1ull << 53)), two_m53);
		return GQ_MUL(scale, v);
	}
	double u1 = GQ_MUL((double)(x1 + 1), two_m53);
	double radius = GQ_SQRT(GQ_MUL(-2.0, gq_hd_log(u1)));
	double z = GQ_MUL(radius, gq_hd_cos2pi53(gq_hd_bits53(w[3], w[2])));
	return GQ_MUL(scale, z);
}

/* Shift a positive integer right by s in [1, 63] bits, rounding to nearest, ties to even. */
static inline GQ_HD uint64_t gq_hd_shift_rne(uint64_t v, int s)
{
	uint64_t q = v >> s, rem = v & ((1ull << s) - 1), half = 1ull << (s - 1);
	return q + (rem > half || (rem == half && (q & 1)));
}

/* double → BF16 bits, one rounding to nearest even from the double's exact value:
 *   normal BF16 (|v| ≥ 2^-126): keep 8 of the 53 significand bits, a carry may bump the exponent,
 *   an exponent past 254 is ±Inf; subnormal BF16: n = rne(|v|·2^133), bits = n (n = 128 is the
 *   smallest normal, which the same encoding gives). NaN stays NaN, quieted, sign kept. */
static inline GQ_HD uint16_t gq_hd_double_to_bf16(double v)
{
	uint64_t bits = gq_hd_double_bits(v);
	uint16_t sign = (uint16_t)((bits >> 48) & 0x8000);
	int ex = (int)((bits >> 52) & 0x7ff);
	uint64_t frac = bits & 0x000fffffffffffffull;
	if (ex == 0x7ff)
		return frac ? (uint16_t)(sign | 0x7fc0 | ((frac >> 45) & 0x7f))
		            : (uint16_t)(sign | 0x7f80);
	if (ex == 0)
		return sign; /* a double subnormal is far below half the least BF16 subnormal */
	uint64_t sig = frac | (1ull << 52);
	int e = ex - 1023;
	if (e >= -126) {
		uint64_t q = gq_hd_shift_rne(sig, 45); /* in [128, 256] */
		if (q == 256) {
			q = 128;
			e += 1;
		}
		if (e + 127 >= 255)
			return (uint16_t)(sign | 0x7f80);
		return (uint16_t)(sign | ((uint32_t)(e + 127) << 7) | (q & 0x7f));
	}
	int shift = 942 - ex; /* |v|·2^133 = sig·2^(ex − 942), shift > 45 */
	if (shift > 60)
		return sign;
	return (uint16_t)(sign | gq_hd_shift_rne(sig, shift));
}

/* double → FP32 bits, one rounding to nearest even, by the same integer steps (no dependence on
 * the FPU's rounding or flush-to-zero modes, so host and device agree):
 *   normal FP32 (|v| ≥ 2^-126): keep 24 of the 53 significand bits, a carry may bump the exponent,
 *   an exponent past 254 is ±Inf; subnormal FP32: n = rne(|v|·2^149), bits = n. NaN stays NaN,
 *   quieted, sign kept. */
static inline GQ_HD uint32_t gq_hd_double_to_fp32_bits(double v)
{
	uint64_t bits = gq_hd_double_bits(v);
	uint32_t sign = (uint32_t)((bits >> 32) & 0x80000000u);
	int ex = (int)((bits >> 52) & 0x7ff);
	uint64_t frac = bits & 0x000fffffffffffffull;
	if (ex == 0x7ff)
		return frac ? sign | 0x7fc00000u | (uint32_t)((frac >> 29) & 0x3fffff)
		            : sign | 0x7f800000u;
	if (ex == 0)
		return sign; /* a double subnormal is far below half the least FP32 subnormal */
	uint64_t sig = frac | (1ull << 52);
	int e = ex - 1023;
	if (e >= -126) {
		uint64_t q = gq_hd_shift_rne(sig, 29); /* in [2^23, 2^24] */
		if (q == (1ull << 24)) {
			q = 1ull << 23;
			e += 1;
		}
		if (e + 127 >= 255)
			return sign | 0x7f800000u;
		return sign | ((uint32_t)(e + 127) << 23) | (uint32_t)(q & 0x7fffff);
	}
	int shift = 926 - ex; /* |v|·2^149 = sig·2^(ex − 926), shift > 29 */
	if (shift > 60)
		return sign;
	return sign | (uint32_t)gq_hd_shift_rne(sig, shift);
}

#endif

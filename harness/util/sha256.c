#include "sha256.h"

#include <stdint.h>
#include <string.h>

/* The first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
static const uint32_t k_round[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* Rotate x right by n bits, 0 < n < 32. */
static uint32_t rotr(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

/* Compress one 64-byte block into the state h (FIPS 180-4, section 6.2.2):
 *   W_t = M_t (t < 16), σ1(W_{t-2}) + W_{t-7} + σ0(W_{t-15}) + W_{t-16} (t ≥ 16), then 64 rounds
 *   T1 = h + Σ1(e) + Ch(e,f,g) + K_t + W_t, T2 = Σ0(a) + Maj(a,b,c). */
static void compress(uint32_t h[8], const unsigned char block[64])
{
	uint32_t w[64];
	for (int t = 0; t < 16; t++)
		w[t] = (uint32_t)block[4 * t] << 24 | (uint32_t)block[4 * t + 1] << 16 |
		       (uint32_t)block[4 * t + 2] << 8 | (uint32_t)block[4 * t + 3];
	for (int t = 16; t < 64; t++) {
		uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
		uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
		w[t] = s1 + w[t - 7] + s0 + w[t - 16];
	}
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
	for (int t = 0; t < 64; t++) {
		uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
		              k_round[t] + w[t];
		uint32_t t2 =
		    (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

void gq_sha256_hex(const void *data, size_t size, char out[65])
{
	static const char hex[] = "0123456789abcdef";
	uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	const unsigned char *p = data;
	size_t full = size / 64 * 64;
	for (size_t i = 0; i < full; i += 64)
		compress(h, p + i);

	/* Padding: the tail, a 1 bit, zeros up to 56 mod 64 bytes, the length in bits big-endian.
	 */
	unsigned char tail[128] = {0};
	size_t rest = size - full;
	if (rest)
		memcpy(tail, p + full, rest);
	tail[rest] = 0x80;
	size_t tail_size = rest < 56 ? 64 : 128;
	uint64_t bits = (uint64_t)size * 8;
	for (int i = 0; i < 8; i++)
		tail[tail_size - 1 - i] = (unsigned char)(bits >> (8 * i));
	for (size_t i = 0; i < tail_size; i += 64)
		compress(h, tail + i);

	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 8; j++)
			out[8 * i + j] = hex[(h[i] >> (28 - 4 * j)) & 0xf];
	out[64] = '\0';
}

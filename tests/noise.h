/* noise.h: a reproducible uniform value in [−1, 1) for synthetic samples in tests (splitmix64,
 * kept apart from the generator stats.c uses for its bootstrap). */
#ifndef GQ_TEST_NOISE_H
#define GQ_TEST_NOISE_H

#include <stdint.h>

static double noise(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0 * 2 - 1;
}

#endif

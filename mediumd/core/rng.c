/* rng.c - xoshiro256** (Blackman & Vigna) with splitmix64 seeding. */
#include <math.h>
#include "rng.h"

uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void rng_seed(struct rng *r, uint64_t seed)
{
	uint64_t st = seed;
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&st);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double rng_uniform(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

uint32_t rng_below(struct rng *r, uint32_t n)
{
	/* Lemire's multiply-shift with rejection: no modulo bias. */
	uint64_t m = (uint64_t)(uint32_t)(rng_next(r) >> 32) * n;
	uint32_t lo = (uint32_t)m;
	if (lo < n) {
		uint32_t t = -n % n;
		while (lo < t) {
			m = (uint64_t)(uint32_t)(rng_next(r) >> 32) * n;
			lo = (uint32_t)m;
		}
	}
	return (uint32_t)(m >> 32);
}

static double normal_from(double u1, double u2)
{
	/* Box-Muller; u1 in (0,1]. */
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

double rng_normal(struct rng *r)
{
	double u1 = 1.0 - rng_uniform(r);
	return normal_from(u1, rng_uniform(r));
}

double rng_hash_normal(uint64_t seed, uint64_t a, uint64_t b)
{
	uint64_t st = seed ^ (a * 0x9e3779b97f4a7c15ULL) ^ (b * 0xc2b2ae3d27d4eb4fULL);
	double u1 = 1.0 - (double)(splitmix64(&st) >> 11) * 0x1.0p-53;
	double u2 = (double)(splitmix64(&st) >> 11) * 0x1.0p-53;
	return normal_from(u1, u2);
}

/* rng.h - the one PRNG of the medium: xoshiro256** seeded by splitmix64.
 * Every random draw of a run comes from one stream (or from a pure hash of
 * the seed, for static per-link shadowing), so same seed + same frame
 * sequence => same fates. */
#ifndef MEDIUM_RNG_H
#define MEDIUM_RNG_H
#include <stdint.h>

struct rng { uint64_t s[4]; };

void     rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
double   rng_uniform(struct rng *r);		/* [0, 1)              */
uint32_t rng_below(struct rng *r, uint32_t n);	/* 0 .. n-1, unbiased  */
double   rng_normal(struct rng *r);		/* N(0, 1)             */
/* Deterministic N(0,1) from (seed, a, b) without touching any stream. */
double   rng_hash_normal(uint64_t seed, uint64_t a, uint64_t b);
uint64_t splitmix64(uint64_t *state);
#endif

/* lagstat.c: log-bucketed lag histogram (see lagstat.h). */
#include "lagstat.h"

/* Values below LAGSTAT_SUB get a bucket each; above, octave e (2^e <= v <
 * 2^(e+1)) is split into LAGSTAT_SUB equal parts. */
static unsigned bucket_of(uint64_t v)
{
	unsigned e, idx;

	if (v < LAGSTAT_SUB)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v);              /* e >= 3 */
	idx = (e - 2) * LAGSTAT_SUB + (unsigned)((v >> (e - 3)) & (LAGSTAT_SUB - 1));
	return idx < LAGSTAT_BUCKETS ? idx : LAGSTAT_BUCKETS - 1;
}

/* Largest value that falls in bucket idx. */
static uint64_t bucket_top(unsigned idx)
{
	unsigned e, sub;

	if (idx < LAGSTAT_SUB)
		return idx;
	e = idx / LAGSTAT_SUB + 2;
	sub = idx % LAGSTAT_SUB;
	return (((uint64_t)LAGSTAT_SUB + sub + 1) << (e - 3)) - 1;
}

void lagstat_add(struct lagstat *s, int64_t lag_ns)
{
	uint64_t v = lag_ns > 0 ? (uint64_t)lag_ns : 0;

	s->bucket[bucket_of(v)]++;
	s->count++;
	s->sum_ns += (double)v;
	if (v > s->max_ns)
		s->max_ns = v;
}

uint64_t lagstat_quantile(const struct lagstat *s, double q)
{
	uint64_t rank, seen = 0;
	unsigned i;

	if (!s->count)
		return 0;
	if (q < 0) q = 0;
	if (q > 1) q = 1;
	rank = (uint64_t)(q * (double)s->count + 0.5);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < LAGSTAT_BUCKETS; i++) {
		seen += s->bucket[i];
		if (seen >= rank) {
			/* the last bucket is open-ended: only the maximum bounds it */
			uint64_t top = i == LAGSTAT_BUCKETS - 1 ? s->max_ns : bucket_top(i);
			return top < s->max_ns ? top : s->max_ns;
		}
	}
	return s->max_ns;
}

/* lagstat: how late the daemon delivers compared with logical time.
 *
 * A log-bucketed histogram (8 buckets per power of two, about 9% resolution)
 * gives percentiles in O(1) memory and O(1) per sample, cheap enough to record
 * every delivery. Values are nanoseconds; negative lags count as 0.
 */
#ifndef MEDIUMD_LAGSTAT_H
#define MEDIUMD_LAGSTAT_H

#include <stdint.h>

#define LAGSTAT_SUB 8                    /* buckets per octave */
#define LAGSTAT_BUCKETS (LAGSTAT_SUB * 44) /* up to 2^44 ns (~4.9 h) */

struct lagstat {
	uint64_t count;
	uint64_t max_ns;
	double sum_ns;
	uint64_t bucket[LAGSTAT_BUCKETS];
};

void lagstat_add(struct lagstat *s, int64_t lag_ns);

/* The value below which a fraction q (0..1) of samples lie, as the upper edge
 * of its bucket (never above the true maximum). 0 when empty. */
uint64_t lagstat_quantile(const struct lagstat *s, double q);

#endif

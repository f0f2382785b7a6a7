/* scenario.h - synthetic traffic for mediumsim (format in docs/medium.md):
 *
 *   duration 10                 virtual seconds
 *   warmup 1                    seconds not counted in goodput
 *   flow A B payload 1500 rate 11 [rts] [short_preamble] [count N] [start S]
 *   frame 1000 A B len 100 rate 1 [rts] [count N]      (time in us)
 *   frame 1000 A B len 100 rates 11x2,1x4              (multi-rate retry table)
 *   waypoint A 2.5 100 0 0      radio A's trajectory: at 100 0 0 at t = 2.5 s
 *
 * A radio with waypoints in the scenario follows them instead of what the
 * medium config says (its waypoints, or its pos): the same line as the
 * config's (core/config.c), so one medium can be run with several motions.
 */
#ifndef SCENARIO_H
#define SCENARIO_H
#include <stdbool.h>
#include <stdint.h>
#include "medium.h"

struct flow {
	int src, dst;			/* radio indices; dst -1 = broadcast   */
	uint32_t payload, overhead;	/* MSDU payload, MAC+LLC+FCS bytes     */
	double rate_mbps;
	int rate_idx;
	bool rts, short_pre;
	int count;			/* tries in the single rate entry      */
	int backlog;			/* frames kept queued (saturation)     */
	double start_s;
	/* results */
	uint64_t enqueued, finished, acked, delivered, retry_drops, queue_drops;
	uint64_t attempts, delivered_bytes, seq;
	uint64_t *iv;			/* DATA airtime intervals: start,end   */
	size_t n_iv, cap_iv;
	uint64_t data_airtime_ns;
};

struct inject {
	uint64_t t_ns;
	int src, dst;
	uint32_t len;
	int rate_idx;
	bool rts, short_pre;
	int count;
	struct medium_rate table[MEDIUM_MAX_RATES];	/* "rates 11x2,1x4"; idx -1 = unused */
	struct medium_rate used[MEDIUM_MAX_RATES];	/* tries reported per entry */
	/* results */
	bool done, acked;
	int attempts, n_rx;
	int rx[64];
	double rx_dbm[64];
};

struct scenario {
	double duration_s, warmup_s;
	bool has_seed;
	uint64_t seed;
	struct flow *flows;
	int n_flows;
	struct inject *frames;
	int n_frames;
	struct medium_waypoint_config *waypoints;	/* in file order */
	int n_waypoints;
};

/* Parse a scenario file against a medium config (radio names / MACs). */
int  scenario_load(const char *path, const struct medium_config *cfg,
		   struct scenario *sc, char *err, size_t errlen);
void scenario_free(struct scenario *sc);
/* Give the radios with scenario waypoints those trajectories. */
int  scenario_apply_waypoints(const struct scenario *sc, struct medium *m);
#endif

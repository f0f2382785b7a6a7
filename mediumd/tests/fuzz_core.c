/* fuzz_core.c - random use of the core API as a daemon would make it, checking
 * invariants: every enqueued frame gets exactly one tx_status, a frame is
 * delivered at most once per receiver and only after it was enqueued, time
 * never goes backwards, attempts never exceed the rate table or retry limit.
 *
 *   fuzz_core SEED ITERATIONS MAX_GAP_US   (exit 0 = all invariants held) */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "medium.h"

#define NR 6
#define MAXF 200000

static int status_count[MAXF], deliver_count[MAXF][NR];
static uint64_t enq_time[MAXF];
static int retry_short[NR], retry_long[NR];	/* largest limits ever set */
static uint64_t last_cb_time;
static int failures;

#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static void on_deliver(void *ctx, const struct medium_rx_info *rx)
{
	(void)ctx;
	CHECK(rx->cookie < MAXF, "bad cookie");
	deliver_count[rx->cookie][rx->rx_radio]++;
	CHECK(rx->time_ns >= enq_time[rx->cookie], "delivered before enqueued");
	CHECK(rx->time_ns >= last_cb_time, "time went backwards");
	last_cb_time = rx->time_ns;
	CHECK(isfinite(rx->signal_dbm), "signal not finite");
}

static void on_status(void *ctx, const struct medium_tx_report *rep)
{
	(void)ctx;
	int tries = 0;
	status_count[rep->cookie]++;
	for (int i = 0; i < MEDIUM_MAX_RATES; i++)
		if (rep->attempts[i].idx >= 0)
			tries += rep->attempts[i].count;
	CHECK(tries <= retry_short[rep->tx_radio] + retry_long[rep->tx_radio],
	      "%d tries > limits", tries);
	CHECK(!rep->queue_drop || tries == 0, "queue drop with tries");
	CHECK(rep->done_ns >= last_cb_time, "status time went backwards");
	last_cb_time = rep->done_ns;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17;
	return *s;
}

int main(int argc, char **argv)
{
	uint64_t s = argc > 1 ? strtoull(argv[1], NULL, 0) * 2654435761ULL + 1 : 1;
	long iters = argc > 2 ? atol(argv[2]) : 20000;
	uint64_t gap = argc > 3 ? strtoull(argv[3], NULL, 0) * 1000 : 400000;
	struct medium_config cfg;
	char err[256];
	const char *text =
		"seed 7\npropagation two_ray\nshadowing 3\nfading rayleigh\n"
		"defaults phy g tx_range 200 cs_range 350 queue 5 retry_short 4 retry_long 3\n"
		"radio 02:00:00:00:00:01 pos 0 0 0\nradio 02:00:00:00:00:02 pos 150 0 0\n"
		"radio 02:00:00:00:00:03 pos 300 0 0\nradio 02:00:00:00:00:04 pos 150 100 0\n"
		"radio 02:00:00:00:00:05 pos 450 0 0 phy b\nradio 02:00:00:00:00:06 pos 20 20 0\n"
		/* the sixth radio drives through the others, stops, jumps back */
		"waypoint 02:00:00:00:00:06 0 20 20 0\nwaypoint 02:00:00:00:00:06 3 480 20 0\n"
		"waypoint 02:00:00:00:00:06 4 480 20 0\nwaypoint 02:00:00:00:00:06 4 0 -50 0\n"
		"waypoint 02:00:00:00:00:06 9 300 150 0\n";
	char full[2048];
	/* odd seeds use the standard's ACKTimeout resumption */
	snprintf(full, sizeof full, "%s%s", text,
		 (argc > 1 && atoi(argv[1]) % 2) ? "after_failure ack_timeout\n" : "");
	if (medium_config_parse(full, "fuzz", &cfg, err, sizeof err) < 0) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	struct medium *m = medium_new(&cfg);
	medium_config_free(&cfg);
	for (int i = 0; i < NR; i++) {
		retry_short[i] = 4;
		retry_long[i] = 4;
	}
	struct medium_callbacks cb = { NULL, on_deliver, on_status, NULL };
	medium_set_callbacks(m, &cb);
	uint64_t now = 1000000000ULL;	/* a CLOCK_MONOTONIC-like start */
	medium_set_mobility_origin(m, now);	/* as the daemon does at its start */
	long nframes = 0;
	for (long it = 0; it < iters && nframes < MAXF; it++) {
		now += rnd(&s) % gap;	/* random gap between actions */
		uint64_t next = medium_next_event_time(m);
		if (next <= now)
			medium_advance(m, now);
		int r = (int)(rnd(&s) % NR), op = (int)(rnd(&s) % 100);
		if (op < 85) {
			struct medium_frame_info fi = { 0 };
			int dst = (int)(rnd(&s) % (NR + 1));
			fi.len = 30 + (uint32_t)(rnd(&s) % 1500);
			if (dst == NR)
				memset(fi.dst, 0xff, 6);
			else
				memcpy(fi.dst, medium_radio_mac(m, dst), 6);
			int maxidx = r == 4 ? 4 : 12;
			for (int e = 0; e < MEDIUM_MAX_RATES; e++) {
				fi.rates[e].idx = (int8_t)(rnd(&s) % 5 == 0 ? -1 : (int)(rnd(&s) % maxidx));
				fi.rates[e].count = (uint8_t)(rnd(&s) % 4);
				fi.rates[e].flags = (uint16_t)(rnd(&s) % 8);
			}
			fi.flags = rnd(&s) % 10 == 0 ? MEDIUM_FRAME_NO_ACK : 0;
			fi.cookie = (uint64_t)nframes;
			enq_time[nframes] = now;
			nframes++;
			medium_enqueue(m, now, r, &fi);
		} else if (op < 90) {
			int rc = medium_set_position(m, r, (double)(rnd(&s) % 500),
						     (double)(rnd(&s) % 200), 0);
			CHECK(rc == (r == 5 ? -EBUSY : 0), "set_position of radio %d: %d", r, rc);
			if (op == 89)	/* now and then the trajectory's time 0 moves */
				medium_set_mobility_origin(m, now - rnd(&s) % 5000000000ULL);
		} else if (op < 95) {
			struct medium_link_override ov = { (enum medium_link_kind)(rnd(&s) % 4),
							   (double)(rnd(&s) % 100), (double)(rnd(&s) % 50) / 100 };
			medium_set_link_override(m, r, (r + 1) % NR, &ov);
		} else if (op < 98) {
			medium_set_txpower(m, r, (double)(rnd(&s) % 25));
		} else {	/* limits 0..8: 0 must be refused, the others take effect */
			int lim = (int)(rnd(&s) % 9);
			int rc = medium_set_retry(m, r, lim, lim ? lim : 1);
			CHECK((rc == 0) == (lim > 0), "set_retry %d returned %d", lim, rc);
			if (lim > retry_short[r])
				retry_short[r] = lim;
			if (lim > retry_long[r])
				retry_long[r] = lim;
		}
	}
	/* drain */
	for (int k = 0; k < 100000 && medium_next_event_time(m) != UINT64_MAX; k++)
		medium_advance(m, medium_next_event_time(m));
	for (long f = 0; f < nframes; f++) {
		CHECK(status_count[f] == 1, "frame %ld: %d tx_status calls", f, status_count[f]);
		for (int r = 0; r < NR; r++)
			CHECK(deliver_count[f][r] <= 1, "frame %ld delivered %d times to %d", f,
			      deliver_count[f][r], r);
	}
	struct medium_radio_stats rs;
	medium_radio_stats(m, 0, &rs);
	CHECK(rs.busy_fraction >= 0 && rs.busy_fraction <= 1.0, "busy fraction %f", rs.busy_fraction);
	for (int r = 0; r < NR; r++) {
		uint64_t hist = 0;
		medium_radio_stats(m, r, &rs);
		for (int k = 0; k < MEDIUM_TRIES_BINS; k++)
			hist += rs.tries[k];
		CHECK(rs.retry_drops == rs.limit_drops + rs.table_drops, "radio %d: drops %llu != "
		      "%llu + %llu", r, (unsigned long long)rs.retry_drops,
		      (unsigned long long)rs.limit_drops, (unsigned long long)rs.table_drops);
		CHECK(hist <= rs.tx_frames, "radio %d: %llu frames in the tries histogram, %llu "
		      "finished", r, (unsigned long long)hist, (unsigned long long)rs.tx_frames);
	}
	printf("{\"frames\": %ld, \"events\": %llu, \"failures\": %d}\n", nframes,
	       (unsigned long long)medium_events_processed(m), failures);
	medium_free(m);
	return failures ? 1 : 0;
}

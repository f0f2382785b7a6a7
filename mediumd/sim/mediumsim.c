/* mediumsim - run the medium core in virtual time with synthetic traffic.
 *
 *   mediumsim MEDIUM.conf SCENARIO [--seed N] [--duration S] [--every-event]
 *   mediumsim MEDIUM.conf --links [--len BYTES] [--short-preamble] [--seed N]
 *
 * Saturated flows keep `backlog` frames queued at their sender; injected
 * frames are enqueued at a given instant.  Prints one JSON object: per-flow
 * goodput and counters, pairwise overlap of flows' DATA airtime, injected
 * frames' fates, the medium's own counters, events processed and events/s.
 * It steps from one wake-up to the next as the daemon does (events that can do
 * nothing are dropped unprocessed); --every-event steps to every queued event
 * instead, which must give the same result (tests/medium/test_wakeups.py).
 * --links prints the medium's link table instead (no traffic): per directed
 * link its mean power, SNR, the chance a frame is sensed, and the chance a
 * frame of BYTES (MPDU incl. FCS, default 1536) is decoded at each rate. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "medium.h"
#include "scenario.h"

#define COOKIE_INJECT (1ULL << 63)

struct sim {
	struct medium *m;
	struct medium_config cfg;
	struct scenario sc;
	uint64_t warmup_ns, end_ns;
	uint64_t wakeups;		/* distinct times the loop advanced to */
};

static const uint8_t BCAST[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

static void flow_enqueue(struct sim *s, int fi, uint64_t now)
{
	struct flow *f = &s->sc.flows[fi];
	struct medium_frame_info info = { 0 };
	info.len = f->payload + f->overhead;
	memcpy(info.dst, f->dst < 0 ? BCAST : medium_radio_mac(s->m, f->dst), 6);
	info.rates[0] = (struct medium_rate){ (int8_t)f->rate_idx, (uint8_t)f->count,
		(uint16_t)((f->rts ? MEDIUM_RATE_RTS : 0) |
			   (f->short_pre ? MEDIUM_RATE_SHORT_PREAMBLE : 0)) };
	for (int i = 1; i < MEDIUM_MAX_RATES; i++)
		info.rates[i].idx = -1;
	info.cookie = ((uint64_t)fi << 32) | (f->seq++ & 0xffffffffULL);
	f->enqueued++;
	medium_enqueue(s->m, now, f->src, &info);
}

static void inject_enqueue(struct sim *s, int k)
{
	struct inject *fr = &s->sc.frames[k];
	struct medium_frame_info info = { 0 };
	info.len = fr->len;
	memcpy(info.dst, fr->dst < 0 ? BCAST : medium_radio_mac(s->m, fr->dst), 6);
	for (int i = 0; i < MEDIUM_MAX_RATES; i++) {
		info.rates[i] = fr->table[i];
		info.rates[i].flags = (uint16_t)(fr->table[i].flags | (fr->rts ? MEDIUM_RATE_RTS : 0) |
					 (fr->short_pre ? MEDIUM_RATE_SHORT_PREAMBLE : 0));
	}
	info.cookie = COOKIE_INJECT | (uint64_t)k;
	medium_enqueue(s->m, fr->t_ns, fr->src, &info);
}

static void on_deliver(void *ctx, const struct medium_rx_info *rx)
{
	struct sim *s = ctx;
	if (rx->cookie & COOKIE_INJECT) {
		struct inject *fr = &s->sc.frames[rx->cookie & 0xffffffff];
		if (fr->n_rx < 64) {
			fr->rx_dbm[fr->n_rx] = rx->signal_dbm;
			fr->rx[fr->n_rx++] = rx->rx_radio;
		}
		return;
	}
	struct flow *f = &s->sc.flows[rx->cookie >> 32];
	if (rx->time_ns < s->warmup_ns || (f->dst >= 0 && rx->rx_radio != f->dst))
		return;
	f->delivered++;
	f->delivered_bytes += f->payload;
}

static void on_status(void *ctx, const struct medium_tx_report *rep)
{
	struct sim *s = ctx;
	int tries = 0;
	for (int i = 0; i < MEDIUM_MAX_RATES; i++)
		if (rep->attempts[i].idx >= 0)
			tries += rep->attempts[i].count;
	if (rep->cookie & COOKIE_INJECT) {
		struct inject *fr = &s->sc.frames[rep->cookie & 0xffffffff];
		fr->done = true;
		fr->acked = rep->acked;
		fr->attempts = tries;
		memcpy(fr->used, rep->attempts, sizeof fr->used);
		return;
	}
	int fi = (int)(rep->cookie >> 32);
	struct flow *f = &s->sc.flows[fi];
	if (rep->done_ns >= s->warmup_ns) {
		f->finished++;
		f->acked += rep->acked;
		f->queue_drops += rep->queue_drop;
		f->retry_drops += !rep->acked && !rep->queue_drop;
		f->attempts += tries;
	}
	if (rep->done_ns < s->end_ns)
		flow_enqueue(s, fi, rep->done_ns);	/* stay saturated */
}

static void on_air(void *ctx, const struct medium_air_info *a)
{
	struct sim *s = ctx;
	if (a->kind != MEDIUM_AIR_DATA || (a->cookie & COOKIE_INJECT))
		return;
	struct flow *f = &s->sc.flows[a->cookie >> 32];
	if (a->start_ns < s->warmup_ns)
		return;
	f->data_airtime_ns += a->end_ns - a->start_ns;
	if (f->n_iv + 2 > f->cap_iv) {
		f->cap_iv = f->cap_iv ? 2 * f->cap_iv : 1024;
		f->iv = realloc(f->iv, f->cap_iv * sizeof(uint64_t));
		if (!f->iv) {
			perror("realloc");
			exit(1);
		}
	}
	f->iv[f->n_iv++] = a->start_ns;
	f->iv[f->n_iv++] = a->end_ns;
}

/* Total time both flows had a DATA frame on air (intervals are sorted). */
static uint64_t overlap_ns(const struct flow *a, const struct flow *b)
{
	uint64_t sum = 0;
	size_t i = 0, j = 0;
	while (i < a->n_iv && j < b->n_iv) {
		uint64_t lo = a->iv[i] > b->iv[j] ? a->iv[i] : b->iv[j];
		uint64_t hi = a->iv[i + 1] < b->iv[j + 1] ? a->iv[i + 1] : b->iv[j + 1];
		if (hi > lo)
			sum += hi - lo;
		if (a->iv[i + 1] < b->iv[j + 1])
			i += 2;
		else
			j += 2;
	}
	return sum;
}

static const char *rname(struct sim *s, int i)
{
	static char buf[4][32];
	static int k;
	if (i < 0)
		return "broadcast";
	if (s->cfg.radios[i].name[0])
		return s->cfg.radios[i].name;
	const uint8_t *a = s->cfg.radios[i].mac;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%02x:%02x:%02x:%02x:%02x:%02x",
		 a[0], a[1], a[2], a[3], a[4], a[5]);
	return buf[k];
}

static void report(struct sim *s, double wall_s)
{
	double span = (s->end_ns - s->warmup_ns) / 1e9;
	uint64_t ev = medium_events_processed(s->m);
	printf("{\"duration_s\": %.9g, \"warmup_s\": %.9g, \"seed\": %llu, \"events\": %llu, "
	       "\"events_dropped\": %llu, \"wakeups\": %llu, "
	       "\"wall_s\": %.6f, \"events_per_s\": %.1f,\n\"flows\": [",
	       s->end_ns / 1e9, s->warmup_ns / 1e9, (unsigned long long)s->cfg.seed,
	       (unsigned long long)ev, (unsigned long long)medium_events_dropped(s->m),
	       (unsigned long long)s->wakeups, wall_s, wall_s > 0 ? ev / wall_s : 0.0);
	for (int i = 0; i < s->sc.n_flows; i++) {
		struct flow *f = &s->sc.flows[i];
		printf("%s\n  {\"index\": %d, \"src\": \"%s\", \"dst\": \"%s\", \"rate_mbps\": %g, "
		       "\"payload\": %u, \"overhead\": %u, \"rts\": %s, \"short_preamble\": %s, "
		       "\"enqueued\": %llu, \"finished\": %llu, \"acked\": %llu, \"delivered\": %llu, "
		       "\"retry_drops\": %llu, \"queue_drops\": %llu, \"attempts\": %llu, "
		       "\"goodput_mbps\": %.6f, \"data_airtime_s\": %.6f}",
		       i ? "," : "", i, rname(s, f->src), rname(s, f->dst), f->rate_mbps,
		       f->payload, f->overhead, f->rts ? "true" : "false",
		       f->short_pre ? "true" : "false",
		       (unsigned long long)f->enqueued, (unsigned long long)f->finished,
		       (unsigned long long)f->acked, (unsigned long long)f->delivered,
		       (unsigned long long)f->retry_drops, (unsigned long long)f->queue_drops,
		       (unsigned long long)f->attempts,
		       span > 0 ? f->delivered_bytes * 8.0 / span / 1e6 : 0.0,
		       f->data_airtime_ns / 1e9);
	}
	printf("\n],\n\"overlap_s\": [");
	int first = 1;
	for (int i = 0; i < s->sc.n_flows; i++)
		for (int j = i + 1; j < s->sc.n_flows; j++) {
			printf("%s[%d, %d, %.6f]", first ? "" : ", ", i, j,
			       overlap_ns(&s->sc.flows[i], &s->sc.flows[j]) / 1e9);
			first = 0;
		}
	printf("],\n\"frames\": [");
	for (int k = 0; k < s->sc.n_frames; k++) {
		struct inject *fr = &s->sc.frames[k];
		printf("%s\n  {\"t_us\": %.3f, \"src\": \"%s\", \"dst\": \"%s\", \"done\": %s, "
		       "\"acked\": %s, \"attempts\": %d, \"attempts_per_rate\": [",
		       k ? "," : "", fr->t_ns / 1e3, rname(s, fr->src), rname(s, fr->dst),
		       fr->done ? "true" : "false", fr->acked ? "true" : "false", fr->attempts);
		for (int e = 0; e < MEDIUM_MAX_RATES && fr->used[e].idx >= 0; e++)
			printf("%s[%g, %d]", e ? ", " : "",
			       medium_rate_100kbps(s->cfg.radios[fr->src].phy, fr->used[e].idx) / 10.0,
			       fr->used[e].count);
		printf("], \"received_by\": [");
		for (int r = 0; r < fr->n_rx; r++)
			printf("%s{\"radio\": \"%s\", \"signal_dbm\": %.2f}", r ? ", " : "",
			       rname(s, fr->rx[r]), fr->rx_dbm[r]);
		printf("]}");
	}
	printf("\n],\n\"medium\": ");
	fflush(stdout);
	medium_stats_json(s->m, stdout);
	printf("}\n");
}

static void usage(void)
{
	fprintf(stderr, "usage: mediumsim MEDIUM.conf SCENARIO [--seed N] [--duration S] "
			"[--every-event]\n"
			"       mediumsim MEDIUM.conf --links [--len BYTES] [--short-preamble] "
			"[--seed N]\n");
	exit(2);
}

/* The link table as JSON: radios with their thresholds, then every directed
 * link that carries any power. */
static void link_table(struct sim *s, uint32_t len, bool short_pre)
{
	int n = medium_radio_count(s->m);
	printf("{\"seed\": %llu, \"len\": %u, \"short_preamble\": %s,\n\"radios\": [",
	       (unsigned long long)s->cfg.seed, len, short_pre ? "true" : "false");
	for (int i = 0; i < n; i++)
		printf("%s\n  {\"name\": \"%s\", \"noise_dbm\": %.4f, \"rx_sensitivity_dbm\": %.4f, "
		       "\"cs_threshold_dbm\": %.4f}", i ? "," : "", rname(s, i),
		       medium_radio_noise_dbm(s->m, i), medium_radio_rx_sensitivity_dbm(s->m, i),
		       medium_radio_cs_threshold_dbm(s->m, i));
	printf("\n],\n\"links\": [");
	int first = 1;
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++) {
			double p = medium_rx_power_dbm(s->m, a, b);
			if (a == b || !isfinite(p))
				continue;
			enum medium_phy phy = s->cfg.radios[a].phy;
			printf("%s\n  {\"tx\": \"%s\", \"rx\": \"%s\", \"mean_dbm\": %.4f, "
			       "\"snr_db\": %.4f, \"sensed\": %.6f, \"delivery\": {",
			       first ? "" : ",", rname(s, a), rname(s, b), p,
			       p - medium_radio_noise_dbm(s->m, b), medium_link_sensed(s->m, a, b));
			for (int k = 0; k < 12 && medium_rate_100kbps(phy, k) > 0; k++)
				printf("%s\"%g\": %.6f", k ? ", " : "", medium_rate_100kbps(phy, k) / 10.0,
				       medium_link_delivery(s->m, a, b, k, len, short_pre));
			printf("}}");
			first = 0;
		}
	printf("\n]}\n");
}

int main(int argc, char **argv)
{
	struct sim s = { 0 };
	char err[512];
	const char *conf = NULL, *scen = NULL;
	long long seed = -1;
	double duration = -1;
	bool links = false, short_pre = false, every_event = false;
	long len = 1536;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoll(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--duration") && i + 1 < argc)
			duration = atof(argv[++i]);
		else if (!strcmp(argv[i], "--links"))
			links = true;
		else if (!strcmp(argv[i], "--every-event"))
			every_event = true;
		else if (!strcmp(argv[i], "--short-preamble"))
			short_pre = true;
		else if (!strcmp(argv[i], "--len") && i + 1 < argc) {
			len = strtol(argv[++i], NULL, 0);
			if (len < 14 || len > 65535)
				usage();
		}
		else if (argv[i][0] == '-')
			usage();
		else if (!conf)
			conf = argv[i];
		else if (!scen)
			scen = argv[i];
		else
			usage();
	}
	if (!conf || (!scen && !links) || (scen && links))
		usage();
	if (medium_config_load(conf, &s.cfg, err, sizeof err) < 0) {
		fprintf(stderr, "mediumsim: %s\n", err);
		return 2;
	}
	if (links) {
		if (seed >= 0)
			s.cfg.seed = (uint64_t)seed;
		s.m = medium_new(&s.cfg);
		if (!s.m) {
			fprintf(stderr, "mediumsim: invalid medium config %s: %s\n", conf,
				strerror(errno));
			return 2;
		}
		link_table(&s, (uint32_t)len, short_pre);
		medium_free(s.m);
		medium_config_free(&s.cfg);
		return 0;
	}
	if (scenario_load(scen, &s.cfg, &s.sc, err, sizeof err) < 0) {
		fprintf(stderr, "mediumsim: %s\n", err);
		return 2;
	}
	if (s.sc.has_seed)
		s.cfg.seed = s.sc.seed;
	if (seed >= 0)
		s.cfg.seed = (uint64_t)seed;
	if (duration >= 0)
		s.sc.duration_s = duration;
	s.m = medium_new(&s.cfg);
	if (!s.m) {
		fprintf(stderr, "mediumsim: invalid medium config %s: %s\n", conf, strerror(errno));
		return 2;
	}
	int rc = scenario_apply_waypoints(&s.sc, s.m);
	if (rc < 0) {
		fprintf(stderr, "mediumsim: %s: waypoints: %s\n", scen, strerror(-rc));
		return 2;
	}
	s.end_ns = (uint64_t)llround(s.sc.duration_s * 1e9);
	s.warmup_ns = (uint64_t)llround(s.sc.warmup_s * 1e9);
	if (s.warmup_ns > s.end_ns)
		s.warmup_ns = s.end_ns;
	struct medium_callbacks cb = { &s, on_deliver, on_status, on_air };
	medium_set_callbacks(s.m, &cb);

	/* Flow starts and injected frames are external arrivals, in time order. */
	int nf = s.sc.n_flows, nfr = s.sc.n_frames, next_frame = 0;
	char *started = calloc(nf ? nf : 1, 1);
	int n_started = 0;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		uint64_t t_ext = UINT64_MAX;
		int which = -1;
		for (int i = 0; n_started < nf && i < nf; i++) {
			uint64_t st = (uint64_t)llround(s.sc.flows[i].start_s * 1e9);
			if (!started[i] && st < t_ext) {
				t_ext = st;
				which = i;
			}
		}
		if (next_frame < nfr && s.sc.frames[next_frame].t_ns < t_ext) {
			t_ext = s.sc.frames[next_frame].t_ns;
			which = -2;
		}
		uint64_t t_med = every_event ? medium_next_event_time(s.m)
					     : medium_next_wakeup_time(s.m);
		uint64_t t = t_ext < t_med ? t_ext : t_med;
		if (t == UINT64_MAX || t >= s.end_ns)
			break;
		medium_advance(s.m, t);
		s.wakeups++;
		if (t_ext == t) {
			if (which == -2) {
				inject_enqueue(&s, next_frame++);
			} else if (which >= 0) {
				started[which] = 1;
				n_started++;
				for (int k = 0; k < s.sc.flows[which].backlog; k++)
					flow_enqueue(&s, which, t);
			}
		}
	}
	medium_advance(s.m, s.end_ns);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double wall = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	report(&s, wall);
	free(started);
	medium_free(s.m);
	scenario_free(&s.sc);
	medium_config_free(&s.cfg);
	return 0;
}

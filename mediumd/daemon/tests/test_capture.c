/* Drives the real simulation core in virtual time through capture.c and
 * writes OUTDIR/capture.pcap; prints what the core reported as JSON, which
 * tests/medium/test_daemon_pcap.py compares with the records.
 *
 * Scene: a sends 30 unicast frames to b over a link that loses half of a's
 * frames (ACKs b->a are not lost), c sends 5 broadcasts, d sends 30 frames
 * to b whose first rate entry asks for RTS/CTS and whose second does not,
 * over a link that loses half of d's RTS and data (CTS and ACK are kept). */
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "check.h"
#include "medium.h"

static const char config[] =
	"seed 7\n"
	"propagation free_space\n"
	"defaults phy g txpower 15\n"
	"radio 02:00:00:00:00:01 name a pos 0 0 0\n"
	"radio 02:00:00:00:00:02 name b pos 10 0 0\n"
	"radio 02:00:00:00:00:03 name c pos 0 10 0\n"
	"radio 02:00:00:00:00:04 name d pos 0 -10 0\n"
	"link a b model per 0.5 oneway\n"
	"link d b model per 0.5 oneway\n";

struct scene {
	struct capture *cap;
	struct medium *m;
	uint8_t frames[128][40];
	unsigned attempts, acked, done, retry_dropped, rts_acked;
};

static void on_air(void *ctx, const struct medium_air_info *air)
{
	struct scene *s = ctx;
	const uint8_t *f = NULL;

	if (air->kind == MEDIUM_AIR_DATA)
		f = s->frames[air->cookie];
	capture_on_air(s->cap, air, f, f ? sizeof(s->frames[0]) : 0, 2412);
}

static void on_status(void *ctx, const struct medium_tx_report *rep)
{
	struct scene *s = ctx;
	int i;

	if (rep->tx_radio == 3) {	/* d: its failed RTS are attempts without data */
		s->rts_acked += rep->acked;
		s->done++;
		capture_tx_done(s->cap, rep->tx_radio, rep->cookie, rep->acked);
		return;
	}
	for (i = 0; i < MEDIUM_MAX_RATES; i++)
		s->attempts += rep->attempts[i].count;
	s->acked += rep->acked;
	s->done++;
	capture_tx_done(s->cap, rep->tx_radio, rep->cookie, rep->acked);
}

static void on_deliver(void *ctx, const struct medium_rx_info *rx)
{
	(void)ctx;
	(void)rx;
}

/* A data frame from radio src to dst (NULL: broadcast) with sequence number seq. */
static void make_frame(uint8_t *f, const uint8_t *src, const uint8_t *dst, unsigned seq)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	memset(f, 0, 40);
	f[0] = 0x08;
	memcpy(f + 4, dst ? dst : bcast, 6);
	memcpy(f + 10, src, 6);
	memcpy(f + 16, src, 6);
	f[22] = (uint8_t)(seq << 4);
	f[23] = (uint8_t)(seq >> 4);
}

int main(int argc, char **argv)
{
	struct scene s;
	struct medium_config cfg;
	struct medium_callbacks cb = { &s, on_deliver, on_status, on_air };
	char err[256], path[4096];
	unsigned i, n_uni = 30, n_bcast = 5, n_rts = 30;
	uint64_t t;

	memset(&s, 0, sizeof(s));
	CHECK(medium_config_parse(config, "test", &cfg, err, sizeof(err)) == 0);
	s.m = medium_new(&cfg);
	medium_config_free(&cfg);
	CHECK(s.m != NULL);
	if (!s.m)
		CHECK_DONE();
	snprintf(path, sizeof(path), "%s/capture.pcap", argc > 1 ? argv[1] : ".");
	CHECK(capture_open(&s.cap, path, s.m) == 0);
	medium_set_callbacks(s.m, &cb);

	for (i = 0; i < n_uni + n_bcast + n_rts; i++) {
		struct medium_frame_info fi = { 0 };
		int rts = i >= n_uni + n_bcast;
		int src = i < n_uni ? 0 : rts ? 3 : 2;
		make_frame(s.frames[i], medium_radio_mac(s.m, src),
			   i < n_uni || rts ? medium_radio_mac(s.m, 1) : NULL, i);
		fi.len = 40 + 4;
		memcpy(fi.dst, s.frames[i] + 4, 6);
		fi.rates[0] = (struct medium_rate){ .idx = 3, .count = 4 };  /* 11 Mbit/s */
		fi.rates[1] = (struct medium_rate){ .idx = 0, .count = 3 };  /* 1 Mbit/s */
		if (rts)
			fi.rates[0] = (struct medium_rate){ .idx = 3, .count = 2,
							    .flags = MEDIUM_RATE_RTS };
		fi.rates[2].idx = fi.rates[3].idx = -1;
		fi.cookie = i;
		CHECK(medium_enqueue(s.m, 1000, src, &fi) == 0);
	}
	while ((t = medium_next_event_time(s.m)) != UINT64_MAX)
		medium_advance(s.m, t);
	CHECK(s.done == n_uni + n_bcast + n_rts);
	CHECK(capture_close(s.cap) == 0);
	printf("{\"unicast\":%u,\"broadcast\":%u,\"rts_unicast\":%u,"
	       "\"attempts\":%u,\"acked\":%u,\"rts_acked\":%u}\n",
	       n_uni, n_bcast, n_rts, s.attempts, s.acked, s.rts_acked);
	medium_free(s.m);
	CHECK_DONE();
}

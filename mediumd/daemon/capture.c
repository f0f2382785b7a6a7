/* capture.c: fate tracking for the pcap (see capture.h). */
#include "capture.h"
#include "pcap.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PENDING 10000  /* beyond this, settle the oldest record as is */

struct record {
	struct record *next;
	struct pcap_attempt a;
	int is_data, settled, radio, dst;
	uint64_t cookie;
	size_t len;
	uint8_t *bytes;          /* data frames: a copy; control: ctl[] */
	uint8_t ctl[16];
};

struct radio_track {          /* per transmitter */
	uint64_t data_cookie;     /* last data frame seen on air */
	uint8_t attempts;         /* its attempts so far */
	int rts_pending;          /* a CTS answered its RTS: the next data attempt used RTS/CTS */
};

struct capture {
	struct pcap_writer *w;
	struct medium *m;
	struct record *head, *tail;
	unsigned pending;
	struct radio_track *track;
	int n_radios;
	int err;
};

int capture_open(struct capture **out, const char *path, struct medium *m)
{
	struct capture *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		return -ENOMEM;
	c->m = m;
	c->n_radios = medium_radio_count(m);
	c->track = calloc((size_t)(c->n_radios ? c->n_radios : 1), sizeof(*c->track));
	if (!c->track) {
		free(c);
		return -ENOMEM;
	}
	err = pcap_open(&c->w, path);
	if (err < 0) {
		free(c->track);
		free(c);
		return err;
	}
	*out = c;
	return 0;
}

static void write_settled(struct capture *c)
{
	while (c->head && (c->head->settled || c->pending > MAX_PENDING)) {
		struct record *r = c->head;
		int err = pcap_write(c->w, &r->a, r->bytes, r->len);
		if (err < 0 && !c->err)
			c->err = err;
		c->head = r->next;
		if (!c->head)
			c->tail = NULL;
		c->pending--;
		if (r->bytes != r->ctl)
			free(r->bytes);
		free(r);
	}
}

static struct record *find_unsettled(struct capture *c, int radio, uint64_t cookie)
{
	struct record *r;

	for (r = c->head; r; r = r->next)
		if (r->is_data && !r->settled && r->radio == radio && r->cookie == cookie)
			return r;
	return NULL;
}

/* The data attempt an ACK from `from` to `to` answers: the newest unsettled
 * one (a radio has one frame at a time in its DCF exchange). */
static struct record *find_acked(struct capture *c, int to, int from)
{
	struct record *r, *found = NULL;

	for (r = c->head; r; r = r->next)
		if (r->is_data && !r->settled && r->radio == to && r->dst == from)
			found = r;
	return found;
}

static int8_t signal_at(struct capture *c, int tx, int rx)
{
	double p;

	if (rx < 0)
		return -128;
	p = medium_rx_power_dbm(c->m, tx, rx);
	if (!isfinite(p) || p < -127)
		return -127;
	return p > 127 ? 127 : (int8_t)lround(p);
}

/* 802.11 control frames: frame control, duration 0, RA [, TA]. */
static size_t control_frame(struct capture *c, const struct medium_air_info *air,
			    uint8_t *out)
{
	static const uint8_t fc[] = {
		[MEDIUM_AIR_RTS] = 0xb4, [MEDIUM_AIR_CTS] = 0xc4, [MEDIUM_AIR_ACK] = 0xd4,
	};

	memset(out, 0, 16);
	out[0] = fc[air->kind];
	if (air->rx_radio >= 0)
		memcpy(out + 4, medium_radio_mac(c->m, air->rx_radio), 6);
	if (air->kind != MEDIUM_AIR_RTS)
		return 10;
	memcpy(out + 10, medium_radio_mac(c->m, air->tx_radio), 6);
	return 16;
}

void capture_on_air(struct capture *c, const struct medium_air_info *air,
		    const uint8_t *frame, size_t len, uint32_t freq)
{
	struct record *r = calloc(1, sizeof(*r)), *prev;
	struct radio_track *t = &c->track[air->tx_radio];
	int rate = medium_rate_100kbps(freq >= 4900 ? MEDIUM_PHY_A : MEDIUM_PHY_G,
				       air->rate_idx);

	if (!r)
		return; /* the capture is best effort; the medium goes on */
	r->a.mono_ns = air->start_ns;
	r->a.freq_mhz = freq;
	r->a.rate_500kbps = rate > 0 ? (uint16_t)(rate / 5) : 0;
	r->a.signal_dbm = signal_at(c, air->tx_radio, air->rx_radio);
	r->a.attempt = 1;
	r->radio = air->tx_radio;
	r->dst = air->rx_radio;
	r->cookie = air->cookie;
	r->settled = 1;

	switch (air->kind) {
	case MEDIUM_AIR_DATA:
		r->is_data = 1;
		r->bytes = malloc(len ? len : 1);
		if (!r->bytes) {
			free(r);
			return;
		}
		memcpy(r->bytes, frame, len);
		r->len = len;
		prev = find_unsettled(c, air->tx_radio, air->cookie);
		if (prev) {                     /* a retry: the previous try failed */
			prev->settled = 1;
			prev->a.failed = 1;
		}
		if (t->data_cookie == air->cookie && t->attempts)
			t->attempts++;
		else
			t->attempts = 1;
		t->data_cookie = air->cookie;
		r->a.attempt = t->attempts;
		r->a.rts_cts = t->rts_pending;
		t->rts_pending = 0;
		r->a.no_ack = air->rx_radio < 0;
		r->settled = air->rx_radio < 0; /* group frames: one try, no ACK */
		break;
	case MEDIUM_AIR_ACK:
		/* ACK from the addressee to the data sender: the data was decoded. */
		if (air->rx_radio >= 0) {
			prev = find_acked(c, air->rx_radio, air->tx_radio);
			if (prev)
				prev->settled = 1;
		}
		r->bytes = r->ctl;
		r->len = control_frame(c, air, r->ctl);
		break;
	case MEDIUM_AIR_RTS:
		/* A new exchange: protected only once a CTS comes back.  An RTS left
		 * unanswered is a failed attempt, and the retry that follows may
		 * go out without RTS (a later entry of the rate table). */
		t->rts_pending = 0;
		/* fall through */
	case MEDIUM_AIR_CTS:
		if (air->kind == MEDIUM_AIR_CTS && air->rx_radio >= 0)
			c->track[air->rx_radio].rts_pending = 1;
		r->bytes = r->ctl;
		r->len = control_frame(c, air, r->ctl);
		break;
	}
	if (c->tail)
		c->tail->next = r;
	else
		c->head = r;
	c->tail = r;
	c->pending++;
	write_settled(c);
}

void capture_tx_done(struct capture *c, int radio, uint64_t cookie, int acked)
{
	struct record *r = find_unsettled(c, radio, cookie);

	if (r) {
		r->settled = 1;
		r->a.failed = !acked;
		write_settled(c);
	}
}

int capture_flush(struct capture *c)
{
	int err = pcap_flush(c->w);
	return c->err ? c->err : err;
}

int capture_close(struct capture *c)
{
	int err;

	if (!c)
		return 0;
	c->pending = MAX_PENDING + 1 + c->pending;  /* write everything */
	write_settled(c);
	err = pcap_close(c->w);
	if (c->err)
		err = c->err;
	free(c->track);
	free(c);
	return err;
}

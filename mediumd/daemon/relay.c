/* relay.c: kernel frames <-> simulation core (see relay.h). */
#include "relay.h"
#include "capture.h"
#include "log.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FCS_LEN 4

/* A frame in flight: our copy of the kernel's frame, kept until the core
 * reports its fate (the core only sees lengths and addresses). */
struct frame {
	struct frame *hnext;                   /* in-flight hash chain */
	struct frame *fnext;                   /* finished list */
	int radio;
	int dst_radio;                         /* addressee, -1 group/unknown */
	uint32_t no_ack;                       /* HWSIM_TX_CTL_NO_ACK of the frame */
	uint64_t cookie;
	uint32_t freq;
	struct hwsim_rate table[HWSIM_MAX_RATES]; /* the kernel's rate table */
	size_t len;
	uint8_t data[];
};

uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- in-flight table: (radio, cookie) -> frame, for the pcap observer ---- */

static unsigned slot(const struct daemon *d, int radio, uint64_t cookie)
{
	uint64_t h = (cookie ^ ((uint64_t)radio << 40)) * 0x9e3779b97f4a7c15ull;
	return (unsigned)(h >> 32) & d->inflight_mask;
}

static void inflight_add(struct daemon *d, struct frame *f)
{
	unsigned i = slot(d, f->radio, f->cookie);
	f->hnext = d->inflight[i];
	d->inflight[i] = f;
	d->inflight_count++;
}

static void inflight_del(struct daemon *d, struct frame *f)
{
	struct frame **p = &d->inflight[slot(d, f->radio, f->cookie)];
	while (*p && *p != f)
		p = &(*p)->hnext;
	if (*p) {
		*p = f->hnext;
		d->inflight_count--;
	}
}

static struct frame *inflight_find(struct daemon *d, int radio, uint64_t cookie)
{
	struct frame *f = d->inflight[slot(d, radio, cookie)];
	while (f && !(f->radio == radio && f->cookie == cookie))
		f = f->hnext;
	return f;
}

/* Frames are freed only after the core call that finished them returns:
 * the core may still deliver a frame in the same advance that reports it. */
static void free_finished(struct daemon *d)
{
	while (d->finished) {
		struct frame *f = d->finished;
		d->finished = f->fnext;
		free(f);
	}
}

/* ---- core callbacks ---- */

static void on_deliver(void *ctx, const struct medium_rx_info *rx)
{
	struct daemon *d = ctx;
	const struct frame *f = rx->user;
	int err;

	err = hwsim_nl_send_frame(d->nl, d->hwaddr[rx->rx_radio], f->data, f->len,
				  (uint32_t)rx->rate_idx, (int)lround(rx->signal_dbm),
				  f->freq);
	if (err < 0)
		d->counters.inject_errors++;
	if (d->n_pending_rx == RELAY_PENDING)
		relay_flush(d);
	d->pending_rx[d->n_pending_rx++] = rx->time_ns;
}

static void on_tx_status(void *ctx, const struct medium_tx_report *rep)
{
	struct daemon *d = ctx;
	struct frame *f = rep->user;
	struct hwsim_rate used[HWSIM_MAX_RATES];
	int i, tries = 0, signal = 0;

	/* Report attempts against the kernel's own table entries (their idx may
	 * be an HT MCS the core saw as its legacy equivalent). */
	for (i = 0; i < HWSIM_MAX_RATES; i++) {
		used[i].idx = f->table[i].idx;
		used[i].count = f->table[i].idx < 0 ? 0 : rep->attempts[i].count;
		/* mac80211 keeps a try count in 5 bits: one series (retry_series
		 * single) can use more tries than its entry asked for */
		if (used[i].count > 31)
			used[i].count = 31;
		tries += used[i].count;
	}
	if (tries == 0) /* never on air (queue drop): nothing for rate control */
		for (i = 0; i < HWSIM_MAX_RATES; i++)
			used[i].idx = -1;
	if (rep->acked && !f->no_ack && f->dst_radio >= 0) {
		double p = medium_rx_power_dbm(d->m, f->dst_radio, f->radio);
		signal = isfinite(p) ? (int)lround(p) : 0;
	}
	/* A frame sent without ACK is reported as such (the kernel then marks it
	 * "transmitted, no ACK expected"), never as acknowledged.
	 *
	 * A frame the queue refused never met the air, and on a real device it
	 * would have been held back above the driver (hwsim cannot stop the
	 * kernel's queues, so the drop happens here): the kernel's link
	 * statistics must not count it as a failed transmission. They would: an
	 * 802.11s mesh point declares a peer link broken when its moving average
	 * of failed statuses passes 95 %, and in Linux 6.1 that average reaches
	 * exactly 0 after about a hundred acknowledged frames, so one failure then
	 * reads as 100 % and tears down every path through the peer (measured:
	 * paper 002's mesh lost ~950 forwarded frames in 30 s that way, from ~40
	 * queue drops). So a queue drop is reported with zero attempts (nothing
	 * for rate control) and without the failure: the ACK flag. The pcap and
	 * the counters keep the truth. */
	hwsim_nl_send_tx_status(d->nl, d->hwaddr[f->radio], f->cookie,
				f->no_ack ? HWSIM_TX_CTL_NO_ACK
					  : (rep->acked || rep->queue_drop) ? HWSIM_TX_STAT_ACK : 0,
				signal, used);
	if (!rep->queue_drop) {
		if (d->n_pending_status == RELAY_PENDING)
			relay_flush(d);
		d->pending_status[d->n_pending_status++] = rep->done_ns;
	}
	if (d->cap)
		capture_tx_done(d->cap, f->radio, f->cookie, rep->acked);
	inflight_del(d, f);
	f->fnext = d->finished;
	d->finished = f;
}

/* Only data PPDUs carry the frame's cookie; RTS, CTS and ACK are placed on
 * the channel of the radio whose exchange they belong to. */
static void on_air(void *ctx, const struct medium_air_info *air)
{
	struct daemon *d = ctx;
	const struct frame *f;
	int owner;

	if (air->kind == MEDIUM_AIR_DATA) {
		f = inflight_find(d, air->tx_radio, air->cookie);
		if (f)
			capture_on_air(d->cap, air, f->data, f->len, f->freq);
		return;
	}
	owner = air->kind == MEDIUM_AIR_RTS || air->rx_radio < 0 ? air->tx_radio
								 : air->rx_radio;
	capture_on_air(d->cap, air, NULL, 0, d->last_freq[owner]);
}

/* ---- kernel frames ---- */

/* Rate control may pick HT/VHT rates when the harness did not pin legacy
 * ones; the core models legacy rates only, so an MCS is simulated as the
 * legacy OFDM rate with the same modulation and coding (spatial streams ignored). */
static int8_t legacy_equivalent(int8_t mcs, uint32_t freq)
{
	static const int8_t g24[8] = { 4, 6, 7, 8, 9, 10, 11, 11 };
	static const int8_t a5[8] = { 0, 2, 3, 4, 5, 6, 7, 7 };
	return freq >= 4900 ? a5[mcs & 7] : g24[mcs & 7];
}

/* Answer a frame we cannot simulate at once, so the kernel does not hold it. */
static void refuse(struct daemon *d, const struct hwsim_tx_frame *hf)
{
	struct hwsim_rate none[HWSIM_MAX_RATES];
	int i;

	for (i = 0; i < HWSIM_MAX_RATES; i++) {
		none[i].idx = -1;
		none[i].count = 0;
	}
	hwsim_nl_send_tx_status(d->nl, hf->transmitter, hf->cookie,
				hf->flags & HWSIM_TX_CTL_NO_ACK, 0, none);
}

int relay_radio_by_mac(struct daemon *d, const uint8_t mac[6])
{
	uint8_t base[6];
	int r, i;

	r = medium_radio_by_mac(d->m, mac);
	if (r >= 0)
		return r;
	for (i = 0; i < d->n_radios; i++)
		if (!memcmp(d->hwaddr[i], mac, 6))
			return i;
	/* hwsim radios created without PERM_ADDR are known to the kernel as
	 * their MAC with bit 0x40 set in the first byte (its "second address"). */
	if (!(mac[0] & 0x40))
		return -ENOENT;
	memcpy(base, mac, 6);
	base[0] &= (uint8_t)~0x40;
	r = medium_radio_by_mac(d->m, base);
	if (r >= 0) {
		memcpy(d->hwaddr[r], mac, 6); /* inject to it by that address */
		log_info("radio %d (%02x:%02x:%02x:%02x:%02x:%02x) is known to hwsim as %02x:%02x:%02x:%02x:%02x:%02x",
			 r, base[0], base[1], base[2], base[3], base[4], base[5],
			 mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
	}
	return r;
}

void relay_frame_in(void *ctx, const struct hwsim_tx_frame *hf)
{
	struct daemon *d = ctx;
	struct medium_frame_info fi;
	struct frame *f;
	uint64_t now = mono_ns();
	int radio, i;

	radio = relay_radio_by_mac(d, hf->transmitter);
	if (radio < 0 || hf->len < 10) {
		if (radio < 0 && d->counters.unknown_radio++ == 0)
			log_warn("frame from radio %02x:%02x:%02x:%02x:%02x:%02x, which is not in the config: answered as lost (reported once)",
				 hf->transmitter[0], hf->transmitter[1], hf->transmitter[2],
				 hf->transmitter[3], hf->transmitter[4], hf->transmitter[5]);
		refuse(d, hf);
		return;
	}
	f = malloc(sizeof(*f) + hf->len);
	if (!f) {
		refuse(d, hf);
		return;
	}
	f->radio = radio;
	f->cookie = hf->cookie;
	f->freq = hf->freq;
	d->last_freq[radio] = hf->freq;
	f->len = hf->len;
	memcpy(f->data, hf->data, hf->len);
	memcpy(f->table, hf->rates, sizeof(f->table));

	memset(&fi, 0, sizeof(fi));
	fi.len = (uint32_t)hf->len + FCS_LEN;
	memcpy(fi.dst, hf->data + 4, 6);          /* addr1 */
	f->dst_radio = (fi.dst[0] & 1) ? -1 : medium_radio_by_mac(d->m, fi.dst);
	if (f->dst_radio < 0)
		f->dst_radio = -1;
	f->no_ack = hf->flags & HWSIM_TX_CTL_NO_ACK;
	if (f->no_ack)
		fi.flags |= MEDIUM_FRAME_NO_ACK;
	for (i = 0; i < MEDIUM_MAX_RATES; i++) {
		fi.rates[i].idx = hf->rates[i].idx;
		fi.rates[i].count = hf->rates[i].count;
		fi.rates[i].flags = hf->rate_flags[i] & (MEDIUM_RATE_RTS |
				MEDIUM_RATE_CTS_PROTECT | MEDIUM_RATE_SHORT_PREAMBLE);
		if (hf->rates[i].idx >= 0 &&
		    (hf->rate_flags[i] & (HWSIM_TX_RC_MCS | HWSIM_TX_RC_VHT_MCS))) {
			fi.rates[i].idx = legacy_equivalent(hf->rates[i].idx, hf->freq);
			d->counters.ht_mapped++;
		}
	}
	fi.cookie = hf->cookie;
	fi.user = f;

	relay_advance(d, now);          /* the past is settled (and sent) before the new frame */
	inflight_add(d, f);
	if (medium_enqueue(d->m, now, radio, &fi) == -EINVAL)
		d->counters.refused++;  /* already answered through on_tx_status */
	free_finished(d);
}

void relay_advance(struct daemon *d, uint64_t now)
{
	if (medium_next_event_time(d->m) <= now)
		medium_advance(d->m, now);
	free_finished(d);
	/* What the core produced is due now: send it at once, also in the middle
	 * of draining a burst of frames from the kernel. */
	relay_flush(d);
}

void relay_flush(struct daemon *d)
{
	uint64_t now, sent;
	unsigned i;

	sent = mono_ns();
	hwsim_nl_flush(d->nl);  /* a failed send is counted there (send_errors) */
	if (!d->n_pending_rx && !d->n_pending_status)
		return;
	now = mono_ns();
	lagstat_add(&d->flush, (int64_t)(now - sent));
	for (i = 0; i < d->n_pending_rx; i++) {
		lagstat_add(&d->rx_lag, (int64_t)(now - d->pending_rx[i]));
		lagstat_add(&d->handover_lag, (int64_t)(sent - d->pending_rx[i]));
	}
	for (i = 0; i < d->n_pending_status; i++) {
		lagstat_add(&d->status_lag, (int64_t)(now - d->pending_status[i]));
		lagstat_add(&d->handover_lag, (int64_t)(sent - d->pending_status[i]));
	}
	d->n_pending_rx = d->n_pending_status = 0;
}

int relay_init(struct daemon *d, struct medium *m)
{
	struct medium_callbacks cb = {
		.ctx = d,
		.deliver = on_deliver,
		.tx_status = on_tx_status,
		.on_air = NULL,
	};
	int i;

	d->m = m;
	d->n_radios = medium_radio_count(m);
	d->hwaddr = calloc((size_t)(d->n_radios ? d->n_radios : 1), sizeof(*d->hwaddr));
	d->last_freq = calloc((size_t)(d->n_radios ? d->n_radios : 1), sizeof(*d->last_freq));
	d->inflight_mask = 4095;
	d->inflight = calloc(d->inflight_mask + 1, sizeof(*d->inflight));
	if (!d->hwaddr || !d->inflight || !d->last_freq)
		return -ENOMEM;
	for (i = 0; i < d->n_radios; i++)
		memcpy(d->hwaddr[i], medium_radio_mac(m, i), 6);
	if (d->cap)
		cb.on_air = on_air;
	medium_set_callbacks(m, &cb);
	d->start_ns = mono_ns();
	/* Trajectories run from the daemon's start until start_mobility moves
	 * their time 0 (commands.c); before it radios sit at their first waypoint. */
	medium_set_mobility_origin(m, d->start_ns);
	return 0;
}

void relay_set_capture(struct daemon *d, struct capture *cap)
{
	struct medium_callbacks cb = {
		.ctx = d,
		.deliver = on_deliver,
		.tx_status = on_tx_status,
		.on_air = cap ? on_air : NULL,
	};

	d->cap = cap;
	medium_set_callbacks(d->m, &cb);
}

void relay_free(struct daemon *d)
{
	unsigned i;

	free_finished(d);
	for (i = 0; d->inflight && i <= d->inflight_mask; i++)
		while (d->inflight[i]) {
			struct frame *f = d->inflight[i];
			d->inflight[i] = f->hnext;
			free(f);
		}
	free(d->inflight);
	free(d->hwaddr);
	free(d->last_freq);
	d->last_freq = NULL;
	d->inflight = NULL;
	d->hwaddr = NULL;
}

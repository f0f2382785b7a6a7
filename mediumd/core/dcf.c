/* dcf.c - the Distributed Coordination Function of each radio.
 *
 * State per radio: a drop-tail queue whose head is the frame in service, the
 * contention window, a backoff counter and the exchange in progress.
 *
 * Access (802.11-2012 9.3.4): after the medium has been idle for DIFS (EIFS
 * if the last reception was in error) the backoff counter is decremented once
 * per idle slot; a slot only counts if the medium stayed idle through all of
 * it; at 0 the radio transmits.  Busy = own tx, any PPDU on air above the CS
 * threshold, a locked reception, or the NAV.  A frame arriving at an idle
 * queue with no backoff pending is sent as soon as the medium has been idle
 * for DIFS; after every exchange a fresh backoff is drawn (post-backoff), so
 * a saturated sender always backs off.
 *
 * Exchange: [RTS -SIFS- CTS -SIFS-] DATA -SIFS- ACK.  A missing CTS/ACK is a
 * failed attempt: CW = min(2 CW + 1, CWmax), the short retry counter counts
 * RTS failures and data frames sent without RTS, the long counter data sent
 * after a CTS; reaching dot11Short/LongRetryLimit (max attempts) or the end of
 * the kernel's rate table drops the frame.  The response is awaited until
 * ACKTimeout = SIFS + slot + PHY-RX-START delay after the PPDU (a response
 * being received then is awaited to its end).  The failed sender then counts
 * its backoff either from EIFS after the end of its PPDU (default: aligned
 * with the bystanders, who saw an errored frame and use EIFS) or, with
 * "after_failure ack_timeout", from the ACKTimeout expiry as the standard
 * says (9.3.2.8). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "medium_internal.h"

static int ridx(struct medium *m, struct radio *r) { return (int)(r - m->r); }

static uint64_t ifs(const struct radio *r) { return r->eifs ? r->tm.eifs : r->tm.difs; }

/* Before qlen changes: add the frames that waited since the last change (queue_wait_ns). */
static void queue_account(struct medium *m, struct radio *r)
{
	if (r->qlen > 1)
		r->s.queue_wait_ns += (uint64_t)(r->qlen - 1) * (m->now - r->q_since);
	r->q_since = m->now;
}

static void draw_backoff(struct medium *m, struct radio *r)
{
	r->bo_slots = (int)rng_below(&m->rng, (uint32_t)r->cw + 1);
}

/* Start of slot counting in the current idle period: after DIFS/EIFS, and
 * not before ACKTimeout expiry in the "after_failure ack_timeout" mode. */
static uint64_t count_start(const struct radio *r)
{
	uint64_t cs = r->idle_since + ifs(r);
	return cs > r->resume_min ? cs : r->resume_min;
}

/* Schedule the moment this radio may transmit, if it contends and the medium
 * is idle. */
static void schedule_access(struct medium *m, struct radio *r)
{
	if (r->st != D_CONTEND || r->busy || r->tx_cur)
		return;
	uint64_t t = count_start(r) + (uint64_t)r->bo_slots * r->tm.slot;
	if (t < m->now)
		t = m->now;
	r->acc_gen++;
	r->acc_pending = true;
	r->acc_time = t;
	evq_push(&m->q, t, EV_ACCESS, ridx(m, r), r->acc_gen, NULL);
}

void dcf_on_busy(struct medium *m, struct radio *r)
{
	if (r->acc_pending) {
		if (r->acc_time <= m->now)
			return;		/* same instant: it transmits anyway */
		r->acc_pending = false;
		r->acc_gen++;
	}
	/* Freeze: keep the slots not yet fully elapsed. */
	uint64_t cs = count_start(r);
	if (r->bo_slots > 0 && m->now > cs) {
		uint64_t k = (m->now - cs) / r->tm.slot;
		r->bo_slots = k >= (uint64_t)r->bo_slots ? 0 : r->bo_slots - (int)k;
	}
}

void dcf_on_idle(struct medium *m, struct radio *r)
{
	schedule_access(m, r);
}

static uint64_t ctrl_airtime(const struct radio *r, int data_idx, bool sp, uint32_t len)
{
	int ci = control_rate_idx(r->cfg.phy, r->basic, data_idx);
	return medium_airtime_ns(r->cfg.phy, ci, sp, len);
}

/* The frame's current rate entry, after skipping used-up ones; false when the
 * table has none left.  With one series (retry_series single) it is always the
 * first entry: only the retry limits end the frame's tries. */
static bool current_entry(const struct medium *m, struct frame *f, enum medium_phy phy)
{
	while (f->entry < MEDIUM_MAX_RATES) {
		struct medium_rate *e = &f->fi.rates[f->entry];
		if (e->idx < 0 || !rate_get(phy, e->idx))
			return false;
		if (m->cfg.single_series ? f->used[f->entry] < UINT8_MAX
					 : f->used[f->entry] < e->count)
			return true;
		f->entry++;
	}
	return false;
}

static void complete(struct medium *m, struct radio *r, bool acked)
{
	struct frame *f = r->qhead;
	struct medium_tx_report rep = {
		.tx_radio = ridx(m, r), .acked = acked, .enqueue_ns = f->enqueue_ns,
		.done_ns = m->now, .cookie = f->fi.cookie, .user = f->fi.user,
	};
	int tries = 0;
	for (int i = 0; i < MEDIUM_MAX_RATES; i++) {
		rep.attempts[i] = f->fi.rates[i];
		rep.attempts[i].count = f->used[i];
		tries += f->used[i];
	}
	if (tries > 0 && !f->bcast && !f->no_ack)
		r->s.tries[tries > MEDIUM_TRIES_BINS ? MEDIUM_TRIES_BINS - 1 : tries - 1]++;
	r->qhead = f->next;
	if (!r->qhead)
		r->qtail = NULL;
	queue_account(m, r);
	r->qlen--;
	r->s.tx_frames++;
	if (acked)
		r->s.acked++;
	r->cw = r->tm.cw_min;
	draw_backoff(m, r);		/* post-backoff */
	r->st = r->qhead ? D_CONTEND : D_IDLE;
	r->att_tx = NULL;
	schedule_access(m, r);
	if (m->cb.tx_status)
		m->cb.tx_status(m->cb.ctx, &rep);
	free(f);
}

static void attempt_failed(struct medium *m, struct radio *r, bool rts_stage)
{
	struct frame *f = r->qhead;
	if (f->dst >= 0 && r->att_overlap)
		m->ls[IDX(m, ridx(m, r), f->dst)].collisions++;
	if (f->dst >= 0 && r->att_overlap && !r->att_overlap_early)
		m->ls[IDX(m, ridx(m, r), f->dst)].late_collisions++;
	if (f->dst >= 0 && rts_stage)
		m->ls[IDX(m, ridx(m, r), f->dst)].rts_failures++;
	if (rts_stage || !r->attempt_rts)
		f->src_cnt++;
	else
		f->lrc_cnt++;
	if (m->cfg.after_failure == MEDIUM_AFTER_FAILURE_ACK_TIMEOUT)
		r->resume_min = r->fail_resume;
	else
		r->eifs = true;
	r->cw = 2 * r->cw + 1 > r->tm.cw_max ? r->tm.cw_max : 2 * r->cw + 1;
	bool at_limit = f->src_cnt >= r->cfg.retry_short || f->lrc_cnt >= r->cfg.retry_long;
	if (at_limit || !current_entry(m, f, r->cfg.phy)) {
		if (f->dst >= 0)
			m->ls[IDX(m, ridx(m, r), f->dst)].retry_drops++;
		r->s.retry_drops++;
		if (at_limit)
			r->s.limit_drops++;
		else
			r->s.table_drops++;
		complete(m, r, false);
		return;
	}
	draw_backoff(m, r);
	r->st = D_CONTEND;
	r->att_tx = NULL;
	schedule_access(m, r);
}

void dcf_access(struct medium *m, int idx)
{
	struct radio *r = &m->r[idx];
	struct frame *f = r->qhead;
	r->acc_pending = false;
	if (r->st != D_CONTEND || !f || r->tx_cur)
		return;		/* a response is on air: re-armed when idle */
	current_entry(m, f, r->cfg.phy);
	struct medium_rate *e = &f->fi.rates[f->entry];
	bool sp = e->flags & MEDIUM_RATE_SHORT_PREAMBLE;
	bool unicast = !f->bcast && !f->no_ack;
	uint16_t rts_flags = m->cfg.rts_from_first_entry ? f->fi.rates[0].flags : e->flags;
	bool rts = unicast && (rts_flags & (MEDIUM_RATE_RTS | MEDIUM_RATE_CTS_PROTECT));
	uint64_t sifs = r->tm.sifs;
	uint64_t t_ack = ctrl_airtime(r, e->idx, sp, ACK_LEN);
	struct tx *t;

	f->used[f->entry]++;
	r->attempt++;
	r->attempt_rts = rts;
	r->bo_slots = 0;
	if (f->dst >= 0)
		m->ls[IDX(m, idx, f->dst)].attempts++;
	if (rts) {
		int ci = control_rate_idx(r->cfg.phy, r->basic, e->idx);
		uint64_t t_cts = ctrl_airtime(r, e->idx, sp, CTS_LEN);
		uint64_t t_data = medium_airtime_ns(r->cfg.phy, e->idx, sp, f->fi.len);
		t = tx_new(m, idx, f->dst, MEDIUM_AIR_RTS, ci, sp, RTS_LEN, m->now);
		t->nav_ns = 3 * sifs + t_cts + t_data + t_ack;
	} else {
		t = tx_new(m, idx, f->dst, MEDIUM_AIR_DATA, e->idx, sp, f->fi.len, m->now);
		t->nav_ns = unicast ? sifs + t_ack : 0;
		t->frame = f;
	}
	t->frame_serial = f->serial;
	t->attempt = r->attempt;
	r->st = D_TX;
	r->att_tx = t;
	phy_tx_start(m, t);
}

void dcf_own_tx_end(struct medium *m, int idx, struct tx *t)
{
	struct radio *r = &m->r[idx];
	if (r->att_tx != t)
		return;		/* a CTS/ACK we sent for someone else */
	struct frame *f = r->qhead;
	r->att_overlap = t->overlap;
	r->att_overlap_early = t->overlap_early;
	r->att_tx = NULL;
	if (t->kind == MEDIUM_AIR_DATA && (f->bcast || f->no_ack)) {
		complete(m, r, true);
		return;
	}
	/* Wait for the response: ACKTimeout = SIFS + slot + PHY-RX-START delay
	 * (the time by which its preamble has been detected). */
	int ci = control_rate_idx(r->cfg.phy, r->basic, f->fi.rates[f->entry].idx);
	uint64_t timeout = r->tm.sifs + r->tm.slot + rx_start_delay(r->cfg.phy, ci, t->short_pre);
	r->st = t->kind == MEDIUM_AIR_RTS ? D_WAIT_CTS : D_WAIT_ACK;
	r->to_gen++;
	r->fail_resume = t->end + timeout;
	evq_push(&m->q, t->end + timeout, EV_TIMEOUT, idx, r->to_gen, NULL);
}

bool dcf_awaits(const struct radio *r, const struct tx *t)
{
	return r->qhead && t->frame_serial == r->qhead->serial && t->attempt == r->attempt &&
	       ((r->st == D_WAIT_CTS && t->kind == MEDIUM_AIR_CTS) ||
		(r->st == D_WAIT_ACK && t->kind == MEDIUM_AIR_ACK));
}

bool dcf_timeout_acts(const struct medium *m, int idx)
{
	const struct radio *r = &m->r[idx];
	if (r->st != D_WAIT_CTS && r->st != D_WAIT_ACK)
		return false;
	/* The response is being received: its end decides (and if the lock is lost
	 * first, lock_drop queues a timeout of its own). */
	return !(r->lock && r->lock->dst == idx && dcf_awaits(r, r->lock));
}

void dcf_timeout(struct medium *m, int idx)
{
	struct radio *r = &m->r[idx];
	attempt_failed(m, r, r->st == D_WAIT_CTS);
}

void dcf_response_lost(struct medium *m, int idx, struct tx *t)
{
	struct radio *r = &m->r[idx];
	if (!dcf_awaits(r, t))
		return;
	r->to_gen++;
	attempt_failed(m, r, r->st == D_WAIT_CTS);
}

static void schedule_response(struct medium *m, int j, struct tx *in,
			      enum medium_air_kind kind, uint32_t len, uint64_t nav)
{
	struct radio *r = &m->r[j];
	int ci = control_rate_idx(r->cfg.phy, r->basic, in->rate_idx);
	struct tx *t;
	if (ci < 0)
		return;
	t = tx_new(m, j, in->src, kind, ci, in->short_pre, len, in->end + r->tm.sifs);
	if (!t)
		return;
	t->nav_ns = nav;
	t->frame_serial = in->frame_serial;
	t->attempt = in->attempt;
	evq_push(&m->q, t->start, EV_TX_START, j, 0, t);
}

void dcf_rx_addressed(struct medium *m, int j, struct tx *t)
{
	struct radio *r = &m->r[j];
	switch (t->kind) {
	case MEDIUM_AIR_RTS: {
		/* Answer only if our NAV is clear (9.3.2.6). */
		if (r->nav_until > m->now)
			return;
		int ci = control_rate_idx(r->cfg.phy, r->basic, t->rate_idx);
		uint64_t t_cts = medium_airtime_ns(r->cfg.phy, ci, t->short_pre, CTS_LEN);
		uint64_t used = r->tm.sifs + t_cts;
		schedule_response(m, j, t, MEDIUM_AIR_CTS, CTS_LEN,
				  t->nav_ns > used ? t->nav_ns - used : 0);
		return;
	}
	case MEDIUM_AIR_DATA:
		if (!t->frame->no_ack && !t->frame->bcast)
			schedule_response(m, j, t, MEDIUM_AIR_ACK, ACK_LEN, 0);
		return;
	case MEDIUM_AIR_CTS: {
		if (!dcf_awaits(r, t))
			return;
		struct frame *f = r->qhead;
		struct medium_rate *e = &f->fi.rates[f->entry];
		bool sp = e->flags & MEDIUM_RATE_SHORT_PREAMBLE;
		struct tx *d = tx_new(m, j, f->dst, MEDIUM_AIR_DATA, e->idx, sp, f->fi.len,
				      t->end + r->tm.sifs);
		r->to_gen++;
		d->nav_ns = r->tm.sifs + ctrl_airtime(r, e->idx, sp, ACK_LEN);
		d->frame = f;
		d->frame_serial = f->serial;
		d->attempt = r->attempt;
		r->st = D_WAIT_DATA;
		r->att_tx = d;
		evq_push(&m->q, d->start, EV_TX_START, j, 0, d);
		return;
	}
	case MEDIUM_AIR_ACK:
		if (!dcf_awaits(r, t))
			return;
		r->to_gen++;
		m->ls[IDX(m, j, t->src)].successes++;
		complete(m, r, true);
		return;
	}
}

void dcf_deliver(struct medium *m, int j, struct tx *t)
{
	struct frame *f = t->frame;
	struct radio *r = &m->r[j];
	if (!f->bcast) {
		if (f->delivered)
			return;		/* retransmission of a frame we already have */
		f->delivered = true;
	}
	m->ls[IDX(m, t->src, j)].delivered++;
	if (!m->cb.deliver)
		return;
	struct medium_rx_info rx = {
		.rx_radio = j, .tx_radio = t->src, .signal_dbm = t->p_dbm[j],
		.snr_db = 10.0 * log10(r->lock_min_sinr), .rate_idx = t->rate_idx,
		.time_ns = t->end, .cookie = f->fi.cookie, .user = f->fi.user,
		.len = f->fi.len,
	};
	m->cb.deliver(m->cb.ctx, &rx);
}

/* Start of a scheduled PPDU (CTS, ACK, or DATA after CTS). */
void dcf_tx_start_scheduled(struct medium *m, int idx, struct tx *t)
{
	struct radio *r = &m->r[idx];
	if (r->tx_cur) {	/* already transmitting: cannot send this one */
		if (r->att_tx == t) {
			r->att_tx = NULL;
			r->att_overlap = true;
			tx_free(t);
			attempt_failed(m, r, false);
			return;
		}
		tx_free(t);
		return;
	}
	if (r->att_tx == t)
		r->st = D_TX;
	phy_tx_start(m, t);
}

int dcf_enqueue(struct medium *m, int idx, const struct medium_frame_info *fi)
{
	struct radio *r = &m->r[idx];
	struct frame *f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->fi = *fi;
	f->serial = ++m->frame_serial;
	f->enqueue_ns = m->now;
	f->bcast = fi->dst[0] & 1;
	f->no_ack = fi->flags & MEDIUM_FRAME_NO_ACK;
	f->dst = f->bcast ? -1 : medium_radio_by_mac(m, fi->dst);
	if (f->dst == idx || f->dst < 0)
		f->dst = -1;

	bool valid = current_entry(m, f, r->cfg.phy);
	bool full = r->qlen >= r->cfg.queue_limit + 1;	/* limit waiting + 1 in service */
	if (!valid || full) {
		struct medium_tx_report rep = {
			.tx_radio = idx, .queue_drop = full && valid, .enqueue_ns = m->now,
			.done_ns = m->now, .cookie = fi->cookie, .user = fi->user,
		};
		for (int i = 0; i < MEDIUM_MAX_RATES; i++) {
			rep.attempts[i] = fi->rates[i];
			rep.attempts[i].count = 0;
		}
		free(f);
		if (valid)
			r->s.queue_drops++;
		if (m->cb.tx_status)
			m->cb.tx_status(m->cb.ctx, &rep);
		return valid ? -ENOBUFS : -EINVAL;
	}
	if (f->bcast || f->no_ack) {	/* one try, whatever the table says */
		f->fi.rates[f->entry].count = 1;
		for (int i = f->entry + 1; i < MEDIUM_MAX_RATES; i++)
			f->fi.rates[i].idx = -1;
	}
	if (r->qtail)
		r->qtail->next = f;
	else
		r->qhead = f;
	r->qtail = f;
	queue_account(m, r);
	r->qlen++;
	r->s.enqueued++;
	if (r->st == D_IDLE) {
		r->st = D_CONTEND;
		if (r->busy && r->bo_slots == 0)
			draw_backoff(m, r);	/* arrived to a busy medium */
		schedule_access(m, r);
	}
	return 0;
}

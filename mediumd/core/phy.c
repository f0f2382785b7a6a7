/* phy.c - PPDUs on the air.
 *
 * When a PPDU starts, its power at every radio on the channel is fixed (mean
 * link power + optional per-frame fading).  Each radio then:
 *   - counts it for carrier sense if the power is >= its CS threshold;
 *   - locks onto it if idle, not transmitting, not already locked and the
 *     power is >= its rx sensitivity; or, if locked, switches to it when it is
 *     stronger than the locked frame by the capture threshold (the old one
 *     is lost);
 *   - otherwise sees it as interference.
 * A locked reception accumulates its success probability chunk by chunk:
 * between two changes of the set of PPDUs on air, SINR is constant and the
 * chunk's header and payload bits survive with (1 - BER(SINR))^bits.  At the
 * PPDU's end one uniform draw decides the fate. */
#include <math.h>
#include <stdlib.h>
#include "error_model.h"
#include "medium_internal.h"

struct tx *tx_new(struct medium *m, int src, int dst, enum medium_air_kind kind,
		  int rate_idx, bool short_pre, uint32_t len, uint64_t start)
{
	struct radio *r = &m->r[src];
	const struct rate_info *ri = rate_get(r->cfg.phy, rate_idx);
	struct tx *t = calloc(1, sizeof(*t));
	uint64_t sync, hdr;
	if (!t || !ri) {
		free(t);
		return NULL;
	}
	t->src = src;
	t->dst = dst;
	t->kind = kind;
	t->rate_idx = rate_idx;
	t->kbps100 = ri->kbps100;
	t->ofdm = ri->cls == MOD_OFDM;
	t->short_pre = short_pre;
	t->len = len;
	t->start = start;
	t->end = start + medium_airtime_ns(r->cfg.phy, rate_idx, short_pre, len);
	plcp_parts(r->cfg.phy, rate_idx, short_pre, &sync, &hdr, &t->hdr_kbps100);
	t->hdr_start = start + sync;
	t->hdr_end = t->hdr_start + hdr;
	t->data_end = t->end - (t->ofdm && r->cfg.phy == MEDIUM_PHY_G ? 6 * US : 0);
	return t;
}

void tx_free(struct tx *t)
{
	if (!t)
		return;
	free(t->p_dbm);
	free(t->p_mw);
	free(t->cs);
	free(t);
}

static uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
	return hi > lo ? hi - lo : 0;
}

/* BER with a two-entry memo per radio and rate. */
static double cached_ber(struct radio *r, int kbps100, double sinr)
{
	static const int rates[] = { 10, 20, 55, 110, 60, 90, 120, 180, 240, 360, 480, 540 };
	int k = 0;
	while (k < 12 && rates[k] != kbps100)
		k++;
	if (k == 12)
		return ber_for_rate(kbps100, sinr);
	for (int w = 0; w < 2; w++)
		if (r->ber_val[k][w] >= 0 && r->ber_sinr[k][w] == sinr)
			return r->ber_val[k][w];
	/* two ways, most recent first */
	r->ber_sinr[k][1] = r->ber_sinr[k][0];
	r->ber_val[k][1] = r->ber_val[k][0];
	r->ber_sinr[k][0] = sinr;
	r->ber_val[k][0] = ber_for_rate(kbps100, sinr);
	return r->ber_val[k][0];
}

/* Close radio j's current SINR chunk at time now. */
static void rx_close_chunk(struct medium *m, int j, uint64_t now)
{
	struct radio *r = &m->r[j];
	struct tx *t = r->lock;
	if (!t || now <= r->lock_last) {
		r->lock_last = now > r->lock_last ? now : r->lock_last;
		return;
	}
	double interf = 0;
	for (int i = 0; i < m->n_active; i++)
		if (m->active[i] != t)
			interf += m->active[i]->p_mw[j];
	double sinr = t->p_mw[j] / (r->noise_mw + interf);
	const double *g = m->cfg.interference_weight;
	const double *loss = m->cfg.rate_loss_db;
	double hs = sinr_after_loss(loss, t->hdr_kbps100,
				    t->p_mw[j] / (r->noise_mw + g[modulation_of(t->hdr_kbps100)] * interf));
	double ps = sinr_after_loss(loss, t->kbps100,
				    t->p_mw[j] / (r->noise_mw + g[modulation_of(t->kbps100)] * interf));
	uint64_t t0 = r->lock_last, t1 = now;
	/* bits = ns * (kbps100 * 100 kbit/s) = ns * kbps100 / 10^4 */
	double hb = overlap(t0, t1, t->hdr_start, t->hdr_end) * (double)t->hdr_kbps100 / 1e4;
	double pb = overlap(t0, t1, t->hdr_end, t->data_end) * (double)t->kbps100 / 1e4;
	if (hb > 0)
		r->lock_logok += hb * log1p(-cached_ber(r, t->hdr_kbps100, hs));
	if (pb > 0)
		r->lock_logok += pb * log1p(-cached_ber(r, t->kbps100, ps));
	if (hb > 0 || pb > 0 || t0 < t->hdr_start)
		if (sinr < r->lock_min_sinr)
			r->lock_min_sinr = sinr;
	r->lock_last = now;
}

static void close_all_chunks(struct medium *m, uint64_t now)
{
	for (int j = 0; j < m->n; j++)
		if (m->r[j].lock)
			rx_close_chunk(m, j, now);
}

static void lock_on(struct radio *r, struct tx *t, uint64_t now)
{
	r->lock = t;
	r->lock_last = now;
	r->lock_logok = 0;
	r->lock_min_sinr = INFINITY;
}

/* Drop radio j's lock.  If it was the CTS/ACK the radio waits for, the
 * exchange has failed: let its timeout handler say so now. */
static void lock_drop(struct medium *m, int j)
{
	struct radio *r = &m->r[j];
	struct tx *old = r->lock;
	r->lock = NULL;
	if (old && old->dst == j && dcf_awaits(r, old))
		evq_push(&m->q, m->now, EV_TIMEOUT, j, r->to_gen, NULL);
}

static bool can_decode(const struct radio *r, const struct tx *t)
{
	return !(t->ofdm && r->cfg.phy == MEDIUM_PHY_B);
}

static double fading_db(struct medium *m)
{
	switch (m->cfg.prop.fading) {
	case MEDIUM_FADING_RAYLEIGH: {
		double u = 1.0 - rng_uniform(&m->rng);	/* (0, 1] */
		return 10.0 * log10(-log(u) + 1e-12);
	}
	case MEDIUM_FADING_LOGNORMAL:
		return m->cfg.prop.fading_sigma_db * rng_normal(&m->rng);
	default:
		return 0;
	}
}

/* The fade between radios a and b now.  Per-frame fading draws afresh (the
 * same draws as always, so runs without coherence repeat exactly).  With a
 * coherence time the pair keeps its fade and it drifts: each component is
 * rho * old + sqrt(1 - rho^2) * N(0, 1), rho = exp(-dt / coherence), which
 * keeps the marginal of per-frame fading and makes losses come in bursts. */
static double pair_fading_db(struct medium *m, int a, int b)
{
	const struct medium_propagation *pr = &m->cfg.prop;
	if (pr->fading_coherence_ms <= 0 || pr->fading == MEDIUM_FADING_NONE)
		return fading_db(m);
	struct fade *f = &m->fade[a < b ? IDX(m, a, b) : IDX(m, b, a)];
	bool two = pr->fading == MEDIUM_FADING_RAYLEIGH;
	if (!f->set) {
		f->a = rng_normal(&m->rng);
		f->b = two ? rng_normal(&m->rng) : 0.0;
		f->set = true;
	} else if (m->now > f->at) {
		double rho = exp(-(double)(m->now - f->at) / (pr->fading_coherence_ms * 1e6));
		double s = sqrt(1.0 - rho * rho);
		f->a = rho * f->a + s * rng_normal(&m->rng);
		if (two)
			f->b = rho * f->b + s * rng_normal(&m->rng);
	}
	f->at = m->now;
	if (two)
		return 10.0 * log10(0.5 * (f->a * f->a + f->b * f->b) + 1e-12);
	return pr->fading_sigma_db * f->a;
}

void phy_update_busy(struct medium *m, int j)
{
	struct radio *r = &m->r[j];
	bool b = r->tx_cur || r->cs_count > 0 || r->lock || r->nav_until > m->now;
	if (b == r->busy)
		return;
	r->busy = b;
	if (b) {
		r->busy_since = m->now;
		dcf_on_busy(m, r);
	} else {
		r->s.busy_ns += m->now - r->busy_since;
		r->idle_since = m->now;
		dcf_on_idle(m, r);
	}
}

void phy_tx_start(struct medium *m, struct tx *t)
{
	struct radio *src = &m->r[t->src];
	uint64_t now = m->now;

	/* Per-radio arrays are sized at start: radios may be added while idle. */
	t->p_dbm = malloc(sizeof(double) * m->n);
	t->p_mw = malloc(sizeof(double) * m->n);
	t->cs = calloc(m->n, 1);
	if (!t->p_dbm || !t->p_mw || !t->cs)
		abort();	/* out of memory mid-simulation: nothing sane to do */
	for (int j = 0; j < m->n; j++) {
		double p = -INFINITY;
		if (j != t->src && m->r[j].cfg.freq_mhz == src->cfg.freq_mhz)
			p = m->mean_dbm[IDX(m, t->src, j)];
		if (isfinite(p))
			p += pair_fading_db(m, t->src, j);
		t->p_dbm[j] = p;
		t->p_mw[j] = isfinite(p) ? dbm_to_mw(p) : 0;
	}
	close_all_chunks(m, now);

	/* Collision bookkeeping: did this PPDU and the ones on air overlap at
	 * each other's addressee (energy above the noise floor there)?  A PPDU
	 * that begins within a slot of one on air began together with it (no
	 * carrier sense tells them apart): for neither was the other late. */
	for (int i = 0; i < m->n_active; i++) {
		struct tx *a = m->active[i];
		if (a->dst >= 0 && (t->src == a->dst ||
				    t->p_mw[a->dst] >= m->r[a->dst].noise_mw)) {
			a->overlap = true;
			if (t->start < a->start + m->r[a->src].tm.slot)
				a->overlap_early = true;
		}
		if (t->dst >= 0 && (a->src == t->dst ||
				    a->p_mw[t->dst] >= m->r[t->dst].noise_mw))
			t->overlap = t->overlap_early = true;
	}
	if (t->dst >= 0 && m->r[t->dst].tx_cur)
		t->overlap = t->overlap_early = true;

	if (m->n_active == m->cap_active) {
		int nc = m->cap_active ? 2 * m->cap_active : 16;
		m->active = realloc(m->active, nc * sizeof(*m->active));
		m->cap_active = nc;
	}
	m->active[m->n_active++] = t;

	/* The transmitter cannot receive: an ongoing lock is lost. */
	src->tx_cur = t;
	lock_drop(m, t->src);

	for (int j = 0; j < m->n; j++) {
		struct radio *r = &m->r[j];
		if (j == t->src || t->p_mw[j] <= 0)
			continue;
		if (t->p_dbm[j] >= r->cs_thr_dbm) {
			t->cs[j] = 1;
			r->cs_count++;
		}
		if (t->p_dbm[j] >= r->rx_sens_dbm)
			r->last_rx_start = now;		/* a PPDU it would detect */
		if (r->tx_cur || t->p_dbm[j] < r->rx_sens_dbm || !can_decode(r, t))
			continue;
		if (!r->lock)
			lock_on(r, t, now);
		else if (t->p_dbm[j] >= r->lock->p_dbm[j] + r->capture_db) {
			lock_drop(m, j);	/* capture: the old frame is lost */
			lock_on(r, t, now);
		}
	}

	uint64_t dur = t->end - t->start;
	src->s.tx_airtime_ns += dur;
	if (t->dst >= 0)
		m->ls[IDX(m, t->src, t->dst)].airtime_ns += dur;
	if (m->cb.on_air) {
		struct medium_air_info ai = {
			.tx_radio = t->src, .rx_radio = t->dst, .kind = t->kind,
			.rate_idx = t->rate_idx, .start_ns = t->start, .end_ns = t->end,
			.len = t->len,
			.cookie = t->frame ? t->frame->fi.cookie : 0,
		};
		m->cb.on_air(m->cb.ctx, &ai);
	}
	evq_push(&m->q, t->end, EV_TX_END, t->src, 0, t);
	for (int j = 0; j < m->n; j++)
		phy_update_busy(m, j);
}

/* Outcome of radio j's reception of t (j was locked on t until now). */
static void rx_finish(struct medium *m, int j, struct tx *t)
{
	struct radio *r = &m->r[j];
	double p_ok = exp(r->lock_logok);
	bool ok = rng_uniform(&m->rng) < p_ok;
	double per = m->ov[IDX(m, t->src, j)].per;
	if (ok && per > 0)
		ok = rng_uniform(&m->rng) >= per;
	r->lock = NULL;
	r->eifs = !ok;
	if (!ok) {
		if (t->dst == j && (t->kind == MEDIUM_AIR_CTS || t->kind == MEDIUM_AIR_ACK))
			dcf_response_lost(m, j, t);
		return;
	}
	if (t->dst == j) {
		if (t->kind == MEDIUM_AIR_DATA)
			dcf_deliver(m, j, t);
		dcf_rx_addressed(m, j, t);
	} else if (t->dst < 0 && t->kind == MEDIUM_AIR_DATA) {
		dcf_deliver(m, j, t);
	} else if (t->nav_ns) {
		/* Virtual carrier sense from an overheard Duration field. */
		uint64_t until = t->end + t->nav_ns;
		if (until > r->nav_until) {
			bool rts = t->kind == MEDIUM_AIR_RTS && m->cfg.nav_reset;
			r->nav_before_rts = rts ? r->nav_until : 0;
			r->nav_rts_until = rts ? until : 0;
			r->nav_rts_end = t->end;
			r->nav_until = until;
			evq_push(&m->q, until, EV_NAV_END, j, 0, NULL);
			if (rts) {
				/* 9.3.2.4: 2 SIFS + CTS + PHY-RX-START delay + 2 slots */
				uint64_t cts = medium_airtime_ns(r->cfg.phy, t->rate_idx,
								 t->short_pre, CTS_LEN);
				uint64_t wait = 2 * r->tm.sifs + cts + 2 * r->tm.slot +
					rx_start_delay(r->cfg.phy, t->rate_idx, t->short_pre);
				/* gen: this RTS's end, so a later RTS's NAV is
				 * judged only by its own event (event_dead) */
				evq_push(&m->q, t->end + wait, EV_NAV_RESET, j, t->end, NULL);
			}
		}
	}
}

void phy_nav_reset(struct medium *m, int j)
{
	struct radio *r = &m->r[j];
	/* Only the NAV that RTS set, not extended since, and only if nothing
	 * started on the air after it (no CTS, no DATA: the RTS went unanswered). */
	if (!r->nav_rts_until || r->nav_until != r->nav_rts_until ||
	    r->last_rx_start > r->nav_rts_end)
		return;
	r->nav_until = r->nav_before_rts > m->now ? r->nav_before_rts : m->now;
	r->nav_rts_until = 0;
	r->s.nav_resets++;
	phy_update_busy(m, j);
}

void phy_tx_end(struct medium *m, struct tx *t)
{
	uint64_t now = m->now;
	close_all_chunks(m, now);
	for (int i = 0; i < m->n_active; i++)
		if (m->active[i] == t) {
			m->active[i] = m->active[--m->n_active];
			break;
		}
	m->r[t->src].tx_cur = NULL;
	for (int j = 0; j < m->n; j++)
		if (t->cs[j])
			m->r[j].cs_count--;
	for (int j = 0; j < m->n; j++)
		if (m->r[j].lock == t)
			rx_finish(m, j, t);
	dcf_own_tx_end(m, t->src, t);
	for (int j = 0; j < m->n; j++)
		phy_update_busy(m, j);
	tx_free(t);
}

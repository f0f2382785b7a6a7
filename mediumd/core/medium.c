/* medium.c - the medium object: construction from a config, the link power
 * cache, run-time changes, the event loop, statistics. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "medium_internal.h"

double dbm_to_mw(double dbm) { return pow(10.0, dbm / 10.0); }

static struct pos radio_pos(const struct radio *r)
{
	return (struct pos){ r->cfg.x, r->cfg.y, r->cfg.z };
}

/* What a radio's static shadowing is keyed by: its name (FNV-1a), else its MAC,
 * so a pair of radios keeps its draw whatever the order or the number of radios
 * in the config (a campus run with a subset of its routers sees the same walls
 * and the same shadowing). */
static uint64_t shadow_key(const struct radio *r)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	if (r->cfg.name[0]) {
		for (const char *c = r->cfg.name; *c; c++)
			h = (h ^ (uint8_t)*c) * 0x100000001b3ULL;
	} else {
		for (int i = 0; i < 6; i++)
			h = (h ^ r->cfg.mac[i]) * 0x100000001b3ULL;
	}
	return h;
}

/* Mean received power tx -> rx: tx power + antenna gains - path loss -
 * static shadowing (same draw both ways), unless a link override says else. */
static double link_mean_dbm(const struct medium *m, int a, int b)
{
	const struct radio *ta = &m->r[a], *rb = &m->r[b];
	const struct medium_link_override *ov = &m->ov[IDX(m, a, b)];
	double gains = ta->cfg.txpower_dbm + ta->cfg.antenna_gain_db + rb->cfg.antenna_gain_db;
	switch (ov->kind) {
	case MEDIUM_LINK_NONE: return -INFINITY;
	case MEDIUM_LINK_LOSS_DB: return gains - ov->value;
	case MEDIUM_LINK_SNR_DB: return rb->noise_dbm + ov->value;
	case MEDIUM_LINK_MODEL: break;
	}
	double pl = prop_loss_db(&m->cfg.prop, ta->cfg.freq_mhz, radio_pos(ta), radio_pos(rb));
	if (m->cfg.prop.shadowing_sigma_db > 0) {
		uint64_t ka = shadow_key(ta), kb = shadow_key(rb);
		uint64_t seed = m->cfg.prop.has_shadowing_seed ? m->cfg.prop.shadowing_seed
							       : m->cfg.seed;
		pl += m->cfg.prop.shadowing_sigma_db *
		      rng_hash_normal(seed, ka < kb ? ka : kb, ka < kb ? kb : ka);
	}
	return gains - pl;
}

static void link_pair_refresh(struct medium *m, int a, int b)
{
	m->mean_dbm[IDX(m, a, b)] = link_mean_dbm(m, a, b);
	m->mean_dbm[IDX(m, b, a)] = link_mean_dbm(m, b, a);
}

void link_power_refresh(struct medium *m, int k)
{
	for (int j = 0; j < m->n; j++)
		if (j != k)
			link_pair_refresh(m, k, j);
}

/* After a mobility sync: the rows and columns of the radios that moved; a
 * pair of two moved radios is done once, by the lower index. */
void link_power_refresh_moved(struct medium *m)
{
	for (int k = 0; k < m->n; k++) {
		if (!m->r[k].moved)
			continue;
		for (int j = 0; j < m->n; j++)
			if (j != k && !(m->r[j].moved && j < k))
				link_pair_refresh(m, k, j);
	}
}

/* Received power at distance d from a radio like r (its own tx power and
 * gains, both antennas at r's height): turns a stated range into a threshold. */
static double power_at_range(const struct medium *m, const struct radio *r, double d)
{
	double h = r->cfg.z;
	return r->cfg.txpower_dbm + 2 * r->cfg.antenna_gain_db -
	       prop_loss_at_distance_db(&m->cfg.prop, r->cfg.freq_mhz, d, h, h);
}

static int radio_init(struct medium *m, struct radio *r, const struct medium_radio_config *rc)
{
	memset(r, 0, sizeof(*r));
	r->cfg = *rc;
	if (rc->phy > MEDIUM_PHY_A)
		return -EINVAL;
	if (!r->cfg.freq_mhz)
		r->cfg.freq_mhz = rc->phy == MEDIUM_PHY_A ? 5180 : 2412;
	if (r->cfg.retry_short < 1 || r->cfg.retry_long < 1 || r->cfg.queue_limit < 0)
		return -EINVAL;
	phy_timing_get(rc->phy, rc->phy == MEDIUM_PHY_G && rc->short_slot, &r->tm);
	r->basic = rc->basic_rates ? rc->basic_rates : phy_default_basic_rates(rc->phy);
	r->basic &= (1u << rate_count(rc->phy)) - 1;
	if (!r->basic)
		return -EINVAL;
	double nf = isnan(rc->noise_figure_db) ? m->cfg.noise_figure_db : rc->noise_figure_db;
	r->noise_dbm = isnan(rc->noise_floor_dbm) ? thermal_noise_dbm(rc->phy, nf)
						  : rc->noise_floor_dbm;
	r->noise_mw = dbm_to_mw(r->noise_dbm);
	if (!isnan(rc->rx_sensitivity_dbm))
		r->rx_sens_dbm = rc->rx_sensitivity_dbm;
	else if (rc->tx_range_m > 0)
		r->rx_sens_dbm = power_at_range(m, r, rc->tx_range_m);
	else
		r->rx_sens_dbm = m->cfg.rx_sensitivity_dbm;
	if (!isnan(rc->cs_threshold_dbm))
		r->cs_thr_dbm = rc->cs_threshold_dbm;
	else if (rc->cs_range_m > 0)
		r->cs_thr_dbm = power_at_range(m, r, rc->cs_range_m);
	else
		r->cs_thr_dbm = r->rx_sens_dbm;
	r->capture_db = isnan(rc->capture_threshold_db) ? m->cfg.capture_threshold_db
							: rc->capture_threshold_db;
	r->cw = r->tm.cw_min;
	r->st = D_IDLE;
	for (int k = 0; k < 16; k++)
		r->ber_val[k][0] = r->ber_val[k][1] = -1;	/* memo empty */
	return 0;
}

/* Grow the per-pair arrays to a new capacity (stride changes). */
static int grow(struct medium *m, int cap)
{
	size_t nn = (size_t)cap * cap;
	double *md = calloc(nn, sizeof(*md));
	struct medium_link_override *ov = calloc(nn, sizeof(*ov));
	struct medium_link_stats *ls = calloc(nn, sizeof(*ls));
	struct fade *fd = calloc(nn, sizeof(*fd));
	struct radio *r = realloc(m->r, cap * sizeof(*r));
	if (!md || !ov || !ls || !fd || !r) {
		free(md); free(ov); free(ls); free(fd);
		if (r)
			m->r = r;
		return -ENOMEM;
	}
	m->r = r;
	for (int a = 0; a < m->n; a++)
		for (int b = 0; b < m->n; b++) {
			size_t o = (size_t)a * m->cap + b, n = (size_t)a * cap + b;
			md[n] = m->mean_dbm[o];
			ov[n] = m->ov[o];
			ls[n] = m->ls[o];
			fd[n] = m->fade[o];
		}
	free(m->mean_dbm); free(m->ov); free(m->ls); free(m->fade);
	m->mean_dbm = md; m->ov = ov; m->ls = ls; m->fade = fd;
	m->cap = cap;
	return 0;
}

struct medium *medium_new(const struct medium_config *cfg)
{
	struct medium *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->cfg = *cfg;
	m->cfg.radios = NULL;
	m->cfg.n_radios = 0;
	m->cfg.links = NULL;
	m->cfg.n_links = 0;
	m->cfg.waypoints = NULL;
	m->cfg.n_waypoints = 0;
	m->cfg.prop.walls = NULL;
	if (cfg->prop.n_walls > 0) {
		m->cfg.prop.walls = malloc(cfg->prop.n_walls * sizeof(struct medium_wall));
		if (!m->cfg.prop.walls)
			goto fail;
		memcpy(m->cfg.prop.walls, cfg->prop.walls,
		       cfg->prop.n_walls * sizeof(struct medium_wall));
	}
	evq_init(&m->q);
	rng_seed(&m->rng, cfg->seed);
	if (grow(m, cfg->n_radios > 4 ? cfg->n_radios : 4) < 0)
		goto fail;
	for (int i = 0; i < cfg->n_radios; i++) {
		if (radio_init(m, &m->r[i], &cfg->radios[i]) < 0) {
			errno = EINVAL;
			goto fail;
		}
		m->n++;
	}
	for (int i = 0; i < cfg->n_links; i++) {
		const struct medium_link_config *l = &cfg->links[i];
		if (l->tx < 0 || l->tx >= m->n || l->rx < 0 || l->rx >= m->n) {
			errno = EINVAL;
			goto fail;
		}
		m->ov[IDX(m, l->tx, l->rx)] = l->ov;
	}
	int rc = mobility_load(m, cfg);
	if (rc < 0) {
		errno = -rc;
		goto fail;
	}
	mobility_sync(m);		/* positions at time 0, before the power cache */
	for (int a = 0; a < m->n; a++)
		for (int b = 0; b < m->n; b++)
			if (a != b)
				m->mean_dbm[IDX(m, a, b)] = link_mean_dbm(m, a, b);
	return m;
fail:
	medium_free(m);
	return NULL;
}

void medium_free(struct medium *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->n; i++) {
		struct frame *f = m->r[i].qhead;
		while (f) {
			struct frame *nx = f->next;
			free(f);
			f = nx;
		}
		free(m->r[i].alias);
		mobility_free(&m->r[i]);
	}
	/* PPDUs on air or scheduled are owned by events */
	struct event e;
	while (evq_pop(&m->q, &e))
		if (e.type == EV_TX_START || e.type == EV_TX_END)
			tx_free(e.ptr);
	evq_free(&m->q);
	free(m->active);
	free(m->r);
	free(m->mean_dbm);
	free(m->ov);
	free(m->ls);
	free(m->fade);
	free(m->cfg.prop.walls);
	free(m);
}

int medium_radio_count(const struct medium *m) { return m->n; }

int medium_radio_by_mac(const struct medium *m, const uint8_t mac[6])
{
	for (int i = 0; i < m->n; i++) {
		if (!memcmp(m->r[i].cfg.mac, mac, 6))
			return i;
		for (int k = 0; k < m->r[i].n_alias; k++)
			if (!memcmp(m->r[i].alias[k], mac, 6))
				return i;
	}
	return -ENOENT;
}

const uint8_t *medium_radio_mac(const struct medium *m, int radio)
{
	return radio >= 0 && radio < m->n ? m->r[radio].cfg.mac : NULL;
}

int medium_add_mac_alias(struct medium *m, int radio, const uint8_t mac[6])
{
	if (radio < 0 || radio >= m->n)
		return -EINVAL;
	struct radio *r = &m->r[radio];
	uint8_t (*na)[6] = realloc(r->alias, (r->n_alias + 1) * sizeof(*na));
	if (!na)
		return -ENOMEM;
	memcpy(na[r->n_alias], mac, 6);
	r->alias = na;
	r->n_alias++;
	return 0;
}

int medium_add_radio(struct medium *m, const struct medium_radio_config *rc)
{
	if (m->n_active > 0)
		return -EBUSY;	/* PPDUs on air have per-radio arrays of the old size */
	if (m->n == m->cap && grow(m, 2 * m->cap) < 0)
		return -ENOMEM;
	int k = m->n;
	if (radio_init(m, &m->r[k], rc) < 0)
		return -EINVAL;
	m->r[k].idle_since = m->now;
	m->n++;
	link_power_refresh(m, k);
	return k;
}

void medium_set_callbacks(struct medium *m, const struct medium_callbacks *cb)
{
	m->cb = *cb;
}

uint64_t medium_next_event_time(const struct medium *m) { return evq_peek_time(&m->q); }
uint64_t medium_now(const struct medium *m) { return m->now; }
uint64_t medium_events_processed(const struct medium *m) { return m->events; }
uint64_t medium_events_dropped(const struct medium *m) { return m->dead_events; }

/* An event that can do nothing whenever it is dispatched: a cancelled access
 * (its generation is gone; a new one takes a new generation), or an ACK/CTS
 * timeout that is stale or whose radio is already receiving the response (the
 * response's end, or lock_drop's own timeout, decides the attempt). Neither
 * frames enqueued before its time nor anything but another event can revive
 * it, so it may be dropped as soon as it heads the queue. */
static bool event_dead(const struct medium *m, const struct event *e)
{
	const struct radio *r = &m->r[e->radio];
	switch (e->type) {
	case EV_ACCESS:
		return e->gen != r->acc_gen || !r->acc_pending;
	case EV_TIMEOUT:
		return e->gen != r->to_gen || !dcf_timeout_acts(m, e->radio);
	case EV_NAV_RESET:	/* the RTS whose NAV it judges is still the latest */
		return e->gen != r->nav_rts_end || !r->nav_rts_until;
	default:
		return false;
	}
}

uint64_t medium_next_wakeup_time(struct medium *m)
{
	struct event e;
	while (m->q.n && event_dead(m, &m->q.h[0]) && evq_pop(&m->q, &e))
		m->dead_events++;
	return evq_peek_time(&m->q);
}

static void dispatch(struct medium *m, const struct event *e)
{
	if (event_dead(m, e))
		return;
	mobility_sync(m);	/* whatever it does is judged where radios are now */
	switch (e->type) {
	case EV_ACCESS:
		dcf_access(m, e->radio);
		break;
	case EV_TX_START:
		dcf_tx_start_scheduled(m, e->radio, e->ptr);
		break;
	case EV_TX_END:
		phy_tx_end(m, e->ptr);
		break;
	case EV_TIMEOUT:
		dcf_timeout(m, e->radio);
		break;
	case EV_NAV_END:
		phy_update_busy(m, e->radio);
		break;
	case EV_NAV_RESET:
		phy_nav_reset(m, e->radio);
		break;
	}
}

/* The caller's clock may be CLOCK_MONOTONIC: remember where the run began
 * so that busy fractions are over the run, not since boot. */
static void start_clock(struct medium *m, uint64_t now_ns)
{
	if (m->started)
		return;
	m->started = true;
	m->t0 = now_ns;
	if (now_ns > m->now)
		m->now = now_ns;
}

uint64_t medium_advance(struct medium *m, uint64_t now_ns)
{
	start_clock(m, now_ns);
	uint64_t done = 0;
	struct event e;
	m->in_advance++;
	while (evq_peek_time(&m->q) <= now_ns && evq_pop(&m->q, &e)) {
		if (e.time > m->now)
			m->now = e.time;
		m->events++;
		done++;
		dispatch(m, &e);
	}
	m->in_advance--;
	if (now_ns > m->now && !m->in_advance)
		m->now = now_ns;
	if (!m->in_advance)
		mobility_sync(m);	/* link queries between events see now */
	return done;
}

int medium_enqueue(struct medium *m, uint64_t now_ns, int src,
		   const struct medium_frame_info *fi)
{
	if (src < 0 || src >= m->n || !fi)
		return -EINVAL;
	start_clock(m, now_ns);
	/* Outside a callback, bring the medium up to now first; a frame is
	 * never placed earlier than the medium's present. */
	if (!m->in_advance && now_ns > m->now)
		medium_advance(m, now_ns);
	mobility_sync(m);	/* the frame may go on the air at once */
	return dcf_enqueue(m, src, fi);
}

static int check_radio(const struct medium *m, int r) { return r >= 0 && r < m->n; }

int medium_set_position(struct medium *m, int radio, double x, double y, double z)
{
	if (!check_radio(m, radio))
		return -EINVAL;
	if (m->r[radio].n_traj)
		return -EBUSY;	/* the next sync would put it back on its trajectory */
	m->r[radio].cfg.x = x;
	m->r[radio].cfg.y = y;
	m->r[radio].cfg.z = z;
	link_power_refresh(m, radio);
	return 0;
}

int medium_set_txpower(struct medium *m, int radio, double dbm)
{
	if (!check_radio(m, radio))
		return -EINVAL;
	m->r[radio].cfg.txpower_dbm = dbm;
	link_power_refresh(m, radio);
	return 0;
}

int medium_set_retry(struct medium *m, int radio, int retry_short, int retry_long)
{
	if (!check_radio(m, radio) || retry_short < 1 || retry_short > 255 ||
	    retry_long < 1 || retry_long > 255)
		return -EINVAL;
	m->r[radio].cfg.retry_short = retry_short;
	m->r[radio].cfg.retry_long = retry_long;
	return 0;
}

int medium_set_link_override(struct medium *m, int tx, int rx,
			     const struct medium_link_override *ov)
{
	if (!check_radio(m, tx) || !check_radio(m, rx) || tx == rx || !ov)
		return -EINVAL;
	if (ov->per < 0 || ov->per > 1 || ov->kind > MEDIUM_LINK_NONE)
		return -EINVAL;
	m->ov[IDX(m, tx, rx)] = *ov;
	m->mean_dbm[IDX(m, tx, rx)] = link_mean_dbm(m, tx, rx);
	return 0;
}

double medium_rx_power_dbm(const struct medium *m, int tx, int rx)
{
	if (!check_radio(m, tx) || !check_radio(m, rx) || tx == rx)
		return -INFINITY;
	return m->mean_dbm[IDX(m, tx, rx)];
}

double medium_radio_noise_dbm(const struct medium *m, int r)
{
	return check_radio(m, r) ? m->r[r].noise_dbm : NAN;
}
double medium_radio_cs_threshold_dbm(const struct medium *m, int r)
{
	return check_radio(m, r) ? m->r[r].cs_thr_dbm : NAN;
}
double medium_radio_rx_sensitivity_dbm(const struct medium *m, int r)
{
	return check_radio(m, r) ? m->r[r].rx_sens_dbm : NAN;
}

int medium_link_stats(const struct medium *m, int tx, int rx, struct medium_link_stats *out)
{
	if (!check_radio(m, tx) || !check_radio(m, rx))
		return -EINVAL;
	*out = m->ls[IDX(m, tx, rx)];
	return 0;
}

int medium_radio_stats(const struct medium *m, int radio, struct medium_radio_stats *out)
{
	if (!check_radio(m, radio))
		return -EINVAL;
	const struct radio *r = &m->r[radio];
	*out = r->s;
	if (r->busy)
		out->busy_ns += m->now - r->busy_since;
	uint64_t span = m->now - m->t0;
	out->busy_fraction = span ? (double)out->busy_ns / (double)span : 0;
	out->queue_len = r->qlen;
	if (r->qlen > 1)
		out->queue_wait_ns += (uint64_t)(r->qlen - 1) * (m->now - r->q_since);
	out->queue_limit = (uint32_t)r->cfg.queue_limit;
	out->retry_short = r->cfg.retry_short;
	out->retry_long = r->cfg.retry_long;
	return 0;
}

static void mac_str(const uint8_t *a, char *s)
{
	sprintf(s, "%02x:%02x:%02x:%02x:%02x:%02x", a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* A JSON string literal (names may come from the daemon's callers). */
static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

/* The tries histogram without its trailing empty bins: [frames with 1 try, 2, ...]. */
static void tries_json(FILE *out, const uint64_t *tries)
{
	int last = MEDIUM_TRIES_BINS - 1;
	while (last >= 0 && !tries[last])
		last--;
	for (int k = 0; k <= last; k++)
		fprintf(out, "%s%llu", k ? ", " : "", (unsigned long long)tries[k]);
}

int medium_stats_json(const struct medium *m, FILE *out)
{
	char mac[18];
	fprintf(out, "{\"now_ns\": %llu, \"events\": %llu, \"radios\": [",
		(unsigned long long)m->now, (unsigned long long)m->events);
	for (int i = 0; i < m->n; i++) {
		struct medium_radio_stats s;
		medium_radio_stats(m, i, &s);
		mac_str(m->r[i].cfg.mac, mac);
		fprintf(out, "%s\n  {\"index\": %d, \"mac\": \"%s\", \"name\": ",
			i ? "," : "", i, mac);
		json_str(out, m->r[i].cfg.name);
		fprintf(out, ", \"enqueued\": %llu, \"queue_drops\": %llu, \"tx_frames\": %llu, "
			"\"acked\": %llu, \"retry_drops\": %llu, \"limit_drops\": %llu, "
			"\"table_drops\": %llu, \"tx_airtime_ns\": %llu, "
			"\"busy_ns\": %llu, \"nav_resets\": %llu, "
			"\"busy_fraction\": %.6f, \"queue_len\": %u, \"queue_wait_ns\": %llu, "
			"\"queue_limit\": %u, \"retry_short\": %d, \"retry_long\": %d, "
			"\"noise_dbm\": %.2f, \"rx_sensitivity_dbm\": %.2f, \"cs_threshold_dbm\": %.2f, "
			"\"tries\": [",
			(unsigned long long)s.enqueued, (unsigned long long)s.queue_drops,
			(unsigned long long)s.tx_frames, (unsigned long long)s.acked,
			(unsigned long long)s.retry_drops, (unsigned long long)s.limit_drops,
			(unsigned long long)s.table_drops, (unsigned long long)s.tx_airtime_ns,
			(unsigned long long)s.busy_ns, (unsigned long long)s.nav_resets,
			s.busy_fraction, s.queue_len, (unsigned long long)s.queue_wait_ns, s.queue_limit,
			s.retry_short, s.retry_long,
			m->r[i].noise_dbm, m->r[i].rx_sens_dbm, m->r[i].cs_thr_dbm);
		tries_json(out, s.tries);
		/* where it is now (moving radios: on their trajectory), exact */
		fprintf(out, "], \"pos\": [%.17g, %.17g, %.17g]}", m->r[i].cfg.x, m->r[i].cfg.y,
			m->r[i].cfg.z);
	}
	fprintf(out, "\n], \"links\": [");
	int first = 1;
	for (int a = 0; a < m->n; a++)
		for (int b = 0; b < m->n; b++) {
			const struct medium_link_stats *l = &m->ls[IDX(m, a, b)];
			if (a == b || (!l->attempts && !l->delivered && !l->airtime_ns))
				continue;
			fprintf(out, "%s\n  {\"tx\": %d, \"rx\": %d, \"attempts\": %llu, "
				"\"successes\": %llu, \"collisions\": %llu, \"late_collisions\": %llu, "
				"\"rts_failures\": %llu, \"retry_drops\": %llu, "
				"\"airtime_ns\": %llu, \"delivered\": %llu, \"rx_power_dbm\": %.2f}",
				first ? "" : ",", a, b,
				(unsigned long long)l->attempts, (unsigned long long)l->successes,
				(unsigned long long)l->collisions, (unsigned long long)l->late_collisions,
				(unsigned long long)l->rts_failures,
				(unsigned long long)l->retry_drops,
				(unsigned long long)l->airtime_ns, (unsigned long long)l->delivered,
				isfinite(m->mean_dbm[IDX(m, a, b)]) ? m->mean_dbm[IDX(m, a, b)] : -999.0);
			first = 0;
		}
	fprintf(out, "\n]}\n");
	return 0;
}

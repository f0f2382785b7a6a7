/* config.c - the line-based medium config format (docs/medium.md).
 *
 *   # comment
 *   seed 42
 *   propagation two_ray height 1.5
 *   defaults phy b txpower 15 tx_range 250 cs_range 550
 *   radio 02:00:00:00:00:01 name a pos 0 0 1.5
 *   link a b loss 80 per 0.1 oneway
 *   waypoint a 0 0 0 1.5
 *   waypoint a 10 100 0 1.5
 *
 * Each line is a keyword followed by "key value" pairs; errors name the file,
 * line and key.
 *
 * "waypoint RADIO T X Y Z" (RADIO: a name or MAC defined above; T seconds of
 * mobility time >= 0, X Y Z metres) adds one waypoint to the radio's
 * trajectory: a radio with waypoints moves in straight legs at constant speed
 * between consecutive ones, is at the first before it and at the last after
 * it; two at one time are a jump (the later holds), so a radio's times must
 * not decrease from line to line (docs/mobility.md).  Its pos is then only
 * where it would be without them.  One line per waypoint: a trajectory may
 * have thousands, and numbers are read with strtod, so a double written with
 * 17 significant digits (Python's repr) comes back bit for bit. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "airtime.h"
#include "error_model.h"
#include "medium.h"
#include "parse_util.h"

#define MAX_TOK 64

struct parser {
	struct parse_pos pos;	/* first: fail() and num() take the parser */
	struct medium_config *cfg;
	struct medium_radio_config defaults;
};

#define fail(p, ...) parse_fail(&(p)->pos, __VA_ARGS__)
#define num(p, key, s, out) parse_num(&(p)->pos, key, s, out)

static int integer(struct parser *p, const char *key, const char *s, long lo, long hi, long *out)
{
	double d;
	if (num(p, key, s, &d) < 0)
		return -EINVAL;
	if (d != floor(d) || d < lo || d > hi)
		return fail(p, key, "expected an integer in %ld..%ld, got '%s'", lo, hi, s);
	*out = (long)d;
	return 0;
}

int medium_parse_mac(const char *s, uint8_t mac[6])
{
	unsigned v[6];
	char tail;
	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
		   &tail) != 6)
		return -EINVAL;
	for (int i = 0; i < 6; i++) {
		if (v[i] > 255)
			return -EINVAL;
		mac[i] = (uint8_t)v[i];
	}
	return 0;
}

void medium_radio_config_init(struct medium_radio_config *r)
{
	memset(r, 0, sizeof(*r));
	r->txpower_dbm = 15;
	r->phy = MEDIUM_PHY_G;
	r->short_slot = true;
	r->noise_figure_db = NAN;
	r->noise_floor_dbm = NAN;
	r->rx_sensitivity_dbm = NAN;
	r->cs_threshold_dbm = NAN;
	r->capture_threshold_db = NAN;
	r->retry_short = 7;
	r->retry_long = 4;
	r->queue_limit = 50;
}

void medium_config_init(struct medium_config *c)
{
	memset(c, 0, sizeof(*c));
	c->seed = 1;
	c->prop.model = MEDIUM_PROP_FREE_SPACE;
	c->prop.exponent = 2.0;
	c->prop.ref_distance_m = 1.0;
	c->prop.ref_loss_db = NAN;
	c->prop.default_height_m = 1.5;
	c->prop.wall_loss_db = 5.0;
	c->prop.floor_loss_db = 15.0;
	c->prop.floor_height_m = 3.0;
	c->noise_figure_db = 6.0;
	c->capture_threshold_db = 10.0;
	c->rx_sensitivity_dbm = -90.0;
	for (int f = 0; f < MEDIUM_N_MODULATIONS; f++)
		c->interference_weight[f] = default_interference_weight(f);
}

int medium_config_add_radio(struct medium_config *c, const struct medium_radio_config *r)
{
	struct medium_radio_config *n = realloc(c->radios, (c->n_radios + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	c->radios = n;
	c->radios[c->n_radios++] = *r;
	return c->n_radios - 1;
}

int medium_config_add_link(struct medium_config *c, const struct medium_link_config *l)
{
	struct medium_link_config *n = realloc(c->links, (c->n_links + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	c->links = n;
	c->links[c->n_links++] = *l;
	return 0;
}

int medium_config_add_waypoint(struct medium_config *c, int radio,
			       const struct medium_waypoint *w)
{
	if (radio < 0 || radio >= c->n_radios)
		return -EINVAL;
	struct medium_waypoint_config *n = realloc(c->waypoints,
						   (c->n_waypoints + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	c->waypoints = n;
	c->waypoints[c->n_waypoints++] = (struct medium_waypoint_config){ radio, *w };
	return 0;
}

void medium_config_free(struct medium_config *c)
{
	free(c->radios);
	free(c->links);
	free(c->waypoints);
	free(c->prop.walls);
	c->radios = NULL;
	c->links = NULL;
	c->waypoints = NULL;
	c->prop.walls = NULL;
	c->n_radios = c->n_links = c->n_waypoints = c->prop.n_walls = 0;
}

/* basic_rates 1,2,5.5,11 -> bitmask over the phy's rate indices */
static int basic_rates(struct parser *p, enum medium_phy phy, const char *s, uint32_t *mask)
{
	char buf[128];
	*mask = 0;
	if (!s)
		return fail(p, "basic_rates", "missing value");
	snprintf(buf, sizeof buf, "%s", s);
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
		double mbps;
		if (num(p, "basic_rates", tok, &mbps) < 0)
			return -EINVAL;
		int idx = rate_idx_of(phy, (int)lround(mbps * 10));
		if (idx < 0)
			return fail(p, "basic_rates", "%s Mbit/s is not a rate of this phy", tok);
		*mask |= 1u << idx;
	}
	return 0;
}

/* Apply "key value..." pairs to a radio config; returns tokens consumed or <0. */
static int radio_key(struct parser *p, struct medium_radio_config *r, char **t, int n)
{
	const char *k = t[0], *v = n > 1 ? t[1] : NULL;
	double d;
	long l;
	if (!strcmp(k, "name")) {
		if (!v || strlen(v) >= sizeof r->name)
			return fail(p, k, "missing or too long (max %zu chars)", sizeof r->name - 1);
		for (const char *c = v; *c; c++)
			if (!isalnum((unsigned char)*c) && !strchr("-_.", *c))
				return fail(p, k, "use letters, digits, '-', '_', '.' only");
		strcpy(r->name, v);
		return 2;
	}
	if (!strcmp(k, "pos")) {
		if (n < 4)
			return fail(p, k, "expected pos X Y Z");
		if (num(p, k, t[1], &r->x) < 0 || num(p, k, t[2], &r->y) < 0 ||
		    num(p, k, t[3], &r->z) < 0)
			return -EINVAL;
		return 4;
	}
	if (!strcmp(k, "phy")) {
		if (!v)
			return fail(p, k, "missing value");
		if (!strcmp(v, "b")) r->phy = MEDIUM_PHY_B;
		else if (!strcmp(v, "g")) r->phy = MEDIUM_PHY_G;
		else if (!strcmp(v, "a")) r->phy = MEDIUM_PHY_A;
		else return fail(p, k, "'%s' is not one of b, g, a", v);
		return 2;
	}
	if (!strcmp(k, "short_slot")) {
		if (!v || (strcmp(v, "on") && strcmp(v, "off")))
			return fail(p, k, "expected on or off");
		r->short_slot = !strcmp(v, "on");
		return 2;
	}
	if (!strcmp(k, "basic_rates"))
		return basic_rates(p, r->phy, v, &r->basic_rates) < 0 ? -EINVAL : 2;

	static const struct { const char *key; size_t off; } dbl[] = {
		{ "x", offsetof(struct medium_radio_config, x) },
		{ "y", offsetof(struct medium_radio_config, y) },
		{ "z", offsetof(struct medium_radio_config, z) },
		{ "txpower", offsetof(struct medium_radio_config, txpower_dbm) },
		{ "gain", offsetof(struct medium_radio_config, antenna_gain_db) },
		{ "noise_floor", offsetof(struct medium_radio_config, noise_floor_dbm) },
		{ "noise_figure", offsetof(struct medium_radio_config, noise_figure_db) },
		{ "rx_sensitivity", offsetof(struct medium_radio_config, rx_sensitivity_dbm) },
		{ "cs_threshold", offsetof(struct medium_radio_config, cs_threshold_dbm) },
		{ "tx_range", offsetof(struct medium_radio_config, tx_range_m) },
		{ "cs_range", offsetof(struct medium_radio_config, cs_range_m) },
		{ "capture_threshold", offsetof(struct medium_radio_config, capture_threshold_db) },
	};
	for (size_t i = 0; i < sizeof dbl / sizeof dbl[0]; i++)
		if (!strcmp(k, dbl[i].key)) {
			if (num(p, k, v, &d) < 0)
				return -EINVAL;
			*(double *)((char *)r + dbl[i].off) = d;
			return 2;
		}
	if (!strcmp(k, "freq")) {
		if (integer(p, k, v, 2400, 6000, &l) < 0)
			return -EINVAL;
		r->freq_mhz = (uint32_t)l;
		return 2;
	}
	if (!strcmp(k, "retry_short") || !strcmp(k, "retry_long") || !strcmp(k, "queue")) {
		if (integer(p, k, v, !strcmp(k, "queue") ? 0 : 1, 255, &l) < 0)
			return -EINVAL;
		if (!strcmp(k, "retry_short")) r->retry_short = (int)l;
		else if (!strcmp(k, "retry_long")) r->retry_long = (int)l;
		else r->queue_limit = (int)l;
		return 2;
	}
	return fail(p, k, "unknown radio key");
}

static int radio_keys(struct parser *p, struct medium_radio_config *r, char **t, int n)
{
	/* phy first: basic_rates are resolved against the radio's rate table */
	for (int i = 0; i + 1 < n; i++)
		if (!strcmp(t[i], "phy") && radio_key(p, r, t + i, n - i) < 0)
			return -EINVAL;
	for (int i = 0; i < n;) {
		int used = radio_key(p, r, t + i, n - i);
		if (used < 0)
			return used;
		i += used;
	}
	return 0;
}

static int find_radio(struct parser *p, const char *key, const char *s)
{
	uint8_t mac[6];
	bool is_mac = medium_parse_mac(s, mac) == 0;
	for (int i = 0; i < p->cfg->n_radios; i++)
		if (is_mac ? !memcmp(p->cfg->radios[i].mac, mac, 6)
			   : !strcmp(p->cfg->radios[i].name, s))
			return i;
	return fail(p, key, "no radio '%s' defined above this line", s);
}

static int line_propagation(struct parser *p, char **t, int n)
{
	struct medium_propagation *pr = &p->cfg->prop;
	static const char *models[] = { "free_space", "log_distance", "two_ray", "indoor" };
	int i;
	if (n < 2)
		return fail(p, "propagation", "missing model (free_space, log_distance, two_ray, indoor)");
	for (i = 0; i < 4; i++)
		if (!strcmp(t[1], models[i]))
			break;
	if (i == 4)
		return fail(p, "propagation", "unknown model '%s' (free_space, log_distance, two_ray, indoor)", t[1]);
	pr->model = (enum medium_prop_model)i;
	if (pr->model == MEDIUM_PROP_LOG_DISTANCE || pr->model == MEDIUM_PROP_INDOOR)
		if (pr->exponent == 2.0)
			pr->exponent = 3.0;
	static const struct { const char *key; size_t off; } keys[] = {
		{ "exponent", offsetof(struct medium_propagation, exponent) },
		{ "ref_distance", offsetof(struct medium_propagation, ref_distance_m) },
		{ "ref_loss", offsetof(struct medium_propagation, ref_loss_db) },
		{ "system_loss", offsetof(struct medium_propagation, system_loss_db) },
		{ "height", offsetof(struct medium_propagation, default_height_m) },
		{ "wall_loss", offsetof(struct medium_propagation, wall_loss_db) },
		{ "floor_loss", offsetof(struct medium_propagation, floor_loss_db) },
		{ "floor_height", offsetof(struct medium_propagation, floor_height_m) },
	};
	for (int a = 2; a < n; a += 2) {
		size_t k;
		for (k = 0; k < sizeof keys / sizeof keys[0]; k++)
			if (!strcmp(t[a], keys[k].key))
				break;
		if (k == sizeof keys / sizeof keys[0])
			return fail(p, t[a], "unknown propagation key");
		if (num(p, t[a], a + 1 < n ? t[a + 1] : NULL,
			(double *)((char *)pr + keys[k].off)) < 0)
			return -EINVAL;
	}
	if (pr->ref_distance_m <= 0)
		return fail(p, "ref_distance", "must be > 0");
	return 0;
}

static int line_wall(struct parser *p, char **t, int n)
{
	struct medium_wall w = { .loss_db = NAN };
	struct medium_propagation *pr = &p->cfg->prop;
	if (n != 5 && n != 7)
		return fail(p, "wall", "expected wall X1 Y1 X2 Y2 [loss DB]");
	if (num(p, "wall", t[1], &w.x1) < 0 || num(p, "wall", t[2], &w.y1) < 0 ||
	    num(p, "wall", t[3], &w.x2) < 0 || num(p, "wall", t[4], &w.y2) < 0)
		return -EINVAL;
	if (n == 7) {
		if (strcmp(t[5], "loss"))
			return fail(p, t[5], "unknown wall key");
		if (num(p, "loss", t[6], &w.loss_db) < 0)
			return -EINVAL;
	}
	struct medium_wall *nw = realloc(pr->walls, (pr->n_walls + 1) * sizeof(*nw));
	if (!nw)
		return -ENOMEM;
	pr->walls = nw;
	pr->walls[pr->n_walls++] = w;
	return 0;
}

static int line_link(struct parser *p, char **t, int n)
{
	struct medium_link_config l = { 0 };
	bool oneway = false;
	int i;
	if (n < 3)
		return fail(p, "link", "expected link A B (loss DB | snr DB | none | model) [per P] [oneway]");
	if ((l.tx = find_radio(p, "link", t[1])) < 0 || (l.rx = find_radio(p, "link", t[2])) < 0)
		return -EINVAL;
	if (l.tx == l.rx)
		return fail(p, "link", "a radio cannot link to itself");
	for (i = 3; i < n; i++) {
		const char *k = t[i], *v = i + 1 < n ? t[i + 1] : NULL;
		if (!strcmp(k, "loss") || !strcmp(k, "snr")) {
			l.ov.kind = !strcmp(k, "loss") ? MEDIUM_LINK_LOSS_DB : MEDIUM_LINK_SNR_DB;
			if (num(p, k, v, &l.ov.value) < 0)
				return -EINVAL;
			i++;
		} else if (!strcmp(k, "none")) {
			l.ov.kind = MEDIUM_LINK_NONE;
		} else if (!strcmp(k, "model")) {
			l.ov.kind = MEDIUM_LINK_MODEL;
		} else if (!strcmp(k, "per")) {
			if (num(p, k, v, &l.ov.per) < 0)
				return -EINVAL;
			if (l.ov.per < 0 || l.ov.per > 1)
				return fail(p, k, "must be within 0..1");
			i++;
		} else if (!strcmp(k, "oneway")) {
			oneway = true;
		} else {
			return fail(p, k, "unknown link key (loss, snr, none, model, per, oneway)");
		}
	}
	if (medium_config_add_link(p->cfg, &l) < 0)
		return -ENOMEM;
	if (!oneway) {
		int tmp = l.tx;
		l.tx = l.rx;
		l.rx = tmp;
		if (medium_config_add_link(p->cfg, &l) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The time of radio's last waypoint so far, or -1 (none yet).  A radio's
 * waypoints are usually consecutive lines: the scan stops at the first. */
static double last_waypoint_time(const struct medium_config *c, int radio)
{
	for (int i = c->n_waypoints - 1; i >= 0; i--)
		if (c->waypoints[i].radio == radio)
			return c->waypoints[i].w.t_s;
	return -1;
}

/* waypoint RADIO T X Y Z */
static int line_waypoint(struct parser *p, char **t, int n)
{
	struct medium_waypoint w;
	int radio;
	if (n != 6)
		return fail(p, "waypoint", "expected waypoint RADIO T X Y Z (s, m)");
	if ((radio = find_radio(p, "waypoint", t[1])) < 0)
		return -EINVAL;
	if (num(p, "waypoint", t[2], &w.t_s) < 0 || num(p, "waypoint", t[3], &w.x) < 0 ||
	    num(p, "waypoint", t[4], &w.y) < 0 || num(p, "waypoint", t[5], &w.z) < 0)
		return -EINVAL;
	if (w.t_s < 0)
		return fail(p, "waypoint", "time %s s is negative (mobility time starts at 0)",
			    t[2]);
	double last = last_waypoint_time(p->cfg, radio);
	if (w.t_s < last)
		return fail(p, "waypoint", "time %s s of %s is before its previous waypoint's "
			    "%.17g s; a radio's waypoints must be in time order", t[2], t[1], last);
	return medium_config_add_waypoint(p->cfg, radio, &w) < 0 ? -ENOMEM : 0;
}

static int parse_line(struct parser *p, char **t, int n)
{
	struct medium_config *c = p->cfg;
	const char *k = t[0];
	double d;
	if (!strcmp(k, "seed")) {
		char *end;
		if (n != 2)
			return fail(p, k, "expected seed N");
		c->seed = strtoull(t[1], &end, 0);
		if (*end || end == t[1])
			return fail(p, k, "not an unsigned integer: '%s'", t[1]);
		return 0;
	}
	if (!strcmp(k, "noise_figure") || !strcmp(k, "capture_threshold") ||
	    !strcmp(k, "rx_sensitivity")) {
		if (n != 2 || num(p, k, t[1], &d) < 0)
			return n != 2 ? fail(p, k, "expected one value") : -EINVAL;
		if (!strcmp(k, "noise_figure")) c->noise_figure_db = d;
		else if (!strcmp(k, "capture_threshold")) c->capture_threshold_db = d;
		else c->rx_sensitivity_dbm = d;
		return 0;
	}
	if (!strcmp(k, "interference_weight")) {
		/* interference_weight barker|cck|ofdm G */
		static const char *fam[MEDIUM_N_MODULATIONS] = { "barker", "cck", "ofdm" };
		int f = -1;
		if (n != 3)
			return fail(p, k, "expected interference_weight barker|cck|ofdm G");
		for (int i = 0; i < MEDIUM_N_MODULATIONS; i++)
			if (!strcmp(t[1], fam[i]))
				f = i;
		if (f < 0)
			return fail(p, k, "'%s' is not barker, cck or ofdm", t[1]);
		if (num(p, k, t[2], &d) < 0)
			return -EINVAL;
		if (!(d > 0))
			return fail(p, k, "weight must be > 0, got '%s'", t[2]);
		c->interference_weight[f] = d;
		return 0;
	}
	if (!strcmp(k, "rate_loss")) {
		/* rate_loss MBITS DB: receiver implementation loss at one rate */
		int slot;
		if (n != 3)
			return fail(p, k, "expected rate_loss MBITS DB");
		if (num(p, k, t[1], &d) < 0)
			return -EINVAL;
		slot = rate_slot((int)lround(d * 10.0));
		if (slot < 0 || fabs(d * 10.0 - lround(d * 10.0)) > 1e-9)
			return fail(p, k, "'%s' is not a rate (1, 2, 5.5, 11, 6, 9, 12, 18, 24, 36, "
				    "48, 54)", t[1]);
		if (num(p, k, t[2], &d) < 0)
			return -EINVAL;
		if (!(d >= -20.0 && d <= 40.0))
			return fail(p, k, "loss must be -20..40 dB, got '%s'", t[2]);
		c->rate_loss_db[slot] = d;
		return 0;
	}
	if (!strcmp(k, "rts_flags")) {
		if (n != 2 || (strcmp(t[1], "per_entry") && strcmp(t[1], "first_entry")))
			return fail(p, k, "expected per_entry or first_entry");
		c->rts_from_first_entry = !strcmp(t[1], "first_entry");
		return 0;
	}
	if (!strcmp(k, "retry_series")) {
		if (n != 2 || (strcmp(t[1], "kernel") && strcmp(t[1], "single")))
			return fail(p, k, "expected kernel or single");
		c->single_series = !strcmp(t[1], "single");
		return 0;
	}
	if (!strcmp(k, "after_failure")) {
		if (n != 2 || (strcmp(t[1], "eifs") && strcmp(t[1], "ack_timeout")))
			return fail(p, k, "expected eifs or ack_timeout");
		c->after_failure = !strcmp(t[1], "eifs") ? MEDIUM_AFTER_FAILURE_EIFS
							 : MEDIUM_AFTER_FAILURE_ACK_TIMEOUT;
		return 0;
	}
	if (!strcmp(k, "nav_reset")) {
		if (n != 2 || (strcmp(t[1], "off") && strcmp(t[1], "on")))
			return fail(p, k, "expected off or on");
		c->nav_reset = !strcmp(t[1], "on");
		return 0;
	}
	if (!strcmp(k, "propagation"))
		return line_propagation(p, t, n);
	if (!strcmp(k, "wall"))
		return line_wall(p, t, n);
	if (!strcmp(k, "shadowing")) {
		/* shadowing [sigma] SIGMA_DB [seed N] */
		int i = (n >= 3 && !strcmp(t[1], "sigma")) ? 2 : 1;
		int end = n;
		if (n >= i + 3 && !strcmp(t[n - 2], "seed")) {
			char *e;
			c->prop.shadowing_seed = strtoull(t[n - 1], &e, 0);
			if (*e || t[n - 1][0] == '-')
				return fail(p, k, "seed '%s' is not an unsigned integer", t[n - 1]);
			c->prop.has_shadowing_seed = true;
			end = n - 2;
		}
		if (end != i + 1 || num(p, k, t[i], &c->prop.shadowing_sigma_db) < 0)
			return end != i + 1 ? fail(p, k, "expected shadowing SIGMA_DB [seed N]")
					    : -EINVAL;
		return 0;
	}
	if (!strcmp(k, "fading")) {
		if (n < 2)
			return fail(p, k, "expected none, rayleigh or lognormal [sigma DB] [coherence MS]");
		if (!strcmp(t[1], "none")) c->prop.fading = MEDIUM_FADING_NONE;
		else if (!strcmp(t[1], "rayleigh")) c->prop.fading = MEDIUM_FADING_RAYLEIGH;
		else if (!strcmp(t[1], "lognormal")) c->prop.fading = MEDIUM_FADING_LOGNORMAL;
		else return fail(p, k, "'%s' is not none, rayleigh or lognormal", t[1]);
		for (int i = 2; i < n; i += 2) {
			if (i + 1 >= n)
				return fail(p, k, "expected fading MODEL [sigma DB] [coherence MS]");
			if (!strcmp(t[i], "sigma")) {
				if (num(p, "sigma", t[i + 1], &c->prop.fading_sigma_db) < 0)
					return -EINVAL;
			} else if (!strcmp(t[i], "coherence")) {
				if (num(p, "coherence", t[i + 1], &c->prop.fading_coherence_ms) < 0)
					return -EINVAL;
				if (c->prop.fading_coherence_ms < 0)
					return fail(p, k, "coherence must be >= 0 ms (0: per frame)");
			} else
				return fail(p, k, "'%s' is not sigma or coherence", t[i]);
		}
		if (c->prop.fading == MEDIUM_FADING_LOGNORMAL && c->prop.fading_sigma_db <= 0)
			return fail(p, k, "lognormal needs sigma DB");
		return 0;
	}
	if (!strcmp(k, "defaults"))
		return radio_keys(p, &p->defaults, t + 1, n - 1);
	if (!strcmp(k, "radio")) {
		struct medium_radio_config r = p->defaults;
		if (n < 2 || medium_parse_mac(t[1], r.mac) < 0)
			return fail(p, k, "expected radio MAC [key value]..., MAC like 02:00:00:00:00:01");
		if (radio_keys(p, &r, t + 2, n - 2) < 0)
			return -EINVAL;
		for (int i = 0; i < c->n_radios; i++) {
			if (!memcmp(c->radios[i].mac, r.mac, 6))
				return fail(p, k, "duplicate MAC %s", t[1]);
			if (r.name[0] && !strcmp(c->radios[i].name, r.name))
				return fail(p, "name", "duplicate name %s", r.name);
		}
		return medium_config_add_radio(c, &r) < 0 ? -ENOMEM : 0;
	}
	if (!strcmp(k, "link"))
		return line_link(p, t, n);
	if (!strcmp(k, "waypoint"))
		return line_waypoint(p, t, n);
	return fail(p, k, "unknown keyword (seed, noise_figure, capture_threshold, "
		    "rx_sensitivity, interference_weight, rate_loss, rts_flags, retry_series, "
		    "after_failure, nav_reset, propagation, wall, "
		    "shadowing, fading, defaults, radio, link, waypoint)");
}

int medium_config_parse(const char *text, const char *name, struct medium_config *cfg,
			char *err, size_t errlen)
{
	struct parser p = { .pos = { .name = name ? name : "<config>", .err = err, .errlen = errlen },
			    .cfg = cfg };
	medium_config_init(cfg);
	medium_radio_config_init(&p.defaults);
	if (err && errlen)
		err[0] = 0;
	const char *s = text;
	while (*s) {
		const char *e = strchr(s, '\n');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		char buf[1024];
		char *tok[MAX_TOK];
		int n = 0;
		p.pos.line++;
		if (len >= sizeof buf) {
			fail(&p, "line", "longer than %zu characters", sizeof buf - 1);
			goto bad;
		}
		memcpy(buf, s, len);
		buf[len] = 0;
		char *hash = strchr(buf, '#');
		if (hash)
			*hash = 0;
		for (char *t = strtok(buf, " \t\r"); t; t = strtok(NULL, " \t\r")) {
			if (n == MAX_TOK) {
				fail(&p, "line", "more than %d words", MAX_TOK);
				goto bad;
			}
			tok[n++] = t;
		}
		if (n && parse_line(&p, tok, n) < 0)
			goto bad;
		s += len + (e ? 1 : 0);
	}
	return 0;
bad:
	medium_config_free(cfg);
	return -EINVAL;
}

int medium_config_load(const char *path, struct medium_config *cfg, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *text;
	long sz;
	if (!f) {
		medium_config_init(cfg);
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	text = malloc(sz + 1);
	if (!text || fread(text, 1, sz, f) != (size_t)sz) {
		free(text);
		fclose(f);
		medium_config_init(cfg);
		if (err && errlen)
			snprintf(err, errlen, "%s: read error", path);
		return -EIO;
	}
	text[sz] = 0;
	fclose(f);
	int rc = medium_config_parse(text, path, cfg, err, errlen);
	free(text);
	return rc;
}

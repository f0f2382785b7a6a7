/* scenario.c - parser of mediumsim scenario files. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parse_util.h"
#include "scenario.h"

struct sp {
	struct parse_pos pos;
	const struct medium_config *cfg;
};

#define fail(p, ...) parse_fail(&(p)->pos, __VA_ARGS__)
#define num(p, key, s, out) parse_num(&(p)->pos, key, s, out)

static int radio(struct sp *p, const char *s, bool allow_bcast)
{
	uint8_t mac[6];
	if (allow_bcast && !strcmp(s, "broadcast"))
		return -1;
	bool is_mac = medium_parse_mac(s, mac) == 0;
	for (int i = 0; i < p->cfg->n_radios; i++)
		if (is_mac ? !memcmp(p->cfg->radios[i].mac, mac, 6)
			   : !strcmp(p->cfg->radios[i].name, s))
			return i;
	fail(p, "radio", "no radio '%s' in the medium config", s);
	return -2;
}

static int rate_index(struct sp *p, int src, double mbps)
{
	enum medium_phy phy = p->cfg->radios[src].phy;
	for (int i = 0; i < MEDIUM_RATES_2GHZ; i++)
		if (medium_rate_100kbps(phy, i) == (int)lround(mbps * 10))
			return i;
	return fail(p, "rate", "%g Mbit/s is not a rate of the sender's phy", mbps);
}

/* Common "key value" options of flow and frame lines. */
static int options(struct sp *p, char **t, int n, double *rate, bool *rts, bool *sp_,
		   int *count, double *payload, double *overhead, double *start, double *len,
		   double *backlog)
{
	for (int i = 0; i < n; i++) {
		const char *k = t[i], *v = i + 1 < n ? t[i + 1] : NULL;
		double *dst = NULL;
		if (!strcmp(k, "rts")) { *rts = true; continue; }
		if (!strcmp(k, "short_preamble")) { *sp_ = true; continue; }
		if (!strcmp(k, "rate")) dst = rate;
		else if (!strcmp(k, "payload") && payload) dst = payload;
		else if (!strcmp(k, "overhead") && overhead) dst = overhead;
		else if (!strcmp(k, "start") && start) dst = start;
		else if (!strcmp(k, "len") && len) dst = len;
		else if (!strcmp(k, "backlog") && backlog) dst = backlog;
		else if (!strcmp(k, "count")) {
			double c;
			if (num(p, k, v, &c) < 0)
				return -EINVAL;
			if (c < 1 || c > 255 || c != floor(c))
				return fail(p, k, "must be an integer 1..255");
			*count = (int)c;
			i++;
			continue;
		} else
			return fail(p, k, "unknown key");
		if (num(p, k, v, dst) < 0)
			return -EINVAL;
		if (*dst < 0)
			return fail(p, k, "must be >= 0");
		i++;
	}
	return 0;
}

/* waypoint RADIO T X Y Z, as in the medium config */
static int line_waypoint(struct sp *p, struct scenario *sc, char **t, int n)
{
	struct medium_waypoint_config wc;
	if (n != 6)
		return fail(p, "waypoint", "expected waypoint RADIO T X Y Z (s, m)");
	if ((wc.radio = radio(p, t[1], false)) < 0)
		return -EINVAL;
	if (num(p, "waypoint", t[2], &wc.w.t_s) < 0 || num(p, "waypoint", t[3], &wc.w.x) < 0 ||
	    num(p, "waypoint", t[4], &wc.w.y) < 0 || num(p, "waypoint", t[5], &wc.w.z) < 0)
		return -EINVAL;
	if (wc.w.t_s < 0)
		return fail(p, "waypoint", "time %s s is negative (mobility time starts at 0)",
			    t[2]);
	for (int i = sc->n_waypoints - 1; i >= 0; i--)
		if (sc->waypoints[i].radio == wc.radio) {
			if (wc.w.t_s < sc->waypoints[i].w.t_s)
				return fail(p, "waypoint", "time %s s of %s is before its previous "
					    "waypoint's; a radio's waypoints must be in time order",
					    t[2], t[1]);
			break;
		}
	struct medium_waypoint_config *nw = realloc(sc->waypoints,
						    (sc->n_waypoints + 1) * sizeof(*nw));
	if (!nw)
		return -ENOMEM;
	sc->waypoints = nw;
	sc->waypoints[sc->n_waypoints++] = wc;
	return 0;
}

int scenario_apply_waypoints(const struct scenario *sc, struct medium *m)
{
	struct medium_waypoint *w = malloc(((size_t)sc->n_waypoints + 1) * sizeof(*w));
	int rc = 0;
	if (!w)
		return -ENOMEM;
	for (int k = 0; k < medium_radio_count(m) && rc == 0; k++) {
		int n = 0;
		for (int i = 0; i < sc->n_waypoints; i++)
			if (sc->waypoints[i].radio == k)
				w[n++] = sc->waypoints[i].w;
		if (n > 0)
			rc = medium_set_trajectory(m, k, w, n);
	}
	free(w);
	return rc;
}

static int parse_line(struct sp *p, struct scenario *sc, char **t, int n)
{
	const char *k = t[0];
	if (!strcmp(k, "duration") || !strcmp(k, "warmup")) {
		double d;
		if (n != 2 || num(p, k, t[1], &d) < 0 || d < 0)
			return fail(p, k, "expected one non-negative number of seconds");
		*(!strcmp(k, "duration") ? &sc->duration_s : &sc->warmup_s) = d;
		return 0;
	}
	if (!strcmp(k, "seed")) {
		char *end;
		if (n != 2)
			return fail(p, k, "expected seed N");
		sc->seed = strtoull(t[1], &end, 0);
		if (*end)
			return fail(p, k, "not an integer");
		sc->has_seed = true;
		return 0;
	}
	if (!strcmp(k, "flow")) {
		struct flow f = { .count = 255, .backlog = 2 };
		double rate = NAN, payload = 1500, overhead = 36, start = 0, backlog = 2;
		if (n < 3)
			return fail(p, k, "expected flow SRC DST [key value]...");
		if ((f.src = radio(p, t[1], false)) < 0 || (f.dst = radio(p, t[2], true)) < -1)
			return -EINVAL;
		if (options(p, t + 3, n - 3, &rate, &f.rts, &f.short_pre, &f.count, &payload,
			    &overhead, &start, NULL, &backlog) < 0)
			return -EINVAL;
		if (isnan(rate))
			return fail(p, "rate", "missing (Mbit/s)");
		if ((f.rate_idx = rate_index(p, f.src, rate)) < 0)
			return -EINVAL;
		f.rate_mbps = rate;
		f.payload = (uint32_t)payload;
		f.overhead = (uint32_t)overhead;
		f.start_s = start;
		f.backlog = backlog < 1 ? 1 : (int)backlog;
		struct flow *nf = realloc(sc->flows, (sc->n_flows + 1) * sizeof(*nf));
		if (!nf)
			return -ENOMEM;
		sc->flows = nf;
		sc->flows[sc->n_flows++] = f;
		return 0;
	}
	if (!strcmp(k, "frame")) {
		struct inject fr = { .count = 1 };
		double t_us, rate = NAN, len = 100;
		if (n < 4)
			return fail(p, k, "expected frame T_US SRC DST [key value]...");
		if (num(p, "time", t[1], &t_us) < 0)
			return -EINVAL;
		fr.t_ns = (uint64_t)llround(t_us * 1000.0);
		if ((fr.src = radio(p, t[2], false)) < 0 || (fr.dst = radio(p, t[3], true)) < -1)
			return -EINVAL;
		for (int i = 0; i < MEDIUM_MAX_RATES; i++)
			fr.table[i].idx = fr.used[i].idx = -1;
		/* "rates R1xC1,R2xC2,..." is taken out before the common options */
		for (int i = 4; i < n; i++) {
			if (strcmp(t[i], "rates"))
				continue;
			if (i + 1 >= n)
				return fail(p, "rates", "expected rates MBPSxCOUNT[rts][,MBPSxCOUNT[rts]]...");
			char buf[128];
			int e = 0;
			snprintf(buf, sizeof buf, "%s", t[i + 1]);
			for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
				/* MBPSxCOUNT, or MBPSxCOUNTrts: this entry asks for RTS/CTS */
				double mb, c;
				int used = 0;
				if (e == MEDIUM_MAX_RATES ||
				    sscanf(tok, "%lfx%lf%n", &mb, &c, &used) != 2 || c < 1 || c > 255 ||
				    (tok[used] && strcmp(tok + used, "rts")))
					return fail(p, "rates", "bad entry '%s' (at most %d of "
						    "MBPSxCOUNT[rts])", tok, MEDIUM_MAX_RATES);
				int idx = rate_index(p, fr.src, mb);
				if (idx < 0)
					return -EINVAL;
				fr.table[e++] = (struct medium_rate){ (int8_t)idx, (uint8_t)c,
					(uint16_t)(tok[used] ? MEDIUM_RATE_RTS : 0) };
			}
			for (int w = i; w + 2 < n; w++)	/* drop "rates X" from the words */
				t[w] = t[w + 2];
			n -= 2;
			rate = medium_rate_100kbps(p->cfg->radios[fr.src].phy, fr.table[0].idx) / 10.0;
			break;
		}
		if (options(p, t + 4, n - 4, &rate, &fr.rts, &fr.short_pre, &fr.count, NULL,
			    NULL, NULL, &len, NULL) < 0)
			return -EINVAL;
		if (isnan(rate))
			return fail(p, "rate", "missing (Mbit/s)");
		if ((fr.rate_idx = rate_index(p, fr.src, rate)) < 0)
			return -EINVAL;
		if (fr.table[0].idx < 0)
			fr.table[0] = (struct medium_rate){ (int8_t)fr.rate_idx, (uint8_t)fr.count, 0 };
		fr.len = (uint32_t)len;
		struct inject *nf = realloc(sc->frames, (sc->n_frames + 1) * sizeof(*nf));
		if (!nf)
			return -ENOMEM;
		sc->frames = nf;
		sc->frames[sc->n_frames++] = fr;
		return 0;
	}
	if (!strcmp(k, "waypoint"))
		return line_waypoint(p, sc, t, n);
	return fail(p, k, "unknown keyword (duration, warmup, seed, flow, frame, waypoint)");
}

static int cmp_frame(const void *a, const void *b)
{
	const struct inject *x = a, *y = b;
	return x->t_ns < y->t_ns ? -1 : x->t_ns > y->t_ns;
}

int scenario_load(const char *path, const struct medium_config *cfg, struct scenario *sc,
		  char *err, size_t errlen)
{
	struct sp p = { { path, 0, err, errlen }, cfg };
	char line[1024];
	FILE *f = fopen(path, "r");
	memset(sc, 0, sizeof(*sc));
	sc->duration_s = 1;
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof line, f)) {
		char *t[64];
		int n = 0;
		p.pos.line++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		for (char *s = strtok(line, " \t\r\n"); s && n < 64; s = strtok(NULL, " \t\r\n"))
			t[n++] = s;
		if (n && parse_line(&p, sc, t, n) < 0) {
			fclose(f);
			scenario_free(sc);
			return -EINVAL;
		}
	}
	fclose(f);
	qsort(sc->frames, sc->n_frames, sizeof(*sc->frames), cmp_frame);
	return 0;
}

void scenario_free(struct scenario *sc)
{
	for (int i = 0; i < sc->n_flows; i++)
		free(sc->flows[i].iv);
	free(sc->flows);
	free(sc->frames);
	free(sc->waypoints);
	memset(sc, 0, sizeof(*sc));
}

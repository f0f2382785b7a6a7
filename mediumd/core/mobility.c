/* mobility.c - radios that move: each radio with a trajectory is placed at
 * its trajectory's position at the medium's now (docs/mobility.md).
 *
 * Positions change only where the core looks at them: mobility_sync() runs
 * before every event that acts (medium.c, dispatch), before a frame is
 * enqueued and at the end of medium_advance, and returns at once unless the
 * medium's time moved since the last sync.  Only radios whose position
 * changed get their link powers recomputed (their row and column of the
 * power cache, a pair of two moved radios once), so a medium without
 * trajectories pays one comparison per event, and each moving radio at most
 * n path losses per distinct event time.  A PPDU's power at every radio is
 * fixed when it starts (phy.c), so a frame is judged by the geometry at its
 * start, as its fading is.
 *
 * The interpolation is Python's Trajectory.position_at
 * (harness/medium/mobility/trajectory.py) operation for operation, so that a
 * position computed here and there is the same double: the leg is the one
 * with t_i <= t < t_i+1, f = (t - t_i) / (t_i+1 - t_i), each coordinate
 * a + (b - a) f kept between a and b with Python's min/max. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "medium_internal.h"

/* Python rounds every operation; a fused multiply-add (which GCC and clang
 * may form from a + (b - a) * f where the CPU has one) would not. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

/* Python's min(x, y) and max(x, y): the first argument unless the second is
 * strictly smaller (larger); fmin/fmax may pick either of -0.0 and 0.0. */
static double py_min(double x, double y) { return y < x ? y : x; }
static double py_max(double x, double y) { return y > x ? y : x; }

/* a + (b - a) f, kept between a and b (rounding can step one ulp past b). */
static double lerp(double a, double b, double f)
{
	double value = a + (b - a) * f;
	return py_min(py_max(value, py_min(a, b)), py_max(a, b));
}

/* The leg i with w[i].t <= t < w[i+1].t, or -1 before the first waypoint and
 * from the last one on.  Starts from hint, the previous answer: time moves
 * forward by small steps, so this is O(1) per call but for a new origin. */
static int leg_of(const struct medium_waypoint *w, int n, double t, int hint)
{
	if (t < w[0].t_s || t >= w[n - 1].t_s)
		return -1;
	int i = hint >= 0 && hint <= n - 2 ? hint : 0;
	while (w[i].t_s > t)
		i--;
	while (w[i + 1].t_s <= t)	/* equal times: the later waypoint holds */
		i++;
	return i;
}

static void position_on(const struct medium_waypoint *w, int n, double t, int i,
			double *x, double *y, double *z)
{
	if (i < 0) {
		const struct medium_waypoint *p = t < w[0].t_s ? &w[0] : &w[n - 1];
		*x = p->x, *y = p->y, *z = p->z;
		return;
	}
	const struct medium_waypoint *a = &w[i], *b = &w[i + 1];
	double f = (t - a->t_s) / (b->t_s - a->t_s);
	*x = lerp(a->x, b->x, f);
	*y = lerp(a->y, b->y, f);
	*z = lerp(a->z, b->z, f);
}

void medium_trajectory_position(const struct medium_waypoint *w, int n, double t_s,
				double *x, double *y, double *z)
{
	if (n <= 0) {
		*x = *y = *z = NAN;
		return;
	}
	position_on(w, n, t_s, leg_of(w, n, t_s, 0), x, y, z);
}

/* Mobility time of the medium's now, in seconds, computed as Python divides
 * an integer of nanoseconds by 1e9 (exact below 2^53 ns, 104 days). */
static double mobility_time(const struct medium *m)
{
	if (m->now >= m->mob_origin)
		return (double)(m->now - m->mob_origin) / 1e9;
	return -((double)(m->mob_origin - m->now) / 1e9);
}

/* Move r to its trajectory's position at t; true if that changed it. */
static bool place(struct radio *r, double t)
{
	double x, y, z;
	r->leg = leg_of(r->traj, r->n_traj, t, r->leg);
	position_on(r->traj, r->n_traj, t, r->leg, &x, &y, &z);
	bool moved = x != r->cfg.x || y != r->cfg.y || z != r->cfg.z;
	r->cfg.x = x;
	r->cfg.y = y;
	r->cfg.z = z;
	return moved;
}

void mobility_sync(struct medium *m)
{
	if (!m->n_moving || (m->mob_synced && m->mob_at == m->now))
		return;
	m->mob_at = m->now;
	m->mob_synced = true;
	double t = mobility_time(m);
	bool any = false;
	for (int k = 0; k < m->n; k++) {
		struct radio *r = &m->r[k];
		r->moved = r->n_traj > 0 && place(r, t);
		any |= r->moved;
	}
	if (any)
		link_power_refresh_moved(m);
}

/* Waypoints a trajectory may have: finite numbers, times >= 0 that never
 * decrease (the rule of Python's Trajectory). */
static bool valid_waypoints(const struct medium_waypoint *w, int n)
{
	for (int i = 0; i < n; i++) {
		if (!isfinite(w[i].t_s) || !isfinite(w[i].x) || !isfinite(w[i].y) ||
		    !isfinite(w[i].z) || w[i].t_s < 0)
			return false;
		if (i > 0 && w[i].t_s < w[i - 1].t_s)
			return false;
	}
	return true;
}

/* Give r the n waypoints w (copied), or none; keeps n_moving. */
static int adopt(struct medium *m, struct radio *r, const struct medium_waypoint *w, int n)
{
	struct medium_waypoint *copy = NULL;
	if (n > 0) {
		copy = malloc((size_t)n * sizeof(*copy));
		if (!copy)
			return -ENOMEM;
		memcpy(copy, w, (size_t)n * sizeof(*copy));
	}
	m->n_moving += (n > 0) - (r->n_traj > 0);
	free(r->traj);
	r->traj = copy;
	r->n_traj = n;
	r->leg = 0;
	m->mob_synced = false;		/* place it at the next sync */
	return 0;
}

int mobility_load(struct medium *m, const struct medium_config *cfg)
{
	for (int i = 0; i < cfg->n_waypoints; i++)
		if (cfg->waypoints[i].radio < 0 || cfg->waypoints[i].radio >= m->n)
			return -EINVAL;
	struct medium_waypoint *w = malloc(((size_t)cfg->n_waypoints + 1) * sizeof(*w));
	int rc = 0;
	if (!w)
		return -ENOMEM;
	for (int k = 0; k < m->n && rc == 0; k++) {
		int n = 0;
		for (int i = 0; i < cfg->n_waypoints; i++)
			if (cfg->waypoints[i].radio == k)
				w[n++] = cfg->waypoints[i].w;
		if (!valid_waypoints(w, n))
			rc = -EINVAL;
		else if (n > 0)
			rc = adopt(m, &m->r[k], w, n);
	}
	free(w);
	return rc;
}

void mobility_free(struct radio *r)
{
	free(r->traj);
	r->traj = NULL;
	r->n_traj = 0;
}

int medium_set_trajectory(struct medium *m, int radio, const struct medium_waypoint *w, int n)
{
	if (radio < 0 || radio >= m->n || n < 0 || (n > 0 && !w) || !valid_waypoints(w, n))
		return -EINVAL;
	int rc = adopt(m, &m->r[radio], w, n);
	if (rc == 0)
		mobility_sync(m);
	return rc;
}

bool medium_radio_has_trajectory(const struct medium *m, int radio)
{
	return radio >= 0 && radio < m->n && m->r[radio].n_traj > 0;
}

void medium_set_mobility_origin(struct medium *m, uint64_t origin_ns)
{
	m->mob_origin = origin_ns;
	m->mob_synced = false;
	mobility_sync(m);
}

int medium_radio_position(const struct medium *m, int radio, double *x, double *y, double *z)
{
	if (radio < 0 || radio >= m->n)
		return -EINVAL;
	*x = m->r[radio].cfg.x;
	*y = m->r[radio].cfg.y;
	*z = m->r[radio].cfg.z;
	return 0;
}

/* propagation.c - free space (Friis), log-distance, two-ray ground (as in
 * ns-2: Friis up to the crossover distance dc = 4 pi ht hr / lambda, then
 * PL = 40 log10 d - 20 log10(ht hr)), and an indoor model (log-distance +
 * attenuation per wall segment crossed + per floor crossed). */
#include <math.h>
#include <stdlib.h>
#include "propagation.h"

#define C_LIGHT 299792458.0
#define MIN_DIST 0.1	/* m: avoid log(0) for co-located radios */

static double friis_db(double lambda, double d)
{
	return 20.0 * log10(4.0 * M_PI * d / lambda);
}

static double ref_loss(const struct medium_propagation *p, double lambda)
{
	double d0 = p->ref_distance_m > 0 ? p->ref_distance_m : 1.0;
	return isnan(p->ref_loss_db) ? friis_db(lambda, d0) : p->ref_loss_db;
}

static double height(const struct medium_propagation *p, double z)
{
	return z > 0 ? z : (p->default_height_m > 0 ? p->default_height_m : 1.5);
}

double prop_loss_at_distance_db(const struct medium_propagation *p, double freq_mhz,
				double d, double ha, double hb)
{
	double lambda = C_LIGHT / (freq_mhz * 1e6);
	double d0 = p->ref_distance_m > 0 ? p->ref_distance_m : 1.0;
	double pl;
	if (d < MIN_DIST)
		d = MIN_DIST;
	switch (p->model) {
	case MEDIUM_PROP_LOG_DISTANCE:
	case MEDIUM_PROP_INDOOR:
		pl = ref_loss(p, lambda) + (d > d0 ? 10.0 * p->exponent * log10(d / d0) : 0.0);
		break;
	case MEDIUM_PROP_TWO_RAY: {
		double ht = height(p, ha), hr = height(p, hb);
		double dc = 4.0 * M_PI * ht * hr / lambda;
		if (d < dc)
			pl = friis_db(lambda, d);
		else
			pl = 40.0 * log10(d) - 20.0 * log10(ht * hr);
		break;
	}
	case MEDIUM_PROP_FREE_SPACE:
	default:
		pl = friis_db(lambda, d);
		break;
	}
	return pl + p->system_loss_db;
}

/* Do segments (a,b) and (c,d) properly intersect? (2-D orientation test) */
static int crosses(double ax, double ay, double bx, double by,
		   double cx, double cy, double dx, double dy)
{
	double d1 = (dx - cx) * (ay - cy) - (dy - cy) * (ax - cx);
	double d2 = (dx - cx) * (by - cy) - (dy - cy) * (bx - cx);
	double d3 = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
	double d4 = (bx - ax) * (dy - ay) - (by - ay) * (dx - ax);
	return ((d1 > 0) != (d2 > 0)) && d1 != 0 && d2 != 0 &&
	       ((d3 > 0) != (d4 > 0)) && d3 != 0 && d4 != 0;
}

double prop_loss_db(const struct medium_propagation *p, double freq_mhz,
		    struct pos a, struct pos b)
{
	double dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
	double pl;
	if (p->model == MEDIUM_PROP_TWO_RAY)	/* heights enter separately */
		return prop_loss_at_distance_db(p, freq_mhz, sqrt(dx * dx + dy * dy), a.z, b.z);
	pl = prop_loss_at_distance_db(p, freq_mhz, sqrt(dx * dx + dy * dy + dz * dz), 0, 0);
	if (p->model == MEDIUM_PROP_INDOOR) {
		for (int i = 0; i < p->n_walls; i++) {
			const struct medium_wall *w = &p->walls[i];
			if (crosses(a.x, a.y, b.x, b.y, w->x1, w->y1, w->x2, w->y2))
				pl += isnan(w->loss_db) ? p->wall_loss_db : w->loss_db;
		}
		if (p->floor_height_m > 0) {
			long fa = (long)floor(a.z / p->floor_height_m);
			long fb = (long)floor(b.z / p->floor_height_m);
			pl += p->floor_loss_db * (double)labs(fa - fb);
		}
	}
	return pl;
}

double thermal_noise_dbm(enum medium_phy phy, double nf)
{
	/* kT = -174 dBm/Hz at 290 K; bandwidth 22 MHz (DSSS) or 20 MHz (OFDM). */
	double bw = phy == MEDIUM_PHY_B ? 22e6 : 20e6;
	return -174.0 + 10.0 * log10(bw) + nf;
}

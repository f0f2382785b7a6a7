/* propagation.h - mean path loss between two positions. */
#ifndef MEDIUM_PROPAGATION_H
#define MEDIUM_PROPAGATION_H
#include "medium.h"

struct pos { double x, y, z; };

/* Path loss in dB (positive) from a to b at freq_mhz, excluding shadowing
 * and fading; includes walls and floors for the indoor model. */
double prop_loss_db(const struct medium_propagation *p, double freq_mhz,
		    struct pos a, struct pos b);
/* Path loss at horizontal distance d for antennas at heights ha, hb
 * (no walls/floors): used to turn a stated range into a threshold. */
double prop_loss_at_distance_db(const struct medium_propagation *p, double freq_mhz,
				double d, double ha, double hb);
/* Thermal noise over the channel bandwidth plus noise figure, dBm. */
double thermal_noise_dbm(enum medium_phy phy, double noise_figure_db);
#endif

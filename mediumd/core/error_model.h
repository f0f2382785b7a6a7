/* error_model.h - bit error rate per 802.11 rate as a function of SINR. */
#ifndef MEDIUM_ERROR_MODEL_H
#define MEDIUM_ERROR_MODEL_H

/* BER (0..0.5) of a bit sent at kbps100 (10 = 1 Mbit/s ... 540 = 54 Mbit/s)
 * with a linear SINR measured over the channel bandwidth. */
double ber_for_rate(int kbps100, double sinr);
/* Default weight (a medium's config may change it) of interference relative to
 * noise in the SINR a modulation family's BER formula (enum medium_modulation)
 * expects: S / (N + G I).  DSSS/CCK BER formulas include the despreading gain
 * (22 for Barker, 16 for CCK symbols); another 802.11 PPDU uses the same
 * Barker code, so it gets no despreading gain (G = 22), and a CCK codeword
 * suppresses another by its 8 chips on average (G = 16 / 8 = 2).  OFDM: G = 1
 * (interference is noise-like). */
double default_interference_weight(int family);
/* The modulation family (enum medium_modulation) of a rate. */
int modulation_of(int kbps100);
/* The rate's slot 0..MEDIUM_N_RATES-1 (medium.h's order), -1 if not a legacy rate. */
int rate_slot(int kbps100);
/* The SINR a rate's BER formula sees after the receiver's implementation loss
 * (loss_db per slot, medium_config.rate_loss_db). */
double sinr_after_loss(const double *loss_db, int kbps100, double sinr);
/* Probability that n_bits all survive at that BER. */
double chunk_success(double ber, double n_bits);
#endif

/* error_model.h - bit error rate per 802.11 rate as a function of SINR. */
#ifndef MEDIUM_ERROR_MODEL_H
#define MEDIUM_ERROR_MODEL_H

/* BER (0..0.5) of a bit sent at kbps100 (10 = 1 Mbit/s ... 540 = 54 Mbit/s)
 * with a linear SINR measured over the channel bandwidth. */
double ber_for_rate(int kbps100, double sinr);
/* Probability that n_bits all survive at that BER. */
double chunk_success(double ber, double n_bits);
#endif

/* error_model.c - BER approximations written from textbook formulas.
 *
 * DSSS/CCK (SINR over 22 MHz, chip rate 11 Mchip/s):
 *   1 Mbit/s DBPSK:  BER = 1/2 exp(-Eb/N0),  Eb/N0 = SINR * 22/1
 *   2 Mbit/s DQPSK:  BER = Q(sqrt(2 * 0.586 * Eb/N0)), Eb/N0 = SINR * 22/2
 *                    (coherent QPSK with the ~2.3 dB differential-detection loss)
 *   5.5 Mbit/s CCK:  16 near-orthogonal codewords of 8 chips, Es/N0 = 16 SINR:
 *                    union bound BER <= (M/2) Q(sqrt(Es/N0)), M = 16
 *   11 Mbit/s CCK:   256 codewords, minimum distance^2 = Es (half of
 *                    orthogonal), ~24 nearest neighbours, 8 bits/symbol:
 *                    BER ~ 6 Q(sqrt(Es/(2 N0))), Es/N0 = 16 SINR
 * OFDM (SINR taken as Es/N0 per subcarrier):
 *   raw BER p: BPSK Q(sqrt(2 g)), QPSK Q(sqrt(g)),
 *              M-QAM (4/k)(1 - 1/sqrt M) Q(sqrt(3 g / (M - 1))), k = log2 M
 *   convolutional code K=7 (133,171), rates 1/2, 2/3, 3/4 (punctured),
 *   hard-decision Viterbi union bound  BER <= (1/k_c) sum_d c_d P2(d),
 *   P2(d) = probability that more than d/2 of d code bits are wrong;
 *   c_d = information-weight spectra published for these codes
 *   (Haccoun & Begin 1989; Frenger et al. 1999), first 5 terms. */
#include <math.h>
#include "error_model.h"
#include "medium.h"

static double qfunc(double x) { return 0.5 * erfc(x / M_SQRT2); }

static double cap(double b) { return b > 0.5 ? 0.5 : (b < 0 ? 0 : b); }

static double binom(int n, int k)
{
	double r = 1;
	for (int i = 1; i <= k; i++)
		r = r * (n - k + i) / i;
	return r;
}

/* Probability that a hard-decision decoder prefers a path at distance d:
 * more than d/2 of d code bits wrong (ties count half). */
static double p2(int d, double p)
{
	double s = 0, q = 1 - p;
	for (int k = d / 2 + 1; k <= d; k++)
		s += binom(d, k) * pow(p, k) * pow(q, d - k);
	if (d % 2 == 0)
		s += 0.5 * binom(d, d / 2) * pow(p * q, d / 2);
	return s;
}

struct code { int dfree, kc; double c[5]; };
static const struct code code_12 = { 10, 1, { 36, 0, 211, 0, 1404 } };
static const struct code code_23 = { 6, 2, { 1, 16, 48, 158, 642 } };
static const struct code code_34 = { 5, 3, { 8, 31, 160, 892, 4512 } };

static double coded_ber(const struct code *c, double p)
{
	double s = 0;
	if (p < 1e-7)
		return 0;	/* below 1e-19 per bit even for the rate-3/4 code */
	for (int i = 0; i < 5; i++)
		if (c->c[i] > 0)
			s += c->c[i] * p2(c->dfree + i, p);
	return cap(s / c->kc);
}

static double qam_raw(int m, double g)
{
	double k = log2(m);
	return cap((4.0 / k) * (1.0 - 1.0 / sqrt(m)) * qfunc(sqrt(3.0 * g / (m - 1))));
}

double ber_for_rate(int kbps100, double sinr)
{
	if (sinr <= 0)
		return 0.5;
	switch (kbps100) {
	case 10: return cap(0.5 * exp(-sinr * 22.0));
	case 20: return cap(qfunc(sqrt(2.0 * 0.586 * sinr * 11.0)));
	case 55: return cap(8.0 * qfunc(sqrt(16.0 * sinr)));
	case 110: return cap(6.0 * qfunc(sqrt(8.0 * sinr)));
	case 60: return coded_ber(&code_12, qfunc(sqrt(2 * sinr)));
	case 90: return coded_ber(&code_34, qfunc(sqrt(2 * sinr)));
	case 120: return coded_ber(&code_12, qfunc(sqrt(sinr)));
	case 180: return coded_ber(&code_34, qfunc(sqrt(sinr)));
	case 240: return coded_ber(&code_12, qam_raw(16, sinr));
	case 360: return coded_ber(&code_34, qam_raw(16, sinr));
	case 480: return coded_ber(&code_23, qam_raw(64, sinr));
	case 540: return coded_ber(&code_34, qam_raw(64, sinr));
	}
	return 0.5;
}

int modulation_of(int kbps100)
{
	switch (kbps100) {
	case 10: case 20: return MEDIUM_MOD_BARKER;
	case 55: case 110: return MEDIUM_MOD_CCK;
	default: return MEDIUM_MOD_OFDM;
	}
}

int rate_slot(int kbps100)
{
	static const int order[MEDIUM_N_RATES] = { 10, 20, 55, 110, 60, 90, 120, 180, 240, 360,
						   480, 540 };
	for (int k = 0; k < MEDIUM_N_RATES; k++)
		if (order[k] == kbps100)
			return k;
	return -1;
}

double sinr_after_loss(const double *loss_db, int kbps100, double sinr)
{
	int k = rate_slot(kbps100);
	if (k < 0 || loss_db[k] == 0.0)
		return sinr;
	return sinr * pow(10.0, -loss_db[k] / 10.0);
}

double default_interference_weight(int family)
{
	static const double g[MEDIUM_N_MODULATIONS] = { 22.0, 2.0, 1.0 };
	return g[family];
}

double chunk_success(double ber, double n_bits)
{
	if (n_bits <= 0 || ber <= 0)
		return 1.0;
	if (ber >= 0.5)
		return n_bits >= 1 ? 0.0 : 1.0;
	return exp(n_bits * log1p(-ber));
}

/* links.c - the medium's link table: what one frame does on each directed link
 * when nothing else is on the air.
 *
 * The probability that rx decodes a frame from tx is the one phy.c draws for a
 * frame alone on the air: the frame's power (mean link power + the per-frame
 * fading draw) must reach rx's sensitivity to be locked onto, and then its PLCP
 * header and payload bits survive with (1 - BER(SNR))^bits; a link override's
 * forced loss `per` comes on top.  Here that probability is averaged over the
 * fading distribution by quadrature instead of drawn, so routing and tests can
 * read delivery ratios (ETX) without running traffic. */
#include <math.h>
#include "error_model.h"
#include "medium_internal.h"

/* P(decode | fading offset x dB) for a frame of the given airtime parts. */
static double decode_prob(const struct radio *r, const double *loss, double p_dbm,
			  double hdr_bits, int hdr_kbps100, double pay_bits, int kbps100)
{
	if (p_dbm < r->rx_sens_dbm)
		return 0.0;
	double snr = pow(10.0, (p_dbm - r->noise_dbm) / 10.0);
	double logok = 0.0;
	if (hdr_bits > 0)
		logok += hdr_bits * log1p(-ber_for_rate(hdr_kbps100,
							 sinr_after_loss(loss, hdr_kbps100, snr)));
	if (pay_bits > 0)
		logok += pay_bits * log1p(-ber_for_rate(kbps100, sinr_after_loss(loss, kbps100, snr)));
	return exp(logok);
}

/* Expectation of f(offset) over the medium's per-frame fading (dB offsets). */
#define QUAD_STEPS 2400
struct frame_parts {
	double hdr_bits, pay_bits;
	int hdr_kbps100, kbps100;
};

static double over_fading(const struct medium *m, const struct radio *r, double mean_dbm,
			  const struct frame_parts *fp, bool sense)
{
	const struct medium_propagation *pr = &m->cfg.prop;
	double sum = 0.0, wsum = 0.0;
	int steps = pr->fading == MEDIUM_FADING_NONE ? 1 : QUAD_STEPS;
	for (int k = 0; k < steps; k++) {
		double x = 0.0, w = 1.0;
		if (pr->fading == MEDIUM_FADING_LOGNORMAL) {
			/* z on [-8, 8]: weight = standard normal density */
			double z = -8.0 + 16.0 * (k + 0.5) / steps;
			x = pr->fading_sigma_db * z;
			w = exp(-0.5 * z * z);
		} else if (pr->fading == MEDIUM_FADING_RAYLEIGH) {
			/* t = ln g on [-20, 4]: g ~ Exp(1) has density e^t exp(-e^t) in t;
			 * phy.c's offset is 10 log10(g + 1e-12) */
			double t = -20.0 + 24.0 * (k + 0.5) / steps;
			double g = exp(t);
			x = 10.0 * log10(g + 1e-12);
			w = g * exp(-g);
		}
		double p = mean_dbm + x;
		double f = sense ? (p >= r->cs_thr_dbm ? 1.0 : 0.0)
				 : decode_prob(r, m->cfg.rate_loss_db, p, fp->hdr_bits,
					       fp->hdr_kbps100, fp->pay_bits, fp->kbps100);
		sum += w * f;
		wsum += w;
	}
	return wsum > 0 ? sum / wsum : 0.0;
}

static bool hears(const struct medium *m, int tx, int rx)
{
	return tx != rx && tx >= 0 && rx >= 0 && tx < m->n && rx < m->n &&
	       m->r[tx].cfg.freq_mhz == m->r[rx].cfg.freq_mhz &&
	       isfinite(m->mean_dbm[IDX(m, tx, rx)]);
}

double medium_link_delivery(const struct medium *m, int tx, int rx, int rate_idx,
			    uint32_t len, bool short_pre)
{
	if (!hears(m, tx, rx))
		return 0.0;
	const struct radio *t = &m->r[tx], *r = &m->r[rx];
	const struct rate_info *ri = rate_get(t->cfg.phy, rate_idx);
	if (!ri || (ri->cls == MOD_OFDM && r->cfg.phy == MEDIUM_PHY_B))
		return 0.0;
	uint64_t sync, hdr, end = medium_airtime_ns(t->cfg.phy, rate_idx, short_pre, len);
	struct frame_parts fp = { 0 };
	plcp_parts(t->cfg.phy, rate_idx, short_pre, &sync, &hdr, &fp.hdr_kbps100);
	uint64_t data_end = end - (ri->cls == MOD_OFDM && t->cfg.phy == MEDIUM_PHY_G ? 6 * US : 0);
	/* bits = ns * kbps100 / 10^4, as phy.c counts them */
	fp.hdr_bits = (double)hdr * fp.hdr_kbps100 / 1e4;
	fp.kbps100 = ri->kbps100;
	fp.pay_bits = (double)(data_end - (sync + hdr)) * fp.kbps100 / 1e4;
	double p = over_fading(m, r, m->mean_dbm[IDX(m, tx, rx)], &fp, false);
	double per = m->ov[IDX(m, tx, rx)].per;
	return per > 0 ? p * (1.0 - per) : p;
}

double medium_link_sensed(const struct medium *m, int tx, int rx)
{
	if (!hears(m, tx, rx))
		return 0.0;
	return over_fading(m, &m->r[rx], m->mean_dbm[IDX(m, tx, rx)], NULL, true);
}

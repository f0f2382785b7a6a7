/* airtime.c - exact PPDU durations and per-PHY DCF timing.
 *
 * DSSS/CCK (clauses 16/17): PLCP = 144 us preamble + 48 us header at 1 Mbit/s
 * (long, 192 us) or 72 us + 24 us at 2 Mbit/s (short, 96 us; not allowed at
 * 1 Mbit/s).  PSDU time = ceil(8 * len / rate) us.
 * OFDM (clause 18): 16 us preamble + 4 us SIGNAL + 4 us per symbol,
 * N_sym = ceil((16 service + 8 * len + 6 tail) / N_DBPS).  ERP-OFDM (clause 19,
 * phy g) appends a 6 us signal extension so that the 10 us SIFS works. */
#include <stddef.h>
#include "airtime.h"

static const struct rate_info rates_2ghz[MEDIUM_RATES_2GHZ] = {
	{ 10, MOD_DSSS, 0, true }, { 20, MOD_DSSS, 0, true },
	{ 55, MOD_DSSS, 0, true }, { 110, MOD_DSSS, 0, true },
	{ 60, MOD_OFDM, 24, true }, { 90, MOD_OFDM, 36, false },
	{ 120, MOD_OFDM, 48, true }, { 180, MOD_OFDM, 72, false },
	{ 240, MOD_OFDM, 96, true }, { 360, MOD_OFDM, 144, false },
	{ 480, MOD_OFDM, 192, false }, { 540, MOD_OFDM, 216, false },
};

const struct rate_info *rate_get(enum medium_phy phy, int idx)
{
	if (idx < 0)
		return NULL;
	switch (phy) {
	case MEDIUM_PHY_B: return idx < 4 ? &rates_2ghz[idx] : NULL;
	case MEDIUM_PHY_G: return idx < MEDIUM_RATES_2GHZ ? &rates_2ghz[idx] : NULL;
	case MEDIUM_PHY_A: return idx < MEDIUM_RATES_5GHZ ? &rates_2ghz[idx + 4] : NULL;
	}
	return NULL;
}

int rate_count(enum medium_phy phy)
{
	return phy == MEDIUM_PHY_B ? 4 : phy == MEDIUM_PHY_G ? MEDIUM_RATES_2GHZ
							    : MEDIUM_RATES_5GHZ;
}

int rate_idx_of(enum medium_phy phy, int kbps100)
{
	for (int i = 0; i < rate_count(phy); i++)
		if (rate_get(phy, i)->kbps100 == kbps100)
			return i;
	return -1;
}

int medium_rate_100kbps(enum medium_phy phy, int idx)
{
	const struct rate_info *ri = rate_get(phy, idx);
	return ri ? ri->kbps100 : -1;
}

void phy_timing_get(enum medium_phy phy, bool short_slot, struct phy_timing *t)
{
	/* EIFS = SIFS + DIFS + ACK time at the PHY's lowest mandatory rate:
	 * 1 Mbit/s long preamble (304 us) on 2.4 GHz, 6 Mbit/s (44 us) on 5 GHz. */
	switch (phy) {
	case MEDIUM_PHY_A:
		*t = (struct phy_timing){ 9 * US, 16 * US, 34 * US, 0, 15, 1023, false };
		t->eifs = t->sifs + t->difs + 44 * US;
		return;
	case MEDIUM_PHY_G:
		if (short_slot)
			*t = (struct phy_timing){ 9 * US, 10 * US, 28 * US, 0, 15, 1023, true };
		else
			*t = (struct phy_timing){ 20 * US, 10 * US, 50 * US, 0, 31, 1023, true };
		break;
	case MEDIUM_PHY_B:
	default:
		*t = (struct phy_timing){ 20 * US, 10 * US, 50 * US, 0, 31, 1023, false };
		break;
	}
	t->eifs = t->sifs + t->difs + 304 * US;
}

uint32_t phy_default_basic_rates(enum medium_phy phy)
{
	switch (phy) {
	case MEDIUM_PHY_B: return 0x3;		/* 1, 2                     */
	case MEDIUM_PHY_G: return 0x15f;	/* 1, 2, 5.5, 11, 6, 12, 24 */
	case MEDIUM_PHY_A: return 0x15;		/* 6, 12, 24                */
	}
	return 0;
}

int control_rate_idx(enum medium_phy phy, uint32_t basic, int data_idx)
{
	const struct rate_info *d = rate_get(phy, data_idx);
	int best = -1, best_mand = -1;
	if (!d)
		return -1;
	for (int i = 0; i < rate_count(phy); i++) {
		const struct rate_info *ri = rate_get(phy, i);
		if (ri->cls != d->cls || ri->kbps100 > d->kbps100)
			continue;
		if ((basic >> i) & 1)
			if (best < 0 || ri->kbps100 > rate_get(phy, best)->kbps100)
				best = i;
		if (ri->mandatory)
			if (best_mand < 0 || ri->kbps100 > rate_get(phy, best_mand)->kbps100)
				best_mand = i;
	}
	return best >= 0 ? best : best_mand;
}

void plcp_parts(enum medium_phy phy, int idx, bool short_pre,
		uint64_t *sync_ns, uint64_t *hdr_ns, int *hdr_kbps100)
{
	const struct rate_info *ri = rate_get(phy, idx);
	if (ri && ri->cls == MOD_OFDM) {
		*sync_ns = 16 * US; *hdr_ns = 4 * US; *hdr_kbps100 = 60;
	} else if (short_pre && ri && ri->kbps100 > 10) {
		*sync_ns = 72 * US; *hdr_ns = 24 * US; *hdr_kbps100 = 20;
	} else {
		*sync_ns = 144 * US; *hdr_ns = 48 * US; *hdr_kbps100 = 10;
	}
}

uint64_t medium_airtime_ns(enum medium_phy phy, int idx, bool short_pre, uint32_t len)
{
	const struct rate_info *ri = rate_get(phy, idx);
	uint64_t sync, hdr;
	int hk;
	if (!ri)
		return 0;
	plcp_parts(phy, idx, short_pre, &sync, &hdr, &hk);
	if (ri->cls == MOD_OFDM) {
		uint64_t bits = 16 + 8ULL * len + 6;
		uint64_t nsym = (bits + ri->ndbps - 1) / ri->ndbps;
		return sync + hdr + nsym * 4 * US + (phy == MEDIUM_PHY_G ? 6 * US : 0);
	}
	/* PSDU at kbps100/10 Mbit/s: ceil(8 len * 10 / kbps100) us. */
	uint64_t us = (80ULL * len + ri->kbps100 - 1) / ri->kbps100;
	return sync + hdr + us * US;
}

uint64_t rx_start_delay(enum medium_phy phy, int idx, bool short_pre)
{
	const struct rate_info *ri = rate_get(phy, idx);
	if (ri && ri->cls == MOD_OFDM)
		return 25 * US;
	return (short_pre && ri && ri->kbps100 > 10) ? 96 * US : 192 * US;
}

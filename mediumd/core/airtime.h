/* airtime.h - 802.11b/g/a rate tables, PPDU durations and DCF timing
 * (IEEE 802.11-2012 clauses 16 DSSS, 17 HR/DSSS, 18 OFDM, 19 ERP). */
#ifndef MEDIUM_AIRTIME_H
#define MEDIUM_AIRTIME_H
#include <stdbool.h>
#include <stdint.h>
#include "medium.h"

#define US 1000ULL	/* ns per microsecond */

enum mod_class { MOD_DSSS, MOD_OFDM };

/* One entry of a band's legacy rate table. */
struct rate_info {
	int kbps100;		/* rate in 100 kbit/s                      */
	enum mod_class cls;
	int ndbps;		/* OFDM data bits per symbol, 0 for DSSS    */
	bool mandatory;		/* mandatory for its class (control rates) */
};

/* DCF timing of a radio, in ns. */
struct phy_timing {
	uint64_t slot, sifs, difs, eifs;
	int cw_min, cw_max;
	bool erp;		/* phy g: OFDM PPDUs carry a 6 us signal extension */
};

/* Rate table entry or NULL if rate_idx is invalid for phy. */
const struct rate_info *rate_get(enum medium_phy phy, int rate_idx);
int  rate_count(enum medium_phy phy);
/* Rate index with the given rate on this phy, -1 if none. */
int  rate_idx_of(enum medium_phy phy, int kbps100);
void phy_timing_get(enum medium_phy phy, bool short_slot, struct phy_timing *t);
/* Default BSS basic rate set (bitmask over rate indices). */
uint32_t phy_default_basic_rates(enum medium_phy phy);
/* Rate for a control response (ACK, CTS) or RTS to a frame sent at data_idx:
 * highest basic rate <= data rate of the same modulation class, else the
 * highest mandatory rate of that class <= data rate (802.11-2012 9.7.6.5.2). */
int  control_rate_idx(enum medium_phy phy, uint32_t basic, int data_idx);
/* PLCP header portion: [start+sync_ns, start+sync_ns+hdr_ns) is sent at
 * hdr_kbps100; the payload follows at the frame's rate. */
void plcp_parts(enum medium_phy phy, int rate_idx, bool short_pre,
		uint64_t *sync_ns, uint64_t *hdr_ns, int *hdr_kbps100);

/* aPHY-RX-START-Delay: DSSS 192 us (long) / 96 us (short), OFDM 25 us. */
uint64_t rx_start_delay(enum medium_phy phy, int rate_idx, bool short_pre);

#define ACK_LEN 14
#define CTS_LEN 14
#define RTS_LEN 20
#endif

/* medium_internal.h - state shared by the core's files (not public).
 *
 *   medium.c  construction, run-time changes, link power cache, stats, API
 *   phy.c     PPDUs on the air: power at each radio, carrier sense, preamble
 *             lock/capture, SINR chunks, reception outcome
 *   dcf.c     per-radio DCF: queue, DIFS/EIFS, backoff, RTS/CTS/DATA/ACK
 *             exchange, retries, tx status
 *   mobility.c trajectories: each moving radio's position at the medium's now
 */
#ifndef MEDIUM_INTERNAL_H
#define MEDIUM_INTERNAL_H
#include "medium.h"
#include "airtime.h"
#include "events.h"
#include "propagation.h"
#include "rng.h"

/* A frame handed to a radio by the caller (queue entry). */
struct frame {
	struct medium_frame_info fi;
	int      dst;			/* radio index, -1 broadcast/unknown  */
	bool     bcast, no_ack;
	uint64_t serial;		/* unique per medium                   */
	uint64_t enqueue_ns;
	uint8_t  used[MEDIUM_MAX_RATES];	/* tries used per rate entry  */
	int      entry;			/* current rate-table entry            */
	int      src_cnt, lrc_cnt;	/* short / long retry counters         */
	bool     delivered;		/* receiver's duplicate filter         */
	struct frame *next;
};

/* A PPDU on (or scheduled for) the air. */
struct tx {
	int      src, dst;		/* dst -1: broadcast / nobody          */
	enum medium_air_kind kind;
	int      rate_idx, kbps100, hdr_kbps100;
	bool     ofdm, short_pre;
	uint32_t len;
	uint64_t start, end;
	uint64_t hdr_start, hdr_end, data_end;	/* bit-carrying parts     */
	uint64_t nav_ns;		/* Duration field: NAV after end       */
	struct frame *frame;		/* DATA only: the frame carried        */
	uint64_t frame_serial;		/* exchange this PPDU belongs to       */
	uint64_t attempt;		/* sender's attempt serial             */
	bool     overlap;		/* overlapped another PPDU at dst      */
	bool     overlap_early;		/* ... one already on air when it began */
	double  *p_dbm, *p_mw;		/* received power at every radio       */
	uint8_t *cs;			/* counted in radio's cs_count         */
};

enum dcf_state {
	D_IDLE,		/* no frame (a post-backoff may still be counting) */
	D_CONTEND,	/* head frame waits for DIFS/EIFS + backoff        */
	D_TX,		/* own RTS or DATA on air                          */
	D_WAIT_CTS,
	D_WAIT_DATA,	/* CTS received, DATA goes out after SIFS          */
	D_WAIT_ACK,
};

struct radio {
	struct medium_radio_config cfg;
	struct phy_timing tm;
	uint32_t basic;
	double   noise_dbm, noise_mw, rx_sens_dbm, cs_thr_dbm, capture_db;
	uint8_t (*alias)[6];
	int      n_alias;

	/* queue: head is the frame in service */
	struct frame *qhead, *qtail;
	int      qlen;
	uint64_t q_since;		/* when qlen last changed (queue_wait_ns) */

	/* DCF */
	enum dcf_state st;
	int      cw;
	int      bo_slots;		/* backoff slots left (0 = none)       */
	bool     eifs;			/* last reception was in error         */
	uint64_t acc_gen, acc_time;
	bool     acc_pending;
	uint64_t to_gen;		/* timeout generation                  */
	uint64_t resume_min;		/* countdown not before (ACKTimeout mode) */
	uint64_t fail_resume;		/* ... set to this if the attempt fails   */
	uint64_t attempt;		/* attempt serial (matches responses)  */
	bool     attempt_rts;		/* current attempt uses RTS/CTS        */
	struct tx *att_tx;		/* current attempt's RTS/DATA PPDU     */
	bool     att_overlap;		/* its overlap flag, copied at tx end  */
	bool     att_overlap_early;	/* and overlap_early                   */

	/* carrier sense */
	bool     busy;
	uint64_t idle_since, busy_since;
	int      cs_count;		/* PPDUs on air above cs threshold     */
	uint64_t nav_until;
	uint64_t nav_before_rts;	/* NAV before an overheard RTS set it  */
	uint64_t nav_rts_until;		/* the NAV that RTS set (0: none)      */
	uint64_t nav_rts_end;		/* that RTS's end                      */
	uint64_t last_rx_start;		/* start of the last PPDU it detected  */
	struct tx *tx_cur;		/* own PPDU on air                     */

	/* reception lock */
	struct tx *lock;
	uint64_t lock_last;
	double   lock_logok, lock_min_sinr;
	/* last BER evaluated per rate: the SINR rarely changes between chunks */
	double   ber_sinr[16][2], ber_val[16][2];

	struct medium_radio_stats s;

	/* mobility (mobility.c): n_traj = 0 for a radio that stays put */
	struct medium_waypoint *traj;
	int      n_traj;
	int      leg;			/* leg of the last lookup (time mostly grows) */
	bool     moved;			/* position changed at the last sync   */
};

/* A radio pair's fade under time-correlated fading (coherence > 0):
 * two N(0, 1) components drawn at `at` (ns); lognormal uses a, Rayleigh
 * |h|^2 = (a^2 + b^2) / 2. */
struct fade {
	uint64_t at;
	double   a, b;
	bool     set;
};

struct medium {
	struct medium_config cfg;	/* propagation + globals (radios/links unused) */
	struct radio *r;
	int      n, cap;
	double  *mean_dbm;		/* [tx * cap + rx] mean received power */
	struct medium_link_override *ov;	/* [tx * cap + rx]            */
	struct medium_link_stats *ls;		/* [tx * cap + rx]            */
	struct fade *fade;			/* [lo * cap + hi], lo < hi    */
	struct tx **active;
	int      n_active, cap_active;
	struct evq q;
	struct rng rng;
	uint64_t now;
	uint64_t t0;			/* first time the caller gave us   */
	bool     started;
	uint64_t events;
	uint64_t dead_events;		/* dropped by medium_next_wakeup_time */
	int      in_advance;		/* inside medium_advance (callbacks)  */
	uint64_t frame_serial;
	struct medium_callbacks cb;
	/* mobility: positions are the trajectories' at mob_at (if mob_synced) */
	int      n_moving;		/* radios with a trajectory           */
	uint64_t mob_origin;		/* caller's clock at mobility time 0  */
	uint64_t mob_at;
	bool     mob_synced;
};

#define IDX(m, a, b) ((size_t)(a) * (size_t)(m)->cap + (size_t)(b))

/* medium.c */
void   link_power_refresh(struct medium *m, int radio);	/* row + column */
void   link_power_refresh_moved(struct medium *m);	/* of radios with moved set */
double dbm_to_mw(double dbm);

/* phy.c */
struct tx *tx_new(struct medium *m, int src, int dst, enum medium_air_kind kind,
		  int rate_idx, bool short_pre, uint32_t len, uint64_t start);
void   tx_free(struct tx *t);
void   phy_tx_start(struct medium *m, struct tx *t);
void   phy_tx_end(struct medium *m, struct tx *t);
void   phy_update_busy(struct medium *m, int radio);
void   phy_nav_reset(struct medium *m, int radio);

/* dcf.c */
void   dcf_on_busy(struct medium *m, struct radio *r);
void   dcf_on_idle(struct medium *m, struct radio *r);
void   dcf_access(struct medium *m, int radio);
void   dcf_own_tx_end(struct medium *m, int radio, struct tx *t);
/* Would radio's ACK/CTS timeout fail the attempt now? */
bool   dcf_timeout_acts(const struct medium *m, int radio);
/* The attempt failed for want of a response (only where dcf_timeout_acts). */
void   dcf_timeout(struct medium *m, int radio);
/* A radio decoded PPDU t addressed to it (not broadcast DATA). */
void   dcf_rx_addressed(struct medium *m, int radio, struct tx *t);
/* Is t the CTS/ACK this radio waits for? */
bool   dcf_awaits(const struct radio *r, const struct tx *t);
/* The awaited CTS/ACK was locked but lost. */
void   dcf_response_lost(struct medium *m, int radio, struct tx *t);
void   dcf_deliver(struct medium *m, int radio, struct tx *t);
int    dcf_enqueue(struct medium *m, int radio, const struct medium_frame_info *fi);
void   dcf_tx_start_scheduled(struct medium *m, int radio, struct tx *t);

/* mobility.c */
/* Gather the config's waypoints into per-radio trajectories (-EINVAL if a
 * radio's times decrease or a number is not finite). */
int    mobility_load(struct medium *m, const struct medium_config *cfg);
/* Put every radio with a trajectory where it is at m->now, and refresh the
 * link powers of those that moved; nothing if m->now is the last sync's. */
void   mobility_sync(struct medium *m);
void   mobility_free(struct radio *r);
#endif

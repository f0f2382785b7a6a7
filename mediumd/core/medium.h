/*
 * medium.h - public API of the mediumd simulation core.
 *
 * The core is a discrete-event model of an 802.11 (b/g/a) wireless medium:
 * propagation, carrier sense, DCF with backoff/NAV/RTS-CTS, SINR-based frame
 * errors, capture, retries.  It has no netlink and no clock of its own: the
 * caller passes "now" (nanoseconds, monotonic, never decreasing) to every call,
 * so the same code runs against CLOCK_MONOTONIC (the daemon) or in virtual
 * time (mediumsim, the tests).
 *
 * Typical loop (daemon or simulator):
 *
 *     struct medium_config cfg;  char err[256];
 *     if (medium_config_load("medium.conf", &cfg, err, sizeof err) < 0) die(err);
 *     struct medium *m = medium_new(&cfg);   medium_config_free(&cfg);
 *     medium_set_callbacks(m, &cb);
 *     for (;;) {
 *         ... on a frame from the kernel:  medium_enqueue(m, now, radio, &fi);
 *         ... when now >= medium_next_wakeup_time(m):  medium_advance(m, now);
 *     }
 *
 * Callbacks fire only from inside medium_advance() and medium_enqueue()
 * (a refused frame is reported at once).  Callbacks must not call
 * medium_advance() themselves; they may call medium_enqueue().
 *
 * Units: time in ns (uint64_t), power in dBm, gains/losses in dB, distance in m.
 * Radios are numbered 0..n-1 in the order they appear in the config.
 * Errors are negative errno values.
 *
 * Documentation of the model and the config file format: docs/medium.md.
 */
#ifndef MEDIUM_H
#define MEDIUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ PHY -- */

enum medium_phy {
	MEDIUM_PHY_B = 0,	/* 802.11b, 2.4 GHz, DSSS/CCK only          */
	MEDIUM_PHY_G = 1,	/* 802.11g, 2.4 GHz, DSSS/CCK + ERP-OFDM    */
	MEDIUM_PHY_A = 2,	/* 802.11a, 5 GHz, OFDM only                */
};

/*
 * Rate indices are the band's legacy rate table as mac80211_hwsim defines it:
 *   2.4 GHz (phy b, g): 0..3 = 1, 2, 5.5, 11 Mbit/s; 4..11 = 6, 9, 12, 18, 24, 36, 48, 54
 *   5 GHz   (phy a):    0..7 = 6, 9, 12, 18, 24, 36, 48, 54
 * A phy b radio accepts only 0..3.  idx < 0 ends a rate table (as in hwsim).
 */
#define MEDIUM_MAX_RATES	4	/* entries in a per-frame rate table  */
#define MEDIUM_RATES_2GHZ	12
#define MEDIUM_RATES_5GHZ	8

/* Rate rate in units of 100 kbit/s (10 = 1 Mbit/s, 55 = 5.5), or -1. */
int medium_rate_100kbps(enum medium_phy phy, int rate_idx);

/* Per-rate-entry flags; the same bit values as hwsim's TX_INFO_FLAGS
 * (mac80211 IEEE80211_TX_RC_*), so the daemon can copy them through. */
#define MEDIUM_RATE_RTS			0x0001	/* use RTS/CTS for this attempt   */
#define MEDIUM_RATE_CTS_PROTECT		0x0002	/* accepted, treated as RTS       */
#define MEDIUM_RATE_SHORT_PREAMBLE	0x0004	/* DSSS/CCK short (96 us) PLCP    */

struct medium_rate {
	int8_t   idx;		/* rate index, < 0 = end of table             */
	uint8_t  count;		/* tries at this rate                         */
	uint16_t flags;		/* MEDIUM_RATE_*                              */
};

/* Airtime in ns of a PPDU carrying len bytes (MPDU incl. FCS) at rate_idx,
 * including PLCP preamble/header (and the ERP signal extension on phy g OFDM).
 * Returns 0 for an invalid rate. */
uint64_t medium_airtime_ns(enum medium_phy phy, int rate_idx, bool short_preamble,
			   uint32_t len);

/* ------------------------------------------------------------ config -- */

enum medium_prop_model {
	MEDIUM_PROP_FREE_SPACE = 0,	/* Friis                                  */
	MEDIUM_PROP_LOG_DISTANCE,	/* PL(d0) + 10 n log10(d/d0)              */
	MEDIUM_PROP_TWO_RAY,		/* Friis below crossover, d^4 above (ns-2)*/
	MEDIUM_PROP_INDOOR,		/* log-distance + wall segments + floors  */
};

enum medium_fading {
	MEDIUM_FADING_NONE = 0,
	MEDIUM_FADING_RAYLEIGH,		/* exponential power gain (per frame)      */
	MEDIUM_FADING_LOGNORMAL,	/* N(0, sigma) dB (per frame)              */
};

struct medium_wall {		/* a vertical wall: 2-D segment, all floors */
	double x1, y1, x2, y2;
	double loss_db;		/* attenuation when a link crosses it        */
};

struct medium_propagation {
	enum medium_prop_model model;
	double exponent;	/* log-distance / indoor path-loss exponent   */
	double ref_distance_m;	/* d0 (default 1 m)                           */
	double ref_loss_db;	/* PL(d0); NAN = Friis loss at d0             */
	double system_loss_db;	/* ns-2 "L" (default 0 dB)                    */
	double default_height_m;/* two-ray antenna height when z <= 0 (1.5 m) */
	double wall_loss_db;	/* indoor: default per-wall attenuation       */
	double floor_loss_db;	/* indoor: attenuation per floor crossed      */
	double floor_height_m;	/* indoor: floor = floor(z / floor_height)    */
	struct medium_wall *walls;
	int n_walls;
	double shadowing_sigma_db;	/* static per-link log-normal (0 = off) */
	uint64_t shadowing_seed;	/* seed of the static draw ...          */
	bool   has_shadowing_seed;	/* ... if set; else the config's seed   */
	enum medium_fading fading;
	double fading_sigma_db;		/* for MEDIUM_FADING_LOGNORMAL          */
	/* 0: a fresh fade per frame.  > 0: one fade per radio pair (the same both
	 * ways) that drifts as a first-order Gauss-Markov process, correlation
	 * exp(-dt / coherence) between frames dt apart: bursts of loss. */
	double fading_coherence_ms;
};

struct medium_radio_config {
	uint8_t mac[6];
	char    name[32];		/* optional label (node name)           */
	double  x, y, z;		/* position, m                          */
	double  txpower_dbm;		/* default 15                           */
	double  antenna_gain_db;	/* applied on tx and rx (default 0)     */
	enum medium_phy phy;		/* default g                            */
	bool    short_slot;		/* phy g: 9 us slot (default true)      */
	uint32_t freq_mhz;		/* default 2412 (b/g) or 5180 (a)       */
	uint32_t basic_rates;		/* bitmask over rate idx; 0 = PHY default */
	double  noise_figure_db;	/* NAN = global default                 */
	double  noise_floor_dbm;	/* NAN = thermal(bandwidth) + NF        */
	double  rx_sensitivity_dbm;	/* NAN = derive from tx_range or default*/
	double  cs_threshold_dbm;	/* NAN = derive from cs_range or rx sens*/
	double  tx_range_m;		/* 0 = not given                        */
	double  cs_range_m;		/* 0 = not given                        */
	double  capture_threshold_db;	/* NAN = global default                 */
	int     retry_short;		/* max attempts, dot11ShortRetryLimit (7) */
	int     retry_long;		/* max attempts, dot11LongRetryLimit (4)  */
	int     queue_limit;		/* frames waiting besides the one in service (50) */
};

enum medium_link_kind {
	MEDIUM_LINK_MODEL = 0,		/* use the propagation model            */
	MEDIUM_LINK_LOSS_DB,		/* fixed path loss (dB) replaces the model */
	MEDIUM_LINK_SNR_DB,		/* fixed SNR over the receiver's noise floor */
	MEDIUM_LINK_NONE,		/* no link: the receiver hears nothing  */
};

/* Override for the directed link tx -> rx.  per (0..1) is an extra,
 * independent loss probability applied to every frame on this direction
 * (data, RTS, CTS, ACK) after the SINR draw. */
struct medium_link_override {
	enum medium_link_kind kind;
	double value;			/* dB for LOSS_DB / SNR_DB              */
	double per;			/* forced frame loss probability        */
};

struct medium_link_config {
	int tx, rx;			/* radio indices                        */
	struct medium_link_override ov;
};

/* A radio that moves follows a trajectory: waypoints in time order, straight
 * legs at constant speed between consecutive ones (docs/mobility.md).  Two
 * waypoints at one time are a jump (the later holds from then); before the
 * first waypoint the radio is at the first, after the last at the last.
 * t_s is mobility time in seconds: (now - origin) / 1e9, origin 0 unless
 * medium_set_mobility_origin() moves it. */
struct medium_waypoint {
	double t_s, x, y, z;
};

struct medium_waypoint_config {		/* one "waypoint" config line         */
	int radio;			/* radio index                          */
	struct medium_waypoint w;
};

/* Where a sender whose CTS/ACK did not come resumes its backoff countdown. */
enum medium_after_failure {
	MEDIUM_AFTER_FAILURE_EIFS = 0,	/* EIFS from the end of its PPDU (default):
					 * aligned with bystanders that saw an
					 * errored frame, as Bianchi's model assumes */
	MEDIUM_AFTER_FAILURE_ACK_TIMEOUT, /* the standard: ACKTimeout = SIFS + slot +
					 * PHY-RX-START delay, then count slots */
};

/* Modulation families, for the interference weight (docs/medium.md). */
enum medium_modulation {
	MEDIUM_MOD_BARKER = 0,	/* DSSS 1, 2 Mbit/s and every DSSS PLCP header */
	MEDIUM_MOD_CCK = 1,	/* 5.5, 11 Mbit/s                              */
	MEDIUM_MOD_OFDM = 2,	/* 6..54 Mbit/s                                */
	MEDIUM_N_MODULATIONS = 3,
};

/* The legacy rates in one fixed order (1, 2, 5.5, 11, 6, 9, 12, 18, 24, 36,
 * 48, 54 Mbit/s): error_model.h's rate_slot() maps a rate to its slot. */
#define MEDIUM_N_RATES 12

struct medium_config {
	uint64_t seed;				/* default 1                    */
	struct medium_propagation prop;
	double noise_figure_db;			/* default 6 dB                 */
	double capture_threshold_db;		/* default 10 dB                */
	double rx_sensitivity_dbm;		/* default -90 dBm              */
	/* Weight G of interference against each modulation family's symbols,
	 * S / (N + G I) (docs/medium.md); default Barker 22, CCK 2, OFDM 1
	 * (error_model.h says why).  Config: interference_weight FAMILY G. */
	double interference_weight[MEDIUM_N_MODULATIONS];
	/* Receiver implementation loss per rate (dB, default 0): the SINR a rate's
	 * BER formula sees is lowered by it, as a real receiver needs that much
	 * more than the ideal formula (docs/medium.md).  Config: rate_loss MBITS DB. */
	double rate_loss_db[MEDIUM_N_RATES];
	/* false (default): each attempt follows its rate-table entry's RTS/CTS
	 * flag, as mac80211 asks (minstrel flags every fallback entry); true: every
	 * attempt follows the frame's first entry, so RTS/CTS is the RTS
	 * threshold's choice alone.  Config: rts_flags per_entry|first_entry. */
	bool rts_from_first_entry;
	/* false (default): a frame's tries follow its rate table, entry by entry,
	 * and it is dropped when the table ends (or a retry limit is reached);
	 * true: one series at the first entry's rate and flags, tried until a
	 * retry limit is reached, as a driver with one fixed-rate series did
	 * (madwifi at a fixed rate: 11 tries; docs/medium.md).
	 * Config: retry_series kernel|single. */
	bool single_series;
	enum medium_after_failure after_failure;
	/* false (default): a NAV set from an overheard RTS runs its full Duration;
	 * true: it is reset when no PPDU starts within 2 SIFS + CTS time +
	 * PHY-RX-START delay + 2 slots of the RTS's end, as 802.11-2012 9.3.2.4
	 * permits (the RTS went unanswered).  Config: nav_reset off|on. */
	bool nav_reset;
	struct medium_radio_config *radios;
	int n_radios;
	struct medium_link_config *links;
	int n_links;
	/* Trajectories: each radio's waypoints in the order given (medium_new
	 * gathers them per radio; a radio with none keeps its pos). */
	struct medium_waypoint_config *waypoints;
	int n_waypoints;
};

/* Fill defaults (no radios). */
void medium_config_init(struct medium_config *cfg);
/* Defaults of one radio (uses cfg-independent values). */
void medium_radio_config_init(struct medium_radio_config *r);
/* Parse a config file / a string in the line format of docs/medium.md.
 * On error returns -EINVAL and writes "file:line: key: message" into err.
 * cfg is initialised by these functions (no need to call _init first). */
int  medium_config_load(const char *path, struct medium_config *cfg,
			char *err, size_t errlen);
int  medium_config_parse(const char *text, const char *name,
			 struct medium_config *cfg, char *err, size_t errlen);
/* Append a radio / link to a config (for programmatic use). */
int  medium_config_add_radio(struct medium_config *cfg,
			     const struct medium_radio_config *r);	/* returns its index */
int  medium_config_add_link(struct medium_config *cfg,
			    const struct medium_link_config *l);	/* one direction */
/* Append a waypoint to a radio's trajectory (time not before its last one). */
int  medium_config_add_waypoint(struct medium_config *cfg, int radio,
				const struct medium_waypoint *w);
void medium_config_free(struct medium_config *cfg);
/* Parse "aa:bb:cc:dd:ee:ff"; 0 on success. */
int  medium_parse_mac(const char *s, uint8_t mac[6]);

/* ------------------------------------------------------------ medium -- */

struct medium;

/* Copies everything it needs from cfg; NULL on invalid config (errno set). */
struct medium *medium_new(const struct medium_config *cfg);
void medium_free(struct medium *m);

int  medium_radio_count(const struct medium *m);
/* Radio index for a MAC (its own address or an alias), or -ENOENT. */
int  medium_radio_by_mac(const struct medium *m, const uint8_t mac[6]);
const uint8_t *medium_radio_mac(const struct medium *m, int radio);
/* Extra receive addresses of a radio (e.g. further vifs). */
int  medium_add_mac_alias(struct medium *m, int radio, const uint8_t mac[6]);
/* Add a radio at run time; returns its index or a negative errno
 * (-EBUSY while any PPDU is on air: retry after medium_advance). */
int  medium_add_radio(struct medium *m, const struct medium_radio_config *r);

/* Frame-level flags. */
#define MEDIUM_FRAME_NO_ACK	0x0001	/* unicast sent without ACK (one try) */

struct medium_frame_info {
	uint32_t len;			/* MPDU length on air incl. FCS, bytes  */
	uint8_t  dst[6];		/* addr1; group bit set = broadcast      */
	uint32_t flags;			/* MEDIUM_FRAME_*                        */
	struct medium_rate rates[MEDIUM_MAX_RATES];	/* kernel's rate table */
	uint64_t cookie;		/* opaque, returned in callbacks         */
	void    *user;			/* opaque, returned in callbacks         */
};

/* Delivery of a decoded data frame to one receiver (at the frame's end).
 * A receiver gets a given frame at most once even if it is retransmitted
 * (the sender missed the ACK): the medium plays the role of the receiver's
 * duplicate filter. */
struct medium_rx_info {
	int      rx_radio;
	int      tx_radio;
	double   signal_dbm;		/* received power of this frame         */
	double   snr_db;		/* SINR over the frame (worst chunk)    */
	int      rate_idx;
	uint64_t time_ns;		/* end of the frame on air              */
	uint64_t cookie;
	void    *user;
	uint32_t len;
};

/* Final fate of a frame (sent once per enqueued frame). */
struct medium_tx_report {
	int      tx_radio;
	bool     acked;			/* unicast: ACK received; broadcast and
					 * NO_ACK: true when it was sent        */
	bool     queue_drop;		/* refused by the queue, 0 attempts      */
	struct medium_rate attempts[MEDIUM_MAX_RATES];	/* idx as given, count = tries used */
	uint64_t enqueue_ns;
	uint64_t done_ns;
	uint64_t cookie;
	void    *user;
};

enum medium_air_kind { MEDIUM_AIR_DATA, MEDIUM_AIR_RTS, MEDIUM_AIR_CTS, MEDIUM_AIR_ACK };

/* Every PPDU put on the air (optional observer: pcap, overlap statistics). */
struct medium_air_info {
	int      tx_radio;
	int      rx_radio;		/* addressee, -1 for broadcast           */
	enum medium_air_kind kind;
	int      rate_idx;
	uint64_t start_ns, end_ns;
	uint32_t len;
	uint64_t cookie;		/* of the data frame this belongs to     */
};

struct medium_callbacks {
	void *ctx;
	void (*deliver)(void *ctx, const struct medium_rx_info *rx);
	void (*tx_status)(void *ctx, const struct medium_tx_report *rep);
	void (*on_air)(void *ctx, const struct medium_air_info *air);	/* may be NULL */
};

void medium_set_callbacks(struct medium *m, const struct medium_callbacks *cb);

/* Hand a frame to radio src's queue at time now_ns.  Returns 0 if queued,
 * -ENOBUFS if the queue refused it (tx_status was already called with
 * queue_drop = true and zero attempts), -EINVAL on a bad radio/rate table
 * (tx_status also called, not acked, zero attempts).
 * now_ns earlier than the medium's current time is treated as "now". */
int medium_enqueue(struct medium *m, uint64_t now_ns, int src,
		   const struct medium_frame_info *fi);

/* Time of the next internal event, UINT64_MAX if none. */
uint64_t medium_next_event_time(const struct medium *m);
/* Time of the next event that can change anything, UINT64_MAX if none: events
 * at the head of the queue that would do nothing whenever dispatched (a
 * cancelled channel access, an ACK timeout whose response is already being
 * received) are dropped first. A caller that sleeps until this time instead of
 * medium_next_event_time() sees exactly the same callbacks (as long as it
 * calls medium_advance() before each medium_enqueue(), as medium_enqueue does
 * itself), with fewer wake-ups: about one in five per unicast frame, more under
 * contention (docs/medium.md). */
uint64_t medium_next_wakeup_time(struct medium *m);
/* Process every event with time <= now_ns, firing callbacks. Returns the
 * number of events processed. */
uint64_t medium_advance(struct medium *m, uint64_t now_ns);
/* The medium's current logical time (last advanced / enqueued time). */
uint64_t medium_now(const struct medium *m);

/* ----------------------------------------------------- run-time changes -- */

/* -EBUSY for a radio that follows a trajectory: its position is the
 * trajectory's at every instant, so a move would be undone at the next one
 * (remove the trajectory first: medium_set_trajectory(m, radio, NULL, 0)). */
int medium_set_position(struct medium *m, int radio, double x, double y, double z);
/* Replace radio's trajectory (n waypoints, copied; times must not decrease);
 * n == 0 removes it and the radio stays where it is. */
int medium_set_trajectory(struct medium *m, int radio,
			  const struct medium_waypoint *w, int n);
bool medium_radio_has_trajectory(const struct medium *m, int radio);
/* Where mobility time 0 is on the caller's clock (default 0: virtual time
 * from 0, as mediumsim runs).  The daemon sets its start, and again on the
 * control socket's start_mobility. */
void medium_set_mobility_origin(struct medium *m, uint64_t origin_ns);
/* A radio's position now (after the last advance/enqueue). */
int medium_radio_position(const struct medium *m, int radio, double *x, double *y,
			  double *z);
/* The position on a trajectory at mobility time t_s: the interpolation the
 * medium uses, bit for bit the one of Python's Trajectory.position_at. */
void medium_trajectory_position(const struct medium_waypoint *w, int n, double t_s,
				double *x, double *y, double *z);
int medium_set_txpower(struct medium *m, int radio, double dbm);
/* Retry limits (maximum transmissions, as the config's retry_short/retry_long):
 * frames from now on, and the frame in service at its next failure; each 1..255. */
int medium_set_retry(struct medium *m, int radio, int retry_short, int retry_long);
/* Directed link tx -> rx; kind MEDIUM_LINK_MODEL removes an override. */
int medium_set_link_override(struct medium *m, int tx, int rx,
			     const struct medium_link_override *ov);
/* Mean received power (dBm) of tx at rx, without per-frame fading;
 * -INFINITY for "no link". */
double medium_rx_power_dbm(const struct medium *m, int tx, int rx);
/* The thresholds in force (derived from ranges or configured). */
double medium_radio_noise_dbm(const struct medium *m, int radio);
double medium_radio_cs_threshold_dbm(const struct medium *m, int radio);
double medium_radio_rx_sensitivity_dbm(const struct medium *m, int radio);
/* The link table (links.c): probability that rx decodes one frame of len bytes
 * (MPDU incl. FCS) sent by tx at rate_idx with nothing else on the air, and
 * probability that rx senses such a frame busy (power >= its CS threshold);
 * both averaged over the per-frame fading, forced loss (`per`) included. */
double medium_link_delivery(const struct medium *m, int tx, int rx, int rate_idx,
			    uint32_t len, bool short_pre);
double medium_link_sensed(const struct medium *m, int tx, int rx);

/* -------------------------------------------------------------- stats -- */

struct medium_link_stats {	/* directed link tx -> rx (data frames)     */
	uint64_t attempts;	/* data (or RTS) transmissions addressed to rx */
	uint64_t successes;	/* attempts that ended with an ACK / decoded   */
	uint64_t collisions;	/* failed attempts that overlapped another tx  */
	uint64_t rts_failures;	/* failed attempts that got no CTS (RTS stage) */
	uint64_t late_collisions; /* collisions whose every overlapping PPDU began
				   * a slot or more after the attempt's own (a
				   * CTS sent before it holds such frames back,
				   * others' ACKs aside); the rest met one already
				   * on air or begun within the same slot */
	uint64_t retry_drops;	/* frames dropped at the retry limit          */
	uint64_t airtime_ns;	/* time on air of tx's frames to rx (all kinds)*/
	uint64_t delivered;	/* data frames handed to rx (deduplicated)     */
};

/* Histogram bins of data transmissions per finished unicast frame: bin k counts
 * frames that used k + 1 transmissions; the last bin also holds longer ones. */
#define MEDIUM_TRIES_BINS 32

struct medium_radio_stats {
	uint64_t enqueued;	/* frames accepted                            */
	uint64_t queue_drops;	/* frames refused by the queue                */
	uint64_t tx_frames;	/* frames finished (acked or not)             */
	uint64_t acked;
	uint64_t retry_drops;	/* = limit_drops + table_drops                */
	uint64_t limit_drops;	/* dropped on reaching retry_short/retry_long  */
	uint64_t table_drops;	/* dropped at the end of the kernel's rate table,
				 * below the retry limit                      */
	uint64_t tries[MEDIUM_TRIES_BINS];	/* unicast frames by transmissions used */
	int      retry_short;	/* the retry limits in force (max transmissions) */
	int      retry_long;
	uint64_t tx_airtime_ns;	/* own transmissions, all kinds               */
	uint64_t busy_ns;	/* carrier sense busy (own tx, others, NAV)   */
	uint64_t nav_resets;	/* RTS-set NAVs reset unanswered (nav_reset on) */
	double   busy_fraction;	/* busy_ns / time since the first advance/enqueue */
	uint32_t queue_len;	/* frames waiting + the one in service        */
	uint64_t queue_wait_ns;	/* frames waiting (not the one in service) integrated
				 * over time: / elapsed ns = mean queue length */
	uint32_t queue_limit;	/* frames that may wait besides that one       */
};

int medium_link_stats(const struct medium *m, int tx, int rx,
		      struct medium_link_stats *out);
int medium_radio_stats(const struct medium *m, int radio,
		       struct medium_radio_stats *out);
uint64_t medium_events_processed(const struct medium *m);
/* Events dropped unprocessed by medium_next_wakeup_time. */
uint64_t medium_events_dropped(const struct medium *m);
/* All counters as one JSON object (radios, non-zero links, events). */
int medium_stats_json(const struct medium *m, FILE *out);

#ifdef __cplusplus
}
#endif
#endif /* MEDIUM_H */

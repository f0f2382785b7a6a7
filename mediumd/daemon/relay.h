/* relay: carries frames between the kernel (hwsim_nl) and the simulation core.
 *
 *   kernel FRAME ──► relay_frame_in() ──► medium_enqueue(now = arrival)
 *   core deliver ──► inject HWSIM_CMD_FRAME into the receiving radio
 *   core tx_status ──► HWSIM_CMD_TX_INFO_FRAME back to the sender
 *   core on_air ──► capture (pcap), if enabled
 *
 * Logical time is CLOCK_MONOTONIC in ns. Before anything is handed to the core
 * the core is advanced to "now", so a late arrival never rewrites the past.
 * The daemon struct lives here because every module of the daemon reads it.
 */
#ifndef MEDIUMD_RELAY_H
#define MEDIUMD_RELAY_H

#include <stdint.h>

#include "hwsim_nl.h"
#include "lagstat.h"
#include "medium.h"

#define RELAY_PENDING 256

struct capture;
struct frame;

/* Counters the relay keeps beyond hwsim_nl's and the core's. */
struct relay_counters {
	uint64_t unknown_radio;   /* frames from a radio not in the config */
	uint64_t refused;         /* frames the core refused (bad rate table...) */
	uint64_t ht_mapped;       /* HT/VHT rate entries mapped to legacy rates */
	uint64_t inject_errors;   /* deliveries the kernel refused */
};

struct daemon {
	struct medium *m;
	struct hwsim_nl *nl;
	struct capture *cap;            /* NULL while no pcap is written */
	char cap_path[512];             /* the file being written, for replies */
	int n_radios;
	uint8_t (*hwaddr)[6];           /* per radio: address hwsim knows it by */
	uint32_t *last_freq;            /* per radio: channel of its last frame */
	uint64_t start_ns;
	struct lagstat rx_lag;          /* delivery: actual - logical */
	struct lagstat status_lag;      /* tx status: actual - logical */
	struct lagstat handover_lag;    /* both, timed when the send to the kernel starts */
	struct lagstat flush;           /* how long each send to the kernel took */
	struct relay_counters counters;
	struct frame **inflight;        /* hash (radio, cookie) -> frame */
	unsigned inflight_mask;
	unsigned inflight_count;
	struct frame *finished;         /* to free once the core call returns */
	/* Logical times of deliveries and statuses queued but not yet sent:
	 * their lag is taken when the kernel has them (relay_flush). */
	uint64_t pending_rx[RELAY_PENDING], pending_status[RELAY_PENDING];
	unsigned n_pending_rx, n_pending_status;
};

uint64_t mono_ns(void);

/* Create the relay state for medium m (installs the core callbacks). */
int relay_init(struct daemon *d, struct medium *m);
/* Start (cap) or stop (NULL) passing on-air events to a capture while running;
 * the caller opens and closes the capture itself. */
void relay_set_capture(struct daemon *d, struct capture *cap);
void relay_free(struct daemon *d);

/* hwsim_nl frame callback (ctx = struct daemon *). */
void relay_frame_in(void *ctx, const struct hwsim_tx_frame *f);

/* Run the core up to now and send the deliveries and statuses it fired. */
void relay_advance(struct daemon *d, uint64_t now);

/* Send everything queued since the last flush (one sendmsg) and record each
 * message's lag: the time the kernel took it minus its logical time. */
void relay_flush(struct daemon *d);

/* Radio index for a MAC as given by the user or the kernel, or -ENOENT. */
int relay_radio_by_mac(struct daemon *d, const uint8_t mac[6]);

#endif

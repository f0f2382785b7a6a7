/* hwsim_nl: the daemon's only contact with the kernel.
 *
 * Speaks the MAC80211_HWSIM generic netlink family (version 1): register as the
 * medium, receive every frame a radio transmits, inject frames into receiving
 * radios, and answer each transmission with its status. All libnl use is in
 * hwsim_nl.c; the rest of the daemon sees plain structs.
 *
 * Every function returns 0 (or a count) on success and a negative errno on
 * failure; nothing here prints.
 */
#ifndef MEDIUMD_HWSIM_NL_H
#define MEDIUMD_HWSIM_NL_H

#include <stddef.h>
#include <stdint.h>

#include "hwsim_msg.h" /* struct hwsim_tx_frame, struct hwsim_rate, flag bits */

typedef void (*hwsim_frame_fn)(void *ctx, const struct hwsim_tx_frame *frame);

struct hwsim_nl;

/* Counters of what went over the socket, for the stats output. */
struct hwsim_nl_counters {
	uint64_t frames_in;        /* HWSIM_CMD_FRAME received */
	uint64_t frames_out;       /* HWSIM_CMD_FRAME injected */
	uint64_t tx_status_out;    /* HWSIM_CMD_TX_INFO_FRAME sent */
	uint64_t send_errors;      /* local send failures */
	uint64_t kernel_errors;    /* error replies from the kernel (e.g. radio down) */
	uint64_t overruns;         /* socket receive buffer overflowed: frames lost */
	uint64_t malformed;        /* FRAME messages missing mandatory attributes */
};

/* Open a generic netlink socket and resolve the family by name (its id changes
 * between boots). -ENOENT: family absent, i.e. mac80211_hwsim is not loaded.
 * `fn(ctx, frame)` is called for every frame the kernel hands us. */
int hwsim_nl_open(struct hwsim_nl **out, hwsim_frame_fn fn, void *ctx);
void hwsim_nl_close(struct hwsim_nl *nl);

/* HWSIM_CMD_REGISTER: from now on the kernel sends us every frame of every radio
 * in our network namespace's group, and waits for our verdict. -EBUSY if another
 * medium is already registered. */
int hwsim_nl_register(struct hwsim_nl *nl);

/* File descriptor to poll for readability. */
int hwsim_nl_fd(const struct hwsim_nl *nl);

/* Read everything pending without blocking, calling the frame callback per
 * HWSIM_CMD_FRAME. Returns the number of frames handled or a negative errno. */
int hwsim_nl_receive(struct hwsim_nl *nl);

/* Inject a received copy of a frame into radio `receiver` (its hwsim address).
 * Queued: see hwsim_nl_flush.
 * rate_idx indexes the band's legacy rate table; signal in dBm. */
int hwsim_nl_send_frame(struct hwsim_nl *nl, const uint8_t receiver[6],
			const uint8_t *data, size_t len, uint32_t rate_idx,
			int signal_dbm, uint32_t freq);

/* Report the fate of the transmission `cookie` of radio `transmitter`:
 * flags (HWSIM_TX_STAT_ACK when acknowledged; HWSIM_TX_CTL_NO_ACK echoed for
 * frames sent without ACK), the attempts used per rate (unused entries idx -1),
 * and the ACK's signal. */
int hwsim_nl_send_tx_status(struct hwsim_nl *nl, const uint8_t transmitter[6],
			    uint64_t cookie, uint32_t flags, int signal_dbm,
			    const struct hwsim_rate used[HWSIM_MAX_RATES]);

/* The two calls above queue their message; this sends everything queued in one
 * sendmsg, in order (the relay calls it after every advance of the core), so a
 * wake-up costs one send whatever it produced. */
int hwsim_nl_flush(struct hwsim_nl *nl);

const struct hwsim_nl_counters *hwsim_nl_counters(const struct hwsim_nl *nl);

#endif

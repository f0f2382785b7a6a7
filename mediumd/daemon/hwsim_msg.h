/* hwsim_msg: MAC80211_HWSIM generic netlink messages, built and read in plain buffers.
 *
 * No socket, no allocation, no libnl: outgoing messages are written straight into the
 * daemon's send batch and incoming ones are read where recv() put them. Under TCG a
 * malloc, a copy or a free per frame shows in the throughput at 54 Mbit/s
 * (docs/medium.md, "cost per frame"), and libnl's message objects cost all three.
 * Layouts follow the kernel's mac80211_hwsim.h (docs/kernel.md, 'Generic netlink'); this file is
 * unit-tested on the host (daemon/tests/test_hwsim_msg.c).
 */
#ifndef MEDIUMD_HWSIM_MSG_H
#define MEDIUMD_HWSIM_MSG_H

#include <stddef.h>
#include <stdint.h>

#define HWSIM_FAMILY "MAC80211_HWSIM"
#define HWSIM_VERSION 1
#define HWSIM_MAX_RATES 4

enum { /* commands */
	HWSIM_CMD_REGISTER = 1,
	HWSIM_CMD_FRAME = 2,
	HWSIM_CMD_TX_INFO_FRAME = 3,
};

enum { /* attributes */
	HWSIM_ATTR_ADDR_RECEIVER = 1,
	HWSIM_ATTR_ADDR_TRANSMITTER = 2,
	HWSIM_ATTR_FRAME = 3,
	HWSIM_ATTR_FLAGS = 4,
	HWSIM_ATTR_RX_RATE = 5,
	HWSIM_ATTR_SIGNAL = 6,
	HWSIM_ATTR_TX_INFO = 7,
	HWSIM_ATTR_COOKIE = 8,
	HWSIM_ATTR_FREQ = 19,
	HWSIM_ATTR_TX_INFO_FLAGS = 21,
	HWSIM_ATTR_MAX_USED = 22,
};

/* HWSIM_ATTR_FLAGS bits (kernel enum hwsim_tx_control_flags) */
#define HWSIM_TX_CTL_REQ_TX_STATUS 0x1
#define HWSIM_TX_CTL_NO_ACK        0x2
#define HWSIM_TX_STAT_ACK          0x4

/* TX_INFO_FLAGS bits we read (kernel enum hwsim_tx_rate_flags) */
#define HWSIM_TX_RC_USE_RTS_CTS        0x0001
#define HWSIM_TX_RC_USE_SHORT_PREAMBLE 0x0004
#define HWSIM_TX_RC_MCS                0x0008
#define HWSIM_TX_RC_VHT_MCS            0x0100

/* One entry of the kernel's rate table: try rate `idx` up to `count` times.
 * idx < 0 ends the table. In a tx status, count = attempts actually used. */
struct hwsim_rate {
	int8_t idx;
	uint8_t count;
};

/* A frame a radio handed to the medium (HWSIM_CMD_FRAME from the kernel).
 * `data` points into the receive buffer: valid only during the callback. */
struct hwsim_tx_frame {
	uint8_t transmitter[6];            /* the radio's hwsim address */
	const uint8_t *data;               /* 802.11 frame, no FCS */
	size_t len;
	uint32_t flags;                    /* HWSIM_TX_CTL_* */
	struct hwsim_rate rates[HWSIM_MAX_RATES];
	uint16_t rate_flags[HWSIM_MAX_RATES]; /* HWSIM_TX_RC_*, 0 if absent */
	uint64_t cookie;                   /* echoed in the tx status */
	uint32_t freq;                     /* MHz; 0 if the kernel did not say */
};

/* What goes in every outgoing message's netlink header. */
struct hwsim_msg_addr {
	uint16_t family;  /* the generic netlink family id resolved at start */
	uint32_t port;    /* our socket's port id */
	uint32_t seq;     /* sequence number */
};

/* Bytes (netlink-aligned) that hwsim_msg_put_frame will append. */
size_t hwsim_msg_frame_size(size_t frame_len, uint32_t freq);

/* Bytes (netlink-aligned) that hwsim_msg_put_tx_status will append. */
size_t hwsim_msg_tx_status_size(void);

/* Append HWSIM_CMD_FRAME: inject `data` into radio `receiver`, received at legacy rate
 * index `rate_idx` with `signal_dbm`; HWSIM_ATTR_FREQ only when freq != 0. Writes nothing
 * and returns 0 when `room` is too small; otherwise returns the bytes appended. */
size_t hwsim_msg_put_frame(uint8_t *buf, size_t room, const struct hwsim_msg_addr *addr,
			   const uint8_t receiver[6], const uint8_t *data, size_t len,
			   uint32_t rate_idx, int signal_dbm, uint32_t freq);

/* Append HWSIM_CMD_TX_INFO_FRAME: the fate of transmission `cookie` (see hwsim_nl.h).
 * Entries of `used` with idx < 0 go out with count 0. Same return as above. */
size_t hwsim_msg_put_tx_status(uint8_t *buf, size_t room, const struct hwsim_msg_addr *addr,
			       const uint8_t transmitter[6], uint64_t cookie, uint32_t flags,
			       int signal_dbm, const struct hwsim_rate used[HWSIM_MAX_RATES]);

/* Read the attributes of a HWSIM_CMD_FRAME (the bytes after its genlmsghdr) into `f`.
 * -EINVAL when an attribute the medium needs is absent or too short. */
int hwsim_msg_parse_frame(const void *attrs, size_t len, struct hwsim_tx_frame *f);

#endif

/* hwsim_nl.c: MAC80211_HWSIM generic netlink front end (libnl-genl-3).
 *
 * Attribute numbers and layouts follow the kernel's mac80211_hwsim.h (design.md
 * section 3). The socket is blocking only while we wait for the REGISTER ack;
 * afterwards it is non-blocking and drained from the event loop.
 */
#define _GNU_SOURCE
#include "hwsim_nl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#define HWSIM_FAMILY "MAC80211_HWSIM"
#define HWSIM_VERSION 1
/* Largest hwsim message we read in one go: a frame (at most an 802.11 MPDU of
 * 7991 bytes, the A-MSDU limit) plus its attributes, with room to spare. */
#define MSG_BUF (64 * 1024)
/* Outgoing messages are queued and sent together, one sendmsg per loop
 * iteration (the kernel runs every message of a netlink skb in order). 16 KiB
 * holds several frames and stays an order-2 allocation in the kernel. */
#define OUT_BUF (16 * 1024)

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

/* Wire layouts of TX_INFO and TX_INFO_FLAGS entries (packed in the kernel). */
struct wire_rate {
	int8_t idx;
	uint8_t count;
} __attribute__((packed));

struct wire_rate_flag {
	int8_t idx;
	uint16_t flags;
} __attribute__((packed));

struct hwsim_nl {
	struct nl_sock *sock;
	int family;
	hwsim_frame_fn fn;
	void *ctx;
	int handled;          /* frames handled in the current receive call */
	unsigned reg_seq;     /* sequence number of our REGISTER request */
	int reg_done;         /* 1 once acked; <0 errno from the kernel */
	struct hwsim_nl_counters counters;
	uint8_t out[OUT_BUF];  /* queued messages, sent by hwsim_nl_flush */
	size_t out_len;
	unsigned out_msgs;
};

/* libnl returns its own NLE_* codes; the daemon speaks errno. */
static int to_errno(int nlerr)
{
	switch (nlerr < 0 ? -nlerr : nlerr) {
	case 0: return 0;
	case NLE_NOMEM: return -ENOMEM;
	case NLE_OBJ_NOTFOUND: return -ENOENT;
	case NLE_AGAIN: return -EAGAIN;
	case NLE_BUSY: return -EBUSY;
	case NLE_PERM: return -EPERM;
	case NLE_NOACCESS: return -EACCES;
	case NLE_INVAL: return -EINVAL;
	case NLE_RANGE: return -ERANGE;
	case NLE_MSGSIZE: return -EMSGSIZE;
	case NLE_EXIST: return -EEXIST;
	case NLE_OPNOTSUPP: return -EOPNOTSUPP;
	case NLE_BAD_SOCK: return -EBADF;
	case NLE_AF_NOSUPPORT: return -EAFNOSUPPORT;
	default: return -EIO;
	}
}

static void parse_frame(struct hwsim_nl *nl, struct nlattr **a)
{
	struct hwsim_tx_frame f;
	int i;

	if (!a[HWSIM_ATTR_ADDR_TRANSMITTER] || nla_len(a[HWSIM_ATTR_ADDR_TRANSMITTER]) < 6 ||
	    !a[HWSIM_ATTR_FRAME] || !a[HWSIM_ATTR_FLAGS] || !a[HWSIM_ATTR_COOKIE] ||
	    !a[HWSIM_ATTR_TX_INFO]) {
		nl->counters.malformed++;
		return;
	}
	memset(&f, 0, sizeof(f));
	memcpy(f.transmitter, nla_data(a[HWSIM_ATTR_ADDR_TRANSMITTER]), 6);
	f.data = nla_data(a[HWSIM_ATTR_FRAME]);
	f.len = (size_t)nla_len(a[HWSIM_ATTR_FRAME]);
	f.flags = nla_get_u32(a[HWSIM_ATTR_FLAGS]);
	f.cookie = nla_get_u64(a[HWSIM_ATTR_COOKIE]);
	if (a[HWSIM_ATTR_FREQ])
		f.freq = nla_get_u32(a[HWSIM_ATTR_FREQ]);

	for (i = 0; i < HWSIM_MAX_RATES; i++)
		f.rates[i].idx = -1;
	{
		const struct wire_rate *r = nla_data(a[HWSIM_ATTR_TX_INFO]);
		int n = nla_len(a[HWSIM_ATTR_TX_INFO]) / (int)sizeof(*r);
		for (i = 0; i < n && i < HWSIM_MAX_RATES; i++) {
			f.rates[i].idx = r[i].idx;
			f.rates[i].count = r[i].count;
		}
	}
	if (a[HWSIM_ATTR_TX_INFO_FLAGS]) {
		const struct wire_rate_flag *r = nla_data(a[HWSIM_ATTR_TX_INFO_FLAGS]);
		int n = nla_len(a[HWSIM_ATTR_TX_INFO_FLAGS]) / (int)sizeof(*r);
		for (i = 0; i < n && i < HWSIM_MAX_RATES; i++)
			f.rate_flags[i] = r[i].flags;
	}
	nl->counters.frames_in++;
	nl->handled++;
	nl->fn(nl->ctx, &f);
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct hwsim_nl *nl = arg;
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *a[HWSIM_ATTR_MAX_USED + 1];

	if (gh->cmd != HWSIM_CMD_FRAME)
		return NL_SKIP; /* e.g. config multicasts: not ours */
	if (nla_parse(a, HWSIM_ATTR_MAX_USED, genlmsg_attrdata(gh, 0),
		      genlmsg_attrlen(gh, 0), NULL) < 0) {
		nl->counters.malformed++;
		return NL_SKIP;
	}
	parse_frame(nl, a);
	return NL_OK;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct hwsim_nl *nl = arg;

	if (nlmsg_hdr(msg)->nlmsg_seq == nl->reg_seq && !nl->reg_done)
		nl->reg_done = 1;
	return NL_OK;
}

/* Errors for injected frames (e.g. a radio that is down) are counted, not fatal. */
static int on_error(struct sockaddr_nl *who, struct nlmsgerr *e, void *arg)
{
	struct hwsim_nl *nl = arg;
	(void)who;

	if (e->error == 0) { /* an ACK delivered as error 0 */
		if (e->msg.nlmsg_seq == nl->reg_seq && !nl->reg_done)
			nl->reg_done = 1;
		return NL_SKIP;
	}
	if (e->msg.nlmsg_seq == nl->reg_seq && !nl->reg_done) {
		nl->reg_done = e->error < 0 ? e->error : -e->error;
		return NL_STOP;
	}
	nl->counters.kernel_errors++;
	return NL_SKIP;
}

int hwsim_nl_open(struct hwsim_nl **out, hwsim_frame_fn fn, void *ctx)
{
	struct hwsim_nl *nl = calloc(1, sizeof(*nl));
	int err, bufsize = 8 << 20;

	if (!nl)
		return -ENOMEM;
	nl->fn = fn;
	nl->ctx = ctx;
	nl->sock = nl_socket_alloc();
	if (!nl->sock) {
		free(nl);
		return -ENOMEM;
	}
	err = genl_connect(nl->sock);
	if (err < 0)
		goto fail;
	err = genl_ctrl_resolve(nl->sock, HWSIM_FAMILY);
	if (err < 0)
		goto fail;
	nl->family = err;

	/* A burst of frames must not overflow the socket: ask for a big buffer,
	 * forcing past rmem_max when we are root. */
	nl_socket_set_buffer_size(nl->sock, bufsize, bufsize);
	setsockopt(nl_socket_get_fd(nl->sock), SOL_SOCKET, SO_RCVBUFFORCE,
		   &bufsize, sizeof(bufsize));

	/* Frames from the kernel carry sequence number 0: no seq checking. */
	nl_socket_disable_seq_check(nl->sock);
	/* Per frame, the cost is syscalls (tens of microseconds each under
	 * TCG). libnl's defaults would add three per frame sent: an ACK asked
	 * for every message (a kernel reply to read back), and a MSG_PEEK read
	 * before every real one. Without auto-ACK the kernel still reports a
	 * failed command (NLMSG_ERROR, to on_error); the registration asks for
	 * its ACK itself. One read of MSG_BUF bytes holds any hwsim message. */
	nl_socket_disable_auto_ack(nl->sock);
	nl_socket_disable_msg_peek(nl->sock);
	nl_socket_set_msg_buf_size(nl->sock, MSG_BUF);
	nl_socket_modify_cb(nl->sock, NL_CB_VALID, NL_CB_CUSTOM, on_valid, nl);
	nl_socket_modify_cb(nl->sock, NL_CB_ACK, NL_CB_CUSTOM, on_ack, nl);
	nl_socket_modify_err_cb(nl->sock, NL_CB_CUSTOM, on_error, nl);
	*out = nl;
	return 0;
fail:
	nl_socket_free(nl->sock);
	free(nl);
	return to_errno(err);
}

void hwsim_nl_close(struct hwsim_nl *nl)
{
	if (!nl)
		return;
	nl_socket_free(nl->sock); /* closing the socket unregisters us */
	free(nl);
}

static struct nl_msg *new_msg(const struct hwsim_nl *nl, int cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg && !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
				flags, cmd, HWSIM_VERSION)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return msg;
}

int hwsim_nl_register(struct hwsim_nl *nl)
{
	struct nl_msg *msg = new_msg(nl, HWSIM_CMD_REGISTER, NLM_F_ACK);
	int err;

	if (!msg)
		return -ENOMEM;
	err = nl_send_auto(nl->sock, msg);
	if (err >= 0)
		nl->reg_seq = nlmsg_hdr(msg)->nlmsg_seq;
	nlmsg_free(msg);
	if (err < 0)
		return to_errno(err);
	/* Frames may arrive before the ack; they go to the callback as usual. */
	while (!nl->reg_done) {
		err = nl_recvmsgs_default(nl->sock);
		if (err < 0 && err != -NLE_NOMEM && !nl->reg_done)
			return to_errno(err);
	}
	if (nl->reg_done < 0)
		return nl->reg_done;
	return nl_socket_set_nonblocking(nl->sock) < 0 ? -EIO : 0;
}

int hwsim_nl_fd(const struct hwsim_nl *nl)
{
	return nl_socket_get_fd(nl->sock);
}

int hwsim_nl_receive(struct hwsim_nl *nl)
{
	struct nl_cb *cb = nl_socket_get_cb(nl->sock);
	int err;

	nl->handled = 0;
	for (;;) {
		/* > 0: messages handled; 0 or -NLE_AGAIN (depending on the libnl
		 * version): nothing left to read. nl_recvmsgs() hides the difference
		 * between "read some" and "nothing left", so it cannot be used here. */
		err = nl_recvmsgs_report(nl->sock, cb);
		if (err > 0)
			continue;
		if (err == 0 || err == -NLE_AGAIN) {
			nl_cb_put(cb);
			return nl->handled;
		}
		if (err == -NLE_NOMEM) { /* ENOBUFS: the kernel dropped messages */
			nl->counters.overruns++;
			continue;
		}
		nl_cb_put(cb);
		return to_errno(err);
	}
}

int hwsim_nl_flush(struct hwsim_nl *nl)
{
	int err = 0;

	if (nl->out_len) {
		err = nl_sendto(nl->sock, nl->out, nl->out_len);
		if (err < 0) {
			nl->counters.send_errors += nl->out_msgs;
			err = to_errno(err);
		} else {
			err = 0;
		}
	}
	nl->out_len = 0;
	nl->out_msgs = 0;
	return err;
}

/* Queue a finished message (header completed: our port, next sequence). */
static int send_msg(struct hwsim_nl *nl, struct nl_msg *msg)
{
	struct nlmsghdr *h;
	size_t len;
	int err = 0;

	nl_complete_msg(nl->sock, msg);
	h = nlmsg_hdr(msg);
	len = NLMSG_ALIGN(h->nlmsg_len);
	if (len > sizeof(nl->out)) { /* larger than any 802.11 frame */
		nlmsg_free(msg);
		nl->counters.send_errors++;
		return -EMSGSIZE;
	}
	if (nl->out_len + len > sizeof(nl->out))
		err = hwsim_nl_flush(nl);
	memcpy(nl->out + nl->out_len, h, h->nlmsg_len);
	memset(nl->out + nl->out_len + h->nlmsg_len, 0, len - h->nlmsg_len);
	nl->out_len += len;
	nl->out_msgs++;
	nlmsg_free(msg);
	return err;
}

int hwsim_nl_send_frame(struct hwsim_nl *nl, const uint8_t receiver[6],
			const uint8_t *data, size_t len, uint32_t rate_idx,
			int signal_dbm, uint32_t freq)
{
	struct nl_msg *msg = new_msg(nl, HWSIM_CMD_FRAME, 0);
	int err;

	if (!msg)
		return -ENOMEM;
	if (nla_put(msg, HWSIM_ATTR_ADDR_RECEIVER, 6, receiver) < 0 ||
	    nla_put(msg, HWSIM_ATTR_FRAME, (int)len, data) < 0 ||
	    nla_put_u32(msg, HWSIM_ATTR_RX_RATE, rate_idx) < 0 ||
	    nla_put_u32(msg, HWSIM_ATTR_SIGNAL, (uint32_t)signal_dbm) < 0 ||
	    (freq && nla_put_u32(msg, HWSIM_ATTR_FREQ, freq) < 0)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	err = send_msg(nl, msg);
	if (err == 0)
		nl->counters.frames_out++;
	return err;
}

int hwsim_nl_send_tx_status(struct hwsim_nl *nl, const uint8_t transmitter[6],
			    uint64_t cookie, uint32_t flags, int signal_dbm,
			    const struct hwsim_rate used[HWSIM_MAX_RATES])
{
	struct nl_msg *msg = new_msg(nl, HWSIM_CMD_TX_INFO_FRAME, 0);
	struct wire_rate wire[HWSIM_MAX_RATES];
	int i, err;

	if (!msg)
		return -ENOMEM;
	for (i = 0; i < HWSIM_MAX_RATES; i++) {
		wire[i].idx = used[i].idx;
		wire[i].count = used[i].idx < 0 ? 0 : used[i].count;
	}
	if (nla_put(msg, HWSIM_ATTR_ADDR_TRANSMITTER, 6, transmitter) < 0 ||
	    nla_put_u32(msg, HWSIM_ATTR_FLAGS, flags) < 0 ||
	    nla_put_u32(msg, HWSIM_ATTR_SIGNAL, (uint32_t)signal_dbm) < 0 ||
	    nla_put(msg, HWSIM_ATTR_TX_INFO, sizeof(wire), wire) < 0 ||
	    nla_put_u64(msg, HWSIM_ATTR_COOKIE, cookie) < 0) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	err = send_msg(nl, msg);
	if (err == 0)
		nl->counters.tx_status_out++;
	return err;
}

const struct hwsim_nl_counters *hwsim_nl_counters(const struct hwsim_nl *nl)
{
	return &nl->counters;
}

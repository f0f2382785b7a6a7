/* hwsim_nl.c: MAC80211_HWSIM generic netlink front end.
 *
 * libnl-genl-3 opens the socket, resolves the family and registers us. The socket
 * is blocking only while we wait for the REGISTER ack; afterwards it is
 * non-blocking and drained from the event loop. On that per-frame path the
 * messages are read and written in place by hwsim_msg.c: one recv per incoming
 * message into a fixed buffer, outgoing messages built straight into the send
 * batch, no libnl message objects (each costs a malloc, a copy and a free).
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

/* Largest hwsim message we read in one go: a frame (at most an 802.11 MPDU of
 * 7991 bytes, the A-MSDU limit) plus its attributes, with room to spare. */
#define MSG_BUF (64 * 1024)
/* Messages read per recvmmsg: one call reads what is pending, and a short count
 * says the socket is drained, where recvmsg needs a last call that fails with
 * EAGAIN. Only the bytes received touch the buffers' pages. */
#define RX_BATCH 8
/* Outgoing messages are queued and sent together, one sendmsg per loop
 * iteration (the kernel runs every message of a netlink skb in order). 16 KiB
 * holds several frames and stays an order-2 allocation in the kernel. */
#define OUT_BUF (16 * 1024)

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
	uint8_t in[RX_BATCH][MSG_BUF]; /* messages being read */
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

/* A HWSIM_CMD_FRAME's attributes (after its genlmsghdr): to the callback. */
static void deliver_frame(struct hwsim_nl *nl, const void *attrs, size_t len)
{
	struct hwsim_tx_frame f;

	if (hwsim_msg_parse_frame(attrs, len, &f) < 0) {
		nl->counters.malformed++;
		return;
	}
	nl->counters.frames_in++;
	nl->handled++;
	nl->fn(nl->ctx, &f);
}

/* Frames that arrive while we wait for the REGISTER ack come through libnl. */
static int on_valid(struct nl_msg *msg, void *arg)
{
	struct hwsim_nl *nl = arg;
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));

	if (gh->cmd != HWSIM_CMD_FRAME)
		return NL_SKIP; /* e.g. config multicasts: not ours */
	deliver_frame(nl, genlmsg_attrdata(gh, 0), (size_t)genlmsg_attrlen(gh, 0));
	return NL_OK;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct hwsim_nl *nl = arg;

	if (nlmsg_hdr(msg)->nlmsg_seq == nl->reg_seq && !nl->reg_done)
		nl->reg_done = 1;
	return NL_OK;
}

/* While registering: the REGISTER reply; anything else is counted, not fatal. */
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
	 * failed command (NLMSG_ERROR: on_error while registering, then
	 * handle_datagram); the registration asks for its ACK itself. One read
	 * of MSG_BUF bytes holds any hwsim message. */
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

/* Every netlink message in one datagram: frames to the callback, errors counted. */
static void handle_datagram(struct hwsim_nl *nl, const uint8_t *buf, int len)
{
	const struct nlmsghdr *h;

	for (h = (const struct nlmsghdr *)buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
		if (h->nlmsg_type == NLMSG_ERROR) {
			/* a failed injection (e.g. the radio is down): counted, not fatal */
			const struct nlmsgerr *e = NLMSG_DATA(h);
			if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
				nl->counters.malformed++;
			else if (e->error)
				nl->counters.kernel_errors++;
			continue;
		}
		if (h->nlmsg_type != nl->family)
			continue;
		if (h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN)) {
			nl->counters.malformed++;
			continue;
		}
		if (((const struct genlmsghdr *)NLMSG_DATA(h))->cmd != HWSIM_CMD_FRAME)
			continue; /* e.g. config multicasts: not ours */
		deliver_frame(nl, (const uint8_t *)NLMSG_DATA(h) + GENL_HDRLEN,
			      h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN));
	}
}

int hwsim_nl_receive(struct hwsim_nl *nl)
{
	int fd = nl_socket_get_fd(nl->sock);
	struct sockaddr_nl from[RX_BATCH];
	struct iovec iov[RX_BATCH];
	struct mmsghdr mm[RX_BATCH];
	int i, n;

	nl->handled = 0;
	for (;;) {
		memset(mm, 0, sizeof(mm));
		for (i = 0; i < RX_BATCH; i++) {
			iov[i].iov_base = nl->in[i];
			iov[i].iov_len = MSG_BUF;
			mm[i].msg_hdr.msg_name = &from[i];
			mm[i].msg_hdr.msg_namelen = sizeof(from[i]);
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
		}
		n = recvmmsg(fd, mm, RX_BATCH, MSG_DONTWAIT, NULL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return nl->handled;
			if (errno == ENOBUFS) { /* the kernel dropped messages */
				nl->counters.overruns++;
				continue;
			}
			return -errno;
		}
		for (i = 0; i < n; i++) {
			if (from[i].nl_pid != 0)
				continue; /* only the kernel speaks hwsim to us */
			if (mm[i].msg_hdr.msg_flags & MSG_TRUNC) {
				nl->counters.malformed++;
				continue;
			}
			handle_datagram(nl, nl->in[i], (int)mm[i].msg_len);
		}
		if (n < RX_BATCH)
			return nl->handled; /* drained */
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

/* Room for a message of `need` bytes at the end of the batch: sends the batch first
 * when it is too full. A failed send is counted by the flush and reported here, but
 * the new message is still queued. */
static int make_room(struct hwsim_nl *nl, size_t need)
{
	if (need > sizeof(nl->out)) { /* larger than any 802.11 frame */
		nl->counters.send_errors++;
		return -EMSGSIZE;
	}
	return nl->out_len + need > sizeof(nl->out) ? hwsim_nl_flush(nl) : 0;
}

/* The header fields libnl would fill in: our port, the socket's next sequence number. */
static struct hwsim_msg_addr next_addr(struct hwsim_nl *nl)
{
	struct hwsim_msg_addr addr = {
		.family = (uint16_t)nl->family,
		.port = nl_socket_get_local_port(nl->sock),
		.seq = nl_socket_use_seq(nl->sock),
	};
	return addr;
}

static void queued(struct hwsim_nl *nl, size_t len)
{
	nl->out_len += len;
	nl->out_msgs++;
}

int hwsim_nl_send_frame(struct hwsim_nl *nl, const uint8_t receiver[6],
			const uint8_t *data, size_t len, uint32_t rate_idx,
			int signal_dbm, uint32_t freq)
{
	int err = make_room(nl, hwsim_msg_frame_size(len, freq));
	struct hwsim_msg_addr addr;
	size_t n;

	if (err == -EMSGSIZE)
		return err;
	addr = next_addr(nl);
	n = hwsim_msg_put_frame(nl->out + nl->out_len, sizeof(nl->out) - nl->out_len, &addr,
				receiver, data, len, rate_idx, signal_dbm, freq);
	if (!n) {
		nl->counters.send_errors++;
		return -EMSGSIZE;
	}
	queued(nl, n);
	if (err == 0)
		nl->counters.frames_out++;
	return err;
}

int hwsim_nl_send_tx_status(struct hwsim_nl *nl, const uint8_t transmitter[6],
			    uint64_t cookie, uint32_t flags, int signal_dbm,
			    const struct hwsim_rate used[HWSIM_MAX_RATES])
{
	int err = make_room(nl, hwsim_msg_tx_status_size());
	struct hwsim_msg_addr addr = next_addr(nl);
	size_t n = hwsim_msg_put_tx_status(nl->out + nl->out_len, sizeof(nl->out) - nl->out_len,
					   &addr, transmitter, cookie, flags, signal_dbm, used);

	if (!n) {
		nl->counters.send_errors++;
		return -EMSGSIZE;
	}
	queued(nl, n);
	if (err == 0)
		nl->counters.tx_status_out++;
	return err;
}

const struct hwsim_nl_counters *hwsim_nl_counters(const struct hwsim_nl *nl)
{
	return &nl->counters;
}

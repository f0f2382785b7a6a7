/* hwsim_msg.c: hwsim netlink messages in plain buffers (see hwsim_msg.h). */
#include "hwsim_msg.h"

#include <errno.h>
#include <string.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

/* Wire layouts of TX_INFO and TX_INFO_FLAGS entries (packed in the kernel). */
struct wire_rate {
	int8_t idx;
	uint8_t count;
} __attribute__((packed));

struct wire_rate_flag {
	int8_t idx;
	uint16_t flags;
} __attribute__((packed));

#define MSG_HEAD (NLMSG_HDRLEN + GENL_HDRLEN)

static size_t attr_space(size_t payload)
{
	return NLA_ALIGN(NLA_HDRLEN + payload);
}

/* A message being written: `p` is the next free byte. */
struct writer {
	uint8_t *start;
	uint8_t *p;
};

static void begin(struct writer *w, uint8_t *buf, const struct hwsim_msg_addr *addr,
		  uint8_t cmd)
{
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct genlmsghdr *g = (struct genlmsghdr *)(buf + NLMSG_HDRLEN);

	memset(buf, 0, MSG_HEAD);
	h->nlmsg_type = addr->family;
	h->nlmsg_flags = NLM_F_REQUEST;
	h->nlmsg_seq = addr->seq;
	h->nlmsg_pid = addr->port;
	g->cmd = cmd;
	g->version = HWSIM_VERSION;
	w->start = buf;
	w->p = buf + MSG_HEAD;
}

static void put(struct writer *w, uint16_t type, const void *data, size_t len)
{
	struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + len), .nla_type = type };
	size_t pad = attr_space(len) - NLA_HDRLEN - len;

	memcpy(w->p, &a, sizeof(a));
	memcpy(w->p + NLA_HDRLEN, data, len);
	memset(w->p + NLA_HDRLEN + len, 0, pad);
	w->p += attr_space(len);
}

static void put_u32(struct writer *w, uint16_t type, uint32_t v)
{
	put(w, type, &v, sizeof(v));
}

static size_t end(struct writer *w)
{
	size_t len = (size_t)(w->p - w->start);

	((struct nlmsghdr *)w->start)->nlmsg_len = (uint32_t)len;
	return NLMSG_ALIGN(len); /* every piece above is 4-aligned: equal to len */
}

size_t hwsim_msg_frame_size(size_t frame_len, uint32_t freq)
{
	return MSG_HEAD + attr_space(6) + attr_space(frame_len) + 2 * attr_space(4) +
	       (freq ? attr_space(4) : 0);
}

size_t hwsim_msg_tx_status_size(void)
{
	return MSG_HEAD + attr_space(6) + 2 * attr_space(4) +
	       attr_space(HWSIM_MAX_RATES * sizeof(struct wire_rate)) + attr_space(8);
}

size_t hwsim_msg_put_frame(uint8_t *buf, size_t room, const struct hwsim_msg_addr *addr,
			   const uint8_t receiver[6], const uint8_t *data, size_t len,
			   uint32_t rate_idx, int signal_dbm, uint32_t freq)
{
	struct writer w;

	/* an attribute's length is 16 bits: no 802.11 frame comes near it */
	if (len > 0xffff - NLA_HDRLEN || hwsim_msg_frame_size(len, freq) > room)
		return 0;
	begin(&w, buf, addr, HWSIM_CMD_FRAME);
	put(&w, HWSIM_ATTR_ADDR_RECEIVER, receiver, 6);
	put(&w, HWSIM_ATTR_FRAME, data, len);
	put_u32(&w, HWSIM_ATTR_RX_RATE, rate_idx);
	put_u32(&w, HWSIM_ATTR_SIGNAL, (uint32_t)signal_dbm);
	if (freq)
		put_u32(&w, HWSIM_ATTR_FREQ, freq);
	return end(&w);
}

size_t hwsim_msg_put_tx_status(uint8_t *buf, size_t room, const struct hwsim_msg_addr *addr,
			       const uint8_t transmitter[6], uint64_t cookie, uint32_t flags,
			       int signal_dbm, const struct hwsim_rate used[HWSIM_MAX_RATES])
{
	struct wire_rate wire[HWSIM_MAX_RATES];
	struct writer w;
	int i;

	if (hwsim_msg_tx_status_size() > room)
		return 0;
	for (i = 0; i < HWSIM_MAX_RATES; i++) {
		wire[i].idx = used[i].idx;
		wire[i].count = used[i].idx < 0 ? 0 : used[i].count;
	}
	begin(&w, buf, addr, HWSIM_CMD_TX_INFO_FRAME);
	put(&w, HWSIM_ATTR_ADDR_TRANSMITTER, transmitter, 6);
	put_u32(&w, HWSIM_ATTR_FLAGS, flags);
	put_u32(&w, HWSIM_ATTR_SIGNAL, (uint32_t)signal_dbm);
	put(&w, HWSIM_ATTR_TX_INFO, wire, sizeof(wire));
	put(&w, HWSIM_ATTR_COOKIE, &cookie, sizeof(cookie));
	return end(&w);
}

/* The payload of attribute `a` if it has at least `min` bytes, else NULL. */
static const uint8_t *payload(const struct nlattr *a, size_t min)
{
	if (!a || (size_t)a->nla_len < NLA_HDRLEN + min)
		return NULL;
	return (const uint8_t *)a + NLA_HDRLEN;
}

static size_t payload_len(const struct nlattr *a)
{
	return (size_t)a->nla_len - NLA_HDRLEN;
}

int hwsim_msg_parse_frame(const void *attrs, size_t len, struct hwsim_tx_frame *f)
{
	const struct nlattr *a[HWSIM_ATTR_MAX_USED + 1] = { 0 };
	const uint8_t *p = attrs, *tx, *frame, *flags, *cookie, *info, *v;
	int i, n;

	/* Walk the attributes; a later duplicate wins (as nla_parse does). */
	while (len >= NLA_HDRLEN) {
		const struct nlattr *at = (const struct nlattr *)p;
		uint16_t type = at->nla_type & NLA_TYPE_MASK;
		size_t step;

		if (at->nla_len < NLA_HDRLEN || at->nla_len > len)
			break;
		step = NLA_ALIGN((size_t)at->nla_len);
		if (type <= HWSIM_ATTR_MAX_USED)
			a[type] = at;
		if (step >= len)
			break;
		p += step;
		len -= step;
	}

	tx = payload(a[HWSIM_ATTR_ADDR_TRANSMITTER], 6);
	frame = payload(a[HWSIM_ATTR_FRAME], 0);
	flags = payload(a[HWSIM_ATTR_FLAGS], 4);
	cookie = payload(a[HWSIM_ATTR_COOKIE], 8);
	info = payload(a[HWSIM_ATTR_TX_INFO], 0);
	if (!tx || !frame || !flags || !cookie || !info)
		return -EINVAL;

	memset(f, 0, sizeof(*f));
	memcpy(f->transmitter, tx, 6);
	f->data = frame;
	f->len = payload_len(a[HWSIM_ATTR_FRAME]);
	memcpy(&f->flags, flags, 4);
	memcpy(&f->cookie, cookie, 8); /* attributes are only 4-aligned */
	if ((v = payload(a[HWSIM_ATTR_FREQ], 4)))
		memcpy(&f->freq, v, 4);

	for (i = 0; i < HWSIM_MAX_RATES; i++)
		f->rates[i].idx = -1;
	n = (int)(payload_len(a[HWSIM_ATTR_TX_INFO]) / sizeof(struct wire_rate));
	for (i = 0; i < n && i < HWSIM_MAX_RATES; i++) {
		const struct wire_rate *r = (const struct wire_rate *)info + i;
		f->rates[i].idx = r->idx;
		f->rates[i].count = r->count;
	}
	if ((v = payload(a[HWSIM_ATTR_TX_INFO_FLAGS], 0))) {
		n = (int)(payload_len(a[HWSIM_ATTR_TX_INFO_FLAGS]) / sizeof(struct wire_rate_flag));
		for (i = 0; i < n && i < HWSIM_MAX_RATES; i++)
			f->rate_flags[i] = ((const struct wire_rate_flag *)v + i)->flags;
	}
	return 0;
}

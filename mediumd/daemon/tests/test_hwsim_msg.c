/* Unit tests of hwsim_msg.c: the netlink bytes the daemon sends and reads.
 *
 * The expected layouts are written out here from the netlink rules (16-byte nlmsghdr,
 * 4-byte genlmsghdr, attributes of 4-byte header + payload padded to 4) and the hwsim
 * attribute numbers, and checked with a walker of the test's own. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "check.h"
#include "hwsim_msg.h"

static const struct hwsim_msg_addr ADDR = { .family = 0x1d, .port = 4242, .seq = 77 };
static const uint8_t MAC[6] = { 0x02, 0, 0, 0, 0x01, 0 };

/* One attribute as found by walking a message. */
struct seen {
	uint16_t type;
	uint16_t len;             /* payload bytes */
	const uint8_t *data;
	int pad_zero;             /* the padding after it is all zero */
};

/* Walk the attributes after the genl header; returns how many, -1 on a bad layout. */
static int walk(const uint8_t *msg, size_t msg_len, struct seen *out, int max)
{
	size_t off = NLMSG_HDRLEN + GENL_HDRLEN;
	int n = 0;

	while (off < msg_len) {
		struct nlattr a;
		size_t padded, i;

		if (off + NLA_HDRLEN > msg_len || n == max)
			return -1;
		memcpy(&a, msg + off, sizeof(a));
		padded = (a.nla_len + 3u) & ~3u;
		if (a.nla_len < NLA_HDRLEN || off + padded > msg_len)
			return -1;
		out[n].type = a.nla_type;
		out[n].len = (uint16_t)(a.nla_len - NLA_HDRLEN);
		out[n].data = msg + off + NLA_HDRLEN;
		out[n].pad_zero = 1;
		for (i = a.nla_len; i < padded; i++)
			if (msg[off + i])
				out[n].pad_zero = 0;
		off += padded;
		n++;
	}
	return n;
}

static uint32_t u32_at(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static void check_headers(const uint8_t *buf, size_t len, uint8_t cmd)
{
	struct nlmsghdr h;
	struct genlmsghdr g;

	memcpy(&h, buf, sizeof(h));
	memcpy(&g, buf + NLMSG_HDRLEN, sizeof(g));
	CHECK(h.nlmsg_len == len);
	CHECK(h.nlmsg_type == ADDR.family);
	CHECK(h.nlmsg_flags == NLM_F_REQUEST); /* no ACK asked: see hwsim_nl.c */
	CHECK(h.nlmsg_seq == ADDR.seq);
	CHECK(h.nlmsg_pid == ADDR.port);
	CHECK(g.cmd == cmd);
	CHECK(g.version == HWSIM_VERSION);
	CHECK(g.reserved == 0);
}

static void test_frame(void)
{
	uint8_t frame[1501], buf[4096];
	struct seen s[8];
	size_t n, i;
	int k;

	for (i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)(i * 7 + 1);
	memset(buf, 0xAA, sizeof(buf));
	n = hwsim_msg_put_frame(buf, sizeof(buf), &ADDR, MAC, frame, sizeof(frame), 11, -47, 2412);
	/* 20 header + (4+6 -> 12) + (4+1501 -> 1508) + 8 + 8 + 8 */
	CHECK(n == 20 + 12 + 1508 + 24);
	CHECK(n == hwsim_msg_frame_size(sizeof(frame), 2412));
	check_headers(buf, n, HWSIM_CMD_FRAME);
	k = walk(buf, n, s, 8);
	CHECK(k == 5);
	if (k != 5)
		return;
	CHECK(s[0].type == HWSIM_ATTR_ADDR_RECEIVER && s[0].len == 6 && !memcmp(s[0].data, MAC, 6));
	CHECK(s[1].type == HWSIM_ATTR_FRAME && s[1].len == sizeof(frame) &&
	      !memcmp(s[1].data, frame, sizeof(frame)));
	CHECK(s[2].type == HWSIM_ATTR_RX_RATE && s[2].len == 4 && u32_at(s[2].data) == 11);
	CHECK(s[3].type == HWSIM_ATTR_SIGNAL && s[3].len == 4 && (int32_t)u32_at(s[3].data) == -47);
	CHECK(s[4].type == HWSIM_ATTR_FREQ && s[4].len == 4 && u32_at(s[4].data) == 2412);
	for (k = 0; k < 5; k++)
		CHECK(s[k].pad_zero);
	CHECK(buf[n] == 0xAA); /* nothing written past the message */

	/* no frequency: no FREQ attribute */
	n = hwsim_msg_put_frame(buf, sizeof(buf), &ADDR, MAC, frame, 40, 0, -90, 0);
	CHECK(n == hwsim_msg_frame_size(40, 0) && n == 20 + 12 + 44 + 16);
	k = walk(buf, n, s, 8);
	CHECK(k == 4 && s[3].type == HWSIM_ATTR_SIGNAL);

	/* too little room: 0, and the buffer untouched */
	memset(buf, 0xAA, sizeof(buf));
	n = hwsim_msg_put_frame(buf, hwsim_msg_frame_size(100, 2412) - 1, &ADDR, MAC, frame, 100,
				0, -50, 2412);
	CHECK(n == 0);
	for (i = 0; i < sizeof(buf); i++)
		if (buf[i] != 0xAA) {
			CHECK(!"put_frame wrote into a buffer too small");
			break;
		}
	CHECK(hwsim_msg_put_frame(buf, sizeof(buf), &ADDR, MAC, frame, 0x10000, 0, 0, 0) == 0);
}

static void test_tx_status(void)
{
	const struct hwsim_rate used[HWSIM_MAX_RATES] = { {3, 2}, {1, 5}, {-1, 9}, {-1, 0} };
	const uint64_t cookie = 0x0123456789abcdefULL;
	uint8_t buf[256];
	struct seen s[8];
	uint64_t c;
	size_t n;
	int k;

	memset(buf, 0xAA, sizeof(buf));
	n = hwsim_msg_put_tx_status(buf, sizeof(buf), &ADDR, MAC, cookie, HWSIM_TX_STAT_ACK, -60,
				    used);
	/* 20 + 12 + 8 + 8 + (4+8 -> 12) + 12 */
	CHECK(n == 72 && n == hwsim_msg_tx_status_size());
	check_headers(buf, n, HWSIM_CMD_TX_INFO_FRAME);
	k = walk(buf, n, s, 8);
	CHECK(k == 5);
	if (k != 5)
		return;
	CHECK(s[0].type == HWSIM_ATTR_ADDR_TRANSMITTER && s[0].len == 6 &&
	      !memcmp(s[0].data, MAC, 6));
	CHECK(s[1].type == HWSIM_ATTR_FLAGS && u32_at(s[1].data) == HWSIM_TX_STAT_ACK);
	CHECK(s[2].type == HWSIM_ATTR_SIGNAL && (int32_t)u32_at(s[2].data) == -60);
	/* TX_INFO: packed {s8 idx, u8 count} x 4; an unused entry carries count 0 */
	CHECK(s[3].type == HWSIM_ATTR_TX_INFO && s[3].len == 8);
	CHECK((int8_t)s[3].data[0] == 3 && s[3].data[1] == 2);
	CHECK((int8_t)s[3].data[2] == 1 && s[3].data[3] == 5);
	CHECK((int8_t)s[3].data[4] == -1 && s[3].data[5] == 0);
	CHECK((int8_t)s[3].data[6] == -1 && s[3].data[7] == 0);
	memcpy(&c, s[4].data, 8);
	CHECK(s[4].type == HWSIM_ATTR_COOKIE && s[4].len == 8 && c == cookie);
	CHECK(hwsim_msg_put_tx_status(buf, 71, &ADDR, MAC, cookie, 0, 0, used) == 0);
}

/* Two messages back to back: what the send batch holds. */
static void test_batch(void)
{
	const struct hwsim_rate used[HWSIM_MAX_RATES] = { {0, 1}, {-1, 0}, {-1, 0}, {-1, 0} };
	uint8_t buf[1024], frame[33] = { 0 };
	const struct nlmsghdr *h;
	size_t a, b;
	int left, count = 0;

	a = hwsim_msg_put_frame(buf, sizeof(buf), &ADDR, MAC, frame, sizeof(frame), 0, -40, 0);
	b = hwsim_msg_put_tx_status(buf + a, sizeof(buf) - a, &ADDR, MAC, 1, 0, -40, used);
	CHECK(a && b && a % 4 == 0);
	left = (int)(a + b);
	for (h = (const struct nlmsghdr *)buf; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left))
		count++;
	CHECK(count == 2 && left == 0);
}

/* Append one attribute the way the kernel would; returns the new offset. */
static size_t put_attr(uint8_t *buf, size_t off, uint16_t type, const void *data, uint16_t len)
{
	struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + len), .nla_type = type };

	memcpy(buf + off, &a, sizeof(a));
	memcpy(buf + off + NLA_HDRLEN, data, len);
	return off + ((NLA_HDRLEN + len + 3u) & ~3u);
}

/* Only the attributes the medium needs, COOKIE last; FLAGS of `flags_len` bytes. */
static size_t mandatory(uint8_t *attrs, const uint8_t *frame, uint16_t frame_len,
			const void *flags, uint16_t flags_len, const uint64_t *cookie)
{
	const uint8_t info[2] = { 0, 1 };
	size_t off = put_attr(attrs, 0, HWSIM_ATTR_ADDR_TRANSMITTER, MAC, 6);

	off = put_attr(attrs, off, HWSIM_ATTR_FRAME, frame, frame_len);
	off = put_attr(attrs, off, HWSIM_ATTR_FLAGS, flags, flags_len);
	off = put_attr(attrs, off, HWSIM_ATTR_TX_INFO, info, sizeof(info));
	return put_attr(attrs, off, HWSIM_ATTR_COOKIE, cookie, 8);
}

static void test_parse(void)
{
	uint8_t attrs[512] = { 0 }, frame[27];
	const uint8_t info[8] = { 5, 1, 2, 3, (uint8_t)-1, 0, (uint8_t)-1, 0 };
	/* TX_INFO_FLAGS: packed {s8 idx, u16 flags} x 2 */
	const uint8_t info_flags[6] = { 5, 0x01, 0x00, 2, 0x05, 0x00 };
	const uint32_t flags = HWSIM_TX_CTL_REQ_TX_STATUS, freq = 5180;
	const uint64_t cookie = 0xfeedfacecafebeefULL;
	const uint16_t short_flags = 1;
	struct hwsim_tx_frame f;
	size_t off = 0, with_all, i;

	for (i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)i;
	off = put_attr(attrs, off, HWSIM_ATTR_ADDR_TRANSMITTER, MAC, 6);
	off = put_attr(attrs, off, HWSIM_ATTR_FRAME, frame, sizeof(frame)); /* padded by 1 */
	off = put_attr(attrs, off, HWSIM_ATTR_FLAGS, &flags, 4);
	off = put_attr(attrs, off, HWSIM_ATTR_TX_INFO, info, sizeof(info));
	off = put_attr(attrs, off, HWSIM_ATTR_TX_INFO_FLAGS, info_flags, sizeof(info_flags));
	off = put_attr(attrs, off, 99, "ignored", 7); /* unknown: skipped */
	off = put_attr(attrs, off, HWSIM_ATTR_COOKIE, &cookie, 8); /* only 4-aligned */
	off = put_attr(attrs, off, HWSIM_ATTR_FREQ, &freq, 4);
	with_all = off;

	CHECK(hwsim_msg_parse_frame(attrs, with_all, &f) == 0);
	CHECK(!memcmp(f.transmitter, MAC, 6));
	CHECK(f.len == sizeof(frame) && !memcmp(f.data, frame, sizeof(frame)));
	CHECK(f.flags == flags && f.cookie == cookie && f.freq == freq);
	CHECK(f.rates[0].idx == 5 && f.rates[0].count == 1);
	CHECK(f.rates[1].idx == 2 && f.rates[1].count == 3);
	CHECK(f.rates[2].idx == -1 && f.rates[3].idx == -1);
	CHECK(f.rate_flags[0] == HWSIM_TX_RC_USE_RTS_CTS);
	CHECK(f.rate_flags[1] == (HWSIM_TX_RC_USE_RTS_CTS | HWSIM_TX_RC_USE_SHORT_PREAMBLE));
	CHECK(f.rate_flags[2] == 0 && f.rate_flags[3] == 0);

	/* cut inside FREQ: the frame still parses, without a frequency */
	CHECK(hwsim_msg_parse_frame(attrs, with_all - 2, &f) == 0 && f.freq == 0);
	/* cut before COOKIE: a mandatory attribute is missing */
	CHECK(hwsim_msg_parse_frame(attrs, with_all - 8 - 12, &f) == -EINVAL);
	CHECK(hwsim_msg_parse_frame(attrs, 0, &f) == -EINVAL);

	/* FLAGS of 2 bytes is too short for a u32 */
	off = mandatory(attrs, frame, sizeof(frame), &short_flags, 2, &cookie);
	CHECK(hwsim_msg_parse_frame(attrs, off, &f) == -EINVAL);

	/* an attribute claiming more bytes than there are ends the walk */
	{
		struct nlattr bogus = { .nla_len = 400, .nla_type = HWSIM_ATTR_COOKIE };

		off = mandatory(attrs, frame, sizeof(frame), &flags, 4, &cookie);
		CHECK(hwsim_msg_parse_frame(attrs, off, &f) == 0);
		memcpy(attrs + off - 12, &bogus, sizeof(bogus)); /* the COOKIE header, last */
		CHECK(hwsim_msg_parse_frame(attrs, off, &f) == -EINVAL);
	}
}

int main(void)
{
	test_frame();
	test_tx_status();
	test_batch();
	test_parse();
	CHECK_DONE();
}

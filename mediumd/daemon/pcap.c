/* pcap.c: radiotap pcap writer (format documented in pcap.h). */
#include "pcap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PCAP_MAGIC_NSEC 0xa1b23c4du
#define LINKTYPE_IEEE802_11_RADIOTAP 127
#define SNAPLEN 65535

/* radiotap present bits */
#define RT_FLAGS (1u << 1)
#define RT_RATE (1u << 2)
#define RT_CHANNEL (1u << 3)
#define RT_DBM_ANTSIGNAL (1u << 5)
#define RT_TX_FLAGS (1u << 15)
#define RT_DATA_RETRIES (1u << 17)

#define RT_F_SHORTPRE 0x02
#define RT_F_BADFCS 0x40
#define RT_CHAN_CCK 0x0020
#define RT_CHAN_OFDM 0x0040
#define RT_CHAN_2GHZ 0x0080
#define RT_CHAN_5GHZ 0x0100
#define RT_TX_FAIL 0x0001
#define RT_TX_RTS 0x0004
#define RT_TX_NOACK 0x0008

#define RT_LEN 19

struct pcap_writer {
	FILE *f;
	int64_t mono_to_real_ns;   /* add to a monotonic time to get wall time */
	int err;                   /* first write error */
};

static void le16(uint8_t *p, uint16_t v) { p[0] = v & 0xff; p[1] = v >> 8; }
static void le32(uint8_t *p, uint32_t v) { le16(p, v & 0xffff); le16(p + 2, v >> 16); }

static int64_t ns_of(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int put(struct pcap_writer *w, const void *p, size_t n)
{
	if (!w->err && fwrite(p, 1, n, w->f) != n)
		w->err = errno ? -errno : -EIO;
	return w->err;
}

int pcap_open(struct pcap_writer **out, const char *path)
{
	struct pcap_writer *w = calloc(1, sizeof(*w));
	uint8_t hdr[24];

	if (!w)
		return -ENOMEM;
	w->f = fopen(path, "wb");
	if (!w->f) {
		int err = -errno;
		free(w);
		return err;
	}
	w->mono_to_real_ns = ns_of(CLOCK_REALTIME) - ns_of(CLOCK_MONOTONIC);
	le32(hdr, PCAP_MAGIC_NSEC);
	le16(hdr + 4, 2);       /* version 2.4 */
	le16(hdr + 6, 4);
	le32(hdr + 8, 0);       /* thiszone */
	le32(hdr + 12, 0);      /* sigfigs */
	le32(hdr + 16, SNAPLEN);
	le32(hdr + 20, LINKTYPE_IEEE802_11_RADIOTAP);
	put(w, hdr, sizeof(hdr));
	if (w->err) {
		int err = w->err;
		fclose(w->f);
		free(w);
		return err;
	}
	*out = w;
	return 0;
}

/* CCK for the 802.11b rates (1, 2, 5.5, 11 Mbit/s), OFDM otherwise. */
static uint16_t chan_flags(const struct pcap_attempt *a)
{
	uint16_t r = a->rate_500kbps;
	uint16_t fl = a->freq_mhz >= 4900 ? RT_CHAN_5GHZ : RT_CHAN_2GHZ;

	if (r == 2 || r == 4 || r == 11 || r == 22)
		return fl | RT_CHAN_CCK;
	return fl | RT_CHAN_OFDM;
}

int pcap_write(struct pcap_writer *w, const struct pcap_attempt *a,
	       const uint8_t *frame, size_t len)
{
	uint8_t rec[16], rt[RT_LEN];
	size_t caplen = len + RT_LEN;
	int64_t t = (int64_t)a->mono_ns + w->mono_to_real_ns;
	uint16_t txf = 0;

	if (caplen > SNAPLEN)
		caplen = SNAPLEN;
	le32(rec, (uint32_t)(t / 1000000000));
	le32(rec + 4, (uint32_t)(t % 1000000000));
	le32(rec + 8, (uint32_t)caplen);
	le32(rec + 12, (uint32_t)(len + RT_LEN));

	memset(rt, 0, sizeof(rt));
	rt[0] = 0;                      /* version */
	le16(rt + 2, RT_LEN);
	le32(rt + 4, RT_FLAGS | RT_RATE | RT_CHANNEL | RT_DBM_ANTSIGNAL |
		     RT_TX_FLAGS | RT_DATA_RETRIES);
	rt[8] = (a->short_preamble ? RT_F_SHORTPRE : 0) | (a->failed ? RT_F_BADFCS : 0);
	rt[9] = (uint8_t)a->rate_500kbps;
	le16(rt + 10, (uint16_t)a->freq_mhz);
	le16(rt + 12, chan_flags(a));
	rt[14] = (uint8_t)a->signal_dbm;
	/* rt[15]: padding, TX_FLAGS is 2-byte aligned */
	if (a->failed) txf |= RT_TX_FAIL;
	if (a->rts_cts) txf |= RT_TX_RTS;
	if (a->no_ack) txf |= RT_TX_NOACK;
	le16(rt + 16, txf);
	rt[18] = a->attempt > 0 ? a->attempt - 1 : 0;

	put(w, rec, sizeof(rec));
	put(w, rt, sizeof(rt));
	return put(w, frame, caplen - RT_LEN);
}

int pcap_flush(struct pcap_writer *w)
{
	if (!w->err && fflush(w->f) != 0)
		w->err = -errno;
	return w->err;
}

int pcap_close(struct pcap_writer *w)
{
	int err;

	if (!w)
		return 0;
	pcap_flush(w);
	err = w->err;
	if (fclose(w->f) != 0 && !err)
		err = -errno;
	free(w);
	return err;
}

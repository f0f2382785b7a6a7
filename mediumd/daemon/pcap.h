/* pcap: optional capture of every transmission attempt, for Wireshark.
 *
 * File format: classic pcap, nanosecond timestamps (magic 0xa1b23c4d),
 * LINKTYPE_IEEE802_11_RADIOTAP (127). Each record is one attempt on the air:
 * a radiotap header, then the 802.11 frame as the transmitter sent it (no FCS).
 * Radiotap fields, in order (19-byte header):
 *   FLAGS (bit 1)         0x02 short preamble; 0x40 "bad FCS" = the attempt failed
 *   RATE (bit 2)          500 kbit/s units
 *   CHANNEL (bit 3)       MHz + flags (2 GHz/5 GHz, CCK/OFDM)
 *   DBM_ANTSIGNAL (bit 5) signal at the intended receiver (dBm)
 *   TX_FLAGS (bit 15)     0x0001 failed, 0x0004 sent with RTS/CTS, 0x0008 no ACK expected
 *   DATA_RETRIES (bit 17) attempt number - 1
 * So in Wireshark, `radiotap.flags.badfcs == 1` shows failed attempts and
 * `radiotap.data_retries > 0` the retransmissions. Timestamps are the attempt's
 * logical start, converted from the monotonic clock to wall-clock time.
 */
#ifndef MEDIUMD_PCAP_H
#define MEDIUMD_PCAP_H

#include <stddef.h>
#include <stdint.h>

struct pcap_attempt {
	uint64_t mono_ns;       /* logical start of the attempt (CLOCK_MONOTONIC) */
	uint32_t freq_mhz;
	uint16_t rate_500kbps;  /* e.g. 22 for 11 Mbit/s; 0 if unknown */
	int8_t signal_dbm;
	uint8_t attempt;        /* 1 = first try */
	unsigned short_preamble : 1;
	unsigned rts_cts : 1;
	unsigned no_ack : 1;
	unsigned failed : 1;
};

struct pcap_writer;

/* Create/truncate path and write the file header. -errno on failure. */
int pcap_open(struct pcap_writer **out, const char *path);
int pcap_write(struct pcap_writer *w, const struct pcap_attempt *a,
	       const uint8_t *frame, size_t len);
/* Flush and close; returns the first write error seen, if any. */
int pcap_close(struct pcap_writer *w);
int pcap_flush(struct pcap_writer *w);

#endif

/* Writes OUTDIR/attempts.pcap with three known attempts through pcap.c.
 * tests/medium/test_daemon_pcap.py reads it back byte by byte. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "pcap.h"

int main(int argc, char **argv)
{
	static const uint8_t data[24] = {
		0x08, 0x00, 0, 0,                      /* data frame, duration */
		0x02, 0, 0, 0, 0x02, 0,                /* addr1 */
		0x02, 0, 0, 0, 0x01, 0,                /* addr2 */
		0x02, 0x11, 0x22, 0x33, 0x44, 0x55,    /* addr3 */
		0x10, 0x00,                            /* seq */
	};
	struct pcap_attempt a = {
		.mono_ns = 1000000000ull, .freq_mhz = 2412, .rate_500kbps = 22,
		.signal_dbm = -61, .attempt = 1,
	};
	struct pcap_writer *w;
	char path[4096];

	snprintf(path, sizeof(path), "%s/attempts.pcap", argc > 1 ? argv[1] : ".");
	CHECK(pcap_open(&w, path) == 0);
	CHECK(pcap_write(w, &a, data, sizeof(data)) == 0);      /* 11 Mbit/s ok */
	a.mono_ns += 1500000;                                   /* +1.5 ms */
	a.attempt = 2;
	a.failed = 1;
	a.rts_cts = 1;
	a.short_preamble = 1;
	CHECK(pcap_write(w, &a, data, sizeof(data)) == 0);      /* retry, failed */
	memset(&a, 0, sizeof(a));
	a.mono_ns = 1002000000ull;
	a.freq_mhz = 5180;
	a.rate_500kbps = 108;                                   /* 54 Mbit/s */
	a.signal_dbm = -128;
	a.attempt = 1;
	a.no_ack = 1;
	CHECK(pcap_write(w, &a, data, 10) == 0);               /* group, 5 GHz */
	CHECK(pcap_close(w) == 0);
	CHECK(pcap_open(&w, "/nonexistent-dir/x.pcap") < 0);   /* errors are -errno */
	printf("%s\n", path);
	CHECK_DONE();
}

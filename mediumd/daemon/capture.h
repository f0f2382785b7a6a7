/* capture: turns the core's "on air" events into pcap records with fates.
 *
 * The core reports each PPDU when it goes on the air, before its fate is
 * known. A data attempt's fate is settled by what follows: an ACK for it
 * (decoded: success), another attempt of the same frame (failed), or the
 * frame's final status. Records wait in a short FIFO until settled so the
 * file stays in time order. RTS, CTS and ACK are written as synthesized
 * control frames (duration field 0). Group frames are marked no-ACK and
 * counted as sent; their signal field is -128 (no single addressee).
 * Not recorded: the short-preamble flag (always 0).
 */
#ifndef MEDIUMD_CAPTURE_H
#define MEDIUMD_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "medium.h"

struct capture;

int capture_open(struct capture **out, const char *path, struct medium *m);
/* One PPDU on the air; frame/len: the data frame (DATA only, else NULL). */
void capture_on_air(struct capture *c, const struct medium_air_info *air,
		    const uint8_t *frame, size_t len, uint32_t freq);
/* The core's final status of frame (radio, cookie). */
void capture_tx_done(struct capture *c, int radio, uint64_t cookie, int acked);
/* Write whatever is pending (unsettled attempts as successes) and close. */
int capture_close(struct capture *c);
int capture_flush(struct capture *c);

#endif

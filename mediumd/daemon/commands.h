/* commands: what each control-socket command does, and the stats document.
 *
 * Protocol (one JSON object per line, reply one line):
 *   {"cmd":"ping"}                                   -> {"ok":true}
 *   {"cmd":"stats"}                                  -> {"ok":true, <stats>}
 *   {"cmd":"set_position","radio":MAC,"x":m,"y":m[,"z":m]}   z defaults to 0;
 *        refused for a radio that follows a trajectory (waypoint config lines)
 *   {"cmd":"start_mobility"}  mobility time 0 is now (it was the daemon's
 *        start): trajectories run from here -> {"ok":true,"uptime_s":s}
 *   {"cmd":"set_txpower","radio":MAC,"dbm":P}
 *   {"cmd":"set_retry","radio":MAC,"short":N,"long":N}   retry limits (max
 *        transmissions, 1..255) from now on, as iw phy set retry would
 *   {"cmd":"set_link","a":MAC,"b":MAC, one of "loss_db":dB | "snr_db":dB |
 *        "none":true | "model":true [,"per":p] [,"directed":true]}
 *        both directions unless directed; "model" removes the override;
 *        "per" adds an independent frame loss probability.
 *   {"cmd":"get_link","a":MAC,"b":MAC}  -> {"ok":true,"rx_power_dbm":P|null,...}
 *   {"cmd":"capture","path":FILE}  start writing every attempt to a pcap
 *   {"cmd":"capture","stop":true}  stop and close it; both reply {"ok":true,"path":FILE}
 * Errors: {"ok":false,"error":"..."}; unknown keys are errors.
 * <stats> is documented at stats_json() in commands.c.
 */
#ifndef MEDIUMD_COMMANDS_H
#define MEDIUMD_COMMANDS_H

#include <stddef.h>

#include "json.h"
#include "relay.h"

/* ctl_handler_fn for the control socket; ctx = struct daemon *. */
int commands_handle(void *ctx, const struct json_obj *req, struct jbuf *reply,
		    char *err, size_t errlen);

/* Append every counter as fields of the current JSON object. */
void stats_json(struct daemon *d, struct jbuf *b);

#endif

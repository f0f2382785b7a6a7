/* commands.c: control commands and the stats document (see commands.h). */
#include "commands.h"
#include "capture.h"
#include "hwsim_nl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static void mac_str(const uint8_t *mac, char out[18])
{
	snprintf(out, 18, "%02x:%02x:%02x:%02x:%02x:%02x",
		 mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
}

static double us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

static void lag_json(struct jbuf *b, const char *key, const struct lagstat *s)
{
	jb_obj_begin(b, key);
	jb_u64(b, "count", s->count);
	jb_num(b, "p50", us(lagstat_quantile(s, 0.50)));
	jb_num(b, "p90", us(lagstat_quantile(s, 0.90)));
	jb_num(b, "p99", us(lagstat_quantile(s, 0.99)));
	jb_num(b, "max", us(s->max_ns));
	jb_num(b, "mean", s->count ? s->sum_ns / (double)s->count / 1000.0 : 0.0);
	jb_obj_end(b);
}

/*
 * The stats document (times in microseconds unless the key says otherwise):
 *   uptime_s, events (core events processed)
 *   frames: in (from the kernel), out (injected), tx_status, unknown_radio,
 *           refused, ht_mapped, inject_errors, kernel_errors, overruns, malformed
 *   lag_us: {count,p50,p90,p99,max,mean} of delivery time - logical time
 *   status_lag_us: the same for tx statuses
 *   handover_lag_us: both, timed when the send to the kernel starts (the others are
 *           timed after it returns)
 *   flush_us: how long each send to the kernel took (its own processing of the
 *           messages, not what it defers to softirqs)
 *   radios: [{mac, enqueued, queue_drops, tx_frames, acked, retry_drops,
 *             limit_drops, table_drops, nav_resets, retry_short, retry_long,
 *             tx_airtime_us, busy_fraction, queue_len, queue_wait_us, queue_limit,
 *             tries}]
 *           queue_wait_us: frames waiting (not the one in service) integrated over
 *           time (frame-microseconds): its growth over an interval / the interval's
 *           length = the mean queue length then
 *           retry_drops = limit_drops (the retry limit reached) + table_drops (the
 *           kernel's rate table ended first); tries[k] = unicast frames that used
 *           k + 1 transmissions (trailing zeros left out; the last bin of
 *           MEDIUM_TRIES_BINS holds longer ones too)
 *   links:  [{tx, rx, attempts, successes, collisions, late_collisions, rts_failures,
 *             retry_drops, airtime_us, delivered}] for directed links that carried anything;
 *           rts_failures: failed attempts that ended at the RTS (no CTS), so the
 *           DATA stage failed attempts - successes - rts_failures times;
 *           late_collisions: collisions whose every overlapping PPDU began a slot or
 *           more after the attempt's own (a CTS sent before it holds such frames back)
 */
static void tries_json(struct jbuf *b, const uint64_t *tries)
{
	int last = MEDIUM_TRIES_BINS - 1, k;

	while (last >= 0 && !tries[last])
		last--;
	jb_arr_begin(b, "tries");
	for (k = 0; k <= last; k++)
		jb_u64(b, NULL, tries[k]);
	jb_arr_end(b);
}

void stats_json(struct daemon *d, struct jbuf *b)
{
	const struct hwsim_nl_counters *nc = hwsim_nl_counters(d->nl);
	char a[18], c[18];
	int i, j;

	jb_num(b, "uptime_s", (double)(mono_ns() - d->start_ns) / 1e9);
	jb_u64(b, "events", medium_events_processed(d->m));
	jb_u64(b, "events_dropped", medium_events_dropped(d->m));
	jb_obj_begin(b, "frames");
	jb_u64(b, "in", nc->frames_in);
	jb_u64(b, "out", nc->frames_out);
	jb_u64(b, "tx_status", nc->tx_status_out);
	jb_u64(b, "unknown_radio", d->counters.unknown_radio);
	jb_u64(b, "refused", d->counters.refused);
	jb_u64(b, "ht_mapped", d->counters.ht_mapped);
	jb_u64(b, "inject_errors", d->counters.inject_errors);
	jb_u64(b, "kernel_errors", nc->kernel_errors);
	jb_u64(b, "overruns", nc->overruns);
	jb_u64(b, "malformed", nc->malformed);
	jb_obj_end(b);
	lag_json(b, "lag_us", &d->rx_lag);
	lag_json(b, "status_lag_us", &d->status_lag);
	lag_json(b, "handover_lag_us", &d->handover_lag);
	lag_json(b, "flush_us", &d->flush);

	jb_arr_begin(b, "radios");
	for (i = 0; i < d->n_radios; i++) {
		struct medium_radio_stats rs;
		if (medium_radio_stats(d->m, i, &rs) < 0)
			continue;
		mac_str(medium_radio_mac(d->m, i), a);
		jb_obj_begin(b, NULL);
		jb_str(b, "mac", a);
		jb_u64(b, "enqueued", rs.enqueued);
		jb_u64(b, "queue_drops", rs.queue_drops);
		jb_u64(b, "tx_frames", rs.tx_frames);
		jb_u64(b, "acked", rs.acked);
		jb_u64(b, "retry_drops", rs.retry_drops);
		jb_u64(b, "limit_drops", rs.limit_drops);
		jb_u64(b, "table_drops", rs.table_drops);
		jb_u64(b, "nav_resets", rs.nav_resets);
		jb_i64(b, "retry_short", rs.retry_short);
		jb_i64(b, "retry_long", rs.retry_long);
		jb_num(b, "tx_airtime_us", us(rs.tx_airtime_ns));
		jb_num(b, "busy_fraction", rs.busy_fraction);
		jb_u64(b, "queue_len", rs.queue_len);
		jb_num(b, "queue_wait_us", us(rs.queue_wait_ns));
		jb_u64(b, "queue_limit", rs.queue_limit);
		tries_json(b, rs.tries);
		jb_obj_end(b);
	}
	jb_arr_end(b);

	jb_arr_begin(b, "links");
	for (i = 0; i < d->n_radios; i++)
		for (j = 0; j < d->n_radios; j++) {
			struct medium_link_stats ls;
			if (i == j || medium_link_stats(d->m, i, j, &ls) < 0)
				continue;
			if (!ls.attempts && !ls.airtime_ns && !ls.delivered)
				continue;
			mac_str(medium_radio_mac(d->m, i), a);
			mac_str(medium_radio_mac(d->m, j), c);
			jb_obj_begin(b, NULL);
			jb_str(b, "tx", a);
			jb_str(b, "rx", c);
			jb_u64(b, "attempts", ls.attempts);
			jb_u64(b, "successes", ls.successes);
			jb_u64(b, "collisions", ls.collisions);
			jb_u64(b, "late_collisions", ls.late_collisions);
			jb_u64(b, "rts_failures", ls.rts_failures);
			jb_u64(b, "retry_drops", ls.retry_drops);
			jb_num(b, "airtime_us", us(ls.airtime_ns));
			jb_u64(b, "delivered", ls.delivered);
			jb_obj_end(b);
		}
	jb_arr_end(b);
}

/* ---- request helpers: each writes a precise message on failure ---- */

static int only_keys(const struct json_obj *req, const char *const *allowed,
		     char *err, size_t errlen)
{
	int i, k;

	for (i = 0; i < req->n; i++) {
		for (k = 0; allowed[k] && strcmp(allowed[k], req->f[i].key); k++)
			;
		if (!allowed[k] && strcmp(req->f[i].key, "cmd")) {
			snprintf(err, errlen, "unknown key \"%s\"", req->f[i].key);
			return -EINVAL;
		}
	}
	return 0;
}

static int need_radio(struct daemon *d, const struct json_obj *req, const char *key,
		      int *radio, char *err, size_t errlen)
{
	const char *s;
	uint8_t mac[6];

	if (json_get_str(req, key, &s) < 0) {
		snprintf(err, errlen, "\"%s\" must be a MAC address string", key);
		return -EINVAL;
	}
	if (medium_parse_mac(s, mac) != 0) {
		snprintf(err, errlen, "\"%s\": bad MAC address \"%s\"", key, s);
		return -EINVAL;
	}
	*radio = relay_radio_by_mac(d, mac);
	if (*radio < 0) {
		snprintf(err, errlen, "\"%s\": no radio %s in the medium", key, s);
		return -ENOENT;
	}
	return 0;
}

static int need_num(const struct json_obj *req, const char *key, double *v,
		    char *err, size_t errlen)
{
	if (json_get_num(req, key, v) < 0) {
		snprintf(err, errlen, "\"%s\" must be a number", key);
		return -EINVAL;
	}
	return 0;
}

static int core_result(int rc, const char *what, char *err, size_t errlen)
{
	if (rc < 0)
		snprintf(err, errlen, "%s: %s", what, strerror(-rc));
	return rc;
}

/* ---- commands ---- */

static int cmd_set_position(struct daemon *d, const struct json_obj *req,
			    char *err, size_t errlen)
{
	static const char *const keys[] = { "radio", "x", "y", "z", NULL };
	double x, y, z = 0;
	int r, rc;

	if ((rc = only_keys(req, keys, err, errlen)) < 0 ||
	    (rc = need_radio(d, req, "radio", &r, err, errlen)) < 0 ||
	    (rc = need_num(req, "x", &x, err, errlen)) < 0 ||
	    (rc = need_num(req, "y", &y, err, errlen)) < 0)
		return rc;
	if (json_get(req, "z") && (rc = need_num(req, "z", &z, err, errlen)) < 0)
		return rc;
	if (medium_radio_has_trajectory(d->m, r)) {
		/* its trajectory would put it back at the next event: refuse, loudly */
		snprintf(err, errlen, "set_position: radio %s follows a trajectory (waypoint lines "
			 "of the config, mobility): not moved", json_get(req, "radio")->str);
		return -EBUSY;
	}
	return core_result(medium_set_position(d->m, r, x, y, z), "set_position",
			   err, errlen);
}

/* Mobility time 0 is now: radios with a trajectory start along it from here
 * (the harness calls it as the flows start). Replies the daemon's uptime then. */
static int cmd_start_mobility(struct daemon *d, const struct json_obj *req,
			      struct jbuf *reply, char *err, size_t errlen)
{
	static const char *const none[] = { NULL };
	uint64_t now = mono_ns();
	int rc = only_keys(req, none, err, errlen);

	if (rc < 0)
		return rc;
	medium_set_mobility_origin(d->m, now);
	jb_num(reply, "uptime_s", (double)(now - d->start_ns) / 1e9);
	return 0;
}

static int cmd_set_txpower(struct daemon *d, const struct json_obj *req,
			   char *err, size_t errlen)
{
	static const char *const keys[] = { "radio", "dbm", NULL };
	double dbm;
	int r, rc;

	if ((rc = only_keys(req, keys, err, errlen)) < 0 ||
	    (rc = need_radio(d, req, "radio", &r, err, errlen)) < 0 ||
	    (rc = need_num(req, "dbm", &dbm, err, errlen)) < 0)
		return rc;
	return core_result(medium_set_txpower(d->m, r, dbm), "set_txpower", err, errlen);
}

static int cmd_set_retry(struct daemon *d, const struct json_obj *req,
			 char *err, size_t errlen)
{
	static const char *const keys[] = { "radio", "short", "long", NULL };
	double s, l;
	int r, rc;

	if ((rc = only_keys(req, keys, err, errlen)) < 0 ||
	    (rc = need_radio(d, req, "radio", &r, err, errlen)) < 0 ||
	    (rc = need_num(req, "short", &s, err, errlen)) < 0 ||
	    (rc = need_num(req, "long", &l, err, errlen)) < 0)
		return rc;
	if (s != (int)s || l != (int)l || s < 1 || s > 255 || l < 1 || l > 255) {
		snprintf(err, errlen, "\"short\" and \"long\" must be integers 1..255");
		return -EINVAL;
	}
	return core_result(medium_set_retry(d->m, r, (int)s, (int)l), "set_retry", err, errlen);
}

static int cmd_set_link(struct daemon *d, const struct json_obj *req,
			char *err, size_t errlen)
{
	static const char *const keys[] = { "a", "b", "loss_db", "snr_db", "none",
					    "model", "per", "directed", NULL };
	static const char *const kinds[] = { "loss_db", "snr_db", "none", "model" };
	struct medium_link_override ov = { 0 };
	const struct json_field *dir;
	int a, b, rc, k, n_kinds = 0;

	if ((rc = only_keys(req, keys, err, errlen)) < 0 ||
	    (rc = need_radio(d, req, "a", &a, err, errlen)) < 0 ||
	    (rc = need_radio(d, req, "b", &b, err, errlen)) < 0)
		return rc;
	for (k = 0; k < 4; k++)
		if (json_get(req, kinds[k]))
			n_kinds++;
	if (n_kinds != 1) {
		snprintf(err, errlen, "give exactly one of \"loss_db\", \"snr_db\", \"none\", \"model\"");
		return -EINVAL;
	}
	if (json_get(req, "loss_db")) {
		ov.kind = MEDIUM_LINK_LOSS_DB;
		rc = need_num(req, "loss_db", &ov.value, err, errlen);
	} else if (json_get(req, "snr_db")) {
		ov.kind = MEDIUM_LINK_SNR_DB;
		rc = need_num(req, "snr_db", &ov.value, err, errlen);
	} else if (json_get(req, "none")) {
		ov.kind = MEDIUM_LINK_NONE;
	} else {
		ov.kind = MEDIUM_LINK_MODEL;
	}
	if (rc < 0)
		return rc;
	if (json_get(req, "per") && (rc = need_num(req, "per", &ov.per, err, errlen)) < 0)
		return rc;
	if (ov.per < 0 || ov.per > 1) {
		snprintf(err, errlen, "\"per\" must be within 0..1");
		return -EINVAL;
	}
	dir = json_get(req, "directed");
	rc = medium_set_link_override(d->m, a, b, &ov);
	if (rc >= 0 && !(dir && dir->type == JSON_BOOL && dir->num))
		rc = medium_set_link_override(d->m, b, a, &ov);
	return core_result(rc, "set_link", err, errlen);
}

static int cmd_get_link(struct daemon *d, const struct json_obj *req,
			struct jbuf *reply, char *err, size_t errlen)
{
	static const char *const keys[] = { "a", "b", NULL };
	int a, b, rc;

	if ((rc = only_keys(req, keys, err, errlen)) < 0 ||
	    (rc = need_radio(d, req, "a", &a, err, errlen)) < 0 ||
	    (rc = need_radio(d, req, "b", &b, err, errlen)) < 0)
		return rc;
	jb_num(reply, "rx_power_dbm", medium_rx_power_dbm(d->m, a, b)); /* null: no link */
	jb_num(reply, "noise_dbm", medium_radio_noise_dbm(d->m, b));
	jb_num(reply, "rx_sensitivity_dbm", medium_radio_rx_sensitivity_dbm(d->m, b));
	jb_num(reply, "cs_threshold_dbm", medium_radio_cs_threshold_dbm(d->m, b));
	return 0;
}

/* Start writing every attempt to a pcap ("path"), or stop ("stop": true) and close
 * the file (pending attempts are written as they stand). One capture at a time. */
static int cmd_capture(struct daemon *d, const struct json_obj *req,
		       struct jbuf *reply, char *err, size_t errlen)
{
	static const char *const keys[] = { "path", "stop", NULL };
	const struct json_field *stop = json_get(req, "stop");
	struct capture *cap;
	const char *path;
	int rc;

	if ((rc = only_keys(req, keys, err, errlen)) < 0)
		return rc;
	if ((stop != NULL) == (json_get(req, "path") != NULL)) {
		snprintf(err, errlen, "give exactly one of \"path\" (start) or \"stop\":true");
		return -EINVAL;
	}
	if (stop) {
		if (stop->type != JSON_BOOL || !stop->num) {
			snprintf(err, errlen, "\"stop\" must be true");
			return -EINVAL;
		}
		if (!d->cap) {
			snprintf(err, errlen, "no capture is running");
			return -ENOENT;
		}
		cap = d->cap;
		relay_set_capture(d, NULL);
		jb_str(reply, "path", d->cap_path);
		d->cap_path[0] = 0;
		rc = capture_close(cap);
		if (rc < 0)
			snprintf(err, errlen, "writing the pcap: %s", strerror(-rc));
		return rc;
	}
	if (json_get_str(req, "path", &path) < 0 || !path[0]) {
		snprintf(err, errlen, "\"path\" must be a file name");
		return -EINVAL;
	}
	if (d->cap) {
		snprintf(err, errlen, "a capture is already being written to %s", d->cap_path);
		return -EBUSY;
	}
	if (strlen(path) >= sizeof(d->cap_path)) {
		snprintf(err, errlen, "\"path\" is longer than %zu bytes", sizeof(d->cap_path) - 1);
		return -ENAMETOOLONG;
	}
	rc = capture_open(&cap, path, d->m);
	if (rc < 0) {
		snprintf(err, errlen, "opening %s: %s", path, strerror(-rc));
		return rc;
	}
	snprintf(d->cap_path, sizeof(d->cap_path), "%s", path);
	relay_set_capture(d, cap);
	jb_str(reply, "path", d->cap_path);
	return 0;
}

int commands_handle(void *ctx, const struct json_obj *req, struct jbuf *reply,
		    char *err, size_t errlen)
{
	struct daemon *d = ctx;
	const char *cmd;

	if (json_get_str(req, "cmd", &cmd) < 0) {
		snprintf(err, errlen, "missing \"cmd\"");
		return -EINVAL;
	}
	/* Changes apply from now on: settle everything that is already past. */
	relay_advance(d, mono_ns());
	if (!strcmp(cmd, "ping") || !strcmp(cmd, "stats")) {
		static const char *const none[] = { NULL };
		int rc = only_keys(req, none, err, errlen);
		if (rc == 0 && cmd[1] == 't')
			stats_json(d, reply);
		return rc;
	}
	if (!strcmp(cmd, "set_position"))
		return cmd_set_position(d, req, err, errlen);
	if (!strcmp(cmd, "set_txpower"))
		return cmd_set_txpower(d, req, err, errlen);
	if (!strcmp(cmd, "set_link"))
		return cmd_set_link(d, req, err, errlen);
	if (!strcmp(cmd, "set_retry"))
		return cmd_set_retry(d, req, err, errlen);
	if (!strcmp(cmd, "get_link"))
		return cmd_get_link(d, req, reply, err, errlen);
	if (!strcmp(cmd, "capture"))
		return cmd_capture(d, req, reply, err, errlen);
	if (!strcmp(cmd, "start_mobility"))
		return cmd_start_mobility(d, req, reply, err, errlen);
	snprintf(err, errlen, "unknown cmd \"%s\" (ping, stats, set_position, set_txpower, set_retry, set_link, get_link, capture, start_mobility)", cmd);
	return -EINVAL;
}

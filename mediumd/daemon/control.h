/* control: the daemon's control socket (AF_UNIX stream, JSON lines).
 *
 * Each request is one flat JSON object on one line, e.g. {"cmd":"stats"};
 * each reply is one line: {"ok":true,...} or {"ok":false,"error":"..."}.
 * This module owns the sockets and the framing; what a command does is the
 * handler's business (main.c). The socket is created mode 0600: root only.
 */
#ifndef MEDIUMD_CONTROL_H
#define MEDIUMD_CONTROL_H

#include <stddef.h>

#include "json.h"

/* Answer one request. On success append reply fields to `reply` (already
 * inside the object, after "ok":true) and return 0; on failure return a
 * negative errno and write a message into err. */
typedef int (*ctl_handler_fn)(void *ctx, const struct json_obj *req,
			      struct jbuf *reply, char *err, size_t errlen);

struct ctl_server;

/* Listen on `path` (a stale socket file there is replaced) and add the
 * listening socket to epoll set `epfd`. -errno on failure. */
int ctl_open(struct ctl_server **out, const char *path, int epfd,
	     ctl_handler_fn fn, void *ctx);
/* Close all connections and remove the socket file. */
void ctl_close(struct ctl_server *s);

#endif

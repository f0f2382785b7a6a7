/* control.c: control socket server (protocol in control.h).
 *
 * Non-blocking throughout: a slow or stuck client never stalls the medium.
 * Replies that do not fit the socket buffer wait in the client's out buffer
 * and are sent when epoll reports the socket writable.
 */
#define _GNU_SOURCE /* accept4 */
#include "control.h"
#include "loop.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define CTL_MAX_CLIENTS 16
#define CTL_MAX_LINE 4096

struct ctl_client {
	struct ev_source ev;
	struct ctl_server *srv;
	char in[CTL_MAX_LINE];
	size_t in_len;
	struct jbuf out;
	size_t out_off;       /* bytes of out already sent */
	int closing;          /* close once out is flushed */
};

struct ctl_server {
	struct ev_source ev;
	int epfd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	ctl_handler_fn fn;
	void *ctx;
	struct ctl_client *clients[CTL_MAX_CLIENTS];
};

static void client_close(struct ctl_client *c)
{
	struct ctl_server *s = c->srv;
	int i;

	epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->ev.fd, NULL);
	close(c->ev.fd);
	for (i = 0; i < CTL_MAX_CLIENTS; i++)
		if (s->clients[i] == c)
			s->clients[i] = NULL;
	jb_free(&c->out);
	free(c);
}

static void set_events(struct ctl_client *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = &c->ev };
	epoll_ctl(c->srv->epfd, EPOLL_CTL_MOD, c->ev.fd, &ev);
}

/* Send what we can; returns -1 if the client was closed. */
static int client_flush(struct ctl_client *c)
{
	while (c->out_off < c->out.len) {
		ssize_t n = send(c->ev.fd, c->out.s + c->out_off,
				 c->out.len - c->out_off, MSG_NOSIGNAL);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			set_events(c, EPOLLIN | EPOLLOUT);
			return 0;
		}
		if (n < 0 || n == 0) {
			client_close(c);
			return -1;
		}
		c->out_off += (size_t)n;
	}
	jb_reset(&c->out);
	c->out_off = 0;
	if (c->closing) {
		client_close(c);
		return -1;
	}
	set_events(c, EPOLLIN);
	return 0;
}

static void reply_error(struct jbuf *out, const char *msg)
{
	jb_obj_begin(out, NULL);
	jb_bool(out, "ok", 0);
	jb_str(out, "error", msg);
	jb_obj_end(out);
	jb_raw(out, "\n");
	out->need_comma = 0;
}

/* Handle one request line, appending its reply to c->out. */
static void handle_line(struct ctl_client *c, const char *line)
{
	struct json_obj req;
	char err[256] = "";
	size_t mark = c->out.len;
	int rc;

	if (json_parse_flat(line, &req, err, sizeof(err)) < 0) {
		reply_error(&c->out, err);
		return;
	}
	jb_obj_begin(&c->out, NULL);
	jb_bool(&c->out, "ok", 1);
	rc = c->srv->fn(c->srv->ctx, &req, &c->out, err, sizeof(err));
	if (rc < 0 || c->out.oom) {
		c->out.len = mark;   /* drop the partial success reply */
		c->out.oom = 0;
		c->out.need_comma = 0;
		if (!err[0])
			snprintf(err, sizeof(err), "%s", strerror(rc < 0 ? -rc : ENOMEM));
		reply_error(&c->out, err);
		return;
	}
	jb_obj_end(&c->out);
	jb_raw(&c->out, "\n");
	c->out.need_comma = 0;
}

static void client_event(struct ev_source *src, uint32_t events)
{
	struct ctl_client *c = container_of(src, struct ctl_client, ev);

	if (events & EPOLLOUT) {
		if (client_flush(c) < 0)
			return;
	}
	if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR)) || c->closing)
		return;
	for (;;) {
		ssize_t n = recv(c->ev.fd, c->in + c->in_len,
				 sizeof(c->in) - c->in_len - 1, 0);
		char *start, *nl;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {                 /* EOF or error */
			client_close(c);
			return;
		}
		c->in_len += (size_t)n;
		c->in[c->in_len] = 0;
		start = c->in;
		while ((nl = memchr(start, '\n', c->in_len - (size_t)(start - c->in)))) {
			*nl = 0;
			if (nl > start && nl[-1] == '\r')
				nl[-1] = 0;
			if (*start)
				handle_line(c, start);
			start = nl + 1;
		}
		c->in_len -= (size_t)(start - c->in);
		memmove(c->in, start, c->in_len);
		if (c->in_len >= sizeof(c->in) - 1) {
			reply_error(&c->out, "request line too long");
			c->closing = 1;
			break;
		}
	}
	if (c->out.len)
		client_flush(c);
}

static void accept_event(struct ev_source *src, uint32_t events)
{
	struct ctl_server *s = container_of(src, struct ctl_server, ev);
	(void)events;

	for (;;) {
		struct epoll_event ev;
		struct ctl_client *c;
		int fd = accept4(s->ev.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		int i;

		if (fd < 0)
			return; /* EAGAIN, or a transient error: nothing to do */
		for (i = 0; i < CTL_MAX_CLIENTS && s->clients[i]; i++)
			;
		c = i < CTL_MAX_CLIENTS ? calloc(1, sizeof(*c)) : NULL;
		if (!c) {
			static const char busy[] = "{\"ok\":false,\"error\":\"too many clients\"}\n";
			(void)!send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL);
			close(fd);
			continue;
		}
		c->ev.fd = fd;
		c->ev.handle = client_event;
		c->srv = s;
		jb_init(&c->out);
		ev.events = EPOLLIN;
		ev.data.ptr = &c->ev;
		if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			close(fd);
			free(c);
			continue;
		}
		s->clients[i] = c;
	}
}

int ctl_open(struct ctl_server **out, const char *path, int epfd,
	     ctl_handler_fn fn, void *ctx)
{
	struct ctl_server *s;
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct epoll_event ev;
	struct stat st;
	mode_t old_mask;
	int err;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	strcpy(addr.sun_path, path);
	strcpy(s->path, path);
	s->epfd = epfd;
	s->fn = fn;
	s->ctx = ctx;
	s->ev.handle = accept_event;
	s->ev.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->ev.fd < 0)
		goto fail;
	/* Replace a socket left by a killed daemon, but never another kind of file. */
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			errno = EEXIST;
			goto fail;
		}
		unlink(path);
	}
	old_mask = umask(0177);   /* born 0600: no window where others may connect */
	err = bind(s->ev.fd, (struct sockaddr *)&addr, sizeof(addr));
	umask(old_mask);
	if (err < 0 || chmod(path, 0600) < 0 || listen(s->ev.fd, 8) < 0)
		goto fail;
	ev.events = EPOLLIN;
	ev.data.ptr = &s->ev;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, s->ev.fd, &ev) < 0)
		goto fail;
	*out = s;
	return 0;
fail:
	err = -errno;
	if (s->ev.fd >= 0)
		close(s->ev.fd);
	free(s);
	return err;
}

void ctl_close(struct ctl_server *s)
{
	int i;

	if (!s)
		return;
	for (i = 0; i < CTL_MAX_CLIENTS; i++)
		if (s->clients[i])
			client_close(s->clients[i]);
	epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->ev.fd, NULL);
	close(s->ev.fd);
	unlink(s->path);
	free(s);
}

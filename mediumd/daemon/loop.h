/* loop: the one event-dispatch convention of the daemon.
 *
 * Every file descriptor in the epoll set carries a pointer to an ev_source
 * (epoll_event.data.ptr); main's loop calls its handler with the ready events.
 * A module that owns descriptors (control.c) embeds ev_sources in its structs.
 */
#ifndef MEDIUMD_LOOP_H
#define MEDIUMD_LOOP_H

#include <stddef.h>
#include <stdint.h>

struct ev_source {
	int fd;
	void (*handle)(struct ev_source *src, uint32_t events);
};

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#endif

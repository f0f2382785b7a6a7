/* events.h - the event queue: a binary min-heap ordered by (time, seq).
 * seq is a global insertion counter, so same-time events run in the order
 * they were scheduled: the run is deterministic. Cancelled events are
 * dropped lazily (the owner bumps a generation number). */
#ifndef MEDIUM_EVENTS_H
#define MEDIUM_EVENTS_H
#include <stdint.h>

enum ev_type {
	EV_ACCESS,	/* a radio's DIFS/EIFS + backoff has elapsed        */
	EV_TX_START,	/* a scheduled PPDU (CTS, ACK, DATA after CTS) starts */
	EV_TX_END,	/* a PPDU leaves the air                            */
	EV_TIMEOUT,	/* CTS/ACK timeout of a radio                       */
	EV_NAV_END,	/* a radio's NAV may have expired                   */
	EV_NAV_RESET,	/* an RTS-set NAV may be reset (nav_reset on)        */
};

struct event {
	uint64_t time, seq;
	enum ev_type type;
	int radio;
	uint64_t gen;		/* must match the owner's generation        */
	void *ptr;		/* struct tx for TX_START / TX_END           */
};

struct evq {
	struct event *h;
	size_t n, cap;
	uint64_t seq;
};

void evq_init(struct evq *q);
void evq_free(struct evq *q);
int  evq_push(struct evq *q, uint64_t time, enum ev_type type, int radio,
	      uint64_t gen, void *ptr);
/* Pop the earliest event into *out; 0 if the queue is empty. */
int  evq_pop(struct evq *q, struct event *out);
static inline uint64_t evq_peek_time(const struct evq *q)
{
	return q->n ? q->h[0].time : UINT64_MAX;
}
#endif

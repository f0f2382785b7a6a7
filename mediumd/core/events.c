/* events.c - binary heap of events. */
#include <stdlib.h>
#include "events.h"

void evq_init(struct evq *q) { q->h = NULL; q->n = q->cap = 0; q->seq = 0; }
void evq_free(struct evq *q) { free(q->h); evq_init(q); }

static int before(const struct event *a, const struct event *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

int evq_push(struct evq *q, uint64_t time, enum ev_type type, int radio,
	     uint64_t gen, void *ptr)
{
	if (q->n == q->cap) {
		size_t nc = q->cap ? q->cap * 2 : 256;
		struct event *nh = realloc(q->h, nc * sizeof(*nh));
		if (!nh)
			return -1;
		q->h = nh;
		q->cap = nc;
	}
	size_t i = q->n++;
	struct event e = { time, q->seq++, type, radio, gen, ptr };
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!before(&e, &q->h[p]))
			break;
		q->h[i] = q->h[p];
		i = p;
	}
	q->h[i] = e;
	return 0;
}

int evq_pop(struct evq *q, struct event *out)
{
	if (!q->n)
		return 0;
	*out = q->h[0];
	struct event last = q->h[--q->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= q->n)
			break;
		if (c + 1 < q->n && before(&q->h[c + 1], &q->h[c]))
			c++;
		if (!before(&q->h[c], &last))
			break;
		q->h[i] = q->h[c];
		i = c;
	}
	if (q->n)
		q->h[i] = last;
	return 1;
}

/* log.c: see log.h. */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum log_level log_threshold = LOGL_WARN;

static const char *const names[] = { "error", "warn", "info", "debug" };

int log_parse_level(const char *name, enum log_level *out)
{
	unsigned i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i])) {
			*out = (enum log_level)i;
			return 0;
		}
	return -EINVAL;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	if (level > log_threshold)
		return;
	fprintf(stderr, "mediumd: %s: ", names[level]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* parse_util.c - error reporting and number parsing shared by the line-based parsers. */
#include "parse_util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int parse_fail(struct parse_pos *pos, const char *key, const char *fmt, ...)
{
	char msg[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (pos->err && pos->errlen)
		snprintf(pos->err, pos->errlen, "%s:%d: %s: %s", pos->name, pos->line, key, msg);
	return -EINVAL;
}

int parse_num(struct parse_pos *pos, const char *key, const char *s, double *out)
{
	char *end;
	if (!s)
		return parse_fail(pos, key, "missing value");
	*out = strtod(s, &end);
	if (end == s || *end || !isfinite(*out))
		return parse_fail(pos, key, "not a number: '%s'", s);
	return 0;
}

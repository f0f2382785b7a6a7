/*
 * parse_util.h - what the line-based parsers (the medium config, mediumsim's scenarios)
 * share: where the parser is, and errors reported as "FILE:LINE: KEY: message".
 */
#ifndef PARSE_UTIL_H
#define PARSE_UTIL_H

#include <stddef.h>

struct parse_pos {
	const char *name;	/* file name for messages */
	int line;		/* current line, 1-based */
	char *err;		/* message buffer (may be NULL) */
	size_t errlen;
};

/* Write "name:line: key: message" into pos->err; returns -EINVAL for the caller to pass on. */
int parse_fail(struct parse_pos *pos, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A finite number, or an error naming the key. */
int parse_num(struct parse_pos *pos, const char *key, const char *s, double *out);

#endif

/* json.c: flat-object reader and buffered writer (see json.h). */
#include "json.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading ---- */

struct cursor {
	const char *p;
	char *err;
	size_t errlen;
};

static int fail(struct cursor *c, const char *why)
{
	snprintf(c->err, c->errlen, "bad JSON: %s", why);
	return -EINVAL;
}

static void skip_ws(struct cursor *c)
{
	while (*c->p && isspace((unsigned char)*c->p))
		c->p++;
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9') return ch - '0';
	if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
	return -1;
}

/* A string into out (max JSON_MAX_STR incl. NUL). \uXXXX beyond ASCII is
 * refused: MACs, commands and error texts are all ASCII. */
static int parse_string(struct cursor *c, char *out)
{
	size_t n = 0;

	if (*c->p != '"')
		return fail(c, "expected string");
	c->p++;
	while (*c->p && *c->p != '"') {
		char ch = *c->p++;
		if ((unsigned char)ch < 0x20)
			return fail(c, "control character in string");
		if (ch == '\\') {
			char e = *c->p;
			if (!e)
				return fail(c, "unterminated string");
			c->p++;
			switch (e) {
			case '"': case '\\': case '/': ch = e; break;
			case 'n': ch = '\n'; break;
			case 't': ch = '\t'; break;
			case 'r': ch = '\r'; break;
			case 'b': ch = '\b'; break;
			case 'f': ch = '\f'; break;
			case 'u': {
				int v = 0, i;
				for (i = 0; i < 4; i++) {
					int h = hexval(*c->p++);
					if (h < 0)
						return fail(c, "bad \\u escape");
					v = v * 16 + h;
				}
				if (v == 0 || v > 0x7f)
					return fail(c, "non-ASCII \\u escape");
				ch = (char)v;
				break;
			}
			default:
				return fail(c, "bad escape");
			}
		}
		if (n + 1 >= JSON_MAX_STR)
			return fail(c, "string too long");
		out[n++] = ch;
	}
	if (*c->p != '"')
		return fail(c, "unterminated string");
	c->p++;
	out[n] = 0;
	return 0;
}

static int parse_value(struct cursor *c, struct json_field *f)
{
	if (*c->p == '"') {
		f->type = JSON_STRING;
		return parse_string(c, f->str);
	}
	if (!strncmp(c->p, "true", 4) || !strncmp(c->p, "false", 5)) {
		f->type = JSON_BOOL;
		f->num = c->p[0] == 't';
		c->p += f->num ? 4 : 5;
		return 0;
	}
	if (!strncmp(c->p, "null", 4)) {
		f->type = JSON_NULL;
		c->p += 4;
		return 0;
	}
	if (*c->p == '-' || isdigit((unsigned char)*c->p)) {
		char *end;
		f->type = JSON_NUMBER;
		f->num = strtod(c->p, &end);
		if (end == c->p || !isfinite(f->num))
			return fail(c, "bad number");
		c->p = end;
		return 0;
	}
	if (*c->p == '{' || *c->p == '[')
		return fail(c, "nested values are not supported");
	return fail(c, "expected a value");
}

int json_parse_flat(const char *text, struct json_obj *obj, char *err, size_t errlen)
{
	struct cursor c = { text, err, errlen };

	obj->n = 0;
	skip_ws(&c);
	if (*c.p++ != '{')
		return fail(&c, "expected an object");
	skip_ws(&c);
	if (*c.p == '}') {
		c.p++;
		goto end;
	}
	for (;;) {
		struct json_field *f;
		if (obj->n == JSON_MAX_FIELDS)
			return fail(&c, "too many fields");
		f = &obj->f[obj->n];
		skip_ws(&c);
		if (parse_string(&c, f->key) < 0)
			return -EINVAL;
		skip_ws(&c);
		if (*c.p++ != ':')
			return fail(&c, "expected ':'");
		skip_ws(&c);
		if (parse_value(&c, f) < 0)
			return -EINVAL;
		if (json_get(obj, f->key))
			return fail(&c, "duplicate key");
		obj->n++;
		skip_ws(&c);
		if (*c.p == ',') {
			c.p++;
			continue;
		}
		if (*c.p++ != '}')
			return fail(&c, "expected ',' or '}'");
		break;
	}
end:
	skip_ws(&c);
	if (*c.p)
		return fail(&c, "trailing characters");
	return 0;
}

const struct json_field *json_get(const struct json_obj *obj, const char *key)
{
	int i;

	for (i = 0; i < obj->n; i++)
		if (!strcmp(obj->f[i].key, key))
			return &obj->f[i];
	return NULL;
}

int json_get_str(const struct json_obj *obj, const char *key, const char **out)
{
	const struct json_field *f = json_get(obj, key);

	if (!f)
		return -ENOENT;
	if (f->type != JSON_STRING)
		return -EINVAL;
	*out = f->str;
	return 0;
}

int json_get_num(const struct json_obj *obj, const char *key, double *out)
{
	const struct json_field *f = json_get(obj, key);

	if (!f)
		return -ENOENT;
	if (f->type != JSON_NUMBER)
		return -EINVAL;
	*out = f->num;
	return 0;
}

/* ---- writing ---- */

void jb_init(struct jbuf *b)
{
	memset(b, 0, sizeof(*b));
}

void jb_free(struct jbuf *b)
{
	free(b->s);
	jb_init(b);
}

void jb_reset(struct jbuf *b)
{
	b->len = 0;
	b->need_comma = 0;
	b->oom = 0;
	if (b->s)
		b->s[0] = 0;
}

static void put(struct jbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *s2;
		while (b->len + n + 1 > cap)
			cap *= 2;
		s2 = realloc(b->s, cap);
		if (!s2) {
			b->oom = 1;
			return;
		}
		b->s = s2;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

static void putf(struct jbuf *b, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	put(b, tmp, n < (int)sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static void put_escaped(struct jbuf *b, const char *s)
{
	put(b, "\"", 1);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\') {
			put(b, "\\", 1);
			put(b, s, 1);
		} else if (ch < 0x20) {
			putf(b, "\\u%04x", ch);
		} else {
			put(b, s, 1);
		}
	}
	put(b, "\"", 1);
}

/* Separator and key before a value. */
static void lead(struct jbuf *b, const char *key)
{
	if (b->need_comma)
		put(b, ",", 1);
	if (key) {
		put_escaped(b, key);
		put(b, ":", 1);
	}
	b->need_comma = 1;
}

void jb_obj_begin(struct jbuf *b, const char *key)
{
	lead(b, key);
	put(b, "{", 1);
	b->need_comma = 0;
}

void jb_obj_end(struct jbuf *b)
{
	put(b, "}", 1);
	b->need_comma = 1;
}

void jb_arr_begin(struct jbuf *b, const char *key)
{
	lead(b, key);
	put(b, "[", 1);
	b->need_comma = 0;
}

void jb_arr_end(struct jbuf *b)
{
	put(b, "]", 1);
	b->need_comma = 1;
}

void jb_str(struct jbuf *b, const char *key, const char *val)
{
	lead(b, key);
	put_escaped(b, val);
}

void jb_u64(struct jbuf *b, const char *key, uint64_t val)
{
	lead(b, key);
	putf(b, "%llu", (unsigned long long)val);
}

void jb_i64(struct jbuf *b, const char *key, int64_t val)
{
	lead(b, key);
	putf(b, "%lld", (long long)val);
}

void jb_num(struct jbuf *b, const char *key, double val)
{
	lead(b, key);
	if (isfinite(val))
		putf(b, "%.9g", val);
	else
		put(b, "null", 4);
}

void jb_bool(struct jbuf *b, const char *key, int val)
{
	lead(b, key);
	put(b, val ? "true" : "false", val ? 4 : 5);
}

void jb_raw(struct jbuf *b, const char *text)
{
	put(b, text, strlen(text));
}

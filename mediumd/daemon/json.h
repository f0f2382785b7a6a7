/* json: the little JSON the daemon needs.
 *
 * Reading: one flat object per line ({"cmd":"set_position","x":1.5,...}):
 * string, number, true/false/null values only, no nesting. That is the whole
 * control protocol, so a full parser would be dead weight.
 * Writing: a growable buffer with helpers that emit commas and escapes.
 */
#ifndef MEDIUMD_JSON_H
#define MEDIUMD_JSON_H

#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_FIELDS 16
#define JSON_MAX_STR 128

enum json_type { JSON_STRING, JSON_NUMBER, JSON_BOOL, JSON_NULL };

struct json_field {
	char key[JSON_MAX_STR];
	enum json_type type;
	char str[JSON_MAX_STR];  /* JSON_STRING, unescaped */
	double num;              /* JSON_NUMBER; JSON_BOOL as 0/1 */
};

struct json_obj {
	int n;
	struct json_field f[JSON_MAX_FIELDS];
};

/* Parse one flat object. 0 or -EINVAL with a reason in err (size errlen). */
int json_parse_flat(const char *text, struct json_obj *obj, char *err, size_t errlen);

/* Field lookup: NULL if absent. The typed getters return -ENOENT if absent,
 * -EINVAL if of the wrong type. */
const struct json_field *json_get(const struct json_obj *obj, const char *key);
int json_get_str(const struct json_obj *obj, const char *key, const char **out);
int json_get_num(const struct json_obj *obj, const char *key, double *out);

/* Output buffer. Functions never fail visibly: on allocation failure the
 * buffer is marked broken (jb.oom) and the caller reports -ENOMEM once. */
struct jbuf {
	char *s;
	size_t len, cap;
	int need_comma;  /* a value was written at this nesting level */
	int oom;
};

void jb_init(struct jbuf *b);
void jb_free(struct jbuf *b);
void jb_reset(struct jbuf *b);
void jb_obj_begin(struct jbuf *b, const char *key);  /* key NULL at top/in array */
void jb_obj_end(struct jbuf *b);
void jb_arr_begin(struct jbuf *b, const char *key);
void jb_arr_end(struct jbuf *b);
void jb_str(struct jbuf *b, const char *key, const char *val);
void jb_u64(struct jbuf *b, const char *key, uint64_t val);
void jb_i64(struct jbuf *b, const char *key, int64_t val);
void jb_num(struct jbuf *b, const char *key, double val);  /* NaN/inf -> null */
void jb_bool(struct jbuf *b, const char *key, int val);
void jb_raw(struct jbuf *b, const char *text);             /* no separators */

#endif

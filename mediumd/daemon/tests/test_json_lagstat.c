/* Unit tests of json.c (flat reader, writer) and lagstat.c (percentiles). */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "json.h"
#include "lagstat.h"

static void test_parse(void)
{
	struct json_obj o;
	char err[128];
	const char *s;
	double v;

	CHECK(json_parse_flat("{\"cmd\":\"set_position\",\"radio\":\"02:00:00:00:01:00\","
			      "\"x\":-1.5e2,\"y\":3,\"z\":0, \"flag\":true,\"n\":null}",
			      &o, err, sizeof(err)) == 0);
	CHECK(o.n == 7);
	CHECK(json_get_str(&o, "cmd", &s) == 0 && !strcmp(s, "set_position"));
	CHECK(json_get_num(&o, "x", &v) == 0 && v == -150.0);
	CHECK(json_get_num(&o, "cmd", &v) == -EINVAL);
	CHECK(json_get_num(&o, "missing", &v) == -ENOENT);
	CHECK(json_get(&o, "flag")->type == JSON_BOOL && json_get(&o, "flag")->num == 1);
	CHECK(json_get(&o, "n")->type == JSON_NULL);

	CHECK(json_parse_flat("  {}  ", &o, err, sizeof(err)) == 0 && o.n == 0);
	CHECK(json_parse_flat("{\"s\":\"a\\\"b\\\\c\\u0041\"}", &o, err, sizeof(err)) == 0);
	CHECK(json_get_str(&o, "s", &s) == 0 && !strcmp(s, "a\"b\\cA"));

	/* each malformed input is refused with a reason */
	CHECK(json_parse_flat("{\"a\":1,}", &o, err, sizeof(err)) == -EINVAL);
	CHECK(json_parse_flat("{\"a\":{\"b\":1}}", &o, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "nested") != NULL);
	CHECK(json_parse_flat("{\"a\":1} x", &o, err, sizeof(err)) == -EINVAL);
	CHECK(json_parse_flat("{\"a\":1,\"a\":2}", &o, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "duplicate") != NULL);
	CHECK(json_parse_flat("{\"a\":\"unterminated", &o, err, sizeof(err)) == -EINVAL);
	CHECK(json_parse_flat("{\"a\":\"x\\", &o, err, sizeof(err)) == -EINVAL);
	CHECK(json_parse_flat("[1]", &o, err, sizeof(err)) == -EINVAL);
	CHECK(json_parse_flat("{\"a\":tru}", &o, err, sizeof(err)) == -EINVAL);
	CHECK(json_parse_flat("", &o, err, sizeof(err)) == -EINVAL);
}

static void test_write(void)
{
	struct jbuf b;

	jb_init(&b);
	jb_obj_begin(&b, NULL);
	jb_bool(&b, "ok", 1);
	jb_str(&b, "e", "q\"\n");
	jb_arr_begin(&b, "l");
	jb_u64(&b, NULL, 1);
	jb_obj_begin(&b, NULL);
	jb_num(&b, "x", 0.5);
	jb_num(&b, "inf", INFINITY);
	jb_obj_end(&b);
	jb_arr_end(&b);
	jb_i64(&b, "neg", -3);
	jb_obj_end(&b);
	CHECK(!b.oom);
	CHECK(!strcmp(b.s, "{\"ok\":true,\"e\":\"q\\\"\\u000a\",\"l\":[1,{\"x\":0.5,\"inf\":null}],\"neg\":-3}"));
	if (strcmp(b.s, "{\"ok\":true,\"e\":\"q\\\"\\u000a\",\"l\":[1,{\"x\":0.5,\"inf\":null}],\"neg\":-3}"))
		fprintf(stderr, "got %s\n", b.s);
	jb_free(&b);
}

static void test_lagstat(void)
{
	static struct lagstat s;
	uint64_t p50, p99;
	int i;

	CHECK(lagstat_quantile(&s, 0.5) == 0);
	/* 1..1000 us uniformly */
	for (i = 1; i <= 1000; i++)
		lagstat_add(&s, (int64_t)i * 1000);
	p50 = lagstat_quantile(&s, 0.5);
	p99 = lagstat_quantile(&s, 0.99);
	/* bucket resolution is 1/8 octave: within 12.5% above the true value */
	CHECK(p50 >= 500000 && p50 <= 500000 * 1.125 + 1);
	CHECK(p99 >= 990000 && p99 <= 1000000);     /* capped at the true max */
	CHECK(lagstat_quantile(&s, 1.0) == 1000000);
	CHECK(s.max_ns == 1000000 && s.count == 1000);
	lagstat_add(&s, -5);                          /* early counts as 0 */
	CHECK(s.count == 1001 && lagstat_quantile(&s, 0.0) == 0);
	lagstat_add(&s, (int64_t)1 << 62);           /* beyond the last bucket */
	CHECK(s.max_ns == (uint64_t)1 << 62);
	CHECK(lagstat_quantile(&s, 1.0) == (uint64_t)1 << 62);
	CHECK(lagstat_quantile(&s, 0.5) <= 500000 * 1.125 + 1);
}

int main(void)
{
	test_parse();
	test_write();
	test_lagstat();
	CHECK_DONE();
}

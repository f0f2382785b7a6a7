/* test_mobility.c - radios that follow trajectories (core/mobility.c).
 *
 *   test_mobility          the checks below; exit 0 = all held
 *   test_mobility eval     read "T X Y Z" waypoint lines, a blank line, then
 *                          one time per line; print each position as three
 *                          C99 hex floats (tests/medium/test_mobility_core.py
 *                          compares them with Python's Trajectory.position_at)
 *
 * Checks: the interpolation at waypoints, between them, before the first and
 * after the last, at a jump (two waypoints at one time); a medium places a
 * radio on its trajectory at the time of each advance and enqueue, and its
 * link powers are then those of a radio standing still at that place; a radio
 * without a trajectory keeps its links; an event inside one advance is judged
 * at its own time; set_position is refused while a trajectory is in force; the
 * mobility origin shifts the time. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "medium.h"

static int failures;

#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static void at(const struct medium_waypoint *w, int n, double t, double *p)
{
	medium_trajectory_position(w, n, t, &p[0], &p[1], &p[2]);
}

/* Exact equality: every value below is a sum or product that doubles hold. */
static void expect(const struct medium_waypoint *w, int n, double t, double x, double y,
		   double z)
{
	double p[3];
	at(w, n, t, p);
	CHECK(p[0] == x && p[1] == y && p[2] == z, "t=%g: (%.17g, %.17g, %.17g), expected "
	      "(%g, %g, %g)", t, p[0], p[1], p[2], x, y, z);
}

static void test_interpolation(void)
{
	/* 0..2 s: (0,0,0) -> (10,20,4); pause to 4 s; jump at 4 s to (100,0,0);
	 * 4..8 s: -> (100,-40,0) */
	const struct medium_waypoint w[] = {
		{ 2, 0, 0, 0 }, { 4, 10, 20, 4 }, { 6, 10, 20, 4 },
		{ 6, 100, 0, 0 }, { 10, 100, -40, 0 },
	};
	int n = 5;
	expect(w, n, -1, 0, 0, 0);		/* before the first: the first */
	expect(w, n, 0, 0, 0, 0);
	expect(w, n, 2, 0, 0, 0);		/* at a waypoint */
	expect(w, n, 3, 5, 10, 2);		/* half way */
	expect(w, n, 3.5, 7.5, 15, 3);
	expect(w, n, 4, 10, 20, 4);
	expect(w, n, 5, 10, 20, 4);		/* pause */
	expect(w, n, 6, 100, 0, 0);		/* jump: the later waypoint holds */
	expect(w, n, nextafter(6, 0), 10, 20, 4);	/* and not a bit before */
	expect(w, n, 8, 100, -20, 0);
	expect(w, n, 10, 100, -40, 0);		/* at the last */
	expect(w, n, 1e6, 100, -40, 0);		/* after the last: the last */

	const struct medium_waypoint one[] = { { 3, 1, 2, 3 } };
	expect(one, 1, 0, 1, 2, 3);
	expect(one, 1, 3, 1, 2, 3);
	expect(one, 1, 9, 1, 2, 3);

	/* a jump at the start: from t on, the later one */
	const struct medium_waypoint start[] = { { 0, 5, 5, 0 }, { 0, 7, 7, 0 }, { 1, 8, 7, 0 } };
	expect(start, 3, 0, 7, 7, 0);
	expect(start, 3, 0.5, 7.5, 7, 0);

	/* the result stays between a leg's ends although a + (b - a) f rounds */
	const struct medium_waypoint odd[] = { { 0, 0.1, 0, 0 }, { 0.3, 0.7, 0, 0 } };
	for (int k = 0; k <= 3000; k++) {
		double p[3];
		at(odd, 2, k * 1e-4, p);
		CHECK(p[0] >= 0.1 && p[0] <= 0.7, "t=%g: x=%.17g outside [0.1, 0.7]", k * 1e-4, p[0]);
	}
}

static const char *CONFIG =
	"seed 3\npropagation two_ray\ndefaults phy b tx_range 250 cs_range 550\n"
	"radio 02:00:00:00:00:01 name a pos 0 0 0\n"
	"radio 02:00:00:00:00:02 name b pos 999 999 0\n"
	"radio 02:00:00:00:00:03 name c pos 0 100 0\n"
	"waypoint b 0 50 0 0\nwaypoint b 10 550 0 0\n";

static struct medium *medium_of(const char *text)
{
	struct medium_config cfg;
	char err[256];
	if (medium_config_parse(text, "test", &cfg, err, sizeof err) < 0) {
		fprintf(stderr, "config: %s\n", err);
		exit(2);
	}
	struct medium *m = medium_new(&cfg);
	medium_config_free(&cfg);
	if (!m) {
		fprintf(stderr, "medium_new failed\n");
		exit(2);
	}
	return m;
}

/* a's and c's mean power at b and back, for b standing still at (x, y, z) */
static void static_powers(double x, double y, double z, double out[4])
{
	char text[1024];
	snprintf(text, sizeof text,
		 "seed 3\npropagation two_ray\ndefaults phy b tx_range 250 cs_range 550\n"
		 "radio 02:00:00:00:00:01 name a pos 0 0 0\n"
		 "radio 02:00:00:00:00:02 name b pos %.17g %.17g %.17g\n"
		 "radio 02:00:00:00:00:03 name c pos 0 100 0\n", x, y, z);
	struct medium *m = medium_of(text);
	out[0] = medium_rx_power_dbm(m, 0, 1);
	out[1] = medium_rx_power_dbm(m, 1, 0);
	out[2] = medium_rx_power_dbm(m, 2, 1);
	out[3] = medium_rx_power_dbm(m, 1, 2);
	medium_free(m);
}

static void expect_b_at(struct medium *m, double t_s)
{
	const struct medium_waypoint w[] = { { 0, 50, 0, 0 }, { 10, 550, 0, 0 } };
	double want[3], got[3], p[4];
	at(w, 2, t_s, want);
	medium_radio_position(m, 1, &got[0], &got[1], &got[2]);
	CHECK(got[0] == want[0] && got[1] == want[1] && got[2] == want[2],
	      "t=%g s: b at (%.17g, %.17g, %.17g), trajectory says (%.17g, %.17g, %.17g)", t_s,
	      got[0], got[1], got[2], want[0], want[1], want[2]);
	static_powers(want[0], want[1], want[2], p);
	CHECK(medium_rx_power_dbm(m, 0, 1) == p[0] && medium_rx_power_dbm(m, 1, 0) == p[1] &&
	      medium_rx_power_dbm(m, 2, 1) == p[2] && medium_rx_power_dbm(m, 1, 2) == p[3],
	      "t=%g s: b's link powers %.17g %.17g %.17g %.17g, standing there %.17g %.17g "
	      "%.17g %.17g", t_s, medium_rx_power_dbm(m, 0, 1), medium_rx_power_dbm(m, 1, 0),
	      medium_rx_power_dbm(m, 2, 1), medium_rx_power_dbm(m, 1, 2), p[0], p[1], p[2], p[3]);
}

static void test_medium_follows(void)
{
	struct medium *m = medium_of(CONFIG);
	double a_c = medium_rx_power_dbm(m, 0, 2);
	expect_b_at(m, 0);			/* placed at time 0 by medium_new */
	CHECK(medium_radio_has_trajectory(m, 1) && !medium_radio_has_trajectory(m, 0),
	      "has_trajectory wrong");
	static const double times[] = { 0.001, 1, 2.5, 4, 7.25, 10, 12 };
	for (size_t k = 0; k < sizeof times / sizeof times[0]; k++) {
		medium_advance(m, (uint64_t)llround(times[k] * 1e9));
		expect_b_at(m, times[k]);
	}
	CHECK(medium_rx_power_dbm(m, 0, 2) == a_c, "a-c changed though neither moved");

	/* a frame enqueued at a new time is judged where b is then */
	struct medium_frame_info fi = { .len = 100 };
	memset(fi.dst, 0xff, 6);
	fi.rates[0] = (struct medium_rate){ 0, 1, 0 };
	for (int e = 1; e < MEDIUM_MAX_RATES; e++)
		fi.rates[e].idx = -1;
	medium_enqueue(m, 13000000000ULL, 0, &fi);
	expect_b_at(m, 13);

	/* set_position is refused while b follows its trajectory ... */
	CHECK(medium_set_position(m, 1, 1, 2, 3) == -EBUSY, "set_position of a moving radio");
	expect_b_at(m, 13);
	CHECK(medium_set_position(m, 0, 0, 0, 0) == 0, "set_position of a radio standing still");
	/* ... and taken once the trajectory is removed; b then stays where it was */
	CHECK(medium_set_trajectory(m, 1, NULL, 0) == 0, "removing a trajectory");
	medium_advance(m, 14000000000ULL);
	double x, y, z;
	medium_radio_position(m, 1, &x, &y, &z);
	CHECK(x == 550 && y == 0 && z == 0, "b left where it was: (%g, %g, %g)", x, y, z);
	CHECK(medium_set_position(m, 1, 1, 2, 3) == 0, "set_position after the trajectory");
	medium_free(m);
}

static void test_origin_and_set_trajectory(void)
{
	struct medium *m = medium_of(CONFIG);
	medium_advance(m, 5000000000ULL);		/* b at 5 s: x = 300 */
	expect_b_at(m, 5);
	medium_set_mobility_origin(m, 4000000000ULL);	/* now is mobility time 1 s */
	expect_b_at(m, 1);
	medium_set_mobility_origin(m, 9000000000ULL);	/* before time 0: the first waypoint */
	expect_b_at(m, 0);
	medium_advance(m, 11500000000ULL);
	expect_b_at(m, 2.5);

	const struct medium_waypoint bad[] = { { 1, 0, 0, 0 }, { 0.5, 1, 0, 0 } };
	CHECK(medium_set_trajectory(m, 1, bad, 2) == -EINVAL, "decreasing times accepted");
	const struct medium_waypoint neg[] = { { -1, 0, 0, 0 } };
	CHECK(medium_set_trajectory(m, 1, neg, 1) == -EINVAL, "negative time accepted");
	CHECK(medium_set_trajectory(m, 7, neg, 0) == -EINVAL, "radio 7 of 3 accepted");
	const struct medium_waypoint jump[] = { { 2, 60, 0, 0 }, { 2, 70, 0, 0 } };
	CHECK(medium_set_trajectory(m, 2, jump, 2) == 0, "a trajectory for c");
	double x, y, z;
	medium_radio_position(m, 2, &x, &y, &z);
	CHECK(x == 70 && y == 0 && z == 0, "c at (%g, %g, %g) at 2.5 s, expected (70, 0, 0)",
	      x, y, z);
	medium_free(m);
}

static int delivered[2];

static void on_deliver(void *ctx, const struct medium_rx_info *rx)
{
	(void)ctx;
	if (rx->cookie < 2)
		delivered[rx->cookie]++;
}

static void on_status(void *ctx, const struct medium_tx_report *rep)
{
	(void)ctx;
	(void)rep;
}

/* An event inside one medium_advance call is judged where the radios are at
 * its own time, not at the call's start: b jumps out of range 5 ms after a
 * queues two broadcasts (1500 bytes at 1 Mbit/s, 12 ms on the air each).  The
 * first started before the jump (its power at b is fixed at its start), the
 * second starts after the first, inside the same advance, when b is gone. */
static void test_events_inside_one_advance(void)
{
	struct medium *m = medium_of(
		"seed 1\npropagation two_ray\ndefaults phy b tx_range 250 cs_range 550\n"
		"radio 02:00:00:00:00:01 name a pos 0 0 0\n"
		"radio 02:00:00:00:00:02 name b pos 50 0 0\n"
		"waypoint b 1.005 50 0 0\nwaypoint b 1.005 5000 0 0\n");
	struct medium_callbacks cb = { NULL, on_deliver, on_status, NULL };
	medium_set_callbacks(m, &cb);
	medium_advance(m, 1000000000ULL);
	for (uint64_t k = 0; k < 2; k++) {
		struct medium_frame_info fi = { .len = 1500, .cookie = k };
		memset(fi.dst, 0xff, 6);
		fi.rates[0] = (struct medium_rate){ 0, 1, 0 };
		for (int e = 1; e < MEDIUM_MAX_RATES; e++)
			fi.rates[e].idx = -1;
		medium_enqueue(m, 1000000000ULL, 0, &fi);
	}
	medium_advance(m, 2000000000ULL);
	CHECK(delivered[0] == 1 && delivered[1] == 0, "deliveries to b %d %d, expected 1 0 "
	      "(the second frame starts after b's jump)", delivered[0], delivered[1]);
	medium_free(m);
}

static void test_config_errors(void)
{
	static const struct { const char *text, *want; } cases[] = {
		{ "radio 02:00:00:00:00:01 name a\nwaypoint b 0 0 0 0\n",
		  "test:2: waypoint: no radio 'b' defined above this line" },
		{ "radio 02:00:00:00:00:01 name a\nwaypoint a 0 0 0\n",
		  "test:2: waypoint: expected waypoint RADIO T X Y Z (s, m)" },
		{ "radio 02:00:00:00:00:01 name a\nwaypoint a -1 0 0 0\n",
		  "test:2: waypoint: time -1 s is negative" },
		{ "radio 02:00:00:00:00:01 name a\nwaypoint a 2 0 0 0\nwaypoint a 1 0 0 0\n",
		  "test:3: waypoint: time 1 s of a is before its previous waypoint's 2 s" },
		{ "radio 02:00:00:00:00:01 name a\nwaypoint a 1 nan 0 0\n",
		  "test:2: waypoint: not a number: 'nan'" },
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		struct medium_config cfg;
		char err[256] = "";
		int rc = medium_config_parse(cases[k].text, "test", &cfg, err, sizeof err);
		CHECK(rc == -EINVAL && strstr(err, cases[k].want), "config %zu: rc %d, '%s', "
		      "expected '%s'", k, rc, err, cases[k].want);
	}
}

/* eval mode: waypoints, a blank line, then times; positions as hex floats */
static int eval(void)
{
	struct medium_waypoint *w = NULL;
	int n = 0;
	char line[256];
	while (fgets(line, sizeof line, stdin) && line[0] != '\n') {
		w = realloc(w, (size_t)(n + 1) * sizeof(*w));
		if (!w || sscanf(line, "%lf %lf %lf %lf", &w[n].t_s, &w[n].x, &w[n].y,
				 &w[n].z) != 4)
			return 2;
		n++;
	}
	while (fgets(line, sizeof line, stdin)) {
		double t, p[3];
		if (sscanf(line, "%lf", &t) != 1)
			return 2;
		at(w, n, t, p);
		printf("%a %a %a\n", p[0], p[1], p[2]);
	}
	free(w);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "eval"))
		return eval();
	test_interpolation();
	test_medium_follows();
	test_origin_and_set_trajectory();
	test_events_inside_one_advance();
	test_config_errors();
	printf("{\"failures\": %d}\n", failures);
	return failures ? 1 : 0;
}

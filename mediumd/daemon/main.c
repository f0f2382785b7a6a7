/* mediumd: the wireless medium for mac80211_hwsim radios.
 *
 * Map of the daemon (mediumd/daemon/):
 *   main.c      options, setup in order, the epoll loop, shutdown
 *   relay.c     kernel frames <-> simulation core (mediumd/core/medium.h)
 *   hwsim_nl.c  MAC80211_HWSIM generic netlink (the only libnl user)
 *   control.c   control socket framing; commands.c: what the commands do
 *   capture.c   pcap records with fates; pcap.c: the file format
 *   json.c, lagstat.c, log.c   small helpers
 *
 * The loop: one epoll set holds the hwsim socket, a timerfd (CLOCK_MONOTONIC,
 * absolute, armed for the core's next event), a signalfd (SIGTERM/SIGINT) and
 * the control sockets. After every wake-up the core is advanced to "now" and
 * the timer re-armed. Errors are negative errno, printed once, here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "capture.h"
#include "commands.h"
#include "control.h"
#include "log.h"
#include "loop.h"
#include "relay.h"

#define EXIT_USAGE 2

struct options {
	const char *config, *control, *pcap, *stats_out;
	uint64_t spin_ns;           /* --spin-us: busy-wait this close to an event */
};

struct app {
	struct daemon d;
	int epfd;
	struct ev_source timer, sig, netlink;
	uint64_t armed_at;          /* absolute time the timer is set for, 0 = off */
	uint64_t spin_ns;
	struct ctl_server *ctl;
	int stop;                   /* 1: signal, exit 0; -errno: fatal */
};

static void usage(FILE *out)
{
	fprintf(out,
"usage: mediumd -c CONFIG [--control SOCKPATH] [--pcap FILE] [--stats-out FILE]\n"
"               [--log-level error|warn|info|debug]\n"
"\n"
"The wireless medium for mac80211_hwsim radios: registers with the kernel's\n"
"MAC80211_HWSIM generic netlink family and decides when, whether and to whom\n"
"every transmitted frame arrives (propagation, DCF, collisions, retries).\n"
"\n"
"  -c, --config FILE      medium config (format: docs/medium.md)\n"
"      --control PATH     control socket, JSON lines, mode 0600\n"
"      --pcap FILE        write every transmission attempt (radiotap)\n"
"      --stats-out FILE   write final counters as JSON on SIGTERM/SIGINT\n"
"      --log-level LEVEL  default warn\n"
"      --spin-us N        wake N us before each event and busy-wait for it:\n"
"                         less lag where timer wake-ups are slow, at a CPU cost\n"
"                         (default 0)\n"
"  -h, --help\n"
"\n"
"Exit status: 0 after SIGTERM/SIGINT, 1 on a runtime error, 2 on bad usage or config.\n");
}

static int parse_args(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "control", required_argument, NULL, 'C' },
		{ "pcap", required_argument, NULL, 'p' },
		{ "stats-out", required_argument, NULL, 's' },
		{ "log-level", required_argument, NULL, 'l' },
		{ "spin-us", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "c:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c': o->config = optarg; break;
		case 'C': o->control = optarg; break;
		case 'p': o->pcap = optarg; break;
		case 's': o->stats_out = optarg; break;
		case 'l':
			if (log_parse_level(optarg, &log_threshold) < 0) {
				fprintf(stderr, "mediumd: --log-level: unknown level \"%s\" (error, warn, info, debug)\n", optarg);
				return -EINVAL;
			}
			break;
		case 'S': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (end == optarg || *end || v > 1000000) {
				fprintf(stderr, "mediumd: --spin-us: expected 0..1000000, got \"%s\"\n", optarg);
				return -EINVAL;
			}
			o->spin_ns = (uint64_t)v * 1000;
			break;
		}
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "mediumd: unexpected argument \"%s\"\n", argv[optind]);
		return -EINVAL;
	}
	if (!o->config) {
		fprintf(stderr, "mediumd: -c CONFIG is required (see --help)\n");
		return -EINVAL;
	}
	return 0;
}

/* Print "mediumd: error: WHAT (-errno: strerror)" and pass err through. */
static int report(int err, const char *what)
{
	fprintf(stderr, "mediumd: error: %s (%d: %s)\n", what, err, strerror(-err));
	return err;
}

/* ---- timer ---- */

/* Arm the timer for the core's next event (spin_ns early); returns the
 * epoll timeout: 0 (poll) while spinning toward an event, else -1. */
static int arm_timer(struct app *a, uint64_t now)
{
	/* Not woken for events that can do nothing (medium.h): in the VM every
	 * wake-up is guest work, and so run time. */
	uint64_t next = medium_next_wakeup_time(a->d.m);
	struct itimerspec its = { 0 };

	if (next != UINT64_MAX && a->spin_ns) {
		if (next <= now + a->spin_ns)
			return 0;       /* close enough: poll, no timer needed */
		next -= a->spin_ns;
	}
	if (next == UINT64_MAX)
		next = 0;                       /* disarm */
	else if (next == 0)
		next = 1;                       /* 0 would disarm */
	if (next == a->armed_at)
		return -1;
	its.it_value.tv_sec = (time_t)(next / 1000000000u);
	its.it_value.tv_nsec = (long)(next % 1000000000u);
	if (timerfd_settime(a->timer.fd, TFD_TIMER_ABSTIME, &its, NULL) == 0)
		a->armed_at = next;
	return -1;
}

static void on_timer(struct ev_source *src, uint32_t events)
{
	struct app *a = container_of(src, struct app, timer);
	uint64_t expirations;
	(void)events;

	if (read(src->fd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
		a->stop = -errno;
	a->armed_at = 0;    /* fired: the next arm_timer must set it again */
}

static void on_signal(struct ev_source *src, uint32_t events)
{
	struct app *a = container_of(src, struct app, sig);
	struct signalfd_siginfo si;
	(void)events;

	if (read(src->fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		log_info("signal %u: stopping", si.ssi_signo);
		a->stop = 1;
	}
}

static void on_netlink(struct ev_source *src, uint32_t events)
{
	struct app *a = container_of(src, struct app, netlink);
	int rc = hwsim_nl_receive(a->d.nl);
	(void)events;

	if (rc < 0) {
		report(rc, "reading from the hwsim netlink socket");
		a->stop = rc;
	}
}

static int watch(struct app *a, struct ev_source *src)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = src };
	return epoll_ctl(a->epfd, EPOLL_CTL_ADD, src->fd, &ev) < 0 ? -errno : 0;
}

static int setup_fds(struct app *a)
{
	sigset_t mask;

	a->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (a->epfd < 0)
		return -errno;
	a->timer.fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	a->timer.handle = on_timer;
	if (a->timer.fd < 0)
		return -errno;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	a->sig.fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	a->sig.handle = on_signal;
	if (a->sig.fd < 0)
		return -errno;
	signal(SIGPIPE, SIG_IGN);
	/* Wake-ups as close to the event as the kernel allows (default slack: 50 us). */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	/* The medium must not wait behind the traffic it carries: with one CPU (the VM in
	 * virtual time) a normal-priority daemon waits while iperf3 and the TCP endpoints run,
	 * and that wait is delivery lag. A real-time priority runs it as soon as its timer
	 * fires. The daemon sleeps between events, and the kernel's real-time throttling
	 * bounds it anyway. Without the privilege (not root) it stays a normal task. */
	{
		struct sched_param sp = { .sched_priority = 10 };
		if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
			log_info("real-time priority not granted (%s): delivery lag may grow under load",
				strerror(errno));
	}
	if (watch(a, &a->timer) < 0 || watch(a, &a->sig) < 0)
		return -errno;
	return 0;
}

/* ---- stats file ---- */

static int write_stats(struct daemon *d, const char *path)
{
	struct jbuf b;
	char tmp[4096];
	FILE *f;
	int err = 0;

	jb_init(&b);
	jb_obj_begin(&b, NULL);
	stats_json(d, &b);
	jb_obj_end(&b);
	jb_raw(&b, "\n");
	if (b.oom) {
		jb_free(&b);
		return -ENOMEM;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);  /* atomic: write, then rename */
	f = fopen(tmp, "w");
	if (!f)
		err = -errno;
	else {
		if (fwrite(b.s, 1, b.len, f) != b.len)
			err = -EIO;
		if (fclose(f) != 0 && !err)
			err = -errno;
		if (!err && rename(tmp, path) < 0)
			err = -errno;
		if (err)
			unlink(tmp);
	}
	jb_free(&b);
	return err;
}

/* ---- main ---- */

static int run(struct app *a, const struct options *o)
{
	struct medium_config cfg;
	char msg[512];
	uint64_t last_flush = 0;
	int err, timeout = -1;

	err = medium_config_load(o->config, &cfg, msg, sizeof(msg));
	if (err < 0) {
		fprintf(stderr, "mediumd: config error: %s\n", msg);
		return EXIT_USAGE;
	}
	a->d.m = medium_new(&cfg);
	medium_config_free(&cfg);
	if (!a->d.m) {
		report(-errno, "invalid medium config");
		return EXIT_USAGE;
	}
	err = hwsim_nl_open(&a->d.nl, relay_frame_in, &a->d);
	if (err == -ENOENT) {
		report(err, "MAC80211_HWSIM family not found: is mac80211_hwsim loaded?");
		return 1;
	}
	if (err < 0)
		return report(err, "opening a generic netlink socket"), 1;
	if ((err = setup_fds(a)) < 0)
		return report(err, "setting up epoll/timerfd/signalfd"), 1;
	if (o->pcap && (err = capture_open(&a->d.cap, o->pcap, a->d.m)) < 0) {
		snprintf(msg, sizeof(msg), "opening pcap %s", o->pcap);
		return report(err, msg), 1;
	}
	if (o->pcap)
		snprintf(a->d.cap_path, sizeof(a->d.cap_path), "%s", o->pcap);
	if ((err = relay_init(&a->d, a->d.m)) < 0)
		return report(err, "initialising"), 1;
	if (o->control &&
	    (err = ctl_open(&a->ctl, o->control, a->epfd, commands_handle, &a->d)) < 0) {
		snprintf(msg, sizeof(msg), "control socket %s", o->control);
		return report(err, msg), 1;
	}
	err = hwsim_nl_register(a->d.nl);
	if (err == -EBUSY)
		return report(err, "HWSIM_CMD_REGISTER: another medium is already registered in this network namespace"), 1;
	if (err < 0)
		return report(err, "HWSIM_CMD_REGISTER"), 1;
	a->netlink.fd = hwsim_nl_fd(a->d.nl);
	a->netlink.handle = on_netlink;
	if ((err = watch(a, &a->netlink)) < 0)
		return report(err, "epoll"), 1;
	log_info("registered with hwsim: %d radios", a->d.n_radios);

	a->spin_ns = o->spin_ns;
	while (!a->stop) {
		struct epoll_event evs[32];
		int i, n = epoll_wait(a->epfd, evs, 32, timeout);
		uint64_t now;

		if (n < 0 && errno != EINTR)
			return report(-errno, "epoll_wait"), 1;
		for (i = 0; i < n; i++) {
			struct ev_source *src = evs[i].data.ptr;
			src->handle(src, evs[i].events);
		}
		now = mono_ns();
		relay_advance(&a->d, now);  /* sends what it produced: one sendmsg */
		timeout = arm_timer(a, now);
		if (a->d.cap && now - last_flush > 1000000000u) {
			capture_flush(a->d.cap);  /* readable while running */
			last_flush = now;
		}
	}
	if (a->stop < 0)
		return 1;
	if (o->stats_out && (err = write_stats(&a->d, o->stats_out)) < 0) {
		snprintf(msg, sizeof(msg), "writing stats to %s", o->stats_out);
		return report(err, msg), 1;
	}
	return 0;
}

static void cleanup(struct app *a)
{
	int err;

	ctl_close(a->ctl);
	if (a->d.nl)
		relay_flush(&a->d);
	hwsim_nl_close(a->d.nl);     /* unregisters: hwsim goes back to direct delivery */
	err = capture_close(a->d.cap);
	if (err < 0)
		report(err, "writing the pcap");
	relay_free(&a->d);
	medium_free(a->d.m);
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct app a;
	int rc;

	if (parse_args(argc, argv, &o) < 0)
		return EXIT_USAGE;
	memset(&a, 0, sizeof(a));
	a.epfd = a.timer.fd = a.sig.fd = -1;
	rc = run(&a, &o);
	cleanup(&a);
	return rc;
}

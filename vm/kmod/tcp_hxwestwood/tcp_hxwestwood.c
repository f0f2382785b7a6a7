// SPDX-License-Identifier: MIT OR GPL-2.0
/*
 * tcp_hxwestwood: TCP Westwood+ with its two constants as module parameters (paper 003, E17).
 *
 * Written for the wifi-tcp-harness from the description of Westwood+ (Mascolo, Casetti,
 * Gerla, Sanadidi, Wang, "TCP Westwood: bandwidth estimation for enhanced transport over
 * wireless links", MobiCom 2001; Grieco and Mascolo, "Performance evaluation and comparison
 * of Westwood+, New Reno and Vegas TCP congestion control", ACM CCR 34(2), 2004) and the
 * kernel's congestion-control interface (struct tcp_congestion_ops). Not derived from
 * net/ipv4/tcp_westwood.c.
 *
 * The sender estimates the bandwidth its data gets from the rate of acknowledgements: once
 * per interval of at least max(RTT, rtt_min_ms), the bytes acknowledged in the interval
 * (a duplicate ACK counts one segment, taken back when the cumulative ACK covers it) divided
 * by its length give a sample, and two low-pass stages smooth the samples:
 *
 *     raw = (C * raw + sample) / D,    bwe = (C * bwe + raw) / D
 *
 * with C = filter_c (7 in Westwood+) and D = C + 1 (filter_norm=1: a filter of gain 1, the
 * same as Linux's for C = 7) or D = 8 (filter_norm=0: Linux's ">> 3" kept while only the 7 is
 * changed, a gain of (C + 1) / 8). After three duplicate ACKs ssthresh = bwe * RTTmin / MSS
 * (at least 2) and cwnd is cut to it at the end of recovery; after a timeout ssthresh is the
 * same and cwnd 1 (the kernel's loss state). RTTmin is the smallest RTT measured on the
 * connection. Between losses cwnd grows as NewReno's. With no estimate yet, NewReno halves.
 *
 * Parameters (writable at run time: /sys/module/tcp_hxwestwood/parameters/):
 *   rtt_min_ms   shortest bandwidth sampling interval in ms (Westwood+'s RTT_MIN, 50)
 *   filter_c     the filter constant C (7)
 *   filter_norm  1: divide by C + 1; 0: divide by 8 (7 and 1 reproduce Linux's Westwood+)
 */
#include <linux/module.h>
#include <linux/math64.h>
#include <net/tcp.h>

static unsigned int rtt_min_ms = 50;
module_param(rtt_min_ms, uint, 0644);
MODULE_PARM_DESC(rtt_min_ms, "shortest bandwidth sampling interval in ms (RTT_MIN, default 50)");

static unsigned int filter_c = 7;
module_param(filter_c, uint, 0644);
MODULE_PARM_DESC(filter_c, "low-pass filter constant C (default 7)");

static bool filter_norm = true;
module_param(filter_norm, bool, 0644);
MODULE_PARM_DESC(filter_norm, "1: filter divides by C+1; 0: by 8 (default 1)");

/* Per-connection state, in the socket's congestion-control private area. */
struct hxw {
	u64 raw_bps;		/* first filter stage, bytes per second */
	u64 bwe_bps;		/* second stage: the bandwidth estimate */
	u64 since_us;		/* start of the current sampling interval */
	u32 acked;		/* bytes acknowledged in the current interval */
	u32 dup_counted;	/* bytes counted for duplicate ACKs, not yet covered */
	u32 una;		/* snd_una at the previous ACK */
	u32 rtt_us;		/* latest RTT sample */
	u32 rtt_min_us;		/* smallest RTT sample of the connection */
	u8 have_estimate;
};

static u64 smooth(u64 old, u64 sample)
{
	u32 c = READ_ONCE(filter_c);
	u64 div = READ_ONCE(filter_norm) ? (u64)c + 1 : 8;
	u64 next = div64_u64((u64)c * old + sample, div);

	/* a gain above 1 (filter_norm=0, C > 7) grows without bound: keep it finite */
	return min_t(u64, next, (u64)1 << 48);
}

static void hxw_init(struct sock *sk)
{
	struct hxw *w = inet_csk_ca(sk);

	memset(w, 0, sizeof(*w));
	w->una = tcp_sk(sk)->snd_una;
	w->since_us = tcp_clock_us();
	w->rtt_min_us = U32_MAX;
}

/* bwe * RTTmin in segments, at least 2; 0 while there is nothing to estimate from. */
static u32 hxw_window(const struct sock *sk)
{
	const struct hxw *w = inet_csk_ca(sk);
	u32 mss = tcp_sk(sk)->mss_cache;
	u64 segs;

	if (!w->have_estimate || w->rtt_min_us == U32_MAX || !mss)
		return 0;
	segs = div64_u64(w->bwe_bps * w->rtt_min_us, (u64)USEC_PER_SEC * mss);
	return (u32)max_t(u64, min_t(u64, segs, U32_MAX), 2);
}

static void hxw_sample(struct sock *sk)
{
	struct hxw *w = inet_csk_ca(sk);
	u64 now = tcp_sk(sk)->tcp_mstamp;
	u64 elapsed = now - w->since_us;
	u64 least = max_t(u64, w->rtt_us, (u64)READ_ONCE(rtt_min_ms) * USEC_PER_MSEC);
	u64 sample;

	if (!w->rtt_us || elapsed <= least)
		return;
	sample = div64_u64((u64)w->acked * USEC_PER_SEC, elapsed);
	if (!w->have_estimate) {
		w->raw_bps = sample;
		w->bwe_bps = sample;
		w->have_estimate = 1;
	} else {
		w->raw_bps = smooth(w->raw_bps, sample);
		w->bwe_bps = smooth(w->bwe_bps, w->raw_bps);
	}
	w->acked = 0;
	w->since_us = now;
}

static void hxw_in_ack(struct sock *sk, u32 flags)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct hxw *w = inet_csk_ca(sk);
	u32 cum = tp->snd_una - w->una;

	w->una = tp->snd_una;
	if (!cum) {
		if (!(flags & CA_ACK_WIN_UPDATE)) {	/* a duplicate: one segment arrived */
			w->acked += tp->mss_cache;
			w->dup_counted += tp->mss_cache;
		}
	} else if (cum <= w->dup_counted) {		/* counted already, as duplicates */
		w->dup_counted -= cum;
	} else {
		w->acked += cum - w->dup_counted;
		w->dup_counted = 0;
	}
	hxw_sample(sk);
}

static void hxw_pkts_acked(struct sock *sk, const struct ack_sample *sample)
{
	struct hxw *w = inet_csk_ca(sk);

	if (sample->rtt_us <= 0)
		return;
	w->rtt_us = sample->rtt_us;
	w->rtt_min_us = min_t(u32, w->rtt_min_us, sample->rtt_us);
}

static u32 hxw_ssthresh(struct sock *sk)
{
	u32 win = hxw_window(sk);

	return win ? win : tcp_reno_ssthresh(sk);
}

static void hxw_event(struct sock *sk, enum tcp_ca_event event)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u32 win = hxw_window(sk);

	if (!win)
		return;
	switch (event) {
	case CA_EVENT_COMPLETE_CWR:	/* end of fast recovery: cwnd down to the estimate */
		tp->snd_ssthresh = win;
		if (tcp_snd_cwnd(tp) > win)
			tcp_snd_cwnd_set(tp, win);
		break;
	case CA_EVENT_LOSS:		/* timeout: cwnd is 1, ssthresh the estimate */
		tp->snd_ssthresh = win;
		break;
	default:
		break;
	}
}

static struct tcp_congestion_ops hxw_ops __read_mostly = {
	.init		= hxw_init,
	.ssthresh	= hxw_ssthresh,
	.cong_avoid	= tcp_reno_cong_avoid,
	.undo_cwnd	= tcp_reno_undo_cwnd,
	.cwnd_event	= hxw_event,
	.in_ack_event	= hxw_in_ack,
	.pkts_acked	= hxw_pkts_acked,
	.owner		= THIS_MODULE,
	.name		= "hxwestwood",
};

static int __init hxw_register(void)
{
	BUILD_BUG_ON(sizeof(struct hxw) > ICSK_CA_PRIV_SIZE);
	return tcp_register_congestion_control(&hxw_ops);
}

static void __exit hxw_unregister(void)
{
	tcp_unregister_congestion_control(&hxw_ops);
}

module_init(hxw_register);
module_exit(hxw_unregister);

MODULE_AUTHOR("wifi-tcp-harness");
MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("TCP Westwood+ with RTT_MIN and the filter constant as parameters");

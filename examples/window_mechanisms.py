#!/usr/bin/env python3
"""The two window limits differ: a sender cwnd clamp vs a receiver window, with and without delayed ACK.

One hop of 802.11b at 2 Mbit/s (mediumd, ns-2 geometry), one reno flow, a window of W segments
(default 1) set either by the sender's congestion-window clamp (route ``cwnd lock W``, primed
and verified) or by the receiver's advertised window (route ``window W*MSS``). With Linux's
delayed ACK, a sender clamp of 1 waits for the receiver's delayed-ACK timer after every segment;
a receiver window of 1 does not (the receiver updates its window as soon as iperf3 reads).
With ``quickack`` on the receiver the two come close again. See docs/policies.md.

    harness example window_mechanisms              # in a UML guest (the default engine)
    harness example window_mechanisms -- --window 2 --duration 10
"""
from __future__ import annotations

import argparse
import copy
import os
import sys
from typing import Any, Dict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from harness.experiment import schema  # noqa: E402
from harness.experiment.execute import execute_run  # noqa: E402
from harness.experiment.sweep import expand  # noqa: E402

BASE = """\
name: window_mechanisms
topology: {builder: chain, hops: 1, geometry: ns2, phy: b, rate: 2}
policy: {congestion: reno}
flows: [{src: first, dst: last, duration: 10}]
"""


def params(hops: int, duration: float, policy: Dict[str, Any]) -> Dict[str, Any]:
    """Resolved run parameters, validated exactly as an experiment file would be."""
    p = copy.deepcopy(expand(schema.loads(BASE))[0].params)
    p["topology"]["hops"] = hops
    p["flows"][0]["duration"] = duration
    p["policy"].update(policy)
    return p


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--window", type=int, default=1, help="window in segments (default 1)")
    parser.add_argument("--hops", type=int, default=1, help="chain length (default 1)")
    parser.add_argument("--duration", type=float, default=15.0, help="seconds per flow")
    parser.add_argument("--no-quickack", action="store_true",
                        help="only the delayed-ACK rows (half the time)")
    args = parser.parse_args()

    acks = [True] if args.no_quickack else [True, False]
    rows = []
    for delayed in acks:
        for mech in ("cwnd_clamp", "rwnd_clamp"):
            policy = {mech: args.window, "delayed_ack": delayed}
            rec = execute_run(params(args.hops, args.duration, policy), 1, run_id=f"{mech}{delayed}")
            flow = rec["flows"][0]
            cwnd = [s["cwnd"] for s in flow["ss"] if s["cwnd"] is not None]
            unacked = [s["unacked"] for s in flow["ss"]]
            rows.append((mech, "delayed" if delayed else "quickack", flow["throughput_bps"] / 1e6,
                         flow.get("rtt_mean_ms"), max(cwnd, default=None),
                         max(unacked, default=None), flow.get("mss")))
            print(f"  done: {mech}={args.window}, {rows[-1][1]} ACK: {rows[-1][2]:.3f} Mbit/s",
                  file=sys.stderr)
    print(f"\n{args.hops} hop(s), 802.11b 2 Mbit/s, window {args.window} segment(s), "
          f"{args.duration:g} s per flow")
    print(f"  {'mechanism':<11} {'ACKs':<9} {'Mbit/s':>7} {'rtt ms':>7} {'max cwnd':>8} "
          f"{'max unacked':>11} {'mss':>5}")
    for mech, ack, mbps, rtt, cwnd, unacked, mss in rows:
        rtt_text = f"{rtt:.1f}" if rtt is not None else "-"
        print(f"  {mech:<11} {ack:<9} {mbps:7.3f} {rtt_text:>7} {cwnd!s:>8} {unacked!s:>11} "
              f"{mss!s:>5}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

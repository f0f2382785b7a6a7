#!/usr/bin/env python3
"""A 3-hop ad hoc chain of 4 stations with static routes; iperf3 TCP from the first to the last.

Run it in a UML guest (the default engine), its options after ``--``:
    harness example chain3 -- --duration 20
or as root where mac80211_hwsim exists: python3 examples/chain3.py
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from harness.net.network import Network  # noqa: E402
from harness.traffic.flows import ping, run_iperf  # noqa: E402
from topologies import chain  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=10.0, help="iperf3 seconds")
    parser.add_argument("--medium", default=None, help="'none' for plain hwsim")
    parser.add_argument("--rate", type=float, default=None, help="fixed legacy rate, Mbit/s")
    args = parser.parse_args()

    topo = chain.build(hops=3, spacing=200.0, mode="ibss", rate=args.rate)
    print(topo)
    with Network(topo, medium=args.medium) as net:
        first, last = "sta1", "sta4"
        rtt = ping(net, first, last, count=10)
        print(f"ping {first} -> {last}: {rtt.received}/{rtt.sent} received, "
              f"rtt min/avg/max/mdev = {rtt.min_ms}/{rtt.avg_ms}/{rtt.max_ms}/{rtt.mdev_ms} ms, "
              f"ttl {sorted(set(rtt.ttls))}")
        flow = run_iperf(net, first, last, duration=args.duration)
        print(f"iperf3 TCP {first} -> {last}: {flow.throughput_mbps:.2f} Mbit/s, "
              f"{flow.retransmits} retransmits, congestion {flow.congestion}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

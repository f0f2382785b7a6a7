"""What the committed records of this study keep besides their identity fields, by experiment
(``RECORD_KEYS``, read through ``paper``; ``harness archive pack studies/p004_optimal_cwnd`` prunes each
record to these key paths). Generated from measured key reads: studies/README.md, "Records".
"""
from __future__ import annotations

from typing import Dict, Tuple

#: Read of every experiment's records (the reports, the page, the claims).
READ: Tuple[str, ...] = (
    "flows/bytes", "flows/checks/mss/payload_bytes", "flows/duration", "flows/incomplete",
    "flows/mss", "flows/rtt_mean_ms", "flows/throughput_bps", "medium/counters/links/attempts",
    "medium/counters/links/rx_node", "medium/counters/links/successes",
    "medium/counters/links/tx_node", "medium/summary/lag_us/p50", "medium/summary/lag_us/p99",
    "timing/started",
)

#: Per experiment: READ, and the keys of per-interval samples (``flows/ss``, ``flows/intervals``,
#: ``queues/samples``) its readings read.
RECORD_KEYS: Dict[str, Tuple[str, ...]] = {
    "004_ack_hops": READ,
    "004_ack_hops_quick": READ,
    "004_flows": READ,
    "004_flows_quick": READ,
    "004_flows_ss_loop": READ,
    "004_optimal_window": READ,
    "004_optimal_window_quick": READ,
    "004_packet_size": READ,
    "004_packet_size_quick": READ,
    "004_packet_size_ss_loop": READ,
}

"""What the committed records of this study keep besides their identity fields, by experiment
(``RECORD_KEYS``, read through ``paper``; ``harness archive pack studies/p001_cwl`` prunes each
record to these key paths). Generated from measured key reads: studies/README.md, "Records".
"""
from __future__ import annotations

from typing import Dict, Tuple

#: Read of every experiment's records (the reports, the page, the claims).
READ: Tuple[str, ...] = (
    "flows/bytes", "flows/duration", "flows/incomplete", "flows/mss", "flows/retransmits",
    "flows/rtt_mean_ms", "flows/throughput_bps", "medium/counters/links/attempts",
    "medium/counters/links/rx_node", "medium/counters/links/successes",
    "medium/counters/links/tx_node", "medium/summary/lag_us/p50", "medium/summary/lag_us/p99",
    "medium/summary/links/*/attempts", "medium/summary/links/*/retry_drops",
    "medium/summary/links/*/successes", "timing/started",
)

#: Per experiment: READ, and the keys of per-interval samples (``flows/ss``, ``flows/intervals``,
#: ``queues/samples``) its readings read.
RECORD_KEYS: Dict[str, Tuple[str, ...]] = {
    "001_adaptive": READ,
    "001_adaptive_280b9a6": READ,
    "001_adaptive_quick": READ,
    "001_adaptive_vs_fixed": READ,
    "001_cwl_sweep": READ + (
        "flows/ss/cwnd",
    ),
    "001_cwl_sweep_quick": READ,
    # E9: the queue counters at the flows' start and end, the routes' wait, each flow's check
    "001_mobile": READ + (
        "flows/checks/adaptive_window/held", "flows/checks/adaptive_window/limit",
        "flows/checks/adaptive_window/primed",
        "medium/at_flows_start", "medium/summary/radios/*/busy_fraction",
        "medium/summary/radios/*/queue_drops", "medium/summary/radios/*/queue_wait_us",
        "network/routing",
    ),
    "001_cwl_sweep_reduced": READ,
}

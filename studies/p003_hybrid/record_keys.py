"""What the committed records of this study keep besides their identity fields, by experiment
(``RECORD_KEYS``, read through ``paper``; ``harness archive pack studies/p003_hybrid`` prunes each
record to these key paths). Generated from measured key reads: studies/README.md, "Records".
"""
from __future__ import annotations

from typing import Dict, Tuple

#: Read of every experiment's records (the reports, the page, the claims).
READ: Tuple[str, ...] = (
    "flows/bytes_requested", "flows/completion_s", "flows/incomplete", "flows/mss",
    "flows/retransmits", "flows/rtt_mean_ms", "flows/sender", "flows/ss_offset_s",
    "flows/throughput_bps", "medium/counters/links/attempts", "medium/counters/links/rx_node",
    "medium/counters/links/successes", "medium/counters/links/tx_node",
    "medium/summary/lag_us/p50", "medium/summary/lag_us/p99", "medium/summary/links/*/attempts",
    "medium/summary/links/*/successes", "queues/offset_s", "timing/started",
)

#: Per experiment: READ, and the keys of per-interval samples (``flows/ss``, ``flows/intervals``,
#: ``queues/samples``) its readings read.
RECORD_KEYS: Dict[str, Tuple[str, ...]] = {
    "003_ap_queue": READ + (
        "flows/ss/bytes_acked", "flows/ss/cwnd", "flows/ss/rtt_ms", "flows/ss/t",
        "queues/samples/medium/*/queue_drops", "queues/samples/medium/*/queue_len",
        "queues/samples/qdisc/*/backlog_packets", "queues/samples/qdisc/*/drops",
        "queues/samples/t",
    ),
    "003_lan": READ + (
        "flows/ss/bytes_acked", "flows/ss/cwnd", "flows/ss/rtt_ms", "flows/ss/t",
        "queues/samples/medium/*/queue_drops", "queues/samples/medium/*/queue_len",
        "queues/samples/qdisc/*/backlog_packets", "queues/samples/qdisc/*/drops",
        "queues/samples/t",
    ),
    "003_lan_quick": READ + (
        "flows/ss/bytes_acked", "flows/ss/cwnd", "flows/ss/rtt_ms", "flows/ss/t",
        "queues/samples/medium/*/queue_drops", "queues/samples/medium/*/queue_len",
        "queues/samples/qdisc/*/backlog_packets", "queues/samples/qdisc/*/drops",
        "queues/samples/t",
    ),
    "003_lan_reduced": READ + (
        "flows/ss/bytes_acked", "flows/ss/cwnd", "flows/ss/rtt_ms", "flows/ss/t",
        "queues/samples/medium/*/queue_drops", "queues/samples/medium/*/queue_len",
        "queues/samples/qdisc/*/backlog_packets", "queues/samples/qdisc/*/drops",
        "queues/samples/t",
    ),
    "003_westwood_filter": READ + (
        "flows/ss/bytes_acked", "flows/ss/cwnd", "flows/ss/rtt_ms", "flows/ss/t",
    ),
    "003_westwood_filter_ap_queue": READ + (
        "flows/ss/bytes_acked", "flows/ss/cwnd", "flows/ss/rtt_ms", "flows/ss/t",
    ),
    "003_westwood_quick": READ + (
        "flows/ss/bytes_acked", "flows/ss/cwnd", "flows/ss/rtt_ms", "flows/ss/t",
    ),
    "003_westwood_rtt_min": READ + (
        "flows/ss/bytes_acked", "flows/ss/cwnd", "flows/ss/rtt_ms", "flows/ss/t",
    ),
    "003_westwood_rtt_min_drops": READ + (
        "flows/ss/bytes_acked", "flows/ss/cwnd", "flows/ss/rtt_ms", "flows/ss/t",
    ),
}

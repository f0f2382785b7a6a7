"""What the committed records of this study keep besides their identity fields, by experiment
(``RECORD_KEYS``, read through ``paper``; ``harness archive pack studies/p002_mesh_retry`` prunes each
record to these key paths). Generated from measured key reads: studies/README.md, "Records".
"""
from __future__ import annotations

from typing import Dict, Tuple

#: Read of every experiment's records (the reports, the page, the claims).
READ: Tuple[str, ...] = (
    "flows/duration", "flows/incomplete", "flows/lost_percent", "flows/protocol",
    "flows/rtt_mean_ms", "flows/throughput_bps", "medium/counters/links/attempts",
    "medium/counters/links/rx_node", "medium/counters/links/successes",
    "medium/counters/links/tx_node", "medium/summary/lag_us/p50", "medium/summary/lag_us/p99",
    "medium/summary/links/*/attempts", "medium/summary/links/*/collisions",
    "medium/summary/links/*/successes", "medium/summary/radios/*/acked",
    "medium/summary/radios/*/busy_fraction", "medium/summary/radios/*/limit_drops",
    "medium/summary/radios/*/queue_drops", "medium/summary/radios/*/retry_drops",
    "medium/summary/radios/*/retry_long", "medium/summary/radios/*/retry_short",
    "medium/summary/radios/*/table_drops", "medium/summary/radios/*/tries",
    "medium/summary/radios/*/tx_frames", "policies/airtime_retry/history/nodes/*/diameter_hops",
    "policies/airtime_retry/history/nodes/*/diameter_metric",
    "policies/airtime_retry/history/nodes/*/limit", "policies/airtime_retry/limits/*",
    "policies/airtime_retry/value", "policies/mac80211/in_force",
    "policies/mesh_path/after/paths/*/destination_node", "policies/mesh_path/after/paths/*/flags",
    "policies/mesh_path/after/paths/*/sn", "policies/mesh_path/before/paths/*/destination_node",
    "policies/mesh_path/before/paths/*/sn", "policies/mesh_path/pairs/*/path",
    "policies/mesh_path/stations/*/*/airtime_metric",
    "policies/mesh_path/stations/*/*/expected_throughput_kbps",
    "policies/mesh_path/stations/*/*/node", "policies/mesh_path/stations/*/*/plink",
    "policies/mesh_path/stations/*/*/tx_bitrate_mbps",
    "policies/mesh_path/stations/*/*/tx_packets", "policies/mesh_path/stations/*/*/tx_retries",
    "policies/mesh_path/stray_attempts/flows", "policies/mesh_path/stray_attempts/probe",
    "timing/started",
)

#: Per experiment: READ, and the keys of per-interval samples (``flows/ss``, ``flows/intervals``,
#: ``queues/samples``) its readings read.
RECORD_KEYS: Dict[str, Tuple[str, ...]] = {
    "002_airtime_retry": READ + (
        "flows/intervals/bytes", "flows/intervals/end", "flows/intervals/start",
    ),
    "002_airtime_retry_quick": READ,
    "002_airtime_retry_reduced": READ,
    "002_bursty_hops": READ + (
        "flows/intervals/bytes", "flows/ss/backoff", "flows/ss/bytes_acked", "flows/ss/ca_state",
        "flows/ss/cwnd", "flows/ss/local", "flows/ss/peer", "flows/ss/retrans_total",
        "flows/ss/rto_ms", "flows/ss/rtt_ms", "flows/ss/t", "flows/ss/unacked",
    ),
    "002_channel": READ + (
        "flows/intervals/bytes", "flows/ss/backoff", "flows/ss/bytes_acked", "flows/ss/ca_state",
        "flows/ss/local", "flows/ss/peer", "flows/ss/retrans_total", "flows/ss/rto_ms",
        "flows/ss/t", "flows/ss/unacked",
    ),
    "002_fail_avg": READ + (
        "flows/intervals/bytes", "flows/ss/backoff", "flows/ss/bytes_acked", "flows/ss/ca_state",
        "flows/ss/cwnd", "flows/ss/local", "flows/ss/peer", "flows/ss/retrans_total",
        "flows/ss/rtt_ms", "flows/ss/t", "flows/ss/unacked",
    ),
    "002_fail_avg_bursty": READ + (
        "flows/intervals/bytes", "flows/ss/backoff", "flows/ss/bytes_acked", "flows/ss/ca_state",
        "flows/ss/cwnd", "flows/ss/local", "flows/ss/peer", "flows/ss/retrans_total",
        "flows/ss/rto_ms", "flows/ss/rtt_ms", "flows/ss/t", "flows/ss/unacked",
    ),
    "002_fail_avg_modules": READ + (
        "flows/intervals/bytes", "flows/ss/backoff", "flows/ss/bytes_acked", "flows/ss/ca_state",
        "flows/ss/cwnd", "flows/ss/local", "flows/ss/peer", "flows/ss/retrans_total",
        "flows/ss/rto_ms", "flows/ss/rtt_ms", "flows/ss/t", "flows/ss/unacked",
    ),
    "002_fail_avg_stall": READ + (
        "flows/intervals/bytes", "flows/ss/backoff", "flows/ss/bytes_acked", "flows/ss/ca_state",
        "flows/ss/local", "flows/ss/peer", "flows/ss/t", "flows/ss/unacked",
    ),
    "002_fail_avg_window": READ + (
        "flows/intervals/bytes", "flows/ss/backoff", "flows/ss/bytes_acked", "flows/ss/ca_state",
        "flows/ss/cwnd", "flows/ss/local", "flows/ss/peer", "flows/ss/rtt_ms", "flows/ss/t",
        "flows/ss/unacked",
    ),
    "002_lossy_hops": READ + (
        "flows/intervals/bytes", "flows/ss/backoff", "flows/ss/bytes_acked", "flows/ss/ca_state",
        "flows/ss/local", "flows/ss/peer", "flows/ss/retrans_total", "flows/ss/rto_ms",
        "flows/ss/rtt_ms", "flows/ss/t", "flows/ss/unacked",
    ),
    "002_lossy_hops_more": READ + (
        "flows/intervals/bytes", "flows/ss/backoff", "flows/ss/bytes_acked", "flows/ss/ca_state",
        "flows/ss/local", "flows/ss/peer", "flows/ss/retrans_total", "flows/ss/rto_ms",
        "flows/ss/rtt_ms", "flows/ss/t", "flows/ss/unacked",
    ),
    "002_peering_r1": READ + (
        "flows/intervals/bytes", "flows/ss/backoff", "flows/ss/bytes_acked", "flows/ss/ca_state",
        "flows/ss/local", "flows/ss/peer", "flows/ss/retrans_total", "flows/ss/t",
        "flows/ss/unacked",
    ),
    "002_peering_r1_25633e6": READ + (
        "flows/intervals/bytes", "flows/ss/backoff", "flows/ss/bytes_acked", "flows/ss/ca_state",
        "flows/ss/local", "flows/ss/peer", "flows/ss/retrans_total", "flows/ss/t",
        "flows/ss/unacked",
    ),
    "002_queue": READ + (
        "flows/intervals/bytes", "flows/ss/backoff", "flows/ss/bytes_acked", "flows/ss/ca_state",
        "flows/ss/local", "flows/ss/peer", "flows/ss/retrans_total", "flows/ss/t",
        "flows/ss/unacked",
    ),
    "002_retry_sweep": READ + (
        "flows/intervals/bytes", "flows/intervals/end", "flows/intervals/start",
        "flows/ss/backoff", "flows/ss/bytes_acked", "flows/ss/ca_state", "flows/ss/local",
        "flows/ss/peer", "flows/ss/retrans_total", "flows/ss/rto_ms", "flows/ss/t",
        "flows/ss/unacked",
    ),
    "002_retry_sweep_quick": READ + (
        "flows/intervals/bytes", "flows/ss/backoff", "flows/ss/bytes_acked", "flows/ss/ca_state",
        "flows/ss/local", "flows/ss/peer", "flows/ss/t", "flows/ss/unacked",
    ),
    "002_retry_sweep_reduced": READ + (
        "flows/intervals/bytes", "flows/ss/backoff", "flows/ss/bytes_acked", "flows/ss/ca_state",
        "flows/ss/cwnd", "flows/ss/local", "flows/ss/peer", "flows/ss/retrans_total",
        "flows/ss/rto_ms", "flows/ss/rtt_ms", "flows/ss/t", "flows/ss/unacked",
    ),
    "002_stall_nudge": READ + (
        "flows/intervals/bytes", "flows/intervals/rtt_us", "flows/ss/backoff",
        "flows/ss/bytes_acked", "flows/ss/ca_state", "flows/ss/local", "flows/ss/peer",
        "flows/ss/retrans_total", "flows/ss/t", "flows/ss/unacked",
    ),
}

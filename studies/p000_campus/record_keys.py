"""What the committed records of this study keep besides their identity fields, by experiment
(``RECORD_KEYS``, read through ``paper``; ``harness archive pack studies/p000_campus`` prunes each
record to these key paths). Generated from measured key reads: studies/README.md, "Records".
"""
from __future__ import annotations

from typing import Dict, Tuple

#: Read of every experiment's records (the reports, the page, the claims).
READ: Tuple[str, ...] = (
    "flows/dst", "flows/incomplete", "flows/protocol", "flows/retransmits", "flows/rtt_mean_ms",
    "flows/src", "flows/throughput_bps", "medium/counters/links/attempts",
    "medium/counters/links/rx_node", "medium/counters/links/successes",
    "medium/counters/links/tx_node", "medium/enabled", "medium/summary/lag_us/p50",
    "medium/summary/lag_us/p99", "medium/summary/links/*/airtime_us",
    "medium/summary/links/*/attempts", "medium/summary/links/*/collisions",
    "medium/summary/links/*/late_collisions", "medium/summary/links/*/retry_drops",
    "medium/summary/links/*/rts_failures", "medium/summary/links/*/successes",
    "medium/summary/radios/*/nav_resets", "medium/summary/radios/*/retry_drops",
    "medium/summary/radios/*/tries", "notes",
    "policies/tcp_recovery/sysctls/net.ipv4.tcp_early_retrans",
    "policies/tcp_recovery/sysctls/net.ipv4.tcp_frto",
    "policies/tcp_recovery/sysctls/net.ipv4.tcp_recovery", "timing/started", "traceback",
)

#: Per experiment: READ, and the keys of per-interval samples (``flows/ss``, ``flows/intervals``,
#: ``queues/samples``) its readings read.
RECORD_KEYS: Dict[str, Tuple[str, ...]] = {
    "000_all_facts": READ,
    "000_auto_eleven_loss": READ,
    "000_basic_rates": READ,
    "000_basic_rates_1hop": READ,
    "000_cck_interference": READ,
    "000_cck_loss": READ,
    "000_coherence": READ,
    "000_collision_timing": READ,
    "000_eleven_loss": READ,
    "000_fading": READ,
    "000_hops_quick": READ,
    "000_map": READ,
    "000_map_dfe3f89": READ,
    "000_map_seed2": READ,
    "000_map_seed3": READ,
    "000_nav_reset": READ,
    "000_near_stall": READ,
    "000_old_recovery": READ,
    "000_outside": READ + (
        "flows/intervals/rtt_us",
    ),
    "000_outside_heavy": READ + (
        "flows/intervals/rtt_us",
    ),
    "000_per_frame_rts": READ,
    "000_population": READ,
    "000_rate11": READ,
    "000_retry_series": READ,
    "000_retry_series_grid": READ,
    "000_rts_hidden": READ,
    "000_rts_quick": READ,
    "000_rts_threshold": READ,
    "000_rts_threshold_1hop": READ,
    "000_rts_threshold_1hop11": READ,
    "000_sender_window": READ,
    "000_sender_window_f315ce2": READ,
    "000_tx_delay": READ,
    "000_window_quickack": READ,
    "000_window_quickack_long": READ,
    "000_window_quickack_rates": READ,
    "000_window_quickack_short": READ,
}

"""The medium's delivery lag per run: how late mediumd handed frames to the kernel.

Lag is the time the kernel took a delivery minus the frame's logical end time in the medium
model (docs/medium.md). Under TCG its 99th percentile is a few milliseconds; a busy host
(another heavy process beside the VM) stretches it, and with it every exchange on the air, so
a run with a much higher p99 than its siblings measured the host as well as the network.
Reports list such runs; ``harness run --retry-lagged MS`` runs them again.
"""
from __future__ import annotations

import statistics
from typing import Any, Dict, List, Optional, Sequence, Tuple

#: Reports flag a run whose lag p99 exceeds this many times the experiment's median p99.
FLAG_FACTOR = 2.0


def lag_p99_ms(record: Dict[str, Any]) -> Optional[float]:
    """The run's delivery-lag p99 in ms, or None when the record has none (no medium, failed)."""
    try:
        return float(record["medium"]["summary"]["lag_us"]["p99"]) / 1000.0
    except (KeyError, TypeError, ValueError):
        return None


def is_lagged(record: Dict[str, Any], threshold_ms: float) -> bool:
    p99 = lag_p99_ms(record)
    return p99 is not None and p99 > threshold_ms


def flagged(records: Sequence[Dict[str, Any]],
            factor: float = FLAG_FACTOR) -> Tuple[Optional[float], float, List[Dict[str, Any]]]:
    """(median p99 ms, the flag threshold ms, the records above it), over records with a lag."""
    with_lag = [r for r in records if lag_p99_ms(r) is not None]
    if not with_lag:
        return None, 0.0, []
    median = statistics.median(lag_p99_ms(r) for r in with_lag)
    threshold = factor * median
    return median, threshold, [r for r in with_lag if is_lagged(r, threshold)]

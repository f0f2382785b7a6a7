"""The medium's delivery lag per run: how late mediumd handed frames to the kernel.

Lag is the time the kernel took a delivery minus the frame's logical end time in the medium
model (docs/medium.md). Under TCG its 99th percentile is a few milliseconds; a busy host
(another heavy process beside the VM) stretches it, and with it every exchange on the air, so
a run whose p99 is far above that of runs of the same kind measured the host as well as the
network. Reports list such runs; ``harness run --retry-lagged auto`` runs them again.

"Of the same kind" means the same sweep point apart from ``policy.*`` keys: the topology and
the flows set how much work the guest does per frame (a 15-hop chain lags more than a 1-hop
one by itself), a policy much less so.
"""
from __future__ import annotations

import statistics
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

#: A run is flagged when its lag p99 exceeds this many times the median of the others of its kind.
FLAG_FACTOR = 2.0
#: ``--retry-lagged`` takes milliseconds, or this word for "the runs the report flags".
AUTO = "auto"

Threshold = Union[float, str]


def lag_p99_ms(record: Dict[str, Any]) -> Optional[float]:
    """The run's delivery-lag p99 in ms, or None when the record has none (no medium, failed)."""
    try:
        return float(record["medium"]["summary"]["lag_us"]["p99"]) / 1000.0
    except (KeyError, TypeError, ValueError):
        return None


def kind(record: Dict[str, Any]) -> Tuple:
    """The run's sweep point without its policy keys (see the module docstring)."""
    point = record.get("point") or {}
    return tuple(sorted((k, repr(v)) for k, v in point.items() if not k.startswith("policy.")))


def flagged(records: Sequence[Dict[str, Any]], factor: float = FLAG_FACTOR
            ) -> List[Tuple[Dict[str, Any], float]]:
    """(record, median of the others of its kind) for each ok run whose p99 exceeds factor x
    that median. The run itself is left out of the median so that two repetitions can be
    told apart; a run with no other of its kind is never flagged."""
    by_kind: Dict[Tuple, List[Tuple[Dict[str, Any], float]]] = {}
    for rec in records:
        p99 = lag_p99_ms(rec)
        if p99 is not None and rec.get("status") == "ok":
            by_kind.setdefault(kind(rec), []).append((rec, p99))
    out = []
    for members in by_kind.values():
        for i, (rec, p99) in enumerate(members):
            others = [q for j, (_r, q) in enumerate(members) if j != i]
            if others and p99 > factor * statistics.median(others):
                out.append((rec, statistics.median(others)))
    return out


def to_redo(records: Sequence[Dict[str, Any]], threshold: Threshold) -> List[str]:
    """Run ids of the ok runs ``--retry-lagged THRESHOLD`` runs again: above THRESHOLD ms, or,
    for ``auto``, the runs ``flagged`` names."""
    if threshold == AUTO:
        return [rec["run_id"] for rec, _median in flagged(records)]
    return [rec["run_id"] for rec in records if rec.get("status") == "ok"
            and (lag_p99_ms(rec) or 0.0) > float(threshold)]


def describe(threshold: Threshold) -> str:
    """The threshold in words, for messages and archived records."""
    if threshold == AUTO:
        return f"above {FLAG_FACTOR:g} x the median of the others of its kind"
    return f"above {float(threshold):g} ms"

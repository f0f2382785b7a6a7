"""Pure analysis of stored records for the paper reports and tests (no kernel, no plots).

The papers count *delivered packets* (001: over 1000 s; 004 Table 1: over 100 s); we store
goodput and the MSS the sender used, so packets per second = bytes / MSS / seconds.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from harness.analysis import stats
from harness.experiment import param_paths

Series = Dict[Any, List[float]]
#: A number per run record (None: the record does not have it), e.g. ``packets_per_s``.
Metric = Callable[[Mapping[str, Any]], Optional[float]]


def flow_packets_per_s(flow: Mapping[str, Any]) -> Optional[float]:
    """Data segments per second the receiver got: bytes / payload per segment / duration."""
    mss, nbytes, dur = _number(flow.get("mss")), _number(flow.get("bytes")), _number(flow.get("duration"))
    if mss is None or nbytes is None or dur is None:
        return None
    if mss <= 0 or dur <= 0:
        return None
    return nbytes / mss / dur


def _number(v: Any) -> Optional[float]:
    """``v`` as a float when it is a number (not a bool), else None."""
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def packets_per_s(rec: Mapping[str, Any]) -> Optional[float]:
    """Sum over the run's flows (None if any flow lacks the numbers)."""
    if rec.get("status") != "ok":
        return None
    flows = rec.get("flows") or []
    rates = [r for r in (flow_packets_per_s(f) for f in flows) if r is not None]
    if not rates or len(rates) != len(flows):
        return None
    return float(sum(rates))


def throughput_kbps(rec: Mapping[str, Any]) -> Optional[float]:
    """Aggregate goodput in kbit/s (the unit paper 004 prints)."""
    if rec.get("status") != "ok" or not rec.get("flows"):
        return None
    return sum(float(f["throughput_bps"]) for f in rec["flows"]) / 1e3


def per_flow_kbps(rec: Mapping[str, Any]) -> Optional[float]:
    """Mean goodput per flow, kbit/s."""
    total = throughput_kbps(rec)
    return None if total is None else total / len(rec["flows"])


def _links(rec: Mapping[str, Any]) -> List[Mapping[str, Any]]:
    if rec.get("status") != "ok":
        return []
    links = (((rec.get("medium") or {}).get("summary") or {}).get("links") or {})
    return [v for v in links.values() if isinstance(v, Mapping)]


def medium_links(rec: Mapping[str, Any]) -> List[Mapping[str, Any]]:
    """The medium's per-link counters of an ok run, over the whole run."""
    return _links(rec)


def attempt_success(rec: Mapping[str, Any]) -> Optional[float]:
    """Share of the medium's transmission attempts (all links) that were received: the
    contention and hidden-node collisions a window limit trades against."""
    links = _links(rec)
    attempts = sum(int(l.get("attempts") or 0) for l in links)
    if attempts <= 0:
        return None
    return sum(int(l.get("successes") or 0) for l in links) / attempts


def exchange_failures(rec: Mapping[str, Any]) -> Optional[Tuple[int, int, int]]:
    """(attempts, failed at the RTS, failed at the DATA) over all links, from the medium's
    ``rts_failures`` counter; None for a record whose medium did not count them yet."""
    links = [l for l in _links(rec) if "rts_failures" in l]
    if not links:
        return None
    attempts = sum(int(l.get("attempts") or 0) for l in links)
    at_rts = sum(int(l.get("rts_failures") or 0) for l in links)
    failed = attempts - sum(int(l.get("successes") or 0) for l in links)
    return attempts, at_rts, failed - at_rts


def exchange_sums(records: Iterable[Mapping[str, Any]], key: Callable[[Mapping[str, Any]], Any]
                  ) -> Dict[Any, List[int]]:
    """``exchange_failures`` summed per ``key(rec)`` over the ok records that counted them:
    [attempts, failed at the RTS, failed at the DATA, runs]."""
    out: Dict[Any, List[int]] = {}
    for rec in records:
        got = exchange_failures(rec) if rec.get("status") == "ok" else None
        if got is None:
            continue
        sums = out.setdefault(key(rec), [0, 0, 0, 0])
        for i, v in enumerate(got + (1,)):
            sums[i] += v
    return out


def collision_sums(records: Iterable[Mapping[str, Any]], key: Callable[[Mapping[str, Any]], Any]
                   ) -> Dict[Any, List[int]]:
    """Per ``key(rec)``, over the ok records whose medium counted ``late_collisions``:
    [collisions, late collisions, runs]. A late collision was hit only by frames that began a
    slot or more after the attempt's own (a CTS sent before it holds such frames back, other
    stations' ACKs aside); the rest met a frame already on the air or begun in the same slot,
    which no RTS/CTS exchange prevents."""
    out: Dict[Any, List[int]] = {}
    for rec in records:
        links = [l for l in _links(rec) if "late_collisions" in l] \
            if rec.get("status") == "ok" else []
        if not links:
            continue
        sums = out.setdefault(key(rec), [0, 0, 0])
        sums[0] += sum(int(l.get("collisions") or 0) for l in links)
        sums[1] += sum(int(l.get("late_collisions") or 0) for l in links)
        sums[2] += 1
    return out


def fmt_share(part: int, whole: int) -> str:
    """``part`` of ``whole`` as a percentage with one decimal; "-" when nothing was sent."""
    return f"{part / whole:.1%}" if whole > 0 else "-"


def retry_drops(rec: Mapping[str, Any]) -> Optional[float]:
    """Frames the MAC gave up on after its retry limit, over all links."""
    links = _links(rec)
    return float(sum(int(l.get("retry_drops") or 0) for l in links)) if links else None


def param(rec: Mapping[str, Any], path: str) -> Any:
    return param_paths.get(rec.get("params") or {}, path, None)


def collect(records: Iterable[Mapping[str, Any]], x: str, metric: Metric,
            where: Optional[Mapping[str, Any]] = None
            ) -> Series:
    """``{x: [metric per repetition]}`` over ok records matching ``where`` (x sorted; None last)."""
    out: Series = {}
    for rec in records:
        if rec.get("status") != "ok":
            continue
        if any(not _same(param(rec, k), v) for k, v in (where or {}).items()):
            continue
        value = metric(rec)
        if value is not None:
            out.setdefault(param(rec, x), []).append(float(value))
    return dict(sorted(out.items(), key=lambda kv: (kv[0] is None, kv[0] if kv[0] is not None else 0)))


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return a == b


def means(series: Mapping[Any, Sequence[float]]) -> Dict[Any, float]:
    return {x: stats.mean(v) for x, v in series.items() if v}


def best_limited(series: Mapping[Any, Sequence[float]]) -> Optional[Any]:
    """The window limit (not None = unlimited) with the largest mean."""
    m = {x: v for x, v in means(series).items() if x is not None}
    return max(m, key=lambda x: (m[x], -x)) if m else None


def relative_to_best(series: Mapping[Any, Sequence[float]]) -> Series:
    """Every repetition divided by the best mean of any point (unlimited included), so chains
    of very different throughput share one axis and the 95 % criterion is a horizontal line."""
    m = means(series)
    top = max(m.values()) if m else 0.0
    if top <= 0:
        return {}
    return {x: [v / top for v in vs] for x, vs in series.items()}


def smallest_reaching(series: Mapping[Any, Sequence[float]], fraction: float = 0.95
                      ) -> Optional[Any]:
    """Smallest limited window whose mean reaches ``fraction`` of the best mean of any point
    (unlimited included): the "achievable window" in the sense of paper 001's Fig. 4."""
    m = means(series)
    if not m:
        return None
    top = max(m.values())
    limited = sorted(x for x in m if x is not None)
    for x in limited:
        if m[x] >= fraction * top:
            return x
    return None


def achievable_bound(hops: int) -> int:
    """The quick/slow tests' bound on the smallest window reaching 95%: ceil(2h/5) + 1."""
    return math.ceil(2 * hops / 5) + 1


def ratio(a: Optional[float], b: Optional[float]) -> Optional[float]:
    return None if a is None or b in (None, 0) else a / b


def groups_by(records: Iterable[Mapping[str, Any]], path: str) -> Dict[Any, List[Mapping[str, Any]]]:
    out: Dict[Any, List[Mapping[str, Any]]] = {}
    for rec in records:
        if rec.get("status") == "ok":
            out.setdefault(param(rec, path), []).append(rec)
    return out


def table_lines(series: Mapping[Any, Sequence[float]], x_name: str, what: str,
                marks: Optional[Mapping[Any, str]] = None) -> List[str]:
    """Markdown rows (x, n, mean ± 95% CI, min-max) for a report."""
    out = [f"| {x_name} | n | mean {what} ± 95% CI | min – max |", "|---|---|---|---|"]
    for x, vals in series.items():
        s = stats.summarize(vals)
        ci = "" if math.isnan(s.ci) else f" ± {s.ci:.3g}"
        mark = f" {marks[x]}" if marks and x in marks else ""
        label = "none" if x is None else (("on" if x else "off") if isinstance(x, bool) else x)
        out.append(f"| {label}{mark} | {s.n} | {s.mean:.4g}{ci} | {s.min:.4g} – {s.max:.4g} |")
    return out


def pairs(d: Mapping[Any, Any]) -> List[Tuple[Any, Any]]:
    return list(d.items())

"""Reading a results directory back: records, the swept keys, and named metrics per run.

Plots, reports and trend tests all ask the same questions ("throughput of this run", "which
parameters were swept"); answering them in one place keeps the numbers consistent.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence

from harness.errors import HarnessError
from harness.experiment import archive
from harness.experiment.store import EXPERIMENT_COPY, RUNS

MetricFn = Callable[[Dict[str, Any]], Optional[float]]


@dataclass(frozen=True)
class Metric:
    name: str
    label: str
    fn: MetricFn


def _flows(rec: Dict[str, Any]) -> List[Dict[str, Any]]:
    return rec.get("flows") or [] if rec.get("status") == "ok" else []


def throughput_mbps(rec: Dict[str, Any]) -> Optional[float]:
    """Aggregate goodput of all flows of the run, Mbit/s."""
    flows = _flows(rec)
    if not flows:
        return None
    return sum(float(f["throughput_bps"]) for f in flows) / 1e6


def _samples(flow: Dict[str, Any], key: str, source: str = "ss") -> List[float]:
    return [float(s[key]) for s in flow.get(source) or []
            if isinstance(s, dict) and isinstance(s.get(key), (int, float))
            and not isinstance(s.get(key), bool)]


def _mean_or_none(xs: Sequence[Optional[float]]) -> Optional[float]:
    vals = [x for x in xs if x is not None and not math.isnan(x)]
    return sum(vals) / len(vals) if vals else None


def flow_rtt_ms(flow: Dict[str, Any]) -> Optional[float]:
    """A flow's mean RTT: ``rtt_mean_ms``, else ``ss`` samples, else iperf3 intervals' rtt_us."""
    value = flow.get("rtt_mean_ms")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    from_ss = _mean_or_none(_samples(flow, "rtt_ms"))
    if from_ss is not None:
        return from_ss
    us = _mean_or_none(_samples(flow, "rtt_us", "intervals"))
    return us / 1000.0 if us is not None else None


def flow_cwnd_segments(flow: Dict[str, Any]) -> Optional[float]:
    """A flow's mean cwnd in segments: ``ss`` samples, else iperf3 snd_cwnd bytes / ``mss``."""
    from_ss = _mean_or_none(_samples(flow, "cwnd"))
    if from_ss is not None:
        return from_ss
    mss = flow.get("mss")
    cwnd_bytes = _mean_or_none(_samples(flow, "snd_cwnd", "intervals"))
    if cwnd_bytes is not None and isinstance(mss, (int, float)) and mss > 0:
        return cwnd_bytes / mss
    return None


def rtt_ms(rec: Dict[str, Any]) -> Optional[float]:
    """Mean RTT over the run's flows, ms."""
    return _mean_or_none([flow_rtt_ms(f) for f in _flows(rec)])


def cwnd_segments(rec: Dict[str, Any]) -> Optional[float]:
    """Mean congestion window over the run's flows, segments."""
    return _mean_or_none([flow_cwnd_segments(f) for f in _flows(rec)])


def retransmits(rec: Dict[str, Any]) -> Optional[float]:
    flows = _flows(rec)
    values = [f["retransmits"] for f in flows if isinstance(f.get("retransmits"), (int, float))]
    return float(sum(values)) if values else None


def jain_fairness(xs: Sequence[float]) -> float:
    """Jain's index (sum x)^2 / (n * sum x^2): 1 = equal shares, 1/n = one flow takes all."""
    xs = [float(x) for x in xs]
    if not xs:
        raise ValueError("no values")
    square_sum = sum(x * x for x in xs)
    if square_sum == 0:
        return 1.0
    return sum(xs) ** 2 / (len(xs) * square_sum)


def fairness(rec: Dict[str, Any]) -> Optional[float]:
    """Jain's index over the run's flows."""
    flows = _flows(rec)
    if not flows:
        return None
    return jain_fairness([float(f["throughput_bps"]) for f in flows])


METRICS: Dict[str, Metric] = {m.name: m for m in (
    Metric("throughput", "throughput (Mbit/s)", throughput_mbps),
    Metric("rtt", "RTT (ms)", rtt_ms),
    Metric("cwnd", "cwnd (segments)", cwnd_segments),
    Metric("retransmits", "retransmissions", retransmits),
    Metric("fairness", "Jain fairness index", fairness),
)}


def metric(name: str) -> Metric:
    if name not in METRICS:
        raise HarnessError(f"unknown metric {name!r}; allowed: {', '.join(METRICS)}")
    return METRICS[name]


@dataclass
class ResultSet:
    """Records of one results directory and the keys its experiment swept.

    ``report_dir`` is where its report and figures go: ``root``, except for an experiment of a
    record file (``harness.experiment.archive``), whose reports go where its manifest says.
    """

    root: Path
    name: str
    records: List[Dict[str, Any]]
    sweep_keys: List[str]
    report_dir: Path = field(default=None)  # type: ignore[assignment]  # None: root

    def __post_init__(self) -> None:
        if self.report_dir is None:
            self.report_dir = self.root

    @property
    def ok(self) -> List[Dict[str, Any]]:
        return [r for r in self.records if r.get("status") == "ok"]

    @property
    def failed(self) -> List[Dict[str, Any]]:
        return [r for r in self.records if r.get("status") != "ok"]


def load_results(root: Path) -> ResultSet:
    """Read ``root/runs/*.json``, or experiment ``root`` (``FOLDER/NAME``) of a folder's record
    files (``harness.experiment.archive``); a clear error if it holds no results."""
    root = Path(root)
    report_dir, copy = root, root / EXPERIMENT_COPY
    if archive.is_packed(root):
        entry = archive.entry(root)
        records, text = entry["runs"], entry["yaml"]
        report_dir = Path(os.path.normpath(root / (entry["manifest"].get("reports") or ".")))
    else:
        records, text = _read_runs(root), copy.read_text() if copy.exists() else None
    records.sort(key=lambda r: (r.get("repetition", 0), r.get("index", 0), r.get("run_id", "")))
    keys: List[str] = []
    for rec in records:
        for k in rec.get("point") or {}:
            if k not in keys:
                keys.append(k)
    name = records[0].get("experiment") or root.name
    if text is not None:
        try:
            import yaml
            name = (yaml.safe_load(text) or {}).get("name", name)
        except Exception:  # the copy is informative only
            pass
    return ResultSet(root=root, name=name, records=records, sweep_keys=keys,
                     report_dir=report_dir)


def _read_runs(root: Path) -> List[Dict[str, Any]]:
    runs_dir = root / RUNS
    if not runs_dir.is_dir():
        raise HarnessError(f"{root} is not a results directory (no {RUNS}/ inside)",
                           hint="pass the experiment's output directory, e.g. results/<name>, "
                                "or a packed one, e.g. studies/<study>/records/<name>")
    records = []
    for path in sorted(runs_dir.glob("*.json")):
        if path.name.startswith("."):
            continue
        try:
            records.append(json.loads(path.read_text()))
        except ValueError as err:
            raise HarnessError(f"{path}: not a run record ({err})") from None
    if not records:
        raise HarnessError(f"{runs_dir} holds no run records yet")
    return records


def select(records: List[Dict[str, Any]], where: Optional[Dict[str, Any]] = None) -> List[Dict[str, Any]]:
    """Successful records whose parameters match ``where`` (``{"topology.rts": True}``)."""
    from harness.experiment import param_paths
    out = []
    for rec in records:
        if rec.get("status") != "ok":
            continue
        params = rec.get("params") or {}
        if all(_equal(param_paths.get(params, k, _ABSENT), v) for k, v in (where or {}).items()):
            out.append(rec)
    return out


_ABSENT = object()


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return a == b


def series(records: List[Dict[str, Any]], x: str, metric_name: str = "throughput",
           where: Optional[Dict[str, Any]] = None) -> Dict[Any, List[float]]:
    """``{x value: [metric per repetition]}`` for trend assertions, x in run order.

    Example: ``series(rs.records, "policy.cwnd_clamp", where={"topology.hops": 3})``.
    """
    from harness.experiment import param_paths
    fn = metric(metric_name).fn
    out: Dict[Any, List[float]] = {}
    for rec in select(records, where):
        value = fn(rec)
        if value is not None:
            out.setdefault(param_paths.get(rec["params"], x, None), []).append(value)
    keys = list(out)
    if keys and all(isinstance(k, (int, float)) and not isinstance(k, bool) for k in keys):
        return {k: out[k] for k in sorted(keys)}
    return out

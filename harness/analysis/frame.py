"""A result set as one pandas DataFrame: one row per run and flow, for a notebook in one line.

    from harness.analysis import load_frame
    df = load_frame("results/quick_chain")
    df.groupby(["topology.hops", "policy.cwnd_clamp"], dropna=False)["throughput_mbps"].describe()

The records are nested JSON (parameters, flows with their samples, the medium's counters); every
analysis outside the harness would otherwise flatten them by hand, each a little differently.
Columns, in this order:

- the run: ``run_id``, ``experiment``, ``status``, ``error``, ``repetition``, ``index``,
  ``seed``, ``seconds`` (wall time of the run);
- its parameters, by the dotted paths experiments use (``topology.hops``, ``policy.cwnd_clamp``,
  ``flows[0].count``): the swept keys first (``df.attrs["sweep_keys"]``), then every other
  parameter. A swept value that is a mapping (a whole ``policy``) is shown as
  ``congestion=reno,cwnd_clamp=3``; lists become tuples, so every column can be grouped by;
- the flow: ``flow_index`` (its place in the record), every scalar field the record has
  (``src``, ``dst``, ``throughput_bps``, ``retransmits``, ``rtt_mean_ms``, ``mss``, ...;
  nested ``checks`` as ``checks.<policy>.<field>``) and the derived ``throughput_mbps``,
  ``rtt_ms`` (the same mean as ``harness.experiment.results``), ``rtt_min_ms``, ``rtt_max_ms``,
  ``cwnd_mean``, ``cwnd_min``, ``cwnd_max`` (segments; ``ss`` samples, else iperf3's);
- the medium, run-wide (the same value on each flow row of a run): ``medium_lag_us_<p50|p90|p99|
  max|mean|count>``, radio totals ``medium_queue_drops``, ``medium_tx_frames``, ``medium_acked``,
  ``medium_retry_drops``, ``medium_busy_fraction_max``/``_mean``, link totals
  ``medium_link_<attempts|successes|collisions|retry_drops|airtime_us|delivered>``, the daemon's
  frame counters ``medium_frames_<in|out|...>``, ``medium_status_lag_us_<...>``,
  ``medium_uptime_s``, ``medium_events``; other scalar entries as ``medium_<key>[_<subkey>]``.
  They are ``medium_...`` rather than dotted so they never read as the ``medium.*`` parameters.

A run without flows (a failed one, with ``status=None`` or ``"failed"``) is one row with the flow
columns empty. pandas is imported when a frame is built, not when ``harness.analysis`` is: the CLI
and the VM guest import this package without pandas.
"""
from __future__ import annotations

import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from harness.errors import HarnessError
from harness.experiment import param_paths
from harness.experiment.results import ResultSet, flow_rtt_ms, load_results
from harness.experiment.sweep import mapping_text

if TYPE_CHECKING:
    import pandas

Source = Union[str, "os.PathLike[str]", ResultSet, Iterable[Dict[str, Any]]]

#: ``status=`` values: a record's status, or every run.
STATUSES = ("ok", "failed", "all")

RUN_COLUMNS = ("run_id", "experiment", "status", "error", "repetition", "index", "seed", "seconds")
#: flow columns every frame has, even one of runs without flows (so code on it need not check).
FLOW_COLUMNS = ("flow_index", "src", "dst", "throughput_mbps", "retransmits", "rtt_ms", "rtt_min_ms",
                "rtt_max_ms", "cwnd_mean", "cwnd_min", "cwnd_max")
_RADIO_TOTALS = ("queue_drops", "tx_frames", "acked", "retry_drops")
_LINK_TOTALS = ("attempts", "successes", "collisions", "retry_drops", "airtime_us", "delivered")
#: flow fields that are series or nested, not one value per flow.
_FLOW_SERIES = ("intervals", "ss")


def load_frame(source: Source, *, status: Optional[str] = "ok") -> pandas.DataFrame:
    """One row per run and flow of ``source`` (a results directory or packed experiment as
    ``harness.experiment.results.load_results`` reads it, a loaded ``ResultSet``, or records).

    ``status``: ``"ok"`` (default: the runs a figure would use), ``"failed"``, or ``"all"``/``None``.
    ``df.attrs`` holds ``name`` (the experiment) and ``sweep_keys``.
    """
    try:
        import pandas as pd
    except ImportError:
        raise HarnessError("load_frame needs pandas, which this Python lacks",
                           hint="scripts/install-host-deps.sh installs it into .venv "
                                "(or: pip install pandas)") from None
    wanted = _status_filter(status)
    name, records, sweep_keys = _records_of(source)
    rows: List[Dict[str, Any]] = []
    groups: Dict[str, Dict[str, None]] = {"params": dict.fromkeys(sweep_keys), "flow": {},
                                          "medium": {}}
    for rec in records:
        if wanted is None or rec.get("status") == wanted:
            rows.extend(_rows(rec, sweep_keys, groups))
    flow_cols = [*groups["flow"], *(c for c in FLOW_COLUMNS if c not in groups["flow"])]
    columns = [*RUN_COLUMNS, *groups["params"], *flow_cols, *groups["medium"]]
    df = pd.DataFrame.from_records(rows, columns=columns)
    df.attrs["name"] = name
    df.attrs["sweep_keys"] = list(sweep_keys)
    return df


def param_columns(rec: Dict[str, Any], sweep_keys: Sequence[str] = ()) -> Dict[str, Any]:
    """A record's parameters by dotted path: the swept keys (as the point gives them), then the
    rest of ``params`` flattened."""
    point = rec.get("point") or {}
    params = rec.get("params") or {}
    out: Dict[str, Any] = {}
    for key in sweep_keys:
        value = point[key] if key in point else param_paths.get(params, key, None)
        out[key] = _cell(value)
    for key, value in _flatten(params, "", paths_style=True).items():
        out.setdefault(key, value)
    return out


def _rows(rec: Dict[str, Any], sweep_keys: Sequence[str],
          groups: Dict[str, Dict[str, None]]) -> List[Dict[str, Any]]:
    """One record's rows (one per flow, or one without flows); ``groups`` learns its columns."""
    base: Dict[str, Any] = {
        "run_id": rec.get("run_id"), "experiment": rec.get("experiment"),
        "status": rec.get("status"), "error": rec.get("error"),
        "repetition": rec.get("repetition"), "index": rec.get("index"), "seed": rec.get("seed"),
        "seconds": (rec.get("timing") or {}).get("seconds"),
    }
    params = param_columns(rec, sweep_keys)
    medium = medium_columns(rec.get("medium"))
    groups["params"].update(dict.fromkeys(params))
    groups["medium"].update(dict.fromkeys(medium))
    base.update(params)
    base.update(medium)
    flows = rec.get("flows") or []
    if not flows:
        return [base]
    rows = []
    for i, flow in enumerate(flows):
        row = dict(base)
        for key, value in flow_columns(flow, i).items():
            col = f"flow.{key}" if key in base else key  # never hide a run or parameter column
            groups["flow"][col] = None
            row[col] = value
        rows.append(row)
    return rows


def flow_columns(flow: Dict[str, Any], position: int) -> Dict[str, Any]:
    """A flow's scalar fields, its nested ``checks`` flattened, and the derived statistics."""
    out: Dict[str, Any] = {"flow_index": position}
    for key, value in flow.items():
        if key in _FLOW_SERIES:
            continue
        if isinstance(value, dict):
            out.update(_flatten(value, key, paths_style=True))
        elif not isinstance(value, list):
            out[key] = value
    bps = _float(flow.get("throughput_bps"))
    out["throughput_mbps"] = bps / 1e6 if bps is not None else None
    rtts = _rtt_samples_ms(flow)
    out["rtt_ms"] = flow_rtt_ms(flow)
    out["rtt_min_ms"] = min(rtts) if rtts else None
    out["rtt_max_ms"] = max(rtts) if rtts else None
    cwnds = _cwnd_samples(flow)
    out["cwnd_mean"] = math.fsum(cwnds) / len(cwnds) if cwnds else None
    out["cwnd_min"] = min(cwnds) if cwnds else None
    out["cwnd_max"] = max(cwnds) if cwnds else None
    return out


def medium_columns(medium: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    """The run's medium record reduced to ``medium_*`` columns (see the module docstring)."""
    if not isinstance(medium, dict):
        return {}
    out: Dict[str, Any] = {}
    for key, value in medium.items():
        if key in ("settings", "summary", "counters"):
            continue  # settings are the medium.* parameters; the others are reduced below
        out.update(_flatten({key: value}, "medium", paths_style=False))
    summary = medium.get("summary") or {}
    counters = medium.get("counters") or {}
    lag = summary.get("lag_us") or counters.get("lag_us")
    if isinstance(lag, dict):
        out.update(_flatten(lag, "medium_lag_us", paths_style=False))
    radios = list((summary.get("radios") or {}).values()) or list(counters.get("radios") or [])
    if radios:
        for key in _RADIO_TOTALS:
            out[f"medium_{key}"] = _total(r.get(key) for r in radios)
        busy = [float(r["busy_fraction"]) for r in radios if _number(r.get("busy_fraction"))]
        out["medium_busy_fraction_max"] = max(busy) if busy else None
        out["medium_busy_fraction_mean"] = math.fsum(busy) / len(busy) if busy else None
    links = list((summary.get("links") or {}).values()) or list(counters.get("links") or [])
    if links:
        for key in _LINK_TOTALS:
            out[f"medium_link_{key}"] = _total(l.get(key) for l in links)
    for key in ("frames", "status_lag_us"):
        if isinstance(counters.get(key), dict):
            out.update(_flatten(counters[key], f"medium_{key}", paths_style=False))
    for key in ("uptime_s", "events"):
        if key in counters:
            out[f"medium_{key}"] = counters[key]
    return out


# -- helpers ----------------------------------------------------------------------------------

def _status_filter(status: Optional[str]) -> Optional[str]:
    if status is None or status == "all":
        return None
    if status not in STATUSES:
        raise HarnessError(f"load_frame: status={status!r} is not one of "
                           f"{', '.join(repr(s) for s in STATUSES)} or None")
    return status


def _records_of(source: Source) -> Tuple[Optional[str], List[Dict[str, Any]], List[str]]:
    """(name, records, sweep keys) of whatever ``load_frame`` was given."""
    if isinstance(source, (str, os.PathLike)):
        source = load_results(Path(source))
    if isinstance(source, ResultSet):
        return source.name, source.records, list(source.sweep_keys)
    if isinstance(source, dict):
        raise HarnessError("load_frame: pass a results directory, a ResultSet or a list of "
                           "records, not one record", hint="load_frame([record])")
    records = list(source)
    keys: List[str] = []
    for rec in records:
        for k in rec.get("point") or {}:
            if k not in keys:
                keys.append(k)
    name = next((r.get("experiment") for r in records if r.get("experiment")), None)
    return name, records, keys


def _flatten(data: Dict[str, Any], prefix: str, *, paths_style: bool) -> Dict[str, Any]:
    """Leaves of nested dicts (and lists of dicts) by path: ``a.b[0].c`` when ``paths_style``,
    else ``a_b_0_c``. Lists of plain values become tuples (hashable, so groupby works)."""
    out: Dict[str, Any] = {}

    def name(base: str, key: Union[str, int]) -> str:
        if paths_style:
            return param_paths.join(base, key) if base else str(key)
        return f"{base}_{key}" if base else str(key)

    def walk(value: Any, at: str) -> None:
        if isinstance(value, dict) and value:
            for k, v in value.items():
                walk(v, name(at, str(k)))
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for i, v in enumerate(value):
                walk(v, name(at, i))
        else:
            out[at] = _cell(value)

    walk(data, prefix)
    return out


def _cell(value: Any) -> Any:
    """A value pandas can group by: lists become tuples, an empty mapping ``None``."""
    if isinstance(value, list):
        return tuple(_cell(v) for v in value)
    if isinstance(value, dict):
        return mapping_text(value) if value else None
    return value


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _float(value: Any) -> Optional[float]:
    return float(value) if _number(value) else None


def _total(values: Iterable[Any]) -> Optional[float]:
    nums = [v for v in values if _number(v)]
    return sum(nums) if nums else None


def _samples(flow: Dict[str, Any], source: str, key: str) -> List[float]:
    return [float(s[key]) for s in flow.get(source) or []
            if isinstance(s, dict) and _number(s.get(key))]


def _rtt_samples_ms(flow: Dict[str, Any]) -> List[float]:
    return _samples(flow, "ss", "rtt_ms") or [us / 1000.0 for us in _samples(flow, "intervals", "rtt_us")]


def _cwnd_samples(flow: Dict[str, Any]) -> List[float]:
    """cwnd in segments: ``ss`` samples, else iperf3's ``snd_cwnd`` bytes over the flow's mss."""
    from_ss = _samples(flow, "ss", "cwnd")
    if from_ss:
        return from_ss
    mss = _float(flow.get("mss"))
    if mss is None or mss <= 0:
        return []
    return [b / mss for b in _samples(flow, "intervals", "snd_cwnd")]

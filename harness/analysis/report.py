"""Markdown report of a results directory: mean ± 95% CI tables per group, figures, failures.

One page a student can hand in or a researcher can paste into notes: what ran, where, and the
numbers behind every figure.
"""
from __future__ import annotations

import math
import os
import statistics
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence

from harness.analysis import stats
from harness.analysis.plot import have_matplotlib, plot, short_name, value_label
from harness.errors import HarnessError
from harness.experiment.lag import FLAG_FACTOR, flagged, lag_p99_ms
from harness.experiment.results import METRICS, ResultSet, load_results
from harness.experiment.sweep import shared_items

REPORT_METRICS = ("throughput", "rtt")
ENV_KEYS = ("where", "accel", "kernel", "iperf3", "harness_version", "python")


def _fmt(v: Optional[float]) -> str:
    return "-" if v is None or math.isnan(v) else f"{v:.3g}"


def metric_table(rs: ResultSet, metric: str, keys: Sequence[str]) -> List[str]:
    """Markdown rows: one per combination of swept values, in plan order."""
    fn = METRICS[metric].fn
    summaries = stats.summarize_by(rs.ok, list(keys), fn)
    if not summaries:
        return []
    sample = {tuple(stats._hashable(stats.param(r, k)) for k in keys): r for r in rs.ok}
    head = [short_name(k) for k in keys] + ["n", "mean ± 95% CI", "median", "min – max"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    shared = [shared_items(list({key[i] for key in summaries})) for i in range(len(keys))]
    for key, s in summaries.items():
        params = sample[key]["params"]
        cells = [value_label(k, v, params, sh) for k, v, sh in zip(keys, key, shared)]
        ci = "" if math.isnan(s.ci) else f" ± {_fmt(s.ci)}"
        cells += [str(s.n), f"{_fmt(s.mean)}{ci}", _fmt(s.median), f"{_fmt(s.min)} – {_fmt(s.max)}"]
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def environment_lines(records: Sequence[Dict]) -> List[str]:
    """One line per environment key over all records; differing values are marked mixed."""
    seen: Dict[str, List[str]] = OrderedDict()
    for rec in records:
        env = rec.get("environment") or {}
        for key in list(ENV_KEYS) + sorted(k for k in env if k not in ENV_KEYS):
            if key in env:
                text = str(env[key])
                values = seen.setdefault(key, [])
                if text not in values:
                    values.append(text)
    lines = [f"- {k}: {', '.join(v)}" + ("  (**mixed**)" if len(v) > 1 else "")
             for k, v in seen.items()]
    return lines or ["- (no environment recorded)"]


def provenance_lines(records: Sequence[Dict]) -> List[str]:
    """Which runs were made at which code revision and kernel, when the records mix them.

    A long sweep is resumed over many sessions; this table, read from the records themselves,
    says which of its runs each revision made, so no hand-kept log has to. Empty when every
    record shares one revision and kernel."""
    groups: Dict[tuple, Dict[str, Any]] = {}
    for rec in records:
        env = rec.get("environment") or {}
        key = (str(env.get("code_revision", "-")), str(env.get("kernel", "-")))
        started = str((rec.get("timing") or {}).get("started") or "-")
        group = groups.setdefault(key, {"started": [], "ok": 0})
        group["started"].append(started)
        group["ok"] += rec.get("status") == "ok"
    if len(groups) < 2:
        return []
    out = ["## Runs by code revision", "",
           "Which stored runs each code revision and kernel made, in the order they began "
           "(days as the run's clock read them; a dirty revision had uncommitted edits).", "",
           "| code revision | kernel | runs | ok | days |", "|---|---|---|---|---|"]
    for (rev, kernel), g in sorted(groups.items(), key=lambda item: min(item[1]["started"])):
        first, last = min(g["started"])[:10], max(g["started"])[:10]
        days = first if first == last else f"{first} to {last}"
        out.append(f"| {rev} | {kernel} | {len(g['started'])} | {g['ok']} | {days} |")
    return out + [""]


def planned_runs(rs: ResultSet) -> Optional[int]:
    """How many runs the experiment's plan holds (None without a readable ``plan.json``),
    so a report can say when a sweep is only partly run."""
    import json

    from harness.experiment import archive
    try:
        plan = (archive.entry(rs.root, records=False)["plan"] if archive.is_packed(rs.root)
                else json.loads((rs.root / "plan.json").read_text()))
        return len(plan["runs"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def render(rs: ResultSet, figures: Dict[str, Path], report_path: Path,
           note: str = "") -> str:
    """The Markdown text (figures given as files, linked relative to the report)."""
    keys = rs.sweep_keys
    planned = planned_runs(rs)
    out = [f"# {rs.name}", "",
           f"Results: `{rs.root}`; {len(rs.records)} run records ({len(rs.ok)} ok, "
           f"{len(rs.failed)} failed)" + (f" of {planned} planned" if planned is not None else "")
           + ".", ""]
    if keys:
        out += ["Swept: " + ", ".join(f"`{k}`" for k in keys) + ".", ""]
    if note:
        out += [note, ""]
    out += ["## Environment", ""] + environment_lines(rs.records) + [""]
    out += provenance_lines(rs.records)
    if "topology" in figures:
        rel = os.path.relpath(figures["topology"], report_path.parent)
        out += ["## Topology", "", f"The first run that finished "
                f"({_point_label(rs.ok[0])}): positions, ranges, its links coloured by the share "
                "of attempts the medium delivered, its flows' routes.", "",
                f"![topology]({rel})", ""]
    for metric in REPORT_METRICS:
        rows = metric_table(rs, metric, keys)
        label = METRICS[metric].label
        out += [f"## {label[0].upper()}{label[1:]}", ""]
        if not rows:
            out += ["No successful run reported this metric.", ""]
            continue
        if metric in figures:
            rel = os.path.relpath(figures[metric], report_path.parent)
            out += [f"![{METRICS[metric].label}]({rel})", ""]
        out += rows + [""]
    if rs.failed:
        out += ["## Failed runs", "", "| run | parameters | error |", "|---|---|---|"]
        for rec in rs.failed:
            out.append(f"| {rec.get('run_id')} | {_point_label(rec)} | {_cell(rec.get('error'))} |")
        out.append("")
    incomplete = [(rec, k, f) for rec in rs.ok for k, f in enumerate(rec.get("flows") or [])
                  if f.get("incomplete")]
    if incomplete:
        out += ["## Incomplete flows", "",
                "Their iperf3 client never reported; goodput is what the sender saw acknowledged "
                "over the flow's duration.", "",
                "| run | parameters | flow | why |", "|---|---|---|---|"]
        for rec, k, flow in incomplete:
            out.append(f"| {rec.get('run_id')} | {_point_label(rec)} | {k} | "
                       f"{_cell(flow['incomplete'])} |")
        out.append("")
    out += lag_section(rs)
    return "\n".join(out)


def lag_section(rs: ResultSet) -> List[str]:
    """The medium's delivery lag over the runs, and the runs a busy host may have perturbed."""
    p99s = [p for p in (lag_p99_ms(r) for r in rs.ok) if p is not None]
    if not p99s:
        return []
    high = flagged(rs.ok)
    out = ["## Medium timing", "",
           f"Delivery lag p99 per run (how late mediumd handed frames to the kernel; "
           f"docs/medium.md): median {statistics.median(p99s):.1f} ms, range "
           f"{min(p99s):.1f}-{max(p99s):.1f} ms.", ""]
    if not high:
        return out + [f"No run above {FLAG_FACTOR:g} x the median of the other runs of its kind "
                      "(the same point apart from policy keys).", ""]
    out += [f"{len(high)} run(s) above {FLAG_FACTOR:g} x the median of the other runs of their "
            "kind (the same point apart from policy keys). Such a lag stretches the exchanges on the air; "
            "most likely the host was busy beside the VM while they ran. "
            "`harness run FILE --output DIR --retry-lagged auto` runs them again.", "",
            "| run | parameters | lag p99 (ms) | others of its kind (ms) |", "|---|---|---|---|"]
    for rec, median in sorted(high, key=lambda h: -(lag_p99_ms(h[0]) or 0)):
        out.append(f"| {rec.get('run_id')} | {_point_label(rec)} | {lag_p99_ms(rec):.1f} | "
                   f"{median:.1f} |")
    return out + [""]


def _point_label(rec: Dict[str, Any]) -> str:
    point = ", ".join(f"{short_name(k)}={value_label(k, v, rec.get('params'))}"
                      for k, v in (rec.get("point") or {}).items())
    return f"{point} rep={rec.get('repetition')}"


def _cell(text: Any) -> str:
    return str(text or "").replace("|", "\\|").replace("\n", " ")


#: A section a caller appends to a report: (result set, report path, figure format) -> Markdown
#: ("" for none). Paper pages pass theirs (``harness.study.write_report``), so this layer does
#: not import the studies above it.
Section = Callable[[ResultSet, Path, str], str]


def write_report(root: Path, output: Optional[Path] = None, fmt: str = "png",
                 sections: Sequence[Section] = ()) -> Path:
    """Write ``report.md`` (default inside ``root``, or a packed experiment's reports
    directory) and its figures next to it, then the ``sections`` the caller adds."""
    rs = load_results(Path(root))
    output = Path(output) if output else rs.report_dir / "report.md"
    fig_dir = output.parent / f"{output.stem}-figures"
    figures: Dict[str, Path] = {}
    note = ""
    if not have_matplotlib():
        note = "Figures omitted: matplotlib is not installed here (`pip install matplotlib`)."
    else:
        topology = topology_figure(rs, fig_dir / f"topology.{fmt}", fmt)
        if topology is not None:
            figures["topology"] = topology
    if have_matplotlib() and keys_ok(rs):
        for metric in REPORT_METRICS:
            try:
                figures[metric] = plot(rs, metric=metric, fmt=fmt,
                                       output=fig_dir / f"{metric}.{fmt}")
            except HarnessError:
                pass  # no data for this metric: the section says so
    output.parent.mkdir(parents=True, exist_ok=True)
    text = render(rs, figures, output, note)
    for section in sections:
        extra = section(rs, output, fmt)
        if extra:
            text += "\n" + extra
    output.write_text(text)
    return output


def topology_figure(rs: ResultSet, path: Path, fmt: str) -> Optional[Path]:
    """The picture of the first finished run (``harness.experiment.run_scene``); None when there
    is none, or its parameters do not build here (another version's record)."""
    if not rs.ok:
        return None
    from harness.analysis.topology_figure import draw_scene
    from harness.experiment.run_scene import scene_of_record
    try:
        scene = scene_of_record(rs.ok[0])
    except (HarnessError, KeyError, TypeError, ValueError):  # a builder or a record of another version
        return None
    return draw_scene(scene.to_dict(), path, formats=[fmt])[0]


def keys_ok(rs: ResultSet) -> bool:
    """Figures need a swept parameter for the x axis."""
    return bool(rs.sweep_keys) and bool(rs.ok)

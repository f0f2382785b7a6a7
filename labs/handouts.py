"""Measured tables inside the lab handouts (``labs/*/README.md``), regenerated from results.

A handout's instructor section quotes what the harness measured, never numbers typed in:

    <!-- measured: results-archive/labs/hidden-terminal rows=topology.rts metrics=throughput,fairness range=throughput -->
    | rts | n | throughput (Mbit/s) | ... |
    <!-- end measured -->

``update(handout)`` rewrites every such block from the results it names (a results directory or
a packed archive, relative to the checkout; ``where=key:value;key:value`` keeps only the runs
with those parameters; ``range=metric`` adds its smallest and largest run; ``flow=N`` counts
only each run's flow N, 0 the file's first, so crossed flows get a table each);
``stale(handout)`` lists the blocks whose text differs from what the results give, which a
unit test asserts is none, so a handout cannot drift from its data.

    python3 labs/handouts.py labs/*/README.md           # rewrite the tables
    python3 labs/handouts.py --check labs/*/README.md   # exit 1 if one is stale

A file of the labs, not of the harness: it reads results with the harness's API.
"""
from __future__ import annotations

import math
import re
import sys
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout, run as a script

from harness.analysis import stats
from harness.analysis.plot import short_name, value_label
from harness.errors import HarnessError
from harness.experiment.results import METRICS, load_results
from harness.paths import code_root

BLOCK = re.compile(r"(<!-- measured: (?P<spec>[^>]*?) -->\n)(?P<body>.*?)(<!-- end measured -->)",
                   re.DOTALL)


def _fmt(v: float) -> str:
    return "-" if v is None or math.isnan(v) else f"{v:.3g}"


def parse_spec(text: str) -> Dict[str, Any]:
    """``PATH rows=a,b metrics=x,y [where=k:v;k:v] [range=x] [flow=N]`` -> its parts (an unknown
    word is an error naming the allowed ones)."""
    words = text.split()
    if not words or "=" in words[0]:
        raise HarnessError(f"measured block {text!r}: starts with the results path")
    spec: Dict[str, Any] = {"path": words[0], "rows": [], "metrics": ["throughput"], "where": {},
                            "ranges": [], "flow": None}
    for word in words[1:]:
        key, _, value = word.partition("=")
        if key == "rows":
            spec["rows"] = [v for v in value.split(",") if v]
        elif key == "metrics":
            spec["metrics"] = [v for v in value.split(",") if v]
            unknown = [m for m in spec["metrics"] if m not in METRICS]
            if unknown:
                raise HarnessError(f"measured block: metric {unknown[0]!r} unknown; allowed "
                                   + ", ".join(METRICS))
        elif key == "where":
            for item in value.split(";"):
                k, _, v = item.partition(":")
                spec["where"][k] = yaml.safe_load(v)
        elif key == "range":
            spec["ranges"] = [v for v in value.split(",") if v]
        elif key == "flow":
            if not value.isdigit():
                raise HarnessError(f"measured block: flow={value} is invalid: allowed a flow's "
                                   "index, 0 for the first")
            spec["flow"] = int(value)
        else:
            raise HarnessError(f"measured block: {key!r} unknown; allowed rows, metrics, "
                               "where, range, flow")
    unknown = [m for m in spec["ranges"] if m not in spec["metrics"]]
    if unknown:
        raise HarnessError(f"measured block: range={unknown[0]} is not one of its metrics")
    return spec


def measured_table(path: Path, rows: Sequence[str], metrics: Sequence[str],
                   where: Optional[Mapping[str, Any]] = None,
                   ranges: Sequence[str] = (), flow: Optional[int] = None) -> str:
    """Mean ± 95 % CI of each metric per combination of ``rows`` values, over the successful
    runs that match ``where``, in the order the runs were planned; the metrics in ``ranges``
    also get their smallest and largest run; with ``flow`` only that flow of each run counts."""
    rs = load_results(path)
    records = [r for r in rs.ok
               if all(stats._hashable(stats.param(r, k)) == stats._hashable(v)
                      for k, v in (where or {}).items())]
    if flow is not None:
        records = [dict(r, flows=[r["flows"][flow]]) for r in records
                   if len(r.get("flows") or []) > flow]
    if not records:
        raise HarnessError(f"{path}: no successful run matches {dict(where or {})}"
                           + ("" if flow is None else f" with a flow {flow}"))
    groups = stats.group_by(records, list(rows))
    head = [short_name(k) for k in rows] + ["runs"]
    for m in metrics:
        head += [METRICS[m].label] + ([f"{METRICS[m].label}: min – max"] if m in ranges else [])
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key, recs in groups.items():
        params = recs[0]["params"]
        cells = [value_label(k, v, params) for k, v in zip(rows, key)] + [str(len(recs))]
        for metric in metrics:
            values = [v for v in (METRICS[metric].fn(r) for r in recs) if v is not None]
            if not values:
                cells.append("-")
                continue
            s = stats.summarize(values)
            cells.append(_fmt(s.mean) + ("" if s.n < 2 or math.isnan(s.ci) else f" ± {_fmt(s.ci)}"))
            if metric in ranges:
                cells.append(f"{_fmt(s.min)} – {_fmt(s.max)}")
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def _blocks(text: str) -> List[Tuple[re.Match, str]]:
    """Each measured block and the text its results give now."""
    out = []
    for match in BLOCK.finditer(text):
        spec = parse_spec(match.group("spec"))
        table = measured_table(code_root() / spec["path"], spec["rows"], spec["metrics"],
                               spec["where"], spec["ranges"], spec["flow"])
        out.append((match, table))
    return out


def stale(handout: Path) -> List[str]:
    """The blocks of a handout whose table is not what their results give."""
    return [m.group("spec") for m, table in _blocks(handout.read_text()) if m.group("body") != table]


def update(handout: Path) -> int:
    """Rewrite every measured block of a handout from its results; the number of blocks."""
    text = handout.read_text()
    blocks = _blocks(text)
    for match, table in reversed(blocks):
        text = text[:match.start("body")] + table + text[match.end("body"):]
    handout.write_text(text)
    return len(blocks)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in args
    files = [Path(a) for a in args if a != "--check"]
    bad = 0
    for handout in files:
        if check:
            for spec in stale(handout):
                print(f"{handout}: stale measured block: {spec}")
                bad += 1
        else:
            print(f"{handout}: {update(handout)} measured block(s) written")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

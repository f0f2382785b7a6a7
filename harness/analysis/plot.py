"""Figures: a metric against the swept parameter, one line per group, 95% CI error bars.

Uses matplotlib's object API with the Agg canvas (no display, no pyplot global state), so it
works on headless hosts, in the VM and inside tests.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple, Type, Union

from harness.analysis import stats
from harness.errors import HarnessError
from harness.experiment import param_paths
from harness.experiment.registry import default_registry
from harness.experiment.results import ResultSet, load_results
from harness.experiment.results import metric as get_metric
from harness.experiment.sweep import flows_text, items_of, mapping_text, shared_items

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FORMATS = ("png", "svg")
NONE_GROUP = "none"


def value_label(path: str, value: Any, params: Optional[Dict[str, Any]] = None,
                shared: Sequence[Tuple[str, Any]] = ()) -> str:
    """How a parameter value is printed: null by its meaning ("unclamped"), bools as on/off,
    a mapping (a swept whole policy) by its items less those in ``shared``."""
    if items_of(value):
        return mapping_text(value, shared)
    if flows_text(value):
        return flows_text(value)
    if value is None:
        spec = default_registry().spec_for(path, params)
        return spec.null_label if spec is not None and spec.nullable else "null"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def short_name(path: str) -> str:
    """``policy.mac.rts -> rts``; ``flows[0].congestion -> congestion``."""
    return param_paths.parse(path)[-1][0]


@dataclass
class Line:
    """One plotted line: a group label and (x, summary) points in x order."""

    label: str
    points: List[Tuple[Any, stats.Summary]]


def resolve_axes(rs: ResultSet, x: Optional[str], group: Union[None, str, Sequence[str]]) -> Tuple[str, List[str]]:
    """Default x: the first swept key; default groups: the other swept keys."""
    if x is None:
        if not rs.sweep_keys:
            raise HarnessError(f"{rs.root}: nothing was swept; pass --x PARAM "
                               "(a parameter path such as topology.hops)")
        x = rs.sweep_keys[0]
    _check_path(rs, x, "--x")
    if group is None:
        groups = [k for k in rs.sweep_keys if k != x]
    elif isinstance(group, str):
        groups = [] if group == NONE_GROUP else [g.strip() for g in group.split(",") if g.strip()]
    else:
        groups = list(group)
    for g in groups:
        _check_path(rs, g, "--group")
    return x, groups


def _check_path(rs: ResultSet, path: str, option: str) -> None:
    try:
        param_paths.parse(path)
    except HarnessError as err:
        raise HarnessError(f"{option}: {err}") from None
    found = any(param_paths.get(r.get("params", {}), path, KeyError) is not KeyError for r in rs.records)
    if not found:
        swept = ", ".join(rs.sweep_keys) or "none"
        raise HarnessError(f"{option} {path}: no run has this parameter; swept here: {swept}",
                           hint="paths look like topology.hops, policy.cwnd_clamp, "
                                "policy.mac.rts, flows[0].congestion")


def lines(rs: ResultSet, x: str, groups: Sequence[str], metric: str) -> List[Line]:
    """Summaries of ``metric`` per group and x value, in the order the runs were planned."""
    fn = get_metric(metric).fn
    ok = rs.ok
    summaries = stats.summarize_by(ok, list(groups) + [x], fn)
    sample = {tuple(stats._hashable(stats.param(r, k)) for k in list(groups) + [x]): r
              for r in ok}
    shared = [shared_items(list({k[i] for k in summaries})) for i in range(len(groups))]
    out: Dict[Tuple[Any, ...], Line] = {}
    for key, summary in summaries.items():
        gkey, xval = key[:-1], key[-1]
        rec = sample[key]
        if gkey not in out:
            label = ", ".join(f"{short_name(g)}={value_label(g, v, rec['params'], s)}"
                              for g, v, s in zip(groups, gkey, shared)) \
                or get_metric(metric).label
            out[gkey] = Line(label, [])
        out[gkey].points.append((xval, summary))
    result = list(out.values())
    if _numeric([p[0] for line in result for p in line.points]):
        for line in result:
            line.points.sort(key=lambda p: p[0])
    return result


def _numeric(values: Sequence[Any]) -> bool:
    return bool(values) and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                for v in values)


def plot(rs: ResultSet, *, x: Optional[str] = None, group: Union[None, str, Sequence[str]] = None,
         metric: str = "throughput", fmt: str = "png", output: Optional[Path] = None,
         title: Optional[str] = None) -> Path:
    """Draw ``metric`` against ``x`` and save it; returns the file written."""
    if fmt not in FORMATS:
        raise HarnessError(f"--format {fmt!r}: allowed: {', '.join(FORMATS)}")
    m = get_metric(metric)
    x, groups = resolve_axes(rs, x, group)
    data = lines(rs, x, groups, metric)
    if not data:
        raise HarnessError(f"{rs.root}: no successful run has a {metric} value to plot")
    output = Path(output) if output else rs.report_dir / f"{metric}.{fmt}"
    if output.suffix.lstrip(".") not in FORMATS:
        output = output.with_suffix(f".{fmt}")
    Figure = _figure_class()

    fig = Figure(figsize=(6.4, 4.2), dpi=120)
    ax = fig.add_subplot(1, 1, 1)
    xs_all = [p[0] for line in data for p in line.points]
    numeric = _numeric(xs_all)
    categories: List[Any] = []
    if not numeric:
        for v in xs_all:
            if not any(_same(v, c) for c in categories):
                categories.append(v)
    sample_params = rs.ok[0]["params"]
    for line in data:
        xs = [p[0] if numeric else _index(categories, p[0]) for p in line.points]
        ys = [p[1].mean for p in line.points]
        err = [0.0 if math.isnan(p[1].ci) else p[1].ci for p in line.points]
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=line.label)
    if numeric and all(isinstance(v, int) for v in xs_all) and len(set(xs_all)) <= 20:
        ax.set_xticks(sorted(set(xs_all)))
    if not numeric:
        ax.set_xticks(range(len(categories)))
        ax.set_xticklabels([value_label(x, c, sample_params) for c in categories])
    ax.set_xlabel(x)
    ax.set_ylabel(m.label)
    ax.set_title(title or f"{rs.name}: {m.label} vs {short_name(x)}")
    ax.grid(True, alpha=0.3)
    if len(data) > 1 or groups:
        ax.legend(fontsize="small")
    if metric != "fairness":
        ax.set_ylim(bottom=0)
    fig.tight_layout()
    output.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(output, format=output.suffix.lstrip("."))
    return compact_png(output)


def compact_png(path: Path, colours: int = 64) -> Path:
    """Rewrite a PNG with a palette of ``colours`` (Pillow, matplotlib's own dependency): a
    quarter of the bytes for line figures, so committed reports stay small; other formats,
    or no Pillow, are left as they are."""
    if path.suffix != ".png":
        return path
    try:
        from PIL import Image
    except ImportError:
        return path
    with Image.open(path) as im:
        small = im.convert("RGB").quantize(colors=colours)
    small.save(path, optimize=True)
    return path


def have_matplotlib() -> bool:
    import importlib.util
    return importlib.util.find_spec("matplotlib") is not None


def _figure_class() -> Type[Figure]:
    """matplotlib, imported only when drawing: the CLI stays fast and the VM guest needs none."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise HarnessError("plots need matplotlib, which is not installed here",
                           hint="pip install matplotlib (plots are made on the host; "
                                "copy or share the results directory)") from None
    return Figure


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _index(categories: List[Any], value: Any) -> int:
    for i, c in enumerate(categories):
        if _same(c, value):
            return i
    raise ValueError(value)


def plot_dir(root: Path, **kwargs: Any) -> Path:
    """``plot`` on a results directory."""
    return plot(load_results(root), **kwargs)

"""Figures in the papers' layouts (matplotlib object API, Agg; imported only when drawing).

Each figure is a set of named lines ``{label: {x: [repetitions]}}``; an ``x`` of None (no
window limit) is drawn as a dashed horizontal line in the line's colour, so "limited vs
unlimited" reads at a glance as in paper 001's Fig. 2.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, List, Mapping, Optional, Sequence, Tuple

from harness.analysis import stats
from harness.analysis.plot import compact_png

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

Lines = Mapping[str, Mapping[Any, Sequence[float]]]


def _figure(panels: int = 1) -> Tuple[Figure, List[Axes]]:
    from harness.analysis.plot import _figure_class
    Figure = _figure_class()
    fig = Figure(figsize=(6.4 * panels, 4.4), dpi=110)
    return fig, [fig.add_subplot(1, panels, i + 1) for i in range(panels)]


#: Beyond this many lines the default colour cycle repeats; a sequential colour map is used.
CYCLE_LINES = 10


def _colours(n: int) -> Sequence[Any]:
    if n <= CYCLE_LINES:
        return [None] * n  # matplotlib's cycle
    from matplotlib import colormaps
    cmap = colormaps["viridis"]
    return [cmap(i / (n - 1) * 0.9) for i in range(n)]


def _label(ax: Axes, *, xlabel: str, ylabel: str, title: str) -> None:
    """Axis labels, the title, a light grid, and values from zero (every figure here)."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize="medium")
    ax.grid(True, alpha=0.3)
    ax.set_ylim(bottom=0)


def _save(fig: Figure, path: Path, note: str = "") -> Path:
    """The figure written to ``path`` (its folder made), with ``note`` at its foot."""
    if note:
        fig.text(0.01, 0.01, note, fontsize="x-small")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    return compact_png(path)


def _draw(ax: Axes, lines: Lines, *, xlabel: str, ylabel: str, title: str,
          ref_y: Optional[float] = None, xscale: Optional[str] = None) -> None:
    for (label, series), colour in zip(lines.items(), _colours(len(lines))):
        xs = [x for x in series if x is not None and series[x]]
        ys = [stats.mean(series[x]) for x in xs]
        err = [0.0 if len(series[x]) < 2 else stats.ci_half_width(series[x]) for x in xs]
        handle = ax.errorbar(xs, ys, yerr=err, marker="o", ms=3, capsize=2, label=label,
                             color=colour)
        if None in series and series[None]:
            colour = handle[0].get_color()
            ax.axhline(stats.mean(series[None]), ls="--", lw=1, color=colour)
    if ref_y is not None:
        ax.axhline(ref_y, ls=":", lw=1.2, color="k")
    if xscale == "log2":  # values spread over powers of two (retry limits 1..31): label each
        ticks = sorted({x for series in lines.values() for x in series if x is not None})
        ax.set_xscale("log", base=2)
        ax.set_xticks(ticks)
        ax.set_xticklabels([f"{x:g}" for x in ticks])
    _label(ax, xlabel=xlabel, ylabel=ylabel, title=title)
    if len(lines) > 1:
        ax.legend(fontsize="x-small", ncol=2 if len(lines) > 6 else 1)


def lines_figure(panels: Sequence[Tuple[str, Lines]], path: Path, *, xlabel: str,
                 ylabel: str, note: str = "", ref_y: Optional[float] = None,
                 xscale: Optional[str] = None) -> Path:
    """One panel per (title, lines); dashed = no limit, dotted = ``ref_y``; ``xscale="log2"``
    for x values spread over powers of two. Returns the file written."""
    fig, axes = _figure(len(panels))
    for ax, (title, lines) in zip(axes, panels):
        _draw(ax, lines, xlabel=xlabel, ylabel=ylabel, title=title, ref_y=ref_y, xscale=xscale)
    return _save(fig, path, note)


def achievable_figure(points: Mapping[str, Mapping[int, Optional[int]]], path: Path) -> Path:
    """Achievable window (smallest limit reaching 95% of the best) against round-trip hop count
    N = 2h, with paper 001's k = 1/5 line and its 1/8 .. 1/4 bound."""
    fig, (ax,) = _figure(1)
    top = 2
    for label, by_hops in points.items():
        xs = [2 * h for h, w in by_hops.items() if w is not None]
        ys = [w for w in by_hops.values() if w is not None]
        ax.plot(xs, ys, "o-", ms=4, label=label)
        top = max([top] + xs)
    ns = list(range(0, top + 2))
    ax.plot(ns, [n / 5 for n in ns], "k-", lw=1, label="k = 1/5 (paper 001)")
    ax.fill_between(ns, [n / 8 for n in ns], [n / 4 for n in ns], color="0.85",
                    label="1/8 < k < 1/4 (Corollary 1)")
    _label(ax, xlabel="round-trip hop count N = 2h", ylabel="achievable window (packets)",
           title="achievable window vs round-trip hop count")
    ax.legend(fontsize="x-small")
    return _save(fig, path)


#: A time series: (seconds, value) points in time order.
Trace = Sequence[Tuple[float, float]]


def traces_figure(panels: Sequence[Tuple[str, Mapping[str, Trace]]], path: Path, *,
                  xlabel: str = "time (s)", ylabel: str, note: str = "") -> Path:
    """One panel per (title, {label: trace}): values against time, one line per label (the
    layout of paper 003's Figs. 2-9: RTT, cwnd or throughput over one transfer)."""
    fig, axes = _figure(len(panels))
    for ax, (title, traces) in zip(axes, panels):
        for label, trace in traces.items():
            if trace:
                ax.plot([t for t, _ in trace], [v for _, v in trace], lw=1, label=label)
        _label(ax, xlabel=xlabel, ylabel=ylabel, title=title)
        if len(traces) > 1:
            ax.legend(fontsize="x-small")
    return _save(fig, path, note)


def bars_figure(groups: Mapping[str, Mapping[str, Optional[float]]], path: Path, *,
                ylabel: str, title: str, note: str = "") -> Path:
    """Grouped bars: one group per key of ``groups`` (e.g. a scenario), one bar per inner key
    (e.g. a congestion module); None leaves a gap."""
    fig, (ax,) = _figure(1)
    names = list(groups)
    inner: List[str] = []
    for g in groups.values():
        inner += [k for k in g if k not in inner]
    width = 0.8 / max(1, len(inner))
    for j, key in enumerate(inner):
        xs = [i + (j - (len(inner) - 1) / 2) * width for i in range(len(names))]
        ys = [groups[n].get(key) or 0.0 for n in names]
        ax.bar(xs, ys, width=width, label=key)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, fontsize="x-small")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize="medium")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize="x-small", ncol=min(5, len(inner)))
    return _save(fig, path, note)


def panel_grid(rows: Sequence[Sequence[Tuple[str, Lines, str]]], path: Path, *, xlabel: str,
               note: str = "") -> Path:
    """Rows x columns of panels, each (title, lines, y label), as the paper figures that put
    throughput and RTT with and without RTS/CTS side by side (paper 000, Figs. 2-13)."""
    from harness.analysis.plot import _figure_class
    Figure = _figure_class()
    n_rows, n_cols = len(rows), max(len(r) for r in rows)
    fig = Figure(figsize=(3.6 * n_cols, 2.9 * n_rows + 0.3), dpi=75, layout="constrained")
    for i, row in enumerate(rows):
        for j, (title, lines, ylabel) in enumerate(row):
            ax = fig.add_subplot(n_rows, n_cols, i * n_cols + j + 1)
            _draw(ax, lines, xlabel=xlabel if i == n_rows - 1 else "", ylabel=ylabel,
                  title=title)
            ax.tick_params(labelsize="x-small")
            ax.title.set_fontsize("small")
    if note:
        fig.suptitle(note, fontsize="small")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    return compact_png(path)

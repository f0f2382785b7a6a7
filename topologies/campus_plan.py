"""A campus floor plan: buildings, walls and routers seen from above, one panel per rate, each
link coloured by its delivery ratio from the medium's link table (``harness floorplan``).

matplotlib is imported only when drawing (the guest has none).
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, List, Optional, Sequence, Tuple

from harness.errors import HarnessError
from topologies.campus import Campus, campus_links, load_campus, router_name

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: Rates of the panels (Mbit/s): the paper's fixed rates and 11 Mbit/s.
PLAN_RATES = (2.0, 5.5, 11.0)
#: Links delivering less than this (worse direction) are not drawn.
MIN_DRAWN = 0.1
FLOOR_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def link_rows(campus: Campus, rate: float, shadowing_seed: Optional[int] = None
              ) -> List[Tuple[int, int, float]]:
    """(a, b, worse-direction delivery ratio) of every router pair at ``rate``, drawn ones only,
    weakest first (so strong links are drawn on top)."""
    table = campus_links(campus, shadowing_seed)
    ids = list(campus.routers)
    rows = []
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            p = min(table.delivery(router_name(a), router_name(b), rate),
                    table.delivery(router_name(b), router_name(a), rate))
            if p >= MIN_DRAWN:
                rows.append((a, b, p))
    return sorted(rows, key=lambda r: r[2])


def _draw_place(ax: Axes, campus: Campus) -> None:
    for w in campus.walls:
        exterior = w.kind == "exterior"
        ax.plot([w.x1, w.x2], [w.y1, w.y2], color="black" if exterior else "0.45",
                lw=2.2 if exterior else 1.2, solid_capstyle="butt", zorder=1)
    for b in campus.buildings.values():
        x0, y0, x1, y1 = b.outline
        ax.text(x0 + 1, y1 + 1.2, f"{b.name} ({b.floors} floors)", ha="left",
                va="bottom", fontsize="x-small", color="0.3")


def _draw_routers(ax: Axes, campus: Campus, named: Sequence[int]) -> None:
    floors = sorted({r.floor for r in campus.routers.values()})
    for floor in floors:
        rs = [r for r in campus.routers.values() if r.floor == floor]
        ax.scatter([r.x for r in rs], [r.y for r in rs], s=22, zorder=4,
                   marker=FLOOR_MARKERS[floor % len(FLOOR_MARKERS)],
                   facecolor="white", edgecolor="black", linewidth=0.8, label=f"floor {floor}")
    for r in campus.routers.values():
        ax.annotate(str(r.id), (r.x, r.y), xytext=(2.5, 2.5), textcoords="offset points",
                    fontsize=6, fontweight="bold" if r.id in named else "normal", zorder=5)


def draw_floorplan(campus: Campus, path: Path, *, shadowing_seed: Optional[int] = None,
                   rates: Sequence[float] = PLAN_RATES, show_paths: bool = False,
                   dpi: int = 110) -> Path:
    """Write the floor plan (PNG or SVG by ``path``'s suffix); returns ``path``."""
    try:
        from matplotlib import colormaps
        from matplotlib.cm import ScalarMappable
        from matplotlib.colors import Normalize
        from matplotlib.figure import Figure
    except ImportError:
        raise HarnessError("the floor plan needs matplotlib, which is not installed here",
                           hint="pip install matplotlib") from None
    xs = [v for w in campus.walls for v in (w.x1, w.x2)]
    ys = [v for w in campus.walls for v in (w.y1, w.y2)]
    width, height = max(xs) - min(xs) + 10, max(ys) - min(ys) + 14
    panel_h = max(2.4, min(7.0, 9.5 * height / max(width, 1.0) + 0.7))
    fig = Figure(figsize=(11.0, panel_h * len(rates) + 0.5), dpi=dpi, layout="constrained")
    axes = [fig.add_subplot(len(rates), 1, i + 1) for i in range(len(rates))]
    cmap = colormaps["RdYlGn"]
    norm = Normalize(MIN_DRAWN, 1.0)
    named = sorted({r for p in campus.paths for r in p})
    path_links = {tuple(sorted(p[i:i + 2])) for p in campus.paths for i in range(len(p) - 1)}
    seed_text = "" if shadowing_seed is None else f", shadowing seed {shadowing_seed}"
    for ax, rate in zip(axes, rates):
        _draw_place(ax, campus)
        for a, b, p in link_rows(campus, rate, shadowing_seed):
            ra, rb = campus.routers[a], campus.routers[b]
            ax.plot([ra.x, rb.x], [ra.y, rb.y], color=cmap(norm(p)), lw=0.6 + 1.4 * p,
                    alpha=0.35 + 0.55 * p, zorder=2)
        if show_paths:
            for a, b in path_links:
                ra, rb = campus.routers[a], campus.routers[b]
                ax.plot([ra.x, rb.x], [ra.y, rb.y], color="black", lw=0.8, ls="--", zorder=3)
        _draw_routers(ax, campus, named)
        ax.set_aspect("equal")
        ax.set_title(f"{campus.name}{seed_text}: links at {rate:g} Mbit/s (delivery ratio of "
                     "a 1538-byte frame, worse direction)", fontsize="small")
        ax.set_xlabel("x (m)", fontsize="x-small")
        ax.set_ylabel("y (m)", fontsize="x-small")
        ax.tick_params(labelsize="x-small")
        ax.set_xlim(min(xs) - 5, max(xs) + 5)
        ax.set_ylim(min(ys) - 5, max(ys) + 9)
    axes[0].legend(fontsize="xx-small", loc="upper right", ncol=4)
    bar = fig.colorbar(ScalarMappable(norm=norm, cmap=cmap), ax=axes, shrink=0.5, pad=0.01)
    bar.set_label("delivery ratio", fontsize="x-small")
    bar.ax.tick_params(labelsize="x-small")
    note = ("bold numbers: routers the paper names; dashed: the links of its paths"
            if show_paths else "bold numbers: routers on the campus file's paths")
    axes[-1].text(0.0, -0.18, note + f"; links below {MIN_DRAWN:g} not drawn",
                  transform=axes[-1].transAxes, fontsize="x-small", va="top")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    return path


def floorplan(campus: str, output: Optional[Path], fmt: str = "png",
              shadowing_seed: Optional[int] = None, show_paths: bool = False) -> Path:
    """Load ``campus`` and draw it to ``output`` (default ``<campus name>-floorplan.<fmt>``)."""
    if fmt not in ("png", "svg"):
        raise HarnessError(f"--format {fmt!r} is invalid: allowed png, svg")
    place = load_campus(campus)
    out = Path(output) if output else Path(f"{place.name}-floorplan.{fmt}")
    if out.suffix.lstrip(".") not in ("png", "svg"):
        raise HarnessError(f"-o {out}: the file must end in .png or .svg")
    return draw_floorplan(place, out, shadowing_seed=shadowing_seed, show_paths=show_paths)


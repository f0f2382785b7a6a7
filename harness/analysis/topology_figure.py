"""The picture of a topology: nodes where they stand, their transmission and carrier-sense
ranges, links coloured by the medium's delivery ratio, the routes in force, walls.

It draws a *scene* in its plain-data form (``harness.net.scene.Scene.to_dict()``), so the
same picture comes from a description (``harness draw FILE``), from a live network (``plot``
at the prompt, the guest's scene drawn on the host) or from a run's record (a report).
PNG and SVG, matplotlib's object API on the Agg canvas (no display needed).
"""
from __future__ import annotations

import math
import textwrap
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from harness.analysis.plot import FORMATS, _figure_class
from harness.errors import HarnessError

#: Colours of the node kinds (anything else: grey).
KIND_COLOURS = {"station": "#1f77b4", "mesh_point": "#9467bd", "managed_station": "#17becf",
                "access_point": "#d62728", "host": "#7f7f7f", "switch": "#8c564b"}
KIND_MARKERS = {"access_point": "^", "host": "s", "switch": "D"}
ROUTE_COLOURS = ("#0b3d91", "#e07b00", "#2a9d8f", "#b5179e", "#6a4c93")
#: What node labels are written on (so a route's arrow under them does not cross the text).
LABEL_GROUND = {"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none",
                "alpha": 0.75}
#: A range circle larger than this many times the nodes' extent is named, not drawn.
RANGE_LIMIT = 1.5


#: The picture's box is at most this many times wider than high (or higher than wide).
MAX_ASPECT = 3.0


def _delivery_colour(ratio: Optional[float]) -> Any:
    from matplotlib import colormaps
    if ratio is None:
        return "#b0b0b0"
    return colormaps["RdYlGn"](max(0.0, min(1.0, ratio)))


def _bounds(nodes: Sequence[Mapping[str, Any]], walls: Sequence[Sequence[float]],
            show_cs: bool) -> Tuple[float, float, float, float]:
    xs: List[float] = []
    ys: List[float] = []
    for n in nodes:
        reach = (n.get("cs_range") if show_cs else None) or n.get("tx_range") or 0.0
        reach = reach if reach <= RANGE_LIMIT * _span(nodes) + 50.0 else 0.0  # named, not drawn
        xs += [n["x"] - reach, n["x"] + reach]
        ys += [n["y"] - reach, n["y"] + reach]
    for w in walls:
        xs += [w[0], w[2]]
        ys += [w[1], w[3]]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    # no flatter than 3:1, or a line of nodes whose ranges are not drawn (an 802.11s room)
    # becomes a sliver under its labels and colour bar
    grow_y = max(0.0, (x1 - x0) / MAX_ASPECT - (y1 - y0)) / 2
    grow_x = max(0.0, (y1 - y0) / MAX_ASPECT - (x1 - x0)) / 2
    x0, x1, y0, y1 = x0 - grow_x, x1 + grow_x, y0 - grow_y, y1 + grow_y
    pad = max(x1 - x0, y1 - y0, 20.0) * 0.06
    return x0 - pad, x1 + pad, y0 - pad, y1 + pad


def _span(nodes: Sequence[Mapping[str, Any]]) -> float:
    xs = [n["x"] for n in nodes]
    ys = [n["y"] for n in nodes]
    return max(max(xs) - min(xs), max(ys) - min(ys), 1.0)


def draw_scene(scene: Mapping[str, Any], output: Path, *, formats: Sequence[str] = FORMATS,
               title: Optional[str] = None, ranges_of: Optional[Sequence[str]] = None,
               limits: Optional[Tuple[float, float, float, float]] = None,
               hops: Sequence[Tuple[str, str, str]] = (),
               hop_targets: Sequence[str] = ()) -> List[Path]:
    """Draw a scene and write it once per format (same stem); returns the files written.

    ``ranges_of``: nodes whose ranges are drawn (default every radio; a long chain's
    carrier-sense circles then overlap into a wash, so the prompt lets one name a few).
    ``limits`` (x0, x1, y0, y1): a fixed box, so frames of moving nodes share their axes.
    ``hops``: next-hop arrows (node, via, destination), a colour per destination in the
    order of ``hop_targets`` (default: as they come), so frames keep their colours."""
    for fmt in formats:
        if fmt not in FORMATS:
            raise HarnessError(f"format {fmt!r}: allowed {', '.join(FORMATS)}")
    nodes = list(scene.get("nodes") or [])
    if not nodes:
        raise HarnessError(f"scene {scene.get('name')!r} has no nodes to draw")
    by_name = {n["name"]: n for n in nodes}
    wanted = set(ranges_of) if ranges_of else {n["name"] for n in nodes}
    unknown = sorted(wanted - set(by_name))
    if unknown:
        raise HarnessError(f"ranges of {', '.join(unknown)}: no such node; nodes: "
                           + ", ".join(by_name))
    Figure = _figure_class()
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize
    from matplotlib.lines import Line2D
    from matplotlib.patches import Circle, FancyArrowPatch

    walls = list(scene.get("walls") or [])
    links = list(scene.get("links") or [])
    routes = [r for r in scene.get("routes") or [] if len(r) > 1]
    fig = Figure(figsize=(8.0, 5.2), dpi=120)
    ax = fig.add_subplot(1, 1, 1)
    ax.set_aspect("equal")
    show_cs = any(n.get("cs_range") for n in nodes if n["name"] in wanted)
    x0, x1, y0, y1 = limits or _bounds([n for n in nodes if n["name"] in wanted] or nodes,
                                       walls, show_cs)
    for n in nodes:  # keep every node inside even when only some ranges are drawn
        x0, x1 = min(x0, n["x"] - 10), max(x1, n["x"] + 10)
        y0, y1 = min(y0, n["y"] - 10), max(y1, n["y"] + 10)
    legend: List[Any] = []
    limit = RANGE_LIMIT * _span(nodes) + 50.0  # a circle larger than this would hide the rest
    beyond: Dict[str, float] = {}
    for n in nodes:
        if n["name"] not in wanted:
            continue
        colour = KIND_COLOURS.get(n["kind"], "#7f7f7f")
        for key, style in (("tx_range", "-"), ("cs_range", "--")):
            radius = n.get(key)
            if not radius or (key == "cs_range" and radius == n.get("tx_range")):
                continue
            if radius > limit:
                beyond[key] = max(beyond.get(key, 0.0), radius)
                continue
            ax.add_patch(Circle((n["x"], n["y"]), radius, facecolor=colour if style == "-" else "none",
                                alpha=0.06 if style == "-" else 0.45, edgecolor=colour,
                                linestyle=style, linewidth=0.8 if style == "-" else 0.7))
    if any(n.get("tx_range") for n in nodes):
        legend.append(Line2D([], [], color="#555555", linewidth=0.8, label="transmission range"
                             + (f" (up to {beyond['tx_range']:.0f} m: off the picture)"
                                if "tx_range" in beyond else "")))
    if show_cs:
        legend.append(Line2D([], [], color="#555555", linestyle="--", linewidth=0.7,
                             label="carrier-sense range"
                             + (f" (up to {beyond['cs_range']:.0f} m: off the picture)"
                                if "cs_range" in beyond else "")))
    for w in walls:
        ax.plot([w[0], w[2]], [w[1], w[3]], color="black", linewidth=3.0, solid_capstyle="butt")
    if walls:
        legend.append(Line2D([], [], color="black", linewidth=3.0, label="wall"))
    measured = False
    unmeasured = False
    for link in links:
        a, b = by_name.get(link["a"]), by_name.get(link["b"])
        if a is None or b is None:
            continue
        delivery = link.get("delivery") or {}
        ratio = min(delivery.values()) if delivery else None
        measured = measured or ratio is not None
        unmeasured = unmeasured or ratio is None
        style = {"veth": "-", "association": ":", "in_range": "-", "wireless": "-"}.get(link["kind"], "-")
        width = 3.0 if ratio is not None else 1.2
        ax.plot([a["x"], b["x"]], [a["y"], b["y"]], color=_delivery_colour(ratio),
                linestyle=style if ratio is not None or link["kind"] != "in_range" else "--",
                linewidth=width, zorder=2)
        if ratio is not None:
            ax.annotate(f"{ratio:.0%}", ((a["x"] + b["x"]) / 2, (a["y"] + b["y"]) / 2),
                        fontsize=7, ha="center", va="top", zorder=5,
                        xytext=(0, -4), textcoords="offset points")
    if unmeasured:
        legend.append(Line2D([], [], color="#b0b0b0", linewidth=1.2,
                             label="link (no frames counted yet)"))
    if measured:
        # under the axes, not beside them: beside, it collided with the legend and outgrew a
        # flat picture (a 1-hop chain)
        sm = ScalarMappable(norm=Normalize(0, 1), cmap="RdYlGn")
        bar = fig.colorbar(sm, ax=ax, orientation="horizontal", location="bottom",
                           fraction=0.05, pad=0.13, shrink=0.6, aspect=30)
        bar.set_label("delivery ratio (worse direction)", fontsize=8)
        bar.ax.tick_params(labelsize=7)
    offset = 0.015 * max(x1 - x0, y1 - y0)

    def arrow(u: str, v: str, colour: str, shift: float, width: float) -> None:
        a, b = by_name.get(u), by_name.get(v)
        if a is None or b is None:
            return
        dx, dy = b["x"] - a["x"], b["y"] - a["y"]
        norm = math.hypot(dx, dy) or 1.0
        ox, oy = -dy / norm * shift, dx / norm * shift
        ax.add_patch(FancyArrowPatch((a["x"] + ox, a["y"] + oy), (b["x"] + ox, b["y"] + oy),
                                     arrowstyle="-|>", mutation_scale=10, color=colour,
                                     linewidth=width, shrinkA=6, shrinkB=6, zorder=4))

    for k, path in enumerate(routes):
        colour = ROUTE_COLOURS[k % len(ROUTE_COLOURS)]
        for u, v in zip(path, path[1:]):
            arrow(u, v, colour, offset * (k + 1), 1.6)
        legend.append(Line2D([], [], color=colour, linewidth=1.4,
                             label=f"route {path[0]} → {path[-1]}"))
    targets = list(dict.fromkeys([*hop_targets, *(d for _n, _v, d in hops)]))
    for node, via, dst in hops:
        k = targets.index(dst)
        arrow(node, via, ROUTE_COLOURS[k % len(ROUTE_COLOURS)], offset * (k + 1), 1.2)
    legend += [Line2D([], [], color=ROUTE_COLOURS[k % len(ROUTE_COLOURS)], linewidth=1.2,
                      label=f"next hop toward {dst}") for k, dst in enumerate(targets)]
    for n in nodes:
        colour = KIND_COLOURS.get(n["kind"], "#7f7f7f")
        ax.scatter([n["x"]], [n["y"]], s=90, c=colour, marker=KIND_MARKERS.get(n["kind"], "o"),
                   edgecolors="white", linewidths=1.0, zorder=6)
        # labels on a faint white ground: a route's arrow may run under them
        ax.annotate(n["name"], (n["x"], n["y"]), xytext=(0, -10), textcoords="offset points",
                    fontsize=7, ha="center", va="top", zorder=7, bbox=LABEL_GROUND)
        if n.get("ip"):
            ax.annotate(n["ip"], (n["x"], n["y"]), xytext=(0, 9), textcoords="offset points",
                        fontsize=5.5, ha="center", va="bottom", color="#444444", zorder=7,
                        bbox=LABEL_GROUND)
    for kind in dict.fromkeys(n["kind"] for n in nodes):
        legend.append(Line2D([], [], marker=KIND_MARKERS.get(kind, "o"), linestyle="",
                             color=KIND_COLOURS.get(kind, "#7f7f7f"), label=kind.replace("_", " ")))
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.grid(True, alpha=0.2)
    ax.set_title(title or str(scene.get("name", "topology")), fontsize=10)
    if scene.get("note"):  # last in the legend: inside the axes it ran over nodes and edges
        legend.append(Line2D([], [], linestyle="", label=textwrap.fill(str(scene["note"]), 44)))
    ax.legend(handles=legend, fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0),
              frameon=False, handlelength=2.0)
    fig.tight_layout()
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    written = []
    from matplotlib import rc_context
    for fmt in formats:
        path = output.with_suffix(f".{fmt}")
        # SVG keeps its labels as text (searchable, small) and no time stamp (same bytes twice)
        with rc_context({"svg.fonttype": "none"}):
            fig.savefig(path, format=fmt, bbox_inches="tight",
                        metadata={"Date": None} if fmt == "svg" else None)
        written.append(path)
    return written


def scene_summary(scene: Mapping[str, Any]) -> Dict[str, int]:
    """Counts of what a scene holds (for messages)."""
    return {"nodes": len(scene.get("nodes") or []), "links": len(scene.get("links") or []),
            "routes": len(scene.get("routes") or []), "walls": len(scene.get("walls") or [])}

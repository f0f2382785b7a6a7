"""Frames of a run whose nodes move: PNGs (and, with Pillow, a GIF) of the scene at a series
of times, with the next hops in force then when a route log is given.

A frame is a scene (``harness.net.scene`` plain data) with the moving nodes where their
trajectories put them at its time (``harness.experiment.run_scene.motion_scenes`` makes them
from a live network or a stored record); all frames are drawn on one box, so nodes move
across still axes. A route log is a list of ``{"t": s, "node", "dst", "via"}`` on the
trajectories' clock (0 = when the nodes started moving); ``via`` null = no route then.
"""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from harness.analysis.topology_figure import MAX_ASPECT, draw_scene
from harness.errors import HarnessError

#: Frames a run gets when no step is given (a step of at least 1 s).
DEFAULT_FRAMES = 100
MAX_FRAMES = 1000
GIF_FRAME_MS = 200
FRAME_GLOB = "frame-*.png"


def frame_times(end: float, step: Optional[float] = None) -> List[float]:
    """0, step, 2 step, ... and ``end`` itself (s); default step: whole seconds giving at most
    about ``DEFAULT_FRAMES`` frames."""
    step = float(max(1, math.ceil(end / DEFAULT_FRAMES))) if step is None else step
    if not step > 0:
        raise HarnessError(f"step {step:g} s: allowed a number of seconds > 0")
    count = math.floor(end / step + 1e-9) + 1
    if count > MAX_FRAMES:
        raise HarnessError(f"step {step:g} s gives {count} frames over {end:g} s; allowed at "
                           f"most {MAX_FRAMES} (a larger step)")
    times = [round(i * step, 9) for i in range(count)]
    return times + ([end] if times[-1] < end else [])


def routes_in_force(route_log: Iterable[Mapping[str, Any]], t: float) -> List[Tuple[str, str, str]]:
    """(node, via, dst) of every route in force at ``t``: for each (node, dst) the latest
    entry at or before ``t`` (of entries at one time, the last in the log); a null ``via``
    (no route) draws nothing. Sorted by node, then destination."""
    latest: Dict[Tuple[str, str], Optional[str]] = {}
    for entry in sorted(route_log, key=lambda e: float(e["t"])):  # stable: log order at ties
        if float(entry["t"]) > t:
            break
        latest[(str(entry["node"]), str(entry["dst"]))] = entry.get("via")
    return [(node, str(via), dst) for (node, dst), via in sorted(latest.items())
            if via is not None]


def _limits(frames: Sequence[Tuple[float, Mapping[str, Any]]]) -> Tuple[float, float, float, float]:
    """One box holding every node of every frame, with a margin, no flatter than
    ``MAX_ASPECT`` (a node driving along a line would otherwise be drawn on a sliver)."""
    xs = [n["x"] for _t, scene in frames for n in scene["nodes"]]
    ys = [n["y"] for _t, scene in frames for n in scene["nodes"]]
    width, height = max(xs) - min(xs), max(ys) - min(ys)
    grow_x = max(0.0, height / MAX_ASPECT - width) / 2
    grow_y = max(0.0, width / MAX_ASPECT - height) / 2
    pad = max(width, height, 20.0) * 0.08
    return (min(xs) - grow_x - pad, max(xs) + grow_x + pad,
            min(ys) - grow_y - pad, max(ys) + grow_y + pad)


def draw_frames(frames: Sequence[Tuple[float, Mapping[str, Any]]], folder: Path, *,
                route_log: Optional[Sequence[Mapping[str, Any]]] = None,
                title: str = "") -> List[Path]:
    """``frame-0000.png``... in ``folder`` (its earlier frames removed), one per (time,
    scene), and ``motion.gif`` of them if Pillow is installed; returns the files written."""
    if not frames:
        raise HarnessError("no frames to draw")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob(FRAME_GLOB):
        old.unlink()
    limits = _limits(frames)
    targets = list(dict.fromkeys(str(e["dst"]) for e in route_log or ()))
    written: List[Path] = []
    for i, (t, scene) in enumerate(frames):
        hops = routes_in_force(route_log, t) if route_log else []
        written += draw_scene(scene, folder / f"frame-{i:04d}.png", formats=("png",),
                              title=f"{title}: t = {t:.1f} s" if title else f"t = {t:.1f} s",
                              limits=limits, hops=hops, hop_targets=targets)
    gif = _gif(written, folder / "motion.gif")
    return written + ([gif] if gif else [])


def _gif(pngs: Sequence[Path], path: Path) -> Optional[Path]:
    """The frames as one looping GIF (each on a canvas of the largest frame's size)."""
    if importlib.util.find_spec("PIL") is None:
        return None
    from PIL import Image
    sizes = [Image.open(p).size for p in pngs]  # reads headers only
    size = (max(w for w, _h in sizes), max(h for _w, h in sizes))
    canvases = []
    for p in pngs:  # one byte a pixel each: a hundred frames stay tens of MB
        canvas = Image.new("RGB", size, "white")
        canvas.paste(Image.open(p).convert("RGB"), (0, 0))
        canvases.append(canvas.quantize(colors=255))
    canvases[0].save(path, save_all=True, append_images=canvases[1:], duration=GIF_FRAME_MS,
                     loop=0)
    return path

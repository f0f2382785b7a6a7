"""``harness draw TARGET``: the picture of a topology (PNG and SVG), without starting it.

TARGET is an experiment file or a builder name with ``KEY=VALUE`` options (as for
``harness cli``), or a results directory (or a packed experiment): then a stored run is drawn with the
delivery ratio the medium counted on each of its links (``--run ID``, default the first run
that finished); ``--frames FOLDER`` draws that run's moving nodes instead, a PNG every
``--step`` seconds (and a GIF), with the next hops its route log says were in force.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict

from harness.errors import HarnessError

if TYPE_CHECKING:
    from harness.cli import Subparsers


def register(sub: Subparsers) -> None:
    p = sub.add_parser("draw", help="draw a topology: nodes, ranges, links by delivery ratio, "
                                    "routes, walls (PNG and SVG)",
                       description="Examples: harness draw chain hops=4; harness draw "
                                   "experiments/quick_chain.yaml topology.hops=3; harness draw "
                                   "results/quick_chain --run 3f2a9c0d1b2e")
    p.add_argument("target", metavar="TARGET",
                   help="an experiment file, a builder name, or a results directory")
    p.add_argument("options", nargs="*", metavar="KEY=VALUE", help="parameters (hops=4, ...)")
    p.add_argument("--run", metavar="RUN_ID", help="which stored run (results directory only)")
    p.add_argument("--ranges", metavar="NODE,NODE",
                   help="draw the ranges of these nodes only (default: every radio)")
    p.add_argument("--frames", metavar="FOLDER",
                   help="a stored run whose nodes move: frames of its motion in FOLDER "
                        "(frame-0000.png ..., motion.gif)")
    p.add_argument("--step", type=float, metavar="SECONDS",
                   help="seconds between frames (default: about 100 frames, whole seconds)")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="picture file; its stem is used for both formats (default: "
                        "<name>-topology.png/.svg here)")
    p.set_defaults(func=cmd_draw)


def _record(root: Path, run_id: Any) -> Dict[str, Any]:
    from harness.experiment.results import load_results
    rs = load_results(root)
    if run_id:
        for rec in rs.records:
            if rec.get("run_id") == run_id:
                return rec
        raise HarnessError(f"--run {run_id}: no such run in {root}; runs: "
                           + ", ".join(r["run_id"] for r in rs.records[:12])
                           + (" ..." if len(rs.records) > 12 else ""))
    if not rs.ok:
        raise HarnessError(f"{root}: no finished run to draw")
    return rs.ok[0]


def cmd_draw(args: argparse.Namespace) -> int:
    from harness.analysis.topology_figure import draw_scene
    from harness.experiment import archive
    from harness.experiment.run_scene import scene_of_params, scene_of_record
    target = Path(args.target)
    stored = target.is_dir() or archive.is_packed(target)
    if (args.frames or args.step is not None) and not stored:
        raise HarnessError("--frames and --step apply to a results directory (a stored run)")
    if stored:
        if args.options:
            raise HarnessError("KEY=VALUE options apply to an experiment file or a builder, "
                               "not to stored runs")
        record = _record(target, args.run)
        if args.frames:
            return _frames(record, Path(args.frames), args.step)
        scene = scene_of_record(record)
    else:
        if args.run:
            raise HarnessError("--run applies to a results directory")
        from harness.interactive import sources
        setup = sources.load(args.target, args.options)
        scene = scene_of_params(setup.params, name=setup.name)
    output = Path(args.output) if args.output else Path(f"{scene.name.split()[0]}-topology.png")
    ranges = [n for n in (args.ranges or "").split(",") if n]
    for path in draw_scene(scene.to_dict(), output, ranges_of=ranges or None):
        print(path)
    return 0


def _frames(record: Dict[str, Any], folder: Path, step: Any) -> int:
    """A stored run's motion, frame by frame, with its route log's next hops if it has one."""
    from harness.analysis.motion import draw_frames, frame_times
    from harness.experiment.run_scene import motion_scenes, scene_of_record, trajectories_of_record
    motion = trajectories_of_record(record)
    times = frame_times(max(t.end for t in motion.values()), step)
    scene = scene_of_record(record)
    log = (record.get("network") or {}).get("route_log")
    for path in draw_frames(motion_scenes(scene, motion, times), folder, route_log=log,
                            title=scene.name):
        print(path)
    return 0

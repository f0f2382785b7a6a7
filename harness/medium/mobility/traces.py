"""Trajectories from files: ns-2 movement files (``setdest``'s output) and the CSV form.

The CSV form is also what trajectories are exported to (``format_csv``): numbers are written
with ``repr``, which reads back to the same float, so any trajectory, a model's included,
can be exported, looked at, edited and replayed exactly.

    time,node,x,y,z          one row per waypoint; z optional (0); rows of different
    0.0,sta1,10.0,20.0,0.0   nodes may interleave, a node's rows are in time order; lines
    5.0,sta1,30.0,20.0,0.0   starting with # and blank lines are skipped
"""
from __future__ import annotations

import csv
import io
import math
import re
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from harness.errors import HarnessError
from harness.medium.mobility import declare
from harness.medium.mobility.declare import Model
from harness.medium.mobility.trajectory import Area, Trajectory, Waypoint, check_inside, distinct
from harness.params import ParamSpec

PathLike = Union[str, Path]

_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_NUMBER = re.compile(rf"^{_NUM}$")
_SET = re.compile(rf"^\$node_\((\d+)\)\s+set\s+([XYZ])_\s+({_NUM})$")
_SETDEST = re.compile(rf'^\$ns_\s+at\s+({_NUM})\s+"\s*\$node_\((\d+)\)\s+setdest\s+({_NUM})\s+'
                      rf'({_NUM})\s+({_NUM})\s*"$')
#: ``$god_`` lines tell ns-2's routing oracle hop counts; they do not move anything.
_GOD = re.compile(rf'^(?:\$god_\s|\$ns_\s+at\s+{_NUM}\s+"\s*\$god_\s)')
NS2_FORMS = ('$node_(i) set X_|Y_|Z_ <m>', '$ns_ at <s> "$node_(i) setdest <x> <y> <m/s>"',
             "$god_ ... (skipped)", "# comment")
CSV_HEADERS = (("time", "node", "x", "y"), ("time", "node", "x", "y", "z"))


def default_name(node_id: int) -> str:
    """ns-2's node i is the harness's sta{i+1} unless a mapping says otherwise."""
    return f"sta{node_id + 1}"


def _read(path: PathLike, key: str) -> str:
    try:
        return Path(path).read_text()
    except (OSError, UnicodeDecodeError) as err:
        raise HarnessError(f"{key}: cannot read {path}: {err}") from None


def _number(text: str, source: str, line: int, what: str) -> float:
    if not _NUMBER.match(text.strip()):
        raise HarnessError(f"{source}, line {line}: {what} {text!r} is not a number")
    return float(text)


# -- ns-2 --------------------------------------------------------------------------------
def parse_ns2(text: str, source: str = "<ns-2 trace>",
              names: Optional[Mapping[int, str]] = None) -> Dict[str, Trajectory]:
    """Trajectories of an ns-2 movement file.

    ``$node_(i) set X_ 10.0`` (and Y_, Z_) place node i at time 0; ``$ns_ at t "$node_(i)
    setdest x y s"`` sends it from where it is at t toward (x, y) at s m/s (its z stays), in
    a straight line; it stays there on arrival. A setdest before the node arrives interrupts
    the leg at the node's position at that time; a speed of 0 stops it where it is. Commands
    of one node at the same time apply in file order. ``names``: ns-2 id -> node name (a node
    it does not name is an error); default ``sta{i+1}``.
    """
    initial: Dict[int, Dict[str, float]] = {}
    commands: Dict[int, List[Tuple[float, int, float, float, float]]] = {}
    first_line: Dict[int, int] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#") or _GOD.match(line):
            continue
        m = _SET.match(line)
        if m:
            node = int(m.group(1))
            initial.setdefault(node, {})[m.group(2)] = float(m.group(3))
        else:
            m = _SETDEST.match(line)
            if not m:
                raise HarnessError(f"{source}, line {number}: cannot parse {line!r}; expected "
                                   "one of " + ", ".join(f"`{f}`" for f in NS2_FORMS))
            t, node = float(m.group(1)), int(m.group(2))
            x, y, speed = (float(m.group(i)) for i in (3, 4, 5))
            if t < 0 or speed < 0:
                raise HarnessError(f"{source}, line {number}: "
                                   + (f"time {t:g} s is negative" if t < 0 else
                                      f"speed {speed:g} m/s is negative")
                                   + "; expected a number >= 0")
            commands.setdefault(node, []).append((t, number, x, y, speed))
        first_line.setdefault(node, number)
        if names is not None and node not in names:
            raise HarnessError(f"{source}, line {number}: node {node} has no name; the mapping "
                               "names nodes " + ", ".join(str(i) for i in sorted(names)))
    out: Dict[str, Trajectory] = {}
    ids: Dict[str, int] = {}
    for node in sorted(first_line):
        name = names[node] if names is not None else default_name(node)
        if name in ids:
            raise HarnessError(f"{source}: nodes {ids[name]} and {node} are both named {name}; "
                               "expected one name per node")
        ids[name] = node
        start = initial.get(node, {})
        if "X" not in start or "Y" not in start:
            raise HarnessError(f"{source}, line {first_line[node]}: node {node} has no "
                               "initial position; expected `$node_(i) set X_ <m>` and `Y_`")
        here = (start["X"], start["Y"], start.get("Z", 0.0))
        out[name] = _ns2_trajectory(name, here, sorted(commands.get(node, [])))
    return out


def _ns2_trajectory(name: str, start: Tuple[float, float, float],
                    commands: Sequence[Tuple[float, int, float, float, float]]) -> Trajectory:
    points = [Waypoint(0.0, *start)]
    for t, _line, x, y, speed in commands:
        last = points[-1]
        if t < last.t:                      # still on its way: the leg ends here, now
            partial = Trajectory(name, (points[-2], last)).position_at(t)
            points[-1] = Waypoint(t, *partial)
        elif t > last.t:                    # arrived (or never left): it waited here
            points.append(Waypoint(t, *last.position))
        here = points[-1]
        dest = (x, y, here.z)
        distance = math.hypot(x - here.x, y - here.y)
        if speed > 0 and distance > 0:
            points.append(Waypoint(t + distance / speed, *dest))
    return Trajectory(name, distinct(points))


def read_ns2(path: PathLike, names: Optional[Mapping[int, str]] = None) -> Dict[str, Trajectory]:
    """``parse_ns2`` of a file; errors name the file and line."""
    return parse_ns2(_read(path, str(path)), str(path), names)


# -- CSV ---------------------------------------------------------------------------------
def parse_csv(text: str, source: str = "<csv trace>") -> Dict[str, Trajectory]:
    """Trajectories of the CSV form (module docstring): a node's waypoints are its rows."""
    header: Optional[Tuple[str, ...]] = None
    rows: Dict[str, List[Waypoint]] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        fields = tuple(f.strip() for f in next(csv.reader([raw])))
        if header is None:
            if fields not in CSV_HEADERS:
                raise HarnessError(f"{source}, line {number}: header {raw.strip()!r} is not "
                                   "allowed; expected " + " or ".join(",".join(h)
                                                                      for h in CSV_HEADERS))
            header = fields
            continue
        if len(fields) != len(header):
            raise HarnessError(f"{source}, line {number}: {len(fields)} fields; expected "
                               f"{len(header)} ({','.join(header)})")
        node = fields[1]
        if not node:
            raise HarnessError(f"{source}, line {number}: empty node name")
        t, x, y = (_number(fields[i], source, number, header[i]) for i in (0, 2, 3))
        z = _number(fields[4], source, number, "z") if len(header) == 5 else 0.0
        if t < 0:
            raise HarnessError(f"{source}, line {number}: time {t:g} s is negative; expected "
                               "a number >= 0")
        previous = rows.setdefault(node, [])
        if previous and t < previous[-1].t:
            raise HarnessError(f"{source}, line {number}: time {t:g} s of {node} is before its "
                               f"previous row's {previous[-1].t:g} s; a node's rows must be in "
                               "time order")
        previous.append(Waypoint(t, x, y, z))
    if header is None:
        raise HarnessError(f"{source}: no header; expected "
                           + " or ".join(",".join(h) for h in CSV_HEADERS))
    return {node: Trajectory(node, tuple(points)) for node, points in rows.items()}


def read_csv(path: PathLike) -> Dict[str, Trajectory]:
    """``parse_csv`` of a file; errors name the file and line."""
    return parse_csv(_read(path, str(path)), str(path))


def format_csv(trajectories: Mapping[str, Trajectory]) -> str:
    """The CSV form with a z column, nodes in the mapping's order; ``parse_csv`` of it gives
    the same trajectories (``repr`` of a float reads back to that float)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADERS[1])
    for traj in trajectories.values():
        for w in traj.waypoints:
            writer.writerow([repr(w.t), traj.node, repr(w.x), repr(w.y), repr(w.z)])
    return out.getvalue()


def write_csv(trajectories: Mapping[str, Trajectory], path: PathLike) -> None:
    Path(path).write_text(format_csv(trajectories))


# -- as models ---------------------------------------------------------------------------
#: ns-2 node ids of the harness's nodes (node name -> id); null: node i is sta{i+1}.
IDS = ParamSpec("ids", "intmap", "node name -> its ns-2 node id", min=0, default=None,
                nullable=True, null_label="node i is sta{i+1}")


def _select(trajectories: Dict[str, Trajectory], nodes: Sequence[str], area: Area,
            source: str) -> Dict[str, Trajectory]:
    """The trace's trajectories of ``nodes``: the trace must move exactly these nodes, and
    keep them in the area. A trace is replayed as it is: not cut at the run's end."""
    missing = [n for n in nodes if n not in trajectories]
    extra = [n for n in trajectories if n not in nodes]
    if missing or extra:
        wrong = (f"has no node {', '.join(missing)}" if missing
                 else f"moves {', '.join(extra)}, not among the nodes")
        raise HarnessError(f"{declare.where('file')}: {source} {wrong}; expected the nodes "
                           + ", ".join(nodes))
    check_inside(trajectories, area, source)
    return {n: trajectories[n] for n in nodes}


def _ns2_run(nodes: Sequence[str], area: Area, duration: float, seed: int,
             args: Dict[str, Any]) -> Dict[str, Trajectory]:
    names: Optional[Dict[int, str]] = None
    if args["ids"] is not None:
        names = {}
        for name, node_id in args["ids"].items():
            if node_id in names:
                raise HarnessError(f"{declare.where('ids')}.{name}: id {node_id} is also "
                                   f"{names[node_id]}'s; expected one id per node")
            names[node_id] = name
    text = _read(args["file"], declare.where("file"))
    return _select(parse_ns2(text, args["file"], names), nodes, area, args["file"])


def _csv_run(nodes: Sequence[str], area: Area, duration: float, seed: int,
             args: Dict[str, Any]) -> Dict[str, Trajectory]:
    text = _read(args["file"], declare.where("file"))
    return _select(parse_csv(text, args["file"]), nodes, area, args["file"])


NS2 = Model("ns2", (declare.FILE.variant(doc="ns-2 movement file (setdest's output)"), IDS),
            _ns2_run, doc="replay of an ns-2 movement file")
CSV = Model("csv", (declare.FILE.variant(doc="CSV of time,node,x,y[,z]"),), _csv_run,
            doc="replay of the CSV form (what format_csv writes)")

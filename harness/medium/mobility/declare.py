"""What a mobility model takes: its parameters as ``ParamSpec`` rows, checked in one place.

Each model module declares its ``Model`` beside its code (as builders declare ``BUILDER``);
``models.MODELS`` collects them. A Python caller and an experiment's ``mobility:`` key pass
through the same ``Model.arguments``, so every rule (a speed >= 0, alpha in [0, 1]) is
written once, here or in the model's declaration, and errors name ``mobility.<key>``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from harness.errors import HarnessError
from harness.medium.mobility.trajectory import Area, Position, Trajectory
from harness.params import ParamSpec

#: The key an experiment file will hold the model and its parameters under.
KEY = "mobility"

#: A speed that may be zero (a random walk's slowest leg, a Gauss-Markov mean).
SPEED = ParamSpec("speed", "float", "m/s", min=0)
#: A speed that must be positive: the random waypoint's slowest (its stationary speed
#: density is proportional to 1/v), the top of any range.
POSITIVE_SPEED = ParamSpec("speed", "float", "m/s", min=0, min_exclusive=True)
#: A velocity component (m/s), either sign.
VELOCITY = ParamSpec("velocity", "float", "m/s")
#: A pause at a waypoint, s.
PAUSE = ParamSpec("pause", "float", "s", min=0)
#: A time step or leg length in time (s) or space (m): positive.
POSITIVE = ParamSpec("positive", "float", "s or m", min=0, min_exclusive=True)
#: A distance that may be zero (a margin), m.
METRES = ParamSpec("metres", "float", "m", min=0)
#: An angle in degrees, counter-clockwise from +x (any value: taken modulo 360).
DEGREES = ParamSpec("degrees", "float", "degrees, counter-clockwise from +x")
#: A standard deviation of an angle, degrees.
ANGLE_SD = ParamSpec("degrees", "float", "degrees", min=0)
#: Gauss-Markov's memory: 0 memoryless (Brownian-like), 1 a straight line.
ALPHA = ParamSpec("alpha", "float", "memory of the Gauss-Markov process", min=0, max=1)
#: Where nodes start: [{node: sta1, x: 10, y: 20, z: 1.5}, ...] (z: the area's floor);
#: a node not listed starts at a uniform point of the area.
START = ParamSpec("start", "maplist", "where nodes start (metres); the others start at a "
                  "uniform point of the area", choices=("node", "x", "y", "z"), default=())
#: A coordinate, m.
COORDINATE = ParamSpec("coordinate", "float", "m")
#: A trace file (ns-2 setdest or CSV).
FILE = ParamSpec("file", "str", "path of the trace file", required=True)
#: The run's length and seed, checked like a model's parameters.
DURATION = ParamSpec("duration", "float", "s of virtual time", min=0, min_exclusive=True)
SEED = ParamSpec("seed", "int", "the run's seed")

#: nodes, area, duration, seed, the checked parameters -> one trajectory per node
Run = Callable[[Sequence[str], Area, float, int, Dict[str, Any]], Dict[str, Trajectory]]


def where(key: str) -> str:
    return f"{KEY}.{key}"


@dataclass(frozen=True)
class Model:
    """A mobility model: its name in ``mobility: {model: NAME}``, its parameters, what it
    checks across them (``extra``: min <= max ...), and ``run``, which gets checked values."""

    name: str
    params: Tuple[ParamSpec, ...]
    run: Run
    doc: str = ""
    extra: Optional[Callable[[Dict[str, Any], Area], None]] = None

    def arguments(self, params: Mapping[str, Any], area: Area) -> Dict[str, Any]:
        """``params`` checked by the declarations, defaults filled in; raises
        ``HarnessError`` naming ``mobility.<key>`` and what is allowed."""
        if not isinstance(params, Mapping):
            raise HarnessError(f"{KEY}: {params!r} is not allowed; expected a mapping of "
                               f"model {self.name}'s parameters")
        names = [p.name for p in self.params]
        for key in params:
            if key not in names:
                raise HarnessError(f"{where(key)}: unknown for model {self.name}; allowed "
                                   + ", ".join(names))
        out: Dict[str, Any] = {}
        for spec in self.params:
            if spec.name not in params:
                if spec.required:
                    raise HarnessError(f"{where(spec.name)} is required by model {self.name}: "
                                       f"{spec.allowed()}")
                out[spec.name] = spec.default
                continue
            out[spec.name] = spec.validate(params[spec.name], where(spec.name))
        if self.extra is not None:
            self.extra(out, area)
        return out

    def __call__(self, nodes: Sequence[str], area: Area, duration: float, seed: int,
                 params: Mapping[str, Any]) -> Dict[str, Trajectory]:
        """Check everything, then run: one trajectory per node over [0, duration]."""
        if not isinstance(area, Area):
            raise HarnessError(f"{KEY}: area {area!r} is not allowed; expected an Area")
        duration = DURATION.validate(duration, where("duration"))
        seed = SEED.validate(seed, where("seed"))
        names = list(nodes)
        bad = [n for n in names if not isinstance(n, str) or not n.strip()]
        if bad:
            raise HarnessError(f"{KEY}: node name {bad[0]!r} is not allowed; expected "
                               "non-empty names")
        if len(set(names)) != len(names):
            twice = sorted({n for n in names if names.count(n) > 1})
            raise HarnessError(f"{KEY}: node {twice[0]} is named twice; expected each once")
        return self.run(names, area, duration, seed, self.arguments(params, area))


def check_speed_range(args: Dict[str, Any], low: str = "min_speed",
                      high: str = "max_speed") -> None:
    """min <= max, worded with both keys."""
    if args[low] > args[high]:
        raise HarnessError(f"{where(low)}: {args[low]:g} is above {high} {args[high]:g}; "
                           f"expected {low} <= {high}")


def start_positions(args: Dict[str, Any], area: Area,
                    nodes: Sequence[str]) -> Dict[str, Position]:
    """``start`` as node -> a position inside ``area`` (z defaults to the area's floor)."""
    out: Dict[str, Position] = {}
    for i, item in enumerate(args.get("start") or ()):
        key = where(f"start[{i}]")
        node = item.get("node")
        if not isinstance(node, str) or not node.strip():
            raise HarnessError(f"{key}.node: {node!r} is not allowed; expected a node name")
        if node not in nodes:
            raise HarnessError(f"{key}.node: {node} is not one of the moving nodes; expected "
                               "one of " + ", ".join(nodes))
        if node in out:
            raise HarnessError(f"{key}.node: {node} starts twice; expected each node once")
        for axis in "xy":
            if axis not in item:
                raise HarnessError(f"{key}.{axis} is required: {COORDINATE.allowed()} (m)")
        pos: List[float] = [COORDINATE.validate(item.get(axis, area.z_min), f"{key}.{axis}")
                            for axis in "xyz"]
        if not area.contains(pos):
            raise HarnessError(f"{key}: node {node} at ({', '.join(f'{v:g}' for v in pos)}) "
                               f"is outside the area ({area.describe()}); expected a position "
                               "inside it")
        out[node] = (pos[0], pos[1], pos[2])
    return out


def radians(degrees: float) -> float:
    return math.radians(degrees % 360.0)

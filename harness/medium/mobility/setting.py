"""The medium's ``mobility:`` key, and the trajectories of one run made from it.

::

    medium:
      mobility:
        model: random_waypoint        # a model of models.MODELS; its parameters beside it
        min_speed: 1
        max_speed: 10
        area: {x: [0, 500], y: [0, 300]}   # z: [min, max], default [0, 0] (a plane)
        nodes: [sta2, sta3]           # which nodes move; default every node with a radio
        duration: 60                  # s of motion; default the run's (its last flow's end)
        seed: 7                       # the motion's seed; default the run's

The key lives under ``medium`` because the medium is what reads trajectories (mediumd places
each moving radio at a frame's time) and what a run without a medium lacks: positions mean
nothing there. ``Mobility.from_dict`` checks it all at once (errors name
``medium.mobility.<key>`` and what is allowed, the model's own rules through
``models.check``); ``Mobility.trajectories`` makes a run's trajectories from the nodes'
positions and the run's seed: a model that takes a ``start`` starts each moving node where
the topology places it, unless ``start`` says otherwise.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from harness.errors import HarnessError
from harness.medium.mobility import models
from harness.medium.mobility.declare import DURATION, KEY
from harness.medium.mobility.trajectory import Area, Position, Trajectory
from harness.params import SchemaError

#: Where the key sits in an experiment file (and in ``Network(medium={...})``).
AT = f"medium.{KEY}"
#: Keys of ``mobility:`` that are not the model's parameters.
OWN_KEYS = ("model", "area", "nodes", "duration", "seed")
AXES = ("x", "y", "z")

# "mobility.max_speed: ..." or "area.x: ..." at the start of a model's or Area's message
_LEADING_KEY = re.compile(r"^((?:mobility|area)(?:[.\[][^\s:]*)?)(?::\s*|\s+)(.*)$", re.S)


def placed(err: HarnessError, at: str = AT) -> SchemaError:
    """A model's or an area's error as one at its key under ``at``: the models name their keys
    ``mobility.<key>`` (declare.where) and an area ``area.<axis>``; a trace file's error names
    the file and line and is placed at ``at`` itself."""
    text = str(err)
    m = _LEADING_KEY.match(text)
    if not m:
        return SchemaError(at, text)
    key = m.group(1)
    rest = key[len(KEY):] if key.startswith(KEY) else f".{key}"
    return SchemaError(f"{at}{rest}", m.group(2))


def _area(value: Any, at: str) -> Area:
    """``area: {x: [min, max], y: [min, max], z: [min, max]}`` (z optional: [0, 0])."""
    where = f"{at}.area"
    if value is None:
        raise SchemaError(where, "missing (required); expected {x: [min, max], y: [min, max]} "
                                 "in metres, z optional (default [0, 0], a plane)")
    if not isinstance(value, Mapping):
        raise SchemaError(where, f"{value!r} is not allowed; expected "
                                 "{x: [min, max], y: [min, max], z: [min, max]} in metres")
    for key in value:
        if key not in AXES:
            raise SchemaError(f"{where}.{key}", "unknown key; allowed x, y, z")
    bounds: List[float] = []
    for axis in AXES:
        pair = value.get(axis, [0.0, 0.0] if axis == "z" else None)
        if pair is None:
            raise SchemaError(f"{where}.{axis}", "missing (required); expected [min, max] in "
                                                 "metres")
        if (not isinstance(pair, (list, tuple)) or len(pair) != 2
                or any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in pair)):
            raise SchemaError(f"{where}.{axis}", f"{pair!r} is not allowed; expected [min, max] "
                                                 "in metres")
        bounds += [float(pair[0]), float(pair[1])]
    try:
        return Area(*bounds)
    except HarnessError as err:
        raise placed(err, at) from None


def _nodes(value: Any, at: str) -> Tuple[str, ...]:
    where = f"{at}.nodes"
    if value is None:
        return ()
    if (not isinstance(value, (list, tuple)) or not value
            or not all(isinstance(n, str) and n.strip() for n in value)):
        raise SchemaError(where, f"{value!r} is not allowed; expected a non-empty list of node "
                                 "names (default: every node with a radio)")
    twice = sorted({n for n in value if list(value).count(n) > 1})
    if twice:
        raise SchemaError(where, f"{twice[0]} is named twice; expected each node once")
    return tuple(value)


@dataclass(frozen=True)
class Mobility:
    """A checked ``mobility:`` key. ``params`` are the model's parameters as given (canonical
    values); ``nodes`` empty = every node with a radio; ``duration`` None = the run's."""

    model: str
    params: Mapping[str, Any]
    area: Area
    nodes: Tuple[str, ...] = ()
    duration: Optional[float] = None
    #: The motion's own seed: runs that differ in other keys (a policy, the flows) then see
    #: the same trajectories, a paired comparison. None = the run's seed.
    seed: Optional[int] = None
    _takes_start: bool = field(default=False, repr=False, compare=False)

    @classmethod
    def from_dict(cls, data: Any, at: str = AT) -> Mobility:
        """Check a whole ``mobility:`` mapping; a ``SchemaError`` names the key under ``at``."""
        if not isinstance(data, Mapping):
            raise SchemaError(at, f"{data!r} is not allowed; expected a mapping with model, "
                                  "area and the model's parameters")
        area = _area(data.get("area"), at)
        nodes = _nodes(data.get("nodes"), at)
        duration = (DURATION.variant(doc="s of motion").check(data["duration"], f"{at}.duration")
                    if data.get("duration") is not None else None)
        if "model" not in data:
            raise SchemaError(f"{at}.model", f"missing (required); expected "
                                             f"{models.MODEL.allowed()}")
        given = {k: v for k, v in data.items() if k not in OWN_KEYS}
        try:
            model, args = models.check({"model": data["model"], **given}, area)
        except HarnessError as err:
            raise placed(err, at) from None
        params = {k: args[k] for k in given}  # canonical values of the keys given
        takes_start = any(p.name == "start" for p in model.params)
        seed = data.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise SchemaError(f"{at}.seed", f"{seed!r} is not allowed; expected an integer >= 0 "
                                            "(or leave it out: the run's seed)")
        return cls(model.name, params, area, nodes, duration, seed, takes_start)

    def to_dict(self) -> Dict[str, Any]:
        """The mapping again, canonical (``from_dict`` of it gives this ``Mobility``)."""
        a = self.area
        out: Dict[str, Any] = {"model": self.model, **self.params,
                               "area": {"x": [a.x_min, a.x_max], "y": [a.y_min, a.y_max],
                                        "z": [a.z_min, a.z_max]}}
        if self.nodes:
            out["nodes"] = list(self.nodes)
        if self.duration is not None:
            out["duration"] = self.duration
        if self.seed is not None:
            out["seed"] = self.seed
        return out

    def moving(self, radio_nodes: Sequence[str]) -> List[str]:
        """The nodes that move, of the nodes with a radio (in their order)."""
        if not self.nodes:
            return list(dict.fromkeys(radio_nodes))
        missing = [n for n in self.nodes if n not in radio_nodes]
        if missing:
            raise SchemaError(f"{AT}.nodes", f"{missing[0]} is not a node with a radio here; "
                                             "allowed " + ", ".join(dict.fromkeys(radio_nodes)))
        return list(self.nodes)

    def trajectories(self, positions: Mapping[str, Position], seed: int,
                     duration: Optional[float] = None) -> Dict[str, Trajectory]:
        """One trajectory per moving node over [0, duration] (this key's duration, else the
        given one), by the model with this key's seed, else ``seed``; ``positions``: node ->
        where the topology places it, for every node with a radio (a model with ``start``
        starts nodes there)."""
        seed = self.motion_seed(seed)
        span = self.duration if self.duration is not None else duration
        if span is None:
            raise SchemaError(f"{AT}.duration", "missing: required outside an experiment "
                                                "(which moves nodes until its last flow ends); "
                                                f"expected {DURATION.allowed()} (s)")
        nodes = self.moving(list(positions))
        params = dict(self.params)
        if self._takes_start:
            params["start"] = self._starts(positions, nodes)
        try:
            return models.generate(self.model, params, nodes, self.area, span, seed)
        except HarnessError as err:
            raise placed(err) from None

    def motion_seed(self, seed: int) -> int:
        """The seed the trajectories are made with: this key's, else the given one."""
        return self.seed if self.seed is not None else seed

    def _starts(self, positions: Mapping[str, Position],
                nodes: Sequence[str]) -> List[Dict[str, Any]]:
        """``start`` as given, and every other moving node where the topology places it."""
        given = list(self.params.get("start") or ())
        named = {item.get("node") for item in given}
        for node in nodes:
            if node in named:
                continue
            x, y, z = positions[node]
            if not self.area.contains((x, y, z)):
                raise SchemaError(f"{AT}.area", f"node {node} starts at ({x:g}, {y:g}, {z:g}) "
                                  f"(the topology's position), outside the area "
                                  f"({self.area.describe()}); expected an area that holds "
                                  "every moving node, or a start for it")
            given.append({"node": node, "x": x, "y": y, "z": z})
        return given


def canonical(value: Dict[str, Any], path: str) -> Dict[str, Any]:
    """The experiment schema's check of ``medium.mobility`` (``ParamSpec.check_with``)."""
    return Mobility.from_dict(value, path).to_dict()

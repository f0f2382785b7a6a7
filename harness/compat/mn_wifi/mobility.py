"""Mininet-WiFi's mobility calls as trajectories the harness's medium replays (pure).

Written from Mininet-WiFi's documentation and observed behaviour, not its code. A script
moves nodes in one of two ways:

- a model (``setMobilityModel(time=, model=, max_x=, max_y=, seed=, ...)``, or the same
  keywords to ``startMobility``) moves every station and access point added without a
  ``position``, each inside its own area (``min_x``..``max_y`` given to ``addStation``, else
  the call's, else 0..100 m) at its own speeds (``min_v``/``max_v``, ``speed``), from ``time``
  until ``stopMobility(time=)`` (else ``DEFAULT_MOTION_S`` later);
- a replay (``mobility(node, 'start'|'stop', time=, position=)``) moves a node at constant
  speed in a straight line (through ``node.coord`` if the script sets it) from its start
  position at the start time to its stop position at the stop time.

Times are seconds since ``build()``. The medium places each moving node at every frame's time
(docs/mobility.md): a node's path is exact, not stepped as a plotting loop would step it.
"""
from __future__ import annotations

import math
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from harness.compat.mn_wifi.node import parse_position
from harness.errors import HarnessError
from harness.medium.mobility import models
from harness.medium.mobility.trajectory import Area, Position, Trajectory, Waypoint, distinct

#: Mininet-WiFi's model names -> ours (``RandomWaypoint`` is a common spelling of the first).
MODELS = {"RandomWayPoint": "random_waypoint", "RandomWaypoint": "random_waypoint",
          "RandomWalk": "random_walk", "GaussMarkov": "gauss_markov"}
MODEL_KEYS = ("time", "model", "seed", "min_x", "max_x", "min_y", "max_y", "min_v", "max_v",
              "min_wt", "max_wt", "velocity_mean", "alpha", "variance")
START_KEYS = MODEL_KEYS + ("repetitions", "mob_rep", "reverse")
#: What ``addStation`` may say about the node's own motion under a model.
STATION_KEYS = ("min_x", "max_x", "min_y", "max_y", "min_v", "max_v", "min_wt", "max_wt",
                "speed", "constantVelocity", "constantDistance")
#: Mininet-WiFi's defaults: model, area (m), seed, waits (s), Gauss-Markov's process, a random
#: walk's leg (m); speeds (m/s) by model, as its documentation gives them.
DEFAULTS: Dict[str, Any] = {"model": "RandomWalk", "min_x": 0.0, "max_x": 100.0, "min_y": 0.0,
                            "max_y": 100.0, "seed": 1, "min_wt": 1.0, "max_wt": 5.0,
                            "velocity_mean": 1.0, "alpha": 0.99, "variance": 1.0,
                            "constantDistance": 1.0}
SPEED = {"random_waypoint": 5.0, "random_walk": 1.0}
#: How long a model moves nodes when no ``stopMobility`` says (s).
DEFAULT_MOTION_S = 600.0
STAGES = ("start", "stop")


def _number(value: Any, what: str, *, least: Optional[float] = None) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number) or (least is not None and number < least):
        bound = f" >= {least:g}" if least is not None else ""
        raise HarnessError(f"{what}={value!r}: allowed a number{bound}")
    return number


def _refuse(params: Mapping[str, Any], allowed: Sequence[str], call: str) -> None:
    unknown = [k for k in params if k not in allowed]
    if unknown:
        raise HarnessError(f"{call}{unknown[0]}=...) is not supported; allowed: "
                           + ", ".join(allowed))


def shifted(traj: Trajectory, by: float) -> Trajectory:
    return Trajectory(traj.node, tuple(w._replace(t=w.t + by) for w in traj.waypoints))


class Motion:
    """What a script said about moving nodes; ``trajectories`` makes them at ``build()``."""

    def __init__(self) -> None:
        self.model: Dict[str, Any] = {}
        self.start = 0.0
        self.stop: Optional[float] = None
        self.repetitions = 1
        self.reverse = False
        #: node -> stage -> (time, position or None: the node's coord)
        self.replays: Dict[str, Dict[str, Tuple[float, Optional[Position]]]] = {}

    @property
    def active(self) -> bool:
        return bool(self.model or self.replays)

    def set_model(self, params: Mapping[str, Any], call: str = "setMobilityModel(") -> None:
        _refuse(params, MODEL_KEYS, call)
        model = params.get("model", DEFAULTS["model"])
        if model not in MODELS:
            raise HarnessError(f"{call}model={model!r}) is not supported; allowed "
                               + ", ".join(MODELS))
        self.model = {**DEFAULTS, **params}
        self.start = _number(params.get("time", 0), f"{call}time", least=0)

    def start_mobility(self, params: Mapping[str, Any]) -> None:
        """``startMobility``: when motion starts; a model's keywords set the model too."""
        _refuse(params, START_KEYS, "startMobility(")
        own = ("repetitions", "mob_rep", "reverse")
        if "model" in params:
            self.set_model({k: v for k, v in params.items() if k not in own}, "startMobility(")
        self.start = _number(params.get("time", 0), "startMobility(time", least=0)
        reps = params.get("repetitions", params.get("mob_rep", 1))
        if isinstance(reps, bool) or not isinstance(reps, int) or reps < 1:
            raise HarnessError(f"startMobility(repetitions={reps!r}): allowed a whole number >= 1")
        self.repetitions, self.reverse = reps, bool(params.get("reverse", False))

    def stop_mobility(self, params: Mapping[str, Any]) -> None:
        _refuse(params, ("time",), "stopMobility(")
        self.stop = _number(params.get("time"), "stopMobility(time", least=0)

    def node(self, name: str, stage: Any, params: Mapping[str, Any]) -> None:
        """``mobility(node, 'start'|'stop', time=, position=)``."""
        call = f"mobility({name}, {stage!r}, "
        if stage not in STAGES:
            raise HarnessError(f"mobility({name}, {stage!r}): allowed 'start' or 'stop'")
        _refuse(params, ("time", "position"), call)
        if "time" not in params:
            raise HarnessError(f"{call}...): give time= (s since build)")
        at = _number(params["time"], f"{call}time", least=0)
        pos = parse_position(params["position"], call + "position=...)") \
            if params.get("position") is not None else None
        self.replays.setdefault(name, {})[stage] = (at, pos)

    # -- trajectories ----------------------------------------------------------------------
    def trajectories(self, radios: Mapping[str, Mapping[str, Any]],
                     coords: Mapping[str, Any]) -> Dict[str, Trajectory]:
        """One trajectory per moving node, on the clock of ``build()``. ``radios``: each
        station's and access point's ``addStation``/``addAccessPoint`` keywords; ``coords``:
        the ``coord`` lists a script set on nodes."""
        if self.model and self.replays:
            raise HarnessError("setMobilityModel and mobility(node, 'start'/'stop') in one "
                               "script: allowed one of them (a model, or replays)")
        if self.stop is not None and self.stop <= self.start:
            raise HarnessError(f"stopMobility(time={self.stop:g}) is not after the start "
                               f"({self.start:g} s); allowed a later time")
        if self.model:
            if self.repetitions > 1:
                raise HarnessError("startMobility(repetitions=...) repeats replays; allowed 1 "
                                   "with a mobility model")
            end = self.stop if self.stop is not None else self.start + DEFAULT_MOTION_S
            return {n: shifted(self._modelled(n, p, end - self.start), self.start)
                    for n, p in radios.items() if "position" not in p}
        legs = {n: self._legs(n, stages, coords.get(n)) for n, stages in self.replays.items()}
        period = self.stop if self.stop is not None else max(
            (w[-1].t for w in legs.values()), default=0.0)
        return {n: self._repeated(n, points, period) for n, points in legs.items()}

    def _modelled(self, name: str, params: Mapping[str, Any], duration: float) -> Trajectory:
        kw = {**self.model, **{k: params[k] for k in STATION_KEYS if k in params}}
        ours = MODELS[kw["model"]]
        try:
            area = Area(*(_number(kw[k], f"{name}: {k}") for k in
                          ("min_x", "max_x", "min_y", "max_y")))
        except HarnessError as err:
            raise HarnessError(f"{name}: mobility area min_x..max_x, min_y..max_y: {err}") from None
        if ours == "gauss_markov":
            sd = math.sqrt(_number(kw["variance"], f"{name}: variance", least=0))
            args: Dict[str, Any] = {
                "alpha": _number(kw["alpha"], f"{name}: alpha"), "speed_sd": sd,
                "mean_speed": _number(kw["velocity_mean"], f"{name}: velocity_mean", least=0),
                "direction_sd": math.degrees(sd)}
        else:
            low, high = self._speeds(name, kw, SPEED[ours])
            if ours == "random_walk":
                args = {"min_speed": low, "max_speed": high, "distance": _number(
                    kw["constantDistance"], f"{name}: constantDistance", least=0)}
            else:
                waits = [_number(kw[k], f"{name}: {k}", least=0) for k in ("min_wt", "max_wt")]
                args = {"min_speed": low, "max_speed": high, "pause": sum(waits) / 2}
        try:
            made = models.generate(ours, args, [name], area, duration,
                                   int(_number(kw["seed"], "seed")))
        except HarnessError as err:
            raise HarnessError(f"{name} ({kw['model']}): {err}") from None
        return made[name]

    @staticmethod
    def _speeds(name: str, kw: Mapping[str, Any], default: float) -> Tuple[float, float]:
        """(slowest, fastest) m/s: ``speed`` or ``constantVelocity`` fix both."""
        fixed = kw.get("speed", kw.get("constantVelocity"))
        if fixed is not None:
            speed = _number(fixed, f"{name}: speed")
            return speed, speed
        low = _number(kw.get("min_v", default), f"{name}: min_v", least=0)
        high = _number(kw.get("max_v", default), f"{name}: max_v", least=0)
        if low > high:
            raise HarnessError(f"{name}: min_v={low:g} is above max_v={high:g}; expected "
                               "min_v <= max_v (m/s)")
        if low == 0 and MODELS[kw["model"]] == "random_waypoint":
            raise HarnessError(f"{name}: min_v=0: the random waypoint needs min_v > 0 (m/s)")
        return low, high

    def _legs(self, name: str, stages: Mapping[str, Tuple[float, Optional[Position]]],
              coord: Any) -> List[Waypoint]:
        """A replay's waypoints: from the start to the stop position through ``coord``'s
        middle points, at constant speed."""
        missing = [s for s in STAGES if s not in stages]
        if missing:
            raise HarnessError(f"mobility({name}, ...): no {missing[0]!r}; give both 'start' "
                               "and 'stop', each with a time")
        (t0, p0), (t1, p1) = stages["start"], stages["stop"]
        if t1 <= t0:
            raise HarnessError(f"mobility({name}, 'stop', time={t1:g}) is not after its start "
                               f"({t0:g} s); allowed a later time")
        if t0 < self.start:
            raise HarnessError(f"mobility({name}, 'start', time={t0:g}) is before "
                               f"startMobility(time={self.start:g}); allowed a later time")
        middle = [parse_position(c, f"{name}.coord") for c in coord or ()]
        ends = [p0 or (middle[0] if middle else None), p1 or (middle[-1] if middle else None)]
        if ends[0] is None or ends[1] is None:
            raise HarnessError(f"mobility({name}, {STAGES[ends.index(None)]!r}, ...): give "
                               f"position='x,y,z' or set {name}.coord")
        path = [ends[0], *middle[1:-1], ends[1]]
        steps = [math.dist(a, b) for a, b in zip(path, path[1:])]
        total = sum(steps) or 1.0
        times = [t0 + (t1 - t0) * sum(steps[:i]) / total for i in range(len(path) - 1)]
        return [Waypoint(t, *p) for t, p in zip(times + [t1], path)]

    def _repeated(self, name: str, points: List[Waypoint], period: float) -> Trajectory:
        """The replay cut at ``period`` (``stopMobility``), played ``repetitions`` times;
        with ``reverse`` every second time backwards."""
        once = Trajectory(name, distinct(points)).until(period)
        out: List[Waypoint] = []
        for k in range(self.repetitions):
            legs = list(once.waypoints)
            if self.reverse and k % 2:
                start, end = legs[0].t, legs[-1].t
                legs = [w._replace(t=start + end - w.t) for w in reversed(legs)]
            legs = [w._replace(t=w.t + k * period) for w in legs]
            if out:  # a jump back to where this time starts
                out += [out[-1]._replace(t=k * period), legs[0]._replace(t=k * period)]
            out += legs
        return Trajectory(name, distinct(out))


def medium_key(trajectories: Mapping[str, Trajectory], path: str) -> Dict[str, Any]:
    """``medium.mobility`` that replays these trajectories from the CSV file at ``path``
    (``traces.write_csv``): an area a metre around everything they visit."""
    points = [w for t in trajectories.values() for w in t.waypoints]
    box = {axis: [min(getattr(w, axis) for w in points) - pad,
                  max(getattr(w, axis) for w in points) + pad]
           for axis, pad in (("x", 1.0), ("y", 1.0), ("z", 0.0))}
    return {"model": "csv", "file": path, "area": box, "nodes": list(trajectories),
            "duration": max(t.end for t in trajectories.values())}

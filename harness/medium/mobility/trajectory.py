"""Where a node is at any virtual time: waypoints joined by straight legs at constant speed.

This is the form the medium interpolates in C (mediumd/core/mobility.c, operation for
operation, so both give the same doubles), so it is kept exact and small: a node's
position at ``t`` is found by linear interpolation between the two waypoints around ``t``,
nothing else (no curves, no acceleration). A pause is two waypoints at the same place.
"""
from __future__ import annotations

import bisect
import hashlib
import math
import random
from dataclasses import dataclass, field
from typing import Any, Iterable, List, Mapping, NamedTuple, Sequence, Tuple

from harness.errors import HarnessError

Position = Tuple[float, float, float]


class Waypoint(NamedTuple):
    """A node is at (x, y, z) metres at virtual time t seconds."""

    t: float
    x: float
    y: float
    z: float

    @property
    def position(self) -> Position:
        return (self.x, self.y, self.z)


def _finite(value: Any) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def _fmt(value: float) -> str:
    return f"{value:g}"


@dataclass(frozen=True)
class Area:
    """An obstacle-free box that nodes stay inside (metres).

    x and y must have an extent (min < max). z may be flat (z_min == z_max): most scenarios
    move nodes on a plane at one height; a negative extent is an error on any axis.
    """

    x_min: float
    x_max: float
    y_min: float
    y_max: float
    z_min: float = 0.0
    z_max: float = 0.0

    def __post_init__(self) -> None:
        for axis in "xyz":
            lo, hi = getattr(self, f"{axis}_min"), getattr(self, f"{axis}_max")
            if not (_finite(lo) and _finite(hi)):
                raise HarnessError(f"area.{axis}: [{lo}, {hi}] is not allowed; expected two "
                                   "finite numbers of metres, min < max")
            flat_ok = axis == "z"
            if hi < lo or (hi == lo and not flat_ok):
                rule = "z_min <= z_max (equal: a plane)" if flat_ok else f"{axis}_min < {axis}_max"
                raise HarnessError(f"area.{axis}: [{_fmt(lo)}, {_fmt(hi)}] has no extent; "
                                   f"expected {rule}")
            object.__setattr__(self, f"{axis}_min", float(lo))
            object.__setattr__(self, f"{axis}_max", float(hi))

    @property
    def lows(self) -> Position:
        return (self.x_min, self.y_min, self.z_min)

    @property
    def highs(self) -> Position:
        return (self.x_max, self.y_max, self.z_max)

    @property
    def diagonal(self) -> float:
        """The longest straight leg inside the area."""
        return math.dist(self.lows, self.highs)

    def contains(self, pos: Sequence[float]) -> bool:
        return all(lo <= p <= hi for p, lo, hi in zip(pos, self.lows, self.highs))

    def clamp(self, pos: Sequence[float]) -> Position:
        """``pos`` moved onto the area: removes the last-bit overshoot of float arithmetic."""
        x, y, z = (min(max(p, lo), hi) for p, lo, hi in zip(pos, self.lows, self.highs))
        return (x, y, z)

    def uniform(self, rng: random.Random) -> Position:
        """A point drawn uniformly from the box (one ``random()`` per axis, always three)."""
        x, y, z = (lo + (hi - lo) * rng.random() for lo, hi in zip(self.lows, self.highs))
        return (x, y, z)

    def describe(self) -> str:
        return (f"x [{_fmt(self.x_min)}, {_fmt(self.x_max)}], y [{_fmt(self.y_min)}, "
                f"{_fmt(self.y_max)}], z [{_fmt(self.z_min)}, {_fmt(self.z_max)}]")


def node_random(seed: int, node: str) -> random.Random:
    """The random stream of one node: derived from the seed and the node's name alone, so
    that adding, removing or renaming another node leaves this node's trajectory as it was.

    Models draw only ``random()`` from it (their own transforms for the rest), so that a
    trajectory does not depend on how a Python version implements its other distributions.
    """
    digest = hashlib.sha256(f"mobility\0{seed}\0{node}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _lerp(a: float, b: float, f: float) -> float:
    """a + (b - a) f, kept between a and b (rounding can step one ulp past b)."""
    value = a + (b - a) * f
    return min(max(value, min(a, b)), max(a, b))


@dataclass(frozen=True)
class Trajectory:
    """One node's motion: waypoints in time order (equal times allowed: at such a time the
    node is where the last of them says). Before the first waypoint the node is at the
    first; after the last, at the last."""

    node: str
    waypoints: Tuple[Waypoint, ...]
    _times: Tuple[float, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        where = f"trajectory {self.node}"
        if not isinstance(self.node, str) or not self.node.strip():
            raise HarnessError(f"trajectory: node {self.node!r} is not allowed; expected a "
                               "non-empty node name")
        points: List[Waypoint] = []
        for i, raw in enumerate(self.waypoints):
            if len(raw) != 4 or not all(_finite(v) for v in raw):
                raise HarnessError(f"{where}: waypoint {i} {tuple(raw)!r} is not allowed; "
                                   "expected four finite numbers (t, x, y, z)")
            wp = Waypoint(*(float(v) for v in raw))
            if wp.t < 0:
                raise HarnessError(f"{where}: waypoint {i} has time {_fmt(wp.t)}; expected "
                                   "a time >= 0 s (virtual time starts at 0)")
            if points and wp.t < points[-1].t:
                raise HarnessError(f"{where}: waypoint {i} has time {_fmt(wp.t)}, before the "
                                   f"previous one's {_fmt(points[-1].t)}; times must not "
                                   "decrease")
            points.append(wp)
        if not points:
            raise HarnessError(f"{where}: no waypoints; expected at least one")
        object.__setattr__(self, "waypoints", tuple(points))
        object.__setattr__(self, "_times", tuple(p.t for p in points))

    @property
    def start(self) -> float:
        return self.waypoints[0].t

    @property
    def end(self) -> float:
        return self.waypoints[-1].t

    def _leg(self, t: float) -> int:
        """Index i of the leg [i, i + 1] that holds ``t`` (t_i <= t < t_i+1), or -1 outside."""
        if t < self._times[0] or t >= self._times[-1]:
            return -1
        return bisect.bisect_right(self._times, t) - 1

    def position_at(self, t: float) -> Position:
        """Exact linear interpolation on the leg that holds ``t``; each coordinate stays
        between the leg's ends, so a node whose waypoints are in an area stays in it."""
        i = self._leg(t)
        if i < 0:
            return (self.waypoints[0] if t < self._times[0] else self.waypoints[-1]).position
        a, b = self.waypoints[i], self.waypoints[i + 1]
        f = (t - a.t) / (b.t - a.t)
        return (_lerp(a.x, b.x, f), _lerp(a.y, b.y, f), _lerp(a.z, b.z, f))

    def speed_at(self, t: float) -> float:
        """m/s on the leg that holds ``t``; 0 before the first and from the last waypoint."""
        i = self._leg(t)
        if i < 0:
            return 0.0
        a, b = self.waypoints[i], self.waypoints[i + 1]
        return math.dist(a.position, b.position) / (b.t - a.t)

    def until(self, end: float) -> Trajectory:
        """This trajectory cut at ``end``: the leg running at ``end`` stops where the node is
        then. Models draw legs until one passes the run's end and cut it here, so a longer
        run of the same seed extends a shorter one."""
        if end >= self.end:
            return self
        kept = [w for w in self.waypoints if w.t <= end]
        if not kept:
            return Trajectory(self.node, (Waypoint(end, *self.waypoints[0].position),))
        if kept[-1].t < end:
            kept.append(Waypoint(end, *self.position_at(end)))
        return Trajectory(self.node, tuple(kept))

    def outside(self, area: Area) -> List[Waypoint]:
        """Waypoints outside ``area``. Legs are straight and the area is a box, so a node
        whose waypoints are all inside never leaves it."""
        return [w for w in self.waypoints if not area.contains(w.position)]


def distinct(points: Iterable[Waypoint]) -> Tuple[Waypoint, ...]:
    """``points`` without a waypoint that repeats the one before it (same time and place)."""
    kept: List[Waypoint] = []
    for w in points:
        if not kept or w != kept[-1]:
            kept.append(w)
    return tuple(kept)


def build(node: str, points: Iterable[Waypoint], end: float) -> Trajectory:
    """A model's waypoints as a trajectory over [0, end]: repeats dropped, cut at ``end``."""
    return Trajectory(node, distinct(points)).until(end)


def check_inside(trajectories: Mapping[str, Trajectory], area: Area, where: str) -> None:
    """Raise naming the first node, time and position outside ``area``."""
    for name, traj in trajectories.items():
        bad = traj.outside(area)
        if bad:
            w = bad[0]
            raise HarnessError(f"{where}: node {name} is at ({_fmt(w.x)}, {_fmt(w.y)}, "
                               f"{_fmt(w.z)}) at t={_fmt(w.t)} s, outside the area "
                               f"({area.describe()}); expected every position inside it")

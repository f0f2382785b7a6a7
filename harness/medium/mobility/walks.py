"""Models that move a node by velocity: random walk, Gauss-Markov, constant velocity.

All three keep nodes inside the area by reflecting at its faces (``bounce``): a leg that
would cross a face is split there, with a waypoint on the face, and the velocity component
normal to the face changes sign (a billiard ball; at a corner both change). Constant
velocity may stop at the first face instead. The random walk and Gauss-Markov move in the
horizontal plane, as they are defined: a node keeps its starting height.
"""
from __future__ import annotations

import math
import random
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from harness.errors import HarnessError
from harness.medium.mobility import declare
from harness.medium.mobility.declare import Model
from harness.medium.mobility.trajectory import (
    Area,
    Position,
    Trajectory,
    Waypoint,
    build,
    node_random,
)
from harness.params import ParamSpec

Velocity = Tuple[float, float, float]


def bounce(area: Area, start: Position, velocity: Velocity, t0: float, span: float, *,
           stop: bool = False) -> Tuple[List[Waypoint], Position, Velocity]:
    """Move from ``start`` at ``velocity`` for ``span`` seconds from ``t0``, reflecting at the
    area's faces (or, with ``stop``, staying on the first face reached).

    Returns the waypoints after ``start`` (one per face hit, and the end at t0 + span), the
    end position and the velocity then. A flat axis (z_min == z_max) needs a zero velocity
    component: it would be hit at once and forever.
    """
    lows, highs = area.lows, area.highs
    for axis in range(3):
        if velocity[axis] != 0 and lows[axis] == highs[axis]:
            raise ValueError(f"bounce: velocity {velocity} along the flat axis {'xyz'[axis]}")
    pos, vel = list(start), list(velocity)
    points: List[Waypoint] = []
    elapsed = 0.0
    while True:
        hits = [((highs[a] if vel[a] > 0 else lows[a]) - pos[a]) / vel[a] if vel[a] else math.inf
                for a in range(3)]
        first = max(min(hits), 0.0)
        if elapsed + first >= span:
            rest = span - elapsed
            end = area.clamp([pos[a] + vel[a] * rest for a in range(3)])
            points.append(Waypoint(t0 + span, *end))
            return points, end, (vel[0], vel[1], vel[2])
        elapsed += first
        for a in range(3):
            if hits[a] <= first:        # this face is reached now: land on it exactly
                pos[a] = highs[a] if vel[a] > 0 else lows[a]
                vel[a] = -vel[a]
            else:
                pos[a] = min(max(pos[a] + vel[a] * first, lows[a]), highs[a])
        here = (pos[0], pos[1], pos[2])
        if first > 0:                      # (0: it starts on the face, heading out)
            points.append(Waypoint(t0 + elapsed, *here))
        if stop:
            points.append(Waypoint(t0 + span, *here))
            return points, here, (0.0, 0.0, 0.0)


def _start(rng: random.Random, area: Area, given: Optional[Position]) -> Position:
    """The given start, else a uniform point (drawn either way, so giving one node a start
    leaves the rest of its random stream, and other nodes, as they were)."""
    drawn = area.uniform(rng)
    return given if given is not None else drawn


def _normal(rng: random.Random) -> float:
    """A standard normal draw from two ``random()`` (Box-Muller)."""
    return math.sqrt(-2.0 * math.log(1.0 - rng.random())) * math.cos(2.0 * math.pi * rng.random())


# -- random walk -------------------------------------------------------------------------
NodeWalk = Callable[[random.Random, Area, float, Optional[Position], Dict[str, Any]],
                    List[Waypoint]]


def _per_node(walk: NodeWalk) -> declare.Run:
    """A model's run from its one-node walk: each node on its own random stream, from its
    ``start`` position when given."""
    def run(nodes: Sequence[str], area: Area, duration: float, seed: int,
            args: Dict[str, Any]) -> Dict[str, Trajectory]:
        starts = declare.start_positions(args, area, nodes)
        return {n: build(n, walk(node_random(seed, n), area, duration, starts.get(n), args),
                         duration) for n in nodes}
    return run


def _walk_node(rng: random.Random, area: Area, duration: float, start: Optional[Position],
               args: Dict[str, Any]) -> List[Waypoint]:
    low, high = args["min_speed"], args["max_speed"]
    here = _start(rng, area, start)
    points, t = [Waypoint(0.0, *here)], 0.0
    while t < duration:
        speed = low + (high - low) * rng.random()
        heading = 2.0 * math.pi * rng.random()
        span = args["interval"] if args["interval"] is not None else args["distance"] / speed
        legs, here, _ = bounce(area, here, (speed * math.cos(heading),
                                            speed * math.sin(heading), 0.0), t, span)
        points += legs
        t = legs[-1].t
    return points


def _walk_extra(args: Dict[str, Any], area: Area) -> None:
    declare.check_speed_range(args)
    given = [k for k in ("interval", "distance") if args[k] is not None]
    if len(given) != 1:
        raise HarnessError(f"{declare.where('interval')}: give exactly one of interval (s) or "
                           f"distance (m) per leg (got {' and '.join(given) or 'neither'})")
    if args["distance"] is not None and args["min_speed"] == 0:
        raise HarnessError(f"{declare.where('min_speed')}: 0 with distance legs is not allowed "
                           "(a leg at 0 m/s never ends); expected a number > 0")


RANDOM_WALK = Model(
    "random_walk",
    (declare.SPEED.variant(name="min_speed", required=True, doc="slowest leg, m/s"),
     declare.POSITIVE_SPEED.variant(name="max_speed", required=True, doc="fastest leg, m/s"),
     declare.POSITIVE.variant(name="interval", nullable=True, null_label="use distance",
                              doc="a new speed and direction every interval s"),
     declare.POSITIVE.variant(name="distance", nullable=True, null_label="use interval",
                              doc="a new speed and direction every distance m"),
     declare.START),
    _per_node(_walk_node),
    doc="random walk: uniform speed and direction per leg, reflected at the borders",
    extra=_walk_extra,
)


def random_walk(nodes: Sequence[str], area: Area, duration: float, seed: int, *,
                min_speed: float, max_speed: float, interval: Optional[float] = None,
                distance: Optional[float] = None,
                start: Sequence[Dict[str, Any]] = ()) -> Dict[str, Trajectory]:
    """Random walk trajectories: each leg a uniform speed and direction, lasting ``interval``
    seconds or ``distance`` metres (one of the two), reflected at the area's borders."""
    return RANDOM_WALK(nodes, area, duration, seed,
                       {"min_speed": min_speed, "max_speed": max_speed, "interval": interval,
                        "distance": distance, "start": list(start)})


# -- Gauss-Markov ------------------------------------------------------------------------
def _nearest_angle(angle: float, reference: float) -> float:
    """``angle`` plus a multiple of 2 pi, within pi of ``reference``: the mix of a heading
    and the mean turns the short way (350 and 10 degrees mix to 0, not 180)."""
    return reference + math.remainder(angle - reference, 2.0 * math.pi)


def _steer(area: Area, pos: Position, margin: float, mean: float) -> float:
    """The mean direction for the next step: ``mean`` in the interior; within ``margin`` of
    an x or y face, straight away from it (toward the interior: 0, 90, 180 or 270 degrees,
    and the diagonal between two in a corner), as in Camp, Boleng and Davies (2002)."""
    sx = (pos[0] - area.x_min < margin) - (area.x_max - pos[0] < margin)
    sy = (pos[1] - area.y_min < margin) - (area.y_max - pos[1] < margin)
    return math.atan2(sy, sx) if sx or sy else mean


def _gauss_node(rng: random.Random, area: Area, duration: float, start: Optional[Position],
                args: Dict[str, Any]) -> List[Waypoint]:
    alpha, step = args["alpha"], args["time_step"]
    mean_speed, mean_dir = args["mean_speed"], declare.radians(args["mean_direction"])
    sd_speed, sd_dir = args["speed_sd"], math.radians(args["direction_sd"])
    margin = args["margin"]
    if margin is None:
        margin = 0.1 * min(area.x_max - area.x_min, area.y_max - area.y_min)
    noise = math.sqrt(1.0 - alpha * alpha)
    here = _start(rng, area, start)
    speed, heading = mean_speed, mean_dir
    points, n = [Waypoint(0.0, *here)], 0
    while n * step < duration:
        velocity = (speed * math.cos(heading), speed * math.sin(heading), 0.0)
        legs, here, after = bounce(area, here, velocity, n * step, step)
        points += legs
        n += 1
        if after != velocity:               # reflected: go on from the reflected heading
            heading = math.atan2(after[1], after[0])
        target = _nearest_angle(_steer(area, here, margin, mean_dir), heading)
        speed = alpha * speed + (1 - alpha) * mean_speed + noise * sd_speed * _normal(rng)
        heading = alpha * heading + (1 - alpha) * target + noise * sd_dir * _normal(rng)
        speed = max(speed, 0.0)             # a slow node stops; it does not reverse
    return points


GAUSS_MARKOV = Model(
    "gauss_markov",
    (declare.ALPHA.variant(name="alpha", required=True),
     declare.SPEED.variant(name="mean_speed", required=True, doc="mean speed, m/s"),
     declare.DEGREES.variant(name="mean_direction", default=0.0,
                             doc="mean direction, degrees counter-clockwise from +x"),
     declare.SPEED.variant(name="speed_sd", default=0.0,
                           doc="standard deviation of the speed's noise, m/s"),
     declare.ANGLE_SD.variant(name="direction_sd", default=0.0,
                            doc="standard deviation of the direction's noise, degrees"),
     declare.POSITIVE.variant(name="time_step", default=1.0, doc="s between updates"),
     declare.METRES.variant(name="margin", nullable=True,
                            null_label="a tenth of the area's shorter side",
                            doc="m from an x or y face where the mean direction turns inward"),
     declare.START),
    _per_node(_gauss_node),
    doc="Gauss-Markov (Liang and Haas): speed and direction with memory alpha",
)


def gauss_markov(nodes: Sequence[str], area: Area, duration: float, seed: int, *, alpha: float,
                 mean_speed: float, mean_direction: float = 0.0, speed_sd: float = 0.0,
                 direction_sd: float = 0.0, time_step: float = 1.0,
                 margin: Optional[float] = None,
                 start: Sequence[Dict[str, Any]] = ()) -> Dict[str, Trajectory]:
    """Gauss-Markov trajectories (Liang and Haas 1999, as Camp, Boleng and Davies 2002 state
    it). Every ``time_step`` seconds::

        s_n = a s_n-1 + (1 - a) s_mean + sqrt(1 - a^2) speed_sd N(0, 1)
        d_n = a d_n-1 + (1 - a) d_mean + sqrt(1 - a^2) direction_sd N(0, 1)

    and the node moves at s_n in direction d_n for the step. Nodes start at the mean speed
    and direction. Near the borders (within ``margin`` of an x or y face) d_mean points
    away from the face (``_steer``), which turns a node back to the interior unless alpha is
    1; a step that still reaches a face reflects there, and the next step continues from
    the reflected heading. A negative speed draw is taken as 0.
    """
    return GAUSS_MARKOV(nodes, area, duration, seed,
                        {"alpha": alpha, "mean_speed": mean_speed,
                         "mean_direction": mean_direction, "speed_sd": speed_sd,
                         "direction_sd": direction_sd, "time_step": time_step,
                         "margin": margin, "start": list(start)})


# -- constant velocity -------------------------------------------------------------------
#: What a node moving at constant velocity does at a face of the area.
BORDER = ParamSpec("border", "choice", "at a face: reflect (bounce back) or stop there",
                   choices=("reflect", "stop"), default="reflect")


def _constant_extra(args: Dict[str, Any], area: Area) -> None:
    if args["vz"] != 0 and area.z_min == area.z_max:
        raise HarnessError(f"{declare.where('vz')}: {args['vz']:g} m/s in a flat area "
                           f"(z_min = z_max = {area.z_min:g}) is not allowed; expected 0")


def _constant_node(rng: random.Random, area: Area, duration: float, start: Optional[Position],
                   args: Dict[str, Any]) -> List[Waypoint]:
    here = _start(rng, area, start)
    legs, _, _ = bounce(area, here, (args["vx"], args["vy"], args["vz"]), 0.0, duration,
                        stop=args["border"] == "stop")
    return [Waypoint(0.0, *here), *legs]


CONSTANT_VELOCITY = Model(
    "constant_velocity",
    (declare.VELOCITY.variant(name="vx", default=0.0, doc="m/s along x"),
     declare.VELOCITY.variant(name="vy", default=0.0, doc="m/s along y"),
     declare.VELOCITY.variant(name="vz", default=0.0, doc="m/s along z (0 in a flat area)"),
     BORDER,
     declare.START),
    _per_node(_constant_node),
    doc="one velocity for every node, reflected at the borders or stopped there",
    extra=_constant_extra,
)


def constant_velocity(nodes: Sequence[str], area: Area, duration: float, seed: int, *,
                      vx: float = 0.0, vy: float = 0.0, vz: float = 0.0,
                      border: str = "reflect",
                      start: Sequence[Dict[str, Any]] = ()) -> Dict[str, Trajectory]:
    """Every node moves at (vx, vy, vz) from its start. ``border``: ``reflect`` (the
    default, like the random walk: the component normal to the face changes sign) or
    ``stop`` (the node stays where it first reaches a face)."""
    return CONSTANT_VELOCITY(nodes, area, duration, seed,
                             {"vx": vx, "vy": vy, "vz": vz, "border": border,
                              "start": list(start)})

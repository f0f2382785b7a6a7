"""The random waypoint model, started in its stationary state (no warm-up to discard).

Each node picks a destination uniformly in the area and a speed uniformly in
[min_speed, max_speed], goes there in a straight line, pauses ``pause`` seconds, and repeats
(Johnson and Maltz 1996). Started from uniform positions and speeds, the model is not in
steady state: slow legs last longer, so the mean speed of the nodes decays over the first
legs, and so does the spatial distribution drift toward the centre (Yoon, Liu and Noble
2003). Results measured in that transient depend on when they are measured.

Here each node starts from the steady-state distributions instead, as Navidi and Camp's
"perfect simulation" does (Navidi and Camp 2004; Le Boudec and Vojnovic 2005): the time-
stationary state is a renewal cycle (one leg and the pause after it) drawn with probability
proportional to its duration, at a time drawn uniformly within it. That gives

- a node is paused with probability pause / (pause + E[L] E[1/V]), L the length of a leg
  between two uniform points and V a uniform speed; a paused node is at a uniform point
  with a residual pause uniform in (0, pause];
- a moving node's leg (P1, P2) has density proportional to its length |P2 - P1|, its
  position is uniform along it, and its speed has density proportional to 1/v on
  [min_speed, max_speed] (so min_speed > 0: with 0 the density does not normalise).

It is sampled exactly, without E[L] (which has no short closed form for a box): draw P1, P2
uniformly and keep them with probability (c L + pause) / (c L_max + pause), c = E[1/V]; then
the node is moving with probability c L / (c L + pause). The kept pair's density is
proportional to c L + pause: the mixture of the two cases above, weighted as the pause
probability says. At least E[L] / L_max of the pairs are kept (about a third), whatever the
speeds. Everything after the start is the plain model, so the whole run is stationary.
"""
from __future__ import annotations

import math
import random
from typing import Any, Dict, List, Sequence

from harness.medium.mobility import declare
from harness.medium.mobility.declare import Model
from harness.medium.mobility.trajectory import Area, Trajectory, Waypoint, build, node_random


def inverse_speed_mean(low: float, high: float) -> float:
    """E[1/V] for V uniform on [low, high], low > 0."""
    return math.log(high / low) / (high - low) if high > low else 1.0 / low


def stationary_speed_mean(low: float, high: float, pause: float, mean_leg: float) -> float:
    """The time-average speed of a node in steady state: E[L] / (E[L] E[1/V] + pause).
    Below the mean of the speed range: time is spent on slow legs and in pauses."""
    return mean_leg / (mean_leg * inverse_speed_mean(low, high) + pause)


def _node(rng: random.Random, area: Area, duration: float, low: float, high: float,
          pause: float) -> List[Waypoint]:
    c = inverse_speed_mean(low, high)
    bound = c * area.diagonal + pause
    while True:
        p1, p2 = area.uniform(rng), area.uniform(rng)
        weight = c * math.dist(p1, p2) + pause
        if rng.random() * bound < weight:
            break
    if rng.random() * weight < pause:       # paused at p2 for the rest of its pause
        points = [Waypoint(0.0, *p2), Waypoint(pause * (1.0 - rng.random()), *p2)]
    else:                                   # moving from p1 to p2, part of the way there
        f = rng.random()
        here = area.clamp([p + (q - p) * f for p, q in zip(p1, p2)])
        speed = low * (high / low) ** rng.random()
        arrive = math.dist(here, p2) / speed
        points = [Waypoint(0.0, *here), Waypoint(arrive, *p2)]
        if pause > 0:
            points.append(Waypoint(arrive + pause, *p2))
    here, t = p2, points[-1].t
    while t < duration:
        there = area.uniform(rng)
        speed = low + (high - low) * rng.random()
        t += math.dist(here, there) / speed
        points.append(Waypoint(t, *there))
        if pause > 0:
            t += pause
            points.append(Waypoint(t, *there))
        here = there
    return points


def _run(nodes: Sequence[str], area: Area, duration: float, seed: int,
         args: Dict[str, Any]) -> Dict[str, Trajectory]:
    low, high, pause = args["min_speed"], args["max_speed"], args["pause"]
    return {n: build(n, _node(node_random(seed, n), area, duration, low, high, pause), duration)
            for n in nodes}


MODEL = Model(
    "random_waypoint",
    (declare.POSITIVE_SPEED.variant(name="min_speed", required=True,
                                    doc="slowest leg, m/s (> 0: the steady state needs it)"),
     declare.POSITIVE_SPEED.variant(name="max_speed", required=True, doc="fastest leg, m/s"),
     declare.PAUSE.variant(name="pause", default=0.0, doc="pause at each destination, s")),
    _run,
    doc="random waypoint, started in steady state (Navidi and Camp's perfect simulation)",
    extra=lambda args, area: declare.check_speed_range(args),
)


def random_waypoint(nodes: Sequence[str], area: Area, duration: float, seed: int, *,
                    min_speed: float, max_speed: float,
                    pause: float = 0.0) -> Dict[str, Trajectory]:
    """One steady-state random waypoint trajectory per node over [0, duration]."""
    return MODEL(nodes, area, duration, seed,
                 {"min_speed": min_speed, "max_speed": max_speed, "pause": pause})

"""Received power between two positions, as the medium computes it (pure Python).

The same formulas as ``mediumd/core/propagation.c`` and ``medium.c`` (docs/medium.md,
'Propagation'), so that a topology can be checked before anything starts: whether a station
hears an access point at all, and with what SNR. Mean power only: static shadowing and
per-frame fading are random draws the medium makes at run time.

    P_rx = P_tx - PL(d) [- wall losses]     thresholds: rx sensitivity (default -90 dBm, or
                                            the power at ``tx_range``), noise floor -95 dBm (g)
"""
from __future__ import annotations

import math
from typing import Optional, Sequence, Tuple

from harness.medium.spec import MediumSpec, Wall

C_LIGHT = 299792458.0
MIN_DIST = 0.1
#: mediumd's defaults (mediumd/core/config.c).
TXPOWER_DBM = 15.0
RX_SENSITIVITY_DBM = -90.0
NOISE_FIGURE_DB = 6.0
WALL_LOSS_DB = 5.0
FLOOR_LOSS_DB = 15.0
DEFAULT_HEIGHT = 1.5
#: The exponent each model uses when none is given (``indoor`` defaults to 3, the others 2).
DEFAULT_EXPONENT = {"log_distance": 2.0, "indoor": 3.0}

Pos = Tuple[float, float, float]


def _friis(lam: float, d: float) -> float:
    return 20.0 * math.log10(4.0 * math.pi * d / lam)


def loss_at_distance_db(spec: MediumSpec, freq_mhz: float, d: float,
                        ha: float = 0.0, hb: float = 0.0) -> float:
    """Path loss of the spec's model at distance ``d`` (no walls): propagation.c."""
    lam = C_LIGHT / (freq_mhz * 1e6)
    d = max(d, MIN_DIST)
    model = spec.propagation
    if model in ("log_distance", "indoor"):
        d0 = spec.ref_distance or 1.0
        ref = spec.ref_loss if spec.ref_loss is not None else _friis(lam, d0)
        n = spec.exponent if spec.exponent is not None else DEFAULT_EXPONENT[model]
        loss = ref + (10.0 * n * math.log10(d / d0) if d > d0 else 0.0)
    elif model == "two_ray":
        default = spec.height or DEFAULT_HEIGHT
        ht, hr = (ha if ha > 0 else default), (hb if hb > 0 else default)
        dc = 4.0 * math.pi * ht * hr / lam
        loss = _friis(lam, d) if d < dc else 40.0 * math.log10(d) - 20.0 * math.log10(ht * hr)
    else:
        loss = _friis(lam, d)
    return loss + (spec.system_loss or 0.0)


def crosses(a: Pos, b: Pos, wall: Wall) -> bool:
    """Does the straight line a-b properly cross the wall segment (2-D)?"""
    ax, ay, bx, by = a[0], a[1], b[0], b[1]
    cx, cy, dx, dy = wall.x1, wall.y1, wall.x2, wall.y2
    d1 = (dx - cx) * (ay - cy) - (dy - cy) * (ax - cx)
    d2 = (dx - cx) * (by - cy) - (dy - cy) * (bx - cx)
    d3 = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
    d4 = (bx - ax) * (dy - ay) - (by - ay) * (dx - ax)
    return ((d1 > 0) != (d2 > 0)) and d1 != 0 and d2 != 0 and \
        ((d3 > 0) != (d4 > 0)) and d3 != 0 and d4 != 0


def walls_crossed(a: Pos, b: Pos, walls: Sequence[Wall]) -> list:
    return [w for w in walls if crosses(a, b, w)]


def path_loss_db(spec: MediumSpec, freq_mhz: float, a: Pos, b: Pos,
                 walls: Optional[Sequence[Wall]] = None) -> float:
    """Path loss between two positions: the model, and for ``indoor`` the walls crossed and
    the floors between (``walls`` default: the spec's)."""
    dx, dy, dz = a[0] - b[0], a[1] - b[1], a[2] - b[2]
    if spec.propagation == "two_ray":
        return loss_at_distance_db(spec, freq_mhz, math.hypot(dx, dy), a[2], b[2])
    loss = loss_at_distance_db(spec, freq_mhz, math.sqrt(dx * dx + dy * dy + dz * dz))
    if spec.propagation == "indoor":
        default = spec.wall_loss if spec.wall_loss is not None else WALL_LOSS_DB
        for w in walls_crossed(a, b, spec.walls if walls is None else walls):
            loss += w.loss if w.loss is not None else default
        if spec.floor_height:
            floors = abs(math.floor(a[2] / spec.floor_height) - math.floor(b[2] / spec.floor_height))
            loss += (spec.floor_loss if spec.floor_loss is not None else FLOOR_LOSS_DB) * floors
    return loss


def rx_power_dbm(spec: MediumSpec, freq_mhz: float, a: Pos, b: Pos,
                 txpower_dbm: Optional[float] = None,
                 walls: Optional[Sequence[Wall]] = None) -> float:
    """Mean power at ``b`` of a transmission from ``a`` (antenna gains 0 dB, as configured)."""
    tx = TXPOWER_DBM if txpower_dbm is None else txpower_dbm
    return tx - path_loss_db(spec, freq_mhz, a, b, walls)


def noise_floor_dbm(phy: str, noise_figure: Optional[float] = None) -> float:
    """Thermal noise over 22 MHz (b) or 20 MHz (g) plus the noise figure."""
    bw = 22e6 if phy == "b" else 20e6
    nf = NOISE_FIGURE_DB if noise_figure is None else noise_figure
    return -174.0 + 10.0 * math.log10(bw) + nf


def rx_sensitivity_dbm(spec: MediumSpec, freq_mhz: float,
                       txpower_dbm: Optional[float] = None, height: float = 0.0) -> float:
    """The power a radio must receive to lock onto a frame: ``rx_sensitivity``, else the mean
    power at ``tx_range`` from a transmitter like itself, else -90 dBm (medium.c)."""
    if spec.rx_sensitivity is not None:
        return spec.rx_sensitivity
    if spec.tx_range:
        tx = TXPOWER_DBM if txpower_dbm is None else txpower_dbm
        return tx - loss_at_distance_db(spec, freq_mhz, spec.tx_range, height, height)
    return RX_SENSITIVITY_DBM

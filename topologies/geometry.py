"""Geometry presets (``topology.geometry``): how far apart the nodes stand and the ranges,
propagation and queues the medium takes from the study being reproduced.

Data only. ``harness.experiment.realise`` reads it: ``spacing`` reaches the builder when
``topology.spacing`` is null, the other keys reach the medium unless the ``medium`` section
sets them. ``None`` leaves a value to the builder's default or the medium. Run ids hash the
YAML, not these values, so changing a value here changes what a stored run id means: add a
preset instead.
"""
from __future__ import annotations

from typing import Any, Dict

PRESETS: Dict[str, Dict[str, Any]] = {
    # ns-2 studies (paper 004, E8): 200 m apart, 250 m transmission, 550 m interference.
    "ns2": {"spacing": 200.0, "tx_range": 250.0, "cs_range": 550.0},
    # Spacing equal to the transmission range (paper 001, E7).
    "ns2-edge": {"spacing": 250.0, "tx_range": 250.0, "cs_range": 550.0},
    # Everyone inside everyone's carrier sense (paper 002, E10); the builder's neighbour links
    # keep routes and peerings hop by hop.
    "one-domain": {"spacing": 50.0, "tx_range": 250.0, "cs_range": 10000.0},
    # Spacing from ``topology.spacing``; ranges from the ``medium`` section.
    "custom": {"spacing": None, "tx_range": None, "cs_range": None},
    # Paper 001 (Chen, Xue, Nahrstedt; E7): ns-2 2.1b8a TwoRayGround, nodes one transmission
    # range (250 m) apart, interference range 500 m, interface queue 25 packets, ns-2's
    # default 1 Mbit/s basic rate (control frames) and 10 dB capture threshold.
    "ns2-001": {"spacing": 250.0, "tx_range": 250.0, "cs_range": 500.0,
                "propagation": "two_ray", "queue": 25, "capture_threshold": 10.0,
                "basic_rates": {"b": [1]}},
    # Paper 004 (Chen, Marsic, Miller; E8, E18-E22): 200 m apart, 250 m transmission, ~550 m
    # interference, capture 10 dB, ns-2 default interface queue 50, 1 Mbit/s basic rate.
    "ns2-004": {"spacing": 200.0, "tx_range": 250.0, "cs_range": 550.0,
                "propagation": "two_ray", "queue": 50, "capture_threshold": 10.0,
                "basic_rates": {"b": [1]}},
    # Paper 003 (Kotsiolis, Antonopoulos, Koubias; E13-E17): an office with walls between the
    # access point and the client. COST 231 multi-wall model (free-space distance law plus a
    # loss per wall; 6.9 dB per heavy wall, COST Action 231 final report, 1999, at 1.8 GHz);
    # Rayleigh fading per frame (no line of sight through walls); ERP's mandatory rates as
    # the basic set (control frames at 24 Mbit/s after a 54 Mbit/s frame); a medium queue of
    # 100 frames: hwsim stops a radio's queues at 100 frames pending in the medium, so the
    # medium never refuses one and a full queue backs up into the kernel's qdisc, as a
    # driver's full ring does (the default 50 would drop the frames beyond it). Distance and
    # wall count are the lan builder's (docs/papers.md, paper 003).
    "office-003": {"propagation": "indoor", "exponent": 2.0, "wall_loss": 6.9,
                   "fading": "rayleigh", "basic_rates": {"g": [6, 12, 24]}, "queue": 100},
}
#: The names ``topology.geometry`` accepts, in the order error messages list them.
GEOMETRIES = tuple(PRESETS)
DEFAULT = "ns2"
#: Spacing when neither the preset nor ``topology.spacing`` gives one.
DEFAULT_SPACING = 200.0
#: Preset keys that are medium settings (applied unless the ``medium`` section sets them).
MEDIUM_KEYS = ("tx_range", "cs_range", "propagation", "queue", "capture_threshold",
               "basic_rates", "exponent", "wall_loss", "fading")


def spacing(geometry: str) -> float:
    """The preset's neighbour spacing in metres, or ``DEFAULT_SPACING`` (``custom``)."""
    return PRESETS.get(geometry, {}).get("spacing") or DEFAULT_SPACING


def medium_defaults(geometry: str) -> Dict[str, Any]:
    """The preset's medium settings that have a value (fresh copies: callers may change them)."""
    preset = PRESETS.get(geometry, {})
    out: Dict[str, Any] = {}
    for key in MEDIUM_KEYS:
        value = preset.get(key)
        if value is not None:
            out[key] = {k: list(v) for k, v in value.items()} if isinstance(value, dict) else value
    return out

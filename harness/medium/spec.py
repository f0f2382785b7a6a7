"""What a medium is made of: validated medium keys (``MediumSpec``), link overrides, walls.

Errors name the key and the allowed values. Pure: no files, no processes.
"""
from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from harness.errors import HarnessError
from harness.kernel import wireless
from harness.medium.mobility.setting import Mobility
from harness.params import ParamSpec

PROPAGATION_MODELS = ("free_space", "log_distance", "two_ray", "indoor")
FADING_MODELS = ("none", "rayleigh", "lognormal")
LOG_LEVELS = ("error", "warn", "info", "debug")
RTS_FLAGS = ("per_entry", "first_entry")
RETRY_SERIES = ("kernel", "single")
LINK_KEYS = ("a", "b", "loss", "snr", "none", "model", "per", "oneway")
#: Experiment medium keys that change link power or thresholds (the link table): refused where
#: a topology's place fixes them (``Topology.medium``, a campus) and its routes depend on them.
LINK_PHYSICS_KEYS = ("propagation", "exponent", "height", "tx_range", "cs_range", "shadowing",
                     "fading", "fading_sigma", "rate_loss")
#: The ranges of medium keys that experiment files (``harness.experiment.catalog.MEDIUM``) and
#: campus files name too: declared here, where the medium checks them, and taken from here.
EXPONENT = ParamSpec("exponent", "float", "path-loss exponent (log_distance)", min=1.0, max=8.0)
#: A distance or height (``tx_range``, ``cs_range``, ``height`` ...): any positive number.
METRES = ParamSpec("metres", "float", "metres", min=0, min_exclusive=True)
#: A threshold or sigma in dB that may be zero (``capture_threshold``, ``shadowing`` ...).
DB_AT_LEAST_0 = ParamSpec("db", "float", "dB", min=0)
#: How long a radio pair's fade drifts, ms (0: a fresh fade per frame).
FADING_COHERENCE_MS = ParamSpec("fading_coherence", "float", "fading coherence time in ms",
                                min=0)
#: Weight G of interference against CCK payloads, S / (N + G I).
CCK_INTERFERENCE_WEIGHT = ParamSpec("cck_interference_weight", "float", "weight G of "
                                    "interference against CCK payloads", min=0,
                                    min_exclusive=True)
#: An independent loss probability on every PPDU of a link (``links[].per``, the prompt's
#: ``loss``, the control socket's ``set_link``).
PER = ParamSpec("per", "float", "a probability", min=0, max=1)
#: Frames a radio's transmit queue holds besides the one in service (mediumd takes 0..255).
QUEUE_FRAMES = ParamSpec("queue", "int", "per-radio queue in frames", min=0, max=255)
#: Receiver implementation loss of one legacy rate, dB (``rate_loss: {rate: dB}``).
RATE_LOSS_DB = ParamSpec("rate_loss", "float", "receiver implementation loss in dB", min=-20.0,
                         max=40.0)


#: Keys whose null is checked (and refused or read) rather than taken as the medium's default.
_NOT_NULL = ("enabled", "propagation", "log_level", "basic_rates", "links", "walls", "queues",
             "rate_loss")


# -- the spec ----------------------------------------------------------------------------
@dataclass
class LinkOverride:
    """Directed or symmetric override of the link a-b (node names or MACs)."""

    a: str
    b: str
    kind: str = "model"                   # loss | snr | none | model
    value: Optional[float] = None         # dB for loss / snr
    per: Optional[float] = None           # extra frame loss probability 0..1
    oneway: bool = False                  # a -> b only

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "medium.links[]") -> LinkOverride:
        if not isinstance(data, Mapping):
            raise HarnessError(f"{where} must be a mapping with keys {', '.join(LINK_KEYS)}")
        unknown = [k for k in data if k not in LINK_KEYS]
        if unknown:
            raise HarnessError(f"{where}.{unknown[0]} is unknown: allowed {', '.join(LINK_KEYS)}")
        for end in ("a", "b"):
            if not isinstance(data.get(end), str) or not data.get(end):
                raise HarnessError(f"{where}.{end} is required: a node name or a radio MAC")
        kinds = [k for k in ("loss", "snr", "none", "model") if data.get(k) not in (None, False)]
        if len(kinds) > 1:
            raise HarnessError(f"{where}: give at most one of loss, snr, none, model "
                               f"(got {', '.join(kinds)})")
        kind = kinds[0] if kinds else "model"
        value = None
        if kind in ("loss", "snr"):
            value = _number(data[kind], f"{where}.{kind}", "a number of dB")
        elif data.get(kind) is not True and kind != "model":
            raise HarnessError(f"{where}.{kind} must be true")
        per = (_ruled(PER, data["per"], f"{where}.per", " (a probability)")
               if data.get("per") is not None else None)
        oneway = _ruled(_FLAG, data.get("oneway", False), f"{where}.oneway")
        if kind == "model" and per is None:
            raise HarnessError(f"{where}: nothing to override: give one of loss, snr, none "
                               "or per (model: true only goes with per)")
        return cls(data["a"], data["b"], kind, value, per, oneway)


@dataclass
class Wall:
    x1: float
    y1: float
    x2: float
    y2: float
    loss: Optional[float] = None          # dB, None = propagation wall_loss


@dataclass
class MediumSpec:
    """What an experiment may say about the medium; ``None`` = mediumd's default.

    Names follow mediumd's config keys (catalog.MEDIUM) so a YAML key reaches the daemon
    unchanged. ``basic_rates`` maps a PHY to the rate set the medium answers control frames
    from (ACK/CTS at the highest basic rate <= the data rate); empty = the set each radio
    joined with (hwsim sends no ACKs: the control rate is the medium's decision).
    """

    enabled: bool = True
    propagation: str = "two_ray"          # ns-2's default; Friis below the crossover distance
    exponent: Optional[float] = None
    ref_distance: Optional[float] = None
    ref_loss: Optional[float] = None
    system_loss: Optional[float] = None
    height: Optional[float] = None
    wall_loss: Optional[float] = None
    floor_loss: Optional[float] = None
    floor_height: Optional[float] = None
    walls: List[Wall] = field(default_factory=list)
    tx_range: Optional[float] = None
    cs_range: Optional[float] = None
    rx_sensitivity: Optional[float] = None
    cs_threshold: Optional[float] = None
    noise_figure: Optional[float] = None
    capture_threshold: Optional[float] = None
    # G in S / (N + G I) for CCK payloads (5.5, 11 Mbit/s); None = the medium's 2 (docs/medium.md)
    cck_interference_weight: Optional[float] = None
    # receiver implementation loss (dB) per rate (Mbit/s): the SINR the rate's BER formula sees
    # is lowered by it; empty = the ideal formulas (docs/medium.md)
    rate_loss: Dict[float, float] = field(default_factory=dict)
    # which attempts use RTS/CTS: None/per_entry = each rate-table entry's flag (as mac80211
    # asks: minstrel flags its fallback entries); first_entry = the frame's first entry, so the
    # RTS threshold alone decides (docs/medium.md)
    rts_flags: Optional[str] = None
    # how many tries a frame gets: None/kernel = its kernel rate table's entries (mac80211's
    # minstrel asks fewer at slow rates than the retry limit); single = one series at the
    # first entry, to the retry limits, as madwifi at a fixed rate (docs/medium.md)
    retry_series: Optional[str] = None
    # True: a NAV set from an overheard RTS is reset when nothing starts on the air within
    # 2 SIFS + CTS + PHY-RX-START delay + 2 slots (the RTS went unanswered), as 802.11
    # permits; None/False = it runs its full Duration (docs/medium.md)
    nav_reset: Optional[bool] = None
    queue: Optional[int] = None
    queues: Dict[str, int] = field(default_factory=dict)  # node name -> its radios' queue
    short_slot: Optional[bool] = None
    shadowing: Optional[float] = None
    shadowing_seed: Optional[int] = None  # None = the run's seed (docs/medium.md)
    fading: Optional[str] = None
    fading_sigma: Optional[float] = None
    fading_coherence: Optional[float] = None  # ms; None or 0 = a fresh fade per frame
    seed: Optional[int] = None            # None = the Network's seed
    pcap: Union[bool, str, None] = None   # True = medium.pcap in the run directory
    basic_rates: Dict[str, Tuple[float, ...]] = field(default_factory=dict)
    links: List[LinkOverride] = field(default_factory=list)
    # nodes that move: a model, its area and parameters (harness.medium.mobility.setting);
    # None = every radio stays where the topology puts it (docs/mobility.md)
    mobility: Optional[Mobility] = None
    log_level: str = "warn"
    spin_us: Optional[int] = None         # mediumd --spin-us: busy-poll this close to events
    run_dir: Optional[str] = None         # None = a fresh temporary directory

    # -- validation --------------------------------------------------------------------
    @classmethod
    def keys(cls) -> List[str]:
        return [f.name for f in fields(cls)]

    @classmethod
    def from_dict(cls, data: Optional[Mapping[str, Any]], where: str = "medium") -> MediumSpec:
        """Validate medium keys (an experiment's ``medium`` section, or keyword arguments)."""
        data = dict(data or {})
        allowed = cls.keys()
        for key in data:
            if key not in allowed:
                raise HarnessError(f"{where}.{key} is unknown: allowed {', '.join(allowed)}")
        kw: Dict[str, Any] = {key: None if value is None and key not in _NOT_NULL
                              else _check_key(key, value, f"{where}.{key}")
                              for key, value in data.items()}
        spec = cls(**kw)
        spec._check_combinations(where)
        return spec

    def _check_combinations(self, where: str) -> None:
        if self.fading == "lognormal" and not self.fading_sigma:
            raise HarnessError(f"{where}.fading_sigma is required with fading: lognormal "
                               "(sigma in dB, > 0)")
        if self.fading_coherence and self.fading in (None, "none"):
            raise HarnessError(f"{where}.fading_coherence needs fading: allowed with "
                               "fading rayleigh or lognormal (got none)")
        if self.tx_range and self.cs_range and self.cs_range < self.tx_range:
            raise HarnessError(f"{where}.cs_range {self.cs_range:g} m is below tx_range "
                               f"{self.tx_range:g} m: allowed cs_range >= tx_range")
        if self.walls and self.propagation != "indoor":
            raise HarnessError(f"{where}.walls need propagation: indoor "
                               f"(got {self.propagation})")

    def to_dict(self) -> Dict[str, Any]:
        """Plain data (for a run's result); round-trips through ``from_dict``."""
        out = asdict(self)
        out["basic_rates"] = {k: list(v) for k, v in self.basic_rates.items()}
        out["links"] = [_link_dict(l) for l in self.links]
        out["walls"] = [[w.x1, w.y1, w.x2, w.y2] + ([w.loss] if w.loss is not None else [])
                        for w in self.walls]
        out["mobility"] = self.mobility.to_dict() if self.mobility is not None else None
        return out


def _link_dict(link: LinkOverride) -> Dict[str, Any]:
    out: Dict[str, Any] = {"a": link.a, "b": link.b}
    if link.kind in ("loss", "snr"):
        out[link.kind] = link.value
    elif link.kind == "none":
        out["none"] = True
    if link.per is not None:
        out["per"] = link.per
    if link.oneway:
        out["oneway"] = True
    return out


def _number(value: Any, key: str, allowed: str, *, lo: Optional[float] = None,
            hi: Optional[float] = None, integer: bool = False) -> float:
    ok = (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
          and (not integer or float(value).is_integer())
          and (lo is None or value >= lo) and (hi is None or value <= hi))
    if not ok:
        raise HarnessError(f"{key} {value!r} is invalid: allowed {allowed}")
    return int(value) if integer else float(value)


_DB = ("ref_loss", "system_loss", "wall_loss", "floor_loss", "rx_sensitivity", "cs_threshold",
       "noise_figure")
_FLAG = ParamSpec("flag", "bool")
#: Keys checked by one rule: key -> (the rule, what the error adds to its allowed values).
_RULED: Dict[str, Tuple[ParamSpec, str]] = {
    **dict.fromkeys(("ref_distance", "height", "floor_height", "tx_range", "cs_range"),
                    (METRES, " (metres)")),
    "exponent": (EXPONENT, ""),
    **dict.fromkeys(("capture_threshold", "shadowing", "fading_sigma"), (DB_AT_LEAST_0, " (dB)")),
    "cck_interference_weight": (CCK_INTERFERENCE_WEIGHT,
                                " (2 = the medium's default, 16 = no suppression)"),
    "fading_coherence": (FADING_COHERENCE_MS, " (ms; 0 = a fresh fade per frame)"),
    "queue": (QUEUE_FRAMES, ""),
    **dict.fromkeys(("enabled", "short_slot", "nav_reset"), (_FLAG, "")),
}
_CHOICES = {"propagation": PROPAGATION_MODELS, "fading": FADING_MODELS, "log_level": LOG_LEVELS,
            "rts_flags": RTS_FLAGS, "retry_series": RETRY_SERIES}


def _check_key(key: str, value: Any, where: str) -> Any:
    """One medium key's value, checked; HarnessError names the key and what is allowed."""
    if key in _RULED:
        rule, note = _RULED[key]
        return _ruled(rule, value, where, note)
    if key in _CHOICES:
        return _choice(value, _CHOICES[key], where)
    if key in _DB:
        return _number(value, where, "a number (dB / dBm)")
    if key == "rate_loss":
        return _check_rate_loss(value, where)
    if key == "queues":
        return _check_queues(value, where)
    if key == "spin_us":
        return _number(value, where, "an integer 0..1000000 (microseconds)", lo=0, hi=1000000,
                       integer=True)
    if key in ("seed", "shadowing_seed"):
        return _number(value, where, "an integer >= 0", lo=0, integer=True)
    if key == "pcap":
        if isinstance(value, bool) or (isinstance(value, str) and value):
            return value
        raise HarnessError(f"{where} {value!r} is invalid: allowed true, false or a file path")
    if key == "run_dir":
        if isinstance(value, (str, os.PathLike)) and str(value):
            return str(value)
        raise HarnessError(f"{where} {value!r} is invalid: allowed a directory path")
    if key == "basic_rates":
        return _check_basic_rates(value, where)
    if key == "links":
        if not isinstance(value, (list, tuple)):
            raise HarnessError(f"{where} must be a list of link overrides "
                               f"(keys {', '.join(LINK_KEYS)})")
        return [v if isinstance(v, LinkOverride) else LinkOverride.from_dict(v, f"{where}[{i}]")
                for i, v in enumerate(value)]
    if key == "walls":
        return _check_walls(value, where)
    if key == "mobility":
        return value if isinstance(value, Mobility) else Mobility.from_dict(value, where)
    raise HarnessError(f"{where} is unknown")  # pragma: no cover - keys() guards this


def _check_queues(value: Any, where: str) -> Dict[str, int]:
    """``queues: {node: frames}``: one node's radios with a transmit queue of their own size
    (an access point with a small buffer beside clients with large ones); node names are
    checked against the network when the config is written."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise HarnessError(f"{where} {value!r} is invalid: allowed a mapping node name -> "
                           f"frames ({QUEUE_FRAMES.allowed()}), e.g. {{ap1: 20}}")
    return {str(node): _ruled(QUEUE_FRAMES, frames, f"{where}.{node}")
            for node, frames in value.items()}


def _ruled(rule: ParamSpec, value: Any, where: str, note: str = "") -> Any:
    """``value`` in the canonical form of ``rule``; the error in this module's words."""
    if not rule.accepts(value):
        raise HarnessError(f"{where} {value!r} is invalid: allowed {rule.allowed()}{note}")
    return rule.check(value, where)


def _choice(value: Any, allowed: Sequence[str], where: str) -> str:
    if value not in allowed:
        raise HarnessError(f"{where} {value!r} is invalid: allowed {', '.join(allowed)}")
    return value


def _check_rate_loss(value: Any, where: str) -> Dict[float, float]:
    """``rate_loss: {5.5: 4.6, 11: 2.7}``: dB of implementation loss per legacy rate."""
    if value is None:
        return {}
    rates = sorted(float(r) for r in wireless.RATES["g"])
    allowed = ", ".join(f"{r:g}" for r in rates)
    if not isinstance(value, Mapping):
        raise HarnessError(f"{where} {value!r} is invalid: allowed a mapping rate (Mbit/s: "
                           f"{allowed}) -> dB, e.g. {{5.5: 4.6, 11: 2.7}}")
    out: Dict[float, float] = {}
    for rate, loss in value.items():
        try:
            r = float(rate)
        except (TypeError, ValueError):
            r = float("nan")
        if isinstance(rate, bool) or r not in rates:
            raise HarnessError(f"{where}.{rate} is invalid: allowed rates {allowed} (Mbit/s)")
        out[r] = _ruled(RATE_LOSS_DB, loss, f"{where}.{rate:g}" if isinstance(rate, (int, float))
                        else f"{where}.{rate}")
    return out


def _check_basic_rates(value: Any, where: str) -> Dict[str, Tuple[float, ...]]:
    if not isinstance(value, Mapping):
        raise HarnessError(f"{where} must map a phy ({', '.join(wireless.PHY_MODES)}) "
                           "to a list of Mbit/s rates, e.g. {g: [6, 12, 24]}")
    out = {}
    for phy, rates in value.items():
        if phy not in wireless.PHY_MODES:
            raise HarnessError(f"{where}.{phy} is invalid: allowed {', '.join(wireless.PHY_MODES)}")
        if not isinstance(rates, (list, tuple)) or not rates:
            raise HarnessError(f"{where}.{phy} must be a non-empty list of rates")
        allowed = wireless.RATES[phy]
        for r in rates:
            if isinstance(r, bool) or not isinstance(r, (int, float)) or float(r) not in allowed:
                raise HarnessError(f"{where}.{phy} rate {r!r} is invalid: allowed "
                                   + ", ".join(f"{a:g}" for a in allowed))
        out[phy] = tuple(sorted({float(r) for r in rates}))
    return out


def _check_walls(value: Any, where: str) -> List[Wall]:
    if not isinstance(value, (list, tuple)):
        raise HarnessError(f"{where} must be a list of [x1, y1, x2, y2] or [x1, y1, x2, y2, loss_db]")
    out = []
    for i, w in enumerate(value):
        if not isinstance(w, Wall):
            if not isinstance(w, (list, tuple)) or len(w) not in (4, 5):
                raise HarnessError(f"{where}[{i}] {w!r} is invalid: allowed [x1, y1, x2, y2] or "
                                   "[x1, y1, x2, y2, loss_db]")
            w = Wall(*[_number(v, f"{where}[{i}]", "numbers (metres, dB)") for v in w])
        out.append(w)
    return out


def medium_with_defaults(defaults: Mapping[str, Any], medium: Any) -> Any:
    """What ``Network(medium=...)`` runs when its topology implies medium settings
    (``Topology.medium``: a campus's walls and propagation): those settings, with every key the
    caller gives (not None) on top. ``'none'`` and a ready ``MediumSpec`` are taken as they
    are; without defaults nothing changes."""
    if not defaults or isinstance(medium, (str, MediumSpec)):
        return medium
    given = {k: v for k, v in dict(medium or {}).items() if v is not None}
    return {**defaults, **given}


def spec_of(medium: Any) -> Optional[MediumSpec]:
    """What ``Network(medium=...)`` means: None = defaults, 'none' = no medium, a dict or a
    ``MediumSpec`` = those settings. Returns None when no medium should run."""
    if medium is None or medium == "default":
        return MediumSpec()
    if medium == "none":
        return None
    if isinstance(medium, str):
        raise HarnessError(f"medium {medium!r} is invalid: allowed 'none', 'default', "
                           "a mapping of medium keys, or a MediumSpec")
    spec = medium if isinstance(medium, MediumSpec) else MediumSpec.from_dict(medium)
    return spec if spec.enabled else None



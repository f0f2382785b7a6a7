"""The medium of a ``Network``: mediumd's config from the topology, and the daemon's lifetime.

Why here: every wireless ``Network`` runs mediumd (design.md §4) unless told ``medium='none'``;
this module is the one path from the medium keys of an experiment (``MediumSpec``) and the
radios a run created (``Network.radio_table()``) to the daemon's config file
(``mediumd/core/config.c`` format), and from the running daemon back to counters a result
can store (``stats_for``).

- ``MediumSpec.from_dict``: validated medium keys (errors name the key and the allowed values);
- ``config_text(radios, spec, seed)``: pure, unit-tested;
- ``start_for(network)``: build (``ensure_mediumd``), write the config into a run directory,
  start mediumd in the root namespace, return once it answers on its control socket (it
  registers with hwsim before it serves the socket), fail loudly if it exits;
- ``MediumHandle.stop()``: SIGTERM, final counters from ``--stats-out``, SIGKILL if needed.
"""
from __future__ import annotations

import ctypes
import json
import math
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import weakref
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from harness import cpu_layout, naming, wireless
from harness.errors import HarnessError
from harness.medium_control import MediumControl, MediumControlError

PROPAGATION_MODELS = ("free_space", "log_distance", "two_ray", "indoor")
FADING_MODELS = ("none", "rayleigh", "lognormal")
LOG_LEVELS = ("error", "warn", "info", "debug")
LINK_KEYS = ("a", "b", "loss", "snr", "none", "model", "per", "oneway")
#: How long mediumd may take to register and answer its control socket (TCG is slow).
START_TIMEOUT = 20.0
STOP_TIMEOUT = 10.0


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
    def from_dict(cls, data: Mapping[str, Any], where: str = "medium.links[]") -> "LinkOverride":
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
        per = None
        if data.get("per") is not None:
            per = _number(data["per"], f"{where}.per", "a probability 0..1", lo=0.0, hi=1.0)
        oneway = data.get("oneway", False)
        if not isinstance(oneway, bool):
            raise HarnessError(f"{where}.oneway {oneway!r} is invalid: allowed true or false")
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
    queue: Optional[int] = None
    short_slot: Optional[bool] = None
    shadowing: Optional[float] = None
    fading: Optional[str] = None
    fading_sigma: Optional[float] = None
    seed: Optional[int] = None            # None = the Network's seed
    pcap: Union[bool, str, None] = None   # True = medium.pcap in the run directory
    basic_rates: Dict[str, Tuple[float, ...]] = field(default_factory=dict)
    links: List[LinkOverride] = field(default_factory=list)
    log_level: str = "warn"
    spin_us: Optional[int] = None         # mediumd --spin-us: busy-poll this close to events
    run_dir: Optional[str] = None         # None = a fresh temporary directory

    # -- validation --------------------------------------------------------------------
    @classmethod
    def keys(cls) -> List[str]:
        return [f.name for f in fields(cls)]

    @classmethod
    def from_dict(cls, data: Optional[Mapping[str, Any]], where: str = "medium") -> "MediumSpec":
        """Validate medium keys (an experiment's ``medium`` section, or keyword arguments)."""
        data = dict(data or {})
        allowed = cls.keys()
        for key in data:
            if key not in allowed:
                raise HarnessError(f"{where}.{key} is unknown: allowed {', '.join(allowed)}")
        kw: Dict[str, Any] = {}
        for key, value in data.items():
            if value is None and key not in ("enabled", "propagation", "log_level", "basic_rates",
                                             "links", "walls"):
                kw[key] = None
                continue
            kw[key] = _check_key(key, value, f"{where}.{key}")
        spec = cls(**kw)
        spec._check_combinations(where)
        return spec

    def _check_combinations(self, where: str) -> None:
        if self.fading == "lognormal" and not self.fading_sigma:
            raise HarnessError(f"{where}.fading_sigma is required with fading: lognormal "
                               "(sigma in dB, > 0)")
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
            hi: Optional[float] = None, integer: bool = False, lo_open: bool = False) -> float:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if ok and integer:
        ok = float(value).is_integer()
    if ok and lo is not None:
        ok = value > lo if lo_open else value >= lo
    if ok and hi is not None:
        ok = value <= hi
    if not ok:
        raise HarnessError(f"{key} {value!r} is invalid: allowed {allowed}")
    return int(value) if integer else float(value)


_POSITIVE = ("ref_distance", "height", "floor_height", "tx_range", "cs_range")
_DB = ("ref_loss", "system_loss", "wall_loss", "floor_loss", "rx_sensitivity", "cs_threshold",
       "noise_figure")


def _check_key(key: str, value: Any, where: str) -> Any:
    """One medium key's value, checked; HarnessError names the key and what is allowed."""
    if key in _POSITIVE:
        return _number(value, where, "a number > 0 (metres)", lo=0.0, lo_open=True)
    if key in _DB:
        return _number(value, where, "a number (dB / dBm)")
    if key == "exponent":
        return _number(value, where, "a number 1..8", lo=1.0, hi=8.0)
    if key in ("capture_threshold", "shadowing", "fading_sigma"):
        return _number(value, where, "a number >= 0 (dB)", lo=0.0)
    if key == "queue":
        return _number(value, where, "an integer 0..255 (frames)", lo=0, hi=255, integer=True)
    if key == "spin_us":
        return _number(value, where, "an integer 0..1000000 (microseconds)", lo=0, hi=1000000,
                       integer=True)
    if key == "seed":
        return _number(value, where, "an integer >= 0", lo=0, integer=True)
    if key in ("enabled", "short_slot"):
        if not isinstance(value, bool):
            raise HarnessError(f"{where} {value!r} is invalid: allowed true or false")
        return value
    if key == "propagation":
        return _choice(value, PROPAGATION_MODELS, where)
    if key == "fading":
        return _choice(value, FADING_MODELS, where)
    if key == "log_level":
        return _choice(value, LOG_LEVELS, where)
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
    raise HarnessError(f"{where} is unknown")  # pragma: no cover - keys() guards this


def _choice(value: Any, allowed: Sequence[str], where: str) -> str:
    if value not in allowed:
        raise HarnessError(f"{where} {value!r} is invalid: allowed {', '.join(allowed)}")
    return value


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
        if isinstance(w, Wall):
            out.append(w)
            continue
        if not isinstance(w, (list, tuple)) or len(w) not in (4, 5):
            raise HarnessError(f"{where}[{i}] {w!r} is invalid: allowed [x1, y1, x2, y2] or "
                               "[x1, y1, x2, y2, loss_db]")
        nums = [_number(v, f"{where}[{i}]", "numbers (metres, dB)") for v in w]
        out.append(Wall(*nums))
    return out


def spec_of(medium: Any) -> Optional[MediumSpec]:
    """What ``Network(medium=...)`` means: None = defaults, 'none' = no medium, a dict or a
    ``MediumSpec`` = those settings. Returns None when no medium should run."""
    if medium is None:
        return MediumSpec()
    if isinstance(medium, str):
        if medium == "none":
            return None
        if medium == "default":
            return MediumSpec()
        raise HarnessError(f"medium {medium!r} is invalid: allowed 'none', 'default', "
                           "a mapping of medium keys, or a MediumSpec")
    spec = medium if isinstance(medium, MediumSpec) else MediumSpec.from_dict(medium)
    return spec if spec.enabled else None


# -- config text (pure) ------------------------------------------------------------------
RadioRow = Mapping[str, Any]


def _radio_rows(source: Any) -> List[Dict[str, Any]]:
    """Radio dicts from a Network, a list of ``Radio`` objects, or a list of dicts."""
    if hasattr(source, "radio_table"):
        return [dict(r) for r in source.radio_table()]
    rows = []
    for r in source:
        rows.append(dict(r.to_dict() if hasattr(r, "to_dict") else r))
    return rows


def _fmt(v: float) -> str:
    return f"{float(v):.6g}"


def _radio_label(row: Mapping[str, Any]) -> str:
    """The radio's name in the config (node names are [a-z0-9_]: '-n' cannot collide)."""
    index = int(row.get("index", 0) or 0)
    return row["node"] if index == 0 else f"{row['node']}-{index}"


def radio_basic_rates(row: Mapping[str, Any], spec: MediumSpec) -> List[float]:
    """The rate set the medium takes control-frame rates from, for one radio."""
    phy = row.get("phy_mode", "g")
    if phy in spec.basic_rates:
        return list(spec.basic_rates[phy])
    return wireless.basic_rates(phy, row.get("rate"))


def config_text(source: Any, spec: MediumSpec, seed: int = 0) -> str:
    """mediumd's config for these radios (a Network or its ``radio_table()``) and this spec."""
    rows = _radio_rows(source)
    if not rows:
        raise HarnessError("the medium needs at least one radio")
    seed = spec.seed if spec.seed is not None else seed
    out = ["# mediumd config generated by harness.medium (format: mediumd/core/config.c)",
           f"seed {int(seed)}"]
    prop = [f"propagation {spec.propagation}"]
    for key in ("exponent", "ref_distance", "ref_loss", "system_loss", "height", "wall_loss",
                "floor_loss", "floor_height"):
        value = getattr(spec, key)
        if value is not None:
            prop.append(f"{key} {_fmt(value)}")
    out.append(" ".join(prop))
    for w in spec.walls:
        line = f"wall {_fmt(w.x1)} {_fmt(w.y1)} {_fmt(w.x2)} {_fmt(w.y2)}"
        out.append(line + (f" loss {_fmt(w.loss)}" if w.loss is not None else ""))
    for key in ("noise_figure", "capture_threshold", "rx_sensitivity"):
        value = getattr(spec, key)
        if value is not None:
            out.append(f"{key} {_fmt(value)}")
    if spec.shadowing:
        out.append(f"shadowing {_fmt(spec.shadowing)}")
    if spec.fading and spec.fading != "none":
        sigma = f" sigma {_fmt(spec.fading_sigma)}" if spec.fading == "lognormal" else ""
        out.append(f"fading {spec.fading}{sigma}")
    defaults = []
    for key in ("tx_range", "cs_range", "cs_threshold"):
        value = getattr(spec, key)
        if value is not None:
            defaults.append(f"{key} {_fmt(value)}")
    if spec.queue is not None:
        defaults.append(f"queue {int(spec.queue)}")
    if spec.short_slot is not None:
        defaults.append(f"short_slot {'on' if spec.short_slot else 'off'}")
    if defaults:
        out.append("defaults " + " ".join(defaults))
    seen = set()
    for row in rows:
        out.append(_radio_line(row, spec))
        label = _radio_label(row)
        if label in seen:
            raise HarnessError(f"two radios are both called {label!r} in the medium config")
        seen.add(label)
    macs = _names_to_macs(rows)
    for i, link in enumerate(spec.links):
        out.extend(_link_lines(link, macs, f"medium.links[{i}]"))
    return "\n".join(out) + "\n"


def _radio_line(row: Mapping[str, Any], spec: MediumSpec) -> str:
    phy = row.get("phy_mode", "g")
    x, y, z = (tuple(row.get("position") or (0.0, 0.0, 0.0)) + (0.0, 0.0, 0.0))[:3]
    parts = [f"radio {row['mac']}", f"name {_radio_label(row)}",
             f"pos {_fmt(x)} {_fmt(y)} {_fmt(z)}", f"phy {phy}"]
    if row.get("freq"):
        parts.append(f"freq {int(row['freq'])}")
    parts.append("basic_rates " + ",".join(f"{r:g}" for r in radio_basic_rates(row, spec)))
    if row.get("txpower_dbm") is not None:
        parts.append(f"txpower {_fmt(row['txpower_dbm'])}")
    if row.get("retry_limit") is not None:
        limit = int(row["retry_limit"])
        parts.append(f"retry_short {limit} retry_long {limit}")
    rate = row.get("rate")
    rts = row.get("rts")
    note = (f"  # {row.get('name', '')} {row.get('mode', '')} rate "
            f"{'auto' if rate is None else f'{rate:g}'} rts {wireless.rts_arg(rts) or 'unset'}")
    return " ".join(parts) + note


def _names_to_macs(rows: Sequence[Mapping[str, Any]]) -> Dict[str, List[str]]:
    out: Dict[str, List[str]] = {}
    for row in rows:
        out.setdefault(row["node"], []).append(row["mac"])
        out.setdefault(_radio_label(row), [row["mac"]])
        out.setdefault(row["mac"].lower(), [row["mac"]])
    return out


def _link_lines(link: LinkOverride, macs: Mapping[str, List[str]], where: str) -> List[str]:
    ends = []
    for key, name in (("a", link.a), ("b", link.b)):
        found = macs.get(name) or macs.get(name.lower())
        if not found:
            known = sorted(k for k in macs if ":" not in k)
            raise HarnessError(f"{where}.{key} {name!r} is not a station or radio of this network: "
                               f"allowed {', '.join(known)} or a radio MAC")
        ends.append(found)
    kind = {"loss": f"loss {_fmt(link.value or 0)}", "snr": f"snr {_fmt(link.value or 0)}",
            "none": "none", "model": "model"}[link.kind]
    extra = (f" per {_fmt(link.per)}" if link.per is not None else "") + \
            (" oneway" if link.oneway else "")
    lines = []
    for a in ends[0]:
        for b in ends[1]:
            if a != b:  # a node's own radios are not a link
                lines.append(f"link {a} {b} {kind}{extra}")
    if not lines:
        raise HarnessError(f"{where}: a radio cannot link to itself ({link.a}-{link.b})")
    return lines


# -- the daemon --------------------------------------------------------------------------
class MediumHandle:
    """A running mediumd: its control connection, its files, and how to stop it."""

    def __init__(self, proc: subprocess.Popen, run_dir: Path, *, keep_dir: bool,
                 spec: MediumSpec, names: Mapping[str, str]):
        self.proc = proc
        self.run_dir = run_dir
        self.config_path = run_dir / "medium.conf"
        self.control_path = run_dir / "control.sock"
        self.stats_path = run_dir / "stats.json"
        self.log_path = run_dir / "mediumd.log"
        self.pcap_path: Optional[Path] = None
        self.spec = spec
        self.names = dict(names)          # MAC -> radio label (node name)
        self.control = MediumControl(str(self.control_path), timeout=10.0)
        self.final_stats: Optional[Dict[str, Any]] = None
        self.exit_code: Optional[int] = None
        self._keep_dir = keep_dir
        self._lock = threading.Lock()

    @property
    def running(self) -> bool:
        return self.proc.poll() is None and self.exit_code is None

    def stats(self) -> Dict[str, Any]:
        """Counters now (control socket), or the final ones once stopped; radios and links
        carry node names (``node``, ``tx_node``, ``rx_node``) beside their MACs."""
        if self.final_stats is not None:
            return self.final_stats
        if not self.running:
            raise HarnessError(f"mediumd exited (code {self.proc.poll()}): "
                               f"{self.log_tail() or 'no output'}")
        stats = self.control.stats()
        return self.annotate(stats, time.monotonic())

    def annotate(self, stats: Dict[str, Any], mono_s: float) -> Dict[str, Any]:
        """Node names beside MACs, and each radio's busy time (``busy_us``).

        mediumd reports ``busy_fraction`` over the core's span (first event to now, about its
        uptime: mediumd/core c89f37e) but not the busy time itself; busy time = fraction x
        ``uptime_s`` (a few ms off: the core's span starts at its first event), so intervals
        can be subtracted (``stats_delta``). A daemon that reports ``busy_us`` is used as is.
        ``mono_s`` (CLOCK_MONOTONIC when the stats were read) is kept for reference."""
        uptime = float(stats.get("uptime_s", 0.0))
        stats.setdefault("read_monotonic_s", mono_s)
        for radio in stats.get("radios", []):
            radio.setdefault("node", self.names.get(radio.get("mac", "").lower()))
            if "busy_us" not in radio and "busy_fraction" in radio:
                radio["busy_us"] = radio["busy_fraction"] * uptime * 1e6
        for link in stats.get("links", []):
            link.setdefault("tx_node", self.names.get(str(link.get("tx", "")).lower()))
            link.setdefault("rx_node", self.names.get(str(link.get("rx", "")).lower()))
        return stats

    def log_tail(self, chars: int = 2000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:].strip()
        except OSError:
            return ""

    def stop(self) -> Optional[Dict[str, Any]]:
        """SIGTERM; collect the final counters mediumd writes; SIGKILL after a timeout.
        Idempotent. Returns the final stats (None if the daemon could not write them)."""
        with self._lock:
            if self.exit_code is not None:
                return self.final_stats
            self.control.close()
            if self.proc.poll() is None:
                try:
                    self.proc.send_signal(signal.SIGTERM)
                    self.proc.wait(STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait(5)
            self.exit_code = self.proc.returncode
            exited_at = time.monotonic()
            try:
                self.final_stats = self.annotate(json.loads(self.stats_path.read_text()),
                                                 exited_at)
            except (OSError, ValueError):
                self.final_stats = None
            log = self.log_tail()
            if not self._keep_dir and self.exit_code == 0:
                shutil.rmtree(self.run_dir, ignore_errors=True)
        if self.exit_code != 0:
            raise HarnessError(f"mediumd ended with exit code {self.exit_code} "
                               f"(files kept in {self.run_dir}): {log or 'no output'}")
        return self.final_stats


#: The last medium of each Network, so counters stay readable after ``stop()``.
_HANDLES: "weakref.WeakKeyDictionary[Any, MediumHandle]" = weakref.WeakKeyDictionary()


def stats_for(network: Any) -> Optional[Dict[str, Any]]:
    """The medium counters of a Network: live while it runs, final after ``stop()``;
    None if it ran without a medium. (``Network.medium_stats()`` delegates here.)"""
    handle = getattr(network, "medium_handle", None) or _HANDLES.get(network)
    return handle.stats() if handle is not None else None


def handle_for(network: Any) -> Optional[MediumHandle]:
    return getattr(network, "medium_handle", None) or _HANDLES.get(network)


def _set_pdeathsig() -> None:
    """In the child: die with the harness (a registered orphan medium blocks the next run)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 - best effort; `harness clean` is the fallback
        pass
    os.setsid()


_BINARY: Optional[Path] = None


def mediumd_binary() -> Path:
    """The mediumd this process uses: built once (cached by source hash), then kept, so a
    source edit during a long session does not rebuild (minutes under TCG) between runs."""
    global _BINARY
    if _BINARY is None or not _BINARY.exists():
        from harness.mediumd_build import ensure_mediumd
        _BINARY = ensure_mediumd()
    return _BINARY


def start_for(network: Any) -> Optional[MediumHandle]:
    """Start mediumd for a Network whose radios exist (called by ``Network._start_medium``).

    Returns None when the network's ``medium`` says no medium (e.g. ``enabled: false``).
    """
    spec = spec_of(getattr(network, "medium", None))
    if spec is None:
        return None
    binary = mediumd_binary()
    tag = getattr(network, "tag", "0000")
    text = config_text(network, spec, getattr(network, "seed", 0))
    handle = launch(binary, text, spec, tag=tag, names={
        r["mac"].lower(): _radio_label(r) for r in _radio_rows(network)})
    try:
        _HANDLES[network] = handle
    except TypeError:
        pass
    return handle


def launch(binary: Union[str, Path], text: str, spec: MediumSpec, *, tag: str = "0000",
           names: Optional[Mapping[str, str]] = None) -> MediumHandle:
    """Write the config, start mediumd, wait until it serves its control socket."""
    if spec.run_dir:
        run_dir = Path(spec.run_dir)
        run_dir.mkdir(parents=True, exist_ok=True)
    else:
        run_dir = Path(tempfile.mkdtemp(prefix=f"{naming.PREFIX}{tag}-medium-"))
    (run_dir / "medium.conf").write_text(text)
    for stale in ("control.sock", "stats.json"):
        (run_dir / stale).unlink(missing_ok=True)
    argv = [str(binary), "-c", str(run_dir / "medium.conf"),
            "--control", str(run_dir / "control.sock"),
            "--stats-out", str(run_dir / "stats.json"), "--log-level", spec.log_level]
    if spec.spin_us:
        argv += ["--spin-us", str(int(spec.spin_us))]
    pcap: Optional[Path] = None
    if spec.pcap:
        pcap = run_dir / "medium.pcap" if spec.pcap is True else Path(str(spec.pcap))
        argv += ["--pcap", str(pcap)]
    env = dict(os.environ, **{naming.RUN_ENV: tag})
    main_thread = threading.current_thread() is threading.main_thread()
    with open(run_dir / "mediumd.log", "wb") as log:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, env=env,
                                preexec_fn=_set_pdeathsig if main_thread else os.setsid)
    cpu_layout.pin_medium(proc.pid)
    handle = MediumHandle(proc, run_dir, keep_dir=bool(spec.run_dir or spec.pcap),
                          spec=spec, names=names or {})
    handle.pcap_path = pcap
    try:
        _wait_ready(handle)
    except BaseException:
        try:
            handle.stop()
        except HarnessError:
            pass
        raise
    return handle


def _wait_ready(handle: MediumHandle) -> None:
    """mediumd registers with hwsim before serving its socket: a ping answered = registered."""
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        code = handle.proc.poll()
        if code is not None:
            handle._keep_dir = True
            raise HarnessError(f"mediumd exited at start (code {code}); config and log in "
                               f"{handle.run_dir}: {handle.log_tail() or 'no output'}")
        if handle.control_path.exists():
            try:
                handle.control.ping()
                return
            except MediumControlError:
                handle.control.close()
        if time.monotonic() > deadline:
            handle._keep_dir = True
            raise HarnessError(f"mediumd did not answer on {handle.control_path} within "
                               f"{START_TIMEOUT:g} s: {handle.log_tail() or 'no output'}")
        time.sleep(0.05)


def stop_for(network: Any, handle: MediumHandle) -> None:
    """Fallback hook of ``Network._stop_medium`` (handles normally have ``stop``)."""
    handle.stop()


def summary(stats: Optional[Mapping[str, Any]]) -> Dict[str, Any]:
    """The few numbers a run's result shows first: lag percentiles, per-radio busy
    fraction and queue drops, per-link attempts/successes/collisions/retry drops."""
    if not stats:
        return {}
    return {
        "lag_us": stats.get("lag_us"),
        "radios": {r.get("node") or r["mac"]: {k: r.get(k) for k in
                   ("busy_fraction", "queue_drops", "tx_frames", "acked", "retry_drops")}
                   for r in stats.get("radios", [])},
        "links": {f"{l.get('tx_node') or l['tx']}>{l.get('rx_node') or l['rx']}":
                  {k: l.get(k) for k in ("attempts", "successes", "collisions", "retry_drops",
                                         "airtime_us", "delivered")}
                  for l in stats.get("links", [])},
    }


_RADIO_COUNTERS = ("enqueued", "queue_drops", "tx_frames", "acked", "retry_drops", "tx_airtime_us")
_LINK_COUNTERS = ("attempts", "successes", "collisions", "retry_drops", "airtime_us", "delivered")


def stats_delta(before: Mapping[str, Any], after: Mapping[str, Any]) -> Dict[str, Any]:
    """Counters of the interval between two stats documents (e.g. around one flow).

    ``busy_fraction`` here is busy time over the interval (from ``busy_us``, see
    ``MediumHandle.annotate``). Lag percentiles cannot be subtracted: ``lag_us`` is
    the cumulative one of ``after``."""
    dt = float(after.get("uptime_s", 0.0)) - float(before.get("uptime_s", 0.0))
    old_r = {r["mac"]: r for r in before.get("radios", [])}
    radios = []
    for r in after.get("radios", []):
        o = old_r.get(r["mac"], {})
        d = dict(r, **{k: r.get(k, 0) - o.get(k, 0) for k in _RADIO_COUNTERS})
        if "busy_us" in r:
            busy = (r["busy_us"] - o.get("busy_us", 0.0)) / 1e6
        else:  # mediumd's fraction is over its uptime
            busy = (r.get("busy_fraction", 0.0) * float(after.get("uptime_s", 0.0))
                    - o.get("busy_fraction", 0.0) * float(before.get("uptime_s", 0.0)))
        d["busy_us"] = busy * 1e6
        d["busy_fraction"] = min(1.0, max(0.0, busy / dt)) if dt > 0 else 0.0
        radios.append(d)
    old_l = {(l["tx"], l["rx"]): l for l in before.get("links", [])}
    links = []
    for l in after.get("links", []):
        o = old_l.get((l["tx"], l["rx"]), {})
        links.append(dict(l, **{k: l.get(k, 0) - o.get(k, 0) for k in _LINK_COUNTERS}))
    frames = {k: v - before.get("frames", {}).get(k, 0)
              for k, v in after.get("frames", {}).items()}
    return {"interval_s": dt, "frames": frames, "radios": radios, "links": links,
            "lag_us": after.get("lag_us"), "status_lag_us": after.get("status_lag_us")}


def link_stats(stats: Mapping[str, Any], tx: str, rx: str) -> Dict[str, Any]:
    """Counters of the directed link tx -> rx (node names or MACs); zeros if it carried nothing."""
    for link in stats.get("links", []):
        if tx in (link.get("tx"), link.get("tx_node")) and rx in (link.get("rx"), link.get("rx_node")):
            return dict(link)
    return {"tx": tx, "rx": rx, "attempts": 0, "successes": 0, "collisions": 0,
            "retry_drops": 0, "airtime_us": 0, "delivered": 0}


def radio_stats(stats: Mapping[str, Any], node: str) -> Dict[str, Any]:
    for radio in stats.get("radios", []):
        if node in (radio.get("mac"), radio.get("node")):
            return dict(radio)
    raise HarnessError(f"no radio {node!r} in the medium stats: "
                       + ", ".join(str(r.get("node") or r.get("mac")) for r in stats.get("radios", [])))


__all__ = ["MediumSpec", "LinkOverride", "Wall", "MediumHandle", "spec_of", "config_text",
           "start_for", "stop_for", "stats_for", "handle_for", "launch", "summary",
           "link_stats", "radio_stats", "stats_delta", "mediumd_binary", "radio_basic_rates", "PROPAGATION_MODELS",
           "FADING_MODELS"]

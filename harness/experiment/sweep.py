"""Sweep expansion: the list of runs an experiment asks for, in a fixed order with stable ids.

A run id is a hash of what the run *is* (resolved parameters, repetition, experiment seed), not
of where it sits in the list, so extending a sweep keeps the ids of the runs already done and
resume can trust a stored record to mean the same run.
"""
from __future__ import annotations

import copy
import hashlib
import itertools
import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from harness.errors import HarnessError
from harness.experiment import param_paths, realise
from harness.experiment.registry import Registry, SchemaError, load_callable
from harness.experiment.schema import ENDPOINT_ALIASES, Experiment, located, resolve, resolve_endpoint
from harness.medium.spec import LINK_PHYSICS_KEYS
from harness.net.topo import Topology

#: ``--quick``: one repetition, timed flows cut to this many seconds, first and last sweep values.
QUICK_DURATION = 5.0
#: ``--quick``: bulk transfers (``bytes``) cut to this many bytes (their duration is a limit).
QUICK_BYTES = 2_000_000
RUN_ID_LENGTH = 12


@dataclass(frozen=True)
class Run:
    """One execution: resolved parameters, the sweep point that produced them, and its seed."""

    index: int
    run_id: str
    repetition: int
    seed: int
    point: Dict[str, Any]
    params: Dict[str, Any]
    #: Per mapping-valued sweep key, the items every value of that key shares (left out of labels).
    shared: Dict[str, Tuple[Tuple[str, Any], ...]] = field(default_factory=dict, compare=False)
    #: The folder for the run's own files (the medium's capture), set by the runner for a run
    #: that writes some: ``files/<run_id>`` beside the store's records.
    files: Optional[str] = field(default=None, compare=False)

    def label(self) -> str:
        """Short text for progress lines: ``hops=3 cwnd_clamp=2 rep=1``."""
        parts = [f"{k.split('.')[-1]}={_short(v, self.shared.get(k, ()))}"
                 for k, v in self.point.items()]
        parts.append(f"rep={self.repetition}")
        return " ".join(parts)

    def expected_seconds(self) -> float:
        """Traffic time of the run, a lower bound for ETA before any run has finished."""
        return max((f["start"] + f["duration"] for f in self.params["flows"]), default=0.0)


def _short(value: Any, shared: Sequence[Tuple[str, Any]] = ()) -> str:
    if isinstance(value, dict):
        return mapping_text(value, shared)
    flows = flows_text(value)
    if flows:
        return flows
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def items_of(value: Any) -> Tuple[Tuple[str, Any], ...]:
    """A mapping (or the sorted item tuple stats uses as its hashable form) as sorted items."""
    if isinstance(value, dict):
        return tuple(sorted(value.items()))
    if isinstance(value, tuple) and all(isinstance(i, tuple) and len(i) == 2 for i in value):
        return tuple(sorted(value))
    return ()


def shared_items(values: Sequence[Any]) -> Tuple[Tuple[str, Any], ...]:
    """Items every mapping in ``values`` has alike: a sweep over whole policies
    (``policy: [{<<: *base, cwnd_clamp: 2}, {<<: *base, adaptive_window: true}]``) is labelled
    by what differs, not by the base it repeats."""
    sets = [set(map(repr, items_of(v))) for v in values if items_of(v)]
    if len(sets) < 2:
        return ()
    common = set.intersection(*sets)
    return tuple(i for i in items_of(values[0]) if repr(i) in common)


def mapping_text(value: Any, shared: Sequence[Tuple[str, Any]] = ()) -> str:
    """``{cwnd_clamp: 2}`` as ``cwnd_clamp=2``; items in ``shared`` left out."""
    skip = set(map(repr, shared))
    parts = [f"{k}={_short(v)}" for k, v in items_of(value) if repr((k, v)) not in skip]
    return ",".join(parts) or "{}"


def flows_text(value: Any) -> str:
    """A swept list of flows as ``server>client 8M + client>server 8M`` (a count as ``x2``, a
    UDP flow's offered load as ``udp 500Kb/s``),
    "" when ``value`` is not one. Also takes the item tuples reports group by."""
    if not isinstance(value, (list, tuple)) or not value:
        return ""
    flows = [dict(items_of(f)) if not isinstance(f, dict) else f for f in value]
    if not all(isinstance(f, dict) and "src" in f and "dst" in f for f in flows):
        return ""
    parts = []
    for f in flows:
        text = f"{f['src']}>{f['dst']}"
        if int(f.get("count") or 1) > 1:
            text += f" x{int(f['count'])}"
        if f.get("protocol") == "udp":
            text += " udp"
        if f.get("bitrate"):
            text += f" {_size(f['bitrate'])}b/s"
        if f.get("bytes"):
            text += f" {_size(f['bytes'])}"
        elif f.get("duration"):
            text += f" {float(f['duration']):g}s"
        parts.append(text)
    return " + ".join(parts)


def _size(nbytes: Any) -> str:
    n = float(nbytes)
    for unit, scale in (("G", 1e9), ("M", 1e6), ("K", 1e3)):
        if n >= scale and (n / scale).is_integer():
            return f"{n / scale:g}{unit}"
    return f"{n:g}B"


def canonical_json(data: Any) -> str:
    """The one serialisation hashes are taken of (sorted keys, no spaces)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=False)


def run_id_for(params: Dict[str, Any], repetition: int, experiment_seed: int) -> str:
    """Stable id: the same parameters, repetition and seed give the same id on any machine."""
    key = canonical_json({"params": params, "repetition": repetition, "seed": experiment_seed})
    return hashlib.sha256(key.encode()).hexdigest()[:RUN_ID_LENGTH]


def seed_for(params: Dict[str, Any], repetition: int, experiment_seed: int) -> int:
    """Per-run seed (32 bit) derived from the experiment seed and what the run is."""
    key = canonical_json({"params": params, "repetition": repetition})
    digest = hashlib.sha256(f"{experiment_seed}:{key}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def points(sweep: Dict[str, List[Any]]) -> List[Dict[str, Any]]:
    """Cartesian product of the sweep lists; the first key varies slowest."""
    keys = list(sweep)
    return [dict(zip(keys, combo)) for combo in itertools.product(*(sweep[k] for k in keys))]


def expand(exp: Experiment, quick: bool = False) -> List[Run]:
    """Every run of ``exp``: repetition-major (one full pass of the sweep, then the next).
    Flow endpoints are checked first, at every point of the full sweep (``check_endpoints``)."""
    full = [(point, _resolve_point(exp, point)) for point in points(exp.sweep)]
    check_endpoints(exp, full)
    sweep = exp.sweep
    repetitions = exp.repetitions
    resolved = full
    if quick:  # a subset of the full sweep's points, already resolved
        sweep = {k: _first_last(v) for k, v in sweep.items()}
        repetitions = 1
        by_point = {canonical_json(point): params for point, params in full}
        resolved = [(point, copy.deepcopy(by_point[canonical_json(point)]))
                    for point in points(sweep)]
        for _point, params in resolved:
            _cap_durations(params)
    shared = {k: shared_items(v) for k, v in sweep.items() if shared_items(v)}
    runs: List[Run] = []
    seen: Dict[str, Dict[str, Any]] = {}
    for rep in range(repetitions):
        for point, params in resolved:
            run_id = run_id_for(params, rep, exp.seed)
            if run_id in seen:
                if quick:
                    continue
                raise HarnessError(f"{exp.name}: sweep points {seen[run_id]} and {point} give "
                                   "identical runs; remove one of the values")
            seen[run_id] = point
            runs.append(Run(index=len(runs), run_id=run_id, repetition=rep,
                            seed=seed_for(params, rep, exp.seed), point=dict(point),
                            params=params, shared=shared))
    return runs


def within_repetitions(runs: List[Run], first: Optional[int]) -> List[Run]:
    """The runs of repetitions 0..first-1 (all of them when ``first`` is None): a first pass
    over every point (``harness run --repetitions``)."""
    return runs if first is None else [run for run in runs if run.repetition < first]


def _resolve_point(exp: Experiment, point: Dict[str, Any]) -> Dict[str, Any]:
    """Run parameters at one sweep point (an error names the point: only the product of two
    sweep lists may reveal it)."""
    raw = copy.deepcopy(exp.raw)
    for key, value in point.items():
        param_paths.set_value(raw, key, copy.deepcopy(value))
    try:
        return resolve(raw, exp.registry)
    except HarnessError as err:
        where = ", ".join(f"{k}={_short(v)}" for k, v in point.items())
        raise HarnessError(f"{exp.name}: sweep point {where}: {err}") from None


def _first_last(values: List[Any]) -> List[Any]:
    return values if len(values) <= 2 else [values[0], values[-1]]


def _cap_durations(params: Dict[str, Any]) -> None:
    for flow in params["flows"]:
        if flow.get("bytes"):  # a bulk transfer: smaller, within its own time limit
            flow["bytes"] = min(flow["bytes"], QUICK_BYTES)
        else:
            flow["duration"] = min(flow["duration"], QUICK_DURATION)


def check_endpoints(exp: Experiment,
                    resolved: Optional[List[Tuple[Dict[str, Any], Dict[str, Any]]]] = None) -> None:
    """Every flow's ``src`` and ``dst`` name a node of the topology, at every sweep point.

    Node names come from the builder (``sta1 .. sta{hops+1}`` for a chain), so a flow can only be
    checked against the ``Topology`` description each point builds; that is pure data (no root,
    no kernel), so it costs milliseconds and runs before anything starts, ``--dry-run``
    included, instead of failing after the VM has booted. Raises ``HarnessError`` naming the
    file, line, flow key, the bad name and the nodes allowed there. ``resolved``: the full
    sweep's (point, parameters) when the caller has them already (``expand``)."""
    if resolved is None:
        resolved = [(point, _resolve_point(exp, point)) for point in points(exp.sweep)]
    try:
        _check_endpoints(exp, resolved)
    except SchemaError as err:
        raise located(err, exp.text, str(exp.source) if exp.source else "<experiment>") from None


def _check_endpoints(exp: Experiment, resolved: List[Tuple[Dict[str, Any], Dict[str, Any]]]) -> None:
    topo_of: Dict[str, Topology] = {}
    for point, params in resolved:
        at_point = _point_text(point, exp.sweep)
        topo_key = canonical_json(params["topology"])
        if topo_key not in topo_of:
            topo_of[topo_key] = _describe(params["topology"], exp.registry, at_point)
        topo = topo_of[topo_key]
        _check_medium_keys(params, topo, at_point)
        nodes = topo.node_names()
        for i, flow in enumerate(params["flows"]):
            ends = {}
            for end in ("src", "dst"):
                where = f"flows[{i}].{end}"
                name = flow[end]
                if name not in ENDPOINT_ALIASES and topo.node_for(name) is None:
                    also = list(ENDPOINT_ALIASES) + list(topo.aliases)
                    raise SchemaError(where, f"no node {name!r} in the topology{at_point}; "
                                             f"allowed: {', '.join(nodes + also)}")
                ends[end] = resolve_endpoint(name, nodes, where, topo.aliases)
            if ends["src"] == ends["dst"]:
                raise SchemaError(f"flows[{i}].dst", f"{flow['dst']!r} is the same node as src "
                                                     f"{flow['src']!r} ({ends['src']}){at_point}")
            try:
                topo.check_flow(ends["src"], ends["dst"])
            except HarnessError as err:
                raise SchemaError(f"flows[{i}].dst", f"{flow['src']!r} -> {flow['dst']!r}"
                                                     f"{at_point}: {err}") from None


def _check_medium_keys(params: Dict[str, Any], topo: Topology, at_point: str) -> None:
    """A topology that carries its place's link physics (``Topology.medium``: a campus file's
    walls and propagation, from which its routes were computed) refuses medium keys that would
    change that physics under its routes."""
    if not topo.medium:
        return
    for key in LINK_PHYSICS_KEYS:
        if (params.get("medium") or {}).get(key) is not None:
            raise SchemaError(f"medium.{key}", f"not allowed with topology.builder "
                                               f"{params['topology']['builder']!r}{at_point}: "
                                               "its place sets the link physics its routes are "
                                               "computed from; change them in its geometry "
                                               "file or by the builder's own keys (e.g. "
                                               "topology.fading_sigma, topology.rate_loss)")


def _describe(topology: Dict[str, Any], registry: Registry, at_point: str) -> Topology:
    """The ``Topology`` the builder gives ``topology`` (its description only, nothing started)."""
    name = topology["builder"]
    build = load_callable(registry.builders[name].build, f"builder {name}")
    try:
        topo = realise.routed(build(**realise.builder_arguments(topology)), topology)
    except SchemaError:
        raise
    except HarnessError as err:
        raise SchemaError("topology", f"builder {name!r} refused it{at_point}: "
                                      f"{err}") from None
    return topo


def _point_text(point: Dict[str, Any], sweep: Dict[str, List[Any]]) -> str:
    """`` at sweep point topology.hops=2``; a mapping or list value by its place in the list."""
    if not point:
        return ""
    parts = []
    for key, value in point.items():
        if isinstance(value, (dict, list)):
            index = next(i for i, v in enumerate(sweep[key]) if v == value)
            parts.append(f"sweep.{key}[{index}]")
        else:
            parts.append(f"{key}={_short(value)}")
    return " at sweep point " + ", ".join(parts)

"""What ``harness cli`` opens a prompt on: an experiment file, or a builder with options.

Both go through the experiment schema, so a key, a value or a builder the prompt refuses is
refused with the same message ``harness run`` gives, before anything starts:

    harness cli experiments/quick_chain.yaml topology.hops=2   # one point of the file
    harness cli chain hops=4 rate=11 medium.cs_range=300         # a builder and its options

An option ``KEY=VALUE`` is a parameter path (``topology.hops``, ``policy.cwnd_clamp``,
``medium.cs_range``, ``flows[0].congestion``); for a builder a bare key is the builder's own
(``hops=4`` is ``topology.hops=4``). Values are YAML (``true``, ``null``, ``2``, ``[1, 2]``).
A file with a sweep opens at the first value of every swept key unless an option picks another.
(A Python script is run by the front end itself: it builds its own network.)
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple, Union

import yaml

from harness.errors import HarnessError
from harness.experiment import param_paths, schema
from harness.experiment.execute import build_topology, make_policies, medium_choice
from harness.experiment.realise import flow_instances
from harness.experiment.registry import default_registry
from harness.experiment.sweep import seed_for

if TYPE_CHECKING:
    from harness.net import Topology
    from policies import Policy

#: The builder ``harness cli`` opens without an argument.
DEFAULT_BUILDER = "chain"
EXPERIMENT_SUFFIXES = (".yaml", ".yml")
SCRIPT_SUFFIXES = (".py",)


@dataclass
class Setup:
    """A network to start: its description, medium, policies and the file's flows."""

    name: str
    topo: Topology
    medium: Union[str, Dict[str, Any]]          # as Network(medium=...) takes it
    params: Dict[str, Any]                      # resolved run parameters
    policies: List[Policy] = field(default_factory=list)
    flows: List[Dict[str, Any]] = field(default_factory=list)   # realise.flow_instances
    seed: int = 1
    source: str = ""


def parse_assignments(options: Sequence[str], *, bare_prefix: str = "") -> List[Tuple[str, Any]]:
    """``["hops=4", "medium.cs_range=300"]`` -> ``[("topology.hops", 4), ...]`` (bare keys get
    ``bare_prefix``); a malformed option names itself and the form expected."""
    out = []
    for text in options:
        key, sep, value = text.partition("=")
        key = key.strip()
        if not sep or not key:
            raise HarnessError(f"option {text!r} is not KEY=VALUE (e.g. hops=4, "
                               "topology.rts=true, medium.cs_range=300)")
        if "." not in key and "[" not in key and bare_prefix:
            key = f"{bare_prefix}.{key}"
        try:
            param_paths.parse(key)
            parsed = yaml.safe_load(value) if value.strip() else None
        except yaml.YAMLError:
            raise HarnessError(f"option {text!r}: the value is not valid YAML") from None
        root = key.split(".")[0].split("[")[0]
        if root not in schema.SWEEPABLE:
            raise HarnessError(f"option {text!r}: {root!r} cannot be set here; allowed roots: "
                               + ", ".join(schema.SWEEPABLE))
        out.append((key, parsed))
    return out


def _setup(name: str, raw: Dict[str, Any], *, seed: int, source: str) -> Setup:
    registry = default_registry()
    try:
        params = schema.resolve(raw, registry)
    except schema.SchemaError as err:
        raise HarnessError(f"{source}: {err}") from None
    topo = build_topology(params, registry)
    policies = make_policies(params, registry)
    for policy in policies:
        policy.prepare(topo)
    medium, _record = medium_choice(params)
    flows = flow_instances(params, topo.node_names())
    return Setup(name=name, topo=topo, medium=medium, params=params, policies=policies,
                 flows=flows, seed=seed_for(params, 0, seed), source=source)


def from_experiment(path: Union[str, Path], options: Sequence[str] = ()) -> Setup:
    """One point of an experiment file: the first value of each swept key unless an option
    names another (any parameter path may be set)."""
    exp = schema.load(path)
    raw = copy.deepcopy(exp.raw)
    firsts = {key: values[0] for key, values in exp.sweep.items()}
    for key, value in {**firsts, **dict(parse_assignments(options))}.items():
        param_paths.set_value(raw, key, copy.deepcopy(value))
    return _setup(exp.name, raw, seed=exp.seed, source=str(path))


def from_builder(name: str, options: Sequence[str] = ()) -> Setup:
    """A builder with options (``chain hops=4 rts=true``), one flow first -> last."""
    registry = default_registry()
    if name not in registry.builders:
        raise HarnessError(f"{name!r} is neither an experiment file ({', '.join(EXPERIMENT_SUFFIXES)}), "
                           f"a Python script (.py) nor a builder; builders: "
                           + ", ".join(sorted(registry.builders)))
    raw: Dict[str, Any] = {"topology": {"builder": name},
                           "flows": [{"src": "first", "dst": "last", "duration": 10}]}
    for key, value in parse_assignments(options, bare_prefix="topology"):
        param_paths.set_value(raw, key, value)
    return _setup(name, raw, seed=1, source=f"builder {name}")


def kind_of(target: Optional[str]) -> str:
    """``experiment``, ``script`` or ``builder``: what a ``harness cli`` argument names."""
    if target is None:
        return "builder"
    suffix = Path(target).suffix.lower()
    if suffix in EXPERIMENT_SUFFIXES or suffix in SCRIPT_SUFFIXES:
        if not Path(target).is_file():
            raise HarnessError(f"{target}: no such file")
        return "experiment" if suffix in EXPERIMENT_SUFFIXES else "script"
    return "builder"


def load(target: Optional[str], options: Sequence[str] = ()) -> Setup:
    """The setup an experiment file or a builder name (default: a chain) describes."""
    kind = kind_of(target)
    if kind == "script":
        raise HarnessError(f"{target} is a Python script: run it with 'harness cli {target}'")
    if kind == "experiment":
        assert target is not None
        return from_experiment(target, options)
    return from_builder(target or DEFAULT_BUILDER, options)

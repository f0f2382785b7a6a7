"""Experiment files: load the YAML, check every key, resolve defaults.

A mistake in a sweep should cost seconds, not the hour the sweep takes, so every key is checked
before anything runs, and an error names the file, the line, the key path and what is allowed.
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

import yaml

from harness.errors import HarnessError
from harness.experiment import param_paths
from harness.experiment.registry import ParamSpec, Registry, SchemaError, default_registry
from harness.kernel.tcp import CONGESTION_MODULES
from harness.net.topo import ROUTING_PARAM

TOP_KEYS = ("name", "description", "topology", "policy", "medium", "flows", "sweep",
            "repetitions", "seed", "output", "duration")
#: Roots a sweep key may start with (the others describe the sweep itself).
SWEEPABLE = ("topology", "policy", "medium", "flows", "duration")
DEFAULT_DURATION = 20.0
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")

#: Seconds of traffic: a flow's ``duration``, and the file's default for its flows.
DURATION = ParamSpec("duration", "float", "seconds of traffic", min=0.1)
FLOW_SPECS = (
    ParamSpec("src", "str", "sending node (a node name, or first/last)", required=True),
    ParamSpec("dst", "str", "receiving node (a node name, or first/last)", required=True),
    ParamSpec("congestion", "choice", "congestion module", choices=CONGESTION_MODULES),
    DURATION,
    ParamSpec("direction", "choice", "forward: src sends; reverse: dst sends (iperf3 -R)",
              default="forward", choices=("forward", "reverse")),
    ParamSpec("protocol", "choice", "transport", default="tcp", choices=("tcp", "udp")),
    ParamSpec("bitrate", "float", "target bits/s (required for udp)", min=1.0, nullable=True,
              null_label="unlimited"),
    ParamSpec("start", "float", "seconds after the first flow starts", default=0.0, min=0.0),
    ParamSpec("count", "int", "identical parallel flows", default=1, min=1, max=64),
    ParamSpec("bytes", "int", "bytes to transfer (a bulk transfer: the flow ends when they are "
              "delivered; duration then only bounds it)", min=1, max=2**40, nullable=True,
              null_label="timed by duration"),
)
#: Flow keys left out of the resolved parameters when null, so that files written before
#: the key existed keep their run ids.
OPTIONAL_FLOW_KEYS = ("bytes",)


@dataclass
class Experiment:
    """A validated experiment: the base parameters, the sweep, and how often to repeat."""

    name: str
    raw: Dict[str, Any]
    base: Dict[str, Any]
    sweep: Dict[str, List[Any]]
    repetitions: int
    seed: int
    output: str
    description: str = ""
    source: Optional[Path] = None
    text: str = ""
    registry: Registry = field(default_factory=default_registry, repr=False)


def load(path: Union[str, Path], registry: Optional[Registry] = None) -> Experiment:
    """Read and validate an experiment file; ``HarnessError`` names file, line and key."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise HarnessError(f"cannot read experiment file {path}: {err.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise HarnessError(f"{path}: not an experiment file: byte {err.start} is not UTF-8 "
                           "text (an experiment is a YAML text file)") from None
    if "\x00" in text:
        raise HarnessError(f"{path}: not an experiment file: it holds NUL bytes (binary "
                           "data; an experiment is a YAML text file)")
    return loads(text, source=path, registry=registry)


def loads(text: str, source: Optional[Path] = None,
          registry: Optional[Registry] = None) -> Experiment:
    """Validate experiment YAML given as text (``source`` only names it in errors)."""
    where = str(source) if source else "<experiment>"
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        problem = getattr(err, "problem", None) or str(err)
        raise HarnessError(f"{where}{line}: not valid YAML: {problem}") from None
    duplicate = _first_duplicate_key(text)
    if duplicate:
        dup_path, dup_line, first = duplicate
        raise HarnessError(f"{where}:{dup_line}: {dup_path}: appears twice (first on line {first}); "
                           "YAML would silently keep only the last one")
    try:
        exp = from_dict(data, registry=registry)
    except SchemaError as err:
        raise located(err, text, where) from None
    exp.source = source
    exp.text = text
    return exp


def located(err: SchemaError, text: str, where: str) -> HarnessError:
    """``err`` as the one-line message users see: ``FILE:LINE: key.path: problem``."""
    line = _line_for(err.path, _line_map(text)) if err.path else None
    loc = f"{where}:{line}" if line else where
    return HarnessError(f"{loc}: {err.path + ': ' if err.path else ''}{err.problem}",
                        hint=err.hint)


def from_dict(data: Any, registry: Optional[Registry] = None) -> Experiment:
    """Validate an already-parsed experiment mapping (raises ``SchemaError``)."""
    registry = registry or default_registry()
    if not isinstance(data, dict):
        raise SchemaError("", "an experiment file must be a mapping with keys "
                              + ", ".join(TOP_KEYS))
    _no_unknown(data, TOP_KEYS, "")
    for key in ("name", "topology", "flows"):
        if key not in data:
            raise SchemaError(key, "missing (required)")
    name = data["name"]
    if not isinstance(name, str) or not _NAME.match(name):
        raise SchemaError("name", f"{name!r} is not allowed; expected letters, digits, _ . - "
                                  "(it names the output directory)")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise SchemaError("description", "expected a string")
    repetitions = _scalar(ParamSpec("repetitions", "int", default=1, min=1, max=10000),
                          data, "repetitions")
    seed = _scalar(ParamSpec("seed", "int", default=1, min=0, max=2**63 - 1), data, "seed")
    output = data.get("output", f"results/{name}")
    if not isinstance(output, str) or not output:
        raise SchemaError("output", "expected a directory path (string)")
    raw = {k: copy.deepcopy(v) for k, v in data.items() if k in SWEEPABLE}
    base = resolve(raw, registry)
    sweep = _check_sweep(data.get("sweep"), raw, registry)
    return Experiment(name=name, raw=raw, base=base, sweep=sweep, repetitions=repetitions,
                      seed=seed, output=output, description=description, registry=registry)


def _scalar(spec: ParamSpec, data: Dict[str, Any], key: str) -> Any:
    if key not in data:
        return spec.default
    return spec.check(data[key], key)


def _no_unknown(data: Dict[str, Any], allowed: Tuple[str, ...], at: str) -> None:
    for key in data:
        if key not in allowed:
            raise SchemaError(param_paths.join(at, str(key)),
                              f"unknown key; allowed here: {', '.join(allowed)}")


def resolve(raw: Dict[str, Any], registry: Registry) -> Dict[str, Any]:
    """Full run parameters from the sweepable part of a file: every default filled in."""
    duration = _scalar(DURATION.variant(default=DEFAULT_DURATION), raw, "duration")
    topology = _resolve_topology(raw.get("topology"), registry)
    policy = _resolve_policy(raw.get("policy"), registry)
    medium = _resolve_params(raw.get("medium"), tuple(registry.medium.values()), "medium")
    default_cc = policy.get("congestion", "cubic")
    flows = _resolve_flows(raw.get("flows"), duration, default_cc)
    # The top-level duration is only the flows' default, so it is not a parameter of its own.
    params = {"topology": topology, "policy": policy, "medium": medium, "flows": flows}
    for check in registry.checks:
        check(params)
    return params


def _resolve_params(data: Any, specs: Tuple[ParamSpec, ...], at: str) -> Dict[str, Any]:
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SchemaError(at, f"expected a mapping with keys {', '.join(s.name for s in specs)}")
    _no_unknown(data, tuple(s.name for s in specs), at)
    out = {}
    for spec in specs:
        where = param_paths.join(at, spec.name)
        if spec.name in data:
            value = spec.check(data[spec.name], where)
        elif spec.required:
            raise SchemaError(where, f"missing (required); expected {spec.allowed()}")
        else:
            value = spec.default
        if not (spec.omit_default and value == spec.default):
            out[spec.name] = value
    return out


def _resolve_topology(data: Any, registry: Registry) -> Dict[str, Any]:
    names = ", ".join(registry.builders)
    if not isinstance(data, dict):
        raise SchemaError("topology", f"expected a mapping with 'builder' (one of {names}) "
                                      "and its parameters")
    if "builder" not in data:
        raise SchemaError("topology.builder", f"missing (required); one of {names}")
    name = data["builder"]
    if name not in registry.builders:
        raise SchemaError("topology.builder", f"unknown builder {name!r}; allowed: {names}")
    builder = registry.builders[name]
    params = {k: v for k, v in data.items() if k != "builder"}
    try:
        # the network's routing, unless the builder has a routing of its own (the campus)
        specs = builder.params + ((ROUTING_PARAM,) if all(
            p.name != ROUTING_PARAM.name for p in builder.params) else ())
        resolved = _resolve_params(params, specs, "topology")
    except SchemaError as err:
        if "unknown key" in err.problem:
            allowed = ", ".join(("builder",) + tuple(s.name for s in specs))
            raise SchemaError(err.path, f"unknown parameter of builder {name!r}; "
                                        f"allowed: {allowed}") from None
        raise
    return {"builder": name, **resolved}


def _resolve_policy(data: Any, registry: Registry) -> Dict[str, Any]:
    names = ", ".join(registry.policies)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SchemaError("policy", f"expected a mapping of policy names to values; "
                                    f"policies: {names}")
    out: Dict[str, Any] = {}
    for key, value in data.items():
        where = param_paths.join("policy", str(key))
        if key not in registry.policies:
            raise SchemaError(where, f"unknown policy; allowed: {names}")
        policy = registry.policies[key]
        if policy.scalar:
            out[key] = policy.params[0].check(value, where)
        else:
            out[key] = _resolve_params(value, policy.params, where)
    return out


def _resolve_flows(data: Any, duration: float, default_cc: str) -> List[Dict[str, Any]]:
    if not isinstance(data, list) or not data:
        raise SchemaError("flows", "expected a non-empty list of flows "
                                   "(each a mapping with src, dst, ...)")
    flows: List[Dict[str, Any]] = []
    for i, flow in enumerate(data):
        at = param_paths.join("flows", i)
        flow = dict(flow) if isinstance(flow, dict) else flow
        if isinstance(flow, dict):
            for end in ("src", "dst"):  # a router number (``src: 5``) names a node too
                if isinstance(flow.get(end), int) and not isinstance(flow[end], bool):
                    flow[end] = str(flow[end])
        if isinstance(flow, dict) and "bitrate" in flow:
            flow["bitrate"] = parse_bitrate(flow["bitrate"], param_paths.join(at, "bitrate"))
        if isinstance(flow, dict) and "bytes" in flow:
            flow["bytes"] = parse_size(flow["bytes"], param_paths.join(at, "bytes"))
        out = _resolve_params(flow, FLOW_SPECS, at)
        for key in OPTIONAL_FLOW_KEYS:
            if out.get(key) is None:
                del out[key]
        if out["congestion"] is None:
            out["congestion"] = default_cc
        if out["duration"] is None:
            out["duration"] = duration
        if out["src"] == out["dst"]:
            raise SchemaError(param_paths.join(at, "dst"), f"same node as src ({out['src']!r})")
        if out.get("bytes") and (out["protocol"] != "tcp" or out["direction"] != "forward"):
            raise SchemaError(param_paths.join(at, "bytes"), "a bulk transfer is TCP from src to dst: "
                              "drop protocol/direction (swap src and dst instead of reverse)")
        if out["protocol"] == "udp" and out["bitrate"] is None:
            raise SchemaError(param_paths.join(at, "bitrate"),
                              "missing; required when protocol is udp (e.g. 2M)")
        if out in flows:
            first = flows.index(out)
            raise SchemaError(at, f"identical to flows[{first}]; for identical parallel flows "
                                  f"give flows[{first}] count: {out['count'] + 1} instead")
        flows.append(out)
    return flows


_BITRATE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([kKmMgG]?)(?:bit/s|bps)?\s*$")


def parse_bitrate(value: Any, where: str) -> Any:
    """``2M`` / ``500K`` / ``1.5G`` / a number of bits per second -> bits per second."""
    if value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)):
        return value
    if isinstance(value, str):
        m = _BITRATE.match(value)
        if m:
            scale = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[m.group(2).lower()]
            return float(m.group(1)) * scale
    raise SchemaError(where, f"{value!r} is not a bitrate; expected bits/s such as 2000000, "
                             "500K, 2M or 1.5G")


_SIZE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([kKmMgG]?)B?\s*$")


def parse_size(value: Any, where: str) -> Any:
    """``50M`` / ``800MB`` / ``2K`` / a number of bytes -> bytes (decimal prefixes)."""
    if value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)):
        return value
    if isinstance(value, str):
        m = _SIZE.match(value)
        if m:
            scale = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9}[m.group(2).lower()]
            number = float(m.group(1)) * scale
            if number.is_integer():
                return int(number)
    raise SchemaError(where, f"{value!r} is not a size; expected bytes such as 50000000, "
                             "50M or 800MB (decimal: M = 10^6)")


def _check_sweep(data: Any, raw: Dict[str, Any], registry: Registry) -> Dict[str, List[Any]]:
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SchemaError("sweep", "expected a mapping of parameter paths to lists of values, "
                                   "e.g. topology.hops: [1, 2, 3]")
    sweep: Dict[str, List[Any]] = {}
    for key, values in data.items():
        at = f"sweep.{key}"
        if not isinstance(key, str):
            raise SchemaError(at, "sweep keys are parameter paths such as topology.hops")
        try:
            root = param_paths.parse(key)[0][0]
        except HarnessError as err:
            raise SchemaError(at, str(err)) from None
        if root not in SWEEPABLE:
            raise SchemaError(at, f"cannot sweep {root!r}; sweep keys start with "
                                  + ", ".join(SWEEPABLE))
        if not isinstance(values, list) or not values:
            raise SchemaError(at, "expected a non-empty list of values")
        canonical: List[Any] = []
        for i, value in enumerate(values):
            trial = copy.deepcopy(raw)
            try:
                param_paths.set_value(trial, key, copy.deepcopy(value))
                resolved = resolve(trial, registry)
            except SchemaError as err:
                raise SchemaError(f"{at}[{i}]", f"value {value!r} gives {err.path}: {err.problem}"
                                  if err.path else err.problem) from None
            except HarnessError as err:
                raise SchemaError(f"{at}[{i}]", str(err)) from None
            value_now = param_paths.get(resolved, key, value)
            if any(_same_value(value_now, c) for c in canonical):
                raise SchemaError(f"{at}[{i}]", f"duplicate value {value!r}")
            canonical.append(value_now)
        sweep[key] = canonical
    return sweep


def _same_value(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _line_for(path: str, lines: Dict[str, int]) -> Optional[int]:
    """Line of ``path`` or of its nearest enclosing key (a missing key points at its parent)."""
    while path:
        if path in lines:
            return lines[path]
        cut = max(path.rfind("."), path.rfind("["))
        path = path[:cut] if cut > 0 else ""
    return None


def _line_map(text: str) -> Dict[str, int]:
    """Key path -> 1-based line, from the YAML node tree (so errors can point at a line)."""
    return _walk_yaml(text)[0]


def _first_duplicate_key(text: str) -> Optional[Tuple[str, int, int]]:
    """(path, line, first line) of the first key repeated within one mapping, if any."""
    duplicates = _walk_yaml(text)[1]
    return duplicates[0] if duplicates else None


def _walk_yaml(text: str) -> Tuple[Dict[str, int], List[Tuple[str, int, int]]]:
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return {}, []
    lines: Dict[str, int] = {}
    duplicates: List[Tuple[str, int, int]] = []

    def walk(node: Any, at: str, in_sweep: bool) -> None:
        if isinstance(node, yaml.MappingNode):
            seen: Dict[str, int] = {}
            for key_node, value_node in node.value:
                key = str(key_node.value)
                child = f"sweep.{key}" if in_sweep else param_paths.join(at, key)
                line = key_node.start_mark.line + 1
                if key in seen:
                    duplicates.append((child, line, seen[key]))
                seen.setdefault(key, line)
                lines.setdefault(child, line)
                walk(value_node, child, at == "" and key == "sweep")
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                child = f"{at}[{i}]"
                lines.setdefault(child, item.start_mark.line + 1)
                walk(item, child, False)

    walk(root, "", False)
    return lines, duplicates


ENDPOINT_ALIASES = ("first", "last")


def resolve_endpoint(name: str, nodes: List[str], where: str = "flow",
                     aliases: Optional[Dict[str, str]] = None) -> str:
    """``first``/``last`` -> the topology's first/last node (ends of a chain whose length is
    swept), unless the topology names its ends as aliases (a campus's pinned path); an alias
    (a campus router's number) -> its node; other names must exist. Used by the executor once
    the topology is built."""
    if not nodes:
        raise HarnessError(f"{where}: the topology has no nodes")
    if aliases and name in aliases:
        return aliases[name]
    if name == "first":
        return nodes[0]
    if name == "last":
        return nodes[-1]
    if name not in nodes:
        also = f", or {', '.join(aliases)}" if aliases else ""
        raise HarnessError(f"{where}: no node {name!r}; nodes: {', '.join(nodes)} "
                           f"(or first, last{also})")
    return name

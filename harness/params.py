"""Declarations of what an experiment file may name: parameters, builders, policies.

A builder (``topologies/``) or policy declares its parameters as ``ParamSpec`` rows next to
its code; the experiment layer validates YAML against them. The types live here, beside
``harness.errors`` at the bottom of the layer map, so that a builder can declare itself
without importing the experiment layer that collects it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Callable, Dict, Optional, Tuple

from harness.errors import HarnessError

# intmap: name -> int; floatmap: name -> number (a numeric name is written as %g: 11.0 -> "11");
# maplist: a list of mappings whose keys are ``choices`` (the owner checks their values);
# listmap: name -> a non-empty list of numbers, within [min, max] when given;
# mapping: a mapping whose rules live with its owner, who passes them as ``check_with``
TYPES = ("int", "float", "bool", "str", "choice", "intmap", "floatmap", "maplist", "listmap",
         "mapping")


class SchemaError(HarnessError):
    """Bad value at a key path; the schema adds the file name and line when it reports it."""

    def __init__(self, path: str, problem: str, *, hint: str = ""):
        super().__init__(f"{path}: {problem}" if path else problem, hint=hint)
        self.path = path
        self.problem = problem


def _fmt(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True)
class ParamSpec:
    """One parameter: its type, allowed values or range, default, and whether null means something."""

    name: str
    type: str
    doc: str = ""
    default: Any = None
    choices: Tuple[Any, ...] = ()
    min: Optional[float] = None
    max: Optional[float] = None
    #: ``min`` itself is not allowed (a distance > 0); numbers only.
    min_exclusive: bool = False
    nullable: bool = False
    null_label: str = "default"
    required: bool = False
    #: Added after records were stored: left out of a run's parameters (so out of its id and
    #: seed) while it holds its default, so that adding it kept every stored run id.
    omit_default: bool = False
    #: ``mapping`` only: (value, path) -> its canonical form, raising ``SchemaError`` that
    #: names the key inside it (``medium.mobility.max_speed``). The owner of a structured
    #: key writes its rules once, beside its code, and the schema calls them.
    check_with: Optional[Callable[[Dict[str, Any], str], Any]] = None

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise ValueError(f"ParamSpec {self.name}: type {self.type!r} not in {TYPES}")
        if (self.type == "mapping") != (self.check_with is not None):
            raise ValueError(f"ParamSpec {self.name}: check_with goes with type mapping")
        if self.type in ("choice", "maplist") and not self.choices:
            raise ValueError(f"ParamSpec {self.name}: {self.type} needs choices")
        if self.min_exclusive and (self.min is None or self.type not in ("int", "float")):
            raise ValueError(f"ParamSpec {self.name}: min_exclusive needs a number with a min")

    def variant(self, **changes: Any) -> ParamSpec:
        """This rule under another key, doc, default or null meaning. Its type and allowed
        values stay: a rule declared once (``harness.kernel.wireless.RETRY_LIMIT``) serves
        every key that takes it, and cannot drift from it."""
        fixed = sorted(set(changes) & {"type", "choices", "min", "max", "min_exclusive"})
        if fixed:
            raise ValueError(f"ParamSpec {self.name}: a variant keeps the rule's "
                             f"{', '.join(fixed)}")
        return replace(self, **changes)

    def accepts(self, value: Any) -> bool:
        """Whether ``check`` would take ``value`` (for callers that word their own message
        around ``allowed()``)."""
        try:
            self.check(value, self.name)
        except SchemaError:
            return False
        return True

    def validate(self, value: Any, key: str) -> Any:
        """``check`` for code that is not reading an experiment file: the canonical value, or
        a plain ``HarnessError`` naming ``key`` and the allowed values (a ``SchemaError`` is
        one the schema places at a line of the file)."""
        try:
            return self.check(value, key)
        except SchemaError as err:
            raise HarnessError(str(err)) from None

    def allowed(self) -> str:
        """Human description of the allowed values, for error messages and docs."""
        if self.type == "choice":
            text = "one of " + ", ".join(_fmt(c) for c in self.choices)
        elif self.type == "intmap":
            text = (f"a mapping name -> integer in [{_fmt(self.min)}, {_fmt(self.max)}]"
                    if self.min is not None and self.max is not None
                    else "a mapping name -> integer")
        elif self.type == "floatmap":
            text = (f"a mapping name -> number in [{_fmt(self.min)}, {_fmt(self.max)}]"
                    if self.min is not None and self.max is not None
                    else "a mapping name -> number")
        elif self.type == "maplist":
            text = "a list of mappings with keys " + ", ".join(_fmt(c) for c in self.choices)
        elif self.type == "listmap":
            text = "a mapping name -> a non-empty list of numbers"
        elif self.type == "mapping":
            text = f"a mapping ({self.doc})" if self.doc else "a mapping"
        elif self.type == "bool":
            text = "true or false"
        else:
            noun = {"int": "an integer", "float": "a number", "str": "a string"}[self.type]
            if self.min is not None and self.max is not None:
                text = (f"{noun} in {'(' if self.min_exclusive else '['}{_fmt(self.min)}, "
                        f"{_fmt(self.max)}]")
            elif self.min is not None:
                text = f"{noun} {'>' if self.min_exclusive else '>='} {_fmt(self.min)}"
            elif self.max is not None:
                text = f"{noun} <= {_fmt(self.max)}"
            else:
                text = noun
        if self.nullable:
            text += f", or null ({self.null_label})"
        return text

    def check(self, value: Any, path: str) -> Any:
        """Return the canonical form of ``value`` or raise ``SchemaError`` naming ``path``.

        Canonical forms keep run ids stable: ``rate: 2.0`` and ``rate: 2`` are the same run.
        """
        if value is None:
            if self.nullable:
                return None
            raise SchemaError(path, f"null is not allowed; expected {self.allowed()}")
        bad = SchemaError(path, f"{_fmt(value)!s} ({type(value).__name__}) is not allowed; "
                                f"expected {self.allowed()}")
        if self.type == "bool":
            if not isinstance(value, bool):
                raise bad
            return value
        if self.type == "str":
            if not isinstance(value, str) or not value:
                raise bad
            return value
        if self.type == "intmap":
            if not isinstance(value, dict):
                raise bad
            item = ParamSpec(self.name, "int", min=self.min, max=self.max)
            return {str(k): item.check(v, f"{path}.{k}") for k, v in sorted(value.items())}
        if self.type == "floatmap":
            if not isinstance(value, dict):
                raise bad
            item = ParamSpec(self.name, "float", min=self.min, max=self.max)
            out = {_map_key(k): item.check(v, f"{path}.{k}") for k, v in value.items()}
            return dict(sorted(out.items()))
        if self.type == "maplist":
            return self._check_maplist(value, path, bad)
        if self.type == "mapping":
            if not isinstance(value, dict) or self.check_with is None:
                raise bad
            return self.check_with(value, path)
        if self.type == "listmap":
            if not isinstance(value, dict):
                raise bad
            item = ParamSpec(self.name, "float", min=self.min, max=self.max)
            lists: dict = {}
            for k, v in value.items():
                if not isinstance(v, (list, tuple)) or not v:
                    raise SchemaError(f"{path}.{k}", f"{_fmt(v)} is not allowed; expected a "
                                                     "non-empty list of numbers")
                lists[str(k)] = sorted(item.check(x, f"{path}.{k}") for x in v)
            return dict(sorted(lists.items()))
        if self.type == "choice":
            for choice in self.choices:
                if _same(value, choice):
                    return choice
            raise bad
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad
        if self.type == "int":
            if isinstance(value, float):
                if not value.is_integer():
                    raise bad
                value = int(value)
        else:
            if not math.isfinite(value):
                raise bad
            value = float(value)
        below = self.min is not None and (value <= self.min if self.min_exclusive
                                          else value < self.min)
        if below or (self.max is not None and value > self.max):
            raise SchemaError(path, f"{_fmt(value)} is out of range; expected {self.allowed()}")
        return value

    def _check_maplist(self, value: Any, path: str, bad: SchemaError) -> Any:
        """Each item a mapping of allowed keys, keys sorted (one run id per list)."""
        if not isinstance(value, (list, tuple)):
            raise bad
        out = []
        for i, item in enumerate(value):
            if not isinstance(item, dict):
                raise SchemaError(f"{path}[{i}]", f"{_fmt(item)} is not a mapping; expected "
                                                  f"{self.allowed()}")
            for key in item:
                if key not in self.choices:
                    raise SchemaError(f"{path}[{i}].{key}", "unknown key; allowed "
                                      + ", ".join(_fmt(c) for c in self.choices))
            out.append(dict(sorted(item.items())))
        return out


def _map_key(key: Any) -> str:
    """A floatmap's key as one string whatever YAML made of it: 11, 11.0 and "11" agree."""
    if isinstance(key, (int, float)) and not isinstance(key, bool):
        return f"{float(key):g}"
    return str(key)


def _same(value: Any, choice: Any) -> bool:
    if isinstance(value, bool) or isinstance(choice, bool):
        return value is choice
    if isinstance(value, (int, float)) and isinstance(choice, (int, float)):
        return float(value) == float(choice)
    return value == choice


@dataclass(frozen=True)
class Builder:
    """A topology builder: its name in YAML (``topology: {builder: chain}``), its parameters,
    and the function that returns the ``harness.net.topo.Topology`` description."""

    name: str
    build: Callable[..., Any]
    params: Tuple[ParamSpec, ...]
    doc: str = ""

    def argument(self, key: str, value: Any, where: str = "", *, null_ok: bool = False) -> Any:
        """``build``'s argument ``key`` checked by the declaration of that key, so a Python
        caller and an experiment file follow one rule. Null only with ``null_ok``: what a
        YAML null stands for (a preset's spacing) is resolved before ``build`` is called."""
        for spec in self.params:
            if spec.name == key:
                return spec.variant(nullable=null_ok and spec.nullable).validate(value,
                                                                                 where or key)
        raise ValueError(f"builder {self.name} declares no parameter {key!r}")


@dataclass(frozen=True)
class Policy:
    """A policy: ``scalar`` policies take one value (``cwnd_clamp: 4``), others a mapping.
    ``apply`` is the dotted path of its factory (``"policies.window:cwnd_clamp"``)."""

    name: str
    apply: str
    params: Tuple[ParamSpec, ...]
    scalar: bool = False
    doc: str = ""

    def __post_init__(self) -> None:
        if self.scalar and len(self.params) != 1:
            raise ValueError(f"scalar policy {self.name} must declare exactly one parameter")

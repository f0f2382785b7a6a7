"""What an experiment file may name: builders, policies and medium settings, with their parameters.

Validation needs to know every parameter's name, type and allowed values, but must not import
kernel code. So each builder and policy is *declared* here as a table of ``ParamSpec`` plus a
dotted import path (``"topologies.chain:build"``) that is imported only when a run executes.
"""
from __future__ import annotations

import importlib
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from harness.errors import HarnessError

TYPES = ("int", "float", "bool", "str", "choice")


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
    nullable: bool = False
    null_label: str = "default"
    required: bool = False

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise ValueError(f"ParamSpec {self.name}: type {self.type!r} not in {TYPES}")
        if self.type == "choice" and not self.choices:
            raise ValueError(f"ParamSpec {self.name}: choice needs choices")

    def allowed(self) -> str:
        """Human description of the allowed values, for error messages and docs."""
        if self.type == "choice":
            text = "one of " + ", ".join(_fmt(c) for c in self.choices)
        elif self.type == "bool":
            text = "true or false"
        else:
            noun = {"int": "an integer", "float": "a number", "str": "a string"}[self.type]
            if self.min is not None and self.max is not None:
                text = f"{noun} in [{_fmt(self.min)}, {_fmt(self.max)}]"
            elif self.min is not None:
                text = f"{noun} >= {_fmt(self.min)}"
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
        if (self.min is not None and value < self.min) or (self.max is not None and value > self.max):
            raise SchemaError(path, f"{_fmt(value)} is out of range; expected {self.allowed()}")
        return value


def _same(value: Any, choice: Any) -> bool:
    if isinstance(value, bool) or isinstance(choice, bool):
        return value is choice
    if isinstance(value, (int, float)) and isinstance(choice, (int, float)):
        return float(value) == float(choice)
    return value == choice


@dataclass(frozen=True)
class Builder:
    """A topology builder: its parameters and where its ``build`` function lives."""

    name: str
    build: str
    params: Tuple[ParamSpec, ...]
    doc: str = ""


@dataclass(frozen=True)
class Policy:
    """A policy: ``scalar`` policies take one value (``cwnd_clamp: 4``), others a mapping."""

    name: str
    apply: str
    params: Tuple[ParamSpec, ...]
    scalar: bool = False
    doc: str = ""

    def __post_init__(self) -> None:
        if self.scalar and len(self.params) != 1:
            raise ValueError(f"scalar policy {self.name} must declare exactly one parameter")


@dataclass
class Registry:
    """Builders, policies and medium parameters an experiment may name."""

    builders: Dict[str, Builder] = field(default_factory=dict)
    policies: Dict[str, Policy] = field(default_factory=dict)
    medium: Dict[str, ParamSpec] = field(default_factory=dict)
    #: Checks across sections on resolved parameters (raise ``SchemaError``), e.g. rate vs PHY.
    checks: List[Callable[[Dict[str, Any]], None]] = field(default_factory=list)

    def add_check(self, check: Callable[[Dict[str, Any]], None]) -> None:
        self.checks.append(check)

    def add_builder(self, builder: Builder) -> Builder:
        _no_duplicate_params(builder.name, builder.params)
        self.builders[builder.name] = builder
        return builder

    def add_policy(self, policy: Policy) -> Policy:
        _no_duplicate_params(policy.name, policy.params)
        self.policies[policy.name] = policy
        return policy

    def add_medium_params(self, specs: Iterable[ParamSpec]) -> None:
        for spec in specs:
            self.medium[spec.name] = spec

    def spec_for(self, path: str, params: Optional[Dict[str, Any]] = None) -> Optional[ParamSpec]:
        """The ``ParamSpec`` behind a resolved-parameter path (for labels such as "unclamped")."""
        from harness.experiment import paths
        steps = [name for name, _ in paths.parse(path)]
        if steps[0] == "topology" and len(steps) == 2:
            builder_name = (params or {}).get("topology", {}).get("builder")
            builders = [self.builders[builder_name]] if builder_name in self.builders \
                else list(self.builders.values())
            for b in builders:
                for spec in b.params:
                    if spec.name == steps[1]:
                        return spec
        if steps[0] == "policy" and len(steps) in (2, 3) and steps[1] in self.policies:
            policy = self.policies[steps[1]]
            want = policy.params[0].name if len(steps) == 2 else steps[2]
            for spec in policy.params:
                if spec.name == want:
                    return spec
        if steps[0] == "medium" and len(steps) == 2:
            return self.medium.get(steps[1])
        return None


def _no_duplicate_params(owner: str, specs: Sequence[ParamSpec]) -> None:
    names = [s.name for s in specs]
    if len(names) != len(set(names)):
        raise ValueError(f"{owner}: duplicate parameter names in {names}")


def load_callable(target: str, what: str) -> Callable[..., Any]:
    """Import ``"pkg.module:function"`` at run time; a clear error if it is not written yet."""
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name and module_name.startswith(err.name):
            raise HarnessError(f"{what} is declared but its implementation {target} "
                               f"is not available yet") from None
        raise
    try:
        return getattr(module, attr)
    except AttributeError:
        raise HarnessError(f"{what}: {module_name} has no {attr!r} (declared as {target})") from None


_DEFAULT: Optional[Registry] = None


def default_registry() -> Registry:
    """The registry filled by ``harness.experiment.catalog`` (built once, on first use)."""
    global _DEFAULT
    if _DEFAULT is None:
        from harness.experiment import catalog
        _DEFAULT = catalog.build_registry()
    return _DEFAULT

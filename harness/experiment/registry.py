"""What an experiment file may name: builders, policies and medium settings, with their parameters.

Validation needs every parameter's name, type and allowed values (``harness.params``). Builders
declare themselves next to their code (``topologies/``: importing a builder starts nothing);
policies are declared in ``harness.experiment.catalog`` with the dotted path of their factory
(``"policies.window:cwnd_clamp"``), imported only when a run executes.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Union

from harness.errors import HarnessError
from harness.params import Builder, ParamSpec, Policy, SchemaError

__all__ = ["Builder", "ParamSpec", "Policy", "Registry", "SchemaError",
           "default_registry", "load_callable"]


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
        from harness.experiment import param_paths
        steps = [name for name, _ in param_paths.parse(path)]
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


def load_callable(target: Union[str, Callable[..., Any]], what: str) -> Callable[..., Any]:
    """The function a declaration names: a builder's ``build`` as it is, or a policy's
    ``"pkg.module:function"`` imported now (at run time, not when the YAML is checked)."""
    if callable(target):
        return target
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name and module_name.startswith(err.name):
            raise HarnessError(f"{what}: its module {module_name} does not exist "
                               f"(declared as {target})") from None
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

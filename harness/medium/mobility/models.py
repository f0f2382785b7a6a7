"""The mobility models an experiment may name, and ``generate``: one call for any of them.

``MODELS`` is the declaration table a ``mobility:`` key will be checked against (model name
-> its parameters, each a ``ParamSpec``): ``check`` does that to a whole mapping;
``generate`` checks a model name and its parameters and returns one trajectory per node.
"""
from __future__ import annotations

from typing import Any, Dict, Mapping, Sequence, Tuple

from harness.errors import HarnessError
from harness.medium.mobility import traces, walks, waypoint
from harness.medium.mobility.declare import KEY, Model
from harness.medium.mobility.trajectory import Area, Trajectory
from harness.params import ParamSpec

MODELS: Dict[str, Model] = {m.name: m for m in (
    waypoint.MODEL, walks.RANDOM_WALK, walks.GAUSS_MARKOV, walks.CONSTANT_VELOCITY,
    traces.NS2, traces.CSV)}

#: ``mobility: {model: NAME, ...}``
MODEL = ParamSpec("model", "choice", "the mobility model", choices=tuple(MODELS), required=True)


def check(mobility: Mapping[str, Any], area: Area) -> Tuple[Model, Dict[str, Any]]:
    """A whole ``mobility:`` mapping (``model`` and its parameters) checked: the model and
    its arguments with defaults filled in, or a ``HarnessError`` naming the key."""
    if not isinstance(mobility, Mapping):
        raise HarnessError(f"{KEY}: {mobility!r} is not allowed; expected a mapping with a "
                           "model key")
    if "model" not in mobility:
        raise HarnessError(f"{KEY}.model is required: {MODEL.allowed()}")
    model = MODELS[MODEL.validate(mobility["model"], f"{KEY}.model")]
    params = {k: v for k, v in mobility.items() if k != "model"}
    return model, model.arguments(params, area)


def generate(model: str, params: Mapping[str, Any], nodes: Sequence[str], area: Area,
             duration: float, seed: int) -> Dict[str, Trajectory]:
    """Trajectories of ``nodes`` by the model named ``model``: checked by its declaration
    (errors name ``mobility.<key>``), over [0, duration] (traces: as the file has them)."""
    name = MODEL.validate(model, f"{KEY}.model")
    return MODELS[name](nodes, area, duration, seed, params)

"""Dotted parameter paths (``topology.hops``, ``policy.mac.rts``, ``flows[0].congestion``).

One grammar for sweep keys, error messages, plot axes and record look-ups, so a user names a
parameter the same way everywhere. ``flows.congestion`` (a list without an index) means
"every element of the list".
"""
from __future__ import annotations

import re
from typing import Any, List, Optional, Tuple, Union

from harness.errors import HarnessError

_SEGMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)(?:\[(\d+)\])?$")


def parse(path: str) -> List[Tuple[str, Optional[int]]]:
    """Split ``a.b[2].c`` into ``[("a", None), ("b", 2), ("c", None)]``."""
    if not isinstance(path, str) or not path:
        raise HarnessError(f"parameter path must be a non-empty string, got {path!r}")
    steps = []
    for seg in path.split("."):
        m = _SEGMENT.match(seg)
        if not m:
            raise HarnessError(
                f"bad parameter path {path!r}: segment {seg!r} is not a name or name[index]",
                hint="paths look like topology.hops, policy.mac.rts, flows[0].congestion")
        steps.append((m.group(1), int(m.group(2)) if m.group(2) is not None else None))
    return steps


def join(*parts: Union[str, int]) -> str:
    """Build a path for messages: ``join("flows", 0, "congestion") == "flows[0].congestion"``."""
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif p:
            out = f"{out}.{p}" if out else p
    return out


_MISSING = object()


def get(data: Any, path: str, default: Any = _MISSING) -> Any:
    """Value at ``path`` in nested dicts/lists.

    A list reached without an index yields the list of the rest of the path for every element;
    if those are all equal the single value is returned (``flows.congestion`` on two cubic
    flows is ``"cubic"``).
    """
    try:
        return _get(data, parse(path))
    except (KeyError, IndexError, TypeError):
        if default is _MISSING:
            raise KeyError(path) from None
        return default


def _get(data: Any, steps: List[Tuple[str, Optional[int]]]) -> Any:
    if not steps:
        return data
    (key, index), rest = steps[0], steps[1:]
    if not isinstance(data, dict):
        raise TypeError(key)
    value = data[key]
    if index is not None:
        return _get(value[index], rest)
    if isinstance(value, list) and rest:
        values = [_get(v, rest) for v in value]
        if values and all(v == values[0] for v in values):
            return values[0]
        return values
    return _get(value, rest)


def set_value(data: Any, path: str, value: Any) -> None:
    """Assign ``value`` at ``path``, creating missing mappings; ``flows.x`` sets every flow."""
    _set(data, parse(path), value, path)


def _set(data: Any, steps: List[Tuple[str, Optional[int]]], value: Any, path: str) -> None:
    (key, index), rest = steps[0], steps[1:]
    if not isinstance(data, dict):
        raise HarnessError(f"cannot set {path}: {key!r} is not inside a mapping")
    if index is None and not rest:
        data[key] = value
        return
    if index is None:
        child = data.get(key)
        if isinstance(child, list):
            for element in child:
                _set(element, rest, value, path)
            return
        if child is None:
            child = data[key] = {}
        _set(child, rest, value, path)
        return
    seq = data.get(key)
    if not isinstance(seq, list) or index >= len(seq):
        size = len(seq) if isinstance(seq, list) else 0
        raise HarnessError(f"cannot set {path}: {key} has {size} element(s), no index {index}")
    if not rest:
        seq[index] = value
    else:
        _set(seq[index], rest, value, path)

"""Statistics over repetitions: mean, median, stdev, Student-t 95% confidence intervals, grouping.

Emulated runs vary (scheduling, seeds); a trend claim needs the spread next to the mean. The t
distribution comes from ``scipy.stats`` (a maintained implementation, not a hand-written one).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from harness.experiment import param_paths


def mean(xs: Sequence[float]) -> float:
    xs = _values(xs)
    return math.fsum(xs) / len(xs)


def median(xs: Sequence[float]) -> float:
    xs = sorted(_values(xs))
    mid = len(xs) // 2
    return xs[mid] if len(xs) % 2 else (xs[mid - 1] + xs[mid]) / 2.0


def stdev(xs: Sequence[float]) -> float:
    """Sample standard deviation (n - 1); 0.0 for a single value."""
    xs = _values(xs)
    if len(xs) < 2:
        return 0.0
    m = mean(xs)
    return math.sqrt(math.fsum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def _values(xs: Iterable[float]) -> List[float]:
    out = [float(x) for x in xs]
    if not out:
        raise ValueError("no values")
    return out


# --- Student t -----------------------------------------------------------------------------
# scipy is imported inside the functions: the CLI and the VM guest import this module (through
# ``harness.analysis.plot``) without needing scipy until a confidence interval is computed.
# The guest image has no scipy (its Debian package pulls in a compiler and Boost), yet the
# emulation tests print trend tables there: ``ci_half_width`` is NaN (shown "-") without it.

def have_scipy() -> bool:
    """True when scipy is installed (always on the host: the package requires it)."""
    import importlib.util
    return importlib.util.find_spec("scipy") is not None


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom (``scipy.stats.t.cdf``)."""
    if not df > 0:
        raise ValueError("degrees of freedom must be positive")
    from scipy.stats import t as student_t
    return float(student_t.cdf(t, df))


def t_quantile(p: float, df: float) -> float:
    """Inverse of ``t_cdf``: the t with P(T <= t) = p (e.g. 0.975, 4 -> 2.776); ``scipy.stats.t.ppf``."""
    if not 0.0 < p < 1.0:
        raise ValueError("p must be in (0, 1)")
    if not df > 0:
        raise ValueError("degrees of freedom must be positive")
    from scipy.stats import t as student_t
    return float(student_t.ppf(p, df))


def ci_half_width(xs: Sequence[float], level: float = 0.95) -> float:
    """Half width of the Student-t confidence interval of the mean; NaN for one value, or
    where scipy is not installed (the VM guest, see above)."""
    xs = _values(xs)
    n = len(xs)
    if n < 2 or not have_scipy():
        return math.nan
    return t_quantile(0.5 + level / 2.0, n - 1) * stdev(xs) / math.sqrt(n)


@dataclass(frozen=True)
class Summary:
    """Mean, median, spread and 95% CI of one group of repetitions."""

    n: int
    mean: float
    median: float
    stdev: float
    ci: float  # half width; NaN when n < 2
    min: float
    max: float

    @property
    def ci_low(self) -> float:
        return self.mean - self.ci

    @property
    def ci_high(self) -> float:
        return self.mean + self.ci

    def text(self, fmt: str = "{:.3g}") -> str:
        """``'1.92 ± 0.05'`` (or just the mean when there is one value)."""
        if math.isnan(self.ci):
            return fmt.format(self.mean)
        return f"{fmt.format(self.mean)} ± {fmt.format(self.ci)}"


def summarize(xs: Sequence[float], level: float = 0.95) -> Summary:
    xs = _values(xs)
    return Summary(n=len(xs), mean=mean(xs), median=median(xs), stdev=stdev(xs),
                   ci=ci_half_width(xs, level), min=min(xs), max=max(xs))


# --- grouping records ----------------------------------------------------------------------

def param(record: Dict[str, Any], path: str) -> Any:
    """A run parameter of a record by dotted path (``topology.hops``, ``policy.mac.rts``)."""
    return param_paths.get(record["params"], path, None)


def group_by(records: Iterable[Dict[str, Any]], keys: Sequence[str]) -> Dict[Tuple[Any, ...], List[Dict[str, Any]]]:
    """Records keyed by the values of ``keys`` (parameter paths), in first-seen order."""
    groups: Dict[Tuple[Any, ...], List[Dict[str, Any]]] = {}
    for rec in records:
        key = tuple(_hashable(param(rec, k)) for k in keys)
        groups.setdefault(key, []).append(rec)
    return groups


def _hashable(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    return value


def summarize_by(records: Iterable[Dict[str, Any]], keys: Sequence[str],
                 metric: Callable[[Dict[str, Any]], Optional[float]]) -> Dict[Tuple[Any, ...], Summary]:
    """``metric`` summarised per group; records where it is ``None`` (no sample) are left out."""
    out: Dict[Tuple[Any, ...], Summary] = {}
    for key, recs in group_by(records, keys).items():
        values = [v for v in (metric(r) for r in recs) if v is not None]
        if values:
            out[key] = summarize(values)
    return out

"""Claims of a paper: every number its text states, where it stands, and ours beside it.

A ``Claim`` is data (no kernel, no results): the paper's value, the place in the paper
(section / table / figure text), how sure the number is (``text`` = printed in the prose or a
table, ``derived`` = computed from printed numbers) and how our experiments measure the same
quantity. ``compare`` fills in our value and the difference, so a report can set them side by
side and say where they differ.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Union

if TYPE_CHECKING:
    from typing import TypeGuard

Number = Union[int, float]
Value = Union[Number, str, Sequence[Number]]


@dataclass(frozen=True)
class Claim:
    """One number a paper states."""

    key: str            # stable id, e.g. "001.best_cwl_15_hops"
    what: str           # the quantity, in words
    paper: Value        # the paper's value (number, [lo, hi] band, or text)
    unit: str           # "" for counts
    source: str         # where in the paper ("§III-B, Fig. 2 text")
    kind: str = "text"  # text | derived
    experiment: str = ""  # the experiment file that measures it ("" = not measured)
    note: str = ""      # regime differences worth knowing when reading the comparison


@dataclass
class Row:
    """A claim with our value (None = not measured in the results at hand)."""

    claim: Claim
    ours: Optional[Value] = None
    detail: str = ""    # how ours was obtained (n, regime)
    verdict: str = ""   # agrees / differs / not measured / out of scope

    @property
    def difference(self) -> str:
        return difference(self.claim.paper, self.ours)


def _is_num(v: Any) -> TypeGuard[Number]:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def difference(paper: Optional[Value], ours: Optional[Value]) -> str:
    """Human-readable difference: ``+12.3%`` for numbers, ``inside``/``+2 above`` for bands."""
    if ours is None or paper is None:
        return "-"
    if _is_num(paper) and _is_num(ours):
        if paper == 0:
            return f"{ours - paper:+.3g}"
        return f"{(ours - paper) / abs(paper):+.1%}"
    if isinstance(paper, (list, tuple)) and len(paper) == 2 and _is_num(ours):
        lo, hi = paper
        if lo <= ours <= hi:
            return "inside"
        return f"{ours - hi:+.3g} above" if ours > hi else f"{ours - lo:+.3g} below"
    return "see note"


def fmt(v: Optional[Value]) -> str:
    if v is None:
        return "-"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(fmt(x) for x in v) + "]"
    if isinstance(v, float):
        return f"{v:.3g}"
    return str(v)


def comparison_table(rows: Sequence[Row]) -> List[str]:
    """Markdown table: claim, paper, source, ours, difference, verdict."""
    out = ["| quantity | paper | where (kind) | ours | difference | verdict / note |",
           "|---|---|---|---|---|---|"]
    for r in rows:
        c = r.claim
        unit = f" {c.unit}" if c.unit else ""
        note = "; ".join(x for x in (r.verdict, r.detail, c.note) if x)
        out.append(f"| {c.what} | {fmt(c.paper)}{unit} | {c.source} ({c.kind}) | "
                   f"{fmt(r.ours)}{unit if r.ours is not None else ''} | {r.difference} | "
                   f"{note.replace('|', '/')} |")
    return out


def verdict_band(paper: Value, ours: Optional[Number], tolerance: float = 0) -> str:
    """``agrees`` if ours lies in the band (widened by ``tolerance``), else ``differs``."""
    if ours is None:
        return "not measured"
    if isinstance(paper, (list, tuple)):
        lo, hi = paper
    elif isinstance(paper, str):
        raise TypeError(f"verdict_band: the paper's value {paper!r} is text, not a number or band")
    else:
        lo = hi = paper
    return "agrees" if lo - tolerance <= ours <= hi + tolerance else "differs"


@dataclass
class Paper:
    """A paper's claim table and the experiments that measure it."""

    key: str                       # "001"
    title: str
    claims: List[Claim]
    experiments: Dict[str, str] = field(default_factory=dict)   # name -> file

    @property
    def prefix(self) -> str:
        """The start of the names of the paper's experiments (``paper001_``)."""
        return f"paper{self.key}_"

    def claim(self, key: str) -> Claim:
        for c in self.claims:
            if c.key == key:
                return c
        raise KeyError(f"no claim {key!r} in paper {self.key}; claims: "
                       + ", ".join(c.key for c in self.claims))


@dataclass
class Judged:
    """One numbered checkable claim of a paper's catalogue entry on our records: the regime it
    was measured in, the paper's statement and ours, the verdict and, where we differ, the
    explanation and the runs that tested it."""

    number: int
    claim: str
    regime: str
    paper: str
    ours: str
    verdict: str
    why: str = ""


def judged_lines(judged: Sequence[Judged]) -> List[str]:
    """Markdown: one table row per claim, then one bullet per claim that carries a why."""
    out = ["| # | claim | regime | paper | ours | verdict |", "|---|---|---|---|---|---|"]
    for j in judged:
        cells = (j.claim, j.regime, j.paper, j.ours, j.verdict)
        out.append(f"| {j.number} | " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    out.append("")
    out += [f"- **Claim {j.number}.** {j.why}" for j in judged if j.why]
    return out + [""]

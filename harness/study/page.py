"""One page per paper over all of its experiments: ``harness report DIR DIR ... -o FILE``.

Each experiment's own report (``DIR/report.md``) fills the claim table only with what that
experiment measures. The summary sets every claim beside the value of the first given
experiment that measures it, links each experiment's report and paper figures, and merges
the environments (so mixed code revisions or kernels show).
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from harness.analysis.report import environment_lines, planned_runs
from harness.errors import HarnessError
from harness.experiment.results import ResultSet
from harness.study import study_keys, study_module, study_of
from harness.study.claims import Row, comparison_table


def merged_rows(key: str, sets: Sequence[ResultSet]) -> List[Row]:
    """Every claim of paper ``key`` once: from the first result set that measures it
    (its name is added to the detail); unmeasured claims keep the first set's row."""
    module = study_module(key)
    usable = [rs for rs in sets if rs.name.startswith(module.ROWS_FROM)]
    # a paper may name experiments whose failed runs are results (a path broken at a rate)
    whole = tuple(getattr(module, "ROWS_READ_FAILED", ()))
    per_set = [(rs, {row.claim.key: row for row in
                     module.rows(rs.records if whole and rs.name.startswith(whole) else rs.ok)})
               for rs in usable]
    out: List[Row] = []
    for claim in module.PAPER.claims:
        candidates = [(rs, rows[claim.key]) for rs, rows in per_set if claim.key in rows]
        if not candidates:
            out.append(Row(claim, None, "", "not in these results"))
            continue
        measured = [(rs, row) for rs, row in candidates if row.ours is not None]
        if measured:
            rs, row = measured[0]
            if row.verdict not in ("analytic", "model"):
                row.detail = "; ".join(x for x in (row.detail, f"from `{rs.name}`") if x)
            out.append(row)
        else:
            out.append(candidates[0][1])
    return out


def paper_figures(rs: ResultSet) -> List[Path]:
    """The paper-layout figures an experiment's report drew (``report-figures/paper*``)."""
    fig_dir = rs.report_dir / "report-figures"
    return sorted(fig_dir.glob("paper*.*")) if fig_dir.is_dir() else []


def page_figures(sets: Sequence[ResultSet], output: Path) -> List[Tuple[ResultSet, Path, Path]]:
    """(result set, drawn figure, its copy beside the page): the page shows copies in its own
    ``figures/`` folder, so a page kept in git keeps its figures while the experiments'
    reports (and all their other figures) stay out of it."""
    folder = Path(output).parent / "figures"
    return [(rs, p, folder / f"{rs.report_dir.name}-{p.name}") for rs in sets for p in paper_figures(rs)]


def render(key: str, sets: Sequence[ResultSet], output: Path) -> str:
    module = study_module(key)
    rel = lambda p: os.path.relpath(p, output.parent)  # noqa: E731
    out = [f"# Paper {key}: {module.PAPER.title}", "",
           "Our numbers beside the paper's, over all of its experiments given to "
           "`harness report`; each claim takes the first experiment that measures it.", "",
           "## Experiments", "", "| experiment | runs ok / stored / planned | report |", "|---|---|---|"]
    partial = []
    for rs in sets:
        # where `harness report` writes it (under results/, out of git): linked whether or
        # not it has been written here, so the page is the same on every machine
        link = f"[report]({rel(rs.report_dir / 'report.md')})"
        planned = planned_runs(rs)
        out.append(f"| `{rs.name}` | {len(rs.ok)} / {len(rs.records)} / {planned or '-'} | {link} |")
        if planned and len(rs.records) < planned:
            partial.append(f"`{rs.name}` ({len(rs.records)} of {planned})")
    if partial:
        out += ["", "**Partly run:** " + ", ".join(partial) + ". Every number below reads only "
                "the stored runs; `harness run` on the same file and directory runs the rest."]
    out += ["", "## Environment", ""]
    out += environment_lines([r for rs in sets for r in rs.records]) + [""]
    figures = page_figures(sets, output)
    if figures:
        out += ["## Figures", ""]
        for rs, drawn, shown in figures:
            out += [f"`{rs.name}`: ![{drawn.stem}]({rel(shown)})", ""]
    out += ["## The paper's numbers beside ours", ""]
    out += comparison_table(merged_rows(key, sets)) + [""]
    # claims that need several experiments at once (e.g. 001: adaptive against the sweep)
    out += getattr(module, "page_sections", lambda _sets: [])(sets)
    out += ["## Why we may differ", ""] + module.why_differ() + [""]
    from harness.study.section import out_of_scope
    return "\n".join(out + [line.replace("### ", "## ", 1) for line in out_of_scope(key)])


def default_output(sets: Sequence[ResultSet]) -> Path:
    """The study's own page: ``report.md`` in its package folder."""
    return Path(str(study_module(paper_key(sets)).__file__)).parent / "report.md"


def paper_key(sets: Sequence[ResultSet]) -> str:
    """The one paper all result sets belong to; a clear error otherwise."""
    keys: Dict[str, List[str]] = {}
    for rs in sets:
        keys.setdefault(study_of(rs.name), []).append(rs.name)
    if len(keys) != 1 or "" in keys:
        raise HarnessError("a report over several directories needs experiments of one paper "
                           "(names " + " or ".join(f"{study_module(k).PAPER.prefix}..." for k in study_keys())
                           + "); got "
                           + "; ".join(f"{k or 'no paper'}: {', '.join(v)}"
                                       for k, v in keys.items()))
    return next(iter(keys))


def write_summary(sets: Sequence[ResultSet], output: Path) -> Path:
    """Write the page of the one paper all result sets belong to."""
    key = paper_key(sets)
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    figures = page_figures(sets, output)
    folder = output.parent / "figures"
    if folder.is_dir():  # figures of an earlier page that this one no longer shows go
        for old in set(folder.iterdir()) - {shown for _rs, _drawn, shown in figures}:
            old.unlink()
    for _rs, drawn, shown in figures:
        shown.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(drawn, shown)
    text = render(key, sets, output)
    tmp = output.with_name(output.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, output)
    return output

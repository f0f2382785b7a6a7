"""Paper 001 (Chen, Xue, Nahrstedt, ICC 2003): TCP's congestion window limit on chains.

A study of the harness (``harness.study``): ``paper`` holds the claims and the report sections,
``experiments/`` the experiment files, ``tests/`` the claim tests, ``records/`` the committed
run records, ``report.md`` the study's page. README.md says what the paper claims, what we find
and how to rerun it. Imports the harness only; nothing in the harness imports this package.
"""
from studies.p001_cwl.paper import (  # noqa: F401  (the study's interface, harness.study)
    OUT_OF_SCOPE,
    PAGE_FROM,
    PAPER,
    ROWS_FROM,
    page_sections,
    report_section,
    rows,
    why_differ,
)

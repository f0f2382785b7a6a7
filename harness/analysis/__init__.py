"""Analysis of stored results: statistics, trend checks, figures, Markdown reports.

``stats`` groups runs and summarises them, ``trends`` asserts the shape of a curve,
``plot`` draws figures, ``report`` writes a result set's Markdown page.

May import: ``harness.errors``, ``harness.experiment`` (to load results), the scientific
Python stack. Never the kernel, the medium daemon or a running network.
"""

"""Analysis of stored results: statistics, trend checks, figures, Markdown reports, DataFrames.

``stats`` groups runs and summarises them, ``trends`` asserts the shape of a curve,
``plot`` draws figures, ``report`` writes a result set's Markdown page, ``frame`` turns a result
set into a pandas DataFrame (``load_frame``, exported here for the notebook one-liner
``from harness.analysis import load_frame; df = load_frame("results/quick_chain")``).

May import: ``harness.errors``, ``harness.experiment`` (to load results), the scientific
Python stack. Never the kernel, the medium daemon or a running network.
"""
from harness.analysis.frame import load_frame

__all__ = ["load_frame"]

"""YAML experiments: schema and registry, sweep expansion, atomic results store, runner.

Pure Python (no kernel calls): the executor that builds networks and runs traffic lives in
``harness.experiment.execute`` and is imported only when runs execute.

May import: ``harness.errors``, ``harness.params``, ``harness.paths``, ``harness.kernel``,
``harness.medium``, ``harness.net``, ``harness.traffic``, ``topologies``, ``policies``. Not
analysis, papers, the VM or the front ends.
"""
from harness.experiment.registry import ParamSpec, Registry, SchemaError, default_registry
from harness.experiment.runner import SweepResult, run_sweep
from harness.experiment.schema import Experiment, load, loads
from harness.experiment.store import Store
from harness.experiment.sweep import Run, expand

__all__ = ["ParamSpec", "Registry", "SchemaError", "default_registry", "Experiment", "load",
           "loads", "Store", "Run", "expand", "SweepResult", "run_sweep"]

"""Pytest fixtures for emulation tests: topologies that are always torn down, and experiments
run through the same runner and executor as ``harness run`` (so a test asserts on exactly
what a sweep would store).

Use from a conftest: ``from harness.testing.fixtures import *  # noqa: F401,F403``.

- ``chain_network(hops=3, geometry="ns2", medium=None, seed=0, **builder_args)`` -> a started
  ``Network`` (``topologies.chain``); stopped after the test, which then fails if the run left
  a namespace, radio or process behind.
- ``run_experiment(yaml_text, **top_level_overrides)`` -> ``ResultSet`` of every run of the
  experiment, stored under the test's ``tmp_path``; fails the test if a run failed (its error
  is shown), unless ``allow_failed=True``.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Union

import pytest
import yaml

if TYPE_CHECKING:
    from harness.experiment.results import ResultSet
    from harness.net import Network

#: ``medium`` of ``start_chain``: None (mediumd, the geometry's ranges), ``'none'`` or medium keys.
MediumChoice = Union[None, str, Dict[str, Any]]

__all__ = ["chain_network", "run_experiment", "start_chain", "run_experiment_text"]


def start_chain(hops: int = 3, *, geometry: str = "ns2", medium: MediumChoice = None,
                seed: int = 0, **builder_args: Any) -> Network:
    """Build and start a chain the way an experiment would (geometry preset -> spacing and the
    medium's ranges). ``medium``: None = mediumd with the geometry's ranges, ``'none'`` =
    plain hwsim, a mapping = medium keys on top of the geometry's."""
    from harness.experiment import realise
    from harness.net.network import Network
    from topologies import chain

    topology = {"geometry": geometry, "hops": hops, "spacing": None, **builder_args}
    args = realise.builder_arguments(topology)
    medium_arg: Union[str, Dict[str, Any]]
    if isinstance(medium, str):
        if medium != "none":
            from harness.errors import HarnessError
            raise HarnessError(f"start_chain: medium {medium!r} is invalid: allowed None "
                               "(the geometry's medium), 'none' (plain hwsim) or a mapping of "
                               "medium keys")
        medium_arg = "none"
    else:
        medium_arg = realise.medium_settings({"topology": topology, "medium": dict(medium or {})})
    net = Network(chain.build(**args), name=f"chain{hops}", medium=medium_arg, seed=seed)
    return net.start()


@pytest.fixture
def chain_network() -> Iterator[Callable[..., Network]]:
    """Factory of started chains; each is stopped after the test and checked for leftovers."""
    from harness.kernel.cleanup import harness_objects_left
    nets: List[Network] = []

    def make(hops: int = 3, **kw: Any) -> Network:
        net = start_chain(hops, **kw)  # a failed start tears itself down
        nets.append(net)
        return net

    yield make
    for net in nets:
        net.stop()
        left = harness_objects_left(net.tag)
        assert not left, f"run {net.tag} left objects behind after stop(): {left}"


def run_experiment_text(text: Union[str, Dict[str, Any]], output: Path, *,
                        allow_failed: bool = False, **overrides: Any) -> ResultSet:
    """Validate an experiment (YAML text or a mapping), run every run with the real executor
    into ``output``, and return its ``ResultSet``. Top-level keys in ``overrides`` replace the
    file's (``repetitions=2``, ``duration=8``)."""
    from harness.experiment import schema
    from harness.experiment.execute import environment, execute_run
    from harness.experiment.progress import Progress
    from harness.experiment.results import load_results
    from harness.experiment.runner import run_sweep
    from harness.experiment.store import Store

    data = yaml.safe_load(text) if isinstance(text, str) else dict(text)
    data.update(overrides)
    data["output"] = str(output)
    exp = schema.loads(yaml.safe_dump(data, sort_keys=False))
    from harness.experiment.sweep import expand
    runs = expand(exp)
    result = run_sweep(exp, Store(output), execute_run, runs=runs, environment=environment,
                       progress=Progress(len(runs), stream=sys.stderr, tty=False))
    if result.interrupted:
        raise KeyboardInterrupt
    rs = load_results(output)
    for rec in rs.records:
        flows = rec.get("flows") or []
        tput = sum(f.get("throughput_bps") or 0 for f in flows) / 1e6
        print(f"  {rec['status']:6s} {rec['run_id']} {rec.get('point')} rep={rec['repetition']} "
              f"{tput:.3f} Mbit/s{lag_text(rec)}"
              + (f"  error: {rec['error']}" if rec.get("error") else ""))
    if rs.failed and not allow_failed:
        pytest.fail("experiment runs failed:\n" + "\n".join(
            f"  {r['run_id']} {r.get('point')}: {r.get('error')}" for r in rs.failed))
    return rs


def lag_text(rec: Dict[str, Any]) -> str:
    """The medium's delivery lag (p50/p99): large values mean the CPU, not the air, limited
    the run (a starved guest), which is the first thing to check when a trend fails."""
    lag = ((rec.get("medium") or {}).get("summary") or {}).get("lag_us") or {}
    if lag.get("p50") is None:
        return ""
    return f"  (medium lag p50 {lag['p50'] / 1000:.1f} ms, p99 {lag.get('p99', 0) / 1000:.1f} ms)"


@pytest.fixture
def run_experiment(tmp_path: Path) -> Callable[..., ResultSet]:
    """``run_experiment(yaml_text, **overrides) -> ResultSet`` (results in ``tmp_path``)."""
    count = [0]

    def run(text: Union[str, Dict[str, Any]], *, allow_failed: bool = False,
            **overrides: Any) -> ResultSet:
        count[0] += 1
        return run_experiment_text(text, tmp_path / f"exp{count[0]}",
                                   allow_failed=allow_failed, **overrides)

    return run

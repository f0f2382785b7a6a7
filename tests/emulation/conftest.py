"""Fixtures for emulation tests: networks that are always torn down, and leak checks."""
from __future__ import annotations

from typing import Callable, List

import pytest

from harness.kernel.cleanup import harness_objects_left
from harness.net.network import Network
from harness.net.topo import Topology
from harness.testing.fixtures import chain_network, run_experiment  # noqa: F401  (shared fixtures)


def two_stations(**kw) -> Topology:
    """sta1 and sta2, 50 m apart, one hop."""
    t = Topology("pair")
    t.add_station("sta1", (0, 0), **kw)
    t.add_station("sta2", (50, 0), **kw)
    return t


@pytest.fixture
def pair() -> Callable[..., Topology]:
    return two_stations


@pytest.fixture
def make_network() -> Callable[..., Network]:
    """Start networks (``make_network(topo, medium='none')``); each is stopped after the test
    and must leave no namespace, radio or process behind."""
    nets: List[Network] = []

    def make(topo: Topology, **kw) -> Network:
        kw.setdefault("medium", "none")
        net = Network(topo, **kw)
        nets.append(net)
        return net.start()

    yield make
    for net in nets:
        net.stop()
        left = harness_objects_left(net.tag)
        assert not left, f"run {net.tag} left objects behind after stop(): {left}"

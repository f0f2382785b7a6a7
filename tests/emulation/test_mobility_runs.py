"""A node that moves during a run, through the same runner and executor as ``harness run``::

    sta1 (0 m) ---- sta2 (100 m) --> 20 m/s along +x        802.11b 2 Mbit/s, ns-2 geometry
                                                           (250 m transmission range)

The medium (mediumd) computes sta2's position at each frame's time from its trajectory, from
the moment the flows start: sta2 leaves sta1's range 7.5 s into the flow. Data must move
before and stop after. (A rerun in a fresh guest gives the same record:
tests/parallel/test_uml_sweeps.py.)
"""
from __future__ import annotations

from typing import Any, Dict

import pytest

from harness.paths import code_root

pytestmark = pytest.mark.emulation

#: The example a user would run (``harness run experiments/driving_away.yaml``).
EXPERIMENT = (code_root() / "experiments" / "driving_away.yaml").read_text()
#: When sta2 crosses 250 m: (250 - 100) / 20 s after the flows start.
OUT_OF_RANGE_S = 7.5


def acked_at(record: Dict[str, Any], t: float) -> int:
    """Bytes the sender had acknowledged by flow time ``t`` (its socket samples: iperf3's own
    per-second report is lost when the path breaks, since its end-of-test exchange cannot
    reach the receiver; the record then says so in ``incomplete``)."""
    return max([s["bytes_acked"] for s in record["flows"][0]["ss"] if s["t"] <= t] or [0])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    from harness.testing.fixtures import run_experiment_text
    return run_experiment_text(EXPERIMENT, tmp_path_factory.mktemp("drive"))


def test_data_moves_in_range_and_stops_once_the_station_has_left(runs):
    record = runs.ok[0]
    samples = record["flows"][0]["ss"]
    print("\nbytes acked by second: " + " ".join(
        f"{t}s:{acked_at(record, t)}" for t in range(1, 15)))
    assert len(samples) >= 20, samples
    inside = acked_at(record, OUT_OF_RANGE_S - 1)
    assert inside > 200_000, inside  # ~0.3 Mbit/s or more while in range
    gone = [s for s in samples if s["t"] >= OUT_OF_RANGE_S + 1.5]
    assert len(gone) >= 5, samples
    assert {s["bytes_acked"] for s in gone} == {acked_at(record, OUT_OF_RANGE_S + 1.5)}
    assert all(s["backoff"] > 0 for s in gone[2:]), gone  # retransmission timer backing off
    assert record["medium"]["settings"]["mobility"]["model"] == "constant_velocity"


def test_a_capped_retransmission_timeout_keeps_probing_every_two_seconds(runs, tmp_path):
    """The same drive with ``max_rto: 2`` (net.ipv4.tcp_rto_max_ms in every node): once sta2
    is gone the sender's timeout backs off to 2 s and stays there, where the uncapped run's
    keeps doubling past it."""
    from harness.testing.fixtures import run_experiment_text
    capped = run_experiment_text(EXPERIMENT.replace("seed: 3", "policy: {max_rto: 2}\nseed: 3"),
                                 tmp_path / "capped").ok[0]
    def rtos(record):
        return [s["rto_ms"] for s in record["flows"][0]["ss"]
                if s["t"] >= OUT_OF_RANGE_S + 1.5 and s.get("rto_ms") is not None]
    free, cap = rtos(runs.ok[0]), rtos(capped)
    print(f"\nrto after the break (ms): uncapped {free[-5:]}, capped {cap[-5:]}")
    assert len(cap) >= 5 and len(free) >= 5
    assert max(cap) <= 2000 and cap[-1] == 2000, cap
    assert max(free) > 2000, free
    assert capped["policies"]["max_rto"]["value"] == 2

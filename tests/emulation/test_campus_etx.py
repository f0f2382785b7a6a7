"""The campus builder in the guest: a user's own flow over the ETX snapshot (docs/campus.md).

Regime: the default campus (purdue-map, shadowing seed 1), every one of its 32 routers started,
802.11b at a fixed 2 Mbit/s, RTS/CTS off, routes frozen from the medium's link table (routing:
etx), one BIC+SACK flow of 5 s from router 5 to router 23, routers named by number as a user
writes them. The paper suites (studies/p000_campus/tests/test_claims_000.py) run pinned paths with only the
path's routers; this is the other mode, with the whole campus on the air.
"""
from __future__ import annotations

import pytest

from harness.testing.fixtures import run_experiment_text
from topologies import campus as C

pytestmark = pytest.mark.emulation

USER_FLOW = {
    "name": "campus_user_flow",
    "topology": {"builder": "campus", "rate": 2},
    "policy": {"congestion": "bic", "sack": True, "warm_arp": True},
    "flows": [{"src": 5, "dst": 23, "duration": 5}],
    "repetitions": 1,
    "seed": 7,
}


def test_a_user_flow_over_the_etx_snapshot_of_the_whole_campus(tmp_path):
    rec = run_experiment_text(USER_FLOW, tmp_path / "user").ok[0]
    topo = C.build(rate=2)
    assert sorted(rec["network"]["nodes"]) == sorted(topo.node_names())
    path = topo.paths[("r5", "r23")]                    # the snapshot's path, computed here
    links = (rec["medium"].get("summary") or {}).get("links") or {}     # "r5>r3": counters
    sent = {tuple(k.split(">")): v["attempts"] for k, v in links.items() if v.get("attempts")}
    print(f"\nETX path r5 -> r23: {' - '.join(path)}; unicast attempts per link: {sent}")
    for a, b in zip(path, path[1:]):                    # the flow's data went hop by hop ...
        assert sent.get((a, b), 0) > 100, (a, b, sent)
    if len(path) > 2:                                   # ... and never straight to r23
        assert sent.get(("r5", "r23"), 0) == 0, sent
    mbps = rec["flows"][0]["throughput_bps"] / 1e6
    print(f"goodput {mbps:.3f} Mbit/s over {len(path) - 1} hop(s) at 2 Mbit/s")
    assert 0 < mbps < 2.0, f"{mbps:.3f} Mbit/s: a 2 Mbit/s path cannot carry 2 Mbit/s of TCP"

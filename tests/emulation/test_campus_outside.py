"""The campus builder's neighbouring network (``topology.outside``, docs/campus.md) in the guest.

      r5 ~~~> r4            the neighbour (RTS/CTS off), 1.5 Mbit/s of UDP
       :  :
       x   x   hidden: r5 and the senders of 37>25 and 14>25 cannot sense each other,
       :    :  and r5 reaches r25 within the capture threshold of their frames
  r37 --> r25 --> r14 --> r23     the pinned path, one TCP flow first -> last

Regime: the default campus (purdue-map, shadowing seed 1), only the path's routers and the
neighbour's started, 802.11b at a fixed 5.5 Mbit/s, RTS/CTS off, static routes (pinned), one
BIC+SACK flow of 5 s beside the neighbour's UDP. Checked from the medium's per-link counters:
the neighbour's frames stay on its own link, its load gets through, and the hops it hits unseen
see collisions.
"""
from __future__ import annotations

import pytest

from harness.testing.fixtures import run_experiment_text
from topologies import campus as C

pytestmark = pytest.mark.emulation

BESIDE = {
    "name": "campus_outside",
    "topology": {"builder": "campus", "routing": "pinned", "nodes": "path",
                 "path": "37-25-14-23", "rate": 5.5, "outside": "auto"},
    "policy": {"congestion": "bic", "sack": True, "warm_arp": True},
    "flows": [{"src": "first", "dst": "last", "duration": 5},
              {"src": "outside1", "dst": "outside2", "protocol": "udp", "bitrate": "1500K",
               "duration": 5}],
    "repetitions": 1,
    "seed": 7,
}


def test_a_hidden_neighbour_collides_with_the_path_it_cannot_hear(tmp_path):
    rec = run_experiment_text(BESIDE, tmp_path / "beside").ok[0]
    topo = C.build(routing="pinned", nodes="path", path="37-25-14-23", rate=5.5, outside="auto")
    path, (src, dst) = topo.pinned, (topo.aliases["outside1"], topo.aliases["outside2"])
    assert sorted(rec["network"]["nodes"]) == sorted(path + [src, dst])
    links = (rec["medium"].get("summary") or {}).get("links") or {}
    sent = {tuple(k.split(">")): v for k, v in links.items() if v.get("attempts")}
    print(f"\nneighbour {src} > {dst} beside {' - '.join(path)}; links with attempts: "
          + ", ".join(f"{a}>{b} {v['attempts']} ({v.get('collisions', 0)} collided)"
                      for (a, b), v in sent.items()))
    assert all(b in (src, dst) for a, b in sent if a in (src, dst))   # its frames stay its own
    tcp, udp = rec["flows"]
    print(f"path TCP {tcp['throughput_bps'] / 1e3:.0f} kbit/s, neighbour UDP "
          f"{udp['throughput_bps'] / 1e3:.0f} of 1500 kbit/s")
    assert udp["throughput_bps"] > 0.8 * 1.5e6
    assert tcp["throughput_bps"] > 0
    table = C.campus_links(topo.campus, None, C.ETX_PROBE_BYTES)
    hit = C.hidden_hits(table, path, src)
    assert hit, "the rule picked a neighbour that hides from no hop"
    assert sum(sent.get(h, {}).get("collisions", 0) for h in hit) > 0, (hit, sent)

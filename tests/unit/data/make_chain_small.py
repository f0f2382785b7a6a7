"""Regenerate ``chain_small/``: a hand-made result set (as the store writes it) for plot tests.

The numbers are invented, chosen so the trends are known: throughput falls with hops, the
unclamped window is a little worse at 3 hops, RTT grows with hops. One run failed.
Run: python3 tests/unit/data/make_chain_small.py
"""
from __future__ import annotations

import shutil
from pathlib import Path

from harness.experiment import schema
from harness.experiment.store import Store
from harness.experiment.sweep import expand

HERE = Path(__file__).resolve().parent / "chain_small"
TEXT = """\
name: chain_small
topology: {builder: chain, geometry: ns2, phy: b, rate: 2}
policy: {congestion: reno}
flows: [{src: first, dst: last, duration: 20}]
sweep:
  topology.hops: [1, 2, 3]
  policy.cwnd_clamp: [2, null]
repetitions: 3
seed: 11
output: tests/unit/data/chain_small
"""
TPUT = {(1, 2): 1.60, (1, None): 1.62, (2, 2): 0.80, (2, None): 0.76, (3, 2): 0.55, (3, None): 0.45}
JITTER = (-0.02, 0.0, 0.02)
ENV = {"harness_version": "0.1.0", "python": "3.11.2", "host": "Linux-6.1.0-28-amd64",
       "kernel": "6.1.0-28-amd64", "iperf3": "3.12", "where": "vm", "accel": "tcg"}


def main() -> None:
    shutil.rmtree(HERE, ignore_errors=True)
    exp = schema.loads(TEXT)
    runs = expand(exp)
    store = Store(HERE)
    store.prepare(TEXT, runs)
    for run in runs:
        hops, clamp = run.point["topology.hops"], run.point["policy.cwnd_clamp"]
        rec = {"schema": 1, "run_id": run.run_id, "experiment": exp.name, "index": run.index,
               "repetition": run.repetition, "seed": run.seed, "point": run.point,
               "params": run.params, "status": "ok", "error": None, "traceback": None,
               "environment": ENV, "flows": [], "medium": {}, "timing": {
                   "started": "2026-11-21T06:00:00+00:00", "finished": "2026-11-21T06:00:26+00:00",
                   "seconds": 26.0}}
        if (hops, clamp, run.repetition) == (3, 2, 2):
            rec.update(status="failed", error="iperf3 failed: unable to connect to server")
        else:
            mbps = TPUT[(hops, clamp)] + JITTER[run.repetition]
            rtt = 6.0 * hops + (0 if clamp else 4.0 * hops) + run.repetition
            cwnd = clamp or 3 + hops
            rec["flows"] = [{
                "src": "sta1", "dst": f"sta{hops + 1}", "protocol": "TCP", "congestion": "reno",
                "duration": 20.0, "throughput_bps": round(mbps * 1e6), "bytes": round(mbps * 2.5e6),
                "retransmits": 2 * hops + run.repetition,
                "intervals": [{"start": float(t), "end": t + 1.0, "bytes": round(mbps * 1.25e5),
                               "bits_per_second": mbps * 1e6, "retransmits": 0,
                               "snd_cwnd": cwnd * 1448, "rtt_us": int(rtt * 1000)}
                              for t in range(0, 20, 5)],
                "ss": [{"t": t / 2, "cwnd": cwnd, "rtt_ms": rtt} for t in range(4)],
            }]
            rec["medium"] = {"frames": 1000 * hops, "retry_drops": hops - 1,
                             "lag_ms": {"p50": 0.2, "p99": 1.5}}
        store.write(rec)


if __name__ == "__main__":
    main()

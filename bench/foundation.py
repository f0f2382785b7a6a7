#!/usr/bin/env python3
"""Foundation benchmarks: print figures for the README (not a timed test).

  build + tear down of a 32-station topology (natively, or inside a guest)
  one-hop TCP throughput with no medium daemon (plain hwsim: a CPU figure, not airtime)
  and, on hosts without mac80211_hwsim, the QEMU engine's VM image build time, cold (--cold)
  and cached, and its boot-to-ready (median of --boots boots): that engine's image and guest
  (harness.vm.image, harness.vm.machine) were removed after revision d281ef7, so there this
  script now stops with an ImportError; the README keeps the figures it printed then.

Usage: python3 bench/foundation.py [--cold] [--boots N] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.kernel.host import in_vm, native_capable  # noqa: E402

IN_GUEST = r'''
import json, time
from harness.net.network import Network
from harness.net.topo import Topology
from harness.traffic.flows import run_iperf
out = {}
topo = Topology("bench32")
for i in range(32):
    topo.add_station(f"sta{i+1}", (10.0 * i, 0.0))
t0 = time.monotonic()
net = Network(topo, medium="none").start()
out["stations32_start_s"] = round(time.monotonic() - t0, 2)
t0 = time.monotonic()
net.stop()
out["stations32_stop_s"] = round(time.monotonic() - t0, 2)
topo = Topology("pair")
topo.add_station("sta1", (0.0, 0.0)); topo.add_station("sta2", (50.0, 0.0))
with Network(topo, medium="none") as net:
    flow = run_iperf(net, "sta1", "sta2", duration=10)
    out["tcp_1hop_no_medium_mbps"] = round(flow.throughput_mbps, 1)
print("BENCH " + json.dumps(out))
'''


def in_network_figures(runner) -> dict:
    text = runner(IN_GUEST)
    line = next(l for l in text.splitlines() if l.startswith("BENCH "))
    return json.loads(line[6:])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cold", action="store_true", help="also time a cold image build")
    ap.add_argument("--boots", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    fig: dict = {}
    if native_capable() or in_vm():
        import subprocess
        fig["where"] = "native" if not in_vm() else "vm"
        fig.update(in_network_figures(lambda src: subprocess.run(
            [sys.executable, "-c", src], capture_output=True, text=True, check=True).stdout))
    else:
        from harness.vm import image as img
        from harness.vm.dispatch import guest_env, shares_for
        from harness.vm.machine import VM, VMConfig, choose_accel
        fig["where"] = "vm"
        if args.cold:
            with tempfile.TemporaryDirectory(prefix="hx-bench-cache-") as tmp:
                os.environ["HARNESS_CACHE"] = tmp
                t0 = time.monotonic()
                img.ensure_image()
                fig["image_build_cold_s"] = round(time.monotonic() - t0, 1)
            del os.environ["HARNESS_CACHE"]
        img.ensure_image()
        t0 = time.monotonic()
        image = img.ensure_image()
        fig["image_cached_lookup_s"] = round(time.monotonic() - t0, 3)
        fig["image_build_s_as_recorded"] = image.meta["build_seconds"]
        accel = choose_accel(image)
        fig["accel"] = accel
        shares, guest_cwd = shares_for(Path.cwd())
        boots = []
        for _ in range(args.boots):
            with VM(image, VMConfig(accel=accel, shares=shares)) as vm:
                boots.append(vm.boot_seconds)
        fig["boot_to_ready_s_median"] = round(statistics.median(boots), 1)
        fig["boot_to_ready_s_all"] = [round(b, 1) for b in boots]
        with VM(image, VMConfig(accel=accel, shares=shares)) as vm:
            env_prefix = " ".join(f"{k}={v}" for k, v in guest_env().items())
            fig.update(in_network_figures(lambda src: vm.check_output(
                f"cd {guest_cwd} && env {env_prefix} python3 - <<'PYEOF'\n{src}\nPYEOF",
                timeout=600)))
    if args.json:
        print(json.dumps(fig, indent=2))
    else:
        for k, v in fig.items():
            print(f"{k:28} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where packets wait during a run: the transmit queues of wireless interfaces and the medium.

``QueueSampler`` reads, every ``interval`` seconds from a thread of this process, the root
qdisc of every interface a node names in ``queue_interfaces()`` (access points and managed
stations: their radio) over rtnetlink (``harness.kernel.qdisc``), and the medium's per-radio
queue counters (its control socket). No process per sample. It answers which queue holds a
flow's packets (the access point's or the client's; in the kernel or in the medium) and where
packets are dropped.
"""
from __future__ import annotations

import threading
import time
from typing import Any, Dict, List, Optional

from harness.errors import HarnessError
from harness.kernel.qdisc import QdiscReader
from harness.net import Network

#: The medium's per-radio counters a sample keeps.
MEDIUM_KEYS = ("queue_len", "queue_drops", "retry_drops", "enqueued", "acked")


class QueueSampler:
    """Samples queues of ``net`` until ``stop()``; ``t`` counts from ``t0`` (monotonic)."""

    def __init__(self, net: Network, interval: float = 0.5):
        self.net = net
        self.interval = interval
        self.targets = {name: node.queue_interfaces() for name, node in net.nodes.items()
                        if node.queue_interfaces()}
        self.readers = {name: QdiscReader(net[name].netns) for name in self.targets}
        self.samples: List[Dict[str, Any]] = []
        self.error: Optional[BaseException] = None
        self._stop = threading.Event()
        self.t0 = time.monotonic()
        self._thread = threading.Thread(target=self._loop, daemon=True, name="queues")
        self._thread.start()

    def sample(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"t": round(time.monotonic() - self.t0, 3), "qdisc": {}}
        for name, intfs in self.targets.items():
            for intf in intfs:
                stats = self.readers[name].read(intf)
                if stats is not None:
                    out["qdisc"][f"{name}:{intf}"] = stats.to_dict()
        if self.net.medium_handle is not None and self.net.medium_handle.running:
            radios = self.net.medium_handle.stats().get("radios", [])
            out["medium"] = {r.get("node") or r.get("mac"): {k: r.get(k) for k in MEDIUM_KEYS}
                             for r in radios}
        return out

    def _loop(self) -> None:
        while True:
            try:
                self.samples.append(self.sample())
            except (OSError, HarnessError) as err:
                self.error = err
                return
            if self._stop.wait(self.interval):
                return

    def stop(self) -> List[Dict[str, Any]]:
        self._stop.set()
        self._thread.join(10)
        for reader in self.readers.values():
            reader.close()
        if self.error is not None:
            raise HarnessError(f"sampling queues failed: {self.error}")
        return self.samples

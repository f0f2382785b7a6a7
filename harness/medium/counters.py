"""The medium's counters reduced for results: a summary, the delta between two snapshots,
one link's or one radio's counters, the goodput of flows while they all send (pure); and
``sampled``, which reads them from a running daemon while a function runs.
"""
from __future__ import annotations

import threading
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, TypeVar

from harness.errors import HarnessError

T = TypeVar("T")


def summary(stats: Optional[Mapping[str, Any]]) -> Dict[str, Any]:
    """The few numbers a run's result shows first: lag percentiles, per-radio busy
    fraction, queue drops, retry drops (at the limit or at the end of the kernel's rate
    table), the retry limit in force and the tries per frame; per-link
    attempts/successes/collisions/retry drops. Keys a daemon did not report are left out."""
    if not stats:
        return {}
    return {
        "lag_us": stats.get("lag_us"),
        "radios": {r.get("node") or r["mac"]: {k: r.get(k) for k in _RADIO_SUMMARY if k in r}
                   for r in stats.get("radios", [])},
        "links": {f"{l.get('tx_node') or l['tx']}>{l.get('rx_node') or l['rx']}":
                  {k: l.get(k) for k in _LINK_COUNTERS if k in l}
                  for l in stats.get("links", [])},
    }


_RADIO_SUMMARY = ("busy_fraction", "queue_drops", "tx_frames", "acked", "retry_drops",
                  "limit_drops", "table_drops", "nav_resets", "retry_short", "retry_long",
                  "tries", "queue_wait_us")
_RADIO_COUNTERS = ("enqueued", "queue_drops", "tx_frames", "acked", "retry_drops", "limit_drops",
                   "table_drops", "nav_resets", "tx_airtime_us", "queue_wait_us")
#: rts_failures: attempts that ended at the RTS, no CTS; late_collisions: collisions whose every
#: overlapping PPDU began a slot or more after the attempt's own (both absent from older
#: daemons' stats)
_LINK_COUNTERS = ("attempts", "successes", "collisions", "late_collisions", "rts_failures",
                  "retry_drops", "airtime_us", "delivered")


def stats_delta(before: Mapping[str, Any], after: Mapping[str, Any]) -> Dict[str, Any]:
    """Counters of the interval between two stats documents (e.g. around one flow).

    ``busy_fraction`` here is busy time over the interval (from ``busy_us``, see
    ``MediumHandle.annotate``). Lag percentiles cannot be subtracted: ``lag_us`` is
    the cumulative one of ``after``."""
    dt = float(after.get("uptime_s", 0.0)) - float(before.get("uptime_s", 0.0))
    old_r = {r["mac"]: r for r in before.get("radios", [])}
    radios = []
    for r in after.get("radios", []):
        o = old_r.get(r["mac"], {})
        d = dict(r, **{k: r.get(k, 0) - o.get(k, 0) for k in _RADIO_COUNTERS if k in r})
        if isinstance(r.get("tries"), list):
            d["tries"] = hist_delta(o.get("tries") or [], r["tries"])
        if "busy_us" in r:
            busy = (r["busy_us"] - o.get("busy_us", 0.0)) / 1e6
        else:  # mediumd's fraction is over its uptime
            busy = (r.get("busy_fraction", 0.0) * float(after.get("uptime_s", 0.0))
                    - o.get("busy_fraction", 0.0) * float(before.get("uptime_s", 0.0)))
        d["busy_us"] = busy * 1e6
        d["busy_fraction"] = min(1.0, max(0.0, busy / dt)) if dt > 0 else 0.0
        radios.append(d)
    old_l = {(l["tx"], l["rx"]): l for l in before.get("links", [])}
    links = []
    for l in after.get("links", []):
        o = old_l.get((l["tx"], l["rx"]), {})
        links.append(dict(l, **{k: l.get(k, 0) - o.get(k, 0) for k in _LINK_COUNTERS}))
    frames = {k: v - before.get("frames", {}).get(k, 0)
              for k, v in after.get("frames", {}).items()}
    return {"interval_s": dt, "frames": frames, "radios": radios, "links": links,
            "lag_us": after.get("lag_us"), "status_lag_us": after.get("status_lag_us"),
            "handover_lag_us": after.get("handover_lag_us"), "flush_us": after.get("flush_us")}


def hist_delta(before: List[int], after: List[int]) -> List[int]:
    """Bin-by-bin difference of two tries histograms (trailing zeros left out, as mediumd
    writes them)."""
    out = [a - (before[k] if k < len(before) else 0) for k, a in enumerate(after)]
    while out and not out[-1]:
        out.pop()
    return out


def link_stats(stats: Mapping[str, Any], tx: str, rx: str) -> Dict[str, Any]:
    """Counters of the directed link tx -> rx (node names or MACs); zeros if it carried nothing."""
    for link in stats.get("links", []):
        if tx in (link.get("tx"), link.get("tx_node")) and rx in (link.get("rx"), link.get("rx_node")):
            return dict(link)
    return {"tx": tx, "rx": rx, **{k: 0 for k in _LINK_COUNTERS}}


def radio_stats(stats: Mapping[str, Any], node: str) -> Dict[str, Any]:
    for radio in stats.get("radios", []):
        if node in (radio.get("mac"), radio.get("node")):
            return dict(radio)
    raise HarnessError(f"no radio {node!r} in the medium stats: "
                       + ", ".join(str(r.get("node") or r.get("mac")) for r in stats.get("radios", [])))


def _successes(sample: Mapping[str, Any], link: Tuple[str, str]) -> int:
    return sum(int(l.get("successes") or 0) for l in sample.get("links", [])
               if (l.get("tx_node"), l.get("rx_node")) == tuple(link))


def together_goodput_mbps(samples: Sequence[Mapping[str, Any]],
                          first_hops: Sequence[Tuple[str, str]],
                          last_hops: Sequence[Tuple[str, str]],
                          payload_bytes: int) -> Tuple[float, float]:
    """Goodput of several flows over the sampling intervals in which *every* flow's sender got
    frames through its first hop, and the seconds that covers.

    Flows started together need not run together: a hidden sender's connection setup can lose
    its SYN to the other flow for seconds, and meanwhile the other has the air alone (lab 2
    measured totals from 0.8 to 1.7 Mbit/s for the same two hidden senders that way). Goodput
    is the frames acknowledged on the flows' last hops in those intervals, each carrying
    ``payload_bytes``. Only intervals inside a spell of such intervals count, not the first
    and last of a spell: the flows fill those only in part (iperf3's control connection gets
    frames through before the data starts and after it ends; counting them gave 11 s of
    "together" for two 10 s flows and a goodput some 10 % low). Samples are stats documents
    in time order (``uptime_s``)."""
    steps = list(zip(samples, samples[1:]))
    both = [all(_successes(after, l) > _successes(before, l) for l in first_hops)
            for before, after in steps]
    frames, seconds = 0, 0.0
    for i, (before, after) in enumerate(steps):
        if 0 < i < len(steps) - 1 and both[i - 1] and both[i] and both[i + 1]:
            frames += sum(_successes(after, l) - _successes(before, l) for l in last_hops)
            seconds += float(after.get("uptime_s", 0.0)) - float(before.get("uptime_s", 0.0))
    return (frames * payload_bytes * 8 / seconds / 1e6 if seconds > 0 else 0.0), seconds


def last_hops_carry_only_data(paths: Sequence[Sequence[Tuple[str, str]]]) -> bool:
    """Whether ``together_goodput_mbps`` can count the flows' last hops as data: no flow's
    TCP ACKs (its hops reversed) cross another flow's last hop. Crossed flows through one
    access point (lab 4: a download and an upload) fail this: the access point's frames to the
    client are the download's data and the upload's ACKs alike. ``paths``: each flow's
    radio-to-radio hops, sender first."""
    last = {path[-1] for path in paths if path}
    return not any((b, a) in last for path in paths for a, b in path)


def sampled(handle: Any, fn: Callable[[], T], period: float = 0.5) -> Tuple[T, List[Dict[str, Any]]]:
    """``fn()`` while a thread reads the medium's counters every ``period`` seconds.

    Returns fn's result and the readings: the first taken before fn starts, the last after it
    returns, each carrying ``read_monotonic_s``. Only the thread talks to the control socket
    while fn runs."""
    samples = [handle.stats()]
    stop = threading.Event()

    def poll() -> None:
        while not stop.wait(period):
            samples.append(handle.stats())
    thread = threading.Thread(target=poll, name="medium-sampler", daemon=True)
    thread.start()
    try:
        result = fn()
    finally:
        stop.set()
        thread.join()
    samples.append(handle.stats())
    return result, samples


def backlogged_goodput_mbps(samples: Sequence[Mapping[str, Any]], links: Sequence[Tuple[str, str]],
                            payload_bytes: int) -> Tuple[float, float]:
    """Goodput the medium delivered on ``links`` (tx node, rx node) while every sender had a
    backlog, and the seconds that covers.

    Concurrent flows started together do not run together when the air is hostile: a hidden
    sender's handshake can lose its SYN to the other flow for seconds, and meanwhile the first
    flow has the air to itself. So the air is judged only over sampling intervals in which each
    sender was saturated: its medium queue held at least half its limit at both readings (a
    saturated sender keeps its queue full; one still shaking hands holds a frame or two).
    Each acknowledged frame on a link carries ``payload_bytes``."""
    def radio(sample: Mapping[str, Any], node: str) -> Mapping[str, Any]:
        for r in sample["radios"]:
            if r.get("node") == node:
                return r
        raise ValueError(f"no radio of node {node!r} in the medium's stats")

    wanted = set(links)

    def successes(sample: Mapping[str, Any]) -> int:
        return sum(l["successes"] for l in sample["links"]
                   if (l.get("tx_node"), l.get("rx_node")) in wanted)

    def saturated(sample: Mapping[str, Any]) -> bool:
        return all(r["queue_len"] >= r["queue_limit"] / 2
                   for r in (radio(sample, tx) for tx, _ in links))

    frames, seconds = 0, 0.0
    for before, after in zip(samples, samples[1:]):
        if saturated(before) and saturated(after):
            frames += successes(after) - successes(before)
            seconds += after["read_monotonic_s"] - before["read_monotonic_s"]
    return (frames * payload_bytes * 8 / seconds / 1e6 if seconds > 0 else 0.0), seconds


def queue_snapshot(stats: Optional[Mapping[str, Any]]) -> Dict[str, Any]:
    """Per radio, the queue counters a run reads again at its end (``queue_use``): the
    integral of waiting frames and the overflow drops so far."""
    return {(r.get("node") or r["mac"]): {k: r.get(k) for k in ("queue_wait_us", "queue_drops")}
            for r in (stats or {}).get("radios", [])}


def queue_use(start: Mapping[str, Any], end: Mapping[str, Any], seconds: float) -> Dict[str, Any]:
    """Between a ``queue_snapshot`` and the final summary's radios, over ``seconds`` of
    traffic: each radio's mean queue length (frames waiting, the one in service aside, as
    ns-2's interface queue counts), their mean and largest, and all overflow drops."""
    if seconds <= 0 or not start:
        raise HarnessError(f"queue use needs a start snapshot and seconds > 0 (got {seconds})")
    means = {n: ((end[n].get("queue_wait_us") or 0) - (s.get("queue_wait_us") or 0)) / (seconds * 1e6)
             for n, s in start.items() if n in end}
    drops = sum((end[n].get("queue_drops") or 0) - (s.get("queue_drops") or 0)
                for n, s in start.items() if n in end)
    return {"mean_queue": sum(means.values()) / len(means) if means else 0.0,
            "max_queue": max(means.values(), default=0.0), "overflow_drops": drops,
            "per_radio": means}

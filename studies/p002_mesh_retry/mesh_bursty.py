"""Paper 002's reading of fades in bursts (studies/p002_mesh_retry/experiments/002_bursty_hops.yaml): the 5-hop
chain of the sweep with every hop's mean SNR near what 54 Mbit/s needs and Rayleigh
fades that drift with a coherence time (``medium.fading_coherence``), each frame tried to the
retry limit in one series. It tests the reading that the paper's decline at large limits needs
losses in bursts: a hop that fades holds its head frame for up to R tries, a sudden delay that
the sender's RTO has not learned, where independent losses (``mesh_lossy``) keep the delay long
all the time and the RTO follows it. It is not the model.

The table and verdicts are ``mesh_lossy``'s, read per hop SNR instead of per hop loss.

Imports only the paper-analysis helpers and ``mesh_lossy`` (which reads the records with
``paper002``'s helpers).
"""
from __future__ import annotations

from typing import Any, List, Mapping, Optional, Sequence

from harness.analysis import records as A
from studies.p002_mesh_retry import mesh_lossy as L

#: The experiment's name (``harness report`` and the page find its records by it).
NAME = "paper002_bursty_hops"


def hop_snr(rec: Mapping[str, Any]) -> Optional[float]:
    """The mean SNR (dB) the run set on its hops (one value for all of them) under fades that
    drift (a coherence time set), or None: not one of this reading's runs."""
    if not A.param(rec, "medium.fading_coherence"):
        return None
    return L.link_value(rec, "snr")


def coherence_ms(records: Sequence[Mapping[str, Any]]) -> List[float]:
    """The coherence times (ms) the reading's runs used."""
    return sorted({float(A.param(r, "medium.fading_coherence")) for r in records
                   if hop_snr(r) is not None})


#: This reading's channel: one mean SNR on every hop, fades drifting.
BURSTY = L.Channel(hop_snr, "hop SNR, mean (dB)", lambda snr: f"{snr:g}",
                   lambda snr: f"hop SNR {snr:g} dB")


def section(records: Sequence[Mapping[str, Any]], heading: str = "##") -> List[str]:
    """The page's (or a report's) section on fades in bursts (``records``: every stored run)."""
    if not L.groups(records, BURSTY):
        return []
    times = ", ".join(f"{t:g}" for t in coherence_ms(records))
    return [f"{heading} Fades in bursts (a test of one reading)", "",
            f"`{NAME}` (5 hops, cubic, 30 s): every chain hop's mean SNR set from about the "
            "21.2 dB that 54 Mbit/s needs for 10 % PER to 14 dB above it "
            "(`medium.links[].snr`), Rayleigh "
            f"fades drifting with a coherence time of {times} ms (`medium.fading_coherence`), "
            "every frame tried to the limit in one series. Where independent losses keep the "
            "delay long all the time, a fade comes and goes: does a large limit now hold a "
            "fading hop's frames long enough for the sender's timeouts to fire, the paper's "
            "decline? Columns as in the lossy-hops table.", ""] \
        + L.rows(records, BURSTY) + [""] + L.verdict_lines(records, BURSTY) + [""]

"""Paper 002's fades-in-bursts reading from synthetic records (the reader and the section, not a
measurement)."""
from __future__ import annotations

from typing import Any, Dict

from studies.p002_mesh_retry import mesh_bursty as B

from .test_mesh_lossy import lossy


def bursty(i: int, snr: float, limit: int, mbps: float, coherence: float = 160.0
           ) -> Dict[str, Any]:
    rec = lossy(i, 0.0, limit, mbps, [0, 1, 1], [100, 20, 5, 1])
    rec["params"]["medium"] = {"fading": "rayleigh", "fading_coherence": coherence,
                               "links": [{"a": f"sta{k}", "b": f"sta{k + 1}", "snr": snr}
                                         for k in range(1, 6)]}
    return rec


def test_the_reader_takes_one_hop_snr_under_drifting_fades():
    assert B.hop_snr(bursty(0, 20, 7, 2.0)) == 20.0
    per_frame = bursty(1, 20, 7, 2.0)
    del per_frame["params"]["medium"]["fading_coherence"]
    assert B.hop_snr(per_frame) is None     # fades drawn per frame: not this reading's run
    mixed = bursty(2, 20, 7, 2.0)
    mixed["params"]["medium"]["links"][0]["snr"] = 25
    assert B.hop_snr(mixed) is None         # not one SNR on every hop
    assert B.hop_snr(lossy(3, 0.1, 7, 2.0, [0], [1])) is None   # the lossy-hops runs
    assert B.coherence_ms([bursty(4, 25, 3, 1.0, 50.0), per_frame, bursty(5, 20, 3, 1.0)]) \
        == [50.0, 160.0]


def test_the_section_reads_each_curve_by_hop_snr():
    recs = [bursty(i, snr, limit, mbps) for i, (snr, limit, mbps) in enumerate(
        [(20, 3, 1.0), (20, 9, 2.0), (20, 31, 1.2), (25, 3, 3.0), (25, 9, 3.2), (25, 31, 3.4)])]
    lines = B.section(recs)
    assert lines[0] == "## Fades in bursts (a test of one reading)"
    assert "coherence time of 160 ms" in lines[2]
    table = [line for line in lines if line.startswith(("| 20 |", "| 25 |"))]
    assert [line.split(" | ")[1] for line in table] == ["3", "9", "31"] * 2
    verdicts = [line for line in lines if line.startswith("- hop SNR")]
    assert verdicts[0].startswith("- hop SNR 20 dB: peak at R = 9 (2.00 Mbit/s)")
    assert "-40.0% from it" in verdicts[0] and verdicts[0].endswith("concave (interior peak, "
                                                                    "both ends below)")
    assert "peak at R = 31" in verdicts[1] and verdicts[1].endswith("not concave")
    collapsed = [bursty(i, 20, limit, mbps) for i, (limit, mbps) in enumerate(
        [(3, 0.01), (9, 0.03), (31, 0.02)])]
    line = next(v for v in B.section(collapsed) if v.startswith("- hop SNR"))
    assert line.endswith("concave (interior peak, both ends below) (every limit under 1 Mbit/s: "
                         "a collapsed path, no shape)")
    assert B.section([]) == [] and B.section([lossy(9, 0.1, 7, 2.0, [0], [1])]) == []

"""Paper 000's detection-threshold reading (studies/p000_campus/map_sensitivity.py): the campus
with radios that detect from higher up, and the verdict over layouts. The full sweep reads the
medium's link table of the whole campus (about a minute); these check its parts."""
from __future__ import annotations

from studies.p000_campus import map_sensitivity as S
from topologies import campus as C


def test_a_higher_threshold_replaces_the_files_and_drops_its_cs_threshold():
    place = C.load_campus()
    assert C.with_sensitivity(place, None) is place
    higher = C.with_sensitivity(place, -88)
    assert higher.propagation["rx_sensitivity"] == -88.0
    medium = higher.medium(1)
    assert medium["rx_sensitivity"] == -88.0 and "cs_threshold" not in medium
    assert place.propagation["rx_sensitivity"] == -95      # the file's campus is untouched


def layout(seed, threshold, decode_2, exposed):
    return S.Layout(seed, threshold, decode_2, {"1-16-29-30": exposed}, {"1-16-29-30": 0.9})


def test_the_reading_gains_ground_only_where_the_link_fact_holds():
    base = [layout(1, None, True, 2), layout(2, None, True, 3)]
    broken = base + [layout(1, -90.0, False, 4), layout(2, -90.0, True, 3)]
    assert S.verdict(broken).startswith("**Verdict:** not explained")
    holding = base + [layout(2, -92.0, True, 4)]
    assert "seed 2 at -92 dBm" in S.verdict(holding)
    lines = S.section_lines(broken)
    assert "| file's (-95) | yes / yes | 2 / 0.90 |" in lines
    assert "| -90 | no / yes | 4 / 0.90 |" in lines

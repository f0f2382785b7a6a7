"""Which access point serves a station, and the medium a topology runs on (pure).

Checked before anything starts (``Network.start`` and, for experiment files, validation): a
managed station needs an access point on its channel whose beacons it can decode and which
can decode it, at the mean received power of the medium's propagation model
(``harness.medium.propagation``: the same formulas as the medium) with the topology's walls.
Without a medium every hwsim radio hears every other, so any access point on the channel
serves.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import List, Optional

from harness.errors import HarnessError
from harness.kernel import wireless
from harness.medium import propagation
from harness.medium.spec import MediumSpec, Wall
from harness.net.topo import AccessPointSpec, StationSpec, Topology


def medium_for(topo: Topology, spec: Optional[MediumSpec]) -> Optional[MediumSpec]:
    """The medium a network of ``topo`` runs: ``spec`` with the topology's walls added (they
    need ``propagation: indoor``); None without a medium."""
    if spec is None or not topo.walls:
        return spec
    if spec.propagation != "indoor":
        raise HarnessError(f"topology {topo.name!r} has {len(topo.walls)} wall(s): they need "
                           f"medium propagation: indoor (got {spec.propagation})")
    walls = [Wall(w.x1, w.y1, w.x2, w.y2, w.loss) for w in topo.walls]
    return dataclasses.replace(spec, walls=list(spec.walls) + walls)


@dataclass
class Reception:
    """Mean received powers between a station and an access point, and what they allow."""

    ap: str
    distance_m: float
    walls: int
    down_dbm: float           # at the station
    up_dbm: float             # at the access point
    sensitivity_sta_dbm: float
    sensitivity_ap_dbm: float
    snr_db: float             # the weaker direction, over the noise floor

    @property
    def in_range(self) -> bool:
        return self.down_dbm >= self.sensitivity_sta_dbm and self.up_dbm >= self.sensitivity_ap_dbm

    def text(self) -> str:
        return (f"{self.ap} at {self.distance_m:.1f} m through {self.walls} wall(s): "
                f"{self.down_dbm:.1f} dBm at the station (sensitivity "
                f"{self.sensitivity_sta_dbm:.1f}), {self.up_dbm:.1f} dBm at the access point "
                f"(sensitivity {self.sensitivity_ap_dbm:.1f}), SNR {self.snr_db:.1f} dB")


def reception(sta: StationSpec, ap: AccessPointSpec, spec: MediumSpec) -> Reception:
    freq = wireless.channel_freq(ap.channel)
    a, b = ap.position, sta.position
    down = propagation.rx_power_dbm(spec, freq, a, b, ap.txpower_dbm)
    up = propagation.rx_power_dbm(spec, freq, b, a, sta.txpower_dbm)
    noise = propagation.noise_floor_dbm(sta.phy, spec.noise_figure)
    dist = sum((x - y) ** 2 for x, y in zip(a, b)) ** 0.5
    crossed = len(propagation.walls_crossed(a, b, spec.walls)) if spec.propagation == "indoor" else 0
    return Reception(ap.name, dist, crossed, down, up,
                     propagation.rx_sensitivity_dbm(spec, freq, sta.txpower_dbm, b[2]),
                     propagation.rx_sensitivity_dbm(spec, freq, ap.txpower_dbm, a[2]),
                     min(down, up) - noise)


def candidates(topo: Topology, station: str) -> List[AccessPointSpec]:
    """The access points a station may join: the one it is linked to, else those on its
    channel."""
    sta = topo.stations[station]
    declared = topo.association(station)
    if declared is not None:
        ap = topo.access_points[declared]
        if ap.channel != sta.channel:
            raise HarnessError(f"station {station!r} (channel {sta.channel}) is linked to "
                               f"access point {declared!r} on channel {ap.channel}: give the "
                               "station the access point's channel")
        return [ap]
    return [ap for ap in topo.access_points.values() if ap.channel == sta.channel]


def serving_ap(topo: Topology, station: str, spec: Optional[MediumSpec]) -> str:
    """The access point a managed station joins: among ``candidates``, the strongest one in
    range (the first one without a medium). One clear error if there is none."""
    sta = topo.stations[station]
    aps = candidates(topo, station)
    if not aps:
        raise HarnessError(f"station {station!r} has no access point on channel {sta.channel}"
                           + (": add_access_point() and link the station to it"
                              if not topo.access_points else
                              f" (access points: {', '.join(topo.access_points)})"))
    if spec is None:
        return aps[0].name
    seen = [reception(sta, ap, spec) for ap in aps]
    ok = [r for r in seen if r.in_range]
    if not ok:
        raise HarnessError(f"station {station!r} has no access point in range: "
                           + "; ".join(r.text() for r in seen))
    return max(ok, key=lambda r: r.snr_db).ap

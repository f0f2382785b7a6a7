"""The medium's link table for a set of radios, without running traffic.

``link_table(rows, spec)`` writes the mediumd config these radios would run with
(``harness.medium.config``) and asks ``mediumsim --links`` (``mediumd/core/links.c``) what one
frame does on every directed link when nothing else is on the air: mean received power
(shadowing included), SNR, the probability it is sensed, and per rate the probability it is
decoded, averaged over the per-frame fading. So routing (ETX), checks on a geometry and floor
plans read the same physics the daemon runs, computed by the same C code.

Results are cached per process and on disk (by a hash of the config text, the frame length and
the medium's sources), so building the same topology again costs no subprocess.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterator, List, Mapping, Sequence, Tuple

from harness.errors import HarnessError
from harness.medium.build import ensure_mediumd, source_hash
from harness.medium.config import config_text
from harness.medium.spec import MediumSpec
from harness.paths import cache_dir

#: Bytes of a 1500-byte IP packet on the air in an IBSS: IP + LLC/SNAP 8 + QoS header 26 + FCS 4
#: (bench/medium_fidelity.py); the frames a full-sized TCP segment makes.
DATA_FRAME_BYTES = 1538


@dataclass(frozen=True)
class Link:
    """One directed link of the table."""

    tx: str
    rx: str
    mean_dbm: float
    snr_db: float
    sensed: float                          # P(rx senses a frame of tx busy)
    delivery: Dict[float, float]           # rate (Mbit/s) -> P(one frame decoded)

    def at(self, rate: float) -> float:
        """Delivery ratio of one frame at ``rate`` Mbit/s (0 if the PHY has no such rate)."""
        return self.delivery.get(float(rate), 0.0)


@dataclass
class LinkTable:
    """Every directed link (tx, rx) that carries power, and each radio's thresholds."""

    frame_bytes: int
    radios: Dict[str, Dict[str, float]]
    links: Dict[Tuple[str, str], Link] = field(default_factory=dict)

    def get(self, tx: str, rx: str) -> Link:
        """The link tx -> rx; a link that carries no power delivers and senses nothing."""
        return self.links.get((tx, rx)) or Link(tx, rx, float("-inf"), float("-inf"), 0.0, {})

    def delivery(self, tx: str, rx: str, rate: float) -> float:
        return self.get(tx, rx).at(rate)

    def __iter__(self) -> Iterator[Link]:
        return iter(self.links.values())

    def names(self) -> List[str]:
        return list(self.radios)


_MEMO: Dict[str, LinkTable] = {}


def link_table(rows: Sequence[Mapping[str, Any]], spec: MediumSpec,
               frame_bytes: int = DATA_FRAME_BYTES, seed: int = 0) -> LinkTable:
    """The link table of these radios (dicts as ``Network.radio_table()`` gives: ``node``,
    ``mac``, ``position``, ``phy_mode``, ``txpower_dbm``, ``antenna_gain_dbi``, ...) under
    ``spec``. Radios are named by their node (``index`` 0). ``seed`` matters only for static
    shadowing without a ``shadowing_seed`` of its own."""
    text = config_text(list(rows), spec, seed)
    key = hashlib.sha256(f"{source_hash()}\0{frame_bytes}\0{text}".encode()).hexdigest()[:24]
    if key not in _MEMO:
        path = cache_dir() / "link-tables" / f"{key}.json"
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            data = _run_mediumsim(text, frame_bytes)
            _store(path, data)
        _MEMO[key] = _parse(data, frame_bytes)
    return _MEMO[key]


def _run_mediumsim(text: str, frame_bytes: int) -> Dict[str, Any]:
    binary = ensure_mediumd("mediumsim")
    with tempfile.TemporaryDirectory(prefix="hx-links-") as tmp:
        conf = Path(tmp) / "medium.conf"
        conf.write_text(text)
        proc = subprocess.run([str(binary), str(conf), "--links", "--len", str(frame_bytes)],
                              capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise HarnessError(f"mediumsim --links failed: {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout)


def _store(path: Path, data: Dict[str, Any]) -> None:
    """Write atomically (another process may read the same entry)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w") as fh:
        json.dump(data, fh)
    os.replace(tmp, path)


def _parse(data: Mapping[str, Any], frame_bytes: int) -> LinkTable:
    radios = {r["name"]: {k: float(v) for k, v in r.items() if k != "name"}
              for r in data["radios"]}
    links = [Link(row["tx"], row["rx"], float(row["mean_dbm"]), float(row["snr_db"]),
                  float(row["sensed"]), {float(rate): float(p) for rate, p in row["delivery"].items()})
             for row in data["links"]]
    return LinkTable(frame_bytes, radios, {(link.tx, link.rx): link for link in links})

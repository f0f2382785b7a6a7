"""The medium daemon's lifetime for a ``Network``.

``start_for(network)`` builds mediumd if needed, writes its config into a run directory,
starts it in the root namespace and returns once it answers on its control socket (it
registers with hwsim before it serves the socket), failing loudly if it exits.
``MediumHandle.stop()`` sends SIGTERM, reads the final counters from ``--stats-out``, and
sends SIGKILL if needed. The ``Network`` keeps its handle (``medium_handle``), also after
``stop()``, so the final counters stay readable.

A run directory the harness made (``hx-<tag>-medium-*`` in the temporary directory) is claimed
by the harness process (``cleanup.claim``) until ``stop()`` removes it, or keeps it on purpose
(a failed daemon's log, a capture). This module registers the clean-up of the directories
whose owner was killed (``harness.kernel.cleanup``).
"""
from __future__ import annotations

import contextlib
import ctypes
import json
import os
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Union

from harness.errors import HarnessError
from harness.kernel import cleanup, cpu_layout, naming
from harness.kernel.host import in_virtual_time
from harness.medium.config import (
    _radio_label,
    _radio_rows,
    config_text,
    medium_seed,
    run_trajectories,
)
from harness.medium.control import MediumControl, MediumControlError
from harness.medium.mobility import record
from harness.medium.spec import MediumSpec, spec_of

#: How long mediumd may take to register and answer its control socket.
START_TIMEOUT = 20.0
STOP_TIMEOUT = 10.0


# -- the daemon --------------------------------------------------------------------------
class MediumHandle:
    """A running mediumd: its control connection, its files, and how to stop it."""

    def __init__(self, proc: subprocess.Popen, run_dir: Path, *, keep_dir: bool,
                 spec: MediumSpec, names: Mapping[str, str]):
        self.proc = proc
        self.run_dir = run_dir
        self.config_path = run_dir / "medium.conf"
        self.control_path = run_dir / "control.sock"
        self.stats_path = run_dir / "stats.json"
        self.log_path = run_dir / "mediumd.log"
        self.pcap_path: Optional[Path] = None
        self.spec = spec
        self.names = dict(names)          # MAC -> radio label (node name)
        self.control = MediumControl(str(self.control_path), timeout=10.0)
        self.final_stats: Optional[Dict[str, Any]] = None
        self.exit_code: Optional[int] = None
        #: the nodes' trajectories as the run record keeps them (mobility.record.entry);
        #: None when no node moves
        self.mobility: Optional[Dict[str, Any]] = None
        self._keep_dir = keep_dir
        self._lock = threading.Lock()

    @property
    def running(self) -> bool:
        return self.proc.poll() is None and self.exit_code is None

    def stats(self) -> Dict[str, Any]:
        """Counters now (control socket), or the final ones once stopped; radios and links
        carry node names (``node``, ``tx_node``, ``rx_node``) beside their MACs."""
        if self.final_stats is not None:
            return self.final_stats
        if not self.running:
            raise HarnessError(f"mediumd exited (code {self.proc.poll()}): "
                               f"{self.log_tail() or 'no output'}")
        return self.annotate(self.control.stats(), time.monotonic())

    def annotate(self, stats: Dict[str, Any], mono_s: float) -> Dict[str, Any]:
        """Node names beside MACs, and each radio's busy time (``busy_us``).

        mediumd reports ``busy_fraction`` over the core's span (first event to now, about its
        uptime: mediumd/core c89f37e) but not the busy time itself; busy time = fraction x
        ``uptime_s`` (a few ms off: the core's span starts at its first event), so intervals
        can be subtracted (``stats_delta``). A daemon that reports ``busy_us`` is used as is.
        ``mono_s`` (CLOCK_MONOTONIC when the stats were read) is kept for reference."""
        uptime = float(stats.get("uptime_s", 0.0))
        stats.setdefault("read_monotonic_s", mono_s)
        for radio in stats.get("radios", []):
            radio.setdefault("node", self.names.get(radio.get("mac", "").lower()))
            if "busy_us" not in radio and "busy_fraction" in radio:
                radio["busy_us"] = radio["busy_fraction"] * uptime * 1e6
        for link in stats.get("links", []):
            link.setdefault("tx_node", self.names.get(str(link.get("tx", "")).lower()))
            link.setdefault("rx_node", self.names.get(str(link.get("rx", "")).lower()))
        return stats

    def moving(self, node: str) -> bool:
        """Whether ``node`` follows a trajectory in this medium."""
        return self.mobility is not None and node in self.mobility["nodes"]

    def start_mobility(self) -> None:
        """Make now the trajectories' time 0 (they ran from mediumd's start): the harness
        does it as the flows start, so that motion and traffic share their time axis; the
        record notes when (``started_at_uptime_s``, mediumd's uptime then)."""
        if self.mobility is not None:
            self.mobility["started_at_uptime_s"] = round(self.control.start_mobility(), 6)

    def log_tail(self, chars: int = 2000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:].strip()
        except OSError:
            return ""

    def stop(self) -> Optional[Dict[str, Any]]:
        """SIGTERM; collect the final counters mediumd writes; SIGKILL after a timeout.
        Idempotent. Returns the final stats (None if the daemon could not write them)."""
        with self._lock:
            if self.exit_code is not None:
                return self.final_stats
            self.control.close()
            if self.proc.poll() is None:
                try:
                    self.proc.send_signal(signal.SIGTERM)
                    self.proc.wait(STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait(5)
            self.exit_code = self.proc.returncode
            exited_at = time.monotonic()
            with contextlib.suppress(OSError, ValueError):  # none written: final_stats stays None
                self.final_stats = self.annotate(json.loads(self.stats_path.read_text()),
                                                 exited_at)
            log = self.log_tail()
            if not self._keep_dir and self.exit_code == 0:
                shutil.rmtree(self.run_dir, ignore_errors=True)
            else:
                cleanup.release(self.run_dir)  # kept on purpose: not a leftover
        if self.exit_code != 0:
            raise HarnessError(f"mediumd ended with exit code {self.exit_code} "
                               f"(files kept in {self.run_dir}): {log or 'no output'}")
        return self.final_stats


def handle_for(network: object) -> Optional[MediumHandle]:
    """The medium of a Network (``network.medium_handle``): running, or stopped with its final
    counters; None if it ran without a medium."""
    handle = getattr(network, "medium_handle", None)
    return handle if isinstance(handle, MediumHandle) else None


def stats_for(network: object) -> Optional[Dict[str, Any]]:
    """The medium counters of a Network: live while it runs, final after ``stop()``;
    None if it ran without a medium."""
    handle = handle_for(network)
    return handle.stats() if handle is not None else None


def _set_pdeathsig() -> None:
    """In the child: die with the harness (a registered orphan medium blocks the next run)."""
    with contextlib.suppress(Exception):  # best effort; `harness clean` is the fallback
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
    os.setsid()


_BINARY: Optional[Path] = None


def mediumd_binary() -> Path:
    """The mediumd this process uses: built once (cached by source hash), then kept, so a
    source edit during a long session does not rebuild (minutes under TCG) between runs."""
    global _BINARY
    if _BINARY is None or not _BINARY.exists():
        from harness.medium.build import ensure_mediumd
        _BINARY = ensure_mediumd()
    return _BINARY


def start_for(network: Any, spec: Optional[MediumSpec] = None) -> Optional[MediumHandle]:
    """Start mediumd for a Network whose radios exist (called by ``Network._start_medium``,
    which passes its medium with the topology's walls as ``spec``).

    Returns None when the network's ``medium`` says no medium (e.g. ``enabled: false``).
    """
    if spec is None:
        spec = spec_of(getattr(network, "medium", None))
    if spec is None:
        return None
    binary = mediumd_binary()
    tag = getattr(network, "tag", "0000")
    seed = getattr(network, "seed", 0)
    trajectories = run_trajectories(network, spec, seed)
    text = config_text(network, spec, seed, trajectories)
    handle = launch(binary, text, spec, tag=tag, names={
        r["mac"].lower(): _radio_label(r) for r in _radio_rows(network)})
    if trajectories and spec.mobility is not None:
        handle.mobility = record.entry(trajectories, spec.mobility.model,
                                       spec.mobility.motion_seed(medium_seed(spec, seed)),
                                       spec.mobility.duration)
    return handle


def start_mobility(network: object) -> None:
    """Trajectories' time 0 is now, in the medium of ``network`` (if any node moves)."""
    handle = handle_for(network)
    if handle is not None and handle.running:
        handle.start_mobility()


def launch(binary: Union[str, Path], text: str, spec: MediumSpec, *, tag: str = "0000",
           names: Optional[Mapping[str, str]] = None) -> MediumHandle:
    """Write the config, start mediumd, wait until it serves its control socket."""
    if spec.spin_us and in_virtual_time():
        raise HarnessError(
            f"medium spin_us: {spec.spin_us} busy-waits, and in a UML guest's virtual time "
            "a busy-wait stops the clock (the guest hangs): allowed here only null or 0 "
            "(the medium's lag in virtual time is already its processing order; "
            "docs/engine.md)")
    if spec.run_dir:
        run_dir = Path(spec.run_dir)
        run_dir.mkdir(parents=True, exist_ok=True)
    else:
        run_dir = cleanup.new_run_dir(f"{naming.PREFIX}{tag}-medium-")
    (run_dir / "medium.conf").write_text(text)
    for stale in ("control.sock", "stats.json"):
        (run_dir / stale).unlink(missing_ok=True)
    argv = [str(binary), "-c", str(run_dir / "medium.conf"),
            "--control", str(run_dir / "control.sock"),
            "--stats-out", str(run_dir / "stats.json"), "--log-level", spec.log_level]
    if spec.spin_us:
        argv += ["--spin-us", str(int(spec.spin_us))]
    pcap: Optional[Path] = None
    if spec.pcap:
        pcap = run_dir / "medium.pcap" if spec.pcap is True else Path(str(spec.pcap))
        argv += ["--pcap", str(pcap)]
    env = dict(os.environ, **{naming.RUN_ENV: tag})
    main_thread = threading.current_thread() is threading.main_thread()
    with open(run_dir / "mediumd.log", "wb") as log:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, env=env,
                                preexec_fn=_set_pdeathsig if main_thread else os.setsid)
    cpu_layout.pin_medium(proc.pid)
    handle = MediumHandle(proc, run_dir, keep_dir=bool(spec.run_dir or spec.pcap),
                          spec=spec, names=names or {})
    handle.pcap_path = pcap
    try:
        _wait_ready(handle)
    except BaseException:
        with contextlib.suppress(HarnessError):
            handle.stop()
        raise
    return handle


def _wait_ready(handle: MediumHandle) -> None:
    """mediumd registers with hwsim before serving its socket: a ping answered = registered."""
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        code = handle.proc.poll()
        if code is not None:
            handle._keep_dir = True
            raise HarnessError(f"mediumd exited at start (code {code}); config and log in "
                               f"{handle.run_dir}: {handle.log_tail() or 'no output'}")
        if handle.control_path.exists():
            try:
                handle.control.ping()
                return
            except MediumControlError:
                handle.control.close()
        if time.monotonic() > deadline:
            handle._keep_dir = True
            raise HarnessError(f"mediumd did not answer on {handle.control_path} within "
                               f"{START_TIMEOUT:g} s: {handle.log_tail() or 'no output'}")
        time.sleep(0.05)


# -- clean-up of killed runs (registered with harness.kernel.cleanup) -----------------------
_clean_run_dirs, _run_dirs_left = cleanup.register_run_dirs(
    "medium run directories", lambda tag: naming.daemon_dir_pattern(tag, "medium"),
    "medium run directory")

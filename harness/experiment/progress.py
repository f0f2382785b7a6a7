"""Progress with ETA on stderr: a redrawn bar on a terminal, one line per step otherwise.

Sweeps take hours; the user needs to know how far along and how long is left. Logs and CI
capture stderr to files, where carriage-return redraws are noise, so without a TTY each
finished step prints one plain line instead.
"""
from __future__ import annotations

import sys
import threading
import time
from typing import Callable, Dict, Optional, TextIO

BAR_WIDTH = 24


def format_duration(seconds: Optional[float]) -> str:
    """``3725 -> '1h02m'``, ``75 -> '1m15s'``, ``None -> '?'``."""
    if seconds is None or seconds != seconds or seconds < 0:
        return "?"
    seconds = int(round(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}h{(seconds % 3600) // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


class Progress:
    """Counts finished steps of a known total and estimates the time left.

    ``estimate`` (seconds per step) is used until a step has been timed; steps marked
    ``skipped`` (already done on resume) count as done but do not affect the rate.
    With ``workers`` > 1 several steps run at once (``start`` each, ``finish`` each by name)
    and the time left is divided among the workers.
    """

    def __init__(self, total: int, *, stream: Optional[TextIO] = None,
                 tty: Optional[bool] = None, estimate: Optional[float] = None,
                 clock: Callable[[], float] = time.monotonic, label: str = "run",
                 workers: int = 1, clock_name: str = ""):
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.estimate = estimate
        self.clock = clock
        self.label = label
        self.workers = max(1, workers)
        #: Said after every duration when the clock is not the host's (" of guest time").
        self.clock_name = clock_name
        self.done = 0
        self.timed = 0
        self.busy_seconds = 0.0
        #: Steps under way: what -> when it started (in start order).
        self.running: Dict[str, float] = {}
        self._line_len = 0
        #: Steps of a parallel sweep start in worker threads: one writer at a time.
        self._lock = threading.RLock()

    @property
    def current(self) -> str:
        """The step started last of those still running ("" when none is)."""
        return next(reversed(self.running), "")

    def eta(self) -> Optional[float]:
        """Seconds left: mean of timed steps (or the estimate) times the steps remaining."""
        per_step = self.busy_seconds / self.timed if self.timed else self.estimate
        if per_step is None:
            return None
        return per_step * (self.total - self.done) / self.workers

    def skip(self, count: int = 1) -> None:
        with self._lock:
            self.done += count
            self._draw()

    def start(self, what: str) -> None:
        """A step begins (shown on the bar; the line mode stays quiet until it ends)."""
        with self._lock:
            self.running[what] = self.clock()
            self._draw()

    def finish(self, status: str = "ok", what: Optional[str] = None) -> float:
        """Step ``what`` (default: the one started last) ended with ``status``; returns its
        duration."""
        with self._lock:
            what = self.current if what is None else what
            started = self.running.pop(what, None)
            elapsed = self.clock() - started if started is not None else 0.0
            self.done += 1
            self.timed += 1
            self.busy_seconds += elapsed
            if self.tty:
                self._draw()
            else:
                self._write(f"[{self.done}/{self.total}] {status} {what} "
                            f"({format_duration(elapsed)}; ETA {format_duration(self.eta())}"
                            f"{self.clock_name})\n")
            return elapsed

    def message(self, text: str) -> None:
        """A line of its own (the bar is redrawn below it)."""
        with self._lock:
            if self.tty:
                self._clear()
            self._write(text.rstrip("\n") + "\n")
            self._draw()

    def close(self) -> None:
        with self._lock:
            if self.tty and self._line_len:
                self._write("\n")
                self._line_len = 0

    def bar(self) -> str:
        """The one-line bar: ``[#####-----] 12/40  30% ETA 4m12s  hops=3 rep=0``."""
        frac = self.done / self.total if self.total else 1.0
        filled = int(round(frac * BAR_WIDTH))
        running = ""
        if self.running:
            oldest, since = next(iter(self.running.items()))
            others = f" (+{len(self.running) - 1} more)" if len(self.running) > 1 else ""
            running = f" {format_duration(self.clock() - since)} {oldest}{others}"
        return (f"[{'#' * filled}{'-' * (BAR_WIDTH - filled)}] {self.done}/{self.total} "
                f"{frac * 100:3.0f}% ETA {format_duration(self.eta())}{self.clock_name}{running}")

    def _draw(self) -> None:
        if not self.tty:
            return
        text = self.bar()
        pad = max(0, self._line_len - len(text))
        self._write("\r" + text + " " * pad)
        self._line_len = len(text)

    def _clear(self) -> None:
        if self._line_len:
            self._write("\r" + " " * self._line_len + "\r")
            self._line_len = 0

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()

"""Progress with ETA on stderr: a redrawn bar on a terminal, one line per step otherwise.

Sweeps take hours; the user needs to know how far along and how long is left. Logs and CI
capture stderr to files, where carriage-return redraws are noise, so without a TTY each
finished step prints one plain line instead.
"""
from __future__ import annotations

import sys
import time
from typing import Callable, Optional, TextIO

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
    """

    def __init__(self, total: int, *, stream: Optional[TextIO] = None,
                 tty: Optional[bool] = None, estimate: Optional[float] = None,
                 clock: Callable[[], float] = time.monotonic, label: str = "run"):
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.estimate = estimate
        self.clock = clock
        self.label = label
        self.done = 0
        self.timed = 0
        self.busy_seconds = 0.0
        self.current = ""
        self._started_at: Optional[float] = None
        self._line_len = 0

    def eta(self) -> Optional[float]:
        """Seconds left: mean of timed steps (or the estimate) times the steps remaining."""
        per_step = self.busy_seconds / self.timed if self.timed else self.estimate
        if per_step is None:
            return None
        return per_step * (self.total - self.done)

    def skip(self, count: int = 1) -> None:
        self.done += count
        self._draw()

    def start(self, what: str) -> None:
        """A step begins (shown on the bar; the line mode stays quiet until it ends)."""
        self.current = what
        self._started_at = self.clock()
        self._draw()

    def finish(self, status: str = "ok") -> float:
        """The current step ended with ``status``; returns its duration."""
        elapsed = self.clock() - self._started_at if self._started_at is not None else 0.0
        self._started_at = None
        self.done += 1
        self.timed += 1
        self.busy_seconds += elapsed
        if self.tty:
            self._draw()
        else:
            self._write(f"[{self.done}/{self.total}] {status} {self.current} "
                        f"({format_duration(elapsed)}; ETA {format_duration(self.eta())})\n")
        return elapsed

    def message(self, text: str) -> None:
        """A line of its own (the bar is redrawn below it)."""
        if self.tty:
            self._clear()
        self._write(text.rstrip("\n") + "\n")
        self._draw()

    def close(self) -> None:
        if self.tty and self._line_len:
            self._write("\n")
            self._line_len = 0

    def bar(self) -> str:
        """The one-line bar: ``[#####-----] 12/40  30% ETA 4m12s  hops=3 rep=0``."""
        frac = self.done / self.total if self.total else 1.0
        filled = int(round(frac * BAR_WIDTH))
        running = ""
        if self._started_at is not None:
            running = f" {format_duration(self.clock() - self._started_at)} {self.current}"
        return (f"[{'#' * filled}{'-' * (BAR_WIDTH - filled)}] {self.done}/{self.total} "
                f"{frac * 100:3.0f}% ETA {format_duration(self.eta())}{running}")

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

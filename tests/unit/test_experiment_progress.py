"""Progress display: ETA arithmetic, TTY bar, plain lines when not a terminal."""
from __future__ import annotations

import io

from harness.experiment.progress import Progress, format_duration


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_format_duration():
    assert [format_duration(s) for s in (0, 59, 75, 3725, None, -1)] == [
        "0s", "59s", "1m15s", "1h02m", "?", "?"]


def test_eta_uses_the_estimate_then_measured_runs_and_ignores_skipped():
    clock = Clock()
    p = Progress(10, stream=io.StringIO(), tty=False, estimate=30.0, clock=clock)
    assert p.eta() == 300.0
    p.skip(4)                      # resumed runs: done, but say nothing about speed
    assert p.eta() == 180.0
    p.start("a")
    clock.now = 10.0
    assert p.finish() == 10.0
    assert p.eta() == 50.0         # 5 left x 10 s measured
    assert Progress(3, stream=io.StringIO(), tty=False).eta() is None


def test_plain_lines_without_a_terminal():
    clock, stream = Clock(), io.StringIO()
    p = Progress(2, stream=stream, tty=False, clock=clock)
    p.start("abc hops=1")
    clock.now = 65.0
    p.finish("failed")
    p.message("note")
    p.close()
    assert stream.getvalue() == "[1/2] failed abc hops=1 (1m05s; ETA 1m05s)\nnote\n"
    assert "\r" not in stream.getvalue()


def test_terminal_bar_redraws_in_place():
    clock, stream = Clock(), io.StringIO()
    p = Progress(4, stream=stream, tty=True, clock=clock, estimate=10.0)
    p.skip()
    p.start("run2 hops=2")
    clock.now = 3.0
    assert p.bar() == "[######------------------] 1/4  25% ETA 30s 3s run2 hops=2"
    p.finish()
    p.message("hello")
    p.close()
    text = stream.getvalue()
    assert text.count("\r") >= 3 and "hello\n" in text and text.endswith("\n")
    assert "2/4  50% ETA 6s" in text


def test_durations_on_a_clock_other_than_the_hosts_say_so():
    stream = io.StringIO()
    clock = iter([0.0, 30.0]).__next__
    p = Progress(2, stream=stream, tty=False, clock=clock, clock_name=" of guest time")
    p.start("a")
    p.finish("ok")
    assert stream.getvalue() == "[1/2] ok a (30s; ETA 30s of guest time)\n"

"""Namespace plumbing without radios: ``each``, ``entered``, sysctls and pids from Python.

The namespace tests need root and iproute2 (true on CI and in the guest); they make one
namespace named like a harness run's, so ``harness clean`` finds it if a test is killed.
"""
from __future__ import annotations

import os
import shutil
import threading
import time

import pytest

from harness.errors import HarnessError
from harness.kernel import naming, netns


# -- each (pure) --------------------------------------------------------------------------
def test_each_runs_items_concurrently():
    assert netns.PARALLEL >= 2
    barrier = threading.Barrier(2, timeout=5)  # passes only if the two calls overlap
    seen = []

    def step(item):
        barrier.wait()
        seen.append(item)

    netns.each(step, ["a", "b"])
    assert sorted(seen) == ["a", "b"]


def test_each_waits_for_every_step_then_raises_the_first_error_in_item_order():
    finished = []

    def step(item):
        if item == 1:
            raise HarnessError("one failed")
        if item == 2:
            raise HarnessError("two failed")
        time.sleep(0.2)
        finished.append(item)

    with pytest.raises(HarnessError, match="one failed"):
        netns.each(step, [0, 1, 2, 3])
    assert sorted(finished) == [0, 3]  # the slow steps were not abandoned


def test_each_with_one_item_runs_in_the_calling_thread():
    threads = []
    netns.each(lambda _: threads.append(threading.current_thread()), ["x"])
    assert threads == [threading.current_thread()]


# -- a real namespace ------------------------------------------------------------------------
needs_root = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("ip") is None,
                                reason="needs root and iproute2")


@pytest.fixture
def node():
    tag = naming.new_tag()
    n = netns.Node("unit", naming.netns_name(tag, "unit"), tag)
    n.create()
    try:
        yield n
    finally:
        n.destroy()
    assert not netns.netns_exists(n.netns)


@needs_root
def test_sysctls_are_written_inside_the_namespace_only(node):
    key = "net.ipv4.tcp_sack"
    with open("/proc/sys/net/ipv4/tcp_sack") as fh:
        root_before = fh.read().strip()
    wanted = "0" if root_before == "1" else "1"
    node.set_sysctls({key: wanted})
    assert node.get_sysctl(key) == wanted
    assert node.cmd(["cat", "/proc/sys/net/ipv4/tcp_sack"]).stdout.strip() == wanted
    with open("/proc/sys/net/ipv4/tcp_sack") as fh:
        assert fh.read().strip() == root_before  # the host's own value is untouched


@needs_root
def test_a_bad_sysctl_names_the_key(node):
    with pytest.raises(HarnessError, match="net.ipv4.no_such_knob"):
        node.set_sysctls({"net.ipv4.no_such_knob": 1})
    with pytest.raises(HarnessError, match="not per-namespace"):
        node.set_sysctls({"kernel.pid_max": 1})


@needs_root
def test_entered_returns_the_thread_to_its_own_namespace(node):
    own = os.stat("/proc/thread-self/ns/net").st_ino
    target = os.stat(os.path.join(netns.NETNS_DIR, node.netns)).st_ino
    with netns.entered(node.netns):
        assert os.stat("/proc/thread-self/ns/net").st_ino == target
    assert os.stat("/proc/thread-self/ns/net").st_ino == own
    with pytest.raises(HarnessError, match="does not exist"):
        with netns.entered("hx-0000-nosuchnode"):
            pass


@needs_root
def test_pids_of_the_namespace_and_the_run_tag_in_their_environment(node):
    proc = node.popen(["sleep", "30"])
    deadline = time.monotonic() + 10

    def exec_done() -> bool:  # while ip netns exec becomes sleep, /proc/PID/environ reads empty
        with open(f"/proc/{proc.pid}/comm") as fh:
            return fh.read().strip() == "sleep"
    while not (proc.pid in netns.netns_pids(node.netns) and exec_done()) \
            and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.pid in netns.netns_pids(node.netns)
    assert os.getpid() not in netns.netns_pids(node.netns)
    with open(f"/proc/{proc.pid}/environ", "rb") as fh:
        assert f"{naming.RUN_ENV}={node.run_tag}".encode() in fh.read().split(b"\0")
    node.stop_processes()
    assert netns.netns_pids(node.netns) == []
    assert node.cmd(["ip", "-o", "link", "show", "lo"]).stdout.count("UP") >= 1


@needs_root
def test_a_command_that_times_out_is_killed_and_says_so(node):
    """CommandTimeout (a HarnessError) survives the node's wrapping: callers such as
    traffic.run_flow tell a hung client from a failed one by its type."""
    from harness.errors import CommandTimeout
    with pytest.raises(CommandTimeout, match=r"\[unit\] command timed out after 0.5 s"):
        node.cmd(["sleep", "30"], timeout=0.5)
    with pytest.raises(HarnessError) as info:
        node.cmd(["false"])
    assert not isinstance(info.value, CommandTimeout)


@needs_root
def test_clean_of_a_killed_run_removes_its_namespace_and_marked_processes():
    """What ``harness clean --tag`` does after a SIGKILL, through the registry netns fills."""
    from harness.kernel import cleanup
    tag = naming.new_tag()
    node = netns.Node("victim", naming.netns_name(tag, "victim"), tag)
    node.create()
    proc = node.popen(["sleep", "60"])
    try:
        deadline = time.monotonic() + 10
        while proc.pid not in netns.marked_processes(tag) and time.monotonic() < deadline:
            time.sleep(0.05)  # the marker is readable once ip netns exec became sleep
        assert proc.pid in netns.marked_processes(tag)
        assert f"netns {node.netns}" in cleanup.harness_objects_left(tag)
        report = cleanup.clean(tag)
        assert report.of("namespace") == [node.netns]
        assert any(p.startswith(f"{proc.pid} ") for p in report.of("process"))
        assert proc.wait(5) is not None
        assert cleanup.harness_objects_left(tag) == []
        assert cleanup.clean(tag).empty
    finally:
        node.destroy()

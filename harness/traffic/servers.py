"""The server of a flow: started in the receiver's namespace, waited for until it listens,
stopped and forgotten afterwards. Every flow runner uses this (one flow, flows started
together, the cwnd clamp's priming connection), so a server is never left behind.

A timed flow's is an iperf3 one-shot server (``-s -1``: serve one test, then exit), bound to
the node's address, with ``--forceflush`` so "listening" reaches the pipe at once; a bulk
transfer's is ``bulk_agent.py receive`` (reads until the sender closes, then prints its
result). "listening" is read with raw ``os.read`` under ``select`` (no polling processes; the
text wrapper would buffer past ``select``), so the rest of the output stays for the caller.
"""
from __future__ import annotations

import contextlib
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator, List, Sequence, Tuple

from harness.errors import HarnessError
from harness.kernel.netns import Node

#: Seconds a server may take to say it listens (TCG guests start iperf3 slowly).
LISTEN_TIMEOUT_S = 10.0


def server_args(node: Node, port: int) -> List[str]:
    """The iperf3 server command line for ``port`` on the node's address (pure)."""
    if node.ip is None:
        raise HarnessError(f"iperf3 server on {node.name}: the node has no IP address")
    return ["iperf3", "-s", "-1", "-p", str(port), "-B", node.ip, "--forceflush"]


#: The bulk-transfer program, run by path in the nodes (standard library only).
BULK_AGENT = Path(__file__).with_name("bulk_agent.py")


def bulk_receiver_args(node: Node, port: int) -> List[str]:
    """The bulk receiver's command line for ``port`` on the node's address (pure)."""
    if node.ip is None:
        raise HarnessError(f"bulk receiver on {node.name}: the node has no IP address")
    return [sys.executable, str(BULK_AGENT), "receive", node.ip, str(port)]


def bulk_sender_args(address: str, port: int, nbytes: int, congestion: str = "") -> List[str]:
    return [sys.executable, str(BULK_AGENT), "send", address, str(port), str(int(nbytes)),
            congestion]


def wait_listening(proc: subprocess.Popen, timeout: float = LISTEN_TIMEOUT_S) -> None:
    """Block until the iperf3 server prints that it listens; HarnessError with its output if
    it exits or stays silent."""
    deadline = time.monotonic() + timeout
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    buf = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            chunk = os.read(fd, 4096)
            if not chunk:
                # its output closed: it is exiting; reap it so its error message can be read
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(1.0)
                break
            buf += chunk
            if b"listening" in buf.lower():
                return
        elif proc.poll() is not None:
            break
    err = proc.stderr.read() if proc.stderr and proc.poll() is not None else ""
    raise HarnessError("iperf3 server did not start listening: "
                       f"{(buf.decode(errors='replace') + err).strip()[-300:]}")


def stop(node: Node, proc: subprocess.Popen, grace: float = 3.0) -> None:
    """Terminate ``proc`` if it still runs (kill after ``grace`` seconds) and drop it from the
    node's processes (``Node.stop_processes`` need not find it again)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(5)
    if proc in node.procs:
        node.procs.remove(proc)


@contextlib.contextmanager
def iperf_servers(targets: Sequence[Tuple[Node, int]]) -> Iterator[List[subprocess.Popen]]:
    """One listening iperf3 server per ``(node, port)`` for the block (``flow_servers``)."""
    with flow_servers([(node, port, False) for node, port in targets]) as procs:
        yield procs


@contextlib.contextmanager
def flow_servers(targets: Sequence[Tuple[Node, int, bool]]) -> Iterator[List[subprocess.Popen]]:
    """One listening server per ``(node, port, bulk)`` for the block (a bulk receiver where
    ``bulk``, else iperf3), stopped when it ends.

    All are launched before any is waited for: flows that must start together should not
    wait for each server's start in turn (seconds apart under TCG)."""
    procs: List[Tuple[Node, subprocess.Popen]] = []
    try:
        for node, port, bulk in targets:
            args = bulk_receiver_args(node, port) if bulk else server_args(node, port)
            procs.append((node, node.popen(args)))
        for _, proc in procs:
            wait_listening(proc)
        yield [proc for _, proc in procs]
    finally:
        for node, proc in procs:
            stop(node, proc)

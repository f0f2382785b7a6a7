"""A worker that stays up for a VM's whole life and forks one child per job.

A job runner in a VM used to start ``python3 -m harness.parallel.worker`` for every run: about
a second of guest time per run importing the harness (measured: 0.9-1.4 s under TCG), paid
again by every run of a ``--jobs N`` sweep, where ``--jobs 1`` runs a whole sweep in one
process. This server imports everything once and forks a child per job, so every run still
has a process of its own (its own signal handling, nothing left over from the run before) and
starts in milliseconds.

    python3 -m harness.parallel.forkserver SOCKET      # in the guest, started by JobRunner
    printf %s JOB | python3 harness/parallel/fork_client.py SOCKET   # one job

The client (a plain script: importing nothing of the harness is what makes it fast) sends the
encoded job and its own standard output and error over the Unix socket; the child writes
there exactly what ``harness.parallel.worker`` would, and its exit code comes back to the
client. Signals the client gets (the agent's Ctrl-C, SIGTERM) go to the child, which tears its
run down; a client that dies takes its child with it.
"""
from __future__ import annotations

import argparse
import os
import select
import signal
import socket
import sys
import time
from typing import List, Optional

#: Modules a run imports; imported once here so that no child pays for them.
PRELOAD = ("harness.experiment.execute", "harness.parallel.worker", "harness.net",
           "harness.traffic.flows", "pyroute2", "yaml")
#: Seconds a child gets to tear its run down after its client went away.
ORPHAN_GRACE_S = 30.0


def preload() -> None:
    import importlib
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:  # a run that needs it reports the error itself
            pass


def child(job_text: str, out_fd: int, err_fd: int) -> int:
    """What ``python3 -m harness.parallel.worker`` does, in the forked child."""
    os.dup2(out_fd, 1)
    os.dup2(err_fd, 2)
    os.close(out_fd)
    os.close(err_fd)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from harness.parallel import worker
    return worker.serve_one(job_text)


def serve_connection(conn: socket.socket) -> None:
    """One job: receive it with the client's stdout and stderr, fork, report pid and exit."""
    chunks: List[bytes] = []
    fds: List[int] = []
    while not chunks or not chunks[-1].endswith(b"\n"):
        data, got, _flags, _addr = socket.recv_fds(conn, 1 << 20, 2)
        fds.extend(got)
        if not data:
            break
        chunks.append(data)
    if len(fds) != 2:
        for fd in fds:
            os.close(fd)
        conn.sendall(b"rc 2\n")
        return
    pid = os.fork()
    if pid == 0:
        conn.close()
        rc = 1
        try:
            rc = child(b"".join(chunks).decode(), fds[0], fds[1])
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(rc)
    for fd in fds:
        os.close(fd)
    conn.sendall(f"pid {pid}\n".encode())
    conn.sendall(f"rc {wait_child(pid, conn)}\n".encode())


def wait_child(pid: int, conn: socket.socket) -> int:
    """The child's exit code; if the client disconnects first, stop the child (SIGTERM, then
    SIGKILL after ORPHAN_GRACE_S): its run is nobody's any more."""
    orphaned_at: Optional[float] = None
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if orphaned_at is None:
            readable, _, _ = select.select([conn], [], [], 0.2)
            if readable and not conn.recv(1, socket.MSG_PEEK):
                orphaned_at = time.monotonic()
                os.kill(pid, signal.SIGTERM)
        else:
            time.sleep(0.2)
            if time.monotonic() - orphaned_at > ORPHAN_GRACE_S:
                os.kill(pid, signal.SIGKILL)


def serve(path: str) -> None:
    preload()
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path + ".tmp")
    os.rename(path + ".tmp", path)  # the client sees the socket only once it accepts
    server.listen(4)
    while True:
        conn, _ = server.accept()
        with conn:
            try:
                serve_connection(conn)
            except OSError as err:  # a client that went away mid-handshake
                print(f"harness forkserver: {err}", file=sys.stderr)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m harness.parallel.forkserver",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("socket", help="path of the Unix socket to listen on")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    serve(args.socket)
    return 0


if __name__ == "__main__":
    sys.exit(main())

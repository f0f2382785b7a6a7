"""The guest's fork server, run here for real: jobs handed over a Unix socket with the
client's standard output and error, one forked child per job, exit codes relayed, and the
client's "no server" exit when nobody listens. A job here is deliberately invalid, so the
child stops at decoding it (an emulation needs the VM; tests/parallel runs real jobs through
the server there)."""
from __future__ import annotations

import base64
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.parallel.jobs import NO_FORK_SERVER
from harness.paths import code_root

CLIENT = str(code_root() / "harness/parallel/fork_client.py")


def client(sock: Path, job: str, wait_s: float = 10.0) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, CLIENT, str(sock), str(wait_s)], input=job,
                          capture_output=True, text=True, timeout=60)


@pytest.fixture
def server(tmp_path):
    sock = tmp_path / "fs.sock"
    proc = subprocess.Popen([sys.executable, "-m", "harness.parallel.forkserver", str(sock)],
                            cwd=code_root(), stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not sock.exists():
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert time.monotonic() < deadline, "the fork server did not create its socket"
        time.sleep(0.05)
    yield sock, proc
    proc.terminate()
    proc.wait(10)


def test_each_job_gets_a_child_whose_output_and_exit_code_reach_the_client(server):
    sock, proc = server
    bad = base64.b64encode(b'{"experiment": "x"}').decode()
    for _ in range(2):  # the server outlives its jobs
        done = client(sock, bad)
        assert done.returncode == 2, done
        assert "the job on standard input is not valid" in done.stderr
        assert done.stdout == ""
    assert proc.poll() is None


def test_no_server_gives_the_retry_exit_code(tmp_path):
    done = client(tmp_path / "nobody.sock", "job", wait_s=0.3)
    assert done.returncode == NO_FORK_SERVER
    assert "no fork server" in done.stderr

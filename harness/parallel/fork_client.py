"""Hand one job (on standard input) to the guest's fork server and relay its exit code.

Run as a plain script (``python3 harness/parallel/fork_client.py SOCKET [WAIT_S]``), never as part of
the package: it imports only the standard library, so it starts in a few milliseconds where
importing the harness costs a second under TCG (see harness/parallel/forkserver.py). Exit 75
when no server answers within WAIT_S seconds (default 30), so the caller can start one and
retry.
"""
import os
import signal
import socket
import sys
import time

#: Exit code when no server listens on the socket (EX_TEMPFAIL).
NO_SERVER = 75


def main(path: str, wait_s: float = 30.0) -> int:
    job = sys.stdin.buffer.read().strip() + b"\n"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    deadline = time.monotonic() + wait_s
    while True:
        try:
            sock.connect(path)
            break
        except (FileNotFoundError, ConnectionRefusedError):
            if time.monotonic() > deadline:
                print(f"fork client: no fork server on {path}", file=sys.stderr)
                return NO_SERVER
            time.sleep(0.1)
    socket.send_fds(sock, [job], [sys.stdout.fileno(), sys.stderr.fileno()])
    child = {"pid": 0}

    def forward(signum: int, frame: object) -> None:
        if child["pid"]:
            os.kill(child["pid"], signum)

    signal.signal(signal.SIGINT, forward)
    signal.signal(signal.SIGTERM, forward)
    reader = sock.makefile("r")
    for line in reader:
        word, _, value = line.partition(" ")
        if word == "pid":
            child["pid"] = int(value)
        elif word == "rc":
            return int(value)
    print("fork client: the fork server closed the connection without an exit code",
          file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], *(float(a) for a in sys.argv[2:3])))

"""A bulk transfer of N bytes, the way an FTP transfer moves a file: run inside the nodes.

    python3 bulk_agent.py receive ADDRESS PORT
    python3 bulk_agent.py send ADDRESS PORT NBYTES [CONGESTION]

The receiver listens (and says ``listening``), accepts one connection, reads until the
sender closes, closes, and prints one JSON line: bytes received, and the seconds from the
accept to the last byte (the transfer's completion time at the receiver). The sender sets
the socket's congestion module, writes NBYTES, shuts its side down and waits for the
receiver's close, then prints its own JSON line. Why not ``iperf3 -n``: its server stops
reading when the client reports it has *written* the last byte and closes the connection
with data still in flight (measured: 7.6 of 8 MB arrived), so the end of a transfer is never
measured. Standard library only, started by path (no package import in the guest).
"""
from __future__ import annotations

import json
import socket
import sys
import time

CHUNK = 1 << 17


def receive(address: str, port: int) -> dict:
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((address, port))
    srv.listen(1)
    print("listening", flush=True)
    conn, peer = srv.accept()
    t0 = time.monotonic()
    buf = bytearray(CHUNK)
    total = 0
    first = None
    while True:
        n = conn.recv_into(buf)
        if not n:
            break
        if first is None:
            first = time.monotonic() - t0
        total += n
    seconds = time.monotonic() - t0
    conn.close()
    srv.close()
    return {"role": "receiver", "bytes": total, "seconds": seconds, "first_byte_s": first,
            "peer": f"{peer[0]}:{peer[1]}", "local_port": port}


def send(address: str, port: int, nbytes: int, congestion: str = "") -> dict:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if congestion:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, congestion.encode())
    t0 = time.monotonic()
    sock.connect((address, port))
    connected = time.monotonic() - t0
    local_port = sock.getsockname()[1]
    block = bytes(CHUNK)
    left = nbytes
    while left > 0:
        left -= sock.send(block[:min(CHUNK, left)])
    written = time.monotonic() - t0
    sock.shutdown(socket.SHUT_WR)
    while sock.recv(CHUNK):  # the receiver closes once it has read everything
        pass
    done = time.monotonic() - t0
    algo = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).split(b"\0")[0]
    sock.close()
    return {"role": "sender", "bytes": nbytes, "connect_s": connected, "written_s": written,
            "seconds": done, "local_port": local_port, "congestion": algo.decode()}


def main(argv: list) -> int:
    try:
        if argv[0] == "receive":
            out = receive(argv[1], int(argv[2]))
        elif argv[0] == "send":
            out = send(argv[1], int(argv[2]), int(argv[3]), argv[4] if len(argv) > 4 else "")
        else:
            raise ValueError(f"unknown role {argv[0]!r}")
    except (OSError, ValueError, IndexError) as err:
        print(json.dumps({"error": f"{type(err).__name__}: {err}"}), flush=True)
        return 1
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

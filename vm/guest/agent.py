#!/usr/bin/env python3
"""Guest agent: runs commands for the host over a virtio-serial port.

Protocol: one JSON object per line in each direction.
  host -> guest  {"id": 1, "op": "ping"}
                 {"id": 2, "op": "run", "cmd": "bash script", "cwd": "/mnt/cwd", "env": {...}}
                 {"id": 3, "op": "signal", "target": 2, "sig": 2}
                 {"id": 4, "op": "poweroff"}
  guest -> host  {"id": 1, "pong": true, "uptime": 5.2}
                 {"id": 2, "out": "text"} / {"id": 2, "err": "text"}   (streamed as produced)
                 {"id": 2, "rc": 0}                                    (last message of a run)
Each run is a bash script in its own process group, so a signal reaches all it started.
"""
import codecs
import glob
import json
import os
import signal
import subprocess
import threading

PORT_NAME = "org.harness.agent"


def find_port() -> str:
    for name_file in glob.glob("/sys/class/virtio-ports/*/name"):
        with open(name_file) as f:
            if f.read().strip() == PORT_NAME:
                return "/dev/" + name_file.split("/")[-2]
    raise SystemExit("agent: virtio port %s not found" % PORT_NAME)


class Agent:
    def __init__(self, port: str):
        self.fd = os.open(port, os.O_RDWR)
        self.write_lock = threading.Lock()
        self.procs = {}

    def send(self, msg: dict) -> None:
        data = (json.dumps(msg) + "\n").encode()
        with self.write_lock:
            view = memoryview(data)
            while view:
                n = os.write(self.fd, view)
                view = view[n:]

    def pump(self, req_id, stream, key: str) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        while True:
            chunk = os.read(stream.fileno(), 65536)
            text = decoder.decode(chunk, final=not chunk)
            if text:
                self.send({"id": req_id, key: text})
            if not chunk:
                return

    def run(self, req: dict) -> None:
        req_id = req["id"]
        env = dict(os.environ)
        env.update(req.get("env") or {})
        try:
            proc = subprocess.Popen(
                ["/bin/bash", "-c", req["cmd"]], cwd=req.get("cwd") or "/",
                env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, start_new_session=True)
        except OSError as err:
            self.send({"id": req_id, "err": "agent: %s\n" % err})
            self.send({"id": req_id, "rc": 127})
            return
        self.procs[req_id] = proc
        pumps = [threading.Thread(target=self.pump, args=(req_id, proc.stdout, "out")),
                 threading.Thread(target=self.pump, args=(req_id, proc.stderr, "err"))]
        for t in pumps:
            t.start()
        rc = proc.wait()
        for t in pumps:
            t.join()
        self.procs.pop(req_id, None)
        self.send({"id": req_id, "rc": rc if rc >= 0 else 128 - rc})

    def signal(self, req: dict) -> None:
        proc = self.procs.get(req.get("target"))
        if proc is not None:
            try:
                os.killpg(proc.pid, int(req.get("sig", signal.SIGTERM)))
            except ProcessLookupError:
                pass

    def handle(self, req: dict) -> None:
        op = req.get("op")
        if op == "ping":
            with open("/proc/uptime") as f:
                uptime = float(f.read().split()[0])
            self.send({"id": req.get("id"), "pong": True, "uptime": uptime})
        elif op == "run":
            threading.Thread(target=self.run, args=(req,), daemon=True).start()
        elif op == "signal":
            self.signal(req)
        elif op == "poweroff":
            os.system("sync")
            os.system("/bin/busybox poweroff -f")

    def serve(self) -> None:
        buf = b""
        while True:
            chunk = os.read(self.fd, 65536)
            if not chunk:  # host not connected: the port reads EOF; wait and retry
                threading.Event().wait(0.05)
                continue
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                try:
                    self.handle(json.loads(line))
                except (ValueError, KeyError) as err:
                    self.send({"id": None, "err": "agent: bad request: %s\n" % err})


if __name__ == "__main__":
    Agent(find_port()).serve()

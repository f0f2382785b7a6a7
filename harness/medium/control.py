"""Client of mediumd's control socket (``mediumd --control PATH``).

The protocol is JSON lines over a UNIX stream socket: one flat object per request,
one object per reply, ``{"ok": true, ...}`` or ``{"ok": false, "error": "..."}``.
The commands are documented in ``mediumd/daemon/commands.h``::

    with MediumControl("/run/hx-medium.sock") as medium:
        medium.set_position("02:00:00:00:01:00", 120.0, 0.0)
        medium.set_link("02:00:00:00:01:00", "02:00:00:00:02:00", loss=95)
        print(medium.stats()["lag_us"]["p99"])
"""
from __future__ import annotations

import json
import socket
from typing import Any, Dict, Optional

from harness.errors import HarnessError
from harness.kernel.wireless import RETRY_LIMIT
from harness.medium.spec import PER

#: ``set_link`` fields whose name on the control socket differs from the YAML's (the daemon's
#: JSON, mediumd/daemon/commands.h): mapped here and nowhere else.
SET_LINK_WIRE = {"loss": "loss_db", "snr": "snr_db", "oneway": "directed"}


class MediumControlError(HarnessError):
    """The daemon refused a request, or could not be reached."""


class MediumControl:
    """One connection to a running mediumd; requests are answered in order."""

    def __init__(self, path: str, timeout: float = 5.0):
        self.path = str(path)
        self.timeout = timeout
        self._sock: Optional[socket.socket] = None
        self._buf = b""

    # -- connection -------------------------------------------------------------

    def __enter__(self) -> MediumControl:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
            self._buf = b""

    def _connect(self) -> socket.socket:
        if self._sock is None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(self.timeout)
            try:
                sock.connect(self.path)
            except OSError as err:
                sock.close()
                raise MediumControlError(
                    f"cannot connect to mediumd control socket {self.path}: {err.strerror or err}",
                    hint="is mediumd running with --control, and are we root?") from None
            self._sock = sock
        return self._sock

    # -- protocol ---------------------------------------------------------------

    @staticmethod
    def encode(cmd: str, **fields: Any) -> bytes:
        """The request line for ``cmd``: compact JSON, ``cmd`` first, newline-terminated."""
        return (json.dumps({"cmd": cmd, **fields}, separators=(",", ":")) + "\n").encode()

    def request(self, cmd: str, **fields: Any) -> Dict[str, Any]:
        """Send one request; return the reply without ``ok``, or raise MediumControlError."""
        sock = self._connect()
        try:
            sock.sendall(self.encode(cmd, **fields))
            while b"\n" not in self._buf:
                chunk = sock.recv(65536)
                if not chunk:
                    raise MediumControlError(f"mediumd closed the control connection during {cmd!r}")
                self._buf += chunk
        except OSError as err:
            self.close()
            raise MediumControlError(f"mediumd control socket {self.path}: {cmd!r}: {err}") from None
        line, self._buf = self._buf.split(b"\n", 1)
        try:
            reply = json.loads(line)
        except ValueError:
            self.close()
            raise MediumControlError(f"mediumd sent a malformed reply to {cmd!r}: {line[:200]!r}") from None
        if not isinstance(reply, dict) or "ok" not in reply:
            raise MediumControlError(f"mediumd reply to {cmd!r} has no 'ok': {line[:200]!r}")
        if not reply.pop("ok"):
            raise MediumControlError(f"mediumd refused {cmd!r}: {reply.get('error', 'no reason given')}")
        return reply

    # -- commands ---------------------------------------------------------------

    def ping(self) -> None:
        self.request("ping")

    def stats(self) -> Dict[str, Any]:
        """All counters: frames, lag_us, status_lag_us, radios, links (see commands.c)."""
        return self.request("stats")

    def set_position(self, mac: str, x: float, y: float, z: float = 0.0) -> None:
        """Teleport a radio. Refused (``MediumControlError``) for a radio that follows a
        trajectory: the medium would put it back on it at the next frame."""
        self.request("set_position", radio=mac, x=float(x), y=float(y), z=float(z))

    def start_mobility(self) -> float:
        """Make now the trajectories' time 0 (radios with ``waypoint`` lines start along them
        from here); returns mediumd's uptime in s at that moment."""
        return float(self.request("start_mobility")["uptime_s"])

    def set_txpower(self, mac: str, dbm: float) -> None:
        self.request("set_txpower", radio=mac, dbm=float(dbm))

    def set_retry(self, mac: str, short: int, long: Optional[int] = None) -> None:
        """The radio's retry limits (maximum transmissions) from now on, as ``iw phy X set
        retry short N long M`` sets them in the kernel (``long`` = ``short`` unless given).
        Checked with the kernel's rule (``harness.kernel.wireless.RETRY_LIMIT``): mediumd would
        take up to 255, a radio no more than 31."""
        long = short if long is None else long
        limits: Dict[str, int] = {}
        for name, value in (("short", short), ("long", long)):
            if not RETRY_LIMIT.accepts(value):
                raise MediumControlError(f"set_retry {mac}: {name} {value!r} is invalid: allowed "
                                         f"{RETRY_LIMIT.allowed()}")
            limits[name] = int(value)
        self.request("set_retry", radio=mac, **limits)

    def set_link(self, a: str, b: str, *, loss: Optional[float] = None,
                 snr: Optional[float] = None, none: bool = False, model: bool = False,
                 per: Optional[float] = None, oneway: bool = False) -> None:
        """Override the link a<->b (a->b only if ``oneway``) with exactly one of: a fixed path
        ``loss`` in dB, a fixed ``snr`` in dB, no link at all, or ``model=True`` to go back to
        the propagation model. ``per`` adds an independent frame loss probability. The names
        are the YAML's (``medium.links``, ``harness.medium.spec.LinkOverride``)."""
        kinds = {"loss": loss, "snr": snr, "none": True if none else None,
                 "model": True if model else None}
        given = {k: v for k, v in kinds.items() if v is not None}
        if len(given) != 1:
            raise MediumControlError(
                f"set_link {a} {b}: give exactly one of loss, snr, none, model (got {sorted(given) or 'none'})")
        fields: Dict[str, Any] = {"a": a, "b": b, **{k: (float(v) if not isinstance(v, bool) else v)
                                                     for k, v in given.items()}}
        if per is not None:
            if not PER.accepts(per):
                raise MediumControlError(f"set_link {a} {b}: per {per!r} is invalid: allowed "
                                         f"{PER.allowed()} (a probability)")
            fields["per"] = float(per)
        if oneway:
            fields["oneway"] = True
        self.request("set_link", **{SET_LINK_WIRE.get(k, k): v for k, v in fields.items()})

    def start_capture(self, path: str) -> str:
        """Write every transmission attempt from now on to the pcap ``path`` (as ``--pcap``
        does from the start); one capture at a time. Returns the path."""
        return str(self.request("capture", path=str(path))["path"])

    def stop_capture(self) -> str:
        """Stop the capture and close its file (readable by Wireshark); returns its path."""
        return str(self.request("capture", stop=True)["path"])

    def get_link(self, a: str, b: str) -> Dict[str, Any]:
        """Mean received power of a at b (``rx_power_dbm``, None: no link) and b's thresholds."""
        return self.request("get_link", a=a, b=b)

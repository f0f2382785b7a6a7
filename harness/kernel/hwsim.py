"""mac80211_hwsim radios over generic netlink: NEW_RADIO, DEL_RADIO, GET_RADIO.

Why generic netlink and not ``modprobe radios=N``: we choose each radio's MAC and name
(``hx-<tag>-<node>-<n>``, so ``harness clean`` finds it), create radios on demand, and create
them in the root namespace, which fixes their medium group (docs/kernel.md, 'Radios').

Messages are encoded and decoded with pyroute2's ``genlmsg`` (``HwsimMsg`` below), which
works the same in pyroute2 0.7 (Debian bookworm) and 0.9. The transport is a plain netlink
socket because hwsim answers NEW_RADIO with an ack whose *positive* error field is the new
radio's id, and pyroute2 turns every non-zero ack into an exception with the sign dropped,
so a radio id 17 would be indistinguishable from -EEXIST.

Kernel facts used here (verified in kernel 6.1 source):
- the RADIO_NAME becomes the wiphy name (``ieee80211_alloc_hw_nm``);
- DEL_RADIO and the GET_RADIO dump only see radios whose wiphy is in the caller's netns,
  so radios moved into a node are deleted with a socket opened in that node's namespace;
- a radio created with DESTROY_RADIO_ON_CLOSE dies when the creating socket closes
  (also when the process is killed), and radios created in the root namespace return to it
  when the namespace holding them is deleted.

This module registers the clean-up of ``hx-*`` radios (``harness.kernel.cleanup``): inside
each run namespace before it is deleted, then in the root namespace.
"""
from __future__ import annotations

import errno
import os
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple, Type

from pyroute2.netlink import (
    CTRL_CMD_GETFAMILY,
    GENL_ID_CTRL,
    NLM_F_ACK,
    NLM_F_DUMP,
    NLM_F_REQUEST,
    ctrlmsg,
    genlmsg,
)

from harness.errors import HarnessError
from harness.kernel import cleanup, mac80211, naming
from harness.kernel.netns import ack_code, harness_namespaces, netlink_socket_in, run, split_messages

FAMILY = "MAC80211_HWSIM"
FAMILY_VERSION = 1

# the commands we send (the enum in drivers/net/wireless/mac80211_hwsim.h)
CMD_NEW_RADIO = 4
CMD_DEL_RADIO = 5
CMD_GET_RADIO = 6

# attribute numbers we use (position in HwsimMsg.nla_map)
ATTR_CHANNELS = 9
ATTR_RADIO_ID = 10
ATTR_RADIO_NAME = 17
ATTR_PERM_ADDR = 22

NETLINK_GENERIC = 16  # not exported by the socket module
NLMSG_ERROR = 2
NLMSG_DONE = 3
SYS_IEEE80211 = Path("/sys/class/ieee80211")
SYS_MODULE = Path("/sys/module/mac80211_hwsim")


class HwsimMsg(genlmsg):
    """hwsim generic netlink message; attribute index = kernel attribute number."""

    prefix = "HWSIM_ATTR_"
    nla_map = (
        ("HWSIM_ATTR_UNSPEC", "none"),               # 0
        ("HWSIM_ATTR_ADDR_RECEIVER", "l2addr"),      # 1
        ("HWSIM_ATTR_ADDR_TRANSMITTER", "l2addr"),   # 2
        ("HWSIM_ATTR_FRAME", "cdata"),               # 3
        ("HWSIM_ATTR_FLAGS", "uint32"),              # 4
        ("HWSIM_ATTR_RX_RATE", "uint32"),            # 5
        ("HWSIM_ATTR_SIGNAL", "uint32"),             # 6
        ("HWSIM_ATTR_TX_INFO", "cdata"),             # 7
        ("HWSIM_ATTR_COOKIE", "uint64"),             # 8
        ("HWSIM_ATTR_CHANNELS", "uint32"),           # 9
        ("HWSIM_ATTR_RADIO_ID", "uint32"),           # 10
        ("HWSIM_ATTR_REG_HINT_ALPHA2", "asciiz"),    # 11
        ("HWSIM_ATTR_REG_CUSTOM_REG", "uint32"),     # 12
        ("HWSIM_ATTR_REG_STRICT_REG", "flag"),       # 13
        ("HWSIM_ATTR_SUPPORT_P2P_DEVICE", "flag"),   # 14
        ("HWSIM_ATTR_USE_CHANCTX", "flag"),          # 15
        ("HWSIM_ATTR_DESTROY_RADIO_ON_CLOSE", "flag"),  # 16
        ("HWSIM_ATTR_RADIO_NAME", "asciiz"),         # 17
        ("HWSIM_ATTR_NO_VIF", "flag"),               # 18
        ("HWSIM_ATTR_FREQ", "uint32"),               # 19
        ("HWSIM_ATTR_PAD", "none"),                  # 20
        ("HWSIM_ATTR_TX_INFO_FLAGS", "cdata"),       # 21
        ("HWSIM_ATTR_PERM_ADDR", "l2addr"),          # 22
    )


# -- pure encoding (unit-tested without a kernel) ----------------------------------------
def encode(family_id: int, cmd: int, attrs: List[Tuple[str, object]], *, seq: int,
           flags: int = NLM_F_REQUEST | NLM_F_ACK, kind: Type[genlmsg] = HwsimMsg) -> bytes:
    """A generic netlink request (``kind``: hwsim's messages, or ``ctrlmsg`` for the
    controller that resolves the family)."""
    msg = kind()
    msg["cmd"] = cmd
    msg["version"] = FAMILY_VERSION
    msg["attrs"] = [list(a) for a in attrs]
    msg["header"]["type"] = family_id
    msg["header"]["flags"] = flags
    msg["header"]["sequence_number"] = seq
    msg["header"]["pid"] = 0
    msg.encode()
    return bytes(msg.data)


def new_radio_attrs(name: str, mac: str, *, channels: Optional[int] = 1, no_vif: bool = True,
                    destroy_on_close: bool = False) -> List[Tuple[str, object]]:
    """Attributes of NEW_RADIO: our MAC and name; no default wlanX interface in the root ns."""
    attrs: List[Tuple[str, object]] = [("HWSIM_ATTR_PERM_ADDR", mac.lower()),
                                       ("HWSIM_ATTR_RADIO_NAME", name)]
    if channels is not None:
        attrs.append(("HWSIM_ATTR_CHANNELS", int(channels)))
    if no_vif:
        attrs.append(("HWSIM_ATTR_NO_VIF", True))
    if destroy_on_close:
        attrs.append(("HWSIM_ATTR_DESTROY_RADIO_ON_CLOSE", True))
    return attrs


def encode_new_radio(family_id: int, name: str, mac: str, *, seq: int = 1,
                     channels: Optional[int] = 1, no_vif: bool = True,
                     destroy_on_close: bool = False) -> bytes:
    return encode(family_id, CMD_NEW_RADIO,
                  new_radio_attrs(name, mac, channels=channels, no_vif=no_vif,
                                  destroy_on_close=destroy_on_close), seq=seq)


@dataclass
class RadioInfo:
    """One radio as GET_RADIO reports it."""

    id: int
    name: str


class Hwsim:
    """A connection to the hwsim family, in the root namespace or inside one node's.

    Keep the root connection open for the life of a network when radios are created with
    ``destroy_on_close``: closing it deletes them.
    """

    def __init__(self, netns: Optional[str] = None):
        self.netns = netns
        # bound as every netlink socket of a node is (netns.netlink_socket_in: no two of this
        # process's sockets share the radios' port id; docs/kernel.md, "Netlink port ids")
        self.sock = netlink_socket_in(netns, NETLINK_GENERIC)
        self.sock.settimeout(10.0)
        self._seq = 0
        try:
            self.family_id = self._resolve_family()
        except BaseException:
            self.sock.close()
            raise

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> Hwsim:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def _resolve_family(self) -> int:
        """The family id changes between boots: always look it up by name."""
        seq = self._next_seq()
        self.sock.send(encode(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, [("CTRL_ATTR_FAMILY_NAME", FAMILY)],
                              seq=seq, flags=NLM_F_REQUEST, kind=ctrlmsg))
        for mtype, _mseq, raw in self._recv_until(seq, (NLMSG_ERROR, GENL_ID_CTRL)):
            if mtype == NLMSG_ERROR:
                code = ack_code(raw)
                if code == -errno.ENOENT:
                    raise HarnessError(
                        f"generic netlink family {FAMILY} not found: mac80211_hwsim not loaded",
                        hint="modprobe mac80211_hwsim radios=0 (harness.kernel.hwsim.load_module)")
                if code < 0:
                    raise HarnessError(f"resolving {FAMILY} failed: {os.strerror(-code)}")
                continue
            reply = ctrlmsg(raw)
            reply.decode()
            return int(reply.get_attr("CTRL_ATTR_FAMILY_ID"))
        raise HarnessError(f"no reply resolving generic netlink family {FAMILY}")

    def _recv_until(self, seq: int, last_types: Tuple[int, ...]):
        """Yield (type, seq, raw) answering request ``seq``, up to one of ``last_types``."""
        while True:
            try:
                data = self.sock.recv(1 << 16)
            except socket.timeout as err:
                raise HarnessError(f"{FAMILY}: no answer from the kernel in 10 s") from err
            for mtype, mseq, raw in split_messages(data):
                if mseq != seq:
                    continue
                yield mtype, mseq, raw
                if mtype in last_types:
                    return

    def _request_ack(self, cmd: int, attrs: List[Tuple[str, object]]) -> int:
        seq = self._next_seq()
        self.sock.send(encode(self.family_id, cmd, attrs, seq=seq))
        for mtype, _s, raw in self._recv_until(seq, (NLMSG_ERROR,)):
            if mtype == NLMSG_ERROR:
                return ack_code(raw)
        raise HarnessError(f"{FAMILY}: no ack for command {cmd}")

    # -- commands ----------------------------------------------------------------------
    def new_radio(self, name: str, mac: str, *, channels: Optional[int] = 1,
                  no_vif: bool = True, destroy_on_close: bool = False) -> int:
        """Create a radio; returns its hwsim id."""
        code = self._request_ack(CMD_NEW_RADIO, new_radio_attrs(
            name, mac, channels=channels, no_vif=no_vif, destroy_on_close=destroy_on_close))
        if code < 0:
            hint = "a radio with this name exists: run 'harness clean'" if code == -errno.EEXIST else ""
            raise HarnessError(f"NEW_RADIO {name} ({mac}) failed: {os.strerror(-code)}", hint=hint)
        return code

    def del_radio(self, *, name: Optional[str] = None, radio_id: Optional[int] = None,
                  missing_ok: bool = False) -> bool:
        """Delete a radio (in this connection's namespace) by name or id; False if absent."""
        if (name is None) == (radio_id is None):
            raise HarnessError("del_radio needs exactly one of name= or radio_id=")
        code = self._request_ack(CMD_DEL_RADIO, [("HWSIM_ATTR_RADIO_NAME", name)] if name is not None
                                 else [("HWSIM_ATTR_RADIO_ID", int(radio_id or 0))])
        if code == -errno.ENODEV and missing_ok:
            return False
        if code < 0:
            raise HarnessError(f"DEL_RADIO {name or radio_id} failed: {os.strerror(-code)}")
        return True

    def list_radios(self) -> List[RadioInfo]:
        """Radios whose wiphy is in this connection's namespace (GET_RADIO dump)."""
        seq = self._next_seq()
        self.sock.send(encode(self.family_id, CMD_GET_RADIO, [], seq=seq,
                              flags=NLM_F_REQUEST | NLM_F_DUMP))
        radios = []
        for mtype, _s, raw in self._recv_until(seq, (NLMSG_ERROR, NLMSG_DONE)):
            if mtype == NLMSG_ERROR:
                code = ack_code(raw)
                if code < 0:
                    raise HarnessError(f"GET_RADIO failed: {os.strerror(-code)}")
                continue
            if mtype != self.family_id:
                continue
            msg = HwsimMsg(raw)
            msg.decode()
            rid = msg.get_attr("HWSIM_ATTR_RADIO_ID")
            name = msg.get_attr("HWSIM_ATTR_RADIO_NAME")
            if isinstance(name, bytes):
                name = name.decode(errors="replace")
            if rid is not None:
                radios.append(RadioInfo(int(rid), (name or "").rstrip("\x00")))
        return radios


# -- module and phys --------------------------------------------------------------------
def module_loaded() -> bool:
    return SYS_MODULE.exists()


def load_module(mac80211_build: Optional[str] = None) -> None:
    """``modprobe mac80211_hwsim radios=0`` unless loaded (radios are created on demand), on
    the mac80211 build asked for (None: the kernel's own; harness.kernel.mac80211)."""
    mac80211.ensure(mac80211_build)


def phy_of(radio_name: str, mac: str) -> str:
    """The wiphy of a new radio: its name (hwsim names the wiphy), else match by MAC."""
    if (SYS_IEEE80211 / radio_name).exists():
        return radio_name
    for phy in SYS_IEEE80211.iterdir() if SYS_IEEE80211.exists() else []:
        try:
            if (phy / "macaddress").read_text().strip().lower() == mac.lower():
                return phy.name
        except OSError:
            continue
    raise HarnessError(f"no wiphy found for radio {radio_name} ({mac}) in {SYS_IEEE80211}")


def move_phy(phy: str, netns: str) -> None:
    """Move a wiphy (and its interfaces) into a named namespace."""
    run(["iw", "phy", phy, "set", "netns", "name", netns])


def wiphy_names() -> Dict[str, str]:
    """All wiphys visible in sysfs: name -> MAC (used by clean-up to report)."""
    out: Dict[str, str] = {}
    if SYS_IEEE80211.exists():
        for phy in SYS_IEEE80211.iterdir():
            try:
                out[phy.name] = (phy / "macaddress").read_text().strip()
            except OSError:
                out[phy.name] = ""
    return out


# -- clean-up of killed runs (registered with harness.kernel.cleanup) -----------------------
#: Radios come back to the root namespace when their namespace is deleted: wait that long.
RADIO_RETURN_WAIT_S = 3.0


def harness_radios_in(ns: Optional[str], tag: Optional[str] = None) -> List[RadioInfo]:
    """hx-* radios whose wiphy is in namespace ``ns`` (None = root), of ``tag`` if given."""
    if not module_loaded():
        return []
    with Hwsim(netns=ns) as conn:
        return [r for r in conn.list_radios()
                if (p := naming.parse_radio(r.name)) and (tag is None or p.tag == tag)]


def _delete(ns: Optional[str], radios: List[RadioInfo], report: cleanup.CleanReport) -> None:
    if not radios:
        return
    with Hwsim(netns=ns) as conn:
        for r in radios:
            if conn.del_radio(radio_id=r.id, missing_ok=True):
                report.add("radio", r.name)


def _radios_left(tag: Optional[str]) -> List[str]:
    return [f"wiphy {n}" for n in wiphy_names()
            if (p := naming.parse_radio(n)) and (tag is None or p.tag == tag)]


def _clean_in_namespaces(tag: Optional[str], report: cleanup.CleanReport) -> None:
    """DEL_RADIO sees only the caller's namespace: delete from inside each run namespace."""
    problems = []
    for ns in harness_namespaces(tag):
        try:
            _delete(ns, harness_radios_in(ns, tag), report)
        except Exception as err:  # noqa: BLE001 - the next namespace still gets cleaned
            problems.append(f"{ns}: {err}")
    if problems:
        raise HarnessError("; ".join(problems))


def _clean_root(tag: Optional[str], report: cleanup.CleanReport) -> None:
    """Radios in the root namespace, also those that return there from deleted namespaces."""
    deadline = time.monotonic() + (RADIO_RETURN_WAIT_S if report.of("namespace") else 0.0)
    while True:
        _delete(None, harness_radios_in(None, tag), report)
        left = _radios_left(tag)
        if not left or time.monotonic() > deadline:
            if left:
                raise HarnessError("radios still present: " + ", ".join(left))
            return
        time.sleep(0.1)


cleanup.add_cleanup_callback("radios in namespaces", _clean_in_namespaces, stage="in namespaces")
cleanup.add_cleanup_callback("radios", _clean_root, stage="root namespace", leftovers=_radios_left)

"""hwsim generic netlink encoding, checked byte by byte without a kernel."""
from __future__ import annotations

import struct

from harness.kernel import hwsim
from harness.kernel.naming import radio_mac


def _attrs(data: bytes) -> dict:
    """Walk the TLVs after nlmsghdr (16) + genlmsghdr (4): {type: payload}."""
    out = {}
    off = 20
    while off + 4 <= len(data):
        length, atype = struct.unpack_from("=HH", data, off)
        out[atype] = data[off + 4: off + length]
        off += (length + 3) & ~3
    return out


def test_new_radio_header_and_attributes():
    data = hwsim.encode_new_radio(0x29, "hx-3fa9-sta1-0", "02:68:78:00:01:00", seq=7)
    length, mtype, flags, seq, pid = struct.unpack_from("=IHHII", data, 0)
    assert length == len(data)
    assert mtype == 0x29                       # the family id resolved at run time
    assert flags == 0x1 | 0x4                  # NLM_F_REQUEST | NLM_F_ACK
    assert seq == 7
    cmd, version = struct.unpack_from("=BB", data, 16)
    assert (cmd, version) == (4, 1)            # HWSIM_CMD_NEW_RADIO, family version 1
    attrs = _attrs(data)
    assert attrs[22] == bytes.fromhex("026878000100")            # HWSIM_ATTR_PERM_ADDR
    assert attrs[17] == b"hx-3fa9-sta1-0\x00"                     # HWSIM_ATTR_RADIO_NAME
    assert attrs[9] == struct.pack("=I", 1)                       # HWSIM_ATTR_CHANNELS
    assert attrs[18] == b""                                       # HWSIM_ATTR_NO_VIF (flag)
    assert 16 not in attrs                                        # no DESTROY_RADIO_ON_CLOSE


def test_new_radio_optional_flags():
    data = hwsim.encode_new_radio(0x21, "r", "02:68:78:00:00:00", channels=None,
                                  no_vif=False, destroy_on_close=True)
    attrs = _attrs(data)
    assert set(attrs) == {22, 17, 16}
    assert attrs[16] == b""


def test_attribute_numbers_match_kernel():
    names = [n for n, _t in hwsim.HwsimMsg.nla_map]
    assert names.index("HWSIM_ATTR_CHANNELS") == hwsim.ATTR_CHANNELS == 9
    assert names.index("HWSIM_ATTR_RADIO_ID") == hwsim.ATTR_RADIO_ID == 10
    assert names.index("HWSIM_ATTR_RADIO_NAME") == hwsim.ATTR_RADIO_NAME == 17
    assert names.index("HWSIM_ATTR_FREQ") == 19
    assert names.index("HWSIM_ATTR_TX_INFO_FLAGS") == 21
    assert names.index("HWSIM_ATTR_PERM_ADDR") == hwsim.ATTR_PERM_ADDR == 22


def test_del_radio_by_id_and_get_radio_dump():
    data = hwsim.encode(0x30, hwsim.CMD_DEL_RADIO, [("HWSIM_ATTR_RADIO_ID", 5)], seq=2)
    assert data[16] == 5
    assert _attrs(data)[10] == struct.pack("=I", 5)
    dump = hwsim.encode(0x30, hwsim.CMD_GET_RADIO, [], seq=3, flags=0x1 | 0x300)
    assert struct.unpack_from("=H", dump, 6)[0] == 0x301
    assert dump[16] == 6 and len(dump) == 20


def test_decode_get_radio_reply_roundtrip():
    data = hwsim.encode(0x30, hwsim.CMD_GET_RADIO,
                        [("HWSIM_ATTR_RADIO_ID", 3), ("HWSIM_ATTR_RADIO_NAME", "hx-3fa9-sta2-0")], seq=1)
    msg = hwsim.HwsimMsg(data)
    msg.decode()
    assert msg.get_attr("HWSIM_ATTR_RADIO_ID") == 3
    assert msg.get_attr("HWSIM_ATTR_RADIO_NAME") == "hx-3fa9-sta2-0"


def test_ack_code_keeps_sign():
    """hwsim's NEW_RADIO ack carries the radio id as a positive error field."""
    ack = struct.pack("=IHHIIi", 36, hwsim.NLMSG_ERROR, 0, 9, 0, 17) + b"\0" * 16
    ((mtype, seq, raw),) = hwsim.split_messages(ack)
    assert (mtype, seq) == (hwsim.NLMSG_ERROR, 9)
    assert hwsim.ack_code(raw) == 17
    nack = struct.pack("=IHHIIi", 36, hwsim.NLMSG_ERROR, 0, 9, 0, -17) + b"\0" * 16
    assert hwsim.ack_code(hwsim.split_messages(nack)[0][2]) == -17


def test_macs_are_deterministic_and_locally_administered():
    assert radio_mac(0, 0) == "02:68:78:00:00:00"
    assert radio_mac(258, 1) == "02:68:78:01:02:01"
    first = int(radio_mac(5, 0).split(":")[0], 16)
    assert first & 0x02 and not first & 0x01

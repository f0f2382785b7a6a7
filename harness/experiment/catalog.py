"""Declared builders, policies and medium parameters (names, types, ranges; no kernel code).

Add a builder or policy here when you write its realisation: declare its parameters and the
dotted path of the function that realises it (imported only when a run executes).
"""
from __future__ import annotations

from typing import Any, Dict

from harness.experiment.registry import Builder, ParamSpec, Policy, Registry, SchemaError

#: Congestion-control modules in mainline Linux (``net.ipv4.tcp_congestion_control``).
CONGESTION_MODULES = ("reno", "cubic", "bic", "htcp", "vegas", "veno", "westwood", "illinois", "bbr")

#: Legacy 802.11b (1-11) and OFDM 802.11a/g (6-54) rates in Mbit/s, or rate control.
RATES = (1, 2, 5.5, 11, 6, 9, 12, 18, 24, 36, 48, 54, "auto")

DSSS_RATES = (1, 2, 5.5, 11)

#: Chain geometry presets (the medium engineer maps each to ranges and propagation):
#:   ns2          spacing 200 m, tx range 250 m, interference 550 m (paper 004, E8)
#:   ns2-edge     spacing 250 m = tx range, interference ~2x tx (paper 001, E7)
#:   one-domain   neighbours-only links, every node inside everyone's carrier sense (paper 002, E10)
#:   custom       positions from ``spacing``; ranges from the medium section
#:   ns2-001      paper 001: 250 m spacing = tx range, 500 m interference, queue 25, basic 1 Mbit/s
#:   ns2-004      paper 004: 200 m spacing, 250/550 m, capture 10 dB, queue 50, basic 1 Mbit/s
GEOMETRIES = ("ns2", "ns2-edge", "one-domain", "custom", "ns2-001", "ns2-004")

CHAIN = Builder(
    name="chain",
    build="topologies.chain:build",
    doc="Stations sta1 .. sta<hops+1> on a line; static routes (ibss) or HWMP (mesh).",
    params=(
        ParamSpec("hops", "int", "links between the end stations", default=3, min=1, max=64),
        ParamSpec("spacing", "float", "metres between neighbours", default=None, min=0.1,
                  nullable=True, null_label="from the geometry preset"),
        ParamSpec("geometry", "choice", "geometry preset", default="ns2", choices=GEOMETRIES),
        ParamSpec("mode", "choice", "802.11 mode of the radios", default="ibss",
                  choices=("ibss", "mesh")),
        ParamSpec("rate", "choice", "fixed PHY rate in Mbit/s, or auto (minstrel)",
                  default="auto", choices=RATES),
        ParamSpec("rts", "bool", "RTS/CTS before every data frame", default=False),
        ParamSpec("phy", "choice", "802.11b (DSSS/CCK) or g (OFDM)", default="g",
                  choices=("b", "g")),
        ParamSpec("channel", "int", "2.4 GHz channel", default=1, min=1, max=14),
        ParamSpec("txpower_dbm", "float", "transmit power", default=None, min=-10.0, max=30.0,
                  nullable=True, null_label="radio default"),
        ParamSpec("retry_limit", "int", "short and long retry limit", default=None, min=1,
                  max=31, nullable=True, null_label="kernel default"),
    ),
)


def _scalar(name: str, apply: str, spec: ParamSpec, doc: str) -> Policy:
    return Policy(name=name, apply=apply, params=(spec,), scalar=True, doc=doc)


POLICIES = (
    _scalar("cwnd_clamp", "policies.window:cwnd_clamp",
            ParamSpec("cwnd_clamp", "int", "max congestion window in segments", min=1, max=1024,
                      nullable=True, null_label="unclamped"),
            "route metric 'cwnd lock N' on the sender (verified with ss)"),
    _scalar("rwnd_clamp", "policies.window:rwnd_clamp",
            ParamSpec("rwnd_clamp", "int", "max advertised window in segments", min=1, max=1024,
                      nullable=True, null_label="unclamped"),
            "receiver window limit (window clamp on the receiver)"),
    _scalar("delayed_ack", "policies.ack:delayed_ack",
            ParamSpec("delayed_ack", "bool", "Linux delayed ACK (false = quickack)", default=True),
            "false sets 'quickack 1' on the receiver's routes: one ACK per segment"),
    _scalar("sack", "policies.tcp:sack",
            ParamSpec("sack", "bool", "selective acknowledgements", default=True),
            "net.ipv4.tcp_sack in every node"),
    _scalar("congestion", "policies.tcp:congestion",
            ParamSpec("congestion", "choice", "default congestion module for every flow",
                      default="cubic", choices=CONGESTION_MODULES),
            "default for flows that do not name one; loads the module"),
    _scalar("adaptive_window", "policies.adaptive_window:adaptive_window",
            ParamSpec("adaptive_window", "bool", "window limit from the round-trip hop count "
                      "(paper 001's table)", default=False),
            "route 'cwnd lock N' on the sender, N from the RTHC of the route in force"),
    _scalar("mss", "policies.segment_size:segment_size",
            ParamSpec("mss", "int", "MSS the receiver advertises (bytes)", min=40, max=1460,
                      nullable=True, null_label="Linux default"),
            "route 'advmss N' on the receiver: smaller data segments (paper 004, Table 1)"),
    Policy(
        name="mac", apply="policies.mac:apply",
        doc="802.11 settings of every radio (overrides the builder's rate/rts)",
        params=(
            ParamSpec("rate", "choice", "fixed PHY rate in Mbit/s or auto", default=None,
                      choices=RATES, nullable=True, null_label="unchanged"),
            ParamSpec("rts", "bool", "RTS/CTS on (threshold 0) or off", default=None,
                      nullable=True, null_label="unchanged"),
            ParamSpec("retry_limit", "int", "short and long retry limit", default=None,
                      min=1, max=31, nullable=True, null_label="unchanged"),
        ),
    ),
)

#: Medium settings; names follow mediumd's config keys (docs/medium.md) so they pass through.
MEDIUM = (
    ParamSpec("enabled", "bool", "run mediumd (false: plain hwsim, every radio hears every frame)",
              default=True),
    ParamSpec("propagation", "choice", "propagation model", default=None, nullable=True,
              null_label="the geometry's", choices=("free_space", "log_distance", "two_ray", "indoor")),
    ParamSpec("exponent", "float", "path-loss exponent (log_distance)", default=None, min=1.0,
              max=8.0, nullable=True, null_label="model default"),
    ParamSpec("height", "float", "antenna height in metres (two_ray)", default=None, min=0.1,
              nullable=True, null_label="model default"),
    ParamSpec("tx_range", "float", "transmission range in metres", default=None, min=1.0,
              nullable=True, null_label="from the model"),
    ParamSpec("cs_range", "float", "carrier-sense/interference range in metres", default=None,
              min=1.0, nullable=True, null_label="from the model"),
    ParamSpec("capture_threshold", "float", "capture threshold in dB", default=None, min=0.0,
              nullable=True, null_label="medium default"),
    ParamSpec("queue", "int", "per-radio queue in frames", default=None, min=1, max=255,
              nullable=True, null_label="medium default"),
    ParamSpec("shadowing", "float", "static log-normal shadowing sigma in dB", default=None,
              min=0.0, nullable=True, null_label="none"),
    ParamSpec("fading", "choice", "per-frame fading", default=None, nullable=True,
              null_label="none", choices=("none", "rayleigh", "lognormal")),
    ParamSpec("fading_sigma", "float", "lognormal fading sigma in dB", default=None, min=0.0,
              nullable=True, null_label="none"),
    ParamSpec("pcap", "bool", "write a radiotap pcap of every frame", default=False),
)


def check_rate_fits_phy(params: Dict[str, Any]) -> None:
    """802.11b radios have only the DSSS/CCK rates; catch ``phy: b`` + ``rate: 54`` up front."""
    topology = params["topology"]
    if topology.get("phy") != "b":
        return
    allowed = "1, 2, 5.5, 11, auto"
    mac = params["policy"].get("mac") or {}
    for path, rate in (("topology.rate", topology.get("rate")), ("policy.mac.rate", mac.get("rate"))):
        if rate not in (None, "auto") and rate not in DSSS_RATES:
            raise SchemaError(path, f"{rate} Mbit/s is not an 802.11b rate (topology.phy is b); "
                                    f"allowed: {allowed}")


def build_registry() -> Registry:
    """A fresh registry with everything declared in this module."""
    registry = Registry()
    registry.add_check(check_rate_fits_phy)
    registry.add_builder(CHAIN)
    for policy in POLICIES:
        registry.add_policy(policy)
    registry.add_medium_params(MEDIUM)
    return registry

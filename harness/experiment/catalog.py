"""The registry's contents: the builders of ``topologies/``, the policies and medium settings.

Builders declare themselves in their own modules (``topologies.BUILDERS``). Policies are
listed here with the dotted path of the factory that realises them (imported only when a run
executes): add a policy here when you write its realisation. A policy whose value has a rule
beyond true or false declares its parameters in its own module and checks its value with them
(``policies.mac.PARAMS``, ``policies.westwood.PARAMS``, ``policies.segment_size.PARAM``, the
old-kernel tables of ``policies.tcp``); this list takes them from there. A rule that several
keys follow is declared once where its fact lives: a radio's (``harness.kernel.wireless``:
``RETRY_LIMIT``, ``CHANNEL`` ...), a window clamp (``harness.kernel.tcp.WINDOW_CLAMP``), a host
latency (``harness.kernel.shaping.DELAY_MS``), the medium's keys (``harness.medium.spec``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict

from harness.experiment.registry import ParamSpec, Policy, Registry, SchemaError
from harness.kernel.mac80211 import VARIANTS as MAC80211_VARIANTS
from harness.kernel.shaping import DELAY_MS
from harness.kernel.tcp import CONGESTION_MODULES, WINDOW_CLAMP
from harness.kernel.wireless import DSSS_RATES
from harness.medium.mobility.models import MODELS as MOBILITY_MODELS
from harness.medium.mobility.setting import canonical as mobility_canonical
from harness.medium.spec import (
    CCK_INTERFERENCE_WEIGHT,
    DB_AT_LEAST_0,
    EXPONENT,
    FADING_COHERENCE_MS,
    FADING_MODELS,
    LINK_KEYS,
    METRES,
    PROPAGATION_MODELS,
    QUEUE_FRAMES,
    RATE_LOSS_DB,
    RETRY_SERIES,
    RTS_FLAGS,
)
from policies import frame_travel, segment_size, westwood
from policies import tcp as tcp_policies
from policies.mac import PARAMS as MAC_PARAMS
from topologies import BUILDERS

if TYPE_CHECKING:
    from harness.medium.spec import MediumSpec
    from harness.net.topo import Topology


def _scalar(name: str, apply: str, spec: ParamSpec, doc: str) -> Policy:
    return Policy(name=name, apply=apply, params=(spec,), scalar=True, doc=doc)


POLICIES = (
    _scalar("cwnd_clamp", "policies.window:cwnd_clamp",
            WINDOW_CLAMP.variant(name="cwnd_clamp", doc="max congestion window in segments"),
            "route metric 'cwnd lock N' on the sender (verified with ss)"),
    _scalar("rwnd_clamp", "policies.window:rwnd_clamp",
            WINDOW_CLAMP.variant(name="rwnd_clamp", doc="max advertised window in segments"),
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
    _scalar("tcp_buffers", "policies.tcp:tcp_buffers", tcp_policies.Buffers.PARAM,
            "net.ipv4.tcp_rmem, tcp_wmem, tcp_adv_win_scale in every node (paper 003)"),
    _scalar("tcp_recovery", "policies.tcp:tcp_recovery", tcp_policies.Recovery.PARAM,
            "net.ipv4.tcp_recovery, tcp_early_retrans, tcp_frto = 0 in every node (paper 000)"),
    _scalar("max_rto", "policies.tcp:max_rto", tcp_policies.MaxRto.PARAM,
            "net.ipv4.tcp_rto_max_ms in every node (Linux 6.15+; paper 001's mobile runs)"),
    _scalar("tx_delay", "policies.tx_delay:tx_delay",
            DELAY_MS.variant(name="tx_delay", doc="ms every packet waits before a node's radio "
                             "(host latency)", nullable=True, null_label="none"),
            "netem delay on every radio interface's egress, read back (paper 000)"),
    _scalar("adaptive_window", "policies.adaptive_window:adaptive_window",
            ParamSpec("adaptive_window", "bool", "window limit from the round-trip hop count "
                      "(paper 001's table)", default=False),
            "route 'cwnd lock N' on the sender, N from the RTHC of the route in force"),
    _scalar("mss", "policies.segment_size:segment_size", segment_size.PARAM,
            "route 'advmss N' on the receiver: smaller data segments (paper 004, Table 1)"),
    _scalar("warm_arp", "policies.warmup:warm_arp",
            ParamSpec("warm_arp", "bool", "ping along every flow before the flows start",
                      default=False),
            "neighbour (ARP) entries resolved on a quiet medium: hidden senders' ARP "
            "broadcasts otherwise collide and iperf3 fails to connect"),
    Policy(
        name="hxwestwood", apply="policies.westwood:hxwestwood",
        doc="constants of the harness's Westwood+ module (congestion: hxwestwood; paper 003)",
        params=westwood.PARAMS,
    ),
    _scalar("mesh_path", "policies.mesh_path:mesh_path",
            ParamSpec("mesh_path", "bool", "check and record the 802.11s path before the "
                      "flows", default=False),
            "pings, iw mpath/station dump and the medium's per-link counters: the path in force "
            "must be the declared chain (paper 002)"),
    _scalar("airtime_retry", "policies.airtime_retry:airtime_retry",
            ParamSpec("airtime_retry", "choice", "retry limit from the diameter's airtime "
                      "metric (paper 002 Eq. 5), Eq. 4's case", default=None,
                      choices=tuple(frame_travel.CASES), nullable=True, null_label="off"),
            "largest limit keeping T_MultiHop under RTO_min, set on every mesh point at run time"),
    _scalar("mac80211", "policies.kernel_build:mac80211_build",
            ParamSpec("mac80211", "choice", "the build of the kernel's mac80211 the radios run "
                      "on", default=None, choices=MAC80211_VARIANTS, nullable=True,
                      null_label="the kernel's own"),
            "fail-avg-3.12: mac80211 rebuilt with Linux 3.12's mesh link-failure average "
            "(VM image only; loaded before the radios; paper 002)"),
    Policy(name="mac", apply="policies.mac:apply", params=MAC_PARAMS,
           doc="802.11 settings of every radio (overrides the builder's rate/rts)"),
)

#: Medium settings; names follow mediumd's config keys (docs/medium.md) so they pass through.
MEDIUM = (
    ParamSpec("enabled", "bool", "run mediumd (false: plain hwsim, every radio hears every frame)",
              default=True),
    ParamSpec("propagation", "choice", "propagation model", default=None, nullable=True,
              null_label="the geometry's", choices=PROPAGATION_MODELS),
    EXPONENT.variant(nullable=True, null_label="model default"),
    METRES.variant(name="height", doc="antenna height in metres (two_ray)", nullable=True,
                   null_label="model default"),
    METRES.variant(name="tx_range", doc="transmission range in metres", nullable=True,
                   null_label="from the model"),
    METRES.variant(name="cs_range", doc="carrier-sense/interference range in metres",
                   nullable=True, null_label="from the model"),
    DB_AT_LEAST_0.variant(name="capture_threshold", doc="capture threshold in dB", nullable=True,
                          null_label="medium default"),
    CCK_INTERFERENCE_WEIGHT.variant(doc="weight G of interference against CCK payloads, "
                                    "S / (N + G I): 2 = the medium's, 16 = no suppression "
                                    "(docs/medium.md)", nullable=True,
                                    null_label="medium default (2)", omit_default=True),
    ParamSpec("rate_loss", "floatmap", "receiver implementation loss in dB per rate (Mbit/s), "
              "e.g. {5.5: 4.6, 11: 2.7}: the SINR a rate's error formula sees is lowered by it "
              "(docs/medium.md)", default=None, min=RATE_LOSS_DB.min, max=RATE_LOSS_DB.max,
              nullable=True, null_label="none (the ideal formulas)", omit_default=True),
    ParamSpec("rts_flags", "choice", "which attempts use RTS/CTS: each rate-table entry's flag "
              "(per_entry, as mac80211 asks: minstrel flags its fallback entries) or the "
              "frame's first entry's (first_entry: the RTS threshold alone decides)",
              default=None, nullable=True, null_label="per_entry",
              choices=RTS_FLAGS, omit_default=True),
    ParamSpec("retry_series", "choice", "how many tries a frame gets: its kernel rate "
              "table's entries (kernel; minstrel asks fewer than the retry limit at slow rates) "
              "or one series at the first entry's rate and RTS flag until a retry limit is "
              "reached (single: madwifi at a fixed rate, 11 tries)",
              default=None, nullable=True, null_label="kernel",
              choices=RETRY_SERIES, omit_default=True),
    ParamSpec("nav_reset", "bool", "reset a NAV set from an overheard RTS when nothing starts "
              "on the air within 2 SIFS + CTS + PHY-RX-START delay + 2 slots (the RTS went "
              "unanswered), as 802.11 permits (9.3.2.4)", default=None, nullable=True,
              null_label="off", omit_default=True),
    QUEUE_FRAMES.variant(nullable=True, null_label="medium default"),
    ParamSpec("queues", "intmap", "per-node queue in frames, e.g. {ap1: 20} (overrides queue)",
              default=None, min=QUEUE_FRAMES.min, max=QUEUE_FRAMES.max, nullable=True,
              null_label="none", omit_default=True),
    DB_AT_LEAST_0.variant(name="shadowing", doc="static log-normal shadowing sigma in dB",
                          nullable=True, null_label="none"),
    ParamSpec("fading", "choice", "per-frame fading", default=None, nullable=True,
              null_label="none", choices=FADING_MODELS),
    DB_AT_LEAST_0.variant(name="fading_sigma", doc="lognormal fading sigma in dB", nullable=True,
                          null_label="none"),
    FADING_COHERENCE_MS.variant(doc="fading coherence time in ms: a radio pair's fade drifts "
                                "(bursts of loss) instead of a fresh draw per frame",
                                nullable=True, null_label="per frame", omit_default=True),
    ParamSpec("links", "maplist", "overrides of single links, e.g. [{a: sta1, b: sta2, per: "
              "0.3}]: a, b (node names), one of loss / snr (dB) / none / model, per (an "
              "independent loss probability on every PPDU, after the SINR draw), oneway "
              "(docs/medium.md)", default=None, nullable=True, null_label="none",
              choices=LINK_KEYS, omit_default=True),
    ParamSpec("basic_rates", "listmap", "basic rate set per PHY, e.g. {b: [1, 2]}: the "
              "medium sends RTS, CTS and ACK at the highest basic rate <= the frame's data "
              "rate (802.11's control-response rule; docs/medium.md)", default=None,
              nullable=True, null_label="the set each radio joined with: every DSSS rate in "
              "802.11b", omit_default=True),
    ParamSpec("pcap", "bool", "write a radiotap pcap of every frame", default=False),
    ParamSpec("mobility", "mapping", "nodes that move: model (one of "
              + ", ".join(MOBILITY_MODELS) + ") and its parameters, area "
              "{x: [min, max], y: [min, max], z: [min, max]}, nodes (default every node with "
              "a radio), duration (s, default the run's); docs/mobility.md", default=None,
              nullable=True, null_label="nodes stay where the topology puts them",
              omit_default=True, check_with=mobility_canonical),
)


def check_rate_fits_phy(params: Dict[str, Any]) -> None:
    """802.11b radios have only the DSSS/CCK rates; catch ``phy: b`` + ``rate: 54`` up front."""
    topology = params["topology"]
    if topology.get("phy") != "b":
        return
    allowed = ", ".join(f"{r:g}" for r in DSSS_RATES) + ", auto"
    mac = params["policy"].get("mac") or {}
    for path, rate in (("topology.rate", topology.get("rate")), ("policy.mac.rate", mac.get("rate"))):
        if rate not in (None, "auto") and rate not in DSSS_RATES:
            raise SchemaError(path, f"{rate} Mbit/s is not an 802.11b rate (topology.phy is b); "
                                    f"allowed: {allowed}")


def check_network_fits(params: Dict[str, Any]) -> None:
    """The topology the builder describes, checked the way ``Network.start`` checks it first
    (an access point needs a switch, a managed station an access point in range on this
    medium): a bad file fails at validation, before any VM boots. Describing starts nothing."""
    from harness.errors import HarnessError
    from harness.experiment import realise
    from harness.medium.spec import MediumSpec, medium_with_defaults
    from harness.net import check_topology
    from harness.net.coverage import medium_for
    builder = BUILDERS.get(params["topology"]["builder"])
    if builder is None:  # a builder of a custom registry: checked when it runs
        return
    try:
        topo = realise.routed(builder.build(**realise.builder_arguments(params["topology"])),
                              params["topology"])
        settings = realise.medium_settings(params)
        enabled = settings.pop("enabled", True)
        # as the run merges them (execute.medium_choice): the place's settings under these
        try:
            spec = (MediumSpec.from_dict(medium_with_defaults(topo.medium, settings))
                    if enabled else None)
        except SchemaError:  # placed at its key already (medium.mobility...)
            raise
        except HarnessError as err:  # names its medium key itself
            raise SchemaError("", str(err)) from None
        if spec is not None:
            _check_link_ends(spec, topo)
            _check_mobility_fits(spec, topo)
        check_topology(topo, medium_for(topo, spec))
    except SchemaError:
        raise
    except HarnessError as err:
        raise SchemaError("topology", str(err)) from None


def _check_link_ends(spec: MediumSpec, topo: Topology) -> None:
    """``medium.links``' ends must be nodes with a radio (MACs are checked when the config is
    written: they exist only once the radios do)."""
    radios = sorted(set(topo.stations) | set(topo.access_points))
    for i, link in enumerate(spec.links):
        for key, name in (("a", link.a), ("b", link.b)):
            if ":" not in name and name not in radios:
                raise SchemaError(f"medium.links[{i}].{key}", f"{name!r} is not a node with "
                                  f"a radio in this topology; allowed {', '.join(radios)}")


def _check_mobility_fits(spec: MediumSpec, topo: Topology) -> None:
    """``medium.mobility`` made into trajectories once, with seed 0, for this topology's
    nodes: a node that is not there, a node outside the area, a trace file that moves other
    nodes fail here, before the run (a few ms: the models are pure Python)."""
    if spec.mobility is None:
        return
    positions = {name: node.position for name, node in topo.stations.items()}
    positions.update((name, ap.position) for name, ap in topo.access_points.items())
    spec.mobility.trajectories(positions, seed=0)


def check_one_retry_limit(params: Dict[str, Any]) -> None:
    """The Eq. 5 policy chooses the retry limit itself: a fixed one beside it is a contradiction."""
    if params["policy"].get("airtime_retry") is None:
        return
    mac = params["policy"].get("mac") or {}
    for path, value in (("policy.mac.retry_limit", mac.get("retry_limit")),
                        ("topology.retry_limit", params["topology"].get("retry_limit"))):
        if value is not None:
            raise SchemaError(path, f"{value} fixes the retry limit, and policy.airtime_retry "
                                    "chooses it at run time: allowed one of them per run")


def build_registry() -> Registry:
    """A fresh registry: every builder of ``topologies/``, the policies and medium keys here."""
    registry = Registry()
    registry.add_check(check_rate_fits_phy)
    registry.add_check(check_network_fits)
    registry.add_check(check_one_retry_limit)
    for builder in BUILDERS.values():
        registry.add_builder(builder)
    for policy in POLICIES:
        registry.add_policy(policy)
    registry.add_medium_params(MEDIUM)
    return registry

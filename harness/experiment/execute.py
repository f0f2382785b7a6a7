"""The executor: one run of an experiment on real kernels (docs/experiments.md §6).

``execute_run`` builds the topology with its builder, lets the policies change the description,
starts the network (with the medium unless ``medium.enabled`` is false), applies the policies,
runs the flows with ``ss`` sampling, verifies the policies from the samples, collects the
medium's counters, and always tears the network down (also on Ctrl-C, which propagates).
A policy that did not hold fails the run with ``InvalidRun``, which carries the whole
measurement, so the failed record keeps the samples that explain it.
"""
from __future__ import annotations

import functools
import os
import platform
import subprocess
import threading
import time
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple, Union

from harness.errors import HarnessError, InvalidRun
from harness.experiment import realise
from harness.experiment.registry import Registry, default_registry, load_callable
from harness.experiment.runner import FILES_ENV
from harness.kernel.tcp import require_modules
from harness.medium import counters, daemon
from harness.medium.spec import medium_with_defaults
from harness.net import Network, Topology, routing

if TYPE_CHECKING:
    from harness.traffic.flows import Flow, FlowRun
    from policies import FlowPlan, Policy, RunContext

#: Seconds between ``ss`` samples of a flow's sender (read over sock_diag from a thread of
#: this process, no process per sample).
SS_INTERVAL = 0.5
#: ... of a bulk transfer's sender: its completion time is read from the samples.
BULK_SS_INTERVAL = 0.1
#: Seconds between samples of the queues of access points and managed stations.
QUEUE_INTERVAL = 0.5
#: First iperf3 port; flow k uses BASE_PORT + k.
BASE_PORT = 5201


# -- environment ------------------------------------------------------------------------
def _iperf3_version() -> Optional[str]:
    try:
        out = subprocess.run(["iperf3", "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    first = (out.stdout or out.stderr).strip().splitlines()
    return first[0] if first else None


def detect_accel(cpuinfo: str, clocksources: str) -> str:
    """``kvm``/``tcg`` when this kernel runs in a virtual machine, ``none`` on bare metal
    (pure: inputs are file contents): the ``hypervisor`` CPU flag says "virtual", and
    kvm-clock says KVM (TCG offers none)."""
    flags = set()
    for line in cpuinfo.splitlines():
        if line.startswith("flags"):
            flags.update(line.partition(":")[2].split())
            break
    if "hypervisor" not in flags:
        return "none"
    return "kvm" if "kvm-clock" in clocksources.split() else "tcg"


def _read(path: str) -> str:
    try:
        with open(path) as fh:
            return fh.read()
    except OSError:
        return ""


@functools.lru_cache(maxsize=1)
def environment() -> Dict[str, Any]:
    """Kernel, iperf3, native/VM, TCG/KVM: called once per sweep by the runner."""
    in_vm = os.environ.get("HARNESS_IN_VM") == "1"
    accel = detect_accel(_read("/proc/cpuinfo"),
                         _read("/sys/devices/system/clocksource/clocksource0/"
                               "available_clocksource"))
    # natively, and in a guest on the host's wall clock, time is real; in a UML guest in
    # time-travel mode it is virtual (docs/engine.md)
    clock = os.environ.get("HARNESS_VM_CLOCK", "realtime") if in_vm else "realtime"
    if os.environ.get("HARNESS_GUEST") == "uml":
        accel = "none"  # a UML guest's processes run on the host CPU, traced by its kernel
    return {"kernel": platform.release(), "iperf3": _iperf3_version(),
            "where": "vm" if in_vm else "native", "accel": accel,
            "engine": os.environ.get("HARNESS_GUEST", "uml") if in_vm else "native",
            "cpus": os.cpu_count(), "clock": clock}


# -- building ---------------------------------------------------------------------------
def build_topology(params: Dict[str, Any], registry: Registry) -> Topology:
    """The builder's ``Topology`` for ``params['topology']``."""
    name = params["topology"]["builder"]
    if name not in registry.builders:
        raise HarnessError(f"topology.builder {name!r} is unknown: allowed "
                           + ", ".join(sorted(registry.builders)))
    build = load_callable(registry.builders[name].build, f"builder {name}")
    topo = build(**realise.builder_arguments(params["topology"]))
    if not isinstance(topo, Topology):
        raise HarnessError(f"topology.builder {name!r} returned {type(topo).__name__}, "
                           "not a harness.net.Topology")
    return realise.routed(topo, params["topology"])


def make_policies(params: Dict[str, Any], registry: Registry) -> List[Policy]:
    """One policy object per key of ``params['policy']``, in the catalog's order."""
    given = params.get("policy") or {}
    unknown = set(given) - set(registry.policies)
    if unknown:
        raise HarnessError(f"policy {sorted(unknown)} unknown: allowed "
                           + ", ".join(registry.policies))
    out: List[Policy] = []
    for name, decl in registry.policies.items():
        if name in given:
            factory = load_callable(decl.apply, f"policy {name}")
            out.append(factory(given[name]))
    return out


def medium_choice(params: Dict[str, Any], implied: Optional[Dict[str, Any]] = None
                  ) -> Tuple[Union[str, Dict[str, Any]], Dict[str, Any]]:
    """What to hand ``Network(medium=...)`` and what to record about the medium
    (``medium.enabled: false`` is plain hwsim). ``implied``: the settings the topology's place
    implies (``Topology.medium``, e.g. a campus's walls), under the experiment's own."""
    settings = realise.medium_settings(params)
    enabled = settings.pop("enabled", True)
    if not enabled:
        return "none", {"enabled": False}
    settings = medium_with_defaults(implied or {}, settings)
    record = {"enabled": True, "settings": settings}
    files = os.environ.get(FILES_ENV)
    if settings.get("pcap") is True and files:  # kept in the store, not in the guest's /tmp
        settings = dict(settings, pcap=os.path.join(files, "medium.pcap"))
    return settings, record


def collect_medium(net: Network) -> Dict[str, Any]:
    """The medium's final counters (per link, per radio, lag), read after ``net.stop()``:
    mediumd writes them when it stops, so they cover the whole run."""
    try:
        stats = daemon.stats_for(net)
    except HarnessError as err:
        return {"counters_error": str(err)}
    out: Dict[str, Any] = {"summary": counters.summary(stats), "counters": stats} if stats else {}
    handle = daemon.handle_for(net)
    if handle is not None and getattr(handle, "pcap_path", None):
        out["pcap"] = str(handle.pcap_path)
    if handle is not None and getattr(handle, "mobility", None):
        out["mobility"] = handle.mobility  # the trajectories, replayable (mobility.record)
    return out


# -- flows ------------------------------------------------------------------------------
def plan_flows(params: Dict[str, Any], nodes: List[str],
               aliases: Optional[Dict[str, str]] = None
               ) -> Tuple[List[Dict[str, Any]], List[FlowPlan]]:
    """Flow instances (``realise.flow_instances``) and their ``FlowPlan`` for the policies."""
    from policies import FlowPlan
    instances = realise.flow_instances(params, nodes, aliases)
    plans = [FlowPlan(index=k, src=f["src"], dst=f["dst"], reverse=f["direction"] == "reverse",
                      congestion=f.get("congestion") if f["protocol"] == "tcp" else None,
                      protocol=f["protocol"], port=BASE_PORT + k)
             for k, f in enumerate(instances)]
    return instances, plans


def iperf_flow(instance: Dict[str, Any], plan: FlowPlan) -> Flow:
    """``harness.traffic.flows.Flow`` for one flow instance."""
    from harness.traffic.flows import Flow
    bitrate = instance.get("bitrate")
    rate = f"{int(bitrate)}" if bitrate else None
    extra = ["-b", rate] if rate and plan.protocol == "tcp" else []
    return Flow(plan.src, plan.dst, duration=float(instance["duration"]), protocol=plan.protocol,
                congestion=plan.congestion, reverse=plan.reverse,
                bitrate=rate if plan.protocol == "udp" else None, port=plan.port, extra=extra,
                bytes=instance.get("bytes"))


def run_flows(net: Network, instances: List[Dict[str, Any]], plans: List[FlowPlan],
              ss_interval: float = SS_INTERVAL) -> List[FlowRun]:
    """Run every flow (concurrently, each from its ``start``); returns ``FlowRun`` per flow.

    One flow runs in this thread (Ctrl-C lands here directly). With several, every iperf3
    server is started (and listens) first, then the clients in daemon threads this thread
    waits for, each at its ``start``: flows meant to start together do (a server started per
    flow in its own thread would start each client only after its server listened, seconds
    apart under TCG). Ctrl-C still lands here and the teardown stops their processes.
    Bulk transfers are sampled every ``BULK_SS_INTERVAL`` (their completion comes from it).
    """
    from harness.traffic.flows import run_client, run_flow
    from harness.traffic.servers import flow_servers
    flows = [iperf_flow(i, p) for i, p in zip(instances, plans)]
    intervals = [BULK_SS_INTERVAL if f.bytes else ss_interval for f in flows]
    if len(flows) == 1 and not instances[0]["start"]:
        return [run_flow(net, flows[0], sample_ss=True, ss_interval=intervals[0])]
    results: List[Optional[FlowRun]] = [None] * len(flows)
    errors: List[Tuple[int, BaseException]] = []

    def one(k: int) -> None:
        try:
            delay = float(instances[k]["start"]) - (time.monotonic() - t0)
            if delay > 0:
                time.sleep(delay)
            results[k] = run_client(net, flows[k], server=servers[k], sample_ss=True,
                                    ss_interval=intervals[k])
        except BaseException as err:  # reported by the main thread
            errors.append((k, err))

    with flow_servers([(net[f.dst], f.port, bool(f.bytes)) for f in flows]) as servers:
        t0 = time.monotonic()
        threads = [threading.Thread(target=one, args=(k,), daemon=True, name=f"flow{k}")
                   for k in range(len(flows))]
        for t in threads:
            t.start()
        for t in threads:
            while t.is_alive():
                t.join(0.2)
    if errors:
        k, err = errors[0]
        raise HarnessError(f"flow {k} ({plans[k].src} -> {plans[k].dst}) failed: {err}") from err
    return [r for r in results if r is not None]  # every thread returned a run (no error)


def flow_record(instance: Dict[str, Any], plan: FlowPlan, run: FlowRun,
                checks: Dict[str, Any], origin: Optional[float] = None) -> Dict[str, Any]:
    """One flow's entry in the record: iperf3 result, ss samples, RTT/MSS summary, checks;
    a bulk transfer's ``completion_s``; ``ss_offset_s``, where its samples' clock starts on the
    run's (``origin``: the first flow's), to put flows and queues on one time axis."""
    from harness.traffic.flows import completion_s
    out = run.result.to_dict()
    out.update(flow=instance["flow"], copy=instance["copy"], sender=plan.sender,
               receiver=plan.receiver, port=plan.port)
    out["ss"] = [s.to_dict() for s in run.ss]
    rtts = [s.rtt_ms for s in run.ss if s.rtt_ms is not None]
    out["rtt_mean_ms"] = sum(rtts) / len(rtts) if rtts else None
    mss = [s.mss for s in run.ss if s.mss]
    out["mss"] = max(set(mss), key=mss.count) if mss else None
    if checks:
        out["checks"] = checks
    if run.incomplete:
        out["incomplete"] = run.incomplete
    if instance.get("bytes"):
        out["bytes_requested"] = instance["bytes"]
        if run.bulk is not None:  # the receiver's own clock: accept to the last byte
            out["completion_s"], out["completion_from"] = run.result.duration, "receiver"
            out["bulk"] = run.bulk
        else:  # cut at its time limit: only the samples say how far it got
            out["completion_s"] = completion_s(run.ss, instance["bytes"])
            out["completion_from"] = "samples"
    if origin is not None and run.t0 is not None:
        out["ss_offset_s"] = round(run.t0 - origin, 3)
    return out


def run_origin(runs: List[FlowRun], *others: Optional[float]) -> Optional[float]:
    """The run's time origin: the earliest sampler start (monotonic seconds)."""
    starts = [r.t0 for r in runs if r.t0 is not None] + [t for t in others if t is not None]
    return min(starts) if starts else None


# -- the run ----------------------------------------------------------------------------
def apply_policies(net: Network, policies: List[Policy], plans: List[FlowPlan]
                   ) -> Tuple[RunContext, List[str]]:
    """On a started network, before any traffic: the flows' congestion modules loaded, every
    policy applied, their route metrics installed (one route per pair). Priming follows
    (``Policy.prime``). Returns the context and the route commands (for the record)."""
    from policies import RunContext, routes
    ctx = RunContext(net, plans)
    wanted = sorted({p.congestion for p in plans if p.congestion})
    if wanted:
        net.ensure_congestion(wanted)
    for policy in policies:
        policy.apply(ctx)
    return ctx, routes.install(net, ctx.route_metrics)


def execute_run(params: Dict[str, Any], seed: int, *, run_id: str) -> Dict[str, Any]:
    """Execute one run (see the module docstring); returns the executor-contract dict."""
    from harness.traffic.queues import QueueSampler
    from policies import PolicyViolation, routes
    from policies.routes import node_ip

    registry = default_registry()
    topo = build_topology(params, registry)
    policies = make_policies(params, registry)
    for policy in policies:
        policy.prepare(topo)
    medium_arg, medium_record = medium_choice(params, topo.medium)
    instances, plans = plan_flows(params, topo.node_names(), topo.aliases)
    require_modules({f"flows[{i['flow']}].congestion": p.congestion
                     for i, p in zip(instances, plans) if p.congestion})
    net = Network(topo, name=f"run-{run_id}", medium=medium_arg, seed=seed)
    phases: Dict[str, float] = {}
    mark = [time.monotonic()]

    def phase(name: str) -> None:
        now = time.monotonic()
        phases[name] = round(now - mark[0], 3)
        mark[0] = now

    try:
        net.start()
        phase("start")
        routed = topo.routing != "static"
        if routed:  # the flows' routes exist before priming and traffic
            route_record = routing.converge(net, [(p.src, p.dst) for p in plans])
            phase("routing")
        ctx, route_cmds = apply_policies(net, policies, plans)
        phase("policies")
        for policy in policies:
            policy.prime(ctx)
        phase("priming")
        queues = QueueSampler(net, QUEUE_INTERVAL) if any(
            n.queue_interfaces() for n in net.nodes.values()) else None
        route_log = routing.RouteLog(net) if routed else None  # on the trajectories' clock
        if routed:  # a MANET's queues and drops are read over the flows (E9)
            medium_record["at_flows_start"] = counters.queue_snapshot(net.medium_stats())
        daemon.start_mobility(net)  # nodes move from here, as traffic starts
        try:
            runs = run_flows(net, instances, plans)
        finally:
            queue_samples = queues.stop() if queues is not None else None
            log = route_log.stop() if route_log is not None else None
        phase("flows")
        origin = run_origin(runs, queues.t0 if queues else None)
        flows = []
        violations: List[str] = []
        for instance, plan, run in zip(instances, plans, runs):
            checks = {}
            for policy in policies:
                try:
                    found = policy.verify(ctx, plan, run)
                except PolicyViolation as err:  # keep measuring: the record keeps the evidence
                    violations.append(str(err))
                    found = {"held": False, "error": str(err)}
                if found:
                    checks[policy.name] = found
            flows.append(flow_record(instance, plan, run, checks, origin))
        in_force = {f"{a}->{b}": routes.show(net[a], node_ip(net, b, "routes in force"))
                    for a, b in ctx.route_metrics}
    finally:
        net.stop()
    phase("stop")
    medium_record.update(collect_medium(net))
    result = {
        "flows": flows,
        "medium": medium_record,
        "environment": environment(),
        "policies": {p.name: p.record() for p in policies},
        "network": {"tag": net.tag, "nodes": topo.node_names(),
                    "routes": route_cmds, "routes_in_force": in_force,
                    "start_notes": {name: node.start_notes for name, node in net.nodes.items()
                                    if node.start_notes},
                    **({"routing": route_record, "route_log": log} if routed else {})},
        "notes": ctx.notes,
        "phase_seconds": phases,
    }
    if queues is not None and origin is not None:
        result["queues"] = {"offset_s": round(queues.t0 - origin, 3), "interval_s": QUEUE_INTERVAL,
                            "samples": queue_samples}
    if violations:
        raise InvalidRun("; ".join(violations), measured=result)
    return result

"""The harness's pytest plugin: markers, and emulation tests that run where they can.

Load it from a ``conftest.py`` with ``pytest_plugins = ["harness.testing.pytest_plugin"]``.

Markers: ``emulation`` (real namespaces and hwsim radios), ``slow`` (long suites, e.g. full
paper sweeps), ``paper`` (reproduces a published claim), ``parallel`` (``harness run
--jobs/--cluster`` driven from this host: never sent to a guest, they boot their own),
``vmhost`` (a command driven from this host, e.g. ``harness cli`` on its terminal: never sent
to a guest either).

Where emulation tests run:
- in UML guests (the default engine): the emulation items collected here are split by module
  into shards, each sent to a fresh guest; progress is streamed, and each test's outcome
  (with its failure text) is reported here as if it had run locally. ``--no-vm`` skips them;
- here, with ``--engine native`` (root and mac80211_hwsim) or inside a guest.
"""
from __future__ import annotations

import contextlib
import json
import os
import shlex
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ContextManager, Dict, Iterator, List, Optional, Tuple, Union

import pytest

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr
    from _pytest.nodes import Node

REMOTE_REPORT_OPTION = "--harness-report"
#: The outcome of a test a guest has started and not finished.
RUNNING = "running"
#: Fresh guests a shard may take after its guest died in a test (the tests not yet run go on
#: in the next one; the one it died in fails with the reason).
SHARD_RESTARTS = 3
#: One test's outcome as the guest reports it: outcome, and longrepr or reason.
Outcome = Dict[str, str]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("harness")
    group.addoption("--no-vm", action="store_true",
                    help="skip emulation tests on hosts without mac80211_hwsim instead of "
                         "running them in a guest")
    group.addoption(REMOTE_REPORT_OPTION, metavar="FILE",
                    help="(internal) write per-test outcomes as JSON, for the host session")


def pytest_configure(config: pytest.Config) -> None:
    for line in ("emulation: real namespaces and hwsim radios; runs natively or in a guest",
                 "slow: long emulation suites (full sweeps); deselect with -m 'not slow'",
                 "parallel: runs sweeps from this host with --jobs or --cluster (boots VMs "
                 "where the host has no mac80211_hwsim)",
                 "paper: checks a claim of a study's paper (studies/)",
                 "vmhost: drives the harness from this host as a user would, booting its own "
                 "guest where the host has no mac80211_hwsim (never sent to a guest)"):
        config.addinivalue_line("markers", line)
    if config.getoption(REMOTE_REPORT_OPTION):
        config.pluginmanager.register(OutcomeRecorder(config.getoption(REMOTE_REPORT_OPTION)),
                                      "harness-outcomes")


# -- deciding where emulation runs ------------------------------------------------------------
def _where_emulation_runs(config: pytest.Config) -> str:
    """'here', 'vm', or a reason to skip."""
    from harness.vm.dispatch import needs_vm
    if not needs_vm():  # in a guest, or --engine native (root and a loadable hwsim)
        return "here"
    if config.getoption("--no-vm"):
        return "no mac80211_hwsim on this host and --no-vm given"
    return "vm"


@pytest.hookimpl(trylast=True)  # after -m/-k deselection: only selected tests go to a guest
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: List[pytest.Item]) -> None:
    emulation = [i for i in items if i.get_closest_marker("emulation")]
    if not emulation:
        return
    where = _where_emulation_runs(config)
    if where == "here":
        return
    if where != "vm":
        for item in emulation:
            item.add_marker(pytest.mark.skip(reason=where))
        return
    batch = RemoteBatch(config, [i.nodeid for i in emulation])
    config.stash[_BATCH] = batch
    for index, item in enumerate(items):
        if item.get_closest_marker("emulation"):
            assert item.parent is not None  # a collected test always has its module or class
            items[index] = RemoteItem.from_parent(item.parent, name=item.name, batch=batch,
                                                  original=item)


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> None:
    batch = session.config.stash.get(_BATCH, None)
    if batch is not None and not session.config.option.collectonly:
        batch.run(session.config)
    return None  # the normal loop follows and reports each item


# -- the batch in a guest ----------------------------------------------------------------------
class RemoteBatch:
    """The emulation tests of this session, run in fresh guests: split by test module into as
    twice as many shards as host CPUs (each guest waits for a free one), one guest per shard, the
    shards at once. Results do not depend on the sharing in virtual time, only wall time does."""

    def __init__(self, config: pytest.Config, nodeids: List[str]):
        self.nodeids = nodeids
        self.rootdir = Path(str(config.rootpath))
        self.outcomes: Dict[str, Outcome] = {}
        self.passthrough = _passthrough(config)
        self._lock = threading.Lock()

    def run(self, config: pytest.Config) -> None:
        from harness.vm.uml import host_cpus
        tr = config.pluginmanager.get_plugin("terminalreporter")
        raw: Callable[[str], object] = tr.write if tr else sys.stdout.write

        def write(text: str) -> None:
            with self._lock:
                raw(text)

        # twice as many shards as host CPUs, each a guest that waits for a free CPU, so that
        # one long shard does not keep a CPU busy alone at the end
        shards = split_by_module(self.nodeids, 2 * len(host_cpus()))
        write(f"\nharness: {len(self.nodeids)} emulation test(s): running them in "
              f"{len(shards)} UML guest(s)\n")
        cwd = os.getcwd()
        try:
            os.chdir(self.rootdir)
            capman = config.pluginmanager.get_plugin("capturemanager")
            ctx: ContextManager[object] = (capman.global_and_fixture_disabled() if capman
                                           else contextlib.nullcontext())
            with ctx:
                threads = [threading.Thread(target=self._run_shard,
                                            args=(i, shard, write, len(shards) > 1))
                           for i, shard in enumerate(shards)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
        finally:
            os.chdir(cwd)

    def _run_shard(self, index: int, nodeids: List[str], write: Callable[[str], None],
                   prefixed: bool) -> None:
        """Run the shard's tests in a guest; if the guest dies (a hang the watchdog stopped),
        the test it was in fails with the reason and the tests it had not started go on in a
        fresh guest (at most ``SHARD_RESTARTS`` times)."""
        pending = list(nodeids)
        for attempt in range(SHARD_RESTARTS + 1):
            outcomes, error = self._run_guest(index, pending, write, prefixed)
            done = {n: o for n, o in outcomes.items() if o.get("outcome") != RUNNING}
            died_in = [n for n, o in outcomes.items() if o.get("outcome") == RUNNING]
            pending = [n for n in pending if n not in outcomes]
            with self._lock:
                self.outcomes.update(done)
                for nodeid in died_in:
                    self.outcomes[nodeid] = {"outcome": "failed", "longrepr":
                                             f"the guest stopped during this test: {error}"}
            if not error or not pending:
                break
            if not outcomes or attempt == SHARD_RESTARTS:  # no progress, or out of guests
                with self._lock:
                    for nodeid in pending:
                        self.outcomes.setdefault(nodeid, {"outcome": "failed", "longrepr": error})
                break
            write(f"[vm {index + 1}] harness: {error}\n[vm {index + 1}] harness: the "
                  f"{len(pending)} test(s) not yet run go on in a fresh guest\n")

    def _run_guest(self, index: int, nodeids: List[str], write: Callable[[str], None],
                   prefixed: bool) -> Tuple[Dict[str, Outcome], Optional[str]]:
        """One guest running ``nodeids``: the outcomes it wrote, and why it failed (or None)."""
        from harness.errors import HarnessError
        from harness.vm.dispatch import run_script
        # the guest may write one host folder: the checkout's results/, where the studies'
        # slow suites unpack and resume their records (at the host's path: OUTPUT_BASE_ENV)
        results = self.rootdir / "results"
        report_host = results / ".guest-outcomes" / f"outcomes-{os.getpid()}-{index}.json"
        report_host.parent.mkdir(parents=True, exist_ok=True)
        report_host.unlink(missing_ok=True)
        # the slowest tests of each guest are listed in its output (guest seconds): what a
        # shard's length comes from
        argv = ["python3", "-m", "pytest", "-p", "no:cacheprovider", "-q",
                "-p", "harness.testing.pytest_plugin", "--durations=8",
                f"{REMOTE_REPORT_OPTION}={report_host}"] + self.passthrough
        script = "exec " + " ".join(shlex.quote(a) for a in argv + nodeids)
        pending = [""]

        def out(text: str) -> None:
            if not prefixed:
                write(text)
                return
            pending[0] += text
            *lines, pending[0] = pending[0].split("\n")
            if lines:
                write("".join(f"[vm {index + 1}] {line}\n" for line in lines))

        error = None
        try:
            from harness.testing.study_runs import OUTPUT_BASE_ENV
            run_script(script, quiet=False, on_out=out, output=results,
                       env={OUTPUT_BASE_ENV: str(self.rootdir)})
        except HarnessError as err:
            error = f"a guest could not run the emulation tests: {err}"
        if pending[0]:
            write(f"[vm {index + 1}] {pending[0]}\n")
        outcomes: Dict[str, Outcome] = {}
        if report_host.exists():
            outcomes = json.loads(report_host.read_text())
            report_host.unlink()
        if not error and (not outcomes or any(o.get("outcome") == RUNNING
                                              for o in outcomes.values())):
            error = "the guest produced no results (see its output above)"
        return outcomes, error


def split_by_module(nodeids: List[str], shards: int) -> List[List[str]]:
    """At most ``shards`` groups of whole test modules (a module's tests share fixtures and
    run in order), balanced by their count of tests; the studies' suites (``studies/``) count
    four times (their tests are sweeps). Order within a group is the collection order."""
    modules: Dict[str, List[str]] = {}
    for nodeid in nodeids:
        modules.setdefault(nodeid.split("::", 1)[0], []).append(nodeid)

    def weight(module: str) -> int:
        return len(modules[module]) * (4 if module.startswith("studies/") else 1)

    groups: List[List[str]] = [[] for _ in range(max(1, min(shards, len(modules))))]
    loads = [0] * len(groups)
    for module in sorted(modules, key=weight, reverse=True):
        i = loads.index(min(loads))
        groups[i].append(module)
        loads[i] += weight(module)
    order = {nodeid: n for n, nodeid in enumerate(nodeids)}
    return [sorted((n for m in g for n in modules[m]), key=order.__getitem__) for g in groups if g]


#: Where the session keeps the batch between collection and the test loop.
_BATCH = pytest.StashKey[RemoteBatch]()


def _passthrough(config: pytest.Config) -> List[str]:
    """The host's options the guest's pytest must see: -x, -s (the paper suites print the
    table each claim was judged on) and -r (``-rP`` shows passed tests' output); failures and
    errors are always summarised."""
    args = ["-x"] if config.getoption("exitfirst", False) else []
    if config.getoption("capture", "fd") == "no":
        args.append("-s")
    chars = str(config.getoption("reportchars", "") or "")
    args.append("-rfE" + "".join(c for c in chars if c not in "fEN"))
    return args


class RemoteFailure(Exception):
    pass


class RemoteItem(pytest.Item):
    """Stands in for an emulation test that ran in a guest; reports its outcome there."""

    def __init__(self, *, batch: RemoteBatch, original: pytest.Item, **kw: Any):
        super().__init__(**kw)
        self.batch = batch
        self.own_markers = list(original.own_markers)
        self.keywords.update(original.keywords)
        self._location = original.location

    def iter_markers_with_node(self, name: Optional[str] = None
                               ) -> Iterator[Tuple[Node, pytest.Mark]]:
        """The test's marks but xfail: the guest judged the xfail (a strict one that passed is
        a failure there), and this item reports the guest's verdict as it came. Judged here
        again, a failure from a strict xfail that passed would read as expected."""
        for node, mark in super().iter_markers_with_node(name):
            if mark.name != "xfail":
                yield node, mark

    @property
    def location(self) -> Tuple[str, Optional[int], str]:
        return self._location

    def reportinfo(self) -> Tuple[str, Optional[int], str]:
        return self._location

    def runtest(self) -> None:
        outcome = self.batch.outcomes.get(self.nodeid)
        if outcome is None:
            raise RemoteFailure("no outcome came back from the guest for this test "
                                "(the run was interrupted or the test was not collected there)")
        if outcome["outcome"] == "skipped":
            pytest.skip(f"[in VM] {outcome.get('reason', '')}")
        if outcome["outcome"] == "xfailed":
            pytest.xfail(f"[in VM] {outcome.get('reason', '')}")
        if outcome["outcome"] != "passed":
            raise RemoteFailure(outcome.get("longrepr") or "failed in a guest")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> Union[str, TerminalRepr]:  # pytest's private Literal
        if excinfo.errisinstance(RemoteFailure):
            return f"[ran in a guest]\n{excinfo.value}"
        return super().repr_failure(excinfo, style)


class OutcomeRecorder:
    """In the VM: collect each test's outcome (setup/call/teardown combined) into JSON,
    written after every test and marked ``running`` while one runs, so that the host knows
    which test a guest that died was in and which never started."""

    def __init__(self, path: str):
        self.path = path
        self.outcomes: Dict[str, Outcome] = {}

    def pytest_runtest_logstart(self, nodeid: str, location: object) -> None:
        self.outcomes[nodeid] = {"outcome": RUNNING}
        self._write()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        entry = self.outcomes.setdefault(report.nodeid, {"outcome": "passed"})
        if entry["outcome"] == RUNNING:
            entry["outcome"] = "passed"
        if report.failed:  # a strict xfail that passed is one too
            entry["outcome"] = "failed"
            text = str(report.longrepr)
            entry["longrepr"] = (entry.get("longrepr", "") + f"[{report.when}] " + text).strip()
        elif report.skipped and hasattr(report, "wasxfail") and entry["outcome"] == "passed":
            entry["outcome"] = "xfailed"  # failed as its xfail mark expected
            entry["reason"] = str(report.wasxfail)
        elif report.skipped and entry["outcome"] == "passed":
            entry["outcome"] = "skipped"
            longrepr = report.longrepr
            entry["reason"] = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        if report.sections and report.failed:
            entry["longrepr"] += "\n" + "\n".join(f"--- {t} ---\n{c}" for t, c in report.sections)
        if report.when == "teardown":
            self._write()

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self._write()

    def _write(self) -> None:
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.outcomes, f)
        os.replace(tmp, self.path)

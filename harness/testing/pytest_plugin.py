"""The harness's pytest plugin: markers, and emulation tests that run where they can.

Load it from a ``conftest.py`` with ``pytest_plugins = ["harness.testing.pytest_plugin"]``.

Markers: ``emulation`` (real namespaces and hwsim radios), ``slow`` (long suites, e.g. full
paper sweeps), ``paper`` (reproduces a published claim), ``parallel`` (``harness run
--jobs/--cluster`` driven from this host: never sent to the VM, they boot their own).

Where emulation tests run:
- natively, when this host is root and has mac80211_hwsim (or this *is* the harness VM);
- otherwise in the harness VM, by themselves: the emulation items collected here are sent
  as one batch to a fresh guest, its progress is streamed, and each test's outcome (with its
  failure text) is reported here as if it had run locally. ``--no-vm`` skips them instead.
"""
from __future__ import annotations

import contextlib
import json
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ContextManager, Dict, List, Optional, Tuple, Union

import pytest

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

REMOTE_REPORT_OPTION = "--harness-report"
#: One test's outcome as the guest reports it: outcome, and longrepr or reason.
Outcome = Dict[str, str]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("harness")
    group.addoption("--no-vm", action="store_true",
                    help="skip emulation tests on hosts without mac80211_hwsim instead of "
                         "running them in the harness VM")
    group.addoption(REMOTE_REPORT_OPTION, metavar="FILE",
                    help="(internal) write per-test outcomes as JSON, for the host session")


def pytest_configure(config: pytest.Config) -> None:
    for line in ("emulation: real namespaces and hwsim radios; runs natively or in the harness VM",
                 "slow: long emulation suites (full sweeps); deselect with -m 'not slow'",
                 "parallel: runs sweeps from this host with --jobs or --cluster (boots VMs "
                 "where the host has no mac80211_hwsim)",
                 "paper: checks a claim of one of the reproduced papers"):
        config.addinivalue_line("markers", line)
    if config.getoption(REMOTE_REPORT_OPTION):
        config.pluginmanager.register(OutcomeRecorder(config.getoption(REMOTE_REPORT_OPTION)),
                                      "harness-outcomes")


# -- deciding where emulation runs ------------------------------------------------------------
def _where_emulation_runs(config: pytest.Config) -> str:
    """'here', 'vm', or a reason to skip."""
    from harness.kernel.host import in_vm, native_capable
    if in_vm() or native_capable():  # native_capable() means root and a loadable hwsim
        return "here"
    if config.getoption("--no-vm"):
        return "no mac80211_hwsim on this host and --no-vm given"
    return "vm"


@pytest.hookimpl(trylast=True)  # after -m/-k deselection: only selected tests go to the VM
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


# -- the batch in the VM ----------------------------------------------------------------------
class RemoteBatch:
    """The emulation tests of this session, run once in a fresh guest."""

    def __init__(self, config: pytest.Config, nodeids: List[str]):
        self.nodeids = nodeids
        self.rootdir = Path(str(config.rootpath))
        self.outcomes: Dict[str, Outcome] = {}
        self.error: Optional[str] = None
        self.passthrough = _passthrough(config)

    def run(self, config: pytest.Config) -> None:
        from harness.errors import HarnessError
        from harness.paths import cache_dir
        from harness.vm.dispatch import GUEST_CACHE, run_script_in_vm
        tr = config.pluginmanager.get_plugin("terminalreporter")
        write: Callable[[str], object] = tr.write if tr else sys.stdout.write
        report_host = cache_dir() / "guest" / f"outcomes-{os.getpid()}.json"
        report_host.parent.mkdir(parents=True, exist_ok=True)
        report_host.unlink(missing_ok=True)
        argv = ["python3", "-m", "pytest", "-p", "no:cacheprovider", "-q",
                "-p", "harness.testing.pytest_plugin",
                f"{REMOTE_REPORT_OPTION}={GUEST_CACHE}/{report_host.name}"] + self.passthrough
        script = "exec " + " ".join(shlex.quote(a) for a in argv + self.nodeids)
        write(f"\nharness: {len(self.nodeids)} emulation test(s) need mac80211_hwsim: "
              f"running them in the harness VM\n")
        cwd = os.getcwd()
        try:
            os.chdir(self.rootdir)
            capman = config.pluginmanager.get_plugin("capturemanager")
            ctx: ContextManager[object] = (capman.global_and_fixture_disabled() if capman
                                           else contextlib.nullcontext())
            with ctx:
                run_script_in_vm(script, quiet=False)
        except HarnessError as err:
            self.error = f"the harness VM could not run the emulation tests: {err}"
        finally:
            os.chdir(cwd)
        if report_host.exists():
            self.outcomes = json.loads(report_host.read_text())
            report_host.unlink()
        elif self.error is None:
            self.error = "the VM run produced no results (see its output above)"


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
    """Stands in for an emulation test that ran in the VM; reports its outcome there."""

    def __init__(self, *, batch: RemoteBatch, original: pytest.Item, **kw: Any):
        super().__init__(**kw)
        self.batch = batch
        self.own_markers = list(original.own_markers)
        self.keywords.update(original.keywords)
        self._location = original.location

    @property
    def location(self) -> Tuple[str, Optional[int], str]:
        return self._location

    def reportinfo(self) -> Tuple[str, Optional[int], str]:
        return self._location

    def runtest(self) -> None:
        if self.batch.error:
            raise RemoteFailure(self.batch.error)
        outcome = self.batch.outcomes.get(self.nodeid)
        if outcome is None:
            raise RemoteFailure("no outcome came back from the VM for this test "
                                "(the run was interrupted or the test was not collected there)")
        if outcome["outcome"] == "skipped":
            pytest.skip(f"[in VM] {outcome.get('reason', '')}")
        if outcome["outcome"] != "passed":
            raise RemoteFailure(outcome.get("longrepr") or "failed in the VM")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> Union[str, TerminalRepr]:  # pytest's private Literal
        if excinfo.errisinstance(RemoteFailure):
            return f"[ran in the harness VM]\n{excinfo.value}"
        return super().repr_failure(excinfo, style)


class OutcomeRecorder:
    """In the VM: collect each test's outcome (setup/call/teardown combined) into JSON."""

    def __init__(self, path: str):
        self.path = path
        self.outcomes: Dict[str, Outcome] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        entry = self.outcomes.setdefault(report.nodeid, {"outcome": "passed"})
        if report.failed:
            entry["outcome"] = "failed"
            text = str(report.longrepr)
            entry["longrepr"] = (entry.get("longrepr", "") + f"[{report.when}] " + text).strip()
        elif report.skipped and entry["outcome"] == "passed":
            entry["outcome"] = "skipped"
            longrepr = report.longrepr
            entry["reason"] = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        if report.sections and report.failed:
            entry["longrepr"] += "\n" + "\n".join(f"--- {t} ---\n{c}" for t, c in report.sections)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.outcomes, f)
        os.replace(tmp, self.path)

"""The host-wide VM slots (harness.vm.machine.SlotLock): real flock files in a cache of the
test's own. A VM stopped from another thread while it waits for a slot (a sweep's Ctrl-C with
every slot busy) must stop waiting, or the sweep never exits."""
from __future__ import annotations

import fcntl
import threading

import pytest

from harness.errors import HarnessError
from harness.vm.machine import SlotLock


@pytest.fixture
def one_slot(tmp_path, monkeypatch):
    monkeypatch.setenv("HARNESS_CACHE", str(tmp_path))
    monkeypatch.setenv("HARNESS_VM_SLOTS", "1")
    (tmp_path / "vm-slots").mkdir()
    return tmp_path / "vm-slots" / "slot-0.lock"


def test_a_free_slot_is_taken_and_given_back(one_slot):
    lock = SlotLock()
    lock.acquire()
    with open(one_slot, "w") as other:
        with pytest.raises(BlockingIOError):
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    lock.release()
    with open(one_slot, "w") as other:
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)


def test_cancel_ends_a_wait_for_a_busy_slot(one_slot):
    with open(one_slot, "w") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)   # every slot busy
        lock = SlotLock()
        errors: list = []

        def wait_for_slot() -> None:
            try:
                lock.acquire()
            except HarnessError as err:
                errors.append(err)

        waiter = threading.Thread(target=wait_for_slot)
        waiter.start()
        waiter.join(1.5)
        assert waiter.is_alive(), "acquire returned although the only slot was held"
        lock.cancel()
        waiter.join(5)
        assert not waiter.is_alive(), "acquire kept waiting after cancel()"
        assert errors and "stopped while it waited" in str(errors[0])
        assert lock.file is None

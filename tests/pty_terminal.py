"""Drive a program through a pseudo-terminal, as a user at a keyboard would (tests of the
prompt): ``Terminal.spawn(argv)``, ``expect(regex)``, ``send(line)``, ``wait()``. Tests import
it as ``pty_terminal`` (pytest puts this folder, the one of tests/conftest.py, on the path).

The program sees a real terminal (``isatty``, line editing, Ctrl-C as a signal from the
terminal), so readline, completion and interrupts are tested the way they are used. Only the
standard library (``pty``, ``os``, ``select``): the guest has no pexpect.
"""
from __future__ import annotations

import os
import pty
import re
import select
import signal
import struct
import time
from typing import List, Mapping, Optional, Sequence

#: What a test may wait for at most by default (a VM boot and a network start under TCG).
DEFAULT_TIMEOUT = 300.0
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|\r")


class TerminalTimeout(AssertionError):
    """The expected text did not appear in time: the message shows what did."""


class Terminal:
    def __init__(self, pid: int, fd: int):
        self.pid = pid
        self.fd = fd
        self.raw = b""          # every byte the program wrote
        self.pos = 0            # where the next expect() starts looking (in text())
        self.status: Optional[int] = None

    @classmethod
    def spawn(cls, argv: Sequence[str], *, env: Optional[Mapping[str, str]] = None,
              cwd: Optional[str] = None, rows: int = 40, cols: int = 160) -> Terminal:
        pid, fd = pty.fork()
        if pid == 0:  # the child: its stdin, stdout and stderr are the terminal
            try:
                if cwd:
                    os.chdir(cwd)
                os.execvpe(argv[0], list(argv), dict(env if env is not None else os.environ))
            finally:
                os._exit(127)
        import fcntl
        import termios
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        return cls(pid, fd)

    # -- reading -------------------------------------------------------------------------
    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # EIO: the program closed the terminal (it exited)
            chunk = b""
        if not chunk:
            return False
        self.raw += chunk
        return True

    def text(self) -> str:
        """Everything written so far, without colour codes and carriage returns."""
        return _ANSI.sub("", self.raw.decode(errors="replace"))

    def expect(self, pattern: str, timeout: float = DEFAULT_TIMEOUT) -> re.Match:
        """Wait until ``pattern`` (a regex) appears after the last match; return the match."""
        regex = re.compile(pattern, re.MULTILINE)
        deadline = time.monotonic() + timeout
        while True:
            found = regex.search(self.text(), self.pos)
            if found:
                self.pos = found.end()
                return found
            left = deadline - time.monotonic()
            ended = left > 0 and not self._read(min(left, 0.5))
            if left <= 0 or (ended and not regex.search(self.text(), self.pos)):
                why = "the program closed the terminal" if ended else f"waited {timeout:g} s"
                tail = self.text()[self.pos:][-3000:]
                raise TerminalTimeout(f"{why} before {pattern!r} appeared; after the last "
                                      f"match it showed:\n{tail}")

    def expect_all(self, patterns: List[str], timeout: float = DEFAULT_TIMEOUT) -> List[re.Match]:
        return [self.expect(p, timeout) for p in patterns]

    # -- writing -------------------------------------------------------------------------
    def send(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def sendline(self, line: str = "") -> None:
        self.send(line + "\r")

    def interrupt(self) -> None:
        """Ctrl-C typed at the terminal."""
        self.send("\x03")

    # -- the end ---------------------------------------------------------------------------
    def alive(self) -> bool:
        if self.status is not None:
            return False
        pid, status = os.waitpid(self.pid, os.WNOHANG)
        if pid == 0:
            return True
        self.status = status
        return False

    def wait(self, timeout: float = DEFAULT_TIMEOUT) -> int:
        """Read until the program exits; its exit code (128 + signal if killed)."""
        deadline = time.monotonic() + timeout
        while self.alive():
            if time.monotonic() > deadline:
                self.kill()
                raise TerminalTimeout(f"the program did not exit within {timeout:g} s; it showed:\n"
                                      + self.text()[-3000:])
            self._read(0.2)
        while self._read(0.05):
            if not select.select([self.fd], [], [], 0)[0]:
                break
        assert self.status is not None
        if os.WIFEXITED(self.status):
            return os.WEXITSTATUS(self.status)
        return 128 + os.WTERMSIG(self.status)

    def kill(self) -> None:
        if self.alive():
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.status = 9

    def close(self) -> None:
        self.kill()
        try:
            os.close(self.fd)
        except OSError:
            pass

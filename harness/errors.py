"""The one exception type users see: a clear message, printed once at the edge."""


class HarnessError(Exception):
    """A user-facing error: bad input, missing capability, failed step.

    The CLI prints ``str(err)`` alone (no traceback) and exits with ``exit_code``.
    """

    exit_code = 2

    def __init__(self, message: str, *, hint: str = ""):
        super().__init__(message)
        self.hint = hint

    def __str__(self) -> str:
        msg = super().__str__()
        return f"{msg}\n  hint: {self.hint}" if self.hint else msg


class CommandTimeout(HarnessError):
    """A command in a namespace did not finish in time (it has been killed)."""

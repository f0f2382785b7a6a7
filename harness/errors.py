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


class InvalidRun(HarnessError):
    """A run that completed but whose measurement does not count (a policy did not hold).

    It carries what was measured (the executor's result), so the failed record keeps the
    evidence: the samples that broke the policy are what explains the failure.
    """

    def __init__(self, message: str, *, measured: dict, hint: str = ""):
        super().__init__(message, hint=hint)
        self.measured = measured

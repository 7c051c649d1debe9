"""Reading the results of scipy's HiGHS solvers (:func:`scipy.optimize.milp`) the same way in
every wing's offline optimum."""

from __future__ import annotations

__all__ = ["MILP_STATUS", "milp_status"]

MILP_STATUS = {0: "optimal", 2: "infeasible", 3: "unbounded"}
"""``scipy.optimize.milp`` status codes with a fixed meaning (1 is a limit, 4 an error)."""


def milp_status(res) -> str:
    """The outcome of a :func:`scipy.optimize.milp` result as a word: ``"optimal"``,
    ``"infeasible"``, ``"unbounded"``, ``"time_limit"`` or ``"iteration_limit"`` (status 1, told
    apart by the message), else ``"error"``.

    >>> from scipy.optimize import OptimizeResult
    >>> milp_status(OptimizeResult(status=1, message="Time limit reached. (HiGHS Status 13: ...)"))
    'time_limit'
    >>> milp_status(OptimizeResult(status=0, message="Optimization terminated successfully."))
    'optimal'
    """
    if res.status in MILP_STATUS:
        return MILP_STATUS[res.status]
    if res.status == 1:
        return "time_limit" if "time" in str(res.message).lower() else "iteration_limit"
    return "error"

"""Reading the results of scipy's HiGHS solvers (:func:`scipy.optimize.milp`) the same way in
every wing's offline optimum."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["MILP_STATUS", "check_solver_options", "milp_status", "rechecked"]

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


def check_solver_options(time_limit: float, mip_rel_gap: float) -> None:
    """Validate the HiGHS options of an offline optimum: ``time_limit`` a finite number > 0,
    ``mip_rel_gap`` a finite number >= 0 (bools are not numbers here).

    Raises
    ------
    ValueError
        Naming the option and the value.
    """
    for name, v, strict in (("time_limit", time_limit, True), ("mip_rel_gap", mip_rel_gap, False)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.number)) or not math.isfinite(v):
            raise ValueError(f"{name} must be a finite number, got {v!r}")
        if v < 0 or (strict and v == 0):
            raise ValueError(f"{name} must be {'>' if strict else '>='} 0, got {v!r}")


def rechecked(check, workload, solution, status: str, error: type[Exception]):
    """``solution`` after ``check(workload, solution)`` passed; a
    :class:`~dlsched.core.schedule.ScheduleViolation` becomes ``error`` naming the solver's
    ``status`` (an "optimal" MILP point whose rounding breaks a constraint is a solver failure,
    not a schedule)."""
    from dlsched.core.schedule import ScheduleViolation

    try:
        check(workload, solution)
    except ScheduleViolation as exc:
        raise error(
            f"scipy.optimize.milp reported {status!r}, but its rounded solution fails the "
            f"independent re-check: {exc}"
        ) from exc
    return solution

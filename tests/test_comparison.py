"""Shared paper-vs-ours mechanics (dlsched.core.comparison) and claim sample tables (core.claims)."""

from __future__ import annotations

import doctest

import pandas as pd
import pytest

from dlsched.core import claims, comparison
from dlsched.core.claims import Claim


def test_doctests():
    assert doctest.testmod(comparison).failed == 0


def test_paper_rows_with_ours_and_scorecard():
    paper = {"fig1": [("setting", "10 jobs"), ("trend", "falls")], "fig2": [("best", "ours")]}
    t1 = comparison.with_ours(comparison.paper_rows(paper, "fig1"), ["5 jobs", "falls"], ["-", "yes"], "fig1")
    t2 = comparison.with_ours(comparison.paper_rows(paper, "fig2"), ["FIFO"], ["no"], "fig2")
    assert list(t1.columns) == ["quantity", "paper", "ours", "match"]
    card = comparison.scorecard({"Fig. 1": t1, "Fig. 2": t2})
    assert card.to_dict("records") == [
        {"figure": "Fig. 1", "quantity": "trend", "paper": "falls", "match": "yes"},
        {"figure": "Fig. 2", "quantity": "best", "paper": "ours", "match": "no"},
    ]
    assert comparison.scorecard({"Fig. 1": t1.assign(match="-")}).empty
    with pytest.raises(ValueError, match="fig3"):
        comparison.paper_rows(paper, "fig3")
    with pytest.raises(AssertionError, match="2 paper rows"):
        comparison.with_ours(comparison.paper_rows(paper, "fig1"), ["x"], ["-"], "fig1")
    with pytest.raises(ValueError, match="missing column"):
        comparison.scorecard({"x": pd.DataFrame({"quantity": [1]})})
    with pytest.raises(TypeError, match="DataFrame"):
        comparison.scorecard({"x": [1, 2]})


@pytest.mark.parametrize("value", [-1, 1.5, True, "3"])
def test_as_int_rejects_and_names(value):
    with pytest.raises(ValueError, match=r"job_run: n must be an integer >= 0, got"):
        comparison.as_int({"n": value}, "n", 1, 0, "job_run")


def test_as_int_and_as_dict_accept():
    assert comparison.as_int({}, "n", 4, 1, "f") == 4
    assert comparison.as_dict({"w": None}, "w", "f") == {}
    assert comparison.as_dict({"w": {"a": 1}}, "w", "f") == {"a": 1}
    with pytest.raises(ValueError, match="f: w must be a dict"):
        comparison.as_dict({"w": {1: 2}}, "w", "f")


def test_claim_rows_fold_back_into_claims():
    rows = [
        claims.claim_row(Claim("A", True, {"cases": 3, "note": "text"}), seed=0),
        claims.claim_row(Claim("A", False, {"cases": 2}), seed=1),
        claims.claim_row(Claim("B", True, {"cases": 1}), seed=0),
    ]
    assert "note" not in rows[0] and rows[0]["seed"] == 0
    folded = claims.fold(claims.combine(pd.DataFrame(rows[:2]), pd.DataFrame(rows[2:])), add=("cases",))
    assert not folded["A"].holds and folded["A"].details["failures"] == 1
    assert folded["A"].details["cases"] == 5 and folded["A"].details["instances"] == 2
    assert folded["B"].holds
    with pytest.raises(ValueError, match="non-empty"):
        claims.fold(pd.DataFrame())
    with pytest.raises(ValueError, match="at least one"):
        claims.combine()


def test_milp_status_words():
    from scipy.optimize import OptimizeResult

    from dlsched.core import solvers

    assert doctest.testmod(solvers).failed == 0
    words = [solvers.milp_status(OptimizeResult(status=s, message=m)) for s, m in
             [(0, ""), (2, ""), (3, ""), (1, "Iteration limit reached"), (4, "boom")]]
    assert words == ["optimal", "infeasible", "unbounded", "iteration_limit", "error"]


def test_rechecked_turns_a_violation_into_the_solver_error():
    from dlsched.core import solvers
    from dlsched.core.schedule import ScheduleViolation

    class SolverError(RuntimeError):
        pass

    def bad(workload, solution):
        raise ScheduleViolation("capacity", "too much on server 0")

    assert solvers.rechecked(lambda w, s: None, None, "sol", "optimal", SolverError) == "sol"
    with pytest.raises(SolverError, match=r"reported 'optimal', but .* re-check: .*server 0"):
        solvers.rechecked(bad, None, "sol", "optimal", SolverError)

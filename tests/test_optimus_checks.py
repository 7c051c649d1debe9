"""dlsched.optimus.checks: the one entry point of the Optimus checks, its samplers and summaries."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dlsched.core.claims import Claim
from dlsched.core.schedule import Placement
from dlsched.optimus import allocation, checks, paa, placement
from dlsched.optimus.allocation import allocate
from dlsched.optimus.paa import mxnet_default, resnet50_blocks
from dlsched.optimus.placement import PlacementResult

# --------------------------------------------------------------------------------- entry point


def test_every_check_of_the_wing_is_reexported_and_documented():
    for module in (allocation, placement, paa):
        for name in dir(module):
            if name.startswith("check_") and callable(getattr(module, name)):
                assert name in checks.__all__, f"{module.__name__}.{name} is not re-exported"
                assert getattr(checks, name) is getattr(module, name)
    for name in checks.__all__:
        assert callable(getattr(checks, name)), name
        assert f":func:`{name}`" in checks.__doc__, f"{name} is missing from the module docstring"


# ------------------------------------------------------------------------------------ summaries


def _frame(rows):
    return pd.DataFrame(rows, columns=["seed", "claim", "holds", "summary", "k"])


def test_sample_claims_folds_rows_by_name_and_by_column():
    frame = _frame(
        [
            (0, "A", True, "a0", 1),
            (1, "A", False, "a1 failed", 2),
            (2, "B", True, "b2", 1),
            (3, "A", True, "a3", 1),
        ]
    )
    out = checks.sample_claims(frame)
    assert list(out) == ["A", "B"]
    assert not out["A"].holds and out["B"].holds
    assert out["A"].details == {"checked": 3, "failures": 1, "first_failure": "a1 failed"}
    split = checks.sample_claims(frame, by="k")
    assert list(split) == ["A [k=1]", "A [k=2]", "B [k=1]"]
    assert split["A [k=1]"].holds and not split["A [k=2]"].holds
    assert split["A [k=1]"].details["checked"] == 2


def test_sample_claims_bad_input():
    with pytest.raises(TypeError, match="DataFrame"):
        checks.sample_claims([1, 2])
    with pytest.raises(ValueError, match="summary"):
        checks.sample_claims(pd.DataFrame({"claim": ["A"], "holds": [True]}))
    with pytest.raises(ValueError, match="'nope'"):
        checks.sample_claims(_frame([(0, "A", True, "a", 1)]), by="nope")
    with pytest.raises(ValueError, match="empty"):
        checks.sample_claims(_frame([]))


def test_summarize_matches_pandas_and_handles_booleans():
    frame = pd.DataFrame(
        {
            "g": ["x", "x", "y", "y", "y"],
            "v": [1.0, 3.0, 2.0, 4.0, 9.0],
            "ok": [True, False, True, True, True],
        }
    )
    out = checks.summarize(frame, ["v", "ok"], by="g", stats=("count", "mean", "median", "p90", "max"))
    assert out.loc["x", ("v", "median")] == 2.0
    assert out.loc["y", ("v", "max")] == 9.0
    assert out.loc["y", ("v", "p90")] == pytest.approx(frame.loc[frame.g == "y", "v"].quantile(0.9))
    assert out.loc["x", ("ok", "mean")] == 0.5
    assert out.loc["y", ("v", "count")] == 3
    whole = checks.summarize(frame, "v", stats=("min", "max"))
    assert list(whole.index) == ["all"] and whole.loc["all", ("v", "min")] == 1.0


def test_summarize_bad_input():
    frame = pd.DataFrame({"v": [1.0]})
    with pytest.raises(ValueError, match="'w'"):
        checks.summarize(frame, "w")
    with pytest.raises(ValueError, match="'mode'"):
        checks.summarize(frame, "v", stats=("mode",))
    with pytest.raises(ValueError, match="empty"):
        checks.summarize(frame.iloc[:0], "v")
    with pytest.raises(TypeError, match="DataFrame"):
        checks.summarize({"v": [1.0]}, "v")


# -------------------------------------------------------------------------------------- fitting


def test_loss_fit_sample_recovers_and_is_deterministic_per_seed():
    levels = (0.0, 0.02)
    a = checks.loss_fit_sample([4, 9], levels, max_points=40)
    assert len(a) == 4 and a["holds"].all()
    assert set(a["noise"]) == set(levels)
    assert (a.loc[a["noise"] == 0, "max_coef_error"] < 1e-9).all()
    assert (a.loc[a["noise"] > 0, "rms_curve_rel_error"] > 0).all()
    b = checks.loss_fit_sample([9], levels, max_points=40)
    pd.testing.assert_frame_equal(a[a["seed"] == 9].reset_index(drop=True), b)
    # the same curve at every level
    assert a.groupby("seed")["beta0_true"].nunique().eq(1).all()


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"seeds": []}, ValueError, "empty"),
        ({"seeds": [-1]}, ValueError, "-1"),
        ({"seeds": "01"}, TypeError, "seeds"),
        ({"noise_levels": [0.0, -0.1]}, ValueError, "-0.1"),
        ({"noise_levels": []}, ValueError, "noise_levels"),
        ({"min_points": 2}, ValueError, "min_points"),
        ({"min_points": 10, "max_points": 5}, ValueError, "max_points"),
    ],
)
def test_loss_fit_sample_bad_input(kwargs, error, match):
    args = {"seeds": [0], **kwargs}
    with pytest.raises(error, match=match):
        checks.loss_fit_sample(**args)


def test_speed_fit_sample_and_fit_errors():
    speed = checks.speed_fit_sample([1, 2], (0.0, 0.05), n_pairs=6)
    assert len(speed) == 8 and speed["holds"].all()
    assert (speed.loc[speed["noise"] == 0, "max_coef_error"] < 1e-9).all()
    assert speed.loc[speed["mode"] == "async", "M"].isna().all()
    assert (speed.loc[speed["mode"] == "sync", "M"] >= 1).all()
    again = checks.speed_fit_sample([2], (0.0, 0.05), n_pairs=6)
    pd.testing.assert_frame_equal(speed[speed["seed"] == 2].reset_index(drop=True), again)
    loss = checks.loss_fit_sample([1], (0.0, 0.05), max_points=20)
    errors = checks.fit_errors(loss, speed)
    assert set(errors["model"]) == {"loss Eq. (1)", "speed Eq. (3) async", "speed Eq. (4) sync"}
    assert len(errors) == len(loss) + len(speed)
    noisy = errors[errors["noise"] > 0]
    np.testing.assert_allclose(noisy["error_over_noise"], noisy["error"] / noisy["noise"])
    assert errors.loc[errors["noise"] == 0, "error_over_noise"].isna().all()
    assert errors.loc[errors["model"] == "loss Eq. (1)", "grid_error"].isna().all()


def test_speed_fit_sample_bad_input():
    with pytest.raises(ValueError, match="n_pairs"):
        checks.speed_fit_sample([0], n_pairs=4)  # sync needs 5
    with pytest.raises(ValueError, match="modes"):
        checks.speed_fit_sample([0], modes=("batch",))
    with pytest.raises(ValueError, match="exceeds"):
        checks.speed_fit_sample([0], n_pairs=10, max_pw=3)
    with pytest.raises(ValueError, match="speed lacks"):
        checks.fit_errors(checks.loss_fit_sample([0], (0.0,), max_points=10), pd.DataFrame({"seed": [0]}))


def test_remaining_epochs_sample_boundary_cases():
    frame = checks.remaining_epochs_sample(range(60))
    assert frame["holds"].all() and len(frame) == 120
    boundary = frame[frame["kind"] == "boundary"]
    # the exact answer is e0 + 1; rounding of delta may move both methods to e0, or split them
    # by one epoch (a tie the check accepts)
    assert ((boundary["closed_form"] - boundary["target_epoch"]).isin([-1, 0])).all()
    agree = boundary["closed_form"] == boundary["brute_force"]
    assert (agree | boundary["tie"]).all()
    assert (boundary.loc[~agree, "brute_force"] - boundary.loc[~agree, "closed_form"]).abs().eq(1).all()
    rand = frame[frame["kind"] == "random"]
    assert (rand["closed_form"] == rand["brute_force"]).all()
    assert rand["target_epoch"].isna().all()
    with pytest.raises(ValueError, match="kinds"):
        checks.remaining_epochs_sample([0], kinds=("edge",))


# ----------------------------------------------------------------------------------- allocation


def test_allocation_instance_is_seeded_and_every_job_fits_with_slack_one():
    for seed in range(10):
        jobs, cap = checks.allocation_instance(seed, n_jobs=5, slack=(1.0, 1.0))
        base = sum(j.ps_demand + j.worker_demand for j in jobs)
        np.testing.assert_allclose(cap, base)
        assert set(allocate(jobs, cap)) == {j.job_id for j in jobs}
    a_jobs, a_cap = checks.allocation_instance(3, n_jobs=4)
    b_jobs, b_cap = checks.allocation_instance(3, n_jobs=4)
    np.testing.assert_array_equal(a_cap, b_cap)
    assert [(j.remaining, j.speed(2, 3)) for j in a_jobs] == [(j.remaining, j.speed(2, 3)) for j in b_jobs]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"seed": -2, "n_jobs": 2}, "seed must be an integer >= 0, got -2"),
        ({"seed": 0, "n_jobs": 0}, "n_jobs"),
        ({"seed": 0, "n_jobs": 2, "n_resources": 0}, "n_resources"),
        ({"seed": 0, "n_jobs": 2, "slack": (2.0, 1.0)}, "slack"),
        ({"seed": 0, "n_jobs": 2, "slack": (0.0, 1.0)}, "slack"),
    ],
)
def test_allocation_instance_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        checks.allocation_instance(**kwargs)


def test_allocation_sample_holds_and_leaves_out_jobs_that_cannot_start():
    frame = checks.allocation_sample(range(25), n_jobs=6)
    assert frame["holds"].all() and len(frame) == 50
    assert set(frame["stop_rule"]) == {"literal", "skip"}
    assert (frame["allocated"] <= frame["jobs"]).all()
    assert (frame["allocated"] < frame["jobs"]).any()  # slack starts at 0.8
    assert (frame["max_use_fraction"] <= 1 + 1e-9).all()
    with pytest.raises(ValueError, match="stop_rules"):
        checks.allocation_sample([0], stop_rules=("never",))
    with pytest.raises(ValueError, match="gain_unit"):
        checks.allocation_sample([0], gain_unit="cores")


def test_allocation_gap_sample_reports_gaps_against_a_true_lower_bound():
    frame = checks.allocation_gap_sample(range(12), max_tasks=3)
    assert frame["holds"].all() and len(frame) == 24
    assert (frame["gap"] >= -1e-9).all()
    assert (frame["heuristic"] >= frame["optimum"] * (1 - 1e-9)).all()
    assert (frame["optimal"] == (frame["gap"] <= 1e-9)).all()
    assert set(frame["n_jobs"]) == {2, 3}
    assert (frame.loc[frame["seed"] % 2 == 0, "n_jobs"] == 2).all()
    again = checks.allocation_gap_sample([5], max_tasks=3)
    pd.testing.assert_frame_equal(frame[frame["seed"] == 5].reset_index(drop=True), again)
    with pytest.raises(ValueError, match="1..3"):
        checks.allocation_gap_sample([0], n_jobs=(4,))
    with pytest.raises(ValueError, match="max_tasks"):
        checks.allocation_gap_sample([0], max_tasks=7)


# ------------------------------------------------------------------------------------ placement


def test_check_place_optimal_on_fig10_and_vacuous_case():
    claim = checks.check_place_optimal(3, 2, 4, 3, S=2.0)  # Fig. 10: 1 unit per PS-worker pair
    assert claim.holds, claim.summary()
    assert claim.details["placed_time"] == 2.0 and claim.details["servers_used"] == 2
    assert checks.check_place_optimal(3, 2, 4, 3).details["placed_time"] == 1.0  # S = 1
    none = checks.check_place_optimal(2, 3, 3, 2)  # 6 tasks, 4 slots
    assert none.holds and none.details["servers_used"] == 0 and none.details["n_feasible"] == 0
    with pytest.raises(ValueError, match="slots"):
        checks.check_place_optimal(2, 1, 1, 0)
    with pytest.raises(ValueError, match="n_servers"):
        checks.check_place_optimal(5, 1, 1, 2)


def test_check_place_optimal_can_fail(monkeypatch):
    def spread(jobs, free):  # a deliberately bad placement: 2 PS + 4 workers on 3 servers
        pl = Placement.of({0: 2, 1: 1, 2: 1}, {1: 1, 2: 1})
        return PlacementResult({0: pl}, (), np.asarray(free), (0,))

    monkeypatch.setattr(checks, "place", spread)
    claim = checks.check_place_optimal(3, 2, 4, 3)
    assert not claim.holds and claim.details["servers_used"] == 3


def test_theorem1_sample_tasks_holds_roles_fails_somewhere():
    frame = checks.theorem1_sample(range(60))
    assert len(frame) == 180
    claims = checks.sample_claims(frame)
    assert set(claims) == {
        "Optimus Theorem 1: even split on fewest servers is optimal (tasks)",
        "Optimus Theorem 1: even split on fewest servers is optimal (roles)",
        "Optimus Sec. 4.2: place() builds an optimal placement",
    }
    assert claims["Optimus Theorem 1: even split on fewest servers is optimal (tasks)"].holds
    assert claims["Optimus Sec. 4.2: place() builds an optimal placement"].holds
    roles = claims["Optimus Theorem 1: even split on fewest servers is optimal (roles)"]
    assert not roles.holds
    bad = checks.counterexamples(frame, "roles")
    assert len(bad) == roles.details["failures"] > 0
    assert (bad["even_best"] > bad["optimum"]).all()
    assert list(bad["seed"]) == sorted(bad["seed"])
    assert checks.counterexamples(frame, "tasks").empty
    t = frame[frame["check"] == "theorem1"]
    assert (t["slots"] * t["n_servers"] >= t["p"] + t["w"]).all()  # slots are tight but feasible
    assert (t["n_feasible"] > 0).all()


def test_theorem1_sample_bad_input():
    with pytest.raises(ValueError, match="max_servers"):
        checks.theorem1_sample([0], max_servers=5)
    with pytest.raises(ValueError, match="max_p"):
        checks.theorem1_sample([0], max_p=13)
    with pytest.raises(ValueError, match="terms"):
        checks.theorem1_sample([0], terms=("links",))
    with pytest.raises(ValueError, match="theorem1_sample"):
        checks.counterexamples(pd.DataFrame({"seed": [0]}))


# ------------------------------------------------------------------------------------------ PAA


def test_paa_sample_invariants_and_request_count():
    frame = checks.paa_sample(range(4), n_ps=(1, 3, 16), eps=(0.0, 0.01))
    assert len(frame) == 24 and frame["holds"].all()
    assert (frame["total_requests"] == frame["expected_requests"]).all()
    no_large = frame[frame["large_blocks"] == 0]
    assert (no_large["total_requests"] == no_large["blocks"]).all()
    assert (frame["split_blocks"] <= frame["large_blocks"]).all()
    with pytest.raises(ValueError, match="eps"):
        checks.paa_sample([0], eps=(1.5,))
    with pytest.raises(ValueError, match="'small'"):
        checks.paa_sample([0], eps=("small",))
    with pytest.raises(ValueError, match="n_ps"):
        checks.paa_sample([0], n_ps=(0,))


def test_resnet50_paa_sample_157_requests_up_to_ten_ps():
    frame = checks.resnet50_paa_sample([1, 5, 10, 11, 20])
    assert frame["holds"].all()
    fits = frame["max_block_over_avg"] <= 1
    assert list(fits) == [True, True, True, False, False]
    assert (frame.loc[fits, "total_requests"] == 157).all()
    assert (frame.loc[~fits, "total_requests"] > 157).all()
    with pytest.raises(ValueError, match="n_ps"):
        checks.resnet50_paa_sample([])


def test_mxnet_key_hash_follows_mxnet_code():
    sizes = [5, 2_000_001, 7, 3, 11]
    a = checks.mxnet_key_hash(sizes, 4)
    ps_of = a.block_ps()
    for key in (0, 2, 3, 4):
        assert ps_of[key] == ((key * 9973) % 4,)
    assert ps_of[1] == (0, 1, 2, 3)
    big = [s for b, _, s in a.parts if b == 1]
    assert sum(big) == 2_000_001 and max(big) - min(big) <= 1
    assert a.total_requests == 4 + 4
    _, r50 = resnet50_blocks()
    h = checks.mxnet_key_hash(r50, 10)
    assert h.total_requests == 247 and h.request_difference <= 2
    assert h.ps_sizes.sum() == sum(r50)
    with pytest.raises(ValueError, match=r"block_sizes\[1\]"):
        checks.mxnet_key_hash([1.0, -2.0], 2)
    with pytest.raises(ValueError, match="n_ps"):
        checks.mxnet_key_hash([1.0], 0)
    with pytest.raises(ValueError, match="threshold"):
        checks.mxnet_key_hash([1.0], 2, threshold=0)


def test_mxnet_sample_and_table3_comparison():
    frame = checks.mxnet_sample([0, 3], n_ps=10)
    _, sizes = resnet50_blocks()
    for seed in (0, 3):
        a = mxnet_default(sizes, 10, np.random.default_rng(seed))
        row = frame[frame["seed"] == seed].iloc[0]
        assert row["request_difference"] == a.request_difference
        assert row["size_difference"] == a.size_difference
    assert (frame["total_requests"] == 247).all()
    table = checks.table3_comparison([0, 3])
    assert list(table.index) == ["size difference (M params)", "request difference", "total requests"]
    assert table.loc["total requests", "ours PAA"] == 157
    assert table.loc["total requests", "paper MXNet"] == 247
    assert table.loc["request difference", "paper MXNet"] == 43
    assert table.loc["request difference", "MXNet random max"] == frame["request_difference"].max()
    assert table.loc["size difference (M params)", "ours PAA"] < 0.15


def test_reexported_checks_return_claims():
    assert isinstance(checks.check_fig10(), Claim) and checks.check_fig10().holds
    assert not checks.check_theorem1(2, 1, 4, 4.0, terms="roles").holds
    assert checks.check_paa_invariants([10, 1, 1], 2).holds
    assert math.isclose(checks.check_fig10("roles").details["c"], 2.0)

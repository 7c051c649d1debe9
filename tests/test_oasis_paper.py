"""dlsched.oasis.paper: the stored experiment functions of notebooks 11 and 12, on tiny sizes."""

from __future__ import annotations

import pandas as pd
import pytest

from dlsched import experiments, store
from dlsched.oasis import checks, paper

SYN = {"n_jobs": 4, "n_servers": 2, "horizon": 4, "arrival_span": 2}
OAS = {"n_jobs": 5, "T": 6, "H": 2, "K": 1}


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    """Equal values, with missing values (None from parquet, NaN in memory) treated alike."""

    def norm(d: pd.DataFrame) -> pd.DataFrame:
        return d.astype(object).where(d.notna(), None).reset_index(drop=True)

    pd.testing.assert_frame_equal(norm(a[list(b.columns)]), norm(b), check_dtype=False)


def test_check_grid_one_point_per_seed():
    grid = paper.check_grid([0, 1], "oasis", OAS, time_limit=5.0)
    assert grid == [{"family": "oasis", "sizes": OAS, "time_limit": 5.0, "seed": s} for s in (0, 1)]
    with pytest.raises(ValueError, match="family"):
        paper.check_grid([0], "other", OAS)
    with pytest.raises(ValueError, match="seeds"):
        paper.check_grid([], "oasis", OAS)


@pytest.mark.parametrize(
    ("fn", "sample"),
    [
        (paper.appendix_a_run, checks.appendix_a_sample),
        (paper.feasibility_run, checks.run_sample),
        (paper.increments_run, checks.increments_sample),
    ],
)
def test_sweep_of_a_check_function_equals_the_sample(fn, sample):
    grid = paper.check_grid([0, 1], "synthetic", SYN) + paper.check_grid([0], "oasis", OAS)
    got = experiments.sweep(fn, grid, scheduler="serial")
    want = checks.combine_samples(
        sample([0, 1], family="synthetic", **SYN), sample([0], family="oasis", **OAS)
    )
    _same(got, want)
    if "claim" in want.columns:
        summaries = {name: c.summary() for name, c in checks.sample_claims(got).items()}
        assert summaries == {name: c.summary() for name, c in checks.sample_claims(want).items()}


def test_theorem1_run_passes_which():
    got = paper.theorem1_run({"family": "synthetic", "sizes": SYN, "seed": 0, "which": ["alg2"]})
    assert set(got["check"]) == {"alg2"} and "seed" not in got.columns
    _same(got, checks.theorem1_sample([0], which=("alg2",), **SYN).drop(columns=["seed", "family"]))
    with pytest.raises(ValueError, match="which"):
        paper.theorem1_run({"family": "synthetic", "sizes": SYN, "seed": 0, "which": "alg2"})


def test_competitive_run_is_ratio_point_without_keys():
    params = {"family": "oasis", "sizes": OAS, "time_limit": 10.0, "seed": 0}
    got = paper.competitive_run(params)
    want = checks.ratio_point({"seed": 0, "family": "oasis", "time_limit": 10.0, **OAS})
    _same(got, want.drop(columns=["seed", "family"]))
    swept = experiments.sweep(paper.competitive_run, [params], scheduler="serial")
    assert list(swept.columns[:3]) == ["family", "time_limit", "seed"]


def test_bad_parameters_are_named():
    with pytest.raises(ValueError, match="seed"):
        paper.appendix_a_run({"family": "oasis", "sizes": OAS})
    with pytest.raises(ValueError, match="unknown"):
        paper.appendix_a_run({"seed": 0, "size": OAS})
    with pytest.raises(ValueError, match="family"):
        paper.feasibility_run({"seed": 0, "family": "x"})
    with pytest.raises(ValueError, match="time_limit"):
        paper.competitive_run({"seed": 0, "time_limit": 0})
    with pytest.raises(TypeError):
        paper.increments_run([("seed", 0)])
    with pytest.raises(ValueError, match="n_jobs"):
        paper.fig3_check_run({"seed": 0, "n_jobs": 0, "T": 5, "H": 2, "K": 2})


def test_timing_functions_are_declared_wall_clock():
    for fn in (paper.decision_time_run, paper.decision_method_run):
        assert store.volatile_columns(fn) == ("*",)
    small = {"seed": 0, "repeats": 1, "n_servers": 2}
    t = paper.decision_time_run({**small, "horizons": [5], "workloads": [50]})
    assert list(t.columns) == ["T", "NE", "seconds"] and len(t) == 1
    m = paper.decision_method_run({**small, "horizons": [4], "workloads": [20]})
    assert sorted(m["method"]) == sorted(checks.DECISION_METHODS)


def test_fig3_check_run_profile_and_claims():
    params = {"seed": 0, "n_jobs": 8, "T": 10, "H": 2, "K": 2}
    got = experiments.sweep(paper.fig3_check_run, [params], scheduler="serial")
    assert got["policy"].tolist() == ["oasis", "rrh"]
    assert got["feasible"].all() and got["weak_duality"].all()
    assert got["feasible_summary"].iloc[0].startswith("[holds] OASiS Theorem 2")
    assert got["alpha"].nunique() == 1 and got["alpha"].iloc[0] >= 1
    again = paper.fig3_check_run(params)
    pd.testing.assert_frame_equal(again, paper.fig3_check_run(params))

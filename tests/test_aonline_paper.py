"""dlsched.aonline.paper: the stored experiment functions of notebooks 40-42, at small sizes."""

from __future__ import annotations

import matplotlib
import pandas as pd
import pytest

from dlsched import experiments
from dlsched import store as st
from dlsched.aonline import checks, explain, paper

matplotlib.use("Agg")

RUN = {"seed": 0, "n_edge": 8, "n_jobs": 6, "server_source": "synthetic"}


def _roundtrip(df: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(st.decode(st.encode(df)), df, check_exact=True)
    assert not [c for c in df.columns if df[c].dtype == object], "object columns cannot be stored cleanly"


def test_sample_grid_cuts_blocks_and_keeps_options():
    grid = paper.sample_grid("run", range(5), 2, family="tiny", readings=("a", "b"))
    assert [p["seeds"] for p in grid] == [[0, 1], [2, 3], [4]]
    assert all(
        p["sample"] == "run" and p["options"] == {"family": "tiny", "readings": ["a", "b"]} for p in grid
    )
    assert "options" not in paper.sample_grid("admission", [3], 5)[0]
    with pytest.raises(ValueError, match="sample must be one of"):
        paper.sample_grid("nope", [0], 1)
    with pytest.raises(ValueError, match="block"):
        paper.sample_grid("run", [0], 0)


@pytest.mark.parametrize(
    ("sample", "options"),
    [
        ("price", {"family": "tiny", "readings": ["corrected", "literal"]}),
        ("admission", {}),
        ("window", {}),
        ("run", {"family": "tiny", "n_edge": 3, "n_jobs": 3}),
    ],
)
def test_check_sample_equals_the_check_and_stores(sample, options):
    frame = paper.check_sample({"sample": sample, "seeds": [0, 1], "options": options})
    _roundtrip(frame)
    direct = paper.SAMPLES[sample]([0, 1], **options)
    assert frame["holds"].tolist() == direct["holds"].tolist()
    assert frame["claim"].tolist() == direct["claim"].tolist()
    pd.testing.assert_frame_equal(
        frame, paper.check_sample({"sample": sample, "seeds": [0, 1], "options": options})
    )


def test_check_sample_through_sweep_folds_like_the_check():
    grid = paper.sample_grid("window", range(4), 2)
    swept = experiments.sweep(paper.check_sample, grid, scheduler="serial")
    assert swept.columns[0] == "sample"
    direct = checks.window_sample(range(4))
    assert {k: c.holds for k, c in checks.fold(swept).items()} == {
        k: c.holds for k, c in checks.fold(direct).items()
    }


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"seeds": [0]}, "missing"),
        ({"sample": "run", "seeds": []}, "non-empty"),
        ({"sample": "run", "seeds": [-1]}, ">= 0"),
        ({"sample": "run", "seeds": [0], "x": 1}, "unknown"),
        ({"sample": "run", "seeds": [0], "options": 3}, "options"),
    ],
)
def test_check_sample_rejects_bad_params(params, message):
    with pytest.raises(ValueError, match=message):
        paper.check_sample(params)


def test_run_tables_store_and_agree():
    jobs, rounds, shared = (paper.run_table({**RUN, "table": t}) for t in ("jobs", "rounds", "sharing"))
    over = paper.run_overview(RUN)
    for df in (jobs, rounds, shared, over.drop(columns=list(paper.run_overview.volatile))):
        _roundtrip(df)
    row = over.iloc[0]
    assert bool(row["checked"]) and row["source_used"] == "synthetic"
    assert row["jobs"] == len(jobs) == RUN["n_jobs"] and row["rounds"] == len(rounds)
    assert row["total_completion_slots"] == pytest.approx(jobs["jct"].sum())
    assert set(paper.run_overview.volatile) <= set(over.columns)
    base = paper.run_table({**RUN, "table": "variant", "policy": {}})
    _roundtrip(base)
    assert base["total_completion_slots"].iloc[0] == pytest.approx(row["total_completion_slots"])
    assert shared["max_jobs"].max() == base["max_jobs"].iloc[0]


def test_run_tables_through_sweep_drop_to_the_same_frame():
    grid = [{**RUN, "table": "rounds"}]
    swept = experiments.sweep(paper.run_table, grid, scheduler="serial")
    assert swept.columns[:5].tolist() == [*RUN, "table"]
    pd.testing.assert_frame_equal(swept.drop(columns=[*RUN, "table"]), paper.run_table(grid[0]))


def test_run_functions_reject_bad_params():
    with pytest.raises(ValueError, match="missing"):
        paper.run_table({"seed": 0, "table": "jobs"})
    with pytest.raises(ValueError, match="n_jobs"):
        paper.run_table({**RUN, "n_jobs": 0, "table": "jobs"})
    with pytest.raises(ValueError, match="table must be one of"):
        paper.run_table({**RUN, "table": "nope"})
    with pytest.raises(ValueError, match="policy must be a dict"):
        paper.run_table({**RUN, "table": "variant", "policy": 1})
    with pytest.raises(ValueError, match="applies to table='variant' only"):
        paper.run_table({**RUN, "table": "jobs", "policy": {"F1": 1.0}})
    with pytest.raises(TypeError):
        paper.run_overview([1])


def test_speed_loss_grows_with_the_parameter_size():
    base = {"seed": 0, "n_edge": 5, "n_jobs": 10, "T": 64}
    small, large = (paper.speed_loss({**base, "gradient_mb": k}) for k in (30.0, 575.0))
    _roundtrip(small)
    assert (
        0 <= small["speed_loss"].iloc[0] < large["speed_loss"].iloc[0] <= large["speed_loss_max"].iloc[0] < 1
    )
    with pytest.raises(ValueError, match="gradient_mb"):
        paper.speed_loss({**base, "gradient_mb": 0.0})


def test_gantt_draws_a_stored_job_table():
    ax = explain.gantt(paper.run_table({**RUN, "table": "jobs"}))
    assert len(ax.patches) == RUN["n_jobs"]
    with pytest.raises(ValueError, match="job table"):
        explain.gantt(pd.DataFrame({"job": [0]}))


@pytest.mark.parametrize("policy", ["{}", '{"F1": 1e-09, "F2": 1e-09}'])
def test_fast_sharing_equals_explain_sharing(policy):
    from dlsched.aonline import explain

    result = paper._simulated(0, 10, 12, "synthetic", policy)[2]
    pd.testing.assert_frame_equal(paper._sharing(result), explain.sharing(result), check_exact=True)

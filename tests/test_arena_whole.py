"""The arena on whole traces (dlsched.arena.whole): the grid, the table, the reasons."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from dlsched.arena import experiments as ax
from dlsched.arena import whole


def test_grid_is_each_papers_scheduler_and_its_baselines_on_whole_traces():
    grid = whole.whole_trace_grid(max_jobs=50)
    assert {p["trace"] for p in grid} == {"philly", "itp"}
    for p in grid:
        assert p["week"] is None and p["cluster"] is None and p["node_scale"] == 1.0
        assert p["max_jobs"] == 50 and p["seed"] == 0
        assert p.get("sim_horizon") == whole.WHOLE_HORIZON.get(p["model"])
        spec = ax.PAPER_POLICY[p["model"]]
        assert p["policy"] in (spec[1], *spec[4])
        assert (p["policy"], p["model"]) not in whole.SLOW_ON_WHOLE_TRACES
    models = {p["model"] for p in grid}
    assert "pdors" not in models
    assert models == set(ax.PAPER_POLICY) - set(whole.NOT_ON_WHOLE_TRACES)
    for model in models:  # the paper's scheduler is in every panel, on both traces
        for trace in ("philly", "itp"):
            ours = ax.PAPER_POLICY[model][1]
            assert any((p["policy"], p["trace"], p["model"]) == (ours, trace, model) for p in grid)
    # every point is a valid arena point key: no unknown parameter
    assert all(set(p) <= set(ax._POINT_KEYS) for p in grid)


def test_whole_trace_points_without_max_jobs_take_every_job():
    grid = whole.whole_trace_grid(["itp"], models=["optimus"])
    assert grid and all(p["max_jobs"] is None and p["trace"] == "itp" for p in grid)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"traces": ["google"]}, "traces must be"),
        ({"traces": []}, "traces must be"),
        ({"models": ["pdors"]}, "not run on whole traces"),
        ({"models": ["rigid"]}, "unknown model 'rigid'"),
        ({"max_jobs": 0}, "max_jobs must be"),
        ({"max_jobs": True}, "max_jobs must be"),
    ],
)
def test_bad_grid_arguments_name_the_field(kwargs, match):
    with pytest.raises(ValueError, match=match):
        whole.whole_trace_grid(**kwargs)


def test_table_orders_each_panel_paper_first_and_counts_finished():
    summary = pd.DataFrame({
        "trace": ["itp", "philly", "philly", "philly", "philly"],
        "model": ["oasis", "specon", "oasis", "oasis", "aonline"],
        "policy": ["fifo", "k8s_default", "drf", "oasis", "aonline"],
        "seeds": [1] * 5,
        "jobs": [10.0, 10.0, 10.0, 10.0, 8.0],
        "finished": [10.0, 5.0, 9.0, 10.0, 2.0],
    })  # fmt: skip
    t = whole.whole_trace_table(summary)
    assert list(zip(t["trace"], t["model"], t["policy"], strict=True)) == [
        ("philly", "oasis", "oasis"), ("philly", "oasis", "drf"), ("philly", "aonline", "aonline"),
        ("philly", "specon", "k8s_default"), ("itp", "oasis", "fifo"),
    ]  # fmt: skip
    assert t["finished_pct"].tolist() == [100.0, 90.0, 25.0, 50.0, 100.0]
    assert list(t.columns).index("finished_pct") == list(t.columns).index("finished") + 1
    assert t["horizon"].tolist() == ["none", "none", "twice-last-arrival", "none", "none"]
    with pytest.raises(ValueError, match="lacks column"):
        whole.whole_trace_table(summary.drop(columns=["finished"]))


def test_skipped_sentences_say_why():
    lines = whole.skipped_sentences()
    assert len(lines) == len(whole.NOT_ON_WHOLE_TRACES) + len(whole.SLOW_ON_WHOLE_TRACES)
    assert lines[0].startswith("Not run on whole traces: PD-ORS") and "HiGHS" in lines[0]
    assert any(line.startswith("Not run on whole traces: Tetris on the optimus model") for line in lines)
    assert any(line.startswith("Not run on whole traces: DRF on the optimus model") for line in lines)


def test_a_whole_trace_point_runs_on_the_first_jobs_of_the_whole_trace():
    grid = whole.whole_trace_grid(["itp"], models=["oasis"], max_jobs=15)
    (point,) = [p for p in grid if p["policy"] == "fifo"]
    row = ax.arena_point(point).iloc[0]
    assert row["note"] == "" and row["jobs"] == 15
    assert row["finished"] + row["unfinished"] + row["rejected"] == 15
    assert not math.isnan(row["mean_jct_h"])



def test_recorded_minutes_reads_the_manifest_seconds(tmp_path):
    from dlsched import store
    from dlsched.experiments import cache_key

    grid = whole.whole_trace_grid(["itp"], models=["oasis"], max_jobs=12)[:2]
    assert whole.recorded_minutes(grid).empty  # no store: nothing recorded
    s = store.ResultStore(tmp_path / "results")
    with s.staging() as w:  # record only the first point, with a known time
        frame, _ = store.recompute(ax.arena_point, grid[0])
        w.record(cache_key(ax.arena_point, grid[0]), ax.arena_point, grid[0], frame, 90.0)
    got = whole.recorded_minutes(grid, s.path)
    assert got.to_dict("records") == [
        {"trace": "itp", "model": "oasis", "policy": grid[0]["policy"], "minutes": 1.5}
    ]

"""dlsched.optimus.paper: the stored wrappers of notebooks 20 and 21 give the samplers' frames,
split over blocks of seeds exactly as in one run, through the sweep."""

from __future__ import annotations

import pandas as pd
import pytest

from dlsched import experiments
from dlsched.optimus import analysis, checks, paper
from dlsched.optimus.workload import job_model


def test_split_grid():
    assert paper.split_grid("seeds", range(5), 2, n_ps=10) == [
        {"seeds": [0, 1], "options": {"n_ps": 10}},
        {"seeds": [2, 3], "options": {"n_ps": 10}},
        {"seeds": [4], "options": {"n_ps": 10}},
    ]
    for bad in ({"key": "options"}, {"size": 0}, {"values": []}):
        kw = {"key": "seeds", "values": [1], "size": 1, **bad}
        with pytest.raises(ValueError):
            paper.split_grid(kw["key"], kw["values"], kw["size"])


@pytest.mark.parametrize(
    ("fn", "sampler", "seeds", "size", "options"),
    [
        (paper.loss_fit_run, checks.loss_fit_sample, range(5), 2, {"noise_levels": [0.0, 0.05]}),
        (
            paper.speed_fit_run,
            checks.speed_fit_sample,
            range(4),
            3,
            {"noise_levels": [0.0, 0.05], "n_pairs": 10},
        ),
        (paper.remaining_epochs_run, checks.remaining_epochs_sample, range(30), 12, {}),
        (paper.allocation_run, checks.allocation_sample, range(4), 3, {"n_jobs": 8}),
        (
            paper.allocation_gap_run,
            checks.allocation_gap_sample,
            range(4),
            3,
            {"n_jobs": [2, 3], "max_tasks": 3},
        ),
        (
            paper.theorem1_run,
            checks.theorem1_sample,
            range(12),
            5,
            {"max_servers": 3, "max_p": 3, "max_w": 4, "extra_slots": 1},
        ),
        (paper.paa_run, checks.paa_sample, range(3), 2, {"n_ps": [1, 2, 40], "eps": [0.0, 0.2]}),
        (paper.mxnet_run, checks.mxnet_sample, range(20), 7, {"n_ps": 10}),
    ],
)
def test_blocks_give_the_samplers_frame(fn, sampler, seeds, size, options):
    got = experiments.sweep(fn, paper.split_grid("seeds", list(seeds), size, **options), scheduler="serial")
    kw = {k: tuple(v) if isinstance(v, list) else v for k, v in options.items()}
    want = sampler(list(seeds), **kw)
    # the sweep adds no parameter column (both parameters are non-scalar)
    assert list(got.columns) == list(want.columns)
    pd.testing.assert_frame_equal(got, want, check_dtype=False)


def test_table3_run_restores_the_table():
    got = experiments.sweep(
        paper.table3_run, paper.split_grid("seeds", list(range(5)), 5, n_ps=10), scheduler="serial"
    )
    want = checks.table3_comparison(range(5), 10)
    pd.testing.assert_frame_equal(got.set_index("quantity"), want.rename_axis("quantity"))


def test_prediction_error_run_per_delta_equals_one_run():
    grid = paper.split_grid("deltas", [0.005, 0.003], 1, confirm=5)
    got = experiments.sweep(paper.prediction_error_run, grid, scheduler="serial")
    want = analysis.prediction_errors(analysis.epoch_losses(), [0.005, 0.003], 5)
    pd.testing.assert_frame_equal(got, want, check_dtype=False)


def test_speed_error_run_one_stream_per_mode():
    opts = {"sample_sizes": [5, 8], "n_reps": 2, "seed": 3, "noise": 0.05, "max_tasks": 10}
    got = paper.speed_error_run({"modes": ["async", "sync"], "options": opts})
    sync = paper.speed_error_run({"modes": ["sync"], "options": opts})
    want = analysis.speed_error_vs_samples(
        job_model("resnet50", "sync"), [5, 8], 2, 3, noise=0.05, max_tasks=10
    )
    pd.testing.assert_frame_equal(sync, want)
    pd.testing.assert_frame_equal(got[got["mode"] == "sync"].reset_index(drop=True), want)
    assert list(got["mode"].unique()) == ["async", "sync"]


@pytest.mark.parametrize(
    ("params", "error", "match"),
    [
        ({"seeds": [0], "extra": 1}, ValueError, "unknown parameter"),
        ({"options": {}}, ValueError, "lacks 'seeds'"),
        ({"seeds": []}, ValueError, "non-empty list"),
        ({"seeds": "01"}, ValueError, "non-empty list"),
        ({"seeds": [0], "options": {"n_ps": 2, "bogus": 1}}, ValueError, "unknown option"),
        ({"seeds": [0], "options": [1]}, TypeError, "options must be a mapping"),
        ([0], TypeError, "params must be a mapping"),
    ],
)
def test_bad_params(params, error, match):
    with pytest.raises(error, match=match):
        paper.mxnet_run(params)


def test_speed_error_run_needs_sizes_and_reps():
    with pytest.raises(ValueError, match="sample_sizes"):
        paper.speed_error_run({"modes": ["async"], "options": {"n_reps": 2}})


def test_no_wrapper_declares_wall_clock_columns():
    from dlsched import store

    for name in paper.__all__:
        if name.endswith("_run"):
            assert store.volatile_columns(getattr(paper, name)) == ()

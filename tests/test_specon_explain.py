"""Tests of dlsched.specon.explain against hand-computed answers."""

from __future__ import annotations

import numpy as np
import pytest

from dlsched import registry
from dlsched.core.simulator import simulate
from dlsched.specon import explain
from dlsched.specon.model import TYPE_CURVES, curve_losses
from dlsched.specon.policy import SpeCon


def test_share_table_by_hand():
    t = explain.share_table(4, cores=16.0, cpu_usable=0.8, cpu_cap=4.0)
    assert t["equal"].tolist() == pytest.approx([12.8, 6.4, 12.8 / 3, 3.2])
    assert t["cap"].tolist() == pytest.approx([4.0, 4.0, 4.0, 3.2])
    assert t["idle_cap"].tolist() == pytest.approx([8.8, 4.8, 0.8, 0.0])


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_share_table_rejects_bad_count(bad):
    with pytest.raises(ValueError, match="max_containers"):
        explain.share_table(bad)


def test_share_table_rejects_bad_cap():
    with pytest.raises(ValueError, match="cpu_cap"):
        explain.share_table(2, cpu_cap=0.0)


def test_normalised_curve_ends():
    name = TYPE_CURVES["VAE-T"]
    c = explain.normalised_curve(name)
    loss = curve_losses(name)
    assert len(c) == len(loss)
    assert c["normalised"].iloc[0] == 0.0
    assert c["normalised"].max() == pytest.approx(1.0)
    assert c["progress"].iloc[-1] == pytest.approx(1.0)


def test_fig1_statistic_picks_last_step_before_fraction():
    c = explain.normalised_curve(TYPE_CURVES["GRU-T"]).assign(type="GRU-T")
    out = explain.fig1_statistic(c, 0.2)
    n = int(0.2 * len(c))
    assert out["ours"].iloc[0] == pytest.approx(c["normalised"].iloc[n - 1])
    with pytest.raises(ValueError, match="at must"):
        explain.fig1_statistic(c, 0.0)


def test_engine_cores_equal_split():
    wl = registry.make_workload("specon", seed=0)
    assert explain.engine_cores(wl, 4) == pytest.approx([12.8, 6.4, 12.8 / 3, 3.2])
    with pytest.raises(ValueError, match="max_containers"):
        explain.engine_cores(wl, 0)


def test_gain_recorder_behaves_like_specon():
    wl = registry.make_workload("specon", seed=0)
    rec = explain.GainRecorder()
    a = simulate(wl, rec, seed=0).jobs["jct_seconds"].to_numpy()
    b = simulate(wl, SpeCon(), seed=0).jobs["jct_seconds"].to_numpy()
    assert np.array_equal(a, b)
    assert len(rec.gains) > 0
    assert all(g["gain"] >= 0 for g in rec.gains)
    # first tick of job 0 is 30 s after its launch
    assert rec.gains[0]["slot"] == 300 and rec.gains[0]["job"] == 0


def test_normalised_curve_window_matches_evaluation():
    from dlsched.specon.model import SpeconJob

    name = TYPE_CURVES["VAE-T"]
    m = SpeconJob(work=100.0, curve=name, eval_window=15)
    c = explain.normalised_curve(name, 15)
    loss = curve_losses(name)
    e = np.array([loss[max(0, n - 15) : n].mean() for n in range(1, len(loss) + 1)])
    assert m.evaluation(40) == pytest.approx(e[39])
    span = loss[0] - e.min()
    assert c["normalised"].iloc[39] == pytest.approx((loss[0] - e[39]) / span)
    with pytest.raises(ValueError, match="window"):
        explain.normalised_curve(name, 0)

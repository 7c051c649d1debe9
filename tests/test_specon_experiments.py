"""SpeCon experiments (notebook 52): pair runs, the paper's summary numbers, comparisons, timelines."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dlsched import experiments
from dlsched.core.policy import BasePolicy
from dlsched.core.schedule import Decision, Placement
from dlsched.core.simulator import simulate
from dlsched.specon import experiments as sx
from dlsched.specon.model import PAPER_DS_MEAN, specon_workload


@pytest.fixture(scope="module")
def fig7_jobs() -> pd.DataFrame:
    return sx.pair_run({"experiment": "fig7", "seed": 0}).assign(seed=0)


def test_pair_run_is_deterministic_and_complete(fig7_jobs):
    again = sx.pair_run({"experiment": "fig7", "seed": 0}).assign(seed=0)
    pd.testing.assert_frame_equal(fig7_jobs, again)
    assert list(fig7_jobs.columns[:-1]) == list(sx.JOB_COLUMNS)
    assert fig7_jobs.groupby("policy").size().to_dict() == {"k8s_default": 30, "specon": 30}
    ds = fig7_jobs[fig7_jobs["policy"] == "k8s_default"]
    # DS: job k on worker (k - 1) mod 4 for its whole life, never moved (spec 5)
    assert (ds["first_host"] == (ds["job"] - 1) % 4).all()
    assert (ds["first_host"] == ds["last_host"]).all() and (ds["moved"] == "").all()
    # DS's mean completion time is calibrated to the paper's (spec 7.5; bisection tolerance)
    assert ds["completion_s"].mean() == pytest.approx(PAPER_DS_MEAN["fig7"], abs=0.5)
    sp = fig7_jobs[fig7_jobs["policy"] == "specon"]
    assert (sp["moved"].str.len() <= 1).all()  # at most once (l. 182)
    moved = sp["moved"] != ""
    assert (sp.loc[~moved, "first_host"] == sp.loc[~moved, "last_host"]).all()
    assert (sp.loc[moved, "first_host"] != sp.loc[moved, "last_host"]).all()
    # completion = finish - launch; same launches under both policies
    np.testing.assert_allclose(sp["finish_s"] - sp["launch_s"], sp["completion_s"])
    np.testing.assert_array_equal(ds["launch_s"].to_numpy(), sp["launch_s"].to_numpy())


def test_gains_match_a_hand_computation():
    rows = []
    ds, sp = [100.0, 200.0, 300.0, 400.0], [80.0, 200.0, 330.0, 300.0]
    for pol, times in (("k8s_default", ds), ("specon", sp)):
        for k, c in enumerate(times):
            rows.append({"policy": pol, "job": k + 1, "completion_s": c, "launch_s": 10.0 * k,
                         "finish_s": 10.0 * k + c, "moved": "M" if pol == "specon" and k == 3 else "",
                         "seed": 0})
    g = sx.gains(pd.DataFrame(rows)).iloc[0]
    assert g["ds_mean"] == 250.0 and g["specon_mean"] == 227.5
    assert g["overall_pct"] == pytest.approx(9.0)
    assert g["n_faster"] == 2 and g["n_slower"] == 1 and g["reduced_pct"] == 50.0
    assert g["faster_gain_s"] == pytest.approx(60.0)
    assert g["faster_gain_pct"] == pytest.approx((20.0 + 25.0) / 2)
    assert g["slower_loss_s"] == pytest.approx(30.0) and g["slower_loss_pct"] == pytest.approx(10.0)
    assert g["best_job"] == 4 and g["best_pct"] == pytest.approx(25.0)
    assert g["ds_makespan"] == pytest.approx(430.0) and g["specon_makespan"] == pytest.approx(350.0)
    assert g["moves_m"] == 1 and g["moves_r"] == 0


def test_gains_needs_both_policies():
    df = pd.DataFrame({"policy": ["k8s_default"], "job": [1], "completion_s": [1.0], "launch_s": [0.0],
                       "finish_s": [1.0], "moved": [""], "seed": [0]})
    with pytest.raises(ValueError, match="same jobs"):
        sx.gains(df)
    with pytest.raises(ValueError, match="missing column"):
        sx.gains(df.drop(columns="moved"))


def test_comparisons_have_every_paper_row(fig7_jobs):
    g = sx.gains(fig7_jobs)
    cmp = sx.fig7_comparison(g, setting="test")
    assert list(cmp["quantity"]) == [q for q, _ in sx.PAPER["fig7"]]
    assert set(cmp["match"]) <= {"yes", "partly", "no", "-"}
    assert cmp.loc[cmp["quantity"] == "setting", "ours"].item() == "test"
    card = sx.scorecard({"Fig. 7": cmp})
    assert (card["match"] != "-").all() and len(card) == (cmp["match"] != "-").sum()


def test_fig5_spec_defaults_give_ds_and_the_comparison_says_no():
    jobs = sx.pair_run({"experiment": "fig5", "seed": 0}).assign(seed=0)
    g = sx.gains(jobs)
    assert g["moves_m"].item() == 0 and g["overall_pct"].item() == pytest.approx(0.0, abs=1e-9)
    cmp = sx.fig5_comparison(g, jobs)
    row = cmp[cmp["quantity"] == "SpeCon average completion time"]
    assert row["match"].item() == "no"
    with pytest.raises(ValueError, match="jobs="):
        sx.fig5_comparison(g, None)


def test_reduction_verdict_rules():
    assert sx._reduction_verdict(10.0, 0.0) == "no"
    assert sx._reduction_verdict(10.0, -1.0) == "no"
    assert sx._reduction_verdict(10.0, 6.0) == "yes"
    assert sx._reduction_verdict(10.0, 2.0) == "partly"
    assert sx._reduction_verdict(10.0, 25.0) == "partly"


def test_table3_rows_follow_the_paper():
    grid = [{"experiment": "table3", "seed": 0, "policy": {"alpha": a, "interval": d}}
            for a, d in sx.PAPER_TABLE3[["alpha", "interval"]].itertuples(index=False)]
    runs = pd.concat([sx.pair_run(p).assign(alpha=p["policy"]["alpha"], interval=p["policy"]["interval"],
                                            seed=0)
                      for p in grid], ignore_index=True)
    g = sx.gains(runs, by=["alpha", "interval", "seed"])
    t = sx.table3(g)
    assert len(t) == 5 and (t["seeds"] == 1).all()
    np.testing.assert_array_equal(t["overall_pct_paper"], sx.PAPER_TABLE3["overall_pct"])
    cmp = sx.table3_comparison(g)
    assert len(cmp) == len(sx.PAPER["table3"])
    with pytest.raises(ValueError, match="missing"):
        sx.table3_comparison(g[g["alpha"] != 0.1])


def test_bad_params_are_named():
    with pytest.raises(ValueError, match="experiment must be one of"):
        sx.pair_run({"experiment": "fig99"})
    with pytest.raises(ValueError, match="unknown parameter"):
        sx.pair_run({"experiment": "fig5", "alfa": 0.1})
    with pytest.raises(ValueError, match="seed"):
        sx.pair_run({"experiment": "fig5", "seed": -1})
    with pytest.raises(ValueError, match="calibrate"):
        sx.pair_run({"experiment": "fig5", "calibrate": "fast"})
    with pytest.raises(ValueError, match="alpha"):
        sx.pair_run({"experiment": "fig5", "policy": {"alpha": 2.0}})
    with pytest.raises(ValueError, match="workload must be a dict"):
        sx.pair_run({"experiment": "fig5", "workload": 3})


def test_fixed_solo_time_is_used_as_is():
    jobs = sx.pair_run({"experiment": "fig5", "calibrate": 100.0})
    assert (jobs["solo_s"] == 100.0).all()


def test_sweep_serial_equals_direct_calls(tmp_path):
    grid = experiments.param_grid({"experiment": "fig6"}, seed=[0, 1])
    swept = experiments.sweep(sx.pair_run, grid, scheduler="serial", cache_dir=tmp_path)
    direct = pd.concat([sx.pair_run(p).assign(experiment="fig6", seed=p["seed"]) for p in grid],
                       ignore_index=True)
    pd.testing.assert_frame_equal(swept[direct.columns].reset_index(drop=True), direct, check_dtype=False)


def test_timeline_shares_and_labels():
    wl, res, pol = sx.run_pair("fig7", 0)
    tl = sx.timeline(wl, res["specon"], pol)
    assert set(tl.columns) == {"job", "worker", "start_s", "end_s", "cpu_pct", "label"}
    per_node = tl.groupby(["worker", "start_s"])["cpu_pct"].sum()
    assert per_node.max() <= 80.0 + 1e-9  # C_use = 80 % of the cores (l. 406)
    moved = {e["job"] + 1: e["event"] for e in pol.events if e["event"] in ("M", "R")}
    assert moved, "the 30-job run at seed 0 moves containers"
    for j, kind in moved.items():
        assert tl.loc[tl["job"] == j, "label"].iloc[-1] == f"Job-{j}-{kind}"
        assert tl.loc[tl["job"] == j, "worker"].nunique() == 2
        # while it pauses (5 s after the move) it uses no CPU
        assert (tl.loc[tl["job"] == j, "cpu_pct"] == 0).any()
    ds = sx.timeline(wl, res["k8s_default"])
    assert (ds["cpu_pct"] > 0).all() and not ds["label"].str.contains("-[MR]").any()


def test_pausing_container_uses_no_cpu():
    """Spec 7.7: a migrating container has share 0 on every node while its pause lasts."""
    wl = specon_workload(np.random.default_rng(0), n_jobs=2, interval=1e-6, migration_pause=5.0,
                         solo_seconds=100.0)

    class MoveFirst(BasePolicy):
        name = "move_first"

        def decide(self, t, view):
            alloc = {j: Placement.of({0: 1}) for j in view.jobs}
            if t >= 100 and 0 in alloc:  # at 10 s move job 0 to worker 2: 5 s pause
                alloc[0] = Placement.of({1: 1})
            admit = {v.job_id for v in view.pending()}
            return Decision(allocations=alloc, admit=admit, wakeup=100 if t < 100 else None)

    res = simulate(wl, MoveFirst())
    jobs = res.jobs.set_index("job_id")
    # both shared worker 1 for 10 s (half speed: 5 % of the work each); job 1 then runs alone
    # at once (job 0's pause frees the node), job 0 resumes on worker 2 after 5 s
    s1 = jobs.at[1, "jct_seconds"]
    assert s1 == pytest.approx(10.0 + 0.95 * wl.jobs[1].model.solo_seconds, abs=0.1)
    assert jobs.at[0, "jct_seconds"] == pytest.approx(15.0 + 0.95 * wl.jobs[0].model.solo_seconds, abs=0.1)


def test_testbed_figure_from_a_table():
    table = pd.DataFrame({"job": ["J1-a", "J2-b"], "ds_measured": [50.0, 60.0], "ds_predicted": [48.0, 59.0],
                          "specon_measured": [45.0, 62.0], "specon_predicted": [44.0, 61.0],
                          "specon_moved": [True, False]})
    fig = sx.testbed_figure(table, title="t")
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert labels == ["J1-a*", "J2-b"]
    with pytest.raises(ValueError, match="missing column"):
        sx.testbed_figure(table.drop(columns="ds_predicted"))


def test_timeline_counts_the_booked_cpu_of_a_progressing_container():
    """Under converged_cpu < 1 a container that still progresses holds its extra CPU as a ps slot
    on its node; the timeline's CPU use includes it (full C_use alone on a node), and drops to
    f C_use once the container has converged."""
    from dlsched.core.simulator import simulate
    from dlsched.specon.policy import K8sDefault

    wl = specon_workload(np.random.default_rng(0), n_jobs=1, converged_cpu=0.5, converged_at=0.5)
    res = simulate(wl, K8sDefault(), seed=0)
    tl = sx.timeline(wl, res)
    assert tl["cpu_pct"].max() == pytest.approx(80.0)  # progressing: C_use = 80 % of the node
    assert tl["cpu_pct"].iloc[-1] == pytest.approx(40.0)  # converged: f C_use

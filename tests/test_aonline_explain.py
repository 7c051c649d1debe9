"""Tests of the tables behind notebook 40_aonline_model (dlsched.aonline.explain), against
hand-computed values where there are some (Eq. (1) speeds, time points, price endpoints)."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pandas as pd
import pytest

from dlsched.aonline import explain
from dlsched.aonline.model import aonline_cluster, aonline_job, aonline_job_model, aonline_workload
from dlsched.aonline.policy import AOnline, AOnlinePrices, first_round, time_point
from dlsched.core.jobs import Workload
from dlsched.core.schedule import Placement, check_timeline
from dlsched.core.simulator import simulate

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def wl():
    return aonline_workload(np.random.default_rng(3), n_edge=12, n_jobs=10, server_source="synthetic")


@pytest.fixture(scope="module")
def run(wl):
    pol = AOnline.from_workload(wl)
    return pol, simulate(wl, pol, seed=0)


def hand_workload() -> Workload:
    """Two edge servers (1 worker slot of type 0, 6 PS slots of type 0) and a cloud; one job:
    E=2, D=4, M=5 (40 mini-batches), n = 0.1 h, H = 360 ms, 2k/B = 2*8*45/1 Mbps = 720 s."""
    cl = aonline_cluster([[1], [1]], [[6], [6]], 8, 48)
    m = aonline_job_model(
        epochs=2,
        chunks=4,
        minibatches=5,
        compute_hours=0.1,
        update_ms=360.0,
        gradient_mb=45.0,
        bandwidth_mbps=1.0,
    )
    job = aonline_job(0, 5, m, 0, 0, [2.0, 3.0, 12.0], requested_workers=4)
    return Workload(cl, (job,), name="aonline")


# ------------------------------------------------------------------------------ the system


def test_source_summary_and_server_frame_agree(wl):
    info = explain.source_summary(wl)
    sv = explain.server_frame(wl)
    edge = sv[sv["pool"] == "edge"]
    assert info["server_source"] == "synthetic" and info["trace_file"] is None
    assert info["n_edge"] == 12 == len(edge) and (sv["pool"] == "cloud").sum() == 1
    assert info["edge_worker_slots"] == edge["worker_slots"].sum()
    assert info["edge_ps_slots"] == edge["ps_slots"].sum()
    assert info["share_one_worker_slot"] == pytest.approx(np.mean(edge["worker_slots"] == 1))
    assert info["cloud_worker_slots"] == 64 * info["U"] and info["cloud_ps_per_type"] == 384
    # PS slots are 6 x GPUs; a server's types are at most its slots
    assert (edge["ps_slots"] == 6 * edge["worker_slots"]).all()
    assert (edge["worker_types"] <= edge["worker_slots"]).all() and (
        edge["ps_types"] <= edge["ps_slots"]
    ).all()
    with pytest.raises(ValueError, match="server_source"):
        explain.source_summary(hand_workload())
    with pytest.raises(TypeError):
        explain.server_frame("not a workload")


def test_ranges_table_drawn_values_inside_our_ranges(wl):
    t = explain.ranges_table(wl).set_index("quantity")
    for q, (lo, hi) in {
        "E_j (epochs)": (50, 100),
        "D_j (chunks = max workers)": (20, 50),
        "M_j (mini-batches per chunk)": (10, 50),
        "Delta_js edge (slots)": (1, 4),
        "Delta_js cloud (slots)": (10, 40),
        "H_j (ms)": (10, 100),
    }.items():
        assert lo <= float(t.loc[q, "drawn_min"]) <= float(t.loc[q, "drawn_max"]) <= hi, q
    assert t.loc["k_j (MB)", "drawn_min"] == ""
    assert list(t.columns) == ["paper", "ours", "drawn_min", "drawn_max"]
    with pytest.raises(ValueError, match="params"):
        explain.ranges_table(hand_workload())


# ------------------------------------------------------------------------- Eq. (1), d_j


def test_speed_frame_hand_values():
    row = explain.speed_frame(hand_workload()).iloc[0]
    # n = 360 s, H = 0.36 s, 2k/B = 720 s per mini-batch; p in mini-batches per 3600-s slot
    assert row["n_s"] == pytest.approx(360.0) and row["H_s"] == pytest.approx(0.36)
    assert row["comm_s"] == pytest.approx(720.0)
    assert row["p_coloc"] == pytest.approx(3600 / 360.36)
    assert row["p_split"] == pytest.approx(3600 / 1080.36)
    assert row["slowdown"] == pytest.approx(1080.36 / 360.36)
    # 40 mini-batches, 4 workers: ceil(40 / (4 * 9.99)) = 2 co-located, ceil(40 / (4 * 3.33)) = 4 split
    assert row["d_coloc"] == 2 and row["d_split"] == 4


def test_duration_curve_monotone_and_bounded(wl):
    j = wl.jobs[0].job_id
    D = wl.jobs[0].model.chunks
    c = explain.duration_curve(wl, [j], workers=[1, 2, 5, D, D + 1])
    assert sorted(c["workers"].unique()) == sorted({1, 2, 5, D})  # D + 1 breaks (2a): skipped
    for _, g in c.groupby("placement"):
        assert g.sort_values("workers")["d"].is_monotonic_decreasing
    piv = c.pivot(index="workers", columns="placement", values="d")
    assert (piv["co-located"] <= piv["split"]).all()
    assert len(explain.duration_curve(wl, [j])) == 2 * D
    with pytest.raises(ValueError, match="no job"):
        explain.duration_curve(wl, [999])


# ------------------------------------------------------------------------------- (2i)


def test_delay_frame_hand_values():
    row = explain.delay_frame(hand_workload()).iloc[0]
    assert row["edge_delay"] == 2.0 and row["cloud_delay"] == 12.0
    assert row["edge_ready"] == 7.0 and row["cloud_ready"] == 17.0
    assert row["tau_first"] == 8 and row["d_min"] == 2
    # data on the nearest edge server by 7 < 8, window (8, 16] long enough; the cloud: 17 < 32
    assert row["tau_lb"] == 8 and row["tau_lb_cloud"] == 32


def test_delay_frame_bounds(wl, run):
    d = explain.delay_frame(wl)
    assert (d["tau_first"] > d["arrival"]).all()
    assert all(t == time_point(first_round(a)) for t, a in zip(d["tau_first"], d["arrival"], strict=True))
    assert (d["tau_lb"] >= d["tau_first"]).all() and (d["tau_lb_cloud"] >= d["tau_lb"]).all()
    assert (d["tau_lb"] >= d["d_min"]).all()  # window (tau, 2 tau] holds d_min
    jf = explain.job_frame(run[1]).set_index("job")
    assert (jf.loc[d["job"], "tau"].to_numpy() >= d["tau_lb"].to_numpy()).all()  # a lower bound


# ---------------------------------------------------------------------- (2c)-(2d)


def test_fixed_allocation_verdicts():
    w = hand_workload()
    spec = w.jobs[0]
    tl = explain.fixed_allocation_timelines(spec, Placement.of({2: 3}, {2: 1}), 17, 6)
    assert set(tl) == {"fixed", "changed", "paused", "too early"}
    assert tl["paused"]["slot"].nunique() == 6 and tl["paused"]["slot"].max() == 23
    v = explain.timeline_verdicts(w.cluster, spec, tl).set_index("variant")
    assert v.loc["fixed", "fixed_job"] == "passes" == v.loc["fixed", "preemptible_job"]
    assert v.loc["changed", "fixed_job"] == "fixed_allocation" == v.loc["changed", "preemptible_job"]
    assert v.loc["paused", "fixed_job"] == "fixed_allocation"
    assert v.loc["paused", "preemptible_job"] == "passes"
    assert v.loc["too early", "fixed_job"] == "transfer_delay"
    assert "not preemptible" in v.loc["paused", "message"] and v.loc["fixed", "message"] == ""
    with pytest.raises(ValueError, match="duration"):
        explain.fixed_allocation_timelines(spec, Placement.of({2: 3}, {2: 1}), 17, 2)


# ------------------------------------------------------------------------ time points


def test_rounds_table_hand_values():
    t = explain.rounds_table(5)
    assert t["tau"].tolist() == [1, 2, 4, 8, 16]
    assert t["window_end"].tolist() == [2, 4, 8, 16, 32]
    assert t["length"].tolist() == [1, 2, 4, 8, 16]
    assert t["first_for"].tolist() == ["0", "1", "2..3", "4..7", "8..15"]
    for a in range(16):  # first_for agrees with first_round
        i = first_round(a)
        lo, _, hi = t.loc[i - 1, "first_for"].partition("..")
        assert int(lo) <= a <= int(hi or lo)
    with pytest.raises(ValueError, match="n_rounds"):
        explain.rounds_table(0)


# ----------------------------------------------------------------------------- prices


def test_price_endpoints_and_curve():
    e = explain.price_endpoints(16, 3, 2, 4, F1=1.0, F2=0.5)
    assert (
        e.loc["corrected", "theta1"] == 2 * 16 * 3 * 2 + 1 and e.loc["corrected", "theta2"] == 16 * 3 * 4 + 1
    )
    assert e.loc["corrected", "lambda_empty"] == 0 and e.loc["literal", "lambda_empty"] == -1
    assert e.loc["corrected", "lambda_full"] == pytest.approx(e.loc["corrected", "2TSUF1"])
    assert e.loc["corrected", "mu_full"] == pytest.approx(e.loc["corrected", "2TSVF2"])
    pr = {r: AOnlinePrices.of(16, 3, 2, 4, reading=r) for r in ("corrected", "literal")}
    c = explain.price_curve(pr, points=11)
    assert len(c) == 2 * 2 * 11
    for _, g in c.groupby(["prices", "function"]):
        assert g["price"].is_monotonic_increasing


def test_sharing_threshold_hand_values():
    pr = AOnlinePrices(theta1=math.e**8, theta2=math.e**12)
    t = explain.sharing_threshold(pr, {"w": ("worker", 8), "p": ("ps", 6)}, [1, 10])
    w = t[t["resource"] == "w"].set_index("d")
    assert w.loc[1, "price_one_used"] == pytest.approx(math.e - 1)
    assert w.loc[10, "cost"] == pytest.approx(10 * (math.e - 1))
    assert w.loc[1, "slots_to_weight"] == pytest.approx(1 / (math.e - 1))
    assert t[t["resource"] == "p"]["price_one_used"].iloc[0] == pytest.approx(math.e**2 - 1)
    with pytest.raises(ValueError, match="kind"):
        explain.sharing_threshold(pr, {"x": ("gpu", 4)}, [1])


# -------------------------------------------------------------------------------- a run


def test_run_tables_agree(wl, run):
    pol, res = run
    check_timeline(wl.cluster, wl.specs, res.allocations)
    rf = explain.round_frame(pol)
    assert (rf["considered"] == rf["admitted"] + rf["deferred"]).all()
    assert rf["admitted"].sum() == len(wl.jobs)  # A_online never rejects; every job ran
    jf = explain.job_frame(res)
    assert len(jf) == len(wl.jobs) and set(jf["kind"]) <= set(explain.PLACEMENT_KINDS)
    assert (jf["tau"] >= jf["tau_first"]).all() and (jf["tau_first"] > jf["arrival"]).all()
    assert (jf["completion"] <= jf["window_end"] + 1e-6).all()  # c_j <= tau_{i+1}
    assert ((jf["window_used"] > 0) & (jf["window_used"] <= 1 + 1e-9)).all()
    assert (jf["workers"] <= jf["D"]).all()
    s = explain.run_summary(res)
    assert s["finished"] == len(wl.jobs)
    assert s["total_completion_slots"] == pytest.approx(
        (res.jobs["completion_time"] - res.jobs["arrival"]).sum()
    )
    sh = explain.sharing(res)
    assert set(sh["pool"]) <= {"edge", "cloud"} and (sh["max_jobs"] >= 1).all()
    assert ((sh["peak_use"] > 0) & (sh["peak_use"] <= 1)).all()


def test_placement_kind():
    cl = hand_workload().cluster
    assert explain.placement_kind(Placement.of({2: 3}, {2: 1}), cl) == "co-located on the cloud"
    assert explain.placement_kind(Placement.of({0: 1}, {0: 1}), cl) == "co-located on an edge server"
    assert explain.placement_kind(Placement.of({0: 1, 2: 2}, {0: 1}), cl) == "split: edge + cloud"
    assert explain.placement_kind(Placement.of({0: 1, 1: 1}, {1: 1}), cl) == "split: edge servers only"


def test_gantt_draws_one_bar_per_job(run):
    _, res = run
    ax = explain.gantt(res)
    assert len(ax.patches) == len(res.workload.jobs)
    assert ax.get_legend() is not None
    import matplotlib.pyplot as plt

    plt.close(ax.figure)


def test_job_frame_rejects_other_objects():
    with pytest.raises(TypeError):
        explain.job_frame(pd.DataFrame())
    with pytest.raises(ValueError, match="AOnline"):
        explain.round_frame(object())


def test_compare_runs_default_matches_a_plain_run(wl, run):
    _, res = run
    t = explain.compare_runs(wl, {"as printed": {}, "inclusive": {"data_ready": "inclusive"}}, seed=0)
    assert list(t.index) == ["as printed", "inclusive"]
    s = explain.run_summary(res)
    assert t.loc["as printed", "total_completion_slots"] == pytest.approx(s["total_completion_slots"])
    assert t.loc["as printed", "mean_workers"] == pytest.approx(s["mean_workers"])
    assert ((t["first_round_share"] >= 0) & (t["first_round_share"] <= 1)).all()
    assert (t["max_jobs"] >= 1).all()

"""Optimus and Tetris policies, the Optimus workload, load-balancing placement (issue 4)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_properties import check_run

from dlsched import registry
from dlsched.core.cluster import Cluster, Server
from dlsched.core.jobs import JobSpec, LossCurve, OptimusModel, Workload
from dlsched.core.placement import LoadBalance
from dlsched.core.schedule import check_timeline
from dlsched.core.simulator import simulate
from dlsched.optimus import workload as W
from dlsched.optimus.allocation import AllocJob, speed_function
from dlsched.optimus.policy import Estimates, Optimus, Tetris, best_fit, drf_bundles, shrink_and_place

# ------------------------------------------------------------------------------------ workload


def test_table1_matches_paper() -> None:
    t = W.TABLE1
    assert len(t) == 9
    assert t["resnet50"].params_m == 25 and t["resnet50"].examples == 1_313_788
    assert t["deepspeech2"].params_m == 38 and t["seq2seq"].examples == 1_000_000
    assert {x.network for x in t.values()} == {"CNN", "RNN"}


@pytest.mark.parametrize("key", list(W.TABLE1))
def test_convergence_epochs_equals_scan(key: str) -> None:
    curve = W.loss_curve(key)
    for delta in (0.011, 0.027, 0.049):  # not 1/(e(e+1)) exactly: ties are a float coin toss
        got = W.convergence_epochs(curve, delta)
        e = np.arange(1, 5000)
        dec = (curve(e) - curve(e + 1)) / float(curve(1.0))
        first = int(e[np.argmax(dec < delta)])
        assert got == max(1, first), (key, delta, got, first)


def test_job_model_total_work() -> None:
    m = W.job_model("resnet50", "sync", threshold=0.02, data_scale=3.0)
    t = W.TABLE1["resnet50"]
    assert m.work_per_epoch == pytest.approx(3.0 * t.train_examples / t.batch)
    assert m.total_steps == pytest.approx(
        W.convergence_epochs(W.loss_curve("resnet50"), 0.02) * m.work_per_epoch
    )
    assert m.threshold == 0.02 and m.model_size == pytest.approx(100.0)
    # sync: more workers help at first, then saturate (Sec. 3.2 observation)
    assert m.speed(2, 2) > m.speed(1, 1)


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"job_type": "alexnet", "mode": "sync"}, "alexnet"),
        ({"job_type": "resnet50", "mode": "both"}, "both"),
        ({"job_type": "resnet50", "mode": "sync", "threshold": 1.5}, "1.5"),
        ({"job_type": "resnet50", "mode": "sync", "data_scale": 0}, "data_scale"),
    ],
)
def test_job_model_bad_input(kwargs, needle) -> None:
    with pytest.raises(ValueError, match=needle):
        W.job_model(**kwargs)


def test_workload_deterministic_and_shaped() -> None:
    a = registry.make_workload("optimus", seed=3, n_jobs=12)
    b = registry.make_workload("optimus", seed=3, n_jobs=12)
    c = registry.make_workload("optimus", seed=4, n_jobs=12)
    assert a.jobs == b.jobs and a.jobs != c.jobs
    assert len(a.jobs) == 12 and a.cluster.n_servers == 13
    assert all(0 <= j.arrival <= 20 for j in a.jobs)
    assert {j.model.mode for j in a.jobs} <= {"sync", "async"}
    assert all(0.01 <= j.model.threshold <= 0.05 for j in a.jobs)
    sync = registry.make_workload("optimus", seed=3, n_jobs=12, mode="sync")
    assert {j.model.mode for j in sync.jobs} == {"sync"}


def test_arrival_processes() -> None:
    rng = np.random.default_rng(0)
    p = W.arrival_slots(rng, 3000, "poisson", rate=3.0)
    assert p[0] == 0 and np.all(np.diff(p) >= 0)
    assert 3000 / (p[-1] + 1) == pytest.approx(3.0, rel=0.1)
    g = W.arrival_slots(np.random.default_rng(0), 500, "google")
    counts = np.asarray(W.google_interval_counts())
    assert counts.size == 42 and g.min() >= 0 and g.max() < 42
    # the busiest trace interval receives more jobs than the quietest one
    hist = np.bincount(g, minlength=42)
    assert hist[int(np.argmax(counts))] > hist[int(np.argmin(counts))]


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"arrivals": "bursty"}, "bursty"),
        ({"mode": "mixed"}, "mixed"),
        ({"threshold": (0.05, 0.01)}, "threshold"),
        ({"loss_noise": -0.1}, "loss_noise"),
        ({"n_jobs": 0}, "n_jobs"),
        ({"job_types": ["resnet50", "vgg"]}, "vgg"),
        ({"n_cpu_servers": 0, "n_gpu_servers": 0}, "no server"),
    ],
)
def test_workload_bad_input(kwargs, needle) -> None:
    with pytest.raises(ValueError, match=needle):
        registry.make_workload("optimus", seed=0, **kwargs)


def test_observation_noise_deterministic_and_prefix_consistent() -> None:
    base = dict(
        mode="sync",
        total_steps=1000.0,
        batch=32.0,
        t_forward=0.01,
        t_back=0.1,
        model_size=10.0,
        ps_bw=100.0,
        worker_bw=100.0,
        loss=LossCurve(0.5, 1.0, 0.1),
        work_per_epoch=100.0,
    )
    clean = OptimusModel(**base)
    noisy = OptimusModel(**base, loss_noise=0.05, noise_seed=7)
    assert np.allclose(clean.observations(550), clean.loss(np.arange(1, 6)))
    a, b = noisy.observations(550), noisy.observations(950)
    assert a.size == 5 and b.size == 9 and np.array_equal(a, b[:5])
    assert not np.allclose(a, clean.observations(550))
    with pytest.raises(ValueError, match="noise_seed"):
        OptimusModel(**base, noise_seed=-1)


# ---------------------------------------------------------------------------------- placement


def _two_servers() -> Cluster:
    return Cluster(
        (Server("a", "unified", {"cpu": 8, "mem": 8}), Server("b", "unified", {"cpu": 8, "mem": 8})),
        ("cpu", "mem"),
        slot_seconds=600.0,
    )


def test_load_balance_picks_least_loaded() -> None:
    cl = _two_servers()
    free = cl.capacity.copy()
    free[0] -= [4, 4]
    got = LoadBalance(cl).place(free, np.array([2.0, 2.0]), 3, "worker")
    # b (free 8) gets the first two, then both have 4 free and the lower index wins
    assert got == {1: 2, 0: 1}
    before = free.copy()
    assert LoadBalance(cl).place(free, np.array([3.0, 3.0]), 3, "worker") is None
    assert np.array_equal(free, before)


def test_best_fit_packs() -> None:
    free = np.array([[8.0, 8.0], [3.0, 8.0], [6.0, 8.0]])
    got = best_fit(free, np.array([2.0, 1.0]), 3, np.array([True, True]), 0)
    assert got == {1: 1, 2: 2}


def _alloc_job(j: int, q: float = 100.0) -> AllocJob:
    f = speed_function("async", (1.0, 0.5, 0.01, 0.01))
    return AllocJob(j, q, f, np.array([2.0, 1.0]), np.array([1.0, 1.0]))


def test_drf_bundles_fair_and_feasible() -> None:
    jobs = [_alloc_job(0), _alloc_job(1), _alloc_job(2)]
    got = drf_bundles(jobs, np.array([30.0, 30.0]))
    # each bundle is 3 cpu, 2 mem: 10 bundles fit; identical jobs differ by at most one bundle
    total = sum(p for p, _ in got.values())
    assert total == 10 and max(p for p, _ in got.values()) - min(p for p, _ in got.values()) <= 1
    assert all(p == w for p, w in got.values())


def test_shrink_and_place() -> None:
    job = _alloc_job(0)
    free = np.array([[4.0, 4.0], [4.0, 4.0]])
    pl = shrink_and_place(job, (4, 4), free, sort_by=0, hard=np.array([True, True]))
    assert pl is not None and 1 <= pl.n_ps and 1 <= pl.n_workers
    assert np.all(free >= -1e-9)
    assert (
        shrink_and_place(job, (1, 1), np.array([[2.0, 1.0]]), sort_by=0, hard=np.array([True, True])) is None
    )


# ------------------------------------------------------------------------------------ policies


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("optimus", {}),
        ("optimus", {"allocation": "drf"}),
        ("optimus", {"placement": "load_balance"}),
        ("optimus", {"placement": "best_fit", "priority": 0.95}),
        ("optimus", {"convergence_error": 0.2, "speed_error": 0.1}),
        ("tetris", {}),
        ("drf", {"placement": "load_balance"}),
    ],
)
def test_policies_feasible_and_finish(name, params) -> None:
    wl = registry.make_workload("optimus", seed=1, n_jobs=10, data_scale=1.0)
    check_run(wl, registry.make_policy(name, wl, **params), None)
    res = simulate(wl, registry.make_policy(name, wl, **params), seed=0)
    assert (res.jobs["status"] == "finished").all()
    check_timeline(wl.cluster, wl.specs, res.allocations)
    # every scheduled job has at least one PS and one worker in every slot it runs
    per = res.allocations.groupby(["job", "slot", "role"])["count"].sum().unstack(fill_value=0)
    assert (per["worker"] >= 1).all() and (per["ps"] >= 1).all()


def test_optimus_deterministic() -> None:
    wl = registry.make_workload("optimus", seed=2, n_jobs=10, data_scale=1.0)
    a = simulate(wl, registry.make_policy("optimus", wl, speed_error=0.1), seed=5)
    b = simulate(wl, registry.make_policy("optimus", wl, speed_error=0.1), seed=5)
    pd.testing.assert_frame_equal(a.jobs, b.jobs)
    pd.testing.assert_frame_equal(a.allocations, b.allocations)


def test_estimates_converge_to_truth() -> None:
    """With noise-free losses, once a few epochs are seen the remaining-work estimate is exact
    up to the epoch rounding; the runtime speed samples are recorded."""
    wl = registry.make_workload("optimus", seed=0, n_jobs=6, loss_noise=0.0, data_scale=1.0)
    pol = Optimus()
    seen = []
    orig = pol.decide

    def spy(t, view):
        d = orig(t, view)
        for j, v in view.jobs.items():
            m = v.spec.model
            if v.observations.size >= 4 and j in d.info:
                true_rem = m.total_steps - v.work_done
                seen.append((d.info[j]["est_remaining_steps"], true_rem, m.work_per_epoch))
        return d

    pol.decide = spy
    simulate(wl, pol, seed=0)
    assert seen
    for est, true, per_epoch in seen:
        assert abs(est - true) <= per_epoch + 1e-6


def test_job_that_fits_nowhere_is_an_error() -> None:
    """A job whose worker fits on no server is refused when the workload is built (the policies'
    own rejection of unplaceable jobs is a second line of defence)."""
    cl = _two_servers()
    m = OptimusModel(
        mode="async",
        total_steps=100.0,
        batch=32.0,
        t_forward=0.01,
        t_back=0.1,
        model_size=1.0,
        ps_bw=100.0,
        worker_bw=100.0,
        loss=LossCurve(0.5, 1.0),
        work_per_epoch=10.0,
        threshold=0.02,
    )
    jobs = (
        JobSpec(0, 0, m, {"cpu": 2, "mem": 2}, {"cpu": 1, "mem": 1}),
        JobSpec(1, 0, m, {"cpu": 9, "mem": 1}, {"cpu": 1, "mem": 1}),
    )
    with pytest.raises(ValueError, match="job 1 can never run"):
        Workload(cl, jobs, name="t")
    res = simulate(Workload(cl, jobs[:1], name="t"), Tetris(), seed=0).jobs
    assert (res["status"] == "finished").all()


@pytest.mark.parametrize(
    ("cls", "kwargs", "needle"),
    [
        (Optimus, {"allocation": "fair"}, "fair"),
        (Optimus, {"placement": "random"}, "random"),
        (Optimus, {"unplaced": "drop"}, "drop"),
        (Optimus, {"priority": 0}, "priority"),
        (Optimus, {"speed_error": 1.5}, "speed_error"),
        (Tetris, {"srtf_weight": -1}, "srtf_weight"),
        (Tetris, {"max_bundles": 0}, "max_bundles"),
        (Estimates, {"min_loss_points": 2}, "min_loss_points"),
    ],
)
def test_policy_bad_parameters(cls, kwargs, needle) -> None:
    with pytest.raises(ValueError, match=needle):
        cls(**kwargs)


def test_optimus_needs_optimus_jobs() -> None:
    wl = registry.make_workload("synthetic", seed=0, model="oasis", n_jobs=3)
    with pytest.raises(TypeError, match="OptimusModel"):
        simulate(wl, Optimus(), seed=0)


@pytest.mark.parametrize("placement", ["load_balance", "best_fit"])
def test_task_by_task_placements_do_not_starve_a_lone_big_job(placement) -> None:
    """A lone large job gets an allocation sized to the cluster's total capacity that does not fit
    server by server; with the shrink fallback it still runs and finishes (it used to wait forever)."""
    wl = registry.make_workload("optimus", seed=0, n_jobs=1, job_types=["resnet50"], data_scale=0.2)
    res = simulate(wl, registry.make_policy("optimus", wl, placement=placement), seed=0, horizon=200)
    assert (res.jobs["status"] == "finished").all()
    starved = simulate(wl, registry.make_policy("optimus", wl, placement=placement, unplaced="pause"),
                       seed=0, horizon=30)
    assert (starved.jobs["status"] != "finished").all()

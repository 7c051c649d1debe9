"""OASiS workloads (dlsched.oasis.model): the Google arrival pattern, the Sec. V-A simulation
workload, the Sec. V-B testbed workload, the schedulability report and bad input."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dlsched import traces
from dlsched.core.jobs import OasisModel, Workload
from dlsched.oasis import model as om


def _trace_available() -> bool:
    try:
        traces.data_dir()
    except FileNotFoundError:
        return False
    return True


@pytest.fixture(scope="module")
def big() -> Workload:
    """2,000 jobs of the default Sec. V-A distribution (small cluster keeps it fast)."""
    return om.oasis_workload(np.random.default_rng(7), n_jobs=2000, H=10, K=10)


# ------------------------------------------------------------------------------- Google profile


@pytest.mark.skipif(not _trace_available(), reason="trace folder (DLSCHED_DATA_DIR) not available")
def test_google_profile_matches_trace():
    computed = traces.google_hour_of_day_profile()
    assert len(om.GOOGLE_HOURLY_PROFILE) == 24
    np.testing.assert_allclose(om.GOOGLE_HOURLY_PROFILE, np.round(computed, 4), atol=1e-12)


def test_google_profile_is_normalized():
    p = np.asarray(om.GOOGLE_HOURLY_PROFILE)
    assert p.min() > 0 and abs(p.mean() - 1.0) < 1e-3


def test_slot_intensity_maps_slots_to_hours():
    p = np.asarray(om.GOOGLE_HOURLY_PROFILE)
    w = om.slot_intensity(48)  # 1-hour slots from midnight: slot t is hour t mod 24
    np.testing.assert_allclose(w, np.tile(p, 2) / p.mean())
    w3 = om.slot_intensity(72, slots_per_hour=3.0)  # 20-minute slots: 3 per hour
    np.testing.assert_allclose(w3, np.repeat(p, 3) / p.mean())
    day = om.slot_intensity(3, slots_per_hour=1 / 24)  # a day per slot: the daily mean, 1
    np.testing.assert_allclose(day, 1.0)
    shifted = om.slot_intensity(24, start_hour=5.0)
    np.testing.assert_allclose(shifted, np.roll(p, -5) / p.mean())
    half = om.slot_intensity(1, slots_per_hour=1.0, start_hour=0.5)  # half of hour 0, half of hour 1
    np.testing.assert_allclose(half, (p[0] + p[1]) / 2 / p.mean())


def test_google_arrivals_range_sorted_deterministic():
    a = om.google_arrivals(np.random.default_rng(3), 500, 37)
    b = om.google_arrivals(np.random.default_rng(3), 500, 37)
    assert a.dtype == np.int64 and len(a) == 500
    assert a.min() >= 0 and a.max() <= 36
    assert np.all(np.diff(a) >= 0)
    np.testing.assert_array_equal(a, b)


def test_google_arrivals_follow_profile():
    a = om.google_arrivals(np.random.default_rng(0), 200_000, 240)
    hist = np.bincount(a % 24, minlength=24)
    r = np.corrcoef(hist, om.GOOGLE_HOURLY_PROFILE)[0, 1]
    assert r > 0.8
    # and the midnight peak is really there: hour 0 busier than hour 6 by about the profile ratio
    p = om.GOOGLE_HOURLY_PROFILE
    assert hist[0] / hist[6] == pytest.approx(p[0] / p[6], rel=0.05)


def test_google_arrivals_with_rate_is_poisson():
    rng = np.random.default_rng(1)
    counts = [len(om.google_arrivals(rng, None, 24, rate=2.0)) for _ in range(400)]
    assert np.mean(counts) == pytest.approx(48.0, rel=0.05)  # rate x T with a mean-1 profile
    assert np.var(counts) == pytest.approx(48.0, rel=0.25)


def test_google_arrivals_zero_hours_get_no_jobs():
    prof = np.zeros(24)
    prof[9:17] = 1.0  # office hours only
    a = om.google_arrivals(np.random.default_rng(0), 1000, 48, profile=prof)
    assert set(np.unique(a % 24)) <= set(range(9, 17))


# ----------------------------------------------------------------------------- Sec. V-A workload


def test_oasis_workload_deterministic():
    a = om.oasis_workload(np.random.default_rng(11), n_jobs=60, H=6, K=4)
    b = om.oasis_workload(np.random.default_rng(11), n_jobs=60, H=6, K=4)
    pd.testing.assert_frame_equal(a.jobs_frame(), b.jobs_frame())
    pd.testing.assert_frame_equal(a.cluster.to_frame(), b.cluster.to_frame())
    c = om.oasis_workload(np.random.default_rng(12), n_jobs=60, H=6, K=4)
    assert not a.jobs_frame().equals(c.jobs_frame())


def test_oasis_workload_shape_and_cluster():
    wl = om.oasis_workload(np.random.default_rng(0), n_jobs=30, T=120, H=12, K=8)
    assert wl.name == "oasis" and wl.horizon == 120 and len(wl.jobs) == 30
    c = wl.cluster
    assert c.resources == om.RESOURCES
    assert len(c.servers_for("worker")) == 12 and len(c.servers_for("ps")) == 8
    assert c.slot_seconds == 3600.0
    df = c.to_frame()
    w, p = df[df.pool == "worker"], df[df.pool == "ps"]
    assert (w.capacity_gpu >= 1).all() and (p.capacity_gpu == 0).all()  # GPUs on worker servers
    gpu_types = {(v["gpu"], v["cpu"], v["mem"]) for k, v in om.EC2_INSTANCES.items() if k in om.WORKER_TYPES}
    assert set(zip(w.capacity_gpu, w.capacity_cpu, w.capacity_mem, strict=True)) <= gpu_types
    assert (p.capacity_cpu == 36).all() and (p.capacity_mem == 60).all()  # c4.8xlarge
    assert df.capacity_bandwidth.between(20, 50).all()
    assert [s.job_id for s in wl.jobs] == list(range(30))


def test_oasis_workload_ranges(big):
    df = big.jobs_frame()
    checks = {
        "worker_gpu": om.WORKER_GPU,
        "worker_cpu": om.WORKER_CPU,
        "worker_mem": om.WORKER_MEM_GB,
        "worker_storage": om.WORKER_STORAGE_GB,
        "worker_bandwidth": om.WORKER_BANDWIDTH_GBPS,
        "ps_cpu": om.PS_CPU,
        "ps_mem": om.PS_MEM_GB,
        "ps_storage": om.PS_STORAGE_GB,
        "ps_bandwidth": om.PS_BANDWIDTH_GBPS,
        "model_epochs": om.EPOCHS,
        "model_chunks": om.CHUNKS,
        "model_minibatches": om.MINIBATCHES,
        "utility_gamma1": (1.0, 100.0),
        "utility_gamma3": (1.0, 15.0),
        "arrival": (0, 99),
    }
    for col, (lo, hi) in checks.items():
        assert df[col].between(lo, hi).all(), col
    for col in ("worker_gpu", "worker_cpu", "worker_mem", "ps_cpu", "model_epochs", "model_chunks"):
        assert (df[col] == np.round(df[col])).all(), col  # integer counts
        assert df[col].min() == checks[col][0] and df[col].max() == checks[col][1], col  # full range
    assert (df.worker_bandwidth <= df.ps_bandwidth).all()
    assert (df.model_worker_bw == df.worker_bandwidth).all() and (df.model_ps_bw == df.ps_bandwidth).all()
    # tau in seconds, converted to 1-hour slots; comm = e/b seconds -> slots with e in [30, 575] MB
    tau_s = df.model_tau * 3600
    assert tau_s.between(*om.TAU).all()
    e_mb = df.model_comm * 3600 * df.worker_bandwidth * 1000 / 8
    assert e_mb.between(om.GRADIENT_MB[0] - 1e-6, om.GRADIENT_MB[1] + 1e-6).all()
    # fixed worker count in [1, 30], capped at N
    assert df.requested_workers.between(1, 30).all()
    assert (df.requested_workers <= df.model_chunks).all()
    assert ((df.model_chunks < 30) & (df.requested_workers == df.model_chunks)).any()  # the cap binds


def test_oasis_workload_class_mix(big):
    df = big.jobs_frame()
    cls = om.utility_classes(df.utility_gamma2)
    assert list(cls) == list(df.name)
    share = pd.Series(cls).value_counts(normalize=True)
    for name, p in zip(om.UTILITY_CLASSES, (0.10, 0.55, 0.35), strict=True):
        assert share[name] == pytest.approx(p, abs=0.035), name
    g2 = df.utility_gamma2
    assert (g2[df.name == "time-insensitive"] == 0).all()
    assert g2[df.name == "time-sensitive"].between(*om.GAMMA2_SENSITIVE).all()
    assert g2[df.name == "time-critical"].between(*om.GAMMA2_CRITICAL).all()


def test_oasis_workload_custom_mix_and_gamma1():
    wl = om.oasis_workload(
        np.random.default_rng(2), n_jobs=200, H=4, K=2, mix=[0.0, 0.0, 1.0], gamma1=(75, 100)
    )
    df = wl.jobs_frame()
    assert (df.name == "time-critical").all()
    assert df.utility_gamma1.between(75, 100).all()


def test_oasis_workload_literal_reading_same_jobs():
    sec = om.oasis_workload(np.random.default_rng(5), n_jobs=50, H=4, K=4)
    lit = om.oasis_workload(np.random.default_rng(5), n_jobs=50, H=4, K=4, reading="literal")
    a, b = sec.jobs_frame(), lit.jobs_frame()
    np.testing.assert_allclose(b.model_tau, a.model_tau * 3600)  # tau in slots as printed
    np.testing.assert_array_equal(a.model_comm, b.model_comm)  # comm is converted either way
    assert lit.params["reading"] == "literal"


def test_oasis_workload_uniform_arrivals_and_span():
    wl = om.oasis_workload(np.random.default_rng(0), n_jobs=300, T=50, H=4, K=4, arrivals="uniform",
                           arrival_span=10)  # fmt: skip
    arr = wl.jobs_frame().arrival
    assert arr.between(0, 9).all() and arr.nunique() == 10


def test_small_cluster_redraws_demands_that_fit_nowhere():
    # one p2.xlarge worker server (1 GPU, 4 vCPUs): every worker demand must fit on it
    wl = om.oasis_workload(np.random.default_rng(0), n_jobs=100, H=1, K=1, worker_types=["p2.xlarge"])
    df = wl.jobs_frame()
    assert (df.worker_gpu <= 1).all() and (df.worker_cpu <= 4).all()


def test_default_reading_schedulability(big):
    d = om.min_durations(big)
    assert np.median(d) <= 15  # gamma3's range
    rep = om.unschedulable_fraction(big)
    assert rep["never_schedulable"] == 0.0
    assert 0.0 < rep["cannot_finish"] < 0.2
    lit = om.oasis_workload(np.random.default_rng(7), n_jobs=2000, H=10, K=10, reading="literal")
    rep_lit = om.unschedulable_fraction(lit)
    assert rep_lit["cannot_finish"] > 0.5
    assert rep_lit["never_schedulable"] > 0.0


def test_unschedulable_fraction_by_hand():
    wl = om.oasis_workload(np.random.default_rng(3), n_jobs=40, T=30, H=4, K=4, reading="literal")
    rep = om.unschedulable_fraction(wl)
    late = never = 0
    for s in wl.jobs:
        m = s.model
        q = m.tau + 2 * m.comm
        late += s.arrival + max(1, math.ceil(m.epochs * m.minibatches * q - 1e-9)) > 30
        never += math.ceil(m.minibatches * q - 1e-9) > m.chunks
    assert rep["n_jobs"] == 40
    assert rep["cannot_finish"] == pytest.approx(late / 40)
    assert rep["never_schedulable"] == pytest.approx(never / 40)
    assert max(rep["cannot_finish"], rep["never_schedulable"]) <= rep["either"] <= 1
    assert om.unschedulable_fraction(wl, horizon=10_000)["cannot_finish"] < rep["cannot_finish"]


# ------------------------------------------------------------------------------ testbed workload


@pytest.mark.parametrize("seed", range(5))
def test_testbed_workload_shape(seed):
    wl = om.testbed_workload(np.random.default_rng(seed))
    c = wl.cluster
    assert wl.name == "oasis_testbed" and wl.horizon == 10 and c.slot_seconds == 1200.0
    assert c.n_servers == 9
    df = c.to_frame()
    w, p = df[df.pool == "worker"], df[df.pool == "ps"]
    assert len(w) == 7 and len(p) == 2
    assert w.capacity_gpu.sum() == 4 and (w.capacity_gpu <= 1).all()
    assert (w.capacity_cpu == 32).all() and (w.capacity_mem == 80).all() and (w.capacity_storage == 600).all()
    assert (p.capacity_cpu == 8).all() and (p.capacity_mem == 32).all() and (p.capacity_storage == 1500).all()
    assert (df.capacity_bandwidth == 10).all()
    jobs = wl.jobs_frame()
    assert len(jobs) == 12
    assert jobs.arrival.between(0, 8).all()
    assert set(jobs.name) <= set(om.TESTBED_MODELS)
    assert jobs.worker_gpu.isin([0, 1]).all() and jobs.worker_cpu.between(1, 5).all()
    assert jobs.worker_mem.between(2, 10).all() and jobs.ps_cpu.between(1, 5).all()
    assert jobs.worker_bandwidth.between(1, 3).all() and (jobs.worker_bandwidth <= jobs.ps_bandwidth).all()
    assert jobs.ps_bandwidth.between(1, 3).all()
    assert jobs.model_epochs.between(4, 30).all()
    assert set(zip(jobs.model_chunks, jobs.model_minibatches, strict=True)) <= {(10, 2), (7, 3)}
    for s in wl.jobs:
        m = s.model
        tau_s, e_mb = om.TESTBED_MODELS[s.name]
        assert m.tau * 1200 == pytest.approx(tau_s)
        assert m.comm * 1200 == pytest.approx(e_mb * 8 / (m.worker_bw * 1000))
        minutes = m.epochs * m.minibatches * m.minibatch_time * 1200 / 60  # N_i workers all along
        assert 40 <= minutes <= 120, (s.job_id, minutes)
    assert om.min_durations(wl).max() <= 6  # 2 h = 6 slots of 20 min


def test_testbed_workload_deterministic_and_models_override():
    a = om.testbed_workload(np.random.default_rng(4))
    b = om.testbed_workload(np.random.default_rng(4))
    pd.testing.assert_frame_equal(a.jobs_frame(), b.jobs_frame())
    one = om.testbed_workload(np.random.default_rng(4), models={"Toy": (100.0, 50.0)}, chunk_sizes=[20])
    assert set(one.jobs_frame().name) == {"Toy"}
    with pytest.raises(ValueError, match="no epoch count"):
        om.testbed_workload(np.random.default_rng(0), models={"Tiny": (0.3, 233.0)})


def test_workloads_run_through_registry():
    from dlsched import registry

    wl = registry.make_workload("oasis", seed=0, n_jobs=5, T=20, H=3, K=2)
    assert isinstance(wl, Workload) and all(isinstance(s.model, OasisModel) for s in wl.jobs)
    assert registry.make_workload("oasis_testbed", seed=0).name == "oasis_testbed"


# ----------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("params", "field", "shown"),
    [
        ({"n_jobs": 0}, "n_jobs", "got 0"),
        ({"n_jobs": 2.5}, "n_jobs", "got 2.5"),
        ({"T": 0}, "T", "got 0"),
        ({"H": 0}, "H", "got 0"),
        ({"K": -1}, "K", "got -1"),
        ({"mix": (0.5, 0.5, 0.5)}, "mix", "(0.5, 0.5, 0.5)"),
        ({"mix": (1.2, -0.1, -0.1)}, "mix", "(1.2, -0.1, -0.1)"),
        ({"mix": (0.5, 0.5)}, "mix", "(0.5, 0.5)"),
        ({"gamma1": (0.0, 10.0)}, "gamma1", "(0.0, 10.0)"),
        ({"gamma1": (50.0, 10.0)}, "gamma1", "(50.0, 10.0)"),
        ({"gamma1": (1.0, math.inf)}, "gamma1", "inf"),
        ({"gamma1": 5.0}, "gamma1", "got 5.0"),
        ({"reading": "minutes"}, "reading", "'minutes'"),
        ({"arrivals": "poisson"}, "arrivals", "'poisson'"),
        ({"arrival_span": 200}, "arrival_span", "200"),
        ({"slot_seconds": 0}, "slot_seconds", "got 0"),
        ({"worker_types": ["p9.huge"]}, "worker_types", "'p9.huge'"),
        ({"ps_type": "p2.xlarge"}, "ps_type", "'p2.xlarge'"),
        ({"fixed_workers": (0, 30)}, "fixed_workers", "(0, 30)"),
    ],
)
def test_oasis_workload_rejects_bad_params(params, field, shown):
    kwargs = {"n_jobs": 3, "H": 2, "K": 2, **params}
    with pytest.raises(ValueError, match=field) as err:
        om.oasis_workload(np.random.default_rng(0), **kwargs)
    assert shown in str(err.value)


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"n_jobs": 0}, "n_jobs"),
        ({"T": 0}, "T"),
        ({"arrival_slots": 11}, "arrival_slots"),
        ({"mix": (0.2, 0.2, 0.2)}, "mix"),
        ({"gamma1": (-1.0, 10.0)}, "gamma1"),
        ({"arrivals": "bursty"}, "arrivals"),
        ({"chunk_sizes": [25]}, "chunk_sizes"),
        ({"models": {"X": (0.0, 10.0)}}, "models"),
        ({"nic_gbps": -10.0}, "nic_gbps"),
    ],
)
def test_testbed_workload_rejects_bad_params(params, field):
    with pytest.raises(ValueError, match=field):
        om.testbed_workload(np.random.default_rng(0), **params)


def test_google_arrivals_rejects_bad_params():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="exactly one of n_jobs and rate"):
        om.google_arrivals(rng, 10, 24, rate=1.0)
    with pytest.raises(ValueError, match="exactly one of n_jobs and rate"):
        om.google_arrivals(rng, None, 24)
    with pytest.raises(ValueError, match="n_jobs.*0"):
        om.google_arrivals(rng, 0, 24)
    with pytest.raises(ValueError, match="T .*-3"):
        om.google_arrivals(rng, 5, -3)
    with pytest.raises(ValueError, match="rate.*-1"):
        om.google_arrivals(rng, None, 24, rate=-1.0)
    with pytest.raises(ValueError, match="profile"):
        om.google_arrivals(rng, 5, 24, profile=[1.0] * 23)
    with pytest.raises(ValueError, match="profile"):
        om.google_arrivals(rng, 5, 24, profile=[0.0] * 24)
    with pytest.raises(ValueError, match="slots_per_hour"):
        om.google_arrivals(rng, 5, 24, slots_per_hour=0)


def test_unschedulable_fraction_rejects_bad_input():
    wl = om.oasis_workload(np.random.default_rng(0), n_jobs=3, H=2, K=2)
    no_horizon = Workload(wl.cluster, wl.jobs)
    with pytest.raises(ValueError, match="horizon"):
        om.unschedulable_fraction(no_horizon)
    assert om.unschedulable_fraction(no_horizon, horizon=100)["n_jobs"] == 3
    with pytest.raises(TypeError, match="Workload"):
        om.unschedulable_fraction("oasis")

"""Tests of :mod:`dlsched.arena.mapping`: trace jobs -> the six job models.

Property tests (hypothesis, derandomized) on random job frames check, for every model, that the
mapping keeps the job count, the trace's submit order and the GPU time (through each model's own
``rate``), and that a seed changes only drawn quantities. Real-trace tests (skipped without the
data folder) run mapped samples of a Philly week to completion under FIFO and check the bad-input
errors of the loaders' path.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dlsched import traces
from dlsched.arena import mapping as M
from dlsched.baselines.fifo import FIFO
from dlsched.core.simulator import simulate

# ------------------------------------------------------------------------------------ fixtures


def _frame(n: int = 12, seed: int = 0, pools=("a", "b")) -> pd.DataFrame:
    r = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "job_id": np.arange(n),
            "submit_time": np.sort(r.integers(0, 20_000, n)).astype(float),
            "duration": r.integers(60, 30_000, n).astype(float),
            "num_gpus": r.choice([1, 1, 2, 4, 8, 16], n),
            "cluster": r.choice(list(pools), n),
        }
    )
    return df


@pytest.fixture(scope="module")
def real_root() -> Path:
    try:
        root = traces.data_dir()
    except FileNotFoundError:
        pytest.skip("real traces not found (set DLSCHED_DATA_DIR or provide ../shared/data/traces)")
    if not (root / "philly" / "philly.csv").is_file():
        pytest.skip("philly/philly.csv not found")
    return root


@pytest.fixture(scope="module")
def philly_week(real_root) -> pd.DataFrame:
    return M.trace_jobs("philly", week=7)


def _trace_order(df: pd.DataFrame) -> list[int]:
    return df.sort_values(["submit_time", "job_id"], kind="stable")["job_id"].astype(int).tolist()


# ------------------------------------------------------------------------------------ invariants


def _ids_in_submit_order(df: pd.DataFrame) -> pd.DataFrame:
    """Ids increasing with submit time (gaps of 1-3), rows shuffled: the mapping must sort them."""
    r = np.random.default_rng(len(df))
    df = df.sort_values("submit_time", kind="stable").reset_index(drop=True)
    df["job_id"] = np.cumsum(r.integers(1, 4, len(df)))
    return df.iloc[r.permutation(len(df))].reset_index(drop=True)


frames = st.builds(
    lambda rows: pd.DataFrame(rows, columns=["job_id", "submit_time", "duration", "num_gpus", "cluster"]),
    st.lists(
        st.tuples(
            st.just(0),
            st.integers(0, 50_000).map(float),
            st.floats(1.0, 2.0e5, allow_nan=False),
            st.sampled_from([1, 1, 1, 2, 3, 4, 8, 12, 16]),
            st.sampled_from(["a", "b", "c"]),
        ),
        min_size=1,
        max_size=25,
    ),
).map(_ids_in_submit_order)


@pytest.mark.parametrize("model", M.MODELS)
@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(df=frames, seed=st.integers(0, 2**16))
def test_mapping_keeps_count_order_and_gpu_time(model, df, seed):
    wl = M.map_jobs(df, model, np.random.default_rng(seed))
    # job count and ids
    assert len(wl.jobs) == len(df)
    assert sorted(s.job_id for s in wl.jobs) == sorted(df["job_id"].tolist())
    # arrival order: the workload's order is the trace's submit order, arrivals non-decreasing
    assert [s.job_id for s in wl.jobs] == _trace_order(df)
    arrivals = np.array([s.arrival for s in wl.jobs])
    assert np.all(np.diff(arrivals) >= 0)
    slot = wl.cluster.slot_seconds
    by_id = df.set_index("job_id")
    assert all(s.arrival == math.floor(by_id.loc[s.job_id, "submit_time"] / slot) for s in wl.jobs)
    # GPU time, through each model's own rate at the reference placement
    ref = M.reference_frame(wl).set_index("job_id")
    g, d = by_id["num_gpus"], by_id["duration"]
    assert ref["gpu_seconds"].sum() == pytest.approx(float((g * d).sum()), rel=1e-9)
    if model == "specon":
        g_eq = np.minimum(g, wl.params["gpus_per_node"])
        np.testing.assert_allclose(ref["gpus"], g_eq.loc[ref.index], rtol=1e-9)
        np.testing.assert_allclose(ref["seconds"], (g * d / g_eq).loc[ref.index], rtol=1e-9)
    else:
        assert all(s.requested_workers == by_id.loc[s.job_id, "num_gpus"] for s in wl.jobs)
        np.testing.assert_allclose(ref["seconds"], d.loc[ref.index], rtol=1e-9)


@pytest.mark.parametrize("model", M.MODELS)
def test_same_seed_same_workload_other_seed_only_drawn_quantities(model):
    df = _frame(10, seed=3)
    a = M.map_jobs(df, model, np.random.default_rng(7))
    b = M.map_jobs(df, model, np.random.default_rng(7))
    c = M.map_jobs(df, model, np.random.default_rng(8))
    fa, fb, fc = a.jobs_frame(), b.jobs_frame(), c.jobs_frame()
    pd.testing.assert_frame_equal(fa, fb)
    assert a.cluster == b.cluster == c.cluster
    assert a.horizon == c.horizon
    fixed = ["job_id", "arrival", "submit_time", "requested_workers"]
    pd.testing.assert_frame_equal(fa[fixed], fc[fixed])
    pd.testing.assert_frame_equal(M.reference_frame(a), M.reference_frame(c), rtol=1e-9)
    if model == "rigid":  # nothing is drawn
        pd.testing.assert_frame_equal(fa, fc)
        return
    drawn = [col for col in fa.columns if col.startswith(("model_", "utility_", "ps_"))]
    assert any(not fa[col].equals(fc[col]) for col in drawn)


@pytest.mark.parametrize("model", M.MODELS)
def test_cluster_from_trace_is_the_workload_cluster(model):
    df = _frame(8, seed=1)
    wl = M.map_jobs(
        df, model, np.random.default_rng(0), nodes={"a": 3, "b": 2} if model in M.POOLED_MODELS else None
    )
    cl = M.cluster_from_trace(df, model, nodes={"a": 3, "b": 2} if model in M.POOLED_MODELS else None)
    assert wl.cluster == cl
    assert cl.slot_seconds == M.SLOT_SECONDS[model]


def test_pools_confine_jobs_to_their_machines():
    df = _frame(10, seed=2)
    wl = M.map_jobs(df, "pdors", np.random.default_rng(0), nodes={"a": 2, "b": 1})
    res = wl.cluster.resources
    assert set(res) == {"gpu:a", "cpu:a", "mem:a", "gpu:b", "cpu:b", "mem:b"}
    for s in wl.jobs:
        pool = s.name.split()[0]
        assert set(s.worker_demand) == {f"gpu:{pool}"}
        assert set(s.ps_demand) <= {f"cpu:{pool}", f"mem:{pool}"}
    assert [srv.name for srv in wl.cluster.servers] == ["a/n0", "a/n1", "b/n0"]
    flat = M.map_jobs(df, "pdors", np.random.default_rng(0), pools=False, nodes=3)
    assert flat.cluster.resources == ("gpu", "cpu", "mem") and flat.cluster.n_servers == 3
    aon = M.map_jobs(df, "aonline", np.random.default_rng(0), nodes={"a": 2, "b": 1})
    assert (aon.params["U"], aon.params["V"]) == (2, 2)
    assert {(s.name.split()[0], next(iter(s.worker_demand))) for s in aon.jobs} <= {("a", "w0"), ("b", "w1")}


def test_machine_pools_peak_rule():
    df = pd.DataFrame(
        {
            "job_id": [0, 1, 2, 3],
            "submit_time": [0.0, 10.0, 100.0, 100.0],
            "duration": [100.0, 50.0, 10.0, 10.0],
            "num_gpus": [4, 8, 3, 2],
            "cluster": ["x", "x", "x", "y"],
        }
    )
    t = M.machine_pools(df).set_index("pool")
    # x: jobs 0 and 1 overlap (12 GPUs); job 0 ends at 100 when job 2 starts -> peak 12 -> 2 nodes
    assert t.loc["x", "peak_gpus"] == 12 and t.loc["x", "nodes"] == 2 and t.loc["x", "source"] == "peak"
    assert t.loc["y", "nodes"] == 1
    assert M.machine_pools(df, pools=False)["nodes"].tolist() == [3]


def test_specon_wide_job_becomes_one_node_container():
    df = pd.DataFrame(
        {"job_id": [0], "submit_time": [0.0], "duration": [1000.0], "num_gpus": [16], "cluster": ["a"]}
    )
    wl = M.map_jobs(df, "specon", np.random.default_rng(0))
    (spec,) = wl.jobs
    assert spec.requested_workers == 1 and spec.model.max_workers == 1
    usable = spec.model.cpu_usable * wl.cluster.capacity[0, wl.cluster.resource_index("cpu")]
    assert spec.worker_demand["cpu"] == pytest.approx(usable)
    ref = M.reference_frame(wl).iloc[0]
    assert ref["gpus"] == pytest.approx(8) and ref["seconds"] == pytest.approx(2000.0)


def test_horizon_and_aonline_T():
    df = _frame(10, seed=4)
    wl = M.map_jobs(df, "oasis", np.random.default_rng(0))
    slot = wl.cluster.slot_seconds
    end = max(
        s.arrival + math.ceil(d / slot)
        for s, d in zip(
            wl.jobs, df.set_index("job_id").loc[[s.job_id for s in wl.jobs], "duration"], strict=True
        )
    )
    assert wl.horizon > end
    assert M.map_jobs(df, "oasis", np.random.default_rng(0), horizon=500).horizon == 500
    aon = M.map_jobs(df, "aonline", np.random.default_rng(0))
    T = aon.params["T"]
    assert T & (T - 1) == 0 and max(s.arrival for s in aon.jobs) < T / 1.5


def test_aonline_delays_per_job_and_server_in_paper_range():
    df = _frame(6, seed=5)
    wl = M.map_jobs(df, "aonline", np.random.default_rng(0))
    hours = 3600.0 / wl.cluster.slot_seconds
    for s in wl.jobs:
        d = np.asarray(s.transfer_delay) / hours
        assert len(d) == wl.cluster.n_servers
        assert np.all((d[:-1] >= 1) & (d[:-1] <= 4)) and 10 <= d[-1] <= 40
    cheap = M.map_jobs(df, "aonline", np.random.default_rng(0), delays="cluster")
    assert all(s.transfer_delay is None for s in cheap.jobs)


def test_mapping_table_documents_every_model():
    t = M.mapping_table()
    assert list(t.columns) == ["model", "quantity", "trace_field", "rule", "source"]
    assert set(t["model"]) == set(M.MODELS)
    for model in M.MODELS:
        q = set(t.loc[t["model"] == model, "quantity"])
        assert {"arrival slot", "machine pool", "workers", "total work", "GPU time"} <= q, model
        assert not t.loc[t["model"] == model].duplicated(["quantity"]).any()
    assert set(M.mapping_table("specon")["model"]) == {"specon"}


# ------------------------------------------------------------------------------------ policies


def test_compatible_policies_and_clear_error():
    own = {"rigid": "fifo", "oasis": "oasis", "pdors": "pdors", "aonline": "aonline", "optimus": "optimus",
           "specon": "specon"}  # fmt: skip
    for model, policy in own.items():
        ok = M.compatible_policies(model)
        assert {"fifo", "drf", policy} <= set(ok), (model, ok)
    assert "optimus" not in M.compatible_policies("rigid")
    with pytest.raises(ValueError, match=r"policy 'optimus' cannot run 'rigid' jobs.*OptimusModel"):
        M.check_policy("optimus", "rigid")
    with pytest.raises(ValueError, match="unknown policy 'nope'"):
        M.check_policy("nope", "rigid")
    wl = M.map_jobs(_frame(5), "rigid", np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"policy 'specon' cannot run 'rigid'"):
        M.make_policy("specon", wl)
    assert M.make_policy("fifo", wl).name == "fifo"
    assert M.policy_defaults("preemptive", "aonline") == {"preemptible": True}


def test_make_policy_requires_the_policys_model_parameters():
    wl = M.map_jobs(_frame(5), "aonline", np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"policy 'preemptive' needs model parameter preemptible=True"):
        M.make_policy("preemptive", wl)
    wl2 = M.map_jobs(_frame(5), "aonline", np.random.default_rng(0), preemptible=True)
    assert M.make_policy("preemptive", wl2).name == "preemptive"


# ------------------------------------------------------------------------------------ real traces


@pytest.mark.parametrize("model", M.MODELS)
def test_philly_sample_runs_to_completion_under_fifo(philly_week, model):
    sample = traces.sample_jobs(philly_week, 30, np.random.default_rng(11))
    wl = M.map_jobs(sample, model, np.random.default_rng(0))
    res = simulate(wl, FIFO.from_workload(wl), seed=0)  # OASiS, PD-ORS: within the mapped horizon
    assert not res.stalled
    assert (res.jobs["status"] == "finished").all(), res.jobs["status"].value_counts()
    ref = M.reference_frame(wl)
    assert ref["gpu_seconds"].sum() == pytest.approx(float((sample["num_gpus"] * sample["duration"]).sum()))


@pytest.mark.parametrize(
    ("model", "policy"),
    [("rigid", "drf"), ("oasis", "oasis"), ("pdors", "pdors"), ("aonline", "aonline"), ("optimus", "optimus"),
     ("specon", "specon")],
)  # fmt: skip
def test_philly_sample_runs_under_its_papers_policy(philly_week, model, policy):
    sample = traces.sample_jobs(philly_week, 20, np.random.default_rng(11))
    wl = M.map_jobs(sample, model, np.random.default_rng(0))
    res = simulate(wl, M.make_policy(policy, wl), seed=0)
    assert not res.stalled
    assert res.jobs["status"].isin(["finished", "rejected"]).all()
    assert (res.jobs["status"] == "finished").sum() >= 10


def test_philly_week_by_index_and_date(philly_week, real_root):
    by_date = M.trace_jobs("philly", week="2017-10-23")
    pd.testing.assert_frame_equal(philly_week, by_date, check_like=False)
    extract = traces.load_philly(week=True)  # the data folder's week (its 9 duplicate rows dropped)
    assert len(by_date) == len(extract)
    np.testing.assert_array_equal(by_date["num_gpus"], extract["num_gpus"])
    assert by_date.attrs["window_start"] == "2017-10-23 00:00:00"
    assert by_date["submit_time"].min() >= 0 and by_date["submit_time"].max() < 7 * 86400
    assert philly_week.attrs["trace"] == "philly" and philly_week.attrs["week"] == 7


def test_philly_pools_use_vc_nodes(philly_week, real_root):
    t = M.machine_pools(philly_week).set_index("pool")
    vc = traces.load_philly_vc_nodes().set_index("vc")["num_nodes"]
    for pool, row in t.iterrows():
        assert row["source"] == "philly_vc_nodes" and row["nodes"] == vc[pool]
    full = M.machine_pools(M.trace_jobs("philly"))
    assert set(full.loc[full["source"] == "peak", "pool"]) == {"23dbec", "51b7ef", "795a4c", "925e2b"}


def test_itp_week_and_peak_sizes(real_root):
    if not (real_root / "itp" / "cluster01.csv").is_file():
        pytest.skip("itp traces not found")
    df = M.trace_jobs("itp", week=2, cluster=5)
    assert df.attrs["trace"] == "itp" and df["submit_time"].between(0, 7 * 86400).all()
    t = M.machine_pools(df)
    assert t["pool"].tolist() == ["cluster05"] and t["source"].tolist() == ["peak"]
    assert t["nodes"].iloc[0] == math.ceil(t["peak_gpus"].iloc[0] / 8)
    wl = M.map_jobs(df.head(40), "rigid", np.random.default_rng(0))
    assert len(wl.jobs) == 40


# ------------------------------------------------------------------------------------ bad input


def test_bad_frames_name_source_row_job_and_column():
    df = _frame(6)
    df.attrs["sources"] = ["/data/my_trace.csv"]
    with pytest.raises(ValueError, match=r"my_trace\.csv: missing required column 'num_gpus'"):
        M.map_jobs(df.drop(columns="num_gpus"), "rigid", np.random.default_rng(0))
    bad = df.copy()
    bad.loc[3, "num_gpus"] = -2
    with pytest.raises(ValueError, match=r"my_trace\.csv: column 'num_gpus' has .*-2 at row 3 \(job_id 3\)"):
        M.map_jobs(bad, "rigid", np.random.default_rng(0))
    bad = df.copy()
    bad.loc[4, "job_id"] = 1
    with pytest.raises(ValueError, match=r"column 'job_id' has duplicate value 1 at rows 1 and 4"):
        M.map_jobs(bad, "oasis", np.random.default_rng(0))
    bad = df.copy()
    bad.loc[0, "submit_time"] = 1e6
    with pytest.raises(ValueError, match=r"'job_id' must increase with 'submit_time'.*row 0 \(job_id 0"):
        M.map_jobs(bad, "rigid", np.random.default_rng(0))
    bad = df.copy()
    bad["submit_time"] = bad["submit_time"].astype(object)
    bad.loc[2, "submit_time"] = "2017-13-45 99:00:00"
    with pytest.raises(
        ValueError, match=r"column 'submit_time' has a missing, non-numeric .* at row 2 \(job_id 2\)"
    ):
        M.map_jobs(bad, "rigid", np.random.default_rng(0))
    bad = df.copy()
    bad.loc[0, "duration"] = 0.0
    with pytest.raises(ValueError, match=r"column 'duration' has a duration <= 0: 0.0 at row 0"):
        M.map_jobs(bad, "rigid", np.random.default_rng(0))
    with pytest.raises(ValueError, match="has no rows"):
        M.map_jobs(df.iloc[:0], "rigid", np.random.default_rng(0))
    wide = df.copy()
    wide.loc[5, "num_gpus"] = 40
    with pytest.raises(
        ValueError, match=r"column 'num_gpus' has 40 at row 5 \(job_id 5\): more GPUs than pool"
    ):
        M.map_jobs(wide, "rigid", np.random.default_rng(0), nodes={"a": 1, "b": 1})


def test_bad_arguments():
    df = _frame(4)
    with pytest.raises(ValueError, match="model must be one of"):
        M.map_jobs(df, "gavel", np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['gamma1'\] for model 'pdors'"):
        M.map_jobs(df, "pdors", np.random.default_rng(0), gamma1=(1, 2))
    with pytest.raises(ValueError, match="model 'specon' has no machine pools"):
        M.map_jobs(df, "specon", np.random.default_rng(0), pools=True)
    with pytest.raises(TypeError, match="rng must be a numpy Generator"):
        M.map_jobs(df, "rigid", 0)
    with pytest.raises(ValueError, match="mix must be three probabilities"):
        M.map_jobs(df, "oasis", np.random.default_rng(0), mix=(0.5, 0.5))


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_bad_files_name_file_row_and_column(tmp_path):
    head = "timestamp,duration,num_gpus,gpu_time,cluster\n"
    good = "2017-10-02 10:00:00,60.0,1,60.0,vc1\n"
    _write(tmp_path / "philly" / "philly.csv", head + good + "2017-10-02 25:00:00,60.0,1,60.0,vc1\n")
    with pytest.raises(ValueError, match=r"philly\.csv: column 'timestamp' .* at row 1 \(line 3\)"):
        M.trace_jobs("philly", data_dir=tmp_path, verify=False)
    _write(tmp_path / "philly" / "philly.csv", head + good + "2017-10-02 11:00:00,60.0,-2,60.0,vc1\n")
    with pytest.raises(
        ValueError, match=r"philly\.csv: column 'num_gpus' has value '-2' at row 1 \(line 3\)"
    ):
        M.trace_jobs("philly", data_dir=tmp_path, verify=False)
    assert len(M.trace_jobs("philly", data_dir=tmp_path, verify=False, strict=False)) == 1
    _write(
        tmp_path / "philly" / "philly.csv", head.replace(",gpu_time", "") + "2017-10-02 10:00:00,60.0,1,vc1\n"
    )
    with pytest.raises(ValueError, match=r"philly\.csv: missing required column 'gpu_time'"):
        M.trace_jobs("philly", data_dir=tmp_path, verify=False)
    itp = "job_id,submission_time,duration,num_gpu\nu1,0,60,1\nu2,10,60,2\nu1,20,30,1\n"
    _write(tmp_path / "itp" / "cluster01.csv", itp)
    with pytest.raises(
        ValueError, match=r"cluster01\.csv: column 'job_id' has duplicate value 'u1' at rows 0 and 2"
    ):
        M.trace_jobs("itp", cluster=1, data_dir=tmp_path, verify=False)


def test_week_outside_the_trace(real_root):
    with pytest.raises(
        ValueError,
        match=r"week 99 is outside the trace; the philly trace has submissions from "
        r"2017-09-04 10:30:41 .* weeks 0\.\.15",
    ):
        M.trace_jobs("philly", week=99)
    with pytest.raises(ValueError, match=r"week '2016-01-04' .* is outside the trace"):
        M.trace_jobs("philly", week="2016-01-04")
    with pytest.raises(ValueError, match=r"week -1 is outside the trace"):
        M.trace_jobs("philly", week=-1)
    with pytest.raises(ValueError, match="not a date"):
        M.trace_jobs("philly", week="next monday")
    if (real_root / "itp" / "cluster01.csv").is_file():
        with pytest.raises(ValueError, match=r"week 40 is outside the trace; the itp trace"):
            M.trace_jobs("itp", week=40)
        with pytest.raises(ValueError, match="no calendar dates"):
            M.trace_jobs("itp", week="2021-03-01")
    with pytest.raises(ValueError, match="unknown Philly virtual cluster"):
        M.trace_jobs("philly", cluster="nope")

"""Tests of the ``dlsched`` command line (dlsched.cli): outputs, equality with the Python API,
``python -m dlsched``, ``dlsched list`` and bad input (exit code 2, one line on stderr, no
files)."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from dlsched import cli, registry
from dlsched.core import metrics
from dlsched.core.policy import BasePolicy
from dlsched.core.simulator import simulate

JOBS_COLUMNS = [
    "job_id",
    "name",
    "model",
    "arrival",
    "status",
    "admitted",
    "admitted_at",
    "start_slot",
    "completion_slot",
    "completion_time",
    "jct",
    "jct_seconds",
    "utility",
    "target",
    "completion_minus_target",
    "total_work",
    "work_done",
    "migrations",
]


def _roundtrip(df: pd.DataFrame) -> pd.DataFrame:
    """The frame as it reads back from CSV (same dtypes as reading the CLI's file)."""
    return pd.read_csv(io.StringIO(df.to_csv(index=False)))


def _run(tmp_path, *extra, out="out"):
    argv = [
        "run",
        "--workload",
        "synthetic",
        "--policy",
        "fifo",
        "--param",
        "model=oasis",
        "--param",
        "n_jobs=6",
        "--seed",
        "5",
        "--out",
        str(tmp_path / out),
        *extra,
    ]
    return cli.main(argv)


def test_run_writes_exactly_the_output_files(tmp_path, capsys):
    assert _run(tmp_path, "--param", "backfill=True") == 0
    out = tmp_path / "out"
    assert sorted(p.name for p in out.iterdir()) == sorted(cli.OUTPUT_FILES)
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no temporary folder left
    stdout = capsys.readouterr().out
    assert stdout.startswith("6/6 jobs finished, total utility ")
    assert stdout.count("\n") == 1

    jobs = pd.read_csv(out / "jobs.csv")
    assert list(jobs.columns) == JOBS_COLUMNS
    assert jobs["job_id"].tolist() == list(range(6))
    alloc = pd.read_parquet(out / "allocations.parquet")
    assert list(alloc.columns) == ["job", "server", "role", "count", "first_slot", "last_slot"]
    assert set(alloc["role"]) == {"worker", "ps"}  # OASiS jobs have PS
    servers = pd.read_csv(out / "instance_servers.csv")
    assert list(servers.columns) == [
        "server",
        "name",
        "pool",
        "transfer_delay",
        "capacity_gpu",
        "capacity_cpu",
        "capacity_mem",
    ]
    assert set(servers["pool"]) == {"worker", "ps"}
    inst = pd.read_csv(out / "instance_jobs.csv")
    assert {
        "job_id",
        "arrival",
        "worker_gpu",
        "worker_cpu",
        "worker_mem",
        "ps_cpu",
        "ps_mem",
        "utility_gamma1",
        "model_tau",
    } <= set(inst.columns)


def test_run_tables_equal_the_python_api(tmp_path):
    assert _run(tmp_path, "--param", "backfill=True", "--format", "csv", "--allocations", "slots") == 0
    out = tmp_path / "out"
    wl = registry.make_workload("synthetic", seed=5, model="oasis", n_jobs=6)
    res = simulate(wl, registry.make_policy("fifo", backfill=True), seed=5)
    pd.testing.assert_frame_equal(pd.read_csv(out / "jobs.csv"), _roundtrip(res.jobs))
    pd.testing.assert_frame_equal(pd.read_csv(out / "allocations.csv"), _roundtrip(res.allocations))
    pd.testing.assert_frame_equal(
        pd.read_csv(out / "instance_servers.csv"), _roundtrip(wl.cluster.to_frame())
    )
    pd.testing.assert_frame_equal(
        pd.read_csv(out / "instance_jobs.csv"), _roundtrip(wl.jobs_frame())
    )
    summary = json.loads((out / "summary.json").read_text())
    for k, v in metrics.summary(res).items():
        assert summary[k] == pytest.approx(v), k
    assert summary["workload"] == "synthetic" and summary["policy"] == "fifo"
    assert summary["seed"] == 5 and summary["horizon"] is None
    # unprefixed keys go to the side that declares them
    assert summary["workload_params"] == {"model": "oasis", "n_jobs": 6}
    assert summary["policy_params"] == {"backfill": True}
    assert summary["end_slot"] == res.end_slot and summary["stalled"] is False


def test_run_is_deterministic_and_seed_matters(tmp_path):
    assert _run(tmp_path, out="a") == 0
    assert _run(tmp_path, out="b") == 0
    for name in ("jobs.csv", "allocations.parquet", "instance_jobs.csv", "summary.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    argv = [
        "run",
        "--workload",
        "synthetic",
        "--policy",
        "fifo",
        "--param",
        "model=oasis",
        "--param",
        "n_jobs=6",
        "--seed",
        "6",
        "--out",
        str(tmp_path / "c"),
    ]
    assert cli.main(argv) == 0
    assert (tmp_path / "a" / "instance_jobs.csv").read_bytes() != (
        tmp_path / "c" / "instance_jobs.csv"
    ).read_bytes()


def test_python_m_dlsched_subprocess(tmp_path, repo_root):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "dlsched",
            "run",
            "--workload",
            "synthetic",
            "--policy",
            "drf",
            "--param",
            "model=linear",
            "--param",
            "n_jobs=4",
            "--seed",
            "1",
            "--out",
            "res",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (tmp_path / "res").iterdir()) == sorted(cli.OUTPUT_FILES)
    jobs = pd.read_csv(tmp_path / "res" / "jobs.csv")
    wl = registry.make_workload("synthetic", seed=1, model="linear", n_jobs=4)
    res = simulate(wl, registry.make_policy("drf"), seed=1)
    pd.testing.assert_frame_equal(jobs, _roundtrip(res.jobs))
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "dlsched",
            "run",
            "--workload",
            "synthetic",
            "--policy",
            "nope",
            "--out",
            "bad",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines() == [bad.stderr.strip()]
    assert "unknown policy 'nope'" in bad.stderr
    assert not (tmp_path / "bad").exists()


def test_list_prints_every_name(capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    names = {line.split()[0] for line in out.splitlines() if line.startswith("  ")}
    assert names == set(registry.policy_names()) | set(registry.workload_names())
    assert out.index("policies:") < out.index("workloads:")


# --------------------------------------------------------------------------------- bad input


BASE = ["run", "--workload", "synthetic", "--policy", "fifo"]


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (
            ["run", "--workload", "synthetic", "--policy", "lifo"],
            "unknown policy 'lifo'; known: " + ", ".join(registry.policy_names()),
        ),
        (["run", "--workload", "alibaba", "--policy", "fifo"], "unknown workload 'alibaba'"),
        (BASE + ["--param", "speed=3"], "unknown parameter 'speed'"),
        (BASE + ["--param", "n_jobs3"], "parameter 'n_jobs3' is not of the form key=value"),
        (BASE + ["--param", "n_jobs=0"], "synthetic: n_jobs must be an integer >= 1, got 0"),
        (BASE + ["--param", "model=gpt"], "model must be one of"),
        (
            BASE + ["--param", "n_workers=-2"],
            "fifo.n_workers must be a positive integer or None, got -2",
        ),
        (BASE + ["--seed", "-1"], "--seed must be >= 0, got -1"),
        (BASE + ["--seed=-3"], "--seed must be >= 0, got -3"),
        (BASE + ["--seed", "one"], "invalid int value: 'one'"),
        (BASE + ["--horizon", "0"], "horizon must be >= 1"),
        (BASE + ["--horizon", "twice"], "--horizon must be an integer >= 1 or one of"),
        (
            ["run", "--workload", "synthetic", "--policy", "fifo"],
            "the following arguments are required: --out",
        ),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
    ],
)
def test_bad_input_exit_code_2_one_line_no_files(tmp_path, capsys, argv, needle):
    target = tmp_path / "deep" / "out"
    if "--out" not in argv and argv[0] == "run" and "required" not in needle:
        argv = argv + ["--out", str(target)]
    assert cli.main(argv) == 2
    cap = capsys.readouterr()
    err = cap.err.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith("dlsched: error: ")
    assert needle in err
    assert cap.out == ""
    assert list(tmp_path.iterdir()) == []  # neither the output folder nor its parent


class AmbiguousPolicy(BasePolicy):
    """A test-only policy whose parameter ``n_jobs`` clashes with the synthetic workload's."""

    name = "ambiguous_test"

    def __init__(self, n_jobs: int = 1):
        self.n_jobs = n_jobs


@pytest.fixture
def ambiguous_policy(monkeypatch):
    monkeypatch.setitem(registry.POLICIES, "ambiguous_test", f"{__name__}:AmbiguousPolicy")
    return "ambiguous_test"


def test_ambiguous_parameter(tmp_path, capsys, ambiguous_policy):
    argv = [
        "run",
        "--workload",
        "synthetic",
        "--policy",
        ambiguous_policy,
        "--param",
        "n_jobs=3",
        "--out",
        str(tmp_path / "out"),
    ]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "dlsched: error: parameter 'n_jobs' is ambiguous: prefix it with workload. or policy."
    )
    assert list(tmp_path.iterdir()) == []


def test_prefixed_parameters_resolve_ambiguity(tmp_path, capsys, ambiguous_policy):
    argv = [
        "run",
        "--workload",
        "synthetic",
        "--policy",
        "fifo",
        "--param",
        "workload.n_jobs=3",
        "--param",
        "policy.n_workers=1",
        "--out",
        str(tmp_path / "out"),
    ]
    assert cli.main(argv) == 0, capsys.readouterr().err
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["workload_params"] == {"n_jobs": 3}
    assert summary["policy_params"] == {"n_workers": 1}
    assert summary["jobs"] == 3


def test_summary_nan_becomes_null(tmp_path):
    # a horizon too short for any job to finish: mean_jct and makespan are NaN -> JSON null
    argv = [
        "run",
        "--workload",
        "synthetic",
        "--policy",
        "fifo",
        "--param",
        "model=linear",
        "--param",
        "n_jobs=3",
        "--param",
        "arrival_span=1",
        "--horizon",
        "1",
        "--out",
        str(tmp_path / "o"),
    ]
    assert cli.main(argv) == 0
    text = (tmp_path / "o" / "summary.json").read_text()
    summary = json.loads(text)
    assert "NaN" not in text
    # linear synthetic jobs need 1..6 slots of their gang (> 1 slot): none finishes in slot 0
    assert summary["finished"] == 0
    assert summary["mean_jct"] is None and summary["makespan"] is None
    assert summary["total_utility"] == 0.0


def test_policy_workload_defaults_apply_under_the_users_parameters(tmp_path, capsys):
    """Preemptive declares ``workload_defaults = {"preemptible": True}``: the A_online workload is
    built with pausable jobs unless the user says otherwise (then the policy refuses, exit 2)."""
    assert registry.workload_defaults("preemptive", "aonline") == {"preemptible": True}
    assert registry.workload_defaults("preemptive", "synthetic") == {}  # not a parameter there
    assert registry.workload_defaults("aonline", "aonline") == {}
    base = ["run", "--workload", "aonline", "--policy", "preemptive", "--param", "n_edge=8",
            "--param", "n_jobs=5", "--param", "T=64", "--seed", "0"]
    assert cli.main([*base, "--out", str(tmp_path / "ok")]) == 0
    jobs = pd.read_csv(tmp_path / "ok" / "jobs.csv")
    assert (jobs["status"] == "finished").all()
    capsys.readouterr()
    assert cli.main([*base, "--param", "preemptible=False", "--out", str(tmp_path / "no")]) == 2
    err = capsys.readouterr().err
    assert "not preemptible" in err and err.count("\n") == 1
    assert not (tmp_path / "no").exists()


def test_interval_allocations_expand_to_the_per_slot_table(tmp_path):
    """The interval file (Parquet default, CSV option) holds exactly the per-slot allocations."""
    assert _run(tmp_path, "--param", "backfill=True", "--quiet", out="pq") == 0
    assert _run(tmp_path, "--param", "backfill=True", "--format", "csv", out="csv") == 0
    assert sorted(p.name for p in (tmp_path / "csv").iterdir()) == sorted(cli.output_files("csv"))
    iv = pd.read_parquet(tmp_path / "pq" / "allocations.parquet")
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "csv" / "allocations.csv"), _roundtrip(iv))
    wl = registry.make_workload("synthetic", seed=5, model="oasis", n_jobs=6)
    res = simulate(wl, registry.make_policy("fifo", backfill=True), seed=5)
    assert (iv["last_slot"] >= iv["first_slot"]).all()
    reps = (iv["last_slot"] - iv["first_slot"] + 1).to_numpy()
    rows = iv.loc[iv.index.repeat(reps)].reset_index(drop=True)
    offset = np.arange(len(rows)) - np.repeat(np.cumsum(reps) - reps, reps)  # 0, 1, .. per interval
    rows["slot"] = rows["first_slot"].to_numpy() + offset
    got = rows[["job", "slot", "server", "role", "count"]].sort_values(
        ["slot", "job", "role", "server"], kind="stable").reset_index(drop=True)
    pd.testing.assert_frame_equal(got, res.allocations, check_dtype=False)
    assert len(iv) < len(res.allocations)  # fewer rows than slots
    summary = json.loads((tmp_path / "pq" / "summary.json").read_text())
    assert summary["allocations"] == {"file": "allocations.parquet", "layout": "intervals"}


def test_run_rejects_unknown_format(tmp_path, capsys):
    assert _run(tmp_path, "--format", "xlsx") == 2
    assert "--format" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "fmt, layout", [("parquet", "intervals"), ("csv", "intervals"), ("parquet", "slots")]
)
def test_check_rereads_the_allocation_file_with_the_checker(tmp_path, capsys, fmt, layout):
    assert _run(tmp_path, "--check", "--format", fmt, "--allocations", layout, "--quiet") == 0
    assert "placements re-checked from the file" in capsys.readouterr().out
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["checked"] > 0


def test_check_of_a_broken_file_exits_1_and_writes_nothing(tmp_path, capsys, monkeypatch):
    from dlsched.core.simulator import SimulationResult

    real = SimulationResult.intervals.func

    def inflated(self):  # eight times every task: over capacity somewhere
        iv = real(self)
        return iv.assign(count=iv["count"] * 8)

    monkeypatch.setattr(SimulationResult, "intervals", property(inflated))
    assert _run(tmp_path, "--check", "--quiet") == 1
    err = capsys.readouterr().err
    assert err.startswith("dlsched: schedule violation: [") and err.count("\n") == 1
    assert not (tmp_path / "out").exists()
    assert _run(tmp_path, "--quiet") == 0  # without --check the file is written as it is


def test_named_horizon_twice_the_last_arrival(tmp_path):
    base = ["run", "--workload", "synthetic", "--policy", "fifo", "--param", "n_jobs=6",
            "--param", "arrival_span=4", "--quiet"]  # fmt: skip
    assert cli.main(base + ["--horizon", "twice-last-arrival", "--out", str(tmp_path / "a")]) == 0
    named = json.loads((tmp_path / "a" / "summary.json").read_text())
    wl = registry.make_workload("synthetic", seed=0, n_jobs=6, arrival_span=4)
    h = 2 * (max(s.arrival for s in wl.jobs) + 1)
    assert named["horizon"] == h
    assert cli.main(base + ["--horizon", str(h), "--out", str(tmp_path / "b")]) == 0
    plain = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert named == plain | {"horizon": h}

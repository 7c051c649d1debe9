"""The SpeCon real-process testbed (:mod:`dlsched.specon.testbed`, :mod:`dlsched.specon.testbed_job`).

Runs real job processes: a smoke comparison (DS and SpeCon, ~10 s), checkpoint/restore
exactness, fault handling (a killed job, a failing hook, a timeout) with no process left behind,
bad input rejected before anything is written, and the prediction path on synthetic logs.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

if not hasattr(os, "sched_setaffinity"):  # pragma: no cover - Linux has it
    pytest.skip(
        "the SpeCon testbed pins processes with os.sched_setaffinity (Linux only)", allow_module_level=True
    )

from dlsched.specon import testbed as tb  # noqa: E402
from dlsched.specon import testbed_job as tj  # noqa: E402
from dlsched.specon.model import SpeconJob  # noqa: E402

try:
    import psutil
except ImportError:  # pragma: no cover - psutil is in the dev environment
    psutil = None


def _alive(pids) -> list[int]:
    """Those of ``pids`` that are still a running testbed job process."""
    out = []
    for pid in pids:
        if psutil is not None:
            try:
                p = psutil.Process(pid)
                ours = "dlsched.specon.testbed_job" in " ".join(p.cmdline())
                if ours and p.status() != psutil.STATUS_ZOMBIE:
                    out.append(pid)
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                pass
        else:  # pragma: no cover
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if b"dlsched.specon.testbed_job" in cmd:
                out.append(pid)
    return out


def _children() -> set[int]:
    if psutil is None:  # pragma: no cover
        return set()
    return {p.pid for p in psutil.Process().children(recursive=True)}


def _long_jobs(repeat: int = 400) -> tuple[tb.TestbedJob, ...]:
    """Jobs with a fixed ``repeat`` (no calibration) that run for many seconds."""
    return (
        tb.TestbedJob("K1", "digits", 0, 0.0002, 200, momentum=0.5, batch=32, repeat=repeat, seed=1),
        tb.TestbedJob("K2", "wine", 0, 0.01, 200, batch=16, repeat=repeat, seed=2),
    )


# ------------------------------------------------------------------------------------ smoke


@pytest.fixture(scope="module")
def smoke():
    before = _children()
    r = tb.smoke(0)
    return r, before


def test_smoke_every_job_completes(smoke):
    r, _ = smoke
    names = [j.name for j in r.jobs]
    for run in (r.ds, r.specon):
        assert list(run.jobs["job"]) == names
        assert np.all(np.isfinite(run.jobs["completion"])) and np.all(run.jobs["completion"] > 0)
        assert np.all(run.jobs["finish"] > run.jobs["launch"])
        assert set(run.losses["job"]) == set(names)
        for j in r.jobs:
            assert sorted(run.losses.loc[run.losses["job"] == j.name, "epoch"]) == list(range(j.epochs + 1))
    assert r.losses_identical
    assert all(j.repeat is not None and j.repeat >= 1 for j in r.jobs)
    cal = r.calibration
    assert list(cal["job"]) == names
    assert np.all(cal[["startup_s", "epoch_s", "solo_s"]].to_numpy() > 0)


def test_smoke_tables_well_formed(smoke):
    r, _ = smoke
    cols = [
        "job", "launch", "ds_node", "ds_measured", "ds_predicted", "specon_nodes", "specon_moved",
        "specon_measured", "specon_predicted", "specon_moved_predicted", "specon_nodes_predicted", "pause_s",
    ]  # fmt: skip
    assert list(r.table.columns) == cols
    assert len(r.table) == len(r.jobs)
    for c in ("ds_measured", "ds_predicted", "specon_measured", "specon_predicted"):
        assert np.all(np.isfinite(r.table[c].to_numpy(float))) and np.all(r.table[c] > 0), c
    # round-robin initial placement in launch order (l. 322, 400), the same for both policies
    assert list(r.table["ds_node"]) == [k % 2 for k in range(len(r.jobs))]
    assert list(r.specon.jobs["node"]) == list(r.ds.jobs["node"])
    assert set(r.summary.index) == {(p, s) for p in ("ds", "specon") for s in ("measured", "predicted")}
    assert list(r.summary.columns) == ["mean_completion", "makespan", "moves"]
    for k in ("n", "mean_s", "sd_s", "max_s", "save_mean_s", "restore_mean_s", "paper_bound_s", "paper_sd_s"):
        assert k in r.pauses.index
    assert r.pauses["paper_bound_s"] == 5.0 and r.pauses["paper_sd_s"] == 1.43
    assert r.workdir is None  # temporary folder removed
    assert set(r.specon.events["event"]) >= {"launch", "tick", "exit"}


def test_smoke_ds_never_moves_and_specon_moves_at_most_once(smoke):
    r, _ = smoke
    assert not r.ds.jobs["moved"].any()
    assert r.ds.migrations.empty
    assert not set(r.ds.events["event"]) & {"tick", "request", "stay", "signal", "restart"}
    assert all("->" not in n for n in r.ds.jobs["nodes"])
    ev = r.specon.events
    for job in r.specon.jobs["job"]:
        e = ev[ev["job"] == job]
        assert (e["event"] == "restart").sum() <= 1
        assert (e["event"].isin(["request", "stay"])).sum() <= 1  # Alg. 2 answers once, then no tick
        if (e["event"].isin(["request", "stay"])).any():
            t = e.loc[e["event"].isin(["request", "stay"]), "time"].iloc[0]
            assert not ((e["event"] == "tick") & (e["time"] > t)).any()
    nodes = r.specon.jobs["nodes"].str.split("->")
    assert all(len(n) <= 2 for n in nodes)
    moved = r.specon.jobs[r.specon.jobs["moved"]]
    assert len(r.specon.migrations) == len(moved) == r.specon.moves
    m = r.specon.migrations
    if len(m):
        assert np.all(m["pause_s"] > 0) and np.all(m["save_s"] >= 0) and np.all(m["restore_s"] > 0)
        assert np.allclose(m["pause_s"], m["save_s"] + m["restore_s"])
        assert np.all(m["request"] <= m["checkpoint_start"]) and np.all(m["checkpoint_end"] <= m["resumed"])
        assert np.all(m["from"] != m["to"])


def test_smoke_leaves_no_process(smoke):
    r, before = smoke
    assert r.ds.pids and r.specon.pids
    assert _alive(r.ds.pids + r.specon.pids) == []
    assert _children() <= before


# ------------------------------------------------------------------------ checkpoint/restore


def _small_cfg(**kw) -> tj.TrainConfig:
    base = {"dataset": "wine", "hidden": 8, "lr": 0.01, "momentum": 0.9, "batch": 16, "epochs": 6}
    base.update(passes=2, seed=3)
    return tj.TrainConfig(**{**base, **kw})


def test_checkpoint_restore_in_process_is_exact(tmp_path):
    cfg = _small_cfg()
    X, y = tj.load_dataset(cfg.dataset)
    ref = tj.train_losses(cfg, X, y)
    assert len(ref) == cfg.epochs + 1
    st = tj.init_state(cfg, X.shape[1], int(y.max()) + 1)
    got = [tj.mean_loss(st.params, X, y)]
    # stop in the middle of a pass of the middle epoch
    while not (st.passes_done == 5 and st.pos > 0):
        tj.train_step(st, X, y, cfg)
        if st.at_epoch_end(cfg):
            got.append(tj.mean_loss(st.params, X, y))
    path = tmp_path / "c.npz"
    tj.save_checkpoint(path, st, cfg)
    with np.load(path, allow_pickle=False) as z:  # a plain .npz, no object arrays
        assert all(z[k].dtype != object for k in z.files)
        assert int(z["passes_done"]) == 5 and int(z["pos"]) == st.pos
    del st
    st2 = tj.load_checkpoint(path, cfg)
    got += tj.train_losses(cfg, X, y, st2)
    assert got == ref  # bit for bit
    with pytest.raises(ValueError, match="another configuration"):
        tj.load_checkpoint(path, _small_cfg(lr=0.02))
    assert [p.name for p in tmp_path.iterdir()] == ["c.npz"]  # the temporary file is gone


def test_checkpoint_restore_across_processes_is_exact(tmp_path):
    cfg = _small_cfg(dataset="digits", hidden=16, epochs=10, passes=1, repeat=40)
    X, y = tj.load_dataset(cfg.dataset)
    ref = tj.train_losses(cfg, X, y)
    tj.save_dataset(tmp_path / "d.npz", X, y)
    (tmp_path / "spec.json").write_text(cfg.to_json())
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    cmd = [sys.executable, "-m", "dlsched.specon.testbed_job", "--spec", str(tmp_path / "spec.json"),
           "--data", str(tmp_path / "d.npz"), "--log", str(tmp_path / "job.log"),
           "--ckpt", str(tmp_path / "c.npz"), "--cpus", str(min(os.sched_getaffinity(0)))]  # fmt: skip
    p = subprocess.Popen(cmd, env=env)
    try:
        deadline = time.monotonic() + 30
        while len(tb.read_log(tmp_path / "job.log")["epochs"]) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        p.send_signal(signal.SIGUSR1)
        assert p.wait(timeout=30) == tj.EXIT_CHECKPOINTED
        with np.load(tmp_path / "c.npz", allow_pickle=False) as z:
            assert json.loads(str(z["config"])) == json.loads(cfg.to_json())
        assert subprocess.run([*cmd, "--resume"], env=env, timeout=60).returncode == 0
    finally:
        if p.poll() is None:  # pragma: no cover
            p.kill()
            p.wait()
    log = tb.read_log(tmp_path / "job.log")
    assert [e for e, _, _ in log["epochs"]] == list(range(cfg.epochs + 1))
    assert [loss for _, loss, _ in log["epochs"]] == ref
    kinds = [e["kind"] for e in log["events"]]
    assert kinds == ["start", "checkpoint", "resumed", "done"]


def test_read_log_ignores_partial_last_line(tmp_path):
    p = tmp_path / "x.log"
    p.write_text("# start pid=1 t=1.5\n0 2.0 1.6\n1 1.0 1.7\n2 0.5")
    log = tb.read_log(p)
    assert log["epochs"] == [(0, 2.0, 1.6), (1, 1.0, 1.7)]
    assert log["events"] == [{"kind": "start", "pid": 1.0, "t": 1.5}]
    assert tb.read_log(tmp_path / "missing.log") == {"epochs": [], "events": []}


# ------------------------------------------------------------------------------------ faults


def test_killed_job_raises_and_leaves_no_process(tmp_path):
    seen: dict[str, int] = {}

    def kill_k2(info):
        seen.update(info["pids"])
        if info["time"] > 0.4 and "K2" in info["pids"] and not seen.get("killed"):
            os.kill(info["pids"]["K2"], signal.SIGKILL)
            seen["killed"] = 1

    before = _children()
    with pytest.raises(tb.TestbedJobError, match="'K2'") as exc:
        tb.run_policy(
            _long_jobs(), "specon", launch_interval=0.1, interval=0.5, workdir=tmp_path, timeout=60,
            on_poll=kill_k2,
        )  # fmt: skip
    err = exc.value
    assert err.job == "K2" and err.returncode == -signal.SIGKILL and "SIGKILL" in str(err)
    assert seen["K1"] in err.pids and seen["K2"] in err.pids
    assert _alive(err.pids) == []
    assert _children() <= before


def test_failing_hook_and_timeout_stop_every_process(tmp_path):
    seen: set[int] = set()

    def boom(info):
        seen.update(info["pids"].values())
        if info["time"] > 0.3:
            raise KeyboardInterrupt  # e.g. Ctrl-C in a notebook

    with pytest.raises(KeyboardInterrupt):
        tb.run_policy(
            _long_jobs(), "ds", launch_interval=0.0, workdir=tmp_path / "a", timeout=60, on_poll=boom
        )
    assert len(seen) == 2 and _alive(seen) == []
    with pytest.raises(tb.TestbedTimeout, match="timeout=0.5") as exc:
        tb.run_policy(_long_jobs(), "ds", launch_interval=0.0, workdir=tmp_path / "b", timeout=0.5)
    assert len(exc.value.pids) == 2 and _alive(exc.value.pids) == []


# --------------------------------------------------------------------------------- bad input


_GOOD_JOB = {"name": "ok", "dataset": "iris", "hidden": 0, "lr": 0.05, "epochs": 3, "repeat": 1}


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"nodes": len(os.sched_getaffinity(0)) + 1}, r"nodes=\d+ exceeds this machine's \d+ CPUs"),
        ({"nodes": 0}, r"nodes must be an integer >= 1, got 0"),
        ({"nodes": 1, "cpus_per_node": 99}, r"cpus_per_node=99"),
        ({"alpha": -0.1}, r"alpha must be >= 0, got -0.1"),
        ({"alpha": 1.5}, r"alpha must be <= 1, got 1.5"),
        ({"alpha": float("nan")}, r"alpha must be a finite number"),
        ({"interval": 0}, r"interval must be > 0, got 0"),
        ({"interval": -3.0}, r"interval must be > 0, got -3.0"),
        ({"w_pc": 0}, r"w_pc must be > 0, got 0"),
        ({"w_wc": -1.5}, r"w_wc must be > 0, got -1.5"),
        ({"w_cc": 0.0}, r"w_cc must be > 0, got 0.0"),
        ({"timeout": 0}, r"timeout must be > 0, got 0"),
        ({"jobs": []}, r"jobs must be a non-empty sequence"),
        ({"jobs": [{**_GOOD_JOB, "epochs": 0}]}, r"job 'ok': epochs must be an integer >= 1, got 0"),
        ({"jobs": [{**_GOOD_JOB, "dataset": "mnist"}]}, r"job 'ok': dataset must be one of .*got 'mnist'"),
        ({"jobs": [_GOOD_JOB, _GOOD_JOB]}, r"duplicate job names \['ok'\]"),
        ({"jobs": [{**_GOOD_JOB, "lr": 0}]}, r"job 'ok': lr must be a finite number > 0, got 0"),
        ({"jobs": [{**_GOOD_JOB, "bogus": 1}]}, r"job 'ok': unknown field\(s\) \['bogus'\]"),
        ({"launches": [0.0, 1.0]}, r"launches must give one time per job \(1\)"),
        ({"launch_interval": -1.0}, r"launch_interval must be >= 0, got -1.0"),
    ],
)
def test_bad_input_rejected_before_anything_runs(tmp_path, kw, match):
    wd = tmp_path / "wd"
    args = {"jobs": [_GOOD_JOB], "workdir": wd, **kw}
    before = _children()
    for fn in (tb.compare, tb.run_policy):
        with pytest.raises(ValueError, match=match):
            fn(**args)
        assert not wd.exists()
    assert _children() <= before


def test_bad_input_other_entry_points(tmp_path):
    wd = tmp_path / "wd"
    with pytest.raises(ValueError, match="policy must be one of"):
        tb.run_policy([_GOOD_JOB], "fifo", workdir=wd)
    with pytest.raises(ValueError, match="repeat is None; resolve it with calibrate"):
        tb.run_policy([{**_GOOD_JOB, "repeat": None}], workdir=wd)
    with pytest.raises(ValueError, match="epochs must be an integer >= 1, got 0"):
        tb.calibrate([_GOOD_JOB], epochs=0, workdir=wd)
    with pytest.raises(ValueError, match=r"nodes=\d+ exceeds"):
        tb.calibrate([_GOOD_JOB], nodes=99, workdir=wd)
    with pytest.raises(ValueError, match="job 'x': dataset must be one of"):
        tb.TestbedJob("x", "cifar10", 0, 0.1, 3)
    with pytest.raises(ValueError, match="job 'x': epochs must be an integer >= 1, got 0"):
        tb.TestbedJob("x", "iris", 0, 0.1, 0)
    with pytest.raises(ValueError, match="job name must match"):
        tb.TestbedJob("../x", "iris", 0, 0.1, 3)
    with pytest.raises(ValueError, match="job 'x': solo_seconds must be > 0"):
        tb.TestbedJob("x", "iris", 0, 0.1, 3, solo_seconds=0)
    assert not wd.exists()


# -------------------------------------------------------------------------------- prediction


def test_prediction_from_synthetic_logs():
    losses = {
        "fast": [2.0, 0.5, 0.3, 0.29, 0.285, 0.284, 0.2835, 0.2833, 0.2832, 0.2831, 0.2830],
        "slow1": list(np.linspace(2.0, 1.0, 11)),
        "slow2": list(np.linspace(1.5, 0.5, 11)),
    }
    solo = {"fast": 10.0, "slow1": 10.0, "slow2": 10.0}
    launch = {"fast": 0.0, "slow1": 0.5, "slow2": 1.0}
    wl = tb.build_workload(losses, solo, launch, nodes=2, cpus_per_node=1, migration_pause=0.4)
    assert [s.name for s in wl.jobs] == ["fast", "slow1", "slow2"]
    for s in wl.jobs:
        m = s.model
        assert isinstance(m, SpeconJob) and m.work == 10 and m.cpu_usable == 1.0 and m.migration_pause == 0.4
        seq = losses[s.name]
        assert m.first_value == seq[0]  # E_first = epoch 0 (spec A3)
        assert [m.evaluation(k + 0.5) for k in range(11)] == seq[:1] + seq[1:11]
        assert s.worker_demand["cpu"] == 1.0 and s.requested_workers == 1
    table, res = tb.predict(wl, alpha=0.05, interval=1.0)
    assert list(table.columns) == [
        "job", "ds_predicted", "specon_predicted", "specon_moved_predicted", "specon_nodes_predicted"
    ]  # fmt: skip
    assert np.all(np.isfinite(table[["ds_predicted", "specon_predicted"]].to_numpy()))
    assert np.all(table["ds_predicted"] >= 10.0 - 1e-9)
    # DS: fast and slow2 share node 0, slow1 is alone on node 1
    assert table.set_index("job").loc["slow1", "ds_predicted"] == pytest.approx(10.0)
    assert set(res) == {"ds", "specon", "specon_events"}
    assert (res["ds"].jobs["migrations"] == 0).all()
    # once converged, "fast" (CC on node 0 with slow2: score 3) goes to node 1 (slow1: score 2)
    assert table.set_index("job").loc["fast", "specon_nodes_predicted"] == "0->1"
    with pytest.raises(ValueError, match="solo_seconds must map the same jobs"):
        tb.build_workload(losses, {"fast": 1.0}, launch)
    with pytest.raises(ValueError, match="needs epochs 0 and at least 1"):
        tb.build_workload({"a": [1.0]}, {"a": 1.0}, {"a": 0.0})


# ------------------------------------------------------------------------------------- misc


def test_default_jobs_deterministic_and_mixed():
    a, b, c = tb.default_jobs(8, 0), tb.default_jobs(8, 0), tb.default_jobs(8, 1)
    assert a == b and a != c
    assert len({j.name for j in a}) == 8 and all(j.repeat is None for j in a)
    assert all(20.0 <= j.solo_seconds <= 40.0 for j in a)
    assert tb.default_jobs(8, np.random.default_rng(5)) == tb.default_jobs(8, np.random.default_rng(5))
    assert len(tb.default_jobs(11, 0)) == 11
    cpus = tb.node_cpus(2)
    assert len(cpus) == 2 and not set(cpus[0]) & set(cpus[1])

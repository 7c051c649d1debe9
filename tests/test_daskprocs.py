"""Tests of dlsched.daskprocs: sweeps on a real ``dask scheduler`` + ``dask worker`` processes.

A sweep on a two-worker ProcessCluster equals the serial one; a worker killed with SIGKILL in the
middle of a sweep loses its task, which Dask reruns on the other worker, and the table and the
cache are still exactly those of a serial run; closing leaves no process behind (also after an
exception, and when the owning process itself is killed); bad input raises clear errors.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import _sweep_fns as fns
import pytest
from pandas.testing import assert_frame_equal

from dlsched.daskprocs import ProcessCluster, cluster_for
from dlsched.experiments import cache_key, param_grid, sweep

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGKILL and /proc are POSIX/Linux")


@pytest.fixture
def make_cluster() -> Iterator[Callable[..., ProcessCluster]]:
    """Factory of ProcessClusters that are all closed at teardown, whatever the test did."""
    clusters: list[ProcessCluster] = []

    def make(*args: object, **kwargs: object) -> ProcessCluster:
        cluster = ProcessCluster(*args, **kwargs)  # type: ignore[arg-type]
        clusters.append(cluster)
        return cluster

    yield make
    for cluster in clusters:
        cluster.close()


def _calls(log: Path) -> list[dict]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def _n_workers(address: str) -> int:
    from distributed import Client

    with Client(address, set_as_default=False, timeout=30) as client:
        return len(client.scheduler_info(n_workers=-1)["workers"])


def _gone(pid: int) -> bool:
    """Whether ``pid`` no longer runs (absent, or a zombie waiting to be reaped)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return True
    return state in ("Z", "X")


# --------------------------------------------------------------------------- sweeps


def test_sweep_on_two_worker_processes_equals_serial(
    tmp_path: Path, make_cluster: Callable[..., ProcessCluster]
) -> None:
    log = tmp_path / "calls.log"
    grid = param_grid({"sleep": 0.2, "n": 4}, i=range(6))
    for p in grid:
        p["seed"] = 10 + p["i"]
    cluster = make_cluster(2, env={fns.CALLS_LOG_ENV: str(log)})
    assert cluster.address.startswith("tcp://127.0.0.1:")
    assert len(cluster.workers) == 2 and all(p.poll() is None for p in cluster.workers)
    assert _n_workers(cluster.address) == 2

    remote = sweep(fns.slow, grid, scheduler=cluster.address, cache_dir=tmp_path / "cache")
    serial = sweep(fns.slow, grid, scheduler="serial")
    assert_frame_equal(remote, serial)
    # Both worker processes did some of the work, and nothing ran in the test process.
    pids = {c["pid"] for c in _calls(log)}
    assert pids == {p.pid for p in cluster.workers}
    # A second sweep is read from the cache: no new calls.
    n_calls = len(_calls(log))
    again = sweep(fns.slow, grid, scheduler=cluster.address, cache_dir=tmp_path / "cache")
    assert_frame_equal(again, serial)
    assert len(_calls(log)) == n_calls
    assert (cluster.log_dir / "scheduler.log").read_text().count("Register worker") == 2


def test_sweep_survives_a_killed_worker(tmp_path: Path, make_cluster: Callable[..., ProcessCluster]) -> None:
    log = tmp_path / "calls.log"
    cache_dir = tmp_path / "cache"
    grid = param_grid({"sleep": 0.5, "n": 3}, i=range(10))
    for p in grid:
        p["seed"] = 100 + p["i"]
    grid.append(dict(grid[3]))  # a repeated point: computed once, cached once, listed twice
    keys = [cache_key(fns.slow, p) for p in grid]
    cluster = make_cluster(2, env={fns.CALLS_LOG_ENV: str(log)})
    victim = cluster.workers[0].pid
    killed: dict[str, object] = {}
    stop = threading.Event()

    def kill_midway() -> None:
        """Once >= 2 points are cached, kill worker 0 a quarter into a call it just started."""
        deadline = time.monotonic() + 60
        while not stop.is_set() and time.monotonic() < deadline:
            cached = {p.name.removesuffix(".parquet") for p in cache_dir.glob("*.parquet")}
            mine = [c for c in _calls(log) if c["pid"] == victim]
            if len(cached) >= 2 and mine and time.time() - mine[-1]["t"] < 0.1:
                time.sleep(0.125)  # well inside its 0.5-s call
                killed["point"] = mine[-1]["i"]
                killed["cached"] = len(cached)
                killed["returncode"] = cluster.kill_worker(0)
                return
            time.sleep(0.01)

    killer = threading.Thread(target=kill_midway, daemon=True)
    killer.start()
    try:
        remote = sweep(fns.slow, grid, scheduler=cluster.address, cache_dir=cache_dir)
    finally:
        stop.set()
        killer.join(timeout=30)

    # The worker was killed midway, and is gone for good (no nanny restarts it).
    assert killed.get("returncode") == -signal.SIGKILL, killed
    assert 2 <= killed["cached"] < len(set(keys))  # type: ignore[operator]
    assert cluster.workers[0].poll() == -signal.SIGKILL and _gone(victim)
    assert cluster.workers[1].poll() is None
    assert _n_workers(cluster.address) == 1

    # The point it was running was rerun on the surviving worker.
    calls = _calls(log)
    lost = killed["point"]
    assert [c["pid"] for c in calls if c["i"] == lost] == [victim, cluster.workers[1].pid]
    assert {c["i"] for c in calls} == set(range(10))

    # The table is the serial one; the cache holds exactly one complete file per distinct point.
    assert_frame_equal(remote, sweep(fns.slow, grid, scheduler="serial"))
    assert sorted(p.name for p in cache_dir.iterdir()) == sorted(f"{k}.parquet" for k in set(keys))
    assert_frame_equal(sweep(fns.slow, grid, scheduler="serial", cache_dir=cache_dir), remote)


# --------------------------------------------------------------------------- processes


def test_close_after_exception_leaves_no_process(tmp_path: Path) -> None:
    procs: list[subprocess.Popen] = []
    with pytest.raises(KeyError, match="inside the with block"):
        with ProcessCluster(2, log_dir=tmp_path / "logs") as cluster:
            procs = [cluster.scheduler, *cluster.workers]  # type: ignore[list-item]
            assert all(p.poll() is None for p in procs)
            workdir = Path(cluster._workdir)
            raise KeyError("inside the with block")
    assert len(procs) == 3
    assert all(p.poll() is not None for p in procs)
    assert all(_gone(p.pid) for p in procs)
    assert cluster.closed and not workdir.exists()
    assert (tmp_path / "logs" / "scheduler.log").stat().st_size > 0  # a given log_dir is kept
    cluster.close()  # idempotent
    with pytest.raises(RuntimeError, match="closed"):
        cluster.wait_for_workers(1)


_ORPHAN_SCRIPT = """
import os, signal
from dlsched.daskprocs import ProcessCluster
cluster = ProcessCluster(1, timeout=60)
print(cluster._workdir, *(p.pid for p in [cluster.scheduler, *cluster.workers]), flush=True)
os.kill(os.getpid(), signal.SIGKILL)  # no chance to clean up
"""


def test_processes_exit_when_their_owner_is_killed(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", _ORPHAN_SCRIPT],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )
    assert out.returncode == -signal.SIGKILL, out.stderr
    workdir, *rest = out.stdout.split()
    pids = [int(s) for s in rest]
    assert len(pids) == 2 and Path(workdir).parent == tmp_path
    deadline = time.monotonic() + 20
    while not all(_gone(pid) for pid in pids):
        if time.monotonic() > deadline:
            for pid in pids:  # do not leave them behind even if the watchdog failed
                if not _gone(pid):
                    os.kill(pid, signal.SIGKILL)
            pytest.fail("the scheduler/worker outlived the process that started them")
        time.sleep(0.1)
    assert not Path(workdir).exists()  # removed by the scheduler on its way out


def test_worker_that_exits_early_raises_with_its_log() -> None:
    with pytest.raises(RuntimeError) as info:
        ProcessCluster(1, worker_args=["--memory-limit", "lots"], timeout=60)
    msg = str(info.value)
    assert "worker-0 exited early" in msg
    assert "dask worker" in msg or "dask_worker" in msg  # the command
    assert "--memory-limit lots" in msg
    assert "lots" in msg.split("ends with:", 1)[1]  # the tail of its log


# --------------------------------------------------------------------------- cluster_for and bad input


def test_cluster_for(tmp_path: Path) -> None:
    for value in ("serial", "local", "tcp://10.0.0.1:8786"):
        with cluster_for(value) as scheduler:
            assert scheduler == value
    with pytest.raises(ValueError, match="'processes'"):
        with cluster_for("proceses"):
            pass
    grid = param_grid(seed=[1, 2], n=[2])
    with cluster_for("processes", n_workers=1) as address:
        assert address.startswith("tcp://")
        assert _n_workers(address) == 1
        remote = sweep(fns.noisy, grid, scheduler=address)
    assert_frame_equal(remote, sweep(fns.noisy, grid, scheduler="serial"))


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"n_workers": 0}, "n_workers"),
        ({"n_workers": -1}, "n_workers"),
        ({"n_workers": 2.0}, "n_workers"),
        ({"n_workers": "2"}, "n_workers"),
        ({"n_workers": True}, "n_workers"),
        ({"threads_per_worker": 0}, "threads_per_worker"),
        ({"timeout": 0}, "timeout"),
        ({"timeout": float("nan")}, "timeout"),
        ({"host": ""}, "host"),
        ({"env": {"X": 1}}, "env"),
        ({"worker_args": "--nthreads 2"}, "worker_args"),
    ],
)
def test_bad_input_names_the_field(kwargs: dict, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        ProcessCluster(**kwargs)

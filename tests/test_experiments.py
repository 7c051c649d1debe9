"""Tests of the generic sweep machinery in dlsched.experiments.

Grids, cache keys, the atomic parquet cache, serial vs LocalCluster vs an external Dask cluster
(identical frames for the same seeds), resuming a sweep killed with SIGKILL, and bad input.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import _sweep_fns as fns
import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

import dlsched
from dlsched import experiments, localcluster
from dlsched.experiments import ResultCache, SweepError, cache_key, param_grid, sweep

TESTS_DIR = str(Path(__file__).resolve().parent)


def _env(**extra: str) -> dict[str, str]:
    """Environment for a subprocess that must import ``_sweep_fns``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([TESTS_DIR, *filter(None, [env.get("PYTHONPATH")])])
    env.update(extra)
    return env


def _temp_name(key: str, pid: int) -> str:
    """Name of a temporary cache file written by process ``pid`` (see ResultCache)."""
    return f".{key}.{experiments._HOST}.{pid}.0123456789ab.tmp"


def _calls(log: Path) -> list[int]:
    if not log.exists():
        return []
    return [json.loads(line)["i"] for line in log.read_text().splitlines() if line.strip()]


# --------------------------------------------------------------------------- param_grid


def test_param_grid_order_last_axis_fastest_and_base_merge() -> None:
    grid = param_grid({"mode": "quick", "load": -1}, load=[0.5, 0.9], seed=range(3))
    assert [(p["load"], p["seed"]) for p in grid] == [
        (0.5, 0),
        (0.5, 1),
        (0.5, 2),
        (0.9, 0),
        (0.9, 1),
        (0.9, 2),
    ]
    assert all(p["mode"] == "quick" for p in grid)  # base kept, axis overrides base
    assert list(grid[0]) == ["mode", "load", "seed"]
    assert param_grid({"a": 1}) == [{"a": 1}]
    assert param_grid() == [{}]


def test_param_grid_converts_numpy_and_copies_base() -> None:
    base = {"sizes": [1, 2]}
    grid = param_grid(base, x=np.array([1.5, 2.5]))
    assert [type(p["x"]) for p in grid] == [float, float]
    grid[0]["sizes"].append(3)
    assert grid[1]["sizes"] == [1, 2] and base["sizes"] == [1, 2]


@pytest.mark.parametrize(
    ("axes", "name"),
    [
        ({"seed": []}, "seed"),
        ({"ok": [1], "load": ()}, "load"),
        ({"policy": "oasis"}, "policy"),
        ({"n": 3}, "n"),
        ({"s": {1, 2}}, "s"),
        ({"m": np.zeros((2, 2))}, "m"),
    ],
)
def test_param_grid_rejects_bad_axes(axes: dict, name: str) -> None:
    with pytest.raises(ValueError, match=repr(name)):
        param_grid(**axes)


def test_param_grid_rejects_non_mapping_base() -> None:
    with pytest.raises(TypeError, match="base"):
        param_grid([("a", 1)], x=[1])  # type: ignore[arg-type]


# --------------------------------------------------------------------------- cache_key


def test_cache_key_canonical_and_discriminating() -> None:
    p = {"seed": 1, "load": 0.5, "sizes": (1, 2), "cfg": {"b": 2, "a": "x"}}
    q = {"cfg": {"a": "x", "b": 2}, "sizes": [1, 2], "load": np.float64(0.5), "seed": np.int64(1)}
    k = cache_key(fns.noisy, p)
    assert len(k) == 64 and int(k, 16) >= 0
    assert cache_key(fns.noisy, q) == k  # dict order, tuples, numpy scalars do not matter
    assert cache_key(fns.noisy, {**p, "seed": 2}) != k
    assert cache_key(fns.noisy, {**p, "load": 0.5000001}) != k
    assert cache_key(fns.noisy, {**p, "seed": 1.0}) != k  # int and float differ
    assert cache_key(fns.logged, p) != k  # function is part of the key


def test_cache_key_includes_package_version(monkeypatch: pytest.MonkeyPatch) -> None:
    k = cache_key(fns.noisy, {"seed": 0})
    monkeypatch.setattr(dlsched, "__version__", dlsched.__version__ + ".post1")
    assert cache_key(fns.noisy, {"seed": 0}) != k


def test_cache_key_same_in_another_process() -> None:
    params = {"seed": 7, "load": 0.25, "name": "x", "sizes": [1, 2]}
    code = (
        "import _sweep_fns, json, sys\n"
        "from dlsched.experiments import cache_key\n"
        "p = json.loads(sys.argv[1])\n"
        "print(cache_key(_sweep_fns.noisy, dict(reversed(list(p.items())))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(params)],
        env=_env(PYTHONHASHSEED="12345"),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert out.stdout.strip() == cache_key(fns.noisy, params)


@pytest.mark.parametrize(
    ("params", "where"),
    [
        ({"when": object()}, "when"),
        ({"cfg": {"inner": {1, 2}}}, "cfg.inner"),
        ({"xs": [1, 2, 1j]}, "xs[2]"),
        ({"cfg": {3: "a"}}, "cfg"),
    ],
)
def test_cache_key_rejects_non_json_params(params: dict, where: str) -> None:
    with pytest.raises(TypeError, match=repr(where).replace("[", r"\[").replace("]", r"\]")):
        cache_key(fns.noisy, params)


def test_cache_key_rejects_lambda() -> None:
    with pytest.raises(TypeError, match="module-level"):
        cache_key(lambda p: pd.DataFrame(), {"seed": 0})


# --------------------------------------------------------------------------- ResultCache


def test_result_cache_roundtrip_and_housekeeping(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path / "c")
    df = fns.noisy({"seed": 3, "n": 5})
    assert cache.get("k1") is None and not cache.contains("k1")
    cache.put("k1", df)
    cache.put("k0", df.head(2))
    assert cache.contains("k1") and "k0" in cache
    assert cache.keys() == ["k0", "k1"] and len(cache) == 2
    got = cache.get("k1")
    cols = ["rep", "value", "count", "flag"]
    assert_frame_equal(got[cols], df[cols])
    assert got["label"].tolist() == df["label"].tolist()
    assert not [p for p in (tmp_path / "c").iterdir() if p.name.endswith(".tmp")]
    cache.clear()
    assert cache.keys() == [] and cache.get("k1") is None


def test_result_cache_rejects_bad_input(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path)
    with pytest.raises(ValueError, match=r"'\.\./evil'"):
        cache.put("../evil", pd.DataFrame({"a": [1]}))
    with pytest.raises(TypeError, match="DataFrame"):
        cache.put("k", [1, 2])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="parquet"):
        cache.put("k", pd.DataFrame({"a": pd.Series([1, "x"], dtype=object)}))  # mixed types
    assert cache.keys() == [] and list(tmp_path.iterdir()) == []
    (tmp_path / "file").write_text("x")
    with pytest.raises(NotADirectoryError, match="file"):
        ResultCache(tmp_path / "file")


def test_result_cache_ignores_and_cleans_leftover_temp_files(tmp_path: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    leftover = tmp_path / _temp_name("abc", dead.pid)
    leftover.write_bytes(b"PAR1 half a file")
    foreign = tmp_path / _temp_name("abd", os.getpid())  # a live writer's
    foreign.write_bytes(b"PAR1 in progress")
    assert ResultCache(tmp_path).keys() == []  # never listed as entries
    assert not leftover.exists()  # killed writer: cleaned
    assert foreign.exists()  # a live process may still be writing it: left alone
    foreign.unlink()


# --------------------------------------------------------------------------- sweep


def test_serial_sweep_layout() -> None:
    grid = param_grid({"n": 2, "tags": ["x"]}, seed=[5, 6], scale=[1.0, 10.0])
    out = sweep(fns.noisy, grid, scheduler="serial")
    assert list(out.columns[:3]) == ["n", "seed", "scale"]  # scalar params; "tags" is a list
    assert "tags" not in out.columns
    assert out.index.equals(pd.RangeIndex(8))
    assert out[["seed", "scale"]].drop_duplicates().values.tolist() == [
        [p["seed"], p["scale"]] for p in grid
    ]
    for p, (_, block) in zip(grid, out.groupby(["seed", "scale"], sort=False), strict=True):
        ref = fns.noisy(p)
        np.testing.assert_array_equal(block["value"].to_numpy(), ref["value"].to_numpy())
    roundtrip = pd.read_parquet(io.BytesIO(fns.noisy({"seed": 0}).to_parquet()))
    assert out.dtypes[roundtrip.columns].equals(roundtrip.dtypes)  # dtypes as parquet gives them


def test_named_index_becomes_column_and_duplicates_computed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = sweep(fns.indexed, [{"seed": 1, "n": 2}], scheduler="serial")
    assert list(out.columns) == ["seed", "n", "rep", "value"]
    log = tmp_path / "calls.log"
    monkeypatch.setenv(fns.CALLS_LOG_ENV, str(log))
    grid = [{"i": 0, "seed": 0}, {"i": 1, "seed": 1}, {"seed": 0, "i": 0}]
    out = sweep(fns.logged, grid, scheduler="serial", cache_dir=tmp_path / "c")
    assert sorted(_calls(log)) == [0, 1]
    blocks = [g for _, g in out.groupby(out.index // 3)]
    assert len(blocks) == 3
    assert_frame_equal(blocks[0].reset_index(drop=True), blocks[2].reset_index(drop=True))
    assert len(ResultCache(tmp_path / "c")) == 2


def test_serial_equals_local_dask() -> None:
    grid = param_grid({"n": 4}, seed=[11, 12, 13], scale=[0.5, 2.0])
    serial = sweep(fns.noisy, grid, scheduler="serial")
    dask_out = sweep(fns.noisy, grid, scheduler="local", n_workers=2)
    assert_frame_equal(dask_out, serial)
    assert len(serial) == 4 * len(grid)


def test_local_sweeps_share_one_cluster_until_the_environment_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    experiments.close_local_cluster()
    grid = param_grid({"n": 4}, seed=[1, 2])
    first = sweep(fns.noisy, grid, scheduler="local", n_workers=2)
    client = experiments._LOCAL[0][2]
    assert_frame_equal(sweep(fns.noisy, grid, scheduler="local", n_workers=2), first)
    assert experiments._LOCAL[0][2] is client  # reused, not restarted
    sweep(fns.noisy, grid[:1], scheduler="local", n_workers=2)  # one point: in-process
    assert experiments._LOCAL[0][2] is client
    monkeypatch.setenv("DLSCHED_TEST_MARK", "1")  # workers would not see it: a new cluster
    assert_frame_equal(sweep(fns.noisy, grid, scheduler="local", n_workers=2), first)
    assert experiments._LOCAL[0][2] is not client and client.status != "running"
    experiments.close_local_cluster()
    assert experiments._LOCAL[0] is None


def _worker_environ(_: int) -> dict:
    return {k: v for k, v in os.environ.items() if k.startswith(("MALLOC_", "OMP_", "OPENBLAS_"))}


def test_local_cluster_workers_keep_glibc_adaptive_malloc() -> None:
    """dask's nanny sets MALLOC_TRIM_THRESHOLD_ in its workers, which turns off glibc's adaptive
    mmap threshold (every large array faulted in afresh); new_local_cluster leaves it unset and
    keeps the single-thread BLAS settings."""
    from distributed import Client

    with localcluster.new_local_cluster(1) as cluster, Client(cluster, set_as_default=False) as client:
        env = client.submit(_worker_environ, 0).result()
    assert "MALLOC_TRIM_THRESHOLD_" not in env
    assert env.get("OMP_NUM_THREADS") == "1" and env.get("OPENBLAS_NUM_THREADS") == "1"


def _wait_for(predicate, timeout: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.1)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def test_sweep_on_external_cluster_by_address(tmp_path: Path) -> None:
    from distributed import Client

    sched_file = tmp_path / "scheduler.json"
    procs: list[subprocess.Popen] = []
    try:
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "distributed.cli.dask_scheduler",
                 "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                 "--scheduler-file", str(sched_file)],
                cwd=tmp_path, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
        )  # fmt: skip
        _wait_for(lambda: sched_file.exists() and sched_file.stat().st_size > 0, 30, "scheduler")
        address = json.loads(sched_file.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "distributed.cli.dask_worker", address,
                 "--nthreads", "1", "--nworkers", "1", "--host", "127.0.0.1",
                 "--no-dashboard", "--local-directory", str(tmp_path / "w")],
                cwd=tmp_path, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
        )  # fmt: skip
        with Client(address, set_as_default=False, timeout=30) as client:
            client.wait_for_workers(1, timeout=30)

        grid = param_grid(seed=[1, 2, 3], n=[2, 5])
        remote = sweep(fns.noisy, grid, scheduler=address)
        assert_frame_equal(remote, sweep(fns.noisy, grid, scheduler="serial"))

        with Client(address, set_as_default=False, timeout=30) as client:
            assert len(client.scheduler_info(n_workers=-1)["workers"]) == 1  # cluster left up
            again = sweep(fns.noisy, grid[:2], scheduler=client)  # an existing Client
            assert client.status == "running"  # not closed by sweep
        assert_frame_equal(again, remote.iloc[: len(again)])
        assert all(p.poll() is None for p in procs)
    finally:
        for p in reversed(procs):
            _stop(p)


_RESUME_SCRIPT = """
import json, sys
import _sweep_fns
from dlsched.experiments import sweep
grid = json.loads(sys.argv[1])
sweep(_sweep_fns.logged, grid, cache_dir=sys.argv[2], scheduler="serial")
"""


def test_killed_sweep_resumes_without_recomputing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    grid = param_grid(i=range(8))
    for p in grid:
        p["seed"] = 100 + p["i"]
    keys = [cache_key(fns.logged, p) for p in grid]
    cache_dir = tmp_path / "cache"
    log = tmp_path / "calls.log"

    proc = subprocess.Popen(
        [sys.executable, "-c", _RESUME_SCRIPT, json.dumps(grid), str(cache_dir)],
        env=_env(**{fns.CALLS_LOG_ENV: str(log), fns.SLEEP_ENV: "0.3"}),
    )
    try:
        _wait_for(lambda: len(_calls(log)) >= 3 or proc.poll() is not None, 60, "3 calls")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL, "the subprocess finished before it was killed"

    calls_before = _calls(log)
    cached_before = {p.name[:64] for p in cache_dir.glob("*.parquet")}
    done_before = {i for i, k in enumerate(keys) if k in cached_before}
    assert cached_before == {keys[i] for i in done_before}  # nothing but grid points stored
    assert done_before and len(done_before) < len(grid)
    assert done_before <= set(calls_before)
    # A writer killed mid-put leaves a temp file like this one; the resumed sweep must clean it.
    (cache_dir / _temp_name(keys[-1], proc.pid)).write_bytes(b"PAR1 partial")

    monkeypatch.setenv(fns.CALLS_LOG_ENV, str(log))
    resumed = sweep(fns.logged, grid, cache_dir=cache_dir, scheduler="serial")

    new_calls = _calls(log)[len(calls_before) :]
    assert sorted(new_calls) == sorted(set(range(8)) - done_before)  # cached ones not recomputed
    assert resumed["i"].tolist() == [i for i in range(8) for _ in range(3)]  # grid order, once
    fresh = sweep(fns.noisy, grid, scheduler="serial")  # logged() == noisy() plus logging
    assert_frame_equal(resumed, fresh)
    assert sorted(p.name for p in cache_dir.iterdir()) == sorted(f"{k}.parquet" for k in keys)


def test_repeated_sweep_is_served_from_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "calls.log"
    monkeypatch.setenv(fns.CALLS_LOG_ENV, str(log))
    grid = param_grid(i=range(4), seed=[1, 2])
    first = sweep(fns.logged, grid, cache_dir=tmp_path / "c", scheduler="serial", progress=True)
    assert len(_calls(log)) == len(grid)
    second = sweep(fns.logged, grid, cache_dir=tmp_path / "c", scheduler="serial")
    assert len(_calls(log)) == len(grid)  # zero new calls
    assert_frame_equal(second, first)
    # The scheduler is irrelevant once everything is cached: no cluster is started.
    third = sweep(fns.logged, grid, cache_dir=tmp_path / "c", scheduler="tcp://127.0.0.1:1")
    assert_frame_equal(third, first)


def test_failing_point_raises_sweep_error_and_keeps_finished(tmp_path: Path) -> None:
    grid = param_grid(x=[0, 1, 2, 3])
    with pytest.raises(SweepError, match=r"\{'x': 2\}") as info:
        sweep(fns.fails_on_two, grid, cache_dir=tmp_path, scheduler="serial", retries=1)
    assert info.value.params == {"x": 2}
    assert isinstance(info.value.__cause__, RuntimeError)
    assert set(ResultCache(tmp_path).keys()) == {
        cache_key(fns.fails_on_two, grid[i]) for i in (0, 1)
    }


def test_failing_point_on_dask_raises_sweep_error(tmp_path: Path) -> None:
    from distributed import Client, LocalCluster

    grid = param_grid(x=[0, 1, 2, 3])
    with (
        LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        with pytest.raises(SweepError, match=r"\{'x': 2\}.*boom"):
            sweep(fns.fails_on_two, grid, cache_dir=tmp_path, scheduler=client)
        with pytest.raises(TypeError, match=r"dict.*\{'x': 1\}"):
            sweep(fns.not_a_frame, [{"x": 1}], scheduler=client)
    assert cache_key(fns.fails_on_two, grid[2]) not in ResultCache(tmp_path).keys()


def test_bad_input() -> None:
    with pytest.raises(TypeError, match=r"dict.*\{'x': 1\}"):
        sweep(fns.not_a_frame, [{"x": 1}], scheduler="serial")
    with pytest.raises(ValueError, match="'threads'"):
        sweep(fns.noisy, [{"seed": 0}], scheduler="threads")
    with pytest.raises(ValueError, match="42"):
        sweep(fns.noisy, [{"seed": 0}], scheduler=42)
    with pytest.raises(TypeError, match="'when'"):
        sweep(fns.noisy, [{"seed": 0, "when": object()}], scheduler="serial")
    with pytest.raises(ValueError, match="'seed'"):
        sweep(fns.returns_seed_column, [{"seed": 0}], scheduler="serial")
    with pytest.raises(TypeError, match="module-level"):
        sweep(lambda p: pd.DataFrame(), [{"seed": 0}], scheduler="serial")
    with pytest.raises(TypeError, match="grid"):
        sweep(fns.noisy, {"seed": 0}, scheduler="serial")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="n_workers"):
        sweep(fns.noisy, [{"seed": 0}], scheduler="local", n_workers=0)
    with pytest.raises(ValueError, match="retries"):
        sweep(fns.noisy, [{"seed": 0}], scheduler="serial", retries=-1)
    assert sweep(fns.noisy, [], scheduler="serial").empty


def test_simulation_sweep_is_identical_serially_and_on_dask(tmp_path):
    """The real experiment (a simulation's job table) gives identical tables serially and on a
    local Dask cluster, and a repeated sweep is served from the cache."""
    from dlsched.experiments import simulation_jobs

    grid = param_grid(
        {"workload": "synthetic", "workload.model": "pdors", "workload.n_jobs": 8},
        policy=["fifo", "drf"],
        seed=[0, 1],
    )
    serial = sweep(simulation_jobs, grid, scheduler="serial")
    dask = sweep(simulation_jobs, grid, scheduler="local", n_workers=2, cache_dir=tmp_path)
    pd.testing.assert_frame_equal(serial, dask)
    again = sweep(simulation_jobs, grid, scheduler="serial", cache_dir=tmp_path)
    pd.testing.assert_frame_equal(serial, again)
    assert set(serial.groupby(["policy", "seed"]).size()) == {8}

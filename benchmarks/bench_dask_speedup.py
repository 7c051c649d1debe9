"""Benchmark: a CPU-bound sweep serially and on a real Dask cluster of 1 and 2 worker processes
(issue 11, item 4: "Sweeps on a real Dask cluster").

The sweep is ``--points`` seeds of ``dlsched.experiments.simulation_summary`` on
``{"workload": WORKLOAD, "policy": POLICY, "workload.n_jobs": JOBS}`` (default 8 seeds of 3,000
``philly_like`` jobs under ``drf``, 2-3 s each on the 2-core reference machine). It runs three
times, without a cache so that every point is computed: serially in this process, then on a
:class:`dlsched.daskprocs.ProcessCluster` (a ``dask scheduler`` and ``dask worker --no-nanny
--nthreads 1`` processes started from the command line, as on a cluster) with 1 worker and with 2
workers, through ``experiments.sweep(..., scheduler=cluster.address)``. The three tables must be
identical (``pandas.testing.assert_frame_equal``); the script exits with status 1 otherwise.

Timing: wall time of the ``sweep`` call only (best of ``--repeat``), next to the CPU time the
computing processes got meanwhile: on a shared machine, "cores" below the number of workers
means other processes took part of the CPUs, and the speed-up is then not this code's. Cluster
start-up is reported separately, and before each timed run every worker (and, for the serial
run, this process) computes one tiny point of the same experiment (``--warmup-jobs`` jobs), so
that the one-off imports of dlsched, numpy and pandas are not part of the comparison. The issue's
aim is a speed-up of 1.8x for 2 workers over 1 on a 2-core machine; the scheduler, the client
and the OS share those 2 cores.

With ``--arena`` (issue 23, "the arena sweep spreads over a Dask cluster ... one point per
(scheduler, trace, seed)") the sweep is notebook 60's instead: :func:`dlsched.arena.experiments.
arena_point` on :func:`~dlsched.arena.experiments.arena_grid` of both of its windows (Philly week 7
cluster 11cb48 and ITP week 4 cluster 1, ``node_scale`` 0.25), every compatible (model, policy)
pair, seeds ``0..P-1`` (``--points``, default 1 here), the first ``--jobs`` jobs of each window
(default 60, the notebook's quick size; its paper size is 400). The warm-up point is the first
grid point with ``--warmup-jobs`` jobs.

Run: ``.venv/bin/python benchmarks/bench_dask_speedup.py [--points P] [--jobs N] [--repeat R]
[--workload W] [--policy P] [--fn module.function] [--arena]``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd
from pandas.testing import assert_frame_equal

from dlsched.daskprocs import ProcessCluster
from dlsched.experiments import sweep


def _import(path: str) -> Callable[[dict], pd.DataFrame]:
    """The module-level function named ``package.module.function`` or ``package.module:function``."""
    module, _, name = path.replace(":", ".").rpartition(".")
    if not module:
        raise SystemExit(f"--fn must be an import path like dlsched.experiments.simulation_summary: {path!r}")
    return getattr(importlib.import_module(module), name)


def _identical(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    try:
        assert_frame_equal(a, b)
    except AssertionError as exc:
        print(f"NOT identical: {exc}", file=sys.stderr)
        return False
    return True


def _cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds used so far by the processes ``pids`` (Linux /proc; NaN elsewhere)."""
    total = 0.0
    try:
        for pid in pids:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return float("nan")
    return total


def _serial(
    fn: Callable[[dict], pd.DataFrame], grid: list[dict], repeat: int
) -> tuple[pd.DataFrame, float, float]:
    """(table, best sweep seconds, CPU seconds of that run) in this process."""
    best, cpu, table = float("inf"), float("nan"), pd.DataFrame()
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        table = sweep(fn, grid, scheduler="serial")
        wall, used = time.perf_counter() - t0, time.process_time() - c0
        if wall < best:
            best, cpu = wall, used
    return table, best, cpu


def _on_cluster(
    fn: Callable[[dict], pd.DataFrame], grid: list[dict], warmup: dict, n_workers: int, repeat: int
) -> tuple[pd.DataFrame, float, float, float]:
    """(table, best sweep seconds, workers' CPU seconds in that run, start-up seconds) on a fresh
    ProcessCluster of ``n_workers``."""
    from distributed import Client

    t0 = time.perf_counter()
    with ProcessCluster(n_workers) as cluster:
        startup = time.perf_counter() - t0
        with Client(cluster.address, set_as_default=False) as client:
            client.run(fn, warmup)  # once on every worker
        pids = [p.pid for p in cluster.workers]
        best, cpu, table = float("inf"), float("nan"), pd.DataFrame()
        for _ in range(repeat):
            c0, t1 = _cpu_seconds(pids), time.perf_counter()
            table = sweep(fn, grid, scheduler=cluster.address)
            wall, used = time.perf_counter() - t1, _cpu_seconds(pids) - c0
            if wall < best:
                best, cpu = wall, used
    return table, best, cpu, startup


def _arena(seeds: int, max_jobs: int, warmup_jobs: int):
    """(fn, grid, warm-up point, description) of notebook 60's sweep at ``max_jobs`` jobs."""
    from dlsched.arena import experiments as ax

    windows = [("philly", 7, "11cb48"), ("itp", 4, 1)]  # notebook 60's parameters
    grid = [
        point
        for tr, wk, cl in windows
        for point in ax.arena_grid(trace=tr, week=wk, cluster=cl, seeds=list(range(seeds)),
                                   max_jobs=max_jobs, node_scale=0.25)
    ]  # fmt: skip
    warmup = {**grid[0], "max_jobs": warmup_jobs}
    what = (f"notebook 60's arena, {len(grid)} points (every compatible model/policy pair of "
            f"{len(windows)} windows x seeds 0..{seeds - 1}), {max_jobs} jobs per window")
    return ax.arena_point, grid, warmup, what


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=None,
                    help="seeds 0..P-1 (grid points without --arena); default 8, or 1 with --arena")
    ap.add_argument("--jobs", type=int, default=None,
                    help="workload.n_jobs of every point (default 3000), or the arena's max_jobs "
                         "(default 60)")
    ap.add_argument("--workload", default="philly_like", help="registry workload; default philly_like")
    ap.add_argument("--policy", default="drf", help="registry policy; default drf")
    ap.add_argument(
        "--fn",
        default="dlsched.experiments.simulation_summary",
        help="experiment function fn(params) -> DataFrame, as an import path",
    )
    ap.add_argument("--arena", action="store_true",
                    help="notebook 60's arena sweep (one point per policy, window and seed) instead")
    ap.add_argument("--repeat", type=int, default=1, help="timed runs per configuration, best kept")
    ap.add_argument("--warmup-jobs", type=int, default=50, help="n_jobs of the untimed warm-up point")
    args = ap.parse_args(argv)
    if args.points is None:
        args.points = 1 if args.arena else 8
    if args.jobs is None:
        args.jobs = 60 if args.arena else 3000
    if min(args.points, args.jobs, args.repeat, args.warmup_jobs) < 1:
        ap.error("--points, --jobs, --repeat and --warmup-jobs must be positive")
    if args.arena:
        fn, grid, warmup, what = _arena(args.points, args.jobs, args.warmup_jobs)
    else:
        fn = _import(args.fn)
        base = {"workload": args.workload, "policy": args.policy, "workload.n_jobs": args.jobs}
        grid = [{**base, "seed": s} for s in range(args.points)]
        warmup = {**base, "seed": 0, "workload.n_jobs": args.warmup_jobs}
        what = f"{args.points} points of {base}, seeds 0..{args.points - 1}"
    args.points = len(grid)

    print(f"{fn.__module__}.{fn.__qualname__}: {what}; {os.cpu_count()} CPUs, no cache")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    if load > 0.5:
        print(f"warning: 1-minute load average {load:.2f} before the run; other processes share the CPUs")
    fn(dict(warmup))
    serial, wall, cpu = _serial(fn, grid, args.repeat)
    rows = [("serial", wall, cpu, float("nan"), True)]
    for n in (1, 2):
        table, wall, cpu, startup = _on_cluster(fn, grid, warmup, n, args.repeat)
        rows.append((str(n), wall, cpu, startup, _identical(table, serial)))

    one = rows[1][1]
    print(
        f"{'workers':>8} {'wall s':>7} {'s/point':>7} {'speed-up':>8} {'CPU s':>6} {'cores':>5} "
        f"{'start-up s':>10} {'identical':>9}"
    )
    for name, wall, cpu, startup, same in rows:
        start = "-" if startup != startup else f"{startup:.1f}"
        print(
            f"{name:>8} {wall:>7.2f} {wall / args.points:>7.2f} {one / wall:>7.2f}x {cpu:>6.1f} "
            f"{cpu / wall:>5.2f} {start:>10} {'yes' if same else 'no':>9}"
        )
    if hasattr(os, "getloadavg"):
        print(f"1-minute load average: {load:.2f} before the run, {os.getloadavg()[0]:.2f} after it")
    print(
        "speed-up: wall time of 1 worker / wall time; CPU s: CPU time of the computing processes (this one\n"
        "for serial, the workers otherwise) during the sweep; cores: CPU s / wall s, below the number of\n"
        "workers when other processes compete for the CPUs; identical: assert_frame_equal to the serial table"
    )
    print("aim (issue 11): 2 workers >= 1.8x of 1 worker on a 2-core machine; tables identical to serial")
    return 0 if all(r[3] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())

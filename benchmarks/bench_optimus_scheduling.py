"""Benchmark: Optimus scheduling time (allocation + placement) vs cluster size (Fig. 12).

The paper (Sec. 6.2, Fig. 12): Optimus schedules 4,000 jobs (about 100,000 tasks) on a cluster
of 16,000 nodes within 5 s on one core of an Intel E5-1620 v4. This script builds synthetic
instances of the same shape and times :func:`dlsched.optimus.allocation.allocate` followed by
:func:`dlsched.optimus.placement.place_allocation` on one core (no threads or processes are used).

Instance (seeded): ``n_nodes`` homogeneous servers with 16 cores and 64 GB; ``n_nodes / 4``
jobs, half synchronous and half asynchronous, each with a random
:class:`~dlsched.core.jobs.OptimusModel` (forward/backward/update times, model size 10-400 MB,
1.25 GB/s links, overhead coefficients). Its speed function is Eq. (3)/(4) with the
coefficients implied by the model (what a perfect fit of Sec. 3.2 returns), built with
:func:`~dlsched.optimus.allocation.speed_function`; ``--speed model`` calls
``OptimusModel.speed`` instead (slower per call). Remaining
work ``Q`` is uniform in [1e3, 1e5] steps. A worker asks for 1-6 cores and 2-8 GB, a PS for 1-3
cores and 2-8 GB. The cluster is sized so that the allocation fills it (about 25 tasks per job),
i.e. the worst case for placement, which then cannot place every job.

Times are reported as wall seconds (``time.perf_counter``) and CPU seconds of this process
(``time.process_time``); on a shared machine the CPU time is the more stable number. Each size
is run ``--repeat`` times and the fastest run is reported.

Run: ``.venv/bin/python benchmarks/bench_optimus_scheduling.py [--sizes 1000 2000 ...]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dlsched.core.jobs import OptimusModel
from dlsched.optimus.allocation import AllocJob, allocate, speed_function
from dlsched.optimus.placement import place_allocation

NODE_CAPACITY = (16.0, 64.0)  # cores, GB


def _eq34(model: OptimusModel):
    """Eq. (3)/(4) closure with the coefficients implied by ``model`` (no placement term)."""
    upd = 2.0 * model.model_size / model.ps_bw + model.t_update  # coefficient of w / p
    if model.mode == "sync":
        theta = (model.t_forward, model.t_back, upd, model.delta, model.delta_ps)
        return speed_function("sync", theta, model.batch)
    theta = (model.batch * model.t_forward + model.t_back, upd, model.delta, model.delta_ps)
    return speed_function("async", theta)


def make_instance(n_nodes: int, n_jobs: int, seed: int, speed: str = "fitted"):
    """Synthetic jobs and an empty cluster (see module docstring)."""
    rng = np.random.default_rng(seed)
    jobs = []
    for j in range(n_jobs):
        sync = bool(rng.random() < 0.5)
        model = OptimusModel(
            mode="sync" if sync else "async",
            total_steps=1e5,
            batch=float(rng.choice([32, 64, 128])) * (16 if sync else 1),
            t_forward=float(rng.uniform(0.002, 0.01)),
            t_back=float(rng.uniform(0.05, 0.2)),
            model_size=float(rng.uniform(10, 400)) * 1e6,
            ps_bw=1.25e9,
            worker_bw=1.25e9,
            t_update=float(rng.uniform(0.01, 0.05)),
            delta=float(rng.uniform(0.001, 0.005)),
            delta_ps=float(rng.uniform(0.001, 0.005)),
            placement_aware=False,
        )
        f = _eq34(model) if speed == "fitted" else model.speed
        wd = np.array([rng.integers(1, 7), rng.integers(2, 9)], dtype=float)
        pd_ = np.array([rng.integers(1, 4), rng.integers(2, 9)], dtype=float)
        jobs.append(AllocJob(j, float(rng.uniform(1e3, 1e5)), f, wd, pd_))
    free = np.tile(np.array(NODE_CAPACITY), (n_nodes, 1))
    return jobs, free


def run_once(jobs, free) -> dict[str, float]:
    """Time allocation and placement once."""
    w0, c0 = time.perf_counter(), time.process_time()
    alloc = allocate(jobs, free.sum(axis=0), ("cpu", "mem"))
    w1, c1 = time.perf_counter(), time.process_time()
    res = place_allocation(jobs, alloc, free, sort_by=0)
    w2, c2 = time.perf_counter(), time.process_time()
    tasks = sum(p + w for p, w in alloc.values())
    placed = sum(alloc[j][0] + alloc[j][1] for j in res.placements)
    return {
        "alloc_wall": w1 - w0,
        "alloc_cpu": c1 - c0,
        "place_wall": w2 - w1,
        "place_cpu": c2 - c1,
        "total_wall": w2 - w0,
        "total_cpu": c2 - c0,
        "tasks": tasks,
        "placed_jobs": len(res.placements),
        "placed_tasks": placed,
        "jobs": len(alloc),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 4000, 8000, 16000])
    ap.add_argument("--jobs-per-node", type=float, default=0.25)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--speed", choices=("fitted", "model"), default="fitted")
    args = ap.parse_args(argv)
    print(
        f"{'nodes':>6} {'jobs':>5} {'tasks':>7} {'placed jobs':>11} {'placed tasks':>12} "
        f"{'alloc s':>8} {'place s':>8} {'total s':>8} {'alloc CPU':>9} {'place CPU':>9} {'total CPU':>9}"
    )
    for n in args.sizes:
        n_jobs = max(1, int(round(n * args.jobs_per_node)))
        jobs, free = make_instance(n, n_jobs, args.seed, args.speed)
        runs = [run_once(jobs, free) for _ in range(args.repeat)]
        best = min(runs, key=lambda r: r["total_cpu"])
        print(
            f"{n:>6} {n_jobs:>5} {best['tasks']:>7} {best['placed_jobs']:>11} {best['placed_tasks']:>12} "
            f"{best['alloc_wall']:>8.3f} {best['place_wall']:>8.3f} {best['total_wall']:>8.3f} "
            f"{best['alloc_cpu']:>9.3f} {best['place_cpu']:>9.3f} {best['total_cpu']:>9.3f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

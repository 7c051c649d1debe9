"""Benchmark: the largest A_online offline instance (2)-(2l) solved to optimality within 60 s.

Fig. 14 of A_online divides A_online's total completion time by the offline optimum "on
instances small enough". :func:`dlsched.aonline.offline.solve_offline` solves (2)-(2l) exactly
as a time-indexed MILP (HiGHS through scipy.optimize.milp, ``mip_rel_gap = 0``) over a horizon
that cuts off no optimum (:func:`dlsched.aonline.offline.exact_horizon`). This script grows the
number of jobs J until some seed is no longer proven optimal within the time limit and prints
the largest J for which every seed was; each solution is re-checked by the solver wrapper,
replayed through the simulator here, and compared with FIFO (earliest-start server, A_online's
FIFO) on the same instance.

Instances (:func:`small_instance`): the Sec. VI edge-cloud structure scaled down to MILP size
(uniform draws; one worker and one PS type, the most contended case):

======================  =============================  =====================================
quantity                paper (Sec. VI)                here
======================  =============================  =====================================
edge servers            100-300                        ``--edges`` (default 2)
worker slots per edge   Philly GPUs (mostly 1, <= 8)   1, 2 or 4 (probabilities .5, .3, .2)
PS slots per edge       CPUs                           1-2
cloud                   "large"                        4 worker + 4 PS slots
Delta_js edge / cloud   1-4 / 10-40 slots              1-2 / 3-5 slots (per job and server)
D_j                     20-50                          1-4
E_j D_j M_j             50-100 x D_j x 10-50           D_j x (1-3)
n_j / H_j / 2k_j/B_j    0.001-0.05 h / 10-100 ms / ..  0.2-0.5 / 0-0.05 / 0-0.5 slots
arrivals                [1, T/1.5]                     0 .. J/2
======================  =============================  =====================================

Run: ``make benchmark`` or ``.venv/bin/python benchmarks/bench_aonline_offline.py [--seeds 3]
[--edges 2] [--max-jobs 80] [--time-limit 60]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dlsched.aonline.offline import simulate_offline, solve_offline, total_completion_time
from dlsched.baselines.fifo import FIFO
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import AOnlineModel, JobSpec, Workload
from dlsched.core.simulator import simulate


def small_instance(rng: np.random.Generator, n_jobs: int, n_edge: int = 2) -> Workload:
    """A scaled-down A_online instance (table in the module docstring).

    Parameters
    ----------
    rng : numpy.random.Generator
    n_jobs : int
        J.
    n_edge : int
        Edge servers (the cloud comes on top).

    Returns
    -------
    Workload
    """
    ri, u = rng.integers, rng.uniform
    edges = [
        {"w0": int(rng.choice([1, 2, 4], p=[0.5, 0.3, 0.2])), "ps0": int(ri(1, 3))} for _ in range(n_edge)
    ]
    cluster = Cluster.edge_cloud(edges, {"w0": 4, "ps0": 4}, edge_delay=1.0, cloud_delay=3.0)
    arrivals = np.sort(ri(0, max(1, n_jobs // 2) + 1, n_jobs))
    jobs = []
    for j, a in enumerate(arrivals):
        chunks = int(ri(1, 5))
        model = AOnlineModel(
            epochs=1,
            chunks=chunks,
            minibatches=int(ri(1, 4)),
            compute=float(u(0.2, 0.5)),
            update=float(u(0.0, 0.05)),
            comm=float(u(0.0, 0.5)),
        )
        delays = tuple(float(d) for d in ri(1, 3, n_edge)) + (float(ri(3, 6)),)
        jobs.append(JobSpec(j, int(a), model, {"w0": 1}, {"ps0": 1}, transfer_delay=delays, name="bench"))
    return Workload(cluster, tuple(jobs), name="aonline_offline_bench")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--edges", type=int, default=2)
    ap.add_argument("--min-jobs", type=int, default=2)
    ap.add_argument("--max-jobs", type=int, default=80)
    ap.add_argument("--time-limit", type=float, default=60.0)
    args = ap.parse_args()
    if args.edges < 1 or args.seeds < 1 or args.min_jobs < 1:
        ap.error("--edges, --seeds and --min-jobs must be >= 1")
    print(
        f"A_online offline MILP: {args.edges} edge servers + cloud, {args.seeds} seeds per J, "
        f"time limit {args.time_limit:g} s"
    )
    print(
        f"{'J':>3} {'seed':>4} {'T':>4} {'status':>10} {'objective':>9} {'gap':>8} {'solve_s':>8} "
        f"{'columns':>8} {'rows':>6} {'replay':>8} {'FIFO/OPT':>8}"
    )
    largest = None
    for n_jobs in range(args.min_jobs, args.max_jobs + 1):
        all_optimal = True
        worst = 0.0
        for seed in range(args.seeds):
            wl = small_instance(np.random.default_rng([n_jobs, seed]), n_jobs, args.edges)
            t0 = time.perf_counter()
            sol = solve_offline(wl, time_limit=args.time_limit)
            wall = time.perf_counter() - t0
            worst = max(worst, wall)
            ok = sol.status == "optimal" and wall <= args.time_limit
            all_optimal &= ok
            replay = total_completion_time(simulate_offline(wl, sol)) if sol.schedules else float("nan")
            fifo = total_completion_time(simulate(wl, FIFO.from_workload(wl)))
            ratio = fifo / sol.objective if sol.objective > 0 else float("nan")
            print(
                f"{n_jobs:>3} {seed:>4} {sol.horizon:>4} {sol.status:>10} {sol.objective:>9.1f} "
                f"{sol.mip_gap:>8.1e} {sol.solve_seconds:>8.2f} {sol.n_columns:>8} {sol.n_constraints:>6} "
                f"{replay:>8.1f} {ratio:>8.3f}"
            )
        if not all_optimal:
            print(
                f"J = {n_jobs}: not every seed proven optimal within {args.time_limit:g} s "
                f"(slowest {worst:.1f} s)"
            )
            break
        largest = n_jobs
    print(
        f"\nLargest J with every seed solved to proven optimality within {args.time_limit:g} s "
        f"({args.edges} edge servers + cloud): {largest}"
    )


if __name__ == "__main__":
    main()

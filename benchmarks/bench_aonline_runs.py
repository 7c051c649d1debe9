"""Benchmark: whole A_online runs and its baselines at the paper's largest edge (300 servers).

For ``--jobs`` jobs (default 400, the largest J of notebook ``42_aonline_figures``' full grid) on
``aonline_workload(n_edge=300)``: wall seconds of one simulation for A_online, FIFO (earliest
server), DRF, BatchSche and Preemptive (with and without a preemption overhead), the total
completion time each reaches, and A_online's time per A_maxsche round (mean, max, and the
round with the most jobs). The paper gives no running time.

Run: ``make benchmark`` or ``.venv/bin/python benchmarks/bench_aonline_runs.py [--jobs J]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dlsched import registry
from dlsched.core.simulator import simulate

RUNS = (
    ("aonline", {}),
    ("fifo", {}),
    ("drf", {}),
    ("batchsche", {}),
    ("preemptive", {}),
    ("preemptive", {"preemption_overhead": 1.0}),
)


def one(policy: str, params: dict, n_edge: int, n_jobs: int, seed: int) -> dict:
    wkw = {"n_edge": n_edge, "n_jobs": n_jobs, **registry.workload_defaults(policy, "aonline")}
    wl = registry.make_workload("aonline", seed=seed, **wkw)
    pol = registry.make_policy(policy, wl, **params)
    t0 = time.perf_counter()
    res = simulate(wl, pol, seed=seed)
    wall = time.perf_counter() - t0
    out = {
        "policy": policy + (f" (overhead {params['preemption_overhead']:g})" if params else ""),
        "wall_s": wall,
        "finished": int((res.jobs["status"] == "finished").sum()),
        "total_ct": float(res.jobs["jct"].sum()),
    }
    rounds = getattr(pol, "rounds", None)
    if policy == "aonline" and rounds:
        secs = np.array([r.seconds for r in rounds])
        big = max(rounds, key=lambda r: len(r.considered))
        out.update(rounds=len(rounds), round_mean_ms=1e3 * secs.mean(), round_max_ms=1e3 * secs.max(),
                   biggest_round_jobs=len(big.considered), biggest_round_ms=1e3 * big.seconds)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=400)
    ap.add_argument("--edge", type=int, default=300)
    ap.add_argument("--seeds", type=int, default=2)
    args = ap.parse_args()
    print(f"A_online wing: {args.edge} edge servers + cloud, {args.jobs} jobs, {args.seeds} seed(s)")
    print(f"{'policy':<28} {'seed':>4} {'wall s':>8} {'finished':>8} {'total CT (slots)':>17}")
    for seed in range(args.seeds):
        for policy, params in RUNS:
            r = one(policy, params, args.edge, args.jobs, seed)
            print(f"{r['policy']:<28} {seed:>4} {r['wall_s']:>8.2f} {r['finished']:>8} "
                  f"{r['total_ct']:>17.0f}", flush=True)
            if "rounds" in r:
                print(f"    A_maxsche: {r['rounds']} rounds, mean {r['round_mean_ms']:.1f} ms, max "
                      f"{r['round_max_ms']:.1f} ms; largest round {r['biggest_round_jobs']} jobs in "
                      f"{r['biggest_round_ms']:.1f} ms")


if __name__ == "__main__":
    main()

"""Benchmark: PD-ORS decision time per job, LP share, and the quantisation of Algorithm 3's DP.

1. Per-job decision time (Algorithm 2 over all completion slots, with Algorithms 3-4 and the
   Algorithm 1 bookkeeping) for full PD-ORS runs on the paper's workload
   (``dlsched.pdors.model.pdors_workload``) at 100 machines, T = 80, 100 jobs: median and p95 over
   jobs, HiGHS LP solves per decision, and the share of the decision time spent inside ``linprog``.
   The paper gives no time; the issue's aim is a median under 50 ms.
2. The DP at the default quantisation (``levels=100``) against finer ones on a small instance:
   total utility of the run, its difference, and the speed-up of the default.

Run: ``make benchmark`` or ``.venv/bin/python benchmarks/bench_pdors_decisions.py``.
"""

from __future__ import annotations

import time

import numpy as np

from dlsched import registry
from dlsched.core.simulator import simulate


def decision_times(seed: int, n_jobs: int = 100, n_machines: int = 100, T: int = 80) -> dict:
    wl = registry.make_workload("pdors", seed=seed, n_jobs=n_jobs, n_machines=n_machines, T=T)
    pol = registry.make_policy("pdors", wl)
    t0 = time.perf_counter()
    res = simulate(wl, pol, seed=seed)
    wall = time.perf_counter() - t0
    secs = np.array([pol.decision_seconds[j] for j in sorted(pol.decision_seconds)])
    solves = np.array([pol.lp_stats[j][0] for j in sorted(pol.lp_stats)])
    lp_secs = np.array([pol.lp_stats[j][1] for j in sorted(pol.lp_stats)])
    return {
        "seed": seed,
        "admitted": int(res.jobs["admitted"].sum()),
        "median_ms": 1e3 * float(np.median(secs)),
        "p95_ms": 1e3 * float(np.percentile(secs, 95)),
        "max_ms": 1e3 * float(secs.max()),
        "lp_per_decision_median": float(np.median(solves)),
        "lp_per_decision_mean": float(solves.mean()),
        "lp_share": float(lp_secs.sum() / secs.sum()),
        "run_s": wall,
    }


def quantisation(seed: int, levels: int, n_jobs: int = 12, n_machines: int = 10, T: int = 20) -> dict:
    wl = registry.make_workload("pdors", seed=seed, n_jobs=n_jobs, n_machines=n_machines, T=T)
    pol = registry.make_policy("pdors", wl, levels=levels)
    t0 = time.perf_counter()
    res = simulate(wl, pol, seed=seed)
    return {"levels": levels, "utility": float(res.jobs["utility"].sum()),
            "admitted": int(res.jobs["admitted"].sum()), "seconds": time.perf_counter() - t0}


def main() -> None:
    print("PD-ORS decision time per job: 100 machines, T = 80, 100 jobs (pdors_workload defaults)")
    rows = [decision_times(seed) for seed in (0, 1, 2)]
    print(f"{'seed':>4} {'admitted':>8} {'median ms':>10} {'p95 ms':>8} {'max ms':>8} "
          f"{'LPs/dec (med, mean)':>20} {'LP share':>8} {'run s':>6}")
    for r in rows:
        print(f"{r['seed']:>4} {r['admitted']:>8} {r['median_ms']:>10.1f} {r['p95_ms']:>8.1f} "
              f"{r['max_ms']:>8.0f} {r['lp_per_decision_median']:>9.1f}, {r['lp_per_decision_mean']:>8.1f} "
              f"{r['lp_share']:>8.0%} "
              f"{r['run_s']:>6.1f}")
    print()
    print("Quantisation of the DP (Algorithm 3): 12 jobs, 10 machines, T = 20; default levels = 100")
    print(f"{'seed':>4} {'levels':>6} {'utility':>9} {'admitted':>8} {'seconds':>8} {'diff vs finest':>14} "
          f"{'speed-up of 100':>15}")
    for seed in (0, 1, 2):
        qs = [quantisation(seed, lv) for lv in (100, 400, 1600)]
        finest, default = qs[-1], qs[0]
        for q in qs:
            print(f"{seed:>4} {q['levels']:>6} {q['utility']:>9.2f} {q['admitted']:>8} {q['seconds']:>8.2f} "
                  f"{q['utility'] - finest['utility']:>+14.2f} {q['seconds'] / default['seconds']:>14.1f}x")


if __name__ == "__main__":
    main()

"""Benchmark: SpeCon and DS on the paper's largest schedule (Fig. 12: 50 jobs, cluster 2).

For each seed: the 50-job random schedule (launches uniform on [0, 1200] s) on cluster 2 (8
workers of 16 cores), solo times calibrated so that DS's mean completion time is the paper's
596.3 s (spec 7.5). Prints the wall seconds of one simulation for DS (``k8s_default``) and
SpeCon (``specon``, Algorithms 1-3 with the spec's defaults), the calibration time, the number of
engine decisions, Algorithm 1 ticks and moves, and the mean completion time and makespan each
reaches. ``--jobs`` scales the schedule (launch window grows in proportion) to show how the cost
grows. The paper gives no running time.

Run: ``make benchmark`` or ``.venv/bin/python benchmarks/bench_specon_runs.py [--seeds N]``.

``--advance`` compares SpeCon's ``advance="events"`` with the default ``"every_tick"`` on the same
workloads instead: seconds and decisions of each, the largest and mean relative difference of the
per-job completion times, and whether the moves (Alg. 2 / 3: slot, job, kind, target) and the
category changes are the same.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dlsched import registry
from dlsched.core.simulator import simulate
from dlsched.specon.model import PAPER_DS_MEAN, calibrate_solo_seconds, specon_workload


def one(seed: int, n_jobs: int) -> list[dict]:
    span = 1200.0 * n_jobs / 50
    t0 = time.perf_counter()
    tau = calibrate_solo_seconds(PAPER_DS_MEAN["fig12"], seed, schedule="random", n_jobs=n_jobs, span=span,
                                 cluster=2)
    cal = time.perf_counter() - t0
    wl = specon_workload(np.random.default_rng(seed), schedule="random", n_jobs=n_jobs, span=span, cluster=2,
                         solo_seconds=tau)
    rows = []
    for name in ("k8s_default", "specon"):
        pol = registry.make_policy(name, wl)
        t0 = time.perf_counter()
        res = simulate(wl, pol)
        wall = time.perf_counter() - t0
        jobs = res.jobs
        launch = np.array([j.submit_time for j in wl.jobs])
        events = getattr(pol, "events", [])
        rows.append({
            "seed": seed,
            "jobs": n_jobs,
            "policy": name,
            "wall_s": wall,
            "calibration_s": cal,
            "decisions": res.decisions,
            "ticks": len(getattr(pol, "transitions", [])),
            "moves": sum(e["event"] in ("M", "R") for e in events),
            "mean_jct_s": float(jobs["jct_seconds"].mean()),
            "makespan_s": float((launch + jobs["jct_seconds"].to_numpy()).max() - launch.min()),
        })
    return rows


def compare_advance(seed: int, n_jobs: int) -> dict:
    """SpeCon with ``advance="every_tick"`` and ``"events"`` on one workload of :func:`one`."""
    span = 1200.0 * n_jobs / 50
    tau = calibrate_solo_seconds(PAPER_DS_MEAN["fig12"], seed, schedule="random", n_jobs=n_jobs, span=span,
                                 cluster=2)
    wl = specon_workload(np.random.default_rng(seed), schedule="random", n_jobs=n_jobs, span=span, cluster=2,
                         solo_seconds=tau)
    out = {}
    for adv in ("every_tick", "events"):
        pol = registry.make_policy("specon", wl, advance=adv)
        t0 = time.process_time()
        res = simulate(wl, pol)
        out[adv] = (time.process_time() - t0, res, pol)
    (ca, ra, pa), (cb, rb, pb) = out["every_tick"], out["events"]
    a, b = ra.jobs["jct"].to_numpy(), rb.jobs["jct"].to_numpy()
    rel = np.abs(b - a) / a

    def moves(p):
        return [(e["slot"], e["job"], e["event"], e["to"]) for e in p.events if e["event"] in ("M", "R")]

    def cats(p):
        return [(e["slot"], e["job"], e["from"], e["to"]) for e in p.transitions]

    return {"seed": seed, "jobs": n_jobs, "cpu_tick": ca, "cpu_events": cb, "dec_tick": ra.decisions,
            "dec_events": rb.decisions, "max_rel": float(rel.max()), "mean_rel": float(rel.mean()),
            "moves": len(moves(pa)), "same_moves": moves(pa) == moves(pb), "same_cats": cats(pa) == cats(pb)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--jobs", type=int, nargs="+", default=[50, 100, 200])
    ap.add_argument("--advance", action="store_true",
                    help='compare SpeCon advance="events" with the default "every_tick" instead')
    args = ap.parse_args()
    if args.advance:
        print('SpeCon advance="events" vs "every_tick" (CPU seconds; relative JCT differences per job)')
        print(f"{'jobs':>5} {'seed':>4} {'cpu tick':>8} {'cpu ev':>7} {'dec tick':>8} {'dec ev':>7} "
              f"{'max rel':>9} {'mean rel':>9} {'moves':>5} {'same moves':>10} {'same cats':>9}")
        for n in args.jobs:
            for seed in range(args.seeds):
                r = compare_advance(seed, n)
                print(f"{r['jobs']:>5} {r['seed']:>4} {r['cpu_tick']:>8.3f} {r['cpu_events']:>7.3f} "
                      f"{r['dec_tick']:>8} {r['dec_events']:>7} {r['max_rel']:>9.2e} {r['mean_rel']:>9.2e} "
                      f"{r['moves']:>5} {str(r['same_moves']):>10} {str(r['same_cats']):>9}")
        return
    print("SpeCon wing: random schedule on cluster 2 (8 workers), DS calibrated to 596.3 s at 50 jobs")
    print(f"{'jobs':>5} {'seed':>4} {'policy':<12} {'wall s':>8} {'calib s':>8} {'decisions':>9} "
          f"{'cat. changes':>12} {'moves':>5} {'mean JCT s':>10} {'makespan s':>10}")
    for n in args.jobs:
        for seed in range(args.seeds):
            for r in one(seed, n):
                print(f"{r['jobs']:>5} {r['seed']:>4} {r['policy']:<12} {r['wall_s']:>8.3f} "
                      f"{r['calibration_s']:>8.2f} {r['decisions']:>9} {r['ticks']:>12} {r['moves']:>5} "
                      f"{r['mean_jct_s']:>10.1f} {r['makespan_s']:>10.1f}")


if __name__ == "__main__":
    main()

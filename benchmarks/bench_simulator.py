"""Benchmark: 1,000 Philly jobs (1-8 GPUs, heavy-tailed durations) on 100 GPUs, FIFO and DRF;
then 1,000 Gavel-like jobs on 25 single-GPU servers under load, FIFO and DRF (issue 11).

For reference (issue #2): Gavel's simulator takes 7-23 s and about 175 MB for a workload of this
size on this kind of machine. Each case runs in a fresh subprocess so that its peak resident
memory (ru_maxrss, including the Python interpreter, numpy and pandas) is its own; the time is
the wall time of ``simulate`` alone (workload building is reported separately).

The second table is issue 11's scaling case: the ``gavel_like`` workload (Gavel's trace
generator's shape: 1/2/4 GPUs with probabilities 0.7/0.1/0.2, 1-4 h, Poisson arrivals every
180 s on average; 25 single-GPU servers, 360-s slots), where the queue grows to hundreds of jobs.
Its times (wall, and CPU of the process) are the best of ``--repeat`` runs (default 3; the
machine is shared, so single wall times are noisy), shown next to the issue's numbers: Gavel's
LP-based max-min fairness 9.9 s on the same jobs, and FIFO 1.5 s / DRF 19 s before the
queue-independent FIFO and DRF (DRF then re-placed every queued job at every decision). The
issue's aim is 10x Gavel, i.e. under ~1 s.

Run: ``make benchmark`` or ``.venv/bin/python benchmarks/bench_simulator.py [--jobs N] [--repeat R]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CASE = r"""
import json, resource, sys, time, tracemalloc
from dlsched import registry
from dlsched.core.simulator import simulate
from dlsched.core import metrics
workload, policy, n_jobs = sys.argv[1], sys.argv[2], int(sys.argv[3])
repeat = int(sys.argv[4]) if len(sys.argv) > 4 else 1
import dlsched.baselines.fifo, dlsched.baselines.drf, dlsched.workloads, dlsched.traces
base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t0 = time.perf_counter()
wl = registry.make_workload(workload, seed=0, n_jobs=n_jobs)
t1 = time.perf_counter()
c1 = time.process_time()
r = simulate(wl, registry.make_policy(policy), seed=0)
t2 = time.perf_counter()
best, best_cpu = t2 - t1, time.process_time() - c1
for _ in range(repeat - 1):
    s0, c0 = time.perf_counter(), time.process_time()
    simulate(wl, registry.make_policy(policy), seed=0)
    best, best_cpu = min(best, time.perf_counter() - s0), min(best_cpu, time.process_time() - c0)
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
tracemalloc.start()  # a second, traced run (slower) for the Python-level peak of the simulation
simulate(wl, registry.make_policy(policy), seed=0)
_, peak = tracemalloc.get_traced_memory()
tracemalloc.stop()
s = metrics.summary(r)
gpus = int(wl.cluster.capacity.sum())
span = max(1, wl.jobs[-1].arrival - wl.jobs[0].arrival)
load = sum(j.model.total_work for j in wl.jobs) / (span * gpus)
print(json.dumps({"workload": workload, "policy": policy, "jobs": n_jobs,
                  "gpus": gpus, "load": load,
                  "build_s": t1 - t0, "simulate_s": t2 - t1,
                  "best_s": best, "best_cpu_s": best_cpu, "repeat": repeat,
                  "traced_peak_mb": peak / 2**20,
                  "max_rss_mb": rss, "base_rss_mb": base_rss,
                  "decisions": r.decisions, "finished": s["finished"],
                  "mean_jct_h": s["mean_jct"] * wl.cluster.slot_seconds / 3600,
                  "makespan_h": s["makespan"] * wl.cluster.slot_seconds / 3600}))
"""

GAVEL_ISSUE_11 = {"gavel": 9.9, "fifo": 1.5, "drf": 19.0}
"""Issue 11's seconds for 1,000 Gavel-like jobs: Gavel's LP max-min fairness, and FIFO / DRF before."""


def _case(workload: str, policy: str, n_jobs: int, repeat: int = 1) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CASE, workload, policy, str(n_jobs), str(repeat)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3, help="runs of the Gavel-like cases (best kept)")
    args = ap.parse_args(argv)
    print(
        f"{'workload':<12} {'policy':<6} {'jobs':>5} {'GPUs':>5} {'simulate s':>10} {'build s':>8} "
        f"{'peak RSS MB':>11} {'after import':>12} {'traced MB':>9} {'decisions':>9} {'mean JCT h':>10} {'makespan h':>10}"  # noqa: E501
    )
    for workload in ("philly", "philly_like"):
        for policy in ("fifo", "drf"):
            r = _case(workload, policy, args.jobs)
            print(
                f"{r['workload']:<12} {r['policy']:<6} {r['jobs']:>5} {r['gpus']:>5} {r['simulate_s']:>10.2f} "  # noqa: E501
                f"{r['build_s']:>8.2f} {r['max_rss_mb']:>11.0f} {r['base_rss_mb']:>12.0f} {r['traced_peak_mb']:>9.1f} "  # noqa: E501
                f"{r['decisions']:>9} {r['mean_jct_h']:>10.2f} {r['makespan_h']:>10.1f}"
            )
    print("reference: Gavel 7-23 s, ~175 MB for a workload of this size")
    print()
    print(f"issue 11: Gavel-like jobs on 25 single-GPU servers, simulate time best of {args.repeat}")
    print(
        f"{'workload':<12} {'policy':<6} {'jobs':>5} {'GPUs':>5} {'load':>5} {'best s':>7} {'CPU s':>6} "
        f"{'decisions':>9} "
        f"{'peak RSS MB':>11} {'traced MB':>9} {'before s':>8} {'Gavel s':>7} {'x Gavel':>7}"
    )
    for policy in ("fifo", "drf"):
        r = _case("gavel_like", policy, args.jobs, max(1, args.repeat))
        print(
            f"{r['workload']:<12} {r['policy']:<6} {r['jobs']:>5} {r['gpus']:>5} {r['load']:>5.2f} {r['best_s']:>7.2f} "  # noqa: E501
            f"{r['best_cpu_s']:>6.2f} "
            f"{r['decisions']:>9} {r['max_rss_mb']:>11.0f} {r['traced_peak_mb']:>9.1f} "
            f"{GAVEL_ISSUE_11[policy]:>8.1f} {GAVEL_ISSUE_11['gavel']:>7.1f} {GAVEL_ISSUE_11['gavel'] / r['best_s']:>7.1f}"  # noqa: E501
        )
    print(
        "reference (issue 11, 1,000 jobs): Gavel LP max-min fairness 9.9 s; before: FIFO 1.5 s, DRF 19 s; "
        "aim: 10x Gavel (< ~1 s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Benchmark: 1,000 Philly jobs (1-8 GPUs, heavy-tailed durations) on 100 GPUs, FIFO and DRF.

For reference (issue #2): Gavel's simulator takes 7-23 s and about 175 MB for a workload of this
size on this kind of machine. Each case runs in a fresh subprocess so that its peak resident
memory (ru_maxrss, including the Python interpreter, numpy and pandas) is its own; the time is
the wall time of ``simulate`` alone (workload building is reported separately).

Run: ``make benchmark`` or ``.venv/bin/python benchmarks/bench_simulator.py [--jobs N]``.
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
import dlsched.baselines.fifo, dlsched.baselines.drf, dlsched.workloads, dlsched.traces
base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t0 = time.perf_counter()
wl = registry.make_workload(workload, seed=0, n_jobs=n_jobs)
t1 = time.perf_counter()
r = simulate(wl, registry.make_policy(policy), seed=0)
t2 = time.perf_counter()
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
tracemalloc.start()  # a second, traced run (slower) for the Python-level peak of the simulation
simulate(wl, registry.make_policy(policy), seed=0)
_, peak = tracemalloc.get_traced_memory()
tracemalloc.stop()
s = metrics.summary(r)
print(json.dumps({"workload": workload, "policy": policy, "jobs": n_jobs,
                  "gpus": int(wl.cluster.capacity.sum()),
                  "build_s": t1 - t0, "simulate_s": t2 - t1,
                  "traced_peak_mb": peak / 2**20,
                  "max_rss_mb": rss, "base_rss_mb": base_rss,
                  "decisions": r.decisions, "finished": s["finished"],
                  "mean_jct_h": s["mean_jct"] * wl.cluster.slot_seconds / 3600,
                  "makespan_h": s["makespan"] * wl.cluster.slot_seconds / 3600}))
"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=1000)
    args = ap.parse_args(argv)
    print(
        f"{'workload':<12} {'policy':<6} {'jobs':>5} {'GPUs':>5} {'simulate s':>10} {'build s':>8} "
        f"{'peak RSS MB':>11} {'after import':>12} {'traced MB':>9} {'decisions':>9} {'mean JCT h':>10} {'makespan h':>10}"  # noqa: E501
    )
    for workload in ("philly", "philly_like"):
        for policy in ("fifo", "drf"):
            out = subprocess.run(
                [sys.executable, "-c", CASE, workload, policy, str(args.jobs)],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            r = json.loads(out)
            print(
                f"{r['workload']:<12} {r['policy']:<6} {r['jobs']:>5} {r['gpus']:>5} {r['simulate_s']:>10.2f} "  # noqa: E501
                f"{r['build_s']:>8.2f} {r['max_rss_mb']:>11.0f} {r['base_rss_mb']:>12.0f} {r['traced_peak_mb']:>9.1f} "  # noqa: E501
                f"{r['decisions']:>9} {r['mean_jct_h']:>10.2f} {r['makespan_h']:>10.1f}"
            )
    print("reference: Gavel 7-23 s, ~175 MB for a workload of this size")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Issue 11, scale: the whole Philly trace with FIFO and DRF, each paper's scheduler on the largest
share of it that runs within the budget, and the cost curve (jobs -> seconds, log-log).

Each measurement runs in a fresh single-threaded process (``--one``), so its peak memory is its
own (``ru_maxrss``) and a run over budget is killed. The jobs are the first ``n`` jobs of the whole
trace (submit order), mapped to the scheduler's own job model (``dlsched.arena.mapping``) on the
cluster sized from the trace's own machine counts (Philly's virtual-cluster node table).

For a paper scheduler the sizes double from ``--start``; the next size is skipped when the fitted
curve predicts it would exceed ``--budget`` seconds. The slope of the last (up to 3) points in
log-log gives the growth exponent, and the size at which one run would take an hour.

Usage::

    python benchmarks/bench_arena_scale.py                 # everything (about an hour on 2 cores)
    python benchmarks/bench_arena_scale.py --only fifo drf # the whole-trace baselines only
    python benchmarks/bench_arena_scale.py --budget 120    # a quicker curve

Prints one line per run (``jobs, wall seconds, peak MB``) and a summary table.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time

import numpy as np

SCHEDULERS = {  # policy -> job model it is run on
    "fifo": "rigid",
    "drf": "rigid",
    "oasis": "oasis",
    "pdors": "pdors",
    "aonline": "aonline",
    "optimus": "optimus",
    "specon": "specon",
}
WHOLE = {"fifo", "drf"}


def one(policy: str, model: str, n: int) -> dict:
    """Map the first ``n`` Philly jobs to ``model``, simulate ``policy``; time and memory."""
    from dlsched.arena import mapping
    from dlsched.core.simulator import simulate

    t0 = time.perf_counter()
    df = mapping.trace_jobs("philly")
    if n < len(df):
        attrs = dict(df.attrs)
        df = df.iloc[:n].copy()
        df.attrs.update(attrs)
    wl = mapping.map_jobs(df, model, np.random.default_rng(0), delays="cluster") if model == "aonline" else (
        mapping.map_jobs(df, model, np.random.default_rng(0))
    )
    t1 = time.perf_counter()
    res = simulate(wl, mapping.make_policy(policy, wl), seed=0)
    t2 = time.perf_counter()
    status = res.jobs["status"].value_counts().to_dict()
    return {
        "policy": policy, "model": model, "jobs": len(wl.jobs), "map_s": t1 - t0, "sim_s": t2 - t1,
        "decisions": res.decisions, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "finished": int(status.get("finished", 0)), "rejected": int(status.get("rejected", 0)),
    }  # fmt: skip


def measure(policy: str, model: str, n: int, timeout: float) -> dict | None:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    cmd = [sys.executable, __file__, "--one", policy, model, str(n)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, check=True)
    except subprocess.TimeoutExpired:
        return None
    except subprocess.CalledProcessError as e:
        raise SystemExit(f"{policy} on {n} jobs failed:\n{e.stderr[-2000:]}") from None
    return json.loads(out.stdout.strip().splitlines()[-1])


def slope(points: list[dict]) -> float:
    """Least-squares slope of log(seconds) on log(jobs) over the last 3 points."""
    p = points[-3:]
    if len(p) < 2:
        return math.nan
    x = np.log([q["jobs"] for q in p])
    y = np.log([max(q["sim_s"], 1e-3) for q in p])
    return float(np.polyfit(x, y, 1)[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--one", nargs=3, metavar=("POLICY", "MODEL", "N"), help=argparse.SUPPRESS)
    ap.add_argument("--only", nargs="+", choices=list(SCHEDULERS), help="schedulers to run")
    ap.add_argument("--budget", type=float, default=600.0, help="seconds one run may take (default 600)")
    ap.add_argument("--start", type=int, default=500, help="first size for the paper schedulers")
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one(args.one[0], args.one[1], int(args.one[2]))))
        return
    from dlsched.arena import mapping

    total = len(mapping.trace_jobs("philly"))
    rows = []
    for policy in args.only or list(SCHEDULERS):
        model = SCHEDULERS[policy]
        sizes = [total] if policy in WHOLE else []
        if not sizes:
            n = args.start
            while n < total:
                sizes.append(n)
                n *= 2
            sizes.append(total)
        points: list[dict] = []
        for n in sizes:
            if len(points) >= 2:
                s = slope(points)
                predicted = points[-1]["sim_s"] * (n / points[-1]["jobs"]) ** s
                if predicted > args.budget:
                    print(f"{policy:8s} {n:6d} jobs: skipped, predicted {predicted:.0f} s", flush=True)
                    break
            r = measure(policy, model, n, timeout=args.budget * 1.5 + 120)
            if r is None:
                print(f"{policy:8s} {n:6d} jobs: over {args.budget * 1.5 + 120:.0f} s, killed", flush=True)
                break
            points.append(r)
            print(f"{policy:8s} {r['jobs']:6d} jobs: map {r['map_s']:6.1f} s, simulate {r['sim_s']:7.1f} s, "
                  f"{r['decisions']:6d} decisions, peak {r['peak_mb']:6.0f} MB, finished {r['finished']}, "
                  f"rejected {r['rejected']}", flush=True)  # fmt: skip
            if r["sim_s"] > args.budget:
                break
        if not points:
            continue
        fit = slope(points)
        within = [p for p in points if p["sim_s"] <= args.budget]
        best = within[-1] if within else points[0]
        last = points[-1]
        def at(seconds: float, last=last, fit=fit) -> float:
            return last["jobs"] * (seconds / last["sim_s"]) ** (1 / fit) if fit and fit > 0 else math.nan

        share = 100 * best["jobs"] / total
        rows.append((policy, model, best["jobs"], share, best["sim_s"], best["peak_mb"], fit,
                     at(600.0), at(3600.0)))  # fmt: skip
    print("\npolicy   model    largest share in budget    simulate   peak MB  log-log slope  "
          "jobs at 10 min, 1 h (fit)")
    for policy, model, n, pct, s, mb, fit, ten, hour in rows:
        print(f"{policy:8s} {model:8s} {n:6d} jobs ({pct:5.1f} %)   {s:7.1f} s  {mb:7.0f}  {fit:13.2f}  "
              f"{ten:9.0f}, {hour:9.0f}")  # fmt: skip


if __name__ == "__main__":
    main()

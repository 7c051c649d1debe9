"""The whole-trace points of notebook 60 (issue 23): CPU time and peak memory of each.

Each point of :func:`dlsched.arena.whole.whole_trace_grid` (a paper's scheduler or one of its
paper's baselines, on every job of the Philly or ITP trace, on the trace's own machines) runs
through :func:`dlsched.arena.experiments.arena_point` in a fresh single-threaded process, so that
its peak memory is its own and a point over ``--timeout`` is killed (and reported so).

Usage::

    python benchmarks/bench_arena_whole.py                       # every whole-trace point (hours)
    python benchmarks/bench_arena_whole.py --max-jobs 8000       # the first 8,000 jobs of each
    python benchmarks/bench_arena_whole.py --traces itp --models oasis --policies fifo oasis
    python benchmarks/bench_arena_whole.py --extra tetris:optimus --max-jobs 8000 --timeout 720

``--extra POLICY:MODEL`` adds a pair the grid leaves out (a baseline of
``whole.SLOW_ON_WHOLE_TRACES``), to measure why. Prints one line per point (CPU and wall seconds,
peak MB, jobs finished, mean JCT) and the total CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time


def one(point: dict) -> dict:
    """Run one arena point in this process; its metrics with CPU / wall seconds and peak MB."""
    from dlsched.arena import experiments as ax

    c0, t0 = time.process_time(), time.perf_counter()
    row = ax.arena_point(point).iloc[0].to_dict()
    return {
        "cpu_s": time.process_time() - c0,
        "wall_s": time.perf_counter() - t0,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        **{k: (v if isinstance(v, str) else float(v)) for k, v in row.items()},
    }


def measure(point: dict, timeout: float) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    cmd = [sys.executable, __file__, "--one", json.dumps(point)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, check=True)
    except subprocess.TimeoutExpired:
        return {"error": f"over {timeout:.0f} s, killed"}
    except subprocess.CalledProcessError as e:
        lines = e.stderr.strip().splitlines()
        return {"error": lines[-1] if lines else f"exit code {e.returncode}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--traces", nargs="+", default=None, help="traces (default: philly itp)")
    ap.add_argument("--models", nargs="+", default=None, help="job models (default: every one run)")
    ap.add_argument("--policies", nargs="+", default=None, help="keep only these policies")
    ap.add_argument("--max-jobs", type=int, default=None, help="the first N jobs of each trace (default all)")
    ap.add_argument("--extra", nargs="+", default=[], metavar="POLICY:MODEL",
                    help="also run these pairs (e.g. a baseline left out of the grid)")
    ap.add_argument("--timeout", type=float, default=3600.0, help="seconds one point may take (default 3600)")
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one(json.loads(args.one))))
        return
    from dlsched.arena import whole

    traces = args.traces or list(whole.WHOLE_TRACES)
    try:
        grid = whole.whole_trace_grid(traces, models=args.models, max_jobs=args.max_jobs)
    except ValueError as exc:
        ap.error(str(exc))
    if args.policies:
        grid = [p for p in grid if p["policy"] in args.policies]
    for item in args.extra:
        pol, sep, model = item.partition(":")
        if not sep:
            ap.error(f"--extra must be POLICY:MODEL, got {item!r}")
        for tr in traces:
            grid.append({"trace": tr, "week": None, "cluster": None, "max_jobs": args.max_jobs,
                         "node_scale": 1.0, "model": model, "policy": pol, "seed": 0})  # fmt: skip
    total = 0.0
    for point in grid:
        r = measure(point, args.timeout)
        where = f"{point['trace']:6s} {point['model']:8s} {point['policy']:12s}"
        if "error" in r:
            print(f"{where} failed: {r['error']}", flush=True)
            continue
        total += r["cpu_s"]
        print(f"{where} {int(r['jobs']):6d} jobs: {r['cpu_s']:7.1f} s CPU / {r['wall_s']:7.1f} s wall, "
              f"peak {r['peak_mb']:6.0f} MB, finished {int(r['finished'])}, "
              f"unfinished {int(r['unfinished'])}, "
              f"mean JCT {r['mean_jct_h']:.3g} h" + (f"  note: {r['note'][:80]}" if r["note"] else ""),
              flush=True)  # fmt: skip
    print(f"total {total:.0f} s CPU over {len(grid)} points")


if __name__ == "__main__":
    main()

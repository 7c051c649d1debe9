"""Optimus at trace scale (issue 23): CPU time of the first n Philly jobs with policy parameters,
and the effect of a non-exact option (``fit="incremental"``) on the schedules.

Two modes:

* ``--sizes N ...`` (default 1,000 and 8,000): each run in a fresh single-threaded process, the
  first ``N`` Philly jobs in the arena's mapping (``bench_arena_scale.one``, the same jobs and
  cluster), with the Optimus parameters of ``--param KEY=VALUE`` (the value read as a Python
  literal, else a string; repeatable); prints CPU / wall seconds, decisions, peak MB and the
  log-log slope of the CPU seconds over the sizes. ``--whole`` adds the whole trace.
* ``--compare``: the default Optimus against the one with ``--param``, on the paper's own
  workload (Sec. 6.1, :func:`dlsched.optimus.experiments.simulate_scheme`, seeds ``--seeds``) and
  on the first ``--compare-sizes`` Philly jobs (default 40 and 1,000): per-job JCT differences
  (how many jobs differ, the largest relative difference, the mean JCT of each), and how many
  (job, slot) allocations differ.

Usage::

    python benchmarks/bench_optimus_scale.py --sizes 40 160 --param fit=incremental
    python benchmarks/bench_optimus_scale.py --compare --param fit=incremental
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_arena_scale import parse_params  # noqa: E402  (--param KEY=VALUE, the same reading)


def _philly(n: int | None, params: dict):
    """Simulate Optimus with ``params`` on the first ``n`` Philly jobs (None: all)."""
    from dlsched.arena import mapping
    from dlsched.core.simulator import simulate

    df = mapping.trace_jobs("philly")
    if n is not None and n < len(df):
        attrs = dict(df.attrs)
        df = df.iloc[:n].copy()
        df.attrs.update(attrs)
    wl = mapping.map_jobs(df, "optimus", np.random.default_rng(0))
    c0, t0 = time.process_time(), time.perf_counter()
    res = simulate(wl, mapping.make_policy("optimus", wl, **params), seed=0)
    return res, time.process_time() - c0, time.perf_counter() - t0


def one(n: int | None, params: dict) -> dict:
    res, cpu, wall = _philly(n, params)
    return {
        "jobs": len(res.jobs), "cpu_s": cpu, "wall_s": wall, "decisions": int(res.decisions),
        "end_slot": int(res.end_slot),
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "finished": int((res.jobs["status"] == "finished").sum()),
    }  # fmt: skip


def measure(n: int | None, params: dict, timeout: float) -> dict | None:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    cmd = [sys.executable, __file__, "--one", str(n if n is not None else 0), json.dumps(params)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, check=True)
    except subprocess.TimeoutExpired:
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def _slot_allocs(res) -> dict:
    """(job, slot) -> (ps, workers) from the result's allocation intervals."""
    out: dict = {}
    iv = res.intervals
    cols = (iv["job"], iv["role"], iv["count"], iv["first_slot"], iv["last_slot"])
    for j, role, c, a, b in zip(*cols, strict=True):
        for t in range(int(a), int(b) + 1):
            p, w = out.get((int(j), t), (0, 0))
            out[(int(j), t)] = (p + int(c), w) if role == "ps" else (p, w + int(c))
    return out


def diff(base, other) -> dict:
    """Per-job JCT and per-(job, slot) allocation differences of two simulation results."""
    a = base.jobs.set_index("job_id")
    b = other.jobs.set_index("job_id")
    ja = a["jct_seconds"].astype(float)  # NaN for an unfinished job
    jb = b["jct_seconds"].astype(float).reindex(ja.index)
    same = ja.to_numpy() == jb.to_numpy()
    rel = ((jb - ja).abs() / ja.abs().clip(lower=1e-12)).to_numpy()
    sa, sb = _slot_allocs(base), _slot_allocs(other)
    keys = set(sa) | set(sb)
    n_diff = sum(sa.get(k) != sb.get(k) for k in keys)
    return {
        "jobs": len(ja), "jobs_jct_differ": int(np.sum(~(same | (ja.isna() & jb.isna()).to_numpy()))),
        "max_rel_jct_diff": float(np.nanmax(rel)) if rel.size else 0.0,
        "mean_jct_base": float(ja.mean()), "mean_jct_other": float(jb.mean()),
        "job_slots": len(keys), "job_slots_alloc_differ": int(n_diff),
    }  # fmt: skip


def compare(params: dict, seeds: list[int], sizes: list[int]) -> None:
    from dlsched.optimus.experiments import simulate_scheme

    for seed in seeds:
        base = simulate_scheme({"scheme": "optimus", "seed": seed})
        other = simulate_scheme({"scheme": "optimus", "seed": seed, "policy_params": params})
        print(f"paper workload (Sec. 6.1) seed {seed}: {json.dumps(diff(base, other))}", flush=True)
    for n in sizes:
        base, c0, _ = _philly(n, {})
        other, c1, _ = _philly(n, params)
        d = json.dumps(diff(base, other))
        print(f"first {n} Philly jobs: {d}, cpu {c0:.1f} s -> {c1:.1f} s", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 8000])
    ap.add_argument("--whole", action="store_true", help="also the whole trace")
    ap.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                    help="Optimus parameter")
    ap.add_argument("--budget", type=float, default=900.0, help="seconds one run may take")
    ap.add_argument("--compare", action="store_true",
                    help="default vs --param: JCT and allocation differences")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2],
                    help="paper-workload seeds (--compare)")
    ap.add_argument("--compare-sizes", type=int, nargs="+", default=[40, 1000],
                    help="Philly sizes (--compare)")
    args = ap.parse_args()
    if args.one:
        n = int(args.one[0])
        print(json.dumps(one(n or None, json.loads(args.one[1]))))
        return
    params = parse_params(args.param)
    if args.compare:
        compare(params, args.seeds, args.compare_sizes)
        return
    points = []
    for n in [*args.sizes, *([None] if args.whole else [])]:
        r = measure(n, params, args.budget)
        if r is None:
            print(f"{n or 'all'} jobs: over {args.budget:.0f} s, killed", flush=True)
            break
        print(f"{r['jobs']:6d} jobs {params}: {r['cpu_s']:7.1f} s CPU / {r['wall_s']:7.1f} s wall, "
              f"{r['decisions']} decisions, end slot {r['end_slot']}, peak {r['peak_mb']:.0f} MB, "
              f"finished {r['finished']}", flush=True)  # fmt: skip
        if n is not None:
            points.append(r)
    if len(points) >= 2:
        x = np.log([q["jobs"] for q in points])
        y = np.log([max(q["cpu_s"], 1e-3) for q in points])
        print(f"slope (log CPU s on log jobs): {float(np.polyfit(x, y, 1)[0]):.2f}")


if __name__ == "__main__":
    main()

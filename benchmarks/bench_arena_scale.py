"""Trace scale (issue 23): every scheduler on the first 1,000 and 8,000 Philly jobs and on the
whole trace, the log-log slope of its cost between 1,000 and 8,000 jobs, and its peak memory.

Each measurement runs in a fresh single-threaded process (``--one``), so its peak memory is its
own (``ru_maxrss``) and a run over budget is killed. The jobs are the first ``n`` jobs of the whole
trace (submit order), mapped to the scheduler's own job model (``dlsched.arena.mapping``) on the
cluster sized from the trace's own machine counts (Philly's virtual-cluster node table).

The sizes are ``--sizes`` (default 1,000 and 8,000) and then the whole trace (82,182 jobs),
skipped when the slope predicts it would take more than ``--budget`` seconds (the prediction is
printed). The slope is the least-squares slope of log(seconds) on log(jobs) over the ``--sizes``
points; the issue asks for at most 1.2 between 1,000 and 8,000 jobs.

Usage::

    python benchmarks/bench_arena_scale.py                  # every scheduler (about an hour)
    python benchmarks/bench_arena_scale.py --only fifo drf  # the whole-trace baselines only
    python benchmarks/bench_arena_scale.py --only pdors --no-whole  # the slope only
    python benchmarks/bench_arena_scale.py --only aonline --horizon twice-last-arrival
    python benchmarks/bench_arena_scale.py --only specon --param advance=events

``--param KEY=VALUE`` (repeatable) is passed to the policy's constructor (``VALUE`` read as a
Python literal when it is one, else as a string), e.g. SpeCon's ``advance="events"``.

Prints one line per run (jobs, CPU and wall seconds of the simulation, peak MB) and a summary
table of the seconds by ``--clock`` (default CPU time, so that a run on a loaded machine still
measures this code).
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


def horizon_spec(spec: str) -> int | str:
    """``--horizon`` as :func:`dlsched.arena.experiments.simulation_horizon` takes it: ``none``,
    ``twice-last-arrival`` or an integer >= 1 (anything else exits with the message)."""
    from dlsched.arena.experiments import SIM_HORIZONS

    if spec in SIM_HORIZONS:
        return spec
    if spec.isdigit() and int(spec) >= 1:
        return int(spec)
    raise SystemExit(f"--horizon must be one of {list(SIM_HORIZONS)} or an integer >= 1, got {spec!r}")


def parse_params(items: list[str] | None) -> dict[str, object]:
    """``--param KEY=VALUE`` items as a dict; a VALUE that is a Python literal (number, bool,
    None, quoted string) is that value, anything else the string itself."""
    import ast

    out: dict[str, object] = {}
    for item in items or []:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise SystemExit(f"--param must be KEY=VALUE, got {item!r}")
        try:
            out[key] = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            out[key] = raw
    return out


def one(policy: str, model: str, n: int, horizon: str = "none", params: dict | None = None) -> dict:
    """Map the first ``n`` Philly jobs to ``model``, simulate ``policy``; time and memory. A run
    that raises (A_online's rounds past slot 2^62, say) is reported as failed with its message."""
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
    t1, c1 = time.perf_counter(), time.process_time()
    from dlsched.arena.experiments import simulation_horizon

    H = simulation_horizon(horizon_spec(horizon), wl)
    res = simulate(wl, mapping.make_policy(policy, wl, **(params or {})), seed=0, horizon=H)
    t2, c2 = time.perf_counter(), time.process_time()
    status = res.jobs["status"].value_counts().to_dict()
    return {
        "policy": policy, "model": model, "jobs": len(wl.jobs), "map_s": t1 - t0,
        "wall_s": t2 - t1, "cpu_s": c2 - c1,
        "decisions": res.decisions, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "finished": int(status.get("finished", 0)), "rejected": int(status.get("rejected", 0)),
        "never_admitted": int(status.get("pending", 0)), "horizon": H, "params": params or {},
    }  # fmt: skip


def measure(
    policy: str, model: str, n: int, timeout: float, horizon: str = "none", param: list[str] | None = None
) -> dict | None:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    cmd = [sys.executable, __file__, "--one", policy, model, str(n), "--horizon", horizon]
    for item in param or []:
        cmd += ["--param", item]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, check=True)
    except subprocess.TimeoutExpired:
        return None
    except subprocess.CalledProcessError as e:
        lines = e.stderr.strip().splitlines()
        return {"error": lines[-1] if lines else f"exit code {e.returncode}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def _with_clock(r: dict | None, clock: str) -> dict | None:
    """``r`` with ``sim_s`` the simulation's seconds by ``clock`` (a failed run as it is)."""
    if r is None or "error" in r:
        return r
    return {**r, "sim_s": r["cpu_s" if clock == "cpu" else "wall_s"]}


def slope(points: list[dict], key: str = "sim_s") -> float:
    """Least-squares slope of log(seconds) on log(jobs) over ``points`` (NaN below two)."""
    if len(points) < 2:
        return math.nan
    x = np.log([q["jobs"] for q in points])
    y = np.log([max(q[key], 1e-3) for q in points])
    return float(np.polyfit(x, y, 1)[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--one", nargs=3, metavar=("POLICY", "MODEL", "N"), help=argparse.SUPPRESS)
    ap.add_argument("--only", nargs="+", choices=list(SCHEDULERS), help="schedulers to run")
    ap.add_argument("--budget", type=float, default=600.0, help="seconds one run may take (default 600)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 8000], help="sizes for the slope")
    ap.add_argument("--no-whole", action="store_true", help="skip the whole-trace run")
    ap.add_argument("--horizon", default="none",
                    help="simulation horizon: 'none' (default: until every job is done), "
                         "'twice-last-arrival' (2 x (last arrival + 1) slots; jobs not admitted by "
                         "then stay 'never admitted'), or a number of slots")
    ap.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                    help="a parameter of the policy's constructor (repeatable; VALUE a Python literal "
                         "or a string), e.g. --param advance=events for SpeCon")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                    help="seconds of the simulation the table and slope use: CPU time of the run's "
                         "process (default; on an idle machine equal to its wall time, and not "
                         "inflated when other processes share the cores) or wall time")
    args = ap.parse_args()
    try:  # a bad --horizon stops here (exit code 2), before any run
        horizon_spec(args.horizon)
        params = parse_params(args.param)
    except SystemExit as exc:
        ap.error(str(exc))
    if args.one:
        print(json.dumps(one(args.one[0], args.one[1], int(args.one[2]), args.horizon, params)))
        return
    from dlsched.arena import mapping

    total = len(mapping.trace_jobs("philly"))
    rows = []
    for policy in args.only or list(SCHEDULERS):
        model = SCHEDULERS[policy]
        sizes = [n for n in args.sizes if n < total]
        points: list[dict] = []
        for n in sizes:
            r = measure(policy, model, n, timeout=args.budget * 1.5 + 120, horizon=args.horizon,
                        param=args.param)
            r = _with_clock(r, args.clock)
            if r is None:
                print(f"{policy:8s} {n:6d} jobs: over {args.budget * 1.5 + 120:.0f} s, killed", flush=True)
                break
            if "error" in r:  # the run raised: say why, and go on with the next scheduler
                print(f"{policy:8s} {n:6d} jobs: failed: {r['error']}", flush=True)
                break
            points.append(r)
            print(f"{policy:8s} {r['jobs']:6d} jobs: map {r['map_s']:6.1f} s, "
                  f"simulate {r['cpu_s']:7.1f} s CPU / {r['wall_s']:7.1f} s wall, "
                  f"{r['decisions']:6d} decisions, peak {r['peak_mb']:6.0f} MB, finished {r['finished']}, "
                  f"rejected {r['rejected']}, never admitted {r['never_admitted']}", flush=True)  # fmt: skip
        fit = slope(points)
        whole = None
        predicted = math.nan
        if len(points) >= 2:
            predicted = points[-1]["sim_s"] * (total / points[-1]["jobs"]) ** fit
        if not args.no_whole and len(points) == len(sizes):
            if predicted > args.budget:
                print(f"{policy:8s} {total:6d} jobs: skipped, predicted {predicted:.0f} s", flush=True)
            else:
                whole = measure(policy, model, total, timeout=args.budget * 1.5 + 120, horizon=args.horizon,
                                param=args.param)
                whole = _with_clock(whole, args.clock)
                if whole is not None and "error" in whole:
                    print(f"{policy:8s} {total:6d} jobs: failed: {whole['error']}", flush=True)
                    whole = None
                elif whole is None:
                    limit = args.budget * 1.5 + 120
                    print(f"{policy:8s} {total:6d} jobs: killed after {limit:.0f} s", flush=True)
                else:
                    print(f"{policy:8s} {total:6d} jobs: map {whole['map_s']:6.1f} s, simulate "
                          f"{whole['cpu_s']:7.1f} s CPU / {whole['wall_s']:7.1f} s wall, "
                          f"{whole['decisions']:6d} decisions, peak {whole['peak_mb']:6.0f} MB, "
                          f"never admitted {whole['never_admitted']}", flush=True)  # fmt: skip
        secs = {p["jobs"]: p["sim_s"] for p in points}
        rows.append((policy, model, secs, fit, whole, predicted))
    head = "  ".join(f"{n:>8d}" for n in args.sizes)
    if params:
        print(f"\npolicy parameters: {params}")
    print(f"\npolicy   model    {args.clock} seconds at {head} jobs   slope   whole trace (s, peak MB)")
    for policy, model, secs, fit, whole, predicted in rows:
        cells = "  ".join(f"{secs[n]:8.1f}" if n in secs else f"{'-':>8s}" for n in args.sizes)
        w = (f"{whole['sim_s']:.1f} s, {whole['peak_mb']:.0f} MB" if whole
             else f"not run (predicted {predicted:.0f} s)")
        print(f"{policy:8s} {model:8s}            {cells}   {fit:5.2f}   {w}")


if __name__ == "__main__":
    main()

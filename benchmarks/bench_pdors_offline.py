"""Benchmark: the offline optimum of PD-ORS's DMLRS (time-indexed MILP, HiGHS) at notebook 31's sizes.

Instances come from the registry (``registry.make_workload("pdors", seed=s, n_jobs=.., n_machines=..,
T=..)``: the paper's job ranges, EC2 GPU machines, internal vs external bandwidth). For each size
and seed the script solves :func:`dlsched.pdors.offline.solve_offline` with and without
co-location and prints the HiGHS status, the solve time, the objective, the gap and the MILP size.
Every solution is re-checked independently inside ``solve_offline``.

Sizes (``JOBSxMACHINESxT``; notebook 31 uses 6-10 jobs, 4-6 machines, T = 8-10). The default
sizes solve to proven optimality within a few seconds per seed for seeds 0-4. Run time has a heavy
tail: over seeds 0-9, about one instance in ten with 8-10 jobs needs 10-20 s or more (e.g.
``10x6x10`` seed 2 does not close its 0.1 % gap in 20 s), so pass a ``--time-limit`` and report
``status`` when using other sizes or seeds. The ablation without co-location
(``colocation=False``, columns ``nocoloc``/``nc_s``) is a pure packing problem and can be slower
(``8x5x10`` seed 3: 4.7 % gap after 20 s); its line says so when it stops at the time limit.

Run: ``.venv/bin/python benchmarks/bench_pdors_offline.py [--seeds 5] [--sizes 6x4x8 8x5x10]``.
"""

from __future__ import annotations

import argparse
import statistics

from dlsched import registry
from dlsched.pdors.offline import solve_offline

DEFAULT_SIZES = ("6x4x8", "8x5x10", "10x4x8")


def parse_size(text: str) -> tuple[int, int, int]:
    """``"8x5x10"`` -> ``(8, 5, 10)``: jobs, machines, horizon."""
    try:
        jobs, machines, T = (int(v) for v in text.lower().split("x"))
    except ValueError:
        msg = f"size must look like JOBSxMACHINESxT (e.g. 8x5x10), got {text!r}"
        raise argparse.ArgumentTypeError(msg) from None
    if min(jobs, machines, T) < 1:
        raise argparse.ArgumentTypeError(f"size entries must be >= 1, got {text!r}")
    return jobs, machines, T


def bench_size(jobs: int, machines: int, T: int, seeds: int, time_limit: float) -> list[float]:
    """Solve every seed of one size; print one line each; return the co-located solve times."""
    print(f"\n{jobs} jobs, {machines} machines, T = {T} (time limit {time_limit:g} s)")
    head = ("seed", "status", "solve_s", "utility", "gap", "vars", "rows", "admitted", "nocoloc", "nc_s")
    print("{:>4} {:>10} {:>8} {:>9} {:>8} {:>6} {:>6} {:>8} {:>9} {:>6}".format(*head))
    times = []
    for seed in range(seeds):
        wl = registry.make_workload("pdors", seed=seed, n_jobs=jobs, n_machines=machines, T=T)
        co = solve_offline(wl, time_limit=time_limit)
        ext = solve_offline(wl, time_limit=time_limit, colocation=False)
        times.append(co.seconds)
        n_vars, n_rows = co.size
        note = "" if ext.status == "optimal" else f"  (no co-location: {ext.status}, gap {ext.mip_gap:.1e})"
        print(f"{seed:>4} {co.status:>10} {co.seconds:>8.2f} {co.objective:>9.3f} {co.mip_gap:>8.1e} "
              f"{n_vars:>6} {n_rows:>6} {len(co.admitted):>4}/{jobs:<3} "
              f"{ext.objective:>9.3f} {ext.seconds:>6.2f}{note}")
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5, help="seeds 0 .. N-1 per size")
    ap.add_argument("--sizes", type=parse_size, nargs="+", default=[parse_size(s) for s in DEFAULT_SIZES],
                    help=f"JOBSxMACHINESxT (default: {' '.join(DEFAULT_SIZES)})")
    ap.add_argument("--time-limit", type=float, default=60.0, help="HiGHS time limit per solve, seconds")
    args = ap.parse_args()
    if args.seeds < 1:
        ap.error(f"--seeds must be >= 1, got {args.seeds}")
    summary = []
    for jobs, machines, T in args.sizes:
        times = bench_size(jobs, machines, T, args.seeds, args.time_limit)
        summary.append((f"{jobs}x{machines}x{T}", statistics.median(times), max(times)))
    print("\nsize        median_s   max_s")
    for name, med, top in summary:
        print(f"{name:<10} {med:>9.2f} {top:>7.2f}")


if __name__ == "__main__":
    main()

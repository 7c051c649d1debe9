"""Time (and optionally profile) stored paper-scale points, and check they recompute identically.

The results store records how long every point took when it was computed. This script
recomputes a chosen set of points with today's code, prints the stored seconds beside
the new seconds, and compares the recomputed frame with the stored one exactly (the
audit's comparison, wall-clock columns left out). It is the tool for speeding a wing up
without changing a result::

    python benchmarks/bench_store_points.py --fn pdors.experiments:job_run --slowest 3
    python benchmarks/bench_store_points.py --fn arena --where policy=pdors --slowest 2 --profile 25
    python benchmarks/bench_store_points.py --fn optimus.experiments:job_run --random 5 --seed 1

``--fn`` matches a substring of the point's function path; ``--where k=v`` filters on
parameters (string comparison). Exit code 1 if any point differs from the store.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import sys
import time

from dlsched import store as st


def choose(
    entries: dict[str, dict], fn: str, where: list[str], slowest: int, rand: int, seed: int
) -> list[str]:
    """Keys of the points to recompute: the ``slowest`` by stored seconds plus ``rand`` random others."""
    conds = [w.split("=", 1) for w in where]
    keys = [
        k for k, e in entries.items()
        if fn in e["fn"] and all(str(e["params"].get(a)) == b for a, b in conds)
    ]
    keys.sort(key=lambda k: (-float(entries[k].get("seconds", 0.0)), k))
    picked = keys[:slowest]
    rest = sorted(set(keys) - set(picked))
    picked += random.Random(seed).sample(rest, min(rand, len(rest)))
    return picked


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fn", required=True, help="substring of the experiment function path")
    ap.add_argument("--where", action="append", default=[], help="param=value filter (repeatable)")
    ap.add_argument("--slowest", type=int, default=1, help="the N slowest stored points")
    ap.add_argument("--random", type=int, default=0, help="plus N random points")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--profile", type=int, default=0, help="print the top N functions by cumulative time")
    args = ap.parse_args(argv)

    store = st.ResultStore()
    entries = store.entries()
    keys = choose(entries, args.fn, args.where, args.slowest, args.random, args.seed)
    if not keys:
        print(f"no stored point matches --fn {args.fn!r} {args.where}", file=sys.stderr)
        return 2
    bad = 0
    total_old = total_new = 0.0
    for key in keys:
        entry = entries[key]
        prof = cProfile.Profile() if args.profile else None
        t0 = time.perf_counter()
        if prof:
            prof.enable()
        result = st._audit_one(store, key, entry)
        if prof:
            prof.disable()
        wall = time.perf_counter() - t0
        old = float(entry.get("seconds", 0.0))
        total_old += old
        total_new += result.seconds
        print(f"{result.status:8s} stored {old:7.1f} s  now {result.seconds:7.1f} s  "
              f"(x{old / max(result.seconds, 1e-9):4.1f})  {entry['fn'].split('.', 1)[1]} {entry['params']}")
        if result.status not in ("ok", "skipped"):
            bad += 1
            print("   ", result.detail[:400])
        if prof:
            s = io.StringIO()
            pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(args.profile)
            print(s.getvalue())
            s = io.StringIO()
            pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(args.profile)
            print(s.getvalue())
        del wall
    print(f"{len(keys)} point(s): stored {total_old:.1f} s, now {total_new:.1f} s, {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

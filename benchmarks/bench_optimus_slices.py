"""Optimus on slices of the Philly trace (issue 23): CPU seconds and a digest of the schedule.

The whole trace takes about ten minutes of one core; a slice of 1,500 consecutive jobs (submit
order, submit times shifted to start at 0, the arena's Optimus mapping and the trace's own
cluster) takes 15-30 s and has the whole trace's mix of large shrinking jobs, so two code versions
can be compared side by side (run this script in each tree, alternately, on the same machine and
load): the digest (sha256 of the job table and the allocation intervals) must be the same, the
CPU seconds say which is faster.

Usage::

    python benchmarks/bench_optimus_slices.py                       # jobs 75,000-76,500 and 30,000-31,500
    python benchmarks/bench_optimus_slices.py --slices 0:1500 --repeat 3
    python benchmarks/bench_optimus_slices.py --policy tetris

Prints one line per run: the slice, CPU seconds of the simulation, decisions, digest.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time

import numpy as np


def parse_slice(text: str) -> tuple[int, int]:
    """``"LO:HI"`` -> (LO, HI) with 0 <= LO < HI (anything else exits with the message)."""
    try:
        lo, hi = (int(x) for x in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--slices: expected LO:HI, got {text!r}") from None
    if not 0 <= lo < hi:
        raise argparse.ArgumentTypeError(f"--slices: need 0 <= LO < HI, got {text!r}")
    return lo, hi


def run_slice(policy: str, lo: int, hi: int) -> dict:
    """Simulate ``policy`` on Philly jobs ``lo:hi``; CPU seconds, decisions and the digest."""
    from dlsched.arena import mapping
    from dlsched.core.simulator import simulate

    df = mapping.trace_jobs("philly")
    if hi > len(df):
        raise SystemExit(f"--slices: the Philly trace has {len(df)} jobs, asked for up to {hi}")
    attrs = dict(df.attrs)
    part = df.iloc[lo:hi].copy().reset_index(drop=True)
    part["submit_time"] -= part["submit_time"].iloc[0]
    part.attrs.update(attrs)
    wl = mapping.map_jobs(part, policy, np.random.default_rng(0))
    pol = mapping.make_policy(policy, wl)
    t0 = time.process_time()
    res = simulate(wl, pol, seed=0)
    cpu = time.process_time() - t0
    digest = hashlib.sha256(res.jobs.to_csv().encode() + res.runs.to_csv().encode()).hexdigest()[:16]
    return {"slice": f"{lo}:{hi}", "cpu_s": cpu, "decisions": res.decisions, "digest": digest}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--slices", type=parse_slice, nargs="+", default=[(75000, 76500), (30000, 31500)])
    ap.add_argument("--policy", choices=("optimus", "tetris"), default="optimus")
    ap.add_argument("--repeat", type=int, default=1, help="runs per slice (default 1)")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error(f"--repeat must be >= 1, got {args.repeat}")
    for lo, hi in args.slices:
        for _ in range(args.repeat):
            r = run_slice(args.policy, lo, hi)
            print(f"{args.policy} jobs {r['slice']}: cpu {r['cpu_s']:.1f} s, {r['decisions']} decisions, "
                  f"digest {r['digest']}", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

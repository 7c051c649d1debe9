"""A_online's rounds on the first n Philly jobs (issue 23: why no reading finishes a whole trace).

A_online (Alg. 1) decides at time points that double, :math:`\\tau_i = 2^{i-1}`, and every job a
round admits starts at :math:`\\tau_i` (Alg. 3-4 line 2). This script runs it on the first ``n``
Philly jobs (0: the whole trace) with the arena's mapping and prints, per round, the window, the
jobs considered and admitted and the price base :math:`\\theta_1`; then the job counts by status
and the CPU seconds. ``--F`` sets :math:`F_1 = F_2` (the paper's price cap, a reading of notebook
42), ``--horizon twice-last-arrival`` stops the run at twice the last arrival slot plus one.

Usage::

    python benchmarks/bench_aonline_rounds.py                      # 8,000 jobs: stops past slot 2^62
    python benchmarks/bench_aonline_rounds.py 8000 --F 1e-8        # every job finishes, late
    python benchmarks/bench_aonline_rounds.py 0 --horizon twice-last-arrival
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int, nargs="?", default=8000,
                    help="first n Philly jobs (0: the whole trace; default 8000)")
    ap.add_argument("--F", type=float, default=None, help="F1 = F2 (default: the policy's, 1)")
    ap.add_argument("--horizon", default=None, help="twice-last-arrival or an integer slot")
    args = ap.parse_args(argv)

    from dlsched.arena import mapping
    from dlsched.arena.experiments import simulation_horizon
    from dlsched.core.simulator import simulate

    df = mapping.trace_jobs("philly")
    if 0 < args.n < len(df):
        attrs = dict(df.attrs)
        df = df.iloc[: args.n].copy()
        df.attrs.update(attrs)
    wl = mapping.map_jobs(df, "aonline", np.random.default_rng(0), delays="cluster")
    extra = {} if args.F is None else {"F1": args.F, "F2": args.F}
    pol = mapping.make_policy("aonline", wl, **extra)
    hz = args.horizon if args.horizon is None or not args.horizon.isdigit() else int(args.horizon)
    H = simulation_horizon(hz, wl)
    print(f"{len(wl.jobs)} jobs, S = {wl.cluster.n_servers} servers, T = {pol.T}, U = {pol.U}, "
          f"F = {pol.F1:g}, last arrival slot {max(s.arrival for s in wl.jobs)}, horizon {H}")  # fmt: skip
    c0 = time.process_time()
    try:
        res = simulate(wl, pol, seed=0, horizon=H)
        counts = res.jobs["status"].value_counts().to_dict()
    except ValueError as e:
        counts = {"stopped": str(e).split(":", 1)[1].strip()[:160]}
    cpu = time.process_time() - c0
    print(f"{'round':>5} {'tau':>22} {'window end':>22} {'considered':>10} {'admitted':>8} {'theta1':>9}")
    for r in pol.rounds:
        print(f"{r.round:5d} {r.tau:22d} {r.window_end:22d} {len(r.considered):10d} {len(r.admitted):8d} "
              f"{r.theta1:9.3g}")  # fmt: skip
    print("jobs by status:", counts)
    print(f"CPU {cpu:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

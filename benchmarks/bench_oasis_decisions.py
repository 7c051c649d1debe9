"""Benchmark: OASiS decision time per job (Algorithm 2 + Algorithm 1 bookkeeping), and the fast
path against the literal recursive DP_COST.

1. Per-job decision time, median and p95, for a full OASiS run with the paper's job distribution
   (dlsched.oasis.model.oasis_workload): T = 100 with 40 + 40 servers, and T = 300 with
   H = K = 50. The paper reports under 1 s per job (100 slots, 80 servers); target: 10 ms at T = 100.
2. Speed ratio of the fast path over the literal transcription of the paper's recursive DP_COST
   (memoized as the paper says) on sizes where the literal one finishes; costs must be identical.

Run: ``make benchmark`` or ``.venv/bin/python benchmarks/bench_oasis_decisions.py``.
"""

from __future__ import annotations

import math
import time

import numpy as np

from dlsched import registry
from dlsched.core.jobs import Workload
from dlsched.core.simulator import simulate
from dlsched.oasis.policy import OASiS, dp_cost_literal, price_parameters


def decision_times(n_jobs: int, T: int, H: int, K: int, seed: int = 0) -> dict:
    wl = registry.make_workload("oasis", seed=seed, n_jobs=n_jobs, T=T, H=H, K=K)
    pol = OASiS.from_workload(wl)
    t0 = time.perf_counter()
    res = simulate(wl, pol, seed=seed)
    wall = time.perf_counter() - t0
    secs = np.array(list(pol.decision_seconds.values()))
    return {
        "T": T,
        "H": H,
        "K": K,
        "jobs": n_jobs,
        "admitted": int(res.jobs["admitted"].sum()),
        "median_ms": 1e3 * float(np.median(secs)),
        "p95_ms": 1e3 * float(np.percentile(secs, 95)),
        "max_ms": 1e3 * float(secs.max()),
        "run_s": wall,
    }


def literal_ratio(seed: int, T: int = 12, epochs: int = 8, chunks: int = 10) -> tuple[float, float, int]:
    """Fast path vs the literal recursion for one probe job of E*N = epochs*chunks chunk-passes,
    after the jobs of a small synthetic OASiS workload have raised the prices."""
    from dlsched.core.jobs import JobSpec, OasisModel, Sigmoid

    base = registry.make_workload(
        "synthetic", seed=seed, model="oasis", n_jobs=10, n_servers=6, horizon=T, arrival_span=2
    )
    rng = np.random.default_rng(seed)
    model = OasisModel(
        epochs=epochs,
        chunks=chunks,
        minibatches=4,
        tau=float(rng.uniform(0.03, 0.08)),
        comm=0.01,
        worker_bw=1.0,
        ps_bw=10.0,
    )
    probe = JobSpec(
        999, 0, model, {"gpu": 1, "cpu": 2, "mem": 4}, {"cpu": 2, "mem": 4}, utility=Sigmoid(80.0, 0.3, 6.0)
    )
    wl = Workload(base.cluster, (*base.jobs, probe), horizon=T)
    pol = OASiS(price_parameters(wl))
    simulate(base, pol, seed=0)
    st = pol.state()
    c = wl.cluster
    wd, pd_ = c.vector(probe.worker_demand), c.vector(probe.ps_demand)
    D = probe.model.epochs * probe.model.chunks
    t0 = time.perf_counter()
    best = pol.search(probe, prune=False)  # every completion slot, like the literal Algorithm 2
    fast = time.perf_counter() - t0
    t0 = time.perf_counter()
    for t_hat in range(probe.arrival, T):  # Algorithm 2 lines 2-8 with the literal DP
        cost, sched = dp_cost_literal(
            probe,
            t_hat,
            D,
            st["capacity_w"],
            st["capacity_p"],
            st["used_w"],
            st["used_p"],
            st["price_w"],
            st["price_p"],
            wd,
            pd_,
        )
        f = best.costs_by_completion
        ref = math.inf if f is None else f[t_hat - probe.arrival]
        assert cost == ref or (math.isinf(cost) and math.isinf(ref)), (seed, t_hat, cost, ref)
        if t_hat == best.completion:
            assert sched == best.chunks, (seed, sched, best.chunks)
    literal = time.perf_counter() - t0
    return fast, literal, D


def main() -> int:
    print("OASiS decision time per job (full run, paper's job distribution)")
    print(
        f"{'T':>4} {'H':>3} {'K':>3} {'jobs':>5} {'admitted':>8} {'median ms':>9} {'p95 ms':>8} {'max ms':>8} {'run s':>7}"  # noqa: E501
    )
    for n_jobs, T, H, K in ((200, 100, 40, 40), (400, 300, 50, 50)):
        r = decision_times(n_jobs, T, H, K)
        print(
            f"{r['T']:>4} {r['H']:>3} {r['K']:>3} {r['jobs']:>5} {r['admitted']:>8} {r['median_ms']:>9.2f} "
            f"{r['p95_ms']:>8.2f} {r['max_ms']:>8.2f} {r['run_s']:>7.2f}"
        )
    print("paper: < 1 s per job at T = 100 with 80 servers; target 10 ms")
    print()
    print("fast path vs literal recursive DP_COST (identical costs for every completion slot and the")
    print("same schedule asserted; T = 12, prices raised by 10 other jobs)")
    print(f"{'seed':>4} {'E*N':>5} {'fast ms':>8} {'literal ms':>10} {'speed-up':>9}")
    ratios = []
    for seed in range(5):
        fast, literal, D = literal_ratio(seed)
        ratios.append(literal / fast)
        print(f"{seed:>4} {D:>5} {1e3 * fast:>8.2f} {1e3 * literal:>10.1f} {literal / fast:>9.0f}x")
    print(f"median speed-up {np.median(ratios):.0f}x (aim: >= 100x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""PD-ORS's LP floor on the Philly trace (issue 23): the CPU time spent inside HiGHS against the
whole simulation, per decision, for the first ``n`` Philly jobs (the arena's mapping, model
``pdors``, 3600-s slots, the trace's own cluster), and an extrapolation to the whole trace.

Issue 23 asks for each scheduler on the whole trace (82,182 jobs) within 10 minutes of CPU, or,
where the scheduler's own algorithm sets a higher floor (PD-ORS: the LP of Algorithm 4's external
case, solved for every slot state a search meets), within 1.5 times of that floor. This script
measures the floor; it changes nothing in the schedule (verify with ``--check``).

What is measured (CPU seconds, ``time.process_time``, one thread; run it with
``OMP_NUM_THREADS=1``):

* ``highs``: inside the native HiGHS calls PD-ORS makes per LP (``_Highs()``, ``passOptions``,
  ``passModel``, ``run``, ``getModelStatus``, ``getSolution``, ``getInfo``), timed around each
  call through a thin proxy of scipy's ``_highspy._core`` module (the floor of issue 23);
* ``lpcall``: the whole of :func:`dlsched.pdors.policy._solve_highs_lp` (the above plus setting the
  costs and row bounds and reading the solution back);
* ``search``: :meth:`PDORS.search` (Algorithm 2 for one job: all slot states, DP, LPs, rounding);
* ``decide``: :meth:`PDORS.decide` (search plus admission, dual objective, commit, the decision);
* ``sim``: the whole :func:`dlsched.core.simulator.simulate`.

Per decision it records the completion slots searched (DP steps), the slot states evaluated
(:meth:`PDORS.slot_theta` calls, i.e. cache misses of the search's slot cache), the LP solves,
the LP sizes (machine groups ``G``, levels ``m`` in the block-diagonal LP, rows, columns) and
whether the job was admitted.

The floor of the whole trace is extrapolated (``--fit``) from the HiGHS seconds of the runs:
a least-squares line of log(HiGHS seconds) on log(n) over the sizes measured (the usual power
law, with the slope's standard error and the spread of the whole-trace prediction from
slope +- 1 s.e.), and, because the cost per decision is a function of the decision's state, a
second model: the mean HiGHS seconds per decision over the last quarter of the largest run times
82,182 (a lower bound if the cost per decision still grows); and a third, the HiGHS seconds of a
decision as a power law of its local load (jobs arrived within ``W`` slots before it), summed
over the whole trace's own loads (:func:`load_model`).

Measured 2026-11-28 (CPU seconds on a loaded 2-core machine, load average 5-11, which inflates
the memory-bound parts; ``--fit`` of the saved runs):

=====  =======  =====  ===========  ==========  ======  ===============  ============
n      sim s    HiGHS  sim / HiGHS  dual_obj.   LPs     states/decision  HiGHS/LP ms
=====  =======  =====  ===========  ==========  ======  ===============  ============
250    51.5     12.3   4.20         29.1        1,673   8                7.3
500    121.7    45.7   2.66         ~49         5,899   13               7.7
1,000  384.9    154.8  2.49         142.0       20,738  21               7.5
2,000  481.1    213.7  2.25         131.6       31,336  24               6.8
=====  =======  =====  ===========  ==========  ======  ===============  ============

(2,000: stopped by ``--budget 480`` after 1,347 decisions.) Whole-trace floor: 3.7 h (the last
quarter's 163 ms per decision times 82,182), 4.4-11.8 h (load model), 139 h (power law in n,
slope 1.83 +- 0.04, an upper bound: the cost per decision levels off past 1,000 decisions).

After the exact speed-ups of 2026-11-28 (slot-state ids for the search's theta cache, the internal
case over the demanded resources, one-slot price initialisation, vectorised commits, placements
built when read: :mod:`dlsched.pdors.policy`'s docstring; the same LPs, digests and stored points),
measured the same day on the same machine (2 cores, load average 2.4-3.5; the ratio moves by
about +-0.05 from run to run with the load; 500 and 1,000 before the last, small change of
``_commit``):

=====  ==============  ===============  ===========  =============================================
n      sim s           HiGHS s          sim / HiGHS  before the speed-ups (same day)
=====  ==============  ===============  ===========  =============================================
250    16.6-19.9       10.4-13.4        1.49-1.57    sim 22.3, HiGHS 12.0: 1.86
500    59.2-60.2       41.5-42.4        1.42-1.43
1,000  255.9           181.6            1.41
=====  ==============  ===============  ===========  =============================================

The whole trace (``--one 82182 --budget 5400``, 2026-11-28 night, alone on one core; the
budget stopped it): its horizon ``T = 3286`` is longer than any prefix's, so each decision
searches more slots. First 8,026 decisions (7,922 admitted): sim 5,403 s, HiGHS 3,657 s (649,252
LPs, 5.63 ms each), sim / HiGHS 1.48, peak RSS 1.44 GB; per decision by quarter 277, 612, 645,
1,159 ms (HiGHS 187, 413, 440, 782 ms). The prefix runs above underestimate the whole trace:
at the last quarter's rate the floor is about 17 h inside HiGHS.

What is left outside HiGHS is mostly the binding's conversions around each solve (the solution's
lists and their arrays, the row bounds, the solver's destruction: ``_solve_highs_lp`` minus
``highs``, 1.2 s at 250 and 28 s at 1,000), then step 11's rounding, the LP set-up of
:meth:`SlotSolver.lp`, the DP steps and the internal case.

Usage::

    OMP_NUM_THREADS=1 python benchmarks/bench_pdors_floor.py --sizes 250 500 1000
    OMP_NUM_THREADS=1 python benchmarks/bench_pdors_floor.py --one 2000 --budget 1500  # stops early
    python benchmarks/bench_pdors_floor.py --fit out250.json out500.json out1000.json
    python benchmarks/bench_pdors_floor.py --check   # instrumented run == tests' 60-job digest

Each size runs in a fresh process (``--one N --json FILE``); ``--budget`` (CPU seconds of the
simulation) stops a run at the first decision over it and reports the decisions made so far
(marked ``partial``).
"""

# ruff: noqa: E501  (the report lines are long f-strings)
from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
import types

import numpy as np

WHOLE = 82182


class _Budget(Exception):
    pass


class _Meter:
    """Counters of the current decision and the list of finished decisions."""

    def __init__(self) -> None:
        self.cur: dict | None = None
        self.rows: list[dict] = []
        self.highs = 0.0
        self.lpcall = 0.0
        self.sim_start: float | None = None
        self.dual = 0.0  # PDORS.dual_objective
        self.commit = 0.0  # PDORS._commit

    def reset(self) -> None:
        """Forget what was measured so far (the policy probe of ``mapping.make_policy``)."""
        self.__init__()

    def start(self, job: int, arrival: int) -> None:
        self.cur = {
            "job": job,
            "arrival": arrival,
            "dp_steps": 0,
            "slot_thetas": 0,
            "lps": 0,
            "highs": 0.0,
            "lpcall": 0.0,
            "G": [],
            "m": [],
            "rows": [],
            "cols": [],
            "runs": 0,
            "slot_theta_cpu": 0.0,
            "dp_cpu": 0.0,
        }


M = _Meter()


def _proxy_highs(real):
    """A stand-in for scipy's ``_highspy._core`` whose ``_Highs`` times every native call."""

    class TimedHighs:
        __slots__ = ("_h",)

        def __init__(self):
            c = time.process_time()
            self._h = real._Highs()
            M.highs += time.process_time() - c

        def __getattr__(self, name):
            fn = getattr(self._h, name)

            def timed(*a, **k):
                c = time.process_time()
                try:
                    return fn(*a, **k)
                finally:
                    M.highs += time.process_time() - c

            return timed

    mod = types.ModuleType("timed_highs")
    mod.__dict__.update({k: getattr(real, k) for k in dir(real) if not k.startswith("__")})
    mod._Highs = TimedHighs
    return mod


def instrument(budget: float | None):
    """Patch the pdors policy module with the meters (no change to any value it computes)."""
    from dlsched.pdors import policy as P

    P._highs = _proxy_highs(P._highs)
    real_solve, real_dp, real_theta, real_search = (
        P._solve_highs_lp,
        P._dp_step,
        P.PDORS.slot_theta,
        P.PDORS.search,
    )
    real_groups = P.SlotSolver._groups
    real_decide, real_dual, real_commit = P.PDORS.decide, P.PDORS.dual_objective, P.PDORS._commit

    def dual(self):
        c0 = time.process_time()
        r = real_dual(self)
        M.dual += time.process_time() - c0
        return r

    def commit(self, spec, best):
        c0 = time.process_time()
        r = real_commit(self, spec, best)
        M.commit += time.process_time() - c0
        return r

    def solve(lp, c, b):
        h0, c0 = M.highs, time.process_time()
        r = real_solve(lp, c, b)
        M.lpcall += time.process_time() - c0
        cur = M.cur
        if cur is not None:
            cur["lps"] += 1
            cur["rows"].append(int(lp.num_row_))
            cur["cols"].append(int(lp.num_col_))
            cur["m"].append(int(lp.num_col_) // (2 * cur["_G"]) if cur.get("_G") else 0)
            cur["highs"] += M.highs - h0
        return r

    def groups(self):
        out = real_groups(self)
        if M.cur is not None:
            M.cur["_G"] = len(out[0])
            M.cur["G"].append(len(out[0]))
        return out

    def dp(prev, cost):
        c0 = time.process_time()
        r = real_dp(prev, cost)
        if M.cur is not None:
            M.cur["dp_steps"] += 1
            M.cur["dp_cpu"] += time.process_time() - c0
        return r

    def theta(self, job, t, skip_dominated=True):
        c0 = time.process_time()
        r = real_theta(self, job, t, skip_dominated)
        if M.cur is not None:
            M.cur["slot_thetas"] += 1
            M.cur["slot_theta_cpu"] += time.process_time() - c0
        return r

    def search(self, spec, prune=True):
        if budget is not None and M.sim_start is not None and time.process_time() - M.sim_start > budget:
            raise _Budget()
        M.start(int(spec.job_id), int(spec.arrival))
        c0 = time.process_time()
        r = real_search(self, spec, prune)
        M.cur["search"] = time.process_time() - c0
        M.cur["admitted"] = r.completion is not None and r.payoff > 0
        M.cur["completion"] = None if r.completion is None else int(r.completion)
        M.cur.pop("_G", None)
        M.rows.append(M.cur)
        M.cur = None
        return r

    def decide(self, t, view):
        c0 = time.process_time()
        n0 = len(M.rows)
        try:
            return real_decide(self, t, view)
        finally:
            spent = time.process_time() - c0
            new = M.rows[n0:]
            # the decide time of the slot, shared by its decisions in proportion to their search
            tot = sum(r["search"] for r in new) or 1.0
            for r in new:
                r["decide"] = spent * r["search"] / tot
            if new:
                new[-1]["slot_overhead"] = spent - tot

    P._solve_highs_lp, P._dp_step, P.SlotSolver._groups = solve, dp, groups
    P.PDORS.slot_theta, P.PDORS.search, P.PDORS.decide = theta, search, decide
    P.PDORS.dual_objective, P.PDORS._commit = dual, commit
    # the subclass (pdors_nocoloc) inherits them


def one(n: int, budget: float | None) -> dict:
    """Simulate PD-ORS on the first ``n`` Philly jobs (tests/_trace_identity.py's run_case)."""
    from dlsched.arena import mapping
    from dlsched.core.simulator import simulate

    instrument(budget)
    df = mapping.trace_jobs("philly")
    if n < len(df):
        attrs = dict(df.attrs)
        df = df.iloc[:n].copy()
        df.attrs.update(attrs)
    wl = mapping.map_jobs(df, "pdors", np.random.default_rng(0))
    pol = mapping.make_policy("pdors", wl)  # runs a probe of every policy (searches, LPs)
    M.reset()
    c0, w0 = time.process_time(), time.perf_counter()
    M.sim_start = c0
    partial = False
    try:
        res = simulate(wl, pol, seed=0)
        decisions = int(res.decisions)
    except _Budget:
        partial, decisions = True, None
    sim, wall = time.process_time() - c0, time.perf_counter() - w0
    rows = M.rows
    per = []
    for r in rows:
        per.append(
            {
                k: r[k]
                for k in (
                    "job",
                    "arrival",
                    "dp_steps",
                    "slot_thetas",
                    "lps",
                    "highs",
                    "search",
                    "admitted",
                    "completion",
                    "slot_theta_cpu",
                    "dp_cpu",
                )
            }
            | {
                "decide": r.get("decide", r["search"]),
                "max_G": max(r["G"], default=0),
                "mean_G": float(np.mean(r["G"])) if r["G"] else 0.0,
                "max_m": max(r["m"], default=0),
                "mean_m": float(np.mean(r["m"])) if r["m"] else 0.0,
                "max_rows": max(r["rows"], default=0),
                "max_cols": max(r["cols"], default=0),
                "sum_cols": int(sum(r["cols"])),
            }
        )
    return {
        "n": n,
        "jobs": len(wl.jobs),
        "T": int(wl.horizon),
        "machines": int(len(wl.cluster.capacity)),
        "resources": len(wl.cluster.resources),
        "partial": partial,
        "decided": len(rows),
        "sim_cpu": sim,
        "sim_wall": wall,
        "highs": M.highs,
        "lpcall": M.lpcall,
        "dual_objective": M.dual,
        "commit": M.commit,
        "decisions": decisions,
        "per": per,
    }


def summary(r: dict) -> str:
    per = r["per"]
    d = len(per)
    if not d:
        return f"n={r['n']}: no decision"
    a = {k: np.array([p[k] for p in per], dtype=float) for k in per[0] if k not in ("completion",)}
    lps = a["lps"]
    search = a["search"].sum()
    lines = [
        f"n={r['n']:6d} T={r['T']} H={r['machines']} R={r['resources']}: "
        f"{'PARTIAL ' if r['partial'] else ''}{d} decisions, simulate {r['sim_cpu']:.1f} s CPU "
        f"({r['sim_wall']:.1f} s wall); inside HiGHS {r['highs']:.1f} s ({100 * r['highs'] / r['sim_cpu']:.0f} %), "
        f"_solve_highs_lp {r['lpcall']:.1f} s; search {search:.1f} s; sim / HiGHS = {r['sim_cpu'] / max(r['highs'], 1e-9):.2f}",
        f"   admitted {int(a['admitted'].sum())}; per decision: CPU mean {r['sim_cpu'] / d * 1e3:.0f} ms, "
        f"HiGHS mean {r['highs'] / d * 1e3:.0f} ms; slots searched (DP steps) mean {a['dp_steps'].mean():.0f} "
        f"max {a['dp_steps'].max():.0f}; slot states evaluated mean {a['slot_thetas'].mean():.0f} "
        f"max {a['slot_thetas'].max():.0f}; LPs mean {lps.mean():.1f} median {np.median(lps):.0f} max {lps.max():.0f} "
        f"(total {int(lps.sum())}); HiGHS per LP {r['highs'] / max(lps.sum(), 1) * 1e3:.2f} ms",
        f"   LP size: groups G mean {np.mean(a['mean_G'][lps > 0]) if (lps > 0).any() else 0:.0f} max {a['max_G'].max():.0f}; "
        f"levels m mean {np.mean(a['mean_m'][lps > 0]) if (lps > 0).any() else 0:.0f} max {a['max_m'].max():.0f}; "
        f"largest LP {a['max_rows'].max():.0f} rows x {a['max_cols'].max():.0f} cols; "
        f"columns per decision mean {a['sum_cols'].mean():.0f}",
        f"   slot_theta {a['slot_theta_cpu'].sum():.1f} s (of which HiGHS {a['highs'].sum():.1f} s), "
        f"DP steps {a['dp_cpu'].sum():.1f} s, search rest {search - a['slot_theta_cpu'].sum() - a['dp_cpu'].sum():.1f} s, "
        f"decide outside search {a['decide'].sum() - search:.1f} s (dual_objective {r.get('dual_objective', math.nan):.1f} s, "
        f"_commit {r.get('commit', math.nan):.1f} s), simulator rest {r['sim_cpu'] - a['decide'].sum():.1f} s",
    ]
    # how the cost grows with the decision index: quarters
    q = np.array_split(np.arange(d), 4)
    cells = []
    for part in q:
        if len(part):
            cells.append(
                f"[{part[0]}-{part[-1]}] {a['decide'][part].mean() * 1e3:.0f} ms "
                f"(HiGHS {a['highs'][part].mean() * 1e3:.0f}, slots {a['dp_steps'][part].mean():.0f}, "
                f"states {a['slot_thetas'][part].mean():.0f}, LPs {a['lps'][part].mean():.1f}, "
                f"G {a['mean_G'][part].mean():.0f}, adm {a['admitted'][part].mean():.2f})"
            )
    lines.append("   by quarter of decisions: " + "; ".join(cells))
    rej = a["admitted"] == 0
    if rej.any() and (~rej).any():
        lines.append(
            f"   admitted: {a['decide'][~rej].mean() * 1e3:.0f} ms, {a['dp_steps'][~rej].mean():.0f} slots, "
            f"{a['lps'][~rej].mean():.1f} LPs; rejected: {a['decide'][rej].mean() * 1e3:.0f} ms, "
            f"{a['dp_steps'][rej].mean():.0f} slots, {a['lps'][rej].mean():.1f} LPs, "
            f"{a['highs'][rej].sum() / max(a['highs'].sum(), 1e-9) * 100:.0f} % of the HiGHS time"
        )
    return "\n".join(lines)


def fit(results: list[dict]) -> str:
    """The whole-trace floor from the runs (see the module docstring)."""
    full = [r for r in results if not r["partial"]]
    out = []
    if len(full) >= 2:
        x = np.log([r["n"] for r in full])
        for key in ("highs", "sim_cpu"):
            y = np.log([r[key] for r in full])
            if len(full) >= 3:
                (b, a), cov = np.polyfit(x, y, 1, cov=True)
                se = math.sqrt(cov[0, 0])
            else:
                b, a = np.polyfit(x, y, 1)
                se = math.nan
            pred = math.exp(a + b * math.log(WHOLE))
            lo = math.exp(np.mean(y) + (b - se) * (math.log(WHOLE) - np.mean(x))) if se == se else math.nan
            hi = math.exp(np.mean(y) + (b + se) * (math.log(WHOLE) - np.mean(x))) if se == se else math.nan
            out.append(
                f"{key}: power law over n = {[r['n'] for r in full]}: slope {b:.2f} (s.e. {se:.2f}); "
                f"whole trace {pred:.3g} s = {pred / 3600:.1f} h (slope +- s.e.: {lo:.3g} - {hi:.3g} s)"
            )
    big = max(results, key=lambda r: r["decided"])
    per = big["per"]
    if per:
        tail = per[3 * len(per) // 4 :]
        h = np.mean([p["highs"] for p in tail])
        c = np.mean([p["decide"] for p in tail])
        out.append(
            f"per-decision model (last quarter of n={big['n']}, {len(tail)} decisions): HiGHS {h * 1e3:.0f} ms, "
            f"decide {c * 1e3:.0f} ms per decision -> whole trace >= {h * WHOLE:.3g} s HiGHS "
            f"({h * WHOLE / 3600:.1f} h), {c * WHOLE:.3g} s total, if the cost per decision stops growing"
        )
    out.append(load_model(big))
    return "\n".join(out)


def load_model(big: dict) -> str:
    """Third model: the HiGHS seconds of a decision as a power law of its *local load* ``L`` (jobs
    that arrived in the ``W`` slots up to its own arrival, earlier in submit order), fitted on the
    largest run and summed over the whole trace's own loads. The first ``n`` Philly jobs arrive in
    a burst (the first 1,000 within slots 483-492), so decision ``i`` of such a run sees about ``i``
    jobs nearby; on the whole trace a job sees the jobs of its own window. ``W`` is the median, mean
    and 90th percentile of the admitted jobs' plan lengths (completion - arrival) of that run. Shown:
    the power law everywhere, and capped at the largest load measured (no extrapolation in L)."""
    from dlsched.arena import mapping

    per = [p for p in big["per"] if p["highs"] > 0]
    if len(per) < 20:
        return "load model: too few decisions with LPs"
    arr = np.array([p["arrival"] for p in big["per"]])
    h = np.array([p["highs"] for p in big["per"]])
    plan = np.array(
        [p["completion"] - p["arrival"] for p in big["per"] if p["admitted"] and p["completion"] is not None]
    )
    A = np.array(
        [
            s.arrival
            for s in mapping.map_jobs(mapping.trace_jobs("philly"), "pdors", np.random.default_rng(0)).jobs
        ]
    )

    def load(a, W):
        return np.arange(len(a)) - np.searchsorted(a, a - W, side="right")

    lines = []
    for name, W in (("median", np.median(plan)), ("mean", plan.mean()), ("p90", np.percentile(plan, 90))):
        W = max(1, int(round(W)))
        L = load(arr, W)
        m = (L >= 50) & (h > 0)
        b, c = np.polyfit(np.log(L[m]), np.log(h[m]), 1)
        resid = np.log(h[m]) - (c + b * np.log(L[m]))
        sd = float(np.std(resid))
        smear = float(np.mean(np.exp(resid)))  # Duan's smearing: the mean, not the geometric mean
        Lw = load(A, W)
        full = smear * np.exp(c + b * np.log(np.maximum(Lw, 1))).sum()
        capped = smear * np.exp(c + b * np.log(np.clip(Lw, 1, L.max()))).sum()
        lines.append(
            f"load model, W = {W} slots ({name} plan length): HiGHS per decision ~ L^{b:.2f} "
            f"(log residual s.d. {sd:.2f}, smearing x{smear:.2f}); whole-trace loads median {np.median(Lw):.0f}, p90 "
            f"{np.percentile(Lw, 90):.0f} (measured up to {L.max()}): floor {full:.3g} s = {full / 3600:.1f} h "
            f"(capped at the measured load: {capped:.3g} s = {capped / 3600:.1f} h)"
        )
    return "\n".join(lines)


def check() -> None:
    """The instrumented run of the tests' 60-job case gives the stored digests (the meters are
    transparent)."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
    import _trace_identity as ti

    instrument(None)
    got = ti.run_case("pdors", "pdors", 60)
    ref = json.load(
        open(os.path.join(os.path.dirname(__file__), "..", "tests", "data", "trace_identity.json"))
    )
    want = ref["pdors/pdors/60"]
    print("instrumented pdors/pdors/60:", "identical" if got == want else f"DIFFERS: {got} vs {want}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[250, 500, 1000, 2000])
    ap.add_argument("--one", type=int, help="one size, in this process")
    ap.add_argument("--json", help="with --one: write the result here")
    ap.add_argument(
        "--budget", type=float, default=None, help="CPU seconds per run before it stops (partial)"
    )
    ap.add_argument("--fit", nargs="+", metavar="JSON", help="print the summaries and the fit of saved runs")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    if args.check:
        check()
        return
    if args.one:
        r = one(args.one, args.budget)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(r, f)
        print(summary(r), flush=True)
        return
    if args.fit:
        results = [json.load(open(p)) for p in args.fit]
    else:
        results = []
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
        for n in args.sizes:
            path = f"/tmp/bench_pdors_floor_{n}.json"
            cmd = [sys.executable, __file__, "--one", str(n), "--json", path]
            if args.budget:
                cmd += ["--budget", str(args.budget)]
            subprocess.run(cmd, env=env, check=True)
            results.append(json.load(open(path)))
    for r in sorted(results, key=lambda r: r["n"]):
        if args.fit:
            print(summary(r))
    print(fit(sorted(results, key=lambda r: r["n"])))


if __name__ == "__main__":
    main()

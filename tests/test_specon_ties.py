"""Issue 19 (decision side) for SpeCon and the model-agnostic baselines FIFO and DRF; issue 21
item 1 (a pausing container has no CPU in Algorithm 2's :math:`R`).

Each float decision gets a pair of cases: two candidates equal in exact arithmetic but not in
floats (``0.1 + 0.2`` vs ``0.3``) go to the documented tie winner, and candidates separated by
more than ``numerics.REL_TOL`` (1e-9 relative) keep the strict choice. Rules: the "Floating point
and ties" sections of :mod:`dlsched.specon.policy`, :mod:`dlsched.baselines.fifo` and
:mod:`dlsched.baselines.drf`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

from dlsched.baselines.drf import DRF, _ShareQueue
from dlsched.baselines.fifo import FIFO
from dlsched.core import numerics
from dlsched.core.cluster import Cluster, Server
from dlsched.core.jobs import JobSpec, LinearModel, Workload
from dlsched.core.simulator import simulate
from dlsched.specon.model import TYPE_CURVES, SpeconJob, curve_losses, make_cluster
from dlsched.specon.policy import SpeCon, categorise, speculative_target

TIE = 0.1 + 0.2  # 0.30000000000000004: equal to 0.3 in exact arithmetic, one ulp above in floats
EXACT = 0.3
ABOVE = 0.3 * (1 + 5 * numerics.REL_TOL)  # separated by more than the tolerance


def test_tie_values_are_what_the_cases_assume():
    assert TIE > EXACT and numerics.is_close(TIE, EXACT)
    assert numerics.greater(ABOVE, EXACT)


# ------------------------------------------------------------------ SpeCon, Algorithm 1


def test_numerics_less_on_floats_equals_the_array_rule():
    """Algorithm 1 calls numerics.less on plain floats every monitor tick (its scalar fast path)."""
    rng = np.random.default_rng(0)
    base = rng.uniform(-2, 2, 300)
    vals = np.concatenate([base, base * (1 + 1e-15), base * (1 + 3e-9), [0.0, 1e-13, math.inf, -math.inf]])
    pairs = [(float(a), float(b)) for a in vals[::7] for b in vals[::5]]
    pairs += [(TIE, EXACT), (EXACT, TIE), (EXACT, ABOVE), (0.0, 5e-13), (0.0, 2e-12), (1.0, math.inf)]
    for a, b in pairs:
        assert numerics.less(a, b) == bool(numerics.less(np.array(a), np.array(b))), (a, b)


def test_alg1_gain_equal_to_previous_gain_stays():
    # A1 l. 6: G(t_m) < G(t_{m-1}) -- equal up to rounding is not smaller: l. 17, stays in PC
    assert categorise("PC", EXACT, TIE, alpha=0.5) == (("PC",), False)
    # strictly smaller by more than the tolerance: PC -> WC as before
    assert categorise("PC", EXACT, ABOVE, alpha=0.5) == (("PC", "WC"), False)
    assert categorise("CC", EXACT, ABOVE, alpha=0.5) == (("CC",), True)  # A1 l. 13-16: request
    assert categorise("CC", EXACT, TIE, alpha=0.5) == (("CC",), False)


def test_alg1_gain_equal_to_alpha_takes_no_branch():
    # spec A6: G = alpha (here up to rounding) -> no branch, nothing changes
    assert categorise("WC", TIE, 1.0, alpha=EXACT) == (("WC",), False)  # floats: G > alpha -> PC
    assert categorise("PC", EXACT, 1.0, alpha=TIE) == (("PC",), False)  # floats: G < alpha -> WC
    # by more than the tolerance: the strict branches
    assert categorise("WC", ABOVE, 1.0, alpha=EXACT) == (("WC", "PC"), False)  # A1 l. 19-22
    assert categorise("PC", EXACT, 1.0, alpha=ABOVE) == (("PC", "WC"), False)  # A1 l. 6-9
    assert categorise("WC", EXACT, EXACT * 0.5, alpha=ABOVE) == (("WC",), False)  # A1 l. 17


def test_alg1_first_round_inf_and_cascade_unchanged():
    assert categorise("PC", 0.001, math.inf, alpha=0.01) == (("PC", "WC"), False)
    assert categorise("PC", 0.001, 0.002, alpha=0.01, cascade="full") == (("PC", "WC", "CC"), True)
    assert categorise("PC", 0.0, 0.0, alpha=0.01) == (("PC",), False)
    assert categorise("PC", 0.001, None, alpha=0.01) == (("PC",), False)


# ------------------------------------------------------------------ SpeCon, Algorithm 2


def _never(s):  # pragma: no cover - R must not be read when |T| = 1
    raise AssertionError(f"R read for worker {s}")


def test_alg2_scores_equal_up_to_rounding_are_all_minimum():
    # A2 l. 5-7: worker 0's score is the minimum up to rounding, so T = {0, 1}; R ranks them
    R = {0: 0.5, 1: 0.25}
    assert speculative_target([TIE, EXACT, 1.0], 2, range(3), R.__getitem__) == (1, (0, 1))
    R = {0: 0.25, 1: 0.5}
    assert speculative_target([TIE, EXACT, 1.0], 2, range(3), R.__getitem__) == (0, (0, 1))
    # strictly larger by more than the tolerance: worker 0 is not a candidate
    assert speculative_target([ABOVE, EXACT, 1.0], 2, range(3), _never) == (1, (1,))


def test_alg2_host_with_score_equal_up_to_rounding_stays():
    # A2 l. 8-10: w_i in T (its score equals the minimum up to rounding) -> remains on w_i
    assert speculative_target([EXACT, TIE], 1, range(2), _never) == (1, (0, 1))
    assert speculative_target([EXACT, ABOVE], 1, range(2), _never) == (0, (0,))


def test_alg2_resource_tie_goes_to_lowest_index():
    # A2 l. 18 (spec B3): R equal up to rounding -> lowest worker index
    R = {0: TIE, 1: EXACT}
    assert speculative_target([1.0, 1.0, 2.0], 2, range(3), R.__getitem__) == (0, (0, 1))
    R = {0: 2.0 / 3.0, 1: 1.0 - 1.0 / 3.0}  # 0.6666666666666666 vs 0.6666666666666667
    assert speculative_target([1.0, 1.0, 2.0], 2, range(3), R.__getitem__) == (0, (0, 1))
    # lower by more than the tolerance: the strict choice
    R = {0: ABOVE, 1: EXACT}
    assert speculative_target([1.0, 1.0, 2.0], 2, range(3), R.__getitem__) == (1, (0, 1))


def test_alg2_non_dyadic_weights_tie_in_the_scores():
    # (w_pc, w_wc, w_cc) = (0.3, 0.2, 0.1): worker 0 holds a WC and a CC container, worker 1 one
    # PC container; both scores are 0.3 (A2 l. 3), but 0.2 + 0.1 is one ulp above 0.3
    s0 = 0.2 + 0.1
    s1 = 0.3
    assert s0 > s1 and numerics.is_close(s0, s1)
    R = {0: 0.25, 1: 0.5}
    assert speculative_target([s0, s1, 1.0], 2, range(3), R.__getitem__) == (0, (0, 1))
    R = {0: 0.5, 1: 0.5}
    assert speculative_target([s0, s1, 1.0], 2, range(3), R.__getitem__) == (0, (0, 1))


# ------------------------------------------------- issue 21 item 1: a pausing container in R

ISSUE21_JOBS = (
    (422, "GRU-P"),
    (474, "VAE-P"),
    (771, "RNN-P"),
    (1059, "DRNN-P"),
    (1365, "RNN-T"),
    (1455, "DRNN-T"),
    (1627, "DRNN-P"),
    (1673, "DRNN-T"),
    (3048, "RNN-P"),
    (3471, "GRU-P"),
)


def _issue21_workload() -> Workload:
    cluster = make_cluster(4)
    jobs = []
    for j, (arrival, kind) in enumerate(ISSUE21_JOBS):
        c = TYPE_CURVES[kind]
        work = len(curve_losses(c))
        steps_per_epoch = SpeconJob(work=float(work), curve=c).steps_per_epoch
        model = SpeconJob(
            work=float(work),
            migration_pause=5.0,
            cpu_usable=0.8,
            curve=c,
            solo_seconds=215.0 * work / 3000.0,
            eval_window=steps_per_epoch,
        )
        jobs.append(JobSpec(j, arrival, model, {"cpu": 12.8, "mem": 2.0}, requested_workers=1))
    return Workload(cluster, tuple(jobs), name="issue-21")


class _RecordingSpeCon(SpeCon):
    def reset(self, cluster, rng) -> None:
        super().reset(cluster, rng)
        self.r_log: dict[tuple[int, int], float] = {}

    def resource_consumption(self, view, s):
        r = super().resource_consumption(view, s)
        self.r_log[(view.t, s)] = r
        return r


def test_issue21_pausing_container_adds_no_cpu_to_R():
    pol = _RecordingSpeCon(alpha=0.2, interval=30.0)
    res = simulate(_issue21_workload(), pol, seed=0, check=True)
    moves = [e for e in pol.events if e["event"] == "M"]
    m6 = next(e for e in moves if e["job"] == 6)
    assert (m6["slot"], m6["from"], m6["to"]) == (3727, 2, 3)  # job 6 pauses 50 slots on worker 3
    req = next(e for e in pol.events if e["event"] == "request" and e["job"] == 4)
    assert req["slot"] == 3765 and req["scores"][2] == req["scores"][3] == min(req["scores"])
    # worker 3 holds only the pausing job 6: R = 0 (spec 7.7, 8.4); worker 2 is busy: R = 1
    assert pol.r_log[(3765, 2)] == 1.0
    assert pol.r_log[(3765, 3)] == 0.0
    m4 = next(e for e in moves if e["job"] == 4)
    assert (m4["slot"], m4["from"], m4["to"]) == (3765, 0, 3)  # was worker 2 before the fix
    assert len(res.jobs) == len(ISSUE21_JOBS)


def test_issue21_other_resources_still_count_the_pausing_container():
    # spec 7.7: while paused it counts on its target for |w| (resource="containers") and holds
    # its memory there (resource="memory")
    for resource, expect in (("containers", 1.0), ("memory", 2.0 / 64.0)):
        pol = _RecordingSpeCon(alpha=0.2, interval=30.0, resource=resource)
        simulate(_issue21_workload(), pol, seed=0)
        assert pol.r_log[(3765, 3)] == pytest.approx(expect, rel=0, abs=0)


# --------------------------------------------------------------------------------- FIFO


@dataclass(frozen=True)
class _ServerRate(LinearModel):
    """Workers times a per-server factor (a rate that carries rounding)."""

    factors: tuple[float, ...] = ()

    def rate(self, spec, placement, ctx) -> float:
        ((s, w),) = placement.workers
        return w * self.factors[s]


def _fifo_earliest_server(factors) -> int:
    cluster = Cluster(tuple(Server(f"s{i}", "unified", {"gpu": 2}) for i in range(len(factors))))
    job = JobSpec(0, 0, _ServerRate(work=10.0, factors=tuple(factors)), {"gpu": 1}, requested_workers=1)
    res = simulate(Workload(cluster, (job,)), FIFO(placement="earliest"), check=True)
    return int(res.runs["server"].iloc[0])


def test_fifo_earliest_equal_rates_go_to_lower_index():
    # A_online's FIFO: fastest server; rates equal up to rounding -> lower server index
    assert _fifo_earliest_server([EXACT, TIE]) == 0  # floats: server 1 is faster by one ulp
    assert _fifo_earliest_server([TIE, EXACT]) == 0
    # faster by more than the tolerance: the strict choice
    assert _fifo_earliest_server([EXACT, ABOVE]) == 1


# ---------------------------------------------------------------------------------- DRF


def _drf_workers(demands) -> list[int]:
    """Workers per job at slot 0 on one server with 1.0 CPU: 3 workers of 0.3 fit, not 4."""
    cluster = Cluster((Server("s0", "unified", {"cpu": 1.0}),))
    jobs = tuple(JobSpec(j, 0, LinearModel(work=100.0), {"cpu": d}) for j, d in enumerate(demands))
    res = simulate(Workload(cluster, jobs), DRF(), check=True)
    a = res.allocations
    first = a[a["slot"] == 0].set_index("job")["count"]
    return [int(first[j]) for j in range(len(demands))]


def test_drf_equal_dominant_shares_go_to_the_earlier_job():
    # progressive filling: after one worker each, job 0's share 0.30000000000000004 and job 1's
    # 0.3 tie; the earlier job (arrival, then id) gets the third worker
    assert _drf_workers([TIE, EXACT]) == [2, 1]  # floats alone: [1, 2]
    assert _drf_workers([EXACT, EXACT]) == [2, 1]
    # job 0's share larger by more than the tolerance: job 1 grows first
    assert _drf_workers([ABOVE, EXACT]) == [1, 2]


def _naive_pops(entries):
    """Reference: repeatedly numerics.argmin over (share, rank)."""
    left = list(entries)
    out = []
    while left:
        i = numerics.argmin([e[0] for e in left], keys=[e[1] for e in left])
        out.append(left.pop(i)[1])
    return out


def test_share_queue_pops_in_numerics_argmin_order():
    rng = np.random.default_rng(1)
    for trial in range(200):
        n = int(rng.integers(1, 25))
        base = rng.choice([0.0, 0.025, 0.1, 0.3, 0.5, 2.0 / 3.0], n)
        noise = rng.choice([1.0, 1 + 2.2e-16, 1 - 1.1e-16, 1 + 4e-9], n)
        shares = [float(x) for x in base * noise] + [TIE, EXACT][: trial % 3]
        ranks = [int(r) for r in rng.permutation(len(shares))]
        q = _ShareQueue()
        for s, r in zip(shares, ranks, strict=True):
            q.push(s, r, r)
        got = []
        while q:
            got.append(q.pop())
        assert got == _naive_pops(list(zip(shares, ranks, strict=True)))


def test_share_queue_interleaved_and_zero_class():
    q = _ShareQueue()
    q.push(0.025, 3, "a")
    q.push(0.024999999999999998, 5, "b")
    q.push(0.5, 0, "c")
    assert q.zero_rank() is None
    assert q.pop() == "a"  # tie with b, smaller rank
    q.push(0.025, 1, "d")  # the emptied value comes back
    assert q.pop() == "d" and q.pop() == "b" and q.pop() == "c"
    assert not q
    with pytest.raises(IndexError):
        q.pop()
    q.push(0.0, 4, "z")
    q.push(0.0, 2, "y")  # two shares of 0
    q.push(5e-13, 0, "x")  # no absolute floor (numerics.ABS_TOL = 0): a real share, not a 0
    assert q.zero_rank() == 2
    assert q.pop(0.0) == "y"
    assert q.zero_rank() == 4

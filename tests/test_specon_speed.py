"""SpeCon's fast paths equal the plain computations bit for bit.

The policy reads each job's spec once and sums server usage from cached demand vectors
(:meth:`K8sDefault._usage`, ``_usage_row``); :class:`SpeconJob` inlines its rate and memoises
its evaluation function and epoch means. Each must give exactly what the reference gives (the
stored results of the SpeCon wing are compared bit for bit).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from dlsched.core.jobs import RateContext, Workload
from dlsched.core.schedule import Placement, server_usage
from dlsched.core.simulator import simulate
from dlsched.specon import model as sm
from dlsched.specon.policy import K8sDefault, SpeCon


def _bits(x: float) -> str:
    return float(x).hex()


# ------------------------------------------------------------------------------------- model


@dataclasses.dataclass(frozen=True)
class _Composed(sm.SpeconJob):
    """A subclass: :meth:`SpeconJob.rate` takes the composed (reference) path for it."""


def _composed(m: sm.SpeconJob) -> _Composed:
    return _Composed(**{f.name: getattr(m, f.name) for f in dataclasses.fields(m)})


@pytest.mark.parametrize("progress,param", [("linear", 1.0), ("cap", 0.7), ("power", 1.5), ("power", 0.6)])
@pytest.mark.parametrize("converged_cpu", [1.0, 0.5])
def test_inlined_rate_equals_composed_rate(progress, param, converged_cpu):
    rng = np.random.default_rng(7)
    cluster = sm.make_cluster(3, cores=16.0, slot_seconds=0.1)
    m = sm.SpeconJob(work=900.0, curve="iris_mlp_sgd_slow", solo_seconds=213.7, cpu_usable=0.8,
                     progress=progress, progress_param=param, converged_cpu=converged_cpu)
    from dlsched.core.jobs import JobSpec

    d = 12.8 * converged_cpu
    spec = JobSpec(0, 0, m, {"cpu": d, "mem": 2.0}, ps_demand={"cpu": 12.8 - d} if converged_cpu < 1 else {})
    ref = _composed(m)
    placements = [Placement.of({1: 1})] + ([Placement.of({1: 1}, {1: 1})] if converged_cpu < 1 else [])
    for _ in range(300):
        load = np.zeros_like(cluster.capacity)
        load[:, 0] = rng.choice([0.0, 3.3, 12.8, 17.1, 40.0]) * rng.uniform(0.1, 3.0, size=3)
        ctx = RateContext(cluster, load)
        for p in placements:
            fast, slow = m.rate(spec, p, ctx), ref.rate(spec, p, ctx)
            assert _bits(fast) == _bits(slow)
    assert m.rate(spec, Placement.of({}), RateContext(cluster, load)) == 0.0


def test_epoch_means_and_evaluation_memo_equal_the_direct_means():
    for name in sorted(set(sm.TYPE_CURVES.values())):
        losses = sm.curve_losses(name)
        k = sm.SpeconJob(work=1.0, curve=name).steps_per_epoch
        means = sm._epoch_means(name)
        for done in range(len(losses) // k + 1):
            direct = losses[: done * k].reshape(done, k).mean(axis=1)
            assert np.array_equal(means[:done], direct)
        for window in (1, k):
            m = sm.SpeconJob(work=float(len(losses)), curve=name, eval_window=window)
            for x in (0.0, 0.5, 1.0, 1.999999999999, 2.0, k + 0.3, len(losses) / 3, float(len(losses))):
                n = int(min(max(1, math.floor(x + 1e-9)), m.work))
                assert _bits(m.evaluation(x)) == _bits(float(np.mean(losses[max(0, n - window) : n])))
            obs = m.observations(5.5 * k)
            assert obs.flags.writeable and np.array_equal(obs, losses[: 5 * k].reshape(5, k).mean(axis=1))


# ------------------------------------------------------------------------------------ policy


def test_cached_usage_equals_server_usage():
    rng = np.random.default_rng(3)
    wl = sm.specon_workload(np.random.default_rng(0), schedule="random", n_jobs=12, span=100.0,
                            cluster=1, solo_seconds=60.0, converged_cpu=0.5)
    specs = {s.job_id: dataclasses.replace(s, worker_demand={"cpu": float(rng.uniform(0.3, 9.7)),
                                                              "mem": float(rng.uniform(0.1, 3.3))})
             for s in wl.jobs}
    pol = K8sDefault()
    pol.reset(wl.cluster, np.random.default_rng(0))
    pol._specs = specs
    alloc = {j: Placement.of({int(rng.integers(4)): 1}, {int(rng.integers(4)): 1} if j % 3 else {})
             for j in rng.permutation(list(specs))}
    ref = server_usage(wl.cluster, specs, alloc)
    assert np.array_equal(pol._usage(alloc), ref)
    for s in range(wl.cluster.n_servers):
        assert np.array_equal(pol._usage_row(alloc, s), ref[s])


class _Reference(SpeCon):
    """SpeCon reading the whole view and summing usage with ``server_usage``, as before."""

    def _read_specs(self, view):
        self._specs = {j: v.spec for j, v in view.jobs.items()}

    def _pending(self, view):
        return view.pending()

    def _usage(self, allocations):
        return server_usage(self.cluster, self._specs, allocations)

    def _usage_row(self, allocations, s):
        return server_usage(self.cluster, self._specs, allocations)[s]


@pytest.mark.parametrize(
    "workload,policy",
    [
        ({}, {"alpha": 0.05}),
        ({"converged_cpu": 0.5}, {"cascade": "full", "score_mode": "cpu_weighted"}),
        ({"progress": "power", "progress_param": 1.5}, {"resource": "memory", "t_cj": "entered_cc"}),
    ],
)
def test_run_equals_reference_run(workload, policy):
    wl = sm.specon_workload(np.random.default_rng(1), schedule="random", n_jobs=14, span=120.0,
                            cluster=1, solo_seconds=60.0, **workload)
    ref_wl = Workload(wl.cluster, tuple(dataclasses.replace(s, model=_composed(s.model)) for s in wl.jobs),
                      name=wl.name)
    fast, slow = SpeCon(**policy), _Reference(**policy)
    a, b = simulate(wl, fast), simulate(ref_wl, slow)
    assert a.jobs.equals(b.jobs) and a.runs.equals(b.runs)
    assert (a.decisions, a.end_slot) == (b.decisions, b.end_slot)
    assert fast.events == slow.events and fast.transitions == slow.transitions

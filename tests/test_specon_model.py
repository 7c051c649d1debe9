"""SpeCon model and workload (``dlsched.specon.model``; spec ``specon.md`` sections 3, 6, 7).

Schedules and node sizes of the paper, the CPU-sharing rule (both readings), progress vs CPU
share, the evaluation function from the real loss curves, the migration pause as the simulator
applies it, determinism, bad input, and the command line with FIFO.
"""

from __future__ import annotations

import json
import math
from typing import ClassVar

import numpy as np
import pytest

from dlsched import cli, registry
from dlsched.core.jobs import JobSpec, RateContext, SpeconModel, Workload
from dlsched.core.policy import BasePolicy, ClusterView
from dlsched.core.schedule import Decision, Placement, server_usage
from dlsched.core.simulator import simulate
from dlsched.specon.model import (
    PAPER_DS_MEAN,
    PAUSE_SD_PAPER,
    TYPE_CURVES,
    SpeconJob,
    calibrate_solo_seconds,
    curve_losses,
    ds_completion_times,
    make_cluster,
    specon_workload,
)

P = Placement.of


def _wl(**kw) -> Workload:
    return specon_workload(np.random.default_rng(kw.pop("seed", 0)), **kw)


class Scripted(BasePolicy):
    """Pre-written decisions ``script[t](view)``; other decision points keep the allocation."""

    name: ClassVar[str] = "test-specon-scripted"

    def __init__(self, script):
        self._script = dict(script)

    def decide(self, t: int, view: ClusterView) -> Decision:
        if t in self._script:
            return self._script[t](view)
        return Decision(view.current_allocations())


class RoundRobin(BasePolicy):
    """DS's fixed placement (spec 5): job k on worker k mod |W|, never moved."""

    name: ClassVar[str] = "test-specon-rr"

    def decide(self, t: int, view: ClusterView) -> Decision:
        n = view.cluster.n_servers
        allocs = {j: P({j % n: 1}) for j in view.jobs}
        return Decision(allocs, admit=[j for j, v in view.jobs.items() if v.status == "pending"])


# ------------------------------------------------------------------------------ schedules, nodes


def test_fixed_schedule_twenty_vae_jobs_every_50_s_on_four_16_core_workers():
    wl = _wl()
    assert len(wl.jobs) == 20
    assert [s.submit_time for s in wl.jobs] == pytest.approx([50.0 * k for k in range(20)])
    assert [s.arrival for s in wl.jobs] == [500 * k for k in range(20)]  # 0.1 s slots
    assert wl.cluster.slot_seconds == 0.1
    assert {s.model.curve for s in wl.jobs} == {TYPE_CURVES["VAE-T"]}
    assert [s.name for s in wl.jobs[:2]] == ["Job-1 VAE-T", "Job-2 VAE-T"]
    assert [sv.name for sv in wl.cluster.servers] == [f"Worker-{i}" for i in range(1, 5)]
    np.testing.assert_array_equal(wl.cluster.capacity, [[16.0, 64.0]] * 4)
    assert wl.cluster.compressible == ("cpu",)
    assert all(s.model.migration_pause == 5.0 for s in wl.jobs)  # Fig. 2 bound


@pytest.mark.parametrize("n, span, workers", [(20, 300.0, 4), (30, 600.0, 4), (50, 1200.0, 8)])
def test_random_schedules_of_the_paper(n, span, workers):
    wl = _wl(schedule="random", n_jobs=n, seed=3)
    t = np.array([s.submit_time for s in wl.jobs])
    assert len(t) == n and wl.cluster.n_servers == workers
    assert np.all((t >= 0) & (t <= span)) and np.all(np.diff(t) >= 0)
    assert [s.arrival for s in wl.jobs] == [round(x / 0.1) for x in t]
    assert [s.job_id for s in wl.jobs] == list(range(n))  # numbered in launch order
    assert {s.model.curve for s in wl.jobs} <= set(TYPE_CURVES.values())
    assert wl.params["span"] == span


def test_cluster_2_has_eight_workers_and_sizes_are_parameters():
    wl = _wl(cluster=2, cores=8, mem_gb=32)
    np.testing.assert_array_equal(wl.cluster.capacity, [[8.0, 32.0]] * 8)


# ------------------------------------------------------------------------------------ CPU sharing


def _cores(wl: Workload, counts: dict[int, int]) -> dict[int, list[float]]:
    """Put ``counts[s]`` of the workload's containers on node ``s``; cores per container."""
    specs, allocs, j = wl.specs, {}, 0
    for s, c in counts.items():
        for _ in range(c):
            allocs[j] = P({s: 1})
            j += 1
    ctx = RateContext(wl.cluster, server_usage(wl.cluster, specs, allocs))
    out: dict[int, list[float]] = {s: [] for s in counts}
    for jj, p in allocs.items():
        out[next(iter(p.servers))].append(specs[jj].model.cores(specs[jj], p, ctx))
    return out


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 13, 20])
def test_equal_sharing_splits_the_usable_80_percent(n):
    wl = _wl()
    cores = _cores(wl, {0: n})[0]
    assert cores == pytest.approx([0.8 * 16 / n] * n)
    assert sum(cores) <= 0.8 * 16 + 1e-9


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8, 20])
def test_cap_sharing_gives_min_of_cap_and_equal_split(n):
    wl = _wl(cpu_sharing="cap", cpu_cap=4.0)
    cores = _cores(wl, {0: n})[0]
    assert cores == pytest.approx([min(4.0, 12.8 / n)] * n)
    assert sum(cores) <= 12.8 + 1e-9


def test_shares_never_exceed_capacity_on_any_node():
    for sharing in ("equal", "cap"):
        wl = _wl(cpu_sharing=sharing, cpu_cap=5.0)
        per_node = _cores(wl, {0: 7, 1: 1, 2: 0, 3: 12})
        for s, cores in per_node.items():
            assert sum(cores) <= 0.8 * wl.cluster.capacity[s, 0] + 1e-9


def test_core_model_uses_only_the_usable_fraction():
    cl = make_cluster(1, cores=10)
    wl = Workload(cl, ())
    m = SpeconModel(work=100.0, cpu_usable=0.5)
    specs = {j: JobSpec(j, 0, m, {"cpu": 5, "mem": 1}) for j in range(2)}
    allocs = {0: P({0: 1}), 1: P({0: 1})}
    ctx = RateContext(wl.cluster, server_usage(cl, specs, allocs))
    assert m.cores(specs[0], allocs[0], ctx) == pytest.approx(2.5)  # 5 usable cores for 10 asked
    with pytest.raises(ValueError, match="cpu_usable"):
        SpeconModel(work=1.0, cpu_usable=1.5)


# ----------------------------------------------------------------------------------- progress


def test_progress_is_linear_in_the_cpu_share_by_default():
    wl = _wl()
    spec = wl.jobs[0]
    m = spec.model
    assert m.work == len(curve_losses(m.curve)) == 3000
    for n in (1, 2, 4):
        allocs = {j: P({0: 1}) for j in range(n)}
        ctx = RateContext(wl.cluster, server_usage(wl.cluster, wl.specs, allocs))
        # S/tau * (12.8/n)/12.8 steps per second, times 0.1 s per slot
        assert m.rate(spec, allocs[0], ctx) == pytest.approx(3000 / 215.0 / n * 0.1)
    assert m.rate(spec, Placement(), ctx) == 0.0


@pytest.mark.parametrize(
    "progress, param, x, expected",
    [("linear", 1.0, 0.5, 0.5), ("cap", 0.5, 0.25, 0.5), ("cap", 0.5, 0.75, 1.0), ("power", 2.0, 0.5, 0.25)],
)
def test_progress_function_options(progress, param, x, expected):
    m = _wl(progress=progress, progress_param=param).jobs[0].model
    assert m.g(x) == pytest.approx(expected)
    assert m.steps_per_second(x * 12.8, 12.8) == pytest.approx(3000 / 215.0 * expected)


def test_alone_a_job_trains_in_its_solo_time_and_ends_with_its_training():
    wl = _wl(n_jobs=1)
    r = simulate(wl, RoundRobin())
    row = r.jobs.iloc[0]
    assert row["jct_seconds"] == pytest.approx(215.0)
    assert row["work_done"] == pytest.approx(3000.0)
    assert row["status"] == "finished"


def test_solo_time_is_proportional_to_the_steps():
    wl = _wl(schedule="random", seed=1)
    for s in wl.jobs:
        assert s.model.solo_seconds == pytest.approx(215.0 * s.model.work / 3000.0)
    wl = _wl(schedule="random", seed=1, solo_mode="equal")
    assert {s.model.solo_seconds for s in wl.jobs} == {215.0}


def test_fifo_reproduces_the_spec_ds_note_on_the_fixed_schedule():
    """Spec 7.5 [N]: equal sharing, g(x) = x, tau = 215 s: DS mean 275 s, makespan 1225 s."""
    r = simulate(_wl(), RoundRobin())
    assert r.jobs["jct_seconds"].mean() == pytest.approx(275.0, abs=0.5)
    assert r.jobs["completion_time"].max() * 0.1 == pytest.approx(1225.0, abs=0.5)


# ------------------------------------------------------------------------- evaluation function


def test_evaluation_function_from_the_real_curve():
    m = _wl().jobs[0].model
    L = curve_losses(m.curve)
    k = m.steps_per_epoch
    assert m.eval_window == k == 15
    assert m.first_value == m.evaluation(0.0) == L[0]  # before the first step: E(first step)
    assert m.evaluation(0.7) == L[0]  # mid-iteration: previous value (l. 168)
    assert m.evaluation(100.5) == pytest.approx(L[85:100].mean())
    assert m.evaluation(1e9) == pytest.approx(L[-15:].mean())  # capped at the job's steps
    np.testing.assert_allclose(m.observations(2 * k + 3), [L[:k].mean(), L[k : 2 * k].mean()])
    assert m.observations(k - 1).size == 0
    literal = _wl(eval_window=1).jobs[0].model
    assert literal.evaluation(100.5) == L[99]


def test_every_type_maps_to_a_committed_curve():
    for kind, curve in TYPE_CURVES.items():
        assert len(curve_losses(curve)) > 1000, kind


# --------------------------------------------------------------------------------- migration


@pytest.mark.parametrize("pause", [0.0, 2.5, 5.0, 10.0])
def test_migration_pause_is_honoured_by_the_simulator(pause):
    """One container alone moves at 100 s to an empty node: it finishes ``pause`` s later."""
    wl = _wl(n_jobs=1, migration_pause=pause)
    stay = Scripted({0: lambda v: Decision({0: P({0: 1})}, admit=[0], wakeup=1000)})
    move = Scripted(
        {
            0: lambda v: Decision({0: P({0: 1})}, admit=[0], wakeup=1000),
            1000: lambda v: Decision({0: P({1: 1})}),
        }
    )
    base, moved = simulate(wl, stay), simulate(wl, move)
    b, m = base.jobs.iloc[0], moved.jobs.iloc[0]
    assert b["jct_seconds"] == pytest.approx(215.0)
    assert m["jct_seconds"] - b["jct_seconds"] == pytest.approx(pause)
    assert m["migrations"] == 1 and m["work_done"] == pytest.approx(3000.0)


def test_pause_spread_option_and_infinite_pause_rejected():
    wl = _wl(pause_sd=PAUSE_SD_PAPER, seed=2)
    p = np.array([s.model.migration_pause for s in wl.jobs])
    assert np.all(p >= 0) and len(set(p)) > 1
    with pytest.raises(ValueError, match="migration_pause"):
        _wl(migration_pause=math.inf)
    with pytest.raises(ValueError, match="migration_pause"):
        SpeconJob(work=10.0, migration_pause=math.inf, curve=TYPE_CURVES["VAE-T"])


# ------------------------------------------------------------------------------- determinism


def test_same_generator_seed_same_workload():
    for kw in (
        {"schedule": "random", "n_jobs": 30},
        {"schedule": "fixed", "solo_jitter": 0.2, "pause_sd": 1.0},
    ):
        a, b = _wl(seed=7, **kw), _wl(seed=7, **kw)
        assert a.jobs == b.jobs and a.cluster == b.cluster
    a, b = _wl(schedule="random", seed=7), _wl(schedule="random", seed=8)
    assert [s.submit_time for s in a.jobs] != [s.submit_time for s in b.jobs]
    # one option does not shift another's draws (one stream per concern)
    a, b = _wl(schedule="random", seed=7), _wl(schedule="random", seed=7, pause_sd=1.0)
    assert [s.submit_time for s in a.jobs] == [s.submit_time for s in b.jobs]
    assert [s.name for s in a.jobs] == [s.name for s in b.jobs]


# ----------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "kw, shown",
    [
        ({"cores": 0}, "cores must be a finite number > 0, got 0"),
        ({"cores": -16}, "cores must be a finite number > 0, got -16"),
        ({"steps": 3001}, "steps=3001 is longer than loss curve 'iris_mlp_sgd_slow'"),
        ({"schedule": "poisson"}, "schedule must be one of ('fixed', 'random'), got 'poisson'"),
        ({"n_jobs": 0}, "n_jobs must be an integer >= 1, got 0"),
        ({"n_jobs": -3}, "n_jobs must be an integer >= 1, got -3"),
        ({"n_jobs": 2.5}, "n_jobs must be an integer >= 1, got 2.5"),
        ({"cluster": 3}, "cluster must be one of (1, 2), got 3"),
        ({"interval": 0}, "interval must be a finite number > 0, got 0"),
        ({"schedule": "random", "n_jobs": 25}, "span must be given for a random schedule of n_jobs=25"),
        ({"schedule": "random", "span": -1.0}, "span must be a finite number >= 0, got -1.0"),
        ({"types": ("VAE-X",)}, "types has unknown type 'VAE-X'"),
        ({"types": ()}, "types must be a non-empty sequence of type names, got ()"),
        ({"cpu_usable": 1.2}, "cpu_usable must be in (0, 1], got 1.2"),
        ({"cpu_sharing": "fair"}, "cpu_sharing must be one of ('equal', 'cap'), got 'fair'"),
        ({"cpu_cap": 0}, "cpu_cap must be a finite number > 0, got 0"),
        ({"progress": "sqrt"}, "progress must be one of ('linear', 'cap', 'power'), got 'sqrt'"),
        ({"solo_seconds": 0}, "solo_seconds must be a finite number > 0, got 0"),
        ({"eval_window": 0}, "eval_window must be an integer >= 1, got 0"),
        ({"pause_sd": -1}, "pause_sd must be a finite number >= 0, got -1"),
        ({"slot_seconds": 0}, "slot_seconds must be a finite number > 0, got 0"),
        ({"container_mem_gb": 65}, "container_mem_gb=65.0 exceeds a node's mem_gb=64.0"),
    ],
)
def test_bad_input_names_field_and_value(kw, shown):
    with pytest.raises(ValueError) as e:
        _wl(**kw)
    assert str(e.value).startswith("specon_workload: " + shown)


def test_job_longer_than_its_curve_is_rejected_by_the_model():
    curve = TYPE_CURVES["GRU-P"]
    n = len(curve_losses(curve))
    SpeconJob(work=float(n), curve=curve)
    with pytest.raises(ValueError, match=rf"work={float(n + 1)!r} steps is longer than loss curve"):
        SpeconJob(work=float(n + 1), curve=curve)
    with pytest.raises(ValueError, match="curve"):
        SpeconJob(work=1.0, curve="no_such_curve")
    with pytest.raises(ValueError, match="progress_param"):
        SpeconJob(work=1.0, curve=curve, progress="cap", progress_param=2.0)


# ------------------------------------------------------------------------------- command line


def test_registered_and_runs_on_the_cli_with_fifo(tmp_path):
    assert "specon" in registry.workload_names()
    out = tmp_path / "run"
    argv = ["run", "--workload", "specon", "--policy", "fifo", "--seed", "0", "--out", str(out)]
    assert cli.main(argv) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["finished"] == 20 and summary["slot_seconds"] == 0.1
    # FIFO's round robin is DS's fixed placement here: the spec's DS note (7.5)
    assert summary["mean_jct"] * 0.1 == pytest.approx(275.0, abs=0.5)
    bad = ["run", "--workload", "specon", "--policy", "fifo", "--param", "workload.cores=0"]
    assert cli.main([*bad, "--out", str(tmp_path / "bad")]) == 2
    assert not (tmp_path / "bad").exists()


# -------------------------------------------------------------------------------- calibration


def test_ds_placement_and_calibration_of_the_solo_time():
    wl = _wl(schedule="random", n_jobs=30, seed=4)
    jct = ds_completion_times(wl)
    assert len(jct) == 30 and np.all(jct >= np.array([s.model.solo_seconds for s in wl.jobs]) - 1e-6)
    tau = calibrate_solo_seconds(PAPER_DS_MEAN["fig5"])
    assert tau == pytest.approx(215.0, abs=0.5)  # spec 7.5 [N]
    assert ds_completion_times(_wl(solo_seconds=tau)).mean() == pytest.approx(275.2, abs=0.05)
    with pytest.raises(ValueError, match="target_mean=1e-06 is not reachable"):
        calibrate_solo_seconds(1e-6)


def test_pause_as_unplaced_stretch_costs_the_same_and_frees_the_cpu():
    """The documented alternative to ``switch_pause``: no placement for ``pause_slots`` slots,
    then a fresh start on the target (no second pause)."""
    wl = _wl(n_jobs=1)
    k = wl.jobs[0].model.pause_slots(wl.cluster.slot_seconds)
    assert k == 50
    pol = Scripted(
        {
            0: lambda v: Decision({0: P({0: 1})}, admit=[0], wakeup=1000),
            1000: lambda v: Decision({}, wakeup=1000 + k),
            1000 + k: lambda v: Decision({0: P({1: 1})}),
        }
    )
    r = simulate(wl, pol)
    assert r.jobs.iloc[0]["jct_seconds"] == pytest.approx(215.0 + 5.0)
    assert set(r.runs.loc[r.runs["slot"] == 1000, "server"]) == set()  # nothing held while paused

"""SpeCon's ``advance`` option: how the policy asks the engine to advance time (issue 23).

``advance="every_tick"`` (the default) wakes at every tick of Algorithms 1 and 3;
``advance="events"`` only where something can change, evaluating the ticks in between from each
container's work and rate (:class:`dlsched.specon.policy.SpeCon`, *Advancing time*). The events
mode is not bit-identical (the engine's work sums are cut at other slots), so the property checked
here is: the same moves (slot, job, kind, target), the same category changes, completion times
within :data:`JCT_RTOL` relative, and fewer decisions.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_specon_policy import FAST, instance

from dlsched import registry
from dlsched.core.schedule import check_intervals
from dlsched.core.simulator import simulate
from dlsched.specon.model import specon_workload
from dlsched.specon.policy import ADVANCES, SpeCon

JCT_RTOL = 1e-12
"""Largest relative difference of a completion time allowed between the two modes on these
cases (measured: at most 1.2e-14 over every reading of the spec on four workloads)."""


def _fig12(seed: int = 0):
    """Fig. 12's schedule (50 jobs in [0, 1200] s on cluster 2), a fixed solo time (no
    calibration, to keep the test fast)."""
    return specon_workload(np.random.default_rng(seed), schedule="random", n_jobs=50, span=1200.0,
                           cluster=2, solo_seconds=400.0)  # fmt: skip


def _moves(pol):
    return [(e["slot"], e["job"], e["event"], e.get("to")) for e in pol.events]


def _cats(pol):
    return [(x["slot"], x["job"], x["from"], x["to"]) for x in pol.transitions]


def test_default_is_every_tick_and_unchanged():
    assert ADVANCES == ("every_tick", "events")
    assert SpeCon().advance == "every_tick"
    assert registry.make_policy("specon").params["advance"] == "every_tick"
    wl = instance()
    a = simulate(wl, SpeCon(**FAST), check=True)
    b = simulate(wl, SpeCon(**FAST, advance="every_tick"), check=True)
    assert a.jobs.equals(b.jobs) and a.runs.equals(b.runs) and a.decisions == b.decisions


@pytest.mark.parametrize("value", ["event", "", "EVENTS", None, 1, True])
def test_bad_advance_names_field_and_value(value):
    with pytest.raises(ValueError, match="specon.advance") as err:
        SpeCon(advance=value)
    assert repr(value) in str(err.value)


@pytest.mark.parametrize(
    "wl_name,option",
    [
        ("hand", {}),
        ("hand", {"cascade": "full"}),
        ("hand", {"gain_norm": "previous"}),
        ("hand", {"request_scope": "worker"}),
        ("hand", {"monitor_clock": "global"}),
        ("hand", {"rebalance_trigger": "all_converged"}),
        ("hand", {"t_cj": "entered_cc"}),
        ("hand", {"migrate": False}),
        ("hand", {"extra_pause": 7.5}),
        ("fig12", {}),
        ("fig12", {"cascade": "cc_request"}),
        ("fig12", {"gain_norm": "minmax"}),
        ("fig12", {"score_mode": "cpu_weighted"}),
        ("fig12", {"move_limit": "once_per_algorithm"}),
        ("conv", {}),
    ],
)
def test_events_same_moves_and_categories_fewer_decisions(wl_name, option):
    if wl_name == "hand":
        wl, kw = instance(), {**FAST, **option}
    elif wl_name == "fig12":
        wl, kw = _fig12(), option
    else:  # the reading "a converged container needs less CPU" (issue 22): phase wake-ups too
        wl = specon_workload(np.random.default_rng(1), schedule="random", n_jobs=30, span=600.0, cluster=1,
                             solo_seconds=300.0, converged_cpu=0.5)  # fmt: skip
        kw = option
    tick, events = SpeCon(**kw), SpeCon(**kw, advance="events")
    a = simulate(wl, tick, check=True)
    b = simulate(wl, events, check=True)  # the engine's checker validates every decision
    # a valid schedule, re-checked from its intervals; every job finishes, moves at most as allowed
    assert check_intervals(wl.cluster, wl.specs, b.intervals) > 0
    assert (b.jobs["status"] == "finished").all()
    limit = 2 if option.get("move_limit") == "once_per_algorithm" else 1
    assert (b.jobs["migrations"] <= limit).all()
    # the property: the same decisions, completion times equal up to rounding, fewer decisions
    assert _moves(events) == _moves(tick)
    assert _cats(events) == _cats(tick)
    jct_a, jct_b = a.jobs["jct"].to_numpy(), b.jobs["jct"].to_numpy()
    np.testing.assert_allclose(jct_b, jct_a, rtol=JCT_RTOL, atol=0)
    assert b.decisions < a.decisions


def test_events_with_alpha_zero_is_ds():
    wl = instance()
    ds = simulate(wl, registry.make_policy("k8s_default"), check=True)
    ev = simulate(wl, SpeCon(alpha=0.0, interval=10.0, advance="events"), check=True)
    assert ev.jobs["jct"].equals(ds.jobs["jct"])


def test_events_on_a_long_trace_prefix_skips_the_idle_ticks():
    """The first 12 Philly jobs (41 days of 0.1-s slots): the default wakes 371,474 times; the
    events mode far fewer, with the same moves and category changes."""
    from dlsched.arena import mapping

    df = mapping.trace_jobs("philly")
    attrs = dict(df.attrs)
    df = df.iloc[:12].copy()
    df.attrs.update(attrs)
    wl = mapping.map_jobs(df, "specon", np.random.default_rng(0))
    pol = mapping.make_policy("specon", wl, advance="events")
    res = simulate(wl, pol, seed=0)
    assert (res.jobs["status"] == "finished").all()
    assert res.decisions < 20_000  # every_tick: 371,474 (tests/test_trace_identity.py)
    moves = [e for e in pol.events if e["event"] in ("M", "R")]
    assert len(moves) == 10 and len(pol.transitions) == 1294  # as every_tick

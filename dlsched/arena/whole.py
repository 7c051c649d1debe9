"""The arena on whole traces (issue 23): each paper's scheduler and the baselines its paper
compared it with, on every job of a real trace, on the trace's own machines.

Notebook 60's head-to-head runs one week of one cluster (the first ``max_jobs`` jobs, a shrunk
cluster) so that many seeds and every policy fit in a regeneration; this module adds the other
end: the whole Microsoft Philly trace (82,182 jobs, on its own nodes) and the whole ITP trace (all
ten clusters), one seed, ``node_scale = 1``. The points are ordinary arena points
(:func:`dlsched.arena.experiments.arena_point` with ``week = cluster = None``), so they go through
the same sweep, cache and results store; only the grid differs.

Which schedulers, and why not all of them
    Per job model, the paper's scheduler and the baselines of :data:`~dlsched.arena.experiments.
    PAPER_POLICY` (its paper's comparison), so that :func:`~dlsched.arena.experiments.claims`
    gives each paper's verdict on a whole trace. PD-ORS is left out (:data:`NOT_ON_WHOLE_TRACES`):
    it solves LPs at every admission decision, and its time inside HiGHS alone on the whole Philly
    trace is many hours (measured over the first 8,026 decisions of the whole-trace run, then
    bounded below, by ``benchmarks/bench_pdors_floor.py``; the README's performance table), so a
    whole-trace point cannot be part of a regeneration. A baseline too slow for a
    whole trace (:data:`SLOW_ON_WHOLE_TRACES`) is left out of its panel the same way.

Horizon
    Every model runs until each job is done, except A_online's (:data:`WHOLE_HORIZON`): its
    rounds double and admit only what fits side by side at a round's start, so on a whole trace
    the jobs left over wait for ever later rounds (the run stops with an error past slot
    :math:`2^{62}`); its panel (A_online and its baselines alike) stops at twice the last arrival
    (:func:`~dlsched.arena.experiments.simulation_horizon`) and counts the rest ``unfinished``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from dlsched.arena import experiments as ax

__all__ = [
    "NOT_ON_WHOLE_TRACES",
    "SLOW_ON_WHOLE_TRACES",
    "WHOLE_HORIZON",
    "WHOLE_TRACES",
    "recorded_minutes",
    "skipped_sentences",
    "whole_trace_grid",
    "whole_trace_table",
]

WHOLE_TRACES: tuple[str, ...] = ("philly", "itp")
"""The traces :func:`whole_trace_grid` knows (:func:`dlsched.arena.mapping.trace_jobs`)."""

WHOLE_HORIZON: Mapping[str, str] = {"aonline": "twice-last-arrival"}
"""``sim_horizon`` of a model's whole-trace points (absent: until every job is done)."""

NOT_ON_WHOLE_TRACES: Mapping[str, str] = {
    "pdors": (
        "PD-ORS solves LPs at every admission decision; on the whole Philly trace its time inside "
        "HiGHS alone is many hours (its first 8,026 decisions took 61 min inside HiGHS and 90 min "
        "in all, and the cost per decision still grows: benchmarks/bench_pdors_floor.py, see the "
        "README's performance table), too long for a regeneration"
    ),
}
"""Job models whose paper scheduler is not run on whole traces, and why."""

SLOW_ON_WHOLE_TRACES: Mapping[tuple[str, str], str] = {
    ("tetris", "optimus"): (
        "on Optimus's job model it did not finish the first 8,000 Philly jobs within the time a "
        "whole-trace point may take"
    ),
    ("drf", "optimus"): (
        "on Optimus's job model it did not finish the first 4,000 Philly jobs within the time a "
        "whole-trace point may take (on the other models it runs)"
    ),
}
"""(baseline, job model) pairs left out of the whole-trace panels, and why (measured with
``benchmarks/bench_arena_whole.py --extra POLICY:MODEL``; the README's performance table)."""


def whole_trace_grid(
    traces: Sequence[str] = WHOLE_TRACES,
    *,
    models: Sequence[str] | None = None,
    seeds: Sequence[int] = (0,),
    max_jobs: int | None = None,
) -> list[dict]:
    """The whole-trace points: for each trace and each job model of ``PAPER_POLICY`` (all but
    :data:`NOT_ON_WHOLE_TRACES`, or ``models``), the paper's scheduler and its paper's baselines
    that can run the model (but :data:`SLOW_ON_WHOLE_TRACES`), on ``max_jobs`` jobs of the trace
    (None: every job) on the trace's own machines (``node_scale = 1``), with the model's
    :data:`WHOLE_HORIZON`.

    Raises
    ------
    ValueError
        An unknown trace or model, a model of :data:`NOT_ON_WHOLE_TRACES`, or ``max_jobs`` not
        None and not an int >= 1.
    """
    traces = list(traces)
    bad = [t for t in traces if t not in WHOLE_TRACES]
    if bad or not traces:
        raise ValueError(f"traces must be a non-empty list of {list(WHOLE_TRACES)}, got {traces!r}")
    known = [m for m in ax.PAPER_POLICY if m not in NOT_ON_WHOLE_TRACES]
    if models is None:
        chosen = known
    else:
        chosen = list(models)
        for m in chosen:
            if m in NOT_ON_WHOLE_TRACES:
                raise ValueError(f"model {m!r} is not run on whole traces: {NOT_ON_WHOLE_TRACES[m]}")
            if m not in known:
                raise ValueError(f"unknown model {m!r} for whole traces; known: {known}")
    bad_max = isinstance(max_jobs, bool) or not isinstance(max_jobs, int) or max_jobs < 1
    if max_jobs is not None and bad_max:
        raise ValueError(f"max_jobs must be None or an int >= 1, got {max_jobs!r}")
    grid: list[dict] = []
    for trace in traces:
        for model in chosen:
            ours = ax.PAPER_POLICY[model][1]
            bases = [b for b in ax.PAPER_POLICY[model][4] if (b, model) not in SLOW_ON_WHOLE_TRACES]
            grid += ax.arena_grid(trace=trace, week=None, cluster=None, models=[model],
                                  policies=[ours, *bases], seeds=seeds, max_jobs=max_jobs,
                                  node_scale=1.0, sim_horizon=WHOLE_HORIZON.get(model))  # fmt: skip
    return grid


def whole_trace_table(summary: pd.DataFrame) -> pd.DataFrame:
    """One row per (trace, model, policy) of a whole-trace :func:`~dlsched.arena.experiments.
    summarise`: the paper's scheduler first in each panel, then its baselines in the paper's
    order, with ``finished_pct`` (share of the jobs finished) and ``horizon`` (the panel's
    :data:`WHOLE_HORIZON`, ``"none"`` when it runs until every job is done)."""
    need = {"trace", "model", "policy", "jobs", "finished"}
    missing = sorted(need - set(summary.columns))
    if missing:
        raise ValueError(f"whole_trace_table: summary lacks column(s) {missing}")
    rank = {}
    for model, spec in ax.PAPER_POLICY.items():
        for i, pol in enumerate((spec[1], *spec[4])):
            rank[(model, pol)] = i
    out = summary.copy()
    out["_r"] = [rank.get((m, p), len(rank)) for m, p in zip(out["model"], out["policy"], strict=True)]
    out["_t"] = [WHOLE_TRACES.index(t) if t in WHOLE_TRACES else len(WHOLE_TRACES) for t in out["trace"]]
    out["_m"] = [list(ax.PAPER_POLICY).index(m) if m in ax.PAPER_POLICY else 99 for m in out["model"]]
    out = out.sort_values(["_t", "_m", "_r"], kind="stable").drop(columns=["_r", "_t", "_m"])
    out.insert(out.columns.get_loc("finished") + 1, "finished_pct", 100.0 * out["finished"] / out["jobs"])
    out["horizon"] = [WHOLE_HORIZON.get(m, "none") for m in out["model"]]
    return out.reset_index(drop=True)


def skipped_sentences() -> list[str]:
    """Why each model of :data:`NOT_ON_WHOLE_TRACES` and each policy of
    :data:`SLOW_ON_WHOLE_TRACES` has no whole-trace points."""
    from dlsched.arena.findings import DISPLAY_NAMES

    out = [f"Not run on whole traces: {ax.PAPER_POLICY[m][0]} ({why})."
           for m, why in NOT_ON_WHOLE_TRACES.items()]
    out += [f"Not run on whole traces: {DISPLAY_NAMES.get(p, p)} on the {m} model ({why})."
            for (p, m), why in SLOW_ON_WHOLE_TRACES.items()]
    return out


def recorded_minutes(grid: Sequence[Mapping], store=None) -> pd.DataFrame:
    """How long each point of ``grid`` took when it was recorded into the results ``store`` (a
    :class:`dlsched.store.ResultStore` or its folder; the manifest's ``seconds``, wall-clock time
    of the worker that computed it, so not part of any audited table): one row per point found,
    columns ``trace, model, policy, minutes``, in grid order. Empty without a store."""
    cols = ["trace", "model", "policy", "minutes"]
    if store is None:
        return pd.DataFrame(columns=cols)
    from dlsched.experiments import cache_key
    from dlsched.store import ResultStore

    entries = (store if isinstance(store, ResultStore) else ResultStore(store)).entries()
    rows = []
    for p in grid:
        e = entries.get(cache_key(ax.arena_point, p))
        if e is not None and e.get("seconds") is not None:
            rows.append([p["trace"], p["model"], p["policy"], float(e["seconds"]) / 60.0])
    return pd.DataFrame(rows, columns=cols)

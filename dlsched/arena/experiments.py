r"""The arena: every registered scheduler on the same real-trace jobs, on common metrics.

One point of the arena is (trace, cluster, week, job model, policy, seed): the trace window's
jobs are mapped to the model's jobs by :func:`dlsched.arena.mapping.map_jobs` (with the seed), the
policy is run on them by the one simulator, and :func:`metrics_row` reduces the result to the
common metrics. :func:`arena_grid` lists the points of every compatible (model, policy) pair;
:func:`run_arena` runs them through :func:`dlsched.experiments.sweep` (serially, on a local Dask
cluster, or on any scheduler address), with the result cache.

The common metrics (one row per point)
--------------------------------------
``jobs, admitted, rejected, finished, unfinished``
    counts (``admitted`` counts jobs the policy admitted, finished or not; policies without
    admission control admit every job they start).
``mean_jct_h, p95_jct_h``
    completion time (finish minus submission) of the finished jobs, in hours.
``makespan_h``
    first submission to last completion, hours.
``total_utility``
    sum of the finished jobs' utilities, for the models that define one (OASiS, PD-ORS); NaN for
    the others (their jobs carry no utility).
``utilisation``
    accelerator-time allocated over accelerator-time available between the first submission and
    the end of the run: GPUs (every ``gpu`` or ``gpu:<pool>`` resource) where the cluster has
    them, else CPU cores (SpeCon's nodes); A_online's worker slots stand for GPUs. SpeCon's CPU is
    compressible (time-shared): a policy that stacks containers beyond a node's cores places more
    demand than there is, and this ratio then exceeds 1.
``decisions``
    how many times the policy was asked.

Wall time is not a metric of the table (it would make a sweep's result depend on the machine);
:mod:`benchmarks.bench_arena_scale` measures it.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from dlsched import registry
from dlsched.arena import mapping
from dlsched.core.jobs import Workload
from dlsched.core.schedule import ScheduleViolation

__all__ = [
    "METRICS",
    "UTILITY_MODELS",
    "arena_grid",
    "arena_point",
    "compatibility_table",
    "metrics_row",
    "run_arena",
    "simulation_horizon",
    "trace_workload",
]

METRICS: tuple[str, ...] = (
    "jobs", "admitted", "rejected", "finished", "unfinished", "mean_jct_h", "p95_jct_h",
    "makespan_h", "total_utility", "utilisation", "decisions",
)  # fmt: skip
"""Columns of :func:`metrics_row`, in order."""

UTILITY_MODELS: frozenset[str] = frozenset({"oasis", "pdors"})
"""Job models whose jobs carry a utility (the others' ``total_utility`` is NaN; A_online's jobs
carry a weight, 1 for every mapped job, and its objective is a completion time)."""


# --------------------------------------------------------------------------- the workload


@functools.lru_cache(maxsize=8)
def _frame(trace: str, week, cluster, data_dir) -> pd.DataFrame:
    return mapping.trace_jobs(trace, week=week, cluster=cluster, data_dir=data_dir)


def _as_key(value):
    """Hashable form of a cluster selection: lists and comma-separated names become tuples."""
    if isinstance(value, str) and "," in value:
        return tuple(v.strip() for v in value.split(","))
    return tuple(value) if isinstance(value, list | tuple) else value


def trace_workload(
    rng: np.random.Generator,
    trace: str = "philly",
    week: int | str | None = None,
    cluster: int | str | Sequence[str] | None = None,
    model: str = "rigid",
    max_jobs: int | None = None,
    node_scale: float = 1.0,
    preemptible: bool = False,
    data_dir: str | None = None,
) -> Workload:
    """Registered workload ``"trace"``: a real trace window mapped to one job model.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of the quantities the trace lacks (:func:`~dlsched.arena.mapping.map_jobs`).
    trace, week, cluster
        The window, as :func:`dlsched.arena.mapping.trace_jobs` (Philly or ITP; a week index or
        start date; a Philly virtual cluster or list of them, an ITP cluster).
    model : str
        One of :data:`dlsched.arena.mapping.MODELS`.
    max_jobs : int, optional
        Keep only the first ``max_jobs`` jobs of the window, in submit order (quick runs).
    node_scale : float, default 1.0
        Multiply every pool's node count (from the trace, :func:`~dlsched.arena.mapping.machine_pools`)
        by this factor, rounding up and keeping at least the nodes the widest job of the pool
        needs: 1.0 is the trace's own machine count, below 1 a more contended cluster.
    preemptible : bool, default False
        A_online jobs only (the Preemptive baseline's ``workload_defaults``): started jobs may be
        paused. Ignored for the other models, whose jobs' preemptibility is their model's.
    data_dir : str, optional
        Folder of the trace files (default :func:`dlsched.traces.data_dir`, ``../shared/data/traces``).

    Raises
    ------
    ValueError
        Unknown trace / model, a week or cluster outside the trace, bad ``max_jobs`` or
        ``node_scale`` (the message names the field and the value), a bad trace file (file, row,
        job id and column named).
    """
    if trace not in mapping.TRACES:
        raise ValueError(f"trace must be one of {list(mapping.TRACES)}, got {trace!r}")
    if model not in mapping.MODELS:
        raise ValueError(f"model must be one of {list(mapping.MODELS)}, got {model!r}")
    if max_jobs is not None and (isinstance(max_jobs, bool) or not isinstance(max_jobs, int) or max_jobs < 1):
        raise ValueError(f"max_jobs must be a positive int or None, got {max_jobs!r}")
    if isinstance(node_scale, bool) or not isinstance(node_scale, int | float) or not (
        0 < node_scale <= 100 and math.isfinite(node_scale)
    ):
        raise ValueError(f"node_scale must be a number in (0, 100], got {node_scale!r}")
    df = _frame(trace, week, _as_key(cluster), None if data_dir is None else str(data_dir))
    if max_jobs is not None:
        attrs = dict(df.attrs)
        df = df.iloc[:max_jobs].copy()
        df.attrs.update(attrs)
    nodes = None
    if node_scale != 1.0:
        table = mapping.machine_pools(df, trace, pools=model in mapping.POOLED_MODELS, data_dir=data_dir)
        per_node = mapping._node_type(mapping.NODE_TYPE)["gpu"]
        nodes = {
            str(r.pool): max(math.ceil(r.nodes * node_scale), math.ceil(r.max_job_gpus / per_node))
            for r in table.itertuples()
        }
        if model not in mapping.POOLED_MODELS:
            nodes = sum(nodes.values())
    extra = {"preemptible": True} if (preemptible and model == "aonline") else {}
    return mapping.map_jobs(df, model, rng, trace=trace, nodes=nodes, data_dir=data_dir, **extra)


# --------------------------------------------------------------------------- metrics


def _accelerator_columns(cluster) -> np.ndarray:
    names = cluster.resources
    gpu = [i for i, r in enumerate(names) if r == "gpu" or r.startswith("gpu:")]
    if gpu:
        return np.asarray(gpu)
    slots = [i for i, r in enumerate(names) if re.fullmatch(r"w\d+", r)]  # A_online's worker types
    if slots:
        return np.asarray(slots)
    return np.asarray([i for i, r in enumerate(names) if r == "cpu" or r.startswith("cpu:")])


def utilisation(result) -> float:
    """Accelerator-time allocated / available from the first submission to the end of the run."""
    wl = result.workload
    cluster = wl.cluster
    cols = _accelerator_columns(cluster)
    if not len(cols) or not wl.jobs:
        return math.nan
    capacity = float(cluster.total_capacity()[cols].sum())
    start = min(s.arrival for s in wl.jobs)
    span = float(result.end_slot - start)
    if capacity <= 0 or span <= 0:
        return math.nan
    runs = result.runs
    if runs.empty:
        return 0.0
    specs = wl.specs
    per_task = {}
    for j in np.unique(runs["job"].to_numpy()):
        spec = specs[int(j)]
        per_task[int(j)] = (
            float(cluster.vector(spec.worker_demand)[cols].sum()),
            float(cluster.vector(spec.ps_demand)[cols].sum()),
        )
    amount = np.fromiter(
        (per_task[j][0] if role == "worker" else per_task[j][1]
         for j, role in zip(runs["job"].tolist(), runs["role"].tolist(), strict=True)),
        dtype=float, count=len(runs),
    )  # fmt: skip
    used = float((amount * runs["count"].to_numpy() * runs["slots"].to_numpy()).sum())
    return used / (capacity * span)


def metrics_row(result) -> dict[str, float]:
    """The common metrics of one run (module docstring), as a dict in :data:`METRICS` order."""
    jobs = result.jobs
    slot_h = result.workload.cluster.slot_seconds / 3600.0
    fin = jobs[jobs["status"] == "finished"]
    jct = fin["jct"].to_numpy(float) * slot_h
    model = result.workload.params.get("model")
    return {
        "jobs": int(len(jobs)),
        "admitted": int(jobs["admitted"].sum()) if "admitted" in jobs else int(len(jobs)),
        "rejected": int((jobs["status"] == "rejected").sum()),
        "finished": int(len(fin)),
        "unfinished": int(len(jobs) - len(fin) - (jobs["status"] == "rejected").sum()),
        "mean_jct_h": float(jct.mean()) if len(jct) else math.nan,
        "p95_jct_h": float(np.percentile(jct, 95)) if len(jct) else math.nan,
        "makespan_h": float((fin["completion_time"].max() - jobs["arrival"].min()) * slot_h)
        if len(fin)
        else math.nan,
        "total_utility": float(jobs["utility"].sum()) if model in UTILITY_MODELS else math.nan,
        "utilisation": utilisation(result),
        "decisions": int(result.decisions),
    }


# --------------------------------------------------------------------------- points and grids

_POINT_KEYS = (
    "trace", "week", "cluster", "model", "policy", "seed", "max_jobs", "node_scale", "sim_horizon",
)  # fmt: skip

SIM_HORIZONS: tuple[str, ...] = ("none", "twice-last-arrival")
"""Named simulation horizons of :func:`simulation_horizon` (an integer >= 1 is also accepted)."""


def simulation_horizon(spec, workload: Workload) -> int | None:
    r"""The slot at which an arena run stops (``horizon`` of :func:`dlsched.core.simulator.simulate`).

    ``None`` or ``"none"``: no horizon, the run lasts until every job is done (the default of every
    arena point). ``"twice-last-arrival"``: :math:`2(a_{\max} + 1)` slots, :math:`a_{\max}` the
    last arrival slot of ``workload``; the jobs still waiting or running then are counted in
    ``unfinished``. An integer >= 1: that slot.

    Why a horizon at all: A_online's rounds double (Alg. 1 line 1, :math:`\tau_i = 2^{i-1}`) and
    every job a round admits starts at :math:`\tau_i` (Alg. 3-4 line 2), so a round admits what
    fits beside each other at its start, however long it is. On a whole trace the jobs outnumber
    what a round admits by far, and the jobs left over wait for ever later rounds: without a
    horizon the run stops past slot :math:`2^{62}` with a clear error
    (:data:`dlsched.aonline.policy.LAST_SLOT`), with one it reports them unfinished.

    Raises
    ------
    ValueError
        Any other value (the message names ``sim_horizon`` and the value).
    """
    if spec is None or spec == "none":
        return None
    if spec == "twice-last-arrival":
        return 2 * (max((s.arrival for s in workload.jobs), default=0) + 1)
    if isinstance(spec, bool) or not isinstance(spec, int | np.integer) or spec < 1:
        raise ValueError(
            f"sim_horizon must be None, one of {list(SIM_HORIZONS)} or an integer >= 1, got {spec!r}"
        )
    return int(spec)


def _workload_params(params: Mapping) -> dict:
    return {k: params.get(k) for k in ("trace", "week", "cluster", "model", "max_jobs")} | {
        "node_scale": params.get("node_scale", 1.0)
    }


def arena_point(params: Mapping) -> pd.DataFrame:
    """Experiment (for :func:`dlsched.experiments.sweep`): one (window, model, policy, seed).

    ``params``: ``trace, week, cluster, model, policy, seed`` and optionally ``max_jobs``,
    ``node_scale`` (as :func:`trace_workload`) and ``sim_horizon`` (:func:`simulation_horizon`;
    absent or None: run until every job is done). The workload gets the seed's first child stream,
    the policy the simulator's (``seed``), so the row depends on ``params`` only.

    Returns
    -------
    pandas.DataFrame
        One row, columns :data:`METRICS` and ``note``: empty, or why the policy refused the
        mapped jobs at construction (e.g. Preemptive's one-server placement and a job wider than
        any server), or the schedule rule the policy broke on these jobs, caught by the
        simulator's independent checker (e.g. a policy that moves a job whose model forbids it);
        the metrics are then NaN. Other errors are raised.
    """
    from dlsched.core.simulator import simulate

    unknown = sorted(set(params) - set(_POINT_KEYS))
    if unknown:
        raise ValueError(f"arena_point: unknown parameter(s) {unknown}; known: {list(_POINT_KEYS)}")
    policy, model, seed = params["policy"], params["model"], int(params.get("seed", 0))
    mapping.check_policy(policy, model)
    wparams = _workload_params(params)
    wparams.update(registry.workload_defaults(policy, "trace"))
    wl = trace_workload(np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0]), **wparams)
    horizon = simulation_horizon(params.get("sim_horizon"), wl)
    try:
        pol = mapping.make_policy(policy, wl)
    except ValueError as e:  # the policy refuses these jobs (e.g. one wider than any server)
        row = dict.fromkeys(METRICS, math.nan) | {"jobs": len(wl.jobs), "note": f"cannot run: {e}"}
        return pd.DataFrame([row], columns=[*METRICS, "note"])
    try:
        res = simulate(wl, pol, seed=seed, horizon=horizon)
    except ScheduleViolation as e:  # the independent checker caught the policy breaking a rule
        row = dict.fromkeys(METRICS, math.nan) | {"jobs": len(wl.jobs), "note": f"schedule violation: {e}"}
        return pd.DataFrame([row], columns=[*METRICS, "note"])
    except (ValueError, OverflowError) as e:  # the policy itself gives up on these jobs
        note = f"run failed: {type(e).__name__}: {e}"
        row = dict.fromkeys(METRICS, math.nan) | {"jobs": len(wl.jobs), "note": note}
        return pd.DataFrame([row], columns=[*METRICS, "note"])
    return pd.DataFrame([metrics_row(res) | {"note": ""}], columns=[*METRICS, "note"])


def compatibility_table(
    policies: Sequence[str] | None = None, models: Sequence[str] | None = None
) -> pd.DataFrame:
    """Which policy can run which mapped model, and why not (one row per pair).

    Columns ``model, policy, runs`` (bool) and ``reason`` (empty when it runs); found by running
    (:func:`dlsched.arena.mapping.compatible_policies`).
    """
    policies = _check_names(policies, registry.policy_names(), "policy")
    models = _check_names(models, list(mapping.MODELS), "model")
    rows = []
    for m in models:
        ok = set(mapping.compatible_policies(m))
        for p in policies:
            why = ""
            if p not in ok:
                try:
                    mapping.check_policy(p, m)
                except ValueError as e:
                    why = str(e).split(". Policies that can:")[0]
            rows.append({"model": m, "policy": p, "runs": p in ok, "reason": why})
    return pd.DataFrame(rows, columns=["model", "policy", "runs", "reason"])


def _check_names(given, known: Sequence[str], what: str) -> list[str]:
    if given is None:
        return list(known)
    if isinstance(given, str):
        given = [given]
    bad = [g for g in given if g not in known]
    if bad:
        raise ValueError(f"unknown {what}(s) {bad}; known: {list(known)}")
    if not given:
        raise ValueError(f"{what} list is empty; known: {list(known)}")
    return list(dict.fromkeys(given))


def arena_grid(
    *,
    trace: str = "philly",
    week: int | str | None = None,
    cluster=None,
    models: Sequence[str] | None = None,
    policies: Sequence[str] | None = None,
    seeds: Sequence[int] = (0,),
    max_jobs: int | None = None,
    node_scale: float = 1.0,
    sim_horizon: int | str | None = None,
) -> list[dict]:
    """The sweep points: every compatible (model, policy) pair of ``models`` x ``policies``, for
    each seed (model-major, then policy, then seed). Unknown names raise ValueError.
    ``sim_horizon`` (:func:`simulation_horizon`) is added to the points only when not None, so a
    point without a horizon keeps its parameters (and its results-store key)."""
    table = compatibility_table(policies, models)
    seeds = list(seeds)
    if not seeds or any(isinstance(s, bool) or not isinstance(s, int | np.integer) or s < 0 for s in seeds):
        raise ValueError(f"seeds must be a non-empty list of ints >= 0, got {seeds!r}")
    base = {"trace": trace, "week": week, "cluster": _as_key(cluster), "max_jobs": max_jobs,
            "node_scale": float(node_scale)}  # fmt: skip
    if isinstance(base["cluster"], tuple):
        base["cluster"] = ",".join(base["cluster"])
    if sim_horizon is not None:
        named = isinstance(sim_horizon, str) and sim_horizon in SIM_HORIZONS
        whole = isinstance(sim_horizon, int) and not isinstance(sim_horizon, bool) and sim_horizon >= 1
        if not (named or whole):
            raise ValueError(
                f"sim_horizon must be None, one of {list(SIM_HORIZONS)} or an integer >= 1, "
                f"got {sim_horizon!r}"
            )
        base["sim_horizon"] = sim_horizon
    return [
        {**base, "model": r.model, "policy": r.policy, "seed": int(s)}
        for r in table[table["runs"]].itertuples()
        for s in seeds
    ]


def run_arena(
    grid: Sequence[Mapping],
    *,
    scheduler="serial",
    cache_dir=None,
    progress: bool = False,
    store=None,
) -> pd.DataFrame:
    """Run :func:`arena_point` over ``grid`` through :func:`dlsched.experiments.sweep`.

    ``scheduler``, ``cache_dir``, ``progress`` and ``store`` are passed to
    :func:`~dlsched.experiments.sweep`: ``store`` (a :class:`dlsched.store.ResultStore` or its
    folder, read-only; default None, no store) is looked up for each point before ``cache_dir``.
    """
    from dlsched.experiments import sweep

    return sweep(
        arena_point, list(grid), scheduler=scheduler, cache_dir=cache_dir, progress=progress, store=store
    )


# --------------------------------------------------------------------------- summaries, claims, figures

PAPER_POLICY: Mapping[str, tuple[str, str, str, str, tuple[str, ...]]] = {
    # model: (paper, its scheduler, metric, better, baselines the paper compares with)
    "oasis": ("OASiS", "oasis", "total_utility", "higher", ("fifo", "drf", "rrh", "dorm")),
    "pdors": ("PD-ORS", "pdors", "total_utility", "higher", ("oasis_split", "fifo", "drf", "dorm")),
    "aonline": ("A_online", "aonline", "mean_jct_h", "lower", ("batchsche", "preemptive", "fifo")),
    "optimus": ("Optimus", "optimus", "mean_jct_h", "lower", ("drf", "tetris")),
    "specon": ("SpeCon", "specon", "mean_jct_h", "lower", ("k8s_default",)),
}
"""Each paper's headline claim, as the arena can test it: its scheduler beats the baselines it
was compared with on its own objective, on its own job model: total utility for OASiS and PD-ORS;
average JCT for Optimus and SpeCon, and for A_online, whose objective is the total weighted
completion time (all weights 1 here: the same ranking as the mean JCT, the arrivals being fixed)."""


def summarise(table: pd.DataFrame) -> pd.DataFrame:
    """Mean of every metric over seeds, one row per (trace, model, policy), with ``seeds``."""
    keys = ["trace", "model", "policy"]
    g = table.groupby(keys, sort=False)
    out = g[list(METRICS)].mean()
    out.insert(0, "seeds", g.size())
    return out.reset_index()


def claims(summary: pd.DataFrame, *, margin: float = 0.005) -> pd.DataFrame:
    """Does each paper's headline claim (:data:`PAPER_POLICY`) survive on this trace window?

    One row per (trace, model present): the paper's scheduler's value, the best baseline it was
    compared with and its value, the relative difference (positive = the paper's scheduler is
    better) and ``survives``: "yes" if better than every baseline by more than ``margin``
    (relative), "tie" if within it, "no" otherwise, "-" if either side did not run.
    """
    rows = []
    for trace, tab in summary.groupby("trace", sort=False):
        for model, (paper, ours, metric, better, bases) in PAPER_POLICY.items():
            t = tab[tab["model"] == model].set_index("policy")[metric]
            if ours not in t.index or t.dropna().empty:
                continue
            others = t.reindex([b for b in bases if b in t.index]).dropna()
            mine = float(t.get(ours, math.nan))
            if others.empty or math.isnan(mine):
                rows.append({"trace": trace, "paper": paper, "metric": metric, "scheduler": ours,
                             "value": mine, "best_baseline": "-", "baseline_value": math.nan,
                             "gain_pct": math.nan, "survives": "-"})  # fmt: skip
                continue
            best = others.idxmax() if better == "higher" else others.idxmin()
            ref = float(others[best])
            gain = (mine - ref) / abs(ref) if ref else math.nan
            if better == "lower":
                gain = -gain
            verdict = "yes" if gain > margin else ("tie" if gain >= -margin else "no")
            rows.append({"trace": trace, "paper": paper, "metric": metric, "scheduler": ours, "value": mine,
                         "best_baseline": best, "baseline_value": ref, "gain_pct": 100 * gain,
                         "survives": verdict})  # fmt: skip
    return pd.DataFrame(rows)


def jct_figure(summary: pd.DataFrame):
    """Mean and 95th-percentile JCT of every policy, one panel per (trace, model)."""
    import seaborn as sns

    long = summary.melt(id_vars=["trace", "model", "policy"], value_vars=["mean_jct_h", "p95_jct_h"],
                        var_name="statistic", value_name="hours")  # fmt: skip
    long["statistic"] = long["statistic"].map({"mean_jct_h": "mean", "p95_jct_h": "p95"})
    long["panel"] = long["trace"] + " / " + long["model"]
    g = sns.catplot(data=long, x="hours", y="policy", hue="statistic", col="panel", col_wrap=3, kind="bar",
                    sharey=False, sharex=False, height=2.6, aspect=1.3)  # fmt: skip
    g.set_titles("{col_name}")
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    for ax in g.axes.flat:
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0), numticks=6))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
    g.figure.suptitle("Job completion time (hours, log scale) per job model", y=1.02)
    return g.figure


def utilisation_figure(summary: pd.DataFrame):
    """Utilisation and admitted share of every policy, one panel per (trace, model)."""
    import seaborn as sns

    df = summary.assign(admitted_share=1.0 - summary["rejected"] / summary["jobs"])
    long = df.melt(id_vars=["trace", "model", "policy"], value_vars=["utilisation", "admitted_share"],
                   var_name="measure", value_name="fraction")  # fmt: skip
    long["panel"] = long["trace"] + " / " + long["model"]
    g = sns.catplot(data=long, x="fraction", y="policy", hue="measure", col="panel", col_wrap=3, kind="bar",
                    sharey=False, height=2.6, aspect=1.3)  # fmt: skip
    g.set_titles("{col_name}")
    g.set(xlim=(0, 1.05))
    g.figure.suptitle("Accelerator utilisation and share of jobs admitted", y=1.02)
    return g.figure

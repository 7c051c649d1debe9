r"""Optimus Sec. 6 as experiments: Figs. 11, 13-19 and Table 3, and what the paper reports.

Y. Peng, Y. Bao, Y. Chen, C. Wu, C. Guo, "Optimus: An Efficient Dynamic Resource Scheduler for
Deep Learning Clusters", EuroSys 2018, Sec. 6; ``shared/spec/optimus.md`` section 9. This module
holds the sweepable experiment functions of notebook ``22_optimus_figures`` (each is
``fn(params: dict) -> pandas.DataFrame`` for :func:`dlsched.experiments.sweep`, deterministic
given ``params``, seed included), the summaries the notebook prints, and the paper's numbers.

==========  ================================================  ====================================
figure      what the paper plots                              here
==========  ================================================  ====================================
Figs. 11,13 mean JCT and makespan, Optimus / DRF / Tetris      :func:`job_run`, :func:`run_totals`
Fig. 14     running tasks and normalised CPU usage over time  :func:`timeline_run`
Fig. 15     JCT with injected prediction errors               :func:`job_run` (``*_error``)
Fig. 16     all-sync vs all-async workloads                   :func:`job_run` (``mode``)
Fig. 17     Poisson and Google-trace arrivals                 :func:`job_run` (``arrivals``)
Fig. 18     allocation ablation (Optimus vs DRF allocation)   scheme ``drf_allocation``
Fig. 19     placement ablation                                schemes ``*_placement``
Table 3     PAA vs MXNet's default block assignment           :func:`table3_comparison`
==========  ================================================  ====================================

A *scheme* (:data:`SCHEMES`) is a registered policy with fixed parameters: ``optimus``, ``drf``
(the paper's DRF: load-balanced placement, PS:worker 1:1), ``tetris``, and the ablations
``drf_allocation`` (DRF bundles placed by Optimus's placement, Fig. 18), ``load_balance_placement``
and ``best_fit_placement`` (Optimus's allocation placed task by task, Fig. 19).

Parameters of :func:`job_run` and :func:`timeline_run` (all optional except ``scheme``):

* ``scheme``: a key of :data:`SCHEMES`;
* ``seed``: int >= 0 (default 0): ``make_workload("optimus", seed=seed, ...)`` and
  ``simulate(..., seed=seed)`` (the policy's stream: pre-run noise, injected errors);
* workload parameters of :func:`dlsched.optimus.workload.optimus_workload`: ``n_jobs``,
  ``arrivals``, ``mode``, ``data_scale``, ``rate`` (their defaults when absent);
* ``convergence_error``, ``speed_error`` (Fig. 15; only for schemes that estimate, i.e. not
  ``drf``);
* readings of issue 22 (notebook 22's "Which reading restores the claim"; absent = today's
  runs): ``speed_model`` and ``rescale_seconds`` (workload: Table 2's speed model, a
  checkpoint-and-restart cost; :func:`dlsched.optimus.workload.job_model`), ``error_draw``
  (Fig. 15's error drawn per interval or once per job; only for schemes that estimate) and
  ``policy_params`` (a mapping of further policy parameters over the scheme's own, e.g.
  ``{"max_bundles": 4}`` for Tetris, ``{"priority": 0.95}`` or ``{"oracle": True}`` for Optimus;
  the policy validates them);
* ``horizon``: slots simulated at most (default :data:`DEFAULT_HORIZON`, 50 hours). Every run of
  the paper's workload finishes in well under 20 hours; the horizon only bounds runs in which a
  job can never be placed (see ``22_optimus_figures``: the task-by-task placements of Fig. 19
  can starve a job forever, and without a horizon the simulation would not end).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from dlsched import registry
from dlsched.core import metrics
from dlsched.core.claims import Claim
from dlsched.core.comparison import column_list as _by
from dlsched.core.simulator import SimulationResult, simulate
from dlsched.optimus.workload import ARRIVALS, INTERVAL_SECONDS, MODES, SPEED_MODELS, TABLE1, job_model

__all__ = [
    "DEFAULT_HORIZON",
    "JOB_COLUMNS",
    "PAPER",
    "SCHEMES",
    "TIMELINE_COLUMNS",
    "TOTALS_COLUMNS",
    "error_gaps",
    "beats_claim",
    "complete_runs",
    "finished_claim",
    "job_run",
    "job_table",
    "paper_vs_ours",
    "run_totals",
    "scheme_stats",
    "simulate_scheme",
    "speedup_table",
    "table3_comparison",
    "task_profile",
    "timeline_run",
    "timeline_stats",
    "versus",
]

SCHEMES: Mapping[str, tuple[str, Mapping[str, Any]]] = MappingProxyType(
    {
        "optimus": ("optimus", MappingProxyType({})),
        "drf": ("drf", MappingProxyType({"placement": "load_balance"})),
        "tetris": ("tetris", MappingProxyType({})),
        "drf_allocation": ("optimus", MappingProxyType({"allocation": "drf"})),
        "load_balance_placement": ("optimus", MappingProxyType({"placement": "load_balance"})),
        "best_fit_placement": ("optimus", MappingProxyType({"placement": "best_fit"})),
    }
)
"""Scheme name -> (registry policy name, policy parameters)."""

DEFAULT_HORIZON = 300
"""Default cap on simulated slots (10-minute intervals): 50 hours."""

JOB_COLUMNS: tuple[str, ...] = (
    "job_id", "job_type", "job_mode", "status", "arrival_h", "completion_h", "jct_h",
    "running_slots", "mean_workers", "mean_ps", "max_tasks", "cpu_core_hours",
)  # fmt: skip
"""Columns of :func:`job_run`: the job's id, Table 1 type, sync/async, status (``finished`` or
``unfinished`` at the horizon), arrival and completion time (hours from slot 0; completion NaN
unless finished), JCT (hours, NaN unless finished), slots in which it had tasks, mean workers
and PS over those slots, its largest task count (workers + PS) in one slot, CPU core-hours its
tasks held."""

TIMELINE_COLUMNS: tuple[str, ...] = (
    "slot", "hour", "running_jobs", "running_tasks", "running_workers", "running_ps", "cpu_used",
    "cpu_share",
)  # fmt: skip
"""Columns of :func:`timeline_run`: one row per simulated slot (first arrival to the end), the
slot's start in hours, jobs with tasks, tasks, workers, PS, CPU cores allocated, and those cores
as a fraction of the cluster's (Fig. 14's "normalised CPU usage")."""

TOTALS_COLUMNS: tuple[str, ...] = ("jobs", "finished", "unfinished", "mean_jct_h", "makespan_h")
"""Columns :func:`run_totals` adds to the run keys."""

_ESTIMATING = ("optimus", "tetris")
_WORKLOAD_KEYS = ("n_jobs", "arrivals", "mode", "data_scale", "rate", "speed_model", "rescale_seconds")
_ALLOWED = (
    "scheme", "seed", *_WORKLOAD_KEYS, "convergence_error", "speed_error", "error_draw", "policy_params",
    "horizon",
)  # fmt: skip

PAPER: Mapping[str, Mapping[str, float]] = MappingProxyType(
    {
        "fig11": MappingProxyType({"jct_speedup_vs_drf": 2.39, "makespan_speedup_vs_drf": 1.63,
                                   "makespan_h_optimus": 4.1, "makespan_h_drf": 6.7,
                                   "makespan_h_tetris": 5.0}),
        "fig15": MappingProxyType({"convergence_error": 0.2, "speed_error": 0.1, "jct_gap": 0.15}),
        "fig18": MappingProxyType({"jct_reduction": 0.62, "makespan_reduction": 0.31}),
        "fig19": MappingProxyType({"gain_vs_load_balance": 0.15, "gain_vs_best_fit": 0.10}),
    }
)
"""The paper's reported numbers (Sec. 6.2-6.4 text; spec section 9)."""

# ------------------------------------------------------------------------------- validation


def _int(value: Any, what: str, lo: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < lo:
        raise ValueError(f"{what} must be an integer >= {lo}, got {value!r}")
    return int(value)


def _real(value: Any, what: str, lo: float, hi: float) -> float:
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    x = float(value) if ok else math.nan
    if not ok or not math.isfinite(x) or not lo <= x <= hi:
        raise ValueError(f"{what} must be a number in [{lo}, {hi}], got {value!r}")
    return x


def _parse(params: Any, fn: str) -> tuple[str, int, dict[str, Any], dict[str, Any], int]:
    """Validate run parameters; return scheme, seed, workload kwargs, policy kwargs, horizon."""
    if not isinstance(params, Mapping):
        raise TypeError(f"{fn}: params must be a mapping, got {type(params).__name__}")
    unknown = sorted(set(params) - set(_ALLOWED))
    if unknown:
        raise ValueError(f"{fn}: unknown parameter(s) {unknown}; known: {sorted(_ALLOWED)}")
    if "scheme" not in params:
        raise ValueError(f"{fn}: missing parameter 'scheme' (one of {sorted(SCHEMES)}); got {sorted(params)}")
    scheme = params["scheme"]
    if not isinstance(scheme, str) or scheme not in SCHEMES:
        raise ValueError(f"{fn}: scheme must be one of {sorted(SCHEMES)}, got {scheme!r}")
    seed = _int(params.get("seed", 0), f"{fn}: seed", 0)
    wkw: dict[str, Any] = {}
    if "n_jobs" in params:
        wkw["n_jobs"] = _int(params["n_jobs"], f"{fn}: n_jobs", 1)
    if "arrivals" in params:
        if params["arrivals"] not in ARRIVALS:
            raise ValueError(f"{fn}: arrivals must be one of {ARRIVALS}, got {params['arrivals']!r}")
        wkw["arrivals"] = str(params["arrivals"])
    if "mode" in params:
        if params["mode"] not in MODES:
            raise ValueError(f"{fn}: mode must be one of {MODES}, got {params['mode']!r}")
        wkw["mode"] = str(params["mode"])
    for k in ("data_scale", "rate"):
        if k in params:
            wkw[k] = _real(params[k], f"{fn}: {k}", 1e-9, 1e6)
    if "speed_model" in params:
        if params["speed_model"] not in SPEED_MODELS:
            raise ValueError(
                f"{fn}: speed_model must be one of {SPEED_MODELS}, got {params['speed_model']!r}"
            )
        wkw["speed_model"] = str(params["speed_model"])
    if "rescale_seconds" in params:
        wkw["rescale_seconds"] = _real(params["rescale_seconds"], f"{fn}: rescale_seconds", 0.0, 1e6)
    policy, fixed = SCHEMES[scheme]
    pkw = dict(fixed)
    if "error_draw" in params:
        if params["error_draw"] not in ("interval", "job"):
            raise ValueError(f"{fn}: error_draw must be 'interval' or 'job', got {params['error_draw']!r}")
        if policy not in _ESTIMATING:
            raise ValueError(f"{fn}: scheme {scheme!r} uses no estimates, so error_draw is meaningless")
        pkw["error_draw"] = str(params["error_draw"])
    if "policy_params" in params:
        extra = params["policy_params"]
        if not isinstance(extra, Mapping) or not all(isinstance(k, str) for k in extra):
            raise ValueError(f"{fn}: policy_params must be a mapping of parameter names, got {extra!r}")
        clash = sorted(set(extra) & {"convergence_error", "speed_error", "error_draw"})
        if clash:
            raise ValueError(f"{fn}: policy_params must not set {clash} (top-level parameters)")
        pkw.update(extra)
    for k in ("convergence_error", "speed_error"):
        if k in params:
            e = _real(params[k], f"{fn}: {k}", 0.0, 0.99)
            if policy not in _ESTIMATING and e != 0:
                raise ValueError(f"{fn}: scheme {scheme!r} uses no estimates, so {k}={params[k]!r} "
                                 "is meaningless (only 0 is accepted)")
            if policy in _ESTIMATING:
                pkw[k] = e
    horizon = _int(params.get("horizon", DEFAULT_HORIZON), f"{fn}: horizon", 1)
    return scheme, seed, wkw, pkw, horizon


def simulate_scheme(params: Mapping[str, Any]) -> SimulationResult:
    """Build the workload and the scheme of ``params`` and simulate (parameters as in :func:`job_run`).

    Parameters
    ----------
    params : Mapping
        See the module docstring.

    Returns
    -------
    SimulationResult

    Raises
    ------
    TypeError
        If ``params`` is not a mapping.
    ValueError
        On an unknown or missing parameter or a bad value (the message names it).
    """
    scheme, seed, wkw, pkw, horizon = _parse(params, "simulate_scheme")
    wl = registry.make_workload("optimus", seed=seed, **wkw)
    pol = registry.make_policy(SCHEMES[scheme][0], wl, **pkw)
    return simulate(wl, pol, seed=seed, horizon=horizon)


# ------------------------------------------------------------------------------- experiments


def _per_job_tasks(result: SimulationResult) -> pd.DataFrame:
    """Per job: running slots, mean workers / PS over them, max tasks in a slot, CPU core-hours."""
    a = result.allocations
    ids = result.jobs["job_id"].astype("int64").to_numpy()
    out = pd.DataFrame(index=pd.Index(ids, name="job"))
    if a.empty:
        for c in ("running_slots", "mean_workers", "mean_ps", "max_tasks", "cpu_core_hours"):
            out[c] = 0.0
        return out
    per = a.groupby(["job", "slot", "role"])["count"].sum().unstack("role", fill_value=0)
    for role in ("worker", "ps"):
        if role not in per.columns:
            per[role] = 0
    wl = result.workload
    cpu = wl.cluster.resource_index("cpu")
    wcpu = {int(s.job_id): float(wl.cluster.vector(s.worker_demand)[cpu]) for s in wl.jobs}
    pcpu = {int(s.job_id): float(wl.cluster.vector(s.ps_demand)[cpu]) for s in wl.jobs}
    jobs_idx = per.index.get_level_values("job")
    per["cores"] = per["worker"] * jobs_idx.map(wcpu) + per["ps"] * jobs_idx.map(pcpu)
    g = per.groupby(level="job")
    hours = result.workload.cluster.slot_seconds / 3600.0
    out["running_slots"] = g.size().reindex(out.index, fill_value=0).astype(float)
    out["mean_workers"] = g["worker"].mean().reindex(out.index, fill_value=0.0).astype(float)
    out["mean_ps"] = g["ps"].mean().reindex(out.index, fill_value=0.0).astype(float)
    out["max_tasks"] = (per["worker"] + per["ps"]).groupby(level="job").max().reindex(out.index, fill_value=0)
    out["max_tasks"] = out["max_tasks"].astype(float)
    out["cpu_core_hours"] = (g["cores"].sum() * hours).reindex(out.index, fill_value=0.0).astype(float)
    return out


def job_table(result: SimulationResult) -> pd.DataFrame:
    """One row per job of an Optimus-workload simulation (:data:`JOB_COLUMNS`).

    Parameters
    ----------
    result : SimulationResult

    Returns
    -------
    pandas.DataFrame
    """
    j = result.jobs
    hours = result.workload.cluster.slot_seconds / 3600.0
    names = j["name"].astype(str)
    fin = (j["status"] == "finished").to_numpy()
    tasks = _per_job_tasks(result)
    ids = j["job_id"].astype("int64").to_numpy()
    out = pd.DataFrame(
        {
            "job_id": ids,
            "job_type": names.str.rsplit("-", n=1).str[0].astype(str).to_numpy(),
            "job_mode": names.str.rsplit("-", n=1).str[1].astype(str).to_numpy(),
            "status": np.where(fin, "finished", j["status"].astype(str).to_numpy()).astype(object),
            "arrival_h": j["arrival"].to_numpy(float) * hours,
            "completion_h": np.where(fin, j["completion_time"].to_numpy(float) * hours, np.nan),
            "jct_h": np.where(fin, j["jct_seconds"].to_numpy(float) / 3600.0, np.nan),
        }
    )
    for c in JOB_COLUMNS[7:]:
        out[c] = tasks.loc[ids, c].to_numpy(float)
    out["status"] = out["status"].astype(str)
    return out[list(JOB_COLUMNS)]


def job_run(params: Mapping[str, Any]) -> pd.DataFrame:
    """Experiment (Figs. 11, 13, 15-19): one scheme on one Sec. 6.1 workload, one row per job.

    Parameters
    ----------
    params : Mapping
        ``scheme`` (required, a key of :data:`SCHEMES`), ``seed``, ``n_jobs``, ``arrivals``,
        ``mode``, ``data_scale``, ``rate``, ``convergence_error``, ``speed_error``, ``horizon``
        (see the module docstring).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`JOB_COLUMNS`, one row per job in job-id order.

    Raises
    ------
    TypeError
        If ``params`` is not a mapping.
    ValueError
        On an unknown or missing parameter or a bad value (the message names it).
    """
    _parse(params, "job_run")
    return job_table(simulate_scheme(params))


def timeline_run(params: Mapping[str, Any]) -> pd.DataFrame:
    """Experiment (Fig. 14): running jobs, tasks and CPU usage in every slot of one run.

    Parameters
    ----------
    params : Mapping
        As in :func:`job_run`.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`TIMELINE_COLUMNS`, one row per slot from the first arrival to the end of
        the run (built on :func:`dlsched.core.metrics.usage_timeline`).

    Raises
    ------
    TypeError
        If ``params`` is not a mapping.
    ValueError
        On an unknown or missing parameter or a bad value.
    """
    _parse(params, "timeline_run")
    result = simulate_scheme(params)
    cluster = result.workload.cluster
    usage = metrics.usage_timeline(result)
    cpu = cluster.resource_index("cpu")
    slots = usage["slot"].to_numpy(np.int64)
    a = result.allocations
    by_role = a.groupby(["slot", "role"])["count"].sum().unstack("role", fill_value=0)
    by_role = by_role.reindex(columns=["worker", "ps"], fill_value=0).reindex(slots, fill_value=0)
    jobs = a.groupby("slot")["job"].nunique().reindex(slots, fill_value=0)
    out = pd.DataFrame(
        {
            "slot": slots,
            "hour": slots * cluster.slot_seconds / 3600.0,
            "running_jobs": jobs.to_numpy(np.int64),
            "running_tasks": (by_role["worker"] + by_role["ps"]).to_numpy(np.int64),
            "running_workers": by_role["worker"].to_numpy(np.int64),
            "running_ps": by_role["ps"].to_numpy(np.int64),
            "cpu_used": usage["cpu"].to_numpy(float),
            "cpu_share": usage["cpu"].to_numpy(float) / float(cluster.total_capacity()[cpu]),
        }
    )
    return out[list(TIMELINE_COLUMNS)]


# ------------------------------------------------------------------------------- summaries


def _need(df: Any, cols: Sequence[str], what: str) -> None:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{what}: expected a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise ValueError(f"{what}: missing column(s) {missing}; got {list(df.columns)}")
    if df.empty:
        raise ValueError(f"{what}: the table is empty")


def run_totals(jobs: pd.DataFrame, by: str | Sequence[str]) -> pd.DataFrame:
    """Per run (a group of ``by``, e.g. ``["scheme", "seed"]``): mean JCT and makespan in hours.

    Makespan is Sec. 6.1's: the first arrival to the last completion. Both are over the finished
    jobs; ``unfinished`` counts the others (a run with unfinished jobs hit its horizon).

    Parameters
    ----------
    jobs : pandas.DataFrame
        Output of :func:`job_run` (or a sweep of it), with the ``by`` columns.
    by : str or sequence of str
        Columns identifying one run.

    Returns
    -------
    pandas.DataFrame
        The ``by`` columns and :data:`TOTALS_COLUMNS`, one row per run, sorted by ``by``.

    Raises
    ------
    TypeError, ValueError
        Not a DataFrame, missing columns, or an empty table.
    """
    keys = _by(by)
    _need(jobs, [*keys, "status", "arrival_h", "completion_h", "jct_h"], "run_totals")
    fin = jobs["status"] == "finished"
    g = jobs.assign(_fin=fin.astype(int)).groupby(keys, sort=True)
    out = pd.DataFrame(
        {
            "jobs": g.size(),
            "finished": g["_fin"].sum(),
            "mean_jct_h": g["jct_h"].mean(),
            "makespan_h": g["completion_h"].max() - g["arrival_h"].min(),
        }
    )
    out["unfinished"] = out["jobs"] - out["finished"]
    return out[list(TOTALS_COLUMNS)].reset_index()


def scheme_stats(totals: pd.DataFrame, by: str | Sequence[str] = "scheme") -> pd.DataFrame:
    """Fig. 13: mean and standard deviation over runs of the mean JCT and the makespan, per group.

    Parameters
    ----------
    totals : pandas.DataFrame
        Output of :func:`run_totals`.
    by : str or sequence of str, default "scheme"

    Returns
    -------
    pandas.DataFrame
        Indexed by ``by``: ``runs, jct_mean_h, jct_std_h, makespan_mean_h, makespan_std_h,
        unfinished`` (total over runs). Standard deviations use ``ddof=1`` (NaN for one run).

    Raises
    ------
    TypeError, ValueError
        Not a DataFrame, missing columns, or an empty table.
    """
    keys = _by(by)
    _need(totals, [*keys, "mean_jct_h", "makespan_h", "unfinished"], "scheme_stats")
    g = totals.groupby(keys, sort=True)
    return pd.DataFrame(
        {
            "runs": g.size(),
            "jct_mean_h": g["mean_jct_h"].mean(),
            "jct_std_h": g["mean_jct_h"].std(ddof=1),
            "makespan_mean_h": g["makespan_h"].mean(),
            "makespan_std_h": g["makespan_h"].std(ddof=1),
            "unfinished": g["unfinished"].sum(),
        }
    )


def versus(
    totals: pd.DataFrame, baseline: str, *, scheme: str = "scheme", by: str | Sequence[str] = ()
) -> pd.DataFrame:
    """Each scheme against ``baseline`` (Figs. 11, 16-19): speed-ups and reductions of the means.

    Within each group of ``by``, the mean JCT and makespan are averaged over runs (seeds) per
    scheme; then ``jct_speedup = baseline / scheme`` (the paper's "2.39x better") and
    ``jct_reduction = 1 - scheme / baseline`` (the paper's "-62 %"), and likewise for the
    makespan.

    Parameters
    ----------
    totals : pandas.DataFrame
        Output of :func:`run_totals`.
    baseline : str
        The scheme everything is compared with (e.g. ``"drf"``).
    scheme : str, default "scheme"
        Column naming the scheme.
    by : str or sequence of str, default ()
        Extra grouping columns (e.g. ``"arrivals"``).

    Returns
    -------
    pandas.DataFrame
        Columns ``by..., scheme, mean_jct_h, makespan_h, jct_speedup, makespan_speedup,
        jct_reduction, makespan_reduction``.

    Raises
    ------
    TypeError, ValueError
        Not a DataFrame, missing columns, empty, or ``baseline`` absent from a group.
    """
    keys = _by(by)
    _need(totals, [*keys, scheme, "mean_jct_h", "makespan_h"], "versus")
    means = totals.groupby([*keys, scheme], sort=True)[["mean_jct_h", "makespan_h"]].mean().reset_index()
    rows = []
    groups = means.groupby(keys, sort=True) if keys else [((), means)]
    for gkey, g in groups:
        base = g[g[scheme] == baseline]
        if base.empty:
            raise ValueError(f"versus: baseline {baseline!r} has no runs in group {gkey!r}; "
                             f"schemes there: {sorted(g[scheme].unique())}")
        bj, bm = float(base["mean_jct_h"].iloc[0]), float(base["makespan_h"].iloc[0])
        g = g.copy()
        g["jct_speedup"] = bj / g["mean_jct_h"]
        g["makespan_speedup"] = bm / g["makespan_h"]
        g["jct_reduction"] = 1.0 - g["mean_jct_h"] / bj
        g["makespan_reduction"] = 1.0 - g["makespan_h"] / bm
        rows.append(g)
    return pd.concat(rows, ignore_index=True)


def error_gaps(totals: pd.DataFrame, *, seed: str = "seed") -> pd.DataFrame:
    """Fig. 15: JCT and makespan with injected errors relative to the error-free run, per error pair.

    For each seed the run with ``convergence_error == speed_error == 0`` is the reference; every
    run's ratio to the reference of its seed is averaged over the seeds.

    Parameters
    ----------
    totals : pandas.DataFrame
        :func:`run_totals` grouped by ``["convergence_error", "speed_error", seed]``.
    seed : str, default "seed"
        Column identifying the paired runs.

    Returns
    -------
    pandas.DataFrame
        Columns ``convergence_error, speed_error, runs, jct_ratio, jct_ratio_std, makespan_ratio``,
        sorted by the errors; ``jct_ratio - 1`` is the paper's "performance gap".

    Raises
    ------
    TypeError, ValueError
        Not a DataFrame, missing columns, empty, or a seed without an error-free run.
    """
    cols = ["convergence_error", "speed_error", seed, "mean_jct_h", "makespan_h"]
    _need(totals, cols, "error_gaps")
    free = totals[(totals["convergence_error"] == 0) & (totals["speed_error"] == 0)].set_index(seed)
    missing = sorted(set(totals[seed]) - set(free.index))
    if missing:
        raise ValueError(f"error_gaps: seed(s) {missing} have no error-free run to compare with")
    t = totals.copy()
    t["jct_ratio"] = t["mean_jct_h"].to_numpy() / free.loc[t[seed], "mean_jct_h"].to_numpy()
    t["makespan_ratio"] = t["makespan_h"].to_numpy() / free.loc[t[seed], "makespan_h"].to_numpy()
    g = t.groupby(["convergence_error", "speed_error"], sort=True)
    return pd.DataFrame(
        {
            "runs": g.size(),
            "jct_ratio": g["jct_ratio"].mean(),
            "jct_ratio_std": g["jct_ratio"].std(ddof=1),
            "makespan_ratio": g["makespan_ratio"].mean(),
        }
    ).reset_index()


def task_profile(jobs: pd.DataFrame, by: str | Sequence[str] = "scheme") -> pd.DataFrame:
    """How each scheme used the cluster, from the per-job tables: why the gaps are what they are.

    Parameters
    ----------
    jobs : pandas.DataFrame
        Output of :func:`job_run` (or a sweep of it) with the ``by`` columns.
    by : str or sequence of str, default "scheme"

    Returns
    -------
    pandas.DataFrame
        Indexed by ``by``: means over jobs of ``mean_workers``, ``mean_ps``, ``max_tasks``,
        ``ps_per_worker`` (mean PS / mean workers), ``cpu_core_hours`` per job, ``idle_h``
        (JCT minus the slots in which the job had tasks: hours it waited or was paused) and
        ``jct_h``.

    Raises
    ------
    TypeError, ValueError
        Not a DataFrame, missing columns, or an empty table.
    """
    keys = _by(by)
    _need(jobs, [*keys, "mean_workers", "mean_ps", "max_tasks", "cpu_core_hours", "running_slots", "jct_h"],
          "task_profile")
    slot_h = INTERVAL_SECONDS / 3600.0
    t = jobs.assign(idle_h=(jobs["jct_h"] - jobs["running_slots"] * slot_h).clip(lower=0.0))
    g = t.groupby(keys, sort=True)
    out = pd.DataFrame(
        {
            "mean_workers": g["mean_workers"].mean(),
            "mean_ps": g["mean_ps"].mean(),
            "max_tasks": g["max_tasks"].mean(),
            "cpu_core_hours": g["cpu_core_hours"].mean(),
            "idle_h": g["idle_h"].mean(),
            "jct_h": g["jct_h"].mean(),
        }
    )
    out.insert(2, "ps_per_worker", out["mean_ps"] / out["mean_workers"])
    return out


def speedup_table(
    tasks: Sequence[int] = (1, 2, 4, 8, 16), *, job_types: Sequence[str] | None = None
) -> pd.DataFrame:
    """Ground-truth speed-up of every Table 1 job type with ``n`` PS and ``n`` workers vs 1 + 1.

    The speed is Eq. (2) of the workload's :class:`~dlsched.core.jobs.OptimusModel` with every
    transfer crossing the network (no placement given), i.e. what a DRF bundle spread over
    servers sees; a job sharing servers with its PS is faster. ``speedup / n`` is the parallel
    efficiency: close to 1 means giving the job more tasks pays almost linearly.

    Parameters
    ----------
    tasks : sequence of int, default (1, 2, 4, 8, 16)
        Values of ``n`` (>= 1).
    job_types : sequence of str, optional
        Keys of :data:`dlsched.optimus.workload.TABLE1` (default all).

    Returns
    -------
    pandas.DataFrame
        Columns ``job_type, job_mode, n, speedup, efficiency``.

    Raises
    ------
    ValueError
        A task count < 1 or an unknown job type.
    """
    ns = [_int(n, "speedup_table: tasks", 1) for n in tasks]
    if not ns:
        raise ValueError("speedup_table: tasks is empty")
    types = list(TABLE1) if job_types is None else list(job_types)
    rows = []
    for key in types:
        if key not in TABLE1:
            raise ValueError(f"speedup_table: unknown job type {key!r}; known: {list(TABLE1)}")
        for mode in ("sync", "async"):
            m = job_model(key, mode)
            one = m.speed(1, 1)
            for n in ns:
                s = m.speed(n, n) / one
                rows.append({"job_type": key, "job_mode": mode, "n": n, "speedup": s, "efficiency": s / n})
    return pd.DataFrame(rows)


def finished_claim(totals: pd.DataFrame, what: str) -> Claim:
    """Every job of every run finished before the horizon.

    Parameters
    ----------
    totals : pandas.DataFrame
        Output of :func:`run_totals`.
    what : str
        Which experiment (goes into the claim's name).

    Returns
    -------
    Claim
        Details: runs, jobs, unfinished jobs.

    Raises
    ------
    TypeError, ValueError
        Not a DataFrame, missing columns, or an empty table.
    """
    _need(totals, ["jobs", "unfinished"], "finished_claim")
    unfinished = int(totals["unfinished"].sum())
    return Claim(f"Optimus Sec. 6, {what}: every job finishes", unfinished == 0,
                 {"runs": len(totals), "jobs": int(totals["jobs"].sum()), "unfinished": unfinished})


def beats_claim(totals: pd.DataFrame, scheme: str, baseline: str, what: str) -> Claim:
    """``scheme`` has a lower mean JCT and a lower makespan than ``baseline`` (means over runs).

    Parameters
    ----------
    totals : pandas.DataFrame
        Output of :func:`run_totals` with a ``scheme`` column.
    scheme, baseline : str
        Scheme names present in ``totals``.
    what : str
        Which experiment (goes into the claim's name).

    Returns
    -------
    Claim
        Details: both means of both schemes and the speed-ups.

    Raises
    ------
    TypeError, ValueError
        Not a DataFrame, missing columns, empty, or a scheme without runs.
    """
    v = versus(totals, baseline).set_index("scheme")
    if scheme not in v.index:
        raise ValueError(f"beats_claim: scheme {scheme!r} has no runs; schemes: {sorted(v.index)}")
    r = v.loc[scheme]
    holds = bool(r["jct_speedup"] > 1 and r["makespan_speedup"] > 1)
    return Claim(
        f"Optimus Sec. 6, {what}: {scheme} beats {baseline} in mean JCT and makespan",
        holds,
        {"jct_h": float(r["mean_jct_h"]), f"{baseline}_jct_h": float(v.loc[baseline, "mean_jct_h"]),
         "makespan_h": float(r["makespan_h"]), f"{baseline}_makespan_h": float(v.loc[baseline, "makespan_h"]),
         "jct_speedup": float(r["jct_speedup"]), "makespan_speedup": float(r["makespan_speedup"])},
    )


def complete_runs(totals: pd.DataFrame, by: str | Sequence[str] = "seed") -> pd.DataFrame:
    """The runs whose group (by default: seed) has no unfinished job under any scheme.

    A run that hit its horizon has no true makespan, and its mean JCT leaves out the starved job;
    comparing schemes on the other seeds only keeps the comparison paired and fair.

    Parameters
    ----------
    totals : pandas.DataFrame
        Output of :func:`run_totals`.
    by : str or sequence of str, default "seed"

    Returns
    -------
    pandas.DataFrame
        The rows of ``totals`` whose ``by`` group has ``unfinished == 0`` everywhere.

    Raises
    ------
    TypeError, ValueError
        Not a DataFrame, missing columns, or an empty table.
    """
    keys = _by(by)
    _need(totals, [*keys, "unfinished"], "complete_runs")
    ok = totals.groupby(keys, sort=False)["unfinished"].transform("sum") == 0
    return totals[ok].reset_index(drop=True)


def timeline_stats(timeline: pd.DataFrame, by: str | Sequence[str] = "scheme") -> pd.DataFrame:
    """Per group, means over the slots of :func:`timeline_run` tables (Fig. 14 in numbers).

    Parameters
    ----------
    timeline : pandas.DataFrame
        Output of :func:`timeline_run` (or a sweep of it) with the ``by`` columns.
    by : str or sequence of str, default "scheme"

    Returns
    -------
    pandas.DataFrame
        Indexed by ``by``: ``hours`` (slots x 10 minutes, summed over the group's runs), then
        the means over slots of ``running_jobs``, ``running_tasks``, ``running_workers``,
        ``running_ps`` and ``cpu_share``.

    Raises
    ------
    TypeError, ValueError
        Not a DataFrame, missing columns, or an empty table.
    """
    keys = _by(by)
    cols = ["running_jobs", "running_tasks", "running_workers", "running_ps", "cpu_share"]
    _need(timeline, [*keys, *cols], "timeline_stats")
    g = timeline.groupby(keys, sort=True)
    out = g[cols].mean()
    out.insert(0, "hours", g.size() * INTERVAL_SECONDS / 3600.0)
    return out


# ------------------------------------------------------------------------------- paper vs ours


def paper_vs_ours(rows: Sequence[tuple[str, Any, Any]]) -> pd.DataFrame:
    """A paper-vs-ours table from ``(quantity, paper, ours)`` rows; floats are shown with 3 digits.

    Parameters
    ----------
    rows : sequence of (str, object, object)

    Returns
    -------
    pandas.DataFrame
        Columns ``quantity, paper, ours`` (strings).

    Raises
    ------
    ValueError
        If a row is not a triple or ``rows`` is empty.
    """
    if not rows:
        raise ValueError("paper_vs_ours: rows is empty")

    def fmt(v: Any) -> str:
        if isinstance(v, (float, np.floating)):
            return "nan" if not math.isfinite(float(v)) else f"{float(v):.3g}"
        return str(v)

    out = []
    for i, r in enumerate(rows):
        if not isinstance(r, (tuple, list)) or len(r) != 3:
            raise ValueError(f"paper_vs_ours: row {i} must be (quantity, paper, ours), got {r!r}")
        out.append({"quantity": str(r[0]), "paper": fmt(r[1]), "ours": fmt(r[2])})
    return pd.DataFrame(out, columns=["quantity", "paper", "ours"])


def table3_comparison(n_ps: int = 10, seeds: int = 20) -> pd.DataFrame:
    """Table 3 (ResNet-50 blocks on ``n_ps`` PS): PAA vs MXNet's default, paper next to ours.

    Parameters
    ----------
    n_ps : int, default 10
    seeds : int, default 20
        MXNet runs averaged (:func:`dlsched.optimus.paa.table3`).

    Returns
    -------
    pandas.DataFrame
        Columns ``quantity, paper, ours``: size difference (millions of parameters), request
        difference and total requests for PAA and MXNet.
    """
    from dlsched.optimus.paa import table3

    t = table3(n_ps, seeds=seeds)
    p = t["paper"]
    rows = []
    for algo, label in (("paa", "PAA"), ("mxnet", "MXNet default")):
        rows += [
            (f"{label}: size difference (M params)", p[f"{algo}_size_difference"] / 1e6,
             t[algo]["size_difference"] / 1e6),
            (f"{label}: request difference", p[f"{algo}_request_difference"], t[algo]["request_difference"]),
            (f"{label}: total requests", p[f"{algo}_total_requests"], t[algo]["total_requests"]),
        ]
    return paper_vs_ours(rows)

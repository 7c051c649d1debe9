r"""Paper-scale computations of the A_online notebooks as stored experiment functions.

J. She, N. Wang, R. Zhou, C. Tian, "Online Scheduling of Machine Learning Jobs in Edge-Cloud
Networks", NaNA 2021; ``shared/spec/aonline.md``. What notebooks ``40_aonline_model`` and
``41_aonline_proofs`` compute at the papers' sizes takes minutes (a run of Algorithms 1-4 on 200
edge servers and 200 jobs, checked again across slots; the property checks on hundreds of
instances), and notebook ``42_aonline_figures`` draws one mean per parameter size in Fig. 11. Here
each such computation is an experiment function ``fn(params: dict) -> pandas.DataFrame`` for
:func:`dlsched.experiments.sweep`, so that paper mode reads it from the results store
(``data/results``) and ``dlsched audit`` can recompute any point.

==============================  =================  ================================================
function                        notebook section   what it computes (paper)
==============================  =================  ================================================
:func:`check_sample`            41, sections 1-7   one block of seeds of a property check of spec
                                                   section 11: prices (7)-(8), weak duality of
                                                   (5), admission (Alg. 2), COST_C (Alg. 3),
                                                   feasibility (2a)-(2l), geometric rounds (Alg. 1)
:func:`run_table`               40, section 8      one table of an A_online run (Alg. 1-4): per
                                                   job, per round :math:`\tau_i`, jobs per
                                                   (server, type, slot); or the run with one
                                                   reading changed (:math:`F_1 = F_2`, the
                                                   data-ready test)
:func:`run_overview`            40, section 8      headline numbers of that run, checked against
                                                   (2a)-(2l) across slots; its wall time
:func:`speed_loss`              42, Fig. 11        mean slowdown of Eq. (1) split vs co-located
                                                   for one parameter size :math:`k_j`
==============================  =================  ================================================

:func:`run_table` and :func:`run_overview` of one workload share one simulation inside a process
(:func:`_simulated`, :func:`_checked`, memoised), so a notebook that sweeps them one after the
other runs Algorithms 1-4 and the checker once. Every function is deterministic given its
parameters (seeds included); the wall-clock columns of :func:`run_overview` are declared
(``fn.volatile``), so the audit compares the rest.

Section 8's schedule is drawn from the stored ``run_table(..., table="jobs")`` by
:func:`dlsched.aonline.explain.gantt`.

This module never imports :mod:`dlsched.aonline.findings` (the prose printed from these tables).
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from dlsched import registry
from dlsched.aonline import checks, explain
from dlsched.aonline.policy import AOnline
from dlsched.core.schedule import check_timeline
from dlsched.core.simulator import simulate

__all__ = [
    "SAMPLES",
    "check_sample",
    "RUN_TABLES",
    "run_overview",
    "run_table",
    "sample_grid",
    "speed_loss",
]


def _price(
    seeds: list[int], family: str = "aonline", readings: Sequence[str] = ("corrected",), **sizes: Any
) -> pd.DataFrame:
    return checks.price_sample(seeds, family=family, readings=tuple(readings), **sizes)


def _dual(seeds: list[int], readings: Sequence[str] = ("corrected", "literal"), **kw: Any) -> pd.DataFrame:
    return checks.dual_sample(seeds, readings=tuple(readings), **kw)


def _round_dual(
    seeds: list[int], family: str = "tiny", readings: Sequence[str] = ("corrected", "literal"), **kw: Any
) -> pd.DataFrame:
    return checks.round_dual_sample(seeds, family=family, readings=tuple(readings), **kw)


SAMPLES: Mapping[str, Any] = {
    "price": _price,
    "dual": _dual,
    "round_dual": _round_dual,
    "admission": checks.admission_sample,
    "window": checks.window_sample,
    "round_cost_c": checks.round_cost_c_sample,
    "run": checks.run_sample,
}
"""The samples of :mod:`dlsched.aonline.checks` that :func:`check_sample` runs, by name:
``price`` (:func:`~dlsched.aonline.checks.price_sample`, property 1), ``dual``
(:func:`~dlsched.aonline.checks.dual_sample`, weak duality of (5) on random windows), ``round_dual``
(:func:`~dlsched.aonline.checks.round_dual_sample`, the same on every round of real runs),
``admission`` (property 2), ``window`` (properties 2-4 in loaded windows), ``round_cost_c``
(property 4 inside real rounds) and ``run`` (properties 5-6 on whole runs)."""


def _mapping(params: Any, fn: str) -> dict:
    if not isinstance(params, Mapping):
        raise TypeError(f"{fn}: params must be a mapping, got {type(params).__name__}")
    return dict(params)


def _allowed(p: Mapping[str, Any], fn: str, allowed: Sequence[str], required: Sequence[str] = ()) -> None:
    unknown = sorted(set(p) - set(allowed))
    if unknown:
        raise ValueError(f"{fn}: unknown parameter(s) {unknown}; allowed {list(allowed)}")
    missing = [k for k in required if k not in p]
    if missing:
        raise ValueError(f"{fn}: missing parameter(s) {missing}; got {dict(p)!r}")


def _int(value: Any, name: str, fn: str, lo: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo:
        raise ValueError(f"{fn}: {name} must be an integer >= {lo}, got {value!r}")
    return int(value)


def _tidy(frame: pd.DataFrame) -> pd.DataFrame:
    """Object columns that hold only booleans and missing values become pandas' nullable
    ``boolean`` (one type per column, stored as such in parquet)."""
    out = frame.reset_index(drop=True)
    for col in out.columns:
        if out[col].dtype == object:
            vals = out[col].dropna()
            if len(vals) and all(isinstance(v, (bool, np.bool_)) for v in vals):
                out[col] = out[col].astype("boolean")
    return out


def check_sample(params: Mapping[str, Any]) -> pd.DataFrame:
    """Notebook 41, sections 1-7: one sample of A_online's property checks (spec section 11) on a
    block of seeds.

    Parameters
    ----------
    params : Mapping
        ``sample`` (a key of :data:`SAMPLES`), ``seeds`` (list of integers >= 0) and ``options``
        (a dict of keyword arguments of that sample function, e.g. ``{"family": "tiny",
        "n_edge": 4}``; default none).

    Returns
    -------
    pandas.DataFrame
        The sample's rows (one per instance and claim: ``claim``, ``holds``, ``summary`` and the
        claim's numbers, with the instance's ``seed`` and ``family``), object columns of booleans
        and gaps as nullable ``boolean``. :func:`~dlsched.experiments.sweep` adds the column
        ``sample``.

    Raises
    ------
    TypeError, ValueError
        On bad parameters.
    """
    p = _mapping(params, "check_sample")
    _allowed(p, "check_sample", ("sample", "seeds", "options"), ("sample", "seeds"))
    name = p["sample"]
    if name not in SAMPLES:
        raise ValueError(f"check_sample: sample must be one of {sorted(SAMPLES)}, got {name!r}")
    seeds = p["seeds"]
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Sequence) or not seeds:
        raise ValueError(f"check_sample: seeds must be a non-empty list of integers, got {seeds!r}")
    seeds = [_int(s, "every seed", "check_sample") for s in seeds]
    options = p.get("options", {})
    if not isinstance(options, Mapping):
        raise ValueError(f"check_sample: options must be a dict of keyword arguments, got {options!r}")
    return _tidy(SAMPLES[name](seeds, **dict(options)))


def sample_grid(sample: str, seeds: Sequence[int], block: int, **options: Any) -> list[dict]:
    """Grid of :func:`check_sample` points: ``seeds`` cut into blocks of ``block`` seeds.

    Raises
    ------
    ValueError
        If ``sample`` is unknown or ``block`` is not a positive integer.
    """
    if sample not in SAMPLES:
        raise ValueError(f"sample_grid: sample must be one of {sorted(SAMPLES)}, got {sample!r}")
    block = _int(block, "block", "sample_grid", lo=1)
    seeds = [int(s) for s in seeds]
    grid = []
    for i in range(0, len(seeds), block):
        point: dict[str, Any] = {"sample": sample, "seeds": seeds[i : i + block]}
        if options:
            point["options"] = {k: (list(v) if isinstance(v, tuple) else v) for k, v in options.items()}
        grid.append(point)
    return grid


# ------------------------------------------------------------------ notebook 40, section 8

_RUN_KEYS = ("seed", "n_edge", "n_jobs", "server_source")


def _run_args(params: Any, fn: str, *extra: str) -> tuple[int, int, int, str, dict]:
    p = _mapping(params, fn)
    _allowed(p, fn, (*_RUN_KEYS, *extra), _RUN_KEYS)
    seed = _int(p["seed"], "seed", fn)
    n_edge = _int(p["n_edge"], "n_edge", fn, lo=1)
    n_jobs = _int(p["n_jobs"], "n_jobs", fn, lo=1)
    source = p["server_source"]
    if not isinstance(source, str):
        raise ValueError(f"{fn}: server_source must be a string, got {source!r}")
    return seed, n_edge, n_jobs, source, {k: p[k] for k in extra if k in p}


@functools.lru_cache(maxsize=4)
def _simulated(seed: int, n_edge: int, n_jobs: int, source: str, policy_json: str):
    """``(workload, policy, result)`` of A_online (``AOnline.from_workload(workload,
    **json.loads(policy_json))``) on one workload. Memoised: the tables of one workload share it."""
    wl = registry.make_workload("aonline", seed=seed, n_edge=n_edge, n_jobs=n_jobs, server_source=source)
    policy = AOnline.from_workload(wl, **json.loads(policy_json))
    return wl, policy, simulate(wl, policy, seed=seed)


@functools.lru_cache(maxsize=2)
def _checked(seed: int, n_edge: int, n_jobs: int, source: str):
    """:func:`_simulated` with A_online as printed, its recorded schedule checked again across
    slots (:func:`~dlsched.core.schedule.check_timeline`: (2a)-(2l), fixed allocation, delays;
    raises :class:`~dlsched.core.schedule.ScheduleViolation` if it fails). Memoised."""
    wl, policy, result = _simulated(seed, n_edge, n_jobs, source, "{}")
    check_timeline(wl.cluster, wl.specs, result.allocations)
    return wl, policy, result


def _sharing(result) -> pd.DataFrame:
    """:func:`dlsched.aonline.explain.sharing` of a result, the same table computed with the
    cluster's pools read once (the explain version reads ``cluster.pools`` once per allocation
    row, which takes most of a minute on a paper-size run); a test pins the two together."""
    cl = result.workload.cluster
    specs = result.workload.specs
    al = result.allocations
    if al.empty:
        return explain.sharing(result)
    res = {
        (j, role): next(r for r, x in demand.items() if x)
        for j, s in specs.items()
        for role, demand in (("worker", s.worker_demand), ("ps", s.ps_demand))
    }
    pools = np.asarray(cl.pools, dtype=object)
    df = al.assign(
        resource=[res[(int(j), r)] for j, r in zip(al["job"], al["role"], strict=True)],
        pool=pools[al["server"].to_numpy(dtype=int)].tolist(),
    )
    cells = df.groupby(["pool", "role", "slot", "server", "resource"]).agg(
        jobs=("job", "nunique"), used=("count", "sum")
    )
    index = {r: cl.resource_index(r) for r in cells.index.get_level_values("resource").unique()}
    servers = cells.index.get_level_values("server").to_numpy(dtype=int)
    kinds = np.array([index[r] for r in cells.index.get_level_values("resource")], dtype=int)
    cap = np.asarray(cl.capacity, dtype=float)[servers, kinds]
    cells = cells.assign(use=cells["used"].to_numpy() / cap)
    out = cells.groupby(level=["pool", "role"]).agg(
        cells=("jobs", "size"),
        max_jobs=("jobs", "max"),
        shared=("jobs", lambda x: float(np.mean(x >= 2))),
        peak_use=("use", "max"),
    )
    return out.reset_index()


RUN_TABLES: tuple[str, ...] = ("jobs", "rounds", "sharing", "variant")
"""The tables :func:`run_table` returns."""


def _variant_row(res) -> pd.DataFrame:
    s, jf = explain.run_summary(res), explain.job_frame(res)
    row = {
        "total_completion_slots": s["total_completion_slots"],
        "mean_jct_slots": s["mean_jct_slots"],
        "mean_workers": s["mean_workers"],
        "first_round_share": float((jf["tau"] == jf["tau_first"]).mean()),
        "max_jobs": int(_sharing(res)["max_jobs"].max()),
    }
    return pd.DataFrame([row])


def run_table(params: Mapping[str, Any]) -> pd.DataFrame:
    """Notebook 40, section 8: one table of an A_online run (Algorithms 1-4) on
    ``aonline_workload(seed, n_edge, n_jobs, server_source)``.

    Parameters
    ----------
    params : Mapping
        ``seed``, ``n_edge``, ``n_jobs``, ``server_source`` (as
        :func:`dlsched.aonline.model.aonline_workload`), ``table`` (one of :data:`RUN_TABLES`)
        and, for ``table="variant"`` only, ``policy`` (keyword arguments of
        :meth:`AOnline.from_workload <dlsched.aonline.policy.AOnline.from_workload>`, e.g.
        ``{"F1": 1e-9, "F2": 1e-9}`` or ``{"data_ready": "inclusive"}``; ``{}`` or absent: as
        printed).

    Returns
    -------
    pandas.DataFrame
        For A_online as printed, its recorded schedule checked again across slots:
        ``"jobs"``: :func:`dlsched.aonline.explain.job_frame` (one row per job); ``"rounds"``:
        :func:`~dlsched.aonline.explain.round_frame` (one row per time point :math:`\tau_i`);
        ``"sharing"``: :func:`~dlsched.aonline.explain.sharing` (jobs per (server, type) in a
        slot). ``"variant"``: A_online with ``policy``, one row as
        :func:`~dlsched.aonline.explain.compare_runs` (``total_completion_slots``,
        ``mean_jct_slots``, ``mean_workers``, ``first_round_share``, ``max_jobs``).

    Raises
    ------
    TypeError, ValueError
        On bad parameters; :class:`~dlsched.core.schedule.ScheduleViolation` if the schedule
        fails the checker.
    """
    seed, n_edge, n_jobs, source, rest = _run_args(params, "run_table", "table", "policy")
    table = rest.get("table")
    if table not in RUN_TABLES:
        raise ValueError(f"run_table: table must be one of {RUN_TABLES}, got {table!r}")
    policy = rest.get("policy", {})
    if not isinstance(policy, Mapping):
        raise ValueError(f"run_table: policy must be a dict of AOnline parameters, got {policy!r}")
    if policy and table != "variant":
        raise ValueError(f"run_table: policy applies to table='variant' only, got table={table!r}")
    if table == "variant":
        return _variant_row(
            _simulated(seed, n_edge, n_jobs, source, json.dumps(dict(policy), sort_keys=True))[2]
        )
    _, pol, res = _checked(seed, n_edge, n_jobs, source)
    if table == "jobs":
        return explain.job_frame(res)
    if table == "rounds":
        return explain.round_frame(pol)
    return _sharing(res)


def run_overview(params: Mapping[str, Any]) -> pd.DataFrame:
    """Notebook 40, section 8: the headline numbers of A_online's run as printed (parameters
    ``seed``, ``n_edge``, ``n_jobs``, ``server_source`` as for :func:`run_table`), one row.

    Returns
    -------
    pandas.DataFrame
        :func:`dlsched.aonline.explain.run_summary`'s keys, ``source_used`` (the source of the
        edge servers' GPU counts the workload used, ``"philly"`` or ``"synthetic"``), ``checked``
        (True: the recorded schedule passed :func:`~dlsched.core.schedule.check_timeline` across
        slots, (2a)-(2l), fixed allocation, delays), ``rounds`` (A_maxsche calls), and the
        wall-clock columns ``wall_seconds`` (simulation) and ``rounds_seconds`` (A_maxsche),
        declared volatile.
    """
    seed, n_edge, n_jobs, source, _ = _run_args(params, "run_overview")
    wl, policy, result = _checked(seed, n_edge, n_jobs, source)
    row = {
        **explain.run_summary(result),
        "source_used": str(wl.params["server_source"]),
        "checked": True,
        "rounds": len(policy.rounds),
        "wall_seconds": float(result.wall_seconds),
        "rounds_seconds": float(sum(r.seconds for r in policy.rounds)),
    }
    return pd.DataFrame([row])


run_overview.volatile = ("wall_seconds", "rounds_seconds")


# ------------------------------------------------------------------ notebook 42, Fig. 11


def speed_loss(params: Mapping[str, Any]) -> pd.DataFrame:
    r"""Notebook 42, Fig. 11: how much of its speed Eq. (1) takes from a job split over servers,
    :math:`1 - p_j(\xi_j=0)/p_j(\xi_j=1)`, averaged over the jobs of one workload in which every
    job has the parameter size ``gradient_mb``.

    Parameters
    ----------
    params : Mapping
        ``seed``, ``n_edge``, ``n_jobs``, ``T``, ``gradient_mb`` (:math:`k_j` in MB).

    Returns
    -------
    pandas.DataFrame
        One row: ``speed_loss`` (mean over jobs), ``speed_loss_max``.
    """
    p = _mapping(params, "speed_loss")
    keys = ("seed", "n_edge", "n_jobs", "T", "gradient_mb")
    _allowed(p, "speed_loss", keys, keys)
    k = float(p["gradient_mb"])
    if not math.isfinite(k) or k <= 0:
        raise ValueError(f"speed_loss: gradient_mb must be a positive number, got {p['gradient_mb']!r}")
    seed = _int(p["seed"], "seed", "speed_loss")
    wl = registry.make_workload(
        "aonline",
        seed=seed,
        n_edge=int(p["n_edge"]),
        n_jobs=int(p["n_jobs"]),
        T=int(p["T"]),
        gradient_mb=(k, k),
    )
    loss = np.array([1.0 - s.model.speed(False) / s.model.speed(True) for s in wl.jobs], dtype=float)
    return pd.DataFrame([{"speed_loss": float(loss.mean()), "speed_loss_max": float(loss.max())}])


# ------------------------------------------------------------------ drawing

r"""The SpeCon notebooks' paper-scale computations as stored sweep points.

Y. Mao, Y. Fu, W. Zheng, L. Cheng, Q. Liu, D. Tao, "Speculative Container Scheduling for Deep
Learning Applications in a Kubernetes Cluster", arXiv:2010.11307; ``shared/spec/specon.md``.

Every function named ``*_run`` here is an experiment function for
:func:`dlsched.experiments.sweep` (``fn(params: dict) -> pandas.DataFrame``, module-level,
deterministic given ``params``, frames storable as parquet), so that what notebooks 51 and 52
compute at the paper's sizes is read from the results store (``data/results``) in paper mode and
recomputed by ``dlsched audit``. Each wraps a function of :mod:`dlsched.specon.checks`,
:mod:`dlsched.specon.experiments` or :mod:`dlsched.specon.testbed` unchanged:

==========================  ================================  ========================================
function                    notebook, section                 what it checks or measures
==========================  ================================  ========================================
:func:`check_run`           ``51_specon_checks`` 1            spec 8.1 (a container moves at most
                                                              once, l. 182; DS never), 8.2 (Alg. 1's
                                                              category changes), 8.4 (CPU shares
                                                              within :math:`C^{use}`), the checker
                                                              (:func:`~dlsched.specon.checks.run_checks`)
:func:`equivalence_run`     ``51_specon_checks`` 2            spec 8.6: :math:`\alpha = 0` and
                                                              ``migrate=False`` give DS's job table
                                                              (:func:`~dlsched.specon.checks.ds_equivalence`)
:func:`category_run`        ``51_specon_checks`` 3, figure    containers per category (PC/WC/CC) over
                            ``fig_specon_51_categories``      one run
                                                              (:func:`~dlsched.specon.checks.category_counts`)
:func:`timeline_run`        ``52_specon_figures`` 5,          per-worker containers and CPU use over
                            Figs. 8-11                        time, DS and SpeCon
                                                              (:func:`~dlsched.specon.experiments.timeline`)
:func:`moves_run`           ``52_specon_figures`` 5,          SpeCon's moves in the same run (Alg. 2
                            Figs. 8-9                         ``M``, Alg. 3 ``R``)
:func:`testbed_run`         ``52_specon_figures`` 7,          DS and SpeCon on real training processes,
                            Figs. 2-3                         measured and predicted
                                                              (:func:`~dlsched.specon.testbed.compare`);
                                                              **wall-clock**: ``volatile = ("*",)``
==========================  ================================  ========================================

The sweeps of notebook 52's Figs. 5-7, 12, Table III and its sensitivity study are
:func:`dlsched.specon.experiments.pair_run` itself.

Parameters shared by the notebook-51 functions: ``schedule`` (a label, e.g. ``"fig7-random-30"``),
``settings`` (the :func:`dlsched.specon.checks.workload` keywords of that schedule, e.g.
``{"schedule": "random", "n_jobs": 30}``), ``seed`` and ``specon_params`` (the
:class:`~dlsched.specon.policy.SpeCon` parameters, e.g. ``{"alpha": 0.01, "interval": 30.0}``).
The sweep adds ``schedule`` and ``seed`` as leading columns.

:func:`testbed_run` measures wall-clock times of real processes: two runs of the same point
differ, so the store keeps the one measured run and the audit skips it (``volatile = ("*",)``);
:func:`testbed_parts` turns its frame back into the tables of
:class:`~dlsched.specon.testbed.TestbedComparison`.

This module must not import :mod:`dlsched.specon.findings` (presentation), so that a change of
the notebooks' prose never makes a stored point stale.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from dlsched.core.claims import claim_row
from dlsched.core.comparison import as_dict
from dlsched.specon import checks
from dlsched.specon import experiments as sx

__all__ = [
    "MOVE_COLUMNS",
    "TESTBED_TABLE_COLUMNS",
    "category_run",
    "check_run",
    "equivalence_run",
    "moves_run",
    "testbed_parts",
    "testbed_run",
    "timeline_run",
]

MOVE_COLUMNS = ("slot", "job", "event", "from", "to")
"""Columns of :func:`moves_run` (0-based job and worker indices, engine slots)."""

TESTBED_TABLE_COLUMNS = (
    "job",
    "launch",
    "ds_node",
    "ds_measured",
    "ds_predicted",
    "specon_nodes",
    "specon_moved",
    "specon_measured",
    "specon_predicted",
    "specon_moved_predicted",
    "specon_nodes_predicted",
    "pause_s",
)
"""The per-job columns of :attr:`dlsched.specon.testbed.TestbedComparison.table`."""

_SUMMARY_COLUMNS = ("mean_completion", "makespan", "moves")


def _check(params: Mapping[str, object], fn: str, known: set[str]) -> None:
    if not isinstance(params, Mapping):
        raise TypeError(f"{fn}: params must be a dict, got {type(params).__name__}")
    unknown = sorted(set(params) - known)
    if unknown:
        raise ValueError(f"{fn}: unknown parameter(s) {unknown}; known: {sorted(known)}")


def _seed(params: Mapping[str, object], fn: str, default: int | None = None) -> int:
    seed = params.get("seed", default)
    if seed is None:
        raise ValueError(f"{fn}: params must give a seed")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"{fn}: seed must be an integer >= 0, got {seed!r}")
    return int(seed)


_SCHEDULE_KEYS = {"schedule", "settings", "seed", "specon_params"}


def _schedule_workload(params: Mapping[str, object], fn: str):
    _check(params, fn, _SCHEDULE_KEYS)
    for key in ("schedule", "settings"):
        if key not in params:
            raise ValueError(f"{fn}: params must give {key!r}")
    if not isinstance(params["schedule"], str):
        raise ValueError(f"{fn}: schedule must be a label (str), got {params['schedule']!r}")
    settings = as_dict(params, "settings", fn)
    return checks.workload(_seed(params, fn), **settings), as_dict(params, "specon_params", fn)


def check_run(params: Mapping[str, object]) -> pd.DataFrame:
    """Notebook 51, section 1: every per-run check of SpeCon and DS on one schedule and seed.

    Spec ``specon.md`` 8.1 (a container moves at most once, l. 182; DS moves nothing), 8.2
    (categories change only as Algorithm 1 allows), 8.4 (a node's CPU shares stay within its
    usable cores) and the engine's checker, through
    :func:`dlsched.specon.checks.run_checks` (``simulate(..., check=True)``).

    Parameters
    ----------
    params : dict
        ``schedule`` (label), ``settings`` (:func:`~dlsched.specon.checks.workload` keywords),
        ``seed``, ``specon_params`` (:class:`~dlsched.specon.policy.SpeCon` keywords).

    Returns
    -------
    pandas.DataFrame
        One :func:`~dlsched.core.claims.claim_row` per (policy, claim): ``policy``, ``jobs``,
        ``claim``, ``holds``, ``summary`` and the claims' counts (``counts_agree`` as 1.0 / 0.0,
        NaN on the rows of other claims, so that the column is numeric).

    Raises
    ------
    ValueError
        Unknown or missing keys, a bad seed.
    """
    wl, spec = _schedule_workload(params, "check_run")
    frame = checks.run_checks(wl, **spec)
    if "counts_agree" in frame.columns:
        frame["counts_agree"] = (
            frame["counts_agree"]
            .map(lambda v: np.nan if v is None or (isinstance(v, float) and np.isnan(v)) else float(bool(v)))
            .astype(float)
        )
    return frame.reset_index(drop=True)


def equivalence_run(params: Mapping[str, object]) -> pd.DataFrame:
    r"""Notebook 51, section 2: spec 8.6, SpeCon must equal DS with :math:`\alpha = 0` (exactly)
    and with ``migrate=False`` (to a relative 1e-12) on one schedule and seed.

    Parameters
    ----------
    params : dict
        As :func:`check_run`; ``specon_params`` are the paper's SpeCon parameters, to which
        ``alpha = 0`` and ``migrate = False`` are applied in turn.

    Returns
    -------
    pandas.DataFrame
        Two :func:`~dlsched.core.claims.claim_row` rows (``claim``, ``holds``, ``summary``,
        ``jobs``, ``exact_columns_equal``, ``max_rel_diff``, ``max_abs_jct_diff``, ``rtol``,
        ``moves``, ``transitions``), alpha = 0 first.
    """
    wl, spec = _schedule_workload(params, "equivalence_run")
    rows = [
        claim_row(checks.ds_equivalence(wl, **{**spec, **change}))
        for change in ({"alpha": 0.0}, {"migrate": False})
    ]
    return pd.DataFrame(rows)


def category_run(params: Mapping[str, object]) -> pd.DataFrame:
    """Notebook 51, section 3 (figure ``fig_specon_51_categories``): active containers per
    category (PC, WC, CC) over time in one SpeCon run (``simulate(..., check=True)``).

    Parameters
    ----------
    params : dict
        As :func:`check_run`.

    Returns
    -------
    pandas.DataFrame
        :func:`~dlsched.specon.checks.category_counts` (``time``, ``PC``, ``WC``, ``CC``) and
        ``moves``: the run's total number of migrations (the same on every row).
    """
    wl, spec = _schedule_workload(params, "category_run")
    res, pol = checks.run(wl, **spec)
    counts = checks.category_counts(res, pol)
    return counts.assign(moves=int(res.jobs["migrations"].sum())).reset_index(drop=True)


_PAIR_KEYS = {"experiment", "seed", "calibrate", "workload", "policy"}


def _pair(params: Mapping[str, object], fn: str):
    _check(params, fn, _PAIR_KEYS)
    if "experiment" not in params:
        raise ValueError(f"{fn}: params must name an experiment")
    return sx.run_pair(
        str(params["experiment"]),
        _seed(params, fn, 0),
        calibrate=params.get("calibrate", "paper"),
        workload=as_dict(params, "workload", fn),
        policy=as_dict(params, "policy", fn),
    )


def timeline_run(params: Mapping[str, object]) -> pd.DataFrame:
    """Notebook 52, section 5 (the paper's Figs. 8-11): per job and interval of constant
    placement, the worker hosting it and its CPU use, under DS and under SpeCon.

    Parameters
    ----------
    params : dict
        As :func:`dlsched.specon.experiments.pair_run`: ``experiment`` (e.g. ``"fig7"``),
        ``seed``, ``calibrate``, ``workload``, ``policy`` (SpeCon's parameters).

    Returns
    -------
    pandas.DataFrame
        ``policy`` (``k8s_default`` / ``specon``) and the columns of
        :func:`dlsched.specon.experiments.timeline` (``job``, ``worker``, ``start_s``, ``end_s``,
        ``cpu_pct``, ``label``).
    """
    wl, results, pol = _pair(params, "timeline_run")
    parts = [
        sx.timeline(wl, r, pol if name == "specon" else None).assign(policy=name)
        for name, r in results.items()
    ]
    out = pd.concat(parts, ignore_index=True)
    return out[["policy", "job", "worker", "start_s", "end_s", "cpu_pct", "label"]]


def moves_run(params: Mapping[str, object]) -> pd.DataFrame:
    """Notebook 52, section 5 (the paper's Figs. 8-9): SpeCon's moves in the run of
    :func:`timeline_run` (same ``params``).

    Returns
    -------
    pandas.DataFrame
        One row per move in order: :data:`MOVE_COLUMNS` (``slot`` of the engine, ``job`` and the
        workers ``from`` / ``to`` 0-based, ``event`` ``"M"`` for Algorithm 2, ``"R"`` for
        Algorithm 3).
    """
    _, _, pol = _pair(params, "moves_run")
    rows = [{k: e[k] for k in MOVE_COLUMNS} for e in pol.events if e["event"] in ("M", "R")]
    out = pd.DataFrame(rows, columns=list(MOVE_COLUMNS))
    return out.astype({"slot": "int64", "job": "int64", "event": str, "from": "int64", "to": "int64"})


_TESTBED_KEYS = {
    "n_jobs", "nodes", "seed", "alpha", "interval", "launch_interval", "solo_seconds", "epochs",
    "calibration_epochs", "timeout",
}  # fmt: skip


def testbed_run(params: Mapping[str, object]) -> pd.DataFrame:
    """Notebook 52, section 7: DS and SpeCon on real training processes of this machine
    (:func:`dlsched.specon.testbed.compare` on :func:`~dlsched.specon.testbed.default_jobs`),
    measured and predicted by the simulator; the paper's Figs. 2-3 (the migration pause, a
    restore continuing where the save stopped).

    A wall-clock measurement: the whole frame is volatile (``testbed_run.volatile = ("*",)``),
    so the results store keeps the measured run and ``dlsched audit`` does not recompute it.

    Parameters
    ----------
    params : dict
        ``n_jobs`` (8), ``nodes`` (2), ``seed`` (0), and optionally ``alpha``, ``interval``,
        ``launch_interval`` (the testbed's defaults), ``solo_seconds`` ([lo, hi] of the jobs'
        solo times, default [20, 40]), ``epochs`` (80), ``calibration_epochs`` (3), ``timeout``
        (900 s per run).

    Returns
    -------
    pandas.DataFrame
        One row per job (launch order): :data:`TESTBED_TABLE_COLUMNS`, then run-level values
        repeated on every row: ``summary_<policy>_<source>_<quantity>`` (policy ``ds`` /
        ``specon``, source ``measured`` / ``predicted``, quantity ``mean_completion``,
        ``makespan``, ``moves``), ``pause_<key>`` (the measured pauses beside the paper's bound),
        ``cpu_<policy>_<key>`` (CPU seconds during each run), ``losses_identical``, ``wall_s``
        (the whole comparison, calibration included). :func:`testbed_parts` splits it again;
        pass ``alpha``, ``interval`` and ``launch_interval`` in ``params`` to have the sweep
        carry them as columns.
    """
    from dlsched.specon import testbed

    _check(params, "testbed_run", _TESTBED_KEYS)
    seed = _seed(params, "testbed_run", 0)
    extra = {}
    if "solo_seconds" in params:
        lo, hi = params["solo_seconds"]  # type: ignore[misc]
        extra["solo_seconds"] = (float(lo), float(hi))
    if "epochs" in params:
        extra["epochs"] = int(params["epochs"])  # type: ignore[arg-type]
    jobs = testbed.default_jobs(int(params.get("n_jobs", 8)), seed, **extra)  # type: ignore[arg-type]
    alpha = float(params.get("alpha", testbed.DEFAULT_ALPHA))  # type: ignore[arg-type]
    interval = float(params.get("interval", testbed.DEFAULT_INTERVAL))  # type: ignore[arg-type]
    launch = float(params.get("launch_interval", testbed.DEFAULT_LAUNCH_INTERVAL))  # type: ignore[arg-type]
    kw = {k: params[k] for k in ("calibration_epochs", "timeout") if k in params}
    tb = testbed.compare(
        jobs,
        nodes=int(params.get("nodes", 2)),
        alpha=alpha,
        interval=interval,  # type: ignore[arg-type]
        launch_interval=launch,
        seed=seed,
        **kw,
    )
    out = tb.table[list(TESTBED_TABLE_COLUMNS)].copy()
    out["job"] = out["job"].astype(str)
    out["specon_nodes"] = out["specon_nodes"].astype(str)
    out["specon_nodes_predicted"] = out["specon_nodes_predicted"].astype(str)
    run: dict[str, object] = {}
    for (pol, src), row in tb.summary.iterrows():
        for q in _SUMMARY_COLUMNS:
            run[f"summary_{pol}_{src}_{q}"] = float(row[q])
    for key, value in tb.pauses.items():
        run[f"pause_{key}"] = float(value)
    for pol, r in (("ds", tb.ds), ("specon", tb.specon)):
        for key, value in sorted(r.cpu.items()):
            run[f"cpu_{pol}_{key}"] = float(value)
    run.update(losses_identical=bool(tb.losses_identical), wall_s=float(tb.wall_seconds))
    for key, value in run.items():
        out[key] = value
    return out.reset_index(drop=True)


testbed_run.volatile = ("*",)  # type: ignore[attr-defined]


def testbed_parts(frame: pd.DataFrame) -> dict[str, object]:
    """Split a :func:`testbed_run` frame (one point, as the sweep returns it) into the tables of
    :class:`~dlsched.specon.testbed.TestbedComparison`.

    Returns
    -------
    dict
        ``table`` (per job, :data:`TESTBED_TABLE_COLUMNS`), ``summary`` (rows ``(policy,
        source)``, columns ``mean_completion``, ``makespan``, ``moves``), ``pauses``
        (pandas.Series: ``n``, ``mean_s``, ``sd_s``, ..., ``paper_bound_s``, ``paper_sd_s``,
        ``prediction_pause_s``), ``cpu`` (pandas.DataFrame, rows ``ds`` / ``specon``) and
        ``run`` (dict: ``jobs``, ``losses_identical``, ``wall_s`` and, where the sweep added
        them as columns, ``nodes``, ``seed``, ``alpha``, ``interval``, ``launch_interval``).

    Raises
    ------
    ValueError
        If ``frame`` is empty or lacks the per-job columns.
    """
    missing = [c for c in TESTBED_TABLE_COLUMNS if c not in frame.columns]
    if frame.empty or missing:
        raise ValueError(f"testbed_parts: need a non-empty testbed_run frame; missing columns {missing}")
    first = frame.iloc[0]
    summary = pd.DataFrame(
        [
            {"policy": p, "source": s, **{q: float(first[f"summary_{p}_{s}_{q}"]) for q in _SUMMARY_COLUMNS}}
            for p in ("ds", "specon")
            for s in ("measured", "predicted")
        ]
    ).set_index(["policy", "source"])
    summary["moves"] = summary["moves"].astype(int)
    pauses = pd.Series(
        {
            c[len("pause_") :]: float(first[c])
            for c in frame.columns
            if c.startswith("pause_") and c != "pause_s"
        }
    )
    cpu = pd.DataFrame(
        {
            p: {c[len(f"cpu_{p}_") :]: float(first[c]) for c in frame.columns if c.startswith(f"cpu_{p}_")}
            for p in ("ds", "specon")
        }
    ).T
    run: dict[str, object] = {
        "jobs": int(len(frame)),
        "losses_identical": bool(first["losses_identical"]),
        "wall_s": float(first["wall_s"]),
    }
    for key in ("nodes", "seed"):
        if key in frame.columns:
            run[key] = int(first[key])
    for key in ("alpha", "interval", "launch_interval"):
        if key in frame.columns:
            run[key] = float(first[key])
    table = frame[list(TESTBED_TABLE_COLUMNS)].reset_index(drop=True)
    return {"table": table, "summary": summary, "pauses": pauses, "cpu": cpu, "run": run}

r"""A_online: which reading restores the claim (notebook ``42_aonline_figures``).

J. She, N. Wang, R. Zhou, C. Tian, "Online Scheduling of Machine Learning Jobs in Edge-Cloud
Networks", NaNA 2021, Sec. VI; ``shared/spec/aonline.md`` section 12. For the judged claims of
Figs. 3-4 and 7-14 this module runs the spec's default reading and each plausible alternative
reading of the paper -- every one a documented parameter of the wing -- on the same figure points
and seeds, judges each claim with the very rule of the scorecard (the ``figN_comparison``
functions of :mod:`dlsched.aonline.experiments`, and :func:`dlsched.aonline.findings.slightly_better`
for Figs. 9-10) and adds the model's ceiling where one exists (Fig. 14: the offline optimum of
(2)-(2l)). The table's shape is :mod:`dlsched.readings`.

* :func:`reading_run` -- one point (a reading, a scheme on one figure point, a seed, or one
  Fig. 14 instance): a store-able experiment for :func:`dlsched.experiments.sweep`, one row.
* :func:`readings_grid` -- the points of ``"paper"`` mode (the figures' sweeps at notebook 42's
  paper sizes and seeds) or ``"quick"`` (tiny).
* :func:`default_rows` -- the default reading's rows from notebook 42's own runs (not run twice).
* :func:`readings_rows` -- the sweep's frame to rows of :func:`dlsched.readings.readings_table`.

The readings (:data:`READINGS`)
-------------------------------

==============  ==========================================  =====================================
reading         parameter                                   reinterprets
==============  ==========================================  =====================================
default         the spec's readings                         spec section 12 as read by the wing
machine         ``workload={"server_size": "machine"}``     section 12 "Per edge server, #GPUs
                                                            (from the trace) = # workers" with a
                                                            Philly machine (8 GPUs, "~550
                                                            machines") as the server, not a job row
F=1e-8,         ``F=1e-8`` / ``F=1e-10`` (A_online's        section 12 "[N] Not given: ... F1,F2
F=1e-10         :math:`F_1 = F_2`)                          defaults"; :math:`\theta = 2TSUF+1`
                                                            of (7)-(8) (spec section 5)
data_ready<=    ``policy_params={"data_ready":              Alg. 3-4 line 3 "data ready iff
                "inclusive"}``                              :math:`a_j+\Delta_{js} < \tau_i`"
                                                            read with :math:`\le`, as (2i)
literal prices  ``policy_params={"price_reading":           (7)-(8) as printed,
                "literal"}``                                :math:`\lambda=\theta_1 f/W-1` (spec
                                                            section 5)
cloud x4        ``workload={"cloud_workers": 256}``         section 12 "[N] Not given: ... cloud
                                                            capacity (presumably large)"; ours 64
==============  ==========================================  =====================================

The readings of A_online's own parameters (F, data_ready, prices) change A_online only; the
baselines of such a reading are the default's runs (computed once). ``machine`` and ``cloud x4``
change the system, so every scheme is re-run under them. Each reading runs on the figures of
:attr:`Reading.figures`, every point and every seed of notebook 42's paper mode. Which figures
was fixed with the readings, before any paper-scale result, by where the reading acts (and to
keep the paper grid near ten CPU-minutes):

* ``default``: Figs. 3-4 and 7-14.
* ``machine``: Figs. 3-4 and 7-13, the Philly-sized system of Sec. VI. Not Fig. 14: its small
  instances are ours (:data:`~dlsched.aonline.experiments.SMALL_INSTANCE`: :math:`D_j \in
  [2, 4]`, a cloud of 4 workers per type), sized for the MILP, not from the trace.
* A_online's own readings: Figs. 3-4, 7-10 and 12-14 -- not Fig. 11, which sweeps :math:`k_j`,
  a quantity these readings do not touch (their effect on A_online at the same size is in
  Figs. 3-4 and 7-10).
* ``cloud x4``: Figs. 7-10 and 12-13, where A_online meets the paper's Preemptive, which runs a
  job whole and finds :math:`D_j \ge 20` worker slots of one type only on the cloud (notebook
  42, reading of Figs. 7-10); not Fig. 14 (as ``machine``).

The readings are those the issue lists; their values (``F`` at the issue's bound 1e-8 and at
1e-10, the smallest price cap of notebook 42's Fig. 5; a cloud 4 times ours for "presumably
large") were fixed here before the paper-scale sweep ran, so those rows are ``fixed="before"``,
except ``cloud x4``: its size (256) was chosen after a one-point probe with a cloud of 128 had been
seen, so it is ``fixed="after"`` (shown, never counted as restoring a claim).

Schemes: Figs. 7-8 and 12-13 compare A_online with the paper's Preemptive of Figs. 7-8 (no upload
delay), Figs. 9-10 with the paper's Preemptive of Figs. 9-10 (overhead, no upload delay), Fig. 11
with Preemptive as in notebook 42 -- one rival per claim, so each claim has one row per reading
(the scorecard judges Figs. 7-8 and 12-13 against our Preemptive that pays the delay as well,
and Figs. 7-8 in two rows of the same claim).

Ceiling: Fig. 14's "ratio close to 1" is a ratio to the offline optimum, which no scheduler can
beat: its ceiling is a ratio of exactly 1, reached by the MILP itself. The other claims are
rankings and trends, and the offline MILP does not scale to Figs. 3-13's 200 jobs on 200 servers
over 1024 slots, so they have no ceiling row.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from dlsched.aonline import experiments as ax
from dlsched.aonline.findings import slightly_better
from dlsched.readings import PointList, ReadingBase, check_inputs, claim_row, int_param

__all__ = [
    "AXES", "READINGS", "RESULT_COLUMNS", "Reading", "default_rows", "reading_run", "readings_grid",
    "readings_rows",
]


@dataclasses.dataclass(frozen=True)
class Reading(ReadingBase):  # name, parameter, source: ReadingBase's
    """One reading of the paper: how it is selected and where it applies.

    Attributes
    ----------
    aonline_only : bool
        True: it changes A_online alone (the baselines are the default's runs).
    figures : tuple of str
        The figures it is run on (``"fig3"`` ...).
    job : Mapping
        Extra :func:`~dlsched.aonline.experiments.job_run` parameters of an affected scheme.
    ratio : Mapping
        Extra :func:`~dlsched.aonline.experiments.ratio_run` parameters (Fig. 14).
    fixed : str
        ``"before"``: chosen before its result was seen.
    """

    aonline_only: bool
    figures: tuple[str, ...]
    job: Mapping[str, Any]
    ratio: Mapping[str, Any]
    fixed: str = "before"


_ALL = ("fig3", "fig4", "fig7", "fig8", "fig9", "fig10", "fig11", "fig12", "fig13", "fig14")
_NOT_K = tuple(f for f in _ALL if f != "fig11")  # A_online's own readings: k_j is not theirs
_SYSTEM = tuple(f for f in _ALL if f != "fig14")  # Figs. 3-13: the Philly-sized system of Sec. VI
_PREEMPTIVE = ("fig7", "fig8", "fig9", "fig10", "fig12", "fig13")  # where the cloud decides
_SEC12 = "shared/spec/aonline.md section 12"


def _reading(name, parameter, source, aonline_only, figures, job, ratio=None, fixed="before") -> Reading:
    return Reading(
        name, parameter, source, aonline_only, tuple(figures), MappingProxyType(dict(job)),
        MappingProxyType(dict(job if ratio is None else ratio)), fixed,
    )  # fmt: skip


READINGS: Mapping[str, Reading] = MappingProxyType(
    {
        r.name: r
        for r in (
            _reading(
                "default",
                "the spec's readings (server_size='job', cloud_workers=64, F1=F2=1, "
                "data_ready='strict', price_reading='corrected')",
                f"{_SEC12}, as read by dlsched.aonline.model / policy",
                False,
                _ALL,
                {},
            ),
            _reading(
                "machine",
                "workload={'server_size': 'machine'}",
                f"{_SEC12}: 'Per edge server, #GPUs (from the trace) = # workers', a server read as "
                "one Philly machine (8 GPUs; the trace's '~550 machines'), not one job row",
                False,
                _SYSTEM,
                {"workload": {"server_size": "machine"}},
            ),
            _reading(
                "F=1e-8",
                "F=1e-8 (A_online's F1 = F2)",
                f"{_SEC12}: '[N] Not given: ... F1,F2 defaults'; theta = 2TSUF + 1 of (7)-(8), section 5",
                True,
                _NOT_K,
                {"F": 1e-8},
            ),
            _reading(
                "F=1e-10",
                "F=1e-10 (A_online's F1 = F2)",
                f"{_SEC12}: '[N] Not given: ... F1,F2 defaults'; Fig. 5's smallest F of notebook 42",
                True,
                _NOT_K,
                {"F": 1e-10},
            ),
            _reading(
                "data_ready<=",
                "policy_params={'data_ready': 'inclusive'}",
                "Alg. 3-4 line 3 [Q] 'data ready iff a_j + Delta_js < tau_i' read with <=, as (2i)",
                True,
                _NOT_K,
                {"policy_params": {"data_ready": "inclusive"}},
            ),
            _reading(
                "literal prices",
                "policy_params={'price_reading': 'literal'}",
                "(7)-(8) as printed, lambda = theta_1 f/W - 1 (spec section 5 [R] corrects it to "
                "theta_1^(f/W) - 1)",
                True,
                _NOT_K,
                {"policy_params": {"price_reading": "literal"}},
            ),
            _reading(
                "cloud x4",
                "workload={'cloud_workers': 256}",
                f"{_SEC12}: '[N] Not given: ... cloud capacity (presumably large)'; ours 64 per type",
                False,
                _PREEMPTIVE,
                {"workload": {"cloud_workers": 256}},
                {},
                fixed="after",
            ),
        )
    }
)
"""The readings run here, by name (module docstring)."""

AXES: Mapping[str, Mapping[str, Any]] = MappingProxyType(
    {
        "paper": MappingProxyType(
            {
                "T": 1024,
                "S0": 200,
                "J0": 200,
                "J_axis": (100, 150, 200, 250, 300),
                "S_axis": (100, 150, 200, 250, 300),
                "J_pre": (100, 200, 300),
                "S_pre": (100, 200, 300),
                "k_values": (30.0, 150.0, 300.0, 450.0, 575.0),
                "overhead": 1.0,
                "seeds": (0, 1, 2),
                "ratio_T": 32,
                "ratio_edge": 3,
                "ratio_jobs": 6,
                "rJ_axis": (2, 4, 6, 8, 10),
                "rS_axis": (1, 2, 3, 4, 5),
                "ratio_seeds": (0, 1, 2, 3, 4),
            }
        ),
        "quick": MappingProxyType(
            {
                "T": 64,
                "S0": 6,
                "J0": 6,
                "J_axis": (4, 6),
                "S_axis": (4, 6),
                "J_pre": (4, 6),
                "S_pre": (4, 6),
                "k_values": (30.0, 575.0),
                "overhead": 1.0,
                "seeds": (0,),
                "ratio_T": 16,
                "ratio_edge": 2,
                "ratio_jobs": 2,
                "rJ_axis": (2, 3),
                "rS_axis": (1, 2),
                "ratio_seeds": (0,),
            }
        ),
    }
)
"""The figure points of each mode. ``"paper"`` is notebook 42's paper mode (its ``*_full``
parameters: Figs. 3-4 over ``J_axis`` / ``S_axis`` around ``J0`` jobs on ``S0`` edge servers,
Figs. 7-10 over ``J_pre`` / ``S_pre``, Fig. 11 over ``k_values``, Fig. 14's small instances);
``"quick"`` is a tiny smoke run. The two modes differ in ``T``, by which :func:`readings_rows`
recognises them."""

RESULT_COLUMNS: tuple[str, ...] = (
    "scheme", "jobs", "unfinished", "tct", "weighted_tct", "wait", "run", "workers", "cloud_share",
    "zero_cost", "rounds_waited", "preemptions", "narrow_share", "util", "util_worker", "util_ps",
    "util_worker_edge", "util_worker_cloud", "present_slots", "aonline_tct", "opt_tct", "ratio",
    "aonline_wait", "opt_wait", "aonline_run", "opt_run", "status", "mip_gap",
)  # fmt: skip
"""Columns of :func:`reading_run`: for a scheme's run the :func:`~dlsched.aonline.experiments.run_totals`
columns (ratio columns NaN); for a Fig. 14 instance the :func:`~dlsched.aonline.experiments.ratio_run`
columns but its wall time and the fastest tie-break (run columns NaN, ``scheme`` ``"aonline"``;
for a reading of A_online's own parameters only A_online's columns, the optimum being the
default's)."""

_PARAMS = (
    "reading", "experiment", "policy", "n_jobs", "n_edge", "T", "gradient_mb", "preemption_overhead",
    "upload_delay", "seed",
)  # fmt: skip
_EXPERIMENTS = ("job", "ratio")
_FIGURE_LABEL = {f: f"Fig. {f[3:]}" for f in _ALL}


# ------------------------------------------------------------------------------- one point


def _merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with ``extra`` merged in, dict values (``workload``, ``policy_params``) merged too."""
    out = dict(base)
    for k, v in extra.items():
        out[k] = {**out.get(k, {}), **v} if isinstance(v, Mapping) else v
    return out


def reading_run(params: Mapping[str, Any]) -> pd.DataFrame:
    r"""Experiment: one scheme on one figure point, or one Fig. 14 instance, under one reading.

    Parameters
    ----------
    params : Mapping
        ``reading`` (a key of :data:`READINGS`); ``experiment`` (``"job"``: a run of
        :func:`~dlsched.aonline.experiments.job_run`, Figs. 3-13; ``"ratio"``: a
        :func:`~dlsched.aonline.experiments.ratio_run` instance, Fig. 14); ``seed`` (int >= 0);
        ``n_jobs``, ``n_edge``, ``T`` (ints >= 1); for ``"job"`` also ``policy`` (one of
        :data:`~dlsched.aonline.experiments.POLICIES`), ``gradient_mb`` (None or :math:`k_j` in
        MB, Fig. 11), ``preemption_overhead`` (float >= 0, Preemptive) and ``upload_delay``
        (``"paid"`` or ``"ignored"``); for ``"ratio"`` these four are None (or absent).

    Returns
    -------
    pandas.DataFrame
        One row, columns :data:`RESULT_COLUMNS`.

    Raises
    ------
    TypeError
        If ``params`` is not a mapping.
    ValueError
        Naming the field: an unknown or missing parameter, a bad value, a reading that does not
        change ``policy`` (an A_online-only reading with a baseline: run it under ``"default"``)
        or that is not run on Fig. 14.
    """
    if not isinstance(params, Mapping):
        raise TypeError(f"reading_run: params must be a mapping, got {type(params).__name__}")
    unknown = sorted(set(params) - set(_PARAMS))
    if unknown:
        raise ValueError(f"reading_run: unknown parameter(s) {unknown}; known: {list(_PARAMS)}")
    for key in ("reading", "experiment", "seed", "n_jobs", "n_edge", "T"):
        if key not in params:
            raise ValueError(f"reading_run: missing parameter {key!r}")
    name = params["reading"]
    if name not in READINGS:
        raise ValueError(f"reading_run: reading must be one of {list(READINGS)}, got {name!r}")
    reading = READINGS[name]
    experiment = params["experiment"]
    if experiment not in _EXPERIMENTS:
        raise ValueError(f"reading_run: experiment must be one of {_EXPERIMENTS}, got {experiment!r}")
    sizes = {k: int_param(params, k, 1) for k in ("n_jobs", "n_edge", "T")}
    seed = int_param(params, "seed", 0)
    if experiment == "ratio":
        for key in ("policy", "gradient_mb", "preemption_overhead", "upload_delay"):
            if params.get(key) is not None:
                raise ValueError(f"reading_run: {key} applies to experiment='job' only, got {params[key]!r}")
        if "fig14" not in reading.figures:
            raise ValueError(f"reading_run: reading {name!r} is not run on Fig. 14 (experiment='ratio')")
        if reading.aonline_only:  # the optimum does not depend on A_online: solved under "default"
            row = pd.DataFrame([_aonline_ratio_part(seed, sizes, reading.ratio)])
        else:
            row = ax.ratio_run(_merge({"seed": seed, **sizes}, reading.ratio))
        return _ratio_row(row)
    policy = params.get("policy")
    if policy not in ax.POLICIES:
        raise ValueError(f"reading_run: policy must be one of {ax.POLICIES}, got {policy!r}")
    if reading.aonline_only and policy != "aonline":
        raise ValueError(
            f"reading_run: reading {name!r} changes A_online only; run policy {policy!r} under 'default'"
        )
    job = {"policy": policy, "seed": seed, **sizes}
    for key in ("gradient_mb", "preemption_overhead"):
        v = params.get(key)
        if v is None:
            continue
        if (
            isinstance(v, bool)
            or not isinstance(v, (int, float, np.integer, np.floating))
            or not (math.isfinite(v) and v >= 0)
        ):
            raise ValueError(f"reading_run: {key} must be None or a finite number >= 0, got {v!r}")
        if key == "gradient_mb" or v > 0:  # job_run refuses an overhead (even 0) for other schemes
            job[key] = float(v)
    upload = params.get("upload_delay")
    if upload is not None:
        if upload not in ax.UPLOAD_DELAYS:
            raise ValueError(
                f"reading_run: upload_delay must be None or one of {ax.UPLOAD_DELAYS}, got {upload!r}"
            )
        job["upload_delay"] = upload
    return _job_row(ax.job_run(_merge(job, reading.job)))


def _job_row(jobs: pd.DataFrame) -> pd.DataFrame:
    """:func:`reading_run`'s row of one scheme's run (the rows of one ``job_run``)."""
    totals = ax.run_totals(jobs, by=["scheme"])
    out = pd.DataFrame({c: totals[c] if c in totals.columns else math.nan for c in RESULT_COLUMNS})
    out["status"] = ""
    return _typed(out)


def _ratio_row(row: pd.DataFrame) -> pd.DataFrame:
    """:func:`reading_run`'s row of one Fig. 14 instance (a ``ratio_run`` row)."""
    out = pd.DataFrame({c: [row[c].iloc[0] if c in row.columns else math.nan] for c in RESULT_COLUMNS})
    out["scheme"] = "aonline"
    return _typed(out)


def _aonline_ratio_part(seed: int, sizes: Mapping[str, int], extra: Mapping[str, Any]) -> dict[str, float]:
    """A_online's columns of :func:`~dlsched.aonline.experiments.ratio_run` on the same instance
    (``extra``: its ``F`` and ``policy_params``), without solving the offline optimum again."""
    from dlsched import registry
    from dlsched.aonline import offline
    from dlsched.core.simulator import simulate

    wl = registry.make_workload("aonline", seed=seed, **sizes, **ax.SMALL_INSTANCE)
    pkw = dict(extra.get("policy_params", {}))
    if extra.get("F") is not None:
        pkw.update(F1=extra["F"], F2=extra["F"])
    res = simulate(wl, registry.make_policy("aonline", wl, **pkw), seed=seed)
    tct = offline.total_completion_time(res)
    wait = float((res.jobs["start_slot"] - res.jobs["arrival"]).sum())
    return {"aonline_tct": tct, "aonline_wait": wait, "aonline_run": tct - wait}


def _typed(out: pd.DataFrame) -> pd.DataFrame:
    """One dtype per column whatever the experiment: ``scheme``/``status`` str, the rest float."""
    out = out.reset_index(drop=True)
    for c in RESULT_COLUMNS:
        out[c] = out[c].astype(str) if c in ("scheme", "status") else out[c].astype(float)
    return out[list(RESULT_COLUMNS)]


# ------------------------------------------------------------------------------- the grid


def _job_points(a: Mapping[str, Any], figure: str) -> list[dict[str, Any]]:
    """The (scheme, point) pairs of one figure, without seeds: dicts of job parameters."""
    pre_j = {"policy": "preemptive", "upload_delay": "ignored"}
    pre_o = {**pre_j, "preemption_overhead": a["overhead"]}

    def along(x: str, values: Sequence[Any], fixed: Mapping[str, Any], schemes) -> list[dict[str, Any]]:
        return [{**fixed, **s, x: v} for s in schemes for v in values]

    aon = [{"policy": "aonline"}]
    base = [{"policy": p} for p in ax.FIGURE_POLICIES["fig3"]]
    J, S = {"n_edge": a["S0"]}, {"n_jobs": a["J0"]}
    spec = {
        "fig3": along("n_jobs", a["J_axis"], J, base),
        "fig4": along("n_edge", a["S_axis"], S, base),
        "fig7": along("n_jobs", a["J_pre"], J, [*aon, pre_j]),
        "fig8": along("n_edge", a["S_pre"], S, [*aon, pre_j]),
        "fig9": along("n_jobs", a["J_pre"], J, [*aon, pre_o]),
        "fig10": along("n_edge", a["S_pre"], S, [*aon, pre_o]),
        "fig11": along("gradient_mb", a["k_values"], {**J, **S}, [*aon, {"policy": "preemptive"}]),
        "fig12": along("n_jobs", a["J_axis"], J, aon) + along("n_jobs", a["J_pre"], J, [pre_j]),
        "fig13": along("n_edge", a["S_axis"], S, aon) + along("n_edge", a["S_pre"], S, [pre_j]),
    }
    return spec[figure]


def _point(reading: str, experiment: str, seed: int, T: int, **kw: Any) -> dict[str, Any]:
    p = {k: None for k in _PARAMS}
    p.update(reading=reading, experiment=experiment, seed=int(seed), T=int(T))
    if experiment == "job":
        p.update(gradient_mb=None, preemption_overhead=0.0, upload_delay="paid")
    p.update(kw)
    return p


def readings_grid(
    mode: str, readings: Sequence[str] | None = None, *, default_runs: bool = True
) -> list[dict[str, Any]]:
    """The :func:`reading_run` points of ``mode``.

    Every reading runs on every point and seed of each figure of :attr:`Reading.figures`
    (:data:`AXES`); a scheme that an A_online-only reading leaves as it is runs under
    ``"default"`` once. Duplicates (a point several figures share) appear once. ``"paper"`` has
    726 points, estimated at about ten CPU-minutes in all (half of it the default and ``machine``
    runs of Figs. 3-4 and 7-11; estimated from the stored seconds of the same default points and
    a few reading points timed); ``"quick"`` runs in seconds.

    Parameters
    ----------
    mode : {"paper", "quick"}
        The figure points (:data:`AXES`).
    readings : sequence of str, optional
        Keys of :data:`READINGS` to include (default all; ``"default"`` is always included).
    default_runs : bool, default True
        False leaves out the points of the ``"default"`` reading: they are notebook 42's own
        runs, which :func:`default_rows` turns into the same rows without running them again
        (about 5 CPU-minutes of the paper grid).

    Raises
    ------
    ValueError
        On an unknown mode or reading.
    """
    if mode not in AXES:
        raise ValueError(f"readings_grid: mode must be one of {list(AXES)}, got {mode!r}")
    names = list(READINGS) if readings is None else ["default", *[r for r in readings if r != "default"]]
    for r in names:
        if r not in READINGS:
            raise ValueError(f"readings_grid: unknown reading {r!r}; known: {list(READINGS)}")
    a = AXES[mode]
    grid = PointList(_PARAMS)
    add = grid.add

    for name in names:
        r = READINGS[name]
        for fig in r.figures if (default_runs or name != "default") else ():
            if fig == "fig14":
                sizes = [(j, a["ratio_edge"]) for j in a["rJ_axis"]] + [
                    (a["ratio_jobs"], s) for s in a["rS_axis"]
                ]
                for (j, s), seed in ((x, sd) for x in sizes for sd in a["ratio_seeds"]):
                    add(_point(name, "ratio", seed, a["ratio_T"], n_jobs=j, n_edge=s))
                continue
            for job in _job_points(a, fig):
                for seed in a["seeds"]:
                    owner = name if (not r.aonline_only or job["policy"] == "aonline") else "default"
                    if default_runs or owner != "default":
                        add(_point(owner, "job", seed, a["T"], **job))
    return grid.points


_RUN_KEYS = ("policy", "n_jobs", "n_edge", "T", "seed", "gradient_mb", "preemption_overhead", "upload_delay")
_RUN_DEFAULTS = {"gradient_mb": None, "preemption_overhead": 0.0, "upload_delay": "paid"}


def _run_key(values: Mapping[str, Any]) -> tuple:
    """A job run's identity: absent, None or NaN parameters take ``job_run``'s defaults."""
    out = []
    for k in _RUN_KEYS:
        v = values.get(k)
        if v is None or (isinstance(v, float) and math.isnan(v)):
            v = _RUN_DEFAULTS.get(k)
        out.append(float(v) if k in ("gradient_mb", "preemption_overhead") and v is not None else v)
    return tuple(out)


def default_rows(job_runs: Sequence[pd.DataFrame], ratio_runs: pd.DataFrame, mode: str) -> pd.DataFrame:
    """The ``"default"`` reading's rows of :func:`readings_grid` (``mode``) from notebook 42's own runs.

    The default reading is the notebook's own model, so its points are the notebook's runs of
    Figs. 3-4, 7-11 (``job_run``) and 14 (``ratio_run``): this turns them into the rows
    :func:`reading_run` would compute for them (the same ``run_totals``, the same columns and
    dtypes), so the readings sweep runs only the other readings
    (``readings_grid(mode, default_runs=False)``). Concatenated with that sweep, the frame is
    the one :func:`readings_rows` reads.

    Parameters
    ----------
    job_runs : sequence of pandas.DataFrame
        Sweeps of :func:`~dlsched.aonline.experiments.job_run` with their parameter columns
        (``policy``, ``seed``, ``n_jobs``, ``n_edge``, ``T`` and, where set, ``gradient_mb``,
        ``preemption_overhead``, ``upload_delay``). A run found in several frames is taken from
        the first.
    ratio_runs : pandas.DataFrame
        Sweeps of :func:`~dlsched.aonline.experiments.ratio_run` (``seed``, ``n_jobs``,
        ``n_edge``, ``T`` columns).
    mode : {"paper", "quick"}

    Raises
    ------
    TypeError
        If a frame is not a DataFrame.
    ValueError
        If a frame lacks a parameter column, or a default point has no run in the frames.
    """
    if isinstance(job_runs, pd.DataFrame) or not isinstance(job_runs, Sequence):
        raise TypeError(
            f"default_rows: job_runs must be a sequence of DataFrames, got {type(job_runs).__name__}"
        )
    for i, f in enumerate([*job_runs, ratio_runs]):
        if not isinstance(f, pd.DataFrame):
            raise TypeError(f"default_rows: frame {i} must be a DataFrame, got {type(f).__name__}")
        need = ("seed", "n_jobs", "n_edge", "T", *(("policy",) if i < len(job_runs) else ()))
        missing = [c for c in need if c not in f.columns]
        if missing:
            raise ValueError(f"default_rows: frame {i} lacks parameter column(s) {missing}")
    runs: dict[tuple, pd.DataFrame] = {}
    for f in job_runs:
        present = [k for k in _RUN_KEYS if k in f.columns]
        for values, rows in f.groupby(present, sort=False, dropna=False):
            runs.setdefault(_run_key(dict(zip(present, values, strict=True))), rows)
    ratios = {
        tuple(int(r[k]) for k in ("n_jobs", "n_edge", "T", "seed")): i
        for i, r in ratio_runs.reset_index(drop=True).iterrows()
    }
    ratio_frame = ratio_runs.reset_index(drop=True)
    out = []
    for p in readings_grid(mode, ["default"]):
        if p["reading"] != "default":
            continue
        if p["experiment"] == "ratio":
            i = ratios.get((p["n_jobs"], p["n_edge"], p["T"], p["seed"]))
            if i is None:
                raise ValueError(f"default_rows: no ratio_run of {p} in ratio_runs")
            row = _ratio_row(ratio_frame.iloc[[i]])
        else:
            jobs = runs.get(_run_key(p))
            if jobs is None:
                raise ValueError(f"default_rows: no job_run of {p} in job_runs")
            row = _job_row(jobs.reset_index(drop=True))
        out.append(pd.concat([pd.DataFrame([p]), row], axis=1))
    return pd.concat(out, ignore_index=True)


# ------------------------------------------------------------------------------- the table


def _mode(frame: pd.DataFrame) -> Mapping[str, Any]:
    jobs = frame[frame["experiment"] == "job"]
    for a in AXES.values():
        if len(jobs) and (jobs["T"] == a["T"]).all():
            return a
    raise ValueError(f"readings_rows: the frame's T {sorted(set(jobs['T']))} matches no mode of AXES")


def _select(rows: pd.DataFrame, points: list[dict[str, Any]]) -> pd.DataFrame:
    """The rows of ``rows`` at the given job points (any seed)."""
    keys = ("policy", "n_jobs", "n_edge", "gradient_mb", "preemption_overhead", "upload_delay")

    def norm(p: Mapping[str, Any]) -> tuple:
        return tuple(None if p.get(k) is None or (isinstance(p.get(k), float) and math.isnan(p[k])) else p[k]
                     for k in keys)  # fmt: skip

    wanted = {
        norm({"preemption_overhead": 0.0, "upload_delay": "paid", "gradient_mb": None, **p}) for p in points
    }
    mask = [norm(r) in wanted for r in rows[list(keys)].to_dict("records")]
    return rows[np.asarray(mask, dtype=bool)]


def _totals(frame: pd.DataFrame, reading: Reading, points: list[dict[str, Any]]) -> pd.DataFrame:
    """The run totals of ``points`` under ``reading`` (baselines from the default when the
    reading changes A_online only), with the columns the comparison functions read."""
    jobs = frame[frame["experiment"] == "job"]
    own = jobs[jobs["reading"] == reading.name]
    if reading.aonline_only:
        own = pd.concat([own[own["policy"] == "aonline"],
                         jobs[(jobs["reading"] == "default") & (jobs["policy"] != "aonline")]])  # fmt: skip
    out = _select(own, points)
    if out.empty:
        raise ValueError(f"readings_rows: no run of reading {reading.name!r} at the points of a figure")
    return out.reset_index(drop=True)


def _judged(table: pd.DataFrame) -> list[tuple[str, str, str]]:
    return [(q, o, m) for q, o, m in table[["quantity", "ours", "match"]].itertuples(index=False) if m != "-"]


def _claims(frame: pd.DataFrame, reading: Reading, a: Mapping[str, Any]) -> dict[str, list]:
    """Per figure: the judged ``(quantity, ours, match)`` of the scorecard's rule."""
    out: dict[str, list] = {}

    def tot(fig: str) -> pd.DataFrame:
        return _totals(frame, reading, _job_points(a, fig))

    figs = set(reading.figures)
    if "fig3" in figs:
        out["fig3"] = _judged(ax.fig3_comparison(tot("fig3")))
    if "fig4" in figs:
        out["fig4"] = _judged(ax.fig4_comparison(tot("fig4")))
    for fig, cmp in (("fig7", ax.fig7_comparison), ("fig8", ax.fig8_comparison)):
        if fig in figs:
            out[fig] = _judged(cmp(tot(fig)))
    for fig, x, cmp in (("fig9", "n_jobs", ax.fig9_comparison), ("fig10", "n_edge", ax.fig10_comparison)):
        if fig in figs:
            t = tot(fig)
            out[fig] = _judged(slightly_better(cmp(t), t, x))
    if "fig11" in figs:
        out["fig11"] = _judged(ax.fig11_comparison(tot("fig11")))
    if "fig12" in figs:
        out["fig12"] = _judged(ax.fig12_comparison(tot("fig12")))
    if "fig13" in figs:
        out["fig13"] = _judged(ax.fig13_comparison(tot("fig13")))
    if "fig14" in figs:
        sJ, sS = _ratio_summaries(frame, reading.name, a)
        out["fig14"] = _judged(ax.fig14_comparison(sJ, sS))
    return out


def _ratio_summaries(
    frame: pd.DataFrame, name: str, a: Mapping[str, Any]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fig. 14's two :func:`~dlsched.aonline.experiments.ratio_summary` tables of a reading; an
    A_online-only reading's instances take the optimum of the default's."""
    ratio = frame[frame["experiment"] == "ratio"]
    r = ratio[ratio["reading"] == name]
    if READINGS[name].aonline_only:
        keys = ["n_jobs", "n_edge", "seed"]
        opt = ["opt_tct", "opt_wait", "opt_run", "status", "mip_gap"]
        r = r.drop(columns=opt).merge(ratio[ratio["reading"] == "default"][keys + opt], on=keys, how="left")
        r["ratio"] = (r["aonline_tct"] / r["opt_tct"]).where(r["opt_tct"] > 0)
    rJ = r[(r["n_edge"] == a["ratio_edge"]) & r["n_jobs"].isin(a["rJ_axis"])]
    rS = r[(r["n_jobs"] == a["ratio_jobs"]) & r["n_edge"].isin(a["rS_axis"])]
    if rJ.empty or rS.empty:
        raise ValueError(f"readings_rows: no Fig. 14 instance of reading {name!r}")
    return ax.ratio_summary(rJ, "n_jobs"), ax.ratio_summary(rS, "n_edge")


def readings_rows(frame: pd.DataFrame, scorecard: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows of :func:`dlsched.readings.readings_table` from a sweep of :func:`reading_run` over
    :func:`readings_grid`.

    For every reading in ``frame`` and every claim of its figures that the scorecard's rule
    judges, one row: ``ours`` and ``holds`` (``match == "yes"``) from the same
    ``figN_comparison`` function as notebook 42's scorecard, on that reading's runs (for an
    A_online-only reading, the baselines of the default). Plus the ceiling of Fig. 14's "ratio
    close to 1": the offline optimum, a ratio of 1 (within: the paper's "close to 1" is not
    beyond it). Claims come in figure order; ``paper`` is the scorecard's (else
    :data:`~dlsched.aonline.experiments.PAPER`'s).

    Parameters
    ----------
    frame : pandas.DataFrame
        ``experiments.sweep(reading_run, readings_grid(mode))`` (its parameter columns included).
    scorecard : pandas.DataFrame
        Notebook 42's scorecard (columns ``figure``, ``quantity``, ``paper``), to join on.

    Raises
    ------
    TypeError
        If an argument is not a DataFrame.
    ValueError
        If ``frame`` lacks a column or the runs of a reading's figure, or the scorecard lacks
        ``figure``/``quantity``/``paper``.
    """
    present = check_inputs(frame, scorecard, (*_PARAMS, *RESULT_COLUMNS), READINGS)
    a = _mode(frame)
    judged = {n: _claims(frame, READINGS[n], a) for n in present}
    paper = {(f, q): p for f, q, p in scorecard[["figure", "quantity", "paper"]].itertuples(index=False)}
    rows: list[dict[str, Any]] = []
    for fig, q in dict.fromkeys((f, q) for f in _ALL for q, _, _ in judged["default"].get(f, [])):
        label = _FIGURE_LABEL[fig]
        quote = paper.get((label, q)) or dict(ax.PAPER[fig]).get(q, "")
        base = {"figure": label, "quantity": q, "paper": quote}
        for n in present:
            r = READINGS[n]
            rows += [claim_row(base, n, r.parameter, r.source, r.fixed, ours, match == "yes")
                     for q2, ours, match in judged[n].get(fig, []) if q2 == q]
        if fig == "fig14" and q == "ratio close to 1":
            rows.append(_ceiling_row(frame, a, label, q, quote))
    return rows


def _ceiling_row(frame: pd.DataFrame, a: Mapping[str, Any], label: str, q: str, quote: str) -> dict[str, Any]:
    r = frame[(frame["experiment"] == "ratio") & (frame["reading"] == "default")]
    optimal = int((r["status"] == "optimal").sum())
    return {
        "figure": label, "quantity": q, "paper": quote, "reading": "ceiling",
        "parameter": "the offline optimum of (2)-(2l) (dlsched.aonline.offline.solve_offline, HiGHS)",
        "source": "Fig. 14: performance ratio = A_online / offline optimum",
        "fixed": "before",
        "ours": f"ratio 1 by definition (the optimum itself; proven optimal on {optimal} of {len(r)} "
        "instances)",
        "holds": True,
    }  # fmt: skip

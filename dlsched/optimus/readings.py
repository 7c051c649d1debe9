r"""Optimus: which reading restores the claim (notebook ``22_optimus_figures``, issue 22).

Y. Peng, Y. Bao, Y. Chen, C. Wu, C. Guo, "Optimus: An Efficient Dynamic Resource Scheduler for
Deep Learning Clusters", EuroSys 2018, Sec. 6; ``shared/spec/optimus.md``. For the claims of
Figs. 11/13, 15 and 18 that notebook 22's scorecard judges, for Figs. 20-21 (PAA's training
speed-up, not run elsewhere) and for the priority factor 0.95 (Sec. 6.2), this module runs the
spec's default reading and each plausible alternative reading -- every one a documented
parameter of the wing -- on the figures' points and seeds, judges each claim with the
scorecard's own rule (``fig11_table``, ``fig15_table``, ``fig18_table`` of
:mod:`dlsched.optimus.findings`), and adds the ceiling. The table's shape is
:mod:`dlsched.readings`.

* :func:`reading_run` -- one point (a store-able experiment for
  :func:`dlsched.experiments.sweep`): one scheme on one figure point and seed under one reading
  (run totals), or one Figs. 20-21 point (PAA vs MXNet at one PS count).
* :func:`readings_grid` -- the points of ``"paper"`` (notebook 22's paper-mode points) or
  ``"quick"``.
* :func:`default_rows` -- the notebook's own default runs (Figs. 11/13 and 18: every scheme;
  Fig. 15: every error pair) in the shape of :func:`reading_run`, so that the grid does not
  recompute them.
* :func:`readings_rows` -- the frame to rows of :func:`dlsched.readings.readings_table`.

The readings (:data:`READINGS`, all fixed before any of their results was seen)
-------------------------------------------------------------------------------

============================  ==============================================  ========================
reading                       parameters                                      reinterprets
============================  ==============================================  ========================
default                       the spec's readings                             --
Table 2 speed                 workload ``speed_model="table2"``: every job's  spec section 3 Table 2
                              true speed is Eq. (3)/(4) with Table 2's        [Q]; paper Sec. 3.2
                              coefficients (its own speed at 1 + 1 kept)
rescale 15 s                  workload ``rescale_seconds=15.24`` (2.54 % of   paper Sec. 5.4 and
                              an interval: the paper's measured overhead,     Sec. 6.2 "2.54 % of
                              were every job rescaled every interval)         the makespan"; spec 6
rescale 60 s                  workload ``rescale_seconds=60``                 as above
Tetris cap 4 / cap 8          Tetris ``max_bundles=4`` / ``8``                Sec. 6.1 (Tetris's
                                                                              configuration unstated)
Tetris split                  Tetris ``colocate=False``                       Sec. 6.1 ("PS:worker
                                                                              1:1" only)
Tetris cap 4 + split          both                                            both
persistent error              ``error_draw="job"`` (Fig. 15)                  spec section 9, Fig. 15
                                                                              "v(1 +- e)"
Table 2 + persistent error    both                                            both
PS load imbalance             ``ps_load="imbalance"`` (Figs. 20-21)           paper Sec. 3.2 ("If
                                                                              the parameters are
                                                                              evenly distributed");
                                                                              spec section 3, 7
initial phase 10 epochs       Optimus ``initial_epochs=10`` (priority claim)  paper Sec. 4.1 "at the
                                                                              beginning state"
============================  ==============================================  ========================

A reading re-runs a point only where it changes it (:func:`changes`): the workload readings
re-run every scheme; the Tetris readings Tetris only; ``persistent error`` the runs with an
injected error (an error-free run is the default's). Every reading runs on every point and every
seed of its figures (the whole figure's sweep: 10 seeds, Fig. 15's 20 seeds per error pair),
cheap enough here (each run takes a fraction of a second) that no reading is shown on fewer
seeds.

**The priority factor** (Sec. 6.2: "with the priority factor set to 0.95 [...] the average JCT
and makespan are 2.66 % and 1.88 % smaller"). The claim's *default* row is Optimus with
``priority=0.95`` under the wing's default reading of "the beginning state" (a job with fewer
than ``initial_epochs=3`` observed epochs, while its loss fit still uses the prior) against the
notebook's Figs. 11/13 Optimus runs (factor 1) on the same seeds; ``initial phase 10 epochs`` is
the alternative.

**Figs. 20-21** (PAA's speed-up, "up to 29 %", ResNet-50 sync with 10 workers): under our Eq. (2)
ground truth every PS holds :math:`S/p`, so PAA cannot change the speed (the default row
measures exactly that, :func:`dlsched.optimus.paa.paa_speedup` with ``ps_load="even"``); the
``PS load imbalance`` reading lets the slowest PS set the step time. Only ResNet-50's parameter
blocks are known (:func:`~dlsched.optimus.paa.resnet50_blocks`), so Fig. 21's other models are
not run: its row is ResNet-50's speed-up at 10 + 10.

Ceiling (``reading="ceiling"``)
-------------------------------

The *clairvoyant Optimus* (``Optimus(oracle=True)``, :class:`~dlsched.optimus.policy.Estimates`):
Optimus's own allocation and placement fed with every job's true remaining steps and true speed
function instead of the fitted ones, on the Figs. 11/13 points (every seed). It is the best
Optimus's allocation can do under our model with perfect estimates -- what any better reading
of Sec. 3's estimators could buy -- not a bound over every scheduler (the allocation is a greedy
heuristic; no exact optimum of (5)-(8) is in reach at 30 jobs). Its rows: the speed-ups of
Figs. 11/13 and the reductions of Fig. 18, against the default's DRF and DRF-allocation runs.
``holds`` when the ceiling's gain reaches the band the scorecard calls ``yes``
(:data:`~dlsched.optimus.findings.GAIN_TOLERANCE` below the paper's gain); otherwise the paper's
number is beyond what Optimus can reach in our model even with perfect estimates. The ceiling
runs under the default ground truth (Eq. (2), no rescale cost): it bounds the readings of the
estimators, not the readings that change the ground truth (``Table 2 speed``, the rescale
costs), which can exceed it. Fig. 15 (a
cost of errors), the Tetris statement, Figs. 20-21 and the priority factor have no ceiling row:
no ceiling bounds them.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from dlsched.optimus import experiments as oe
from dlsched.optimus import findings
from dlsched.optimus.paa import PS_LOADS, paa_speedup
from dlsched.readings import ReadingBase, check_inputs, claim_row, int_param, mode_axes

__all__ = ["AXES", "CEILING", "FIGURES", "PRIORITY", "READINGS", "RESULT_COLUMNS",
           "Reading", "changes", "default_rows", "reading_run", "readings_grid", "readings_rows"]

FIGURES: Mapping[str, str] = MappingProxyType(
    {
        "fig11": "Figs. 11/13",
        "fig15": "Fig. 15",
        "fig18": "Fig. 18",
        "fig20": "Figs. 20-21",
        "priority": "Sec. 6.2 (priority factor)",
    }
)
"""Figure key -> the table's ``figure`` label (the scorecard's for Figs. 11/13, 15, 18)."""

_GROUP = MappingProxyType(
    {"fig11": "fig11", "fig18": "fig11", "fig15": "fig15", "fig20": "fig20", "priority": "priority"}
)
"""Figure key -> the runs it is judged on (Fig. 18 uses the Figs. 11/13 runs, as in notebook 22)."""

FIG11_SCHEMES: tuple[str, ...] = ("optimus", "drf", "tetris", "drf_allocation")
"""Schemes of the Figs. 11/13 and 18 claims (the notebook also runs the Fig. 19 placements,
which enter no claim here)."""

PRIORITY = 0.95
"""The priority factor of the priority claim (paper Sec. 4.1 "e.g., 0.95", Sec. 6.2)."""

CEILING = "ceiling"
"""The ``reading`` of the clairvoyant Optimus runs."""

_SPEC = "shared/spec/optimus.md"
_TETRIS_CLAIMS = ("Tetris's makespan below DRF's", "Optimus has the lowest mean JCT and makespan")


@dataclasses.dataclass(frozen=True)
class Reading(ReadingBase):  # name, parameter, source: ReadingBase's
    """One reading: the wing parameters it sets and the line it reinterprets.

    Attributes
    ----------
    workload : Mapping
        :func:`dlsched.optimus.workload.optimus_workload` parameters (every scheme re-run).
    policy : Mapping
        Scheme -> extra policy parameters (``policy_params`` of
        :func:`dlsched.optimus.experiments.job_run`).
    error_draw : str or None
        ``error_draw`` of the runs with an injected error (Fig. 15).
    ps_load : str
        :func:`dlsched.optimus.paa.ps_step_time`'s ``ps_load`` (Figs. 20-21).
    figures : tuple of str
        Figure keys it runs on (every point and seed).
    quantities : tuple of str or None
        Claims it is shown on (None: every judged claim of its figures).
    fixed : str
        ``"before"``: chosen before its result was seen.
    """

    workload: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    policy: Mapping[str, Mapping[str, Any]] = dataclasses.field(default_factory=dict)
    error_draw: str | None = None
    ps_load: str = "even"
    figures: tuple[str, ...] = tuple(FIGURES)
    quantities: tuple[str, ...] | None = None
    fixed: str = "before"


_RESCALE = f"paper Sec. 5.4 (checkpoint to HDFS, restart); Sec. 6.2 (overhead 2.54 % of makespan); {_SPEC} 6"
_TETRIS = "paper Sec. 6.1 (Tetris baseline: 'PS:worker 1:1', nothing else stated)"
_PERSIST = f"{_SPEC} 9, Fig. 15 ('inputs v(1 +- e) decreasing with progress'): sign per job, not per interval"
_TABLE2 = f"{_SPEC} 3, Table 2 [Q] (ResNet-50 coefficients, M = 1); paper Sec. 3.2"
_JOBS = ("fig11", "fig15", "fig18")


def _readings() -> tuple[Reading, ...]:
    return (
        Reading("default", "spec readings (Eq. (2) truth, no rescale cost, error per interval)", _SPEC),
        Reading(
            "Table 2 speed",
            "speed_model='table2'",
            _TABLE2,
            workload={"speed_model": "table2"},
            figures=_JOBS,
        ),
        Reading(
            "rescale 15 s",
            "rescale_seconds=15.24",
            _RESCALE,
            workload={"rescale_seconds": 15.24},
            figures=_JOBS,
        ),
        Reading(
            "rescale 60 s", "rescale_seconds=60", _RESCALE, workload={"rescale_seconds": 60.0}, figures=_JOBS
        ),
        Reading(
            "Tetris cap 4",
            "tetris max_bundles=4",
            _TETRIS,
            policy={"tetris": {"max_bundles": 4}},
            figures=("fig11",),
            quantities=_TETRIS_CLAIMS,
        ),
        Reading(
            "Tetris cap 8",
            "tetris max_bundles=8",
            _TETRIS,
            policy={"tetris": {"max_bundles": 8}},
            figures=("fig11",),
            quantities=_TETRIS_CLAIMS,
        ),
        Reading(
            "Tetris split",
            "tetris colocate=False",
            _TETRIS,
            policy={"tetris": {"colocate": False}},
            figures=("fig11",),
            quantities=_TETRIS_CLAIMS,
        ),
        Reading(
            "Tetris cap 4 + split",
            "tetris max_bundles=4, colocate=False",
            _TETRIS,
            policy={"tetris": {"max_bundles": 4, "colocate": False}},
            figures=("fig11",),
            quantities=_TETRIS_CLAIMS,
        ),
        Reading("persistent error", "error_draw='job'", _PERSIST, error_draw="job", figures=("fig15",)),
        Reading(
            "Table 2 + persistent error",
            "speed_model='table2', error_draw='job'",
            f"{_TABLE2}; {_PERSIST}",
            workload={"speed_model": "table2"},
            error_draw="job",
            figures=("fig15",),
        ),
        Reading(
            "PS load imbalance",
            "ps_load='imbalance'",
            f"paper Sec. 3.2 ('If the parameters are evenly distributed on parameter servers'); {_SPEC} 3, 7",
            ps_load="imbalance",
            figures=("fig20",),
        ),
        Reading(
            "initial phase 10 epochs",
            "optimus priority=0.95, initial_epochs=10",
            "paper Sec. 4.1 ('when it is at the beginning state (i.e., larger prediction errors)')",
            policy={"optimus": {"initial_epochs": 10}},
            figures=("priority",),
        ),
    )


READINGS: Mapping[str, Reading] = MappingProxyType({r.name: r for r in _readings()})
"""The readings run here, by name (module docstring), ``default`` first."""

AXES: Mapping[str, Mapping[str, Any]] = MappingProxyType(
    {
        "paper": MappingProxyType(
            {
                "n_jobs": 30,
                "seeds": tuple(range(10)),
                "error_seeds": tuple(range(20)),
                "error_levels": (0.0, 0.1, 0.2, 0.3),
                "n_ps": (2, 4, 6, 8, 10, 12),
                "n_workers": 10,
                "paa_seeds": 20,
            }
        ),
        "quick": MappingProxyType(
            {
                "n_jobs": 30,
                "seeds": (0, 1),
                "error_seeds": (0, 1),
                "error_levels": (0.0, 0.1, 0.2, 0.3),
                "n_ps": (2, 10),
                "n_workers": 10,
                "paa_seeds": 20,
            }
        ),
    }
)
"""Figure points per mode: ``"paper"`` is notebook 22's paper mode (``n_jobs``, ``n_seeds_full``
and ``error_seeds_full`` seeds from 0, ``error_levels``, ``table3_n_ps`` workers and
``table3_seeds`` MXNet draws; the notebook asserts they agree) plus Fig. 20's PS counts;
``"quick"`` its quick mode."""

QUICK_READINGS: tuple[str, ...] = (
    "default",
    "Table 2 speed",
    "rescale 60 s",
    "Tetris split",
    "persistent error",
    "PS load imbalance",
    "initial phase 10 epochs",
)
"""Readings of the ``"quick"`` grid (a smoke run)."""

RESULT_COLUMNS: tuple[str, ...] = (
    "jobs",
    "finished",
    "unfinished",
    "mean_jct_h",
    "makespan_h",
    "speed_paa",
    "speed_mxnet",
    "speedup",
)
"""Columns of :func:`reading_run`: :func:`~dlsched.optimus.experiments.run_totals`'s of a job
point (NaN speeds), or :func:`~dlsched.optimus.paa.paa_speedup`'s of a ``fig20`` point (NaN
totals)."""

_PARAMS = (
    "reading",
    "figure",
    "scheme",
    "seed",
    "n_jobs",
    "convergence_error",
    "speed_error",
    "n_ps",
    "n_workers",
    "paa_seeds",
)
_RUN_FIGURES = ("fig11", "fig15", "fig20", "priority")


def _fig15_pairs(levels: Sequence[float]) -> list[tuple[float, float]]:
    """Notebook 22's Fig. 15 error pairs."""
    lv = [float(v) for v in levels]
    return [(c, 0.0) for c in lv] + [(0.0, s) for s in lv[1:]] + [(0.2, 0.1)]


def changes(
    reading: Reading, figure: str, scheme: str, convergence_error: float = 0.0, speed_error: float = 0.0
) -> bool:
    """Whether ``reading`` changes the run of ``scheme`` at a point of run group ``figure``.

    A workload reading changes every run; a policy reading the runs of its schemes; an
    ``error_draw`` reading the runs with an injected error; ``ps_load`` the ``fig20`` points. The
    priority runs are always the reading's own (the default's are priority 0.95 runs).
    """
    if figure == "fig20":
        return reading.ps_load != "even" or reading.name == "default"
    if figure == "priority":
        return True
    if reading.workload or scheme in reading.policy:
        return True
    return reading.error_draw is not None and (convergence_error > 0 or speed_error > 0)


# ------------------------------------------------------------------------------- one point


def _nan_speeds() -> dict[str, float]:
    return {"speed_paa": math.nan, "speed_mxnet": math.nan, "speedup": math.nan}


def reading_run(params: Mapping[str, Any]) -> pd.DataFrame:
    """Experiment: one point of the readings' grid (store-able; deterministic given ``params``).

    Parameters
    ----------
    params : Mapping
        ``reading`` (a key of :data:`READINGS` or :data:`CEILING`), ``figure`` (``"fig11"``,
        ``"fig15"``, ``"fig20"`` or ``"priority"``), ``scheme`` (a key of
        :data:`~dlsched.optimus.experiments.SCHEMES`; ``"paa"`` for ``fig20``), ``seed``,
        ``n_jobs``, ``convergence_error``, ``speed_error`` (``fig15``; 0 elsewhere), ``n_ps``,
        ``n_workers``, ``paa_seeds`` (``fig20``; 0 elsewhere).

    Returns
    -------
    pandas.DataFrame
        One row, :data:`RESULT_COLUMNS`.

    Raises
    ------
    ValueError
        An unknown or missing parameter, a reading that does not apply to the figure or does not
        change the point (:func:`changes`), or a bad value (the message names it).
    """
    if not isinstance(params, Mapping):
        raise ValueError(f"reading_run: params must be a mapping, got {type(params).__name__}")
    unknown = sorted(set(params) - set(_PARAMS))
    missing = sorted(set(_PARAMS) - set(params))
    if unknown or missing:
        raise ValueError(f"reading_run: unknown parameter(s) {unknown}, missing {missing}; known: {_PARAMS}")
    name, fig = params["reading"], params["figure"]
    if fig not in _RUN_FIGURES:
        raise ValueError(f"reading_run: figure must be one of {_RUN_FIGURES}, got {fig!r}")
    if name != CEILING and name not in READINGS:
        raise ValueError(
            f"reading_run: reading must be {CEILING!r} or one of {tuple(READINGS)}, got {name!r}"
        )
    seed = int_param(params, "seed", 0)
    if fig == "fig20":
        if name == CEILING:
            raise ValueError("reading_run: the ceiling has no fig20 point")
        r = READINGS[name]
        if "fig20" not in r.figures:
            raise ValueError(f"reading_run: reading {name!r} does not apply to fig20 (only {r.figures})")
        if r.ps_load not in PS_LOADS:
            raise ValueError(f"reading_run: ps_load must be one of {PS_LOADS}, got {r.ps_load!r}")
        got = paa_speedup(
            int_param(params, "n_ps", 1),
            int_param(params, "n_workers", 1),
            seeds=int_param(params, "paa_seeds", 1),
            ps_load=r.ps_load,
        )
        row = {
            "jobs": 0,
            "finished": 0,
            "unfinished": 0,
            "mean_jct_h": math.nan,
            "makespan_h": math.nan,
            **got,
        }
        return pd.DataFrame([row], columns=list(RESULT_COLUMNS))
    scheme = params["scheme"]
    if scheme not in oe.SCHEMES:
        raise ValueError(f"reading_run: scheme must be one of {sorted(oe.SCHEMES)}, got {scheme!r}")
    conv, speed = float(params["convergence_error"]), float(params["speed_error"])
    if fig != "fig15" and (conv or speed):
        raise ValueError(f"reading_run: errors are for fig15 only, got {conv}, {speed} on {fig!r}")
    run: dict[str, Any] = {"scheme": scheme, "seed": seed, "n_jobs": int_param(params, "n_jobs", 1)}
    extra: dict[str, Any] = {}
    if name == CEILING:
        if fig != "fig11" or scheme != "optimus":
            raise ValueError(
                f"reading_run: the ceiling runs scheme 'optimus' on fig11, got {scheme!r} on {fig!r}"
            )
        extra["oracle"] = True
    else:
        r = READINGS[name]
        figs = {_GROUP[f] for f in r.figures}
        if fig not in figs:
            raise ValueError(f"reading_run: reading {name!r} does not apply to {fig!r} (only {r.figures})")
        if not changes(r, fig, scheme, conv, speed) and name != "default":
            raise ValueError(
                f"reading_run: reading {name!r} does not change {scheme!r} here (the default's run)"
            )
        run.update(r.workload)
        extra.update(r.policy.get(scheme, {}))
        if r.error_draw is not None and (conv or speed):
            run["error_draw"] = r.error_draw
    if fig == "priority":
        if scheme != "optimus":
            raise ValueError(f"reading_run: the priority runs are Optimus's, got {scheme!r}")
        extra["priority"] = PRIORITY
    if fig == "fig15":
        run["convergence_error"], run["speed_error"] = conv, speed
    if extra:
        run["policy_params"] = extra
    tot = oe.run_totals(oe.job_run(run).assign(_run=0), ["_run"]).drop(columns="_run")
    out = tot.assign(**_nan_speeds())
    return out[list(RESULT_COLUMNS)].reset_index(drop=True)


def _point(
    reading: str,
    figure: str,
    scheme: str,
    seed: int,
    n_jobs: int,
    conv: float = 0.0,
    speed: float = 0.0,
    n_ps: int = 0,
    n_workers: int = 0,
    paa_seeds: int = 0,
) -> dict[str, Any]:
    return {
        "reading": reading,
        "figure": figure,
        "scheme": scheme,
        "seed": int(seed),
        "n_jobs": int(n_jobs),
        "convergence_error": float(conv),
        "speed_error": float(speed),
        "n_ps": int(n_ps),
        "n_workers": int(n_workers),
        "paa_seeds": int(paa_seeds),
    }


def _group_points(a: Mapping[str, Any], group: str, reading: str) -> list[dict[str, Any]]:
    """Every point of run group ``group`` that ``reading`` changes (all of them for the default)."""
    pts: list[dict[str, Any]] = []
    if group == "fig20":
        r = READINGS[reading]
        if changes(r, "fig20", "paa"):
            pts += [
                _point(
                    reading, "fig20", "paa", 0, 0, n_ps=p, n_workers=a["n_workers"], paa_seeds=a["paa_seeds"]
                )
                for p in a["n_ps"]
            ]
        return pts
    if group == "priority":
        return [_point(reading, "priority", "optimus", s, a["n_jobs"]) for s in a["seeds"]]
    r = READINGS[reading]
    if group == "fig11":
        for scheme in FIG11_SCHEMES:
            if reading == "default" or changes(r, "fig11", scheme):
                pts += [_point(reading, "fig11", scheme, s, a["n_jobs"]) for s in a["seeds"]]
        return pts
    for c, sp in _fig15_pairs(a["error_levels"]):
        if reading == "default" or changes(r, "fig15", "optimus", c, sp):
            pts += [_point(reading, "fig15", "optimus", s, a["n_jobs"], c, sp) for s in a["error_seeds"]]
    return pts


def readings_grid(mode: str) -> list[dict[str, Any]]:
    """The :func:`reading_run` points of ``mode``.

    ``"paper"``: every alternative reading on every point and seed of its figures
    (:attr:`Reading.figures`, :data:`AXES`) where it changes the run (:func:`changes`), the
    default's priority-0.95 runs and Figs. 20-21 points, and the ceiling's clairvoyant Optimus on
    every Figs. 11/13 seed. The default's Figs. 11/13, 18 and 15 runs are **not** in it: they are
    the notebook's own, added with :func:`default_rows`. 982 points; about 4 CPU-minutes
    (estimated from the stored seconds of notebook 22's default points, 0.1-0.4 s per run, and
    the quick grid's 74 points timed at 17 s, 0.23 s per point, on 27 Nov 2026). ``"quick"``:
    :data:`QUICK_READINGS` at quick mode's seeds (the default's job runs again from
    :func:`default_rows`; 74 points, about 20 s).

    Raises
    ------
    ValueError
        On an unknown mode.
    """
    a = mode_axes(AXES, mode)
    names = list(READINGS) if mode == "paper" else list(QUICK_READINGS)
    grid: list[dict[str, Any]] = []
    for name in names:
        groups = {_GROUP[f] for f in READINGS[name].figures}
        for group in _RUN_FIGURES:
            if group not in groups:
                continue
            if name == "default" and group in ("fig11", "fig15"):
                continue  # the notebook's own runs (default_rows)
            grid += _group_points(a, group, name)
    grid += [_point(CEILING, "fig11", "optimus", s, a["n_jobs"]) for s in a["seeds"]]
    return grid


def default_rows(fig11_jobs: pd.DataFrame, fig15_jobs: pd.DataFrame) -> pd.DataFrame:
    """The notebook's default runs as :func:`reading_run` rows (``reading="default"``).

    Parameters
    ----------
    fig11_jobs : pandas.DataFrame
        Notebook 22's Figs. 11/13 sweep of :func:`~dlsched.optimus.experiments.job_run`
        (columns ``scheme``, ``seed``, ``n_jobs`` and the job rows); the schemes of
        :data:`FIG11_SCHEMES` are kept.
    fig15_jobs : pandas.DataFrame
        Its Fig. 15 sweep (also ``convergence_error``, ``speed_error``).

    Returns
    -------
    pandas.DataFrame
        One row per run with the columns of a sweep of :func:`reading_run`.

    Raises
    ------
    ValueError
        A frame without the columns.
    """
    parts = []
    for fig, jobs, keys in (
        ("fig11", fig11_jobs, ["scheme", "seed", "n_jobs"]),
        ("fig15", fig15_jobs, ["scheme", "seed", "n_jobs", "convergence_error", "speed_error"]),
    ):
        if not isinstance(jobs, pd.DataFrame):
            raise ValueError(f"default_rows: the {fig} runs must be a DataFrame, got {type(jobs).__name__}")
        missing = [c for c in keys if c not in jobs.columns]
        if missing:
            raise ValueError(f"default_rows: the {fig} runs lack columns {missing}")
        tot = oe.run_totals(jobs, keys)
        if fig == "fig11":
            tot = tot[tot["scheme"].isin(FIG11_SCHEMES)]
            tot = tot.assign(convergence_error=0.0, speed_error=0.0)
        tot = tot.assign(reading="default", figure=fig, n_ps=0, n_workers=0, paa_seeds=0, **_nan_speeds())
        parts.append(tot)
    out = pd.concat(parts, ignore_index=True)
    out["seed"] = out["seed"].astype("int64")
    out["n_jobs"] = out["n_jobs"].astype("int64")
    return out[[*_PARAMS, *RESULT_COLUMNS]].reset_index(drop=True)


# ------------------------------------------------------------------------------- the table


def _mode(frame: pd.DataFrame) -> Mapping[str, Any]:
    ceil = frame[frame["reading"] == CEILING]
    have = set(ceil["seed"])
    for a in AXES.values():
        if have == set(a["seeds"]):
            return a
    raise ValueError(
        "readings_rows: the frame's ceiling seeds match no mode of AXES (a sweep of readings_grid?)"
    )


def _runs(frame: pd.DataFrame, name: str, group: str, a: Mapping[str, Any]) -> pd.DataFrame:
    """Run rows of group ``group`` under reading ``name`` (the default's where it changes nothing)."""
    jobs = frame[frame["figure"] == group]
    default = jobs[jobs["reading"] == "default"]
    if name == "default":
        part = default
    else:
        r = READINGS[name] if name != CEILING else None
        own = jobs[jobs["reading"] == name]
        if name == CEILING:
            keep = default["scheme"] != "optimus"
        else:
            keep = ~np.array(
                [
                    changes(r, group, s, c, sp)
                    for s, c, sp in zip(
                        default["scheme"], default["convergence_error"], default["speed_error"], strict=True
                    )
                ],
                dtype=bool,
            )
        part = pd.concat([default[keep], own], ignore_index=True)
    seeds = a["error_seeds"] if group == "fig15" else a["seeds"]
    part = part[part["seed"].isin(seeds)]
    part = part.drop_duplicates(["scheme", "seed", "convergence_error", "speed_error"])
    if group == "fig11":
        schemes = FIG11_SCHEMES
        want = len(seeds)
        for s in schemes:
            got = int((part["scheme"] == s).sum())
            if got != want:
                raise ValueError(
                    f"readings_rows: reading {name!r}, {group}: {got} runs of {s!r}, expected {want}"
                )
    elif group == "fig15":
        want = len(_fig15_pairs(a["error_levels"])) * len(seeds)
        if len(part) != want:
            raise ValueError(f"readings_rows: reading {name!r}, fig15: {len(part)} runs, expected {want}")
    return part.reset_index(drop=True)


def _judged_cmp(cmp: pd.DataFrame) -> list[tuple[str, str, str]]:
    return [(q, o, m) for q, o, m in cmp[["quantity", "ours", "match"]].itertuples(index=False) if m != "-"]


def _claims(frame: pd.DataFrame, name: str, fig: str, a: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """``(quantity, ours, match)`` of every judged claim of ``fig`` under reading ``name``."""
    if fig == "fig11":
        t = _runs(frame, name, "fig11", a)
        t = t[t["scheme"].isin(("optimus", "drf", "tetris"))]
        return _judged_cmp(findings.fig11_table(t, oe.PAPER["fig11"]))
    if fig == "fig18":
        t = _runs(frame, name, "fig11", a)
        v = oe.versus(t[t["scheme"].isin(("optimus", "drf_allocation", "drf"))], "drf_allocation")
        return _judged_cmp(findings.fig18_table(v.set_index("scheme"), oe.PAPER["fig18"]))
    if fig == "fig15":
        gaps = oe.error_gaps(_runs(frame, name, "fig15", a))
        return _judged_cmp(findings.fig15_table(gaps, oe.PAPER["fig15"]))
    if fig == "fig20":
        return _fig20_claims(frame, name, a)
    return _priority_claims(frame, name, a)


_FIG20_Q = (
    "PAA speeds ResNet-50 up more with more PS (10 workers)",
    "PAA speed-up, ResNet-50 sync, 10 workers + 10 PS",
)
_FIG20_PAPER = (
    "yes (Fig. 20: 'especially when the number of parameter servers is large')",
    "up to 29 % (Fig. 21, over models)",
)
_PRIO_Q = ("JCT reduction with priority factor 0.95", "makespan reduction with priority factor 0.95")
_PRIO_PAPER = {"jct": 0.0266, "makespan": 0.0188}


def _fig20_claims(frame: pd.DataFrame, name: str, a: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    part = frame[(frame["figure"] == "fig20") & (frame["reading"] == name)]
    part = part.drop_duplicates("n_ps").set_index("n_ps").sort_index()
    missing = sorted(set(a["n_ps"]) - set(part.index))
    if missing:
        raise ValueError(f"readings_rows: reading {name!r}, fig20: no point at n_ps {missing}")
    g = part.loc[list(a["n_ps"]), "speedup"]
    lo, hi = int(g.index[0]), int(g.index[-1])
    grows = bool(g.iloc[-1] > g.iloc[0] + 1e-9)
    span = ", ".join(f"{int(p)} PS: {findings._pct(v, True)}" for p, v in g.items())
    rows = [(_FIG20_Q[0], f"{'yes' if grows else 'no'} ({span}; {lo} vs {hi} PS)", "yes" if grows else "no")]
    n10 = a["n_workers"]
    if n10 in g.index:
        v = float(g[n10])
        rows.append((_FIG20_Q[1], findings._pct(v, True), findings.gain_verdict(0.29, v)))
    return rows


def _priority_claims(frame: pd.DataFrame, name: str, a: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    base = _runs(frame, "default", "fig11", a)
    base = base[base["scheme"] == "optimus"].set_index("seed").sort_index()
    prio = frame[(frame["figure"] == "priority") & (frame["reading"] == name)]
    prio = prio.drop_duplicates("seed").set_index("seed").sort_index()
    seeds = list(a["seeds"])
    if sorted(prio.index) != sorted(seeds):
        raise ValueError(
            f"readings_rows: reading {name!r}, priority: seeds {sorted(prio.index)}, expected {seeds}"
        )
    rows = []
    for q, key, col in ((_PRIO_Q[0], "jct", "mean_jct_h"), (_PRIO_Q[1], "makespan", "makespan_h")):
        b, p = base.loc[seeds, col].to_numpy(float), prio.loc[seeds, col].to_numpy(float)
        red = 1.0 - p.mean() / b.mean()
        per = 1.0 - p / b
        noise = 2 * findings._se(float(np.std(per, ddof=1)) if len(per) > 1 else math.nan, len(per))
        rows.append(
            (
                q,
                f"{findings._pct(red, True)} (noise {findings._pct(noise)})",
                findings.gain_verdict(_PRIO_PAPER[key], red, noise=noise),
            )
        )
    return rows


_CEILING_PARAMETER = (
    "clairvoyant Optimus (Optimus(oracle=True)): its own allocation and placement with every job's true "
    "remaining steps and true speed function; the best Optimus's allocation does with perfect estimates "
    "in our model (a greedy heuristic: not a bound over every scheduler)"
)
_CEILING_SOURCE = (
    f"issue 22 ('the clairvoyant allocation that knows every job's true curve and speed'); {_SPEC} 2-4"
)
_CEILING_CLAIMS = {
    "fig11": {
        "mean JCT speed-up of Optimus over DRF": oe.PAPER["fig11"]["jct_speedup_vs_drf"] - 1,
        "makespan speed-up of Optimus over DRF": oe.PAPER["fig11"]["makespan_speedup_vs_drf"] - 1,
    },
    "fig18": {
        "JCT reduction, Optimus vs DRF allocation": oe.PAPER["fig18"]["jct_reduction"],
        "makespan reduction, Optimus vs DRF allocation": oe.PAPER["fig18"]["makespan_reduction"],
    },
}


def _ceiling_row(
    frame: pd.DataFrame, fig: str, quantity: str, a: Mapping[str, Any]
) -> tuple[str, bool] | None:
    gains = _CEILING_CLAIMS.get(fig, {})
    if quantity not in gains:
        return None
    t = _runs(frame, CEILING, "fig11", a)
    if fig == "fig11":
        v = oe.versus(t[t["scheme"].isin(("optimus", "drf"))], "drf").set_index("scheme")
        col = "jct_speedup" if quantity.startswith("mean JCT") else "makespan_speedup"
        gain = float(v.loc["optimus", col]) - 1.0
        ours = f"clairvoyant Optimus / DRF {gain + 1:.2f}x"
    else:
        v = oe.versus(t[t["scheme"].isin(("optimus", "drf_allocation"))], "drf_allocation").set_index(
            "scheme"
        )
        col = "jct_reduction" if quantity.startswith("JCT") else "makespan_reduction"
        gain = float(v.loc["optimus", col])
        ours = f"clairvoyant Optimus vs DRF allocation {findings._pct(gain)}"
    reach = (1.0 - findings.GAIN_TOLERANCE) * gains[quantity]
    return ours, bool(gain >= reach)


def readings_rows(frame: pd.DataFrame, scorecard: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows of :func:`dlsched.readings.readings_table` from the readings' runs.

    For every claim of Figs. 11/13, 15 and 18 that the scorecard's rule judges (``match`` not
    ``-``), for Figs. 20-21's two and the priority factor's two, one row per reading run on that
    figure (``default`` first; :attr:`Reading.quantities` limits the Tetris readings to the Tetris
    statements): ``ours`` and ``holds`` (``match == "yes"``) from the same ``fig*_table`` as
    notebook 22's scorecard, on that reading's runs and the default's runs it does not change,
    every point and seed. Then the ceiling's row for the speed-ups of Figs. 11/13 and the
    reductions of Fig. 18 (module docstring). ``paper`` is the scorecard's where it has the claim.

    Parameters
    ----------
    frame : pandas.DataFrame
        ``experiments.sweep(reading_run, readings_grid(mode))`` concatenated with
        :func:`default_rows` of the notebook's Figs. 11/13 and 15 runs.
    scorecard : pandas.DataFrame
        Notebook 22's scorecard (``figure``, ``quantity``, ``paper``), to join on.

    Raises
    ------
    TypeError
        If an argument is not a DataFrame.
    ValueError
        If ``frame`` lacks a column or a reading lacks a run of its figures, or the scorecard
        lacks ``figure``/``quantity``/``paper``.
    """
    present = check_inputs(frame, scorecard, (*_PARAMS, *RESULT_COLUMNS), READINGS, hint=" (default_rows?)")
    a = _mode(frame)
    paper = {(f, q): p for f, q, p in scorecard[["figure", "quantity", "paper"]].itertuples(index=False)}
    extra_paper = dict(zip(_FIG20_Q, _FIG20_PAPER, strict=True))
    extra_paper.update({_PRIO_Q[0]: "-2.66 % (Sec. 6.2)", _PRIO_Q[1]: "-1.88 % (Sec. 6.2)"})
    rows: list[dict[str, Any]] = []
    for fig, label in FIGURES.items():
        names = [n for n in present if fig in READINGS[n].figures]
        if fig == "priority" and not (frame["figure"] == "priority").any():
            continue
        judged = {n: _claims(frame, n, fig, a) for n in names}
        for q, _, _ in judged["default"]:
            base = {"figure": label, "quantity": q, "paper": paper.get((label, q)) or extra_paper.get(q, "")}
            for n, claims in judged.items():
                r = READINGS[n]
                if r.quantities is not None and q not in r.quantities:
                    continue
                rows += [claim_row(base, n, r.parameter, r.source, r.fixed, ours, match == "yes")
                         for q2, ours, match in claims if q2 == q]
            ceil = _ceiling_row(frame, fig, q, a)
            if ceil is not None:
                rows.append(claim_row(base, CEILING, _CEILING_PARAMETER, _CEILING_SOURCE, "before", *ceil))
    return rows

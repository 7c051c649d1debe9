r"""OASiS: which reading restores the claim (notebook ``12_oasis_figures``, issue 22).

Y. Bao, Y. Peng, C. Wu, Z. Li, "Online Job Scheduling in Distributed Machine Learning Clusters",
IEEE INFOCOM 2018 (arXiv:1801.00936), Sec. V; ``shared/spec/oasis.md`` sections 5 and 11. For
every claim of Figs. 3, 4 and 6 that notebook 12's scorecard judges, this module runs OASiS under
each plausible alternative reading of the price parameters (23)-(26) -- every one a parameter of
:class:`~dlsched.oasis.policy.OASiS` -- on every point and seed of the figure, judges each claim
with the scorecard's own rule (``fig3_comparison``, ``fig4_comparison``, ``fig6_comparison`` of
:mod:`dlsched.oasis.experiments`) and adds the model's ceiling where one is computable. The
table's shape is :mod:`dlsched.readings`.

* :func:`reading_run` -- one point (a store-able experiment for
  :func:`dlsched.experiments.sweep`): OASiS on one figure point and seed under one reading, or
  the ceiling of one Fig. 3 point; one row per job.
* :func:`readings_grid` -- the points of ``"paper"`` (every point and seed of Figs. 3, 4 and 6 at
  notebook 12's paper sizes, :data:`AXES`) or ``"quick"`` (notebook 12's quick sizes).
* :func:`default_rows` -- the notebook's own runs (every scheme of Figs. 3-4, Fig. 6's ``U``
  estimates, the post-hoc capped runs) in the shape of :func:`reading_run`, so that no grid
  recomputes them.
* :func:`readings_rows` -- the frame to rows of :func:`dlsched.readings.readings_table`.

The readings (:data:`READINGS`)
-------------------------------

=========================  ===========================================  ==========================
reading                    ``policy_params`` of OASiS                   reinterprets
=========================  ===========================================  ==========================
default                    ``{}`` (``l_utility="horizon"``,             (25)-(26) as printed, Fig.
                           ``l_jobs="all"``, ``l_statistic="min"``;     6 as ``U`` scaled at fixed
                           Fig. 6: ``u_scale``)                         ``L`` (spec 11.3 [N])
L at target completion    ``{"l_utility": "target"}``                  (25)-(26) ":math:`f_i(T -
                                                                        a_i)` = smallest utility
                                                                        (ends at T)" vs Sec. V-A
                                                                        :math:`\gamma_3` "target
                                                                        completion time"
L over time-sensitive      ``{"l_jobs": "time_sensitive"}``             (25)-(26)
jobs                                                                    :math:`\min_{i\in[I]}`
                                                                        vs Sec. V-A's classes
L from the median          ``{"l_statistic": "median"}``                (25)-(26) :math:`\min_i`
                                                                        ("min unit-time-unit-
                                                                        resource utility")
U/L via L, 1e+-30,         ``{"l_scale": 1/x}``, ``x`` in 1e-300,       spec 11.3 Fig. 6 "[N] how
1e+-300                    1e-30, 1e30, 1e300                           the ratio is perturbed
                                                                        (scale U or L) is not
                                                                        stated"
ln(U/L) <= c (post hoc)    ``{"max_log_ratio": c}``, c = 5, 10, 20, 50  not in the paper
=========================  ===========================================  ==========================

The three definitions of ``L`` run on Figs. 3 and 4, every point and seed (their effect on Fig.
6 would need the whole ``U``-estimate sweep again under each of them; not run, to keep the grid
within budget). The Fig. 6 reading perturbs ``L`` instead of ``U`` by orders of magnitude: on
the paper's workload :math:`\ln(U/L)` is in the thousands at :math:`T = 300` (notebook 12 prints
it), so the paper's factors 0.2-10 move it by at most :math:`\ln 10`, whichever of ``U`` and
``L`` they scale; 1e30 and 1e300 (the most a float allows) move it by 69 and 691. The factor is
the estimate of :math:`U/L` as a fraction of the true value, as in the figure's legend
(``l_scale = 1/x``); it runs on every point and seed of Fig. 6. The paper's own percentages
applied to ``L`` are not run (they act as ``U``'s do on :math:`\ln(U/L)`, and the grid's budget
is spent on the larger factors).

The cap rows are the notebook's own exploration (``capped_run``, ``PriceParameters.capped``),
chosen after the Fig. 3 results were seen: ``fixed="after"``, shown but never counted as
restoring a claim; they exist for Fig. 3 only (the notebook runs them there). All other readings
were fixed before any result of them was seen (the issue lists them; the Fig. 6 factors were
fixed here before running): ``fixed="before"``.

Every reading changes OASiS only: the other schemes are the notebook's own default runs (every
point and seed; not recomputed), and so are the default rows.

Ceilings (``reading="ceiling"``)
--------------------------------

* **Fig. 3** (``experiment="bound"``, every point and seed): the offline optimum of (1)-(13)
  (:func:`dlsched.oasis.offline.solve_offline`) is out of reach at 100-400 jobs on 100 servers over
  300 slots (Fig. 5's 10 jobs over 10 slots take the MILP up to a second; the paper's exact solve
  of 10 jobs took 2 days). An upper bound is computed instead (:func:`utility_bound`): every job
  alone on the empty cluster with its :math:`N_i` workers in every slot, completing in slot
  :math:`a_i + d_i^{min} - 1` and earning :math:`f_i(d_i^{min} - 1)` if that is before the
  horizon (:math:`d_i^{min}` of (23)). Sharing only delays jobs and ``f`` is non-increasing, so
  no scheduler earns more on the same jobs. ``holds``: the bound is above the best baseline at
  every load (means over seeds), i.e. some scheduler could beat it there.
* **Fig. 5** (from the notebook's ``ratio_run`` points): the offline optimum itself, which the
  notebook already solves; a ratio OPT / scheduler of 1 is the best any scheduler can reach, so
  the paper's 1.1-1.5 is within it; the row gives how many instances were solved to
  optimality and on how many OASiS reaches it.
* **Figs. 4 and 6**: no ceiling row. Fig. 4 ranks schemes by the median and spread of their
  finished jobs' completion minus target, and Fig. 6 compares OASiS with itself under other
  estimates; no optimum of (1) bounds either (a schedule of maximum utility need not finish
  jobs near their targets).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from dlsched.oasis import experiments as ox
from dlsched.readings import ReadingBase, check_inputs, check_point, claim_row, int_param, mode_axes

__all__ = ["AXES", "CEILING", "FIGURES", "READINGS", "RESULT_COLUMNS",
           "Reading", "default_rows", "reading_run", "readings_grid", "readings_rows", "utility_bound"]

FIGURES: Mapping[str, str] = MappingProxyType({"fig3": "Fig. 3", "fig4": "Fig. 4", "fig6": "Fig. 6"})
"""Figure key -> the scorecard's ``figure`` label (the figures with readings)."""

CEILING = "ceiling"
"""The ``reading`` of the ceiling points."""

_SPEC = "shared/spec/oasis.md"


@dataclasses.dataclass(frozen=True)
class Reading(ReadingBase):  # name, parameter, source: ReadingBase's
    """One reading of the price parameters: OASiS's parameters and the line it reinterprets.

    Attributes
    ----------
    figures : tuple of str
        Figures it runs on (every point and seed).
    policy_params : Mapping
        :class:`~dlsched.oasis.policy.OASiS` parameters.
    factors : tuple of float
        Fig. 6 only: the estimates of :math:`U/L` as fractions of the true value, realised
        through ``l_scale = 1/x``.
    fixed : str
        ``"before"`` or ``"after"`` (post hoc).
    """

    policy_params: Mapping[str, Any]
    figures: tuple[str, ...]
    factors: tuple[float, ...] = ()
    fixed: str = "before"


def _r(name, parameter, source, pp, figures, factors=(), fixed="before") -> Reading:
    return Reading(name, parameter, source, MappingProxyType(dict(pp)), tuple(figures), tuple(factors), fixed)


ALPHA_CAPS: tuple[float, ...] = ox.ALPHA_CAPS
"""The caps of the post-hoc rows (notebook 12's ``alpha_caps``)."""

L_FACTORS: tuple[float, ...] = (1e-300, 1e-30, 1e30, 1e300)
"""Fig. 6's :math:`U/L` estimates (fractions of the true value) of the ``L`` reading."""


def _cap_name(c: float) -> str:
    return f"ln(U/L) <= {c:g} (post hoc)"


READINGS: Mapping[str, Reading] = MappingProxyType(
    {
        r.name: r
        for r in (
            _r(
                "default",
                "spec readings (l_utility='horizon', l_jobs='all', l_statistic='min'; Fig. 6: u_scale)",
                f"{_SPEC} section 5 (25)-(26) as read by dlsched.oasis.policy.price_parameters; "
                "section 11.3 Fig. 6 (U scaled at fixed L)",
                {},
                ("fig3", "fig4", "fig6"),
            ),
            _r(
                "L at target completion",
                "policy_params={'l_utility': 'target'}",
                f"{_SPEC} section 5 (25)-(26) 'f_i(T-a_i) = smallest utility (ends at T)' vs "
                "section 11.1 'gamma_3 = target completion time'",
                {"l_utility": "target"},
                ("fig3", "fig4"),
            ),
            _r(
                "L over time-sensitive jobs",
                "policy_params={'l_jobs': 'time_sensitive'}",
                f"{_SPEC} section 5 (25)-(26) min over i in [I] vs section 11.1 'time-sensitive: "
                "gamma_2 in [0.01, 1]'",
                {"l_jobs": "time_sensitive"},
                ("fig3", "fig4"),
            ),
            _r(
                "L from the median",
                "policy_params={'l_statistic': 'median'}",
                f"{_SPEC} section 5 (25)-(26) min over i ('L_1 = min unit-time-unit-resource utility')",
                {"l_statistic": "median"},
                ("fig3", "fig4"),
            ),
            _r(
                "U/L via L, 1e+-30, 1e+-300",
                "policy_params={'l_scale': 1/x}, U/L estimate x in 1e-300, 1e-30, 1e30, 1e300",
                f"{_SPEC} section 11.3 Fig. 6 '[N] how the ratio is perturbed (scale U or L) is "
                "not stated'; issue 22 (orders of magnitude)",
                {},
                ("fig6",),
                L_FACTORS,
            ),
            *(
                _r(
                    _cap_name(c),
                    f"policy_params={{'max_log_ratio': {c:g}}}",
                    "not in the paper: notebook 12's exploration after Fig. 3 (PriceParameters.capped)",
                    {"max_log_ratio": c},
                    ("fig3",),
                    fixed="after",
                )
                for c in ALPHA_CAPS
            ),
        )
    }
)
"""The readings, by name (module docstring), ``default`` first."""

FIG4_MIX: tuple[float, float, float] = (0.0, 0.5, 0.5)
"""Fig. 4's utility-class mix (notebook 12's ``fig4_mix``)."""

AXES: Mapping[str, Mapping[str, Any]] = MappingProxyType(
    {
        "paper": MappingProxyType(
            {
                "n_jobs": (100, 200, 300, 400),
                "T": 300,
                "H": 50,
                "seeds": (0, 1, 2, 3, 4),
                "fig4_jobs": 200,
                "fig4_T": 100,
            }
        ),
        "quick": MappingProxyType(
            {"n_jobs": (30, 60), "T": 60, "H": 10, "seeds": (0,), "fig4_jobs": 60, "fig4_T": 50}
        ),
    }
)
"""Figure points per mode: notebook 12's ``n_jobs_*``, ``T_*``, ``servers_*`` (``H = K``),
``n_seeds_*`` seeds from 0 and ``fig4_jobs_*``, ``fig4_T_*`` (the notebook asserts they agree)."""

RESULT_COLUMNS: tuple[str, ...] = ("policy", *ox.JOB_COLUMNS)
"""Columns of :func:`reading_run`: the scheme (``"oasis"``, or ``"ceiling"`` for a bound) and the
per-job table of :func:`~dlsched.oasis.experiments.utility_run`."""

_PARAMS = ("reading", "experiment", "figure", "n_jobs", "T", "H", "K", "seed", "factor")
_EXPERIMENTS = ("job", "bound")
_REL = 1e-9
_KEYS = ["n_jobs", "T", "H", "K", "seed"]


# ------------------------------------------------------------------------------- one point


def utility_bound(workload) -> pd.DataFrame:
    r"""An upper bound on every job's utility under any scheduler, one row per job.

    Job ``i`` alone on the empty cluster with :math:`N_i` workers (constraint (3)) in every slot
    from its arrival completes in slot :math:`a_i + d_i^{min} - 1` at the earliest
    (:func:`~dlsched.oasis.policy.min_duration`; the simulator's rate is workers per mini-batch
    time) and earns at most :math:`f_i(d_i^{min} - 1)`; a job that cannot complete before the
    horizon earns 0. Sharing the cluster only delays jobs and ``f`` is non-increasing, so the
    sum bounds the total utility of every schedule of the workload.

    Parameters
    ----------
    workload : Workload
        OASiS jobs with a horizon.

    Returns
    -------
    pandas.DataFrame
        :data:`RESULT_COLUMNS`; ``policy`` and ``status`` ``"ceiling"`` / ``"bound"``,
        ``admitted`` whether the job is credited, ``completion_slot`` the earliest completion.

    Raises
    ------
    ValueError
        If the workload has no horizon or holds a non-OASiS job.
    """
    from dlsched.oasis.model import min_durations, utility_classes

    T = workload.horizon
    if T is None:
        raise ValueError("utility_bound: the workload needs a horizon")
    dmin = min_durations(workload)
    rows = []
    for spec, d in zip(workload.jobs, dmin.tolist(), strict=True):
        end = spec.arrival + d - 1
        ok = end <= T - 1
        g2 = float(getattr(spec.utility, "gamma2", 0.0))
        rows.append(
            {
                "policy": CEILING,
                "job_id": int(spec.job_id),
                "job_name": str(spec.name),
                "utility_class": str(utility_classes([g2])[0]),
                "gamma1": float(getattr(spec.utility, "gamma1", math.nan)),
                "arrival": int(spec.arrival),
                "target": float(spec.target),
                "status": "bound",
                "admitted": bool(ok),
                "completion_slot": float(end) if ok else math.nan,
                "utility": float(spec.utility(d - 1)) if ok else 0.0,
                "completion_minus_target": float(d - 1 - spec.target) if ok else math.nan,
            }
        )
    return _typed(pd.DataFrame(rows))


def _typed(out: pd.DataFrame) -> pd.DataFrame:
    out = out[list(RESULT_COLUMNS)].copy()
    out["policy"] = out["policy"].astype(str)
    for c in ("job_id", "arrival"):
        out[c] = out[c].astype("int64")
    out["admitted"] = out["admitted"].astype(bool)
    for c in ("gamma1", "target", "completion_slot", "utility", "completion_minus_target"):
        out[c] = out[c].astype(float)
    for c in ("job_name", "utility_class", "status"):
        out[c] = out[c].astype(str)
    return out.reset_index(drop=True)


def _validate(params: Mapping[str, Any]) -> tuple[str, str, str, dict[str, int], float | None]:
    name, exp = check_point(params, _PARAMS, READINGS, _EXPERIMENTS, ceiling=CEILING,
                            ceiling_experiments="'bound'")
    fig = params.get("figure")
    if fig not in FIGURES:
        raise ValueError(f"reading_run: figure must be one of {list(FIGURES)}, got {fig!r}")
    if exp == "job" and fig not in READINGS[name].figures:
        raise ValueError(f"reading_run: reading {name!r} runs on {READINGS[name].figures}, not {fig!r}")
    if exp == "bound" and fig != "fig3":
        raise ValueError(f"reading_run: the ceiling is computed for 'fig3' only, got {fig!r}")
    sizes = {k: int_param(params, k, 1) for k in ("n_jobs", "T", "H", "K")}
    sizes["seed"] = int_param({"seed": params.get("seed", 0)}, "seed", 0)
    factor = params.get("factor")
    wants = exp == "job" and fig == "fig6" and name != "default"
    if wants:
        if factor not in READINGS[name].factors:
            raise ValueError(f"reading_run: factor must be one of {READINGS[name].factors}, got {factor!r}")
        factor = float(factor)
    elif factor is not None:
        raise ValueError(f"reading_run: factor is a parameter of the Fig. 6 readings only, got {factor!r}")
    return str(name), str(exp), str(fig), sizes, factor


def reading_run(params: Mapping[str, Any]) -> pd.DataFrame:
    """Experiment: one point of the readings table.

    Parameters
    ----------
    params : Mapping
        ``reading`` (a key of :data:`READINGS`, or ``"ceiling"``), ``experiment`` (``"job"``
        for a reading, ``"bound"`` for the ceiling), ``figure`` (``"fig3"``, ``"fig4"``,
        ``"fig6"``: one of the reading's figures; ``"fig3"`` for the ceiling), ``n_jobs``,
        ``T``, ``H``, ``K`` (ints >= 1), ``seed`` (int >= 0), ``factor`` (the Fig. 6 readings
        only: one of the reading's :attr:`Reading.factors`; else None or absent).

        * ``"job"``: :func:`~dlsched.oasis.experiments.utility_run` of OASiS with the reading's
          ``policy_params`` (``l_scale = 1/factor`` for Fig. 6) on the Sec. V-A workload (Fig.
          4: the mix :data:`FIG4_MIX`); the default reading runs OASiS with no parameter.
        * ``"bound"``: :func:`utility_bound` of the workload.

    Returns
    -------
    pandas.DataFrame
        One row per job, columns :data:`RESULT_COLUMNS`.

    Raises
    ------
    ValueError
        A missing, unknown or bad parameter, naming the field.
    """
    name, exp, fig, sizes, factor = _validate(params)
    if exp == "bound":
        from dlsched.oasis.model import oasis_workload

        # the workload of utility_run: registry.make_workload("oasis", seed=seed, ...) seeds
        # numpy's default_rng with the int seed (not imported: wings stay below the registry)
        seed = sizes.pop("seed")
        return utility_bound(oasis_workload(np.random.default_rng(seed), **sizes))
    pp = dict(READINGS[name].policy_params)
    if factor is not None:
        pp["l_scale"] = 1.0 / factor
    run = {"policy": "oasis", **sizes, **({"policy_params": pp} if pp else {})}
    if fig == "fig4":
        run["workload"] = {"mix": list(FIG4_MIX)}
    jobs = ox.utility_run(run)
    return _typed(jobs.assign(policy="oasis"))


# ------------------------------------------------------------------------------- the grid


def _point(reading: str, experiment: str, figure: str, n_jobs: int, T: int, H: int, seed: int,
           factor: float | None = None) -> dict[str, Any]:  # fmt: skip
    return {
        "reading": reading,
        "experiment": experiment,
        "figure": figure,
        "n_jobs": int(n_jobs),
        "T": int(T),
        "H": int(H),
        "K": int(H),
        "seed": int(seed),
        "factor": factor,
    }


def _figure_points(a: Mapping[str, Any], fig: str) -> list[tuple[int, int]]:
    """``(n_jobs, T)`` of the figure's points."""
    if fig == "fig4":
        return [(a["fig4_jobs"], a["fig4_T"])]
    return [(n, a["T"]) for n in a["n_jobs"]]


def readings_grid(mode: str) -> list[dict[str, Any]]:
    """The :func:`reading_run` points of ``mode``.

    ``"paper"``: every alternative reading fixed beforehand on every point and seed of its
    figures (:attr:`Reading.figures`, :data:`AXES`; the Fig. 6 reading at each of its factors)
    and the ceiling's bound at every point and seed of Fig. 3. The default's runs and the
    post-hoc caps are **not** in it: they are the notebook's own runs, added with
    :func:`default_rows`. 175 points (155 OASiS runs and 20 bounds); about 4.7 CPU-minutes,
    estimated from the results store's seconds of notebook 12's points (``manifest.json``):
    OASiS at Fig. 3's points 30 s per reading over the 20 runs (1.5 times that, 46 s, for the
    ``L`` definitions, which admit more jobs: one run at 400 jobs took 3.0 s against 1.4 s for
    the default on this machine), Fig. 4's 3.5 s per reading (5 s), Fig. 6's 32 s per
    estimate; so 3 x 46 + 3 x 5 + 4 x 32 = 281 s, plus a few seconds of bounds. ``"quick"``:
    the same on the quick sizes; seconds.

    Raises
    ------
    ValueError
        On an unknown mode.
    """
    a = mode_axes(AXES, mode)
    grid: list[dict[str, Any]] = []
    for name, r in READINGS.items():
        if name == "default" or r.fixed != "before":
            continue
        for fig in r.figures:
            for factor in r.factors if fig == "fig6" else (None,):
                for n, T in _figure_points(a, fig):
                    for seed in a["seeds"]:
                        grid.append(_point(name, "job", fig, n, T, a["H"], seed, factor))
    for n, T in _figure_points(a, "fig3"):
        for seed in a["seeds"]:
            grid.append(_point(CEILING, "bound", "fig3", n, T, a["H"], seed))
    return grid


def default_rows(
    fig3: pd.DataFrame, fig4: pd.DataFrame, fig6: pd.DataFrame, capped: pd.DataFrame | None = None
) -> pd.DataFrame:
    """The notebook's runs as :func:`reading_run` rows.

    Parameters
    ----------
    fig3 : pandas.DataFrame
        The notebook's sweep of :func:`~dlsched.oasis.experiments.utility_run` for Fig. 3 (every
        scheme; columns ``policy``, ``n_jobs``, ``T``, ``H``, ``K``, ``seed`` and the job rows).
    fig4 : pandas.DataFrame
        The same for Fig. 4.
    fig6 : pandas.DataFrame
        The sweep of :func:`~dlsched.oasis.experiments.estimate_run` (column ``u_scale``).
    capped : pandas.DataFrame, optional
        The sweep of :func:`~dlsched.oasis.experiments.capped_run` (column ``max_log_ratio``), the
        post-hoc cap rows of Fig. 3.

    Returns
    -------
    pandas.DataFrame
        The parameters (``reading`` ``"default"`` or a cap's name, ``experiment`` ``"job"``,
        ``figure``, sizes, ``seed``, ``factor`` -- Fig. 6's ``u_scale``) and :data:`RESULT_COLUMNS`.

    Raises
    ------
    TypeError, ValueError
        A frame that is not a DataFrame or lacks a column, or a cap that is no reading.
    """
    parts = []
    for fig, jobs, extra in (("fig3", fig3, "policy"), ("fig4", fig4, "policy"), ("fig6", fig6, "u_scale")):
        ox._need(jobs, [*_KEYS, extra, *ox.JOB_COLUMNS], f"default_rows ({fig})")
        part = jobs.assign(reading="default", experiment="job", figure=fig)
        if fig == "fig6":
            part = part.assign(policy="oasis", factor=part["u_scale"].astype(float))
        else:
            part = part.assign(factor=None)
        parts.append(part)
    if capped is not None:
        ox._need(capped, [*_KEYS, "max_log_ratio", *ox.JOB_COLUMNS], "default_rows (capped)")
        names = []
        for c in capped["max_log_ratio"]:
            n = _cap_name(float(c))
            if n not in READINGS:
                raise ValueError(f"default_rows: cap {c!r} is no reading of READINGS (ALPHA_CAPS)")
            names.append(n)
        parts.append(
            capped.assign(reading=names, experiment="job", figure="fig3", policy="oasis", factor=None)
        )
    out = []
    for p in parts:
        params = p[list(_PARAMS)].reset_index(drop=True)
        out.append(pd.concat([params, _typed(p)], axis=1))
    return pd.concat(out, ignore_index=True)


# ------------------------------------------------------------------------------- the table


def _jobs_of(frame: pd.DataFrame, name: str, fig: str) -> pd.DataFrame:
    """Per-job rows of figure ``fig`` under reading ``name``: the reading's OASiS runs and the
    default's runs of the other schemes; every point and seed the default has, or ValueError."""
    f = frame[(frame["experiment"] == "job") & (frame["figure"] == fig)]
    default = f[f["reading"] == "default"]
    if default.empty:
        raise ValueError(f"readings_rows: no default runs of {fig} (default_rows?)")
    runs = default if name == "default" else f[f["reading"] == name]
    want = set(map(tuple, default.loc[default["policy"] == "oasis", _KEYS].drop_duplicates().to_numpy()))
    if fig == "fig6":
        for x in READINGS[name].factors if name != "default" else ():
            got = set(map(tuple, runs.loc[runs["factor"] == x, _KEYS].drop_duplicates().to_numpy()))
            if want - got:
                raise ValueError(
                    f"readings_rows: reading {name!r}, {fig}, estimate {x:g}: {len(want - got)} of "
                    f"{len(want)} points and seeds missing (every point and seed is needed)"
                )
        return runs.assign(u_scale=runs["factor"].astype(float))
    got = set(map(tuple, runs.loc[runs["policy"] == "oasis", _KEYS].drop_duplicates().to_numpy()))
    if want - got:
        raise ValueError(
            f"readings_rows: reading {name!r}, {fig}: {len(want - got)} of {len(want)} points and "
            "seeds missing (every point and seed is needed)"
        )
    if name == "default":
        return default
    return pd.concat(
        [default[default["policy"] != "oasis"], runs[runs["policy"] == "oasis"]], ignore_index=True
    )


def _judged(frame: pd.DataFrame, name: str, fig: str) -> list[tuple[str, str, str]]:
    jobs = _jobs_of(frame, name, fig)
    if fig == "fig3":
        cmp = ox.fig3_comparison(ox.run_totals(jobs, ["policy", "n_jobs", "seed"]))
    elif fig == "fig4":
        cmp = ox.fig4_comparison(ox.timeliness(jobs, ["policy", "utility_class"]))
    else:
        cmp = ox.fig6_comparison(ox.run_totals(jobs, ["u_scale", "n_jobs", "seed"]))
    return [(q, o, m) for q, o, m in cmp[["quantity", "ours", "match"]].itertuples(index=False) if m != "-"]


def _num(v: float) -> str:
    return f"{v:.3g}"


_BOUND_PARAMETER = (
    "upper bound at the figure's sizes (dlsched.oasis.readings.utility_bound): every job alone on the "
    "empty cluster with N_i workers, utility at its earliest completion; the offline MILP "
    "(dlsched.oasis.offline.solve_offline) is out of reach at 100-400 jobs over 300 slots"
)
_OPT_PARAMETER = (
    "offline optimum of (1)-(13) (dlsched.oasis.offline.solve_offline, HiGHS) on Fig. 5's instances"
)
_CEILING_SOURCE = f"issue 22; {_SPEC} sections 3 and 11.3 (Fig. 5: OPT solved exactly)"


def _bound_ceiling(frame: pd.DataFrame) -> tuple[str, bool] | None:
    """``(ours, holds)`` of Fig. 3's ceiling row; None without bound points."""
    b = frame[(frame["experiment"] == "bound") & (frame["reading"] == CEILING)]
    if b.empty:
        return None
    jobs = _jobs_of(frame, "default", "fig3")
    want = set(map(tuple, jobs[_KEYS].drop_duplicates().to_numpy()))
    got = set(map(tuple, b[_KEYS].drop_duplicates().to_numpy()))
    if want - got:
        raise ValueError(f"readings_rows: the ceiling lacks {len(want - got)} of Fig. 3's {len(want)} points")
    b = b[[tuple(k) in want for k in b[_KEYS].to_numpy()]]
    ceil = ox.run_totals(b, ["n_jobs", "seed"]).groupby("n_jobs")["total_utility"].mean()
    means = ox.run_totals(jobs, ["policy", "n_jobs", "seed"]).groupby(["n_jobs", "policy"])["total_utility"]
    means = means.mean().unstack("policy")
    rival = means.drop(columns="oasis").max(axis=1)
    share = means["oasis"] / ceil
    ratio = ceil / rival
    ours = (
        "ceiling / best baseline "
        + ", ".join(f"{int(n)}: {_num(r)}" for n, r in ratio.items())
        + f" (n_jobs); OASiS {_num(share.min())}-{_num(share.max())} of it"
    )
    return ours, bool((ceil > rival * (1 + _REL)).all())


def _opt_ceiling(ratios: pd.DataFrame) -> tuple[str, bool]:
    ox._need(ratios, ["ratio", "milp_status", "opt", "oasis_utility"], "readings_rows (ratios)")
    n = len(ratios)
    optimal = int((ratios["milp_status"] == "optimal").sum())
    r = ratios["ratio"]
    reached = int((r.notna() & (r <= 1 + 1e-6)).sum())
    ours = (
        f"OPT / best scheduler = 1 by definition; OPT solved to optimality on {optimal} of {n} instances; "
        f"OASiS reaches it on {reached}"
    )
    return ours, True


def readings_rows(
    frame: pd.DataFrame, scorecard: pd.DataFrame, *, ratios: pd.DataFrame | None = None
) -> list[dict[str, Any]]:
    """Rows of :func:`dlsched.readings.readings_table` from the readings' runs.

    For every claim of Figs. 3, 4 and 6 that the scorecard's rule judges (``match`` not ``-``),
    one row per reading run on that figure (``default`` first): ``ours`` and ``holds``
    (``match == "yes"``) from the same ``figN_comparison`` as notebook 12's scorecard, on that
    reading's OASiS runs and the default's runs of the other schemes, every point and seed.
    Then Fig. 3's ceiling row (the bound) for each Fig. 3 claim, and, given ``ratios``, Fig.
    5's default and ceiling rows (the offline optimum). ``paper`` is the scorecard's.

    Parameters
    ----------
    frame : pandas.DataFrame
        ``experiments.sweep(reading_run, readings_grid(mode))`` concatenated with
        :func:`default_rows` of the notebook's runs.
    scorecard : pandas.DataFrame
        Notebook 12's scorecard (``figure``, ``quantity``, ``paper``), to join on.
    ratios : pandas.DataFrame, optional
        The notebook's sweep of :func:`~dlsched.oasis.experiments.ratio_run` (Fig. 5).

    Raises
    ------
    TypeError
        If an argument is not a DataFrame.
    ValueError
        If ``frame`` lacks a column or the default's runs, a reading lacks a point or seed of
        its figures, or the scorecard lacks ``figure``/``quantity``/``paper``.
    """
    present = check_inputs(frame, scorecard, (*_PARAMS, *RESULT_COLUMNS), READINGS, hint=" (default_rows?)")
    paper = {(f, q): p for f, q, p in scorecard[["figure", "quantity", "paper"]].itertuples(index=False)}
    rows: list[dict[str, Any]] = []
    for fig, label in FIGURES.items():
        judged = {n: _judged(frame, n, fig) for n in present if fig in READINGS[n].figures}
        for q, _, _ in judged["default"]:
            quote = paper.get((label, q)) or dict(ox.PAPER[fig]).get(q, "")
            base = {"figure": label, "quantity": q, "paper": quote}
            for n, claims in judged.items():
                r = READINGS[n]
                rows += [claim_row(base, n, r.parameter, r.source, r.fixed, ours, match == "yes")
                         for q2, ours, match in claims if q2 == q]
            ceil = _bound_ceiling(frame) if fig == "fig3" else None
            if ceil is not None:
                rows.append(claim_row(base, CEILING, _BOUND_PARAMETER, _CEILING_SOURCE, "before", *ceil))
        if fig == "fig4" and ratios is not None:
            rows.extend(_fig5_rows(ratios, paper))
    return rows


def _fig5_rows(ratios: pd.DataFrame, paper: Mapping[tuple[str, str], str]) -> list[dict[str, Any]]:
    cmp = ox.fig5_comparison(ox.ratio_summary(ratios))
    out = []
    d = READINGS["default"]
    for q, ours, match in cmp[["quantity", "ours", "match"]].itertuples(index=False):
        if match == "-":
            continue
        base = {
            "figure": "Fig. 5",
            "quantity": q,
            "paper": paper.get(("Fig. 5", q)) or dict(ox.PAPER["fig5"])[q],
        }
        out.append({**base, "reading": "default", "parameter": d.parameter, "source": d.source,
                    "fixed": "before", "ours": ours, "holds": bool(match == "yes")})  # fmt: skip
        c_ours, c_holds = _opt_ceiling(ratios)
        out.append({**base, "reading": CEILING, "parameter": _OPT_PARAMETER, "source": _CEILING_SOURCE,
                    "fixed": "before", "ours": c_ours, "holds": c_holds})  # fmt: skip
    return out

r"""PD-ORS "Numerical results" as experiments: Figs. 6-10, and what the paper reports.

M. Yu, J. Liu, C. Wu, B. Ji, E. S. Bentley, "Toward Efficient Online Scheduling for Distributed
Machine Learning Systems", IEEE TNSE (arXiv:2108.02917), section "Numerical results";
``shared/spec/pdors.md`` section 8. This module holds the sweepable experiment of notebook
``32_pdors_figures`` (``fn(params: dict) -> pandas.DataFrame`` for
:func:`dlsched.experiments.sweep`, deterministic given ``params``, seed included), the tables the
notebook prints, and the paper's settings and trends as a table.

All five figures are made of the same kind of run -- one scheme on one
:func:`dlsched.pdors.model.pdors_workload` -- so there is one experiment function,
:func:`job_run`, and the figures differ only in their grids. Sharing one function lets the
sweep cache serve a point that two figures have in common (e.g. 50 jobs on 50 machines is in
Figs. 6 and 8) once.

==========  =======================================================  ===============================
figure      paper's setting (x axis; fixed)                           schemes
==========  =======================================================  ===============================
Fig. 6      total utility vs machines; 50 jobs, T = 20                FIFO, DRF, Dorm, PD-ORS
Fig. 7      total utility vs jobs (10-50); 100 machines, T = 20        FIFO, DRF, Dorm, PD-ORS
Fig. 8      total utility vs jobs; 50 machines, T = 20                OASiS, PD-ORS (+ ablation)
Fig. 9      total utility vs machines; 100 jobs, T = 80               OASiS, PD-ORS (+ ablation)
Fig. 10     median training time; 30 machines, 100 jobs, T = 80       all of the above
==========  =======================================================  ===============================

OASiS is the registry policy ``"oasis_split"`` (OASiS on the machines split 50/50 into worker and
PS machines, :mod:`dlsched.pdors.baselines`); ``"pdors_nocoloc"`` is our ablation, PD-ORS
without Algorithm 4's internal branch. In Figs. 8-9 it separates the two things PD-ORS has and
OASiS lacks: *machine sharing* (workers and PS drawn from one pool, ``pdors_nocoloc`` minus
``oasis_split``) and the *internal bus* (a job packed on one machine communicates at
:math:`b^{(i)}`, ``pdors`` minus ``pdors_nocoloc``).

**Training time (Fig. 10).** The paper plots the "median of actual training time" without a
definition. We use ``training_time = completion_time - start_slot`` in slots (1 slot = 1 hour):
from the first slot in which the job has workers to the moment its last sample is trained,
pauses included; the time spent waiting before the first slot is excluded. ``jct``
(completion minus arrival) is reported next to it. Only finished jobs have either, so a scheme
that finishes fewer jobs is measured on a different (survivor) set.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping, Sequence
from types import MappingProxyType

import numpy as np
import pandas as pd

from dlsched import registry
from dlsched.core.comparison import as_dict, as_int, paper_rows, run_keys, scorecard, with_ours
from dlsched.core.comparison import number as _num
from dlsched.core.comparison import require_columns as _frame
from dlsched.core.comparison import verdict as _verdict
from dlsched.core.simulator import simulate
from dlsched.pdors.model import min_durations

__all__ = [
    "FIGURE_POLICIES",
    "FIGURE_X",
    "JOB_COLUMNS",
    "LABELS",
    "PAPER",
    "PAPER_SCHEMES",
    "POLICIES",
    "colocation_effects",
    "fig6_comparison",
    "fig7_comparison",
    "fig8_comparison",
    "fig9_comparison",
    "fig10_comparison",
    "job_run",
    "mean_utility",
    "missed_jobs",
    "paper_table",
    "READINGS",
    "readings_table",
    "run_totals",
    "scorecard",
    "training_time_figure",
    "training_times",
    "utility_figure",
]

POLICIES: tuple[str, ...] = ("fifo", "drf", "dorm", "oasis_split", "pdors_nocoloc", "pdors")
"""Every scheme :func:`job_run` accepts (registry names), in plotting order."""

PAPER_SCHEMES: tuple[str, ...] = ("fifo", "drf", "dorm", "oasis_split", "pdors")
"""The schemes the paper compares (``pdors_nocoloc`` is ours)."""

LABELS: Mapping[str, str] = MappingProxyType(
    {
        "fifo": "FIFO",
        "drf": "DRF",
        "dorm": "Dorm",
        "oasis_split": "OASiS (50/50 split)",
        "pdors_nocoloc": "PD-ORS w/o co-location",
        "pdors": "PD-ORS",
    }
)
"""Legend label of each scheme."""

FIGURE_POLICIES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "fig6": ("fifo", "drf", "dorm", "pdors"),
        "fig7": ("fifo", "drf", "dorm", "pdors"),
        "fig8": ("oasis_split", "pdors_nocoloc", "pdors"),
        "fig9": ("oasis_split", "pdors_nocoloc", "pdors"),
        "fig10": POLICIES,
    }
)
"""Schemes run for each figure (Figs. 8-9 add the ablation, Fig. 10 runs all)."""

FIGURE_X: Mapping[str, str] = MappingProxyType(
    {"fig6": "n_machines", "fig7": "n_jobs", "fig8": "n_jobs", "fig9": "n_machines"}
)
"""The swept parameter (x axis) of Figs. 6-9."""

JOB_COLUMNS: tuple[str, ...] = (
    "job_id", "arrival", "priority", "finishable", "status", "admitted", "start_slot",
    "completion_slot", "completion_time", "jct", "training_time", "utility", "payoff",
    "run_slots", "internal_slots", "machines",
)  # fmt: skip
"""Columns of :func:`job_run`'s table (see its Returns section)."""

READINGS: Mapping[str, Mapping[str, object]] = MappingProxyType(
    {
        "spec (default)": MappingProxyType({}),
        "LP headroom": MappingProxyType({"headroom": True}),
        "w = D": MappingProxyType({"workers": "demand"}),
        "w = D + headroom": MappingProxyType({"workers": "demand", "headroom": True}),
    }
)
"""The two integer/rounding readings of Algorithm 4 that are ours (:class:`~dlsched.pdors.policy.PDORS`
parameters ``workers`` and ``headroom``), as ``policy_params`` of :func:`job_run`."""

RUN_KEYS: tuple[str, ...] = ("policy", "n_jobs", "n_machines", "T", "seed")
"""Columns that identify one run in a sweep's output (those present are used)."""

# ------------------------------------------------------------------------------- parameters

_SIZES = {"n_jobs": 50, "n_machines": 100, "T": 20}


def _read(params: object) -> tuple[str, int, dict[str, object], dict[str, object]]:
    """Validated ``(policy, seed, workload kwargs, policy kwargs)`` of :func:`job_run`."""
    if not isinstance(params, Mapping):
        raise TypeError(f"job_run: params must be a mapping, got {type(params).__name__}")
    known = {"policy", "seed", "workload", "policy_params", *_SIZES}
    for key in params:
        if key not in known:
            raise ValueError(f"job_run: unknown parameter {key!r}; known: {sorted(known)}")
    if "policy" not in params:
        raise ValueError(f"job_run: missing parameter 'policy' (one of {POLICIES})")
    policy = params["policy"]
    if policy not in POLICIES:
        raise ValueError(f"job_run: policy must be one of {POLICIES}, got {policy!r}")
    seed = as_int(params, "seed", 0, 0, "job_run")
    wkw = as_dict(params, "workload", "job_run")
    for key, default in _SIZES.items():
        if key in wkw:
            raise ValueError(f"job_run: give {key!r} as a parameter, not inside 'workload'")
        wkw[key] = as_int(params, key, default, 1, "job_run")
    return str(policy), seed, wkw, as_dict(params, "policy_params", "job_run")


# ------------------------------------------------------------------------------- the experiment


def _placement_profile(runs: pd.DataFrame) -> pd.DataFrame:
    """Per job, from a result's ``runs`` (one row per job, stretch, server and role): slots with
    workers, slots with every worker and PS on one machine (Fact 1: internal bandwidth) and the
    mean number of machines per running slot."""
    if runs.empty:
        return pd.DataFrame(columns=["run_slots", "internal_slots", "machines"], dtype=float)
    stretch = runs.groupby(["job", "slot", "slots"], sort=True).agg(
        servers=("server", "nunique"), roles=("role", "nunique")
    )
    stretch = stretch.reset_index()
    one = (stretch["servers"] == 1) & (stretch["roles"] == 2)
    per = (
        stretch.assign(internal=stretch["slots"] * one, spread=stretch["slots"] * stretch["servers"])
        .groupby("job")[["slots", "internal", "spread"]]
        .sum()
    )
    return pd.DataFrame(
        {
            "run_slots": per["slots"].astype(float),
            "internal_slots": per["internal"].astype(float),
            "machines": per["spread"] / per["slots"],
        }
    )


def job_run(params: Mapping[str, object]) -> pd.DataFrame:
    r"""Experiment (Figs. 6-10): one scheme on one PD-ORS workload, one row per job.

    The workload is ``make_workload("pdors", seed=seed, n_jobs=..., n_machines=..., T=...,
    **workload)``, the scheme ``make_policy(policy, workload, **policy_params)`` (PD-ORS and
    OASiS get their price parameters from the workload), the run ``simulate(..., seed=seed)``.

    Parameters
    ----------
    params : Mapping
        ``policy`` (required, one of :data:`POLICIES`); ``seed`` (int >= 0, default 0);
        ``n_jobs`` (default 50), ``n_machines`` (default 100), ``T`` (default 20), ints >= 1;
        ``workload`` (dict of other :func:`~dlsched.pdors.model.pdors_workload` arguments);
        ``policy_params`` (dict of policy arguments, e.g. ``{"levels": 50}``).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`JOB_COLUMNS`: id, arrival slot, priority :math:`\theta_1`,
        ``finishable`` (the job could finish by ``T`` at best: all :math:`F_i` workers on the
        internal bus from its arrival), status (``finished``, ``rejected``, ``unfinished``),
        ``admitted``, first slot with workers, completion slot and time, ``jct`` (completion
        time minus arrival), ``training_time`` (completion time minus first slot with workers,
        pauses included; NaN unless finished), realised utility, PD-ORS's payoff
        :math:`\lambda_i` (NaN for other schemes), and measured from the run: ``run_slots``
        (slots with workers), ``internal_slots`` (of those, slots with every worker and PS on
        one machine, i.e. at bandwidth :math:`b^{(i)}`), ``machines`` (mean machines per
        running slot; NaN if the job never ran).

    Raises
    ------
    TypeError
        If ``params`` is not a mapping (e.g. a list of pairs).
    ValueError
        On an unknown or missing parameter or a bad value (the message names the key).
    """
    policy, seed, wkw, pkw = _read(params)
    wl = registry.make_workload("pdors", seed=seed, **wkw)
    res = simulate(wl, registry.make_policy(policy, wl, **pkw), seed=seed)
    j = res.jobs.sort_values("job_id").reset_index(drop=True)
    specs = wl.specs
    ids = j["job_id"].to_numpy()
    shortest = dict(zip((s.job_id for s in wl.jobs), min_durations(wl), strict=True))
    arrival = j["arrival"].astype("int64")
    done = j["status"] == "finished"
    prof = _placement_profile(res.runs).reindex(ids)
    primal_dual = policy in ("pdors", "pdors_nocoloc") and "payoff" in j.columns
    payoff = j["payoff"].astype(float) if primal_dual else pd.Series(math.nan, index=j.index)
    out = pd.DataFrame(
        {
            "job_id": j["job_id"].astype("int64"),
            "arrival": arrival,
            "priority": [float(specs[int(i)].utility.gamma1) for i in ids],
            "finishable": arrival.to_numpy() + np.array([shortest[int(i)] for i in ids]) <= wkw["T"],
            "status": j["status"].astype(str),
            "admitted": j["admitted"].astype(bool),
            "start_slot": j["start_slot"].astype(float),
            "completion_slot": j["completion_slot"].astype(float),
            "completion_time": j["completion_time"].astype(float),
            "jct": j["jct"].astype(float),
            "training_time": (j["completion_time"] - j["start_slot"]).where(done).astype(float),
            "utility": j["utility"].astype(float),
            "payoff": payoff,
            "run_slots": prof["run_slots"].fillna(0.0).to_numpy(),
            "internal_slots": prof["internal_slots"].fillna(0.0).to_numpy(),
            "machines": prof["machines"].to_numpy(dtype=float),
        }
    )
    return out[list(JOB_COLUMNS)]


# ------------------------------------------------------------------------------- aggregation


def _keys(df: pd.DataFrame, by: str | Sequence[str] | None) -> list[str]:
    return run_keys(df, by, RUN_KEYS)


def run_totals(jobs: pd.DataFrame, by: str | Sequence[str] | None = None) -> pd.DataFrame:
    """Per run: job counts, total utility and how the scheme placed its jobs.

    Parameters
    ----------
    jobs : pandas.DataFrame
        Rows of :func:`job_run` with the sweep's parameter columns.
    by : str or sequence of str, optional
        Columns identifying one run; default: those of :data:`RUN_KEYS` present in ``jobs``.

    Returns
    -------
    pandas.DataFrame
        ``by`` columns, then ``jobs``, ``finishable``, ``admitted``, ``finished``,
        ``total_utility``, ``run_slots`` (job-slots with workers), ``internal_share`` (the
        fraction of them with the whole job on one machine; NaN if nothing ran), sorted by
        ``by``.

    Raises
    ------
    TypeError
        If ``jobs`` is not a DataFrame.
    ValueError
        If it lacks a column.
    """
    keys = _keys(jobs, by)
    need = ["job_id", "finishable", "admitted", "status", "utility", "run_slots", "internal_slots"]
    _frame(jobs, keys + need, "run_totals")
    agg = (
        jobs.assign(finished=jobs["status"].eq("finished"))
        .groupby(keys, sort=True)
        .agg(
            jobs=("job_id", "size"),
            finishable=("finishable", "sum"),
            admitted=("admitted", "sum"),
            finished=("finished", "sum"),
            total_utility=("utility", "sum"),
            run_slots=("run_slots", "sum"),
            internal=("internal_slots", "sum"),
        )
    )
    for c in ("finishable", "admitted", "finished"):
        agg[c] = agg[c].astype("int64")
    agg["internal_share"] = (agg.pop("internal") / agg["run_slots"]).where(agg["run_slots"] > 0)
    return agg.reset_index()


def readings_table(runs: Mapping[str, pd.DataFrame], reference: str = "spec (default)") -> pd.DataFrame:
    """Per reading of :data:`READINGS` (or any labelled runs): mean over seeds of total utility,
    admitted, finished and rejected jobs, and the mean total utility relative to ``reference``.

    Parameters
    ----------
    runs : Mapping[str, pandas.DataFrame]
        Label -> rows of :func:`job_run` from a sweep over seeds (one scheme, one size each).
    reference : str
        The label the ``vs_reference`` column divides by.

    Raises
    ------
    ValueError
        If ``reference`` is not a label of ``runs``, or a frame lacks a column.
    """
    if reference not in runs:
        raise ValueError(f"readings_table: reference {reference!r} is not one of {list(runs)}")
    rows = []
    for label, jobs in runs.items():
        tot = run_totals(jobs)
        rows.append({
            "reading": label,
            "seeds": len(tot),
            "total_utility": float(tot["total_utility"].mean()),
            "admitted": float(tot["admitted"].mean()),
            "finished": float(tot["finished"].mean()),
            "rejected": float((tot["jobs"] - tot["admitted"]).mean()),
        })
    out = pd.DataFrame(rows)
    ref = float(out.loc[out["reading"] == reference, "total_utility"].iloc[0])
    out["vs_reference"] = out["total_utility"] / ref if ref > 0 else math.nan
    return out


def mean_utility(totals: pd.DataFrame, x: str) -> pd.DataFrame:
    """Mean total utility over seeds: one row per value of ``x``, one column per scheme.

    Parameters
    ----------
    totals : pandas.DataFrame
        :func:`run_totals` output with columns ``policy``, ``x``, ``total_utility``.
    x : str
        The swept column (``"n_jobs"`` or ``"n_machines"``).

    Returns
    -------
    pandas.DataFrame
        Index ``x``; columns in :data:`POLICIES` order.

    Raises
    ------
    TypeError
        If ``totals`` is not a DataFrame.
    ValueError
        If it lacks a column.
    """
    _frame(totals, ["policy", x, "total_utility"], "mean_utility")
    wide = totals.pivot_table(index=x, columns="policy", values="total_utility", aggfunc="mean")
    cols = [p for p in POLICIES if p in wide.columns] + [p for p in wide.columns if p not in POLICIES]
    return wide[cols].rename_axis(columns=None)


def colocation_effects(totals: pd.DataFrame, x: str) -> pd.DataFrame:
    """Figs. 8-9 decomposed: PD-ORS vs OASiS, split into machine sharing and the internal bus.

    Parameters
    ----------
    totals : pandas.DataFrame
        :func:`run_totals` output with runs of ``pdors``, ``pdors_nocoloc`` and ``oasis_split``.
    x : str
        The swept column.

    Returns
    -------
    pandas.DataFrame
        One row per ``x`` (means over seeds): the three schemes' total utility, ``pdors/oasis``
        (ratio), ``sharing`` (``pdors_nocoloc - oasis_split``: one pool of machines, planned at
        external bandwidth), ``internal_bus`` (``pdors - pdors_nocoloc``: Algorithm 4's internal
        branch), admitted jobs of each scheme and the share of PD-ORS's running job-slots that
        were internal.

    Raises
    ------
    TypeError
        If ``totals`` is not a DataFrame.
    ValueError
        If it lacks a column or one of the three schemes.
    """
    _frame(totals, ["policy", x, "total_utility", "admitted", "internal_share"], "colocation_effects")
    trio = ("oasis_split", "pdors_nocoloc", "pdors")
    absent = [p for p in trio if p not in set(totals["policy"])]
    if absent:
        raise ValueError(f"colocation_effects: totals has no run of {absent}")
    mean = totals.groupby([x, "policy"])[["total_utility", "admitted", "internal_share"]].mean()
    u = mean["total_utility"].unstack("policy")
    adm = mean["admitted"].unstack("policy")
    out = pd.DataFrame({p: u[p] for p in trio})
    out["pdors/oasis"] = u["pdors"] / u["oasis_split"].where(u["oasis_split"] > 0)
    out["sharing"] = u["pdors_nocoloc"] - u["oasis_split"]
    out["internal_bus"] = u["pdors"] - u["pdors_nocoloc"]
    for p in trio:
        out[f"admitted {p}"] = adm[p]
    out["pdors internal share"] = mean["internal_share"].unstack("policy")["pdors"]
    return out


def missed_jobs(jobs: pd.DataFrame, x: str, *, scheme: str = "pdors", other: str = "drf") -> pd.DataFrame:
    """Jobs that ``other`` finishes and ``scheme`` does not, per value of ``x`` (means over seeds).

    Explains a gap in total utility by the jobs behind it: the same workload (same ``x`` and
    seed) is compared job by job.

    Parameters
    ----------
    jobs : pandas.DataFrame
        Rows of :func:`job_run` with columns ``policy``, ``seed``, ``x``, ``job_id``, ``status``,
        ``utility``, holding runs of both schemes.
    x : str
        The swept column.
    scheme, other : str
        The two schemes compared (registry names).

    Returns
    -------
    pandas.DataFrame
        Index ``x``; columns ``missed`` (jobs per run that ``other`` finishes and ``scheme``
        does not), ``rejected`` (of those, rejected by ``scheme`` on arrival), ``other_utility``
        (what ``other`` earned on them per run) and the reverse count ``gained`` (jobs
        ``scheme`` finishes and ``other`` does not).

    Raises
    ------
    TypeError
        If ``jobs`` is not a DataFrame.
    ValueError
        If it lacks a column or has no run of either scheme.
    """
    _frame(jobs, ["policy", "seed", x, "job_id", "status", "utility"], "missed_jobs")
    for name in (scheme, other):
        if name not in set(jobs["policy"]):
            raise ValueError(f"missed_jobs: jobs has no run of {name!r}")
    idx = [x, "seed", "job_id"]
    a = jobs[jobs["policy"] == scheme].set_index(idx)
    b = jobs[jobs["policy"] == other].set_index(idx)
    both = a.index.intersection(b.index)
    a, b = a.loc[both], b.loc[both]
    a_done, b_done = a["status"].eq("finished"), b["status"].eq("finished")
    lost = b_done & ~a_done
    per_run = (
        pd.DataFrame(
            {
                "missed": lost,
                "rejected": lost & a["status"].eq("rejected"),
                "other_utility": b["utility"].where(lost, 0.0),
                "gained": a_done & ~b_done,
            }
        )
        .groupby(level=[x, "seed"])
        .sum()
    )
    return per_run.groupby(level=x).mean()


def training_times(jobs: pd.DataFrame, by: str | Sequence[str] = "policy") -> pd.DataFrame:
    """Fig. 10's statistic per group: median training time (and JCT) of the finished jobs.

    Parameters
    ----------
    jobs : pandas.DataFrame
        Rows of :func:`job_run` with the sweep's parameter columns.
    by : str or sequence of str, default "policy"
        Grouping columns (e.g. ``["policy", "seed"]`` for one value per run).

    Returns
    -------
    pandas.DataFrame
        ``by`` columns, then ``jobs``, ``finished``, ``median_training_time``,
        ``q25_training_time``, ``q75_training_time``, ``median_jct``, ``internal_share`` (of the
        finished jobs' running slots) -- times in slots; a group without finished jobs has NaN
        medians.

    Raises
    ------
    TypeError
        If ``jobs`` is not a DataFrame.
    ValueError
        If it lacks a column.
    """
    keys = _keys(jobs, by)
    need = ["status", "training_time", "jct", "run_slots", "internal_slots"]
    _frame(jobs, keys + need, "training_times")
    fin = jobs["status"].eq("finished")
    d = jobs.assign(
        finished=fin,
        tt=jobs["training_time"].where(fin),
        jt=jobs["jct"].where(fin),
        rs=jobs["run_slots"].where(fin, 0.0),
        ins=jobs["internal_slots"].where(fin, 0.0),
    )
    g = d.groupby(keys, sort=True)
    out = g.agg(
        jobs=("status", "size"),
        finished=("finished", "sum"),
        median_training_time=("tt", "median"),
        q25_training_time=("tt", lambda s: s.quantile(0.25)),
        q75_training_time=("tt", lambda s: s.quantile(0.75)),
        median_jct=("jt", "median"),
        rs=("rs", "sum"),
        ins=("ins", "sum"),
    )
    out["finished"] = out["finished"].astype("int64")
    out["internal_share"] = (out.pop("ins") / out.pop("rs")).where(out["finished"] > 0)
    return out.reset_index()


# ------------------------------------------------------------------------------- the paper

PAPER: Mapping[str, tuple[tuple[str, str], ...]] = MappingProxyType(
    {
        "fig6": (
            ("setting", "50 jobs, T=20, growing number of machines; FIFO, DRF, Dorm, PD-ORS"),
            ("best scheme at every machine count", "pdors [implied: no trend is stated]"),
            ("PD-ORS / best baseline", "> 1 at every machine count [implied]"),
        ),
        "fig7": (
            ("setting", "100 machines, T=20, 10-50 jobs; FIFO, DRF, Dorm, PD-ORS"),
            ("best scheme at every job count", "pdors [implied: no trend is stated]"),
            ("PD-ORS / best baseline", "> 1 at every job count [implied]"),
            ("PD-ORS total utility grows with jobs", "yes [implied by the y axis, 200-1200]"),
            ("scale of total utility at 50 jobs", "y axis up to ~1200 (no values in the text)"),
        ),
        "fig8": (
            ("setting", "50 machines, T=20, growing number of jobs; OASiS, PD-ORS"),
            ("PD-ORS > OASiS at every job count", "yes (co-locating workers and PS increases utility)"),
            ("gain from machine sharing vs internal bus", "not separated in the paper"),
        ),
        "fig9": (
            ("setting", "100 jobs, T=80, growing number of machines; OASiS, PD-ORS"),
            ("PD-ORS > OASiS at every machine count", "yes (co-locating workers and PS increases utility)"),
            ("gain from machine sharing vs internal bus", "not separated in the paper"),
        ),
        "fig10": (
            ("setting", "30 machines, T=80, 100 jobs; median of actual training time"),
            ("shortest median training time", "pdors [implied: co-location avoids communication; no text]"),
            ("finished jobs per scheme", "not given"),
        ),
    }
)
"""What the paper reports for each figure as ``(quantity, value or trend)`` pairs. Our copy
(a summary) gives the settings and the conclusion that co-locating workers and PS increases
utility against OASiS; "[implied]" marks trends we read from the figures' purpose or axes, not
from the text. The only number is Fig. 7's y axis, which reaches about 1200."""

_FIG7_AXIS = 1200.0


def paper_table(figure: str) -> pd.DataFrame:
    """The paper's settings and trends for ``figure`` (a key of :data:`PAPER`).

    Parameters
    ----------
    figure : str
        ``"fig6"`` ... ``"fig10"``.

    Returns
    -------
    pandas.DataFrame
        One row per reported quantity: ``quantity`` and what the ``paper`` says.

    Raises
    ------
    ValueError
        If ``figure`` is not a key of :data:`PAPER`.
    """
    return paper_rows(PAPER, figure)


def _baseline_rows(means: pd.DataFrame, x: str) -> tuple[list[str], list[str]]:
    """Rows "best scheme per x" and "PD-ORS / best baseline" of Figs. 6-7."""
    if "pdors" not in means.columns or len(means.columns) < 2:
        raise ValueError("fig6/fig7 comparison: totals need PD-ORS and at least one baseline")
    others = means.drop(columns="pdors")
    best = means.idxmax(axis=1)
    ratio = means["pdors"] / others.max(axis=1)
    ours = [
        ", ".join(f"{int(v)}: {b}" for v, b in best.items()),
        ", ".join(f"{int(v)}: {_num(r)}" for v, r in ratio.items()) + f" ({x})",
    ]
    match = [_verdict(list(best == "pdors")), _verdict(list(ratio > 1))]
    return ours, match


def fig6_comparison(totals: pd.DataFrame, *, setting: str = "") -> pd.DataFrame:
    """Paper vs ours for Fig. 6 (total utility vs machines) from :func:`run_totals` output.

    Parameters
    ----------
    totals : pandas.DataFrame
        Columns ``policy``, ``n_machines``, ``total_utility`` (one row per run; means over seeds
        are compared).
    setting : str
        Describes our runs (the first row, ``setting``).

    Returns
    -------
    pandas.DataFrame
        One row per claim: ``quantity``, ``paper``, ``ours``, ``match`` (``yes``/``partly``/``no``, ``-``
        where there is nothing to judge).

    Raises
    ------
    TypeError
        If ``totals`` is not a DataFrame.
    ValueError
        If it lacks a column or has no PD-ORS or baseline run.
    """
    ours, match = _baseline_rows(mean_utility(totals, "n_machines"), "n_machines")
    return _with("fig6", [setting, *ours], ["-", *match])


def fig7_comparison(totals: pd.DataFrame, *, setting: str = "") -> pd.DataFrame:
    """Paper vs ours for Fig. 7 (total utility vs jobs) from :func:`run_totals` output.

    The scale row compares PD-ORS's mean total utility at 50 jobs on 100 machines with the top
    of the paper's y axis (1200): ``yes`` within [800, 1200] (the top two ticks), ``partly``
    within [600, 1800] (half to one and a half times the axis), else ``no``; ``-`` when the runs
    do not include that size.

    Parameters
    ----------
    totals : pandas.DataFrame
        Columns ``policy``, ``n_jobs``, ``total_utility`` (and ``n_machines`` for the scale row).
    setting : str
        Describes our runs (the first row, ``setting``).

    Returns
    -------
    pandas.DataFrame
        One row per claim: ``quantity``, ``paper``, ``ours``, ``match``.

    Raises
    ------
    TypeError
        If ``totals`` is not a DataFrame.
    ValueError
        If it lacks a column or has no PD-ORS or baseline run.
    """
    means = mean_utility(totals, "n_jobs")
    ours, match = _baseline_rows(means, "n_jobs")
    pd_ors = means["pdors"].dropna()
    grows = bool(len(pd_ors) > 1 and (np.diff(pd_ors.to_numpy()) > 0).all())
    ours.append(" -> ".join(_num(v) for v in pd_ors))
    match.append(_verdict([grows]) if len(pd_ors) > 1 else "-")
    machines = set(totals["n_machines"]) if "n_machines" in totals.columns else set()
    if 50 in pd_ors.index and machines == {100}:
        v = float(pd_ors[50])
        ours.append(f"PD-ORS {_num(v)} at 50 jobs, 100 machines")
        match.append(
            "yes" if 800 <= v <= _FIG7_AXIS else ("partly" if 600 <= v <= 1.5 * _FIG7_AXIS else "no")
        )
    else:
        top = int(pd_ors.index.max()) if len(pd_ors) else 0
        where = f"{sorted(machines)} machines" if machines else "unknown machines"
        ours.append(
            f"not at the paper's size (PD-ORS {_num(pd_ors.iloc[-1]) if len(pd_ors) else 'nan'} "
            f"at {top} jobs, {where})"
        )
        match.append("-")
    return _with("fig7", [setting, *ours], ["-", *match])


def _oasis_rows(totals: pd.DataFrame, x: str) -> tuple[list[str], list[str]]:
    eff = colocation_effects(totals, x)
    wins = eff["pdors"] > eff["oasis_split"]
    ratio = ", ".join(f"{int(v)}: {_num(r)}" for v, r in eff["pdors/oasis"].items())
    parts = ", ".join(
        f"{int(v)}: sharing {_num(r['sharing'])}, internal bus {_num(r['internal_bus'])}"
        for v, r in eff.iterrows()
    )
    return [f"PD-ORS/OASiS {ratio} ({x})", parts], [_verdict(list(wins)), "-"]


def fig8_comparison(totals: pd.DataFrame, *, setting: str = "") -> pd.DataFrame:
    """Paper vs ours for Fig. 8 (PD-ORS vs OASiS, growing jobs) from :func:`run_totals` output.

    Parameters
    ----------
    totals : pandas.DataFrame
        Runs of ``pdors``, ``pdors_nocoloc``, ``oasis_split`` with columns ``policy``,
        ``n_jobs``, ``total_utility``, ``admitted``, ``internal_share``.
    setting : str
        Describes our runs (the first row, ``setting``).

    Returns
    -------
    pandas.DataFrame
        One row per claim (``quantity``, ``paper``, ``ours``, ``match``); the last row splits PD-ORS's gain
        over OASiS into machine sharing and internal bus (:func:`colocation_effects`).

    Raises
    ------
    TypeError
        If ``totals`` is not a DataFrame.
    ValueError
        If it lacks a column or one of the three schemes.
    """
    ours, match = _oasis_rows(totals, "n_jobs")
    return _with("fig8", [setting, *ours], ["-", *match])


def fig9_comparison(totals: pd.DataFrame, *, setting: str = "") -> pd.DataFrame:
    """Paper vs ours for Fig. 9 (PD-ORS vs OASiS, growing machines); as :func:`fig8_comparison`
    with ``n_machines`` as the swept column.

    Parameters
    ----------
    totals : pandas.DataFrame
        As in :func:`fig8_comparison`, with ``n_machines`` instead of ``n_jobs``.
    setting : str
        Describes our runs (the first row, ``setting``).

    Returns
    -------
    pandas.DataFrame
        One row per claim: ``quantity``, ``paper``, ``ours``, ``match``.

    Raises
    ------
    TypeError
        If ``totals`` is not a DataFrame.
    ValueError
        If it lacks a column or one of the three schemes.
    """
    ours, match = _oasis_rows(totals, "n_machines")
    return _with("fig9", [setting, *ours], ["-", *match])


def fig10_comparison(per_run: pd.DataFrame, *, setting: str = "", min_finished: int = 3) -> pd.DataFrame:
    """Paper vs ours for Fig. 10 from :func:`training_times` grouped by ``["policy", "seed"]``.

    A scheme's value is the mean over seeds of its per-run median training time. Only the
    paper's schemes (:data:`PAPER_SCHEMES`) are ranked, and only those with at least
    ``min_finished`` finished jobs per run on average (a median of one or two jobs says little);
    the ablation is listed.

    Parameters
    ----------
    per_run : pandas.DataFrame
        Columns ``policy``, ``finished``, ``median_training_time``.
    setting : str
        Describes our runs (the first row, ``setting``).
    min_finished : int, default 3

    Returns
    -------
    pandas.DataFrame
        One row per claim: ``quantity``, ``paper``, ``ours``, ``match``.

    Raises
    ------
    TypeError
        If ``per_run`` is not a DataFrame.
    ValueError
        If it lacks a column, or ``min_finished`` is not an integer >= 1.
    """
    _frame(per_run, ["policy", "finished", "median_training_time"], "fig10_comparison")
    if isinstance(min_finished, bool) or not isinstance(min_finished, (int, np.integer)) or min_finished < 1:
        raise ValueError(f"fig10_comparison: min_finished must be an integer >= 1, got {min_finished!r}")
    m = per_run.groupby("policy")[["median_training_time", "finished"]].mean()
    order = [p for p in POLICIES if p in m.index]
    m = m.reindex(order)
    values = ", ".join(f"{p} {_num(m.at[p, 'median_training_time'])}" for p in order)
    counts = ", ".join(f"{p} {_num(m.at[p, 'finished'])}" for p in order)
    ranked = m[m.index.isin(PAPER_SCHEMES) & (m["finished"] >= min_finished)]["median_training_time"].dropna()
    if ranked.empty:
        best, verdict = f"no scheme with >= {min_finished} finished jobs", "-"
    else:
        best, verdict = str(ranked.idxmin()), _verdict([ranked.idxmin() == "pdors"])
    return _with("fig10", [setting, f"{best} ({values}; slots)", counts], ["-", verdict, "-"])


# ------------------------------------------------------------------------------- figures


def utility_figure(totals: pd.DataFrame, x: str, *, title: str = ""):
    """Figs. 6-9: mean total utility per scheme against ``x``, with the min-max over seeds.

    Parameters
    ----------
    totals : pandas.DataFrame
        :func:`run_totals` output (columns ``policy``, ``x``, ``total_utility``).
    x : str
        ``"n_machines"`` or ``"n_jobs"``.
    title : str
        Title above the axes (none if empty).

    Returns
    -------
    matplotlib.figure.Figure
        Not saved: pass it to :func:`dlsched.plotting.savefig`.

    Raises
    ------
    TypeError
        If ``totals`` is not a DataFrame.
    ValueError
        If it lacks a column.
    """
    from dlsched import plotting

    _frame(totals, ["policy", x, "total_utility"], "utility_figure")
    present = [p for p in POLICIES if p in set(totals["policy"])]
    data = totals.assign(scheme=totals["policy"].map(lambda p: LABELS.get(p, p)))
    fig, ax = plotting.subplots()
    plotting.draw(
        "lineplot", data, ax=ax, x=x, y="total_utility", hue="scheme",
        hue_order=[LABELS[p] for p in present], style="scheme", markers=True, dashes=False,
        errorbar=("pi", 100),
    )  # fmt: skip
    label = {"n_machines": "number of machines", "n_jobs": "number of jobs"}.get(x, x)
    ax.set(xlabel=label, ylabel="total utility")
    ax.legend(title=None, fontsize="small")
    if title:
        ax.set_title(title)
    return fig


def training_time_figure(per_run: pd.DataFrame, *, title: str = ""):
    """Fig. 10: per scheme, the median training time of the finished jobs (bar: mean over seeds,
    whiskers: min-max), with the mean number of finished jobs under each bar.

    Parameters
    ----------
    per_run : pandas.DataFrame
        :func:`training_times` grouped by ``["policy", "seed"]``.
    title : str
        Title above the axes (none if empty).

    Returns
    -------
    matplotlib.figure.Figure
        Not saved: pass it to :func:`dlsched.plotting.savefig`.

    Raises
    ------
    TypeError
        If ``per_run`` is not a DataFrame.
    ValueError
        If it lacks a column.
    """
    from dlsched import plotting

    _frame(per_run, ["policy", "finished", "median_training_time"], "training_time_figure")
    present = [p for p in POLICIES if p in set(per_run["policy"])]
    n = per_run.groupby("policy")["finished"].mean()
    names = {p: f"{textwrap.fill(LABELS[p], 12)}\n({n[p]:.0f} done)" for p in present}
    data = per_run.assign(scheme=per_run["policy"].map(names))
    fig, ax = plotting.subplots(figsize=(8.0, 4.5))
    plotting.draw(
        "barplot", data, ax=ax, x="scheme", y="median_training_time", order=[names[p] for p in present],
        color="0.75", errorbar=("pi", 100), capsize=0.15,
    )  # fmt: skip
    ax.set(xlabel="", ylabel="median training time (slots = hours)")
    ax.tick_params(axis="x", labelsize="small")
    if title:
        ax.set_title(title)
    return fig


def _with(figure: str, ours: Sequence[str], match: Sequence[str]) -> pd.DataFrame:
    return with_ours(paper_table(figure), ours, match, figure)

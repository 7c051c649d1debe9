r"""Which reading restores the claim: SpeCon's failed claims under alternative readings and a ceiling.

Y. Mao, Y. Fu, W. Zheng, L. Cheng, Q. Liu, D. Tao, "Speculative Container Scheduling for Deep
Learning Applications in a Kubernetes Cluster", arXiv:2010.11307, Sec. VI;
``shared/spec/specon.md``. Issue 22 asks, for every claim of Fig. 5, Table III and Figs. 6, 7
and 12 that notebook ``52_specon_figures`` does not reproduce (or reproduces only partly),
whether a documented alternative reading restores it, and whether the paper's number is within
the model's *ceiling*. The table's shape is :mod:`dlsched.readings`; this module computes its
SpeCon rows.

Readings (:data:`READINGS`; every one a parameter of the wing, all fixed before their results
were seen, as the issue lists them):

=========================  ====================================================  ====================
name                       parameters                                            reinterprets
=========================  ====================================================  ====================
``default``                the spec's readings                                   --
``cascade full``           ``cascade="full"`` (Alg. 1's literal sibling ifs)     spec A2, Alg. 1
                                                                                 l. 7-16
``cascade cc_request``     ``cascade="cc_request"`` (WC -> CC and request on     spec A2, Alg. 1
                           one tick)                                             l. 13-16
``alpha 0.05``             ``alpha=0.05`` (Table III's most used threshold)      l. 326, 343-348
``VAE curve P``            ``types=("VAE-P",)``: the other VAE stand-in curve    spec 7.4 (Fig. 1,
                           (``digits_mlp_sgd_slow``)                             l. 54)
``contention``             ``progress="power"``, :math:`\gamma = 1.5`            l. 21, spec 7.2
``contention + X``         :math:`\gamma = 1.5` with each of the four above      l. 21 and X's line
``converged CPU``          ``converged_cpu=0.5`` (a converged container trains   l. 21, l. 228,
                           at solo speed with half a node's usable cores)        spec 3.3
``converged CPU + X``      ``converged_cpu=0.5`` with each of the four above     l. 21, 228 and X's
=========================  ====================================================  ====================

Policy parameters not named stay the notebook's (``alpha = 0.01``, 30 s, l. 326; Table III's own
settings there). ``VAE curve P`` applies only to the VAE-only schedules (Fig. 5, Table III);
``alpha 0.05`` not to Table III, which varies :math:`\alpha` itself.

**Ceiling** (:func:`fcfs_idle_nodes`, the issue's): for the VAE-only schedules (Fig. 5,
Table III), each container runs alone on the first idle node in launch order and never shares
it, so it takes its solo time :math:`\tau_j`. Under the spec's model (equal split,
:math:`g(x) = x \le 1`) sharing a node never makes its containers faster in total and no
container runs faster than alone, so every schedule, moves and sharing included, is at best a
preemptive schedule on identical machines; for jobs of equal length (the VAE-only schedules)
taking them in launch order on the earliest free machine minimises the mean completion time,
and preemption does not lower it [N]. The ceiling is computed on the spec's model with DS
calibrated as in the notebook; it is no ceiling under ``converged_cpu`` < 1, where two
containers on a node can do more than one.

**Verdicts.** ``holds`` of a reading is the notebook's own rule for that claim
(:func:`dlsched.specon.experiments.fig5_comparison` etc.) applied to that reading's runs: the
claim holds when the rule says ``yes``. The ceiling row holds when the ceiling's reduction of the
mean completion time is at least the paper's.

**Scale** (:func:`readings_grid`). ``"paper"``: Fig. 5 is one deterministic schedule (seed 0);
Table III at its five settings, Figs. 6, 7, 12 at one point each. The default reading (as in
the scorecard), the Table III ceiling and the readings in :data:`FULL_SWEEP` (those under which
a failed claim held at seed 0) run at every seed of the notebook's paper mode
(:data:`PAPER_SEEDS`); the others at seed 0, where they restore nothing. About 7 CPU-minutes
(the seed-0 points took 68 s on this machine, unloaded; most of it is the calibration of the
solo times, once per workload reading and seed). ``"quick"``: four Fig. 5 points.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
import pandas as pd

from dlsched.core.comparison import require_columns as _frame
from dlsched.core.jobs import Workload
from dlsched.readings import ReadingBase
from dlsched.specon import experiments as sx
from dlsched.specon.model import specon_workload

__all__ = ["CEILING", "FULL_SWEEP", "PAPER_SEEDS", "READINGS",
           "Reading", "fcfs_idle_nodes", "reading_run", "readings_grid", "readings_rows"]

FIGURES: Mapping[str, str] = MappingProxyType(
    {"fig5": "Fig. 5", "table3": "Table III", "fig6": "Fig. 6", "fig7": "Fig. 7", "fig12": "Fig. 12"}
)
"""Experiment key -> the scorecard's ``figure`` label."""

BASE_POLICY: Mapping[str, float] = MappingProxyType({"alpha": 0.01, "interval": 30.0})
"""The notebook's SpeCon settings (l. 326) for the readings' runs."""

TABLE3_SETTINGS: tuple[tuple[float, float], ...] = tuple(
    (float(a), float(d)) for a, d in sx.PAPER_TABLE3[["alpha", "interval"]].itertuples(index=False)
)
"""Table III's (alpha, interval) settings (l. 343-348)."""

PAPER_SEEDS: tuple[int, ...] = tuple(range(10))
"""Seeds of the notebook's paper mode (``n_seeds_full`` = 10 from seed 0)."""

GAMMA = 1.5
"""Contention exponent of the readings (the largest of the notebook's section 6)."""

CONVERGED_CPU = 0.5
"""Share of its demand a converged container needs under the ``converged CPU`` readings."""

VAE_ONLY = ("fig5", "table3")


@dataclass(frozen=True)
class Reading(ReadingBase):  # name, parameter, source: ReadingBase's
    """One alternative reading: SpeCon and workload parameters, the line it reinterprets.

    Attributes
    ----------
    policy, workload : Mapping
        :class:`~dlsched.specon.policy.SpeCon` and :func:`~dlsched.specon.model.specon_workload`
        parameters (on top of :data:`BASE_POLICY`).
    experiments : tuple of str
        Experiments it applies to.
    fixed : str
        ``"before"`` (as the issue lists it) or ``"after"``.
    """

    policy: Mapping[str, object] = field(default_factory=dict)
    workload: Mapping[str, object] = field(default_factory=dict)
    experiments: tuple[str, ...] = tuple(FIGURES)
    fixed: str = "before"


def _readings() -> tuple[Reading, ...]:
    base = [
        Reading(
            "cascade full",
            "cascade='full'",
            "spec A2; Alg. 1 l. 7-16 (literal sibling if)",
            policy={"cascade": "full"},
        ),
        Reading(
            "cascade cc_request",
            "cascade='cc_request'",
            "spec A2; Alg. 1 l. 13-16",
            policy={"cascade": "cc_request"},
        ),
        Reading(
            "alpha 0.05",
            "alpha=0.05",
            "l. 326 (alpha 0.01) vs Table III l. 343-348",
            policy={"alpha": 0.05},
            experiments=("fig5", "fig6", "fig7", "fig12"),
        ),
        Reading(
            "VAE curve P",
            "types=('VAE-P',)",
            "spec 7.4 (VAE stand-ins matched on Fig. 1, l. 54)",
            workload={"types": ("VAE-P",)},
            experiments=VAE_ONLY,
        ),
    ]
    out = [Reading("default", "spec readings", "shared/spec/specon.md")]
    out += base
    gamma = {"progress": "power", "progress_param": GAMMA}
    out.append(Reading("contention", f"progress='power', gamma={GAMMA:g}", "l. 21; spec 7.2", workload=gamma))
    for r in base:
        out.append(
            Reading(
                f"contention + {r.name}",
                f"gamma={GAMMA:g}, {r.parameter}",
                f"l. 21, spec 7.2; {r.source}",
                policy=r.policy,
                workload={**gamma, **r.workload},
                experiments=r.experiments,
            )
        )
    conv = {"converged_cpu": CONVERGED_CPU}
    out.append(
        Reading("converged CPU", f"converged_cpu={CONVERGED_CPU:g}", "l. 21, l. 228; spec 3.3", workload=conv)
    )
    for r in base:
        out.append(
            Reading(
                f"converged CPU + {r.name}",
                f"converged_cpu={CONVERGED_CPU:g}, {r.parameter}",
                f"l. 21, 228, spec 3.3; {r.source}",
                policy=r.policy,
                workload={**conv, **r.workload},
                experiments=r.experiments,
            )
        )
    return tuple(out)


READINGS: Mapping[str, Reading] = MappingProxyType({r.name: r for r in _readings()})
"""Every reading by name (module docstring), ``default`` first."""

CEILING = "ceiling"
"""The ``reading`` of the ceiling's runs (:func:`fcfs_idle_nodes`; Fig. 5 and Table III)."""

CEILING_PARAMETER = "FCFS on idle nodes, no sharing (spec model)"

FULL_SWEEP: frozenset[tuple[str, str]] = frozenset(
    (exp, name)
    for exp, names in {
        "fig6": (
            "alpha 0.05",
            "cascade cc_request",
            "cascade full",
            "contention",
            "contention + alpha 0.05",
            "contention + cascade cc_request",
            "contention + cascade full",
            "converged CPU",
            "converged CPU + cascade cc_request",
        ),
        "fig7": (
            "cascade cc_request",
            "cascade full",
            "contention",
            "contention + cascade cc_request",
            "contention + cascade full",
            "converged CPU",
            "converged CPU + cascade cc_request",
            "converged CPU + cascade full",
        ),
        "fig12": (
            "alpha 0.05",
            "contention",
            "contention + alpha 0.05",
            "contention + cascade cc_request",
            "contention + cascade full",
            "converged CPU + alpha 0.05",
            "converged CPU + cascade cc_request",
            "converged CPU + cascade full",
        ),
    }.items()
    for name in names
)
"""(experiment, reading) pairs of the random schedules under which some claim the scorecard
judges ``no`` or ``partly`` held at seed 0 (a scan of the paper grid's seed-0 points, 27 Nov
2026): in paper mode they run at every seed of :data:`PAPER_SEEDS`, like the default, so that a
reading is never credited with a claim on one seed. A reading under which no such claim held at
seed 0 is shown at seed 0 only (its verdict: does not restore). No Table III reading held at
seed 0; Fig. 5 has one schedule (its seed changes nothing)."""


# ----------------------------------------------------------------------------------- ceiling


def fcfs_idle_nodes(workload: Workload) -> np.ndarray:
    r"""Completion times (s) when each container runs alone on the first idle node, in launch
    order, never sharing it (the issue's ceiling for SpeCon's VAE-only schedules).

    Job :math:`j` (launch :math:`a_j`, solo time :math:`\tau_j`) starts at
    :math:`s_j = \max(a_j, \min_w f_w)` on the node :math:`w` free earliest (lowest index on a
    tie) and finishes at :math:`s_j + \tau_j`; jobs are taken in (launch, job id) order. Returns
    :math:`s_j + \tau_j - a_j` in job order.
    """
    free = np.zeros(workload.cluster.n_servers)
    out = np.zeros(len(workload.jobs))
    jobs = workload.jobs
    order = sorted(range(len(jobs)), key=lambda i: (jobs[i].submit_time, jobs[i].job_id))
    for i in order:
        spec = jobs[i]
        a = float(spec.submit_time)
        w = int(np.argmin(free))
        start = max(a, float(free[w]))
        free[w] = start + float(spec.model.solo_seconds)
        out[i] = free[w] - a
    return out


def _ceiling_rows(experiment: str, seed: int) -> pd.DataFrame:
    """DS's job rows and the ceiling's on the same workload (DS calibrated as in the notebook),
    in :data:`~dlsched.specon.experiments.JOB_COLUMNS`; the ceiling's ``policy`` is
    :data:`CEILING`."""
    solo = sx.solo_seconds(experiment, seed)
    settings = {k: v for k, v in sx.EXPERIMENTS[experiment].items() if k != "target"}
    wl = specon_workload(np.random.default_rng(seed), solo_seconds=solo, **settings)
    ds = sx.pair_run({"experiment": experiment, "seed": seed, "calibrate": solo, "policy": {"alpha": 0.0}})
    ds = ds[ds["policy"] == "k8s_default"].reset_index(drop=True)
    ct = fcfs_idle_nodes(wl)[ds["job"].to_numpy() - 1]
    ceil = ds.assign(
        policy=CEILING, completion_s=ct, finish_s=ds["launch_s"] + ct, moved="", first_host=-1, last_host=-1
    )
    return pd.concat([ds, ceil], ignore_index=True)


# ------------------------------------------------------------------------------------- runs

_KEYS = {"experiment", "reading", "seed", "alpha", "interval"}


def _validate(params: Mapping[str, object]) -> tuple[str, str, int, dict[str, float]]:
    if not isinstance(params, Mapping):
        raise ValueError(f"reading_run: params must be a dict, got {type(params).__name__}")
    unknown = sorted(set(params) - _KEYS)
    if unknown:
        raise ValueError(f"reading_run: unknown parameter(s) {unknown}; known: {sorted(_KEYS)}")
    exp = params.get("experiment")
    if exp not in FIGURES:
        raise ValueError(f"reading_run: experiment must be one of {tuple(FIGURES)}, got {exp!r}")
    name = params.get("reading")
    if name != CEILING and name not in READINGS:
        raise ValueError(
            f"reading_run: reading must be {CEILING!r} or one of {tuple(READINGS)}, got {name!r}"
        )
    if name == CEILING and exp not in VAE_ONLY:
        raise ValueError(f"reading_run: reading 'ceiling' applies to {VAE_ONLY}, not experiment {exp!r}")
    if name != CEILING and exp not in READINGS[name].experiments:
        raise ValueError(
            f"reading_run: reading {name!r} does not apply to experiment {exp!r} "
            f"(only {READINGS[name].experiments})"
        )
    seed = params.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"reading_run: seed must be an integer >= 0, got {seed!r}")
    policy = dict(BASE_POLICY)
    for key in ("alpha", "interval"):
        v = params.get(key)
        if exp == "table3" and name != CEILING:
            ok = isinstance(v, (int, float, np.number)) and not isinstance(v, bool)
            if not ok or not math.isfinite(float(v)) or v <= 0:
                raise ValueError(f"reading_run: {key} must be a number > 0 for Table III, got {v!r}")
            policy[key] = float(v)
        elif v is not None:
            raise ValueError(
                f"reading_run: {key} is only a parameter of Table III's readings, "
                f"got {key}={v!r} for experiment {exp!r}, reading {name!r}"
            )
    return str(exp), str(name), int(seed), policy


def reading_run(params: Mapping[str, object]) -> pd.DataFrame:
    """One point: DS and SpeCon under one reading (or DS and the ceiling), one row per job.

    Parameters
    ----------
    params : dict
        ``experiment`` (a key of :data:`FIGURES`), ``reading`` (a key of :data:`READINGS` or
        :data:`CEILING`), ``seed`` (0); for Table III's readings also ``alpha`` and ``interval``
        (SpeCon's setting; the ceiling has none).

    Returns
    -------
    pandas.DataFrame
        :data:`~dlsched.specon.experiments.JOB_COLUMNS` (``policy`` ``k8s_default`` and
        ``specon``, or ``k8s_default`` and ``ceiling``).

    Raises
    ------
    ValueError
        A missing, unknown or bad parameter, or a reading that does not apply to the experiment,
        naming the field.
    """
    exp, name, seed, policy = _validate(params)
    if name == CEILING:
        return _ceiling_rows(exp, seed)
    r = READINGS[name]
    policy.update(r.policy)
    return sx.pair_run({"experiment": exp, "seed": seed, "policy": policy, "workload": dict(r.workload)})


def _points(exp: str, name: str, seeds: Sequence[int]) -> list[dict]:
    if exp == "table3" and name != CEILING:
        return [
            {"experiment": exp, "reading": name, "seed": s, "alpha": a, "interval": d}
            for a, d in TABLE3_SETTINGS
            for s in seeds
        ]
    return [{"experiment": exp, "reading": name, "seed": s} for s in seeds]


def readings_grid(mode: str) -> list[dict]:
    """The points of :func:`reading_run` for the notebook's section (module docstring, *Scale*).

    Parameters
    ----------
    mode : {"paper", "quick"}

    Raises
    ------
    ValueError
        Another mode.
    """
    if mode == "quick":
        names = ("default", "cascade full", "converged CPU + cascade full")
        quick = [{"experiment": "fig5", "reading": n, "seed": 0} for n in names]
        return quick + _points("fig5", CEILING, [0])
    if mode != "paper":
        raise ValueError(f"readings_grid: mode must be 'paper' or 'quick', got {mode!r}")
    out: list[dict] = []
    for exp in FIGURES:
        for name, r in READINGS.items():
            if exp not in r.experiments:
                continue
            full = exp != "fig5" and (name == "default" or (exp, name) in FULL_SWEEP)
            out += _points(exp, name, PAPER_SEEDS if full else (0,))
        if exp in VAE_ONLY:
            out += _points(exp, CEILING, (0,) if exp == "fig5" else PAPER_SEEDS)
    return out


# ------------------------------------------------------------------------------------- table


def _comparison(exp: str, jobs: pd.DataFrame) -> pd.DataFrame:
    if exp == "table3":
        return sx.table3_comparison(sx.gains(jobs, by=["alpha", "interval", "seed"]))
    g = sx.gains(jobs, by="seed")
    if exp == "fig5":
        return sx.fig5_comparison(g, jobs)
    return {"fig6": sx.fig6_comparison, "fig7": sx.fig7_comparison, "fig12": sx.fig12_comparison}[exp](g)


def _pct(x: float) -> str:
    return f"{x:+.1f} %"


def readings_rows(frame: pd.DataFrame, scorecard: pd.DataFrame) -> list[dict]:
    """The SpeCon rows of the readings table (:func:`dlsched.readings.readings_table`).

    Parameters
    ----------
    frame : pandas.DataFrame
        ``experiments.sweep(reading_run, readings_grid(mode))``: the sweep's parameter columns
        (``experiment``, ``reading``, ``seed``; ``alpha``, ``interval`` for Table III) and
        :data:`~dlsched.specon.experiments.JOB_COLUMNS`.
    scorecard : pandas.DataFrame
        The notebook's scorecard (``figure``, ``quantity``, ``paper``, ``match``); a row per
        claim judged ``no`` or ``partly`` there, with the runs to judge it, is tested.

    Returns
    -------
    list of dict
        Per tested claim: one row per reading run on its experiment (``default`` first), then
        the ceiling's row for the mean-completion-time claims of Fig. 5 and Table III.
    """
    _frame(frame, ["experiment", "reading", "seed", *sx.JOB_COLUMNS], "readings_rows")
    _frame(scorecard, ["figure", "quantity", "paper", "match"], "readings_rows")
    failed = scorecard[scorecard["match"].isin(["no", "partly"])]
    rows: list[dict] = []
    for exp, label in FIGURES.items():
        claims = failed[failed["figure"] == label]
        runs = frame[frame["experiment"] == exp]
        if claims.empty or runs.empty:
            continue
        verdicts: dict[str, pd.DataFrame] = {}
        for name in [n for n in READINGS if n in set(runs["reading"])]:
            part = runs[runs["reading"] == name].drop(columns=["experiment", "reading"])
            verdicts[name] = _comparison(exp, part).set_index("quantity")
        ceiling = runs[runs["reading"] == CEILING]
        for quantity, paper in claims[["quantity", "paper"]].itertuples(index=False):
            for name, cmp in verdicts.items():
                if quantity not in cmp.index:
                    continue
                r = READINGS[name]
                rows.append(
                    {
                        "figure": label,
                        "quantity": quantity,
                        "paper": paper,
                        "reading": name,
                        "parameter": r.parameter,
                        "source": r.source,
                        "fixed": r.fixed,
                        "ours": str(cmp.at[quantity, "ours"]),
                        "holds": bool(cmp.at[quantity, "match"] == "yes"),
                    }
                )
            mean_claim = quantity in ("SpeCon average completion time", "Overall > 0 in every setting")
            if mean_claim and not ceiling.empty:
                g = sx.gains(ceiling.assign(policy=ceiling["policy"].replace({CEILING: "specon"})), by="seed")
                need = (
                    float(sx.PAPER_TABLE3["overall_pct"].max())
                    if exp == "table3"
                    else float(paper.split("-")[-1].split()[0])
                )
                best = float(g["overall_pct"].mean())
                ours = f"{sx._spread(g, 'specon_mean')} s: {_pct(-best)} against DS (paper needs -{need:g} %)"
                rows.append(
                    {
                        "figure": label,
                        "quantity": quantity,
                        "paper": paper,
                        "reading": CEILING,
                        "parameter": CEILING_PARAMETER,
                        "source": "issue 22; spec 3.3, 7.2",
                        "fixed": "before",
                        "ours": ours,
                        "holds": bool(best >= need),
                    }
                )
    return rows

r"""SpeCon Sec. VI ("Evaluation") as experiments: Figs. 5-12 and Table III next to what the paper reports.

Y. Mao, Y. Fu, W. Zheng, L. Cheng, Q. Liu, D. Tao, "Speculative Container Scheduling for Deep
Learning Applications in a Kubernetes Cluster", arXiv:2010.11307, Sec. VI; the settings and the
reported numbers are ``shared/spec/specon.md`` section 6. This module holds the sweepable
experiment of notebook ``52_specon_figures`` (:func:`pair_run`: DS and SpeCon on the same
workload, one row per job and policy; deterministic given ``params``, seed included), the
per-run summary the paper's text reports (:func:`gains`), the paper's numbers (:data:`PAPER`),
one ``*_comparison`` per figure (paper vs ours with a verdict, through
:mod:`dlsched.core.comparison`), the per-worker timelines of Figs. 8-11 (:func:`timeline`) and
the figures.

==========  =======================================================  ============================
experiment  setting (spec 6)                                         ``EXPERIMENTS`` key
==========  =======================================================  ============================
Fig. 5      fixed: 20 VAE jobs every 50 s, cluster 1 (4 workers)     ``fig5``
Table III   random launches in [0, 300] s, 20 VAE jobs, cluster 1    ``table3``
Fig. 6      random [0, 300] s, 20 jobs of random types, cluster 1    ``fig6``
Fig. 7      random [0, 600] s, 30 jobs, cluster 1 (also Figs. 8-11)  ``fig7``
Fig. 12     random [0, 1200] s, 50 jobs, cluster 2 (8 workers)       ``fig12``
==========  =======================================================  ============================

Definitions (the paper's, l. 310-314, and ours where it is silent)
------------------------------------------------------------------
* **Completion time** of a job: finish - launch in seconds (``jct_seconds`` of the engine).
  **Average** = mean over the jobs. **Makespan**: from the first launch to the last finish.
* **Faster / slower** job: SpeCon's completion time below / above DS's by more than
  :data:`TIE_SECONDS` (jobs that never meet a migration keep exactly DS's time).
* **Reduced** (Table III): share of jobs that are faster, in %. **Overall**: reduction of the
  average completion time, in % of DS's. **Best**: the largest per-job reduction, in %.
  **Makespan**: reduction of the makespan, in %. "faster by x % on average" (Fig. 7) is the mean
  of the per-job reductions of the faster jobs (spec 6 [N]).
* **Solo times** (spec 7.5 [R]). The paper gives no job lengths, so each experiment scales them
  (``solo_seconds`` of :func:`~dlsched.specon.model.specon_workload`) until *DS's* mean completion
  time is the paper's (:data:`~dlsched.specon.model.PAPER_DS_MEAN`; Table III reuses Fig. 5's
  275.2 s), separately for each seed (``calibrate="paper"``), with
  :func:`~dlsched.specon.model.calibrate_solo_seconds`. SpeCon's numbers are never calibrated.
* **One run vs seeds.** Each of the paper's numbers is one run on one random schedule; ours are
  several seeds (several schedules), reported as the mean with the range.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from types import MappingProxyType

import numpy as np
import pandas as pd

from dlsched import registry
from dlsched.core.comparison import as_dict, paper_rows, scorecard, with_ours
from dlsched.core.comparison import number as _num
from dlsched.core.comparison import require_columns as _frame
from dlsched.core.comparison import verdict as _verdict
from dlsched.core.jobs import Workload
from dlsched.core.simulator import SimulationResult, simulate
from dlsched.specon.model import PAPER_DS_MEAN, calibrate_solo_seconds, specon_workload

__all__ = [
    "EXPERIMENTS",
    "JOB_COLUMNS",
    "PAPER",
    "PAPER_TABLE3",
    "POLICIES",
    "POSITIVE_PCT",
    "TIE_SECONDS",
    "completion_figure",
    "fig5_comparison",
    "fig6_comparison",
    "fig7_comparison",
    "fig12_comparison",
    "gains",
    "gains_summary",
    "pair_run",
    "run_pair",
    "scorecard",
    "solo_seconds",
    "table3_comparison",
    "table3_figure",
    "testbed_figure",
    "timeline",
    "timeline_figure",
]

POLICIES = ("k8s_default", "specon")
"""DS (the baseline) and SpeCon, as registry names."""

TIE_SECONDS = 1e-6
"""Completion times closer than this (s) count as equal (neither faster nor slower)."""

POSITIVE_PCT = 0.05
"""A reduction (in %) must exceed this to count as positive in Table III's claims (float
round-off of runs with no move gives |x| < 1e-9)."""

EXPERIMENTS: Mapping[str, Mapping[str, object]] = MappingProxyType(
    {
        "fig5": MappingProxyType({"schedule": "fixed", "n_jobs": 20, "target": "fig5"}),
        "table3": MappingProxyType(
            {"schedule": "random", "n_jobs": 20, "types": ("VAE-T",), "target": "fig5"}
        ),
        "fig6": MappingProxyType({"schedule": "random", "n_jobs": 20, "target": "fig6"}),
        "fig7": MappingProxyType({"schedule": "random", "n_jobs": 30, "target": "fig7"}),
        "fig12": MappingProxyType({"schedule": "random", "n_jobs": 50, "target": "fig12"}),
    }
)
"""Experiment -> :func:`specon_workload` settings and the ``PAPER_DS_MEAN`` key DS is calibrated to."""

JOB_COLUMNS = (
    "policy",
    "job",
    "name",
    "type",
    "launch_s",
    "finish_s",
    "completion_s",
    "first_host",
    "last_host",
    "moved",
    "solo_s",
)
"""Columns of :func:`pair_run` (before the sweep's parameter columns)."""

PAPER_TABLE3 = pd.DataFrame(
    [
        (0.05, 20.0, 60.0, 5.7, 29.1, 6.1),
        (0.05, 25.0, 60.0, 6.8, 27.8, 7.5),
        (0.05, 30.0, 55.0, 3.2, 21.3, 4.0),
        (0.01, 30.0, 65.0, 9.6, 31.0, 8.2),
        (0.10, 30.0, 60.0, 6.4, 23.9, 3.1),
    ],
    columns=["alpha", "interval", "reduced_pct", "overall_pct", "best_pct", "makespan_pct"],
)
"""Table III (l. 343-348): SpeCon vs DS on the random [0, 300] s VAE schedule, in %."""

PAPER: Mapping[str, tuple[tuple[str, str], ...]] = MappingProxyType(
    {
        "fig5": (
            ("setting", "20 VAE jobs launched every 50 s, cluster 1, alpha = 0.01, 30 s (l. 326)"),
            ("DS average completion time", "275.2 s (our solo times are calibrated to it)"),
            ("SpeCon average completion time", "234.7 s: -14.7 %"),
            ("jobs faster under SpeCon", "11 of 20, by 83.6 s (26.7 %) on average"),
            ("jobs slower under SpeCon", "9 of 20, by 18.3 s (8.1 %) on average"),
            ("Job-17", "348.7 -> 217.6 s (-37.6 %)"),
            ("makespan", "1260 -> 1190 s (-5.6 %)"),
        ),
        "fig6": (
            ("setting", "20 jobs of random types launched in [0, 300] s, cluster 1 (l. 354)"),
            ("DS average completion time", "~710 s (derived; our solo times are calibrated to it)"),
            ("DS makespan", "1421 s"),
            ("average completion time", "-13.6 %"),
            ("jobs faster under SpeCon", "15 of 20 (75 %), by 165.7 s on average"),
            ("jobs slower under SpeCon", "5 of 20, by 110.8 s on average"),
            ("best job", "Job-14: 1167.8 -> 799.2 s (-31.6 %)"),
            ("makespan", "1421 -> 1070 s (-24.7 %)"),
        ),
        "fig7": (
            ("setting", "30 jobs of random types launched in [0, 600] s, cluster 1 (l. 359)"),
            ("DS average completion time", "865.7 s (our solo times are calibrated to it)"),
            ("DS makespan", "1760 s"),
            ("average completion time", "865.7 -> 800.2 s (-7.6 %)"),
            ("jobs faster under SpeCon", "18 of 30 (60 %), by 15.1 % on average"),
            ("jobs slower under SpeCon", "12 of 30, by 10.6 % on average"),
            ("best job", "Job-5: 1539.6 -> 1095.5 s (-28.8 %)"),
            ("makespan", "1760 -> 1498 s (-14.8 %)"),
        ),
        "fig12": (
            ("setting", "50 jobs of random types launched in [0, 1200] s, cluster 2 (l. 413)"),
            ("DS average completion time", "596.3 s (our solo times are calibrated to it)"),
            ("DS makespan", "2070 s"),
            ("average completion time", "596.3 -> 553.0 s (-7.2 %)"),
            ("jobs faster under SpeCon", "30 of 50 (60 %)"),
            ("best job", "Job-50: 467.5 -> 273.4 s (-41.5 %)"),
            ("makespan", "2070 -> 1840 s (-11.1 %)"),
        ),
        "table3": (
            ("setting", "20 VAE jobs launched in [0, 300] s, cluster 1; alpha x interval (l. 339-348)"),
            ("Overall > 0 in every setting", "3.2 to 9.6 %"),
            ("Reduced: most jobs faster in every setting", "55 to 65 %"),
            ("Makespan shorter in every setting", "3.1 to 8.2 %"),
            ("best setting (largest Overall)", "alpha = 0.01, 30 s (9.6 %)"),
        ),
    }
)
"""What the paper reports per experiment: rows ``(quantity, paper)`` (spec 6's table)."""


# ------------------------------------------------------------------------------------ runs


def _experiment(name: object) -> Mapping[str, object]:
    if name not in EXPERIMENTS:
        raise ValueError(f"experiment must be one of {tuple(EXPERIMENTS)}, got {name!r}")
    return EXPERIMENTS[str(name)]


def _workload_params(experiment: str, extra: Mapping[str, object]) -> dict[str, object]:
    exp = _experiment(experiment)
    params = {k: v for k, v in exp.items() if k != "target"}
    params.update(extra)
    return params


@functools.lru_cache(maxsize=256)
def _calibrated(target: float, seed: int, key: str) -> float:
    """:func:`calibrate_solo_seconds` memoised per process (``key``: the workload parameters)."""
    import ast

    params = dict(ast.literal_eval(key))
    return calibrate_solo_seconds(target, seed, **params)


def solo_seconds(experiment: str, seed: int, calibrate: object = "paper", **workload) -> float:
    r""":math:`\tau` of a VAE-T job for ``experiment`` and ``seed`` (module docstring).

    Parameters
    ----------
    experiment : str
        A key of :data:`EXPERIMENTS`.
    seed : int
        Seed of the workload's Generator.
    calibrate : "paper" or float
        ``"paper"``: bisection until DS's mean completion time is the paper's; a number: that
        ``solo_seconds`` as is.
    **workload
        Further :func:`specon_workload` parameters (they change the calibration too).

    Raises
    ------
    ValueError
        Unknown experiment or a bad ``calibrate``.
    """
    exp = _experiment(experiment)
    if calibrate == "paper":
        params = _workload_params(experiment, workload)
        params.pop("solo_seconds", None)
        for key in ("migration_pause", "pause_sd"):  # DS never moves: they cannot change its times
            params.pop(key, None)
        key = repr(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in params.items()))
        return _calibrated(PAPER_DS_MEAN[str(exp["target"])], int(seed), key)
    ok = isinstance(calibrate, (int, float, np.number)) and not isinstance(calibrate, bool)
    if not ok or not math.isfinite(float(calibrate)) or float(calibrate) <= 0:
        raise ValueError(f"calibrate must be 'paper' or a number of seconds > 0, got {calibrate!r}")
    return float(calibrate)


def run_pair(
    experiment: str,
    seed: int = 0,
    *,
    calibrate: object = "paper",
    workload: Mapping[str, object] | None = None,
    policy: Mapping[str, object] | None = None,
) -> tuple[Workload, dict[str, SimulationResult], object]:
    """DS and SpeCon on one workload of ``experiment``.

    Parameters
    ----------
    experiment : str
        A key of :data:`EXPERIMENTS`.
    seed : int
        Seed of the workload (launch times, types).
    calibrate : "paper" or float
        See :func:`solo_seconds`.
    workload : dict, optional
        Extra :func:`specon_workload` parameters (e.g. ``migration_pause``).
    policy : dict, optional
        :class:`~dlsched.specon.policy.SpeCon` parameters (e.g. ``alpha``, ``interval``).

    Returns
    -------
    (workload, results, specon_policy)
        ``results`` maps ``"k8s_default"`` and ``"specon"`` to their
        :class:`~dlsched.core.simulator.SimulationResult`; ``specon_policy`` keeps its event log.
    """
    extra = dict(workload or {})
    tau = solo_seconds(experiment, seed, calibrate, **extra)
    params = _workload_params(experiment, extra)
    params["solo_seconds"] = tau
    wl = specon_workload(np.random.default_rng(int(seed)), **params)
    ds = registry.make_policy("k8s_default", wl)
    sp = registry.make_policy("specon", wl, **dict(policy or {}))
    results = {"k8s_default": simulate(wl, ds), "specon": simulate(wl, sp)}
    return wl, results, sp


def _moved(policy, n: int) -> list[str]:
    kinds = ["" for _ in range(n)]
    for e in getattr(policy, "events", []):
        if e["event"] in ("M", "R"):
            kinds[e["job"]] += e["event"]
    return kinds


def pair_run(params: Mapping[str, object]) -> pd.DataFrame:
    """One sweep point: DS and SpeCon on one workload, one row per (policy, job).

    ``params`` keys: ``experiment`` (required), ``seed`` (0), ``calibrate`` ("paper"),
    ``workload`` (dict), ``policy`` (dict). Columns: :data:`JOB_COLUMNS` (``moved``: "" / "M" /
    "R" for SpeCon's Algorithm 2 / 3 moves; ``first_host`` / ``last_host``: worker index).

    Raises
    ------
    ValueError
        Unknown or bad keys, naming them.
    """
    if not isinstance(params, Mapping):
        raise TypeError(f"pair_run: params must be a dict, got {type(params).__name__}")
    known = {"experiment", "seed", "calibrate", "workload", "policy"}
    unknown = sorted(set(params) - known)
    if unknown:
        raise ValueError(f"pair_run: unknown parameter(s) {unknown}; known: {sorted(known)}")
    if "experiment" not in params:
        raise ValueError("pair_run: params must name an experiment")
    seed = params.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"pair_run: seed must be an integer >= 0, got {seed!r}")
    wl, results, sp = run_pair(
        str(params["experiment"]),
        int(seed),
        calibrate=params.get("calibrate", "paper"),
        workload=as_dict(params, "workload", "pair_run"),
        policy=as_dict(params, "policy", "pair_run"),
    )
    rows = []
    moved = {"k8s_default": [""] * len(wl.jobs), "specon": _moved(sp, len(wl.jobs))}
    for name, res in results.items():
        hosts = res.runs[res.runs["role"] == "worker"].sort_values(["job", "slot"]).groupby("job")["server"]
        first, last = hosts.first(), hosts.last()
        jobs = res.jobs.set_index("job_id")
        for spec in wl.jobs:
            j = spec.job_id
            jct = float(jobs.at[j, "jct_seconds"])
            rows.append(
                {
                    "policy": name,
                    "job": j + 1,  # the paper's Job-1..n
                    "name": spec.name,
                    "type": spec.name.split(" ", 1)[1],
                    "launch_s": float(spec.submit_time),
                    "finish_s": float(spec.submit_time) + jct,
                    "completion_s": jct,
                    "first_host": int(first[j]),
                    "last_host": int(last[j]),
                    "moved": moved[name][j],
                    "solo_s": float(spec.model.solo_seconds),
                }
            )
    return pd.DataFrame(rows, columns=list(JOB_COLUMNS))


# --------------------------------------------------------------------------------- summaries

GAIN_COLUMNS = (
    "jobs",
    "ds_mean",
    "specon_mean",
    "overall_pct",
    "reduced_pct",
    "n_faster",
    "faster_gain_s",
    "faster_gain_pct",
    "n_slower",
    "slower_loss_s",
    "slower_loss_pct",
    "best_job",
    "best_ds",
    "best_specon",
    "best_pct",
    "ds_makespan",
    "specon_makespan",
    "makespan_pct",
    "moves_m",
    "moves_r",
)


def _gain_row(df: pd.DataFrame) -> dict[str, float]:
    ds = df[df["policy"] == "k8s_default"].set_index("job").sort_index()
    sp = df[df["policy"] == "specon"].set_index("job").sort_index()
    if len(ds) == 0 or not ds.index.equals(sp.index):
        raise ValueError("gains: each group needs the same jobs under k8s_default and specon")
    a, b = ds["completion_s"].to_numpy(float), sp["completion_s"].to_numpy(float)
    change = (a - b) / a * 100.0  # per-job reduction in %
    faster, slower = b < a - TIE_SECONDS, b > a + TIE_SECONDS
    best = int(np.argmax(change))

    def makespan(t: pd.DataFrame) -> float:
        return float(t["finish_s"].max() - t["launch_s"].min())

    m0, m1 = makespan(ds), makespan(sp)
    moved = sp["moved"].astype(str)
    return {
        "jobs": len(a),
        "ds_mean": float(a.mean()),
        "specon_mean": float(b.mean()),
        "overall_pct": float((a.mean() - b.mean()) / a.mean() * 100.0),
        "reduced_pct": float(faster.mean() * 100.0),
        "n_faster": int(faster.sum()),
        "faster_gain_s": float((a - b)[faster].mean()) if faster.any() else 0.0,
        "faster_gain_pct": float(change[faster].mean()) if faster.any() else 0.0,
        "n_slower": int(slower.sum()),
        "slower_loss_s": float((b - a)[slower].mean()) if slower.any() else 0.0,
        "slower_loss_pct": float(-change[slower].mean()) if slower.any() else 0.0,
        "best_job": int(ds.index[best]),
        "best_ds": float(a[best]),
        "best_specon": float(b[best]),
        "best_pct": float(change[best]),
        "ds_makespan": m0,
        "specon_makespan": m1,
        "makespan_pct": float((m0 - m1) / m0 * 100.0),
        "moves_m": int(moved.str.contains("M").sum()),
        "moves_r": int(moved.str.contains("R").sum()),
    }


def gains(jobs: pd.DataFrame, by: str | Sequence[str] = ("seed",)) -> pd.DataFrame:
    """The paper's per-run numbers (module docstring) for each group of :func:`pair_run` rows.

    Parameters
    ----------
    jobs : pandas.DataFrame
        Rows of :func:`pair_run` (several sweep points, told apart by the ``by`` columns).
    by : str or sequence of str
        Columns naming one run (e.g. ``"seed"``, or ``["alpha", "interval", "seed"]``).

    Returns
    -------
    pandas.DataFrame
        One row per group: the ``by`` columns, then ``GAIN_COLUMNS`` (times in s, changes in %
        as reductions: positive = SpeCon better).
    """
    by = [by] if isinstance(by, str) else list(by)
    _frame(jobs, ["policy", "job", "completion_s", "launch_s", "finish_s", "moved", *by], "gains")
    rows = []
    for key, g in jobs.groupby(by, sort=False) if by else [((), jobs)]:
        key = key if isinstance(key, tuple) else (key,)
        rows.append({**dict(zip(by, key, strict=True)), **_gain_row(g)})
    return pd.DataFrame(rows, columns=[*by, *GAIN_COLUMNS])


def gains_summary(g: pd.DataFrame, by: str | Sequence[str] = ()) -> pd.DataFrame:
    """Mean, min and max over seeds of the main columns of :func:`gains` (per ``by`` group)."""
    by = [by] if isinstance(by, str) else list(by)
    cols = ["ds_mean", "specon_mean", "overall_pct", "reduced_pct", "best_pct", "makespan_pct",
            "ds_makespan", "specon_makespan", "moves_m", "moves_r"]
    _frame(g, [*by, *cols], "gains_summary")
    if by:
        agg = g.groupby(by, sort=False)[cols].agg(["mean", "min", "max"])
    else:
        agg = g[cols].agg(["mean", "min", "max"]).T.stack().to_frame().T
    agg.columns = [f"{c}_{s}" for c, s in agg.columns]
    return agg.reset_index() if by else agg.reset_index(drop=True)


# ---------------------------------------------------------------------------- comparisons


def _pct(x: float) -> str:
    return f"{x:+.1f} %"


def _spread(g: pd.DataFrame, col: str, fmt=_num) -> str:
    v = g[col].to_numpy(float)
    if len(v) == 1:
        return fmt(v[0])
    return f"{fmt(v.mean())} (range {fmt(v.min())} to {fmt(v.max())}, {len(v)} seeds)"


def _reduction_verdict(paper_pct: float, ours_pct: float) -> str:
    """yes: a reduction within a factor 2 of the paper's; partly: a smaller or larger reduction;
    no: none or an increase."""
    if ours_pct <= 0:
        return "no"
    return "yes" if paper_pct / 2 <= ours_pct <= paper_pct * 2 else "partly"


def _near(paper: float, ours: float, rel: float = 0.15) -> str:
    return "yes" if abs(ours - paper) <= rel * abs(paper) else "no"


def _common(
    figure: str, g: pd.DataFrame, setting: str, jobs: pd.DataFrame | None = None
) -> tuple[list[str], list[str]]:
    """Our value and verdict for the rows shared by Figs. 5, 6, 7 and 12."""
    _frame(g, list(GAIN_COLUMNS), figure)
    if len(g) == 0:
        raise ValueError(f"{figure}: no runs")
    ours, match = [], []
    for quantity, paper in PAPER[figure]:
        if quantity == "setting":
            ours.append(setting or "-")
            match.append("-")
        elif quantity == "DS average completion time":
            ours.append(_spread(g, "ds_mean") + " s (calibrated)")
            match.append("-")
        elif quantity == "DS makespan":
            ours.append(_spread(g, "ds_makespan") + " s")
            match.append(_near(float(paper.split()[0]), float(g["ds_makespan"].mean())))
        elif quantity in ("SpeCon average completion time", "average completion time"):
            p = float(paper.split("-")[-1].split()[0]) if "-" in paper else 0.0
            per_seed = ", ".join(_pct(-x) for x in g["overall_pct"])
            ours.append(f"{_spread(g, 'specon_mean')} s: {_pct(-g['overall_pct'].mean())}"
                        + (f" (per seed {per_seed})" if len(g) > 1 else ""))
            match.append(_reduction_verdict(p, float(g["overall_pct"].mean())))
        elif quantity == "jobs faster under SpeCon":
            n = int(g["jobs"].iloc[0])
            ours.append(f"{g['n_faster'].mean():.1f} of {n} ({g['reduced_pct'].mean():.0f} %), by "
                        f"{g['faster_gain_s'].mean():.1f} s ({g['faster_gain_pct'].mean():.1f} %) on average")
            share = float(paper.split(" of ")[0]) / n * 100
            match.append("yes" if abs(g["reduced_pct"].mean() - share) <= 15 else
                         ("partly" if g["reduced_pct"].mean() > 0 else "no"))
        elif quantity == "jobs slower under SpeCon":
            n = int(g["jobs"].iloc[0])
            ours.append(f"{g['n_slower'].mean():.1f} of {n}, by {g['slower_loss_s'].mean():.1f} s "
                        f"({g['slower_loss_pct'].mean():.1f} %) on average")
            match.append("-")
        elif quantity.startswith("Job-"):  # a named job: only the fixed schedule is the paper's
            k = int(quantity.split("-")[1])
            p = float(paper.split("(-")[1].split()[0])
            if jobs is None:
                raise ValueError(f"{figure}: the row {quantity!r} needs the job rows (jobs=)")
            one = jobs[jobs["job"] == k]
            if "seed" in one.columns:
                one = one[one["seed"] == one["seed"].min()]
            a = float(one.loc[one["policy"] == "k8s_default", "completion_s"].iloc[0])
            b = float(one.loc[one["policy"] == "specon", "completion_s"].iloc[0])
            best = g.sort_values("best_pct", ascending=False).iloc[0]
            ours.append(f"{a:.1f} -> {b:.1f} s ({_pct((b - a) / a * 100)}); our best job: "
                        f"Job-{int(best['best_job'])} ({_pct(-best['best_pct'])})")
            match.append(_reduction_verdict(p, (a - b) / a * 100))
        elif quantity == "best job":
            best = g.sort_values("best_pct", ascending=False).iloc[0]
            p = float(paper.split("(-")[1].split()[0])
            ours.append(f"Job-{int(best['best_job'])}: {best['best_ds']:.1f} -> {best['best_specon']:.1f} s "
                        f"({_pct(-best['best_pct'])}), best over all seeds; mean best "
                        f"{_pct(-g['best_pct'].mean())}")
            match.append(_reduction_verdict(p, float(best["best_pct"])))
        elif quantity == "makespan":
            p = float(paper.split("(-")[1].split()[0])
            ours.append(f"{_spread(g, 'ds_makespan')} -> {_spread(g, 'specon_makespan')} s "
                        f"({_pct(-g['makespan_pct'].mean())})")
            match.append(_reduction_verdict(p, float(g["makespan_pct"].mean())))
        else:  # pragma: no cover - PAPER and this function are edited together
            raise AssertionError(f"{figure}: no rule for {quantity!r}")
    return ours, match


def _comparison(
    figure: str, g: pd.DataFrame, setting: str, jobs: pd.DataFrame | None = None
) -> pd.DataFrame:
    ours, match = _common(figure, g, setting, jobs)
    return with_ours(paper_rows(PAPER, figure), ours, match, figure)


def fig5_comparison(g: pd.DataFrame, jobs: pd.DataFrame, *, setting: str = "") -> pd.DataFrame:
    """Fig. 5 (fixed schedule): paper vs ours from :func:`gains` rows of experiment ``fig5`` and
    its :func:`pair_run` rows ``jobs`` (for Job-17, which the paper names: on the fixed schedule
    job numbers are the paper's)."""
    return _comparison("fig5", g, setting, jobs)


def fig6_comparison(g: pd.DataFrame, *, setting: str = "") -> pd.DataFrame:
    """Fig. 6 (20 random jobs in [0, 300] s): paper vs ours from :func:`gains` rows."""
    return _comparison("fig6", g, setting)


def fig7_comparison(g: pd.DataFrame, *, setting: str = "") -> pd.DataFrame:
    """Fig. 7 (30 random jobs in [0, 600] s): paper vs ours from :func:`gains` rows."""
    return _comparison("fig7", g, setting)


def fig12_comparison(g: pd.DataFrame, *, setting: str = "") -> pd.DataFrame:
    """Fig. 12 (50 random jobs in [0, 1200] s, cluster 2): paper vs ours from :func:`gains` rows."""
    return _comparison("fig12", g, setting)


def table3(g: pd.DataFrame) -> pd.DataFrame:
    """Table III from :func:`gains` rows with ``alpha`` and ``interval`` columns: the paper's four
    numbers beside our mean over seeds, one row per setting (paper's order)."""
    _frame(g, ["alpha", "interval", "reduced_pct", "overall_pct", "best_pct", "makespan_pct"], "table3")
    ours = g.groupby(["alpha", "interval"])[["reduced_pct", "overall_pct", "best_pct", "makespan_pct"]].mean()
    seeds = g.groupby(["alpha", "interval"]).size().rename("seeds")
    out = PAPER_TABLE3.merge(ours.reset_index(), on=["alpha", "interval"], how="left",
                             suffixes=("_paper", "_ours"))
    return out.merge(seeds.reset_index(), on=["alpha", "interval"], how="left")


def table3_comparison(g: pd.DataFrame, *, setting: str = "") -> pd.DataFrame:
    """Table III's claims (all four numbers positive everywhere; the best setting) vs ours."""
    t = table3(g)
    if t["overall_pct_ours"].isna().any():
        raise ValueError("table3_comparison: runs are missing for some of the paper's settings")
    ours, match = [], []
    for quantity, _paper in PAPER["table3"]:
        if quantity == "setting":
            ours.append(setting or "-")
            match.append("-")
            continue
        col = {"Overall": "overall_pct", "Reduced": "reduced_pct", "Makespan": "makespan_pct"}
        key = next((c for k, c in col.items() if quantity.startswith(k)), None)
        if key is not None:
            v = t[f"{key}_ours"]
            ours.append(f"{v.min():.1f} to {v.max():.1f} %")
            good = (v > 50) if key == "reduced_pct" else (v > POSITIVE_PCT)
            match.append(_verdict(list(good)))
        else:
            i = int(t["overall_pct_ours"].idxmax())
            a, d = t.at[i, "alpha"], t.at[i, "interval"]
            best = float(t.at[i, "overall_pct_ours"])
            ours.append(f"alpha = {a:g}, {d:g} s ({best:.1f} %)")
            match.append("yes" if (a, d) == (0.01, 30.0) and best > POSITIVE_PCT else "no")
    return with_ours(paper_rows(PAPER, "table3"), ours, match, "table3")


# ------------------------------------------------------------------------------ timelines


def timeline(wl: Workload, result: SimulationResult, policy=None) -> pd.DataFrame:
    """Per job and interval of constant placement: the worker hosting it and its CPU use (Figs. 8-11).

    Columns: ``job`` (1-based), ``worker`` (1-based), ``start_s``, ``end_s``, ``cpu_pct`` (the
    job's cores in % of the node's cores; 0 while it pauses for a migration), ``label``
    (``Job-k``, with ``-M`` / ``-R`` once moved by Algorithm 2 / 3).
    """
    from dlsched.core.jobs import RateContext
    from dlsched.core.schedule import Placement, server_usage

    every = result.runs
    runs = every[every["role"] == "worker"]
    # the PS role books the CPU a container still trains with under the reading "a converged
    # container needs less CPU" (converged_cpu < 1); it is part of the placement whose cores count
    ps_runs = every[every["role"] == "ps"]
    ps_start = ps_runs["slot"].to_numpy(np.int64)
    ps_end = ps_start + ps_runs["slots"].to_numpy(np.int64)
    slot = wl.cluster.slot_seconds
    specs = wl.specs
    moves: dict[int, list[tuple[int, str]]] = {}
    for e in getattr(policy, "events", []) if policy is not None else []:
        if e["event"] in ("M", "R"):
            pause = specs[e["job"]].model.migration_pause / slot
            moves.setdefault(e["job"], []).append((e["slot"], e["event"], e["slot"] + pause))
    start = runs["slot"].to_numpy(np.int64)
    end = start + runs["slots"].to_numpy(np.int64)
    bounds = np.unique(np.concatenate([start, end]))
    cap = wl.cluster.capacity[:, wl.cluster.resource_index("cpu")]
    soft = ~wl.cluster.hard
    rows = []
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        live = runs[(start <= a) & (end > a)]
        if live.empty:
            continue
        ps_live = ps_runs[(ps_start <= a) & (ps_end > a)]
        ps_of = {int(j): {int(s): int(c)}
                 for j, s, c in zip(ps_live["job"], ps_live["server"], ps_live["count"], strict=True)}
        place = {int(j): Placement.of({int(s): 1}, ps_of.get(int(j), {}))
                 for j, s in zip(live["job"], live["server"], strict=True)}
        paused = {j for j in place for (t0, _, t1) in moves.get(j, []) if t0 <= a < t1}
        load = server_usage(wl.cluster, specs, place)
        if paused:
            load = load - server_usage(wl.cluster, specs, {j: place[j] for j in paused}) * soft
        ctx = RateContext(wl.cluster, load)
        for j, p in place.items():
            ((s, _),) = p.workers  # one container: one worker (its PS, if any, on the same node)
            cores = 0.0 if j in paused else specs[j].model.cores(specs[j], p, ctx)
            kinds = "".join(k for t0, k, _ in moves.get(j, []) if t0 <= a)
            label = f"Job-{j + 1}" + "".join(f"-{k}" for k in kinds)
            rows.append((j + 1, s + 1, a * slot, b * slot, 100.0 * cores / float(cap[s]), label))
    return pd.DataFrame(rows, columns=["job", "worker", "start_s", "end_s", "cpu_pct", "label"])


# --------------------------------------------------------------------------------- figures


def completion_figure(jobs: pd.DataFrame, *, title: str = "", highlight: Sequence[int] = ()):
    """Per-job completion time, DS vs SpeCon (the paper's Figs. 5, 6, 7, 12), one run."""
    from dlsched import plotting

    _frame(jobs, ["policy", "job", "completion_s"], "completion_figure")
    n = jobs["job"].nunique()
    fig, ax = plotting.subplots(figsize=(max(6.0, 0.28 * n + 2), 3.4))
    df = jobs.assign(scheme=jobs["policy"].map({"k8s_default": "DS", "specon": "SpeCon"}))
    plotting.draw("barplot", data=df, x="job", y="completion_s", hue="scheme", ax=ax)
    ax.set_xlabel("job ID")
    ax.set_ylabel("completion time (s)")
    if n > 25:
        for i, lab in enumerate(ax.get_xticklabels()):
            lab.set_visible(i % 5 == 4 or i == 0)
    for k in highlight:
        ax.axvline(k - 1, color="0.6", lw=0.8, ls=":")
    ax.set_title(title)
    ax.legend(title=None)
    return fig


def table3_figure(t: pd.DataFrame, *, title: str = ""):
    """Table III as bars: the four numbers per (alpha, interval), paper vs ours."""
    from dlsched import plotting

    metrics = {
        "reduced_pct": "Reduced",
        "overall_pct": "Overall",
        "best_pct": "Best",
        "makespan_pct": "Makespan",
    }
    rows = []
    for _, r in t.iterrows():
        setting = f"{r['alpha']:g}, {r['interval']:g} s"
        for m, name in metrics.items():
            rows.append((setting, name, "paper", r[f"{m}_paper"]))
            rows.append((setting, name, "ours", r[f"{m}_ours"]))
    df = pd.DataFrame(rows, columns=["setting", "metric", "source", "pct"])
    fig, axes = plotting.subplots(1, 4, figsize=(13, 4.2), sharey=False)
    for ax, name in zip(axes, metrics.values(), strict=True):
        plotting.draw("barplot", data=df[df["metric"] == name], x="setting", y="pct", hue="source", ax=ax)
        ax.set_title(name if name == "Reduced" else f"{name} (reduction)")
        ax.set_xlabel("alpha, interval")
        ax.set_ylabel("%" if ax is axes[0] else "")
        ax.axhline(0, color="0.4", lw=0.8)
        ax.tick_params(axis="x", rotation=45)
        if ax is not axes[0]:
            ax.get_legend().remove()
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def timeline_figure(
    tl: pd.DataFrame, *, value: str = "containers", title: str = "", n_workers: int | None = None
):
    """Per-worker panels over time: containers hosted (Figs. 8-9) or CPU use per job (Figs. 10-11).

    Parameters
    ----------
    tl : pandas.DataFrame
        Output of :func:`timeline`.
    value : {"containers", "cpu"}
        ``containers``: one horizontal bar per job on its worker, labelled ``Job-k[-M|-R]``;
        ``cpu``: stacked CPU use (% of the node) per job over time.
    """
    import seaborn as sns

    from dlsched import plotting

    _frame(tl, ["job", "worker", "start_s", "end_s", "cpu_pct", "label"], "timeline_figure")
    if value not in ("containers", "cpu"):
        raise ValueError(f"timeline_figure: value must be 'containers' or 'cpu', got {value!r}")
    n_w = int(n_workers or tl["worker"].max())
    fig, axes = plotting.subplots(n_w, 1, figsize=(9, 1.5 * n_w + 0.6), sharex=True)
    axes = np.atleast_1d(axes)
    colours = sns.color_palette("husl", int(tl["job"].max()))
    for w, ax in enumerate(axes, start=1):
        part = tl[tl["worker"] == w]
        if value == "containers":
            lanes: dict[int, int] = {}
            spans = part.groupby("job").agg(
                start=("start_s", "min"), end=("end_s", "max"), label=("label", "last")
            )
            for k, (j, r) in enumerate(spans.sort_values("start").iterrows()):
                lanes[j] = k
                ax.barh(k, r["end"] - r["start"], left=r["start"], color=colours[j - 1], height=0.8)
                ax.text(r["start"], k, " " + r["label"], va="center", fontsize=6)
            ax.set_yticks([])
            ax.set_ylabel(f"Worker-{w}", fontsize=8)
        else:
            grid = np.unique(np.concatenate([part["start_s"], part["end_s"], [0.0]]))
            bottom = np.zeros(max(len(grid) - 1, 0))
            for j, g in part.groupby("job"):
                y = np.zeros_like(bottom)
                for _, r in g.iterrows():
                    y[(grid[:-1] >= r["start_s"]) & (grid[:-1] < r["end_s"])] = r["cpu_pct"]
                ax.fill_between(grid[:-1], bottom, bottom + y, step="post", color=colours[j - 1], lw=0)
                bottom = bottom + y
            ax.set_ylim(0, 100)
            ax.set_ylabel(f"Worker-{w}\nCPU %", fontsize=8)
    axes[-1].set_xlabel("time (s)")
    fig.suptitle(title)
    return fig


def testbed_figure(table: pd.DataFrame, *, title: str = ""):
    """Per-job completion time on the real-process testbed: DS and SpeCon, measured and predicted.

    ``table`` is :attr:`dlsched.specon.testbed.TestbedComparison.table` (columns ``job``,
    ``ds_measured``, ``ds_predicted``, ``specon_measured``, ``specon_predicted``,
    ``specon_moved``); moved jobs are marked with ``*`` on the x axis.
    """
    from dlsched import plotting

    cols = ["job", "ds_measured", "ds_predicted", "specon_measured", "specon_predicted", "specon_moved"]
    _frame(table, cols, "testbed_figure")
    names = {
        "ds_measured": "DS, measured",
        "specon_measured": "SpeCon, measured",
        "ds_predicted": "DS, simulator",
        "specon_predicted": "SpeCon, simulator",
    }
    jobs = [f"{j}{'*' if m else ''}" for j, m in zip(table["job"], table["specon_moved"], strict=True)]
    long = table.assign(job=jobs).melt(id_vars="job", value_vars=list(names), var_name="series",
                                       value_name="completion_s")
    long["series"] = long["series"].map(names)
    fig, ax = plotting.subplots(figsize=(max(6.0, 0.9 * len(table) + 2), 3.6))
    plotting.draw("barplot", data=long, x="job", y="completion_s", hue="series", ax=ax,
                  hue_order=list(names.values()))
    ax.set_xlabel("job (* = moved by SpeCon)")
    ax.set_ylabel("completion time (s)")
    ax.tick_params(axis="x", rotation=30)
    ax.set_title(title)
    ax.legend(title=None, fontsize=7, ncols=2)
    return fig

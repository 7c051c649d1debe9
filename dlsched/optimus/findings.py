r"""What the Optimus notebooks find, printed from their result tables; notebook 22's scorecard.

Y. Peng, Y. Bao, Y. Chen, C. Wu, C. Guo, "Optimus: An Efficient Dynamic Resource Scheduler for
Deep Learning Clusters", EuroSys 2018. The notebooks ``20_optimus_models``, ``21_optimus_proofs``
and ``22_optimus_figures`` type no number they measured into their markdown: every measured
number of their readings comes from a function here, a pure function of the tables the notebook
computed (or read from the results store), so that prose, tables, figures and the scorecard
cannot disagree.

* ``*_reading`` functions return a string of one or more sentences, numbers rounded.
* ``fig*_table`` functions (notebook 22) return the paper-vs-ours rows of one figure with a
  verdict: columns ``figure, quantity, paper, ours, match`` (strings). ``match`` is ``yes``,
  ``partly`` or ``no`` for a claim of the paper, ``-`` for a setting or a quantity we cannot
  compare (not a claim). :func:`scorecard` collects the judged rows.

Verdict rules (:func:`gain_verdict`, :func:`value_verdict`):

* a *gain* the paper reports (a speed-up minus 1, a reduction, a gap): ``yes`` if ours is within
  25 % of the paper's (relative), ``partly`` if it has the same sign but another size, ``no``
  if it is zero or the other way (or within the seed noise, where the table knows it);
* a *value* (Table 3): ``yes`` within 10 % of the paper's, ``partly`` within 50 %, ``no``
  otherwise;
* a *statement* (Optimus beats DRF in both modes, ...): ``yes`` if it holds in every case,
  ``partly`` in some, ``no`` in none (:func:`dlsched.core.comparison.verdict`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from dlsched.core.comparison import require_columns, verdict
from dlsched.optimus.analysis import PAPER_SEQ2SEQ_BETAS, convergence_table

__all__ = [
    "CARD_COLUMNS",
    "GAIN_TOLERANCE",
    "PAPER_TEXT",
    "allocation_gap_reading",
    "fig6_reading",
    "fig7_reading",
    "fig9_reading",
    "fig11_reading",
    "fig11_table",
    "fig14_reading",
    "fig14_table",
    "fig15_reading",
    "fig15_table",
    "fig16_reading",
    "fig16_table",
    "fig17_reading",
    "fig17_table",
    "fig18_reading",
    "fig18_table",
    "fig19_reading",
    "fig19_table",
    "fit_reading",
    "gain_verdict",
    "gap_reading",
    "paa_reading",
    "scorecard",
    "summary_reading",
    "table3_reading",
    "table3_table",
    "tetris_reading",
    "threshold_reading",
    "value_verdict",
]

CARD_COLUMNS: tuple[str, ...] = ("figure", "quantity", "paper", "ours", "match")
"""Columns of every ``fig*_table`` and of :func:`scorecard`."""

GAIN_TOLERANCE = 0.25
"""Relative distance from the paper's gain within which a gain counts as reproduced."""

PAPER_TEXT: Mapping[str, str] = MappingProxyType(
    {
        "fig11_best": "yes (Fig. 11)",
        "fig11_tetris": "yes (5.0 vs 6.7 h)",
        "fig14_tasks": "yes (DRF is work-conserving)",
        "fig14_cpu": "higher for Optimus",
        "fig15_speed": "yes",
        "fig16_beats": "yes",
        "fig16_sync": "yes",
        "fig17_beats": "yes",
        "fig17_google": "yes",
    }
)
"""The paper's statements (Sec. 6) that have no number, as shown in the ``paper`` column."""


# ------------------------------------------------------------------------------ helpers


def _f(x: Any) -> float:
    return float(x)


def _pct(x: float, sign: bool = False) -> str:
    """``x`` (a fraction) in percent, whole numbers from 10 % on, else one decimal."""
    x = _f(x)
    if not math.isfinite(x):
        return "nan"
    fmt = "+" if sign else ""
    return f"{100 * x:{fmt}.0f} %" if abs(x) >= 0.1 else f"{100 * x:{fmt}.1f} %"


def _span(values: Sequence[float] | pd.Series, fmt: str = ".2f") -> str:
    """``"a"`` or ``"a-b"`` (smallest to largest), rounded with ``fmt``."""
    v = np.asarray(values, dtype=float)
    lo, hi = format(float(v.min()), fmt), format(float(v.max()), fmt)
    return lo if lo == hi else f"{lo}-{hi}"


def _x(v: float) -> str:
    return f"{_f(v):.2f}x"


def gain_verdict(paper: float, ours: float, *, noise: float = 0.0, rel: float = GAIN_TOLERANCE) -> str:
    """Verdict on a gain (speed-up minus 1, reduction, gap) the paper reports as positive.

    Parameters
    ----------
    paper : float
        The paper's gain (> 0).
    ours : float
        Our gain.
    noise : float, default 0
        Seed noise of ``ours`` (e.g. two standard errors): a gain not above it counts as none.
    rel : float, default :data:`GAIN_TOLERANCE`

    Returns
    -------
    str
        ``yes`` if ``ours > noise`` and ``|ours / paper - 1| <= rel``; ``partly`` if only
        ``ours > noise``; ``no`` otherwise (also for NaN).

    Raises
    ------
    ValueError
        If ``paper`` is not positive.

    Examples
    --------
    >>> gain_verdict(0.15, 0.14), gain_verdict(0.62, 0.1), gain_verdict(0.15, -0.01)
    ('yes', 'partly', 'no')
    """
    if not _f(paper) > 0:
        raise ValueError(f"gain_verdict: paper must be a positive gain, got {paper!r}")
    o = _f(ours)
    if not math.isfinite(o) or o <= max(_f(noise), 0.0):
        return "no"
    return "yes" if abs(o / _f(paper) - 1.0) <= rel else "partly"


def value_verdict(paper: float, ours: float, *, close: float = 0.10, near: float = 0.50) -> str:
    """Verdict on a value: ``yes`` within ``close`` of the paper's (relative), ``partly`` within
    ``near``, ``no`` otherwise (also for NaN).

    Examples
    --------
    >>> value_verdict(0.1, 0.103), value_verdict(247, 247), value_verdict(3.6, 1.73)
    ('yes', 'yes', 'no')
    """
    p, o = _f(paper), _f(ours)
    if not math.isfinite(o):
        return "no"
    d = abs(o - p) / abs(p) if p != 0 else (0.0 if o == 0 else math.inf)
    return "yes" if d <= close else ("partly" if d <= near else "no")


def _statement(flags: Sequence[bool]) -> str:
    return verdict([bool(f) for f in flags])


def _table(figure: str, rows: Sequence[tuple[str, str, str, str]]) -> pd.DataFrame:
    for r in rows:
        if r[3] not in ("yes", "partly", "no", "-"):
            raise AssertionError(f"{figure}: bad match {r[3]!r} in row {r!r}")
    return pd.DataFrame(
        [{"figure": figure, "quantity": q, "paper": p, "ours": o, "match": m} for q, p, o, m in rows],
        columns=list(CARD_COLUMNS),
    )


def _by_scheme(frame: pd.DataFrame, what: str) -> pd.DataFrame:
    return frame.set_index("scheme") if "scheme" in frame.columns else frame


def _se(std: float, runs: float) -> float:
    s, n = _f(std), _f(runs)
    return s / math.sqrt(n) if n > 1 and math.isfinite(s) else 0.0


# ------------------------------------------------------------------------------ notebook 20


def threshold_reading(epochs: pd.DataFrame, deltas: Sequence[float] = (0.01, 0.05), confirm: int = 5) -> str:
    """Fig. 5: at the paper's thresholds, after how many epochs our curves converge.

    Parameters
    ----------
    epochs : pandas.DataFrame
        :func:`dlsched.optimus.analysis.epoch_losses`.
    deltas : sequence of float, default (0.01, 0.05)
        The paper's thresholds (1-5 %).
    confirm : int, default 5

    Returns
    -------
    str
        One sentence per threshold: the range of observed convergence epochs and how many curves
        converge.
    """
    out = []
    for d in deltas:
        conv = convergence_table(epochs, d, confirm)
        obs = conv.loc[conv["converged"], "observed"].astype(float)
        where = f"after {_span(obs, '.0f')} epochs" if len(obs) else "never"
        out.append(f"delta = {d:g}: {int(conv['converged'].sum())} of {len(conv)} curves converge, {where}.")
    return "\n".join(out)


def fig6_reading(errors: pd.DataFrame, *, early: float = 0.1, tol: float = 0.1) -> str:
    """Fig. 6: the largest early error, and how the fit's own prediction misses at convergence.

    Parameters
    ----------
    errors : pandas.DataFrame
        :func:`~dlsched.optimus.analysis.prediction_errors` rows of one threshold (columns
        ``config, observed, progress, error, e_star, raw_error``).
    early : float, default 0.1
        Progress up to which a prediction counts as early.
    tol : float, default 0.1
        A curve whose raw error at convergence is within ``tol`` is "predicted well".

    Returns
    -------
    str
        The largest early error, then the curves whose :math:`e^*` at convergence is too early
        (with :math:`e^*` and :math:`e_{obs}`), too late (with the raw error) or within ``tol``.
    """
    require_columns(
        errors, ["config", "observed", "progress", "error", "e_star", "raw_error"], "fig6_reading"
    )
    first = errors[errors["progress"] <= early + 1e-12]
    worst = first.loc[first["error"].abs().idxmax()] if len(first) else None
    lines = []
    if worst is not None:
        lines.append(
            f"Largest error at progress <= {early:g}: {_pct(worst['error'], sign=True)} ({worst['config']})."
        )
    last = errors[errors["progress"] >= 1.0 - 1e-12].sort_values("config")
    low = last[last["raw_error"] < -tol]
    high = last[last["raw_error"] > tol]
    good = last[last["raw_error"].abs() <= tol]
    if len(low):
        lines.append(
            f"At convergence the fit predicts too early (raw error below -{_pct(tol)}) for "
            f"{', '.join(low['config'])}: e* = {_span(low['e_star'], '.0f')} against "
            f"e_obs = {_span(low['observed'], '.0f')}."
        )
    if len(high):
        lines.append(
            f"It predicts too late for {', '.join(high['config'])}: raw error "
            f"{_pct(high['raw_error'].min(), True)} to {_pct(high['raw_error'].max(), True)}."
        )
    if len(good):
        lines.append(
            f"Within {_pct(tol)} (largest |raw error| {_pct(good['raw_error'].abs().max())}): "
            f"{', '.join(good['config'])}."
        )
    return "\n".join(lines)


def fig7_reading(
    betas: pd.DataFrame,
    online: pd.DataFrame,
    config: str,
    paper: Sequence[float] = PAPER_SEQ2SEQ_BETAS,
) -> str:
    r"""Fig. 7: the example curve's :math:`\beta` next to the paper's, and the early fit's plateau.

    Parameters
    ----------
    betas : pandas.DataFrame
        :func:`~dlsched.optimus.analysis.fit_betas` of every curve (all epochs).
    online : pandas.DataFrame
        :func:`~dlsched.optimus.analysis.fit_betas` of ``config`` at several fractions.
    config : str
        The example curve.
    paper : (float, float, float), default the paper's Seq2Seq fit

    Returns
    -------
    str
    """
    require_columns(betas, ["config", "beta0", "beta1", "beta2"], "fig7_reading")
    require_columns(online, ["fraction", "beta2"], "fig7_reading")
    b = betas.set_index("config").loc[config]
    p0, p1, p2 = (float(v) for v in paper)
    on = online.sort_values("fraction")
    first, rest = on.iloc[0], on.iloc[1:]
    lines = [
        f"{config}: beta = ({b['beta0']:.3f}, {b['beta1']:.3f}, {b['beta2']:.3f}) against the paper's "
        f"({p0:g}, {p1:g}, {p2:g}); beta0 is {b['beta0'] / p0:.2f} of the paper's.",
        f"beta0 over our {len(betas)} curves: {_span(betas['beta0'], '.2f')}.",
    ]
    if len(rest):
        lines.append(
            f"Fitted on the first {first['fraction']:.0%} of the epochs, the plateau beta2 is "
            f"{first['beta2']:.3f}; on more epochs {_span(rest['beta2'], '.3f')}."
        )
    return "\n".join(lines)


def fig9_reading(peaks: pd.DataFrame) -> str:
    """Fig. 9: where the synchronous speed peaks in the number of workers, and what follows.

    Parameters
    ----------
    peaks : pandas.DataFrame
        :func:`~dlsched.optimus.analysis.speed_peaks`.

    Returns
    -------
    str
        Per fixed number of PS of the sync ``vs_w`` slice: the best worker count and the change
        over the second half of the slice; the async ``vs_w`` slice's smallest such change.
    """
    require_columns(peaks, ["mode", "slice", "fixed", "best", "last", "gain_second_half"], "fig9_reading")
    sync = peaks[(peaks["mode"] == "sync") & (peaks["slice"] == "vs_w")].sort_values("fixed")
    asyn = peaks[(peaks["mode"] == "async") & (peaks["slice"] == "vs_w")]
    parts = [
        f"p = {int(r.fixed)}: peak at w = {int(r.best)}, {_pct(r.gain_second_half, True)} from "
        f"w = {int(r.last) // 2} to {int(r.last)}"
        for r in sync.itertuples()
    ]
    lines = ["Sync, speed against workers: " + "; ".join(parts) + "."]
    if len(asyn):
        lines.append(
            f"Async, speed against workers: best at the largest w on "
            f"{int((asyn['best'] == asyn['last']).sum())} of {len(asyn)} slices; the second half "
            f"of the slice adds at least {_pct(asyn['gain_second_half'].min())}."
        )
    return "\n".join(lines)


# ------------------------------------------------------------------------------ notebook 21


def fit_reading(errors: pd.DataFrame, noise: float = 0.05) -> str:
    r"""Section 1: fitted curves against the truth, in units of the noise.

    Parameters
    ----------
    errors : pandas.DataFrame
        :func:`dlsched.optimus.checks.fit_errors` (columns ``model, noise, error_over_noise,
        grid_error``).
    noise : float, default 0.05
        The level at which the speed model's grid error is quoted.

    Returns
    -------
    str
    """
    require_columns(errors, ["model", "noise", "error_over_noise", "grid_error"], "fit_reading")
    noisy = errors[errors["noise"] > 0]
    med = noisy.groupby(["model", "noise"])["error_over_noise"].median()
    at = errors[(errors["noise"] - noise).abs() < 1e-12].dropna(subset=["grid_error"])
    lines = [
        f"Median error of the fitted curve over the noise level: {_span(med, '.2f')} sigma "
        f"(per model and noise level)."
    ]
    if len(at):
        grid = at.groupby("model")["grid_error"].median()
        lines.append(
            f"Median grid_error of the speed fits at {noise:.0%} noise: "
            + ", ".join(f"{m} {_pct(v)}" for m, v in grid.items())
            + "."
        )
    return "\n".join(lines)


def allocation_gap_reading(gaps: pd.DataFrame) -> str:
    """Section 3: the heuristic's gap to the optimum of (5)-(8), per stop rule.

    Parameters
    ----------
    gaps : pandas.DataFrame
        :func:`dlsched.optimus.checks.allocation_gap_sample` (columns ``stop_rule, gap, optimal``).

    Returns
    -------
    str
        Per stop rule: instances, share optimal, mean and largest gap; which rule is worse on
        average.
    """
    require_columns(gaps, ["stop_rule", "gap", "optimal"], "allocation_gap_reading")
    g = gaps.groupby("stop_rule", sort=True)
    stats = pd.DataFrame(
        {
            "n": g.size(),
            "optimal": g["optimal"].mean(),
            "mean_gap": g["gap"].mean(),
            "max_gap": g["gap"].max(),
        }
    )
    lines = [
        f"{rule}: {int(r['n'])} instances, optimal on {_pct(r['optimal'])}, mean gap {_pct(r['mean_gap'])}, "
        f"largest {_pct(r['max_gap'])}."
        for rule, r in stats.iterrows()
    ]
    if len(stats) > 1:
        worst = stats["mean_gap"].idxmax()
        lines.append(f"Worse on average: {worst}.")
    return "\n".join(lines)


def paa_reading(block_sizes: Sequence[float], assignment: Any, eps: float = 0.01) -> str:
    """Section 5: why PAA's size difference is large for few PS (very small blocks go by requests).

    Parameters
    ----------
    block_sizes : sequence of float
        The model's blocks (e.g. :func:`dlsched.optimus.paa.resnet50_blocks`).
    assignment : dlsched.optimus.paa.Assignment
        PAA's assignment of those blocks.
    eps : float, default 0.01
        PAA's very-small threshold used for ``assignment``.

    Returns
    -------
    str
        The size difference; the number and total size of the very small blocks; per PS, the
        blocks and parameters it got before the very small ones and the very small parameters it
        received.
    """
    sizes = np.asarray(block_sizes, dtype=float)
    n_ps = int(assignment.n_ps)
    avg = sizes.sum() / n_ps
    small = sizes < eps * avg
    before_n, before_s, small_s = np.zeros(n_ps, int), np.zeros(n_ps), np.zeros(n_ps)
    for block, ps, size in assignment.parts:
        if small[block]:
            small_s[ps] += size
        else:
            before_n[ps] += 1
            before_s[ps] += size
    per_ps = "; ".join(
        f"PS {k}: {before_n[k]} blocks of {before_s[k] / 1e6:.2f}M, "
        f"then {small_s[k] / 1e6:.2f}M in very small blocks"
        for k in range(n_ps)
    )
    return (
        f"{n_ps} PS: size difference {assignment.size_difference / 1e6:.2f}M parameters. "
        f"{int(small.sum())} very small blocks (below {eps:g} of avg_size), {sizes[small].sum() / 1e6:.2f}M "
        f"parameters in all.\n{per_ps}."
    )


def table3_reading(
    table3: pd.DataFrame, mxnet: pd.DataFrame, paper_size: float = 3.6e6, paper_requests: int = 43
) -> str:
    """Table 3: ours against the paper's MXNet row, under both readings of MXNet's default.

    Parameters
    ----------
    table3 : pandas.DataFrame
        :func:`dlsched.optimus.checks.table3_comparison` (index: quantity).
    mxnet : pandas.DataFrame
        :func:`dlsched.optimus.checks.mxnet_sample` (columns ``size_difference,
        request_difference``).
    paper_size, paper_requests : float, int
        The paper's MXNet size (parameters) and request differences.

    Returns
    -------
    str
    """
    require_columns(mxnet, ["size_difference", "request_difference"], "table3_reading")
    size, req = "size difference (M params)", "request difference"
    t = table3
    return (
        f"PAA: size difference {t.loc[size, 'ours PAA']:.2f}M, "
        f"request difference {t.loc[req, 'ours PAA']:.0f}, "
        f"{t.loc['total requests', 'ours PAA']:.0f} requests; "
        f"MXNet {t.loc['total requests', 'MXNet random mean']:.0f} "
        f"requests.\n"
        f"MXNet random over {len(mxnet)} seeds: size difference {t.loc[size, 'MXNet random mean']:.2f}M and "
        f"request difference {t.loc[req, 'MXNet random mean']:.1f} on average, request difference at most "
        f"{int(mxnet['request_difference'].max())}; size difference >= {paper_size / 1e6:g}M on "
        f"{int((mxnet['size_difference'] >= paper_size).sum())} seeds, request difference >= "
        f"{paper_requests} on {int((mxnet['request_difference'] >= paper_requests).sum())}.\n"
        f"MXNet key hash: size difference {t.loc[size, 'MXNet key hash']:.2f}M, request difference "
        f"{t.loc[req, 'MXNet key hash']:.0f}."
    )


# ------------------------------------------------------------------------------ notebook 22


def fig11_table(totals: pd.DataFrame, paper: Mapping[str, float]) -> pd.DataFrame:
    """Figs. 11/13: speed-ups over DRF, makespans, and the ranking of the three schemes.

    Parameters
    ----------
    totals : pandas.DataFrame
        :func:`dlsched.optimus.experiments.run_totals` by ``["scheme", "seed"]`` of optimus, drf
        and tetris.
    paper : mapping
        ``PAPER["fig11"]`` of :mod:`dlsched.optimus.experiments`.

    Returns
    -------
    pandas.DataFrame
        :data:`CARD_COLUMNS`. The makespans in hours are settings (``-``): our workload's
        dataset sizes were calibrated to a makespan of the paper's order; the speed-ups and the
        ranking are the claims.
    """
    require_columns(totals, ["scheme", "seed", "mean_jct_h", "makespan_h"], "fig11_table")
    m = totals.groupby("scheme")[["mean_jct_h", "makespan_h"]]
    mean, lo, hi = m.mean(), m.min(), m.max()
    jct = mean.loc["drf", "mean_jct_h"] / mean.loc["optimus", "mean_jct_h"]
    mk = mean.loc["drf", "makespan_h"] / mean.loc["optimus", "makespan_h"]
    rows = [
        (
            "mean JCT speed-up of Optimus over DRF",
            _x(paper["jct_speedup_vs_drf"]),
            _x(jct),
            gain_verdict(paper["jct_speedup_vs_drf"] - 1, jct - 1),
        ),
        (
            "makespan speed-up of Optimus over DRF",
            _x(paper["makespan_speedup_vs_drf"]),
            _x(mk),
            gain_verdict(paper["makespan_speedup_vs_drf"] - 1, mk - 1),
        ),
    ]
    for s in ("optimus", "drf", "tetris"):
        rows.append(
            (
                f"makespan of {s} (h; mean, seed range)",
                f"{paper[f'makespan_h_{s}']:.1f}",
                f"{mean.loc[s, 'makespan_h']:.1f} "
                f"({lo.loc[s, 'makespan_h']:.1f}-{hi.loc[s, 'makespan_h']:.1f})",
                "-",
            )
        )
    best = [mean["mean_jct_h"].idxmin() == "optimus", mean["makespan_h"].idxmin() == "optimus"]
    rows.append(
        (
            "Optimus has the lowest mean JCT and makespan",
            PAPER_TEXT["fig11_best"],
            "JCT " + ("yes" if best[0] else "no") + ", makespan " + ("yes" if best[1] else "no"),
            _statement(best),
        )
    )
    below = bool(mean.loc["tetris", "makespan_h"] < mean.loc["drf", "makespan_h"])
    rows.append(
        (
            "Tetris's makespan below DRF's",
            PAPER_TEXT["fig11_tetris"],
            f"{'yes' if below else 'no'} ({mean.loc['tetris', 'makespan_h']:.1f} vs "
            f"{mean.loc['drf', 'makespan_h']:.1f} h)",
            "yes" if below else "no",
        )
    )
    return _table("Figs. 11/13", rows)


def fig11_reading(totals: pd.DataFrame) -> str:
    """Figs. 11/13 in words: speed-ups over DRF and each scheme's makespan over the seeds.

    Parameters
    ----------
    totals : pandas.DataFrame
        As :func:`fig11_table`.

    Returns
    -------
    str
    """
    require_columns(totals, ["scheme", "seed", "mean_jct_h", "makespan_h"], "fig11_reading")
    m = totals.groupby("scheme")[["mean_jct_h", "makespan_h"]]
    mean, lo, hi = m.mean(), m.min(), m.max()
    n = totals["seed"].nunique()
    jct = mean.loc["drf", "mean_jct_h"] / mean.loc["optimus", "mean_jct_h"]
    mk = mean.loc["drf", "makespan_h"] / mean.loc["optimus", "makespan_h"]
    spans = "; ".join(
        f"{s} {mean.loc[s, 'makespan_h']:.1f} h ({lo.loc[s, 'makespan_h']:.1f}-{hi.loc[s, 'makespan_h']:.1f})"
        for s in mean.sort_values("makespan_h").index
    )
    return (
        f"Speed-up of Optimus over DRF (means over {n} seeds): {_x(jct)} in mean JCT, {_x(mk)} in makespan.\n"
        f"Makespan, mean over seeds (seed range), shortest first: {spans}.\n"
        f"Worst scheme by mean JCT: {mean['mean_jct_h'].idxmax()}; "
        f"by makespan: {mean['makespan_h'].idxmax()}."
    )


def tetris_reading(timeline_stats: pd.DataFrame, profile: pd.DataFrame) -> str:
    """Why Tetris is slow here: few jobs at a time, many tasks each, others waiting.

    Parameters
    ----------
    timeline_stats : pandas.DataFrame
        :func:`dlsched.optimus.experiments.timeline_stats` (index: scheme; ``running_jobs``,
        ``running_tasks``, ``cpu_share``).
    profile : pandas.DataFrame
        :func:`dlsched.optimus.experiments.task_profile` (index: scheme; ``mean_workers``,
        ``max_tasks``, ``idle_h``).

    Returns
    -------
    str
    """
    ts, pr = _by_scheme(timeline_stats, "timeline"), _by_scheme(profile, "profile")
    jobs = ", ".join(f"{s} {ts.loc[s, 'running_jobs']:.1f}" for s in ts.index)
    return (
        f"Jobs running at a time (mean over the Fig. 14 run): {jobs}.\n"
        f"Tetris: {pr.loc['tetris', 'mean_workers']:.1f} bundles per running job on average, "
        f"{pr.loc['tetris', 'max_tasks']:.0f} tasks at most per job (mean), "
        f"{pr.loc['tetris', 'idle_h']:.2f} h per job without tasks; CPU allocated "
        f"{_pct(ts.loc['tetris', 'cpu_share'])} of the cluster on average."
    )


def fig14_table(timeline_stats: pd.DataFrame) -> pd.DataFrame:
    """Fig. 14: Optimus runs fewer tasks than DRF; CPU utilisation is not comparable.

    Parameters
    ----------
    timeline_stats : pandas.DataFrame
        :func:`dlsched.optimus.experiments.timeline_stats` (index: scheme).

    Returns
    -------
    pandas.DataFrame
        :data:`CARD_COLUMNS`.
    """
    ts = _by_scheme(timeline_stats, "timeline")
    o, d = ts.loc["optimus", "running_tasks"], ts.loc["drf", "running_tasks"]
    fewer = bool(o < d)
    rows = [
        (
            "Optimus runs fewer tasks than DRF (mean running tasks)",
            PAPER_TEXT["fig14_tasks"],
            f"{'yes' if fewer else 'no'} ({o:.1f} vs {d:.1f})",
            "yes" if fewer else "no",
        ),
        (
            "normalised CPU utilisation (used / allocated)",
            PAPER_TEXT["fig14_cpu"],
            "not modelled (allocated CPU only)",
            "-",
        ),
    ]
    return _table("Fig. 14", rows)


def fig14_reading(timeline_stats: pd.DataFrame, profile: pd.DataFrame) -> str:
    """Fig. 14 in words: running tasks, PS per worker and allocated CPU per scheme."""
    ts, pr = _by_scheme(timeline_stats, "timeline"), _by_scheme(profile, "profile")
    tasks = ", ".join(f"{s} {ts.loc[s, 'running_tasks']:.1f}" for s in ts.index)
    cpu = ", ".join(f"{s} {_pct(ts.loc[s, 'cpu_share'])}" for s in ts.index)
    ppw = ", ".join(f"{s} {pr.loc[s, 'ps_per_worker']:.2f}" for s in pr.index)
    return (
        f"Mean running tasks: {tasks}.\nPS per worker (mean over jobs): {ppw}.\n"
        f"Allocated CPU (mean share of the cluster): {cpu}."
    )


def _gap_at(gaps: pd.DataFrame, conv: float, speed: float) -> pd.Series:
    hit = gaps[
        (gaps["convergence_error"] - conv).abs().lt(1e-12) & (gaps["speed_error"] - speed).abs().lt(1e-12)
    ]
    if hit.empty:
        raise ValueError(f"no run with convergence_error={conv}, speed_error={speed}")
    return hit.iloc[0]


def fig15_table(gaps: pd.DataFrame, paper: Mapping[str, float]) -> pd.DataFrame:
    """Fig. 15: the cost of prediction errors, and whether speed errors cost more.

    A gap (mean JCT / error-free - 1) counts only above two standard errors of its seed-to-seed
    spread (``jct_ratio_std / sqrt(runs)``). "Speed errors matter more" is judged at the largest
    level both kinds were run at: the speed-error gap must exceed the convergence-error gap by
    two standard errors of the difference.

    Parameters
    ----------
    gaps : pandas.DataFrame
        :func:`dlsched.optimus.experiments.error_gaps`.
    paper : mapping
        ``PAPER["fig15"]`` (``convergence_error``, ``speed_error``, ``jct_gap``).

    Returns
    -------
    pandas.DataFrame
        :data:`CARD_COLUMNS`.
    """
    require_columns(
        gaps, ["convergence_error", "speed_error", "runs", "jct_ratio", "jct_ratio_std"], "fig15_table"
    )
    both = _gap_at(gaps, paper["convergence_error"], paper["speed_error"])
    g, noise = both["jct_ratio"] - 1, 2 * _se(both["jct_ratio_std"], both["runs"])
    conv_levels = set(gaps.loc[gaps["speed_error"] == 0, "convergence_error"])
    speed_levels = set(gaps.loc[gaps["convergence_error"] == 0, "speed_error"])
    level = max((conv_levels & speed_levels) - {0.0})
    c, s = _gap_at(gaps, level, 0.0), _gap_at(gaps, 0.0, level)
    diff = s["jct_ratio"] - c["jct_ratio"]
    diff_noise = 2 * math.hypot(_se(c["jct_ratio_std"], c["runs"]), _se(s["jct_ratio_std"], s["runs"]))
    more = bool(diff > diff_noise)
    rows = [
        (
            f"JCT gap, {paper['convergence_error']:.0%} convergence + {paper['speed_error']:.0%} speed error",
            _pct(paper["jct_gap"], True),
            f"{_pct(g, True)} (noise {_pct(noise)})",
            gain_verdict(paper["jct_gap"], g, noise=noise),
        ),
        (
            f"speed errors cost more than convergence errors ({level:.0%} each)",
            PAPER_TEXT["fig15_speed"],
            f"{'yes' if more else 'no'} "
            f"({_pct(s['jct_ratio'] - 1, True)} vs {_pct(c['jct_ratio'] - 1, True)})",
            "yes" if more else "no",
        ),
    ]
    return _table("Fig. 15", rows)


def fig15_reading(gaps: pd.DataFrame) -> str:
    """Fig. 15 in words: the largest deviation from the error-free mean JCT and the seed noise."""
    require_columns(gaps, ["convergence_error", "speed_error", "jct_ratio", "jct_ratio_std"], "fig15_reading")
    dev = gaps["jct_ratio"] - 1
    i = dev.abs().idxmax()
    r = gaps.loc[i]
    return (
        f"Mean JCT with errors / error-free: {_span(gaps['jct_ratio'], '.3f')} over all error levels; "
        f"largest deviation {_pct(dev[i], True)} (convergence {r['convergence_error']:.0%}, speed "
        f"{r['speed_error']:.0%}); seed-to-seed std of the ratio up to {_pct(gaps['jct_ratio_std'].max())}."
    )


def _vs(v: pd.DataFrame, key: str, value: str, scheme: str, col: str) -> float:
    return float(v.loc[(v[key] == value) & (v["scheme"] == scheme), col].iloc[0])


def fig16_table(v16: pd.DataFrame) -> pd.DataFrame:
    """Fig. 16: Optimus beats DRF and Tetris with all-sync and all-async jobs, more so with sync.

    Parameters
    ----------
    v16 : pandas.DataFrame
        :func:`dlsched.optimus.experiments.versus` against ``drf`` by ``mode``.

    Returns
    -------
    pandas.DataFrame
        :data:`CARD_COLUMNS`.
    """
    require_columns(v16, ["mode", "scheme", "mean_jct_h", "jct_speedup"], "fig16_table")
    sp = {m: _vs(v16, "mode", m, "optimus", "jct_speedup") for m in ("sync", "async")}
    tetris = {
        m: _vs(v16, "mode", m, "optimus", "mean_jct_h") < _vs(v16, "mode", m, "tetris", "mean_jct_h")
        for m in ("sync", "async")
    }
    rows = [
        (
            f"Optimus beats DRF in mean JCT, all {m}",
            PAPER_TEXT["fig16_beats"],
            _x(sp[m]),
            "yes" if sp[m] > 1 else "no",
        )
        for m in ("sync", "async")
    ]
    rows.append(
        (
            "Optimus beats Tetris in mean JCT, both modes",
            PAPER_TEXT["fig16_beats"],
            ", ".join(f"{m} {'yes' if t else 'no'}" for m, t in tetris.items()),
            _statement(list(tetris.values())),
        )
    )
    rows.append(
        (
            "gain over DRF larger with sync than async",
            PAPER_TEXT["fig16_sync"],
            f"{'yes' if sp['sync'] > sp['async'] else 'no'} ({_x(sp['sync'])} vs {_x(sp['async'])})",
            "yes" if sp["sync"] > sp["async"] else "no",
        )
    )
    return _table("Fig. 16", rows)


def fig16_reading(v16: pd.DataFrame) -> str:
    """Fig. 16 in words: Optimus's speed-ups over DRF per mode and the slowest scheme per mode."""
    require_columns(
        v16,
        ["mode", "scheme", "mean_jct_h", "makespan_h", "jct_speedup", "makespan_speedup"],
        "fig16_reading",
    )
    parts = []
    for m in ("sync", "async"):
        g = v16[v16["mode"] == m].set_index("scheme")
        parts.append(
            f"all {m}: Optimus over DRF {_x(g.loc['optimus', 'jct_speedup'])} in JCT and "
            f"{_x(g.loc['optimus', 'makespan_speedup'])} in makespan; "
            f"slowest scheme {g['mean_jct_h'].idxmax()}"
        )
    longer = [
        s
        for s in v16["scheme"].unique()
        if _vs(v16, "mode", "sync", s, "makespan_h") > _vs(v16, "mode", "async", s, "makespan_h")
    ]
    return (
        "; ".join(parts) + ".\n"
        f"Makespan longer all-sync than all-async for {len(longer)} of {v16['scheme'].nunique()} schemes."
    )


def fig17_table(v17: pd.DataFrame) -> pd.DataFrame:
    """Fig. 17: Optimus beats DRF under Poisson and Google-trace arrivals, more so under the trace.

    Parameters
    ----------
    v17 : pandas.DataFrame
        :func:`dlsched.optimus.experiments.versus` against ``drf`` by ``arrivals``.

    Returns
    -------
    pandas.DataFrame
        :data:`CARD_COLUMNS`.
    """
    require_columns(v17, ["arrivals", "scheme", "jct_speedup", "makespan_speedup"], "fig17_table")
    sp = {
        (a, c): _vs(v17, "arrivals", a, "optimus", c)
        for a in ("poisson", "google")
        for c in ("jct_speedup", "makespan_speedup")
    }
    rows = [
        (
            f"Optimus beats DRF in mean JCT, {a} arrivals",
            PAPER_TEXT["fig17_beats"],
            _x(sp[(a, "jct_speedup")]),
            "yes" if sp[(a, "jct_speedup")] > 1 else "no",
        )
        for a in ("poisson", "google")
    ]
    flags = [sp[("google", c)] > sp[("poisson", c)] for c in ("jct_speedup", "makespan_speedup")]
    rows.append(
        (
            "gain larger under the Google trace (JCT, makespan)",
            PAPER_TEXT["fig17_google"],
            f"JCT {'yes' if flags[0] else 'no'}, makespan {'yes' if flags[1] else 'no'}",
            _statement(flags),
        )
    )
    return _table("Fig. 17", rows)


def fig17_reading(v17: pd.DataFrame, jobs: pd.DataFrame) -> str:
    """Fig. 17 in words: speed-ups per arrival process and how long the arrivals are spread.

    Parameters
    ----------
    v17 : pandas.DataFrame
        As :func:`fig17_table`.
    jobs : pandas.DataFrame
        The per-job rows of the Fig. 17 sweep (``arrivals, seed, arrival_h``).

    Returns
    -------
    str
    """
    require_columns(jobs, ["arrivals", "seed", "arrival_h"], "fig17_reading")
    parts = [
        f"{a}: {_x(_vs(v17, 'arrivals', a, 'optimus', 'jct_speedup'))} in JCT, "
        f"{_x(_vs(v17, 'arrivals', a, 'optimus', 'makespan_speedup'))} in makespan"
        for a in ("poisson", "google")
    ]
    spread = (
        jobs.groupby(["arrivals", "seed"])["arrival_h"]
        .agg(lambda s: s.max() - s.min())
        .groupby("arrivals")
        .mean()
    )
    return (
        "Optimus over DRF, " + "; ".join(parts) + ".\n"
        "First to last arrival (hours, mean over seeds): "
        + ", ".join(f"{a} {v:.1f}" for a, v in spread.items())
        + "."
    )


def fig18_table(v18: pd.DataFrame, paper: Mapping[str, float]) -> pd.DataFrame:
    """Fig. 18: how much Optimus's allocation cuts JCT and makespan against DRF's allocation.

    Parameters
    ----------
    v18 : pandas.DataFrame
        :func:`dlsched.optimus.experiments.versus` against ``drf_allocation`` (column or index
        ``scheme``).
    paper : mapping
        ``PAPER["fig18"]``.

    Returns
    -------
    pandas.DataFrame
        :data:`CARD_COLUMNS`.
    """
    v = _by_scheme(v18, "v18")
    rows = [
        (
            f"{what} reduction, Optimus vs DRF allocation",
            _pct(paper[f"{key}_reduction"]),
            _pct(v.loc["optimus", f"{key}_reduction"]),
            gain_verdict(paper[f"{key}_reduction"], v.loc["optimus", f"{key}_reduction"]),
        )
        for what, key in (("JCT", "jct"), ("makespan", "makespan"))
    ]
    return _table("Fig. 18", rows)


def fig18_reading(v18: pd.DataFrame) -> str:
    """Fig. 18 in words: the allocation's gain, and DRF allocation against the full DRF baseline."""
    v = _by_scheme(v18, "v18")
    text = (
        f"Optimus's allocation cuts mean JCT by {_pct(v.loc['optimus', 'jct_reduction'])} and makespan by "
        f"{_pct(v.loc['optimus', 'makespan_reduction'])} against DRF's allocation "
        "(both with Optimus's placement)."
    )
    if "drf" in v.index:
        text += (
            f"\nDRF allocation with Optimus's placement vs the DRF baseline: mean JCT "
            f"{v.loc['drf_allocation', 'mean_jct_h']:.2f} h vs {v.loc['drf', 'mean_jct_h']:.2f} h."
        )
    return text


_FIG19 = (
    ("JCT", "jct", "load_balance_placement", "gain_vs_load_balance", "load balance"),
    ("JCT", "jct", "best_fit_placement", "gain_vs_best_fit", "best fit"),
    ("makespan", "makespan", "load_balance_placement", "gain_vs_load_balance", "load balance"),
    ("makespan", "makespan", "best_fit_placement", "gain_vs_best_fit", "best fit"),
)


def fig19_table(v19: pd.DataFrame | None, paper: Mapping[str, float]) -> pd.DataFrame:
    """Fig. 19: how much better Theorem 1's placement is than load balancing and best fit.

    "Better by x" is ``1 - T_optimus / T_other`` (= ``1 - speed-up`` of the other scheme against
    optimus). The paper gives one number per alternative; we judge JCT and makespan against it.

    Parameters
    ----------
    v19 : pandas.DataFrame or None
        :func:`dlsched.optimus.experiments.versus` against ``optimus`` on the complete seeds;
        None when no seed finished every job under every placement (rows not judged).
    paper : mapping
        ``PAPER["fig19"]``.

    Returns
    -------
    pandas.DataFrame
        :data:`CARD_COLUMNS`.
    """
    rows = []
    v = None if v19 is None else _by_scheme(v19, "v19")
    for what, key, scheme, pkey, label in _FIG19:
        q = f"{what}: Optimus placement better than {label} by"
        if v is None:
            rows.append((q, _pct(paper[pkey]), "no complete seed", "-"))
            continue
        g = 1 - v.loc[scheme, f"{key}_speedup"]
        rows.append((q, _pct(paper[pkey]), _pct(g), gain_verdict(paper[pkey], g)))
    return _table("Fig. 19", rows)


def fig19_reading(v19: pd.DataFrame | None, v18: pd.DataFrame) -> str:
    """Fig. 19 in words: placement gains next to the allocation gain of Fig. 18."""
    if v19 is None:
        return "No seed finished every job under every placement: nothing to compare."
    v, a = _by_scheme(v19, "v19"), _by_scheme(v18, "v18")
    parts = [
        f"{what} {_pct(1 - v.loc[scheme, f'{key}_speedup'])} better than {label}"
        for what, key, scheme, _, label in _FIG19
    ]
    return (
        "Theorem 1's placement: " + ", ".join(parts) + ".\n"
        "For comparison, the allocation (Fig. 18) cuts mean JCT by "
        f"{_pct(a.loc['optimus', 'jct_reduction'])}."
    )


def table3_table(table3: pd.DataFrame) -> pd.DataFrame:
    """Table 3 with verdicts: :func:`dlsched.optimus.experiments.table3_comparison` (strings
    ``quantity, paper, ours``) judged by :func:`value_verdict`.

    Returns
    -------
    pandas.DataFrame
        :data:`CARD_COLUMNS`.
    """
    require_columns(table3, ["quantity", "paper", "ours"], "table3_table")
    rows = [
        (q, p, o, value_verdict(float(p), float(o)))
        for q, p, o in table3[["quantity", "paper", "ours"]].itertuples(index=False)
    ]
    return _table("Table 3", rows)


def gap_reading(profile: pd.DataFrame, speedups: pd.DataFrame) -> str:
    """ "Why our gap is smaller": DRF's bundles per job, the parallel efficiency there, and what
    Optimus saves.

    Parameters
    ----------
    profile : pandas.DataFrame
        :func:`dlsched.optimus.experiments.task_profile` of the Fig. 11 runs (index: scheme;
        ``mean_workers, ps_per_worker, cpu_core_hours``), with ``drf`` and ``optimus``.
    speedups : pandas.DataFrame
        :func:`dlsched.optimus.experiments.speedup_table` (``job_mode, n, efficiency``).

    Returns
    -------
    str
    """
    require_columns(speedups, ["job_mode", "n", "efficiency"], "gap_reading")
    pr = _by_scheme(profile, "profile")
    bundles = float(pr.loc["drf", "mean_workers"])
    ns = np.array(sorted(set(speedups["n"])))
    lo = int(ns[ns <= bundles].max()) if (ns <= bundles).any() else int(ns.min())
    hi = int(ns[ns >= bundles].min()) if (ns >= bundles).any() else int(ns.max())
    at = speedups[speedups["n"].isin([lo, hi])]
    eff = "; ".join(f"{m} {_span(at.loc[at['job_mode'] == m, 'efficiency'])}" for m in ("sync", "async"))
    top = int(ns.max())
    a_top = speedups[(speedups["n"] == top) & (speedups["job_mode"] == "async")]["efficiency"]
    s8 = speedups[(speedups["n"] == 8) & (speedups["job_mode"] == "sync")]["efficiency"]
    saved = 1 - pr.loc["optimus", "cpu_core_hours"] / pr.loc["drf", "cpu_core_hours"]
    lines = [
        f"DRF runs {bundles:.1f} bundles per running job on average; parallel efficiency at "
        f"{lo}-{hi} bundles: {eff}.",
        f"Optimus: {pr.loc['optimus', 'mean_workers']:.1f} workers per job and "
        f"{pr.loc['optimus', 'ps_per_worker']:.2f} PS per worker (DRF {pr.loc['drf', 'ps_per_worker']:.2f}); "
        f"{_pct(saved)} fewer CPU core-hours per job.",
        f"Async efficiency at {top} bundles: median {a_top.median():.2f} over job types "
        f"(range {_span(a_top)}).",
    ]
    if len(s8):
        lines.append(f"Sync efficiency at 8 bundles: {_span(s8)}.")
    return "\n".join(lines)


def scorecard(tables: Sequence[pd.DataFrame] | Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Every judged claim (``match`` other than ``-``) of the ``fig*_table`` outputs, in order.

    Parameters
    ----------
    tables : sequence or mapping of pandas.DataFrame
        Outputs of the ``fig*_table`` functions (for a mapping, its values).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`CARD_COLUMNS`, ``match`` in ``yes``/``partly``/``no``; a fresh index.

    Raises
    ------
    ValueError
        If a table lacks a column of :data:`CARD_COLUMNS` or has another ``match`` value.
    """
    frames = list(tables.values()) if isinstance(tables, Mapping) else list(tables)
    parts = []
    for t in frames:
        require_columns(t, list(CARD_COLUMNS), "scorecard")
        bad = sorted(set(t["match"]) - {"yes", "partly", "no", "-"})
        if bad:
            raise ValueError(f"scorecard: match values must be yes/partly/no/-, got {bad}")
        parts.append(t.loc[t["match"] != "-", list(CARD_COLUMNS)])
    if not parts:
        return pd.DataFrame(columns=list(CARD_COLUMNS))
    return pd.concat(parts, ignore_index=True)


def summary_reading(card: pd.DataFrame) -> str:
    """One sentence: how many judged claims the scorecard has, and how many of each verdict.

    Examples
    --------
    >>> summary_reading(pd.DataFrame({"match": ["yes", "no", "yes"]}))
    '3 claims judged: 2 yes, 0 partly, 1 no.'
    """
    require_columns(card, ["match"], "summary_reading")
    counts = card["match"].value_counts()
    parts = ", ".join(f"{int(counts.get(v, 0))} {v}" for v in ("yes", "partly", "no"))
    return f"{len(card)} claims judged: {parts}."

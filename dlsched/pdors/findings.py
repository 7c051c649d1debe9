r"""What the PD-ORS notebooks found, written out from their result tables.

M. Yu, J. Liu, C. Wu, B. Ji, E. S. Bentley, "Toward Efficient Online Scheduling for Distributed
Machine Learning Systems", IEEE TNSE (arXiv:2108.02917); ``shared/spec/pdors.md``.

The notebooks' markdown explains setups and mechanisms; every number this project measured is
printed by a function here, from the same tables the notebook prints, draws and judges, so prose,
tables, figures and the scorecard cannot disagree. The functions are pure: tables in, a string (or
a small table) out; they never compute an experiment.

==============================  =====================================================================
notebook, section               functions
==============================  =====================================================================
``30_pdors_model`` 1            :func:`fact1_reading`
``30_pdors_model`` 2            :func:`tau_reading`
``30_pdors_model`` 3            :func:`price_reading`
``30_pdors_model`` 4            :func:`decision_reading`, :func:`theta_reading`
``30_pdors_model`` 5            :func:`bandwidth_reading`
``30_pdors_model`` 6            :func:`small_run_reading`
``31_pdors_proofs`` 1, 6, 8     :func:`alpha_reading`, :func:`coverage_reading`, :func:`scale_reading`,
                                :func:`lemma_reading`
``31_pdors_proofs`` 9, 10       :func:`ratio_reading`, :func:`quantisation_reading`
``32_pdors_figures`` Figs. 6-7  :func:`fig6_reading`, :func:`fig7_reading`, :func:`readings_reading`
``32_pdors_figures`` Figs. 8-9  :func:`oasis_reading`
``32_pdors_figures`` Fig. 10    :func:`fig10_reading`
``32_pdors_figures`` summary    :func:`scorecard`, :func:`summary_reading`
==============================  =====================================================================

Numbers are rounded as in the tables (:func:`dlsched.core.comparison.number`: whole numbers from
100 on, else three significant digits); shares are printed in percent.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from dlsched.core.claims import Claim
from dlsched.core.comparison import number as _num
from dlsched.core.comparison import require_columns as _frame
from dlsched.fidelity import scorecard  # noqa: F401 - re-exported: notebook 32 calls it here
from dlsched.pdors import experiments as px

__all__ = [
    "alpha_reading",
    "bandwidth_reading",
    "coverage_reading",
    "decision_reading",
    "fact1_reading",
    "fig6_reading",
    "fig7_reading",
    "fig10_reading",
    "lemma_reading",
    "oasis_reading",
    "price_reading",
    "quantisation_reading",
    "ratio_reading",
    "readings_reading",
    "scale_reading",
    "scorecard",
    "small_run_reading",
    "summary_reading",
    "tau_reading",
    "theta_reading",
]

# ------------------------------------------------------------------------------- formatting


def _pct(share: float) -> str:
    """A share as a percentage: one decimal below 10 %, whole percents above."""
    v = 100.0 * float(share)
    if not math.isfinite(v):
        return "nan %"
    return f"{v:.1f} %" if abs(v) < 10 else f"{v:.0f} %"


def _signed(v: float) -> str:
    text = _num(v)
    return text if text.startswith("-") or not math.isfinite(float(v)) else "+" + text


def _span(values: Sequence[float] | pd.Series, fmt=_num) -> str:
    """``a-b`` (or ``a`` when all equal) over the finite values; ``a to b`` when one is negative."""
    arr = np.asarray(list(values), dtype=float)
    arr = arr[np.isfinite(arr)]
    if not len(arr):
        return "nan"
    lo, hi = fmt(arr.min()), fmt(arr.max())
    if lo == hi:
        return lo
    return f"{lo} to {hi}" if arr.min() < 0 else f"{lo}-{hi}"


def _listing(values: pd.Series, fmt=_num) -> str:
    """``1.2, 3.4, 5.6`` in the order of the series."""
    return ", ".join(fmt(v) for v in values)


def _pairs(values: pd.Series, fmt=_num, unit: str = "") -> str:
    """``10: 1.2, 30: 3.4`` (index: value)."""
    return ", ".join(f"{_key(k)}{unit}: {fmt(v)}" for k, v in values.items())


def _key(k: object) -> str:
    return (
        f"{int(k)}"
        if isinstance(k, (int, float, np.integer, np.floating)) and float(k).is_integer()
        else str(k)
    )


def _keys(values: Sequence[object]) -> str:
    return ", ".join(_key(k) for k in values)


def _label(policy: str) -> str:
    return px.LABELS.get(policy, policy)


def _count(k: int, n: int, noun: str) -> str:
    """``every <noun>`` / ``no <noun>`` / ``k of n <noun>s``."""
    if n > 0 and k == n:
        return f"every {noun}" if n > 1 else f"the one {noun}"
    if k == 0:
        return f"no {noun}"
    return f"{k} of {n} {noun}s"


def _seeds(totals: pd.DataFrame) -> int:
    return int(totals["seed"].nunique()) if "seed" in totals.columns else 1


# ------------------------------------------------------------------------------- notebook 30


def fact1_reading(rates: pd.DataFrame) -> str:
    """Section 1 (Fact 1): how much faster the internal placement trains than the external ones.

    Parameters
    ----------
    rates : pandas.DataFrame
        :func:`dlsched.pdors.explain.rate_table` (columns ``case``, ``bandwidth``,
        ``samples_per_slot``).

    Returns
    -------
    str
    """
    _frame(rates, ["case", "bandwidth", "samples_per_slot"], "fact1_reading")
    inside = rates[rates["bandwidth"] == "internal"]
    outside = rates[rates["bandwidth"] == "external"]
    if inside.empty or outside.empty:
        return "The placements do not include both an internal and an external case."
    speed = float(inside["samples_per_slot"].max()) / float(outside["samples_per_slot"].max())
    cases = ", ".join(inside["case"].str.split(" ").str[0])
    return (
        f"Only {cases} trains at the internal bandwidth, {_num(speed)} times as many samples per slot as "
        f"the fastest external case ({len(outside)} of the {len(rates)} placements are external)."
    )


def tau_reading(
    durations: pd.DataFrame,
    offered: Mapping[str, pd.Series],
    runs: pd.DataFrame,
    *,
    horizon: int,
    n_jobs: int,
    paper_top: float,
) -> str:
    r"""Section 2: the two readings of :math:`\tau_i` side by side, and why "seconds" is the default.

    Parameters
    ----------
    durations : pandas.DataFrame
        :func:`dlsched.pdors.explain.duration_summary` (index: reading; ``within_T<horizon>``).
    offered : Mapping[str, pandas.Series]
        Reading -> ``offered_work(...)["ratio"]`` (demand over capacity per resource).
    runs : pandas.DataFrame
        PD-ORS runs per ``reading`` and ``seed``: ``finishable``, ``admitted``, ``finished``,
        ``total_utility``.
    horizon, n_jobs : int
        :math:`T` and the jobs per run of ``runs``.
    paper_top : float
        The top of the paper's Fig. 7 y axis.

    Returns
    -------
    str
        One sentence per reading, then how "seconds" compares with the paper's axis.
    """
    _frame(runs, ["reading", "finishable", "admitted", "finished", "total_utility"], "tau_reading")
    col = f"within_T{int(horizon)}"
    lines = []
    for reading in sorted(set(runs["reading"]), key=lambda r: (r != "slots", r)):
        part = runs[runs["reading"] == reading]
        u = part["total_utility"]
        seeds = f"{len(part)} seed(s)" + (f", {_span(u)}" if len(part) > 1 else "")
        ratio = offered.get(reading)
        most = float(ratio.max()) if ratio is not None else math.nan
        can = (
            f"the cluster can do at most {_pct(min(1.0, 1.0 / most))} of the offered work"
            if most > 1
            else (f"the jobs' offered work is {_pct(most)} of the busiest resource's capacity")
        )
        late = (
            1.0 - float(durations.loc[reading, col])
            if col in durations.columns and reading in durations.index
            else math.nan
        )
        lines.append(
            f'"{reading}": {can} within T={horizon}; {_pct(late)} of the jobs cannot finish by T even alone; '
            f"PD-ORS admits {_num(part['admitted'].mean())} and finishes {_num(part['finished'].mean())} of "
            f"{n_jobs} jobs ({_num(part['finishable'].mean())} could finish at all) for a total utility of "
            f"{_num(u.mean())} (mean over {seeds})."
        )
    if {"seconds", "slots"} <= set(runs["reading"]):
        sec = float(runs.loc[runs["reading"] == "seconds", "total_utility"].mean())
        lit = float(runs.loc[runs["reading"] == "slots", "total_utility"].mean())
        lines.append(
            f'The paper\'s Fig. 7 axis reaches ~{_num(paper_top)} at {n_jobs} jobs: "seconds" earns '
            f"{_num(sec / paper_top)} times that, the literal reading {_num(lit / paper_top)} times "
            f'("seconds" / "slots" = {_num(sec / lit) if lit > 0 else "inf"}).'
        )
    return "\n".join(lines)


def price_reading(prices: pd.DataFrame, lower: float) -> str:
    """Section 3: the size of :math:`L` and where a price reaches 1.

    Parameters
    ----------
    prices : pandas.DataFrame
        :func:`dlsched.pdors.explain.price_summary` (column ``rho_at_1``, index: resource).
    lower : float
        :math:`L` of (14).

    Returns
    -------
    str
    """
    _frame(prices, ["rho_at_1"], "price_reading")
    at1 = prices["rho_at_1"].dropna()
    where = (
        f"only at {_span(100 * at1, lambda v: f'{v:.0f}')} % utilisation (rho_at_1 of {', '.join(at1.index)})"
        if len(at1)
        else "at no utilisation"
    )
    return (
        f"L is about 10^{math.floor(math.log10(lower)) if lower > 0 else 'nan'}; a price reaches 1 {where}."
    )


def decision_reading(payoff: pd.DataFrame, schedule: pd.DataFrame, *, arrival: int, d_min: int) -> str:
    r"""Section 4: Algorithm 2's choice of completion slot for the probe job.

    Parameters
    ----------
    payoff : pandas.DataFrame
        :func:`dlsched.pdors.explain.completion_frame` (``completion``, ``cost``, ``utility``,
        ``chosen``).
    schedule : pandas.DataFrame
        :func:`dlsched.pdors.explain.schedule_table` of the chosen schedule.
    arrival, d_min : int
        The job's arrival slot and :math:`d_i^{min}`.

    Returns
    -------
    str
    """
    _frame(payoff, ["completion", "cost", "utility", "chosen"], "decision_reading")
    ok = payoff[np.isfinite(payoff["cost"].to_numpy(float))]
    if ok.empty:
        return "No completion slot has a finite cost: no schedule finishes the job by T."
    first = int(ok["completion"].min())
    chosen = payoff.loc[payoff["chosen"], "completion"]
    pick = int(chosen.iloc[0]) if len(chosen) else None
    costs = ok["cost"].to_numpy(float)
    flat = bool(costs.max() <= costs.min() * 1.01 + 1e-300)
    exp = math.floor(math.log10(float(np.median(costs)))) if np.median(costs) > 0 else None
    cost_text = (
        (
            f"from there on the cost stays about 10^{exp}"
            if flat
            else f"from there on the cost ranges {_span(costs, lambda v: f'{v:.2g}')}"
        )
        if exp is not None
        else ""
    )
    which = (
        ("the earliest feasible slot" if pick == first else f"slot {pick}") if pick is not None else "no slot"
    )
    slots = int(len(schedule))
    units = schedule["units"] if "units" in schedule else pd.Series(dtype=float)
    tasks = ""
    if len(schedule) and {"workers", "ps", "machines"} <= set(schedule.columns):
        w, s, m = (schedule[c].max() for c in ("workers", "ps", "machines"))
        tasks = (
            f" Its schedule runs at most {int(w)} worker(s) and {int(s)} PS on at most {int(m)} "
            f"machine(s) per slot ({_span(units)} units per slot)."
        )
    return (
        f"Before slot a_i+{first - arrival} no schedule finishes the job (infinite Theta); {cost_text}, "
        f"while the utility decays, and Algorithm 2 takes {which} "
        f"(a_i+{pick - arrival if pick is not None else '-'})."
        f" d_i^min is {d_min} slot(s), the schedule uses {slots}.{tasks}"
    )


def theta_reading(table: pd.DataFrame, detail: pd.DataFrame | None = None) -> str:
    r"""Section 4: how far each branch of Algorithm 4 reaches in one slot, and why the rounded
    external branch fails.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`dlsched.pdors.explain.theta_table` (``v``, ``internal``, ``lp``, ``external``).
    detail : pandas.DataFrame, optional
        :func:`dlsched.pdors.explain.external_detail` for one level (``share_floor``).

    Returns
    -------
    str
    """
    _frame(table, ["v", "internal", "lp", "external"], "theta_reading")

    def top(col: str) -> int:
        ok = table.loc[np.isfinite(table[col].to_numpy(float)) & (table["v"] > 0), "v"]
        return int(ok.max()) if len(ok) else 0

    both = table[
        np.isfinite(table["internal"].to_numpy(float))
        & np.isfinite(table["lp"].to_numpy(float))
        & (table["v"] > 0)
    ]
    cheaper = bool((both["internal"] <= both["lp"]).all()) if len(both) else False
    ext = top("external")
    text = (
        f"The internal branch is feasible up to {top('internal')} units, the LP relaxation of the external "
        f"case up to {top('lp')}, a feasible rounded external sample exists up to {ext} unit(s)"
        f"{' (none at any level)' if ext == 0 else ''}. Where both are finite the internal branch is "
        f"{'always' if cheaper else 'not always'} cheaper than even the LP bound."
    )
    if detail is not None and len(detail) and "share_floor" in detail.columns:
        over = int((detail["share_floor"] > 1 + 1e-9).sum())
        text += (
            f" In the level shown, the LP uses {len(detail)} machine(s); on {over} of them even the scaled "
            f"solution rounded down overflows the free capacity (share_floor > 1)"
            f"{', so no sample of (27)-(28) fits' if over else ''}."
        )
    return text


def bandwidth_reading(branches: pd.DataFrame, sweep: pd.DataFrame, *, reference: float) -> str:
    r"""Section 5: which branch wins as :math:`b^{(e)}` changes.

    Parameters
    ----------
    branches : pandas.DataFrame
        :func:`dlsched.pdors.explain.branch_summary` (index ``b_external``).
    sweep : pandas.DataFrame
        :func:`dlsched.pdors.explain.bandwidth_sweep` (``lp``, ``external``).
    reference : float
        Our default :math:`b^{(e)}` (Gbps).

    Returns
    -------
    str
    """
    _frame(
        branches,
        ["internal", "external", "vmax_internal", "vmax_lp", "vmax_external", "lp_over_internal"],
        "bandwidth_reading",
    )
    b = branches.index.to_numpy(float)
    lo, hi = float(b.min()), float(b.max())
    ref = float(reference) if reference in branches.index else lo
    row = branches.loc
    wins = branches["internal"] == branches["vmax_internal"]
    ext_at = branches.index[branches["external"] > 0]
    rounded = sweep[np.isfinite(sweep["external"].to_numpy(float)) & (sweep["lp"] > 0)]
    ratio = rounded["external"] / rounded["lp"]
    lines = [
        f"The internal branch reaches {_span(branches['vmax_internal'])} units at every bandwidth and wins "
        f"{'every level it can hold' if wins.all() else 'not every level it can hold'} at "
        f"{_count(int(wins.sum()), len(wins), 'bandwidth')}.",
        f"The LP relaxation of the external case costs {_num(row[lo, 'lp_over_internal'])} times "
        f"the internal "
        f"cost at {_num(lo)} Gbps, {_num(row[ref, 'lp_over_internal'])} at {_num(ref)} Gbps and "
        f"{_num(row[hi, 'lp_over_internal'])} at {_num(hi)} Gbps (median over levels).",
        f"What one slot can take through the LP: {_num(row[ref, 'vmax_lp'])} units at {_num(ref)} Gbps, "
        f"{_num(row[hi, 'vmax_lp'])} at {_num(hi)} Gbps; through a feasible rounded sample only "
        f"{_num(row[ref, 'vmax_external'])} and {_num(row[hi, 'vmax_external'])}.",
        (
            f"The external branch wins {int(branches.loc[ext_at, 'external'].sum())} level(s), all at "
            f"{_keys(ext_at)} Gbps."
            if len(ext_at)
            else "The external branch wins no level at any bandwidth."
        ),
    ]
    if len(ratio):
        lines.append(f"Where a rounded sample is feasible it costs {_span(ratio)} times LP*.")
    return "\n".join(lines)


def small_run_reading(
    jobs: pd.DataFrame, timeline: pd.DataFrame, alone: pd.DataFrame, usage: pd.DataFrame
) -> str:
    """Section 6: what happened in the small PD-ORS run.

    Parameters
    ----------
    jobs : pandas.DataFrame
        The run's job table (``status``, ``admitted``, ``planned_completion``,
        ``completion_time``, ``payoff``).
    timeline : pandas.DataFrame
        :func:`dlsched.pdors.explain.colocation_timeline`.
    alone : pandas.DataFrame
        :func:`dlsched.pdors.explain.rejected_alone`.
    usage : pandas.DataFrame
        Utilisation per slot and resource (columns: resources).

    Returns
    -------
    str
    """
    _frame(
        jobs, ["status", "admitted", "planned_completion", "completion_time", "payoff"], "small_run_reading"
    )
    adm = jobs[jobs["admitted"].astype(bool)]
    fin = adm[adm["status"] == "finished"]
    on_time = fin[fin["completion_time"] <= fin["planned_completion"] + 1 + 1e-9]
    early = fin[fin["completion_time"] <= fin["planned_completion"] + 1e-9]
    rej = jobs[jobs["status"] == "rejected"]
    split = int(timeline["split"].sum()) if "split" in timeline else 0
    one = int(timeline["on_one_machine"].sum()) if "on_one_machine" in timeline else 0
    still = alone[alone["payoff_alone"] <= 0]
    lost = alone[alone["payoff_alone"] > 0]
    no_fit = still[(still["units_internal"] == 0) & (still["units_external"] == 0)]
    lines = [
        f"{len(fin)} of the {len(adm)} admitted jobs finished, {len(on_time)} of them by the end of "
        f"their planned "
        f"slot ({len(early)} in an earlier slot); {one} job-slots ran on one machine and {split} "
        f"were split over "
        f"machines.",
        f"The {len(rej)} rejected jobs had payoff {_span(rej['payoff'])}. Decided again alone on "
        f"the empty cluster, "
        f"{len(still)} of them are still rejected"
        + (
            f", {len(no_fit)} because neither branch can place a single unit in their arrival slot "
            f"(gamma {_span(no_fit['gamma'])})"
            if len(no_fit)
            else ""
        )
        + (
            f"; {len(lost)} lost to the jobs before them (alone: payoff {_listing(lost['payoff_alone'])})."
            if len(lost)
            else "; none lost to the jobs before them."
        ),
    ]
    if "gpu" in usage.columns:
        lines.append(f"At most {_pct(float(usage['gpu'].max()))} of the GPUs are in use in any slot.")
    return "\n".join(lines)


# ------------------------------------------------------------------------------- notebook 31


def alpha_reading(prices: pd.DataFrame) -> str:
    r"""Section 1: the range of :math:`\ln(U^r/L)`, which is :math:`\alpha` of the reconstructed ratio.

    Parameters
    ----------
    prices : pandas.DataFrame
        Rows of ``price_sample`` (``family``, ``max_ln_U_over_L``).
    """
    _frame(prices, ["family", "max_ln_U_over_L"], "alpha_reading")
    parts = [f"{fam}: {_span(p['max_ln_U_over_L'])}" for fam, p in prices.groupby("family", sort=True)]
    return (
        f"ln(U^r/L) (alpha of the reconstructed competitive ratio) over the {len(prices)} instances: "
        f"{'; '.join(parts)}."
    )


def coverage_reading(cover: Mapping[str, Claim], *, delta: float) -> str:
    r"""Section 6: how (31R), (32R) and plain rounding cover (26), and what (31R) costs.

    Parameters
    ----------
    cover : Mapping[str, Claim]
        ``"31R"``, ``"32R"``, ``"plain"`` -> :func:`dlsched.pdors.paper.coverage_claim`.
    delta : float
    """
    lines = []
    for name, c in cover.items():
        d = c.details
        label = "plain rounding (scale 1)" if name == "plain" else f"G_delta of ({name})"
        lines.append(
            f"{label}: Pr[(26) violated] at most {_num(d['max_violation_rate'])} at any of "
            f"{d['levels']} levels "
            f"(pooled {_num(d['pooled_violation_rate'])}; delta = {_num(delta)}), above delta at "
            f"{d['levels_over_delta']}; mean cost {_num(d['mean_cost_over_lp'])} times LP*; "
            f"{_pct(d['pooled_feasible_rate'])} of the samples satisfy every constraint (24)-(26')."
        )
    return "\n".join(lines)


def scale_reading(scale: pd.DataFrame, *, delta: float) -> str:
    r"""Section 6, figure ``fig_pdors_31_rounding_scale``: where, between plain rounding and
    :math:`G_\delta`, the violation rate drops below :math:`\delta` and feasibility peaks.

    Parameters
    ----------
    scale : pandas.DataFrame
        Rows of ``coverage_by_scale`` (``fraction``, ``violation_rate``, ``feasible_rate``,
        ``cost_over_lp``).
    delta : float
    """
    _frame(scale, ["fraction", "violation_rate", "feasible_rate", "cost_over_lp"], "scale_reading")
    m = scale.groupby("fraction")[["violation_rate", "feasible_rate", "cost_over_lp"]].mean()
    below = m.index[m["violation_rate"] <= delta]
    first = float(below.min()) if len(below) else None
    peak = float(m["feasible_rate"].idxmax())
    top = float(m.index.max())
    start = (
        f"The mean violation rate of (26) is at most delta = {_num(delta)} from fraction {_num(first)} on "
        f"({_num(m.loc[first, 'violation_rate'])} there)"
        if first is not None
        else f"The mean violation rate of (26) never falls below delta = {_num(delta)}"
    )
    return (
        f"{start}; the share of samples satisfying every constraint is highest at fraction {_num(peak)} "
        f"({_pct(m.loc[peak, 'feasible_rate'])}). At fraction {_num(top)} (G_delta itself) it is "
        f"{_pct(m.loc[top, 'feasible_rate'])} and the mean cost is "
        f"{_num(m.loc[top, 'cost_over_lp'])} times LP*."
    )


def lemma_reading(runs: pd.DataFrame) -> str:
    """Sections 7-8: how often the Lemma-1 analogue fails.

    Parameters
    ----------
    runs : pandas.DataFrame
        Rows of ``run_sample`` (``family``, ``claim``, ``holds``, ``admissions``, ``violations``).
    """
    _frame(runs, ["family", "claim", "holds"], "lemma_reading")
    lemma = runs[runs["claim"].str.contains("Lemma-1", regex=False)]
    if lemma.empty or not {"admissions", "violations"} <= set(lemma.columns):
        return "No Lemma-1 rows."
    parts = []
    for fam, p in lemma.groupby("family", sort=True):
        parts.append(
            f"{fam}: {int(p['violations'].sum())} of {int(p['admissions'].sum())} admissions, "
            f"in {int((~p['holds'].astype(bool)).sum())} of {len(p)} runs"
        )
    return "The Lemma-1 analogue fails on " + "; ".join(parts) + "."


def _seed_list(seeds: Sequence[int], most: int = 10) -> str:
    """`` (seeds 1, 2, 3)``, the first ``most`` of them; empty for none."""
    if not seeds:
        return ""
    shown = ", ".join(map(str, seeds[:most])) + (", ..." if len(seeds) > most else "")
    return f" (seeds {shown})"


def ratio_reading(ratios: pd.DataFrame) -> str:
    r"""Section 9: OPT / PD-ORS per family, against the reconstructed :math:`2\alpha\rho`.

    Parameters
    ----------
    ratios : pandas.DataFrame
        Rows of ``ratio_run`` with ``family`` and ``seed`` (``ratio_best``, ``two_alpha_rho``,
        ``above_bound``, ``rho``, ``opt_ge_alg``, ``realized_above_opt``; ``lost_levels`` if present).
    """
    _frame(
        ratios,
        ["family", "seed", "ratio_best", "two_alpha_rho", "above_bound", "rho", "realized_above_opt"],
        "ratio_reading",
    )
    lines = []
    for fam, p in ratios.groupby("family", sort=False):
        r = p["ratio_best"].to_numpy(float)
        fin = r[np.isfinite(r)]
        inf_seeds = p.loc[np.isinf(r), "seed"].astype(int).tolist()
        text = (
            f"{fam} ({len(p)} instances): OPT/ALG median {_num(np.median(r))}, largest finite "
            f"{_num(fin.max()) if len(fin) else 'nan'}; within 2 % of OPT on {int((r <= 1.02).sum())}; "
            f"infinite (PD-ORS admits nothing, OPT > 0) on {len(inf_seeds)}"
            f"{_seed_list(inf_seeds)}; above 2 alpha rho "
            f"(at least {_num(p['two_alpha_rho'].min())}) on {int(p['above_bound'].astype(bool).sum())}; "
            f"rho up to {_num(p['rho'].max())}; realized utility above OPT on "
            f"{int(p['realized_above_opt'].astype(bool).sum())}"
        )
        if "lost_levels" in p.columns:
            text += f"; lost levels {int(p['lost_levels'].sum())} in total"
        lines.append(text + ".")
    return "\n".join(lines)


def quantisation_reading(relative: pd.DataFrame, *, default: int, tolerance: float = 0.01) -> str:
    """Section 10: how total utility moves with the DP's ``levels``, per family.

    Parameters
    ----------
    relative : pandas.DataFrame
        :func:`dlsched.pdors.checks.quantisation_relative` (``family``, ``levels``,
        ``relative_utility``).
    default : int
        The policy's default ``levels``.
    tolerance : float
        "Stops changing": within this share of the finest ``levels`` from there on.
    """
    _frame(relative, ["family", "levels", "relative_utility"], "quantisation_reading")
    lines = []
    for fam, p in relative.groupby("family", sort=True):
        p = p.sort_values("levels")
        off = (p["relative_utility"] - 1.0).abs().to_numpy()
        levels = p["levels"].to_numpy()
        settled = next((int(levels[i]) for i in range(len(levels) - 1) if (off[i:] <= tolerance).all()), None)
        at = dict(zip(levels, p["relative_utility"], strict=True))
        rest = p[p["levels"] > levels[0]]
        lines.append(
            f"{fam}: total utility relative to levels={int(levels.max())} is {_num(at[levels[0]])} "
            f"at the coarsest "
            f"levels={int(levels[0])}, {_span(rest['relative_utility'])} above it"
            + (
                f"; within {_pct(tolerance)} from levels={settled} on"
                if settled is not None
                else f"; from no coarser levels on does it stay within {_pct(tolerance)} of the finest"
            )
            + (f"; the default levels={default} gives {_num(at[default])}." if default in at else ".")
        )
    return "\n".join(lines)


# ------------------------------------------------------------------------------- notebook 32


def _u(totals: pd.DataFrame, x: str) -> pd.DataFrame:
    return px.mean_utility(totals, x)


def _best_baseline(u: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    base = u.drop(columns="pdors")
    return base.idxmax(axis=1), base.max(axis=1)


def _means(totals: pd.DataFrame, x: str) -> pd.DataFrame:
    cols = [c for c in ("jobs", "finishable", "admitted", "finished", "total_utility") if c in totals.columns]
    return totals.groupby([x, "policy"])[cols].mean()


def fig6_reading(totals: pd.DataFrame, x: str = "n_machines") -> str:
    """Reading Fig. 6: PD-ORS against the best baseline per machine count, and why.

    Parameters
    ----------
    totals : pandas.DataFrame
        :func:`dlsched.pdors.experiments.run_totals` of the Fig. 6 runs (``policy``, ``seed``,
        ``x``, ``jobs``, ``finishable``, ``admitted``, ``finished``, ``total_utility``).
    x : str
        The swept column.

    Returns
    -------
    str
    """
    _frame(
        totals, ["policy", x, "jobs", "finishable", "admitted", "finished", "total_utility"], "fig6_reading"
    )
    u = _u(totals, x)
    best, best_v = _best_baseline(u)
    ratio = u["pdors"] / best_v
    xs = list(u.index)
    m = _means(totals, x)
    wins = ratio > 1
    lines = [
        f"PD-ORS earns {_listing(u['pdors'])} on {_keys(xs)} machines (mean over {_seeds(totals)} "
        f"seed(s)); the best "
        f"baseline earns "
        + ", ".join(f"{_num(v)} ({_label(b)})" for v, b in zip(best_v, best, strict=True))
        + ".",
        (
            f"PD-ORS is the best scheme at every machine count, as the paper implies, by "
            f"{_num(ratio.iloc[0])}x on "
            f"{_key(xs[0])} machines and {_num(ratio.iloc[-1])}x on {_key(xs[-1])}."
            if wins.all()
            else f"PD-ORS is the best scheme at "
            f"{_count(int(wins.sum()), len(wins), 'machine count')} (not on "
            f"{_keys(ratio.index[~wins])} machines); PD-ORS / best baseline is {_pairs(ratio)}."
        ),
    ]
    for at in (xs[0], xs[-1]) if len(xs) > 1 else (xs[0],):
        part = m.loc[at]
        others = [p for p in part.index if p != "pdors"]
        lines.append(
            f"On {_key(at)} machines the baselines admit {_span(part.loc[others, 'admitted'])} of the "
            f"{_num(part['jobs'].max())} jobs and finish "
            + ", ".join(f"{_num(part.loc[p, 'finished'])} ({_label(p)})" for p in others)
            + f"; PD-ORS admits {_num(part.loc['pdors', 'admitted'])} (of the "
            f"{_num(part.loc['pdors', 'finishable'])}"
            f" that could finish at all) and finishes {_num(part.loc['pdors', 'finished'])}."
        )
    if len(xs) > 1:
        lines.append(
            f"PD-ORS / best baseline {'narrows' if ratio.iloc[-1] < ratio.iloc[0] else 'does not narrow'} "
            f"from {_num(ratio.iloc[0])} to {_num(ratio.iloc[-1])} as machines are added."
        )
        steps = np.diff(u["pdors"].to_numpy(float))
        if (steps < 0).any():
            i = int(np.argmin(steps))
            pdors = totals[totals["policy"] == "pdors"].groupby(x)["total_utility"]
            spread = (pdors.max() - pdors.min()).reindex(xs)
            drop = (
                f"PD-ORS's own curve is not monotone: {_num(u['pdors'].iloc[i])} on {_key(xs[i])} machines, "
                f"{_num(u['pdors'].iloc[i + 1])} on {_key(xs[i + 1])}"
            )
            if _seeds(totals) > 1:
                wide = max(spread.iloc[i], spread.iloc[i + 1]) > -steps[i]
                drop += (
                    f"; its seed-to-seed range there is {_num(spread.iloc[i])} and "
                    f"{_num(spread.iloc[i + 1])}, "
                    f"{'larger' if wide else 'smaller'} than that step"
                )
            lines.append(drop + ".")
        else:
            lines.append("PD-ORS's own curve rises with every machine count.")
    return "\n".join(lines)


def fig7_reading(
    totals: pd.DataFrame,
    missed: pd.DataFrame,
    *,
    other: str = "drf",
    axis_top: float = 1200.0,
    paper_size: tuple[int, int] = (50, 100),
) -> str:
    """Reading Fig. 7: PD-ORS against DRF and Dorm as jobs are added, the scale against the paper's
    axis, and the jobs PD-ORS loses.

    Parameters
    ----------
    totals : pandas.DataFrame
        :func:`dlsched.pdors.experiments.run_totals` of the Fig. 7 runs (``policy``, ``seed``,
        ``n_jobs``, ``n_machines``, ``total_utility``).
    missed : pandas.DataFrame
        :func:`dlsched.pdors.experiments.missed_jobs` of the runs (PD-ORS against ``other``).
    other : str
        The scheme of ``missed``.
    axis_top : float
        The top of the paper's y axis.
    paper_size : (int, int)
        Jobs and machines at which the paper's curve reaches its top.

    Returns
    -------
    str
    """
    _frame(totals, ["policy", "seed", "n_jobs", "total_utility"], "fig7_reading")
    _frame(missed, ["missed", "rejected", "other_utility", "gained"], "fig7_reading")
    u = _u(totals, "n_jobs")
    best, best_v = _best_baseline(u)
    ratio = u["pdors"] / best_v
    xs = list(u.index)
    wins = ratio > 1
    pdors = totals[totals["policy"] == "pdors"].groupby("n_jobs")["total_utility"]
    spread = (pdors.max() - pdors.min()).reindex(xs)
    inside = int(((u["pdors"] - best_v).abs() <= spread).sum())
    lines = [
        f"Mean total utility over {_seeds(totals)} seed(s) at {_keys(xs)} jobs: "
        + "; ".join(f"{_label(p)} {_listing(u[p])}" for p in reversed(u.columns))
        + ".",
        f"PD-ORS / best baseline is {_pairs(ratio)}: PD-ORS is the best scheme at "
        f"{_count(int(wins.sum()), len(wins), 'job count')}"
        + (f" (not at {_keys(ratio.index[~wins])} jobs)" if not wins.all() and wins.any() else "")
        + (
            f"; its difference to the best baseline is within PD-ORS's seed-to-seed range at "
            f"{inside} of {len(xs)}."
            if _seeds(totals) > 1
            else "."
        ),
    ]
    if {"finishable", "finished"} <= set(totals.columns):
        last = _means(totals, "n_jobs").loc[xs[-1]]
        lines.append(
            f"At {_key(xs[-1])} jobs, of the {_num(last['finishable'].max())} that could finish by T, "
            + ", ".join(
                f"{_label(p)} finishes {_num(last.loc[p, 'finished'])}"
                for p in reversed(u.columns)
                if p in last.index
            )
            + "."
        )
    steps = np.diff(u["pdors"].to_numpy(float))
    lines.append(
        "PD-ORS's total grows with every added batch of jobs, like the paper's curve."
        if (steps > 0).all()
        else "PD-ORS's total does not grow with every added batch of jobs."
    )
    machines = set(totals["n_machines"]) if "n_machines" in totals.columns else set()
    jobs, hosts = paper_size
    if jobs in u.index and machines == {hosts}:
        v = float(u.loc[jobs, "pdors"])
        lines.append(
            f"At {jobs} jobs on {hosts} machines PD-ORS earns {_num(v)}, {_pct(abs(v / axis_top - 1))} "
            f"{'above' if v > axis_top else 'below'} the top of the paper's y axis (~{_num(axis_top)})."
        )
    else:
        lines.append(
            f"These runs do not include the paper's {jobs} jobs on {hosts} machines, so the scale against "
            f"the paper's axis (~{_num(axis_top)}) is not judged."
        )
    lines.append(
        f"Per run, PD-ORS misses {_span(missed['missed'])} jobs that {_label(other)} finishes "
        f"({_span(missed['other_utility'])} of {_label(other)}'s utility per run), "
        + (
            "all of them"
            if np.allclose(missed["missed"], missed["rejected"])
            else f"{_span(missed['rejected'])} per run"
        )
        + f" rejected on arrival; it finishes {_span(missed['gained'])} jobs per run that "
        f"{_label(other)} does not."
    )
    return "\n".join(lines)


def readings_reading(
    table: pd.DataFrame, *, reference: str = "spec (default)", other: str = "DRF (for reference)"
) -> str:
    """What the two readings of Algorithm 4 cost (:data:`dlsched.pdors.experiments.READINGS`).

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`dlsched.pdors.experiments.readings_table` (``reading``, ``seeds``,
        ``total_utility``, ``admitted``, ``rejected``, ``vs_reference``).
    reference, other : str
        The spec's reading and the baseline row.

    Returns
    -------
    str
    """
    _frame(
        table,
        ["reading", "seeds", "total_utility", "admitted", "rejected", "vs_reference"],
        "readings_reading",
    )
    t = table.set_index("reading")
    ours = [r for r in t.index if r != other]
    lines = [
        f"Mean total utility over {int(t['seeds'].max())} seed(s): "
        + "; ".join(
            f"{r} {_num(t.loc[r, 'total_utility'])}"
            + ("" if r == reference else f" ({_num(t.loc[r, 'vs_reference'])}x)")
            for r in ours
        )
        + (f"; {other.split(' (')[0]} {_num(t.loc[other, 'total_utility'])}." if other in t.index else "."),
        "PD-ORS rejects "
        + "; ".join(f"{_num(t.loc[r, 'rejected'])} ({r})" for r in ours)
        + f" of the {_num(t.loc[reference, 'admitted'] + t.loc[reference, 'rejected'])} jobs.",
    ]
    if other in t.index and t.loc[other, "total_utility"] > 0:
        base = float(t.loc[other, "total_utility"])
        top = max(ours, key=lambda r: t.loc[r, "total_utility"])
        lines.append(
            f"Against {other.split(' (')[0]}: the spec's readings earn "
            f"{_num(t.loc[reference, 'total_utility'] / base)}x "
            f"its total, the best reading ({top}) {_num(t.loc[top, 'total_utility'] / base)}x."
        )
    return "\n".join(lines)


def oasis_reading(effects: pd.DataFrame, x: str, *, missed: pd.DataFrame | None = None) -> str:
    """Reading Figs. 8-9: PD-ORS against OASiS, split into machine sharing and the internal bus.

    Parameters
    ----------
    effects : pandas.DataFrame
        :func:`dlsched.pdors.experiments.colocation_effects` (index ``x``).
    x : str
        ``"n_jobs"`` (Fig. 8) or ``"n_machines"`` (Fig. 9).
    missed : pandas.DataFrame, optional
        :func:`dlsched.pdors.experiments.missed_jobs` of the ablation against OASiS; reported where
        machine sharing alone loses.

    Returns
    -------
    str
    """
    need = [
        "oasis_split",
        "pdors_nocoloc",
        "pdors",
        "pdors/oasis",
        "sharing",
        "internal_bus",
        "admitted oasis_split",
        "admitted pdors_nocoloc",
        "admitted pdors",
        "pdors internal share",
    ]
    _frame(effects, need, "oasis_reading")
    unit = {"n_jobs": "jobs", "n_machines": "machines"}.get(x, x)
    noun = {"n_jobs": "job count", "n_machines": "machine count"}.get(x, x)
    wins = effects["pdors"] > effects["oasis_split"]
    r = effects["pdors/oasis"]
    gap = (effects["pdors"] - effects["oasis_split"]).to_numpy(float)
    lines = [
        f"PD-ORS earns {_listing(effects['pdors'])} against OASiS's {_listing(effects['oasis_split'])} "
        f"({_keys(effects.index)} {unit}): {_span(r)} times as much, from {_num(r.iloc[0])} on "
        f"{_key(effects.index[0])} {unit} to {_num(r.iloc[-1])} on {_key(effects.index[-1])}; "
        f"PD-ORS is above OASiS at "
        f"{_count(int(wins.sum()), len(wins), noun)}"
        + (
            f", and the gap (PD-ORS minus OASiS) grows with the number of {unit}."
            if len(gap) > 1 and (np.diff(gap) > 0).all()
            else "."
        ),
        f"Machine sharing alone (PD-ORS w/o co-location minus OASiS): {_pairs(effects['sharing'], _signed)}; "
        f"the internal bus (PD-ORS minus the ablation): {_pairs(effects['internal_bus'], _signed)}.",
        f"PD-ORS admits {_span(effects['admitted pdors'])} jobs per run, OASiS "
        f"{_span(effects['admitted oasis_split'])}, "
        f"the ablation {_span(effects['admitted pdors_nocoloc'])}; "
        f"{_span(100 * effects['pdors internal share'], lambda v: f'{v:.0f}')} % of PD-ORS's "
        f"running job-slots have "
        f"the whole job on one machine.",
    ]
    bus = effects["internal_bus"] > effects["sharing"]
    lines.append(
        f"The internal bus is the larger part of the gain at {_count(int(bus.sum()), len(bus), noun)}."
    )
    if missed is not None:
        _frame(missed, ["missed", "rejected"], "oasis_reading")
        lose = effects.index[effects["sharing"] < 0]
        if len(lose):
            part = missed.reindex(lose)
            lines.append(
                f"Where machine sharing alone loses ({_keys(lose)} {unit}), PD-ORS without its "
                f"internal branch misses "
                f"{_span(part['missed'])} jobs per run that OASiS finishes, "
                + ("all" if np.allclose(part["missed"], part["rejected"]) else f"{_span(part['rejected'])}")
                + " of them rejected on arrival."
            )
        else:
            lines.append("Machine sharing alone never loses against OASiS here.")
    return "\n".join(lines)


def fig10_reading(per_run: pd.DataFrame, pooled: pd.DataFrame, *, min_finished: int = 3) -> str:
    """Reading Fig. 10: median training time per scheme, finished jobs, and JCT.

    The shortest scheme is chosen as :func:`dlsched.pdors.experiments.fig10_comparison` chooses
    it (the paper's schemes with at least ``min_finished`` finished jobs per run on average), so
    the sentence agrees with the scorecard.

    Parameters
    ----------
    per_run : pandas.DataFrame
        :func:`dlsched.pdors.experiments.training_times` by ``["policy", "seed"]``.
    pooled : pandas.DataFrame
        :func:`dlsched.pdors.experiments.training_times` by ``"policy"`` (pooled over seeds).
    min_finished : int
        As in ``fig10_comparison``.

    Returns
    -------
    str
    """
    _frame(per_run, ["policy", "finished", "median_training_time"], "fig10_reading")
    _frame(pooled, ["policy", "median_jct", "internal_share"], "fig10_reading")
    m = per_run.groupby("policy")[["median_training_time", "finished"]].mean()
    order = m["median_training_time"].sort_values(kind="stable")
    ranked = order[order.index.isin(px.PAPER_SCHEMES) & (m.loc[order.index, "finished"] >= min_finished)]
    p = pooled.set_index("policy")
    seeds = int(per_run["seed"].nunique()) if "seed" in per_run.columns else 1
    lines = [
        f"Median training time (mean over {seeds} seed(s) of each run's median, 1-hour slots): "
        + ", ".join(f"{_label(k)} {_num(v)}" for k, v in order.items())
        + ".",
        f"Shortest among the paper's schemes with at least {min_finished} finished jobs per run: "
        f"{_label(str(ranked.index[0])) if len(ranked) else 'none'}"
        + ("" if len(ranked) and ranked.index[0] == "pdors" else " (the paper's argument implies PD-ORS)")
        + ".",
    ]
    if "pdors" in p.index:
        lines.append(
            f"{_pct(p.loc['pdors', 'internal_share'])} of PD-ORS's finished jobs' running slots are on one "
            f"machine, at the internal bandwidth."
        )
    lines.append(
        "Finished jobs per run: "
        + ", ".join(f"{_label(k)} {_num(m.loc[k, 'finished'])}" for k in order.index)
        + "; the medians are over these (different) sets."
    )
    lines.append(
        "Median JCT (completion minus arrival, pooled over seeds): "
        + ", ".join(f"{_label(k)} {_num(p.loc[k, 'median_jct'])}" for k in order.index if k in p.index)
        + "."
    )
    return "\n".join(lines)


def summary_reading(card: pd.DataFrame) -> str:
    """The scorecard in a sentence: verdict counts and every claim not reproduced in full.

    Parameters
    ----------
    card : pandas.DataFrame
        :func:`scorecard` output.

    Returns
    -------
    str
    """
    _frame(card, ["figure", "quantity", "match"], "summary_reading")
    counts = card["match"].value_counts()
    head = (
        f"{len(card)} judged claims: "
        + ", ".join(f"{int(counts.get(v, 0))} {v}" for v in ("yes", "partly", "no"))
        + "."
    )
    rest = card[card["match"] != "yes"]
    if rest.empty:
        return head + " Every judged claim is reproduced."
    return (
        head
        + " Not reproduced in full: "
        + "; ".join(
            f"{f} {q} ({m})" for f, q, m in rest[["figure", "quantity", "match"]].itertuples(index=False)
        )
        + "."
    )

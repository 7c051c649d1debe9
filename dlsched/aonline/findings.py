r"""What the A_online notebooks measured, in words: sentences built from their result tables.

J. She, N. Wang, R. Zhou, C. Tian, "Online Scheduling of Machine Learning Jobs in Edge-Cloud
Networks", NaNA 2021; ``shared/spec/aonline.md``. No number this project measures is typed in a
notebook's markdown: the notebooks print these sentences from the tables of the run they just made
(paper mode: read from the results store), so the prose, the tables, the figures and the scorecard
come from the same data. Every function here is a pure function of result tables (those of
:mod:`dlsched.aonline.experiments`, :mod:`dlsched.aonline.explain`, :mod:`dlsched.aonline.checks`
and :mod:`dlsched.aonline.paper`) and returns a string or a small DataFrame.

=====================================  =================================================
notebook                               functions
=====================================  =================================================
``40_aonline_model``                   :func:`edge_servers_reading`, :func:`speed_reading`,
                                       :func:`delay_reading`, :func:`price_reading`,
                                       :func:`run_reading`, :func:`sharing_reading`,
                                       :func:`variants_reading`, :func:`share_threshold_reading`
``41_aonline_proofs``                  :func:`duals_reading`, :func:`cost_c_reading`,
                                       :func:`ratio_reading`
``42_aonline_figures``                 :func:`ranking_reading` (Figs. 3-4), :func:`fig5_reading`,
                                       :func:`fig6_reading`, :func:`preemptive_reading`
                                       (Figs. 7-10), :func:`slightly_better` (the verdict of
                                       Figs. 9-10), :func:`fig11_reading`,
                                       :func:`utilisation_reading` (Figs. 12-13),
                                       :func:`fig14_reading`, :func:`scorecard`,
                                       :func:`scorecard_reading`
=====================================  =================================================
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from dlsched.aonline import experiments as ax
from dlsched.core.comparison import require_columns as _frame
from dlsched.fidelity import scorecard  # noqa: F401 - re-exported: notebook 42 calls it here

__all__ = [
    "SLIGHT",
    "cost_c_reading",
    "delay_reading",
    "duals_reading",
    "edge_servers_reading",
    "fig5_reading",
    "fig6_reading",
    "fig11_reading",
    "fig14_reading",
    "preemptive_reading",
    "price_reading",
    "ranking_reading",
    "ratio_reading",
    "run_reading",
    "scorecard",
    "scorecard_reading",
    "share_threshold_reading",
    "sharing_reading",
    "slightly_better",
    "speed_reading",
    "utilisation_reading",
    "variants_reading",
]

SLIGHT = 0.10
"""Figs. 9-10, "slightly better": A_online's total at most this fraction below Preemptive's."""

_X = {"n_jobs": "J", "n_edge": "S", "F": "F", "gradient_mb": "k_j"}


# ------------------------------------------------------------------ formatting


def _num(v: float) -> str:
    """Whole numbers with thousands separators from 100 on, else three significant digits."""
    v = float(v)
    if not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    if abs(v) >= 1e7:
        return f"{v:.2g}"
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"


def _pct(share: float, *, sign: bool = False, unit: bool = True) -> str:
    """A share as a percentage: two significant digits below 1 %, one decimal below 10 %, none
    above; ``sign`` writes ``+`` before a positive value; ``unit=False`` leaves out the ``%``."""
    p = 100.0 * float(share)
    if not math.isfinite(p):
        return "nan %" if unit else "nan"
    body = f"{p:.2g}" if abs(p) < 1 else (f"{p:.1f}" if abs(p) < 10 else f"{p:.0f}")
    if sign and p > 0:
        body = "+" + body
    return body + (" %" if unit else "")


def _span(values, fmt=None, *, pct: bool = False, sign: bool = False) -> str:
    """``a-b`` (min-max) or ``a`` when they round alike; ``pct``: shares as ``a-b %``
    (``a % to b %`` with ``sign``, for changes)."""
    v = np.asarray([x for x in values if math.isfinite(float(x))], dtype=float)
    if len(v) == 0:
        return "nan"
    if pct:
        lo, hi = _pct(v.min(), sign=sign, unit=False), _pct(v.max(), sign=sign, unit=False)
        if lo == hi:
            return f"{lo} %"
        return f"{lo} % to {hi} %" if sign else f"{lo}-{hi} %"
    fmt = fmt or _num
    lo, hi = fmt(v.min()), fmt(v.max())
    return lo if lo == hi else f"{lo}-{hi}"


def _list(values, fmt=_num) -> str:
    return ", ".join(fmt(v) for v in values)


def _xv(v) -> str:
    return f"{float(v):g}"


def _xs(values) -> str:
    return ", ".join(_xv(v) for v in values)


def _means(totals: pd.DataFrame, x: str, y: str) -> pd.DataFrame:
    return ax.mean_table(totals, x, y)


def _seeds(totals: pd.DataFrame) -> int:
    return int(totals["seed"].nunique()) if "seed" in totals.columns else 1


# ================================================================= notebook 40


def edge_servers_reading(info: Mapping[str, object], servers: pd.DataFrame) -> str:
    """Section 1 of notebook 40: what the edge servers hold.

    Parameters
    ----------
    info : Mapping
        :func:`dlsched.aonline.explain.source_summary` of the workload.
    servers : pandas.DataFrame
        :func:`dlsched.aonline.explain.server_frame` of it.
    """
    _frame(servers, ["pool", "worker_slots", "ps_slots", "ps_types"], "edge_servers_reading")
    edge = servers[servers["pool"] == "edge"]
    one = edge[edge["worker_slots"] == 1]
    text = (
        f"{_pct(float(info['share_one_worker_slot']))} of the {int(info['n_edge'])} edge servers have a "
        f"single GPU, so a single worker slot of a single type"
    )
    if len(one):
        text += f", and {_span(one['ps_slots'])} PS slots spread over {_span(one['ps_types'])} PS types"
    return (
        text + f"; the largest edge server has {int(info['max_edge_worker_slots'])} worker "
        f"slots. All edge "
        f"servers together hold {_num(float(info['edge_worker_slots']))} worker slots and "
        f"{_num(float(info['edge_ps_slots']))} PS slots; the cloud holds "
        f"{_num(float(info['cloud_worker_slots']))} and "
        f"{_num(float(info['cloud_ps_slots']))}."
    )


def speed_reading(speeds: pd.DataFrame) -> str:
    """Section 3 of notebook 40: Eq. (1) on the drawn jobs (:func:`~dlsched.aonline.explain.speed_frame`)."""
    _frame(speeds, ["n_s", "comm_s", "slowdown", "d_coloc", "d_split"], "speed_reading")
    s = speeds
    return (
        f"Computation n_j is {_span(s['n_s'])} s per mini-batch, communication 2k_j/B_j "
        f"{_span(s['comm_s'])} s. "
        f"Co-locating speeds a job up by {_pct(float(s['slowdown'].median()) - 1)} at the median "
        f"and by at most "
        f"{_num(float(s['slowdown'].max()))} times. With all D_j workers a job needs "
        f"{_span(s['d_coloc'])} slots co-located (median {_num(float(s['d_coloc'].median()))}) and "
        f"{_span(s['d_split'])} split (median {_num(float(s['d_split'].median()))})."
    )


def delay_reading(delays: pd.DataFrame) -> str:
    """Section 4 of notebook 40: A_online's waits from the delays alone
    (:func:`~dlsched.aonline.explain.delay_frame`)."""
    _frame(delays, ["arrival", "tau_first", "tau_lb", "tau_lb_cloud"], "delay_reading")
    d = delays
    first = (d["tau_first"] - d["arrival"]).mean()
    cloud = (d["tau_lb_cloud"] - d["arrival"]).mean()
    return (
        f"The next time point is on average {_num(first)} slots after a job's arrival. The window "
        f"forces a later "
        f"round than that for {_pct((d['tau_lb'] > d['tau_first']).mean())} of the jobs, and the "
        f"cloud's delay "
        f"for {_pct((d['tau_lb_cloud'] > d['tau_lb']).mean())} more; even on an empty system a job "
        f"can start on "
        f"the cloud on average {_num(cloud)} slots after it arrives (tau_lb_cloud)."
    )


def price_reading(threshold: pd.DataFrame, endpoints: pd.DataFrame | None = None) -> str:
    """Section 7 of notebook 40: what one more worker or PS costs where one slot is in use.

    Parameters
    ----------
    threshold : pandas.DataFrame
        :func:`dlsched.aonline.explain.sharing_threshold` (``resource``, ``capacity``,
        ``price_one_used``, ``slots_to_weight``).
    endpoints : pandas.DataFrame, optional
        :func:`dlsched.aonline.explain.price_endpoints`; the price of a full worker slot,
        :math:`2TSUF_1` (row ``corrected``, column ``lambda_full``), is quoted when given.
    """
    _frame(threshold, ["resource", "capacity", "price_one_used", "slots_to_weight"], "price_reading")
    parts = []
    for res, g in threshold.groupby("resource", sort=False):
        r = g.iloc[0]
        parts.append(
            f"{res}: one of {int(r['capacity'])} slots in use costs a newcomer "
            f"{_num(r['price_one_used'])} "
            f"per slot, more than the job's weight 1 after {_num(math.floor(r['slots_to_weight']))} "
            f"slots"
        )
    text = "; ".join(parts) + "."
    if endpoints is not None and "lambda_full" in endpoints.columns and "corrected" in endpoints.index:
        text = (
            f"A full worker slot costs 2TSUF_1 = {float(endpoints.loc['corrected', 'lambda_full']):.2g}. "
            + text
        )
    return text


def run_reading(table: pd.DataFrame) -> str:
    r"""Section 8 of notebook 40: who started when, on how many workers.

    Parameters
    ----------
    table : pandas.DataFrame
        The ``"jobs"`` table of :func:`dlsched.aonline.paper.run_table`
        (:func:`~dlsched.aonline.explain.job_frame`) joined with ``cloud_ready``, ``tau_lb`` and
        ``tau_lb_cloud`` of :func:`~dlsched.aonline.explain.delay_frame`.
    """
    need = [
        "job",
        "tau_first",
        "tau",
        "D",
        "workers",
        "kind",
        "completion",
        "window_used",
        "cloud_ready",
        "tau_lb_cloud",
    ]
    _frame(table, need, "run_reading")
    t = table
    n = len(t)
    single = t[t["workers"] == 1]
    edge1 = single[single["kind"] == "co-located on an edge server"]
    first = int((t["tau"] == t["tau_first"]).sum())
    late = t[t["tau"] > t["tau_first"]]
    at_bound = late[late["tau"] == late["tau_lb_cloud"]]
    exact = at_bound[np.isclose(at_bound["cloud_ready"], at_bound["tau_lb_cloud"] / 2)]
    beyond = t[t["tau"] > t["tau_lb_cloud"]]
    text = (
        f"Jobs ran on {_num(t['workers'].mean())} workers on average of D_j = {_num(t['D'].mean())}; "
        f"{_pct(len(single) / n)} trained with a single worker"
    )
    if len(edge1):
        text += (
            f", {len(edge1)} of them on one single-GPU edge server for up to "
            f"{_num(float((edge1['completion'] - edge1['tau']).max()))} slots"
        )
    text += (
        f". They used {_pct(t['window_used'].mean())} of their window on average. {first} of the "
        f"{n} jobs started "
        f"in the first round that saw them; of the other {len(late)}, {len(at_bound)} started at "
        f"tau_lb_cloud, the "
        f"earliest round the window and the cloud's delay allow"
    )
    if len(exact):
        text += (
            f" ({len(exact)} of them because their data reached the cloud exactly at the time point before)"
        )
    text += f", and {len(beyond)} waited longer"
    if len(beyond):
        shown = ", ".join(str(int(j)) for j in beyond["job"].head(8))
        text += f" (job{'s' if len(beyond) > 1 else ''} {shown}{', ...' if len(beyond) > 8 else ''})"
    return text + "."


def sharing_reading(sharing: pd.DataFrame) -> str:
    """Section 8 of notebook 40: whether two jobs ever share a (server, type) in a slot
    (:func:`~dlsched.aonline.explain.sharing`)."""
    _frame(sharing, ["pool", "role", "max_jobs", "shared"], "sharing_reading")
    top = int(sharing["max_jobs"].max()) if len(sharing) else 0
    if top <= 1:
        return "No (server, type) is shared by two jobs in any slot (max_jobs 1)."
    shared = sharing[sharing["max_jobs"] > 1]
    where = ", ".join(
        f"{r.pool} {r.role} ({_pct(r.shared)} of the cells in use)" for r in shared.itertuples()
    )
    return f"Up to {top} jobs share one (server, type) in a slot: {where}."


def variants_reading(compared: pd.DataFrame, base: str = "as printed") -> str:
    """Section 8 of notebook 40: each variant's total completion time against ``base``.

    Parameters
    ----------
    compared : pandas.DataFrame
        :func:`~dlsched.aonline.explain.compare_runs` (index or column ``variant``) or the rows of
        ``"variant"`` rows of :func:`dlsched.aonline.paper.run_table` with a ``variant`` column.
    """
    c = compared.reset_index() if "variant" not in compared.columns else compared
    _frame(c, ["variant", "total_completion_slots", "max_jobs", "first_round_share"], "variants_reading")
    c = c.set_index("variant")
    if base not in c.index:
        raise ValueError(f"variants_reading: no variant {base!r}; have {list(c.index)}")
    b = c.loc[base]
    parts = []
    for name, r in c.drop(index=base).iterrows():
        change = r["total_completion_slots"] / b["total_completion_slots"] - 1
        what = (
            "changes nothing"
            if abs(change) < 1e-9
            else (f"{'lowers' if change < 0 else 'raises'} the total completion time by {_pct(abs(change))}")
        )
        parts.append(
            f"{name} {what} (most jobs on one (server, type) {int(r['max_jobs'])}, started in their "
            f"first round {_pct(r['first_round_share'])} vs "
            f"{_pct(b['first_round_share'])})"
        )
    return "Against the run as printed: " + "; ".join(parts) + "."


def share_threshold_reading(jobs: pd.DataFrame, *, T: int, S: int, U: int, cloud_workers: int) -> str:
    r"""Section 8 of notebook 40: how small :math:`F` must be before sharing a cloud worker type pays.

    A newcomer sharing a cloud worker type with one slot in use pays about
    :math:`D_u d_j (\theta_1^{1/W} - 1)` with :math:`\theta_1 = 2TSUF + 1`, :math:`W` the cloud's
    slots per type; that is below the weight 1 iff :math:`F < ((1 + 1/(D_u d_j))^{W} - 1)/(2TSU)`.

    Parameters
    ----------
    jobs : pandas.DataFrame
        The ``"jobs"`` table of :func:`dlsched.aonline.paper.run_table` (``workers``, ``tau``,
        ``completion``).
    T, S, U, cloud_workers : int
        Horizon, servers, worker types and the cloud's worker slots per type.
    """
    _frame(jobs, ["workers", "tau", "completion"], "share_threshold_reading")
    ws = (jobs["workers"] * np.ceil(jobs["completion"] - jobs["tau"])).to_numpy(float)
    ws = ws[ws > 0]
    if len(ws) == 0:
        return "No job ran."
    lo, med, hi = np.percentile(ws, [10, 50, 90])
    F = ((1.0 + 1.0 / med) ** cloud_workers - 1.0) / (2.0 * T * S * U)
    return (
        f"Admitted jobs hold {_num(lo)}-{_num(hi)} worker-slots (D_u d_j, 10th-90th percentile; median "
        f"{_num(med)}), so sharing a cloud worker type pays for the median job only when F is "
        f"below about "
        f"{F:.1g}."
    )


# ================================================================= notebook 41


def duals_reading(duals: pd.DataFrame) -> str:
    """Section 2 of notebook 41: the literal reading against weak duality.

    Parameters
    ----------
    duals : pandas.DataFrame
        Rows of :func:`~dlsched.aonline.checks.dual_sample` and
        :func:`~dlsched.aonline.checks.round_dual_sample` (``reading``, ``min_price``,
        ``negative_share``, ``dual_over_ip``, ``holds``).
    """
    _frame(duals, ["reading", "min_price", "negative_share", "dual_over_ip", "holds"], "duals_reading")
    lit = duals[duals["reading"] == "literal"]
    cor = duals[duals["reading"] == "corrected"]
    neg = lit[lit["negative_share"] > 0]
    text = (
        f"Literal reading: (5b) fails in {int((lit['min_price'] < 0).sum())} of {len(lit)} batches; "
        f"unused (price -1) share of the slots at the end of a round "
        f"{_span(neg['negative_share'], pct=True)} "
        f"(median {_pct(neg['negative_share'].median()) if len(neg) else 'nan %'})."
    )
    ratio = cor["dual_over_ip"].replace([np.inf, -np.inf], np.nan).dropna()
    text += (
        f" Corrected reading: the dual claim holds in {int(cor['holds'].astype(bool).sum())} "
        f"of {len(cor)} "
        f"batches; median D/IP* {_num(ratio.median()) if len(ratio) else 'nan'}."
    )
    return text


def cost_c_reading(windows: pd.DataFrame, rounds: pd.DataFrame) -> str:
    """Sections 3-5 of notebook 41: how often the printed first-slot COST_C is not the cheapest.

    Parameters
    ----------
    windows, rounds : pandas.DataFrame
        COST_C rows (``claim`` containing ``COST_C``; ``feasible_cases``, ``suboptimal``) of
        :func:`~dlsched.aonline.checks.window_sample` and
        :func:`~dlsched.aonline.checks.round_cost_c_sample`.
    """
    parts = []
    for name, frame in (("random windows", windows), ("real A_online rounds", rounds)):
        _frame(frame, ["claim", "feasible_cases", "suboptimal"], "cost_c_reading")
        f = frame[frame["claim"].str.contains("COST_C") & frame["claim"].str.contains("first_slot")]
        parts.append(
            f"{name}: {int(f['suboptimal'].fillna(0).sum())} of "
            f"{int(f['feasible_cases'].fillna(0).sum())} "
            f"feasible cases"
        )
    return "The first-slot COST_C picks a costlier server than the cheapest in " + "; ".join(parts) + "."


def ratio_reading(ratios: pd.DataFrame) -> str:
    """Section 8 of notebook 41: A_online / OPT per family and price cap.

    Parameters
    ----------
    ratios : pandas.DataFrame
        :func:`dlsched.aonline.checks.ratio_run` rows of a sweep (``family``, ``F``, ``ratio``,
        ``framework_ratio``, ``status``).
    """
    _frame(ratios, ["family", "F", "ratio", "framework_ratio", "status"], "ratio_reading")
    parts = []
    for (fam, F), g in ratios.groupby(["family", "F"], sort=False):
        parts.append(
            f"{fam}, F = {_xv(F)}: median {_num(g['ratio'].median())}, largest {_num(g['ratio'].max())}"
        )
    fw = ratios.groupby("family", sort=False)["framework_ratio"].median()
    keys = [c for c in ("family", "seed") if c in ratios.columns]
    inst = ratios.drop_duplicates(keys) if keys else ratios
    opt = int((inst["status"] == "optimal").sum())
    return (
        "A_online / OPT: "
        + "; ".join(parts)
        + ". The bound from the rounds alone is a median "
        + ", ".join(f"{_num(v)} ({f})" for f, v in fw.items())
        + f" times OPT. {opt} of {len(inst)} instances have a proven optimum."
    )


# ================================================================= notebook 42


def ranking_reading(totals: pd.DataFrame, x: str) -> str:
    """Figs. 3-4 of notebook 42: totals, the ranking, and what explains A_online's place.

    Parameters
    ----------
    totals : pandas.DataFrame
        :func:`dlsched.aonline.experiments.run_totals` with ``scheme``, ``x`` (``"n_jobs"`` or
        ``"n_edge"``), ``tct``, ``wait``, ``workers``, ``rounds_waited``, ``max_rounds_waited``,
        ``window_fill``, ``narrow_share``; A_online and at least one of DRF, FIFO, BatchSche.
    x : str
        The swept column.
    """
    need = ["scheme", x, "tct", "wait", "workers", "rounds_waited", "max_rounds_waited", "window_fill"]
    _frame(totals, [*need, "narrow_share"], "ranking_reading")
    sym = _X.get(x, x)
    tct = _means(totals, x, "tct")
    paper = [s for s in ax.FIGURE_POLICIES["fig3"] if s in tct.columns]
    if "aonline" not in paper or len(paper) < 2:
        raise ValueError(f"ranking_reading: need aonline and another of {ax.FIGURE_POLICIES['fig3']}")
    xs = list(tct.index)
    lines = [
        f"Total completion time (slots, mean of {_seeds(totals)} seed(s)) for {sym} = {_xs(xs)}: "
        + "; ".join(f"{ax.label(s)} {_list(tct[s])}" for s in tct.columns)
        + "."
    ]
    others = tct[paper].drop(columns="aonline")
    ratio = tct["aonline"] / others.min(axis=1)
    best = others.idxmin(axis=1)
    win, lose = ratio[ratio < 1], ratio[ratio >= 1]
    text = ""
    if len(win):
        text += (
            f"A_online is the best of the paper's schemes at {sym} = {_xs(win.index)} "
            f"({_span(win)} times the "
            f"best other)"
        )
    if len(lose):
        text += (
            ("; " if text else "")
            + "it is not at "
            + ", ".join(
                f"{sym} = {_xv(v)} ({ax.label(best[v])} better, A_online {_num(r)} times it)"
                for v, r in lose.items()
            )
        )
    lines.append(text + ".")
    wait = _means(totals, x, "wait")
    share = wait["aonline"] / tct["aonline"]
    line = (
        f"A_online's waiting part: {_num(wait['aonline'].iloc[0])} ({_pct(share.iloc[0])} of its total) at "
        f"{sym} = {_xv(xs[0])}, {_num(wait['aonline'].iloc[-1])} ({_pct(share.iloc[-1])}) at {_xv(xs[-1])}"
    )
    if "drf" in wait.columns:
        line += f"; DRF's waiting part {_span(wait['drf'])}"
    lines.append(line + ".")
    rw = _means(totals, x, "rounds_waited")["aonline"]
    mx = _means(totals, x, "max_rounds_waited")["aonline"]
    wk = _means(totals, x, "workers")
    fill = _means(totals, x, "window_fill")["aonline"]
    lines.append(
        f"A_online's jobs were postponed by {_num(rw.iloc[0])} rounds on average at {sym} = {_xv(xs[0])} "
        f"and {_num(rw.iloc[-1])} at {_xv(xs[-1])} (at most {_num(mx.max())}); they ran on "
        f"{_span(wk['aonline'])} workers on average and filled {_span(fill, pct=True)} of their window."
    )
    if "aonline+fastest" in tct.columns:
        f_mx = _means(totals, x, "max_rounds_waited")["aonline+fastest"]
        lines.append(
            f"With the fastest tie-break: {_span(wk['aonline+fastest'])} workers per job, total "
            f"{_num(tct['aonline+fastest'].iloc[0])} at {sym} = {_xv(xs[0])} and "
            f"{_num(tct['aonline+fastest'].iloc[-1])} at {_xv(xs[-1])}, jobs postponed by up to "
            f"{_num(f_mx.max())} rounds."
        )
    if "fifo" in tct.columns:
        nar = _means(totals, x, "narrow_share")["fifo"]
        lines.append(
            f"FIFO's jobs ran on {_list(wk['fifo'])} workers on average; "
            f"{_span(nar, pct=True)} of its total "
            f"comes from jobs on fewer than a quarter of their D_j workers."
        )
    if "batchsche" in tct.columns:
        lines.append(f"BatchSche / A_online: {_span(tct['batchsche'] / tct['aonline'])}.")
    return "\n".join(lines)


def fig5_reading(totals: pd.DataFrame, scale: pd.DataFrame, *, max_weight: float | None = None) -> str:
    """Fig. 5 of notebook 42: the weighted total against the price cap F and why.

    Parameters
    ----------
    totals : pandas.DataFrame
        :func:`~dlsched.aonline.experiments.run_totals` of the A_online runs (``F``,
        ``weighted_tct``, ``zero_cost``, ``rounds_waited``).
    scale : pandas.DataFrame
        :func:`~dlsched.aonline.experiments.price_scale` for the same F (``F``, ``theta1``,
        ``one_used``).
    max_weight : float, optional
        The largest job weight, quoted when given.
    """
    _frame(totals, ["scheme", "F", "weighted_tct", "zero_cost", "rounds_waited"], "fig5_reading")
    _frame(scale, ["F", "theta1", "one_used"], "fig5_reading")
    w = _means(totals, "F", "weighted_tct")["aonline"]
    zero = _means(totals, "F", "zero_cost")["aonline"]
    rw = _means(totals, "F", "rounds_waited")["aonline"]
    top = w.iloc[-1]
    flat = []  # the largest F values with the same objective as the largest
    for f in reversed(list(w.index)):
        if abs(w[f] - top) > 1e-9 * max(abs(top), 1.0):
            break
        flat.insert(0, f)
    lines = [
        "Total weighted completion time per F: "
        + ", ".join(f"{_xv(f)}: {_num(v)}" for f, v in w.items())
        + "."
    ]
    sc = scale.set_index("F")
    if len(flat) > 1:
        lo = min(flat)
        lines.append(
            f"It is the same at every F from {_xv(lo)} to {_xv(max(flat))}; there "
            f"{_span(zero[flat], pct=True)} of the jobs are admitted at cost 0, and a cloud worker-slot "
            f"with one slot of its type in use costs "
            f"{_span(sc.loc[[f for f in flat if f in sc.index], 'one_used'])}."
        )
    theta = sc["theta1"]
    tsu = ((theta - 1.0) / theta.index.to_numpy(float)).median()
    lines.append(
        f"theta_1 = 2TSUF + 1 with 2TSU = {tsu:.2g}; "
        + ", ".join(
            f"F = {_xv(f)}: 2TSUF = {t - 1:.2g}, {_pct(zero.get(f, math.nan))} at cost 0, "
            f"{_num(rw.get(f, math.nan))} rounds waited per job"
            for f, t in theta.items()
            if f not in flat[1:]
        )
        + "."
    )
    if max_weight is not None:
        lines.append(f"The largest job weight is {_num(max_weight)}.")
    return "\n".join(lines)


def fig6_reading(totals: pd.DataFrame) -> str:
    """Fig. 6 of notebook 42: A_online's weighted total against S, and its waiting part."""
    _frame(totals, ["scheme", "n_edge", "weighted_tct", "wait", "rounds_waited"], "fig6_reading")
    w = _means(totals, "n_edge", "weighted_tct")["aonline"]
    wait = _means(totals, "n_edge", "wait")["aonline"]
    rw = _means(totals, "n_edge", "rounds_waited")["aonline"]
    verdict = ax.trend(w, "down")
    how = {
        "yes": "falls at every step",
        "partly": "falls overall but not at every step",
        "no": "does not fall",
        "-": "cannot be judged",
    }[verdict]
    xs = list(w.index)
    return (
        f"Total weighted completion time for S = {_xs(xs)}: {_list(w)}: it {how} as S grows "
        f"({_pct(w.iloc[-1] / w.iloc[0] - 1, sign=True)} from first to last). Jobs are postponed by "
        f"{_num(rw.iloc[0])} "
        f"rounds on average at S = {_xv(xs[0])} and {_num(rw.iloc[-1])} at {_xv(xs[-1])}; the "
        f"waiting part goes "
        f"from {_num(wait.iloc[0])} to {_num(wait.iloc[-1])}."
    )


def _ratio_line(means: pd.DataFrame, rival: str, sym: str) -> str:
    r = means["aonline"] / means[rival]
    return f"vs {ax.label(rival)}: " + ", ".join(f"{sym} = {_xv(v)}: {_num(q)}" for v, q in r.items())


def preemptive_reading(by_jobs: pd.DataFrame, by_servers: pd.DataFrame) -> str:
    """Figs. 7-10 of notebook 42: A_online against the Preemptive variants.

    Parameters
    ----------
    by_jobs, by_servers : pandas.DataFrame
        :func:`~dlsched.aonline.experiments.run_totals` of the J sweep (``n_jobs``) and of the S
        sweep (``n_edge``) with ``aonline`` and ``preemptive*`` schemes (``tct``, ``wait``,
        ``narrow_share``, ``preemptions``).
    """
    lines = []
    for totals, x in ((by_jobs, "n_jobs"), (by_servers, "n_edge")):
        _frame(totals, ["scheme", x, "tct", "wait", "narrow_share", "preemptions"], "preemptive_reading")
        sym = _X[x]
        m = _means(totals, x, "tct")
        rivals = [s for s in m.columns if s.startswith("preemptive")]
        lines.append(
            f"A_online / Preemptive over {sym} ({_seeds(totals)} seed(s)): "
            + "; ".join(_ratio_line(m, r, sym) for r in rivals)
            + "."
        )
    both = pd.concat([by_jobs, by_servers], ignore_index=True)
    tct = pd.concat(
        [_means(by_jobs, "n_jobs", "tct"), _means(by_servers, "n_edge", "tct")], ignore_index=True
    )
    if {"preemptive", "preemptive+nodelay"} <= set(tct.columns):
        gain = 1 - tct["preemptive+nodelay"] / tct["preemptive"]
        change = _span(-gain, pct=True, sign=True)
        lines.append(f"Ignoring the upload delay changes Preemptive's total by {change}.")
    if "preemptive" in set(both["scheme"]):
        p = both[both["scheme"] == "preemptive"]
        lines.append(
            f"Preemptive (upload delay paid) waits {_span(p['wait'])} slots in total per run; "
            f"{_span(p['narrow_share'], pct=True)} of its total comes from jobs on fewer than "
            f"a quarter of "
            f"their D_j workers."
        )
    if {"preemptive+nodelay", "preemptive+overhead+nodelay"} <= set(tct.columns):
        o = both[both["scheme"] == "preemptive+overhead+nodelay"]
        extra = tct["preemptive+overhead+nodelay"] - tct["preemptive+nodelay"]
        rel = extra / tct["preemptive+nodelay"]
        lines.append(
            f"Preemptive with overhead resumes {_span(o['preemptions'])} times per run; "
            f"the overhead "
            f"changes its mean total by {_span(extra)} slots ({_span(rel, pct=True, sign=True)})."
        )
    return "\n".join(lines)


def slightly_better(
    table: pd.DataFrame, totals: pd.DataFrame, x: str, *, margin: float = SLIGHT
) -> pd.DataFrame:
    """Figs. 9-10's verdict with the paper's "slightly": ``yes`` when A_online's mean total is
    below each Preemptive variant's by at most ``margin`` at every ``x``; ``partly`` when it is
    below somewhere (but not everywhere, or by more than ``margin`` somewhere); ``no`` when it is
    below nowhere.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`~dlsched.aonline.experiments.fig9_comparison` or ``fig10_comparison`` of ``totals``
        (a ``setting`` row, then one judged row per Preemptive variant, in column order).
    totals : pandas.DataFrame
        The :func:`~dlsched.aonline.experiments.run_totals` it was built from.
    x : str
        ``"n_jobs"`` (Fig. 9) or ``"n_edge"`` (Fig. 10).
    margin : float
        Largest lead that counts as slight (default :data:`SLIGHT`).

    Returns
    -------
    pandas.DataFrame
        ``table`` with the judged rows' ``match`` recomputed and their ``ours`` extended by the
        lead.
    """
    _frame(table, ["quantity", "paper", "ours", "match"], "slightly_better")
    m = _means(totals, x, "tct")
    rivals = [s for s in m.columns if s.startswith("preemptive")]
    out = table.reset_index(drop=True)
    judged = [i for i in out.index if out.at[i, "match"] != "-"]
    if len(judged) != len(rivals):
        raise ValueError(f"slightly_better: {len(judged)} judged rows for {len(rivals)} Preemptive variants")
    for i, r in zip(judged, rivals, strict=True):
        lead = 1 - m["aonline"] / m[r]
        better = lead > 0
        slight = better & (lead <= margin)
        verdict = "yes" if slight.all() else ("partly" if better.any() else "no")
        ahead = lead[better]
        note = (
            f"; A_online ahead by {_span(ahead, pct=True)} where ahead ('slightly': at most {_pct(margin)})"
            if len(ahead)
            else "; A_online ahead nowhere"
        )
        out.at[i, "ours"] = str(out.at[i, "ours"]) + note
        out.at[i, "match"] = verdict
    return out


def fig11_reading(totals: pd.DataFrame, loss: pd.DataFrame, colocated: pd.Series | None = None) -> str:
    """Fig. 11 of notebook 42: totals against the parameter size and the speed Eq. (1) takes.

    Parameters
    ----------
    totals : pandas.DataFrame
        :func:`~dlsched.aonline.experiments.run_totals` with ``gradient_mb``, ``scheme``, ``tct``.
    loss : pandas.DataFrame
        :func:`dlsched.aonline.paper.speed_loss` rows of a sweep (``gradient_mb``, ``speed_loss``).
    colocated : pandas.Series, optional
        A_online's share of co-located jobs per ``gradient_mb``.
    """
    _frame(totals, ["scheme", "gradient_mb", "tct"], "fig11_reading")
    _frame(loss, ["gradient_mb", "speed_loss"], "fig11_reading")
    m = _means(totals, "gradient_mb", "tct")
    ks = list(m.index)
    lines = [
        f"Total completion time for k_j = {_xs(ks)} MB: "
        + "; ".join(f"{ax.label(s)} {_list(m[s])}" for s in m.columns if s in ("aonline", "preemptive"))
        + "."
    ]
    if {"aonline", "preemptive"} <= set(m.columns):
        r = m["aonline"] / m["preemptive"]
        lines.append(
            f"A_online's total changes by "
            f"{_pct(m['aonline'].iloc[-1] / m['aonline'].iloc[0] - 1, sign=True)} and "
            f"Preemptive's by {_pct(m['preemptive'].iloc[-1] / m['preemptive'].iloc[0] - 1, sign=True)} "
            f"from the "
            f"smallest to the largest k_j; A_online / Preemptive goes from {_num(r.iloc[0])} to "
            f"{_num(r.iloc[-1])}."
        )
    sl = loss.groupby("gradient_mb")["speed_loss"].mean()
    line = (
        f"A split placement loses {_pct(sl.iloc[0])} of its speed on average at {_xv(sl.index[0])} MB and "
        f"{_pct(sl.iloc[-1])} at {_xv(sl.index[-1])} MB"
    )
    if colocated is not None and len(colocated):
        line += f"; A_online co-locates {_span(colocated, pct=True)} of its jobs"
    lines.append(line + ".")
    return "\n".join(lines)


def utilisation_reading(by_jobs: pd.DataFrame, by_servers: pd.DataFrame) -> str:
    """Figs. 12-13 of notebook 42: average utilisation and the slots with jobs present.

    Parameters
    ----------
    by_jobs, by_servers : pandas.DataFrame
        :func:`~dlsched.aonline.experiments.run_totals` (``util``, ``util_worker_edge``,
        ``present_slots``) of A_online and Preemptive runs, over ``n_jobs`` and over ``n_edge``.
    """
    lines = []
    pre_u, pre_p, a_p, higher = [], [], [], []
    for totals, x in ((by_jobs, "n_jobs"), (by_servers, "n_edge")):
        _frame(totals, ["scheme", x, "util", "util_worker_edge", "present_slots"], "utilisation_reading")
        sym = _X[x]
        u = _means(totals, x, "util")
        a = u["aonline"].dropna()
        edge = _means(totals, x, "util_worker_edge")["aonline"].dropna()
        pres = _means(totals, x, "present_slots")
        lines.append(
            f"A_online's utilisation for {sym} = {_xs(a.index)}: {_list(a, _pct)} "
            f"({ax.trend(a, 'down')} for 'falls'); on the edge it keeps {_span(edge, pct=True)} of the "
            f"worker slots busy."
        )
        a_p += list(pres["aonline"].dropna())
        for r in [s for s in u.columns if s.startswith("preemptive")]:
            both = u[["aonline", r]].dropna()
            pre_u += list(both[r])
            pre_p += list(pres[r].dropna())
            higher += [f"{sym} = {_xv(v)}" for v in both.index[both[r] > both["aonline"]]]
    if pre_u:
        lines.append(
            f"Preemptive's utilisation: {_span(pre_u, pct=True)}; it is above A_online's at "
            f"{', '.join(dict.fromkeys(higher)) if higher else 'no point'}. Slots with "
            f"some job present: "
            f"Preemptive {_span(pre_p)}, A_online {_span(a_p)}."
        )
    return "\n".join(lines)


def fig14_reading(by_jobs: pd.DataFrame, by_servers: pd.DataFrame) -> str:
    """Fig. 14 of notebook 42: the ratio to the offline optimum and its parts.

    Parameters
    ----------
    by_jobs, by_servers : pandas.DataFrame
        :func:`~dlsched.aonline.experiments.ratio_summary` over ``n_jobs`` and over ``n_edge``.
    """
    cols = ["instances", "optimal", "ratio", "ratio_min", "ratio_max"]
    cols += ["aonline_wait", "opt_wait", "aonline_run", "opt_run"]
    for t in (by_jobs, by_servers):
        _frame(t, cols, "fig14_reading")
    allr = pd.concat([by_jobs, by_servers])
    n = int(allr["instances"].sum())
    mean = float((allr["ratio"] * allr["instances"]).sum() / n)
    lines = [
        f"Mean ratio for J = {_xs(by_jobs.index)}: {_list(by_jobs['ratio'])}; for S = "
        f"{_xs(by_servers.index)}: "
        f"{_list(by_servers['ratio'])}. Over all {n} instances ({int(allr['optimal'].sum())} solved "
        f"to proven "
        f"optimality) {_num(mean)} ({_num(allr['ratio_min'].min())}-{_num(allr['ratio_max'].max())}).",
        f"Waiting parts: A_online {_span(allr['aonline_wait'])}, optimum {_span(allr['opt_wait'])} "
        f"slots; running "
        f"parts: A_online {_span(allr['aonline_run'])}, optimum {_span(allr['opt_run'])}.",
    ]
    if "ratio_fastest" in allr.columns:
        lines.append(f"With the fastest tie-break the mean ratio is {_span(allr['ratio_fastest'])}.")
    return "\n".join(lines)


def scorecard_reading(card: pd.DataFrame) -> str:
    """One line: how many of the judged claims match (``yes``), partly, or not."""
    _frame(card, ["figure", "match"], "scorecard_reading")
    counts = card["match"].value_counts()
    figs = card.groupby("figure", sort=False)["match"].agg(lambda s: "/".join(s))
    return (
        f"{len(card)} judged claims: {int(counts.get('yes', 0))} yes, {int(counts.get('partly', 0))} partly, "
        f"{int(counts.get('no', 0))} no (" + "; ".join(f"{f}: {m}" for f, m in figs.items()) + ")."
    )

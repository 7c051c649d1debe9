"""Findings of the real-trace notebooks, as sentences computed from their result tables.

The notebooks ``00_overview`` and ``60_arena_traces`` print what their numbers say with these
functions instead of typing measured numbers into markdown, so that the prose, the tables and the
figures of one run cannot disagree. Every function is a pure function of the tables a notebook
already has (the arena's per-point ``results``, their :func:`~dlsched.arena.experiments.summarise`
``summary``, the :func:`~dlsched.arena.experiments.claims` ``verdicts``, the machine pools of
:func:`~dlsched.arena.mapping.machine_pools`, or a sweep's job table) and returns strings or a small
DataFrame.

Notebook 60 (the arena)
    :func:`setup_sentence` (the run: windows, jobs, seeds, ``node_scale``), :func:`arena_nodes`
    and :func:`headroom_sentences` (the machines, the recorded peak, the nodes the arena keeps),
    :func:`claim_sentences` (each paper's headline claim per window, from the verdicts, with its
    rank in its panel), :func:`context_sentences` (the numbers behind each verdict: what a
    scheduler gives up, its ablations), :func:`notes_sentence` (which points could not run, and
    why) and :func:`arena_findings` (all of them, in the notebook's order).
Notebook 00 (overview)
    :func:`finished_sentence` and :func:`compare_sentence` (FIFO against DRF).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd

from dlsched.arena.experiments import PAPER_POLICY

__all__ = [
    "DISPLAY_NAMES",
    "arena_findings",
    "arena_nodes",
    "claim_sentences",
    "compare_sentence",
    "context_sentences",
    "finished_sentence",
    "fmt",
    "headroom_sentences",
    "notes_sentence",
    "panel_rank",
    "setup_sentence",
]

DISPLAY_NAMES: Mapping[str, str] = {
    "fifo": "FIFO", "drf": "DRF", "rrh": "RRH", "dorm": "Dorm", "tetris": "Tetris",
    "oasis": "OASiS", "oasis_split": "OASiS-split", "batchsche": "BatchSche",
    "preemptive": "Preemptive", "k8s_default": "Kubernetes' default", "optimus": "Optimus",
    "pdors": "PD-ORS", "pdors_nocoloc": "PD-ORS without co-location", "aonline": "A_online",
    "specon": "SpeCon", "philly": "Philly", "itp": "ITP",
}  # fmt: skip
"""Printed names of policies and traces (a name not listed is printed as it is)."""

_METRIC = {"total_utility": ("total utility", ""), "mean_jct_h": ("mean JCT", " h")}


def _name(key) -> str:
    return DISPLAY_NAMES.get(str(key), str(key))


def fmt(x: float) -> str:
    """A measured number, rounded for prose: three significant digits, thousands separated
    (whole numbers below a million as they are).

    >>> fmt(2472.92), fmt(27.66), fmt(0.24301), fmt(float("nan")), fmt(3.2e11), fmt(60.0)
    ('2,473', '27.7', '0.243', 'n/a', '3.2e+11', '60')
    """
    x = float(x)
    if math.isnan(x):
        return "n/a"
    a = abs(x)
    if x.is_integer() and a < 1e6:
        return f"{int(x):,}"
    if a >= 1e6:
        return f"{x:.2g}"
    if a >= 100:
        return f"{x:,.0f}"
    if a >= 10:
        return f"{x:.1f}"
    if a == 0:
        return "0"
    return f"{x:.3g}"


def _pct(x: float) -> str:
    """A signed percentage: one decimal below 1,000 %, whole above, two digits from a million."""
    x = float(x)
    if math.isnan(x):
        return "n/a"
    if abs(x) >= 1e6:
        return f"{x:+.2g} %"
    return f"{x:+,.0f} %" if abs(x) >= 1000 else f"{x:+.1f} %"


def _value(x: float, metric: str) -> str:
    return fmt(x) + _METRIC.get(metric, (metric, ""))[1]


def _join(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


# --------------------------------------------------------------------------- the run and its machines


def setup_sentence(
    windows: Sequence[tuple], *, max_jobs: int | None, seeds: Sequence[int], node_scale: float
) -> str:
    """The run in one sentence: its windows, how many jobs of each, the seeds and ``node_scale``.

    Parameters
    ----------
    windows : sequence of (trace, week, cluster)
        The notebook's windows.
    max_jobs : int or None
        The first jobs kept of each window (None: all).
    seeds : sequence of int
    node_scale : float
        The factor on the trace's own node counts.
    """
    if not windows:
        raise ValueError("setup_sentence: windows is empty")
    seeds = list(seeds)
    where = _join([f"{_name(tr)} week {wk}, cluster {cl}" for tr, wk, cl in windows])
    jobs = "every job" if max_jobs is None else f"the first {max_jobs} jobs"
    seed_txt = f"{len(seeds)} seed{'s' if len(seeds) != 1 else ''} ({', '.join(map(str, seeds))})"
    return f"This run: {where}; {jobs} of each window, {seed_txt}, node_scale {node_scale:g}."


def arena_nodes(pools: pd.DataFrame, node_scale: float) -> pd.DataFrame:
    """The machine pools with the node counts the arena runs on.

    The rule is :func:`dlsched.arena.experiments.trace_workload`'s (a test pins the two together).

    Each pool keeps ``ceil(nodes * node_scale)`` nodes, and at least the nodes its widest job needs
    (``ceil(max_job_gpus / GPUs per node)``).

    Parameters
    ----------
    pools : pandas.DataFrame
        :func:`dlsched.arena.mapping.machine_pools` (columns ``nodes, gpus, max_job_gpus`` used).
    node_scale : float
        Positive factor.

    Returns
    -------
    pandas.DataFrame
        ``pools`` with two more columns, ``arena_nodes`` and ``arena_gpus``.
    """
    if not (isinstance(node_scale, int | float) and node_scale > 0 and math.isfinite(node_scale)):
        raise ValueError(f"node_scale must be a positive finite number, got {node_scale!r}")
    out = pools.copy()
    per_node = out["gpus"] / out["nodes"]
    out["arena_nodes"] = [
        max(math.ceil(n * node_scale), math.ceil(g / p))
        for n, g, p in zip(out["nodes"], out["max_job_gpus"], per_node, strict=True)
    ]
    out["arena_gpus"] = (out["arena_nodes"] * per_node).round().astype(int)
    return out


def headroom_sentences(window: str, pools: pd.DataFrame, node_scale: float) -> list[str]:
    """Per pool: its own machines, the recorded peak demand of the window's jobs, the arena's nodes.

    ``pools`` is :func:`dlsched.arena.mapping.machine_pools` of the window's jobs; ``source``
    tells where its node count comes from (Philly's node table, or the peak rule).
    """
    rows = arena_nodes(pools, node_scale)
    out = []
    for r in rows.itertuples():
        share = 100.0 * r.peak_gpus / r.gpus if r.gpus else math.nan
        src = "the trace's node table" if r.source == "philly_vc_nodes" else f"the {r.source} rule"
        out.append(
            f"{window}, pool {r.pool}: {r.nodes} nodes of its own ({r.gpus} GPUs, from {src}); the "
            f"recorded peak demand of these jobs is {r.peak_gpus} GPUs ({share:.0f} % of them); the "
            f"arena runs them on {r.arena_nodes} nodes ({r.arena_gpus} GPUs)."
        )
    return out


# --------------------------------------------------------------------------- claims


def panel_rank(
    summary: pd.DataFrame, trace: str, model: str, policy: str, metric: str, better: str
) -> tuple[int, int]:
    """Rank of ``policy`` among the policies of one panel (trace, model) that have ``metric``.

    Returns ``(rank, n)``, rank 1 the best (``better`` is ``"higher"`` or ``"lower"``); ties share
    the better rank. ``(0, n)`` if ``policy`` has no value.
    """
    tab = (
        summary[(summary["trace"] == trace) & (summary["model"] == model)]
        .set_index("policy")[metric]
        .dropna()
    )
    if policy not in tab.index:
        return 0, len(tab)
    mine = float(tab[policy])
    better_than_me = (tab > mine) if better == "higher" else (tab < mine)
    return int(better_than_me.sum()) + 1, len(tab)


def claim_sentences(verdicts: pd.DataFrame, summary: pd.DataFrame | None = None) -> list[str]:
    """One sentence per paper: its headline claim on each window, read from the verdicts.

    Parameters
    ----------
    verdicts : pandas.DataFrame
        :func:`dlsched.arena.experiments.claims` (columns ``trace, paper, metric, scheduler,
        value, best_baseline, baseline_value, gain_pct, survives``).
    summary : pandas.DataFrame, optional
        :func:`dlsched.arena.experiments.summarise`; adds the scheduler's rank in its panel.

    Returns
    -------
    list of str
        In the order of the papers in ``verdicts``; each ends with on how many windows the claim
        survives.
    """
    if verdicts.empty:
        return []
    better_of = {v[0]: v[3] for v in PAPER_POLICY.values()}
    model_of = {v[0]: m for m, v in PAPER_POLICY.items()}
    out = []
    for paper, tab in verdicts.groupby("paper", sort=False):
        metric = str(tab["metric"].iloc[0])
        label = _METRIC.get(metric, (metric, ""))[0]
        better = better_of.get(paper, "higher")
        parts = []
        for r in tab.itertuples():
            if r.survives == "-":
                parts.append(f"on {_name(r.trace)} no verdict (a side did not run)")
                continue
            part = (
                f"on {_name(r.trace)} {_value(r.value, metric)} against "
                f"{_value(r.baseline_value, metric)} for {_name(r.best_baseline)}, the best of its "
                f"baselines ({_pct(r.gain_pct)}), verdict {r.survives}"
            )
            if summary is not None and paper in model_of:
                rank, n = panel_rank(summary, r.trace, model_of[paper], r.scheduler, metric, better)
                if rank:
                    part += f", rank {rank} of {n} policies in its panel"
            parts.append(part)
        yes, tie = (int((tab["survives"] == w).sum()) for w in ("yes", "tie"))
        ties = f" (a tie on {tie})" if tie else ""
        out.append(
            f"{paper} ({label}, {better} is better): {'; '.join(parts)}. "
            f"The claim survives on {yes} of {len(tab)} window{'s' if len(tab) != 1 else ''}{ties}."
        )
    return out


def _cell(summary: pd.DataFrame, trace: str, model: str, policy: str, col: str) -> float:
    t = summary[(summary["trace"] == trace) & (summary["model"] == model) & (summary["policy"] == policy)]
    return float(t[col].iloc[0]) if len(t) else math.nan


def _context_oasis(summary, verdicts, trace) -> list[str]:
    v = verdicts[(verdicts["trace"] == trace) & (verdicts["scheduler"] == "oasis")]
    if v.empty or v["best_baseline"].iloc[0] == "-":
        return []
    best = str(v["best_baseline"].iloc[0])
    mine, ref = (_cell(summary, trace, "oasis", p, "mean_jct_h") for p in ("oasis", best))
    rej = _cell(summary, trace, "oasis", "oasis", "rejected")
    return [
        f"OASiS on {_name(trace)}: mean JCT {fmt(mine)} h against {_name(best)}'s {fmt(ref)} h, "
        f"{fmt(rej)} of {fmt(_cell(summary, trace, 'oasis', 'oasis', 'jobs'))} jobs rejected."
    ]


def _context_pdors(summary, verdicts, trace) -> list[str]:
    v = verdicts[(verdicts["trace"] == trace) & (verdicts["scheduler"] == "pdors")]
    if v.empty:
        return []
    best = str(v["best_baseline"].iloc[0])
    rej, jobs, jct = (_cell(summary, trace, "pdors", "pdors", c) for c in ("rejected", "jobs", "mean_jct_h"))
    line = f"PD-ORS on {_name(trace)}: {fmt(rej)} of {fmt(jobs)} jobs rejected, mean JCT {fmt(jct)} h"
    if best != "-":
        line += f" against {_name(best)}'s {fmt(_cell(summary, trace, 'pdors', best, 'mean_jct_h'))} h"
    mine = _cell(summary, trace, "pdors", "pdors", "total_utility")
    shares = []
    for p in ("pdors_nocoloc", "oasis_split"):
        u = _cell(summary, trace, "pdors", p, "total_utility")
        if not math.isnan(u) and mine:
            shares.append((p, u / mine))
    if shares:
        line += "; of PD-ORS's utility, " + _join([f"{_name(p)} earns {100 * s:.0f} %" for p, s in shares])
        holds = "holds" if all(s < 1 for _, s in shares) else "does not hold"
        line += f" (the paper's order, PD-ORS first, {holds})"
    return [line + "."]


def _context_aonline(summary, verdicts, trace) -> list[str]:
    v = verdicts[(verdicts["trace"] == trace) & (verdicts["scheduler"] == "aonline")]
    if v.empty or v["best_baseline"].iloc[0] == "-":
        return []
    best = str(v["best_baseline"].iloc[0])
    ref = _cell(summary, trace, "aonline", best, "mean_jct_h")
    parts = []
    for p in ("aonline", "batchsche"):
        x = _cell(summary, trace, "aonline", p, "mean_jct_h")
        if not math.isnan(x) and ref:
            parts.append(f"{_name(p)} {fmt(x)} h ({fmt(x / ref)} times)")
    others = [_cell(summary, trace, "aonline", p, "mean_jct_h") for p in ("fifo", "drf", "preemptive")]
    others = [x for x in others if not math.isnan(x)]
    line = f"A_online on {_name(trace)}: mean JCT {_join(parts)} against {_name(best)}'s {fmt(ref)} h"
    if others:
        line += f"; FIFO, DRF and Preemptive range over {fmt(min(others))}-{fmt(max(others))} h"
    return [line + "."]


def _context_optimus(summary, verdicts, trace) -> list[str]:
    drf, tetris = (_cell(summary, trace, "optimus", p, "mean_jct_h") for p in ("drf", "tetris"))
    if math.isnan(drf) or math.isnan(tetris):
        return []
    side = "behind" if tetris > drf else ("ahead of" if tetris < drf else "level with")
    return [
        f"Optimus's other baseline on {_name(trace)}: Tetris, given the same estimates, is {side} "
        f"DRF (mean JCT {fmt(tetris)} h against {fmt(drf)} h)."
    ]


_CONTEXT = {
    "oasis": _context_oasis,
    "pdors": _context_pdors,
    "aonline": _context_aonline,
    "optimus": _context_optimus,
    "specon": lambda summary, verdicts, trace: [],  # its claim sentence says it all
}


def context_sentences(summary: pd.DataFrame, verdicts: pd.DataFrame, model: str) -> list[str]:
    """The numbers behind one paper's verdicts, per window (empty where its policies did not run).

    OASiS: its mean JCT against the best baseline's and its rejections (what holding jobs back
    costs); PD-ORS: rejections, mean JCT, and its ablations' utility as a share of its own (the
    paper's own order); A_online: its and BatchSche's mean JCT as multiples of the best baseline's;
    Optimus: Tetris against DRF; SpeCon: nothing more than its claim sentence.

    Raises
    ------
    ValueError
        For a model without a paper claim (:data:`dlsched.arena.experiments.PAPER_POLICY`).
    """
    if model not in _CONTEXT:
        raise ValueError(f"model must be one of {list(_CONTEXT)}, got {model!r}")
    out: list[str] = []
    for trace in dict.fromkeys(summary["trace"]):
        out += _CONTEXT[model](summary, verdicts, trace)
    return out


def notes_sentence(results: pd.DataFrame) -> str:
    """Which points could not run and why, grouped by policy, kind of note and window.

    ``results`` is :func:`dlsched.arena.experiments.run_arena`'s table (``note`` column: empty, or
    ``"cannot run: ..."``, ``"schedule violation: ..."``, ``"run failed: ..."``).
    """
    notes = results[results["note"].astype(str) != ""]
    if notes.empty:
        return "Every point ran."
    kinds = notes["note"].astype(str).str.split(":").str[0]
    parts = []
    for (policy, kind), grp in notes.assign(kind=kinds).groupby(["policy", "kind"], sort=True):
        where = _join(sorted({f"{_name(t)} / {m}" for t, m in zip(grp["trace"], grp["model"], strict=True)}))
        parts.append(f"{_name(policy)} ({kind}, {len(grp)} point{'s' if len(grp) != 1 else ''}: {where})")
    n = notes["policy"].nunique()
    return f"{n} polic{'ies' if n != 1 else 'y'} could not run some points: {'; '.join(parts)}."


def arena_findings(
    verdicts: pd.DataFrame, summary: pd.DataFrame, results: pd.DataFrame | None = None
) -> list[str]:
    """Everything notebook 60 says about its run: per paper the claim sentence and its context,
    then (with ``results``) which points could not run."""
    out = []
    model_of = {v[0]: m for m, v in PAPER_POLICY.items()}
    papers = dict.fromkeys(verdicts["paper"]) if len(verdicts) else {}
    for sentence, paper in zip(claim_sentences(verdicts, summary), papers, strict=True):
        out.append("* " + sentence)
        out += ["    " + s for s in context_sentences(summary, verdicts, model_of[paper])]
    if results is not None:
        out.append("* " + notes_sentence(results))
    return out


# --------------------------------------------------------------------------- notebook 00


def finished_sentence(jobs: pd.DataFrame, by: str = "policy") -> str:
    """Whether every job finished, per value of ``by`` (a sweep's job table, ``status`` column)."""
    groups = list(dict.fromkeys(jobs[by]))
    left = jobs[jobs["status"] != "finished"]
    names = _join([_name(g) for g in groups])
    if left.empty:
        return f"Every job finished under {names} ({len(jobs)} job rows in all)."
    per = left.groupby(by, sort=False).size()
    return (
        f"{len(left)} of {len(jobs)} job rows did not finish: "
        + ", ".join(f"{_name(g)} {n}" for g, n in per.items())
        + "."
    )


def compare_sentence(
    table: pd.DataFrame, a: str, b: str, metrics: Sequence[str] = ("mean_jct_h", "makespan_h")
) -> str:
    """How policy ``b`` compares with policy ``a`` on each metric (lower is better, hours).

    Parameters
    ----------
    table : pandas.DataFrame
        One row per policy, indexed by policy name (e.g. :func:`dlsched.core.metrics.by_group`
        averaged over seeds), with the ``metrics`` columns.
    a, b : str
        The reference policy and the compared one.
    """
    for p in (a, b):
        if p not in table.index:
            raise ValueError(f"policy {p!r} not in the table; policies: {list(table.index)}")
    labels = {"mean_jct_h": "mean JCT", "makespan_h": "makespan", "p95_jct_h": "95th-percentile JCT"}
    parts = []
    for m in metrics:
        x, ref = float(table.loc[b, m]), float(table.loc[a, m])
        rel = 100.0 * (x - ref) / ref if ref else math.nan
        word = "lower" if rel < 0 else "higher"
        size = f"{abs(rel):.1f} % {word}" if round(abs(rel), 1) > 0 else "the same (to 0.1 %)"
        parts.append(f"its {labels.get(m, m)} {size} ({fmt(x)} h against {fmt(ref)} h)")
    return f"{_name(b)} against {_name(a)}: " + "; ".join(parts) + "."

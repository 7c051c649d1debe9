r"""What the SpeCon notebooks found, written out from their result tables.

Y. Mao, Y. Fu, W. Zheng, L. Cheng, Q. Liu, D. Tao, "Speculative Container Scheduling for Deep
Learning Applications in a Kubernetes Cluster", arXiv:2010.11307; ``shared/spec/specon.md``.

The notebooks' markdown explains setups and mechanisms; every number this project measured is
printed by a function here, from the same tables the notebook prints, draws and judges, so prose,
tables, figures and the scorecard cannot disagree. The functions are pure: tables in, a string
(or a small table) out; they never run an experiment. The paper's own numbers come from
:data:`dlsched.specon.experiments.PAPER` and :data:`~dlsched.specon.experiments.PAPER_TABLE3`.

===============================  ===================================================================
notebook, section                functions
===============================  ===================================================================
``50_specon_model`` 4            :func:`fig1_reading`
``50_specon_model`` 8            :func:`run_reading`
``51_specon_checks`` 1           :func:`checks_reading`
``52_specon_figures`` 2          :func:`fig5_reading`
``52_specon_figures`` 3          :func:`table3_reading`
``52_specon_figures`` 4          :func:`random_reading`
``52_specon_figures`` 5          :func:`timeline_reading`
``52_specon_figures`` 6          :func:`sensitivity_reading`
``52_specon_figures`` 7          :func:`testbed_reading`
``52_specon_figures`` 8          :func:`scorecard`, :func:`scorecard_reading`, :func:`summary_reading`
===============================  ===================================================================

Conventions: the :func:`~dlsched.specon.experiments.gains` columns are *reductions* (positive =
SpeCon better); the sentences speak of *changes* (negative = SpeCon better), as the paper does
("-14.7 %"). Percentages are printed with one decimal, seconds with
:func:`dlsched.core.comparison.number`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from dlsched.core.comparison import number as _num
from dlsched.core.comparison import require_columns as _frame
from dlsched.fidelity import scorecard, scorecard_reading  # noqa: F401 - re-exported: notebook 52 calls them here
from dlsched.specon import experiments as sx

__all__ = [
    "checks_reading",
    "fig1_reading",
    "fig5_reading",
    "figure_label",
    "paper_value",
    "random_reading",
    "run_reading",
    "scorecard",
    "scorecard_reading",
    "sensitivity_reading",
    "summary_reading",
    "table3_reading",
    "testbed_reading",
    "timeline_reading",
]

_PCT = re.compile(r"-(\d+(?:\.\d+)?) %")
_SHARE = re.compile(r"(\d+) of (\d+)")
_FIRST = re.compile(r"(\d+(?:\.\d+)?)")


# ------------------------------------------------------------------------------- helpers


def _pct(x: float) -> str:
    """A change in percent with its sign: ``-1.7 %``."""
    return f"{x:+.1f} %"


def _join(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def figure_label(experiment: str) -> str:
    """The paper's name of an experiment key: ``"fig12"`` -> ``"Fig. 12"``, ``"table3"`` ->
    ``"Table III"``.

    >>> figure_label("fig7"), figure_label("table3")
    ('Fig. 7', 'Table III')
    """
    if experiment == "table3":
        return "Table III"
    m = re.fullmatch(r"fig(\d+)", str(experiment))
    if m is None:
        raise ValueError(f"figure_label: not an experiment key, got {experiment!r}")
    return f"Fig. {int(m.group(1))}"


def _fig_order(names) -> list[str]:
    return sorted(names, key=lambda f: int(re.sub(r"\D", "", f) or 0))


def paper_value(experiment: str, quantity: str) -> float:
    """A number the paper reports, read from :data:`dlsched.specon.experiments.PAPER`.

    For ``"jobs faster under SpeCon"`` the share of faster jobs in percent (``"11 of 20"`` ->
    55); for ``"DS makespan"`` the seconds; otherwise the reduction in percent the row states
    (``"-14.7 %"`` -> 14.7).

    Raises
    ------
    KeyError
        If the paper has no such row.
    """
    rows = dict(sx.PAPER[experiment])
    if quantity not in rows:
        raise KeyError(f"paper_value: {experiment} has no row {quantity!r}; rows {list(rows)}")
    text = rows[quantity]
    if quantity == "jobs faster under SpeCon":
        a, b = _SHARE.search(text).groups()  # type: ignore[union-attr]
        return 100.0 * float(a) / float(b)
    if quantity == "DS makespan":
        return float(_FIRST.search(text).group(1))  # type: ignore[union-attr]
    found = _PCT.findall(text)
    if not found:
        raise KeyError(f"paper_value: no percentage in {experiment} {quantity!r}: {text!r}")
    return float(found[-1])


# ------------------------------------------------------------------------ notebook 50


def fig1_reading(fig1: pd.DataFrame, at: float) -> str:
    """Notebook 50, section 4: our stand-in curves against the paper's Fig. 1 statistic.

    Parameters
    ----------
    fig1 : pandas.DataFrame
        Columns ``type``, ``ours_per_step``, ``ours_per_epoch``, ``paper`` (fractions of the
        whole loss reduction reached after ``at`` of the training).
    at : float
        The fraction of the training (0.2 for Fig. 1).

    Returns
    -------
    str
    """
    _frame(fig1, ["type", "ours_per_step", "ours_per_epoch", "paper"], "fig1_reading")
    step = fig1["ours_per_step"].to_numpy(float) * 100
    epoch = fig1["ours_per_epoch"].to_numpy(float) * 100
    paper = fig1["paper"].to_numpy(float) * 100
    same = list(np.argsort(step, kind="stable")) == list(np.argsort(paper, kind="stable"))
    gap = float(np.max(np.abs(step - paper)))
    return (
        f"After {at * 100:g} % of the training, on per-step losses, our stand-ins for "
        f"{_join(list(fig1['type']))} have made {_join([f'{v:.1f} %' for v in step])} of their loss "
        f"reduction (the paper: {_join([f'{v:g} %' for v in paper])}): "
        f"{'the same order' if same else 'a different order'}, at most {gap:.1f} points apart. "
        f"On the epoch-averaged evaluation function (the figure) they reach "
        f"{_join([f'{v:.1f} %' for v in epoch])}."
    )


def run_reading(
    table: pd.DataFrame,
    gains: pd.DataFrame,
    transitions: pd.DataFrame,
    requests: int,
    *,
    alpha: float,
    paper_ds_mean: float,
    paper_specon_mean: float,
) -> str:
    """Notebook 50, section 8: one run of DS and SpeCon on Fig. 5's fixed schedule, with what
    Algorithm 1 measured.

    Parameters
    ----------
    table : pandas.DataFrame
        Per job: ``jct_ds``, ``jct_specon``, ``moves``.
    gains : pandas.DataFrame
        Every gain Algorithm 1 computed (column ``gain``).
    transitions : pandas.DataFrame
        Every category change (``from``, ``to``); may be empty.
    requests : int
        Reallocation requests and moves the policy logged.
    alpha : float
        Algorithm 1's threshold.
    paper_ds_mean, paper_specon_mean : float
        The paper's mean completion times on this schedule (Fig. 5).

    Returns
    -------
    str
    """
    _frame(table, ["jct_ds", "jct_specon", "moves"], "run_reading")
    _frame(gains, ["gain"], "run_reading")
    moves = int(table["moves"].sum())
    ds, sp = float(table["jct_ds"].mean()), float(table["jct_specon"].mean())
    paper_change = (paper_specon_mean - paper_ds_mean) / paper_ds_mean * 100
    g = gains["gain"].to_numpy(float)
    below = int((g < alpha).sum())
    if len(transitions):
        counts = transitions.groupby(["from", "to"], sort=False).size()
        changes = _join([f"{a} -> {b} {int(n)}" for (a, b), n in counts.items()])
        cc = int((transitions["to"] == "CC").sum())
    else:
        changes, cc = "none", 0
    out = [
        f"SpeCon moved {moves} container(s) on Fig. 5's schedule; mean completion time DS "
        f"{ds:.1f} s, SpeCon {sp:.1f} s (the paper: {paper_ds_mean:g} s and {paper_specon_mean:g} s, "
        f"{_pct(paper_change)}).",
        f"Algorithm 1 computed {len(g)} gains; the smallest is {g.min():.4f} and {below} are below "
        f"alpha = {alpha:g}."
        if len(g)
        else "Algorithm 1 computed no gain.",
        f"Category changes: {changes}; changes into CC: {cc}; reallocation requests and moves "
        f"logged: {int(requests)}.",
    ]
    if moves == 0 and np.allclose(table["jct_ds"], table["jct_specon"]):
        out.append(
            f"So SpeCon = DS on this schedule: the paper's {_pct(paper_change)} is not reproduced "
            "with these default readings."
        )
    else:
        out.append(
            f"SpeCon's mean completion time is {_pct((sp - ds) / ds * 100)} from DS's "
            f"(the paper: {_pct(paper_change)})."
        )
    return "\n".join(out)


# ------------------------------------------------------------------------ notebook 51


def checks_reading(summary: pd.DataFrame, fixed: Sequence[str] = ()) -> str:
    """Notebook 51, section 1: the counts behind the checks of spec 8.1, 8.2 and 8.4.

    Parameters
    ----------
    summary : pandas.DataFrame
        Index ``(schedule, policy)``; columns ``moves``, ``max_moves``, ``wc_cc``,
        ``max_containers`` (maxima over seeds), as the notebook prints it.
    fixed : sequence of str
        The schedules with fixed launch times (Fig. 5's).

    Returns
    -------
    str
    """
    _frame(summary, ["moves", "max_moves", "wc_cc", "max_containers"], "checks_reading")
    df = summary.reset_index()
    _frame(df, ["schedule", "policy"], "checks_reading")
    most = df.groupby("policy")["max_moves"].max()
    out = [
        "Largest number of moves of one container, over all schedules and seeds: "
        + _join(
            [
                f"{'SpeCon' if p == 'specon' else 'DS'} {int(most[p])}"
                for p in ("specon", "ds")
                if p in most.index
            ]
        )
        + " (the limits: 1 for SpeCon, 0 for DS)."
    ]
    sp = df[df["policy"] == "specon"].set_index("schedule")
    for name in [s for s in fixed if s in sp.index]:
        r = sp.loc[name]
        out.append(
            f"Fixed schedule {name}: changes WC -> CC {int(r['wc_cc'])}, at most "
            f"{int(r['max_containers'])} containers on a node, SpeCon moves {int(r['moves'])}."
        )
    rand = [s for s in sp.index if s not in set(fixed)]
    if rand:
        out.append(
            "Random schedules, SpeCon's moves per run (largest over seeds): "
            + _join([f"{s} {int(sp.at[s, 'moves'])}" for s in rand])
            + "."
        )
    return "\n".join(out)


# ------------------------------------------------------------------------ notebook 52


def fig5_reading(g5: pd.DataFrame) -> str:
    """Notebook 52, section 2: what SpeCon did on Fig. 5's fixed schedule.

    Parameters
    ----------
    g5 : pandas.DataFrame
        :func:`~dlsched.specon.experiments.gains` rows of experiment ``fig5``.

    Returns
    -------
    str
    """
    _frame(g5, list(sx.GAIN_COLUMNS), "fig5_reading")
    moves = float((g5["moves_m"] + g5["moves_r"]).mean())
    p_faster = dict(sx.PAPER["fig5"])["jobs faster under SpeCon"].split(",")[0]
    p_mean = _pct(-paper_value("fig5", "SpeCon average completion time"))
    paper = f"(the paper: {p_faster} jobs faster, mean {p_mean})"
    if moves == 0 and (g5["n_faster"] == 0).all() and (g5["n_slower"] == 0).all():
        return (
            f"With the spec's default readings SpeCon moves no container on this schedule, so its "
            f"completion times are DS's exactly {paper}."
        )
    return (
        f"SpeCon moves {moves:g} container(s) on this schedule: {g5['n_faster'].mean():g} jobs "
        f"faster, {g5['n_slower'].mean():g} slower, mean completion time "
        f"{_pct(-float(g5['overall_pct'].mean()))} {paper}."
    )


def table3_reading(t3: pd.DataFrame, g3: pd.DataFrame) -> str:
    """Notebook 52, section 3: Table III, ours against the paper's.

    Parameters
    ----------
    t3 : pandas.DataFrame
        :func:`~dlsched.specon.experiments.table3` (``*_paper``, ``*_ours``, ``seeds``).
    g3 : pandas.DataFrame
        The :func:`~dlsched.specon.experiments.gains` rows behind it (``alpha``, ``interval``,
        ``seed``, ...).

    Returns
    -------
    str
    """
    cols = [
        "alpha",
        "interval",
        "overall_pct_paper",
        "reduced_pct_paper",
        "overall_pct_ours",
        "reduced_pct_ours",
        "best_pct_ours",
        "makespan_pct_ours",
        "seeds",
    ]
    _frame(t3, cols, "table3_reading")
    _frame(g3, ["alpha", "interval", "moves_m", "moves_r"], "table3_reading")
    moves = g3.assign(m=g3["moves_m"] + g3["moves_r"]).groupby(["alpha", "interval"])["m"].mean()
    t = t3.assign(
        moves=[float(moves.get((a, d), 0.0)) for a, d in zip(t3["alpha"], t3["interval"], strict=True)]
    )

    def rng(s: pd.Series, fmt=".1f") -> str:
        return f"{s.min():{fmt}} to {s.max():{fmt}} %"

    out = [
        f"The paper's SpeCon beats DS in every setting (Overall {rng(t['overall_pct_paper'])}, "
        f"Reduced {rng(t['reduced_pct_paper'], '.0f')}). Ours, mean of "
        f"{_join(sorted({str(int(s)) for s in t['seeds']}))} seed(s) per setting:"
    ]
    name = lambda r: f"alpha = {r['alpha']:g}, {r['interval']:g} s"  # noqa: E731
    moving, still = t[t["moves"] > 0], t[t["moves"] == 0]
    if len(moving):
        out.append(
            f"in the {len(moving)} setting(s) where our SpeCon moves containers, the average completion "
            f"time changes by {_pct(-moving['overall_pct_ours'].max())} to "
            f"{_pct(-moving['overall_pct_ours'].min())}, "
            f"{rng(moving['reduced_pct_ours'], '.0f')} of the jobs get faster and the best single job "
            f"gains {rng(moving['best_pct_ours'])}; the makespan changes by "
            f"{_pct(-moving['makespan_pct_ours'].max())} to {_pct(-moving['makespan_pct_ours'].min())}."
        )
    if len(still):
        out.append(
            f"In {_join([name(r) for _, r in still.iterrows()])} our SpeCon moves no container "
            "on any seed: its numbers are DS's."
        )
    return "\n".join(out)


def random_reading(g: Mapping[str, pd.DataFrame]) -> str:
    """Notebook 52, section 4: Figs. 6, 7 and 12 (random schedules), ours against the paper's.

    Parameters
    ----------
    g : Mapping[str, pandas.DataFrame]
        Experiment key (``"fig6"``, ``"fig7"``, ``"fig12"``) -> its
        :func:`~dlsched.specon.experiments.gains` rows (one per seed).

    Returns
    -------
    str
    """
    figs = _fig_order(g)
    for f in figs:
        _frame(g[f], ["seed", *sx.GAIN_COLUMNS], "random_reading")
    labels = [figure_label(f) for f in figs]
    mean = {c: [float(g[f][c].mean()) for f in figs] for c in ("overall_pct", "makespan_pct", "reduced_pct")}
    best = [float(g[f]["best_pct"].max()) for f in figs]
    p_over = [paper_value(f, "average completion time") for f in figs]
    p_mk = [paper_value(f, "makespan") for f in figs]
    p_red = [paper_value(f, "jobs faster under SpeCon") for f in figs]
    p_best = [paper_value(f, "best job") for f in figs]
    seeds = sorted({len(g[f]) for f in figs})
    lab = _join(labels)
    out = [
        f"Mean over {_join([str(s) for s in seeds])} seed(s), {lab}: SpeCon changes the average completion "
        f"time by {_join([_pct(-v) for v in mean['overall_pct']])} (the paper: "
        f"{_join([_pct(-v) for v in p_over])}) and the makespan by "
        f"{_join([_pct(-v) for v in mean['makespan_pct']])} (the paper: {_join([_pct(-v) for v in p_mk])})."
    ]
    worse = [
        lab
        for lab, o, m in zip(labels, mean["overall_pct"], mean["makespan_pct"], strict=True)
        if o <= 0 or m <= 0
    ]
    out.append(
        "Both fall on average in every figure, as the paper says."
        if not worse
        else f"They do not both fall on average in {_join(worse)}."
    )
    out.append(
        f"Jobs faster: {_join([f'{v:.0f} %' for v in mean['reduced_pct']])} (the paper: "
        f"{_join([f'{v:.0f} %' for v in p_red])}); the best single job over all seeds gains "
        f"{_join([f'{v:.1f} %' for v in best])} (the paper: {_join([f'{v:g} %' for v in p_best])})."
    )
    ratios = [p / o for p, o in zip(p_over, mean["overall_pct"], strict=True) if o > 0]
    if ratios:
        out.append(
            f"The paper's reductions of the average completion time are {min(ratios):.1f} to "
            f"{max(ratios):.1f} times ours."
        )
    runs = pd.concat([g[f].assign(figure=figure_label(f)) for f in figs], ignore_index=True)
    spread = _join(
        [
            f"{_pct(-g[f]['overall_pct'].max())} to {_pct(-g[f]['overall_pct'].min())} ({figure_label(f)})"
            for f in figs
        ]
    )
    bad = runs[runs["overall_pct"] < 0]
    line = (
        f"Per seed the change of the average completion time spreads from {spread}; "
        f"SpeCon is worse than DS on {len(bad)} of {len(runs)} runs"
    )
    if len(bad):
        w = bad.loc[bad["overall_pct"].idxmin()]
        line += f" (the worst: {w['figure']} seed {int(w['seed'])}, {_pct(-w['overall_pct'])})"
    top = runs.loc[runs["overall_pct"].idxmax()]
    top_paper = max(p_over)
    line += (
        f". The largest gain of any run is {top['overall_pct']:.1f} % "
        f"({top['figure']} seed {int(top['seed'])}); "
        f"{'none reaches' if top['overall_pct'] < top_paper else 'that reaches'} the paper's largest, "
        f"{top_paper:g} % ({labels[int(np.argmax(p_over))]})."
    )
    out.append(line)
    mk = []
    for f in figs:
        ours, paper = float(g[f]["ds_makespan"].mean()), paper_value(f, "DS makespan")
        mk.append(
            f"{_num(ours)} vs {_num(paper)} s ({figure_label(f)}, {_pct((ours - paper) / paper * 100)})"
        )
    out.append(f"DS's makespan, which we do not calibrate: {_join(mk)}.")
    return "\n".join(out)


def timeline_reading(
    moves: pd.DataFrame, timelines: Mapping[str, pd.DataFrame], *, slot_seconds: float = 0.1
) -> str:
    """Notebook 52, section 5 (Figs. 8-11): the moves and the per-worker load of one run.

    Parameters
    ----------
    moves : pandas.DataFrame
        :func:`dlsched.specon.paper.moves_run` rows (0-based ``job``, ``from``, ``to``; ``slot``).
    timelines : Mapping[str, pandas.DataFrame]
        ``"k8s_default"`` and ``"specon"`` -> :func:`dlsched.specon.experiments.timeline`
        (1-based ``job``, ``worker``).
    slot_seconds : float
        The engine's slot (the workload's ``slot_seconds``).

    Returns
    -------
    str
    """
    _frame(moves, ["slot", "job", "event", "from", "to"], "timeline_reading")
    for t in timelines.values():
        _frame(t, ["job", "worker", "start_s", "end_s", "cpu_pct"], "timeline_reading")
    n_m, n_r = int((moves["event"] == "M").sum()), int((moves["event"] == "R").sum())
    out = [
        f"SpeCon moves {n_m + n_r} container(s) in this run ({n_m} by Algorithm 2, {n_r} by "
        "Algorithm 3); DS moves none."
    ]
    most, peak = [], []
    for name, t in timelines.items():
        label = "DS" if name == "k8s_default" else "SpeCon"
        most.append(f"{label} {int(t.groupby(['worker', 'start_s']).size().max())}")
        p = t.groupby(["worker", "start_s"])["cpu_pct"].sum().groupby("worker").max()
        peak.append(
            f"{label} {p.min():.0f} %"
            if np.isclose(p.min(), p.max())
            else f"{label} {p.min():.0f} to {p.max():.0f} %"
        )
    out.append(
        f"Most containers on one worker at once: {_join(most)}; peak CPU use per worker: {_join(peak)}."
    )
    if len(moves) and "specon" in timelines:
        last = moves.loc[moves["slot"].idxmax()]
        t = float(last["slot"]) * slot_seconds
        sp = timelines["specon"]
        there = sp[
            (sp["worker"] == int(last["to"]) + 1)
            & (sp["start_s"] <= t)
            & (sp["end_s"] > t)
            & (sp["job"] != int(last["job"]) + 1)
        ]
        out.append(
            f"The last move ({last['event']}) sends Job-{int(last['job']) + 1} "
            f"from Worker-{int(last['from']) + 1} "
            f"to Worker-{int(last['to']) + 1} at {t:.1f} s, where "
            + (
                "no other container runs at that moment."
                if there.empty
                else f"{there['job'].nunique()} other container(s) run at that moment."
            )
        )
    return "\n".join(out)


def sensitivity_reading(sens_table: pd.DataFrame, gam: pd.DataFrame) -> str:
    """Notebook 52, section 6: what the readings of Algorithms 1-3, the pause and contention do.

    Parameters
    ----------
    sens_table : pandas.DataFrame
        Index ``(experiment, variant)``; columns ``overall_pct``, ``makespan_pct``, ``moves_m``,
        ``moves_r`` (means over seeds). Variants named ``"pause ..."`` and ``"contention ..."``
        are the pause and contention rows, ``"defaults"`` the spec's readings, the rest readings.
    gam : pandas.DataFrame
        :func:`~dlsched.specon.experiments.gains` rows with ``experiment`` and ``gamma``.

    Returns
    -------
    str
    """
    _frame(sens_table, ["overall_pct", "makespan_pct", "moves_m", "moves_r"], "sensitivity_reading")
    _frame(gam, ["experiment", "gamma", "overall_pct", "makespan_pct"], "sensitivity_reading")
    s = sens_table.reset_index()
    _frame(s, ["experiment", "variant"], "sensitivity_reading")
    kind = np.where(
        s["variant"].str.startswith("pause "),
        "pause",
        np.where(s["variant"].str.startswith("contention"), "contention", "reading"),
    )
    s = s.assign(kind=kind, moves=s["moves_m"] + s["moves_r"])
    out = []
    for f in _fig_order(s["experiment"].unique()):
        part = s[s["experiment"] == f]
        rd = part[part["kind"] == "reading"]
        line = f"{figure_label(f)}: "
        if float(part.loc[part["variant"] == "defaults", "moves"].sum()) > 0 and len(rd):
            lo, hi = rd.loc[rd["overall_pct"].idxmin()], rd.loc[rd["overall_pct"].idxmax()]
            line += (
                f"over the readings the reduction of the average completion time stays between "
                f"{lo['overall_pct']:.1f} % ({lo['variant']}) and {hi['overall_pct']:.1f} % ({hi['variant']})"
            )
            ps = part[part["kind"] == "pause"]
            if len(ps):
                line += (
                    f"; over the pauses ({_join(list(ps['variant']))}) between "
                    f"{ps['overall_pct'].min():.1f} % "
                    f"and {ps['overall_pct'].max():.1f} %"
                )
        else:
            mv = part[part["moves"] > 0]
            line += (
                "SpeCon moves no container under any variant"
                if mv.empty
                else "with the defaults SpeCon moves nothing; it moves containers only with "
                + _join([f"{r['variant']} (reduction {r['overall_pct']:.1f} %)" for _, r in mv.iterrows()])
            )
        out.append(line + ".")
    m = gam.groupby(["experiment", "gamma"])[["overall_pct", "makespan_pct"]].mean()
    figs = _fig_order(gam["experiment"].unique())
    labels = _join([figure_label(f) for f in figs])
    gmax, gmin = float(gam["gamma"].max()), float(gam["gamma"].min())
    over = _join([f"{m.at[(f, gmax), 'overall_pct']:.1f} %" for f in figs])
    span = _join([f"{m.at[(f, gmax), 'makespan_pct']:.1f} %" for f in figs])
    p_over = _join([f"{paper_value(f, 'average completion time'):g} %" for f in figs])
    p_span = _join([f"{paper_value(f, 'makespan'):g} %" for f in figs])
    out.append(
        f"Contention, gamma = {gmax:g} ({labels}): reduction of the average completion time {over}, "
        f"of the makespan {span}; the paper: {p_over}, makespan {p_span}."
    )
    base = [float(m.at[(f, gmin), "overall_pct"]) for f in figs]
    out.append(
        f"Under the work-conserving split (gamma = {gmin:g}) SpeCon's rebalancing reduces the average "
        f"completion time by {min(base):.1f} to {max(base):.1f} %."
    )
    return "\n".join(out)


def testbed_reading(parts: Mapping[str, object]) -> str:
    """Notebook 52, section 7: the real-process testbed, measured against the simulator.

    Parameters
    ----------
    parts : Mapping
        :func:`dlsched.specon.paper.testbed_parts` of the testbed's frame (``table``,
        ``summary``, ``pauses``, ``cpu``, ``run``).

    Returns
    -------
    str
    """
    table, summary = parts["table"], parts["summary"]
    pauses, cpu, run = parts["pauses"], parts["cpu"], parts["run"]
    _frame(table, ["job", "specon_moved", "specon_moved_predicted"], "testbed_reading")
    setup = [f"{run['jobs']} jobs"]
    if "nodes" in run:
        setup.append(f"{run['nodes']} nodes")
    if "alpha" in run:
        setup.append(f"alpha = {run['alpha']:g}")
    if "interval" in run:
        setup.append(f"{run['interval']:g}-s interval")
    if "launch_interval" in run:
        setup.append(f"launches every {run['launch_interval']:g} s")
    mc = summary["mean_completion"]
    mk = summary["makespan"]
    moved = [str(j).split("-")[0] for j in table.loc[table["specon_moved"], "job"]]
    moved_p = [str(j).split("-")[0] for j in table.loc[table["specon_moved_predicted"], "job"]]
    err = max(
        abs(mc[(p, "predicted")] - mc[(p, "measured")]) / mc[(p, "measured")] * 100 for p in ("ds", "specon")
    )
    d_mean = (mc[("specon", "measured")] - mc[("ds", "measured")]) / mc[("ds", "measured")] * 100
    d_mk = (mk[("specon", "measured")] - mk[("ds", "measured")]) / mk[("ds", "measured")] * 100
    out = [
        f"Setup: {', '.join(setup)}; the whole comparison (calibration and both runs) took "
        f"{run['wall_s']:.0f} s.",
        f"Mean completion time: DS {mc[('ds', 'measured')]:.1f} s measured vs "
        f"{mc[('ds', 'predicted')]:.1f} s "
        f"predicted by the simulator; SpeCon {mc[('specon', 'measured')]:.1f} s measured vs "
        f"{mc[('specon', 'predicted')]:.1f} s predicted (predictions within {err:.1f} %).",
        f"SpeCon moves {len(moved)} job(s) measured ({_join(moved) or 'none'}) and {len(moved_p)} predicted "
        f"({_join(moved_p) or 'none'}); against DS on the real processes: mean completion time "
        f"{_pct(d_mean)}, "
        f"makespan {_pct(d_mk)}.",
    ]
    n = int(pauses.get("n", 0))
    if n:
        sd = pauses.get("sd_s", math.nan)
        out.append(
            f"Measured migration pauses: {n}, mean {pauses['mean_s']:.2f} s"
            + (f" (sd {sd:.2f} s)" if math.isfinite(sd) else "")
            + f"; save {pauses['save_mean_s']:.2f} s, restore {pauses['restore_mean_s']:.2f} s; the paper's "
            f"bound is {pauses['paper_bound_s']:g} s (sd {pauses['paper_sd_s']:g} s)."
        )
    else:
        out.append("No migration was measured, so no pause either.")
    out.append(
        f"Loss sequences identical under DS and SpeCon (a restore continues exactly): "
        f"{'yes' if run['losses_identical'] else 'no'}."
    )
    if isinstance(cpu, pd.DataFrame) and "other_s" in cpu.columns and "capacity_s" in cpu.columns:
        share = cpu["other_s"] / cpu["capacity_s"] * 100
        out.append(
            "CPU of the nodes taken by other programs during the runs: "
            + _join([f"{'DS' if p == 'ds' else 'SpeCon'} {share[p]:.1f} %" for p in cpu.index])
            + "."
        )
    return "\n".join(out)


# ------------------------------------------------------------------------------ scorecard


def summary_reading(
    g: Mapping[str, pd.DataFrame],
    sens_table: pd.DataFrame,
    gam: pd.DataFrame,
    testbed: Mapping[str, object] | None = None,
) -> str:
    """Notebook 52's closing summary in numbers (after :func:`scorecard_reading`): the random
    schedules' gains against the paper's, the VAE-only schedules, the readings' and contention's
    effect, and the testbed.

    Parameters
    ----------
    g : Mapping[str, pandas.DataFrame]
        Experiment key -> :func:`~dlsched.specon.experiments.gains` rows, for every experiment
        of the notebook (``fig5``, ``table3``, ``fig6``, ``fig7``, ``fig12``; Table III's with
        ``alpha`` and ``interval``).
    sens_table, gam : pandas.DataFrame
        As :func:`sensitivity_reading`.
    testbed : Mapping, optional
        :func:`dlsched.specon.paper.testbed_parts` (None: not run).

    Returns
    -------
    str
    """
    out = []
    rand = [f for f in _fig_order(g) if f not in ("fig5", "table3")]
    if rand:
        over = [float(g[f]["overall_pct"].mean()) for f in rand]
        paper = [paper_value(f, "average completion time") for f in rand]
        best = max(float(g[f]["best_pct"].max()) for f in rand)
        p_best = max(paper_value(f, "best job") for f in rand)
        out.append(
            f"Random schedules ({_join([figure_label(f) for f in rand])}): SpeCon reduces the average "
            f"completion time by {min(over):.1f} to {max(over):.1f} % on average, where the paper "
            f"reports {min(paper):g} to {max(paper):g} %; the best single job gains up to {best:.1f} % "
            f"(the paper's best: {p_best:g} %)."
        )
    fixed = []
    if "fig5" in g:
        fixed.append(f"Fig. 5: {float((g['fig5']['moves_m'] + g['fig5']['moves_r']).mean()):g} moves")
    if "table3" in g:
        t = g["table3"]
        best = t[(t["alpha"] == 0.01) & (t["interval"] == 30.0)]
        if len(best):
            fixed.append(
                f"Table III at alpha = 0.01, 30 s: {float((best['moves_m'] + best['moves_r']).mean()):g} "
                "moves on average"
            )
        rest = (
            t[~((t["alpha"] == 0.01) & (t["interval"] == 30.0))]
            .groupby(["alpha", "interval"])["overall_pct"]
            .mean()
        )
        if len(rest):
            fixed.append(
                f"its other settings change the average completion time by {_pct(-rest.max())} to "
                f"{_pct(-rest.min())}"
            )
    if fixed:
        out.append("VAE-only schedules: " + "; ".join(fixed) + ".")
    s = sens_table.reset_index()
    if "fig7" in set(s["experiment"]):
        part = s[(s["experiment"] == "fig7") & ~s["variant"].str.startswith(("pause ", "contention"))]
        base = part.loc[part["variant"] == "defaults", "overall_pct"]
        if len(base):
            top = part.loc[part["overall_pct"].idxmax()]
            p7 = paper_value("fig7", "average completion time")
            out.append(
                f"The best reading of Algorithms 1-3 reduces Fig. 7's average completion time by "
                f"{top['overall_pct']:.1f} % ({top['variant']}; defaults {float(base.iloc[0]):.1f} %, the "
                f"paper {p7:g} %); with contention gamma = {float(gam['gamma'].max()):g} the "
                "reductions become "
                + _join(
                    [
                        f"{v:.1f} %"
                        for v in gam[gam["gamma"] == gam["gamma"].max()]
                        .groupby("experiment")["overall_pct"]
                        .mean()
                        .reindex(_fig_order(gam["experiment"].unique()))
                    ]
                )
                + f" ({_join([figure_label(f) for f in _fig_order(gam['experiment'].unique())])})."
            )
    if testbed is not None:
        mc = testbed["summary"]["mean_completion"]  # type: ignore[index]
        d = (mc[("specon", "measured")] - mc[("ds", "measured")]) / mc[("ds", "measured")] * 100
        err = max(
            abs(mc[(p, "predicted")] - mc[(p, "measured")]) / mc[(p, "measured")] * 100
            for p in ("ds", "specon")
        )
        out.append(
            f"Testbed: SpeCon's mean completion time is {_pct(d)} from DS's on real processes; the "
            f"simulator predicts both within {err:.1f} %."
        )
    return "\n".join(out)

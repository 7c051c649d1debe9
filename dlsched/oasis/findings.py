r"""What the OASiS notebooks found, as sentences printed from their result tables.

Y. Bao, Y. Peng, C. Wu, Z. Li, "Online Job Scheduling in Distributed Machine Learning Clusters",
IEEE INFOCOM 2018 (arXiv:1801.00936). The notebooks ``10_oasis_model``, ``11_oasis_proofs`` and
``12_oasis_figures`` type no number they measured into their markdown: each "Reading ..." cell
prints the sentences of a function here, computed from the same tables the figures, the
comparison tables and the scorecard come from, so the prose cannot drift from the data.

Every function is a pure function of its tables (no simulation, no I/O) and returns a string
(lines separated by ``"\n"``) or a small DataFrame. Numbers are rounded for reading with
:func:`dlsched.core.comparison.number` (whole numbers from 100 on, else three significant
digits), shares as percentages.

=========================  ===========  =====================================================
function                   notebook     reads
=========================  ===========  =====================================================
:func:`tau_reading`        10, sec. 2   which unit of :math:`\tau_i` lets jobs finish
:func:`price_wall_reading` 10, sec. 3   utilisation at which a price (22) reaches 1
:func:`lemma1_reading`     11, sec. 5   Lemma 1's premise against the share a job takes
:func:`theorem4_reading`   11, sec. 6   OPT/ALG, Theorem 4 and the links of its proof
:func:`decision_reading`   11, sec. 7   Theorem 3: local exponent, seconds per decision
:func:`fig3_reading`       12, Fig. 3   best scheme per load, OASiS's share of it
:func:`profile_reading`    12, Fig. 3   how OASiS and RRH use the cluster; what alpha does
:func:`cap_reading`        12, Fig. 3   OASiS with ln(U/L) capped (not in the paper)
:func:`fig4_reading`       12, Fig. 4   completion minus target per utility class
:func:`fig5_reading`       12, Fig. 5   OPT/OASiS bars, largest ratio, solver failures
:func:`fig6_reading`       12, Fig. 6   effect of the U/L estimates
:func:`testbed_reading`    12, Figs 8-9 the simulated testbed
:func:`scorecard`          12, end      every judged claim with our value
:func:`summary_reading`    12, end      the verdicts counted per figure
=========================  ===========  =====================================================
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from dlsched.core.comparison import number, require_columns

__all__ = [
    "cap_reading",
    "decision_reading",
    "fig3_reading",
    "fig4_reading",
    "fig5_reading",
    "fig6_reading",
    "lemma1_reading",
    "price_wall_reading",
    "profile_reading",
    "scorecard",
    "summary_reading",
    "tau_reading",
    "testbed_reading",
    "theorem4_reading",
]

#: The schemes of Figs. 3, 4, 8, 9 in the paper's legend order (as ``experiments.POLICIES``).
SCHEMES: tuple[str, ...] = ("oasis", "fifo", "drf", "rrh", "dorm")


def _pct(x: float, digits: int = 0) -> str:
    """``0.123 -> "12%"`` (``digits`` decimals); ``nan`` stays ``"nan"``."""
    x = float(x)
    return "nan" if math.isnan(x) else f"{100 * x:.{digits}f}%"


def _num(x: float) -> str:
    """:func:`~dlsched.core.comparison.number`, but three significant digits from 1e5 on."""
    x = float(x)
    return f"{x:.3g}" if math.isfinite(x) and abs(x) >= 1e5 else number(x)


def _signed(x: float) -> str:
    """A rounded number with its sign: ``+5``, ``-0.3``, ``0``."""
    s = number(x)
    return s if s.startswith("-") or s in ("0", "nan") else f"+{s}"


def _span(values) -> str:
    """``"1.07-2.93"`` over the finite values, or one number when both ends print the same."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if not len(v):
        return "nan"
    lo, hi = number(v.min()), number(v.max())
    return lo if lo == hi else f"{lo}-{hi}"


def _ordered(names) -> list[str]:
    """Scheme names in the paper's order, unknown names after them."""
    names = list(dict.fromkeys(str(n) for n in names))
    return [p for p in SCHEMES if p in names] + [n for n in names if n not in SCHEMES]


def _best(means: pd.Series) -> str:
    """Label of the largest value; ties go to the first in :data:`SCHEMES` order."""
    m = means.reindex(_ordered(means.index))
    return str(m.idxmax())


def _seeds(values, limit: int = 5) -> str:
    v = [str(int(x)) for x in values]
    return ", ".join(v[:limit]) + (", ..." if len(v) > limit else "")


# --------------------------------------------------------------------------- notebook 10


def tau_reading(readings: pd.DataFrame, jobs: pd.DataFrame, *, T: int, target: float = 15.0) -> str:
    r"""Notebook 10, section 2: how long jobs need under each reading of :math:`\tau_i`'s unit.

    Parameters
    ----------
    readings : pandas.DataFrame
        :func:`dlsched.oasis.explain.reading_table`: index ``reading``, columns
        ``cannot_finish``, ``either``, ``d_min_median``.
    jobs : pandas.DataFrame
        :func:`dlsched.oasis.explain.jobs_table` of the workload the notebook uses (the
        ``"seconds"`` reading): column ``d_min``.
    T : int
        The horizon.
    target : float, default 15
        The largest target completion time :math:`\gamma_3` of Sec. V-A.

    Returns
    -------
    str
        One line per reading, then the share of jobs whose :math:`d_i^{min}` is within ``target``.

    Raises
    ------
    TypeError, ValueError
        If a table is not a DataFrame or lacks a column.
    """
    require_columns(readings, ["cannot_finish", "either", "d_min_median"], "tau_reading")
    require_columns(jobs, ["d_min"], "tau_reading")
    lines = [
        f"{r} reading: median d_min {number(row['d_min_median'])} slots; "
        f"{_pct(row['cannot_finish'])} of the jobs cannot finish by T = {int(T)} even alone, "
        f"{_pct(row['either'])} cannot finish or can never be scheduled"
        for r, row in readings.iterrows()
    ]
    within = float((jobs["d_min"] <= target).mean()) if len(jobs) else math.nan
    lines.append(
        f"this workload (tau in seconds): {_pct(within)} of the jobs have d_min <= {number(target)} slots"
    )
    return "\n".join(lines)


def price_wall_reading(prices: pd.DataFrame) -> str:
    """Notebook 10, section 3: the utilisation at which a price (22) reaches 1.

    Parameters
    ----------
    prices : pandas.DataFrame
        :func:`dlsched.oasis.explain.price_table`: columns ``util_P_at_ref``, ``util_Q_at_ref``
        (NaN for a resource no job demands).

    Returns
    -------
    str
        The range of those utilisations over the demanded resources, per pool.

    Raises
    ------
    TypeError, ValueError
        If ``prices`` is not a DataFrame or lacks a column.
    """
    require_columns(prices, ["util_P_at_ref", "util_Q_at_ref"], "price_wall_reading")
    parts = []
    for col, pool in (("util_P_at_ref", "worker servers (P)"), ("util_Q_at_ref", "PS servers (Q)")):
        v = prices[col].dropna()
        if len(v):
            lo, hi = _pct(v.min(), 1), _pct(v.max(), 1)
            parts.append(f"{pool}: {lo}" + ("" if lo == hi else f"-{hi}"))
    body = "; ".join(parts) if parts else "no resource is demanded"
    return f"a price reaches 1 at a utilisation g/c of {body} of the capacity"


# --------------------------------------------------------------------------- notebook 11


def lemma1_reading(increments: pd.DataFrame, *, coarse: float = 0.5) -> str:
    r"""Notebook 11, section 5: how often Lemma 1's premise holds, for fine and coarse admissions.

    Parameters
    ----------
    increments : pandas.DataFrame
        Rows of :func:`dlsched.oasis.checks.lemma1_frame` with a ``family`` column (one row per
        admission): ``premise_holds``, ``premise_ratio``, ``max_share``.
    coarse : float, default 0.5
        An admission is *coarse* if it takes at least this share of some resource of a server.

    Returns
    -------
    str
        One line per family: admissions, share with the premise holding among the fine and the
        coarse ones, and the largest :math:`(D_i-D_{i-1})/(\alpha(P_i-P_{i-1}))`.

    Raises
    ------
    TypeError, ValueError
        If the table is not a DataFrame or lacks a column.
    """
    require_columns(increments, ["family", "premise_holds", "premise_ratio", "max_share"], "lemma1_reading")
    lines = []
    for fam, part in increments.groupby("family", sort=False):
        holds = part["premise_holds"].astype(bool)
        fine = part["max_share"] < coarse
        parts = []
        for label, mask in ((f"share < {number(coarse)}", fine), (f"share >= {number(coarse)}", ~fine)):
            n = int(mask.sum())
            parts.append(f"{_pct(holds[mask].mean())} of {n} with {label}" if n else f"none with {label}")
        worst = part["premise_ratio"].max()
        lines.append(
            f"{fam}: premise holds on {_pct(holds.mean())} of {len(part)} admissions "
            f"({'; '.join(parts)}); largest premise ratio {worst:.2g}"
        )
    return "\n".join(lines)


def theorem4_reading(ratios: pd.DataFrame, *, paper_range: tuple[float, float] = (1.1, 1.5)) -> str:
    r"""Notebook 11, section 6: OPT/ALG against Theorem 4's :math:`2\alpha` and the proof's links.

    Parameters
    ----------
    ratios : pandas.DataFrame
        Rows of :func:`dlsched.oasis.checks.ratio_point` (one per instance) with ``family``,
        ``seed``, ``vacuous``, ``ratio_best``, ``two_alpha``, ``alpha``, ``kappa``, ``holds``,
        ``opt_schedules_dual_feasible``, ``dual_ge_opt``, ``opt_below_alg``, ``milp_status``.
    paper_range : (float, float)
        The paper's Fig. 5 range of OPT/ALG.

    Returns
    -------
    str
        Per family: the range of :math:`2\alpha`, the distribution of OPT/ALG, the Theorem 4
        violations (with the worst one and its discrete factor :math:`\kappa/\alpha`), the
        instances whose optimum violates (20) or has :math:`D_I < OPT`, and the MILP solutions
        below OASiS's utility.

    Raises
    ------
    TypeError, ValueError
        If the table is not a DataFrame or lacks a column.
    """
    need = ["family", "seed", "vacuous", "ratio_best", "ratio", "two_alpha", "alpha", "kappa", "holds",
            "opt_schedules_dual_feasible", "dual_ge_opt", "opt_below_alg", "milp_status"]  # fmt: skip
    require_columns(ratios, need, "theorem4_reading")
    lo, hi = paper_range
    lines = []
    for fam, part in ratios.groupby("family", sort=False):
        live = part[~part["vacuous"].astype(bool)]
        r = live["ratio_best"].astype(float)
        fin = r[np.isfinite(r)]
        lines.append(
            f"{fam}: 2 alpha {_span(part['two_alpha'])} over {len(part)} instances "
            f"({len(part) - len(live)} vacuous); OPT/ALG on the {len(live)} others: "
            f"= 1 on {_pct((r <= 1 + 1e-6).mean())}, "
            f"below the paper's {number(lo)} on {_pct((r < lo).mean())}, "
            f"in {number(lo)}-{number(hi)} on {_pct(((r >= lo) & (r <= hi)).mean())}; "
            f"median {number(r.median())}, 90th percentile {number(r.quantile(0.9))}, "
            f"largest finite {_num(fin.max()) if len(fin) else 'nan'}"
        )
        over = live[~live["holds"].astype(bool)]
        if over.empty:
            lines.append(f"{fam}: OPT/ALG <= 2 alpha (Theorem 4) on every instance")
        else:
            worst = over.loc[over["ratio"].astype(float).idxmax()]
            lines.append(
                f"{fam}: Theorem 4 fails on {len(over)} of {len(live)} instances "
                f"(seeds {_seeds(over['seed'])}); "
                f"worst: seed {int(worst['seed'])}, OPT/ALG {float(worst['ratio']):.3g} against "
                f"2 alpha = {number(worst['two_alpha'])}, discrete factor kappa/alpha "
                f"{float(worst['kappa']) / float(worst['alpha']):.2g}"
            )
        eq20 = int((~live["opt_schedules_dual_feasible"].astype(bool)).sum())
        below = int((~live["dual_ge_opt"].astype(bool)).sum())
        solver = part[part["opt_below_alg"].astype(bool)]
        status = ", ".join(f"{k} {v}" for k, v in solver["milp_status"].value_counts().items())
        lines.append(
            f"{fam}: the optimum's schedules violate (20) on {eq20} and D_I < OPT on {below} of the "
            f"{len(live)} non-vacuous instances; MILP value below OASiS's utility on {len(solver)}"
            + (f" (status: {status}; seeds {_seeds(solver['seed'])})" if len(solver) else "")
        )
    return "\n".join(lines)


def decision_reading(times: pd.DataFrame, by_method: pd.DataFrame) -> str:
    r"""Notebook 11, section 7: Theorem 3's decision time as measured (machine-dependent).

    The fitted exponents of :math:`\text{seconds}\sim T^a(N_iE_i)^b` are
    :func:`dlsched.oasis.checks.loglog_slopes`; this adds what a global fit hides.

    Parameters
    ----------
    times : pandas.DataFrame
        :func:`dlsched.oasis.checks.decision_times`: ``T, NE, seconds`` (fast path).
    by_method : pandas.DataFrame
        :func:`dlsched.oasis.checks.decision_times_by_method`: ``method, T, NE, seconds``.

    Returns
    -------
    str
        The fast path's seconds per decision at its largest point; per method, the local
        exponent in :math:`N_iE_i` between the two largest :math:`N_iE_i` at the largest ``T``
        and the seconds per decision there.

    Raises
    ------
    TypeError, ValueError
        If a table is not a DataFrame or lacks a column.
    """
    require_columns(times, ["T", "NE", "seconds"], "decision_reading")
    require_columns(by_method, ["method", "T", "NE", "seconds"], "decision_reading")
    t, ne = int(times["T"].max()), int(times["NE"].max())
    big = times[(times["T"] == t) & (times["NE"] == ne)]["seconds"]
    lines = [f"fast path, many servers: {float(big.iloc[0]):.2g} s per decision at T = {t}, N_iE_i = {ne}"]
    t_max, sizes = int(by_method["T"].max()), sorted(int(v) for v in by_method["NE"].unique())
    for method, part in by_method.groupby("method", sort=False):
        top = part[part["T"] == t_max].groupby("NE")["seconds"].median().astype(float)
        if len(sizes) > 1:
            k0, k1 = sizes[-2], sizes[-1]
            local = f"{math.log(top[k1] / top[k0]) / math.log(k1 / k0):.2f}"
        else:
            local = "nan"
        lines.append(
            f"{method}: local exponent in N_iE_i at T = {t_max}: {local}; "
            f"{top[sizes[-1]]:.2g} s per decision at N_iE_i = {sizes[-1]}"
        )
    return "\n".join(lines)


# --------------------------------------------------------------------------- notebook 12


def _means(totals: pd.DataFrame, index: str, columns: str, what: str) -> pd.DataFrame:
    require_columns(totals, [index, columns, "total_utility"], what)
    return totals.groupby([index, columns])["total_utility"].mean().unstack(columns)


def fig3_reading(totals: pd.DataFrame, *, load: str = "n_jobs") -> str:
    """Notebook 12, Fig. 3: the best scheme per load and OASiS against it.

    Parameters
    ----------
    totals : pandas.DataFrame
        :func:`dlsched.oasis.experiments.run_totals` by ``["policy", load, "seed"]``.
    load : str, default "n_jobs"

    Returns
    -------
    str
        The best scheme and its mean total utility per load, OASiS's utility over the best other
        scheme's per load, and the schemes OASiS beats at every load.

    Raises
    ------
    TypeError, ValueError
        If the table is not a DataFrame, lacks a column or has no OASiS run.
    """
    require_columns(totals, ["seed"], "fig3_reading")
    m = _means(totals, load, "policy", "fig3_reading")
    if "oasis" not in m.columns:
        raise ValueError("fig3_reading: totals has no 'oasis' run")
    seeds = totals["seed"].nunique()
    best = "; ".join(f"{int(n)} jobs: {_best(row)} {number(row.max())}" for n, row in m.iterrows())
    others = m.drop(columns="oasis")
    rel = m["oasis"] / others.max(axis=1)
    ahead = [p for p in _ordered(others.columns) if bool((m["oasis"] > m[p]).all())]
    return "\n".join(
        [
            f"best scheme per load (mean total utility, {seeds} seed(s)): {best}",
            "OASiS / best other scheme: " + ", ".join(f"{number(v)} ({int(n)} jobs)" for n, v in rel.items()),
            "OASiS is ahead of " + (", ".join(ahead) if ahead else "no other scheme") + " at every load",
        ]
    )


def profile_reading(profile: pd.DataFrame, *, below: float = 1e-3) -> str:
    """Notebook 12, Fig. 3: how OASiS and RRH used the cluster in one run, and what alpha means.

    Parameters
    ----------
    profile : pandas.DataFrame
        :func:`dlsched.oasis.paper.fig3_check_run` (or ``run_profile`` with columns ``alpha``):
        ``policy, finished, utility_per_finished, mean_jct, gpu_busy, alpha``.
    below : float, default 1e-3
        The price level, as a fraction of ``U``, whose crossing utilisation is reported.

    Returns
    -------
    str
        One line per scheme, then the utilisation up to which a price (22) stays below
        ``below`` times ``U`` for the resource with the largest ``ln(U/L) = alpha``
        (``L e^{alpha u} = U e^{-alpha (1-u)}``).

    Raises
    ------
    TypeError, ValueError
        If the table is not a DataFrame or lacks a column.
    """
    cols = ["policy", "finished", "utility_per_finished", "mean_jct", "gpu_busy", "alpha"]
    require_columns(profile, cols, "profile_reading")
    lines = [
        f"{row['policy']}: GPUs {_pct(row['gpu_busy'])} allocated on average, {int(row['finished'])} jobs "
        f"finished, mean JCT {number(row['mean_jct'])} slots, utility {number(row['utility_per_finished'])} "
        f"per finished job"
        for _, row in profile.iterrows()
    ]
    alpha = float(profile["alpha"].iloc[0])
    u = 1 - math.log(1 / below) / alpha
    lines.append(
        f"alpha = {number(alpha)}: a price stays below {below:g} U "
        f"up to a utilisation of {_pct(max(u, 0.0), 1)}"
    )
    return "\n".join(lines)


def cap_reading(table: pd.DataFrame, capped: pd.DataFrame, *, load: str = "n_jobs") -> str:
    r"""Notebook 12, OASiS with :math:`\ln(U/L)` capped (our experiment, not the paper's).

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`dlsched.oasis.experiments.alpha_cap_table` (index: load; columns ``oasis``,
        ``oasis ln(U/L)<=c`` per cap, ``best baseline``, ``baseline utility``).
    capped : pandas.DataFrame
        :func:`dlsched.oasis.experiments.run_totals` of the capped runs by
        ``["max_log_ratio", load, "seed"]`` (columns ``max_log_ratio``, ``admitted``).
    load : str, default "n_jobs"

    Returns
    -------
    str
        Per load the best cap, its utility against the best baseline and against OASiS with
        (23)-(26); the caps that beat the best baseline at every load; the caps at which OASiS
        admitted no job at any load.

    Raises
    ------
    TypeError, ValueError
        If a table is not a DataFrame or lacks a column.
    """
    require_columns(table, ["oasis", "best baseline", "baseline utility"], "cap_reading")
    require_columns(capped, ["max_log_ratio", "admitted"], "cap_reading")
    caps = [c for c in table.columns if c.startswith("oasis ln(U/L)<=")]
    if not caps:
        raise ValueError("cap_reading: the table has no 'oasis ln(U/L)<=c' column")
    lines = []
    for n, row in table.iterrows():
        vals = row[caps].astype(float)
        c = vals.idxmax()
        lines.append(
            f"{int(n)} jobs: best cap {c.removeprefix('oasis ')} earns {number(vals[c])}, "
            f"{number(vals[c] / row['baseline utility'])} x the best baseline ({row['best baseline']} "
            f"{number(row['baseline utility'])}) and {number(vals[c] / row['oasis'])} x OASiS with (23)-(26)"
        )
    beat = [c.removeprefix("oasis ") for c in caps if bool((table[c] > table["baseline utility"]).all())]
    lines.append("caps beating the best baseline at every load: " + (", ".join(beat) if beat else "none"))
    admitted = capped.groupby("max_log_ratio")["admitted"].sum()
    none = [f"ln(U/L)<={c:g}" for c, a in admitted.items() if a == 0]
    lines.append("caps at which OASiS admitted no job at any load: " + (", ".join(none) if none else "none"))
    return "\n".join(lines)


def fig4_reading(stats: pd.DataFrame, *, classes: Sequence[str] = ("time-sensitive", "time-critical"),
                 min_finished: int = 3, near: float = 1.0) -> str:  # fmt: skip
    """Notebook 12, Fig. 4: completion minus target per utility class.

    Parameters
    ----------
    stats : pandas.DataFrame
        :func:`dlsched.oasis.experiments.timeliness` by ``["policy", "utility_class"]``:
        ``policy, utility_class, finished, median, iqr``.
    classes : sequence of str
        The classes to read (Fig. 4's two).
    min_finished : int, default 3
        Schemes with fewer finished jobs of a class are not ranked for it.
    near : float, default 1
        A median within ``near`` slots of 0 counts as on target.

    Returns
    -------
    str
        Per class: OASiS's median and IQR, the schemes whose median is within ``near`` slots of
        the target, and the scheme with the smallest IQR.

    Raises
    ------
    TypeError, ValueError
        If the table is not a DataFrame or lacks a column.
    """
    require_columns(stats, ["policy", "utility_class", "finished", "median", "iqr"], "fig4_reading")
    lines = []
    for cls in classes:
        s = stats[(stats["utility_class"] == cls) & (stats["finished"] >= min_finished)].set_index("policy")
        if s.empty:
            lines.append(f"{cls}: no scheme finished {min_finished} or more jobs")
            continue
        o = (f"OASiS median {_signed(s.loc['oasis', 'median'])} slots, IQR {number(s.loc['oasis', 'iqr'])} "
             f"({int(s.loc['oasis', 'finished'])} finished)" if "oasis" in s.index
             else f"OASiS finished fewer than {min_finished} jobs")  # fmt: skip
        on = [p for p in _ordered(s.index) if abs(s.loc[p, "median"]) <= near]
        tight = s["iqr"].reindex(_ordered(s.index)).idxmin()
        lines.append(
            f"{cls}: {o}; medians within {number(near)} slot of the target: "
            f"{', '.join(on) if on else 'none'}; "
            f"smallest IQR: {tight} ({number(s.loc[tight, 'iqr'])})"
        )
    return "\n".join(lines)


def fig5_reading(ratios: pd.DataFrame, summary: pd.DataFrame) -> str:
    r"""Notebook 12, Fig. 5: the OPT/OASiS bars, the largest ratio and the solver's failures.

    Parameters
    ----------
    ratios : pandas.DataFrame
        Rows of :func:`dlsched.oasis.experiments.ratio_run` with the sweep's ``servers`` and
        ``seed``: ``gamma1_range``, ``ratio``, ``two_alpha``, ``milp_below_oasis``, ``milp_status``.
    summary : pandas.DataFrame
        :func:`dlsched.oasis.experiments.ratio_summary` of ``ratios`` by ``("servers",
        "gamma1_range")`` in grid order: ``servers, gamma1_range, instances, used, oasis_zero,
        mean, median``.

    Returns
    -------
    str
        The span of the bars' means and medians; whether the mean grows from the first to the
        last priority range per server count; the largest finite ratio with its instance and
        :math:`2\alpha`; instances left out; MILP values below OASiS's utility.

    Raises
    ------
    TypeError, ValueError
        If a table is not a DataFrame or lacks a column.
    """
    require_columns(ratios, ["servers", "seed", "gamma1_range", "ratio", "two_alpha", "milp_below_oasis",
                             "milp_status"], "fig5_reading")  # fmt: skip
    require_columns(summary, ["servers", "gamma1_range", "instances", "used", "oasis_zero", "mean", "median"],
                    "fig5_reading")  # fmt: skip
    groups = summary.groupby("servers", sort=False)["mean"]
    grows = sum(bool(g.iloc[-1] > g.iloc[0]) for _, g in groups if len(g) > 1)
    r = ratios["ratio"].astype(float)
    fin = ratios[np.isfinite(r)]
    lines = [
        f"bars: means {_span(summary['mean'])}, medians {_span(summary['median'])} over {len(summary)} bars",
        f"the mean grows from the first to the last gamma1 range at {grows} of {groups.ngroups} "
        "server counts",
    ]
    if len(fin):
        w = fin.loc[fin["ratio"].astype(float).idxmax()]
        holds = "holds" if float(w["ratio"]) <= float(w["two_alpha"]) + 1e-9 else "fails"
        lines.append(
            f"largest ratio {number(w['ratio'])}: {int(w['servers'])} servers, gamma1 {w['gamma1_range']}, "
            f"seed {int(w['seed'])}; 2 alpha there {number(w['two_alpha'])}, so Theorem 4 {holds} there"
        )
    dropped = int((summary["instances"] - summary["used"] - summary["oasis_zero"]).sum())
    lines.append(f"instances left out (OPT = OASiS = 0): {dropped} of {len(ratios)}; OASiS 0 with OPT > 0: "
                 f"{int(summary['oasis_zero'].sum())}")  # fmt: skip
    bad = ratios[ratios["milp_below_oasis"].astype(bool)]
    status = ", ".join(f"{k} {v}" for k, v in bad["milp_status"].value_counts().items())
    lines.append(
        f"MILP incumbent below OASiS's utility: {len(bad)} of {len(ratios)} instances"
        + (f" (status: {status}; seeds {_seeds(sorted(set(bad['seed'])))})" if len(bad) else "")
    )
    return "\n".join(lines)


def fig6_reading(totals: pd.DataFrame, *, alpha: float | None = None, load: str = "n_jobs") -> str:
    r"""Notebook 12, Fig. 6: how much the :math:`U/L` estimates change OASiS's total utility.

    Parameters
    ----------
    totals : pandas.DataFrame
        :func:`dlsched.oasis.experiments.run_totals` by ``["u_scale", "estimate", load, "seed"]``.
    alpha : float, optional
        Theorem 4's :math:`\alpha` of such a workload: the reading then says what a factor 10 on
        ``U`` does to :math:`\ln(U/L)`.
    load : str, default "n_jobs"

    Returns
    -------
    str
        The largest relative difference between the estimates' mean utilities per load, the best
        estimate per load, under- against over-estimates at the highest load.

    Raises
    ------
    TypeError, ValueError
        If the table is not a DataFrame or lacks a column.
    """
    m = _means(totals, load, "u_scale", "fig6_reading")
    spread = (m.max(axis=1) - m.min(axis=1)) / m.mean(axis=1)
    best = ", ".join(f"{int(n)} jobs: {100 * float(row.idxmax()):g}%" for n, row in m.iterrows())
    top = m.iloc[-1]
    under, over = top[top.index < 1].mean(), top[top.index > 1].mean()
    lines = [
        "largest difference between estimates (max - min over mean): "
        + ", ".join(f"{_pct(v, 1)} ({int(n)} jobs)" for n, v in spread.items()),
        f"best estimate per load: {best}",
        f"at {int(m.index[-1])} jobs: under-estimates {number(under)} vs over-estimates {number(over)} "
        f"({(under - over) / over:+.1%})",
    ]
    if alpha is not None:
        lines.append(
            f"alpha = ln(U/L) = {number(alpha)}; a factor 10 on U moves it by ln 10 = 2.3, "
            f"{_pct(math.log(10) / float(alpha), 2)} of it"
        )
    return "\n".join(lines)


def testbed_reading(totals: pd.DataFrame, stats: pd.DataFrame, *, T: int) -> str:
    """Notebook 12, Figs. 8-9: the simulated testbed.

    Parameters
    ----------
    totals : pandas.DataFrame
        :func:`dlsched.oasis.experiments.run_totals` by ``["T", "policy", "seed"]``.
    stats : pandas.DataFrame
        :func:`dlsched.oasis.experiments.timeliness` by ``"policy"`` at horizon ``T``.
    T : int
        The paper's horizon (10 slots); the other horizons of ``totals`` are read too.

    Returns
    -------
    str
        Per horizon the schemes ranked by mean total utility and the seeds on which OASiS beats
        the best other scheme; at ``T`` the finished jobs per run and OASiS's median completion
        minus target.

    Raises
    ------
    TypeError, ValueError
        If a table is not a DataFrame or lacks a column.
    """
    require_columns(totals, ["T", "policy", "seed", "total_utility", "finished"], "testbed_reading")
    require_columns(stats, ["policy", "finished", "median"], "testbed_reading")
    lines = []
    for horizon, part in totals.groupby("T", sort=True):
        m = part.groupby("policy")["total_utility"].mean()
        order = m.reindex(_ordered(m.index)).sort_values(ascending=False, kind="stable")
        ranking = ", ".join(f"{p} {number(v)}" for p, v in order.items())
        line = f"T = {int(horizon)}: {ranking} (mean over {part['seed'].nunique()} seeds)"
        if "oasis" in m.index and len(m) > 1:
            rival = _best(m.drop("oasis"))
            per = part.pivot_table(index="seed", columns="policy", values="total_utility")
            wins = int((per["oasis"] > per[rival]).sum())
            line += f"; OASiS above {rival} on {wins} of {len(per)} seeds"
        lines.append(line)
    at = totals[totals["T"] == T].groupby("policy")["finished"].mean()
    per_run = ", ".join(f"{p} {number(at[p])}" for p in _ordered(at.index))
    lines.append(f"T = {int(T)}, finished jobs per run: {per_run}")
    s = stats.set_index("policy")
    if "oasis" in s.index:
        lines.append(
            f"T = {int(T)}: OASiS's finished jobs end {_signed(s.loc['oasis', 'median'])} slots from "
            f"their target (median of {int(s.loc['oasis', 'finished'])})"
        )
    return "\n".join(lines)


def scorecard(comparisons: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Every judged row of the paper-vs-ours tables, with our value: ``figure, quantity, paper,
    ours, match``.

    Parameters
    ----------
    comparisons : Mapping[str, pandas.DataFrame]
        Figure label -> output of a ``figN_comparison`` function of
        :mod:`dlsched.oasis.experiments` (columns ``quantity, paper, ours, match``).

    Returns
    -------
    pandas.DataFrame
        Rows whose ``match`` is not ``"-"``, figures in the order given.

    Raises
    ------
    TypeError, ValueError
        If a table is not a DataFrame or lacks a column.
    """
    parts = []
    for fig, t in comparisons.items():
        require_columns(t, ["quantity", "paper", "ours", "match"], "scorecard")
        parts.append(t.loc[t["match"] != "-", ["quantity", "paper", "ours", "match"]].assign(figure=str(fig)))
    cols = ["figure", "quantity", "paper", "ours", "match"]
    if not parts:
        return pd.DataFrame(columns=cols)
    return pd.concat(parts, ignore_index=True)[cols]


def summary_reading(card: pd.DataFrame) -> str:
    """The verdicts of a scorecard counted, and listed per figure.

    Parameters
    ----------
    card : pandas.DataFrame
        :func:`scorecard` (columns ``figure``, ``match``).

    Returns
    -------
    str
        ``"<n> judged claims: <a> yes, <b> partly, <c> no"`` and one line of verdicts per figure.

    Raises
    ------
    TypeError, ValueError
        If the table is not a DataFrame or lacks a column.
    """
    require_columns(card, ["figure", "match"], "summary_reading")
    counts = card["match"].value_counts()
    tally = ", ".join(f"{int(counts.get(v, 0))} {v}" for v in ("yes", "partly", "no"))
    head = f"{len(card)} judged claims: {tally}"
    per = [f"{fig}: {', '.join(part['match'])}" for fig, part in card.groupby("figure", sort=False)]
    return "\n".join([head, *per])

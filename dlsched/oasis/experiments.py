r"""OASiS Sec. V as experiments: Figs. 3-6 (simulation) and 8-9 (testbed), and what the paper reports.

Y. Bao, Y. Peng, C. Wu, Z. Li, "Online Job Scheduling in Distributed Machine Learning Clusters",
IEEE INFOCOM 2018 (arXiv:1801.00936), Sec. V; ``shared/spec/oasis.md`` section 11. This module
holds the sweepable experiment functions of notebook ``12_oasis_figures`` (each is
``fn(params: dict) -> pandas.DataFrame`` for :func:`dlsched.experiments.sweep`, deterministic
given ``params``, seed included), the summaries the notebook prints, and the paper's reported
values and trends as tables.

==========  ===========================================  ==========================================
figure      what the paper plots                         experiment function
==========  ===========================================  ==========================================
Fig. 3      total utility vs number of jobs, 5 schemes   :func:`utility_run` (one scheme, one run)
Fig. 4      actual minus target completion, per class    :func:`utility_run` (per-job rows)
Fig. 5      OPT / OASiS vs servers and :math:`\gamma_1`  :func:`ratio_run` (MILP vs OASiS)
Fig. 6      OASiS with mis-estimated :math:`U/L`         :func:`estimate_run` (``u_scale``)
Figs. 8-9   testbed: total utility, actual - target      :func:`testbed_run` (simulated testbed)
==========  ===========================================  ==========================================

Parameters of the simulation experiments (all optional except where noted):

* ``policy`` (required except in :func:`estimate_run`): one of :data:`POLICIES`, built with
  :func:`dlsched.registry.make_policy` (OASiS gets the workload's true price parameters
  (23)-(26); FIFO and RRH use the jobs' fixed worker counts ``requested_workers``, drawn in
  [1, 30] as Sec. V-A says);
* ``seed``: int >= 0 (default 0); the workload is ``make_workload(name, seed=seed, ...)`` and the
  simulation ``simulate(..., seed=seed)``;
* workload sizes as scalars (``n_jobs``, ``T``, ``H``, ``K`` for :func:`utility_run` /
  :func:`estimate_run`; ``n_jobs``, ``T`` for :func:`testbed_run`), so that they become columns of
  the sweep's result; any other workload argument in a dict ``workload`` (e.g.
  ``{"mix": [0, 0.5, 0.5]}``);
* ``policy_params``: dict of extra policy arguments (e.g. ``{"threshold": 1.0}`` for RRH).

Every simulation function returns one row per job (:data:`JOB_COLUMNS`); :func:`run_totals`
aggregates them per run, :func:`timeliness` per scheme and utility class.

Our readings (also stated in the notebook): :math:`\tau_i` in seconds with 1-hour slots
(:mod:`dlsched.oasis.model`); Fig. 5 splits ``servers`` into :math:`H=\lceil n/2\rceil` worker
and :math:`K=\lfloor n/2\rfloor` PS servers (the paper: "proportionally", as its 50/50); Fig. 6
multiplies :math:`U` at fixed :math:`L` (:meth:`dlsched.oasis.policy.PriceParameters.scaled`);
OPT in Fig. 5 is the MILP of :mod:`dlsched.oasis.offline` with a time limit, and since OASiS's
own schedule is feasible for (1)-(13), OPT is taken as at least OASiS's utility (see
:func:`ratio_run`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from dlsched import registry
from dlsched.core import metrics
from dlsched.core.claims import Claim
from dlsched.core.comparison import column_list as _by
from dlsched.core.simulator import simulate
from dlsched.oasis.model import utility_classes

__all__ = [
    "FIGURE_CLASSES",
    "GAMMA1_RANGES",
    "JOB_COLUMNS",
    "PAPER",
    "POLICIES",
    "RATIO_COLUMNS",
    "ALPHA_CAPS",
    "U_SCALES",
    "alpha_cap_table",
    "capped_run",
    "estimate_label",
    "estimate_run",
    "fig3_comparison",
    "fig4_comparison",
    "fig5_comparison",
    "fig6_comparison",
    "fig8_comparison",
    "fig9_comparison",
    "paper_table",
    "ratio_claim",
    "ratio_figure",
    "ratio_run",
    "ratio_summary",
    "run_profile",
    "run_totals",
    "scorecard",
    "split_servers",
    "testbed_run",
    "timeliness",
    "timeliness_figure",
    "utility_run",
]

POLICIES: tuple[str, ...] = ("oasis", "fifo", "drf", "rrh", "dorm")
"""The five schemes of Figs. 3, 4, 8, 9, in the paper's legend order."""

GAMMA1_RANGES: tuple[tuple[float, float], ...] = ((75.0, 100.0), (50.0, 100.0), (25.0, 100.0), (1.0, 100.0))
r"""Fig. 5's priority ranges, ordered so that :math:`\max_r U/L` grows left to right (spec 11.3)."""

FIGURE_CLASSES: tuple[str, ...] = ("time-sensitive", "time-critical")
"""The utility classes Fig. 4 shows."""

U_SCALES: tuple[float, ...] = (0.2, 0.5, 1.0, 3.0, 5.0, 10.0)
"""Fig. 6's estimates of U/L as fractions of the true values (20 % ... 1000 %)."""

ALPHA_CAPS: tuple[float, ...] = (5.0, 10.0, 20.0, 50.0)
r"""Caps on :math:`\ln(U/L)` for :func:`capped_run` (not in the paper; (23)-(26) give hundreds)."""

JOB_COLUMNS: tuple[str, ...] = (
    "job_id", "job_name", "utility_class", "gamma1", "arrival", "target", "status", "admitted",
    "completion_slot", "utility", "completion_minus_target",
)  # fmt: skip
"""Columns of the per-job tables of :func:`utility_run`, :func:`estimate_run`, :func:`testbed_run`."""

RATIO_COLUMNS: tuple[str, ...] = (
    "H", "K", "gamma1_range", "oasis_utility", "oasis_admitted", "milp_objective", "milp_bound",
    "milp_status", "mip_gap", "milp_below_oasis", "opt", "ratio", "ratio_upper", "alpha",
    "two_alpha", "solve_seconds",
)  # fmt: skip
"""Columns of the one-row table of :func:`ratio_run`."""

_TOL = 1e-6

# ------------------------------------------------------------------------------- validation


def _int(value: Any, what: str, lo: int = 1) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < lo:
        raise ValueError(f"{what} must be an integer >= {lo}, got {value!r}")
    return int(value)


def _positive(value: Any, what: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise ValueError(f"{what} must be a finite number > 0, got {value!r}")
    x = float(value)
    if not math.isfinite(x) or x <= 0:
        raise ValueError(f"{what} must be a finite number > 0, got {value!r}")
    return x


def _mapping(value: Any, what: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise ValueError(f"{what} must be a dict with str keys, got {value!r}")
    return dict(value)


def _check_keys(params: Any, allowed: Sequence[str], required: Sequence[str], fn: str) -> dict:
    if not isinstance(params, Mapping):
        raise TypeError(f"{fn}: params must be a mapping, got {type(params).__name__}")
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise ValueError(f"{fn}: unknown parameter(s) {unknown}; known: {sorted(allowed)}")
    missing = [k for k in required if k not in params]
    if missing:
        raise ValueError(f"{fn}: missing parameter(s) {missing}; got {sorted(params)}")
    return dict(params)


def _policy_name(value: Any, fn: str) -> str:
    if value not in POLICIES:
        raise ValueError(f"{fn}: policy must be one of {POLICIES}, got {value!r}")
    return str(value)


def _workload_kwargs(p: dict, scalars: Sequence[str], fn: str) -> dict[str, Any]:
    kw = _mapping(p.get("workload"), f"{fn}: workload")
    for k in scalars:
        if k in p:
            if k in kw:
                raise ValueError(f"{fn}: {k!r} given both as a parameter and inside 'workload'")
            kw[k] = _int(p[k], f"{fn}: {k}")
    return kw


# ------------------------------------------------------------------------------- per-job table


def _job_table(result) -> pd.DataFrame:
    """One row per job of a simulation (:data:`JOB_COLUMNS`)."""
    specs = result.workload.specs
    j = result.jobs
    ids = j["job_id"].to_numpy()
    gamma1 = np.array([float(getattr(specs[int(i)].utility, "gamma1", math.nan)) for i in ids])
    gamma2 = np.array([float(getattr(specs[int(i)].utility, "gamma2", 0.0)) for i in ids])
    out = pd.DataFrame(
        {
            "job_id": j["job_id"].astype("int64"),
            "job_name": j["name"].astype(str),
            "utility_class": pd.Series(utility_classes(gamma2), dtype=object).astype(str),
            "gamma1": gamma1,
            "arrival": j["arrival"].astype("int64"),
            "target": j["target"].astype(float),
            "status": j["status"].astype(str),
            "admitted": j["admitted"].astype(bool),
            "completion_slot": j["completion_slot"].astype(float),
            "utility": j["utility"].astype(float),
            "completion_minus_target": j["completion_minus_target"].astype(float),
        }
    )
    return out.reset_index(drop=True)


def _simulate(workload_name: str, policy: str, seed: int, wkw: dict, pkw: dict) -> pd.DataFrame:
    wl = registry.make_workload(workload_name, seed=seed, **wkw)
    pol = registry.make_policy(policy, wl, **pkw)
    return _job_table(simulate(wl, pol, seed=seed))


def utility_run(params: Mapping[str, Any]) -> pd.DataFrame:
    """Experiment (Figs. 3-4): one scheme on one Sec. V-A workload, one row per job.

    Parameters
    ----------
    params : Mapping
        ``policy`` (required, one of :data:`POLICIES`), ``seed`` (int, default 0), ``n_jobs``,
        ``T``, ``H``, ``K`` (ints; defaults of :func:`dlsched.oasis.model.oasis_workload`),
        ``workload`` (dict of other ``oasis_workload`` arguments), ``policy_params`` (dict of
        policy arguments).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`JOB_COLUMNS`: the job's id, name (its utility class), utility class from
        :math:`\\gamma_2`, priority :math:`\\gamma_1`, arrival slot, target :math:`\\gamma_3`,
        status (``finished``, ``rejected``, ``unfinished``), whether it was admitted, completion
        slot, realised utility (0 unless finished) and completion slot minus arrival minus target
        (NaN unless finished). :func:`run_totals` sums it per run.

    Raises
    ------
    TypeError
        If ``params`` is not a mapping.
    ValueError
        On an unknown or missing parameter or a bad value (the message names it).
    """
    fn = "utility_run"
    allowed = ("policy", "seed", "n_jobs", "T", "H", "K", "workload", "policy_params")
    p = _check_keys(params, allowed, ("policy",), fn)
    policy = _policy_name(p["policy"], fn)
    seed = _int(p.get("seed", 0), f"{fn}: seed", lo=0)
    wkw = _workload_kwargs(p, ("n_jobs", "T", "H", "K"), fn)
    pkw = _mapping(p.get("policy_params"), f"{fn}: policy_params")
    return _simulate("oasis", policy, seed, wkw, pkw)


def estimate_run(params: Mapping[str, Any]) -> pd.DataFrame:
    """Experiment (Fig. 6): OASiS with ``U`` estimates at ``u_scale`` times the true values.

    Parameters
    ----------
    params : Mapping
        ``u_scale`` (required, > 0: 0.2 = 20 %, see :data:`U_SCALES`), ``seed``, ``n_jobs``,
        ``T``, ``H``, ``K``, ``workload``, ``policy_params`` as in :func:`utility_run` (no
        ``policy``; ``policy_params`` must not hold ``u_scale``).

    Returns
    -------
    pandas.DataFrame
        The per-job table of :func:`utility_run` plus a column ``estimate`` (``"20%"``, ...).

    Raises
    ------
    TypeError
        If ``params`` is not a mapping.
    ValueError
        On an unknown or missing parameter or a bad value.
    """
    out, u = _oasis_with(params, "estimate_run", "u_scale")
    out["estimate"] = estimate_label(u)
    return out


def _oasis_with(params: Mapping[str, Any], fn: str, key: str) -> tuple[pd.DataFrame, float]:
    """OASiS on the Sec. V-A workload with the policy parameter ``key`` (> 0) given at top level
    of ``params``: the per-job table of :func:`utility_run` and the value of ``key``."""
    allowed = (key, "seed", "n_jobs", "T", "H", "K", "workload", "policy_params")
    p = _check_keys(params, allowed, (key,), fn)
    value = _positive(p[key], f"{fn}: {key}")
    seed = _int(p.get("seed", 0), f"{fn}: seed", lo=0)
    wkw = _workload_kwargs(p, ("n_jobs", "T", "H", "K"), fn)
    pkw = _mapping(p.get("policy_params"), f"{fn}: policy_params")
    if key in pkw:
        raise ValueError(f"{fn}: give {key} as a parameter, not inside policy_params ({pkw!r})")
    return _simulate("oasis", "oasis", seed, wkw, {**pkw, key: value}), value


def capped_run(params: Mapping[str, Any]) -> pd.DataFrame:
    r"""Experiment (not in the paper): OASiS with :math:`\ln(U/L)` capped at ``max_log_ratio``.

    Tests the explanation notebook ``12_oasis_figures`` gives for Fig. 3: (25)-(26) make ``L``
    astronomically small, so prices stay negligible until servers are nearly full. Here ``L`` is
    raised to :math:`U e^{-\text{max\_log\_ratio}}` (:meth:`~dlsched.oasis.policy.PriceParameters.capped`);
    Theorem 4's bound does not apply to such estimates.

    Parameters
    ----------
    params : Mapping
        ``max_log_ratio`` (required, > 0, see :data:`ALPHA_CAPS`), ``seed``, ``n_jobs``, ``T``,
        ``H``, ``K``, ``workload``, ``policy_params`` as in :func:`utility_run` (no ``policy``;
        ``policy_params`` must not hold ``max_log_ratio``).

    Returns
    -------
    pandas.DataFrame
        The per-job table of :func:`utility_run`.

    Raises
    ------
    TypeError
        If ``params`` is not a mapping.
    ValueError
        On an unknown or missing parameter or a bad value.
    """
    return _oasis_with(params, "capped_run", "max_log_ratio")[0]


def alpha_cap_table(totals: pd.DataFrame, capped: pd.DataFrame, *, load: str = "n_jobs") -> pd.DataFrame:
    r"""Mean total utility per load: OASiS as in the paper, OASiS with each cap, the best baseline.

    Parameters
    ----------
    totals : pandas.DataFrame
        :func:`run_totals` of :func:`utility_run` by ``["policy", load, "seed"]`` (Fig. 3).
    capped : pandas.DataFrame
        :func:`run_totals` of :func:`capped_run` by ``["max_log_ratio", load, "seed"]``.
    load : str, default "n_jobs"

    Returns
    -------
    pandas.DataFrame
        One row per load: ``oasis`` ((23)-(26)), ``oasis ln(U/L)<=c`` per cap, ``best baseline``
        (its name) and ``baseline utility`` (its mean total utility).

    Raises
    ------
    TypeError, ValueError
        If a frame is not a DataFrame or lacks a column.
    """
    _need(totals, ["policy", load, "total_utility"], "alpha_cap_table")
    _need(capped, ["max_log_ratio", load, "total_utility"], "alpha_cap_table")
    means = totals.groupby([load, "policy"])["total_utility"].mean().unstack("policy")
    out = pd.DataFrame({"oasis": means["oasis"]}) if "oasis" in means else pd.DataFrame(index=means.index)
    caps = capped.groupby([load, "max_log_ratio"])["total_utility"].mean().unstack("max_log_ratio")
    for c in caps.columns:
        out[f"oasis ln(U/L)<={c:g}"] = caps[c]
    base = means.drop(columns=["oasis"], errors="ignore")
    out["best baseline"] = base.idxmax(axis=1)
    out["baseline utility"] = base.max(axis=1)
    return out.rename_axis(columns=None)


def estimate_label(u_scale: float) -> str:
    """Label of an estimate factor in percent: ``0.2 -> "20%"``, ``10 -> "1000%"``.

    Parameters
    ----------
    u_scale : float
        Factor > 0.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If ``u_scale`` is not a finite number > 0.
    """
    return f"{100 * _positive(u_scale, 'u_scale'):g}%"


def testbed_run(params: Mapping[str, Any]) -> pd.DataFrame:
    """Experiment (Figs. 8-9): one scheme on the simulated testbed of Sec. V-B.

    Parameters
    ----------
    params : Mapping
        ``policy`` (required), ``seed``, ``n_jobs`` (12 in the paper), ``T`` (10 slots of 20
        minutes), ``workload`` (dict of other :func:`dlsched.oasis.model.testbed_workload`
        arguments, e.g. ``nic_gbps``), ``policy_params``.

    Returns
    -------
    pandas.DataFrame
        The per-job table of :func:`utility_run` (``job_name`` is the model, e.g. ResNet-50).

    Raises
    ------
    TypeError
        If ``params`` is not a mapping.
    ValueError
        On an unknown or missing parameter or a bad value.
    """
    fn = "testbed_run"
    allowed = ("policy", "seed", "n_jobs", "T", "workload", "policy_params")
    p = _check_keys(params, allowed, ("policy",), fn)
    policy = _policy_name(p["policy"], fn)
    seed = _int(p.get("seed", 0), f"{fn}: seed", lo=0)
    wkw = _workload_kwargs(p, ("n_jobs", "T"), fn)
    pkw = _mapping(p.get("policy_params"), f"{fn}: policy_params")
    return _simulate("oasis_testbed", policy, seed, wkw, pkw)


# ------------------------------------------------------------------------------- Fig. 5


def split_servers(servers: int) -> tuple[int, int]:
    """Fig. 5's split of ``servers`` into worker and PS servers: ``(ceil(n/2), floor(n/2))``.

    Parameters
    ----------
    servers : int
        Total number of servers, >= 2.

    Returns
    -------
    (int, int)
        ``(H, K)``.

    Raises
    ------
    ValueError
        If ``servers`` is not an integer >= 2.
    """
    n = _int(servers, "servers", lo=2)
    return (n + 1) // 2, n // 2


def _gamma1(value: Any, fn: str) -> tuple[float, float]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != 2:
        raise ValueError(f"{fn}: gamma1 must be a pair [low, high], got {value!r}")
    lo, hi = (_positive(v, f"{fn}: gamma1") for v in value)
    if hi < lo:
        raise ValueError(f"{fn}: gamma1 must satisfy low <= high, got {value!r}")
    return lo, hi


def ratio_run(params: Mapping[str, Any]) -> pd.DataFrame:
    r"""Experiment (Fig. 5): offline optimum (1)-(13) vs OASiS's total utility on one instance.

    The instance is ``make_workload("oasis", seed, n_jobs, T, H, K, gamma1)`` with ``(H, K) =``
    :func:`split_servers` ``(servers)``. OASiS runs with the instance's true price parameters;
    OPT is :func:`dlsched.oasis.offline.solve_offline` (HiGHS) within ``time_limit`` seconds.

    OASiS's schedule is itself feasible for (1)-(13) (Theorem 2), so the optimum is at least
    ``max(milp_objective, oasis_utility)``; that value is ``opt``. ``milp_below_oasis`` flags
    instances where the MILP's incumbent is below OASiS (a time-limited incumbent, or a solver
    error when ``milp_status`` is ``"optimal"``). ``ratio`` = ``opt / oasis_utility`` (NaN when
    both are 0, ``inf`` when only OASiS's is 0); ``ratio_upper`` uses the MILP's dual bound
    instead (the same as ``ratio`` when solved to optimality). ``two_alpha`` is Theorem 4's bound
    :math:`2\alpha`.

    Parameters
    ----------
    params : Mapping
        ``seed`` (int, default 0), ``n_jobs`` (default 10), ``T`` (default 10), ``servers``
        (int >= 2, required), ``gamma1`` (pair, required), ``time_limit`` (seconds, default 60),
        ``mip_rel_gap`` (default 0), ``workload`` (dict of other ``oasis_workload`` arguments).

    Returns
    -------
    pandas.DataFrame
        One row, columns :data:`RATIO_COLUMNS`. ``solve_seconds`` is machine-dependent; when the
        time limit is hit, the incumbent (hence ``opt``) may be too.

    Raises
    ------
    TypeError
        If ``params`` is not a mapping.
    ValueError
        On an unknown or missing parameter or a bad value.
    """
    from dlsched.oasis.offline import solve_offline
    from dlsched.oasis.policy import OASiS

    fn = "ratio_run"
    allowed = ("seed", "n_jobs", "T", "servers", "gamma1", "time_limit", "mip_rel_gap", "workload")
    p = _check_keys(params, allowed, ("servers", "gamma1"), fn)
    seed = _int(p.get("seed", 0), f"{fn}: seed", lo=0)
    H, K = split_servers(p["servers"])
    g1 = _gamma1(p["gamma1"], fn)
    time_limit = _positive(p.get("time_limit", 60.0), f"{fn}: time_limit")
    gap = p.get("mip_rel_gap", 0.0)
    if isinstance(gap, bool) or not isinstance(gap, (int, float)) or not math.isfinite(gap) or gap < 0:
        raise ValueError(f"{fn}: mip_rel_gap must be a finite number >= 0, got {gap!r}")
    wkw = _mapping(p.get("workload"), f"{fn}: workload")
    for k in ("H", "K", "gamma1", "n_jobs", "T"):
        if k in wkw:
            raise ValueError(f"{fn}: {k!r} must not be given inside 'workload'")
    n_jobs = _int(p.get("n_jobs", 10), f"{fn}: n_jobs")
    T = _int(p.get("T", 10), f"{fn}: T")
    wl = registry.make_workload("oasis", seed=seed, n_jobs=n_jobs, T=T, H=H, K=K, gamma1=g1, **wkw)
    pol = OASiS.from_workload(wl)
    res = simulate(wl, pol, seed=seed)
    alg = metrics.total_utility(res)
    sol = solve_offline(wl, time_limit=time_limit, mip_rel_gap=float(gap))
    opt = max(sol.objective, alg)
    upper = max(sol.bound, opt)

    def ratio(x: float) -> float:
        if alg > 0:
            return x / alg
        return math.nan if x <= 0 else math.inf

    alpha = pol.prices.alpha
    row = {
        "H": H,
        "K": K,
        "gamma1_range": f"[{g1[0]:g}, {g1[1]:g}]",
        "oasis_utility": alg,
        "oasis_admitted": int(res.jobs["admitted"].sum()),
        "milp_objective": sol.objective,
        "milp_bound": sol.bound,
        "milp_status": sol.status,
        "mip_gap": sol.mip_gap,
        "milp_below_oasis": bool(sol.objective < alg - _TOL * max(1.0, alg)),
        "opt": opt,
        "ratio": ratio(opt),
        "ratio_upper": ratio(upper),
        "alpha": alpha,
        "two_alpha": 2 * alpha,
        "solve_seconds": sol.solve_seconds,
    }
    return pd.DataFrame([row], columns=list(RATIO_COLUMNS))


# ------------------------------------------------------------------------------- summaries


def _need(df: pd.DataFrame, cols: Sequence[str], what: str) -> None:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{what}: expected a DataFrame, got {type(df).__name__}")
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise ValueError(f"{what}: missing column(s) {missing}; have {list(df.columns)}")


def run_totals(jobs: pd.DataFrame, by: str | Sequence[str]) -> pd.DataFrame:
    """Per run (a group of ``by``, e.g. ``["policy", "n_jobs", "seed"]``): totals of a per-job table.

    Parameters
    ----------
    jobs : pandas.DataFrame
        Rows of :data:`JOB_COLUMNS` (with the sweep's parameter columns).
    by : str or sequence of str
        Columns identifying one run.

    Returns
    -------
    pandas.DataFrame
        ``by`` columns, then ``jobs``, ``admitted``, ``finished``, ``total_utility``, sorted by
        ``by``.

    Raises
    ------
    TypeError, ValueError
        If ``jobs`` is not a DataFrame or lacks a column.
    """
    cols = _by(by)
    _need(jobs, [*cols, "job_id", "admitted", "status", "utility"], "run_totals")
    g = jobs.assign(finished=jobs["status"] == "finished").groupby(cols, sort=True)
    out = pd.DataFrame(
        {
            "jobs": g["job_id"].count(),
            "admitted": g["admitted"].sum().astype("int64"),
            "finished": g["finished"].sum().astype("int64"),
            "total_utility": g["utility"].sum(),
        }
    )
    return out.reset_index()


def timeliness(jobs: pd.DataFrame, by: str | Sequence[str]) -> pd.DataFrame:
    """Actual minus target completion time (Figs. 4, 9) of the finished jobs, per group.

    Parameters
    ----------
    jobs : pandas.DataFrame
        Rows of :data:`JOB_COLUMNS` (with the sweep's parameter columns).
    by : str or sequence of str
        Grouping columns, e.g. ``["policy", "utility_class"]``.

    Returns
    -------
    pandas.DataFrame
        ``by`` columns, then ``finished`` (count), ``median``, ``iqr`` (75th minus 25th
        percentile), ``std``, ``mean_abs`` (mean of the absolute value) of
        ``completion_minus_target``, sorted by ``by``; groups without finished jobs are absent.

    Raises
    ------
    TypeError, ValueError
        If ``jobs`` is not a DataFrame or lacks a column.
    """
    cols = _by(by)
    _need(jobs, [*cols, "status", "completion_minus_target"], "timeliness")
    f = jobs[(jobs["status"] == "finished") & jobs["completion_minus_target"].notna()]
    g = f.groupby(cols, sort=True)["completion_minus_target"]
    out = pd.DataFrame(
        {
            "finished": g.count(),
            "median": g.median(),
            "iqr": g.quantile(0.75) - g.quantile(0.25),
            "std": g.std(ddof=0),
            "mean_abs": g.apply(lambda s: float(np.mean(np.abs(s)))),
        }
    )
    return out.reset_index()


def ratio_summary(
    ratios: pd.DataFrame, by: str | Sequence[str] = ("servers", "gamma1_range")
) -> pd.DataFrame:
    """Fig. 5's bars: mean and standard deviation of OPT/OASiS per group, over the instances
    where OASiS's utility is positive.

    Parameters
    ----------
    ratios : pandas.DataFrame
        Rows of :func:`ratio_run` (with the sweep's ``servers`` column).
    by : str or sequence of str
        Grouping columns.

    Returns
    -------
    pandas.DataFrame
        ``by`` columns, then ``instances`` (all), ``used`` (finite ratio), ``oasis_zero`` (OASiS
        0 while OPT > 0: infinite ratio), ``mean``, ``median``, ``std``, ``max``, ``optimal`` (MILP solved
        to optimality), ``within_two_alpha`` (finite ratios <= 2 alpha).

    Raises
    ------
    TypeError, ValueError
        If ``ratios`` is not a DataFrame or lacks a column.
    """
    cols = _by(by)
    _need(ratios, [*cols, "ratio", "milp_status", "two_alpha"], "ratio_summary")
    r = ratios.assign(
        finite=np.isfinite(ratios["ratio"]),
        zero=np.isinf(ratios["ratio"]),
        optimal=ratios["milp_status"] == "optimal",
        within=np.isfinite(ratios["ratio"]) & (ratios["ratio"] <= ratios["two_alpha"] + 1e-9),
        fr=ratios["ratio"].where(np.isfinite(ratios["ratio"])),
    )
    g = r.groupby(cols, sort=False)
    out = pd.DataFrame(
        {
            "instances": g["ratio"].size(),
            "used": g["finite"].sum().astype("int64"),
            "oasis_zero": g["zero"].sum().astype("int64"),
            "mean": g["fr"].mean(),
            "median": g["fr"].median(),
            "std": g["fr"].std(ddof=0),
            "max": g["fr"].max(),
            "optimal": g["optimal"].sum().astype("int64"),
            "within_two_alpha": g["within"].sum().astype("int64"),
        }
    )
    return out.reset_index()


def run_profile(results: Mapping[str, Any]) -> pd.DataFrame:
    """How each scheme used the cluster in one run each: finished jobs, their mean utility and
    JCT, and the mean allocated share of the GPUs and vCPUs over the simulated slots.

    Parameters
    ----------
    results : Mapping[str, SimulationResult]
        Scheme name -> result of :func:`dlsched.core.simulator.simulate` (same workload).

    Returns
    -------
    pandas.DataFrame
        Columns ``policy``, ``finished``, ``utility_per_finished``, ``mean_jct`` (slots),
        ``gpu_busy``, ``cpu_busy`` (0..1), in the order given.

    Raises
    ------
    TypeError
        If a value is not a SimulationResult.
    """
    from dlsched.core.simulator import SimulationResult

    rows = []
    for name, res in results.items():
        if not isinstance(res, SimulationResult):
            raise TypeError(
                f"run_profile: results[{name!r}] must be a SimulationResult, got {type(res).__name__}"
            )
        f = metrics.finished(res)
        use = metrics.utilization(res)
        rows.append(
            {
                "policy": str(name),
                "finished": int(len(f)),
                "utility_per_finished": float(f["utility"].mean()) if len(f) else math.nan,
                "mean_jct": metrics.mean_jct(res),
                "gpu_busy": float(use["gpu"].mean()) if "gpu" in use and len(use) else math.nan,
                "cpu_busy": float(use["cpu"].mean()) if "cpu" in use and len(use) else math.nan,
            }
        )
    return pd.DataFrame(
        rows, columns=["policy", "finished", "utility_per_finished", "mean_jct", "gpu_busy", "cpu_busy"]
    )


# ------------------------------------------------------------------------------- the paper

PAPER: Mapping[str, tuple[tuple[str, str], ...]] = MappingProxyType(
    {
        "fig3": (
            ("setting", "100-400 jobs, T=300, H=K=50, five schemes"),
            ("best scheme at every load", "oasis"),
            ("OASiS / best other scheme vs load", "> 1, growing with load"),
            ("total utility scale", "y-axis up to ~8e3 (no values in the text)"),
        ),
        "fig4": (
            ("setting", "100 time-sensitive + 100 time-critical jobs, T=100"),
            ("closest to 0 (median |actual-target|), time-sensitive", "oasis"),
            ("closest to 0 (median |actual-target|), time-critical", "oasis"),
            ("smallest spread (IQR), time-sensitive", "oasis"),
            ("smallest spread (IQR), time-critical", "oasis"),
        ),
        "fig5": (
            ("setting", "10 jobs, T=10, 3/6/9/12 servers, 4 gamma1 ranges, exact OPT (2 days)"),
            ("OPT / OASiS, range of the bars", "1.1-1.5"),
            ("trend with servers or U/L", "no clear trend"),
        ),
        "fig6": (
            ("setting", "100-400 jobs, T=300, U/L estimates at 20%-1000% of the true values"),
            ("under- vs over-estimation at the highest load", "under-estimation higher"),
        ),
        "fig8": (
            ("setting", "testbed: 9 servers, 12 jobs, 10 slots of 20 min"),
            ("best scheme", "oasis (as Fig. 3, smaller margins)"),
        ),
        "fig9": (
            ("setting", "testbed, all jobs"),
            ("closest to 0 (median |actual-target|)", "oasis (as Fig. 4)"),
        ),
    }
)
"""What OASiS Sec. V reports for each figure, as ``(quantity, value or trend)`` pairs. The text
gives trends, not numbers, except Fig. 5's range of ratios; the figures' axes are the only other
numbers (spec 11.3)."""


def paper_table(figure: str) -> pd.DataFrame:
    """The paper's reported values and trends for ``figure`` (a key of :data:`PAPER`).

    Parameters
    ----------
    figure : str
        ``"fig3"``, ``"fig4"``, ``"fig5"``, ``"fig6"``, ``"fig8"`` or ``"fig9"``.

    Returns
    -------
    pandas.DataFrame
        Columns ``quantity``, ``paper``.

    Raises
    ------
    ValueError
        For an unknown figure.
    """
    if figure not in PAPER:
        raise ValueError(f"figure must be one of {sorted(PAPER)}, got {figure!r}")
    return pd.DataFrame(list(PAPER[figure]), columns=["quantity", "paper"])


def _fmt(x: float) -> str:
    """Three significant digits, whole numbers from 1000 on (``0.123``, ``12.3``, ``2618``)."""
    v = float(x)
    if not math.isfinite(v):
        return str(v)
    return f"{v:.0f}" if abs(v) >= 1000 else f"{v:.3g}"


def _span(lo: float, hi: float) -> str:
    """``"1.07-2.93"``, or one number when both ends print the same."""
    a, b = _fmt(lo), _fmt(hi)
    return a if a == b else f"{a}-{b}"


def _compare(figure: str, ours: Sequence[str], match: Sequence[str]) -> pd.DataFrame:
    t = paper_table(figure)
    t["ours"] = list(ours)
    t["match"] = list(match)
    return t


def _yes(ok: bool) -> str:
    return "yes" if ok else "no"


def _best(means: pd.Series) -> str:
    """Index label of the largest value (ties: the first in :data:`POLICIES` order)."""
    order = [p for p in POLICIES if p in means.index] + [p for p in means.index if p not in POLICIES]
    m = means.reindex(order)
    return str(m.idxmax())


def _load_means(totals: pd.DataFrame, load: str, what: str) -> pd.DataFrame:
    _need(totals, ["policy", load, "total_utility"], what)
    return totals.groupby([load, "policy"])["total_utility"].mean().unstack("policy")


def fig3_comparison(totals: pd.DataFrame, *, load: str = "n_jobs", setting: str = "") -> pd.DataFrame:
    """Paper vs ours for Fig. 3 from :func:`run_totals` output (mean over seeds).

    Parameters
    ----------
    totals : pandas.DataFrame
        Columns ``policy``, ``load``, ``total_utility`` (one row per run).
    load : str
        Column of the number of jobs.
    setting : str
        Our setting, shown in the ``setting`` row.

    Returns
    -------
    pandas.DataFrame
        Columns ``quantity``, ``paper``, ``ours``, ``match`` (rounded strings).

    Raises
    ------
    TypeError, ValueError
        If ``totals`` is not a DataFrame or lacks a column, or has no OASiS run.
    """
    m = _load_means(totals, load, "fig3_comparison")
    if "oasis" not in m.columns:
        raise ValueError("fig3_comparison: totals has no 'oasis' run")
    best = {int(n): _best(row) for n, row in m.iterrows()}
    others = m.drop(columns="oasis")
    rel = m["oasis"] / others.max(axis=1)
    grows = len(rel) > 1 and bool(rel.iloc[-1] > rel.iloc[0])
    ours = [
        setting,
        ", ".join(f"{n}: {b}" for n, b in best.items()),
        " -> ".join(_fmt(v) for v in rel.to_numpy()) + f" (n_jobs {', '.join(str(int(n)) for n in m.index)})",
        f"oasis {_fmt(m['oasis'].iloc[-1])}, best {_fmt(m.iloc[-1].max())} at {int(m.index[-1])} jobs",
    ]
    match = [
        "-",
        _yes(all(b == "oasis" for b in best.values())),
        _yes(bool((rel > 1).all()) and grows),
        "-",
    ]
    return _compare("fig3", ours, match)


def _closest(stats: pd.DataFrame, cls: str | None, col: str, min_finished: int) -> tuple[str, str]:
    """Scheme with the smallest |median| (``col="median"``) or IQR among those with at least
    ``min_finished`` finished jobs, and the per-scheme values (``n<k`` marks excluded ones)."""
    s = stats if cls is None else stats[stats["utility_class"] == cls]
    if s.empty:
        return "no finished job", "-"
    key = (s["median"].abs() if col == "median" else s[col]).set_axis(s["policy"].to_numpy())
    n = s["finished"].set_axis(s["policy"].to_numpy())
    vals = ", ".join(
        f"{p} {_fmt(v)}" + ("" if n[p] >= min_finished else f" (n={int(n[p])}<{min_finished})")
        for p, v in key.items()
    )
    eligible = key[n >= min_finished]
    if eligible.empty:
        return f"no scheme with >= {min_finished} finished jobs ({vals})", "-"
    best = str(eligible.idxmin())
    return f"{best} ({vals})", _yes(best == "oasis")


def fig4_comparison(stats: pd.DataFrame, *, setting: str = "", min_finished: int = 3) -> pd.DataFrame:
    """Paper vs ours for Fig. 4 from :func:`timeliness` output grouped by ``["policy",
    "utility_class"]``.

    Parameters
    ----------
    stats : pandas.DataFrame
        Columns ``policy``, ``utility_class``, ``median``, ``iqr``, ``finished``.
    setting : str
        Our setting, shown in the ``setting`` row.
    min_finished : int, default 3
        Schemes with fewer finished jobs of a class are listed but cannot be "closest" or
        "smallest spread" for it (a median of one or two jobs says little).

    Returns
    -------
    pandas.DataFrame
        Columns ``quantity``, ``paper``, ``ours``, ``match``.

    Raises
    ------
    TypeError, ValueError
        If ``stats`` is not a DataFrame or lacks a column.
    """
    _need(stats, ["policy", "utility_class", "median", "iqr", "finished"], "fig4_comparison")
    k = _int(min_finished, "min_finished")
    rows = [_closest(stats, c, col, k) for col in ("median", "iqr") for c in FIGURE_CLASSES]
    return _compare("fig4", [setting] + [r[0] for r in rows], ["-"] + [r[1] for r in rows])


def fig5_comparison(summary: pd.DataFrame, *, setting: str = "") -> pd.DataFrame:
    """Paper vs ours for Fig. 5 from :func:`ratio_summary` output.

    Parameters
    ----------
    summary : pandas.DataFrame
        Columns ``servers``, ``mean``, ``instances``, ``optimal``, ``oasis_zero``.
    setting : str
        Our setting (include the MILP status counts), shown in the ``setting`` row.

    Returns
    -------
    pandas.DataFrame
        Columns ``quantity``, ``paper``, ``ours``, ``match``.

    Raises
    ------
    TypeError, ValueError
        If ``summary`` is not a DataFrame or lacks a column.
    """
    _need(summary, ["servers", "mean", "instances", "optimal", "oasis_zero"], "fig5_comparison")
    means = summary["mean"].dropna()
    lo, hi = (float(means.min()), float(means.max())) if len(means) else (math.nan, math.nan)
    per = summary.groupby("servers", sort=True)["mean"].mean()
    trend = ", ".join(f"{int(s)}: {_fmt(v)}" for s, v in per.items())
    inside = bool(len(means)) and lo >= 1.1 - 0.05 and hi <= 1.5 + 0.05
    overlap = bool(len(means)) and hi >= 1.1 and lo <= 1.5
    med = summary["median"].dropna() if "median" in summary.columns else pd.Series(dtype=float)
    spread = f"; medians {_span(med.min(), med.max())}" if len(med) else ""
    ours = [setting, f"means {_span(lo, hi)}{spread}", f"mean per server count: {trend}"]
    match = ["-", "yes" if inside else ("partly" if overlap else "no"), "-"]
    return _compare("fig5", ours, match)


def fig6_comparison(totals: pd.DataFrame, *, load: str = "n_jobs", setting: str = "") -> pd.DataFrame:
    """Paper vs ours for Fig. 6 from :func:`run_totals` output grouped by ``u_scale``.

    Parameters
    ----------
    totals : pandas.DataFrame
        Columns ``u_scale``, ``load``, ``total_utility``.
    load : str
        Column of the number of jobs.
    setting : str
        Our setting, shown in the ``setting`` row.

    Returns
    -------
    pandas.DataFrame
        Columns ``quantity``, ``paper``, ``ours``, ``match``.

    Raises
    ------
    TypeError, ValueError
        If ``totals`` is not a DataFrame or lacks a column, or has no under- or over-estimate.
    """
    _need(totals, ["u_scale", load, "total_utility"], "fig6_comparison")
    top = totals[totals[load] == totals[load].max()]
    m = top.groupby("u_scale")["total_utility"].mean()
    under, over = m[m.index < 1], m[m.index > 1]
    if under.empty or over.empty:
        raise ValueError("fig6_comparison: needs u_scale values below and above 1")
    vals = ", ".join(f"{100 * u:g}%: {_fmt(v)}" for u, v in m.items())
    diff = (under.mean() - over.mean()) / over.mean() if over.mean() > 0 else math.nan
    ours = [setting, f"under {_fmt(under.mean())} vs over {_fmt(over.mean())}, {diff:+.1%} ({vals})"]
    return _compare("fig6", ours, ["-", _yes(bool(under.mean() > over.mean()))])


def fig8_comparison(totals: pd.DataFrame, *, setting: str = "") -> pd.DataFrame:
    """Paper vs ours for Fig. 8 from :func:`run_totals` output of the testbed runs.

    Parameters
    ----------
    totals : pandas.DataFrame
        Columns ``policy``, ``total_utility``, ``finished``.
    setting : str
        Our setting, shown in the ``setting`` row.

    Returns
    -------
    pandas.DataFrame
        Columns ``quantity``, ``paper``, ``ours``, ``match``.

    Raises
    ------
    TypeError, ValueError
        If ``totals`` is not a DataFrame or lacks a column.
    """
    _need(totals, ["policy", "total_utility", "finished"], "fig8_comparison")
    m = totals.groupby("policy")["total_utility"].mean()
    best = _best(m)
    vals = ", ".join(f"{p} {_fmt(m[p])}" for p in POLICIES if p in m.index)
    return _compare("fig8", [setting, f"{best} ({vals})"], ["-", _yes(best == "oasis")])


def fig9_comparison(stats: pd.DataFrame, *, setting: str = "", min_finished: int = 3) -> pd.DataFrame:
    """Paper vs ours for Fig. 9 from :func:`timeliness` output grouped by ``policy``.

    Parameters
    ----------
    stats : pandas.DataFrame
        Columns ``policy``, ``median``, ``finished``.
    setting : str
        Our setting, shown in the ``setting`` row.
    min_finished : int, default 3
        As in :func:`fig4_comparison`.

    Returns
    -------
    pandas.DataFrame
        Columns ``quantity``, ``paper``, ``ours``, ``match``.

    Raises
    ------
    TypeError, ValueError
        If ``stats`` is not a DataFrame or lacks a column.
    """
    _need(stats, ["policy", "median", "finished"], "fig9_comparison")
    ours, match = _closest(stats, None, "median", _int(min_finished, "min_finished"))
    return _compare("fig9", [setting, ours], ["-", match])


def scorecard(comparisons: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """All paper-vs-ours rows that have a verdict, one table: ``figure, quantity, paper, match``.

    Parameters
    ----------
    comparisons : Mapping[str, pandas.DataFrame]
        Figure label -> output of a ``figN_comparison`` function.

    Returns
    -------
    pandas.DataFrame
        Rows whose ``match`` is not ``"-"``, in the order given.

    Raises
    ------
    TypeError, ValueError
        If a table is not a DataFrame or lacks a column.
    """
    parts = []
    for fig, t in comparisons.items():
        _need(t, ["quantity", "paper", "match"], "scorecard")
        parts.append(t.loc[t["match"] != "-", ["quantity", "paper", "match"]].assign(figure=str(fig)))
    if not parts:
        return pd.DataFrame(columns=["figure", "quantity", "paper", "match"])
    out = pd.concat(parts, ignore_index=True)
    return out[["figure", "quantity", "paper", "match"]]


# ------------------------------------------------------------------------------- claims


def ratio_claim(ratios: pd.DataFrame) -> Claim:
    r"""Theorem 4 measured on Fig. 5's instances: :math:`OPT/OASiS \le 2\alpha` on each instance.

    Instances where both OPT and OASiS are 0 (no job can finish) hold trivially; an instance
    where OASiS earns 0 and OPT does not fails. The proof assumes :math:`w_i^r \ll c_h^r`, which
    tiny clusters violate (spec section 10, item 9), so this is a measurement, not a guarantee.

    Parameters
    ----------
    ratios : pandas.DataFrame
        Rows of :func:`ratio_run`.

    Returns
    -------
    Claim
        ``details``: instances, failures, largest finite ratio, smallest :math:`2\alpha`,
        MILPs solved to optimality, MILP incumbents below OASiS.

    Raises
    ------
    TypeError, ValueError
        If ``ratios`` is not a DataFrame or lacks a column.
    """
    _need(ratios, ["ratio", "two_alpha", "milp_status", "milp_below_oasis"], "ratio_claim")
    r = ratios["ratio"]
    fails = int((~(r.isna() | (r <= ratios["two_alpha"] + 1e-9))).sum())
    finite = r[np.isfinite(r)]
    return Claim(
        "OASiS Theorem 4 on Fig. 5 instances: OPT/OASiS <= 2 alpha",
        fails == 0,
        {
            "instances": int(len(r)),
            "failures": fails,
            "max_ratio": float(finite.max()) if len(finite) else math.nan,
            "min_two_alpha": float(ratios["two_alpha"].min()) if len(r) else math.nan,
            "milp_optimal": int((ratios["milp_status"] == "optimal").sum()),
            "milp_below_oasis": int(ratios["milp_below_oasis"].sum()),
        },
    )


# ------------------------------------------------------------------------------- figures


def _boxstrip(data: pd.DataFrame, ax, *, x: str, y: str, order: Sequence[str], hue: str | None) -> None:
    import seaborn as sns

    from dlsched import plotting

    kw = {"hue": hue, "dodge": True} if hue else {}
    box = {"palette": "pastel"} if hue else {"color": "0.9"}
    if len(data):
        sns.boxplot(data=data, x=x, y=y, order=order, ax=ax, showfliers=False, **box, **kw)
        dots = {"palette": "dark"} if hue else {}
        plotting.stripplot(data, x=x, y=y, order=order, ax=ax, size=3, alpha=0.6, legend=False, **dots, **kw)
    ax.axhline(0.0, color="0.3", lw=0.8, ls="--")


def timeliness_figure(
    jobs: pd.DataFrame,
    *,
    classes: Sequence[str] | None = FIGURE_CLASSES,
    hue: str | None = None,
    title: str = "",
):
    """Figs. 4 / 9: actual minus target completion time of finished jobs per scheme, as box plots
    (no outliers) with every job as a dot and a dashed line at 0.

    Parameters
    ----------
    jobs : pandas.DataFrame
        Per-job rows with a ``policy`` column.
    classes : sequence of str or None
        One panel per utility class (default: time-sensitive, time-critical); None: one panel
        with all jobs.
    hue : str, optional
        Column splitting each box (e.g. ``"T"``).
    title : str
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError, ValueError
        If ``jobs`` is not a DataFrame or lacks a column.
    """
    from dlsched import plotting

    _need(jobs, ["policy", "status", "completion_minus_target", "utility_class"], "timeliness_figure")
    f = jobs[(jobs["status"] == "finished") & jobs["completion_minus_target"].notna()]
    order = [p for p in POLICIES if p in set(jobs["policy"])]
    panels = [None] if classes is None else list(classes)
    fig, axes = plotting.subplots(1, len(panels), sharey=True, squeeze=False)
    for ax, cls in zip(axes[0], panels, strict=True):
        d = f if cls is None else f[f["utility_class"] == cls]
        _boxstrip(d, ax, x="policy", y="completion_minus_target", order=order, hue=hue)
        ax.set(xlabel="", ylabel="actual - target completion (slots)", title=cls or "all jobs")
    if title:
        fig.suptitle(title)
    return fig


def ratio_figure(ratios: pd.DataFrame, *, title: str = ""):
    """Fig. 5: mean OPT/OASiS per server count and priority range, error bars from the smallest
    to the largest ratio over the instances with a finite ratio, a dashed line at 1.

    Parameters
    ----------
    ratios : pandas.DataFrame
        Rows of :func:`ratio_run` with the sweep's ``servers`` column.
    title : str
        Axes title.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError, ValueError
        If ``ratios`` is not a DataFrame or lacks a column.
    """
    from dlsched import plotting

    _need(ratios, ["servers", "gamma1_range", "ratio"], "ratio_figure")
    d = ratios[np.isfinite(ratios["ratio"])]
    labels = [f"[{lo:g}, {hi:g}]" for lo, hi in GAMMA1_RANGES]
    hue_order = [g for g in labels if g in set(ratios["gamma1_range"])]
    hue_order += sorted(set(ratios["gamma1_range"]) - set(hue_order))
    fig, ax = plotting.subplots()
    plotting.draw(
        "barplot", d, ax=ax, x="servers", y="ratio", hue="gamma1_range", hue_order=hue_order,
        errorbar=("pi", 100), capsize=0.1,
    )  # fmt: skip
    ax.axhline(1.0, color="0.3", lw=0.8, ls="--")
    ax.set(xlabel="total number of servers (worker + PS)", ylabel="performance ratio OPT / OASiS")
    ax.legend(title="gamma1 range", fontsize="small")
    if title:
        ax.set_title(title)
    return fig

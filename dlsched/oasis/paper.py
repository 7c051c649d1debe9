r"""Paper-scale computations of the OASiS notebooks as stored experiment functions.

Y. Bao, Y. Peng, C. Wu, Z. Li, "Online Job Scheduling in Distributed Machine Learning Clusters",
IEEE INFOCOM 2018 (arXiv:1801.00936). The check tables of notebook ``11_oasis_proofs`` and the
one large run of notebook ``12_oasis_figures`` take minutes at the papers' sizes; here each is an
experiment function ``fn(params: dict) -> pandas.DataFrame`` for
:func:`dlsched.experiments.sweep`, so that paper mode reads them from the results store
(``data/results``) and ``dlsched audit`` can recompute any point. Each check function handles
one instance (one ``seed`` of one instance ``family``), so an audited point takes at most a few
seconds (paper sizes: median 0.1-0.8 s; :func:`fig3_check_run` about 5 s of CPU).

===========================  ==========  =====================================================
function                     notebook    what it checks (paper)
===========================  ==========  =====================================================
:func:`appendix_a_run`       11, sec. 2  Appendix A: zero-usage admission, exhaustion
:func:`theorem1_run`         11, sec. 3  Theorem 1 (brute force), fast-path equivalences
:func:`feasibility_run`      11, sec. 4  Theorem 2, weak duality, Lemma 1 and its discrete form
:func:`increments_run`       11, sec. 5  Lemma 1's premise per admission (App. E)
:func:`competitive_run`      11, sec. 6  Theorem 4 against the offline MILP (1)-(13), App. E
:func:`decision_time_run`    11, sec. 7  Theorem 3: decision time, fast path (wall clock)
:func:`decision_method_run`  11, sec. 7  Theorem 3: decision time per DP method (wall clock)
:func:`fig3_check_run`       12, Fig. 3  Theorem 2 and weak duality at Fig. 3's largest load;
                                         how OASiS and RRH use the cluster
===========================  ==========  =====================================================

Parameters of the check functions (:func:`appendix_a_run` ... :func:`competitive_run`): ``seed``
(int >= 0), ``family`` (``"synthetic"`` or ``"oasis"``, see :func:`dlsched.oasis.checks.instance`)
and ``sizes`` (a dict of instance sizes); they return the rows of the matching
``dlsched.oasis.checks.*_sample`` for that one seed without the ``seed`` and ``family`` columns,
which :func:`~dlsched.experiments.sweep` adds from the parameters. The timing functions return
wall-clock measurements only and say so (``fn.volatile = ("*",)``), so the audit skips them.

This module never imports :mod:`dlsched.oasis.findings` (the prose printed from these tables).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from dlsched import registry
from dlsched.core.claims import check_seeds
from dlsched.core.simulator import policy_rng, simulate
from dlsched.oasis import checks
from dlsched.oasis import experiments as ox

__all__ = [
    "appendix_a_run",
    "check_grid",
    "competitive_run",
    "decision_method_run",
    "decision_time_run",
    "feasibility_run",
    "fig3_check_run",
    "increments_run",
    "theorem1_run",
]


def _params(params: Any, fn: str, allowed: tuple[str, ...]) -> dict:
    if not isinstance(params, Mapping):
        raise TypeError(f"{fn}: params must be a mapping, got {type(params).__name__}")
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise ValueError(f"{fn}: unknown parameter(s) {unknown}; allowed {list(allowed)}")
    if "seed" not in params:
        raise ValueError(f"{fn}: params need a 'seed', got {dict(params)!r}")
    return dict(params)


def _instance_args(params: Any, fn: str, *extra: str) -> tuple[int, str, dict, dict]:
    """``seed``, ``family``, ``sizes`` and the other given keys of a check function's params."""
    p = _params(params, fn, ("seed", "family", "sizes", *extra))
    seed = p.pop("seed")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"{fn}: seed must be an integer >= 0, got {seed!r}")
    family = p.pop("family", "synthetic")
    if family not in checks.FAMILIES:
        raise ValueError(f"{fn}: family must be one of {checks.FAMILIES}, got {family!r}")
    sizes = p.pop("sizes", {})
    if not isinstance(sizes, Mapping):
        raise ValueError(f"{fn}: sizes must be a dict of instance sizes, got {sizes!r}")
    return seed, family, dict(sizes), p


def _without_keys(frame: pd.DataFrame) -> pd.DataFrame:
    """The sample rows without ``seed`` and ``family`` (the sweep adds them from the params)."""
    return frame.drop(columns=[c for c in ("seed", "family") if c in frame.columns]).reset_index(drop=True)


def check_grid(seeds, family: str, sizes: Mapping[str, Any], **extra: Any) -> list[dict]:
    """The sweep grid of a check function for one instance family: one point per seed.

    Parameters
    ----------
    seeds : iterable of int
        Instance seeds.
    family : {"synthetic", "oasis"}
        Instance family (:func:`dlsched.oasis.checks.instance`).
    sizes : Mapping
        Instance sizes of that family.
    **extra
        Further parameters shared by every point (e.g. ``time_limit=20.0``, ``which=[...]``).

    Returns
    -------
    list of dict
        ``{"family": family, "sizes": dict(sizes), **extra, "seed": s}`` for each seed; grids of
        several families are concatenated with ``+``.

    Raises
    ------
    ValueError
        For an unknown family, bad sizes or no seed.
    """
    seeds = check_seeds(seeds)
    if family not in checks.FAMILIES:
        raise ValueError(f"family must be one of {checks.FAMILIES}, got {family!r}")
    if not isinstance(sizes, Mapping):
        raise ValueError(f"sizes must be a dict of instance sizes, got {sizes!r}")
    return [{"family": family, "sizes": dict(sizes), **extra, "seed": s} for s in seeds]


def appendix_a_run(params: Mapping[str, Any]) -> pd.DataFrame:
    """Notebook 11, section 2: Appendix A (zero-usage admission, exhaustion) on one instance.

    Parameters
    ----------
    params : Mapping
        ``seed``, ``family``, ``sizes``.

    Returns
    -------
    pandas.DataFrame
        The rows of :func:`dlsched.oasis.checks.appendix_a_sample` for the seed, without
        ``seed`` and ``family``.

    Raises
    ------
    TypeError, ValueError
        On bad parameters.
    """
    seed, family, sizes, _ = _instance_args(params, "appendix_a_run")
    return _without_keys(checks.appendix_a_sample([seed], family=family, **sizes))


def theorem1_run(params: Mapping[str, Any]) -> pd.DataFrame:
    """Notebook 11, section 3: Theorem 1 (COST_t, DP_COST and Algorithm 2 against brute force) and
    the equivalences of the fast path (literal recursion, frontier DP), every job of one instance
    as the probe.

    Parameters
    ----------
    params : Mapping
        ``seed``, ``family``, ``sizes`` and optionally ``which`` (list of checks of
        :func:`dlsched.oasis.checks.theorem1_sample`; default all).

    Returns
    -------
    pandas.DataFrame
        The rows of :func:`dlsched.oasis.checks.theorem1_sample` for the seed, without ``seed``
        and ``family``.

    Raises
    ------
    TypeError, ValueError
        On bad parameters.
    """
    seed, family, sizes, rest = _instance_args(params, "theorem1_run", "which")
    which = rest.get("which", ("cost_t", "dp_cost", "alg2", "literal", "frontier"))
    if isinstance(which, str):
        raise ValueError(f"theorem1_run: which must be a list of checks, got {which!r}")
    return _without_keys(checks.theorem1_sample([seed], family=family, which=tuple(which), **sizes))


def feasibility_run(params: Mapping[str, Any]) -> pd.DataFrame:
    """Notebook 11, sections 4-5: one whole OASiS run (Algorithm 1) checked for Theorem 2 (feasible
    schedules), weak duality (19) >= (14), Lemma 1's premise (reported) and its discrete form.

    Parameters
    ----------
    params : Mapping
        ``seed``, ``family``, ``sizes``.

    Returns
    -------
    pandas.DataFrame
        The rows of :func:`dlsched.oasis.checks.run_sample` for the seed, without ``seed`` and
        ``family``.

    Raises
    ------
    TypeError, ValueError
        On bad parameters.
    """
    seed, family, sizes, _ = _instance_args(params, "feasibility_run")
    return _without_keys(checks.run_sample([seed], family=family, **sizes))


def increments_run(params: Mapping[str, Any]) -> pd.DataFrame:
    """Notebook 11, section 5: the primal and dual increments of every admission of one OASiS run
    (Lemma 1's premise and the discrete factor kappa of App. E).

    Parameters
    ----------
    params : Mapping
        ``seed``, ``family``, ``sizes``.

    Returns
    -------
    pandas.DataFrame
        The rows of :func:`dlsched.oasis.checks.increments_sample` for the seed (one per
        admission), without ``seed`` and ``family``.

    Raises
    ------
    TypeError, ValueError
        On bad parameters.
    """
    seed, family, sizes, _ = _instance_args(params, "increments_run")
    return _without_keys(checks.increments_sample([seed], family=family, **sizes))


def competitive_run(params: Mapping[str, Any]) -> pd.DataFrame:
    """Notebook 11, section 6: Theorem 4 (OPT/ALG <= 2 alpha) on one instance, OPT from the offline
    MILP (1)-(13), with the links of the proof (App. E) and the dual feasibility (20) of the
    optimum's schedules.

    Parameters
    ----------
    params : Mapping
        ``seed``, ``family``, ``sizes`` and ``time_limit`` (MILP seconds, default 60).

    Returns
    -------
    pandas.DataFrame
        The row of :func:`dlsched.oasis.checks.ratio_point`, without ``seed`` and ``family``.

    Raises
    ------
    TypeError, ValueError
        On bad parameters.
    """
    seed, family, sizes, rest = _instance_args(params, "competitive_run", "time_limit")
    limit = rest.get("time_limit", 60.0)
    if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not limit > 0:
        raise ValueError(f"competitive_run: time_limit must be a number > 0, got {limit!r}")
    row = checks.ratio_point({"seed": seed, "family": family, "time_limit": float(limit), **sizes})
    return _without_keys(row)


def _timing_args(params: Any, fn: str) -> tuple[int, dict]:
    p = _params(params, fn, ("seed", "horizons", "workloads", "n_servers", "repeats"))
    seed = p.pop("seed")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"{fn}: seed must be an integer >= 0, got {seed!r}")
    for key in ("horizons", "workloads"):
        if key in p:
            if isinstance(p[key], (str, bytes, Mapping)):
                raise ValueError(f"{fn}: {key} must be a list of ints, got {p[key]!r}")
            p[key] = tuple(p[key])
    return seed, p


def decision_time_run(params: Mapping[str, Any]) -> pd.DataFrame:
    """Notebook 11, section 7: Theorem 3, the time of one Algorithm 2 decision at zero usage
    against ``T`` and N_i E_i, fast path (:func:`dlsched.oasis.checks.decision_times`).

    A wall-clock measurement: the whole frame is volatile (``decision_time_run.volatile``), so
    ``dlsched audit`` does not recompute it.

    Parameters
    ----------
    params : Mapping
        ``seed`` (of the policy stream that draws the jobs' priorities), and optionally
        ``horizons``, ``workloads`` (lists of ints), ``n_servers``, ``repeats``.

    Returns
    -------
    pandas.DataFrame
        ``T, NE, seconds`` (median of the repeats).

    Raises
    ------
    TypeError, ValueError
        On bad parameters.
    """
    seed, kw = _timing_args(params, "decision_time_run")
    return checks.decision_times(policy_rng(seed), **kw)


decision_time_run.volatile = ("*",)


def decision_method_run(params: Mapping[str, Any]) -> pd.DataFrame:
    """Notebook 11, section 7: Theorem 3 per evaluation method (fast, exact, frontier and the
    paper's literal recursion; :func:`dlsched.oasis.checks.decision_times_by_method`).

    A wall-clock measurement: the whole frame is volatile (``decision_method_run.volatile``).

    Parameters
    ----------
    params : Mapping
        ``seed``, and optionally ``horizons``, ``workloads``, ``n_servers``, ``repeats``.

    Returns
    -------
    pandas.DataFrame
        ``method, T, NE, seconds``.

    Raises
    ------
    TypeError, ValueError
        On bad parameters.
    """
    seed, kw = _timing_args(params, "decision_method_run")
    return checks.decision_times_by_method(policy_rng(seed), **kw)


decision_method_run.volatile = ("*",)


def fig3_check_run(params: Mapping[str, Any]) -> pd.DataFrame:
    """Notebook 12, Fig. 3: OASiS and RRH on one Sec. V-A workload (the largest load of Fig. 3):
    Theorem 2 (feasible schedules) and weak duality (19) >= (14) of the OASiS run, OASiS's price
    parameters, and how both schemes used the cluster (:func:`dlsched.oasis.experiments.run_profile`).

    Parameters
    ----------
    params : Mapping
        ``seed``, ``n_jobs``, ``T``, ``H``, ``K`` (ints, as in
        :func:`dlsched.oasis.experiments.utility_run`).

    Returns
    -------
    pandas.DataFrame
        One row per scheme (``oasis``, ``rrh``) with the columns of ``run_profile``, then
        ``alpha`` and ``log_l1`` (OASiS's Theorem 4 alpha and ln L1), ``feasible`` and
        ``feasible_summary`` (:func:`dlsched.oasis.checks.feasible_run`), ``weak_duality`` and
        ``weak_duality_summary`` (:func:`dlsched.oasis.checks.weak_duality`); the last six are
        the same on both rows.

    Raises
    ------
    TypeError, ValueError
        On bad parameters.
    """
    p = _params(params, "fig3_check_run", ("seed", "n_jobs", "T", "H", "K"))
    for key, value in p.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < (0 if key == "seed" else 1):
            raise ValueError(f"fig3_check_run: {key} must be a positive integer, got {value!r}")
    seed = p.pop("seed")
    wl = registry.make_workload("oasis", seed=seed, **p)
    pol = registry.make_policy("oasis", wl)
    res = simulate(wl, pol, seed=seed)
    feasible, dual = checks.feasible_run(res, pol), checks.weak_duality(pol, res)
    res_rrh = simulate(wl, registry.make_policy("rrh", wl), seed=seed)
    out = ox.run_profile({"oasis": res, "rrh": res_rrh})
    return out.assign(
        alpha=float(pol.prices.alpha),
        log_l1=float(pol.prices.log_l1),
        feasible=bool(feasible.holds),
        feasible_summary=feasible.summary(),
        weak_duality=bool(dual.holds),
        weak_duality_summary=dual.summary(),
    )

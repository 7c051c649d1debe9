r"""The PD-ORS notebooks' paper-scale computations as stored sweep points.

M. Yu, J. Liu, C. Wu, B. Ji, E. S. Bentley, "Toward Efficient Online Scheduling for Distributed
Machine Learning Systems", IEEE TNSE (arXiv:2108.02917); ``shared/spec/pdors.md``.

Every function named ``*_block`` or ``*_run`` here is an experiment function for
:func:`dlsched.experiments.sweep` (``fn(params: dict) -> pandas.DataFrame``, module-level,
deterministic given ``params``, seeds included, frames storable as parquet), so that what the
notebooks compute at the paper's sizes is read from the results store (``data/results``) in
paper mode and recomputed by ``dlsched audit``. Each wraps a function of
:mod:`dlsched.pdors.checks` or :mod:`dlsched.pdors.explain` unchanged:

* :func:`probe_block` -- notebook ``31_pdors_proofs``, sections 2-3: Alg. 4 steps 2-7 = the
  cheapest machine, DP (21) = brute force, Alg. 2 = argmax (:func:`~dlsched.pdors.checks.probe_sample`);
* :func:`slot_block` -- ``31_pdors_proofs``, sections 4-6, per instance: :math:`LP^* \le IP^* \le`
  rounded samples, the rounding (27)-(28) unbiased, the coverage of :math:`G_\delta` (31R)
  (:func:`~dlsched.pdors.checks.slot_sample`);
* :func:`coverage_block` -- ``31_pdors_proofs``, section 6: :math:`\Pr[(26)\ \text{violated}] \le
  \delta` pooled over instances for (31R), (32R) and plain rounding
  (:func:`~dlsched.pdors.checks.g_delta_coverage`);
* :func:`scale_block` -- ``31_pdors_proofs``, section 6 and figure ``fig_pdors_31_rounding_scale``:
  covering vs packing between plain rounding and :math:`G_\delta`
  (:func:`~dlsched.pdors.checks.coverage_by_scale`);
* :func:`run_block` -- ``31_pdors_proofs``, sections 7-8: whole runs feasible (3)-(7), weak duality
  (10) >= (8), the bookkeeping, the Lemma-1 analogue (:func:`~dlsched.pdors.checks.run_sample`);
* :func:`reading_run` -- ``30_pdors_model``, section 2: PD-ORS on Fig. 7's setting under both
  readings of :math:`\tau_i` (:func:`~dlsched.pdors.explain.reading_comparison`);
* :func:`fig7_check_run` -- ``32_pdors_figures``, Fig. 7: the largest Fig. 7 run of PD-ORS is
  feasible and weakly dual (:func:`~dlsched.pdors.checks.feasible_run`,
  :func:`~dlsched.pdors.checks.weak_duality`).

Seeds come in *blocks*: a ``*_block`` point covers the seeds ``first_seed, ...,
first_seed + n_seeds - 1`` (:func:`block_grid` cuts a seed list into such points), so a point
takes a few seconds at the paper's sizes and an audit can recompute one cheaply. Where a check
draws random roundings, one stream per block is seeded with ``rng_seed + first_seed``.
:func:`coverage_claim` pools the per-instance rows of :func:`coverage_block` into the claim
:func:`~dlsched.pdors.checks.g_delta_coverage` makes over all instances at once.

This module must not import :mod:`dlsched.pdors.findings` (presentation), so that a change of
the notebooks' prose never makes a stored point stale.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from dlsched import registry
from dlsched.core.claims import Claim, claim_row
from dlsched.core.simulator import policy_rng, simulate
from dlsched.pdors import checks, explain

__all__ = [
    "COVERAGE_VARIANTS",
    "block_grid",
    "coverage_block",
    "coverage_claim",
    "fig7_check_run",
    "probe_block",
    "reading_run",
    "run_block",
    "scale_block",
    "slot_block",
]

COVERAGE_VARIANTS: tuple[str, ...] = ("31R", "32R", "plain")
"""``variant`` of :func:`coverage_block`: :math:`G_\\delta` of (31R), of (32R), or scale 1."""

_COVERAGE_COLUMNS: tuple[str, ...] = (
    "seed", "holds", "levels", "levels_over_delta", "max_violation_rate", "pooled_violation_rate",
    "pooled_ps_violation_rate", "mean_G", "pooled_feasible_rate", "mean_cost_over_lp", "max_abs_z_cost",
)  # fmt: skip


# ------------------------------------------------------------------------------- parameters


def _get(params: object, fn: str) -> Mapping[str, object]:
    if not isinstance(params, Mapping):
        raise TypeError(f"{fn}: params must be a mapping, got {type(params).__name__}")
    return params


def _known(params: Mapping[str, object], known: Sequence[str], fn: str) -> None:
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise ValueError(f"{fn}: unknown parameter(s) {unknown}; known: {sorted(known)}")


def _int(params: Mapping[str, object], key: str, default: int | None, lo: int, fn: str) -> int:
    value = params.get(key, default)
    if value is None:
        raise ValueError(f"{fn}: missing parameter {key!r}")
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo:
        raise ValueError(f"{fn}: {key} must be an integer >= {lo}, got {value!r}")
    return int(value)


def _float(params: Mapping[str, object], key: str, default: float, fn: str) -> float:
    value = params.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{fn}: {key} must be a number, got {value!r}")
    if not (math.isfinite(float(value)) and float(value) > 0):
        raise ValueError(f"{fn}: {key} must be finite and > 0, got {value!r}")
    return float(value)


def _sizes(params: Mapping[str, object], fn: str) -> dict[str, object]:
    sizes = params.get("sizes", {})
    if not isinstance(sizes, Mapping):
        raise ValueError(f"{fn}: sizes must be a dict of instance sizes, got {sizes!r}")
    return dict(sizes)


def _family(params: Mapping[str, object], fn: str) -> str:
    family = params.get("family", "synthetic")
    if family not in ("synthetic", "pdors"):
        raise ValueError(f"{fn}: family must be 'synthetic' or 'pdors', got {family!r}")
    return str(family)


def _seeds(params: Mapping[str, object], fn: str) -> list[int]:
    first = _int(params, "first_seed", None, 0, fn)
    return list(range(first, first + _int(params, "n_seeds", None, 1, fn)))


def block_grid(base: Mapping[str, object], seeds: Sequence[int], block: int) -> list[dict]:
    """Sweep points that cover ``seeds`` (consecutive integers) in blocks of ``block`` seeds.

    Parameters
    ----------
    base : Mapping
        Parameters shared by every point (e.g. ``family``, ``sizes``, ``draws``).
    seeds : sequence of int
        Consecutive seeds, e.g. ``range(seed, seed + n)``.
    block : int
        Seeds per point (the last point may hold fewer).

    Returns
    -------
    list of dict
        ``{**base, "first_seed": s, "n_seeds": k}`` per block, in seed order.

    Raises
    ------
    ValueError
        If ``seeds`` is empty or not consecutive, or ``block`` is not an integer >= 1.
    """
    seeds = [int(s) for s in seeds]
    if not seeds or seeds != list(range(seeds[0], seeds[0] + len(seeds))):
        raise ValueError(f"block_grid: seeds must be consecutive integers, got {seeds!r}")
    if isinstance(block, bool) or not isinstance(block, (int, np.integer)) or block < 1:
        raise ValueError(f"block_grid: block must be an integer >= 1, got {block!r}")
    return [
        {**dict(base), "first_seed": seeds[i], "n_seeds": min(int(block), len(seeds) - i)}
        for i in range(0, len(seeds), int(block))
    ]


def _storable(frame: pd.DataFrame, drop: Sequence[str] = ()) -> pd.DataFrame:
    """``frame`` without the columns ``drop`` (the point's parameters, which
    :func:`~dlsched.experiments.sweep` adds back as columns), with every object
    column of booleans and missing values turned into floats (1.0, 0.0, NaN), so that it is
    stored and read back unchanged."""
    out = frame.drop(columns=[c for c in drop if c in frame.columns]).reset_index(drop=True)
    for col in out.columns:
        if out[col].dtype == object:
            values = out[col].dropna()
            if len(values) and values.map(lambda v: isinstance(v, (bool, np.bool_))).all():
                out[col] = out[col].map(lambda v: float(v) if isinstance(v, (bool, np.bool_)) else math.nan)
                out[col] = out[col].astype(float)
    return out


# ------------------------------------------------------------------------------- notebook 31


def probe_block(params: Mapping[str, object]) -> pd.DataFrame:
    """Notebook ``31_pdors_proofs``, sections 2-3 (spec section 7, properties 2-3): Algorithm 4's
    internal branch is the cheapest single machine, the quantised DP (21) equals brute force and
    Algorithm 2 takes the argmax, on every job of each seed's loaded instance
    (:func:`dlsched.pdors.checks.probe_sample`).

    Parameters
    ----------
    params : Mapping
        ``family`` (``"synthetic"`` or ``"pdors"``), ``sizes`` (dict of instance sizes),
        ``first_seed``, ``n_seeds``, ``dp_levels`` (default 6).

    Returns
    -------
    pandas.DataFrame
        The rows of ``probe_sample`` (one per seed, job and claim) without the columns named like a
        parameter (``family``).
    """
    p = _get(params, "probe_block")
    _known(p, ("family", "sizes", "first_seed", "n_seeds", "dp_levels"), "probe_block")
    frame = checks.probe_sample(
        _seeds(p, "probe_block"), family=_family(p, "probe_block"),
        dp_levels=_int(p, "dp_levels", 6, 1, "probe_block"), **_sizes(p, "probe_block"),
    )  # fmt: skip
    return _storable(frame, tuple(p))


def slot_block(params: Mapping[str, object]) -> pd.DataFrame:
    r"""Notebook ``31_pdors_proofs``, sections 4-6 (properties 4-6) per single-slot instance:
    :math:`LP^* \le` the integer optimum of (23)-(26)+(26') :math:`\le` every feasible rounded
    sample, the rounding (27)-(28) is unbiased, and :math:`G_\delta` of (31R) keeps
    :math:`\Pr[(26)\ \text{violated}] \le \delta` (:func:`dlsched.pdors.checks.slot_sample`).

    Parameters
    ----------
    params : Mapping
        ``first_seed``, ``n_seeds`` (instances :func:`~dlsched.pdors.checks.slot_instance`),
        ``draws`` (roundings per check, default 4000), ``delta`` (default 0.1), ``rng_seed``
        (default 0; the block's stream is seeded with ``rng_seed + first_seed``).

    Returns
    -------
    pandas.DataFrame
        The rows of ``slot_sample`` (three per instance) without the columns named like a parameter
        (``draws``, ``delta``); its boolean columns with missing values (``only_neighbours``,
        ``integral_kept``) as floats 1.0/0.0/NaN.
    """
    p = _get(params, "slot_block")
    _known(p, ("first_seed", "n_seeds", "draws", "delta", "rng_seed"), "slot_block")
    seeds = _seeds(p, "slot_block")
    frame = checks.slot_sample(
        seeds, draws=_int(p, "draws", 4000, 1, "slot_block"), delta=_float(p, "delta", 0.1, "slot_block"),
        rng_seed=_int(p, "rng_seed", 0, 0, "slot_block") + seeds[0],
    )  # fmt: skip
    return _storable(frame, tuple(p))


def coverage_block(params: Mapping[str, object]) -> pd.DataFrame:
    r"""Notebook ``31_pdors_proofs``, section 6 (property 6): the coverage of (26) after scaling by
    :math:`G_\delta` and rounding, instance by instance
    (:func:`dlsched.pdors.checks.g_delta_coverage` on each
    :func:`~dlsched.pdors.checks.slot_instance`, one random stream per block).

    Parameters
    ----------
    params : Mapping
        ``first_seed``, ``n_seeds``, ``variant`` (one of :data:`COVERAGE_VARIANTS`: ``"31R"``,
        ``"32R"``, or ``"plain"`` = scale 1, which must fail), ``draws`` (default 4000),
        ``delta`` (default 0.1), ``rng_seed`` (default 0), ``z_max`` (the Monte Carlo tolerance
        in standard errors of both tests, default 4.0 as in ``g_delta_coverage``; with hundreds
        of levels a notebook should widen it for the number of tests, e.g. 5.0: a two-sided
        normal tail of about 6e-7 per test).

    Returns
    -------
    pandas.DataFrame
        One row per instance: ``seed``, ``holds`` and the claim's details (``levels``,
        ``levels_over_delta``, ``max_violation_rate``, ``pooled_violation_rate``,
        ``pooled_ps_violation_rate``, ``mean_G``, ``pooled_feasible_rate``,
        ``mean_cost_over_lp``, ``max_abs_z_cost``). :func:`coverage_claim` pools them.
    """
    p = _get(params, "coverage_block")
    _known(p, ("first_seed", "n_seeds", "variant", "draws", "delta", "rng_seed", "z_max"), "coverage_block")
    variant = p.get("variant", "31R")
    if variant not in COVERAGE_VARIANTS:
        raise ValueError(f"coverage_block: variant must be one of {COVERAGE_VARIANTS}, got {variant!r}")
    seeds = _seeds(p, "coverage_block")
    draws = _int(p, "draws", 4000, 2, "coverage_block")
    delta = _float(p, "delta", 0.1, "coverage_block")
    z_max = _float(p, "z_max", 4.0, "coverage_block")
    rng = policy_rng(_int(p, "rng_seed", 0, 0, "coverage_block") + seeds[0])
    rows = []
    for seed in seeds:
        claim = checks.g_delta_coverage(
            [checks.slot_instance(seed)], rng, delta=delta, draws=draws, z_max=z_max,
            variant="31R" if variant == "plain" else str(variant), scale=1.0 if variant == "plain" else None,
        )  # fmt: skip
        rows.append(
            {"seed": seed, "holds": bool(claim.holds), **{k: claim.details[k] for k in _COVERAGE_COLUMNS[2:]}}
        )
    out = pd.DataFrame(rows, columns=list(_COVERAGE_COLUMNS))
    return out.astype(
        {"seed": "int64", "holds": bool, "levels": "int64", "levels_over_delta": "int64"}
    ).astype({c: float for c in _COVERAGE_COLUMNS[4:]})


def _weighted(values: pd.Series, weights: pd.Series) -> float:
    ok = values.notna() & (weights > 0)
    return float(np.average(values[ok], weights=weights[ok])) if ok.any() else math.nan


def coverage_claim(frame: pd.DataFrame, *, variant: str = "31R", z_max: float = 4.0) -> Claim:
    r"""Pool :func:`coverage_block` rows into the claim
    :func:`~dlsched.pdors.checks.g_delta_coverage` makes over all their instances at once.

    Per-instance rates are weighted by their number of levels, so the pooled rates and means are
    those over every (instance, level); the claim holds iff it holds on every instance (no level's
    violation rate above :math:`\delta` plus ``z_max`` standard errors, the mean cost within
    ``z_max`` standard errors of :math:`G_\delta LP^*`).

    Parameters
    ----------
    frame : pandas.DataFrame
        Rows of :func:`coverage_block` (one variant).
    variant : str
        Names the claim.
    z_max : float
        The tolerance the rows were checked with (reported).

    Returns
    -------
    Claim
        Details ``instances``, ``levels``, ``levels_over_delta``, ``max_violation_rate``,
        ``pooled_violation_rate``, ``pooled_ps_violation_rate``, ``mean_G``,
        ``pooled_feasible_rate``, ``mean_cost_over_lp``, ``max_abs_z_cost``.

    Raises
    ------
    ValueError
        If ``frame`` is empty or lacks a column of :func:`coverage_block`.
    """
    missing = [c for c in _COVERAGE_COLUMNS if c not in getattr(frame, "columns", ())]
    if missing or len(frame) == 0:
        raise ValueError(f"coverage_claim: needs non-empty coverage_block rows; missing columns {missing}")
    w = frame["levels"].astype(float)
    details = {
        "instances": int(len(frame)),
        "levels": int(w.sum()),
        "levels_over_delta": int(frame["levels_over_delta"].sum()),
        "max_violation_rate": float(frame["max_violation_rate"].max()),
        **{
            c: _weighted(frame[c], w)
            for c in (
                "pooled_violation_rate",
                "pooled_ps_violation_rate",
                "mean_G",
                "pooled_feasible_rate",
                "mean_cost_over_lp",
            )
        },
        "max_abs_z_cost": float(frame["max_abs_z_cost"].max()),
        "z_max": float(z_max),
    }
    name = (
        f"PD-ORS G_delta ({variant}): Pr[(26) violated] <= delta, E[cost] = G_delta LP*, "
        f"pooled over {len(frame)} instances"
    )
    return Claim(name, bool(frame["holds"].all()), details)


def scale_block(params: Mapping[str, object]) -> pd.DataFrame:
    r"""Notebook ``31_pdors_proofs``, section 6, figure ``fig_pdors_31_rounding_scale``: the
    violation rate of (26) and the share of fully feasible rounded samples as the scale moves from
    1 (plain rounding) to :math:`G_\delta` of (31R) (:func:`dlsched.pdors.checks.coverage_by_scale`).

    Parameters
    ----------
    params : Mapping
        ``first_seed``, ``n_seeds``, ``draws`` (default 2000), ``delta`` (default 0.1),
        ``rng_seed`` (default 0; one stream per block, ``rng_seed + first_seed``).

    Returns
    -------
    pandas.DataFrame
        The rows of ``coverage_by_scale`` with ``case`` replaced by the instance's ``seed``.
    """
    p = _get(params, "scale_block")
    _known(p, ("first_seed", "n_seeds", "draws", "delta", "rng_seed"), "scale_block")
    seeds = _seeds(p, "scale_block")
    rng = policy_rng(_int(p, "rng_seed", 0, 0, "scale_block") + seeds[0])
    frame = checks.coverage_by_scale(
        [checks.slot_instance(s) for s in seeds], rng,
        delta=_float(p, "delta", 0.1, "scale_block"), draws=_int(p, "draws", 2000, 1, "scale_block"),
    )  # fmt: skip
    cols = ["seed", *[c for c in frame.columns if c != "case"]]
    if frame.empty:
        return pd.DataFrame({c: pd.Series(dtype="int64" if c == "seed" else float) for c in cols})
    frame.insert(0, "seed", np.asarray(seeds, dtype="int64")[frame.pop("case").to_numpy()])
    return frame[cols].reset_index(drop=True)


def run_block(params: Mapping[str, object]) -> pd.DataFrame:
    """Notebook ``31_pdors_proofs``, sections 7-8 (property 7 and the primal-dual bookkeeping):
    whole PD-ORS runs are feasible, keep their plans, satisfy weak duality (10) >= (8) and the
    bookkeeping; the Lemma-1 analogue is reported (:func:`dlsched.pdors.checks.run_sample`).

    Parameters
    ----------
    params : Mapping
        ``family``, ``sizes``, ``first_seed``, ``n_seeds``, ``levels`` (DP units, default 100).

    Returns
    -------
    pandas.DataFrame
        The rows of ``run_sample`` (one per seed and claim) without the columns named like a
        parameter (``family``).
    """
    p = _get(params, "run_block")
    _known(p, ("family", "sizes", "first_seed", "n_seeds", "levels"), "run_block")
    frame = checks.run_sample(
        _seeds(p, "run_block"), family=_family(p, "run_block"), levels=_int(p, "levels", 100, 1, "run_block"),
        **_sizes(p, "run_block"),
    )  # fmt: skip
    return _storable(frame, tuple(p))


# ------------------------------------------------------------------------------- notebook 30


def reading_run(params: Mapping[str, object]) -> pd.DataFrame:
    r"""Notebook ``30_pdors_model``, section 2 ("In which unit is :math:`\tau_i`?"): PD-ORS on the
    Fig. 7 setting with :math:`\tau_i` read in seconds or in slots
    (:func:`dlsched.pdors.explain.reading_comparison` for one seed and one reading).

    Parameters
    ----------
    params : Mapping
        ``seed``, ``reading`` (``"seconds"`` or ``"slots"``), ``n_jobs``, ``n_machines``, ``T``.

    Returns
    -------
    pandas.DataFrame
        One row: ``finishable``, ``admitted``, ``finished``, ``total_utility`` and
        ``wall_seconds`` (wall clock of the run: volatile).
    """
    p = _get(params, "reading_run")
    _known(p, ("seed", "reading", "n_jobs", "n_machines", "T"), "reading_run")
    reading = p.get("reading")
    if reading not in ("seconds", "slots"):
        raise ValueError(f"reading_run: reading must be 'seconds' or 'slots', got {reading!r}")
    sizes = {k: _int(p, k, None, 1, "reading_run") for k in ("n_jobs", "n_machines", "T")}
    frame = explain.reading_comparison([_int(p, "seed", 0, 0, "reading_run")], [str(reading)], **sizes)
    return _storable(frame, tuple(p))


reading_run.volatile = ("wall_seconds",)


# ------------------------------------------------------------------------------- notebook 32


def fig7_check_run(params: Mapping[str, object]) -> pd.DataFrame:
    """Notebook ``32_pdors_figures``, Fig. 7: the PD-ORS run behind a Fig. 7 point is feasible
    (capacities, the worker:PS ratio, arrivals, plans kept, the work done by the planned
    completion) and its final prices and payoffs bound its utility from above (weak duality)
    (:func:`dlsched.pdors.checks.feasible_run`, :func:`dlsched.pdors.checks.weak_duality`).

    Parameters
    ----------
    params : Mapping
        ``seed``, ``n_jobs``, ``n_machines``, ``T`` of the ``"pdors"`` workload.

    Returns
    -------
    pandas.DataFrame
        One row per claim: ``claim``, ``holds``, ``summary`` and the claim's numeric details.
    """
    p = _get(params, "fig7_check_run")
    _known(p, ("seed", "n_jobs", "n_machines", "T"), "fig7_check_run")
    seed = _int(p, "seed", 0, 0, "fig7_check_run")
    sizes = {k: _int(p, k, None, 1, "fig7_check_run") for k in ("n_jobs", "n_machines", "T")}
    wl = registry.make_workload("pdors", seed=seed, **sizes)
    pol = registry.make_policy("pdors", wl)
    res = simulate(wl, pol, seed=seed)
    rows = [claim_row(c) for c in (checks.feasible_run(res, pol), checks.weak_duality(res, pol))]
    return _storable(pd.DataFrame(rows), tuple(p))

r"""Every Optimus claim as a check function, and the samplers that run them over many seeds.

This module is the one entry point for the Optimus checks (spec ``optimus.md`` Sec. 8): the checks
of the model-fitting claims live here, those of the allocation, placement and PAA claims are
re-exported from their modules. Every check returns a :class:`~dlsched.core.claims.Claim`; tests
call them on many random instances, notebook ``21_optimus_proofs`` in assert cells through the
``*_sample`` functions below (one row per seed/instance and claim), folded by
:func:`sample_claims`.

==============================================  ==========================================
check                                           claim
==============================================  ==========================================
:func:`loss_fit_recovers`                       Sec. 3.1: the NNLS fit of Eq. (1) recovers
                                                :math:`\beta` from noise-free synthetic
                                                curves (relative 1e-6) and the curve (RMS
                                                error) under noise
:func:`remaining_epochs_matches_brute_force`    the closed-form :math:`e^*` equals a scan of
                                                the per-epoch decrease
:func:`speed_fit_recovers`                      Sec. 3.2: NNLS on Eq. (3)/(4) recovers
                                                :math:`\theta` exactly from noise-free speeds
                                                (>= 4 / 5 distinct pairs) and predicts the
                                                speed closely under noise
:func:`check_allocation`                        Sec. 4.1 (from :mod:`.allocation`): capacity
                                                (7) holds, every allocated job has
                                                :math:`p, w \ge 1`, every added task had a
                                                positive gain (9)
:func:`check_allocation_gap`                    Sec. 4.1 (from :mod:`.allocation`): heuristic
                                                :math:`\sum_j t_j` vs the brute-force optimum
                                                of (5)-(8) (gap reported, no guarantee)
:func:`check_theorem1`                          Theorem 1 (from :mod:`.placement`): best even
                                                split on the fewest servers is optimal (brute
                                                force, <= 4 homogeneous servers)
:func:`check_fig10`                             Fig. 10 (from :mod:`.placement`): placements
                                                (a), (b), (c) take 3, 3, 2 time units
:func:`check_place_optimal`                     Sec. 4.2: the split :func:`~.placement.place`
                                                builds attains the brute-force optimum
:func:`check_paa_invariants`                    Sec. 5.3 (from :mod:`.paa`): no block <=
                                                avg_size split; requests = blocks + extra
                                                partitions
:func:`check_table3`                            Table 3 (from :mod:`.paa`): PAA on ResNet-50
                                                needs 157 requests and balances the PSs
==============================================  ==========================================

Samplers (pandas DataFrames, one row per seed/instance and claim, columns ``seed``, ``claim``,
``holds``, ``summary`` plus the claim's numeric details): :func:`loss_fit_sample`,
:func:`speed_fit_sample`, :func:`remaining_epochs_sample`, :func:`allocation_sample`,
:func:`allocation_gap_sample`, :func:`theorem1_sample`, :func:`paa_sample`,
:func:`resnet50_paa_sample`, :func:`mxnet_sample`. Summaries: :func:`sample_claims` (one Claim per
claim name), :func:`summarize` (quantiles of columns per group), :func:`fit_errors` (long table
of the fit errors for plotting), :func:`counterexamples`, :func:`table3_comparison` (paper vs
ours). Instances: :func:`allocation_instance`; :func:`mxnet_key_hash` is MXNet's actual server
choice for small blocks (its ``kvstore_dist.h``), next to the paper's "random" reading
(:func:`~.paa.mxnet_default`).

Synthetic noise is multiplicative: each value is multiplied by ``1 + noise * N(0, 1)``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from dlsched.core import numerics
from dlsched.core.claims import Claim, check_seeds, claims_by_name
from dlsched.core.claims import sample_row as _row
from dlsched.core.jobs import LossCurve
from dlsched.optimus.allocation import (
    AllocJob,
    check_allocation,
    check_allocation_gap,
    speed_function,
)
from dlsched.optimus.fitting import (
    MIN_SPEED_PAIRS,
    LossFit,
    SpeedFit,
    brute_force_convergence_epoch,
    convergence_epoch,
    fit_loss_curve,
    fit_speed,
    speed_features,
)
from dlsched.optimus.paa import (
    Assignment,
    check_paa_invariants,
    check_table3,
    mxnet_default,
    paa,
    resnet50_blocks,
)
from dlsched.optimus.placement import (
    TERMS,
    PlaceJob,
    check_fig10,
    check_theorem1,
    place,
    transfer_time,
)

__all__ = [
    # checks (the last six re-exported from allocation, placement and paa)
    "loss_fit_recovers",
    "remaining_epochs_matches_brute_force",
    "speed_fit_recovers",
    "check_place_optimal",
    "check_allocation",
    "check_allocation_gap",
    "check_theorem1",
    "check_fig10",
    "check_paa_invariants",
    "check_table3",
    # instances and samplers
    "allocation_instance",
    "mxnet_key_hash",
    "loss_fit_sample",
    "speed_fit_sample",
    "remaining_epochs_sample",
    "allocation_sample",
    "allocation_gap_sample",
    "theorem1_sample",
    "paa_sample",
    "resnet50_paa_sample",
    "mxnet_sample",
    # summaries
    "sample_claims",
    "summarize",
    "fit_errors",
    "counterexamples",
    "table3_comparison",
]


def _check_noise(noise) -> float:
    if (
        isinstance(noise, bool)
        or not isinstance(noise, (int, float))
        or not (math.isfinite(noise) and noise >= 0)
    ):
        raise ValueError(f"noise must be a finite number >= 0, got {noise!r}")
    return float(noise)


def _check_rng(rng) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return rng


def _noisy(values: np.ndarray, noise: float, rng: np.random.Generator) -> np.ndarray:
    """Multiply by ``1 + noise N(0,1)``, redrawing the rare factors <= 0."""
    factor = 1.0 + noise * rng.standard_normal(values.size)
    while np.any(factor <= 0):
        bad = factor <= 0
        factor[bad] = 1.0 + noise * rng.standard_normal(int(bad.sum()))
    return values * factor


def _coef_errors(got: np.ndarray, true: np.ndarray) -> np.ndarray:
    """Relative error per coefficient; absolute error scaled by max|true| where true is 0."""
    scale = np.where(true > 0, true, np.max(np.abs(true)))
    return np.abs(got - true) / scale


def loss_fit_recovers(
    beta: Sequence[float] | LossCurve,
    epochs,
    noise: float,
    rng: np.random.Generator,
    *,
    rtol: float | None = None,
) -> Claim:
    r"""Fit Eq. (1) to a synthetic curve and compare with the truth.

    The fit normalises by the largest loss :math:`c`, so the truth in the fit's units is
    :math:`(c\beta_0, c\beta_1, \beta_2/c)`. Noise-free (``noise == 0``): every coefficient must
    be recovered within ``rtol`` (default 1e-6) relative (absolute, scaled by the largest
    coefficient, for a zero coefficient). With noise: the root-mean-square relative error of the
    fitted curve against the true curve over ``epochs`` must be at most ``rtol`` (default
    ``3 * noise``; measured on 400 random curves: median 0.34, worst 2.2 times the noise). The
    worst epoch's error and the coefficient errors (ill-conditioned under noise) are reported.

    Parameters
    ----------
    beta : (beta0, beta1, beta2) or LossCurve
        True coefficients (raw units).
    epochs : array-like of float
        Epochs observed (strictly increasing, >= 0, at least 3).
    noise : float
        Relative noise standard deviation (>= 0).
    rng : numpy.random.Generator
        Noise stream.
    rtol : float, optional
        Tolerance (see above).

    Returns
    -------
    Claim

    Raises
    ------
    TypeError, ValueError
        Bad inputs (see :func:`~dlsched.optimus.fitting.fit_loss_curve`).
    """
    curve = beta if isinstance(beta, LossCurve) else LossCurve(*beta)
    noise = _check_noise(noise)
    rng = _check_rng(rng)
    k = np.asarray(epochs, dtype=float)
    true_l = curve(k)
    observed = _noisy(true_l, noise, rng) if noise > 0 else true_l
    fit = fit_loss_curve(k, observed)
    c = fit.normalizer
    true = np.array([c * curve.beta0, c * curve.beta1, curve.beta2 / c])
    got = np.array([fit.beta0, fit.beta1, fit.beta2])
    coef_err = _coef_errors(got, true)
    rel = np.abs(fit.predict(k) - true_l) / true_l
    rms = float(np.sqrt(np.mean(rel**2)))
    if noise == 0:
        tol = 1e-6 if rtol is None else float(rtol)
        holds = bool(np.all(coef_err <= tol))
    else:
        tol = 3.0 * noise if rtol is None else float(rtol)
        holds = rms <= tol
    return Claim(
        name="Optimus Sec. 3.1: NNLS fit of Eq. (1) recovers the loss curve",
        holds=holds,
        details={
            "noise": noise,
            "n_points": int(k.size),
            "rtol": tol,
            "true_beta": tuple(float(x) for x in true),
            "fitted_beta": tuple(float(x) for x in got),
            "max_coef_error": float(coef_err.max()),
            "rms_curve_rel_error": rms,
            "max_curve_rel_error": float(rel.max()),
            "n_outliers": fit.n_outliers,
        },
    )


def remaining_epochs_matches_brute_force(fit: LossFit, delta: float, *, max_scan: int = 10_000_000) -> Claim:
    r"""The closed-form :math:`e^*` equals the first epoch found by scanning the decrease.

    A disagreement is accepted only as a floating-point tie: the decrease at the disputed
    epoch equals ``delta`` within relative 1e-9.

    Parameters
    ----------
    fit : LossFit
        Curve (normalised units).
    delta : float
        Threshold (> 0).
    max_scan : int, default 10**7
        Largest :math:`e^*` the brute force is willing to scan up to.

    Returns
    -------
    Claim

    Raises
    ------
    ValueError
        :math:`e^*` exceeds ``max_scan`` (choose a larger ``delta``).
    """
    e_star = convergence_epoch(fit, delta)
    if e_star > max_scan:
        raise ValueError(f"e* = {e_star} exceeds max_scan={max_scan}; the brute force would be too long")
    brute = brute_force_convergence_epoch(fit, delta, e_star + 1)

    def dec(e: int) -> float:
        x = fit.beta0 * e + fit.beta1
        return fit.beta0 / (x * (x + fit.beta0)) if x > 0 else math.inf

    tie = False
    if brute is not None and brute != e_star:
        disputed = min(brute, e_star)
        tie = abs(brute - e_star) == 1 and math.isclose(dec(disputed), delta, rel_tol=1e-9)
    holds = brute == e_star or tie
    return Claim(
        name="Optimus Sec. 3.1: closed-form convergence epoch equals the brute-force scan",
        holds=bool(holds),
        details={
            "delta": float(delta),
            "closed_form": e_star,
            "brute_force": brute,
            "decrease_at_e*": dec(e_star),
            "decrease_before_e*": dec(e_star - 1) if e_star > 0 else math.nan,
            "tie": tie,
        },
    )


def _random_pairs(mode: str, n_pairs: int, rng: np.random.Generator, M: float | None, max_pw: int) -> list:
    need = MIN_SPEED_PAIRS[mode]
    for _ in range(1000):
        pairs: list[tuple[int, int]] = []
        seen = set()
        while len(pairs) < n_pairs:
            pw = (int(rng.integers(1, max_pw + 1)), int(rng.integers(1, max_pw + 1)))
            if pw not in seen:
                seen.add(pw)
                pairs.append(pw)
        X = speed_features([p for p, _ in pairs], [w for _, w in pairs], mode, M)
        if np.linalg.matrix_rank(X) == need:
            return pairs
    raise RuntimeError("could not draw a full-rank set of (p, w) pairs")  # pragma: no cover


def speed_fit_recovers(
    theta: Sequence[float],
    mode: str,
    rng: np.random.Generator,
    noise: float,
    *,
    M: float | None = None,
    pairs: Sequence[tuple[int, int]] | None = None,
    n_pairs: int = 10,
    max_pw: int = 16,
    rtol: float | None = None,
) -> Claim:
    r"""Generate speeds from Eq. (3)/(4), fit them by NNLS and compare.

    Noise-free: every :math:`\theta` within ``rtol`` (default 1e-6) relative (absolute, scaled
    by the largest coefficient, for a zero coefficient). With noise: at the measured pairs, the
    mean relative error of the fitted speed against the *true* speed must be at most ``rtol``
    (default ``2 * noise``; a raw measurement is off by about ``0.8 * noise`` on average).
    Errors over the whole grid :math:`1 \le p, w \le` ``max_pw`` (extrapolation) are reported
    in the details.

    Parameters
    ----------
    theta : sequence of float
        True coefficients (4 async, 5 sync), >= 0.
    mode : {"async", "sync"}
    rng : numpy.random.Generator
        Draws the pairs (when ``pairs`` is None) and the noise.
    noise : float
        Relative noise standard deviation (>= 0).
    M : float, optional
        Global batch size (sync; default 1).
    pairs : sequence of (p, w), optional
        Measured configurations (default: ``n_pairs`` distinct random pairs with a full-rank
        design, :math:`1 \le p, w \le` ``max_pw``).
    n_pairs : int, default 10
    max_pw : int, default 16
    rtol : float, optional

    Returns
    -------
    Claim

    Raises
    ------
    ValueError
        Bad theta, mode, noise, or too few pairs (see :func:`~dlsched.optimus.fitting.fit_speed`).
    """
    rng = _check_rng(rng)
    noise = _check_noise(noise)
    if mode == "sync" and M is None:
        M = 1.0
    truth = SpeedFit(mode=mode, theta=tuple(theta), M=M)
    if pairs is None:
        pairs = _random_pairs(mode, n_pairs, rng, truth.M, max_pw)
    p = np.array([pw[0] for pw in pairs], dtype=float)
    w = np.array([pw[1] for pw in pairs], dtype=float)
    f_true = truth.predict(p, w)
    f_obs = _noisy(f_true, noise, rng) if noise > 0 else f_true
    fit = fit_speed(list(zip(p, w, f_obs, strict=True)), mode, truth.M)
    true = np.asarray(truth.theta)
    got = np.asarray(fit.theta)
    coef_err = _coef_errors(got, true)
    gp, gw = np.meshgrid(np.arange(1, max_pw + 1), np.arange(1, max_pw + 1))
    rel = np.abs(fit.predict(gp, gw) - truth.predict(gp, gw)) / truth.predict(gp, gw)
    at_pairs = float(np.mean(np.abs(fit.predict(p, w) - f_true) / f_true))
    if noise == 0:
        tol = 1e-6 if rtol is None else float(rtol)
        holds = bool(np.all(coef_err <= tol))
    else:
        tol = 2.0 * noise if rtol is None else float(rtol)
        holds = at_pairs <= tol
    return Claim(
        name=f"Optimus Sec. 3.2: NNLS fit of Eq. ({3 if mode == 'async' else 4}) recovers the speed model",
        holds=holds,
        details={
            "mode": mode,
            "noise": noise,
            "n_pairs": fit.n_pairs,
            "rank": fit.rank,
            "rtol": tol,
            "true_theta": tuple(float(x) for x in true),
            "fitted_theta": fit.theta,
            "max_coef_error": float(coef_err.max()),
            "pairs_mean_rel_error": at_pairs,
            "grid_mean_rel_error": float(rel.mean()),
            "grid_max_rel_error": float(rel.max()),
        },
    )


# ==================================================================== samplers and summaries
#
# Every sampler draws its instances from ``numpy.random.default_rng(seed)`` (and streams derived
# from ``[seed, k]``), so a row depends only on its seed and the sampler's arguments, not on
# which other seeds are in the list.

_REL = 1e-9

_STATS = ("count", "mean", "median", "p90", "p99", "min", "max")
"""Statistics :func:`summarize` knows."""


def _check_seeds(seeds) -> list[int]:
    """A non-empty list of integer seeds >= 0 (TypeError / ValueError otherwise)."""
    if isinstance(seeds, (str, bytes)):
        raise TypeError(f"seeds must be an iterable of ints, got {type(seeds).__name__}")
    return check_seeds(seeds)


def _int_at_least(x, what: str, lo: int = 1) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < lo:
        raise ValueError(f"{what} must be an integer >= {lo}, got {x!r}")
    return int(x)


def _levels(noise_levels) -> list[float]:
    try:
        out = list(noise_levels)
    except TypeError:
        raise TypeError(f"noise_levels must be a sequence of numbers, got {noise_levels!r}") from None
    if not out:
        raise ValueError("noise_levels is empty; give at least one level (0 = noise-free)")
    return [_check_noise(x) for x in out]


def _names(values, allowed: Sequence[str], what: str) -> list[str]:
    vals = [values] if isinstance(values, str) else list(values)
    bad = [v for v in vals if v not in allowed]
    if bad or not vals:
        raise ValueError(f"{what} must be a non-empty subset of {tuple(allowed)}, got {values!r}")
    return vals


def _range_pair(x, what: str) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in x)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a pair (low, high) of numbers, got {x!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and 0 < lo <= hi):
        raise ValueError(f"{what} must satisfy 0 < low <= high (finite), got {x!r}")
    return lo, hi


def sample_claims(frame: pd.DataFrame, by: str | None = None) -> dict[str, Claim]:
    """Fold a sample table (one row per instance and claim) into one :class:`Claim` per claim name.

    Parameters
    ----------
    frame : pandas.DataFrame
        With columns ``claim`` (name), ``holds`` and ``summary``, e.g. from :func:`theorem1_sample`.
    by : str, optional
        Also split by this column (e.g. ``"noise"``): one claim per (name, value), named
        ``"<name> [<by>=<value>]"``, values in sorted order.

    Returns
    -------
    dict of str to Claim
        In order of first appearance; each holds iff every row of that claim holds; ``details``:
        ``checked`` rows, ``failures`` and the ``first_failure`` summary (empty if none).

    Raises
    ------
    TypeError
        ``frame`` is not a DataFrame.
    ValueError
        A column (or ``by``) is missing or the frame is empty.
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    missing = [
        c for c in ("claim", "holds", "summary") + (() if by is None else (by,)) if c not in frame.columns
    ]
    if missing:
        raise ValueError(f"frame is missing column(s) {missing}; got {list(frame.columns)}")
    if frame.empty:
        raise ValueError("frame is empty: no claim was checked")
    return claims_by_name(frame, by)


def _p90(x):
    return x.quantile(0.9)


def _p99(x):
    return x.quantile(0.99)


_p90.__name__ = "p90"
_p99.__name__ = "p99"


def summarize(
    frame: pd.DataFrame,
    columns: str | Sequence[str],
    by: str | Sequence[str] | None = None,
    *,
    stats: Sequence[str] = ("median", "p90", "max"),
) -> pd.DataFrame:
    """Distribution of numeric columns of a sample table, per group.

    Parameters
    ----------
    frame : pandas.DataFrame
        A sample table (e.g. from :func:`allocation_gap_sample`).
    columns : str or sequence of str
        Numeric (or boolean: the mean is then a share) columns to summarise.
    by : str or sequence of str, optional
        Grouping column(s); None summarises the whole table (one row, index ``"all"``).
    stats : sequence of str, default ("median", "p90", "max")
        Any of ``count, mean, median, p90, p99, min, max`` (NaNs are skipped).

    Returns
    -------
    pandas.DataFrame
        One row per group, columns ``(column, stat)`` (a two-level column index).

    Raises
    ------
    TypeError
        ``frame`` is not a DataFrame.
    ValueError
        Unknown column, grouping column or statistic; empty frame.
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    cols = [columns] if isinstance(columns, str) else list(columns)
    keys = [] if by is None else ([by] if isinstance(by, str) else list(by))
    missing = [c for c in cols + keys if c not in frame.columns]
    if missing or not cols:
        raise ValueError(f"columns/by {missing or cols} not in the frame's columns {list(frame.columns)}")
    stats = _names(stats, _STATS, "stats")
    if frame.empty:
        raise ValueError("frame is empty: nothing to summarise")
    fn = {
        "count": "count",
        "mean": "mean",
        "median": "median",
        "p90": _p90,
        "p99": _p99,
        "min": "min",
        "max": "max",
    }
    data = frame[cols + keys].copy()
    for c in cols:
        if data[c].dtype == bool:
            data[c] = data[c].astype(float)
    if not keys:
        data["_all"] = "all"
        keys = ["_all"]
    out = data.groupby(keys, sort=True)[cols].agg([fn[s] for s in stats])
    if keys == ["_all"]:
        out.index.name = None
    return out


# ------------------------------------------------------------------------------------ fitting


def loss_fit_sample(
    seeds: Iterable[int],
    noise_levels: Sequence[float] = (0.0, 0.01, 0.02, 0.05, 0.1),
    *,
    min_points: int = 8,
    max_points: int = 150,
) -> pd.DataFrame:
    r""":func:`loss_fit_recovers` on one random Eq. (1) curve per seed, at every noise level.

    Per seed: :math:`\beta_0 \sim U(0.01, 2)`, :math:`\beta_1 \sim U(0.2, 5)`, :math:`\beta_2 = 0`
    or :math:`U(0, 0.5)` (half each), epochs ``1..n`` with ``n`` uniform in
    ``[min_points, max_points]``. The same curve and the same standard-normal draws are used at
    every noise level (common random numbers), so errors are comparable across levels.

    Parameters
    ----------
    seeds : iterable of int
        Seeds >= 0.
    noise_levels : sequence of float
        Relative noise levels (0 = noise-free, exact recovery checked).
    min_points, max_points : int
        Range of the number of epochs observed (3 <= min_points <= max_points).

    Returns
    -------
    pandas.DataFrame
        One row per (seed, noise): ``seed, noise, beta0_true, beta1_true, beta2_true, n_points,
        claim, holds, summary, rtol, max_coef_error, rms_curve_rel_error, max_curve_rel_error,
        n_outliers``.

    Raises
    ------
    TypeError, ValueError
        Bad seeds, noise levels or point counts.
    """
    seeds = _check_seeds(seeds)
    levels = _levels(noise_levels)
    lo = _int_at_least(min_points, "min_points", 3)
    hi = _int_at_least(max_points, "max_points", lo)
    rows = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        curve = LossCurve(
            float(rng.uniform(0.01, 2.0)),
            float(rng.uniform(0.2, 5.0)),
            0.0 if rng.random() < 0.5 else float(rng.uniform(0.0, 0.5)),
        )
        epochs = np.arange(1, int(rng.integers(lo, hi + 1)) + 1)
        for noise in levels:
            claim = loss_fit_recovers(curve, epochs, noise, np.random.default_rng([seed, 1]))
            rows.append(
                _row(
                    seed,
                    claim,
                    noise=noise,
                    beta0_true=curve.beta0,
                    beta1_true=curve.beta1,
                    beta2_true=curve.beta2,
                )
            )
    return pd.DataFrame(rows)


def speed_fit_sample(
    seeds: Iterable[int],
    noise_levels: Sequence[float] = (0.0, 0.01, 0.02, 0.05, 0.1),
    *,
    modes: Sequence[str] = ("async", "sync"),
    n_pairs: int = 10,
    max_pw: int = 16,
) -> pd.DataFrame:
    r""":func:`speed_fit_recovers` on random Eq. (3)/(4) models, per seed, mode and noise level.

    Per seed and mode: :math:`\theta_i \sim U(0, 5)`, each set to 0 with probability 0.3,
    :math:`\theta_0 \ge 0.1`; sync: :math:`M \sim U(1, 256)`; ``n_pairs`` distinct random
    :math:`(p, w)` with a full-rank design, :math:`1 \le p, w \le` ``max_pw``. The same model,
    pairs and standard-normal draws at every noise level.

    Parameters
    ----------
    seeds : iterable of int
    noise_levels : sequence of float
    modes : sequence of {"async", "sync"}
    n_pairs : int, default 10
        Measured configurations (>= 4 async, >= 5 sync; paper Fig. 8 uses up to 10+).
    max_pw : int, default 16

    Returns
    -------
    pandas.DataFrame
        One row per (seed, mode, noise): ``seed, mode, noise, M, claim, holds, summary, n_pairs,
        rank, rtol, max_coef_error, pairs_mean_rel_error, grid_mean_rel_error,
        grid_max_rel_error``.

    Raises
    ------
    TypeError, ValueError
        Bad seeds, noise levels, modes or sizes (``n_pairs`` below the mode's minimum or above
        ``max_pw ** 2``).
    """
    seeds = _check_seeds(seeds)
    levels = _levels(noise_levels)
    modes = _names(modes, ("async", "sync"), "modes")
    max_pw = _int_at_least(max_pw, "max_pw", 2)
    need = max(MIN_SPEED_PAIRS[m] for m in modes)
    n_pairs = _int_at_least(n_pairs, "n_pairs", need)
    if n_pairs > max_pw * max_pw:
        raise ValueError(f"n_pairs={n_pairs} exceeds the {max_pw * max_pw} distinct pairs of max_pw={max_pw}")
    rows = []
    for seed in seeds:
        for m_i, mode in enumerate(modes):
            rng = np.random.default_rng([seed, 10 + m_i])
            theta = rng.uniform(0.0, 5.0, MIN_SPEED_PAIRS[mode])
            theta[rng.random(theta.size) < 0.3] = 0.0
            theta[0] = max(theta[0], 0.1)
            M = float(rng.uniform(1, 256)) if mode == "sync" else None
            pairs = _random_pairs(mode, n_pairs, rng, M, max_pw)
            for noise in levels:
                claim = speed_fit_recovers(
                    theta,
                    mode,
                    np.random.default_rng([seed, 20 + m_i]),
                    noise,
                    M=M,
                    pairs=pairs,
                    max_pw=max_pw,
                )
                rows.append(_row(seed, claim, mode=mode, noise=noise, M=math.nan if M is None else M))
    return pd.DataFrame(rows)


def fit_errors(loss: pd.DataFrame, speed: pd.DataFrame) -> pd.DataFrame:
    """Long table of the fit errors of :func:`loss_fit_sample` and :func:`speed_fit_sample`.

    The error of a fit is the relative error of the *fitted* curve against the *true* one: for
    Eq. (1) the RMS over the observed epochs (``rms_curve_rel_error``), for Eqs. (3)/(4) the mean
    over the measured pairs (``pairs_mean_rel_error``); ``grid_error`` is the speed model's mean
    error over the whole (p, w) grid (NaN for the loss).

    Parameters
    ----------
    loss, speed : pandas.DataFrame
        Outputs of the two samplers.

    Returns
    -------
    pandas.DataFrame
        Columns ``model`` ("loss Eq. (1)", "speed Eq. (3) async", "speed Eq. (4) sync"),
        ``seed, noise, error, error_over_noise`` (NaN at noise 0), ``coef_error``,
        ``grid_error``, ``holds``.

    Raises
    ------
    ValueError
        A frame lacks the sampler's columns.
    """
    for name, frame, cols in (
        ("loss", loss, ("seed", "noise", "rms_curve_rel_error", "max_coef_error", "holds")),
        ("speed", speed, ("seed", "mode", "noise", "pairs_mean_rel_error", "grid_mean_rel_error", "holds")),
    ):
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"{name} must be a pandas DataFrame, got {type(frame).__name__}")
        missing = [c for c in cols if c not in frame.columns]
        if missing:
            raise ValueError(f"{name} lacks column(s) {missing}: pass the {name}_fit_sample output")
    a = pd.DataFrame(
        {
            "model": "loss Eq. (1)",
            "seed": loss["seed"],
            "noise": loss["noise"],
            "error": loss["rms_curve_rel_error"],
            "coef_error": loss["max_coef_error"],
            "grid_error": math.nan,
            "holds": loss["holds"],
        }
    )
    b = pd.DataFrame(
        {
            "model": np.where(speed["mode"] == "async", "speed Eq. (3) async", "speed Eq. (4) sync"),
            "seed": speed["seed"],
            "noise": speed["noise"],
            "error": speed["pairs_mean_rel_error"],
            "coef_error": speed["max_coef_error"],
            "grid_error": speed["grid_mean_rel_error"],
            "holds": speed["holds"],
        }
    )
    out = pd.concat([a, b], ignore_index=True)
    noise = out["noise"].astype(float)
    out.insert(
        4, "error_over_noise", np.where(noise > 0, out["error"] / noise.where(noise > 0, 1.0), math.nan)
    )
    return out


def remaining_epochs_sample(
    seeds: Iterable[int], *, kinds: Sequence[str] = ("random", "boundary")
) -> pd.DataFrame:
    r""":func:`remaining_epochs_matches_brute_force` on random curves and thresholds.

    Per seed: :math:`\beta_0 = 10^{U(-3, \log_{10} 5)}`, :math:`\beta_1 \sim U(0, 10)`,
    :math:`\beta_2 \sim U(0, 1)`. Kind ``"random"``: :math:`\delta = 10^{U(-5, \log_{10} 0.5)}`.
    Kind ``"boundary"``: a target epoch :math:`e_0 \sim U\{0..499\}` and :math:`\delta` equal to
    the decrease :math:`l(e_0) - l(e_0+1)`, the case the closed form resolves by its "+1 on
    equality" rule (the exact answer is :math:`e_0 + 1`; a floating-point tie is accepted by the
    check and counted in column ``tie``).

    Parameters
    ----------
    seeds : iterable of int
    kinds : sequence of {"random", "boundary"}

    Returns
    -------
    pandas.DataFrame
        One row per (seed, kind): ``seed, kind, beta0, beta1, beta2, delta, target_epoch`` (NaN
        for "random"), ``claim, holds, summary, closed_form, brute_force`` (NaN if the scan found
        none), ``decrease_at_e*, decrease_before_e*, tie``.

    Raises
    ------
    TypeError, ValueError
        Bad seeds or kinds.
    """
    seeds = _check_seeds(seeds)
    kinds = _names(kinds, ("random", "boundary"), "kinds")
    rows = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        b0 = float(10.0 ** rng.uniform(-3.0, math.log10(5.0)))
        b1 = float(rng.uniform(0.0, 10.0))
        b2 = float(rng.uniform(0.0, 1.0))
        fit = LossFit(b0, b1, b2, rss=0.0, n_points=3)
        for kind in kinds:
            if kind == "random":
                delta = float(10.0 ** rng.uniform(-5.0, math.log10(0.5)))
                target = math.nan
            else:
                e0 = int(rng.integers(0, 500))
                if b0 * e0 + b1 == 0:
                    e0 += 1  # decrease is infinite at x = 0
                x = b0 * e0 + b1
                delta = b0 / (x * (x + b0))
                target = float(e0 + 1)
            claim = remaining_epochs_matches_brute_force(fit, delta)
            row = _row(seed, claim, kind=kind, beta0=b0, beta1=b1, beta2=b2, delta=delta, target_epoch=target)
            bf = claim.details["brute_force"]
            row["brute_force"] = math.nan if bf is None else float(bf)
            rows.append(row)
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------- allocation


def allocation_instance(
    seed: int,
    *,
    n_jobs: int,
    n_resources: int = 2,
    slack: tuple[float, float] = (1.0, 3.0),
) -> tuple[list[AllocJob], np.ndarray]:
    r"""A random allocation instance: jobs with Eq. (3)/(4) speed models and a cluster capacity.

    Each job: async or sync (half each), :math:`\theta_i \sim U(0, 1)` set to 0 with probability
    0.2, :math:`\theta_0 \mathrel{+}= 0.1`, sync :math:`M \in \{1..64\}`; remaining work
    :math:`Q \sim U(1, 100)`; per-worker and per-PS demands of 0-3 units per resource plus one
    unit of a random resource. Capacity per resource: the demand of one PS + one worker of every
    job, times a factor uniform in ``slack`` (per resource). ``slack[0] >= 1`` guarantees that
    every job gets its initial 1 + 1.

    Parameters
    ----------
    seed : int
        Seed (>= 0).
    n_jobs : int
        Number of jobs (>= 1); job ids are ``0..n_jobs-1``.
    n_resources : int, default 2
    slack : (float, float), default (1.0, 3.0)
        Range of the capacity factor (0 < low <= high).

    Returns
    -------
    jobs : list of AllocJob
    capacity : numpy.ndarray

    Raises
    ------
    ValueError
        Bad seed, sizes or slack.
    """
    seed = _int_at_least(seed, "seed", 0)
    n_jobs = _int_at_least(n_jobs, "n_jobs")
    n_res = _int_at_least(n_resources, "n_resources")
    lo, hi = _range_pair(slack, "slack")
    rng = np.random.default_rng(seed)
    jobs = []
    base = np.zeros(n_res)
    for j in range(n_jobs):
        theta = rng.uniform(0.0, 1.0, 5) * (rng.random(5) < 0.8)
        theta[0] += 0.1
        if rng.random() < 0.5:
            f = speed_function("sync", theta, float(rng.integers(1, 65)))
        else:
            f = speed_function("async", theta[:4])
        wd = rng.integers(0, 4, n_res).astype(float)
        wd[rng.integers(n_res)] += 1
        pd_ = rng.integers(0, 4, n_res).astype(float)
        pd_[rng.integers(n_res)] += 1
        base += wd + pd_
        jobs.append(AllocJob(j, float(rng.uniform(1.0, 100.0)), f, wd, pd_))
    capacity = base * rng.uniform(lo, hi, n_res)
    return jobs, capacity


_STOP_RULES = ("literal", "skip")


def allocation_sample(
    seeds: Iterable[int],
    *,
    n_jobs: int = 8,
    n_resources: int = 2,
    slack: tuple[float, float] = (0.8, 6.0),
    stop_rules: Sequence[str] = _STOP_RULES,
    gain_unit: str = "share",
) -> pd.DataFrame:
    """:func:`check_allocation` on one :func:`allocation_instance` per seed, per stop rule.

    The default ``slack`` starts below 1, so on some instances not every job gets its initial
    1 PS + 1 worker (those jobs must then be absent from the allocation).

    Parameters
    ----------
    seeds : iterable of int
    n_jobs, n_resources : int
    slack : (float, float)
        Capacity factor range (:func:`allocation_instance`).
    stop_rules : sequence of {"literal", "skip"}
    gain_unit : {"share", "amount"}

    Returns
    -------
    pandas.DataFrame
        One row per (seed, stop rule): ``seed, stop_rule, claim, holds, summary, jobs,
        allocated, tasks_added, min_gain`` (NaN if none added), ``max_use_fraction``.

    Raises
    ------
    TypeError, ValueError
        Bad seeds, sizes, slack, stop rules or gain unit.
    """
    seeds = _check_seeds(seeds)
    rules = _names(stop_rules, _STOP_RULES, "stop_rules")
    _names(gain_unit, ("share", "amount"), "gain_unit")
    rows = []
    for seed in seeds:
        jobs, cap = allocation_instance(seed, n_jobs=n_jobs, n_resources=n_resources, slack=slack)
        for rule in rules:
            claim = check_allocation(jobs, cap, stop_rule=rule, gain_unit=gain_unit)
            rows.append(_row(seed, claim, stop_rule=rule))
    return pd.DataFrame(rows)


def allocation_gap_sample(
    seeds: Iterable[int],
    *,
    n_jobs: Sequence[int] = (2, 3),
    max_tasks: int = 4,
    n_resources: int = 2,
    slack: tuple[float, float] = (1.0, 3.0),
    stop_rules: Sequence[str] = _STOP_RULES,
    gain_unit: str = "share",
) -> pd.DataFrame:
    r""":func:`check_allocation_gap` (heuristic vs brute-force optimum of (5)-(8)) on tiny instances.

    Seed ``s`` gets ``n_jobs[s % len(n_jobs)]`` jobs (:func:`allocation_instance`). The brute
    force enumerates up to ``max_tasks`` PS and workers per job (the heuristic is capped alike),
    :math:`(\text{max\_tasks}^2)^{n}` combinations: keep ``n <= 3`` and ``max_tasks <= 6``.

    Parameters
    ----------
    seeds : iterable of int
    n_jobs : sequence of int
        Job counts, 1 to 3.
    max_tasks : int, default 4
    n_resources : int, default 2
    slack : (float, float), default (1.0, 3.0)
    stop_rules : sequence of {"literal", "skip"}
    gain_unit : {"share", "amount"}

    Returns
    -------
    pandas.DataFrame
        One row per (seed, stop rule): ``seed, stop_rule, n_jobs, claim, holds, summary,
        heuristic, optimum, gap`` (relative: heuristic / optimum - 1), ``optimal`` (gap <= 1e-9),
        ``heuristic_alloc, optimal_alloc`` (as text).

    Raises
    ------
    TypeError, ValueError
        Bad seeds, job counts outside 1-3, bad ``max_tasks`` (1-6), slack, rules or gain unit.
    """
    seeds = _check_seeds(seeds)
    counts = [n_jobs] if isinstance(n_jobs, (int, np.integer)) else list(n_jobs)
    if not counts:
        raise ValueError("n_jobs is empty; give job counts between 1 and 3")
    for n in counts:
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= 3:
            raise ValueError(f"n_jobs entries must be integers in 1..3 (brute force), got {n!r}")
    max_tasks = _int_at_least(max_tasks, "max_tasks")
    if max_tasks > 6:
        raise ValueError(f"max_tasks must be <= 6 (brute force), got {max_tasks}")
    rules = _names(stop_rules, _STOP_RULES, "stop_rules")
    _names(gain_unit, ("share", "amount"), "gain_unit")
    rows = []
    for seed in seeds:
        n = int(counts[seed % len(counts)])
        jobs, cap = allocation_instance(seed, n_jobs=n, n_resources=n_resources, slack=slack)
        for rule in rules:
            claim = check_allocation_gap(jobs, cap, max_tasks=max_tasks, stop_rule=rule, gain_unit=gain_unit)
            row = _row(seed, claim, stop_rule=rule, n_jobs=n)
            row["optimal"] = bool(row["gap"] <= _REL)
            row["heuristic_alloc"] = str(claim.details["heuristic_alloc"])
            row["optimal_alloc"] = str(claim.details["optimal_alloc"])
            rows.append(row)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------- placement


def check_place_optimal(
    n_servers: int, p: int, w: int, slots: int, *, S: float = 1.0, B: float = 1.0, b: float = 1.0
) -> Claim:
    """Sec. 4.2: the placement :func:`~dlsched.optimus.placement.place` builds is optimal.

    One synchronous job of ``p`` PS and ``w`` workers on ``n_servers`` empty homogeneous servers
    of ``slots`` task slots each (every task takes one slot). Holds if ``place`` puts the job on
    the fewest servers that admit an even split (``k_fewest`` of :func:`check_theorem1`) and its
    transfer time (appendix formula, ``terms="tasks"``) equals the brute-force optimum over all
    placements; vacuously if no placement fits and ``place`` places nothing.

    Parameters
    ----------
    n_servers : int
        1 to 4.
    p, w : int
        1 to 12 each.
    slots : int
        Task slots per server (>= 1).
    S, B, b : float
        Model size and PS / worker bandwidth.

    Returns
    -------
    Claim
        ``details``: ``optimum``, ``placed_time`` (inf if not placed), ``servers_used``,
        ``k_fewest``, ``n_feasible``.

    Raises
    ------
    ValueError
        Out-of-range sizes (see :func:`check_theorem1`) or bad ``slots``.
    """
    slots = _int_at_least(slots, "slots")
    brute = check_theorem1(n_servers, p, w, float(slots), S=S, B=B, b=b, terms="tasks")
    res = place([PlaceJob(0, p, w, [1.0], [1.0])], np.full((n_servers, 1), float(slots)))
    feasible = int(brute.details["n_feasible"]) > 0
    opt = float(brute.details.get("optimum", math.nan))
    k_fewest = int(brute.details.get("k_fewest", -1))
    if 0 in res.placements:
        pl = res.placements[0]
        t = transfer_time(pl, S, B, b, terms="tasks")
        used = len(pl.servers)
    else:
        t, used = math.inf, 0
    if feasible:
        holds = used == k_fewest and t <= opt + _REL * max(1.0, abs(opt))
    else:
        holds = used == 0
    return Claim(
        f"Optimus Sec. 4.2: place() builds an optimal placement (n={n_servers}, p={p}, w={w}, {slots} slots)",
        bool(holds),
        {
            "optimum": opt,
            "placed_time": t,
            "servers_used": used,
            "k_fewest": k_fewest,
            "n_feasible": int(brute.details["n_feasible"]),
        },
    )


def theorem1_sample(
    seeds: Iterable[int],
    *,
    max_servers: int = 4,
    max_p: int = 6,
    max_w: int = 8,
    extra_slots: int = 2,
    terms: Sequence[str] = TERMS,
    place_check: bool = True,
) -> pd.DataFrame:
    r"""Theorem 1 by brute force (:func:`check_theorem1`) on one random instance per seed.

    Per seed: ``n`` servers uniform in ``1..max_servers``, ``p`` in ``1..max_p``, ``w`` in
    ``1..max_w``, task slots per server :math:`\lceil (p+w)/n \rceil` plus ``0..extra_slots``
    (tight enough that the job cannot always sit on one server); bandwidths :math:`B = b = 1`
    on half the seeds, otherwise each :math:`10^{U(\log_{10} 0.25, \log_{10} 4)}`; :math:`S = 1`.
    One row per reading of the transfer time in ``terms`` and, with ``place_check``, one row of
    :func:`check_place_optimal`.

    Parameters
    ----------
    seeds : iterable of int
    max_servers : int, default 4
        At most 4 (brute force).
    max_p, max_w : int, default 6, 8
        At most 12.
    extra_slots : int, default 2
    terms : sequence of {"tasks", "roles"}
    place_check : bool, default True

    Returns
    -------
    pandas.DataFrame
        One row per (seed, check): ``seed, check`` ("theorem1" or "place"), ``terms,
        n_servers, p, w, slots, B, b, claim`` (a name without the instance, so that
        :func:`sample_claims` folds all instances), ``holds, summary`` and the details (``optimum,
        even_best, k_fewest, aligned, staggered, n_feasible``; ``placed_time, servers_used``),
        ``optimal_ps, optimal_workers`` (text, Theorem 1 rows).

    Raises
    ------
    TypeError, ValueError
        Bad seeds, sizes or terms.
    """
    seeds = _check_seeds(seeds)
    max_servers = _int_at_least(max_servers, "max_servers")
    if max_servers > 4:
        raise ValueError(f"max_servers must be <= 4 (brute force), got {max_servers}")
    max_p = _int_at_least(max_p, "max_p")
    max_w = _int_at_least(max_w, "max_w")
    if max_p > 12 or max_w > 12:
        raise ValueError(f"max_p and max_w must be <= 12 (brute force), got {max_p}, {max_w}")
    extra = _int_at_least(extra_slots, "extra_slots", 0)
    terms = _names(terms, TERMS, "terms")
    rows = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        n = int(rng.integers(1, max_servers + 1))
        p = int(rng.integers(1, max_p + 1))
        w = int(rng.integers(1, max_w + 1))
        slots = -(-(p + w) // n) + int(rng.integers(0, extra + 1))
        if rng.random() < 0.5:
            B = b = 1.0
        else:
            B, b = (float(x) for x in numerics.power(10.0, rng.uniform(math.log10(0.25), math.log10(4.0), 2)))
        inst = {"n_servers": n, "p": p, "w": w, "slots": slots, "B": B, "b": b}
        for t in terms:
            claim = check_theorem1(n, p, w, float(slots), B=B, b=b, terms=t)
            row = _row(seed, claim, check="theorem1", terms=t, **inst)
            row["claim"] = f"Optimus Theorem 1: even split on fewest servers is optimal ({t})"
            row["optimal_ps"] = str(claim.details.get("optimal_ps", ""))
            row["optimal_workers"] = str(claim.details.get("optimal_workers", ""))
            rows.append(row)
        if place_check:
            row = _row(
                seed, check_place_optimal(n, p, w, slots, B=B, b=b), check="place", terms="tasks", **inst
            )
            row["claim"] = "Optimus Sec. 4.2: place() builds an optimal placement"
            rows.append(row)
    return pd.DataFrame(rows)


def counterexamples(frame: pd.DataFrame, terms: str = "roles", *, digits: int = 4) -> pd.DataFrame:
    """The instances of a :func:`theorem1_sample` on which Theorem 1 fails under ``terms``.

    Parameters
    ----------
    frame : pandas.DataFrame
        Output of :func:`theorem1_sample`.
    terms : {"tasks", "roles"}, default "roles"
    digits : int, default 4
        Rounding of the float columns.

    Returns
    -------
    pandas.DataFrame
        Columns ``seed, n_servers, p, w, slots, B, b, k_fewest, even_best, optimum, optimal_ps,
        optimal_workers`` (``optimal_*``: tasks per server of an optimal placement), one row per
        failing instance, in seed order.

    Raises
    ------
    ValueError
        Missing columns or unknown ``terms``.
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    _names(terms, TERMS, "terms")
    cols = ["seed", "n_servers", "p", "w", "slots", "B", "b", "k_fewest", "even_best", "optimum",
            "optimal_ps", "optimal_workers"]  # fmt: skip
    missing = [c for c in cols + ["check", "terms", "holds"] if c not in frame.columns]
    if missing:
        raise ValueError(f"frame lacks column(s) {missing}: pass the theorem1_sample output")
    sel = frame[(frame["check"] == "theorem1") & (frame["terms"] == terms) & ~frame["holds"].astype(bool)]
    out = sel[cols].sort_values("seed").reset_index(drop=True)
    return out.round({c: int(digits) for c in ("B", "b", "even_best", "optimum")})


# ---------------------------------------------------------------------------------------- PAA


def paa_sample(
    seeds: Iterable[int],
    *,
    n_ps: Sequence[int] = (1, 2, 3, 7, 16, 40),
    eps: Sequence[float] = (0.0, 0.01, 0.2),
    max_blocks: int = 200,
) -> pd.DataFrame:
    r""":func:`check_paa_invariants` on one random model per seed, for every ``n_ps`` and ``eps``.

    A random model has ``1..max_blocks`` blocks of :math:`\mathrm{round}(e^{U(0, 15)}) + 1`
    parameters (1 to about 3.3 million, log-uniform), so some blocks are larger than
    ``avg_size`` and get split, others are "very small".

    Parameters
    ----------
    seeds : iterable of int
    n_ps : sequence of int
        PS counts (>= 1).
    eps : sequence of float
        Very-small thresholds (fractions of avg_size, in [0, 1]).
    max_blocks : int, default 200

    Returns
    -------
    pandas.DataFrame
        One row per (seed, n_ps, eps): ``seed, n_ps, eps, large_blocks`` (blocks > avg_size),
        ``claim, holds, summary, blocks, total_requests, expected_requests, split_blocks,
        size_difference, request_difference``.

    Raises
    ------
    TypeError, ValueError
        Bad seeds, PS counts, eps or ``max_blocks``.
    """
    seeds = _check_seeds(seeds)
    ps_list = [
        _int_at_least(k, "n_ps entries") for k in ([n_ps] if isinstance(n_ps, (int, np.integer)) else n_ps)
    ]
    eps_list = list([eps] if isinstance(eps, (int, float)) else eps)
    if not ps_list or not eps_list:
        raise ValueError("n_ps and eps must not be empty")
    for e in eps_list:
        if isinstance(e, bool) or not isinstance(e, (int, float, np.number)) or not 0.0 <= e <= 1.0:
            raise ValueError(f"eps entries must be numbers in [0, 1], got {e!r}")
    eps_list = [float(e) for e in eps_list]
    max_blocks = _int_at_least(max_blocks, "max_blocks")
    rows = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        n = int(rng.integers(1, max_blocks + 1))
        sizes = np.round(numerics.exp(rng.uniform(0.0, 15.0, n))) + 1.0
        total = float(sizes.sum())
        for k in ps_list:
            large = int(np.sum(sizes > total / k))
            for e in eps_list:
                claim = check_paa_invariants(sizes, k, e)
                rows.append(_row(seed, claim, n_ps=k, eps=e, large_blocks=large))
    return pd.DataFrame(rows)


def resnet50_paa_sample(n_ps: Iterable[int] = range(1, 21), eps: float = 0.01) -> pd.DataFrame:
    """:func:`check_paa_invariants` on the 157 ResNet-50 blocks for several PS counts.

    The largest block (2,359,296 parameters, a stage-4 3x3 kernel) is at most avg_size
    (25,549,486 / n_ps) up to 10 PS, so PAA makes exactly 157 requests there; from 11 PS on it
    splits the blocks larger than avg_size.

    Parameters
    ----------
    n_ps : iterable of int, default 1..20
    eps : float, default 0.01

    Returns
    -------
    pandas.DataFrame
        One row per PS count: ``seed`` (= n_ps, for :func:`sample_claims`), ``n_ps,
        avg_size, max_block_over_avg, claim, holds, summary, blocks, total_requests,
        expected_requests, split_blocks, size_difference, request_difference``.

    Raises
    ------
    ValueError
        Empty or bad PS counts, bad eps.
    """
    ps_list = [_int_at_least(k, "n_ps entries") for k in n_ps]
    if not ps_list:
        raise ValueError("n_ps is empty; give at least one PS count")
    _, sizes = resnet50_blocks()
    total = float(sum(sizes))
    rows = []
    for k in ps_list:
        claim = check_paa_invariants(sizes, k, eps)
        avg = total / k
        rows.append(_row(k, claim, n_ps=k, avg_size=avg, max_block_over_avg=max(sizes) / avg))
    return pd.DataFrame(rows)


def mxnet_key_hash(block_sizes: Sequence[float], n_ps: int, threshold: float = 1e6) -> Assignment:
    """MXNet's actual default parameter distribution (``src/kvstore/kvstore_dist.h``).

    A block (key ``i`` = its index) smaller than ``threshold`` goes to server
    ``(i * 9973) % n_ps`` (the code's comment says "random", it is a fixed hash of the key);
    a larger one is sliced over all servers in ``n_ps`` near-equal parts (integer sizes: parts
    ``floor(size (k+1) / n_ps) - floor(size k / n_ps)``). :func:`~dlsched.optimus.paa.mxnet_default`
    is the paper's description (a uniformly random server).

    Parameters
    ----------
    block_sizes : sequence of float
        Sizes (> 0), in key order.
    n_ps : int
        Number of servers (>= 1).
    threshold : float, default 1e6
        MXNet's ``bigarray_bound`` (> 0).

    Returns
    -------
    Assignment

    Raises
    ------
    ValueError
        Bad sizes, ``n_ps`` or threshold.
    """
    try:
        sizes = np.asarray(block_sizes, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError(f"block_sizes must be a sequence of numbers, got {block_sizes!r}") from None
    if sizes.size == 0:
        raise ValueError("block_sizes must not be empty")
    bad = np.flatnonzero(~np.isfinite(sizes) | (sizes <= 0))
    if bad.size:
        raise ValueError(f"block_sizes[{int(bad[0])}] must be finite and > 0, got {sizes[bad[0]]!r}")
    n_ps = _int_at_least(n_ps, "n_ps")
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, (int, float, np.number))
        or not (math.isfinite(threshold) and threshold > 0)
    ):
        raise ValueError(f"threshold must be a finite number > 0, got {threshold!r}")
    integer = bool(np.all(sizes == np.round(sizes)))
    parts: list[tuple[int, int, float]] = []
    for key, size in enumerate(sizes.tolist()):
        if size < threshold:
            parts.append((key, (key * 9973) % n_ps, size))
        elif integer:
            s = int(size)
            parts.extend((key, k, float(s * (k + 1) // n_ps - s * k // n_ps)) for k in range(n_ps))
        else:
            parts.extend((key, k, size / n_ps) for k in range(n_ps))
    ps_sizes = np.zeros(n_ps)
    reqs = np.zeros(n_ps, dtype=int)
    for _, k, s in parts:
        ps_sizes[k] += s
        reqs[k] += 1
    ps_sizes.setflags(write=False)
    reqs.setflags(write=False)
    return Assignment(n_ps, int(sizes.size), tuple(parts), ps_sizes, reqs)


def mxnet_sample(seeds: Iterable[int], n_ps: int = 10, threshold: float = 1e6) -> pd.DataFrame:
    """MXNet's default distribution as the paper describes it, on the ResNet-50 blocks, per seed.

    :func:`~dlsched.optimus.paa.mxnet_default` with ``numpy.random.default_rng(seed)``: a block
    below ``threshold`` goes to a uniformly random PS, a larger one is sliced over all PSs.

    Parameters
    ----------
    seeds : iterable of int
    n_ps : int, default 10
    threshold : float, default 1e6

    Returns
    -------
    pandas.DataFrame
        One row per seed: ``seed, n_ps, size_difference, request_difference, total_requests,
        max_requests, min_requests``.

    Raises
    ------
    TypeError, ValueError
        Bad seeds, ``n_ps`` or threshold.
    """
    seeds = _check_seeds(seeds)
    n_ps = _int_at_least(n_ps, "n_ps")
    _, sizes = resnet50_blocks()
    rows = []
    for seed in seeds:
        a = mxnet_default(sizes, n_ps, np.random.default_rng(seed), threshold)
        rows.append(
            {
                "seed": seed,
                "n_ps": n_ps,
                "size_difference": a.size_difference,
                "request_difference": a.request_difference,
                "total_requests": a.total_requests,
                "max_requests": int(a.ps_requests.max()),
                "min_requests": int(a.ps_requests.min()),
            }
        )
    return pd.DataFrame(rows)


_PAPER_TABLE3 = {
    "size difference (M params)": (0.1, 3.6),
    "request difference": (1.0, 43.0),
    "total requests": (157.0, 247.0),
}


def table3_comparison(seeds: Iterable[int], n_ps: int = 10, eps: float = 0.01) -> pd.DataFrame:
    """Table 3, paper vs ours: PAA and MXNet's default on the 157 ResNet-50 blocks.

    Parameters
    ----------
    seeds : iterable of int
        Seeds of MXNet's random small-block placement (:func:`mxnet_sample`).
    n_ps : int, default 10
        Number of PS (10 reproduces the paper's MXNet request total 247).
    eps : float, default 0.01
        PAA's very-small threshold.

    Returns
    -------
    pandas.DataFrame
        Index: ``size difference (M params)``, ``request difference``, ``total requests``;
        columns ``paper PAA, ours PAA, paper MXNet, MXNet random mean, MXNet random max,
        MXNet key hash`` (random: :func:`~dlsched.optimus.paa.mxnet_default` over the seeds;
        key hash: :func:`mxnet_key_hash`, MXNet's code).

    Raises
    ------
    TypeError, ValueError
        Bad seeds, ``n_ps`` or eps.
    """
    mx = mxnet_sample(seeds, n_ps)
    _, sizes = resnet50_blocks()
    a = paa(sizes, n_ps, eps)
    h = mxnet_key_hash(sizes, n_ps)
    ours = {
        "size difference (M params)": (
            a.size_difference / 1e6,
            mx["size_difference"] / 1e6,
            h.size_difference / 1e6,
        ),
        "request difference": (a.request_difference, mx["request_difference"], h.request_difference),
        "total requests": (a.total_requests, mx["total_requests"], h.total_requests),
    }
    rows = {}
    for metric, (paper_paa, paper_mx) in _PAPER_TABLE3.items():
        ours_paa, rand, hashed = ours[metric]
        rows[metric] = {
            "paper PAA": paper_paa,
            "ours PAA": float(ours_paa),
            "paper MXNet": paper_mx,
            "MXNet random mean": float(rand.mean()),
            "MXNet random max": float(rand.max()),
            "MXNet key hash": float(hashed),
        }
    return pd.DataFrame.from_dict(rows, orient="index")

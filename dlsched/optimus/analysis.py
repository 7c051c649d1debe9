r"""Tidy tables behind notebook ``20_optimus_models``: Optimus's performance models (Sec. 3).

Y. Peng, Y. Bao, Y. Chen, C. Wu, C. Guo, "Optimus: An Efficient Dynamic Resource Scheduler for
Deep Learning Clusters", EuroSys 2018, Sec. 3, Figs. 5-9 and Table 2. Every function returns a
:class:`pandas.DataFrame` (one row per observation, named columns) ready for
:func:`dlsched.plotting.draw`; the fitting itself is :mod:`dlsched.optimus.fitting`.

=============  ==========================================================================
paper          here
=============  ==========================================================================
Fig. 5         :func:`epoch_losses`, :func:`convergence_table`, :func:`loss_curves_frame`
               (real curves of :mod:`dlsched.optimus.curves`, normalised, against training
               progress), :func:`fig5_comparison`
Fig. 6         :func:`observed_convergence_epoch`, :func:`prediction_errors`,
               :func:`progress_error_table`, :func:`progress_claim`, :func:`fig6_comparison`
Fig. 7         :func:`fit_betas`, :func:`fitted_loss_curves`, :data:`PAPER_SEQ2SEQ_BETAS`,
               :func:`fig7_comparison`
Fig. 8         :func:`candidate_pairs`, :func:`speed_error_vs_samples`, :func:`speed_errors`,
               :func:`speed_error_table`, :func:`speed_error_claim`, :func:`fig8_comparison`
Fig. 9         :func:`speed_slices`, :func:`fit_measured`, :func:`speed_curves`,
               :func:`fit_speed_slices`, :func:`speed_peaks`, :func:`draw_speed_slices`
Table 2        :func:`table2`, :data:`PAPER_TABLE2`, :func:`theta_recovery_claim`,
               :func:`fig9_comparison`
=============  ==========================================================================

Definitions (Fig. 6)
--------------------
Losses are per-epoch means of the step losses (:func:`dlsched.optimus.curves.per_epoch`, the
paper's "average all losses in an epoch"), at :math:`k` = epoch = 1, 2, ...

* *Observed convergence epoch* :math:`e_{obs}` of a full real curve
  (:func:`observed_convergence_epoch`): normalise the per-epoch losses by their maximum,
  :math:`y_e = L_e / \max L`, and let :math:`d_e = y_e - y_{e+1}` be the decrease from epoch
  :math:`e` to :math:`e+1`. :math:`e_{obs}` is the first epoch :math:`e \ge 1` such that
  :math:`d_e, d_{e+1}, \dots, d_{e+c-1}` are all below :math:`\delta` (``confirm`` :math:`= c`
  consecutive epochs, the paper's "consistently [...] for several epochs"; an increase counts
  as below). It needs epochs up to :math:`e + c`; a curve without such an epoch did not
  converge within its recorded epochs and is left out.
* *Predicted convergence epoch* after :math:`n` epochs: the online fit
  (:class:`~dlsched.optimus.fitting.OnlineLossFit`: outlier rule, normalisation by the largest
  loss so far, NNLS fit of Eq. (1); the paper's Fig. 7 prior while :math:`n < 3`) gives
  :math:`e^*` (:func:`~dlsched.optimus.fitting.convergence_epoch`, the first epoch whose
  fitted decrease is below :math:`\delta`), and the scheduler's estimate of the total is
  :math:`\hat e = \max(e^*, n)` (= :math:`n + Q` with :math:`Q` of
  :func:`~dlsched.optimus.fitting.remaining_epochs`). Both counts are "first epoch below
  :math:`\delta`"; confirmation epochs would add the same constant to both. The floor at
  :math:`n` means that a fit which already declares convergence (:math:`e^* < n`) drifts
  towards zero error as :math:`n` approaches :math:`e_{obs}`; the fit's own error
  :math:`(e^* - e_{obs}) / e_{obs}` is reported as ``raw_error``.
* *Training progress* :math:`n / e_{obs}`; *prediction error* :math:`(\hat e - e_{obs}) / e_{obs}`
  (the paper's "difference between the estimated total number of epochs [...] and the actual
  total number of epochs needed, divided by the actual number").

Speed model (Figs. 8-9, Table 2)
--------------------------------
Speeds are "measured" from a ground-truth :class:`~dlsched.core.jobs.OptimusModel` (Eq. (2),
no placement) with multiplicative noise :math:`1 + \sigma N(0, 1)`
(:func:`~dlsched.optimus.fitting.sample_speeds`) and fitted by NNLS
(:func:`~dlsched.optimus.fitting.fit_speed`); notebook 20 uses the ``resnet50`` job type of
:func:`dlsched.optimus.workload.job_model` as the ground truth. The configurations are those of the paper's
ResNet-50 example, "780 possible (p, w) pairs" in 40 containers: every :math:`p, w \ge 1` with
:math:`p + w \le 40` (:func:`candidate_pairs`). Fig. 8's *estimation error* is "the gap between
the measured speed and the estimated speed over the measured speed", averaged here over the
held-out pairs (all candidates not used for the fit), each measured once with fresh noise; the
error against the noise-free truth is reported too.

Randomness: every random function takes ``seed``, an integer or a :class:`numpy.random.Generator`
(an integer seeds a fresh Generator; a Generator is drawn from in place). No global seeding.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from dlsched.core.claims import Claim
from dlsched.core.jobs import OptimusModel
from dlsched.optimus.curves import load_curves, per_epoch
from dlsched.optimus.fitting import (
    MIN_LOSS_POINTS,
    PAPER_PRIOR,
    LossFit,
    OnlineLossFit,
    SpeedFit,
    convergence_epoch,
    fit_loss_curve,
    fit_speed,
    model_theta,
    sample_speeds,
)

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

SeedLike = int | np.random.Generator
"""An integer seed (a fresh Generator) or a Generator drawn from in place."""

__all__ = [
    "PAPER_N_PAIRS",
    "PAPER_SEQ2SEQ_BETAS",
    "PAPER_TABLE2",
    "candidate_pairs",
    "comparison",
    "fig5_comparison",
    "fig6_comparison",
    "fig7_comparison",
    "fig8_comparison",
    "fig9_comparison",
    "convergence_table",
    "epoch_losses",
    "fit_betas",
    "fit_measured",
    "fitted_loss_curves",
    "loss_curves_frame",
    "observed_convergence_epoch",
    "prediction_errors",
    "progress_claim",
    "progress_error_table",
    "speed_curves",
    "speed_error_claim",
    "speed_error_table",
    "speed_error_vs_samples",
    "speed_errors",
    "fit_speed_slices",
    "speed_peaks",
    "speed_slices",
    "table2",
    "theta_recovery_claim",
    "draw_speed_slices",
]

PAPER_SEQ2SEQ_BETAS: tuple[float, float, float] = (0.21, 1.07, 0.07)
"""Fig. 7: the paper's fit of Seq2Seq, :math:`(\\beta_0, \\beta_1, \\beta_2)`."""

PAPER_TABLE2: dict[str, dict[str, object]] = {
    "async": {"theta": (2.83, 3.92, 0.00, 0.11), "rss": 0.10},
    "sync": {"theta": (1.02, 2.78, 4.92, 0.00, 0.02), "rss": 0.00},
}
"""Table 2 (ResNet-50, 40 containers): :math:`\\theta_1..\\theta_5` (Eq. (3)/(4)'s
:math:`\\theta_0..\\theta_4`) and the residual sum of squares."""

PAPER_N_PAIRS = 780
"""Sec. 3.2: "there are 780 possible (p, w) pairs" for the ResNet-50 example (40 containers)."""

EPOCH_COLUMNS = ("config", "epoch", "loss")
PAPER_FIG8_PAIRS = 10
"""Fig. 8: "less than 10% error even when we only use 10 (p, w) pairs"."""


# ------------------------------------------------------------------------------ validation


def _rng(seed: SeedLike) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer or a numpy Generator, got {seed!r}")
    return np.random.default_rng(int(seed))


def _pos_int(value, what: str, lo: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo:
        raise ValueError(f"{what} must be an integer >= {lo}, got {value!r}")
    return int(value)


def _delta(value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)):
        raise ValueError(f"delta must be a number in (0, 1), got {value!r}")
    d = float(value)
    if not (math.isfinite(d) and 0 < d < 1):
        raise ValueError(f"delta must be a number in (0, 1), got {value!r}")
    return d


def _deltas(delta) -> list[float]:
    if isinstance(delta, (list, tuple, np.ndarray)):
        if len(delta) == 0:
            raise ValueError("delta: empty sequence")
        return [_delta(d) for d in delta]
    return [_delta(delta)]


def _noise(value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)):
        raise ValueError(f"noise must be a finite number >= 0, got {value!r}")
    x = float(value)
    if not (math.isfinite(x) and x >= 0):
        raise ValueError(f"noise must be a finite number >= 0, got {value!r}")
    return x


def _fractions(fractions, what: str = "fractions") -> list[float]:
    vals = list(fractions)
    if not vals:
        raise ValueError(f"{what}: empty sequence")
    out = []
    for i, q in enumerate(vals):
        ok = not isinstance(q, bool) and isinstance(q, (int, float, np.floating))
        if not ok or not (math.isfinite(float(q)) and 0 < float(q) <= 1):
            raise ValueError(f"{what}[{i}] must be a number in (0, 1], got {q!r}")
        out.append(float(q))
    return out


def _check_epochs(df) -> pd.DataFrame:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"epochs_df must be a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in EPOCH_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"epochs_df: missing column(s) {missing}; got {list(df.columns)}")
    if df.empty:
        raise ValueError("epochs_df is empty")
    for name, g in df.groupby("config", sort=False):
        e = g["epoch"].to_numpy()
        if not np.array_equal(e, np.arange(1, len(e) + 1)):
            raise ValueError(f"epochs_df: epochs of config {name!r} must be 1, 2, ..., n in order")
        loss = g["loss"].to_numpy(dtype=float)
        bad = np.flatnonzero(~(np.isfinite(loss) & (loss > 0)))
        if bad.size:
            i = int(bad[0])
            raise ValueError(
                f"epochs_df: loss of config {name!r} at epoch {i + 1} must be finite and > 0, got {loss[i]!r}"
            )
    return df


def _groups(df: pd.DataFrame) -> Iterable[tuple[str, np.ndarray]]:
    for name, g in df.groupby("config", sort=False):
        yield str(name), g["loss"].to_numpy(dtype=float)


# ---------------------------------------------------------------------------- Fig. 5 curves


def epoch_losses(
    data_dir: str | os.PathLike | None = None, configs: Sequence[str] | None = None
) -> pd.DataFrame:
    """Per-epoch mean training loss of the stored real curves, also normalised (Fig. 5).

    Parameters
    ----------
    data_dir : path-like, optional
        Loss-curve folder (default: the repository's ``data/loss_curves``).
    configs : sequence of str, optional
        Subset of the stored configurations (default: all).

    Returns
    -------
    pandas.DataFrame
        Columns ``config, epoch, loss, n_steps, norm_loss``; ``norm_loss`` is the loss divided by
        the curve's largest per-epoch loss.

    Raises
    ------
    FileNotFoundError, ValueError
        From :func:`dlsched.optimus.curves.load_curves`.
    """
    ep = per_epoch(load_curves(data_dir, configs))
    ep["norm_loss"] = ep["loss"] / ep.groupby("config", sort=False)["loss"].transform("max")
    return ep


def observed_convergence_epoch(
    losses: Sequence[float] | np.ndarray, delta: float, confirm: int = 5
) -> int | None:
    r"""First epoch whose normalised decrease stays below ``delta`` for ``confirm`` epochs.

    See the module docstring: with :math:`y_e = L_e/\max L` and :math:`d_e = y_e - y_{e+1}`,
    the first :math:`e \ge 1` with :math:`d_e, \dots, d_{e+c-1} < \delta`.

    Parameters
    ----------
    losses : array-like of float
        Per-epoch losses of epochs 1, 2, ..., n (finite, > 0).
    delta : float
        Threshold in (0, 1), fraction of the largest loss.
    confirm : int, default 5
        Consecutive decreases that must be below ``delta`` (>= 1).

    Returns
    -------
    int or None
        The epoch (1-based), or None if the curve does not converge within its epochs.

    Raises
    ------
    ValueError
        Bad ``delta``, ``confirm`` or loss.
    """
    d = _delta(delta)
    c = _pos_int(confirm, "confirm")
    x = np.asarray(losses, dtype=float)
    if x.ndim != 1:
        raise ValueError(f"losses must be one-dimensional, got shape {x.shape}")
    bad = np.flatnonzero(~(np.isfinite(x) & (x > 0)))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"losses[{i}] must be finite and > 0, got {x[i]!r}")
    if x.size < c + 1:
        return None
    y = x / x.max()
    below = (y[:-1] - y[1:]) < d
    run = np.convolve(below.astype(int), np.ones(c, dtype=int), mode="valid")  # run[i]: d_{i+1..i+c}
    hit = np.flatnonzero(run == c)
    return int(hit[0]) + 1 if hit.size else None


def convergence_table(epochs_df: pd.DataFrame, delta: float, confirm: int = 5) -> pd.DataFrame:
    """Observed convergence epoch of every curve (:func:`observed_convergence_epoch`).

    Parameters
    ----------
    epochs_df : pandas.DataFrame
        Columns ``config, epoch, loss`` (epochs 1..n per config), e.g. :func:`epoch_losses`.
    delta : float
        Threshold in (0, 1).
    confirm : int, default 5

    Returns
    -------
    pandas.DataFrame
        Columns ``config, n_epochs, delta, confirm, observed`` (nullable ``Int64``; missing when
        the curve does not converge), ``converged``.

    Raises
    ------
    TypeError, ValueError
        Not a frame, missing columns, bad epochs or losses, bad ``delta`` / ``confirm``.
    """
    df = _check_epochs(epochs_df)
    d = _delta(delta)
    c = _pos_int(confirm, "confirm")
    rows = []
    for name, loss in _groups(df):
        obs = observed_convergence_epoch(loss, d, c)
        rows.append({"config": name, "n_epochs": loss.size, "delta": d, "confirm": c, "observed": obs})
    out = pd.DataFrame(rows)
    out["observed"] = out["observed"].astype("Int64")
    out["converged"] = out["observed"].notna()
    return out


def loss_curves_frame(epochs_df: pd.DataFrame, delta: float, confirm: int = 5) -> pd.DataFrame:
    """Fig. 5's frame: normalised per-epoch losses with the training progress :math:`e/e_{obs}`.

    Parameters
    ----------
    epochs_df : pandas.DataFrame
        Columns ``config, epoch, loss`` (e.g. :func:`epoch_losses`).
    delta : float
        Threshold that defines :math:`e_{obs}`.
    confirm : int, default 5

    Returns
    -------
    pandas.DataFrame
        The input's ``config, epoch, loss`` plus ``norm_loss`` (loss / the curve's max),
        ``observed`` (``Int64``) and ``progress`` (epoch / observed; NaN when not converged).

    Raises
    ------
    TypeError, ValueError
        As :func:`convergence_table`.
    """
    conv = convergence_table(epochs_df, delta, confirm)
    out = epochs_df[list(EPOCH_COLUMNS)].copy()
    out["norm_loss"] = out["loss"] / out.groupby("config", sort=False)["loss"].transform("max")
    out = out.merge(conv[["config", "observed"]], on="config", how="left")
    out["progress"] = out["epoch"] / out["observed"].astype(float)
    return out


# ------------------------------------------------------------------ Fig. 6 prediction errors


def prediction_errors(
    epochs_df: pd.DataFrame,
    delta: float | Sequence[float],
    confirm: int = 5,
    *,
    prior: LossFit = PAPER_PRIOR,
    recency: float = 1.0,
) -> pd.DataFrame:
    r"""Online prediction error of the total epochs against training progress (Fig. 6).

    For every curve that converges (:func:`observed_convergence_epoch`), the per-epoch losses
    arrive one by one into an :class:`~dlsched.optimus.fitting.OnlineLossFit`; after
    :math:`n = 0, 1, \dots, e_{obs}` epochs the predicted total is
    :math:`\hat e = \max(e^*, n)` (module docstring).

    Parameters
    ----------
    epochs_df : pandas.DataFrame
        Columns ``config, epoch, loss`` (epochs 1..n per config).
    delta : float or sequence of float
        Convergence threshold(s) in (0, 1); one block of rows per value.
    confirm : int, default 5
        Confirmation epochs of :math:`e_{obs}`.
    prior : LossFit, default PAPER_PRIOR
        Fit used while fewer than 3 epochs are known.
    recency : float, default 1.0
        Emphasis on later points, see :func:`~dlsched.optimus.fitting.fit_loss_curve`.

    Returns
    -------
    pandas.DataFrame
        Columns ``config, delta, observed, epochs_seen, progress, e_star, predicted, error,
        abs_error, raw_error, prior, beta0, beta1, beta2``; ``raw_error`` is the error of the
        fit's own :math:`e^*` without the floor at :math:`n` (negative when the fit says the job
        has already converged). Curves that do not converge have no rows.

    Raises
    ------
    TypeError, ValueError
        Bad frame, ``delta``, ``confirm``, ``prior`` or ``recency``.
    """
    df = _check_epochs(epochs_df)
    deltas = _deltas(delta)
    c = _pos_int(confirm, "confirm")
    if not isinstance(prior, LossFit):
        raise TypeError(f"prior must be a LossFit, got {type(prior).__name__}")
    rows = []
    for d in deltas:
        for name, loss in _groups(df):
            obs = observed_convergence_epoch(loss, d, c)
            if obs is None:
                continue
            online = OnlineLossFit(prior=prior, recency=recency)
            for n in range(obs + 1):
                if n > 0:
                    online.add(float(n), float(loss[n - 1]))
                fit = online.current()
                e_star = convergence_epoch(fit, d)
                pred = max(e_star, n)
                err = (pred - obs) / obs
                rows.append(
                    {
                        "config": name,
                        "delta": d,
                        "observed": obs,
                        "epochs_seen": n,
                        "progress": n / obs,
                        "e_star": e_star,
                        "predicted": pred,
                        "error": err,
                        "abs_error": abs(err),
                        "raw_error": (e_star - obs) / obs,
                        "prior": fit.prior,
                        "beta0": fit.beta0,
                        "beta1": fit.beta1,
                        "beta2": fit.beta2,
                    }
                )
    cols = [
        "config",
        "delta",
        "observed",
        "epochs_seen",
        "progress",
        "e_star",
        "predicted",
        "error",
        "abs_error",
        "raw_error",
        "prior",
        "beta0",
        "beta1",
        "beta2",
    ]
    return pd.DataFrame(rows, columns=cols)


def progress_error_table(
    errors: pd.DataFrame, fractions: Sequence[float] = (0.1, 0.25, 0.5, 0.75, 0.9, 1.0)
) -> pd.DataFrame:
    """Prediction error available at given training-progress fractions, summarised over curves.

    At fraction ``q`` each curve contributes the prediction made after the largest number of
    epochs :math:`n` with :math:`n/e_{obs} \\le q` (what the scheduler knows at that point).

    Parameters
    ----------
    errors : pandas.DataFrame
        Output of :func:`prediction_errors`.
    fractions : sequence of float, default (0.1, 0.25, 0.5, 0.75, 0.9, 1.0)
        Progress fractions in (0, 1].

    Returns
    -------
    pandas.DataFrame
        Columns ``delta, fraction, n_curves, median_abs_error, mean_abs_error, max_abs_error,
        median_abs_raw_error`` (of :math:`e^*` without the floor, see :func:`prediction_errors`),
        ``n_prior`` (curves still predicted from the prior).

    Raises
    ------
    TypeError, ValueError
        Not a frame, missing columns, bad fractions, no rows.
    """
    if not isinstance(errors, pd.DataFrame):
        raise TypeError(f"errors must be a pandas DataFrame, got {type(errors).__name__}")
    need = ("config", "delta", "progress", "abs_error", "raw_error", "prior")
    missing = [c for c in need if c not in errors.columns]
    if missing:
        raise ValueError(f"errors: missing column(s) {missing}; got {list(errors.columns)}")
    if errors.empty:
        raise ValueError("errors is empty (no curve converged?)")
    qs = _fractions(fractions)
    rows = []
    for d, part in errors.groupby("delta", sort=True):
        for q in qs:
            at = part[part["progress"] <= q + 1e-12].groupby("config", sort=False).tail(1)
            a = at["abs_error"].to_numpy(dtype=float)
            rows.append(
                {
                    "delta": float(d),
                    "fraction": q,
                    "n_curves": int(a.size),
                    "median_abs_error": float(np.median(a)),
                    "mean_abs_error": float(a.mean()),
                    "max_abs_error": float(a.max()),
                    "median_abs_raw_error": float(np.median(np.abs(at["raw_error"].to_numpy(dtype=float)))),
                    "n_prior": int(at["prior"].sum()),
                }
            )
    return pd.DataFrame(rows)


def progress_claim(table: pd.DataFrame, early: float = 0.1, late: float = 0.9) -> Claim:
    """Fig. 6's trend: the median prediction error late in training is below the early one.

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`progress_error_table` containing both fractions.
    early, late : float
        Progress fractions compared (``early < late``).

    Returns
    -------
    Claim
        Holds when, for every ``delta``, median |error| at ``late`` < at ``early``.

    Raises
    ------
    ValueError
        ``early >= late`` or a fraction missing from the table.
    """
    if not early < late:
        raise ValueError(f"early must be < late, got early={early!r}, late={late!r}")
    details: dict[str, object] = {}
    holds = True
    for d, part in table.groupby("delta", sort=True):
        by = part.set_index("fraction")["median_abs_error"]
        for q in (early, late):
            if not np.any(np.isclose(by.index.to_numpy(dtype=float), q)):
                raise ValueError(f"fraction {q!r} is not in the table (has {list(by.index)})")
        e = float(by[np.isclose(by.index.to_numpy(dtype=float), early)].iloc[0])
        lt = float(by[np.isclose(by.index.to_numpy(dtype=float), late)].iloc[0])
        details[f"delta={d:g}: median@{early:g}"] = e
        details[f"delta={d:g}: median@{late:g}"] = lt
        holds = holds and lt < e
    return Claim(
        name="Optimus Fig. 6: the total-epoch prediction error shrinks as training progresses",
        holds=bool(holds),
        details=details,
    )


# -------------------------------------------------------------------- Fig. 7 online fitting


def _prefix_len(q: float, n: int) -> int:
    return min(n, max(MIN_LOSS_POINTS, int(round(q * n))))


def fit_betas(
    epochs_df: pd.DataFrame,
    configs: Sequence[str] | None = None,
    fractions: Sequence[float] = (1.0,),
    *,
    recency: float = 1.0,
) -> pd.DataFrame:
    """Eq. (1) fitted to the first fraction of each curve's epochs (Fig. 7's coefficients).

    Parameters
    ----------
    epochs_df : pandas.DataFrame
        Columns ``config, epoch, loss``.
    configs : sequence of str, optional
        Curves to fit (default: all, in frame order).
    fractions : sequence of float, default (1.0,)
        Fractions of the recorded epochs; the prefix has ``max(3, round(q n))`` epochs.
    recency : float, default 1.0

    Returns
    -------
    pandas.DataFrame
        Columns ``config, fraction, n_points, beta0, beta1, beta2, rss, n_outliers, normalizer``
        (normalised units of each fit).

    Raises
    ------
    TypeError, ValueError
        Bad frame, unknown config, bad fractions, a curve with fewer than 3 epochs.
    """
    df = _check_epochs(epochs_df)
    qs = _fractions(fractions)
    losses = dict(_groups(df))
    names = list(losses) if configs is None else list(configs)
    rows = []
    for name in names:
        if name not in losses:
            raise ValueError(f"configs: {name!r} is not in epochs_df (has {sorted(losses)})")
        loss = losses[name]
        for q in qs:
            n = _prefix_len(q, loss.size)
            fit = fit_loss_curve(np.arange(1, n + 1, dtype=float), loss[:n], recency=recency)
            rows.append(
                {
                    "config": name,
                    "fraction": q,
                    "n_points": n,
                    "beta0": fit.beta0,
                    "beta1": fit.beta1,
                    "beta2": fit.beta2,
                    "rss": fit.rss,
                    "n_outliers": fit.n_outliers,
                    "normalizer": fit.normalizer,
                }
            )
    return pd.DataFrame(rows)


def fitted_loss_curves(
    epochs_df: pd.DataFrame,
    config: str,
    fractions: Sequence[float] = (0.1, 0.25, 0.5, 1.0),
    *,
    n_grid: int = 200,
    recency: float = 1.0,
) -> pd.DataFrame:
    """Fitted Eq. (1) curves of one real curve after growing prefixes (Fig. 7's lines).

    Parameters
    ----------
    epochs_df : pandas.DataFrame
        Columns ``config, epoch, loss``.
    config : str
        The curve.
    fractions : sequence of float
        Prefix fractions of the recorded epochs (see :func:`fit_betas`).
    n_grid : int, default 200
        Points of each drawn curve, evenly spaced over epochs 1..n (>= 2).
    recency : float, default 1.0

    Returns
    -------
    pandas.DataFrame
        Columns ``config, fraction, n_points, fit, epoch, norm_loss``: ``fit`` is a label such as
        ``"first 10 epochs"``; ``norm_loss`` is on the scale of :func:`epoch_losses` (raw
        prediction divided by the full curve's largest loss).

    Raises
    ------
    TypeError, ValueError
        As :func:`fit_betas`, or ``n_grid`` < 2.
    """
    grid_n = _pos_int(n_grid, "n_grid", lo=2)
    betas = fit_betas(epochs_df, [config], fractions, recency=recency)
    loss = dict(_groups(epochs_df))[config]
    k = np.linspace(1.0, float(loss.size), grid_n)
    frames = []
    for row in betas.itertuples(index=False):
        fit = LossFit(
            row.beta0, row.beta1, row.beta2, rss=row.rss, n_points=row.n_points, normalizer=row.normalizer
        )
        frames.append(
            pd.DataFrame(
                {
                    "config": config,
                    "fraction": row.fraction,
                    "n_points": row.n_points,
                    "fit": f"first {row.n_points} epochs",
                    "epoch": k,
                    "norm_loss": fit.predict(k) / loss.max(),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


# ------------------------------------------------------------------ Fig. 8 speed estimation


def candidate_pairs(max_tasks: int = 40) -> list[tuple[int, int]]:
    """Every configuration :math:`(p, w)` with :math:`p, w \\ge 1` and :math:`p + w \\le` ``max_tasks``.

    With 40 containers these are the paper's 780 pairs (:data:`PAPER_N_PAIRS`).

    Parameters
    ----------
    max_tasks : int, default 40
        Containers available (>= 2).

    Returns
    -------
    list of (int, int)
        Sorted by p, then w.

    Raises
    ------
    ValueError
        ``max_tasks`` < 2.
    """
    m = _pos_int(max_tasks, "max_tasks", lo=2)
    return [(p, w) for p in range(1, m) for w in range(1, m - p + 1)]


def _noisy(truth: np.ndarray, noise: float, rng: np.random.Generator) -> np.ndarray:
    factor = 1.0 + noise * rng.standard_normal(truth.size)
    while np.any(factor <= 0):
        bad = factor <= 0
        factor[bad] = 1.0 + noise * rng.standard_normal(int(bad.sum()))
    return truth * factor


def _check_model(model) -> OptimusModel:
    if not isinstance(model, OptimusModel):
        raise TypeError(f"model must be an OptimusModel, got {type(model).__name__}")
    return model


def _sync_m(model: OptimusModel) -> float | None:
    return model.batch if model.mode == "sync" else None


def speed_error_vs_samples(
    model: OptimusModel,
    sample_sizes: Sequence[int],
    n_reps: int,
    seed: SeedLike,
    *,
    noise: float = 0.05,
    max_tasks: int = 40,
) -> pd.DataFrame:
    """Speed-estimation error against the number of measured (p, w) pairs (Fig. 8).

    For each sample size ``n`` and repetition: draw ``n`` distinct pairs uniformly from
    :func:`candidate_pairs`, measure them (:func:`~dlsched.optimus.fitting.sample_speeds`), fit
    Eq. (3)/(4) by NNLS, then measure every other candidate pair once (fresh noise) and compare.

    Parameters
    ----------
    model : OptimusModel
        Ground truth (its ``mode`` selects Eq. (3) or (4); sync uses ``M = model.batch``).
    sample_sizes : sequence of int
        Numbers of pairs, each at least the number of coefficients (4 async, 5 sync) and
        smaller than the number of candidates.
    n_reps : int
        Repetitions per sample size (>= 1).
    seed : int or numpy.random.Generator
        Randomness of the pair draws and of the noise (sizes and repetitions in order).
    noise : float, default 0.05
        Relative standard deviation of a measurement.
    max_tasks : int, default 40
        Containers (40: the paper's 780 pairs).

    Returns
    -------
    pandas.DataFrame
        Columns ``mode, n_samples, rep, rank, error_measured, error_true, max_error_true``:
        mean relative error over the held-out pairs against their measured speeds, against the
        true speeds, and the largest error against the truth.

    Raises
    ------
    TypeError, ValueError
        Bad model, seed, noise, sizes or repetitions.
    """
    m = _check_model(model)
    rng = _rng(seed)
    reps = _pos_int(n_reps, "n_reps")
    sigma = _noise(noise)
    pairs = candidate_pairs(max_tasks)
    need = 4 if m.mode == "async" else 5
    sizes = list(sample_sizes)
    if not sizes:
        raise ValueError("sample_sizes: empty sequence")
    for i, n in enumerate(sizes):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not need <= n < len(pairs):
            raise ValueError(
                f"sample_sizes[{i}] must be an integer in [{need}, {len(pairs) - 1}] "
                f"({m.mode} mode, {len(pairs)} candidate pairs), got {n!r}"
            )
    p_all = np.array([p for p, _ in pairs], dtype=float)
    w_all = np.array([w for _, w in pairs], dtype=float)
    truth = np.array([m.speed(p, w) for p, w in pairs], dtype=float)
    rows = []
    for n in sizes:
        for rep in range(reps):
            idx = rng.choice(len(pairs), size=int(n), replace=False)
            samples = sample_speeds(m, [pairs[i] for i in idx], rng, sigma)
            fit = fit_speed(samples, m.mode, _sync_m(m))
            held = np.ones(len(pairs), dtype=bool)
            held[idx] = False
            f_true = truth[held]
            f_meas = _noisy(f_true, sigma, rng) if sigma > 0 else f_true
            est = fit.predict(p_all[held], w_all[held])
            rel_true = np.abs(est - f_true) / f_true
            rows.append(
                {
                    "mode": m.mode,
                    "n_samples": int(n),
                    "rep": rep,
                    "rank": fit.rank,
                    "error_measured": float(np.mean(np.abs(est - f_meas) / f_meas)),
                    "error_true": float(rel_true.mean()),
                    "max_error_true": float(rel_true.max()),
                }
            )
    return pd.DataFrame(rows)


def speed_errors(
    models: Mapping[str, OptimusModel],
    sample_sizes: Sequence[int],
    n_reps: int,
    seed: SeedLike,
    *,
    noise: float = 0.05,
    max_tasks: int = 40,
) -> pd.DataFrame:
    """:func:`speed_error_vs_samples` for several ground truths, concatenated (Fig. 8).

    Parameters
    ----------
    models : mapping name -> OptimusModel
        Ground truths, run in the mapping's order with one random stream.
    sample_sizes, n_reps, noise, max_tasks
        See :func:`speed_error_vs_samples`.
    seed : int or numpy.random.Generator
        One Generator shared by the models in order.

    Returns
    -------
    pandas.DataFrame
        The rows of :func:`speed_error_vs_samples` for every model.

    Raises
    ------
    TypeError, ValueError
        Empty mapping, or as :func:`speed_error_vs_samples`.
    """
    if not models:
        raise ValueError("models: empty mapping")
    rng = _rng(seed)
    frames = [
        speed_error_vs_samples(m, sample_sizes, n_reps, rng, noise=noise, max_tasks=max_tasks)
        for m in models.values()
    ]
    return pd.concat(frames, ignore_index=True)


def speed_error_table(errors: pd.DataFrame) -> pd.DataFrame:
    """Summary of :func:`speed_error_vs_samples` per mode and sample size.

    Parameters
    ----------
    errors : pandas.DataFrame
        Output of :func:`speed_error_vs_samples` (one or several modes concatenated).

    Returns
    -------
    pandas.DataFrame
        Columns ``mode, n_samples, n_reps, mean_error, median_error, q90_error, mean_error_true``
        (errors against the measured speeds unless ``_true``).

    Raises
    ------
    TypeError, ValueError
        Not a frame, missing columns or empty.
    """
    if not isinstance(errors, pd.DataFrame):
        raise TypeError(f"errors must be a pandas DataFrame, got {type(errors).__name__}")
    need = ("mode", "n_samples", "error_measured", "error_true")
    missing = [c for c in need if c not in errors.columns]
    if missing:
        raise ValueError(f"errors: missing column(s) {missing}; got {list(errors.columns)}")
    if errors.empty:
        raise ValueError("errors is empty")
    g = errors.groupby(["mode", "n_samples"], sort=True)
    out = g["error_measured"].agg(
        n_reps="size",
        mean_error="mean",
        median_error="median",
        q90_error=lambda s: float(np.quantile(s, 0.9)),
    )
    out["mean_error_true"] = g["error_true"].mean()
    return out.reset_index()


def speed_error_claim(table: pd.DataFrame, n_pairs: int = PAPER_FIG8_PAIRS, bound: float = 0.10) -> Claim:
    """Fig. 8: error below ``bound`` with ``n_pairs`` pairs, and diminishing returns.

    Holds when, in every mode, (a) the mean error (against measured speeds) with ``n_pairs``
    pairs is below ``bound``, (b) the mean error with the most pairs is at most the one with the
    fewest, and (c) the improvement per added pair from the fewest pairs to ``n_pairs`` is
    larger than the improvement per added pair from ``n_pairs`` to the most pairs (diminishing
    returns).

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`speed_error_table`; must contain ``n_samples == n_pairs`` and both a
        smaller and a larger size.
    n_pairs : int, default 10
    bound : float, default 0.10

    Returns
    -------
    Claim

    Raises
    ------
    ValueError
        ``n_pairs`` missing from the table or not strictly between its smallest and largest size.
    """
    details: dict[str, object] = {}
    holds = True
    for mode, part in table.groupby("mode", sort=True):
        by = part.set_index("n_samples")["mean_error"]
        if n_pairs not in by.index or not by.index.min() < n_pairs < by.index.max():
            raise ValueError(
                f"n_pairs={n_pairs!r} must be a sample size strictly inside {sorted(by.index)} ({mode})"
            )
        by = by.sort_index()
        lo, hi = int(by.index.min()), int(by.index.max())
        first, mid, last = float(by.iloc[0]), float(by.loc[n_pairs]), float(by.iloc[-1])
        early_gain = (first - mid) / (n_pairs - lo)
        late_gain = (mid - last) / (hi - n_pairs)
        details[f"{mode}: mean@{lo}"] = first
        details[f"{mode}: mean@{n_pairs}"] = mid
        details[f"{mode}: mean@{hi}"] = last
        details[f"{mode}: gain/pair {lo}-{n_pairs}"] = early_gain
        details[f"{mode}: gain/pair {n_pairs}-{hi}"] = late_gain
        holds = holds and mid < bound and last <= first and early_gain > late_gain
    return Claim(
        name=f"Optimus Fig. 8: < {bound:.0%} speed error with {n_pairs} (p, w) pairs, diminishing returns",
        holds=bool(holds),
        details=details,
    )


# ------------------------------------------------------------------- Fig. 9 and Table 2


def speed_slices(
    model: OptimusModel,
    seed: SeedLike,
    *,
    noise: float = 0.05,
    fixed_w: Sequence[int] = (2, 8, 16),
    fixed_p: Sequence[int] = (2, 8, 16),
    max_slice: int = 20,
    max_tasks: int = 40,
) -> pd.DataFrame:
    """Measured speeds along one-dimensional slices of the (p, w) plane (Fig. 9's data points).

    Slice ``vs_p``: :math:`p = 1..` ``max_slice`` for each ``w`` in ``fixed_w``; slice ``vs_w``:
    :math:`w = 1..` ``max_slice`` for each ``p`` in ``fixed_p``; only pairs with
    :math:`p + w \\le` ``max_tasks``. Each row is one measurement (a pair on two slices is
    measured twice).

    Parameters
    ----------
    model : OptimusModel
        Ground truth.
    seed : int or numpy.random.Generator
        Noise stream.
    noise : float, default 0.05
    fixed_w, fixed_p : sequence of int
        Values held fixed on each slice (>= 1).
    max_slice : int, default 20
    max_tasks : int, default 40

    Returns
    -------
    pandas.DataFrame
        Columns ``mode, slice, fixed, p, w, speed, true_speed`` (``speed`` measured).

    Raises
    ------
    TypeError, ValueError
        Bad model, seed, noise or slice values.
    """
    m = _check_model(model)
    rng = _rng(seed)
    sigma = _noise(noise)
    top = _pos_int(max_slice, "max_slice", lo=2)
    cap = _pos_int(max_tasks, "max_tasks", lo=2)
    rows = []
    for what, values in (("vs_p", fixed_w), ("vs_w", fixed_p)):
        vals = list(values)
        if not vals:
            raise ValueError(f"{'fixed_w' if what == 'vs_p' else 'fixed_p'}: empty sequence")
        for v in vals:
            v = _pos_int(v, "fixed_w" if what == "vs_p" else "fixed_p")
            for x in range(1, top + 1):
                p, w = (x, v) if what == "vs_p" else (v, x)
                if p + w <= cap:
                    rows.append((what, v, p, w))
    if not rows:
        raise ValueError(f"no slice pair has p + w <= max_tasks={cap}")
    pairs = [(p, w) for _, _, p, w in rows]
    measured = sample_speeds(m, pairs, rng, sigma)
    return pd.DataFrame(
        {
            "mode": m.mode,
            "slice": [r[0] for r in rows],
            "fixed": [r[1] for r in rows],
            "p": measured["p"],
            "w": measured["w"],
            "speed": measured["speed"],
            "true_speed": [m.speed(p, w) for p, w in pairs],
        }
    )


def fit_speed_slices(
    models: Mapping[str, OptimusModel],
    seed: SeedLike,
    *,
    noise: float = 0.05,
    fixed_values: Sequence[int] = (2, 8, 16),
    max_slice: int = 20,
    max_tasks: int = 40,
) -> tuple[pd.DataFrame, dict[str, SpeedFit]]:
    """Measure every model on the Fig. 9 slices, fit it, and return the curves and the fits.

    Parameters
    ----------
    models : mapping mode -> OptimusModel
        Ground truths (keys become the keys of the returned fits), measured in order with one
        random stream.
    seed : int or numpy.random.Generator
    noise : float, default 0.05
    fixed_values : sequence of int, default (2, 8, 16)
        Used as both ``fixed_w`` and ``fixed_p`` of :func:`speed_slices`.
    max_slice, max_tasks : int
        See :func:`speed_slices`.

    Returns
    -------
    curves : pandas.DataFrame
        :func:`speed_curves` rows of all models (measured, true and fitted speeds).
    fits : dict of str to SpeedFit
        The fit of each model (Table 2).

    Raises
    ------
    TypeError, ValueError
        Empty mapping, or as :func:`speed_slices` / :func:`fit_measured`.
    """
    if not models:
        raise ValueError("models: empty mapping")
    rng = _rng(seed)
    frames, fits = [], {}
    for key, model in models.items():
        samples = speed_slices(
            model, rng, noise=noise, fixed_w=fixed_values, fixed_p=fixed_values, max_slice=max_slice,
            max_tasks=max_tasks,
        )  # fmt: skip
        fits[key] = fit_measured(samples, model)
        frames.append(speed_curves(samples, fits[key]))
    return pd.concat(frames, ignore_index=True), fits


def fit_measured(samples: pd.DataFrame, model: OptimusModel) -> SpeedFit:
    """NNLS fit of Eq. (3)/(4) to measured speeds of ``model`` (mode and ``M`` from the model).

    Parameters
    ----------
    samples : pandas.DataFrame
        Columns ``p, w, speed`` (e.g. :func:`speed_slices`).
    model : OptimusModel
        The measured job (``mode``; sync: ``M = model.batch``).

    Returns
    -------
    SpeedFit

    Raises
    ------
    TypeError, ValueError
        From :func:`~dlsched.optimus.fitting.fit_speed`.
    """
    m = _check_model(model)
    return fit_speed(samples, m.mode, _sync_m(m))


def speed_curves(samples: pd.DataFrame, fit: SpeedFit) -> pd.DataFrame:
    """Add the fitted speed ``fitted`` = ``fit.predict(p, w)`` to measured samples (Fig. 9's lines).

    Parameters
    ----------
    samples : pandas.DataFrame
        Columns ``p, w`` at least (e.g. :func:`speed_slices`).
    fit : SpeedFit

    Returns
    -------
    pandas.DataFrame
        A copy of ``samples`` with the column ``fitted``.

    Raises
    ------
    TypeError, ValueError
        Not a SpeedFit, missing columns.
    """
    if not isinstance(fit, SpeedFit):
        raise TypeError(f"fit must be a SpeedFit, got {type(fit).__name__}")
    missing = [c for c in ("p", "w") if c not in samples.columns]
    if missing:
        raise ValueError(f"samples: missing column(s) {missing}; got {list(samples.columns)}")
    out = samples.copy()
    out["fitted"] = fit.predict(out["p"].to_numpy(dtype=float), out["w"].to_numpy(dtype=float))
    return out


def speed_peaks(curves: pd.DataFrame, column: str = "fitted") -> pd.DataFrame:
    """Where each Fig. 9 slice peaks: the paper's observations (b) diminishing returns, (c) slowdown.

    Parameters
    ----------
    curves : pandas.DataFrame
        Output of :func:`speed_curves` (columns ``mode, slice, fixed, p, w`` and ``column``).
    column : str, default "fitted"
        Speed column to inspect (``"fitted"``, ``"true_speed"`` or ``"speed"``).

    Returns
    -------
    pandas.DataFrame
        One row per (mode, slice, fixed): ``best`` (the p or w with the highest speed),
        ``f_best``, ``last`` (largest p or w on the slice), ``f_last`` and
        ``gain_second_half`` = f(last) / f(last // 2) - 1 (small: diminishing returns; negative:
        more tasks slow the job down).

    Raises
    ------
    ValueError
        Missing columns or an empty frame.
    """
    need = ("mode", "slice", "fixed", "p", "w", column)
    missing = [c for c in need if c not in curves.columns]
    if missing:
        raise ValueError(f"curves: missing column(s) {missing}; got {list(curves.columns)}")
    if curves.empty:
        raise ValueError("curves is empty")
    rows = []
    for (mode, sl, fixed), g in curves.groupby(["mode", "slice", "fixed"], sort=True):
        x = "p" if sl == "vs_p" else "w"
        f = g.groupby(x)[column].mean().sort_index()
        last = int(f.index.max())
        half = f.index[f.index <= last // 2]
        f_half = float(f.loc[half.max()]) if half.size else math.nan
        rows.append({
            "mode": mode, "slice": sl, "fixed": int(fixed), "best": int(f.idxmax()), "f_best": float(f.max()),
            "last": last, "f_last": float(f.loc[last]), "gain_second_half": float(f.loc[last]) / f_half - 1.0,
        })  # fmt: skip
    return pd.DataFrame(rows)


def table2(fits: Mapping[str, SpeedFit], models: Mapping[str, OptimusModel] | None = None) -> pd.DataFrame:
    """Table 2 next to ours: the paper's coefficients, our fitted ones and (optionally) the truth.

    Parameters
    ----------
    fits : mapping mode -> SpeedFit
        Our fits (keys ``"async"`` and/or ``"sync"``, matching each fit's mode).
    models : mapping mode -> OptimusModel, optional
        Ground truths; adds rows ``source == "truth"``
        (:func:`~dlsched.optimus.fitting.model_theta`, RSS 0).

    Returns
    -------
    pandas.DataFrame
        Columns ``mode, source, theta1 .. theta5, rss`` (``theta5`` NaN in async mode); sources
        ``paper``, ``fit`` and ``truth``.

    Raises
    ------
    TypeError, ValueError
        A key that is not a mode, or a fit/model whose mode differs from its key.
    """
    rows = []
    for mode, fit in fits.items():
        if mode not in PAPER_TABLE2:
            raise ValueError(f"fits: key must be 'async' or 'sync', got {mode!r}")
        if not isinstance(fit, SpeedFit) or fit.mode != mode:
            raise ValueError(f"fits[{mode!r}] must be a SpeedFit in {mode} mode, got {fit!r}")
        entries = [
            ("paper", PAPER_TABLE2[mode]["theta"], PAPER_TABLE2[mode]["rss"]),
            ("fit", fit.theta, fit.rss),
        ]
        if models is not None and mode in models:
            mdl = _check_model(models[mode])
            if mdl.mode != mode:
                raise ValueError(f"models[{mode!r}] is in {mdl.mode} mode")
            entries.append(("truth", model_theta(mdl), 0.0))
        for source, theta, rss in entries:
            th = list(theta) + [math.nan] * (5 - len(theta))
            thetas = {f"theta{i + 1}": float(t) for i, t in enumerate(th)}
            rows.append({"mode": mode, "source": source, **thetas, "rss": float(rss)})
    return pd.DataFrame(rows)


def theta_recovery_claim(model: OptimusModel, max_tasks: int = 40, rtol: float = 1e-6) -> Claim:
    """Table 2 sanity check: noise-free speeds on every candidate pair give back the true theta.

    Parameters
    ----------
    model : OptimusModel
        Ground truth; its coefficients are :func:`~dlsched.optimus.fitting.model_theta`.
    max_tasks : int, default 40
        Candidate pairs (:func:`candidate_pairs`).
    rtol : float, default 1e-6
        Largest error per coefficient, relative (scaled by the largest coefficient for a zero
        one).

    Returns
    -------
    Claim

    Raises
    ------
    TypeError, ValueError
        Bad model or ``max_tasks``.
    """
    m = _check_model(model)
    samples = sample_speeds(m, candidate_pairs(max_tasks), np.random.default_rng(0), 0.0)
    fit = fit_measured(samples, m)
    true = np.asarray(model_theta(m))
    got = np.asarray(fit.theta)
    scale = np.where(true > 0, true, np.max(np.abs(true)))
    err = float(np.max(np.abs(got - true) / scale))
    return Claim(
        name=f"Optimus Sec. 3.2: NNLS recovers the {m.mode} theta from noise-free speeds of Eq. (2)",
        holds=err <= rtol,
        details={"mode": m.mode, "n_pairs": fit.n_pairs, "max_rel_error": err, "rss": fit.rss},
    )


# ------------------------------------------------------------------------ presentation


def draw_speed_slices(curves: pd.DataFrame, mode: str, slice_name: str, ax: Axes | None = None) -> Axes:
    """Draw one panel of Fig. 9: measured speeds (dots) and the fitted curve (lines) on a slice.

    Parameters
    ----------
    curves : pandas.DataFrame
        Output of :func:`speed_curves` on :func:`speed_slices` rows.
    mode : {"async", "sync"}
    slice_name : {"vs_p", "vs_w"}
    ax : matplotlib.axes.Axes, optional
        Target (a new figure if None).

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        Unknown slice or no rows for the mode and slice.
    """
    from dlsched import plotting

    if slice_name not in ("vs_p", "vs_w"):
        raise ValueError(f"slice_name must be 'vs_p' or 'vs_w', got {slice_name!r}")
    part = curves[(curves["mode"] == mode) & (curves["slice"] == slice_name)]
    if part.empty:
        raise ValueError(f"no rows for mode={mode!r}, slice={slice_name!r}")
    x, fixed = ("p", "w") if slice_name == "vs_p" else ("w", "p")
    part = part.assign(**{fixed: part["fixed"].astype(str)})
    order = sorted(part[fixed].unique(), key=int)
    ax = plotting.draw("scatterplot", part, x=x, y="speed", hue=fixed, hue_order=order, ax=ax, legend=False)
    plotting.draw("lineplot", part, x=x, y="fitted", hue=fixed, hue_order=order, ax=ax)
    label = "parameter servers p" if x == "p" else "workers w"
    ax.set(xlabel=label, ylabel="speed f(p, w) (steps/s)", title=f"{mode}: speed vs {x}")
    return ax


def comparison(rows: Sequence[tuple[str, object, object]]) -> pd.DataFrame:
    """A small "paper vs ours" table.

    Parameters
    ----------
    rows : sequence of (quantity, paper, ours)
        One row per compared quantity; values are shown as given (pre-round numbers).

    Returns
    -------
    pandas.DataFrame
        Columns ``quantity, paper, ours``.

    Raises
    ------
    ValueError
        A row that is not a triple.
    """
    out = []
    for i, r in enumerate(rows):
        if not isinstance(r, (tuple, list)) or len(r) != 3:
            raise ValueError(f"rows[{i}] must be (quantity, paper, ours), got {r!r}")
        out.append({"quantity": str(r[0]), "paper": r[1], "ours": r[2]})
    return pd.DataFrame(out, columns=["quantity", "paper", "ours"])


def _pct(x: float) -> str:
    return f"{100 * x:.0f} %" if abs(x) >= 0.1 else f"{100 * x:.1f} %"


def fig5_comparison(conv: pd.DataFrame, curves: pd.DataFrame) -> pd.DataFrame:
    """Fig. 5, paper vs ours: the jobs, threshold, epochs to converge, loss at half progress.

    Parameters
    ----------
    conv : pandas.DataFrame
        :func:`convergence_table` (one ``delta``).
    curves : pandas.DataFrame
        :func:`loss_curves_frame` with the same ``delta``.

    Returns
    -------
    pandas.DataFrame
        :func:`comparison` rows.

    Raises
    ------
    ValueError
        No curve converged, or several thresholds in ``conv``.
    """
    if conv["delta"].nunique() != 1 or not conv["converged"].any():
        raise ValueError("conv must hold one delta and at least one converged curve")
    obs = conv["observed"].dropna()
    half = curves[curves["progress"] <= 0.5].groupby("config")["norm_loss"].last()
    return comparison([
        ("jobs", "9 MXNet jobs of Table 1 (GPUs)", f"{len(conv)} scikit-learn models (CPU)"),
        ("threshold delta", "1-5 %", _pct(float(conv["delta"].iloc[0]))),
        ("curves converged within their epochs", "all (run to convergence)", f"{len(obs)} of {len(conv)}"),
        ("epochs to converge", "not stated", f"{int(obs.min())}-{int(obs.max())}"),
        ("median normalised loss at 50 % progress", "plot only", f"{half.median():.2f}"),
    ])  # fmt: skip


def fig6_comparison(table: pd.DataFrame, delta: float) -> pd.DataFrame:
    """Fig. 6, paper vs ours: the trend, median error at 10, 50, 90 % progress (and raw at 90 %).

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`progress_error_table` containing fractions 0.1, 0.5 and 0.9.
    delta : float
        Which threshold's rows to report.

    Returns
    -------
    pandas.DataFrame
        :func:`comparison` rows.

    Raises
    ------
    ValueError
        ``delta`` or a fraction missing from the table.
    """
    part = table[np.isclose(table["delta"], delta)]
    if part.empty:
        raise ValueError(f"delta={delta!r} is not in the table (has {sorted(table['delta'].unique())})")
    claim = progress_claim(part)
    by = part.set_index("fraction")["median_abs_error"]
    rows = [
        ("trend", "error shrinks as training progresses", "shrinks" if claim.holds else "does not shrink")
    ]
    rows += [
        (f"median |error| at {q:.0%} progress", "plot only", _pct(float(by.loc[q]))) for q in (0.1, 0.5, 0.9)
    ]
    raw = float(part.set_index("fraction").loc[0.9, "median_abs_raw_error"])
    rows.append(("same, fit's own e* (no floor at n), 90 %", "not reported", _pct(raw)))
    return comparison(rows)


def fig7_comparison(betas: pd.DataFrame, config: str) -> pd.DataFrame:
    """Fig. 7, paper vs ours: the paper's Seq2Seq coefficients next to one of our fits.

    Parameters
    ----------
    betas : pandas.DataFrame
        :func:`fit_betas` (one row per config; the full-curve fit is used).
    config : str
        Our curve.

    Returns
    -------
    pandas.DataFrame
        :func:`comparison` rows ``beta0, beta1, beta2``.

    Raises
    ------
    ValueError
        ``config`` not in ``betas``.
    """
    rows = betas[betas["config"] == config]
    if rows.empty:
        raise ValueError(f"config {config!r} is not in betas (has {sorted(betas['config'].unique())})")
    b = rows.sort_values("fraction").iloc[-1]
    names = ("beta0", "beta1", "beta2")
    return comparison(
        [(n, f"{v:.2f}", f"{b[n]:.2f}") for n, v in zip(names, PAPER_SEQ2SEQ_BETAS, strict=True)]
    )


def fig8_comparison(table: pd.DataFrame, n_pairs: int = PAPER_FIG8_PAIRS) -> pd.DataFrame:
    """Fig. 8, paper vs ours: error with ``n_pairs`` pairs, the smallest and largest samples, trend.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`speed_error_table`.
    n_pairs : int, default 10

    Returns
    -------
    pandas.DataFrame
        :func:`comparison` rows.

    Raises
    ------
    ValueError
        As :func:`speed_error_claim`.
    """
    claim = speed_error_claim(table, n_pairs)
    by = table.set_index(["mode", "n_samples"])["mean_error"]
    modes = sorted(table["mode"].unique())
    lo, hi = int(table["n_samples"].min()), int(table["n_samples"].max())

    def at(n: int) -> str:
        return ", ".join(f"{m} {_pct(float(by[(m, n)]))}" for m in modes)

    return comparison([
        (f"error with {n_pairs} pairs", "< 10 %", at(n_pairs)),
        (f"error with {lo} pairs", "plot only (the evaluation pre-runs 5)", at(lo)),
        (f"error with {hi} pairs", "plot only", at(hi)),
        ("more pairs", "smaller error, diminishing returns",
         "smaller error, diminishing returns" if claim.holds else "not reproduced"),
    ])  # fmt: skip


def fig9_comparison(curves: pd.DataFrame, fits: Mapping[str, SpeedFit]) -> pd.DataFrame:
    """Fig. 9 and Table 2, paper vs ours: the observations (b), (c) and the coefficients.

    Parameters
    ----------
    curves : pandas.DataFrame
        :func:`speed_curves` rows of both modes with slices at fixed value 2 and 8
        (e.g. :func:`fit_speed_slices`).
    fits : mapping mode -> SpeedFit
        Both modes.

    Returns
    -------
    pandas.DataFrame
        :func:`comparison` rows.

    Raises
    ------
    KeyError
        A mode, slice or fixed value missing.
    """
    pk = speed_peaks(curves).set_index(["mode", "slice", "fixed"])
    sync_best = ", ".join(f"w = {pk.loc[('sync', 'vs_w', v), 'best']} (p = {v})" for v in (2, 8))
    gain = float(pk.loc[("async", "vs_p", 2), "gain_second_half"])
    last = int(pk.loc[("async", "vs_p", 2), "last"])

    def th(mode: str) -> str:
        return ", ".join(f"{x:.2f}" for x in fits[mode].theta)

    def paper(mode: str) -> str:
        return ", ".join(f"{x:.2f}" for x in PAPER_TABLE2[mode]["theta"])

    return comparison([
        ("sync: more workers can lower the speed", "yes (Fig. 9c-d)", f"speed peaks at {sync_best}"),
        ("diminishing returns in p", "yes", f"async, w = 2: p {last // 2} -> {last} gains {_pct(gain)}"),
        ("Table 2 async theta1..theta4", paper("async"), th("async")),
        ("Table 2 sync theta1..theta5", paper("sync"), th("sync")),
        ("RSS async / sync", "0.10 / 0.00", f"{fits['async'].rss:.3g} / {fits['sync'].rss:.3g}"),
    ])  # fmt: skip

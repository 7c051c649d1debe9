r"""Optimus's performance models: the convergence curve (Sec. 3.1) and the speed model (Sec. 3.2).

Convergence model, Eq. (1)
--------------------------
.. math:: l(k) = \frac{1}{\beta_0 k + \beta_1} + \beta_2, \qquad \beta_0, \beta_1, \beta_2 \ge 0.

Pre-processing (Sec. 3.1), in this order:

1. *Outlier removal* (:func:`remove_outliers`): point ``i`` is an outlier if it is not within
   [min of the next ``window`` (5) losses, max of the previous ``window`` losses]; a side with no
   points (the first / last point) is not checked. Outliers are detected on the original series
   and replaced by the average of their original immediate neighbours (only one at the ends).
2. *Normalisation*: divide by the maximum (cleaned) loss collected so far, so losses are in
   (0, 1]. All :math:`\beta` and the convergence threshold :math:`\delta` are in these
   normalised units (fraction of the largest loss); :class:`LossFit` keeps the ``normalizer``.

Fitting (NNLS, spec option (b)). Eq. (1) is not linear in :math:`\beta_2`; for a fixed
:math:`\beta_2 < \min l` it is linear in the other two after the transform
:math:`1/(l - \beta_2) = \beta_0 k + \beta_1`, which :func:`scipy.optimize.nnls` solves with
:math:`\beta_0,\beta_1 \ge 0`. :func:`fit_loss_curve` scans a grid of :math:`\beta_2` in
:math:`[0, \min l)` (linear, plus geometric steps towards :math:`\min l`), refines the best grid
cell with a bounded 1-D search (:func:`scipy.optimize.minimize_scalar`), and keeps the
:math:`\beta_2` with the least squared error *in l*. By default the NNLS rows are weighted by
:math:`(l-\beta_2)^2`, the first-order link between errors in :math:`1/(l-\beta_2)` and errors in
:math:`l` (a Gauss-Newton-style linearisation), so the inner problem approximates least squares
in :math:`l`; noise-free data of Eq. (1) are recovered exactly either way. The alternative (spec
note [X], the public re-implementation) is bounded non-linear least squares with
:func:`scipy.optimize.curve_fit` over :math:`[0,\infty)^3`; option (b) keeps the paper's NNLS.
[X] also weights later points more (:math:`\sigma_i = 4^{-\lfloor i/\lceil n/3\rceil\rfloor}`);
``recency=4`` reproduces that emphasis, the default ``recency=1`` is the paper's unweighted fit.

Convergence epoch (spec Sec. 2 [N]). With :math:`x = \beta_0 e + \beta_1`, the decrease
:math:`l(e) - l(e+1) = \beta_0 / (x (x + \beta_0))` falls with :math:`e`; the first epoch whose
decrease is below :math:`\delta` is

.. math:: e^* = \Big\lceil \frac{x^* - \beta_1}{\beta_0} \Big\rceil,\quad
          x^* = \frac{-\beta_0 + \sqrt{\beta_0^2 + 4\beta_0/\delta}}{2}

(+1 when the bound holds with equality, clamped at 0; :math:`e^* = 0` when :math:`\beta_0 = 0`).
:func:`brute_force_convergence_epoch` scans the decrease epoch by epoch as a check.

Speed model, Eqs. (3)-(4)
-------------------------
Async: :math:`f = w / (\theta_0 + \theta_1 w/p + \theta_2 w + \theta_3 p)`;
sync: :math:`f = 1 / (\theta_0 M/w + \theta_1 + \theta_2 w/p + \theta_3 w + \theta_4 p)`.
:func:`fit_speed` solves the linear forms :math:`w/f = [1, w/p, w, p]\cdot\theta` and
:math:`1/f = [M/w, 1, w/p, w, p]\cdot\theta` with NNLS (error minimised in :math:`w/f` resp.
:math:`1/f`, not in :math:`f`; [X] fits (3)/(4) directly with ``curve_fit``).
:func:`sample_speeds` "measures" speeds from the ground-truth step time of Eq. (2)
(:meth:`dlsched.core.jobs.OptimusModel.speed`) with multiplicative Gaussian noise.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from scipy.optimize import minimize_scalar, nnls

from dlsched.core import numerics
from dlsched.core.jobs import LossCurve, OptimusModel, as_number

__all__ = [
    "PAPER_PRIOR",
    "LossFit",
    "OnlineLossFit",
    "SpeedFit",
    "brute_force_convergence_epoch",
    "convergence_epoch",
    "fit_loss_curve",
    "fit_speed",
    "model_theta",
    "remaining_epochs",
    "remove_outliers",
    "sample_speeds",
    "speed_features",
]

MIN_LOSS_POINTS = 3
"""Fewest points :func:`fit_loss_curve` accepts (three unknowns)."""

MIN_SPEED_PAIRS = {"async": 4, "sync": 5}
"""Fewest distinct (p, w) pairs :func:`fit_speed` accepts (number of coefficients)."""


# ------------------------------------------------------------------------------ validation


def _finite_array(values, what: str, *, positive: bool = False, nonneg: bool = False) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be numbers, got {values!r}") from None
    if arr.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional, got shape {arr.shape}")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"{what}[{i}] is not finite: {float(arr[i])!r}")
    if positive:
        bad = np.flatnonzero(arr <= 0)
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"{what}[{i}] must be > 0, got {float(arr[i])!r}")
    if nonneg:
        bad = np.flatnonzero(arr < 0)
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"{what}[{i}] must be >= 0, got {float(arr[i])!r}")
    return arr


def _positive(value, what: str) -> float:
    x = as_number(value, what)
    if not (math.isfinite(x) and x > 0):
        raise ValueError(f"{what} must be a finite number > 0, got {value!r}")
    return x


def _nonneg_int(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{what} must be an integer >= 0, got {value!r}")
    return int(value)


# ------------------------------------------------------------------------- convergence model


@dataclass(frozen=True)
class LossFit:
    r"""A fitted Eq. (1) curve in normalised units.

    Attributes
    ----------
    beta0, beta1, beta2 : float
        Coefficients of :math:`l = 1/(\beta_0 k + \beta_1) + \beta_2` (normalised loss).
    rss : float
        Residual sum of squares of the normalised (cleaned) losses; NaN for a prior.
    n_points : int
        Points the fit used.
    normalizer : float
        Raw loss = ``normalizer`` x normalised loss (the maximum loss collected).
    n_outliers : int
        Points replaced by the outlier rule.
    prior : bool
        True when the coefficients are a fallback prior, not a fit (see :class:`OnlineLossFit`).
    """

    beta0: float
    beta1: float
    beta2: float
    rss: float
    n_points: int
    normalizer: float = 1.0
    n_outliers: int = 0
    prior: bool = False

    def __post_init__(self) -> None:
        for f in ("beta0", "beta1", "beta2"):
            v = getattr(self, f)
            if not (isinstance(v, (int, float, np.floating)) and math.isfinite(v) and v >= 0):
                raise ValueError(f"LossFit.{f} must be a finite number >= 0, got {v!r}")
            object.__setattr__(self, f, float(v))
        if self.beta0 == 0 and self.beta1 == 0:
            raise ValueError("LossFit: beta0 and beta1 cannot both be 0")
        object.__setattr__(self, "normalizer", _positive(self.normalizer, "LossFit.normalizer"))

    @property
    def curve(self) -> LossCurve:
        """The normalised curve as the core's :class:`~dlsched.core.jobs.LossCurve`."""
        return LossCurve(self.beta0, self.beta1, self.beta2)

    def normalized(self, k):
        """Normalised loss of Eq. (1) at epoch(s) ``k`` (float or array)."""
        k = np.asarray(k, dtype=float)
        with np.errstate(divide="ignore"):
            out = 1.0 / (self.beta0 * k + self.beta1) + self.beta2
        return float(out) if out.ndim == 0 else out

    def predict(self, k):
        """Loss in the raw units of the fitted data at epoch(s) ``k`` (float or array)."""
        out = self.normalizer * np.asarray(self.normalized(k))
        return float(out) if out.ndim == 0 else out


PAPER_PRIOR = LossFit(beta0=0.21, beta1=1.07, beta2=0.07, rss=math.nan, n_points=0, prior=True)
"""Fallback curve: the paper's Fig. 7 fit of Seq2Seq (normalised units)."""


def remove_outliers(losses, window: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Sec. 3.1 outlier rule: replace points outside [min of next, max of previous] ``window``.

    Parameters
    ----------
    losses : array-like of float
        Losses in training order (finite).
    window : int, default 5
        Neighbourhood size on each side (the paper's 5 epochs).

    Returns
    -------
    cleaned : numpy.ndarray
        Losses with every outlier replaced by the mean of its original immediate neighbours.
    outliers : numpy.ndarray of bool
        Which points were replaced.

    Raises
    ------
    ValueError
        Non-finite loss (naming index and value) or ``window`` < 1.
    """
    x = _finite_array(losses, "losses")
    if isinstance(window, bool) or not isinstance(window, (int, np.integer)) or window < 1:
        raise ValueError(f"window must be an integer >= 1, got {window!r}")
    n = x.size
    if n < 2:
        return x.copy(), np.zeros(n, dtype=bool)
    w = int(window)
    from numpy.lib.stride_tricks import sliding_window_view

    prev = np.concatenate([np.full(w, -np.inf), x])
    hi = sliding_window_view(prev, w)[:n].max(axis=1)
    hi[0] = np.inf  # no previous point: no upper bound
    nxt = np.concatenate([x, np.full(w, np.inf)])
    lo = sliding_window_view(nxt[1:], w)[:n].min(axis=1)
    lo[-1] = -np.inf  # no subsequent point: no lower bound
    out = (x < lo) | (x > hi)
    cleaned = x.copy()
    idx = np.flatnonzero(out)
    left = np.where(idx > 0, x[np.maximum(idx - 1, 0)], np.nan)
    right = np.where(idx < n - 1, x[np.minimum(idx + 1, n - 1)], np.nan)
    cleaned[idx] = np.nanmean(np.vstack([left, right]), axis=0)
    return cleaned, out


class _SpeedSamples:
    r"""The validated columns of a list of speed samples that only grows at its end (the
    policy's per-job samples, :class:`~dlsched.optimus.policy.Estimates`): each fit checks only
    the samples added since the last one, with the test of :func:`_plain_sample_arrays`.

    :meth:`fit` returns ``(mode, theta, M)`` of ``fit_speed(samples, mode, M)`` (the same NNLS
    problem, rows in sample order, so the same coefficients), without the diagnostics
    ``rss``/``rank`` the policy does not use. Anything but plain ``(p, w, speed)`` tuples of
    finite numbers > 0 goes through :func:`fit_speed` itself (so errors are its errors).

    The NNLS rows (:func:`speed_features` and the target ``w / f`` or ``1 / f``) are computed
    element by element, so they are kept between fits and only the new samples' rows are
    appended (the same numbers as computing all rows again); they are rebuilt when ``mode`` or
    ``M`` changes.

    ``incremental=True`` (the policy's ``fit="incremental"``, issue 23; not bit-identical): the
    NNLS rows are not kept (the sample columns still are). Instead the upper-triangular factor
    :math:`T` of a QR decomposition of the augmented system :math:`[X\ y]` is updated with the
    new rows only (per new row one Givens rotation per row of :math:`T`, in plain Python floats,
    :func:`_givens_add`), and NNLS is solved on :math:`(T_{:c,:c}, T_{:c,c})` (``c`` coefficients). Since
    :math:`\|X\theta - y\|^2 = \|T_{:c,:c}\theta - T_{:c,c}\|^2 + T_{c,c}^2` for an orthogonal
    transform, it is the same NNLS problem (Sec. 3.2's fit on *all* samples, the paper's
    "keep adding runtime points and re-fit"), with a cost per fit independent of the number of
    samples, rounded differently (the solver works on ``T``, not on the rows). A different
    ``mode`` / ``M`` rebuilds ``T`` from all samples.
    """

    def __init__(self, incremental: bool = False) -> None:
        self.incremental = bool(incremental)
        self._T: list | None = None  # incremental: R factor of [X y] (rows so far), a list of rows
        self.p: list = []
        self.w: list = []
        self.f: list = []
        self.pairs: set = set()
        self.plain = True
        self._key: tuple | None = None  # (mode, M) of the rows below
        self._X = np.zeros((0, 0))  # speed_features of the samples so far
        self._y = np.zeros(0)  # NNLS target of the samples so far
        self._finite = True  # every entry of _X and _y is finite

    def _rows(self, start: int, mode: str, M) -> tuple[np.ndarray, np.ndarray]:
        """NNLS rows and targets of the samples ``start:`` (:func:`fit_speed`'s system)."""
        p = np.array(self.p[start:], dtype=float)
        w = np.array(self.w[start:], dtype=float)
        f = np.array(self.f[start:], dtype=float)
        X = speed_features(p, w, mode, M)
        y = w / f if mode == "async" else 1.0 / f
        return X, y

    def fit(
        self, samples: list, mode: str, M: float | None = None
    ) -> tuple[str, tuple[float, ...], float | None]:
        n0 = len(self.p)
        if self.plain:
            new = samples[n0:]
            for r in new:
                if type(r) is not tuple or len(r) != 3:
                    self.plain = False
                    break
                for v in r:
                    if isinstance(v, bool) or not isinstance(v, _NUMBER) or not (math.isfinite(v) and v > 0):
                        self.plain = False
                        break
                if not self.plain:
                    break
        if not self.plain or not samples or len(samples) < n0:
            self.plain = False
            fit = fit_speed(samples, mode, M)
            return fit.mode, fit.theta, fit.M
        mode = _check_mode(mode)
        for p, w, f in new:
            p, w, f = float(p), float(w), float(f)
            self.p.append(p)
            self.w.append(w)
            self.f.append(f)
            self.pairs.add((p, w))
        need = MIN_SPEED_PAIRS[mode]
        if len(self.pairs) < need:
            raise ValueError(
                f"fit_speed({mode!r}) needs at least {need} distinct (p, w) pairs, got {len(self.pairs)}"
            )
        key = (mode, _positive(M, "M") if mode == "sync" and M is not None else None)
        if self.incremental:
            return self._fit_incremental(key, n0, mode, M)
        if key != self._key:  # first fit, or another mode / M: all rows
            X, y = self._rows(0, mode, M)
            self._finite = bool(np.isfinite(X).all() and np.isfinite(y).all())
        elif new:  # the rows so far, then the new samples' rows
            X_new, y_new = self._rows(n0, mode, M)
            self._finite = self._finite and bool(np.isfinite(X_new).all() and np.isfinite(y_new).all())
            X = np.concatenate((self._X, X_new))
            y = np.concatenate((self._y, y_new))
        else:
            X, y = self._X, self._y
        self._key, self._X, self._y = key, X, y
        # the finiteness test of _nnls_x, done on the new rows only (not finite: its own test)
        theta = _nnls_x(X, y, checked=self._finite)
        fit = SpeedFit(mode=mode, theta=tuple(theta), M=M if mode == "sync" else None)
        return fit.mode, fit.theta, fit.M

    def _fit_incremental(self, key, n0: int, mode: str, M) -> tuple[str, tuple[float, ...], float | None]:
        """:meth:`fit` with ``incremental=True``: NNLS on the updated QR factor of ``[X y]``."""
        T = self._T
        if key != self._key or T is None:  # first fit, or another mode / M: all rows
            T, n0 = [], 0
        m = key[1]
        for p, w, f in zip(self.p[n0:], self.w[n0:], self.f[n0:], strict=True):
            # speed_features(p, w, mode, M) and the target of fit_speed, for one sample
            row = [1.0, w / p, w, p, w / f] if mode == "async" else [m / w, 1.0, w / p, w, p, 1.0 / f]
            _givens_add(T, row)
        if not all(math.isfinite(v) for r in T for v in r):  # the full fit reports it (its errors)
            self._key, self._T = None, None
            fit = fit_speed(list(zip(self.p, self.w, self.f, strict=True)), mode, M)
            return fit.mode, fit.theta, fit.M
        self._key, self._T = key, T
        c = len(T[0]) - 1
        A = np.array([r[:c] for r in T])
        b = np.array([r[c] for r in T])
        theta = _nnls_x(A, b, checked=True)
        fit = SpeedFit(mode=mode, theta=tuple(theta), M=M if mode == "sync" else None)
        return fit.mode, fit.theta, fit.M


def _givens_add(T: list, x: list) -> None:
    """Add the row ``x`` to the upper-triangular factor ``T`` (a list of rows, at most
    ``len(x)``) of a QR decomposition, by Givens rotations: afterwards ``T`` is the factor of the
    rows so far plus ``x`` (the same ``T^T T``, up to rounding). Mutates ``T``."""
    n = len(x)
    for i, row in enumerate(T):
        xi = x[i]
        if xi == 0.0:
            continue
        a = row[i]
        h = math.hypot(a, xi)
        c, s = a / h, xi / h
        for k in range(i, n):
            tk, xk = row[k], x[k]
            row[k] = c * tk + s * xk
            x[k] = c * xk - s * tk
    if len(T) < n:
        T.append(x)  # its first len(T) entries have been rotated to 0


try:  # the compiled Lawson-Hanson solver that scipy.optimize.nnls wraps (same code, same answer)
    from scipy.optimize._slsqplib import nnls as _nnls_core
except ImportError:  # pragma: no cover - another SciPy layout: use the public wrapper
    _nnls_core = None


def _nnls_x(A: np.ndarray, b: np.ndarray, *, checked: bool = False) -> np.ndarray:
    """``scipy.optimize.nnls(A, b)[0]`` for float64 ``A`` (C order) and ``b``, minus the wrapper.

    The wrapper's argument checks cost more than solving these tiny problems; they are redone
    here only as a finiteness test (skipped if the caller did it: ``checked``), and anything
    unusual goes through :func:`scipy.optimize.nnls` itself (so errors are its errors).
    """
    if _nnls_core is None or not (checked or (np.isfinite(A).all() and np.isfinite(b).all())):
        return nnls(A, b)[0]
    x, _, info = _nnls_core(A, b, 3 * A.shape[1])
    if info == 3:
        raise RuntimeError("Maximum number of iterations reached.")
    return x


class _Beta01:
    r"""The inner NNLS problem of :func:`fit_loss_curve` for fixed ``k, y``, weights and mode.

    :meth:`solve` is one evaluation at a given :math:`\beta_2`; :meth:`solve_grid` evaluates
    a whole grid at once with the same element-wise arithmetic (row by row the same numbers,
    the same NNLS calls, the same row sums), so both give bit-identical results.
    """

    def __init__(self, k: np.ndarray, y: np.ndarray, weighted: bool, point_w: np.ndarray) -> None:
        self.k, self.y, self.weighted, self.point_w = k, y, weighted, point_w
        self.A = np.column_stack([k, np.ones_like(k)])
        self.sqrt_w = np.sqrt(point_w)
        self.unit_w = bool((point_w == 1.0).all())  # multiplying by weights 1 changes no bit
        self.y_min = float(y.min())  # y - beta2 <= 0 somewhere iff beta2 >= min(y) (exact in floats)

    def solve(self, beta2: float) -> tuple[float, float, float]:
        """NNLS of 1/(y - beta2) = beta0 k + beta1; returns (beta0, beta1, weighted rss in y)."""
        k, y, point_w = self.k, self.y, self.point_w
        if beta2 >= self.y_min:
            return math.nan, math.nan, math.inf
        r = y - beta2
        b = 1.0 / r
        if not self.weighted:
            wgt = self.sqrt_w
        elif self.unit_w:
            wgt = r * r
        else:
            wgt = self.sqrt_w * (r * r)
        b0, b1 = _nnls_x(self.A * wgt[:, None], b * wgt)
        den = b0 * k + b1
        if (b0 == 0 and b1 == 0) or (den <= 0).any():
            return b0, b1, math.inf
        sq = (y - (1.0 / den + beta2)) ** 2
        rss = float((sq if self.unit_w else point_w * sq).sum())
        return float(b0), float(b1), rss

    def solve_grid(self, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`solve` at every ``grid`` value: arrays of beta0, beta1 and rss."""
        k, y, point_w = self.k, self.y, self.point_w
        R = y[None, :] - grid[:, None]
        ok = ~(R <= 0).any(axis=1)
        b0 = np.full(grid.size, math.nan)
        b1 = np.full(grid.size, math.nan)
        rss = np.full(grid.size, math.inf)
        if not ok.any():
            return b0, b1, rss
        R, g = R[ok], grid[ok]
        B = 1.0 / R
        W = self.sqrt_w[None, :] * (R * R if self.weighted else np.ones_like(R))
        AW = self.A[None, :, :] * W[:, :, None]
        BW = B * W
        finite = bool(np.isfinite(AW).all() and np.isfinite(BW).all())
        X = np.array([_nnls_x(AW[i], BW[i], checked=finite) for i in range(g.size)])
        c0, c1 = X[:, 0], X[:, 1]
        den = c0[:, None] * k[None, :] + c1[:, None]
        good = ~(((c0 == 0) & (c1 == 0)) | (den <= 0).any(axis=1))
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            r_ok = (point_w[None, :] * (y[None, :] - (1.0 / den + g[:, None])) ** 2).sum(axis=1)
        b0[ok], b1[ok] = c0, c1
        rss[ok] = np.where(good, r_ok, math.inf)
        return b0, b1, rss


def _beta2_grid(m: float) -> np.ndarray:
    lin = np.linspace(0.0, m, 41)[:-1]
    geo = m * (1.0 - np.geomspace(0.1, 1e-8, 30))
    return np.unique(np.concatenate([lin, geo]))


def fit_loss_curve(
    epochs,
    losses,
    *,
    window: int = 5,
    outliers: bool = True,
    weighted: bool = True,
    recency: float = 1.0,
) -> LossFit:
    r"""Fit Eq. (1) to loss points with Optimus's pre-processing and NNLS (see module docstring).

    Parameters
    ----------
    epochs : array-like of float
        Epoch (or step) of each point, finite, >= 0, strictly increasing.
    losses : array-like of float
        Raw training losses, finite and > 0.
    window : int, default 5
        Outlier-rule neighbourhood (:func:`remove_outliers`).
    outliers : bool, default True
        Apply the outlier rule.
    weighted : bool, default True
        Weight the NNLS rows by :math:`(l-\beta_2)^2` (least squares in :math:`l` to first order).
    recency : float, default 1.0
        Emphasis on later points ([X]'s weights): point ``i`` of ``n`` has standard deviation
        :math:`\sigma_i = \text{recency}^{-\lfloor i/\lceil n/3\rceil\rfloor}`, i.e. weight
        :math:`1/\sigma_i^2` in the squared error (the re-implementation uses 4). 1 = all points
        equal (the paper's plain fit). The reported ``rss`` is unweighted.

    Returns
    -------
    LossFit
        Coefficients in normalised units, residual sum of squares, normaliser.

    Raises
    ------
    ValueError
        Fewer than 3 points, mismatched lengths, non-finite or non-positive loss or bad epoch
        (naming the index and the value).
    """
    k = _finite_array(epochs, "epochs", nonneg=True)
    raw = _finite_array(losses, "losses", positive=True)
    if k.size != raw.size:
        raise ValueError(f"epochs and losses differ in length: {k.size} != {raw.size}")
    if raw.size < MIN_LOSS_POINTS:
        raise ValueError(
            f"fit_loss_curve needs at least {MIN_LOSS_POINTS} points to fit beta0, beta1, beta2; "
            f"got {raw.size}"
        )
    bad = np.flatnonzero(np.diff(k) <= 0)
    if bad.size:
        i = int(bad[0]) + 1
        raise ValueError(
            f"epochs must be strictly increasing: epochs[{i}]={k[i]!r} <= epochs[{i - 1}]={k[i - 1]!r}"
        )
    if outliers:
        clean, mask = remove_outliers(raw, window)
    else:
        clean, mask = raw.copy(), np.zeros(raw.size, dtype=bool)
    if isinstance(recency, bool) or not (
        isinstance(recency, (int, float)) and math.isfinite(recency) and recency >= 1
    ):
        raise ValueError(f"recency must be a finite number >= 1, got {recency!r}")
    n = raw.size
    point_w = numerics.power(float(recency), 2.0 * (np.arange(n) // math.ceil(n / 3)))
    normalizer = float(clean.max())
    y = clean / normalizer
    m = float(y.min())

    grid = _beta2_grid(m)
    problem = _Beta01(k, y, weighted, point_w)
    g_b0, g_b1, rss = problem.solve_grid(grid)
    i = int(np.argmin(rss))
    best = (float(grid[i]), float(g_b0[i]), float(g_b1[i]), float(rss[i]))
    if best[3] > 0:
        # Refine inside the best grid cell with bounded Brent, twice. The search variable is the
        # offset from the current best, because Brent's tolerance has a term relative to |x|
        # (sqrt(eps) |x|); around 0 only the absolute xatol is left.
        lo = float(grid[i - 1]) if i > 0 else 0.0
        hi = float(grid[i + 1]) if i + 1 < grid.size else m
        for _ in range(2):
            c = best[0]
            if not hi > lo:
                break
            res = minimize_scalar(
                lambda s, c=c: problem.solve(c + s)[2],
                bounds=(lo - c, hi - c),
                method="bounded",
                options={"xatol": 1e-15 * m, "maxiter": 500},
            )
            b2 = min(max(c + float(res.x), lo), hi)
            cand = problem.solve(b2)
            if cand[2] < best[3]:
                best = (b2, *cand)
            width = 1e-6 * (hi - lo)
            lo, hi = max(lo, best[0] - width), min(hi, best[0] + width)
    beta2, beta0, beta1, _ = best
    fit_rss = float(np.sum((y - (1.0 / (beta0 * k + beta1) + beta2)) ** 2))
    return LossFit(
        beta0=beta0,
        beta1=beta1,
        beta2=beta2,
        rss=fit_rss,
        n_points=int(raw.size),
        normalizer=normalizer,
        n_outliers=int(mask.sum()),
    )


def _check_delta(delta) -> float:
    d = _positive(delta, "delta")
    return d


def convergence_epoch(fit: LossFit, delta: float) -> int:
    r"""First epoch :math:`e^*` whose decrease :math:`l(e)-l(e+1)` is below ``delta`` (closed form).

    Parameters
    ----------
    fit : LossFit
        Fitted (normalised) curve.
    delta : float
        Convergence threshold in normalised units (> 0).

    Returns
    -------
    int
        :math:`e^* \ge 0`.

    Raises
    ------
    TypeError
        ``fit`` is not a :class:`LossFit`.
    ValueError
        ``delta`` not a finite number > 0.
    """
    if not isinstance(fit, LossFit):
        raise TypeError(f"fit must be a LossFit, got {type(fit).__name__}")
    d = _check_delta(delta)
    b0, b1 = fit.beta0, fit.beta1
    if b0 == 0:
        return 0
    c = b0 / d
    # x* = (-b0 + sqrt(b0^2 + 4 c)) / 2, written without cancellation
    x_star = 2.0 * c / (b0 + math.sqrt(b0 * b0 + 4.0 * c))
    t = (x_star - b1) / b0
    # spec 2 [N]: e* = ceil(t), e* + 1 if the bound is hit with equality. t equal to an integer
    # within the numerics tolerance (REL_TOL of |t| + ABS_TOL) counts as equality (decrease exactly
    # delta at e: not yet below).
    r = round(t)
    if r >= 0 and numerics.is_close(t, r):
        return int(r) + 1
    if t < 0:
        return 0
    return int(math.ceil(t))


def remaining_epochs(fit: LossFit, current_epoch: float, delta: float, confirm: int = 0) -> int:
    r"""Epochs left until convergence, :math:`Q = \max(0, e^* + \text{confirm} - e_{now})`.

    Parameters
    ----------
    fit : LossFit
        Fitted curve (normalised units).
    current_epoch : float
        Epochs completed so far (>= 0); fractional values are rounded up in the result.
    delta : float
        Convergence threshold on the per-epoch decrease of the normalised loss (> 0).
    confirm : int, default 0
        Extra epochs required after :math:`e^*` ("consistently below the threshold for several
        epochs"; the decrease keeps falling after :math:`e^*`, so this only adds epochs).

    Returns
    -------
    int
        Remaining epochs, >= 0.

    Raises
    ------
    TypeError, ValueError
        Bad ``fit``, ``delta``, ``current_epoch`` or ``confirm``.
    """
    e_star = convergence_epoch(fit, delta)
    cur = float(current_epoch) if not isinstance(current_epoch, bool) else math.nan
    if not (math.isfinite(cur) and cur >= 0):
        raise ValueError(f"current_epoch must be a finite number >= 0, got {current_epoch!r}")
    extra = _nonneg_int(confirm, "confirm")
    x = e_star + extra - cur
    r = round(x)
    # Q = ceil(e* + confirm - e_now); a difference that is an integer up to the rounding of e_now
    # (numerics tolerance of max(e* + confirm, e_now)) is that integer
    if abs(x - r) <= numerics.tolerance(e_star + extra, cur):
        return max(0, int(r))
    return max(0, math.ceil(x))


def brute_force_convergence_epoch(fit: LossFit, delta: float, max_epoch: int) -> int | None:
    """Scan :math:`e = 0..max\\_epoch` for the first decrease ``l(e) - l(e+1) < delta``.

    Parameters
    ----------
    fit : LossFit
        Fitted curve.
    delta : float
        Threshold (> 0), normalised units.
    max_epoch : int
        Last epoch scanned (>= 0); scanned in chunks, memory stays bounded.

    Returns
    -------
    int or None
        The first such epoch, or None if none up to ``max_epoch``.

    Raises
    ------
    TypeError, ValueError
        Bad ``fit``, ``delta`` or ``max_epoch``.
    """
    if not isinstance(fit, LossFit):
        raise TypeError(f"fit must be a LossFit, got {type(fit).__name__}")
    d = _check_delta(delta)
    last = _nonneg_int(max_epoch, "max_epoch")
    chunk = 1 << 20
    for start in range(0, last + 1, chunk):
        e = np.arange(start, min(last, start + chunk - 1) + 1, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            dec = (1.0 / (fit.beta0 * e + fit.beta1)) - (1.0 / (fit.beta0 * (e + 1) + fit.beta1))
        hit = np.flatnonzero(dec < d)
        if hit.size:
            return int(e[hit[0]])
    return None


@functools.lru_cache(maxsize=8192, typed=True)
def _memo_fit_loss_curve(epochs: bytes, losses: bytes, window, weighted, recency) -> LossFit:
    """:func:`fit_loss_curve` memoised on the exact bytes of its (float64) inputs.

    The fit is a pure function of its inputs, so equal bytes give the identical :class:`LossFit`
    (frozen, safe to share). A job of a workload observes the same loss points in every run of
    that workload (another scheme, another injected error), so the runs done in one process
    share most of their refits; within a run, each job's fit is still cached by
    :class:`OnlineLossFit` until new points arrive.
    """
    return fit_loss_curve(
        np.frombuffer(epochs), np.frombuffer(losses), window=window, weighted=weighted, recency=recency
    )


class OnlineLossFit:
    """Online convergence model: points arrive one by one, the curve is refitted on demand.

    Until ``min_points`` points have arrived (three unknowns need at least 3), :meth:`current`
    returns the fallback ``prior`` (default :data:`PAPER_PRIOR`, the paper's Fig. 7 Seq2Seq
    curve) with ``prior=True`` and the normaliser set to the largest loss seen (1 if none).
    The fit is cached and recomputed only after new points.

    Parameters
    ----------
    prior : LossFit, default PAPER_PRIOR
        Curve used while there are too few points.
    min_points : int, default 3
        Points needed before fitting (>= 3).
    window : int, default 5
        Outlier-rule neighbourhood.
    weighted : bool, default True
        See :func:`fit_loss_curve`.
    recency : float, default 1.0
        See :func:`fit_loss_curve`.
    """

    def __init__(
        self,
        prior: LossFit = PAPER_PRIOR,
        min_points: int = MIN_LOSS_POINTS,
        window: int = 5,
        weighted: bool = True,
        recency: float = 1.0,
    ) -> None:
        if not isinstance(prior, LossFit):
            raise TypeError(f"prior must be a LossFit, got {type(prior).__name__}")
        if isinstance(min_points, bool) or not isinstance(min_points, (int, np.integer)) or min_points < 3:
            raise ValueError(f"min_points must be an integer >= {MIN_LOSS_POINTS}, got {min_points!r}")
        self.prior = prior
        self.min_points = int(min_points)
        self.window = window
        self.weighted = weighted
        self.recency = recency
        self._epochs: list[float] = []
        self._losses: list[float] = []
        self._fit: LossFit | None = None

    @property
    def n_points(self) -> int:
        """Points collected so far."""
        return len(self._losses)

    @property
    def last_epoch(self) -> float:
        """Epoch of the latest point (0 if none)."""
        return self._epochs[-1] if self._epochs else 0.0

    def add(self, epoch: float, loss: float) -> None:
        """Collect one point.

        Parameters
        ----------
        epoch : float
            Finite, >= 0, larger than the previous point's epoch.
        loss : float
            Raw training loss, finite and > 0.

        Raises
        ------
        ValueError
            Bad value (named with the point's index).
        """
        i = len(self._losses)
        e = _finite_array([epoch], f"epoch of point {i}", nonneg=True)[0]
        v = _finite_array([loss], f"loss of point {i}", positive=True)[0]
        if self._epochs and e <= self._epochs[-1]:
            raise ValueError(f"epoch of point {i} must exceed {self._epochs[-1]!r}, got {epoch!r}")
        self._epochs.append(float(e))
        self._losses.append(float(v))
        self._fit = None

    def extend(self, epochs: Iterable[float], losses: Iterable[float]) -> None:
        """Collect several points (see :meth:`add`).

        Parameters
        ----------
        epochs, losses : iterable of float
            Same length.

        Raises
        ------
        ValueError
            Different lengths or a bad point.
        """
        es, ls = list(epochs), list(losses)
        if len(es) != len(ls):
            raise ValueError(f"epochs and losses differ in length: {len(es)} != {len(ls)}")
        for e, v in zip(es, ls, strict=True):
            self.add(e, v)

    def current(self) -> LossFit:
        """The fit of all points so far, or the prior while fewer than ``min_points``.

        Returns
        -------
        LossFit
        """
        if self.n_points < self.min_points:
            norm = max(self._losses) if self._losses else self.prior.normalizer
            return replace(self.prior, n_points=self.n_points, normalizer=norm, prior=True, rss=math.nan)
        if self._fit is None:
            opts = (self.window, self.weighted, self.recency)
            try:
                hash(opts)
            except TypeError:  # unhashable options: no memo (fit_loss_curve reports them)
                self._fit = fit_loss_curve(
                    self._epochs,
                    self._losses,
                    window=self.window,
                    weighted=self.weighted,
                    recency=self.recency,
                )
            else:
                self._fit = _memo_fit_loss_curve(
                    np.array(self._epochs).tobytes(), np.array(self._losses).tobytes(), *opts
                )
        return self._fit

    def remaining_epochs(self, delta: float, confirm: int = 0) -> int:
        """:func:`remaining_epochs` of :meth:`current` from the latest point's epoch.

        Parameters
        ----------
        delta : float
            Threshold (normalised units).
        confirm : int, default 0
            Confirmation epochs.

        Returns
        -------
        int
        """
        return remaining_epochs(self.current(), self.last_epoch, delta, confirm)


# ------------------------------------------------------------------------------- speed model


def _check_mode(mode) -> str:
    if mode not in MIN_SPEED_PAIRS:
        raise ValueError(f"mode must be 'async' or 'sync', got {mode!r}")
    return mode


def speed_features(p, w, mode: str, M: float | None = None) -> np.ndarray:
    """Rows of the linear speed model: async ``[1, w/p, w, p]``, sync ``[M/w, 1, w/p, w, p]``.

    Parameters
    ----------
    p, w : array-like of float
        Numbers of parameter servers and workers (> 0).
    mode : {"async", "sync"}
    M : float, optional
        Global batch size (sync only).

    Returns
    -------
    numpy.ndarray
        Shape (n, 4) or (n, 5).

    Raises
    ------
    ValueError
        Bad mode, missing ``M`` in sync mode, non-positive p or w.
    """
    mode = _check_mode(mode)
    p = _finite_array(np.atleast_1d(p), "p", positive=True)
    w = _finite_array(np.atleast_1d(w), "w", positive=True)
    if p.shape != w.shape:
        raise ValueError(f"p and w differ in shape: {p.shape} != {w.shape}")
    if mode == "async":
        return np.column_stack([np.ones_like(p), w / p, w, p])
    if M is None:
        raise ValueError("M (global batch size) is required in sync mode")
    M = _positive(M, "M")
    return np.column_stack([M / w, np.ones_like(p), w / p, w, p])


@dataclass(frozen=True)
class SpeedFit:
    """Coefficients of Eq. (3) (async, 4 thetas) or Eq. (4) (sync, 5 thetas).

    Attributes
    ----------
    mode : str
        ``"async"`` or ``"sync"``.
    theta : tuple of float
        :math:`\\theta_0, \\theta_1, ...` (Table 2 calls them theta_1..theta_5).
    M : float or None
        Global batch size (sync).
    rss : float
        Residual sum of squares of the linear NNLS problem (in w/f resp. 1/f).
    n_samples, n_pairs, rank : int
        Samples, distinct (p, w) pairs and rank of the design matrix of the fit.
    """

    mode: str
    theta: tuple[float, ...]
    M: float | None = None
    rss: float = math.nan
    n_samples: int = 0
    n_pairs: int = 0
    rank: int = 0

    def __post_init__(self) -> None:
        _check_mode(self.mode)
        th = _finite_array(self.theta, "SpeedFit.theta", nonneg=True)
        need = 4 if self.mode == "async" else 5
        if th.size != need:
            raise ValueError(f"SpeedFit.theta needs {need} coefficients in {self.mode} mode, got {th.size}")
        if not np.any(th > 0):
            raise ValueError("SpeedFit.theta: all coefficients are 0 (infinite speed)")
        object.__setattr__(self, "theta", tuple(float(t) for t in th))
        if self.mode == "sync":
            if self.M is None:
                raise ValueError("SpeedFit.M (global batch size) is required in sync mode")
            object.__setattr__(self, "M", _positive(self.M, "SpeedFit.M"))
        else:
            object.__setattr__(self, "M", None)

    def predict(self, p, w):
        """Training speed f(p, w) in steps per unit time (float for scalars, else array).

        Parameters
        ----------
        p, w : float or array-like
            Numbers of parameter servers and workers (> 0).

        Returns
        -------
        float or numpy.ndarray
        """
        scalar = np.ndim(p) == 0 and np.ndim(w) == 0
        pa, wa = np.broadcast_arrays(np.asarray(p, dtype=float), np.asarray(w, dtype=float))
        X = speed_features(pa.ravel(), wa.ravel(), self.mode, self.M)
        den = numerics.dot(X, np.asarray(self.theta, dtype=float))
        out = (wa.ravel() if self.mode == "async" else 1.0) / den
        return float(out[0]) if scalar else out.reshape(pa.shape)


def _samples_frame(samples) -> pd.DataFrame:
    if isinstance(samples, pd.DataFrame):
        missing = [c for c in ("p", "w", "speed") if c not in samples.columns]
        if missing:
            raise ValueError(f"samples: missing column(s) {missing}; got {list(samples.columns)}")
        return samples[["p", "w", "speed"]].reset_index(drop=True)
    rows = list(samples)
    for i, r in enumerate(rows):
        if len(r) != 3:
            raise ValueError(f"sample {i} must be (p, w, speed), got {r!r}")
    return pd.DataFrame(rows, columns=["p", "w", "speed"])


_NUMBER = (int, float, np.integer, np.floating)


def _plain_sample_arrays(rows: list) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Columns p, w, speed of ``rows`` as float arrays if every row is a ``(p, w, speed)`` tuple
    of finite numbers > 0 (the scheduler's case, see :class:`~dlsched.optimus.policy.Estimates`);
    None otherwise. Same values as the data-frame path, without building a frame."""
    for r in rows:
        if type(r) is not tuple or len(r) != 3:
            return None
        for v in r:
            if isinstance(v, bool) or not isinstance(v, _NUMBER) or not (math.isfinite(v) and v > 0):
                return None
    if not rows:
        return None
    p, w, f = zip(*rows, strict=True)
    return np.array(p, dtype=float), np.array(w, dtype=float), np.array(f, dtype=float)


def fit_speed(samples, mode: str, M: float | None = None) -> SpeedFit:
    """Fit Eq. (3) (async) or Eq. (4) (sync) by NNLS on the linear forms.

    Parameters
    ----------
    samples : pandas.DataFrame or iterable of (p, w, speed)
        Measured speeds (steps per unit time); columns ``p, w, speed``. Repeated (p, w) pairs
        are kept as separate rows.
    mode : {"async", "sync"}
    M : float, optional
        Global batch size, required in sync mode (ignored in async mode).

    Returns
    -------
    SpeedFit

    Raises
    ------
    ValueError
        Bad mode or M; a sample with non-positive / non-finite speed, p or w (naming the sample);
        fewer than 4 (async) or 5 (sync) distinct (p, w) pairs.
    """
    mode = _check_mode(mode)
    if not isinstance(samples, pd.DataFrame):
        samples = list(samples)
        plain = _plain_sample_arrays(samples)
        if plain is not None:
            return _fit_speed_arrays(*plain, mode, M)
    df = _samples_frame(samples)

    def show(v) -> str:
        try:
            return repr(v.item() if isinstance(v, np.generic) else v)
        except (AttributeError, ValueError):  # pragma: no cover
            return repr(v)

    for col in ("p", "w", "speed"):
        vals = df[col].to_numpy()
        for i, v in enumerate(vals):
            ok = not isinstance(v, (bool, np.bool_))
            try:
                x = float(v)
            except (TypeError, ValueError):
                ok = False
            if not ok or not (math.isfinite(x) and x > 0):
                raise ValueError(
                    f"sample {i}: {col}={show(v)} must be a finite number > 0 "
                    f"(p={show(df['p'].iloc[i])}, w={show(df['w'].iloc[i])})"
                )
    p = df["p"].to_numpy(dtype=float)
    w = df["w"].to_numpy(dtype=float)
    f = df["speed"].to_numpy(dtype=float)
    return _fit_speed_arrays(p, w, f, mode, M)


def _fit_speed_arrays(p: np.ndarray, w: np.ndarray, f: np.ndarray, mode: str, M: float | None) -> SpeedFit:
    """:func:`fit_speed` on validated float arrays of p, w and speed."""
    n_pairs = len(set(zip(p.tolist(), w.tolist(), strict=True)))
    need = MIN_SPEED_PAIRS[mode]
    if n_pairs < need:
        raise ValueError(f"fit_speed({mode!r}) needs at least {need} distinct (p, w) pairs, got {n_pairs}")
    X = speed_features(p, w, mode, M)
    y = w / f if mode == "async" else 1.0 / f
    theta, resid = nnls(X, y)
    return SpeedFit(
        mode=mode,
        theta=tuple(theta),
        M=M if mode == "sync" else None,
        rss=float(resid) ** 2,
        n_samples=int(p.size),
        n_pairs=n_pairs,
        rank=int(np.linalg.matrix_rank(X)),
    )


def model_theta(model: OptimusModel) -> tuple[float, ...]:
    r"""The coefficients of Eq. (3)/(4) implied by a ground-truth :class:`OptimusModel`.

    Async: :math:`(m T_{fwd} + T_{back},\ 2S/B + T_{upd},\ \delta,\ \delta')`; sync:
    :math:`(T_{fwd},\ T_{back},\ 2S/B + T_{upd},\ \delta,\ \delta')` with :math:`M` = ``batch``
    (the model's placement-free step time, Eq. (2) with :math:`w'_p = w`).

    Parameters
    ----------
    model : OptimusModel

    Returns
    -------
    tuple of float

    Raises
    ------
    TypeError
        Not an :class:`OptimusModel`.
    """
    if not isinstance(model, OptimusModel):
        raise TypeError(f"model must be an OptimusModel, got {type(model).__name__}")
    comm = 2.0 * model.model_size / model.ps_bw + model.t_update
    if model.mode == "async":
        return (model.batch * model.t_forward + model.t_back, comm, model.delta, model.delta_ps)
    return (model.t_forward, model.t_back, comm, model.delta, model.delta_ps)


def sample_speeds(
    model: OptimusModel,
    pairs: Sequence[tuple[int, int]],
    rng: np.random.Generator,
    noise: float = 0.05,
) -> pd.DataFrame:
    """Noisy "measured" speeds: the ground-truth f(p, w) times ``1 + noise * N(0,1)``.

    The factor is redrawn in the (vanishingly rare) case it is <= 0, so speeds stay positive.
    Speeds come from :meth:`OptimusModel.speed` without a placement (Eq. (2) with
    :math:`w'_p = w`), so noise-free samples follow Eq. (3)/(4) exactly with
    :func:`model_theta`.

    Parameters
    ----------
    model : OptimusModel
        Ground truth.
    pairs : sequence of (p, w)
        Configurations to measure (integers >= 1; repeats allowed).
    rng : numpy.random.Generator
        Noise stream.
    noise : float, default 0.05
        Relative standard deviation (>= 0).

    Returns
    -------
    pandas.DataFrame
        Columns ``p, w, speed`` (one row per pair, in order).

    Raises
    ------
    TypeError
        ``model`` or ``rng`` of the wrong type.
    ValueError
        Bad pair or noise.
    """
    if not isinstance(model, OptimusModel):
        raise TypeError(f"model must be an OptimusModel, got {type(model).__name__}")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    if isinstance(noise, bool) or not (
        isinstance(noise, (int, float)) and math.isfinite(noise) and noise >= 0
    ):
        raise ValueError(f"noise must be a finite number >= 0, got {noise!r}")
    ps, ws = [], []
    for i, pair in enumerate(pairs):
        try:
            p, w = pair
        except (TypeError, ValueError):
            raise ValueError(f"pairs[{i}] must be (p, w), got {pair!r}") from None
        for name, v in (("p", p), ("w", w)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"pairs[{i}]: {name}={v!r} must be an integer >= 1")
        ps.append(int(p))
        ws.append(int(w))
    speed = _noisy_speeds(model, ps, ws, rng, noise)
    return pd.DataFrame(
        {"p": np.asarray(ps, dtype=np.int64), "w": np.asarray(ws, dtype=np.int64), "speed": speed}
    )


def _noisy_speeds(model: OptimusModel, ps: list[int], ws: list[int], rng, noise: float) -> np.ndarray:
    """The ``speed`` column of :func:`sample_speeds` for checked pairs ``(ps[i], ws[i])`` (the
    same draws), without the frame: the policy's pre-run of every arriving job (issue 23)."""
    truth = np.array([model.speed(p, w) for p, w in zip(ps, ws, strict=True)], dtype=float)
    factor = 1.0 + noise * rng.standard_normal(truth.size)
    while np.any(factor <= 0):
        bad = factor <= 0
        factor[bad] = 1.0 + noise * rng.standard_normal(int(bad.sum()))
    return truth * factor

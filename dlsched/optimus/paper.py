r"""Paper-size computations of notebooks 20 and 21 as storable sweep points.

Y. Peng, Y. Bao, Y. Chen, C. Wu, C. Guo, "Optimus: An Efficient Dynamic Resource Scheduler for
Deep Learning Clusters", EuroSys 2018. The notebooks ``20_optimus_models`` (Figs. 6 and 8) and
``21_optimus_proofs`` (the checks of Secs. 3-5, Theorem 1 and Table 3) run samplers of
:mod:`dlsched.optimus.analysis` and :mod:`dlsched.optimus.checks` over hundreds or thousands of
random instances in paper mode. Each function below is one such sampler as an experiment function
``fn(params: dict) -> pandas.DataFrame`` for :func:`dlsched.experiments.sweep`, so that paper mode
reads the results from the results store (``data/results``) and ``dlsched audit`` can recompute
them. The frame is exactly the sampler's (parquet-storable: string column names, no object
columns of mixed types), deterministic given ``params``.

Parameters of every function here: two keys, both lists or dicts, so that
:func:`~dlsched.experiments.sweep` adds no parameter columns to the result (it prepends a column
only for a scalar parameter):

* the *split key* (``"seeds"``, ``"deltas"`` or ``"modes"``): the values this point covers;
  a sampler's rows for one value do not depend on the other values of the point (every seed has
  its own random stream), so a grid of consecutive blocks (:func:`split_grid`) gives the same
  rows as one run over all values, while each point stays cheap enough for an audit;
* ``"options"``: a dict of the sampler's keyword arguments (allowed names listed per function;
  absent ones take the sampler's defaults).

==============================  =====================================  =========================
function                        sampler                                notebook, paper
==============================  =====================================  =========================
:func:`prediction_error_run`    ``analysis.prediction_errors``         20, Fig. 6
:func:`speed_error_run`         ``analysis.speed_error_vs_samples``    20, Fig. 8
:func:`loss_fit_run`            ``checks.loss_fit_sample``             21 sec. 1, Sec. 3.1 Eq. (1)
:func:`speed_fit_run`           ``checks.speed_fit_sample``            21 sec. 1, Sec. 3.2 Eqs. (3)/(4)
:func:`remaining_epochs_run`    ``checks.remaining_epochs_sample``     21 sec. 2, Sec. 3.1
:func:`allocation_run`          ``checks.allocation_sample``           21 sec. 3, Eqs. (5)-(9)
:func:`allocation_gap_run`      ``checks.allocation_gap_sample``       21 sec. 3, Eqs. (5)-(8)
:func:`theorem1_run`            ``checks.theorem1_sample``             21 sec. 4, Theorem 1
:func:`paa_run`                 ``checks.paa_sample``                  21 sec. 5, Sec. 5.3
:func:`mxnet_run`               ``checks.mxnet_sample``                21 sec. 5, Table 3
:func:`table3_run`              ``checks.table3_comparison``           21 sec. 5, Table 3
==============================  =====================================  =========================

None of these frames holds a wall-clock measurement.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from dlsched.optimus import analysis, checks
from dlsched.optimus.workload import job_model

__all__ = [
    "allocation_gap_run",
    "allocation_run",
    "loss_fit_run",
    "mxnet_run",
    "paa_run",
    "prediction_error_run",
    "remaining_epochs_run",
    "speed_error_run",
    "speed_fit_run",
    "split_grid",
    "table3_run",
    "theorem1_run",
]


def split_grid(key: str, values: Sequence[Any], size: int, **options: Any) -> list[dict[str, Any]]:
    """A sweep grid covering ``values`` in consecutive blocks of ``size``, with fixed options.

    Parameters
    ----------
    key : str
        The split key of the experiment function (``"seeds"``, ``"deltas"`` or ``"modes"``).
    values : sequence
        Values to cover, in order (e.g. the seeds of a sample).
    size : int
        Values per point (>= 1); the last block may be shorter.
    **options
        The sampler's keyword arguments, the same in every point (JSON-able values).

    Returns
    -------
    list of dict
        ``[{key: [...block...], "options": {...}}, ...]`` in the order of ``values``.

    Raises
    ------
    ValueError
        If ``key`` is ``"options"`` or empty, ``values`` is empty, or ``size`` is not a positive
        integer.

    Examples
    --------
    >>> split_grid("seeds", [0, 1, 2], 2, n_ps=10)
    [{'seeds': [0, 1], 'options': {'n_ps': 10}}, {'seeds': [2], 'options': {'n_ps': 10}}]
    """
    if not isinstance(key, str) or not key or key == "options":
        raise ValueError(f"split_grid: key must be a non-empty name other than 'options', got {key!r}")
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"split_grid: size must be a positive integer, got {size!r}")
    vals = list(values)
    if not vals:
        raise ValueError(f"split_grid: no {key} to cover")
    return [{key: vals[i : i + size], "options": dict(options)} for i in range(0, len(vals), size)]


def _parse(params: Any, key: str, allowed: Sequence[str], fn: str) -> tuple[list[Any], dict[str, Any]]:
    """The split values and the options of ``params``, validated (names in the message)."""
    if not isinstance(params, Mapping):
        raise TypeError(f"{fn}: params must be a mapping, got {type(params).__name__}")
    extra = sorted(set(params) - {key, "options"})
    if extra:
        raise ValueError(f"{fn}: unknown parameter(s) {extra}; expected {key!r} and 'options'")
    if key not in params:
        raise ValueError(f"{fn}: params lacks {key!r}")
    values = params[key]
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
        raise ValueError(f"{fn}: {key} must be a non-empty list, got {values!r}")
    options = params.get("options", {})
    if not isinstance(options, Mapping):
        raise TypeError(f"{fn}: options must be a mapping, got {type(options).__name__}")
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(f"{fn}: unknown option(s) {unknown}; allowed: {sorted(allowed)}")
    opts = {k: tuple(v) if isinstance(v, list) else v for k, v in options.items()}
    return list(values), opts


def _sample(
    sampler: Callable[..., pd.DataFrame], params: Any, allowed: Sequence[str], fn: str
) -> pd.DataFrame:
    seeds, opts = _parse(params, "seeds", allowed, fn)
    return sampler(seeds, **opts)


# ------------------------------------------------------------------------------ notebook 20


def prediction_error_run(params: Mapping[str, Any]) -> pd.DataFrame:
    r"""Fig. 6: online prediction error of the total epochs on the stored real loss curves.

    Notebook ``20_optimus_models``, section "Fig. 6": :func:`dlsched.optimus.analysis.prediction_errors`
    on :func:`~dlsched.optimus.analysis.epoch_losses` (the curves of ``data/loss_curves``) for the
    thresholds :math:`\delta` of the point. Checks the paper's Fig. 6 (error large early, small
    near convergence).

    Parameters
    ----------
    params : dict
        ``deltas``: list of thresholds in (0, 1); ``options``: ``confirm`` (int, default 5).

    Returns
    -------
    pandas.DataFrame
        The columns of :func:`~dlsched.optimus.analysis.prediction_errors`.
    """
    deltas, opts = _parse(params, "deltas", ("confirm",), "prediction_error_run")
    return analysis.prediction_errors(analysis.epoch_losses(), deltas, opts.get("confirm", 5))


def speed_error_run(params: Mapping[str, Any]) -> pd.DataFrame:
    """Fig. 8: speed-estimation error against the number of measured (p, w) pairs, per mode.

    Notebook ``20_optimus_models``, section "Fig. 8": for each training mode of the point,
    :func:`dlsched.optimus.analysis.speed_error_vs_samples` on the ground truth
    ``job_model(job_type, mode)`` with its own stream ``numpy.random.default_rng(seed)`` (the
    same seed for every mode). Checks the paper's Fig. 8 (below 10 % error with 10 pairs).

    Parameters
    ----------
    params : dict
        ``modes``: list of ``"async"``/``"sync"``; ``options``: ``job_type`` (default
        ``"resnet50"``), ``sample_sizes`` (list of int, required), ``n_reps`` (int, required),
        ``seed`` (int, default 0), ``noise`` (default 0.05), ``max_tasks`` (default 40).

    Returns
    -------
    pandas.DataFrame
        The columns of :func:`~dlsched.optimus.analysis.speed_error_vs_samples`, modes in order.

    Raises
    ------
    ValueError
        If ``sample_sizes`` or ``n_reps`` is missing, or as the sampler.
    """
    allowed = ("job_type", "sample_sizes", "n_reps", "seed", "noise", "max_tasks")
    modes, opts = _parse(params, "modes", allowed, "speed_error_run")
    missing = [k for k in ("sample_sizes", "n_reps") if k not in opts]
    if missing:
        raise ValueError(f"speed_error_run: options lack {missing}")
    frames = [
        analysis.speed_error_vs_samples(
            job_model(opts.get("job_type", "resnet50"), mode),
            list(opts["sample_sizes"]),
            opts["n_reps"],
            opts.get("seed", 0),
            noise=opts.get("noise", 0.05),
            max_tasks=opts.get("max_tasks", 40),
        )
        for mode in modes
    ]
    return pd.concat(frames, ignore_index=True)


# ------------------------------------------------------------------------------ notebook 21


def loss_fit_run(params: Mapping[str, Any]) -> pd.DataFrame:
    r"""Sec. 3.1: the NNLS fit of Eq. (1) recovers :math:`\beta` (notebook 21, section 1).

    :func:`dlsched.optimus.checks.loss_fit_sample` on the point's seeds.

    Parameters
    ----------
    params : dict
        ``seeds``: list of int; ``options``: ``noise_levels``, ``min_points``, ``max_points``.
    """
    return _sample(
        checks.loss_fit_sample, params, ("noise_levels", "min_points", "max_points"), "loss_fit_run"
    )


def speed_fit_run(params: Mapping[str, Any]) -> pd.DataFrame:
    r"""Sec. 3.2: the NNLS fit of Eqs. (3)/(4) recovers :math:`\theta` (notebook 21, section 1).

    :func:`dlsched.optimus.checks.speed_fit_sample` on the point's seeds.

    Parameters
    ----------
    params : dict
        ``seeds``: list of int; ``options``: ``noise_levels``, ``modes``, ``n_pairs``, ``max_pw``.
    """
    allowed = ("noise_levels", "modes", "n_pairs", "max_pw")
    return _sample(checks.speed_fit_sample, params, allowed, "speed_fit_run")


def remaining_epochs_run(params: Mapping[str, Any]) -> pd.DataFrame:
    r"""Sec. 3.1: the closed-form convergence epoch equals a brute-force scan (notebook 21, section 2).

    :func:`dlsched.optimus.checks.remaining_epochs_sample` on the point's seeds.

    Parameters
    ----------
    params : dict
        ``seeds``: list of int; ``options``: ``kinds``.
    """
    return _sample(checks.remaining_epochs_sample, params, ("kinds",), "remaining_epochs_run")


def allocation_run(params: Mapping[str, Any]) -> pd.DataFrame:
    """Sec. 4.1: the marginal-gain allocation (5)-(9) is feasible (notebook 21, section 3).

    :func:`dlsched.optimus.checks.allocation_sample` on the point's seeds.

    Parameters
    ----------
    params : dict
        ``seeds``: list of int; ``options``: ``n_jobs``, ``n_resources``, ``slack``,
        ``stop_rules``, ``gain_unit``.
    """
    allowed = ("n_jobs", "n_resources", "slack", "stop_rules", "gain_unit")
    return _sample(checks.allocation_sample, params, allowed, "allocation_run")


def allocation_gap_run(params: Mapping[str, Any]) -> pd.DataFrame:
    """Sec. 4.1: gap of the allocation heuristic to the brute-force optimum of (5)-(8) (notebook 21,
    section 3; the paper claims no bound).

    :func:`dlsched.optimus.checks.allocation_gap_sample` on the point's seeds (the brute force
    makes this the most expensive sampler: keep blocks of about 10 seeds at ``max_tasks=6``).

    Parameters
    ----------
    params : dict
        ``seeds``: list of int; ``options``: ``n_jobs``, ``max_tasks``, ``n_resources``,
        ``slack``, ``stop_rules``, ``gain_unit``.
    """
    allowed = ("n_jobs", "max_tasks", "n_resources", "slack", "stop_rules", "gain_unit")
    return _sample(checks.allocation_gap_sample, params, allowed, "allocation_gap_run")


def theorem1_run(params: Mapping[str, Any]) -> pd.DataFrame:
    """Theorem 1 and Optimus-Place by brute force (notebook 21, section 4).

    :func:`dlsched.optimus.checks.theorem1_sample` on the point's seeds.

    Parameters
    ----------
    params : dict
        ``seeds``: list of int; ``options``: ``max_servers``, ``max_p``, ``max_w``,
        ``extra_slots``, ``terms``, ``place_check``.
    """
    allowed = ("max_servers", "max_p", "max_w", "extra_slots", "terms", "place_check")
    return _sample(checks.theorem1_sample, params, allowed, "theorem1_run")


def paa_run(params: Mapping[str, Any]) -> pd.DataFrame:
    """Sec. 5.3: PAA's invariants on random models (notebook 21, section 5).

    :func:`dlsched.optimus.checks.paa_sample` on the point's seeds.

    Parameters
    ----------
    params : dict
        ``seeds``: list of int; ``options``: ``n_ps``, ``eps``, ``max_blocks``.
    """
    return _sample(checks.paa_sample, params, ("n_ps", "eps", "max_blocks"), "paa_run")


def mxnet_run(params: Mapping[str, Any]) -> pd.DataFrame:
    """Table 3: MXNet's default (random) assignment of the ResNet-50 blocks (notebook 21, section 5).

    :func:`dlsched.optimus.checks.mxnet_sample` on the point's seeds.

    Parameters
    ----------
    params : dict
        ``seeds``: list of int; ``options``: ``n_ps``, ``threshold``.
    """
    return _sample(checks.mxnet_sample, params, ("n_ps", "threshold"), "mxnet_run")


def table3_run(params: Mapping[str, Any]) -> pd.DataFrame:
    """Table 3, paper vs ours: PAA and MXNet's default on ResNet-50 (notebook 21, section 5).

    :func:`dlsched.optimus.checks.table3_comparison` on the point's seeds (MXNet's random
    placements), with its row labels as the column ``quantity``; restore the original table with
    ``.set_index("quantity")``.

    Parameters
    ----------
    params : dict
        ``seeds``: list of int; ``options``: ``n_ps``, ``eps``.

    Returns
    -------
    pandas.DataFrame
        Columns ``quantity``, ``paper PAA, ours PAA, paper MXNet, MXNet random mean, MXNet random
        max, MXNet key hash``.
    """
    table = _sample(checks.table3_comparison, params, ("n_ps", "eps"), "table3_run")
    return table.rename_axis("quantity").reset_index()

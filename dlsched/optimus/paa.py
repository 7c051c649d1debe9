r"""PS load balancing: Optimus's parameter assignment algorithm PAA (Sec. 5.3; spec section 7).

A model's parameters come in *blocks* (one tensor each: a convolution kernel, a BatchNorm gamma,
...). Every block, or every partition of a block, lives on one parameter server (PS), and each
worker sends one update request per block/partition per step. Optimus wants (a) equal parameter
sizes on the PSs, (b) few requests in total and (c) equal request counts per PS.

:func:`paa` is the paper's algorithm (spec pseudo-code):

* ``avg_size`` = total size / number of PS; blocks are taken in decreasing size (ties by index);
* a *very small* block (size < ``eps * avg_size``) goes to the PS with the fewest requests (ties:
  least assigned size, then lowest index, spec [N]);
* a block with ``eps * avg_size <= size <= avg_size`` goes to the PS with the smallest remaining
  room ``avg_size - assigned`` that can still hold it (best fit; ties: lowest index); if no PS
  has room, to the PS with the least assigned size (spec [N]);
* a larger block is sliced into partitions of ``avg_size`` (the last one smaller), each to the
  PS with the least assigned size at that moment. With integer block sizes the partitions are
  ``ceil(avg_size)`` parameters (at most one parameter more than ``avg_size``).

:func:`mxnet_default` is MXNet's rule as the paper describes it: a block smaller than
``threshold`` (1e6 parameters) goes to a random PS, a larger one is sliced evenly over all PSs.
(MXNet's ps-lite actually picks the PS of a small block from a hash of its key; the paper calls
it random, and we follow the paper with a seeded generator.)

:func:`resnet50_blocks` builds the 157 parameter blocks of MXNet's ResNet-50 (the
``symbols/resnet.py`` network of MXNet's image-classification example: pre-activation
bottleneck units, ``no_bias`` convolutions, BatchNorm gamma and beta as separate arrays, one
fully-connected layer with bias; BatchNorm moving statistics are auxiliary states, not
parameters): 25,549,486 parameters. Table 3's MXNet request total of 247 = 157 + 10 x 9 tells
that it used 10 PS (ResNet-50 has 10 blocks of >= 1e6 parameters, each sliced into 10).

Figs. 20-21 (PAA's training speed-up, "up to 29 %") need a step time that depends on how the
parameters are spread over the PSs, which Eq. (2) does not have: it assumes the even split
:math:`S/p` (paper Sec. 3.2, "If the parameters are evenly distributed on parameter servers
(load balanced to be achieved in §5.3)"; spec section 3, "the max expresses that the slowest PS
determines the step time"). :func:`ps_step_time` reads the max of Eq. (2) over the PSs with each
PS's own share (``ps_load="imbalance"``, a reading of issue 22): PS :math:`k` holding
:math:`s_k` of the :math:`S` bytes costs a worker :math:`2 s_k w / B` of transfer and
:math:`T_{update}\,w\,s_k/S` of update; ``ps_load="even"`` (the default, our ground truth)
is Eq. (2) itself. :func:`paa_speedup` compares PAA with MXNet's default under either.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dlsched.core import numerics
from dlsched.core.claims import Claim


def _sizes(block_sizes, what: str = "block_sizes") -> np.ndarray:
    try:
        s = np.asarray(block_sizes, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a sequence of numbers, got {block_sizes!r}") from None
    if s.size == 0:
        raise ValueError(f"{what} must not be empty")
    bad = np.flatnonzero(~np.isfinite(s) | (s <= 0))
    if bad.size:
        raise ValueError(f"{what}[{int(bad[0])}] must be finite and > 0, got {s[bad[0]]!r}")
    return s


def _n_ps(n_ps) -> int:
    if isinstance(n_ps, bool) or not isinstance(n_ps, (int, np.integer)) or n_ps < 1:
        raise ValueError(f"n_ps must be an integer >= 1, got {n_ps!r}")
    return int(n_ps)


@dataclass(frozen=True)
class Assignment:
    """Blocks (and partitions of blocks) assigned to PSs.

    Attributes
    ----------
    n_ps : int
    n_blocks : int
    parts : tuple[tuple[int, int, float], ...]
        One ``(block, ps, size)`` per block or partition, i.e. per update request, in the order
        they were assigned.
    ps_sizes : numpy.ndarray
        Parameters held by each PS.
    ps_requests : numpy.ndarray
        Update requests (blocks + partitions) served by each PS per worker and step.
    """

    n_ps: int
    n_blocks: int
    parts: tuple[tuple[int, int, float], ...]
    ps_sizes: np.ndarray
    ps_requests: np.ndarray

    @property
    def total_requests(self) -> int:
        """Requests per worker and step: one per block or partition."""
        return len(self.parts)

    @property
    def size_difference(self) -> float:
        """Largest minus smallest parameter size over the PSs (Table 3, row 1)."""
        return float(self.ps_sizes.max() - self.ps_sizes.min())

    @property
    def request_difference(self) -> int:
        """Largest minus smallest request count over the PSs (Table 3, row 2)."""
        return int(self.ps_requests.max() - self.ps_requests.min())

    @property
    def extra_partitions(self) -> int:
        """Requests beyond one per block (partitions created by slicing)."""
        return self.total_requests - self.n_blocks

    def block_ps(self) -> dict[int, tuple[int, ...]]:
        """PS holding each block (several if the block was sliced), in partition order."""
        out: dict[int, list[int]] = {}
        for b, ps, _ in self.parts:
            out.setdefault(b, []).append(ps)
        return {b: tuple(v) for b, v in sorted(out.items())}

    def split_blocks(self) -> tuple[int, ...]:
        """Blocks stored as more than one partition."""
        return tuple(b for b, v in self.block_ps().items() if len(v) > 1)


def _assignment(n_ps: int, n_blocks: int, parts: list[tuple[int, int, float]]) -> Assignment:
    sizes = np.zeros(n_ps)
    reqs = np.zeros(n_ps, dtype=int)
    for _, ps, size in parts:
        sizes[ps] += size
        reqs[ps] += 1
    sizes.setflags(write=False)
    reqs.setflags(write=False)
    return Assignment(n_ps, n_blocks, tuple(parts), sizes, reqs)


def paa(block_sizes: Sequence[float], n_ps: int, eps: float = 0.01) -> Assignment:
    """Optimus's parameter assignment algorithm (Sec. 5.3).

    Parameters
    ----------
    block_sizes : Sequence[float]
        Size (number of parameters) of each block, > 0.
    n_ps : int
        Number of parameter servers, >= 1.
    eps : float, default 0.01
        Blocks smaller than ``eps * avg_size`` are "very small" (the evaluation's 1%).

    Returns
    -------
    Assignment

    Raises
    ------
    ValueError
        Empty or non-positive sizes, ``n_ps`` < 1, or ``eps`` outside [0, 1].
    """
    sizes = _sizes(block_sizes)
    n_ps = _n_ps(n_ps)
    try:
        eps = float(eps)
    except (TypeError, ValueError):
        raise ValueError(f"eps must be a number in [0, 1], got {eps!r}") from None
    if not 0.0 <= eps <= 1.0:
        raise ValueError(f"eps must be in [0, 1], got {eps!r}")
    integer = bool(np.all(sizes == np.round(sizes)))
    total = float(sizes.sum())
    avg = total / n_ps
    chunk = float(math.ceil(avg)) if integer else avg
    tol = 1e-9 * avg
    assigned = [0.0] * n_ps
    requests = [0] * n_ps
    parts: list[tuple[int, int, float]] = []
    order = sorted(range(sizes.size), key=lambda b: (-sizes[b], b))
    for b in order:
        size = float(sizes[b])
        # PAA line 4: size < eps * avg_size, strictly by more than the numerics tolerance (a size
        # equal to eps * avg_size up to rounding is not "very small")
        if numerics.less(size, eps * avg):  # very small: fewest requests
            # line 5: argmin requests (integers); ties -> least assigned (numerics tolerance) -> index
            few = min(requests)
            least = [k for k in range(n_ps) if requests[k] == few]
            ps = least[numerics.argmin([assigned[k] for k in least])]
        elif size <= avg + tol:  # best fit (line 6; tol = 1e-9 avg_size, the numerics REL_TOL)
            fits = [k for k in range(n_ps) if avg - assigned[k] >= size - tol]
            if fits:
                # line 7: argmin remaining room with numerics tolerance; ties -> lowest index
                ps = fits[numerics.argmin([avg - assigned[k] for k in fits])]
            else:
                ps = numerics.argmin(assigned)  # [N] least assigned; ties -> lowest index
        else:  # large: slice into partitions of avg_size, each to the least loaded PS
            # number of partitions: an exact multiple of chunk may come out 1e-16 above the integer
            n_parts = math.ceil(size / chunk - 1e-12)
            for i in range(n_parts):
                part = chunk if i < n_parts - 1 else size - chunk * (n_parts - 1)
                ps = numerics.argmin(assigned)  # line 10: least assigned (tolerance); ties -> index
                assigned[ps] += part
                requests[ps] += 1
                parts.append((b, ps, part))
            continue
        assigned[ps] += size
        requests[ps] += 1
        parts.append((b, ps, size))
    return _assignment(n_ps, int(sizes.size), parts)


def mxnet_default(
    block_sizes: Sequence[float],
    n_ps: int,
    rng: np.random.Generator | int,
    threshold: float = 1e6,
) -> Assignment:
    """MXNet's default parameter distribution, as described in Sec. 5.3.

    Blocks are taken in the given order; a block smaller than ``threshold`` goes to a PS drawn
    uniformly at random, a larger one is sliced over all PSs (sizes differing by at most one
    parameter for integer sizes), one request per slice.

    Parameters
    ----------
    block_sizes : Sequence[float]
        Size of each block, > 0.
    n_ps : int
        Number of PS, >= 1.
    rng : numpy.random.Generator or int
        Random generator, or a seed for a new one.
    threshold : float, default 1e6
        MXNet's ``bigarray_bound``.

    Returns
    -------
    Assignment

    Raises
    ------
    ValueError
        Bad sizes, ``n_ps``, seed or threshold.
    """
    sizes = _sizes(block_sizes)
    n_ps = _n_ps(n_ps)
    if not isinstance(rng, np.random.Generator):
        if isinstance(rng, bool) or not isinstance(rng, (int, np.integer)) or rng < 0:
            raise ValueError(f"rng must be a numpy Generator or an int seed >= 0, got {rng!r}")
        rng = np.random.default_rng(int(rng))
    try:
        threshold = float(threshold)
    except (TypeError, ValueError):
        raise ValueError(f"threshold must be a number > 0, got {threshold!r}") from None
    if not (math.isfinite(threshold) and threshold > 0):
        raise ValueError(f"threshold must be finite and > 0, got {threshold!r}")
    integer = bool(np.all(sizes == np.round(sizes)))
    parts: list[tuple[int, int, float]] = []
    for b, size in enumerate(sizes.tolist()):
        if size < threshold:
            parts.append((b, int(rng.integers(n_ps)), size))
        elif integer:
            q, r = divmod(int(size), n_ps)
            parts.extend((b, k, float(q + (1 if k < r else 0))) for k in range(n_ps))
        else:
            parts.extend((b, k, size / n_ps) for k in range(n_ps))
    return _assignment(n_ps, int(sizes.size), parts)


# ------------------------------------------------------------------------------------ ResNet-50


def resnet50_blocks() -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Parameter blocks of MXNet's ResNet-50 (ImageNet, 1000 classes), in creation order.

    Returns
    -------
    names : tuple[str, ...]
        MXNet argument names (``bn_data_gamma``, ``conv0_weight``, ...).
    sizes : tuple[int, ...]
        Number of parameters of each block: 157 blocks, 25,549,486 parameters.
    """
    names: list[str] = []
    sizes: list[int] = []

    def bn(name: str, c: int) -> None:
        names.extend((f"{name}_gamma", f"{name}_beta"))
        sizes.extend((c, c))

    def conv(name: str, c_in: int, c_out: int, k: int) -> None:
        names.append(f"{name}_weight")
        sizes.append(c_out * c_in * k * k)

    bn("bn_data", 3)
    conv("conv0", 3, 64, 7)
    bn("bn0", 64)
    filters = (64, 256, 512, 1024, 2048)
    units = (3, 4, 6, 3)
    c_in = filters[0]
    for stage, n_units in enumerate(units, start=1):
        c_out = filters[stage]
        mid = c_out // 4
        for unit in range(1, n_units + 1):
            name = f"stage{stage}_unit{unit}"
            bn(f"{name}_bn1", c_in)
            conv(f"{name}_conv1", c_in, mid, 1)
            bn(f"{name}_bn2", mid)
            conv(f"{name}_conv2", mid, mid, 3)
            bn(f"{name}_bn3", mid)
            conv(f"{name}_conv3", mid, c_out, 1)
            if unit == 1:
                conv(f"{name}_sc", c_in, c_out, 1)
            c_in = c_out
    bn("bn1", c_in)
    names.extend(("fc1_weight", "fc1_bias"))
    sizes.extend((c_in * 1000, 1000))
    return tuple(names), tuple(sizes)


# ---------------------------------------------------------------------------------------- checks


def check_paa_invariants(block_sizes: Sequence[float], n_ps: int, eps: float = 0.01) -> Claim:
    """Spec section 8 item 5 on one instance: run :func:`paa` and check its invariants.

    No block of size <= ``avg_size`` is split; total requests = #blocks + #extra partitions,
    where a block larger than ``avg_size`` yields ``ceil(size / partition)`` partitions; every
    block's partitions add up to its size; the PS sizes add up to the total.

    Parameters
    ----------
    block_sizes : Sequence[float]
    n_ps : int
    eps : float, default 0.01

    Returns
    -------
    Claim
        ``details``: blocks, total requests, expected requests, split blocks, size and request
        differences, and the first problem found (if any).
    """
    sizes = _sizes(block_sizes)
    a = paa(sizes, n_ps, eps)
    total = float(sizes.sum())
    avg = total / a.n_ps
    integer = bool(np.all(sizes == np.round(sizes)))
    chunk = float(math.ceil(avg)) if integer else avg
    problems = []
    expected = 0
    per_block: dict[int, float] = {}
    for b, _, s in a.parts:
        per_block[b] = per_block.get(b, 0.0) + s
    split = set(a.split_blocks())
    for b, size in enumerate(sizes.tolist()):
        large = size > avg * (1 + 1e-9)
        expected += math.ceil(size / chunk - 1e-12) if large else 1
        if not large and b in split:
            problems.append(f"block {b} of size {size} <= avg_size {avg} was split")
        if not math.isclose(per_block.get(b, 0.0), size, rel_tol=1e-9):
            problems.append(f"block {b}: partitions add up to {per_block.get(b, 0.0)}, size {size}")
    if a.total_requests != expected:
        problems.append(f"total requests {a.total_requests} != blocks + extra partitions {expected}")
    if not math.isclose(float(a.ps_sizes.sum()), total, rel_tol=1e-9):
        problems.append(f"PS sizes add up to {a.ps_sizes.sum()}, total {total}")
    return Claim(
        "Optimus Sec. 5.3: PAA splits only blocks > avg_size; requests = blocks + extra partitions",
        not problems,
        {
            "blocks": int(sizes.size),
            "n_ps": a.n_ps,
            "total_requests": a.total_requests,
            "expected_requests": expected,
            "split_blocks": len(split),
            "size_difference": a.size_difference,
            "request_difference": a.request_difference,
            "problem": problems[0] if problems else "",
        },
    )


def table3(n_ps: int = 10, *, seeds: int = 20, eps: float = 0.01) -> dict[str, dict[str, float]]:
    """Table 3 for the ResNet-50 blocks: PAA vs MXNet's default.

    Parameters
    ----------
    n_ps : int, default 10
        Number of PS (10 reproduces the paper's MXNet request total 247).
    seeds : int, default 20
        MXNet's placement of small blocks is random: its rows are means over seeds ``0..seeds-1``
        (the max over seeds is also given).
    eps : float, default 0.01

    Returns
    -------
    dict
        ``{"paa": {...}, "mxnet": {...}, "paper": {...}}`` with ``size_difference`` (parameters),
        ``request_difference`` and ``total_requests``; ``mxnet`` also has
        ``size_difference_max`` and ``request_difference_max``.
    """
    if isinstance(seeds, bool) or not isinstance(seeds, (int, np.integer)) or seeds < 1:
        raise ValueError(f"seeds must be an integer >= 1, got {seeds!r}")
    _, sizes = resnet50_blocks()
    a = paa(sizes, n_ps, eps)
    runs = [mxnet_default(sizes, n_ps, np.random.default_rng(s)) for s in range(seeds)]
    return {
        "paa": {
            "size_difference": a.size_difference,
            "request_difference": float(a.request_difference),
            "total_requests": float(a.total_requests),
        },
        "mxnet": {
            "size_difference": float(np.mean([r.size_difference for r in runs])),
            "request_difference": float(np.mean([r.request_difference for r in runs])),
            "total_requests": float(np.mean([r.total_requests for r in runs])),
            "size_difference_max": float(max(r.size_difference for r in runs)),
            "request_difference_max": float(max(r.request_difference for r in runs)),
        },
        "paper": {
            "paa_size_difference": 0.1e6,
            "paa_request_difference": 1.0,
            "paa_total_requests": 157.0,
            "mxnet_size_difference": 3.6e6,
            "mxnet_request_difference": 43.0,
            "mxnet_total_requests": 247.0,
        },
    }


def check_table3(n_ps: int = 10, *, seeds: int = 20) -> Claim:
    """Table 3 (ResNet-50, 157 blocks, ~25M parameters): PAA splits nothing and balances.

    Holds if PAA uses exactly 157 requests (no block split), its request difference is at most
    1, its size difference is below MXNet's on every seed, and MXNet's request total is 247 (with
    10 PS). The size differences are reported next to the paper's (0.1M vs 3.6M).

    Parameters
    ----------
    n_ps : int, default 10
    seeds : int, default 20

    Returns
    -------
    Claim
    """
    t = table3(n_ps, seeds=seeds)
    _, sizes = resnet50_blocks()
    a = paa(sizes, n_ps)
    mx_min = min(mxnet_default(sizes, n_ps, np.random.default_rng(s)).size_difference for s in range(seeds))
    holds = (
        len(sizes) == 157
        and t["paa"]["total_requests"] == 157
        and t["paa"]["request_difference"] <= 1
        and a.size_difference < mx_min
        and (n_ps != 10 or t["mxnet"]["total_requests"] == 247)
    )
    return Claim(
        "Optimus Table 3: PAA on ResNet-50 needs 157 requests and balances size and requests",
        bool(holds),
        {
            "params": int(sum(sizes)),
            "paa_size_diff": t["paa"]["size_difference"],
            "paa_request_diff": t["paa"]["request_difference"],
            "paa_requests": t["paa"]["total_requests"],
            "mxnet_size_diff_mean": t["mxnet"]["size_difference"],
            "mxnet_request_diff_mean": t["mxnet"]["request_difference"],
            "mxnet_requests": t["mxnet"]["total_requests"],
        },
    )


# ------------------------------------------------------------------------- Figs. 20-21 (speed)

PS_LOADS = ("even", "imbalance")
"""Valid ``ps_load=`` values of :func:`ps_step_time`: Eq. (2)'s even split :math:`S/p` (our ground
truth, default) or each PS's own share, the slowest PS setting the step time (issue 22's reading)."""


def ps_step_time(model, ps_sizes: Sequence[float], workers: int, *, ps_load: str = "even") -> float:
    r"""Step time (s) of a synchronous job whose parameters are spread as ``ps_sizes`` over its PSs.

    ``"imbalance"``: :math:`\max_k [m T_{fwd} + T_{back} + 2 (S s_k/\sum s) w / B +
    T_{update} w s_k/\sum s + \delta w + \delta' p]` (Eq. (2) with PS :math:`k`'s own share, all
    transfers across the network); ``"even"``: the same with every :math:`s_k = \sum s / p`, i.e.
    :meth:`~dlsched.core.jobs.OptimusModel.step_time` without a placement (module docstring).

    Parameters
    ----------
    model : OptimusModel
        The job's ground truth (:func:`dlsched.optimus.workload.job_model`).
    ps_sizes : Sequence[float]
        Parameters held by each PS (:attr:`Assignment.ps_sizes`), > 0 in total; ``p`` is its length.
    workers : int
        >= 1.
    ps_load : {"even", "imbalance"}, default "even"

    Raises
    ------
    ValueError
        An unknown ``ps_load``, empty or negative sizes, ``workers`` < 1.
    """
    if ps_load not in PS_LOADS:
        raise ValueError(f"ps_load must be one of {PS_LOADS}, got {ps_load!r}")
    sizes = np.asarray(ps_sizes, dtype=float).reshape(-1)
    if sizes.size == 0 or not np.all(np.isfinite(sizes)) or np.any(sizes < 0) or sizes.sum() <= 0:
        raise ValueError(f"ps_sizes must be finite, >= 0 and not all 0, got {ps_sizes!r}")
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ValueError(f"workers must be an integer >= 1, got {workers!r}")
    p, w = int(sizes.size), int(workers)
    if ps_load == "even":
        return float(model.step_time(p, w))
    share = float(sizes.max()) / float(sizes.sum())  # the slowest PS: the largest share
    m = model.batch / w if model.mode == "sync" else model.batch
    return float(
        m * model.t_forward
        + model.t_back
        + 2.0 * model.model_size * share * w / model.ps_bw
        + model.t_update * w * share
        + model.delta * w
        + model.delta_ps * p
    )


def paa_speedup(
    n_ps: int, n_workers: int = 10, *, seeds: int = 20, ps_load: str = "even", eps: float = 0.01
) -> dict[str, float]:
    """Figs. 20-21: ResNet-50 (synchronous) training speed with PAA vs MXNet's default assignment.

    Parameters
    ----------
    n_ps : int
        Number of PS (>= 1).
    n_workers : int, default 10
        Workers (Fig. 20 fixes 10; Fig. 21 uses 10 workers and 10 PS).
    seeds : int, default 20
        MXNet's random placements of small blocks, seeds ``0..seeds-1``.
    ps_load : {"even", "imbalance"}, default "even"
        :func:`ps_step_time`.
    eps : float, default 0.01
        PAA's small-block threshold.

    Returns
    -------
    dict
        ``speed_paa`` and ``speed_mxnet`` (steps/s; MXNet's the mean over seeds) and ``speedup``
        (mean over seeds of speed_paa / speed_mxnet, minus 1).

    Raises
    ------
    ValueError
        Bad ``n_ps``, ``n_workers``, ``seeds`` or ``ps_load``.
    """
    from dlsched.optimus.workload import job_model

    n_ps = _n_ps(n_ps)
    if isinstance(seeds, bool) or not isinstance(seeds, (int, np.integer)) or seeds < 1:
        raise ValueError(f"seeds must be an integer >= 1, got {seeds!r}")
    model = job_model("resnet50", "sync")
    _, sizes = resnet50_blocks()
    t_paa = ps_step_time(model, paa(sizes, n_ps, eps).ps_sizes, n_workers, ps_load=ps_load)
    t_mx = np.array(
        [
            ps_step_time(model, mxnet_default(sizes, n_ps, np.random.default_rng(s)).ps_sizes, n_workers,
                         ps_load=ps_load)
            for s in range(int(seeds))
        ]
    )  # fmt: skip
    return {
        "speed_paa": 1.0 / t_paa,
        "speed_mxnet": float(np.mean(1.0 / t_mx)),
        "speedup": float(np.mean(t_mx / t_paa)) - 1.0,
    }

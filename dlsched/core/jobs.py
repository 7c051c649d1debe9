r"""Job specifications, utility functions and the job models of the five papers.

A job model says how an allocation turns into progress. All models share one interface,
:class:`JobModel`: a total amount of work (in the model's own unit), a rate of progress per slot
for a given :class:`~dlsched.core.schedule.Placement`, the PS count the model needs for ``w``
workers, model-specific feasibility constraints, and an optional pause when the placement
changes. The simulator only talks to this interface.

==============  ============================================  ========================================
model           progress per slot (rate)                      paper
==============  ============================================  ========================================
``oasis``       :math:`y / (\tau_i + 2 e_i/b_i)` mini-batches  OASiS Sec. III-B, constraints (2)-(7)
``pdors``       :math:`w / (\tau_i + \frac{w}{s}\frac{2g_i}{F_i b})`  PD-ORS Sec. 2 model, (3)-(4), Fact 1
                samples, :math:`b=b^{(i)}` iff co-located
``aonline``     :math:`y\, p_j` mini-batches, :math:`p_j` of   A_online Eq. (1), (2a)-(2e)
                Eq. (1) (faster when co-located)
``optimus``     steps/s from the step time of Eq. (2)          Optimus Sec. 3.2 (spec's reading of (2))
                (sync: :math:`1/T`, async: :math:`w/T`)        and the appendix transfer model
``specon``      CPU share of the container on its node         SpeCon Sec. V (containers share CPU);
                (core-seconds), migration pause                migration overhead of Fig. 2
``linear``      :math:`w` worker-slots (rigid or elastic)      trace replay (Philly, ITP)
==============  ============================================  ========================================

Time is in slots (``cluster.slot_seconds`` seconds each). Parameters given in slots (``tau``,
``comm``) follow the papers' convention; seconds-based models (Optimus, SpeCon) convert with the
slot length.
"""

from __future__ import annotations

import abc
import dataclasses
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, ClassVar, Protocol, runtime_checkable

import numpy as np

from dlsched.core import numerics
from dlsched.core.cluster import Cluster

if TYPE_CHECKING:  # pragma: no cover
    from dlsched.core.tasks import Placement  # not dlsched.core.schedule, which imports this module

# ----------------------------------------------------------------------------- validation helpers


def as_number(value, what: str) -> float:
    """``value`` as a float (possibly not finite); bools and non-numbers are refused.

    Raises
    ------
    ValueError
        ``"<what> must be a number, got <value>"``.
    """
    if isinstance(value, bool):
        raise ValueError(f"{what} must be a number, got {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number, got {value!r}") from None


def _num(value, what: str, *, lo: float | None = 0.0, strict: bool = False) -> float:
    x = as_number(value, what)
    if not math.isfinite(x):
        raise ValueError(f"{what} must be finite, got {value!r}")
    if lo is not None and (x <= lo if strict else x < lo):
        raise ValueError(f"{what} must be {'>' if strict else '>='} {lo:g}, got {value!r}")
    return x


def _int(value, what: str, *, lo: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            value = int(value)
        else:
            raise ValueError(f"{what} must be an integer, got {value!r}")
    if value < lo:
        raise ValueError(f"{what} must be >= {lo}, got {value!r}")
    return int(value)


def _validate_fields(
    obj, ints: Sequence[str] = (), positive: Sequence[str] = (), nonneg: Sequence[str] = ()
) -> None:
    name = type(obj).__name__
    for f in ints:
        object.__setattr__(obj, f, _int(getattr(obj, f), f"{name}.{f}", lo=1))
    for f in positive:
        object.__setattr__(obj, f, _num(getattr(obj, f), f"{name}.{f}", lo=0.0, strict=True))
    for f in nonneg:
        object.__setattr__(obj, f, _num(getattr(obj, f), f"{name}.{f}", lo=0.0))


# ------------------------------------------------------------------------------------- utilities


@runtime_checkable
class Utility(Protocol):
    """A utility of the job's duration ``completion_slot - arrival`` (non-increasing)."""

    kind: ClassVar[str]

    def __call__(self, duration): ...


@dataclass(frozen=True)
class Sigmoid:
    r"""The sigmoid utility of OASiS Sec. V-A (from CORA) and PD-ORS:

    .. math:: f(d) = \frac{\gamma_1}{1 + e^{\gamma_2 (d - \gamma_3)}}

    ``gamma1`` is the priority, ``gamma2`` the decay (0: time-insensitive, utility gamma1/2),
    ``gamma3`` the target completion time in slots.
    """

    gamma1: float
    gamma2: float
    gamma3: float
    kind: ClassVar[str] = "sigmoid"

    def __post_init__(self) -> None:
        _validate_fields(self, positive=("gamma1",), nonneg=("gamma2",))
        object.__setattr__(self, "gamma3", _num(self.gamma3, "Sigmoid.gamma3", lo=None))

    @property
    def target(self) -> float:
        """Target duration (gamma3), used by the completion-minus-target metric."""
        return self.gamma3

    def __call__(self, duration):
        d = np.asarray(duration, dtype=float)
        with np.errstate(over="ignore"):
            out = self.gamma1 / (1.0 + numerics.exp(self.gamma2 * (d - self.gamma3)))
        return float(out) if out.ndim == 0 else out

    def log(self, duration):
        r""":math:`\ln f(d)`, exact where ``f`` itself underflows to 0."""
        d = np.asarray(duration, dtype=float)
        out = math.log(self.gamma1) - np.logaddexp(0.0, self.gamma2 * (d - self.gamma3))
        return float(out) if out.ndim == 0 else out


@dataclass(frozen=True)
class ConstantUtility:
    """A utility that does not depend on time (counts finished jobs when ``value`` is 1)."""

    value: float = 1.0
    kind: ClassVar[str] = "constant"

    def __post_init__(self) -> None:
        _validate_fields(self, nonneg=("value",))

    @property
    def target(self) -> float:
        """No target: NaN."""
        return math.nan

    def __call__(self, duration):
        d = np.asarray(duration, dtype=float)
        out = np.full(d.shape, self.value)
        return float(out) if out.ndim == 0 else out

    def log(self, duration):
        r""":math:`\ln f(d)` (``-inf`` when the value is 0)."""
        d = np.asarray(duration, dtype=float)
        with np.errstate(divide="ignore"):
            out = np.full(d.shape, math.log(self.value) if self.value > 0 else -math.inf)
        return float(out) if out.ndim == 0 else out


# ----------------------------------------------------------------------------------- loss curves


@dataclass(frozen=True)
class LossCurve:
    r"""Training loss as a function of the epoch, Optimus Eq. (1):
    :math:`l(k) = 1/(\beta_0 k + \beta_1) + \beta_2`, all coefficients >= 0."""

    beta0: float
    beta1: float
    beta2: float = 0.0

    def __post_init__(self) -> None:
        _validate_fields(self, nonneg=("beta0", "beta1", "beta2"))
        if self.beta1 == 0 and self.beta0 == 0:
            raise ValueError("LossCurve: beta0 and beta1 cannot both be 0")

    def __call__(self, k):
        k = np.asarray(k, dtype=float)
        return 1.0 / (self.beta0 * k + self.beta1) + self.beta2


# ------------------------------------------------------------------------------------ job models


@dataclass(frozen=True)
class RateContext:
    """What a job model may look at besides its own placement.

    Attributes
    ----------
    cluster : Cluster
    load : numpy.ndarray
        Demand of all running tasks per server and resource, shape (n_servers, n_resources); on
        compressible resources this may exceed the capacity (contention).
    """

    cluster: Cluster
    load: np.ndarray


class JobModel(abc.ABC):
    """How an allocation turns into progress. Subclasses are frozen dataclasses.

    Class attributes: ``kind`` (registry name), ``work_unit`` (unit of :attr:`total_work`),
    ``work_known`` (False when the scheduler must estimate the remaining work, e.g. convergence-
    driven Optimus jobs; the view then hides it), ``needs_ps``, ``load_scope``.

    ``load_scope`` says what of ``ctx.load`` :meth:`rate` may read: ``"placement"`` (the
    default) only the rows of the placement's own servers, so the engine reuses a job's rate
    while its placement object and those rows (bit for bit) are unchanged; ``"cluster"`` any
    row, so the rate is asked for afresh at every step on a cluster with compressible
    resources. Either way a rate must be a function of its arguments only (no hidden state).
    """

    kind: ClassVar[str]
    work_unit: ClassVar[str]
    work_known: ClassVar[bool] = True
    needs_ps: ClassVar[bool] = True
    load_scope: ClassVar[str] = "placement"

    @property
    @abc.abstractmethod
    def total_work(self) -> float:
        """Work to finish the job, in :attr:`work_unit`."""

    @property
    def max_workers(self) -> int | None:
        """Upper bound on concurrent workers (None: no bound)."""
        return None

    @property
    def min_workers(self) -> int:
        """Smallest number of workers the job can run with (gang size for rigid jobs)."""
        return 1

    @property
    def elastic(self) -> bool:
        """Whether the allocation of a running job may change (A_online (2c)-(2d) say no)."""
        return True

    @property
    def preemptible(self) -> bool:
        """Whether a started, unfinished job may be left without tasks for a while and resumed
        later (A_online (2c)-(2d) say no: the allocation is fixed from start to completion)."""
        return True

    def ps_for(self, workers: int) -> int:
        """PS count this model needs for ``workers`` workers (used by FIFO/DRF and friends)."""
        return 0

    @abc.abstractmethod
    def rate(self, spec: JobSpec, placement: Placement, ctx: RateContext) -> float:
        """Progress per slot under ``placement`` (in :attr:`work_unit`); it may read
        ``ctx.load`` as :attr:`load_scope` allows (the placement's own servers by default)."""

    def switch_pause(self, previous: Placement, new: Placement) -> float:
        """Seconds of the first slot lost when the placement changes from ``previous``."""
        return 0.0

    def placement_violations(self, spec: JobSpec, placement: Placement) -> Iterator[tuple[str, str]]:
        """Yield ``(constraint, message)`` for every model constraint the placement breaks."""
        w, p = placement.n_workers, placement.n_ps
        if w == 0 and p == 0:
            return
        if w < self.min_workers:
            yield "min_workers", f"{w} workers < the {self.min_workers} the job needs"
        if self.max_workers is not None and w > self.max_workers:
            yield "max_workers", f"{w} workers > max_workers {self.max_workers}"
        if self.needs_ps and w > 0 and p == 0:
            yield "ps_required", f"{w} workers but no parameter server"
        if not self.needs_ps and p > 0:
            yield "ps_not_used", f"{p} parameter servers for a model without PS"

    def observations(self, work_done: float) -> np.ndarray:
        """Observed training loss per completed epoch (empty when the model has no loss curve)."""
        loss = getattr(self, "loss", None)
        per_epoch = getattr(self, "work_per_epoch", None)
        if loss is None or not per_epoch:
            return np.empty(0)
        n = int(np.floor(work_done / per_epoch + 1e-9))
        return loss(np.arange(1, n + 1))

    def params(self) -> dict[str, object]:
        """Model parameters as a flat dict (for the instance table)."""
        out = {}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            v = getattr(self, f.name)
            if dataclasses.is_dataclass(v):
                for g in dataclasses.fields(v):
                    out[f"{f.name}_{g.name}"] = getattr(v, g.name)
            else:
                out[f.name] = v
        return out


@dataclass(frozen=True)
class OasisModel(JobModel):
    r"""OASiS (Sec. III-B): asynchronous PS training on separate worker / PS servers.

    A worker trains one mini-batch in :math:`\tau_i + 2e_i/b_i` slots (compute, push, pull), so
    ``y`` workers progress :math:`y/(\tau_i+2e_i/b_i)` mini-batches per slot; the job needs
    :math:`E_iN_iM_i` mini-batches. Constraints: (3) at most :math:`N_i` workers, (6) PS
    bandwidth covers worker bandwidth, :math:`y b_i \le z B_i`, (7) :math:`z \le y`.

    Parameters
    ----------
    epochs, chunks, minibatches : int
        :math:`E_i`, :math:`N_i`, :math:`M_i`.
    tau : float
        :math:`\tau_i`, compute time of one mini-batch, in slots.
    comm : float
        :math:`e_i/b_i`, one-way transfer time of the gradients, in slots.
    worker_bw, ps_bw : float
        :math:`b_i`, :math:`B_i` (same unit); :math:`b_i \le B_i` is required, otherwise (6) and
        (7) cannot both hold.
    """

    epochs: int
    chunks: int
    minibatches: int
    tau: float
    comm: float
    worker_bw: float = 1.0
    ps_bw: float = 1.0
    kind: ClassVar[str] = "oasis"
    work_unit: ClassVar[str] = "mini-batches"

    def __post_init__(self) -> None:
        _validate_fields(
            self,
            ints=("epochs", "chunks", "minibatches"),
            nonneg=("tau", "comm"),
            positive=("worker_bw", "ps_bw"),
        )
        if self.tau + self.comm <= 0:
            raise ValueError("OasisModel: tau + comm must be > 0, got 0")
        if self.worker_bw > self.ps_bw:
            raise ValueError(
                f"OasisModel.worker_bw={self.worker_bw:g} exceeds ps_bw={self.ps_bw:g}: "
                "constraints (6) and (7) cannot both hold"
            )

    @property
    def minibatch_time(self) -> float:
        r""":math:`\tau_i + 2e_i/b_i` in slots."""
        return self.tau + 2.0 * self.comm

    @property
    def total_work(self) -> float:
        return float(self.epochs * self.chunks * self.minibatches)

    @property
    def max_workers(self) -> int:
        return self.chunks

    def ps_for(self, workers: int) -> int:
        return math.ceil(workers * self.worker_bw / self.ps_bw - 1e-12)

    def rate(self, spec, placement, ctx) -> float:
        return placement.n_workers / self.minibatch_time

    def placement_violations(self, spec, placement):
        yield from super().placement_violations(spec, placement)
        y, z = placement.n_workers, placement.n_ps
        if y * self.worker_bw > z * self.ps_bw * (1 + 1e-12):
            yield "ps_bandwidth", f"(6): {y} workers x b={self.worker_bw:g} > {z} PS x B={self.ps_bw:g}"
        if z > y:
            yield "ps_count", f"(7): {z} PS > {y} workers"


@dataclass(frozen=True)
class PdorsModel(JobModel):
    r"""PD-ORS (Sec. 2): synchronous training with co-location of workers and PS in one pool.

    Per-sample time of a worker is :math:`\tau_i + \frac{w}{s}\frac{2g_i}{F_i\,b}` with
    :math:`b=b^{(i)}` (internal) iff every worker and PS of the job is on one machine (Fact 1),
    :math:`b^{(e)}` otherwise; ``w`` workers train :math:`w/(\cdot)` samples per slot and the job
    needs :math:`E_iK_i` samples. Constraints: (4) :math:`w \le F_i`, worker:PS ratio
    :math:`w \le \gamma_i s`.

    Parameters
    ----------
    epochs, samples, batch : int
        :math:`E_i`, :math:`K_i`, global batch :math:`F_i`.
    tau : float
        Compute time per sample, slots.
    sync_internal, sync_external : float
        :math:`2g_i/b_i^{(i)}` and :math:`2g_i/b_i^{(e)}` in slots (internal <= external).
    ratio : float
        :math:`\gamma_i >= 1`, workers per PS (1 = the usual 1:1; the paper draws it in [1, 10]).

    Notes
    -----
    The rate uses the actual ``w / s`` of the placement (the spec's first per-sample formula,
    before :math:`\gamma_i = \sum w / \sum s` is substituted); a schedule with
    :math:`\sum s \ge \sum w/\gamma_i` ((26'), the coupling PD-ORS's rounding guarantees) is
    therefore at least as fast as the paper's (3) with :math:`\gamma_i`, which is what the
    policies plan with. ``sync_internal <= sync_external`` is :math:`b^{(i)} \ge b^{(e)}`.
    """

    epochs: int
    samples: int
    batch: int
    tau: float
    sync_internal: float
    sync_external: float
    ratio: float = 1.0
    kind: ClassVar[str] = "pdors"
    work_unit: ClassVar[str] = "samples"

    def __post_init__(self) -> None:
        _validate_fields(
            self,
            ints=("epochs", "samples", "batch"),
            positive=("tau", "ratio"),
            nonneg=("sync_internal", "sync_external"),
        )
        if self.ratio < 1:
            raise ValueError(
                f"PdorsModel.ratio (gamma_i, workers per PS) must be >= 1, got {self.ratio!r}"
            )
        if self.sync_internal > self.sync_external:
            raise ValueError(
                f"PdorsModel.sync_internal={self.sync_internal:g} exceeds "
                f"sync_external={self.sync_external:g}: internal bandwidth must be the faster"
            )

    @property
    def total_work(self) -> float:
        return float(self.epochs * self.samples)

    @property
    def max_workers(self) -> int:
        return self.batch

    def ps_for(self, workers: int) -> int:
        return math.ceil(workers / self.ratio - 1e-12)

    def sample_time(self, workers: int, ps: int, colocated: bool) -> float:
        """Per-sample time of one worker (slots)."""
        sync = self.sync_internal if colocated else self.sync_external
        return self.tau + (workers / ps) * sync / self.batch

    def rate(self, spec, placement, ctx) -> float:
        w, s = placement.n_workers, placement.n_ps
        if w == 0 or s == 0:
            return 0.0
        return w / self.sample_time(w, s, placement.colocated)

    def placement_violations(self, spec, placement):
        yield from super().placement_violations(spec, placement)
        w, s = placement.n_workers, placement.n_ps
        if w > self.ratio * s * (1 + 1e-12):
            yield "ps_ratio", f"{w} workers > ratio {self.ratio:g} x {s} PS"


@dataclass(frozen=True)
class AOnlineModel(JobModel):
    r"""A_online (Sec. III): synchronous training with one PS, edge-cloud data-transfer delays.

    A worker trains :math:`p_j` mini-batches per slot, Eq. (1):
    :math:`p_j = 1/(n_j + H_j + 2k_j/B_j)`, or :math:`1/(n_j+H_j)` when all workers and the PS
    are on one server (:math:`\xi_j=1`, (2f); ``Placement.colocated``). The job needs
    :math:`E_jD_jM_j` mini-batches, (2e). Constraints: (2a) at most :math:`D_j` workers, (2b)
    exactly one PS while running; the allocation is fixed from start to completion, (2c)-(2d):
    ``elastic`` and ``preemptible`` are False (the simulator and
    :func:`~dlsched.core.schedule.check_timeline` enforce both). The transfer delay (2i) is a
    property of the job and server (:attr:`JobSpec.transfer_delay`); the worker and PS types
    :math:`u_j, v_j` are the resources the job's demands name (see :mod:`dlsched.aonline.model`).

    Parameters
    ----------
    epochs, chunks, minibatches : int
        :math:`E_j`, :math:`D_j`, :math:`M_j`.
    compute, update, comm : float
        :math:`n_j`, :math:`H_j`, :math:`2k_j/B_j`, all in slots (the paper gives hours,
        milliseconds, MB and Mbps: convert first, e.g. with
        :func:`dlsched.aonline.model.aonline_job_model`).
    weight : float, default 1
        :math:`w_j > 0`, the job's weight in the (weighted) total completion time and the "1"
        of the dual constraint (5a).
    allow_preemption : bool, default False
        True relaxes (2c)-(2d) to "no change while running" only: the job may be paused and
        resumed (the Preemptive baseline's Tiresias-like jobs, Figs. 7-11).
    """

    epochs: int
    chunks: int
    minibatches: int
    compute: float
    update: float
    comm: float
    weight: float = 1.0
    allow_preemption: bool = False
    kind: ClassVar[str] = "aonline"
    work_unit: ClassVar[str] = "mini-batches"

    def __post_init__(self) -> None:
        _validate_fields(
            self,
            ints=("epochs", "chunks", "minibatches"),
            nonneg=("update", "comm"),
            positive=("compute", "weight"),
        )
        if not isinstance(self.allow_preemption, (bool, np.bool_)):
            raise ValueError(f"AOnlineModel.allow_preemption must be a bool, got {self.allow_preemption!r}")
        object.__setattr__(self, "allow_preemption", bool(self.allow_preemption))

    @property
    def total_work(self) -> float:
        return float(self.epochs * self.chunks * self.minibatches)

    @property
    def max_workers(self) -> int:
        return self.chunks

    @property
    def elastic(self) -> bool:
        return False

    @property
    def preemptible(self) -> bool:
        return self.allow_preemption

    def ps_for(self, workers: int) -> int:
        return 1 if workers > 0 else 0

    def speed(self, colocated: bool) -> float:
        """:math:`p_j` of Eq. (1), mini-batches per worker per slot."""
        return 1.0 / (self.compute + self.update + (0.0 if colocated else self.comm))

    def rate(self, spec, placement, ctx) -> float:
        if placement.n_ps == 0:
            return 0.0
        return placement.n_workers * self.speed(placement.colocated)

    def placement_violations(self, spec, placement):
        yield from super().placement_violations(spec, placement)
        if placement.n_workers > 0 and placement.n_ps != 1:
            yield "one_ps", f"(2b): {placement.n_ps} PS, exactly 1 required while running"


@dataclass(frozen=True)
class OptimusModel(JobModel):
    r"""Optimus (Sec. 3.2): PS training whose step time follows Eq. (2) (spec's reading).

    Step time :math:`T = m T_{fwd} + T_{back} + C + T_{upd}\,w/p + \delta w + \delta' p` with
    ``m = batch / w`` (sync, fixed global batch) or ``m = batch`` (async, per-worker batch). The
    transfer term ``C`` is :math:`2 (S/p) w / B` (Eq. (2) with :math:`w'_p = w`) or, when
    ``placement_aware``, the appendix model :math:`2\max_k\{(S/p)(w-w_k)/B,\ (S/p)(p-p_k)/b\}`
    that makes traffic inside one server free (Theorem 1). Speed is :math:`1/T` steps/s (sync)
    or :math:`w/T` (async). Work is ``total_steps``, unknown to the scheduler (``work_known`` is
    False): Optimus estimates it from the loss curve.

    ``threshold`` is the owner-specified convergence threshold :math:`\delta` on the decrease of
    the normalised loss between consecutive epochs (known to the scheduler; 0 when unused).
    Observed losses (:meth:`observations`) are the curve ``loss`` at epochs 1, 2, ... times
    :math:`1 + \text{loss\_noise}\cdot N(0, 1)`, the noise drawn from a generator seeded with
    ``noise_seed`` (so the same epoch always shows the same value).
    """

    mode: str
    total_steps: float
    batch: float
    t_forward: float
    t_back: float
    model_size: float
    ps_bw: float
    worker_bw: float
    t_update: float = 0.0
    delta: float = 0.0
    delta_ps: float = 0.0
    placement_aware: bool = True
    loss: LossCurve | None = None
    work_per_epoch: float = 0.0
    threshold: float = 0.0
    loss_noise: float = 0.0
    noise_seed: int = 0
    kind: ClassVar[str] = "optimus"
    work_unit: ClassVar[str] = "steps"
    work_known: ClassVar[bool] = False

    def __post_init__(self) -> None:
        if self.mode not in ("sync", "async"):
            raise ValueError(f"OptimusModel.mode must be 'sync' or 'async', got {self.mode!r}")
        _validate_fields(
            self,
            positive=("total_steps", "batch", "ps_bw", "worker_bw"),
            nonneg=("t_forward", "t_back", "model_size", "t_update", "delta", "delta_ps", "work_per_epoch",
                    "threshold", "loss_noise"),
        )
        seed = self.noise_seed
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"OptimusModel.noise_seed must be an int >= 0, got {self.noise_seed!r}")
        if self.loss is not None and not isinstance(self.loss, LossCurve):
            raise TypeError(f"OptimusModel.loss must be a LossCurve or None, got {type(self.loss).__name__}")
        if self.t_forward + self.t_back + self.t_update + self.delta + self.delta_ps <= 0:
            raise ValueError(
                "OptimusModel: t_forward, t_back, t_update, delta and delta_ps are all 0, so a step on "
                f"one server would take no time (t_forward={self.t_forward}, t_back={self.t_back})"
            )

    @property
    def total_work(self) -> float:
        return float(self.total_steps)

    def ps_for(self, workers: int) -> int:
        return workers

    def step_time(self, ps: int, workers: int, placement: Placement | None = None) -> float:
        """Seconds per step (per worker) for ``ps`` PS and ``workers`` workers."""
        p, w = ps, workers
        m = self.batch / w if self.mode == "sync" else self.batch
        share = self.model_size / p
        if self.placement_aware and placement is not None:
            srv = placement.servers
            transfer = 2.0 * max(
                max(
                    share * (w - placement.workers_on(k)) / self.ps_bw,
                    share * (p - placement.ps_on(k)) / self.worker_bw,
                )
                for k in srv
            )
        else:
            transfer = 2.0 * share * w / self.ps_bw
        return (
            m * self.t_forward
            + self.t_back
            + transfer
            + self.t_update * w / p
            + self.delta * w
            + self.delta_ps * p
        )

    def speed(self, ps: int, workers: int, placement: Placement | None = None) -> float:
        """Training speed f(p, w) in steps per second (ground truth)."""
        if ps <= 0 or workers <= 0:
            return 0.0
        per_step = self.step_time(ps, workers, placement)
        return (1.0 if self.mode == "sync" else workers) / per_step

    def rate(self, spec, placement, ctx) -> float:
        return self.speed(placement.n_ps, placement.n_workers, placement) * ctx.cluster.slot_seconds

    def observations(self, work_done: float) -> np.ndarray:
        """Observed loss per completed epoch, with the model's multiplicative noise."""
        clean = super().observations(work_done)
        if self.loss_noise == 0 or clean.size == 0:
            return clean
        z = np.random.default_rng(self.noise_seed).standard_normal(clean.size)
        return clean * np.maximum(1.0 + self.loss_noise * z, 0.05)


@dataclass(frozen=True)
class SpeconModel(JobModel):
    r"""SpeCon (Sec. V): one training container per job, time-sharing CPU on its node.

    The container asks for ``worker_demand[cpu_resource]`` cores. Only the fraction
    ``cpu_usable`` of a node's cores serves containers (SpeCon l. 406: CPU usage "tops at around
    80%" because Kubernetes reserves the rest; 1.0 = all cores). On a node whose containers ask
    for more than :math:`C^{use} = \text{cpu\_usable}\times C_{node}`, every container gets the
    same fraction :math:`\min(1, C^{use}/\sum\text{demand})` of its demand (proportional
    sharing; with identical demands :math:`d` this is the equal split :math:`C^{use}/n` when
    :math:`d = C^{use}`, and the water-filled cap :math:`\min(\kappa, C^{use}/n)` when
    :math:`d = \kappa`: spec ``specon.md`` section 3.3). :meth:`cores` returns that share.
    Progress is in core-seconds: cores :math:`\times` slot seconds. Moving the container to
    another node costs ``migration_pause`` seconds (save, transfer, resume; SpeCon Figs. 2-3).
    The CPU resource must be listed as compressible in the cluster.
    """

    work: float
    migration_pause: float = 0.0
    cpu_resource: str = "cpu"
    loss: LossCurve | None = None
    work_per_epoch: float = 0.0
    cpu_usable: float = 1.0
    kind: ClassVar[str] = "specon"
    work_unit: ClassVar[str] = "core-seconds"
    work_known: ClassVar[bool] = False
    needs_ps: ClassVar[bool] = False

    def __post_init__(self) -> None:
        _validate_fields(self, positive=("work", "cpu_usable"), nonneg=("migration_pause", "work_per_epoch"))
        if self.cpu_usable > 1:
            raise ValueError(f"SpeconModel.cpu_usable must be in (0, 1], got {self.cpu_usable!r}")
        if self.loss is not None and not isinstance(self.loss, LossCurve):
            raise TypeError(f"SpeconModel.loss must be a LossCurve or None, got {type(self.loss).__name__}")

    @property
    def total_work(self) -> float:
        return float(self.work)

    @property
    def max_workers(self) -> int:
        return 1

    def cores(self, spec, placement, ctx) -> float:
        """Cores the container gets on its node under ``ctx.load`` (0 when not placed)."""
        if placement.n_workers == 0:
            return 0.0
        ((s, _),) = placement.workers
        r = ctx.cluster.resource_index(self.cpu_resource)
        demand = spec.worker_demand.get(self.cpu_resource, 0.0)
        usable = self.cpu_usable * ctx.cluster.capacity[s, r]
        if usable <= 0:
            return 0.0
        load = ctx.load[s, r]
        share = 1.0 if load <= usable else usable / load
        return demand * share

    def rate(self, spec, placement, ctx) -> float:
        return self.cores(spec, placement, ctx) * ctx.cluster.slot_seconds

    def switch_pause(self, previous, new) -> float:
        if previous.is_empty or new.is_empty or previous.servers == new.servers:
            return 0.0
        return self.migration_pause


@dataclass(frozen=True)
class LinearModel(JobModel):
    """Trace replay: ``w`` workers do ``w`` worker-slots of work per slot.

    A Philly job with ``g`` GPUs that ran ``d`` seconds has ``work = g * d / slot_seconds`` and,
    when rigid (``min_workers == max_workers == g``, the default of the trace workloads), runs
    only as a gang of exactly ``g`` workers.
    """

    work: float
    min_gang: int = 1
    max_gang: int | None = None
    kind: ClassVar[str] = "linear"
    work_unit: ClassVar[str] = "worker-slots"
    needs_ps: ClassVar[bool] = False

    def __post_init__(self) -> None:
        _validate_fields(self, positive=("work",), ints=("min_gang",))
        if self.max_gang is not None:
            object.__setattr__(self, "max_gang", _int(self.max_gang, "LinearModel.max_gang", lo=1))
            if self.max_gang < self.min_gang:
                raise ValueError(f"LinearModel.max_gang={self.max_gang} < min_gang={self.min_gang}")

    @property
    def total_work(self) -> float:
        return float(self.work)

    @property
    def min_workers(self) -> int:
        return self.min_gang

    @property
    def max_workers(self) -> int | None:
        return self.max_gang

    @property
    def elastic(self) -> bool:
        return self.max_gang != self.min_gang

    def rate(self, spec, placement, ctx) -> float:
        return float(placement.n_workers)


MODELS: dict[str, type[JobModel]] = {
    m.kind: m for m in (OasisModel, PdorsModel, AOnlineModel, OptimusModel, SpeconModel, LinearModel)
}
"""Job-model classes by ``kind``."""


# ----------------------------------------------------------------------------------- job spec


def _demand(d, what: str) -> Mapping[str, float]:
    if not isinstance(d, Mapping):
        raise ValueError(f"{what} must be a mapping resource -> amount, got {d!r}")
    return MappingProxyType({str(r): _num(v, f"{what}[{r!r}]") for r, v in d.items()})


@dataclass(frozen=True)
class JobSpec:
    """One training job as submitted.

    Parameters
    ----------
    job_id : int
        Unique id >= 0; ties in every ordering are broken by it.
    arrival : int
        Arrival slot (>= 0); the job may run from this slot on.
    model : JobModel
        How allocation turns into progress.
    worker_demand, ps_demand : Mapping[str, float]
        Resources of one worker / one PS.
    utility : Sigmoid or ConstantUtility, default ConstantUtility(1)
        Utility of the duration ``completion_slot - arrival``.
    requested_workers : int, optional
        Worker count the user asked for (trace jobs' GPUs; FIFO's fixed count).
    name : str
        Free text (e.g. the model type).
    transfer_delay : Sequence[float], optional
        Per-server data-transfer delay in slots, overriding the cluster's.
    submit_time : float, optional
        Submission time in seconds (trace jobs); informational.
    """

    job_id: int
    arrival: int
    model: JobModel
    worker_demand: Mapping[str, float]
    ps_demand: Mapping[str, float] = field(default_factory=dict)
    utility: Sigmoid | ConstantUtility = field(default_factory=ConstantUtility)
    requested_workers: int | None = None
    name: str = ""
    transfer_delay: tuple[float, ...] | None = None
    submit_time: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "job_id", _int(self.job_id, "job_id"))
        j = self.job_id
        object.__setattr__(self, "arrival", _int(self.arrival, f"job {j}: arrival"))
        if not isinstance(self.model, JobModel):
            raise TypeError(f"job {j}: model must be a JobModel, got {type(self.model).__name__}")
        wd = _demand(self.worker_demand, f"job {j}: worker_demand")
        if not any(v > 0 for v in wd.values()):
            raise ValueError(f"job {j}: worker_demand must ask for some resource, got {dict(wd)}")
        pd_ = _demand(self.ps_demand, f"job {j}: ps_demand")
        if self.model.needs_ps and not any(v > 0 for v in pd_.values()):
            raise ValueError(
                f"job {j}: ps_demand must ask for some resource for a {self.model.kind} job, got {dict(pd_)}"
            )
        object.__setattr__(self, "worker_demand", wd)
        object.__setattr__(self, "ps_demand", pd_)
        if not isinstance(self.utility, (Sigmoid, ConstantUtility)) and not isinstance(self.utility, Utility):
            raise TypeError(f"job {j}: utility must be a Utility, got {type(self.utility).__name__}")
        if self.requested_workers is not None:
            rw = _int(self.requested_workers, f"job {j}: requested_workers", lo=1)
            mx = self.model.max_workers
            if mx is not None and rw > mx:
                raise ValueError(f"job {j}: requested_workers={rw} exceeds the model's max_workers={mx}")
            object.__setattr__(self, "requested_workers", rw)
        if self.transfer_delay is not None:
            object.__setattr__(
                self,
                "transfer_delay",
                tuple(_num(d, f"job {j}: transfer_delay[{i}]") for i, d in enumerate(self.transfer_delay)),
            )
        if self.submit_time is not None:
            object.__setattr__(self, "submit_time", _num(self.submit_time, f"job {j}: submit_time", lo=None))

    def delays(self, cluster: Cluster) -> np.ndarray:
        """Per-server data-transfer delay (slots) for this job on ``cluster``."""
        if self.transfer_delay is None:
            return cluster.transfer_delay
        if len(self.transfer_delay) != cluster.n_servers:
            raise ValueError(
                f"job {self.job_id}: transfer_delay has {len(self.transfer_delay)} "
                f"entries for {cluster.n_servers} servers"
            )
        return np.asarray(self.transfer_delay)

    @property
    def target(self) -> float:
        """Target duration of the utility (NaN if none)."""
        return float(getattr(self.utility, "target", math.nan))

    def to_row(self) -> dict[str, object]:
        """Flat dict for the instance table (demands, utility and model parameters)."""
        row: dict[str, object] = {
            "job_id": self.job_id,
            "name": self.name,
            "arrival": self.arrival,
            "submit_time": self.submit_time,
            "model": self.model.kind,
            "requested_workers": self.requested_workers,
            "total_work": self.model.total_work,
            "work_unit": self.model.work_unit,
            "utility": self.utility.kind,
        }
        for r, v in self.worker_demand.items():
            row[f"worker_{r}"] = v
        for r, v in self.ps_demand.items():
            row[f"ps_{r}"] = v
        for f in dataclasses.fields(self.utility):  # type: ignore[arg-type]
            row[f"utility_{f.name}"] = getattr(self.utility, f.name)
        for k, v in self.model.params().items():
            row[f"model_{k}"] = v
        return row


@dataclass(frozen=True)
class Workload:
    """A cluster, the jobs that will arrive, and an optional horizon (in slots).

    Validation: unique job ids, every demanded resource exists in the cluster, transfer-delay
    vectors match the number of servers, and each job can run at least with its minimum number
    of workers (and the PS they need) on an empty cluster.
    """

    cluster: Cluster
    jobs: tuple[JobSpec, ...]
    name: str = "custom"
    horizon: int | None = None
    params: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.cluster, Cluster):
            raise TypeError(f"workload.cluster must be a Cluster, got {type(self.cluster).__name__}")
        jobs = tuple(sorted(self.jobs, key=lambda s: (s.arrival, s.job_id)))
        ids = [s.job_id for s in jobs]
        if len(set(ids)) != len(ids):
            dup = sorted({i for i in ids if ids.count(i) > 1})
            raise ValueError(f"workload.jobs: duplicate job_id {dup[:5]}")
        if self.horizon is not None:
            object.__setattr__(self, "horizon", _int(self.horizon, "workload.horizon", lo=1))
        fits: dict[tuple, bool] = {}  # one packing test per demand class (82k trace jobs, few classes)
        for s in jobs:
            _check_fits(self.cluster, s, fits)
        object.__setattr__(self, "jobs", jobs)
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))

    @property
    def specs(self) -> dict[int, JobSpec]:
        """Jobs by id."""
        return {s.job_id: s for s in self.jobs}

    def jobs_frame(self):
        """Instance table: one row per job (see README glossary)."""
        import pandas as pd

        return pd.DataFrame([s.to_row() for s in self.jobs])


def _check_fits(cluster: Cluster, spec: JobSpec, memo: dict[tuple, bool] | None = None) -> None:
    """Raise if the job's minimum workers and the PS they need fit nowhere on the empty cluster.

    Tasks are placed one at a time, round robin (the baselines' placement), workers then PS and,
    if that fails, PS then workers; a job that fits neither way is rejected at construction.
    ``memo`` caches the answer per (worker demand, PS demand, workers, PS) on this cluster.
    """
    j = spec.job_id
    wd = cluster.vector(spec.worker_demand, f"job {j}: worker_demand")
    pd_ = cluster.vector(spec.ps_demand, f"job {j}: ps_demand")
    spec.delays(cluster)
    need_w = spec.model.min_workers
    need_p = spec.model.ps_for(need_w) if spec.model.needs_ps else 0
    key = (wd.tobytes(), pd_.tobytes(), int(need_w), int(need_p))
    if memo is not None and key in memo:
        fits = memo[key]
    else:
        fits = _fits_empty(cluster, wd, pd_, need_w, need_p)
        if memo is not None:
            memo[key] = fits
    if fits:
        return
    raise ValueError(
        f"job {j} can never run: {need_w} worker(s) of demand {dict(spec.worker_demand)}"
        + (f" and {need_p} PS of demand {dict(spec.ps_demand)}" if need_p else "")
        + " do not fit on the empty cluster"
    )


def _fits_empty(cluster: Cluster, wd: np.ndarray, pd_: np.ndarray, need_w: int, need_p: int) -> bool:
    for order in (("worker", "ps"), ("ps", "worker")):
        free = cluster.capacity.copy()
        ok = True
        for role in order:
            demand, count = (wd, need_w) if role == "worker" else (pd_, need_p)
            if not _round_robin_fill(cluster, free, demand, count, role):
                ok = False
                break
        if ok:
            return True
    return False


def _round_robin_fill(cluster: Cluster, free: np.ndarray, demand: np.ndarray, count: int, role: str) -> bool:
    servers = cluster.servers_for(role)
    hard = cluster.hard
    while count > 0:
        placed = False
        for s in servers:
            if count > 0 and np.all(free[s, hard] >= demand[hard] - 1e-9):
                free[s] -= demand
                count -= 1
                placed = True
        if not placed:
            return False
    return True

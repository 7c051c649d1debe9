r"""Optimus and Tetris as policies of the one protocol (Optimus Secs. 3-4 and 6.1).

Every scheduling interval (one simulator slot, 10 minutes in Sec. 6.1) :class:`Optimus`

1. updates its performance models of every active job (:class:`Estimates`, Sec. 3): the losses
   observed since the last interval go into the job's online Eq. (1) fit
   (:class:`~dlsched.optimus.fitting.OnlineLossFit`; the paper's Fig. 7 curve is the prior until
   three epochs are seen), the remaining work :math:`Q_j` follows from the job's convergence
   threshold; the speed model Eq. (3)/(4) is fitted by NNLS to 5 pre-run samples (Sec. 6.1:
   "we pre-run a job on a small dataset with 5 different combinations of (p, w)", measured with
   noise) and refitted with every interval's measured speed (Sec. 3.2: "keep adding runtime
   points");
2. allocates PS and workers by marginal gain (Eqs. (5)-(9), Sec. 4.1,
   :func:`~dlsched.optimus.allocation.allocate`);
3. places the tasks by Theorem 1's principle (Sec. 4.2,
   :func:`~dlsched.optimus.placement.place_allocation`); jobs that do not fit pause until the
   next interval.

Every job is admitted on arrival. A job whose single PS and single worker fit on no server of the
empty cluster can never run: it is rejected (``info["unplaceable"] = 1``) rather than left
waiting forever.

For the ablations of Figs. 18-19 the allocation and the placement step can be swapped:
``allocation="drf"`` (dominant-resource max-min fairness over the cluster's total capacity in
bundles of 1 PS + 1 worker, work-conserving, as the DRF baseline) and ``placement`` in
``"load_balance"`` (each task on the least-loaded server, the Kubernetes default of the DRF
baseline) or ``"best_fit"`` (each task on the fullest server it fits on, a packing placement like
Tetris's). Fig. 15's sensitivity study multiplies the estimates by :math:`1 \pm e` with an error
that decreases linearly with the job's estimated progress (``convergence_error``,
``speed_error``; the sign is drawn per job and interval from the policy's random stream).

Alternative readings (issue 22, notebook ``22_optimus_figures``, "Which reading restores the
claim"; every default is today's behaviour):

* ``error_draw="job"`` (:data:`ERROR_DRAWS`): the Fig. 15 error's sign is drawn once per job and
  kept (a biased estimate), instead of per job and interval (``"interval"``, default). Paper
  Sec. 6.3 / spec section 9: "inputs :math:`v(1 \pm e)` decreasing with progress" leaves open
  whether the sign persists; the magnitude still decreases with progress.
* ``oracle=True``: the *clairvoyant* Optimus of the readings' ceiling: :math:`Q_j` is the job's
  true remaining steps and :math:`f_j` its true speed function (the ground truth's
  :meth:`~dlsched.core.jobs.OptimusModel.speed` without a placement), so the allocation of
  Eqs. (5)-(9) sees no estimation error at all (spec sections 2-4: what Optimus would do with
  perfect models).
* Tetris ``colocate=False``: a bundle's PS and worker need not share a server
  (:func:`~dlsched.optimus.baselines.tetris_allocate`); with ``max_bundles`` (a per-job bundle
  cap) the two readings of the paper's under-specified Tetris (Sec. 6.1, "We set the ratio of
  the number of parameter servers to the number of workers to 1:1").

:class:`Tetris` (Grandl et al., SIGCOMM'14, as the paper configures it) gets the same estimates
and packs bundles of 1 PS + 1 worker with :func:`~dlsched.optimus.baselines.tetris_allocate`.
The DRF baseline is :class:`dlsched.baselines.drf.DRF` with ``placement="load_balance"``.

Floating point and ties (issue 19)
----------------------------------
Every discrete choice below compares computed floats with the tolerance of
:mod:`dlsched.core.numerics`: two values within ``REL_TOL`` (1e-9) of the larger magnitude plus
``ABS_TOL`` (0: no absolute floor) are equal, and equal candidates go to the documented key.
Capacity fit tests keep their absolute slack ``_EPS = 1e-9`` (sums of demands, integer-valued in
the workloads).

=================================================  ====================  ========================
decision (spec line)                               comparison            tie -> key
=================================================  ====================  ========================
Eq. (9) role of a job's next task (alloc. step 2)  ``g_ps`` vs ``g_w``   the PS
largest gain over jobs (alloc. steps 3/5)          max of ``g``          smaller job id
dominant resource ``D`` of Eq. (9)                 max share             smaller resource index
place: jobs by demand, ascending (Sec. 4.2 st. 2)  dominant share        smaller job id
place: servers by free ``sort_by``, desc. (st. 1)  free amount           smaller server index
DRF bundles (ablation): smallest dominant share    share                 earlier in ``jobs``
shrink: give back the task that costs less speed   ``f`` after removal   the worker
best_fit: server with least free ``sort_by``       free amount           smaller server index
Tetris: candidate's speed improves                 ``f(k+1) > f(k)``     not an improvement
Tetris: largest score                              score                 smaller job id
PAA line 4: ``size < eps * avg_size``              strict, tolerant      not "very small"
PAA lines 5/7/10: argmin requests/room/assigned    room, assigned        least assigned, index
convergence epoch (spec 2 [N]): ``ceil(t)``        ``t`` integer?        ``t + 1`` (equality)
remaining epochs ``ceil(e* + confirm - e_now)``    integer?              that integer
=================================================  ====================  ========================

Not tolerant on purpose: the allocation's stop test "gain <= 0" (step 6) stays exact -- a gain that
is 0 in exact arithmetic comes from identical speed-function denominators and is exactly 0.0, while
a tolerance would drop genuine small gains; the loss-fit optimiser's internal comparisons
(:func:`~dlsched.optimus.fitting.fit_loss_curve`) pick fit values, not schedule decisions, and an
``ABS_TOL`` would reject real improvements of near-zero residuals.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from dlsched.core import numerics
from dlsched.core.jobs import OptimusModel
from dlsched.core.placement import LoadBalance
from dlsched.core.policy import BasePolicy, ClusterView, JobView
from dlsched.core.schedule import Decision, Placement
from dlsched.optimus.allocation import GAIN_UNITS, STOP_RULES, AllocJob, allocate, speed_function
from dlsched.optimus.baselines import tetris_allocate
from dlsched.optimus.fitting import OnlineLossFit, _noisy_speeds, _positive, _SpeedSamples, remaining_epochs
from dlsched.optimus.placement import EXTRAS, _OneJobPlacer, place_allocation

_REL_TOL, _ABS_TOL = numerics.REL_TOL, numerics.ABS_TOL

_FEW_ROWS = 8  # _PolicySpeedSamples._rows: at most this many new rows are computed without numpy


class _PolicySpeedSamples(_SpeedSamples):
    """The policy's per-job speed samples (:class:`~dlsched.optimus.fitting._SpeedSamples`),
    with the NNLS rows of a few new samples (the usual case: one per interval) computed in plain
    Python floats: the same IEEE operations as :func:`~dlsched.optimus.fitting.speed_features`
    (``w / p``, ``M / w``) and the targets (``w / f``, ``1 / f``) on the validated sample
    columns, so the same rows, without numpy's per-call cost (issue 23). Kept here rather than in
    ``fitting.py``, which every arena point's code fingerprint includes (``curves.py``, used by
    SpeCon's model, imports it): this speed-up stales only the Optimus and Tetris points."""

    def _rows(self, start: int, mode: str, M) -> tuple[np.ndarray, np.ndarray]:
        if len(self.p) - start > _FEW_ROWS or (mode == "sync" and M is None):
            return super()._rows(start, mode, M)  # many rows, or the error of a missing M
        m = _positive(M, "M") if mode == "sync" else None
        rows, ys = [], []
        for p, w, f in zip(self.p[start:], self.w[start:], self.f[start:], strict=True):
            if mode == "async":
                rows.append((1.0, w / p, w, p))
                ys.append(w / f)
            else:
                rows.append((m / w, 1.0, w / p, w, p))
                ys.append(1.0 / f)
        return np.array(rows, dtype=float).reshape(len(rows), 4 if mode == "async" else 5), np.array(ys)


PRERUN_PAIRS: tuple[tuple[int, int], ...] = ((1, 1), (1, 2), (2, 2), (2, 4), (4, 4))
"""The 5 pre-run (p, w) configurations (Sec. 6.1); they identify Eq. (3) and Eq. (4)."""

ALLOCATIONS = ("optimus", "drf")
"""Valid ``allocation=`` values of :class:`Optimus`."""

PLACEMENTS = ("optimus", "load_balance", "best_fit")
"""Valid ``placement=`` values of :class:`Optimus`."""

UNPLACED = ("shrink", "pause")
"""Valid ``unplaced=`` values of :class:`Optimus`."""

ERROR_DRAWS = ("interval", "job")
"""Valid ``error_draw=`` values: the sign of Fig. 15's injected error is drawn per job and
interval (default) or once per job (a persistent, biased estimate)."""

FITS = ("full", "incremental")
"""Valid ``fit=`` values: how the speed model Eq. (3)/(4) is refitted each interval (Sec. 3.2):
NNLS on all sample rows (``"full"``, default, the historical schedules) or on a QR factor of
them updated with the new rows only (``"incremental"``, issue 23; same least-squares problem,
cost per refit independent of the job's age, not bit-identical)."""


def _real(value, what: str, lo: float = 0.0, hi: float = math.inf, lo_open: bool = False) -> float:
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    v = float(value) if ok else math.nan
    if not ok or not math.isfinite(v) or v < lo or (lo_open and v == lo) or v > hi:
        raise ValueError(f"{what} must be a number in {'(' if lo_open else '['}{lo}, {hi}], got {value!r}")
    return v


def _model(view: JobView) -> OptimusModel:
    model = view.spec.model
    if not isinstance(model, OptimusModel):
        raise TypeError(
            f"job {view.job_id}: the Optimus estimators need an OptimusModel job, got {type(model).__name__}"
        )
    return model


@dataclass
class _JobState:
    loss: OnlineLossFit
    samples: list[tuple[int, int, float]]
    n_obs: int = 0
    speed: object = None
    dirty: bool = True
    last_t: int | None = None
    last_work: float = 0.0
    last_counts: tuple[int, int] | None = None
    info: dict[str, float] = field(default_factory=dict)
    signs: tuple[float, float] | None = None  # error_draw="job": (convergence, speed) signs
    fitter: _SpeedSamples = field(default_factory=_PolicySpeedSamples)  # validated columns of samples
    speed_fn: object = None  # speed_function(*speed), built once per fit
    alloc: AllocJob | None = None  # the job's first AllocJob: its validated demands are reused


class Estimates:
    """Optimus's online performance models of every active job (Sec. 3).

    Parameters
    ----------
    prerun_noise : float, default 0.05
        Relative noise of the pre-run speed measurements.
    refit : bool, default True
        Refit the speed model with each interval's measured speed.
    convergence_error, speed_error : float, default 0
        Fig. 15: relative error injected into :math:`Q_j` / :math:`f_j`, decreasing linearly
        with estimated progress.
    min_loss_points : int, default 3
        Loss points before the Eq. (1) fit replaces the prior.
    error_draw : {"interval", "job"}, default "interval"
        When the sign of an injected error is drawn: per job and interval (Fig. 15 as we read
        it), or once per job, at its first estimate, and kept (a persistent bias; spec section
        9, Fig. 15 "inputs v(1 +- e)"). The magnitude decreases with progress either way.
    oracle : bool, default False
        Clairvoyant estimates (the readings' ceiling): the true remaining steps and the true
        speed function replace the fitted ones (spec sections 2-3 bypassed). Injected errors
        still apply on top.
    fit : {"full", "incremental"}, default "full"
        How the speed model is refitted (:data:`FITS`). ``"full"``: NNLS on the rows of all
        samples so far, :math:`O(\text{samples})` per refit (a job refits every interval it
        keeps its counts, so a job's refits cost :math:`O(\text{age}^2)` in total).
        ``"incremental"``: the same NNLS problem on the :math:`(c+1) \times (c+1)` QR factor of
        the augmented rows, updated with each new sample
        (:class:`~dlsched.optimus.fitting._SpeedSamples`); :math:`O(1)` per refit, coefficients
        equal up to rounding (so allocations may differ where a decision is close).

    Raises
    ------
    ValueError
        A parameter out of range (the message names it and its value).
    """

    def __init__(
        self,
        prerun_noise: float = 0.05,
        refit: bool = True,
        convergence_error: float = 0.0,
        speed_error: float = 0.0,
        min_loss_points: int = 3,
        error_draw: str = "interval",
        oracle: bool = False,
        fit: str = "full",
    ) -> None:
        if not isinstance(fit, str) or fit not in FITS:
            raise ValueError(f"fit must be one of {FITS}, got {fit!r}")
        self.fit = fit
        self.prerun_noise = _real(prerun_noise, "prerun_noise", 0.0, 1.0)
        self.refit = bool(refit)
        self.convergence_error = _real(convergence_error, "convergence_error", 0.0, 0.99)
        self.speed_error = _real(speed_error, "speed_error", 0.0, 0.99)
        if (
            isinstance(min_loss_points, bool)
            or not isinstance(min_loss_points, (int, np.integer))
            or min_loss_points < 3
        ):
            raise ValueError(f"min_loss_points must be an integer >= 3, got {min_loss_points!r}")
        self.min_loss_points = int(min_loss_points)
        if error_draw not in ERROR_DRAWS:
            raise ValueError(f"error_draw must be one of {ERROR_DRAWS}, got {error_draw!r}")
        self.error_draw = error_draw
        if not isinstance(oracle, (bool, np.bool_)):
            raise ValueError(f"oracle must be a bool, got {oracle!r}")
        self.oracle = bool(oracle)
        self._jobs: dict[int, _JobState] = {}
        self._rng = np.random.default_rng(0)

    def reset(self, rng: np.random.Generator) -> None:
        """Forget every job; use ``rng`` for pre-run noise and injected errors."""
        self._jobs = {}
        self._rng = rng

    def _state(self, view: JobView) -> _JobState:
        st = self._jobs.get(view.job_id)
        if st is None:
            model = _model(view)
            # sample_speeds(model, PRERUN_PAIRS, ...)["speed"]: the same draws, without a frame
            ps, ws = [p for p, _ in PRERUN_PAIRS], [w for _, w in PRERUN_PAIRS]
            pre = _noisy_speeds(model, ps, ws, self._rng, self.prerun_noise).tolist()
            st = _JobState(
                OnlineLossFit(min_points=self.min_loss_points), list(zip(ps, ws, pre, strict=True))
            )
            if self.fit == "incremental":
                st.fitter = _SpeedSamples(incremental=True)
            self._jobs[view.job_id] = st
        return st

    def forget(self, job_id: int) -> None:
        """Drop a job's models (finished or rejected)."""
        self._jobs.pop(job_id, None)

    def job(self, view: JobView, t: int, cluster) -> AllocJob:
        """Update the models of one job from its view and return it as the allocator sees it.

        Parameters
        ----------
        view : JobView
        t : int
            Current slot.
        cluster : Cluster

        Returns
        -------
        AllocJob
            Estimated remaining steps :math:`Q_j`, fitted speed :math:`f_j` (steps/s), demands.
        """
        slot_seconds = cluster.slot_seconds
        model = _model(view)
        st = self._state(view)
        obs = view.observations
        if obs.size > st.n_obs:
            st.loss.extend(range(st.n_obs + 1, obs.size + 1), obs[st.n_obs :].tolist())
            st.n_obs = int(obs.size)
        counts = (view.placement.n_ps, view.placement.n_workers)
        if (
            self.refit
            and st.last_t == t - 1
            and st.last_counts == counts
            and counts[1] > 0
            and view.work_done > st.last_work
        ):
            st.samples.append((counts[0], counts[1], (view.work_done - st.last_work) / slot_seconds))
            st.dirty = True
        if st.dirty:
            # (mode, theta, M) of fit_speed(st.samples, ...); only the new samples are validated
            st.speed = st.fitter.fit(st.samples, model.mode, model.batch if model.mode == "sync" else None)
            st.speed_fn = None
            st.dirty = False
        epoch_now = view.work_done / model.work_per_epoch if model.work_per_epoch > 0 else 0.0
        fit = st.loss.current()
        if model.threshold > 0 and model.work_per_epoch > 0:
            rem = float(remaining_epochs(fit, epoch_now, model.threshold))
            rem = max(rem, math.ceil(epoch_now + 1e-9) - epoch_now)  # at least finish this epoch
            q = rem * model.work_per_epoch
        else:  # no convergence rule: the job's declared total (e.g. a fixed number of steps)
            rem = math.nan
            q = max(model.total_steps - view.work_done, 1e-9)
        progress = epoch_now / (epoch_now + rem) if rem == rem and epoch_now + rem > 0 else 0.0
        mode, theta, M = st.speed
        if self.oracle:  # clairvoyant: the true remaining steps and progress
            q = max(float(model.total_steps) - view.work_done, 1e-9)
            progress = view.work_done / float(model.total_steps)
        q_factor, f_factor = 1.0, 1.0
        if self.error_draw == "job" and st.signs is None:
            st.signs = (
                float(self._rng.choice((-1.0, 1.0))) if self.convergence_error > 0 else 1.0,
                float(self._rng.choice((-1.0, 1.0))) if self.speed_error > 0 else 1.0,
            )
        if self.convergence_error > 0:
            sign = self._rng.choice((-1.0, 1.0)) if st.signs is None else st.signs[0]
            q_factor = 1.0 + sign * self.convergence_error * (1.0 - progress)
        if self.speed_error > 0:
            sign = self._rng.choice((-1.0, 1.0)) if st.signs is None else st.signs[1]
            f_factor = 1.0 + sign * self.speed_error * (1.0 - progress)
        if self.oracle:

            def f(p: int, w: int, _m=model) -> float:
                return _m.speed(p, w)

        else:
            if st.speed_fn is None:  # the closure is pure: keep it until the next refit
                st.speed_fn = speed_function(mode, theta, M)
            f = st.speed_fn
        if f_factor != 1.0:
            base = f

            def f(p: int, w: int, _b=base, _k=f_factor) -> float:
                return _b(p, w) * _k

        st.info = {
            "est_remaining_steps": q * q_factor,
            "est_progress": progress,
            "loss_fit_points": float(fit.n_points),
        }
        if st.alloc is None:  # a job's demands and the run's cluster do not change
            wd, pd_ = cluster.vector(view.spec.worker_demand), cluster.vector(view.spec.ps_demand)
            st.alloc = AllocJob(view.job_id, q * q_factor, f, wd, pd_)
            return st.alloc
        return st.alloc.with_estimates(q * q_factor, f)

    def record(self, t: int, views: dict[int, JobView], counts: dict[int, tuple[int, int]]) -> None:
        """Remember what each job got at slot ``t`` (to measure its speed next interval)."""
        for j, v in views.items():
            st = self._jobs.get(j)
            if st is not None:
                st.last_t = t
                st.last_work = v.work_done
                st.last_counts = counts.get(j)

    def info(self, job_id: int) -> dict[str, float]:
        """The latest estimates of a job (recorded in the result's job table)."""
        st = self._jobs.get(job_id)
        return dict(st.info) if st is not None else {}


def _fits_empty(cluster, spec) -> bool:
    """Whether one PS and one worker of ``spec`` fit on some server of the empty cluster (or
    a worker on one and the PS on another)."""
    wd, pd_ = cluster.vector(spec.worker_demand), cluster.vector(spec.ps_demand)
    cap = cluster.capacity[:, cluster.hard]
    w_ok = np.all(cap >= wd[cluster.hard] - 1e-9, axis=1)
    p_ok = np.all(cap >= pd_[cluster.hard] - 1e-9, axis=1)
    return bool(w_ok.any() and p_ok.any())


class _EstimatingPolicy(BasePolicy):
    """Shared plumbing of :class:`Optimus` and :class:`Tetris`: admission, estimates, bookkeeping."""

    def _setup(
        self,
        prerun_noise,
        refit,
        convergence_error,
        speed_error,
        min_loss_points,
        error_draw="interval",
        oracle=False,
        fit="full",
    ) -> None:
        self.prerun_noise = prerun_noise
        self.refit = refit
        self.convergence_error = convergence_error
        self.speed_error = speed_error
        self.min_loss_points = min_loss_points
        self.error_draw = error_draw
        self.oracle = oracle
        self._est = Estimates(
            prerun_noise, refit, convergence_error, speed_error, min_loss_points, error_draw, oracle, fit
        )

    def reset(self, cluster, rng) -> None:
        super().reset(cluster, rng)
        self._est.reset(rng)
        self._cpu = cluster.resource_index("cpu") if "cpu" in cluster.resources else 0
        self._known: set[int] = set()

    def _active(
        self, t: int, view: ClusterView
    ) -> tuple[list[int], list[int], list[AllocJob], dict[int, JobView]]:
        admit, reject, jobs, views = [], [], [], {}
        gone = self._known - set(view.jobs)
        for j in gone:
            self._est.forget(j)
        self._known = set(view.jobs)
        for v in view.jobs.values():
            if v.status == "pending":
                if not _fits_empty(view.cluster, v.spec):
                    reject.append(v.job_id)
                    continue
                admit.append(v.job_id)
            jobs.append(self._est.job(v, t, view.cluster))
            views[v.job_id] = v
        return admit, reject, jobs, views

    def _decision(self, t, admit, reject, views, placements: dict[int, Placement]) -> Decision:
        # A job placed exactly as it runs keeps its placement object: the simulator treats an
        # equal placement as unchanged either way, and with the same object it also keeps the
        # job's rate and its servers' usage rows instead of recomputing them.
        for j, p in placements.items():
            cur = views[j].placement
            if cur is not p and cur == p:
                placements[j] = cur
        counts = {j: (p.n_ps, p.n_workers) for j, p in placements.items()}
        self._est.record(t, views, counts)
        info = {j: self._est.info(j) for j in views}
        for j in reject:
            info[j] = {"unplaceable": 1.0}
        return Decision(placements, admit=admit, reject=reject, wakeup=t + 1 if views else None, info=info)


class Optimus(_EstimatingPolicy):
    """Optimus (Peng et al., EuroSys'18): estimate, allocate by marginal gain, place, every interval.

    Parameters
    ----------
    allocation : {"optimus", "drf"}, default "optimus"
        Eqs. (5)-(9) marginal gain, or DRF bundles (ablation, Fig. 18).
    placement : {"optimus", "load_balance", "best_fit"}, default "optimus"
        Theorem 1's placement (Sec. 4.2), or a task-by-task alternative (ablation, Fig. 19).
    priority : float, default 1
        Priority factor :math:`\\pi` of jobs in their initial phase (the paper: 1; suggests 0.95).
    initial_epochs : int, default 3
        Epochs a job counts as "initial" for ``priority`` (while its loss fit still uses the
        prior when the default 3 points are needed).
    stop_rule : {"literal", "skip"}, default "literal"
        :func:`~dlsched.optimus.allocation.allocate`'s stop rule.
    unplaced : {"shrink", "pause"}, default "shrink"
        What happens to a job whose allocation finds no even split (Sec. 4.2 step 7). The paper
        pauses it until the next interval; but the allocation only looks at the cluster's total
        capacity, so on a heterogeneous cluster the same unplaceable allocation comes back every
        interval and the job starves (we saw a lone job wait forever on the testbed cluster). With
        ``"shrink"`` (our default, a documented deviation) the job gives back one task at a time,
        the one whose removal slows its estimated speed least, and is placed on what is left as
        soon as it fits (down to 1 PS + 1 worker); ``"pause"`` is the literal rule. The same
        fallback applies to the ``"load_balance"`` and ``"best_fit"`` placements.
    gain_unit : {"share", "amount"}, default "share"
        Divisor of the marginal gain (9).
    extras : {"either", "aligned", "staggered", "all"}, default "either"
        Which even splits ``placement="optimus"`` tries on the first ``k`` servers
        (:func:`~dlsched.optimus.placement.place`, module docstring step 3; also used by the
        ``"shrink"`` fallback). ``"either"`` (default, the historical schedules): two layouts,
        extras aligned, then staggered. ``"all"``: then any other even split on those servers,
        Sec. 4.2's "the same number of PS and the same number of workers on each of these
        servers" read literally (spec section 5); a job may then be placed on fewer servers, or
        placed where the two layouts leave it unplaced.
    prerun_noise, refit, convergence_error, speed_error, min_loss_points, error_draw, oracle
        See :class:`Estimates` (``error_draw`` and ``oracle``: readings of issue 22, module
        docstring).
    fit : {"full", "incremental"}, default "full"
        How the speed model is refitted each interval (:data:`FITS`, :class:`Estimates`):
        ``"incremental"`` is an option of issue 23 (trace scale), not a reading of the paper; its
        measured effect on the schedules is in ``benchmarks/bench_optimus_scale.py``.

    Raises
    ------
    ValueError
        A parameter out of range (the message names it and its value).
    """

    name: ClassVar[str] = "optimus"

    def __init__(
        self,
        allocation: str = "optimus",
        placement: str = "optimus",
        priority: float = 1.0,
        initial_epochs: int = 3,
        stop_rule: str = "literal",
        gain_unit: str = "share",
        unplaced: str = "shrink",
        extras: str = "either",
        prerun_noise: float = 0.05,
        refit: bool = True,
        convergence_error: float = 0.0,
        speed_error: float = 0.0,
        min_loss_points: int = 3,
        error_draw: str = "interval",
        oracle: bool = False,
        fit: str = "full",
    ) -> None:
        if not isinstance(fit, str) or fit not in FITS:
            raise ValueError(f"optimus.fit must be one of {FITS}, got {fit!r}")
        self.fit = fit
        if unplaced not in UNPLACED:
            raise ValueError(f"optimus.unplaced must be one of {UNPLACED}, got {unplaced!r}")
        self.unplaced = unplaced
        if extras not in EXTRAS:
            raise ValueError(f"optimus.extras must be one of {EXTRAS}, got {extras!r}")
        self.extras = extras
        if allocation not in ALLOCATIONS:
            raise ValueError(f"optimus.allocation must be one of {ALLOCATIONS}, got {allocation!r}")
        if placement not in PLACEMENTS:
            raise ValueError(f"optimus.placement must be one of {PLACEMENTS}, got {placement!r}")
        if stop_rule not in STOP_RULES:
            raise ValueError(f"optimus.stop_rule must be one of {STOP_RULES}, got {stop_rule!r}")
        if gain_unit not in GAIN_UNITS:
            raise ValueError(f"optimus.gain_unit must be one of {GAIN_UNITS}, got {gain_unit!r}")
        if (
            isinstance(initial_epochs, bool)
            or not isinstance(initial_epochs, (int, np.integer))
            or initial_epochs < 0
        ):
            raise ValueError(f"optimus.initial_epochs must be an integer >= 0, got {initial_epochs!r}")
        self.allocation = allocation
        self.placement = placement
        self.priority = _real(priority, "optimus.priority", 0.0, 1e6, lo_open=True)
        self.initial_epochs = int(initial_epochs)
        self.stop_rule = stop_rule
        self.gain_unit = gain_unit
        self._setup(
            prerun_noise, refit, convergence_error, speed_error, min_loss_points, error_draw, oracle, fit
        )

    def decide(self, t: int, view: ClusterView) -> Decision:
        admit, reject, jobs, views = self._active(t, view)
        cluster = view.cluster
        total = cluster.total_capacity()
        if self.allocation == "optimus":
            prio = None
            if self.priority != 1.0:
                prio = {
                    j: self.priority for j, v in views.items() if v.observations.size < self.initial_epochs
                }
            counts = allocate(
                jobs,
                total,
                cluster.resources,
                priority=prio,
                stop_rule=self.stop_rule,
                gain_unit=self.gain_unit,
            )
        else:
            counts = drf_bundles(jobs, total)
        placements = self._place(jobs, counts, cluster)
        return self._decision(t, admit, reject, views, placements)

    def _place(
        self, jobs: list[AllocJob], counts: dict[int, tuple[int, int]], cluster
    ) -> dict[int, Placement]:
        free = cluster.capacity.copy()
        if self.placement == "optimus":
            res = place_allocation(
                jobs, counts, free, sort_by=self._cpu, hard=cluster.hard, extras=self.extras
            )
            out = dict(res.placements)
            if self.unplaced == "shrink" and res.unplaced:
                by_id = {job.job_id: job for job in jobs}
                free = res.free.copy()
                for j in res.unplaced:
                    got = shrink_and_place(
                        by_id[j], counts[j], free, sort_by=self._cpu, hard=cluster.hard, extras=self.extras
                    )
                    if got is not None:
                        out[j] = got
            return out
        out: dict[int, Placement] = {}
        placer = LoadBalance(cluster) if self.placement == "load_balance" else None

        def task_by_task(job: AllocJob, p: int, w: int, free: np.ndarray) -> Placement | None:
            snapshot = free.copy()
            if placer is not None:
                wk = placer.place(free, job.worker_demand, w, "worker")
                ps = placer.place(free, job.ps_demand, p, "ps") if wk is not None else None
            else:
                wk = best_fit(free, job.worker_demand, w, cluster.hard, self._cpu)
                ps = best_fit(free, job.ps_demand, p, cluster.hard, self._cpu) if wk is not None else None
            if wk is None or ps is None:
                free[:] = snapshot
                return None
            return Placement.of(wk, ps)

        for job in jobs:  # arrival order
            if job.job_id not in counts:
                continue
            p, w = counts[job.job_id]
            if self.unplaced == "shrink":
                got = shrink(job, (p, w), lambda pp, ww, _j=job: task_by_task(_j, pp, ww, free))
            else:
                got = task_by_task(job, p, w, free)
            if got is not None:
                out[job.job_id] = got
        return out


class Tetris(_EstimatingPolicy):
    """Tetris with Optimus's estimates and PS:worker = 1:1 (the paper's second baseline).

    Parameters
    ----------
    srtf_weight : float, default 1
        Weight of the shortest-remaining-work term against the packing alignment
        (:func:`~dlsched.optimus.baselines.tetris_allocate`).
    max_bundles : int, optional
        Cap on bundles (1 PS + 1 worker) per job (None: no cap, the default; a reading of the
        paper's unstated Tetris configuration, Sec. 6.1).
    colocate : bool, default True
        Whether a bundle's PS and worker must share a server
        (:func:`~dlsched.optimus.baselines.tetris_allocate`; ``False`` is a reading of Sec. 6.1,
        which fixes only the 1:1 ratio).
    prerun_noise, refit, convergence_error, speed_error, min_loss_points, error_draw, oracle
        See :class:`Estimates`.

    Raises
    ------
    ValueError
        A parameter out of range (the message names it and its value).
    """

    name: ClassVar[str] = "tetris"

    def __init__(
        self,
        srtf_weight: float = 1.0,
        max_bundles: int | None = None,
        prerun_noise: float = 0.05,
        refit: bool = True,
        convergence_error: float = 0.0,
        speed_error: float = 0.0,
        min_loss_points: int = 3,
        colocate: bool = True,
        error_draw: str = "interval",
        oracle: bool = False,
    ) -> None:
        self.srtf_weight = _real(srtf_weight, "tetris.srtf_weight", 0.0)
        if max_bundles is not None and (
            isinstance(max_bundles, bool) or not isinstance(max_bundles, (int, np.integer)) or max_bundles < 1
        ):
            raise ValueError(f"tetris.max_bundles must be an integer >= 1 or None, got {max_bundles!r}")
        self.max_bundles = max_bundles
        if not isinstance(colocate, (bool, np.bool_)):
            raise ValueError(f"tetris.colocate must be a bool, got {colocate!r}")
        self.colocate = bool(colocate)
        self._setup(prerun_noise, refit, convergence_error, speed_error, min_loss_points, error_draw, oracle)

    def decide(self, t: int, view: ClusterView) -> Decision:
        admit, reject, jobs, views = self._active(t, view)
        cluster = view.cluster
        res = tetris_allocate(
            jobs,
            cluster.capacity,
            cluster.capacity,
            srtf_weight=self.srtf_weight,
            max_bundles=self.max_bundles,
            hard=cluster.hard,
            colocate=self.colocate,
        )
        return self._decision(t, admit, reject, views, dict(res.placements))


def drf_bundles(jobs: list[AllocJob], capacity: np.ndarray) -> dict[int, tuple[int, int]]:
    """DRF over the cluster's total capacity in bundles of 1 PS + 1 worker (work-conserving).

    Progressive filling: the job with the smallest dominant share (ties: earlier in ``jobs``)
    gets one more bundle while one fits in the capacity left; a job whose next bundle does not
    fit stops growing.

    Parameters
    ----------
    jobs : list[AllocJob]
        Active jobs in arrival order.
    capacity : numpy.ndarray
        Total capacity per resource.

    Returns
    -------
    dict[int, tuple[int, int]]
        ``job_id -> (ps, workers)`` with ps = workers >= 1, for jobs that got a bundle.
    """
    import heapq

    cap = np.asarray(capacity, dtype=float)
    left = cap.copy()
    inv = np.where(cap > 0, 1.0 / np.where(cap > 0, cap, 1.0), 0.0)
    heap = [(0.0, i) for i in range(len(jobs))]
    heapq.heapify(heap)
    bundles = [0] * len(jobs)
    while heap:
        # smallest dominant share with numerics tolerance (REL_TOL of the share + ABS_TOL); ties ->
        # earlier in jobs. Only entries whose parents qualify can qualify: check the root's children.
        thr = heap[0][0]
        thr += numerics.tolerance(thr, thr)
        if (len(heap) > 1 and heap[1][0] <= thr) or (len(heap) > 2 and heap[2][0] <= thr):
            near = []
            while heap and heap[0][0] <= thr:
                near.append(heapq.heappop(heap))
            entry = min(near, key=lambda e: e[1])
            for e in near:
                if e is not entry:
                    heapq.heappush(heap, e)
            i = entry[1]
        else:
            _, i = heapq.heappop(heap)
        job = jobs[i]
        need = job.worker_demand + job.ps_demand
        cap_j = min(c for c in (job.max_ps, job.max_workers, math.inf) if c is not None)
        if bundles[i] + 1 > cap_j or np.any(need > left + 1e-9):
            continue
        left -= need
        bundles[i] += 1
        heapq.heappush(heap, (float(np.max(bundles[i] * need * inv)), i))
    return {jobs[i].job_id: (b, b) for i, b in enumerate(bundles) if b > 0}


def shrink(
    job: AllocJob, counts: tuple[int, int], try_place: Callable[[int, int], Placement | None]
) -> Placement | None:
    """Call ``try_place(p, w)`` from ``counts`` = (ps, workers) down, giving back tasks until it fits.

    While ``try_place`` returns None, remove one PS or one worker, whichever lowers the estimated
    speed :math:`f_j` less (ties: the worker), never below 1 of each.

    Returns
    -------
    Placement or None
        The first placement found; None if even 1 PS + 1 worker do not fit.
    """
    p, w = counts
    while True:
        got = try_place(p, w)
        if got is not None:
            return got
        nxt = _shrink_step(job, p, w)
        if nxt is None:
            return None
        p, w = nxt


def _shrink_step(job: AllocJob, p: int, w: int) -> tuple[int, int] | None:
    """The counts :func:`shrink` tries after ``(p, w)``; None after 1 PS + 1 worker."""
    if p <= 1 and w <= 1:
        return None
    # the option of the higher speed; speeds equal within the numerics tolerance tie -> the worker
    if w > 1 and p > 1:
        f_w, f_p = float(job.speed(p, w - 1)), float(job.speed(p - 1, w))
        # numerics.greater(f_p, f_w) on two floats, inlined (this runs once per count a shrink
        # walks): f_p > f_w by more than REL_TOL * max(|f_p|, |f_w|) (0 if infinite) + ABS_TOL
        if f_p > f_w:
            m = max(abs(f_p), abs(f_w))
            if f_p - f_w > _REL_TOL * (m if m != math.inf else 0.0) + _ABS_TOL:
                return p - 1, w
        return p, w - 1
    if w > 1:
        return p, w - 1
    return p - 1, w


def shrink_and_place(
    job: AllocJob,
    counts: tuple[int, int],
    free: np.ndarray,
    *,
    sort_by: int,
    hard: np.ndarray,
    extras: str = "either",
) -> Placement | None:
    """Place ``job`` with Theorem 1's rule on ``free``, giving back tasks until it fits.

    :func:`shrink` with :func:`~dlsched.optimus.placement.place` (even split on the fewest
    servers; ``extras`` as there). ``free`` is updated in place when the job is placed.

    The retries are screened in batches: along :func:`shrink`'s path of counts (the same
    speed comparisons), :meth:`~dlsched.optimus.placement._OneJobPlacer.may_fit` marks with one
    numpy test the counts for which the placement step could not even try a layout (not enough
    free resources in total, or no ``k`` whose first ``k`` servers hold the base share and the
    total) and, unless ``extras="all"``, those for which no layout the step tries fits (the
    same tests on every ``k`` at once: the screen is exact, so only the count that fits is
    attempted; on the whole Philly trace the failed attempts were half of Optimus's time);
    only the others are attempted, in path order. Before the screen, each chunk of the path
    skips by bisection the counts that fail the screen's monotone part
    (:meth:`~dlsched.optimus.placement._OneJobPlacer.first_possible`: once a count passes it, every
    later count on the path does; on Philly jobs 75,000-76,500 it skipped 204,769 counts and the
    screen evaluated 84,209). Every count skipped is one whose
    attempt would have returned None without changing anything, so the result and ``free`` are
    those of :func:`shrink` with one attempt per count (issue 23, first 40 Philly jobs: 935 shrinks
    walked 116,844 counts, a job asking for 1,300-2,000 tasks often 1,100-1,500 of them, and
    about five in six counts fail that screen).

    Returns
    -------
    Placement or None
        None if even 1 PS + 1 worker do not fit.
    """

    # place([PlaceJob(job.job_id, p, w, ...)], free, ...) per attempt, with the server order built
    # once (a failed attempt leaves ``free`` unchanged); ``free[:] = res.free`` on success
    placer = _OneJobPlacer(free, sort_by, hard, extras)
    p, w = counts
    got = placer.attempt(job.job_id, p, w, job.ps_demand, job.worker_demand)
    if got is not None:
        return got
    chunk = 16
    nxt = _shrink_step(job, p, w)
    while nxt is not None:
        path = []
        while nxt is not None and len(path) < chunk:
            path.append(nxt)
            nxt = _shrink_step(job, *nxt)
        # the counts before the first that passes the monotone part of the screen cannot fit
        start = placer.first_possible([c[0] for c in path], [c[1] for c in path])
        while start < len(path):  # blocks of 16 counts, stopping at the first that fits
            rest = path[start:]
            ok = placer.may_fit([c[0] for c in rest], [c[1] for c in rest], block=16)
            for i in np.flatnonzero(ok).tolist():
                p, w = rest[i]
                got = placer.attempt(job.job_id, p, w, job.ps_demand, job.worker_demand)
                if got is not None:
                    return got
            start += placer.evaluated
        chunk = min(4 * chunk, 1024)
    return None


def best_fit(
    free: np.ndarray, demand: np.ndarray, count: int, hard: np.ndarray, sort_by: int
) -> dict[int, int] | None:
    """Place ``count`` tasks one by one, each on the server with the least free ``sort_by``
    resource that still fits it (ties: lower index); updates ``free``; None if one does not fit."""
    out: dict[int, int] = {}
    for _ in range(count):
        ok = np.all(free[:, hard] >= demand[hard] - 1e-9, axis=1)
        if not ok.any():
            return None
        # least free sort_by with numerics tolerance (numerics.argmin); ties -> lower server index
        s = numerics.argmin(np.where(ok, free[:, sort_by], np.inf))
        free[s] -= demand
        out[s] = out.get(s, 0) + 1
    return out


__all__ = [
    "ALLOCATIONS",
    "ERROR_DRAWS",
    "FITS",
    "PLACEMENTS",
    "PRERUN_PAIRS",
    "UNPLACED",
    "Estimates",
    "Optimus",
    "Tetris",
    "best_fit",
    "drf_bundles",
    "shrink_and_place",
]

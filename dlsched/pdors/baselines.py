r"""PD-ORS's OASiS baseline: OASiS on the same machines, split into worker and PS machines.

M. Yu, J. Liu, C. Wu, B. Ji, E. S. Bentley, "Toward Efficient Online Scheduling for Distributed
Machine Learning Systems", IEEE TNSE 2021, arXiv:2108.02917; Sec. "Numerical results", baseline
OASiS ("workers and PSs strictly on separate machines"), Figs. 8-9; ``shared/spec/pdors.md``
section 8.

PD-ORS has one pool of machines (pool ``"unified"``) and :class:`~dlsched.core.jobs.PdorsModel`
jobs; OASiS (:class:`dlsched.oasis.policy.OASiS`, Algorithms 1-2 with the true price parameters
(23)-(26)) needs a two-pool cluster and :class:`~dlsched.core.jobs.OasisModel` jobs.
:class:`OasisSplit` runs the unmodified OASiS on a translated instance and returns its placements,
which are valid on the real cluster because the split keeps every server's index.

**Machine split** (:func:`split_cluster`; [N]: the paper gives no rule, ours). ``split="half"``:
the first :math:`\lceil H/2\rceil` machines (by index) host workers, the others host PS (OASiS's
own evaluation splits proportionally, 50/50); a float ``x`` in (0, 1) gives
:math:`\lfloor xH + 1/2\rfloor` worker machines, clipped to ``1 .. H-1``. Names, capacities,
transfer delays, resources, compressible resources and the slot length are kept; only the pool
changes.

**Job translation** (:func:`to_oasis_job`; ours). After the split a worker and a PS never share a
machine, so the PD-ORS rate always uses :math:`b^{(e)}`:

============================  ============================================  ================================
OASiS (``OasisModel``)        from PD-ORS (``PdorsModel``)                  why
============================  ============================================  ================================
mini-batch                    one sample                                    work unit of both models
:math:`N_i` ``chunks``        :math:`F_i` ``batch``                         at most :math:`F_i` workers, (4)
:math:`M_i` ``minibatches``   :math:`\lceil K_i/F_i\rceil`                  :math:`N_iM_i \ge K_i`
:math:`E_i` ``epochs``        :math:`E_i` ``epochs``
:math:`\tau_i` ``tau``        :math:`\tau_i` ``tau`` (slots per sample)
:math:`e_i/b_i` ``comm``      :math:`\gamma_i\,\mathrm{sync}^{(e)}/(2F_i)`  per-sample time at ratio gamma
:math:`b_i` ``worker_bw``     1                                             PS count
:math:`B_i` ``ps_bw``         :math:`\gamma_i` ``ratio``                    :math:`\lceil y/\gamma_i\rceil` PS
everything else               unchanged                                     id, arrival, demands, utility
============================  ============================================  ================================

Why it is exact enough: OASiS deploys ``y`` workers and :math:`z=\lceil y b_i/B_i\rceil =
\lceil y/\gamma_i\rceil` PS (Alg. 2 lines 35-37), so :math:`y \le \gamma_i z` (PD-ORS's ratio
constraint) and :math:`z \le y`; it plans :math:`y/(\tau_i+\gamma_i\,\mathrm{sync}^{(e)}/F_i)`
samples per slot, while the PD-ORS model progresses
:math:`y/(\tau_i+(y/z)\,\mathrm{sync}^{(e)}/F_i) \ge` that, since :math:`y/z\le\gamma_i`. The
planned work :math:`E_iN_iM_i = E_iF_i\lceil K_i/F_i\rceil` rounds the real :math:`E_iK_i`
samples up by less than :math:`F_i` samples per epoch. So every admitted job finishes no later
than OASiS's planned completion slot :math:`\hat t_i` (earlier when rounding or ``y/z < gamma``
leaves slack; OASiS does not reuse the slack, its plan is irrevocable).

A granularity limit of OASiS that the translation inherits: Algorithm 2 cannot split one
chunk-pass (:math:`M_i(\tau_i+2e_i/b_i)` worker-slots) across slots, so a job with
:math:`\lceil K_i/F_i\rceil(\tau_i+\gamma_i\,\mathrm{sync}^{(e)}/F_i) > F_i` can never be scheduled
and is rejected (zero utility), as OASiS jobs with long chunks are in its own evaluation. It is
rare in the paper's ranges (:func:`dlsched.pdors.model.pdors_workload`, 50 jobs, seeds 0-9: 17 of
500 jobs); cutting each epoch into more, shorter OASiS epochs would avoid it but changes the
job's chunk structure, so we do not.

Jobs whose minimum deployment (one worker, one PS) fits on no pair of machines of the split
cluster are rejected on arrival without asking OASiS (payoff ``-inf``); they are left out of the
price parameters (23)-(26), which OASiS computes from the translated workload.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from typing import ClassVar

import numpy as np

from dlsched.core.cluster import Cluster, Server
from dlsched.core.jobs import JobSpec, OasisModel, PdorsModel, Workload
from dlsched.core.policy import BasePolicy, ClusterView
from dlsched.core.schedule import Decision

__all__ = ["OasisSplit", "split_cluster", "to_oasis_job", "n_worker_machines"]


def n_worker_machines(n_servers: int, split: str | float = "half") -> int:
    """Number of worker machines of a split of ``n_servers`` machines.

    Parameters
    ----------
    n_servers : int
        Machines in the cluster (at least 2).
    split : "half" or float
        ``"half"``: :math:`\\lceil H/2\\rceil`; a float in (0, 1): ``split * H`` rounded half up
        (so 0.5 equals ``"half"``), clipped to ``1 .. H - 1`` (at least one machine on each side).

    Returns
    -------
    int

    Raises
    ------
    ValueError
        If ``split`` is neither ``"half"`` nor a finite number strictly between 0 and 1, or the
        cluster has fewer than 2 machines.
    """
    _check_split(split)
    if n_servers < 2:
        raise ValueError(
            f"oasis_split needs at least 2 machines (one for workers, one for PS), got {n_servers}"
        )
    if split == "half":
        return (n_servers + 1) // 2
    return min(n_servers - 1, max(1, math.floor(float(split) * n_servers + 0.5)))


def _check_split(split) -> None:
    if isinstance(split, str):
        if split != "half":
            raise ValueError(f"oasis_split.split must be 'half' or a number in (0, 1), got {split!r}")
        return
    bad = isinstance(split, bool) or not isinstance(split, numbers.Real)
    if bad or not math.isfinite(float(split)) or not 0.0 < float(split) < 1.0:
        raise ValueError(f"oasis_split.split must be 'half' or a number in (0, 1), got {split!r}")


def split_cluster(cluster: Cluster, split: str | float = "half") -> Cluster:
    """The same machines as a two-pool OASiS cluster: workers first, then PS.

    Parameters
    ----------
    cluster : Cluster
        PD-ORS's cluster (any pools; typically all ``"unified"``).
    split : "half" or float, default "half"
        Worker share, see :func:`n_worker_machines`.

    Returns
    -------
    Cluster
        Servers ``0 .. h-1`` in pool ``"worker"``, ``h .. H-1`` in pool ``"ps"``, with the same
        order, names, capacities and transfer delays; the same ``resources``, ``compressible``
        and ``slot_seconds``. Server indices therefore mean the same machine in both clusters.

    Raises
    ------
    ValueError
        On a bad ``split`` (message names ``oasis_split.split``) or a one-machine cluster.
    """
    if not isinstance(cluster, Cluster):
        raise TypeError(f"split_cluster needs a Cluster, got {type(cluster).__name__}")
    h = n_worker_machines(cluster.n_servers, split)
    servers = tuple(
        Server(s.name, "worker" if i < h else "ps", dict(s.capacity), transfer_delay=s.transfer_delay)
        for i, s in enumerate(cluster.servers)
    )
    return Cluster(
        servers,
        resources=cluster.resources,
        compressible=cluster.compressible,
        slot_seconds=cluster.slot_seconds,
    )


def to_oasis_job(spec: JobSpec) -> JobSpec:
    r"""Translate a PD-ORS job into the OASiS job whose plan the PD-ORS model meets or beats.

    Parameters
    ----------
    spec : JobSpec
        A job with a :class:`~dlsched.core.jobs.PdorsModel`.

    Returns
    -------
    JobSpec
        The same job (id, arrival, demands, utility, requested workers, name, transfer delays,
        submit time) with an :class:`~dlsched.core.jobs.OasisModel`: one mini-batch = one sample,
        ``chunks`` = :math:`F_i`, ``minibatches`` = :math:`\lceil K_i/F_i\rceil` (rounds the
        work up by less than :math:`F_i` samples per epoch), ``epochs`` = :math:`E_i`, ``tau`` =
        :math:`\tau_i`, ``comm`` = :math:`\gamma_i\,\mathrm{sync}^{(e)}/(2F_i)`, ``worker_bw`` =
        1, ``ps_bw`` = :math:`\gamma_i` (see the module docstring).

    Raises
    ------
    ValueError
        If the job's model is not a ``PdorsModel``.
    """
    m = spec.model
    if not isinstance(m, PdorsModel):
        raise ValueError(f"job {spec.job_id}: oasis_split needs a PdorsModel job, got {m.kind!r}")
    model = OasisModel(
        epochs=m.epochs,
        chunks=m.batch,
        minibatches=-(-m.samples // m.batch),
        tau=m.tau,
        comm=m.ratio * m.sync_external / (2.0 * m.batch),
        worker_bw=1.0,
        ps_bw=m.ratio,
    )
    return dataclasses.replace(spec, model=model)


def _fits(cluster: Cluster, spec: JobSpec) -> bool:
    try:
        Workload(cluster, (spec,))
    except ValueError:
        return False
    return True


class OasisSplit(BasePolicy):
    """OASiS (Algorithms 1-2, true price parameters) on the machines split into worker and PS
    machines, for PD-ORS workloads (see the module docstring).

    Parameters
    ----------
    split : "half" or float, default "half"
        Worker machines: ``"half"`` = the first :math:`\\lceil H/2\\rceil` machines by index; a
        float in (0, 1) = that share of the machines, rounded, at least one on each side
        (:func:`n_worker_machines`). Ours: the paper gives no rule.
    u_scale : float, default 1
        Passed to OASiS (multiplies the ``U`` estimates).
    max_log_ratio : float or None, default None
        Passed to OASiS (**not in the paper**; caps :math:`\\ln(U/L)`); None keeps (23)-(26).
    method : {"auto", "exact", "frontier"}, default "auto"
        Passed to OASiS (how DP_COST is evaluated).

    Attributes
    ----------
    inner : OASiS or None
        The OASiS instance (None until :meth:`from_workload` built it, or when no job fits).
    split_cluster : Cluster
        The two-pool cluster OASiS sees (after :meth:`reset`).
    workload : Workload or None
        The translated workload OASiS's price parameters come from.

    Notes
    -----
    Build it with :meth:`from_workload` (what :func:`dlsched.registry.make_policy` does when given
    the workload): OASiS's price parameters need the job population. The job table gets OASiS's
    ``payoff`` and ``planned_completion`` (:math:`\\hat t_i`) per job.
    """

    name: ClassVar[str] = "oasis_split"

    def __init__(
        self,
        split: str | float = "half",
        u_scale: float = 1.0,
        max_log_ratio: float | None = None,
        method: str = "auto",
    ):
        _check_split(split)
        if isinstance(u_scale, bool) or not isinstance(u_scale, numbers.Real) or not (
            math.isfinite(u_scale) and u_scale > 0
        ):
            raise ValueError(f"oasis_split.u_scale must be a finite number > 0, got {u_scale!r}")
        if max_log_ratio is not None and (
            isinstance(max_log_ratio, bool) or not isinstance(max_log_ratio, numbers.Real)
            or not math.isfinite(max_log_ratio) or max_log_ratio <= 0
        ):
            raise ValueError(
                f"oasis_split.max_log_ratio must be None or a finite number > 0, got {max_log_ratio!r}"
            )
        if method not in ("auto", "exact", "frontier"):
            raise ValueError(f"oasis_split.method must be 'auto', 'exact' or 'frontier', got {method!r}")
        self.split = split if isinstance(split, str) else float(split)
        self.u_scale = float(u_scale)
        self.max_log_ratio = None if max_log_ratio is None else float(max_log_ratio)
        self.method = method
        self.inner = None
        self.workload: Workload | None = None
        self._translated: dict[int, JobSpec] = {}
        self._unplaceable: frozenset[int] = frozenset()

    @classmethod
    def from_workload(cls, workload: Workload, **params) -> OasisSplit:
        """OasisSplit with OASiS's true price parameters (23)-(26) of the translated workload.

        Parameters
        ----------
        workload : Workload
            The PD-ORS workload (``PdorsModel`` jobs, a cluster of at least 2 machines).
        **params
            Constructor parameters (``split``, ``u_scale``, ``max_log_ratio``, ``method``).
        """
        from dlsched import registry

        self = cls(**params)
        split = split_cluster(workload.cluster, self.split)
        translated = {s.job_id: to_oasis_job(s) for s in workload.jobs}
        fitting = tuple(s for s in translated.values() if _fits(split, s))
        self._translated = translated
        self._unplaceable = frozenset(translated) - {s.job_id for s in fitting}
        self.workload = Workload(split, fitting, name=f"{workload.name}:oasis_split",
                                 horizon=workload.horizon)
        if fitting:
            self.inner = registry.make_policy(
                "oasis", self.workload, u_scale=self.u_scale, max_log_ratio=self.max_log_ratio,
                method=self.method,
            )
        return self

    def reset(self, cluster: Cluster, rng: np.random.Generator) -> None:
        """Store the cluster, build its split and reset the inner OASiS on it."""
        super().reset(cluster, rng)
        if self.workload is None:
            raise ValueError(
                "oasis_split needs OASiS's price parameters from the job population: build it with "
                "OasisSplit.from_workload(workload) or registry.make_policy('oasis_split', workload)"
            )
        self.split_cluster = split_cluster(cluster, self.split)
        if self.split_cluster != self.workload.cluster:
            raise ValueError(
                "oasis_split: the simulated cluster differs from the workload's given to from_workload"
            )
        if self.inner is not None:
            self.inner.reset(self.split_cluster, rng)

    def decide(self, t: int, view: ClusterView) -> Decision:
        """Translate the view, let OASiS decide, return its decision (real server indices)."""
        jobs = {}
        reject, info = [], {}
        for j, v in view.jobs.items():
            if j not in self._translated:
                raise ValueError(
                    f"oasis_split: job {j} is not in the workload given to from_workload"
                )
            if j in self._unplaceable:  # never admitted, so always pending here
                reject.append(j)
                info[j] = {"payoff": -math.inf, "planned_completion": math.nan}
                continue
            # work_done / remaining_work are in samples = OASiS mini-batches (OASiS ignores them)
            jobs[j] = dataclasses.replace(v, spec=self._translated[j])
        if self.inner is None:
            return Decision({}, reject=reject, info=info)
        inner_view = dataclasses.replace(view, cluster=self.split_cluster, jobs=jobs)
        d = self.inner.decide(t, inner_view)
        return dataclasses.replace(d, reject=d.reject | frozenset(reject), info={**d.info, **info})

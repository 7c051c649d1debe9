r"""A_online model and workload: edge servers plus one cloud, typed worker and PS slots.

J. She, N. Wang, R. Zhou, C. Tian, "Online Scheduling of Machine Learning Jobs in Edge-Cloud
Networks", NaNA 2021, Sec. III (model) and Sec. VI (settings); ``shared/spec/aonline.md``
sections 2 and 12. The job model is :class:`dlsched.core.jobs.AOnlineModel` (Eq. (1),
(2a)-(2f)); this module encodes the edge-cloud system around it and builds the trace-driven
workload of Sec. VI (registered as ``"aonline"``).

Encoding of the model (spec section 2)
--------------------------------------
* **Servers**: ``n_edge`` edge servers (pool ``"edge"``, indices ``0 .. n_edge-1``) and one cloud
  (pool ``"cloud"``, the last index); :math:`S` of the paper counts all of them.
* **Worker and PS types** are resources of a server, counted in slots: resource ``"w<u>"``
  (:func:`worker_resource`, :math:`u = 0..U-1`) has capacity :math:`W_{su}`, resource ``"ps<v>"``
  (:func:`ps_resource`, :math:`v = 0..V-1`) capacity :math:`P_{sv}`. Every server lists every
  type (capacity 0 where it has none), so the checker's capacity test is exactly (2g)-(2h).
* **A job** of worker type :math:`u_j` and PS type :math:`v_j` has ``worker_demand = {"w<u_j>": 1}``
  and ``ps_demand = {"ps<v_j>": 1}``: one slot of its type per worker / PS
  (:func:`aonline_job`, :func:`job_types`). At most :math:`D_j` workers (2a) and exactly one PS
  while running (2b) are model constraints; :math:`\xi_j = 1` iff the placement uses one server
  (2f).
* **Fixed allocation** (2c)-(2d): ``AOnlineModel.elastic`` and ``.preemptible`` are False; the
  simulator refuses a change or a pause of a running job and
  :func:`dlsched.core.schedule.check_timeline` re-checks it across slots (``fixed_allocation``).
  ``preemptible=True`` (workload parameter) relaxes this for the Preemptive baseline.
* **Transfer delay** (2i): :math:`\Delta_{js}` is ``JobSpec.transfer_delay[s]`` (one entry per
  server, in slots); the checker reports any task on server :math:`s` before slot
  :math:`a_j + \Delta_{js}` as ``transfer_delay``. ``Cluster.transfer_delay`` holds the smallest
  delay of the drawn range (the value a job without its own vector would get).
* **Speed** (1) in slots: :func:`aonline_job_model` converts the paper's units (spec [N]):
  :math:`n_j` hours :math:`\to` ``compute = n_j * 3600 / slot_seconds``; :math:`H_j` ms
  :math:`\to` ``update = H_j / 1000 / slot_seconds``; :math:`2k_j/B_j` with :math:`k_j` in MB
  (:math:`8` Mb per MB) and :math:`B_j` in Mbps :math:`\to` ``comm = 2 * 8 * k_j / B_j /
  slot_seconds``. Gbps are :math:`1024` Mbps (:data:`MBPS_PER_GBPS`), the paper's own unit in
  "[100, 5 * 1024] Mbps".
* **B_j** (spec [N]: not tied to either bandwidth in the text) is the ``bandwidth`` reading:
  ``"min"`` (default) :math:`B_j=\min(b^{w}_j, b^{ps}_j)`, the bottleneck of a push/pull;
  ``"worker"`` or ``"ps"`` take one of them. With the paper's ranges and 1024 Mbps per Gbps the
  worker bandwidth (at most 5 Gbps) never exceeds the PS bandwidth (at least 5 Gbps), so
  ``"min"`` and ``"worker"`` coincide.
* **Time**: slots are 0-based; a job arriving in slot :math:`a_j` may use server :math:`s` from
  slot :math:`a_j + \Delta_{js}` on. :func:`duration_slots` is the whole-slot duration
  :math:`\lceil E_jD_jM_j/(p_jD_u)\rceil` that COST_C / COST_D plan with (spec section 7 [R]).

The workload of Sec. VI (:func:`aonline_workload`)
--------------------------------------------------
From the paper ([Q]; uniform draws over the printed closed ranges, integers for counts and
delays, reals for times, sizes and bandwidths):

=============================  ======================  ============================================
symbol                         range                   code (parameter of :func:`aonline_workload`)
=============================  ======================  ============================================
edge servers                   100-300, default 200    ``n_edge``
slot                           1 hour                  ``slot_seconds`` = 3600
:math:`W_{s\cdot}` (workers)   GPUs of the trace       ``server_source``, ``max_server_gpus``
:math:`P_{s\cdot}` (PSs)       CPUs of the trace       ``cpus_per_gpu`` (see below)
:math:`U`, :math:`V`           [8, 10]                 ``worker_types``, ``ps_types``
types of a server's slots      "randomly selected"     ``type_draw``
worker bandwidth               [100, 5*1024] Mbps      ``worker_bw_mbps``
PS bandwidth                   [5, 20] Gbps            ``ps_bw_gbps``
:math:`E_j`                    [50, 100]               ``epochs``
:math:`D_j`                    [20, 50]                ``chunks``
:math:`M_j`                    [10, 50]                ``minibatches``
:math:`a_j` (":math:`x_j`")    [1, T/1.5]              ``arrivals`` (spec [T]: read as arrivals)
:math:`n_j`                    [0.001, 0.05] h         ``compute_hours``
:math:`H_j`                    [10, 100] ms            ``update_ms``
:math:`k_j`                    [30, 575] MB            ``gradient_mb``
:math:`\Delta_{js}` edge       [1, 4] slots            ``edge_delay`` (per job and server)
:math:`\Delta_{js}` cloud      [10, 40] slots          ``cloud_delay`` (per job)
=============================  ======================  ============================================

Not in the paper (spec section 12 [N]); each is a parameter with a documented default:

* ``T`` = 1024 slots: the paper's horizon :math:`T` (arrivals in :math:`[1, T/1.5]`, and the
  :math:`T` of the price bases :math:`\theta_1,\theta_2` of (7)-(8), which policies read from
  ``workload.params["T"]``). A power of two, so the time points :math:`\tau_i = 2^{i-1}` of
  A_online end exactly at :math:`T`. The simulation horizon is the separate ``horizon``
  (default None: run until every job is done, so that total completion time is defined).
* **server GPUs** (``server_source``): our copy of the Philly trace (``philly/philly.csv``,
  :func:`dlsched.traces.load_philly`) has no machine list, only each job's ``num_gpus``. Each
  edge server's worker count is the ``num_gpus`` of a uniformly drawn trace row, capped at
  ``max_server_gpus`` = 8 (the largest Philly machine; rows with more GPUs span several
  machines). ``"auto"`` (default) reads the trace and falls back to the stand-in when the trace
  file or folder is absent; ``"philly"`` requires the trace; ``"synthetic"`` always uses the
  stand-in: the same marginal, the trace's ``num_gpus`` frequencies :data:`PHILLY_GPU_COUNTS`
  (after the loader drops duplicate rows) capped the same way. ``workload.params`` records which
  was used (``server_source`` = ``"philly"`` or ``"synthetic"``, ``trace_file``). A malformed or
  tampered trace is an error, never a silent fallback.
* **server size** (``server_size`` = ``"job"``): the reading above sizes an edge server by a
  Philly *job row*, so most edge servers get one GPU (most Philly jobs ask for one). The
  alternative ``"machine"`` reads "Per edge server, #GPUs (from the trace) = # workers" (spec
  section 12) with a Philly *machine* as the server: the trace's cluster is "~550 machines"
  (spec section 12) of at most 8 GPUs, so every edge server gets ``max_server_gpus`` = 8 GPUs
  (its CPUs as below). The random stream is drawn exactly as under ``"job"`` (the trace rows are
  still drawn; the machines' slot types come from a copy of the stream at the same point), so
  both readings get the same :math:`U, V`, jobs and delays and only the edge servers differ.
* **server CPUs** (``cpus_per_gpu`` = 6): the trace has no CPU counts either. The PS count of an
  edge server is ``max(1, round(cpus_per_gpu * GPUs))``: Azure's GPU VM sizes of Philly's time
  (NC, NCv2, ND series) have 6 vCPUs per GPU.
* **types** (``type_draw`` = ``"slot"``): "we randomly select the types of each worker and PS for
  servers" read per slot: each GPU (CPU) of an edge server draws a worker (PS) type uniformly,
  so :math:`W_{s\cdot}` is multinomial. ``"server"``: all slots of a server share one type.
  :math:`U` and :math:`V` are drawn once per workload, uniform integers in the ranges. A job's
  :math:`u_j, v_j` are uniform over the types.
* **cloud** (``cloud_workers`` = 64 per worker type, ``cloud_ps`` = ``round(cpus_per_gpu *
  cloud_workers)`` per PS type): "large", and at least :math:`\max D_j` so that every job has a
  single-server schedule there.
* **job weights** (``weights`` = (1, 1), ``total_weight`` = None): uniform in the range
  (``AOnlineModel.weight``); ``total_weight`` rescales them to a fixed sum (Fig. 5: "the total
  job weight is also unchanged").
* **FIFO's count**: ``requested_workers`` = :math:`D_j` (one worker per chunk, the job's full
  width).
* :math:`F_1, F_2` (price caps of (7)-(8)) are parameters of the A_online policy, not of the
  workload; the spec ties them to no workload quantity.

Validation: every parameter is checked (``ValueError`` naming it and its value); so is the result
(:func:`check_workload`): in particular a job whose :math:`D_j` exceeds the type-:math:`u_j`
worker slots of every server (no single server could host its full width, which FIFO-like
baselines and COST_C need) is an error.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from dlsched.core.cluster import Cluster
from dlsched.core.jobs import AOnlineModel, JobSpec, Workload

SLOT_SECONDS = 3600.0
"""One slot is one hour (Sec. VI)."""

MBPS_PER_GBPS = 1024.0
"""Mbps per Gbps, the paper's convention ("[100, 5 * 1024] Mbps")."""

MEGABITS_PER_MB = 8.0
"""Megabits per megabyte (k_j in MB, bandwidths in Mbps)."""

EPOCHS = (50, 100)
CHUNKS = (20, 50)
MINIBATCHES = (10, 50)
COMPUTE_HOURS = (0.001, 0.05)
UPDATE_MS = (10.0, 100.0)
GRADIENT_MB = (30.0, 575.0)
WORKER_BW_MBPS = (100.0, 5 * 1024.0)
PS_BW_GBPS = (5.0, 20.0)
EDGE_DELAY = (1, 4)
CLOUD_DELAY = (10, 40)
WORKER_TYPES = (8, 10)
PS_TYPES = (8, 10)

PHILLY_GPU_COUNTS: Mapping[int, int] = {
    1: 76565, 2: 1816, 4: 1869, 8: 1643, 12: 7, 16: 199, 24: 7, 32: 67, 64: 6, 128: 3,
}  # fmt: skip
"""Jobs per ``num_gpus`` in ``philly/philly.csv`` as loaded by :func:`dlsched.traces.load_philly`
(82,182 jobs; duplicates and invalid rows dropped): the marginal of the synthetic stand-in."""

BANDWIDTH_READINGS: tuple[str, ...] = ("min", "worker", "ps")
"""Valid ``bandwidth=`` readings of :math:`B_j`."""

TYPE_DRAWS: tuple[str, ...] = ("slot", "server")
"""Valid ``type_draw=`` values."""

SERVER_SOURCES: tuple[str, ...] = ("auto", "philly", "synthetic")
"""Valid ``server_source=`` values."""

SERVER_SIZES: tuple[str, ...] = ("job", "machine")
"""Valid ``server_size=`` values: an edge server sized by a Philly job row (default) or as one
whole Philly machine of ``max_server_gpus`` GPUs (spec section 12, "~550 machines")."""

_WORKER_RE = re.compile(r"^w(\d+)$")
_PS_RE = re.compile(r"^ps(\d+)$")


# ------------------------------------------------------------------------------------ encoding


def worker_resource(u: int) -> str:
    """Resource name of worker type ``u`` (0-based): ``"w<u>"``."""
    return f"w{int(u)}"


def ps_resource(v: int) -> str:
    """Resource name of PS type ``v`` (0-based): ``"ps<v>"``."""
    return f"ps{int(v)}"


def _types(cluster: Cluster, pattern: re.Pattern, prefix: str) -> list[str]:
    found = sorted((int(m.group(1)), r) for r in cluster.resources if (m := pattern.match(r)))
    if [i for i, _ in found] != list(range(len(found))):
        raise ValueError(
            f"cluster resources {prefix}<k> must be numbered 0, 1, ... without gaps, "
            f"got {[r for _, r in found]}"
        )
    return [r for _, r in found]


def type_counts(cluster: Cluster) -> tuple[int, int]:
    """:math:`(U, V)`: the numbers of worker and PS types (resources ``w<u>`` / ``ps<v>``)."""
    return len(_types(cluster, _WORKER_RE, "w")), len(_types(cluster, _PS_RE, "ps"))


def worker_slots(cluster: Cluster) -> np.ndarray:
    r""":math:`W_{su}`: array (n_servers, U) of worker slots per server and type."""
    cols = [cluster.resource_index(r) for r in _types(cluster, _WORKER_RE, "w")]
    return cluster.capacity[:, cols].astype(np.int64)


def ps_slots(cluster: Cluster) -> np.ndarray:
    r""":math:`P_{sv}`: array (n_servers, V) of PS slots per server and type."""
    cols = [cluster.resource_index(r) for r in _types(cluster, _PS_RE, "ps")]
    return cluster.capacity[:, cols].astype(np.int64)


def job_types(spec: JobSpec) -> tuple[int, int]:
    r""":math:`(u_j, v_j)` of a job built by :func:`aonline_job`.

    Raises
    ------
    ValueError
        If the demands are not one slot of one worker type and one slot of one PS type.
    """
    out = []
    for demand, pattern, what, example in (
        (spec.worker_demand, _WORKER_RE, "worker", "{'w0': 1}"),
        (spec.ps_demand, _PS_RE, "ps", "{'ps0': 1}"),
    ):
        used = {r: x for r, x in demand.items() if x}
        m = pattern.match(next(iter(used))) if len(used) == 1 else None
        if m is None or next(iter(used.values())) != 1:
            raise ValueError(
                f"job {spec.job_id}: {what}_demand must be one slot of one {what} type "
                f"(e.g. {example}), got {dict(demand)}"
            )
        out.append(int(m.group(1)))
    return out[0], out[1]


def comm_slots(gradient_mb, bandwidth_mbps, slot_seconds: float = SLOT_SECONDS):
    r""":math:`2k_j/B_j` in slots: push and pull of ``gradient_mb`` MB over ``bandwidth_mbps``."""
    return 2.0 * np.asarray(gradient_mb) * MEGABITS_PER_MB / np.asarray(bandwidth_mbps) / slot_seconds


def aonline_job_model(
    *,
    epochs: int,
    chunks: int,
    minibatches: int,
    compute_hours: float,
    update_ms: float,
    gradient_mb: float,
    bandwidth_mbps: float,
    slot_seconds: float = SLOT_SECONDS,
    weight: float = 1.0,
    preemptible: bool = False,
) -> AOnlineModel:
    r"""An :class:`~dlsched.core.jobs.AOnlineModel` from the paper's units (Eq. (1), spec [N]).

    Parameters
    ----------
    epochs, chunks, minibatches : int
        :math:`E_j, D_j, M_j`.
    compute_hours : float
        :math:`n_j`, hours per mini-batch on one worker.
    update_ms : float
        :math:`H_j`, milliseconds for the PS to update per mini-batch.
    gradient_mb : float
        :math:`k_j`, MB pushed and pulled per mini-batch.
    bandwidth_mbps : float
        :math:`B_j` in Mbps (> 0).
    slot_seconds : float
        Slot length (3600: one hour).
    weight : float
        Job weight :math:`w_j > 0`.
    preemptible : bool
        Relax (2c)-(2d) to allow pauses (Preemptive baseline).

    Returns
    -------
    AOnlineModel
        ``compute``, ``update`` and ``comm`` (:math:`2k_j/B_j`) in slots.
    """
    for what, value in (
        ("compute_hours", compute_hours),
        ("update_ms", update_ms),
        ("gradient_mb", gradient_mb),
    ):
        _nonneg(value, what, "aonline_job_model")
    bw = _positive(bandwidth_mbps, "bandwidth_mbps", "aonline_job_model")
    slot = _positive(slot_seconds, "slot_seconds", "aonline_job_model")
    return AOnlineModel(
        epochs=epochs,
        chunks=chunks,
        minibatches=minibatches,
        compute=float(compute_hours) * 3600.0 / slot,
        update=float(update_ms) / 1000.0 / slot,
        comm=float(comm_slots(gradient_mb, bw, slot)),
        weight=weight,
        allow_preemption=preemptible,
    )


def duration_slots(model: AOnlineModel, workers: int, colocated: bool) -> int:
    r"""Whole slots :math:`d_j = \lceil E_jD_jM_j / (p_j D_u)\rceil` to finish with ``workers``
    workers (Algorithms 3-4 line 2, integer reading of spec section 7 [R]); :math:`p_j` of (1)
    with :math:`\xi_j` = ``colocated``."""
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ValueError(f"duration_slots: workers must be an integer >= 1, got {workers!r}")
    return max(1, math.ceil(model.total_work / (model.speed(bool(colocated)) * int(workers)) - 1e-9))


def aonline_cluster(
    edge_workers,
    edge_ps,
    cloud_workers,
    cloud_ps,
    *,
    edge_delay: Sequence[float] | float = EDGE_DELAY[0],
    cloud_delay: float = CLOUD_DELAY[0],
    slot_seconds: float = SLOT_SECONDS,
) -> Cluster:
    r"""Edge servers plus one cloud with typed worker and PS slots (``Cluster.edge_cloud``).

    Parameters
    ----------
    edge_workers : array-like, shape (n_edge, U)
        :math:`W_{su}` of the edge servers (integers >= 0).
    edge_ps : array-like, shape (n_edge, V)
        :math:`P_{sv}` of the edge servers.
    cloud_workers, cloud_ps : int or array-like of length U / V
        The cloud's slots per type (one number: the same for every type).
    edge_delay, cloud_delay : float or sequence
        Default :math:`\Delta_s` (slots) for jobs without their own delay vector.
    slot_seconds : float

    Returns
    -------
    Cluster
        Resources ``w0..w{U-1}, ps0..ps{V-1}`` in that order; the cloud is the last server.

    Raises
    ------
    ValueError
        On no edge server, mismatched shapes, or a negative / non-integer slot count.
    """
    W = _slot_matrix(edge_workers, "edge_workers")
    P = _slot_matrix(edge_ps, "edge_ps")
    if W.shape[0] != P.shape[0]:
        raise ValueError(
            f"aonline_cluster: edge_workers has {W.shape[0]} servers but edge_ps has {P.shape[0]}"
        )
    U, V = W.shape[1], P.shape[1]
    cw = _slot_vector(cloud_workers, U, "cloud_workers")
    cp = _slot_vector(cloud_ps, V, "cloud_ps")
    names = [worker_resource(u) for u in range(U)] + [ps_resource(v) for v in range(V)]

    def caps(w, p) -> dict[str, int]:
        return dict(zip(names, [int(x) for x in w] + [int(x) for x in p], strict=True))

    return Cluster.edge_cloud(
        [caps(W[s], P[s]) for s in range(W.shape[0])],
        caps(cw, cp),
        edge_delay=edge_delay,
        cloud_delay=cloud_delay,
        slot_seconds=slot_seconds,
    )


def aonline_job(
    job_id: int,
    arrival: int,
    model: AOnlineModel,
    worker_type: int,
    ps_type: int,
    delays: Sequence[float] | None = None,
    *,
    requested_workers: int | None = None,
    name: str = "aonline",
) -> JobSpec:
    r"""A job of worker type :math:`u_j` = ``worker_type`` and PS type :math:`v_j` = ``ps_type``
    with per-server transfer delays :math:`\Delta_{js}` = ``delays`` (slots, (2i))."""
    for value, what in ((worker_type, "worker_type"), (ps_type, "ps_type")):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ValueError(f"job {job_id}: {what} must be an integer >= 0, got {value!r}")
    return JobSpec(
        job_id,
        arrival,
        model,
        {worker_resource(worker_type): 1},
        {ps_resource(ps_type): 1},
        requested_workers=requested_workers,
        name=name,
        transfer_delay=None if delays is None else tuple(delays),
    )


def check_workload(workload: Workload) -> None:
    r"""Check that ``workload`` is an A_online instance (spec section 2).

    One cloud and at least one edge server; typed resources ``w<u>`` / ``ps<v>``; every job an
    :class:`AOnlineModel` asking one slot of one worker type and one of one PS type, with a PS
    slot of its type somewhere and :math:`D_j \le \max_s W_{su_j}` (some server can host its full
    width); transfer delays finite and >= 0 (:class:`JobSpec` and :class:`Server` check them).

    Raises
    ------
    ValueError
        Naming the job or server, the field and the value.
    """
    cl = workload.cluster
    pools = cl.pools
    n_edge, n_cloud = pools.count("edge"), pools.count("cloud")
    if n_cloud != 1 or n_edge < 1 or n_edge + n_cloud != len(pools):
        raise ValueError(
            "A_online cluster must have >= 1 edge server and exactly one cloud and nothing else, got "
            f"{n_edge} edge, {n_cloud} cloud, {len(pools) - n_edge - n_cloud} other servers"
        )
    U, V = type_counts(cl)
    if U < 1 or V < 1:
        raise ValueError(f"A_online cluster needs worker (w<u>) and PS (ps<v>) resources, got {cl.resources}")
    W, P = worker_slots(cl), ps_slots(cl)
    for spec in workload.jobs:
        j = spec.job_id
        if not isinstance(spec.model, AOnlineModel):
            raise ValueError(f"job {j}: model must be AOnlineModel, got {spec.model.kind!r}")
        u, v = job_types(spec)
        if u >= U or v >= V:
            raise ValueError(f"job {j}: types (u, v) = ({u}, {v}) outside the cluster's U={U}, V={V}")
        best = int(np.argmax(W[:, u]))
        if spec.model.chunks > W[best, u]:
            raise ValueError(
                f"job {j}: D_j (chunks) = {spec.model.chunks} exceeds the type-{u} worker slots of every "
                f"server (largest: {W[best, u]} on {cl.servers[best].name!r})"
            )
        if P[:, v].max() < 1:
            raise ValueError(f"job {j}: no server has a PS slot of type {v} ({ps_resource(v)!r})")
        spec.delays(cl)  # length check


@dataclass(frozen=True)
class AOnlineInstance:
    r"""The arrays of an A_online instance (paper symbols; 0-based indices).

    Attributes
    ----------
    W : ndarray (S, U)      :math:`W_{su}`
    P : ndarray (S, V)      :math:`P_{sv}`
    job_ids : ndarray (J,)  job ids in arrival order (row order of every per-job array)
    arrival : ndarray (J,)  :math:`a_j`
    u, v : ndarray (J,)     :math:`u_j, v_j`
    D, work : ndarray (J,)  :math:`D_j`, :math:`E_jD_jM_j`
    p_split, p_coloc : ndarray (J,)  :math:`p_j` of (1) with :math:`\xi_j = 0` / 1
    delay : ndarray (J, S)  :math:`\Delta_{js}`
    weight : ndarray (J,)   :math:`w_j`
    """

    W: np.ndarray
    P: np.ndarray
    job_ids: np.ndarray
    arrival: np.ndarray
    u: np.ndarray
    v: np.ndarray
    D: np.ndarray
    work: np.ndarray
    p_split: np.ndarray
    p_coloc: np.ndarray
    delay: np.ndarray
    weight: np.ndarray


def instance(workload: Workload) -> AOnlineInstance:
    """The arrays of ``workload`` (validated with :func:`check_workload` first)."""
    check_workload(workload)
    cl, jobs = workload.cluster, workload.jobs
    types = np.array([job_types(s) for s in jobs], dtype=np.int64).reshape(-1, 2)
    return AOnlineInstance(
        W=worker_slots(cl),
        P=ps_slots(cl),
        job_ids=np.array([s.job_id for s in jobs], dtype=np.int64),
        arrival=np.array([s.arrival for s in jobs], dtype=np.int64),
        u=types[:, 0],
        v=types[:, 1],
        D=np.array([s.model.chunks for s in jobs], dtype=np.int64),
        work=np.array([s.model.total_work for s in jobs], dtype=float),
        p_split=np.array([s.model.speed(False) for s in jobs], dtype=float),
        p_coloc=np.array([s.model.speed(True) for s in jobs], dtype=float),
        delay=np.array([s.delays(cl) for s in jobs], dtype=float).reshape(len(jobs), cl.n_servers),
        weight=np.array([s.model.weight for s in jobs], dtype=float),
    )


# ---------------------------------------------------------------------------------- validation


def _real(value, what: str, fn: str) -> float:
    ok = isinstance(value, (int, float, np.number)) and not isinstance(value, (bool, np.bool_))
    if not ok or not math.isfinite(float(value)):
        raise ValueError(f"{fn}: {what} must be a finite number, got {value!r}")
    return float(value)


def _positive(value, what: str, fn: str = "aonline_workload") -> float:
    x = _real(value, what, fn)
    if x <= 0:
        raise ValueError(f"{fn}: {what} must be > 0, got {value!r}")
    return x


def _nonneg(value, what: str, fn: str = "aonline_workload") -> float:
    x = _real(value, what, fn)
    if x < 0:
        raise ValueError(f"{fn}: {what} must be >= 0, got {value!r}")
    return x


def _int(value, what: str, lo: int = 1) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < lo:
        raise ValueError(f"aonline_workload: {what} must be an integer >= {lo}, got {value!r}")
    return int(value)


def _range(value, what: str, *, lo: float = 0.0, strict: bool = False, integer: bool = False):
    try:
        a, b = value
        a, b = float(a), float(b)
    except (TypeError, ValueError):
        raise ValueError(f"aonline_workload: {what} must be a pair (low, high), got {value!r}") from None
    if not (math.isfinite(a) and math.isfinite(b)):
        raise ValueError(f"aonline_workload: {what} must be finite, got {value!r}")
    if (a <= lo if strict else a < lo) or b < a:
        raise ValueError(
            f"aonline_workload: {what} must satisfy {lo:g} {'<' if strict else '<='} low <= high, "
            f"got {value!r}"
        )
    if integer:
        if not (a.is_integer() and b.is_integer()):
            raise ValueError(f"aonline_workload: {what} must be a pair of integers, got {value!r}")
        return int(a), int(b)
    return a, b


def _choice(value, what: str, options: tuple[str, ...]) -> str:
    if value not in options:
        raise ValueError(f"aonline_workload: {what} must be one of {options}, got {value!r}")
    return value


def _slot_matrix(x, what: str) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    if a.ndim != 2 or a.shape[0] < 1 or a.shape[1] < 1:
        raise ValueError(
            f"aonline_cluster: {what} must be a 2-d array (n_edge >= 1, types >= 1), got shape {a.shape}"
        )
    _check_slots(a, what)
    return a.astype(np.int64)


def _slot_vector(x, n: int, what: str) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    a = np.full(n, float(a)) if a.ndim == 0 else a
    if a.shape != (n,):
        raise ValueError(f"aonline_cluster: {what} must be one number or {n} numbers, got shape {a.shape}")
    _check_slots(a, what)
    return a.astype(np.int64)


def _check_slots(a: np.ndarray, what: str) -> None:
    bad = ~np.isfinite(a) | (a < 0) | (a != np.round(a))
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"aonline_cluster: {what}{list(idx)} must be an integer >= 0, got {a[idx]:g}")


# ------------------------------------------------------------------------------------ workload


def server_gpus(
    rng: np.random.Generator,
    n: int,
    *,
    source: str = "auto",
    data_dir: str | None = None,
    max_server_gpus: int = 8,
    verify_trace: bool = True,
) -> tuple[np.ndarray, str, str | None]:
    """GPU counts of ``n`` edge servers: ``num_gpus`` of uniformly drawn Philly rows, capped.

    Returns
    -------
    (gpus, used, trace_file)
        ``used`` is ``"philly"`` or ``"synthetic"`` (see the module docstring); ``trace_file`` is
        the trace path (None for the stand-in).

    Raises
    ------
    FileNotFoundError
        ``source="philly"`` and the trace is absent.
    ValueError
        A malformed trace row (the loader names the row and column) or a bad parameter.
    """
    from dlsched import traces

    source = _choice(source, "server_source", SERVER_SOURCES)
    n = _int(n, "n_edge")
    cap = _int(max_server_gpus, "max_server_gpus")
    values = None
    path = None
    if source != "synthetic":
        try:
            df = traces.load_philly(data_dir, verify=bool(verify_trace))
        except FileNotFoundError:
            if source == "philly":
                raise
        else:
            values = df["num_gpus"].to_numpy(np.int64)
            path = str(df.attrs.get("sources", [None])[0])
    if values is None:
        keys = np.array(sorted(PHILLY_GPU_COUNTS), dtype=np.int64)
        counts = np.array([PHILLY_GPU_COUNTS[k] for k in keys], dtype=float)
        gpus = rng.choice(keys, size=n, p=counts / counts.sum())
        used = "synthetic"
    else:
        gpus = values[rng.integers(0, len(values), n)]
        used = "philly"
    return np.minimum(gpus, cap).astype(np.int64), used, path


def _split(rng: np.random.Generator, totals: np.ndarray, n_types: int, how: str) -> np.ndarray:
    """Slots per (server, type): each slot draws its type (``"slot"``) or each server one type."""
    out = np.zeros((len(totals), n_types), dtype=np.int64)
    if how == "slot":
        for s, k in enumerate(totals):
            out[s] = rng.multinomial(int(k), np.full(n_types, 1.0 / n_types))
    else:
        out[np.arange(len(totals)), rng.integers(0, n_types, len(totals))] = totals
    return out


def aonline_workload(
    rng: np.random.Generator,
    *,
    n_edge: int = 200,
    n_jobs: int = 200,
    T: int = 1024,
    arrivals: Sequence[float] | None = None,
    horizon: int | None = None,
    server_source: str = "auto",
    data_dir: str | None = None,
    verify_trace: bool = True,
    max_server_gpus: int = 8,
    server_size: str = "job",
    cpus_per_gpu: float = 6.0,
    worker_types: Sequence[float] = WORKER_TYPES,
    ps_types: Sequence[float] = PS_TYPES,
    type_draw: str = "slot",
    cloud_workers: int = 64,
    cloud_ps: int | None = None,
    epochs: Sequence[float] = EPOCHS,
    chunks: Sequence[float] = CHUNKS,
    minibatches: Sequence[float] = MINIBATCHES,
    compute_hours: Sequence[float] = COMPUTE_HOURS,
    update_ms: Sequence[float] = UPDATE_MS,
    gradient_mb: Sequence[float] = GRADIENT_MB,
    worker_bw_mbps: Sequence[float] = WORKER_BW_MBPS,
    ps_bw_gbps: Sequence[float] = PS_BW_GBPS,
    bandwidth: str = "min",
    edge_delay: Sequence[float] = EDGE_DELAY,
    cloud_delay: Sequence[float] = CLOUD_DELAY,
    weights: Sequence[float] = (1.0, 1.0),
    total_weight: float | None = None,
    preemptible: bool = False,
    slot_seconds: float = SLOT_SECONDS,
) -> Workload:
    r"""The trace-driven edge-cloud workload of Sec. VI (Figs. 3-14); see the module docstring.

    Parameters
    ----------
    rng : numpy.random.Generator
        The only source of randomness (U and V, then the servers, then the jobs).
    n_edge : int
        Edge servers (paper: 100-300, default 200); the cloud comes on top.
    n_jobs : int
        :math:`J`.
    T : int
        The paper's horizon :math:`T` in slots (arrivals, price bases); ``params["T"]``.
    arrivals : (low, high), optional
        Integer arrival slots, uniform; default :math:`[1, \lfloor T/1.5\rfloor]`.
    horizon : int, optional
        The workload's simulation horizon (None: run until every job is done).
    server_source : {"auto", "philly", "synthetic"}
        Where the edge servers' GPU counts come from.
    data_dir : str, optional
        Trace folder (default :func:`dlsched.traces.data_dir`).
    verify_trace : bool
        Check the trace's sha256 first (False: read another copy of the same format; a malformed
        row is then reported by row number and column).
    max_server_gpus : int
        Cap on an edge server's GPUs (Philly machines have at most 8).
    server_size : {"job", "machine"}
        Reading of spec section 12's "Per edge server, #GPUs (from the trace) = # workers":
        ``"job"`` (default) gives an edge server the ``num_gpus`` of a drawn trace row (capped);
        ``"machine"`` makes every edge server one whole Philly machine with ``max_server_gpus``
        GPUs (the trace's "~550 machines", spec section 12). Same random stream, so the same
        :math:`U, V`, jobs and delays under both (module docstring).
    cpus_per_gpu : float
        PS slots (CPUs) per GPU of an edge server.
    worker_types, ps_types : (low, high)
        Integer ranges of :math:`U` and :math:`V`.
    type_draw : {"slot", "server"}
        Type per slot or per server.
    cloud_workers : int
        The cloud's worker slots per worker type.
    cloud_ps : int, optional
        The cloud's PS slots per PS type (default ``round(cpus_per_gpu * cloud_workers)``).
    epochs, chunks, minibatches : (low, high)
        Integer ranges of :math:`E_j, D_j, M_j`.
    compute_hours, update_ms, gradient_mb : (low, high)
        Ranges of :math:`n_j` (hours), :math:`H_j` (ms), :math:`k_j` (MB).
    worker_bw_mbps, ps_bw_gbps : (low, high)
        Ranges of the worker (Mbps) and PS (Gbps) bandwidths of a job.
    bandwidth : {"min", "worker", "ps"}
        Reading of :math:`B_j`.
    edge_delay, cloud_delay : (low, high)
        Integer ranges of :math:`\Delta_{js}` (slots), drawn per job and server.
    weights : (low, high)
        Range of the job weights (> 0).
    total_weight : float, optional
        Rescale the weights to this sum.
    preemptible : bool
        Let jobs be paused and resumed (Preemptive baseline); False is (2c)-(2d).
    slot_seconds : float
        Slot length (3600).

    Returns
    -------
    Workload
        ``name="aonline"``; job ids follow arrival order; ``params`` holds every parameter plus
        ``U``, ``V``, ``server_source`` (``"philly"`` or ``"synthetic"``: what was used) and
        ``trace_file``.

    Raises
    ------
    ValueError
        On any invalid parameter (message names it and its value), e.g. ``n_edge < 1``, a
        negative or NaN delay, a bad range, or a job whose :math:`D_j` exceeds every server's
        worker slots of its type.
    FileNotFoundError
        ``server_source="philly"`` without the trace.
    """
    n_edge = _int(n_edge, "n_edge")
    n_jobs = _int(n_jobs, "n_jobs")
    T = _int(T, "T")
    arr = (1, max(1, math.floor(T / 1.5))) if arrivals is None else _range(arrivals, "arrivals", integer=True)
    if horizon is not None:
        horizon = _int(horizon, "horizon")
    server_source = _choice(server_source, "server_source", SERVER_SOURCES)
    if data_dir is not None and not isinstance(data_dir, str):
        raise ValueError(f"aonline_workload: data_dir must be a path string or None, got {data_dir!r}")
    if not isinstance(verify_trace, (bool, np.bool_)):
        raise ValueError(f"aonline_workload: verify_trace must be a bool, got {verify_trace!r}")
    max_server_gpus = _int(max_server_gpus, "max_server_gpus")
    server_size = _choice(server_size, "server_size", SERVER_SIZES)
    cpus_per_gpu = _positive(cpus_per_gpu, "cpus_per_gpu")
    U_r = _range(worker_types, "worker_types", lo=1, integer=True)
    V_r = _range(ps_types, "ps_types", lo=1, integer=True)
    type_draw = _choice(type_draw, "type_draw", TYPE_DRAWS)
    cloud_workers = _int(cloud_workers, "cloud_workers")
    cloud_ps = max(1, round(cpus_per_gpu * cloud_workers)) if cloud_ps is None else _int(cloud_ps, "cloud_ps")
    E_r = _range(epochs, "epochs", lo=1, integer=True)
    D_r = _range(chunks, "chunks", lo=1, integer=True)
    M_r = _range(minibatches, "minibatches", lo=1, integer=True)
    n_r = _range(compute_hours, "compute_hours", strict=True)
    H_r = _range(update_ms, "update_ms")
    k_r = _range(gradient_mb, "gradient_mb")
    bw_r = _range(worker_bw_mbps, "worker_bw_mbps", strict=True)
    ps_r = _range(ps_bw_gbps, "ps_bw_gbps", strict=True)
    bandwidth = _choice(bandwidth, "bandwidth", BANDWIDTH_READINGS)
    de_r = _range(edge_delay, "edge_delay", integer=True)
    dc_r = _range(cloud_delay, "cloud_delay", integer=True)
    w_r = _range(weights, "weights", strict=True)
    if total_weight is not None:
        total_weight = _positive(total_weight, "total_weight")
    if not isinstance(preemptible, (bool, np.bool_)):
        raise ValueError(f"aonline_workload: preemptible must be a bool, got {preemptible!r}")
    slot_seconds = _positive(slot_seconds, "slot_seconds")
    if D_r[0] > max(cloud_workers, max_server_gpus):
        raise ValueError(
            f"aonline_workload: chunks={chunks!r}: every D_j would exceed every server's worker slots "
            f"(at most cloud_workers={cloud_workers} or max_server_gpus={max_server_gpus})"
        )

    ri, uni = rng.integers, rng.uniform

    # --- system: U, V, edge servers (GPUs from the trace, CPUs = PS slots), cloud
    U = int(ri(U_r[0], U_r[1] + 1))
    V = int(ri(V_r[0], V_r[1] + 1))
    gpus, used, trace_file = server_gpus(
        rng,
        n_edge,
        source=server_source,
        data_dir=data_dir,
        max_server_gpus=max_server_gpus,
        verify_trace=bool(verify_trace),
    )
    cpus = np.maximum(1, np.round(cpus_per_gpu * gpus)).astype(np.int64)
    machine_rng = copy.deepcopy(rng) if server_size == "machine" else None
    W_edge = _split(rng, gpus, U, type_draw)
    P_edge = _split(rng, cpus, V, type_draw)
    if machine_rng is not None:  # whole machines, their slots typed from the same point of the stream;
        gpus = np.full(n_edge, max_server_gpus, dtype=np.int64)  # rng went on as under "job"
        cpus = np.maximum(1, np.round(cpus_per_gpu * gpus)).astype(np.int64)
        W_edge = _split(machine_rng, gpus, U, type_draw)
        P_edge = _split(machine_rng, cpus, V, type_draw)
    cluster = aonline_cluster(
        W_edge,
        P_edge,
        cloud_workers,
        cloud_ps,
        edge_delay=de_r[0],
        cloud_delay=dc_r[0],
        slot_seconds=slot_seconds,
    )

    # --- jobs
    def ints(r: tuple[int, int], size=n_jobs) -> np.ndarray:
        return ri(r[0], r[1] + 1, size)

    arrive = np.sort(ints(arr))
    u_j, v_j = ri(0, U, n_jobs), ri(0, V, n_jobs)
    E_, D_, M_ = ints(E_r), ints(D_r), ints(M_r)
    n_h, H_ms, k_mb = uni(*n_r, n_jobs), uni(*H_r, n_jobs), uni(*k_r, n_jobs)
    bw_w, bw_ps = uni(*bw_r, n_jobs), uni(*ps_r, n_jobs) * MBPS_PER_GBPS
    B = {"min": np.minimum(bw_w, bw_ps), "worker": bw_w, "ps": bw_ps}[bandwidth]
    delays = np.concatenate([ints(de_r, (n_jobs, n_edge)), ints(dc_r, (n_jobs, 1))], axis=1)
    w = uni(*w_r, n_jobs)
    if total_weight is not None:
        w = w * (total_weight / w.sum())
    jobs = []
    for j in range(n_jobs):
        model = aonline_job_model(
            epochs=int(E_[j]),
            chunks=int(D_[j]),
            minibatches=int(M_[j]),
            compute_hours=float(n_h[j]),
            update_ms=float(H_ms[j]),
            gradient_mb=float(k_mb[j]),
            bandwidth_mbps=float(B[j]),
            slot_seconds=slot_seconds,
            weight=float(w[j]),
            preemptible=bool(preemptible),
        )
        jobs.append(
            aonline_job(
                j, int(arrive[j]), model, int(u_j[j]), int(v_j[j]), delays[j].astype(float),
                requested_workers=int(D_[j]), name=f"u{u_j[j]}v{v_j[j]}",
            )
        )  # fmt: skip
    params = {
        "n_edge": n_edge, "n_jobs": n_jobs, "T": T, "arrivals": arr, "horizon": horizon, "data_dir": data_dir,
        "server_source": used, "trace_file": trace_file, "requested_server_source": server_source,
        "verify_trace": bool(verify_trace),
        "max_server_gpus": max_server_gpus, "server_size": server_size, "cpus_per_gpu": cpus_per_gpu,
        "worker_types": U_r,
        "ps_types": V_r, "U": U, "V": V, "type_draw": type_draw, "cloud_workers": cloud_workers,
        "cloud_ps": cloud_ps, "epochs": E_r, "chunks": D_r, "minibatches": M_r, "compute_hours": n_r,
        "update_ms": H_r, "gradient_mb": k_r, "worker_bw_mbps": bw_r, "ps_bw_gbps": ps_r,
        "bandwidth": bandwidth, "edge_delay": de_r, "cloud_delay": dc_r, "weights": w_r,
        "total_weight": total_weight, "preemptible": bool(preemptible), "slot_seconds": slot_seconds,
    }  # fmt: skip
    wl = Workload(cluster, tuple(jobs), name="aonline", horizon=horizon, params=params)
    try:
        check_workload(wl)
    except ValueError as e:
        raise ValueError(f"aonline_workload: {e}") from None
    return wl

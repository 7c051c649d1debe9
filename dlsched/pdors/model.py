r"""PD-ORS workload: the numerical-results setting of Yu et al. (spec section 8).

M. Yu, J. Liu, C. Wu, B. Ji, E. S. Bentley, "Toward Efficient Online Scheduling for Distributed
Machine Learning Systems", IEEE TNSE (arXiv:2108.02917), "Numerical results";
``shared/spec/pdors.md`` sections 2 and 8. The job model is
:class:`dlsched.core.jobs.PdorsModel` (Sec. 2, constraints (3)-(7), Fact 1).

From the paper ([Q], uniform draws over the printed ranges; integers for counts):

==========================  ===========================  ===================================
symbol                      range                        code
==========================  ===========================  ===================================
:math:`E_i` epochs          [50, 200]                    ``PdorsModel.epochs``
:math:`K_i` samples         [20000, 500000]              ``PdorsModel.samples``
:math:`g_i` parameters      [30, 575] MB                 enters ``sync_*`` = :math:`2g_i/b`
:math:`\tau_i`              [1e-5, 1e-4] slots/sample    ``PdorsModel.tau``
:math:`\gamma_i`            [1, 10] (integer, ours)      ``PdorsModel.ratio``
:math:`F_i` global batch    [1, 200]                     ``PdorsModel.batch``
worker GPU/CPU/mem/storage  0-4 / 1-10 / 2-32 GB / 5-10  ``JobSpec.worker_demand``
PS CPU/mem/storage          1-10 / 2-32 GB / 5-10 GB     ``JobSpec.ps_demand``
:math:`\theta_1,\theta_2,   [1, 100], [0.01, 1],         ``Sigmoid(gamma1, gamma2, gamma3)``
\theta_3`                   [1, 15] slots
==========================  ===========================  ===================================

Not in the paper (all parameters of :func:`pdors_workload`; our choices, from public sources):

* **machines**: each of the ``n_machines`` machines is an EC2 GPU instance drawn uniformly from
  ``machine_types`` (default p2.8xlarge, p2.16xlarge, g3.16xlarge, p3.8xlarge, p3.16xlarge: the
  P2/G3/P3 sizes with at least 4 GPUs and 32 vCPUs, so that every worker and every PS of the
  paper's demand table fits on every machine), capacities from
  :data:`dlsched.core.instances.EC2_INSTANCES`, local storage ``storage_gb`` = 1000 GB;
* **bandwidths**: :math:`b^{(e)}` = ``b_external_gbps`` = 10 Gbps (the network class of
  p2.8xlarge, g3.8xlarge and p3.8xlarge) and :math:`b^{(i)}` = ``b_internal_gbps`` = 126 Gbps
  (PCIe 3.0 x16, :data:`dlsched.core.instances.PCIE3_X16_GBPS`), the same for every job;
  ``sync = 2 g_i / b`` is converted to slots with ``slot_seconds`` (MB = 1e6 bytes,
  Gbps = 1e9 bit/s);
* **slot length**: ``slot_seconds`` = 3600 (the OASiS wing's choice; PD-ORS is its extension).
  :math:`\tau_i` is read as printed, in slots;
* **arrivals**: uniform over the slots ``0 .. arrival_span - 1`` (default: the first half of the
  horizon, so that late arrivals have a chance to finish within :math:`T`);
* **fixed worker counts** of FIFO (``requested_workers``): uniform in [1, 30], capped at
  :math:`F_i` (as the OASiS wing does for its FIFO and RRH);
* :math:`\gamma_i` is an integer so that ``w = gamma * s`` in Algorithm 4's internal branch.

:func:`min_durations` reports how long each job needs at best (all :math:`F_i` workers,
internal bandwidth): under these readings many jobs of the paper's ranges cannot finish within
:math:`T = 20` at all, which notebook ``30_pdors_model`` measures.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from dlsched.core.cluster import Cluster, Server
from dlsched.core.instances import EC2_INSTANCES, PCIE3_X16_GBPS
from dlsched.core.jobs import JobSpec, PdorsModel, Sigmoid, Workload

EPOCHS = (50, 200)
SAMPLES = (20_000, 500_000)
GRADIENT_MB = (30.0, 575.0)
TAU = (1e-5, 1e-4)
RATIO = (1, 10)
BATCH = (1, 200)
WORKER_GPU = (0, 4)
WORKER_CPU = (1, 10)
MEM_GB = (2, 32)
STORAGE_GB = (5, 10)
PS_CPU = (1, 10)
THETA1 = (1.0, 100.0)
THETA2 = (0.01, 1.0)
THETA3 = (1.0, 15.0)
FIXED_WORKERS = (1, 30)

MACHINE_TYPES: tuple[str, ...] = ("p2.8xlarge", "p2.16xlarge", "g3.16xlarge", "p3.8xlarge", "p3.16xlarge")
"""Default machine types (keys of :data:`dlsched.core.instances.EC2_INSTANCES`)."""

RESOURCES: tuple[str, ...] = ("gpu", "cpu", "mem", "storage")
"""Resource types (GPUs, vCPUs, GB, GB)."""

READINGS: tuple[str, ...] = ("seconds", "slots")
"""Valid ``reading=`` values: :math:`\tau_i` in seconds, or in slots as printed."""

B_EXTERNAL_GBPS = 10.0
B_INTERNAL_GBPS = PCIE3_X16_GBPS


def _int(value, what: str, lo: int = 1) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < lo:
        raise ValueError(f"pdors_workload: {what} must be an integer >= {lo}, got {value!r}")
    return int(value)


def _positive(value, what: str) -> float:
    ok = isinstance(value, (int, float, np.number)) and not isinstance(value, (bool, np.bool_))
    if not ok or not math.isfinite(float(value)) or float(value) <= 0:
        raise ValueError(f"pdors_workload: {what} must be a finite number > 0, got {value!r}")
    return float(value)


def _range(value, what: str, *, lo: float = 0.0) -> tuple[float, float]:
    try:
        a, b = (float(x) for x in value)
    except (TypeError, ValueError):
        raise ValueError(f"pdors_workload: {what} must be a pair (low, high), got {value!r}") from None
    if not (math.isfinite(a) and math.isfinite(b)) or a < lo or b < a:
        raise ValueError(f"pdors_workload: {what} must satisfy {lo:g} <= low <= high, got {value!r}")
    return a, b


def sync_slots(gradient_mb, bandwidth_gbps, slot_seconds: float):
    r""":math:`2g_i/b` in slots: push and pull of ``gradient_mb`` MB over ``bandwidth_gbps``."""
    return 2.0 * np.asarray(gradient_mb) * 8.0 / (float(bandwidth_gbps) * 1000.0) / slot_seconds


def pdors_workload(
    rng: np.random.Generator,
    *,
    n_jobs: int = 50,
    n_machines: int = 100,
    T: int = 20,
    arrival_span: int | None = None,
    machine_types: Sequence[str] = MACHINE_TYPES,
    storage_gb: float = 1000.0,
    b_internal_gbps: float = B_INTERNAL_GBPS,
    b_external_gbps: float = B_EXTERNAL_GBPS,
    slot_seconds: float = 3600.0,
    reading: str = "seconds",
    epochs: Sequence[float] = EPOCHS,
    samples: Sequence[float] = SAMPLES,
    tau: Sequence[float] = TAU,
    batch: Sequence[float] = BATCH,
    ratio: Sequence[float] = RATIO,
    theta1: Sequence[float] = THETA1,
    theta2: Sequence[float] = THETA2,
    theta3: Sequence[float] = THETA3,
    fixed_workers: Sequence[float] = FIXED_WORKERS,
) -> Workload:
    r"""The simulation workload of PD-ORS's numerical results (Figs. 6-10).

    Parameters
    ----------
    rng : numpy.random.Generator
        The only source of randomness (machines first, then arrivals, then jobs).
    n_jobs : int
        Number of jobs (Figs. 6, 8: 50; Fig. 7: 10-50; Figs. 9-10: 100).
    n_machines : int
        Machines :math:`H` in the one pool (Fig. 7: 100; Fig. 8: 50; Fig. 10: 30).
    T : int
        Horizon in slots (Figs. 6-8: 20; Figs. 9-10: 80); the workload's ``horizon``.
    arrival_span : int, optional
        Arrivals uniform over slots ``0 .. arrival_span - 1``; default ``ceil(T / 2)``.
    machine_types : sequence of str
        EC2 instance types drawn uniformly per machine (:data:`MACHINE_TYPES`).
    storage_gb : float
        Local storage per machine, GB (the instances are EBS-only: our choice).
    b_internal_gbps, b_external_gbps : float
        :math:`b^{(i)}` and :math:`b^{(e)}` in Gbps (:math:`b^{(i)} \ge b^{(e)}`).
    slot_seconds : float
        Length of a slot in seconds (converts :math:`2g_i/b` to slots).
    epochs, samples, tau, batch, ratio, theta1, theta2, theta3 : (low, high)
        The paper's ranges (module docstring); integer ranges are drawn as integers.
    fixed_workers : (low, high)
        Range of ``requested_workers`` (FIFO's fixed count), capped at :math:`F_i`.

    Returns
    -------
    Workload
        ``name="pdors"``, ``horizon=T``; job ids follow arrival order.

    Raises
    ------
    ValueError
        On any invalid parameter (the message names it and its value), e.g.
        ``b_internal_gbps < b_external_gbps``, a ratio range below 1 or a batch range below 1.
    """
    n_jobs = _int(n_jobs, "n_jobs")
    H = _int(n_machines, "n_machines")
    T = _int(T, "T")
    span = math.ceil(T / 2) if arrival_span is None else _int(arrival_span, "arrival_span")
    if span > T:
        raise ValueError(f"pdors_workload: arrival_span must be <= T={T}, got {arrival_span!r}")
    if isinstance(machine_types, str) or not isinstance(machine_types, Sequence) or not machine_types:
        raise ValueError(f"pdors_workload: machine_types must be a non-empty list, got {machine_types!r}")
    for name in machine_types:
        if name not in EC2_INSTANCES:
            raise ValueError(
                f"pdors_workload: machine_types entry must be one of {sorted(EC2_INSTANCES)}, got {name!r}"
            )
    storage_gb = _positive(storage_gb, "storage_gb")
    b_int = _positive(b_internal_gbps, "b_internal_gbps")
    b_ext = _positive(b_external_gbps, "b_external_gbps")
    if b_int < b_ext:
        raise ValueError(
            f"pdors_workload: b_internal_gbps={b_int:g} must be >= b_external_gbps={b_ext:g} "
            "(the internal bus is the faster link, Fact 1)"
        )
    slot_seconds = _positive(slot_seconds, "slot_seconds")
    if reading not in READINGS:
        raise ValueError(f"pdors_workload: reading must be one of {READINGS}, got {reading!r}")
    E = _range(epochs, "epochs", lo=1)
    K = _range(samples, "samples", lo=1)
    tau_r = _range(tau, "tau")
    if tau_r[0] <= 0:
        raise ValueError(f"pdors_workload: tau must be > 0, got {tau!r}")
    F = _range(batch, "batch", lo=1)
    gam = _range(ratio, "ratio", lo=1)
    th1, th2, th3 = _range(theta1, "theta1"), _range(theta2, "theta2"), _range(theta3, "theta3", lo=-math.inf)
    if th1[0] <= 0:
        raise ValueError(f"pdors_workload: theta1 must be > 0, got {theta1!r}")
    fw = _range(fixed_workers, "fixed_workers", lo=1)

    # machines
    types = [str(t) for t in rng.choice(np.asarray(machine_types, dtype=object), size=H)]
    caps = [{**EC2_INSTANCES[t], "storage": storage_gb} for t in types]
    cluster = Cluster(
        tuple(Server(f"m{h}-{t}", "unified", c) for h, (t, c) in enumerate(zip(types, caps, strict=True))),
        RESOURCES,
        slot_seconds=slot_seconds,
    )

    # arrivals and jobs
    ri, u = rng.integers, rng.uniform

    def ints(r: tuple[float, float], n: int = n_jobs) -> np.ndarray:
        return ri(int(math.ceil(r[0])), int(math.floor(r[1])) + 1, n)

    arrive = np.sort(ri(0, span, n_jobs))
    E_, K_, F_, G_ = ints(E), ints(K), ints(F), ints(gam)
    tau_ = u(*tau_r, n_jobs) / (slot_seconds if reading == "seconds" else 1.0)
    g_mb = u(*GRADIENT_MB, n_jobs)
    wdem = np.column_stack([ints(WORKER_GPU), ints(WORKER_CPU), ints(MEM_GB), ints(STORAGE_GB)]).astype(float)
    pdem = np.column_stack([ints(PS_CPU), ints(MEM_GB), ints(STORAGE_GB)]).astype(float)
    t1, t2, t3 = u(*th1, n_jobs), u(*th2, n_jobs), u(*th3, n_jobs)
    fixed = ints(fw)
    s_int = sync_slots(g_mb, b_int, slot_seconds)
    s_ext = sync_slots(g_mb, b_ext, slot_seconds)
    jobs = []
    for j in range(n_jobs):
        model = PdorsModel(
            epochs=int(E_[j]),
            samples=int(K_[j]),
            batch=int(F_[j]),
            tau=float(tau_[j]),
            sync_internal=float(s_int[j]),
            sync_external=float(s_ext[j]),
            ratio=float(G_[j]),
        )
        jobs.append(
            JobSpec(
                j,
                int(arrive[j]),
                model,
                {"gpu": wdem[j, 0], "cpu": wdem[j, 1], "mem": wdem[j, 2], "storage": wdem[j, 3]},
                {"cpu": pdem[j, 0], "mem": pdem[j, 1], "storage": pdem[j, 2]},
                utility=Sigmoid(float(t1[j]), float(t2[j]), float(t3[j])),
                requested_workers=int(min(fixed[j], F_[j])),
                name=f"g{g_mb[j]:.0f}MB",
            )
        )
    params = {
        "n_jobs": n_jobs, "n_machines": H, "T": T, "arrival_span": span,
        "machine_types": tuple(machine_types), "storage_gb": storage_gb, "b_internal_gbps": b_int,
        "b_external_gbps": b_ext, "slot_seconds": slot_seconds, "reading": reading, "epochs": E, "samples": K,
        "tau": tau_r, "batch": F, "ratio": gam, "theta1": th1, "theta2": th2, "theta3": th3,
        "fixed_workers": fw,
    }  # fmt: skip
    return Workload(cluster, tuple(jobs), name="pdors", horizon=T, params=params)


def sample_time(model: PdorsModel, internal: bool) -> float:
    r"""Per-sample time of one worker with the ratio :math:`\gamma_i` of (3):
    :math:`\tau_i + 2g_i\gamma_i/(bF_i)` slots, :math:`b = b^{(i)}` if ``internal``."""
    sync = model.sync_internal if internal else model.sync_external
    return model.tau + model.ratio * sync / model.batch


def min_durations(workload: Workload) -> np.ndarray:
    r"""Shortest possible duration of each job in slots (the argument of (13)):
    :math:`\lceil E_iK_i/F_i\,(\tau_i + 2g_i\gamma_i/(b^{(i)}F_i))\rceil`, all :math:`F_i`
    workers on the internal bus in every slot."""
    out = []
    for s in workload.jobs:
        m = s.model
        if not isinstance(m, PdorsModel):
            raise ValueError(f"job {s.job_id}: min_durations needs PdorsModel jobs, got {m.kind!r}")
        out.append(max(1, math.ceil(m.total_work / m.batch * sample_time(m, True) - 1e-9)))
    return np.asarray(out, dtype=np.int64)

r"""Tidy tables that explain OASiS's model and algorithms (for ``notebooks/10_oasis_model``).

Y. Bao, Y. Peng, C. Wu, Z. Li, "Online Job Scheduling in Distributed Machine Learning Clusters",
IEEE INFOCOM 2018 (arXiv:1801.00936); ``shared/spec/oasis.md`` sections 2-8 and 11.1.

Nothing here schedules anything: every function turns an object of the OASiS wing (a job, a
workload, price parameters, a :class:`~dlsched.oasis.policy.BestSchedule`, an
:class:`~dlsched.oasis.policy.OASiS` state) into a :class:`pandas.DataFrame` that a notebook prints
or draws. Grouped by the part of the paper they illustrate:

* Sec. III, timing model and constraints (2)-(10): :func:`timing_table`, :func:`fits_per_server`,
  :func:`constraint_report` (with :data:`CONSTRAINT_EQUATIONS`).
* Sec. V-A, the workload: :func:`jobs_table`, :func:`utility_curves`, :func:`reading_table`.
* Sec. IV-B, price functions (22)-(26): :func:`price_table`, :func:`price_curves`.
* Algorithm 2, one job's best schedule (27)-(32): :func:`oasis_state_at_arrival`,
  :func:`admission_table`, :func:`choose_probe`, :func:`schedule_frame`, :func:`schedule_grid`,
  :func:`room_grid`, :func:`payoff_curve`.
* Algorithm 1, prices as jobs arrive: :func:`price_history`.

Conventions: slots are 0-based (the paper's are 1-based); a job arriving in slot ``a`` may run in
slot ``a`` and finishing in slot ``t`` gives utility :math:`f(t - a)` (as in
:mod:`dlsched.oasis.policy`). Prices are handled as natural logarithms because :math:`L_1, L_2`
of (25)-(26) underflow double precision for long horizons.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from types import MappingProxyType

import numpy as np
import pandas as pd

from dlsched.core.cluster import Cluster
from dlsched.core.jobs import JobSpec, OasisModel, RateContext, Sigmoid, Workload
from dlsched.core.schedule import Placement, server_usage
from dlsched.core.simulator import SimulationResult, simulate
from dlsched.oasis.model import (
    READINGS,
    min_durations,
    oasis_workload,
    unschedulable_fraction,
    utility_classes,
)
from dlsched.oasis.policy import (
    BestSchedule,
    OASiS,
    PriceParameters,
    min_duration,
    price_parameters,
    unit_caps,
)

__all__ = [
    "CONSTRAINT_EQUATIONS",
    "admission_table",
    "choose_probe",
    "constraint_report",
    "fits_per_server",
    "jobs_table",
    "oasis_state_at_arrival",
    "payoff_curve",
    "price_curves",
    "price_history",
    "price_table",
    "reading_table",
    "room_grid",
    "schedule_frame",
    "schedule_grid",
    "timing_table",
    "utility_curves",
]

_EPS = 1e-9

CONSTRAINT_EQUATIONS: Mapping[str, str] = MappingProxyType(
    {
        "max_workers": "(3)",
        "worker_capacity": "(4)",
        "ps_capacity": "(5)",
        "ps_bandwidth": "(6)",
        "ps_required": "(6)",
        "ps_count": "(7)",
        "arrival": "(9)-(10)",
        "role": "Sec. III-A (workers on the H servers, PS on the K servers)",
        "min_workers": "-",
    }
)
"""Constraint name (as reported by :func:`constraint_report`) -> equation of the paper."""


# ----------------------------------------------------------------------------------- validation


def _oasis_spec(spec, what: str = "spec") -> OasisModel:
    if not isinstance(spec, JobSpec):
        raise TypeError(f"{what} must be a JobSpec, got {type(spec).__name__}")
    if not isinstance(spec.model, OasisModel):
        raise ValueError(f"{what}: job {spec.job_id} has model {spec.model.kind!r}, expected an OasisModel")
    return spec.model


def _two_pools(cluster) -> tuple[np.ndarray, np.ndarray]:
    if not isinstance(cluster, Cluster):
        raise TypeError(f"cluster must be a Cluster, got {type(cluster).__name__}")
    w, p = cluster.servers_for("worker"), cluster.servers_for("ps")
    if len(w) == 0 or len(p) == 0:
        raise ValueError("cluster must have worker and PS servers (Cluster.two_pools)")
    return w, p


def _workload(workload) -> Workload:
    if not isinstance(workload, Workload):
        raise TypeError(f"workload must be a Workload, got {type(workload).__name__}")
    for s in workload.jobs:
        _oasis_spec(s, "workload")
    return workload


def _role(role) -> str:
    if role not in ("worker", "ps"):
        raise ValueError(f"role must be 'worker' or 'ps', got {role!r}")
    return role


# ---------------------------------------------------------------------- Sec. III: the job model


def timing_table(spec: JobSpec, cluster: Cluster, workers: Sequence[int]) -> pd.DataFrame:
    r"""Progress of one job for several worker counts ``y`` (timing model of Sec. III-B).

    For each ``y``: the PS count :meth:`OasisModel.ps_for` needs by (6)
    (:math:`\lceil y\,b_i/B_i\rceil`), the rate :meth:`OasisModel.rate` in mini-batches per slot
    (:math:`y/(\tau_i + 2e_i/b_i)`), the slots needed to finish :math:`E_iN_iM_i` mini-batches at
    that rate (real-valued), and the model constraints the placement breaks (e.g. (3) when
    ``y`` exceeds :math:`N_i`). Counts are what matter to the model; the placement used puts all
    workers on the first worker server and all PS on the first PS server, and server capacities
    are not checked here (see :func:`constraint_report`).

    Parameters
    ----------
    spec : JobSpec
        An OASiS job.
    cluster : Cluster
        A two-pool cluster (for the rate context).
    workers : sequence of int
        Worker counts ``y >= 1``.

    Returns
    -------
    pandas.DataFrame
        Columns ``workers, ps, rate, slots_to_finish, violations`` (constraint names joined by
        ``", "``, empty when none), one row per entry of ``workers``.

    Raises
    ------
    TypeError, ValueError
        If ``spec`` is not an OASiS job, ``cluster`` has no two pools, or a count is not an
        integer >= 1.
    """
    model = _oasis_spec(spec)
    wsrv, psrv = _two_pools(cluster)
    ctx = RateContext(cluster, np.zeros_like(cluster.capacity))
    rows = []
    for y in workers:
        if isinstance(y, bool) or not isinstance(y, (int, np.integer)) or y < 1:
            raise ValueError(f"workers must hold integers >= 1, got {y!r}")
        y = int(y)
        z = model.ps_for(y)
        placement = Placement.of({int(wsrv[0]): y}, {int(psrv[0]): z})
        rate = float(model.rate(spec, placement, ctx))
        bad = [name for name, _ in model.placement_violations(spec, placement)]
        rows.append(
            {
                "workers": y,
                "ps": z,
                "rate": rate,
                "slots_to_finish": model.total_work / rate,
                "violations": ", ".join(bad),
            }
        )
    return pd.DataFrame(rows, columns=["workers", "ps", "rate", "slots_to_finish", "violations"])


def fits_per_server(cluster: Cluster, spec: JobSpec) -> pd.DataFrame:
    r"""How many workers (PS) of ``spec`` fit on each empty worker (PS) server, (4)-(5).

    The count is :math:`\min_r \lfloor c_h^r / w_i^r\rfloor` over the resources the job demands,
    the bound (30)/(31) of Algorithm 2 at zero usage; ``binding`` names the resource attaining the
    minimum (the first one in cluster order on ties).

    Parameters
    ----------
    cluster : Cluster
        A two-pool cluster.
    spec : JobSpec
        An OASiS job.

    Returns
    -------
    pandas.DataFrame
        Columns ``server, name, role, fits, binding``; worker servers first, then PS servers.

    Raises
    ------
    TypeError, ValueError
        If ``spec`` is not an OASiS job or ``cluster`` has no two pools.
    """
    _oasis_spec(spec)
    wsrv, psrv = _two_pools(cluster)
    rows = []
    for role, servers, demand in (
        ("worker", wsrv, cluster.vector(spec.worker_demand)),
        ("ps", psrv, cluster.vector(spec.ps_demand)),
    ):
        pos = np.flatnonzero(demand > 0)
        for s in servers:
            room = np.floor(cluster.capacity[s, pos] / demand[pos] + _EPS)
            k = int(np.argmin(room))
            rows.append(
                {
                    "server": int(s),
                    "name": cluster.servers[s].name,
                    "role": role,
                    "fits": int(room[k]),
                    "binding": cluster.resources[pos[k]],
                }
            )
    return pd.DataFrame(rows, columns=["server", "name", "role", "fits", "binding"])


def constraint_report(cluster: Cluster, spec: JobSpec, placement: Placement, slot: int) -> pd.DataFrame:
    r"""Every constraint of (3)-(10) that ``placement`` of ``spec`` in ``slot`` breaks, alone on
    an empty cluster.

    Unlike :func:`dlsched.core.schedule.check_allocations`, which raises on the first violation,
    this lists all of them: the model's own constraints (:meth:`OasisModel.placement_violations`:
    (3), (6), (7)), the pools (workers only on worker servers, PS only on PS servers), the arrival
    (9)-(10), and every (server, resource) over capacity, (4) on worker servers and (5) on PS
    servers. An empty report means the independent checker accepts the placement.

    Parameters
    ----------
    cluster : Cluster
        A two-pool cluster.
    spec : JobSpec
        An OASiS job.
    placement : Placement
        Workers and PS of the job in ``slot``.
    slot : int
        The slot (>= 0).

    Returns
    -------
    pandas.DataFrame
        Columns ``constraint, equation, message`` (equation from :data:`CONSTRAINT_EQUATIONS`).

    Raises
    ------
    TypeError, ValueError
        On a non-OASiS job, a cluster without two pools, a non-Placement, a negative slot, or a
        server index outside the cluster.
    """
    _oasis_spec(spec)
    wsrv, psrv = _two_pools(cluster)
    if not isinstance(placement, Placement):
        raise TypeError(f"placement must be a Placement, got {type(placement).__name__}")
    if isinstance(slot, bool) or not isinstance(slot, (int, np.integer)) or slot < 0:
        raise ValueError(f"slot must be an integer >= 0, got {slot!r}")
    for s in placement.servers:
        if s >= cluster.n_servers:
            raise ValueError(f"placement uses server index {s} >= n_servers {cluster.n_servers}")
    rows = [(name, msg) for name, msg in spec.model.placement_violations(spec, placement)]
    for role, pairs, allowed in (("worker", placement.workers, wsrv), ("ps", placement.ps, psrv)):
        for s, c in pairs:
            if s not in allowed:
                rows.append(("role", f"{c} {role}(s) on server {cluster.servers[s].name!r}"))
    if slot < spec.arrival:
        rows.append(("arrival", f"slot {slot} is before the arrival slot {spec.arrival}"))
    used = server_usage(cluster, {spec.job_id: spec}, {spec.job_id: placement})
    over = (used > cluster.capacity * (1 + _EPS) + _EPS) & cluster.hard[None, :]
    for s, r in np.argwhere(over):
        name = "worker_capacity" if s in wsrv else "ps_capacity"
        rows.append(
            (
                name,
                f"{cluster.resources[r]} on server {cluster.servers[s].name!r}: "
                f"{used[s, r]:g} > capacity {cluster.capacity[s, r]:g}",
            )
        )
    return pd.DataFrame(
        [(c, CONSTRAINT_EQUATIONS.get(c, "-"), m) for c, m in rows],
        columns=["constraint", "equation", "message"],
    )


# --------------------------------------------------------------------------- Sec. V-A workload


def jobs_table(workload: Workload) -> pd.DataFrame:
    r"""One row per job with the paper's symbols (Sec. V-A), times in seconds and slots.

    Parameters
    ----------
    workload : Workload
        A workload of OASiS jobs.

    Returns
    -------
    pandas.DataFrame
        Columns ``job, utility_class, a, E, N, M, tau_s`` (:math:`\tau_i` in seconds),
        ``e_over_b_s`` (:math:`e_i/b_i` in seconds), ``minibatch_s``
        (:math:`\tau_i + 2e_i/b_i` in seconds), ``d_min`` (:math:`\lceil E_iM_i(\tau_i +
        2e_i/b_i)\rceil` slots), ``gamma1, gamma2, gamma3``, ``w_gpu, w_cpu, b_gbps, s_cpu,
        B_gbps`` (0 for a resource the job does not demand).

    Raises
    ------
    TypeError, ValueError
        If ``workload`` is not a Workload of OASiS jobs.
    """
    wl = _workload(workload)
    sec = wl.cluster.slot_seconds
    rows = []
    for s in wl.jobs:
        m = s.model
        u = s.utility
        g = (u.gamma1, u.gamma2, u.gamma3) if isinstance(u, Sigmoid) else (math.nan,) * 3
        rows.append(
            {
                "job": s.job_id,
                "utility_class": str(utility_classes([g[1]])[0]) if isinstance(u, Sigmoid) else u.kind,
                "a": s.arrival,
                "E": m.epochs,
                "N": m.chunks,
                "M": m.minibatches,
                "tau_s": m.tau * sec,
                "e_over_b_s": m.comm * sec,
                "minibatch_s": m.minibatch_time * sec,
                "d_min": min_duration(m),
                "gamma1": g[0],
                "gamma2": g[1],
                "gamma3": g[2],
                "w_gpu": float(s.worker_demand.get("gpu", 0.0)),
                "w_cpu": float(s.worker_demand.get("cpu", 0.0)),
                "b_gbps": m.worker_bw,
                "s_cpu": float(s.ps_demand.get("cpu", 0.0)),
                "B_gbps": m.ps_bw,
            }
        )
    return pd.DataFrame(rows)


def utility_curves(
    workload: Workload, horizon: int | None = None, per_class: int | None = None
) -> pd.DataFrame:
    r"""The sigmoid utilities :math:`f_i(d) = \gamma_1/(1 + e^{\gamma_2(d - \gamma_3)})` of the
    jobs, for durations ``d = 0..horizon``, with each job's utility class (Sec. V-A).

    Parameters
    ----------
    workload : Workload
        A workload of OASiS jobs with :class:`~dlsched.core.jobs.Sigmoid` utilities.
    horizon : int, optional
        Largest duration ``d`` (default ``workload.horizon``).
    per_class : int, optional
        Keep only the first ``per_class`` jobs (in workload order) of each class; all if None.

    Returns
    -------
    pandas.DataFrame
        Columns ``job, utility_class, d, utility``; ``horizon + 1`` rows per job.

    Raises
    ------
    TypeError, ValueError
        If a job is not an OASiS job with a Sigmoid utility, no horizon is known, or
        ``horizon``/``per_class`` is not an integer >= 0 / >= 1.
    """
    wl = _workload(workload)
    T = wl.horizon if horizon is None else horizon
    if T is None:
        raise ValueError("utility_curves needs a horizon: workload.horizon is None, pass horizon=")
    if isinstance(T, bool) or not isinstance(T, (int, np.integer)) or T < 0:
        raise ValueError(f"horizon must be an integer >= 0, got {T!r}")
    if per_class is not None and (
        isinstance(per_class, bool) or not isinstance(per_class, (int, np.integer)) or per_class < 1
    ):
        raise ValueError(f"per_class must be an integer >= 1 or None, got {per_class!r}")
    d = np.arange(int(T) + 1)
    frames, seen = [], {}
    for s in wl.jobs:
        if not isinstance(s.utility, Sigmoid):
            raise ValueError(f"job {s.job_id}: utility must be a Sigmoid, got {s.utility.kind!r}")
        cls = str(utility_classes([s.utility.gamma2])[0])
        seen[cls] = seen.get(cls, 0) + 1
        if per_class is not None and seen[cls] > per_class:
            continue
        frames.append(pd.DataFrame({"job": s.job_id, "utility_class": cls, "d": d, "utility": s.utility(d)}))
    if not frames:
        return pd.DataFrame(columns=["job", "utility_class", "d", "utility"])
    return pd.concat(frames, ignore_index=True)


def reading_table(seed: int, readings: Sequence[str] = READINGS, **workload_params) -> pd.DataFrame:
    r"""Schedulability of the same Sec. V-A jobs under each reading of :math:`\tau_i`'s unit.

    Builds ``oasis_workload(numpy.random.default_rng(seed), reading=r, **workload_params)`` for
    every reading ``r`` (both readings draw the same jobs; only the unit of :math:`\tau_i`
    differs, see :mod:`dlsched.oasis.model`) and reports :func:`unschedulable_fraction` and the
    spread of :func:`min_durations`.

    Parameters
    ----------
    seed : int
        Seed of the workload (as ``registry.make_workload("oasis", seed=seed, ...)``).
    readings : sequence of str
        Values of ``reading=`` (default both, :data:`dlsched.oasis.model.READINGS`).
    **workload_params
        Other arguments of :func:`~dlsched.oasis.model.oasis_workload` (``n_jobs``, ``T``, ...).

    Returns
    -------
    pandas.DataFrame
        Index ``reading``; columns ``cannot_finish, never_schedulable, either`` (fractions of
        jobs) and ``d_min_median, d_min_p95, d_min_max`` (slots).

    Raises
    ------
    ValueError
        On a bad seed, reading or workload parameter.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    if "reading" in workload_params:
        raise ValueError("pass the readings through readings=, not reading=")
    if isinstance(readings, str) or not readings:
        raise ValueError(f"readings must be a non-empty sequence of {READINGS}, got {readings!r}")
    rows = []
    for r in readings:
        wl = oasis_workload(np.random.default_rng(int(seed)), reading=r, **workload_params)
        uf = unschedulable_fraction(wl)
        dmin = min_durations(wl)
        rows.append(
            {
                "reading": r,
                "cannot_finish": uf["cannot_finish"],
                "never_schedulable": uf["never_schedulable"],
                "either": uf["either"],
                "d_min_median": float(np.median(dmin)),
                "d_min_p95": float(np.percentile(dmin, 95)),
                "d_min_max": int(dmin.max()),
            }
        )
    return pd.DataFrame(rows).set_index("reading")


# ---------------------------------------------------------------------- price functions (22)-(26)


def _check_params(params, resources) -> tuple[str, ...]:
    if not isinstance(params, PriceParameters):
        raise TypeError(f"params must be PriceParameters, got {type(params).__name__}")
    res = tuple(resources)
    if len(res) != len(params.log_u1):
        raise ValueError(f"resources has {len(res)} names for {len(params.log_u1)} price parameters: {res}")
    return res


def price_table(
    params: PriceParameters, resources: Sequence[str], reference_price: float = 1.0
) -> pd.DataFrame:
    r"""The price parameters (23)-(26) per resource, in logs, and where the price crosses a level.

    :math:`\ln P = \ln L_1 + (g/c)\ln(U_1^r/L_1)` reaches ``reference_price`` at utilisation
    :math:`g/c = (\ln \text{ref} - \ln L_1)/\ln(U_1^r/L_1)` (same for Q with :math:`L_2, U_2^r`).
    A resource that no job demands has ``U = L`` (its price never matters): NaN there.

    Parameters
    ----------
    params : PriceParameters
    resources : sequence of str
        Resource names in the order of ``params`` (``cluster.resources``).
    reference_price : float, default 1
        Price level (> 0) whose crossing utilisation is reported.

    Returns
    -------
    pandas.DataFrame
        Index ``resource``; columns ``ln_U1, ln_U2`` (NaN for a resource not demanded in that
        pool), ``ln_U1_over_L1, ln_U2_over_L2``, ``util_P_at_ref, util_Q_at_ref`` (may exceed 1:
        the price never gets there).

    Raises
    ------
    TypeError, ValueError
        If ``params`` is not PriceParameters, ``resources`` has the wrong length, or
        ``reference_price`` is not a finite number > 0.
    """
    res = _check_params(params, resources)
    if not isinstance(reference_price, (int, float)) or not (0 < reference_price < math.inf):
        raise ValueError(f"reference_price must be a finite number > 0, got {reference_price!r}")
    ref = math.log(reference_price)
    out = {}
    for tag, log_u, log_l in (("1", params.log_u1, params.log_l1), ("2", params.log_u2, params.log_l2)):
        ratio = np.asarray(log_u, dtype=float) - log_l
        used = ratio > 0
        out[f"ln_U{tag}"] = np.where(used, log_u, np.nan)
        out[f"ln_U{tag}_over_L{tag}"] = np.where(used, ratio, np.nan)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[f"util_{'P' if tag == '1' else 'Q'}_at_ref"] = np.where(used, (ref - log_l) / ratio, np.nan)
    cols = ["ln_U1", "ln_U2", "ln_U1_over_L1", "ln_U2_over_L2", "util_P_at_ref", "util_Q_at_ref"]
    return pd.DataFrame(out, index=pd.Index(res, name="resource"))[cols]


def price_curves(params: PriceParameters, resources: Sequence[str], n_points: int = 101) -> pd.DataFrame:
    r"""The price functions (22) in logs: :math:`\ln P_h^r(g) = \ln L_1 + (g/c)\ln(U_1^r/L_1)` and
    :math:`\ln Q_k^r(v)` likewise, for utilisations ``g/c`` from 0 to 1.

    Resources that no job demands in a pool (``U = L``) are left out of that pool.

    Parameters
    ----------
    params : PriceParameters
    resources : sequence of str
        Resource names in the order of ``params``.
    n_points : int, default 101
        Utilisation grid points (>= 2), evenly spaced in [0, 1].

    Returns
    -------
    pandas.DataFrame
        Columns ``pool`` (``"worker (P)"`` or ``"PS (Q)"``), ``resource, utilisation,
        log_price``.

    Raises
    ------
    TypeError, ValueError
        If ``params`` is not PriceParameters, ``resources`` has the wrong length or ``n_points``
        is not an integer >= 2.
    """
    res = _check_params(params, resources)
    if isinstance(n_points, bool) or not isinstance(n_points, (int, np.integer)) or n_points < 2:
        raise ValueError(f"n_points must be an integer >= 2, got {n_points!r}")
    u = np.linspace(0.0, 1.0, int(n_points))
    frames = []
    for pool, price in (("worker (P)", params.worker_price), ("PS (Q)", params.ps_price)):
        ratio = np.asarray(price.log_ratio, dtype=float)
        for r, name in enumerate(res):
            if ratio[r] <= 0:
                continue
            frames.append(
                pd.DataFrame(
                    {
                        "pool": pool,
                        "resource": name,
                        "utilisation": u,
                        "log_price": price.log_lower + u * ratio[r],
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


# ------------------------------------------------------------------ Algorithm 2: one best schedule


def oasis_state_at_arrival(workload: Workload, job_id: int, *, seed: int = 0, **policy_params) -> OASiS:
    """OASiS (Algorithm 1) exactly as it stands when job ``job_id`` arrives.

    Runs :class:`~dlsched.oasis.policy.OASiS` with the workload's true price parameters (23)-(26)
    through the simulator on the jobs that come before ``job_id`` in arrival order (ties by job
    id, the order in which the simulator hands pending jobs to the policy). The returned policy's
    allocations and prices are those Algorithm 1 sees on the arrival of ``job_id``, so
    ``policy.search(spec)`` repeats its admission decision; nothing about ``job_id`` is committed.

    Parameters
    ----------
    workload : Workload
        A workload of OASiS jobs with a horizon.
    job_id : int
        The job about to arrive.
    seed : int, default 0
        Seed of the simulation (OASiS itself draws no random numbers).
    **policy_params
        Other arguments of :class:`~dlsched.oasis.policy.OASiS` (``u_scale``, ``method``, ...).

    Returns
    -------
    OASiS
        The policy, with its state after the earlier jobs.

    Raises
    ------
    TypeError, ValueError
        If ``workload`` is not an OASiS workload with a horizon or ``job_id`` is not one of its
        jobs.
    """
    wl = _workload(workload)
    if wl.horizon is None:
        raise ValueError("oasis_state_at_arrival needs a workload with a horizon T")
    specs = wl.specs
    if isinstance(job_id, bool) or not isinstance(job_id, (int, np.integer)) or int(job_id) not in specs:
        raise ValueError(f"job_id must be a job of the workload, got {job_id!r}")
    probe = specs[int(job_id)]
    key = (probe.arrival, probe.job_id)
    before = tuple(s for s in wl.jobs if (s.arrival, s.job_id) < key)
    policy = OASiS(price_parameters(wl), **policy_params)
    if before:
        simulate(Workload(wl.cluster, before, name=wl.name, horizon=wl.horizon), policy, seed=seed)
    else:
        policy.prepare(wl.cluster, wl.horizon)
    return policy


def admission_table(result: SimulationResult) -> pd.DataFrame:
    r"""The admitted jobs of an OASiS run with the two terms of their payoff (27).

    ``payoff`` is :math:`\mu_i` recorded by Algorithm 1, ``utility_planned`` is
    :math:`f_i(\hat t_i - a_i)` at the planned completion, and ``cost`` is their difference,
    the price of the resources the schedule takes (28).

    Parameters
    ----------
    result : SimulationResult
        A run of :class:`~dlsched.oasis.policy.OASiS` (job table with ``payoff`` and
        ``planned_completion``).

    Returns
    -------
    pandas.DataFrame
        Columns ``job, utility_class, arrival, planned_completion, utility_planned, payoff, cost,
        slots`` (slots with at least one worker), ``worker_servers`` (distinct worker servers
        used); sorted by job.

    Raises
    ------
    TypeError, ValueError
        If ``result`` is not a SimulationResult of an OASiS run.
    """
    if not isinstance(result, SimulationResult):
        raise TypeError(f"result must be a SimulationResult, got {type(result).__name__}")
    jobs = result.jobs
    if "payoff" not in jobs or "planned_completion" not in jobs:
        raise ValueError(
            f"result must come from an OASiS run (policy {result.policy!r} has no payoff column)"
        )
    specs = result.workload.specs
    adm = jobs[jobs["admitted"]].sort_values("job_id")
    alloc = result.allocations
    workers = alloc[alloc["role"] == "worker"]
    n_slots = workers.groupby("job")["slot"].nunique()
    n_servers = workers.groupby("job")["server"].nunique()
    rows = []
    for j, plan, mu in zip(adm["job_id"], adm["planned_completion"], adm["payoff"], strict=True):
        s = specs[int(j)]
        f = float(s.utility(float(plan) - s.arrival))
        rows.append(
            {
                "job": int(j),
                "utility_class": s.name,
                "arrival": s.arrival,
                "planned_completion": int(plan),
                "utility_planned": f,
                "payoff": float(mu),
                "cost": f - float(mu),
                "slots": int(n_slots.get(int(j), 0)),
                "worker_servers": int(n_servers.get(int(j), 0)),
            }
        )
    cols = ["job", "utility_class", "arrival", "planned_completion", "utility_planned", "payoff", "cost",
            "slots", "worker_servers"]  # fmt: skip
    return pd.DataFrame(rows, columns=cols)


def choose_probe(table: pd.DataFrame, min_slots: int = 2) -> int:
    """The admitted job whose schedule paid the most for resources, among those running in at
    least ``min_slots`` slots (ties: the smallest job id): a job for which the prices mattered.

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`admission_table`.
    min_slots : int, default 2

    Returns
    -------
    int
        The job id.

    Raises
    ------
    ValueError
        If ``table`` lacks the columns ``job, cost, slots`` or no job qualifies.
    """
    missing = {"job", "cost", "slots"} - set(table.columns)
    if missing:
        raise ValueError(f"table lacks columns {sorted(missing)} (use admission_table)")
    ok = table[table["slots"] >= min_slots]
    if ok.empty:
        raise ValueError(f"no admitted job runs in at least min_slots={min_slots} slots")
    best = ok.sort_values(["cost", "job"], ascending=[False, True], kind="stable")
    return int(best["job"].iloc[0])


def schedule_frame(best: BestSchedule, cluster: Cluster) -> pd.DataFrame:
    """A best schedule (output of Algorithm 2) as a tidy table.

    Parameters
    ----------
    best : BestSchedule
    cluster : Cluster
        The cluster whose server indices the placements use.

    Returns
    -------
    pandas.DataFrame
        Columns ``slot, server, name, role, count`` (role ``"worker"`` or ``"ps"``), sorted by
        slot, role (workers first) and server; empty when the job was rejected.

    Raises
    ------
    TypeError, ValueError
        If ``best`` is not a BestSchedule or it places a task on a server outside ``cluster``.
    """
    if not isinstance(best, BestSchedule):
        raise TypeError(f"best must be a BestSchedule, got {type(best).__name__}")
    if not isinstance(cluster, Cluster):
        raise TypeError(f"cluster must be a Cluster, got {type(cluster).__name__}")
    rows = []
    for t in sorted(best.placements):
        p = best.placements[t]
        for role, pairs in (("worker", p.workers), ("ps", p.ps)):
            for s, c in pairs:
                if s >= cluster.n_servers:
                    raise ValueError(f"schedule uses server index {s} >= n_servers {cluster.n_servers}")
                rows.append((int(t), int(s), cluster.servers[s].name, role, int(c)))
    return pd.DataFrame(rows, columns=["slot", "server", "name", "role", "count"])


def _slot_range(best: BestSchedule, slots) -> list[int]:
    if slots is not None:
        return [int(t) for t in slots]
    if not best.placements:
        return []
    return list(range(min(best.placements), max(best.placements) + 1))


def schedule_grid(
    best: BestSchedule, cluster: Cluster, role: str, slots: Sequence[int] | None = None
) -> pd.DataFrame:
    r"""Tasks of one role per (server, slot): :math:`y_{ih}(t)` (role ``"worker"``) or
    :math:`z_{ik}(t)` (``"ps"``), zeros included, for a heatmap.

    Parameters
    ----------
    best : BestSchedule
    cluster : Cluster
    role : {"worker", "ps"}
    slots : sequence of int, optional
        Columns; default every slot from the first to the last slot of the schedule.

    Returns
    -------
    pandas.DataFrame
        int64; index ``server`` (names of all servers of the role, cluster order), columns
        ``slot``.

    Raises
    ------
    TypeError, ValueError
        As :func:`schedule_frame`, or for a bad role.
    """
    _role(role)
    frame = schedule_frame(best, cluster)
    cols = _slot_range(best, slots)
    servers = cluster.servers_for(role)
    grid = pd.DataFrame(0, index=[cluster.servers[s].name for s in servers], columns=cols, dtype=np.int64)
    sub = frame[(frame["role"] == role) & frame["slot"].isin(cols)]
    for name, t, c in zip(sub["name"], sub["slot"], sub["count"], strict=True):
        grid.loc[name, t] += c
    grid.index.name, grid.columns.name = "server", "slot"
    return grid


def room_grid(policy: OASiS, spec: JobSpec, role: str, slots: Sequence[int]) -> pd.DataFrame:
    r"""How many more workers (PS) of ``spec`` fit on every server of one role per slot in the
    policy's current state: the bounds (30)/(31) of Algorithm 2,
    :math:`\min_r \lfloor (c_h^r - g_h^r(t))/w_i^r\rfloor` over the resources the job demands
    (:func:`dlsched.oasis.policy.unit_caps`).

    Parameters
    ----------
    policy : OASiS
        A prepared or simulated OASiS (e.g. from :func:`oasis_state_at_arrival`).
    spec : JobSpec
        The OASiS job whose workers/PS are counted.
    role : {"worker", "ps"}
    slots : sequence of int
        Slots ``0 <= t < T`` (columns).

    Returns
    -------
    pandas.DataFrame
        int64; index ``server`` (names, cluster order), columns ``slot``.

    Raises
    ------
    TypeError, ValueError
        If ``policy`` is not an OASiS with price tables, ``spec`` not an OASiS job, for a bad
        role or a slot out of range.
    """
    if not isinstance(policy, OASiS):
        raise TypeError(f"policy must be an OASiS, got {type(policy).__name__}")
    if getattr(policy, "_T", None) is None:
        raise ValueError("policy has no price tables yet: run it or call policy.prepare(cluster, T)")
    _oasis_spec(spec)
    _role(role)
    st = policy.state()
    cluster = policy.cluster
    if role == "worker":
        used, cap, demand = st["used_w"], st["capacity_w"], cluster.vector(spec.worker_demand)
    else:
        used, cap, demand = st["used_p"], st["capacity_p"], cluster.vector(spec.ps_demand)
    cols = [int(t) for t in slots]
    for t in cols:
        if not 0 <= t < used.shape[0]:
            raise ValueError(f"slot {t} outside 0..{used.shape[0] - 1}")
    room = unit_caps(cap, used[cols], demand)  # (len(cols), servers)
    names = [cluster.servers[s].name for s in cluster.servers_for(role)]
    grid = pd.DataFrame(room.T.astype(np.int64), index=names, columns=cols)
    grid.index.name, grid.columns.name = "server", "slot"
    return grid


def payoff_curve(spec: JobSpec, best: BestSchedule) -> pd.DataFrame:
    r"""Algorithm 2 lines 2-8 as a table: for every completion slot :math:`\hat t_i`, the utility
    :math:`f_i(\hat t_i - a_i)`, the cheapest cost of a schedule ending by :math:`\hat t_i`
    (DP_COST) and the payoff :math:`f_i - \text{cost}`.

    Needs ``best.costs_by_completion`` (``OASiS.search(spec, prune=False)`` evaluates every slot;
    with pruning, slots not evaluated are NaN).

    Parameters
    ----------
    spec : JobSpec
        The job that ``best`` schedules.
    best : BestSchedule
        Output of Algorithm 2 for ``spec``.

    Returns
    -------
    pandas.DataFrame
        Columns ``completion, utility, cost, payoff, feasible, chosen``; ``cost``/``payoff`` are
        NaN where no schedule exists (``feasible`` False) or the slot was not evaluated;
        ``chosen`` marks ``best.completion``.

    Raises
    ------
    TypeError, ValueError
        If ``spec`` is not an OASiS job, ``best`` not a BestSchedule, or ``best`` has no
        ``costs_by_completion``.
    """
    _oasis_spec(spec)
    if not isinstance(best, BestSchedule):
        raise TypeError(f"best must be a BestSchedule, got {type(best).__name__}")
    if best.costs_by_completion is None:
        raise ValueError("best.costs_by_completion is None: use OASiS.search(spec, prune=False)")
    cost = np.asarray(best.costs_by_completion, dtype=float)
    k = np.arange(len(cost))
    utility = np.asarray(spec.utility(k), dtype=float)
    feasible = np.isfinite(cost)
    cost = np.where(feasible, cost, np.nan)
    return pd.DataFrame(
        {
            "completion": spec.arrival + k,
            "utility": utility,
            "cost": cost,
            "payoff": utility - cost,
            "feasible": feasible,
            "chosen": (spec.arrival + k) == (best.completion if best.completion is not None else -1),
        }
    )


# --------------------------------------------------------------------- Algorithm 1: price history


def price_history(policy: OASiS) -> pd.DataFrame:
    r"""Mean log price per slot after every admission of an OASiS run with
    ``record_prices=True``: :math:`\frac{1}{HR}\sum_{h,r}\ln p_h^r(t)` over the worker servers
    (:meth:`OASiS.mean_log_price`), exact even where the price underflows.

    Parameters
    ----------
    policy : OASiS
        The policy after a simulation, constructed with ``record_prices=True``.

    Returns
    -------
    pandas.DataFrame
        Columns ``admission`` (1 = after the first admitted job), ``job, slot, mean_log_price``;
        empty when no job was admitted.

    Raises
    ------
    TypeError, ValueError
        If ``policy`` is not an OASiS or did not record prices.
    """
    if not isinstance(policy, OASiS):
        raise TypeError(f"policy must be an OASiS, got {type(policy).__name__}")
    if not policy.record_prices:
        raise ValueError("policy did not record prices: construct it with OASiS(..., record_prices=True)")
    snaps = getattr(policy, "price_snapshots", [])
    jobs = [int(h["job"]) for h in getattr(policy, "history", [])]
    if len(snaps) != len(jobs):
        raise ValueError(f"{len(snaps)} price snapshots for {len(jobs)} admissions")
    frames = [
        pd.DataFrame({"admission": i + 1, "job": j, "slot": np.arange(len(s)), "mean_log_price": s})
        for i, (j, s) in enumerate(zip(jobs, snaps, strict=True))
    ]
    if not frames:
        return pd.DataFrame(columns=["admission", "job", "slot", "mean_log_price"])
    return pd.concat(frames, ignore_index=True)

r"""Small tables behind notebook ``30_pdors_model``: PD-ORS's model next to the code.

M. Yu, J. Liu, C. Wu, B. Ji, E. S. Bentley, "Toward Efficient Online Scheduling for Distributed
Machine Learning Systems", IEEE TNSE (arXiv:2108.02917); ``shared/spec/pdors.md``.

Nothing here schedules: each function turns an object of the PD-ORS wing (a job, a workload,
price parameters, a :class:`~dlsched.pdors.policy.PdorsSchedule`, a
:class:`~dlsched.pdors.policy.SlotTheta`, a simulation result) into a :class:`pandas.DataFrame`
that the notebook prints or draws. By section of the notebook:

=====================================  =========================================================
paper                                  functions
=====================================  =========================================================
Sec. 2, per-sample time, Fact 1, (4)   :func:`fact1_placements`, :func:`rate_table`
numerical results, workload            :func:`choices_table`, :func:`job_frame`,
                                       :func:`duration_summary`, :func:`duration_frame`,
                                       :func:`offered_work`, :func:`reading_comparison`
price function (12)-(14)               :func:`price_summary`, :func:`q_curve`
Algorithms 2-4 for one job             :func:`state_before`, :func:`pick_probe`,
                                       :func:`completion_frame`, :func:`schedule_table`,
                                       :func:`theta_table`, :func:`external_detail`
Fact 1 vs bandwidth (Alg. 4 step 12)   :func:`with_external_bandwidth`, :func:`bandwidth_sweep`,
                                       :func:`branch_summary`
Algorithm 1 over a run                 :func:`run_summary`, :func:`colocation_timeline`,
                                       :func:`rejected_alone`
=====================================  =========================================================

Conventions: slots are 0-based; times printed "in seconds" use the cluster's ``slot_seconds``;
``d_min`` is :func:`dlsched.pdors.policy.min_duration` (all :math:`F_i` workers on the internal
bus from the arrival on).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from dlsched.core.jobs import JobSpec, PdorsModel, Workload
from dlsched.core.schedule import Placement
from dlsched.core.simulator import SimulationResult, policy_rng, simulate
from dlsched.pdors.model import READINGS, pdors_workload, sync_slots
from dlsched.pdors.policy import (
    PDORS,
    PdorsJob,
    PdorsPrices,
    PdorsSchedule,
    SlotSolver,
    SlotTheta,
    external_demand,
    g_delta,
    internal_counts,
    min_duration,
    sample_time,
)

__all__ = [
    "bandwidth_sweep",
    "branch_summary",
    "choices_table",
    "colocation_timeline",
    "completion_frame",
    "duration_frame",
    "duration_summary",
    "external_detail",
    "fact1_placements",
    "job_frame",
    "offered_work",
    "pick_probe",
    "price_summary",
    "q_curve",
    "rate_table",
    "reading_comparison",
    "rejected_alone",
    "run_summary",
    "schedule_table",
    "state_before",
    "theta_table",
    "with_external_bandwidth",
]


def _model_of(spec: JobSpec) -> PdorsModel:
    if not isinstance(spec, JobSpec) or not isinstance(spec.model, PdorsModel):
        got = type(spec.model).__name__ if isinstance(spec, JobSpec) else type(spec).__name__
        raise ValueError(f"spec must be a JobSpec with a PdorsModel, got {got}")
    return spec.model


# ==================================================================== Sec. 2: job model, Fact 1


def fact1_placements(workers: int, ps: int) -> dict[str, Placement]:
    r"""The four placement cases of Fact 1 for ``workers`` workers and ``ps`` PSs on machines 0-3.

    (c) and (d) are the cases the paper's figure captions name; (a) and (b) are our examples of
    the other two pictures (several machines):

    * (a) workers split over machines 0-1, PSs over machines 2-3;
    * (b) workers and PSs both split over machines 0-1 (co-located, but on two machines);
    * (c) all workers on machine 0, all PSs on machine 1;
    * (d) everything on machine 0 (the only internal case).

    Parameters
    ----------
    workers, ps : int
        Total workers and PSs (each >= 2, so that they can be split over two machines).

    Returns
    -------
    dict of str to Placement
        Case label to placement, in the order (a)-(d).

    Raises
    ------
    ValueError
        If ``workers`` or ``ps`` is not an integer >= 2.
    """
    for name, value in (("workers", workers), ("ps", ps)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 2:
            raise ValueError(f"fact1_placements: {name} must be an integer >= 2, got {value!r}")
    w0, p0 = int(workers) // 2, int(ps) // 2
    w1, p1 = int(workers) - w0, int(ps) - p0
    return {
        "(a) W={0,1}, P={2,3}": Placement.of({0: w0, 1: w1}, {2: p0, 3: p1}),
        "(b) W=P={0,1}": Placement.of({0: w0, 1: w1}, {0: p0, 1: p1}),
        "(c) W={0}, P={1}": Placement.of({0: int(workers)}, {1: int(ps)}),
        "(d) W=P={0}": Placement.of({0: int(workers)}, {0: int(ps)}),
    }


def rate_table(spec: JobSpec, placements: Mapping[str, Placement], slot_seconds: float) -> pd.DataFrame:
    r"""Per-sample time and training rate of ``spec`` under each placement (Sec. 2, Fact 1).

    A worker needs :math:`\tau_i + \frac{w}{s}\frac{2g_i}{F_i b}` per sample, with :math:`b =
    b^{(i)}` iff every worker and PS is on one machine (Fact 1) and :math:`b^{(e)}` otherwise;
    ``w`` workers train ``w`` over that many samples per slot (:meth:`PdorsModel.rate`).

    Parameters
    ----------
    spec : JobSpec
        A job with a :class:`~dlsched.core.jobs.PdorsModel`.
    placements : mapping of str to Placement
        Label to placement (e.g. :func:`fact1_placements`).
    slot_seconds : float
        Slot length, to print times in seconds.

    Returns
    -------
    pandas.DataFrame
        One row per placement: ``case``, ``workers``, ``ps``, ``worker_machines`` (:math:`|W|`),
        ``ps_machines`` (:math:`|P|`), ``bandwidth`` ("internal"/"external"),
        ``comm_ms`` and ``sample_ms`` (communication and total time per sample, ms),
        ``samples_per_slot``, ``slots_for_job`` (:math:`E_iK_i` over the rate) and ``violations``
        (the model constraints the placement breaks: ``max_workers`` is (4), ``ps_ratio`` the
        worker:PS ratio :math:`w \le \gamma_i s`; empty if none).
    """
    m = _model_of(spec)
    if not slot_seconds > 0:
        raise ValueError(f"rate_table: slot_seconds must be > 0, got {slot_seconds!r}")
    rows = []
    for label, p in placements.items():
        w, s = p.n_workers, p.n_ps
        colocated = p.colocated
        per_sample = m.sample_time(w, s, colocated) if w and s else math.inf
        rate = m.rate(spec, p, None)
        broken = sorted({name for name, _ in m.placement_violations(spec, p)})
        rows.append({
            "case": label,
            "workers": w,
            "ps": s,
            "worker_machines": len({h for h, _ in p.workers}),
            "ps_machines": len({h for h, _ in p.ps}),
            "bandwidth": "internal" if colocated else "external",
            "comm_ms": (per_sample - m.tau) * slot_seconds * 1e3,
            "sample_ms": per_sample * slot_seconds * 1e3,
            "samples_per_slot": rate,
            "slots_for_job": m.total_work / rate if rate > 0 else math.inf,
            "violations": ", ".join(broken),
        })
    return pd.DataFrame(rows)


# ==================================================================== the workload, readings of tau


_PAPER_KEYS = ("epochs", "samples", "tau", "batch", "ratio", "theta1", "theta2", "theta3")


def choices_table(workload: Workload) -> pd.DataFrame:
    """The parameters of a ``pdors_workload``, each marked as the paper's range or our choice.

    Parameters
    ----------
    workload : Workload
        Built by :func:`dlsched.pdors.model.pdors_workload` (its ``params``).

    Returns
    -------
    pandas.DataFrame
        Columns ``parameter``, ``value`` (as text) and ``source`` ("paper" or "ours").
    """
    if not workload.params:
        raise ValueError("choices_table: the workload has no params (build it with pdors_workload)")
    rows = []
    for key, value in workload.params.items():
        text = ", ".join(map(str, value)) if isinstance(value, tuple) else str(value)
        if key == "tau":
            text += " (seconds)" if workload.params.get("reading") == "seconds" else " (slots)"
        rows.append({"parameter": key, "value": text, "source": "paper" if key in _PAPER_KEYS else "ours"})
    return pd.DataFrame(rows)


def job_frame(workload: Workload) -> pd.DataFrame:
    r"""One row per job: the paper's job parameters, in the units a reader knows.

    Returns
    -------
    pandas.DataFrame
        ``job``, ``arrival``, ``E``, ``K``, ``F``, ``gamma``, ``tau_ms`` (per sample),
        ``sync_e_s`` and ``sync_i_s`` (:math:`2g_i/b` in seconds), ``d_min`` (slots),
        ``theta1``, ``theta2``, ``theta3``.
    """
    sec = workload.cluster.slot_seconds
    rows = []
    for spec in workload.jobs:
        m = _model_of(spec)
        u = spec.utility
        rows.append({
            "job": spec.job_id, "arrival": spec.arrival, "E": m.epochs, "K": m.samples, "F": m.batch,
            "gamma": m.ratio, "tau_ms": m.tau * sec * 1e3, "sync_e_s": m.sync_external * sec,
            "sync_i_s": m.sync_internal * sec, "d_min": min_duration(m),
            "theta1": u.gamma1, "theta2": u.gamma2, "theta3": u.gamma3,
        })  # fmt: skip
    return pd.DataFrame(rows)


def _durations(workload: Workload) -> np.ndarray:
    return np.array([min_duration(_model_of(s)) for s in workload.jobs], dtype=np.int64)


def duration_summary(workloads: Mapping[str, Workload], horizons: Sequence[int] = (20, 80)) -> pd.DataFrame:
    r"""Percentiles of :math:`d_i^{min}` per workload and the share of jobs with
    :math:`d_i^{min} \le T` for each ``T`` in ``horizons``.

    Parameters
    ----------
    workloads : mapping of str to Workload
        Label (e.g. the reading of :math:`\tau_i`) to workload.
    horizons : sequence of int
        Horizons ``T`` (slots).

    Returns
    -------
    pandas.DataFrame
        Indexed by label: ``jobs``, ``p10``, ``p25``, ``p50``, ``p75``, ``p90``, ``max`` and
        ``within_T<T>`` (fractions).
    """
    out = {}
    for label, wl in workloads.items():
        d = _durations(wl)
        row: dict[str, float] = {"jobs": float(len(d))}
        for q in (10, 25, 50, 75, 90):
            row[f"p{q}"] = float(np.percentile(d, q))
        row["max"] = float(d.max())
        for T in horizons:
            row[f"within_T{int(T)}"] = float(np.mean(d <= T))
        out[label] = row
    return pd.DataFrame.from_dict(out, orient="index")


def duration_frame(workloads: Mapping[str, Workload]) -> pd.DataFrame:
    """Tidy ``label``, ``d_min`` (slots) for a figure of :math:`d_i^{min}` per workload."""
    parts = [pd.DataFrame({"reading": label, "d_min": _durations(wl)}) for label, wl in workloads.items()]
    return pd.concat(parts, ignore_index=True)


def offered_work(workload: Workload, *, n_jobs: int | None = None,
                 horizon: int | None = None) -> pd.DataFrame:
    r"""Resources the jobs need at best against what the cluster has over the horizon.

    Job :math:`i` needs at least :math:`W_i = E_iK_i(\tau_i + 2g_i\gamma_i/(b^{(i)}F_i))`
    worker-slots (every slot on the internal bus) and :math:`W_i/\gamma_i` PS-slots, i.e.
    :math:`W_i(\alpha_i^r + \beta_i^r/\gamma_i)` units of resource ``r`` times slots. Summed over
    the jobs (or the mean per job times ``n_jobs``) and divided by :math:`T\sum_h C_h^r`.

    Parameters
    ----------
    workload : Workload
    n_jobs : int, optional
        Scale the mean demand per job to this many jobs (e.g. measure on 2000 jobs, report for
        the 50 of a figure); default: the workload's own number of jobs.
    horizon : int, optional
        ``T``; default the workload's horizon.

    Returns
    -------
    pandas.DataFrame
        Indexed by resource: ``demand`` and ``capacity`` (resource-slots) and ``ratio``
        (demand / capacity). The cluster can do at most ``1 / max(ratio)`` of the work.
    """
    T = workload.horizon if horizon is None else int(horizon)
    if T is None or T < 1:
        raise ValueError(f"offered_work needs a horizon >= 1, got {T!r}")
    if not workload.jobs:
        raise ValueError("offered_work needs at least one job")
    c = workload.cluster
    need = np.zeros(len(c.resources))
    for spec in workload.jobs:
        m = _model_of(spec)
        slots = m.total_work * sample_time(m, True)
        need += slots * (c.vector(spec.worker_demand) + c.vector(spec.ps_demand) / m.ratio)
    if n_jobs is not None:
        need *= n_jobs / len(workload.jobs)
    have = T * c.capacity.sum(axis=0)
    return pd.DataFrame({"demand": need, "capacity": have, "ratio": need / have}, index=list(c.resources))


def reading_comparison(seeds: Iterable[int], readings: Sequence[str] = READINGS, *,
                       policy_params: Mapping[str, object] | None = None, **sizes) -> pd.DataFrame:
    r"""PD-ORS on the same workloads under each reading of :math:`\tau_i` (one run per pair).

    Parameters
    ----------
    seeds : iterable of int
        Workload and policy seeds.
    readings : sequence of str
        Values of ``reading=`` of :func:`~dlsched.pdors.model.pdors_workload`.
    policy_params : mapping, optional
        Keyword arguments of :meth:`PDORS.from_workload`.
    **sizes
        ``n_jobs``, ``n_machines``, ``T``, ... of :func:`~dlsched.pdors.model.pdors_workload`.

    Returns
    -------
    pandas.DataFrame
        One row per (reading, seed): ``finishable`` (jobs with :math:`a_i + d_i^{min} \le T`),
        ``admitted``, ``finished``, ``total_utility`` and ``wall_seconds`` (of the run; volatile).
    """
    rows = []
    for seed in seeds:
        for reading in readings:
            wl = pdors_workload(np.random.default_rng(int(seed)), reading=reading, **sizes)
            res = simulate(wl, PDORS.from_workload(wl, **dict(policy_params or {})), seed=int(seed))
            d = _durations(wl)
            arrivals = np.array([s.arrival for s in wl.jobs])
            rows.append({
                "reading": reading, "seed": int(seed),
                "finishable": int(np.sum(arrivals + d <= wl.horizon)),
                "admitted": int(res.jobs["admitted"].sum()),
                "finished": int((res.jobs["status"] == "finished").sum()),
                "total_utility": float(res.jobs["utility"].sum()),
                "wall_seconds": res.wall_seconds,
            })  # fmt: skip
    return pd.DataFrame(rows)


# ==================================================================== price function (12)-(14)


def price_summary(prices: PdorsPrices, resources: Sequence[str]) -> pd.DataFrame:
    r"""Per resource: :math:`U^r` (13), :math:`\ln U^r`, :math:`\ln(U^r/L)` and ``rho_at_1``, the
    utilisation :math:`\rho/C` at which :math:`Q^r` of (12) reaches 1 (NaN if it never does)."""
    if len(resources) != len(prices.log_u):
        raise ValueError(f"price_summary: {len(resources)} resources for {len(prices.log_u)} prices")
    span = prices.log_u - prices.log_l
    with np.errstate(divide="ignore", invalid="ignore"):
        at_one = np.where(span > 0, -prices.log_l / span, np.nan)
    at_one = np.where((at_one >= 0) & (at_one <= 1), at_one, np.nan)
    return pd.DataFrame({"U": prices.upper, "ln_U": prices.log_u, "ln_U_over_L": span, "rho_at_1": at_one},
                        index=list(resources))


def q_curve(prices: PdorsPrices, resources: Sequence[str], points: int = 51) -> pd.DataFrame:
    r"""Tidy :math:`Q^r(\rho) = L(U^r/L)^{\rho/C}` of (12) on a grid of utilisations
    :math:`\rho/C \in [0, 1]`: columns ``resource``, ``utilisation``, ``Q``, ``log10_Q``."""
    if len(resources) != len(prices.log_u):
        raise ValueError(f"q_curve: {len(resources)} resources for {len(prices.log_u)} prices")
    x = np.linspace(0.0, 1.0, int(points))
    parts = []
    for r, lu in zip(resources, prices.log_u, strict=True):
        ln_q = prices.log_l + x * (lu - prices.log_l)
        parts.append(pd.DataFrame({"resource": r, "utilisation": x, "Q": np.exp(ln_q),
                                   "log10_Q": ln_q / math.log(10)}))
    return pd.concat(parts, ignore_index=True)


# ==================================================================== Algorithms 2-4 on one job


def state_before(workload: Workload, job_id: int, *, seed: int = 0, **params) -> PDORS:
    """PD-ORS exactly as it was when job ``job_id`` arrived in a run with ``seed``.

    Algorithm 1 handles the jobs one by one in arrival order (ties by job id), so running it on
    the jobs before ``job_id`` gives the usage, prices and random stream the job met.

    Parameters
    ----------
    workload : Workload
        With a horizon.
    job_id : int
    seed : int
        Seed of the run (the rounding's random stream).
    **params
        Policy parameters of :class:`~dlsched.pdors.policy.PDORS`.

    Returns
    -------
    PDORS
    """
    if workload.horizon is None:
        raise ValueError("state_before needs a workload with a horizon")
    ids = [s.job_id for s in workload.jobs]
    if job_id not in ids:
        raise ValueError(f"state_before: job_id={job_id!r} is not a job of the workload")
    pol = PDORS.from_workload(workload, **params)
    earlier = workload.jobs[: ids.index(job_id)]
    if earlier:  # the first arrival always triggers a decision, which sizes the price tables
        simulate(Workload(workload.cluster, earlier, horizon=workload.horizon), pol, seed=seed)
    else:
        pol.prepare(workload.cluster, workload.horizon, policy_rng(seed))
    return pol


def pick_probe(result: SimulationResult) -> int:
    """An admitted job of a PD-ORS run worth looking at: the longest planned schedule
    (``planned_completion - arrival``), then the latest arrival (the most jobs decided before
    it, so the most loaded cluster), then the lowest id.

    Raises
    ------
    ValueError
        If no job was admitted or the table has no PD-ORS columns.
    """
    jobs = result.jobs
    if "planned_completion" not in jobs:
        raise ValueError("pick_probe needs a PD-ORS result (column planned_completion)")
    adm = jobs[jobs["admitted"].astype(bool)]
    if adm.empty:
        raise ValueError("pick_probe: no job was admitted")
    span = adm["planned_completion"] - adm["arrival"]
    ranked = adm.assign(span=span, neg_id=-adm["job_id"]).sort_values(
        ["span", "arrival", "neg_id"], ascending=False, kind="stable")
    return int(ranked["job_id"].iloc[0])


def completion_frame(spec: JobSpec, schedule: PdorsSchedule) -> pd.DataFrame:
    r"""Algorithm 2's enumeration: for each completion slot :math:`\tilde t_i`, the utility
    :math:`u_i(\tilde t_i - a_i)`, the cheapest cost :math:`\Theta(\tilde t_i, V_i)` (inf: no
    schedule finishes by then) and the payoff; ``chosen`` marks :math:`\tilde t_i` of the schedule.
    Needs ``search(spec, prune=False)`` (every slot evaluated)."""
    cost = schedule.costs_by_completion
    if cost is None:
        raise ValueError("completion_frame: the schedule has no costs_by_completion")
    cost = np.asarray(cost, dtype=float)
    slots = spec.arrival + np.arange(len(cost))
    util = np.asarray(spec.utility(np.arange(len(cost))), dtype=float)
    return pd.DataFrame({
        "completion": slots, "utility": util, "cost": cost, "payoff": util - cost,
        "chosen": slots == (schedule.completion if schedule.completion is not None else -1),
    })  # fmt: skip


def schedule_table(schedule: PdorsSchedule) -> pd.DataFrame:
    """Per slot of a schedule: DP ``units``, ``samples`` (``units x unit_samples``),
    ``workers``, ``ps``, ``machines`` and Algorithm 4's ``branch``."""
    rows = []
    for t in sorted(schedule.units):
        p = schedule.placements[t]
        rows.append({
            "slot": t, "units": schedule.units[t], "samples": schedule.units[t] * schedule.unit_samples,
            "workers": p.n_workers, "ps": p.n_ps, "machines": len(p.servers), "branch": schedule.branches[t],
        })  # fmt: skip
    return pd.DataFrame(rows, columns=["slot", "units", "samples", "workers", "ps", "machines", "branch"])


def theta_table(theta: SlotTheta, job: PdorsJob, *, delta: float = 0.1, variant: str = "31R") -> pd.DataFrame:
    r"""Algorithm 4 level by level: :math:`\theta(t, v)` and both branches for ``v`` units.

    Parameters
    ----------
    theta : SlotTheta
        From ``PDORS.slot_theta(job, t, skip_dominated=False)`` (both branches evaluated).
    job : PdorsJob
        From ``PDORS.job(spec)``.
    delta, variant : float, str
        The policy's :math:`\delta` and :math:`G_\delta` variant.

    Returns
    -------
    pandas.DataFrame
        ``v``; internal ``w_int``/``s_int`` (steps 3-6) and ``internal`` cost; external RHS of
        (26) ``D_w``, LP optimum ``lp``, ``G_delta``, ``G_lp`` (:math:`G_\delta\cdot LP^*`) and the
        cheapest feasible rounded ``external`` cost (inf: none); ``theta`` and ``branch``.
    """
    v = np.arange(len(theta.cost))
    w_int, s_int = internal_counts(v, job)
    dw = external_demand(v, job)
    with np.errstate(divide="ignore"):
        g = np.where(v > 0, g_delta(np.where(v > 0, dw, 1.0), delta, job.model.ratio, variant), np.nan)
    return pd.DataFrame({
        "v": v, "w_int": w_int, "s_int": s_int, "internal": theta.internal, "D_w": dw, "lp": theta.lp,
        "G_delta": g, "G_lp": g * theta.lp, "external": theta.external, "theta": theta.cost,
        "branch": theta.branch,
    })  # fmt: skip


# ==================================================================== Fact 1 against the bandwidths


def with_external_bandwidth(spec: JobSpec, b_gbps: float, *, b_reference_gbps: float,
                            slot_seconds: float) -> JobSpec:
    r"""``spec`` with :math:`b^{(e)}` = ``b_gbps``: ``sync_external`` = :math:`2g_i/b^{(e)}` in slots
    (:func:`~dlsched.pdors.model.sync_slots`), :math:`g_i` recovered from the current
    ``sync_external`` at ``b_reference_gbps``. Everything else is unchanged.

    Raises
    ------
    ValueError
        If the new external link would be faster than the internal bus (Fact 1 needs
        :math:`b^{(e)} \le b^{(i)}`), or a bandwidth is not positive.
    """
    m = _model_of(spec)
    if not (b_gbps > 0 and b_reference_gbps > 0 and slot_seconds > 0):
        raise ValueError(f"with_external_bandwidth: bandwidths and slot_seconds must be > 0, got "
                         f"{b_gbps!r}, {b_reference_gbps!r}, {slot_seconds!r}")
    g_mb = m.sync_external * b_reference_gbps * 1000.0 * slot_seconds / 16.0
    new = float(sync_slots(g_mb, b_gbps, slot_seconds))
    if new < m.sync_internal * (1 - 1e-12):
        raise ValueError(f"with_external_bandwidth: b_gbps={b_gbps:g} is faster than the internal bus")
    return dataclasses.replace(spec, model=dataclasses.replace(m, sync_external=max(new, m.sync_internal)))


def bandwidth_sweep(policy: PDORS, spec: JobSpec, slot: int, b_values: Sequence[float], *,
                    b_reference_gbps: float) -> pd.DataFrame:
    r"""Algorithm 4 in one slot of ``policy``'s current state for ``spec`` at each :math:`b^{(e)}`.

    Both branches are evaluated at every level (``skip_dominated=False``); the rounding draws from
    the policy's generator. The DP unit and ``v_max`` depend only on the internal bandwidth, so
    every bandwidth shares the same levels ``v``.

    Returns
    -------
    pandas.DataFrame
        ``b_external``, ``v``, ``internal``, ``lp``, ``G_delta`` (of the policy's variant and
        :math:`\delta`), ``external``, ``theta``, ``branch`` (levels ``v >= 1`` only).
    """
    sec = policy.cluster.slot_seconds
    parts = []
    for b in b_values:
        job = policy.job(with_external_bandwidth(spec, float(b), b_reference_gbps=b_reference_gbps,
                                                 slot_seconds=sec))
        th = policy.slot_theta(job, slot, skip_dominated=False)
        v = np.arange(len(th.cost))
        scale = np.full(len(v), np.nan)
        scale[1:] = g_delta(external_demand(v[1:], job), policy.delta, job.model.ratio, policy.g_delta)
        parts.append(pd.DataFrame({
            "b_external": float(b), "v": v, "internal": th.internal, "lp": th.lp, "G_delta": scale,
            "external": th.external, "theta": th.cost, "branch": th.branch,
        }).iloc[1:])  # fmt: skip
    return pd.concat(parts, ignore_index=True)


def _top_level(frame: pd.DataFrame, column: str) -> int:
    """Largest ``v`` with a finite ``column`` (0 if none)."""
    ok = frame.loc[np.isfinite(frame[column].to_numpy(dtype=float)), "v"]
    return int(ok.max()) if len(ok) else 0


def branch_summary(sweep: pd.DataFrame) -> pd.DataFrame:
    r"""Per :math:`b^{(e)}` of :func:`bandwidth_sweep`: how many levels ``v`` each branch wins
    (``internal``, ``external``, ``none``: neither is feasible), the most units one slot can take
    with each (``vmax_internal``, ``vmax_lp``: the LP relaxation is feasible, ``vmax_external``: a
    feasible rounded sample exists; 0 if none) and the median cost ratio LP/internal over the
    levels where both are finite (``lp_over_internal``)."""
    rows = []
    for b, part in sweep.groupby("b_external", sort=True):
        branch = part["branch"].fillna("none")
        both = part[np.isfinite(part["internal"]) & np.isfinite(part["lp"])]
        rows.append({
            "b_external": float(b),
            "internal": int((branch == "internal").sum()), "external": int((branch == "external").sum()),
            "none": int((branch == "none").sum()),
            "vmax_internal": _top_level(part, "internal"), "vmax_lp": _top_level(part, "lp"),
            "vmax_external": _top_level(part, "external"),
            "lp_over_internal": float((both["lp"] / both["internal"]).median()) if len(both) else math.nan,
        })  # fmt: skip
    return pd.DataFrame(rows).set_index("b_external")


def external_detail(policy: PDORS, spec: JobSpec, slot: int, v: int) -> pd.DataFrame:
    r"""Why Algorithm 4's external branch succeeds or fails for ``v`` units in ``slot``.

    Solves the LP relaxation of (23)-(26)+(26') in ``policy``'s current state and reports, for
    every machine the LP uses, the fractional workers and PSs (steps 8), the same scaled by
    :math:`G_\delta` (step 9), and the share of the machine's free capacity they take in the
    most used resource. Where ``share_scaled`` exceeds 1, every rounding (27)-(28) that rounds
    that machine's values up or keeps them (they are at least :math:`\lfloor G_\delta\bar w\rfloor`)
    can break (24); a share above 1 after rounding *down* means no sample is feasible.

    Returns
    -------
    pandas.DataFrame
        One row per used machine: ``machine``, ``w_lp``, ``s_lp``, ``w_scaled``, ``s_scaled``,
        ``share_lp``, ``share_scaled``, ``share_floor`` (with :math:`\lfloor G_\delta\bar w\rfloor`,
        :math:`\lfloor G_\delta\bar s\rfloor`). Empty if the LP is infeasible.
    """
    job = policy.job(spec)
    cap = policy.cluster.capacity
    if policy.rho.shape[1] != cap.shape[0]:
        raise ValueError("external_detail needs a one-pool cluster (every machine hosts both roles)")
    free = cap - policy.rho[slot]
    solver = SlotSolver(job, policy.p[slot], free)
    dw = external_demand(np.array([int(v)]), job)
    cost, wbar, sbar, _, _ = solver.lp(dw)
    if not np.isfinite(cost[0]):
        return pd.DataFrame(columns=["machine", "w_lp", "s_lp", "w_scaled", "s_scaled", "share_lp",
                                     "share_scaled", "share_floor"])
    G = float(g_delta(dw, policy.delta, job.model.ratio, policy.g_delta)[0])
    used = np.flatnonzero((wbar[0] > 1e-9) | (sbar[0] > 1e-9))
    w, s = wbar[0, used], sbar[0, used]
    f = free[used]
    return pd.DataFrame({
        "machine": used, "w_lp": w, "s_lp": s, "w_scaled": G * w, "s_scaled": G * s,
        "share_lp": _peak_share(w, s, job, f), "share_scaled": _peak_share(G * w, G * s, job, f),
        "share_floor": _peak_share(np.floor(G * w + 1e-9), np.floor(G * s + 1e-9), job, f),
    })  # fmt: skip


def _peak_share(w: np.ndarray, s: np.ndarray, job: PdorsJob, free: np.ndarray) -> np.ndarray:
    """Per machine, the largest share of a free capacity that ``w`` workers and ``s`` PSs take."""
    need = w[:, None] * job.wd[None, :] + s[:, None] * job.pd[None, :]
    safe = np.where(free > 0, free, 1.0)
    share = np.where(need > 0, np.where(free > 0, need / safe, np.inf), 0.0)
    return share.max(axis=1)


# ==================================================================== Algorithm 1 over a run


def run_summary(result: SimulationResult) -> dict[str, float]:
    """Headline numbers of a PD-ORS run: ``jobs``, ``admitted``, ``rejected``, ``finished``,
    ``total_utility`` and ``internal_slots`` (planned slots on one machine, over the admitted jobs)."""
    j = result.jobs
    return {
        "jobs": int(len(j)),
        "admitted": int(j["admitted"].sum()),
        "rejected": int((j["status"] == "rejected").sum()),
        "finished": int((j["status"] == "finished").sum()),
        "total_utility": float(j["utility"].sum()),
        "internal_slots": int(j["internal_slots"].sum()) if "internal_slots" in j else 0,
    }


def colocation_timeline(result: SimulationResult) -> pd.DataFrame:
    """Per simulated slot: jobs running ``on_one_machine`` (Fact 1 case (d), internal bandwidth)
    and ``split`` over several machines (external), from the run's allocations."""
    alloc = result.allocations
    start = int(min((s.arrival for s in result.workload.jobs), default=0))
    slots = np.arange(start, int(result.end_slot))
    if alloc.empty:
        return pd.DataFrame({"slot": slots, "on_one_machine": 0, "split": 0})
    per_job = alloc.groupby(["slot", "job"])["server"].nunique()
    one = (per_job == 1).groupby(level="slot").sum()
    many = (per_job > 1).groupby(level="slot").sum()
    return pd.DataFrame({
        "slot": slots,
        "on_one_machine": one.reindex(slots, fill_value=0).to_numpy(dtype=int),
        "split": many.reindex(slots, fill_value=0).to_numpy(dtype=int),
    })


def rejected_alone(result: SimulationResult, *, seed: int = 0, **params) -> pd.DataFrame:
    r"""Each job a PD-ORS run rejected, decided again alone on the empty cluster.

    Tells the two reasons for a payoff of 0 apart: the job has no schedule that finishes by
    :math:`T` even alone (``payoff_alone`` 0), or the jobs admitted before it left too little room.

    Parameters
    ----------
    result : SimulationResult
        A PD-ORS run (its workload needs a horizon).
    seed : int
        Seed of the rounding's random stream.
    **params
        Policy parameters of :class:`~dlsched.pdors.policy.PDORS`.

    Returns
    -------
    pandas.DataFrame
        ``job``, ``arrival``, ``gamma``, ``units_internal`` (most DP units one machine can take in
        the arrival slot of the empty cluster, 0: the job fits on no machine with its ratio),
        ``units_external`` (the same for a feasible rounded external sample) and ``payoff_alone``.
    """
    wl = result.workload
    if wl.horizon is None:
        raise ValueError("rejected_alone needs a workload with a horizon")
    rows = []
    for j in result.jobs.loc[result.jobs["status"] == "rejected", "job_id"]:
        spec = wl.specs[int(j)]
        pol = PDORS.from_workload(wl, **params).prepare(wl.cluster, wl.horizon, policy_rng(seed))
        job = pol.job(spec)
        th = pol.slot_theta(job, spec.arrival, skip_dominated=False)
        v = np.arange(len(th.cost))
        rows.append({
            "job": int(j), "arrival": spec.arrival, "gamma": job.model.ratio,
            "units_internal": int(v[np.isfinite(th.internal)].max()),
            "units_external": int(v[np.isfinite(th.external)].max(initial=0)),
            "payoff_alone": pol.search(spec).payoff,
        })  # fmt: skip
    cols = ["job", "arrival", "gamma", "units_internal", "units_external", "payoff_alone"]
    return pd.DataFrame(rows, columns=cols)

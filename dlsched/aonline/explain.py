r"""Small tables behind notebook ``40_aonline_model``: A_online's model next to the code.

J. She, N. Wang, R. Zhou, C. Tian, "Online Scheduling of Machine Learning Jobs in Edge-Cloud
Networks", NaNA 2021; ``shared/spec/aonline.md``.

Nothing here schedules: each function turns an object of the A_online wing (a workload, a job,
the price functions, a :class:`~dlsched.aonline.policy.AOnline` after a run, a simulation result)
into a :class:`pandas.DataFrame` (or a dict) that the notebook prints or draws; :func:`gantt` draws
a result. By section of the notebook:

=========================================  ======================================================
paper                                      functions
=========================================  ======================================================
Sec. III / VI: the edge-cloud system       :func:`source_summary`, :func:`server_frame`
Sec. VI: job parameters, paper vs ours     :func:`ranges_table`
Eq. (1) speed, duration :math:`d_j`        :func:`speed_frame`, :func:`duration_curve`
(2i) transfer delays, earliest start       :func:`delay_frame`
(2c)-(2d) fixed allocation                 :func:`fixed_allocation_timelines`,
                                           :func:`timeline_verdicts`
Alg. 1: geometric time points              :func:`rounds_table`
(7)-(8) prices                             :func:`price_endpoints`, :func:`price_curve`,
                                           :func:`sharing_threshold`
Alg. 1-4 over a run                        :func:`round_frame`, :func:`job_frame`,
                                           :func:`sharing`, :func:`run_summary`, :func:`gantt`
=========================================  ======================================================

Conventions: slots are the simulator's 0-based slots (slot ``k`` is the paper's slot ``k + 1``);
a round ``i`` is decided at :math:`\tau_i` and its window is slots ``tau_i .. tau_{i+1} - 1``
(:mod:`dlsched.aonline.policy`). Times in seconds use the cluster's ``slot_seconds``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from dlsched.aonline import model as am
from dlsched.aonline.policy import AOnline, AOnlinePrices, first_round, time_point
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import AOnlineModel, JobSpec, Workload
from dlsched.core.schedule import Placement, ScheduleViolation, check_timeline
from dlsched.core.simulator import SimulationResult

__all__ = [
    "PLACEMENT_KINDS",
    "compare_runs",
    "delay_frame",
    "duration_curve",
    "fixed_allocation_timelines",
    "gantt",
    "job_frame",
    "placement_kind",
    "price_curve",
    "price_endpoints",
    "ranges_table",
    "round_frame",
    "rounds_table",
    "run_summary",
    "server_frame",
    "sharing",
    "sharing_threshold",
    "source_summary",
    "speed_frame",
    "timeline_verdicts",
]

PLACEMENT_KINDS: tuple[str, ...] = (
    "co-located on the cloud",
    "co-located on an edge server",
    "split: edge + cloud",
    "split: edge servers only",
)
"""Labels of :func:`placement_kind`, in the order the Gantt legend lists them."""


def _workload(workload) -> Workload:
    if not isinstance(workload, Workload):
        raise TypeError(f"workload must be a Workload, got {type(workload).__name__}")
    return workload


def _model_of(spec) -> AOnlineModel:
    if not isinstance(spec, JobSpec) or not isinstance(spec.model, AOnlineModel):
        got = type(spec.model).__name__ if isinstance(spec, JobSpec) else type(spec).__name__
        raise ValueError(f"spec must be a JobSpec with an AOnlineModel, got {got}")
    return spec.model


def _cloud(cluster: Cluster) -> int:
    return cluster.pools.index("cloud")


# ============================================================== the edge-cloud system (Sec. VI)


def source_summary(workload: Workload) -> dict[str, object]:
    """Where the edge servers came from and what the system holds, from ``workload.params``.

    Returns
    -------
    dict
        ``server_source`` ("philly" or "synthetic": what was used), ``trace_file`` (file name
        only, None for the stand-in), ``n_edge``, ``U``, ``V``, ``cloud_workers_per_type``,
        ``cloud_ps_per_type``, ``edge_worker_slots`` and ``edge_ps_slots`` (totals),
        ``cloud_worker_slots``, ``cloud_ps_slots`` (totals), ``share_one_worker_slot`` (edge
        servers with exactly one worker slot) and ``max_edge_worker_slots``.

    Raises
    ------
    ValueError
        If the workload was not built by :func:`dlsched.aonline.model.aonline_workload`.
    """
    wl = _workload(workload)
    p = wl.params
    if not p or "server_source" not in p:
        raise ValueError("source_summary: the workload has no server_source (build it with aonline_workload)")
    cl = wl.cluster
    W, P = am.worker_slots(cl), am.ps_slots(cl)
    edge = np.array([pool == "edge" for pool in cl.pools])
    c = _cloud(cl)
    we = W[edge].sum(axis=1)
    trace = p.get("trace_file")
    return {
        "server_source": p["server_source"],
        "trace_file": None if trace is None else Path(str(trace)).name,
        "n_edge": int(edge.sum()),
        "U": int(W.shape[1]),
        "V": int(P.shape[1]),
        "cloud_workers_per_type": int(W[c].max()),
        "cloud_ps_per_type": int(P[c].max()),
        "edge_worker_slots": int(we.sum()),
        "edge_ps_slots": int(P[edge].sum()),
        "cloud_worker_slots": int(W[c].sum()),
        "cloud_ps_slots": int(P[c].sum()),
        "share_one_worker_slot": float(np.mean(we == 1)),
        "max_edge_worker_slots": int(we.max()),
    }


def server_frame(workload: Workload) -> pd.DataFrame:
    r"""One row per server: its pool, slots and how many types they cover.

    Returns
    -------
    pandas.DataFrame
        ``server``, ``pool`` ("edge"/"cloud"), ``worker_slots`` (:math:`\sum_u W_{su}`),
        ``ps_slots`` (:math:`\sum_v P_{sv}`), ``worker_types`` and ``ps_types`` (number of types
        with at least one slot).
    """
    cl = _workload(workload).cluster
    W, P = am.worker_slots(cl), am.ps_slots(cl)
    return pd.DataFrame(
        {
            "server": np.arange(cl.n_servers),
            "pool": list(cl.pools),
            "worker_slots": W.sum(axis=1),
            "ps_slots": P.sum(axis=1),
            "worker_types": (W > 0).sum(axis=1),
            "ps_types": (P > 0).sum(axis=1),
        }
    )


# ================================================================= job parameters: paper vs ours


def _fmt(x: float) -> str:
    return f"{x:.4g}"


def _span(values) -> tuple[str, str]:
    a = np.asarray(values, dtype=float)
    return _fmt(float(a.min())), _fmt(float(a.max()))


def ranges_table(workload: Workload) -> pd.DataFrame:
    r"""The settings of Sec. VI: the paper's value, ours, and the range actually drawn.

    Parameters
    ----------
    workload : Workload
        Built by :func:`dlsched.aonline.model.aonline_workload`.

    Returns
    -------
    pandas.DataFrame
        ``quantity``, ``paper`` (as printed; "-" where the paper gives nothing), ``ours`` (our
        parameter and default), ``drawn_min``, ``drawn_max`` (over this workload; "" where the
        job model does not keep the value: :math:`k_j` and the bandwidths enter only through
        :math:`2k_j/B_j`).
    """
    wl = _workload(workload)
    p = wl.params
    if not p or "n_edge" not in p:
        raise ValueError("ranges_table: the workload has no params (build it with aonline_workload)")
    cl = wl.cluster
    sec = cl.slot_seconds
    models = [_model_of(s) for s in wl.jobs]
    sv = server_frame(wl)
    edge = sv[sv["pool"] == "edge"]
    c = _cloud(cl)
    delays = np.array([s.delays(cl) for s in wl.jobs], dtype=float).reshape(len(wl.jobs), cl.n_servers)
    edge_cols = [s for s in range(cl.n_servers) if s != c]

    def rng(key: str) -> str:
        a, b = p[key]
        return f"[{_fmt(a)}, {_fmt(b)}]"

    rows = [
        (
            "edge servers",
            "100-300 (default 200)",
            f"n_edge = {p['n_edge']}",
            str(p["n_edge"]),
            str(p["n_edge"]),
        ),
        ("slot", "1 hour", f"slot_seconds = {_fmt(p['slot_seconds'])}", "", ""),
        ("T (horizon)", "-", f"T = {p['T']}", "", ""),
        (
            "U, V (types)",
            "[8, 10] each",
            f"{rng('worker_types')}, {rng('ps_types')}",
            f"U={p['U']}",
            f"V={p['V']}",
        ),
        (
            "W_s (worker slots)",
            "#GPUs of the trace",
            f"{p['server_source']}: num_gpus of a random job row, cap {p['max_server_gpus']}",
            *_span(edge["worker_slots"]),
        ),
        (
            "P_s (PS slots)",
            "#CPUs of the trace",
            f"max(1, round({_fmt(p['cpus_per_gpu'])} x GPUs))",
            *_span(edge["ps_slots"]),
        ),
        (
            "types of a server's slots",
            "randomly selected",
            f"type_draw = {p['type_draw']!r}",
            *_span(edge["worker_types"]),
        ),
        ("cloud", "-", f"{p['cloud_workers']} worker, {p['cloud_ps']} PS slots per type", "", ""),
        ("worker bandwidth (Mbps)", "[100, 5*1024]", rng("worker_bw_mbps"), "", ""),
        (
            "PS bandwidth (Gbps)",
            "[5, 20]",
            f"{rng('ps_bw_gbps')}; B_j = {p['bandwidth']}(worker, PS)",
            "",
            "",
        ),
        ("E_j (epochs)", "[50, 100]", rng("epochs"), *_span([m.epochs for m in models])),
        ("D_j (chunks = max workers)", "[20, 50]", rng("chunks"), *_span([m.chunks for m in models])),
        (
            "M_j (mini-batches per chunk)",
            "[10, 50]",
            rng("minibatches"),
            *_span([m.minibatches for m in models]),
        ),
        ("a_j (arrival slot)", "x_j in [1, T/1.5]", rng("arrivals"), *_span([s.arrival for s in wl.jobs])),
        (
            "n_j (hours)",
            "[0.001, 0.05]",
            rng("compute_hours"),
            *_span([m.compute * sec / 3600 for m in models]),
        ),
        ("H_j (ms)", "[10, 100]", rng("update_ms"), *_span([m.update * sec * 1000 for m in models])),
        ("k_j (MB)", "[30, 575]", rng("gradient_mb"), "", ""),
        ("2k_j/B_j (s)", "-", "derived", *_span([m.comm * sec for m in models])),
        (
            "Delta_js edge (slots)",
            "[1, 4]",
            f"{rng('edge_delay')} per job and server",
            *_span(delays[:, edge_cols]),
        ),
        ("Delta_js cloud (slots)", "[10, 40]", f"{rng('cloud_delay')} per job", *_span(delays[:, c])),
        ("F_1, F_2", "-", "1, 1 (policy parameters)", "", ""),
        ("job weights", "1", rng("weights"), *_span([m.weight for m in models])),
    ]
    return pd.DataFrame(rows, columns=["quantity", "paper", "ours", "drawn_min", "drawn_max"])


# =========================================================================== Eq. (1), durations


def speed_frame(workload: Workload) -> pd.DataFrame:
    r"""Eq. (1) per job: the parts of a mini-batch's time, :math:`p_j` split and co-located.

    Returns
    -------
    pandas.DataFrame
        ``job``, ``D`` (:math:`D_j`), ``work`` (:math:`E_jD_jM_j`), ``n_s``, ``H_s``, ``comm_s``
        (:math:`n_j`, :math:`H_j`, :math:`2k_j/B_j` in seconds), ``p_split``, ``p_coloc``
        (mini-batches per worker per slot, :math:`\xi_j = 0, 1`), ``slowdown``
        (:math:`p_j^{\xi=1}/p_j^{\xi=0}`), ``d_coloc``, ``d_split`` (:math:`d_j` with all
        :math:`D_j` workers, slots).
    """
    wl = _workload(workload)
    sec = wl.cluster.slot_seconds
    rows = []
    for spec in wl.jobs:
        m = _model_of(spec)
        ps, pc = m.speed(False), m.speed(True)
        rows.append({
            "job": spec.job_id, "D": m.chunks, "work": m.total_work, "n_s": m.compute * sec,
            "H_s": m.update * sec, "comm_s": m.comm * sec, "p_split": ps, "p_coloc": pc,
            "slowdown": pc / ps, "d_coloc": am.duration_slots(m, m.chunks, True),
            "d_split": am.duration_slots(m, m.chunks, False),
        })  # fmt: skip
    return pd.DataFrame(rows)


def duration_curve(
    workload: Workload, jobs: Sequence[int], workers: Sequence[int] | None = None
) -> pd.DataFrame:
    r""":math:`d_j = \lceil E_jD_jM_j/(p_jD_u)\rceil` against :math:`D_u` for some jobs.

    Parameters
    ----------
    jobs : sequence of int
        Job ids of ``workload``.
    workers : sequence of int, optional
        :math:`D_u` values (default ``1 .. D_j``, each job its own); values above :math:`D_j`
        are skipped ((2a)).

    Returns
    -------
    pandas.DataFrame
        Long format: ``job``, ``workers``, ``placement`` ("co-located" / "split"), ``d``.
    """
    wl = _workload(workload)
    specs = wl.specs
    rows = []
    for j in jobs:
        if j not in specs:
            raise ValueError(f"duration_curve: no job {j!r} in the workload")
        m = _model_of(specs[j])
        for n in range(1, m.chunks + 1) if workers is None else workers:
            if not 1 <= n <= m.chunks:
                continue
            for label, coloc in (("co-located", True), ("split", False)):
                rows.append(
                    {
                        "job": j,
                        "workers": int(n),
                        "placement": label,
                        "d": am.duration_slots(m, int(n), coloc),
                    }
                )
    return pd.DataFrame(rows)


# ==================================================================== (2i) transfer delays


def _first_round_with(arrival: int, ready: float, d: int) -> int:
    """Smallest round ``i >= first_round(arrival)`` with data ready strictly before
    :math:`\\tau_i` and a window :math:`\\tau_{i+1} - \\tau_i \\ge d`."""
    i = first_round(arrival)
    while not (ready < time_point(i) and time_point(i + 1) - time_point(i) >= d):
        i += 1
    return i


def delay_frame(workload: Workload) -> pd.DataFrame:
    r"""Per job: when its data reach the edge and the cloud (2i), and what that means for A_online.

    The model alone lets job :math:`j` start on server :math:`s` at slot :math:`a_j+\Delta_{js}`
    (``edge_ready``: the nearest edge server; ``cloud_ready``). A_online first looks at the job at
    the smallest :math:`\tau_i > a_j` (``tau_first``), and can admit it only in a round whose
    window :math:`\tau_{i+1}-\tau_i` holds its shortest duration ``d_min`` (all :math:`D_j`
    workers co-located, the fastest schedule) and where some server has its data
    (:math:`a_j+\Delta_{js} < \tau_i`, Alg. 3-4 line 3): ``tau_lb`` is that round's
    :math:`\tau_i`, a lower bound on its start. ``tau_lb_cloud`` asks the same of the cloud (the
    only server with :math:`D_j` worker slots of one type when edge servers have at most 8).

    Returns
    -------
    pandas.DataFrame
        ``job``, ``arrival``, ``edge_delay`` (smallest edge :math:`\Delta_{js}`), ``cloud_delay``,
        ``edge_ready``, ``cloud_ready``, ``tau_first``, ``d_min``, ``tau_lb``, ``tau_lb_cloud``.
    """
    wl = _workload(workload)
    cl = wl.cluster
    c = _cloud(cl)
    rows = []
    for spec in wl.jobs:
        m = _model_of(spec)
        dl = np.asarray(spec.delays(cl), dtype=float)
        edge = float(np.delete(dl, c).min())
        a = int(spec.arrival)
        d = am.duration_slots(m, m.chunks, True)
        rows.append({
            "job": spec.job_id, "arrival": a, "edge_delay": edge, "cloud_delay": float(dl[c]),
            "edge_ready": a + edge, "cloud_ready": a + float(dl[c]),
            "tau_first": time_point(first_round(a)), "d_min": d,
            "tau_lb": time_point(_first_round_with(a, a + float(dl.min()), d)),
            "tau_lb_cloud": time_point(_first_round_with(a, a + float(dl[c]), d)),
        })  # fmt: skip
    return pd.DataFrame(rows)


# =================================================================== (2c)-(2d) fixed allocation


def fixed_allocation_timelines(
    spec: JobSpec, placement: Placement, start: int, duration: int, *, changed: Placement | None = None
) -> dict[str, pd.DataFrame]:
    """Recorded schedules of one job: kept fixed, changed mid-run, paused for a slot.

    Parameters
    ----------
    spec : JobSpec
        An A_online job.
    placement : Placement
        Its placement (workers and one PS).
    start, duration : int
        First slot and number of slots it runs.
    changed : Placement, optional
        The placement it switches to halfway in the "changed" variant (default: one worker more
        on the first worker server).

    Returns
    -------
    dict of str to pandas.DataFrame
        ``"fixed"``, ``"changed"`` (switches halfway), ``"paused"`` (skips one slot halfway and
        resumes, same placement, one slot longer) and ``"too early"`` (fixed, but shifted one slot
        earlier: with ``start`` the earliest slot (2i) allows, it breaks the transfer delay);
        each the tidy table ``job, slot, server, role, count`` that
        :func:`dlsched.core.schedule.check_timeline` reads.
    """
    _model_of(spec)
    if isinstance(start, bool) or not isinstance(start, (int, np.integer)) or start < 1:
        raise ValueError(f"fixed_allocation_timelines: start must be an integer >= 1, got {start!r}")
    if isinstance(duration, bool) or not isinstance(duration, (int, np.integer)) or duration < 3:
        raise ValueError(
            f"fixed_allocation_timelines: duration must be >= 3 (to change halfway), got {duration!r}"
        )
    if changed is None:
        s0, c0 = placement.workers[0]
        changed = Placement.of({**dict(placement.workers), s0: c0 + 1}, placement.ps)
    half = start + duration // 2

    def rows(slots, at) -> pd.DataFrame:
        out = []
        for t in slots:
            p = at(t)
            out += [(spec.job_id, t, s, "worker", c) for s, c in p.workers]
            out += [(spec.job_id, t, s, "ps", c) for s, c in p.ps]
        return pd.DataFrame(out, columns=["job", "slot", "server", "role", "count"])

    slots = list(range(start, start + duration))
    return {
        "fixed": rows(slots, lambda t: placement),
        "changed": rows(slots, lambda t: placement if t < half else changed),
        "paused": rows([t for t in range(start, start + duration + 1) if t != half], lambda t: placement),
        "too early": rows(range(start - 1, start + duration - 1), lambda t: placement),
    }


def timeline_verdicts(cluster: Cluster, spec: JobSpec, timelines: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """What the independent checker says about each recorded schedule of one job.

    Each timeline is checked twice with :func:`dlsched.core.schedule.check_timeline`: for the job
    as it is (A_online's fixed allocation, (2c)-(2d)) and for the same job made preemptible (the
    Preemptive baseline's relaxation: pauses allowed, changes while running still not).

    Returns
    -------
    pandas.DataFrame
        ``variant``, ``fixed_job`` and ``preemptible_job``: "passes" or the violated constraint's
        name, and ``message`` (the checker's message for the fixed job, "" if it passes).
    """
    m = _model_of(spec)
    loose = dataclasses.replace(spec, model=dataclasses.replace(m, allow_preemption=True))
    rows = []
    for name, table in timelines.items():
        verdicts, message = [], ""
        for s in (spec, loose):
            try:
                check_timeline(cluster, {s.job_id: s}, table)
            except ScheduleViolation as e:
                verdicts.append(e.constraint)
                if s is spec:
                    message = str(e)
            else:
                verdicts.append("passes")
        rows.append(
            {"variant": name, "fixed_job": verdicts[0], "preemptible_job": verdicts[1], "message": message}
        )
    return pd.DataFrame(rows)


# ======================================================================= Alg. 1 time points


def rounds_table(n_rounds: int) -> pd.DataFrame:
    r"""The geometric time points of Alg. 1 and the arrivals each round sees first.

    Returns
    -------
    pandas.DataFrame
        ``i``, ``tau`` (:math:`\tau_i`), ``window_end`` (:math:`\tau_{i+1}`), ``length``
        (:math:`\tau_{i+1}-\tau_i`) and ``first_for`` (the 0-based arrival slots :math:`a_j`
        whose first round is ``i``: :math:`\tau_{i-1} \le a_j < \tau_i` for ``i >= 2``).
    """
    if isinstance(n_rounds, bool) or not isinstance(n_rounds, (int, np.integer)) or n_rounds < 1:
        raise ValueError(f"rounds_table: n_rounds must be an integer >= 1, got {n_rounds!r}")
    rows = []
    for i in range(1, int(n_rounds) + 1):
        tau, end = time_point(i), time_point(i + 1)
        lo = 0 if i == 1 else time_point(i - 1)
        first = "0" if i == 1 else (f"{lo}" if tau - 1 == lo else f"{lo}..{tau - 1}")
        rows.append({"i": i, "tau": tau, "window_end": end, "length": end - tau, "first_for": first})
    return pd.DataFrame(rows)


# ======================================================================= (7)-(8) the prices


def price_endpoints(T: int, S: int, U: int, V: int, F1: float = 1.0, F2: float = 1.0) -> pd.DataFrame:
    r"""Both readings of (7)-(8) at the ends: :math:`\theta`, price when empty and when full.

    Returns
    -------
    pandas.DataFrame
        Index ``reading`` ("corrected", "literal"); ``theta1``, ``theta2``, ``lambda_empty``,
        ``lambda_full``, ``mu_empty``, ``mu_full``, ``2TSUF1``, ``2TSVF2``.
    """
    rows = []
    for reading in ("corrected", "literal"):
        pr = AOnlinePrices.of(T, S, U, V, F1, F2, reading)
        rows.append({
            "reading": reading, "theta1": pr.theta1, "theta2": pr.theta2,
            "lambda_empty": float(pr.worker(0, 1)), "lambda_full": float(pr.worker(1, 1)),
            "mu_empty": float(pr.ps(0, 1)), "mu_full": float(pr.ps(1, 1)),
            "2TSUF1": 2.0 * T * S * U * F1, "2TSVF2": 2.0 * T * S * V * F2,
        })  # fmt: skip
    return pd.DataFrame(rows).set_index("reading")


def price_curve(prices: Mapping[str, AOnlinePrices], points: int = 101) -> pd.DataFrame:
    r""":math:`\lambda(f)` and :math:`\mu(g)` over the utilisation :math:`f/W \in [0, 1]`.

    Parameters
    ----------
    prices : mapping of str to AOnlinePrices
        Label (e.g. the reading) to price functions.

    Returns
    -------
    pandas.DataFrame
        Long format: ``prices`` (label), ``function`` ("worker lambda (7)", "PS mu (8)"),
        ``utilisation``, ``price``.
    """
    x = np.linspace(0.0, 1.0, int(points))
    frames = []
    for label, pr in prices.items():
        for fn, f in (("worker lambda (7)", pr.worker), ("PS mu (8)", pr.ps)):
            frames.append(
                pd.DataFrame({"prices": label, "function": fn, "utilisation": x, "price": f(x, 1.0)})
            )
    return pd.concat(frames, ignore_index=True)


def sharing_threshold(
    prices: AOnlinePrices, capacities: Mapping[str, tuple[str, float]], durations: Sequence[int]
) -> pd.DataFrame:
    r"""What one slot already in use costs a second job over a whole schedule.

    Cost (9) sums the unit price over every slot of the schedule, so a (server, type) with
    :math:`f` of :math:`W` slots in use charges a new worker :math:`d\,(\theta^{f/W}-1)` over
    :math:`d` slots. With :math:`f = 1` this reaches the job weight 1 (the payoff
    :math:`\eta = 1-\text{cost}` of Alg. 2 line 10 is then no longer positive) after
    :math:`1/(\theta^{1/W}-1)` slots (``slots_to_weight``).

    Parameters
    ----------
    prices : AOnlinePrices
    capacities : mapping of str to (kind, capacity)
        Label to ``("worker", W)`` or ``("ps", P)``.
    durations : sequence of int
        Schedule lengths :math:`d` (slots).

    Returns
    -------
    pandas.DataFrame
        Long format, one row per label and duration: ``resource`` (label), ``capacity``,
        ``price_one_used`` (per slot, :math:`f = 1`), ``slots_to_weight``, ``d``, ``cost``
        (one worker or the PS over ``d`` slots, :math:`f = 1`).
    """
    rows = []
    for label, (kind, cap) in capacities.items():
        if kind not in ("worker", "ps"):
            raise ValueError(f"sharing_threshold: kind must be 'worker' or 'ps', got {kind!r}")
        if not float(cap) >= 1:
            raise ValueError(f"sharing_threshold: capacity of {label!r} must be >= 1, got {cap!r}")
        unit = float((prices.worker if kind == "worker" else prices.ps)(1.0, float(cap)))
        for d in durations:
            rows.append(
                {
                    "resource": label,
                    "capacity": float(cap),
                    "price_one_used": unit,
                    "slots_to_weight": 1.0 / unit if unit > 0 else math.inf,
                    "d": int(d),
                    "cost": int(d) * unit,
                }
            )
    return pd.DataFrame(rows)


# =================================================================== a run of Alg. 1-4


def round_frame(policy: AOnline) -> pd.DataFrame:
    r"""One row per A_maxsche call of a finished run: :math:`\tau_i`, :math:`|J_i|`, :math:`|J_i^s|`.

    Returns
    -------
    pandas.DataFrame
        ``i``, ``tau``, ``window_end``, ``considered``, ``admitted``, ``deferred`` (counts),
        ``admitted_jobs`` (ids as text) and ``evaluations`` (COST_C + COST_D calls).
    """
    if not isinstance(policy, AOnline) or not hasattr(policy, "rounds"):
        raise ValueError("round_frame: give an AOnline policy after a run (simulate(workload, policy))")
    rows = [{
        "i": r.round, "tau": r.tau, "window_end": r.window_end, "considered": len(r.considered),
        "admitted": len(r.admitted), "deferred": len(r.considered) - len(r.admitted),
        "admitted_jobs": " ".join(map(str, r.admitted)), "evaluations": r.evaluations,
    } for r in policy.rounds]  # fmt: skip
    return pd.DataFrame(rows)


def placement_kind(placement: Placement, cluster: Cluster) -> str:
    """One of :data:`PLACEMENT_KINDS` for a placement (by :math:`\\xi_j` and the pools it uses)."""
    pools = {cluster.pools[s] for s in placement.servers}
    if placement.colocated:
        return PLACEMENT_KINDS[0] if pools == {"cloud"} else PLACEMENT_KINDS[1]
    return PLACEMENT_KINDS[2] if "cloud" in pools else PLACEMENT_KINDS[3]


def _placements(result: SimulationResult) -> dict[int, Placement]:
    """Each job's placement in its first slot (fixed afterwards for A_online)."""
    out = {}
    r = result.runs
    for j, g in r.groupby("job", sort=True):
        first = g[g["slot"] == g["slot"].min()]
        w = dict(
            zip(
                first.loc[first["role"] == "worker", "server"],
                first.loc[first["role"] == "worker", "count"],
                strict=True,
            )
        )
        p = dict(
            zip(
                first.loc[first["role"] == "ps", "server"],
                first.loc[first["role"] == "ps", "count"],
                strict=True,
            )
        )
        out[int(j)] = Placement.of(
            {int(k): int(v) for k, v in w.items()}, {int(k): int(v) for k, v in p.items()}
        )
    return out


def job_frame(result: SimulationResult) -> pd.DataFrame:
    r"""One row per job of an A_online run: when it was seen, admitted, where it ran, when it ended.

    Returns
    -------
    pandas.DataFrame
        ``job``, ``arrival``, ``tau_first`` (first :math:`\tau_i` that saw it), ``tau``
        (:math:`\tau_i` of admission = start :math:`h_j`), ``window_end``, ``D`` (:math:`D_j`),
        ``workers`` (:math:`D_u`), ``servers``, ``kind`` (:func:`placement_kind`),
        ``completion`` (:math:`c_j`, continuous), ``jct`` (:math:`c_j - a_j`) and ``window_used``
        (:math:`(c_j-\tau_i)/(\tau_{i+1}-\tau_i)`).
    """
    if not isinstance(result, SimulationResult):
        raise TypeError(f"job_frame: result must be a SimulationResult, got {type(result).__name__}")
    jobs = result.jobs.set_index("job_id")
    cl = result.workload.cluster
    place = _placements(result)
    rows = []
    for spec in result.workload.jobs:
        j = spec.job_id
        row = jobs.loc[j]
        p = place.get(j)
        tau = row.get("tau", math.nan)
        end = time_point(int(row["round"]) + 1) if not pd.isna(row.get("round", math.nan)) else math.nan
        rows.append({
            "job": j, "arrival": int(spec.arrival), "tau_first": row.get("first_considered", math.nan),
            "tau": tau, "window_end": end, "D": _model_of(spec).chunks,
            "workers": p.n_workers if p else 0, "servers": len(p.servers) if p else 0,
            "kind": placement_kind(p, cl) if p else "",
            "completion": row["completion_time"], "jct": row["completion_time"] - spec.arrival,
            "window_used": (row["completion_time"] - tau) / (end - tau) if p else math.nan,
        })  # fmt: skip
    return pd.DataFrame(rows)


def sharing(result: SimulationResult) -> pd.DataFrame:
    """How many jobs share one (server, type) in one slot, by pool and role.

    Returns
    -------
    pandas.DataFrame
        Rows (pool, role): ``cells`` ((slot, server, type) triples in use), ``max_jobs`` (most
        jobs on one), ``shared`` (share of cells with two or more jobs), ``peak_use`` (largest
        share of a type's slots on one server used in one slot).
    """
    if not isinstance(result, SimulationResult):
        raise TypeError(f"sharing: result must be a SimulationResult, got {type(result).__name__}")
    cl = result.workload.cluster
    specs = result.workload.specs
    al = result.allocations
    if al.empty:
        return pd.DataFrame(columns=["pool", "role", "cells", "max_jobs", "shared", "peak_use"])
    res = {
        j: {
            "worker": next(r for r, x in s.worker_demand.items() if x),
            "ps": next(r for r, x in s.ps_demand.items() if x),
        }
        for j, s in specs.items()
    }
    df = al.assign(
        resource=[res[int(j)][r] for j, r in zip(al["job"], al["role"], strict=True)],
        pool=[cl.pools[int(s)] for s in al["server"]],
    )
    cells = df.groupby(["pool", "role", "slot", "server", "resource"]).agg(
        jobs=("job", "nunique"), used=("count", "sum")
    )
    cap = np.array([cl.capacity[s, cl.resource_index(r)] for _, _, _, s, r in cells.index], dtype=float)
    cells = cells.assign(use=cells["used"].to_numpy() / cap)
    out = cells.groupby(level=["pool", "role"]).agg(
        cells=("jobs", "size"),
        max_jobs=("jobs", "max"),
        shared=("jobs", lambda x: float(np.mean(x >= 2))),
        peak_use=("use", "max"),
    )
    return out.reset_index()


def run_summary(result: SimulationResult) -> dict[str, float]:
    r"""Headline numbers of a run: jobs, finished, total and mean completion time
    :math:`\sum_j(c_j-a_j)` (slots), makespan, mean workers and share co-located.

    Returns
    -------
    dict of str to float
    """
    jf = job_frame(result)
    done = result.jobs["status"] == "finished"
    return {
        "jobs": float(len(jf)),
        "finished": float(done.sum()),
        "total_completion_slots": float(jf["jct"].sum()),
        "mean_jct_slots": float(jf["jct"].mean()),
        "makespan_slot": float(jf["completion"].max()),
        "mean_workers": float(jf["workers"].mean()),
        "mean_D": float(jf["D"].mean()),
        "share_colocated": float(jf["kind"].str.startswith("co-located").mean()),
        "mean_window_used": float(jf["window_used"].mean()),
    }


def gantt(result: SimulationResult | pd.DataFrame, ax=None, *, label_workers: bool = True):
    """Draw an A_online run: one row per job, a bar from its start to its completion coloured by
    :func:`placement_kind`, a dot at its arrival, a thin line while it waits, dotted verticals at
    the time points :math:`\\tau_i`.

    ``result`` is the run itself or its job table (:func:`job_frame`, e.g. a stored
    ``dlsched.aonline.paper.run_table(..., table="jobs")``).

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        If a job table lacks a column of :func:`job_frame`.
    """
    import matplotlib.pyplot as plt
    import seaborn as sns

    if isinstance(result, pd.DataFrame):
        need = ["job", "arrival", "tau", "completion", "kind", "workers"]
        if any(c not in result.columns for c in need):
            raise ValueError(f"gantt: a job table needs the columns {need}, got {list(result.columns)}")
        jf = result
    else:
        jf = job_frame(result)
    if ax is None:
        _, ax = plt.subplots(figsize=(10, min(14.0, max(3.0, 0.28 * len(jf) + 1.0))))
    colours = dict(zip(PLACEMENT_KINDS, sns.color_palette("colorblind", len(PLACEMENT_KINDS)), strict=True))
    seen = set()
    for _, r in jf.iterrows():
        y = r["job"]
        ax.plot([r["arrival"], r["tau"]], [y, y], color="0.6", lw=1, zorder=1)
        ax.plot(r["arrival"], y, "o", color="0.3", ms=3, zorder=3)
        if isinstance(r["kind"], str) and r["kind"]:
            lab = None if r["kind"] in seen else r["kind"]
            seen.add(r["kind"])
            ax.barh(
                y,
                r["completion"] - r["tau"],
                left=r["tau"],
                height=0.7,
                color=colours[r["kind"]],
                label=lab,
                zorder=2,
            )
            if label_workers:
                ax.text(r["completion"], y, f" {int(r['workers'])}", va="center", fontsize=7)
    end = float(np.nanmax(jf["completion"])) if len(jf) else 1.0
    i = 1
    while time_point(i) <= end:
        ax.axvline(time_point(i), color="0.75", ls=":", lw=0.8, zorder=0)
        i += 1
    if len(jf) <= 40:
        ax.set_yticks(jf["job"].to_numpy())
    ax.invert_yaxis()
    ax.set(xlabel="slot (dotted: time points $\\tau_i$)", ylabel="job")
    handles, labels = ax.get_legend_handles_labels()
    order = [labels.index(k) for k in PLACEMENT_KINDS if k in labels]
    ax.legend([handles[k] for k in order], [labels[k] for k in order], loc="lower left", fontsize=8)
    return ax


def compare_runs(
    workload: Workload, variants: Mapping[str, Mapping[str, object]], *, seed: int = 0
) -> pd.DataFrame:
    """Run A_online once per variant of its parameters on ``workload`` and compare the outcomes.

    Parameters
    ----------
    variants : mapping of str to mapping
        Label to keyword arguments of :meth:`AOnline.from_workload` (``{}``: the defaults).
    seed : int
        Passed to :func:`~dlsched.core.simulator.simulate` (A_online itself draws nothing).

    Returns
    -------
    pandas.DataFrame
        Indexed by ``variant``: ``total_completion_slots``, ``mean_jct_slots``, ``mean_workers``,
        ``first_round_share`` (jobs admitted in the first round that saw them) and ``max_jobs``
        (most jobs on one (server, type) in one slot, :func:`sharing`).
    """
    from dlsched.core.simulator import simulate

    rows = []
    for label, params in variants.items():
        res = simulate(_workload(workload), AOnline.from_workload(workload, **dict(params)), seed=seed)
        s, jf = run_summary(res), job_frame(res)
        rows.append(
            {
                "variant": label,
                "total_completion_slots": s["total_completion_slots"],
                "mean_jct_slots": s["mean_jct_slots"],
                "mean_workers": s["mean_workers"],
                "first_round_share": float((jf["tau"] == jf["tau_first"]).mean()),
                "max_jobs": int(sharing(res)["max_jobs"].max()),
            }
        )
    return pd.DataFrame(rows).set_index("variant")

"""Workloads that are not tied to one paper: small random instances of every job model, and
trace-driven workloads from the real Philly and Microsoft ITP traces.

Every workload function takes a ``numpy.random.Generator`` first and keyword parameters, and
returns a :class:`~dlsched.core.jobs.Workload`. They are found by name through
:mod:`dlsched.registry`. The paper-specific workloads live in each paper's wing.

Choices that no paper fixes are parameters with documented defaults:

* ``synthetic``: small clusters and jobs of one job model (for tests, notebooks, examples);
  distributions are uniform over the ranges given below.
* ``philly`` / ``itp``: jobs sampled from the real trace (1-8 GPUs by default, the sizes most
  Philly jobs have), each a rigid gang of ``num_gpus`` GPU workers whose work is its measured
  ``num_gpus x duration``. Sampled jobs are spread over a window whose length makes the GPU time
  offered inside the window ``load`` times the capacity (:func:`arrival_window`), keeping the
  trace's relative arrival order and gaps (scaled).
* ``philly_like``: the same shape without the trace: GPUs from {1, 2, 4, 8} with Philly's
  rough frequencies and lognormal (heavy-tailed) durations.
* ``gavel_like``: Gavel's trace-generator shape (issue 11's scaling benchmark): 1/2/4-GPU rigid
  gangs, 1-4 h, Poisson arrivals every 180 s on average, 25 single-GPU servers.
"""

from __future__ import annotations

import math

import numpy as np

from dlsched.core.cluster import Cluster, Server
from dlsched.core.jobs import (
    AOnlineModel,
    ConstantUtility,
    JobSpec,
    LinearModel,
    LossCurve,
    OasisModel,
    OptimusModel,
    PdorsModel,
    Sigmoid,
    SpeconModel,
    Workload,
)

SYNTHETIC_MODELS = ("oasis", "pdors", "aonline", "optimus", "specon", "linear")


def _check_int(value, what: str, lo: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo:
        raise ValueError(f"{what} must be an integer >= {lo}, got {value!r}")
    return int(value)


def _check_pos(value, what: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.number))
        or not math.isfinite(float(value))
        or value <= 0
    ):
        raise ValueError(f"{what} must be a finite number > 0, got {value!r}")
    return float(value)


def synthetic(
    rng: np.random.Generator,
    *,
    model: str = "oasis",
    n_jobs: int = 12,
    n_servers: int = 4,
    arrival_span: int = 6,
    horizon: int | None = None,
) -> Workload:
    """A small random instance of one job model.

    Parameters
    ----------
    rng : numpy.random.Generator
    model : str
        One of :data:`SYNTHETIC_MODELS`.
    n_jobs, n_servers : int
        Sizes (OASiS splits ``n_servers`` into worker and PS servers, at least one each).
    arrival_span : int
        Arrivals uniform over slots ``0 .. arrival_span - 1``.
    horizon : int, optional
        Horizon of the workload (None: run to completion).
    """
    if model not in SYNTHETIC_MODELS:
        raise ValueError(f"synthetic: model must be one of {SYNTHETIC_MODELS}, got {model!r}")
    n_jobs = _check_int(n_jobs, "synthetic: n_jobs")
    n_servers = _check_int(n_servers, "synthetic: n_servers", lo=2 if model == "oasis" else 1)
    arrival_span = _check_int(arrival_span, "synthetic: arrival_span")
    arrivals = np.sort(rng.integers(0, arrival_span, n_jobs))
    u = rng.uniform
    ri = rng.integers
    jobs = []
    if model == "oasis":
        h = max(1, n_servers // 2 + n_servers % 2)
        cluster = Cluster.two_pools(
            h, n_servers - h, {"gpu": 4, "cpu": 16, "mem": 64}, {"cpu": 16, "mem": 64}
        )
        for j, a in enumerate(arrivals):
            b = float(u(0.1, 5.0))
            m = OasisModel(
                epochs=int(ri(1, 4)),
                chunks=int(ri(2, 7)),
                minibatches=int(ri(1, 6)),
                tau=float(u(0.01, 0.1)),
                comm=float(u(0.002, 0.02)),
                worker_bw=b,
                ps_bw=float(u(5.0, 20.0)),
            )
            jobs.append(
                JobSpec(
                    j,
                    int(a),
                    m,
                    {"gpu": int(ri(0, 3)), "cpu": int(ri(1, 5)), "mem": int(ri(2, 9))},
                    {"cpu": int(ri(1, 5)), "mem": int(ri(2, 9))},
                    utility=Sigmoid(float(u(1, 100)), float(u(0, 1)), float(u(1, 15))),
                    requested_workers=int(ri(1, m.chunks + 1)),
                    name="synthetic-oasis",
                )
            )
    elif model == "pdors":
        cluster = Cluster.homogeneous(n_servers, {"gpu": 4, "cpu": 16, "mem": 64})
        for j, a in enumerate(arrivals):
            m = PdorsModel(
                epochs=int(ri(1, 4)),
                samples=int(ri(200, 2000)),
                batch=int(ri(4, 17)),
                tau=float(u(0.001, 0.005)),
                sync_internal=float(u(0.001, 0.01)),
                sync_external=float(u(0.02, 0.1)),
                ratio=1.0,
            )
            jobs.append(
                JobSpec(
                    j,
                    int(a),
                    m,
                    {"gpu": 1, "cpu": int(ri(1, 4)), "mem": int(ri(2, 9))},
                    {"cpu": int(ri(1, 4)), "mem": int(ri(2, 9))},
                    utility=Sigmoid(float(u(1, 100)), float(u(0, 1)), float(u(1, 15))),
                    requested_workers=int(ri(1, 5)),
                    name="synthetic-pdors",
                )
            )
    elif model == "aonline":
        # one worker type and one PS type (U = V = 1), named as in dlsched.aonline.model
        edges = [{"w0": int(ri(2, 9)), "ps0": int(ri(1, 5))} for _ in range(max(1, n_servers - 1))]
        cluster = Cluster.edge_cloud(
            edges,
            {"w0": 64, "ps0": 32},
            edge_delay=[float(ri(0, 3)) for _ in edges],
            cloud_delay=3.0,
        )
        for j, a in enumerate(arrivals):
            m = AOnlineModel(
                epochs=int(ri(1, 4)),
                chunks=int(ri(2, 9)),
                minibatches=int(ri(2, 11)),
                compute=float(u(0.01, 0.05)),
                update=float(u(0.001, 0.01)),
                comm=float(u(0.005, 0.05)),
            )
            delay = tuple(float(d + ri(0, 2)) for d in cluster.transfer_delay)
            jobs.append(
                JobSpec(
                    j,
                    int(a),
                    m,
                    {"w0": 1},
                    {"ps0": 1},
                    requested_workers=int(ri(1, m.chunks + 1)),
                    transfer_delay=delay,
                    name="synthetic-aonline",
                )
            )
    elif model == "optimus":
        cluster = Cluster.homogeneous(n_servers, {"cpu": 16, "mem": 64}, slot_seconds=600.0)
        for j, a in enumerate(arrivals):
            m = OptimusModel(
                mode=str(rng.choice(["sync", "async"])),
                total_steps=float(ri(500, 5000)),
                batch=float(ri(32, 257)),
                t_forward=float(u(0.001, 0.01)),
                t_back=float(u(0.05, 0.2)),
                model_size=float(u(5, 100)),
                ps_bw=float(u(100, 1000)),
                worker_bw=float(u(100, 1000)),
                t_update=float(u(0.001, 0.01)),
                delta=0.005,
                delta_ps=0.005,
                loss=LossCurve(float(u(0.1, 1.0)), float(u(0.5, 2.0)), float(u(0.0, 0.2))),
                work_per_epoch=100.0,
            )
            jobs.append(
                JobSpec(
                    j,
                    int(a),
                    m,
                    {"cpu": int(ri(1, 5)), "mem": int(ri(2, 9))},
                    {"cpu": int(ri(1, 5)), "mem": int(ri(2, 9))},
                    requested_workers=int(ri(1, 5)),
                    name="synthetic-optimus",
                )
            )
    elif model == "specon":
        cluster = Cluster.homogeneous(
            n_servers, {"cpu": 8, "mem": 32}, compressible=("cpu",), slot_seconds=10.0
        )
        for j, a in enumerate(arrivals):
            m = SpeconModel(
                work=float(u(200, 2000)),
                migration_pause=float(u(2, 15)),
                loss=LossCurve(float(u(0.1, 1.0)), float(u(0.5, 2.0)), 0.0),
                work_per_epoch=100.0,
            )
            jobs.append(
                JobSpec(j, int(a), m, {"cpu": int(ri(1, 5)), "mem": int(ri(1, 9))}, name="synthetic-specon")
            )
    else:  # linear
        cluster = Cluster.homogeneous(n_servers, {"gpu": 4})
        for j, a in enumerate(arrivals):
            g = int(rng.choice([1, 1, 2, 4]))
            jobs.append(
                JobSpec(
                    j,
                    int(a),
                    LinearModel(work=float(g * u(1, 6)), min_gang=g, max_gang=g),
                    {"gpu": 1},
                    requested_workers=g,
                    name="synthetic-linear",
                )
            )
    params = {"model": model, "n_jobs": n_jobs, "n_servers": n_servers, "arrival_span": arrival_span}
    return Workload(cluster, tuple(jobs), name="synthetic", horizon=horizon, params=params)


def _gpu_cluster(n_gpus: int, gpus_per_server: int, slot_seconds: float) -> Cluster:
    n_gpus = _check_int(n_gpus, "n_gpus")
    gpus_per_server = _check_int(gpus_per_server, "gpus_per_server")
    n = math.ceil(n_gpus / gpus_per_server)
    servers = tuple(Server(f"node{i}", "unified", {"gpu": gpus_per_server}) for i in range(n))
    return Cluster(servers, slot_seconds=_check_pos(slot_seconds, "slot_seconds"))


def arrival_window(gpus: np.ndarray, duration: np.ndarray, n_gpus: int, load: float) -> float:
    r"""Length ``W`` (seconds) of the arrival window that gives offered load ``load``.

    ``W`` solves :math:`W \cdot n_{gpus} \cdot load = \sum_j g_j \min(d_j, W)`: the GPU time
    offered *inside the window* (a job longer than the window only counts up to ``W``) is
    ``load`` times the capacity. Counting whole durations instead would let a few very long jobs
    (Philly's tail reaches weeks) stretch the window until nothing ever queues. If all jobs fit
    at once (``sum(g) <= n_gpus * load``) no window gives that load; the longest duration is used.
    """
    g = np.asarray(gpus, float)
    d = np.asarray(duration, float)
    target = n_gpus * load
    if g.sum() <= target:
        return float(d.max())
    lo, hi = 0.0, float(np.sum(g * d) / target)
    for _ in range(200):  # bisection on the increasing gap W * target - offered(W)
        mid = 0.5 * (lo + hi)
        if mid * target < np.sum(g * np.minimum(d, mid)):
            lo = mid
        else:
            hi = mid
    return hi


def _rigid_jobs(
    submit: np.ndarray,
    gpus: np.ndarray,
    duration: np.ndarray,
    n_gpus: int,
    slot_seconds: float,
    load: float,
    label: str,
) -> tuple[JobSpec, ...]:
    """Rigid gang jobs with arrivals rescaled to the offered ``load``."""
    load = _check_pos(load, "load")
    window = arrival_window(gpus, duration, n_gpus, load)
    span = float(submit.max() - submit.min()) if len(submit) > 1 else 0.0
    scale = window / span if span > 0 else 0.0
    arrive_s = (submit - submit.min()) * scale
    jobs = []
    for j, (a, g, d) in enumerate(zip(arrive_s, gpus, duration, strict=False)):
        work = float(g) * float(d) / slot_seconds
        jobs.append(
            JobSpec(
                j,
                int(a // slot_seconds),
                LinearModel(work=work, min_gang=int(g), max_gang=int(g)),
                {"gpu": 1},
                requested_workers=int(g),
                name=label,
                submit_time=float(a),
            )
        )
    return tuple(jobs)


def philly(
    rng: np.random.Generator,
    *,
    n_jobs: int = 1000,
    n_gpus: int = 100,
    gpus_per_server: int = 4,
    max_gpus: int = 8,
    load: float = 1.0,
    slot_seconds: float = 60.0,
    week: bool = False,
    data_dir: str | None = None,
) -> Workload:
    """Jobs sampled from the real Microsoft Philly trace (Jeon et al., ATC'19) as rigid GPU gangs.

    Parameters
    ----------
    rng : numpy.random.Generator
        Drives the sample of trace rows.
    n_jobs : int
        Jobs to sample (with replacement only if the filtered trace has fewer rows).
    n_gpus, gpus_per_server : int
        Cluster of ``ceil(n_gpus / gpus_per_server)`` identical GPU servers.
    max_gpus : int
        Keep trace jobs with 1..max_gpus GPUs (and at most the cluster size).
    load : float
        Offered load used to rescale the arrival window (see module docstring).
    slot_seconds : float
        Slot length.
    week : bool
        Sample from the one-week extract instead of the full trace.
    data_dir : str, optional
        Trace folder (default: ``dlsched.traces.data_dir()``).
    """
    from dlsched import traces

    df = traces.load_philly(data_dir, week=week)
    return _trace_workload(rng, df, "philly", n_jobs, n_gpus, gpus_per_server, max_gpus, load, slot_seconds)


def itp(
    rng: np.random.Generator,
    *,
    cluster: int | None = None,
    n_jobs: int = 1000,
    n_gpus: int = 100,
    gpus_per_server: int = 4,
    max_gpus: int = 8,
    load: float = 1.0,
    slot_seconds: float = 60.0,
    data_dir: str | None = None,
) -> Workload:
    """Like :func:`philly`, from the Microsoft ITP traces (Gu et al., ASPLOS'23); ``cluster`` picks
    one of the ten ITP clusters (None: all)."""
    from dlsched import traces

    df = traces.load_itp(cluster, data_dir)
    return _trace_workload(rng, df, "itp", n_jobs, n_gpus, gpus_per_server, max_gpus, load, slot_seconds)


def _trace_workload(rng, df, label, n_jobs, n_gpus, gpus_per_server, max_gpus, load, slot_seconds):
    n_jobs = _check_int(n_jobs, f"{label}: n_jobs")
    max_gpus = _check_int(max_gpus, f"{label}: max_gpus")
    cluster = _gpu_cluster(n_gpus, gpus_per_server, slot_seconds)
    cap = int(cluster.capacity.sum())
    keep = df[(df["num_gpus"] >= 1) & (df["num_gpus"] <= min(max_gpus, cap))]
    if keep.empty:
        raise ValueError(f"{label}: no trace job has 1..{min(max_gpus, cap)} GPUs")
    idx = rng.choice(len(keep), size=n_jobs, replace=n_jobs > len(keep))
    rows = keep.iloc[np.sort(idx)]
    jobs = _rigid_jobs(
        rows["submit_time"].to_numpy(float),
        rows["num_gpus"].to_numpy(int),
        rows["duration"].to_numpy(float),
        cap,
        cluster.slot_seconds,
        load,
        label,
    )
    params = {
        "n_jobs": n_jobs,
        "n_gpus": n_gpus,
        "gpus_per_server": gpus_per_server,
        "max_gpus": max_gpus,
        "load": load,
        "slot_seconds": slot_seconds,
    }
    return Workload(cluster, jobs, name=label, params=params)


def philly_like(
    rng: np.random.Generator,
    *,
    n_jobs: int = 1000,
    n_gpus: int = 100,
    gpus_per_server: int = 4,
    load: float = 0.9,
    median_minutes: float = 30.0,
    sigma: float = 1.8,
    slot_seconds: float = 60.0,
) -> Workload:
    """Synthetic Philly-shaped jobs: GPUs in {1, 2, 4, 8} (probabilities 0.7, 0.1, 0.1, 0.1),
    lognormal durations (median ``median_minutes``, log-std ``sigma``: heavy-tailed), Poisson
    arrivals scaled to the offered ``load``."""
    n_jobs = _check_int(n_jobs, "philly_like: n_jobs")
    median = _check_pos(median_minutes, "philly_like: median_minutes")
    sigma = _check_pos(sigma, "philly_like: sigma")
    cluster = _gpu_cluster(n_gpus, gpus_per_server, slot_seconds)
    gpus = rng.choice([1, 2, 4, 8], size=n_jobs, p=[0.7, 0.1, 0.1, 0.1])
    duration = np.maximum(60.0, rng.lognormal(math.log(median * 60.0), sigma, n_jobs))
    submit = np.cumsum(rng.exponential(1.0, n_jobs))
    jobs = _rigid_jobs(
        submit, gpus, duration, int(cluster.capacity.sum()), cluster.slot_seconds, load, "philly_like"
    )
    params = {
        "n_jobs": n_jobs,
        "n_gpus": n_gpus,
        "gpus_per_server": gpus_per_server,
        "load": load,
        "median_minutes": median,
        "sigma": sigma,
        "slot_seconds": slot_seconds,
    }
    return Workload(cluster, jobs, name="philly_like", params=params)


def gavel_like(
    rng: np.random.Generator,
    *,
    n_jobs: int = 1000,
    n_servers: int = 25,
    gpus_per_server: int = 1,
    mean_gap_seconds: float = 180.0,
    min_hours: float = 1.0,
    max_hours: float = 4.0,
    slot_seconds: float = 360.0,
) -> Workload:
    """A workload shaped like Gavel's trace generator (Narayanan et al., OSDI'20), as issue 11
    describes it for the DRF/FIFO scaling benchmark: rigid GPU gangs on small GPU servers.

    Choices (each a parameter with the issue's value as default):

    * cluster: ``n_servers`` identical servers of ``gpus_per_server`` GPUs (25 single-GPU
      servers), slots of ``slot_seconds`` (360 s);
    * GPUs per job: 1, 2 or 4 with probabilities 0.7, 0.1, 0.2 (the issue's reading of Gavel's
      Philly-derived scale factors; no 8-GPU jobs on this small cluster);
    * duration: uniform between ``min_hours`` and ``max_hours`` (1-4 h), in seconds; the job is a
      rigid gang (:class:`~dlsched.core.jobs.LinearModel` with ``min_gang == max_gang == g``)
      with work ``g * duration / slot_seconds`` worker-slots, as the trace workloads;
    * arrivals: a Poisson process with mean gap ``mean_gap_seconds`` (180 s): the first job at
      time 0, then exponential gaps; the arrival slot is ``floor(time / slot_seconds)``, ties in
      a slot ordered by job id (= submission order).

    Offered load: with these defaults ``E[g] * E[duration] / (mean gap * GPUs)`` is
    ``1.7 * 9000 s / (180 s * 25)`` = 3.4 (the issue quotes "about 2.9", which is what
    log-uniform durations over the same 1-4 h range would give; the queue grows either way).
    Draw order: GPUs, then durations, then gaps (one vectorised draw each).
    """
    n_jobs = _check_int(n_jobs, "gavel_like: n_jobs")
    n_servers = _check_int(n_servers, "gavel_like: n_servers")
    gpus_per_server = _check_int(gpus_per_server, "gavel_like: gpus_per_server")
    gap = _check_pos(mean_gap_seconds, "gavel_like: mean_gap_seconds")
    lo = _check_pos(min_hours, "gavel_like: min_hours")
    hi = _check_pos(max_hours, "gavel_like: max_hours")
    if hi < lo:
        raise ValueError(f"gavel_like: max_hours={hi!r} < min_hours={lo!r}")
    cluster = _gpu_cluster(n_servers * gpus_per_server, gpus_per_server, slot_seconds)
    cap = int(cluster.capacity.sum())
    gpus = rng.choice([1, 2, 4], size=n_jobs, p=[0.7, 0.1, 0.2])
    if gpus.max() > cap:
        raise ValueError(f"gavel_like: jobs of {int(gpus.max())} GPUs do not fit on {cap} GPUs")
    duration = rng.uniform(lo * 3600.0, hi * 3600.0, n_jobs)
    gaps = rng.exponential(gap, n_jobs)
    submit = np.concatenate(([0.0], np.cumsum(gaps[1:])))
    slot = cluster.slot_seconds
    jobs = tuple(
        JobSpec(
            j,
            int(a // slot),
            LinearModel(work=float(g) * float(d) / slot, min_gang=int(g), max_gang=int(g)),
            {"gpu": 1},
            requested_workers=int(g),
            name="gavel_like",
            submit_time=float(a),
        )
        for j, (a, g, d) in enumerate(zip(submit, gpus, duration, strict=True))
    )
    params = {
        "n_jobs": n_jobs,
        "n_servers": n_servers,
        "gpus_per_server": gpus_per_server,
        "mean_gap_seconds": gap,
        "min_hours": lo,
        "max_hours": hi,
        "slot_seconds": slot_seconds,
    }
    return Workload(cluster, jobs, name="gavel_like", params=params)


__all__ = ["SYNTHETIC_MODELS", "synthetic", "philly", "itp", "philly_like", "gavel_like", "ConstantUtility"]

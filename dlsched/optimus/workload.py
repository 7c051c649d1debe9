r"""The workload of Optimus Sec. 6.1: the nine job types of Table 1 on the 13-server testbed.

Paper (Sec. 6.1): "Job arrival happens randomly between [0, 12000] seconds. Upon an arrival event,
we randomly choose the job among the examples in Table 1 and decide to run it using asynchronous
training or synchronous training randomly. We vary the convergence threshold of jobs between 1%
and 5%. For jobs training large models [...] we downscale their dataset sizes"; the scheduling
interval is 10 minutes; the testbed has 7 CPU servers (2 x 8 cores, 80 GB) and 6 GPU servers
(8 cores, 2 GPUs, 48 GB). Fig. 17 adds two arrival processes: Poisson with 3 arrivals per
interval, and arrivals "extracted from Google cluster workload traces over a 7 hour period".

What the paper leaves open, and our choices (all parameters of :func:`optimus_workload` or of
:data:`TABLE1`, documented here and in notebook ``22_optimus_figures``):

* **Number of jobs**: not stated; default 30 (arrival rate about 1.5 per interval).
* **Job types** (:data:`TABLE1`): parameter counts and dataset sizes are Table 1's. The per-job
  ground truth of Eq. (2) (:class:`~dlsched.core.jobs.OptimusModel`) needs compute times the paper
  does not report: ``sec_per_example`` (forward time of one example on one 4-core worker, our
  estimate for CPU training), down-scaled training-set sizes ``train_examples`` ("we downscale
  their dataset sizes"), batch sizes from the MXNet examples the paper uses. The model size
  :math:`S` is 4 bytes per parameter (MB); :math:`T_{back}` is 5 % of a mini-batch's forward
  time, :math:`T_{update} = S / 1000` s (1 GB/s update rate), the overheads
  :math:`\delta = \delta' = 0.02` s per task; PS and worker bandwidth 125 MB/s (the testbed's
  1 GbE), traffic inside one server free (the appendix model of Theorem 1).
* **Loss curves**: each job type takes the Eq. (1) fit of one *real* training-loss curve of
  :mod:`dlsched.optimus.curves` (small scikit-learn models trained for real; mapping in
  :data:`TABLE1`), on the normalised scale; observed losses carry multiplicative noise
  (``loss_noise``, default 1 %). A job's total work is the epoch at which the curve's per-epoch
  decrease first falls below its threshold (the closed form of
  :func:`dlsched.optimus.fitting.convergence_epoch`, at least one epoch) times its steps per epoch.
* **Demands**: every worker asks for 4 CPU cores and 8 GB, every PS for 2 cores and 8 GB (16 GB
  for models of 20 M parameters or more). CPU is the scarce resource, as in the paper's
  experiments (they sort servers by free CPU). GPUs are not modelled (``gpu`` capacity is listed
  for the record; no task asks for one).

:func:`job_model` builds one job type's ground-truth model (for notebooks, e.g. Table 2).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dlsched.core.cluster import Cluster, Server
from dlsched.core.jobs import JobSpec, LossCurve, OptimusModel, Workload

INTERVAL_SECONDS = 600.0
"""Scheduling interval of Sec. 6.1 (10 minutes); one simulator slot."""

ARRIVALS = ("uniform", "poisson", "google")
"""Valid ``arrivals=`` values: uniform over [0, span] (Sec. 6.1), Poisson with ``rate`` arrivals per
interval (Fig. 17, 3 per interval), or the Google 2011 trace's submissions over 7 hours (Fig. 17)."""

MODES = ("random", "sync", "async")
"""Valid ``mode=`` values: each job sync or async at random (Sec. 6.1), or all one kind (Fig. 16)."""

GOOGLE_WINDOW_HOURS = 7
"""Length of the Google-trace window of Fig. 17."""


@dataclass(frozen=True)
class JobType:
    """One row of Table 1 with our simulation constants.

    Attributes
    ----------
    key : str
        Short name (``"resnet50"``).
    label : str
        Model name as in Table 1.
    params_m : float
        Parameters (millions), Table 1.
    network, domain, dataset : str
        Table 1's columns.
    examples : int
        Dataset size (# examples), Table 1.
    train_examples : int
        Down-scaled training-set size used per epoch (our choice).
    batch : int
        Mini-batch size (global batch M in sync mode, per-worker batch m in async mode).
    sec_per_example : float
        Forward time of one example on one worker (s), our estimate.
    curve : str
        Real loss curve (:mod:`dlsched.optimus.curves` config) whose Eq. (1) fit drives the job.
    """

    key: str
    label: str
    params_m: float
    network: str
    domain: str
    dataset: str
    examples: int
    train_examples: int
    batch: int
    sec_per_example: float
    curve: str

    @property
    def model_size(self) -> float:
        """:math:`S` in MB (4 bytes per parameter)."""
        return 4.0 * self.params_m

    @property
    def steps_per_epoch(self) -> float:
        """Mini-batches per epoch of the down-scaled training set."""
        return self.train_examples / self.batch


TABLE1: dict[str, JobType] = {
    t.key: t
    for t in (
        JobType("resnext110", "ResNext-110", 1.7, "CNN", "image classification", "CIFAR10", 60_000,
                10_000, 128, 0.05, "digits_mlp_sgd"),
        JobType("resnet50", "ResNet-50", 25.0, "CNN", "image classification", "ILSVRC2012-ImageNet",
                1_313_788, 5_000, 64, 0.30, "digits_mlp_sgd_slow"),
        JobType("inception_bn", "Inception-BN", 11.3, "CNN", "image classification", "Caltech", 30_607,
                6_000, 64, 0.15, "iris_mlp_adam"),
        JobType("kaggle", "KAGGLE", 1.4, "CNN", "image classification", "Kaggle-NDSB1", 37_920,
                10_000, 128, 0.03, "digits_mlp_adam"),
        JobType("cnn_rand", "CNN-rand", 6.0, "CNN", "sentence classification", "MR", 10_662,
                10_662, 50, 0.01, "breast_cancer_mlp_adam"),
        JobType("dssm", "DSSM", 1.5, "RNN", "word representation", "text8", 214_288,
                20_000, 128, 0.01, "wine_linear_sgd"),
        JobType("rnn_lstm", "RNN-LSTM-Dropout", 4.7, "RNN", "language modeling", "PTB", 1_002_000,
                20_000, 32, 0.03, "iris_mlp_sgd_slow"),
        JobType("seq2seq", "Sequence-to-Sequence", 9.1, "RNN", "machine translation", "WMT17", 1_000_000,
                10_000, 64, 0.08, "wine_mlp_sgd"),
        JobType("deepspeech2", "DeepSpeech2", 38.0, "RNN", "speech recognition", "LibriSpeech", 45_000,
                3_000, 32, 0.50, "breast_cancer_linear_sgd"),
    )
}  # fmt: skip
"""Table 1 of the paper (first seven attributes) with our simulation constants (the rest)."""

WORKER_DEMAND = {"cpu": 4.0, "mem": 8.0}
"""Resources of one worker (all job types)."""

DATA_SCALE = 2.0
"""Default multiplier of the training-set sizes in :func:`optimus_workload`, calibrated so that
the default workload (30 jobs) keeps the testbed about as busy as in the paper: Optimus's makespan
is about 4.8 h (paper: 4.1 h), with jobs of 0.7-7 hours on one worker."""

BANDWIDTH_MB_S = 125.0
"""PS and worker bandwidth (1 GbE), MB/s."""


def _job_type(key: str) -> JobType:
    if key not in TABLE1:
        raise ValueError(f"unknown job type {key!r}; known: {', '.join(TABLE1)}")
    return TABLE1[key]


def ps_demand(job_type: str) -> dict[str, float]:
    """Resources of one PS of ``job_type`` (2 cores; 8 GB, 16 GB for >= 20 M parameters)."""
    t = _job_type(job_type)
    return {"cpu": 2.0, "mem": 16.0 if t.params_m >= 20 else 8.0}


@functools.cache
def loss_curve(job_type: str) -> LossCurve:
    """The Eq. (1) curve of ``job_type``: the NNLS fit of its real loss curve's per-epoch means.

    Parameters
    ----------
    job_type : str
        A key of :data:`TABLE1`.

    Returns
    -------
    LossCurve
        Coefficients on the normalised scale (first epoch's loss about 1).
    """
    from dlsched.optimus.curves import load_curves, per_epoch
    from dlsched.optimus.fitting import fit_loss_curve

    t = _job_type(job_type)
    ep = per_epoch(load_curves(configs=[t.curve]))
    fit = fit_loss_curve(ep["epoch"].to_numpy(float), ep["loss"].to_numpy(float))
    return LossCurve(float(fit.beta0), float(fit.beta1), float(fit.beta2))


def convergence_epochs(curve: LossCurve, threshold: float) -> int:
    r"""Epochs a job trains: the first epoch :math:`e` at which the per-epoch decrease
    :math:`l(e) - l(e+1)` falls below ``threshold`` (normalised by :math:`l(1)`), at least 1.

    Parameters
    ----------
    curve : LossCurve
    threshold : float
        :math:`\delta` in (0, 1).

    Returns
    -------
    int

    Raises
    ------
    ValueError
        ``threshold`` not in (0, 1).
    """
    if not (isinstance(threshold, (int, float)) and math.isfinite(threshold) and 0 < threshold < 1):
        raise ValueError(f"threshold must be in (0, 1), got {threshold!r}")
    from dlsched.optimus.fitting import LossFit, convergence_epoch

    scale = float(curve(1.0))
    fit = LossFit(
        curve.beta0, curve.beta1, curve.beta2, rss=0.0, n_points=0, normalizer=1.0, n_outliers=0, prior=False
    )
    return max(1, int(convergence_epoch(fit, threshold * scale)))


def job_model(
    job_type: str,
    mode: str,
    *,
    threshold: float = 0.03,
    loss_noise: float = 0.0,
    noise_seed: int = 0,
    data_scale: float = 1.0,
) -> OptimusModel:
    """The ground-truth :class:`~dlsched.core.jobs.OptimusModel` of one Table 1 job type.

    Parameters
    ----------
    job_type : str
        A key of :data:`TABLE1` (e.g. ``"resnet50"``).
    mode : {"sync", "async"}
    threshold : float, default 0.03
        Convergence threshold :math:`\\delta` (normalised loss decrease per epoch).
    loss_noise : float, default 0
        Relative noise of the observed losses.
    noise_seed : int, default 0
        Seed of the observation noise.
    data_scale : float, default 1
        Multiplies the training-set size ``train_examples`` (steps per epoch).

    Returns
    -------
    OptimusModel

    Raises
    ------
    ValueError
        Unknown job type or mode, threshold outside (0, 1), negative noise.
    """
    t = _job_type(job_type)
    if mode not in ("sync", "async"):
        raise ValueError(f"mode must be 'sync' or 'async', got {mode!r}")
    if not (isinstance(data_scale, (int, float)) and math.isfinite(data_scale) and data_scale > 0):
        raise ValueError(f"data_scale must be a finite number > 0, got {data_scale!r}")
    curve = loss_curve(job_type)
    epochs = convergence_epochs(curve, threshold)
    steps_per_epoch = t.steps_per_epoch * float(data_scale)
    mb_forward = t.batch * t.sec_per_example
    return OptimusModel(
        mode=mode,
        total_steps=float(epochs * steps_per_epoch),
        batch=float(t.batch),
        t_forward=t.sec_per_example,
        t_back=0.05 * mb_forward,
        model_size=t.model_size,
        ps_bw=BANDWIDTH_MB_S,
        worker_bw=BANDWIDTH_MB_S,
        t_update=t.model_size / 1000.0,
        delta=0.02,
        delta_ps=0.02,
        placement_aware=True,
        loss=curve,
        work_per_epoch=steps_per_epoch,
        threshold=float(threshold),
        loss_noise=float(loss_noise),
        noise_seed=int(noise_seed),
    )


def testbed_cluster(
    n_cpu_servers: int = 7, n_gpu_servers: int = 6, *, slot_seconds: float = INTERVAL_SECONDS
) -> Cluster:
    """The Sec. 6.1 testbed: CPU servers (16 cores, 80 GB) and GPU servers (8 cores, 48 GB, 2 GPUs).

    One unified pool (any server hosts workers and PS). Server ``i`` is named ``cpu{i}`` or
    ``gpu{i}``.

    Parameters
    ----------
    n_cpu_servers, n_gpu_servers : int
        Server counts (>= 0, not both 0); 7 and 6 on the testbed.
    slot_seconds : float
        Slot length (the scheduling interval).

    Returns
    -------
    Cluster
    """
    for name, v in (("n_cpu_servers", n_cpu_servers), ("n_gpu_servers", n_gpu_servers)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise ValueError(f"{name} must be an integer >= 0, got {v!r}")
    if n_cpu_servers + n_gpu_servers == 0:
        raise ValueError("n_cpu_servers and n_gpu_servers are both 0: the cluster has no server")
    servers = [
        Server(f"cpu{i}", "unified", {"cpu": 16.0, "mem": 80.0, "gpu": 0.0}) for i in range(n_cpu_servers)
    ]
    servers += [
        Server(f"gpu{i}", "unified", {"cpu": 8.0, "mem": 48.0, "gpu": 2.0}) for i in range(n_gpu_servers)
    ]
    return Cluster(tuple(servers), ("cpu", "mem", "gpu"), slot_seconds=slot_seconds)


@functools.lru_cache(maxsize=4)
def google_interval_counts(start_s: int = 18_600, hours: int = GOOGLE_WINDOW_HOURS) -> tuple[int, ...]:
    """Job submissions per 10-minute interval of the Google 2011 trace, ``hours`` from ``start_s``.

    C. Reiss, J. Wilkes, J. L. Hellerstein, "Google cluster-usage traces: format + schema",
    2011 (clusterdata-2011-2); the week file of :func:`dlsched.traces.load_google_jobs`. The
    default window is the first 7 hours of that week (Mon 2011-05-02).

    Parameters
    ----------
    start_s : int
        Trace timestamp (s) of the window's start, in ``[18600, 623400 - hours * 3600]``.
    hours : int
        Window length.

    Returns
    -------
    tuple[int, ...]
        ``hours * 6`` counts.
    """
    from dlsched.traces import load_google_jobs

    if isinstance(hours, bool) or not isinstance(hours, int) or hours < 1:
        raise ValueError(f"hours must be an integer >= 1, got {hours!r}")
    if (
        isinstance(start_s, bool)
        or not isinstance(start_s, int)
        or not 18_600 <= start_s <= 623_400 - hours * 3600
    ):
        raise ValueError(f"start_s must be an integer in [18600, {623_400 - hours * 3600}], got {start_s!r}")
    sub = load_google_jobs()["submit_time_s"].to_numpy()
    edges = start_s + np.arange(hours * 6 + 1) * 600
    counts, _ = np.histogram(sub, bins=edges)
    return tuple(int(c) for c in counts)


def arrival_slots(
    rng: np.random.Generator,
    n_jobs: int,
    pattern: str = "uniform",
    *,
    span_seconds: float = 12_000.0,
    rate: float = 3.0,
    google_start_s: int = 18_600,
    interval_seconds: float = INTERVAL_SECONDS,
) -> np.ndarray:
    """Sorted arrival slots (scheduling intervals) of ``n_jobs`` jobs.

    Parameters
    ----------
    rng : numpy.random.Generator
    n_jobs : int
        >= 1.
    pattern : {"uniform", "poisson", "google"}
        ``uniform``: times uniform on ``[0, span_seconds]`` (Sec. 6.1). ``poisson``: exponential
        gaps with ``rate`` arrivals per interval (Fig. 17). ``google``: each job's interval drawn
        with probability proportional to the Google trace's submissions in that interval of the
        7-hour window starting at ``google_start_s`` (:func:`google_interval_counts`; Fig. 17).
    span_seconds, rate, google_start_s, interval_seconds
        As above.

    Returns
    -------
    numpy.ndarray
        int64 slots, sorted.
    """
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs < 1:
        raise ValueError(f"n_jobs must be an integer >= 1, got {n_jobs!r}")
    if pattern not in ARRIVALS:
        raise ValueError(f"arrivals must be one of {ARRIVALS}, got {pattern!r}")
    if pattern == "uniform":
        if not (isinstance(span_seconds, (int, float)) and math.isfinite(span_seconds) and span_seconds >= 0):
            raise ValueError(f"span_seconds must be a finite number >= 0, got {span_seconds!r}")
        times = rng.uniform(0.0, float(span_seconds), n_jobs)
        return np.sort(np.floor(times / interval_seconds)).astype(np.int64)
    if pattern == "poisson":
        if not (isinstance(rate, (int, float)) and math.isfinite(rate) and rate > 0):
            raise ValueError(f"rate must be a finite number > 0, got {rate!r}")
        gaps = rng.exponential(1.0 / float(rate), n_jobs)
        return np.floor(np.cumsum(gaps) - gaps[0]).astype(np.int64)
    counts = np.asarray(google_interval_counts(int(google_start_s)), dtype=float)
    slots = rng.choice(counts.size, size=n_jobs, p=counts / counts.sum())
    return np.sort(slots).astype(np.int64)


def optimus_workload(
    rng: np.random.Generator,
    n_jobs: int = 30,
    arrivals: str = "uniform",
    mode: str = "random",
    threshold: tuple[float, float] = (0.01, 0.05),
    loss_noise: float = 0.01,
    span_seconds: float = 12_000.0,
    rate: float = 3.0,
    google_start_s: int = 18_600,
    n_cpu_servers: int = 7,
    n_gpu_servers: int = 6,
    job_types: Sequence[str] | None = None,
    data_scale: float = DATA_SCALE,
) -> Workload:
    """Optimus Sec. 6.1 workload (see the module docstring for every choice).

    Parameters
    ----------
    rng : numpy.random.Generator
    n_jobs : int, default 30
    arrivals : {"uniform", "poisson", "google"}, default "uniform"
        See :func:`arrival_slots`.
    mode : {"random", "sync", "async"}, default "random"
    threshold : (float, float), default (0.01, 0.05)
        Convergence thresholds drawn uniformly from this range (1 %-5 %).
    loss_noise : float, default 0.01
        Relative noise of observed losses.
    span_seconds, rate, google_start_s
        Arrival-process parameters (:func:`arrival_slots`).
    n_cpu_servers, n_gpu_servers : int
        Cluster (:func:`testbed_cluster`).
    job_types : sequence of str, optional
        Job types to draw from (default all of :data:`TABLE1`).
    data_scale : float, default :data:`DATA_SCALE` (2)
        Multiplies every job's training-set size (:func:`job_model`).

    Returns
    -------
    Workload
        Unbounded horizon; one slot = one 10-minute interval.

    Raises
    ------
    ValueError
        On any bad parameter (named with its value).
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    try:
        lo, hi = (float(v) for v in threshold)
    except (TypeError, ValueError):
        raise ValueError(f"threshold must be a pair (low, high), got {threshold!r}") from None
    if not (0 < lo <= hi < 1):
        raise ValueError(f"threshold must satisfy 0 < low <= high < 1, got {threshold!r}")
    if not (isinstance(loss_noise, (int, float)) and math.isfinite(loss_noise) and 0 <= loss_noise < 1):
        raise ValueError(f"loss_noise must be in [0, 1), got {loss_noise!r}")
    types = list(TABLE1) if job_types is None else [str(k) for k in job_types]
    if not types:
        raise ValueError("job_types is empty")
    for k in types:
        _job_type(k)
    cluster = testbed_cluster(n_cpu_servers, n_gpu_servers)
    slots = arrival_slots(
        rng, n_jobs, arrivals, span_seconds=span_seconds, rate=rate, google_start_s=google_start_s
    )
    jobs = []
    for j, a in enumerate(slots):
        key = types[int(rng.integers(len(types)))]
        m = mode if mode != "random" else ("sync" if rng.random() < 0.5 else "async")
        delta = float(rng.uniform(lo, hi))
        model = job_model(
            key,
            m,
            threshold=delta,
            loss_noise=float(loss_noise),
            noise_seed=int(rng.integers(2**31)),
            data_scale=data_scale,
        )
        jobs.append(JobSpec(j, int(a), model, dict(WORKER_DEMAND), ps_demand(key), name=f"{key}-{m}"))
    params = {
        "n_jobs": int(n_jobs), "arrivals": arrivals, "mode": mode, "threshold": (lo, hi),
        "loss_noise": float(loss_noise), "n_cpu_servers": int(n_cpu_servers),
        "n_gpu_servers": int(n_gpu_servers), "data_scale": float(data_scale),
    }  # fmt: skip
    return Workload(cluster, tuple(jobs), name="optimus", params=params)


__all__ = [
    "ARRIVALS",
    "INTERVAL_SECONDS",
    "MODES",
    "TABLE1",
    "JobType",
    "arrival_slots",
    "convergence_epochs",
    "google_interval_counts",
    "job_model",
    "loss_curve",
    "optimus_workload",
    "ps_demand",
    "testbed_cluster",
]

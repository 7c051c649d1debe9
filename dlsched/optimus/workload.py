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

Alternative readings (issue 22; notebook ``22_optimus_figures``, "Which reading restores the
claim"). Both are parameters of :func:`job_model` and :func:`optimus_workload`; their defaults
build the plain :class:`~dlsched.core.jobs.OptimusModel` above, so every default run is unchanged.

* ``speed_model="table2"`` (:data:`SPEED_MODELS`): the ground-truth speed follows Eq. (3)/(4)
  with the paper's **Table 2** coefficients (ResNet-50, 40 containers; spec section 3, "Table 2
  [Q]"; paper Sec. 3.2, Table 2) instead of our Eq. (2) constants, for every job type
  (:class:`ReadingModel`). Table 2 does not give the unit of :math:`M`; we take :math:`M = 1`
  (the mini-batch time of one worker holding the whole global batch is :math:`\theta_0`), the
  reading under which the paper's remark that forward, backward and transfer terms "make up most
  of the training time" (their coefficients are of one order) holds. Each job keeps its own speed
  at 1 PS + 1 worker (Eq. (2), no placement), so only the *shape* of :math:`f(p, w)` changes;
  the speed no longer depends on the placement (Table 2's fit has no placement term).
* ``rescale_seconds`` > 0: a cost per rescale (paper Sec. 5.4, "we checkpoint the model
  parameters and save them to HDFS [...] Then we restart the job from the checkpoint"; spec
  section 6, "Elastic scaling: checkpoint to HDFS, restart with the new (p, w)"): whenever a
  running job's placement changes to another non-empty placement (more or fewer tasks, or the
  same tasks on other servers), its first ``rescale_seconds`` seconds on the new placement make
  no progress (:meth:`ReadingModel.switch_pause`). A job that starts, or resumes after a slot
  without tasks, pays nothing. The cost is the same for every scheme.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from dlsched.core.cluster import Cluster, Server
from dlsched.core.jobs import JobSpec, LossCurve, OptimusModel, Workload
from dlsched.core.schedule import Placement

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

SPEED_MODELS = ("eq2", "table2")
"""Valid ``speed_model=`` values: our Eq. (2) ground truth (default) or Eq. (3)/(4) with the
paper's Table 2 coefficients (module docstring)."""

TABLE2_THETA = MappingProxyType({"async": (2.83, 3.92, 0.00, 0.11), "sync": (1.02, 2.78, 4.92, 0.00, 0.02)})
r"""Paper Table 2 (spec section 3): :math:`\theta_0..\theta_3` of Eq. (3) (async) and
:math:`\theta_0..\theta_4` of Eq. (4) (sync), the table's :math:`\theta_1..\theta_5`."""


def table2_step_time(mode: str, ps: int, workers: int) -> float:
    r"""Step time (per worker, in Table 2's time unit) of Eq. (3)/(4) with Table 2's coefficients.

    Sync: :math:`\theta_0 M/w + \theta_1 + \theta_2 w/p + \theta_3 w + \theta_4 p` with
    :math:`M = 1` (module docstring); async: :math:`\theta_0 + \theta_1 w/p + \theta_2 w +
    \theta_3 p`. The speed is its inverse (sync) or ``workers`` over it (async).

    Parameters
    ----------
    mode : {"sync", "async"}
    ps, workers : int
        >= 1.

    Raises
    ------
    ValueError
        Unknown mode or counts below 1.
    """
    if mode not in TABLE2_THETA:
        raise ValueError(f"mode must be 'sync' or 'async', got {mode!r}")
    for name, v in (("ps", ps), ("workers", workers)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {v!r}")
    th = TABLE2_THETA[mode]
    p, w = float(ps), float(workers)
    if mode == "sync":
        return th[0] / w + th[1] + th[2] * w / p + th[3] * w + th[4] * p
    return th[0] + th[1] * w / p + th[2] * w + th[3] * p


@dataclass(frozen=True)
class ReadingModel(OptimusModel):
    """:class:`~dlsched.core.jobs.OptimusModel` under the alternative readings of the module
    docstring (built by :func:`job_model` only when one of them is not its default).

    Attributes
    ----------
    speed_model : {"eq2", "table2"}
        ``"eq2"``: the parent's Eq. (2) step time; ``"table2"``: :func:`table2_step_time` times
        ``table2_scale``.
    table2_scale : float
        Seconds per Table 2 time unit: the job's Eq. (2) step time at 1 PS + 1 worker (no
        placement) over Table 2's, so the job's speed at 1 + 1 is the same under both readings.
    rescale_seconds : float
        Seconds lost when a running job's placement changes (:meth:`switch_pause`).
    """

    speed_model: str = "eq2"
    table2_scale: float = 1.0
    rescale_seconds: float = 0.0

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.speed_model not in SPEED_MODELS:
            raise ValueError(
                f"ReadingModel.speed_model must be one of {SPEED_MODELS}, got {self.speed_model!r}"
            )
        for name, lo in (("table2_scale", "> 0"), ("rescale_seconds", ">= 0")):
            v = getattr(self, name)
            ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
            if not ok or v < 0 or (lo == "> 0" and v == 0):
                raise ValueError(f"ReadingModel.{name} must be a finite number {lo}, got {v!r}")

    def step_time(self, ps: int, workers: int, placement: Placement | None = None) -> float:
        """Seconds per step: Eq. (2) (``"eq2"``) or Table 2's Eq. (3)/(4) (``"table2"``)."""
        if self.speed_model == "eq2":
            return super().step_time(ps, workers, placement)
        return self.table2_scale * table2_step_time(self.mode, int(ps), int(workers))

    def switch_pause(self, previous: Placement, new: Placement) -> float:
        """``rescale_seconds`` when a non-empty placement changes to another non-empty one."""
        if self.rescale_seconds > 0 and not previous.is_empty and not new.is_empty and previous != new:
            return float(self.rescale_seconds)
        return 0.0


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
    speed_model: str = "eq2",
    rescale_seconds: float = 0.0,
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
    speed_model : {"eq2", "table2"}, default "eq2"
        Ground-truth speed: Eq. (2) with our constants, or Eq. (3)/(4) with the paper's Table 2
        coefficients (spec section 3, Table 2 [Q]; module docstring).
    rescale_seconds : float, default 0
        Checkpoint-and-restart cost (s) of every change of a running job's placement (paper
        Sec. 5.4; spec section 6, "Elastic scaling"; module docstring).

    Returns
    -------
    OptimusModel
        A :class:`ReadingModel` when ``speed_model`` or ``rescale_seconds`` is not its default.

    Raises
    ------
    ValueError
        Unknown job type, mode or speed model, threshold outside (0, 1), negative noise or
        rescale cost.
    """
    t = _job_type(job_type)
    if mode not in ("sync", "async"):
        raise ValueError(f"mode must be 'sync' or 'async', got {mode!r}")
    if not (isinstance(data_scale, (int, float)) and math.isfinite(data_scale) and data_scale > 0):
        raise ValueError(f"data_scale must be a finite number > 0, got {data_scale!r}")
    if speed_model not in SPEED_MODELS:
        raise ValueError(f"speed_model must be one of {SPEED_MODELS}, got {speed_model!r}")
    ok = isinstance(rescale_seconds, (int, float)) and not isinstance(rescale_seconds, bool)
    if not ok or not math.isfinite(rescale_seconds) or rescale_seconds < 0:
        raise ValueError(f"rescale_seconds must be a finite number >= 0, got {rescale_seconds!r}")
    curve = loss_curve(job_type)
    epochs = convergence_epochs(curve, threshold)
    steps_per_epoch = t.steps_per_epoch * float(data_scale)
    mb_forward = t.batch * t.sec_per_example
    fields = dict(
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
    base = OptimusModel(**fields)
    if speed_model == "eq2" and rescale_seconds == 0:
        return base
    scale = base.step_time(1, 1) / table2_step_time(mode, 1, 1)
    return ReadingModel(
        **fields, speed_model=speed_model, table2_scale=float(scale), rescale_seconds=float(rescale_seconds)
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
    speed_model: str = "eq2",
    rescale_seconds: float = 0.0,
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
    speed_model : {"eq2", "table2"}, default "eq2"
        Every job's ground-truth speed (:func:`job_model`; Table 2 reading, module docstring).
    rescale_seconds : float, default 0
        Every job's checkpoint-and-restart cost per placement change (:func:`job_model`).

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
            speed_model=speed_model,
            rescale_seconds=rescale_seconds,
        )
        jobs.append(JobSpec(j, int(a), model, dict(WORKER_DEMAND), ps_demand(key), name=f"{key}-{m}"))
    params = {
        "n_jobs": int(n_jobs), "arrivals": arrivals, "mode": mode, "threshold": (lo, hi),
        "loss_noise": float(loss_noise), "n_cpu_servers": int(n_cpu_servers),
        "n_gpu_servers": int(n_gpu_servers), "data_scale": float(data_scale),
    }  # fmt: skip
    if speed_model != "eq2":  # only when not the default: default workloads keep their params
        params["speed_model"] = speed_model
    if rescale_seconds != 0:
        params["rescale_seconds"] = float(rescale_seconds)
    return Workload(cluster, tuple(jobs), name="optimus", params=params)


__all__ = [
    "ARRIVALS",
    "INTERVAL_SECONDS",
    "MODES",
    "TABLE1",
    "JobType",
    "ReadingModel",
    "SPEED_MODELS",
    "TABLE2_THETA",
    "arrival_slots",
    "convergence_epochs",
    "google_interval_counts",
    "job_model",
    "loss_curve",
    "optimus_workload",
    "ps_demand",
    "table2_step_time",
    "testbed_cluster",
]

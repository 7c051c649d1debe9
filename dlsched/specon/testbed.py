r"""A small real-process testbed for SpeCon: DS vs SpeCon with real training processes.

Y. Mao et al., "Speculative Container Scheduling for Deep Learning Applications in a Kubernetes
Cluster", arXiv:2010.11307; reading: ``shared/spec/specon.md``. The simulator
(:mod:`dlsched.specon.policy`, :mod:`dlsched.specon.model`) models containers sharing a node's
CPU; this module runs the same decisions on real processes of this machine and compares what it
measures with what the simulator predicts for the same jobs.

Mapping to the paper
====================

==============================  ===============================================================
paper (Kubernetes cluster)      testbed (this machine)
==============================  ===============================================================
worker node :math:`w_i`         a disjoint set of this machine's CPUs (default: 2 nodes of 1
                                CPU), enforced with ``os.sched_setaffinity`` on the job's process
container :math:`c_j` (a job)   one OS process ``python -m dlsched.specon.testbed_job`` training
                                a NumPy model (:mod:`dlsched.specon.testbed_job`)
CPU sharing on a node           the Linux scheduler (CFS) time-slices the node's CPUs between
                                its processes (every job is single-threaded: BLAS/OpenMP pools
                                limited to one thread)
job log on a Persistent Volume  the job's log file, one line per epoch (``epoch loss time``)
evaluation function :math:`E`   the loss of the last finished epoch in the log (l. 168); epoch 0
                                is the loss before training, :math:`E_{first}` (spec A3)
Container Monitor (Alg. 1)      :class:`_Runner` ticks: every ``interval`` s after each launch
                                (spec A7 ``per_container``), read the log, :func:`~dlsched.
                                specon.policy.gain` and :func:`~dlsched.specon.policy.categorise`
manager, Alg. 2                 :func:`~dlsched.specon.policy.speculative_target` on the weighted
                                category counts of each node
save / restore (Figs. 2-3)      ``SIGUSR1`` -> the job writes a ``.npz`` checkpoint (atomic) and
                                exits; the testbed starts it again on the target node's CPUs
                                with ``--resume`` (it continues exactly where it stopped)
DS                              round-robin initial placement (job ``k`` on node ``k mod n`` in
                                launch order, l. 322, 400), never moves
==============================  ===============================================================

Algorithm 1 and 2 are not re-implemented here: the testbed calls the pure functions of
:mod:`dlsched.specon.policy` that the simulator's :class:`~dlsched.specon.policy.SpeCon` uses,
with the simulator's default readings: one transition per qualifying tick (``cascade="none"``,
spec A2), :math:`\hat E = E/E_{first}` (``gain_norm="first"``, A3), the first tick only records
:math:`G` (``first_round="warmup"``, A4), the request condition of A1 l. 15
:math:`|PC|+|WC|>1` over the whole cluster (``request_scope="cluster"``, A5), ticks at
:math:`a_j + m\Delta` (A7), the requesting container counted on its node (B2), ties of Alg. 2
ranked by :math:`R(w) = \min(1, \text{containers on } w / \text{CPUs of } w)` (the simulator's
``resource="cpu"`` with equal demands, B3), then the lowest node. A container is marked
``migrated`` when Alg. 2 has answered (moved or not, A2 l. 9/15/20) and is never monitored
again, so it moves at most once (l. 182). Algorithm 3 (rebalance) is not run by the testbed;
the simulator's prediction is therefore made with ``rebalance_trigger="never"``.

Migration pause
===============

For each move the testbed records (all on ``CLOCK_MONOTONIC``, seconds):

* ``request``: the manager sends ``SIGUSR1`` (Alg. 2 decided the move);
* ``wait_s`` = checkpoint start - request: the job finishes its current mini-batch (it keeps
  training on the old node, no work is lost);
* ``save_s`` = checkpoint written (after ``os.replace``) - checkpoint start;
* ``restore_s`` = "resumed" logged by the new process - checkpoint written: the old process
  exits, the monitor notices (within ``poll`` s), a new process starts on the target's CPUs
  (interpreter, NumPy, data) and loads the checkpoint;
* ``pause_s`` = ``save_s + restore_s``: the time the job trains nowhere. This is the testbed's
  migration pause, compared with the paper's save/resume overhead (Fig. 2: "all less than 5
  seconds", standard deviation 1.43 s, l. 65; :data:`~dlsched.specon.model.PAUSE_SD_PAPER`, the
  simulator's default ``migration_pause`` = 5 s) and used as the simulator's pause in the
  prediction. ``request_to_resume_s`` = resumed - request is reported too.

Scaled-down time
================

The paper's jobs run minutes and are categorised every 30 s (l. 326); the simulator's solo time
of Fig. 5's VAE jobs is 215 s (spec 7.5), so a tick comes every ~14 % of a job's solo time. Here
a default job runs 20-40 s alone (80-130 s when sharing a CPU with 2-4 others), so the default
``interval`` is 3 s (:data:`DEFAULT_INTERVAL`, ~10 % of the solo time): the loss changes per tick
are of the same order, which is what ``alpha`` is compared with. Launches come every 5 s
(:data:`DEFAULT_LAUNCH_INTERVAL`; Fig. 5: every 50 s on 4 nodes), so each of the 2 nodes gets a
job every 10 s, about 1/3 of a solo time: nodes hold 3-4 jobs at once, a heavier overlap than
Fig. 5's (one job per node every 200 s ~ 0.9 solo times), which gives Algorithm 2 something to
decide. A job's length is set by calibrating its compute per step (``repeat`` of
:mod:`dlsched.specon.testbed_job`) so that it takes ``solo_seconds`` alone on one node
(:func:`calibrate`); its loss sequence per epoch does not depend on the machine.

Prediction
==========

:func:`build_workload` turns the measured jobs into a :class:`~dlsched.core.jobs.Workload` of
:class:`~dlsched.specon.model.SpeconJob` models (one step = one epoch, the measured per-epoch
losses, ``solo_seconds`` = startup + epochs x seconds per epoch measured alone on a node by
:func:`calibrate`, the measured mean pause, nodes from
:func:`~dlsched.specon.model.make_cluster` with ``cpu_usable=1``: no Kubernetes reservation
here) and :func:`predict` simulates DS (``k8s_default``) and SpeCon
(``specon`` with the same alpha, interval and weights) on it.

Limits
======

* Two CPUs: the default testbed has 2 nodes of 1 CPU (a real cluster has 4-8 nodes of 16
  cores); with 2 nodes Alg. 2 has few choices.
* CPU sharing is whatever CFS does with a few CPU-bound processes on a CPU: close to an equal
  split, but time slicing costs CPU (cache refills, context switches; ~8 % more job CPU time
  than the calibrated solo times in the default run), which the simulator's proportional rule
  does not have, so it predicts completion times ~10 % short.
* The CPUs of a small virtual machine are not independent: a job alone on one CPU ran ~30-50 %
  faster while the other CPU idled than while it was busy. :func:`calibrate` therefore times
  each job with every node busy, in CPU time of the process.
* Other programs on the machine disturb the runs (``TestbedRun.cpu`` reports their CPU
  seconds). A run is one sample, not an average; two runs of the same policy differ by a few
  seconds per job.
* Restore is a process start on the same machine (no image pull, no network volume): pauses
  are far below the paper's seconds.
* Algorithm 3 (rebalance) is not run. Memory is not a constraint.
* Timing, hence categorisation and moves, varies from run to run; the loss sequences do not.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd

from dlsched.core.jobs import JobSpec, Workload
from dlsched.specon.model import PAUSE_SD_PAPER, SpeconJob, make_cluster
from dlsched.specon.policy import _number, categorise, gain, speculative_target
from dlsched.specon.testbed_job import DATASETS, EXIT_CHECKPOINTED, TrainConfig, load_dataset, save_dataset

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_INTERVAL",
    "DEFAULT_LAUNCH_INTERVAL",
    "PAPER_PAUSE_BOUND",
    "POLICIES",
    "SMOKE",
    "TestbedComparison",
    "TestbedError",
    "TestbedJob",
    "TestbedJobError",
    "TestbedRun",
    "TestbedTimeout",
    "available_cpus",
    "build_workload",
    "calibrate",
    "compare",
    "default_jobs",
    "node_cpus",
    "predict",
    "read_log",
    "run_policy",
    "smoke",
    "smoke_jobs",
]

DEFAULT_ALPHA = 0.01
"""Categorisation threshold :math:`\\alpha` (Fig. 5's value, l. 326)."""
DEFAULT_INTERVAL = 3.0
"""Categorisation interval in seconds (the paper's 30 s scaled with the job lengths)."""
DEFAULT_LAUNCH_INTERVAL = 5.0
"""Seconds between launches (Fig. 5's fixed schedule, 50 s on 4 nodes, scaled down)."""
PAPER_PAUSE_BOUND = 5.0
"""The paper's save/resume overhead bound in seconds (Fig. 2, l. 65; the simulator's default
``migration_pause``)."""
POLICIES = ("ds", "specon")
"""Policies :func:`run_policy` runs."""

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_CATS = ("PC", "WC", "CC")


# ------------------------------------------------------------------------------------- errors


class TestbedError(RuntimeError):
    """A testbed run failed; every process it started has been stopped.

    Attributes
    ----------
    pids : tuple of int
        Every process id the run started (all gone when the error is raised).
    """

    __test__: ClassVar[bool] = False

    def __init__(self, message: str, pids: Sequence[int] = ()) -> None:
        super().__init__(message)
        self.pids = tuple(pids)


class TestbedJobError(TestbedError):
    """A job process died unexpectedly (non-zero exit, killed, or a log that does not add up).

    Attributes
    ----------
    job : str
        The job's name.
    pid : int
    returncode : int
        Exit status (negative: killed by that signal).
    """

    def __init__(self, message: str, job: str, pid: int, returncode: int, pids: Sequence[int] = ()) -> None:
        super().__init__(message, pids)
        self.job, self.pid, self.returncode = job, pid, returncode


class TestbedTimeout(TestbedError):
    """The run did not finish within ``timeout`` seconds."""


# --------------------------------------------------------------------------------- validation


def _num(value, what: str, *, lo: float | None = None, hi: float | None = None, strict: bool = False):
    """A finite number in range (the policy's own check, :func:`dlsched.specon.policy._number`)."""
    return _number(value, what, lo=lo, hi=hi, strict_lo=strict)


def _int(value, what: str, lo: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < lo:
        raise ValueError(f"{what} must be an integer >= {lo}, got {value!r}")
    return int(value)


def available_cpus() -> tuple[int, ...]:
    """CPUs this process may use (``os.sched_getaffinity(0)``), sorted.

    Raises
    ------
    RuntimeError
        ``os.sched_setaffinity`` does not exist (not Linux): the testbed cannot pin processes.
    """
    if not hasattr(os, "sched_setaffinity") or not hasattr(os, "sched_getaffinity"):
        raise RuntimeError("the SpeCon testbed needs os.sched_setaffinity (Linux)")
    return tuple(sorted(os.sched_getaffinity(0)))


def node_cpus(nodes: int = 2, cpus_per_node: int | None = None) -> tuple[tuple[int, ...], ...]:
    """Split this machine's CPUs into ``nodes`` disjoint nodes of ``cpus_per_node`` CPUs each.

    Parameters
    ----------
    nodes : int
        Worker nodes (>= 1, at most the number of CPUs).
    cpus_per_node : int, optional
        Default: as many as fit (``len(available_cpus()) // nodes``).

    Raises
    ------
    ValueError
        ``nodes`` < 1, more nodes (or CPUs) than this machine has, bad ``cpus_per_node``.
    """
    cpus = available_cpus()
    n = _int(nodes, "nodes", 1)
    if n > len(cpus):
        raise ValueError(
            f"nodes={nodes!r} exceeds this machine's {len(cpus)} CPUs "
            f"(os.sched_getaffinity(0) = {list(cpus)})"
        )
    k = len(cpus) // n if cpus_per_node is None else _int(cpus_per_node, "cpus_per_node", 1)
    if n * k > len(cpus):
        raise ValueError(
            f"cpus_per_node={cpus_per_node!r} x nodes={nodes!r} exceeds this machine's {len(cpus)} CPUs"
        )
    return tuple(tuple(cpus[i * k : (i + 1) * k]) for i in range(n))


# ------------------------------------------------------------------------------------- jobs


@dataclass(frozen=True)
class TestbedJob:
    """One job of the testbed: what it trains and how long it should take alone.

    Parameters
    ----------
    name : str
        Unique label (letters, digits, ``_ . -``; used in file names).
    dataset : str
        ``digits``, ``wine``, ``breast_cancer`` or ``iris`` (``sklearn.datasets``).
    hidden : int
        Hidden units (0: softmax regression).
    lr : float
        Learning rate.
    epochs : int
        Epochs (>= 1); one log line each.
    momentum, batch, passes : float, int, int
        SGD momentum, mini-batch size, passes over the data per epoch.
    repeat : int, optional
        Compute per step (:class:`~dlsched.specon.testbed_job.TrainConfig`); None: chosen by
        :func:`calibrate` so the job takes about ``solo_seconds`` alone on one node.
    solo_seconds : float
        Target seconds alone (used only when ``repeat`` is None).
    seed : int
        Seed of the model's initial weights and shuffling.

    Raises
    ------
    ValueError
        A bad field, naming the job, the field and the value.
    """

    __test__: ClassVar[bool] = False

    name: str
    dataset: str
    hidden: int
    lr: float
    epochs: int
    momentum: float = 0.9
    batch: int = 32
    passes: int = 1
    repeat: int | None = None
    solo_seconds: float = 30.0
    seed: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise ValueError(f"job name must match {_NAME.pattern}, got {self.name!r}")
        if self.dataset not in DATASETS:
            raise ValueError(f"job {self.name!r}: dataset must be one of {DATASETS}, got {self.dataset!r}")
        if self.repeat is not None:
            _int(self.repeat, f"job {self.name!r}: repeat", 1)
        solo = _num(self.solo_seconds, f"job {self.name!r}: solo_seconds", lo=0, strict=True)
        object.__setattr__(self, "solo_seconds", solo)
        try:
            self.train_config()
        except ValueError as e:
            raise ValueError(f"job {self.name!r}: {e}") from None

    def train_config(self) -> TrainConfig:
        """The trainer's configuration (``repeat`` 1 while not calibrated)."""
        return TrainConfig(
            self.dataset,
            self.hidden,
            self.lr,
            self.momentum,
            self.batch,
            self.epochs,
            self.passes,
            self.seed,
            1 if self.repeat is None else self.repeat,
        )

    @classmethod
    def coerce(cls, job) -> TestbedJob:
        """A :class:`TestbedJob` or a mapping of its fields.

        Raises
        ------
        ValueError
            Neither, unknown fields, or a bad value.
        """
        if isinstance(job, cls):
            return job
        if isinstance(job, Mapping):
            unknown = sorted(set(job) - set(cls.__dataclass_fields__))
            if unknown:
                raise ValueError(f"job {job.get('name')!r}: unknown field(s) {unknown}")
            try:
                return cls(**job)
            except TypeError as e:
                raise ValueError(f"job {job.get('name')!r}: {e}") from None
        raise ValueError(f"a job must be a TestbedJob or a mapping of its fields, got {job!r}")


# Templates: (label, dataset, hidden, lr, momentum, batch). "fast": the loss falls by >90 % of
# its total reduction in the first 20 % of the epochs, then barely moves (they reach CC early);
# "slow": < 70 % after 20 % (they still progress when the fast ones have converged). 80 epochs.
_TEMPLATES: tuple[tuple[str, str, int, float, float, int], ...] = (
    ("iris-softmax", "iris", 0, 0.05, 0.9, 16),  # fast
    ("digits-mlp64", "digits", 64, 0.0002, 0.5, 32),  # slow
    ("wine-mlp32", "wine", 32, 0.0003, 0.5, 16),  # slow
    ("wine-softmax", "wine", 0, 0.01, 0.9, 16),  # fast
    ("cancer-softmax", "breast_cancer", 0, 0.01, 0.9, 32),  # fast
    ("digits-softmax", "digits", 0, 0.0002, 0.5, 32),  # slow
    ("digits-mlp32", "digits", 32, 0.0002, 0.9, 32),  # slow (medium)
    ("digits-mlp32-fast", "digits", 32, 0.01, 0.9, 32),  # fast
)


def default_jobs(
    n: int = 8, seed: int | np.random.Generator = 0, *, solo_seconds: tuple[float, float] = (20.0, 40.0),
    epochs: int = 80,
) -> tuple[TestbedJob, ...]:
    """The default job mix: fast- and slow-converging models, alternating so that round-robin
    placement on 2 nodes gives each node both kinds.

    Parameters
    ----------
    n : int
        Jobs (>= 1); the 8 templates repeat with other seeds beyond 8.
    seed : int or numpy.random.Generator
        Draws each job's model seed and its target ``solo_seconds`` (uniform on the range).
    solo_seconds : (float, float)
        Range of the seconds a job takes alone on one node.
    epochs : int
        Epochs per job.

    Returns
    -------
    tuple of TestbedJob
        Named ``J<k>-<template>``, ``repeat=None`` (resolved by :func:`calibrate`).
    """
    n = _int(n, "n", 1)
    epochs = _int(epochs, "epochs", 1)
    lo = _num(solo_seconds[0], "solo_seconds[0]", lo=0, strict=True)
    hi = _num(solo_seconds[1], "solo_seconds[1]", lo=lo)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(_int(seed, "seed", 0))
    seeds = rng.integers(0, 2**31 - 1, n)
    solo = np.round(rng.uniform(lo, hi, n), 1)
    out = []
    for k in range(n):
        label, ds, hidden, lr, mom, batch = _TEMPLATES[k % len(_TEMPLATES)]
        out.append(
            TestbedJob(
                f"J{k + 1}-{label}", ds, hidden, lr, epochs, momentum=mom, batch=batch,
                solo_seconds=float(solo[k]), seed=int(seeds[k]),
            )
        )
    return tuple(out)


def smoke_jobs(seed: int | np.random.Generator = 0) -> tuple[TestbedJob, ...]:
    """Three tiny jobs (about 1.5 s alone each) for tests: a fast one on node 0, a slow one on
    node 1, a slow one on node 0 again, so that the fast one, once converged, finds node 1's
    score lower than its own node's and moves there (SpeCon Alg. 2)."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(_int(seed, "seed", 0))
    s = rng.integers(0, 2**31 - 1, 3)
    kw = {"epochs": 30, "solo_seconds": 1.5}
    return (
        TestbedJob("S1-fast", "iris", 0, 0.05, momentum=0.9, batch=16, seed=int(s[0]), **kw),
        TestbedJob("S2-slow", "wine", 32, 0.0003, momentum=0.5, batch=16, seed=int(s[1]), **kw),
        TestbedJob("S3-slow", "digits", 0, 0.0002, momentum=0.5, batch=32, seed=int(s[2]), **kw),
    )


SMOKE: Mapping[str, object] = {
    "nodes": 2,
    "alpha": 0.05,
    "interval": 0.4,
    "launch_interval": 0.3,
    "calibration_epochs": 2,
    "timeout": 60.0,
}
"""Parameters of :func:`smoke` (with :func:`smoke_jobs`): a whole comparison in ~15 s."""


# -------------------------------------------------------------------------------------- logs


def read_log(path: str | os.PathLike) -> dict:
    """Parse a job log (:mod:`dlsched.specon.testbed_job`); a partial last line is ignored.

    Returns
    -------
    dict
        ``epochs``: list of ``(epoch, loss, t)``; ``events``: list of dicts (``kind`` = ``start``,
        ``checkpoint``, ``resumed`` or ``done`` plus the line's ``key=value`` fields as floats).
    """
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return {"epochs": [], "events": []}
    lines = text.split("\n")[:-1]  # the last element is "" or a partial line
    epochs, events = [], []
    for line in lines:
        if line.startswith("# "):
            kind, *kv = line[2:].split()
            ev: dict = {"kind": kind}
            for item in kv:
                k, _, v = item.partition("=")
                ev[k] = float(v)
            events.append(ev)
        elif line.strip():
            e, loss, t = line.split()
            epochs.append((int(e), float(loss), float(t)))
    return {"epochs": epochs, "events": events}


# ------------------------------------------------------------------------------------ runner


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[k] = "1"
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _prepare_data(workdir: Path, jobs: Sequence[TestbedJob]) -> dict[str, Path]:
    """Write each dataset once as ``data/<name>.npz`` (jobs then need no scikit-learn)."""
    d = workdir / "data"
    d.mkdir(parents=True, exist_ok=True)
    out = {}
    for name in sorted({j.dataset for j in jobs}):
        p = d / f"{name}.npz"
        if not p.exists():
            X, y = load_dataset(name)
            save_dataset(p, X, y)
        out[name] = p
    return out


@dataclass
class _Proc:
    popen: subprocess.Popen
    node: int
    spawn: float
    stderr_path: Path
    resume: bool


@dataclass
class _Container:
    index: int
    job: TestbedJob
    launch: float
    node: int  # current placement (the target while a move is under way)
    status: str = "future"  # future, running, moving, done
    proc: _Proc | None = None
    nodes: list[int] = field(default_factory=list)
    # Algorithm 1 state
    next_tick: float = math.inf
    e_prev: float = 1.0  # E(t_0)/E_first
    g_prev: float | None = None
    cat: str = "PC"
    migrated: bool = False
    # move bookkeeping
    request: float | None = None
    exit_seen: float | None = None
    respawn: float | None = None
    signalled: bool = False
    cancelled: bool = False
    start: float | None = None
    finish: float | None = None


class _Runner:
    """One run (DS or SpeCon) of real job processes; see :func:`run_policy`."""

    def __init__(
        self,
        jobs: Sequence[TestbedJob],
        launches: Sequence[float],
        nodes: tuple[tuple[int, ...], ...],
        policy: str,
        *,
        alpha: float,
        interval: float,
        weights: Mapping[str, float],
        workdir: Path,
        data: Mapping[str, Path],
        timeout: float,
        poll: float,
        on_poll: Callable[[dict], None] | None,
    ) -> None:
        self.nodes = nodes
        self.policy = policy
        self.alpha, self.interval, self.weights = alpha, interval, dict(weights)
        self.dir = workdir
        self.data = data
        self.timeout, self.poll, self.on_poll = timeout, poll, on_poll
        order = sorted(range(len(jobs)), key=lambda i: (launches[i], i))
        n = len(nodes)
        # DS's fixed initial placement, also SpeCon's (l. 322, 400): k-th launch -> node k mod n
        self.c = [_Container(i, jobs[i], float(launches[i]), rank % n) for rank, i in enumerate(order)]
        self.c.sort(key=lambda c: c.index)
        self.launch_order = [self.c[i] for i in order]
        self.pids: list[int] = []
        self.procs: list[_Proc] = []
        self.events: list[dict] = []
        self.env = _child_env()
        self.t0 = 0.0

    # ------------------------------------------------------------------------ processes
    def _paths(self, c: _Container) -> dict[str, Path]:
        name = c.job.name
        return {
            "spec": self.dir / f"{name}.spec.json",
            "log": self.dir / f"{name}.log",
            "ckpt": self.dir / f"{name}.ckpt.npz",
            "stderr": self.dir / f"{name}.stderr",
        }

    def _spawn(self, c: _Container, resume: bool) -> None:
        p = self._paths(c)
        cpus = self.nodes[c.node]
        cmd = [
            sys.executable, "-m", "dlsched.specon.testbed_job",
            "--spec", str(p["spec"]), "--data", str(self.data[c.job.dataset]),
            "--log", str(p["log"]), "--ckpt", str(p["ckpt"]),
            "--cpus", ",".join(map(str, cpus)), "--parent", str(os.getpid()),
        ] + (["--resume"] if resume else [])  # fmt: skip
        with open(p["stderr"], "ab") as err:
            popen = subprocess.Popen(
                cmd, env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                start_new_session=True, cwd=self.dir,
            )  # fmt: skip
        self.pids.append(popen.pid)
        try:
            os.sched_setaffinity(popen.pid, cpus)  # the node = its CPU set
        except ProcessLookupError:  # already gone: the poll loop will see its exit status
            pass
        proc = _Proc(popen, c.node, self.now(), p["stderr"], resume)
        self.procs.append(proc)
        c.proc = proc
        c.nodes.append(c.node)

    def now(self) -> float:
        return time.monotonic() - self.t0

    def cleanup(self) -> None:
        """SIGKILL every process group still alive, then reap them."""
        for p in self.procs:
            if p.popen.poll() is None:
                try:
                    os.killpg(p.popen.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        for p in self.procs:
            try:
                p.popen.wait(timeout=10)
            except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL cannot be ignored
                p.popen.kill()
                p.popen.wait()

    def _fail(self, c: _Container, rc: int, why: str) -> TestbedJobError:
        tail = ""
        try:
            tail = c.proc.stderr_path.read_text(encoding="utf-8", errors="replace").strip()[-600:]
        except OSError:
            pass
        sig = ""
        if rc < 0 and -rc in signal.valid_signals():
            sig = f" (killed by signal {signal.Signals(-rc).name})"
        msg = f"testbed {self.policy}: job {c.job.name!r} (pid {c.proc.popen.pid}) {why}, exit code {rc}{sig}"
        if tail:
            msg += f"; stderr: {tail}"
        return TestbedJobError(msg, c.job.name, c.proc.popen.pid, rc, self.pids)

    # ----------------------------------------------------------------------- the loop
    def run(self) -> None:
        for c in self.c:
            p = self._paths(c)
            for f in p.values():
                f.unlink(missing_ok=True)
            p["spec"].write_text(c.job.train_config().to_json(), encoding="utf-8")
        self.t0 = time.monotonic()
        while True:
            now = self.now()
            if now > self.timeout:
                raise TestbedTimeout(
                    f"testbed {self.policy}: not finished after timeout={self.timeout:g} s "
                    f"(unfinished: {[c.job.name for c in self.c if c.status != 'done']})",
                    self.pids,
                )
            self._reap()
            for c in self.launch_order:
                if c.status == "future" and now >= c.launch:
                    self._spawn(c, resume=False)
                    c.status, c.start = "running", self.now()
                    c.next_tick = c.launch + self.interval  # spec A7: t_m = a_j + m * interval
                    self._event(c, "launch", node_to=c.node)
            if self.on_poll is not None:
                self.on_poll(
                    {
                        "time": self.now(),
                        "policy": self.policy,
                        "pids": {
                            c.job.name: c.proc.popen.pid for c in self.c if c.proc and c.status != "done"
                        },
                    }
                )
            if self.policy == "specon":
                self._ticks()
                self._send_requests()
            if all(c.status == "done" for c in self.c):
                return
            time.sleep(self.poll)

    def _reap(self) -> None:
        for c in self.c:
            if c.status not in ("running", "moving") or c.proc is None:
                continue
            rc = c.proc.popen.poll()
            if rc is None:
                continue
            t = self.now()
            if rc == 0:
                if c.status == "moving":  # finished before it could checkpoint
                    c.cancelled = True
                    c.node = c.proc.node
                    self._event(c, "move_cancelled", node_to=c.node)
                c.status, c.finish = "done", t
                self._event(c, "exit", node_from=c.proc.node)
            elif rc == EXIT_CHECKPOINTED and c.status == "moving":  # Alg. 2 l. 14-16 / 19-21
                c.exit_seen = t
                self._event(c, "checkpointed", node_from=c.proc.node)
                self._spawn(c, resume=True)
                c.respawn = self.now()
                c.status = "running"
                self._event(c, "restart", node_to=c.node)
            else:
                why = "exited after a checkpoint nobody asked for" if rc == EXIT_CHECKPOINTED else "died"
                raise self._fail(c, rc, why)

    def _event(self, c: _Container, event: str, **kw) -> None:
        self.events.append({"time": self.now(), "job": c.job.name, "event": event, **kw})

    # ---------------------------------------------------------------- Algorithm 1, 2
    def _active(self) -> list[_Container]:
        return [c for c in self.c if c.status in ("running", "moving")]

    def _monitor(self, c: _Container) -> bool:
        """One tick of Algorithm 1 for container ``c`` (l. 4-22); True if it requests (l. 15-16)."""
        ep = read_log(self._paths(c)["log"])["epochs"]
        # A1 l. 4: E(t_m) = loss of the last finished epoch (l. 168), normalised by E_first
        # (spec A3 "first"); no epoch logged yet: still E_first.
        e = ep[-1][1] / ep[0][1] if ep and ep[0][1] else 1.0
        g = gain(e, c.e_prev, "first")  # A1 l. 5
        path, reached = categorise(c.cat, g, c.g_prev, self.alpha, "none")  # A1 l. 6-22
        before = c.cat
        c.e_prev, c.g_prev, c.cat = e, g, path[-1]
        counts = {k: sum(1 for o in self._active() if o.cat == k) for k in _CATS}
        request = reached and counts["PC"] + counts["WC"] > 1  # A1 l. 15, spec A5 "cluster"
        self._event(
            c, "tick", epoch=ep[-1][0] if ep else 0, e=e, g=g, cat_from=before, cat_to=c.cat,
            reached_l15=reached, requested=request, node_from=c.node,
        )  # fmt: skip
        return request

    def _ticks(self) -> None:
        now = self.now()
        due = sorted(
            (c.node, c.index)
            for c in self.c
            if c.status == "running" and not c.migrated and c.next_tick <= now
        )
        requests = []
        for _, i in due:  # A1 l. 3, in (worker, job) order
            c = self.c[i]
            while c.next_tick <= now:
                c.next_tick += self.interval
            if self._monitor(c):
                requests.append(c)
        for c in requests:  # Algorithm 2, sequentially (spec B4)
            self._speculate(c)

    def _scores(self) -> list[float]:
        """:math:`S_{w_j}` of Alg. 2 l. 2-3 (every active container counts on its placement,
        a moving one on its target; the requester counts on its own node, spec B2)."""
        S = [0.0] * len(self.nodes)
        for o in self._active():
            S[o.node] += self.weights[o.cat]
        return S

    def _resource(self, s: int) -> float:
        """:math:`R(w_s, t)` (spec B3, ``cpu``): CPU demand of its containers / its CPUs, at most 1."""
        n = sum(1 for o in self._active() if o.node == s)
        return min(1.0, n / len(self.nodes[s]))

    def _speculate(self, c: _Container) -> None:
        """Algorithm 2 for the request of ``c``."""
        here = c.node
        S = self._scores()
        target, _ = speculative_target(S, here, range(len(self.nodes)), self._resource)
        c.migrated = True  # A2 l. 9 / 15 / 20
        scores = tuple(S)
        if target == here:  # A2 l. 8-10
            self._event(c, "stay", node_from=here, node_to=here, scores=scores)
            return
        self._event(c, "request", node_from=here, node_to=target, scores=scores)
        c.node, c.cat = target, "CC"  # spec B4: joins CC of the target
        c.status, c.request = "moving", self.now()

    def _send_requests(self) -> None:
        """Ask moving containers' processes to checkpoint (``SIGUSR1``), once their handler is
        installed (the log shows ``# start``)."""
        for c in self.c:
            if c.status == "moving" and not c.signalled:
                events = read_log(self._paths(c)["log"])["events"]
                if any(e["kind"] == "start" for e in events):
                    try:
                        c.proc.popen.send_signal(signal.SIGUSR1)
                    except ProcessLookupError:  # exited meanwhile; _reap decides
                        pass
                    c.signalled = True
                    self._event(c, "signal", node_from=c.proc.node, node_to=c.node)

    # --------------------------------------------------------------------------- tables
    def result(self, wall: float) -> TestbedRun:
        rows, loss_rows, mig_rows = [], [], []
        t0 = self.t0
        for c in sorted(self.c, key=lambda c: (c.launch, c.index)):
            log = read_log(self._paths(c)["log"])
            ep = log["epochs"]
            got = [e for e, _, _ in ep]
            if got != list(range(c.job.epochs + 1)):
                raise TestbedJobError(
                    f"testbed {self.policy}: job {c.job.name!r} logged epochs {got[:5]}...{got[-3:]}, "
                    f"expected 0..{c.job.epochs}",
                    c.job.name, c.proc.popen.pid if c.proc else -1, 0, self.pids,
                )  # fmt: skip
            done = [e for e in log["events"] if e["kind"] == "done"]
            finish = (done[-1]["t"] if done else ep[-1][2]) - t0
            for e, loss, t in ep:
                loss_rows.append({"job": c.job.name, "epoch": e, "loss": loss, "time": t - t0})
            moved = len(c.nodes) > 1
            pause = math.nan
            if moved:
                ck = next(e for e in log["events"] if e["kind"] == "checkpoint")
                rs = next(e for e in log["events"] if e["kind"] == "resumed")
                first = next((t for e, _, t in ep if t > rs["t"]), math.nan)
                pause = rs["t"] - ck["t0"]
                mig_rows.append(
                    {
                        "job": c.job.name, "from": c.nodes[0], "to": c.nodes[1], "epoch": int(ck["epoch"]),
                        "request": c.request, "checkpoint_start": ck["t0"] - t0,
                        "checkpoint_end": ck["t1"] - t0,
                        "exit_seen": c.exit_seen, "spawn": c.respawn, "resumed": rs["t"] - t0,
                        "first_epoch_after": first - t0,
                        "wait_s": ck["t0"] - t0 - c.request, "save_s": ck["t1"] - ck["t0"],
                        "restore_s": rs["t"] - ck["t1"], "load_s": rs["load_s"], "pause_s": pause,
                        "request_to_resume_s": rs["t"] - t0 - c.request,
                    }
                )  # fmt: skip
            rows.append(
                {
                    "job": c.job.name, "index": c.index, "dataset": c.job.dataset, "launch": c.launch,
                    "start": c.start, "finish": finish, "completion": finish - c.launch, "node": c.nodes[0],
                    "nodes": "->".join(map(str, c.nodes)), "moved": moved, "pause_s": pause,
                    "category": c.cat, "marked": c.migrated, "move_cancelled": c.cancelled,
                    "epochs": c.job.epochs, "final_loss": ep[-1][1],
                }
            )  # fmt: skip
        jobs = pd.DataFrame(rows)
        events = pd.DataFrame(self.events)
        if events.empty:
            events = pd.DataFrame(columns=["time", "job", "event"])
        for col in ("node_from", "node_to", "epoch"):
            if col in events:
                events[col] = events[col].astype("Int64")
        mig_cols = [
            "job", "from", "to", "epoch", "request", "checkpoint_start", "checkpoint_end", "exit_seen",
            "spawn", "resumed", "first_epoch_after", "wait_s", "save_s", "restore_s", "load_s",
            "pause_s", "request_to_resume_s",
        ]  # fmt: skip
        migrations = pd.DataFrame(mig_rows, columns=mig_cols)
        return TestbedRun(
            policy=self.policy,
            nodes=self.nodes,
            params={"alpha": self.alpha, "interval": self.interval, **{f"w_{k.lower()}": v for k, v in
                    self.weights.items()}, "timeout": self.timeout, "poll": self.poll},
            jobs=jobs,
            events=events,
            migrations=migrations,
            losses=pd.DataFrame(loss_rows),
            pids=tuple(self.pids),
            wall_seconds=wall,
            cpu={},
            workdir=self.dir,
        )  # fmt: skip


@dataclass
class TestbedRun:
    """One measured run (DS or SpeCon). Times are seconds since the run's start.

    Attributes
    ----------
    policy : {"ds", "specon"}
    nodes : tuple of tuple of int
        CPUs of each node.
    params : dict
        ``alpha``, ``interval``, ``w_pc``, ``w_wc``, ``w_cc``, ``timeout``, ``poll``.
    jobs : pandas.DataFrame
        One row per job in launch order: ``job, index, dataset, launch, start, finish,
        completion`` (= finish - launch), ``node`` (initial), ``nodes`` (``"0"`` or ``"0->1"``),
        ``moved``, ``pause_s`` (NaN if not moved), ``category`` (at the end), ``marked``
        (Alg. 2 answered its request), ``move_cancelled`` (finished before checkpointing),
        ``epochs``, ``final_loss``.
    events : pandas.DataFrame
        ``time, job, event`` and details: ``launch``; ``tick`` (``epoch, e, g, cat_from, cat_to,
        reached_l15, requested``); ``stay`` / ``request`` (Alg. 2: ``node_from, node_to,
        scores``); ``signal``, ``checkpointed``, ``restart``, ``move_cancelled``, ``exit``.
    migrations : pandas.DataFrame
        One row per move: times ``request, checkpoint_start, checkpoint_end, exit_seen, spawn,
        resumed, first_epoch_after`` and durations ``wait_s, save_s, restore_s, load_s, pause_s,
        request_to_resume_s`` (module docstring).
    losses : pandas.DataFrame
        ``job, epoch, loss, time``: every logged epoch (epoch 0 = before training).
    pids : tuple of int
        Every process the run started (all gone afterwards).
    wall_seconds : float
    cpu : dict
        CPU seconds on the nodes' CPUs during the run: ``capacity_s`` (wall x CPUs),
        ``busy_s`` (``/proc/stat``), ``jobs_s`` (the job processes), ``monitor_s`` (this
        process), ``other_s`` (busy by anything else: other programs disturb the measurement),
        ``steal_s`` (taken by the hypervisor).
    workdir : pathlib.Path
        Folder of the logs (deleted afterwards unless ``keep``).
    """

    __test__: ClassVar[bool] = False

    policy: str
    nodes: tuple[tuple[int, ...], ...]
    params: dict
    jobs: pd.DataFrame
    events: pd.DataFrame
    migrations: pd.DataFrame
    losses: pd.DataFrame
    pids: tuple[int, ...]
    wall_seconds: float
    workdir: Path | None
    cpu: dict = field(default_factory=dict)

    @property
    def mean_completion(self) -> float:
        """Average completion time (s)."""
        return float(self.jobs["completion"].mean())

    @property
    def makespan(self) -> float:
        """First launch to last finish (s) (l. 314)."""
        return float(self.jobs["finish"].max() - self.jobs["launch"].min())

    @property
    def moves(self) -> int:
        """Containers restarted on another node."""
        return int(self.jobs["moved"].sum())

    def loss_sequences(self) -> dict[str, list[float]]:
        """Per-epoch losses of each job (epoch 0 first)."""
        return {j: g.sort_values("epoch")["loss"].tolist() for j, g in self.losses.groupby("job", sort=False)}


# ------------------------------------------------------------------------------ validation


def _check_run_params(
    jobs, launches, launch_interval, nodes, cpus_per_node, alpha, interval, w_pc, w_wc, w_cc, timeout, poll
) -> tuple[tuple[TestbedJob, ...], list[float], tuple[tuple[int, ...], ...], dict]:
    if jobs is None or isinstance(jobs, (str, bytes, Mapping)) or not isinstance(jobs, Sequence):
        raise ValueError(f"jobs must be a non-empty sequence of TestbedJob, got {jobs!r}")
    if not len(jobs):
        raise ValueError("jobs must be a non-empty sequence of TestbedJob, got an empty one")
    js = tuple(TestbedJob.coerce(j) for j in jobs)
    names = [j.name for j in js]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"jobs: duplicate job names {dup}")
    cpus = node_cpus(nodes, cpus_per_node)
    _num(alpha, "alpha", lo=0.0, hi=1.0)
    _num(interval, "interval", lo=0.0, strict=True)
    w = {}
    for k, v in (("PC", w_pc), ("WC", w_wc), ("CC", w_cc)):
        w[k] = _num(v, f"w_{k.lower()}", lo=0.0, strict=True)
    _num(timeout, "timeout", lo=0.0, strict=True)
    _num(poll, "poll", lo=0.0, strict=True)
    if launches is None:
        step = _num(launch_interval, "launch_interval", lo=0.0)
        la = [k * step for k in range(len(js))]
    else:
        if isinstance(launches, (str, bytes)) or len(launches) != len(js):
            raise ValueError(f"launches must give one time per job ({len(js)}), got {launches!r}")
        la = [_num(x, f"launches[{i}]", lo=0.0) for i, x in enumerate(launches)]
    return js, la, cpus, w


class _Workdir:
    """A given folder (kept) or a new temporary one (deleted unless ``keep``)."""

    def __init__(self, workdir, keep: bool, prefix: str) -> None:
        if workdir is None:
            self.path = Path(tempfile.mkdtemp(prefix=prefix))
            self.owned = True
        else:
            self.path = Path(workdir)
            self.path.mkdir(parents=True, exist_ok=True)
            self.owned = False
        self.keep = keep or not self.owned

    def close(self) -> Path | None:
        if not self.keep:
            shutil.rmtree(self.path, ignore_errors=True)
            return None
        return self.path


def _check_workdir_arg(workdir, keep) -> None:
    if workdir is not None and not isinstance(workdir, (str, os.PathLike)):
        raise ValueError(f"workdir must be a path or None, got {workdir!r}")
    if not isinstance(keep, (bool, np.bool_)):
        raise ValueError(f"keep must be a bool, got {keep!r}")


def _check_repeat(jobs: Sequence[TestbedJob]) -> None:
    for j in jobs:
        if j.repeat is None:
            raise ValueError(f"job {j.name!r}: repeat is None; resolve it with calibrate() first")


# ---------------------------------------------------------------------------------- public


def run_policy(
    jobs: Sequence[TestbedJob],
    policy: str = "specon",
    *,
    nodes: int = 2,
    cpus_per_node: int | None = None,
    launches: Sequence[float] | None = None,
    launch_interval: float = DEFAULT_LAUNCH_INTERVAL,
    alpha: float = DEFAULT_ALPHA,
    interval: float = DEFAULT_INTERVAL,
    w_pc: float = 2.0,
    w_wc: float = 1.5,
    w_cc: float = 1.0,
    workdir: str | os.PathLike | None = None,
    keep: bool = False,
    timeout: float = 900.0,
    poll: float = 0.02,
    on_poll: Callable[[dict], None] | None = None,
) -> TestbedRun:
    """Run ``jobs`` as real processes under DS or SpeCon and measure them.

    Parameters
    ----------
    jobs : sequence of TestbedJob (or mappings of its fields)
        With ``repeat`` resolved (:func:`calibrate`).
    policy : {"ds", "specon"}
        DS: round-robin placement, no move. SpeCon: same placement, then Algorithms 1-2.
    nodes, cpus_per_node : int
        Worker nodes and CPUs each (:func:`node_cpus`).
    launches : sequence of float, optional
        Launch time of each job (s after the start); default ``k * launch_interval``.
    alpha, interval, w_pc, w_wc, w_cc : float
        SpeCon's threshold (in [0, 1]), categorisation interval (s, > 0) and Alg. 2 weights (> 0).
    workdir : path, optional
        Folder for the logs, checkpoints and specs (a ``<policy>`` subfolder); default a temporary
        folder, deleted afterwards unless ``keep``.
    timeout : float
        Seconds before the run is stopped with :class:`TestbedTimeout`.
    poll : float
        Seconds between two looks of the monitor at its processes.
    on_poll : callable, optional
        Called at every poll with ``{"time", "policy", "pids": {job: pid}}`` (e.g. to inject a
        fault in tests); an exception it raises stops the run.

    Returns
    -------
    TestbedRun

    Raises
    ------
    ValueError
        A bad parameter (checked before any process starts or any file is written).
    TestbedJobError
        A job process died; every process started has been killed and reaped.
    TestbedTimeout
        Not finished in ``timeout`` s (likewise cleaned up).
    """
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {POLICIES}, got {policy!r}")
    js, la, cpus, w = _check_run_params(
        jobs, launches, launch_interval, nodes, cpus_per_node, alpha, interval, w_pc, w_wc, w_cc, timeout,
        poll,
    )  # fmt: skip
    _check_repeat(js)
    _check_workdir_arg(workdir, keep)
    wd = _Workdir(workdir, keep, "specon-testbed-")
    try:
        return _run(js, la, cpus, policy, float(alpha), float(interval), w, wd.path, timeout, poll, on_poll)
    finally:
        wd.close()


def _run(js, la, cpus, policy, alpha, interval, w, root: Path, timeout, poll, on_poll) -> TestbedRun:
    data = _prepare_data(root, js)
    d = root / policy
    d.mkdir(parents=True, exist_ok=True)
    r = _Runner(
        js, la, cpus, policy, alpha=alpha, interval=interval, weights=w, workdir=d, data=data,
        timeout=float(timeout), poll=float(poll), on_poll=on_poll,
    )  # fmt: skip
    wall0 = time.monotonic()
    snap = _cpu_snapshot(cpus)
    try:
        r.run()
    finally:
        r.cleanup()
    run = r.result(time.monotonic() - wall0)
    run.cpu = _cpu_usage(snap, _cpu_snapshot(cpus), run.wall_seconds, sum(len(c) for c in cpus))
    return run


def _cpu_snapshot(cpus) -> dict[str, float]:
    """CPU seconds so far: busy and stolen time of the nodes' CPUs (``/proc/stat``), this
    process's own time and its reaped children's (``os.times``)."""
    t = os.times()
    out = {"self": t.user + t.system, "children": t.children_user + t.children_system}
    want = {f"cpu{c}" for cs in cpus for c in cs}
    busy = steal = 0.0
    try:
        tick = float(os.sysconf("SC_CLK_TCK"))
        with open("/proc/stat", encoding="ascii") as f:
            for line in f:
                parts = line.split()
                if parts and parts[0] in want:
                    v = [float(x) for x in parts[1:9]]  # user nice system idle iowait irq softirq steal
                    busy += (v[0] + v[1] + v[2] + v[5] + v[6]) / tick
                    steal += v[7] / tick
    except (OSError, ValueError):  # pragma: no cover - not Linux
        busy = steal = math.nan
    out.update(busy=busy, steal=steal)
    return out


def _cpu_usage(a: dict, b: dict, wall: float, n_cpus: int) -> dict[str, float]:
    jobs = b["children"] - a["children"]
    monitor = b["self"] - a["self"]
    busy = b["busy"] - a["busy"]
    return {
        "capacity_s": wall * n_cpus,
        "busy_s": busy,
        "jobs_s": jobs,
        "monitor_s": monitor,
        "other_s": max(0.0, busy - jobs - monitor),
        "steal_s": b["steal"] - a["steal"],
    }


def calibrate(
    jobs: Sequence[TestbedJob],
    *,
    nodes: int = 2,
    cpus_per_node: int | None = None,
    epochs: int = 3,
    workdir: str | os.PathLike | None = None,
    keep: bool = False,
    timeout: float = 120.0,
) -> tuple[tuple[TestbedJob, ...], pd.DataFrame]:
    """Solo calibration: each job alone on a node, every node busy (as during a run).

    The jobs are calibrated in batches of ``nodes``, job ``i`` of a batch on node ``i``, at the
    same time; a batch with fewer jobs than nodes is filled with extra copies (their timings
    are discarded). Every process keeps training until the whole batch has measured. Reason: on
    a small (virtual) machine a job runs much faster while the other CPUs idle (here ~30-50 %
    faster than with the other CPU busy: shared core resources, caches, memory bandwidth), and
    during a run every node is busy almost all the time.

    A job with ``repeat=None`` first gets the ``repeat`` that makes an epoch last about
    ``solo_seconds / epochs`` s (timed passes); then ``epochs`` epochs of the final
    configuration are timed from a fresh start.

    Parameters
    ----------
    jobs : sequence of TestbedJob
    nodes, cpus_per_node : int
        As in :func:`run_policy`.
    epochs : int
        Epochs timed per job (>= 1).
    workdir, keep : as in :func:`run_policy` (files go to ``calibration/``).
    timeout : float
        Seconds allowed per batch.

    Returns
    -------
    (jobs, table)
        The jobs with ``repeat`` resolved, and a table ``job, node, repeat, startup_s`` (CPU
        seconds from the process start to the end of the epoch-0 evaluation), ``epoch_s`` (mean
        CPU seconds of a measured epoch), ``solo_s`` (``startup_s + epochs x epoch_s``, the
        prediction's :math:`\\tau_j`), ``startup_wall_s``, ``epoch_wall_s`` (the same in wall
        time: larger if other programs used the CPU), ``target_s`` (``solo_seconds`` when
        ``repeat`` was chosen, else NaN). CPU time is used because another program sharing the
        node's CPU during the calibration would otherwise make every job look slower than it is.

    Raises
    ------
    ValueError
        Bad input. TestbedJobError / TestbedTimeout: a calibration process failed (cleaned up).
    """
    js, _, cpus, _ = _check_run_params(
        jobs, None, 0.0, nodes, cpus_per_node, 0.0, 1.0, 1, 1, 1, timeout, 0.01
    )
    epochs = _int(epochs, "epochs", 1)
    _check_workdir_arg(workdir, keep)
    wd = _Workdir(workdir, keep, "specon-testbed-")
    try:
        return _calibrate(js, cpus, epochs, wd.path, float(timeout))
    finally:
        wd.close()


def _calibrate(js, cpus, epochs, root: Path, timeout) -> tuple[tuple[TestbedJob, ...], pd.DataFrame]:
    data = _prepare_data(root, js)
    d = root / "calibration"
    d.mkdir(parents=True, exist_ok=True)
    env = _child_env()
    n = len(cpus)
    results: dict[str, tuple[int, dict, float]] = {}
    pids: list[int] = []
    for b0 in range(0, len(js), n):
        batch = [(j, j.name) for j in js[b0 : b0 + n]]
        batch += [(js[k % len(js)], f"{js[k % len(js)].name}.filler{k}") for k in range(n - len(batch))]
        procs: list[tuple[subprocess.Popen, str, Path, Path, float]] = []
        try:
            for node, (j, label) in enumerate(batch):
                spec, out, err = d / f"{label}.spec.json", d / f"{label}.json", d / f"{label}.stderr"
                for f in (spec, out, err):
                    f.unlink(missing_ok=True)
                spec.write_text(j.train_config().to_json(), encoding="utf-8")
                cmd = [
                    sys.executable, "-m", "dlsched.specon.testbed_job", "--spec", str(spec),
                    "--data", str(data[j.dataset]), "--log", os.devnull, "--ckpt", os.devnull,
                    "--cpus", ",".join(map(str, cpus[node])), "--parent", str(os.getpid()),
                    "--calibrate", str(epochs), "--out", str(out), "--hold",
                ]  # fmt: skip
                if j.repeat is None:  # the epoch length that makes the job last solo_seconds
                    cmd += ["--epoch-seconds", repr(j.solo_seconds / j.epochs)]
                with open(err, "ab") as fe:
                    t_spawn = time.monotonic()
                    p = subprocess.Popen(
                        cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=fe,
                        start_new_session=True, cwd=d,
                    )  # fmt: skip
                pids.append(p.pid)
                try:
                    os.sched_setaffinity(p.pid, cpus[node])
                except ProcessLookupError:
                    pass
                procs.append((p, label, out, err, t_spawn))
            deadline = time.monotonic() + timeout
            while not all(out.exists() for _, _, out, _, _ in procs):
                for p, label, out, err, _ in procs:
                    rc = p.poll()
                    if rc is not None and not out.exists():
                        tail = err.read_text(encoding="utf-8", errors="replace").strip()[-600:]
                        raise TestbedJobError(
                            f"calibration of job {label!r} (pid {p.pid}) failed with exit code {rc}: {tail}",
                            label, p.pid, rc, pids,
                        )  # fmt: skip
                if time.monotonic() > deadline:
                    labels = [lb for _, lb, _, _, _ in procs]
                    msg = f"calibration of {labels} took more than timeout={timeout:g} s"
                    raise TestbedTimeout(msg, pids)
                time.sleep(0.01)
            for p, *_ in procs:  # release the held CPUs
                if p.poll() is None:
                    p.send_signal(signal.SIGUSR1)
            for p, label, _, err, _ in procs:
                rc = p.wait(timeout=30)
                if rc != 0:
                    tail = err.read_text(encoding="utf-8", errors="replace").strip()[-600:]
                    raise TestbedJobError(
                        f"calibration of job {label!r} (pid {p.pid}) failed with exit code {rc}: {tail}",
                        label, p.pid, rc, pids,
                    )  # fmt: skip
        finally:
            for p, *_ in procs:
                if p.poll() is None:
                    try:
                        os.killpg(p.pid, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass
                    p.wait()
        for node, (_, label, out, _, t_spawn) in enumerate(procs):
            if label in {j.name for j in js}:
                results[label] = (node, json.loads(out.read_text(encoding="utf-8")), t_spawn)
    out_jobs, rows = [], []
    for j in js:
        node, res, t_spawn = results[j.name]
        # CPU time of the process (immune to other programs time-slicing its CPU): its start
        # (interpreter, imports, data) and each epoch; wall time for comparison
        cpu_m, marks = res["cpu_marks"], res["marks"]
        startup = res["cpu_ready"] + (cpu_m[1] - cpu_m[0])
        epoch_s = float(np.mean(np.diff(cpu_m[1:])))
        epoch_wall = float(np.mean(np.diff(marks[1:])))
        startup_wall = res["t_ready"] - t_spawn + (marks[1] - marks[0])
        jr = replace(j, repeat=int(res["repeat"]))
        out_jobs.append(jr)
        rows.append(
            {
                "job": j.name, "node": node, "repeat": jr.repeat, "startup_s": startup, "epoch_s": epoch_s,
                "solo_s": startup + j.epochs * epoch_s, "startup_wall_s": startup_wall,
                "epoch_wall_s": epoch_wall,
                "target_s": j.solo_seconds if j.repeat is None else math.nan,
            }
        )  # fmt: skip
    return tuple(out_jobs), pd.DataFrame(rows)


# ------------------------------------------------------------------------------ prediction


@dataclass(frozen=True)
class _MeasuredJob(SpeconJob):
    """:class:`~dlsched.specon.model.SpeconJob` whose evaluation before the first finished step
    is ``first_loss`` (the testbed's epoch-0 loss, :math:`E_{first}` of spec A3) instead of the
    first step's loss: step ``k`` = epoch ``k``, so the value at ``k`` finished steps is the loss
    logged after epoch ``k``, exactly what the testbed's monitor reads."""

    first_loss: float = math.nan
    # not analysed for SpeCon's advance="events" step skipping (its evaluation below the first step
    # is the epoch-0 loss): ticks are evaluated one by one
    stepwise_evaluation: ClassVar[bool] = False

    def evaluation(self, work_done: float) -> float:
        if math.floor(float(work_done) + 1e-9) < 1 and math.isfinite(self.first_loss):
            return float(self.first_loss)
        return super().evaluation(work_done)


def build_workload(
    losses: Mapping[str, Sequence[float]],
    solo_seconds: Mapping[str, float],
    launches: Mapping[str, float],
    *,
    nodes: int = 2,
    cpus_per_node: int = 1,
    migration_pause: float = 0.5,
    slot_seconds: float = 0.01,
) -> Workload:
    """The simulator's :class:`~dlsched.core.jobs.Workload` for measured jobs.

    Parameters
    ----------
    losses : mapping job name -> sequence of float
        Per-epoch losses, epoch 0 (before training) first; at least epochs 0 and 1.
    solo_seconds : mapping job name -> float
        :math:`\\tau_j`: seconds the job takes alone on one node (calibration's ``solo_s``).
    launches : mapping job name -> float
        Launch times (s). Jobs are numbered in launch order (ties: mapping order), as DS places them.
    nodes, cpus_per_node : int
        :func:`~dlsched.specon.model.make_cluster` ``(nodes, cores=cpus_per_node)``.
    migration_pause : float
        Seconds of every move (the measured mean ``pause_s``).
    slot_seconds : float
        Engine slot.

    Returns
    -------
    Workload
        Job ``k``: :class:`~dlsched.specon.model.SpeconJob` (one step = one epoch, ``losses`` =
        epochs 1.., evaluation at zero work = epoch 0's loss, ``eval_window=1``,
        ``cpu_usable=1``), demand ``{"cpu": cpus_per_node, "mem": 0.1}``, one worker.

    Raises
    ------
    ValueError
        Mismatched keys or bad values (named).
    """
    if not isinstance(losses, Mapping) or not losses:
        raise ValueError(f"losses must be a non-empty mapping job -> losses, got {losses!r}")
    for what, m in (("solo_seconds", solo_seconds), ("launches", launches)):
        if not isinstance(m, Mapping) or set(m) != set(losses):
            raise ValueError(f"{what} must map the same jobs as losses ({sorted(losses)}), got {m!r}")
    n = _int(nodes, "nodes", 1)
    k = _int(cpus_per_node, "cpus_per_node", 1)
    pause = _num(migration_pause, "migration_pause", lo=0.0)
    slot = _num(slot_seconds, "slot_seconds", lo=0, strict=True)
    cluster = make_cluster(n, cores=float(k), mem_gb=64.0, slot_seconds=slot)
    names = list(losses)
    t_launch = [_num(launches[m], f"launches[{m!r}]", lo=0.0) for m in names]
    order = sorted(range(len(names)), key=lambda i: (t_launch[i], i))
    specs = []
    for jid, i in enumerate(order):
        name = names[i]
        seq = [float(x) for x in losses[name]]
        if len(seq) < 2:
            raise ValueError(f"losses[{name!r}] needs epochs 0 and at least 1, got {len(seq)} value(s)")
        model = _MeasuredJob(
            work=float(len(seq) - 1),
            migration_pause=pause,
            cpu_usable=1.0,
            curve=f"testbed:{name}",
            solo_seconds=_num(solo_seconds[name], f"solo_seconds[{name!r}]", lo=0.0, strict=True),
            eval_window=1,
            losses=tuple(seq[1:]),
            epoch_steps=1,
            first_loss=seq[0],
        )
        t = t_launch[i]
        specs.append(
            JobSpec(
                jid, int(round(t / cluster.slot_seconds)), model, {"cpu": float(k), "mem": 0.1},
                requested_workers=1, name=name, submit_time=t,
            )
        )  # fmt: skip
    params = {"nodes": n, "cpus_per_node": k, "migration_pause": pause, "slot_seconds": cluster.slot_seconds}
    return Workload(cluster, tuple(specs), name="specon_testbed", params=params)


def predict(
    workload: Workload,
    *,
    alpha: float = DEFAULT_ALPHA,
    interval: float = DEFAULT_INTERVAL,
    w_pc: float = 2.0,
    w_wc: float = 1.5,
    w_cc: float = 1.0,
    seed: int | np.random.Generator = 0,
) -> tuple[pd.DataFrame, dict]:
    """Simulate DS (``k8s_default``) and SpeCon (``specon``, same alpha / interval / weights,
    Algorithm 3 off as in the testbed) on ``workload`` (:func:`build_workload`).

    Returns
    -------
    (table, results)
        ``table``: ``job, ds_predicted, specon_predicted`` (completion times, s),
        ``specon_moved_predicted``, ``specon_nodes_predicted``; ``results``: ``{"ds", "specon"}``
        -> :class:`~dlsched.core.simulator.SimulationResult`, plus ``"specon_events"`` (the
        policy's event log, times in s).
    """
    from dlsched import registry
    from dlsched.core.simulator import simulate

    ds = registry.make_policy("k8s_default", workload)
    sp = registry.make_policy(
        "specon", workload, alpha=alpha, interval=interval, w_pc=w_pc, w_wc=w_wc, w_cc=w_cc,
        rebalance_trigger="never",
    )  # fmt: skip
    r_ds = simulate(workload, ds, seed=seed)
    r_sp = simulate(workload, sp, seed=seed)
    slot = workload.cluster.slot_seconds
    names = {s.job_id: s.name for s in workload.jobs}
    hosts = r_sp.runs.sort_values("slot").groupby("job")["server"].apply(
        lambda s: "->".join(map(str, dict.fromkeys(s)))
    )
    ids = r_ds.jobs["job_id"].to_numpy()
    sp_jobs = r_sp.jobs.set_index("job_id").loc[ids]
    table = pd.DataFrame(
        {
            "job": [names[j] for j in ids],
            "ds_predicted": r_ds.jobs["jct_seconds"].to_numpy(float),
            "specon_predicted": sp_jobs["jct_seconds"].to_numpy(float),
            "specon_moved_predicted": sp_jobs["migrations"].to_numpy() > 0,
            "specon_nodes_predicted": [hosts.get(j, "") for j in ids],
        }
    )
    events = pd.DataFrame(sp.events)
    if not events.empty:
        events.insert(0, "time", events["slot"] * slot)
        events["job"] = events["job"].map(names)
    return table, {"ds": r_ds, "specon": r_sp, "specon_events": events}


@dataclass
class TestbedComparison:
    """Outcome of :func:`compare`.

    Attributes
    ----------
    jobs : tuple of TestbedJob
        The jobs with ``repeat`` resolved.
    calibration : pandas.DataFrame
        :func:`calibrate`'s table.
    ds, specon : TestbedRun
        The measured runs.
    workload : Workload
        The prediction's input (:func:`build_workload`).
    predicted : dict
        :func:`predict`'s results (``"ds"``, ``"specon"``, ``"specon_events"``).
    table : pandas.DataFrame
        Per job (launch order): ``job, launch, ds_node, ds_measured, ds_predicted, specon_nodes,
        specon_moved, specon_measured, specon_predicted, specon_moved_predicted,
        specon_nodes_predicted, pause_s``.
    summary : pandas.DataFrame
        Rows ``(policy, source)`` for ``ds``/``specon`` x ``measured``/``predicted``: columns
        ``mean_completion, makespan, moves``.
    pauses : pandas.Series
        Measured pauses: ``n, mean_s, sd_s, max_s, save_mean_s, restore_mean_s, wait_mean_s,
        request_to_resume_mean_s`` beside the paper's ``paper_bound_s`` (5) and ``paper_sd_s``
        (1.43), and ``prediction_pause_s`` (what the prediction used).
    losses_identical : bool
        DS and SpeCon logged the same loss sequences (as they must: training is deterministic and
        a restore continues exactly).
    params : dict
    wall_seconds : float
    workdir : pathlib.Path or None
    """

    __test__: ClassVar[bool] = False

    jobs: tuple[TestbedJob, ...]
    calibration: pd.DataFrame
    ds: TestbedRun
    specon: TestbedRun
    workload: Workload
    predicted: dict
    table: pd.DataFrame
    summary: pd.DataFrame
    pauses: pd.Series
    losses_identical: bool
    params: dict
    wall_seconds: float
    workdir: Path | None


def _pause_summary(m: pd.DataFrame, used: float) -> pd.Series:
    p = m["pause_s"].to_numpy(float)
    return pd.Series(
        {
            "n": len(p),
            "mean_s": float(p.mean()) if len(p) else math.nan,
            "sd_s": float(p.std(ddof=1)) if len(p) > 1 else math.nan,
            "max_s": float(p.max()) if len(p) else math.nan,
            "save_mean_s": float(m["save_s"].mean()) if len(p) else math.nan,
            "restore_mean_s": float(m["restore_s"].mean()) if len(p) else math.nan,
            "wait_mean_s": float(m["wait_s"].mean()) if len(p) else math.nan,
            "request_to_resume_mean_s": float(m["request_to_resume_s"].mean()) if len(p) else math.nan,
            "paper_bound_s": PAPER_PAUSE_BOUND,
            "paper_sd_s": PAUSE_SD_PAPER,
            "prediction_pause_s": used,
        }
    )


def compare(
    jobs: Sequence[TestbedJob] | None = None,
    *,
    nodes: int = 2,
    cpus_per_node: int | None = None,
    alpha: float = DEFAULT_ALPHA,
    interval: float = DEFAULT_INTERVAL,
    w_pc: float = 2.0,
    w_wc: float = 1.5,
    w_cc: float = 1.0,
    launch_interval: float = DEFAULT_LAUNCH_INTERVAL,
    launches: Sequence[float] | None = None,
    calibration_epochs: int = 3,
    seed: int | np.random.Generator = 0,
    workdir: str | os.PathLike | None = None,
    keep: bool = False,
    timeout: float = 900.0,
    poll: float = 0.02,
    slot_seconds: float = 0.01,
    on_poll: Callable[[dict], None] | None = None,
) -> TestbedComparison:
    """Calibrate, run DS, run SpeCon, predict both with the simulator, and tabulate.

    Parameters
    ----------
    jobs : sequence of TestbedJob (or mappings), optional
        Default :func:`default_jobs` ``(8, seed)``.
    nodes, cpus_per_node, launch_interval, launches, alpha, interval, w_pc, w_wc, w_cc, poll,
    on_poll
        As in :func:`run_policy` (the same for both runs).
    calibration_epochs : int
        Epochs timed per job alone (:func:`calibrate`).
    seed : int or numpy.random.Generator
        For :func:`default_jobs` and the simulator.
    workdir, keep
        Output folder (``data/``, ``calibration/``, ``ds/``, ``specon/``); default temporary,
        deleted afterwards unless ``keep``.
    timeout : float
        Seconds allowed for each run (and each job's calibration).
    slot_seconds : float
        The prediction's engine slot.

    Returns
    -------
    TestbedComparison

    Raises
    ------
    ValueError
        Bad input: checked before any process starts or any file is written.
    TestbedJobError, TestbedTimeout
        A run failed (all its processes stopped).
    """
    if isinstance(seed, np.random.Generator):
        rng = seed
    else:
        rng = np.random.default_rng(_int(seed, "seed", 0))
    if jobs is None:
        jobs = default_jobs(8, rng)
    js, la, cpus, w = _check_run_params(
        jobs, launches, launch_interval, nodes, cpus_per_node, alpha, interval, w_pc, w_wc, w_cc, timeout,
        poll,
    )  # fmt: skip
    calibration_epochs = _int(calibration_epochs, "calibration_epochs", 1)
    _num(slot_seconds, "slot_seconds", lo=0.0, strict=True)
    _check_workdir_arg(workdir, keep)
    wall0 = time.monotonic()
    wd = _Workdir(workdir, keep, "specon-testbed-")
    try:
        js, cal = _calibrate(js, cpus, calibration_epochs, wd.path, float(timeout))
        a, dt = float(alpha), float(interval)
        ds = _run(js, la, cpus, "ds", a, dt, w, wd.path, timeout, poll, on_poll)
        sp = _run(js, la, cpus, "specon", a, dt, w, wd.path, timeout, poll, on_poll)
        seq_ds, seq_sp = ds.loss_sequences(), sp.loss_sequences()
        same = seq_ds == seq_sp
        # the prediction's pause: the measured mean, or (no move measured) a process start
        m = sp.migrations
        pause = float(m["pause_s"].mean()) if len(m) else float(cal["startup_s"].mean())
        names = [j.name for j in js]
        wl = build_workload(
            {n: seq_ds[n] for n in names},
            dict(zip(cal["job"], cal["solo_s"], strict=True)),
            dict(zip(names, la, strict=True)),
            nodes=len(cpus), cpus_per_node=len(cpus[0]), migration_pause=pause, slot_seconds=slot_seconds,
        )  # fmt: skip
        ptable, results = predict(
            wl, alpha=alpha, interval=interval, w_pc=w["PC"], w_wc=w["WC"], w_cc=w["CC"], seed=rng
        )
        table = _table(ds, sp, ptable)
        summary = _summary(ds, sp, wl, results)
        pauses = _pause_summary(sp.migrations, pause)
    finally:
        path = wd.close()
    ds.workdir = sp.workdir = path
    params = {
        "nodes": len(cpus), "cpus": cpus, "alpha": float(alpha), "interval": float(interval),
        "w_pc": w["PC"], "w_wc": w["WC"], "w_cc": w["CC"], "launches": la,
        "calibration_epochs": calibration_epochs, "timeout": float(timeout), "poll": float(poll),
        "slot_seconds": float(slot_seconds),
    }  # fmt: skip
    return TestbedComparison(
        jobs=js, calibration=cal, ds=ds, specon=sp, workload=wl, predicted=results, table=table,
        summary=summary, pauses=pauses, losses_identical=same, params=params,
        wall_seconds=time.monotonic() - wall0, workdir=path,
    )  # fmt: skip


def _table(ds: TestbedRun, sp: TestbedRun, pred: pd.DataFrame) -> pd.DataFrame:
    a = ds.jobs.set_index("job")
    b = sp.jobs.set_index("job")
    p = pred.set_index("job")
    jobs = list(a.index)
    return pd.DataFrame(
        {
            "job": jobs,
            "launch": a["launch"].to_numpy(float),
            "ds_node": a["node"].to_numpy(int),
            "ds_measured": a["completion"].to_numpy(float),
            "ds_predicted": p.loc[jobs, "ds_predicted"].to_numpy(float),
            "specon_nodes": b.loc[jobs, "nodes"].to_numpy(),
            "specon_moved": b.loc[jobs, "moved"].to_numpy(bool),
            "specon_measured": b.loc[jobs, "completion"].to_numpy(float),
            "specon_predicted": p.loc[jobs, "specon_predicted"].to_numpy(float),
            "specon_moved_predicted": p.loc[jobs, "specon_moved_predicted"].to_numpy(bool),
            "specon_nodes_predicted": p.loc[jobs, "specon_nodes_predicted"].to_numpy(),
            "pause_s": b.loc[jobs, "pause_s"].to_numpy(float),
        }
    )


def _summary(ds: TestbedRun, sp: TestbedRun, wl: Workload, results: dict) -> pd.DataFrame:
    slot = wl.cluster.slot_seconds
    first = min(s.arrival for s in wl.jobs) * slot
    rows = []
    for pol, run in (("ds", ds), ("specon", sp)):
        rows.append({"policy": pol, "source": "measured", "mean_completion": run.mean_completion,
                     "makespan": run.makespan, "moves": run.moves})
        r = results[pol].jobs
        rows.append({"policy": pol, "source": "predicted", "mean_completion": float(r["jct_seconds"].mean()),
                     "makespan": float(r["completion_time"].max() * slot - first),
                     "moves": int((r["migrations"] > 0).sum())})
    return pd.DataFrame(rows).set_index(["policy", "source"])


def smoke(
    seed: int | np.random.Generator = 0, *, workdir: str | os.PathLike | None = None, keep: bool = False
) -> TestbedComparison:
    """:func:`compare` on :func:`smoke_jobs` with :data:`SMOKE` (about 15 s; for tests)."""
    return compare(smoke_jobs(seed), seed=seed, workdir=workdir, keep=keep, **SMOKE)

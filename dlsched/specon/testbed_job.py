r"""One training job of the SpeCon testbed (:mod:`dlsched.specon.testbed`), run as its own process.

A job is a small NumPy classifier trained by mini-batch SGD with momentum on a dataset that ships
with scikit-learn (``digits``, ``wine``, ``breast_cancer``, ``iris``; nothing is downloaded):
softmax regression (``hidden=0``) or a one-hidden-layer ``tanh`` MLP. It stands for one of the
paper's containers (SpeCon l. 168: "each container hosts one specific job").

Training loop. One *pass* is one SGD sweep over the whole (standardised) dataset in a random
order (mini-batches of ``batch`` samples, the last one may be smaller); one *epoch* is
``passes`` passes. The job trains ``epochs`` epochs. Before the first epoch and after every
epoch the mean cross-entropy over the whole dataset is computed and appended to the log. The
loss before any training (epoch 0) is :math:`E_{first}` of the testbed's Algorithm 1
(spec A3). The testbed's knob for a job's length in seconds is ``repeat``: each mini-batch's
gradient is evaluated ``repeat`` times (identical results, the last is applied), i.e. the step
costs what a ``repeat`` times larger model would cost while the loss sequence stays that of the
small model, the same on every machine (only its seconds per epoch depend on the machine).

Determinism. Initial weights come from ``numpy.random.default_rng([seed, 0])``, the shuffling
order from the Generator ``default_rng([seed, 1])`` (its state is part of the checkpoint). The
parent sets ``OMP_NUM_THREADS`` / ``OPENBLAS_NUM_THREADS`` / ``MKL_NUM_THREADS`` to 1, so the
loss sequence of a configuration is identical bit for bit across runs on one machine, and a job
resumed from a checkpoint continues exactly where it stopped.

Log file (text, appended and flushed line by line; several processes of one job append to it in
turn, never at the same time; a reader must ignore a partial last line):

* ``<epoch> <loss> <t>`` -- epoch ``epoch`` (0 = before training) finished at ``t`` with
  ``loss`` (Python's round-trip ``repr``, so the value is exact);
* ``# start pid=<pid> t=<t>`` -- a fresh process is ready (signal handler installed, data loaded);
* ``# checkpoint epoch=<k> pass=<p> t0=<t> t1=<t>`` -- the checkpoint (``k`` finished epochs,
  ``p`` finished passes) was written between ``t0`` and ``t1`` (the process exits right after);
* ``# resumed pid=<pid> epoch=<k> pass=<p> t=<t> load_s=<s>`` -- a restarted process loaded the
  checkpoint and continues (``p`` finished passes, maybe part of the next);
* ``# done t=<t>`` -- the last epoch is logged, the process exits with 0.

Times ``t`` are ``time.monotonic()`` seconds (``CLOCK_MONOTONIC``, one clock for every process of
the machine on Linux), so the parent can compare them with its own clock.

Checkpoint protocol (the testbed's "save" of SpeCon Alg. 2 l. 14 / 19). ``SIGUSR1`` asks the
process to checkpoint; the handler only sets a flag, which the training loop checks after
every *mini-batch* (so the wait is at most one mini-batch step, much shorter than an epoch; the
job keeps training on its old node meanwhile). The process then writes a NumPy ``.npz``
(:func:`save_checkpoint`: parameters, momentum buffers, pass counter, position inside the
current pass and its sample order, the shuffling Generator's state as ``uint64`` words, the
configuration as a JSON string; no pickled object) to a temporary file in the same directory,
moves it onto the final name with ``os.replace`` (atomic), logs ``# checkpoint`` and exits with
:data:`EXIT_CHECKPOINTED` (75). Started with ``--resume`` the process loads it with
``allow_pickle=False`` (:func:`load_checkpoint`), checks it belongs to the same configuration,
logs ``# resumed`` and continues ("restore", Alg. 2 l. 16 / 21). A request that arrives after
the last mini-batch is ignored: the job just finishes (exit 0).

Command line (what the testbed runs)::

    python -m dlsched.specon.testbed_job --spec JOB.json --data DATA.npz --log LOG \
        --ckpt CKPT.npz [--resume] [--cpus 0,1] [--parent PID] \
        [--calibrate EPOCHS [--epoch-seconds S] [--hold] --out RESULT.json]

``--cpus`` pins the process (the testbed also pins it from outside); ``--parent`` makes Linux
kill it when the testbed dies. ``--calibrate`` times ``EPOCHS`` epochs from a fresh state
instead of training the job and writes the timings as JSON (the testbed's solo calibration);
with ``--epoch-seconds`` it first chooses ``repeat`` so that an epoch takes about ``S`` seconds;
with ``--hold`` it then keeps the CPU busy until ``SIGUSR1`` (exit 0).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import sys
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

__all__ = [
    "DATASETS",
    "EXIT_CHECKPOINTED",
    "TrainConfig",
    "TrainState",
    "init_state",
    "load_checkpoint",
    "load_dataset",
    "main",
    "mean_loss",
    "read_dataset",
    "save_checkpoint",
    "save_dataset",
    "train_pass",
    "train_step",
    "train_losses",
]

DATASETS: tuple[str, ...] = ("digits", "wine", "breast_cancer", "iris")
"""Datasets of ``sklearn.datasets`` a job may train on (they ship with scikit-learn)."""

EXIT_CHECKPOINTED = 75
"""Exit status of a process that wrote its checkpoint on request (``EX_TEMPFAIL``)."""

_CKPT_VERSION = 1


@dataclass(frozen=True)
class TrainConfig:
    """What one job trains (everything that determines its loss sequence).

    Parameters
    ----------
    dataset : str
        One of :data:`DATASETS`.
    hidden : int
        Hidden units of the ``tanh`` layer; 0 = softmax regression.
    lr : float
        SGD learning rate (> 0).
    momentum : float
        Heavy-ball momentum in [0, 1).
    batch : int
        Mini-batch size (>= 1).
    epochs : int
        Epochs to train (>= 1).
    passes : int
        SGD passes over the dataset per epoch (>= 1).
    seed : int
        Seed of the initial weights and of the shuffling order (>= 0).
    repeat : int
        Evaluations of each mini-batch's gradient (>= 1; :func:`train_step`): the compute cost
        of a step, which sets the job's seconds without changing its loss sequence.

    Raises
    ------
    ValueError
        A bad field (named, with its value).
    """

    dataset: str
    hidden: int
    lr: float
    momentum: float
    batch: int
    epochs: int
    passes: int
    seed: int
    repeat: int = 1

    def __post_init__(self) -> None:
        if self.dataset not in DATASETS:
            raise ValueError(f"dataset must be one of {DATASETS}, got {self.dataset!r}")
        for f, lo in (
            ("hidden", 0), ("batch", 1), ("epochs", 1), ("passes", 1), ("seed", 0), ("repeat", 1)
        ):
            v = getattr(self, f)
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < lo:
                raise ValueError(f"{f} must be an integer >= {lo}, got {v!r}")
            object.__setattr__(self, f, int(v))
        for f, lo, hi in (("lr", 0.0, math.inf), ("momentum", 0.0, 1.0)):
            v = getattr(self, f)
            ok = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
            if not ok or not math.isfinite(float(v)) or not (lo <= float(v) < hi) or (f == "lr" and v <= 0):
                rng = "> 0" if f == "lr" else "in [0, 1)"
                raise ValueError(f"{f} must be a finite number {rng}, got {v!r}")
            object.__setattr__(self, f, float(v))

    def to_json(self) -> str:
        """The configuration as a JSON object (sorted keys)."""
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_mapping(cls, d: Mapping) -> TrainConfig:
        """Inverse of :meth:`to_json` (after ``json.loads``)."""
        return cls(**{k: d[k] for k in cls.__dataclass_fields__})


# ------------------------------------------------------------------------------------ data


def load_dataset(name: str) -> tuple[np.ndarray, np.ndarray]:
    """``sklearn.datasets.load_<name>``, features standardised (zero mean, unit variance; a
    constant column is only centred), labels as ``int64`` class indices.

    Raises
    ------
    ValueError
        ``name`` not in :data:`DATASETS`.
    """
    if name not in DATASETS:
        raise ValueError(f"dataset must be one of {DATASETS}, got {name!r}")
    from sklearn import datasets

    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    X = np.asarray(X, dtype=np.float64)
    sd = X.std(axis=0)
    X = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    _, y = np.unique(np.asarray(y), return_inverse=True)
    return np.ascontiguousarray(X), y.astype(np.int64)


def save_dataset(path: str | os.PathLike, X: np.ndarray, y: np.ndarray) -> None:
    """Write ``X``, ``y`` as ``.npz`` (atomically), so that job processes need not import
    scikit-learn (its import alone takes ~2 s, which would count as restore time)."""
    _atomic_savez(Path(path), {"X": np.asarray(X, np.float64), "y": np.asarray(y, np.int64)})


def read_dataset(path: str | os.PathLike) -> tuple[np.ndarray, np.ndarray]:
    """Inverse of :func:`save_dataset` (``allow_pickle=False``)."""
    with np.load(path, allow_pickle=False) as z:
        return np.ascontiguousarray(z["X"]), np.ascontiguousarray(z["y"])


# ----------------------------------------------------------------------------------- model


@dataclass
class TrainState:
    """Everything a resumed job needs: parameters, momentum buffers, the shuffling Generator,
    the finished passes and the position inside the current pass (its sample order and the
    index of the next mini-batch)."""

    params: dict[str, np.ndarray]
    velocity: dict[str, np.ndarray]
    rng: np.random.Generator
    passes_done: int = 0
    order: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    pos: int = 0

    def epoch(self, cfg: TrainConfig) -> int:
        """Finished epochs."""
        return self.passes_done // cfg.passes

    def at_epoch_end(self, cfg: TrainConfig) -> bool:
        """True right after the last mini-batch of an epoch."""
        return self.pos == 0 and self.passes_done > 0 and self.passes_done % cfg.passes == 0


def init_state(cfg: TrainConfig, n_features: int, n_classes: int) -> TrainState:
    """Fresh parameters (Glorot-scaled normal weights, zero biases) and Generators from ``cfg.seed``."""
    r = np.random.default_rng([cfg.seed, 0])
    params: dict[str, np.ndarray] = {}

    def glorot(n_in: int, n_out: int) -> np.ndarray:
        return r.standard_normal((n_in, n_out)) * math.sqrt(2.0 / (n_in + n_out))

    if cfg.hidden:
        params["W1"] = glorot(n_features, cfg.hidden)
        params["b1"] = np.zeros(cfg.hidden)
        params["W2"] = glorot(cfg.hidden, n_classes)
    else:
        params["W2"] = glorot(n_features, n_classes)
    params["b2"] = np.zeros(n_classes)
    velocity = {k: np.zeros_like(v) for k, v in params.items()}
    return TrainState(params, velocity, np.random.default_rng([cfg.seed, 1]))


def _forward(params: Mapping[str, np.ndarray], X: np.ndarray):
    h = np.tanh(X @ params["W1"] + params["b1"]) if "W1" in params else X
    z = h @ params["W2"] + params["b2"]
    z = z - z.max(axis=1, keepdims=True)
    ez = np.exp(z)
    p = ez / ez.sum(axis=1, keepdims=True)
    return h, z, p


def _gradients(P: Mapping[str, np.ndarray], xb: np.ndarray, yb: np.ndarray) -> dict[str, np.ndarray]:
    h, _, d = _forward(P, xb)
    d[np.arange(len(yb)), yb] -= 1.0
    d /= len(yb)
    grads = {"W2": h.T @ d, "b2": d.sum(axis=0)}
    if "W1" in P:
        dh = (d @ P["W2"].T) * (1.0 - h * h)
        grads["W1"] = xb.T @ dh
        grads["b1"] = dh.sum(axis=0)
    return grads


def mean_loss(params: Mapping[str, np.ndarray], X: np.ndarray, y: np.ndarray) -> float:
    """Mean cross-entropy of the whole dataset (log-sum-exp form)."""
    _, z, _ = _forward(params, X)
    lse = np.log(np.exp(z).sum(axis=1))
    return float(np.mean(lse - z[np.arange(len(y)), y]))


def train_step(state: TrainState, X: np.ndarray, y: np.ndarray, cfg: TrainConfig) -> None:
    """One mini-batch of SGD with momentum (updates ``state``).

    A pass starts by drawing ``state.rng.permutation(n)``; the gradient of a mini-batch is
    evaluated ``cfg.repeat`` times (identical results, the last is applied: the compute of a
    ``repeat`` times larger model at the same loss curve)."""
    n = len(y)
    if state.pos == 0:
        state.order = state.rng.permutation(n)
    idx = state.order[state.pos : state.pos + cfg.batch]
    xb, yb = X[idx], y[idx]
    for _ in range(cfg.repeat):
        grads = _gradients(state.params, xb, yb)
    for k, g in grads.items():
        V = state.velocity[k]
        V *= cfg.momentum
        V -= cfg.lr * g
        state.params[k] += V
    state.pos += len(idx)
    if state.pos >= n:
        state.pos = 0
        state.passes_done += 1


def train_pass(state: TrainState, X: np.ndarray, y: np.ndarray, cfg: TrainConfig) -> None:
    """Mini-batches until the current pass is finished."""
    train_step(state, X, y, cfg)
    while state.pos:
        train_step(state, X, y, cfg)


def train_losses(
    cfg: TrainConfig, X: np.ndarray, y: np.ndarray, state: TrainState | None = None
) -> list[float]:
    """Train ``cfg`` in-process from ``state`` (fresh if None) to the end; the per-epoch losses
    from the state's position on (epoch 0 included when starting fresh). For tests and notebooks."""
    fresh = state is None
    if fresh:
        state = init_state(cfg, X.shape[1], int(y.max()) + 1)
    out = [mean_loss(state.params, X, y)] if fresh else []
    while state.passes_done < cfg.epochs * cfg.passes:
        train_step(state, X, y, cfg)
        if state.at_epoch_end(cfg):
            out.append(mean_loss(state.params, X, y))
    return out


# ------------------------------------------------------------------------------ checkpoint


def _atomic_savez(path: Path, arrays: Mapping[str, np.ndarray]) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            np.savez(f, **arrays)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _rng_words(rng: np.random.Generator) -> np.ndarray:
    st = rng.bit_generator.state
    if st["bit_generator"] != "PCG64":  # pragma: no cover - default_rng is PCG64
        raise ValueError(f"only PCG64 Generators can be checkpointed, got {st['bit_generator']}")
    m = (1 << 64) - 1
    s, inc = int(st["state"]["state"]), int(st["state"]["inc"])
    words = [s >> 64, s & m, inc >> 64, inc & m, int(st["has_uint32"]), int(st["uinteger"])]
    return np.array(words, dtype=np.uint64)


def _rng_from_words(words: np.ndarray) -> np.random.Generator:
    w = [int(x) for x in np.asarray(words, dtype=np.uint64)]
    bg = np.random.PCG64()
    bg.state = {
        "bit_generator": "PCG64",
        "state": {"state": (w[0] << 64) | w[1], "inc": (w[2] << 64) | w[3]},
        "has_uint32": w[4],
        "uinteger": w[5],
    }
    return np.random.Generator(bg)


def save_checkpoint(path: str | os.PathLike, state: TrainState, cfg: TrainConfig) -> None:
    """Write ``state`` as ``.npz`` atomically (temporary file in the same folder, then
    ``os.replace``).

    Arrays: ``param_<name>`` and ``velocity_<name>`` (float64), ``passes_done``, ``pos`` (int64),
    ``order`` (int64, the current pass's sample order), ``rng_state`` (the PCG64 state as six
    ``uint64`` words), ``config`` (the JSON of ``cfg`` as a unicode array) and ``version``.
    Nothing needs pickle to be read back (:func:`load_checkpoint` uses ``allow_pickle=False``)."""
    arrays: dict[str, np.ndarray] = {f"param_{k}": v for k, v in state.params.items()}
    arrays.update({f"velocity_{k}": v for k, v in state.velocity.items()})
    arrays["passes_done"] = np.array(state.passes_done, dtype=np.int64)
    arrays["pos"] = np.array(state.pos, dtype=np.int64)
    arrays["order"] = np.asarray(state.order, dtype=np.int64)
    arrays["rng_state"] = _rng_words(state.rng)
    arrays["config"] = np.array(cfg.to_json())
    arrays["version"] = np.array(_CKPT_VERSION, dtype=np.int64)
    _atomic_savez(Path(path), arrays)


def load_checkpoint(path: str | os.PathLike, cfg: TrainConfig) -> TrainState:
    """Read a checkpoint of :func:`save_checkpoint` (``allow_pickle=False``).

    Raises
    ------
    ValueError
        The checkpoint belongs to another configuration or format version.
    """
    with np.load(path, allow_pickle=False) as z:
        if int(z["version"]) != _CKPT_VERSION:
            raise ValueError(f"checkpoint {path}: version {int(z['version'])}, expected {_CKPT_VERSION}")
        if json.loads(str(z["config"])) != json.loads(cfg.to_json()):
            raise ValueError(f"checkpoint {path} was written by another configuration: {str(z['config'])}")
        params = {k[len("param_") :]: z[k].copy() for k in z.files if k.startswith("param_")}
        velocity = {k[len("velocity_") :]: z[k].copy() for k in z.files if k.startswith("velocity_")}
        return TrainState(
            params,
            velocity,
            _rng_from_words(z["rng_state"]),
            int(z["passes_done"]),
            z["order"].copy(),
            int(z["pos"]),
        )


# ------------------------------------------------------------------------------------ main

_REQUESTED = False


def _on_request(signum, frame) -> None:  # the handler only sets a flag (async-signal-safe)
    global _REQUESTED
    _REQUESTED = True


class _Log:
    def __init__(self, path: str) -> None:
        self._f = open(path, "a", encoding="utf-8")  # noqa: SIM115 - kept open for the run

    def line(self, text: str) -> None:
        self._f.write(text + "\n")
        self._f.flush()

    def close(self) -> None:
        self._f.close()


def _die_with_parent(ppid: int) -> None:
    """Ask Linux to SIGKILL this process when its parent dies (``PR_SET_PDEATHSIG``), so that a
    testbed killed without a chance to clean up leaves no job behind; exit if it is gone already."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass
    if os.getppid() != ppid:
        sys.exit(1)


def _pass_seconds(cfg: TrainConfig, X, y, state: TrainState, repeat: int) -> float:
    """CPU seconds of one pass with ``repeat``."""
    c = replace(cfg, repeat=repeat)
    t = time.process_time()
    train_pass(state, X, y, c)
    return time.process_time() - t


def _calibrate(
    cfg: TrainConfig, X, y, epochs: int, epoch_seconds: float, out: str, t_ready: float, cpu_ready: float,
    hold: bool,
) -> None:
    """Solo calibration. If ``epoch_seconds`` > 0, choose ``repeat``: fit the CPU time of a pass
    as ``a + b * repeat`` on passes with ``repeat`` 1 and 9, then correct the guess once with a
    pass at the guessed ``repeat``. Then time ``epochs`` epochs of the (final) configuration from
    a fresh state (wall and CPU time: CPU time is immune to other programs sharing the CPU) and
    write the timings as JSON to ``out`` (atomically). With ``hold``, keep
    training (untimed) until ``SIGUSR1``, so that the machine stays as loaded as in a run while
    the jobs calibrated beside this one finish their measurements."""
    fit = {}
    if epoch_seconds > 0:
        scratch = init_state(cfg, X.shape[1], int(y.max()) + 1)
        _pass_seconds(cfg, X, y, scratch, 1)  # warm-up
        lo, hi = 1, 9
        t_lo = min(_pass_seconds(cfg, X, y, scratch, lo) for _ in range(3))
        t_hi = min(_pass_seconds(cfg, X, y, scratch, hi) for _ in range(2))
        b = max((t_hi - t_lo) / (hi - lo), 1e-9)
        a = max(t_lo - lo * b, 0.0)
        t = time.process_time()
        mean_loss(scratch.params, X, y)
        eval_s = time.process_time() - t
        per_pass = max((epoch_seconds - eval_s) / cfg.passes, 1e-6)
        guess = max(1, int(round((per_pass - a) / b)))
        measured = _pass_seconds(cfg, X, y, scratch, guess)
        repeat = max(1, int(round(guess * per_pass / max(measured, 1e-9))))
        cfg = replace(cfg, repeat=repeat)
        fit = {"pass_a": a, "pass_b": b, "eval_s": eval_s, "guess": guess, "guess_pass_s": measured}
    state = init_state(cfg, X.shape[1], int(y.max()) + 1)
    marks, cpu = [time.monotonic()], [time.process_time()]
    mean_loss(state.params, X, y)
    marks.append(time.monotonic())
    cpu.append(time.process_time())
    while state.epoch(cfg) < min(epochs, cfg.epochs):
        train_step(state, X, y, cfg)
        if state.at_epoch_end(cfg):
            mean_loss(state.params, X, y)
            marks.append(time.monotonic())
            cpu.append(time.process_time())
    res = {"t_ready": t_ready, "cpu_ready": cpu_ready, "repeat": cfg.repeat, "marks": marks, "cpu_marks": cpu}
    res.update(fit)
    path = Path(out)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(res), encoding="utf-8")
    os.replace(tmp, path)
    while hold and not _REQUESTED:
        if state.passes_done >= cfg.epochs * cfg.passes:
            state = init_state(cfg, X.shape[1], int(y.max()) + 1)
        train_step(state, X, y, cfg)


def main(argv: list[str] | None = None) -> int:
    """Run one job (see the module docstring); returns the exit status."""
    signal.signal(signal.SIGUSR1, _on_request)
    ap = argparse.ArgumentParser(
        prog="python -m dlsched.specon.testbed_job", description=__doc__.splitlines()[0]
    )
    ap.add_argument("--spec", required=True, help="JSON file with a TrainConfig")
    ap.add_argument("--data", required=True, help=".npz written by save_dataset")
    ap.add_argument("--log", required=True)
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--cpus", default="", help="comma-separated CPU ids to pin to")
    ap.add_argument("--calibrate", type=int, default=0, help="time this many epochs alone, then exit")
    ap.add_argument("--epoch-seconds", type=float, default=0.0, help="with --calibrate: choose repeat")
    ap.add_argument("--out", default="", help="with --calibrate: JSON result file")
    ap.add_argument("--hold", action="store_true", help="with --calibrate: keep busy until SIGUSR1")
    ap.add_argument("--parent", type=int, default=0, help="pid of the testbed: die with it")
    a = ap.parse_args(argv)
    if a.parent:
        _die_with_parent(a.parent)
    if a.cpus:
        os.sched_setaffinity(0, {int(c) for c in a.cpus.split(",")})
    cfg = TrainConfig.from_mapping(json.loads(Path(a.spec).read_text(encoding="utf-8")))
    X, y = read_dataset(a.data)
    if a.calibrate > 0:
        t_ready, cpu_ready = time.monotonic(), time.process_time()
        _calibrate(cfg, X, y, a.calibrate, a.epoch_seconds, a.out, t_ready, cpu_ready, a.hold)
        return 0
    log = _Log(a.log)
    total = cfg.epochs * cfg.passes
    if a.resume:
        t0 = time.monotonic()
        state = load_checkpoint(a.ckpt, cfg)
        t1 = time.monotonic()
        log.line(
            f"# resumed pid={os.getpid()} epoch={state.epoch(cfg)} pass={state.passes_done} "
            f"t={t1!r} load_s={t1 - t0!r}"
        )
    else:
        state = init_state(cfg, X.shape[1], int(y.max()) + 1)
        log.line(f"# start pid={os.getpid()} t={time.monotonic()!r}")
        log.line(f"0 {mean_loss(state.params, X, y)!r} {time.monotonic()!r}")
    while state.passes_done < total:
        train_step(state, X, y, cfg)
        if state.at_epoch_end(cfg):
            log.line(f"{state.epoch(cfg)} {mean_loss(state.params, X, y)!r} {time.monotonic()!r}")
        if _REQUESTED and state.passes_done < total:  # a request after the last step is ignored
            t0 = time.monotonic()
            save_checkpoint(a.ckpt, state, cfg)
            t1 = time.monotonic()
            log.line(f"# checkpoint epoch={state.epoch(cfg)} pass={state.passes_done} t0={t0!r} t1={t1!r}")
            log.close()
            return EXIT_CHECKPOINTED
    log.line(f"# done t={time.monotonic()!r}")
    log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

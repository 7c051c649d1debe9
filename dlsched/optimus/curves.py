r"""Real training-loss curves for Optimus's convergence model (Sec. 3.1, Figs. 5-7).

Optimus fits Eq. (1), :math:`l = 1/(\beta_0 k + \beta_1) + \beta_2`, to the training loss of
real jobs. The paper's curves come from MXNet jobs we cannot rerun on a laptop, so the project
trains small models itself, for real, with scikit-learn on the datasets that ship with it
(``load_digits``, ``load_breast_cancer``, ``load_wine``, ``load_iris``; no download):

* multi-layer perceptrons (:class:`sklearn.neural_network.MLPClassifier`, ``solver="sgd"`` or
  ``"adam"``, constant learning rate as in the paper's Fig. 5 jobs), and
* linear models trained by SGD (:class:`sklearn.linear_model.SGDClassifier`,
  ``loss="log_loss"``, constant learning rate).

Training loop (one *step* = one mini-batch): every epoch the samples are permuted with a numpy
Generator and cut into mini-batches of ``batch_size`` (the last one may be smaller); each
mini-batch is fed to ``partial_fit``. The step's loss is the mean log-loss of that mini-batch
measured by the model *before* it learns from it:

* MLP: ``MLPClassifier.loss_`` after ``partial_fit`` on exactly that mini-batch (one forward /
  backward pass, so ``loss_`` is the pre-update mini-batch loss; it includes sklearn's L2 term
  :math:`\tfrac{\alpha}{2}\lVert W\rVert^2/n_{batch}`);
* linear: the log-loss of ``predict_proba`` on the mini-batch before ``partial_fit`` (the first
  step's model has zero weights, so its loss is exactly :math:`\ln(\#classes)`). Note that
  ``SGDClassifier.partial_fit`` makes one per-sample update per example of the mini-batch.

The per-epoch loss (:func:`per_epoch`) is the mean of the epoch's step losses (what frameworks
print, and the paper's "average all losses of an epoch"). Features are standardised
(:class:`sklearn.preprocessing.StandardScaler` on the whole dataset: we record training loss
only). Epochs and steps are numbered from 1.

Determinism: all randomness comes from ``numpy.random.SeedSequence(seed).spawn(2)`` (one stream
for the permutations, one integer ``random_state`` for the estimator); BLAS/OpenMP pools are
limited to one thread while training (:func:`threadpoolctl.threadpool_limits`), so a curve is
identical bit for bit across runs on one machine and independent of the thread count.

Storage: ``data/loss_curves/<config>.csv`` (columns ``config, epoch, step, loss``; every step,
no sub-sampling; floats written with Python's shortest round-trip repr) plus ``manifest.json``
(configuration parameters, library versions, sha256 of each CSV). Regenerate with::

    python -m dlsched.optimus.curves --out data/loss_curves
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import io
import json
import math
import os
import platform
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from dlsched.core import numerics

__all__ = [
    "CURVE_CONFIGS",
    "CurveConfig",
    "DATASETS",
    "default_data_dir",
    "generate_all",
    "load_curves",
    "load_manifest",
    "main",
    "per_epoch",
    "train_curve",
]

DATASETS: tuple[str, ...] = ("digits", "breast_cancer", "wine", "iris")
"""Datasets that ship with scikit-learn (``sklearn.datasets.load_<name>``)."""

MANIFEST = "manifest.json"
COLUMNS: tuple[str, ...] = ("config", "epoch", "step", "loss")


@dataclass(frozen=True)
class CurveConfig:
    """One training run whose loss curve is recorded.

    Parameters
    ----------
    name : str
        Registry key, also the CSV file stem.
    dataset : str
        One of :data:`DATASETS`.
    estimator : str
        ``"mlp"`` (:class:`~sklearn.neural_network.MLPClassifier`) or ``"linear"``
        (:class:`~sklearn.linear_model.SGDClassifier` with ``loss="log_loss"``).
    batch_size : int
        Mini-batch size (one step per mini-batch).
    learning_rate : float
        ``learning_rate_init`` (MLP) or ``eta0`` (linear); constant over training.
    epochs : int
        Number of passes over the dataset.
    hidden : tuple of int
        MLP hidden layer sizes (ignored for ``"linear"``).
    solver : str
        MLP solver, ``"sgd"`` or ``"adam"`` (``"sgd"`` for linear models).
    momentum : float
        MLP SGD momentum (0 = plain SGD).
    alpha : float
        L2 penalty.
    shape : str
        What the curve shows (documentation only).
    """

    name: str
    dataset: str
    estimator: str
    batch_size: int
    learning_rate: float
    epochs: int
    hidden: tuple[int, ...] = ()
    solver: str = "sgd"
    momentum: float = 0.9
    alpha: float = 1e-4
    shape: str = ""

    def __post_init__(self) -> None:
        if self.dataset not in DATASETS:
            raise ValueError(f"CurveConfig.dataset must be one of {DATASETS}, got {self.dataset!r}")
        if self.estimator not in ("mlp", "linear"):
            raise ValueError(f"CurveConfig.estimator must be 'mlp' or 'linear', got {self.estimator!r}")
        if self.solver not in ("sgd", "adam") or (self.estimator == "linear" and self.solver != "sgd"):
            raise ValueError(f"CurveConfig.solver {self.solver!r} is not valid for {self.estimator!r}")
        for f in ("batch_size", "epochs"):
            v = getattr(self, f)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"CurveConfig.{f} must be an integer >= 1, got {v!r}")
        if not (math.isfinite(self.learning_rate) and self.learning_rate > 0):
            raise ValueError(f"CurveConfig.learning_rate must be > 0, got {self.learning_rate!r}")
        if self.estimator == "mlp" and not self.hidden:
            raise ValueError("CurveConfig.hidden must list at least one layer size for an MLP")

    def params(self) -> dict[str, object]:
        """Parameters as a JSON-friendly dict (for the manifest)."""
        d = dataclasses.asdict(self)
        d["hidden"] = list(self.hidden)
        return d


def _registry(*configs: CurveConfig) -> dict[str, CurveConfig]:
    return {c.name: c for c in configs}


CURVE_CONFIGS: dict[str, CurveConfig] = _registry(
    CurveConfig("digits_mlp_sgd", "digits", "mlp", 32, 0.002, 60, (64,), "sgd", 0.9, alpha=1e-2,
                shape="momentum SGD with L2: smooth, converges to a positive loss"),
    CurveConfig("digits_mlp_adam", "digits", "mlp", 64, 1e-3, 60, (128, 64), "adam",
                shape="memorises: loss falls faster than 1/k towards 0 (Eq. (1) fits poorly)"),
    CurveConfig("digits_mlp_sgd_slow", "digits", "mlp", 64, 0.002, 100, (32,), "sgd", 0.0,
                shape="slow convergence (plain SGD, small learning rate)"),
    CurveConfig("digits_linear_sgd", "digits", "linear", 64, 0.005, 40,
                shape="linear model, slowly flattening, noisy steps"),
    CurveConfig("breast_cancer_mlp_adam", "breast_cancer", "mlp", 16, 1e-3, 80, (16,), "adam",
                shape="binary task, small batches, noisy steps"),
    CurveConfig("breast_cancer_linear_sgd", "breast_cancer", "linear", 8, 0.001, 50,
                shape="binary linear model, very noisy per-step losses"),
    CurveConfig("wine_mlp_sgd", "wine", "mlp", 8, 0.01, 100, (16,), "sgd", 0.9,
                shape="tiny dataset, fast drop then long tail"),
    CurveConfig("wine_linear_sgd", "wine", "linear", 16, 0.01, 100,
                shape="linear model, fast drop, noisy per-epoch losses"),
    CurveConfig("iris_mlp_adam", "iris", "mlp", 16, 0.01, 150, (8,), "adam",
                shape="high learning rate: fast drop, then a noisy plateau with spikes"),
    CurveConfig("iris_mlp_sgd_slow", "iris", "mlp", 10, 0.005, 200, (10,), "sgd", 0.0,
                shape="slow convergence, long curve"),
)  # fmt: skip
"""Named training configurations (fast/slow convergence, smooth/noisy per-step losses)."""


# ------------------------------------------------------------------------------------ training


def _config(name: str) -> CurveConfig:
    if not isinstance(name, str) or name not in CURVE_CONFIGS:
        raise ValueError(f"config_name must be one of {sorted(CURVE_CONFIGS)}, got {name!r}")
    return CURVE_CONFIGS[name]


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def _dataset(name: str) -> tuple[np.ndarray, np.ndarray]:
    from sklearn import datasets
    from sklearn.preprocessing import StandardScaler

    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    X = StandardScaler().fit_transform(np.asarray(X, dtype=float))
    return X, np.asarray(y)


def _estimator(cfg: CurveConfig, random_state: int):
    if cfg.estimator == "mlp":
        from sklearn.neural_network import MLPClassifier

        return MLPClassifier(
            hidden_layer_sizes=cfg.hidden,
            solver=cfg.solver,
            batch_size=cfg.batch_size,
            learning_rate="constant",
            learning_rate_init=cfg.learning_rate,
            momentum=cfg.momentum,
            alpha=cfg.alpha,
            shuffle=False,
            random_state=random_state,
        )
    from sklearn.linear_model import SGDClassifier

    return SGDClassifier(
        loss="log_loss",
        learning_rate="constant",
        eta0=cfg.learning_rate,
        alpha=cfg.alpha,
        shuffle=False,
        random_state=random_state,
    )


def _batch_log_loss(proba: np.ndarray, y_idx: np.ndarray) -> float:
    """Mean log-loss of the true classes (probabilities clipped at machine epsilon, as sklearn)."""
    eps = np.finfo(proba.dtype).eps
    p = np.clip(proba[np.arange(len(y_idx)), y_idx], eps, 1.0)
    return float(-np.mean(numerics.log(p)))


def train_curve(config_name: str, seed: int = 0, *, epochs: int | None = None) -> pd.DataFrame:
    """Train one configuration for real and return its per-step training loss.

    Parameters
    ----------
    config_name : str
        Key of :data:`CURVE_CONFIGS`.
    seed : int, default 0
        Seed of the permutation stream and of the estimator's ``random_state``.
    epochs : int, optional
        Number of epochs to train (default: the configuration's). A shorter run is a
        prefix of the full curve, equal number for number (training is sequential), which lets
        tests regenerate stored data cheaply.

    Returns
    -------
    pandas.DataFrame
        One row per step: ``config`` (str), ``epoch`` (int, from 1), ``step`` (int, global, from
        1), ``loss`` (float, mini-batch log-loss before the update).

    Raises
    ------
    ValueError
        Unknown configuration name, bad seed or ``epochs``, or a non-finite loss (a diverging
        run).
    """
    from threadpoolctl import threadpool_limits

    cfg = _config(config_name)
    seed = _check_seed(seed)
    n_epochs = cfg.epochs
    if epochs is not None:
        if isinstance(epochs, bool) or not isinstance(epochs, (int, np.integer)) or epochs < 1:
            raise ValueError(f"epochs must be an integer >= 1, got {epochs!r}")
        n_epochs = int(epochs)
    X, y = _dataset(cfg.dataset)
    classes = np.unique(y)
    y_idx = np.searchsorted(classes, y)
    perm_ss, model_ss = np.random.SeedSequence(seed).spawn(2)
    rng = np.random.default_rng(perm_ss)
    est = _estimator(cfg, int(model_ss.generate_state(1)[0]))
    n = len(y)
    losses: list[float] = []
    epochs: list[int] = []
    with threadpool_limits(limits=1):
        for epoch in range(1, n_epochs + 1):
            order = rng.permutation(n)
            for start in range(0, n, cfg.batch_size):
                b = order[start : start + cfg.batch_size]
                first = not losses
                kwargs = {"classes": classes} if first else {}
                if cfg.estimator == "mlp":
                    est.set_params(batch_size=len(b))  # exactly one step per partial_fit
                    est.partial_fit(X[b], y[b], **kwargs)
                    loss = float(est.loss_)
                else:
                    if first:
                        loss = math.log(len(classes))  # zero weights: uniform probabilities
                    else:
                        loss = _batch_log_loss(est.predict_proba(X[b]), y_idx[b])
                    est.partial_fit(X[b], y[b], **kwargs)
                if not math.isfinite(loss):
                    raise ValueError(
                        f"{cfg.name}: loss at epoch {epoch}, step {len(losses) + 1} is {loss!r} "
                        "(the run diverged; lower the learning rate)"
                    )
                losses.append(loss)
                epochs.append(epoch)
    return pd.DataFrame(
        {
            "config": pd.Series([cfg.name] * len(losses), dtype=object),
            "epoch": np.asarray(epochs, dtype=np.int64),
            "step": np.arange(1, len(losses) + 1, dtype=np.int64),
            "loss": np.asarray(losses, dtype=float),
        }
    )


def per_epoch(df: pd.DataFrame) -> pd.DataFrame:
    """Average per-step losses per configuration and epoch.

    Parameters
    ----------
    df : pandas.DataFrame
        Per-step frame with columns ``config, epoch, step, loss`` (from :func:`train_curve` or
        :func:`load_curves`).

    Returns
    -------
    pandas.DataFrame
        Columns ``config, epoch, loss, n_steps``, sorted by config (order of first appearance)
        and epoch; ``loss`` is the mean step loss of the epoch.

    Raises
    ------
    ValueError
        A required column is missing.
    """
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"per_epoch: missing column(s) {missing}; got {list(df.columns)}")
    out = df.groupby(["config", "epoch"], sort=False)["loss"].agg(loss="mean", n_steps="size").reset_index()
    order = {c: i for i, c in enumerate(pd.unique(df["config"]))}
    out = out.sort_values(["config", "epoch"], key=lambda s: s.map(order) if s.name == "config" else s)
    return out.reset_index(drop=True)


# ------------------------------------------------------------------------------------- storage


def _csv_bytes(df: pd.DataFrame) -> bytes:
    buf = io.StringIO()
    df.to_csv(buf, index=False, lineterminator="\n", float_format=lambda x: repr(float(x)))
    return buf.getvalue().encode("ascii")


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; data files are meant to be shared
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _versions() -> dict[str, str]:
    import scipy
    import sklearn

    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "pandas": pd.__version__,
        "scikit-learn": sklearn.__version__,
    }


def generate_all(
    out_dir: str | os.PathLike,
    seed: int = 0,
    configs: Sequence[str] | None = None,
    *,
    progress: bool = False,
) -> Path:
    """Train every configuration and write one CSV per configuration plus ``manifest.json``.

    Every file is written to a temporary file in ``out_dir`` and moved into place with
    :func:`os.replace`; the manifest is written last, so an interrupted run never leaves a
    manifest that points at half-written data.

    Parameters
    ----------
    out_dir : path-like
        Target folder (created if missing).
    seed : int, default 0
        Passed to :func:`train_curve` for every configuration.
    configs : sequence of str, optional
        Subset of :data:`CURVE_CONFIGS` (default: all, in registry order).
    progress : bool, default False
        Show a tqdm progress bar.

    Returns
    -------
    pathlib.Path
        Path of the written manifest.

    Raises
    ------
    ValueError
        Unknown configuration name or bad seed.
    """
    seed = _check_seed(seed)
    names = list(CURVE_CONFIGS) if configs is None else list(configs)
    for name in names:
        _config(name)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    entries = []
    it = names
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(names, desc="loss curves")
    for name in it:
        df = train_curve(name, seed)
        data = _csv_bytes(df)
        _atomic_write(out / f"{name}.csv", data)
        ep = per_epoch(df)
        entries.append(
            {
                "name": name,
                "file": f"{name}.csv",
                "sha256": hashlib.sha256(data).hexdigest(),
                "bytes": len(data),
                "rows": len(df),
                "epochs": int(ep["epoch"].max()),
                "steps_per_epoch": int(ep["n_steps"].iloc[0]),
                "first_epoch_loss": float(ep["loss"].iloc[0]),
                "final_epoch_loss": float(ep["loss"].iloc[-1]),
                "params": CURVE_CONFIGS[name].params(),
            }
        )
    manifest = {
        "generator": "dlsched.optimus.curves",
        "command": f"python -m dlsched.optimus.curves --out <dir> --seed {seed}",
        "seed": seed,
        "columns": list(COLUMNS),
        "loss": "mean log-loss of the mini-batch before the update (see dlsched.optimus.curves)",
        "versions": _versions(),
        "configs": entries,
    }
    path = out / MANIFEST
    _atomic_write(path, (json.dumps(manifest, indent=2, sort_keys=False) + "\n").encode("ascii"))
    return path


def default_data_dir() -> Path:
    """``data/loss_curves`` of the repository the package is installed from (editable install)."""
    return Path(__file__).resolve().parents[2] / "data" / "loss_curves"


def load_manifest(data_dir: str | os.PathLike | None = None) -> dict:
    """Read ``manifest.json`` of a loss-curve folder.

    Parameters
    ----------
    data_dir : path-like, optional
        Folder written by :func:`generate_all` (default: :func:`default_data_dir`).

    Returns
    -------
    dict
        The manifest.

    Raises
    ------
    FileNotFoundError
        The folder or its manifest does not exist.
    """
    d = default_data_dir() if data_dir is None else Path(data_dir)
    path = d / MANIFEST
    if not path.is_file():
        raise FileNotFoundError(
            f"no loss-curve manifest at {path}; regenerate the curves with "
            f"`python -m dlsched.optimus.curves --out {d}` or pass data_dir"
        )
    return json.loads(path.read_text())


def load_curves(
    data_dir: str | os.PathLike | None = None,
    configs: Sequence[str] | None = None,
    *,
    verify: bool = True,
) -> pd.DataFrame:
    """Read the committed per-step loss curves.

    Parameters
    ----------
    data_dir : path-like, optional
        Folder written by :func:`generate_all` (default: the repository's ``data/loss_curves``).
    configs : sequence of str, optional
        Subset of the manifest's configurations (default: all, in manifest order).
    verify : bool, default True
        Check every CSV against the manifest's sha256.

    Returns
    -------
    pandas.DataFrame
        Columns ``config, epoch, step, loss`` (floats parsed exactly, so the numbers equal
        :func:`train_curve`'s bit for bit).

    Raises
    ------
    FileNotFoundError
        Missing folder, manifest or CSV.
    ValueError
        Unknown configuration or checksum mismatch.
    """
    d = default_data_dir() if data_dir is None else Path(data_dir)
    manifest = load_manifest(d)
    entries = {e["name"]: e for e in manifest["configs"]}
    names = list(entries) if configs is None else list(configs)
    frames = []
    for name in names:
        if name not in entries:
            raise ValueError(f"configs: {name!r} is not in {d / MANIFEST} (has {sorted(entries)})")
        path = d / entries[name]["file"]
        if not path.is_file():
            raise FileNotFoundError(f"loss curve {path} listed in the manifest is missing")
        data = path.read_bytes()
        if verify and hashlib.sha256(data).hexdigest() != entries[name]["sha256"]:
            raise ValueError(f"{path}: sha256 does not match the manifest (file changed?)")
        # losses are parsed by Python's float() (correctly rounded on every pandas version)
        df = pd.read_csv(
            io.BytesIO(data), dtype={"config": object, "epoch": np.int64, "step": np.int64, "loss": object}
        )
        df["loss"] = np.fromiter((float(v) for v in df["loss"]), dtype=np.float64, count=len(df))
        frames.append(df[list(COLUMNS)])
    if not frames:
        return pd.DataFrame(
            {c: pd.Series(dtype=t) for c, t in zip(COLUMNS, (object, "int64", "int64", float), strict=True)}
        )
    return pd.concat(frames, ignore_index=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``python -m dlsched.optimus.curves --out data/loss_curves [--seed 0]``.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        Exit status (0).
    """
    ap = argparse.ArgumentParser(prog="python -m dlsched.optimus.curves", description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(default_data_dir()), help="output folder (default: %(default)s)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--config",
        action="append",
        choices=sorted(CURVE_CONFIGS),
        help="only these (repeatable; the manifest then lists only these)",
    )
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    path = generate_all(args.out, args.seed, args.config, progress=not args.quiet)
    manifest = json.loads(path.read_text())
    for e in manifest["configs"]:
        print(f"{e['name']:26s} {e['rows']:6d} steps  final epoch loss {e['final_epoch_loss']:.4f}")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

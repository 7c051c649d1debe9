"""Optimus explorer: the loss fit of Eq. (1) and the speed function of Eq. (3)/(4) as samples arrive.

Notebook ``20_optimus_models`` displays :func:`fits_as_samples_arrive` (see :mod:`dlsched.explore`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dlsched import plotting
from dlsched.core.jobs import OptimusModel
from dlsched.explore import Control, Explorer
from dlsched.optimus import analysis
from dlsched.optimus.fitting import LossFit, sample_speeds

__all__ = ["fits_as_samples_arrive"]


def fits_as_samples_arrive(
    epochs: pd.DataFrame,
    config: str,
    model: OptimusModel,
    *,
    seed: int = 0,
    noise: float = 0.05,
    max_tasks: int = 40,
    fixed_w: int = 8,
) -> Explorer:
    """Sliders over the two online fits of Optimus (Sec. 3.1-3.2).

    Controls: ``fraction`` (share of curve ``config``'s epochs seen so far; Eq. (1) is refitted by
    NNLS on that prefix, :func:`analysis.fitted_loss_curves`) and ``n_pairs`` (how many distinct
    (p, w) configurations of ``model`` have been measured, drawn at random from the
    ``max_tasks``-container candidates with ``noise`` relative error; Eq. (3)/(4) is refitted by
    NNLS, :func:`analysis.fit_measured`). The draw is the same for the same ``seed``: a larger
    ``n_pairs`` extends the smaller sample.

    Readout: the fitted :math:`\\beta` and the loss it predicts at the last recorded epoch, and the
    speed function's mean relative error over all candidate pairs (against the noise-free truth).
    """
    candidates = analysis.candidate_pairs(max_tasks)
    order = np.random.default_rng(seed).permutation(len(candidates))
    measured = sample_speeds(model, [candidates[i] for i in order], np.random.default_rng(seed + 1), noise)
    truth = sample_speeds(model, candidates, np.random.default_rng(0), 0.0)
    loss = epochs.loc[epochs["config"] == config, ["epoch", "loss"]].groupby("epoch")["loss"].mean()
    if loss.empty:
        known = sorted(epochs["config"].unique())
        raise ValueError(f"config={config!r} is not a curve of epochs (configs: {known})")
    n_min = 5 if model.mode == "sync" else 4

    def render(fraction: float, n_pairs: int):
        line = analysis.fitted_loss_curves(epochs, config, [fraction])
        beta = analysis.fit_betas(epochs, [config], [fraction]).iloc[0]
        fit = analysis.fit_measured(measured.iloc[:n_pairs], model)
        predicted = fit.predict(truth["p"].to_numpy(float), truth["w"].to_numpy(float))
        error = np.abs(predicted / truth["speed"].to_numpy(float) - 1.0)
        fig, axes = plotting.subplots(1, 2, figsize=(11, 3.8))
        seen = int(beta["n_points"])
        axes[0].scatter(loss.index, loss / loss.max(), s=10, color="0.7", label="later epochs")
        axes[0].scatter(loss.index[:seen], loss.iloc[:seen] / loss.max(), s=12, color="0.2", label="seen")
        axes[0].plot(line["epoch"], line["norm_loss"], color="tab:red", label="Eq. (1) fit")
        axes[0].set(xlabel="epoch", ylabel="normalised loss", title=f"{config}: first {seen} epochs")
        axes[0].legend()
        p = np.arange(1, max_tasks - fixed_w + 1)
        on = truth[truth["w"] == fixed_w]
        axes[1].plot(on["p"], on["speed"], color="0.3", label="truth")
        axes[1].plot(p, fit.predict(p.astype(float), np.full(p.size, float(fixed_w))), color="tab:red",
                     linestyle="--", label=f"fit on {n_pairs} pairs")
        axes[1].set(xlabel="parameter servers p", ylabel="speed (steps per unit time)",
                    title=f"{model.mode} speed, w = {fixed_w}")
        axes[1].legend()
        last = float(loss.index.max())
        pred = LossFit(beta["beta0"], beta["beta1"], beta["beta2"], rss=beta["rss"], n_points=seen,
                       normalizer=beta["normalizer"]).predict(last)
        text = (f"loss: first {seen} of {loss.size} epochs, beta = ({beta['beta0']:.3f}, "
                f"{beta['beta1']:.3f}, {beta['beta2']:.3f}); predicted loss at epoch {last:.0f} = "
                f"{pred:.4g} (recorded {float(loss.iloc[-1]):.4g})\nspeed: {n_pairs} pairs, mean error "
                f"over {len(candidates)} pairs = {100 * float(error.mean()):.2f} %")
        return fig, text

    controls = [
        Control("fraction", "share of epochs seen", 0.05, 1.0, 0.05, 0.1),
        Control("n_pairs", "(p, w) pairs measured", n_min, 60, 1, 10, integer=True),
    ]
    return Explorer(f"Optimus: loss fit (Eq. 1) and {model.mode} speed fit (Eq. 3/4) as samples arrive",
                    controls, render)

"""SpeCon explorer: the containers' categories (Algorithm 1) as alpha and the interval change.

Notebook ``50_specon_model`` displays :func:`categories` (see :mod:`dlsched.explore`).
"""

from __future__ import annotations

import pandas as pd

from dlsched import plotting
from dlsched.core.simulator import Workload, simulate
from dlsched.explore import Control, Explorer
from dlsched.specon import explain

__all__ = ["categories"]


def categories(workload: Workload, *, seed: int = 0, alpha: float = 0.01, interval: float = 30.0) -> Explorer:
    """Sliders over SpeCon's two thresholds on one workload.

    Controls: ``alpha`` (Alg. 1's gain threshold) and ``interval`` (seconds between two Alg. 1
    ticks of a container); defaults ``alpha`` and ``interval``. Each change simulates SpeCon
    (:class:`explain.GainRecorder`, i.e. SpeCon itself with its gains logged) on ``workload``
    with ``seed``.

    Readout: Alg. 1 ticks, ticks with gain :math:`G < \\alpha`, the category changes (PC: progressing,
    WC: watching, CC: converged), migrations and the mean JCT.
    """

    def render(alpha: float, interval: float):
        policy = explain.GainRecorder(alpha=alpha, interval=interval)
        result = simulate(workload, policy, seed=seed)
        gains = pd.DataFrame(policy.gains, columns=["slot", "job", "gain"])
        trans = pd.DataFrame(policy.transitions, columns=["slot", "job", "from", "to"])
        fig, axes = plotting.subplots(1, 2, figsize=(11, 3.8), gridspec_kw={"width_ratios": [2, 1]})
        for _, part in gains.groupby("job"):
            axes[0].plot(part["slot"], part["gain"], color="0.4", linewidth=0.7)
        axes[0].axhline(alpha, color="tab:red", linestyle="--", label=f"alpha = {alpha:g}")
        axes[0].set(yscale="symlog", xlabel="slot", ylabel="gain G (symlog)",
                    title="gain of each container per tick")
        axes[0].legend()
        counts = trans.groupby(["from", "to"]).size() if len(trans) else pd.Series(dtype=int)
        labels = [f"{a}->{b}" for a, b in counts.index]
        axes[1].bar(labels or ["none"], counts.to_list() or [0], color="tab:blue")
        axes[1].set(ylabel="category changes", title=f"interval {interval:g} s")
        text = (f"alpha = {alpha:g}, interval_s = {interval:g}: {len(gains)} ticks, "
                f"{int((gains['gain'] < alpha).sum())} with G < alpha; changes "
                f"{ {k: int(v) for k, v in zip(labels, counts.to_list(), strict=True)} }; "
                f"migrations {int(result.jobs['migrations'].sum())}; mean jct_s = "
                f"{float(result.jobs['jct_seconds'].mean()):.1f} (simulated)")
        return fig, text

    controls = [
        Control("alpha", "alpha", 0.001, 0.2, 0.001, float(alpha)),
        Control("interval", "interval (s)", 10.0, 120.0, 5.0, float(interval)),
    ]
    return Explorer("SpeCon: categories as alpha and the interval change (Algorithm 1)", controls, render)

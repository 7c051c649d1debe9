"""OASiS explorer: the price functions (22) and one job's payoff curve (27) as U, L and load change.

Notebook ``10_oasis_model`` displays :func:`prices_and_payoff` (see :mod:`dlsched.explore`).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from dlsched import plotting
from dlsched.core.jobs import JobSpec
from dlsched.core.simulator import Workload
from dlsched.explore import Control, Explorer
from dlsched.oasis import explain
from dlsched.oasis.policy import OASiS, PriceParameters, price_parameters

__all__ = ["prices_and_payoff", "shifted"]


def shifted(params: PriceParameters, log10_u: float = 0.0, log10_l: float = 0.0) -> PriceParameters:
    """``U`` multiplied by ``10**log10_u`` and ``L`` by ``10**log10_l``; ``U`` floored at ``L``
    ((22) needs :math:`L \\le U`)."""
    ku, kl = log10_u * math.log(10.0), log10_l * math.log(10.0)
    l1, l2 = params.log_l1 + kl, params.log_l2 + kl
    return replace(params, log_l1=l1, log_l2=l2, log_u1=np.maximum(params.log_u1 + ku, l1),
                   log_u2=np.maximum(params.log_u2 + ku, l2))


def prices_and_payoff(workload: Workload, spec: JobSpec, *, max_log10_l: float | None = None) -> Explorer:
    """Sliders over (22) and Algorithm 2 for one job.

    Controls: ``log10_u`` (U times 10^x, Fig. 6's mis-estimation), ``log10_l`` (L times 10^x, up
    to ``max_log10_l``, default: the largest shift that keeps L at most max U), and ``load`` (every
    server filled to this share of its capacity in every slot, :meth:`OASiS.preload`). Each change
    re-prices the empty horizon and reruns Algorithm 2 (``search(spec, prune=False)``) for
    ``spec`` arriving at ``spec.arrival``.

    Readout: the price at the load relative to L, the chosen completion slot and payoff
    :math:`\\mu_i` (admitted iff > 0, Algorithm 1).
    """
    base = price_parameters(workload)
    resources = workload.cluster.resources
    if max_log10_l is None:
        gap = float(np.max(base.log_u1) - base.log_l1) / math.log(10.0)
        max_log10_l = max(1.0, math.floor(gap))

    def render(log10_u: float, log10_l: float, load: float):
        params = shifted(base, log10_u, log10_l)
        policy = OASiS(params).prepare(workload.cluster, workload.horizon).preload(load)
        best = policy.search(spec, prune=False)
        curve = explain.payoff_curve(spec, best)
        prices = explain.price_curves(params, resources)
        fig, axes = plotting.subplots(1, 2, figsize=(11, 3.8))
        worker = prices[prices["pool"] == prices["pool"].iloc[0]]
        plotting.draw("lineplot", worker, x="utilisation", y="log_price", hue="resource", ax=axes[0])
        axes[0].axvline(load, color="tab:red", linestyle="--")
        axes[0].set(xlabel="utilisation $g/c$", ylabel="ln price",
                    title=f"worker prices (22), load {load:.2f}")
        ok = curve[curve["feasible"]]
        if len(ok):
            plotting.draw("lineplot", ok, x="completion", y="payoff", marker="o", ax=axes[1])
        axes[1].axhline(0.0, color="0.5", linestyle=":")
        axes[1].set(xlabel="completion slot $\\hat t_i$", ylabel="payoff $f_i$ - cost",
                    title=f"job {spec.job_id}: payoff (27)")
        log_p = float(np.max(params.worker_price.log_price(load, 1.0)))
        if best.completion is None:
            verdict = "no feasible schedule: rejected"
        else:
            verdict = (f"t_hat = {best.completion}, payoff mu = {best.payoff:.4g} -> "
                       + ("admitted" if best.payoff > 0 else "rejected"))
        text = (f"U x 10^{log10_u:g}, L x 10^{log10_l:g}, load {load:.2f}: "
                f"max ln price at the load = {log_p:.3g} (ln L = {params.log_l1:.3g})\n{verdict}")
        return fig, text

    controls = [
        Control("log10_u", "log10 (U factor)", -3.0, 3.0, 0.5, 0.0),
        Control("log10_l", "log10 (L factor)", 0.0, float(max_log10_l), 1.0, 0.0),
        Control("load", "load g/c", 0.0, 0.95, 0.05, 0.5),
    ]
    return Explorer(f"OASiS: prices (22) and job {spec.job_id}'s payoff (27)", controls, render)

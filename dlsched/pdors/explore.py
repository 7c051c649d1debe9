"""PD-ORS explorer: Algorithm 4's internal vs external cost as the external bandwidth changes.

Notebook ``30_pdors_model`` displays :func:`internal_vs_external` (see :mod:`dlsched.explore`).
"""

from __future__ import annotations

import math

import numpy as np

from dlsched import plotting
from dlsched.core.jobs import JobSpec
from dlsched.core.simulator import Workload
from dlsched.explore import Control, Explorer
from dlsched.pdors import explain
from dlsched.pdors.model import B_EXTERNAL_GBPS, B_INTERNAL_GBPS
from dlsched.pdors.policy import PDORS

__all__ = ["internal_vs_external"]


def _cost(x: float) -> str:
    return f"{x:.3g}" if math.isfinite(x) else "infeasible"


def internal_vs_external(workload: Workload, spec: JobSpec, T: int, *, seed: int = 0,
                         max_units: int = 40) -> Explorer:
    """Sliders over Algorithm 4 (one slot, empty cluster) for job ``spec``.

    Controls: ``b_external`` (Gbps, the external link :math:`b^{(e)}`, at most the internal bus
    :math:`b^{(i)}`; :func:`explain.with_external_bandwidth` rebuilds the job) and ``v`` (units of
    work in the slot to read out). Each change prices a fresh PD-ORS on an empty cluster (every
    price :math:`L`), with the random rounding stream seeded by ``seed``, and evaluates both
    branches at every level (:func:`explain.bandwidth_sweep`).

    Readout: at level ``v``, the internal cost, the LP relaxation, the rounded external cost and
    the branch Algorithm 4 picks.
    """
    slot = int(spec.arrival)
    b_max = float(min(100.0, math.floor(B_INTERNAL_GBPS)))

    def render(b_external: float, v: int):
        policy = PDORS.from_workload(workload).prepare(workload.cluster, T, np.random.default_rng(seed))
        sweep = explain.bandwidth_sweep(policy, spec, slot, [b_external], b_reference_gbps=B_EXTERNAL_GBPS)
        sweep = sweep[sweep["v"] <= max_units]
        fig, ax = plotting.subplots(1, 1, figsize=(7.5, 3.8))
        ax.plot(sweep["v"], sweep["internal"], color="black", label="internal branch")
        ax.plot(sweep["v"], sweep["lp"], color="tab:blue", linestyle="--", label="external, LP relaxation")
        ax.scatter(sweep["v"], sweep["external"], color="tab:blue", s=14, label="external, rounded")
        ax.axvline(v, color="tab:red", linestyle=":")
        ax.set(yscale="log", xlabel="units of work in the slot v", ylabel="cost (log scale)",
               title=f"job {spec.job_id}, b(e) = {b_external:g} Gbps, b(i) = {B_INTERNAL_GBPS:g} Gbps")
        ax.legend()
        row = sweep[sweep["v"] == v]
        if row.empty:
            text = f"b(e) = {b_external:g} Gbps: level v = {v} is beyond this job's levels"
        else:
            r = row.iloc[0]
            branch = r["branch"] if isinstance(r["branch"], str) else "none (neither is feasible)"
            text = (f"b(e) = {b_external:g} Gbps, v = {v}: internal {_cost(r['internal'])}, "
                    f"LP {_cost(r['lp'])}, rounded external {_cost(r['external'])} -> {branch}")
        return fig, text

    controls = [
        Control("b_external", "b(e) Gbps", 1.0, b_max, 1.0, float(B_EXTERNAL_GBPS)),
        Control("v", "units v", 1, max_units, 1, 4, integer=True),
    ]
    return Explorer(f"PD-ORS: internal vs external cost of job {spec.job_id} (Algorithm 4)", controls, render)

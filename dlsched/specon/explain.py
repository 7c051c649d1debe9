r"""Small computations behind notebook ``50_specon_model`` (SpeCon's model, explained).

Y. Mao et al., "Speculative Container Scheduling for Deep Learning Applications in a Kubernetes
Cluster", arXiv:2010.11307; reading ``shared/spec/specon.md``. Nothing here changes the model
or the policy: :func:`share_table` tabulates the CPU-sharing rule (spec 3.3),
:func:`normalised_curve` gives Fig. 1's normalised evaluation curve (spec 7.4), and
:class:`GainRecorder` is :class:`~dlsched.specon.policy.SpeCon` that also records every gain
:math:`G_{w_i,c_j}(t_m)` of Algorithm 1 l. 5 it computes, so a notebook can show *why* no
container ever became slow (spec 4, Alg. 1 l. 6 needs :math:`G < \alpha`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dlsched.core.jobs import RateContext, Workload
from dlsched.core.schedule import Placement, server_usage
from dlsched.specon.model import curve_losses
from dlsched.specon.policy import SpeCon

__all__ = ["GainRecorder", "engine_cores", "fig1_statistic", "normalised_curve", "share_table"]


def share_table(
    max_containers: int, *, cores: float = 16.0, cpu_usable: float = 0.8, cpu_cap: float = 4.0
) -> pd.DataFrame:
    r"""Cores per container vs containers :math:`n` on a node, both readings of spec 3.3.

    ``equal``: :math:`C^{use}/n`; ``cap``: :math:`\min(\kappa, C^{use}/n)`.

    Parameters
    ----------
    max_containers : int
        Largest :math:`n` (>= 1).
    cores, cpu_usable, cpu_cap : float
        :math:`C`, :math:`u`, :math:`\kappa`.

    Returns
    -------
    pandas.DataFrame
        Columns ``containers``, ``equal``, ``cap``, ``idle_cap`` (usable cores left idle under cap).

    Raises
    ------
    ValueError
        ``max_containers`` < 1 or a non-positive number.
    """
    n_ok = isinstance(max_containers, (int, np.integer)) and not isinstance(max_containers, bool)
    if not n_ok or max_containers < 1:
        raise ValueError(f"share_table: max_containers must be an integer >= 1, got {max_containers!r}")
    for name, v in (("cores", cores), ("cpu_usable", cpu_usable), ("cpu_cap", cpu_cap)):
        if not np.isfinite(v) or v <= 0:
            raise ValueError(f"share_table: {name} must be a finite number > 0, got {v!r}")
    n = np.arange(1, int(max_containers) + 1)
    usable = cpu_usable * cores
    equal = usable / n
    cap = np.minimum(cpu_cap, equal)
    return pd.DataFrame({"containers": n, "equal": equal, "cap": cap, "idle_cap": usable - n * cap})


def normalised_curve(curve: str, window: int = 1) -> pd.DataFrame:
    r"""Fig. 1's statistic: loss reduction reached vs fraction of training, per step (spec 7.4).

    :math:`E_n` is the mean loss of steps :math:`\max(1, n-w+1)..n` (``window`` = :math:`w`, as
    :meth:`~dlsched.specon.model.SpeconJob.evaluation`); ``progress`` = n / S and
    ``normalised`` = :math:`(E_1 - E_n)/(E_1 - \min E)` (0 at the start, 1 at the best value).

    Parameters
    ----------
    curve : str
        A loss curve of :data:`~dlsched.specon.model.TYPE_CURVES`.
    window : int
        Steps averaged (1: per step, the curve as logged).

    Raises
    ------
    ValueError
        Unknown curve (from :func:`~dlsched.specon.model.curve_losses`) or ``window`` < 1.
    """
    if isinstance(window, bool) or not isinstance(window, (int, np.integer)) or window < 1:
        raise ValueError(f"normalised_curve: window must be an integer >= 1, got {window!r}")
    loss = pd.Series(curve_losses(curve)).rolling(int(window), min_periods=1).mean().to_numpy()
    span = float(loss[0] - loss.min()) or 1.0
    steps = np.arange(1, len(loss) + 1)
    return pd.DataFrame({"step": steps, "progress": steps / len(loss), "normalised": (loss[0] - loss) / span})


def fig1_statistic(curves: pd.DataFrame, at: float) -> pd.DataFrame:
    """Share of the loss reduction reached at training fraction ``at`` (Fig. 1, l. 54), per type.

    Parameters
    ----------
    curves : pandas.DataFrame
        Rows of :func:`normalised_curve` with a ``type`` column.
    at : float
        Fraction of training in (0, 1].

    Returns
    -------
    pandas.DataFrame
        Columns ``type``, ``ours`` (the normalised value at the last step with progress <= ``at``),
        types in order of first appearance.

    Raises
    ------
    ValueError
        ``at`` outside (0, 1].
    """
    if not (0 < at <= 1):
        raise ValueError(f"fig1_statistic: at must be in (0, 1], got {at!r}")
    out = []
    for k in pd.unique(curves["type"]):
        c = curves[(curves["type"] == k) & (curves["progress"] <= at + 1e-12)]
        out.append({"type": k, "ours": float(c["normalised"].iloc[-1]) if len(c) else 0.0})
    return pd.DataFrame(out)


def engine_cores(workload: Workload, max_containers: int) -> list[float]:
    """Cores the engine's job model gives job 0 when jobs ``0..n-1`` all sit on server 0.

    One value per ``n = 1..max_containers`` (:meth:`SpeconModel.cores` with the engine's usage).

    Raises
    ------
    ValueError
        ``max_containers`` outside 1..number of jobs.
    """
    n_jobs = len(workload.jobs)
    if isinstance(max_containers, bool) or not isinstance(max_containers, (int, np.integer)) or not (
        1 <= max_containers <= n_jobs
    ):
        raise ValueError(
            f"engine_cores: max_containers must be an integer in 1..{n_jobs}, got {max_containers!r}"
        )
    cl = workload.cluster
    out = []
    for n in range(1, int(max_containers) + 1):
        specs = {j.job_id: j for j in workload.jobs[:n]}
        placement = {j: Placement.of({0: 1}) for j in specs}
        ctx = RateContext(cl, server_usage(cl, specs, placement))
        spec = specs[workload.jobs[0].job_id]
        out.append(float(spec.model.cores(spec, placement[spec.job_id], ctx)))
    return out


class GainRecorder(SpeCon):
    """:class:`SpeCon` that appends ``{"slot", "job", "gain"}`` to :attr:`gains` at every Alg. 1 tick.

    Behaviour is SpeCon's exactly (the override calls the parent and only reads its state).
    """

    def reset(self, cluster, rng) -> None:
        """SpeCon's reset, plus an empty gain log."""
        super().reset(cluster, rng)
        self.gains: list[dict] = []

    def _monitor(self, t, view, j):
        request = super()._monitor(t, view, j)
        self.gains.append({"slot": int(t), "job": int(j), "gain": float(self._state[j].g_prev)})
        return request

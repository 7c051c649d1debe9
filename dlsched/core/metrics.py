"""Pure functions of a simulation result: utility, JCT, makespan, timeliness, utilization.

Each function accepts a :class:`~dlsched.core.simulator.SimulationResult` or, where it only
needs the job table, the ``jobs`` DataFrame itself.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd


def _jobs(result_or_jobs) -> pd.DataFrame:
    return result_or_jobs if isinstance(result_or_jobs, pd.DataFrame) else result_or_jobs.jobs


def total_utility(result) -> float:
    """Sum of realized utilities (OASiS objective (1); unfinished and rejected jobs give 0)."""
    return float(_jobs(result)["utility"].sum())


def finished(result) -> pd.DataFrame:
    """Rows of finished jobs."""
    j = _jobs(result)
    return j[j["status"] == "finished"]


def jct(result, *, seconds: bool = False) -> pd.Series:
    """Job completion times of finished jobs (slots, or seconds), indexed by job id."""
    f = finished(result)
    return f.set_index("job_id")["jct_seconds" if seconds else "jct"]


def mean_jct(result, *, seconds: bool = False) -> float:
    """Average JCT over finished jobs (NaN if none finished)."""
    s = jct(result, seconds=seconds)
    return float(s.mean()) if len(s) else math.nan


def makespan(result, *, seconds: bool = False) -> float:
    """Time from the first arrival to the last completion (Optimus Sec. 6.1); NaN if none finished."""
    j = _jobs(result)
    f = finished(result)
    if f.empty:
        return math.nan
    span = float(f["completion_time"].max() - j["arrival"].min())
    if seconds:
        span *= result.workload.cluster.slot_seconds
    return span


def completion_minus_target(result) -> pd.Series:
    """Actual minus target completion (OASiS Fig. 4) of finished jobs with a target."""
    f = finished(result)
    return f.set_index("job_id")["completion_minus_target"].dropna()


def usage_timeline(result) -> pd.DataFrame:
    """Resources allocated in every simulated slot: columns ``slot`` and one per resource."""
    wl = result.workload
    cluster = wl.cluster
    specs = wl.specs
    end = int(result.end_slot)
    start = int(min((s.arrival for s in wl.jobs), default=0))
    n = max(0, end - start)
    diff = np.zeros((n + 1, len(cluster.resources)))
    vec_cache: dict[tuple[int, str], np.ndarray] = {}
    for j, t, k, _s, role, c in result.runs.itertuples(index=False):
        key = (j, role)
        if key not in vec_cache:
            d = specs[j].worker_demand if role == "worker" else specs[j].ps_demand
            vec_cache[key] = cluster.vector(d)
        a, b = t - start, min(t - start + k, n)
        diff[a] += c * vec_cache[key]
        diff[b] -= c * vec_cache[key]
    used = np.cumsum(diff[:-1], axis=0)
    df = pd.DataFrame(used, columns=list(cluster.resources))
    df.insert(0, "slot", np.arange(start, end))
    return df


def utilization(result) -> pd.DataFrame:
    """Allocated fraction of the cluster's capacity per slot and resource (0..1)."""
    u = usage_timeline(result)
    cap = result.workload.cluster.total_capacity()
    out = u.copy()
    for i, r in enumerate(result.workload.cluster.resources):
        out[r] = u[r] / cap[i] if cap[i] > 0 else np.nan
    return out


def by_group(jobs: pd.DataFrame, by, *, slot_seconds: float) -> pd.DataFrame:
    """Headline numbers per group of a tidy job table (e.g. a sweep's output grouped by policy
    and seed): ``jobs, finished, total_utility, mean_jct_h, makespan_h`` (hours)."""

    def one(g: pd.DataFrame) -> pd.Series:
        f = g[g["status"] == "finished"]
        hours = slot_seconds / 3600.0
        return pd.Series(
            {
                "jobs": len(g),
                "finished": len(f),
                "total_utility": float(g["utility"].sum()),
                "mean_jct_h": float(f["jct"].mean() * hours) if len(f) else math.nan,
                "makespan_h": float((f["completion_time"].max() - g["arrival"].min()) * hours)
                if len(f)
                else math.nan,
            }
        )

    return jobs.groupby(by, sort=True)[list(jobs.columns)].apply(one)


def summary(result) -> dict[str, float]:
    """Headline numbers of a run as a flat dict."""
    j = _jobs(result)
    return {
        "jobs": int(len(j)),
        "finished": int((j["status"] == "finished").sum()),
        "rejected": int((j["status"] == "rejected").sum()),
        "total_utility": total_utility(result),
        "mean_jct": mean_jct(result),
        "makespan": makespan(result),
    }

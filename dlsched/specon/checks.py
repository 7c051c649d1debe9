r"""SpeCon's checkable properties (spec ``specon.md`` section 8) as check functions.

Y. Mao, Y. Fu, W. Zheng, L. Cheng, Q. Liu, D. Tao, "Speculative Container Scheduling for Deep
Learning Applications in a Kubernetes Cluster", arXiv:2010.11307. The paper states no theorem;
what can be checked is what Algorithms 1-3 and the model must satisfy by construction. Every
function returns a :class:`~dlsched.core.claims.Claim` and is called by
``tests/test_specon_checks.py`` and ``notebooks/51_specon_checks``.

==================================  ============================================================
check                               spec section 8 property
==================================  ============================================================
:func:`moves_at_most_once`          8.1: a container moves at most once (``once_total``; twice
                                    with ``once_per_algorithm``), counted three ways: the
                                    policy's ``M``/``R`` events, the engine's ``migrations`` and
                                    host changes in the run table; DS moves nothing
:func:`categories_follow_alg1`      8.2: transitions only PC->WC, WC->CC, WC->PC, CC->PC (never
                                    PC->CC), one per (job, tick) under ``cascade="none"``, each
                                    from the job's current category, none after the mark
:func:`cpu_within_capacity`         8.4: per node and interval :math:`\sum_j s_j \le C^{use}`,
                                    :math:`s_j` recomputed with the job model's ``cores`` from
                                    the run table; no job on two nodes at once
:func:`matches_ds`,                 8.6: :math:`\alpha = 0` gives DS's job table exactly;
:func:`ds_equivalence`              ``migrate=False`` to ``rtol`` (1e-12) in the float columns
:func:`infinite_pause_rejected`     8.6: an infinite migration pause raises ``ValueError``
                                    naming the cause (policy's ``extra_pause`` and the job
                                    model's ``migration_pause``)
:func:`passes_checker`              every run: all jobs finished and the recorded timeline
                                    passes :func:`dlsched.core.schedule.check_timeline`
==================================  ============================================================

:func:`run` simulates with ``check=True`` (the engine's own per-decision checker);
:func:`run_checks` runs all per-run checks on one workload and returns rows for
:func:`dlsched.core.claims.fold`; :func:`category_counts` gives the PC/WC/CC counts over time of
a run (for a figure).

This module imports :mod:`dlsched.core` and the SpeCon wing only.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dlsched.core import claims
from dlsched.core.claims import Claim, claim_row, combine
from dlsched.core.jobs import RateContext, Workload
from dlsched.core.schedule import Placement, ScheduleViolation, check_timeline, server_usage
from dlsched.core.simulator import SimulationResult, simulate
from dlsched.specon.model import specon_workload
from dlsched.specon.policy import K8sDefault, SpeCon

__all__ = [
    "ALLOWED_TRANSITIONS",
    "FLOAT_COLUMNS",
    "categories_follow_alg1",
    "category_counts",
    "combine",
    "cpu_shares",
    "cpu_within_capacity",
    "ds_equivalence",
    "fold",
    "host_changes",
    "infinite_pause_rejected",
    "matches_ds",
    "moves_at_most_once",
    "passes_checker",
    "run",
    "run_checks",
    "workload",
]

ALLOWED_TRANSITIONS: frozenset[tuple[str, str]] = frozenset(
    {("PC", "WC"), ("WC", "CC"), ("WC", "PC"), ("CC", "PC")}
)
"""Category changes Algorithm 1 allows (l. 7-12 with [T] A1, l. 19-22); ``cascade="full"`` may
also chain them within one tick."""

FLOAT_COLUMNS: tuple[str, ...] = ("completion_time", "jct", "jct_seconds", "work_done")
"""Job-table columns compared to ``rtol`` when ``migrate=False`` (extra wake-ups split the
engine's progress sums differently); all other columns are compared exactly."""


# ----------------------------------------------------------------------------------- runs


def workload(seed: int, *, schedule: str = "random", **params) -> Workload:
    """The paper's workload ``specon`` (:func:`~dlsched.specon.model.specon_workload`) for ``seed``."""
    return specon_workload(np.random.default_rng(seed), schedule=schedule, **params)


def run(wl: Workload, policy=None, **params) -> tuple[SimulationResult, object]:
    """Simulate ``policy`` (default ``SpeCon(**params)``) on ``wl`` with the engine's checker on.

    Returns the result and the policy (whose ``events`` / ``transitions`` the checks read).
    """
    pol = SpeCon(**params) if policy is None else policy
    return simulate(wl, pol, check=True), pol


def _move_limit(policy) -> int:
    if not isinstance(policy, SpeCon):
        return 0  # DS moves nothing (l. 400)
    return 2 if policy.move_limit == "once_per_algorithm" else 1


# ----------------------------------------------------------------------------- 8.1 moves


def host_changes(runs: pd.DataFrame) -> pd.Series:
    """Per job, how often its host changes in the run-length table (``job, slot, slots, server``)."""
    df = runs[runs["role"] == "worker"].sort_values(["job", "slot"], kind="stable")
    prev = df.groupby("job")["server"].shift()
    changed = prev.notna() & (prev != df["server"])
    return changed.groupby(df["job"]).sum().astype(int)


def moves_at_most_once(result: SimulationResult, policy, *, limit: int | None = None) -> Claim:
    """Spec 8.1: no container moves more than ``limit`` times (default from ``policy``).

    Counted three ways that must agree: the policy's ``M``/``R`` events, the engine's
    ``migrations`` column and the host changes of ``result.runs``.
    """
    limit = _move_limit(policy) if limit is None else int(limit)
    events = [e for e in getattr(policy, "events", []) if e["event"] in ("M", "R")]
    per_event = pd.Series([e["job"] for e in events], dtype=int).value_counts()
    engine = result.jobs.set_index("job_id")["migrations"].astype(int)
    changes = host_changes(result.runs).reindex(engine.index, fill_value=0)
    per_event = per_event.reindex(engine.index, fill_value=0)
    worst = int(max(per_event.max(), engine.max(), changes.max())) if len(engine) else 0
    agree = bool((per_event == engine).all() and (engine == changes).all())
    return Claim(
        "SpeCon 8.1: each container moves at most once (l. 182)",
        worst <= limit and agree,
        {
            "jobs": int(len(engine)),
            "moves": int(engine.sum()),
            "moved_jobs": int((engine > 0).sum()),
            "max_moves": worst,
            "limit": limit,
            "counts_agree": agree,
        },
    )


# ------------------------------------------------------------------------ 8.2 categories


def categories_follow_alg1(policy, *, cascade: str | None = None) -> Claim:
    """Spec 8.2: the category log of ``policy.transitions`` follows Algorithm 1.

    Each change is in :data:`ALLOWED_TRANSITIONS` and starts from the job's current category
    (every container starts in PC, A1 l. 2); under ``cascade="none"`` a job changes at most once
    per slot; no change after the job was marked ``migrated`` (Alg. 2 ``stay`` / ``request``), except
    the move into CC at the mark itself (spec B4).
    """
    cascade = getattr(policy, "cascade", "none") if cascade is None else cascade
    trans = list(getattr(policy, "transitions", []))
    marked: dict[int, int] = {}
    for e in getattr(policy, "events", []):
        if e["event"] in ("stay", "request", "stay_disabled"):
            marked.setdefault(e["job"], e["slot"])
    current: dict[int, str] = {}
    bad_pair = bad_chain = after_mark = 0
    pairs: dict[str, int] = {}
    for x in trans:
        key = f"{x['from']}->{x['to']}"
        pairs[key] = pairs.get(key, 0) + 1
        if (x["from"], x["to"]) not in ALLOWED_TRANSITIONS:
            bad_pair += 1
        if current.get(x["job"], "PC") != x["from"]:
            bad_chain += 1
        current[x["job"]] = x["to"]
        if x["job"] in marked and x["slot"] > marked[x["job"]]:
            after_mark += 1
    keys = [(x["job"], x["slot"]) for x in trans]
    repeated = len(keys) - len(set(keys)) if cascade == "none" else 0
    holds = bad_pair == bad_chain == after_mark == repeated == 0
    return Claim(
        "SpeCon 8.2: categories move only as Algorithm 1 allows",
        holds,
        {
            "transitions": len(trans),
            "pc_wc": pairs.get("PC->WC", 0),
            "wc_cc": pairs.get("WC->CC", 0),
            "to_pc": pairs.get("WC->PC", 0) + pairs.get("CC->PC", 0),
            "forbidden": bad_pair,
            "wrong_from": bad_chain,
            "after_mark": after_mark,
            "twice_per_tick": repeated,
        },
    )


# ----------------------------------------------------------------------------- 8.4 CPU


def _usable_cores(wl: Workload) -> np.ndarray:
    """:math:`C^{use}` per node: the smallest ``cpu_usable`` of the jobs times the node's cores."""
    r = wl.cluster.resource_index("cpu")
    frac = min(float(getattr(s.model, "cpu_usable", 1.0)) for s in wl.jobs)
    return frac * wl.cluster.capacity[:, r].astype(float)


def cpu_shares(wl: Workload, runs: pd.DataFrame) -> pd.DataFrame:
    """CPU cores per node on each interval of constant placement, recomputed from ``runs``.

    Each interval ``[start, end)`` (slots) between consecutive run boundaries holds a fixed set
    of containers; every container's share is its model's ``cores`` under the load of that set.
    Columns: ``start``, ``end``, ``server``, ``containers``, ``cores``, ``usable``, ``two_nodes``
    (jobs placed on more than one node in the interval).
    """
    df = runs[runs["role"] == "worker"]
    start = df["slot"].to_numpy(np.int64)
    end = start + df["slots"].to_numpy(np.int64)
    jobs = df["job"].to_numpy(np.int64)
    servers = df["server"].to_numpy(np.int64)
    bounds = np.unique(np.concatenate([start, end]))
    usable = _usable_cores(wl)
    specs = wl.specs
    rows = []
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        live = (start <= a) & (end > a)
        if not live.any():
            continue
        hosts: dict[int, set[int]] = {}
        for j, s in zip(jobs[live], servers[live], strict=True):
            hosts.setdefault(int(j), set()).add(int(s))
        two = sum(len(h) > 1 for h in hosts.values())
        placements = {j: Placement.of({min(h): 1}) for j, h in hosts.items()}
        ctx = RateContext(wl.cluster, server_usage(wl.cluster, specs, placements))
        total = np.zeros(wl.cluster.n_servers)
        count = np.zeros(wl.cluster.n_servers, dtype=int)
        for j, h in hosts.items():
            for s in h:  # a job on two nodes is charged on each
                p = Placement.of({s: 1})
                total[s] += specs[j].model.cores(specs[j], p, ctx)
                count[s] += 1
        for s in range(wl.cluster.n_servers):
            rows.append((int(a), int(b), s, int(count[s]), float(total[s]), float(usable[s]), two))
    cols = ["start", "end", "server", "containers", "cores", "usable", "two_nodes"]
    return pd.DataFrame(rows, columns=cols)


def cpu_within_capacity(wl: Workload, result: SimulationResult, *, tol: float = 1e-9) -> Claim:
    r"""Spec 8.4: on every node and interval :math:`\sum_j s_j \le C^{use}` (80 % of the cores)
    and no job is on two nodes; shares recomputed by :func:`cpu_shares` from ``result.runs``."""
    tab = cpu_shares(wl, result.runs)
    over = tab["cores"] - tab["usable"]
    peak = float((tab["cores"] / tab["usable"]).max()) if len(tab) else 0.0
    n_over = int((over > tol * tab["usable"]).sum())
    two = int(tab["two_nodes"].max()) if len(tab) else 0
    return Claim(
        "SpeCon 8.4: CPU shares of a node never exceed its usable cores",
        n_over == 0 and two == 0,
        {
            "intervals": int(tab[["start", "end"]].drop_duplicates().shape[0]),
            "max_containers": int(tab["containers"].max()) if len(tab) else 0,
            "peak_share_of_usable": peak,
            "over_capacity": n_over,
            "two_nodes": two,
        },
    )


# ---------------------------------------------------------------------- 8.6 DS equality


def matches_ds(ds_jobs: pd.DataFrame, specon_jobs: pd.DataFrame, *, rtol: float = 0.0) -> Claim:
    """Spec 8.6: SpeCon's job table equals DS's; exactly (``rtol=0``) or, in
    :data:`FLOAT_COLUMNS`, to relative tolerance ``rtol`` (other columns always exactly)."""
    same_shape = list(ds_jobs.columns) == list(specon_jobs.columns) and len(ds_jobs) == len(specon_jobs)
    if not same_shape:
        return Claim("SpeCon 8.6: SpeCon equals DS", False, {"same_shape": False})
    a = ds_jobs.reset_index(drop=True)
    b = specon_jobs.reset_index(drop=True)
    floats = [c for c in FLOAT_COLUMNS if c in a.columns] if rtol > 0 else []
    exact = [c for c in a.columns if c not in floats]
    exact_ok = bool(a[exact].equals(b[exact]))
    rel = 0.0
    for c in floats:
        x = a[c].to_numpy(float)
        y = b[c].to_numpy(float)
        scale = np.maximum(np.abs(x), np.abs(y))
        d = np.where(scale > 0, np.abs(x - y) / np.where(scale > 0, scale, 1.0), 0.0)
        rel = max(rel, float(np.nanmax(d)) if d.size else 0.0)
    jct = np.abs(a["jct_seconds"].to_numpy(float) - b["jct_seconds"].to_numpy(float))
    return Claim(
        "SpeCon 8.6: SpeCon equals DS" + (" exactly" if rtol == 0 else f" to rtol {rtol:g}"),
        exact_ok and rel <= rtol,
        {
            "jobs": int(len(a)),
            "exact_columns_equal": exact_ok,
            "max_rel_diff": rel,
            "max_abs_jct_diff": float(jct.max()) if jct.size else 0.0,
            "rtol": float(rtol),
        },
    )


def ds_equivalence(wl: Workload, *, rtol: float | None = None, **params) -> Claim:
    """Run DS and ``SpeCon(**params)`` on ``wl`` and compare (:func:`matches_ds`).

    ``rtol`` defaults to 0 (exact) when ``alpha == 0`` and to 1e-12 otherwise (``migrate=False``).
    Details add the number of moves SpeCon made (must be 0) and of category changes.
    """
    ds, _ = run(wl, K8sDefault())
    sp, pol = run(wl, **params)
    if rtol is None:
        rtol = 0.0 if pol.alpha == 0 else 1e-12
    claim = matches_ds(ds.jobs, sp.jobs, rtol=rtol)
    moves = sum(e["event"] in ("M", "R") for e in pol.events)
    label = "alpha=0" if pol.alpha == 0 else ("migrate=False" if not pol.migrate else "moves on")
    details = {**claim.details, "moves": int(moves), "transitions": len(pol.transitions)}
    return Claim(f"{claim.name} ({label})", claim.holds and moves == 0, details)


def infinite_pause_rejected(pause: float = math.inf) -> Claim:
    """Spec 8.6: a migration pause of ``pause`` s is rejected with a clear ``ValueError``.

    Tries ``SpeCon(extra_pause=pause)`` and a :class:`~dlsched.specon.model.SpeconJob` workload
    with ``migration_pause=pause``; holds iff both raise ``ValueError`` whose message names the
    parameter (and, for the policy, says that a moved container would never resume).
    """
    msgs: dict[str, str] = {}
    try:
        SpeCon(extra_pause=pause)
        msgs["policy"] = ""
    except ValueError as err:
        msgs["policy"] = str(err)
    try:
        workload(0, schedule="fixed", n_jobs=2, migration_pause=pause)
        msgs["model"] = ""
    except ValueError as err:
        msgs["model"] = str(err)
    policy_ok = "extra_pause" in msgs["policy"] and "never" in msgs["policy"]
    model_ok = "migration_pause" in msgs["model"]
    return Claim(
        "SpeCon 8.6: an infinite migration pause is rejected",
        policy_ok and model_ok,
        {"pause": float(pause), "policy_rejects": policy_ok, "model_rejects": model_ok,
         "policy_message": msgs["policy"]},
    )


# ------------------------------------------------------------------------------ checker


def passes_checker(wl: Workload, result: SimulationResult) -> Claim:
    """Every job finished and the recorded timeline passes
    :func:`~dlsched.core.schedule.check_timeline` (capacities, one placement per slot)."""
    alloc = result.allocations
    error = ""
    try:
        check_timeline(wl.cluster, wl.specs, alloc)
    except (ScheduleViolation, ValueError, AssertionError) as err:
        error = str(err)[:200]
    finished = int((result.jobs["status"] == "finished").sum())
    return Claim(
        "SpeCon: every run passes the checker",
        not error and finished == len(result.jobs) and not result.stalled,
        {"jobs": int(len(result.jobs)), "finished": finished, "slots": int(alloc["slot"].nunique()),
         "error": error},
    )


# ------------------------------------------------------------------------------- samples


def run_checks(wl: Workload, **params) -> pd.DataFrame:
    """All per-run checks (8.1, 8.2, 8.4, checker) of ``SpeCon(**params)`` and of DS on ``wl``:
    one :func:`~dlsched.core.claims.claim_row` per (policy, claim), keys ``policy``, ``jobs``."""
    rows = []
    for name, pol in (("specon", SpeCon(**params)), ("ds", K8sDefault())):
        res, pol = run(wl, pol)
        found = [moves_at_most_once(res, pol), cpu_within_capacity(wl, res), passes_checker(wl, res)]
        if name == "specon":
            found.insert(1, categories_follow_alg1(pol))
        rows += [claim_row(c, policy=name, jobs=len(wl.jobs)) for c in found]
    return pd.DataFrame(rows)


def fold(frame: pd.DataFrame, *, add=("moves", "transitions", "over_capacity")) -> dict[str, Claim]:
    """:func:`dlsched.core.claims.fold` summing the counts ``add``."""
    return claims.fold(frame, add=add)


# ------------------------------------------------------------------------------- figure


def category_counts(result: SimulationResult, policy) -> pd.DataFrame:
    """Active containers per category over time (seconds): each job is in PC from its start,
    follows ``policy.transitions`` and leaves at completion. Columns ``time``, ``PC``, ``WC``, ``CC``."""
    slot = result.workload.cluster.slot_seconds
    ev = []
    for _, r in result.jobs.iterrows():
        if pd.notna(r["start_slot"]):
            ev.append((int(r["start_slot"]), 0, "PC", +1))
    last: dict[int, str] = {}
    for x in getattr(policy, "transitions", []):
        ev.append((int(x["slot"]), 1, x["from"], -1))
        ev.append((int(x["slot"]), 1, x["to"], +1))
        last[x["job"]] = x["to"]
    for _, r in result.jobs.iterrows():
        if pd.notna(r["completion_slot"]):
            ev.append((int(r["completion_slot"]), 2, last.get(int(r["job_id"]), "PC"), -1))
    ev.sort(key=lambda e: (e[0], e[1]))
    level = {"PC": 0, "WC": 0, "CC": 0}
    rows = []
    for t, _, cat, d in ev:
        level[cat] += d
        rows.append((t * slot, level["PC"], level["WC"], level["CC"]))
    out = pd.DataFrame(rows, columns=["time", "PC", "WC", "CC"])
    return out.groupby("time", as_index=False).last()

r"""A_online Sec. VI ("Performance evaluation") as experiments: Figs. 3-14 and what the paper reports.

J. She, N. Wang, R. Zhou, C. Tian, "Online Scheduling of Machine Learning Jobs in Edge-Cloud
Networks", NaNA 2021, Sec. VI; ``shared/spec/aonline.md`` section 12. This module holds the two
sweepable experiments of notebook ``42_aonline_figures`` (``fn(params: dict) -> DataFrame`` for
:func:`dlsched.experiments.sweep`, deterministic given ``params``, seed included), the tables the
notebook prints, the paper's settings and trends as a table (:data:`PAPER`), one
``figN_comparison`` per figure (paper vs ours with a verdict) and :func:`scorecard`.

* :func:`job_run` -- one scheme on one :func:`~dlsched.aonline.model.aonline_workload`, one row
  per job, with run-level utilisation columns (Figs. 3-13). Every figure of the main evaluation
  is a grid over this one function, so a point two figures share (e.g. A_online at 200 jobs on
  200 edge servers is in Figs. 3, 4, 7-10 and 12-13) is computed once by the sweep cache.
* :func:`ratio_run` -- A_online against the offline optimum of (2)-(2l)
  (:func:`dlsched.aonline.offline.solve_offline`, HiGHS) on one small instance, one row (Fig. 14).

==========  ================================================================  ==================
figure      paper's setting (x axis)                                          schemes
==========  ================================================================  ==================
Fig. 3      total completion time vs number of jobs J                         A_online, DRF,
                                                                              FIFO, BatchSche
Fig. 4      total completion time vs number of edge servers S (100-300)      same
Fig. 5      total *weighted* completion time vs F = max(F1, F2);              A_online
            200 jobs, fixed total weight
Fig. 6      total weighted completion time vs S                               A_online
Figs. 7/8   total completion time vs J / S, no preemption overhead            A_online, Preemptive
Figs. 9/10  the same with preemption overhead                                 A_online, Preemptive
Fig. 11     total completion time vs parameter size k_j                      A_online, Preemptive
Figs. 12/13 average resource utilisation vs J / S                             A_online (text:
                                                                              also Preemptive)
Fig. 14     performance ratio A_online / offline optimum vs J and S           A_online, MILP
==========  ================================================================  ==================

Definitions (ours; the paper gives none beyond the names)
---------------------------------------------------------
* **Completion time** of a job is :math:`c_j - a_j` in slots (1 slot = 1 hour), with
  :math:`c_j` the last slot in which it has workers ((2k); the simulator's ``completion_slot``)
  -- objective (2), the same quantity the offline MILP minimises, so Fig. 14's ratio compares
  like with like. *Total* completion time sums it over jobs; *weighted* multiplies by
  :math:`w_j` first.
* **Unfinished jobs.** Every workload here has ``horizon=None``: the simulator runs until every
  job has finished, so normally none is left. If a run stops with unfinished jobs anyway (a
  stalled run), such a job counts as completing in the last simulated slot (``end_slot - 1``, a
  lower bound on its completion time), and :func:`run_totals` reports how many there were
  (``unfinished``); the comparison tables name such runs.
* **Resource utilisation** (Figs. 12-13): in each slot, allocated worker slots over the worker
  capacity :math:`\sum_{s,u} W_{su}` (resources ``w<u>``, edge servers and the cloud) and
  allocated PS slots over :math:`\sum_{s,v} P_{sv}` (``ps<v>``), averaged over the *slots where
  jobs are present* (from some job's arrival to its completion: the union of the intervals
  :math:`[a_j, c_j]`; idle gaps with no job in the system are left out). ``util`` is the mean
  of the worker and the PS utilisation (the two resource kinds weigh the same); both parts are
  reported too, and ``util_worker_edge`` / ``util_worker_cloud`` split the worker part.
* **Preemption overhead** (Figs. 9-10): ``preemption_overhead`` slots of progress a job loses
  each time it resumes (:class:`~dlsched.aonline.baselines.Preemptive`); the paper gives no value.
* **Upload delay** (Figs. 7-10): the paper explains Preemptive's lead in Figs. 7-8 by it "not
  considering the upload delay". ``upload_delay="ignored"`` runs a scheme on the same jobs with
  every :math:`\Delta_{js}` set to 0 -- our reading of that sentence -- next to the default
  ``"paid"`` (constraint (2i) for every scheme).

Scheme names (the ``scheme`` column): the registry policy, ``+fastest`` for A_online with our
tie-break ``ties="fastest"``, ``+overhead`` when
``preemption_overhead > 0`` and ``+nodelay`` when the upload delay is ignored, e.g.
``"preemptive+overhead+nodelay"``; :func:`label` turns them into legend labels.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from types import MappingProxyType

import numpy as np
import pandas as pd

from dlsched import registry
from dlsched.aonline.model import ps_slots, worker_slots
from dlsched.aonline.policy import next_time_point
from dlsched.core.comparison import as_dict, as_int, paper_rows, run_keys, scorecard, with_ours
from dlsched.core.comparison import number as _num
from dlsched.core.comparison import require_columns as _frame
from dlsched.core.comparison import verdict as _verdict
from dlsched.core.jobs import Workload
from dlsched.core.simulator import SimulationResult, simulate

__all__ = [
    "FIGURE_POLICIES",
    "JOB_COLUMNS",
    "LABELS",
    "PAPER",
    "POLICIES",
    "RATIO_COLUMNS",
    "RUN_KEYS",
    "SMALL_INSTANCE",
    "fig3_comparison",
    "fig4_comparison",
    "fig5_comparison",
    "fig6_comparison",
    "fig7_comparison",
    "fig8_comparison",
    "fig9_comparison",
    "fig10_comparison",
    "fig11_comparison",
    "fig12_comparison",
    "fig13_comparison",
    "fig14_comparison",
    "job_run",
    "label",
    "line_figure",
    "mean_table",
    "paper_table",
    "price_scale",
    "ratio_figure",
    "ratio_run",
    "ratio_summary",
    "run_totals",
    "scheme_name",
    "scorecard",
]

POLICIES: tuple[str, ...] = ("aonline", "fifo", "drf", "batchsche", "preemptive")
"""Registry policies :func:`job_run` accepts (A_online and the paper's four baselines)."""

FIGURE_POLICIES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "fig3": ("aonline", "drf", "fifo", "batchsche"),
        "fig4": ("aonline", "drf", "fifo", "batchsche"),
        "fig7": ("aonline", "preemptive"),
        "fig11": ("aonline", "preemptive"),
    }
)
"""The paper's schemes of the comparison figures (Figs. 8-10 as Fig. 7)."""

LABELS: Mapping[str, str] = MappingProxyType(
    {
        "aonline": "A_online",
        "fifo": "FIFO",
        "drf": "DRF",
        "batchsche": "BatchSche",
        "preemptive": "Preemptive",
    }
)
"""Legend label of each registry policy."""

SCHEME_ORDER: tuple[str, ...] = (
    "aonline", "aonline+fastest", "drf", "fifo", "batchsche", "preemptive", "preemptive+nodelay",
    "preemptive+overhead", "preemptive+overhead+nodelay",
)  # fmt: skip
"""Plotting and table order of the schemes."""

JOB_COLUMNS: tuple[str, ...] = (
    "scheme", "job_id", "arrival", "weight", "status", "start_slot", "completion_slot", "tct", "wait",
    "run_slots", "workers", "max_workers", "cloud_share", "colocated", "cost", "rounds_waited", "window_fill",
    "preemptions", "util", "util_worker", "util_ps", "util_worker_edge", "util_worker_cloud", "present_slots",
    "end_slot", "server_source",
)  # fmt: skip
"""Columns of :func:`job_run` (see its Returns section); the last seven are run-level."""

RATIO_COLUMNS: tuple[str, ...] = (
    "aonline_tct", "opt_tct", "ratio", "aonline_wait", "opt_wait", "aonline_run", "opt_run", "fastest_tct",
    "ratio_fastest", "status", "mip_gap", "n_columns", "solve_seconds",
)  # fmt: skip
"""Columns of :func:`ratio_run`."""

RUN_KEYS: tuple[str, ...] = (
    "policy", "scheme", "n_jobs", "n_edge", "T", "F", "preemption_overhead", "gradient_mb", "weight_max",
    "upload_delay", "ties", "seed",
)  # fmt: skip
"""Columns that identify one run in a sweep's output (those present are used)."""

SMALL_INSTANCE: Mapping[str, object] = MappingProxyType(
    {"epochs": (1, 2), "chunks": (2, 4), "minibatches": (10, 50), "cloud_workers": 4}
)
"""Fig. 14's job sizes (the rest as Sec. VI): :math:`E_j \\in [1, 2]`, :math:`D_j \\in [2, 4]`,
:math:`M_j \\in [10, 50]` and 4 cloud workers per type, so that a job runs for a few slots and
the offline MILP has a few thousand columns (solved in well under a second)."""

_SIZES = {"n_edge": 200, "n_jobs": 200, "T": 1024}
_SHORTCUTS = ("gradient_mb", "weights", "total_weight", "preemptible", "n_edge", "n_jobs", "T")
TIES: tuple[str, ...] = ("first", "fastest")
"""Valid ``ties`` values of :func:`job_run` (:class:`~dlsched.aonline.policy.AOnline`'s)."""
UPLOAD_DELAYS: tuple[str, ...] = ("paid", "ignored")
"""Valid ``upload_delay`` values of :func:`job_run`."""

# ------------------------------------------------------------------------------- parameters


def _as_float(params: Mapping[str, object], key: str, *, lo: float, strict: bool, fn: str) -> float | None:
    value = params.get(key)
    if value is None:
        return None
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    if not ok or not math.isfinite(float(value)) or (float(value) <= lo if strict else float(value) < lo):
        raise ValueError(
            f"{fn}: {key} must be a finite number {'>' if strict else '>='} {lo:g}, got {value!r}"
        )
    return float(value)


def _known(params: object, known: set[str], fn: str) -> Mapping[str, object]:
    if not isinstance(params, Mapping):
        raise TypeError(f"{fn}: params must be a mapping, got {type(params).__name__}")
    for key in params:
        if key not in known:
            raise ValueError(f"{fn}: unknown parameter {key!r}; known: {sorted(known)}")
    return params


def scheme_name(
    policy: str, preemption_overhead: float | None = None, upload_delay: str = "paid", ties: str | None = None
) -> str:
    """The ``scheme`` of a run: the policy, ``+fastest`` for A_online with ``ties="fastest"``,
    ``+overhead`` if ``preemption_overhead > 0``, ``+nodelay`` if ``upload_delay == "ignored"``."""
    name = str(policy)
    if ties == "fastest":
        name += "+fastest"
    if preemption_overhead:
        name += "+overhead"
    if upload_delay == "ignored":
        name += "+nodelay"
    return name


def label(scheme: str) -> str:
    """Legend label of a :func:`scheme_name`, e.g. ``"Preemptive + overhead, no upload delay"``."""
    base, *flags = str(scheme).split("+")
    out = LABELS.get(base, base)
    if "fastest" in flags:
        out += ", fastest tie-break (ours)"
    if "overhead" in flags:
        out += " + overhead"
    if "nodelay" in flags:
        out += ", no upload delay"
    return out


def _read(params: object):
    """Validated ``(policy, seed, workload kwargs, policy kwargs, upload_delay, scheme)``."""
    fn = "job_run"
    known = {
        "policy", "seed", "workload", "policy_params", "F", "preemption_overhead", "gradient_mb",
        "weight_max", "upload_delay", "ties", *_SIZES,
    }  # fmt: skip
    params = _known(params, known, fn)
    if "policy" not in params:
        raise ValueError(f"{fn}: missing parameter 'policy' (one of {POLICIES})")
    policy = params["policy"]
    if policy not in POLICIES:
        raise ValueError(f"{fn}: policy must be one of {POLICIES}, got {policy!r}")
    seed = as_int(params, "seed", 0, 0, fn)
    wkw = as_dict(params, "workload", fn)
    for key in _SHORTCUTS:
        if key in wkw:
            raise ValueError(f"{fn}: give {key!r} as a parameter of job_run, not inside 'workload'")
    for key, default in _SIZES.items():
        wkw[key] = as_int(params, key, default, 1, fn)
    pkw = as_dict(params, "policy_params", fn)
    F = _as_float(params, "F", lo=0.0, strict=True, fn=fn)
    if F is not None:
        if policy not in ("aonline", "batchsche"):
            raise ValueError(f"{fn}: F (price cap F1 = F2) applies to aonline and batchsche, not {policy!r}")
        pkw.update(F1=F, F2=F)
    overhead = _as_float(params, "preemption_overhead", lo=0.0, strict=False, fn=fn)
    if overhead is not None:
        if policy != "preemptive":
            raise ValueError(f"{fn}: preemption_overhead applies to preemptive, not {policy!r}")
        pkw["preemption_overhead"] = overhead
    ties = params.get("ties")
    if ties is not None:
        if policy != "aonline":
            raise ValueError(f"{fn}: ties (Alg. 2 line 11's tie-break) applies to aonline, not {policy!r}")
        if ties not in TIES:
            raise ValueError(f"{fn}: ties must be one of {TIES}, got {ties!r}")
        pkw["ties"] = ties
    k = _as_float(params, "gradient_mb", lo=0.0, strict=False, fn=fn)
    if k is not None:
        wkw["gradient_mb"] = (k, k)
    wmax = _as_float(params, "weight_max", lo=1.0, strict=False, fn=fn)
    if wmax is not None:
        wkw["weights"] = (1.0, wmax)
        wkw["total_weight"] = float(wkw["n_jobs"])
    upload = params.get("upload_delay", "paid")
    if upload not in UPLOAD_DELAYS:
        raise ValueError(f"{fn}: upload_delay must be one of {UPLOAD_DELAYS}, got {upload!r}")
    wkw["preemptible"] = policy == "preemptive"
    return str(policy), seed, wkw, pkw, str(upload), scheme_name(policy, overhead, upload, ties)


def _zero_delays(wl: Workload) -> Workload:
    """The same jobs with every transfer delay :math:`\\Delta_{js}` set to 0."""
    n = wl.cluster.n_servers
    jobs = tuple(dataclasses.replace(s, transfer_delay=(0.0,) * n) for s in wl.jobs)
    return dataclasses.replace(
        wl, jobs=jobs, params={**wl.params, "edge_delay": (0, 0), "cloud_delay": (0, 0)}
    )


# ------------------------------------------------------------------------------- measurements


def _intervals_length(starts: np.ndarray, ends: np.ndarray) -> int:
    """Number of integer slots in the union of the closed intervals ``[starts[i], ends[i]]``."""
    if len(starts) == 0:
        return 0
    order = np.argsort(starts, kind="stable")
    total, cur_s, cur_e = 0, None, None
    for s, e in zip(starts[order], ends[order], strict=True):
        s, e = int(s), int(e)
        if e < s:
            continue
        if cur_e is None or s > cur_e + 1:
            if cur_e is not None:
                total += cur_e - cur_s + 1
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        total += cur_e - cur_s + 1
    return total


def _measure(wl: Workload, res: SimulationResult) -> tuple[pd.DataFrame, dict[str, float]]:
    """Per-job placement profile and run-level utilisation (module docstring)."""
    cl = wl.cluster
    cloud = np.array([p == "cloud" for p in cl.pools])
    W = worker_slots(cl)
    P = ps_slots(cl)
    j = res.jobs.sort_values("job_id").reset_index(drop=True)
    last = j["completion_slot"].where(j["status"] == "finished", res.end_slot - 1).to_numpy(float)
    present = _intervals_length(j["arrival"].to_numpy(np.int64), last.astype(np.int64))
    r = res.runs
    specs = wl.specs
    amount = {jid: (sum(s.worker_demand.values()), sum(s.ps_demand.values())) for jid, s in specs.items()}
    if r.empty:
        prof = pd.DataFrame(columns=["run_slots", "worker_slots", "cloud_slots"], dtype=float)
        w_alloc = w_edge = w_cloud = p_alloc = 0.0
    else:
        amt = np.array(
            [
                amount[int(x)][0] if role == "worker" else amount[int(x)][1]
                for x, role in zip(r["job"], r["role"], strict=True)
            ]
        )
        units = r["count"].to_numpy(float) * r["slots"].to_numpy(float) * amt
        is_w = (r["role"] == "worker").to_numpy()
        on_cloud = cloud[r["server"].to_numpy(np.int64)]
        w_alloc, p_alloc = float(units[is_w].sum()), float(units[~is_w].sum())
        w_cloud = float(units[is_w & on_cloud].sum())
        w_edge = w_alloc - w_cloud
        wr = r[is_w].assign(
            ws=(r["count"] * r["slots"])[is_w], cs=(r["count"] * r["slots"]).where(on_cloud, 0)[is_w]
        )
        run_slots = wr.drop_duplicates(["job", "slot"]).groupby("job")["slots"].sum()
        agg = wr.groupby("job")[["ws", "cs"]].sum()
        prof = pd.DataFrame(
            {"run_slots": run_slots, "worker_slots": agg["ws"], "cloud_slots": agg["cs"]}
        ).astype(float)
    prof = prof.reindex(j["job_id"].to_numpy())
    cap_w, cap_p = float(W.sum()), float(P.sum())
    cap_we, cap_wc = float(W[~cloud].sum()), float(W[cloud].sum())

    def share(x: float, cap: float) -> float:
        return x / (cap * present) if cap > 0 and present > 0 else math.nan

    util = {
        "util_worker": share(w_alloc, cap_w),
        "util_ps": share(p_alloc, cap_p),
        "util_worker_edge": share(w_edge, cap_we),
        "util_worker_cloud": share(w_cloud, cap_wc),
        "present_slots": float(present),
        "end_slot": float(res.end_slot),
    }
    util["util"] = (util["util_worker"] + util["util_ps"]) / 2.0
    return prof, util


# ------------------------------------------------------------------------------- the experiments


def job_run(params: Mapping[str, object]) -> pd.DataFrame:
    r"""Experiment (Figs. 3-13): one scheme on one A_online workload, one row per job.

    The workload is ``make_workload("aonline", seed=seed, n_edge=..., n_jobs=..., T=...,
    preemptible=(policy == "preemptive"), **workload)`` (the delays zeroed when
    ``upload_delay="ignored"``), the scheme ``make_policy(policy, workload, **policy_params)``,
    the run ``simulate(..., seed=seed)`` with the workload's horizon (None: until every job is
    done).

    Parameters
    ----------
    params : Mapping
        ``policy`` (required, one of :data:`POLICIES`); ``seed`` (int >= 0, default 0);
        ``n_edge`` (default 200), ``n_jobs`` (200), ``T`` (1024), ints >= 1;
        ``F`` (float > 0: :math:`F_1 = F_2 = F`, aonline and batchsche only);
        ``preemption_overhead`` (float >= 0, preemptive only);
        ``gradient_mb`` (float >= 0: every job's :math:`k_j`, Fig. 11);
        ``weight_max`` (float >= 1: weights uniform in [1, weight_max], rescaled to a total of
        ``n_jobs``, Figs. 5-6; default all weights 1);
        ``upload_delay`` (``"paid"`` default, or ``"ignored"``: every :math:`\Delta_{js} = 0`);
        ``ties`` (aonline only: ``"first"``, Alg. 2 line 11 as printed, keeps the smallest
        :math:`D_u` among equal payoffs; ``"fastest"``, ours, the candidate that completes first);
        ``workload`` (dict of other :func:`~dlsched.aonline.model.aonline_workload` arguments,
        e.g. the alternative readings ``{"server_size": "machine"}`` or ``{"cloud_workers": 128}``);
        ``policy_params`` (dict of other policy arguments, e.g. A_online's alternative readings
        ``{"data_ready": "inclusive"}`` or ``{"price_reading": "literal"}``).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`JOB_COLUMNS`, one row per job by id: ``scheme`` (:func:`scheme_name`),
        id, arrival slot, weight :math:`w_j`, status, first slot with workers, ``completion_slot``
        :math:`c_j` (last slot with workers), ``tct`` = :math:`c_j - a_j` (unfinished: last
        simulated slot minus :math:`a_j`), ``wait`` (first slot with workers minus arrival),
        ``run_slots`` (slots with workers), ``workers`` (mean workers per running slot),
        ``max_workers`` (:math:`D_j`),
        ``cloud_share`` (of its worker-slots, the share on the cloud), ``colocated`` (A_online's
        :math:`\xi_j`; NaN for other schemes), ``cost`` (A_online: :math:`w_j - \eta_j`, the
        price of its schedule; NaN otherwise), ``rounds_waited`` (A_online and BatchSche: rounds
        between the first time point :math:`\tau_i > a_j` and the one that admitted the job) and
        ``window_fill`` (their run over the window length :math:`\tau_{i+1} - \tau_i = \tau_i`:
        1 means the job finishes exactly at the window's end; NaN for other schemes),
        ``preemptions`` (Preemptive; NaN otherwise); and
        the run-level columns (the same on every row): ``util``, ``util_worker``, ``util_ps``,
        ``util_worker_edge``, ``util_worker_cloud`` (module docstring), ``present_slots`` (slots
        with some job present), ``end_slot`` (first slot not simulated), ``server_source``
        (``"philly"`` or ``"synthetic"``: where the edge servers' GPU counts came from).

    Raises
    ------
    TypeError
        If ``params`` is not a mapping.
    ValueError
        On an unknown or missing parameter, a bad value, or a parameter that does not apply to the
        policy (the message names the key).
    """
    policy, seed, wkw, pkw, upload, scheme = _read(params)
    wl = registry.make_workload("aonline", seed=seed, **wkw)
    if upload == "ignored":
        wl = _zero_delays(wl)
    res = simulate(wl, registry.make_policy(policy, wl, **pkw), seed=seed)
    j = res.jobs.sort_values("job_id").reset_index(drop=True)
    prof, util = _measure(wl, res)
    specs = wl.specs
    ids = j["job_id"].to_numpy()
    weight = np.array([float(specs[int(i)].model.weight) for i in ids])
    done = (j["status"] == "finished").to_numpy()
    last = np.where(done, j["completion_slot"].to_numpy(float), res.end_slot - 1.0)
    arrival = j["arrival"].to_numpy(float)

    def col(name: str) -> np.ndarray:
        return j[name].to_numpy(float) if name in j.columns else np.full(len(j), math.nan)

    eta = col("eta")
    start = j["start_slot"].to_numpy(float)
    run = prof["run_slots"].fillna(0.0).to_numpy()
    if policy in ("aonline", "batchsche"):  # rounds at tau_i = 2^(i-1); a job starts at its tau_i
        first = np.array([float(next_time_point(int(a))) for a in j["arrival"]])
        rounds_waited = np.log2(start) - np.log2(first)
        window_fill = run / start  # the window (tau_i, tau_{i+1}] has tau_i slots
    else:
        rounds_waited = window_fill = np.full(len(j), math.nan)
    ws = prof["worker_slots"].to_numpy(float)
    out = pd.DataFrame(
        {
            "scheme": scheme,
            "job_id": j["job_id"].astype("int64"),
            "arrival": j["arrival"].astype("int64"),
            "weight": weight,
            "status": j["status"].astype(str),
            "start_slot": j["start_slot"].astype(float),
            "completion_slot": j["completion_slot"].astype(float),
            "tct": last - arrival,
            "wait": j["start_slot"].to_numpy(float) - arrival,
            "run_slots": prof["run_slots"].fillna(0.0).to_numpy(),
            "workers": ws / prof["run_slots"].to_numpy(float),
            "max_workers": np.array([int(specs[int(i)].model.chunks) for i in ids], dtype=np.int64),
            "cloud_share": prof["cloud_slots"].to_numpy(float) / ws,
            "colocated": col("colocated"),
            "cost": (weight - eta) if policy == "aonline" else np.full(len(j), math.nan),
            "rounds_waited": rounds_waited,
            "window_fill": window_fill,
            "preemptions": col("preemptions"),
            **{k: float(v) for k, v in util.items()},
            "server_source": str(wl.params.get("server_source", "")),
        }
    )
    return out[list(JOB_COLUMNS)]


def ratio_run(params: Mapping[str, object]) -> pd.DataFrame:
    r"""Experiment (Fig. 14): A_online against the offline optimum on one small instance.

    The workload is ``make_workload("aonline", seed=seed, n_edge=..., n_jobs=..., T=...,
    **SMALL_INSTANCE, **workload)``; A_online (``F`` as in :func:`job_run`) runs on it with
    :func:`~dlsched.core.simulator.simulate`, and :func:`~dlsched.aonline.offline.solve_offline`
    solves (2)-(2l) exactly (horizon chosen so that no optimal schedule is cut off), its
    solution re-checked independently.

    Parameters
    ----------
    params : Mapping
        ``seed`` (int >= 0, default 0); ``n_edge`` (default 3), ``n_jobs`` (6), ``T`` (32),
        ints >= 1; ``F`` (float > 0, default 1); ``time_limit`` (seconds > 0, default 30);
        ``workload`` (dict overriding :data:`SMALL_INSTANCE` or other workload arguments);
        ``policy_params`` (dict of other :class:`~dlsched.aonline.policy.AOnline` arguments for
        both A_online runs, e.g. ``{"data_ready": "inclusive"}`` for Alg. 3-4 line 3 read with
        :math:`\le`, or ``{"price_reading": "literal"}`` for (7)-(8) as printed; default none:
        the spec's readings; ``F1``/``F2`` go through ``F``, ``ties`` is fixed per run).

    Returns
    -------
    pandas.DataFrame
        One row, columns :data:`RATIO_COLUMNS`: total completion time of A_online and of the
        optimum (objective (2)), ``ratio`` (A_online / optimum), each split into ``*_wait``
        (sum of first slot with workers minus arrival) and ``*_run`` (the rest); ``fastest_tct``
        and ``ratio_fastest``, the same for A_online with our tie-break ``ties="fastest"``; the solver's
        ``status``, ``mip_gap``, ``n_columns`` and ``solve_seconds`` (wall time: volatile).

    Raises
    ------
    TypeError
        If ``params`` is not a mapping.
    ValueError
        On an unknown parameter or a bad value (the message names the key).
    """
    from dlsched.aonline import offline

    fn = "ratio_run"
    known = {"seed", "n_edge", "n_jobs", "T", "F", "time_limit", "workload", "policy_params"}
    params = _known(params, known, fn)
    seed = as_int(params, "seed", 0, 0, fn)
    sizes = {k: as_int(params, k, d, 1, fn) for k, d in (("n_edge", 3), ("n_jobs", 6), ("T", 32))}
    F = _as_float(params, "F", lo=0.0, strict=True, fn=fn)
    limit = _as_float(params, "time_limit", lo=0.0, strict=True, fn=fn)
    wkw = {**SMALL_INSTANCE, **as_dict(params, "workload", fn)}
    for key in ("n_edge", "n_jobs", "T", "preemptible"):
        if key in wkw:
            raise ValueError(f"{fn}: give {key!r} as a parameter of ratio_run, not inside 'workload'")
    wl = registry.make_workload("aonline", seed=seed, **sizes, **wkw)
    pkw = as_dict(params, "policy_params", fn)
    for key in ("F1", "F2", "ties"):
        if key in pkw:
            raise ValueError(f"{fn}: {key!r} cannot be in 'policy_params' (F1 = F2 via 'F'; ties is per run)")
    if F is not None:
        pkw.update(F1=F, F2=F)
    res = simulate(wl, registry.make_policy("aonline", wl, **pkw), seed=seed)
    fast = simulate(wl, registry.make_policy("aonline", wl, ties="fastest", **pkw), seed=seed)
    sol = offline.solve_offline(wl, time_limit=30.0 if limit is None else limit)
    a_tct = offline.total_completion_time(res)
    f_tct = offline.total_completion_time(fast)
    jobs = res.jobs
    a_wait = float((jobs["start_slot"] - jobs["arrival"]).sum())
    arrival = {s.job_id: s.arrival for s in wl.jobs}
    o_wait = float(sum(s.start - arrival[j] for j, s in sol.schedules.items())) if sol.schedules else math.nan
    opt = float(sol.objective)
    return pd.DataFrame(
        {
            "aonline_tct": [a_tct],
            "opt_tct": [opt],
            "ratio": [a_tct / opt if opt > 0 and math.isfinite(opt) else math.nan],
            "aonline_wait": [a_wait],
            "opt_wait": [o_wait],
            "aonline_run": [a_tct - a_wait],
            "opt_run": [opt - o_wait],
            "fastest_tct": [f_tct],
            "ratio_fastest": [f_tct / opt if opt > 0 and math.isfinite(opt) else math.nan],
            "status": [sol.status],
            "mip_gap": [float(sol.mip_gap)],
            "n_columns": [int(sol.n_columns)],
            "solve_seconds": [float(sol.solve_seconds)],
        }
    )[list(RATIO_COLUMNS)]


# ------------------------------------------------------------------------------- aggregation


def run_totals(jobs: pd.DataFrame, by: str | Sequence[str] | None = None) -> pd.DataFrame:
    """Per run: totals of :func:`job_run` rows.

    Parameters
    ----------
    jobs : pandas.DataFrame
        Rows of :func:`job_run` with the sweep's parameter columns.
    by : str or sequence of str, optional
        Columns identifying one run; default: those of :data:`RUN_KEYS` present in ``jobs``.

    Returns
    -------
    pandas.DataFrame
        ``by`` columns, then ``jobs``, ``unfinished``, ``tct`` (total completion time),
        ``weighted_tct``, ``wait`` and ``run`` (totals of the waiting and the running part),
        ``workers`` (mean over jobs), ``cloud_share`` (share of all worker-slots on the cloud),
        ``zero_cost`` (A_online: share of jobs admitted at cost 0; NaN otherwise),
        ``rounds_waited`` (mean), ``max_rounds_waited``, ``window_fill`` (mean; A_online and
        BatchSche, NaN otherwise), ``preemptions`` (total; NaN for schemes that do not report it),
        ``narrow_share`` (the share of ``tct`` from jobs that ran on fewer than :data:`NARROW`
        times their :math:`D_j` workers on average, never-started jobs included), the utilisation
        columns, ``end_slot`` and ``present_slots``; sorted by ``by``.

    Raises
    ------
    TypeError
        If ``jobs`` is not a DataFrame.
    ValueError
        If it lacks a column.
    """
    keys = run_keys(jobs, by, RUN_KEYS, "run_totals: expected a DataFrame")
    need = [
        "job_id", "status", "tct", "weight", "wait", "run_slots", "workers", "max_workers", "cloud_share",
        "cost", "preemptions", "rounds_waited", "window_fill", "util", "util_worker", "util_ps",
        "util_worker_edge", "util_worker_cloud", "end_slot", "present_slots",
    ]  # fmt: skip
    _frame(jobs, keys + need, "run_totals")
    d = jobs.assign(
        unfinished=jobs["status"].ne("finished"),
        wtct=jobs["tct"] * jobs["weight"],
        ws=jobs["workers"] * jobs["run_slots"],
        cs=jobs["workers"] * jobs["run_slots"] * jobs["cloud_share"],
        zero=(jobs["cost"] <= 1e-9).where(jobs["cost"].notna()),
        ntct=jobs["tct"].where(jobs["workers"].fillna(0) < NARROW * jobs["max_workers"], 0.0),
    )
    g = d.groupby(keys, sort=True, dropna=False)
    agg = g.agg(
        jobs=("job_id", "size"),
        unfinished=("unfinished", "sum"),
        tct=("tct", "sum"),
        weighted_tct=("wtct", "sum"),
        wait=("wait", "sum"),
        workers=("workers", "mean"),
        ws=("ws", "sum"),
        cs=("cs", "sum"),
        zero_cost=("zero", "mean"),
        rounds_waited=("rounds_waited", "mean"),
        max_rounds_waited=("rounds_waited", "max"),
        window_fill=("window_fill", "mean"),
        preemptions=("preemptions", lambda v: v.sum(min_count=1)),
        narrow=("ntct", "sum"),
        util=("util", "first"),
        util_worker=("util_worker", "first"),
        util_ps=("util_ps", "first"),
        util_worker_edge=("util_worker_edge", "first"),
        util_worker_cloud=("util_worker_cloud", "first"),
        end_slot=("end_slot", "first"),
        present_slots=("present_slots", "first"),
    )
    agg["unfinished"] = agg["unfinished"].astype("int64")
    agg["run"] = agg["tct"] - agg["wait"]
    agg["narrow_share"] = (agg.pop("narrow") / agg["tct"]).where(agg["tct"] > 0)
    agg["cloud_share"] = (agg.pop("cs") / agg.pop("ws")).astype(float)
    cols = [
        "jobs", "unfinished", "tct", "weighted_tct", "wait", "run", "workers", "cloud_share", "zero_cost",
        "rounds_waited", "max_rounds_waited", "window_fill", "preemptions", "narrow_share", "util",
        "util_worker", "util_ps", "util_worker_edge", "util_worker_cloud", "end_slot", "present_slots",
    ]  # fmt: skip
    return agg[cols].reset_index()


def mean_table(
    totals: pd.DataFrame, x: str, y: str = "tct", *, schemes: Sequence[str] | None = None
) -> pd.DataFrame:
    """Mean of ``y`` over seeds: one row per value of ``x``, one column per scheme.

    Parameters
    ----------
    totals : pandas.DataFrame
        :func:`run_totals` output with columns ``scheme``, ``x`` and ``y``.
    x : str
        The swept column (``"n_jobs"``, ``"n_edge"``, ``"F"``, ``"gradient_mb"``).
    y : str
        The measured column (default total completion time ``"tct"``).
    schemes : sequence of str, optional
        Keep only these schemes (in this order).

    Returns
    -------
    pandas.DataFrame
        Index ``x``; columns the schemes in :data:`SCHEME_ORDER` order (or ``schemes``).

    Raises
    ------
    TypeError
        If ``totals`` is not a DataFrame.
    ValueError
        If it lacks a column or a requested scheme.
    """
    _frame(totals, ["scheme", x, y], "mean_table")
    wide = totals.pivot_table(index=x, columns="scheme", values=y, aggfunc="mean")
    if schemes is not None:
        absent = [s for s in schemes if s not in wide.columns]
        if absent:
            raise ValueError(f"mean_table: no run of scheme(s) {absent}; have {list(wide.columns)}")
        cols = list(schemes)
    else:
        cols = [s for s in SCHEME_ORDER if s in wide.columns] + sorted(
            c for c in wide.columns if c not in SCHEME_ORDER
        )
    return wide[cols].rename_axis(columns=None)


def ratio_summary(rows: pd.DataFrame, x: str) -> pd.DataFrame:
    """Fig. 14 per value of ``x``: mean, min and max ratio over seeds and the mean parts.

    Parameters
    ----------
    rows : pandas.DataFrame
        :func:`ratio_run` rows from a sweep (columns ``x``, ``ratio``, ``aonline_wait``,
        ``opt_wait``, ``aonline_run``, ``opt_run``, ``status``).
    x : str
        ``"n_jobs"`` or ``"n_edge"``.

    Returns
    -------
    pandas.DataFrame
        Index ``x``: ``instances``, ``optimal`` (solved to proven optimality), ``ratio`` (mean),
        ``ratio_min``, ``ratio_max``, the mean ``ratio_fastest`` (when ``rows`` has it) and the
        means of the four parts.

    Raises
    ------
    TypeError
        If ``rows`` is not a DataFrame.
    ValueError
        If it lacks a column.
    """
    parts = ["aonline_wait", "opt_wait", "aonline_run", "opt_run"]
    _frame(rows, [x, "ratio", "status", *parts], "ratio_summary")
    g = rows.assign(optimal=rows["status"].eq("optimal")).groupby(x, sort=True)
    out = g.agg(instances=("ratio", "size"), optimal=("optimal", "sum"), ratio=("ratio", "mean"),
                ratio_min=("ratio", "min"), ratio_max=("ratio", "max"))  # fmt: skip
    out["optimal"] = out["optimal"].astype("int64")
    extra = ["ratio_fastest"] if "ratio_fastest" in rows.columns else []
    return out.join(g[extra + parts].mean())


def price_scale(F: Sequence[float], *, T: int, S: int, U: int, capacity: int) -> pd.DataFrame:
    r"""Fig. 5's mechanism: what one worker-slot costs under (7) for each price cap ``F``.

    :math:`\theta_1 = 2TSUF + 1`; a (server, type, slot) with ``capacity`` worker slots costs
    :math:`\lambda = \theta_1^{f/W} - 1` per worker when ``f`` of its ``W`` slots are in use.

    Parameters
    ----------
    F : sequence of float
        Price caps (> 0).
    T, S, U : int
        Horizon, servers (edge + cloud) and worker types of the price base.
    capacity : int
        :math:`W_{su}`, e.g. the cloud's 64 slots per type.

    Returns
    -------
    pandas.DataFrame
        ``F``, ``theta1``, ``one_used`` (:math:`\lambda` with 1 slot in use), ``half_used``
        (:math:`\lambda` at :math:`W/2`), ``full`` (:math:`\theta_1 - 1`).

    Raises
    ------
    ValueError
        On ``F <= 0`` or a size below 1 (naming the field).
    """
    from dlsched.aonline.policy import price, theta

    if isinstance(capacity, bool) or not isinstance(capacity, (int, np.integer)) or capacity < 1:
        raise ValueError(f"price_scale: capacity must be an integer >= 1, got {capacity!r}")
    rows = []
    for f in F:
        th = theta(T, S, U, f)
        rows.append({
            "F": float(f),
            "theta1": th,
            "one_used": float(price(1, capacity, th)),
            "half_used": float(price(capacity / 2, capacity, th)),
            "full": th - 1.0,
        })  # fmt: skip
    return pd.DataFrame(rows, columns=["F", "theta1", "one_used", "half_used", "full"])


# ------------------------------------------------------------------------------- the paper

_NOT_GIVEN = "[values not in the text]"

PAPER: Mapping[str, tuple[tuple[str, str], ...]] = MappingProxyType(
    {
        "fig3": (
            ("setting", f"Philly-driven, 200 edge servers + cloud, growing J {_NOT_GIVEN}"),
            ("total completion time grows with J", "yes ('larger workload')"),
            ("A_online best (smallest) at every J", "yes ('obviously better than DRF, FIFO and BatchSche')"),
        ),
        "fig4": (
            ("setting", f"100-300 edge servers, J fixed {_NOT_GIVEN}"),
            ("total completion time falls as S grows", "yes ('richer computing power')"),
            ("A_online best (smallest) at every S", "yes ('obviously better than DRF, FIFO and BatchSche')"),
        ),
        "fig5": (
            ("setting", f"200 jobs, fixed total weight, growing F = max(F1, F2) {_NOT_GIVEN}"),
            ("objective as F grows (results sentence)", "larger F -> larger objective value"),
            (
                "objective as F grows (explanation sentence)",
                "larger F -> more jobs served -> smaller objective",
            ),
        ),
        "fig6": (
            ("setting", "total weighted completion time of A_online, growing S"),
            ("total weighted completion time falls as S grows", "yes ('more jobs can be served')"),
        ),
        "fig7": (
            ("setting", "A_online vs Preemptive, growing J, preemption overhead ignored"),
            (
                "Preemptive better (smaller) at every J",
                "yes ('does not consider the upload delay and the preemption overhead')",
            ),
        ),
        "fig8": (
            ("setting", "A_online vs Preemptive, growing S, preemption overhead ignored"),
            (
                "Preemptive better (smaller) at every S",
                "yes ('does not consider the upload delay and the preemption overhead')",
            ),
        ),
        "fig9": (
            ("setting", f"A_online vs Preemptive, growing J, with preemption overhead {_NOT_GIVEN}"),
            ("A_online better (smaller) at every J", "yes, slightly"),
        ),
        "fig10": (
            ("setting", f"A_online vs Preemptive, growing S, with preemption overhead {_NOT_GIVEN}"),
            ("A_online better (smaller) at every S", "yes, slightly"),
        ),
        "fig11": (
            ("setting", f"A_online vs Preemptive, growing parameter size k_j {_NOT_GIVEN}; range 30-575 MB"),
            ("Preemptive better (smaller) at every k_j", "yes ('significantly better')"),
            ("Preemptive's lead grows with k_j", "yes ('as k_j increases')"),
        ),
        "fig12": (
            ("setting", "average resource utilisation of A_online, growing J"),
            ("A_online's utilisation falls as J grows", "yes ('resource fragmentation increased')"),
            (
                "Preemptive's utilisation higher than A_online's",
                "yes (text; the caption names A_online only)",
            ),
        ),
        "fig13": (
            ("setting", "average resource utilisation of A_online, growing S"),
            ("A_online's utilisation falls as S grows", "yes ('this situation aggravates')"),
            (
                "Preemptive's utilisation higher than A_online's",
                "yes (text; the caption names A_online only)",
            ),
        ),
        "fig14": (
            ("setting", f"A_online / offline optimum, growing J and S {_NOT_GIVEN}"),
            ("ratio close to 1", "yes ('close to 1, relatively good')"),
            ("ratio grows with J", "yes ('increasing trend')"),
            ("ratio grows with S", "yes ('increasing trend')"),
        ),
    }
)
"""What Sec. VI reports for each figure as ``(quantity, what the paper says)`` pairs. Our copy is
the complete text but the figures are images we do not have: no axis values, no J, S, F or
overhead values, only trends and orderings, quoted. Fig. 5's two sentences contradict each other
(the first says a larger F gives a larger objective, the explanation that follows says a larger
F serves more jobs and gives a smaller one); both are judged."""

NARROW = 0.25
"""A job "ran narrow" when its mean number of workers was below this fraction of :math:`D_j`."""

TREND_TOLERANCE = 0.01
"""Relative change below which a step of a trend counts as flat."""

CLOSE_TO_ONE = (1.2, 1.5)
"""Fig. 14 "close to 1": ``yes`` when the mean ratio is at most 1.2, ``partly`` at most 1.5."""


def paper_table(figure: str) -> pd.DataFrame:
    """The paper's settings and trends for ``figure`` (a key of :data:`PAPER`, ``"fig3"`` ...
    ``"fig14"``) as columns ``quantity`` and ``paper``.

    Raises
    ------
    ValueError
        If ``figure`` is not a key of :data:`PAPER`.
    """
    return paper_rows(PAPER, figure)


def _xval(v) -> str:
    v = float(v)
    return f"{v:g}"


def trend(values: Sequence[float], direction: str, tol: float = TREND_TOLERANCE) -> str:
    """Does a series go ``"up"`` or ``"down"``?

    ``yes`` if every step moves that way by more than ``tol`` (relative), ``partly`` if the last
    value is beyond the first that way (by more than ``tol``) but not every step is, ``no``
    otherwise (flat or the other way); ``-`` with fewer than two finite values.

    Raises
    ------
    ValueError
        If ``direction`` is not ``"up"`` or ``"down"``.
    """
    if direction not in ("up", "down"):
        raise ValueError(f"trend: direction must be 'up' or 'down', got {direction!r}")
    v = np.asarray([x for x in values if math.isfinite(float(x))], dtype=float)
    if len(v) < 2:
        return "-"
    sign = 1.0 if direction == "up" else -1.0

    def moved(a: float, b: float) -> bool:
        return sign * (b - a) > tol * max(abs(a), abs(b), 1e-12)

    steps = [moved(a, b) for a, b in zip(v[:-1], v[1:], strict=True)]
    if all(steps):
        return "yes"
    return "partly" if moved(v[0], v[-1]) else "no"


def _with(figure: str, ours: Sequence[str], match: Sequence[str]) -> pd.DataFrame:
    return with_ours(paper_table(figure), ours, match, figure)


def _series(means: pd.Series) -> str:
    return " -> ".join(_num(v) for v in means)


def _unfinished_note(totals: pd.DataFrame) -> str:
    if "unfinished" in totals.columns and totals["unfinished"].sum() > 0:
        return f" [{int((totals['unfinished'] > 0).sum())} run(s) with unfinished jobs]"
    return ""


def _best_rows(totals: pd.DataFrame, x: str, schemes: Sequence[str]) -> tuple[list[str], list[str]]:
    """Rows "total grows/falls with x" (A_online) and "A_online best at every x"."""
    means = mean_table(totals, x, "tct")
    present = [s for s in schemes if s in means.columns]
    if "aonline" not in present or len(present) < 2:
        raise ValueError(
            f"comparison: totals need aonline and at least one of {list(schemes)[1:]}, "
            f"have {list(means.columns)}"
        )
    means = means[present]
    best = means.idxmin(axis=1)
    others = means.drop(columns="aonline")
    ratio = means["aonline"] / others.min(axis=1)
    series = "; ".join(f"{label(s)} {_series(means[s])}" for s in present)
    rank = ", ".join(
        f"{_xval(v)}: {label(b)} (A_online / best other {_num(r)})"
        for (v, b), r in zip(best.items(), ratio, strict=True)
    )
    return [series, rank], [list(best == "aonline")]


def fig3_comparison(totals: pd.DataFrame, *, setting: str = "") -> pd.DataFrame:
    """Paper vs ours for Fig. 3 (total completion time vs J) from :func:`run_totals` output.

    Parameters
    ----------
    totals : pandas.DataFrame
        Columns ``scheme``, ``n_jobs``, ``tct`` (means over seeds are compared), runs of
        ``aonline`` and at least one of DRF, FIFO, BatchSche.
    setting : str
        Describes our runs (the ``setting`` row).

    Returns
    -------
    pandas.DataFrame
        One row per claim: ``quantity``, ``paper``, ``ours``, ``match`` (``yes``/``partly``/``no``,
        ``-`` where there is nothing to judge).

    Raises
    ------
    TypeError
        If ``totals`` is not a DataFrame.
    ValueError
        If it lacks a column or the schemes.
    """
    return _grow_and_rank("fig3", totals, "n_jobs", "up", setting)


def fig4_comparison(totals: pd.DataFrame, *, setting: str = "") -> pd.DataFrame:
    """Paper vs ours for Fig. 4 (total completion time vs edge servers); as
    :func:`fig3_comparison` with ``n_edge`` as the swept column and a falling trend."""
    return _grow_and_rank("fig4", totals, "n_edge", "down", setting)


def _grow_and_rank(figure: str, totals: pd.DataFrame, x: str, direction: str, setting: str) -> pd.DataFrame:
    (series, rank), (wins,) = _best_rows(totals, x, FIGURE_POLICIES["fig3"])
    means = mean_table(totals, x, "tct")["aonline"]
    return _with(
        figure,
        [setting + _unfinished_note(totals), f"A_online {_series(means)} ({series})", rank],
        ["-", trend(means, direction), _verdict(wins)],
    )


def fig5_comparison(totals: pd.DataFrame, *, setting: str = "") -> pd.DataFrame:
    """Paper vs ours for Fig. 5 (A_online's total weighted completion time vs F).

    The results sentence ("larger F, larger objective") is judged as a rising trend, the
    explanation sentence ("larger F, more jobs served, smaller objective") as a falling one;
    A_online's share of jobs admitted at zero cost is reported with the values.

    Parameters
    ----------
    totals : pandas.DataFrame
        :func:`run_totals` of ``aonline`` runs with columns ``F``, ``weighted_tct``, ``zero_cost``.
    setting : str
        Describes our runs.

    Returns
    -------
    pandas.DataFrame
        One row per claim: ``quantity``, ``paper``, ``ours``, ``match``.

    Raises
    ------
    TypeError
        If ``totals`` is not a DataFrame.
    ValueError
        If it lacks a column or an ``aonline`` run.
    """
    means = mean_table(totals, "F", "weighted_tct", schemes=["aonline"])["aonline"]
    zero = mean_table(totals, "F", "zero_cost", schemes=["aonline"])["aonline"]
    ours = ", ".join(f"F={_xval(f)}: {_num(v)} ({zero[f]:.0%} at cost 0)" for f, v in means.items())
    return _with(
        "fig5",
        [setting + _unfinished_note(totals), ours, ours],
        ["-", trend(means, "up"), trend(means, "down")],
    )


def fig6_comparison(totals: pd.DataFrame, *, setting: str = "") -> pd.DataFrame:
    """Paper vs ours for Fig. 6 (A_online's total weighted completion time vs S) from
    :func:`run_totals` of ``aonline`` runs (columns ``n_edge``, ``weighted_tct``).

    Raises
    ------
    TypeError
        If ``totals`` is not a DataFrame.
    ValueError
        If it lacks a column or an ``aonline`` run.
    """
    means = mean_table(totals, "n_edge", "weighted_tct", schemes=["aonline"])["aonline"]
    return _with("fig6", [setting + _unfinished_note(totals), _series(means)], ["-", trend(means, "down")])


def _versus(figure: str, totals: pd.DataFrame, x: str, winner: str, setting: str) -> pd.DataFrame:
    """One row per Preemptive variant present: who is smaller at every x."""
    means = mean_table(totals, x, "tct")
    if "aonline" not in means.columns:
        raise ValueError(f"{figure}_comparison: totals have no aonline run")
    rivals = [s for s in means.columns if s.startswith("preemptive")]
    if not rivals:
        raise ValueError(f"{figure}_comparison: totals have no preemptive run")
    ours, match = [], []
    for r in rivals:
        ratio = means["aonline"] / means[r]
        ours.append(
            f"vs {label(r)}: A_online / Preemptive "
            + ", ".join(f"{_xval(v)}: {_num(q)}" for v, q in ratio.items())
        )
        flags = (ratio > 1) if winner == "preemptive" else (ratio < 1)
        match.append(_verdict(list(flags)))
    table = paper_table(figure)
    rows = [table.iloc[0].tolist() + [setting + _unfinished_note(totals), "-"]]
    for o, m in zip(ours, match, strict=True):
        rows.append(table.iloc[1].tolist() + [o, m])
    return pd.DataFrame(rows, columns=["quantity", "paper", "ours", "match"])


def fig7_comparison(totals: pd.DataFrame, *, setting: str = "") -> pd.DataFrame:
    """Paper vs ours for Fig. 7 (A_online vs Preemptive without overhead, growing J).

    One judged row per Preemptive variant in ``totals`` (e.g. ``preemptive`` paying the upload
    delay and ``preemptive+nodelay`` ignoring it): ``yes`` when Preemptive's mean total
    completion time is smaller at every J.

    Parameters
    ----------
    totals : pandas.DataFrame
        :func:`run_totals` with columns ``scheme``, ``n_jobs``, ``tct``; runs of ``aonline`` and
        of at least one ``preemptive*`` scheme.
    setting : str
        Describes our runs.

    Raises
    ------
    TypeError
        If ``totals`` is not a DataFrame.
    ValueError
        If it lacks a column or the schemes.
    """
    return _versus("fig7", totals, "n_jobs", "preemptive", setting)


def fig8_comparison(totals: pd.DataFrame, *, setting: str = "") -> pd.DataFrame:
    """As :func:`fig7_comparison`, growing S (``n_edge``)."""
    return _versus("fig8", totals, "n_edge", "preemptive", setting)


def fig9_comparison(totals: pd.DataFrame, *, setting: str = "") -> pd.DataFrame:
    """Paper vs ours for Fig. 9 (with preemption overhead, growing J): ``yes`` when A_online's
    mean total completion time is smaller than each Preemptive variant's at every J."""
    return _versus("fig9", totals, "n_jobs", "aonline", setting)


def fig10_comparison(totals: pd.DataFrame, *, setting: str = "") -> pd.DataFrame:
    """As :func:`fig9_comparison`, growing S (``n_edge``)."""
    return _versus("fig10", totals, "n_edge", "aonline", setting)


def fig11_comparison(totals: pd.DataFrame, *, setting: str = "") -> pd.DataFrame:
    """Paper vs ours for Fig. 11 (A_online vs Preemptive, growing :math:`k_j`).

    Parameters
    ----------
    totals : pandas.DataFrame
        :func:`run_totals` with columns ``scheme``, ``gradient_mb``, ``tct``; runs of
        ``aonline`` and ``preemptive`` (other variants are ignored here).
    setting : str
        Describes our runs.

    Raises
    ------
    TypeError
        If ``totals`` is not a DataFrame.
    ValueError
        If it lacks a column or the schemes.
    """
    means = mean_table(totals, "gradient_mb", "tct", schemes=["aonline", "preemptive"])
    ratio = means["aonline"] / means["preemptive"]
    ours = ", ".join(f"k={_xval(k)} MB: {_num(q)}" for k, q in ratio.items())
    return _with(
        "fig11",
        [
            setting + _unfinished_note(totals),
            f"A_online / Preemptive {ours}",
            f"A_online {_series(means['aonline'])}; Preemptive {_series(means['preemptive'])}",
        ],
        ["-", _verdict(list(ratio > 1)), trend(ratio, "up")],
    )


def _util_rows(figure: str, totals: pd.DataFrame, x: str, setting: str) -> pd.DataFrame:
    means = mean_table(totals, x, "util")
    if "aonline" not in means.columns:
        raise ValueError(f"{figure}_comparison: totals have no aonline run")
    a = means["aonline"].dropna()
    rows = [setting + _unfinished_note(totals), f"A_online {' -> '.join(f'{v:.1%}' for v in a)}"]
    match = ["-", trend(a, "down")]
    rivals = [s for s in means.columns if s.startswith("preemptive")]
    parts, flags = [], []
    for r in rivals:
        both = means[["aonline", r]].dropna()  # only the x values where both were run
        pairs = ", ".join(f"{_xval(v)}: {q:.1%} vs {p:.1%}" for v, (p, q) in both.iterrows())
        parts.append(f"{label(r)} vs A_online {pairs}")
        flags += list(both[r] > both["aonline"])
    rows.append("; ".join(parts) if parts else "no Preemptive run")
    match.append(_verdict(flags))
    return _with(figure, rows, match)


def fig12_comparison(totals: pd.DataFrame, *, setting: str = "") -> pd.DataFrame:
    """Paper vs ours for Fig. 12 (average resource utilisation, growing J).

    Parameters
    ----------
    totals : pandas.DataFrame
        :func:`run_totals` with columns ``scheme``, ``n_jobs``, ``util``; runs of ``aonline``
        (and of ``preemptive*`` schemes for the second claim, ``-`` without them).
    setting : str
        Describes our runs.

    Raises
    ------
    TypeError
        If ``totals`` is not a DataFrame.
    ValueError
        If it lacks a column or an ``aonline`` run.
    """
    return _util_rows("fig12", totals, "n_jobs", setting)


def fig13_comparison(totals: pd.DataFrame, *, setting: str = "") -> pd.DataFrame:
    """As :func:`fig12_comparison`, growing S (``n_edge``)."""
    return _util_rows("fig13", totals, "n_edge", setting)


def fig14_comparison(by_jobs: pd.DataFrame, by_servers: pd.DataFrame, *, setting: str = "") -> pd.DataFrame:
    """Paper vs ours for Fig. 14 from two :func:`ratio_summary` tables (growing J, growing S).

    "Close to 1" reads ``yes`` when the mean ratio over all instances is at most 1.2, ``partly``
    at most 1.5, ``no`` above (:data:`CLOSE_TO_ONE`); the two trends as :func:`trend`.

    Raises
    ------
    TypeError
        If a table is not a DataFrame.
    ValueError
        If a table lacks ``ratio`` or ``instances``.
    """
    for t in (by_jobs, by_servers):
        _frame(t, ["ratio", "instances", "ratio_min", "ratio_max"], "fig14_comparison")
    allr = pd.concat([by_jobs, by_servers])
    mean = float((allr["ratio"] * allr["instances"]).sum() / allr["instances"].sum())
    close = "yes" if mean <= CLOSE_TO_ONE[0] else ("partly" if mean <= CLOSE_TO_ONE[1] else "no")
    lo, hi = float(allr["ratio_min"].min()), float(allr["ratio_max"].max())

    def fmt(t: pd.DataFrame, what: str) -> str:
        return f"{what} " + ", ".join(f"{_xval(v)}: {_num(r)}" for v, r in t["ratio"].items())

    return _with(
        "fig14",
        [
            setting,
            f"mean {_num(mean)} (instances {_num(lo)}-{_num(hi)})",
            fmt(by_jobs, "J"),
            fmt(by_servers, "S"),
        ],
        ["-", close, trend(by_jobs["ratio"], "up"), trend(by_servers["ratio"], "up")],
    )


# ------------------------------------------------------------------------------- figures

_AXIS = {
    "n_jobs": "number of jobs J",
    "n_edge": "number of edge servers S",
    "F": "price cap F = max(F1, F2)",
    "gradient_mb": "parameter size k_j (MB)",
    "tct": "total completion time (slots)",
    "weighted_tct": "total weighted completion time (slots)",
    "util": "average resource utilisation",
}


def line_figure(
    totals: pd.DataFrame,
    x: str,
    y: str = "tct",
    *,
    schemes: Sequence[str] | None = None,
    title: str = "",
    logx: bool = False,
    logy: bool = False,
):
    """Figs. 3-13: the mean of ``y`` per scheme against ``x``, with the min-max over seeds.

    Parameters
    ----------
    totals : pandas.DataFrame
        :func:`run_totals` output (columns ``scheme``, ``x``, ``y``).
    x, y : str
        Swept and measured columns.
    schemes : sequence of str, optional
        Schemes to draw (default: all present, in :data:`SCHEME_ORDER`).
    title : str
        Title above the axes (none if empty).
    logx, logy : bool
        Logarithmic axes.

    Returns
    -------
    matplotlib.figure.Figure
        Not saved: pass it to :func:`dlsched.plotting.savefig`.

    Raises
    ------
    TypeError
        If ``totals`` is not a DataFrame.
    ValueError
        If it lacks a column.
    """
    from dlsched import plotting

    _frame(totals, ["scheme", x, y], "line_figure")
    present = [s for s in SCHEME_ORDER if s in set(totals["scheme"])] + sorted(
        s for s in set(totals["scheme"]) if s not in SCHEME_ORDER
    )
    if schemes is not None:
        present = [s for s in schemes if s in present]
    data = totals[totals["scheme"].isin(present)]
    data = data.assign(label=data["scheme"].map(label))
    fig, ax = plotting.subplots()
    plotting.draw(
        "lineplot", data, ax=ax, x=x, y=y, hue="label", hue_order=[label(s) for s in present],
        style="label", markers=True, dashes=False, errorbar=("pi", 100),
    )  # fmt: skip
    ax.set(xlabel=_AXIS.get(x, x), ylabel=_AXIS.get(y, y))
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    if y == "util":
        from matplotlib.ticker import PercentFormatter

        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.legend(title=None, fontsize="small")
    if title:
        ax.set_title(title)
    return fig


def ratio_figure(rows: pd.DataFrame, *, title: str = ""):
    """Fig. 14: the performance ratio A_online / optimum against J and against S (two panels),
    mean with the min-max over seeds, and a line at 1.

    Parameters
    ----------
    rows : pandas.DataFrame
        :func:`ratio_run` rows with a column ``sweep`` (``"J"`` or ``"S"``) and ``n_jobs``,
        ``n_edge``, ``ratio``.
    title : str
        Title above the panels.

    Raises
    ------
    TypeError
        If ``rows`` is not a DataFrame.
    ValueError
        If it lacks a column.
    """
    from dlsched import plotting

    _frame(rows, ["sweep", "n_jobs", "n_edge", "ratio"], "ratio_figure")
    fig, axes = plotting.subplots(1, 2, figsize=(10.0, 4.0), sharey=True)
    for ax, (sw, x) in zip(axes, (("J", "n_jobs"), ("S", "n_edge")), strict=True):
        d = rows[rows["sweep"] == sw]
        plotting.draw("lineplot", d, ax=ax, x=x, y="ratio", marker="o", errorbar=("pi", 100), color="C0")
        ax.axhline(1.0, color="0.5", lw=1, ls="--")
        ax.set(xlabel=_AXIS[x], ylabel="A_online / offline optimum")
    if title:
        fig.suptitle(title)
    return fig

r"""One mapping from a real trace job (Philly, Microsoft ITP) to the job model of each paper.

A trace row gives four facts about a job: when it was submitted, how many GPUs it held, how long
it ran, and in which virtual cluster (Philly) or cluster (ITP). Each paper's job model needs more
(epochs, mini-batch times, PS bandwidths, utilities, loss curves, transfer delays). This module
keeps the four facts and draws the rest from the paper's own ranges, with a seed, so that the six
job models see *the same jobs*:

* :func:`trace_jobs` -- the validated job frame of a trace or of one week of it;
* :func:`machine_pools` / :func:`cluster_from_trace` -- the machines, sized from the trace;
* :func:`map_jobs` -- the :class:`~dlsched.core.jobs.Workload` of one job model;
* :func:`reference_frame` -- each mapped job's GPUs and duration computed back through the model's
  own ``rate`` (the invariants below);
* :func:`mapping_table` -- every choice, one row per (model, quantity), for a notebook to print;
* :func:`compatible_policies`, :func:`check_policy`, :func:`make_policy` -- which registered
  policies can run which mapped model.

The common rules (all models)
-----------------------------
* **Order and arrival.** Jobs are taken in *trace submit order*, ``(submit_time, job_id)`` (the
  loaders number jobs in that order, ties in file order; a frame whose ids do not increase with
  the submit time is refused, since the simulator orders the jobs of one slot by id). The arrival
  slot is
  :math:`a_j = \lfloor s_j / \Delta\rfloor` with :math:`s_j` the submit time in seconds from the
  start of the window (:func:`trace_jobs`) and :math:`\Delta` the model's slot length
  (:data:`SLOT_SECONDS`, each wing's own). :math:`a_j` is non-decreasing in submit order and the
  simulator orders ties by job id, so the trace's order is kept. Job ids are the trace's.
* **GPUs -> workers.** A job of :math:`g_j` GPUs asks for :math:`g_j` workers
  (``requested_workers``, FIFO's fixed count), each worker holding one GPU. Parameter servers
  (OASiS, PD-ORS, A_online, Optimus) take no GPU: their count is the model's own
  (``model.ps_for(g_j)``) and they ask for CPU and memory from the paper's ranges. SpeCon has no
  workers: the job is one container whose CPU share stands for its GPUs (below).
* **Duration and GPUs -> total work.** The job's drawn parameters fix its *shape* (epochs,
  chunks, batch, the split of a step between compute and communication); one common factor
  :math:`k_j` scales all of its time parameters so that, at its trace width and the *reference
  placement*, it runs exactly its trace duration :math:`d_j`. The reference placement is every
  task on a server of its own (no co-location speed-up of PD-ORS Fact 1, A_online
  :math:`\xi_j = 1` or Optimus's appendix model; those can only make a job faster). Hence the
  GPU-time invariant: :math:`\sum_j (\text{GPUs held}) \times (\text{reference duration}) =
  \sum_j g_j d_j`, checked through each model's own ``rate`` by :func:`reference_frame`.
* **Virtual cluster -> machine pool.** A trace node is an EC2 ``p2.8xlarge`` (8 GPUs, 32 vCPUs,
  488 GB; :data:`dlsched.core.instances.EC2_INSTANCES`, the 8-GPU instance the OASiS and PD-ORS
  wings use; Philly nodes have 8 GPUs in Helios's simulator, ``--num_gpus_per_node 8``). Philly
  gives the nodes of each virtual cluster (:func:`dlsched.traces.load_philly_vc_nodes`, Helios
  SC'21); ITP gives none, so a pool gets the fewest nodes that hold its *peak concurrent GPUs*
  when the trace is replayed with every job running from submission for its duration (what the
  recorded jobs needed at least); the same rule serves Philly VCs missing from the node table
  (4 VCs, 18 jobs). Only pools with jobs in the frame get machines. Where the model allows,
  a pool is a set of typed resources ``gpu:<pool>``, ``cpu:<pool>``, ``mem:<pool>`` carried only
  by its own nodes, so that all of a job's tasks stay in its VC (A_online: the pool is the job's
  worker and PS *type* :math:`u_j = v_j`, its own typed slots). Optimus and SpeCon have no pools:
  their schedulers read the node resources by the names ``cpu`` (and SpeCon ``mem``), so the VCs
  are merged.
* **What the trace lacks** (utilities, loss curves, transfer delays, model shapes) is drawn
  uniformly from the paper's printed ranges, imported from the wing (its constants, or its
  builder's defaults), one random stream per quantity (``rng.spawn``): a new seed changes only
  drawn quantities, never arrivals, widths, pools, the cluster or the reference durations.

Per model (short form; :func:`mapping_table` has the long one)
--------------------------------------------------------------
* **rigid** (slot 60 s, :func:`dlsched.workloads.philly`'s): a
  :class:`~dlsched.core.jobs.LinearModel` gang of exactly :math:`g_j` workers with work
  :math:`g_j d_j / \Delta` worker-slots, as :func:`dlsched.workloads.philly` but without its
  rescaling of the arrival window.
* **oasis** (3600 s): :class:`~dlsched.core.jobs.OasisModel` with :math:`E, N, M, \tau, e, b, B`
  uniform in Sec. V-A's ranges (spec 11.1; :mod:`dlsched.oasis.model` constants, :math:`\tau` read
  in seconds as the wing does), :math:`N \leftarrow \max(N, g_j)`; :math:`\tau` and :math:`e/b`
  scaled by one :math:`k_j`; PS :math:`\lceil w b/B\rceil` with 1-10 vCPUs and 2-32 GB; sigmoid
  utility by Sec. V-A's class mix; one ``c4.8xlarge`` PS server per node (:math:`H = K`).
* **pdors** (3600 s): :class:`~dlsched.core.jobs.PdorsModel` with :math:`E, K, F, \gamma, \tau, g`
  of spec 8 (:mod:`dlsched.pdors.model`), :math:`F \leftarrow \max(F, g_j)`; :math:`\tau` and both
  sync times scaled by one :math:`k_j` (reference: :math:`\lceil g_j/\gamma\rceil` PS, external
  bandwidth); PS 1-10 vCPUs, 2-32 GB; sigmoid utility :math:`\theta_{1,2,3}`.
* **aonline** (3600 s): :class:`~dlsched.core.jobs.AOnlineModel` with :math:`E, D, M, n, H, k, B` of
  Sec. VI (spec 12, :mod:`dlsched.aonline.model`), :math:`D \leftarrow \max(D, g_j)`; :math:`n, H, k`
  scaled by one :math:`k_j` (reference :math:`\xi_j = 0`); the trace nodes are the edge servers
  (worker slots = GPUs, PS slots = 6 per GPU), plus one cloud; delays :math:`\Delta_{js}` uniform in
  [1, 4] h per job and edge server and [10, 40] h to the cloud (``delays="cluster"``: the lower ends
  for every job, no per-job vector); ``T`` = smallest power of two with all arrivals in
  :math:`[0, T/1.5)`.
* **optimus** (600 s): the wing's :func:`~dlsched.optimus.workload.job_model` of a Table 1 type
  (uniform), sync or async (a coin), threshold in [1 %, 5 %], 1 % loss noise -- steps to converge
  and the real loss curve kept -- with every step-time term times :math:`k_j` and both bandwidths
  over :math:`k_j` (reference: :math:`g_j` workers and :math:`g_j` PS, one per server).
* **specon** (0.1 s): a :class:`~dlsched.specon.model.SpeconJob` container of a Table II type
  (uniform over ten, its real loss curve), CPU demand :math:`\min(g_j, 8)/8` of a node's usable
  cores (the "cap" reading of spec 3.3), solo time :math:`g_j d_j / 8`, so that alone on a node it
  runs :math:`g_j d_j / \min(g_j, 8)` (linear progress, spec 7.2); 5 s migration pause.

OASiS and PD-ORS workloads carry a horizon ``T`` (their policies plan over it): by default the
last slot at which a job would end had it started at its arrival with its trace width, plus the
slots the busiest pool needs to run all its GPU time on all its GPUs, plus one.

Limits on the real traces. OASiS's Algorithm 2 rejects a job whose one chunk-pass needs more than
:math:`N_i` worker-slots (spec 11.1 [N]); measured with :func:`dlsched.oasis.model.unschedulable_fraction`
on the whole Philly trace mapped with seed 0, no job is never-schedulable and none is too late for
the default ``T`` (3,286 slots; week 7: 827 slots). A SpeCon container lives on one node: the 289
Philly jobs of more than 8 GPUs become 8-GPU-equivalent containers running proportionally longer
(GPU time kept). A_online jobs keep their allocation from start to end ((2c)-(2d)) and wait 1-40 h
for their data.

Speed (whole Philly trace, 82,182 jobs, one core): :func:`map_jobs` takes 1.6 s (rigid), 2.0 s
(SpeCon), 4.6 s (Optimus), 6.9 s (OASiS) and 7.4 s (PD-ORS), the
:class:`~dlsched.core.jobs.Workload` constructor's placement check included (one empty-cluster
packing test per demand class). A_online's per-job delay vectors (353 numbers per job) make
about 1.6 GB and 90-100 s on the whole trace; ``delays="cluster"`` avoids them.

Bad input raises ``ValueError`` naming the file (``df.attrs["sources"]``), the 0-based row, the
job id and the column; a week outside the trace names the week and the trace's range; a policy
that cannot run a model names both and the reason (:func:`check_policy`).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
import math
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from dlsched import registry, traces, workloads
from dlsched.aonline import model as aonline_wing
from dlsched.core.cluster import Cluster, Server
from dlsched.core.instances import EC2_INSTANCES
from dlsched.core.jobs import (
    JobSpec,
    LinearModel,
    OasisModel,
    PdorsModel,
    RateContext,
    Sigmoid,
    Workload,
)
from dlsched.core.schedule import Placement
from dlsched.oasis import model as oasis_wing
from dlsched.optimus import workload as optimus_wing
from dlsched.pdors import model as pdors_wing
from dlsched.specon import model as specon_wing

__all__ = [
    "MODELS",
    "NODE_TYPE",
    "POOLED_MODELS",
    "SLOT_SECONDS",
    "TRACES",
    "check_policy",
    "cluster_from_trace",
    "compatible_policies",
    "machine_pools",
    "make_policy",
    "map_jobs",
    "mapping_table",
    "model_parameters",
    "reference_frame",
    "trace_jobs",
]

MODELS: tuple[str, ...] = ("rigid", "oasis", "pdors", "aonline", "optimus", "specon")
"""Job models a trace job can be mapped to."""

TRACES: tuple[str, ...] = ("philly", "itp")
"""Traces :func:`trace_jobs` reads."""

POOLED_MODELS: frozenset[str] = frozenset({"rigid", "oasis", "pdors", "aonline"})
"""Models whose jobs are confined to their machine pool (virtual cluster) when ``pools=True``."""

NODE_TYPE = "p2.8xlarge"
"""Default instance type of a trace node (8 GPUs, 32 vCPUs, 488 GB)."""

REQUIRED_COLUMNS: tuple[str, ...] = ("job_id", "submit_time", "duration", "num_gpus", "cluster")
"""Columns :func:`map_jobs` needs (those of :data:`dlsched.traces.JOB_COLUMNS` but ``gpu_time``)."""

WEEK_SECONDS = 7 * 86400

MAPPED_BY = "dlsched.arena.mapping"
"""``workload.params["mapped_by"]`` of a :func:`map_jobs` workload: the registry then checks that a
policy can run its model (:func:`check_policy`) before building it."""


def _default(fn: Callable, name: str):
    """Default of parameter ``name`` of a wing's builder (reused, not copied)."""
    return inspect.signature(fn).parameters[name].default


SLOT_SECONDS: Mapping[str, float] = {
    "rigid": float(_default(workloads.philly, "slot_seconds")),
    "oasis": float(_default(oasis_wing.oasis_workload, "slot_seconds")),
    "pdors": float(_default(pdors_wing.pdors_workload, "slot_seconds")),
    "aonline": float(aonline_wing.SLOT_SECONDS),
    "optimus": float(optimus_wing.INTERVAL_SECONDS),
    "specon": float(_default(specon_wing.specon_workload, "slot_seconds")),
}
"""Default slot length per model: each wing's own (rigid: :func:`dlsched.workloads.philly`)."""


# ------------------------------------------------------------------------------------ validation


def _source(df: pd.DataFrame) -> str:
    src = df.attrs.get("sources") if isinstance(df.attrs, Mapping) else None
    if src:
        return ", ".join(str(s) for s in src) if not isinstance(src, str) else src
    return "job frame"


def _row_error(df: pd.DataFrame, col: str, bad: np.ndarray, what: str) -> ValueError:
    row = int(np.flatnonzero(bad)[0])
    value = df[col].iloc[row]
    value = value.item() if isinstance(value, np.generic) else value
    jid = df["job_id"].iloc[row] if "job_id" in df.columns and col != "job_id" else None
    job = f" (job_id {jid})" if jid is not None else ""
    return ValueError(
        f"{_source(df)}: column {col!r} has {what} {value!r} at row {row}{job}; "
        f"{int(bad.sum())} bad value(s) in this column"
    )


def _numeric(df: pd.DataFrame, col: str) -> np.ndarray:
    vals = pd.to_numeric(df[col], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    bad = ~np.isfinite(vals)
    if bad.any():
        raise _row_error(df, col, bad, "a missing, non-numeric or non-finite value")
    return vals


def _validated(df: pd.DataFrame) -> pd.DataFrame:
    """The job frame in trace submit order with checked, typed columns (a new frame).

    Raises ``ValueError`` naming the source, column, row and job id of the first bad value.
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame of trace jobs, got {type(df).__name__}")
    missing = [c for c in REQUIRED_COLUMNS if c not in df.columns]
    if missing:
        raise traces.missing_columns_error(_source(df), missing, df.columns)
    if len(df) == 0:
        raise ValueError(f"{_source(df)}: the job frame has no rows")
    ids = _numeric(df, "job_id")
    bad = (ids < 0) | (ids != np.round(ids))
    if bad.any():
        raise _row_error(df, "job_id", bad, "a value that is not an integer >= 0:")
    ids = ids.astype(np.int64)
    dup = pd.Series(ids).duplicated(keep="first").to_numpy()
    if dup.any():
        row = int(np.flatnonzero(dup)[0])
        first = int(np.flatnonzero(ids == ids[row])[0])
        raise ValueError(
            f"{_source(df)}: column 'job_id' has duplicate value {int(ids[row])} at rows {first} and {row}; "
            f"{int(dup.sum())} duplicate(s) in this column"
        )
    submit = _numeric(df, "submit_time")
    if (submit < 0).any():
        raise _row_error(df, "submit_time", submit < 0, "a negative submit time")
    duration = _numeric(df, "duration")
    if (duration <= 0).any():
        raise _row_error(df, "duration", duration <= 0, "a duration <= 0:")
    gpus = _numeric(df, "num_gpus")
    bad = (gpus < 1) | (gpus != np.round(gpus))
    if bad.any():
        raise _row_error(df, "num_gpus", bad, "a GPU count that is not an integer >= 1:")
    pool = df["cluster"]
    bad = pool.isna().to_numpy()
    if bad.any():
        raise _row_error(df, "cluster", bad, "a missing value")
    order = np.lexsort((ids, submit))
    back = np.flatnonzero(np.diff(ids[order]) < 0)
    if back.size:  # the simulator orders jobs of one slot by id: ids must follow the submit order
        i, k = int(order[back[0]]), int(order[back[0] + 1])
        raise ValueError(
            f"{_source(df)}: column 'job_id' must increase with 'submit_time' (trace submit order, as the "
            f"loaders number jobs): row {k} (job_id {ids[k]}, submit_time {submit[k]:g}) is submitted after "
            f"row {i} (job_id {ids[i]}, submit_time {submit[i]:g}); renumber, e.g. "
            "df.sort_values('submit_time', kind='stable').assign(job_id=range(len(df)))"
        )
    out = pd.DataFrame(
        {
            "job_id": ids[order],
            "submit_time": submit[order],
            "duration": duration[order],
            "num_gpus": gpus[order].astype(np.int64),
            "cluster": pool.astype(str).to_numpy(dtype=object)[order],
        }
    )
    out.attrs = dict(df.attrs)
    return out


# ------------------------------------------------------------------------------------ the trace


def _trace_of(df: pd.DataFrame, trace: str | None) -> str | None:
    """``"philly"``, ``"itp"`` or None (a frame of unknown origin)."""
    if trace is not None:
        if trace not in TRACES:
            raise ValueError(f"trace must be one of {TRACES} or None, got {trace!r}")
        return trace
    name = df.attrs.get("trace") if isinstance(df.attrs, Mapping) else None
    names = [name] if isinstance(name, str) else list(name or [])
    for t in TRACES:
        if names and all(str(n).startswith(t) for n in names):
            return t
    return None


def _window_philly(df: pd.DataFrame, week) -> tuple[float, float, str, str]:
    """(start, end) on ``submit_time``'s axis and their wall-clock strings."""
    t0 = pd.Timestamp(df.attrs["t0"])
    first, last = t0, t0 + pd.Timedelta(seconds=float(df["submit_time"].max()))
    monday = (t0 - pd.Timedelta(days=t0.weekday())).normalize()
    n_weeks = math.floor((last - monday) / pd.Timedelta(days=7)) + 1
    rng_txt = (
        f"the philly trace has submissions from {first} to {last}: weeks 0..{n_weeks - 1} "
        f"(Mondays from {monday.date()}) or a start date in that range"
    )
    if isinstance(week, str):
        try:
            start = pd.Timestamp(week)
        except ValueError:
            raise ValueError(f"week {week!r} is not a date 'YYYY-MM-DD'; {rng_txt}") from None
        if start != start.normalize():
            raise ValueError(f"week {week!r} must be a date 'YYYY-MM-DD' (midnight); {rng_txt}")
    else:
        if not 0 <= week < n_weeks:
            raise ValueError(f"week {week} is outside the trace; {rng_txt}")
        start = monday + pd.Timedelta(days=7 * int(week))
    end = start + pd.Timedelta(days=7)
    if end <= first or start > last:
        raise ValueError(f"week {week!r} ({start.date()} to {end.date()}) is outside the trace; {rng_txt}")
    s = (start - t0).total_seconds()
    return s, s + WEEK_SECONDS, str(start), str(end)


def _window_itp(df: pd.DataFrame, week) -> tuple[float, float, str, str]:
    t0 = float(df.attrs.get("t0", 0.0))
    raw_last = t0 + float(df["submit_time"].max())
    n_weeks = math.floor(raw_last / WEEK_SECONDS) + 1
    first_week = math.floor(t0 / WEEK_SECONDS)
    rng_txt = (
        f"the itp trace has submissions from {t0:.0f} s to {raw_last:.0f} s after the trace start: "
        f"weeks {first_week}..{n_weeks - 1} (7-day windows from the trace start)"
    )
    if isinstance(week, str):
        raise ValueError(f"week {week!r}: the ITP trace has no calendar dates; give a week index; {rng_txt}")
    if not first_week <= week < n_weeks:
        raise ValueError(f"week {week} is outside the trace; {rng_txt}")
    start = float(week) * WEEK_SECONDS
    return start - t0, start + WEEK_SECONDS - t0, f"{start:.0f} s", f"{start + WEEK_SECONDS:.0f} s"


def _strict_check(df: pd.DataFrame, trace: str) -> None:
    """Rows the loader dropped as invalid, and (ITP) duplicate job ids, are errors here.

    Only the files are re-read, and only on this check's path (ITP ids, or when rows were dropped).
    """
    for src in df.attrs.get("sources", []):
        path = Path(src)
        if trace == "philly":
            if not df.attrs.get("dropped_invalid"):
                continue
            cols = {"duration": "duration", "num_gpus": "num_gpus"}
        else:
            cols = {"duration": "duration", "num_gpus": "num_gpu"}
        raw = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""])
        raw.columns = [str(c).strip() for c in raw.columns]
        if trace == "itp":
            raw = raw.drop_duplicates(keep="first")  # exact duplicates: the loader drops them (documented)
            dup = raw["job_id"].str.strip().duplicated(keep="first").to_numpy()
            if dup.any():
                pos = int(np.flatnonzero(dup)[0])
                jid = raw["job_id"].iloc[pos].strip()
                first = int(raw.index[raw["job_id"].str.strip() == jid][0])
                row = int(raw.index[pos])
                raise ValueError(
                    f"{path}: column 'job_id' has duplicate value {jid!r} at rows {first} and {row} "
                    f"(lines {first + 2} and {row + 2}) with different values in other columns"
                )
        for what, col in cols.items():
            vals = pd.to_numeric(raw[col], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
            bad = vals <= 0 if what == "duration" else vals < 1
            if bad.any():
                row = int(raw.index[np.flatnonzero(bad)[0]])
                need = "> 0" if what == "duration" else ">= 1"
                raise ValueError(
                    f"{path}: column {col!r} has value {raw[col].loc[row]!r} at row {row} (line {row + 2}): "
                    f"must be {need}; {int(bad.sum())} such row(s). The loader drops them; pass "
                    "strict=False to accept that"
                )


def trace_jobs(
    trace: str = "philly",
    *,
    week: int | str | None = None,
    cluster: int | str | Sequence[str] | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    strict: bool = True,
    verify: bool = True,
) -> pd.DataFrame:
    """The jobs of a real trace, or of one week of it, as a validated job frame.

    Parameters
    ----------
    trace : {"philly", "itp"}
        Microsoft Philly (:func:`dlsched.traces.load_philly`, the full Sep-Dec 2017 file) or
        Microsoft ITP (:func:`dlsched.traces.load_itp`).
    week : int or str or None
        None: the whole trace. Philly: week index ``k`` (the 7 days from the ``k``-th Monday
        00:00, counting from the Monday of the first submission, 2017-09-04) or a start date
        ``"YYYY-MM-DD"`` (7 days from that midnight; ``"2017-10-23"`` is the data folder's week
        extract). ITP: week index ``k``, the 7 days from ``k * 604800`` s after the trace start.
    cluster : optional
        Philly: a virtual-cluster id or a list of them; ITP: one cluster (1..10 or
        ``"cluster01"``..) as :func:`dlsched.traces.load_itp` takes it. None: all.
    data_dir : path, optional
        Trace folder (:func:`dlsched.traces.data_dir`).
    strict : bool
        True: a row the loader would drop as invalid (duration <= 0, GPUs < 1) or an ITP job id
        repeated with different values is an error naming file, row and column. False: accept the
        loader's dropping (counted in ``attrs["dropped_invalid"]``).
    verify : bool
        Check the files' sha256 (False: read another copy in the same format).

    Returns
    -------
    pandas.DataFrame
        Columns ``job_id, submit_time, duration, num_gpus, gpu_time, cluster`` in trace submit
        order; ``job_id`` is the loader's (global in the trace); ``submit_time`` in seconds from
        the window start (the week's start, else the trace's first submission). ``attrs`` add ``trace``
        (``"philly"`` / ``"itp"``), ``week``, ``window_start`` / ``window_end`` (wall clock for
        Philly, seconds from the trace start for ITP) and update ``t0_offset_s``.

    Raises
    ------
    ValueError
        An unknown trace or cluster; a week outside the trace (naming the week and the trace's
        range) or without jobs; a bad file (naming file, row, column).
    FileNotFoundError, dlsched.traces.TraceChecksumError
        As the loaders.
    """
    if trace not in TRACES:
        raise ValueError(f"trace must be one of {TRACES}, got {trace!r}")
    if week is not None and (
        isinstance(week, (bool, np.bool_)) or not isinstance(week, (int, np.integer, str))
    ):
        raise ValueError(f"week must be an int, a date string 'YYYY-MM-DD' or None, got {week!r}")
    if trace == "philly":
        df = traces.load_philly(data_dir, verify=verify)
        if cluster is not None:
            wanted = [cluster] if isinstance(cluster, str) else list(cluster)
            known = sorted(set(df["cluster"]))
            unknown = [c for c in wanted if c not in known]
            if unknown or not wanted:
                raise ValueError(f"unknown Philly virtual cluster(s) {unknown or wanted!r}; known: {known}")
            attrs = df.attrs
            df = df[df["cluster"].isin(wanted)].reset_index(drop=True)
            df.attrs = attrs
    else:
        df = traces.load_itp(cluster, data_dir, verify=verify)
    if strict:
        _strict_check(df, trace)
    attrs = dict(df.attrs)
    attrs["trace"] = trace
    if week is None:
        start, end = 0.0, float(df["submit_time"].max()) + 1.0
        w_start, w_end = (attrs["t0"], None)
    else:
        start, end, w_start, w_end = (_window_philly if trace == "philly" else _window_itp)(df, week)
    keep = (df["submit_time"] >= start) & (df["submit_time"] < end)
    out = df.loc[keep].reset_index(drop=True)
    if out.empty:
        raise ValueError(f"week {week!r} of the {trace} trace ({w_start} to {w_end}) has no jobs")
    out["submit_time"] = out["submit_time"] - start
    attrs.update(
        week=week,
        window_start=w_start,
        window_end=w_end,
        t0_offset_s=float(attrs.get("t0_offset_s", 0.0)) + start,
    )
    out.attrs = attrs
    return out


# ------------------------------------------------------------------------------------ machines


def _node_type(node_type: str) -> Mapping[str, float]:
    cap = EC2_INSTANCES.get(node_type) if isinstance(node_type, str) else None
    if cap is None or cap["gpu"] < 1:
        gpu_types = sorted(k for k, v in EC2_INSTANCES.items() if v["gpu"] >= 1)
        raise ValueError(f"node_type must be a GPU instance of EC2_INSTANCES {gpu_types}, got {node_type!r}")
    return cap


def _peak_gpus(submit: np.ndarray, duration: np.ndarray, gpus: np.ndarray) -> int:
    """Most GPUs in use at once if every job ran from its submission for its duration."""
    t = np.concatenate([submit, submit + duration])
    dg = np.concatenate([gpus, -gpus])
    order = np.lexsort((dg, t))  # at equal times a job ends before another starts
    return int(np.cumsum(dg[order]).max())


def machine_pools(
    df: pd.DataFrame,
    trace: str | None = None,
    *,
    pools: bool = True,
    nodes: int | Mapping[str, int] | None = None,
    node_type: str = NODE_TYPE,
    data_dir: str | os.PathLike[str] | None = None,
) -> pd.DataFrame:
    """The machine pools of a job frame and their node counts (the rule of the module docstring).

    Parameters
    ----------
    df : pandas.DataFrame
        A job frame (:func:`trace_jobs`, :func:`dlsched.traces.load_philly`, ...).
    trace : {"philly", "itp"} or None
        Which trace the frame comes from (default: ``df.attrs["trace"]``); Philly pools take their
        node counts from :func:`dlsched.traces.load_philly_vc_nodes`, other frames the peak rule.
    pools : bool
        False: one pool ``"all"`` holding the sum of the pools' nodes.
    nodes : int or mapping, optional
        Override: nodes per pool (a mapping pool -> count), or the total with ``pools=False``.
    node_type : str
        Instance type of a node (GPUs per node).
    data_dir : path, optional
        Trace folder for the Philly node table.

    Returns
    -------
    pandas.DataFrame
        One row per pool, sorted by pool: ``pool, nodes, gpus, jobs, max_job_gpus, gpu_seconds,
        peak_gpus, source`` (``"philly_vc_nodes"``, ``"peak"`` or ``"given"``).

    Raises
    ------
    ValueError
        A pool whose largest job needs more GPUs than the pool has (naming pool, row and job id),
        or a bad ``nodes``.
    """
    jobs = _validated(df)
    trace = _trace_of(df, trace)
    per_node = int(_node_type(node_type)["gpu"])
    vc_nodes: dict[str, int] = {}
    if trace == "philly" and (nodes is None or isinstance(nodes, Mapping)):
        vc = traces.load_philly_vc_nodes(data_dir)
        vc_nodes = dict(zip(vc["vc"], vc["num_nodes"].astype(int), strict=True))
    rows = []
    for pool, grp in jobs.groupby("cluster", sort=True):
        g = grp["num_gpus"].to_numpy(np.int64)
        peak = _peak_gpus(grp["submit_time"].to_numpy(), grp["duration"].to_numpy(), g)
        if isinstance(nodes, Mapping) and pool in nodes:
            n, src = nodes[pool], "given"
        elif pool in vc_nodes:
            n, src = vc_nodes[pool], "philly_vc_nodes"
        else:
            n, src = max(math.ceil(peak / per_node), math.ceil(int(g.max()) / per_node)), "peak"
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"nodes[{pool!r}] must be an integer >= 1, got {n!r}")
        rows.append(
            {
                "pool": str(pool), "nodes": int(n), "gpus": int(n) * per_node, "jobs": len(grp),
                "max_job_gpus": int(g.max()),
                "gpu_seconds": float(np.sum(g * grp["duration"].to_numpy())), "peak_gpus": peak,
                "source": src,
            }
        )  # fmt: skip
    out = pd.DataFrame(rows)
    if isinstance(nodes, Mapping):
        extra = sorted(set(nodes) - set(out["pool"]))
        if extra:
            raise ValueError(
                f"nodes names pool(s) {extra} without jobs in the frame; pools: {list(out['pool'])}"
            )
    if not pools:
        total = int(out["nodes"].sum())
        if nodes is not None and not isinstance(nodes, Mapping):
            if isinstance(nodes, (bool, np.bool_)) or not isinstance(nodes, (int, np.integer)) or nodes < 1:
                raise ValueError(f"nodes must be an integer >= 1 or a mapping pool -> nodes, got {nodes!r}")
            total = int(nodes)
        g_all = jobs["num_gpus"].to_numpy(np.int64)
        peak = _peak_gpus(jobs["submit_time"].to_numpy(), jobs["duration"].to_numpy(), g_all)
        given = nodes is not None and not isinstance(nodes, Mapping)
        row = {"pool": "all", "nodes": total, "gpus": total * per_node, "jobs": len(jobs)}
        row.update(max_job_gpus=int(g_all.max()), gpu_seconds=float(out["gpu_seconds"].sum()), peak_gpus=peak)
        out = pd.DataFrame([{**row, "source": "given" if given else "sum of pools"}])
    elif nodes is not None and not isinstance(nodes, Mapping):
        raise ValueError(f"nodes must be a mapping pool -> nodes when pools=True, got {nodes!r}")
    too_big = out["max_job_gpus"] > out["gpus"]
    if too_big.any():
        r = out.loc[too_big].iloc[0]
        in_pool = jobs if r["pool"] == "all" else jobs[jobs["cluster"] == r["pool"]]
        jid = int(in_pool["job_id"].iloc[int(in_pool["num_gpus"].to_numpy().argmax())])
        row = int(np.flatnonzero(pd.to_numeric(df["job_id"]).to_numpy() == jid)[0])
        raise ValueError(
            f"{_source(df)}: column 'num_gpus' has {r['max_job_gpus']} at row {row} (job_id {jid}): "
            f"more GPUs than pool {r['pool']!r} has ({r['nodes']} nodes x {per_node} GPUs)"
        )
    return out


def _res(resource: str, pool: str, pooled: bool) -> str:
    return f"{resource}:{pool}" if pooled else resource


def _pooled(model: str, pools: bool | None) -> bool:
    if pools is None:
        return model in POOLED_MODELS
    if not isinstance(pools, (bool, np.bool_)):
        raise ValueError(f"pools must be True, False or None, got {pools!r}")
    if pools and model not in POOLED_MODELS:
        raise ValueError(
            f"model {model!r} has no machine pools (its scheduler reads the node resources by their plain "
            f"names); pass pools=False or None. Models with pools: {sorted(POOLED_MODELS)}"
        )
    return bool(pools)


def _check_model(model: str) -> str:
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")
    return model


def _slot(model: str, slot_seconds: float | None) -> float:
    if slot_seconds is None:
        return SLOT_SECONDS[model]
    ok = isinstance(slot_seconds, (int, float, np.number)) and not isinstance(slot_seconds, (bool, np.bool_))
    if not ok or not math.isfinite(float(slot_seconds)) or slot_seconds <= 0:
        raise ValueError(f"slot_seconds must be a finite number > 0, got {slot_seconds!r}")
    return float(slot_seconds)


def _aonline_cloud_workers(max_gpus: int) -> int:
    """Cloud worker slots per type: the wing's default, raised to hold the widest job (:math:`D_j`)."""
    return max(
        int(_default(aonline_wing.aonline_workload, "cloud_workers")), aonline_wing.CHUNKS[1], max_gpus
    )


def _build_cluster(model: str, table: pd.DataFrame, pooled: bool, node_type: str, slot: float) -> Cluster:
    cap = _node_type(node_type)
    node = {"gpu": float(cap["gpu"]), "cpu": float(cap["cpu"]), "mem": float(cap["mem"])}
    pools = list(table["pool"])
    counts = list(table["nodes"])
    if model == "aonline":
        per_gpu = float(_default(aonline_wing.aonline_workload, "cpus_per_gpu"))
        n_edge = int(sum(counts))
        n_types = len(pools) if pooled else 1
        W = np.zeros((n_edge, n_types), dtype=np.int64)
        P = np.zeros((n_edge, n_types), dtype=np.int64)
        s = 0
        for u, n in enumerate(counts):
            t = u if pooled else 0
            W[s : s + n, t] = int(node["gpu"])
            P[s : s + n, t] = max(1, round(per_gpu * node["gpu"]))
            s += n
        cloud_w = _aonline_cloud_workers(int(table["max_job_gpus"].max()))
        h = aonline_wing.SLOT_SECONDS / slot  # delays are in hours (1 slot = 1 hour in Sec. VI)
        return aonline_wing.aonline_cluster(
            W, P, cloud_w, max(1, round(per_gpu * cloud_w)),
            edge_delay=aonline_wing.EDGE_DELAY[0] * h, cloud_delay=aonline_wing.CLOUD_DELAY[0] * h,
            slot_seconds=slot,
        )  # fmt: skip
    servers: list[Server] = []
    if model == "specon":
        mem = float(_default(specon_wing.specon_workload, "container_mem_gb"))
        for pool, n in zip(pools, counts, strict=True):
            servers += [
                Server(f"{pool}/n{i}", "unified", {"cpu": node["cpu"], "mem": node["mem"]}) for i in range(n)
            ]
        if mem > node["mem"]:  # pragma: no cover - p2/p3/g3 nodes have hundreds of GB
            raise ValueError(f"a SpeCon container of {mem} GB does not fit a {node_type} node")
        return Cluster(tuple(servers), ("cpu", "mem"), compressible=("cpu",), slot_seconds=slot)
    role = "worker" if model == "oasis" else "unified"
    for pool, n in zip(pools, counts, strict=True):
        caps = {_res(r, pool, pooled): v for r, v in node.items()}
        servers += [Server(f"{pool}/n{i}", role, caps) for i in range(n)]
    if model == "oasis":  # K = H: one PS server (the wing's PS type) per worker node, in the same pool
        ps_type = _default(oasis_wing.oasis_workload, "ps_type")
        ps_cap = EC2_INSTANCES[ps_type]
        for pool, n in zip(pools, counts, strict=True):
            caps = {
                _res("cpu", pool, pooled): float(ps_cap["cpu"]),
                _res("mem", pool, pooled): float(ps_cap["mem"]),
            }
            servers += [Server(f"{pool}/ps{i}", "ps", caps) for i in range(n)]
    resources = tuple(dict.fromkeys(r for s in servers for r in s.capacity))
    return Cluster(tuple(servers), resources, slot_seconds=slot)


def cluster_from_trace(
    df: pd.DataFrame,
    model: str = "rigid",
    *,
    trace: str | None = None,
    pools: bool | None = None,
    nodes: int | Mapping[str, int] | None = None,
    node_type: str = NODE_TYPE,
    slot_seconds: float | None = None,
    data_dir: str | os.PathLike[str] | None = None,
) -> Cluster:
    """The cluster on which :func:`map_jobs` runs ``df``'s jobs as ``model`` jobs.

    Nodes per pool from :func:`machine_pools`; each node is a ``node_type`` instance. Layout per
    model: rigid, PD-ORS, Optimus: one ``unified`` pool of nodes with ``gpu, cpu, mem``
    (typed ``<r>:<pool>`` when pooled); OASiS: the nodes are the worker servers and each pool
    gets as many PS servers (the wing's ``c4.8xlarge``, ``cpu, mem``), Sec. V-A's :math:`H = K`;
    A_online: the nodes are the edge servers, worker slots = GPUs, PS slots = the wing's
    ``cpus_per_gpu`` x GPUs, one worker and one PS type per pool, plus the cloud
    (:func:`dlsched.aonline.model.aonline_cluster`); SpeCon: nodes with compressible ``cpu`` and
    hard ``mem`` (:func:`dlsched.specon.model.make_cluster`'s layout).

    Parameters
    ----------
    df, trace, nodes, node_type, data_dir
        As :func:`machine_pools`.
    model : str
        One of :data:`MODELS`.
    pools : bool or None
        None: pools for the models of :data:`POOLED_MODELS`; True for another model is an error.
    slot_seconds : float, optional
        Slot length (default :data:`SLOT_SECONDS` of the model).

    Returns
    -------
    Cluster
    """
    model = _check_model(model)
    pooled = _pooled(model, pools)
    table = machine_pools(df, trace, pools=pooled, nodes=nodes, node_type=node_type, data_dir=data_dir)
    return _build_cluster(model, table, pooled, node_type, _slot(model, slot_seconds))


# ------------------------------------------------------------------------------------ parameters


def _pair(value, what: str, *, lo: float = 0.0, strict: bool = False) -> tuple[float, float]:
    try:
        a, b = (float(x) for x in value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a pair (low, high), got {value!r}") from None
    if not (math.isfinite(a) and math.isfinite(b)) or (a <= lo if strict else a < lo) or b < a:
        raise ValueError(f"{what} must satisfy {lo:g} {'<' if strict else '<='} low <= high, got {value!r}")
    return a, b


def _oasis_defaults() -> dict[str, object]:
    fn = oasis_wing.oasis_workload
    return {"mix": tuple(_default(fn, "mix")), "gamma1": tuple(_default(fn, "gamma1")),
            "gamma3": tuple(_default(fn, "gamma3")), "horizon": None}  # fmt: skip


def _model_defaults(model: str) -> dict[str, object]:
    if model == "rigid":
        return {}
    if model == "oasis":
        return _oasis_defaults()
    if model == "pdors":
        return {"theta1": pdors_wing.THETA1, "theta2": pdors_wing.THETA2, "theta3": pdors_wing.THETA3,
                "horizon": None}  # fmt: skip
    if model == "aonline":
        fn = aonline_wing.aonline_workload
        return {"weights": tuple(_default(fn, "weights")), "preemptible": _default(fn, "preemptible"),
                "delays": "job"}  # fmt: skip
    if model == "optimus":
        fn = optimus_wing.optimus_workload
        return {"mode": _default(fn, "mode"), "threshold": tuple(_default(fn, "threshold")),
                "loss_noise": _default(fn, "loss_noise"), "job_types": None}  # fmt: skip
    fn = specon_wing.specon_workload
    return {"types": None, "migration_pause": _default(fn, "migration_pause"),
            "cpu_usable": _default(fn, "cpu_usable")}  # fmt: skip


def model_parameters(model: str) -> dict[str, object]:
    """The extra parameters :func:`map_jobs` takes for ``model`` and their defaults.

    rigid: none. oasis: ``mix`` (insensitive / sensitive / critical), ``gamma1``, ``gamma3``
    (ranges), ``horizon`` (None: the rule of :func:`map_jobs`). pdors: ``theta1, theta2, theta3``,
    ``horizon``. aonline: ``weights`` (range), ``preemptible``, ``delays`` (``"job"``: the paper's
    :math:`\\Delta_{js}` drawn per job and server; ``"cluster"``: every job uses the cluster's
    default delays, the lower ends of the ranges, which saves a vector per job on whole traces).
    optimus: ``mode`` ({"random", "sync", "async"}), ``threshold`` (range), ``loss_noise``,
    ``job_types`` (Table 1 keys, None: all). specon: ``types`` (Table II types, None: all),
    ``migration_pause`` (s), ``cpu_usable``. Defaults are the wings' own.
    """
    return _model_defaults(_check_model(model))


def _params(model: str, given: Mapping[str, object]) -> dict[str, object]:
    known = _model_defaults(model)
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise ValueError(f"unknown parameter(s) {unknown} for model {model!r}; known: {sorted(known)}")
    p = {**known, **given}
    if model == "oasis":
        mix = np.asarray(p["mix"], dtype=float)
        if mix.shape != (3,) or (mix < 0).any() or abs(mix.sum() - 1) > 1e-9:
            raise ValueError(f"mix must be three probabilities summing to 1, got {p['mix']!r}")
        p["mix"] = tuple(float(x) for x in mix)
        p["gamma1"] = _pair(p["gamma1"], "gamma1", strict=True)
        p["gamma3"] = _pair(p["gamma3"], "gamma3", lo=-math.inf)
    elif model == "pdors":
        p["theta1"] = _pair(p["theta1"], "theta1", strict=True)
        p["theta2"] = _pair(p["theta2"], "theta2")
        p["theta3"] = _pair(p["theta3"], "theta3", lo=-math.inf)
    elif model == "aonline":
        p["weights"] = _pair(p["weights"], "weights", strict=True)
        if not isinstance(p["preemptible"], (bool, np.bool_)):
            raise ValueError(f"preemptible must be a bool, got {p['preemptible']!r}")
        if p["delays"] not in ("job", "cluster"):
            raise ValueError(f"delays must be 'job' or 'cluster', got {p['delays']!r}")
    elif model == "optimus":
        if p["mode"] not in optimus_wing.MODES:
            raise ValueError(f"mode must be one of {optimus_wing.MODES}, got {p['mode']!r}")
        lo, hi = _pair(p["threshold"], "threshold", strict=True)
        if hi >= 1:
            raise ValueError(f"threshold must satisfy 0 < low <= high < 1, got {p['threshold']!r}")
        p["threshold"] = (lo, hi)
        noise = p["loss_noise"]
        if not isinstance(noise, (int, float)) or isinstance(noise, bool) or not 0 <= noise < 1:
            raise ValueError(f"loss_noise must be in [0, 1), got {noise!r}")
        types = list(optimus_wing.TABLE1) if p["job_types"] is None else list(p["job_types"])
        bad = [k for k in types if k not in optimus_wing.TABLE1]
        if bad or not types:
            raise ValueError(
                f"job_types must be keys of TABLE1 {list(optimus_wing.TABLE1)}, got {p['job_types']!r}"
            )
        p["job_types"] = tuple(types)
    elif model == "specon":
        types = list(specon_wing.TYPE_CURVES) if p["types"] is None else list(p["types"])
        bad = [k for k in types if k not in specon_wing.TYPE_CURVES]
        if bad or not types:
            raise ValueError(
                f"types must be keys of TYPE_CURVES {list(specon_wing.TYPE_CURVES)}, got {p['types']!r}"
            )
        p["types"] = tuple(types)
        for f in ("migration_pause", "cpu_usable"):
            v = p[f]
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v) or v < 0:
                raise ValueError(f"{f} must be a finite number >= 0, got {v!r}")
        if not 0 < p["cpu_usable"] <= 1:
            raise ValueError(f"cpu_usable must be in (0, 1], got {p['cpu_usable']!r}")
    if "horizon" in p and p["horizon"] is not None:
        h = p["horizon"]
        if isinstance(h, (bool, np.bool_)) or not isinstance(h, (int, np.integer)) or h < 1:
            raise ValueError(f"horizon must be an integer >= 1 or None, got {h!r}")
    return p


# ------------------------------------------------------------------------------------ builders


@dataclasses.dataclass(frozen=True)
class _Jobs:
    """The trace facts of the jobs, in submit order, on one model's cluster."""

    ids: np.ndarray
    submit: np.ndarray  # s from the window start
    d: np.ndarray  # s
    g: np.ndarray  # GPUs
    pool: np.ndarray  # pool name (object)
    pool_idx: np.ndarray  # index into pools
    pools: tuple[str, ...]
    pooled: bool
    arrival: np.ndarray
    slot: float
    cluster: Cluster
    node: Mapping[str, float]

    @property
    def n(self) -> int:
        return len(self.ids)

    def res(self, r: str, j: int) -> str:
        return _res(r, self.pool[j], self.pooled)


def _ints(rng: np.random.Generator, r: Sequence[float], n: int) -> np.ndarray:
    """Uniform integers over the closed range ``r`` (the wings' convention for counts)."""
    return rng.integers(int(math.ceil(r[0])), int(math.floor(r[1])) + 1, n)


def _build_rigid(J: _Jobs, rs: Mapping[str, np.random.Generator], p: Mapping) -> tuple[list[JobSpec], dict]:
    work = J.g * J.d / J.slot
    specs = [
        JobSpec(
            int(J.ids[j]), int(J.arrival[j]),
            LinearModel(work=float(work[j]), min_gang=int(J.g[j]), max_gang=int(J.g[j])),
            {J.res("gpu", j): 1.0}, requested_workers=int(J.g[j]), name=str(J.pool[j]),
            submit_time=float(J.submit[j]),
        )
        for j in range(J.n)
    ]  # fmt: skip
    return specs, {}


def _horizon(J: _Jobs, given: int | None) -> int:
    """Default T of the plan-ahead models (OASiS, PD-ORS): the last slot at which a job would end had
    it started at its arrival with its trace width, plus the slots the busiest pool needs to run all
    of its jobs' GPU time on all of its GPUs (room for queueing)."""
    if given is not None:
        return int(given)
    end = int(np.max(J.arrival + np.ceil(J.d / J.slot - 1e-9)))
    gpu_cols = [i for i, r in enumerate(J.cluster.resources) if r == "gpu" or r.startswith("gpu:")]
    cap = {
        r: J.cluster.capacity[:, i].sum()
        for r, i in zip([J.cluster.resources[i] for i in gpu_cols], gpu_cols, strict=True)
    }
    drain = 0
    for pool in J.pools:
        mask = J.pool == pool
        gpus = cap[_res("gpu", pool, J.pooled)] if J.pooled else cap["gpu"]
        drain = max(drain, math.ceil(float(np.sum(J.g[mask] * J.d[mask])) / (J.slot * gpus) - 1e-9))
    return end + drain + 1


def _sigmoid_oasis(rs, n: int, p: Mapping) -> tuple[np.ndarray, list[Sigmoid]]:
    """OASiS Sec. V-A utilities (spec 11.1): class by ``mix``, gamma2 by class (the wing's ranges)."""
    cls = rs["utility_class"].choice(3, size=n, p=np.asarray(p["mix"]))
    g1 = rs["gamma1"].uniform(*p["gamma1"], n)
    g3 = rs["gamma3"].uniform(*p["gamma3"], n)
    sens = rs["gamma2"].uniform(*oasis_wing.GAMMA2_SENSITIVE, n)
    crit = rs["gamma2"].uniform(*oasis_wing.GAMMA2_CRITICAL, n)
    g2 = np.where(cls == 0, 0.0, np.where(cls == 1, sens, crit))
    return cls, [Sigmoid(float(a), float(b), float(c)) for a, b, c in zip(g1, g2, g3, strict=True)]


def _build_oasis(J: _Jobs, rs, p) -> tuple[list[JobSpec], dict]:
    w, n = oasis_wing, J.n
    E = _ints(rs["epochs"], w.EPOCHS, n)
    N = np.maximum(_ints(rs["chunks"], w.CHUNKS, n), J.g)  # (3): at most N_i workers, so N_i >= g_j
    M = _ints(rs["minibatches"], w.MINIBATCHES, n)
    tau_s = rs["tau"].uniform(*w.TAU, n)  # the wing's default reading: tau_i in seconds
    e_mb = rs["gradient"].uniform(*w.GRADIENT_MB, n)
    b = rs["worker_bw"].uniform(*w.WORKER_BANDWIDTH_GBPS, n)
    B = rs["ps_bw"].uniform(*w.PS_BANDWIDTH_GBPS, n)
    comm_s = e_mb * 8.0 / (b * 1000.0)  # e_i/b_i in s: MB = 1e6 bytes, Gbps = 1e9 bit/s (the wing's units)
    # g_j workers run E N M mini-batches of (tau + 2 comm) each in d_j: scale both by k
    k = (J.d * J.g / (E * N * M)) / (tau_s + 2.0 * comm_s)
    tau, comm = tau_s * k / J.slot, comm_s * k / J.slot
    ps_cpu = _ints(rs["ps_demand"], w.PS_CPU, n)
    ps_mem = _ints(rs["ps_demand"], w.PS_MEM_GB, n)
    cls, utils = _sigmoid_oasis(rs, n, p)
    specs = []
    for j in range(n):
        model = OasisModel(epochs=int(E[j]), chunks=int(N[j]), minibatches=int(M[j]), tau=float(tau[j]),
                           comm=float(comm[j]), worker_bw=float(b[j]), ps_bw=float(B[j]))  # fmt: skip
        specs.append(
            JobSpec(
                int(J.ids[j]), int(J.arrival[j]), model, {J.res("gpu", j): 1.0},
                {J.res("cpu", j): float(ps_cpu[j]), J.res("mem", j): float(ps_mem[j])},
                utility=utils[j], requested_workers=int(J.g[j]),
                name=f"{J.pool[j]} {w.UTILITY_CLASSES[int(cls[j])]}", submit_time=float(J.submit[j]),
            )
        )  # fmt: skip
    return specs, {}


def _build_pdors(J: _Jobs, rs, p) -> tuple[list[JobSpec], dict]:
    w, n = pdors_wing, J.n
    E = _ints(rs["epochs"], w.EPOCHS, n)
    K = _ints(rs["samples"], w.SAMPLES, n)
    F = np.maximum(_ints(rs["batch"], w.BATCH, n), J.g)  # (4): w <= F_i, so F_i >= g_j
    gam = _ints(rs["ratio"], w.RATIO, n)
    tau0 = rs["tau"].uniform(*w.TAU, n) / J.slot  # the wing's default reading: tau_i in seconds
    g_mb = rs["gradient"].uniform(*w.GRADIENT_MB, n)
    s_int0 = w.sync_slots(g_mb, w.B_INTERNAL_GBPS, J.slot)
    s_ext0 = w.sync_slots(g_mb, w.B_EXTERNAL_GBPS, J.slot)
    ps = np.ceil(J.g / gam)  # model.ps_for(g_j)
    per_sample = tau0 + (J.g / ps) * s_ext0 / F  # reference: not co-located, b = b^(e)
    k = (J.d / J.slot) / (E * K * per_sample / J.g)
    ps_cpu = _ints(rs["ps_demand"], w.PS_CPU, n)
    ps_mem = _ints(rs["ps_demand"], w.MEM_GB, n)
    t1 = rs["theta1"].uniform(*p["theta1"], n)
    t2 = rs["theta2"].uniform(*p["theta2"], n)
    t3 = rs["theta3"].uniform(*p["theta3"], n)
    specs = []
    for j in range(n):
        model = PdorsModel(epochs=int(E[j]), samples=int(K[j]), batch=int(F[j]), tau=float(tau0[j] * k[j]),
                           sync_internal=float(s_int0[j] * k[j]), sync_external=float(s_ext0[j] * k[j]),
                           ratio=float(gam[j]))  # fmt: skip
        specs.append(
            JobSpec(
                int(J.ids[j]), int(J.arrival[j]), model, {J.res("gpu", j): 1.0},
                {J.res("cpu", j): float(ps_cpu[j]), J.res("mem", j): float(ps_mem[j])},
                utility=Sigmoid(float(t1[j]), float(t2[j]), float(t3[j])), requested_workers=int(J.g[j]),
                name=f"{J.pool[j]} g{g_mb[j]:.0f}MB", submit_time=float(J.submit[j]),
            )
        )  # fmt: skip
    return specs, {}


def _build_aonline(J: _Jobs, rs, p) -> tuple[list[JobSpec], dict]:
    w, n = aonline_wing, J.n
    E = _ints(rs["epochs"], w.EPOCHS, n)
    D = np.maximum(_ints(rs["chunks"], w.CHUNKS, n), J.g)  # (2a): at most D_j workers, so D_j >= g_j
    M = _ints(rs["minibatches"], w.MINIBATCHES, n)
    n_h = rs["compute"].uniform(*w.COMPUTE_HOURS, n)
    H_ms = rs["update"].uniform(*w.UPDATE_MS, n)
    k_mb = rs["gradient"].uniform(*w.GRADIENT_MB, n)
    bw = np.minimum(
        rs["bandwidth"].uniform(*w.WORKER_BW_MBPS, n),
        rs["bandwidth"].uniform(*w.PS_BW_GBPS, n) * w.MBPS_PER_GBPS,
    )  # the wing's "min" reading
    step0 = n_h * 3600.0 / J.slot + H_ms / 1000.0 / J.slot + w.comm_slots(k_mb, bw, J.slot)  # 1/p_j, xi_j = 0
    k = (J.d / J.slot) / (E * D * M * step0 / J.g)  # n_j, H_j and k_j scale 1/p_j linearly
    weight = rs["weight"].uniform(*p["weights"], n)
    hours = w.SLOT_SECONDS / J.slot
    n_edge = J.cluster.n_servers - 1
    if p["delays"] == "job":
        edge = _ints(rs["delay"], w.EDGE_DELAY, (n, n_edge)) * hours
        cloud = _ints(rs["delay"], w.CLOUD_DELAY, (n, 1)) * hours
        delays = np.concatenate([edge, cloud], axis=1)
    specs = []
    for j in range(n):
        model = w.aonline_job_model(
            epochs=int(E[j]), chunks=int(D[j]), minibatches=int(M[j]), compute_hours=float(n_h[j] * k[j]),
            update_ms=float(H_ms[j] * k[j]), gradient_mb=float(k_mb[j] * k[j]), bandwidth_mbps=float(bw[j]),
            slot_seconds=J.slot, weight=float(weight[j]), preemptible=bool(p["preemptible"]),
        )  # fmt: skip
        u = int(J.pool_idx[j]) if J.pooled else 0
        specs.append(
            JobSpec(  # as dlsched.aonline.model.aonline_job (types u_j = v_j = the pool), with submit_time
                int(J.ids[j]), int(J.arrival[j]), model, {w.worker_resource(u): 1}, {w.ps_resource(u): 1},
                requested_workers=int(J.g[j]), name=f"{J.pool[j]} u{u}v{u}",
                transfer_delay=tuple(delays[j].tolist()) if p["delays"] == "job" else None,
                submit_time=float(J.submit[j]),
            )
        )  # fmt: skip
    U = len(J.pools) if J.pooled else 1
    T = 2 ** math.ceil(math.log2(1.5 * (int(J.arrival.max()) + 1)))  # arrivals in [1, T/1.5] (Sec. VI)
    return specs, {"T": max(1, int(T)), "U": U, "V": U}


def _reference_placement(model, g: int) -> Placement:
    """Every task of the job on a server of its own (no co-location)."""
    p = model.ps_for(g) if model.needs_ps else 0
    return Placement(tuple((i, 1) for i in range(g)), tuple((g + i, 1) for i in range(p)))


def _build_optimus(J: _Jobs, rs, p) -> tuple[list[JobSpec], dict]:
    w, n = optimus_wing, J.n
    types = p["job_types"]
    keys = [types[int(i)] for i in rs["type"].integers(0, len(types), n)]
    coin = rs["mode"].random(n) < 0.5  # the wing's draw: sync if random() < 0.5
    modes = [p["mode"] if p["mode"] != "random" else ("sync" if c else "async") for c in coin]
    thr = rs["threshold"].uniform(*p["threshold"], n)
    seeds = rs["noise"].integers(0, 2**31, n)
    ctx = RateContext(J.cluster, np.zeros_like(J.cluster.capacity))
    rate0: dict[tuple[str, str, int], float] = {}  # the step time does not depend on the threshold
    specs = []
    for j in range(n):
        base = w.job_model(keys[j], modes[j], threshold=float(thr[j]), loss_noise=float(p["loss_noise"]),
                           noise_seed=int(seeds[j]))  # fmt: skip
        g = int(J.g[j])
        key = (keys[j], modes[j], g)
        if key not in rate0:
            rate0[key] = base.rate(None, _reference_placement(base, g), ctx)
        k = (J.d[j] / J.slot) * rate0[key] / base.total_steps
        times = {f: getattr(base, f) * k for f in ("t_forward", "t_back", "t_update", "delta", "delta_ps")}
        model = dataclasses.replace(base, **times, ps_bw=base.ps_bw / k, worker_bw=base.worker_bw / k)
        specs.append(
            JobSpec(
                int(J.ids[j]), int(J.arrival[j]), model, {"gpu": 1.0}, w.ps_demand(keys[j]),
                requested_workers=g, name=f"{J.pool[j]} {keys[j]}-{modes[j]}", submit_time=float(J.submit[j]),
            )
        )  # fmt: skip
    return specs, {}


@functools.cache
def _curve_shape(curve: str) -> tuple[int, int]:
    """(steps, steps per epoch) of a SpeCon loss curve."""
    steps = len(specon_wing.curve_losses(curve))
    return steps, specon_wing.SpeconJob(work=1.0, curve=curve).steps_per_epoch


def _build_specon(J: _Jobs, rs, p) -> tuple[list[JobSpec], dict]:
    w, n = specon_wing, J.n
    types = p["types"]
    kinds = [types[int(i)] for i in rs["type"].integers(0, len(types), n)]
    per_node = float(J.node["gpu"])
    usable = float(p["cpu_usable"]) * float(J.node["cpu"])
    g_eq = np.minimum(J.g, per_node)  # one container on one node: at most a node's GPUs
    kappa = usable * g_eq / per_node  # cores asked: the job's share of a node's usable cores
    solo = J.g * J.d / per_node  # linear progress: alone it runs solo * usable / kappa = g d / g_eq
    mem = float(_default(w.specon_workload, "container_mem_gb"))
    specs = []
    for j in range(n):
        curve = w.TYPE_CURVES[kinds[j]]
        steps, epoch = _curve_shape(curve)
        model = w.SpeconJob(work=float(steps), migration_pause=float(p["migration_pause"]),
                            cpu_usable=float(p["cpu_usable"]), curve=curve, solo_seconds=float(solo[j]),
                            eval_window=min(epoch, steps))  # fmt: skip
        specs.append(
            JobSpec(
                int(J.ids[j]), int(J.arrival[j]), model, {"cpu": float(kappa[j]), "mem": mem},
                requested_workers=1, name=f"{J.pool[j]} {kinds[j]}", submit_time=float(J.submit[j]),
            )
        )  # fmt: skip
    return specs, {}


_BUILDERS: Mapping[str, tuple[Callable, tuple[str, ...]]] = {
    "rigid": (_build_rigid, ()),
    "oasis": (_build_oasis, ("epochs", "chunks", "minibatches", "tau", "gradient", "worker_bw", "ps_bw",
                             "ps_demand", "utility_class", "gamma1", "gamma2", "gamma3")),
    "pdors": (_build_pdors, ("epochs", "samples", "batch", "ratio", "tau", "gradient", "ps_demand", "theta1",
                             "theta2", "theta3")),
    "aonline": (_build_aonline, ("epochs", "chunks", "minibatches", "compute", "update", "gradient",
                                 "bandwidth", "weight", "delay")),
    "optimus": (_build_optimus, ("type", "mode", "threshold", "noise")),
    "specon": (_build_specon, ("type",)),
}  # fmt: skip
"""Builder and its random streams (one per drawn quantity, spawned in this order) per model."""


# ------------------------------------------------------------------------------------ the mapping


def map_jobs(
    df: pd.DataFrame,
    model: str,
    rng: np.random.Generator,
    *,
    slot_seconds: float | None = None,
    trace: str | None = None,
    pools: bool | None = None,
    nodes: int | Mapping[str, int] | None = None,
    node_type: str = NODE_TYPE,
    data_dir: str | os.PathLike[str] | None = None,
    **model_params,
) -> Workload:
    """Map every job of a trace frame to a job of ``model`` (rules: module docstring, :func:`mapping_table`).

    Parameters
    ----------
    df : pandas.DataFrame
        Job frame with columns :data:`REQUIRED_COLUMNS` (:func:`trace_jobs`,
        :func:`dlsched.traces.load_philly`, :func:`dlsched.traces.sample_jobs`, or your own).
        ``submit_time`` is in seconds from the window start; ``cluster`` is the machine pool.
    model : str
        One of :data:`MODELS`.
    rng : numpy.random.Generator
        Source of the drawn quantities only (one child stream per quantity, ``rng.spawn``).
    slot_seconds : float, optional
        Slot length (default: the wing's, :data:`SLOT_SECONDS`).
    trace, pools, nodes, node_type, data_dir
        The cluster, as :func:`cluster_from_trace` (the workload's cluster is exactly
        ``cluster_from_trace(df, model, ...)`` with the same arguments).
    **model_params
        :func:`model_parameters` of ``model``. OASiS and PD-ORS get a horizon ``T``
        (``horizon=None``: the last slot at which a job would end had it started at arrival with
        its trace width, plus the slots its busiest pool needs to run all its GPU time on all its
        GPUs, plus one). A_online gets ``params["T"]``, the smallest power of two with all
        arrivals in :math:`[0, T/1.5)` (Sec. VI's arrival range inverted), ``U = V`` = pools.

    Returns
    -------
    Workload
        Named ``"<trace>-<model>"``; jobs in (arrival, job id) order, ids those of the trace;
        ``params`` hold the mapping's settings (``model``, ``trace``, ``slot_seconds``, ``pools``,
        ``pool_names``, ``node_type``, ``gpus_per_node``, the model parameters, ...).

    Raises
    ------
    ValueError
        A bad frame (source, row, job id, column named), an unknown model or parameter, a job wider
        than its pool.
    """
    model = _check_model(model)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator (e.g. numpy.random.default_rng(seed)), got {rng!r}")
    params = _params(model, model_params)
    jobs = _validated(df)
    trace = _trace_of(df, trace)
    pooled = _pooled(model, pools)
    slot = _slot(model, slot_seconds)
    table = machine_pools(df, trace, pools=pooled, nodes=nodes, node_type=node_type, data_dir=data_dir)
    cluster = _build_cluster(model, table, pooled, node_type, slot)
    names = tuple(str(x) for x in table["pool"])
    pool = jobs["cluster"].to_numpy(dtype=object) if pooled else np.full(len(jobs), "all", dtype=object)
    J = _Jobs(
        ids=jobs["job_id"].to_numpy(np.int64),
        submit=jobs["submit_time"].to_numpy(float),
        d=jobs["duration"].to_numpy(float),
        g=jobs["num_gpus"].to_numpy(np.int64),
        pool=pool,
        pool_idx=np.searchsorted(np.asarray(names, dtype=object), pool),
        pools=names,
        pooled=pooled,
        arrival=np.floor(jobs["submit_time"].to_numpy(float) / slot).astype(np.int64),
        slot=slot,
        cluster=cluster,
        node=_node_type(node_type),
    )
    build, stream_names = _BUILDERS[model]
    streams = dict(zip(stream_names, rng.spawn(len(stream_names)), strict=True))
    specs, extra = build(J, streams, params)
    horizon = _horizon(J, params.get("horizon")) if model in ("oasis", "pdors") else None
    out_params = {
        "mapped_by": MAPPED_BY, "model": model, "trace": trace or "custom", "week": df.attrs.get("week"),
        "n_jobs": J.n,
        "slot_seconds": slot, "pools": pooled, "pool_names": names, "node_type": node_type,
        "gpus_per_node": int(J.node["gpu"]), "nodes": tuple(int(x) for x in table["nodes"]),
        **{k: v for k, v in params.items() if k != "horizon"}, **extra,
    }  # fmt: skip
    name = f"{trace or 'custom'}-{model}"
    wl = Workload(cluster, tuple(specs), name=name, horizon=horizon, params=out_params)
    if model == "aonline":
        aonline_wing.check_workload(wl)  # the wing's own instance check (types, D_j vs slots, delays)
    return wl


def reference_frame(workload: Workload) -> pd.DataFrame:
    """Each job's GPUs and duration at its trace width, computed through the model's own ``rate``.

    The reference placement puts every worker and PS on a server of its own (``model.ps_for``
    PS); a SpeCon container runs alone on a node of its cluster. ``gpus`` is the requested
    worker count (one GPU each) or, for SpeCon, the GPU equivalent of the container's CPU demand
    (demand / usable cores x GPUs per node). For a workload of :func:`map_jobs`, ``seconds`` is the
    trace duration (times ``num_gpus / gpus`` for SpeCon containers capped at one node) and
    ``gpu_seconds`` the trace's ``num_gpus x duration``.

    Returns
    -------
    pandas.DataFrame
        ``job_id, arrival, submit_time, gpus, seconds, gpu_seconds`` in the workload's job order.
    """
    cl = workload.cluster
    per_node = float(workload.params.get("gpus_per_node", 1))
    rows = []
    for spec in workload.jobs:
        m = spec.model
        load = np.zeros_like(cl.capacity)
        if m.kind == "specon":
            r = cl.resource_index(m.cpu_resource)
            load[0, r] = spec.worker_demand.get(m.cpu_resource, 0.0)
            placement = Placement(((0, 1),))
            gpus = load[0, r] / (m.cpu_usable * cl.capacity[0, r]) * per_node
        else:
            gpus = float(spec.requested_workers or m.min_workers)
            placement = _reference_placement(m, int(gpus))
        rate = m.rate(spec, placement, RateContext(cl, load))
        seconds = m.total_work / rate * cl.slot_seconds
        rows.append((spec.job_id, spec.arrival, spec.submit_time, gpus, seconds, gpus * seconds))
    return pd.DataFrame(rows, columns=["job_id", "arrival", "submit_time", "gpus", "seconds", "gpu_seconds"])


# ------------------------------------------------------------------------------------ the table

_ALL = "all"
_CHOICES: tuple[tuple[str, str, str, str, str], ...] = (
    # (model, quantity, trace field, rule, source of the range or value)
    (
        _ALL,
        "job order",
        "submit_time, job_id",
        "trace submit order (submit_time, then job_id = file order)",
        "dlsched.traces loaders",
    ),
    (
        _ALL,
        "arrival slot",
        "submit_time",
        "floor(submit_time / slot_seconds), submit_time from the window start",
        "slot: the wing's (SLOT_SECONDS)",
    ),
    (
        _ALL,
        "window",
        "submit_time",
        "whole trace, or a week: Philly k-th Monday 00:00 + 7 d (or a date), ITP 7 d from k * 604800 s",
        "trace_jobs",
    ),
    (
        _ALL,
        "machine pool",
        "cluster",
        "Philly virtual cluster / ITP cluster = typed resources gpu:<pool>, cpu:<pool>, mem:<pool> of its"
        " own nodes (rigid, oasis, pdors; aonline: worker/PS type)",
        "[R]",
    ),
    (
        _ALL,
        "nodes per pool",
        "cluster (+ submit_time, duration, num_gpus)",
        "Philly: nodes of the VC; else (ITP, VCs missing there) ceil(peak concurrent GPUs / 8)",
        "Helios SC'21 philly_vc.csv (traces.load_philly_vc_nodes); [R] peak rule",
    ),
    (
        _ALL,
        "node",
        "-",
        "EC2 p2.8xlarge: 8 GPUs, 32 vCPUs, 488 GB",
        "core.instances.EC2_INSTANCES; Helios 8 GPUs/node",
    ),
    (
        _ALL,
        "GPU time",
        "num_gpus x duration",
        "kept: GPUs held x reference duration = num_gpus x duration",
        "reference_frame",
    ),
    (
        "rigid",
        "workers",
        "num_gpus",
        "rigid gang of exactly g workers, 1 GPU each",
        "workloads.philly",
    ),
    (
        "rigid",
        "total work",
        "num_gpus, duration",
        "g * d / slot worker-slots (LinearModel)",
        "workloads.philly",
    ),
    (
        "rigid",
        "utility",
        "-",
        "none (ConstantUtility 1)",
        "-",
    ),
    (
        "oasis",
        "workers",
        "num_gpus",
        "requested_workers = g (1 GPU each); N_i = max(N_i, g)",
        "spec 11.1; (3)",
    ),
    (
        "oasis",
        "PS",
        "-",
        "ceil(w b_i / B_i) PS (6)-(7) on the PS servers; demand cpu 1-10, mem 2-32 GB",
        "oasis.model PS_CPU, PS_MEM_GB (spec 11.1)",
    ),
    (
        "oasis",
        "shape",
        "-",
        "E_i in [50,200], N_i in [5,100], M_i in [10,100], tau_i in [0.001,0.1] s, e_i in [30,575] MB, "
        "b_i in [0.1,5], B_i in [5,20] Gbps",
        "oasis.model EPOCHS..PS_BANDWIDTH_GBPS (spec 11.1)",
    ),
    (
        "oasis",
        "total work",
        "num_gpus, duration",
        "E N M mini-batches; tau_i and e_i/b_i scaled by one k so that E N M (tau + 2e/b) / g = d",
        "[R]",
    ),
    (
        "oasis",
        "utility",
        "-",
        "sigmoid: class by mix (10/55/35 %), gamma1 in [1,100], gamma2 by class, gamma3 in [1,15] slots",
        "oasis.model GAMMA2_* and oasis_workload defaults (spec 11.1)",
    ),
    (
        "oasis",
        "cluster",
        "-",
        "nodes = worker servers; one c4.8xlarge PS server per node in the same pool (H = K)",
        "oasis_workload ps_type (spec 11.1)",
    ),
    (
        "oasis",
        "horizon",
        "submit_time, duration",
        "T = max(a + ceil(d/slot)) + busiest pool's GPU time / its GPUs + 1",
        "[R]",
    ),
    (
        "pdors",
        "workers",
        "num_gpus",
        "requested_workers = g; F_i = max(F_i, g)",
        "spec 8; (4)",
    ),
    (
        "pdors",
        "PS",
        "-",
        "ceil(w / gamma_i) PS, gamma_i in [1,10]; demand cpu 1-10, mem 2-32 GB",
        "pdors.model RATIO, PS_CPU, MEM_GB (spec 8)",
    ),
    (
        "pdors",
        "shape",
        "-",
        "E_i in [50,200], K_i in [2e4,5e5], F_i in [1,200], tau_i in [1e-5,1e-4] s, g_i in [30,575] MB; "
        "b(i) 126, b(e) 10 Gbps",
        "pdors.model constants (spec 8)",
    ),
    (
        "pdors",
        "total work",
        "num_gpus, duration",
        "E K samples; tau, 2g/b(i), 2g/b(e) scaled by one k so that g workers, ceil(g/gamma) PS, not "
        "co-located, take d",
        "[R]",
    ),
    (
        "pdors",
        "utility",
        "-",
        "sigmoid theta1 in [1,100], theta2 in [0.01,1], theta3 in [1,15] slots",
        "pdors.model THETA1-3 (spec 8)",
    ),
    (
        "pdors",
        "horizon",
        "submit_time, duration",
        "as oasis",
        "[R]",
    ),
    (
        "aonline",
        "workers",
        "num_gpus",
        "requested_workers = g; D_j = max(D_j, g); fixed allocation (2c)-(2d)",
        "spec 12; (2a)",
    ),
    (
        "aonline",
        "PS",
        "-",
        "exactly one PS (2b) of type v_j = u_j",
        "spec 2",
    ),
    (
        "aonline",
        "shape",
        "-",
        "E_j in [50,100], D_j in [20,50], M_j in [10,50], n_j in [0.001,0.05] h, H_j in [10,100] ms, k_j "
        "in [30,575] MB, B_j = min(worker, PS bandwidth)",
        "aonline.model constants (spec 12)",
    ),
    (
        "aonline",
        "total work",
        "num_gpus, duration",
        "E D M mini-batches; n_j, H_j, k_j scaled by one k so that g workers at p_j (xi_j = 0) take d",
        "[R]",
    ),
    (
        "aonline",
        "transfer delay",
        "-",
        "Delta_js in [1,4] h per job and edge server, [10,40] h to the cloud (delays='cluster': the lower"
        " ends for all)",
        "aonline.model EDGE_DELAY, CLOUD_DELAY (spec 12)",
    ),
    (
        "aonline",
        "cluster",
        "cluster",
        "edge servers = trace nodes (worker slots = GPUs, PS slots = 6 x GPUs), type = pool; one cloud "
        "with max(64, 50, max g) worker slots per type",
        "aonline_workload defaults (spec 12)",
    ),
    (
        "aonline",
        "weight, T",
        "submit_time",
        "weights in [1,1]; T = smallest power of 2 >= 1.5 (max arrival + 1)",
        "aonline_workload defaults; [R]",
    ),
    (
        "optimus",
        "workers",
        "num_gpus",
        "requested_workers = g; PS = workers (ps_for)",
        "spec 9",
    ),
    (
        "optimus",
        "shape",
        "-",
        "Table 1 job type uniform, sync/async by a coin, threshold in [1 %, 5 %], loss noise 1 %",
        "optimus.workload.job_model, TABLE1, optimus_workload defaults (spec 9)",
    ),
    (
        "optimus",
        "total work",
        "num_gpus, duration",
        "the type's steps to converge (real loss curve); step-time terms x k and bandwidths / k so that g"
        " workers + g PS, one per server, take d",
        "[R]",
    ),
    (
        "optimus",
        "loss curve",
        "-",
        "Eq. (1) fit of the type's real curve (data/loss_curves)",
        "optimus.workload.loss_curve",
    ),
    (
        "optimus",
        "pools",
        "cluster",
        "none (its placement reads 'cpu' by name): VCs merged",
        "[R]",
    ),
    (
        "specon",
        "workers",
        "num_gpus",
        "one container; CPU demand = min(g, 8)/8 of a node's usable cores (cpu_usable 0.8)",
        "spec 3.3 'cap' reading; specon_workload defaults",
    ),
    (
        "specon",
        "total work",
        "num_gpus, duration",
        "the type's whole loss curve in steps; solo time g d / 8 so that alone it runs g d / min(g, 8)",
        "spec 7.2, 7.5 [R]",
    ),
    (
        "specon",
        "loss curve",
        "-",
        "Table II type uniform over the ten, curve by TYPE_CURVES",
        "specon.model (spec 7.4)",
    ),
    (
        "specon",
        "migration pause",
        "-",
        "5 s",
        "specon_workload default (Fig. 2, spec 7.7)",
    ),
    (
        "specon",
        "pools",
        "cluster",
        "none (its scheduler reads 'cpu', 'mem' by name): VCs merged",
        "[R]",
    ),
)


def mapping_table(model: str | None = None) -> pd.DataFrame:
    """Every mapping choice, one row per (model, quantity): what the trace gives and what is drawn.

    Parameters
    ----------
    model : str, optional
        Only this model's rows (the common rules included); default all models.

    Returns
    -------
    pandas.DataFrame
        Columns ``model, quantity, trace_field, rule, source`` (``source``: where the range or
        value comes from -- the wing constant and spec section -- or ``[R]`` for our reading).
        The common rules appear once per model.
    """
    models = MODELS if model is None else (_check_model(model),)
    rows = []
    for m in models:
        for who, quantity, field, rule, source in _CHOICES:
            if who in (_ALL, m):
                rows.append(
                    {"model": m, "quantity": quantity, "trace_field": field, "rule": rule, "source": source}
                )
    return pd.DataFrame(rows, columns=["model", "quantity", "trace_field", "rule", "source"])


# ------------------------------------------------------------------------------------ policies


def _policy_class(name: str):
    if name not in registry.POLICIES:
        raise ValueError(f"unknown policy {name!r}; known: {registry.policy_names()}")
    module, attr = registry.POLICIES[name].split(":")
    return getattr(importlib.import_module(module), attr)


def policy_defaults(policy: str, model: str) -> dict[str, object]:
    """Model parameters policy ``policy`` declares it needs (its ``workload_defaults``, e.g. the
    Preemptive baseline's ``preemptible=True``), kept where ``model`` takes them."""
    want = getattr(_policy_class(policy), "workload_defaults", {})
    known = _model_defaults(_check_model(model))
    return {k: v for k, v in want.items() if k in known}


def _probe_frame() -> pd.DataFrame:
    """Six jobs on two pools (1 node each): widths 1-8 GPUs, 10 min - 1.5 h, spread over 2.5 h."""
    return pd.DataFrame(
        {
            "job_id": np.arange(6),
            "submit_time": [0.0, 0.0, 1800.0, 3600.0, 5400.0, 9000.0],
            "duration": [1200.0, 3000.0, 600.0, 5400.0, 2400.0, 900.0],
            "num_gpus": [1, 2, 1, 4, 8, 1],
            "cluster": ["a", "b", "a", "a", "b", "a"],
        }
    )


def _probe_workload(model: str, policy: str) -> Workload:
    """The probe workload of ``model`` for ``policy``: :func:`_probe_frame` mapped with the
    policy's own model parameters (:func:`policy_defaults`)."""
    return map_jobs(_probe_frame(), model, np.random.default_rng(0), nodes={"a": 1, "b": 1},
                    **policy_defaults(policy, model))  # fmt: skip


def _mapped_model(workload: Workload) -> tuple[str, ...]:
    return (workload.params["model"],)


# the registry checks a mapped workload (params["mapped_by"] == MAPPED_BY) against these probes
registry.register_probe(
    MAPPED_BY, _probe_workload, MODELS, _mapped_model, lambda m: f"{m!r} jobs mapped from a trace"
)


def _probe(model: str) -> Mapping[str, str | None]:
    """Every registered policy on a small mapped workload of ``model``: None if it runs to the end
    (every job finished or rejected, no stall, no error), else the reason
    (:func:`dlsched.registry.probe` with this module's probe source)."""
    return registry.probe(model, MAPPED_BY)


def compatible_policies(model: str) -> list[str]:
    """Registered policies that can run ``model``'s mapped jobs, sorted.

    Found by running, not by a table: every policy of :data:`dlsched.registry.POLICIES` runs on
    a six-job mapped workload (two pools, with the policy's own ``workload_defaults``); it is
    compatible when it runs to the end -- every job finished or rejected by admission control,
    no stall, no error (the result is cached per process; the probe itself is
    :func:`dlsched.registry.probe`, this module registers its workloads with it).
    """
    return registry.compatible_policies(_check_model(model), MAPPED_BY)


def check_policy(policy: str, model: str) -> None:
    """Raise ``ValueError`` naming ``policy`` and ``model`` (and why) if the policy cannot run it.

    Raises
    ------
    ValueError
        Unknown policy or model, or an incompatible pair; the message lists the compatible policies.
    """
    _policy_class(policy)
    why = _probe(_check_model(model))[policy]
    if why is not None:
        raise ValueError(
            f"policy {policy!r} cannot run {model!r} jobs mapped from a trace: {why}. "
            f"Policies that can: {compatible_policies(model)}"
        )


def make_policy(name: str, workload: Workload, **params):
    """:func:`dlsched.registry.make_policy` for a workload of :func:`map_jobs`, after
    :func:`check_policy` and a check that the workload was mapped with the model parameters the
    policy needs (:func:`policy_defaults`, e.g. ``preemptible=True`` for the Preemptive baseline).

    Raises
    ------
    ValueError
        A workload not built by :func:`map_jobs`, an incompatible policy (naming policy and model),
        or a missing model parameter (naming it).
    """
    model = workload.params.get("model") if isinstance(workload, Workload) else None
    if model not in MODELS or workload.params.get("mapped_by") != MAPPED_BY:
        name_ = getattr(workload, "name", workload)
        raise ValueError(f"workload {name_!r} was not built by map_jobs (its params have no 'model')")
    check_policy(name, model)
    for key, value in policy_defaults(name, model).items():
        if workload.params.get(key) != value:
            raise ValueError(
                f"policy {name!r} needs model parameter {key}={value!r} for {model!r} jobs, the workload has "
                f"{key}={workload.params.get(key)!r}: map them with map_jobs(..., {key}={value!r})"
            )
    return registry.make_policy(name, workload, **params)

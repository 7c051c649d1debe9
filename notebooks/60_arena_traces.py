# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: tags,-all
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # The arena: every scheduler on the same real-trace jobs
#
# No paper and no peer simulator puts OASiS, Optimus, PD-ORS, A_online and SpeCon side by side on
# one real workload. Here they meet on a week of the Microsoft **Philly** trace (one virtual
# cluster) and on one cluster of the Microsoft **ITP** trace, with the usual baselines (FIFO,
# DRF, RRH, Dorm, Tetris, OASiS-split, BatchSche, Preemptive, Kubernetes' default).
#
# How it works (`dlsched.arena`):
#
# 1. **One mapping** (`arena.mapping`) turns each trace row (submit time, GPUs, duration, virtual
#    cluster) into a job of each paper's job model: GPUs become workers, duration and GPUs the
#    total work (each job runs exactly its trace duration at its trace width on the *reference
#    placement*), the submit time the arrival slot, the virtual cluster a machine pool; what the
#    trace lacks (utilities, loss curves, transfer delays) is drawn from the paper's own ranges
#    with the seed. Section 1 prints every choice.
# 2. **Which policy can run which model** is found by running each on a small mapped workload;
#    pairs that cannot run say why (section 2).
# 3. **One experiment** (`arena.experiments.arena_point`) maps, simulates and measures one
#    (window, model, policy, seed); `run_arena` sweeps them through `experiments.sweep`, serially,
#    on a local Dask cluster, on a `dask scheduler` + 2 `dask worker` processes this notebook starts
#    (`scheduler = "processes"`), or on any scheduler address.
#
# The cluster is sized from the trace's own machine counts (Philly: the virtual cluster's nodes;
# ITP: the fewest 8-GPU nodes holding the recorded peak), times `node_scale`. At the trace's own
# size a Philly VC holds far more GPUs than its jobs' recorded peak demand (section 3 prints
# both), so no job waits, every scheduler gives every job its trace time and nothing can be
# compared; a `node_scale` below 1 (fewer nodes) makes the schedulers matter.
#
# *Modes*: `mode = "paper"` (the default) reads every arena point from the results store
# `data/results` (`max_jobs_full` jobs of each window, `seeds_full`); `mode = "quick"` is a smoke
# run (`max_jobs_quick` jobs, `seeds_quick`), whose verdicts can differ from the paper-mode ones.
# Parameters (papermill): `trace`, `cluster`, `week`, the ITP window, `policies`, `models`,
# `seeds`, `scheduler` (`"serial"`, `"local"`, `"processes"` or a `tcp://` address).
#
# Section 7 adds the other end of the scale: each paper's scheduler and its paper's baselines on
# the **whole** Philly trace (and the whole ITP trace, `whole_traces`), on the traces' own machines
# (`whole_max_jobs_full`; quick mode keeps the first `whole_max_jobs_quick` jobs of each).

# %% tags=["parameters"]
mode = "paper"  # "paper" (the papers' sizes, read from the results store data/results) or "quick" (small smoke run)
figures_dir = "../figures"
cache_dir = "../build/cache"
store_dir = "../data/results"  # paper-scale results store (dlsched audit checks it)
scheduler = "serial"
trace = "philly"
week = 7
cluster = "11cb48"
itp_week = 4
itp_cluster = 1
policies = []
models = []
seeds = []
seeds_quick = [0]
seeds_full = [0, 1, 2]
max_jobs_quick = 60
max_jobs_full = 400
node_scale = 0.25
whole_traces = ["philly", "itp"]  # the whole traces of section 7 (["philly"]: Philly only, half the time)
whole_max_jobs_quick = 200  # quick mode: the first jobs of each whole trace
whole_max_jobs_full = None  # paper mode: None, every job of the trace
claim_margin = 0.005

# %%
import pandas as pd

from dlsched import daskprocs, plotting
from dlsched.arena import experiments as ax
from dlsched.arena import findings, mapping, whole

quick = mode == "quick"
store = None if quick else store_dir
run_seeds = list(seeds) or (seeds_quick if quick else seeds_full)
max_jobs = max_jobs_quick if quick else max_jobs_full
pol_names = list(policies) or None
model_names = list(models) or None
windows = [(trace, week, cluster)] + ([("itp", itp_week, itp_cluster)] if trace != "itp" else [])
pd.set_option("display.width", 220)
pd.set_option("display.max_colwidth", 120)
pd.set_option("display.float_format", "{:.4g}".format)
plotting.set_style()

# %% [markdown]
# ## 1. The mapping, choice by choice
#
# One row per (model, quantity): where it comes from (trace, paper range, derived) and the rule.
# The module docstring of `dlsched.arena.mapping` has the same in prose, with the invariants the
# tests check (job count, submit order and GPU-hours kept for every model).

# %%
table = mapping.mapping_table()
print(table.to_string(index=False))

# %% [markdown]
# ## 2. Which policy runs which model
#
# Every registered policy is run on a six-job mapped workload of each model. A pair runs when
# every job ends finished or rejected by admission control; otherwise the reason is kept. A
# policy may also refuse one window's jobs when it is built (Preemptive places a whole job on one
# server: a job wider than a node cannot run); such points appear in the results with a note.

# %%
compat = ax.compatibility_table(pol_names, model_names)
matrix = compat.pivot(index="policy", columns="model", values="runs").loc[:, list(compat["model"].unique())]
print(matrix.replace({True: "runs", False: "-"}).to_string())

# %%
why = compat[~compat["runs"]]
print(why.assign(reason=why["reason"].str.slice(0, 110))[["model", "policy", "reason"]].to_string(index=False))

# %% [markdown]
# ## 3. The windows and their machines
#
# The jobs of each window, its machine pools (`nodes`: the trace's own; `peak_gpus`: the recorded
# peak demand of these jobs) and the nodes the arena runs them on (`arena_nodes`: `node_scale`
# times the trace's, at least the widest job's).

# %%
print(findings.setup_sentence(windows, max_jobs=max_jobs, seeds=run_seeds, node_scale=node_scale))
for tr, wk, cl in windows:
    jobs = mapping.trace_jobs(tr, week=wk, cluster=cl).iloc[:max_jobs]
    pools = findings.arena_nodes(mapping.machine_pools(jobs, tr), node_scale)
    print(f"\n{tr} week {wk} cluster {cl}: {len(jobs)} jobs, {jobs['num_gpus'].sum()} GPUs requested, "
          f"{jobs['duration'].sum() / 3600:.0f} job-hours")
    print(pools[["pool", "nodes", "gpus", "jobs", "max_job_gpus", "peak_gpus", "source", "arena_nodes"]]
          .to_string(index=False))
    print(*findings.headroom_sentences(f"{tr} week {wk} cluster {cl}", pools, node_scale), sep="\n")

# %% [markdown]
# ## 4. Every compatible pair, head to head
#
# The sweep: every (model, policy) pair that runs, for each seed and window. `scheduler =
# "processes"` starts a real `dask scheduler` and two `dask worker` processes for it (and stops
# them afterwards); results are cached per point in `cache_dir`, and in paper mode read from the
# results store.

# %%
grid = [
    point
    for tr, wk, cl in windows
    for point in ax.arena_grid(trace=tr, week=wk, cluster=cl, models=model_names, policies=pol_names,
                               seeds=run_seeds, max_jobs=max_jobs, node_scale=node_scale)
]  # fmt: skip
with daskprocs.cluster_for(scheduler) as address:
    results = ax.run_arena(grid, scheduler=address, cache_dir=cache_dir, store=store)
summary = ax.summarise(results)
print(f"{len(grid)} points ({len(results)} rows), {summary['policy'].nunique()} policies")

# %%
# NBVAL_CHECK_OUTPUT
cols = ["trace", "model", "policy", "jobs", "rejected", "unfinished", "mean_jct_h", "p95_jct_h",
        "makespan_h", "total_utility", "utilisation"]  # fmt: skip
print(summary[cols].round(3).to_string(index=False))

# %%
notes = results[results["note"] != ""]
print("points that could not run:" if len(notes) else "every point ran",
      *(f"  {r.trace} {r.model} {r.policy}: {r.note[:120]}" for r in notes.itertuples()), sep="\n")

# %% [markdown]
# ## 5. Two figures
#
# Completion times (mean and 95th percentile, log scale), then utilisation and the share of jobs
# admitted, per job model. Bars compare policies *within* a panel: the models' jobs differ
# (drawn shapes and the reference placement), so panels are not comparable with each other.

# %%
fig = plotting.decade_ticks(ax.jct_figure(summary))  # powers of ten on panels spanning decades
paths = plotting.savefig(fig, "fig_arena_60_jct", figures_dir)

# %%
fig = ax.utilisation_figure(summary)
paths = plotting.savefig(fig, "fig_arena_60_utilisation", figures_dir)

# %% [markdown]
# ## 6. Which paper's claim survives on real data
#
# Each paper's headline claim, as the arena can test it: its scheduler beats the baselines the
# paper compared it with, on its own objective and its own job model (total utility for OASiS and
# PD-ORS; average completion time for Optimus, SpeCon and A_online, whose objective is the total
# weighted completion time, all weights 1 here). `gain_pct` is positive
# when the paper's scheduler is better than the best of those baselines; a claim survives when the
# gain is over `claim_margin`.

# %%
# NBVAL_CHECK_OUTPUT
verdicts = ax.claims(summary, margin=claim_margin)
print(verdicts.round(3).to_string(index=False))

# %% [markdown]
# **Reading the verdicts.** The next cell prints, from this run's tables, each paper's claim on
# each window (its scheduler's value, the best baseline's, the gain, the verdict and the rank of
# the paper's scheduler among every policy of its panel), the numbers behind it, and the points
# that could not run. What to look for, and why the trace can disagree with the paper:
#
# * **Optimus.** The paper reports 2.4x lower average JCT than DRF on its own Table 1 jobs. Here
#   the mapped jobs keep the trace's widths and durations (their shapes drawn from the paper's
#   ranges), and Tetris gets the same estimates as Optimus (the printed line compares it with DRF).
# * **SpeCon.** The paper reports 7-14 % lower completion times than Kubernetes' default. As in
#   notebook 52, moving a container only rebalances a work-conserving CPU split, so the gain can
#   be small, and a gain within `claim_margin` is a tie.
# * **OASiS.** The paper's Fig. 3 has OASiS first against the same baselines on its synthetic
#   jobs. OASiS holds jobs back while the prices are high; where DRF's work-conserving packing
#   earns more with these jobs' utilities, the printed mean JCTs show what holding back cost.
# * **PD-ORS.** Its prices treat a shrunk cluster as dear: it rejects and delays jobs (the printed
#   rejections and mean JCT). Among its own variants the paper's order (PD-ORS above the
#   no-co-location ablation and above OASiS on split machines) is checked on the same line.
# * **A_online.** Its geometric rounds start a round's batch at $\tau_i = 2^{i-1}$ and, with every
#   weight 1 and exponential prices, admit only the few jobs whose payoff stays positive; the
#   others wait for the next round, whose start doubles, so a job deferred a few rounds waits
#   exponentially long, and on a shrunk cluster the mean JCT explodes. BatchSche, which shares
#   the rounds, does the same. The paper evaluates on 200 edge servers for 200 jobs, where
#   capacity never binds.
# * **What no scheduler changes.** At the trace's own machine counts the recorded peak demand
#   fits (section 3), so there is little to schedule: the comparisons above need a shrunk
#   cluster. Where a policy cannot run some jobs, the notes say why: Preemptive puts a whole job
#   on one server (a job wider than a node fits on none), and RRH moves A_online jobs whose
#   allocation is fixed (the simulator's checker stops it: `schedule violation`).

# %%
# NBVAL_CHECK_OUTPUT
print(*findings.arena_findings(verdicts, summary, results), sep="\n")

# %% [markdown]
# ## 7. The whole traces
#
# The windows above are one week of one cluster, on a shrunk cluster, so that three seeds of
# every policy fit in a regeneration. Here is the other end: **every job** of the Philly trace
# (Sep-Dec 2017, all virtual clusters) and of the ITP trace (all its clusters), on the traces'
# own machine counts (`node_scale = 1`), seed 0, each paper's scheduler with the baselines its
# paper compared it with (`dlsched.arena.whole`; the issue 23 speed-ups are what make these runs
# possible: each paper's scheduler takes minutes of one core, see the README's performance table;
# on ITP's 917 nodes some baselines take over an hour, as the minutes below show). PD-ORS is the
# exception the next cell prints, and A_online's panel stops at twice the last arrival (its
# doubling rounds would otherwise run for ever; the jobs left are counted `unfinished`).

# %%
whole_max = whole_max_jobs_quick if quick else whole_max_jobs_full
whole_grid = whole.whole_trace_grid(whole_traces, max_jobs=whole_max)
with daskprocs.cluster_for(scheduler) as address:
    whole_results = ax.run_arena(whole_grid, scheduler=address, cache_dir=cache_dir, store=store)
whole_summary = ax.summarise(whole_results)
print(f"{len(whole_grid)} whole-trace points", *whole.skipped_sentences(), sep="\n")

# %% [markdown]
# What each whole-trace point cost when it was recorded: wall-clock minutes of the Dask worker
# that computed it, from the results store's manifest (not an audited number; empty in quick
# mode, which has no store).

# %%
print(whole.recorded_minutes(whole_grid, store).round(1).to_string(index=False))

# %% [markdown]
# One row per scheduler and job model: `finished_pct` is the share of the trace's jobs that
# finished (below 100 only where a panel has a horizon or a policy rejects jobs), the completion
# times are over the finished jobs, `utilisation` the accelerators' busy share over the run.

# %%
# NBVAL_CHECK_OUTPUT
whole_cols = ["trace", "model", "policy", "jobs", "finished_pct", "unfinished", "rejected", "mean_jct_h",
              "p95_jct_h", "makespan_h", "total_utility", "utilisation", "horizon"]  # fmt: skip
print(whole.whole_trace_table(whole_summary)[whole_cols].round(3).to_string(index=False))

# %% [markdown]
# The same two figures as section 5, for the whole traces (`fig_arena_60_whole_jct`,
# `fig_arena_60_whole_utilisation`).

# %%
for name, draw in (("jct", ax.jct_figure), ("utilisation", ax.utilisation_figure)):
    fig = plotting.decade_ticks(draw(whole_summary))
    paths = plotting.savefig(fig, f"fig_arena_60_whole_{name}", figures_dir)

# %% [markdown]
# Each paper's claim on the whole traces, computed as in section 6 (a panel whose baselines were
# left out has no verdict), then the same sentences as section 6 prints.

# %%
# NBVAL_CHECK_OUTPUT
whole_verdicts = ax.claims(whole_summary, margin=claim_margin)
print(whole_verdicts.round(3).to_string(index=False), "", sep="\n")
print(*findings.claim_sentences(whole_verdicts, whole_summary), findings.notes_sentence(whole_results), sep="\n")

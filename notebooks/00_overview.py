# ---
# jupyter:
#   jupytext:
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
# # dlsched: an overview
#
# **dlsched** is a runnable companion to five papers on scheduling distributed deep-learning
# training jobs in shared clusters. Each paper has a *wing* in the package and a block of
# notebooks here; all of them share one simulator core, one policy protocol and one registry.
#
# | key | paper | what it contributes | notebooks |
# |---|---|---|---|
# | `oasis` | Bao, Peng, Wu, Li, *Online Job Scheduling in Distributed Machine Learning Clusters*, INFOCOM'18 | online primal-dual admission and elastic worker/PS schedules, competitive ratio | 10-19 |
# | `optimus` | Peng, Bao, Chen, Wu, Guo, *Optimus*, EuroSys'18 | loss-curve and speed fitting, marginal-gain allocation, placement, PAA | 20-29 |
# | `pdors` | Yu, Liu, Wu, Ji, Bentley, *Toward Efficient Online Scheduling for Distributed ML Systems* | co-located workers and PS, internal/external bandwidth, randomized rounding | 30-39 |
# | `aonline` | She, Wang, Zhou, Tian, *Online Scheduling of ML Jobs in Edge-Cloud Networks* | edge-cloud data-transfer delays, geometric batching, COST_C / COST_D | 40-49 |
# | `specon` | Mao, Fu, Zheng, Cheng, Liu, Tao, *Speculative Container Scheduling for DL Applications in a Kubernetes Cluster* | progress categories, speculative migration, host scoring | 50-59 |
#
# This notebook runs a small end-to-end example: the two baselines every paper compares
# against, **FIFO** and **DRF**, on jobs sampled from the real Microsoft Philly trace
# (Jeon et al., ATC'19), and draws one figure. Its last section counts, per paper, how many of
# the paper's claims the figures notebooks reproduce.
#
# *Modes*: `mode = "paper"` (the default) reads the sweep from the results store `data/results`;
# `mode = "quick"` is a small smoke run (fewer jobs, one seed). The sizes are the parameters
# below.

# %% tags=["parameters"]
mode = "paper"  # "paper" (the papers' sizes, read from the results store data/results) or "quick" (small smoke run)
seed = 0
figures_dir = "../figures"
cache_dir = "../build/cache"
store_dir = "../data/results"  # paper-scale results store (dlsched audit checks it)
scheduler = "serial"
n_jobs_quick = 300
n_jobs_full = 1000
n_seeds_quick = 1
n_seeds_full = 3
n_gpus = 100
load = 1.5

# %%
from dlsched import experiments, fidelity, plotting
from dlsched.arena import findings, paper
from dlsched.core import metrics

n_jobs = n_jobs_quick if mode == "quick" else n_jobs_full
seeds = list(range(seed, seed + (n_seeds_quick if mode == "quick" else n_seeds_full)))
store = None if mode == "quick" else store_dir
plotting.set_style()

# %% [markdown]
# ## The model in one paragraph
#
# A cluster is a list of servers with capacities per resource, in pools (worker servers, PS
# servers, one unified pool, or edge servers plus a cloud). Time advances in slots. Each job
# carries a *job model* that turns an allocation (how many workers and parameter servers on which
# server) into progress per slot; the five papers each bring their own model, and a `linear`
# model replays trace jobs as rigid GPU gangs. A *policy* sees a read-only view of the jobs that
# have arrived and returns a decision; the simulator checks every decision with an independent
# feasibility checker and advances time. Here each Philly job is a gang of `num_gpus` GPU workers
# whose work is its measured GPU time; arrivals keep the trace's order and are rescaled so that
# the offered load is `load`.

# %%
grid = experiments.param_grid(
    {"workload": "philly", "workload.n_jobs": n_jobs, "workload.n_gpus": n_gpus, "workload.load": load},
    policy=["fifo", "drf"], seed=seeds)
jobs = experiments.sweep(experiments.simulation_jobs, grid, cache_dir=cache_dir, scheduler=scheduler,
                         store=store)
jobs["jct_hours"] = jobs["jct_seconds"] / 3600
print(f"{n_jobs} jobs, {n_gpus} GPUs, load {load}, seeds {seeds}")
print(findings.finished_sentence(jobs))
jobs.groupby("policy")["status"].value_counts().unstack()

# %% [markdown]
# The schedules of the first seed's runs, re-checked slot by slot by the independent checker
# (capacities, pools, arrivals, gang sizes; `dlsched.arena.paper.checked_run`, read from the store
# in paper mode): `violation` is empty when the checker accepts every slot.

# %%
checked = experiments.sweep(paper.checked_run, [p for p in grid if p["seed"] == seed], cache_dir=cache_dir,
                            scheduler=scheduler, store=store)
assert (checked["violation"] == "").all() and (checked["finished"] == checked["jobs"]).all()
print(checked[["policy", "seed", *paper.CHECKED_COLUMNS]].to_string(index=False))

# %% [markdown]
# ## Headline numbers
#
# Mean job completion time (JCT) and makespan, per policy (averaged over seeds).

# %%
# NBVAL_CHECK_OUTPUT
slot_seconds = float(checked["slot_seconds"].iloc[0])
table = metrics.by_group(jobs, ["policy", "seed"], slot_seconds=slot_seconds)
means = table.groupby("policy").mean()
print(means.round(2).to_string())

# %% [markdown]
# DRF re-divides the GPUs on every arrival and completion, but Philly jobs are rigid gangs, so it
# can only change *which* queued jobs start first (small gangs before large ones), not their
# sizes: it can move the mean JCT, while the makespan is set by the longest jobs. How the two
# compare in this run:

# %%
# NBVAL_CHECK_OUTPUT
print(findings.compare_sentence(means, "fifo", "drf"))

# %%
ax = plotting.ecdf(jobs, x="jct_hours", hue="policy", log_scale=True)
ax.set(xlabel="job completion time (hours, log scale)", ylabel="fraction of jobs",
       title=f"FIFO vs DRF on {n_jobs} Philly jobs, {n_gpus} GPUs")
paths = plotting.savefig(ax.figure, "fig_overview_01_fifo_vs_drf_jct", figures_dir)

# %% [markdown]
# ## How much of each paper reproduces
#
# Each figures notebook (12, 22, 32, 42, 52) ends with a scorecard of the paper's claims it
# judges, computed from its paper-mode run and saved in `data/scorecards/`. Counted per paper
# (`dlsched.fidelity.fidelity_table`, the same table as the README's):

# %%
fid = fidelity.fidelity_table()
print(fid.to_string(index=False) if len(fid) else "No paper-mode scorecards saved yet: run "
      "`dlsched reproduce --mode paper` (each figures notebook saves its scorecard).")

# %% [markdown]
# ## What comes next
#
# * [`10_oasis_model`](10_oasis_model.ipynb), [`11_oasis_proofs`](11_oasis_proofs.ipynb), [`12_oasis_figures`](12_oasis_figures.ipynb): OASiS's model, its theorems as
#   checks, Figs. 3-6 and 8-9.
# * [`20_optimus_models`](20_optimus_models.ipynb), [`21_optimus_proofs`](21_optimus_proofs.ipynb), [`22_optimus_figures`](22_optimus_figures.ipynb): loss-curve and speed fitting,
#   placement and PAA checks, Figs. 11-19 and Table 3.
# * `30-39` PD-ORS, `40-49` A_online, `50-59` SpeCon, `60+` cross-paper comparisons.
#
# Everything here runs from the command line too:
# `dlsched run --workload philly --policy drf --param n_jobs=300 --seed 0 --out runs/drf`.

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
# # Optimus, Sec. 6: Figs. 11, 13-19 and Table 3 reproduced
#
# Y. Peng, Y. Bao, Y. Chen, C. Wu, C. Guo, *Optimus: An Efficient Dynamic Resource Scheduler for
# Deep Learning Clusters*, EuroSys 2018, Sec. 6. This notebook re-runs the paper's evaluation in
# our simulator and puts what the paper reports next to what we get:
#
# | figure | what | `dlsched.optimus.experiments` |
# |---|---|---|
# | Figs. 11, 13 | mean JCT and makespan (mean, std), Optimus / DRF / Tetris | `job_run`, `run_totals` |
# | Fig. 14 | running tasks and CPU usage per 10-minute interval | `timeline_run` |
# | Fig. 15 | JCT with injected convergence / speed prediction errors | `job_run` (`*_error`) |
# | Fig. 16 | all-sync vs all-async workloads | `job_run` (`mode`) |
# | Fig. 17 | Poisson (3 per interval) and Google-trace arrivals | `job_run` (`arrivals`) |
# | Fig. 18 | allocation ablation: Optimus vs DRF allocation (Optimus placement) | `drf_allocation` |
# | Fig. 19 | placement ablation: Optimus vs load-balance vs best-fit placement | schemes `*_placement` |
# | Table 3 | PAA vs MXNet's default parameter-block assignment (ResNet-50) | `table3_comparison` |
#
# **Workload** (`dlsched.optimus.workload`, registered as `"optimus"`; its module docstring lists
# every choice): the 13-server testbed (7 CPU servers of 16 cores, 6 GPU servers of 8 cores; CPU
# is the scarce resource, 4 cores per worker, 2 per PS), 30 jobs of the nine Table 1 types arriving
# uniformly in [0, 12000] s, sync or async at random, convergence thresholds 1-5 %; each job's
# ground truth is Eq. (2)'s step time and the Eq. (1) fit of a real training-loss curve; our
# compute constants and down-scaled datasets (`data_scale = 2`) were calibrated (on seed 0) so that
# Optimus's makespan is of the order of the paper's 4.1 h. One simulator slot is one 10-minute
# scheduling interval.
#
# **Headline**: the printed reading after Fig. 11 says by how much Optimus beats DRF here, next to
# the paper's 2.39x (mean JCT) and 1.63x (makespan); the scorecard at the end judges every claim.
# The section "Why our gap is smaller" measures why our gaps differ from the paper's.
#
# Paper mode (the default) reads every simulation from the results store `data/results`
# (10 seeds, Fig. 15 with 20 seeds per error level; the paper repeats 3 times); quick mode runs
# 2 seeds and caches them in `cache_dir`; `scheduler="local"` spreads the sweeps over cores.

# %% tags=["parameters"]
mode = "paper"  # "paper" (the papers' sizes, read from the results store data/results) or "quick" (small smoke run)
seed = 0
figures_dir = "../figures"
cache_dir = "../build/cache"
store_dir = "../data/results"  # paper-scale results store (dlsched audit checks it)
scheduler = "serial"
n_jobs = 30
n_seeds_quick = 2
n_seeds_full = 10
error_seeds_quick = 2
error_seeds_full = 20
error_levels = [0.0, 0.1, 0.2, 0.3]
poisson_rate = 3.0
table3_n_ps = 10
table3_seeds = 20
paa_n_ps = [2, 4, 6, 8, 10, 12]  # Figs. 20-21 (readings section): PS counts with table3_n_ps workers

# %%
import pandas as pd

import dlsched.readings
from dlsched import experiments, fidelity, plotting
from dlsched.optimus import experiments as oe
from dlsched.optimus import findings
from dlsched.optimus import readings as optimus_readings

quick = mode == "quick"
store = None if quick else store_dir
seeds = list(range(seed, seed + (n_seeds_quick if quick else n_seeds_full)))
error_seeds = list(range(seed, seed + (error_seeds_quick if quick else error_seeds_full)))
main = ["optimus", "drf", "tetris"]
paper = oe.PAPER
plotting.set_style()

# %% [markdown]
# ## Schemes
#
# * **optimus**: `Optimus()` with its defaults: every interval it refits each job's loss curve
#   and speed model (5 noisy pre-run points, then the measured speeds), allocates by marginal
#   gain (Eqs. (5)-(9)) and places by Theorem 1; a job whose allocation does not fit gives back
#   tasks until it does (`unplaced="shrink"`, a documented deviation of the lead's policy).
# * **drf**: the paper's DRF baseline: dominant-resource fairness, PS:worker 1:1, load-balanced
#   placement, recomputed on every arrival and completion, work-conserving.
# * **tetris**: Tetris with Optimus's estimates, bundles of 1 PS + 1 worker, packing score plus
#   shortest-remaining-work.
# * ablations: `drf_allocation` (DRF bundles placed by Optimus's placement, Fig. 18),
#   `load_balance_placement` and `best_fit_placement` (Optimus's allocation placed task by task,
#   Fig. 19).

# %% [markdown]
# ## Figs. 11 and 13: mean JCT and makespan
#
# Paper (testbed, 3 runs): Optimus is 2.39x better than DRF in mean JCT and 1.63x in makespan;
# makespans 4.1 / 6.7 / 5.0 h for Optimus / DRF / Tetris.

# %%
grid = experiments.param_grid({"n_jobs": n_jobs}, scheme=list(oe.SCHEMES), seed=seeds)
jobs = experiments.sweep(oe.job_run, grid, cache_dir=cache_dir, scheduler=scheduler, store=store)
totals = oe.run_totals(jobs, ["scheme", "seed"])
main_totals = totals[totals.scheme.isin(main)]

# %%
fig, axes = plotting.subplots(1, 2, figsize=(10, 4))
plotting.draw("barplot", main_totals, ax=axes[0], x="scheme", y="mean_jct_h", order=main, errorbar="sd")
plotting.draw("barplot", main_totals, ax=axes[1], x="scheme", y="makespan_h", order=main, errorbar="sd")
axes[0].set(ylabel="mean JCT (hours)", title=f"{n_jobs} jobs, {len(seeds)} seeds, mean and sd")
axes[1].set(ylabel="makespan (hours)")
paths = plotting.savefig(fig, "fig_optimus_22_fig11_jct_makespan", figures_dir)

# %%
# NBVAL_CHECK_OUTPUT
print(oe.scheme_stats(main_totals).round(2).to_string())

# %%
# NBVAL_CHECK_OUTPUT
cmp11 = findings.fig11_table(main_totals, paper["fig11"])
print(cmp11.drop(columns="figure").to_string(index=False))
print(findings.fig11_reading(main_totals))

# %%
claims = [oe.finished_claim(main_totals, "Figs. 11/13"),
          oe.beats_claim(main_totals, "optimus", "drf", "Fig. 11")]
for claim in claims:
    print(claim.summary(3))
    assert claim.holds, claim.summary()

# %% [markdown]
# **Paper vs ours.** The table and the reading above give the speed-ups of Optimus over DRF next to
# the paper's 2.39x and 1.63x, and each scheme's makespan over the seeds next to the paper's
# 4.1 / 6.7 / 5.0 h. The makespans in hours are settings rather than claims: the workload's dataset
# sizes were calibrated on seed 0 alone to a makespan of the paper's order, and the other seeds
# spread around it. The paper's Tetris beats DRF; whether ours does is the last row of the table.
# Where it does not, the reasons are in the Fig. 14 section below: our Tetris packs as many
# 1 PS + 1 worker bundles as fit into the job with the shortest remaining work, with no cap per job
# (`max_bundles=None`), so it runs few jobs at a time with many bundles each, including synchronous
# jobs that scale poorly at such counts (speed-up table at the end), while the other jobs wait; the
# paper's Tetris configuration is not described in enough detail to know what limited its bundles.

# %% [markdown]
# ## Fig. 14: running tasks and CPU usage over time
#
# The paper shows one run: Optimus runs fewer tasks than DRF ("DRF is work-conserving [...] but
# more resources do not mean higher training speed"), and its normalised CPU utilisation is
# higher. Its "normalised CPU utilisation" is CPU *used* over CPU *allocated* inside each task;
# our simulator does not model utilisation inside a task, so we plot the allocated CPU as a
# fraction of the cluster's 160 cores.

# %%
tgrid = experiments.param_grid({"n_jobs": n_jobs, "seed": seed}, scheme=main)
timeline = experiments.sweep(oe.timeline_run, tgrid, cache_dir=cache_dir, scheduler=scheduler, store=store)

# %%
fig, axes = plotting.subplots(1, 2, figsize=(11, 4))
plotting.draw("lineplot", timeline, ax=axes[0], x="hour", y="running_tasks", hue="scheme", hue_order=main)
plotting.draw("lineplot", timeline, ax=axes[1], x="hour", y="cpu_share", hue="scheme", hue_order=main)
axes[0].set(xlabel="time (hours)", ylabel="running tasks (workers + PS)", title=f"seed {seed}")
axes[1].set(xlabel="time (hours)", ylabel="allocated CPU / cluster CPU")
paths = plotting.savefig(fig, "fig_optimus_22_fig14_timeline", figures_dir)

# %%
# NBVAL_CHECK_OUTPUT
tstats = oe.timeline_stats(timeline)
profile = oe.task_profile(jobs[jobs.scheme.isin(main)])
print(tstats.round(2).to_string())
cmp14 = findings.fig14_table(tstats)
print(cmp14.drop(columns="figure").to_string(index=False))
print(findings.fig14_reading(tstats, profile))

# %% [markdown]
# **Paper vs ours.** The reading above gives the running tasks and the PS per worker of each
# scheme: Optimus gives its jobs fewer PS than DRF's fixed 1:1, which is where its tasks are saved.
# The CPU curves are not the paper's quantity (allocated, not used, CPU), so "Optimus uses its
# allocation more efficiently" cannot be read from them; the task profile at the end shows the
# same thing from another side (workers per job under each scheme).
#
# **Tetris.** How many jobs Tetris runs at a time, how many bundles each, and how long its jobs
# wait without tasks:

# %%
# NBVAL_CHECK_OUTPUT
print(findings.tetris_reading(tstats, profile))

# %% [markdown]
# A second, structural cause: our Tetris (`dlsched.optimus.baselines`) places each bundle's PS and
# worker on the *same* server (6 cores), so a 16-core server holds 2 bundles and an 8-core server 1:
# at most 20 bundles and 40 tasks on the 13-server testbed, which caps its CPU share (the flat
# Tetris line of Fig. 14).

# %% [markdown]
# ## Fig. 15: sensitivity to prediction errors
#
# Every interval, each job's estimated remaining steps $Q_j$ (convergence error) or speed
# function $f_j$ (speed error) is multiplied by $1 \pm e\,(1 - \text{progress})$, the sign random
# per job and interval. Paper (100 runs): 20 % convergence plus 10 % speed error cost about 15 %;
# speed errors matter more than convergence errors.

# %%
pairs = [(c, 0.0) for c in error_levels] + [(0.0, s) for s in error_levels[1:]] + [(0.2, 0.1)]
egrid = [{"scheme": "optimus", "n_jobs": n_jobs, "convergence_error": c, "speed_error": s, "seed": k}
         for c, s in pairs for k in error_seeds]
ejobs = experiments.sweep(oe.job_run, egrid, cache_dir=cache_dir, scheduler=scheduler, store=store)
gaps = oe.error_gaps(oe.run_totals(ejobs, ["convergence_error", "speed_error", "seed"]))

# %%
fig, ax = plotting.subplots()
plotting.draw("lineplot", gaps[gaps.speed_error == 0], ax=ax, x="convergence_error", y="jct_ratio",
              marker="o", label="convergence error")
plotting.draw("lineplot", gaps[gaps.convergence_error == 0], ax=ax, x="speed_error", y="jct_ratio",
              marker="s", label="speed error")
ax.axhline(1 + paper["fig15"]["jct_gap"], ls=":", color="grey", label="paper: 20 % + 10 % error")
ax.set(xlabel="error level e", ylabel="mean JCT / error-free", title=f"{len(error_seeds)} seeds per level")
ax.legend()
paths = plotting.savefig(fig, "fig_optimus_22_fig15_prediction_errors", figures_dir)

# %%
# NBVAL_CHECK_OUTPUT
print(gaps.round(3).to_string(index=False))
cmp15 = findings.fig15_table(gaps, paper["fig15"])
print(cmp15.drop(columns="figure").to_string(index=False))
print(findings.fig15_reading(gaps))

# %% [markdown]
# **Paper vs ours.** The table judges the paper's two statements against the seed noise: a gap
# counts only above two standard errors of its seed-to-seed spread (`jct_ratio_std`). Where the
# errors barely move the mean JCT, this is why: an error that scales $f_j$ by a constant leaves a job's
# own choice between one more PS or one more worker unchanged; it only changes how jobs rank against each
# other in the marginal-gain loop, and the allocation ablation below shows that *how* the cluster is divided
# among jobs matters little in our model. The error's sign also flips at random every interval, so a job is
# over- and under-served in turn. The paper's testbed presumably made each job's allocation matter much more
# than our ground-truth models do.

# %% [markdown]
# ## Fig. 16: all-sync vs all-async workloads
#
# Paper: Optimus outperforms DRF and Tetris in both cases; the gain is larger with synchronous
# training (more stable convergence, smaller estimation errors).

# %%
mgrid = experiments.param_grid({"n_jobs": n_jobs}, mode=["sync", "async"], scheme=main, seed=seeds)
mjobs = experiments.sweep(oe.job_run, mgrid, cache_dir=cache_dir, scheduler=scheduler, store=store)
mtotals = oe.run_totals(mjobs, ["mode", "scheme", "seed"])
v16 = oe.versus(mtotals, "drf", by="mode")

# %%
fig, axes = plotting.subplots(1, 2, figsize=(10, 4))
plotting.draw("barplot", mtotals, ax=axes[0], x="mode", y="mean_jct_h", hue="scheme", hue_order=main,
              errorbar="sd")
plotting.draw("barplot", mtotals, ax=axes[1], x="mode", y="makespan_h", hue="scheme", hue_order=main,
              errorbar="sd")
axes[0].set(ylabel="mean JCT (hours)", title="all jobs sync / all async")
axes[1].set(ylabel="makespan (hours)")
paths = plotting.savefig(fig, "fig_optimus_22_fig16_training_modes", figures_dir)

# %%
# NBVAL_CHECK_OUTPUT
cols = ["mode", "scheme", "mean_jct_h", "makespan_h", "jct_speedup", "makespan_speedup"]
print(v16[cols].round(2).to_string(index=False))
print(oe.finished_claim(mtotals, "Fig. 16").summary())
cmp16 = findings.fig16_table(v16)
print(cmp16.drop(columns="figure").to_string(index=False))
print(findings.fig16_reading(v16))

# %% [markdown]
# **Paper vs ours.** The table gives Optimus's gain over DRF in each mode, which mode gains more,
# and whether Optimus also beats Tetris. Which mode shows the larger gain is sensitive to the seeds
# (quick mode and paper mode can disagree). The paper's reason for a larger sync gain (sync jobs'
# estimates are more accurate) has little bite here, since estimation errors barely matter in our
# model (Fig. 15). All-sync workloads take longer than all-async ones (reading above) because our
# sync jobs scale poorly (parallel efficiency in the speed-up table at the end).

# %% [markdown]
# ## Fig. 17: Poisson and Google-trace arrivals
#
# Paper: Optimus still wins under Poisson arrivals (3 per interval) and arrivals from 7 hours of the
# Google trace, with a larger gain under the Google trace's spikes.

# %%
agrid = experiments.param_grid({"n_jobs": n_jobs, "rate": poisson_rate}, arrivals=["poisson", "google"],
                               scheme=main, seed=seeds)
ajobs = experiments.sweep(oe.job_run, agrid, cache_dir=cache_dir, scheduler=scheduler, store=store)
atotals = oe.run_totals(ajobs, ["arrivals", "scheme", "seed"])
v17 = oe.versus(atotals, "drf", by="arrivals")

# %%
fig, axes = plotting.subplots(1, 2, figsize=(10, 4))
plotting.draw("barplot", atotals, ax=axes[0], x="arrivals", y="mean_jct_h", hue="scheme", hue_order=main,
              errorbar="sd")
plotting.draw("barplot", atotals, ax=axes[1], x="arrivals", y="makespan_h", hue="scheme", hue_order=main,
              errorbar="sd")
axes[0].set(ylabel="mean JCT (hours)", title=f"Poisson ({poisson_rate:g} per interval) / Google 7 h")
axes[1].set(ylabel="makespan (hours)")
paths = plotting.savefig(fig, "fig_optimus_22_fig17_arrivals", figures_dir)

# %%
# NBVAL_CHECK_OUTPUT
cols = ["arrivals", "scheme", "mean_jct_h", "makespan_h", "jct_speedup", "makespan_speedup"]
print(v17[cols].round(2).to_string(index=False))
print(oe.finished_claim(atotals, "Fig. 17").summary())
cmp17 = findings.fig17_table(v17)
print(cmp17.drop(columns="figure").to_string(index=False))
print(findings.fig17_reading(v17, ajobs))

# %% [markdown]
# **Paper vs ours.** The table says whether Optimus beats DRF under both arrival processes and
# whether its gain is larger under the Google trace, as the paper finds. Our Google arrivals draw
# the jobs' intervals in proportion to the trace's submissions per interval, which spreads them over
# the trace's 7 hours, so the cluster is *less* loaded than under Poisson arrivals, which bring all
# jobs within a few hours (first-to-last arrival in the reading above); the paper's spikes may have
# been sharper (it does not say how it mapped trace submissions to jobs).

# %% [markdown]
# ## Fig. 18: allocation ablation
#
# Optimus's marginal-gain allocation vs DRF's allocation (bundles of 1 PS + 1 worker), both placed
# by Optimus's placement. Paper: Optimus's allocation cuts mean JCT by 62 % and makespan by 31 %.

# %%
atab = totals[totals.scheme.isin(["optimus", "drf_allocation", "drf"])]
v18 = oe.versus(atab, "drf_allocation").set_index("scheme")

# %%
fig, axes = plotting.subplots(1, 2, figsize=(10, 4))
order18 = ["optimus", "drf_allocation"]
plotting.draw("barplot", atab, ax=axes[0], x="scheme", y="mean_jct_h", order=order18, errorbar="sd")
plotting.draw("barplot", atab, ax=axes[1], x="scheme", y="makespan_h", order=order18, errorbar="sd")
axes[0].set(ylabel="mean JCT (hours)", title="both with Optimus placement")
axes[1].set(ylabel="makespan (hours)")
paths = plotting.savefig(fig, "fig_optimus_22_fig18_allocation", figures_dir)

# %%
# NBVAL_CHECK_OUTPUT
cmp18 = findings.fig18_table(v18, paper["fig18"])
print(cmp18.drop(columns="figure").to_string(index=False))
print(findings.fig18_reading(v18))

# %% [markdown]
# **Paper vs ours.** The reading compares Optimus's allocation with DRF's (both placed by Optimus's
# placement) next to the paper's 62 % / 31 %, and DRF allocation with Optimus's placement against
# the full DRF baseline: where the two DRF variants are close, almost all of Optimus's advantage
# over DRF comes from the allocation, and how large that advantage is decides the size of our gap
# (next sections).

# %% [markdown]
# ## Fig. 19: placement ablation
#
# Optimus's allocation placed by Theorem 1's rule vs task by task on the least-loaded server (DRF's,
# Kubernetes's default) or on the fullest server that fits (Tetris-like best fit). Paper: Optimus's
# placement is about 15 % better than DRF's and about 10 % better than Tetris's.

# %%
# NBVAL_CHECK_OUTPUT
ptab = totals[totals.scheme.isin(["optimus", "load_balance_placement", "best_fit_placement"])]
print(ptab[ptab.unfinished > 0][["scheme", "seed", "jobs", "unfinished"]].to_string(index=False))

# %% [markdown]
# **A starvation bug, found and fixed.** The allocation only checks the cluster's *total*
# capacity: a lone ResNet-50 job can be given nearly all of the cluster's cores in PS and workers,
# but its 16-GB PS do not fit server by server. While writing this notebook the `load_balance` /
# `best_fit` paths of `Optimus._place` skipped such a job, the same allocation came back every
# interval and the job never ran again. They now use the same fallback as Theorem 1's placement
# (`unplaced="shrink"`: give back the task whose loss slows the job least until it fits);
# `unplaced="pause"` keeps the literal rule, under which that job starves
# (`tests/test_optimus_policy.py`). Runs still stop at a horizon of 50 hours as a guard, the table
# above lists any unfinished job, and the comparison uses the seeds where every variant finished.

# %%
pcomplete = oe.complete_runs(ptab)
v19 = oe.versus(pcomplete, "optimus").set_index("scheme") if len(pcomplete) else None

# %%
fig, axes = plotting.subplots(1, 2, figsize=(10, 4))
order19 = ["optimus", "load_balance_placement", "best_fit_placement"]
plotting.draw("barplot", ptab, ax=axes[0], x="scheme", y="mean_jct_h", order=order19, errorbar="sd")
plotting.draw("barplot", ptab, ax=axes[1], x="scheme", y="makespan_h", order=order19, errorbar="sd")
axes[0].set(ylabel="mean JCT of finished jobs (hours)", title="all with Optimus allocation")
axes[1].set(ylabel="makespan of finished jobs (hours)")
for ax in axes:
    ax.tick_params(axis="x", labelrotation=15)
paths = plotting.savefig(fig, "fig_optimus_22_fig19_placement", figures_dir)

# %%
# NBVAL_CHECK_OUTPUT
print(f"seeds where every placement finished every job: {sorted(set(pcomplete.seed))}")
cmp19 = findings.fig19_table(v19, paper["fig19"])
print(cmp19.drop(columns="figure").to_string(index=False))
print(findings.fig19_reading(v19, v18))

# %% [markdown]
# **Paper vs ours.** "Better by x" is $1 - T_\text{Optimus} / T_\text{other}$ (means over the
# complete seeds). Load balancing spreads a job's tasks over many servers and pays for cross-server
# traffic in the placement-aware transfer term of our Eq. (2) ground truth; best fit also packs a
# job's tasks onto few servers, so Theorem 1's rule should gain less against it, as in the paper
# (15 % and 10 %). The reading puts the placement gains next to the allocation gain of Fig. 18:
# where they are of the same size, placement matters *more* here, relative to allocation, than in
# the paper (62 % for allocation). Few seeds in quick mode: one complete seed can swing these
# numbers by several points.

# %% [markdown]
# ## Table 3: PAA vs MXNet's default assignment
#
# ResNet-50's 157 parameter blocks (about 25 M parameters) on 10 PS; MXNet's default splits blocks
# of more than 1 M parameters evenly over all PS and puts small blocks on random PS (mean over
# seeds).

# %%
# NBVAL_CHECK_OUTPUT
cmp3 = findings.table3_table(oe.table3_comparison(table3_n_ps, table3_seeds))
print(cmp3.drop(columns="figure").to_string(index=False))

# %% [markdown]
# **Paper vs ours.** The PAA rows compare with the paper's 0.1 M, 1 and 157, and MXNet's request
# total with its 247. Where MXNet's imbalance differs from the paper's 3.6 M parameters and 43
# requests, our block sizes are reconstructed from the ResNet-50 architecture, and where the random
# small blocks land is one draw in the paper but a mean over `table3_seeds` draws here (notebook
# [`21_optimus_proofs`](21_optimus_proofs.ipynb) shows the whole distribution and MXNet's actual
# key hash).

# %% [markdown]
# ## Why our gap is smaller
#
# Three measurements. First, how each scheme used the cluster (means over jobs of the Fig. 11
# runs): workers and PS per job while it runs, PS per worker, the largest task count, CPU
# core-hours per job, and hours a job spent without tasks.

# %%
# NBVAL_CHECK_OUTPUT
print(profile.round(2).to_string())

# %% [markdown]
# Second, the ground-truth speed-up of each job type with $n$ PS and $n$ workers over 1 + 1
# (Eq. (2), all transfers across the network), as parallel efficiency = speed-up / $n$:

# %%
# NBVAL_CHECK_OUTPUT
speedups = oe.speedup_table((1, 2, 4, 8, 16))
print(speedups.pivot_table(index="job_mode", columns="n", values="efficiency").round(2).to_string())

# %% [markdown]
# Third, the allocation gap between Optimus and DRF allocation, per seed, from the Fig. 11 runs:

# %%
# NBVAL_CHECK_OUTPUT
print(totals[totals.scheme.isin(["optimus", "drf_allocation", "drf"])]
      .pivot_table(index="seed", columns="scheme", values="mean_jct_h").round(2).to_string())

# %%
# NBVAL_CHECK_OUTPUT
print(findings.gap_reading(profile, speedups))

# %% [markdown]
# What these say:
#
# * **DRF does not over-allocate much here.** With `n_jobs` jobs on the testbed's 160 cores, DRF gives
#   each running job only a few bundles (reading above), where most of our jobs still scale well
#   (efficiency at those counts above); Optimus runs about as many *workers* per job and saves mainly on PS, and
#   so uses fewer CPU core-hours per job. The paper's Fig. 14 argument ("more resources do not mean
#   higher training speed") needs jobs whose speed flattens or drops at the counts DRF hands out; in
#   our Eq. (2) ground truth that happens only for sync jobs at larger bundle counts.
# * **Async jobs scale almost linearly** in our models (efficiency at the largest count in the
#   reading), so for half of the jobs any work-conserving division of the CPUs is close to optimal.
# * **The gap did not grow with load** when we doubled the data (`data_scale=4`) or the jobs in a
#   check made while writing this notebook (not run here, so no number is given).
# * **Not modelled**: the testbed's costs of a bad allocation that our simulator does not have
#   (contention inside a server, stragglers, checkpoint-and-restart when a job is rescaled; our
#   Optimus rescales jobs every interval for free) and the paper's unstated Tetris and DRF
#   details. We did not tune the policies to close the gap; the section "Which reading restores
#   the claim" runs documented alternatives (a cost per rescale among them) and a ceiling.

# %% [markdown]
# ## Which reading restores the claim
#
# For every claim of Figs. 11/13, 15 and 18 that the scorecard below judges, for Figs. 20-21
# (PAA's training speed-up, which the sections above do not run) and for the priority factor 0.95
# (Sec. 6.2: mean JCT 2.66 % and makespan 1.88 % smaller than with factor 1), the table runs the
# spec's default reading and each alternative reading on the same points and seeds, through the
# results store (`dlsched.optimus.readings.reading_run`), and judges the claim with the
# scorecard's own rule (`holds`). Each alternative is a parameter of the wing; `source` names the
# spec or paper line it reinterprets, and every one was fixed before its result was seen
# (`fixed`). Every reading runs over the whole sweep of its figure (every seed; Fig. 15 every
# error pair and seed), re-running only the runs it changes:
#
# * **Table 2 speed** (`speed_model="table2"`): every job's true speed is Eq. (3)/(4) with the
#   paper's Table 2 coefficients (ResNet-50; $M = 1$, the unit Table 2 leaves open) instead of
#   our Eq. (2) constants, each job keeping its own speed with 1 PS + 1 worker. All schemes.
# * **A cost per rescale** (`rescale_seconds`): a checkpoint to HDFS and restart (Sec. 5.4) whenever
#   a running job's placement changes, 15.24 s (2.54 % of an interval: the paper's overall
#   overhead of 2.54 % of the makespan, were every job rescaled every interval) or 60 s. All
#   schemes.
# * **Tetris** with a per-job cap of 4 or 8 bundles (`max_bundles`), with a bundle's PS and worker
#   not forced onto one server (`colocate=False`), and both: the paper fixes only PS:worker = 1:1.
#   Tetris only, on the Tetris statement of Figs. 11/13.
# * **A persistent error** (`error_draw="job"`, Fig. 15): the error's sign is drawn once per job
#   and kept (a biased estimate), not redrawn every interval; also with Table 2's speed model.
# * **PS load imbalance** (`ps_load="imbalance"`, Figs. 20-21): Eq. (2) assumes every PS holds
#   $S/p$, so in our ground truth PAA cannot change the speed (the default row); this reading lets
#   the PS with the largest share (PAA's or MXNet's assignment of ResNet-50's 157 blocks) set the
#   step time, 10 workers and `paa_n_ps` PS. Only ResNet-50's blocks are known, so Fig. 21's other
#   models are not run; its row is ResNet-50's speed-up with 10 + 10 against the paper's "up to
#   29 %" over models.
# * **The priority factor 0.95**: the default row is Optimus with factor 0.95 for jobs in their
#   initial phase (fewer than 3 observed epochs, the wing's default) against the Figs. 11/13
#   Optimus runs; the alternative counts the first 10 epochs as the initial phase.
# * **Ceiling**: the clairvoyant Optimus (`oracle=True`), its own allocation and placement fed with
#   every job's true remaining steps and true speed function, on the Figs. 11/13 seeds. It is
#   what perfect estimates could buy Optimus in our model (a greedy allocation, so not a bound over
#   every scheduler); where the paper's speed-up or reduction is beyond it (`holds` false: below
#   the band the scorecard calls `yes`), no better reading of the estimators reaches it. It is
#   computed under the default ground truth (Eq. (2), no rescale cost), so it bounds the readings
#   of the estimators, not those that change the ground truth (Table 2 speed, rescale cost).

# %%
ours_r = {"n_jobs": n_jobs, "seeds": seeds, "error_seeds": error_seeds, "error_levels": error_levels,
          "n_ps": paa_n_ps, "n_workers": table3_n_ps, "paa_seeds": table3_seeds}  # fmt: skip
axes_r = {k: list(v) if isinstance(v, tuple) else v for k, v in optimus_readings.AXES["paper"].items()}
assert quick or axes_r == ours_r, "the readings' paper grid must be this notebook's paper-mode points"
reading_grid = optimus_readings.readings_grid(mode)
reading_runs = experiments.sweep(optimus_readings.reading_run, reading_grid, cache_dir=cache_dir,
                                 scheduler=scheduler, store=store)  # fmt: skip
reading_frame = pd.concat([reading_runs, optimus_readings.default_rows(jobs, ejobs)], ignore_index=True)
judged = findings.scorecard([cmp11, cmp15, cmp18])
readings_table = dlsched.readings.readings_table(optimus_readings.readings_rows(reading_frame, judged))

# %%
# NBVAL_CHECK_OUTPUT
print(readings_table.drop(columns=["paper", "parameter", "source", "fixed"]).to_string(index=False))
print()
verdicts = readings_table.groupby(["figure", "quantity"], sort=False)["verdict"].value_counts()
print(verdicts.unstack(fill_value=0).to_string())
saved_readings = dlsched.readings.save_readings(readings_table, "22_optimus_figures", mode=mode)

# %% [markdown]
# **Reading the table.** A claim that some row restores ("restores the claim") has a documented
# reading of the paper under which our schemes do what the paper reports; the rows of the same
# reading on the other claims say what that reading costs elsewhere. A claim that no row restores
# is not explained by any of these readings, and a ceiling row "beyond the model's ceiling" says
# that even perfect estimates would not bring Optimus to the paper's number in our model. The saved
# table (`data/scorecards/readings/`, paper mode only) feeds the README's fidelity table.
#
# **Figs. 1, 2 and 4 (the motivation measurements) are not reproduced, for these reasons.** Fig. 1
# shows ResNext-110's training and validation loss and accuracy on CIFAR10, and Fig. 2 the training
# times of the nine Table 1 models (hours to days on the paper's GPUs): neither the models nor
# that hardware are within reach here, and the real training-loss curves we do have (small
# scikit-learn models, `data/loss_curves`) are shown as Fig. 5's stand-ins in notebook
# [`20_optimus_models`](20_optimus_models.ipynb). Fig. 4 measures ResNet-50's synchronous training
# speed against the split of 20 containers (5 cores, 10 GB each) into workers and PS, and against
# the count at PS:worker = 1:1: that needs a parameter-server training framework with workers and
# PS exchanging gradients over a network. The real-process testbed we have (`dlsched.specon.testbed`)
# runs single-process NumPy jobs with no parameter server, on a 2-core machine shared with other
# work, where 20 containers would time-share two cores and measure the machine's scheduler, not a
# PS architecture; building a PS framework for it would be a new testbed, not a cheap rerun. Fig. 4's
# shape is what Eq. (2) encodes; notebook 20 fits its speed functions (Fig. 9, Table 2).

# %% [markdown]
# ## Summary: paper vs ours
#
# Every row of the tables above that has a verdict, computed from this run's data (in paper mode
# the scorecard is saved to `data/scorecards/22_optimus_figures.csv`, from which the README's
# fidelity table is generated; a quick run saves nothing). The rules (`dlsched.optimus.findings`):
# a gain is reproduced (`yes`) within 25 % of the paper's, `partly` if it has the paper's sign but
# another size, `no` otherwise or within the seed noise; a Table 3 value within 10 % (`partly`
# within 50 %); a statement `yes` if it holds in every case, `partly` in some.

# %%
# NBVAL_CHECK_OUTPUT
tables = [cmp11, cmp14, cmp15, cmp16, cmp17, cmp18, cmp19, cmp3]
card = findings.scorecard(tables)
print(card.to_string(index=False))
print(findings.summary_reading(card))
saved = fidelity.save_scorecard(card, "22_optimus_figures", mode=mode)

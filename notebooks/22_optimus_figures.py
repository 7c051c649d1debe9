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
# compute constants and down-scaled datasets (`data_scale = 2`) make Optimus's makespan about
# 5 hours (the paper: 4.1 h). One simulator slot is one 10-minute scheduling interval.
#
# **Headline** (said plainly): Optimus beats DRF here too, but by **about 1.15x in JCT and
# makespan, not the paper's 2.39x and 1.63x**, and Tetris comes out *worse* than DRF, not better.
# The section "Why our gap is smaller" at the end measures why.
#
# *Runtime* (2 cores, serial, empty cache): quick mode (2 seeds; Fig. 15 with 2 seeds per error level)
# about 30 s; full mode (10 seeds, Fig. 15 with 20 seeds per level; the paper repeats 3 times) about
# 3.5 minutes. Every run is cached in `cache_dir`; `scheduler="local"` spreads the sweeps over cores.

# %% tags=["parameters"]
mode = "quick"  # "quick" (small smoke run) or "paper" (the papers' sizes)
seed = 0
figures_dir = "../build/figures"  # paper mode: ../figures (make reproduce-full)
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

# %%
from dlsched import experiments, plotting
from dlsched.optimus import experiments as oe

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
v11 = oe.versus(main_totals, "drf").set_index("scheme")
cmp11 = oe.paper_vs_ours([
    ("JCT speed-up of Optimus vs DRF", paper["fig11"]["jct_speedup_vs_drf"],
     v11.loc["optimus", "jct_speedup"]),
    ("makespan speed-up of Optimus vs DRF", paper["fig11"]["makespan_speedup_vs_drf"],
     v11.loc["optimus", "makespan_speedup"]),
    *[(f"makespan {s} (h)", paper["fig11"][f"makespan_h_{s}"], v11.loc[s, "makespan_h"]) for s in main],
])
print(cmp11.to_string(index=False))

# %%
claims = [oe.finished_claim(main_totals, "Figs. 11/13"),
          oe.beats_claim(main_totals, "optimus", "drf", "Fig. 11")]
for claim in claims:
    print(claim.summary(3))
    assert claim.holds, claim.summary()

# %% [markdown]
# **Paper vs ours.** Same direction, much smaller size: Optimus beats DRF by roughly 15-20 % in both
# mean JCT and makespan (the paper: 2.39x and 1.63x; full mode, 10 seeds: 1.15x and 1.14x). Our
# DRF makespan is about the paper's (6.4-6.7 h vs 6.7 h), our Optimus makespan longer (5.5-5.9 h
# over seeds vs 4.1 h; the workload's dataset sizes were calibrated on seed 0 alone). The ranking of
# the baselines is reversed: our Tetris is the worst scheme by far (the paper: 5.0 h, better than
# DRF's 6.7 h). Tetris packs as many 1 PS + 1 worker bundles as fit into the job with the
# shortest remaining work, with no cap per job (`max_bundles=None`), so it runs about 2 jobs at a
# time with 10+ bundles each (Fig. 14 table, task profile below), including synchronous jobs whose
# speed-up at 8-16 bundles is only 2-5x, while the other jobs wait (about an hour each); the paper's
# Tetris configuration is not described in enough detail to know what limited its bundles. A
# second, structural cause: our Tetris (`dlsched.optimus.baselines`) places each bundle's PS and
# worker on the *same* server (6 cores), so a 16-core server holds 2 bundles and an 8-core server 1:
# at most 20 bundles, 40 tasks, 75 % of the CPU, the flat Tetris line of Fig. 14 below.

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
print(oe.timeline_stats(timeline).round(2).to_string())

# %% [markdown]
# **Paper vs ours.** As in the paper, Optimus runs fewer tasks than DRF (it gives jobs fewer PS:
# 0.6-0.8 PS per worker instead of DRF's fixed 1:1) and DRF keeps the cluster fullest. The CPU
# curves are not the paper's quantity (allocated, not used, CPU), so "Optimus uses its
# allocation more efficiently" cannot be read from them; the task profile below shows the same
# thing from another side: DRF does not run many more *workers* than Optimus.

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
both = gaps[(gaps.convergence_error == 0.2) & (gaps.speed_error == 0.1)].iloc[0]
print(oe.paper_vs_ours([("JCT gap, 20 % convergence + 10 % speed error", paper["fig15"]["jct_gap"],
                         both.jct_ratio - 1)]).to_string(index=False))

# %% [markdown]
# **Paper vs ours.** We do not reproduce Fig. 15: with errors of up to 30 % the mean JCT stays within about
# 2 % of the error-free run (sometimes even below it), i.e. within seed-to-seed noise (`jct_ratio_std`);
# neither error kind matters more than the other. An error that scales $f_j$ by a constant leaves a job's
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

# %% [markdown]
# **Paper vs ours.** Optimus beats DRF in both modes, by 5-15 %, not by the paper's factors. Which
# mode shows the larger gain depends on the seeds: sync in quick mode (2 seeds), async in full mode
# (10 seeds: 1.16x vs 1.08x in JCT), so we do not confirm the paper's "larger gain with synchronous
# training". The paper's reason (sync jobs' estimates are more accurate) has little bite here,
# since estimation errors barely matter in our model (Fig. 15). All-sync workloads take much longer
# under every scheme: our sync jobs scale poorly (parallel efficiency 0.4 at 8 bundles, see the
# speed-up table below). Tetris is again the worst.

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

# %% [markdown]
# **Paper vs ours.** Optimus beats DRF under both arrival processes, by 10-20 %; the gain under the
# Google trace is larger in JCT but not in makespan (the paper: larger under the Google trace). Our Google
# arrivals draw the 30 jobs' intervals in proportion to the trace's submissions per interval, which
# spreads them over 7 hours, so the cluster is *less* loaded than under Poisson arrivals (all 30
# jobs within about 10 intervals); the paper's spikes may have been sharper (it does not say how
# it mapped trace submissions to jobs).

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
print(oe.paper_vs_ours([
    ("JCT reduction, Optimus vs DRF allocation", paper["fig18"]["jct_reduction"],
     v18.loc["optimus", "jct_reduction"]),
    ("makespan reduction, Optimus vs DRF allocation", paper["fig18"]["makespan_reduction"],
     v18.loc["optimus", "makespan_reduction"]),
]).to_string(index=False))

# %% [markdown]
# **Paper vs ours.** Optimus's allocation helps, but by about a tenth, not 62 % / 31 %. DRF
# allocation with Optimus's placement performs like the full DRF baseline (compare `drf` in the
# Fig. 11 table): in our model almost all of Optimus's advantage comes from the allocation, and the
# allocation advantage itself is small (next section).

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
# capacity, e.g. 29 PS + 25 workers for a lone ResNet-50 job (158 of 160 cores, 664 of 848 GB),
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
rows19 = [] if v19 is None else [
    ("JCT: Optimus placement better than load balance by", paper["fig19"]["gain_vs_load_balance"],
     1 - v19.loc["load_balance_placement", "jct_speedup"]),
    ("JCT: Optimus placement better than best fit by", paper["fig19"]["gain_vs_best_fit"],
     1 - v19.loc["best_fit_placement", "jct_speedup"]),
    ("makespan: better than load balance by", paper["fig19"]["gain_vs_load_balance"],
     1 - v19.loc["load_balance_placement", "makespan_speedup"]),
    ("makespan: better than best fit by", paper["fig19"]["gain_vs_best_fit"],
     1 - v19.loc["best_fit_placement", "makespan_speedup"]),
]
print(oe.paper_vs_ours(rows19).to_string(index=False) if rows19 else "no complete seed")

# %% [markdown]
# **Paper vs ours.** "Better by x" is $1 - T_\text{Optimus} / T_\text{other}$ (means over the
# complete seeds). In mean JCT, Theorem 1's rule is about 14 % better than load balancing (the paper:
# 15 %), which spreads a job's tasks over many servers and pays for cross-server traffic in the
# placement-aware transfer term of our Eq. (2) ground truth, but only about 5 % better than best fit
# (the paper: 10 %), which also packs a job's tasks onto few servers (full mode, 10 seeds: 14 % and
# 5 %). In makespan the gains are smaller (full mode: 4 % and 2 %). Relative to the allocation
# (Fig. 18: 12 % in JCT here, 62 % in the paper) placement matters *more* here than in the paper.
# Few seeds in quick mode: one complete seed can swing these numbers by several points.

# %% [markdown]
# ## Table 3: PAA vs MXNet's default assignment
#
# ResNet-50's 157 parameter blocks (about 25 M parameters) on 10 PS; MXNet's default splits blocks
# of more than 1 M parameters evenly over all PS and puts small blocks on random PS (mean over
# seeds).

# %%
# NBVAL_CHECK_OUTPUT
print(oe.table3_comparison(table3_n_ps, table3_seeds).to_string(index=False))

# %% [markdown]
# **Paper vs ours.** PAA matches the paper exactly (157 requests, no block split, 0.1 M size and
# 1 request of imbalance), and so does MXNet's request total (247). MXNet's imbalance is smaller
# than the paper's (about 1.7 M parameters and 12 requests vs 3.6 M and 43) because our block
# sizes are reconstructed from the ResNet-50 architecture, and where the random small blocks land
# is one draw in the paper but a mean over 20 draws here.

# %% [markdown]
# ## Why our gap is smaller
#
# Three measurements. First, how each scheme used the cluster (means over jobs of the Fig. 11
# runs): workers and PS per job while it runs, PS per worker, the largest task count, CPU
# core-hours per job, and hours a job spent without tasks.

# %%
# NBVAL_CHECK_OUTPUT
print(oe.task_profile(jobs[jobs.scheme.isin(main)]).round(2).to_string())

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

# %% [markdown]
# What these say:
#
# * **DRF does not over-allocate much here.** With 30 jobs on 160 cores, DRF gives each running job about
#   4-5 bundles, where even our sync jobs still have a parallel efficiency of 0.4-0.8 and async jobs about
#   0.9-1.0; Optimus runs about as many *workers* per job and saves mainly on PS (0.6-0.7 per worker vs
#   1:1) and so uses 25-30 % fewer CPU core-hours per job. The paper's Fig. 14 argument ("more
#   resources do not mean higher training speed") needs jobs whose speed flattens or drops at the counts DRF
#   hands out; in our Eq. (2) ground truth that happens only for sync jobs at 8+ bundles.
# * **Async jobs scale almost linearly** in our models (efficiency about 0.9 at 16 bundles for most
#   types), so for half of the jobs any work-conserving division of the CPUs is close to optimal.
# * **The gap does not grow with load** in our model: doubling the data (`data_scale=4`) or the
#   jobs (60) left Optimus 6-15 % ahead of DRF on 3 seeds (checked while writing this notebook,
#   not run here).
# * **Not modelled**: the testbed's costs of a bad allocation that our simulator does not have
#   (contention inside a server, stragglers, checkpoint-and-restart when a job is rescaled; our
#   Optimus rescales jobs every interval for free) and the paper's unstated Tetris and DRF
#   details. We did not tune the policies to close the gap.

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
# # OASiS, Sec. V: Figs. 3-6 and 8-9 reproduced
#
# Y. Bao, Y. Peng, C. Wu, Z. Li, *Online Job Scheduling in Distributed Machine Learning Clusters*,
# IEEE INFOCOM 2018 (arXiv:1801.00936), Sec. V. This notebook re-runs the paper's evaluation in our
# simulator and puts what the paper reports next to what we get:
#
# | figure | what | `dlsched.oasis.experiments` |
# |---|---|---|
# | Fig. 3 | total utility vs number of jobs, OASiS / FIFO / DRF / RRH / Dorm | `utility_run` |
# | Fig. 4 | actual minus target completion, time-sensitive / time-critical jobs | `utility_run` |
# | Fig. 5 | performance ratio OPT / OASiS vs servers and priority range | `ratio_run` |
# | Fig. 6 | OASiS with U/L estimated at 20 %-1000 % of the true values | `estimate_run` |
# | Figs. 8-9 | testbed (Sec. V-B), simulated: total utility, actual minus target | `testbed_run` |
#
# The paper's text gives trends, not numbers, except Fig. 5's ratios of 1.1-1.5; each section
# ends with a paper-vs-ours table, a reading of our numbers printed from the data, and a
# paragraph on where and why we differ; the notebook ends with the scorecard of every judged
# claim.
#
# Paper mode (the default) runs the paper's sizes (the `*_full` parameters): every sweep point,
# and the large check run of Fig. 3, is read from the results store `data/results`
# (`dlsched audit` recomputes stored points; `dlsched reproduce --mode paper --fresh --only 12`
# recomputes them all, with `--param scheduler=local` on two cores or a Dask scheduler address
# on a cluster). Quick mode runs small clusters and loads with one seed, a smoke test whose
# numbers say little.

# %% tags=["parameters"]
mode = "paper"  # "paper" (the papers' sizes, read from the results store data/results) or "quick" (small smoke run)
seed = 0
figures_dir = "../figures"
cache_dir = "../build/cache"
store_dir = "../data/results"  # paper-scale results store (dlsched audit checks it)
scheduler = "serial"
n_jobs_quick = [30, 60]
n_jobs_full = [100, 200, 300, 400]
T_quick = 60
T_full = 300
servers_quick = 10
servers_full = 50
n_seeds_quick = 1
n_seeds_full = 5
fig4_jobs_quick = 60
fig4_jobs_full = 200
fig4_T_quick = 50
fig4_T_full = 100
fig4_mix = [0.0, 0.5, 0.5]
ratio_jobs = 10
ratio_T = 10
ratio_servers = [3, 6, 9, 12]
ratio_seeds_quick = 3
ratio_seeds_full = 20
ratio_time_limit_quick = 20.0
ratio_time_limit_full = 600.0
u_scales = [0.2, 0.5, 1.0, 3.0, 5.0, 10.0]
alpha_caps = [5.0, 10.0, 20.0, 50.0]
testbed_T = [10, 20]
testbed_seeds_quick = 5
testbed_seeds_full = 20

# %%
import pandas as pd

import dlsched.readings
from dlsched import experiments, fidelity, plotting
from dlsched.oasis import experiments as ox
from dlsched.oasis import findings, paper
from dlsched.oasis import readings as oasis_readings

quick = mode == "quick"
store = None if quick else store_dir
seeds = list(range(seed, seed + (n_seeds_quick if quick else n_seeds_full)))
n_jobs = n_jobs_quick if quick else n_jobs_full
T = T_quick if quick else T_full
H = servers_quick if quick else servers_full
fig4_jobs, fig4_T = (fig4_jobs_quick, fig4_T_quick) if quick else (fig4_jobs_full, fig4_T_full)
ratio_seeds = list(range(seed, seed + (ratio_seeds_quick if quick else ratio_seeds_full)))
ratio_time_limit = ratio_time_limit_quick if quick else ratio_time_limit_full
testbed_seeds = list(range(seed, seed + (testbed_seeds_quick if quick else testbed_seeds_full)))
policies = list(ox.POLICIES)
plotting.set_style()

# %% [markdown]
# ## Setting (Sec. V-A) and our readings
#
# Workloads come from `dlsched.oasis.model.oasis_workload` (registered as `"oasis"`): the job and
# demand ranges of Sec. V-A, arrivals following the Google 2011 diurnal pattern, sigmoid utilities
# with 10 % time-insensitive, 55 % time-sensitive, 35 % time-critical jobs. Where the paper is
# silent we chose, and every choice matters for the comparison below:
#
# * **units of $\tau_i$**: seconds with 1-hour slots (the literal "time slots" reading makes most
#   jobs unable to finish within $T$; see `dlsched.oasis.model`);
# * **server capacities**: worker servers are EC2 P2/G3 instances (they carry the GPUs), PS servers
#   c4.8xlarge, storage 1 TB; the paper names the instance families but gives no numbers (and
#   swaps the roles in its text);
# * **baselines**: FIFO and RRH run every job with its fixed worker count (uniform in [1, 30], as
#   the paper says); RRH's delay cost, score and threshold, DRF's PS count and Dorm's fairness and
#   adjustment constraints are our readings (`dlsched.oasis.baselines`); in FIFO, DRF and RRH
#   tasks are placed round-robin;
# * **OASiS** gets the workload's true $U$, $L$ and $\eta$ of (23)-(26) ("estimated from past
#   experience" in the paper).

# %% [markdown]
# ## Fig. 3: total utility vs number of jobs
#
# Paper: $T = 300$, $H = K = 50$, 100-400 jobs. OASiS performs best, "especially when the number
# of jobs in the fixed timespan is larger (resources are more scarce)".

# %%
grid = experiments.param_grid({"T": T, "H": H, "K": H}, n_jobs=n_jobs, policy=policies, seed=seeds)
jobs3 = experiments.sweep(ox.utility_run, grid, cache_dir=cache_dir, scheduler=scheduler, store=store)
totals3 = ox.run_totals(jobs3, ["policy", "n_jobs", "seed"])

# %%
fig, ax = plotting.subplots()
plotting.draw("lineplot", totals3, ax=ax, x="n_jobs", y="total_utility", hue="policy",
              hue_order=policies, marker="o", errorbar=("pi", 100))
ax.set(xlabel="number of jobs", ylabel="total utility", title=f"T={T}, H=K={H}, {len(seeds)} seeds, min-max")
paths = plotting.savefig(fig, "fig_oasis_03_total_utility", figures_dir)

# %% [markdown]
# Mean over seeds of the admitted and finished jobs and the total utility, per scheme and load:

# %%
# NBVAL_CHECK_OUTPUT
cols = ["admitted", "finished", "total_utility"]
print(totals3.groupby(["n_jobs", "policy"])[cols].mean().round(1).to_string())

# %%
# NBVAL_CHECK_OUTPUT
setting3 = f"{n_jobs} jobs, T={T}, H=K={H}, {len(seeds)} seed(s)"
cmp3 = ox.fig3_comparison(totals3, setting=setting3)
print(cmp3.to_string(index=False))

# %% [markdown]
# **Reading Fig. 3** (means over the seeds):

# %%
# NBVAL_CHECK_OUTPUT
print(findings.fig3_reading(totals3))

# %% [markdown]
# OASiS's schedules are feasible and its final prices and payoffs bound its utility from above
# (Theorem 2 and weak duality), checked on the OASiS run at the largest load (seed `seed`),
# together with an RRH run on the same workload (`dlsched.oasis.paper.fig3_check_run`):

# %%
check3 = {"seed": seed, "n_jobs": n_jobs[-1], "T": T, "H": H, "K": H}
profile = experiments.sweep(paper.fig3_check_run, [check3], cache_dir=cache_dir, scheduler=scheduler, store=store)
for name in ("feasible", "weak_duality"):
    print(profile[f"{name}_summary"].iloc[0])
    assert profile[name].all(), profile[f"{name}_summary"].iloc[0]

# %% [markdown]
# Two numbers that explain most of what follows: Theorem 4's $\alpha = \max_r \ln(U/L)$ of this
# workload, and how OASiS and RRH use the cluster (share of the GPUs and vCPUs allocated, mean
# job completion time in slots, utility per finished job):

# %%
# NBVAL_CHECK_OUTPUT
alpha = float(profile["alpha"].iloc[0])
print(f"alpha = max_r ln(U/L) = {alpha:.0f}; ln L1 = {profile['log_l1'].iloc[0]:.0f}")
profile_cols = ["policy", "finished", "utility_per_finished", "mean_jct", "gpu_busy", "cpu_busy"]
print(profile[profile_cols].round(2).to_string(index=False))
print(findings.profile_reading(profile))

# %% [markdown]
# **Where we differ.** The paper has OASiS ahead of every scheme, the more so the heavier the
# load; where our runs disagree (the reading and the Fig. 3 rows of the table above), the two
# numbers above show why, as far as we can tell. With the true price parameters of (23)-(26),
# $L$ is set by the smallest end-of-horizon utility, that of a time-critical job
# ($\gamma_2 \approx 5$) ending at $T$, about $e^{-5(T - a_i - \gamma_3)}$; so
# $\alpha = \ln(U/L)$ is huge and grows with $T$. A price $L (U/L)^{g/c} = U e^{-\alpha(1-g/c)}$
# then stays negligible until a server is almost full (the last line above) and only then jumps
# to $U$: OASiS acts like a greedy first-come first-served scheduler that books capacity
# irrevocably for the early arrivals with stretched schedules and rejects later jobs whatever
# their priority; the profile compares its GPU booking, completion times and utility per
# finished job with RRH's. RRH, under our reading (reward minus delay cost per unit of
# resource-time, pause and resume), favours short, high-priority jobs; Dorm and DRF re-divide the
# cluster on every event. The paper gives neither RRH's cost function and threshold, nor Dorm's
# constraints, nor the server capacities or the unit of $\tau_i$, so we cannot tell which reading
# differs from theirs.

# %% [markdown]
# ## Testing that explanation: OASiS with $\ln(U/L)$ capped (not in the paper)
#
# If the size of $\alpha$ is what holds OASiS back, prices that rise earlier should help. Here
# OASiS gets $L$ raised to $U e^{-c}$, so that $\ln(U/L) \le c$ (`OASiS(max_log_ratio=c)`,
# `PriceParameters.capped`), on the workloads and seeds of Fig. 3. This is our experiment, not the
# paper's, and Theorem 4's bound does not cover such estimates.

# %%
cgrid = experiments.param_grid({"T": T, "H": H, "K": H}, n_jobs=n_jobs, max_log_ratio=alpha_caps, seed=seeds)
jobs_cap = experiments.sweep(ox.capped_run, cgrid, cache_dir=cache_dir, scheduler=scheduler, store=store)
totals_cap = ox.run_totals(jobs_cap, ["max_log_ratio", "n_jobs", "seed"])

# %%
# NBVAL_CHECK_OUTPUT
cap_table = ox.alpha_cap_table(totals3, totals_cap)
print(cap_table.round(1).T.to_string())

# %% [markdown]
# **Reading the capped runs**: per load, the best cap against the best baseline and against
# OASiS with (23)-(26); the caps that beat the best baseline everywhere; the caps too small to
# admit anything.

# %%
# NBVAL_CHECK_OUTPUT
print(findings.cap_reading(cap_table, totals_cap))

# %% [markdown]
# **What this shows.** Where a capped OASiS earns several times as much as OASiS with
# (23)-(26) and reaches or passes the best baseline (the reading above), the explanation holds
# up: the algorithm's structure works on this workload; what holds it back is the worst-case $L$
# of (25)-(26), which the time-critical jobs' vanishing end-of-horizon utility pushes towards 0.
# No single cap need win everywhere: prices must rise earlier when capacity is scarce, so
# heavier loads should favour smaller caps; and we picked the caps after seeing the results, so
# this is an explanation, not a tuned scheduler. A cap that is too small fails the other way: the
# price of an empty server, $L = U e^{-c}$, then exceeds what a job can pay for its
# resource-time, and OASiS admits nothing (the last line of the reading names such caps). The
# paper's "estimates based on past experience" may have been of this milder kind; it does not
# say.

# %% [markdown]
# ## Fig. 4: actual minus target completion time
#
# Paper: 100 time-sensitive and 100 time-critical jobs, $T = 100$; OASiS is closest to 0 for
# both classes, with the smallest variance. We draw 200 jobs with the mix (0, 0.5, 0.5), so the
# class sizes are binomial around 100 (quick mode: fewer jobs on the small cluster). Only
# finished jobs have a completion time.

# %%
base4 = {"T": fig4_T, "H": H, "K": H, "n_jobs": fig4_jobs, "workload": {"mix": fig4_mix}}
grid = experiments.param_grid(base4, policy=policies, seed=seeds)
jobs4 = experiments.sweep(ox.utility_run, grid, cache_dir=cache_dir, scheduler=scheduler, store=store)
stats4 = ox.timeliness(jobs4, ["policy", "utility_class"])

# %%
fig = ox.timeliness_figure(jobs4, title=f"{fig4_jobs} jobs, T={fig4_T}, H=K={H}, {len(seeds)} seed(s)")
paths = plotting.savefig(fig, "fig_oasis_04_completion_vs_target", figures_dir)

# %%
# NBVAL_CHECK_OUTPUT
print(stats4.round(2).to_string(index=False))

# %%
# NBVAL_CHECK_OUTPUT
cmp4 = ox.fig4_comparison(stats4, setting=f"{fig4_jobs} jobs (mix {fig4_mix}), T={fig4_T}, H=K={H}")
print(cmp4.to_string(index=False))

# %% [markdown]
# **Reading Fig. 4** (finished jobs only; schemes with fewer than 3 finished jobs of a class are
# not ranked):

# %%
# NBVAL_CHECK_OUTPUT
print(findings.fig4_reading(stats4, min_finished=3))

# %% [markdown]
# **Where we differ.** The paper has OASiS closest to the target with the smallest spread in
# both classes. Where OASiS's finished jobs end *late* relative to $\gamma_3$ (the reading), this
# follows from the pricing discussed under Fig. 3: early slots are booked by earlier jobs at
# near-zero prices, so Algorithm 2's best completion slot for a new job is often well past its
# target; a time-sensitive sigmoid ($\gamma_2 \le 1$) still pays enough there, a time-critical
# one often does not and the job is rejected (rejected jobs have no completion time and are not
# in the boxes). The same survivor effect shapes every box: jobs a scheme leaves unfinished at
# $T$ do not appear (the reading gives the finished counts). The paper does not say how many
# jobs each scheme finished.

# %% [markdown]
# ## Fig. 5: performance ratio OPT / OASiS
#
# Paper: 10 jobs, $T = 10$, 3/6/9/12 servers "proportionally divided" between workers and PS,
# priorities $\gamma_1$ in four ranges ordered so that $\max_r U/L$ grows left to right; OPT
# solved exactly (2 days). Ratios 1.1-1.5, no clear trend. We solve the offline MILP (1)-(13)
# with HiGHS under a time limit (`dlsched.oasis.offline.solve_offline`), split the servers as
# $H = \lceil n/2 \rceil$, $K = \lfloor n/2 \rfloor$ and average over several random instances.
# Because OASiS's schedule is itself feasible for (1)-(13), OPT is taken as at least OASiS's
# utility; instances where no job can finish at all (OPT = OASiS = 0) are left out.

# %%
base5 = {"n_jobs": ratio_jobs, "T": ratio_T, "time_limit": ratio_time_limit}
ranges = [list(g) for g in ox.GAMMA1_RANGES]
grid = experiments.param_grid(base5, servers=ratio_servers, gamma1=ranges, seed=ratio_seeds)
ratios = experiments.sweep(ox.ratio_run, grid, cache_dir=cache_dir, scheduler=scheduler, store=store)
summary5 = ox.ratio_summary(ratios)

# %%
title5 = f"{ratio_jobs} jobs, T={ratio_T}, {len(ratio_seeds)} instances per bar; bars: min-max"
fig = ox.ratio_figure(ratios, title=title5)
paths = plotting.savefig(fig, "fig_oasis_05_ratio_vs_offline", figures_dir)

# %%
# NBVAL_CHECK_OUTPUT
print(summary5.round(3).to_string(index=False))
print(ratios["milp_status"].value_counts().to_string())

# %%
# NBVAL_IGNORE_OUTPUT
secs = ratios["solve_seconds"]
print(f"MILP solve time: median {secs.median():.3g} s, max {secs.max():.3g} s")

# %% [markdown]
# Theorem 4's bound $2\alpha$ measured on the same instances (the proof assumes a worker's demand
# is tiny compared with a server, which these 3-12 server clusters violate, so this is a
# measurement, not an assertion):

# %%
# NBVAL_CHECK_OUTPUT
print(ox.ratio_claim(ratios).summary())
setting5 = f"{ratio_jobs} jobs, T={ratio_T}, {len(ratio_seeds)} instances per bar, HiGHS"
cmp5 = ox.fig5_comparison(summary5, setting=setting5)
print(cmp5.to_string(index=False))

# %% [markdown]
# **Reading Fig. 5**: the span of the bars, the largest ratio with its instance, the instances
# left out, and the MILP solutions below OASiS's own utility:

# %%
# NBVAL_CHECK_OUTPUT
print(findings.fig5_reading(ratios, summary5))

# %% [markdown]
# **Where we differ.** The paper's bars lie in 1.1-1.5 with no clear trend. Most of our instances
# have ratios close to 1 (OASiS optimal or nearly so; see the medians), and a few lie far above,
# where OASiS admits a low-priority job that blocks the better ones; the mean of a bar is then
# set by those few (whether Theorem 4's $2\alpha$ still holds there is in the reading). Our
# instances are random (the same seeds for every bar), the paper's are not given; with $T = 10$
# and arrivals spread over all 10 slots several jobs per instance cannot finish by $T$ in any
# schedule, and instances where no job can finish (OPT = OASiS = 0) are dropped.
#
# Solver caveat: HiGHS (through `scipy.optimize.milp`) can return a point it labels *optimal*
# whose utility is *below* OASiS's feasible schedule (the same instances solve correctly with
# HiGHS's presolve switched off). Those instances are counted in `milp_below_oasis` above and in
# the reading; their OPT is taken as OASiS's utility, a valid lower bound, so their ratio is 1.
# The paper needed 2 days per exact solve; HiGHS's solve times here are printed above.

# %% [markdown]
# ## Fig. 6: OASiS with estimated $U/L$
#
# Paper: $T = 300$, 100-400 jobs; OASiS gets $U_1^r/L_1$ and $U_2^r/L_2$ at 20 %-1000 % of the true
# values; under-estimation beats over-estimation when resources are scarce. The paper does not say
# whether $U$ or $L$ was changed; we multiply $U$ at fixed $L$ (`PriceParameters.scaled`).

# %%
grid = experiments.param_grid({"T": T, "H": H, "K": H}, n_jobs=n_jobs, u_scale=u_scales, seed=seeds)
jobs6 = experiments.sweep(ox.estimate_run, grid, cache_dir=cache_dir, scheduler=scheduler, store=store)
totals6 = ox.run_totals(jobs6, ["u_scale", "estimate", "n_jobs", "seed"])

# %%
fig, ax = plotting.subplots()
plotting.draw("lineplot", totals6, ax=ax, x="n_jobs", y="total_utility", hue="estimate",
              hue_order=[ox.estimate_label(u) for u in u_scales], marker="o", errorbar=("pi", 100))
ax.set(xlabel="number of jobs", ylabel="total utility (OASiS)", title=f"U/L estimates, T={T}, H=K={H}")
paths = plotting.savefig(fig, "fig_oasis_06_estimation", figures_dir)

# %%
# NBVAL_CHECK_OUTPUT
table6 = totals6.pivot_table(index="estimate", columns="n_jobs", values="total_utility", sort=False)
print(table6.round(1).to_string())
cmp6 = ox.fig6_comparison(totals6, setting=f"{n_jobs} jobs, T={T}, H=K={H}, U scaled at fixed L")
print(cmp6.to_string(index=False))

# %% [markdown]
# **Reading Fig. 6** ($\alpha$ of the Fig. 3 check run, the same $T$ and cluster):

# %%
# NBVAL_CHECK_OUTPUT
print(findings.fig6_reading(totals6, alpha=alpha))

# %% [markdown]
# **Where we differ.** The paper finds under-estimation better than over-estimation when
# resources are scarce; the reading gives how much the estimates move OASiS's utility in our runs
# and the table whether under-estimates win at the highest load. The effect is bound to be small
# here because of the size of $\ln(U/L)$ noted under Fig. 3: a factor of 0.2-10 on $U$ changes it
# by at most $\ln 10 \approx 2.3$ (the last line puts that against $\alpha$), so the prices stay
# negligible until a server is nearly full either way. The paper does not say which parameter it
# perturbed; perturbing $L$ by orders of magnitude (or defining $L$ without the time-critical
# jobs' vanishing end-of-horizon utility) would change OASiS's behaviour much more, and might be
# what the paper's estimates did.

# %% [markdown]
# ## Figs. 8-9: the testbed (Sec. V-B), simulated
#
# Paper: MXNet on Kubernetes, 9 servers (7 worker hosts with 4 GPUs in total, 2 PS hosts with 8
# cores each), 12 jobs (AlexNet, ResNet-50/101/152, VGG-11, Inception-BN) arriving in the first
# 9 of 10 slots of 20 minutes, each running 40 min-2 h. We simulate that setting
# (`dlsched.oasis.model.testbed_workload`: per-model compute times calibrated to the stated
# durations, 10 Gbps per host) with several seeds, at the paper's $T = 10$ and, to see the jobs
# that need longer, at $T = 20$ (jobs still arrive in the first 9 slots).

# %%
grid = experiments.param_grid({}, T=testbed_T, policy=policies, seed=testbed_seeds)
jobs8 = experiments.sweep(ox.testbed_run, grid, cache_dir=cache_dir, scheduler=scheduler, store=store)
totals8 = ox.run_totals(jobs8, ["T", "policy", "seed"])

# %%
fig, ax = plotting.subplots()
plotting.draw("barplot", totals8, ax=ax, x="policy", y="total_utility", hue="T", order=policies,
              palette="colorblind", errorbar=("pi", 100))
ax.set(xlabel="", ylabel="total utility", title=f"simulated testbed, {len(testbed_seeds)} seeds; min-max")
paths = plotting.savefig(fig, "fig_oasis_08_testbed_utility", figures_dir)

# %%
fig = ox.timeliness_figure(jobs8, classes=None, hue="T", title="simulated testbed, finished jobs")
paths = plotting.savefig(fig, "fig_oasis_09_testbed_completion", figures_dir)

# %%
# NBVAL_CHECK_OUTPUT
print(totals8.groupby(["T", "policy"])[["admitted", "finished", "total_utility"]].mean().round(1).to_string())
stats9 = ox.timeliness(jobs8[jobs8["T"] == testbed_T[0]], "policy")
print(stats9.round(2).to_string(index=False))

# %%
# NBVAL_CHECK_OUTPUT
setting8 = f"simulated, T={testbed_T[0]}, {len(testbed_seeds)} seeds"
cmp8 = ox.fig8_comparison(totals8[totals8["T"] == testbed_T[0]], setting=setting8)
cmp9 = ox.fig9_comparison(stats9, setting=setting8)
print(cmp8.to_string(index=False))
print(cmp9.to_string(index=False))

# %% [markdown]
# **Reading Figs. 8-9**: the schemes ranked by mean total utility per horizon, on how many seeds
# OASiS beats the best other scheme, and the finished jobs behind Fig. 9:

# %%
# NBVAL_CHECK_OUTPUT
print(findings.testbed_reading(totals8, stats9, T=testbed_T[0]))

# %% [markdown]
# **Where we differ.** Ours is a simulation of the testbed, not a testbed: per-model compute
# times are calibrated so that each job takes 40 min-2 h at full parallelism (the paper gives
# only that range), every host gets 10 Gbps, and the two PS hosts (16 cores, 20 Gbps in all)
# hold only a handful of PS at a time, so few jobs finish within 10 slots under any scheme (the
# reading counts them). Which scheme leads, by how much and how consistently over the seeds is
# in the reading; the larger horizon shows which schemes would finish the longer jobs. The
# completion-minus-target comparison rests on a handful of finished jobs per scheme (schemes
# with fewer than 3 finished jobs are not ranked). The paper itself warns that on a 12-job
# testbed "the difference between OASiS and others may not be as apparent".

# %% [markdown]
# ## Which reading restores the claim
#
# For every claim of Figs. 3, 4 and 6 that the scorecard below judges, the table runs OASiS under
# the spec's default reading and under each alternative reading of the price parameters
# (23)-(26) on every point and seed of the figure, through the results store
# (`dlsched.oasis.readings.reading_run`), and judges the claim with the scorecard's own rule
# (`holds`). Each alternative is a parameter of `OASiS` (`dlsched.oasis.policy.price_parameters`
# documents each); `source` names the spec or paper line it reinterprets, and `fixed` says
# whether it was chosen before its result was seen:
#
# * **$L$ at the target completion** (`l_utility="target"`). (25)-(26) evaluate each job's
#   utility at the end of the horizon, $f_i(T - a_i)$, "the smallest utility"; this reading
#   takes it at the job's target completion $\gamma_3$ (Sec. V-A), where a sigmoid is worth
#   $\gamma_1/2$. Figs. 3-4.
# * **$L$ over time-sensitive jobs** (`l_jobs="time_sensitive"`): the minimum of (25)-(26) over
#   the jobs with $\gamma_2 \in [0.01, 1]$ only, leaving out the time-critical jobs whose
#   end-of-horizon utility vanishes. Figs. 3-4.
# * **$L$ from the median** (`l_statistic="median"`): the median of the jobs' unit utilities
#   instead of their minimum. Figs. 3-4.
# * **Fig. 6 with $L$ perturbed** (`l_scale`): the paper does not say whether its estimates of
#   $U/L$ at 20 %-1000 % changed $U$ or $L$; our default scales $U$. Because $\ln(U/L)$ is so
#   large here (printed under Fig. 3), this reading moves $L$ by orders of magnitude instead:
#   $U/L$ at $10^{-300}$, $10^{-30}$, $10^{30}$ and $10^{300}$ times the true value (the most a
#   float allows), on every point and seed of Fig. 6.
# * **The cap on $\ln(U/L)$** from the section after Fig. 3, shown again, labelled post hoc
#   (`fixed="after"`): it was chosen after seeing Fig. 3's results and never counts as restoring
#   a claim.
# * **Ceiling.** Fig. 5's offline optimum is the best any scheduler can do on its instances (a
#   ratio of 1), so the paper's 1.1-1.5 is within our model. At Fig. 3's sizes (100-400 jobs,
#   300 slots, 100 servers) the offline MILP is out of reach, and the ceiling is an upper bound
#   instead: every job alone on the empty cluster with all its workers, earning its utility at
#   the earliest completion; sharing only delays jobs, so no scheduler earns more on the same
#   jobs. Fig. 4 (completion minus target) and Fig. 6 (OASiS against itself) have no ceiling: no
#   optimum of (1) bounds them.
#
# Every reading changes OASiS only: the other schemes, the default rows and the capped runs are
# this notebook's own runs above (not recomputed).

# %%
axes_r = dict(oasis_readings.AXES[mode])
ours_r = {"n_jobs": tuple(n_jobs), "T": T, "H": H, "seeds": tuple(seeds), "fig4_jobs": fig4_jobs, "fig4_T": fig4_T}
same_r = list(fig4_mix) == list(oasis_readings.FIG4_MIX) and list(alpha_caps) == list(oasis_readings.ALPHA_CAPS)
assert axes_r == ours_r and same_r, "the readings' grid must be this notebook's points"
reading_runs = experiments.sweep(oasis_readings.reading_run, oasis_readings.readings_grid(mode), cache_dir=cache_dir,
                                 scheduler=scheduler, store=store)
defaults_r = oasis_readings.default_rows(jobs3, jobs4, jobs6, jobs_cap)
reading_frame = pd.concat([defaults_r, reading_runs], ignore_index=True)
judged = findings.scorecard({"Fig. 3": cmp3, "Fig. 4": cmp4, "Fig. 5": cmp5, "Fig. 6": cmp6})
readings_rows = oasis_readings.readings_rows(reading_frame, judged, ratios=ratios)
readings_table = dlsched.readings.readings_table(readings_rows)

# %%
# NBVAL_CHECK_OUTPUT
with pd.option_context("display.width", 250, "display.max_colwidth", 120):
    print(readings_table.drop(columns=["paper", "parameter", "source", "fixed"]).to_string(index=False))
print()
verdicts = readings_table.groupby(["figure", "quantity"], sort=False)["verdict"].value_counts()
print(verdicts.unstack(fill_value=0).to_string())
saved_readings = dlsched.readings.save_readings(readings_table, "12_oasis_figures", mode=mode)

# %% [markdown]
# **Reading the table.** A claim that some row restores ("restores the claim") has a documented
# reading of (23)-(26) under which OASiS does what the paper reports, at every point and seed of
# the figure; the rows of the same reading on the other claims say what it costs elsewhere
# ("breaks the claim"). A post-hoc row that holds says "restores (post hoc)": an explanation,
# not a reading. A ceiling row "beyond the model's ceiling" would say that no scheduler, under
# our model and on these jobs, can do what the claim needs. The saved table
# (`data/scorecards/readings/`, paper mode only) feeds the README's fidelity table.

# %% [markdown]
# ## Summary: paper vs ours
#
# Every row of the tables above that has a verdict, computed from this run's data (in paper mode
# the scorecard is saved to `data/scorecards/12_oasis_figures.csv`, from which the README's
# fidelity table is generated; a quick run saves nothing):

# %%
# NBVAL_CHECK_OUTPUT
tables = {"Fig. 3": cmp3, "Fig. 4": cmp4, "Fig. 5": cmp5, "Fig. 6": cmp6, "Fig. 8": cmp8, "Fig. 9": cmp9}
card = findings.scorecard(tables)
print(card.to_string(index=False))
print(findings.summary_reading(card))
saved = fidelity.save_scorecard(card, "12_oasis_figures", mode=mode)

# %% [markdown]
# How to read it: the theory side (feasible schedules, weak duality, OPT/OASiS ratios against
# Theorem 4's bound) is checked above on every run; the comparison with the baselines rests on
# readings of what the paper leaves open (the unit of $\tau_i$, server capacities, RRH's and
# Dorm's parameters). Where OASiS falls behind the baselines or the $U$ estimates do not matter,
# the main suspect is the true $L$ of (25)-(26), which sigmoid time-critical jobs make vanishingly
# small, so that OASiS's prices never ration capacity before it is exhausted; the capped runs
# after Fig. 3 test that explanation.

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
# # A_online: the algorithms' properties as checks
#
# J. She, N. Wang, R. Zhou, C. Tian, *Online Scheduling of Machine Learning Jobs in Edge-Cloud
# Networks*, NaNA 2021; our spec is `shared/spec/aonline.md`. The paper states **no theorem**
# (spec section 10): no competitive ratio, no approximation factor. What can be checked is what
# the algorithms must satisfy by construction, and the empirical performance ratio of its
# Fig. 14. This notebook runs the seven properties of spec section 11 as checks, plus one the
# issue asks for: why the printed (literal) price formula cannot be right.
#
# | section | spec section 11 property | check functions (`dlsched.aonline.checks`) |
# |---|---|---|
# | 1 | 1. prices (7)-(8): $\lambda(0)=\mu(0)=0$, $\lambda(W)=2TSUF_1$, $\mu(P)=2TSVF_2$; increasing, convex | `price_function`, `price_sample` |
# | 2 | (issue 9) the printed, linear reading of (7)-(8) breaks the dual (5) | `weak_duality`, `dual_sample`, `round_dual_sample` |
# | 3 | 2. an empty window admits every job with a feasible schedule (brute force) | `empty_admission`, `admission_sample` |
# | 4 | 3. a schedule touching a full (server, type, slot) is rejected when $2TSUF_1 \ge 1$ | `full_slot_rejected`, `window_sample` |
# | 5 | 4. COST_C = exhaustive single-server search | `cost_c_exhaustive`, `round_cost_c_sample` |
# | 6 | 5. runs pass the checker: (2a)-(2l), fixed allocation, $h_j\ge a_j+\Delta_{js}$, $c_j\le\tau_{i+1}$ | `feasible_run`, `run_sample` |
# | 7 | 6. a job is first considered at the smallest $\tau_i > a_j$ | `geometric_rounds`, `run_sample` |
# | 8 | 7. performance ratio A_online / offline MILP optimum $\ge 1$ | `ratio_run`, `ratio_claim`, `framework_bound` |
#
# Figures: `fig_aonline_41_prices`, `fig_aonline_41_performance_ratio`.
#
# *Modes.* **Paper mode** (the default): `n_seeds_full`, `n_window_seeds_full` and
# `n_round_seeds_full` seeds per check and `n_ratio_seeds_full` MILP instances of
# `ratio_jobs_full` jobs in section 8; every block of `check_block` seeds of a check is one point of
# the results store `data/results`, read from there (a missing point is computed). **Quick mode**
# (`--mode quick`): the `*_quick` counts, a smoke test.

# %% tags=["parameters"]
mode = "paper"  # "paper" (the papers' sizes, read from the results store data/results) or "quick" (small smoke run)
seed = 0
figures_dir = "../figures"
cache_dir = "../build/cache"
store_dir = "../data/results"  # paper-scale results store (dlsched audit checks it)
scheduler = "serial"
n_seeds_quick = 6
n_seeds_full = 40
n_window_seeds_quick = 40
n_window_seeds_full = 200
n_round_seeds_quick = 20
n_round_seeds_full = 60
n_ratio_seeds_quick = 8
n_ratio_seeds_full = 40
ratio_jobs_quick = 5
ratio_jobs_full = 6
check_block = 20
price_caps = [1.0, 0.0001]
run_sizes = {"tiny": {"n_edge": 4, "max_chunks": 4, "n_jobs": 6}, "aonline": {"n_edge": 6, "n_jobs": 8}}
milp_time_limit = 600.0  # wall-clock safety only: far above any solve here, so no result depends on machine speed
paper_T = 1024
paper_S = 201
paper_U = 9

# %%
from dlsched import experiments, plotting
from dlsched.aonline import checks, findings, paper

full = mode != "quick"  # "paper" (or its older name "full")
store = store_dir if full else None
seeds = list(range(seed, seed + (n_seeds_full if full else n_seeds_quick)))
window_seeds = list(range(seed, seed + (n_window_seeds_full if full else n_window_seeds_quick)))
round_seeds = list(range(seed, seed + (n_round_seeds_full if full else n_round_seeds_quick)))
ratio_seeds = list(range(seed, seed + (n_ratio_seeds_full if full else n_ratio_seeds_quick)))
ratio_sizes = {"n_jobs": ratio_jobs_full if full else ratio_jobs_quick}
run = dict(cache_dir=cache_dir, scheduler=scheduler, store=store)
plotting.set_style()

# %% [markdown]
# ## Instances
#
# * **tiny** (`checks.instance(seed, family="tiny")`, ours): 2 edge servers with 0-3 worker and
#   0-2 PS slots per type plus a cloud (3 workers, 2 PS), 4 jobs of 1-12 slots with $D_j \le 3$,
#   arrivals in slots 0-7, delays 1-2 slots to an edge server and 3-6 to the cloud, $T = 32$.
# * **aonline** (`checks.instance(seed, family="aonline")`): the paper's generator
#   (`dlsched.aonline.model.aonline_workload`, Philly-like GPU counts from the synthetic stand-in)
#   with ranges small enough for exhaustive search and the MILP: 3 edge servers, 1-2 worker and PS
#   types, $E_j \in [1,2]$, $D_j \in [1,3]$ (the paper's $[20,50]$ would need 20-50 workers per job),
#   $M_j \in [10,50]$, cloud delay 6-12 slots, $T = 32$.
# * **windows** (`checks.window_instance`): one round of A_maxsche in isolation, 3-4 servers,
#   a window of 8 slots, 1-3 jobs, optionally with random usage and full (server, type, slot)s.
#
# `fold` turns the per-instance rows of each check into one claim that holds iff it held on every
# instance.
#
# ## 1. Price functions (7)-(8)
#
# The seed prints $\lambda_{su}(f)=\theta_1\frac{f}{W_{su}}-1$; the spec's reading [R] is
# $\lambda_{su}(f)=\theta_1^{f/W_{su}}-1$ with $\theta_1=2TSUF_1+1$ (a lost superscript), and the same
# for $\mu$. `price_function` recomputes $\theta_1, \theta_2$ from $T, S, U, V, F_1, F_2$ and checks,
# at every capacity of the instance, $\lambda(0)=0$, $\lambda(W)=2TSUF_1$, strict increase, strict
# convexity, $\lambda'(f)=(\lambda+1)\ln\theta_1/W$ (finite differences) and $\lambda\ge0$; same for
# $\mu$. The prices are the ones `AOnline.from_workload` uses on each instance ($F_1=F_2=1$).

# %%
grid = [p for f in checks.FAMILIES
        for p in paper.sample_grid("price", seeds, check_block, family=f, readings=["corrected", "literal"])]
prices = experiments.sweep(paper.check_sample, grid, **run)
corrected = prices[prices["reading"] == "corrected"]
literal = prices[prices["reading"] == "literal"]
for claim in checks.fold(corrected).values():
    print(claim.summary())
    assert claim.holds, claim.summary()
assert not literal["holds"].any()

# %%
# NBVAL_CHECK_OUTPUT
print(prices.groupby(["family", "reading"])[["theta1", "min_price", "max_abs_price_at_0", "convex"]]
      .agg({"theta1": "max", "min_price": "min", "max_abs_price_at_0": "max", "convex": "all"}).round(3))
at_paper = checks.price_function(paper_T, paper_S, paper_U, paper_U)
assert at_paper.holds, at_paper.summary()
print(f"paper scale (T={paper_T}, S={paper_S}, U=V={paper_U}, F=1): theta_1 - 1 = 2TSUF_1 = "
      f"{at_paper.details['theta1'] - 1:.4g}")

# %% [markdown]
# The literal reading fails the same check on every instance: it is linear (not convex), and an
# empty slot has price $-1$. The next section shows what that negative price breaks.
#
# ## 2. The literal reading breaks dual feasibility
#
# The prices are the dual variables of the batch ILP (4): (5a) asks
# $\eta_j \ge 1 - \text{cost}_l$ for every schedule $l$ of job $j$, and (5b) asks
# $\eta_j, \lambda, \mu \ge 0$. A_maxsche sets $\eta_j$ by (6), $\max\{0,\max_l(1-\text{cost}_l)\}$,
# so (5a) always holds and the dual is feasible iff (5b) does. A feasible dual solution bounds the
# batch problem from above (weak duality):
# $D=\sum_j\eta_j+\sum_{s,u,t}\lambda_{su}(t)W_{su}+\sum_{s,v,t}\mu_{sv}(t)P_{sv}\ \ge\ LP^*\ \ge\ IP^*$,
# the optimum of (4) and of its LP relaxation.
#
# `weak_duality` runs A_maxsche on a batch in an empty window, takes the **final** prices, computes
# $\eta_j$ of (6) over **every** schedule of every job (exhaustive enumeration, `checks.schedules`),
# and solves (4) and its relaxation with HiGHS. It asserts (5b), $D\ge LP^*$, and that no job is
# admitted with a payoff above its weight ($\eta_j \le w_j$: a cost is never negative). Batches:
# random windows, and every round of real A_online runs on both instance families (the same $J_i$
# priced both ways).

# %%
grid = paper.sample_grid("dual", window_seeds if full else window_seeds[:10], check_block)
grid += [p for f in checks.FAMILIES for p in paper.sample_grid("round_dual", seeds, check_block, family=f)]
duals = experiments.sweep(paper.check_sample, grid, **run)
duals["batch"] = duals["family"].fillna("window")
for reading, part in duals.groupby("reading"):
    print(f"{reading}: the dual claim holds in {int(part['holds'].sum())} of {len(part)} batches")
assert duals.loc[duals["reading"] == "corrected", "holds"].all()
assert not duals.loc[duals["reading"] == "literal", "holds"].any()

# %%
# NBVAL_CHECK_OUTPUT
lit = duals[duals["reading"] == "literal"]
summary = duals.groupby(["reading", "batch"]).agg(
    batches=("holds", "size"), min_price=("min_price", "min"), negative_share=("negative_share", "mean"),
    weak_duality_fails=("weak_duality", lambda s: int((~s.astype(bool)).sum())),
    max_eta_over_weight=("max_eta_over_weight", "max"), median_dual_over_ip=("dual_over_ip", "median"))
print(summary.round(2).to_string())
broken = lit[~lit["weak_duality"].astype(bool)]
long_windows = sorted(set(broken.loc[broken["lp_opt"] > 0, "tau"].fillna(8).astype(int)))
print(f"literal: (5b) fails in {int((lit['min_price'] < 0).sum())} of {len(lit)} batches; "
      f"D < LP* in {len(broken)} (D down to {lit['dual'].min():.0f}): "
      f"{int((broken['lp_opt'] == 0).sum())} with LP* = 0, the others in windows of {long_windows} slots")

# %% [markdown]
# **The cleanest measurable statement.** Under the literal reading (5b) fails in every batch that
# leaves some (server, type, slot) unused, since an unused one has price $-1$; how many batches
# do, and what share of the slots is unused at the end of a round (`negative_share`), is printed
# below. Two consequences are measured above.
# First, a job's payoff at admission exceeds its weight ($\eta_j - w_j$ up to the printed
# maximum): a schedule on idle servers has a *negative* cost, so the reading of (9) as a cost no
# longer holds. Second, the dual objective is no longer an upper bound: $D<LP^*$ in the printed
# number of batches. They are of two kinds (counted above): rounds where nothing fits ($LP^*=0$
# while $D=-\sum W\cdot\text{window}<0$), and long windows with few jobs, where the $-1$s of
# the idle slots outweigh the priced ones.
# Under the corrected reading every batch satisfies (5b) and weak duality (asserted above). The
# bound it gives is loose (median $D/IP^*$ printed below): after one admission the price
# $\theta^{f/W}-1$ of that slot is far above the job weight 1, so the $\sum\lambda W$ term
# dominates. No competitive ratio can be read off these duals, and the paper claims none.

# %%
# NBVAL_CHECK_OUTPUT
print(findings.duals_reading(duals))

# %%
curves = checks.price_curves(32, 3, 1)
fig, axes = plotting.subplots(1, 2, figsize=(12, 4.2))
ax = plotting.draw("lineplot", curves, x="share", y="price", hue="reading", ax=axes[0])
ax.axhline(0, color="black", linewidth=0.8)
ax.axhline(1, color="grey", linestyle="--", linewidth=1, label="job weight 1")
ax.legend()
ax.set(yscale="symlog", xlabel=r"$f_{su}(t)/W_{su}$", ylabel=r"$\lambda_{su}$ (symlog)",
       title=r"(7): $\theta_1^{f/W}-1$ vs printed $\theta_1 f/W-1$ ($\theta_1=193$)")
ax = plotting.draw("scatterplot", duals, x="lp_opt", y="dual", hue="reading", style="batch", ax=axes[1])
top = float(duals["lp_opt"].max())
ax.plot([0, top], [0, top], color="black", linewidth=1, label=r"$D = LP^*$")
ax.legend(fontsize=8)
ax.set(yscale="symlog", xlabel=r"$LP^*$ of batch ILP (4)", ylabel=r"dual objective $D$ of (5) (symlog)",
       title="weak duality: feasible duals lie above the line")
paths = plotting.savefig(fig, "fig_aonline_41_prices", figures_dir)

# %% [markdown]
# ## 3-5. A_maxsche and COST_C against brute force (properties 2-4)
#
# * `empty_admission` (property 2): a job alone in an empty window is admitted iff **some** schedule
#   fits (any $D_u$, any split over servers, any PS server, data ready, $c_j \le \tau_{i+1}$;
#   exhaustive), and then $\eta_j = w_j = 1$: with $\lambda(0)=\mu(0)=0$ every schedule is free.
# * `full_slot_rejected` (property 3): in a loaded window with full (server, type, slot)s, every
#   schedule that puts a worker (or the PS) on a full one costs at least
#   $\lambda(W)=\theta_1-1=2TSUF_1$ (or $2TSVF_2$), so its payoff is $\le 0$ whenever that is $\ge 1$;
#   A_maxsche never picks such a schedule ((9a)-(9b) leave no room there).
# * `cost_c_exhaustive` (property 4): for every $D_u$, COST_C against all single servers priced by
#   (9). The exact variant (`order="total"`) must return the cheapest; the printed rule sorts by
#   first-slot prices (Alg. 3 line 3), so it must return that argmin, and how often it is not the
#   cheapest is reported.

# %%
grid = paper.sample_grid("admission", window_seeds, check_block) + paper.sample_grid("window", window_seeds, check_block)
windows = experiments.sweep(paper.check_sample, grid, **run)
for claim in checks.fold(windows).values():
    print(claim.summary())
    assert claim.holds, claim.summary()

# %% [markdown]
# With $2TSUF_1 < 1$ (here $F = 0.25/(2TS)$, so $2TSUF_1 = 0.25$) property 3's condition fails and
# the price of a full slot alone no longer rejects a schedule, but (9a)-(9b) still keep A_maxsche
# off full slots:

# %%
cheap = experiments.sweep(paper.check_sample, paper.sample_grid("window", window_seeds, check_block, F=0.25 / (2 * 16 * 4)), **run)
cheap_full = cheap[cheap["claim"].str.contains("property 3")]
assert cheap_full["holds"].all()

# %%
# NBVAL_CHECK_OUTPUT
adm = windows[windows["claim"].str.contains("property 2")]
fs = windows[windows["claim"].str.contains("property 3")]
cc = windows[windows["claim"].str.contains("COST_C")]
cc = cc.assign(order=cc["claim"].str.extract(r"\((\w+)\)")[0])
print(f"property 2: {len(adm)} jobs in empty windows, {int(adm['feasible'].sum())} with a feasible "
      f"schedule, all admitted with eta = 1; {int(adm['schedules'].sum())} schedules enumerated")
for part in (fs, cheap_full):
    print(f"property 3 (2TSUF_1 = {part['two_TSUF1'].max():.2f}): {int(part['touching'].sum())} schedules "
          f"touch a full slot, max payoff {part['max_payoff_touching'].max():.2f}; "
          f"A_maxsche on full slots: {int(part['admitted_touching'].sum())}")
counts = cc.groupby("order")[["cases", "feasible_cases", "mismatches", "suboptimal"]].sum()
print(counts.astype(int).to_string())
print(f"first-slot COST_C: largest excess over the cheapest server {cc['max_excess'].max():.2f} (price)")

# %% [markdown]
# COST_C equals exhaustive search in both readings (asserted). The printed first-slot sort can pick
# a costlier server than the cheapest (the `suboptimal` cases counted above): in random windows
# usage may rise later in the window. Inside real A_online rounds, where every job starts at $\tau_i$ and
# usage only falls over the window, it can still happen (a server busy now but free soon against
# one moderately busy throughout); how often, probing every job of every round against the state
# A_maxsche had when it reached the job (the larger run instances of sections 6-7):

# %%
grid = [p for f in checks.FAMILIES
        for p in paper.sample_grid("round_cost_c", round_seeds, check_block, family=f, **run_sizes[f])]
rounds_cc = experiments.sweep(paper.check_sample, grid, **run)
for claim in checks.fold(rounds_cc).values():
    print(claim.summary())
    assert claim.holds, claim.summary()

# %% [markdown]
# How often, in random windows and inside real rounds:

# %%
# NBVAL_CHECK_OUTPUT
print(findings.cost_c_reading(cc, rounds_cc))

# %% [markdown]
# The policy keeps the printed rule by default (`order="first_slot"`); `order="total"` is the
# exact variant.
#
# ## 6-7. Whole runs: feasibility and the geometric rounds (properties 5-6)
#
# A_online (Alg. 1, $F_1 = F_2 = 1$, first-slot sort, consistent move rule, strict data rule)
# runs through the simulator, whose checker validates every decision. Then, from the result tables
# alone:
#
# * `feasible_run`: the allocation table passes `check_timeline` again (capacities (2g)-(2h),
#   (2a), (2b), (2i), fixed allocation); each job's slots are exactly $h_j..c_j$, with one placement
#   throughout (2c)-(2d); $h_j \ge a_j+\Delta_{js}$ on every used server (2i); the work done reaches
#   $E_jD_jM_j$ (2e); $\xi_j$ matches the placement (2f); and $h_j=\tau_i$ is a time point with
#   $c_j\le\tau_{i+1}$.
# * `geometric_rounds`: every job is first considered at the smallest $\tau_i>a_j$ (recomputed by
#   plain search from $\tau_0=1$, $\tau_i=2^{i-1}$); each round's $J_i$ is exactly the jobs with
#   $a_j<\tau_i$ not yet admitted, in arrival order; admitted $\subseteq J_i$; rounds never overlap.

# %%
grid = [p for f in checks.FAMILIES for p in paper.sample_grid("run", seeds, check_block, family=f, **run_sizes[f])]
runs = experiments.sweep(paper.check_sample, grid, **run)
for claim in checks.fold(runs).values():
    print(claim.summary())
    assert claim.holds, claim.summary()

# %%
# NBVAL_CHECK_OUTPUT
feas = runs[runs["claim"].str.contains("property 5")].groupby("family")
geo = runs[runs["claim"].str.contains("property 6")].groupby("family")
table = feas[["finished", "strict_ready", "distributed"]].sum().join(
    geo.agg(rounds=("rounds", "sum"), max_rounds_waited=("max_rounds_waited", "max")))
print(table.astype(int).to_string())

# %% [markdown]
# ## 8. Performance ratio against the offline optimum (property 7, Fig. 14's quantity)
#
# OPT is the offline problem (2)-(2l) solved exactly as a time-indexed MILP
# (`dlsched.aonline.offline.solve_offline`, HiGHS, re-checked independently; the tests compare it
# with exhaustive search on 2-job instances). ALG is A_online's total completion time
# $\sum_j(c_j-a_j)$ in the simulator. A_online's schedule is feasible for (2)-(2l), so
# $ALG \ge OPT$ must hold: asserted. Reported next to it: A_online with a tiny price cap
# ($F_1=F_2=10^{-4}$, jobs may share servers), and `framework_bound`, a lower bound on ALG from the
# geometric rounds alone (a job starts only at a $\tau_i > a_j + \min_s\Delta_{js}$ with a window
# long enough for its fastest duration), over OPT.

# %%
grid = experiments.param_grid({"sizes": ratio_sizes, "time_limit": milp_time_limit, "F": price_caps},
                              family=list(checks.FAMILIES), seed=ratio_seeds)
ratios = experiments.sweep(checks.ratio_run, grid, **run)
ratio_ok = checks.ratio_claim(ratios)
print(ratio_ok.summary())
assert ratio_ok.holds, ratio_ok.summary()

# %%
# NBVAL_CHECK_OUTPUT
print("paper (Fig. 14): performance ratio 'close to 1', rising with J and S; no number printed")
table = ratios.assign(optimal=ratios["status"] == "optimal").groupby(["family", "F"]).agg(
    instances=("ratio", "size"), optimal=("optimal", "sum"), median=("ratio", "median"), max=("ratio", "max"),
    framework_median=("framework_ratio", "median"))
print(table.round(2).to_string())

# %%
order = (ratios[ratios["F"] == price_caps[0]].sort_values(["family", "ratio", "seed"], kind="stable")
         .assign(rank=lambda d: d.groupby("family").cumcount())[["family", "seed", "rank"]])
plot = ratios.merge(order, on=["family", "seed"])
plot["A_online"] = plot["F"].map(lambda f: f"F = {f:g}")
fig, axes = plotting.subplots(1, 2, figsize=(12, 4.2), sharey=True)
for ax, (fam, part) in zip(axes, plot.groupby("family", sort=False), strict=True):
    plotting.draw("scatterplot", part, x="rank", y="ratio", hue="A_online", ax=ax)
    base = part[part["F"] == price_caps[0]]
    ax.scatter(base["rank"], base["framework_ratio"], color="grey", marker="_", s=300,
               label="lower bound from the rounds alone")
    ax.axhline(1, color="black", linewidth=1)
    ax.legend(fontsize=8)
    ax.set(xlabel=f"instance (sorted by the ratio at F = {price_caps[0]:g})", ylabel="ALG / OPT",
           title=f"{fam}: {ratio_sizes['n_jobs']} jobs per instance")
paths = plotting.savefig(fig, "fig_aonline_41_performance_ratio", figures_dir)

# %% [markdown]
# **What the numbers say** (printed below from this run).
#
# * ALG $\ge$ OPT on every instance and every run is feasible (asserted above): property 7 holds.
#   How many MILPs were proved optimal is in the table.
# * The paper's Fig. 14 says the ratio is "close to 1" but prints no number, and its instances
#   (200 edge servers, jobs of many slots) are not ours, so we cannot put the two side by side.
#   Two causes push our ratio up, and both are measured:
#   * **the geometric rounds.** A job waits for the first time point after its data arrive
#     ($a_j+\Delta_{js}<\tau_i$) and must fit a window of length $\tau_i$. `framework_bound`,
#     which ignores all capacities, already lies above 1 (grey marks; where only one dot shows,
#     both price caps gave the same schedule). No price or placement rule can recover that part;
#   * **prices with $F = 1$.** With $\theta = 2TSUF + 1$ large, one more worker on a partly used
#     server costs more than the job weight, so a round admits about one job per server and the
#     others wait a whole window, which doubles each round. With $F = 10^{-4}$ jobs can share
#     servers, and the ratio falls (the two price caps side by side below). What is left above the
#     grey marks comes from capacity, which the bound ignores.
# * Notebook 42 reproduces Fig. 14 itself (the ratio as $J$ and $S$ grow).

# %%
# NBVAL_CHECK_OUTPUT
print(findings.ratio_reading(ratios))

# %% [markdown]
# ## Wall time (machine-dependent)

# %%
# NBVAL_IGNORE_OUTPUT
milp = ratios["opt_seconds"]
print(f"MILPs: {milp.sum() / len(price_caps):.1f} s in total, at most {milp.max():.2f} s")

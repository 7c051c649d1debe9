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
# # A_online: the edge-cloud model, the rounds, the prices and one small run
#
# J. She, N. Wang, R. Zhou, C. Tian, *Online Scheduling of Machine Learning Jobs in Edge-Cloud
# Networks*, NaNA 2021 (DOI 10.1109/NaNA53684.2021.00031). Our copy of the paper is a complete
# text extraction; the spec we implement, with the garbled price formula's corrected reading [R]
# and the pseudo-code typos [T] marked, is `shared/spec/aonline.md`.
#
# This notebook is for a student reading the paper next to the code. Three things set this
# paper apart from the other four: the objective is the total completion time
# $\sum_j (c_j - a_j)$ (2), not a utility; an admitted job's allocation is **fixed** from start
# to completion ((2c)-(2d): no elasticity, no preemption); and a job may use a server only after
# its data have arrived there ((2i): 1-4 slots to an edge server, 10-40 to the cloud). In order:
#
# 1. the edge-cloud system of Sec. VI, built from the Philly trace;
# 2. the job parameters, the paper's ranges next to ours;
# 3. the training speed of Eq. (1), split against co-located, and the duration $d_j$;
# 4. the transfer delays and what they mean for the earliest start;
# 5. the fixed-allocation rule (2c)-(2d), enforced by the independent checker;
# 6. the geometric time points $\tau_i$ of Algorithm 1;
# 7. the price functions (7)-(8);
# 8. one small run of A_online (Algorithms 1-4) with its schedule drawn and checked;
# 9. where our reading differs from the paper.
#
# It reproduces no figure of the paper ([`42_aonline_figures`](42_aonline_figures.ipynb) does) and checks no property
# ([`41_aonline_proofs`](41_aonline_proofs.ipynb) does); its figures are `fig_aonline_40_*`.
#
# *Modes.* Sections 1-7 use the paper's default system (`system_edge` edge servers,
# `system_jobs` jobs) in both modes. **Paper mode** (the default) runs section 8 at the paper's
# default size (`run_edge_full`, `run_jobs_full`) and reads its tables from the results store
# `data/results` (a missing point is computed); **quick mode** (`--mode quick`) runs it on
# `run_edge_quick` edge servers and `run_jobs_quick` jobs.

# %% tags=["parameters"]
mode = "paper"  # "paper" (the papers' sizes, read from the results store data/results) or "quick" (small smoke run)
seed = 0
figures_dir = "../figures"
cache_dir = "../build/cache"
store_dir = "../data/results"  # paper-scale results store (dlsched audit checks it)
scheduler = "serial"
server_source = "auto"
system_edge = 200
system_jobs = 200
run_edge_quick = 30
run_jobs_quick = 20
run_edge_full = 200
run_jobs_full = 200
duration_jobs = [0, 1, 2]
window_lengths = [64, 256, 1024]
demo_job = 0
demo_workers = 3
demo_slots = 6
n_rounds = 11
edge_ps_slots = 2
price_durations = [1, 5, 10, 100, 1000]
F_variants = [1e-06, 1e-09]
gantt_label_max = 40

# %%
from dlsched import experiments, plotting, registry
from dlsched.aonline import explain, explore, findings, paper
from dlsched.aonline.policy import AOnlinePrices
from dlsched.core.schedule import Placement, ScheduleViolation, check_timeline

quick = mode == "quick"
run_edge = run_edge_quick if quick else run_edge_full
run_jobs = run_jobs_quick if quick else run_jobs_full
run = dict(cache_dir=cache_dir, scheduler=scheduler, store=None if quick else store_dir)
base = {"seed": seed, "n_edge": run_edge, "n_jobs": run_jobs, "server_source": server_source}
one_run = {**run, "scheduler": "serial"}  # section 8's tables share one simulation in this process
variants = {"as printed": {}, **{f"F1 = F2 = {F:g}": {"F1": F, "F2": F} for F in F_variants},
            "data ready a + Delta <= tau": {"data_ready": "inclusive"}}
plotting.set_style()

# %% [markdown]
# ## 1. The edge-cloud system (Sec. III and VI)
#
# $S$ physical servers: edge servers and one remote cloud. There are $U$ worker types and $V$
# PS types; server $s$ has $W_{su}$ slots for type-$u$ workers and $P_{sv}$ for type-$v$ PSs.
# Job $j$ names its worker type $u_j$ and PS type $v_j$ on arrival. In the code a type is a
# resource of the cluster (`"w<u>"`, `"ps<v>"`), one slot per worker or PS, so the checker's
# capacity test is exactly (2g)-(2h) (`dlsched.aonline.model`).
#
# Sec. VI: "Based on the trace, this paper sets the number of GPUs and CPUs as that of workers and
# PSs on each edge server", 200 edge servers by default, $U, V\in[8,10]$, "we randomly select the
# types of each worker and PS for servers". Our copy of the Philly trace has no machine list,
# only each job's `num_gpus`: an edge server gets the GPUs of a random job row, capped at 8 (the
# largest Philly machine), and $6\times$ as many PS slots (the trace has no CPUs either; Azure's
# GPU VMs of 2017 have 6 vCPUs per GPU). Each slot draws its type uniformly. The paper gives no
# cloud size; ours has 64 worker slots per worker type (more than any $D_j\le 50$) and
# $6\times64=384$ PS slots per PS type. The workload records which source it used:

# %%
system = registry.make_workload("aonline", seed=seed, n_edge=system_edge, n_jobs=system_jobs,
                                server_source=server_source)
info = explain.source_summary(system)
servers = explain.server_frame(system)
edge = servers[servers["pool"] == "edge"]

# %%
# NBVAL_CHECK_OUTPUT
print(f"source: {info['server_source']} ({info['trace_file']}); U = {info['U']}, V = {info['V']}")
print({k: round(v, 3) for k, v in info.items() if k not in ("server_source", "trace_file", "U", "V")})
for col in ["worker_slots", "ps_slots", "worker_types", "ps_types"]:
    print(f"{col:13s} per edge server:", edge[col].value_counts().sort_index().to_dict())
print(servers[servers["pool"] == "cloud"].to_string(index=False))

# %%
fig, axes = plotting.subplots(1, 3, figsize=(15, 4))
plotting.draw("histplot", edge, x="worker_slots", discrete=True, ax=axes[0])
plotting.draw("histplot", edge, x="ps_slots", discrete=True, ax=axes[1])
types = edge.melt(value_vars=["worker_types", "ps_types"], var_name="slots", value_name="types")
plotting.draw("histplot", types, x="types", hue="slots", discrete=True, multiple="dodge", shrink=0.8, ax=axes[2])
axes[0].set(yscale="log", xlabel="worker slots $\\sum_u W_{su}$ (= GPUs)", ylabel="edge servers (log)",
            title=f"{info['n_edge']} edge servers ({info['server_source']})")
axes[1].set(yscale="log", xlabel="PS slots $\\sum_v P_{sv}$ (= 6 x GPUs)", ylabel="edge servers (log)")
axes[2].set(xlabel="types with at least one slot", ylabel="edge servers", title=f"U = {info['U']}, V = {info['V']}")
paths = plotting.savefig(fig, "fig_aonline_40_edge_servers", figures_dir)

# %%
# NBVAL_CHECK_OUTPUT
print(findings.edge_servers_reading(info, servers))

# %% [markdown]
# With $D_j\in[20,50]$ no job fits co-located with all its $D_j$ workers on an edge server (at
# most 8 slots, of mixed types): the edge hosts single workers and PSs, the cloud the large
# co-located jobs.
#
# ## 2. Job parameters: the paper's ranges and ours
#
# Every range of Sec. VI is drawn uniformly (integers for counts and delays). `paper` is the
# text as printed, `ours` the parameter of `aonline_workload` (default), `drawn_*` what this
# workload of `system_jobs` jobs holds ("" where the job model keeps only a derived value).

# %%
# NBVAL_CHECK_OUTPUT
print(explain.ranges_table(system).to_string(index=False))

# %% [markdown]
# What the paper leaves out became documented parameters: the horizon $T=1024$ (arrivals in
# $[1, T/1.5]$, read from the printed "$x_j\in[1,T/1.5]$", and the $T$ of the price bases), the
# cloud size, $B_j=\min$(worker, PS bandwidth) (with 1 Gbps = 1024 Mbps the worker bandwidth,
# at most 5 Gbps, is never above the PS bandwidth, at least 5 Gbps, so $B_j$ is the worker's), the
# weights (1, as in the paper's unweighted figures) and $F_1=F_2=1$.
#
# ## 3. Training speed, Eq. (1), and the duration $d_j$
#
# A mini-batch takes $n_j$ on a worker, $H_j$ on the PS and $2k_j/B_j$ to push the gradients
# and pull the parameters, unless all workers and the PS of the job are on one server
# ($\xi_j=1$, (2f)):
#
# $$p_j=\begin{cases}1/\big(n_j+H_j+\frac{2k_j}{B_j}\big),&\xi_j=0\\ 1/(n_j+H_j),&\xi_j=1\end{cases}
# \tag{1}$$
#
# mini-batches per worker per slot. The job needs $E_jD_jM_j$ mini-batches (2e), so with $D_u$
# workers it runs $d_j=\lceil E_jD_jM_j/(p_jD_u)\rceil$ slots (Algorithms 3-4, line 2, rounded up
# to whole slots: `duration_slots`). Per job of the `system_jobs` (seconds per mini-batch, speeds
# in mini-batches per slot, durations with all $D_j$ workers):

# %%
speeds = explain.speed_frame(system)

# %%
# NBVAL_CHECK_OUTPUT
cols = ["n_s", "H_s", "comm_s", "p_split", "p_coloc", "slowdown", "d_coloc", "d_split"]
print(speeds[cols].describe(percentiles=[0.1, 0.5, 0.9]).round(3).to_string())
print(f"jobs slowed down by more than 10 % when split: {(speeds['slowdown'] > 1.1).mean():.1%}")

# %%
curve = explain.duration_curve(system, duration_jobs)
fig, axes = plotting.subplots(1, 2, figsize=(13, 4.5))
plotting.draw("histplot", speeds, x="slowdown", bins=40, ax=axes[0])
axes[0].set(yscale="log", xlabel="$p_j(\\xi_j=1)/p_j(\\xi_j=0)$", ylabel="jobs (log)",
            title="Eq. (1): speed-up of co-locating workers and PS")
plotting.draw("lineplot", curve, x="workers", y="d", hue="job", style="placement", palette="colorblind", ax=axes[1])
for L in window_lengths:
    axes[1].axhline(L, color="grey", linestyle=":", lw=0.8)
axes[1].set(xscale="log", yscale="log", xlabel="workers $D_u$ (log)", ylabel="$d_j$ slots (log)",
            title=f"duration of jobs {duration_jobs} (dotted: windows of {window_lengths} slots)")
paths = plotting.savefig(fig, "fig_aonline_40_speed", figures_dir)

# %%
# NBVAL_CHECK_OUTPUT
print(findings.speed_reading(speeds))

# %% [markdown]
# With the paper's ranges ($n_j$ of 0.001-0.05 h per mini-batch) the computation is set against
# the communication $2k_j/B_j$: the printed median speed-up of co-locating says how much the
# placement matters for a typical job, the largest one what it does for a job with large
# gradients on a slow link. Durations are counted in one-hour slots. $d_j$ falls as $1/D_u$;
# section 6 shows why this matters: a round's window must hold $d_j$.
#
# ## 4. Transfer delays (2i) and the earliest start
#
# $$y_{jsu_j}(t)=z_{jsv_j}(t)=0\quad\forall t<a_j+\Delta^{\uparrow}_{js}\tag{2i}$$
#
# Job $j$'s input data need $\Delta_{js}$ slots to reach server $s$: 1-4 to an edge server, 10-40
# to the cloud, drawn per job and server (`JobSpec.transfer_delay`). The checker reports a task on
# $s$ before slot $a_j+\Delta_{js}$ as `transfer_delay`. By the model alone a job could start on
# its nearest edge server 1 slot after it arrives (`edge_ready`), on the cloud 10-40 slots after
# (`cloud_ready`). A_online adds two waits: it first looks at the job at the next time point
# $\tau_i>a_j$ (`tau_first`, section 6), and it can admit the job only in a round whose window
# $(\tau_i,\tau_{i+1}]$ holds its duration, with the data on some server strictly before
# $\tau_i$ (Algorithms 3-4, line 3: $a_j+\Delta_{js}<\tau_i$). `tau_lb` is the first such round
# for the fastest schedule ($D_j$ workers co-located, `d_min`); `tau_lb_cloud` the same with
# the data on the cloud, the only server with $D_j$ slots of one type.

# %%
delays = explain.delay_frame(system)

# %%
# NBVAL_CHECK_OUTPUT
print(delays.head(8).to_string(index=False))
waits = delays[["tau_first", "tau_lb", "tau_lb_cloud"]].sub(delays["arrival"], axis=0)
print("slots from arrival, mean:", waits.mean().round(1).to_dict(), "median:", waits.median().to_dict())
print(f"jobs whose window forces a later round than tau_first: {(delays['tau_lb'] > delays['tau_first']).mean():.1%}")
print(f"jobs for which the cloud's delay alone does: {(delays['tau_lb_cloud'] > delays['tau_lb']).mean():.1%}")

# %%
# NBVAL_CHECK_OUTPUT
print(findings.delay_reading(delays))

# %% [markdown]
# By (2i) alone a job could start 1-4 slots after it arrives (its nearest edge server). A_online's
# own waiting comes from the staircase of section 6: the next time point after $a_j$ is up to
# $a_j$ slots away. The window adds to it for the jobs whose $d_j$ does not fit the first window,
# and the cloud's delay for those whose data reach the cloud only at or after the next time
# point (the printed shares).
#
# ## 5. The allocation is fixed: (2c)-(2d)
#
# $$y_{jsu_j}(t)=y_{jsu_j}(t+1),\quad z_{jsv_j}(t)=z_{jsv_j}(t+1)\qquad\forall j,s,\ t\in[h_j,c_j]
# \tag{2c-2d}$$
#
# From its start $h_j$ to its completion $c_j$ a job keeps the same workers and PS on the same
# servers (the spec notes that the range should be $[h_j,c_j-1]$ [T]). `AOnlineModel` is neither
# `elastic` nor `preemptible`, and `check_timeline` (`dlsched.core.schedule`), the checker every
# schedule goes through, refuses a change or a pause across slots (`fixed_allocation`). Here is
# one job, with its workers and PS on the cloud from the first slot its data are there, in four
# recorded variants: kept fixed; one more worker
# halfway; paused for a slot halfway and resumed; and the fixed one shifted a slot earlier, before
# its data arrive. The same job made preemptible (the relaxation the Preemptive baseline uses) is
# checked too. (Job `demo_job` of the workload of section 8, with `demo_workers` workers and
# its PS on the cloud.)

# %%
small = registry.make_workload("aonline", seed=seed, n_edge=run_edge, n_jobs=run_jobs, server_source=server_source)
spec = small.specs[demo_job]
cloud = small.cluster.n_servers - 1
start = int(spec.arrival + spec.delays(small.cluster)[cloud])
timelines = explain.fixed_allocation_timelines(spec, Placement.of({cloud: demo_workers}, {cloud: 1}), start, demo_slots)

# %%
# NBVAL_CHECK_OUTPUT
print(f"job {demo_job}: arrives in slot {spec.arrival}, data on the cloud (server {cloud}) from slot {start}")
try:
    check_timeline(small.cluster, {demo_job: spec}, timelines["changed"])
except ScheduleViolation as err:
    print(f"changed allocation rejected: {err}")
    assert err.constraint == "fixed_allocation"
verdicts = explain.timeline_verdicts(small.cluster, spec, timelines)
print(verdicts[["variant", "fixed_job", "preemptible_job"]].to_string(index=False))
assert verdicts.set_index("variant")["fixed_job"].to_dict() == {
    "fixed": "passes", "changed": "fixed_allocation", "paused": "fixed_allocation", "too early": "transfer_delay"}

# %% [markdown]
# Only the fixed schedule passes. The paused one passes for a preemptible job, the changed one
# never: (2c)-(2d) forbid both, the Preemptive baseline relaxes only the pause. The simulator
# calls the same checker on every decision, so no policy can break (2c)-(2d) unnoticed.
#
# ## 6. Geometric time points (Algorithm 1)
#
# A_online decides in rounds at the time points $\tau_0=1$, $\tau_i=2^{i-1}$. At $\tau_i$ it
# takes the jobs that arrived before $\tau_i$ and are not yet scheduled ($J_i$), and
# A_maxsche (Algorithm 2) schedules as many of them as it can to run inside the window
# $(\tau_i,\tau_{i+1}]$; the rest roll over to the next round. A job arriving at $a_j$ is first
# considered at the smallest $\tau_i>a_j$ (`first_round`). Our slots are 0-based (slot $k$ is the
# paper's slot $k+1$); a round's window is slots $\tau_i..\tau_{i+1}-1$, as long as $\tau_i$:

# %%
# NBVAL_CHECK_OUTPUT
print(explain.rounds_table(n_rounds).to_string(index=False))

# %%
by_arrival = delays.sort_values("arrival")
marks = delays.melt(id_vars=["job", "arrival"], value_vars=["tau_lb", "tau_lb_cloud"], var_name="earliest round", value_name="tau")
ax = plotting.draw("scatterplot", marks, x="arrival", y="tau", hue="earliest round", style="earliest round", s=30)
ax.step(by_arrival["arrival"], by_arrival["tau_first"], where="post", color="black", lw=1, label="tau_first")
ax.plot(by_arrival["arrival"], by_arrival["arrival"], color="grey", linestyle=":", lw=1)
ax.legend(loc="lower right")
ax.set(yscale="log", xlabel="arrival slot $a_j$", ylabel="$\\tau_i$ (log scale; dotted: $\\tau = a_j$)",
       title=f"first round (line) and earliest possible round, {system_jobs} jobs")
ax.set_yticks([2 ** k for k in range(0, n_rounds)], [str(2 ** k) for k in range(0, n_rounds)])
paths = plotting.savefig(ax.figure, "fig_aonline_40_rounds", figures_dir)

# %% [markdown]
# `tau_first` is a staircase: every job between two time points waits for the next one. The
# windows grow with $\tau_i$, so a long job cannot be admitted early even if it arrives early:
# its `tau_lb` lies above the staircase until the window length $\tau_i$ reaches $d_j$; and a job
# whose data reach the cloud only at or after the next time point waits one more round for the
# cloud (`tau_lb_cloud`). A round
# only guarantees completion by $\tau_{i+1}\le 2\tau_i$; this is the doubling argument of the
# Hall-Schulz-Shmoys-Wein interval framework the paper builds on (which states no ratio for it).
#
# ## 7. The price functions (7)-(8)
#
# A_maxsche prices every (server, type, slot) of the window by how much of it is already
# allocated in this round, $f_{su}(t)$ of $W_{su}$ worker slots and $g_{sv}(t)$ of $P_{sv}$ PS
# slots. Our copy prints the formula with a lost superscript; the corrected reading [R] is
#
# $$\lambda_{su}\big(f_{su}(t)\big)=\theta_1^{\,f_{su}(t)/W_{su}}-1,\quad\theta_1=2TSUF_1+1,\qquad
# \mu_{sv}\big(g_{sv}(t)\big)=\theta_2^{\,g_{sv}(t)/P_{sv}}-1,\quad\theta_2=2TSVF_2+1.\tag{7-8}$$
#
# A schedule $l$ of job $j$ costs $\sum_s\sum_t\lambda_{su_j}(t)y_{jsu_j}(t)+\sum_s\sum_t
# \mu_{sv_j}(t)z_{jsv_j}(t)$ (9) over the slots it runs, and A_maxsche admits the job with its
# cheapest schedule iff the payoff $\eta_j=1-\text{cost}>0$ (lines 10-15; COST_C puts everything on one
# server, COST_D spreads the workers). An empty slot costs 0, so an empty system admits every job
# that fits in the window; a full one costs $2TSUF_1\ge1$, more than the job's weight 1. The
# literal reading $\theta_1 f/W-1$ gives $-1$ at $f=0$, a negative dual price that breaks
# (5b); [`41_aonline_proofs`](41_aonline_proofs.ipynb) shows what that does. For the workload of section 8 ($T=1024$,
# $S$ = edge servers + cloud, $F_1=F_2=1$):

# %%
par = small.params
n_servers = small.cluster.n_servers
prices = {r: AOnlinePrices.of(par["T"], n_servers, par["U"], par["V"], reading=r) for r in ("corrected", "literal")}
capacities = {"cloud worker type": ("worker", par["cloud_workers"]), "cloud PS type": ("ps", par["cloud_ps"]),
              f"edge PS type ({edge_ps_slots} slots)": ("ps", edge_ps_slots)}
threshold = explain.sharing_threshold(prices["corrected"], capacities, price_durations)

# %%
# NBVAL_CHECK_OUTPUT
ends = explain.price_endpoints(par["T"], n_servers, par["U"], par["V"])
print(f"T = {par['T']}, S = {n_servers}, U = {par['U']}, V = {par['V']}, F1 = F2 = 1")
print(ends.T.round(3).to_string())
print("cost of one more worker / PS over d slots when 1 slot of the type is in use (corrected):")
print(threshold.pivot(index="resource", columns="d", values="cost").round(3).to_string())
print(threshold.groupby("resource")[["price_one_used", "slots_to_weight"]].first().round(3).to_string())

# %%
curve = explain.price_curve(prices)
fig, axes = plotting.subplots(1, 2, figsize=(13, 4.5))
plotting.draw("lineplot", curve, x="utilisation", y="price", hue="function", style="prices", ax=axes[0])
axes[0].axhline(1.0, color="grey", linestyle=":")
axes[0].set(yscale="symlog", xlabel="utilisation $f/W$, $g/P$", ylabel="unit price per slot (symlog)",
            title="(7)-(8) corrected and literal (dotted: job weight 1)")
plotting.draw("lineplot", threshold, x="d", y="cost", hue="resource", marker="o", ax=axes[1])
axes[1].axhline(1.0, color="grey", linestyle=":")
axes[1].set(xscale="log", yscale="log", xlabel="schedule length d (slots, log)", ylabel="cost (log)",
            title="one more worker / PS where 1 slot is in use")
paths = plotting.savefig(fig, "fig_aonline_40_prices", figures_dir)

# %%
# NBVAL_CHECK_OUTPUT
print(findings.price_reading(threshold, ends))

# %% [markdown]
# The curves are the intended shape: 0 when empty, $2TSUF_1$ when full. But (9) sums the price
# over every slot a job runs, and our jobs run for many slots (section 3): the printed numbers of
# slots after which one more worker or PS on a type with one slot in use costs more than the
# job's weight are small. So within a round a (server, type) that one job uses is closed to
# every other job longer than a few slots: the cloud hosts at most one such job per worker type
# and one per PS type per round, however large it is. Section 8 shows it in a run.
#
# ## 8. One small run of A_online
#
# Algorithm 1 on the workload of section 5: A_maxsche at each time point, each job of $J_i$ in
# arrival order, $D_u=1..D_j$ workers tried with COST_C and COST_D, the first $D_u$ with the
# largest payoff kept (line 11's strict $>$), the prices raised after each admission (line 18)
# and reset for the next round. Every decision goes through the checker; afterwards the whole
# recorded schedule is checked again, across slots (fixed allocation, delays, capacities). The
# run's tables are stored experiments (`dlsched.aonline.paper.run_table`, `run_overview`), read
# from the results store in paper mode.

# %%
keys = [*base, "table"]
jobs = experiments.sweep(paper.run_table, [{**base, "table": "jobs"}], **one_run).drop(columns=keys)
rounds = experiments.sweep(paper.run_table, [{**base, "table": "rounds"}], **one_run).drop(columns=keys)
shared = experiments.sweep(paper.run_table, [{**base, "table": "sharing"}], **one_run).drop(columns=keys)
overview = experiments.sweep(paper.run_overview, [base], **one_run).drop(columns=list(base)).iloc[0]
summary = overview.drop(["source_used", "checked", "rounds", "wall_seconds", "rounds_seconds"])

# %%
# NBVAL_CHECK_OUTPUT
assert overview["checked"]
print(f"{run_edge} edge servers + cloud, {run_jobs} jobs, source {overview['source_used']}: the schedule passes the checker")
print({k: round(float(v), 2) for k, v in summary.items()})
print(rounds.drop(columns=[] if run_jobs <= gantt_label_max else ["admitted_jobs"]).to_string(index=False))
assert summary["finished"] == run_jobs and (jobs["completion"] <= jobs["window_end"] + 1e-6).all()

# %%
# NBVAL_CHECK_OUTPUT
bounds = explain.delay_frame(small).set_index("job")[["cloud_ready", "tau_lb", "tau_lb_cloud"]]
table = jobs.join(bounds, on="job")
cols = ["job", "arrival", "cloud_ready", "tau_first", "tau_lb_cloud", "tau", "D", "workers", "kind", "completion", "window_used"]
print(table[cols].head(gantt_label_max).round(2).to_string(index=False))
print("admitted later than the window and the cloud's delay require:", table.loc[table["tau"] > table["tau_lb_cloud"], "job"].tolist())
assert (table["tau"] >= table["tau_lb"]).all()

# %%
ax = explain.gantt(jobs, label_workers=run_jobs <= gantt_label_max)
ax.set_title(f"A_online, {run_edge} edge servers + cloud, {run_jobs} jobs" + (" (numbers: workers $D_u$)" if run_jobs <= gantt_label_max else ""))
paths = plotting.savefig(ax.figure, "fig_aonline_40_schedule", figures_dir)

# %%
# NBVAL_CHECK_OUTPUT
print(findings.run_reading(table))

# %% [markdown]
# Every job finished inside the window of the round that admitted it (asserted above), and the
# recorded schedule passes the checker. What the printed reading shows, and why:
#
# * **Jobs use few workers and fill their window.** On an empty type every $D_u$ costs 0, so all
#   have payoff 1 and line 11's strict $>$ keeps the smallest $D_u$ that finishes by
#   $\tau_{i+1}$. The batch problem (3) maximises the number of jobs scheduled in the window, not
#   how early they finish, so jobs end close to $\tau_{i+1}$. That is the paper's rule, not a
#   slip of ours; a free single-GPU edge server is as cheap (0) as the cloud, so a job may train
#   there with a single worker for a long time.
# * **When jobs start.** A job that does not start in the first round that sees it starts at
#   best at `tau_lb_cloud`, the earliest round the window and the cloud's delay allow: its $d_j$
#   does not fit the first window, or its data reach the cloud only at or after the time point
#   (the printed test $a_j+\Delta_{js}<\tau_i$ of Algorithms 3-4 excludes the cloud when the data
#   arrive exactly at $\tau_i$, though (2i) alone would let the job start). A job that waits
#   longer than `tau_lb_cloud` found its worker type taken by a job admitted before it in the
#   round: section 7's prices close a shared type.
# * **Whether a (server, type) is ever shared by two jobs in a slot** (`max_jobs`), and how much
#   of the cloud's PS slots is used:

# %%
# NBVAL_CHECK_OUTPUT
print(shared.round(3).to_string(index=False))
print(findings.sharing_reading(shared))

# %% [markdown]
# Two of our readings decide these waits, so the same workload once more with each changed
# (`compare_runs`): the price caps $F_1=F_2$ (the paper varies $F=\max\{F_1,F_2\}$ in Fig. 5,
# gives no default) and the data-ready test ($\le$ instead of the printed $<$, i.e. the
# simulator's own (2i)). A shared cloud worker type costs a job
# $D_ud_j(\theta_1^{1/64}-1)\approx D_ud_j\ln\theta_1/64$, so sharing becomes affordable only
# when $\ln\theta_1\approx2TSUF_1$ is below about $64/(D_ud_j)$; for this run's jobs:

# %%
# NBVAL_CHECK_OUTPUT
print(findings.share_threshold_reading(jobs, T=par["T"], S=n_servers, U=par["U"], cloud_workers=par["cloud_workers"]))

# %%
grid = [{**base, "table": "variant", "policy": v} for v in variants.values()]
compared = experiments.sweep(paper.run_table, grid, **run).drop(columns=keys)
compared = compared.assign(variant=list(variants)).set_index("variant")

# %%
# NBVAL_CHECK_OUTPUT
print(compared.round(2).to_string())

# %%
# NBVAL_CHECK_OUTPUT
print(findings.variants_reading(compared))

# %% [markdown]
# A price cap small enough lets jobs share a (server, type) and start earlier; the inclusive
# data-ready test admits the jobs whose data arrive exactly at a time point a round earlier.
# [`42_aonline_figures`](42_aonline_figures.ipynb) measures Fig. 5.

# %%
# NBVAL_IGNORE_OUTPUT
print(f"simulation {overview['wall_seconds']:.2f} s; A_maxsche rounds {overview['rounds_seconds']:.3f} s")

# %% [markdown]
# ## 9. Where our reading differs from the paper
#
# * **Readings that change the outcome** (section 8): $F_1=F_2=1$ closes every shared
#   (server, type) for a job of more than a few slots; a small enough $F$ (section 8 prints how
#   small) opens them. Alg. 3-4's printed
#   "$a_j+\Delta_{js}<\tau_i$" costs a whole round to a job whose data arrive exactly at
#   $\tau_i$. Both are parameters (`F1`, `F2`, `data_ready`) and we keep the paper's text.
# * **Servers from the trace.** Our Philly copy has no machine list: an edge server's worker slots
#   are the `num_gpus` of a random *job* row, capped at 8, so most edge servers get one worker
#   slot (single-GPU jobs dominate the trace; section 1 prints the share); the paper's "550 machines" would give 8-GPU servers.
#   When the trace is absent, a stand-in with the same `num_gpus` frequencies is used and the
#   notebook prints `synthetic` in section 1 (the stored outputs were made with the trace).
# * **PS slots = 6 x GPUs** (the trace has no CPU counts); types drawn per slot.
# * **The cloud** is ours: 64 worker slots per worker type, 384 PS slots per PS type.
# * **$T=1024$**, **$F_1=F_2=1$**, weights 1, $B_j=\min$(worker, PS bandwidth), 1 Gbps = 1024
#   Mbps, uniform draws, "$x_j$" read as the arrival: the paper gives none of these.
# * **Prices (7)-(8)** in the corrected exponential reading (the literal one is a parameter,
#   `price_reading="literal"`).
# * **Algorithms 2-4** with the spec's fixes: `min(cost, cost_d)`, one acceptance per job after
#   all $D_u$, the window check $c_j\le\tau_{i+1}$, whole-slot durations, COST_D's move test on
#   whole-window prices; data ready iff $a_j+\Delta_{js}<\tau_i$ as printed.
# * **Time**: 0-based slots; the window $(\tau_i,\tau_{i+1}]$ is slots $\tau_i..\tau_{i+1}-1$.
#
# ## What comes next
#
# * [`41_aonline_proofs`](41_aonline_proofs.ipynb) checks the properties of spec section 11: the prices' endpoints and the
#   literal reading's broken dual feasibility, admission on an empty system, COST_C against
#   exhaustive search, feasibility of every output, the first round of each job, and the ratio to
#   the offline optimum (MILP).
# * [`42_aonline_figures`](42_aonline_figures.ipynb) reproduces Figs. 3-14 against FIFO, DRF, BatchSche and Preemptive.

# %% [markdown]
# ## Explore: the prices of a round
#
# Slide the horizon $T$ (which sets $\theta_1$), the share of a type's slots already taken in
# the round, and how long a new worker would hold one, for section 8's $S$, $U$, $V$.
# In JupyterLab the sliders below are live: each change recomputes the model
# (prices (7)-(8) and the cost (9) of one worker). Elsewhere
# (papermill, nbval, the rendered site, GitHub) the same cell shows the figure and the printed
# readout at the default values.

# %%
# NBVAL_CHECK_OUTPUT
explore.round_prices(n_servers, par["U"], par["V"], T=par["T"])

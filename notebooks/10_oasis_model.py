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
# # OASiS: the model, the prices and one best schedule
#
# Y. Bao, Y. Peng, C. Wu, Z. Li, *Online Job Scheduling in Distributed Machine Learning
# Clusters*, IEEE INFOCOM 2018, pp. 495-503 (arXiv:1801.00936, long version with Appendices A-E).
#
# This notebook is for a student reading the paper next to the code. It puts each piece of
# OASiS's model in words and in the paper's math, followed by the code object that implements
# it, with concrete numbers:
#
# 1. the system model of Sec. III: the timing model $\tau_i + 2e_i/b_i$ and constraints (2)-(10);
# 2. the simulation workload of Sec. V-A: jobs, the three utility classes, and the unit of $\tau_i$;
# 3. the price functions (22)-(26), and why the code keeps them in logarithms;
# 4. Algorithm 2 on one job: its best schedule over servers and slots and its payoff curve;
# 5. Algorithm 1 over a whole run: how the prices rise as jobs are admitted.
#
# It reproduces no figure of the paper (notebook [`12_oasis_figures`](12_oasis_figures.ipynb) does) and checks no theorem
# ([`11_oasis_proofs`](11_oasis_proofs.ipynb) does); the figures it draws are `fig_oasis_10_*`.
# Paper mode (the default) uses the Sec. V-A cluster, quick mode a smaller one (the sizes are in
# the parameters cell and printed with the workload below).

# %% tags=["parameters"]
mode = "paper"  # "paper" (the papers' sizes, read from the results store data/results) or "quick" (small smoke run)
seed = 0
figures_dir = "../figures"
n_jobs_quick = 60
n_jobs_full = 100
T_quick = 60
T_full = 100
H_quick = 20
H_full = 50
K_quick = 20
K_full = 50
T_underflow = 300
curves_per_class = 4
probe_min_slots = 3

# %%
from dlsched import plotting, registry
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import JobSpec, OasisModel, Sigmoid
from dlsched.core.schedule import Placement, check_allocations
from dlsched.core.simulator import simulate
from dlsched.oasis import explain, explore, findings
from dlsched.oasis import model as oasis_model
from dlsched.oasis.policy import OASiS, min_duration, price_parameters

quick = mode == "quick"
n_jobs = n_jobs_quick if quick else n_jobs_full
T = T_quick if quick else T_full
H = H_quick if quick else H_full
K = K_quick if quick else K_full
plotting.set_style()

# %% [markdown]
# ## 1. The system model (Sec. III)
#
# A job $i$ trains a model by asynchronous data-parallel SGD with parameter servers (PS). Its
# input is $N_i$ data chunks of $M_i$ mini-batches each, trained for $E_i$ epochs. Workers run
# only on the $H$ worker servers, PSs only on the $K$ PS servers. Per mini-batch a worker
# computes for $\tau_i$, pushes its gradients ($e_i$ bytes) at its bandwidth $b_i$ and pulls the
# parameters back, so one mini-batch takes
#
# $$\tau_i + 2e_i/b_i \quad\text{(time slots)},$$
#
# and the job needs $E_iN_iM_i$ mini-batches, i.e. $E_iN_iM_i(\tau_i+2e_i/b_i)$ worker-slots.
# In the code this is `OasisModel` (`dlsched.core.jobs`); `tau` and `comm` $=e_i/b_i$ are in slots.
#
# Our example uses the paper's own ResNet-152/ImageNet numbers (Sec. III-A): 128 MB chunks of
# about 6 MB mini-batches ($M_i = 21$), about 1 s of computation per mini-batch, 241 MB of
# gradients; we add $E_i=100$, $N_i=20$, $b_i=2$ Gbps, $B_i=10$ Gbps, 1-hour slots, and a
# cluster of two GPU worker servers (g3.16xlarge-like, 4 GPUs) and one PS server
# (c4.8xlarge-like). The job arrives in slot $a_i=2$.

# %%
cluster = Cluster.two_pools(
    2, 1, {"gpu": 4, "cpu": 64, "mem": 488, "storage": 1000, "bandwidth": 25},
    {"cpu": 36, "mem": 60, "storage": 1000, "bandwidth": 25})
model = OasisModel(epochs=100, chunks=20, minibatches=21, tau=1.0 / 3600,
                   comm=241 * 8 / 2000 / 3600, worker_bw=2.0, ps_bw=10.0)
job = JobSpec(0, 2, model, {"gpu": 1, "cpu": 8, "mem": 16, "storage": 5, "bandwidth": 2.0},
              {"cpu": 4, "mem": 16, "storage": 5, "bandwidth": 10.0}, utility=Sigmoid(50.0, 0.5, 5.0))
print(cluster.to_frame().to_string(index=False))

# %%
# NBVAL_CHECK_OUTPUT
print(f"tau_s={model.tau * 3600:.3f}, e_over_b_s={model.comm * 3600:.3f}, "
      f"minibatch_s={model.minibatch_time * 3600:.3f}")
print(f"tau_i + 2e_i/b_i = {model.minibatch_time:.3e} slots per mini-batch")
print(f"E_i N_i M_i = {model.total_work:.0f} mini-batches")

# %% [markdown]
# ### (2) enough worker-time, (3) at most $N_i$ workers
#
# $$\sum_{t\in[T]}\sum_{h\in[H]} y_{ih}(t)\ \ge\ E_iN_iM_i(\tau_i+2e_i/b_i)\,x_i \tag{2}$$
# $$\sum_{h\in[H]} y_{ih}(t)\ \le\ N_i x_i\qquad \forall t \ge a_i \tag{3}$$
#
# $y_{ih}(t)$ is the number of workers of job $i$ on server $h$ in slot $t$. With $y$ workers
# the job progresses $y/(\tau_i+2e_i/b_i)$ mini-batches per slot (`OasisModel.rate`), so with
# all $N_i$ workers it needs $d_i^{min}=\lceil E_iM_i(\tau_i+2e_i/b_i)\rceil$ slots
# (`min_duration`, used by the price bound (23)).

# %%
# NBVAL_CHECK_OUTPUT
print(f"(2) worker-slots needed: {model.total_work * model.minibatch_time:.3f}")
print(f"(3) N_i = {model.max_workers}; d_min = {min_duration(model)} slots")
print(explain.timing_table(job, cluster, [1, 5, 10, 20, 21]).round(3).to_string(index=False))

# %% [markdown]
# ### (4)-(5) server capacities
#
# $$\sum_{i} w_i^r\,y_{ih}(t)\ \le\ c_h^r\quad\forall t,r,h \tag{4}$$
# $$\sum_{i} s_i^r\,z_{ik}(t)\ \le\ c_k^r\quad\forall t,r,k \tag{5}$$
#
# $w_i^r$ ($s_i^r$) is the type-$r$ demand of one worker (one PS), $c^r$ the server capacity.
# On an empty server this allows $\min_r\lfloor c_h^r/w_i^r\rfloor$ workers, the bound (30)
# that Algorithm 2 uses (with the capacity left, $c_h^r - g_h^r(t)$). A placement with 5
# workers on a 4-GPU server breaks (4):

# %%
# NBVAL_CHECK_OUTPUT
print(explain.fits_per_server(cluster, job).to_string(index=False))
print(explain.constraint_report(cluster, job, Placement.of({0: 5}, {2: 1}), slot=2).to_string(index=False))

# %% [markdown]
# ### (6) PS bandwidth covers the workers', (7) no more PSs than workers
#
# $$\sum_{h} y_{ih}(t)\,b_i\ \le\ \sum_{k} z_{ik}(t)\,B_i \tag{6}$$
# $$\sum_{k} z_{ik}(t)\ \le\ \sum_{h} y_{ih}(t) \tag{7}$$
#
# $z_{ik}(t)$ is the number of PSs on PS server $k$. Algorithm 2 (lines 35-37) deploys the
# fewest PSs allowed by (6), $\lceil y\,b_i/B_i\rceil$ (`OasisModel.ps_for`); as $b_i \le B_i$,
# this never breaks (7).

# %%
# NBVAL_CHECK_OUTPUT
print(f"ps_for(8) = {model.ps_for(8)}")
too_few_ps = Placement.of({0: 4, 1: 4}, {2: 1})
print(explain.constraint_report(cluster, job, too_few_ps, slot=2).to_string(index=False))
print(explain.constraint_report(cluster, job, Placement.of({0: 1}, {2: 2}), slot=2).to_string(index=False))

# %% [markdown]
# ### (8)-(10) completion slot and nothing before the arrival
#
# $$\hat t_i=\arg\max_{t\in[T]}\Big\{\sum_{h} y_{ih}(t)>0\Big\} \tag{8}$$
# $$y_{ih}(t)=0,\ z_{ik}(t)=0\quad\forall t<a_i \tag{9-10}$$
#
# The utility $f_i(\hat t_i - a_i)$ depends on the completion slot. Slots are 0-based in the
# code; a job may run in its arrival slot, and finishing inside slot $a_i$ counts as duration 0.
# Running before the arrival breaks (9); 8 workers with 2 PSs in slot $a_i$ break nothing, and
# the simulator's independent checker (`check_allocations`) agrees. With all $N_i$ workers from
# its arrival on, a job ends in slot $a_i + d_i^{min} - 1$ and earns $f_i(d_i^{min} - 1)$, its
# largest possible utility (the numerator of (23) below).

# %%
# NBVAL_CHECK_OUTPUT
good = Placement.of({0: 4, 1: 4}, {2: 2})
print(explain.constraint_report(cluster, job, good, slot=1).to_string(index=False))
print("violations in slot a_i:", len(explain.constraint_report(cluster, job, good, slot=2)))
check_allocations(cluster, {0: job}, 2, {0: good})
print(f"f_i(d_min - 1) = {job.utility(min_duration(model) - 1):.3f}")

# %% [markdown]
# ## 2. The workload of Sec. V-A
#
# The simulations of Sec. V-A use $H = K = 50$ servers, $T = 100$-$300$ slots and jobs with
# $E_i\in[50,200]$, $N_i\in[5,100]$, $M_i\in[10,100]$, $\tau_i\in[0.001,0.1]$, $e_i\in[30,575]$ MB,
# worker demands of 0-4 GPUs, 1-10 vCPUs, 2-32 GB, 5-10 GB storage and $b_i\in[0.1,5]$ Gbps, PS
# demands of 1-10 vCPUs, 2-32 GB, 5-10 GB and $B_i\in[5,20]$ Gbps, arriving with the diurnal
# pattern of the Google cluster trace. `oasis_workload` draws them uniformly (the paper gives
# ranges only) and gives the worker servers the GPU instances (P2/G3) and the PS servers C4
# instances (the text has the roles the other way round, but only workers demand GPUs; see the
# docstring of `dlsched.oasis.model`). A few jobs, times in seconds:

# %%
# NBVAL_CHECK_OUTPUT
workload = registry.make_workload("oasis", seed=seed, n_jobs=n_jobs, T=T, H=H, K=K)
table = explain.jobs_table(workload)
print(f"{n_jobs} jobs, T = {T}, H = {H} worker servers, K = {K} PS servers ({mode} mode)")
print(table.head(6).round(3).to_string(index=False))

# %% [markdown]
# ### Utility classes
#
# Every job has the sigmoid utility of CORA,
# $$f_i(t-a_i)=\frac{\gamma_1}{1+e^{\gamma_2(t-a_i-\gamma_3)}},$$
# with priority $\gamma_1\in[1,100]$, target completion time $\gamma_3\in[1,15]$ slots and a
# decay $\gamma_2$ that sets its class: *time-insensitive* ($\gamma_2=0$, constant
# $\gamma_1/2$), *time-sensitive* ($\gamma_2\in[0.01,1]$) or *time-critical*
# ($\gamma_2\in[4,6]$, a near step at $\gamma_3$), mixed 10 % / 55 % / 35 %.

# %%
# NBVAL_CHECK_OUTPUT
print(table["utility_class"].value_counts().sort_index().to_string())

# %%
curves = explain.utility_curves(workload, horizon=T, per_class=curves_per_class)
ax = plotting.draw("lineplot", curves, x="d", y="utility", hue="utility_class", units="job", estimator=None,
                   hue_order=list(oasis_model.UTILITY_CLASSES))
ax.set(xlabel="duration $\\hat t_i - a_i$ (slots)", ylabel="utility $f_i$",
       title=f"Sigmoid utilities, first {curves_per_class} jobs of each class")
paths = plotting.savefig(ax.figure, "fig_oasis_10_utility_curves", figures_dir)

# %% [markdown]
# ### Which unit is $\tau_i$ in?
#
# The paper gives $\tau_i\in[0.001, 0.1]$ "time slots" and never states the slot length of its
# simulation. Read literally, a job needs $d_i^{min}=\lceil E_iM_i(\tau_i+2e_i/b_i)\rceil$ slots
# even with all $N_i$ workers: the reading below prints how many that is, and how many jobs then
# could not finish within $T$ at all, let alone near the targets $\gamma_3 \le 15$ of their
# utilities. We therefore read $\tau_i$ in **seconds** with 1-hour slots (the paper: "one time
# slot can be 1 hour or longer"; its ResNet-152 example takes about 1 s per mini-batch): then a
# chunk takes much less than a slot, as Sec. IV-C assumes. Both readings draw the same jobs
# (`reading="literal"` keeps the printed one).
# `unschedulable_fraction` counts the jobs that cannot finish by $T$ even alone on the cluster
# (`cannot_finish`), and those for which one chunk-pass needs more than $N_i$ workers inside a
# slot, which Algorithm 2 can never schedule (`never_schedulable`, spec 11.1).

# %%
# NBVAL_CHECK_OUTPUT
print({k: round(v, 3) for k, v in oasis_model.unschedulable_fraction(workload).items()})
readings = explain.reading_table(seed, n_jobs=n_jobs, T=T, H=H, K=K)
print(readings.round(3).to_string())
print(findings.tau_reading(readings, table, T=T, target=15))

# %% [markdown]
# ## 3. Price functions (22)-(26)
#
# OASiS is a primal-dual algorithm: the dual variable of each capacity constraint is a *price*
# per unit of resource $r$ on server $h$ in slot $t$, set by how much is already allocated:
#
# $$P_h^r\big(g_h^r(t)\big)=L_1\Big(\frac{U_1^r}{L_1}\Big)^{g_h^r(t)/c_h^r},\qquad
# Q_k^r\big(v_k^r(t)\big)=L_2\Big(\frac{U_2^r}{L_2}\Big)^{v_k^r(t)/c_k^r} \tag{22}$$
#
# At zero usage the price is $L$, so any job can be admitted; at full usage it is $U$, the
# largest utility per unit of resource of any job, so no job can afford it:
#
# $$U_1^r=\max_{i}\frac{f_i\big(d_i^{min}-1\big)}{w_i^r} \tag{23}$$
# $$L_1=\frac{1}{4\eta_1}\min_{i}
# \frac{f_i(T-a_i)}{\sum_{r}\lceil E_iN_iM_i(\tau_i+2e_i/b_i)\rceil\,w_i^r} \tag{25}$$
#
# and (24), (26) likewise with $s_i^r$ and the PS servers ($[T]$ reading of the
# completion argument, see `price_parameters`). $\eta_1$ is the largest value allowed by
# $\frac1{\eta_1}\le\frac{\lceil E_iN_iM_i(\tau_i+2e_i/b_i)\rceil\sum_r w_i^r}{T\sum_h\sum_r c_h^r}$,
# and Theorem 4 bounds the competitive ratio by $2\alpha$ with
# $\alpha=\max_r(1,\ln\frac{U_1^r}{L_1},\ln\frac{U_2^r}{L_2})$.
#
# The smallest end-of-horizon utility $f_i(T-a_i)$ of a time-critical job is about
# $\gamma_1e^{-5(T-a_i-\gamma_3)}$, so $L$ is astronomically small. `PriceParameters` keeps
# $\ln U$ and $\ln L$, and prices are computed as $\exp(\ln L + (g/c)\ln(U/L))$.

# %%
# NBVAL_CHECK_OUTPUT
params = price_parameters(workload)
print(f"ln L1 = {params.log_l1:.2f}, ln L2 = {params.log_l2:.2f}, eta1 = {params.eta1:.4g}, "
      f"eta2 = {params.eta2:.4g}, alpha = {params.alpha:.2f}")
price_tab = explain.price_table(params, workload.cluster.resources)
print(price_tab.round(3).to_string())
print(findings.price_wall_reading(price_tab))

# %% [markdown]
# The last two columns are the utilisation $g/c$ at which the price reaches 1 (a utility of
# 1 per unit of resource; the last line above gives their range). Where that is close to 100 %,
# the prices act almost like a hard capacity wall: negligible until a resource is nearly
# exhausted, then prohibitive. With a longer horizon, $L$ is not even a double any more:

# %%
# NBVAL_CHECK_OUTPUT
long = price_parameters(registry.make_workload("oasis", seed=seed, n_jobs=n_jobs, T=T_underflow, H=H, K=K))
print(f"T = {T_underflow}: ln L1 = {long.log_l1:.1f}, L1 as a float = {long.l1}, alpha = {long.alpha:.1f}")

# %%
prices = explain.price_curves(params, workload.cluster.resources)
fig, axes = plotting.subplots(1, 2, figsize=(12, 4), sharey=True)
for ax, pool in zip(axes, ["worker (P)", "PS (Q)"], strict=True):
    part = prices[prices["pool"] == pool]
    plotting.draw("lineplot", part, x="utilisation", y="log_price", hue="resource", ax=ax)
    ax.axhline(0.0, color="grey", linestyle=":")
    ax.set(title=f"{pool}: ln L = {part['log_price'].min():.0f}", xlabel="utilisation $g/c$",
           ylabel="ln price (dotted: price 1)")
paths = plotting.savefig(fig, "fig_oasis_10_price_functions", figures_dir)

# %% [markdown]
# ## 4. One job's best schedule (Algorithm 2)
#
# On the arrival of job $i$, Algorithm 2 maximises its payoff over all schedules,
#
# $$\mu_i=\max_{\hat t_i,\,y,\,z}\ f_i(\hat t_i-a_i)-\sum_{t}\sum_{h}\sum_{r}p_h^r(t)\,w_i^r\,y_{ih}(t)
# -\sum_{t}\sum_{k}\sum_{r}q_k^r(t)\,s_i^r\,z_{ik}(t), \tag{27}$$
#
# by trying every completion slot $\hat t_i = a_i..T$ (lines 2-8). For each, DP_COST splits the
# $E_iN_i$ chunk-passes over the slots $a_i..\hat t_i$ at the least total price (28)-(31), and
# COST_t fills one slot: workers on the cheapest worker servers (sorted by
# $\sum_r p_h^r(t)w_i^r$), then $\lceil y\,b_i/B_i\rceil$ PSs on the cheapest PS servers (32).
# Algorithm 1 admits the job iff $\mu_i>0$ and then fixes the whole schedule irrevocably.
#
# We run OASiS on the workload, pick the admitted job that paid the most for resources (so the
# prices mattered), rebuild the state OASiS was in when that job arrived (the earlier jobs'
# allocations and prices), and run Algorithm 2 on it again (`OASiS.search`).

# %%
policy = OASiS.from_workload(workload, record_prices=True)
result = simulate(workload, policy, seed=seed)
admitted = explain.admission_table(result)
probe = explain.choose_probe(admitted, min_slots=probe_min_slots)
spec = workload.specs[probe]

# %%
before = explain.oasis_state_at_arrival(workload, probe, seed=seed)
best = before.search(spec, prune=False)
recorded = admitted.set_index("job").loc[probe]
assert best.completion == recorded["planned_completion"], "Algorithm 2 disagrees with the run"
assert abs(best.payoff - recorded["payoff"]) <= 1e-12 * max(1.0, abs(best.payoff))

# %%
# NBVAL_CHECK_OUTPUT
print(f"{len(admitted)} of {n_jobs} jobs admitted")
print(f"probe: job {probe} ({spec.name}), arrival a = {spec.arrival}")
print(table.set_index("job").loc[probe, ["E", "N", "M", "minibatch_s", "d_min", "gamma1", "gamma2", "gamma3"]]
      .round(3).to_string())
print(f"t_hat = {best.completion}, f(t_hat - a) = {best.payoff + best.cost:.4g}, "
      f"cost = {best.cost:.3g}, payoff mu = {best.payoff:.4g}")
print("chunk-passes per slot:", best.chunks)

# %% [markdown]
# The schedule over servers and slots: the probe's workers $y_{ih}(t)$ (left) and PSs
# $z_{ik}(t)$ (right). Dark grey cells have no room for even one more of its tasks, the bounds
# (30)-(31) left by the jobs admitted before; white cells have room but were not used. COST_t
# fills the servers with room in the order of their price $\sum_r p_h^r(t)w_i^r$: the least
# loaded in the resources the job needs come first (ties, e.g. empty servers, go to the lowest
# index).

# %%
window = list(range(spec.arrival, best.completion + 1))
fig, axes = plotting.subplots(1, 2, figsize=(13, 0.25 * max(H, K) + 2))
for ax, role in zip(axes, ["worker", "ps"], strict=True):
    counts = explain.schedule_grid(best, workload.cluster, role, window)
    room = explain.room_grid(before, spec, role, window)
    tasks = "workers" if role == "worker" else "PSs"
    ax.set_facecolor("0.4")
    plotting.draw("heatmap", counts, ax=ax, mask=room == 0, cmap="Reds", vmin=0, linewidths=0.5, fmt="",
                  annot=counts.astype(str).replace("0", ""), cbar_kws={"label": f"{tasks} of job {probe}"})
    ax.grid(False)
    ax.set(title=f"job {probe}: {tasks} per {'worker' if role == 'worker' else 'PS'} server (grey: no room)")
paths = plotting.savefig(fig, "fig_oasis_10_best_schedule", figures_dir)

# %% [markdown]
# The payoff per completion slot, $f_i(\hat t_i - a_i) - \text{cost}(\hat t_i)$, with
# `search(spec, prune=False)` evaluating every $\hat t_i$ (the default prunes slots that cannot
# win). Before the earliest feasible $\hat t_i$ there is no schedule (not enough capacity is
# left in the slots before it); a later $\hat t_i$ opens more slots and servers, so the cheapest
# cost can only fall, but here the utility falls faster. Note the scale of the cost (left,
# logarithmic): the prices of (22) are tiny until a resource is nearly exhausted.

# %%
# NBVAL_CHECK_OUTPUT
curve = explain.payoff_curve(spec, best)
k = int(curve.index[curve["chosen"]][0])
print(curve.iloc[max(0, k - 2): k + 4].to_string(index=False, float_format="{:.3g}".format))

# %%
fig, axes = plotting.subplots(1, 2, figsize=(12, 4), sharex=True)
plotting.draw("lineplot", curve.melt(id_vars="completion", value_vars=["utility", "cost"], var_name="term"),
              x="completion", y="value", hue="term", marker="o", ax=axes[0])
plotting.draw("lineplot", curve, x="completion", y="payoff", marker="o", ax=axes[1])
axes[0].set(yscale="log", ylabel="utility and cheapest cost (log scale)",
            title="$f_i(\\hat t_i - a_i)$ and DP_COST")
axes[1].set(ylabel="payoff $f_i - $cost", title=f"job {probe}: payoff (27) per completion slot")
for ax in axes:
    ax.axvline(best.completion, color="tab:red", linestyle="--", label=f"$\\hat t_i$ = {best.completion}")
    ax.set(xlabel="completion slot $\\hat t_i$")
axes[1].legend()
paths = plotting.savefig(fig, "fig_oasis_10_payoff_curve", figures_dir)

# %% [markdown]
# ## 5. Prices as jobs arrive (Algorithm 1)
#
# After admitting a job, Algorithm 1 adds its allocation to $g_h^r(t)$, $v_k^r(t)$ in every
# slot of its schedule and re-prices those (server, resource, slot) cells with (22) (lines 7-10).
# Resources are never given back to the price tables, so prices only rise. With
# `record_prices=True` the policy keeps, after each admission, the mean over worker servers and
# resources of $\ln p_h^r(t)$ for every slot $t$.

# %%
history = explain.price_history(policy)
grid = history.pivot(index="admission", columns="slot", values="mean_log_price")
assert (grid.diff().iloc[1:] >= -1e-9).all().all(), "a price went down"
picks = sorted({1, len(grid) // 3, 2 * len(grid) // 3, len(grid)})

# %%
fig, axes = plotting.subplots(1, 2, figsize=(14, 4.5), gridspec_kw={"wspace": 0.3})
plotting.draw("heatmap", grid, ax=axes[0], cmap="viridis", cbar_kws={"label": "mean ln p"})
axes[0].set(xlabel="slot t", ylabel="after admission #", title="worker-server prices as jobs are admitted")
plotting.draw("lineplot", history[history["admission"].isin(picks)], x="slot", y="mean_log_price",
              hue="admission", palette="viridis", ax=axes[1])
axes[1].axhline(params.log_l1, color="grey", linestyle=":")
axes[1].set(xlabel="slot t", ylabel="mean ln p (dotted: ln L1)", title="after selected admissions")
paths = plotting.savefig(fig, "fig_oasis_10_price_history", figures_dir)

# %%
# NBVAL_CHECK_OUTPUT
share = admitted["cost"] / admitted["utility_planned"]
print(f"mean ln p over all slots: ln L1 = {params.log_l1:.1f}, after the first admission "
      f"{grid.iloc[0].mean():.1f}, after the last ({len(grid)}) {grid.iloc[-1].mean():.1f}")
print(f"busiest slot {int(grid.iloc[-1].idxmax())}: mean ln p = {grid.iloc[-1].max():.1f}")
print(f"cost / utility of the admitted jobs: median {share.median():.3g}, max {share.max():.3g}")

# %% [markdown]
# Prices rise exponentially with utilisation (linearly in the logarithm drawn here): each
# admission lifts the slots its schedule uses, most in the busy slots where arrivals cluster,
# and a job arriving later pays more for the same slots, so Algorithm 2 pushes it to
# less-loaded servers and slots, or rejects it when nothing affordable is left before its
# utility has decayed. With the price parameters of (23)-(26) on this workload, though, the
# cost/utility ratios printed above show how small a part of the payoff the resource cost is:
# $L$ is so small that a price reaches the size of a utility only when a resource is nearly full
# (the crossing utilisations of section 3), which the capacity bounds (30)-(31) would forbid a
# moment later anyway. OASiS then behaves like "finish as early as the free capacity allows,
# admit if the utility is still positive", with the prices mainly steering jobs away from nearly
# full servers. Fig. 6 of the paper (and
# `u_scale` of `OASiS`) studies what happens when $U/L$ is mis-estimated.
#
# ## What comes next
#
# * [`11_oasis_proofs`](11_oasis_proofs.ipynb) checks the paper's claims numerically with `dlsched.oasis.checks`: the
#   price endpoints of (22) and Lemma 3, the zero-usage admission and exhaustion properties of
#   Appendix A, Theorem 1 (COST_t, DP_COST and Algorithm 2 against brute force), Theorem 2
#   (feasibility of every run), weak duality and Lemmas 1-2, the competitive ratio of Theorem 4
#   against the offline optimum of (1)-(13) solved as a MILP, and the running time of Theorem 3.
# * [`12_oasis_figures`](12_oasis_figures.ipynb) reproduces the evaluation: total utility against the number of jobs
#   (Fig. 3), completion timeliness (Fig. 4), the performance ratio against the offline optimum
#   (Fig. 5), mis-estimated $U/L$ (Fig. 6) and the testbed setting (Figs. 8-9), comparing OASiS
#   with FIFO, DRF, RRH and Dorm.

# %% [markdown]
# ## Explore: prices, load and the probe's payoff
#
# Move $U$ and $L$ of (22) (as mis-estimates would, Fig. 6) and a uniform background load on
# every server and slot, and watch Algorithm 2's answer for the probe job change.
# In JupyterLab the sliders below are live: each change recomputes the model
# (fresh price tables, then Algorithm 2 for the probe). Elsewhere
# (papermill, nbval, the rendered site, GitHub) the same cell shows the figure and the printed
# readout at the default values.

# %%
# NBVAL_CHECK_OUTPUT
explore.prices_and_payoff(workload, spec)

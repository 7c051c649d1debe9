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
# # Optimus: the performance models (Sec. 3, Figs. 5-9, Table 2)
#
# Y. Peng, Y. Bao, Y. Chen, C. Wu, C. Guo, *Optimus: An Efficient Dynamic Resource Scheduler for
# Deep Learning Clusters*, EuroSys 2018, doi 10.1145/3190508.3190517.
#
# Optimus schedules with two fitted models per job. The **convergence model** (Sec. 3.1) fits
# Eq. (1), $l = 1/(\beta_0 k + \beta_1) + \beta_2$, online to the training loss and predicts how many
# epochs the job still needs; the **resource-speed model** (Sec. 3.2) fits Eq. (3) (asynchronous)
# or Eq. (4) (synchronous training) to a few measured speeds $f(p, w)$ with $p$ parameter servers
# and $w$ workers. This notebook reproduces the evidence of Sec. 3:
#
# * Fig. 5, loss curves: real curves of small scikit-learn models (`data/loss_curves`);
# * Fig. 6, prediction error of the total epochs against training progress, online fitting;
# * Fig. 7, one online fit and its coefficients next to the paper's Seq2Seq fit;
# * Fig. 8, speed-estimation error against the number of measured $(p, w)$ pairs;
# * Fig. 9 and Table 2, fitted speed functions and coefficients for a ResNet-50-like job.
#
# Each section puts the paper's reported value or trend next to ours and says where they differ.
# The code is `dlsched.optimus.analysis` (tables), `dlsched.optimus.fitting` (the fits),
# `dlsched.optimus.curves` (the loss data) and `dlsched.optimus.workload` (the ResNet-50 ground
# truth).
#
# Paper mode (the default: `n_reps_full` repetitions per point of Fig. 8, three thresholds in
# Fig. 6) reads Figs. 6 and 8's samples from the results store `data/results`
# (`dlsched.optimus.paper`); quick mode (`n_reps_quick` repetitions, one threshold) computes them.

# %% tags=["parameters"]
mode = "paper"  # "paper" (the papers' sizes, read from the results store data/results) or "quick" (small smoke run)
seed = 0
figures_dir = "../figures"
cache_dir = "../build/cache"
store_dir = "../data/results"  # paper-scale results store (dlsched audit checks it)
scheduler = "serial"
paper_deltas = [0.01, 0.05]
delta = 0.003
deltas_full = [0.005, 0.003, 0.002]
confirm = 5
progress_fractions = [0.1, 0.25, 0.5, 0.75, 0.9, 1.0]
fig7_config = "iris_mlp_sgd_slow"
fig7_fractions = [0.1, 0.25, 0.5, 1.0]
job_type = "resnet50"
noise = 0.05
max_tasks = 40
sample_sizes = [5, 6, 8, 10, 15, 20, 30, 50, 100]
n_reps_quick = 20
n_reps_full = 200
fixed_values = [2, 8, 16]
max_slice = 20

# %%
from dlsched import experiments, plotting
from dlsched.optimus import analysis, explore, findings, paper
from dlsched.optimus.workload import job_model

quick = mode == "quick"
store = None if quick else store_dir
run = {"cache_dir": cache_dir, "scheduler": scheduler, "store": store}
n_reps = n_reps_quick if quick else n_reps_full
deltas = [delta] if quick else deltas_full
modes = ["async", "sync"]
plotting.set_style()

# %% [markdown]
# ## Fig. 5: training-loss curves
#
# The paper ran the MXNet tutorial jobs of Table 1 (ResNet, Inception, Seq2Seq, ...) on one server
# with two TITAN X GPUs, with a fixed learning rate, and plotted the normalised loss against the
# *training progress*, the epochs trained over the epochs needed for convergence. We cannot rerun
# those jobs, so `dlsched.optimus.curves` trained ten small models for real with scikit-learn
# (MLPs with SGD or Adam, linear models with SGD, on the `digits`, `breast_cancer`, `wine` and
# `iris` datasets that ship with it, fixed learning rates) and stored every step's mini-batch
# loss. We use per-epoch means (the paper's "average all losses in an epoch").
#
# **Convergence.** The paper declares a job converged when the loss decrease between consecutive
# epochs "has consistently fallen below a threshold $\delta$ for several epochs". The *observed*
# convergence epoch $e_{obs}$ of a full curve is the first epoch $e$ whose normalised decreases
# $d_e, \dots, d_{e+4}$ are all below $\delta$ ($y_e = L_e/\max L$, $d_e = y_e - y_{e+1}$,
# `confirm` $=5$). The paper's thresholds are 1-5 %; our small models reach them after a few
# epochs (printed below), too few to resolve the progress axis, so we use a smaller `delta`
# (paper mode adds the other values of `deltas_full`). Curves that do not converge within their
# recorded epochs are left out.

# %%
# NBVAL_CHECK_OUTPUT
epochs = analysis.epoch_losses()
print(findings.threshold_reading(epochs, paper_deltas, confirm))
print(f"threshold used here: delta = {delta:g}; Fig. 6 thresholds: {deltas}")
conv = analysis.convergence_table(epochs, delta, confirm)
curves = analysis.loss_curves_frame(epochs, delta, confirm)

# %%
# NBVAL_CHECK_OUTPUT
print(conv[["config", "n_epochs", "observed", "converged"]].to_string(index=False))

# %%
fig, axes = plotting.subplots(1, 2, figsize=(13, 4.5))
plotting.draw("lineplot", curves, x="epoch", y="norm_loss", hue="config", ax=axes[0], legend=False)
axes[0].set(xscale="log", xlabel="epoch", ylabel="normalised loss", title="per-epoch loss (all curves)")
done = curves[curves["progress"] <= 1.0]
plotting.draw("lineplot", done, x="progress", y="norm_loss", hue="config", ax=axes[1])
axes[1].set(xlabel="training progress (epochs / epochs to converge)", ylabel="normalised loss",
            title=f"until convergence, delta = {delta:g}")
axes[1].legend(fontsize=7)
paths = plotting.savefig(fig, "fig_optimus_20_loss_curves", figures_dir)

# %%
# NBVAL_CHECK_OUTPUT
print(analysis.fig5_comparison(conv, curves).to_string(index=False))

# %% [markdown]
# Like the paper's curves, ours fall fast and then flatten, roughly as $O(1/k)$. They differ in
# kind: the paper's are deep networks trained for hours on GPUs, ours are small models trained in
# seconds, with noisier per-epoch losses on the tiny datasets (`iris`, `wine`) and, for some Adam
# or momentum runs, a loss that keeps falling towards 0 faster than $1/k$ (memorisation).
#
# ## Fig. 6: prediction error of the total epochs against training progress
#
# After each epoch $n$ the online fit (`OnlineLossFit`: the paper's outlier rule, normalisation by
# the largest loss so far, NNLS fit of Eq. (1); the paper's Seq2Seq curve as a prior while fewer
# than 3 epochs are known) predicts the first epoch $e^*$ whose fitted decrease is below $\delta$.
# The scheduler's estimate of the total is $\hat e = \max(e^*, n)$, and the error is
# $(\hat e - e_{obs}) / e_{obs}$ at progress $n / e_{obs}$ (the paper's definition: "the difference
# between the estimated total number of epochs [...] and the actual total number of epochs needed,
# divided by the actual number").

# %%
errors = experiments.sweep(paper.prediction_error_run, paper.split_grid("deltas", deltas, 1, confirm=confirm), **run)
table6 = analysis.progress_error_table(errors, progress_fractions)
claim6 = analysis.progress_claim(table6, early=0.1, late=0.9)
print(claim6.summary(3))
assert claim6.holds, claim6.summary()

# %%
# NBVAL_CHECK_OUTPUT
print(table6.round(3).to_string(index=False))

# %%
main = errors[errors["delta"] == delta].assign(error_pct=lambda d: 100 * d["error"])
grid = analysis.progress_error_table(main, [i / 20 for i in range(1, 21)])
fig, axes = plotting.subplots(1, 2, figsize=(13, 4.5))
plotting.draw("lineplot", main, x="progress", y="error_pct", hue="config", ax=axes[0])
axes[0].axhline(0.0, color="grey", linestyle=":")
axes[0].set(xlabel="training progress", ylabel="prediction error (%)", title=f"per curve, delta = {delta:g}")
axes[0].legend(fontsize=7)
medians = grid.melt(id_vars="fraction", value_vars=["median_abs_error", "median_abs_raw_error"])
plotting.draw("lineplot", medians, x="fraction", y="value", hue="variable", marker="o", ax=axes[1])
axes[1].set(xlabel="training progress", ylabel="median |prediction error|",
            title="estimate max(e*, n) and the fit's own e*")
paths = plotting.savefig(fig, "fig_optimus_20_prediction_error", figures_dir)

# %%
# NBVAL_CHECK_OUTPUT
print(analysis.fig6_comparison(table6, delta).to_string(index=False))
last = main[main["progress"] == 1.0]
print(last[["config", "observed", "e_star", "raw_error"]].round(2).to_string(index=False))
print(findings.fig6_reading(main, early=0.1, tol=0.15))

# %% [markdown]
# We reproduce the paper's trend for the scheduler's estimate: the error is large early and
# small near convergence (the claim asserted above). Early predictions rest on the paper's Seq2Seq
# prior (`n_prior` curves at 10 %, fewer than 3 epochs known) or on a few points, and miss by
# much (the largest early error is printed above).
#
# Read the second half of the curve with care. The fit's *own* prediction $e^*$ (right panel,
# `median_abs_raw_error`) stops improving after about a quarter of the training: on our curves
# Eq. (1) has a structural error that more points do not remove. The estimate
# $\max(e^*, n)$ still improves because, once the fit believes the job has converged
# ($e^* < n$), the estimate is simply $n$, which approaches $e_{obs}$ by construction (the
# straight lines towards 0 in the left panel). The per-curve table and the reading above show two
# kinds of misses:
#
# * *noisy curves* (the linear SGD models, `iris_mlp_adam`) converge later than the fit
#   predicts: their epoch-to-epoch noise exceeds $\delta$ of the first loss now and then, which
#   restarts the `confirm`-epoch confirmation, so $e_{obs}$ is set by noise, not by the trend the
#   fit sees;
# * *memorising curves* (`digits_mlp_adam`, `wine_mlp_sgd`) fall faster than $1/k$, and the fit
#   predicts convergence too late.
#
# The smooth curves are predicted well. The paper does not say how it treats an estimate below
# the epochs already trained, nor how noisy its curves are near convergence; its deep-learning
# curves over many more epochs are smoother relative to $\delta$ = 1-5 % than ours relative to
# our smaller `delta`.
#
# ## Fig. 7: online fitting of one curve
#
# The paper shows its fit for Seq2Seq, $\beta_0 = 0.21$, $\beta_1 = 1.07$, $\beta_2 = 0.07$
# (normalised loss; the unit of $k$ is not stated). Below: the Eq. (1) fit of every one of our
# curves (all epochs, $k$ = epoch from 1, normalised by the largest loss), then one curve refitted
# as its epochs arrive.

# %%
betas = analysis.fit_betas(epochs)
online = analysis.fit_betas(epochs, [fig7_config], fig7_fractions)
lines = analysis.fitted_loss_curves(epochs, fig7_config, fig7_fractions)
b = betas.set_index("config").loc[fig7_config]
shown = ["config", "fraction", "n_points", "beta0", "beta1", "beta2", "rss", "n_outliers"]

# %%
# NBVAL_CHECK_OUTPUT
print(betas[shown].round(3).to_string(index=False))
print(online[shown].round(3).to_string(index=False))
print(analysis.fig7_comparison(betas, fig7_config).to_string(index=False))
print(findings.fig7_reading(betas, online, fig7_config))

# %%
ax = plotting.draw("scatterplot", curves[curves["config"] == fig7_config], x="epoch", y="norm_loss",
                   color="0.4", s=14, label="observed (per-epoch mean)")
plotting.draw("lineplot", lines, x="epoch", y="norm_loss", hue="fit", ax=ax)
ax.set(xlabel="epoch", ylabel="normalised loss",
       title=f"{fig7_config}: beta = ({b['beta0']:.2f}, {b['beta1']:.2f}, {b['beta2']:.2f})")
paths = plotting.savefig(ax.figure, "fig_optimus_20_online_fit", figures_dir)

# %% [markdown]
# The example curve (`iris_mlp_sgd_slow`, plain SGD with a small learning rate) is compared with
# the paper's Seq2Seq fit in the reading above (a smaller $\beta_0$ means slower convergence per
# epoch). We chose it because it resembles a slowly converging model, not because the numbers
# should agree: the coefficients depend on the job, the learning rate and the unit of $k$. Across
# our curves $\beta_0$ varies widely (range above); the fast, memorising runs have
# $\beta_1 \approx 0$ and $\beta_2 \approx 0$ (the loss goes to 0, table above), the slow ones
# look like the paper's. The fit on the first `fig7_fractions` share of the epochs already follows
# the curve, but where it places the plateau $\beta_2$ lower than the later fits (reading above),
# early predictions of the convergence epoch become uncertain.
#
# ## Fig. 8: speed-estimation error against the number of $(p, w)$ samples
#
# The paper measured a ResNet-50 job in 40 containers, where "there are 780 possible $(p, w)$
# pairs", fitted Eq. (3)/(4) by NNLS to a random subset, and reported the "ratio of the gap
# (between the measured speed and the estimated speed) over the measured speed". We cannot measure
# a real cluster: our speeds come from the ground-truth step time of Eq. (2)
# (`OptimusModel.speed`, the `resnet50` job type of `dlsched.optimus.workload`, no placement
# effects) times $1 + \sigma\,N(0, 1)$ measurement noise ($\sigma$ = `noise`). For each sample size
# we draw random distinct pairs from the 780, fit, and measure every held-out pair once with fresh
# noise (one random stream per training mode, both seeded with `seed`).

# %%
models = {m: job_model(job_type, m) for m in modes}
grid8 = paper.split_grid("modes", modes, 1, job_type=job_type, sample_sizes=sample_sizes, n_reps=n_reps, seed=seed,
                         noise=noise, max_tasks=max_tasks)
errors8 = experiments.sweep(paper.speed_error_run, grid8, **run)
table8 = analysis.speed_error_table(errors8)
claim8 = analysis.speed_error_claim(table8)
print(claim8.summary(3))
assert claim8.holds, claim8.summary()

# %%
# NBVAL_CHECK_OUTPUT
print(f"candidate pairs: {len(analysis.candidate_pairs(max_tasks))} (paper: {analysis.PAPER_N_PAIRS})")
print(table8.round(3).to_string(index=False))

# %%
long8 = errors8.melt(id_vars=["mode", "n_samples"], value_vars=["error_measured", "error_true"],
                     var_name="against", value_name="error")
ax = plotting.draw("lineplot", long8.assign(error=100 * long8["error"]), x="n_samples", y="error", hue="mode",
                   style="against", marker="o", errorbar=("pi", 80))
ax.axhline(10.0, color="grey", linestyle=":")
ax.set(xscale="log", xlabel="number of (p, w) samples", ylabel="estimation error (%)",
       title=f"ResNet-50-like job, {noise:.0%} measurement noise (mean, 10-90 % band)")
paths = plotting.savefig(ax.figure, "fig_optimus_20_speed_error", figures_dir)

# %%
# NBVAL_CHECK_OUTPUT
print(analysis.fig8_comparison(table8).to_string(index=False))

# %% [markdown]
# Both statements of the paper are asserted above: under 10 % with 10 pairs, and most of the gain
# comes from the first few pairs. The comparison is kinder to the model than the paper's: our
# speeds follow Eq. (2) exactly, so the fitted form is the true one and only the measurement noise
# is left to learn around (with noise-free speeds, 4 or 5 pairs, the number of coefficients,
# recover them exactly, see below). The error against the *measured* speeds therefore levels off
# near the noise itself (expected $E|N(0,1)|\,\sigma \approx 0.8\,\sigma$), while the error
# against the true speeds keeps falling. On a
# real cluster the form of Eq. (3)/(4) is itself an approximation (placement, contention,
# stragglers), which adds a bias that more samples cannot remove.
#
# ## Fig. 9 and Table 2: fitted speed functions of a ResNet-50-like job
#
# Fig. 9 shows measured points and fitted curves of the speed function, speed against the number
# of parameter servers and against the number of workers, for asynchronous and synchronous
# training; Table 2 lists the fitted coefficients ($\theta_1..\theta_5$ are Eq. (3)/(4)'s
# $\theta_0..\theta_4$). Our job is the `resnet50` type of `dlsched.optimus.workload`: 25 M
# parameters (100 MB), mini-batch 64 (global batch $M$ in sync mode), 0.3 s forward time per
# example on a CPU worker, 125 MB/s (1 GbE) bandwidth, 0.02 s overhead per task. We measure it
# (`noise` measurement noise) along slices $p = 1..$`max_slice` for $w$ in `fixed_values` and
# $w = 1..$`max_slice` for $p$ in `fixed_values`, and fit Eq. (3)/(4) to all those points.

# %%
for m in modes:
    claim = analysis.theta_recovery_claim(models[m], max_tasks)
    print(claim.summary(3))
    assert claim.holds, claim.summary()

# %%
curves9, fits = analysis.fit_speed_slices(models, seed, noise=noise, fixed_values=fixed_values,
                                          max_slice=max_slice, max_tasks=max_tasks)
fig, axes = plotting.subplots(2, 2, figsize=(12, 8.5))
for row, m in zip(axes, modes, strict=True):
    analysis.draw_speed_slices(curves9, m, "vs_p", ax=row[0])
    analysis.draw_speed_slices(curves9, m, "vs_w", ax=row[1])
fig.tight_layout()
paths = plotting.savefig(fig, "fig_optimus_20_speed_functions", figures_dir)

# %%
# NBVAL_CHECK_OUTPUT
print(analysis.table2(fits, models).round(3).to_string(index=False))
peaks = analysis.speed_peaks(curves9)
print(peaks.round(3).to_string(index=False))
print(findings.fig9_reading(peaks))

# %% [markdown]
# **Table 2.** Our fitted coefficients match our ground truth (`truth` rows) to within the
# noise, except the two small overhead terms ($\delta w$ and $\delta' p$), which the fit trades
# against each other. They do not match the paper's numbers, and should not be expected to: the
# paper's ResNet-50 ran on GPUs with MXNet and its units (and those of its RSS) are not stated;
# our RSS is in the fitted linear form ($w/f$ or $1/f$, seconds per step squared, summed over
# all the measurements of the slices), hence its size. The pattern differs as well: the paper finds compute
# (forward and backward) *and* data transfer large in both modes; our CPU constants make the
# computation of a 64-example mini-batch ($64 \times 0.3$ s) dominate the asynchronous step, while
# in synchronous mode, where each worker computes only $M/w$ examples, transfer ($\theta_3$,
# the $w/p$ term) is the largest coefficient, as in the paper's sync row (4.92).
#
# **Fig. 9's observations.** (a) The fitted curves follow the measured points closely in both
# modes. (b) Adding parameter servers has diminishing returns: with few workers the speed is flat
# beyond a handful of PSs (`gain_second_half` near 0 for $w = 2$). (c) In synchronous training
# more workers can slow the job down: the speed peaks at a moderate number of workers and falls
# after it (negative `gain_second_half`, reading above), as the paper reports (smaller
# mini-batches per worker, more synchronisation). In asynchronous mode our job scales almost
# linearly in $w$ up to `max_slice` workers, because its step is computation-bound; the paper's
# async ResNet-50, with a larger transfer coefficient, saturates earlier.

# %%
# NBVAL_CHECK_OUTPUT
print(analysis.fig9_comparison(curves9, fits).to_string(index=False))

# %% [markdown]
# ## Where we differ from the paper, and why
#
# * **Loss curves.** Paper: 9 deep models (MXNet, GPUs). Here: 10 small scikit-learn models
#   trained for real on a CPU (no GPU cluster; the curves and their generator are stored).
# * **Threshold.** Paper: $\delta$ = 1-5 %. Here: `delta` (paper mode also the other
#   `deltas_full`), because our models reach 1-5 % within a few epochs, too coarse for a progress
#   axis.
# * **Early predictions.** Not described in the paper. Here: the paper's Seq2Seq curve as a prior
#   until 3 epochs are known (Eq. (1) has three unknowns).
# * **Speeds.** Paper: measured on a 40-container cluster. Here: the Eq. (2) ground truth with
#   `noise` measurement noise, so the fitted form is exact and Fig. 8's errors are measurement
#   noise only.
# * **Table 2.** Paper: GPU measurements in unstated units. Here: CPU-like constants of the
#   `resnet50` job type; only the patterns (which terms dominate, the sync slowdown) compare.
#
# Notebook [`21_optimus_proofs`](21_optimus_proofs.ipynb) tests the fitting code against analytic answers (spec items 1-2);
# [`22_optimus_figures`](22_optimus_figures.ipynb) runs the scheduler that uses these models in the
# paper's evaluation (Sec. 6: every figure of it that our simulator can produce, and Table 3; its
# title lists them).

# %% [markdown]
# ## Explore: the fits as samples arrive
#
# Slide the share of the Fig. 7 curve's epochs seen so far, and the number of $(p, w)$ pairs
# measured for the ResNet-50-like job (asynchronous), and watch both NNLS fits converge.
# In JupyterLab the sliders below are live: each change recomputes the model
# (both NNLS fits). Elsewhere
# (papermill, nbval, the rendered site, GitHub) the same cell shows the figure and the printed
# readout at the default values.

# %%
# NBVAL_CHECK_OUTPUT
explore.fits_as_samples_arrive(epochs, fig7_config, models["async"], seed=seed, noise=noise, max_tasks=max_tasks)

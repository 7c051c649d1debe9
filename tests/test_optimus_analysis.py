"""Tests of dlsched.optimus.analysis (the tables behind notebook 20_optimus_models)."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pandas as pd
import pytest

from dlsched.core.jobs import OptimusModel
from dlsched.optimus import analysis as A
from dlsched.optimus.fitting import LossFit, SpeedFit, convergence_epoch, model_theta
from dlsched.optimus.workload import job_model

K = np.arange(1, 201, dtype=float)
BETA = (0.3, 1.2, 0.1)


def frame(curves: dict[str, np.ndarray]) -> pd.DataFrame:
    """Per-epoch frame (config, epoch, loss) from named loss arrays."""
    return pd.concat(
        [
            pd.DataFrame({"config": n, "epoch": np.arange(1, len(v) + 1), "loss": v})
            for n, v in curves.items()
        ],
        ignore_index=True,
    )


def eq1(beta=BETA, k=K) -> np.ndarray:
    return 1.0 / (beta[0] * k + beta[1]) + beta[2]


def misspecified() -> dict[str, np.ndarray]:
    """Noise-free curves that do not follow Eq. (1)."""
    return {
        "exp": 0.9 * np.exp(-0.08 * K) + 0.1,
        "power": (1 + 0.3 * K) ** -0.5,
        "mix": 0.5 * np.exp(-0.2 * K) + 0.5 / (1 + 0.1 * K) + 0.05,
        "pow15": (1 + 0.2 * K) ** -1.5 + 0.02,
    }


@pytest.fixture(scope="module")
def models() -> dict[str, OptimusModel]:
    return {m: job_model("resnet50", m) for m in ("async", "sync")}


# --------------------------------------------------------------------------- convergence


def test_observed_convergence_epoch_by_hand():
    losses = [1.0, 0.5, 0.4, 0.39, 0.385, 0.38]  # decreases 0.5, 0.1, 0.01, 0.005, 0.005
    assert A.observed_convergence_epoch(losses, 0.05, confirm=2) == 3
    assert A.observed_convergence_epoch(losses, 0.05, confirm=3) == 3
    assert A.observed_convergence_epoch(losses, 0.05, confirm=4) is None  # needs epoch 7
    assert A.observed_convergence_epoch(losses, 0.2, confirm=1) == 2
    # normalised by the largest loss: scaling the curve changes nothing
    assert A.observed_convergence_epoch(np.array(losses) * 7.0, 0.05, confirm=2) == 3
    # an increase counts as "below delta"
    assert A.observed_convergence_epoch([1.0, 0.5, 0.6, 0.59, 0.3], 0.05, confirm=2) == 2


def test_observed_equals_closed_form_on_eq1():
    y = eq1()
    fit = LossFit(BETA[0] * y[0], BETA[1] * y[0], BETA[2] / y[0], rss=0.0, n_points=200)
    for delta in (0.02, 0.005, 0.002):
        assert A.observed_convergence_epoch(y, delta, confirm=5) == convergence_epoch(fit, delta)


def test_prediction_exact_on_eq1_after_three_epochs():
    err = A.prediction_errors(frame({"eq1": eq1()}), [0.005, 0.002])
    fitted = err[err["epochs_seen"] >= 3]
    assert len(fitted) > 0
    assert (fitted["error"] == 0).all()
    assert (err["prior"] == (err["epochs_seen"] < 3)).all()


def test_error_shrinks_on_noise_free_misspecified_curves():
    err = A.prediction_errors(frame(misspecified()), 0.002)
    for name, g in err.groupby("config"):
        at10 = g[g["progress"] <= 0.1]["abs_error"].iloc[-1]
        at90 = g[g["progress"] <= 0.9]["abs_error"].iloc[-1]
        assert at90 < at10, name
    table = A.progress_error_table(err)
    claim = A.progress_claim(table)
    assert claim.holds, claim.summary()
    assert table["n_prior"].max() == 0  # enough epochs: no prior at 10 %


def test_prediction_errors_columns_and_invariants_on_real_curves():
    ep = A.epoch_losses(configs=["digits_mlp_sgd", "iris_mlp_sgd_slow", "digits_mlp_sgd_slow"])
    conv = A.convergence_table(ep, 0.003)
    assert conv["observed"].dtype == "Int64"
    assert conv.set_index("config").loc["digits_mlp_sgd_slow", "converged"] == np.False_  # needs > 100 epochs
    err = A.prediction_errors(ep, 0.003)
    assert set(err["config"]) == {"digits_mlp_sgd", "iris_mlp_sgd_slow"}
    for _, g in err.groupby("config"):
        obs = int(g["observed"].iloc[0])
        assert list(g["epochs_seen"]) == list(range(obs + 1))
        assert g["progress"].iloc[-1] == 1.0
    assert (err["predicted"] >= err["epochs_seen"]).all()
    assert np.allclose(err["error"], (err["predicted"] - err["observed"]) / err["observed"])
    table = A.progress_error_table(err, [0.1, 0.5, 1.0])
    assert list(table["n_curves"]) == [2, 2, 2]
    assert list(table["fraction"]) == [0.1, 0.5, 1.0]


def test_progress_claim_can_fail():
    table = pd.DataFrame({"delta": [0.01, 0.01], "fraction": [0.1, 0.9], "median_abs_error": [0.1, 0.3]})
    assert not A.progress_claim(table).holds
    with pytest.raises(ValueError, match="fraction 0.5"):
        A.progress_claim(table, early=0.5)
    with pytest.raises(ValueError, match="early"):
        A.progress_claim(table, early=0.9, late=0.1)


def test_loss_curves_frame_progress():
    ep = A.epoch_losses(configs=["wine_mlp_sgd"])
    assert ep["norm_loss"].max() == 1.0
    df = A.loss_curves_frame(ep, 0.003)
    obs = int(df["observed"].iloc[0])
    assert df.loc[df["epoch"] == obs, "progress"].item() == 1.0
    assert np.allclose(df["progress"], df["epoch"] / obs)


# ------------------------------------------------------------------------------- Fig. 7


def test_fit_betas_recovers_eq1_and_fitted_curves_match():
    y = eq1()
    c = y.max()
    betas = A.fit_betas(frame({"eq1": y}), fractions=[0.1, 1.0])
    assert list(betas["n_points"]) == [20, 200]
    for row in betas.itertuples():
        assert np.allclose(
            [row.beta0, row.beta1, row.beta2], [BETA[0] * c, BETA[1] * c, BETA[2] / c], rtol=1e-6
        )
    curves = A.fitted_loss_curves(frame({"eq1": y}), "eq1", [0.1, 1.0], n_grid=50)
    assert len(curves) == 100
    assert set(curves["fit"]) == {"first 20 epochs", "first 200 epochs"}
    k = curves["epoch"].to_numpy()
    assert np.allclose(curves["norm_loss"], eq1(k=k) / c, rtol=1e-6)


def test_fit_betas_prefix_has_at_least_three_points():
    betas = A.fit_betas(frame({"eq1": eq1(k=np.arange(1, 11.0))}), fractions=[0.01])
    assert betas["n_points"].item() == 3


# ---------------------------------------------------------------------------- speed model


def test_candidate_pairs_are_the_papers_780():
    pairs = A.candidate_pairs(40)
    assert len(pairs) == A.PAPER_N_PAIRS == 780
    assert len(set(pairs)) == 780
    assert all(p >= 1 and w >= 1 and p + w <= 40 for p, w in pairs)


def test_speed_errors_deterministic_and_zero_without_noise(models):
    a = A.speed_error_vs_samples(models["sync"], [5, 10], 3, 7)
    b = A.speed_error_vs_samples(models["sync"], [5, 10], 3, np.random.default_rng(7))
    pd.testing.assert_frame_equal(a, b)
    c = A.speed_error_vs_samples(models["sync"], [5, 10], 3, 8)
    assert not np.allclose(a["error_measured"], c["error_measured"])
    exact = A.speed_error_vs_samples(models["async"], [4, 6], 2, 0, noise=0.0)
    assert exact["error_true"].max() < 1e-9 and exact["error_measured"].max() < 1e-9


def test_speed_errors_shrink_with_more_samples(models):
    frames = [A.speed_error_vs_samples(models[m], [5, 10, 50], 30, 1) for m in ("async", "sync")]
    table = A.speed_error_table(pd.concat(frames, ignore_index=True))
    for _, g in table.groupby("mode"):
        by = g.set_index("n_samples")
        assert by.loc[50, "mean_error"] < by.loc[5, "mean_error"]
        assert by.loc[50, "mean_error_true"] < by.loc[10, "mean_error_true"] < by.loc[5, "mean_error_true"]
    assert (table["n_reps"] == 30).all()
    claim = A.speed_error_claim(table)
    assert claim.holds, claim.summary()


def test_speed_error_claim_can_fail():
    table = pd.DataFrame(
        {"mode": "sync", "n_samples": [5, 10, 50], "mean_error": [0.3, 0.2, 0.05]}  # 20 % at 10 pairs
    )
    assert not A.speed_error_claim(table).holds
    accelerating = pd.DataFrame(
        {"mode": "async", "n_samples": [5, 10, 15], "mean_error": [0.09, 0.089, 0.01]}
    )
    claim = A.speed_error_claim(accelerating)
    assert (
        not claim.holds and claim.details["async: gain/pair 10-15"] > claim.details["async: gain/pair 5-10"]
    )
    good = pd.DataFrame({"mode": "async", "n_samples": [5, 10, 100], "mean_error": [0.09, 0.06, 0.04]})
    assert A.speed_error_claim(good).holds
    with pytest.raises(ValueError, match="n_pairs"):
        A.speed_error_claim(table, n_pairs=50)


def test_table2_recovers_theta_exactly_without_noise(models):
    fits = {}
    for mode, mdl in models.items():
        claim = A.theta_recovery_claim(mdl)
        assert claim.holds, claim.summary()
        slices = A.speed_slices(mdl, 0, noise=0.0)
        assert np.allclose(slices["speed"], slices["true_speed"])
        fits[mode] = A.fit_measured(slices, mdl)
        assert np.allclose(fits[mode].theta, model_theta(mdl), rtol=1e-6, atol=1e-9)
    t2 = A.table2(fits, models)
    assert list(t2["source"]) == ["paper", "fit", "truth"] * 2
    fit_rows = t2[t2["source"] == "fit"].set_index("mode")
    truth_rows = t2[t2["source"] == "truth"].set_index("mode")
    cols = [f"theta{i}" for i in range(1, 6)]
    assert np.allclose(fit_rows[cols].fillna(-1), truth_rows[cols].fillna(-1), rtol=1e-6, atol=1e-9)
    paper = t2[t2["source"] == "paper"].set_index("mode")
    assert paper.loc["async", "theta2"] == 3.92 and math.isnan(paper.loc["async", "theta5"])
    assert paper.loc["sync", "theta3"] == 4.92 and paper.loc["sync", "rss"] == 0.0


def test_speed_slices_shape_and_curves(models):
    s = A.speed_slices(models["async"], 3, fixed_w=(2, 30), fixed_p=(4,), max_slice=20, max_tasks=40)
    assert set(s["slice"]) == {"vs_p", "vs_w"}
    # w = 30 allows p = 1..10 only (p + w <= 40)
    assert s[(s["slice"] == "vs_p") & (s["fixed"] == 30)]["p"].max() == 10
    assert len(s) == 20 + 10 + 20
    fit = A.fit_measured(s, models["async"])
    cur = A.speed_curves(s, fit)
    assert np.allclose(cur["fitted"], fit.predict(s["p"].to_numpy(float), s["w"].to_numpy(float)))
    again = A.speed_slices(models["async"], 3, fixed_w=(2, 30), fixed_p=(4,), max_slice=20, max_tasks=40)
    pd.testing.assert_frame_equal(s, again)


def test_draw_speed_slices(models):
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = A.speed_slices(models["sync"], 0)
    cur = A.speed_curves(s, A.fit_measured(s, models["sync"]))
    ax = A.draw_speed_slices(cur, "sync", "vs_w")
    assert ax.get_xlabel() == "workers w"
    plt.close(ax.figure)
    with pytest.raises(ValueError, match="slice_name"):
        A.draw_speed_slices(cur, "sync", "vs_x")
    with pytest.raises(ValueError, match="no rows"):
        A.draw_speed_slices(cur, "async", "vs_p")


# ------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize("delta", [0, 1.0, -0.1, math.nan, "0.1", True])
def test_bad_delta(delta):
    with pytest.raises(ValueError, match="delta"):
        A.observed_convergence_epoch([1.0, 0.5, 0.4], delta)


def test_bad_inputs(models):
    good = frame({"eq1": eq1(k=np.arange(1, 21.0))})
    with pytest.raises(ValueError, match="confirm"):
        A.observed_convergence_epoch([1.0, 0.5], 0.1, confirm=0)
    with pytest.raises(ValueError, match=r"losses\[1\]"):
        A.observed_convergence_epoch([1.0, -0.5, 0.2], 0.1)
    with pytest.raises(TypeError, match="DataFrame"):
        A.prediction_errors({"config": []}, 0.01)
    with pytest.raises(ValueError, match="missing column"):
        A.prediction_errors(good.drop(columns="loss"), 0.01)
    with pytest.raises(ValueError, match="1, 2, ..., n"):
        A.convergence_table(good[good["epoch"] != 5], 0.01)
    with pytest.raises(ValueError, match="epoch 3"):
        A.convergence_table(good.assign(loss=np.where(good["epoch"] == 3, math.nan, good["loss"])), 0.01)
    with pytest.raises(ValueError, match="empty"):
        A.prediction_errors(good, [])
    with pytest.raises(TypeError, match="prior"):
        A.prediction_errors(good, 0.01, prior=(0.2, 1.0, 0.0))
    with pytest.raises(ValueError, match=r"fractions\[0\]"):
        A.fit_betas(good, fractions=[0.0])
    with pytest.raises(ValueError, match="'nope'"):
        A.fit_betas(good, configs=["nope"])
    with pytest.raises(ValueError, match="n_grid"):
        A.fitted_loss_curves(good, "eq1", n_grid=1)
    with pytest.raises(ValueError, match="max_tasks"):
        A.candidate_pairs(1)
    with pytest.raises(ValueError, match="seed"):
        A.speed_error_vs_samples(models["sync"], [5], 1, -1)
    with pytest.raises(ValueError, match="seed"):
        A.speed_slices(models["sync"], 1.5)
    with pytest.raises(ValueError, match=r"sample_sizes\[0\].*sync"):
        A.speed_error_vs_samples(models["sync"], [4], 1, 0)
    with pytest.raises(ValueError, match=r"sample_sizes\[1\]"):
        A.speed_error_vs_samples(models["async"], [4, 780], 1, 0)
    with pytest.raises(ValueError, match="n_reps"):
        A.speed_error_vs_samples(models["async"], [4], 0, 0)
    with pytest.raises(ValueError, match="noise"):
        A.speed_error_vs_samples(models["async"], [4], 1, 0, noise=-0.1)
    with pytest.raises(TypeError, match="OptimusModel"):
        A.speed_slices("resnet50", 0)
    with pytest.raises(ValueError, match="fixed_w"):
        A.speed_slices(models["sync"], 0, fixed_w=(0,))
    with pytest.raises(ValueError, match="missing column"):
        A.speed_error_table(pd.DataFrame({"mode": ["sync"]}))
    with pytest.raises(TypeError, match="SpeedFit"):
        A.speed_curves(pd.DataFrame({"p": [1], "w": [1]}), (1.0, 2.0))
    sync_fit = SpeedFit("sync", (1, 1, 1, 1, 1), M=64.0)
    with pytest.raises(ValueError, match="async"):
        A.table2({"async": sync_fit})
    with pytest.raises(ValueError, match="key"):
        A.table2({"both": sync_fit})
    with pytest.raises(ValueError, match=r"rows\[0\]"):
        A.comparison([("a", 1)])


def test_comparison_table():
    t = A.comparison([("error at 10 pairs", "< 10 %", "5.5 %"), ("pairs", 780, 780)])
    assert list(t.columns) == ["quantity", "paper", "ours"]
    assert t["ours"].tolist() == ["5.5 %", 780]


# ------------------------------------------------------------------ wrappers and summaries


def test_raw_error_is_the_fit_without_the_floor():
    err = A.prediction_errors(frame(misspecified()), 0.005)
    assert np.allclose(err["raw_error"], (err["e_star"] - err["observed"]) / err["observed"])
    floored = err["e_star"] < err["epochs_seen"]
    assert floored.any()  # some fits declare convergence early
    assert (err.loc[floored, "predicted"] == err.loc[floored, "epochs_seen"]).all()
    assert (err.loc[floored, "raw_error"] < err.loc[floored, "error"]).all()
    table = A.progress_error_table(err)
    assert (table["median_abs_raw_error"] >= 0).all()


def test_speed_errors_concatenates_models_in_order(models):
    both = A.speed_errors(models, [5, 10], 2, 3)
    assert list(both["mode"].unique()) == ["async", "sync"]
    rng = np.random.default_rng(3)
    first = A.speed_error_vs_samples(models["async"], [5, 10], 2, rng)
    second = A.speed_error_vs_samples(models["sync"], [5, 10], 2, rng)
    pd.testing.assert_frame_equal(both, pd.concat([first, second], ignore_index=True))
    with pytest.raises(ValueError, match="empty"):
        A.speed_errors({}, [5], 1, 0)


def test_fit_speed_slices_and_peaks(models):
    curves, fits = A.fit_speed_slices(models, 0, noise=0.0)
    assert set(fits) == {"async", "sync"}
    assert np.allclose(curves["fitted"], curves["true_speed"], rtol=1e-9)
    peaks = A.speed_peaks(curves, "true_speed").set_index(["mode", "slice", "fixed"])
    # Fig. 9 (c): in sync mode the speed peaks before 20 workers and then falls
    sync_w2 = peaks.loc[("sync", "vs_w", 2)]
    assert sync_w2["best"] < sync_w2["last"] and sync_w2["gain_second_half"] < 0
    # the peak is the argmax of the ground truth along the slice
    f = [models["sync"].speed(2, w) for w in range(1, 21)]
    assert sync_w2["best"] == 1 + int(np.argmax(f))
    with pytest.raises(ValueError, match="missing column"):
        A.speed_peaks(curves.drop(columns="fixed"))


def test_comparison_tables(models):
    ep = frame({"eq1": eq1(), **misspecified()})
    conv = A.convergence_table(ep, 0.002)
    t5 = A.fig5_comparison(conv, A.loss_curves_frame(ep, 0.002))
    assert t5.set_index("quantity").loc["threshold delta", "ours"] == "0.2 %"
    table = A.progress_error_table(A.prediction_errors(ep, 0.002))
    t6 = A.fig6_comparison(table, 0.002)
    assert t6["ours"].iloc[0] == "shrinks"
    with pytest.raises(ValueError, match="delta"):
        A.fig6_comparison(table, 0.01)
    t7 = A.fig7_comparison(A.fit_betas(ep, ["eq1"]), "eq1")
    assert t7["paper"].tolist() == ["0.21", "1.07", "0.07"]
    with pytest.raises(ValueError, match="config"):
        A.fig7_comparison(A.fit_betas(ep, ["eq1"]), "exp")
    t8 = A.fig8_comparison(A.speed_error_table(A.speed_errors(models, [5, 10, 20], 5, 0)))
    assert t8["quantity"].tolist()[0] == "error with 10 pairs"
    curves, fits = A.fit_speed_slices(models, 0)
    t9 = A.fig9_comparison(curves, fits).set_index("quantity")
    assert t9.loc["Table 2 async theta1..theta4", "paper"] == "2.83, 3.92, 0.00, 0.11"

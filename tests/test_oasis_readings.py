"""OASiS readings (issue 22): the L definitions and l_scale of dlsched.oasis.policy change what
they say and nothing at their defaults; dlsched.oasis.readings' grid, runs and rows."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dlsched import readings
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import ConstantUtility, JobSpec, OasisModel, Sigmoid, Workload
from dlsched.core.simulator import simulate
from dlsched.oasis import experiments as ox
from dlsched.oasis import readings as orr
from dlsched.oasis.model import oasis_workload
from dlsched.oasis.policy import OASiS, PriceParameters, price_parameters

SMALL = {"n_jobs": 12, "T": 30, "H": 4, "K": 4}


def _workload(seed: int = 0, **kw) -> Workload:
    return oasis_workload(np.random.default_rng(seed), **{**SMALL, **kw})


def _ratio(spec: JobSpec, wl: Workload, duration: float, pool: str = "worker") -> float:
    """ln of the per-job value of (25)-(26) at ``duration``."""
    m = spec.model
    work = math.ceil(m.epochs * m.chunks * m.minibatches * m.minibatch_time - 1e-9)
    demand = wl.cluster.vector(spec.worker_demand if pool == "worker" else spec.ps_demand)
    return float(spec.utility.log(duration)) - math.log(work * demand.sum())


def _log_eta(wl: Workload) -> float:
    return price_parameters(wl).log_l1 - min(
        _ratio(s, wl, max(0, wl.horizon - 1 - s.arrival)) for s in wl.jobs
    )


# ------------------------------------------------------------------------ the L definitions


def test_defaults_are_the_paper_reading_bit_for_bit():
    wl = _workload(1)
    base = price_parameters(wl)
    explicit = price_parameters(wl, l_utility="horizon", l_jobs="all", l_statistic="min")
    assert base == explicit
    # (25) by hand: the smallest end-of-horizon unit utility, over 4 eta
    by_hand = min(_ratio(s, wl, max(0, wl.horizon - 1 - s.arrival)) for s in wl.jobs) - math.log(
        4 * base.eta1
    )
    assert base.log_l1 == by_hand


def test_each_l_definition_changes_l_as_documented_and_nothing_else():
    wl = _workload(2, n_jobs=40, T=60)
    base = price_parameters(wl)
    shift = base.log_l1 - min(_ratio(s, wl, wl.horizon - 1 - s.arrival) for s in wl.jobs)  # -ln(4 eta1)
    end = [wl.horizon - 1 - s.arrival for s in wl.jobs]

    target = price_parameters(wl, l_utility="target")
    want = min(_ratio(s, wl, min(max(s.utility.gamma3, 0.0), e)) for s, e in zip(wl.jobs, end, strict=True))
    assert target.log_l1 == pytest.approx(want + shift, rel=1e-12)
    assert target.log_l1 > base.log_l1  # the target comes before the horizon: a larger utility

    sens = [s for s in wl.jobs if 0 < s.utility.gamma2 <= 1]
    assert 0 < len(sens) < len(wl.jobs)
    ts = price_parameters(wl, l_jobs="time_sensitive")
    want = min(_ratio(s, wl, wl.horizon - 1 - s.arrival) for s in sens)
    assert ts.log_l1 == pytest.approx(want + shift, rel=1e-12)

    med = price_parameters(wl, l_statistic="median")
    want = float(np.median([_ratio(s, wl, e) for s, e in zip(wl.jobs, end, strict=True)]))
    assert med.log_l1 == pytest.approx(want + shift, rel=1e-12)
    assert med.log_l1 >= base.log_l1

    for other in (target, ts, med):  # U and eta never change (U floored at L only)
        assert (other.eta1, other.eta2) == (base.eta1, base.eta2)
        np.testing.assert_array_equal(other.log_u1, np.maximum(base.log_u1, other.log_l1))
        assert other.log_l1 != base.log_l1 and other.log_l2 != base.log_l2


def _one_pool_job(job_id: int, utility, arrival: int = 0) -> JobSpec:
    model = OasisModel(epochs=1, chunks=2, minibatches=1, tau=0.5, comm=0.0, worker_bw=1.0, ps_bw=1.0)
    return JobSpec(job_id, arrival, model, {"gpu": 1.0}, {"cpu": 1.0}, utility=utility)


def test_target_falls_back_to_the_horizon_and_time_sensitive_to_all_jobs():
    cluster = Cluster.two_pools(2, 2, {"gpu": 2.0, "cpu": 0.0}, {"gpu": 0.0, "cpu": 2.0})
    jobs = (_one_pool_job(0, ConstantUtility(3.0)), _one_pool_job(1, ConstantUtility(2.0)))
    const = Workload(cluster, jobs, horizon=5)
    base = price_parameters(const)
    assert price_parameters(const, l_utility="target") == base  # no target: the horizon
    assert price_parameters(const, l_jobs="time_sensitive") == base  # none time-sensitive: all jobs
    jobs = (_one_pool_job(0, Sigmoid(10.0, 5.0, 1.0)), _one_pool_job(1, Sigmoid(10.0, 0.5, 1.0)))
    crit = Workload(cluster, jobs, horizon=8)
    only = price_parameters(crit, l_jobs="time_sensitive")
    assert only.log_l1 > price_parameters(crit).log_l1  # the time-critical job no longer sets L


def test_l_scale_scales_l_and_only_l():
    p = PriceParameters.of([10.0, 20.0], [5.0, 5.0], 1e-3, 1e-4)
    assert p.scaled(1.0, 1.0) == p.scaled(1.0) == p
    q = p.scaled(1.0, 100.0)
    assert q.log_l1 == pytest.approx(p.log_l1 + math.log(100.0))
    assert q.log_l2 == pytest.approx(p.log_l2 + math.log(100.0))
    np.testing.assert_array_equal(q.log_u1, p.log_u1)
    big = p.scaled(1.0, 1e6)  # L = 1000 > U: U floored at the new L
    np.testing.assert_array_equal(big.log_u1, np.full(2, big.log_l1))
    assert big.alpha == 1.0


def test_oasis_with_default_parameters_gives_the_same_frame():
    wl = _workload(3)
    plain = simulate(wl, OASiS.from_workload(wl), seed=3).jobs
    explicit = OASiS.from_workload(wl, l_scale=1.0, l_utility="horizon", l_jobs="all", l_statistic="min")
    pd.testing.assert_frame_equal(plain, simulate(wl, explicit, seed=3).jobs)
    run = {"policy": "oasis", "seed": 3, **SMALL}
    pd.testing.assert_frame_equal(
        ox.utility_run(run),
        ox.utility_run(
            {
                **run,
                "policy_params": {
                    "l_scale": 1.0,
                    "l_utility": "horizon",
                    "l_jobs": "all",
                    "l_statistic": "min",
                },
            }
        ),  # fmt: skip
    )


def test_from_workload_passes_the_l_definition_and_l_scale_reaches_the_prices():
    wl = _workload(4)
    pol = OASiS.from_workload(wl, l_utility="target")
    assert pol.prices == price_parameters(wl, l_utility="target")
    scaled = OASiS.from_workload(wl, l_scale=1e3)
    scaled.prepare(wl.cluster, wl.horizon)
    assert scaled._params.log_l1 == pytest.approx(price_parameters(wl).log_l1 + math.log(1e3))


@pytest.mark.parametrize(
    ("kw", "msg"),
    [
        ({"l_utility": "end"}, "l_utility must be one of .*'end'"),
        ({"l_jobs": "critical"}, "l_jobs must be one of .*'critical'"),
        ({"l_statistic": "mean"}, "l_statistic must be one of .*'mean'"),
        ({"l_scale": 0}, "l_scale must be a finite number > 0, got 0"),
        ({"l_scale": math.inf}, "l_scale must be a finite number > 0, got inf"),
        ({"l_scale": True}, "l_scale must be a finite number > 0, got True"),
    ],
)
def test_bad_values_name_the_parameter(kw, msg):
    wl = _workload(0)
    with pytest.raises(ValueError, match=msg):
        OASiS.from_workload(wl, **kw)
    if "l_scale" not in kw:
        with pytest.raises(ValueError, match=msg):
            price_parameters(wl, **kw)
    else:
        with pytest.raises(ValueError, match="l_scale must be a finite number > 0"):
            PriceParameters.of([1.0], [1.0], 0.1, 0.1).scaled(1.0, kw["l_scale"])


# ------------------------------------------------------------------------ readings module


def test_readings_and_grid_shape():
    assert list(orr.READINGS)[0] == "default"
    fixed = {n: r.fixed for n, r in orr.READINGS.items()}
    assert [n for n, f in fixed.items() if f == "after"] == [orr._cap_name(c) for c in orr.ALPHA_CAPS]
    for mode in ("paper", "quick"):
        a = orr.AXES[mode]
        grid = orr.readings_grid(mode)
        n_pts, n_seeds = len(a["n_jobs"]), len(a["seeds"])
        runs = [p for p in grid if p["experiment"] == "job"]
        # 3 L definitions on Fig. 3 (every load) and Fig. 4 (one point), the L factors on Fig. 6
        assert len(runs) == (3 * (n_pts + 1) + len(orr.L_FACTORS) * n_pts) * n_seeds
        assert len([p for p in grid if p["experiment"] == "bound"]) == n_pts * n_seeds
        assert not any(p["reading"] == "default" or orr.READINGS[p["reading"]].fixed == "after" for p in runs)
        keys = [tuple(sorted(p.items(), key=lambda kv: kv[0])) for p in grid]
        assert len(set(keys)) == len(keys)
    assert len(orr.readings_grid("paper")) == 175
    with pytest.raises(ValueError, match="mode must be one of"):
        orr.readings_grid("full")


def test_reading_run_default_equals_utility_run_and_bound_bounds_it():
    p = {"reading": "default", "experiment": "job", "figure": "fig3", "seed": 1, **SMALL}
    got = orr.reading_run(p)
    want = ox.utility_run({"policy": "oasis", "seed": 1, **SMALL})
    pd.testing.assert_frame_equal(got.drop(columns="policy"), want)
    tgt = orr.reading_run({**p, "reading": "L at target completion"})
    assert list(tgt.columns) == list(orr.RESULT_COLUMNS)
    bound = orr.reading_run({**p, "reading": "ceiling", "experiment": "bound"})
    assert len(bound) == len(got) and (bound["status"] == "bound").all()
    for frame in (got, tgt):
        assert (frame["utility"].to_numpy() <= bound["utility"].to_numpy() * (1 + 1e-9) + 1e-12).all()
    six = orr.reading_run({**p, "reading": "U/L via L, 1e+-30, 1e+-300", "figure": "fig6", "factor": 1e-30})
    assert len(six) == len(got)


@pytest.mark.parametrize(
    ("change", "msg"),
    [
        ({"reading": "nope"}, "reading must be"),
        ({"experiment": "bound"}, "does not go with reading"),
        ({"figure": "fig5"}, "figure must be one of"),
        ({"reading": "L from the median", "figure": "fig6"}, "runs on"),
        ({"factor": 0.5}, "factor is a parameter of the Fig. 6 readings only"),
        ({"reading": "U/L via L, 1e+-30, 1e+-300", "figure": "fig6", "factor": 0.5}, "factor must be one of"),
        ({"seed": -1}, "seed must be an integer >= 0"),
        ({"extra": 1}, "unknown parameter"),
    ],
)
def test_reading_run_bad_input(change, msg):
    p = {"reading": "default", "experiment": "job", "figure": "fig3", "seed": 0, **SMALL, **change}
    with pytest.raises(ValueError, match=msg):
        orr.reading_run(p)


def _job_rows(policy: str, utilities, classes=None, cmt=None) -> pd.DataFrame:
    n = len(utilities)
    return pd.DataFrame(
        {
            "policy": policy, "job_id": np.arange(n), "job_name": "j", "arrival": 0, "target": 5.0,
            "utility_class": classes or ["time-sensitive"] * n, "gamma1": 10.0, "status": "finished",
            "admitted": True, "completion_slot": 3.0, "utility": list(utilities),
            "completion_minus_target": cmt if cmt is not None else [0.0] * n,
        }
    )  # fmt: skip


def _synthetic_frame() -> pd.DataFrame:
    """Two loads x one seed; OASiS loses under the default and wins under 'L from the median'."""
    classes = ["time-sensitive"] * 3 + ["time-critical"] * 3
    parts = []
    for n in (10, 20):
        size = {"n_jobs": n, "T": 30, "H": 2, "K": 2, "seed": 0}
        for pol, u in (("oasis", 1.0), ("drf", 2.0), ("fifo", 0.5)):
            j = _job_rows(pol, [u * n / 10] * 6, classes, [3.0 if pol == "oasis" else 1.0] * 6)
            parts.append(j.assign(reading="default", experiment="job", figure="fig3", factor=None, **size))
            if n == 20:
                parts.append(
                    j.assign(reading="default", experiment="job", figure="fig4", factor=None, **size)
                )
        for name in ("L from the median", "L at target completion", "L over time-sensitive jobs"):
            u = 3.0 * n / 10 if name == "L from the median" else 0.1
            for fig in ("fig3", "fig4") if n == 20 else ("fig3",):
                j = _job_rows("oasis", [u] * 6, classes, [0.0] * 6)
                parts.append(j.assign(reading=name, experiment="job", figure=fig, factor=None, **size))
        for x in (0.2, 1.0, 5.0):
            j = _job_rows("oasis", [2.0 if x < 1 else 1.0] * 6)
            parts.append(j.assign(reading="default", experiment="job", figure="fig6", factor=x, **size))
        for x in orr.L_FACTORS:
            j = _job_rows("oasis", [1.0] * 6)
            parts.append(j.assign(reading="U/L via L, 1e+-30, 1e+-300", experiment="job", figure="fig6",
                                  factor=x, **size))  # fmt: skip
        b = _job_rows("ceiling", [10.0] * 6).assign(status="bound")
        parts.append(b.assign(reading="ceiling", experiment="bound", figure="fig3", factor=None, **size))
    return pd.concat(parts, ignore_index=True)


def test_readings_rows_on_a_synthetic_frame():
    frame = _synthetic_frame()
    card = pd.DataFrame(
        {"figure": ["Fig. 3"], "quantity": ["best scheme at every load"], "paper": ["oasis!"]}
    )
    ratios = pd.DataFrame({"servers": [3, 3], "gamma1_range": ["[1, 100]"] * 2, "ratio": [1.0, 1.3],
                           "milp_status": ["optimal"] * 2, "two_alpha": [10.0] * 2, "opt": [2.0, 2.6],
                           "oasis_utility": [2.0, 2.0]})  # fmt: skip
    rows = orr.readings_rows(frame, card, ratios=ratios)
    table = readings.readings_table(rows)
    best = table[table["quantity"] == "best scheme at every load"].set_index("reading")
    assert best.loc["default", "paper"] == "oasis!"  # joined on the scorecard
    assert best.loc["default", "verdict"] == "does not reproduce"
    assert best.loc["L from the median", "verdict"] == "restores the claim"
    assert best.loc["L at target completion", "verdict"] == "does not restore"
    assert best.loc["ceiling", "verdict"] == "within the ceiling"
    assert "ceiling / best baseline 10: 5, 20: 2.5" in best.loc["ceiling", "ours"]
    fig4 = table[table["figure"] == "Fig. 4"]
    assert set(fig4["reading"]) == {"default", "L from the median", "L at target completion",
                                    "L over time-sensitive jobs"}  # fmt: skip
    fig6 = table[table["figure"] == "Fig. 6"].set_index("reading")
    assert fig6.loc["default", "verdict"] == "reproduces"
    assert fig6.loc["U/L via L, 1e+-30, 1e+-300", "verdict"] == "breaks the claim"
    fig5 = table[table["figure"] == "Fig. 5"].set_index("reading")
    assert (
        fig5.loc["ceiling", "holds"]
        and "optimality on 2 of 2 instances; OASiS reaches it on 1" in fig5.loc["ceiling", "ours"]
    )
    assert list(table["figure"].drop_duplicates()) == ["Fig. 3", "Fig. 4", "Fig. 5", "Fig. 6"]


def test_readings_rows_needs_every_point_and_seed_and_the_default():
    frame = _synthetic_frame()
    card = pd.DataFrame({"figure": [], "quantity": [], "paper": []})
    gap = frame[~((frame["reading"] == "L from the median") & (frame["n_jobs"] == 10))]
    with pytest.raises(ValueError, match="'L from the median', fig3: 1 of 2 points and seeds missing"):
        orr.readings_rows(gap, card)
    with pytest.raises(ValueError, match="no run of the 'default' reading"):
        orr.readings_rows(frame[frame["reading"] != "default"], card)
    with pytest.raises(ValueError, match="lacks columns"):
        orr.readings_rows(frame.drop(columns="factor"), card)
    with pytest.raises(TypeError):
        orr.readings_rows(frame, "card")


def test_default_rows_shape_and_bad_cap():
    size = {"n_jobs": 10, "T": 30, "H": 2, "K": 2, "seed": 0}
    j3 = _job_rows("oasis", [1.0]).assign(**size)
    j6 = _job_rows("oasis", [1.0]).drop(columns="policy").assign(u_scale=0.5, estimate="50%", **size)
    cap = _job_rows("oasis", [1.0]).drop(columns="policy").assign(max_log_ratio=10.0, **size)
    out = orr.default_rows(j3, j3, j6, cap)
    assert list(out.columns) == [*orr._PARAMS, *orr.RESULT_COLUMNS]
    assert list(out["reading"]) == ["default"] * 3 + [orr._cap_name(10.0)]
    assert list(out["figure"]) == ["fig3", "fig4", "fig6", "fig3"]
    assert out["factor"].iloc[2] == 0.5
    with pytest.raises(ValueError, match="no reading of READINGS"):
        orr.default_rows(j3, j3, j6, cap.assign(max_log_ratio=7.0))
    with pytest.raises(ValueError, match="missing column"):
        orr.default_rows(j3.drop(columns="seed"), j3, j6)


def test_time_sensitive_rule_agrees_with_utility_classes():
    from dlsched.oasis.model import GAMMA2_SENSITIVE, utility_classes
    from dlsched.oasis.policy import _SENSITIVE_MAX, _time_sensitive

    assert _SENSITIVE_MAX == GAMMA2_SENSITIVE[1]
    for g2 in (0.0, 0.01, 0.5, 1.0, 1.0 + 1e-12, 4.0, 6.0):
        spec = _one_pool_job(0, Sigmoid(10.0, g2, 3.0))
        assert _time_sensitive(spec) == (utility_classes([g2])[0] == "time-sensitive"), g2
    assert not _time_sensitive(_one_pool_job(0, ConstantUtility(1.0)))

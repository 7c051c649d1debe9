"""PD-ORS findings (dlsched.pdors.findings): the sentences the notebooks print, on small hand-made
tables whose answers are known."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from dlsched.core.claims import Claim
from dlsched.pdors import experiments as px
from dlsched.pdors import findings as fd


def _totals(
    x: str,
    values: dict[str, dict[int, list[float]]],
    *,
    finished=None,
    admitted=None,
    jobs=10,
    finishable=9,
    machines=None,
) -> pd.DataFrame:
    """run_totals-like rows: values[policy][x] = total utility per seed."""
    rows = []
    for policy, per_x in values.items():
        for xv, totals in per_x.items():
            for seed, u in enumerate(totals):
                rows.append(
                    {
                        "policy": policy,
                        x: xv,
                        "seed": seed,
                        "jobs": jobs,
                        "finishable": finishable,
                        "admitted": (admitted or {}).get(policy, jobs),
                        "finished": (finished or {}).get(policy, 5),
                        "total_utility": float(u),
                        "internal_share": 0.5,
                    }
                )
    out = pd.DataFrame(rows)
    if machines is not None:
        out["n_machines"] = machines
    return out


# ------------------------------------------------------------------------------ notebook 32


def test_fig6_reading_best_everywhere_and_narrowing():
    t = _totals(
        "n_machines",
        {"drf": {10: [50, 50], 30: [90, 110]}, "pdors": {10: [100, 100], 30: [110, 130]}},
        finished={"drf": 4, "pdors": 7},
        admitted={"pdors": 7},
    )
    text = fd.fig6_reading(t)
    assert "PD-ORS earns 100, 120 on 10, 30 machines (mean over 2 seed(s))" in text
    assert "best scheme at every machine count" in text and "by 2x on 10 machines and 1.2x on 30" in text
    assert "PD-ORS admits 7 (of the 9 that could finish at all) and finishes 7" in text
    assert "narrows from 2 to 1.2" in text and "rises with every machine count" in text


def test_fig6_reading_not_best_and_not_monotone():
    t = _totals("n_machines", {"dorm": {10: [10], 20: [300]}, "pdors": {10: [200], 20: [150]}})
    text = fd.fig6_reading(t)
    assert "best scheme at 1 of 2 machine counts (not on 20 machines)" in text
    assert "not monotone: 200 on 10 machines, 150 on 20." in text
    assert "seed-to-seed" not in text  # one seed: no spread to compare with


def test_fig7_reading_scale_missed_and_spread():
    t = _totals(
        "n_jobs",
        {"drf": {10: [100, 100], 50: [1000, 1100]}, "pdors": {10: [90, 110], 50: [1400, 1500]}},
        machines=100,
        finished={"drf": 8, "pdors": 9},
    )
    missed = pd.DataFrame(
        {"missed": [1.0, 2.0], "rejected": [1.0, 2.0], "other_utility": [10.0, 30.0], "gained": [0.0, 3.0]},
        index=pd.Index([10, 50], name="n_jobs"),
    )
    text = fd.fig7_reading(t, missed, axis_top=1200)
    assert "PD-ORS 100, 1450; DRF 100, 1050" in text
    assert "best scheme at 1 of 2 job counts (not at 10 jobs)" in text
    assert "within PD-ORS's seed-to-seed range at 1 of 2" in text
    assert "At 50 jobs, of the 9 that could finish by T, PD-ORS finishes 9, DRF finishes 8" in text
    assert "grows with every added batch" in text
    assert "PD-ORS earns 1450, 21 % above the top of the paper's y axis (~1200)" in text
    assert "misses 1-2 jobs that DRF finishes (10-30 of DRF's utility per run), all of them rejected" in text


def test_fig7_reading_off_paper_size():
    t = _totals("n_jobs", {"drf": {10: [100], 20: [90]}, "pdors": {10: [120], 20: [80]}}, machines=20)
    missed = pd.DataFrame(
        {"missed": [0.0, 2.0], "rejected": [0.0, 1.0], "other_utility": [0.0, 5.0], "gained": [1.0, 0.0]},
        index=[10, 20],
    )
    text = fd.fig7_reading(t, missed)
    assert "do not include the paper's 50 jobs on 100 machines" in text
    assert "does not grow" in text and "0-1 per run rejected on arrival" in text


def test_readings_reading():
    table = pd.DataFrame(
        {
            "reading": ["spec (default)", "w = D", "DRF (for reference)"],
            "seeds": [5, 5, 5],
            "total_utility": [1000.0, 1300.0, 1000.0],
            "admitted": [40.0, 45.0, 50.0],
            "rejected": [10.0, 5.0, 0.0],
            "vs_reference": [1.0, 1.3, 1.0],
        }
    )
    text = fd.readings_reading(table)
    assert "spec (default) 1000; w = D 1300 (1.3x); DRF 1000." in text
    assert "PD-ORS rejects 10 (spec (default)); 5 (w = D) of the 50 jobs." in text
    assert "the spec's readings earn 1x its total, the best reading (w = D) 1.3x" in text


def _effects(sharing: list[float]) -> pd.DataFrame:
    oasis = pd.Series([100.0, 200.0], index=pd.Index([10, 50], name="n_machines"))
    nocoloc = oasis + pd.Series(sharing, index=oasis.index)
    pdors = nocoloc + 300.0
    return pd.DataFrame(
        {
            "oasis_split": oasis,
            "pdors_nocoloc": nocoloc,
            "pdors": pdors,
            "pdors/oasis": pdors / oasis,
            "sharing": nocoloc - oasis,
            "internal_bus": pdors - nocoloc,
            "admitted oasis_split": [5.0, 6.0],
            "admitted pdors_nocoloc": [4.0, 5.0],
            "admitted pdors": [8.0, 9.0],
            "pdors internal share": [0.5, 0.75],
        }
    )


def test_oasis_reading_with_losing_sharing():
    missed = pd.DataFrame({"missed": [0.0, 3.0], "rejected": [0.0, 3.0]}, index=pd.Index([10, 50]))
    text = fd.oasis_reading(_effects([50.0, -20.0]), "n_machines", missed=missed)
    assert "PD-ORS earns 450, 480 against OASiS's 100, 200 (10, 50 machines): 2.4-4.5 times as much" in text
    assert "above OASiS at every machine count" in text
    assert "10: +50, 50: -20" in text and "10: +300, 50: +300" in text
    assert "50-75 % of PD-ORS's running job-slots" in text
    assert "larger part of the gain at every machine count" in text
    assert "Where machine sharing alone loses (50 machines)" in text and "misses 3 jobs" in text


def test_oasis_reading_sharing_never_loses():
    text = fd.oasis_reading(
        _effects([10.0, 20.0]), "n_machines", missed=pd.DataFrame({"missed": [], "rejected": []})
    )
    assert "never loses" in text


def test_fig10_reading():
    per_run = pd.DataFrame(
        {
            "policy": ["pdors", "pdors", "drf", "drf", "pdors_nocoloc", "pdors_nocoloc", "fifo", "fifo"],
            "seed": [0, 1, 0, 1, 0, 1, 0, 1],
            "finished": [8, 10, 9, 9, 4, 4, 1, 2],
            "median_training_time": [2.0, 4.0, 10.0, 12.0, 1.0, 1.0, 0.5, 0.5],
        }
    )
    pooled = pd.DataFrame(
        {
            "policy": ["drf", "fifo", "pdors", "pdors_nocoloc"],
            "median_jct": [11.0, 30.0, 4.0, 9.0],
            "internal_share": [0.0, 0.0, 0.72, 0.0],
        }
    )
    text = fd.fig10_reading(per_run, pooled)
    assert "FIFO 0.5, PD-ORS w/o co-location 1, PD-ORS 3, DRF 11." in text
    # FIFO finishes too few jobs to be ranked, the ablation is not one of the paper's schemes
    assert "finished jobs per run: PD-ORS." in text
    verdict = px.fig10_comparison(per_run, min_finished=3).set_index("quantity")
    assert verdict.loc["shortest median training time", "ours"].startswith("pdors")
    assert (
        "72 % of PD-ORS's finished jobs" in text
        and "FIFO 1.5, PD-ORS w/o co-location 4, PD-ORS 9, DRF 9;" in text
    )
    assert "DRF 11." in text.splitlines()[-1]


def test_scorecard_keeps_judged_rows_with_ours_and_summary():
    t6 = px.fig6_comparison(_totals("n_machines", {"drf": {10: [50]}, "pdors": {10: [100]}}), setting="s")
    t10 = pd.DataFrame(
        {
            "quantity": ["setting", "shortest"],
            "paper": ["x", "pdors"],
            "ours": ["y", "drf"],
            "match": ["-", "no"],
        }
    )
    card = fd.scorecard({"Fig. 6": t6, "Fig. 10": t10})
    assert list(card.columns) == ["figure", "quantity", "paper", "ours", "match"]
    assert list(card["figure"]) == ["Fig. 6", "Fig. 6", "Fig. 10"] and "-" not in set(card["match"])
    text = fd.summary_reading(card)
    assert text.startswith("3 judged claims: 2 yes, 0 partly, 1 no.")
    assert "Fig. 10 shortest (no)" in text
    assert fd.summary_reading(card[card["match"] == "yes"]).endswith("Every judged claim is reproduced.")


# ------------------------------------------------------------------------------ notebook 31


def test_alpha_and_lemma_readings():
    prices = pd.DataFrame({"family": ["a", "a", "b"], "max_ln_U_over_L": [10.0, 12.0, 20.0]})
    assert fd.alpha_reading(prices).endswith("the 3 instances: a: 10-12; b: 20.")
    runs = pd.DataFrame(
        {
            "family": ["a", "a", "a"],
            "claim": ["PD-ORS Lemma-1 analogue", "x", "PD-ORS Lemma-1 analogue"],
            "holds": [True, True, False],
            "admissions": [3, math.nan, 4],
            "violations": [0, math.nan, 2],
        }
    )
    assert fd.lemma_reading(runs) == "The Lemma-1 analogue fails on a: 2 of 7 admissions, in 1 of 2 runs."


def test_coverage_and_scale_readings():
    details = {
        "levels": 10,
        "levels_over_delta": 0,
        "max_violation_rate": 0.0,
        "pooled_violation_rate": 0.0,
        "mean_cost_over_lp": 2.5,
        "pooled_feasible_rate": 0.08,
    }
    text = fd.coverage_reading({"31R": Claim("c", True, details)}, delta=0.1)
    assert "G_delta of (31R): Pr[(26) violated] at most 0 at any of 10 levels" in text and "8.0 %" in text
    scale = pd.DataFrame(
        {
            "fraction": [0.0, 0.1, 1.0, 0.0, 0.1, 1.0],
            "violation_rate": [0.5, 0.05, 0.0] * 2,
            "feasible_rate": [0.2, 0.3, 0.1] * 2,
            "cost_over_lp": [1.0, 1.1, 2.0] * 2,
        }
    )
    text = fd.scale_reading(scale, delta=0.1)
    assert "from fraction 0.1 on (0.05 there)" in text and "highest at fraction 0.1 (30 %)" in text
    assert "At fraction 1 (G_delta itself) it is 10 % and the mean cost is 2 times LP*" in text


def test_ratio_reading():
    ratios = pd.DataFrame(
        {
            "family": ["p", "p", "p"],
            "seed": [0, 1, 2],
            "ratio_best": [1.0, 3.0, math.inf],
            "two_alpha_rho": [20.0, 30.0, 25.0],
            "above_bound": [False, False, True],
            "rho": [1.0, 2.0, 9.0],
            "realized_above_opt": [True, False, False],
            "lost_levels": [1, 2, 3],
        }
    )
    text = fd.ratio_reading(ratios)
    assert "p (3 instances): OPT/ALG median 3, largest finite 3; within 2 % of OPT on 1" in text
    assert "on 1 (seeds 2)" in text and "(at least 20) on 1" in text and "lost levels 6 in total" in text


def test_quantisation_reading():
    rel = pd.DataFrame(
        {
            "family": ["a"] * 4 + ["b"] * 4,
            "levels": [10, 25, 100, 400] * 2,
            "relative_utility": [0.8, 0.995, 1.0, 1.0, 0.9, 1.1, 0.95, 1.0],
        }
    )
    text = fd.quantisation_reading(rel, default=100)
    assert (
        "a: total utility relative to levels=400 is 0.8 at the coarsest levels=10, 0.995-1 above it; "
        "within 1.0 % from levels=25 on; the default levels=100 gives 1." in text
    )
    assert "b:" in text and "from no coarser levels on" in text and "gives 0.95." in text


# ------------------------------------------------------------------------------ notebook 30


def test_fact1_and_price_readings():
    rates = pd.DataFrame(
        {"case": ["(a) x", "(d) y"], "bandwidth": ["external", "internal"], "samples_per_slot": [10.0, 115.0]}
    )
    assert fd.fact1_reading(rates).startswith("Only (d) trains at the internal bandwidth, 11.5 times")
    prices = pd.DataFrame({"rho_at_1": [0.874, 0.95, math.nan]}, index=["gpu", "cpu", "mem"])
    assert fd.price_reading(prices, 3.9e-14) == (
        "L is about 10^-14; a price reaches 1 only at 87-95 % utilisation (rho_at_1 of gpu, cpu)."
    )


def test_tau_reading():
    durations = pd.DataFrame({"within_T20": [0.95, 0.6]}, index=["seconds", "slots"])
    offered = {"seconds": pd.Series([0.44, 0.2]), "slots": pd.Series([11.36, 6.0])}
    runs = pd.DataFrame(
        {
            "reading": ["seconds", "slots", "seconds", "slots"],
            "seed": [0, 0, 1, 1],
            "finishable": [47, 25, 45, 23],
            "admitted": [40, 5, 38, 7],
            "finished": [40, 5, 38, 7],
            "total_utility": [1400.0, 60.0, 1500.0, 140.0],
        }
    )
    text = fd.tau_reading(durations, offered, runs, horizon=20, n_jobs=50, paper_top=1200)
    lines = text.splitlines()
    assert lines[0].startswith(
        '"slots": the cluster can do at most 8.8 % of the offered work within T=20; 40 %'
    )
    assert "total utility of 100 (mean over 2 seed(s), 60-140)" in lines[0]
    assert "offered work is 44 % of the busiest resource's capacity" in lines[1]
    assert '"seconds" earns 1.21 times that' in lines[2] and '"seconds" / "slots" = 14.5' in lines[2]


def test_decision_and_theta_readings():
    payoff = pd.DataFrame(
        {
            "completion": [3, 4, 5, 6],
            "cost": [math.inf, math.inf, 2e-8, 2e-8],
            "utility": [9.0, 8.0, 7.0, 6.0],
            "chosen": [False, False, True, False],
        }
    )
    schedule = pd.DataFrame(
        {"slot": [4, 5], "units": [50, 50], "workers": [4, 4], "ps": [1, 1], "machines": [1, 1]}
    )
    text = fd.decision_reading(payoff, schedule, arrival=3, d_min=1)
    assert text.startswith("Before slot a_i+2 no schedule finishes the job")
    assert "about 10^-8" in text and "the earliest feasible slot (a_i+2)" in text
    assert "d_i^min is 1 slot(s), the schedule uses 2" in text and "4 worker(s) and 1 PS" in text
    inf = math.inf
    table = pd.DataFrame(
        {
            "v": [0, 1, 2, 3],
            "internal": [0.0, 1.0, 1.0, inf],
            "lp": [inf, 2.0, inf, inf],
            "external": [inf, 5.0, inf, inf],
        }
    )
    detail = pd.DataFrame({"share_floor": [1.5, 0.2]})
    text = fd.theta_reading(table, detail)
    assert "internal branch is feasible up to 2 units, the LP relaxation of the external case up to 1" in text
    assert "exists up to 1 unit(s)" in text and "always cheaper" in text and "on 1 of them" in text


def test_bandwidth_reading():
    branches = pd.DataFrame(
        {
            "internal": [10, 10],
            "external": [0, 3],
            "none": [0, 0],
            "vmax_internal": [10, 10],
            "vmax_lp": [10, 100],
            "vmax_external": [1, 15],
            "lp_over_internal": [6.5, 0.7],
        },
        index=pd.Index([10.0, 100.0], name="b_external"),
    )
    sweep = pd.DataFrame({"lp": [1.0, 2.0, 1.0], "external": [2.0, math.inf, 3.0]})
    text = fd.bandwidth_reading(branches, sweep, reference=10.0)
    assert "wins every level it can hold at every bandwidth" in text
    assert "6.5 times the internal cost at 10 Gbps" in text and "0.7 at 100 Gbps" in text
    assert (
        "only 1 and 15" in text
        and "wins 3 level(s), all at 100 Gbps" in text
        and "costs 2-3 times LP*" in text
    )


def test_small_run_reading():
    jobs = pd.DataFrame(
        {
            "status": ["finished", "finished", "rejected", "rejected"],
            "admitted": [True, True, False, False],
            "planned_completion": [5.0, 7.0, math.nan, math.nan],
            "completion_time": [4.5, 7.9, math.nan, math.nan],
            "payoff": [3.0, 2.0, 0.0, 0.0],
        }
    )
    timeline = pd.DataFrame({"slot": [0, 1], "on_one_machine": [2, 1], "split": [0, 0]})
    alone = pd.DataFrame(
        {
            "job": [2, 3],
            "arrival": [0, 1],
            "gamma": [9.0, 2.0],
            "units_internal": [0, 4],
            "units_external": [0, 0],
            "payoff_alone": [0.0, 12.5],
        }
    )
    usage = pd.DataFrame({"gpu": [0.2, 0.557]})
    text = fd.small_run_reading(jobs, timeline, alone, usage)
    assert (
        "2 of the 2 admitted jobs finished, 2 of them by the end of their planned slot (1 in an earlier slot)"
        in text
    )
    assert "3 job-slots ran on one machine and 0 were split" in text
    assert "1 of them are still rejected, 1 because neither branch" in text and "(gamma 9)" in text
    assert "1 lost to the jobs before them (alone: payoff 12.5)" in text
    assert "At most 56 % of the GPUs" in text


def test_missing_columns_are_named():
    with pytest.raises(ValueError, match="total_utility"):
        fd.fig6_reading(pd.DataFrame({"policy": ["pdors"], "n_machines": [1]}))

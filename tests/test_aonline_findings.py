"""dlsched.aonline.findings: the sentences the A_online notebooks print, on small hand-made tables."""

from __future__ import annotations

import pandas as pd
import pytest

from dlsched.aonline import experiments as ax
from dlsched.aonline import findings as fd


def _totals(x: str, values: dict[str, list[float]], xs=(10, 20), seeds=(0, 1), **cols) -> pd.DataFrame:
    """run_totals-like rows: one per (scheme, x, seed); ``values`` is the tct per x of each scheme
    (the same for every seed); other columns constant unless given as {scheme: [per x]}."""
    rows = []
    for scheme, tcts in values.items():
        for i, v in enumerate(xs):
            for s in seeds:
                row = {"scheme": scheme, x: v, "seed": s, "tct": float(tcts[i])}
                for c, spec in cols.items():
                    row[c] = float(spec[scheme][i]) if isinstance(spec, dict) else float(spec)
                rows.append(row)
    return pd.DataFrame(rows)


RANK_COLS = dict(
    wait=100.0, workers=5.0, rounds_waited=0.5, max_rounds_waited=3.0, window_fill=0.8, narrow_share=0.5
)


def test_ranking_reading_names_where_aonline_wins_and_loses():
    t = _totals(
        "n_jobs",
        {"aonline": [90, 300], "drf": [100, 200], "fifo": [400, 500], "batchsche": [95, 320]},
        **RANK_COLS,
    )
    text = fd.ranking_reading(t, "n_jobs")
    assert "A_online 90, 300" in text
    assert "best of the paper's schemes at J = 10 (0.947 times the best other)" in text
    assert "it is not at J = 20 (DRF better, A_online 1.5 times it)" in text
    assert "BatchSche / A_online: 1.06-1.07." in text
    assert "mean of 2 seed(s)" in text


def test_ranking_reading_needs_a_rival():
    t = _totals("n_jobs", {"aonline": [1, 2]}, **RANK_COLS)
    with pytest.raises(ValueError, match="need aonline"):
        fd.ranking_reading(t, "n_jobs")


def _fig9(lead_at: list[float]) -> tuple[pd.DataFrame, pd.DataFrame]:
    pre = [100.0, 100.0]
    t = _totals("n_jobs", {"aonline": [100 * (1 - q) for q in lead_at], "preemptive+overhead+nodelay": pre})
    return ax.fig9_comparison(t, setting="test"), t


@pytest.mark.parametrize(
    ("lead", "verdict"),
    [
        ([0.05, 0.02], "yes"),
        ([0.05, 0.3], "partly"),
        ([0.3, 0.4], "partly"),
        ([0.05, -0.1], "partly"),
        ([-0.1, -0.2], "no"),
    ],
)
def test_slightly_better(lead, verdict):
    table, t = _fig9(lead)
    out = fd.slightly_better(table, t, "n_jobs")
    judged = out[out["match"] != "-"]
    assert judged["match"].tolist() == [verdict]
    assert "slightly" in judged["ours"].iloc[0] or "nowhere" in judged["ours"].iloc[0]
    assert out.loc[out["match"] == "-", "ours"].tolist() == table.loc[table["match"] == "-", "ours"].tolist()


def test_slightly_better_rejects_a_foreign_table():
    table, t = _fig9([0.05, 0.05])
    with pytest.raises(ValueError, match="judged rows"):
        fd.slightly_better(pd.concat([table, table]), t, "n_jobs")


def test_fig6_reading_trend_words():
    falling = _totals(
        "n_edge",
        {"aonline": [0, 0, 0]},
        xs=(100, 200, 300),
        seeds=(0,),
        weighted_tct={"aonline": [300, 200, 150]},
        wait={"aonline": [90, 50, 40]},
        rounds_waited={"aonline": [0.9, 0.5, 0.3]},
    )
    text = fd.fig6_reading(falling)
    assert "300, 200, 150: it falls at every step" in text
    assert "(-50 % from first to last)" in text
    assert "from 90 to 40" in text
    flat = falling.assign(weighted_tct=200.0)
    assert "does not fall" in fd.fig6_reading(flat)


def test_fig5_reading_finds_the_flat_tail():
    F = [1e-10, 1e-6, 1.0]
    t = pd.DataFrame(
        {
            "scheme": "aonline",
            "F": F,
            "seed": 0,
            "weighted_tct": [100.0, 175.0, 175.0],
            "zero_cost": [0.8, 1.0, 1.0],
            "rounds_waited": [0.2, 0.4, 0.4],
        }
    )
    scale = ax.price_scale(F, T=1024, S=201, U=10, capacity=64)
    text = fd.fig5_reading(t, scale, max_weight=1.8)
    assert "same at every F from 1e-06 to 1" in text
    assert "100 % of the jobs are admitted at cost 0" in text
    assert "2TSU = 4.1e+06" in text
    assert "largest job weight is 1.8" in text


def test_preemptive_reading():
    cols = dict(wait=50.0, narrow_share=0.9, preemptions=10.0)
    j = _totals(
        "n_jobs",
        {
            "aonline": [80, 90],
            "preemptive": [100, 100],
            "preemptive+nodelay": [95, 99],
            "preemptive+overhead+nodelay": [96, 99],
        },
        **cols,
    )
    s = _totals(
        "n_edge",
        {
            "aonline": [120, 60],
            "preemptive": [100, 100],
            "preemptive+nodelay": [95, 99],
            "preemptive+overhead+nodelay": [95, 100],
        },
        xs=(100, 300),
        **cols,
    )
    text = fd.preemptive_reading(j, s)
    assert "vs Preemptive: J = 10: 0.8, J = 20: 0.9" in text
    assert "vs Preemptive: S = 100: 1.2, S = 300: 0.6" in text
    assert "Ignoring the upload delay changes Preemptive's total by -5.0 % to -1.0 %" in text
    assert "resumes 10 times per run" in text
    assert "changes its mean total by 0-1 slots" in text


def test_fig11_reading():
    t = _totals("gradient_mb", {"aonline": [100, 110], "preemptive": [150, 150]}, xs=(30.0, 575.0))
    loss = pd.DataFrame({"gradient_mb": [30.0, 575.0], "speed_loss": [0.008, 0.1]})
    text = fd.fig11_reading(t, loss, pd.Series({30.0: 0.5, 575.0: 0.4}))
    assert "A_online's total changes by +10 %" in text and "Preemptive's by 0 %" in text
    assert "from 0.667 to 0.733" in text
    assert "0.8 % of its speed on average at 30 MB and 10 % at 575 MB" in text
    assert "co-locates 40-50 % of its jobs" in text


def test_utilisation_reading():
    cols = dict(util_worker_edge=0.3)
    j = _totals(
        "n_jobs",
        {"aonline": [0, 0], "preemptive": [0, 0]},
        util={"aonline": [0.06, 0.05], "preemptive": [0.02, 0.07]},
        present_slots={"aonline": [2000, 6000], "preemptive": [7000, 8000]},
        **cols,
    )
    s = j.rename(columns={"n_jobs": "n_edge"})
    text = fd.utilisation_reading(j, s)
    assert "6.0 %, 5.0 % (yes for 'falls')" in text
    assert "above A_online's at J = 20, S = 20" in text
    assert "Preemptive 7,000-8,000, A_online 2,000-6,000" in text


def test_fig14_reading():
    def summary(x):
        return pd.DataFrame(
            {
                "instances": [2, 2],
                "optimal": [2, 1],
                "ratio": [1.5, 2.5],
                "ratio_min": [1.2, 2.0],
                "ratio_max": [1.8, 3.0],
                "ratio_fastest": [1.4, 2.0],
                "aonline_wait": [60.0, 400.0],
                "opt_wait": [30.0, 100.0],
                "aonline_run": [6.0, 30.0],
                "opt_run": [4.0, 10.0],
            },
            index=pd.Index([2, 4], name=x),
        )

    text = fd.fig14_reading(summary("n_jobs"), summary("n_edge"))
    assert "Over all 8 instances (6 solved to proven optimality) 2 (1.2-3)" in text
    assert "Waiting parts: A_online 60-400, optimum 30-100" in text
    assert "fastest tie-break the mean ratio is 1.4-2" in text


def test_scorecard_keeps_ours_and_drops_settings():
    t = pd.DataFrame(
        {"quantity": ["setting", "q"], "paper": ["s", "p"], "ours": ["o0", "o1"], "match": ["-", "partly"]}
    )
    card = fd.scorecard({"Fig. 6": t, "Fig. 9": t.assign(match=["-", "no"])})
    assert card.columns.tolist() == ["figure", "quantity", "paper", "ours", "match"]
    assert card["match"].tolist() == ["partly", "no"] and card["ours"].tolist() == ["o1", "o1"]
    assert (
        fd.scorecard_reading(card) == "2 judged claims: 0 yes, 1 partly, 1 no (Fig. 6: partly; Fig. 9: no)."
    )


# ---------------------------------------------------------------- notebook 40


def test_edge_servers_reading():
    servers = pd.DataFrame(
        {
            "pool": ["edge"] * 4 + ["cloud"],
            "worker_slots": [1, 1, 1, 4, 640],
            "ps_slots": [6, 6, 6, 24, 3456],
            "ps_types": [4, 5, 5, 8, 9],
        }
    )
    info = {
        "share_one_worker_slot": 0.75,
        "n_edge": 4,
        "max_edge_worker_slots": 4,
        "edge_worker_slots": 7,
        "edge_ps_slots": 42,
        "cloud_worker_slots": 640,
        "cloud_ps_slots": 3456,
    }
    text = fd.edge_servers_reading(info, servers)
    assert text.startswith("75 % of the 4 edge servers have a single GPU")
    assert "6 PS slots spread over 4-5 PS types" in text
    assert "the cloud holds 640 and 3,456" in text


def test_speed_and_delay_readings():
    speeds = pd.DataFrame(
        {
            "n_s": [4.0, 180.0],
            "comm_s": [0.2, 75.0],
            "slowdown": [1.02, 6.0],
            "d_coloc": [3, 190],
            "d_split": [3, 214],
        }
    )
    text = fd.speed_reading(speeds)
    assert "4-180 s per mini-batch" in text and "at most 6 times" in text and "3-214 split" in text
    delays = pd.DataFrame(
        {"arrival": [10, 100], "tau_first": [16, 128], "tau_lb": [16, 256], "tau_lb_cloud": [32, 256]}
    )
    text = fd.delay_reading(delays)
    assert "on average 17 slots" in text and "for 50 % of the jobs" in text and "50 % more" in text
    assert "on average 89 slots after it arrives" in text


def test_price_reading():
    threshold = pd.DataFrame(
        {
            "resource": ["cloud worker type"] * 2,
            "capacity": [64.0, 64.0],
            "price_one_used": [0.23, 0.23],
            "slots_to_weight": [4.3, 4.3],
            "d": [1, 10],
            "cost": [0.23, 2.3],
        }
    )
    ends = pd.DataFrame(
        {"lambda_full": [6.3e5, 0.0]}, index=pd.Index(["corrected", "literal"], name="reading")
    )
    text = fd.price_reading(threshold, ends)
    assert text.startswith("A full worker slot costs 2TSUF_1 = 6.3e+05.")
    assert "one of 64 slots in use costs a newcomer 0.23 per slot" in text and "after 4 slots" in text


def test_run_reading():
    table = pd.DataFrame(
        {
            "job": [0, 1, 2, 3],
            "tau_first": [16, 16, 64, 128],
            "tau": [16, 32, 128, 512],
            "D": [30, 30, 40, 40],
            "workers": [1, 5, 10, 4],
            "kind": [
                "co-located on an edge server",
                "co-located on the cloud",
                "co-located on the cloud",
                "split: edge + cloud",
            ],
            "completion": [30.0, 60.0, 250.0, 1000.0],
            "window_used": [0.9, 0.9, 0.95, 0.95],
            "cloud_ready": [20, 16, 80, 40],
            "tau_lb_cloud": [32, 32, 128, 128],
        }
    )
    text = fd.run_reading(table)
    assert "5 workers on average of D_j = 35" in text
    assert (
        "25 % trained with a single worker, 1 of them on one single-GPU edge server for up to 14 slots"
        in text
    )
    assert "1 of the 4 jobs started in the first round" in text
    assert "of the other 3, 2 started at tau_lb_cloud" in text
    assert "(1 of them because" in text
    assert "1 waited longer (job 3)" in text


def test_sharing_and_variants_readings():
    sh = pd.DataFrame(
        {"pool": ["cloud", "edge"], "role": ["worker", "ps"], "max_jobs": [1, 1], "shared": [0.0, 0.0]}
    )
    assert fd.sharing_reading(sh).startswith("No (server, type) is shared")
    sh2 = sh.assign(max_jobs=[2, 1], shared=[0.05, 0.0])
    assert (
        fd.sharing_reading(sh2)
        == "Up to 2 jobs share one (server, type) in a slot: cloud worker (5.0 % of the cells in use)."
    )
    comp = pd.DataFrame(
        {
            "total_completion_slots": [100.0, 100.0, 94.0],
            "max_jobs": [1, 1, 2],
            "first_round_share": [0.7, 0.7, 0.75],
        },
        index=pd.Index(["as printed", "F small", "F tiny"], name="variant"),
    )
    text = fd.variants_reading(comp)
    assert "F small changes nothing" in text and "F tiny lowers the total completion time by 6.0 %" in text
    with pytest.raises(ValueError, match="no variant"):
        fd.variants_reading(comp, base="other")


def test_share_threshold_reading():
    jobs = pd.DataFrame({"workers": [2, 4, 0], "tau": [0.0, 0.0, 0.0], "completion": [500.0, 500.0, 0.0]})
    text = fd.share_threshold_reading(jobs, T=1024, S=201, U=10, cloud_workers=64)
    assert "median 1,500" in text and "F is below about 1e-08" in text
    assert fd.share_threshold_reading(jobs.iloc[2:], T=1, S=1, U=1, cloud_workers=1) == "No job ran."


# ---------------------------------------------------------------- notebook 41


def test_duals_reading():
    duals = pd.DataFrame(
        {
            "reading": ["literal", "literal", "corrected", "corrected"],
            "min_price": [-1.0, 0.0, 0.0, 0.0],
            "negative_share": [0.5, 0.0, 0.0, 0.0],
            "dual_over_ip": [900.0, float("nan"), 200.0, 400.0],
            "holds": [False, True, True, True],
        }
    )
    text = fd.duals_reading(duals)
    assert "(5b) fails in 1 of 2 batches" in text and "round 50 % (median 50 %)" in text
    assert "holds in 2 of 2 batches; median D/IP* 300" in text


def test_cost_c_and_ratio_readings():
    cc = pd.DataFrame(
        {
            "claim": ["A_online property 4: COST_C (first_slot)", "A_online property 4: COST_C (total)"],
            "feasible_cases": [10, 10],
            "suboptimal": [2, 0],
        }
    )
    text = fd.cost_c_reading(cc, cc.assign(suboptimal=[0, 0]))
    assert "random windows: 2 of 10 feasible cases; real A_online rounds: 0 of 10" in text
    ratios = pd.DataFrame(
        {
            "family": ["tiny"] * 4,
            "seed": [0, 0, 1, 1],
            "F": [1.0, 1e-4, 1.0, 1e-4],
            "ratio": [3.0, 2.0, 5.0, 2.5],
            "framework_ratio": [1.5, 1.5, 2.0, 2.0],
            "status": ["optimal"] * 4,
        }
    )
    text = fd.ratio_reading(ratios)
    assert "tiny, F = 1: median 4, largest 5; tiny, F = 0.0001: median 2.25, largest 2.5" in text
    assert "median 1.75 (tiny) times OPT. 2 of 2 instances have a proven optimum." in text


def test_formatting_helpers():
    assert fd._num(64980.4) == "64,980" and fd._num(0.2345) == "0.234" and fd._num(7.8e8) == "7.8e+08"
    assert fd._pct(0.0012) == "0.12 %" and fd._pct(0.055) == "5.5 %" and fd._pct(0.4, sign=True) == "+40 %"
    assert fd._span([0.02, 0.4], pct=True) == "2.0-40 %" and fd._span([-0.05, 0.01], pct=True, sign=True) == (
        "-5.0 % to +1.0 %"
    )
    assert fd._span([3.0, 3.0]) == "3" and fd._span([float("nan")]) == "nan"


def test_issue_20_rows_at_the_paper_scale_numbers():
    """The A_online rows issue 20 names, on the means the paper-scale runs gave before the store
    existed (notebook 42's former prose): Fig. 6 falls with S (yes), Fig. 9 is A_online ahead by far
    more than "slightly" (partly), Fig. 12 is flat, not falling (no)."""
    s = (100, 150, 200, 250, 300)
    w = [285719, 209050, 175164, 142654, 140061]
    fig6 = pd.DataFrame({"scheme": "aonline", "n_edge": s, "seed": 0, "weighted_tct": [float(v) for v in w]})
    assert ax.fig6_comparison(fig6)["match"].tolist() == ["-", "yes"]
    fig9 = _totals(
        "n_jobs",
        {"aonline": [76.0, 90.0, 98.0], "preemptive+overhead+nodelay": [100.0, 100.0, 100.0]},
        xs=(100, 200, 300),
    )
    judged = fd.slightly_better(ax.fig9_comparison(fig9), fig9, "n_jobs")
    assert judged["match"].tolist() == ["-", "partly"]
    util = [0.059, 0.060, 0.061, 0.069, 0.059]
    fig12 = pd.DataFrame({"scheme": "aonline", "n_jobs": s, "seed": 0, "util": util})
    assert ax.fig12_comparison(fig12)["match"].tolist()[:2] == ["-", "no"]

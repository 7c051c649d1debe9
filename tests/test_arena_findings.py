"""The sentences of notebooks 00 and 60 (``dlsched.arena.findings``) on small hand-made tables, and
the stored check of notebook 00 (``dlsched.arena.paper.checked_run``) on a tiny point."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dlsched.arena import experiments as ax
from dlsched.arena import findings as fd
from dlsched.arena import mapping, paper

NAN = math.nan


def _summary(rows) -> pd.DataFrame:
    """A summary frame (``ax.summarise``'s columns) from (trace, model, policy, {metric: value})."""
    base = dict.fromkeys(ax.METRICS, NAN) | {"jobs": 10.0, "rejected": 0.0}
    out = [{"trace": t, "model": m, "policy": p, "seeds": 1, **base, **v} for t, m, p, v in rows]
    return pd.DataFrame(out)


def test_fmt_rounds_for_prose():
    assert [fd.fmt(x) for x in (2472.92, 27.66, 0.24301, 3.2e11, 60.0, 0.0, -1.5)] == [
        "2,473", "27.7", "0.243", "3.2e+11", "60", "0", "-1.5",
    ]  # fmt: skip
    assert fd.fmt(NAN) == "n/a"


def test_setup_sentence_names_windows_jobs_seeds_and_scale():
    s = fd.setup_sentence(
        [("philly", 7, "11cb48"), ("itp", 4, 1)], max_jobs=400, seeds=[0, 1, 2], node_scale=0.25
    )
    assert s == (
        "This run: Philly week 7, cluster 11cb48 and ITP week 4, cluster 1; the first 400 jobs of each "
        "window, 3 seeds (0, 1, 2), node_scale 0.25."
    )
    assert "every job" in fd.setup_sentence([("itp", 4, 1)], max_jobs=None, seeds=[0], node_scale=1)
    with pytest.raises(ValueError, match="windows is empty"):
        fd.setup_sentence([], max_jobs=1, seeds=[0], node_scale=1.0)


def test_arena_nodes_keeps_the_widest_job():
    pools = pd.DataFrame(
        {"pool": ["a", "b"], "nodes": [16, 35], "gpus": [128, 280], "max_job_gpus": [16, 64],
         "peak_gpus": [26, 278], "source": ["philly_vc_nodes", "peak"]}
    )  # fmt: skip
    out = fd.arena_nodes(pools, 0.25)
    assert out["arena_nodes"].tolist() == [4, 9] and out["arena_gpus"].tolist() == [32, 72]
    assert fd.arena_nodes(pools, 0.01)["arena_nodes"].tolist() == [2, 8]  # ceil(16 / 8), ceil(64 / 8)
    assert "arena_nodes" not in pools  # not modified in place
    with pytest.raises(ValueError, match="node_scale"):
        fd.arena_nodes(pools, 0)
    lines = fd.headroom_sentences("w", pools, 0.25)
    assert "26 GPUs (20 % of them)" in lines[0] and "the trace's node table" in lines[0]
    assert "4 nodes (32 GPUs)" in lines[0] and "the peak rule" in lines[1]


@pytest.mark.parametrize("scale", [0.25, 0.05])
def test_arena_nodes_is_the_rule_of_trace_workload(scale):
    jobs = mapping.trace_jobs("philly", week=7, cluster="11cb48").iloc[:40]
    pools = fd.arena_nodes(mapping.machine_pools(jobs, "philly"), scale)
    wl = ax.trace_workload(
        np.random.default_rng(0),
        "philly",
        week=7,
        cluster="11cb48",
        model="rigid",
        max_jobs=40,
        node_scale=scale,
    )
    assert wl.cluster.n_servers == int(pools["arena_nodes"].sum())


def test_panel_rank_counts_strictly_better_policies():
    values = [("oasis", 5.0), ("drf", 7.0), ("fifo", 5.0)]
    s = _summary([("t", "oasis", p, {"total_utility": u}) for p, u in values] + [("t", "oasis", "rrh", {})])
    assert fd.panel_rank(s, "t", "oasis", "oasis", "total_utility", "higher") == (2, 3)
    assert fd.panel_rank(s, "t", "oasis", "fifo", "total_utility", "higher") == (2, 3)  # tie shares
    assert fd.panel_rank(s, "t", "oasis", "oasis", "total_utility", "lower") == (1, 3)
    assert fd.panel_rank(s, "t", "oasis", "rrh", "total_utility", "higher") == (0, 3)


def _two_window_summary() -> pd.DataFrame:
    rows = []
    for trace, (mine, drf, tetris) in {"philly": (0.3, 0.25, 0.5), "itp": (2.0, 2.2, 2.1)}.items():
        for policy, jct in (("optimus", mine), ("drf", drf), ("tetris", tetris)):
            rows.append((trace, "optimus", policy, {"mean_jct_h": jct}))
    rows += [
        ("itp", "specon", "specon", {"mean_jct_h": 4.0}),
        ("itp", "specon", "k8s_default", {"mean_jct_h": 4.01}),
    ]
    return _summary(rows)


def test_claim_sentences_read_the_verdicts():
    s = _two_window_summary()
    v = ax.claims(s, margin=0.005)
    lines = fd.claim_sentences(v, s)
    assert len(lines) == 2  # Optimus, SpeCon
    opt = lines[0]
    assert opt.startswith("Optimus (mean JCT, lower is better): on Philly 0.3 h against 0.25 h for DRF")
    assert "(-20.0 %), verdict no, rank 2 of 3 policies in its panel" in opt
    assert "on ITP 2 h against 2.1 h for Tetris" in opt and "verdict yes, rank 1 of 3" in opt
    assert opt.endswith("The claim survives on 1 of 2 windows.")
    assert "verdict tie" in lines[1] and lines[1].endswith("survives on 0 of 1 window (a tie on 1).")
    assert "rank" not in fd.claim_sentences(v)[0]  # without the summary, no rank
    assert fd.claim_sentences(pd.DataFrame()) == []


def test_claim_sentences_say_when_a_side_did_not_run():
    s = _summary([("t", "oasis", "oasis", {"total_utility": 3.0}), ("t", "oasis", "fifo", {})])
    v = ax.claims(s)
    assert v["survives"].tolist() == ["-"]
    assert "on t no verdict (a side did not run)" in fd.claim_sentences(v, s)[0]


def test_context_sentences_per_paper():
    rows = [
        ("t", "pdors", "pdors", {"total_utility": 100.0, "rejected": 2.0, "mean_jct_h": 5.0}),
        ("t", "pdors", "dorm", {"total_utility": 200.0, "mean_jct_h": 1.0}),
        ("t", "pdors", "pdors_nocoloc", {"total_utility": 10.0}),
        ("t", "pdors", "oasis_split", {"total_utility": 50.0}),
        ("t", "aonline", "aonline", {"mean_jct_h": 100.0}),
        ("t", "aonline", "batchsche", {"mean_jct_h": 90.0}),
        ("t", "aonline", "fifo", {"mean_jct_h": 3.0}),
        ("t", "aonline", "preemptive", {"mean_jct_h": 2.0}),
        ("t", "oasis", "oasis", {"total_utility": 5.0, "mean_jct_h": 3.0, "rejected": 1.0}),
        ("t", "oasis", "drf", {"total_utility": 6.0, "mean_jct_h": 0.5}),
        ("t", "optimus", "optimus", {"mean_jct_h": 1.0}),
        ("t", "optimus", "drf", {"mean_jct_h": 2.0}),
        ("t", "optimus", "tetris", {"mean_jct_h": 1.5}),
    ]
    s = _summary(rows)
    v = ax.claims(s)
    (pd_line,) = fd.context_sentences(s, v, "pdors")
    assert pd_line == (
        "PD-ORS on t: 2 of 10 jobs rejected, mean JCT 5 h against Dorm's 1 h; of PD-ORS's utility, "
        "PD-ORS without co-location earns 10 % and OASiS-split earns 50 % "
        "(the paper's order, PD-ORS first, holds)."
    )
    (ao,) = fd.context_sentences(s, v, "aonline")
    assert "A_online 100 h (50 times) and BatchSche 90 h (45 times) against Preemptive's 2 h" in ao
    assert "range over 2-3 h" in ao
    (oa,) = fd.context_sentences(s, v, "oasis")
    assert oa == "OASiS on t: mean JCT 3 h against DRF's 0.5 h, 1 of 10 jobs rejected."
    (op,) = fd.context_sentences(s, v, "optimus")
    assert "Tetris, given the same estimates, is ahead of DRF (mean JCT 1.5 h against 2 h)" in op
    assert fd.context_sentences(s, v, "specon") == []
    with pytest.raises(ValueError, match="model must be one of"):
        fd.context_sentences(s, v, "rigid")


def test_pdors_order_that_does_not_hold_is_said():
    utilities = {"pdors": 10.0, "dorm": 5.0, "pdors_nocoloc": 12.0}
    s = _summary([("t", "pdors", p, {"total_utility": u}) for p, u in utilities.items()])
    (line,) = fd.context_sentences(s, ax.claims(s), "pdors")
    assert "earns 120 % (the paper's order, PD-ORS first, does not hold)" in line


def test_notes_sentence_groups_by_policy_and_kind():
    res = pd.DataFrame(
        {"trace": ["itp", "itp", "philly", "itp"], "model": ["rigid", "aonline", "rigid", "oasis"],
         "policy": ["preemptive", "rrh", "preemptive", "fifo"],
         "note": ["cannot run: too wide", "schedule violation: [fixed] job 1", "cannot run: too wide", ""]}
    )  # fmt: skip
    assert fd.notes_sentence(res) == (
        "2 policies could not run some points: Preemptive (cannot run, 2 points: ITP / rigid and "
        "Philly / rigid); RRH (schedule violation, 1 point: ITP / aonline)."
    )
    assert fd.notes_sentence(res[res["note"] == ""]) == "Every point ran."


def test_arena_findings_bullets_each_paper_then_the_notes():
    s = _two_window_summary()
    res = pd.DataFrame({"trace": ["itp"], "model": ["rigid"], "policy": ["fifo"], "note": [""]})
    lines = fd.arena_findings(ax.claims(s), s, res)
    bullets = [x for x in lines if x.startswith("* ")]
    assert len(bullets) == 3 and bullets[-1] == "* Every point ran."
    assert bullets[0].startswith("* Optimus") and lines[1].startswith(
        "    Optimus's other baseline on Philly"
    )
    assert fd.arena_findings(pd.DataFrame(), s) == []


def test_arena_findings_on_real_claims_agree_with_the_verdicts():
    """Every verdict of ``claims`` appears, for the same window, in the printed sentence."""
    s = _two_window_summary()
    v = ax.claims(s)
    text = "\n".join(fd.claim_sentences(v, s))
    for r in v.itertuples():
        assert f"verdict {r.survives}" in text


def test_finished_and_compare_sentences():
    jobs = pd.DataFrame({"policy": ["fifo", "fifo", "drf", "drf"], "status": ["finished"] * 4})
    assert fd.finished_sentence(jobs) == "Every job finished under FIFO and DRF (4 job rows in all)."
    jobs.loc[3, "status"] = "running"
    assert fd.finished_sentence(jobs) == "1 of 4 job rows did not finish: DRF 1."
    table = pd.DataFrame({"mean_jct_h": [10.0, 9.0], "makespan_h": [100.0, 100.02]}, index=["fifo", "drf"])
    assert fd.compare_sentence(table, "fifo", "drf") == (
        "DRF against FIFO: its mean JCT 10.0 % lower (9 h against 10 h); its makespan the same "
        "(to 0.1 %) (100 h against 100 h)."
    )
    with pytest.raises(ValueError, match="policy 'rrh' not in the table"):
        fd.compare_sentence(table, "fifo", "rrh")


def test_checked_run_rechecks_a_small_run():
    params = {"workload": "philly", "workload.n_jobs": 20, "workload.n_gpus": 100, "workload.load": 1.5,
              "policy": "drf", "seed": 0}  # fmt: skip
    out = paper.checked_run(params)
    assert list(out.columns) == list(paper.CHECKED_COLUMNS) and len(out) == 1
    row = out.iloc[0]
    assert row["violation"] == "" and row["jobs"] == 20 and row["finished"] == 20
    assert row["allocation_rows"] > 0 and row["slot_seconds"] > 0
    assert out.equals(paper.checked_run(params))  # deterministic given params

"""The stored experiments of notebooks 51 and 52 (``dlsched.specon.paper``) on tiny points."""

from __future__ import annotations

import ast
import inspect

import numpy as np
import pandas as pd
import pytest

from dlsched import experiments, store
from dlsched.specon import checks, paper

SPEC = {"alpha": 0.01, "interval": 30.0}
TINY = {"schedule": "random-4", "settings": {"schedule": "random", "n_jobs": 4, "span": 30.0}, "seed": 1,
        "specon_params": SPEC}  # fmt: skip
PAIR = {"experiment": "fig6", "seed": 0, "calibrate": 100.0, "policy": SPEC}


def test_paper_does_not_import_findings():
    tree = ast.parse(inspect.getsource(paper))
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {f"{n.module}.{a.name}" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
              for a in n.names}  # fmt: skip
    assert not any("findings" in n for n in names)


def test_check_run_is_storable_and_holds():
    frame = experiments.sweep(paper.check_run, [TINY], scheduler="serial")
    assert list(frame.columns[:2]) == ["schedule", "seed"]
    assert frame["counts_agree"].dtype == np.float64
    assert "object" not in {str(d) for d in frame.dtypes}
    assert set(frame["policy"]) == {"specon", "ds"}
    assert all(c.holds for c in checks.fold(frame).values())
    assert frame["moves"].max() == 1  # the tiny point does move a container


def test_equivalence_run_two_claims_hold():
    frame = experiments.sweep(paper.equivalence_run, [TINY], scheduler="serial")
    assert len(frame) == 2 and frame["holds"].all()
    assert list(frame["rtol"]) == [0.0, 1e-12]
    assert (frame["moves"] == 0).all()


def test_category_run_counts_and_moves():
    frame = paper.category_run(TINY)
    assert list(frame.columns) == ["time", "PC", "WC", "CC", "moves"]
    assert frame["moves"].nunique() == 1
    assert (frame[["PC", "WC", "CC"]] >= 0).all().all()
    assert frame[["PC", "WC", "CC"]].iloc[-1].sum() == 0  # every container finished


def test_timeline_and_moves_of_the_same_run_agree():
    tl = paper.timeline_run(PAIR)
    mv = paper.moves_run(PAIR)
    assert list(tl.columns) == ["policy", "job", "worker", "start_s", "end_s", "cpu_pct", "label"]
    assert set(tl["policy"]) == {"k8s_default", "specon"}
    assert list(mv.columns) == list(paper.MOVE_COLUMNS)
    sp = tl[tl["policy"] == "specon"]
    labelled = set(sp.loc[sp["label"].str.contains("-M|-R"), "job"])
    assert labelled == set(mv["job"] + 1)
    assert not tl[tl["policy"] == "k8s_default"]["label"].str.contains("-M|-R").any()
    for frame in (tl, mv):
        assert "object" not in {str(d) for d in frame.dtypes}


@pytest.mark.parametrize(
    ("fn", "params", "match"),
    [
        (paper.check_run, {**TINY, "bogus": 1}, "unknown parameter"),
        (paper.check_run, {k: v for k, v in TINY.items() if k != "settings"}, "settings"),
        (paper.equivalence_run, {**TINY, "seed": -1}, "seed"),
        (paper.category_run, {**TINY, "schedule": 3}, "label"),
        (paper.timeline_run, {"seed": 0}, "experiment"),
        (paper.moves_run, {**PAIR, "workloads": {}}, "unknown parameter"),
        (paper.testbed_run, {"n_jobs": 2, "cpus": 1}, "unknown parameter"),
    ],
)
def test_bad_params_are_rejected_by_name(fn, params, match):
    with pytest.raises(ValueError, match=match):
        fn(params)


def test_testbed_run_is_declared_a_measurement():
    assert paper.testbed_run.volatile == ("*",)
    assert store.volatile_columns(paper.testbed_run) == ("*",)
    assert not store.is_volatile(paper.check_run)


def _testbed_frame() -> pd.DataFrame:
    rows = pd.DataFrame({
        "job": ["J1-a", "J2-b"], "launch": [0.0, 5.0], "ds_node": [0, 1], "ds_measured": [50.0, 60.0],
        "ds_predicted": [49.0, 61.0], "specon_nodes": ["0->1", "1"], "specon_moved": [True, False],
        "specon_measured": [45.0, 62.0], "specon_predicted": [46.0, 63.0],
        "specon_moved_predicted": [True, False], "specon_nodes_predicted": ["0->1", "1"],
        "pause_s": [0.6, np.nan],
    })  # fmt: skip
    run = {f"summary_{p}_{s}_{q}": v for p, s, vals in
           (("ds", "measured", (55.0, 65.0, 0)), ("ds", "predicted", (55.0, 66.0, 0)),
            ("specon", "measured", (53.5, 67.0, 1)), ("specon", "predicted", (54.5, 68.0, 1)))
           for q, v in zip(("mean_completion", "makespan", "moves"), vals, strict=True)}  # fmt: skip
    run |= {"pause_n": 1.0, "pause_mean_s": 0.6, "pause_paper_bound_s": 5.0, "cpu_ds_other_s": 1.0,
            "cpu_ds_capacity_s": 130.0, "cpu_specon_other_s": 2.0, "cpu_specon_capacity_s": 134.0,
            "losses_identical": True, "wall_s": 400.0}  # fmt: skip
    frame = rows.assign(**run)
    keys = pd.DataFrame({"n_jobs": [2, 2], "nodes": [2, 2], "alpha": [0.01, 0.01]})
    return pd.concat([keys, frame], axis=1)


def test_testbed_parts_rebuilds_the_tables():
    parts = paper.testbed_parts(_testbed_frame())
    assert list(parts["table"].columns) == list(paper.TESTBED_TABLE_COLUMNS)
    assert parts["summary"].loc[("specon", "measured"), "mean_completion"] == 53.5
    assert parts["summary"]["moves"].tolist() == [0, 0, 1, 1]
    assert parts["pauses"].to_dict() == {"n": 1.0, "mean_s": 0.6, "paper_bound_s": 5.0}
    assert parts["cpu"].loc["specon", "other_s"] == 2.0
    assert parts["run"] == {"jobs": 2, "losses_identical": True, "wall_s": 400.0, "nodes": 2, "alpha": 0.01}
    with pytest.raises(ValueError, match="missing columns"):
        paper.testbed_parts(_testbed_frame().drop(columns="ds_measured"))

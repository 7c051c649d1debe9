"""Tests of dlsched.readings: the "which reading restores the claim" table and its summary."""

from __future__ import annotations

import pandas as pd
import pytest

from dlsched import fidelity, readings


def _row(quantity="A best", reading="default", holds=False, fixed="before", figure="Fig. 3"):
    return {"figure": figure, "quantity": quantity, "paper": "yes", "reading": reading,
            "parameter": "" if reading == "default" else f"x='{reading}'", "source": "spec A1 l. 3",
            "fixed": fixed, "ours": 1.25, "holds": holds}  # fmt: skip


def test_verdicts():
    assert readings.verdict("default", True, "before") == "reproduces"
    assert readings.verdict("default", False, "before") == "does not reproduce"
    assert readings.verdict("alt", True, "before") == "restores the claim"
    assert readings.verdict("alt", True, "after") == "restores (post hoc)"
    assert readings.verdict("alt", False, "before") == "does not restore"
    assert readings.verdict("ceiling", False, "before") == "beyond the model's ceiling"
    assert readings.verdict("alt", True, "before", default_holds=True) == "also holds"
    assert readings.verdict("alt", False, "before", default_holds=True) == "breaks the claim"


def test_table_validates_rows():
    table = readings.readings_table([_row(), _row(reading="median", holds=True)])
    assert list(table.columns) == list(readings.COLUMNS)
    assert list(table["verdict"]) == ["does not reproduce", "restores the claim"]
    assert table["ours"].tolist() == ["1.25", "1.25"]
    both = readings.readings_table([_row(holds=True), _row(reading="median", holds=True)])
    assert list(both["verdict"]) == ["reproduces", "also holds"]
    with pytest.raises(ValueError, match="lacks"):
        readings.readings_table([{k: v for k, v in _row().items() if k != "source"}])
    with pytest.raises(ValueError, match="fixed"):
        readings.readings_table([_row(fixed="later")])
    with pytest.raises(ValueError, match="holds"):
        readings.readings_table([_row(holds="no")])
    with pytest.raises(ValueError, match="no 'default' row"):
        readings.readings_table([_row(reading="median")])


def test_summary_counts_only_failed_claims_and_readings_fixed_before(tmp_path):
    cards = pd.DataFrame({
        "notebook": ["nb"] * 4, "paper_name": ["P"] * 4, "figure": ["Fig. 3"] * 4,
        "quantity": ["A best", "B", "C", "D"], "paper": [""] * 4, "ours": [""] * 4,
        "match": ["no", "partly", "yes", "no"],
    })  # fmt: skip
    table = readings.readings_table([
        _row("A best"), _row("A best", "alt", holds=True),  # restored
        _row("B"), _row("B", "alt", holds=True, fixed="after"),  # post hoc: not counted
        _row("B", "ceiling", holds=False),  # beyond the ceiling
        _row("C"), _row("C", "alt", holds=True),  # reproduced already: not counted
    ])  # fmt: skip
    assert readings.save_readings(table, "nb", mode="quick", folder=tmp_path) is None
    file = readings.save_readings(table, "nb", mode="paper", folder=tmp_path)
    stamp = file.stat().st_mtime_ns
    assert readings.save_readings(table, "nb", mode="paper", folder=tmp_path).stat().st_mtime_ns == stamp
    loaded = readings.load_readings(tmp_path)
    assert loaded["holds"].dtype == bool and len(loaded) == len(table)
    summary = readings.readings_summary(loaded, cards)
    assert summary.to_dict("records") == [{"notebook": "nb", "tested": 2, "restored": 1, "beyond_ceiling": 1}]


def test_fidelity_table_gains_the_readings_columns(tmp_path):
    card = pd.DataFrame({"figure": ["Fig. 3", "Fig. 4"], "quantity": ["A best", "B"], "paper": ["", ""],
                         "ours": ["", ""], "match": ["no", "yes"]})  # fmt: skip
    fidelity.save_scorecard(card, "12_oasis_figures", mode="paper", folder=tmp_path)
    fidelity.save_scorecard(card, "22_optimus_figures", mode="paper", folder=tmp_path)
    md = fidelity.fidelity_markdown(tmp_path)
    assert "restored by a documented reading" in md and md.count("not yet tested") == 6
    table = readings.readings_table([_row("A best"), _row("A best", "alt", holds=True),
                                     _row("A best", "ceiling", holds=True)])  # fmt: skip
    readings.save_readings(table, "12_oasis_figures", mode="paper", folder=tmp_path / "readings")
    t = fidelity.fidelity_table(tmp_path)
    assert t["restored"].tolist()[:1] == [1] and pd.isna(t["restored"].iloc[1])
    assert t["restored"].iloc[-1] == 1 and t["beyond_ceiling"].iloc[0] == 0
    md = fidelity.fidelity_markdown(tmp_path)
    assert "| 1 | 0 |" in md and md.count("not yet tested") == 2


# ------------------------------------------------------------- helpers the wings share


def test_int_param_accepts_ints_and_names_bad_values():
    import numpy as np

    from dlsched.readings import int_param

    assert int_param({"n": 3}, "n", 1) == 3 and int_param({"n": np.int64(0)}, "n", 0) == 0
    for bad in (True, np.bool_(True), 1.0, "2", None, 0):
        with pytest.raises(ValueError, match=r"reading_run: n must be an integer >= 1, got"):
            int_param({"n": bad}, "n", 1)


def test_check_point_validates_the_common_fields():
    from dlsched.readings import check_point

    known, names, exps = ("reading", "experiment", "seed"), ("default", "alt"), ("job", "bound")
    assert check_point({"reading": "alt", "experiment": "job"}, known, names, exps) == ("alt", "job")
    got = check_point({"reading": "ceiling", "experiment": "bound"}, known, names, exps)
    assert got == ("ceiling", "bound")
    cases = [
        ([("reading", "default")], "params must be a dict"),
        ({"reading": "default", "experiment": "job", "x": 1}, r"unknown parameter\(s\) \['x'\]"),
        ({"reading": "nope", "experiment": "job"}, "reading must be 'ceiling' or one of"),
        ({"reading": "alt", "experiment": "milp"}, "experiment must be one of"),
        ({"reading": "alt", "experiment": "bound"}, "does not go with reading 'alt'"),
        ({"reading": "ceiling", "experiment": "job"}, "does not go with reading 'ceiling'"),
    ]
    for params, msg in cases:
        with pytest.raises(ValueError, match=msg):
            check_point(params, known, names, exps, ceiling_experiments="'bound'")


def test_claim_row_point_list_mode_axes_and_reading_base():
    import dataclasses

    from dlsched.readings import COLUMNS, PointList, ReadingBase, claim_row, mode_axes

    row = claim_row({"figure": "Fig. 1", "quantity": "q", "paper": "p"}, "alt", "x=1", "l. 3", "before",
                    "1.2x", 1)
    assert set(row) == set(COLUMNS) - {"verdict"} and row["holds"] is True
    grid = PointList(("a", "b"))
    for p in ({"a": 1, "b": 2, "c": 0}, {"a": 1, "b": 2, "c": 9}, {"a": 2, "b": 2, "c": 0}):
        grid.add(p)
    assert grid.points == [{"a": 1, "b": 2, "c": 0}, {"a": 2, "b": 2, "c": 0}]  # first of a key kept
    assert mode_axes({"paper": 1, "quick": 2}, "quick") == 2
    with pytest.raises(ValueError, match="mode must be one of"):
        mode_axes({"paper": 1}, "full")
    assert [f.name for f in dataclasses.fields(ReadingBase)] == ["name", "parameter", "source"]
    from dlsched.oasis.readings import Reading as OasisReading
    from dlsched.specon.readings import Reading as SpeconReading

    for cls in (OasisReading, SpeconReading):
        assert issubclass(cls, ReadingBase) and [f.name for f in dataclasses.fields(cls)][:3] == [
            "name", "parameter", "source"]

"""PD-ORS's alternative readings (issue "Which reading restores the claim"): each reading
parameter changes what it says it changes and nothing when set to its default, and the readings
table (:mod:`dlsched.pdors.readings`, quick grid only) follows the scorecard's rules.

The readings are existing parameters of :class:`~dlsched.pdors.policy.PDORS` (``workers``,
``headroom``: tests in ``test_pdors_policy``; ``g_delta``, ``delta``: the reconstructed
:math:`G_\\delta` of spec (31R)/(32R)).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dlsched import fidelity, registry
from dlsched import readings as shape
from dlsched.pdors import experiments as px
from dlsched.pdors import readings as pr
from dlsched.pdors.offline import solve_offline
from dlsched.pdors.policy import PDORS, g_delta

SMALL = {"n_jobs": 6, "n_machines": 4, "T": 20}


# ------------------------------------------------------------------------ the parameters


def test_readings_at_their_defaults_change_nothing():
    base = {"policy": "pdors", "seed": 1, **SMALL}
    spelled = {"workers": "ratio", "headroom": False, "g_delta": "31R", "delta": 0.1}
    pd.testing.assert_frame_equal(px.job_run(base), px.job_run({**base, "policy_params": spelled}))


@pytest.mark.parametrize("name", [n for n in pr.READINGS if n != "default"])
def test_each_reading_reaches_pdors(name):
    wl = registry.make_workload("pdors", seed=0, **SMALL)
    pol = registry.make_policy("pdors", wl, **pr.READINGS[name].policy_params)
    assert isinstance(pol, PDORS)
    default = registry.make_policy("pdors", wl)
    changed = {
        k for k in ("workers", "headroom", "g_delta", "delta") if getattr(pol, k) != getattr(default, k)
    }
    assert changed == set(pr.READINGS[name].policy_params)


def test_g_delta_sweep_moves_the_scale_as_documented():
    d = np.array([0.5, 2.0, 10.0, 100.0])
    g = g_delta(d, 0.1)
    assert np.all(g_delta(d, 1.0) == 1.0)  # delta = 1: no scale-up
    assert np.all(g_delta(d, 0.01) > g) and np.all(g > 1.0)
    assert np.all(g_delta(d, 0.1, ratio=4.0, variant="32R") > g)  # (32R) guards both coverings
    assert np.all(np.diff(g) < 0)  # less scale-up for larger demands


def test_reading_run_delegates_to_job_run():
    p = {"reading": "w = D", "experiment": "job", "policy": "pdors", "seed": 0, **SMALL}
    got = pr.reading_run(p)
    jobs = px.job_run({"policy": "pdors", "seed": 0, **SMALL, "policy_params": {"workers": "demand"}})
    tot = px.run_totals(jobs.assign(policy="pdors"), by=["policy"]).iloc[0]
    assert list(got.columns) == list(pr.RESULT_COLUMNS) and len(got) == 1
    for c in ("jobs", "admitted", "finished", "total_utility", "run_slots"):
        assert got[c].iloc[0] == pytest.approx(float(tot[c]))


def test_utility_bound_is_above_the_offline_optimum():
    for seed in (0, 1):
        wl = registry.make_workload("pdors", seed=seed, n_jobs=3, n_machines=2, T=8)
        bound, credited = pr.utility_bound(wl)
        sol = solve_offline(wl, time_limit=60.0)
        assert sol.objective <= bound * (1 + 1e-9) + 1e-9
        assert credited >= len(sol.admitted)
        assert sol.bound <= bound * (1 + 1e-9) + 1e-9


# ------------------------------------------------------------------------ grid and validation


def test_paper_grid_is_the_figures_sweeps():
    grid = pr.readings_grid("paper")
    for p in grid:
        pr._validate(p)
    keys = [tuple(p[k] for k in pr._PARAMS) for p in grid]
    assert len(set(keys)) == len(keys)
    assert not any(p["reading"] == "default" for p in grid)  # the notebook's own runs
    a = pr.AXES["paper"]
    for name, r in pr.READINGS.items():
        if name == "default":
            continue
        for fig in r.figures:
            for j, m, T in pr._figure_points(a, fig):
                seeds = {
                    p["seed"]
                    for p in grid
                    if p["reading"] == name
                    and p["policy"] == "pdors"
                    and (p["n_jobs"], p["n_machines"], p["T"]) == (j, m, T)
                }
                assert seeds == set(a["seeds"]), (name, fig, j, m)
    assert {f for n in ("w = D", "LP headroom", "w = D + headroom") for f in pr.READINGS[n].figures} == set(
        pr.FIGURES
    )
    bounds = [p for p in grid if p["experiment"] == "bound"]
    figure_points = {pt for f in pr.FIGURES for pt in pr._figure_points(a, f)}
    assert len(bounds) == len(figure_points) * len(a["seeds"])  # the optimum's point is Fig. 7's
    assert (a["milp"]["n_jobs"], a["milp"]["n_machines"], a["milp"]["T"]) in pr._figure_points(a, "fig7")
    assert sum(p["experiment"] == "milp" for p in grid) == len(a["milp"]["seeds"])
    with pytest.raises(ValueError, match="mode"):
        pr.readings_grid("full")


def test_paper_axes_are_notebook_32s():
    src = (Path(__file__).resolve().parents[1] / "notebooks" / "32_pdors_figures.py").read_text()
    ns: dict = {}
    cell = src.split('# %% tags=["parameters"]')[1].split("# %%")[0]
    exec(cell, ns)  # the parameters cell: plain assignments
    a = pr.AXES["paper"]
    assert (
        a["fig6"]["n_jobs"] == (ns["fig6_jobs_full"],)
        and list(a["fig6"]["n_machines"]) == ns["fig6_machines_full"]
    )
    assert list(a["fig7"]["n_jobs"]) == ns["fig7_jobs_full"] and a["fig7"]["n_machines"] == (
        ns["fig7_machines_full"],
    )
    assert list(a["fig8"]["n_jobs"]) == ns["fig8_jobs_full"] and a["fig8"]["n_machines"] == (
        ns["fig8_machines_full"],
    )
    assert (
        a["fig9"]["n_jobs"] == (ns["fig9_jobs_full"],)
        and list(a["fig9"]["n_machines"]) == ns["fig9_machines_full"]
    )
    assert (
        a["fig6"]["T"] == a["fig7"]["T"] == a["fig8"]["T"] == ns["T_short"] and a["fig9"]["T"] == ns["T_long"]
    )
    assert list(a["seeds"]) == list(range(ns["seed"], ns["seed"] + ns["n_seeds_full"]))


_OK = {
    "reading": "w = D",
    "experiment": "job",
    "policy": "pdors",
    "n_jobs": 2,
    "n_machines": 2,
    "T": 5,
    "seed": 0,
}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"typo": 1}, "typo"),
        ({"reading": "nonsense"}, "reading"),
        ({"experiment": "fig7"}, "experiment"),
        ({"experiment": "bound"}, "experiment"),
        ({"reading": "ceiling"}, "experiment"),
        ({"policy": "drf"}, "PD-ORS only"),
        ({"reading": "default", "policy": "nonsense"}, "policy"),
        ({"n_jobs": 0}, "n_jobs"),
        ({"T": 2.0}, "T"),
        ({"seed": -1}, "seed"),
        ({"time_limit": 5.0}, "time_limit"),
        ({"reading": "ceiling", "experiment": "milp", "policy": None, "time_limit": 0}, "time_limit"),
        ({"reading": "ceiling", "experiment": "bound"}, "policy"),
    ],
)
def test_reading_run_names_the_bad_field(change, field):
    with pytest.raises(ValueError, match=field):
        pr.reading_run({**_OK, **change})


# ------------------------------------------------------------------------ the table (quick grid)


@pytest.fixture(scope="module")
def quick_frame():
    grid = pr.readings_grid("quick")
    frames = [pr.reading_run(p).assign(**{k: p[k] for k in pr._PARAMS}) for p in grid]
    return pd.concat(frames, ignore_index=True)


def _default_totals(frame, fig):
    return pr._totals(frame, "default", pr.AXES["quick"], fig)


@pytest.fixture(scope="module")
def quick_card(quick_frame):
    tables = {label: pr._COMPARE[fig](_default_totals(quick_frame, fig)) for fig, label in pr.FIGURES.items()}
    return fidelity.scorecard(tables)


def test_quick_grid_covers_its_readings(quick_frame):
    assert set(quick_frame["reading"]) == {"default", "w = D", "delta = 1 (G = 1)", "ceiling"}
    assert set(quick_frame["experiment"]) == {"job", "bound", "milp"}
    milp = quick_frame[quick_frame["experiment"] == "milp"]
    assert set(milp["scheme"]) == {*pr.MILP_SCHEMES, pr.OPTIMUM}
    assert (milp.loc[milp["scheme"] == pr.OPTIMUM, "status"] == "optimal").all()


def test_bound_is_above_every_run(quick_frame):
    """The ceiling bounds what every scheme realised on the same jobs, extra PS included."""
    keys = ["n_jobs", "n_machines", "T", "seed"]
    bound = quick_frame[quick_frame["experiment"] == "bound"][keys + ["total_utility"]]
    runs = quick_frame[quick_frame["experiment"] == "job"].merge(bound, on=keys, suffixes=("", "_bound"))
    assert len(runs) == int((quick_frame["experiment"] == "job").sum())
    assert (runs["total_utility"] <= runs["total_utility_bound"] * (1 + 1e-9) + 1e-9).all()
    milp = quick_frame[quick_frame["experiment"] == "milp"]
    mb = milp.merge(bound, on=keys, suffixes=("", "_bound"))
    assert len(mb) == len(milp)
    assert (mb["total_utility"] <= mb["total_utility_bound"] * (1 + 1e-9) + 1e-9).all()


def test_readings_rows_make_a_valid_table(quick_frame, quick_card):
    table = shape.readings_table(pr.readings_rows(quick_frame, quick_card))
    assert list(table.columns) == list(shape.COLUMNS)
    judged = quick_card[quick_card["match"] != "-"]
    assert set(zip(table["figure"], table["quantity"], strict=True)) == set(
        zip(judged["figure"], judged["quantity"], strict=True)
    )
    assert (table["fixed"] == "before").all()
    for (fig, q), part in table.groupby(["figure", "quantity"]):
        readings = list(part["reading"])
        assert readings[0] == "default"
        assert ("ceiling" in readings) == (
            q != "PD-ORS total utility grows with jobs"
        )  # no ceiling of a trend
        assert "w = D" in readings
        assert ("delta = 1 (G = 1)" in readings) == (fig != "Fig. 9")
    milp = table[table["parameter"].str.startswith("offline optimum")]
    assert set(milp["quantity"]) <= {"best scheme at every job count", "PD-ORS / best baseline"}
    assert len(milp) == 2 and milp["ours"].str.startswith("SCALED DOWN").all()


def test_default_rows_follow_the_scorecard_rule(quick_frame, quick_card):
    rows = pd.DataFrame(pr.readings_rows(quick_frame, quick_card))
    default = rows[rows["reading"] == "default"].set_index(["figure", "quantity"])
    card = quick_card.set_index(["figure", "quantity"])
    for key, r in default.iterrows():
        assert r["ours"] == card.at[key, "ours"]
        assert r["holds"] == (card.at[key, "match"] == "yes")


def test_a_reading_is_judged_on_its_own_pdors_runs(quick_frame, quick_card):
    rows = pd.DataFrame(pr.readings_rows(quick_frame, quick_card))
    a = pr.AXES["quick"]
    for fig, label in pr.FIGURES.items():
        tot = pr._totals(quick_frame, "w = D", a, fig)
        mine = quick_frame[(quick_frame["reading"] == "w = D")]
        assert set(tot.loc[tot["policy"] == "pdors", "total_utility"]) <= set(mine["total_utility"])
        cmp = pr._COMPARE[fig](tot).set_index("quantity")
        for r in rows[(rows["figure"] == label) & (rows["reading"] == "w = D")].itertuples():
            assert r.ours == cmp.at[r.quantity, "ours"]


def test_default_rows_reuse_the_notebooks_runs(quick_frame):
    """The paper path: the notebook's job_run sweeps through default_rows give the same rows as
    reading_run's default points."""
    a = pr.AXES["quick"]
    f = a["fig7"]
    runs = []
    for pol in px.FIGURE_POLICIES["fig7"]:
        for j in f["n_jobs"]:
            p = {"policy": pol, "n_jobs": j, "n_machines": f["n_machines"][0], "T": f["T"], "seed": 0}
            runs.append(px.job_run(p).assign(**p))
    got = pr.default_rows({"fig7": pd.concat(runs, ignore_index=True)})
    assert list(got.columns) == [*pr._PARAMS, *pr.RESULT_COLUMNS]
    mine = quick_frame[(quick_frame["reading"] == "default") & (quick_frame["experiment"] == "job")]
    keys = ["scheme", "n_jobs", "n_machines", "T", "seed"]
    both = got.merge(mine, on=keys, suffixes=("", "_q"))
    assert len(both) == len(got) == len(px.FIGURE_POLICIES["fig7"]) * len(f["n_jobs"])
    for c in ("jobs", "admitted", "finished", "total_utility", "run_slots"):
        np.testing.assert_allclose(both[c], both[f"{c}_q"])
    with pytest.raises(ValueError, match="figure"):
        pr.default_rows({"fig10": pd.concat(runs)})


def test_readings_rows_validated(quick_frame, quick_card):
    with pytest.raises(TypeError, match="frame"):
        pr.readings_rows([], quick_card)
    with pytest.raises(ValueError, match="lacks"):
        pr.readings_rows(quick_frame.drop(columns=["total_utility"]), quick_card)
    with pytest.raises(ValueError, match="default"):
        pr.readings_rows(quick_frame[quick_frame["reading"] != "default"], quick_card)
    partial = quick_frame.drop(quick_frame.index[(quick_frame["reading"] == "w = D")][:1])
    with pytest.raises(ValueError, match="every point and seed"):
        pr.readings_rows(partial, quick_card)


def test_the_notebooks_path_gives_the_same_table(quick_frame, quick_card):
    """Paper mode: the default rows come from the notebook's job_run sweeps (default_rows), the
    rest from the readings' sweep; the table is the one the grid's own default points give."""
    a = pr.AXES["quick"]
    runs = {}
    for fig in pr.FIGURES:
        f = a[fig]
        parts = []
        for pol in px.FIGURE_POLICIES[fig]:
            for j, m, T in pr._figure_points(a, fig):
                p = {"policy": pol, "n_jobs": j, "n_machines": m, "T": T, "seed": a["seeds"][0]}
                parts.append(px.job_run(p).assign(**p))
        runs[fig] = pd.concat(parts, ignore_index=True)
        assert f["T"] in (20, 80)
    rest = quick_frame[quick_frame["reading"] != "default"]
    frame = pd.concat([pr.default_rows(runs), rest], ignore_index=True)
    got = shape.readings_table(pr.readings_rows(frame, quick_card))
    want = shape.readings_table(pr.readings_rows(quick_frame, quick_card))
    pd.testing.assert_frame_equal(got, want)

"""Tests of SpeCon's section-8 checks (dlsched.specon.checks): each holds on small runs and fails
on a deliberately corrupted input (an extra move, a forbidden category change, an over-full node,
a perturbed job table, a finite "infinite" pause, a broken timeline)."""

from __future__ import annotations

import math
from dataclasses import replace

import pandas as pd
import pytest

from dlsched.core.jobs import Workload
from dlsched.specon import checks
from dlsched.specon.policy import K8sDefault

SMALL = {"n_jobs": 10, "span": 150.0}


@pytest.fixture(scope="module")
def small():
    wl = checks.workload(0, **SMALL)
    res, pol = checks.run(wl)
    return wl, res, pol


@pytest.fixture(scope="module")
def ds(small):
    wl = small[0]
    return checks.run(wl, K8sDefault())


def test_small_run_moves_and_recategorises(small):
    _, res, pol = small
    assert res.jobs["migrations"].sum() > 0, "instance should exercise moves"
    assert pol.transitions


# ------------------------------------------------------------------------------ 8.1


def test_moves_at_most_once_holds(small, ds):
    _, res, pol = small
    c = checks.moves_at_most_once(res, pol)
    assert c.holds, c.summary()
    assert c.details["limit"] == 1 and c.details["moves"] == res.jobs["migrations"].sum()
    d = checks.moves_at_most_once(*ds)
    assert d.holds and d.details["limit"] == 0 and d.details["moves"] == 0


def test_moves_at_most_once_fails_on_second_move(small):
    _, res, pol = small
    moved = next(e for e in pol.events if e["event"] in ("M", "R"))
    fake = type("P", (), {"events": [*pol.events, {**moved, "slot": moved["slot"] + 1}],
                          "move_limit": "once_total"})()
    assert not checks.moves_at_most_once(res, fake, limit=1).holds
    # a second host change in the run records: the moved job's last record split in two, the
    # second half on another node
    runs = res.runs.copy()
    j = moved["job"]
    last = runs[runs["job"] == j].index[-1]
    row = runs.loc[last].copy()
    assert row["slots"] >= 2
    half = int(row["slots"]) // 2
    runs.loc[last, "slots"] = half
    row["slot"], row["slots"] = row["slot"] + half, row["slots"] - half
    row["server"] = (row["server"] + 1) % res.workload.cluster.n_servers
    runs = pd.concat([runs, row.to_frame().T.astype(runs.dtypes.to_dict())], ignore_index=True)
    assert not checks.moves_at_most_once(replace(res, runs=runs), pol).holds
    # DS's limit is 0: SpeCon's run judged as a DS run fails
    assert not checks.moves_at_most_once(res, K8sDefault()).holds


# ------------------------------------------------------------------------------ 8.2


def test_categories_hold(small):
    c = checks.categories_follow_alg1(small[2])
    assert c.holds, c.summary()
    assert c.details["pc_wc"] > 0 and c.details["wc_cc"] > 0


@pytest.mark.parametrize("corrupt", ["pc_cc", "wrong_from", "twice", "after_mark"])
def test_categories_fail_on_corrupted_log(small, corrupt):
    pol = small[2]
    trans = list(pol.transitions)
    events = list(pol.events)
    first = trans[0]
    if corrupt == "pc_cc":
        trans[0] = {**first, "to": "CC"}
    elif corrupt == "wrong_from":
        trans.insert(0, {**first, "from": "CC", "to": "PC"})
    elif corrupt == "twice":
        trans.insert(1, {**first, "from": first["to"], "to": "PC"})
    else:
        mark = next(e for e in events if e["event"] in ("stay", "request"))
        last = [x for x in trans if x["job"] == mark["job"]][-1]
        back = {"slot": mark["slot"] + 300, "job": mark["job"], "from": last["to"], "to": "PC"}
        trans.append(back)
    fake = type("P", (), {"transitions": trans, "events": events, "cascade": "none"})()
    assert not checks.categories_follow_alg1(fake).holds


# ------------------------------------------------------------------------------ 8.4


def test_cpu_within_capacity_holds(small, ds):
    wl, res, _ = small
    c = checks.cpu_within_capacity(wl, res)
    assert c.holds, c.summary()
    assert c.details["peak_share_of_usable"] == pytest.approx(1.0)
    assert checks.cpu_within_capacity(wl, ds[0]).holds


def test_cpu_fails_when_models_claim_the_whole_node(small):
    wl, res, _ = small
    greedy = tuple(replace(s, model=replace(s.model, cpu_usable=1.0)) if s.job_id % 2 == 0 else s
                   for s in wl.jobs)
    c = checks.cpu_within_capacity(Workload(wl.cluster, greedy, name=wl.name, params=wl.params), res)
    assert not c.holds and c.details["over_capacity"] > 0


def test_cpu_fails_when_a_job_is_on_two_nodes(small):
    wl, res, _ = small
    runs = res.runs
    row = runs[runs["role"] == "worker"].iloc[[0]].copy()
    row["server"] = (row["server"] + 1) % wl.cluster.n_servers
    bad = replace(res, runs=pd.concat([runs, row], ignore_index=True))
    c = checks.cpu_within_capacity(wl, bad)
    assert not c.holds and c.details["two_nodes"] >= 1


# ------------------------------------------------------------------------------ 8.6


@pytest.mark.parametrize("params", [{"alpha": 0.0}, {"migrate": False}])
def test_specon_equals_ds(small, params):
    c = checks.ds_equivalence(small[0], **params)
    assert c.holds, c.summary()
    if "alpha" in params:
        assert c.details["max_abs_jct_diff"] == 0.0 and c.details["transitions"] == 0
    else:
        assert c.details["transitions"] > 0


def test_specon_with_moves_is_not_ds(small):
    c = checks.ds_equivalence(small[0])
    assert not c.holds and c.details["moves"] > 0


def test_matches_ds_fails_on_perturbed_table(ds):
    jobs = ds[0].jobs
    assert checks.matches_ds(jobs, jobs.copy()).holds
    bumped = jobs.copy()
    bumped.loc[0, "jct_seconds"] *= 1 + 1e-9
    assert not checks.matches_ds(jobs, bumped, rtol=1e-12).holds
    assert checks.matches_ds(jobs, bumped, rtol=1e-6).holds
    assert not checks.matches_ds(jobs, bumped).holds
    assert not checks.matches_ds(jobs, jobs.iloc[:-1]).holds


def test_infinite_pause_rejected():
    c = checks.infinite_pause_rejected()
    assert c.holds, c.summary()
    assert "never resume" in c.details["policy_message"]
    assert not checks.infinite_pause_rejected(1e6).holds  # a finite pause is (rightly) accepted
    assert math.isinf(c.details["pause"])


# ------------------------------------------------------------------------- checker


def test_passes_checker_holds(small, ds):
    wl, res, _ = small
    assert checks.passes_checker(wl, res).holds
    assert checks.passes_checker(wl, ds[0]).holds


def test_passes_checker_fails_on_overfull_memory(small):
    wl, res, _ = small
    runs = res.runs
    slot = int(runs["slot"].iloc[0])
    extra = pd.DataFrame({"job": 1000 + pd.RangeIndex(40), "slot": slot, "slots": 1, "server": 0,
                          "role": "worker", "count": 1})[list(runs.columns)]
    specs = {**wl.specs, **{1000 + k: replace(wl.specs[0], job_id=1000 + k) for k in range(40)}}
    wl2 = Workload(wl.cluster, tuple(specs[j] for j in sorted(specs)), name=wl.name, params=wl.params)
    bad = replace(res, runs=pd.concat([runs, extra], ignore_index=True))
    c = checks.passes_checker(wl2, bad)
    assert not c.holds and c.details["error"]


def test_passes_checker_fails_on_unfinished_job(small):
    wl, res, _ = small
    jobs = res.jobs.copy()
    jobs.loc[0, "status"] = "running"
    assert not checks.passes_checker(wl, replace(res, jobs=jobs)).holds


# ------------------------------------------------------------------------- tables


def test_run_checks_and_fold(small):
    frame = checks.run_checks(small[0])
    assert set(frame["policy"]) == {"specon", "ds"}
    folded = checks.fold(frame)
    assert len(folded) == 4 and all(c.holds for c in folded.values())


def test_category_counts(small):
    _, res, pol = small
    cc = checks.category_counts(res, pol)
    assert (cc[["PC", "WC", "CC"]] >= 0).all().all()
    assert (cc.iloc[-1][["PC", "WC", "CC"]] == 0).all()
    assert cc[["PC", "WC", "CC"]].sum(axis=1).max() <= len(res.jobs)

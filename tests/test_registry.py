"""Tests of dlsched.registry: name resolution, parameter checks, seeding and determinism."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dlsched import registry
from dlsched.core.jobs import Workload
from dlsched.core.policy import Policy
from dlsched.registry import UnknownNameError
from dlsched.workloads import SYNTHETIC_MODELS


def test_names_are_sorted_and_cover_the_tables():
    assert registry.policy_names() == sorted(registry.POLICIES)
    assert registry.workload_names() == sorted(registry.WORKLOADS)
    assert {"fifo", "drf"} <= set(registry.policy_names())
    assert {"synthetic", "philly", "itp", "philly_like"} <= set(registry.workload_names())


@pytest.mark.parametrize("name", registry.policy_names())
def test_every_policy_resolves_and_instantiates(name):
    params = registry.policy_parameters(name)
    assert isinstance(params, dict)
    pol = registry.make_policy(name)
    assert isinstance(pol, Policy)
    assert pol.name == name


@pytest.mark.parametrize("name", registry.workload_names())
def test_every_workload_resolves(name):
    params = registry.workload_parameters(name)
    assert isinstance(params, dict)
    assert callable(registry._resolve(registry.WORKLOADS, name, "workload"))


@pytest.mark.parametrize("name", ["synthetic", "philly", "itp", "philly_like"])
def test_general_workloads_build(name):
    if name in ("philly", "itp"):
        from dlsched import traces

        try:
            traces.data_dir()
        except FileNotFoundError:
            pytest.skip("real traces not available (set DLSCHED_DATA_DIR)")
    wl = registry.make_workload(name, seed=0, n_jobs=5)
    assert isinstance(wl, Workload)
    assert len(wl.jobs) == 5
    assert wl.name == name


def test_parameters_and_defaults():
    assert registry.policy_parameters("fifo") == {
        "n_workers": None,
        "n_ps": None,
        "backfill": False,
        "placement": "round_robin",
    }
    assert registry.policy_parameters("drf") == {"max_workers": None, "placement": "round_robin"}
    assert registry.workload_parameters("synthetic") == {
        "model": "oasis",
        "n_jobs": 12,
        "n_servers": 4,
        "arrival_span": 6,
        "horizon": None,
    }
    assert registry.make_policy("fifo", n_workers=2, backfill=True).params == {
        "n_workers": 2,
        "n_ps": None,
        "backfill": True,
        "placement": "round_robin",
    }


@pytest.mark.parametrize(
    ("call", "what"),
    [
        (lambda: registry.make_policy("fifoo"), "policy 'fifoo'"),
        (lambda: registry.make_workload("synth"), "workload 'synth'"),
        (lambda: registry.policy_parameters("nope"), "policy 'nope'"),
        (lambda: registry.workload_parameters("nope"), "workload 'nope'"),
    ],
)
def test_unknown_names_list_the_known_ones(call, what):
    with pytest.raises(UnknownNameError) as info:
        call()
    msg = str(info.value)
    assert msg.startswith(f"unknown {what}")
    table = registry.POLICIES if what.startswith("policy") else registry.WORKLOADS
    assert msg.endswith("known: " + ", ".join(sorted(table)))
    # usable as either KeyError or ValueError, with a readable (unquoted) message
    assert isinstance(info.value, KeyError) and isinstance(info.value, ValueError)
    assert not msg.startswith('"')


def test_unknown_parameters_are_named():
    with pytest.raises(
        ValueError,
        match=r"unknown parameter\(s\) \['foo'\] for policy 'fifo'; known: "
        r"\['backfill', 'n_ps', 'n_workers', 'placement'\]",
    ):
        registry.make_policy("fifo", foo=1)
    with pytest.raises(
        ValueError, match=r"unknown parameter\(s\) \['bogus', 'other'\] for workload 'synthetic'"
    ):
        registry.make_workload("synthetic", bogus=1, other=2)


def test_invalid_parameter_values_reach_the_constructors():
    with pytest.raises(
        ValueError, match=r"fifo.n_workers must be a positive integer or None, got 0"
    ):
        registry.make_policy("fifo", n_workers=0)
    with pytest.raises(ValueError, match=r"synthetic: n_jobs must be an integer >= 1, got 0"):
        registry.make_workload("synthetic", n_jobs=0)
    with pytest.raises(ValueError, match=r"synthetic: model must be one of .* got 'gpt'"):
        registry.make_workload("synthetic", model="gpt")


@pytest.mark.parametrize("model", SYNTHETIC_MODELS)
def test_make_workload_is_deterministic(model):
    a = registry.make_workload("synthetic", seed=11, model=model, n_jobs=8)
    b = registry.make_workload("synthetic", seed=11, model=model, n_jobs=8)
    pd.testing.assert_frame_equal(a.jobs_frame(), b.jobs_frame())
    pd.testing.assert_frame_equal(a.cluster.to_frame(), b.cluster.to_frame())
    c = registry.make_workload("synthetic", seed=12, model=model, n_jobs=8)
    assert not a.jobs_frame().equals(c.jobs_frame())


def test_seed_forms_are_equivalent():
    ref = registry.make_workload("synthetic", seed=3, model="pdors").jobs_frame()
    for seed in (np.int64(3), np.random.SeedSequence(3), np.random.default_rng(3)):
        pd.testing.assert_frame_equal(
            registry.make_workload("synthetic", seed=seed, model="pdors").jobs_frame(), ref
        )


@pytest.mark.parametrize("seed", [-1, True, 1.5, "1", None])
def test_seed_validation(seed):
    with pytest.raises(
        ValueError, match=r"seed must be an int >= 0, a SeedSequence or a Generator, got "
    ):
        registry.make_workload("synthetic", seed=seed)

"""Every (policy, workload) pair of the registry, through the command line: the run succeeds, or it
exits 2 with one line naming the policy, the workload, the job model the policy needs and the
policies that can run that workload -- and writes nothing."""

from __future__ import annotations

import re

import pytest

from dlsched import cli, registry, traces
from dlsched.core.jobs import MODELS

# the smallest sizes of each workload (a few jobs on a few servers)
SMALL: dict[str, list[str]] = {
    "synthetic": ["n_jobs=4", "n_servers=2", "workload.horizon=30"],
    "philly": ["n_jobs=4", "n_gpus=8", "week=True"],
    "itp": ["n_jobs=4", "n_gpus=8", "cluster=1"],
    "philly_like": ["n_jobs=4", "n_gpus=8"],
    "gavel_like": ["n_jobs=4", "n_servers=4"],
    "oasis": ["n_jobs=4", "workload.T=10", "H=2", "K=2"],
    "oasis_testbed": ["n_jobs=3"],
    "optimus": ["n_jobs=3"],
    "pdors": ["n_jobs=4", "n_machines=4", "workload.T=10"],
    "aonline": ["n_jobs=4", "n_edge=4", "workload.T=16"],
    "specon": ["n_jobs=3"],
    "trace": ["max_jobs=6", "week=7"],
}
NEEDS_TRACES = {"philly": "philly", "itp": "itp", "trace": "philly"}
CLASSES = "|".join(cls.__name__ for cls in MODELS.values())


def _traces_missing(folder: str) -> bool:
    try:
        return not (traces.data_dir() / folder).is_dir()
    except (FileNotFoundError, ValueError, OSError):
        return True


def test_every_workload_has_small_parameters():
    assert sorted(SMALL) == registry.workload_names()


@pytest.mark.parametrize("workload", registry.workload_names())
def test_every_policy_runs_or_explains_the_mismatch(workload, tmp_path, capsys):
    if workload in NEEDS_TRACES and _traces_missing(NEEDS_TRACES[workload]):
        pytest.skip(f"{NEEDS_TRACES[workload]} trace files missing")
    ran, named = set(), set()
    for policy in registry.policy_names():
        out = tmp_path / policy / "out"
        argv = ["run", "--workload", workload, "--policy", policy, "--out", str(out)]
        for p in SMALL[workload]:
            argv += ["--param", p]
        code = cli.main(argv)
        err = capsys.readouterr().err.strip()
        if code == 0:
            ran.add(policy)
            assert sorted(q.name for q in out.iterdir()) == sorted(cli.OUTPUT_FILES)
            continue
        assert code == 2, (policy, err)
        assert not (tmp_path / policy).exists(), (policy, "wrote output")
        m = re.fullmatch(
            rf"dlsched: error: policy '{policy}' cannot run .*workload '{workload}'.*: {policy} needs "
            rf"(?P<need>.+) jobs; policies for '{workload}': (?P<ok>[a-z_0-9, ]+) \(on a small .*\)",
            err,
        )
        assert m, (policy, err)
        assert re.fullmatch(rf"(({CLASSES})(, | or )?)+", m["need"]), (policy, m["need"])
        ok = m["ok"].split(", ")
        assert policy not in ok and set(ok) <= set(registry.policy_names()) and "fifo" in ok
        named.update(ok)
    if named:  # the policies the messages name are the ones that ran
        assert named == ran


def test_the_issue_example_names_everything(tmp_path, capsys):
    out = tmp_path / "x"
    argv = ["run", "--workload", "specon", "--policy", "pdors", "--out", str(out), "--param", "n_jobs=3"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("dlsched: error: policy 'pdors' cannot run workload 'specon' (SpeconModel jobs): ")
    assert (
        "pdors needs PdorsModel jobs; policies for 'specon': dorm, drf, fifo, k8s_default, preemptive, specon"
        in err
    )
    assert not out.exists()


def test_the_default_probe_agrees_with_the_arena_probe():
    """The two probe sources (synthetic instances, mapped trace jobs) find the same policies for
    each job model."""
    from dlsched.arena import mapping

    kind = {"rigid": "linear"}
    for model in mapping.MODELS:
        assert registry.compatible_policies(kind.get(model, model)) == mapping.compatible_policies(model), (
            model
        )


def test_check_policy_is_silent_for_a_compatible_pair_and_names_unknown_policies():
    wl = registry.make_workload("specon", seed=0, n_jobs=3)
    registry.check_policy("specon", wl)
    with pytest.raises(ValueError, match="unknown policy 'nope'"):
        registry.check_policy("nope", wl)
    with pytest.raises(registry.IncompatibleError, match=r"policy 'optimus' cannot run workload 'mine'"):
        registry.check_policy("optimus", wl, "mine")
    assert registry.policy_models("pdors") == ["pdors"]

"""Tests of the committed results store (dlsched.store), sweep(store=...) and ``dlsched audit``.

Round trip and sha256, corrupt / missing / stale entries, the lookup order store -> cache ->
compute, recording through ``DLSCHED_STORE_RECORD`` with an atomic commit, the audit (pass,
tampered value, bad sha256, skipped volatile points, deterministic sampling) and the CLI's exit
codes. The experiment functions are the tiny ones of tests/_store_fns.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import _store_fns as fns
import pytest
from pandas.testing import assert_frame_equal

import dlsched
from dlsched import cli, store
from dlsched.experiments import cache_key, param_grid, sweep
from dlsched.store import ResultStore, StoreCorruptError, StoreWriter

TESTS_DIR = str(Path(__file__).resolve().parent)
GRID = param_grid({"n": 5}, seed=[0, 1, 2])
XGRID = param_grid(x=[1.5, 2.5])
FNS = {"_store_fns:frame", "_store_fns:other", "_store_fns:timed", "_store_fns:measured"}


@pytest.fixture(autouse=True)
def _clean(monkeypatch):
    monkeypatch.delenv(store.RECORD_ENV, raising=False)
    monkeypatch.delenv(store.NOTEBOOK_ENV, raising=False)
    fns.CALLS.clear()
    yield
    fns.CALLS.clear()


def _fill(path: Path, fn=fns.frame, grid=GRID, notebook: str | None = None) -> ResultStore:
    """A store at ``path`` holding ``grid``'s points of ``fn`` (computed through a sweep)."""
    s = ResultStore(path)
    writer = s.staging()
    env = {store.RECORD_ENV: str(writer.path)}
    if notebook:
        env[store.NOTEBOOK_ENV] = notebook
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        sweep(fn, grid, scheduler="serial", store=s)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    writer.commit()
    return s


def _hidden(folder: Path) -> list[str]:
    """Hidden files and folders a commit may leave next to a store (its lock file aside)."""
    return [p.name for p in folder.iterdir() if p.name.startswith(".") and not p.name.endswith(".lock")]


def _snapshot(path: Path) -> dict[str, bytes]:
    if not path.exists():
        return {}
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


def _edit_entry(s: ResultStore, key: str, **changes) -> None:
    doc = json.loads((s.path / "manifest.json").read_text())
    doc["entries"][key].update(changes)
    (s.path / "manifest.json").write_text(json.dumps(doc, indent=1, sort_keys=True))


def _pack_file(s: ResultStore, key: str) -> Path:
    return s.path / store.PACKS / s.entry(key)["pack"]


def _tamper_value(s: ResultStore, key: str, column: str = "value") -> None:
    """Change one value of a stored frame in its pack and fix up the pack's and the entry's sha256
    (an edit that only a recomputation can tell)."""
    e = s.entry(key)
    file = _pack_file(s, key)
    pack = store.decode(file.read_bytes())
    row = e["start"] + (1 if e["rows"] > 1 else 0)
    pack.loc[row, column] = pack.loc[row, column] + (1 if pack[column].dtype.kind in "iu" else 1e-12)
    data = store.encode(pack)
    file.write_bytes(data)
    piece = pack.iloc[e["start"] : e["start"] + e["rows"]].reset_index(drop=True)
    doc = json.loads((s.path / "manifest.json").read_text())
    doc["packs"][e["pack"]]["sha256"] = hashlib.sha256(data).hexdigest()
    doc["entries"][key]["sha256"] = store.frame_sha256(piece)
    (s.path / "manifest.json").write_text(json.dumps(doc, indent=1, sort_keys=True))


# --------------------------------------------------------------------------- keys, fingerprints


def test_point_key_is_cache_key():
    for p in [*GRID, {"seed": 1, "nested": {"a": [1, 2.0, None]}, "t": "x"}]:
        canonical = json.loads(json.dumps(p))
        assert store.point_key(fns.frame, canonical) == cache_key(fns.frame, p)
        assert store.point_key("_store_fns:frame", canonical) == cache_key(fns.frame, p)


def test_fingerprint_rule_and_source_change(tmp_path, monkeypatch):
    files = [name for name, _ in store._fingerprint_files("dlsched.oasis.experiments:ratio_run")]
    assert "oasis/policy.py" in files and "core/simulator.py" in files and "registry.py" in files
    assert not any(f.startswith(("pdors/", "specon/", "arena/")) for f in files)
    # what the function's module cannot reach (presentation, storage) does not stale its points
    assert "oasis/explain.py" not in files and "store.py" not in files and "reproduce.py" not in files
    specon = [name for name, _ in store._fingerprint_files("dlsched.specon.experiments:pair_run")]
    assert "optimus/curves.py" in specon
    arena = [name for name, _ in store._fingerprint_files("dlsched.arena.experiments:arena_point")]
    assert all(any(f.startswith(f"{w}/") for f in arena) for w in (*store.WINGS, "arena"))

    mod = tmp_path / "fp_probe_mod.py"
    mod.write_text("def f(params):\n    return None\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = store.code_fingerprint("fp_probe_mod:f")
    assert before == store.code_fingerprint("fp_probe_mod:f")
    mod.write_text("def f(params):\n    return 1\n")
    os.utime(mod, ns=(1, 1))  # a different stat signature, whatever the clock resolution
    assert store.code_fingerprint("fp_probe_mod:f") != before


def test_fingerprint_memo_follows_the_package_tree(tmp_path, monkeypatch):
    """A dlsched function's digest is served from the package's stat signature while no file
    changes, and recomputed (the same rule) when one does."""
    fn = "dlsched.oasis.experiments:ratio_run"
    first = store.code_fingerprint(fn)
    assert store._FP_TREE_MEMO[fn] == (store._tree_signature(), first)
    store._FP_TREE_MEMO.clear()
    store._FP_MEMO.clear()
    assert store.code_fingerprint(fn) == first  # the slow path gives the same digest
    pkg = tmp_path / "dlsched"
    shutil.copytree(store.PACKAGE, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(store, "PACKAGE", pkg)
    assert store.code_fingerprint(fn) == first  # a copy of the same code
    policy = pkg / "oasis" / "policy.py"
    policy.write_text(policy.read_text() + "\n_PROBE = 1\n")
    changed = store.code_fingerprint(fn)
    assert changed != first and store._FP_TREE_MEMO[fn][1] == changed
    (pkg / "oasis" / "explain.py").write_text("X = 2\n")  # a file the function cannot reach
    assert store.code_fingerprint(fn) == changed


def test_arena_fingerprint_is_scoped_to_the_point_policy(tmp_path, monkeypatch):
    """An arena point runs one registered policy: its fingerprint holds that policy's modules and
    none of the other policies' (store.POLICY_SCOPED), so an edit of Optimus's policy module
    stales the Optimus and Tetris points only; without params the rule is the unscoped one."""
    fn = "dlsched.arena.experiments:arena_point"
    files = {pol: [n for n, _ in store._fingerprint_files(fn, pol)] for pol in ("fifo", "optimus", "tetris")}
    assert "optimus/policy.py" in files["optimus"] and "optimus/placement.py" in files["tetris"]
    assert "optimus/policy.py" not in files["fifo"] and "aonline/policy.py" not in files["fifo"]
    assert "optimus/workload.py" in files["fifo"]  # statically imported by the mapping: always in
    assert store.policy_scope(fn, {"policy": "fifo"}) == "fifo"
    assert store.policy_scope(fn, None) is None
    assert store.policy_scope("dlsched.oasis.experiments:ratio_run", {"policy": "fifo"}) is None
    pkg = tmp_path / "dlsched"
    shutil.copytree(store.PACKAGE, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(store, "PACKAGE", pkg)
    before = {pol: store.code_fingerprint(fn, {"policy": pol}) for pol in ("fifo", "optimus", "tetris", "x")}
    unscoped = store.code_fingerprint(fn)
    assert before["x"] == unscoped  # an unknown policy: every policy's modules, as without params
    assert len({before["fifo"], before["optimus"], unscoped}) == 3 and before["optimus"] == before["tetris"]
    placement = pkg / "optimus" / "placement.py"
    placement.write_text(placement.read_text() + "\n_PROBE = 1\n")
    after = {pol: store.code_fingerprint(fn, {"policy": pol}) for pol in ("fifo", "optimus", "tetris")}
    assert after["fifo"] == before["fifo"]
    assert after["optimus"] != before["optimus"] and after["tetris"] != before["tetris"]
    assert store.code_fingerprint(fn) != unscoped


def test_volatile_rule():
    assert store.is_volatile(fns.timed) and not store.is_volatile(fns.frame)
    assert store.volatile_columns(fns.timed) == ("seconds",)
    assert store.volatile_columns(fns.measured) == ("*",)
    assert store.volatile_columns("dlsched.oasis.experiments:ratio_run") == ("solve_seconds",)
    assert store.volatile_columns(fns.frame) == ()


# --------------------------------------------------------------------------- store and writer


def test_round_trip_sha256_and_manifest(tmp_path, monkeypatch):
    monkeypatch.setenv(store.NOTEBOOK_ENV, "07_demo.ipynb")
    s = ResultStore(tmp_path / "results")
    assert len(s) == 0 and s.get(cache_key(fns.frame, GRID[0])) is None and not s.path.exists()
    with s.staging() as w:
        for p in GRID:
            frame, seconds = store.recompute(fns.frame, p)
            w.record(cache_key(fns.frame, p), fns.frame, p, frame, seconds)
        staging = w.path
    assert not staging.exists()
    assert len(s) == 3 and s.size_bytes() > 0
    for p in GRID:
        key = cache_key(fns.frame, p)
        assert key in s
        e = s.entry(key)
        data = (s.path / store.PACKS / e["pack"]).read_bytes()
        assert s.packs()[e["pack"]]["sha256"] == hashlib.sha256(data).hexdigest()
        assert e["sha256"] == store.frame_sha256(s.get(key))
        assert e["fn"] == "_store_fns:frame" and e["params"] == p and e["rows"] == 5
        assert e["version"] == dlsched.__version__ and e["fingerprint"] == store.code_fingerprint(fns.frame)
        assert e["notebook"] == "07_demo.ipynb" and e["audit"] is True and e["seconds"] >= 0
        assert_frame_equal(s.get(key), store.recompute(fns.frame, p)[0], check_exact=True)
    doc = json.loads((s.path / "manifest.json").read_text())
    assert doc["format"] == 2 and sorted(doc["entries"]) == sorted(s.entries())
    # the three points share one pack (one notebook, function and schema), one after the other
    assert len(doc["packs"]) == 1 and [p.name for p in (s.path / store.PACKS).iterdir()] == list(doc["packs"])
    starts = sorted(e["start"] for e in doc["entries"].values())
    assert starts == [0, 5, 10] and next(iter(doc["packs"].values()))["rows"] == 15


def test_store_frames_equal_fresh_sweep(tmp_path):
    fresh = sweep(fns.frame, GRID, scheduler="serial")
    s = _fill(tmp_path / "results")
    fns.CALLS.clear()
    stored = sweep(fns.frame, GRID, scheduler="serial", store=s)
    assert fns.CALLS == []
    assert_frame_equal(stored, fresh, check_exact=True)
    assert str(stored["kind"].dtype) == "category" and stored["count"].dtype == "int32"
    # a path works as well as a ResultStore, and a named index survives too
    sx = _fill(tmp_path / "results", fn=fns.other, grid=XGRID)
    assert len(sx) == 5
    assert_frame_equal(sweep(fns.other, XGRID, scheduler="serial", store=str(s.path)),
                       sweep(fns.other, XGRID, scheduler="serial"), check_exact=True)  # fmt: skip


def test_corrupt_and_missing_files_raise(tmp_path):
    s = _fill(tmp_path / "results")
    k0, k1 = (cache_key(fns.frame, p) for p in GRID[:2])
    file0 = _pack_file(s, k0)
    file0.write_bytes(file0.read_bytes()[:-1] + b"\0")
    with pytest.raises(StoreCorruptError, match=k0) as info:
        s.get(k0)
    assert info.value.key == k0 and "regenerate" in str(info.value)
    with pytest.raises(StoreCorruptError, match=k0):  # a sweep never recomputes it silently
        sweep(fns.frame, GRID, scheduler="serial", store=s)
    file0.unlink()
    with pytest.raises(StoreCorruptError, match=f"{k1}.*missing"):
        s.get(k1)
    # an entry whose own sha256 does not match its rows of an intact pack
    s2 = _fill(tmp_path / "results2")
    _edit_entry(s2, k0, sha256="0" * 64)
    with pytest.raises(StoreCorruptError, match=f"{k0}.*do not match"):
        ResultStore(s2.path).get(k0)


def test_stale_entry_not_served(tmp_path):
    s = _fill(tmp_path / "results")
    k0 = cache_key(fns.frame, GRID[0])
    _edit_entry(s, k0, fingerprint="0" * 64)
    s = ResultStore(s.path)
    assert s.stale() == [k0] and s.stale_reason(k0) == "fingerprint"
    assert s.get(k0) is None
    assert_frame_equal(s.get(k0, allow_stale=True), store.recompute(fns.frame, GRID[0])[0])
    fns.CALLS.clear()
    sweep(fns.frame, GRID, scheduler="serial", store=s)
    assert fns.CALLS == [GRID[0]]
    lines: list[str] = []
    assert store.stale_report(s, echo=lines.append) == [k0]
    assert k0[:12] in lines[0] and lines[-1] == "1 stale, 0 unused of 3 entries"


def test_lookup_order_store_then_cache_then_compute(tmp_path):
    s = _fill(tmp_path / "results", grid=GRID[:1])
    cache = tmp_path / "cache"
    sweep(fns.frame, GRID[1:2], scheduler="serial", cache_dir=cache)
    fns.CALLS.clear()
    out = sweep(fns.frame, GRID, scheduler="serial", cache_dir=cache, store=s)
    assert fns.CALLS == [GRID[2]]  # GRID[0] from the store, GRID[1] from the cache
    assert_frame_equal(out, sweep(fns.frame, GRID, scheduler="serial"), check_exact=True)
    assert len(ResultStore(s.path)) == 1  # reading never writes the store


def test_record_env_recomputes_and_commit_swaps(tmp_path, monkeypatch):
    s = _fill(tmp_path / "results", grid=GRID[:1])
    before = _snapshot(s.path)
    writer = s.staging()
    monkeypatch.setenv(store.RECORD_ENV, str(writer.path))
    monkeypatch.setenv(store.FRESH_ENV, "1")
    monkeypatch.setenv(store.NOTEBOOK_ENV, "12_regen.ipynb")
    cache = tmp_path / "cache"
    sweep(fns.frame, GRID[1:2], scheduler="serial", cache_dir=cache)
    fns.CALLS.clear()
    sweep(fns.frame, GRID, scheduler="serial", cache_dir=cache, store=s)
    assert fns.CALLS == GRID  # fresh: neither the store nor the cache is read
    assert sorted(writer.staged()) == sorted(cache_key(fns.frame, p) for p in GRID)
    assert _snapshot(s.path) == before  # nothing reaches the store before commit
    fns.CALLS.clear()
    sweep(fns.frame, GRID, scheduler="serial")  # without a store, recording is off
    assert len(writer.staged()) == 3
    assert writer.commit() == sorted(cache_key(fns.frame, p) for p in GRID)
    assert len(s) == 3 and all(e["notebook"] == "12_regen.ipynb" for e in s.entries().values())
    assert not writer.path.exists()
    assert _hidden(s.path.parent) == []


def test_record_keeps_stored_points_and_computes_the_rest(tmp_path, monkeypatch):
    """``--record``: stored points are served and kept, missing ones computed (never read from the
    cache) and added; the points the notebook no longer uses are dropped; an untouched pack keeps
    its file."""
    monkeypatch.setenv(store.NOTEBOOK_ENV, "12_regen")
    s = _fill(tmp_path / "results", grid=GRID[:2])
    s = _fill(s.path, fn=fns.other, grid=XGRID)
    other_pack = s.entry(cache_key(fns.other, XGRID[0]))["pack"]
    cache = tmp_path / "cache"
    sweep(fns.frame, GRID[2:], scheduler="serial", cache_dir=cache)
    writer = s.staging()
    monkeypatch.setenv(store.RECORD_ENV, str(writer.path))
    fns.CALLS.clear()
    out = sweep(fns.frame, GRID[1:], scheduler="serial", cache_dir=cache, store=s)
    sweep(fns.other, XGRID, scheduler="serial", store=s)
    assert fns.CALLS == [GRID[2]]  # GRID[1] and XGRID from the store, GRID[2] computed, not cached
    assert_frame_equal(out, sweep(fns.frame, GRID[1:], scheduler="serial"), check_exact=True)
    assert sorted(writer.staged()) == [cache_key(fns.frame, GRID[2])]
    assert writer.kept() == {cache_key(fns.frame, GRID[1]), *(cache_key(fns.other, p) for p in XGRID)}
    writer.commit(replace_notebooks=["12_regen"])
    s = ResultStore(s.path)
    assert sorted(s.entries()) == sorted([*(cache_key(fns.frame, p) for p in GRID[1:]),
                                          *(cache_key(fns.other, p) for p in XGRID)])  # fmt: skip
    assert s.entry(cache_key(fns.other, XGRID[0]))["pack"] == other_pack
    assert len(list((s.path / store.PACKS).iterdir())) == len(s.packs()) == 2


def test_interrupted_writer_leaves_store_unchanged(tmp_path, monkeypatch):
    s = _fill(tmp_path / "results", grid=GRID[:2])
    before = _snapshot(s.path)
    with pytest.raises(RuntimeError, match="interrupted"), s.staging() as w:
        frame, secs = store.recompute(fns.frame, GRID[2])
        w.record(cache_key(fns.frame, GRID[2]), fns.frame, GRID[2], frame, secs)
        raise RuntimeError("interrupted")
    assert _snapshot(s.path) == before and not w.path.exists()

    # a failure inside commit (before the swap) leaves the store and no temporary folder
    w = StoreWriter(s.path)
    frame, secs = store.recompute(fns.frame, GRID[2])
    w.record(cache_key(fns.frame, GRID[2]), fns.frame, GRID[2], frame, secs)

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(store, "_manifest_bytes", boom)
    with pytest.raises(OSError, match="disk full"):
        w.commit()
    monkeypatch.undo()
    assert _snapshot(s.path) == before
    leftovers = _hidden(s.path.parent)
    assert leftovers == [w.path.name]  # only the staging folder stays, for a retry

    # a death between the two renames: the next ResultStore puts the old store back
    os.rename(s.path, s.path.parent / ".results.old-1-abcd")
    assert _snapshot(ResultStore(s.path).path) == before
    assert w.commit() and len(ResultStore(s.path)) == 3


# --------------------------------------------------------------------------- audit


def _mixed_store(path: Path) -> ResultStore:
    _fill(path, grid=param_grid({"n": 5}, seed=range(6)), notebook="07_demo.ipynb")
    _fill(path, fn=fns.other, grid=XGRID)
    _fill(path, fn=fns.measured, grid=[{"n": 10}])
    return _fill(path, fn=fns.timed, grid=[{"n": 10}])


def test_audit_passes_and_skips_volatile(tmp_path):
    s = _mixed_store(tmp_path / "results")
    lines: list[str] = []
    report = store.audit(s, check_all=True, echo=lines.append)
    assert (report.passed, report.failed, report.skipped, report.exit_code) == (9, 0, 1, 0)
    assert lines[-1] == "9 passed, 0 failed"
    assert sum(line.startswith("skipped") and "_store_fns:measured" in line for line in lines) == 1
    # the wall-clock column of `timed` is not compared; its other columns are
    k_timed = cache_key(fns.timed, {"n": 10})
    _tamper_value(s, k_timed, "seconds")
    assert store.audit(s, check_all=True, echo=None).exit_code == 0
    _tamper_value(s, k_timed, "total")
    report = store.audit(s, check_all=True, echo=None)
    assert [r.key for r in report.results if r.failed] == [k_timed]


def test_audit_on_workers_gives_the_serial_report(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([TESTS_DIR, os.environ.get("PYTHONPATH", "")]))
    s = _mixed_store(tmp_path / "results")
    k = cache_key(fns.other, XGRID[0])
    _tamper_value(s, k, "y")
    serial = store.audit(s, check_all=True, echo=None)
    lines: list[str] = []
    parallel = store.audit(s, check_all=True, echo=lines.append, workers=2)
    assert [(r.key, r.status) for r in parallel.results] == [(r.key, r.status) for r in serial.results]
    assert [r.key for r in parallel.results if r.failed] == [k] and lines[-1] == "8 passed, 1 failed"
    with pytest.raises(ValueError, match="workers"):
        store.audit(s, check_all=True, workers=0)


def test_stale_report_names_points_a_notebook_no_longer_asks_for(tmp_path, monkeypatch):
    s = _fill(tmp_path / "results", notebook="07_demo")
    uses = tmp_path / "uses"
    monkeypatch.setenv(store.USES_ENV, str(uses))
    monkeypatch.setenv(store.NOTEBOOK_ENV, "07_demo")
    sweep(fns.frame, GRID[1:], scheduler="serial", store=s)  # the notebook now asks for two points
    store.note_uses([])
    part = uses / "07_demo.keys.part"
    assert part.read_text().split() == [cache_key(fns.frame, p) for p in GRID[1:]]
    lines: list[str] = []
    assert store.stale_report(s, echo=lines.append, uses=uses) == []  # no complete run recorded
    assert "no record" in lines[-1] and "07_demo" in lines[-1]
    part.rename(uses / "07_demo.keys")
    k0 = cache_key(fns.frame, GRID[0])
    assert store.unused(s, store.read_uses(uses)) == [k0]
    lines.clear()
    assert store.stale_report(s, echo=lines.append, uses=uses) == [k0]
    assert lines[0].startswith("unused") and k0[:12] in lines[0] and '"seed": 0' in lines[0]
    assert lines[-1] == "0 stale, 1 unused of 3 entries"


def test_audit_fails_on_tampered_value_and_bad_sha256(tmp_path):
    s = _mixed_store(tmp_path / "results")
    p_bad = {"n": 5, "seed": 3}
    k_bad = cache_key(fns.frame, p_bad)
    _tamper_value(s, k_bad)
    assert s.get(k_bad) is not None  # the sha256 is fixed up: only a recomputation can tell
    k_sha = cache_key(fns.other, XGRID[0])
    _edit_entry(s, k_sha, sha256="f" * 64)
    lines: list[str] = []
    report = store.audit(s, check_all=True, echo=lines.append)
    assert (report.passed, report.failed, report.exit_code) == (7, 2, 1)
    assert lines[-1] == "7 passed, 2 failed"
    text = "\n".join(lines)
    mismatch = next(line for line in lines if line.startswith("MISMATCH"))
    assert "_store_fns:frame" in mismatch and k_bad[:12] in mismatch
    assert json.dumps(p_bad, sort_keys=True) in text
    assert "dlsched reproduce --only 07 --mode paper --fresh" in text
    corrupt = next(line for line in lines if line.startswith("CORRUPT"))
    assert k_sha[:12] in corrupt and "python -c" in text and "regenerate(sys.argv[1]" in text
    assert "_store_fns:other '{\"x\": 1.5}' " in text


def test_sample_covers_every_fn_and_is_deterministic(tmp_path):
    s = _mixed_store(tmp_path / "results")
    entries = s.entries()
    for k in (1, 4, 6):
        picks = [store.select_sample(entries, k, seed) for seed in range(5)]
        for pick in picks:
            assert {entries[x]["fn"] for x in pick} == FNS
            assert len(pick) == max(k, 4)
        assert picks[0] == store.select_sample(entries, k, 0)
    assert len({tuple(store.select_sample(entries, 4, seed)) for seed in range(10)}) > 1
    report = store.audit(s, sample=5, seed=3, echo=None)
    assert len(report.results) == 5 and report.exit_code == 0


# --------------------------------------------------------------------------- command line


def test_cli_exit_codes(tmp_path, capsys):
    s = _mixed_store(tmp_path / "results")
    path = str(s.path)
    assert cli.main(["audit", "--sample", "3", "--seed", "1", "--store", path]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "3 passed, 0 failed"  # + 1 skipped (measured)
    assert cli.main(["audit", "--stale", "--store", path]) == 0
    _tamper_value(s, cache_key(fns.frame, {"n": 5, "seed": 0}))
    assert cli.main(["audit", "--all", "--store", path]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == "8 passed, 1 failed"
    _edit_entry(s, cache_key(fns.frame, {"n": 5, "seed": 1}), fingerprint="0" * 64)
    assert cli.main(["audit", "--stale", "--store", path]) == 1
    capsys.readouterr()
    for bad in (
        ["audit", "--store", path],
        ["audit", "--sample", "0", "--store", path],
        ["audit", "--sample", "2", "--all", "--store", path],
        ["audit", "--all", "--seed", "1", "--store", path],
        ["audit", "--sample", "x"],
        ["audit", "--all", "--store", str(tmp_path / "nowhere")],
    ):
        assert cli.main(bad) == 2, bad
        err = capsys.readouterr().err
        assert err.startswith("dlsched: error:") and len(err.splitlines()) == 1


def test_regenerate_hint_command_runs(tmp_path):
    s = _fill(tmp_path / "results", fn=fns.other, grid=XGRID[:1])
    key = cache_key(fns.other, XGRID[0])
    hint = store.regenerate_hint(key, s.entry(key), s.path)
    assert hint.startswith("python -c ")
    _pack_file(s, key).unlink()
    with pytest.raises(StoreCorruptError, match=re.escape(hint)):
        s.get(key)
    path = os.pathsep.join([TESTS_DIR, *filter(None, [os.environ.get("PYTHONPATH")])])
    env = {**os.environ, "PYTHONPATH": path}
    argv = [sys.executable, *shlex.split(hint)[1:]]
    subprocess.run(argv, env=env, check=True, capture_output=True, timeout=120)
    assert_frame_equal(s.get(key), store.recompute(fns.other, XGRID[0])[0], check_exact=True)


def test_fingerprint_ignores_docstrings_comments_and_layout_not_code(tmp_path, monkeypatch):
    import importlib
    import os

    from dlsched.store import code_fingerprint

    mod = tmp_path / "fpmod.py"
    monkeypatch.syspath_prepend(str(tmp_path))

    def fingerprint(text: str, tick: int) -> str:
        mod.write_text(text)
        os.utime(mod, ns=(tick, tick))  # the memo keys on mtime and size
        importlib.invalidate_caches()
        return code_fingerprint("fpmod:f")

    a = fingerprint('"""Doc."""\n\ndef f(p):\n    """Run."""\n    return p  # note\n', 1)
    b = fingerprint('"""Other doc."""\n\n\ndef f(p):\n    """Changed."""\n    return (p)\n', 2)
    c = fingerprint('"""Doc."""\n\ndef f(p):\n    return p + 1\n', 3)
    assert a == b and a != c


def test_sample_budget_prefers_cheap_points(tmp_path):
    s = _mixed_store(tmp_path / "results")
    entries = s.entries()
    slow = sorted(k for k, e in entries.items() if e["fn"] == "_store_fns:frame")[:5]
    for k in slow:  # pretend these took long to compute
        entries[k] = {**entries[k], "seconds": 1000.0}
    for seed in range(6):
        pick = store.select_sample(entries, 30, seed, budget=60.0)
        assert {entries[x]["fn"] for x in pick} == FNS  # still one point of every function
        assert not set(pick) & set(slow)
        assert len(pick) == len(entries) - len(slow)
    # a function whose every point is slow still gets its cheapest one
    only_slow = {k: e for k, e in entries.items() if k in slow or e["fn"] != "_store_fns:frame"}
    pick = store.select_sample(only_slow, 2, 0, budget=60.0)
    assert sum(x in slow for x in pick) == 1
    with pytest.raises(ValueError, match="budget"):
        store.audit(s, sample=3, budget=0)
    assert cli.main(["audit", "--all", "--budget", "5", "--store", str(s.path)]) == 2


_SLOT_SCRIPT = r"""
import json, os, sys, time
from dlsched import store
kind, out, go = sys.argv[1], sys.argv[4], sys.argv[5]
points, seconds, delay = int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[6])
while not os.path.exists(go):
    time.sleep(0.005)
time.sleep(delay)
spans = []
for _ in range(points):
    with store.measurement_slot(kind == "exclusive"):
        with store.measurement_slot(False):  # nested: no second lock, no deadlock
            t0 = time.time()
            time.sleep(seconds)
            spans.append((t0, time.time()))
with open(out, "w") as f:
    json.dump(spans, f)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX flock")
def test_measurement_slot_runs_a_measurement_alone_and_first(tmp_path):
    """With DLSCHED_MEASURE_LOCK set (a parallel regeneration), a wall-clock measurement never
    overlaps another point, and a waiting measurement goes before points not yet started."""
    from dlsched.pdors import checks as pdors_checks
    from dlsched.specon import paper as specon_paper

    assert store.is_measurement(specon_paper.testbed_run)
    assert not store.is_measurement(pdors_checks.ratio_run)  # only a column is timed
    with store.measurement_slot(True):  # without the variable: nothing to wait for
        pass
    env = {**os.environ, store.MEASURE_LOCK_ENV: str(tmp_path / "m.lock")}
    go = tmp_path / "go"
    runs = [("shared", 4, 0.15, 0.0), ("shared", 4, 0.15, 0.05), ("exclusive", 1, 0.3, 0.2)]
    procs = [
        subprocess.Popen([sys.executable, "-c", _SLOT_SCRIPT, kind, str(n), str(sec),
                          str(tmp_path / f"{i}.json"), str(go), str(delay)], env=env)
        for i, (kind, n, sec, delay) in enumerate(runs)
    ]
    (tmp_path / "ready").write_text("")
    import time as _t

    _t.sleep(1.5)  # the three have imported dlsched
    go.write_text("")
    assert all(p.wait(timeout=60) == 0 for p in procs)
    spans = [json.loads((tmp_path / f"{i}.json").read_text()) for i in range(3)]
    (x0, x1), = spans[2]
    shared = spans[0] + spans[1]
    assert all(b <= x0 or a >= x1 for a, b in shared)  # alone on the machine
    assert any(a >= x1 for a, b in shared)  # it did not wait for every point to finish

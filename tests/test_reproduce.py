"""Tests for dlsched.reproduce on tiny notebooks built with nbformat in tmp_path.

Kernel start-up costs a few seconds, so only four notebook executions happen in this
file: two in the shared successful run, one failing run and one ``only`` run.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

import dlsched
from dlsched.reproduce import (
    MANIFEST_PACKAGES,
    NotebookFailedError,
    UnknownParameterError,
    _plan,
    discover_notebooks,
    kernel_python,
    main,
    notebook_parameters,
    parse_param,
    reproduce,
)

RECORD = (
    "import json, os, sys\n"
    "print(json.dumps({'executable': sys.executable, 'cwd': os.getcwd(), "
    "'mode': mode, 'seed': seed}))"
)
PLOT = (
    "import matplotlib.pyplot as plt\n"
    "from dlsched.plotting import savefig, set_style\n"
    "set_style()\n"
    "fig, ax = plt.subplots(figsize=(2, 2))\n"
    "ax.plot([0, 1], [seed, seed + 1])\n"
    "paths = savefig(fig, 'fig_overview_01_tiny', figures_dir, formats=('png',))\n"
    "plt.close(fig)"
)


def write_notebook(path: Path, parameters: str | None, *cells: str) -> Path:
    """A small notebook: title, optional parameters-tagged cell, then code cells."""
    nb = new_notebook(
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
        }
    )
    nb.cells.append(new_markdown_cell(f"# {path.stem}"))
    if parameters is not None:
        nb.cells.append(new_code_cell(parameters, metadata={"tags": ["parameters"]}))
    nb.cells.extend(new_code_cell(src) for src in cells)
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def two_notebooks(folder: Path) -> Path:
    write_notebook(
        folder / "01_alpha.ipynb",
        'mode = "quick"\nseed = 0\nfigures_dir = "figures"',
        RECORD,
        PLOT,
    )
    write_notebook(
        folder / "02_beta.ipynb",
        '# literal defaults only\nmode = "quick"\nseed: int = 0\nlabel = "b"\ncache_dir = "cache"',
        RECORD,
    )
    return folder


def record_of(executed: Path) -> dict:
    nb = nbformat.read(executed, as_version=4)
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.get("name") == "stdout" and out["text"].startswith("{"):
                return json.loads(out["text"])
    raise AssertionError(f"no record printed in {executed}")


# --------------------------------------------------------------------------- a real run


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("run")
    nb_dir = two_notebooks(root / "notebooks")
    manifest = reproduce(
        "full",  # the older name of "paper", still accepted
        {"seed": 3},
        notebooks_dir=nb_dir,
        output_dir=root / "build" / "reproduce",
        figures_dir=root / "figures",
        cache_dir=root / "build" / "cache",
        progress=False,
    )
    return root, manifest


def test_manifest_fields(run):
    root, manifest = run
    on_disk = json.loads((root / "build" / "reproduce" / "manifest.json").read_text())
    assert on_disk == manifest
    assert manifest["dlsched_version"] == dlsched.__version__
    assert manifest["python_version"] == ".".join(map(str, sys.version_info[:3]))
    assert manifest["platform"]
    assert manifest["mode"] == "paper"
    assert manifest["status"] == "ok" and manifest["failed_notebook"] is None
    assert set(manifest["packages"]) == set(MANIFEST_PACKAGES)
    for dist in ("numpy", "papermill", "nbformat", "matplotlib"):
        assert manifest["packages"][dist] == importlib.metadata.version(dist)
    entries = manifest["notebooks"]
    assert [e["name"] for e in entries] == ["01_alpha", "02_beta"]
    assert [e["status"] for e in entries] == ["ok", "ok"]
    assert all(isinstance(e["seconds"], float) and e["seconds"] > 0 for e in entries)


def test_parameters_each_notebook_received(run):
    root, manifest = run
    first, second = (e["parameters"] for e in manifest["notebooks"])
    assert first == {"mode": "paper", "figures_dir": str(root / "figures"), "seed": 3}
    assert second == {"mode": "paper", "cache_dir": str(root / "build" / "cache"), "seed": 3}


def test_figure_hashes_are_correct(run):
    root, manifest = run
    png = root / "figures" / "fig_overview_01_tiny.png"
    assert manifest["figures"] == [
        {
            "name": png.name,
            "sha256": hashlib.sha256(png.read_bytes()).hexdigest(),
            "size": png.stat().st_size,
        }
    ]


def test_injected_parameters_visible_in_executed_copy(run):
    root, _ = run
    out_dir = root / "build" / "reproduce"
    assert sorted(p.name for p in out_dir.iterdir()) == [
        "01_alpha.ipynb",
        "02_beta.ipynb",
        "manifest.json",
    ]  # no temporary files left behind
    nb = nbformat.read(out_dir / "01_alpha.ipynb", as_version=4)
    injected = [c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert len(injected) == 1
    assert 'mode = "paper"' in injected[0].source and "seed = 3" in injected[0].source
    assert nb.metadata["papermill"]["parameters"]["seed"] == 3
    assert nb.metadata["papermill"]["output_path"] == str(out_dir / "01_alpha.ipynb")
    record = record_of(out_dir / "01_alpha.ipynb")
    assert record["mode"] == "paper" and record["seed"] == 3
    assert record["cwd"] == str(root / "notebooks")  # runs in notebooks_dir


def test_kernel_runs_this_interpreter(run):
    root, _ = run
    record = record_of(root / "build" / "reproduce" / "02_beta.ipynb")
    assert record["executable"] == sys.executable
    assert kernel_python("python3") == sys.executable


# --------------------------------------------------------------------------- failures


def failing_notebooks(folder: Path) -> Path:
    write_notebook(
        folder / "01_boom.ipynb", 'mode = "quick"', "x = 1", "raise RuntimeError('kaboom 42')"
    )
    write_notebook(
        folder / "02_after.ipynb",
        'mode = "quick"',
        "open('after_ran.txt', 'w').write(mode)",
    )
    return folder


def test_failing_notebook_stops_the_run(tmp_path):
    nb_dir = failing_notebooks(tmp_path / "notebooks")
    out_dir = tmp_path / "out"
    with pytest.raises(NotebookFailedError, match="01_boom") as info:
        reproduce(
            notebooks_dir=nb_dir,
            output_dir=out_dir,
            figures_dir=tmp_path / "f",
            cache_dir=tmp_path / "c",
            progress=False,
        )
    assert "RuntimeError: kaboom 42" in str(info.value)
    assert info.value.notebook.name == "01_boom.ipynb"
    assert not (nb_dir / "after_ran.txt").exists()  # the later notebook never ran
    assert not (out_dir / "02_after.ipynb").exists()
    assert (out_dir / "01_boom.ipynb").exists()  # executed copy with the traceback
    manifest = json.loads((out_dir / "manifest.json").read_text())
    assert manifest["status"] == "failed" and manifest["failed_notebook"] == "01_boom"
    assert [e["status"] for e in manifest["notebooks"]] == ["failed", "skipped"]
    assert "kaboom 42" in manifest["notebooks"][0]["error"]


def test_only_selects_by_prefix(tmp_path):
    nb_dir = failing_notebooks(tmp_path / "notebooks")
    manifest = reproduce(
        notebooks_dir=nb_dir,
        output_dir=tmp_path / "out",
        figures_dir=tmp_path / "f",
        cache_dir=tmp_path / "c",
        only=["02"],
        progress=False,
    )
    assert [e["name"] for e in manifest["notebooks"]] == ["02_after"]
    assert (nb_dir / "after_ran.txt").read_text() == "paper"  # the runner's default mode
    assert manifest["figures"] == []


# --------------------------------------------------------------------------- validation (no run)


def _kwargs(tmp_path: Path) -> dict:
    return dict(
        notebooks_dir=two_notebooks(tmp_path / "notebooks"),
        output_dir=tmp_path / "out",
        figures_dir=tmp_path / "figs",
        cache_dir=tmp_path / "cache",
        progress=False,
    )


def _nothing_written(tmp_path: Path) -> bool:
    return not any((tmp_path / d).exists() for d in ("out", "figs", "cache"))


def test_unknown_parameter_rejected_before_anything_runs(tmp_path):
    with pytest.raises(UnknownParameterError, match="'sed'") as info:
        reproduce("quick", {"seed": 1, "sed": 3}, **_kwargs(tmp_path))
    assert isinstance(info.value, ValueError)
    assert info.value.names == ["sed"]
    assert {"seed", "mode", "label"} <= set(info.value.declared)
    assert "seed" in str(info.value)  # lists the declared names
    assert _nothing_written(tmp_path)


def test_parameter_of_an_unselected_notebook_is_unknown(tmp_path):
    with pytest.raises(UnknownParameterError, match="'label'"):
        reproduce("quick", {"label": "x"}, only=["01_alpha"], **_kwargs(tmp_path))
    assert _nothing_written(tmp_path)


def test_type_mismatch_rejected(tmp_path):
    with pytest.raises(ValueError, match=r"01_alpha.*'seed'.*'abc'"):
        reproduce("quick", {"seed": "abc"}, **_kwargs(tmp_path))
    with pytest.raises(ValueError, match=r"02_beta.*'label'.*3"):
        reproduce("quick", {"label": 3}, **_kwargs(tmp_path))
    with pytest.raises(ValueError, match=r"'seed'.*True"):
        reproduce("quick", {"seed": True}, **_kwargs(tmp_path))
    assert _nothing_written(tmp_path)


def test_int_and_float_are_interchangeable(tmp_path):
    nbs = discover_notebooks(two_notebooks(tmp_path / "nb"))
    plan = _plan(nbs, "quick", {"seed": 2.5}, tmp_path / "f", tmp_path / "c")
    assert [p["seed"] for p in plan.values()] == [2.5, 2.5]


@pytest.mark.parametrize("key", ["mode", "figures_dir", "cache_dir"])
def test_runner_owned_parameters_cannot_be_passed(tmp_path, key):
    with pytest.raises(ValueError, match=key):
        reproduce("quick", {key: "x"}, **_kwargs(tmp_path))
    assert _nothing_written(tmp_path)


@pytest.mark.parametrize("mode", ["fast", "Quick", "", None])
def test_mode_validated(tmp_path, mode):
    with pytest.raises(ValueError, match=f"mode={mode!r}"):
        reproduce(mode, **_kwargs(tmp_path))  # type: ignore[arg-type]
    assert _nothing_written(tmp_path)


def test_unknown_only_rejected(tmp_path):
    with pytest.raises(ValueError, match="'07'"):
        reproduce(only=["07"], **_kwargs(tmp_path))
    assert _nothing_written(tmp_path)


def test_notebook_without_mode_rejected(tmp_path):
    kwargs = _kwargs(tmp_path)
    write_notebook(kwargs["notebooks_dir"] / "03_nomode.ipynb", "seed = 0", "pass")
    with pytest.raises(ValueError, match="03_nomode.*'mode'"):
        reproduce(**kwargs)
    assert _nothing_written(tmp_path)


def test_cli_reports_unknown_parameter(tmp_path, capsys):
    kw = _kwargs(tmp_path)
    code = main(
        [
            "--param",
            "sed=3",
            "--notebooks-dir",
            str(kw["notebooks_dir"]),
            "--output-dir",
            str(kw["output_dir"]),
            "--figures-dir",
            str(kw["figures_dir"]),
            "--no-progress",
        ]
    )
    assert code == 2
    assert "'sed'" in capsys.readouterr().err
    assert _nothing_written(tmp_path)


# --------------------------------------------------------------------------- pieces


def test_discover_notebooks_sorted_and_filtered(tmp_path):
    for name in [
        "20_b.ipynb",
        "03_a_x.ipynb",
        "1_short.ipynb",
        "04_Upper.ipynb",
        "notes.ipynb",
        "05_c.py",
        "06-dash.ipynb",
    ]:
        (tmp_path / name).write_text("{}")
    assert [p.name for p in discover_notebooks(tmp_path)] == ["03_a_x.ipynb", "20_b.ipynb"]


def test_discover_notebooks_empty_or_missing(tmp_path):
    with pytest.raises(FileNotFoundError, match=str(tmp_path)):
        discover_notebooks(tmp_path)
    with pytest.raises(FileNotFoundError, match="nowhere"):
        discover_notebooks(tmp_path / "nowhere")


def test_notebook_parameters_reads_literals(tmp_path):
    path = write_notebook(
        tmp_path / "01_p.ipynb",
        'mode = "quick"  # or "full"\nseed: int = 0\nrates = [0.5, 1.0]\nflag = True\nx = y = None',
        "z = seed + 1",
    )
    assert notebook_parameters(path) == {
        "mode": "quick",
        "seed": 0,
        "rates": [0.5, 1.0],
        "flag": True,
        "x": None,
        "y": None,
    }


@pytest.mark.parametrize(
    ("source", "match"),
    [
        (None, "01_p.ipynb has no code cell tagged 'parameters'"),
        ("n = 2 * 3", "'n'.*not a literal"),
        ("import os", "not an assignment"),
        ("a.b = 1", "plain names"),
    ],
)
def test_notebook_parameters_rejects(tmp_path, source, match):
    path = write_notebook(tmp_path / "01_p.ipynb", source, "pass")
    with pytest.raises(ValueError, match=match):
        notebook_parameters(path)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("seed=3", ("seed", 3)),
        ("rate=0.25", ("rate", 0.25)),
        ("flag=True", ("flag", True)),
        ("loads=[0.5, 1, 2]", ("loads", [0.5, 1, 2])),
        ("policy=oasis", ("policy", "oasis")),
        ("name='3'", ("name", "3")),
        ("expr=a=b", ("expr", "a=b")),
        (" seed = 4", ("seed", 4)),
        ("empty=", ("empty", "")),
        ("none=None", ("none", None)),
        ("path=../data/x.csv", ("path", "../data/x.csv")),
    ],
)
def test_parse_param(text, expected):
    assert parse_param(text) == expected


@pytest.mark.parametrize("text", ["seed", "=3", "  =3", "1x=2", "a b=1", ""])
def test_parse_param_malformed(text):
    with pytest.raises(ValueError, match=repr(text).replace("[", r"\[")):
        parse_param(text)


def test_shadowed_kernel_is_repaired_or_rejected(tmp_path, monkeypatch):
    import ipykernel.kernelspec

    import dlsched.reproduce as rp

    installs = []
    monkeypatch.setattr(rp, "kernel_python", lambda name="python3": "/elsewhere/bin/python")
    monkeypatch.setattr(
        ipykernel.kernelspec, "install", lambda **kw: installs.append(kw) or "/dev/null"
    )
    with pytest.raises(rp.KernelMismatchError, match="/elsewhere/bin/python"):
        reproduce(**_kwargs(tmp_path))
    assert installs == [{"prefix": sys.prefix, "kernel_name": "python3"}]
    assert _nothing_written(tmp_path)
    # An explicit kernel name is used as given, without checks.
    assert rp._resolve_kernel("some-kernel") == "some-kernel"


@pytest.mark.skipif(os.name != "posix", reason="IPC transport exists on POSIX only")
def test_kernels_start_on_ipc_transport():
    """No "Kernel is running over TCP without encryption" warning: papermill's and nbclient's
    kernels use local IPC sockets (ipykernel's own advice)."""
    from dlsched.reproduce import _kernel_manager_class

    km = _kernel_manager_class()()
    assert km.transport == "ipc"


# --------------------------------------------------------------------------- figures per mode


@pytest.mark.parametrize("mode", ["quick", "paper"])
def test_default_figures_dir_depends_on_the_mode(tmp_path, monkeypatch, mode):
    """Quick runs write under build/figures and never touch figures/ (the committed paper-scale ones)."""
    from dlsched.reproduce import FIGURES_DIRS

    monkeypatch.chdir(tmp_path)
    nb_dir = two_notebooks(tmp_path / "notebooks")
    committed = tmp_path / "figures" / "fig_overview_01_tiny.png"
    if mode == "quick":
        committed.parent.mkdir()
        committed.write_bytes(b"paper-scale")
    manifest = reproduce(mode, notebooks_dir=nb_dir, output_dir=tmp_path / "out", only=["01"], progress=False)
    expected = (tmp_path / FIGURES_DIRS[mode]).resolve()
    assert manifest["figures_dir"] == str(expected)
    assert (expected / "fig_overview_01_tiny.png").is_file()
    if mode == "quick":
        assert expected == (tmp_path / "build" / "figures").resolve()
        assert committed.read_bytes() == b"paper-scale"


# --------------------------------------------------------------------------- the results store

STORE_NB = """
from dlsched import experiments
import _store_fns
store = None if mode == "quick" else store_dir
grid = experiments.param_grid({}, seed=list(range(n_points)))
out = experiments.sweep(_store_fns.frame, grid, cache_dir=cache_dir, store=store, scheduler="serial")
print(len(out), len(_store_fns.CALLS))
"""


def store_notebook(folder: Path, fail: bool = False) -> Path:
    write_notebook(
        folder / "01_store.ipynb",
        'mode = "quick"\nn_points = 3\ncache_dir = "cache"\nstore_dir = "store"',
        STORE_NB + ("raise RuntimeError('boom')\n" if fail else ""),
    )
    return folder


def calls_printed(executed: Path) -> tuple[int, int]:
    nb = nbformat.read(executed, as_version=4)
    text = [o["text"] for c in nb.cells for o in c.get("outputs", []) if o.get("name") == "stdout"]
    rows, calls = (int(x) for x in text[-1].split())
    return rows, calls


def test_fresh_paper_run_fills_the_store_and_a_second_run_reads_it(tmp_path, monkeypatch):
    from dlsched.store import ResultStore

    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).parent))  # the kernel imports _store_fns
    nb_dir = store_notebook(tmp_path / "notebooks")
    store = tmp_path / "results"
    common = dict(notebooks_dir=nb_dir, output_dir=tmp_path / "out", figures_dir=tmp_path / "fig",
                  cache_dir=tmp_path / "cache", store_dir=store, progress=False)  # fmt: skip
    manifest = reproduce("paper", fresh=True, **common)
    assert manifest["store_committed"] == 3
    assert manifest["notebooks"][0]["parameters"]["store_dir"] == str(store)
    entries = ResultStore(store).entries()
    assert len(entries) == 3 and {e["notebook"] for e in entries.values()} == {"01_store"}
    assert calls_printed(tmp_path / "out" / "01_store.ipynb") == (12, 3)  # 3 points of 4 rows, all computed
    # paper mode, not fresh: every point from the store (no call), the store unchanged
    import shutil

    shutil.rmtree(tmp_path / "cache")
    manifest = reproduce("paper", **common)
    assert manifest["store_committed"] is None
    assert calls_printed(tmp_path / "out" / "01_store.ipynb") == (12, 0)
    assert ResultStore(store).entries() == entries
    # fewer points in the notebook: a fresh run drops the stored points that left it
    manifest = reproduce("paper", {"n_points": 2}, fresh=True, **common)
    assert manifest["store_committed"] == 2 and len(ResultStore(store).entries()) == 2
    assert not (store / f"{sorted(set(entries) - set(ResultStore(store).entries()))[0]}.parquet").exists()


def test_failed_fresh_run_leaves_the_store_as_it_was(tmp_path, monkeypatch):
    from dlsched.reproduce import NotebookFailedError
    from dlsched.store import ResultStore

    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).parent))
    store = tmp_path / "results"
    ok_dir = store_notebook(tmp_path / "ok")
    common = dict(output_dir=tmp_path / "out", figures_dir=tmp_path / "fig", cache_dir=tmp_path / "cache",
                  store_dir=store, progress=False)  # fmt: skip
    reproduce("paper", fresh=True, notebooks_dir=ok_dir, **common)
    def files():
        return {p.relative_to(store).as_posix(): p.read_bytes() for p in store.rglob("*") if p.is_file()}

    before = files()
    bad_dir = store_notebook(tmp_path / "bad", fail=True)
    with pytest.raises(NotebookFailedError):
        reproduce("paper", {"n_points": 5}, fresh=True, notebooks_dir=bad_dir, **common)
    assert files() == before
    assert len(ResultStore(store).entries()) == 3


def test_fresh_needs_paper_mode_and_full_is_an_alias(tmp_path):
    from dlsched.reproduce import main, normalize_mode

    assert normalize_mode("full") == "paper" and normalize_mode("quick") == "quick"
    with pytest.raises(ValueError, match="mode='huge'"):
        normalize_mode("huge")
    nb_dir = store_notebook(tmp_path / "notebooks")
    with pytest.raises(ValueError, match="fresh/record .* mode='paper'"):
        reproduce("quick", fresh=True, notebooks_dir=nb_dir, output_dir=tmp_path / "out", progress=False)
    assert main(["--mode", "quick", "--fresh", "--notebooks-dir", str(nb_dir),
                 "--output-dir", str(tmp_path / "out"), "--no-progress"]) == 2  # fmt: skip
    assert not (tmp_path / "out").exists()


def test_refresh_sources_records_what_it_computes(tmp_path, monkeypatch):
    """``make refresh-notebooks``: the source notebook gets its outputs in place; the points it had
    to compute are added to the store, so a second refresh computes nothing."""
    from dlsched.reproduce import refresh_sources
    from dlsched.store import ResultStore

    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).parent))
    nb_dir = tmp_path / "notebooks"
    store = tmp_path / "results"
    write_notebook(nb_dir / "01_store.ipynb",
                   f'mode = "paper"\nn_points = 3\ncache_dir = "cache"\nstore_dir = {str(store)!r}',
                   STORE_NB)  # fmt: skip
    (done,) = refresh_sources(nb_dir, store_dir=store)
    assert done == nb_dir / "01_store.ipynb" and calls_printed(done) == (12, 3)
    entries = ResultStore(store).entries()
    assert len(entries) == 3 and {e["notebook"] for e in entries.values()} == {"01_store"}
    import shutil

    shutil.rmtree(nb_dir / "cache")
    refresh_sources(nb_dir, store_dir=store)
    assert calls_printed(done) == (12, 0) and ResultStore(store).entries() == entries
    assert not [p for p in nb_dir.iterdir() if p.name.endswith(".tmp")]


# --------------------------------------------------------------------------- parallel notebooks


def test_parallel_run_gives_the_serial_results(run, tmp_path):
    """jobs=2: both notebooks run, in their own processes, with the same records and figures."""
    root, serial = run
    nb_dir = two_notebooks(tmp_path / "notebooks")
    manifest = reproduce(
        "paper", {"seed": 3}, notebooks_dir=nb_dir, output_dir=tmp_path / "out",
        figures_dir=tmp_path / "figures", cache_dir=tmp_path / "cache", progress=False, jobs=2,
    )
    assert [e["status"] for e in manifest["notebooks"]] == ["ok", "ok"]
    for name in ("01_alpha", "02_beta"):
        rec = record_of(tmp_path / "out" / f"{name}.ipynb")
        assert rec["seed"] == 3 and rec["mode"] == "paper" and rec["executable"] == sys.executable
    assert manifest["figures"] == serial["figures"]  # same figure files, same bytes


def test_parallel_schedule_fills_both_slots_and_stops_after_a_failure(monkeypatch):
    """The scheduler of jobs > 1: notebooks start in the given order, two at a time (the
    wall-clock ones too: their measurements take the machine point by point, see
    test_store's measurement-slot test), and nothing starts after a failure."""
    import concurrent.futures as cf
    import threading

    from dlsched import reproduce as rp

    live, overlaps, started = set(), [], []
    lock = threading.Lock()

    def fake_execute(task, parameters):
        import time as _t

        name = Path(task["nb"]).stem
        with lock:
            started.append(name)
            if live:
                overlaps.append((name, sorted(live)))
            live.add(name)
        _t.sleep(0.05)
        with lock:
            live.discard(name)
        return {"summary": "boom"} if name == "09_fails" else None

    class ThreadPool(cf.ThreadPoolExecutor):
        def __init__(self, max_workers, mp_context=None):
            super().__init__(max_workers)

    monkeypatch.setattr(rp, "_execute", fake_execute)
    monkeypatch.setattr(cf, "ProcessPoolExecutor", ThreadPool)
    names = ["00_a", "11_oasis_proofs", "12_b", "13_c", "52_specon_figures", "60_d"]
    tasks = [(Path(f"{n}.ipynb"), {"parameters": {}}) for n in names]
    finished = []

    class Bar:
        def set_postfix_str(self, s):
            pass

        def update(self):
            pass

    rp._run_parallel(tasks, 2, lambda nb: ({"nb": str(nb)}, Path("x")),
                     lambda nb, entry, tmp, sec, err: finished.append((nb.stem, err)), Bar(), lambda: False)
    assert started[:2] == names[:2] and sorted(started) == sorted(names)
    assert overlaps  # two notebooks at a time, whichever they are
    assert all(err is None for _, err in finished)

    failed = []
    tasks = [(Path(f"{n}.ipynb"), {"parameters": {}}) for n in ["09_fails", "10_x", "20_y", "30_z"]]
    started.clear()

    def on_finish(nb, entry, tmp, sec, err):
        if err is not None:
            failed.append(nb.stem)

    rp._run_parallel(tasks, 2, lambda nb: ({"nb": str(nb)}, Path("x")), on_finish, Bar(),
                     lambda: bool(failed))
    assert failed == ["09_fails"] and "30_z" not in started  # started after the failure: never


@pytest.mark.parametrize("jobs", [0, -1, 1.5, True, "2"])
def test_jobs_validated(tmp_path, jobs):
    with pytest.raises(ValueError, match="jobs"):
        reproduce(jobs=jobs, **_kwargs(tmp_path))
    assert _nothing_written(tmp_path)


def test_longest_first_uses_the_store_seconds(tmp_path):
    from dlsched import reproduce as rp

    store = tmp_path / "manifest.json"
    store.write_text(json.dumps({"entries": {
        "a": {"notebook": "02_b", "seconds": 5.0}, "b": {"notebook": "02_b", "seconds": 7.0},
        "c": {"notebook": "03_c", "seconds": 30.0}}}))
    prev = tmp_path / "prev.json"
    prev.write_text(json.dumps({"notebooks": [{"name": "01_a", "seconds": 20.0},
                                              {"name": "03_c", "seconds": 1.0}]}))
    expected = rp._expected_seconds(store, prev)
    assert expected == {"01_a": 20.0, "02_b": 12.0, "03_c": 30.0}  # the store wins where it knows
    tasks = [(Path(f"{n}.ipynb"), {}) for n in ("00_x", "01_a", "02_b", "03_c")]
    assert [t[0].stem for t in rp._longest_first(tasks, expected)] == ["00_x", "03_c", "01_a", "02_b"]
    assert rp._expected_seconds(tmp_path / "missing.json", tmp_path / "missing2.json") == {}

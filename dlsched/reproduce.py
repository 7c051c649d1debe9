"""Run every notebook with papermill ("quick" or "paper") and write a manifest.

This is the engine behind ``make reproduce`` / ``dlsched reproduce``. It

1. finds the notebooks ``notebooks/NN_<paper>_<topic>.ipynb`` (sorted by name);
2. reads the literal defaults of each notebook's cell tagged ``parameters``;
3. validates the requested parameters *before anything runs*: papermill itself
   only warns about a parameter a notebook does not declare, so a typo such as
   ``--param sed=3`` would silently reproduce the defaults; here it raises
   :class:`UnknownParameterError`. A value whose type does not fit the declared
   default (a string for a number, ...) raises :class:`ValueError`;
4. executes the notebooks in order with :func:`papermill.execute_notebook`
   (working directory ``notebooks_dir``), injecting ``mode`` into every notebook
   and ``figures_dir`` / ``cache_dir`` (absolute paths) into those that declare
   them, and stops at the first failure with :class:`NotebookFailedError`;
5. writes ``<output_dir>/manifest.json`` (also after a failure): package
   versions, platform, mode, the parameters each notebook received, wall time
   and status per notebook, and sha256 + size of every file in ``figures_dir``.

Kernel: by default notebooks run in the Jupyter kernel named ``python3``. ipykernel
installed in a virtualenv registers that kernelspec under
``<sys.prefix>/share/jupyter/kernels/python3`` with ``argv[0] == "python"``, which
jupyter_client replaces by ``sys.executable``; so the kernel runs the same
interpreter (the project's venv) as the runner. :func:`reproduce` verifies this
before running (:func:`kernel_python`); if another ``python3`` spec shadows it, the
runner installs ipykernel's spec into ``sys.prefix`` and, if it is still shadowed,
raises :class:`KernelMismatchError` asking for an explicit ``kernel_name``. An
explicit ``kernel_name`` is used as given.

Command line: ``python -m dlsched.reproduce --mode quick --param seed=3``.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import functools
import hashlib
import importlib.metadata
import json
import math
import os
import platform
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = [
    "MODES",
    "FIGURES_DIRS",
    "INJECTED_PARAMETERS",
    "MANIFEST_PACKAGES",
    "KernelMismatchError",
    "NotebookFailedError",
    "UnknownParameterError",
    "discover_notebooks",
    "kernel_python",
    "main",
    "notebook_parameters",
    "parse_param",
    "reproduce",
]

#: Allowed values of ``mode``: ``quick`` (small sizes, a smoke run) and ``paper`` (the papers'
#: sizes; sweep points come from the results store ``data/results`` when stored there).
MODES: tuple[str, ...] = ("quick", "paper")

#: Older names of the modes, still accepted (``full`` was ``paper``'s name before the store).
MODE_ALIASES: dict[str, str] = {"full": "paper"}

#: Parameters the runner sets itself (``mode`` in every notebook, the folders where declared).
INJECTED_PARAMETERS: tuple[str, ...] = ("mode", "figures_dir", "cache_dir", "store_dir")

#: Wall-clock measurements (OASiS's decision-time plots, SpeCon's real-process testbed) are timed
#: on an otherwise idle machine also with ``jobs > 1``: every point of the run takes a slot of
#: :func:`dlsched.store.measurement_slot`, shared for ordinary points and exclusive for a
#: measurement (:func:`dlsched.store.is_measurement`), so only those points run alone, not their
#: whole notebooks.
#: Default figures folder per mode: paper-scale figures are the committed ones in ``figures/``;
#: quick runs (CI, newcomers checking that everything works) write under ``build/``.
FIGURES_DIRS: dict[str, str] = {"quick": "build/figures", "paper": "figures"}


def normalize_mode(mode: str) -> str:
    """``mode`` as one of :data:`MODES` (an alias of :data:`MODE_ALIASES` is translated).

    Raises
    ------
    ValueError
        If ``mode`` is neither a mode nor an alias.
    """
    mode = MODE_ALIASES.get(mode, mode)
    if mode not in MODES:
        raise ValueError(f"mode={mode!r}; expected one of {MODES} (or an alias: {sorted(MODE_ALIASES)})")
    return mode

#: Distributions whose versions are recorded in the manifest (missing ones as null).
MANIFEST_PACKAGES: tuple[str, ...] = (
    "numpy",
    "scipy",
    "pandas",
    "matplotlib",
    "seaborn",
    "dask",
    "distributed",
    "papermill",
    "nbformat",
    "nbclient",
    "ipykernel",
    "jupytext",
    "scikit-learn",
)

NOTEBOOK_PATTERN: re.Pattern[str] = re.compile(r"^\d{2}_[a-z0-9_]+\.ipynb$")

DEFAULT_KERNEL = "python3"


class UnknownParameterError(ValueError):
    """A requested parameter is declared by none of the selected notebooks.

    Attributes
    ----------
    names : list of str
        The unknown names.
    declared : list of str
        Every name the selected notebooks declare (sorted).
    """

    def __init__(self, names: Sequence[str], declared: Sequence[str]) -> None:
        self.names = list(names)
        self.declared = sorted(declared)
        super().__init__(
            f"unknown parameter(s) {', '.join(map(repr, self.names))}: no selected notebook "
            f"declares them; declared parameters: {', '.join(self.declared) or '(none)'}"
        )


class NotebookFailedError(RuntimeError):
    """A notebook raised while papermill executed it; the notebooks after it did not run.

    Attributes
    ----------
    notebook : pathlib.Path
        The failing source notebook.
    output : pathlib.Path
        Its executed copy (with the traceback in the failing cell).
    summary : str
        ``"<ExceptionType>: <message>"`` of the failing cell (or of the runner error).
    cell_index : int or None
        Index of the failing cell when papermill reports it.
    """

    def __init__(
        self, notebook: Path, output: Path, summary: str, cell_index: int | None = None
    ) -> None:
        self.notebook = notebook
        self.output = output
        self.summary = summary
        self.cell_index = cell_index
        where = f" at cell {cell_index}" if cell_index is not None else ""
        super().__init__(
            f"notebook {notebook.name} failed{where}: {summary} (executed copy: {output})"
        )


class KernelMismatchError(RuntimeError):
    """The default ``python3`` kernel would not run the current interpreter."""


# --------------------------------------------------------------------------- discovery


def discover_notebooks(notebooks_dir: str | os.PathLike[str] = "notebooks") -> list[Path]:
    """List the project's notebooks ``NN_<name>.ipynb`` in ``notebooks_dir``, sorted by name.

    Parameters
    ----------
    notebooks_dir : str or os.PathLike, default "notebooks"
        Folder to search (not recursively).

    Returns
    -------
    list of pathlib.Path
        Files whose name matches ``^\\d{2}_[a-z0-9_]+\\.ipynb$``, sorted by name.

    Raises
    ------
    FileNotFoundError
        If the folder does not exist or holds no matching notebook.
    """
    folder = Path(notebooks_dir)
    if not folder.is_dir():
        raise FileNotFoundError(f"notebooks_dir={str(folder)!r} is not a folder")
    found = sorted(
        (p for p in folder.iterdir() if p.is_file() and NOTEBOOK_PATTERN.fullmatch(p.name)),
        key=lambda p: p.name,
    )
    if not found:
        raise FileNotFoundError(
            f"no notebook matching NN_<name>.ipynb in notebooks_dir={str(folder)!r}"
        )
    return found


def notebook_parameters(path: str | os.PathLike[str]) -> dict[str, object]:
    """Return the literal defaults of the notebook's cell tagged ``parameters``.

    The cell may hold only assignments of Python literals to names (``mode = "quick"``,
    ``seed = 0``, optionally annotated) and comments, as the project's notebook
    conventions require.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.ipynb`` file.

    Returns
    -------
    dict of str to object
        Name -> default value, in the order of the cell.

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    ValueError
        If the notebook has no cell tagged ``parameters`` (or more than one), or the cell
        holds anything but literal assignments.
    """
    import nbformat

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"notebook {str(path)!r} does not exist")
    nb = nbformat.read(path, as_version=4)
    cells = [
        c
        for c in nb.cells
        if c.get("cell_type") == "code" and "parameters" in c.get("metadata", {}).get("tags", [])
    ]
    if not cells:
        raise ValueError(f"notebook {path.name} has no code cell tagged 'parameters'")
    if len(cells) > 1:
        raise ValueError(f"notebook {path.name} has {len(cells)} cells tagged 'parameters'; one")
    source = cells[0].source
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise ValueError(
            f"notebook {path.name}: parameters cell is not plain Python: {exc}"
        ) from exc
    out: dict[str, object] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign):
            targets, value = stmt.targets, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets, value = [stmt.target], stmt.value
        else:
            raise ValueError(
                f"notebook {path.name}: parameters cell line {stmt.lineno} is not an "
                f"assignment of a literal: {ast.get_source_segment(source, stmt)!r}"
            )
        if not all(isinstance(t, ast.Name) for t in targets):
            raise ValueError(
                f"notebook {path.name}: parameters cell line {stmt.lineno} must assign to "
                f"plain names: {ast.get_source_segment(source, stmt)!r}"
            )
        try:
            literal = ast.literal_eval(value)
        except ValueError as exc:
            raise ValueError(
                f"notebook {path.name}: parameter {targets[0].id!r} (line {stmt.lineno}) is "
                f"not a literal: {ast.get_source_segment(source, value)!r}; derived values "
                "belong in the next cell"
            ) from exc
        for t in targets:
            out[t.id] = literal
    return out


# --------------------------------------------------------------------------- parameters


def parse_param(text: str) -> tuple[str, object]:
    """Parse one ``--param key=value`` argument.

    The value is converted with :func:`ast.literal_eval` when it is a Python literal
    (``3`` -> int, ``0.5`` -> float, ``True`` -> bool, ``[1, 2]`` -> list, ``None``);
    otherwise it stays the string as given (``mode=full`` -> ``"full"``). Quote a
    string that looks like a literal: ``name='"3"'``.

    Parameters
    ----------
    text : str
        ``"key=value"``; split at the first ``=``.

    Returns
    -------
    tuple of (str, object)
        The key (stripped) and the converted value.

    Raises
    ------
    ValueError
        If ``text`` has no ``=`` or its key is empty or not a Python identifier.
    """
    if not isinstance(text, str) or "=" not in text:
        raise ValueError(f"parameter {text!r} is not of the form key=value")
    key, raw = text.split("=", 1)
    key = key.strip()
    if not key:
        raise ValueError(f"parameter {text!r} has an empty key (expected key=value)")
    if not key.isidentifier():
        raise ValueError(f"parameter {text!r}: key {key!r} is not a Python identifier")
    try:
        value: object = ast.literal_eval(raw.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        value = raw
    return key, value


def _family(value: object) -> str:
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "str"
    if isinstance(value, (list, tuple)):
        return "sequence"
    return type(value).__name__


def _check_type(notebook: Path, key: str, value: object, default: object) -> None:
    """Declared default None accepts anything; int/float interchangeable; list/tuple too."""
    if default is None:
        return
    if _family(value) != _family(default):
        raise ValueError(
            f"notebook {notebook.name}: parameter {key!r} = {value!r} "
            f"({type(value).__name__}) does not match the declared default "
            f"{default!r} ({type(default).__name__})"
        )


def _select(notebooks: list[Path], only: Sequence[str] | None) -> list[Path]:
    if only is None:
        return notebooks
    if isinstance(only, str):
        only = [only]
    wanted: set[Path] = set()
    for item in only:
        key = str(item).removesuffix(".ipynb")
        hits = [p for p in notebooks if key in (p.stem, p.stem[:2])]
        if not hits:
            raise ValueError(
                f"only: {item!r} matches no notebook (by name or NN prefix); available: "
                + ", ".join(p.stem for p in notebooks)
            )
        wanted.update(hits)
    return [p for p in notebooks if p in wanted]


def _plan(
    selected: list[Path],
    mode: str,
    params: Mapping[str, object],
    figures_dir: Path,
    cache_dir: Path,
    store_dir: Path | None = None,
) -> dict[Path, dict[str, object]]:
    """Parameters each notebook receives; validates everything before anything runs."""
    for key in params:
        if not isinstance(key, str) or not key.isidentifier():
            raise ValueError(f"params: key {key!r} is not a Python identifier")
        if key in INJECTED_PARAMETERS:
            raise ValueError(
                f"params: {key!r} is set by the runner; pass it as the {key} argument instead"
            )
    injected = {"mode": mode, "figures_dir": str(figures_dir), "cache_dir": str(cache_dir)}
    if store_dir is not None:
        injected["store_dir"] = str(store_dir)
    declarations: dict[Path, dict[str, object]] = {}
    for nb in selected:
        declared = notebook_parameters(nb)
        if "mode" not in declared:
            raise ValueError(
                f"notebook {nb.name} does not declare 'mode' in its parameters cell "
                f"(declared: {', '.join(declared) or '(none)'})"
            )
        declarations[nb] = declared
    declared_all = {name for declared in declarations.values() for name in declared}
    unknown = [k for k in params if k not in declared_all]
    if unknown:
        raise UnknownParameterError(unknown, declared_all)
    plan: dict[Path, dict[str, object]] = {}
    for nb, declared in declarations.items():
        given: dict[str, object] = {}
        for key, value in list(injected.items()) + list(params.items()):
            if key in declared:
                _check_type(nb, key, value, declared[key])
                given[key] = value
        plan[nb] = given
    return plan


# --------------------------------------------------------------------------- kernel


def kernel_python(kernel_name: str = DEFAULT_KERNEL) -> str:
    """Return the interpreter a Jupyter kernel would be started with from this process.

    Mirrors jupyter_client's launcher: an ``argv[0]`` of ``python``, ``python3`` or
    ``python3.X`` is replaced by ``sys.executable``.

    Parameters
    ----------
    kernel_name : str, default "python3"
        A kernelspec name.

    Returns
    -------
    str
        The executable (``argv[0]`` of the resolved kernelspec, after substitution).

    Raises
    ------
    jupyter_client.kernelspec.NoSuchKernel
        If no kernelspec of that name exists.
    """
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec(kernel_name)
    exe = spec.argv[0]
    major, minor = sys.version_info[:2]
    if exe in {"python", f"python{major}", f"python{major}.{minor}"}:
        return sys.executable
    return exe


def _same_python(exe: str) -> bool:
    # Compare without resolving symlinks: a venv's python is a symlink to the base one.
    return os.path.normcase(os.path.abspath(exe)) == os.path.normcase(
        os.path.abspath(sys.executable)
    )


def _kernel_manager_class():
    """The kernel manager papermill and nbclient start kernels with: IPC transport on POSIX.

    Over TCP without CurveZMQ keys, ipykernel (7+) logs "Kernel is running over TCP without
    encryption" once per notebook, which newcomers read as an error. Its own advice is to use
    the IPC transport: local Unix sockets in Jupyter's runtime directory, removed when the
    kernel stops. Windows has no IPC transport, so the default (TCP) is kept there.
    """
    from jupyter_client.manager import AsyncKernelManager

    if os.name != "posix":
        return AsyncKernelManager
    return _ipc_kernel_manager()


@functools.cache
def _ipc_kernel_manager() -> type:
    from jupyter_client.manager import AsyncKernelManager
    from traitlets import default

    class IPCKernelManager(AsyncKernelManager):
        """An :class:`AsyncKernelManager` whose default transport is ``ipc``."""

        @default("transport")
        def _default_transport(self) -> str:
            return "ipc"

        @default("ip")
        def _default_ip(self) -> str:
            # An absolute socket path: the default ("kernel-ipc") is relative to the current
            # directory, which differs between the client and a kernel started in the
            # notebook's folder.
            import uuid

            from jupyter_core.paths import jupyter_runtime_dir

            os.makedirs(jupyter_runtime_dir(), exist_ok=True)
            return os.path.join(jupyter_runtime_dir(), f"dlsched-{uuid.uuid4().hex[:12]}-ipc")

    return IPCKernelManager


def _resolve_kernel(kernel_name: str | None) -> str:
    if kernel_name is not None:
        return kernel_name
    from jupyter_client.kernelspec import NoSuchKernel

    try:
        ok = _same_python(kernel_python(DEFAULT_KERNEL))
    except NoSuchKernel:
        ok = False
    if not ok:
        from ipykernel.kernelspec import install

        install(prefix=sys.prefix, kernel_name=DEFAULT_KERNEL)
        exe = kernel_python(DEFAULT_KERNEL)
        if not _same_python(exe):
            raise KernelMismatchError(
                f"the '{DEFAULT_KERNEL}' kernelspec runs {exe}, not this interpreter "
                f"{sys.executable} (another spec shadows {sys.prefix}/share/jupyter/kernels); "
                "pass kernel_name explicitly"
            )
    return DEFAULT_KERNEL


# --------------------------------------------------------------------------- manifest


def _versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for dist in MANIFEST_PACKAGES:
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = None
    return out


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _figure_hashes(figures_dir: Path) -> list[dict[str, object]]:
    """sha256 + size of every file under figures_dir (hidden files, e.g. temp files, skipped)."""
    if not figures_dir.is_dir():
        return []
    rows = []
    for p in figures_dir.rglob("*"):
        rel = p.relative_to(figures_dir)
        if p.is_file() and not any(part.startswith(".") for part in rel.parts):
            rows.append({"name": rel.as_posix(), "sha256": _sha256(p), "size": p.stat().st_size})
    return sorted(rows, key=lambda r: str(r["name"]))


def _write_json_atomic(data: Mapping[str, Any], path: Path) -> None:
    text = json.dumps(data, indent=2, default=repr) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


# --------------------------------------------------------------------------- runner


def _finalize(tmp: Path, target: Path) -> None:
    """Record the final path in papermill's metadata, then move the executed copy into place."""
    import nbformat

    nb = nbformat.read(tmp, as_version=4)
    nb.metadata.setdefault("papermill", {})["output_path"] = str(target)
    nbformat.write(nb, tmp)
    os.replace(tmp, target)


def _execute(task: Mapping[str, Any], parameters: dict[str, Any], inline: bool = False) -> dict | None:
    """Run one notebook with papermill (in this process, or in a worker process of
    :func:`_run_parallel`); None on success, else a picklable summary of the failure.

    ``task["env"]`` is the notebook's environment (the kernel and its Dask workers inherit it);
    inline, it is set for the run and restored afterwards."""
    import papermill as pm

    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(task["env"])
    try:
        pm.execute_notebook(
            task["nb"],
            task["tmp"],
            parameters=parameters,
            cwd=task["cwd"],
            kernel_name=task["kernel"],
            language="python",
            progress_bar=False,
            kernel_manager_class=_kernel_manager_class(),
        )
    except Exception as exc:  # noqa: BLE001 - any failure stops the run and is reported
        ename = getattr(exc, "ename", None)
        summary = (f"{ename}: {getattr(exc, 'evalue', '')}" if ename is not None
                   else f"{type(exc).__name__}: {exc}")
        out = {"summary": summary, "cell_index": getattr(exc, "cell_index", None)}
        if inline:
            out["exception"] = exc
        return out
    finally:
        if inline:
            os.environ.clear()
            os.environ.update(saved)
    return None


def _expected_seconds(store_manifest: Path, previous_manifest: Path) -> dict[str, float]:
    """Expected run time per notebook: the seconds of its points in the results store's manifest
    (what a run from scratch recomputes), else what it took in ``previous_manifest``."""
    seen: dict[str, float] = {}
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError, AttributeError):
        for e in json.loads(previous_manifest.read_text())["notebooks"]:
            if e.get("seconds") is not None:
                seen[e["name"]] = float(e["seconds"])
    points: dict[str, float] = {}
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError, AttributeError):
        for e in json.loads(store_manifest.read_text())["entries"].values():
            nb = e.get("notebook")
            if nb:
                points[nb] = points.get(nb, 0.0) + float(e.get("seconds", 0.0))
    return {**seen, **points}


def _longest_first(tasks: list, expected: Mapping[str, float]) -> list:
    """``tasks`` ordered by ``expected`` seconds, longest first (unknown ones first of all, in
    their order): the usual greedy schedule for parallel slots. Only the order of starting
    changes, never a result."""
    return sorted(tasks, key=lambda t: -expected.get(t[0].stem, math.inf))


def _run_parallel(tasks: list, jobs: int, launch, finish, bar, failed) -> None:
    """Run ``tasks`` (notebook, manifest entry) in up to ``jobs`` worker processes.

    They start in the order of ``tasks``; a wall-clock measurement inside a notebook waits for
    the machine through :func:`dlsched.store.measurement_slot` (``launch`` sets its lock file).
    After a failure (``failed()``) no new notebook starts."""
    import concurrent.futures as cf
    import multiprocessing

    pending = list(tasks)
    running: dict[cf.Future, tuple[Path, dict[str, Any], Path, float]] = {}
    with cf.ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        while pending or running:
            while pending and len(running) < jobs and not failed():
                nb, entry = pending.pop(0)
                task, tmp = launch(nb)
                fut = pool.submit(_execute, task, dict(entry["parameters"]))
                running[fut] = (nb, entry, tmp, time.perf_counter())
                bar.set_postfix_str(", ".join(sorted(n.stem[:2] for n, *_ in running.values())))
            if not running:
                break
            done, _ = cf.wait(running, return_when=cf.FIRST_COMPLETED)
            for fut in done:
                nb, entry, tmp, start = running.pop(fut)
                try:
                    error = fut.result()
                except Exception as exc:  # noqa: BLE001 - a worker process died
                    error = {"summary": f"{type(exc).__name__}: {exc}", "cell_index": None}
                finish(nb, entry, tmp, time.perf_counter() - start, error)
                bar.update()


def reproduce(
    mode: str = "paper",
    params: Mapping[str, object] | None = None,
    *,
    notebooks_dir: str | os.PathLike[str] = "notebooks",
    output_dir: str | os.PathLike[str] = "build/reproduce",
    figures_dir: str | os.PathLike[str] | None = None,
    cache_dir: str | os.PathLike[str] = "build/cache",
    only: Sequence[str] | None = None,
    kernel_name: str | None = None,
    progress: bool = True,
    store_dir: str | os.PathLike[str] | None = None,
    fresh: bool = False,
    record: bool = False,
    jobs: int = 1,
) -> dict[str, Any]:
    """Execute the notebooks in order with papermill and write ``output_dir/manifest.json``.

    All validation (mode, selection, parameters cells, parameter names and types, kernel)
    happens before the first notebook starts; on a validation error nothing is written.

    Parameters
    ----------
    mode : {"paper", "quick"}, default "paper"
        Injected as ``mode`` into every notebook (each must declare it): ``"paper"``, the papers'
        sizes with sweep points read from the results store (missing ones computed), or
        ``"quick"``, a small smoke run; ``"full"`` is accepted as the older name of ``"paper"``.
    params : mapping of str to object, optional
        Extra parameters (e.g. from ``--param k=v``, see :func:`parse_param`), given to every
        selected notebook that declares the name. Values must fit the declared default's type
        (int and float interchangeable, list and tuple too; a declared ``None`` takes anything).
    notebooks_dir : str or os.PathLike, default "notebooks"
        Where the notebooks are; also the working directory of each run.
    output_dir : str or os.PathLike, default "build/reproduce"
        Executed copies ``<stem>.ipynb`` and ``manifest.json`` go here. Stale executed copies
        of the selected notebooks are removed at the start of a run.
    figures_dir : str or os.PathLike, optional
        Where the figures go; default :data:`FIGURES_DIRS` of the mode: ``figures/`` (the
        committed paper-scale figures that the README and the site show) for full mode,
        ``build/figures/`` for quick mode, so quick runs never overwrite the committed figures.
    cache_dir : str or os.PathLike
        Both injected as absolute paths into the notebooks that declare ``figures_dir`` /
        ``cache_dir``; every file in ``figures_dir`` is hashed into the manifest.
    only : sequence of str, optional
        Run only these notebooks, each given by stem (``"11_oasis_utility"``) or NN prefix
        (``"11"``).
    kernel_name : str, optional
        Jupyter kernel; default ``"python3"``, verified to be this interpreter.
    progress : bool, default True
        Show a tqdm progress bar over the notebooks (on stderr).
    store_dir : str or os.PathLike, optional
        The results store (:mod:`dlsched.store`), injected as ``store_dir`` into the notebooks
        that declare it; default the repository's ``data/results``. Notebooks read it in paper
        mode only.
    fresh : bool, default False
        Paper mode only: recompute every sweep point of the selected notebooks from scratch
        (neither store nor cache is read) and, when every selected notebook succeeded, swap the
        recomputed points into the store at once, dropping the stored points of those notebooks
        that no longer occur (their parameters left the notebook). A failed or interrupted run
        leaves the store as it was.
    record : bool, default False
        Paper mode only: like ``fresh``, but points the store already holds (and whose code did
        not change) are served and kept, and only the missing or stale ones are computed (from
        scratch, never from the cache) and added. ``fresh`` implies it.
    jobs : int, default 1
        Notebooks run at once, each in its own process (with its own kernel and, for its sweeps,
        its own local Dask cluster). Results do not depend on it: every point is computed from
        its own seed. With ``jobs > 1`` the notebooks start longest first (by the seconds of their
        points in the results store, else of the previous manifest in ``output_dir``), the ones
        wall-clock measurements (:func:`dlsched.store.is_measurement`) run alone on the machine
        (only those points, not their notebooks), and after a failure the running ones finish
        but no new one starts.

    Returns
    -------
    dict
        The manifest (also written to ``output_dir/manifest.json``).

    Raises
    ------
    ValueError
        Bad ``mode``, unknown ``only`` entry, a notebook without parameters cell or without
        ``mode``, a reserved or ill-typed parameter.
    UnknownParameterError
        A ``params`` name that no selected notebook declares (a ValueError).
    FileNotFoundError
        No notebooks found.
    KernelMismatchError
        The default kernel would not run this interpreter.
    NotebookFailedError
        A notebook failed; later notebooks were not run; the manifest has status "failed".
    """
    from tqdm.auto import tqdm

    import dlsched
    from dlsched import store as result_store

    mode = normalize_mode(mode)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be an integer >= 1, got {jobs!r}")
    if (fresh or record) and mode != "paper":
        raise ValueError("fresh/record write the paper-scale store: they need mode='paper'")
    record = record or fresh
    params = dict(params or {})
    nb_dir = Path(notebooks_dir).resolve()
    out_dir = Path(output_dir).resolve()
    fig_dir = Path(FIGURES_DIRS[mode] if figures_dir is None else figures_dir).resolve()
    cache = Path(cache_dir).resolve()
    store_path = Path(result_store.DEFAULT_PATH if store_dir is None else store_dir).resolve()

    selected = _select(discover_notebooks(nb_dir), only)
    plan = _plan(selected, mode, params, fig_dir, cache, store_path)
    kernel = _resolve_kernel(kernel_name)

    manifest: dict[str, Any] = {
        "dlsched_version": dlsched.__version__,
        "python_version": platform.python_version(),
        "python_executable": sys.executable,
        "platform": platform.platform(),
        "packages": _versions(),
        "mode": mode,
        "kernel_name": kernel,
        "params": params,
        "notebooks_dir": str(nb_dir),
        "figures_dir": str(fig_dir),
        "store_dir": str(store_path),
        "fresh": fresh,
        "record": record,
        "store_committed": None,
        "started_utc": datetime.now(UTC).isoformat(timespec="seconds"),
        "status": "running",
        "failed_notebook": None,
        "notebooks": [
            {
                "name": nb.stem,
                "input": nb.name,
                "output": None,
                "parameters": given,
                "status": "pending",
                "seconds": None,
                "error": None,
            }
            for nb, given in plan.items()
        ],
        "figures": [],
    }

    out_dir.mkdir(parents=True, exist_ok=True)
    for nb in selected:
        with contextlib.suppress(FileNotFoundError):
            (out_dir / nb.name).unlink()

    failure: NotebookFailedError | None = None
    writer = result_store.StoreWriter(store_path) if record else None
    saved_env = {k: os.environ.get(k) for k in (result_store.RECORD_ENV, result_store.NOTEBOOK_ENV,
                                                 result_store.FRESH_ENV, result_store.USES_ENV)}  # fmt: skip
    if writer is not None:  # the kernels (and their Dask workers) inherit the environment
        os.environ[result_store.RECORD_ENV] = str(writer.path)
        os.environ[result_store.FRESH_ENV] = "1" if fresh else "0"
    # A paper-mode run on the repository's store records which points each notebook asks for
    # (build/store-uses/<notebook>.keys), so `dlsched audit --stale` can name unused entries.
    # Only for the repository's own notebooks on its own store; $DLSCHED_STORE_USES, if set,
    # takes the records instead.
    repo_notebooks = result_store.REPO / "notebooks"
    on_repo_store = mode == "paper" and store_path == result_store.DEFAULT_PATH and nb_dir == repo_notebooks
    given_uses = saved_env[result_store.USES_ENV]
    uses_dir = (Path(given_uses) if given_uses else result_store.DEFAULT_USES) if on_repo_store else None
    if uses_dir is not None:
        os.environ[result_store.USES_ENV] = str(uses_dir)
    else:
        os.environ.pop(result_store.USES_ENV, None)
    bar = tqdm(total=len(selected), desc=f"reproduce ({mode})", unit="notebook", disable=not progress)
    tasks = list(zip(selected, manifest["notebooks"], strict=False))
    lock_dir = tempfile.mkdtemp(prefix="dlsched-measure-") if jobs > 1 else None
    if jobs > 1:
        tasks = _longest_first(tasks, _expected_seconds(store_path / result_store.MANIFEST,
                                                        out_dir / "manifest.json"))

    def launch(nb: Path) -> tuple[dict[str, Any], Path]:
        """The task of one notebook (its environment included) and its temporary output."""
        env = dict(os.environ)
        env[result_store.NOTEBOOK_ENV] = nb.stem
        if lock_dir is not None:  # parallel notebooks: measurements take the machine alone
            env[result_store.MEASURE_LOCK_ENV] = str(Path(lock_dir) / "measure.lock")
        else:
            env.pop(result_store.MEASURE_LOCK_ENV, None)
        if uses_dir is not None:
            with contextlib.suppress(FileNotFoundError):
                (uses_dir / f"{nb.stem}.keys.part").unlink()
        tmp = out_dir / f".{nb.stem}.running.ipynb"
        return {"nb": str(nb), "tmp": str(tmp), "cwd": str(nb_dir), "kernel": kernel, "env": env}, tmp

    def finish(nb: Path, entry: dict[str, Any], tmp: Path, seconds: float, error: dict | None) -> None:
        nonlocal failure
        target = out_dir / nb.name
        entry["seconds"] = round(seconds, 3)
        if error is not None:
            if tmp.exists():
                _finalize(tmp, target)
                entry["output"] = target.name
            entry["status"] = "failed"
            entry["error"] = error["summary"]
            if failure is None:
                failure = NotebookFailedError(nb, target, error["summary"], error.get("cell_index"))
                failure.__cause__ = error.get("exception")
            return
        _finalize(tmp, target)
        entry["output"] = target.name
        entry["status"] = "ok"
        if uses_dir is not None:  # the notebook ran to the end: its uses are complete
            part = uses_dir / f"{nb.stem}.keys.part"
            uses_dir.mkdir(parents=True, exist_ok=True)
            if not part.exists():
                part.write_text("", encoding="utf-8")
            os.replace(part, uses_dir / f"{nb.stem}.keys")

    if jobs == 1:
        for nb, entry in tasks:
            bar.set_postfix_str(nb.stem)
            task, tmp = launch(nb)
            start = time.perf_counter()
            error = _execute(task, dict(entry["parameters"]), inline=True)
            finish(nb, entry, tmp, time.perf_counter() - start, error)
            bar.update()
            if failure is not None:
                break
    else:
        try:
            _run_parallel(tasks, jobs, launch, finish, bar, lambda: failure is not None)
        finally:
            shutil.rmtree(lock_dir, ignore_errors=True)
    bar.close()
    for key, value in saved_env.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    if writer is not None:
        if failure is None:
            manifest["store_committed"] = len(writer.commit(replace_notebooks=[nb.stem for nb in selected]))
        else:
            writer.discard()

    for entry in manifest["notebooks"]:
        if entry["status"] == "pending":
            entry["status"] = "skipped"
    manifest["status"] = "failed" if failure else "ok"
    manifest["failed_notebook"] = failure.notebook.stem if failure else None
    manifest["finished_utc"] = datetime.now(UTC).isoformat(timespec="seconds")
    manifest["figures"] = _figure_hashes(fig_dir)
    _write_json_atomic(manifest, out_dir / "manifest.json")
    if failure is not None:
        raise failure
    return manifest


# --------------------------------------------------------------------------- command line


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point: ``python -m dlsched.reproduce [--mode M] [--param k=v ...]``.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 1 if a notebook failed, 2 on invalid input.
    """
    parser = argparse.ArgumentParser(
        prog="python -m dlsched.reproduce", description="Run every notebook with papermill."
    )
    parser.add_argument("--mode", choices=MODES + tuple(MODE_ALIASES), default="paper",
                        help="paper (default: the papers' sizes, from the results store; 'full' is an alias) "
                             "or quick (small smoke run)")
    parser.add_argument(
        "--param", action="append", default=[], metavar="KEY=VALUE",
        help="parameter for every notebook that declares KEY (repeatable)",
    )
    parser.add_argument(
        "--only", action="append", default=None, metavar="NN_OR_STEM",
        help="run only this notebook (repeatable)",
    )
    parser.add_argument("--notebooks-dir", default="notebooks")
    parser.add_argument("--output-dir", default="build/reproduce")
    parser.add_argument("--figures-dir", default=None,
                        help="default: build/figures in quick mode, figures/ in paper mode")
    parser.add_argument("--cache-dir", default="build/cache")
    parser.add_argument("--store-dir", default=None, help="results store (default: data/results)")
    parser.add_argument("--fresh", action="store_true",
                        help="paper mode: recompute every sweep point and rewrite the store's points "
                             "of the selected notebooks (atomically, after all succeeded)")
    parser.add_argument("--record", action="store_true",
                        help="paper mode: keep the stored points, compute and add the missing or "
                             "stale ones (atomically, after all succeeded)")
    parser.add_argument("--jobs", type=int, default=1, metavar="N",
                        help="notebooks run at once, each in its own process (default 1)")
    parser.add_argument("--kernel", default=None)
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    try:
        params = dict(parse_param(p) for p in args.param)
        reproduce(
            args.mode,
            params,
            notebooks_dir=args.notebooks_dir,
            output_dir=args.output_dir,
            figures_dir=args.figures_dir,
            cache_dir=args.cache_dir,
            only=args.only,
            kernel_name=args.kernel,
            progress=not args.no_progress,
            store_dir=args.store_dir,
            fresh=args.fresh,
            record=args.record,
            jobs=args.jobs,
        )
    except NotebookFailedError as exc:
        print(f"reproduce: {exc}", file=sys.stderr)
        return 1
    except (ValueError, FileNotFoundError, KernelMismatchError) as exc:
        print(f"reproduce: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())


def refresh_sources(notebooks_dir: str | os.PathLike[str] = "notebooks",
                    only: Sequence[str] | None = None, kernel_name: str | None = None,
                    record: bool = True, store_dir: str | os.PathLike[str] | None = None) -> list[Path]:
    """Re-execute the SOURCE notebooks in place with their own parameters (paper mode).

    Their stored outputs are the reference that nbval checks (``make test``) and what a reader
    sees; run this after changing a notebook or the code it calls (``make refresh-notebooks``).
    Each notebook is executed with nbclient in ``notebooks_dir`` and written back atomically; the
    paired ``py:percent`` script is unaffected because only outputs change.

    With ``record`` (default), the points a notebook takes from the results store are kept and
    the ones it has to compute (missing, or stale for the current code) are added to the store
    (``dlsched reproduce --record``), committed after each notebook; points the notebook no longer
    uses are dropped. So after a refresh, running the notebooks again computes nothing.

    Returns
    -------
    list of pathlib.Path
        The refreshed notebooks.
    """
    import nbclient
    import nbformat

    from dlsched import store as result_store

    folder = Path(notebooks_dir)
    notebooks = _select(discover_notebooks(folder), only)
    kernel = _resolve_kernel(kernel_name)
    keys = (result_store.RECORD_ENV, result_store.FRESH_ENV, result_store.NOTEBOOK_ENV)
    saved_env = {k: os.environ.get(k) for k in keys}
    done = []
    try:
        for path in notebooks:
            writer = result_store.StoreWriter(store_dir) if record else None
            if writer is not None:
                os.environ[result_store.RECORD_ENV] = str(writer.path)
                os.environ[result_store.FRESH_ENV] = "0"
                os.environ[result_store.NOTEBOOK_ENV] = path.stem
            nb = nbformat.read(path, as_version=4)
            for key in ("papermill",):
                nb.metadata.pop(key, None)
            for cell in nb.cells:
                cell.metadata.pop("papermill", None)
                cell.metadata.pop("execution", None)
            client = nbclient.NotebookClient(nb, kernel_name=kernel,
                                             resources={"metadata": {"path": str(folder)}},
                                             timeout=3600, kernel_manager_class=_kernel_manager_class(),
                                             store_widget_state=False)
            try:
                client.execute()
            except BaseException:
                if writer is not None:
                    writer.discard()
                raise
            if writer is not None and (writer.staged() or writer.kept()):
                writer.commit(replace_notebooks=[path.stem])
            elif writer is not None:
                writer.discard()
            nb.metadata.pop("widgets", None)  # live widget state (image bytes) is not a reference output
            fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".ipynb.tmp", dir=folder)
            os.close(fd)
            nbformat.write(nb, tmp)
            os.replace(tmp, path)
            done.append(path)
    finally:
        for key, value in saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return done

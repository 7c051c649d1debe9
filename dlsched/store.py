"""The results store: committed paper-scale sweep points, audited by recomputation.

A *results store* is a folder (by default ``data/results/`` of the repository) with

* ``packs/<sha256>.parquet``: zstd-compressed parquet files, each holding the points of one
  (notebook, experiment function, schema) one after the other (one file per point cost about
  8 KB of parquet metadata per point; packed, the whole paper-scale store stays a few MB);
* ``manifest.json``: ``{"format": 2, "entries": {<key>: <entry>, ...}, "packs": {<file>:
  {"sha256", "rows", "points"}}}`` where ``key`` is :func:`dlsched.experiments.cache_key` of the
  experiment function and the point's parameters, and each entry holds

  ============== ==========================================================================
  ``fn``          import path ``"module:qualname"`` of the experiment function
  ``params``      the point's parameters as canonical JSON (what ``cache_key`` hashes)
  ``version``     ``dlsched.__version__`` when the point was computed
  ``fingerprint`` :func:`code_fingerprint` of ``fn`` (and its params) when the point was computed
  ``seconds``     compute time of the point (wall clock of ``fn``), for information
  ``sha256``      :func:`frame_sha256` of the point's frame (columns, dtypes, values)
  ``schema``      :func:`schema_of` the frame (points of one schema share a pack)
  ``pack``        the pack file; ``start``, ``rows``: the point's rows in it
  ``notebook``    the notebook that computed it (env var ``DLSCHED_NOTEBOOK``) or null
  ``volatile``    its wall-clock columns (:data:`VOLATILE`), left out of the audit's comparison
  ``audit``       false only for a frame that is all wall-clock measurement
  ============== ==========================================================================

Reading (:meth:`ResultStore.get`) verifies the sha256 of every pack it opens and the sha256 of
every point it slices out. An entry whose pack is missing or does not match raises
:class:`StoreCorruptError` naming the key and how to regenerate it; a damaged store is never
silently recomputed. An entry is *stale* when its fingerprint (or version) differs from the
current code's; a stale entry is not served (``get`` returns None, so
:func:`dlsched.experiments.sweep` recomputes the point) unless ``allow_stale=True``.

Writing goes through a :class:`StoreWriter` (``store.staging()``): points are recorded into a
staging folder (under ``build/store-staging/`` for a store inside the repository, else a hidden
folder next to the store), and :meth:`StoreWriter.commit` builds the complete new store in a
hidden sibling folder (unchanged packs hard-linked, changed ones rewritten, new manifest) and
swaps it in with two renames. An interrupted regeneration (before or during commit) leaves the
store as it was; if a process dies between the two renames, the next :class:`ResultStore` on
that folder puts the old store back. One writer at a time per store.

Recording from a sweep: when the environment variable ``DLSCHED_STORE_RECORD`` names a staging
folder (the regeneration runner sets it to ``writer.path``) and a sweep is given a ``store``:

* with ``DLSCHED_STORE_FRESH=1`` (``dlsched reproduce --mode paper --fresh``) the sweep
  recomputes every point, reading neither the store nor the cache, and records each (:func:`record`);
* otherwise (``dlsched reproduce --mode paper --record``) it serves the points the store holds
  (marking them used, :func:`keep`), computes the missing or stale ones from scratch (never from
  the cache) and records those.

The runner then calls ``writer.commit()``.

:func:`audit` (the ``dlsched audit`` command) recomputes a sample of stored points from scratch and
requires each to equal the stored frame exactly (wall-clock columns aside).

Import floor: this module imports nothing of dlsched but the package version, so that
:mod:`dlsched.experiments` (which reads and records stores in ``sweep``) can import it. It
therefore restates the formula of ``cache_key`` in :func:`point_key` (a test pins the two
together) and the index rule of ``sweep`` in :func:`tidy_frame` (which ``sweep`` uses).
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib
import importlib.util
import io
import json
import math
import os
import re
import secrets
import shlex
import shutil
import tempfile
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pandas as pd

import dlsched

__all__ = [
    "DEFAULT_PATH",
    "FRESH_ENV",
    "NOTEBOOK_ENV",
    "RECORD_ENV",
    "VOLATILE",
    "AuditReport",
    "AuditResult",
    "ResultStore",
    "StoreCorruptError",
    "StoreWriter",
    "audit",
    "code_fingerprint",
    "fn_path",
    "frame_sha256",
    "is_measurement",
    "is_volatile",
    "keep",
    "note_uses",
    "read_uses",
    "unused",
    "load_fn",
    "measurement_slot",
    "point_key",
    "record",
    "regenerate",
    "schema_of",
    "select_sample",
    "volatile_columns",
]

PACKAGE = Path(__file__).resolve().parent
REPO = PACKAGE.parent
DEFAULT_PATH = REPO / "data" / "results"
MANIFEST = "manifest.json"
FORMAT = 2
PACKS = "packs"
RECORD_ENV = "DLSCHED_STORE_RECORD"
FRESH_ENV = "DLSCHED_STORE_FRESH"
NOTEBOOK_ENV = "DLSCHED_NOTEBOOK"
#: Folder where a paper-mode run records, per notebook, the keys its sweeps asked the store for
#: (``<notebook>.keys``); :func:`stale_report` compares them with the store's entries.
USES_ENV = "DLSCHED_STORE_USES"
#: Default uses folder (``make reproduce`` and ``dlsched reproduce`` in paper mode write it).
DEFAULT_USES = REPO / "build" / "store-uses"
ZSTD_LEVEL = 19

_KEY_RE = re.compile(r"^[0-9a-f]{64}$")

# --------------------------------------------------------------------------- experiment functions

#: Experiment functions (``"module:qualname"``) whose frames contain wall-clock times (solver or
#: search seconds), and those columns: a recomputation never equals them, so :func:`audit`
#: compares every other column exactly and leaves these out. ``("*",)`` would mean the whole frame
#: is a measurement (stored with ``audit: false``, skipped). A function outside this table can say
#: the same with the attribute ``fn.volatile = ("column", ...)``.
VOLATILE: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "dlsched.oasis.experiments:ratio_run": ("solve_seconds",),
        "dlsched.aonline.experiments:ratio_run": ("solve_seconds",),
        "dlsched.aonline.checks:ratio_run": ("opt_seconds",),
        "dlsched.pdors.checks:ratio_run": ("milp_seconds",),
        "dlsched.pdors.checks:quantisation_run": ("seconds",),
    }
)


def fn_path(fn: Callable[..., Any] | str) -> str:
    """Import path ``"module:qualname"`` of a module-level function (a str is checked and returned).

    Raises
    ------
    TypeError
        If ``fn`` is not a module-level (importable) function or such a path.
    """
    if isinstance(fn, str):
        module, sep, qualname = fn.partition(":")
        if not sep or not module or not qualname or "<" in qualname:
            raise TypeError(f"experiment function path must be 'module:qualname', got {fn!r}")
        return fn
    module = getattr(fn, "__module__", None)
    qualname = getattr(fn, "__qualname__", None)
    if not callable(fn) or not module or not qualname or "<" in qualname:
        raise TypeError(f"experiment function must be a module-level function, got {fn!r}")
    return f"{module}:{qualname}"


def load_fn(path: str) -> Callable[[dict], pd.DataFrame]:
    """Import the function named ``"module:qualname"``."""
    module, _, qualname = fn_path(path).partition(":")
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def volatile_columns(fn: Callable[..., Any] | str) -> tuple[str, ...]:
    """The wall-clock columns of ``fn``'s frames (``fn.volatile`` or :data:`VOLATILE`; ``()`` for
    none, ``("*",)`` for a frame that is all measurement)."""
    own = None if isinstance(fn, str) else getattr(fn, "volatile", None)
    if own is not None:
        if isinstance(own, str) or not all(isinstance(c, str) for c in own):
            raise TypeError(f"{fn_path(fn)}.volatile must be a tuple of column names, got {own!r}")
        return tuple(own)
    return tuple(VOLATILE.get(fn_path(fn), ()))


def is_volatile(fn: Callable[..., Any] | str) -> bool:
    """Whether any of ``fn``'s columns is a wall-clock measurement (:func:`volatile_columns`)."""
    return bool(volatile_columns(fn))


def point_key(fn: Callable[..., Any] | str, params: Mapping[str, Any], version: str | None = None) -> str:
    """The key of a point from canonical JSON ``params``: the formula of
    :func:`dlsched.experiments.cache_key` (sha256 of ``{"fn": "module.qualname", "params": ...,
    "version": ...}`` with sorted keys and compact separators).

    ``params`` must already be canonical (JSON values only, as in the manifest); ``version``
    defaults to ``dlsched.__version__``.
    """
    doc = {
        "fn": fn_path(fn).replace(":", ".", 1),
        "params": dict(params),
        "version": dlsched.__version__ if version is None else version,
    }
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


# --------------------------------------------------------------------------- code fingerprints

WINGS = ("oasis", "optimus", "pdors", "aonline", "specon")
#: Files every point depends on (relative to the package folder): the shared model and the
#: modules the registry loads by name (so no import statement leads to them).
COMMON_FILES = ("core/*.py", "baselines/*.py", "workloads.py", "traces.py", "registry.py")
#: Modules of another wing that a wing imports on purpose (see tests/test_import_floors.py).
WING_EXTRAS = {"specon": ("optimus/curves.py",)}
#: Modules that never compute a stored value (storage, running notebooks, the site, the command
#: line, plots): left out of every fingerprint even when imported.
NOT_FINGERPRINTED = frozenset({
    "store.py", "reproduce.py", "book.py", "cli.py", "plotting.py", "__main__.py",
    "fidelity.py", "readings.py",  # scorecards and readings tables: presentation, never a stored value
    "localcluster.py",  # starts Dask workers: where a point runs, never what it computes
})  # fmt: skip
#: Experiment functions that run exactly one registered policy, named by a parameter: their
#: fingerprint takes, of the modules the registry loads by name, the named policy's and none of
#: the other policies' (``{function path: parameter}``). An arena point of OASiS does not run
#: Optimus's code, so an edit of ``optimus/policy.py`` stales only the arena points of the
#: policies that module defines (Optimus, Tetris), not two hours of whole-trace points of the
#: others. Everything the function reaches through static imports stays in, whichever policy.
POLICY_SCOPED: dict[str, str] = {
    "dlsched.arena.experiments:arena_point": "policy",
    "dlsched.experiments:simulation_jobs": "policy",  # a registry workload and a registry policy
    "dlsched.arena.paper:checked_run": "policy",  # a point of simulation_jobs, re-checked
}
#: Where the registry points: the modules it imports by name (``"module:attr"`` strings).
_REGISTRY_TARGET = re.compile(r'"(dlsched(?:\.\w+)+):\w+"')

_FP_MEMO: dict[str, tuple[tuple, str]] = {}
#: code_fingerprint's digests of dlsched functions by the package's stat signature (_tree_signature)
_FP_TREE_MEMO: dict[str, tuple[tuple, str]] = {}


def _module_file(module: str) -> Path | None:
    """The source file of a dlsched module name (package -> its ``__init__.py``), or None."""
    parts = module.split(".")
    if not parts or parts[0] != "dlsched":
        return None
    base = PACKAGE.joinpath(*parts[1:])
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    return None


def _module_of(file: Path) -> str:
    rel = file.relative_to(PACKAGE).with_suffix("")
    parts = ["dlsched", *rel.parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


_IMPORT_MEMO: dict[str, tuple[tuple[int, int], set[str]]] = {}


def _imported(file: Path) -> set[str]:
    """dlsched modules that ``file`` imports (statically, anywhere in the file), with their parent
    packages (importing ``a.b.c`` runs ``a/__init__`` and ``a/b/__init__``). Memoised per file
    stat signature."""
    st = file.stat()
    sig = (st.st_mtime_ns, st.st_size)
    memo = _IMPORT_MEMO.get(str(file))
    if memo is not None and memo[0] == sig:
        return memo[1]
    out = _parse_imports(file)
    _IMPORT_MEMO[str(file)] = (sig, out)
    return out


def _parse_imports(file: Path) -> set[str]:
    try:
        tree = ast.parse(file.read_bytes(), filename=str(file))
    except SyntaxError:
        return set()
    here = _module_of(file)
    package = here if file.name == "__init__.py" else here.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            names.add(mod)
            names.update(f"{mod}.{a.name}" for a in node.names)  # `from pkg import module`
    out: set[str] = set()
    for name in names:
        parts = name.split(".")
        out.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return {m for m in out if m.startswith("dlsched")}


def _closure(modules: list[str]) -> dict[str, Path]:
    """The dlsched source files reachable from ``modules`` through static imports."""
    seen: dict[str, Path] = {}
    todo = list(modules)
    while todo:
        file = _module_file(todo.pop())
        if file is None:
            continue
        name = file.relative_to(PACKAGE).as_posix()
        if name in seen or file.name in NOT_FINGERPRINTED and file.parent == PACKAGE:
            continue
        seen[name] = file
        todo.extend(_imported(file))
    return seen


def _policy_targets(registry_text: str) -> dict[str, str]:
    """``{policy name: "module:attr"}`` of the registry's ``POLICIES`` table (read from its source,
    like the other targets: the store never imports the registry)."""
    block = re.search(r"^POLICIES[^=]*=\s*\{(.*?)^\}", registry_text, re.S | re.M)
    if block is None:
        raise ValueError("code_fingerprint: cannot find the POLICIES table in dlsched/registry.py")
    return dict(re.findall(r'"(\w+)":\s*"(dlsched(?:\.\w+)+:\w+)"', block.group(1)))


def policy_scope(fn: Callable[..., Any] | str, params: Mapping[str, Any] | None) -> str | None:
    """The registered policy whose code alone a point of ``fn`` with ``params`` runs
    (:data:`POLICY_SCOPED`), or None (the point may run any registered policy)."""
    name = POLICY_SCOPED.get(fn_path(fn))
    if name is None or params is None:
        return None
    value = params.get(name)
    return value if isinstance(value, str) else None


def _fingerprint_files(path: str, policy: str | None = None) -> list[tuple[str, Path]]:
    module = path.partition(":")[0]
    parts = module.split(".")
    patterns = list(COMMON_FILES)
    roots = [module]
    extra: list[tuple[str, Path]] = []
    if parts[0] == "dlsched":
        floor = parts[1] if len(parts) > 1 else ""
        registry = (PACKAGE / "registry.py").read_text(encoding="utf-8")
        targets = _REGISTRY_TARGET.findall(registry)
        if floor in WINGS:
            patterns += list(WING_EXTRAS.get(floor, ()))
            roots += [m for m in targets if m.split(".")[1] == floor]
        else:  # arena, experiments, registry-driven functions: any registered policy may run
            policies = _policy_targets(registry)
            if policy in policies:  # ... or just this one (POLICY_SCOPED)
                own = policies[policy].partition(":")[0]
                others = {t.partition(":")[0] for t in policies.values()} - {own}
                targets = [t for t in targets if t not in others]
            roots += targets
    else:  # a function outside the package: its own source file
        spec = importlib.util.find_spec(module)
        if spec is None or not spec.origin or not os.path.isfile(spec.origin):
            raise ValueError(f"code_fingerprint: cannot find the source of module {module!r}")
        extra.append((f"<{module}>", Path(spec.origin)))
        roots = []
    files = {
        p.relative_to(PACKAGE).as_posix(): p for pat in patterns for p in PACKAGE.glob(pat) if p.is_file()
    }
    files.update(_closure(roots))
    files.update(_closure([_module_of(p) for p in list(files.values())]))
    return sorted(files.items()) + extra


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(
        stmt.value.value, str
    )


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.body and _is_docstring(node.body[0]):
                node.body = node.body[1:] or [ast.Pass()]
    return tree


_CODE_MEMO: dict[str, tuple[tuple[int, int], bytes]] = {}


def _code_of(path: Path) -> bytes:
    """:func:`_read_code`, memoised per file stat signature (a notebook's sweeps of several
    functions parse each shared file once)."""
    st = path.stat()
    sig = (st.st_mtime_ns, st.st_size)
    memo = _CODE_MEMO.get(str(path))
    if memo is None or memo[0] != sig:
        memo = (sig, _read_code(path))
        _CODE_MEMO[str(path)] = memo
    return memo[1]


def _read_code(path: Path) -> bytes:
    """The code of a source file for the fingerprint: a Python file's syntax tree without its
    docstrings (so comments, docstrings and layout do not stale the store), else its bytes with
    CRLF read as LF."""
    data = path.read_bytes().replace(b"\r\n", b"\n")
    if path.suffix != ".py":
        return data
    try:
        tree = ast.parse(data, filename=str(path))
    except SyntaxError:
        return data
    return ast.dump(_strip_docstrings(tree), annotate_fields=False, include_attributes=False).encode()


def code_fingerprint(fn: Callable[..., Any] | str, params: Mapping[str, Any] | None = None) -> str:
    """sha256 of the source files a point of ``fn`` (with ``params``) depends on.

    The rule: the files :data:`COMMON_FILES` (``dlsched/core/*.py``, ``dlsched/baselines/*.py``,
    ``dlsched/workloads.py``, ``dlsched/traces.py``, ``dlsched/registry.py``), plus every dlsched
    source file reachable through static imports (:func:`_closure`) from

    * ``fn``'s own module;
    * for ``fn`` in a wing ``dlsched.<wing>`` (oasis, optimus, pdors, aonline, specon): the wing's
      modules that the registry loads by name (its policies, baselines and workloads), and the
      other-wing modules it uses on purpose (:data:`WING_EXTRAS`: SpeCon's model uses
      ``optimus/curves.py``);
    * for ``fn`` in ``dlsched.arena`` or another module of dlsched (e.g.
      ``dlsched.experiments.simulation_jobs``, which runs any registered policy): every module the
      registry loads by name -- or, for a function of :data:`POLICY_SCOPED` given ``params``,
      only the named policy's module among the registry's policies (:func:`policy_scope`);
    * for ``fn`` outside dlsched (tests, user code): its module's source file only.

    Modules that never compute a stored value (:data:`NOT_FINGERPRINTED`: the store, the runner,
    the site, the CLI, plots, the fidelity and readings tables) are left out, and so is whatever
    the function cannot reach: a wing's ``findings.py`` (prose from results) or a new experiment
    module does not stale the points of the others.

    Files are hashed in sorted order of their paths relative to the package (path, length and
    the syntax tree without docstrings, :func:`_code_of`: a change of a comment, a docstring or
    the layout keeps the fingerprint; any change of the code changes it). Data files and
    plotting code are not included. Results are memoised per function and file stat signature.

    Parameters
    ----------
    fn : callable or str
        The experiment function or its ``"module:qualname"``.
    params : mapping, optional
        The point's parameters; read only for a function of :data:`POLICY_SCOPED`.

    Returns
    -------
    str
        64 lowercase hex digits.
    """
    path = fn_path(fn)
    policy = policy_scope(path, params)
    memo_key = path if policy is None else f"{path}\0{policy}"
    inside = path.startswith("dlsched.") or path.startswith("dlsched:")
    tree = _tree_signature() if inside else None
    if tree is not None:  # the package unchanged since the last call: the same files, same digest
        memo = _FP_TREE_MEMO.get(memo_key)
        if memo is not None and memo[0] == tree:
            return memo[1]
    files = _fingerprint_files(path, policy)
    sig = tuple((name, p.stat().st_mtime_ns, p.stat().st_size) for name, p in files)
    memo = _FP_MEMO.get(memo_key)
    if memo is not None and memo[0] == sig:
        if tree is not None:
            _FP_TREE_MEMO[memo_key] = (tree, memo[1])
        return memo[1]
    h = hashlib.sha256()
    for name, p in files:
        data = _code_of(p)
        h.update(f"{name}\0{len(data)}\0".encode())
        h.update(data)
    digest = h.hexdigest()
    _FP_MEMO[memo_key] = (sig, digest)
    if tree is not None:
        _FP_TREE_MEMO[memo_key] = (tree, digest)
    return digest


def _tree_signature() -> tuple:
    """``(path, mtime_ns, size)`` of every ``.py`` file under the package, sorted: all that a
    dlsched function's fingerprint (which files, their code) can depend on. About a hundred
    ``stat`` calls, far cheaper than walking the imports (:func:`_fingerprint_files`), so a
    sweep that records thousands of points checks the package once per point this way."""
    out = []
    stack = [str(PACKAGE)]
    while stack:
        with os.scandir(stack.pop()) as entries:
            for e in entries:
                if e.is_dir(follow_symlinks=False):
                    if e.name != "__pycache__":
                        stack.append(e.path)
                elif e.name.endswith(".py"):
                    st = e.stat()
                    out.append((e.path, st.st_mtime_ns, st.st_size))
    return tuple(sorted(out))


# --------------------------------------------------------------------------- frames


def tidy_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A sweep point's frame as ``sweep`` keeps it: named index levels become columns, an unnamed
    index is dropped."""
    if any(name is not None for name in df.index.names):
        return df.reset_index()
    return df.reset_index(drop=True)


def encode(df: pd.DataFrame) -> bytes:
    """The stored bytes of a frame: parquet (pyarrow), zstd level 19, no index."""
    buf = io.BytesIO()
    df.to_parquet(buf, engine="pyarrow", compression="zstd", compression_level=ZSTD_LEVEL, index=False)
    return buf.getvalue()


def decode(data: bytes) -> pd.DataFrame:
    """Inverse of :func:`encode` (the reader ``sweep`` uses for every point)."""
    return pd.read_parquet(io.BytesIO(data), engine="pyarrow")


def schema_of(df: pd.DataFrame) -> str:
    """16 hex digits naming a frame's columns and dtypes (points of one schema share a pack)."""
    text = json.dumps(
        [[str(c), repr(t) if isinstance(t, pd.CategoricalDtype) else str(t)] for c, t in df.dtypes.items()],
        separators=(",", ":"),
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def frame_sha256(df: pd.DataFrame) -> str:
    """sha256 of a frame's content: its column names, dtypes, length and
    ``pandas.util.hash_pandas_object`` of its rows (the index is not part of a stored frame).

    This is what a manifest entry's ``sha256`` holds; reading a point recomputes it from the
    frame sliced out of its pack, so a damaged pack or a wrong slice is caught."""
    h = hashlib.sha256()
    h.update(json.dumps([[str(c), str(t)] for c, t in df.dtypes.items()], separators=(",", ":")).encode())
    h.update(len(df).to_bytes(8, "little"))
    if len(df.columns) and len(df):
        h.update(pd.util.hash_pandas_object(df, index=False).to_numpy().tobytes())
    return h.hexdigest()


def recompute(
    fn: Callable[[dict], pd.DataFrame] | str, params: Mapping[str, Any]
) -> tuple[pd.DataFrame, float]:
    """Compute one point from scratch: ``fn(params)``, :func:`tidy_frame`, parquet round trip.

    Returns the frame and the seconds ``fn`` took. Raises TypeError if ``fn`` returns no frame.
    """
    f = load_fn(fn) if isinstance(fn, str) else fn
    t0 = time.perf_counter()
    out = f(json.loads(json.dumps(dict(params))))
    seconds = time.perf_counter() - t0
    if not isinstance(out, pd.DataFrame):
        raise TypeError(f"{fn_path(fn)} returned {type(out).__name__}, not a DataFrame, for {dict(params)!r}")
    return decode(encode(tidy_frame(out))), seconds


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _check_key(key: Any) -> str:
    if not isinstance(key, str) or not _KEY_RE.match(key):
        raise ValueError(f"store key must be 64 lowercase hex digits, got {key!r}")
    return key


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        with open(tmp, "xb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise


def _manifest_bytes(
    entries: Mapping[str, Mapping[str, Any]], packs: Mapping[str, Mapping[str, Any]]
) -> bytes:
    doc = {
        "format": FORMAT,
        "entries": {k: dict(entries[k]) for k in sorted(entries)},
        "packs": {k: dict(packs[k]) for k in sorted(packs)},
    }
    return (json.dumps(doc, indent=1, sort_keys=True) + "\n").encode()


def regenerate_hint(
    key: str, entry: Mapping[str, Any] | None, store_path: str | os.PathLike[str] | None = None
) -> str:
    """The command that recomputes a stored point: ``dlsched reproduce --only NN --mode paper --fresh``
    for its notebook (a ``notebook`` whose name starts with digits), else a ``python -c`` calling
    :func:`regenerate` with the function, the JSON params and (if not the default) the store folder."""
    if entry is None:
        return f"regenerate the store entry {key[:12]}"
    nb = entry.get("notebook")
    m = re.match(r"(\d+)", Path(str(nb)).name) if nb else None
    if m:
        return f"dlsched reproduce --only {m.group(1)} --mode paper --fresh"
    code = (
        "import json, sys; from dlsched.store import regenerate; "
        "regenerate(sys.argv[1], json.loads(sys.argv[2]), *sys.argv[3:])"
    )
    args = [str(entry["fn"]), json.dumps(entry["params"], sort_keys=True)]
    if store_path is not None and Path(store_path).resolve() != DEFAULT_PATH.resolve():
        args.append(str(store_path))
    return " ".join(["python", "-c", *(shlex.quote(a) for a in [code, *args])])


# --------------------------------------------------------------------------- the store


class StoreCorruptError(RuntimeError):
    """A manifest entry whose pack is missing or does not match its sha256.

    ``key`` names the entry; the message says how to regenerate it.
    """

    def __init__(self, message: str, key: str) -> None:
        super().__init__(message)
        self.key = key


def _recover(path: Path) -> None:
    """Finish or undo a commit that died between its two renames (see :class:`StoreWriter`)."""
    olds = sorted(path.parent.glob(f".{path.name}.old-*"), key=lambda p: p.stat().st_mtime_ns)
    if not olds:
        return
    if not path.exists():  # died after moving the old store away: put it back
        os.rename(olds.pop(), path)
    for p in olds:  # the swap completed; the old copy is garbage
        shutil.rmtree(p, ignore_errors=True)


#: Decoded packs, most recently used last: ``{(file, sha256): frame}`` (notebooks open a store per
#: sweep; a pack is read and verified once per process).
_PACK_CACHE: OrderedDict[tuple[str, str], pd.DataFrame] = OrderedDict()
_PACK_CACHE_SIZE = 64


class ResultStore:
    """A folder of stored sweep points with a manifest (see the module docstring).

    Parameters
    ----------
    path : str or os.PathLike, optional
        The folder; default :data:`DEFAULT_PATH` (``data/results`` of the repository). A missing
        folder is an empty store (nothing is created until a commit).

    Raises
    ------
    NotADirectoryError
        If ``path`` exists and is not a folder.
    ValueError
        If ``manifest.json`` is not a manifest of this format.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(DEFAULT_PATH if path is None else path)
        if self.path.exists() and not self.path.is_dir():
            raise NotADirectoryError(f"ResultStore: path {str(self.path)!r} is not a folder")
        if self.path.parent.is_dir():
            _recover(self.path)
        self._loaded: tuple[tuple, dict[str, dict], dict[str, dict]] | None = None
        self._fingerprints: dict[str, str] = {}

    def __repr__(self) -> str:
        return f"ResultStore({str(self.path)!r})"

    # -- manifest
    def _load(self) -> tuple[dict[str, dict], dict[str, dict]]:
        file = self.path / MANIFEST
        try:
            st = file.stat()
        except FileNotFoundError:
            return {}, {}
        sig = (st.st_mtime_ns, st.st_size, st.st_ino)
        if self._loaded is None or self._loaded[0] != sig:
            try:
                doc = json.loads(file.read_text(encoding="utf-8"))
            except json.JSONDecodeError as exc:
                raise ValueError(f"ResultStore: {str(file)!r} is not valid JSON ({exc})") from exc
            if (
                not isinstance(doc, dict)
                or doc.get("format") != FORMAT
                or not isinstance(doc.get("entries"), dict)
                or not isinstance(doc.get("packs"), dict)
            ):
                raise ValueError(
                    f"ResultStore: {str(file)!r} is not a format-{FORMAT} manifest (got format "
                    f"{doc.get('format') if isinstance(doc, dict) else None!r}); regenerate the store: "
                    "dlsched reproduce --mode paper --fresh"
                )
            self._loaded = (sig, doc["entries"], doc["packs"])
        return self._loaded[1], self._loaded[2]

    def _manifest(self) -> dict[str, dict]:
        return self._load()[0]

    def entries(self) -> dict[str, dict]:
        """A copy of the manifest's entries, ``{key: entry}``, sorted by key."""
        m = self._manifest()
        return {k: dict(m[k]) for k in sorted(m)}

    def packs(self) -> dict[str, dict]:
        """A copy of the manifest's packs, ``{file name: {"sha256", "rows", "points"}}``."""
        p = self._load()[1]
        return {k: dict(p[k]) for k in sorted(p)}

    def entry(self, key: str) -> dict | None:
        """The manifest entry of ``key`` (a copy), or None."""
        e = self._manifest().get(key)
        return None if e is None else dict(e)

    def __contains__(self, key: object) -> bool:
        """Whether the manifest lists ``key`` (stale or not)."""
        return isinstance(key, str) and key in self._manifest()

    def __len__(self) -> int:
        return len(self._manifest())

    def size_bytes(self) -> int:
        """Bytes of the manifest and of the packs it lists (missing files count 0)."""
        total = 0
        for name in [MANIFEST, *(f"{PACKS}/{p}" for p in self._load()[1])]:
            with contextlib.suppress(FileNotFoundError):
                total += (self.path / name).stat().st_size
        return total

    # -- staleness
    def _fingerprint(self, path: str, params: Mapping[str, Any] | None = None) -> str:
        policy = policy_scope(path, params)
        memo_key = path if policy is None else f"{path}\0{policy}"
        if memo_key not in self._fingerprints:
            self._fingerprints[memo_key] = code_fingerprint(path, params)
        return self._fingerprints[memo_key]

    def stale_reason(self, key: str) -> str | None:
        """Why the entry of ``key`` is stale (``"fingerprint"`` or ``"version"``), or None.

        Fingerprints are computed once per store object and function (and policy, for the
        functions of :data:`POLICY_SCOPED`).
        """
        e = self._manifest().get(key)
        if e is None:
            return None
        if e.get("version") != dlsched.__version__:
            return "version"
        if e.get("fingerprint") != self._fingerprint(e["fn"], e.get("params")):
            return "fingerprint"
        return None

    def stale(self) -> list[str]:
        """Keys of the stale entries, sorted."""
        return [k for k in sorted(self._manifest()) if self.stale_reason(k) is not None]

    # -- reading
    def _pack(self, name: str, key: str, hint: str) -> pd.DataFrame:
        info = self._load()[1].get(name)
        file = self.path / PACKS / name
        if info is None:
            raise StoreCorruptError(
                f"results store {str(self.path)!r}: entry {key} names pack {name}, which the manifest "
                f"does not list; regenerate it: {hint}",
                key,
            )
        memo = (str(file.resolve()), str(info.get("sha256")))
        if memo in _PACK_CACHE:
            _PACK_CACHE.move_to_end(memo)
            return _PACK_CACHE[memo]
        try:
            data = file.read_bytes()
        except FileNotFoundError:
            raise StoreCorruptError(
                f"results store {str(self.path)!r}: entry {key} is in the manifest but its pack "
                f"{PACKS}/{name} is missing; regenerate it: {hint}",
                key,
            ) from None
        if _sha256(data) != info.get("sha256"):
            raise StoreCorruptError(
                f"results store {str(self.path)!r}: entry {key}: pack {PACKS}/{name} does not match "
                f"its sha256 in the manifest; regenerate it: {hint}",
                key,
            )
        frame = decode(data)
        _PACK_CACHE[memo] = frame
        while len(_PACK_CACHE) > _PACK_CACHE_SIZE:
            _PACK_CACHE.popitem(last=False)
        return frame

    def read_frame(self, key: str) -> pd.DataFrame | None:
        """The verified stored frame of ``key`` (stale or not), or None if the manifest does not
        list it.

        Raises
        ------
        StoreCorruptError
            If its pack is missing or does not match its sha256, or the rows sliced out of the
            pack do not match the entry's own sha256 (:func:`frame_sha256`).
        """
        e = self._manifest().get(_check_key(key))
        if e is None:
            return None
        hint = regenerate_hint(key, e, self.path)
        pack = self._pack(str(e.get("pack")), key, hint)
        start, rows = int(e.get("start", -1)), int(e.get("rows", -1))
        if start < 0 or rows < 0 or start + rows > len(pack):
            raise StoreCorruptError(
                f"results store {str(self.path)!r}: entry {key}: rows {start}..{start + rows} lie outside "
                f"its pack {e.get('pack')} of {len(pack)} rows; regenerate it: {hint}",
                key,
            )
        frame = pack.iloc[start : start + rows].reset_index(drop=True)
        if frame_sha256(frame) != e.get("sha256"):
            raise StoreCorruptError(
                f"results store {str(self.path)!r}: entry {key} ({e.get('fn')}): its rows of pack "
                f"{e.get('pack')} do not match its sha256; regenerate it: {hint}",
                key,
            )
        return frame

    def get(self, key: str, *, allow_stale: bool = False) -> pd.DataFrame | None:
        """The stored frame of ``key``.

        Parameters
        ----------
        key : str
            A :func:`dlsched.experiments.cache_key`.
        allow_stale : bool, default False
            Serve an entry even if its fingerprint or version differs from the current code's.

        Returns
        -------
        pandas.DataFrame or None
            None if the manifest does not list ``key``, or if the entry is stale and
            ``allow_stale`` is False (the caller recomputes).

        Raises
        ------
        StoreCorruptError
            If the (non-stale) entry's pack is missing or does not match (see :meth:`read_frame`).
        ValueError
            If ``key`` is not 64 hex digits.
        """
        if _check_key(key) not in self._manifest():
            return None
        if not allow_stale and self.stale_reason(key) is not None:
            return None
        return self.read_frame(key)

    # -- writing
    def staging(self, path: str | os.PathLike[str] | None = None) -> StoreWriter:
        """A :class:`StoreWriter` for this store (use as a context manager: commit on success)."""
        return StoreWriter(self, path)


# --------------------------------------------------------------------------- writing


def record(
    staging: str | os.PathLike[str],
    key: str,
    fn: Callable[..., Any] | str,
    params: Mapping[str, Any],
    frame: pd.DataFrame,
    seconds: float,
    *,
    notebook: str | None = None,
) -> dict:
    """Record one computed point into a staging folder: ``<key>.parquet`` then ``<key>.json``.

    Parameters
    ----------
    staging : path
        The staging folder (created if missing), e.g. ``$DLSCHED_STORE_RECORD``.
    key : str
        The point's ``cache_key``; checked against ``fn`` and ``params``.
    fn : callable or str
        The experiment function.
    params : Mapping
        Canonical JSON parameters.
    frame : pandas.DataFrame
        The point's (tidy) frame.
    seconds : float
        Compute time.
    notebook : str, optional
        Default: the environment variable ``DLSCHED_NOTEBOOK`` (None if unset).

    Returns
    -------
    dict
        The manifest entry (without its place in a pack, which the commit assigns).

    Raises
    ------
    ValueError
        If ``key`` is not the key of ``fn`` and ``params``, the frame does not survive the round
        trip through the stored encoding unchanged, or a volatile column of ``fn`` is missing.
    """
    path = fn_path(fn)
    params = json.loads(json.dumps(dict(params), sort_keys=True))
    if point_key(path, params) != _check_key(key):
        raise ValueError(f"record: key {key} is not the key of {path} with params {params!r}")
    data = encode(frame)
    try:  # the stored encoding must give back the very frame
        pd.testing.assert_frame_equal(decode(data), frame, check_exact=True)
    except AssertionError as exc:
        raise ValueError(f"record: the frame of {path} {params!r} changes when stored: {exc}") from exc
    volatile = volatile_columns(fn)
    absent = [c for c in volatile if c != "*" and c not in frame.columns]
    if absent:
        raise ValueError(
            f"record: volatile column(s) {absent} of {path} are not in its frame {list(frame.columns)}"
        )
    entry = {
        "fn": path,
        "params": params,
        "version": dlsched.__version__,
        "fingerprint": code_fingerprint(fn, params),
        "seconds": round(float(seconds), 3) if math.isfinite(seconds) else None,
        "sha256": frame_sha256(frame),
        "schema": schema_of(frame),
        "rows": len(frame),
        "notebook": (os.environ.get(NOTEBOOK_ENV) or None) if notebook is None else notebook,
        "audit": "*" not in volatile,
        "volatile": [c for c in volatile if c != "*"],
    }
    folder = Path(staging)
    folder.mkdir(parents=True, exist_ok=True)
    _write_atomic(folder / f"{key}.parquet", data)
    staged = {**entry, "file_sha256": _sha256(data)}
    _write_atomic(folder / f"{key}.json", json.dumps(staged, sort_keys=True).encode())
    return entry


def keep(staging: str | os.PathLike[str], key: str) -> None:
    """Mark a stored point as still used by the run that records into ``staging`` (served from
    the store, not recomputed): the commit keeps it even when its notebook is regenerated."""
    folder = Path(staging)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{_check_key(key)}.keep").touch()


def note_uses(keys: Collection[str]) -> None:
    """Append ``keys`` (the points a sweep asked the store for) to the uses file of the notebook
    being run, ``$DLSCHED_STORE_USES/<notebook>.keys.part`` (no-op if the variable is unset).

    :mod:`dlsched.reproduce` renames the ``.part`` file to ``<notebook>.keys`` once the notebook
    has run to the end, so an interrupted run never makes a used point look unused.
    """
    folder = os.environ.get(USES_ENV)
    if not folder or not keys:
        return
    name = os.environ.get(NOTEBOOK_ENV) or "unknown"
    Path(folder).mkdir(parents=True, exist_ok=True)
    with open(Path(folder) / f"{name}.keys.part", "a", encoding="utf-8") as f:
        f.write("".join(f"{_check_key(k)}\n" for k in keys))


def read_uses(folder: str | os.PathLike[str] | None = None) -> dict[str, set[str]]:
    """Notebook name -> keys its last complete paper-mode run asked for (``<notebook>.keys``)."""
    path = Path(folder) if folder is not None else DEFAULT_USES
    return {
        f.name[: -len(".keys")]: set(f.read_text(encoding="utf-8").split())
        for f in sorted(path.glob("*.keys"))
    }


def unused(store: ResultStore, uses: Mapping[str, set[str]]) -> list[str]:
    """Entries whose notebook's last complete paper-mode run (``uses``) did not ask for them:
    their parameters are no longer in the notebook. Notebooks without a record are left out."""
    asked = set().union(*uses.values()) if uses else set()
    return sorted(
        k for k, e in store.entries().items()
        if e.get("notebook") in uses and k not in asked
    )


def _staged(folder: Path) -> dict[str, dict]:
    """Complete records of a staging folder (json and parquet present, sha256 matching)."""
    out = {}
    for j in sorted(folder.glob("*.json")):
        key = j.stem
        if not _KEY_RE.match(key):
            continue
        entry = json.loads(j.read_text(encoding="utf-8"))
        data_file = folder / f"{key}.parquet"
        if data_file.is_file() and _sha256(data_file.read_bytes()) == entry.get("file_sha256"):
            out[key] = entry
    return out


def _link_or_copy(src: Path, dst: Path) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def _fsync_dir(path: Path) -> None:
    if os.name == "posix":
        with contextlib.suppress(OSError):
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


@contextlib.contextmanager
def _locked(path: Path):
    """Hold an exclusive lock on ``.<store name>.lock`` next to the store (POSIX ``flock``), so
    that two writers (a regeneration and a notebook refresh) commit one after the other and
    neither loses the other's points. Elsewhere, no lock (one writer at a time)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    with open(path.parent / f".{path.name}.lock", "a+b") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


#: Environment variable naming a lock file shared by every process of a parallel regeneration
#: (``dlsched reproduce --jobs N`` sets it for its notebooks, their kernels and Dask workers).
MEASURE_LOCK_ENV = "DLSCHED_MEASURE_LOCK"

_measure_depth = 0  # slots this process holds (nested points do not lock again)


def is_measurement(fn: Callable[..., Any] | str) -> bool:
    """Whether ``fn``'s whole frame is a wall-clock measurement (``volatile == ("*",)``): such a
    point runs alone on the machine in a parallel regeneration (:func:`measurement_slot`)."""
    return "*" in volatile_columns(fn)


@contextlib.contextmanager
def measurement_slot(exclusive: bool):
    """Hold the machine for one point: shared for an ordinary point, exclusive for a wall-clock
    measurement (:func:`is_measurement`).

    Active only when :data:`MEASURE_LOCK_ENV` names a lock file (a parallel
    ``dlsched reproduce``); otherwise, and where POSIX ``flock`` is missing, it does nothing.
    An exclusive holder waits until the points running elsewhere finish, and no new point starts
    anywhere until it is done, so a decision-time plot or SpeCon's real-process testbed is timed
    on an otherwise idle machine while every other point of the run shares the cores. Writers
    go first: a waiting measurement holds the turnstile ``<lock>.turn`` that every point passes,
    so a stream of ordinary points cannot starve it. Only the order in which points run changes,
    never a result.
    """
    global _measure_depth
    path = os.environ.get(MEASURE_LOCK_ENV)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        fcntl = None
    if not path or fcntl is None or _measure_depth:
        _measure_depth += 1
        try:
            yield
        finally:
            _measure_depth -= 1
        return
    with open(f"{path}.turn", "a+b") as turn, open(path, "a+b") as main:
        fcntl.flock(turn.fileno(), fcntl.LOCK_EX)
        try:
            fcntl.flock(main.fileno(), fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        finally:
            if not exclusive:
                fcntl.flock(turn.fileno(), fcntl.LOCK_UN)
        _measure_depth += 1
        try:
            yield
        finally:
            _measure_depth -= 1
            fcntl.flock(main.fileno(), fcntl.LOCK_UN)
            if exclusive:
                fcntl.flock(turn.fileno(), fcntl.LOCK_UN)


class StoreWriter:
    """Stage new points for a store, then swap them in at once.

    Parameters
    ----------
    store : ResultStore or path
        The target store.
    staging : path, optional
        The staging folder (created, or reused with the records already in it). Default: a new
        folder under ``build/store-staging/`` when the store lies in the repository, else a hidden
        folder next to the store.

    Notes
    -----
    As a context manager the writer commits when the block ends normally and discards the staged
    points when it raises. :meth:`commit` leaves the store untouched until its final two renames
    (store -> ``.<name>.old-<token>``, new copy -> store); see :func:`_recover` for a death in
    between.
    """

    def __init__(
        self, store: ResultStore | str | os.PathLike[str], staging: str | os.PathLike[str] | None = None
    ):
        self.store = store if isinstance(store, ResultStore) else ResultStore(store)
        if staging is None:
            target = self.store.path.resolve()
            parent = REPO / "build" / "store-staging" if REPO in target.parents else target.parent
            parent.mkdir(parents=True, exist_ok=True)
            staging = tempfile.mkdtemp(prefix=f".{target.name}.staging-", dir=parent)
        self.path = Path(staging)
        self.path.mkdir(parents=True, exist_ok=True)
        self.committed: list[str] | None = None

    def __repr__(self) -> str:
        return f"StoreWriter({self.store!r}, staging={str(self.path)!r})"

    def record(self, key: str, fn: Callable[..., Any] | str, params: Mapping[str, Any], frame: pd.DataFrame,
               seconds: float, *, notebook: str | None = None) -> dict:  # fmt: skip
        """Stage one point (see :func:`record`)."""
        return record(self.path, key, fn, params, frame, seconds, notebook=notebook)

    def staged(self) -> dict[str, dict]:
        """The complete staged entries, ``{key: entry}``."""
        return _staged(self.path) if self.path.is_dir() else {}

    def kept(self) -> set[str]:
        """Keys marked with :func:`keep` (stored points the run used without recomputing)."""
        if not self.path.is_dir():
            return set()
        return {p.stem for p in self.path.glob("*.keep") if _KEY_RE.match(p.stem)}

    def commit(self, replace_notebooks: Collection[str] = ()) -> list[str]:
        """Swap the staged points into the store and rewrite its manifest; remove the staging folder.

        Points are packed per (notebook, function, schema) into one parquet file each
        (``packs/<sha256>.parquet``); a pack whose points did not change is kept as it is.

        Parameters
        ----------
        replace_notebooks : collection of str
            Notebooks (manifest ``notebook`` names) regenerated whole: their stored points that
            were neither staged again nor kept (:func:`keep`) are dropped (their parameters left
            the notebook), so the store holds exactly what those notebooks compute now.

        Returns
        -------
        list of str
            The committed keys (new or replaced), sorted.
        """
        self.store.path.parent.mkdir(parents=True, exist_ok=True)
        with _locked(self.store.path):
            return self._commit(replace_notebooks)

    def _commit(self, replace_notebooks: Collection[str]) -> list[str]:
        staged = self.staged()
        kept = self.kept()
        store = self.store
        target = store.path
        replaced = set(replace_notebooks)
        old_entries, old_packs = store.entries(), store.packs()
        entries = {k: e for k, e in old_entries.items()
                   if k in staged or k in kept or e.get("notebook") not in replaced}  # fmt: skip
        for k, e in staged.items():
            entries[k] = {n: v for n, v in e.items() if n != "file_sha256"}
        groups: dict[tuple[str, str, str], list[str]] = {}
        for k in sorted(entries):
            e = entries[k]
            groups.setdefault((str(e.get("notebook") or ""), str(e["fn"]), str(e["schema"])), []).append(k)
        old_members: dict[str, list[str]] = {}
        for k, e in old_entries.items():
            old_members.setdefault(str(e.get("pack")), []).append(k)
        token = f"{os.getpid()}-{secrets.token_hex(4)}"
        new = target.parent / f".{target.name}.new-{token}"
        old = target.parent / f".{target.name}.old-{token}"
        (new / PACKS).mkdir(parents=True)
        packs: dict[str, dict] = {}
        try:
            for keys in groups.values():
                name = str(old_entries[keys[0]].get("pack")) if keys[0] in old_entries else ""
                unchanged = (
                    not any(k in staged for k in keys)
                    and sorted(old_members.get(name, ())) == keys
                    and (target / PACKS / name).is_file()
                )
                if unchanged:
                    if name not in packs:
                        _link_or_copy(target / PACKS / name, new / PACKS / name)
                    packs[name] = dict(old_packs[name])
                    continue
                frames = [
                    decode((self.path / f"{k}.parquet").read_bytes()) if k in staged else store.read_frame(k)
                    for k in keys
                ]
                data = encode(pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0])
                digest = _sha256(data)
                name = f"{digest[:40]}.parquet"
                back = decode(data)
                start = 0
                for k, f in zip(keys, frames, strict=True):
                    piece = back.iloc[start : start + len(f)].reset_index(drop=True)
                    if frame_sha256(piece) != entries[k]["sha256"]:
                        raise ValueError(f"commit: point {k} ({entries[k]['fn']}) changes when packed")
                    entries[k] = {**entries[k], "pack": name, "start": start, "rows": len(f)}
                    start += len(f)
                _write_atomic(new / PACKS / name, data)
                packs[name] = {"sha256": digest, "rows": len(back), "points": len(keys)}
            _write_atomic(new / MANIFEST, _manifest_bytes(entries, packs))
            _fsync_dir(new / PACKS)
            _fsync_dir(new)
            if target.exists():
                os.rename(target, old)
            os.rename(new, target)
        except BaseException:
            shutil.rmtree(new, ignore_errors=True)
            raise
        _fsync_dir(target.parent)
        shutil.rmtree(old, ignore_errors=True)
        self.discard()
        self.committed = sorted(staged)
        return self.committed


    def discard(self) -> None:
        """Delete the staging folder and what it holds; the store is unchanged."""
        shutil.rmtree(self.path, ignore_errors=True)

    def __enter__(self) -> StoreWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.discard()


def regenerate(fn: Callable[..., Any] | str, params: Mapping[str, Any],
               store: ResultStore | str | os.PathLike[str] | None = None) -> str:  # fmt: skip
    """Recompute one point from scratch and commit it into ``store`` (default: the repository's).

    ``params`` must be JSON parameters (as in the manifest). Returns the key.
    """
    s = store if isinstance(store, ResultStore) else ResultStore(store)
    params = json.loads(json.dumps(dict(params), sort_keys=True))
    key = point_key(fn, params)
    frame, seconds = recompute(fn, params)
    with s.staging() as w:
        w.record(key, fn, params, frame, seconds)
    return key


# --------------------------------------------------------------------------- audit


def _rank(seed: int, key: str) -> str:
    return hashlib.sha256(f"{seed}:{key}".encode()).hexdigest()


def select_sample(
    entries: Mapping[str, Mapping[str, Any]], k: int, seed: int, budget: float | None = None
) -> list[str]:
    """Keys to audit: one point of every experiment function, then others up to ``k`` in total.

    The choice is a deterministic function of the keys, their recorded ``seconds`` and ``seed``
    (points ranked by ``sha256(f"{seed}:{key}")``, independent of Python and numpy versions). Per
    function the chosen point is an auditable one if it has any; the fill-up draws only auditable
    points. With ``k`` below the number of functions, every function still gets its one point.

    ``budget`` (seconds, optional) bounds the recomputation time, estimated from each entry's
    recorded ``seconds``: a function's point is drawn among its points that take at most
    ``budget / (2 * number of functions)`` (its cheapest point if none does), and the fill-up
    skips points that would take the estimate over ``budget``. Points too slow for a budget are
    still checked by ``audit --all``.

    Returns
    -------
    list of str
        Sorted by (fn, key).
    """
    def cost(x: str) -> float:
        e = entries[x]
        return float(e.get("seconds") or 0.0) if e.get("audit", True) else 0.0

    by_fn: dict[str, list[str]] = {}
    for key in entries:
        by_fn.setdefault(str(entries[key]["fn"]), []).append(key)
    cap = None if budget is None else budget / (2 * max(1, len(by_fn)))
    chosen: set[str] = set()
    for keys in by_fn.values():
        pool = [x for x in keys if entries[x].get("audit", True)] or keys
        if cap is not None:
            pool = [x for x in pool if cost(x) <= cap] or [min(pool, key=lambda x: (cost(x), _rank(seed, x)))]
        chosen.add(min(pool, key=lambda x: _rank(seed, x)))
    spent = sum(cost(x) for x in chosen)
    rest = sorted((x for x in entries if x not in chosen and entries[x].get("audit", True)),
                  key=lambda x: _rank(seed, x))  # fmt: skip
    for x in rest:
        if len(chosen) >= k:
            break
        if budget is not None and spent + cost(x) > budget:
            continue
        chosen.add(x)
        spent += cost(x)
    return sorted(chosen, key=lambda x: (str(entries[x]["fn"]), x))


@dataclass(frozen=True)
class AuditResult:
    """One audited point: ``status`` is ``ok``, ``skipped``, ``MISMATCH``, ``CORRUPT`` or ``ERROR``."""

    key: str
    fn: str
    status: str
    seconds: float
    detail: str = ""
    stale: str | None = None

    @property
    def failed(self) -> bool:
        return self.status not in ("ok", "skipped")


@dataclass(frozen=True)
class AuditReport:
    """The results of :func:`audit`, in the order audited."""

    results: tuple[AuditResult, ...] = field(default_factory=tuple)

    @property
    def passed(self) -> int:
        return sum(r.status == "ok" for r in self.results)

    @property
    def failed(self) -> int:
        return sum(r.failed for r in self.results)

    @property
    def skipped(self) -> int:
        return sum(r.status == "skipped" for r in self.results)

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0


def _audit_one(store: ResultStore, key: str, entry: Mapping[str, Any]) -> AuditResult:
    fn = str(entry["fn"])
    stale = store.stale_reason(key)
    try:
        stored = store.read_frame(key)
    except StoreCorruptError as exc:
        return AuditResult(key, fn, "CORRUPT", 0.0, str(exc), stale)
    if point_key(fn, entry["params"], entry.get("version")) != key:
        detail = "the key is not the hash of the entry's fn, params and version"
        return AuditResult(key, fn, "CORRUPT", 0.0, detail, stale)
    if not entry.get("audit", True):
        detail = "audit: false (the whole frame is wall-clock time)"
        return AuditResult(key, fn, "skipped", 0.0, detail, stale)
    assert stored is not None
    try:
        fresh, seconds = recompute(fn, entry["params"])
    except Exception as exc:  # the point's own failure is an audit failure, reported
        return AuditResult(key, fn, "ERROR", 0.0, f"{type(exc).__name__}: {exc}", stale)
    drop = [c for c in entry.get("volatile", ()) if c in stored.columns]
    missing = [c for c in drop if c not in fresh.columns]
    if missing:
        return AuditResult(key, fn, "MISMATCH", seconds, f"recomputed frame lacks column(s) {missing}", stale)
    try:
        pd.testing.assert_frame_equal(stored.drop(columns=drop), fresh.drop(columns=drop), check_exact=True)
    except AssertionError as exc:
        return AuditResult(key, fn, "MISMATCH", seconds, " ".join(str(exc).split()), stale)
    note = f"wall-clock column(s) {drop} not compared" if drop else ""
    return AuditResult(key, fn, "ok", seconds, note, stale)


def _audit_at(path: str, key: str) -> AuditResult:
    """:func:`_audit_one` in a worker process: open the store at ``path`` there."""
    s = ResultStore(path)
    return _audit_one(s, key, s.entries()[key])


def _audit_many(s: ResultStore, keys: list[str], entries: Mapping[str, Mapping[str, Any]],
                workers: int):  # fmt: skip
    """Yield ``(key, AuditResult)`` for ``keys``: serially, or on a LocalCluster of ``workers``."""
    if workers == 1 or len(keys) < 2:
        for key in keys:
            yield key, _audit_one(s, key, entries[key])
        return

    from distributed import Client, as_completed

    from dlsched.localcluster import new_local_cluster

    order = sorted(keys, key=lambda k: (-float(entries[k].get("seconds", 0.0)), k))
    cluster = new_local_cluster(workers)
    with cluster, Client(cluster, set_as_default=False) as client:
        futures = {client.submit(_audit_at, str(s.path), k, key=f"audit-{k}", pure=False): k for k in order}
        for fut in as_completed(list(futures), loop=client.loop):
            yield futures[fut], fut.result()
            fut.release()


def audit(
    store: ResultStore | str | os.PathLike[str] | None = None,
    *,
    sample: int | None = None,
    seed: int = 0,
    check_all: bool = False,
    budget: float | None = None,
    echo: Callable[[str], Any] | None = print,
    workers: int = 1,
) -> AuditReport:
    """Recompute stored points from scratch and compare them with the store, exactly.

    Each selected point is checked for integrity (file present, sha256, key = hash of fn, params
    and version: a failure is ``CORRUPT``, never recomputed), then, unless its entry says
    ``audit: false``, recomputed (:func:`recompute`) and compared with
    ``pandas.testing.assert_frame_equal(check_exact=True)`` (columns, dtypes, values). A stale
    entry is audited all the same (its line says so).

    Parameters
    ----------
    store : ResultStore or path, optional
        Default: the repository's ``data/results``.
    sample : int, optional
        Audit :func:`select_sample` of ``sample`` points with ``seed``.
    seed : int, default 0
    check_all : bool, default False
        Audit every entry. Exactly one of ``sample`` and ``check_all`` must be given.
    budget : float, optional
        With ``sample``: bound the estimated recomputation time (see :func:`select_sample`).
    echo : callable or None, default print
        Receives one line per point (``status fn key seconds``; on a failure also the params and
        the regeneration command), then ``"<n> skipped ..."`` if any, then ``"N passed, M failed"``.
    workers : int, default 1
        Recompute on a ``dask.distributed.LocalCluster`` of this many single-threaded worker
        processes (slowest recorded points first); 1 runs in this process. Lines come in
        completion order; the report is the same either way.

    Returns
    -------
    AuditReport
        ``exit_code`` is 0 only if no point failed.

    Raises
    ------
    ValueError
        If neither or both of ``sample`` / ``check_all`` are given, ``sample < 1`` or ``seed < 0``.
    FileNotFoundError
        If the store has no ``manifest.json``.
    """
    if (sample is None) == (not check_all):
        raise ValueError("audit: give exactly one of sample=K or check_all=True")
    if sample is not None and (isinstance(sample, bool) or not isinstance(sample, int) or sample < 1):
        raise ValueError(f"audit: sample must be an int >= 1, got {sample!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"audit: seed must be an int >= 0, got {seed!r}")
    bad_budget = isinstance(budget, bool) or not isinstance(budget, int | float) or not budget > 0
    if budget is not None and bad_budget:
        raise ValueError(f"audit: budget must be a number of seconds > 0, got {budget!r}")
    s = store if isinstance(store, ResultStore) else ResultStore(store)
    if not (s.path / MANIFEST).is_file():
        raise FileNotFoundError(f"audit: no results store at {str(s.path)!r} ({MANIFEST} missing)")
    entries = s.entries()
    keys = (
        sorted(entries, key=lambda x: (entries[x]["fn"], x))
        if check_all
        else select_sample(entries, sample, seed, budget)
    )
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"audit: workers must be an int >= 1, got {workers!r}")
    say = echo if echo is not None else (lambda _line: None)
    done: dict[str, AuditResult] = {}
    for key, r in _audit_many(s, keys, entries, workers):
        done[key] = r
        note = f"  (stale: {r.stale} differs; not served)" if r.stale else ""
        say(f"{r.status:<8} {r.fn}  {key[:12]}  {r.seconds:.2f} s{note}")
        if r.failed:
            say(f"    {r.detail[:2000]}")
            say(f"    params: {json.dumps(entries[key]['params'], sort_keys=True)}")
            say(f"    regenerate: {regenerate_hint(key, entries[key], s.path)}")
    report = AuditReport(tuple(done[k] for k in keys))
    if report.skipped:
        say(f"{report.skipped} skipped (audit: false, results with wall-clock times)")
    say(f"{report.passed} passed, {report.failed} failed")
    return report


def stale_report(store: ResultStore | str | os.PathLike[str] | None = None,
                 echo: Callable[[str], Any] | None = print,
                 uses: str | os.PathLike[str] | None = None) -> list[str]:  # fmt: skip
    """List the entries not served: stale ones (their code fingerprint differs from the current
    code's) and unused ones (their parameters are no longer in their notebook); return their keys.

    Unused entries are found from the uses folder (default ``build/store-uses``) that a paper-mode
    ``dlsched reproduce`` writes: one ``<notebook>.keys`` file per notebook that ran to the end,
    listing the points its sweeps asked for. An entry of such a notebook that is not listed is
    unused (a sweep asks only for the parameters in the notebook, so it is never served); a
    regeneration or ``make refresh-notebooks`` of that notebook drops it. Notebooks with no
    record are named in a closing note (run ``make reproduce`` first).

    Raises FileNotFoundError if the store has no manifest.
    """
    s = store if isinstance(store, ResultStore) else ResultStore(store)
    if not (s.path / MANIFEST).is_file():
        raise FileNotFoundError(f"no results store at {str(s.path)!r} ({MANIFEST} missing)")
    say = echo if echo is not None else (lambda _line: None)
    entries = s.entries()
    stale = s.stale()
    for key in stale:
        say(f"stale    {entries[key]['fn']}  {key[:12]}  ({s.stale_reason(key)} differs)")
    recorded = read_uses(uses)
    gone = [k for k in unused(s, recorded) if k not in set(stale)]
    for key in gone:
        e = entries[key]
        say(f"unused   {e['fn']}  {key[:12]}  (notebook {e['notebook']}'s last paper run did not ask for "
            f"{json.dumps(e['params'], sort_keys=True)})")
    say(f"{len(stale)} stale, {len(gone)} unused of {len(entries)} entries")
    missing = sorted({str(e.get("notebook")) for e in entries.values() if e.get("notebook")} - set(recorded))
    if missing:
        say(f"note: no record of a complete paper-mode run of {', '.join(missing)}; "
            "run `make reproduce` to check those notebooks' entries for unused parameters")
    return stale + gone

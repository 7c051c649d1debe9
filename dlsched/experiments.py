"""Experiments as functions, parameter sweeps on Dask, and an on-disk result cache.

An *experiment* is a module-level function ``fn(params: dict) -> pandas.DataFrame`` that turns one
point of a parameter grid into a tidy table. This module runs such a function over a whole grid:

* :func:`param_grid` builds the grid (a cartesian product of axes over a base dict);
* :func:`cache_key` names one point: the sha256 of a canonical JSON of the function's import
  path, its parameters and ``dlsched.__version__``;
* :class:`ResultCache` keeps one parquet file per finished point, written atomically (temporary
  file in the same folder, then :func:`os.replace`), so a killed sweep never leaves a partial
  entry behind;
* :func:`sweep` runs the grid serially, on a ``dask.distributed.LocalCluster`` kept for the process, or on an
  existing Dask cluster (scheduler address or ``distributed.Client``). Finished points are cached
  as soon as they complete, so an interrupted or repeated sweep resumes without recomputing or
  duplicating anything, and the result is concatenated in grid order;
* ``sweep(..., store=...)`` reads points from a committed results store first
  (:class:`dlsched.store.ResultStore`) and can record fresh points into one (see :mod:`dlsched.store`).

Reproducibility: ``fn`` receives only its ``params`` (seeds included), never anything about the
worker that runs it, and every per-point frame -- fresh or cached, serial or on Dask -- goes through
the same parquet encoding before it is returned. Hence the same grid gives identical frames
(``pandas.testing.assert_frame_equal``) whichever scheduler ran it. A consequence is that ``fn``
must return a frame that parquet can store (string column names, no mixed-type object columns).

The simulation-specific experiment functions of dlsched live below the generic machinery.
"""

from __future__ import annotations

import atexit
import contextlib
import copy
import hashlib
import io
import itertools
import json
import os
import re
import secrets
import socket
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from tqdm import tqdm

import dlsched
from dlsched import store as _store

__all__ = [
    "ResultCache",
    "SweepError",
    "cache_key",
    "close_local_cluster",
    "param_grid",
    "sweep",
]

# --------------------------------------------------------------------------- parameter grids


def param_grid(base: Mapping[str, Any] | None = None, **axes: Sequence[Any]) -> list[dict]:
    """Cartesian product of parameter axes, each point merged over a base dict.

    Parameters
    ----------
    base : Mapping[str, Any] or None
        Parameters shared by every point. Axis values override base values of the same name.
        Each point gets its own deep copy of ``base``.
    **axes : Sequence
        One keyword per axis, each a non-empty sequence (list, tuple, range or 1-D numpy array)
        of values. Numpy scalars are converted to Python scalars.

    Returns
    -------
    list of dict
        The points, in deterministic order: axes vary in the order given, the last axis fastest
        (like nested for-loops). With no axes, a single point equal to ``base``.

    Raises
    ------
    TypeError
        If ``base`` is not a mapping.
    ValueError
        If an axis is not a sequence (a str, set or scalar), is not 1-D, or is empty; the message
        names the axis.

    Examples
    --------
    >>> for point in param_grid({"mode": "quick"}, load=[0.5, 0.9], seed=range(2)):
    ...     print(point)
    {'mode': 'quick', 'load': 0.5, 'seed': 0}
    {'mode': 'quick', 'load': 0.5, 'seed': 1}
    {'mode': 'quick', 'load': 0.9, 'seed': 0}
    {'mode': 'quick', 'load': 0.9, 'seed': 1}
    """
    if base is None:
        base = {}
    if not isinstance(base, Mapping):
        raise TypeError(f"param_grid: base must be a mapping or None, got {type(base).__name__}")
    values: list[list[Any]] = []
    for name, axis in axes.items():
        if isinstance(axis, np.ndarray):
            if axis.ndim != 1:
                raise ValueError(
                    f"param_grid: axis {name!r} must be 1-D, got an array of shape {axis.shape}"
                )
            axis = axis.tolist()
        if isinstance(axis, str | bytes) or not isinstance(axis, Sequence):
            raise ValueError(
                f"param_grid: axis {name!r} must be a non-empty sequence (list, tuple, range, "
                f"1-D array), got {type(axis).__name__} {axis!r}"
            )
        if len(axis) == 0:
            raise ValueError(f"param_grid: axis {name!r} is empty")
        values.append([_py_scalar(v) for v in axis])
    names = list(axes)
    return [
        {**copy.deepcopy(dict(base)), **dict(zip(names, combo, strict=True))}
        for combo in itertools.product(*values)
    ]


def _py_scalar(value: Any) -> Any:
    """Return ``value`` with a numpy scalar replaced by the equal Python scalar."""
    return value.item() if isinstance(value, np.generic) else value


# --------------------------------------------------------------------------- cache keys


def _canonical(value: Any, where: str) -> Any:
    """JSON-ready copy of ``value``; ``where`` names the parameter for error messages."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, np.generic):
        value = value.item()
        if value is None or isinstance(value, bool | int | float | str):
            return value
        raise TypeError(
            f"cache_key: parameter {where!r} is a numpy scalar of unsupported type "
            f"{type(value).__name__} ({value!r})"
        )
    if isinstance(value, np.ndarray):
        return [_canonical(v, f"{where}[{i}]") for i, v in enumerate(value.tolist())]
    if isinstance(value, list | tuple):
        return [_canonical(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(
                    f"cache_key: parameter {where!r} has a non-str key {k!r} "
                    f"({type(k).__name__}); JSON needs str keys"
                )
            out[k] = _canonical(v, f"{where}.{k}")
        return out
    raise TypeError(
        f"cache_key: parameter {where!r} is not JSON-serialisable: {type(value).__name__} {value!r}"
    )


def _fn_name(fn: Callable[..., Any]) -> str:
    """Import path ``module.qualname`` of a module-level function (TypeError otherwise)."""
    module = getattr(fn, "__module__", None)
    qualname = getattr(fn, "__qualname__", None)
    if not callable(fn) or not module or not qualname:
        raise TypeError(
            f"experiment function must be a module-level function, got {type(fn).__name__} {fn!r}"
        )
    if "<" in qualname:  # <lambda>, <locals>
        raise TypeError(
            f"experiment function must be a module-level (importable) function, got "
            f"{module}.{qualname}"
        )
    return f"{module}.{qualname}"


def _check_params(params: Any) -> None:
    if not isinstance(params, Mapping):
        raise TypeError(f"parameters must be a mapping, got {type(params).__name__} {params!r}")
    for k in params:
        if not isinstance(k, str):
            raise TypeError(f"parameter names must be str, got {type(k).__name__} {k!r}")


def cache_key(fn: Callable[[dict], pd.DataFrame], params: Mapping[str, Any]) -> str:
    """Stable name of one sweep point: sha256 of a canonical JSON.

    The JSON document is ``{"fn": "<module>.<qualname>", "params": params, "version":
    dlsched.__version__}`` with sorted keys, numpy scalars and arrays converted to Python values,
    and tuples written as lists. Dict order does not matter; ``1`` and ``1.0`` differ.

    Parameters
    ----------
    fn : callable
        The experiment function; must be module-level (its import path is part of the key).
    params : Mapping[str, Any]
        JSON-able parameters (None, bool, int, float, str, lists/tuples, str-keyed dicts,
        numpy scalars and arrays).

    Returns
    -------
    str
        64 lowercase hex digits.

    Raises
    ------
    TypeError
        If ``fn`` is not a module-level function, or a parameter is not JSON-able (the message
        names the parameter, e.g. ``'cluster.sizes[2]'``).
    """
    _check_params(params)
    doc = {
        "fn": _fn_name(fn),
        "params": {k: _canonical(v, k) for k, v in params.items()},
        "version": dlsched.__version__,
    }
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


# --------------------------------------------------------------------------- parquet codec


def _encode(df: pd.DataFrame) -> bytes:
    """Parquet bytes of ``df`` (pyarrow engine)."""
    return df.to_parquet(None, engine="pyarrow")


def _decode(data: bytes) -> pd.DataFrame:
    """Inverse of :func:`_encode`; the same reader as :meth:`ResultCache.get`."""
    return pd.read_parquet(io.BytesIO(data), engine="pyarrow")


# --------------------------------------------------------------------------- result cache

_KEY_RE = re.compile(r"^[A-Za-z0-9_-]{1,128}$")
_HOST = re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname()) or "host"
_STALE_AFTER_S = 24 * 3600.0


def _pid_alive(pid: int) -> bool:
    if os.name != "posix":  # os.kill(pid, 0) would terminate the process on Windows
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class ResultCache:
    """One parquet file per key in a folder, written atomically.

    ``put`` writes to a hidden temporary file ``.<key>.<host>.<pid>.<random>.tmp`` in the same
    folder, fsyncs it and moves it into place with :func:`os.replace`, so a reader sees either
    no entry or a complete one. Temporary files left behind by a killed process are ignored by
    ``get``/``keys`` and removed when a cache is opened or cleared (when their process, on this
    host, is gone, or when they are older than a day).

    Parameters
    ----------
    path : str or os.PathLike
        The folder; created (with parents) if missing.

    Raises
    ------
    NotADirectoryError
        If ``path`` exists and is not a folder.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        if self.path.exists() and not self.path.is_dir():
            raise NotADirectoryError(f"ResultCache: path {str(self.path)!r} is not a folder")
        self.path.mkdir(parents=True, exist_ok=True)
        self._clean_temp()

    def __repr__(self) -> str:
        return f"ResultCache({str(self.path)!r})"

    # -- helpers
    def _file(self, key: str) -> Path:
        if not isinstance(key, str) or not _KEY_RE.match(key):
            raise ValueError(
                f"ResultCache: key must be 1-128 characters of [A-Za-z0-9_-], got {key!r}"
            )
        return self.path / f"{key}.parquet"

    def _temp_files(self) -> Iterator[Path]:
        return (p for p in self.path.glob(".*.tmp") if p.is_file())

    def _clean_temp(self) -> None:
        now = time.time()
        for p in self._temp_files():
            parts = p.name.split(".")  # ['', key, host, pid, token, 'tmp']
            stale = False
            try:
                if now - p.stat().st_mtime > _STALE_AFTER_S:
                    stale = True
                elif len(parts) == 6 and parts[2] == _HOST and not _pid_alive(int(parts[3])):
                    stale = True
            except (OSError, ValueError):
                continue
            if stale:
                with contextlib.suppress(FileNotFoundError):
                    p.unlink()

    # -- public API
    def contains(self, key: str) -> bool:
        """Whether a complete entry for ``key`` exists.

        Parameters
        ----------
        key : str
            Entry name, 1-128 characters of ``[A-Za-z0-9_-]``.

        Returns
        -------
        bool

        Raises
        ------
        ValueError
            If ``key`` is not a valid entry name.
        """
        return self._file(key).is_file()

    __contains__ = contains

    def get(self, key: str) -> pd.DataFrame | None:
        """Read the frame stored under ``key``.

        Parameters
        ----------
        key : str
            Entry name.

        Returns
        -------
        pandas.DataFrame or None
            The stored frame, or None if there is no entry.

        Raises
        ------
        ValueError
            If ``key`` is invalid, or the entry cannot be read as parquet (the message names the
            file; delete it to recompute).
        """
        file = self._file(key)
        try:
            data = file.read_bytes()
        except FileNotFoundError:
            return None
        try:
            return _decode(data)
        except Exception as exc:  # pyarrow raises several types for a damaged file
            raise ValueError(
                f"ResultCache: entry {str(file)!r} is not readable parquet ({exc}); "
                "delete it to recompute"
            ) from exc

    def put(self, key: str, df: pd.DataFrame) -> None:
        """Store ``df`` under ``key`` atomically, replacing any previous entry.

        Parameters
        ----------
        key : str
            Entry name.
        df : pandas.DataFrame
            The frame; must be storable as parquet (string column names).

        Raises
        ------
        TypeError
            If ``df`` is not a DataFrame.
        ValueError
            If ``key`` is invalid or pyarrow cannot store the frame.
        """
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"ResultCache.put: df must be a DataFrame, got {type(df).__name__}")
        self._file(key)  # validate before encoding
        try:
            data = _encode(df)
        except Exception as exc:
            raise ValueError(f"ResultCache.put: cannot store frame as parquet: {exc}") from exc
        self._put_bytes(key, data)

    def _put_bytes(self, key: str, data: bytes) -> None:
        final = self._file(key)
        tmp = self.path / f".{key}.{_HOST}.{os.getpid()}.{secrets.token_hex(6)}.tmp"
        try:
            with open(tmp, "xb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, final)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
            raise
        if os.name == "posix":  # make the rename itself durable; best effort
            with contextlib.suppress(OSError):
                fd = os.open(self.path, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)

    def keys(self) -> list[str]:
        """Sorted names of the complete entries.

        Returns
        -------
        list of str
        """
        return sorted(
            p.name[: -len(".parquet")]
            for p in self.path.glob("*.parquet")
            if p.is_file() and _KEY_RE.match(p.name[: -len(".parquet")])
        )

    def clear(self) -> None:
        """Delete every entry and every stale temporary file."""
        for key in self.keys():
            with contextlib.suppress(FileNotFoundError):
                (self.path / f"{key}.parquet").unlink()
        self._clean_temp()

    def __len__(self) -> int:
        return len(self.keys())


# --------------------------------------------------------------------------- sweeps


class SweepError(RuntimeError):
    """A sweep point raised; ``params`` holds its parameters, ``__cause__`` the exception.

    Points that finished before the failure stay in the cache.
    """

    def __init__(self, message: str, params: Mapping[str, Any]) -> None:
        super().__init__(message)
        self.params = dict(params)


_tidy = _store.tidy_frame  # named index levels become columns; an unnamed index is dropped


def _run_point(fn: Callable[[dict], pd.DataFrame], params: dict) -> tuple[str, bytes | str, float]:
    """Run one point where it is scheduled; return ("ok", parquet bytes, seconds) or (kind, detail,
    seconds), ``seconds`` being the wall time of ``fn``.

    Runs on Dask workers and in-process for the serial scheduler: one code path for both.
    Exceptions raised by ``fn`` propagate (and become a SweepError on the client side).
    """
    with _store.measurement_slot(_store.is_measurement(fn)):  # a parallel regeneration's turn
        t0 = time.perf_counter()
        out = fn(dict(params))
        seconds = time.perf_counter() - t0
    if not isinstance(out, pd.DataFrame):
        return "not_frame", type(out).__name__, seconds
    out = _tidy(out)
    try:
        return "ok", _encode(out), seconds
    except Exception as exc:  # pyarrow: ArrowTypeError, ArrowInvalid, ValueError ...
        return "not_parquet", f"{type(exc).__name__}: {exc}", seconds


def _accept(kind: str, payload: bytes | str, params: Mapping[str, Any]) -> bytes:
    if kind == "not_frame":
        raise TypeError(
            f"sweep: experiment function returned {payload}, not a pandas DataFrame, "
            f"for params {dict(params)!r}"
        )
    if kind == "not_parquet":
        raise TypeError(
            f"sweep: the frame returned for params {dict(params)!r} cannot be stored as "
            f"parquet ({payload}); use str column names and single-type columns"
        )
    assert isinstance(payload, bytes)
    return payload


_ADDRESS_RE = re.compile(r"^(\w+://\S+|[\w.\-]+:\d+|\[[0-9A-Fa-f:]+\]:\d+)$")


def _is_scalar_param(value: Any) -> bool:
    return value is None or isinstance(value, bool | int | float | str | np.generic)


def _assemble(grid: list[dict], frames: list[pd.DataFrame]) -> pd.DataFrame:
    """Concatenate per-point frames in grid order with scalar-parameter columns prepended."""
    names: list[str] = []
    nonscalar: set[str] = set()
    for params in grid:
        for k, v in params.items():
            if k not in names:
                names.append(k)
            if not _is_scalar_param(v):
                nonscalar.add(k)
    pcols = [k for k in names if k not in nonscalar]
    result_cols: list[str] = []
    for f in frames:
        result_cols.extend(c for c in f.columns if c not in result_cols)
    clash = [k for k in pcols if k in result_cols]
    if clash:
        raise ValueError(
            f"sweep: parameter name(s) {clash} collide with result column(s) of the same name; "
            "rename the parameter or the column"
        )
    body = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if not pcols:
        return body
    rows = [{k: _py_scalar(p.get(k)) for k in pcols} for p in grid]
    lengths = np.array([len(f) for f in frames], dtype=np.int64)
    head = pd.DataFrame.from_records(rows, columns=pcols)
    head = head.iloc[np.repeat(np.arange(len(grid)), lengths)].reset_index(drop=True)
    body = body.reset_index(drop=True)
    return pd.concat([head, body], axis=1)


def sweep(
    fn: Callable[[dict], pd.DataFrame],
    grid: Sequence[Mapping[str, Any]],
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    scheduler: Any = "local",
    n_workers: int | None = None,
    progress: bool = False,
    retries: int = 0,
    store: _store.ResultStore | str | os.PathLike[str] | None = None,
) -> pd.DataFrame:
    """Run an experiment function over a parameter grid; concatenate the results in grid order.

    Parameters
    ----------
    fn : callable
        ``fn(params: dict) -> pandas.DataFrame``; a module-level (importable, picklable) function
        that depends only on ``params`` (take the seed from there). Its frame must be storable
        as parquet. A named index is turned into columns; an unnamed index is dropped.
    grid : sequence of Mapping
        The points, e.g. from :func:`param_grid`. Points with the same :func:`cache_key` are
        computed once and appear once per occurrence in the result.
    cache_dir : str or os.PathLike, optional
        Folder of a :class:`ResultCache`. Points already there are not recomputed; each newly
        finished point is written as soon as it completes, so an interrupted sweep resumes.
    scheduler : {"serial", "local"} or str or distributed.Client, default "local"
        ``"serial"``: in-process, in grid order. ``"local"``: a
        ``dask.distributed.LocalCluster`` of ``n_workers`` single-threaded worker processes,
        started by the first such sweep of the process and kept for the next ones (a notebook's
        sweeps share it; :func:`close_local_cluster` or the end of the process closes it; it is
        replaced when ``n_workers`` or the environment changes); a single point to compute runs
        in-process instead (the result is the same either way). A scheduler address such as
        ``"tcp://127.0.0.1:8786"``: connect to that running cluster (which is left running).
        A ``distributed.Client``: use it as is (it is not closed).
    n_workers : int, optional
        Worker processes for ``scheduler="local"``; default ``min(2, os.cpu_count())``.
    progress : bool, default False
        Show a tqdm progress bar (points, cached ones counted as done).
    retries : int, default 0
        Extra attempts for a point that raises before the sweep gives up.
    store : dlsched.store.ResultStore or str or os.PathLike, optional
        A results store (or its folder), read-only. Each point is looked up in the store first
        (a stale entry is not served), then in ``cache_dir``, and computed only if neither has
        it. None (default): no store, and ``DLSCHED_STORE_RECORD`` is ignored.
        *Recording*: when a store is given and the environment variable ``DLSCHED_STORE_RECORD``
        names a staging folder (set by the regeneration runner to a
        :class:`dlsched.store.StoreWriter`'s ``path``), each computed point (frame and seconds) is
        recorded into that folder (:func:`dlsched.store.record`; ``DLSCHED_NOTEBOOK`` names the
        notebook) and the runner commits the folder into the store afterwards. With
        ``DLSCHED_STORE_FRESH=1`` every point is recomputed, reading neither the store nor the
        cache; otherwise points the store holds are served (and marked used,
        :func:`dlsched.store.keep`) and the others computed, never read from the cache.

    Returns
    -------
    pandas.DataFrame
        For each grid point in order, its frame, with one leading column per parameter whose
        values are scalars (None/bool/int/float/str) in every point; a fresh RangeIndex. Every
        per-point frame is the parquet round-trip of what ``fn`` returned, so the result is
        identical whether it was computed serially, on Dask, or read from the cache or the store.

    Raises
    ------
    dlsched.store.StoreCorruptError
        If a point's store entry has a missing file or a bad sha256 (never silently recomputed).
    TypeError
        If ``store`` is not a store or a path, ``fn`` is not a module-level function, ``grid`` is
        not a sequence of str-keyed mappings, a parameter is not JSON-able, or ``fn`` returns
        something that is not a DataFrame or cannot be stored as parquet (the message names the
        params).
    ValueError
        If ``scheduler``, ``n_workers`` or ``retries`` is invalid, or a parameter name collides
        with a result column.
    SweepError
        If ``fn`` raises for a point (after ``retries``); the message names its params, finished
        points stay in the cache, and the original exception is the ``__cause__``.

    Notes
    -----
    ``"local"`` starts worker processes with multiprocessing's *spawn* method, which re-imports
    the calling script: in a script, call ``sweep`` under ``if __name__ == "__main__":``
    (notebooks and installed console scripts need nothing). On an external cluster, the
    scheduler and the workers must be able to import ``fn``'s module (same environment).
    Every grid point that is already cached is read without contacting any scheduler.
    """
    _fn_name(fn)
    if isinstance(grid, Mapping) or isinstance(grid, str | bytes) or not isinstance(grid, Sequence):
        raise TypeError(
            f"sweep: grid must be a sequence of parameter dicts, got {type(grid).__name__}"
        )
    grid = [dict(p) if isinstance(p, Mapping) else p for p in grid]
    for i, params in enumerate(grid):
        if not isinstance(params, Mapping):
            raise TypeError(
                f"sweep: grid[{i}] must be a mapping of parameters, got "
                f"{type(params).__name__} {params!r}"
            )
    if isinstance(retries, bool) or not isinstance(retries, int | np.integer) or retries < 0:
        raise ValueError(f"sweep: retries must be a non-negative int, got {retries!r}")
    retries = int(retries)
    mode = _scheduler_mode(scheduler)
    if n_workers is not None:
        if isinstance(n_workers, bool) or not isinstance(n_workers, int | np.integer):
            raise ValueError(f"sweep: n_workers must be a positive int, got {n_workers!r}")
        if n_workers < 1:
            raise ValueError(f"sweep: n_workers must be a positive int, got {n_workers!r}")
        if mode != "local":
            raise ValueError(
                f"sweep: n_workers={n_workers!r} only applies to scheduler='local', "
                f"not {scheduler!r}"
            )

    if store is not None and not isinstance(store, _store.ResultStore | str | os.PathLike):
        raise TypeError(
            f"sweep: store must be a dlsched.store.ResultStore, a folder path or None, got "
            f"{type(store).__name__} {store!r}"
        )
    keys = [cache_key(fn, p) for p in grid]
    first: dict[str, dict] = {}
    for k, p in zip(keys, grid, strict=True):
        first.setdefault(k, p)
    cache = ResultCache(cache_dir) if cache_dir is not None else None
    results = None
    if store is not None:
        results = store if isinstance(store, _store.ResultStore) else _store.ResultStore(store)
    if results is not None:  # a paper-mode run records which points its notebook asks for
        _store.note_uses(list(first))
    staging = (os.environ.get(_store.RECORD_ENV) or None) if results is not None else None
    fresh = staging is not None and os.environ.get(_store.FRESH_ENV) == "1"

    done: dict[str, pd.DataFrame] = {}
    # Recording: fresh recomputes every point; otherwise the store's points are kept and the
    # missing ones computed from scratch (never taken from the cache, which may be older code).
    sources = () if fresh else (results,) if staging is not None else (results, cache)
    for source in sources:
        if source is None:
            continue
        for k in first:
            if k not in done:
                df = source.get(k)
                if df is not None:
                    done[k] = df
                    if staging is not None:
                        _store.keep(staging, k)
    todo = [k for k in first if k not in done]

    def finish(k: str, data: bytes, seconds: float) -> None:
        if cache is not None:
            cache._put_bytes(k, data)
        done[k] = _decode(data)
        if staging is not None:
            params = {name: _canonical(v, name) for name, v in first[k].items()}
            _store.record(staging, k, fn, params, done[k], seconds)

    bar = tqdm(
        total=len(first),
        initial=len(first) - len(todo),
        disable=not progress,
        desc=f"sweep {fn.__qualname__}",
        unit="pt",
    )
    try:
        if todo and (mode == "serial" or (mode == "local" and len(todo) == 1)):
            _run_serial(fn, todo, first, retries, finish, bar)
        elif todo:
            _run_dask(fn, todo, first, retries, finish, bar, scheduler, mode, n_workers)
    finally:
        bar.close()
    return _assemble(grid, [done[k] for k in keys])


def _scheduler_mode(scheduler: Any) -> str:
    if isinstance(scheduler, str):
        if scheduler in ("serial", "local"):
            return scheduler
        if _ADDRESS_RE.match(scheduler):
            return "address"
        raise ValueError(
            f"sweep: scheduler must be 'serial', 'local', a scheduler address such as "
            f"'tcp://127.0.0.1:8786', or a distributed.Client; got {scheduler!r}"
        )
    if type(scheduler).__module__.startswith("distributed"):
        from distributed import Client

        if isinstance(scheduler, Client):
            return "client"
    raise ValueError(
        f"sweep: scheduler must be 'serial', 'local', a scheduler address such as "
        f"'tcp://127.0.0.1:8786', or a distributed.Client; got {scheduler!r}"
    )


def _failed(params: Mapping[str, Any], exc: BaseException) -> SweepError:
    return SweepError(f"sweep: point {dict(params)!r} failed: {type(exc).__name__}: {exc}", params)


def _run_serial(
    fn: Callable[[dict], pd.DataFrame],
    todo: list[str],
    first: dict[str, dict],
    retries: int,
    finish: Callable[[str, bytes, float], None],
    bar: Any,
) -> None:
    for k in todo:
        params = first[k]
        for attempt in range(retries + 1):
            try:
                kind, payload, seconds = _run_point(fn, params)
                break
            except Exception as exc:
                if attempt == retries:
                    raise _failed(params, exc) from exc
        finish(k, _accept(kind, payload, params), seconds)
        bar.update(1)


#: The process's LocalCluster for ``scheduler="local"``: (key, cluster, client) or None.
_LOCAL: list[Any] = [None]


def _local_client(n: int) -> Any:
    """The client of this process's LocalCluster of ``n`` workers, started on first use.

    Workers inherit the environment when they start, so the cluster is replaced when ``n``,
    ``PYTHONPATH`` or a ``DLSCHED_*`` variable differs from when it was started, or when a
    worker has died.
    """
    from distributed import Client

    env = sorted((k, v) for k, v in os.environ.items() if k == "PYTHONPATH" or k.startswith("DLSCHED_"))
    key = (n, tuple(env))
    held = _LOCAL[0]
    if held is not None:
        if held[0] == key and held[2].status == "running" and len(held[2].scheduler_info()["workers"]) == n:
            return held[2]
        close_local_cluster()
    from dlsched.localcluster import new_local_cluster

    cluster = new_local_cluster(n)
    client = Client(cluster, set_as_default=False)
    _LOCAL[0] = (key, cluster, client)
    return client


def close_local_cluster() -> None:
    """Close the LocalCluster that ``sweep(..., scheduler="local")`` keeps for the process (if
    any). Registered to run at exit."""
    held, _LOCAL[0] = _LOCAL[0], None
    if held is not None:
        with contextlib.suppress(Exception):
            held[2].close()
        with contextlib.suppress(Exception):
            held[1].close()


atexit.register(close_local_cluster)


def _run_dask(
    fn: Callable[[dict], pd.DataFrame],
    todo: list[str],
    first: dict[str, dict],
    retries: int,
    finish: Callable[[str, bytes, float], None],
    bar: Any,
    scheduler: Any,
    mode: str,
    n_workers: int | None,
) -> None:
    from distributed import Client, as_completed

    with contextlib.ExitStack() as stack:
        if mode == "local":
            n = n_workers if n_workers is not None else min(2, os.cpu_count() or 1)
            client = _local_client(int(n))
        elif mode == "address":
            client = stack.enter_context(Client(scheduler, set_as_default=False))
        else:
            client = scheduler

        # Task keys are unique per call: a shared cluster must never hand back a task (e.g. an
        # erred one) that an earlier sweep left behind under the same name.
        prefix = f"sweep-{re.sub(r'[^A-Za-z0-9_]', '_', fn.__qualname__)}-{secrets.token_hex(4)}"
        futures = {
            client.submit(_run_point, fn, first[k], key=f"{prefix}-{k}", retries=retries): k
            for k in todo
        }
        try:
            for fut in as_completed(list(futures), loop=client.loop):
                k = futures[fut]
                try:
                    kind, payload, seconds = fut.result()
                except Exception as exc:  # the point's own exception, or CancelledError
                    raise _failed(first[k], exc) from exc
                fut.release()
                finish(k, _accept(kind, payload, first[k]), seconds)
                bar.update(1)
        finally:
            pending = [f for f in futures if not f.done()]
            with contextlib.suppress(Exception):
                if pending:
                    client.cancel(pending)
                for f in futures:
                    f.release()


# --------------------------------------------------------------------------- simulation experiments


def _split_sim_params(params: Mapping[str, Any]) -> tuple[str, str, int, int | None, dict, dict]:
    known = {"workload", "policy", "seed", "horizon"}
    wparams, pparams = {}, {}
    for k, v in params.items():
        if k.startswith("workload."):
            wparams[k.split(".", 1)[1]] = v
        elif k.startswith("policy."):
            pparams[k.split(".", 1)[1]] = v
        elif k not in known:
            raise ValueError(f"simulation parameter {k!r} is neither one of {sorted(known)} nor "
                             "prefixed 'workload.' or 'policy.'")
    for k in ("workload", "policy"):
        if k not in params:
            raise ValueError(f"simulation parameters need {k!r}, got {sorted(params)}")
    return (params["workload"], params["policy"], params.get("seed", 0), params.get("horizon"),
            wparams, pparams)


def simulate_point(params: Mapping[str, Any]):
    """Build the workload and policy named in ``params`` and simulate (see :func:`simulation_jobs`).

    The workload and the policy get independent streams of ``SeedSequence(seed)``, so the result
    depends only on ``params``.
    """
    from dlsched import registry
    from dlsched.core.simulator import simulate

    workload, policy, seed, horizon, wparams, pparams = _split_sim_params(params)
    wl = registry.make_workload(workload, seed=seed, **wparams)
    return simulate(wl, registry.make_policy(policy, wl, **pparams), seed=seed, horizon=horizon)


def simulation_jobs(params: Mapping[str, Any]) -> pd.DataFrame:
    """Experiment: one simulation's job table.

    Parameters
    ----------
    params : Mapping
        ``workload`` and ``policy`` (registry names), ``seed`` (int, default 0), optional
        ``horizon``, and workload / policy parameters as ``"workload.<name>"`` /
        ``"policy.<name>"`` keys.

    Returns
    -------
    pandas.DataFrame
        The result's ``jobs`` table (see the README glossary).
    """
    return simulate_point(params).jobs


def simulation_summary(params: Mapping[str, Any]) -> pd.DataFrame:
    """Experiment: one simulation's headline metrics as a one-row table (see
    :func:`dlsched.core.metrics.summary`); parameters as in :func:`simulation_jobs`."""
    from dlsched.core import metrics

    return pd.DataFrame([metrics.summary(simulate_point(params))])

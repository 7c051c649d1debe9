"""Real cluster traces: checksum-verified loaders for Philly, Microsoft ITP and Google 2011.

The five papers evaluate their schedulers on synthetic workloads whose shapes come from
real clusters: GPU counts and run times from Microsoft's Philly and ITP GPU clusters, and
arrival patterns (the diurnal cycle) from the Google 2011 cluster trace. This module reads
those public traces from a directory, verifies each file against a sha256 embedded here
(independent of the data folder's own ``MANIFEST.sha256``), and returns tidy pandas frames
with normalized column names, units and dtypes. The trace files are never copied into the
repository; :func:`data_dir` finds them and :func:`download` fetches them where a direct
public URL is known.

Data sets and citations
-----------------------
* Philly (``philly/``): M. Jeon et al., "Analysis of Large-Scale Multi-Tenant GPU Clusters for
  DNN Training Workloads", USENIX ATC'19. The job table is the derivative published with
  Pollux: A. Qiao et al., "Pollux: Co-adaptive Cluster Scheduling for Goodput-Optimized Deep
  Learning", OSDI'21 (github.com/petuum/adaptdl, branch ``osdi21-artifact``). Nodes per virtual
  cluster come from Helios: Q. Hu et al., "Characterization and Prediction of Deep Learning
  Workloads in Large-Scale GPU Datacenters", SC'21 (github.com/S-Lab-System-Group/HeliosArtifact).
  Philly data CC-BY-4.0; adaptdl Apache-2.0; HeliosArtifact MIT.
* Microsoft ITP (``itp/cluster01..10.csv``): D. Gu et al., "ElasticFlow: An Elastic Serverless
  Training Platform for Distributed Deep Learning", ASPLOS'23
  (github.com/microsoft/elasticflow-traces, ``data/raw-traces.tar.gz``). MIT.
* Google 2011 (``google2011/``): C. Reiss, J. Wilkes, J. L. Hellerstein, "Google cluster-usage
  traces: format + schema", Google Inc., 2011 (clusterdata-2011-2). CC-BY-4.0. The trace has
  no GPUs; it is used for arrival patterns only.

Normalized job frame
--------------------
:func:`load_philly` and :func:`load_itp` return one row per job with these columns:

============  =======  =====================================================================
column        dtype    meaning
============  =======  =====================================================================
job_id        int64    0..n-1 in order of (submit time, original file order)
submit_time   float64  seconds since the first kept submission (so it starts at 0)
duration      float64  run time in seconds (Philly: summed over attempts)
num_gpus      int64    GPUs requested (>= 1)
gpu_time      float64  GPU-seconds (Philly: from the file; ITP: duration * num_gpus)
cluster       str      Philly virtual-cluster id, or ITP cluster name ``"cluster01"``..
============  =======  =====================================================================

``df.attrs`` records provenance: ``trace`` (trace name or names), ``sources`` (file paths),
``rows_raw`` (data rows read), ``dropped_duplicates`` (duplicate rows, equal in every parsed
column, removed, first occurrence kept), ``dropped_invalid`` (rows with duration <= 0 or
num_gpus < 1), ``t0`` (the
raw time of the first kept submission, in the file's own format: a wall-clock string for
Philly, seconds since the trace start for ITP) and ``t0_offset_s`` (seconds from ``t0`` to
``submit_time == 0``; 0.0 from the loaders, updated by :func:`sample_jobs`).

Validation
----------
A missing column, a missing/non-numeric/non-finite number, a non-integer count or a bad
timestamp raises ``ValueError`` naming the file, the column, the first bad row (0-based data
row and 1-based file line) and the bad value. A wrong checksum raises
:class:`TraceChecksumError`; an unknown trace name raises :class:`UnknownTraceError`
(both ``ValueError`` subclasses).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import threading
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "ENV_VAR",
    "GOOGLE_END_EVENTS",
    "GOOGLE_ORIGIN_LOCAL_S",
    "GOOGLE_TRACE_END_S",
    "GOOGLE_TRACE_START_S",
    "ITP_CLUSTERS",
    "JOB_COLUMNS",
    "TRACE_FILES",
    "TraceChecksumError",
    "TraceFile",
    "UnknownTraceError",
    "data_dir",
    "download",
    "google_hour_of_day",
    "google_hour_of_day_profile",
    "load_google_hourly",
    "load_google_jobs",
    "load_itp",
    "load_philly",
    "load_philly_vc_nodes",
    "missing_columns_error",
    "sample_jobs",
    "verify",
]

ENV_VAR = "DLSCHED_DATA_DIR"
"""Environment variable naming the trace data directory."""

JOB_COLUMNS: tuple[str, ...] = (
    "job_id", "submit_time", "duration", "num_gpus", "gpu_time", "cluster"
)
"""Columns of the normalized job frame, in order."""

ITP_CLUSTERS: tuple[str, ...] = tuple(f"cluster{i:02d}" for i in range(1, 11))
"""Names of the ten Microsoft ITP clusters."""

# Google 2011 time base (clusterdata-2011-2 documentation, github.com/google/cluster-data,
# ClusterData2011_2.md): "The trace starts at 19:00 EDT on Sunday May 1, 2011, and the
# datacenter is in that timezone (US Eastern). This corresponds to a trace timestamp of 600s."
GOOGLE_TRACE_START_S = 600
"""Trace timestamp (s) of the start of the observation period, 19:00 EDT Sun 2011-05-01."""
GOOGLE_TRACE_END_S = GOOGLE_TRACE_START_S + 29 * 86400
"""Trace timestamp (s) of the end of the 29-day observation period."""
GOOGLE_ORIGIN_LOCAL_S = 18 * 3600 + 50 * 60
"""Local (US Eastern, EDT) time of day, in seconds after midnight, of trace timestamp 0 (18:50)."""
GOOGLE_END_EVENTS: frozenset[str] = frozenset({"FINISH", "KILL", "FAIL", "EVICT", "LOST"})
"""Values allowed in the ``end_event`` column of the Google week job table."""

_PHILLY_FORMAT = "%Y-%m-%d %H:%M:%S"

_CITE_PHILLY = (
    "M. Jeon et al., Analysis of Large-Scale Multi-Tenant GPU Clusters for DNN Training "
    "Workloads, USENIX ATC'19; A. Qiao et al., Pollux: Co-adaptive Cluster Scheduling for "
    "Goodput-Optimized Deep Learning, OSDI'21"
)
_CITE_HELIOS = (
    "Q. Hu et al., Characterization and Prediction of Deep Learning Workloads in Large-Scale "
    "GPU Datacenters, SC'21; M. Jeon et al., USENIX ATC'19"
)
_CITE_ITP = (
    "D. Gu et al., ElasticFlow: An Elastic Serverless Training Platform for Distributed Deep "
    "Learning, ASPLOS'23"
)
_CITE_GOOGLE = (
    "C. Reiss, J. Wilkes, J. L. Hellerstein, Google cluster-usage traces: format + schema, "
    "Google Inc., 2011"
)
_SRC_ADAPTDL = "https://github.com/petuum/adaptdl/tree/osdi21-artifact/simulator/traces"
_SRC_HELIOS = "https://github.com/S-Lab-System-Group/HeliosArtifact"
_SRC_ITP = "https://github.com/microsoft/elasticflow-traces (data/raw-traces.tar.gz)"
_SRC_GOOGLE = "https://github.com/google/cluster-data/blob/master/ClusterData2011_2.md"
_SRC_PHILLY = "https://github.com/msr-fiddle/philly-traces"
# Commit-pinned raw URLs whose content has the sizes (and, where checked, the sha256) below.
_RAW_ADAPTDL = (
    "https://raw.githubusercontent.com/petuum/adaptdl/"
    "de25dcc90c350b8ade3a710e437a651a8d2efae6/simulator/traces/philly.csv"
)
_RAW_HELIOS = "https://raw.githubusercontent.com/S-Lab-System-Group/HeliosArtifact/6345d9ff28350018656f307c4aba5f8acebd91a6/"


@dataclass(frozen=True)
class TraceFile:
    """One file of the trace data directory.

    Parameters
    ----------
    name : str
        Short name used by :func:`verify` and :func:`download` (e.g. ``"philly"``).
    path : str
        POSIX path relative to the data directory (e.g. ``"philly/philly.csv"``).
    sha256 : str
        Expected sha256 of the file, lowercase hex.
    rows : int or None
        Number of data rows (header excluded); None for non-tabular files.
    source_url : str
        Where the data comes from (a human-readable provenance address).
    license : str
        License of the data.
    citation : str
        What to cite when the file is used.
    download_url : str or None
        A direct URL serving exactly this file, or None if none is known (then
        :func:`download` needs ``url=``).
    """

    name: str
    path: str
    sha256: str
    rows: int | None
    source_url: str
    license: str
    citation: str
    download_url: str | None = None


def _tf(*args: object, **kwargs: object) -> tuple[str, TraceFile]:
    tf = TraceFile(*args, **kwargs)  # type: ignore[arg-type]
    return tf.name, tf


_ITP_ROWS = (1595, 5778, 3011, 15802, 3629, 2396, 12699, 13047, 11134, 260)
_ITP_SHA = (
    "27d707f576fce5637f9efec43f610da3d335f36e3c6fd4ded2f5bccfce05974a",
    "7a5849e73aff9f9bc33f87c9bacadf8aab2f3a9e7bc5d70956f5cbf40126526c",
    "282d765c5289ab0ba870f494dd2c67893f9d16d726fdc8a51f13b7412515dbf8",
    "247850e4265f35749e98d15e82a67765301e81272334265f1fe60d65787892a9",
    "1553359ddd673a0ffc531ca10e73ba729dbacbce905ce878dbb8499d2dbed0fb",
    "52c0d9247d1de9b19a8bdafc25137daf6fa04f274ad3a2eb6dac51226ac2362e",
    "d4f46f32e2965c2265b2675c070565a86e40bff45733c828c5767bc0b8c1b318",
    "d60c20d0cd05ddf49fddffabbc784ba6177bbc1a762fc5cf8a0bc9056b084db8",
    "da4047d6f09cc41709ff85937c82e31f6a6791c896d22e241ae9e1dc7f82bcfd",
    "139abea485b52090f5950d0f28d82878169df408e36052ec5c7cd04a3f3fcfa7",
)

TRACE_FILES: dict[str, TraceFile] = dict(
    [
        _tf(
            "philly", "philly/philly.csv",
            "ebffb3dd1589bdf4e7bcd74496201c5ded1d557d498ee14f560463f37ec353da", 82247,
            _SRC_ADAPTDL, "Philly data CC-BY-4.0; adaptdl Apache-2.0", _CITE_PHILLY, _RAW_ADAPTDL,
        ),
        _tf(
            "philly_week", "philly/philly_week_2017-10-23.csv",
            "6a7fcaefab6c0b1447fff3b81362a2b3232f9abc0a21fff1ded0396a00d36455", 7748,
            _SRC_ADAPTDL + " (rows submitted 2017-10-23 00:00 to 2017-10-30 00:00, sorted)",
            "Philly data CC-BY-4.0; adaptdl Apache-2.0", _CITE_PHILLY,
        ),
        _tf(
            "philly_vc_nodes", "philly/philly_vc_nodes.csv",
            "a6873abd7d94a09c646961ad7a0f011faf4069dcdf0c1f7717521613fd6156f7", 11,
            _SRC_HELIOS + " (framework/QSSF Service/data/philly_vc.csv)", "MIT", _CITE_HELIOS,
            _RAW_HELIOS + "framework/QSSF%20Service/data/philly_vc.csv",
        ),
        _tf(
            "license_philly_data", "philly/LICENSE-philly-data-CC-BY-4.0.txt",
            "9bbc1ea9fe5c96df01b311a2ac864d5b18fc87b9948bfd14770e4b44db755ee9", None,
            _SRC_PHILLY, "CC-BY-4.0", _CITE_PHILLY,
        ),
        _tf(
            "license_adaptdl", "philly/LICENSE-adaptdl-Apache-2.0.txt",
            "99fb2999f8f4524078370b40b9b421d7eafbd407e25c76f36a49ba3fd9bf56de", None,
            "https://github.com/petuum/adaptdl", "Apache-2.0", _CITE_PHILLY,
        ),
        _tf(
            "license_helios", "philly/LICENSE-HeliosArtifact-MIT.txt",
            "0c12b110a2e3611d5e10829f62a71a48047346c54b5ef65f9e9c0e7ba501b5a5", None,
            _SRC_HELIOS, "MIT", _CITE_HELIOS, _RAW_HELIOS + "LICENSE.txt",
        ),
        _tf(
            "license_itp", "itp/LICENSE-MIT.txt",
            "9906940f61b1f0b533fa7d99baf55178b2808fbe113ea51dfbfad8572ccd5f2b", None,
            _SRC_ITP, "MIT", _CITE_ITP,
        ),
        *(
            _tf(
                f"itp_{c}", f"itp/{c}.csv", sha, rows, _SRC_ITP, "MIT", _CITE_ITP,
            )
            for c, sha, rows in zip(ITP_CLUSTERS, _ITP_SHA, _ITP_ROWS, strict=True)
        ),
        _tf(
            "google_hourly", "google2011/google2011_hourly_submits_all29days.csv",
            "629163e78818939445486960e5a6776d22338506a4578faf7bbf6f359e164b64", 697,
            _SRC_GOOGLE + " (derived from clusterdata-2011-2 job_events)", "CC-BY-4.0",
            _CITE_GOOGLE,
        ),
        _tf(
            "google_jobs_week", "google2011/google2011_week_2011-05-02_jobs.csv.gz",
            "59a1f8939de7d82b033542a7d70e854149fffad92a98e6a6ce9d51ae35355c3c", 150490,
            _SRC_GOOGLE + " (derived from clusterdata-2011-2 job_events)", "CC-BY-4.0",
            _CITE_GOOGLE,
        ),
    ]
)
"""Every file of the trace data directory, by short name, with its embedded sha256."""


class TraceChecksumError(ValueError):
    """A trace file's sha256 differs from the one embedded in :data:`TRACE_FILES`.

    Parameters
    ----------
    path : str or os.PathLike
        The file (or the URL it was fetched from) that failed.
    expected, actual : str
        The embedded and the computed sha256.
    """

    def __init__(self, path: str | os.PathLike[str], expected: str, actual: str) -> None:
        self.path = str(path)
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"sha256 mismatch for {self.path}: expected {expected}, got {actual}. "
            "The file is corrupt, truncated or a different version; fetch it again."
        )


class UnknownTraceError(KeyError, ValueError):
    """An unknown trace name was given; the message lists the valid names."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


# ---------------------------------------------------------------------------- locating files


def _default_data_dir() -> Path:
    # <repo>/dlsched/traces.py -> <repo>/../shared/data/traces
    return Path(__file__).resolve().parents[1].parent / "shared" / "data" / "traces"


def data_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """Find the trace data directory.

    Resolution order: the ``path`` argument; else the environment variable
    ``DLSCHED_DATA_DIR`` (if set and non-empty); else the folder ``shared/data/traces``
    beside the repository (``<repo>/../shared/data/traces``). The first place that is
    *given* is the one used: a wrong argument or a wrong environment variable is an error,
    never silently replaced by a later candidate.

    Parameters
    ----------
    path : str or os.PathLike or None
        Explicit data directory (the folder holding ``philly/``, ``itp/``, ``google2011/``).

    Returns
    -------
    pathlib.Path
        The resolved, existing directory.

    Raises
    ------
    FileNotFoundError
        If the chosen place is not an existing directory; the message names every place
        tried and how to fix it.
    """
    tried: list[str] = []
    if path is not None:
        candidate = Path(path).expanduser()
        if candidate.is_dir():
            return candidate.resolve()
        tried.append(f"data_dir argument: {candidate} (not a directory)")
    else:
        env = os.environ.get(ENV_VAR, "")
        if env:
            candidate = Path(env).expanduser()
            if candidate.is_dir():
                return candidate.resolve()
            tried.append(f"${ENV_VAR}={env} (not a directory)")
        else:
            tried.append(f"${ENV_VAR} (not set)")
            candidate = _default_data_dir()
            if candidate.is_dir():
                return candidate
            tried.append(f"default beside the repository: {candidate} (not a directory)")
    raise FileNotFoundError(
        "trace data directory not found; tried: "
        + "; ".join(tried)
        + f". Fix: set {ENV_VAR} to the folder holding philly/, itp/ and google2011/, or pass"
        " data_dir=/root= to the loader (dlsched.traces.download can fetch files that have"
        " a public URL)."
    )


def _trace_file(name: str) -> TraceFile:
    try:
        return TRACE_FILES[name]
    except (KeyError, TypeError):
        raise UnknownTraceError(
            f"unknown trace name {name!r}; valid names: {', '.join(sorted(TRACE_FILES))}"
        ) from None


def _locate(tf: TraceFile, root: str | os.PathLike[str] | None) -> Path:
    base = data_dir(root)
    path = base / tf.path
    if not path.is_file():
        raise FileNotFoundError(
            f"trace file {tf.name!r} not found at {path} (data directory {base}). Fix: put "
            f"{tf.path} there, or fetch it with dlsched.traces.download({tf.name!r}, {str(base)!r}"
            + (", url=...)" if tf.download_url is None else ")")
            + f"; source: {tf.source_url}"
        )
    return path


# ---------------------------------------------------------------------------- checksums

_VERIFIED: set[tuple[str, int, int, str]] = set()
_VERIFIED_LOCK = threading.Lock()


def _cache_key(path: Path, sha256: str) -> tuple[str, int, int, str]:
    st = path.stat()
    return (str(path.resolve()), st.st_size, st.st_mtime_ns, sha256)


def _sha256_file(path: Path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def verify(name: str, root: str | os.PathLike[str] | None = None) -> Path:
    """Check a trace file's sha256 against the embedded value.

    The file is hashed in a stream. A success is remembered in-process per
    (resolved path, size, mtime), so repeated loads of an unchanged file are cheap.

    Parameters
    ----------
    name : str
        Trace name, a key of :data:`TRACE_FILES` (e.g. ``"philly"``, ``"itp_cluster03"``).
    root : str or os.PathLike or None
        Data directory; resolved with :func:`data_dir`.

    Returns
    -------
    pathlib.Path
        Path of the verified file.

    Raises
    ------
    UnknownTraceError
        If ``name`` is not a known trace (a ``ValueError`` and ``KeyError``).
    FileNotFoundError
        If the data directory or the file is missing.
    TraceChecksumError
        If the checksum differs; the message names the file, expected and actual sha256.
    """
    tf = _trace_file(name)
    path = _locate(tf, root)
    key = _cache_key(path, tf.sha256)
    with _VERIFIED_LOCK:
        if key in _VERIFIED:
            return path
    actual = _sha256_file(path)
    if actual != tf.sha256:
        raise TraceChecksumError(path, tf.sha256, actual)
    with _VERIFIED_LOCK:
        _VERIFIED.add(key)
    return path


def download(
    name: str,
    dest_dir: str | os.PathLike[str],
    url: str | None = None,
    *,
    timeout: float = 60.0,
) -> Path:
    """Fetch a trace file into ``dest_dir`` (in its usual relative layout), checksum-verified.

    The bytes are streamed into a temporary file in the destination folder while being
    hashed; only if the sha256 equals the embedded one is the file moved into place with
    ``os.replace``. On any failure the temporary file is deleted, so no partial or wrong
    file is ever left behind. If the destination already holds a file with the right
    checksum, it is returned without fetching.

    Parameters
    ----------
    name : str
        Trace name, a key of :data:`TRACE_FILES`.
    dest_dir : str or os.PathLike
        Data directory to fill; the file goes to ``dest_dir / TRACE_FILES[name].path``.
    url : str or None
        Where to fetch from (``http``, ``https`` or ``file`` URL). Default: the file's
        ``download_url``; required for files without one (ITP clusters, which ship inside a
        tarball, and the derived Philly week / Google files).
    timeout : float
        Network timeout in seconds.

    Returns
    -------
    pathlib.Path
        Path of the verified file.

    Raises
    ------
    UnknownTraceError
        If ``name`` is not a known trace.
    ValueError
        If no URL is given and none is known, or the URL scheme is not supported.
    TraceChecksumError
        If the fetched bytes have the wrong sha256 (nothing is written).
    OSError
        If fetching or writing fails (``urllib.error.URLError`` is an ``OSError``).
    """
    tf = _trace_file(name)
    src = url if url is not None else tf.download_url
    if src is None:
        raise ValueError(
            f"no direct public URL is known for trace {name!r} ({tf.path}); pass url=. "
            f"Source: {tf.source_url}"
        )
    scheme = urllib.parse.urlsplit(src).scheme.lower()
    if scheme not in {"http", "https", "file"}:
        raise ValueError(f"url {src!r}: scheme {scheme!r} not supported (use http, https or file)")
    dest = Path(dest_dir).expanduser() / tf.path
    if dest.is_file() and _sha256_file(dest) == tf.sha256:
        with _VERIFIED_LOCK:
            _VERIFIED.add(_cache_key(dest, tf.sha256))
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
    try:
        digest = hashlib.sha256()
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(src, timeout=timeout) as resp:
            while chunk := resp.read(1 << 20):
                digest.update(chunk)
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        actual = digest.hexdigest()
        if actual != tf.sha256:
            raise TraceChecksumError(src, tf.sha256, actual)
        os.chmod(tmp_name, 0o644)
        os.replace(tmp_name, dest)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    with _VERIFIED_LOCK:
        _VERIFIED.add(_cache_key(dest, tf.sha256))
    return dest


# ---------------------------------------------------------------------------- parsing helpers


def _path_for(name: str, root: str | os.PathLike[str] | None, check: bool) -> Path:
    return verify(name, root) if check else _locate(_trace_file(name), root)


def _read_csv(path: Path, required: Sequence[str]) -> pd.DataFrame:
    """Read a CSV with every column as text (so ids like ``6214e9`` stay strings)."""
    try:
        raw = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""])
    except pd.errors.EmptyDataError:
        raise ValueError(f"{path}: file is empty; expected columns {list(required)}") from None
    raw.columns = [str(c).strip() for c in raw.columns]
    missing = [c for c in required if c not in raw.columns]
    if missing:
        raise missing_columns_error(path, missing, raw.columns)
    return raw


def missing_columns_error(source: object, missing: Sequence[str], found: Sequence[str]) -> ValueError:
    """The error for a trace table without required columns, naming the source and the columns."""
    return ValueError(
        f"{source}: missing required column {missing[0]!r}"
        + (f" (all missing: {list(missing)})" if len(missing) > 1 else "")
        + f"; found columns {list(found)}"
    )


def _duplicate_rows(columns: Mapping[str, pd.Series]) -> np.ndarray:
    """Mask of rows whose values in ``columns`` all equal an earlier row's (the first one is kept).

    ``columns`` are the *parsed* columns (timestamps, numbers, text). Comparing parsed values
    instead of the raw text treats ``66`` and ``66.0`` as equal, and needs far less memory than
    ``DataFrame.duplicated`` on the text (about 40 MB less peak on the full Philly file). Text
    columns are compared through :func:`pandas.factorize` codes.
    """
    frame = pd.DataFrame(
        {
            name: (col if pd.api.types.is_numeric_dtype(col) or pd.api.types.is_datetime64_any_dtype(col)
                   else pd.factorize(col, use_na_sentinel=False)[0])
            for name, col in columns.items()
        }
    )
    return frame.duplicated(keep="first").to_numpy()


def _bad_value(path: Path, col: str, raw: pd.Series, bad: np.ndarray, what: str) -> ValueError:
    row = int(np.flatnonzero(bad)[0])
    value = raw.iloc[row]
    kind = "missing value" if pd.isna(value) else f"{what} {value!r}"
    return ValueError(
        f"{path}: column {col!r} has a {kind} at row {row} (line {row + 2}); "
        f"{int(bad.sum())} bad value(s) in this column"
    )


def _numeric(
    raw: pd.DataFrame, col: str, path: Path, *, integer: bool = False, allow_missing: bool = False
) -> pd.Series:
    text = raw[col]
    vals = pd.to_numeric(text, errors="coerce")
    missing = text.isna().to_numpy()
    as_float = vals.to_numpy(dtype=float, na_value=np.nan)
    bad = ~np.isfinite(as_float)
    if allow_missing:
        bad &= ~missing
    if bad.any():
        raise _bad_value(path, col, text, bad, "non-numeric or non-finite value")
    if integer:
        if vals.dtype.kind != "i":
            frac = np.isfinite(as_float) & (as_float != np.round(as_float))
            if frac.any():
                raise _bad_value(path, col, text, frac, "non-integer value")
        return vals.astype("int64")
    return vals.astype("float64")


def _text(raw: pd.DataFrame, col: str, path: Path) -> pd.Series:
    text = raw[col]
    bad = text.isna().to_numpy()
    if bad.any():
        raise _bad_value(path, col, text, bad, "missing value")
    return text.str.strip().astype("str")


def _require(bad: np.ndarray, path: Path, col: str, raw: pd.Series, what: str) -> None:
    if bad.any():
        raise _bad_value(path, col, raw, bad, what)


def _tidy_jobs(
    parts: list[pd.DataFrame], *, trace: str | list[str], sources: list[str],
    t0_of: Callable[[pd.DataFrame], object], rows_raw: int, dropped_duplicates: int,
) -> pd.DataFrame:
    """Drop invalid rows, sort, renumber.

    ``parts`` hold ``_t`` (float seconds on the file's axis), ``_file``, ``_row`` and the job
    columns; ``t0_of(kept_sorted)`` gives ``attrs["t0"]``.
    """
    work = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    invalid = (work["duration"] <= 0) | (work["num_gpus"] < 1)
    work = work.loc[~invalid]
    if work.empty:
        raise ValueError(f"{', '.join(sources)}: no valid jobs (all rows duplicate or invalid)")
    work = work.sort_values(["_t", "_file", "_row"], kind="stable")
    t = work["_t"].to_numpy(dtype=float)
    out = pd.DataFrame(
        {
            "job_id": np.arange(len(work), dtype=np.int64),
            "submit_time": t - t[0],
            "duration": work["duration"].to_numpy(dtype=float),
            "num_gpus": work["num_gpus"].to_numpy(dtype=np.int64),
            "gpu_time": work["gpu_time"].to_numpy(dtype=float),
            "cluster": pd.array(work["cluster"].to_numpy(dtype=object), dtype="str"),
        }
    )
    out.attrs = {
        "trace": trace,
        "sources": sources,
        "rows_raw": int(rows_raw),
        "dropped_duplicates": int(dropped_duplicates),
        "dropped_invalid": int(invalid.sum()),
        "t0": t0_of(work),
        "t0_offset_s": 0.0,
    }
    return out


# ---------------------------------------------------------------------------- Philly


def load_philly(
    root: str | os.PathLike[str] | None = None, *, week: bool = False, verify: bool = True
) -> pd.DataFrame:
    """Load the Microsoft Philly job trace (Pollux's ``philly.csv``) as a normalized job frame.

    The file's columns ``timestamp`` (submit wall-clock time ``YYYY-MM-DD HH:MM:SS``),
    ``duration`` (s, summed over attempts), ``num_gpus``, ``gpu_time`` (GPU-seconds) and
    ``cluster`` (virtual-cluster id) become the columns listed in the module docstring.
    Duplicate rows (equal in every parsed column) are dropped (first kept; the full file has 65),
    then rows with
    ``duration <= 0`` or ``num_gpus < 1``; the counts go to ``df.attrs``. Jobs are sorted by
    submit time, ties kept in file order, and numbered ``job_id`` 0..n-1 in that order.
    ``attrs["t0"]`` is the wall-clock time (string) of ``submit_time == 0``.

    Parameters
    ----------
    root : str or os.PathLike or None
        Data directory; resolved with :func:`data_dir`.
    week : bool
        If True, load ``philly_week_2017-10-23.csv`` (the jobs submitted in the week from
        Mon 2017-10-23 00:00) instead of the full Sep-Dec 2017 file.
    verify : bool
        Check the file's sha256 first (cached; see :func:`verify`).

    Returns
    -------
    pandas.DataFrame
        Columns ``job_id, submit_time, duration, num_gpus, gpu_time, cluster``.

    Raises
    ------
    FileNotFoundError
        If the data directory or file is missing.
    TraceChecksumError
        If ``verify`` and the checksum differs.
    ValueError
        On a missing column or a missing/malformed value (file, column, row and value named).
    """
    name = "philly_week" if week else "philly"
    path = _path_for(name, root, verify)
    cols = ("timestamp", "duration", "num_gpus", "gpu_time", "cluster")
    raw = _read_csv(path, cols)
    ts = pd.to_datetime(raw["timestamp"], format=_PHILLY_FORMAT, errors="coerce")
    _require(ts.isna().to_numpy(), path, "timestamp", raw["timestamp"],
             "timestamp not in 'YYYY-MM-DD HH:MM:SS' form:")
    work = pd.DataFrame(
        {
            "_ts": ts,
            "_file": 0,
            "_row": np.arange(len(raw)),
            "duration": _numeric(raw, "duration", path),
            "num_gpus": _numeric(raw, "num_gpus", path, integer=True),
            "gpu_time": _numeric(raw, "gpu_time", path),
            "cluster": _text(raw, "cluster", path),
        }
    )
    dup = _duplicate_rows({c: work[c] for c in ("_ts", "duration", "num_gpus", "gpu_time", "cluster")})
    work = work.loc[~dup]
    work["_t"] = (work["_ts"] - work["_ts"].min()).dt.total_seconds()
    return _tidy_jobs(
        [work], trace=name, sources=[str(path)], rows_raw=len(raw),
        dropped_duplicates=int(dup.sum()),
        t0_of=lambda kept: kept["_ts"].iloc[0].strftime(_PHILLY_FORMAT),
    )


def load_philly_vc_nodes(
    root: str | os.PathLike[str] | None = None, *, verify: bool = True
) -> pd.DataFrame:
    """Load the number of nodes of each Philly virtual cluster (from Helios, SC'21).

    Parameters
    ----------
    root : str or os.PathLike or None
        Data directory; resolved with :func:`data_dir`.
    verify : bool
        Check the file's sha256 first.

    Returns
    -------
    pandas.DataFrame
        Columns ``vc`` (str, the id used in :func:`load_philly`'s ``cluster``) and
        ``num_nodes`` (int64, >= 1); the file's column ``node num`` is renamed.

    Raises
    ------
    FileNotFoundError, TraceChecksumError, ValueError
        As for :func:`load_philly`; also ``ValueError`` for a node count < 1.
    """
    path = _path_for("philly_vc_nodes", root, verify)
    raw = _read_csv(path, ("vc", "node num"))
    nodes = _numeric(raw, "node num", path, integer=True)
    _require((nodes < 1).to_numpy(), path, "node num", raw["node num"], "node count < 1:")
    out = pd.DataFrame({"vc": _text(raw, "vc", path), "num_nodes": nodes})
    out.attrs = {"trace": "philly_vc_nodes", "sources": [str(path)]}
    return out


# ---------------------------------------------------------------------------- ITP


def _itp_names(cluster: int | str | None) -> list[str]:
    if cluster is None:
        return list(ITP_CLUSTERS)
    valid = f"valid: 1..10 or {ITP_CLUSTERS[0]!r}..{ITP_CLUSTERS[-1]!r}, or None for all"
    if isinstance(cluster, (bool, np.bool_)):
        raise ValueError(f"unknown ITP cluster {cluster!r}; {valid}")
    if isinstance(cluster, (int, np.integer)):
        if 1 <= int(cluster) <= len(ITP_CLUSTERS):
            return [ITP_CLUSTERS[int(cluster) - 1]]
    elif isinstance(cluster, str) and cluster in ITP_CLUSTERS:
        return [cluster]
    raise ValueError(f"unknown ITP cluster {cluster!r}; {valid}")


def load_itp(
    cluster: int | str | None = None,
    root: str | os.PathLike[str] | None = None,
    *,
    verify: bool = True,
) -> pd.DataFrame:
    """Load Microsoft ITP GPU-cluster jobs (ElasticFlow, ASPLOS'23) as a normalized job frame.

    Each file has ``job_id`` (a uuid, not kept), ``submission_time`` (s since the trace
    start), ``duration`` (s) and ``num_gpu``. ``gpu_time`` is ``duration * num_gpus``;
    ``cluster`` is the cluster name (``"cluster01"``..``"cluster10"``). With all clusters the
    time origin is shared (the earliest submission of any cluster), so their relative timing
    is preserved; ties in submit time are ordered by cluster, then file row.
    ``attrs["t0"]`` is the raw ``submission_time`` (int seconds) of ``submit_time == 0``.

    Parameters
    ----------
    cluster : int or str or None
        1..10 or ``"cluster01"``..``"cluster10"``; None loads all ten.
    root : str or os.PathLike or None
        Data directory; resolved with :func:`data_dir`.
    verify : bool
        Check each file's sha256 first.

    Returns
    -------
    pandas.DataFrame
        Columns ``job_id, submit_time, duration, num_gpus, gpu_time, cluster``.

    Raises
    ------
    ValueError
        On an unknown ``cluster`` (the value and the valid ones are named), a missing column
        or a missing/malformed value.
    FileNotFoundError, TraceChecksumError
        As for :func:`load_philly`.
    """
    names = _itp_names(cluster)
    cols = ("job_id", "submission_time", "duration", "num_gpu")
    parts: list[pd.DataFrame] = []
    sources: list[str] = []
    rows_raw = dropped = 0
    for i, cname in enumerate(names):
        path = _path_for(f"itp_{cname}", root, verify)
        raw = _read_csv(path, cols)
        ids = _text(raw, "job_id", path)  # validates presence of ids
        sub = _numeric(raw, "submission_time", path)
        duration = _numeric(raw, "duration", path)
        gpus = _numeric(raw, "num_gpu", path, integer=True)
        part = pd.DataFrame(
            {
                "_t": sub,
                "_file": i,
                "_row": np.arange(len(raw)),
                "duration": duration,
                "num_gpus": gpus,
                "gpu_time": duration * gpus,
                "cluster": cname,
            }
        )
        dup = _duplicate_rows({"job_id": ids, "_t": sub, "duration": duration, "num_gpus": gpus})
        parts.append(part.loc[~dup])
        sources.append(str(path))
        rows_raw += len(raw)
        dropped += int(dup.sum())

    def _t0(kept: pd.DataFrame) -> int | float:
        first = float(kept["_t"].iloc[0])
        return int(first) if first.is_integer() else first

    return _tidy_jobs(
        parts, trace=[f"itp_{c}" for c in names] if cluster is None else f"itp_{names[0]}",
        sources=sources, rows_raw=rows_raw, dropped_duplicates=dropped, t0_of=_t0,
    )


# ---------------------------------------------------------------------------- Google 2011


def load_google_hourly(
    root: str | os.PathLike[str] | None = None, *, verify: bool = True
) -> pd.DataFrame:
    """Load job submissions per hour of the Google 2011 cluster trace (all 29 days).

    Hour ``hour_index`` covers trace timestamps ``[hour_start_s, hour_start_s + 3600)``
    with ``hour_start_s == 3600 * hour_index``, on the trace's own time base (see
    :func:`google_hour_of_day`: timestamp 0 is 18:50 EDT, Sun 2011-05-01; the observation
    period is ``[600, 600 + 29 days)``, so the first and last hours are only partly
    observed).

    Parameters
    ----------
    root : str or os.PathLike or None
        Data directory; resolved with :func:`data_dir`.
    verify : bool
        Check the file's sha256 first.

    Returns
    -------
    pandas.DataFrame
        Columns ``hour_index``, ``hour_start_s``, ``n_submits`` (all int64), sorted.

    Raises
    ------
    ValueError
        On a missing column, a malformed value, a negative count, hours not strictly
        increasing, or ``hour_start_s != 3600 * hour_index``.
    FileNotFoundError, TraceChecksumError
        As for :func:`load_philly`.
    """
    path = _path_for("google_hourly", root, verify)
    raw = _read_csv(path, ("hour_index", "hour_start_s", "n_submits"))
    hour = _numeric(raw, "hour_index", path, integer=True)
    start = _numeric(raw, "hour_start_s", path, integer=True)
    n = _numeric(raw, "n_submits", path, integer=True)
    _require((n < 0).to_numpy(), path, "n_submits", raw["n_submits"], "negative count")
    _require(np.r_[False, np.diff(hour.to_numpy()) <= 0], path, "hour_index", raw["hour_index"],
             "hour index not strictly increasing:")
    _require((start != 3600 * hour).to_numpy(), path, "hour_start_s", raw["hour_start_s"],
             "value != 3600 * hour_index:")
    out = pd.DataFrame({"hour_index": hour, "hour_start_s": start, "n_submits": n})
    out.attrs = {"trace": "google_hourly", "sources": [str(path)]}
    return out


def google_hour_of_day(t_s: float | np.ndarray | pd.Series) -> np.ndarray:
    """Local hour of day (US Eastern, EDT) of Google 2011 trace timestamps.

    The trace's time origin is not midnight: per the clusterdata-2011-2 documentation the
    observation period starts at 19:00 EDT on Sunday 2011-05-01, at trace timestamp 600 s,
    and the cell is in that time zone. So timestamp 0 is 18:50 EDT and
    ``hour = floor((t_s + 67800) / 3600) mod 24`` (67800 s = 18 h 50 min,
    :data:`GOOGLE_ORIGIN_LOCAL_S`). The whole trace lies in May, all in daylight time.
    Consistency check in the data: the week job table, documented to start Monday
    2011-05-02 00:00, starts at timestamp 18606 s, just after 18600 s = local midnight.

    Parameters
    ----------
    t_s : float or array-like
        Trace timestamps in seconds.

    Returns
    -------
    numpy.ndarray
        Integer hours 0..23 (same shape as ``t_s``).
    """
    t = np.asarray(t_s, dtype=float)
    return (np.floor((t + GOOGLE_ORIGIN_LOCAL_S) / 3600.0).astype(np.int64)) % 24


def google_hour_of_day_profile(
    root: str | os.PathLike[str] | None = None, *, verify: bool = True
) -> np.ndarray:
    """Mean Google 2011 job submissions per local hour of day, normalized to mean 1.

    Only fully observed hourly bins are used (``hour_start_s >= 600`` and
    ``hour_start_s + 3600 <= 600 + 29 days``; this drops the first and the last bin). Since
    the trace origin is 18:50 EDT, bin ``[s, s + 3600)`` spans two local clock hours; it is
    assigned to the one holding its midpoint (50 of its 60 minutes),
    ``google_hour_of_day(hour_start_s + 1800)``, which for this file is
    ``(hour_index + 19) mod 24``. Entry ``h`` of the result is the mean count over days of
    the bins assigned to local hour ``h`` (``h = 0`` is 00:00-01:00 EDT), divided by the
    mean of the 24 means. Use it as a relative arrival-rate multiplier.

    Parameters
    ----------
    root : str or os.PathLike or None
        Data directory; resolved with :func:`data_dir`.
    verify : bool
        Check the file's sha256 first.

    Returns
    -------
    numpy.ndarray
        Shape (24,), float64, mean 1.

    Raises
    ------
    ValueError
        If some hour of day has no fully observed bin, or all counts are zero.
    FileNotFoundError, TraceChecksumError
        As for :func:`load_google_hourly`.
    """
    hourly = load_google_hourly(root, verify=verify)
    start = hourly["hour_start_s"].to_numpy()
    full = (start >= GOOGLE_TRACE_START_S) & (start + 3600 <= GOOGLE_TRACE_END_S)
    counts = hourly["n_submits"].to_numpy(dtype=float)[full]
    hod = google_hour_of_day(start[full] + 1800)
    total = np.bincount(hod, weights=counts, minlength=24)
    days = np.bincount(hod, minlength=24)
    source = hourly.attrs["sources"][0]
    if (days == 0).any():
        raise ValueError(
            f"{source}: no fully observed hourly bin for local hour(s) "
            f"{np.flatnonzero(days == 0).tolist()}"
        )
    mean = total / days
    if mean.sum() <= 0:
        raise ValueError(f"{source}: all hourly submission counts are zero")
    return mean / mean.mean()


def load_google_jobs(
    root: str | os.PathLike[str] | None = None, *, verify: bool = True
) -> pd.DataFrame:
    """Load the Google 2011 jobs first submitted in the week Mon 2011-05-02 .. Mon 2011-05-09.

    Columns are those of the file, typed: ``job_id`` (int64, Google's id),
    ``submit_time_s`` (int64, trace timestamp in seconds, same time base as
    :func:`load_google_hourly`; the week is ``[18600, 623400)``), ``wait_s`` (int64, s from
    submission to scheduling), ``runtime_s`` (float64, s; NaN when the job has no end event
    in the trace), ``end_event`` (str: FINISH, KILL, FAIL, EVICT or LOST; missing when
    ``runtime_s`` is), ``scheduling_class`` (int64, 0..3) and ``user_idx`` (int64, an
    anonymized user index). Rows are sorted by ``submit_time_s`` (stable).

    Parameters
    ----------
    root : str or os.PathLike or None
        Data directory; resolved with :func:`data_dir`.
    verify : bool
        Check the file's sha256 first.

    Returns
    -------
    pandas.DataFrame
        One row per job.

    Raises
    ------
    ValueError
        On a missing column, a malformed value or an unknown ``end_event``.
    FileNotFoundError, TraceChecksumError
        As for :func:`load_philly`.
    """
    path = _path_for("google_jobs_week", root, verify)
    cols = ("job_id", "submit_time_s", "wait_s", "runtime_s", "end_event", "scheduling_class",
            "user_idx")
    raw = _read_csv(path, cols)
    end = raw["end_event"].str.strip()
    _require((end.notna() & ~end.isin(GOOGLE_END_EVENTS)).to_numpy(), path, "end_event", end,
             f"value outside {sorted(GOOGLE_END_EVENTS)}:")
    out = pd.DataFrame(
        {
            "job_id": _numeric(raw, "job_id", path, integer=True),
            "submit_time_s": _numeric(raw, "submit_time_s", path, integer=True),
            "wait_s": _numeric(raw, "wait_s", path, integer=True),
            "runtime_s": _numeric(raw, "runtime_s", path, allow_missing=True),
            "end_event": end.astype("str"),
            "scheduling_class": _numeric(raw, "scheduling_class", path, integer=True),
            "user_idx": _numeric(raw, "user_idx", path, integer=True),
        }
    )
    out = out.sort_values("submit_time_s", kind="stable", ignore_index=True)
    out.attrs = {"trace": "google_jobs_week", "sources": [str(path)]}
    return out


# ---------------------------------------------------------------------------- sampling


def sample_jobs(
    df: pd.DataFrame, n: int, rng: int | np.random.Generator | np.random.SeedSequence
) -> pd.DataFrame:
    """Sample ``n`` jobs from a job frame, as a new trace starting at time 0.

    Rows are drawn without replacement (with replacement if ``n > len(df)``), sorted by
    ``submit_time`` (ties in the order of ``df``), ``job_id`` is renumbered 0..n-1 and
    ``submit_time`` is shifted so the first sampled job arrives at 0. ``attrs`` are copied,
    with ``t0_offset_s`` increased by the shift and ``sampled_from_rows`` /
    ``sampled_with_replacement`` added.

    Parameters
    ----------
    df : pandas.DataFrame
        A job frame with at least a numeric ``submit_time`` column (e.g. from
        :func:`load_philly`).
    n : int
        Number of jobs, >= 0.
    rng : int or numpy.random.Generator or numpy.random.SeedSequence
        Seed or generator, passed to ``numpy.random.default_rng`` (None is refused, so
        results are always reproducible).

    Returns
    -------
    pandas.DataFrame
        ``n`` rows with the columns of ``df``.

    Raises
    ------
    TypeError
        If ``df`` is not a DataFrame, ``n`` is not an integer or ``rng`` is None.
    ValueError
        If ``n < 0``, ``df`` lacks ``submit_time``, or ``df`` is empty while ``n > 0``.
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame, got {type(df).__name__}")
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"n must be an int, got {n!r}")
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if rng is None:
        raise TypeError("rng must be a seed or a numpy Generator, got None (not reproducible)")
    if "submit_time" not in df.columns:
        raise ValueError(f"df has no 'submit_time' column; columns: {list(df.columns)}")
    if len(df) == 0 and n > 0:
        raise ValueError(f"cannot sample n={n} jobs from an empty frame")
    gen = np.random.default_rng(rng)
    replace = bool(n > len(df))
    idx = gen.choice(len(df), size=int(n), replace=replace)
    t = df["submit_time"].to_numpy(dtype=float)[idx]
    order = np.lexsort((idx, t))  # by submit_time, then position in df
    out = df.iloc[idx[order]].reset_index(drop=True)
    shift = float(t[order][0]) if n > 0 else 0.0
    out["submit_time"] = out["submit_time"].astype(float) - shift
    job_ids = np.arange(int(n), dtype=np.int64)
    if "job_id" in out.columns:
        out["job_id"] = job_ids
    else:
        out.insert(0, "job_id", job_ids)
    attrs = dict(df.attrs)
    attrs["t0_offset_s"] = float(attrs.get("t0_offset_s", 0.0)) + shift
    attrs["sampled_from_rows"] = int(len(df))
    attrs["sampled_with_replacement"] = replace
    out.attrs = attrs
    return out

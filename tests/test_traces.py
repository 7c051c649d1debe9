"""Tests for dlsched.traces: checksums, data-directory resolution, loaders, sampling, errors.

Tests marked by the ``real_root`` fixture read the public traces from the data directory
(``DLSCHED_DATA_DIR`` or ``<repo>/../shared/data/traces``) and are skipped when it is absent;
all other tests build small CSVs in ``tmp_path`` with the same relative layout.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dlsched import traces
from dlsched.traces import (
    ITP_CLUSTERS,
    JOB_COLUMNS,
    TRACE_FILES,
    TraceChecksumError,
    UnknownTraceError,
    data_dir,
    download,
    google_hour_of_day,
    google_hour_of_day_profile,
    load_google_hourly,
    load_google_jobs,
    load_itp,
    load_philly,
    load_philly_vc_nodes,
    sample_jobs,
    verify,
)

JOB_DTYPE_KINDS = {
    "job_id": "i",
    "submit_time": "f",
    "duration": "f",
    "num_gpus": "i",
    "gpu_time": "f",
}


# ---------------------------------------------------------------------------- fixtures


def _find_real_root() -> Path | None:
    try:
        root = data_dir()
    except FileNotFoundError:
        return None
    return root if (root / "MANIFEST.sha256").is_file() else None


_REAL_ROOT = _find_real_root()


@pytest.fixture(scope="module")
def real_root() -> Path:
    """The real trace directory; skips the test if it is not available."""
    if _REAL_ROOT is None:
        pytest.skip("real traces not found (set DLSCHED_DATA_DIR or provide ../shared/data/traces)")
    return _REAL_ROOT


@pytest.fixture(scope="module")
def philly(real_root: Path) -> pd.DataFrame:
    return load_philly(real_root)


@pytest.fixture(scope="module")
def itp_all(real_root: Path) -> pd.DataFrame:
    return load_itp(None, real_root)


def _write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


PHILLY_HEADER = "timestamp,duration,num_gpus,gpu_time,cluster\n"


def _assert_job_frame(df: pd.DataFrame) -> None:
    assert tuple(df.columns) == JOB_COLUMNS
    for col, kind in JOB_DTYPE_KINDS.items():
        assert df[col].dtype.kind == kind, (col, df[col].dtype)
    assert df["job_id"].dtype == np.int64 and df["num_gpus"].dtype == np.int64
    assert pd.api.types.is_string_dtype(df["cluster"])
    assert np.array_equal(df["job_id"].to_numpy(), np.arange(len(df)))
    t = df["submit_time"].to_numpy()
    assert t[0] == 0.0 and np.all(np.diff(t) >= 0)
    assert (df["duration"] > 0).all() and (df["num_gpus"] >= 1).all()
    assert df.notna().all().all()


# ---------------------------------------------------------------------------- table + manifest


def test_trace_table_is_consistent() -> None:
    assert len({tf.path for tf in TRACE_FILES.values()}) == len(TRACE_FILES)
    for name, tf in TRACE_FILES.items():
        assert tf.name == name
        assert len(tf.sha256) == 64 and int(tf.sha256, 16) >= 0
        assert tf.license and tf.citation and tf.source_url
        assert not Path(tf.path).is_absolute() and ".." not in Path(tf.path).parts
    assert sum(TRACE_FILES[f"itp_{c}"].rows for c in ITP_CLUSTERS) == 69351
    with pytest.raises(AttributeError):
        TRACE_FILES["philly"].sha256 = "0" * 64  # frozen


def test_embedded_checksums_equal_manifest(real_root: Path) -> None:
    manifest: dict[str, str] = {}
    for line in (real_root / "MANIFEST.sha256").read_text().splitlines():
        if line.strip():
            sha, rel = line.split(maxsplit=1)
            manifest[rel.removeprefix("./")] = sha
    assert manifest == {tf.path: tf.sha256 for tf in TRACE_FILES.values()}


def test_every_real_file_verifies(real_root: Path) -> None:
    for name, tf in TRACE_FILES.items():
        # verify() resolves the data directory: compare with the resolved one (like with like)
        assert verify(name, real_root) == data_dir(real_root) / tf.path
        assert verify(name, real_root).samefile(real_root / tf.path)


def test_a_linked_data_directory_verifies(real_root: Path, tmp_path: Path) -> None:
    """A user's data directory may be a symbolic link to the real one (nothing is copied)."""
    link = tmp_path / "traces_link"
    link.symlink_to(real_root, target_is_directory=True)
    for name, tf in TRACE_FILES.items():
        got = verify(name, link)
        assert got == data_dir(link) / tf.path
        assert got.samefile(link / tf.path) and got.samefile(real_root / tf.path)


def test_real_row_counts_match_table(real_root: Path) -> None:
    for tf in TRACE_FILES.values():
        if tf.rows is not None:
            assert len(pd.read_csv(real_root / tf.path, dtype=str)) == tf.rows, tf.path


# ---------------------------------------------------------------------------- data_dir


def test_data_dir_explicit_argument_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = tmp_path / "env"
    other.mkdir()
    monkeypatch.setenv(traces.ENV_VAR, str(other))
    assert data_dir(tmp_path) == tmp_path.resolve()
    assert data_dir() == other.resolve()


def test_data_dir_missing_argument_names_place_and_fix(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    with pytest.raises(FileNotFoundError) as err:
        data_dir(missing)
    msg = str(err.value)
    assert str(missing) in msg and traces.ENV_VAR in msg and "data_dir=" in msg


def test_data_dir_bad_env_var_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(traces.ENV_VAR, str(tmp_path / "gone"))
    with pytest.raises(FileNotFoundError, match="gone"):
        data_dir()


def test_data_dir_default_names_every_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(traces.ENV_VAR, raising=False)
    fake_default = tmp_path / "shared" / "data" / "traces"
    monkeypatch.setattr(traces, "_default_data_dir", lambda: fake_default)
    with pytest.raises(FileNotFoundError) as err:
        data_dir()
    msg = str(err.value)
    assert f"{traces.ENV_VAR} (not set)" in msg and str(fake_default) in msg
    fake_default.mkdir(parents=True)
    assert data_dir() == fake_default


def test_default_data_dir_is_beside_the_repository(repo_root: Path) -> None:
    assert traces._default_data_dir() == repo_root.parent / "shared" / "data" / "traces"


def test_missing_file_in_existing_dir_names_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as err:
        load_philly(tmp_path, verify=False)
    assert str(tmp_path / "philly" / "philly.csv") in str(err.value)
    assert "download" in str(err.value)


# ---------------------------------------------------------------------------- Philly


def test_load_philly_real(philly: pd.DataFrame) -> None:
    _assert_job_frame(philly)
    attrs = philly.attrs
    assert attrs["rows_raw"] == 82247
    assert attrs["dropped_duplicates"] == 65
    assert len(philly) == 82247 - 65 - attrs["dropped_invalid"]
    assert attrs["t0"] == "2017-09-04 10:30:41" and attrs["t0_offset_s"] == 0.0
    assert np.allclose(philly["gpu_time"], philly["duration"] * philly["num_gpus"])
    assert set(philly["cluster"]) >= {"6214e9", "11cb48", "0e4a51"}


def test_load_philly_week_real_is_a_window_of_the_full_trace(
    real_root: Path, philly: pd.DataFrame
) -> None:
    week = load_philly(real_root, week=True)
    _assert_job_frame(week)
    a = week.attrs
    assert a["rows_raw"] == 7748
    assert len(week) == 7748 - a["dropped_duplicates"] - a["dropped_invalid"]
    start = (pd.Timestamp("2017-10-23") - pd.Timestamp(philly.attrs["t0"])).total_seconds()
    window = philly[(philly.submit_time >= start) & (philly.submit_time < start + 7 * 86400)]
    cols = ["duration", "num_gpus", "cluster"]
    key = lambda df: sorted(map(tuple, df[cols].astype(str).to_numpy()))  # noqa: E731
    assert len(window) == len(week)
    assert key(window) == key(week)
    offset = (pd.Timestamp(a["t0"]) - pd.Timestamp(philly.attrs["t0"])).total_seconds()
    assert np.allclose(window["submit_time"].to_numpy() - offset, week["submit_time"].to_numpy())


def test_philly_duplicates_invalid_and_stable_order(tmp_path: Path) -> None:
    rows = [
        "2017-10-01 00:00:10,100.0,1,100.0,aaa",  # 0
        "2017-10-01 00:00:05,50.0,2,100.0,6214e9",  # 1  earliest
        "2017-10-01 00:00:10,7.0,4,28.0,0e4a51",  # 2  tie with row 0, later in file
        "2017-10-01 00:00:10,100.0,1,100.0,aaa",  # 3  exact duplicate of row 0
        "2017-10-01 00:00:20,0.0,1,0.0,aaa",  # 4  non-positive duration
        "2017-10-01 00:00:30,10.0,0,0.0,aaa",  # 5  zero GPUs
        "2017-10-01 00:00:40,10.0,1,10.0,aaa",  # 6
    ]
    _write(tmp_path, "philly/philly.csv", PHILLY_HEADER + "\n".join(rows) + "\n")
    df = load_philly(tmp_path, verify=False)
    _assert_job_frame(df)
    assert df.attrs["rows_raw"] == 7
    assert df.attrs["dropped_duplicates"] == 1 and df.attrs["dropped_invalid"] == 2
    assert df.attrs["t0"] == "2017-10-01 00:00:05"
    assert df["submit_time"].tolist() == [0.0, 5.0, 5.0, 35.0]
    assert df["duration"].tolist() == [50.0, 100.0, 7.0, 10.0]  # tie: file order
    assert df["cluster"].tolist() == ["6214e9", "aaa", "0e4a51", "aaa"]  # ids stay strings


def test_philly_missing_column_names_file_and_column(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "philly/philly.csv",
        "timestamp,duration,num_gpus,cluster\n2017-10-01 00:00:00,1,1,a\n",
    )
    with pytest.raises(ValueError, match="gpu_time") as err:
        load_philly(tmp_path, verify=False)
    assert str(path) in str(err.value)


@pytest.mark.parametrize(
    ("bad_row", "column", "shown"),
    [
        ("2017-10-01 00:00:09,,1,1.0,a", "duration", "missing value"),
        ("2017-10-01 00:00:09,abc,1,1.0,a", "duration", "'abc'"),
        ("2017-10-01 00:00:09,5.0,1.5,7.5,a", "num_gpus", "'1.5'"),
        ("2017-10-01 00:00:09,5.0,1,inf,a", "gpu_time", "'inf'"),
        ("yesterday,5.0,1,5.0,a", "timestamp", "'yesterday'"),
        ("2017-10-01 00:00:09,5.0,1,5.0,", "cluster", "missing value"),
    ],
)
def test_philly_bad_value_names_file_column_row(
    tmp_path: Path, bad_row: str, column: str, shown: str
) -> None:
    text = PHILLY_HEADER + "2017-10-01 00:00:00,1.0,1,1.0,a\n" + bad_row + "\n"
    path = _write(tmp_path, "philly/philly.csv", text)
    with pytest.raises(ValueError) as err:
        load_philly(tmp_path, verify=False)
    msg = str(err.value)
    assert str(path) in msg and repr(column) in msg and shown in msg
    assert "row 1 (line 3)" in msg


def test_philly_vc_nodes_real(real_root: Path) -> None:
    vc = load_philly_vc_nodes(real_root)
    assert list(vc.columns) == ["vc", "num_nodes"] and len(vc) == 11
    assert pd.api.types.is_string_dtype(vc["vc"]) and vc["num_nodes"].dtype == np.int64
    assert {"6214e9", "0e4a51", "103959"} <= set(vc["vc"])  # not parsed as numbers
    assert (vc["num_nodes"] >= 1).all()


# ---------------------------------------------------------------------------- ITP


def test_load_itp_all_real(itp_all: pd.DataFrame) -> None:
    _assert_job_frame(itp_all)
    assert itp_all.attrs["rows_raw"] == 69351
    assert (
        len(itp_all)
        == 69351 - itp_all.attrs["dropped_duplicates"] - itp_all.attrs["dropped_invalid"]
    )
    assert set(itp_all["cluster"]) == set(ITP_CLUSTERS)
    assert np.allclose(itp_all["gpu_time"], itp_all["duration"] * itp_all["num_gpus"])


def test_load_itp_one_cluster_real(real_root: Path, itp_all: pd.DataFrame) -> None:
    by_int = load_itp(3, real_root)
    by_name = load_itp("cluster03", real_root)
    pd.testing.assert_frame_equal(by_int, by_name)
    _assert_job_frame(by_int)
    assert by_int.attrs["rows_raw"] == TRACE_FILES["itp_cluster03"].rows
    assert set(by_int["cluster"]) == {"cluster03"}
    # same jobs as in the combined frame, whose time origin is shared by all clusters
    part = itp_all[itp_all["cluster"] == "cluster03"]
    assert len(part) == len(by_int)
    shift = by_int.attrs["t0"] - itp_all.attrs["t0"]
    assert np.allclose(part["submit_time"].to_numpy() - shift, by_int["submit_time"].to_numpy())


def _itp_dir(root: Path, body: dict[str, str] | None = None) -> None:
    for i, name in enumerate(ITP_CLUSTERS):
        text = (body or {}).get(name)
        if text is None:
            text = (
                f"job_id,submission_time,duration,num_gpu\n"
                f"u{i}a,{100 + i},{10 * (i + 1)},2\nu{i}b,{50 + i},5,1\n"
            )
        _write(root, f"itp/{name}.csv", text)


def test_itp_synthetic_all_clusters(tmp_path: Path) -> None:
    head = "job_id,submission_time,duration,num_gpu\n"
    _itp_dir(
        tmp_path,
        {
            "cluster02": head + "x,40,3,8\ny,70,0,1\nz,70,6,0\n",
            "cluster04": head + "p,50,9,1\nq,50,8,1\n",
        },
    )
    df = load_itp(root=tmp_path, verify=False)
    _assert_job_frame(df)
    assert df.attrs["t0"] == 40 and df.attrs["dropped_invalid"] == 2
    assert df.attrs["rows_raw"] == 8 * 2 + 3 + 2
    first = df.iloc[0]
    assert (first["cluster"], first["duration"], first["num_gpus"], first["gpu_time"]) == (
        "cluster02",
        3.0,
        8,
        24.0,
    )
    # ties at equal submission time: by cluster, then file row
    head4 = df.iloc[1:4]
    assert head4["submit_time"].tolist() == [10.0, 10.0, 10.0]
    assert head4["cluster"].tolist() == ["cluster01", "cluster04", "cluster04"]
    assert head4["duration"].tolist() == [5.0, 9.0, 8.0]
    assert df["cluster"].iloc[4] == "cluster03"


@pytest.mark.parametrize("bad", [0, 11, -1, "cluster11", "1", "Cluster01", True, 2.0])
def test_itp_unknown_cluster_names_value_and_valid_ones(tmp_path: Path, bad: object) -> None:
    with pytest.raises(ValueError) as err:
        load_itp(bad, tmp_path, verify=False)  # type: ignore[arg-type]
    msg = str(err.value)
    assert repr(bad) in msg and "cluster01" in msg and "cluster10" in msg


def test_itp_missing_column_and_nan(tmp_path: Path) -> None:
    path = _write(tmp_path, "itp/cluster05.csv", "job_id,submission_time,num_gpu\na,1,1\n")
    with pytest.raises(ValueError, match="'duration'") as err:
        load_itp(5, tmp_path, verify=False)
    assert str(path) in str(err.value)
    _write(
        tmp_path,
        "itp/cluster05.csv",
        "job_id,submission_time,duration,num_gpu\na,1,5,1\nb,2,6,1\nc,NaN,7,1\n",
    )
    with pytest.raises(ValueError) as err:
        load_itp("cluster05", tmp_path, verify=False)
    msg = str(err.value)
    assert "'submission_time'" in msg and "row 2 (line 4)" in msg and "'NaN'" in msg


# ---------------------------------------------------------------------------- Google


def test_google_hourly_real(real_root: Path) -> None:
    g = load_google_hourly(real_root)
    assert list(g.columns) == ["hour_index", "hour_start_s", "n_submits"]
    assert len(g) == 697 and (g.dtypes == np.int64).all()
    assert np.array_equal(g["hour_start_s"], 3600 * g["hour_index"])
    assert (g["n_submits"] >= 0).all()


def test_google_hour_of_day_profile_real(real_root: Path) -> None:
    p = google_hour_of_day_profile(real_root)
    assert p.shape == (24,) and p.dtype == np.float64
    assert np.isclose(p.mean(), 1.0) and (p > 0).all() and np.isfinite(p).all()
    assert p.max() / p.min() > 1.2  # a diurnal cycle is present, not a flat line


def test_google_hour_of_day_time_base() -> None:
    # trace timestamp 600 s is 19:00 EDT (Google's documentation); 0 s is 18:50
    assert google_hour_of_day(600).item() == 19
    assert google_hour_of_day(0).item() == 18
    assert google_hour_of_day(18600).item() == 0  # Mon 2011-05-02 00:00 EDT
    assert google_hour_of_day(np.array([18599, 18600 + 3600])).tolist() == [23, 1]


def test_google_profile_synthetic_uses_full_bins_by_local_hour(tmp_path: Path) -> None:
    # the real layout (697 bins, the first and last only partly observed); count = 1 + local
    # hour of the bin midpoint, and the partial bins get a huge count that must be ignored.
    hours = np.arange(0, 697)
    start = 3600 * hours
    local = (hours + 19) % 24
    counts = 1 + local
    counts[0] = 10**6
    counts[-1] = 10**6
    text = "hour_index,hour_start_s,n_submits\n" + "".join(
        f"{h},{s},{c}\n" for h, s, c in zip(hours, start, counts, strict=True)
    )
    _write(tmp_path, TRACE_FILES["google_hourly"].path, text)
    p = google_hour_of_day_profile(tmp_path, verify=False)
    expected = np.arange(1, 25) / np.arange(1, 25).mean()
    assert np.allclose(p, expected)


def test_google_hourly_inconsistent_start_is_rejected(tmp_path: Path) -> None:
    _write(
        tmp_path,
        TRACE_FILES["google_hourly"].path,
        "hour_index,hour_start_s,n_submits\n0,0,5\n1,3000,6\n",
    )
    with pytest.raises(ValueError, match=r"'hour_start_s'.*'3000'.*row 1"):
        load_google_hourly(tmp_path, verify=False)


def test_google_jobs_real(real_root: Path) -> None:
    j = load_google_jobs(real_root)
    assert list(j.columns) == [
        "job_id",
        "submit_time_s",
        "wait_s",
        "runtime_s",
        "end_event",
        "scheduling_class",
        "user_idx",
    ]
    assert len(j) == 150490
    for col in ("job_id", "submit_time_s", "wait_s", "scheduling_class", "user_idx"):
        assert j[col].dtype == np.int64, col
    assert j["runtime_s"].dtype == np.float64 and pd.api.types.is_string_dtype(j["end_event"])
    assert j["submit_time_s"].is_monotonic_increasing and j["job_id"].is_unique
    # the documented week Mon 2011-05-02 00:00 .. Mon 2011-05-09 00:00 EDT on the trace base
    assert j["submit_time_s"].min() >= 18600 and j["submit_time_s"].max() < 18600 + 7 * 86400
    assert google_hour_of_day(j["submit_time_s"].iloc[0]).item() == 0
    assert (j["runtime_s"].isna() == j["end_event"].isna()).all()
    assert set(j["end_event"].dropna()) <= traces.GOOGLE_END_EVENTS


def test_google_jobs_gz_synthetic_and_bad_event(tmp_path: Path) -> None:
    path = tmp_path / TRACE_FILES["google_jobs_week"].path
    path.parent.mkdir(parents=True)
    header = "job_id,submit_time_s,wait_s,runtime_s,end_event,scheduling_class,user_idx\n"
    with gzip.open(path, "wt") as fh:
        fh.write(header + "7,20000,1,5,FINISH,0,3\n8,19000,2,,,1,4\n")
    j = load_google_jobs(tmp_path, verify=False)
    assert j["job_id"].tolist() == [8, 7] and np.isnan(j["runtime_s"].iloc[0])
    with gzip.open(path, "wt") as fh:
        fh.write(header + "7,20000,1,5,FINISH,0,3\n8,19000,2,3,EXPLODE,1,4\n")
    with pytest.raises(ValueError, match=r"'end_event'.*'EXPLODE'.*row 1"):
        load_google_jobs(tmp_path, verify=False)


# ---------------------------------------------------------------------------- sample_jobs


def _toy_jobs(n: int = 50) -> pd.DataFrame:
    rng = np.random.default_rng(123)
    t = np.sort(rng.uniform(100, 1000, n))
    return pd.DataFrame(
        {
            "job_id": np.arange(n),
            "submit_time": t,
            "duration": rng.uniform(1, 10, n),
            "num_gpus": rng.integers(1, 9, n),
        }
    )


def test_sample_jobs_determinism_real(philly: pd.DataFrame) -> None:
    a = sample_jobs(philly, 300, 7)
    b = sample_jobs(philly, 300, np.random.default_rng(7))
    c = sample_jobs(philly, 300, 8)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)
    _assert_job_frame(a)
    assert len(a) == 300 and a.attrs["t0_offset_s"] > 0.0


def test_sample_jobs_properties() -> None:
    df = _toy_jobs()
    s = sample_jobs(df, 20, 1)
    assert np.array_equal(s["job_id"], np.arange(20)) and s["submit_time"].iloc[0] == 0.0
    assert s["submit_time"].is_monotonic_increasing
    assert s["duration"].is_unique  # without replacement
    shift = s.attrs["t0_offset_s"]
    assert set(np.round(s["submit_time"] + shift, 9)) <= set(np.round(df["submit_time"], 9))
    big = sample_jobs(df, 120, 1)  # n > len: with replacement
    assert len(big) == 120 and big.attrs["sampled_with_replacement"] is True
    assert not big["duration"].is_unique
    assert np.array_equal(big["job_id"], np.arange(120))
    pd.testing.assert_frame_equal(big, sample_jobs(df, 120, 1))
    assert df["job_id"].tolist() == list(range(50))  # input untouched
    assert len(sample_jobs(df, 0, 1)) == 0


@pytest.mark.parametrize(
    ("kwargs", "exc", "text"),
    [
        ({"n": -1, "rng": 0}, ValueError, "-1"),
        ({"n": 2.5, "rng": 0}, TypeError, "2.5"),
        ({"n": True, "rng": 0}, TypeError, "True"),
        ({"n": 3, "rng": None}, TypeError, "None"),
    ],
)
def test_sample_jobs_bad_arguments(kwargs: dict, exc: type, text: str) -> None:
    with pytest.raises(exc, match=text):
        sample_jobs(_toy_jobs(), **kwargs)


def test_sample_jobs_needs_submit_time_and_rows() -> None:
    with pytest.raises(ValueError, match="submit_time"):
        sample_jobs(pd.DataFrame({"x": [1]}), 1, 0)
    with pytest.raises(ValueError, match="empty"):
        sample_jobs(_toy_jobs().iloc[:0], 1, 0)


# ---------------------------------------------------------------------------- verify / download


@pytest.fixture
def fake_vc_nodes(monkeypatch: pytest.MonkeyPatch) -> bytes:
    """Point the 'philly_vc_nodes' entry at a synthetic file's checksum."""
    data = b"vc,node num\nabc,4\n6214e9,2\n"
    monkeypatch.setitem(
        TRACE_FILES, "philly_vc_nodes", replace(TRACE_FILES["philly_vc_nodes"], sha256=_sha(data))
    )
    return data


def test_verify_accepts_good_and_rejects_tampered_copy(
    tmp_path: Path, fake_vc_nodes: bytes
) -> None:
    rel = TRACE_FILES["philly_vc_nodes"].path
    path = tmp_path / rel
    path.parent.mkdir(parents=True)
    path.write_bytes(fake_vc_nodes)
    assert verify("philly_vc_nodes", tmp_path) == path
    assert load_philly_vc_nodes(tmp_path)["num_nodes"].tolist() == [4, 2]
    tampered = fake_vc_nodes.replace(b"4", b"5") + b"\n"  # new size: the cache must not hide it
    path.write_bytes(tampered)
    with pytest.raises(TraceChecksumError) as err:
        verify("philly_vc_nodes", tmp_path)
    assert isinstance(err.value, ValueError)
    msg = str(err.value)
    assert str(path) in msg and _sha(fake_vc_nodes) in msg and _sha(tampered) in msg
    with pytest.raises(TraceChecksumError):
        load_philly_vc_nodes(tmp_path)


def test_verify_rejects_tampered_real_copy(tmp_path: Path, real_root: Path) -> None:
    rel = TRACE_FILES["philly_vc_nodes"].path
    copy = tmp_path / rel
    copy.parent.mkdir(parents=True)
    shutil.copyfile(real_root / rel, copy)
    assert verify("philly_vc_nodes", tmp_path) == copy
    data = bytearray(copy.read_bytes())
    data[-3:-1] = b"99"  # same size, different content
    copy.write_bytes(bytes(data))
    os.utime(copy, ns=(1, 1))  # make sure mtime differs from the cached success
    with pytest.raises(TraceChecksumError, match=TRACE_FILES["philly_vc_nodes"].sha256):
        verify("philly_vc_nodes", tmp_path)


def test_unknown_trace_name_lists_valid_names(tmp_path: Path) -> None:
    for call in (lambda: verify("phily", tmp_path), lambda: download("phily", tmp_path)):
        with pytest.raises(UnknownTraceError) as err:
            call()
        assert isinstance(err.value, ValueError) and isinstance(err.value, KeyError)
        msg = str(err.value)
        assert "'phily'" in msg and "philly" in msg and "itp_cluster01" in msg


def test_download_file_url_succeeds(tmp_path: Path, fake_vc_nodes: bytes) -> None:
    src = tmp_path / "src" / "vc.csv"
    src.parent.mkdir()
    src.write_bytes(fake_vc_nodes)
    dest_root = tmp_path / "data"
    got = download("philly_vc_nodes", dest_root, url=src.as_uri())
    assert got == dest_root / TRACE_FILES["philly_vc_nodes"].path
    assert got.read_bytes() == fake_vc_nodes
    assert sorted(p.name for p in got.parent.iterdir()) == [got.name]  # no temp file left
    assert verify("philly_vc_nodes", dest_root) == got
    src.unlink()  # already present and valid: no fetch needed
    assert download("philly_vc_nodes", dest_root, url=src.as_uri()) == got


def test_download_wrong_checksum_leaves_no_file(tmp_path: Path, fake_vc_nodes: bytes) -> None:
    src = tmp_path / "src.csv"
    src.write_bytes(fake_vc_nodes + b"extra,1\n")
    dest_root = tmp_path / "data"
    with pytest.raises(TraceChecksumError, match=_sha(fake_vc_nodes)):
        download("philly_vc_nodes", dest_root, url=src.as_uri())
    assert [p for p in dest_root.rglob("*") if p.is_file()] == []


def test_download_real_copy_via_file_url(tmp_path: Path, real_root: Path) -> None:
    rel = TRACE_FILES["google_hourly"].path
    got = download("google_hourly", tmp_path / "d", url=(real_root / rel).as_uri())
    assert got.read_bytes() == (real_root / rel).read_bytes()
    assert len(load_google_hourly(tmp_path / "d")) == 697


def test_download_needs_url_when_none_known(tmp_path: Path) -> None:
    assert TRACE_FILES["itp_cluster01"].download_url is None
    with pytest.raises(ValueError, match="url="):
        download("itp_cluster01", tmp_path)
    with pytest.raises(ValueError, match="ftp"):
        download("itp_cluster01", tmp_path, url="ftp://example.org/x.csv")
    assert list(tmp_path.iterdir()) == []

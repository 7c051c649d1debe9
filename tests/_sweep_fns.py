"""Module-level experiment functions for tests/test_experiments.py and tests/test_daskprocs.py.

They live in their own importable module (not in the test file) so that Dask worker processes can
unpickle them by reference: LocalCluster workers inherit ``sys.path`` from the test process, and
the external ``dask worker`` in the tests is started with this folder on ``PYTHONPATH``.

``logged`` appends one line per call to the file named by the environment variable
``DLSCHED_TEST_CALLS_LOG`` and sleeps ``DLSCHED_TEST_SLEEP`` seconds; both are read from the
environment, not from ``params``, so they do not change the cache key.
"""

from __future__ import annotations

import json
import os
import time

import numpy as np
import pandas as pd

CALLS_LOG_ENV = "DLSCHED_TEST_CALLS_LOG"
SLEEP_ENV = "DLSCHED_TEST_SLEEP"


def noisy(params: dict) -> pd.DataFrame:
    """A small tidy frame of several dtypes, drawn from ``default_rng(params["seed"])``."""
    rng = np.random.default_rng(params["seed"])
    n = int(params.get("n", 3))
    scale = float(params.get("scale", 1.0))
    labels = np.array(["a", "b", "c"])[rng.integers(0, 3, size=n)]
    return pd.DataFrame(
        {
            "rep": np.arange(n, dtype=np.int64),
            "value": scale * rng.standard_normal(n),
            "count": rng.integers(0, 100, size=n).astype(np.int32),
            "label": pd.Series(labels, dtype=object),  # object -> str through parquet
            "kind": pd.Categorical(labels, categories=["a", "b", "c"]),
            "flag": rng.random(n) < 0.5,
        }
    )


def logged(params: dict) -> pd.DataFrame:
    """``noisy`` that logs each call (one JSON line with ``params["i"]``) and sleeps first."""
    log = os.environ.get(CALLS_LOG_ENV)
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps({"i": params["i"], "pid": os.getpid()}) + "\n")
            f.flush()
    time.sleep(float(os.environ.get(SLEEP_ENV, "0")))
    return noisy(params)


def indexed(params: dict) -> pd.DataFrame:
    """A frame with a named index (becomes a column in a sweep)."""
    df = noisy(params)[["rep", "value"]]
    return df.set_index("rep")


def not_a_frame(params: dict) -> dict:
    """Returns a dict instead of a DataFrame."""
    return {"x": params["x"]}


def fails_on_two(params: dict) -> pd.DataFrame:
    """Raises for ``x == 2``; a one-row frame otherwise."""
    if params["x"] == 2:
        raise RuntimeError("boom at x=2")
    return pd.DataFrame({"y": [params["x"] * 10]})


def returns_seed_column(params: dict) -> pd.DataFrame:
    """A result column named like a parameter (``seed``)."""
    return pd.DataFrame({"seed": [params["seed"]]})


def slow(params: dict) -> pd.DataFrame:
    """``noisy`` after sleeping ``params["sleep"]`` seconds (default 0.6), for tests/test_daskprocs.py.

    Like ``logged``, appends ``{"i": params["i"], "pid": <process id>, "t": <time.time()>}`` to the
    file named by ``DLSCHED_TEST_CALLS_LOG`` (if set) when a call *starts*, so a test can tell
    which worker process ran (or started and lost) which point, and when. The frame depends only
    on ``params``.
    """
    log = os.environ.get(CALLS_LOG_ENV)
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps({"i": params["i"], "pid": os.getpid(), "t": time.time()}) + "\n")
            f.flush()
    time.sleep(float(params.get("sleep", 0.6)))
    return noisy(params)

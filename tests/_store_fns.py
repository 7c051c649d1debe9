"""Module-level experiment functions for tests/test_store.py (importable by their path).

``CALLS`` records the ``params`` of every call of :func:`frame` and :func:`other`, so a test can
tell which points a sweep computed and which it read from the store or the cache.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

CALLS: list[dict] = []


def frame(params: dict) -> pd.DataFrame:
    """A small frame of several dtypes (int64, float64, int32, str, categorical, bool, NaN)."""
    CALLS.append(dict(params))
    rng = np.random.default_rng(params["seed"])
    n = int(params.get("n", 4))
    labels = np.array(["a", "b", "c"])[rng.integers(0, 3, size=n)]
    value = rng.standard_normal(n)
    value[0] = np.nan
    return pd.DataFrame(
        {
            "rep": np.arange(n, dtype=np.int64),
            "value": value,
            "count": rng.integers(0, 100, size=n).astype(np.int32),
            "label": pd.Series(labels, dtype=object),
            "kind": pd.Categorical(labels, categories=["a", "b", "c"]),
            "flag": rng.random(n) < 0.5,
        }
    )


def other(params: dict) -> pd.DataFrame:
    """A second experiment function: a frame with a named index (a column after the sweep)."""
    CALLS.append(dict(params))
    x = float(params["x"])
    return pd.DataFrame({"y": [x, 2 * x]}, index=pd.Index([0, 1], name="i"))


def timed(params: dict) -> pd.DataFrame:
    """A frame holding a wall-clock time: its ``seconds`` column is declared volatile (the audit
    compares the other columns)."""
    t0 = time.perf_counter()
    total = sum(range(int(params.get("n", 1000))))
    return pd.DataFrame({"total": [total], "seconds": [time.perf_counter() - t0]})


timed.volatile = ("seconds",)


def measured(params: dict) -> pd.DataFrame:
    """A frame that is nothing but a wall-clock measurement: declared all-volatile (skipped)."""
    t0 = time.perf_counter()
    sum(range(int(params.get("n", 1000))))
    return pd.DataFrame({"seconds": [time.perf_counter() - t0]})


measured.volatile = ("*",)

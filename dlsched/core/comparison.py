"""Paper-vs-ours tables and sweep-parameter parsing shared by the wings' ``experiments`` modules.

Each figure notebook prints, per figure, a table of the paper's reported settings and trends
(``quantity``, ``paper``) next to ours (``ours``) with a verdict (``match``: ``yes``, ``partly``,
``no``, or ``-`` for a row that only describes the setting), and one :func:`scorecard` of every
judged row. The wing keeps its own table of what the paper reports (``PAPER``); the mechanics are
here, so that every wing judges and prints the same way.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "as_dict",
    "as_int",
    "column_list",
    "number",
    "paper_rows",
    "require_columns",
    "run_keys",
    "scorecard",
    "verdict",
    "with_ours",
]


def require_columns(df: object, cols: Sequence[str], what: str) -> pd.DataFrame:
    """``df`` itself if it is a DataFrame with every column of ``cols``.

    Raises
    ------
    TypeError
        If ``df`` is not a DataFrame.
    ValueError
        Naming the missing columns (``what`` says who asked).
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{what}: expected a DataFrame, got {type(df).__name__}")
    absent = [c for c in cols if c not in df.columns]
    if absent:
        raise ValueError(f"{what}: missing column(s) {absent}; have {list(df.columns)}")
    return df


def column_list(by: str | Sequence[str]) -> list[str]:
    """Grouping columns as a list: one name becomes a list of one.

    >>> column_list("policy"), column_list(("policy", "seed"))
    (['policy'], ['policy', 'seed'])
    """
    return [by] if isinstance(by, str) else list(by)


def run_keys(
    df: object,
    by: str | Sequence[str] | None,
    default: Sequence[str],
    what: str = "expected a DataFrame of job rows",
) -> list[str]:
    """The columns identifying one run of a per-job table ``df``.

    ``by`` as a list (:func:`column_list`), or, if ``by`` is None, the columns of ``default``
    (a wing's ``RUN_KEYS``) that ``df`` has, in ``default``'s order.

    Raises
    ------
    TypeError
        If ``df`` is not a DataFrame (the message is ``what`` and the type found).
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{what}, got {type(df).__name__}")
    if by is None:
        return [c for c in default if c in df.columns]
    return column_list(by)


def number(v: float) -> str:
    """Rounded for tables: whole numbers from 100 on, else three significant digits.

    >>> number(1234.56), number(0.012345), number(float("nan"))
    ('1235', '0.0123', 'nan')
    """
    v = float(v)
    if not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return f"{v:.0f}" if abs(v) >= 100 else f"{v:.3g}"


def verdict(flags: Sequence[bool]) -> str:
    """``yes`` if all, ``no`` if none, ``partly`` otherwise (``-`` for no data).

    >>> verdict([True, True]), verdict([True, False]), verdict([False]), verdict([])
    ('yes', 'partly', 'no', '-')
    """
    if len(flags) == 0:
        return "-"
    n = sum(bool(f) for f in flags)
    return "yes" if n == len(flags) else ("no" if n == 0 else "partly")


def paper_rows(paper: Mapping[str, Sequence[tuple[str, str]]], figure: str) -> pd.DataFrame:
    """What the paper reports for ``figure``: the rows ``(quantity, paper)`` of ``paper[figure]``.

    Raises
    ------
    ValueError
        If ``figure`` is not a key of ``paper``.
    """
    if figure not in paper:
        raise ValueError(f"figure must be one of {sorted(paper)}, got {figure!r}")
    return pd.DataFrame(list(paper[figure]), columns=["quantity", "paper"])


def with_ours(table: pd.DataFrame, ours: Sequence[str], match: Sequence[str],
              figure: str = "") -> pd.DataFrame:
    """``table`` (from :func:`paper_rows`) with our values and verdicts as columns ``ours``, ``match``.

    Raises
    ------
    AssertionError
        If the row counts differ (a programming error in a ``figN_comparison`` function).
    """
    if len(ours) != len(table) or len(match) != len(table):
        raise AssertionError(f"{figure}: {len(table)} paper rows, {len(ours)}/{len(match)} ours")
    return table.assign(ours=list(ours), match=list(match))


def scorecard(comparisons: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Collect the judged claims (``match`` other than ``"-"``) of several comparison tables.

    Parameters
    ----------
    comparisons : Mapping[str, pandas.DataFrame]
        Label (e.g. ``"Fig. 6"``) -> output of a ``figN_comparison`` function.

    Returns
    -------
    pandas.DataFrame
        ``figure``, ``quantity``, ``paper``, ``match`` for each judged claim, figures in the
        order given; empty (with those columns) when nothing was judged.

    Raises
    ------
    TypeError
        If a table is not a DataFrame.
    ValueError
        If a table lacks ``quantity``, ``paper`` or ``match``.
    """
    rows = [
        {"figure": str(label), "quantity": q, "paper": p, "match": m}
        for label, table in comparisons.items()
        for q, p, m in require_columns(table, ["quantity", "paper", "match"], "scorecard")[
            ["quantity", "paper", "match"]
        ].itertuples(index=False)
        if m != "-"
    ]
    return pd.DataFrame(rows, columns=["figure", "quantity", "paper", "match"])


def as_int(params: Mapping[str, object], key: str, default: int, lo: int, fn: str) -> int:
    """``params[key]`` (or ``default``) as an int ``>= lo``; ``fn`` names the caller in errors.

    Raises
    ------
    ValueError
        Naming ``fn``, the key and the value (bools are not ints here).
    """
    value = params.get(key, default)
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if not ok or value < lo:
        raise ValueError(f"{fn}: {key} must be an integer >= {lo}, got {value!r}")
    return int(value)


def as_dict(params: Mapping[str, object], key: str, fn: str) -> dict[str, object]:
    """``params[key]`` as a dict with str keys (``{}`` when absent or None).

    Raises
    ------
    ValueError
        Naming ``fn``, the key and the value.
    """
    value = params.get(key)
    if value is None:
        return {}
    if isinstance(value, Mapping) and all(isinstance(k, str) for k in value):
        return dict(value)
    raise ValueError(f"{fn}: {key} must be a dict with str keys, got {value!r}")

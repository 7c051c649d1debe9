"""The result type of every check function: a claim of a paper, tested numerically.

Each wing's ``checks.py`` turns a theorem, lemma or optimality claim into a pure function that
returns a :class:`Claim`: whether it holds on the given instance and the numbers behind the
verdict. Tests assert ``claim.holds`` (or call :meth:`Claim.require`), notebooks print
:meth:`Claim.summary` in assert cells.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Claim:
    """Outcome of checking one claim.

    Attributes
    ----------
    name : str
        What is claimed, with the paper's reference (e.g. "OASiS Theorem 1: COST_t optimal").
    holds : bool
        Whether the claim held on the instance(s) checked.
    details : Mapping[str, object]
        The numbers behind the verdict (observed values, bounds, counter-examples).
    """

    name: str
    holds: bool
    details: Mapping[str, object] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.holds)

    def require(self) -> Claim:
        """Return self if the claim holds, else raise AssertionError with the details."""
        if not self.holds:
            raise AssertionError(f"{self.name} does not hold: {dict(self.details)}")
        return self

    def summary(self, digits: int = 4) -> str:
        """One line: verdict, name and rounded details."""

        def fmt(v):
            return f"{v:.{digits}g}" if isinstance(v, float) else str(v)

        inner = ", ".join(f"{k}={fmt(v)}" for k, v in self.details.items())
        return f"[{'holds' if self.holds else 'FAILS'}] {self.name}" + (f" ({inner})" if inner else "")


# ------------------------------------------------------------------ sample tables of claims
# A wing's ``*_sample`` runners check a claim on many instances and return one row per instance
# (:func:`claim_row`); :func:`combine` stacks such tables and :func:`fold` turns each claim's rows
# back into one Claim (it holds iff every row holds), which notebooks assert.


def claim_row(claim: Claim, **keys) -> dict:
    """One row of a sample table: ``keys`` (instance labels), ``claim`` (name), ``holds``,
    ``summary`` and the claim's scalar details as further columns."""
    import numpy as np

    scalar = (bool, np.bool_, int, np.integer, float, np.floating)
    numbers = {k: v for k, v in claim.details.items() if isinstance(v, scalar) and k not in keys}
    return {**keys, "claim": claim.name, "holds": bool(claim.holds), "summary": claim.summary(), **numbers}


def sample_row(seed: int, claim: Claim, **extra) -> dict:
    """One row of a sample table keyed by ``seed``: ``seed``, ``extra``, ``claim`` (name),
    ``holds``, ``summary``, then the claim's scalar details whose names are not already columns
    (unlike :func:`claim_row`, a detail never overwrites ``claim``, ``holds`` or ``summary``)."""
    import numpy as np

    row = {"seed": seed, **extra, "claim": claim.name, "holds": bool(claim.holds), "summary": claim.summary()}
    for k, v in claim.details.items():
        if isinstance(v, (bool, np.bool_, int, np.integer, float, np.floating)) and k not in row:
            row[k] = v
    return row


def claims_by_name(frame, by: str | None = None) -> dict[str, Claim]:
    """One :class:`Claim` per claim name of a sample table (columns ``claim``, ``holds``,
    ``summary``; checked by the caller): it holds iff every row of that name holds.

    Names in order of first appearance. With ``by`` (a column, e.g. ``"noise"``), one claim per
    (name, value) instead, named ``"<name> [<by>=<value>]"``, values in sorted order. ``details``:
    ``checked`` rows, ``failures`` and the ``first_failure`` summary (empty if none).
    """
    groups = []
    for name in dict.fromkeys(frame["claim"]):
        part = frame[frame["claim"] == name]
        if by is None:
            groups.append((name, part))
        else:
            for value in sorted(dict.fromkeys(part[by])):
                groups.append((f"{name} [{by}={value}]", part[part[by] == value]))
    out = {}
    for name, part in groups:
        fails = part[~part["holds"].astype(bool)]
        out[name] = Claim(
            name,
            fails.empty,
            {
                "checked": int(len(part)),
                "failures": int(len(fails)),
                "first_failure": "" if fails.empty else str(fails["summary"].iloc[0]),
            },
        )
    return out


def check_seeds(seeds) -> list[int]:
    """The seeds of a sample run as a non-empty list of ints >= 0.

    Raises
    ------
    TypeError
        If ``seeds`` is not iterable.
    ValueError
        If it is empty or holds anything but integers >= 0.
    """
    import numpy as np

    try:
        out = list(seeds)
    except TypeError:
        raise TypeError(f"seeds must be an iterable of ints, got {type(seeds).__name__}") from None
    if not out:
        raise ValueError("seeds is empty; give at least one seed")
    for s in out:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0:
            raise ValueError(f"seeds must be integers >= 0, got {s!r}")
    return [int(s) for s in out]


def seed_list(seeds) -> list:
    """The seeds as a list (one seed is a list of one); each is validated where it is used.

    Raises
    ------
    ValueError
        If there is no seed.
    """
    import numpy as np

    values = [seeds] if isinstance(seeds, (int, np.integer)) else list(seeds)
    if not values:
        raise ValueError("seeds is empty; give at least one seed")
    return values


def combine(*frames):
    """Stack sample tables (one row per instance and claim) into one."""
    import pandas as pd

    if not frames:
        raise ValueError("combine needs at least one frame")
    return pd.concat(frames, ignore_index=True)


def fold(frame, *, add: Sequence[str] = ()) -> dict[str, Claim]:
    """One :class:`Claim` per claim name of a sample table: it holds iff every row holds.

    ``details``: the number of instances and of failures, the sums of the columns in ``add`` the
    rows carry (counts), and the first two failures' summaries.

    Raises
    ------
    ValueError
        For an empty table or one without the columns ``claim``, ``holds``, ``summary``.
    """
    if frame.empty or not {"claim", "holds", "summary"} <= set(frame.columns):
        raise ValueError("fold needs a non-empty table with columns claim, holds, summary")
    out = {}
    for name, part in frame.groupby("claim", sort=False):
        failed = part[~part["holds"].astype(bool)]
        details: dict[str, object] = {"instances": int(len(part)), "failures": int(len(failed))}
        for col in add:
            if col in part.columns and part[col].notna().any():
                details[col] = int(part[col].fillna(0).astype(float).sum())
        details["first_failures"] = failed["summary"].head(2).tolist()
        out[str(name)] = Claim(str(name), failed.empty, details)
    return out

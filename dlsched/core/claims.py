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

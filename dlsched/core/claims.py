"""The result type of every check function: a claim of a paper, tested numerically.

Each wing's ``checks.py`` turns a theorem, lemma or optimality claim into a pure function that
returns a :class:`Claim`: whether it holds on the given instance and the numbers behind the
verdict. Tests assert ``claim.holds`` (or call :meth:`Claim.require`), notebooks print
:meth:`Claim.summary` in assert cells.
"""

from __future__ import annotations

from collections.abc import Mapping
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

"""PD-ORS's dual objective (10) with the price term kept by :class:`dlsched.core.pricing.PriceMass`
(issue 23): after every admission it is the fresh ``sum(payoffs) + np.sum(p * cap[None])``, bit for
bit, and the recorded dual increments are those of the fresh sums."""

from __future__ import annotations

import numpy as np
import pytest

from dlsched.core.pricing import PriceMass
from dlsched.core.simulator import simulate
from dlsched.pdors import checks
from dlsched.pdors import policy as P


def _fresh(pol: P.PDORS, extra: tuple[float, ...] = ()) -> float:
    """Today's expression of (10), from the table itself (``_p``: reading ``p`` drops the mass)."""
    return float(sum([*pol.payoffs.values(), *extra]) + np.sum(pol._p * pol._cap[None]))


@pytest.mark.parametrize(("family", "sizes"), [
    ("synthetic", {"n_jobs": 30, "n_servers": 8, "horizon": 30, "arrival_span": 20}),
    ("pdors", {"n_jobs": 20, "n_machines": 6, "T": 24}),
])
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("cls", [P.PDORS, P.PDORSNoColocation])
def test_dual_objective_is_the_fresh_sum_after_every_admission(family, sizes, seed, cls, monkeypatch):
    monkeypatch.setattr(PriceMass, "LEAF", 1 << 7)  # a tree of many leaves on a small table
    wl = checks.instance(seed, family=family, **sizes)
    pol = cls.from_workload(wl)
    real_commit = P.PDORS._commit
    seen: list[tuple[float, float]] = []  # fresh (10) before the commit and after it (with the payoff)

    def commit(self, spec, best):
        before = _fresh(self)
        assert self.dual_objective() == before
        mass = self._mass
        real_commit(self, spec, best)
        assert self._mass is mass and not mass.fresh  # kept up to date, not rebuilt
        after = _fresh(self)
        assert self.dual_objective() == after
        seen.append((before, _fresh(self, (best.payoff,))))

    monkeypatch.setattr(P.PDORS, "_commit", commit)
    res = simulate(wl, pol, seed=seed)
    assert res.jobs["admitted"].any() and len(seen) == len(pol.history) > 1
    assert pol._p.size > 4 * PriceMass.LEAF
    for (before, after), h in zip(seen, pol.history, strict=True):
        assert h["dual"] == after - before
    assert pol.dual_objective() == _fresh(pol)


def test_prices_written_or_replaced_from_outside_rebuild_the_mass():
    wl = checks.instance(0, n_jobs=12, n_servers=4, horizon=12, arrival_span=6)
    pol = P.PDORS.from_workload(wl)
    simulate(wl, pol, seed=0)
    assert pol.dual_objective() == _fresh(pol)
    pol.p[:, -1] *= 1e-3  # a reader of p may write it (as the checks' tests do)
    assert pol.dual_objective() == _fresh(pol)
    pol.p = np.asfortranarray(pol._p * 2.0)  # replaced, by a layout summed afresh
    assert pol._price_mass().fresh and pol.dual_objective() == _fresh(pol)
    pol.p = np.ascontiguousarray(pol._p)
    assert not pol._price_mass().fresh and pol.dual_objective() == _fresh(pol)
    with pytest.raises(AttributeError, match="'p'"):
        P.PDORS.from_workload(wl).p  # noqa: B018 (before a horizon, as before: no table)

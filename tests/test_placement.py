"""dlsched.core.placement: the vectorised round robin makes the same choices as the literal loop."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dlsched.core.cluster import Cluster, Server
from dlsched.core.placement import _EPS, RoundRobin


def literal_place(placer: RoundRobin, free, demand, count, role, mask=None, reserve=None):
    """The paper's rule read literally: each task goes to the next server, in index order from the
    role's pointer and wrapping around, that has room for it; None (nothing changed) if one
    task fits nowhere."""
    servers = placer._servers[role]
    if mask is not None:
        servers = servers[mask[servers]]
    if count <= 0:
        return {}
    if servers.size == 0:
        return None
    h = placer._hard
    snapshot = free.copy()
    n = servers.size
    start = int(np.searchsorted(servers, placer._pointer[role])) % n
    out: dict[int, int] = {}
    pointer = placer._pointer[role]
    for _ in range(count):
        for i in range(n):
            s = int(servers[(start + i) % n])
            room = free[s, h] - (0 if reserve is None else reserve[s, h])
            if np.all(room >= demand[h] - _EPS):
                free[s] -= demand
                out[s] = out.get(s, 0) + 1
                pointer, start = s + 1, (start + i + 1) % n
                break
        else:
            free[:] = snapshot
            return None
    placer._pointer[role] = pointer
    return out


@settings(max_examples=200, deadline=None)
@given(
    caps=st.lists(st.tuples(st.integers(0, 6), st.integers(0, 8)), min_size=1, max_size=7),
    requests=st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 9), st.sampled_from(["worker", "ps"]),
                  st.booleans(), st.booleans()),
        min_size=1, max_size=8,
    ),
    pools=st.lists(st.sampled_from(["worker", "ps", "unified"]), min_size=7, max_size=7),
)
def test_round_robin_equals_the_literal_loop(caps, requests, pools) -> None:
    cluster = Cluster(tuple(Server(f"s{i}", pools[i], {"cpu": c, "mem": m}) for i, (c, m) in enumerate(caps)))
    fast, slow = RoundRobin(cluster), RoundRobin(cluster)
    free_fast = cluster.capacity.astype(float).copy()
    free_slow = free_fast.copy()
    for k, (cpu, mem, count, role, use_mask, use_reserve) in enumerate(requests):
        demand = np.array([cpu, mem], dtype=float)
        mask = (np.arange(cluster.n_servers) % 2 == k % 2) if use_mask else None
        reserve = np.full_like(free_fast, 1.0) if use_reserve else None
        got = fast.place(free_fast, demand, count, role, mask=mask, reserve=reserve)
        want = literal_place(slow, free_slow, demand, count, role, mask=mask, reserve=reserve)
        assert got == want
        assert np.array_equal(free_fast, free_slow)
        assert fast._pointer == slow._pointer

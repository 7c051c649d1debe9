"""Cases and digest of the trace-scale identity test (issue 23: every speed-up keeps today's
schedules exactly). Shared by ``tests/test_trace_identity.py`` and by the command that wrote the
reference digests with the code *before* the speed-ups::

    git worktree add /work/pre 6d31e07   # the last commit before them
    PYTHONPATH=/work/pre python tests/_trace_identity.py > tests/data/trace_identity.json

(the 8,000-job FIFO and DRF cases, added with the O(changes) decisions of 2026-11-28, by the
same code: ``... tests/_trace_identity.py fifo/rigid/8000 drf/rigid/8000``, merged in).

A digest covers the job table, the allocation intervals, the decision count and the end slot,
value by value (float bits, not printed text).
"""

from __future__ import annotations

import hashlib
import json
import sys

import numpy as np

#: (policy, job model, first n Philly jobs): the arena's mapping on the trace's own cluster.
CASES: tuple[tuple[str, str, int], ...] = (
    ("fifo", "rigid", 250),
    ("drf", "rigid", 250),
    ("fifo", "rigid", 1000),
    ("drf", "rigid", 1000),
    ("fifo", "rigid", 8000),
    ("drf", "rigid", 8000),
    ("oasis", "oasis", 100),
    ("dorm", "oasis", 60),
    ("pdors", "pdors", 60),
    ("aonline", "aonline", 1000),
    ("preemptive", "aonline", 1000),
    ("batchsche", "aonline", 250),
    ("specon", "specon", 12),
    ("k8s_default", "specon", 250),
    ("optimus", "optimus", 12),
    ("tetris", "optimus", 6),
)


def frame_digest(df) -> str:
    """sha256 of a frame's columns: names, dtypes and values (floats by their bits)."""
    h = hashlib.sha256()
    for c in df.columns:
        col = df[c]
        h.update(f"{c}\x1e{col.dtype}\x1e".encode())
        v = col.to_numpy()
        if v.dtype.kind in "fiub":
            kind = np.float64 if v.dtype.kind == "f" else np.int64
            h.update(np.ascontiguousarray(v.astype(kind)).tobytes())
        else:
            h.update("\x1f".join(map(repr, v.tolist())).encode())
    return h.hexdigest()


def run_case(policy: str, model: str, n: int) -> dict[str, object]:
    """Simulate ``policy`` on the first ``n`` Philly jobs mapped to ``model``; its digests."""
    from dlsched.arena import mapping
    from dlsched.core.simulator import simulate

    df = mapping.trace_jobs("philly")
    attrs = dict(df.attrs)
    df = df.iloc[:n].copy()
    df.attrs.update(attrs)
    kw = {"delays": "cluster"} if model == "aonline" else {}
    if policy == "preemptive":  # the arena's mapping for a scheduler that preempts
        kw["preemptible"] = True
    wl = mapping.map_jobs(df, model, np.random.default_rng(0), **kw)
    res = simulate(wl, mapping.make_policy(policy, wl), seed=0)
    return {
        "jobs": frame_digest(res.jobs),
        "intervals": frame_digest(res.intervals),
        "decisions": int(res.decisions),
        "end_slot": int(res.end_slot),
    }


def case_name(policy: str, model: str, n: int) -> str:
    return f"{policy}/{model}/{n}"


if __name__ == "__main__":
    only = set(sys.argv[1:])
    out = {case_name(*c): run_case(*c) for c in CASES if not only or case_name(*c) in only}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()

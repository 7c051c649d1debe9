"""Fingerprints of a representative set of schedules, for tests/test_machine_invariance.py.

Run as a script (``python tests/_invariance_probe.py [names...]``) in a subprocess whose
environment sets a numpy dispatch level (``NPY_DISABLE_CPU_FEATURES``), an OpenBLAS core type
(``OPENBLAS_CORETYPE``) or a BLAS thread count; prints one JSON object ``{case: sha256}``, where
each sha256 covers the per-job table (and the run records) of one simulation, or the tidy table of
one figure-notebook sweep point. The parent test requires identical objects under every
environment. ``--runtime`` adds the numpy dispatch and OpenBLAS kernel actually in force.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time

import pandas as pd


def _digest(*frames: pd.DataFrame) -> str:
    h = hashlib.sha256()
    for f in frames:
        f = f.reset_index(drop=True)
        h.update(",".join(map(str, f.columns)).encode())
        h.update(",".join(map(str, f.dtypes)).encode())
        h.update(pd.util.hash_pandas_object(f, index=False).to_numpy().tobytes())
    return h.hexdigest()


def _sim(workload: str, policy: str, wparams: dict, seed: int = 0) -> str:
    from dlsched import registry
    from dlsched.core.simulator import simulate

    wparams = {**registry.workload_defaults(policy, workload), **wparams}
    wl = registry.make_workload(workload, seed=seed, **wparams)
    pol = registry.make_policy(policy, wl)
    res = simulate(wl, pol, seed=seed)
    return _digest(res.jobs, res.runs)


# (workload, its small parameters, policies that run on it)
SIMULATIONS: list[tuple[str, dict, tuple[str, ...]]] = [
    ("oasis", {"n_jobs": 30, "T": 40, "H": 8, "K": 8}, ("oasis", "rrh", "dorm", "fifo", "drf")),
    ("optimus", {"n_jobs": 8}, ("optimus", "tetris", "drf", "fifo")),
    ("pdors", {"n_jobs": 25, "n_machines": 10, "T": 15},
     ("pdors", "pdors_nocoloc", "oasis_split", "fifo", "drf")),
    ("aonline", {"n_edge": 12, "n_jobs": 25, "T": 128},
     ("aonline", "batchsche", "preemptive", "fifo", "drf")),
    ("specon", {"schedule": "fixed", "n_jobs": 8}, ("specon", "k8s_default")),
    ("philly_like", {"n_jobs": 200, "n_gpus": 24}, ("fifo", "drf")),
]


def _sweeps() -> dict[str, object]:
    """One small sweep point of each figures notebook's experiment functions (lazy imports)."""
    from dlsched.aonline import experiments as ae
    from dlsched.arena import experiments as arena
    from dlsched.oasis import experiments as oe
    from dlsched.optimus import experiments as pe
    from dlsched.pdors import experiments as de
    from dlsched.specon import experiments as se

    small = {"T": 40, "H": 8, "K": 8, "n_jobs": 30}
    return {
        "sweep:12:utility_run": lambda: oe.utility_run({**small, "policy": "oasis", "seed": 1}),
        "sweep:12:estimate_run": lambda: oe.estimate_run({**small, "u_scale": 2.0, "seed": 1}),
        "sweep:22:job_run": lambda: pe.job_run({"scheme": "optimus", "n_jobs": 8, "seed": 1}),
        "sweep:32:job_run": lambda: de.job_run(
            {"policy": "pdors", "n_jobs": 30, "n_machines": 10, "T": 15, "seed": 1}
        ),
        "sweep:42:job_run": lambda: ae.job_run(
            {"policy": "aonline", "n_jobs": 30, "n_edge": 12, "T": 128, "seed": 1}
        ),
        "sweep:52:pair_run": lambda: se.pair_run({"experiment": "fig6", "seed": 1}),
        "sweep:60:arena_point": lambda: arena.arena_point(
            {"trace": "philly", "week": 7, "cluster": "11cb48", "model": "oasis", "policy": "oasis",
             "seed": 0, "max_jobs": 40, "node_scale": 0.25}
        ),
    }


def cases() -> dict[str, object]:
    out: dict[str, object] = {}
    for wl, params, policies in SIMULATIONS:
        for pol in policies:
            out[f"sim:{wl}:{pol}"] = (lambda wl=wl, params=params, pol=pol: _sim(wl, pol, params))
    for name, fn in _sweeps().items():
        out[name] = (lambda fn=fn: _digest(fn()))
    return out


def runtime() -> dict[str, object]:
    """The numpy dispatch and the BLAS kernel/threads in force in this process."""
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    from threadpoolctl import threadpool_info

    blas = [i for i in threadpool_info() if i.get("user_api") == "blas"]
    return {
        "dispatch": [d for d in __cpu_dispatch__ if __cpu_features__.get(d)],
        "blas": [(i.get("architecture"), i.get("num_threads")) for i in blas],
    }


def main(argv: list[str]) -> int:
    want = [a for a in argv if not a.startswith("--")]
    all_cases = cases()
    out: dict[str, object] = {}
    times: dict[str, float] = {}
    for name, fn in all_cases.items():
        if want and name not in want:
            continue
        t0 = time.perf_counter()
        out[name] = fn()
        times[name] = round(time.perf_counter() - t0, 2)
    if "--runtime" in argv:
        out["_runtime"] = runtime()
    if "--times" in argv:
        out["_times"] = times
    json.dump(out, sys.stdout, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

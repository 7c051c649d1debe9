"""Which numpy primitives change their last bits with the CPU's float path, and what the
dispatch-invariant replacements in :mod:`dlsched.core.numerics` cost (issue 19).

Part 1 runs a small script in subprocesses under every numpy dispatch level this CPU has
(``NPY_DISABLE_CPU_FEATURES``), OpenBLAS core types below its own (``OPENBLAS_CORETYPE``) and
1 / 4 BLAS threads, and prints, per primitive, the variants whose result differs from the native
run (sha256 of the output bytes). Part 2 times ``np.exp`` against ``numerics.exp`` (and log,
power, dot) on 10^6 floats.

    .venv/bin/python benchmarks/bench_float_paths.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_machine_invariance import variants  # noqa: E402  (the same variants as the test)

PRIMITIVES = r"""
import hashlib, json, numpy as np
from dlsched.core import numerics as N
rng = np.random.default_rng(0)
x = rng.uniform(-30, 30, 100_003); p = rng.uniform(1e-3, 50, 100_003)
m = rng.normal(size=(64, 64))
ops = {
    "np.exp": lambda: np.exp(x), "np.log": lambda: np.log(p), "np.power": lambda: np.power(1.7, x / 10),
    "np.expm1": lambda: np.expm1(x / 30), "np.log1p": lambda: np.log1p(p), "np.tanh": lambda: np.tanh(x),
    "np.sum": lambda: np.sum(x), "np.cumsum": lambda: np.cumsum(x), "np.sqrt": lambda: np.sqrt(p),
    "x @ p (ddot)": lambda: x @ p, "m @ m (dgemm)": lambda: m @ m,
    "numerics.exp": lambda: N.exp(x), "numerics.log": lambda: N.log(p),
    "numerics.power": lambda: N.power(1.7, x / 10), "numerics.dot": lambda: N.dot(x, p),
}
out = {k: hashlib.sha256(np.ascontiguousarray(f()).tobytes()).hexdigest()[:16] for k, f in ops.items()}
print(json.dumps(out))
"""


def part1() -> None:
    runs = {}
    for label, extra in variants().items():
        env = {k: v for k, v in os.environ.items() if k != "NPY_DISABLE_CPU_FEATURES"} | extra
        proc = subprocess.run([sys.executable, "-c", PRIMITIVES], env=env, capture_output=True, text=True,
                              check=True)
        runs[label] = json.loads(proc.stdout)
    native = runs["native"]
    print(f"variants: {', '.join(runs)}")
    print(f"{'primitive':<16} differs from the native run under")
    for k in native:
        diff = [label for label, r in runs.items() if r[k] != native[k]]
        print(f"{k:<16} {', '.join(diff) if diff else '-- (same bits everywhere)'}")


def part2() -> None:
    from dlsched.core import numerics as N

    rng = np.random.default_rng(1)
    x = rng.uniform(-30, 30, 1_000_000)
    p = rng.uniform(1e-3, 50, 1_000_000)

    def best(f, n=3):
        t = []
        for _ in range(n):
            s = time.perf_counter()
            f()
            t.append(time.perf_counter() - s)
        return min(t) * 1e9 / x.size

    print(f"\n{'operation':<28} ns per element (10^6 floats)")
    for name, f in [
        ("np.exp", lambda: np.exp(x)), ("numerics.exp", lambda: N.exp(x)),
        ("np.log", lambda: np.log(p)), ("numerics.log", lambda: N.log(p)),
        ("np.power(1.7, x)", lambda: np.power(1.7, x)), ("numerics.power(1.7, x)", lambda: N.power(1.7, x)),
        ("x @ p", lambda: x @ p), ("numerics.dot(x, p)", lambda: N.dot(x, p)),
    ]:
        print(f"{name:<28} {best(f):8.2f}")


if __name__ == "__main__":
    part1()
    part2()

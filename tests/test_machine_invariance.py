"""Same schedules on every x86-64 machine (issue 19).

Runs ``tests/_invariance_probe.py`` -- every wing's policies and baselines on small workloads and
one sweep point of each figures notebook -- in fresh subprocesses under

* every numpy dispatch level this CPU has (``NPY_DISABLE_CPU_FEATURES`` switching off the
  dispatch targets above it: e.g. on an AVX-512 machine the AVX512_ICL, X86_V4 (AVX-512) and
  X86_V3 (AVX2) loops in turn, down to the baseline),
* every OpenBLAS core type below the machine's own (``OPENBLAS_CORETYPE``: Haswell, Sandybridge,
  Prescott on an AVX-512 machine; checked with threadpoolctl that the kernel really changed),
* 1 and 4 BLAS threads (``OPENBLAS_NUM_THREADS``),

and requires the same fingerprint (sha256 of the per-job table and the run records) for every
case. Before the fix this failed: with the AVX-512 loops disabled the OASiS runs (``oasis``,
``rrh``, ``drf`` on the OASiS workload) differed, because ``np.exp``'s AVX-512 loop rounds
differently in the last bit (see :mod:`dlsched.core.numerics`).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

PROBE = Path(__file__).with_name("_invariance_probe.py")

# x86-64 OpenBLAS core types from oldest to newest kernel family; Zen runs Haswell-class kernels.
CORETYPES = ["Prescott", "Core2", "Nehalem", "Sandybridge", "Haswell", "SkylakeX", "Cooperlake",
             "SapphireRapids"]
RANK = {name.lower(): i for i, name in enumerate(CORETYPES)} | {"zen": CORETYPES.index("Haswell")}
ALIASES = {"prescott": {"prescott", "katmai"}}  # OpenBLAS names its Prescott kernel "Katmai"
BELOW = ["Haswell", "Sandybridge", "Prescott"]  # the kernels an AVX2 / AVX / SSE3 machine gets

pytestmark = pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86-64 only")


def _run(extra_env: dict[str, str]) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NPY_DISABLE_CPU_FEATURES",)}
    env.update(extra_env)
    proc = subprocess.run(
        [sys.executable, str(PROBE), "--runtime"], env=env, capture_output=True, text=True, timeout=600
    )
    if proc.returncode != 0:
        raise AssertionError(f"probe failed under {extra_env}:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


def _native_runtime() -> dict:
    """Dispatch targets and BLAS kernel of a fresh interpreter without NPY_DISABLE_CPU_FEATURES
    (the CPU's own, even when this process runs with some disabled)."""
    code = (
        "import json, numpy; from numpy._core._multiarray_umath import __cpu_dispatch__ as d, "
        "__cpu_features__ as f; from threadpoolctl import threadpool_info as t; "
        "b = [i for i in t() if i.get('user_api') == 'blas']; "
        "print(json.dumps({'dispatch': [x for x in d if f.get(x)], "
        "'arch': (b[0].get('architecture') or '') if b else '', "
        "'openblas': bool(b) and b[0].get('internal_api') == 'openblas'}))"
    )
    env = {k: v for k, v in os.environ.items() if k != "NPY_DISABLE_CPU_FEATURES"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def variants() -> dict[str, dict[str, str]]:
    """Environment of every variant, by label (the native run is ``native``)."""
    rt = _native_runtime()
    out: dict[str, dict[str, str]] = {"native": {}}
    found = rt["dispatch"]
    for i in range(len(found)):
        below = found[i - 1] if i else "baseline"
        out[f"dispatch<={below}"] = {"NPY_DISABLE_CPU_FEATURES": " ".join(found[i:])}
    if rt["openblas"]:
        own = RANK.get(rt["arch"].lower(), len(CORETYPES))
        for core in BELOW:
            if RANK[core.lower()] < own:
                out[f"openblas={core}"] = {"OPENBLAS_CORETYPE": core}
        for n in ("1", "4"):
            out[f"blas_threads={n}"] = {"OPENBLAS_NUM_THREADS": n}
    return out


@pytest.fixture(scope="module")
def fingerprints() -> dict[str, dict]:
    vs = variants()
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(zip(vs, pool.map(_run, vs.values()), strict=True))
    return results


def test_variants_cover_the_machine(fingerprints):
    """The variants really ran where they say: the dispatch and the BLAS kernel changed."""
    native = fingerprints["native"]["_runtime"]
    for label, fp in fingerprints.items():
        rt = fp["_runtime"]
        if label.startswith("dispatch<="):
            below = label.split("<=")[1]
            expect = [] if below == "baseline" else native["dispatch"][: native["dispatch"].index(below) + 1]
            assert rt["dispatch"] == expect, (label, rt)
        if label.startswith("openblas="):
            want = label.split("=")[1].lower()
            assert all(arch.lower() in ALIASES.get(want, {want}) for arch, _ in rt["blas"]), (label, rt)
        if label.startswith("blas_threads="):
            # OpenBLAS caps its threads at the cores it sees (4 -> 2 on a 2-core machine)
            want = min(int(label.split("=")[1]), os.cpu_count() or 1)
            assert all(n == want for _, n in rt["blas"]), (label, rt)
    assert len(fingerprints["native"]) > 30  # every wing's cases ran


def test_same_schedules_under_every_float_path(fingerprints):
    """Identical per-job tables and run records under every dispatch level / kernel / thread count."""
    native = {k: v for k, v in fingerprints["native"].items() if not k.startswith("_")}
    bad = {}
    for label, fp in fingerprints.items():
        diff = sorted(k for k in native if fp.get(k) != native[k])
        if diff:
            bad[label] = diff
    assert not bad, f"schedules differ from the native run: {bad}"

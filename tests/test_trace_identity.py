"""Issue 23, same results: every scheduler on the first Philly jobs gives exactly the schedule of
the code before the trace-scale speed-ups (job table, allocation intervals, decision count, end
slot; digests in ``tests/data/trace_identity.json`` written by that code, see
``tests/_trace_identity.py``). The papers' own workloads are covered by the results store's audit.
"""

from __future__ import annotations

import json
from pathlib import Path

import _trace_identity as ti
import pytest

REFERENCE = json.loads((Path(__file__).parent / "data" / "trace_identity.json").read_text())


def test_every_case_has_a_reference():
    assert sorted(REFERENCE) == sorted(ti.case_name(*c) for c in ti.CASES)


@pytest.mark.parametrize("case", ti.CASES, ids=[ti.case_name(*c) for c in ti.CASES])
def test_schedule_is_bit_identical_to_the_code_before_the_speed_ups(case):
    assert ti.run_case(*case) == REFERENCE[ti.case_name(*case)]


def test_digest_sees_the_last_bit():
    import numpy as np
    import pandas as pd

    a = pd.DataFrame({"x": [1.0, 2.0], "s": ["a", "b"]})
    b = a.assign(x=[1.0, np.nextafter(2.0, 3.0)])
    assert ti.frame_digest(a) == ti.frame_digest(a.copy())
    assert ti.frame_digest(a) != ti.frame_digest(b)
    assert ti.frame_digest(a) != ti.frame_digest(a.assign(s=["a", "c"]))

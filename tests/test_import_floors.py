"""The import floors of :mod:`dlsched`: every module imports alone, and imports only run downwards.

Floors, bottom up: ``dlsched.core`` (imports nothing else of dlsched); the wings (one paper each,
plus the shared baselines), which import core and shared helpers (``traces``, ``plotting``,
``explore``); on top ``registry``, ``experiments``, ``cli``; the arena (``dlsched.arena``) is a
cross-paper layer above the registry. The graph is read from the source with :mod:`ast` (every
``import`` / ``from ... import`` naming dlsched, at module level, in functions or under
``TYPE_CHECKING``), so a lazy import inside a function counts as much as a top-level one.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "dlsched"
WINGS = ("oasis", "optimus", "pdors", "aonline", "specon", "baselines")
TOP = ("registry", "arena", "experiments", "cli")

# Wing -> other-wing edges that exist on purpose (module -> imported module).
ALLOWED_WING_EDGES = {
    # OASiS's fixed-worker baselines reuse FIFO's worker-count helpers (check_count, fixed_workers)
    ("dlsched.oasis.baselines", "dlsched.baselines.fifo"),
    # SpeCon's Fig. 2 migration-overhead engine places its one-container jobs with FIFO
    ("dlsched.specon.model", "dlsched.baselines.fifo"),
    # SpeCon's containers train on the measured loss curves of the Optimus wing
    ("dlsched.specon.model", "dlsched.optimus.curves"),
}

# Wing -> registry edges that exist on purpose: experiment drivers and checks build policies and
# workloads by name, and PD-ORS's OASiS baseline gets OASiS through the registry (not by import).
ALLOWED_WING_TOP_EDGES = {
    ("dlsched.aonline.checks", "dlsched.registry"),  # instance families built by name
    ("dlsched.aonline.experiments", "dlsched.registry"),  # experiment driver
    ("dlsched.aonline.paper", "dlsched.registry"),  # stored paper-scale experiments (issue 20)
    ("dlsched.oasis.paper", "dlsched.registry"),  # stored paper-scale experiments (issue 20)
    ("dlsched.pdors.paper", "dlsched.registry"),  # stored paper-scale experiments (issue 20)
    ("dlsched.aonline.readings", "dlsched.registry"),  # readings at paper scale (issue 22)
    ("dlsched.pdors.readings", "dlsched.registry"),  # readings at paper scale (issue 22)
    ("dlsched.oasis.checks", "dlsched.registry"),  # loaded_policy builds OASiS by name
    ("dlsched.oasis.experiments", "dlsched.registry"),  # experiment driver
    ("dlsched.optimus.experiments", "dlsched.registry"),  # experiment driver
    ("dlsched.pdors.baselines", "dlsched.registry"),  # OasisSplit: PD-ORS compares against OASiS
    ("dlsched.pdors.checks", "dlsched.registry"),  # checks build policies by name
    ("dlsched.pdors.experiments", "dlsched.registry"),  # experiment driver
    ("dlsched.specon.experiments", "dlsched.registry"),  # experiment driver
    ("dlsched.specon.testbed", "dlsched.registry"),  # testbed replay builds k8s_default and SpeCon
}


def _modules() -> dict[str, Path]:
    out = {}
    for f in sorted(PACKAGE.rglob("*.py")):
        parts = list(f.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = f
    return out


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """dlsched modules ``name`` imports (a ``from pkg import mod`` counts as ``pkg.mod``)."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "dlsched")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.split(".")[0] != "dlsched":
                continue
            for a in node.names:
                sub = f"{module}.{a.name}"
                out.add(sub if sub in MODULES else module)
    return {m for m in out if m in MODULES and m != name}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _floor(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        found.append(sorted(comp))
    return found


def test_the_graph_sees_the_package():
    assert {"dlsched.registry", "dlsched.core.jobs", "dlsched.arena.mapping"} <= set(MODULES)
    assert "dlsched.core.jobs" in GRAPH["dlsched.core.schedule"]  # TYPE_CHECKING imports count
    assert "dlsched.registry" in GRAPH["dlsched.pdors.baselines"]  # function-level imports count


def test_no_import_cycle():
    assert _cycles(GRAPH) == []


def test_core_imports_only_core():
    bad = sorted(
        (m, i) for m, deps in GRAPH.items() if _floor(m) == "core" for i in deps if _floor(i) != "core"
    )
    assert bad == []


def test_wings_import_no_other_wing_and_nothing_above_them():
    other_wing, upward = [], []
    for m, deps in GRAPH.items():
        if _floor(m) not in WINGS:
            continue
        for i in deps:
            f = _floor(i)
            if f in WINGS and f != _floor(m) and (m, i) not in ALLOWED_WING_EDGES:
                other_wing.append((m, i))
            if f in TOP and (m, i) not in ALLOWED_WING_TOP_EDGES:
                upward.append((m, i))
    assert other_wing == []
    assert upward == []
    edges = {(m, i) for m, deps in GRAPH.items() for i in deps}
    # the allow-lists name edges that exist (remove an entry when its import goes away)
    assert ALLOWED_WING_EDGES <= edges and ALLOWED_WING_TOP_EDGES <= edges


def test_registry_does_not_import_the_arena():
    assert sorted(i for i in GRAPH["dlsched.registry"] if _floor(i) == "arena") == []


def test_placement_lives_below_jobs_and_schedule():
    from dlsched.core import jobs, schedule, tasks

    assert schedule.Placement is tasks.Placement and schedule.EMPTY is tasks.EMPTY
    assert jobs.JobSpec.__module__ == "dlsched.core.jobs"
    assert GRAPH["dlsched.core.tasks"] == set()


_IMPORT_EACH = """
import importlib, sys, traceback
bad = []
for name in sys.argv[1:]:
    for m in [m for m in sys.modules if m == "dlsched" or m.startswith("dlsched.")]:
        del sys.modules[m]
    try:
        importlib.import_module(name)
    except Exception:
        bad.append(name + ": " + traceback.format_exc().strip().splitlines()[-1])
print("\\n".join(bad))
sys.exit(1 if bad else 0)
"""


@pytest.mark.parametrize("half", [0, 1])
def test_every_module_imports_alone(half):
    names = [m for m in MODULES if not m.endswith("__main__")][half::2]
    proc = subprocess.run(
        [sys.executable, "-c", _IMPORT_EACH, *names], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr

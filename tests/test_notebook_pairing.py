"""Check that every notebook and its jupytext ``py:percent`` script are committed in sync.

Each ``notebooks/<stem>.ipynb`` is paired (jupytext.toml) with ``notebooks/<stem>.py``. Reviewers
read the script; nbval and papermill run the notebook; so the two must hold the same cells. The
comparison ignores outputs and metadata: both sides are normalised by one jupytext
``writes``/``reads`` round trip through ``py:percent`` and then compared cell by cell (type and
source). Each notebook must also have exactly one cell tagged ``parameters`` (papermill).
Fix a mismatch with ``jupytext --sync notebooks/<stem>.ipynb``.
"""

from __future__ import annotations

from pathlib import Path

import jupytext
import nbformat
import pytest
from jupytext.formats import guess_format

REPO_ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = REPO_ROOT / "notebooks"
PAIRED_FORMAT = "py:percent"


def _notebook_stems() -> list[str]:
    return sorted(p.stem for p in NOTEBOOK_DIR.glob("*.ipynb"))


def normalized_cells(nb: nbformat.NotebookNode) -> list[tuple[str, str]]:
    """Return the (cell_type, source) pairs of a notebook after a py:percent round trip.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        A notebook, read from either side of the pair.

    Returns
    -------
    list[tuple[str, str]]
        One ``(cell_type, source)`` pair per cell; outputs and metadata are dropped.
    """
    text = jupytext.writes(nb, fmt=PAIRED_FORMAT)
    round_tripped = jupytext.reads(text, fmt=PAIRED_FORMAT)
    return [(cell.cell_type, cell.source) for cell in round_tripped.cells]


def pairing_differences(
    notebook: nbformat.NotebookNode, script: nbformat.NotebookNode
) -> list[str]:
    """Describe how a notebook and its paired script differ (ignoring outputs and metadata).

    Parameters
    ----------
    notebook : nbformat.NotebookNode
        The notebook read from the ``.ipynb`` file.
    script : nbformat.NotebookNode
        The notebook read from the paired ``.py`` (py:percent) file.

    Returns
    -------
    list[str]
        Human-readable differences; empty when the two agree.
    """
    left = normalized_cells(notebook)
    right = normalized_cells(script)
    problems = []
    if len(left) != len(right):
        problems.append(f"cell count differs: ipynb has {len(left)}, py has {len(right)}")
    for index, (a, b) in enumerate(zip(left, right, strict=False)):
        if a[0] != b[0]:
            problems.append(f"cell {index}: type {a[0]!r} in ipynb vs {b[0]!r} in py")
        elif a[1] != b[1]:
            problems.append(f"cell {index}: source differs:\n--- ipynb\n{a[1]}\n--- py\n{b[1]}")
    return problems


def parameters_cells(nb: nbformat.NotebookNode) -> list[int]:
    """Return the indices of the cells tagged ``parameters``.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        A notebook.

    Returns
    -------
    list[int]
        Indices of the cells whose metadata ``tags`` contain ``"parameters"``.
    """
    return [
        i for i, c in enumerate(nb.cells) if "parameters" in c.get("metadata", {}).get("tags", [])
    ]


_STEMS = _notebook_stems()
_NO_NOTEBOOKS = pytest.mark.skip(reason="no notebooks/*.ipynb in the repository yet")
_PARAMS = _STEMS or [pytest.param(None, marks=_NO_NOTEBOOKS, id="no-notebooks")]


def test_every_notebook_has_a_script_and_vice_versa(repo_root: Path) -> None:
    notebook_dir = repo_root / "notebooks"
    notebooks = {p.stem for p in notebook_dir.glob("*.ipynb")}
    scripts = {p.stem for p in notebook_dir.glob("*.py")}
    if not notebooks and not scripts:
        pytest.skip("no notebooks/*.ipynb or notebooks/*.py in the repository yet")
    assert not notebooks - scripts, f"notebooks without a paired .py: {sorted(notebooks - scripts)}"
    assert not scripts - notebooks, f".py scripts without a notebook: {sorted(scripts - notebooks)}"


@pytest.mark.parametrize("stem", _PARAMS)
def test_notebook_matches_paired_script(repo_root: Path, stem: str) -> None:
    ipynb = repo_root / "notebooks" / f"{stem}.ipynb"
    script = repo_root / "notebooks" / f"{stem}.py"
    if not script.exists():
        pytest.fail(f"{ipynb.name} has no paired {script.name} (run: jupytext --sync {ipynb})")
    notebook = jupytext.read(ipynb)
    nbformat.validate(notebook)
    text = script.read_text(encoding="utf-8")
    fmt_name, _ = guess_format(text, ".py")
    assert fmt_name == "percent", f"{script.name} is in jupytext format {fmt_name!r}, not percent"
    differences = pairing_differences(notebook, jupytext.reads(text, fmt=PAIRED_FORMAT))
    assert not differences, (
        f"{ipynb.name} and {script.name} disagree (run: jupytext --sync {ipynb}):\n"
        + "\n".join(differences)
    )


@pytest.mark.parametrize("stem", _PARAMS)
def test_notebook_has_one_parameters_cell(repo_root: Path, stem: str) -> None:
    ipynb = repo_root / "notebooks" / f"{stem}.ipynb"
    notebook = jupytext.read(ipynb)
    tagged = parameters_cells(notebook)
    assert len(tagged) == 1, f"{ipynb.name}: {len(tagged)} cells tagged 'parameters' ({tagged})"
    assert notebook.cells[tagged[0]].cell_type == "code", f"{ipynb.name}: parameters cell not code"
    script = ipynb.with_suffix(".py")
    if script.exists():
        in_script = parameters_cells(jupytext.read(script, fmt=PAIRED_FORMAT))
        assert len(in_script) == 1, f"{script.name}: {len(in_script)} cells tagged 'parameters'"


# ----------------------------------------------------------------------------- self-tests


def _sample_notebook(code: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Title\nWhat this notebook shows."),
        nbformat.v4.new_code_cell('mode = "quick"\nseed = 0', metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell(code),
    ]
    nb.cells[2].outputs = [nbformat.v4.new_output("stream", name="stdout", text="3\n")]
    nb.cells[2].execution_count = 1
    return nb


def test_pairing_check_accepts_agreeing_pair() -> None:
    notebook = _sample_notebook("x = 1 + 2\nprint(x)")
    script = jupytext.reads(jupytext.writes(notebook, fmt=PAIRED_FORMAT), fmt=PAIRED_FORMAT)
    assert guess_format(jupytext.writes(notebook, fmt=PAIRED_FORMAT), ".py")[0] == "percent"
    assert script.cells[2].outputs == []  # outputs differ, and are ignored
    assert pairing_differences(notebook, script) == []
    assert parameters_cells(notebook) == parameters_cells(script) == [1]


def test_pairing_check_rejects_edited_script() -> None:
    notebook = _sample_notebook("x = 1 + 2\nprint(x)")
    text = jupytext.writes(notebook, fmt=PAIRED_FORMAT).replace("x = 1 + 2", "x = 1 + 3")
    differences = pairing_differences(notebook, jupytext.reads(text, fmt=PAIRED_FORMAT))
    assert len(differences) == 1 and differences[0].startswith("cell 2: source differs")


def test_pairing_check_rejects_missing_and_retyped_cells() -> None:
    notebook = _sample_notebook("print(1)")
    shorter = _sample_notebook("print(1)")
    shorter.cells.pop()
    assert any("cell count differs" in d for d in pairing_differences(notebook, shorter))
    retyped = _sample_notebook("print(1)")
    retyped.cells[2] = nbformat.v4.new_markdown_cell("print(1)")
    assert any(
        "type 'code' in ipynb vs 'markdown'" in d for d in pairing_differences(notebook, retyped)
    )

"""Which reading restores the claim: alternative readings of a paper, side by side, with ceilings.

Each figures notebook (12, 22, 32, 42, 52) ends with a section *Which reading restores the
claim*. For every claim its scorecard does not reproduce (or reproduces only partly) it runs, at
paper scale and through the results store, the spec's default reading and each plausible
alternative reading -- every one a named, documented parameter of the wing -- and, where the
model allows, the *ceiling*: the best any scheduler can do under our model on the same jobs. A
paper number beyond the ceiling is unreachable by any reading of the scheduler.

This module holds only the shape of that table and its bookkeeping; the wings build the rows
(``dlsched/<wing>/readings.py``) from their own results.

One row per (claim, reading):

==========  ==============================================================================
column      meaning
==========  ==============================================================================
figure      the paper's figure / table (``"Fig. 3"``), as in the scorecard
quantity    the claim, exactly as the scorecard's ``quantity`` (so the two join)
paper       the paper's number or statement (quoted)
reading     ``"default"`` (the spec's reading), an alternative's name, or ``"ceiling"``
parameter   the wing parameter and value that selects the reading (``"L_rule='median'"``)
source      the spec / paper line the reading reinterprets
fixed       ``"before"`` (the reading was chosen before its result was seen) or ``"after"``
            (post hoc: shown, but never counted as restoring a claim)
ours        our number under that reading (a short string; computed, never typed)
holds       whether the claim holds under that reading (bool; for the ceiling row: whether
            the paper's number is within the ceiling)
verdict     computed by :func:`verdict`
==========  ==============================================================================

:func:`save_readings` writes the table of a paper-mode run to
``data/scorecards/readings/<notebook>.csv``; :func:`readings_summary` counts, per notebook, the
not-or-partly reproduced claims that a reading fixed beforehand restores and those whose paper
number is beyond the model's ceiling -- the fidelity table's last two columns.
"""

from __future__ import annotations

import dataclasses
import io
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "COLUMNS",
    "FIXED",
    "PointList",
    "ReadingBase",
    "check_inputs",
    "check_point",
    "claim_row",
    "mode_axes",
    "int_param",
    "default_folder",
    "load_readings",
    "readings_summary",
    "readings_table",
    "scorecards_folder",
    "write_csv_if_changed",
    "save_readings",
    "verdict",
]

#: Columns of a readings table, in order.
COLUMNS = (
    "figure", "quantity", "paper", "reading", "parameter", "source", "fixed", "ours", "holds", "verdict",
)  # fmt: skip
#: Values of ``fixed``.
FIXED = ("before", "after")


def verdict(reading: str, holds: bool, fixed: str, default_holds: bool = False) -> str:
    """The verdict of one row.

    ``default``: ``"reproduces"`` / ``"does not reproduce"``; an alternative, when the default
    does not reproduce the claim: ``"restores the claim"`` / ``"does not restore"``
    (``"restores (post hoc)"`` when chosen after its result); when the default reproduces it:
    ``"also holds"`` / ``"breaks the claim"``; ``ceiling``: ``"within the ceiling"`` /
    ``"beyond the model's ceiling"``.
    """
    if reading == "default":
        return "reproduces" if holds else "does not reproduce"
    if reading == "ceiling":
        return "within the ceiling" if holds else "beyond the model's ceiling"
    if default_holds:
        return "also holds" if holds else "breaks the claim"
    if not holds:
        return "does not restore"
    return "restores the claim" if fixed == "before" else "restores (post hoc)"


def readings_table(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """Validate rows (dicts with the :data:`COLUMNS` but ``verdict``) and add the verdicts.

    Raises
    ------
    ValueError
        Naming the row and the missing column, a ``fixed`` outside :data:`FIXED`, a non-bool
        ``holds``, or a claim without a ``default`` row.
    """
    out = []
    for i, row in enumerate(rows):
        missing = [c for c in COLUMNS if c != "verdict" and c not in row]
        if missing:
            raise ValueError(f"readings_table: row {i} ({row.get('quantity')!r}) lacks {missing}")
        if row["fixed"] not in FIXED:
            raise ValueError(f"readings_table: row {i}: fixed must be one of {FIXED}, got {row['fixed']!r}")
        if not isinstance(row["holds"], bool):
            raise ValueError(f"readings_table: row {i}: holds must be a bool, got {row['holds']!r}")
        r = {c: row[c] for c in COLUMNS if c != "verdict"}
        r["ours"] = str(r["ours"])
        out.append(r)
    table = pd.DataFrame(out, columns=[c for c in COLUMNS if c != "verdict"])
    default_holds = {}
    for (fig, q), part in table.groupby(["figure", "quantity"], sort=False):
        if "default" not in set(part["reading"]):
            raise ValueError(f"readings_table: claim {fig} {q!r} has no 'default' row")
        default_holds[(fig, q)] = bool(part.loc[part["reading"] == "default", "holds"].all())
    table["verdict"] = [
        verdict(str(r.reading), bool(r.holds), str(r.fixed), default_holds[(r.figure, r.quantity)])
        for r in table.itertuples(index=False)
    ]
    return table


REPO = Path(__file__).resolve().parent.parent
#: Environment variable naming another folder for the scorecards (tests, installed copies).
SCORECARD_ENV = "DLSCHED_SCORECARD_DIR"


def scorecards_folder() -> Path:
    """``$DLSCHED_SCORECARD_DIR`` if set, else ``data/scorecards`` of the repository (the
    scorecards of :mod:`dlsched.fidelity`; this module's tables go in its ``readings/``)."""
    env = os.environ.get(SCORECARD_ENV)
    return Path(env) if env else REPO / "data" / "scorecards"


def default_folder() -> Path:
    """``readings/`` under :func:`scorecards_folder`."""
    return scorecards_folder() / "readings"


def _csv_bytes(frame: pd.DataFrame) -> bytes:
    buf = io.StringIO()
    frame.to_csv(buf, index=False, lineterminator="\n")
    return buf.getvalue().encode("utf-8")


def write_csv_if_changed(frame: pd.DataFrame, folder: Path, stem: str) -> Path:
    """Write ``frame`` as ``<folder>/<stem>.csv`` (no index, ``\\n`` line ends) through a temporary
    file and :func:`os.replace`, only if the content differs from the file's; return the file."""
    folder.mkdir(parents=True, exist_ok=True)
    file = folder / f"{stem}.csv"
    data = _csv_bytes(frame)
    if file.is_file() and file.read_bytes() == data:
        return file
    tmp = file.with_name(f".{file.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, file)
    finally:
        tmp.unlink(missing_ok=True)
    return file


def save_readings(table: pd.DataFrame, notebook: str, *, mode: str,
                  folder: str | os.PathLike[str] | None = None) -> Path | None:  # fmt: skip
    """Save a paper-mode readings table as ``<folder>/<notebook>.csv`` (rewritten only if it
    changed; nothing in quick mode). Returns the file or None."""
    if not isinstance(table, pd.DataFrame) or list(table.columns) != list(COLUMNS):
        raise ValueError(f"save_readings: table must be a readings_table(...) frame with columns {COLUMNS}")
    if not isinstance(notebook, str) or not notebook or "/" in notebook:
        raise ValueError(f"save_readings: notebook must be a notebook stem, got {notebook!r}")
    if mode not in ("paper", "full"):
        return None
    target = Path(folder) if folder is not None else default_folder()
    return write_csv_if_changed(table.astype(str), target, notebook)


def load_readings(folder: str | os.PathLike[str] | None = None) -> pd.DataFrame:
    """Every saved readings table, with a leading ``notebook`` column (empty if none)."""
    target = Path(folder) if folder is not None else default_folder()
    frames = []
    for f in sorted(target.glob("*.csv")) if target.is_dir() else []:
        df = pd.read_csv(f, dtype=str, keep_default_na=False)
        df["holds"] = df["holds"] == "True"
        df.insert(0, "notebook", f.stem)
        frames.append(df)
    if not frames:
        return pd.DataFrame(columns=["notebook", *COLUMNS])
    return pd.concat(frames, ignore_index=True)


def readings_summary(readings: pd.DataFrame, scorecards: pd.DataFrame) -> pd.DataFrame:
    """Per notebook: ``tested`` (not/partly reproduced claims with a readings row),
    ``restored`` (of those, claims that a reading fixed beforehand restores) and ``beyond_ceiling``
    (claims whose paper number is beyond the model's ceiling).

    ``scorecards`` is :func:`dlsched.fidelity.load_scorecards`; rows join on notebook, figure
    and quantity. Notebooks without a readings table are absent.
    """
    rows = []
    failed = scorecards[scorecards["match"].isin(["partly", "no"])]
    for nb, part in readings.groupby("notebook", sort=False):
        claims = failed[failed["notebook"] == nb][["figure", "quantity"]]
        keys = set(map(tuple, claims.to_numpy()))
        tested = restored = beyond = 0
        for (fig, q), rows_q in part.groupby(["figure", "quantity"], sort=False):
            if (fig, q) not in keys:
                continue
            tested += 1
            alt = rows_q[~rows_q["reading"].isin(["default", "ceiling"])]
            restored += bool(((alt["fixed"] == "before") & alt["holds"]).any())
            ceil = rows_q[rows_q["reading"] == "ceiling"]
            beyond += bool((~ceil["holds"]).any())
        rows.append({"notebook": nb, "tested": tested, "restored": restored, "beyond_ceiling": beyond})
    return pd.DataFrame(rows, columns=["notebook", "tested", "restored", "beyond_ceiling"])


def check_inputs(frame: pd.DataFrame, scorecard: pd.DataFrame, columns: Iterable[str],
                 readings: Iterable[str], *, hint: str = "") -> list[str]:
    """Validate the inputs of a wing's ``readings_rows`` and return the readings present.

    ``frame`` (the readings' runs) must be a DataFrame with every name of ``columns``;
    ``scorecard`` (the notebook's) a DataFrame with ``figure``, ``quantity`` and ``paper``.
    Returns the names of ``readings`` that occur in ``frame["reading"]``, in the order of
    ``readings``; ``"default"`` must be one of them (``hint`` is appended to that message).

    Raises
    ------
    TypeError
        If ``frame`` or ``scorecard`` is not a DataFrame.
    ValueError
        Naming the missing columns, or the missing default reading.
    """
    for what, df in (("frame", frame), ("scorecard", scorecard)):
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"readings_rows: {what} must be a DataFrame, got {type(df).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"readings_rows: frame lacks columns {missing} (a sweep of reading_run?)")
    missing = [c for c in ("figure", "quantity", "paper") if c not in scorecard.columns]
    if missing:
        raise ValueError(f"readings_rows: scorecard lacks columns {missing}")
    seen = set(frame["reading"])
    present = [n for n in readings if n in seen]
    if "default" not in present:
        raise ValueError(f"readings_rows: the frame has no run of the 'default' reading{hint}")
    return present


# ------------------------------------------------------------- what every wing's readings share


@dataclasses.dataclass(frozen=True)
class ReadingBase:
    """What every wing's ``Reading`` has: the fields of a readings-table row that name it.

    Attributes
    ----------
    name : str
        The table's ``reading``.
    parameter : str
        The parameters as a reader would type them (the table's ``parameter``).
    source : str
        The spec / paper line(s) it reinterprets (the table's ``source``).
    """

    name: str
    parameter: str
    source: str


def int_param(params: Mapping[str, Any], key: str, lo: int, where: str = "reading_run") -> int:
    """``params[key]`` as an int >= ``lo`` (numpy ints accepted, bools not); a ValueError naming
    ``where``, the key and the value otherwise."""
    v = params.get(key)
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < lo:
        raise ValueError(f"{where}: {key} must be an integer >= {lo}, got {v!r}")
    return int(v)


def check_point(params: Mapping[str, Any], known: Iterable[str], readings: Iterable[str],
                experiments: Sequence[str], *, ceiling: str = "ceiling",
                ceiling_experiments: str = "") -> tuple[str, str]:
    """Validate the common fields of a wing's ``reading_run`` point: a mapping with only
    ``known`` keys, ``reading`` one of ``readings`` or ``ceiling``, ``experiment`` one of
    ``experiments``, and ``"job"`` exactly for a reading (the ceiling runs the other
    experiments, named by ``ceiling_experiments`` in the message). Returns ``(reading,
    experiment)``; a ValueError naming the field and the value otherwise."""
    if not isinstance(params, Mapping):
        raise ValueError(f"reading_run: params must be a dict, got {type(params).__name__}")
    known = list(known)
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise ValueError(f"reading_run: unknown parameter(s) {unknown}; known: {known}")
    names = list(readings)
    name = params.get("reading")
    if name != ceiling and name not in names:
        raise ValueError(f"reading_run: reading must be {ceiling!r} or one of {names}, got {name!r}")
    exp = params.get("experiment")
    if exp not in experiments:
        raise ValueError(f"reading_run: experiment must be one of {experiments}, got {exp!r}")
    if (exp == "job") == (name == ceiling):
        raise ValueError(
            f"reading_run: experiment {exp!r} does not go with reading {name!r} "
            f"('job' for a reading, {ceiling_experiments} for the ceiling)"
        )
    return name, exp


def claim_row(base: Mapping[str, Any], reading: str, parameter: str, source: str, fixed: str,
              ours: str, holds: bool) -> dict[str, Any]:
    """One row of :func:`readings_table`: ``base`` (figure, quantity, paper) and the reading's."""
    return {**base, "reading": reading, "parameter": parameter, "source": source, "fixed": fixed,
            "ours": ours, "holds": bool(holds)}


class PointList:
    """The points of a readings grid in the order first added, each once (two figures that share
    a point run it once): ``add(point)``, then ``points``. Points are dicts; ``keys`` are the
    parameters that identify one."""

    def __init__(self, keys: Sequence[str]) -> None:
        self.keys = tuple(keys)
        self.points: list[dict[str, Any]] = []
        self._seen: set[tuple] = set()

    def add(self, point: dict[str, Any]) -> None:
        key = tuple(point[k] for k in self.keys)
        if key not in self._seen:
            self._seen.add(key)
            self.points.append(point)


def mode_axes(axes: Mapping[str, Any], mode: str) -> Any:
    """``axes[mode]``: a wing's grid sizes for ``mode`` (``"paper"``, ``"quick"``); a ValueError
    naming the mode otherwise."""
    if mode not in axes:
        raise ValueError(f"readings_grid: mode must be one of {list(axes)}, got {mode!r}")
    return axes[mode]

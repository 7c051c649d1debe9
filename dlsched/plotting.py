"""One plotting style and one ``savefig`` for every figure of the project.

Every notebook calls :func:`set_style` once and saves each figure through
:func:`savefig`, which enforces the project's figure names
(``fig_<paper>_<nn>_<what>``, e.g. ``fig_oasis_03_utility_vs_load``) and writes
files that are byte-identical from run to run, so that regenerated figures only
show up in ``git diff`` when their content really changed.

Determinism comes from three choices:

* metadata that carries a date or a software version (PNG ``Software``, PDF
  ``Creator``/``Producer``/``CreationDate``/``ModDate``, SVG ``Creator``/``Date``)
  is removed;
* ``svg.hashsalt`` is fixed, so SVG element ids do not depend on a random salt;
* the first sans-serif font is DejaVu Sans, which ships with matplotlib itself,
  so every machine (also a headless CI runner without system fonts) renders
  with the same glyphs and never falls back with a warning.

No backend is forced at import: notebook kernels keep their inline backend and
scripts on a machine without a display get matplotlib's automatic fallback to
Agg. :func:`savefig` renders through the format's own canvas, so it works under
any backend.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path

import matplotlib as mpl
import seaborn as sns
from matplotlib.figure import Figure

__all__ = [
    "FIGURES_DIR_ENV",
    "FIGURE_NAME_PATTERN",
    "PAPER_KEYS",
    "SAVEFIG_DPI",
    "decade_ticks",
    "draw",
    "ecdf",
    "set_style",
    "savefig",
    "stripplot",
    "subplots",
]

#: Paper keys allowed as the ``<paper>`` part of a figure name (``overview``: cross-paper figures).
PAPER_KEYS: tuple[str, ...] = ("oasis", "optimus", "pdors", "aonline", "specon", "arena", "overview")

#: Regular expression every figure name must match: ``fig_<paper>_<nn>_<what>``.
FIGURE_NAME_PATTERN: re.Pattern[str] = re.compile(r"^fig_[a-z0-9]+_[0-9]{2}_[a-z0-9_]+$")

#: Resolution of raster output (PNG), dots per inch.
SAVEFIG_DPI: int = 150

#: Environment variable that, when set, overrides every ``savefig`` call's ``figures_dir``.
FIGURES_DIR_ENV: str = "DLSCHED_FIGURES_DIR"

_SVG_HASHSALT = "dlsched"

# Metadata that would make two saves of the same figure differ (dates, versions).
_METADATA: dict[str, dict[str, None]] = {
    "png": {"Software": None},
    "pdf": {"Creator": None, "Producer": None, "CreationDate": None, "ModDate": None},
    "svg": {"Creator": None, "Date": None},
}

_RC: dict[str, object] = {
    "savefig.dpi": SAVEFIG_DPI,
    "savefig.bbox": "tight",
    "svg.hashsalt": _SVG_HASHSALT,
    "svg.fonttype": "path",
    "pdf.fonttype": 42,  # embed TrueType (editable text in the PDF)
    "ps.fonttype": 42,
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans", "Arial", "Liberation Sans", "Helvetica", "sans-serif"],
}


def set_style() -> None:
    """Apply the project's seaborn theme and deterministic matplotlib settings.

    Sets ``sns.set_theme(context="notebook", style="whitegrid", palette="colorblind")``
    plus rcParams for deterministic, headless-safe output (fixed ``svg.hashsalt``,
    ``savefig.dpi`` = :data:`SAVEFIG_DPI`, tight bounding box, DejaVu Sans first in
    the sans-serif list). Calling it again gives the same state (idempotent). The
    matplotlib backend is left untouched.

    Returns
    -------
    None
    """
    sns.set_theme(context="notebook", style="whitegrid", palette="colorblind", font="sans-serif")
    mpl.rcParams.update(_RC)


def _check_name(name: object) -> str:
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}: {name!r}")
    if not FIGURE_NAME_PATTERN.fullmatch(name):
        raise ValueError(
            f"name={name!r} does not match fig_<paper>_<nn>_<what> "
            f"(pattern {FIGURE_NAME_PATTERN.pattern}), e.g. 'fig_oasis_03_utility_vs_load'"
        )
    paper = name.split("_")[1]
    if paper not in PAPER_KEYS:
        raise ValueError(f"name={name!r} has paper key {paper!r}; expected one of {PAPER_KEYS}")
    return name


def _check_formats(formats: Sequence[str]) -> tuple[str, ...]:
    if isinstance(formats, str):
        formats = (formats,)
    out = tuple(formats)
    if not out:
        raise ValueError("formats is empty; give at least one of " + ", ".join(_METADATA))
    for fmt in out:
        if fmt not in _METADATA:
            raise ValueError(f"formats contains {fmt!r}; supported: {tuple(_METADATA)}")
    if len(set(out)) != len(out):
        raise ValueError(f"formats={out!r} contains duplicates")
    return out


def savefig(
    fig: Figure,
    name: str,
    figures_dir: str | os.PathLike[str] = "figures",
    *,
    formats: Sequence[str] = ("png", "pdf"),
) -> list[Path]:
    """Save ``fig`` as ``<figures_dir>/<name>.<fmt>`` for each format, deterministically.

    The same figure gives byte-identical files on every run (date and version
    metadata removed, fixed SVG hash salt). Every file is first rendered to a
    temporary file in ``figures_dir`` and moved into place with ``os.replace``
    only after all formats rendered, so a failure never leaves a half-written or
    partial set of files. Nothing is printed.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure to save (for a seaborn grid pass ``grid.figure``).
    name : str
        File stem ``fig_<paper>_<nn>_<what>``: ``<paper>`` one of :data:`PAPER_KEYS`,
        ``<nn>`` two digits, ``<what>`` lower-case letters, digits and underscores.
    figures_dir : str or os.PathLike, default "figures"
        Output folder; created if missing. The environment variable
        ``DLSCHED_FIGURES_DIR``, when set and non-empty, takes its place: ``make test`` sets it so
        that checking the notebooks never rewrites the committed figures.
    formats : sequence of str, default ("png", "pdf")
        Any of "png", "pdf", "svg", without duplicates.

    Returns
    -------
    list of pathlib.Path
        The written paths, in the order of ``formats``.

    Raises
    ------
    TypeError
        If ``fig`` is not a matplotlib Figure or ``name`` is not a str.
    ValueError
        If ``name`` does not follow the naming scheme, or ``formats`` is empty,
        has duplicates or an unsupported format. Nothing is written then.
    """
    if not isinstance(fig, Figure):
        raise TypeError(
            f"fig must be a matplotlib.figure.Figure, got {type(fig).__name__} "
            "(for a seaborn grid pass grid.figure)"
        )
    name = _check_name(name)
    fmts = _check_formats(formats)
    folder = Path(os.environ.get(FIGURES_DIR_ENV) or figures_dir)
    folder.mkdir(parents=True, exist_ok=True)

    targets = [folder / f"{name}.{fmt}" for fmt in fmts]
    temps: list[str] = []
    try:
        with mpl.rc_context({"svg.hashsalt": _SVG_HASHSALT}):
            for fmt in fmts:
                fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=f".{fmt}.tmp", dir=folder)
                os.close(fd)
                temps.append(tmp)
                fig.savefig(tmp, format=fmt, metadata=_METADATA[fmt])
                os.chmod(tmp, 0o644)  # mkstemp creates 0600; figures are ordinary files
        for tmp, target in zip(temps, targets, strict=False):
            os.replace(tmp, target)
    finally:
        for tmp in temps:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
    return targets


def decade_ticks(fig: Figure, *, max_decades: float = 2.0, numticks: int = 6) -> Figure:
    """Readable major ticks on every logarithmic x axis of ``fig`` that spans many decades.

    A figure whose panels share a 1-2-5 log locator (e.g. the arena's JCT panels) prints ten
    overlapping labels on a panel spanning 0.1-100 h, and none at all on one spanning 1-1e12 h
    (A_online's unfinished rounds). Each log x axis whose limits span more than ``max_decades``
    decades gets ticks at powers of ten only (at most ``numticks``, at most 4 past six decades;
    matplotlib's :class:`~matplotlib.ticker.LogLocator` skips decades evenly beyond that),
    labelled ``%g``;
    narrower axes keep their ticks. Returns ``fig`` (drawing only: no value changes).
    """
    import math

    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    for ax in fig.axes:
        if ax.get_xscale() != "log":
            continue
        lo, hi = sorted(ax.get_xlim())
        if lo <= 0 or not math.isfinite(hi) or math.log10(hi / lo) <= max_decades:
            continue
        # past six decades the labels ("1e+07") are wide: at most four of them
        n = numticks if math.log10(hi / lo) <= 6 else min(numticks, 4)
        ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0,), numticks=n))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
    return fig


def ecdf(
    data,
    *,
    x: str,
    hue: str | None = None,
    log_scale: bool = False,
    figsize: tuple[float, float] = (6.0, 4.0),
):
    """Empirical CDF of column ``x`` (one line per ``hue`` value) on a new figure.

    A thin wrapper over :func:`seaborn.ecdfplot` so that notebooks draw through ``dlsched`` only.

    Returns
    -------
    matplotlib.axes.Axes
    """
    import matplotlib.pyplot as plt
    import seaborn as sns

    fig, ax = plt.subplots(figsize=figsize)
    sns.ecdfplot(data=data, x=x, hue=hue, log_scale=log_scale, ax=ax)
    return ax


_KINDS = (
    "lineplot",
    "barplot",
    "boxplot",
    "stripplot",
    "scatterplot",
    "heatmap",
    "ecdfplot",
    "histplot",
    "pointplot",
)


def subplots(nrows: int = 1, ncols: int = 1, *, figsize: tuple[float, float] | None = None, **kwargs):
    """``matplotlib.pyplot.subplots`` with the project's default size (for notebooks)."""
    import matplotlib.pyplot as plt

    size = figsize or (6.0 * ncols, 4.0 * nrows)
    return plt.subplots(nrows, ncols, figsize=size, **kwargs)


def draw(kind: str, data=None, *, ax=None, **kwargs):
    """Draw one seaborn plot of ``kind`` (e.g. ``"lineplot"``, ``"barplot"``, ``"heatmap"``) on
    ``ax`` (a new figure if None) and return the Axes, so that notebooks plot through ``dlsched``.

    ``"stripplot"`` goes through :func:`stripplot`, whose jitter is seeded (``seed=``, default 0).

    Raises
    ------
    ValueError
        For a kind not in the supported list.
    """
    import seaborn as sns

    if kind not in _KINDS:
        raise ValueError(f"plot kind must be one of {_KINDS}, got {kind!r}")
    if ax is None:
        _, ax = subplots()
    if kind == "stripplot":
        return stripplot(data, ax=ax, **kwargs)
    fn = getattr(sns, kind)
    if kind == "heatmap":
        return fn(data, ax=ax, **kwargs)
    return fn(data=data, ax=ax, **kwargs)


def stripplot(data=None, *, ax=None, jitter: float | bool = True, seed=0, **kwargs):
    """:func:`seaborn.stripplot` with a *seeded* jitter, so the same data give the same figure.

    seaborn 0.13 jitters the dots with NumPy's global random state, which made our figures differ
    from run to run. Here seaborn draws without jitter and the dots are then moved along the
    categorical axis by ``numpy.random.default_rng(seed).uniform(-j, j)``, with seaborn's own
    half-width ``j`` (0.1 of a category for ``jitter=True``, divided by the number of hue levels
    when ``dodge=True``).

    Parameters
    ----------
    jitter : bool or float, default True
        As in seaborn: False for none, True for 0.1, a float for that half-width.
    seed : int or numpy.random.Generator, default 0
        Source of the jitter.

    Returns
    -------
    matplotlib.axes.Axes
    """
    import numpy as np
    import pandas as pd
    import seaborn as sns

    if ax is None:
        _, ax = subplots()
    if isinstance(jitter, bool):
        half = 0.1 if jitter else 0.0
    else:
        half = float(jitter)
        if not np.isfinite(half) or half < 0:
            raise ValueError(f"jitter must be a bool or a finite number >= 0, got {jitter!r}")
    hue = kwargs.get("hue")
    if kwargs.get("dodge") and hue is not None and isinstance(data, pd.DataFrame) and hue in data:
        half /= max(1, data[hue].nunique())
    before = len(ax.collections)
    sns.stripplot(data=data, ax=ax, jitter=False, **kwargs)
    if half > 0:
        x, y = kwargs.get("x"), kwargs.get("y")
        numeric_x = isinstance(data, pd.DataFrame) and x in data and pd.api.types.is_numeric_dtype(data[x])
        axis = 1 if (numeric_x and y is not None) else 0  # jitter along the categorical axis
        rng = np.random.default_rng(seed)
        for coll in ax.collections[before:]:
            offsets = np.array(coll.get_offsets(), dtype=float)
            if len(offsets) > 1:
                offsets[:, axis] += rng.uniform(-half, half, size=len(offsets))
                coll.set_offsets(offsets)
    return ax

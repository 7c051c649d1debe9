"""Build the static HTML companion site (``make book``) from the executed notebooks.

The site has one page per notebook ``notebooks/NN_<name>.ipynb`` (its code, figures and
paper-vs-ours tables, exactly as executed) and an index page made from the README's figure table:
every figure of ``figures/`` with its description and a link to the notebook that draws it.

Pipeline of :func:`build_book`:

1. :func:`parse_figure_table` reads the README's table ``| figure | what | notebook | command |``
   and :func:`check_figure_rows` checks that each figure file and notebook exists;
2. :func:`select_sources` picks, per notebook, the copy executed by ``make reproduce``
   (``build/reproduce/<stem>.ipynb``) or else the source notebook, whose stored outputs are
   executed outputs too. Nothing is ever executed here, so CI can build the site without running
   ``make reproduce`` first;
3. the chosen notebooks are copied into a staging folder (``build/book-src``) with their Markdown
   links rewritten for the site (:func:`rewrite_markdown_links`): links between notebooks stay
   page links, ``../README.md`` becomes the index page, ``../figures/*`` and other files of the
   repository are copied into the site; the generated ``index.md`` is written next to them
   (:func:`render_index`: one toctree per paper, whose captions group the pages in the navigation
   sidebar, the README's fidelity table if it has one (:func:`extract_fidelity_block`), and the
   figure gallery);
4. Sphinx + MyST-NB (configuration in ``book/conf.py``, which says why this tool) renders the
   staging folder to HTML in a temporary folder. Warnings that mean a broken page (unresolved
   reference, missing image, page outside the table of contents) fail the build, and so does a
   relative ``href``/``src`` of the output that names no file, or a script, stylesheet, font or
   image loaded from the network (:func:`check_site`, which also reads the CSS files). Only then
   does the new site replace ``build/site``, so a failed build leaves the previous site untouched.

Command line: ``python -m dlsched.book [--out build/site] ...`` (``make book`` installs the
``book`` extra first).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote, urlsplit

from dlsched.reproduce import discover_notebooks

__all__ = [
    "FIGURE_TABLE_HEADER",
    "BookError",
    "BookLinkError",
    "FIDELITY_END",
    "FIDELITY_START",
    "FigureRow",
    "FigureTableError",
    "LinkContext",
    "PAPER_CAPTIONS",
    "PageSource",
    "build_book",
    "check_figure_rows",
    "check_site",
    "css_refs",
    "extract_fidelity_block",
    "group_pages",
    "main",
    "parse_figure_table",
    "render_index",
    "rewrite_markdown_links",
    "select_sources",
]

#: Column names of the README's figure table, in order (compared case-insensitively).
FIGURE_TABLE_HEADER: tuple[str, ...] = ("figure", "what", "notebook", "command")

#: Default Sphinx configuration folder: ``book/`` at the repository root.
DEFAULT_CONF_DIR = Path(__file__).resolve().parent.parent / "book"

#: Image formats a figure row may name (a browser must be able to show it on the index page).
IMAGE_SUFFIXES: tuple[str, ...] = (".png", ".svg", ".jpg", ".jpeg", ".gif", ".webp")

#: Sphinx/MyST warnings that mean a broken page; any of them fails the build.
FATAL_WARNINGS = re.compile(
    r"target not found|not readable|nonexisting document|unknown document|Unknown target name"
    r"|local id not found|isn't included in any toctree|undefined label|Exception occurred"
    r"|MathML conversion failed"
)

_MANIFEST_STATUS_OK = "ok"
_WIDGET_STATE_KEY = "widgets"  # notebook metadata holding ipywidgets state (not rendered)


class BookError(RuntimeError):
    """The site could not be built (bad input, broken link, or a Sphinx failure)."""


class FigureTableError(BookError, ValueError):
    """The README's figure table is missing or malformed, or names a file that does not exist."""


class BookLinkError(BookError, ValueError):
    """A Markdown link of a notebook points to nothing the site can hold."""


# ----------------------------------------------------------------------------- README figure table


@dataclass(frozen=True)
class FigureRow:
    """One row of the README's figure table.

    Attributes
    ----------
    line : int
        1-based line number of the row in the README (for error messages).
    figure : str or None
        Repository-relative path of the figure (``figures/fig_....png``), or None for a row
        without a file (e.g. ``(table in the notebook)``).
    description : str
        The ``what`` column (Markdown).
    notebooks : tuple of str
        Stems of the notebooks named in the ``notebook`` column (``"52_specon_figures"``), in order.
    command : str
        The ``command`` column (Markdown, usually a code span).
    """

    line: int
    figure: str | None
    description: str
    notebooks: tuple[str, ...]
    command: str


_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_CODE_SPAN = re.compile(r"`([^`]+)`")
_SEPARATOR_CELL = re.compile(r"^:?-{3,}:?$")


def _table_cells(line: str) -> list[str]:
    """Cells of a Markdown table line ``| a | b |`` (escaped ``\\|`` does not split)."""
    inner = line.strip()
    inner = inner.removeprefix("|")
    if inner.endswith("|") and not inner.endswith("\\|"):
        inner = inner[:-1]
    return [cell.strip() for cell in _CELL_SPLIT.split(inner)]


def parse_figure_table(text: str, source: str = "README.md") -> list[FigureRow]:
    """Parse the figure table of the README.

    The table is the first one whose header row is ``| figure | what | notebook | command |``
    (case-insensitive, any spacing), followed by a ``|---|---|---|---|`` separator; it ends at the
    first line that does not start with ``|``. In each row the ``figure`` cell is a code span with
    the repository-relative path of an image under ``figures/``, or plain text for a row without a
    file; the ``notebook`` cell holds one or more code spans naming ``.ipynb`` files (``notebooks/``
    prefix optional).

    Parameters
    ----------
    text : str
        The README's contents.
    source : str, default "README.md"
        Name used in error messages.

    Returns
    -------
    list of FigureRow
        The rows in README order (at least one).

    Raises
    ------
    FigureTableError
        If no header is found, the separator is missing, a row does not have exactly four cells,
        a figure path is not an image under ``figures/``, the description is empty, the notebook
        cell names no ``.ipynb`` file, or the table has no rows. The message names the line.
    """
    lines = text.splitlines()
    header_at = None
    for index, line in enumerate(lines):
        if line.lstrip().startswith("|"):
            cells = tuple(cell.lower() for cell in _table_cells(line))
            if cells == FIGURE_TABLE_HEADER:
                header_at = index
                break
    if header_at is None:
        raise FigureTableError(
            f"{source}: no figure table found; expected a header line '| {' | '.join(FIGURE_TABLE_HEADER)} |'"
        )
    sep_index = header_at + 1
    sep_cells = _table_cells(lines[sep_index]) if sep_index < len(lines) else []
    if len(sep_cells) != len(FIGURE_TABLE_HEADER) or not all(_SEPARATOR_CELL.match(c) for c in sep_cells):
        raise FigureTableError(
            f"{source} line {sep_index + 1}: expected the separator '|---|---|---|---|' under the "
            f"figure table's header (line {header_at + 1}), got {lines[sep_index] if sep_cells else ''!r}"
        )
    rows: list[FigureRow] = []
    for index in range(sep_index + 1, len(lines)):
        raw = lines[index]
        if not raw.lstrip().startswith("|"):
            break
        rows.append(_parse_row(raw, index + 1, source))
    if not rows:
        raise FigureTableError(f"{source} line {header_at + 1}: the figure table has no rows")
    return rows


def _parse_row(raw: str, lineno: int, source: str) -> FigureRow:
    where = f"{source} line {lineno}"
    cells = _table_cells(raw)
    if len(cells) != len(FIGURE_TABLE_HEADER):
        raise FigureTableError(
            f"{where}: expected {len(FIGURE_TABLE_HEADER)} cells "
            f"({', '.join(FIGURE_TABLE_HEADER)}), got {len(cells)}: {raw!r}"
        )
    figure_cell, description, notebook_cell, command = cells
    figure: str | None = None
    spans = _CODE_SPAN.findall(figure_cell)
    if spans:
        if len(spans) != 1:
            raise FigureTableError(f"{where}: figure={figure_cell!r} names more than one file")
        figure = spans[0].strip()
        path = Path(figure)
        if path.is_absolute() or ".." in path.parts or path.parts[:1] != ("figures",):
            raise FigureTableError(f"{where}: figure={figure!r} is not a path under figures/")
        if path.suffix.lower() not in IMAGE_SUFFIXES:
            raise FigureTableError(
                f"{where}: figure={figure!r} is not an image a browser shows "
                f"(expected one of {', '.join(IMAGE_SUFFIXES)})"
            )
    if not description:
        raise FigureTableError(f"{where}: the 'what' cell is empty")
    notebooks = tuple(
        Path(span.strip()).stem
        for span in _CODE_SPAN.findall(notebook_cell)
        if span.strip().endswith(".ipynb")
    )
    if not notebooks:
        raise FigureTableError(f"{where}: notebook={notebook_cell!r} names no .ipynb file in a code span")
    return FigureRow(lineno, figure, description, notebooks, command)


def check_figure_rows(
    rows: Iterable[FigureRow],
    figures_dir: str | os.PathLike[str],
    notebook_stems: Iterable[str],
    source: str = "README.md",
) -> None:
    """Check that every figure of the table exists in ``figures_dir`` and every notebook is a page.

    Parameters
    ----------
    rows : iterable of FigureRow
        Parsed rows (:func:`parse_figure_table`).
    figures_dir : str or os.PathLike
        The folder that ``figures/`` in the table stands for.
    notebook_stems : iterable of str
        Stems of the notebooks that become pages.
    source : str, default "README.md"
        Name used in error messages.

    Raises
    ------
    FigureTableError
        Naming the README line of the first figure file that does not exist, or of a notebook
        that is not among ``notebook_stems``.
    """
    stems = set(notebook_stems)
    for row in rows:
        if row.figure is not None:
            path = Path(figures_dir, *Path(row.figure).parts[1:])
            if not path.is_file():
                raise FigureTableError(
                    f"{source} line {row.line}: figure={row.figure!r} does not exist ({path})"
                )
        for stem in row.notebooks:
            if stem not in stems:
                raise FigureTableError(
                    f"{source} line {row.line}: notebook={stem + '.ipynb'!r} is not a notebook of "
                    f"the site (known: {', '.join(sorted(stems))})"
                )


# ----------------------------------------------------------------------------- sources


@dataclass(frozen=True)
class PageSource:
    """The notebook file a page is rendered from.

    Attributes
    ----------
    stem : str
        Notebook name without ``.ipynb``; also the page name (``<stem>.html``).
    path : pathlib.Path
        The file read.
    origin : {"executed", "stored"}
        ``"executed"``: the copy written by ``make reproduce``; ``"stored"``: the source notebook
        with its own stored (executed) outputs.
    note : str
        Why this file was chosen (printed by :func:`build_book`).
    """

    stem: str
    path: Path
    origin: Literal["executed", "stored"]
    note: str

    def describe(self) -> str:
        """One line for the build log: page, file, origin."""
        return f"page {self.stem}: {self.origin} outputs from {self.path} ({self.note})"


def _manifest_statuses(executed_dir: Path) -> tuple[dict[str, str], str | None]:
    """Per-notebook status and mode from ``<executed_dir>/manifest.json`` (empty if absent)."""
    manifest = executed_dir / "manifest.json"
    if not manifest.is_file():
        return {}, None
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise BookError(f"manifest={str(manifest)!r} is not readable JSON: {exc}") from exc
    statuses: dict[str, str] = {}
    for entry in data.get("notebooks", []) or []:
        name = str(entry.get("output") or entry.get("input") or entry.get("name") or "")
        if name:
            statuses[Path(name).stem] = str(entry.get("status"))
    mode = data.get("mode")
    return statuses, str(mode) if mode is not None else None


def select_sources(
    notebooks_dir: str | os.PathLike[str] = "notebooks",
    executed_dir: str | os.PathLike[str] = "build/reproduce",
) -> list[PageSource]:
    """Choose, for each notebook, the file whose outputs its page shows (never executes anything).

    ``<executed_dir>/<stem>.ipynb`` (written by ``make reproduce``) is used when it exists, unless
    ``<executed_dir>/manifest.json`` lists that notebook with a status other than ``"ok"`` (a
    failed, partly executed copy); otherwise the source notebook ``<notebooks_dir>/<stem>.ipynb``,
    whose stored outputs are quick-mode executed outputs.

    Parameters
    ----------
    notebooks_dir : str or os.PathLike, default "notebooks"
        Folder of the source notebooks ``NN_<name>.ipynb``.
    executed_dir : str or os.PathLike, default "build/reproduce"
        Output folder of ``make reproduce``; it may be missing.

    Returns
    -------
    list of PageSource
        One per source notebook, sorted by name.

    Raises
    ------
    FileNotFoundError
        If ``notebooks_dir`` holds no notebook.
    BookError
        If the manifest exists but is not valid JSON.
    """
    executed = Path(executed_dir)
    statuses, mode = _manifest_statuses(executed)
    sources = []
    for notebook in discover_notebooks(notebooks_dir):
        stem = notebook.stem
        copy = executed / notebook.name
        status = statuses.get(stem)
        if copy.is_file() and status in (None, _MANIFEST_STATUS_OK):
            note = (
                f"executed by make reproduce, mode={mode}"
                if status is not None
                else "executed copy not in the current manifest (an earlier run)"
            )
            sources.append(PageSource(stem, copy, "executed", note))
        elif copy.is_file():
            sources.append(PageSource(stem, notebook, "stored", f"executed copy has status={status!r}"))
        else:
            sources.append(PageSource(stem, notebook, "stored", f"no {copy}"))
    return sources


# ----------------------------------------------------------------------------- links


@dataclass(frozen=True)
class LinkContext:
    """Where the links of one notebook's Markdown point from, and what the site holds.

    Attributes
    ----------
    notebooks_dir : pathlib.Path
        Folder of the source notebooks: relative links are resolved from here.
    page_stems : frozenset of str
        Notebooks that are pages of the site.
    readme : pathlib.Path
        The README (links to it become links to the index page).
    figures_dir : pathlib.Path
        Folder whose files are copied to ``figures/`` in the site.
    repo_root : pathlib.Path
        Other files under this folder are copied to ``_repo/<relative path>`` in the site (and
        offered as downloads); links leaving it are errors.
    where : str
        Name of the notebook, for error messages.
    base_dir : pathlib.Path, optional
        Folder that relative links are resolved from when it is not ``notebooks_dir`` (the
        repository root for the README's fidelity table, whose links read ``notebooks/NN_x.ipynb``).
    """

    notebooks_dir: Path
    page_stems: frozenset[str]
    readme: Path
    figures_dir: Path
    repo_root: Path
    where: str = "notebook"
    base_dir: Path | None = None


#: Section anchors of the generated index page that README anchors may keep.
INDEX_ANCHORS: frozenset[str] = frozenset({"notebooks", "figures"})

_LINK = re.compile(r"(?P<bang>!?)\[(?P<text>[^\]\n]*)\]\((?P<url>[^)\s]+)(?P<title>(?:\s+\"[^\"]*\")?)\)")
# Spans whose contents are not Markdown links: fenced code blocks, inline code, math.
_PROTECTED = re.compile(
    r"^(?P<fence>`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^(?P=fence)[^\n]*$|\Z)"
    r"|(?P<ticks>`+)[\s\S]*?(?P=ticks)"
    r"|\$\$[\s\S]*?\$\$|\$[^$\n]+\$",
    re.MULTILINE,
)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def rewrite_markdown_links(text: str, context: LinkContext) -> tuple[str, dict[str, Path]]:
    """Rewrite the relative links of one Markdown cell so that they resolve inside the site.

    Inline links and images ``[text](url)`` / ``![alt](url)`` outside code and math are handled
    (reference-style links and raw HTML are left as they are). With ``target`` the url resolved
    from ``context.notebooks_dir`` (or ``context.base_dir`` if set):

    * URLs with a scheme (``https:``, ``mailto:``), ``//host`` and ``#anchor`` are unchanged;
    * a notebook of the site -> ``<stem>.ipynb`` (a page link; ``#anchor`` kept);
    * the README -> ``index.md`` (the index page; only the anchors ``#notebooks``/``#figures`` kept);
    * a file under ``figures_dir`` -> ``figures/<relative path>``, copied into the site;
    * another file under ``repo_root`` (``../dlsched/...``) -> ``_repo/<relative path>``, copied
      (Sphinx serves it as a download);
    * a folder under ``repo_root`` -> the link text followed by the folder as code, without link.

    Parameters
    ----------
    text : str
        Markdown source of one cell.
    context : LinkContext
        Folders and page names.

    Returns
    -------
    tuple of (str, dict of str -> pathlib.Path)
        The rewritten Markdown, and the files to copy: site-relative destination -> source file.

    Raises
    ------
    BookLinkError
        If a link points to a notebook that is not a page, to nothing, or outside ``repo_root``;
        the message names ``context.where`` and the link.
    """
    copies: dict[str, Path] = {}

    def replace(match: re.Match[str]) -> str:
        new = _rewrite_one(match, context, copies)
        return match.group(0) if new is None else new

    out: list[str] = []
    position = 0
    for protected in _PROTECTED.finditer(text):
        out.append(_LINK.sub(replace, text[position : protected.start()]))
        out.append(protected.group(0))
        position = protected.end()
    out.append(_LINK.sub(replace, text[position:]))
    return "".join(out), copies


def _rewrite_one(match: re.Match[str], context: LinkContext, copies: dict[str, Path]) -> str | None:
    url = match.group("url")
    if url.startswith("<") and url.endswith(">"):
        url = url[1:-1]
    if _SCHEME.match(url) or url.startswith(("#", "//")):
        return None
    parts = urlsplit(url)
    anchor = f"#{parts.fragment}" if parts.fragment else ""
    if not parts.path:
        return None
    base = context.base_dir if context.base_dir is not None else context.notebooks_dir
    target = (base / unquote(parts.path)).resolve()
    root = context.repo_root.resolve()
    bang, text, title = match.group("bang"), match.group("text"), match.group("title")

    def link(new_url: str) -> str:
        return f"{bang}[{text}]({new_url}{title})"

    if target.suffix == ".ipynb" and target.parent == context.notebooks_dir.resolve():
        if target.stem not in context.page_stems:
            raise BookLinkError(
                f"{context.where}: link {url!r} points to notebook {target.name!r}, which is not a "
                f"page of the site (no such notebook in {context.notebooks_dir})"
            )
        return link(f"{target.stem}.ipynb{anchor}")
    if target == context.readme.resolve():
        kept = anchor if anchor[1:] in INDEX_ANCHORS else ""
        return link(f"index.md{kept}")
    figures = context.figures_dir.resolve()
    if target.is_file() and target.is_relative_to(figures):
        dest = Path("figures", target.relative_to(figures)).as_posix()
        copies[dest] = target
        return link(dest + anchor)
    if not target.is_relative_to(root):
        raise BookLinkError(
            f"{context.where}: link {url!r} points outside the repository ({target}); "
            f"use an absolute https:// URL"
        )
    if target.is_file():
        dest = Path("_repo", target.relative_to(root)).as_posix()
        copies[dest] = target
        return link(dest + anchor)
    if target.is_dir() and not bang:
        return f"{text} (`{target.relative_to(root).as_posix()}/`)"
    raise BookLinkError(f"{context.where}: link {url!r} points to {target}, which does not exist")


# ----------------------------------------------------------------------------- index page


def _notebook_title(notebook: dict[str, Any], default: str) -> str:
    """Text of the first ``# `` heading of the notebook's Markdown cells, else ``default``."""
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") != "markdown":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        for line in source.splitlines():
            if line.startswith("# "):
                return line[2:].strip()
    return default


#: Navigation captions: a notebook ``NN_*`` belongs to the group of its first digit (DESIGN.md:
#: 10-19 OASiS, 20-29 Optimus, 30-39 PD-ORS, 40-49 A_online, 50-59 SpeCon, 60+ cross-paper).
PAPER_CAPTIONS: dict[str, str] = {
    "0": "Overview",
    "1": "OASiS",
    "2": "Optimus",
    "3": "PD-ORS",
    "4": "A_online",
    "5": "SpeCon",
    "6": "Arena (cross-paper)",
    "7": "Arena (cross-paper)",
    "8": "Arena (cross-paper)",
    "9": "Arena (cross-paper)",
}

#: Lines around the README's fidelity table (written by ``dlsched fidelity --write``), which is
#: copied to the index page. A marker may carry a note after its name, e.g.
#: ``<!-- fidelity:start (generated by ...; do not edit) -->``.
FIDELITY_START = "<!-- fidelity:start -->"
FIDELITY_END = "<!-- fidelity:end -->"
_FIDELITY_MARKER = re.compile(r"^<!--\s*fidelity:(?P<which>start|end)\b.*-->$")

#: Heading of the fidelity section of the index page (anchor ``#fidelity-what-reproduces``).
FIDELITY_HEADING = "Fidelity: what reproduces"


def group_pages(pages: Sequence[PageSource]) -> list[tuple[str, list[PageSource]]]:
    """Group the pages by paper for the navigation sidebar, keeping their order.

    Parameters
    ----------
    pages : sequence of PageSource
        The notebook pages, in order (``NN_<name>``).

    Returns
    -------
    list of (str, list of PageSource)
        ``(caption, pages)`` per run of consecutive pages with the same caption
        (:data:`PAPER_CAPTIONS`, by the first digit of the stem; ``"Notebooks"`` otherwise).
    """
    groups: list[tuple[str, list[PageSource]]] = []
    for page in pages:
        caption = PAPER_CAPTIONS.get(page.stem[:1], "Notebooks")
        if groups and groups[-1][0] == caption:
            groups[-1][1].append(page)
        else:
            groups.append((caption, [page]))
    return groups


def extract_fidelity_block(text: str, source: str = "README.md") -> str | None:
    """The Markdown between the README's lines ``<!-- fidelity:start -->`` and ``<!-- fidelity:end -->``.

    A marker line may carry a note after its name (``<!-- fidelity:start (generated ...) -->``).

    Parameters
    ----------
    text : str
        The README's contents.
    source : str, default "README.md"
        Name used in error messages.

    Returns
    -------
    str or None
        The lines between the two markers (without them, blank lines around stripped), or None if
        the README has neither marker or nothing between them.

    Raises
    ------
    BookError
        If only one marker is present, one is repeated, or the end comes before the start; the
        message names the lines.
    """
    lines = text.splitlines()
    markers = [(n, _FIDELITY_MARKER.match(line.strip())) for n, line in enumerate(lines)]
    starts = [n for n, match in markers if match and match["which"] == "start"]
    ends = [n for n, match in markers if match and match["which"] == "end"]
    if not starts and not ends:
        return None
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        raise BookError(
            f"{source}: expected one {FIDELITY_START!r} line before one {FIDELITY_END!r} line; found "
            f"start marker(s) on line(s) {[n + 1 for n in starts]}, end marker(s) on line(s) "
            f"{[n + 1 for n in ends]}"
        )
    block = "\n".join(lines[starts[0] + 1 : ends[0]]).strip("\n")
    return block if block.strip() else None


def render_index(
    rows: Sequence[FigureRow], pages: Sequence[PageSource], fidelity: str | None = None
) -> str:
    """MyST Markdown of the index page: the notebook pages (table of contents) and every figure.

    Parameters
    ----------
    rows : sequence of FigureRow
        The README's figure table; figure paths are used as given (``figures/...``), relative to
        the staging folder.
    pages : sequence of PageSource
        The notebook pages, in order. They go into one hidden toctree per paper
        (:func:`group_pages`), whose captions head the groups of the navigation sidebar.
    fidelity : str, optional
        Markdown of the README's fidelity table (:func:`extract_fidelity_block`, links already
        rewritten for the site); if given, it becomes the section ``Fidelity: what reproduces``.

    Returns
    -------
    str
        The page's Markdown.
    """
    origins = {"executed": "executed by `make reproduce`", "stored": "the notebook's stored outputs"}
    groups = group_pages(pages)
    lines = [
        "# dlsched: notebooks and figures",
        "",
        "The companion notebooks of *dlsched*, which reproduces five papers on scheduling distributed "
        "deep-learning jobs (OASiS, Optimus, PD-ORS, A_online, SpeCon), with their outputs as executed: "
        "each page shows the code, the figures and the tables of the paper's numbers next to ours. "
        "Built by `make book`; nothing was re-executed to make these pages.",
        "",
        "## Notebooks",
        "",
    ]
    for caption, members in groups:
        lines += [
            "```{toctree}",
            ":maxdepth: 1",
            ":hidden:",
            f":caption: {caption}",
            "",
            *[page.stem for page in members],
            "```",
            "",
        ]
    lines += [
        "| paper | page | outputs |",
        "|---|---|---|",
        *[
            f"| {caption} | {{doc}}`{page.stem}` | {origins[page.origin]} |"
            for caption, members in groups
            for page in members
        ],
        "",
    ]
    if fidelity:
        lines += [f"## {FIDELITY_HEADING}", "", fidelity, ""]
    lines += [
        "## Figures",
        "",
        "The figures of `figures/` listed in the README's figure table, each with the notebook that "
        "draws it and the command that rewrites it.",
        "",
    ]
    for row in rows:
        links = ", ".join(f"{{doc}}`{stem}`" for stem in row.notebooks)
        caption = (
            f"{row.description} ({links}; {row.command})" if row.command else f"{row.description} ({links})"
        )
        if row.figure is None:
            lines += [f"- {caption}", ""]
            continue
        alt = re.sub(r"[`*_$\[\]]", "", row.description).replace('"', "'")
        lines += [
            f"```{{figure}} {row.figure}",
            f":alt: {alt}",
            ":width: 100%",
            ":figclass: dlsched-figure",
            "",
            caption,
            "```",
            "",
        ]
    return "\n".join(lines)


# ----------------------------------------------------------------------------- output checks


#: Tags whose ``src``/``href`` the browser loads by itself (a link ``<a href>`` is only followed).
_LOADING_TAGS: frozenset[str] = frozenset(
    {"script", "link", "img", "iframe", "source", "video", "audio", "track", "embed", "object", "input"}
)

_CSS_COMMENT = re.compile(r"/\*[\s\S]*?\*/")
_CSS_REF = re.compile(
    r"""url\(\s*(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>[^)\s]*))\s*\)"""
    r"""|@import\s+(?:"(?P<idq>[^"]*)"|'(?P<isq>[^']*)')""",
    re.IGNORECASE,
)


def css_refs(css: str) -> list[str]:
    """URLs that a stylesheet loads: every ``url(...)`` and ``@import "..."`` outside comments.

    Parameters
    ----------
    css : str
        CSS text (a file, a ``<style>`` element or a ``style`` attribute).

    Returns
    -------
    list of str
        The URLs in order of appearance, as written (``data:`` URLs included).
    """
    text = _CSS_COMMENT.sub(" ", css)
    return [next(v for v in match.groupdict().values() if v is not None) for match in _CSS_REF.finditer(text)]


def _is_network(url: str) -> bool:
    """A URL that the browser would fetch from another host (``http(s)://``, ``//host``)."""
    scheme = urlsplit(url).scheme.lower()
    return scheme in ("http", "https", "ftp", "ws", "wss") or url.startswith("//")


class _RefCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.refs: list[tuple[str, str, str]] = []  # (tag, attribute, value)
        self.ids: set[str] = set()
        self.css: list[str] = []  # <style> contents and style="" attributes
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src", "poster", "data") and value:
                self.refs.append((tag, name, value))
            elif name == "srcset" and value:
                for candidate in value.split(","):
                    if candidate.strip():
                        self.refs.append((tag, name, candidate.split()[0]))
            elif name == "style" and value:
                self.css.append(value)
            elif name == "id" or (tag == "a" and name == "name"):
                self.ids.add(value or "")
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.css.append(data)


def check_site(site_dir: str | os.PathLike[str]) -> list[str]:
    """Check the built HTML: relative ``href``/``src`` resolve, nothing is loaded from the network.

    Every ``*.html`` page is read, except the files under ``_static/`` (theme assets; the
    pydata-sphinx-theme ships Jinja template sources there, which are no pages), and so is every
    ``*.css`` file of the site.

    Parameters
    ----------
    site_dir : str or os.PathLike
        The HTML output folder.

    Returns
    -------
    list of str
        One message per problem (empty if the site is sound): a relative ``href``/``src`` whose
        file does not exist, a ``#fragment`` that is no ``id`` of its target page, a
        ``<script>``/``<link>`` (stylesheet, font, preload)/``<img>``/``<iframe>``/... loaded from
        the network, or a stylesheet (CSS file, ``<style>``, ``style=""``) whose ``url(...)`` or
        ``@import`` (a font, an image, another stylesheet) is on the network or names a missing file.
    """
    site = Path(site_dir).resolve()
    static = site / "_static"
    pages = {
        page.resolve(): _collect(page)
        for page in sorted(site.rglob("*.html"))
        if not page.resolve().is_relative_to(static)
    }
    problems = []
    for page, collector in pages.items():
        name = page.relative_to(site)
        for tag, attr, value in collector.refs:
            parts = urlsplit(value)
            if parts.scheme or value.startswith("//"):
                if tag in _LOADING_TAGS and _is_network(value):
                    problems.append(f"{name}: <{tag} {attr}={value!r}> loads from the network")
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if not target.exists():
                problems.append(f"{name}: <{tag} {attr}={value!r}> -> missing {target}")
            elif parts.fragment and target in pages and unquote(parts.fragment) not in pages[target].ids:
                missing = f"no id {parts.fragment!r} in {target.name}"
                problems.append(f"{name}: <{tag} {attr}={value!r}> -> {missing}")
        for css in collector.css:
            problems += _check_css(css, page.parent, f"{name}: inline style")
    for sheet in sorted(site.rglob("*.css")):
        text = sheet.read_text(encoding="utf-8", errors="replace")
        problems += _check_css(text, sheet.parent, str(sheet.relative_to(site)))
    return problems


def _check_css(css: str, folder: Path, where: str) -> list[str]:
    """Problems of one stylesheet: network ``url()``/``@import``, or relative ones naming no file."""
    problems = []
    for value in css_refs(css):
        parts = urlsplit(value)
        if _is_network(value):
            problems.append(f"{where}: url({value!r}) loads from the network")
        elif parts.scheme or not parts.path:  # data:, #fragment (SVG filters)
            continue
        elif not (folder / unquote(parts.path)).exists():
            problems.append(f"{where}: url({value!r}) -> missing {(folder / unquote(parts.path)).resolve()}")
    return problems


def _collect(page: Path) -> _RefCollector:
    collector = _RefCollector()
    collector.feed(page.read_text(encoding="utf-8"))
    collector.close()
    return collector


# ----------------------------------------------------------------------------- build


def _stage_notebook(source: PageSource, dest: Path, context: LinkContext) -> dict[str, Path]:
    """Copy one notebook to ``dest`` with links rewritten and widget state dropped."""
    try:
        notebook = json.loads(source.path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise BookError(f"notebook={str(source.path)!r} is not readable JSON: {exc}") from exc
    copies: dict[str, Path] = {}
    notebook.get("metadata", {}).pop(_WIDGET_STATE_KEY, None)
    for number, cell in enumerate(notebook.get("cells", []), start=1):
        if cell.get("cell_type") != "markdown":
            continue
        text = cell.get("source", "")
        text = "".join(text) if isinstance(text, list) else text
        cell_context = LinkContext(
            context.notebooks_dir,
            context.page_stems,
            context.readme,
            context.figures_dir,
            context.repo_root,
            f"{source.path} (cell {number})",
        )
        new_text, cell_copies = rewrite_markdown_links(text, cell_context)
        cell["source"] = new_text
        copies.update(cell_copies)
    dest.write_text(json.dumps(notebook, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return copies


def _reset_dir(path: Path, marker: str) -> None:
    """Empty ``path`` (create it if missing) if it is ours: empty, or holding ``marker``."""
    if path.exists():
        if any(path.iterdir()) and not (path / marker).exists():
            raise BookError(
                f"refusing to delete {path}: it is not empty and has no {marker} (not made by dlsched.book)"
            )
        shutil.rmtree(path)
    path.mkdir(parents=True)
    (path / marker).write_text("staging folder of dlsched.book; deleted on every build\n", encoding="utf-8")


def _run_sphinx(src: Path, conf_dir: Path, out: Path, doctrees: Path, jobs: int) -> list[str]:
    """Run Sphinx's HTML builder; return its warnings (raise BookError if it fails)."""
    try:
        from sphinx.cmd.build import build_main
    except ImportError as exc:
        raise BookError(
            "Sphinx is not installed: install the book extra "
            "(python -m pip install -c constraints.txt -e '.[book]') or run `make book`"
        ) from exc
    warnings_file = doctrees.parent / "sphinx-warnings.txt"
    argv = [
        "-b",
        "html",
        "-q",
        "-E",
        "-c",
        str(conf_dir),
        "-d",
        str(doctrees),
        "-w",
        str(warnings_file),
        "-j",
        str(jobs),
        str(src),
        str(out),
    ]
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        status = build_main(argv)
    warnings = warnings_file.read_text(encoding="utf-8").splitlines() if warnings_file.exists() else []
    if status != 0:
        details = "\n".join([*warnings, stderr.getvalue()]).strip()
        raise BookError(f"sphinx-build exited with status {status}:\n{details}")
    return [line for line in warnings if line.strip()]


def build_book(
    out_dir: str | os.PathLike[str] = "build/site",
    executed_dir: str | os.PathLike[str] = "build/reproduce",
    notebooks_dir: str | os.PathLike[str] = "notebooks",
    figures_dir: str | os.PathLike[str] = "figures",
    readme: str | os.PathLike[str] = "README.md",
    *,
    stage_dir: str | os.PathLike[str] | None = None,
    conf_dir: str | os.PathLike[str] = DEFAULT_CONF_DIR,
    jobs: int = 1,
    log: Any = print,
) -> Path:
    """Build the static HTML site; return the path of its ``index.html``.

    Parameters
    ----------
    out_dir : str or os.PathLike, default "build/site"
        Where the site goes (``index.html`` at its root). It is replaced only after a successful
        build; an existing folder is replaced only if it is empty or a previous Sphinx output.
    executed_dir : str or os.PathLike, default "build/reproduce"
        Executed notebooks of ``make reproduce`` (may be missing; see :func:`select_sources`).
    notebooks_dir : str or os.PathLike, default "notebooks"
        Source notebooks; relative Markdown links are resolved from here.
    figures_dir : str or os.PathLike, default "figures"
        The folder that ``figures/`` in the README table stands for.
    readme : str or os.PathLike, default "README.md"
        README holding the figure table; its folder is the repository root for links.
    stage_dir : str or os.PathLike, optional
        Folder for the staged copies; default ``<out_dir's parent>/book-src``. Emptied each build.
    conf_dir : str or os.PathLike, default ``book/`` of the repository
        Sphinx configuration folder (``conf.py``).
    jobs : int, default 1
        Sphinx parallel jobs (``-j``).
    log : callable, default print
        Receives one line per page (which file its outputs come from) and a summary.

    Returns
    -------
    pathlib.Path
        ``<out_dir>/index.html``.

    Raises
    ------
    FigureTableError
        If the README's figure table is missing or malformed, or names a missing file.
    BookLinkError
        If a notebook's Markdown link cannot resolve in the site.
    BookError
        If Sphinx fails, reports a broken reference or image, or the output has a broken link.
    """
    started = time.perf_counter()
    out = Path(out_dir)
    notebooks = Path(notebooks_dir)
    figures = Path(figures_dir)
    readme_path = Path(readme)
    conf = Path(conf_dir)
    stage = Path(stage_dir) if stage_dir is not None else out.parent / "book-src"
    if not (conf / "conf.py").is_file():
        raise BookError(f"conf_dir={str(conf)!r} has no conf.py")
    if not readme_path.is_file():
        raise FigureTableError(f"readme={str(readme_path)!r} does not exist")
    if out.resolve() in (stage.resolve(), *stage.resolve().parents):
        raise BookError(f"out_dir={str(out)!r} must not contain stage_dir={str(stage)!r}")

    sources = select_sources(notebooks, executed_dir)
    stems = [source.stem for source in sources]
    readme_text = readme_path.read_text(encoding="utf-8")
    rows = parse_figure_table(readme_text, source=str(readme_path))
    check_figure_rows(rows, figures, stems, source=str(readme_path))

    _reset_dir(stage, ".dlsched-book-src")
    context = LinkContext(
        notebooks.resolve(),
        frozenset(stems),
        readme_path.resolve(),
        figures.resolve(),
        readme_path.resolve().parent,
    )
    copies: dict[str, Path] = {}
    for source in sources:
        log(source.describe())
        copies.update(_stage_notebook(source, stage / f"{source.stem}.ipynb", context))
    for row in rows:
        if row.figure is not None:
            copies[row.figure] = Path(figures, *Path(row.figure).parts[1:])
    fidelity = extract_fidelity_block(readme_text, source=str(readme_path))
    if fidelity is not None:
        fidelity, fidelity_copies = rewrite_markdown_links(
            fidelity,
            LinkContext(
                context.notebooks_dir,
                context.page_stems,
                context.readme,
                context.figures_dir,
                context.repo_root,
                f"{readme_path} (fidelity table)",
                base_dir=context.repo_root,
            ),
        )
        copies.update(fidelity_copies)
    for dest, src in sorted(copies.items()):
        target = stage / dest
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
    (stage / "index.md").write_text(render_index(rows, sources, fidelity), encoding="utf-8")

    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}-build-", dir=out.parent))
    try:
        html = work / "html"
        warnings = _run_sphinx(stage, conf, html, work / "doctrees", jobs)
        fatal = [line for line in warnings if FATAL_WARNINGS.search(line)]
        for line in warnings:
            if line not in fatal:
                log(f"sphinx warning: {line}")
        if fatal:
            staged = {
                str(stage.resolve() / f"{src.stem}.ipynb"): f"{src.path} (staged copy)" for src in sources
            }
            for copy, original in staged.items():
                fatal = [line.replace(copy, original) for line in fatal]
            raise BookError("the site has broken references or images:\n" + "\n".join(fatal))
        problems = check_site(html)
        if problems:
            raise BookError("the built HTML has broken links or remote resources:\n" + "\n".join(problems))
        _replace_dir(html, out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    n_figures = sum(row.figure is not None for row in rows)
    log(
        f"site: {out / 'index.html'} ({len(sources)} notebook pages + index, {n_figures} figures, "
        f"{time.perf_counter() - started:.1f} s)"
    )
    return out / "index.html"


def _replace_dir(new: Path, out: Path) -> None:
    """Move the finished site ``new`` to ``out``, replacing a previous site."""
    if out.exists():
        if any(out.iterdir()) and not (out / ".buildinfo").exists():
            raise BookError(
                f"refusing to replace out_dir={str(out)!r}: it is not empty and not a previous site "
                "(no .buildinfo)"
            )
        old = out.with_name(f".{out.name}-old-{os.getpid()}")
        out.rename(old)
        new.rename(out)
        shutil.rmtree(old, ignore_errors=True)
    else:
        new.rename(out)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``python -m dlsched.book [--out DIR] [--executed DIR] ...``; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m dlsched.book", description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="build/site", help="site folder (default: build/site)")
    parser.add_argument("--executed", default="build/reproduce", help="executed notebooks of make reproduce")
    parser.add_argument("--notebooks", default="notebooks", help="source notebooks (default: notebooks)")
    parser.add_argument("--figures", default="figures", help="figures folder (default: figures)")
    parser.add_argument("--readme", default="README.md", help="README with the figure table")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="Sphinx parallel jobs (default: 1)")
    args = parser.parse_args(argv)
    try:
        build_book(args.out, args.executed, args.notebooks, args.figures, args.readme, jobs=args.jobs)
    except (BookError, FileNotFoundError) as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Tests of dlsched.book: README figure table, page sources, link rewriting, and one small real build."""

from __future__ import annotations

import json
import re
import struct
import zlib
from pathlib import Path

import pytest

from dlsched.book import (
    FIDELITY_END,
    FIDELITY_START,
    BookError,
    BookLinkError,
    FigureTableError,
    LinkContext,
    build_book,
    check_figure_rows,
    check_site,
    css_refs,
    extract_fidelity_block,
    group_pages,
    parse_figure_table,
    render_index,
    rewrite_markdown_links,
    select_sources,
)

TABLE = """# Title

Some text | with a pipe.

## Figures

| Figure | what | notebook | command |
|---|---|---|---|
| `figures/fig_a_00_one.png` | first figure, $x^2$ | `notebooks/00_alpha.ipynb` | `dlsched reproduce` |
| (table in the notebook) | a table only | `notebooks/10_beta.ipynb`, `00_alpha.ipynb` | `make reproduce` |

After the table.
"""


def _png(width: int = 4, height: int = 3) -> bytes:
    """A valid RGB PNG of the given size (no imaging library needed)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + b"\x80\x20\x20" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


# ----------------------------------------------------------------------------- README table


def test_parse_figure_table_rows() -> None:
    rows = parse_figure_table(TABLE)
    assert [row.line for row in rows] == [9, 10]
    first, second = rows
    assert first.figure == "figures/fig_a_00_one.png"
    assert first.description == "first figure, $x^2$"
    assert first.notebooks == ("00_alpha",)
    assert first.command == "`dlsched reproduce`"
    assert second.figure is None
    assert second.notebooks == ("10_beta", "00_alpha")


def test_parse_figure_table_keeps_escaped_pipe() -> None:
    text = TABLE.replace("first figure, $x^2$", r"a \| b")
    assert parse_figure_table(text)[0].description == r"a \| b"


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda t: t.replace("| Figure | what | notebook | command |", "| fig | what | nb | cmd |"),
            r"no figure table found.*\| figure \| what \| notebook \| command \|",
        ),
        (lambda t: t.replace("|---|---|---|---|\n", ""), r"README.md line 8: expected the separator"),
        (lambda t: t.replace("| a table only |", "|"), r"README.md line 10: expected 4 cells"),
        (
            lambda t: t.replace("fig_a_00_one.png", "fig_a_00_one.pdf"),
            r"line 9: figure='figures/fig_a_00_one.pdf' is not an image",
        ),
        (
            lambda t: t.replace("`figures/fig_a_00_one.png`", "`../fig.png`"),
            r"line 9: .*not a path under figures/",
        ),
        (
            lambda t: t.replace("`notebooks/00_alpha.ipynb` |", "00_alpha |"),
            r"line 9: notebook='00_alpha' names no \.ipynb",
        ),
        (lambda t: t.replace("| first figure, $x^2$ |", "|  |"), r"line 9: the 'what' cell is empty"),
        (lambda t: t.split("| `figures")[0].split("|---")[0] + "|---|---|---|---|\n\nend\n", r"has no rows"),
    ],
)
def test_parse_figure_table_errors(edit, message: str) -> None:
    with pytest.raises(FigureTableError, match=message):
        parse_figure_table(edit(TABLE), source="README.md")


def test_check_figure_rows_names_missing_file_and_notebook(tmp_path: Path) -> None:
    rows = parse_figure_table(TABLE)
    with pytest.raises(
        FigureTableError, match=r"README.md line 9: figure='figures/fig_a_00_one.png' does not exist"
    ):
        check_figure_rows(rows, tmp_path, ["00_alpha", "10_beta"])
    (tmp_path / "fig_a_00_one.png").write_bytes(_png())
    check_figure_rows(rows, tmp_path, ["00_alpha", "10_beta"])
    with pytest.raises(FigureTableError, match=r"line 10: notebook='10_beta.ipynb' is not a notebook"):
        check_figure_rows(rows, tmp_path, ["00_alpha"])


def test_repository_readme_table_is_complete(repo_root: Path) -> None:
    """The real README's table parses and every figure/notebook it names exists (what make book needs)."""
    rows = parse_figure_table((repo_root / "README.md").read_text(encoding="utf-8"))
    stems = [p.stem for p in (repo_root / "notebooks").glob("[0-9][0-9]_*.ipynb")]
    check_figure_rows(rows, repo_root / "figures", stems)
    assert sum(row.figure is not None for row in rows) >= 10


# ----------------------------------------------------------------------------- sources


def _write_notebook(path: Path, cells: list[dict], metadata: dict | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    notebook = {
        "cells": cells,
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
            **(metadata or {}),
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook), encoding="utf-8")


def _md(source: str, cell_id: str) -> dict:
    return {"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": source}


def _code(source: str, cell_id: str, outputs: list[dict]) -> dict:
    return {
        "cell_type": "code",
        "id": cell_id,
        "metadata": {},
        "source": source,
        "execution_count": 1,
        "outputs": outputs,
    }


def test_select_sources_prefers_executed_copies(tmp_path: Path) -> None:
    notebooks, executed = tmp_path / "notebooks", tmp_path / "build" / "reproduce"
    for stem in ("00_alpha", "10_beta", "20_gamma"):
        _write_notebook(notebooks / f"{stem}.ipynb", [_md(f"# {stem}", "a")])
    (notebooks / "scratch.ipynb").write_text("{}", encoding="utf-8")  # not NN_*: no page

    sources = select_sources(notebooks, executed)  # no reproduce output at all
    assert [(s.stem, s.origin) for s in sources] == [
        ("00_alpha", "stored"),
        ("10_beta", "stored"),
        ("20_gamma", "stored"),
    ]

    _write_notebook(executed / "10_beta.ipynb", [_md("# 10_beta", "a")])
    _write_notebook(executed / "20_gamma.ipynb", [_md("# 20_gamma", "a")])
    manifest = {
        "mode": "quick",
        "notebooks": [
            {"name": "10_beta", "output": "10_beta.ipynb", "status": "ok"},
            {"name": "20_gamma", "output": "20_gamma.ipynb", "status": "failed"},
        ],
    }
    (executed / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    by_stem = {s.stem: s for s in select_sources(notebooks, executed)}
    assert by_stem["00_alpha"].origin == "stored"
    assert by_stem["10_beta"].origin == "executed"
    assert by_stem["10_beta"].path == executed / "10_beta.ipynb"
    assert "mode=quick" in by_stem["10_beta"].describe()
    assert by_stem["20_gamma"].origin == "stored"  # the executed copy of a failed run is not used
    assert by_stem["20_gamma"].path == notebooks / "20_gamma.ipynb"
    assert "failed" in by_stem["20_gamma"].note


# ----------------------------------------------------------------------------- links


@pytest.fixture()
def link_repo(tmp_path: Path) -> LinkContext:
    for stem in ("00_alpha", "11_oasis_proofs"):
        _write_notebook(tmp_path / "notebooks" / f"{stem}.ipynb", [_md("# t", "a")])
    (tmp_path / "README.md").write_text("# r\n", encoding="utf-8")
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "fig_x.png").write_bytes(_png())
    (tmp_path / "dlsched" / "oasis").mkdir(parents=True)
    (tmp_path / "dlsched" / "oasis" / "policy.py").write_text("x = 1\n", encoding="utf-8")
    return LinkContext(
        tmp_path / "notebooks",
        frozenset({"00_alpha", "11_oasis_proofs"}),
        tmp_path / "README.md",
        tmp_path / "figures",
        tmp_path,
        where="00_alpha.ipynb",
    )


def test_rewrite_links_to_site_targets(link_repo: LinkContext) -> None:
    text = (
        "See [notebook 11](11_oasis_proofs.ipynb) and [a section](./11_oasis_proofs.ipynb#lemma-1), "
        "the [README](../README.md), its [figures](../README.md#figures) and [usage](../README.md#usage), "
        '![fig](../figures/fig_x.png), [the policy](../dlsched/oasis/policy.py "code"), '
        "[the package](../dlsched/oasis/), [web](https://example.org/a.ipynb) and [here](#top)."
    )
    new, copies = rewrite_markdown_links(text, link_repo)
    assert "[notebook 11](11_oasis_proofs.ipynb)" in new
    assert "[a section](11_oasis_proofs.ipynb#lemma-1)" in new
    assert "[README](index.md)" in new
    assert "[figures](index.md#figures)" in new
    assert "[usage](index.md)" in new  # the index has no #usage: the anchor is dropped
    assert "![fig](figures/fig_x.png)" in new
    assert '[the policy](_repo/dlsched/oasis/policy.py "code")' in new
    assert "the package (`dlsched/oasis/`)" in new
    assert "[web](https://example.org/a.ipynb)" in new
    assert "[here](#top)" in new
    root = link_repo.repo_root.resolve()
    assert copies == {
        "figures/fig_x.png": root / "figures" / "fig_x.png",
        "_repo/dlsched/oasis/policy.py": root / "dlsched" / "oasis" / "policy.py",
    }


def test_rewrite_links_leaves_code_and_math_alone(link_repo: LinkContext) -> None:
    text = "`[x](../missing.md)` and $[0,1](y)$\n\n```\n[x](../missing.md)\n```\n"
    assert rewrite_markdown_links(text, link_repo) == (text, {})


@pytest.mark.parametrize(
    ("link", "message"),
    [
        (
            "[n](12_missing.ipynb)",
            r"00_alpha.ipynb: link '12_missing.ipynb' points to notebook .* not a page",
        ),
        ("[r](../nothing.md)", r"00_alpha.ipynb: link '../nothing.md' points to .*does not exist"),
        ("[o](../../outside.txt)", r"points outside the repository"),
    ],
)
def test_rewrite_links_broken(link_repo: LinkContext, link: str, message: str) -> None:
    with pytest.raises(BookLinkError, match=message):
        rewrite_markdown_links(f"text {link}", link_repo)


def test_render_index_lists_pages_and_figures(tmp_path: Path) -> None:
    notebooks = tmp_path / "notebooks"
    for stem in ("00_alpha", "10_beta"):
        _write_notebook(notebooks / f"{stem}.ipynb", [_md("# t", "a")])
    text = render_index(parse_figure_table(TABLE), select_sources(notebooks, tmp_path / "none"))
    # one hidden toctree per paper: their captions head the groups of the navigation sidebar
    assert re.search(r"```\{toctree\}\n:maxdepth: 1\n:hidden:\n:caption: Overview\n\n00_alpha\n```", text)
    assert re.search(r"```\{toctree\}\n:maxdepth: 1\n:hidden:\n:caption: OASiS\n\n10_beta\n```", text)
    assert "| OASiS | {doc}`10_beta` | the notebook's stored outputs |" in text
    assert "```{figure} figures/fig_a_00_one.png" in text
    assert "- a table only ({doc}`10_beta`, {doc}`00_alpha`; `make reproduce`)" in text
    assert "Fidelity" not in text


def test_group_pages_by_paper(tmp_path: Path) -> None:
    stems = ["00_overview", "10_oasis_model", "12_oasis_figures", "20_optimus_models", "30_pdors_model",
             "42_aonline_figures", "50_specon_model", "51_specon_checks", "60_arena_traces", "71_more"]
    notebooks = tmp_path / "notebooks"
    for stem in stems:
        _write_notebook(notebooks / f"{stem}.ipynb", [_md("# t", "a")])
    groups = group_pages(select_sources(notebooks, tmp_path / "none"))
    assert [(caption, [page.stem for page in pages]) for caption, pages in groups] == [
        ("Overview", ["00_overview"]),
        ("OASiS", ["10_oasis_model", "12_oasis_figures"]),
        ("Optimus", ["20_optimus_models"]),
        ("PD-ORS", ["30_pdors_model"]),
        ("A_online", ["42_aonline_figures"]),
        ("SpeCon", ["50_specon_model", "51_specon_checks"]),
        ("Arena (cross-paper)", ["60_arena_traces", "71_more"]),
    ]


# ----------------------------------------------------------------------------- README fidelity table

FIDELITY_README = f"""# Title

Intro.

## Fidelity

{FIDELITY_START}
| paper | claim | status | notebook |
|---|---|---|---|
| OASiS | Fig. 3 | reproduces | [00](notebooks/00_alpha.ipynb) |
| PD-ORS | Thm 1 | differs, see [why](notebooks/10_beta.ipynb#why) and ![f](figures/fig_a_00_one.png) |  |
{FIDELITY_END}

After.
"""


def test_extract_fidelity_block() -> None:
    block = extract_fidelity_block(FIDELITY_README)
    assert block is not None
    assert block.splitlines()[0] == "| paper | claim | status | notebook |"
    assert block.splitlines()[-1].startswith("| PD-ORS |")
    assert FIDELITY_START not in block and FIDELITY_END not in block and "After." not in block
    assert extract_fidelity_block(TABLE) is None  # no markers: nothing, no error
    assert extract_fidelity_block(f"{FIDELITY_START}\n\n{FIDELITY_END}\n") is None  # empty block
    # a marker may carry a note (as `dlsched fidelity --write` writes it)
    noted = "<!-- fidelity:start (generated by `dlsched fidelity --write`; do not edit) -->"
    text = f"x\n{noted}\n_No scorecards yet._\n{FIDELITY_END}\n"
    assert extract_fidelity_block(text) == "_No scorecards yet._"


@pytest.mark.parametrize(
    "text",
    [
        f"{FIDELITY_START}\n| a |\n",  # no end
        f"| a |\n{FIDELITY_END}\n",  # no start
        f"{FIDELITY_END}\n| a |\n{FIDELITY_START}\n",  # reversed
        f"{FIDELITY_START}\n| a |\n{FIDELITY_END}\n{FIDELITY_START}\n| b |\n{FIDELITY_END}\n",  # twice
    ],
)
def test_extract_fidelity_block_malformed(text: str) -> None:
    with pytest.raises(BookError, match=r"README.md: expected one '<!-- fidelity:start -->' line"):
        extract_fidelity_block(text)


def test_render_index_fidelity_section(tmp_path: Path) -> None:
    notebooks = tmp_path / "notebooks"
    for stem in ("00_alpha", "10_beta"):
        _write_notebook(notebooks / f"{stem}.ipynb", [_md("# t", "a")])
    text = render_index(
        parse_figure_table(TABLE), select_sources(notebooks, tmp_path / "none"), "| a |\n|---|\n| b |"
    )
    assert "\n## Fidelity: what reproduces\n\n| a |\n|---|\n| b |\n" in text
    assert text.index("## Notebooks") < text.index("## Fidelity: what reproduces") < text.index("## Figures")


def test_check_site_reports_broken_refs(tmp_path: Path) -> None:
    (tmp_path / "a.png").write_bytes(_png())
    (tmp_path / "b.html").write_text('<h1 id="top">b</h1>', encoding="utf-8")
    (tmp_path / "index.html").write_text(
        '<img src="a.png"><a href="b.html#top">ok</a><a href="#here" id="here">self</a>'
        '<a href="https://example.org">external link: fine</a>'
        '<img src="gone.png"><a href="b.html#nowhere">x</a>'
        '<script src="https://cdn.example.org/x.js"></script>',
        encoding="utf-8",
    )
    problems = check_site(tmp_path)
    assert len(problems) == 3
    assert "gone.png" in problems[0]
    assert "no id 'nowhere' in b.html" in problems[1]
    assert "loads from the network" in problems[2]


def test_check_site_rejects_network_stylesheets_and_fonts(tmp_path: Path) -> None:
    (tmp_path / "_static" / "fonts").mkdir(parents=True)
    (tmp_path / "_static" / "fonts" / "ok.woff2").write_bytes(b"font")
    (tmp_path / "_static" / "ok.css").write_text(
        "/* https://example.org in a comment is fine */\n"
        "@font-face { src: url(fonts/ok.woff2); }\n"
        ".a { background: url(\"data:image/svg+xml;charset=utf-8,"
        "%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E\"); }\n",
        encoding="utf-8",
    )
    (tmp_path / "_static" / "bad.css").write_text(
        '@import "https://fonts.example.org/css?family=X";\n'
        "@font-face { src: url('//fonts.example.org/x.woff2') format('woff2'), url(fonts/gone.woff2); }\n",
        encoding="utf-8",
    )
    # a theme's Jinja template source copied into _static is no page: not checked
    macros = '<script src="{{ pathto(x) }}"></script>'
    (tmp_path / "_static" / "macros.html").write_text(macros, encoding="utf-8")
    (tmp_path / "index.html").write_text(
        '<link rel="stylesheet" href="_static/ok.css">'
        '<link rel="stylesheet" href="https://cdn.example.org/theme.css">'
        '<link rel="preload" as="font" href="https://cdn.example.org/f.woff2">'
        "<style>body { font-family: X; src: url(https://cdn.example.org/s.woff); }</style>"
        '<div style="background: url(http://example.org/bg.png)"></div>'
        '<a href="https://example.org/page.html">a link is fine</a>',
        encoding="utf-8",
    )
    problems = check_site(tmp_path)
    text = "\n".join(problems)
    assert len(problems) == 7, text
    assert "<link href='https://cdn.example.org/theme.css'> loads from the network" in text
    assert "<link href='https://cdn.example.org/f.woff2'> loads from the network" in text
    assert "index.html: inline style: url('https://cdn.example.org/s.woff') loads from the network" in text
    assert "index.html: inline style: url('http://example.org/bg.png') loads from the network" in text
    assert "_static/bad.css: url('https://fonts.example.org/css?family=X') loads from the network" in text
    assert "_static/bad.css: url('//fonts.example.org/x.woff2') loads from the network" in text
    assert "_static/bad.css: url('fonts/gone.woff2') -> missing" in text
    assert "ok.css" not in text and "macros.html" not in text and "page.html" not in text


def test_css_refs() -> None:
    css = """/* url(https://no.example) */ @import 'a.css'; @import "b.css";
    x { src: url( "c.woff2" ) format("woff2"), url('d.woff'), url(e.ttf); }"""
    assert css_refs(css) == ["a.css", "b.css", "c.woff2", "d.woff", "e.ttf"]


# ----------------------------------------------------------------------------- a real build


def _small_repo(root: Path) -> None:
    widget_output = {
        "output_type": "display_data",
        "metadata": {},
        "data": {
            "application/vnd.jupyter.widget-view+json": {
                "model_id": "abc",
                "version_major": 2,
                "version_minor": 0,
            },
            "image/png": __import__("base64").b64encode(_png(6, 5)).decode(),
            "text/plain": "interactive(children=...)",
        },
    }
    widget_state = {
        "widgets": {
            "application/vnd.jupyter.widget-state+json": {"state": {}, "version_major": 2, "version_minor": 0}
        }
    }
    _write_notebook(
        root / "notebooks" / "00_alpha.ipynb",
        [
            _md(
                "# Alpha\n\nInline $\\alpha_i \\le \\Big\\lceil x \\Big\\rceil$ and\n\n"
                "$$\\sum_i x_i = 1$$\n\n"
                "See [notebook 10](10_beta.ipynb), the [README](../README.md), the "
                "[code](../dlsched/mod.py) and ![a figure](../figures/fig_a_00_one.png).",
                "m1",
            ),
            _code("explore()", "c1", [widget_output]),
        ],
        metadata=widget_state,
    )
    _write_notebook(
        root / "notebooks" / "10_beta.ipynb",
        [_md("# Beta (stored)\n\nBack to [alpha](00_alpha.ipynb).", "m1")],
    )
    _write_notebook(
        root / "build" / "reproduce" / "10_beta.ipynb",
        [
            _md("# Beta (executed)\n\nBack to [alpha](00_alpha.ipynb#alpha).\n\n## Paper vs ours", "m1"),
            _code(
                "print('paper vs ours')",
                "c1",
                [{"output_type": "stream", "name": "stdout", "text": "paper 1.0 ours 1.1\n"}],
            ),
        ],
    )
    fidelity = (
        f"\n## Fidelity\n\n{FIDELITY_START}\n| notebook | status |\n|---|---|\n"
        "| [alpha](notebooks/00_alpha.ipynb) | reproduces |\n"
        "| [beta, section](notebooks/10_beta.ipynb#beta-executed) | differs |\n"
        f"{FIDELITY_END}\n"
    )
    (root / "README.md").write_text(TABLE + fidelity, encoding="utf-8")
    (root / "figures").mkdir()
    (root / "figures" / "fig_a_00_one.png").write_bytes(_png(8, 6))
    (root / "dlsched").mkdir()
    (root / "dlsched" / "mod.py").write_text("x = 1\n", encoding="utf-8")


@pytest.mark.filterwarnings("ignore:.*Check CHANGES for Sphinx API modifications")  # myst-parser's, not ours
def test_build_small_site(tmp_path: Path) -> None:
    for module in ("sphinx", "myst_nb", "latex2mathml"):
        pytest.importorskip(module, reason="the site tools are in the 'book' extra (make book installs them)")
    _small_repo(tmp_path)
    out = tmp_path / "build" / "site"
    logged: list[str] = []
    def build():
        return build_book(out, tmp_path / "build" / "reproduce", tmp_path / "notebooks", tmp_path / "figures",
                          tmp_path / "README.md", log=logged.append)

    index = build()
    assert index == out / "index.html" and index.is_file()
    assert any(line.startswith("page 00_alpha: stored outputs") for line in logged)
    assert any(line.startswith("page 10_beta: executed outputs") for line in logged)
    assert check_site(out) == []

    alpha = (out / "00_alpha.html").read_text(encoding="utf-8")
    beta = (out / "10_beta.html").read_text(encoding="utf-8")
    home = index.read_text(encoding="utf-8")
    assert 'href="10_beta.html"' in alpha and 'href="index.html"' in alpha
    assert 'href="00_alpha.html#alpha"' in beta
    assert "Beta (executed)" in beta and "paper 1.0 ours 1.1" in beta
    assert "<math" in alpha and "\\lceil" not in alpha  # MathML written at build time
    assert "widget-view" not in alpha and "require.js" not in alpha  # the widget's static PNG instead
    for page in (alpha, beta, home):
        assert not re.search(r"<script[^>]+src=\"(https?:)?//", page)
    assert "00_alpha.html" in home and "10_beta.html" in home and "a table only" in home

    # the README's fidelity table, its links rewritten to the site's pages
    assert 'id="fidelity-what-reproduces"' in home
    fidelity = home[home.index('id="fidelity-what-reproduces"') : home.index('id="figures"')]
    assert "<table" in fidelity and "reproduces" in fidelity and "differs" in fidelity
    assert 'href="00_alpha.html"' in fidelity and 'href="10_beta.html#beta-executed"' in fidelity
    assert "notebooks/" not in fidelity

    # the book theme: the sidebar groups the pages under one caption per paper, each page has an
    # "On this page" table of contents, and code cells sit in an open (collapsible) <details>
    assert "sphinx-book-theme.css" in home
    for page in (alpha, beta, home):
        captions = re.findall(r'<span class="caption-text">([^<]+)</span>', page)
        assert captions[:2] == ["Overview", "OASiS"], captions
    toc = beta[beta.index('id="pst-page-toc-nav"') :]
    assert "On this page" in beta and 'href="#paper-vs-ours"' in toc[: toc.index("</nav>")]
    assert '<details class="dlsched-code" open>' in alpha and '<details class="dlsched-code" open>' in beta

    images = re.findall(r"<img[^>]+src=\"([^\"]+)\"", alpha) + re.findall(r"<img[^>]+src=\"([^\"]+)\"", home)
    assert len(images) >= 3  # figure link, widget PNG, index figure
    for src in images:
        assert (out / src).is_file() and (out / src).stat().st_size > 0, src

    # A broken link fails the build and leaves the previous site in place.
    bad = tmp_path / "notebooks" / "00_alpha.ipynb"
    bad.write_text(
        bad.read_text(encoding="utf-8").replace("10_beta.ipynb", "12_gone.ipynb"), encoding="utf-8"
    )
    with pytest.raises(BookLinkError, match="12_gone.ipynb"):
        build()
    assert (out / "00_alpha.html").read_text(encoding="utf-8") == alpha

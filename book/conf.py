"""Sphinx configuration of the dlsched companion site, built by ``make book`` (``dlsched/book.py``).

Do not run ``sphinx-build`` on this folder directly: :func:`dlsched.book.build_book` stages copies
of the executed notebooks and a generated ``index.md`` into ``build/book-src`` and runs Sphinx with
this folder as its configuration directory (``-c book``).

Tool: Sphinx + MyST-NB (both maintained by the Executable Books project, the engine of Jupyter Book
1), chosen because it installs cleanly from PyPI against constraints.txt (pure-Python wheels), renders
the stored outputs of already executed notebooks without executing them (``nb_execution_mode =
"off"``) and builds fully offline. Jupyter Book 2 / mystmd (npm ``mystmd``) was tried and rejected:
``myst build --html`` fetches its site theme from the internet at build time, which fails here and in
CI. Math is converted to MathML at build time (``_ext/dlsched_mathml.py``, pure-Python
``latex2mathml``) instead of loading MathJax from a CDN, so pages need no network and no math script.

Look: sphinx-book-theme (the theme of Jupyter Book 1, built on pydata-sphinx-theme), installed from
PyPI by the ``book`` extra. Its static files (Bootstrap, FontAwesome icons and fonts, its CSS and
JavaScript) are shipped inside the wheels and copied into the site, so a page loads nothing from
off the site (:func:`dlsched.book.check_site` rejects any network script, stylesheet, font or
image). Every theme feature that would reach the network is left off below: launch buttons
(Binder/Colab/Thebe), repository/issue/edit buttons, icon links, analytics, the version switcher,
the announcement bar and the ethical-ads sidebar. The primary sidebar lists the notebooks under one
caption per paper (the toctrees of the generated ``index.md``), the secondary sidebar ("On this
page") is each page's table of contents, and ``_ext/dlsched_codetoggle.py`` puts each code cell's
source in an open ``<details>`` element that a reader can collapse (no JavaScript needed).
"""

from __future__ import annotations

import sys
from pathlib import Path

_EXT = str(Path(__file__).resolve().parent / "_ext")
if _EXT not in sys.path:
    sys.path.insert(0, _EXT)

project = "dlsched"
author = "the dlsched authors"
copyright = "the dlsched authors"  # noqa: A001 (Sphinx's name)

extensions = [
    "myst_nb",  # also loads myst_parser (for the generated index.md)
    "dlsched_mathml",
    "dlsched_codetoggle",
]

# Never execute: the pages show the outputs stored in the staged notebooks (those of
# `make reproduce`, or the source notebooks' own executed outputs).
nb_execution_mode = "off"
nb_merge_streams = True
# ipywidgets outputs carry a static image/png next to the widget view: show the image, and load no
# widget JavaScript (it would come from a CDN and show an empty placeholder without a kernel).
nb_mime_priority_overrides = [
    ("html", "application/vnd.jupyter.widget-view+json", None),
    ("html", "application/vnd.jupyter.widget-state+json", None),
]
nb_ipywidgets_js: dict[str, dict[str, str]] = {}

myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3  # `[x](11_oasis_proofs.ipynb#some-heading)` links resolve

html_math_renderer = "mathml"  # registered by _ext/dlsched_mathml.py; no MathJax, no CDN

exclude_patterns = ["_repo/**", ".doctrees/**", "**.ipynb_checkpoints"]
suppress_warnings = ["myst.header"]  # notebooks may start sections at ### (not an error)

html_theme = "sphinx_book_theme"  # loads nothing from the network with the options below
html_theme_options = {
    # primary sidebar: the toctrees of index.md, one caption per paper, every page listed
    "home_page_in_toc": True,
    "show_navbar_depth": 1,
    "max_navbar_depth": 1,  # pages only; their sections are in "On this page"
    "collapse_navbar": False,
    # secondary sidebar: the page's own table of contents
    "secondary_sidebar_items": ["page-toc"],
    "toc_title": "On this page",
    "show_toc_level": 2,
    # no top navbar (the search field is in the primary sidebar), as in Jupyter Book
    "navbar_persistent": [],
    # article header: fullscreen and the light/dark switch (local JavaScript); no download menu
    # (its .ipynb/.md source links would need html_copy_source)
    "use_download_button": False,
    "use_fullscreen_button": True,
    # nothing that reaches the network
    "launch_buttons": {},
    "repository_url": "",
    "use_repository_button": False,
    "use_issues_button": False,
    "use_source_button": False,
    "use_edit_page_button": False,
    "icon_links": [],
    "analytics": {},
    "announcement": "",
    "primary_sidebar_end": [],
    "show_version_warning_banner": False,
    "extra_footer": "",
    "footer_content_items": ["copyright"],
}
# Light unless the reader picks dark (the switcher in the article header): the pages then also read
# well without JavaScript, and the theme logs no "invalid theme mode" console error on a first visit.
html_context = {"default_mode": "light"}
html_title = "dlsched companion"
html_static_path = ["_static"]
html_css_files = ["dlsched.css"]
html_favicon = "_static/favicon.svg"  # else browsers request /favicon.ico and log a 404
html_copy_source = False
html_show_sourcelink = False
html_last_updated_fmt = None

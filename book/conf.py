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

html_theme = "alabaster"  # ships with Sphinx; loads nothing from the network
html_theme_options = {
    "page_width": "1280px",
    "sidebar_width": "260px",
    "show_powered_by": False,
    "show_relbars": True,
}
html_title = "dlsched companion"
html_static_path = ["_static"]
html_css_files = ["dlsched.css"]
html_favicon = "_static/favicon.svg"  # else browsers request /favicon.ico and log a 404
html_copy_source = False
html_show_sourcelink = False
html_last_updated_fmt = None

"""Sphinx HTML math renderer that writes MathML at build time (no MathJax, no network).

Registered as ``html_math_renderer = "mathml"``. Each ``$...$`` / ``$$...$$`` of the notebooks is
converted by the pure-Python ``latex2mathml`` package; browsers render MathML Core natively, so a
page needs no math JavaScript (Sphinx's default, MathJax, would be loaded from a CDN). A formula
``latex2mathml`` cannot convert is shown as its TeX source in ``<code>`` with a build warning.
"""

from __future__ import annotations

import html
import re

from docutils import nodes
from latex2mathml.converter import convert
from latex2mathml.symbols_parser import convert_symbol
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number

logger = logging.getLogger(__name__)

# latex2mathml 3.81 leaves a few commands unconverted as text, e.g. <mo>\{</mo> after \Big,
# <mo>\lceil</mo> after \Big, <mi>\arg</mi>; map them to their character (or drop the backslash).
_LEFTOVER = re.compile(r">\\([A-Za-z]+|[{}|])<")


def _leftover(match: re.Match[str]) -> str:
    name = "\\" + match.group(1)
    code = convert_symbol(name)
    return f">&#x{code};<" if code else f">{match.group(1)}<"


def to_mathml(latex: str, display: str, where: nodes.Node | None = None) -> str:
    """Convert one TeX formula to a ``<math>`` element (or ``<code>`` with its TeX on failure)."""
    try:
        return _LEFTOVER.sub(_leftover, convert(latex.strip(), display=display))
    except Exception as exc:  # latex2mathml raises several exception types on bad/unknown TeX
        logger.warning(
            "MathML conversion failed (%s: %s) for %r", type(exc).__name__, exc, latex, location=where
        )
        return f'<code class="math-tex">{html.escape(latex)}</code>'


def visit_math(self, node: nodes.Element) -> None:
    self.body.append(self.starttag(node, "span", "", CLASS="math notranslate"))
    self.body.append(to_mathml(node.astext(), "inline", node))
    self.body.append("</span>")
    raise nodes.SkipNode


def visit_displaymath(self, node: nodes.Element) -> None:
    self.body.append(self.starttag(node, "div", CLASS="math notranslate nohighlight"))
    if node.get("number"):
        number = get_node_equation_number(self, node)
        self.body.append(f'<span class="eqno">({number})')
        self.add_permalink_ref(node, "Link to this equation")
        self.body.append("</span>")
    latex = node.astext()
    parts = [latex] if node.get("nowrap") else [p for p in latex.split("\n\n") if p.strip()]
    for part in parts:
        self.body.append(to_mathml(part, "block", node))
    self.body.append("</div>\n")
    raise nodes.SkipNode


def setup(app: Sphinx) -> dict[str, object]:
    app.add_html_math_renderer("mathml", (visit_math, None), (visit_displaymath, None))
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}

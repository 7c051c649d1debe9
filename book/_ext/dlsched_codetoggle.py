"""Collapsible code cells: each code cell's source in an open ``<details>`` element (no JavaScript).

MyST-NB renders a code cell as ``div.cell > div.cell_input + div.cell_output``. This post-transform
wraps every ``cell_input`` in a :class:`CodeToggleNode`, written as

.. code-block:: html

    <details class="dlsched-code" open>
      <summary>
        <span class="dlsched-hide">Hide code</span><span class="dlsched-show">Show code</span>
      </summary>
      <div class="cell_input ...">...</div>
    </details>

so the code is shown by default (and stays readable in a browser without JavaScript) and a click on
the summary collapses or expands it; the outputs (figures, tables) stay visible. Cells that the
notebook tags ``hide-input``/``hide-cell`` keep MyST-NB's own closed toggle and are left alone.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxTranslator

SUMMARY = (
    '<summary title="Show or hide the code of this cell">'
    '<span class="dlsched-hide">Hide code</span><span class="dlsched-show">Show code</span>'
    "</summary>\n"
)


class CodeToggleNode(nodes.Element):
    """An open ``<details>`` around one code cell's source."""


def visit_code_toggle(self: SphinxTranslator, node: CodeToggleNode) -> None:
    self.body.append('<details class="dlsched-code" open>\n' + SUMMARY)


def depart_code_toggle(self: SphinxTranslator, node: CodeToggleNode) -> None:
    self.body.append("</details>\n")


class WrapCodeCells(SphinxPostTransform):
    """Wrap the source of every code cell not hidden by the notebook in a :class:`CodeToggleNode`."""

    default_priority = 198  # before MyST-NB's HideInputCells (199), which skips cells without hide_mode
    formats = ("html",)

    def run(self, **kwargs: object) -> None:
        for cell in list(self.document.findall(nodes.container)):
            if cell.get("nb_element") != "cell_code" or cell.get("hide_mode") or not cell.children:
                continue
            source = cell.children[0]
            if source.get("nb_element") != "cell_code_source":
                continue
            toggle = CodeToggleNode()
            cell.replace(source, toggle)
            toggle.append(source)


def setup(app: Sphinx) -> dict[str, object]:
    # only HTML builders run WrapCodeCells (formats), so no other builder meets the node
    app.add_node(CodeToggleNode, html=(visit_code_toggle, depart_code_toggle))
    app.add_post_transform(WrapCodeCells)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}

"""Live exploration: sliders over a model, with a static figure where no widget frontend exists.

Each wing's ``explore`` module (``dlsched.oasis.explore``, ``dlsched.optimus.explore``, ...) builds
an :class:`Explorer`: a few numeric :class:`Control` s and a ``render`` function that computes the
model at given control values and returns ``(figure, readout)``. Displaying an explorer in a
notebook cell produces ONE output whose MIME bundle holds

* ``application/vnd.jupyter.widget-view+json``: the live ipywidgets view (sliders, the figure as an
  image, the readout as text), which JupyterLab renders;
* ``image/png``: the figure at the default values, and ``text/plain``: the readout at the default
  values, which every other renderer (papermill, nbval, nbconvert, the static site, GitHub) shows.

So the same cell is live in JupyterLab and deterministic in batch runs: nbval ignores the
widget-view part (model ids are random) and compares the readout text.

CSS classes for browser tests: the view is a ``VBox`` with class ``dlsched-explore``, each slider
has class ``dlsched-control`` and the readout (an ``HTML`` widget) has class ``dlsched-readout``.
Sliders update on release (``continuous_update=False``): each update recomputes the model.
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

__all__ = ["Control", "Explorer", "WIDGET_MIME"]

#: MIME type of a Jupyter widget view.
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


@dataclass(frozen=True)
class Control:
    """One slider: ``name`` (keyword passed to ``render``), its range, step and default value.

    Parameters
    ----------
    name : str
        Keyword argument of the explorer's ``render`` function.
    label : str
        Text shown next to the slider.
    low, high, step : float
        Range and step; ``low < high``, ``step > 0``.
    value : float
        Default value, in ``[low, high]``.
    integer : bool, default False
        An integer slider (values are ``int``).
    """

    name: str
    label: str
    low: float
    high: float
    step: float
    value: float
    integer: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ValueError(f"Control.name must be an identifier, got {self.name!r}")
        for field in ("low", "high", "step", "value"):
            v = getattr(self, field)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ValueError(f"Control {self.name!r}: {field} must be a finite number, got {v!r}")
        if not self.low < self.high:
            raise ValueError(f"Control {self.name!r}: low={self.low!r} must be < high={self.high!r}")
        if not self.step > 0:
            raise ValueError(f"Control {self.name!r}: step must be > 0, got {self.step!r}")
        self.check(self.value)

    def check(self, value: object) -> float | int:
        """``value`` as the control's type, or ValueError naming the control, if out of range."""
        ok = not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)
        if not ok or not self.low - 1e-12 <= value <= self.high + 1e-12:
            raise ValueError(
                f"{self.name}={value!r} is outside the control's range [{self.low:g}, {self.high:g}]"
            )
        if self.integer:
            if float(value) != int(value):
                raise ValueError(f"{self.name}={value!r} must be a whole number")
            return int(value)
        return float(value)


def _png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


class Explorer:
    """Controls over a live model (see the module docstring).

    Parameters
    ----------
    title : str
        Shown above the controls.
    controls : sequence of Control
        Distinct names, each a keyword of ``render``.
    render : callable
        ``render(**values) -> (matplotlib Figure, str)``: the model at the control values, a
        figure and a one- or few-line readout. Must be deterministic in the values.
    """

    def __init__(self, title: str, controls: Sequence[Control], render: Callable[..., tuple[Figure, str]]):
        controls = tuple(controls)
        if not controls:
            raise ValueError("Explorer needs at least one Control")
        names = [c.name for c in controls]
        if len(set(names)) != len(names):
            raise ValueError(f"Explorer: control names must be distinct, got {names}")
        if not callable(render):
            raise TypeError(f"Explorer.render must be callable, got {type(render).__name__}")
        self.title = str(title)
        self.controls = controls
        self._render = render
        self._widget = None

    @property
    def defaults(self) -> dict[str, float | int]:
        """The default value of every control."""
        return {c.name: c.check(c.value) for c in self.controls}

    def _values(self, values: Mapping[str, object]) -> dict[str, float | int]:
        known = {c.name: c for c in self.controls}
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise ValueError(f"unknown control(s) {unknown}; this explorer has {list(known)}")
        out = self.defaults
        out.update({k: known[k].check(v) for k, v in values.items()})
        return out

    def view(self, **values) -> tuple[Figure, str]:
        """The figure and the readout at the given values (defaults for the others)."""
        fig, text = self._render(**self._values(values))
        if not isinstance(fig, Figure):
            raise TypeError(f"render must return a matplotlib Figure first, got {type(fig).__name__}")
        return fig, str(text)

    def readout(self, **values) -> str:
        """Only the readout at the given values (the figure is closed)."""
        fig, text = self.view(**values)
        plt.close(fig)
        return text

    def static(self, **values) -> tuple[bytes, str]:
        """PNG bytes of the figure and the readout at the given values."""
        fig, text = self.view(**values)
        return _png(fig), text

    # ------------------------------------------------------------------ widgets

    def widget(self, initial: tuple[bytes, str] | None = None):
        """The live ipywidgets view (built once): sliders, readout, figure.

        ``initial`` is ``static()`` at the defaults when the caller has it already.
        """
        if self._widget is not None:
            return self._widget
        import ipywidgets as w

        png, text = initial if initial is not None else self.static()
        sliders = []
        for c in self.controls:
            cls = w.IntSlider if c.integer else w.FloatSlider
            kind = int if c.integer else float
            s = cls(value=kind(c.value), min=kind(c.low), max=kind(c.high), step=kind(c.step),
                    description=c.label, continuous_update=False,
                    style={"description_width": "initial"}, layout=w.Layout(width="480px"))
            s.add_class("dlsched-control")
            sliders.append(s)
        readout = w.HTML(value=self._html(text))
        readout.add_class("dlsched-readout")
        image = w.Image(value=png, format="png")

        def update(_change=None) -> None:
            values = {c.name: s.value for c, s in zip(self.controls, sliders, strict=True)}
            try:
                png, text = self.static(**values)
            except Exception as exc:  # shown to the reader, never raised into the frontend
                readout.value = self._html(f"{type(exc).__name__}: {exc}")
                return
            image.value = png
            readout.value = self._html(text)

        for s in sliders:
            s.observe(update, names="value")
        box = w.VBox([w.HTML(value=f"<b>{html.escape(self.title)}</b>"), *sliders, readout, image])
        box.add_class("dlsched-explore")
        self._widget = box
        return box

    @staticmethod
    def _html(text: str) -> str:
        return f"<pre style='margin:0'>{html.escape(text)}</pre>"

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, object]:
        png, text = self.static()
        bundle: dict[str, object] = {"text/plain": text, "image/png": base64.b64encode(png).decode("ascii")}
        try:
            view = self.widget((png, text))._repr_mimebundle_()
        except ImportError:  # no ipywidgets: the static figure alone
            return bundle
        if isinstance(view, tuple):
            view = view[0]
        if view and WIDGET_MIME in view:
            bundle[WIDGET_MIME] = view[WIDGET_MIME]
        return bundle

    def __repr__(self) -> str:
        return f"Explorer({self.title!r}, controls={[c.name for c in self.controls]})"

"""The live explore sections (dlsched.explore and each wing's explorer)."""

from __future__ import annotations

import base64

import matplotlib.pyplot as plt
import numpy as np
import pytest

from dlsched import registry
from dlsched.explore import WIDGET_MIME, Control, Explorer


def _square(x: float, n: int):
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, x * n])
    return fig, f"x = {x:g}, n = {n}, x*n = {x * n:g}"


@pytest.fixture
def toy() -> Explorer:
    controls = [Control("x", "x", 0.0, 2.0, 0.5, 1.0), Control("n", "n", 1, 5, 1, 2, integer=True)]
    return Explorer("toy", controls, _square)


# ------------------------------------------------------------------ generic


def test_defaults_and_readout(toy):
    assert toy.defaults == {"x": 1.0, "n": 2}
    assert toy.readout() == "x = 1, n = 2, x*n = 2"
    assert toy.readout(x=2.0, n=3) == "x = 2, n = 3, x*n = 6"
    assert isinstance(toy.readout(n=3.0), str)


@pytest.mark.parametrize(
    ("values", "match"),
    [({"y": 1}, r"unknown control\(s\) \['y'\]"), ({"x": 3.0}, r"x=3.0 is outside"),
     ({"n": 1.5}, r"n=1.5 must be a whole number"), ({"x": float("nan")}, "x=nan"), ({"x": True}, "x=True")],
)
def test_bad_values_name_the_control(toy, values, match):
    with pytest.raises(ValueError, match=match):
        toy.readout(**values)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"low": 1.0, "high": 1.0}, "low=1.0 must be < high"), ({"step": 0.0}, "step must be > 0"),
     ({"value": 9.0}, "value=9.0|x=9.0 is outside"), ({"name": "not valid"}, "identifier")],
)
def test_bad_controls(kwargs, match):
    base = {"name": "x", "label": "x", "low": 0.0, "high": 2.0, "step": 0.5, "value": 1.0}
    with pytest.raises(ValueError, match=match):
        Control(**{**base, **kwargs})


def test_explorer_validation():
    c = Control("x", "x", 0.0, 1.0, 0.1, 0.5)
    with pytest.raises(ValueError, match="at least one"):
        Explorer("t", [], _square)
    with pytest.raises(ValueError, match="distinct"):
        Explorer("t", [c, c], _square)
    with pytest.raises(TypeError, match="callable"):
        Explorer("t", [c], 3)
    bad = Explorer("t", [c], lambda x: ("not a figure", "text"))
    with pytest.raises(TypeError, match="Figure"):
        bad.readout()


def test_mimebundle_has_static_figure_readout_and_widget(toy):
    # figures an earlier test left open are not this test's concern: only its own must be closed
    before = set(plt.get_fignums())
    bundle = toy._repr_mimebundle_()
    assert bundle["text/plain"] == toy.readout()
    assert base64.b64decode(bundle["image/png"]).startswith(b"\x89PNG")
    assert bundle[WIDGET_MIME]["model_id"]
    # the static part is deterministic
    assert toy._repr_mimebundle_()["image/png"] == bundle["image/png"]
    opened = set(plt.get_fignums()) - before
    assert not opened, "figures must be closed, or the inline backend shows them twice"


def test_moving_a_slider_changes_the_readout(toy):
    box = toy.widget()
    assert "dlsched-explore" in box._dom_classes
    sliders = [w for w in box.children if "dlsched-control" in w._dom_classes]
    readout = next(w for w in box.children if "dlsched-readout" in w._dom_classes)
    image = box.children[-1]
    before, png = readout.value, image.value
    assert "x*n = 2" in before
    sliders[1].value = 4
    assert "x*n = 4" in readout.value and image.value != png
    sliders[0].value = 0.5
    assert "x = 0.5, n = 4, x*n = 2" in readout.value


def test_a_failing_render_is_shown_not_raised():
    def render(x):
        if x > 0.5:
            raise ValueError("too big")
        return _square(x, 1)

    box = Explorer("t", [Control("x", "x", 0.0, 1.0, 0.1, 0.2)], render).widget()
    readout = next(w for w in box.children if "dlsched-readout" in w._dom_classes)
    box.children[1].value = 0.9
    assert "ValueError: too big" in readout.value


# ------------------------------------------------------------------ the wings' explorers


def _changes(explorer: Explorer, **values) -> None:
    default = explorer.readout()
    assert explorer.readout() == default, "same values, same readout"
    assert explorer.readout(**values) != default


def test_oasis_prices_and_payoff():
    from dlsched.oasis.explore import prices_and_payoff, shifted
    from dlsched.oasis.policy import price_parameters

    wl = registry.make_workload("oasis", seed=0, n_jobs=20, T=30, H=6, K=6)
    e = prices_and_payoff(wl, wl.specs[3])
    _changes(e, load=0.9)
    assert "no feasible schedule" in e.readout(load=0.95) or "rejected" in e.readout(load=0.95)
    p = price_parameters(wl)
    s = shifted(p, 1.0, 2.0)
    assert np.isclose(s.log_l1 - p.log_l1, 2 * np.log(10)) and np.all(s.log_u1 >= s.log_l1)


def test_oasis_preload_sets_usage_and_prices():
    from dlsched.oasis.policy import OASiS

    wl = registry.make_workload("oasis", seed=0, n_jobs=5, T=10, H=3, K=3)
    pol = OASiS.from_workload(wl).prepare(wl.cluster, 10)
    p0 = pol.p.copy()
    pol.preload(0.5)
    assert np.allclose(pol.g, 0.5 * pol.state()["capacity_w"][None])
    assert np.all(pol.p >= p0)
    with pytest.raises(ValueError, match="fraction must be in"):
        pol.preload(1.5)


def test_optimus_fits_as_samples_arrive():
    from dlsched.optimus import analysis
    from dlsched.optimus.explore import fits_as_samples_arrive
    from dlsched.optimus.workload import job_model

    epochs = analysis.epoch_losses()
    e = fits_as_samples_arrive(epochs, "iris_mlp_sgd_slow", job_model("resnet50", "async"))
    _changes(e, fraction=1.0)
    _changes(e, n_pairs=40)
    with pytest.raises(ValueError, match="config='nope'"):
        fits_as_samples_arrive(epochs, "nope", job_model("resnet50", "async"))


def test_pdors_internal_vs_external():
    from dlsched.pdors.explore import internal_vs_external

    wl = registry.make_workload("pdors", seed=0, n_jobs=6, n_machines=4, T=20)
    e = internal_vs_external(wl, wl.specs[0], 20)
    _changes(e, b_external=100.0)
    assert "internal" in e.readout()


def test_aonline_round_prices():
    from dlsched.aonline.explore import round_prices

    e = round_prices(5, 2, 2, T=64)
    _changes(e, used=0.5)
    assert "payoff eta = 1 -> admitted" in e.readout(used=0.0)
    assert "rejected" in e.readout(used=1.0)


def test_specon_categories():
    from dlsched.specon.explore import categories

    wl = registry.make_workload("specon", seed=0, cluster=1)
    e = categories(wl)
    _changes(e, alpha=0.1)

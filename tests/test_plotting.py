"""Tests for dlsched.plotting: naming scheme, deterministic and atomic output, silence."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import matplotlib as mpl
import matplotlib.pyplot as plt
import pytest

from dlsched.plotting import PAPER_KEYS, SAVEFIG_DPI, savefig, set_style


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


_MAKE_FIGURE = """
import matplotlib.pyplot as plt
from dlsched.plotting import set_style
set_style()
fig, ax = plt.subplots(figsize=(3, 2))
ax.plot([0, 1, 2, 3], [1.0, 3.0, 2.0, 2.5], marker="o", label="utility")
ax.set_xlabel("load")
ax.set_title("tiny")
ax.legend()
"""


def _make_figure():
    namespace: dict = {}
    exec(_MAKE_FIGURE, namespace)
    return namespace["fig"]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_set_style_is_idempotent_and_sets_deterministic_rc():
    set_style()
    first = dict(mpl.rcParams)
    set_style()
    assert dict(mpl.rcParams) == first
    assert mpl.rcParams["savefig.dpi"] == SAVEFIG_DPI
    assert mpl.rcParams["svg.hashsalt"] is not None
    assert mpl.rcParams["font.sans-serif"][0] == "DejaVu Sans"
    assert mpl.rcParams["axes.grid"]  # whitegrid


def test_two_saves_are_byte_identical(tmp_path):
    formats = ("png", "pdf", "svg")
    first = savefig(_make_figure(), "fig_oasis_01_tiny", tmp_path / "a", formats=formats)
    second = savefig(_make_figure(), "fig_oasis_01_tiny", tmp_path / "b", formats=formats)
    assert [p.name for p in first] == [f"fig_oasis_01_tiny.{f}" for f in formats]
    assert [_sha(p) for p in first] == [_sha(p) for p in second]
    # Identical within one second is not enough: the date metadata must be gone.
    pdf = first[1].read_bytes()
    assert b"CreationDate" not in pdf and b"ModDate" not in pdf and b"Producer" not in pdf
    assert b"Software" not in first[0].read_bytes()
    assert b"<dc:date>" not in first[2].read_bytes()


def test_save_in_another_process_is_byte_identical(tmp_path):
    ours = savefig(_make_figure(), "fig_overview_02_tiny", tmp_path / "here")
    script = _MAKE_FIGURE + (
        "from dlsched.plotting import savefig\n"
        f"savefig(fig, 'fig_overview_02_tiny', {str(tmp_path / 'there')!r})\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, capture_output=True)
    theirs = [tmp_path / "there" / p.name for p in ours]
    assert [_sha(p) for p in ours] == [_sha(p) for p in theirs]


@pytest.mark.parametrize(
    "bad",
    [
        "oasis_01_tiny",  # no fig_ prefix
        "fig_oasis_1_tiny",  # one digit
        "fig_oasis_01_Tiny",  # upper case
        "fig_oasis_01_tiny.png",  # extension
        "fig_oasis_01_",  # empty what
        "fig_oasis_01_tiny-plot",  # dash
        "fig_nosuchpaper_01_tiny",  # unknown paper key
        "../fig_oasis_01_tiny",  # path
    ],
)
def test_bad_names_are_rejected_and_nothing_is_written(tmp_path, bad):
    folder = tmp_path / "figs"
    with pytest.raises(ValueError, match="name=") as info:
        savefig(_make_figure(), bad, folder)
    assert repr(bad) in str(info.value)
    assert not folder.exists()


def test_non_string_name_is_a_type_error(tmp_path):
    with pytest.raises(TypeError, match="name"):
        savefig(_make_figure(), 3, tmp_path)  # type: ignore[arg-type]


def test_non_figure_is_a_type_error(tmp_path):
    with pytest.raises(TypeError, match="Figure"):
        savefig(plt.subplots()[1], "fig_oasis_01_tiny", tmp_path)  # an Axes, not a Figure


@pytest.mark.parametrize("formats", [("png",), ("pdf",), ("svg", "png")])
def test_formats_are_respected(tmp_path, formats):
    paths = savefig(_make_figure(), "fig_specon_03_only", tmp_path, formats=formats)
    assert paths == [tmp_path / f"fig_specon_03_only.{f}" for f in formats]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in paths)
    magic = {"png": b"\x89PNG", "pdf": b"%PDF", "svg": b"<?xml"}
    for fmt, path in zip(formats, paths, strict=True):
        assert path.read_bytes().startswith(magic[fmt])


@pytest.mark.parametrize("formats", [(), ("jpg",), ("png", "png")])
def test_bad_formats_are_rejected(tmp_path, formats):
    with pytest.raises(ValueError, match="formats"):
        savefig(_make_figure(), "fig_pdors_04_x", tmp_path / "f", formats=formats)
    assert not (tmp_path / "f").exists()


def test_failure_leaves_no_partial_output(tmp_path, monkeypatch):
    fig = _make_figure()
    old = savefig(fig, "fig_aonline_05_x", tmp_path, formats=("png",))[0].read_bytes()
    original = fig.savefig

    def broken(fname, *, format, **kwargs):
        if format == "pdf":
            Path(fname).write_bytes(b"half")
            raise RuntimeError("disk full")
        return original(fname, format=format, **kwargs)

    monkeypatch.setattr(fig, "savefig", broken)
    ax = fig.axes[0]
    ax.set_title("changed")
    with pytest.raises(RuntimeError, match="disk full"):
        savefig(fig, "fig_aonline_05_x", tmp_path, formats=("png", "pdf"))
    # The old PNG is untouched (all formats are replaced only together), no PDF, no temp files.
    assert [p.name for p in tmp_path.iterdir()] == ["fig_aonline_05_x.png"]
    assert (tmp_path / "fig_aonline_05_x.png").read_bytes() == old


def test_nothing_is_printed(tmp_path, capsys):
    set_style()
    savefig(_make_figure(), "fig_optimus_06_quiet", tmp_path, formats=("png", "pdf", "svg"))
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_paper_keys_cover_the_five_papers():
    assert set(PAPER_KEYS) >= {"oasis", "optimus", "pdors", "aonline", "specon"}
    for key in PAPER_KEYS:
        assert key.isascii() and key.isalnum() and key.islower()


def test_draw_and_subplots_wrap_seaborn():
    import pandas as pd
    import pytest as _pytest

    from dlsched import plotting

    fig, ax = plotting.subplots(1, 2)
    assert len(ax) == 2 and fig.get_size_inches()[0] == _pytest.approx(12.0)
    out = plotting.draw("lineplot", pd.DataFrame({"x": [0, 1], "y": [1, 2]}), ax=ax[0], x="x", y="y")
    assert out is ax[0] and len(out.lines) == 1
    with _pytest.raises(ValueError, match="plot kind"):
        plotting.draw("pieplot", None)


def _strip_offsets(seed, *, hue=None, dodge=False):
    import numpy as np
    import pandas as pd

    from dlsched import plotting

    data = pd.DataFrame({"kind": list("aabbbcc"), "value": [1.0, 2, 3, 4, 5, 6, 7], "h": list("xyxyxyx")})
    fig, ax = plotting.subplots()
    plotting.draw("stripplot", data, ax=ax, x="kind", y="value", hue=hue, dodge=dodge, seed=seed)
    out = np.concatenate([np.asarray(c.get_offsets()) for c in ax.collections if len(c.get_offsets())])
    plt.close(fig)
    return out


def test_stripplot_jitter_is_seeded_and_ignores_numpys_global_state():
    import numpy as np

    a = _strip_offsets(0)
    np.random.uniform(size=17)  # noqa: NPY002 -- advance NumPy's global state between the draws
    b, c = _strip_offsets(0), _strip_offsets(1)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    # the jitter moves dots along the categorical axis only, by at most 0.1 of a category
    assert np.array_equal(np.sort(a[:, 1]), np.arange(1.0, 8.0))
    assert np.abs(a[:, 0] - np.round(a[:, 0])).max() <= 0.1
    dodged = _strip_offsets(0, hue="h", dodge=True)
    assert np.array_equal(dodged, _strip_offsets(0, hue="h", dodge=True))


def test_stripplot_rejects_a_negative_jitter():
    from dlsched import plotting

    with pytest.raises(ValueError, match="jitter"):
        plotting.stripplot(None, jitter=-0.1)


def test_figures_dir_environment_variable_overrides_the_argument(tmp_path, monkeypatch):
    from dlsched import plotting

    monkeypatch.setenv(plotting.FIGURES_DIR_ENV, str(tmp_path / "elsewhere"))
    paths = savefig(_make_figure(), "fig_oasis_07_redirected", tmp_path / "asked", formats=("png",))
    assert paths == [tmp_path / "elsewhere" / "fig_oasis_07_redirected.png"] and paths[0].exists()
    assert not (tmp_path / "asked").exists()


def _labels(ax) -> list[str]:
    ax.figure.canvas.draw()
    lo, hi = sorted(ax.get_xlim())
    return [t.get_text() for t in ax.get_xticklabels() if t.get_text() and lo <= t.get_position()[0] <= hi]


@pytest.mark.parametrize(("lo", "hi", "expect"), [
    (0.1, 100.0, ["0.1", "1", "10", "100"]),  # ten crowded 1-2-5 labels before
    (1.0, 1e12, ["1", "10000", "1e+08", "1e+12"]),  # no label at all before
])  # fmt: skip
def test_decade_ticks_labels_wide_log_axes_at_powers_of_ten(lo, hi, expect):
    from matplotlib.ticker import LogLocator

    from dlsched.plotting import decade_ticks

    fig, (wide, narrow) = plt.subplots(1, 2)
    for ax, (a, b) in ((wide, (lo, hi)), (narrow, (1.0, 4.0))):
        ax.barh([0, 1], [a, b])
        ax.set_xscale("log")
        ax.set_xlim(a, b)
        ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0), numticks=6))
    before = _labels(narrow)
    assert decade_ticks(fig) is fig
    labels = _labels(wide)
    assert 2 <= len(labels) <= 6
    assert all(float(x) > 0 and float(f"{float(x):e}".split("e")[0]) == 1.0 for x in labels)
    assert labels == expect
    assert _labels(narrow) == before  # a narrow axis keeps its ticks
    plt.close(fig)

"""Tests of dlsched.fidelity: saved scorecards, the per-paper counts and the README's generated block."""

from __future__ import annotations

import pandas as pd
import pytest

from dlsched import cli, fidelity


def _card(matches):
    return pd.DataFrame({
        "figure": [f"Fig. {i}" for i in range(len(matches))],
        "quantity": ["q"] * len(matches),
        "paper": ["p"] * len(matches),
        "ours": ["o"] * len(matches),
        "match": list(matches),
    })


def test_save_only_in_paper_mode_and_only_on_change(tmp_path):
    assert fidelity.save_scorecard(_card(["yes"]), "12_oasis_figures", mode="quick", folder=tmp_path) is None
    assert list(tmp_path.iterdir()) == []
    f = fidelity.save_scorecard(_card(["yes", "no"]), "12_oasis_figures", mode="paper", folder=tmp_path)
    assert f == tmp_path / "12_oasis_figures.csv"
    assert f.read_text().splitlines()[0] == "figure,quantity,paper,ours,match"
    mtime = f.stat().st_mtime_ns
    fidelity.save_scorecard(_card(["yes", "no"]), "12_oasis_figures", mode="paper", folder=tmp_path)
    assert f.stat().st_mtime_ns == mtime  # same content: not rewritten (git status stays clean)
    no_ours = _card(["partly"]).drop(columns="ours")
    g = fidelity.save_scorecard(no_ours, "22_optimus_figures", mode="full", folder=tmp_path)
    assert pd.read_csv(g, keep_default_na=False)["ours"].tolist() == [""]


@pytest.mark.parametrize(
    ("card", "notebook", "message"),
    [
        (_card(["maybe"]), "12_x", "match must be one of"),
        (_card(["yes"]).drop(columns="paper"), "12_x", r"lacks column\(s\) \['paper'\]"),
        (_card(["yes"]), "", "notebook must be"),
        (_card(["yes"]), "a/b", "notebook must be"),
    ],
)
def test_bad_scorecards_are_refused(tmp_path, card, notebook, message):
    with pytest.raises(ValueError, match=message):
        fidelity.save_scorecard(card, notebook, mode="paper", folder=tmp_path)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(TypeError):
        fidelity.save_scorecard([1], "12_x", mode="paper", folder=tmp_path)


def test_table_counts_and_markdown(tmp_path):
    assert fidelity.fidelity_table(tmp_path).empty
    assert "No paper-mode scorecards" in fidelity.fidelity_markdown(tmp_path)
    fidelity.save_scorecard(_card(["no", "partly"]), "22_optimus_figures", mode="paper", folder=tmp_path)
    fidelity.save_scorecard(_card(["yes", "yes", "no"]), "12_oasis_figures", mode="paper", folder=tmp_path)
    table = fidelity.fidelity_table(tmp_path)
    assert table["paper"].tolist() == ["OASiS", "Optimus", "total"]  # the README's order, then total
    counts = table[["claims", "yes", "partly", "no"]].values.tolist()
    assert counts == [[3, 2, 0, 1], [2, 0, 1, 1], [5, 2, 1, 2]]
    md = fidelity.fidelity_markdown(tmp_path)
    assert "| [OASiS](notebooks/12_oasis_figures.ipynb) | 3 | 2 | 0 | 1 |" in md
    assert "| **total** | 5 | 2 | 1 | 2 |" in md


def test_readme_block_write_and_check(tmp_path):
    cards = tmp_path / "cards"
    fidelity.save_scorecard(_card(["yes"]), "32_pdors_figures", mode="paper", folder=cards)
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\n{fidelity.START}\nold\n{fidelity.END}\n\nafter\n")
    assert not fidelity.check_readme(readme, cards)
    assert fidelity.update_readme(readme, cards) is True
    assert fidelity.check_readme(readme, cards) and not fidelity.update_readme(readme, cards)
    text = readme.read_text()
    assert "[PD-ORS](notebooks/32_pdors_figures.ipynb)" in text
    assert "old" not in text and text.endswith("after\n")
    (tmp_path / "plain.md").write_text("no markers\n")
    with pytest.raises(ValueError, match="no fidelity block"):
        fidelity.check_readme(tmp_path / "plain.md", cards)


def test_the_readme_block_is_generated():
    """The README's fidelity table is exactly what the committed scorecards give (no hand-kept copy)."""
    assert fidelity.check_readme(), "README.md's fidelity block is stale: run `dlsched fidelity --write`"


def test_cli(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(fidelity.SCORECARD_ENV, str(tmp_path))
    fidelity.save_scorecard(_card(["yes"]), "52_specon_figures", mode="paper", folder=tmp_path)
    assert cli.main(["fidelity"]) == 0
    assert "[SpeCon](notebooks/52_specon_figures.ipynb) | 1 | 1 | 0 | 0 |" in capsys.readouterr().out
    assert cli.main(["fidelity", "--write", "--check"]) == 2

"""Shared pytest fixtures for the dlsched test suite."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _store_uses_elsewhere(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Paper-mode runs in tests record the points they ask for (``DLSCHED_STORE_USES``) in a
    temporary folder, never in the repository's ``build/store-uses``."""
    monkeypatch.setenv("DLSCHED_STORE_USES", str(tmp_path_factory.getbasetemp() / "store-uses"))


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """Absolute path of the repository root (the folder holding pyproject.toml).

    Returns
    -------
    pathlib.Path
        The repository root, independent of the directory pytest was started from.
    """
    return REPO_ROOT

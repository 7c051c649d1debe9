"""Shared pytest fixtures for the dlsched test suite."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """Absolute path of the repository root (the folder holding pyproject.toml).

    Returns
    -------
    pathlib.Path
        The repository root, independent of the directory pytest was started from.
    """
    return REPO_ROOT

"""Shared helpers of the Python tests: the repository's folders."""

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def meshes() -> Path:
    """The repository's meshes/ folder."""
    return REPO / "meshes"

"""Where the tests find the repository and the fixtures it carries (everything a test reads is in the clone)."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"
FIXTURES = TESTS / "fixtures"
FAKES = TESTS / "fakes"
TRAFFIC = FIXTURES / "traffic"

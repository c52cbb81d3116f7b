"""Where the tests find the repository and the fixtures it carries (everything a test reads is in the clone)."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"
SUPPORT = TESTS / "support"
FIXTURES = SUPPORT / "fixtures"
FAKES = SUPPORT / "fakes"
TRAFFIC = FIXTURES / "traffic"

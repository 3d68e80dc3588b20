"""Helpers for the summarization tests: a tiny hand-made topic and its reference (fast_encoder: tests/conftest.py)."""

from __future__ import annotations

import pytest

from assistant.summarization.documents import Topic
from assistant.summarization.text import Document

TINY = [
    Document(
        "a",
        ("The storm hit the coast on Monday.", "Thousands of homes lost power.", "Officials ordered an evacuation."),
    ),
    Document("b", ("The storm caused heavy damage.", "Power returned on Friday.", "Insurers expect large claims.")),
]
TINY_REFERENCE = ["The storm hit the coast and caused heavy damage.", "Thousands of homes lost power."]


@pytest.fixture
def tiny_topic() -> Topic:
    return Topic("tiny", list(TINY), "", [list(TINY_REFERENCE)])

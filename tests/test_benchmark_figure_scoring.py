"""The answer-quality benchmark's ``figure`` score: a gold figure counts as found when the answer states it,
rounded as a person would, and not when a stray number of a chart's axis text happens to round to it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
answer_quality = pytest.importorskip("answer_quality")


@pytest.mark.parametrize(("gold", "answer"), [
    ("96.1%", "margin was 96%"),
    ("$3,214 million", "about $3.2 billion"),
    ("$0.92 billion", "$921 million"),
    ("85.81%", "85.8% = 93,067.04 / 108,452.64"),
    ("4,907.73", "4,907.73万元"),
])
def test_a_figure_rounded_as_a_person_would_is_found(gold, answer):
    assert answer_quality.value_found(gold, answer)


@pytest.mark.parametrize(("gold", "answer"), [
    ("1.37", "[chart text: 0.2 0.10 -0.3 1 ( 低交因子 2 因子 3]"),   # "1" rounds to nothing like 1.37
    ("5.5", "数字产业化 5 产业数字化"),
    ("3.8", "projected at 4.5 per cent; below 4 per cent"),
    ("7.3", "projected at 7 per cent"),
])
def test_a_stray_coarser_number_is_not_the_figure(gold, answer):
    assert not answer_quality.value_found(gold, answer)


def test_a_chart_text_dump_states_no_figure():
    """An answer quoting a chart's words because no data label answered ("[chart text: …]") does not state
    the label or series it happens to hold (en-a-048: the RDG Internet Composite in the legend)."""
    dump = "COMPARISON OF 5 YEAR CUMULATIVE TOTAL RETURN* [chart text: $300 $250 RDG Internet Composite 12/17]"
    assert not answer_quality.figures_found(["RDG Internet Composite"], dump)
    assert answer_quality.figures_found(["0.5", "Jan"], "0.5 — Jan (Chart 1. One-month percent change)")

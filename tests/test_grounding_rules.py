"""One test per grounding rule added for real documents (docs/grounding.md): ``rounded``, ``computed``,
``named_unit``, a page's unit line, the digits of a long amount, ``keep_model`` only for boxes drawn on
the layout, and ``unreadable`` images that the printed evidence elsewhere outweighs. Pages are built
from blocks with their words laid out line by line, as ingest stores them."""

from __future__ import annotations

import pytest

from docrag.geometry import Box
from docrag.grounding import answer_facts, ground, named_units
from docrag.quantities import amount_match, quantities
from docrag.types import Block, BlockKind, Citation, Page, Word

W, H = 595.0, 842.0
LINE = 14.0


def _words(text: str, box: tuple[float, float, float, float]) -> list[Word]:
    """``text`` laid out in lines of about 8 points a character inside ``box``."""
    x0, y0, x1, _ = box
    out, x, y = [], x0, y0
    for token in text.split():
        width = 6.0 * len(token)
        if x + width > x1 and x > x0:
            x, y = x0, y + LINE
        out.append(Word(token, Box.points(x, y, x + width, y + LINE - 3, W, H)))
        x += width + 4
    return out


def _page(spec: list[tuple[str, tuple[float, float, float, float], str]], page_no: int = 1,
          text: str = "") -> Page:
    blocks, words = [], []
    for i, (kind, box, body) in enumerate(spec):
        blocks.append(Block(BlockKind(kind), Box.points(*box, W, H), body, block_id=i))
        if kind != "figure":
            words += _words(body, box)
    page_text = text or "\n".join(body for _, _, body in spec)
    return Page("doc", page_no, W, H, text=page_text, words=words, blocks=blocks)


def _cited(result) -> list[tuple[int, tuple[float, float, float, float]]]:
    return [(int(c.page_id.split(":")[1]), (b.y0, b.y1)) for c in result.citations for b in c.boxes]


FILLER = ("The committee reviewed the outlook for the coming quarters and the risks to it, and agreed to keep "
          "watching the data closely before its next meeting.")


# -- amounts ---------------------------------------------------------------------------------------

def test_leading_dot_decimals_are_amounts():
    got = [(q.text, q.value) for q in quantities("posterior mean .81 with interval [.77, .85]; v1.2.3")]
    assert got == [(".81", 0.81), (".77", 0.77), (".85", 0.85)]


def test_a_coarser_print_is_weaker_evidence_and_long_digits_match_without_the_unit():
    (answer,) = quantities("96.1%")
    assert amount_match(answer, quantities("96.1%")[0]) == 1.0
    assert amount_match(answer, quantities("96%")[0]) == 0.5          # rounded: the page is coarser
    assert amount_match(answer, quantities("97%")[0]) == 0.0
    (long,) = quantities("4,810,115.48万元")
    assert amount_match(long, quantities("4,810,115.48")[0]) == 1.0    # nine digits: no coincidence
    assert amount_match(quantities("1.78亿")[0], quantities("1.78")[0]) == 0.0   # three: the unit decides


def test_the_answers_own_arithmetic_is_not_looked_for_as_printed():
    facts = {f.text: f.weight for f in answer_facts("By how much is it higher?",
                                                     "2.46 versus 0.68: 2.46 - 0.68 = 1.78")}
    assert facts["1.78"] == pytest.approx(0.3)                          # computed
    assert facts["2.46"] == 1.0 and "- 0.68" not in facts               # one fact per amount


def test_named_units():
    assert named_units("In Table 1 and Fig. 3 of the paper, and 图10 and 表 2-1") == \
        {"table:1", "figure:3", "figure:10", "table:2.1"}
    assert named_units("the table and the figure") == set()


# -- choosing regions ------------------------------------------------------------------------------

def test_the_exact_print_wins_over_a_rounded_one():
    page = _page([("text", (60, 80, 530, 140), "Resolution rate rose to 96% and satisfaction to 95% in the "
                   "villages, a result the city reported for its services last year."),
                  ("text", (60, 300, 530, 360), "The resolution rate of requests reached 95.5% and the "
                   "satisfaction rate 96.1% last year across the city's hotline.")])
    result = ground("What were the resolution and satisfaction rates?", "95.5% and 96.1%", [page])
    assert _cited(result) == [(1, (300, 360))]


def test_the_table_the_question_names_is_cited():
    page = _page([("table", (60, 80, 530, 200), "Table 1: Prior distributions. Parameter h mean 0.70 "
                   "standard deviation 0.05 and more rows of priors"),
                  ("table", (60, 260, 530, 400), "Table 2: Posterior estimates. Parameter h mean 0.70 "
                   "interval 0.65 0.75 and more rows of estimates")])
    question = "In Table 2, what is the estimate of h?"
    assert _cited(ground(question, "0.70", [page])) == [(1, (260, 400))]
    assert _cited(ground(question.replace("Table 2", "Table 1"), "0.70", [page])) == [(1, (80, 200))]
    # a model box on the other table is not trusted over the one named
    model = [Citation("doc:1", boxes=[Box.points(60, 80, 530, 200, W, H)])]
    assert _cited(ground(question, "0.70", [page], model_citations=model)) == [(1, (260, 400))]


def test_a_unit_line_over_the_page_scales_its_tables():
    page = _page([("text", (60, 40, 300, 52), "(In millions) (Unaudited)"),
                  ("text", (60, 70, 530, 130), "Net cash from operations is discussed below; " + FILLER),
                  ("table", (60, 150, 530, 260), "Cash flow Net cash from operations 4,512 3,871 "
                   "Additions to property and equipment (1,551) (1,477)")])
    result = ground("What was net cash from operations?", "$4.5 billion", [page])
    assert _cited(result) == [(1, (150, 260))] and result.confidence > 0.5


def test_a_model_box_that_cuts_through_lines_gives_way_to_the_region():
    para = (60.0, 300.0, 530.0, 400.0)
    page = _page([("text", (60, 80, 530, 180), FILLER),
                  ("text", para, "Revenue was $76.4 billion and increased 15% while operating income was "
                   "$34.3 billion and increased 23% in the quarter, the company said in its release on "
                   "Tuesday, citing strong demand for its cloud services across regions.")])
    answer = "Revenue of $76.4 billion, up 15%"
    drawn = Box.points(*para, W, H)
    kept = ground("What was revenue?", answer, [page], model_citations=[Citation("doc:1", boxes=[drawn])])
    assert _cited(kept) == [(1, (300, 400))]
    # shifted left and cut short: it sticks out of the unit and its edges cut through the lines
    off = Box.points(0, 304, 380, 372, W, H)
    fixed = ground("What was revenue?", answer, [page], model_citations=[Citation("doc:1", boxes=[off])])
    assert _cited(fixed) == [(1, (300, 400))]
    # a part of the unit drawn on the lines' edges is the model's choice and stays as drawn
    lines = Box.points(60, 299, 530, 340, W, H)
    chosen = ground("What was revenue?", answer, [page], model_citations=[Citation("doc:1", boxes=[lines])])
    assert _cited(chosen) == [(1, (299, 340))]
    # ... and so does a part well inside the unit whose edges graze lines (a person's hand-drawn box)
    inside = Box.points(60, 305, 530, 350, W, H)
    drawn_in = ground("What was revenue?", answer, [page], model_citations=[Citation("doc:1", boxes=[inside])])
    assert _cited(drawn_in) == [(1, (305, 350))]


def test_an_image_on_a_page_that_does_not_print_the_figures_is_not_trusted():
    chart_page = _page([("figure", (60, 80, 530, 400), ""), ("text", (60, 420, 530, 480), FILLER)], page_no=1)
    text_page = _page([("text", (60, 80, 530, 160), FILLER),
                       ("text", (60, 200, 530, 260), "The expansion rate of net dollar revenue was 127% in the "
                        "first quarter, its highest level, and 102% in the last quarter.")], page_no=2)
    model = [Citation("doc:1", boxes=[Box.points(60, 80, 530, 400, W, H)])]
    question = "What was the highest expansion rate of net dollar revenue?"
    moved = ground(question, "127% in the first quarter", [chart_page, text_page], model_citations=model)
    assert [p for p, _ in _cited(moved)] == [2]
    # an answer read off the chart keeps the chart the model boxed
    read = ground(question, "127% in the first quarter (chart data labels)", [chart_page, text_page],
                  model_citations=model)
    assert (1, (80, 400)) in _cited(read)


def test_a_chart_read_by_ocr_is_still_a_picture_for_trust():
    """Ingest OCRs charts drawn as pictures; the words it reads (axis text, some labels) do not make the
    chart a text region: a model box on it is trusted as on any picture (seen split, perfect boxes: chart
    Dice 0.776 with OCR'd charts read as text, 0.930 as pictures)."""
    chart_page = _page([("figure", (60, 80, 530, 400), ""), ("text", (60, 420, 530, 480), FILLER)], page_no=1)
    chart_page.blocks[0].meta["ocr_text"] = "Q1 Q2 Q3 Q4 Net dollar expansion rate"
    chart_page.words += _words("Q1 Q2 Q3 Q4 Net dollar expansion rate", (80, 360, 500, 395))
    text_page = _page([("text", (60, 80, 530, 160), FILLER),
                       ("text", (60, 200, 530, 260), "The expansion rate of net dollar revenue was 127% in the "
                        "first quarter, its highest level, and 102% in the last quarter.")], page_no=2)
    model = [Citation("doc:1", boxes=[Box.points(60, 80, 530, 400, W, H)])]
    read = ground("What was the highest expansion rate of net dollar revenue in the chart?",
                  "127% in the first quarter (chart data labels)", [chart_page, text_page], model_citations=model)
    assert (1, (80, 400)) in _cited(read)


def test_a_percent_with_decimals_matches_under_a_percent_header_elsewhere():
    """An annual report's key-figures table printed "40.39" in a column headed "(%)" two blocks away;
    a bare whole number (a page number 11) still never matches "11%"."""
    page = _page([("text", (60, 80, 530, 140), FILLER),
                  ("text", (60, 300, 530, 330), "Operating revenue 1,581,905,632.48 1,126,782,253.35 40.39"),
                  ("text", (60, 400, 530, 430), "How operating revenue grew is discussed on page 11 below")])
    found = ground("How much did operating revenue grow?", "40.39%", [page])
    assert _cited(found) == [(1, (300, 330))] and found.confidence > 0.5      # found, not a fallback
    assert _cited(ground("How much did operating revenue grow?", "11%", [page])) != [(1, (400, 430))]


def test_boxes_on_a_page_that_repeats_part_of_the_evidence_are_not_trusted():
    summary = _page([("text", (60, 80, 530, 140), FILLER),
                     ("text", (60, 300, 530, 360), "In brief: the policy rate was raised to 5.00% at the meeting, "
                      "as the committee said in its statement.")], page_no=1)
    detail = _page([("text", (60, 80, 530, 140), FILLER),
                    ("table", (60, 300, 530, 420), "Policy rates: policy rate 5.00% standing facility 1.50% "
                     "reserve requirement 4.00% set at the meeting")], page_no=2)
    model = [Citation("doc:1", boxes=[Box.points(60, 300, 530, 360, W, H)])]
    answer = "Policy rate 5.00%, standing facility 1.50%"
    result = ground("What were the policy rate and the standing facility rate?", answer, [summary, detail],
                    model_citations=model)
    assert _cited(result) == [(2, (300, 420))]
    # boxes on a region stating all the evidence there is keep it
    both = [Citation("doc:2", boxes=[Box.points(60, 300, 530, 420, W, H)])]
    kept = ground("What were the policy rate and the standing facility rate?", answer, [summary, detail],
                  model_citations=both)
    assert _cited(kept) == [(2, (300, 420))]


def test_a_table_found_on_a_page_image_gets_the_words_inside_it():
    """A layout model's table on an OCR'd round-up page came without text: the extractive generator
    declined all five questions on it. Its words, line by line, are its text."""
    from docrag.ingestion.pdfpage import finish_blocks

    words = [*_words("Ethanol ($/gal) Iowa 1.35 - 1.42", (20, 40, 600, 52)),
             *_words("Minnesota 1.38 - 1.48", (20, 60, 600, 72)),
             *_words("Outside the table", (20, 200, 600, 212))]
    table = Block(BlockKind.TABLE, Box.points(10, 30, 700, 100, W, H), "")
    (block,) = finish_blocks([], [table], words)
    assert block.text == "Ethanol ($/gal) Iowa 1.35 - 1.42\nMinnesota 1.38 - 1.48"


def test_indian_digit_grouping_and_scale_words_are_one_amount():
    """Reliance's "₹ 7,92,756 crore" (lakh/crore grouping: pairs of digits before the last three) is one amount,
    7,92,756 crore = 7.92756 x 10^12, not 7 and 92,756; Western grouping reads as before."""
    from docrag.quantities import quantities

    assert [(q.text, q.value) for q in quantities("Revenue ₹ 7,92,756 crore, 2,32,822 jobs")] == [
        ("7,92,756 crore", 7.92756e12), ("2,32,822", 232822.0)]
    assert [q.value for q in quantities("1,234,567 and 12,345")] == [1234567.0, 12345.0]
    assert [q.value for q in quantities("5 lakh")] == [5e5]


def test_a_date_printed_over_two_header_lines_is_found_in_its_table():
    """``stacked_date``: Microsoft's income statement heads its column "June 30," over "2025"; the answer's label
    "June 30, 2025" is stated there, so the grounder does not cite another page for the date alone (en-a-021 had
    cited page 6's "June 30, 2025" beside the statement on page 7)."""
    table = _page([("table", (60, 80, 230, 200), "Twelve Months Ended June 30, 2025 Revenue 281,724 Gross margin "
                   "193,893")], page_no=7)
    other = _page([("text", (60, 80, 530, 140), "Gross margin percentage for the fiscal year ended June 30, 2025 is "
                   "discussed in the segment results below.")], page_no=6)
    answer = "68.8% = 193,893 / 281,724 (193,893 — Gross margin, Twelve Months Ended, June 30, 2025; 281,724 — Revenue)"
    assert [p for p, _ in _cited(ground("What was the gross margin percentage?", answer, [table, other]))] == [7]

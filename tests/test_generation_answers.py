"""The extractive generator answers: no furniture, the right cell, right arithmetic, declines, multi-page.

Runs on a generated three-page report (tests/support/pdfs.py) ingested once, a generated Chinese equity
review (tests/support/stocks_review.py), and on the real development corpus (../shared/corpus; the
``real_corpus`` tests, deselected when it is absent).
"""

from __future__ import annotations

import json

import pytest

from docrag.corpus import Corpus
from docrag.generation import get_generator
from docrag.generation.extractive import NO_ANSWER
from docrag.generation.extractive_math import comparable, compute, operation_of
from docrag.geometry import Box
from docrag.ingestion import ingest
from docrag.ingestion.furniture import FURNITURE_KEY, mark_furniture
from docrag.types import Answer, Block, BlockKind, Citation, Page
from tests.support.pdfs import REPORT_HEADER, make_report_pdf
from tests.support.stocks_review import make_stocks_review_zh


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    rep = make_report_pdf(folder / "report.pdf")
    ingest([rep.path], folder / "corpus", show_progress=False)
    corpus = Corpus.open(folder / "corpus")
    return rep, corpus, corpus.pages()


@pytest.fixture(scope="module")
def gen():
    return get_generator("extractive", embed=False)


def _box(page: Page, coords) -> Box:
    return page.box_pt(*coords)


def _cited(answer: Answer, page_no: int) -> list[Box]:
    """The cells and lines the generator used on page ``page_no`` (its own citations, before grounding
    widened them to the regions that hold them; docrag.grounding)."""
    own = [Citation.from_json(c) for c in answer.meta.get("model_citations", [])]
    return [b for c in own if c.page_no == page_no for b in c.boxes]


def _grounded(answer: Answer, page_no: int) -> list[Box]:
    return [b for c in answer.citations if c.page_no == page_no for b in c.boxes]


# -- furniture --------------------------------------------------------------------------------------
def test_ingest_marks_running_headers_datelines_and_page_numbers(report):
    rep, _, pages = report
    for page in pages:
        marked = {b.text.strip() for b in page.blocks if b.meta.get(FURNITURE_KEY)}
        assert {REPORT_HEADER, "March 3, 2024", str(page.page_no)} <= marked
        body = [b for b in page.blocks if rep.furniture_y[0] < b.box.y0 < rep.furniture_y[1]]
        assert body and not any(b.meta.get(FURNITURE_KEY) for b in body)


def test_furniture_flag_round_trips_and_old_records_load_unmarked(report):
    _, _, pages = report
    rec = pages[0].to_json()
    assert any(b.get("meta", {}).get(FURNITURE_KEY) for b in rec["blocks"])
    assert Page.from_json(rec).blocks[0].meta == pages[0].blocks[0].meta
    for b in rec["blocks"]:
        b.pop("meta", None)
    old = Page.from_json(rec)
    assert not any(b.meta.get(FURNITURE_KEY) for b in old.blocks)
    assert mark_furniture([old]) >= 2  # the page number and the dateline are furniture on their own


def test_single_page_margin_lines_are_furniture_but_captions_are_not():
    page = Page("d", 1, 612, 792)
    page.blocks = [Block(BlockKind.TEXT, page.box_pt(72, 20, 300, 32), "Monthly Labor Review • January 2012"),
                   Block(BlockKind.CAPTION, page.box_pt(72, 20, 300, 32), "Table 324. Arrests by Sex and Age"),
                   Block(BlockKind.TEXT, page.box_pt(72, 300, 540, 400), "Employment rose by 20.5 million.")]
    mark_furniture([page])
    assert [bool(b.meta.get(FURNITURE_KEY)) for b in page.blocks] == [True, False, False]


def test_generator_never_quotes_or_cites_furniture(report, gen):
    rep, _, pages = report
    for q in ("What is the Northwind Quarterly Report?", "When was the report dated, March 3, 2024?",
              "What is on page 2?"):
        ans = gen.generate(q, pages)
        assert REPORT_HEADER not in ans.answer and "March 3, 2024" not in ans.answer
        for c in ans.citations:
            for b in c.boxes:
                assert rep.furniture_y[0] < b.y0 and b.y1 < rep.furniture_y[1], (q, b)


# -- tables -----------------------------------------------------------------------------------------
def test_picks_the_cell_and_cites_its_row_not_the_table(report, gen):
    rep, _, pages = report
    ans = gen.generate("What was Heron revenue in 2022?", pages)
    assert ans.answer.startswith("800 ") and "Heron" in ans.answer and "2022" in ans.answer
    assert "thousands" in ans.answer and "USD" in ans.answer    # unit and scale from the caption
    (box,) = _cited(ans, 1)
    heron = _box(pages[0], rep.table_rows["Heron"])
    assert box.coverage_of(heron) < 0.9 or heron.contains(box, tol=2)
    assert heron.intersection_area(box) >= 0.8 * box.area          # the Heron row, not a neighbour
    assert box.area < 0.6 * _box(pages[0], rep.table_box).area     # not the whole table
    (region,) = _grounded(ans, 1)                                   # cited: the table a person would box
    caption = next(b for b in pages[0].blocks if b.text.startswith("Table 1."))
    assert region.iou(_box(pages[0], rep.table_box)) > 0.5 and region.contains(caption.box, tol=1)
    assert region.contains(box, tol=2) and any(heron.contains(f, tol=2) for c in ans.citations for f in c.focus)
    ans = gen.generate("What was Falcon revenue in 2023?", pages)
    assert ans.answer.startswith("1,500 ")


@pytest.mark.parametrize(("question", "result", "inputs"), [
    ("By how much did Falcon revenue change from 2022 to 2023?", "300 = 1,500 − 1,200", ("1,500", "1,200")),
    ("What was the percentage growth of Falcon revenue from 2022 to 2023?", "+25.0%", ("1,500", "1,200")),
    ("What share of total 2023 revenue came from Heron?", "29.9% = 640 / 2,140", ("640", "2,140")),
])
def test_arithmetic_from_cited_cells_with_inputs_shown(report, gen, question, result, inputs):
    _, _, pages = report
    ans = gen.generate(question, pages)
    assert ans.answer.startswith(result)
    assert sorted(ans.meta["arithmetic"]["inputs"]) == sorted(inputs)
    assert len(_cited(ans, 1)) == 2   # both input cells


def test_compute_and_operation_detection():
    assert operation_of("By how much did sales rise between 2010 and 2020?") == "difference"
    assert operation_of("What is the ratio of A to B?") == "ratio"
    assert operation_of("What share of all arrests were of males?") == "share"
    assert operation_of("What was the growth rate of revenue?") == "growth"
    assert operation_of("What was the price growth from 2019 to 2021?") == "growth"   # the noun: a percentage
    assert operation_of("两者相差多少？") == "difference"
    assert operation_of("What was revenue in 2020?") == ""
    assert compute("difference", "652,412", "2,348,928").value == 1_696_516
    assert compute("share", "8,263.3", "11,062.6").value == pytest.approx(74.696, abs=1e-3)
    assert compute("growth", "(10)", "5").value == pytest.approx(150.0)
    assert compute("ratio", "3", "0") is None


def test_arithmetic_never_mixes_a_count_with_a_percentage():
    assert comparable("difference", ("2,340", "Stores"), ("2,412", "Stores"))
    assert not comparable("difference", ("3.1%", "Change"), ("2,412", "Stores"))
    assert not comparable("growth", ("2,340", "Stores"), ("5.2", "Growth rate"))      # the header says percent
    assert comparable("difference", ("5.2", "同比增长率"), ("4.8%", "同比"))
    assert not comparable("share", ("12.5%", "Share"), ("80", "Total"))              # a share divides counts
    assert comparable("share", ("8,263.3", "Males"), ("11,062.6", "Total"))


# -- pages, multi-page, charts, declining -------------------------------------------------------------
def test_multi_page_question_cites_both_pages(report, gen):
    rep, _, pages = report
    ans = gen.generate("How many Falcon drones were shipped in 2023 and how many people did the company employ?",
                       pages)
    assert "4,250" in ans.answer and "312" in ans.answer
    assert {c.page_no for c in ans.citations} == {1, 2}
    assert _cited(ans, 2)[0].iou(_box(pages[1], rep.staff_box)) > 0.3


def test_reads_all_retrieved_pages_with_rank_prior(report, tmp_path, gen):
    from tests.support.synthetic_pages import Region, make_page

    _, _, pages = report
    filler = [make_page(tmp_path, [Region((72, 100, 540, 160), (200, 200, 200), f"Weather note {i}: mild.")],
                        doc_id=f"f{i}") for i in range(4)]
    ans = gen.generate("How many people did the company employ?", [*filler, pages[1]])
    assert "312" in ans.answer and ans.citations[0].page_no == 2 and ans.citations[0].image_index == 5


def test_chart_is_cited_whole_with_caption_and_its_labels_read(report, gen):
    rep, _, pages = report
    ans = gen.generate("In Figure 1, how many orders came from the West region?", pages)
    assert "210" in ans.answer and "Figure 1" in ans.answer
    (box,) = _cited(ans, 3)
    assert box.iou(_box(pages[2], rep.chart_box)) > 0.5


def test_declines_without_citation_when_evidence_is_weak(report, gen):
    _, _, pages = report
    for q in ("What is the population of Mars in 2023?", "Who won the 1998 football world cup?"):
        ans = gen.generate(q, pages)
        assert ans.answer == NO_ANSWER and ans.citations == []
        assert ans.confidence is not None and ans.confidence < gen.decline_below
    ok = gen.generate("What was Heron revenue in 2022?", pages)
    assert ok.confidence is not None and ok.confidence >= gen.decline_below
    assert Answer.from_json(json.loads(json.dumps(ok.to_json()))).confidence == ok.confidence


def test_ask_json_has_confidence(report):
    from apps.commands.ask import answer_record

    _, corpus, pages = report
    ans = get_generator("extractive", embed=False).generate("What was Heron revenue in 2022?", pages)
    assert 0.0 < answer_record(ans, corpus)["confidence"] <= 1.0


# -- the real development corpus ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def real(dev_corpus, qa_records):
    return dev_corpus, {r["id"]: r for r in qa_records}


def _doc_pages(corpus: Corpus, name: str) -> list[Page]:
    return corpus.pages([corpus.find_documents(name)[0].doc_id])


@pytest.mark.real_corpus
def test_real_running_footers_and_page_numbers_are_marked(real):
    corpus, _ = real
    for page in _doc_pages(corpus, "ecb_wp1299_financial_literacy_p13-18.pdf"):
        marked = [b.text for b in page.blocks if b.meta.get(FURNITURE_KEY)]
        assert str(12 + page.page_no) in marked and any("Working Paper Series" in t for t in marked)


@pytest.mark.real_corpus
def test_real_table_cell_and_arithmetic(real, gen):
    corpus, qa = real
    usgs = _doc_pages(corpus, "usgs_mcs2011_abrasives_manufactured.pdf")
    ans = gen.generate(qa["dev-047"]["question"], usgs)
    assert ans.answer.startswith("455,000") and "China" in ans.answer
    (box,) = _cited(ans, 1)
    gold = usgs[0].box_pt(*qa["dev-047"]["boxes"][0]["bbox"])
    assert gold.intersection_area(box) >= 0.9 * box.area and box.height < 20   # one row of the table
    (region,) = _grounded(ans, 1)
    assert region.iou(gold) > 0.8                                # cited: the table, as the annotator boxed it
    gsa = _doc_pages(corpus, "gsa_ocsit_fy2011_annual_report_p15-17.pdf")
    ans = gen.generate(qa["dev-082"]["question"], gsa)
    assert ans.answer.startswith("1,696,516 = 2,348,928 − 652,412")


@pytest.mark.real_corpus
def test_real_corpus_declines_mars(real, gen):
    corpus, _ = real
    ans = gen.generate("What is the population of Mars in 2023?", corpus.pages()[:5])
    assert ans.answer == NO_ANSWER and not ans.citations


# -- a generated Chinese equity review (tests/support/stocks_review.py) -------------------------------------
@pytest.fixture(scope="module")
def zh_report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("zh")
    pdf = make_stocks_review_zh(folder / "stocks_review_zh.pdf")
    out = folder / "corpus"
    ingest([pdf], out, show_progress=False)
    return Corpus.open(out).pages()


def test_chinese_cell_year_column_and_growth(zh_report, gen):
    ans = gen.generate("微软2021年末的收盘价是多少？", zh_report)
    assert ans.answer.startswith("334.85 美元 — 微软, 2021")
    ans = gen.generate("微软年末股价从2020年到2021年增加了多少？", zh_report)
    assert ans.answer.startswith("115.25 = 334.85 − 219.60")
    ans = gen.generate("表2中纳斯达克综合指数2019年末点位是多少？", zh_report)  # layout merged Table 2 with a chart
    assert ans.answer.startswith("8,972.60") and "纳斯达克综合指数, 2019" in ans.answer


def test_chinese_chart_data_label_and_furniture(zh_report, gen):
    ans = gen.generate("图1中奥多比（ADBE）2021年末收盘价是多少？", zh_report)
    assert ans.answer.startswith("567.06 — ADBE") and ans.citations[0].page_no == 2
    for page in zh_report:
        marked = {b.text.strip() for b in page.blocks if b.meta.get(FURNITURE_KEY)}
        assert f"第 {page.page_no} 页" in marked

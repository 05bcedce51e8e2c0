"""Evidence grounding (docrag.grounding), the regions it cites (docrag.regions) and the amounts and
dates it compares (docrag.quantities): on the synthetic corpus (gold boxes measured while the PDFs
were written) and, where ../shared is present, on the real dev corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docrag.evidence import GoldEvidence
from docrag.geometry import Box
from docrag.grounding import MODES, answer_facts, ground, ground_answer
from docrag.quantities import context_scale, dates, quantities, same_amount
from docrag.regions import CHART, TABLE, page_regions
from docrag.types import Answer, Block, BlockKind, Citation, Page


def q1(text: str):
    (q,) = quantities(text)
    return q


# -- quantities ----------------------------------------------------------------------------------

def test_amounts_with_scale_words_units_and_signs():
    assert q1("$3.2 billion").value == pytest.approx(3.2e9)
    assert q1("455万吨").value == pytest.approx(4.55e6)
    assert q1("营业收入3.52亿元").value == pytest.approx(3.52e8)
    assert q1("(3.2)").mantissa == -3.2
    assert q1("(2016").mantissa == 2016 and q1("(2016").is_year      # an opening bracket is no sign
    assert q1("增长12.5%").percent and q1("下降0.3个百分点").percent
    assert q1("11,062.6").decimals == 1
    assert q1("$1,076M").value == pytest.approx(1.076e9) and q1("$4.2B").value == pytest.approx(4.2e9)
    assert q1("100 MB").value == 100                                     # a unit, not a scale


def _blocks_page(spec: list[tuple[str, tuple[float, float, float, float], str]]) -> Page:
    w, h = 595.0, 842.0
    blocks = [Block(BlockKind(kind), Box.points(*box, w, h), text, block_id=i)
              for i, (kind, box, text) in enumerate(spec)]
    return Page("doc", 1, w, h, blocks=blocks)


def test_grid_a_table_read_as_loose_pieces_is_one_table():
    """A real white paper's clause/keyword/technology table came out of layout as a title and fourteen
    short text blocks; a person boxes the whole table with its title."""
    spec = [("text", (90, 120, 505, 230), "A paragraph before the table that explains what the table compares, "
             "long enough to stand alone across the whole column of text."),
            ("text", (150, 250, 420, 262), "Table: Clauses of the assessment rules and technologies")]
    for row in range(4):
        y = 275 + 40 * row
        spec += [("text", (120, y, 270, y + 12), f"Clause {row + 1} text"),
                 ("text", (285, y, 375, y + 12), f"keyword {row + 1}"),
                 ("text", (390, y, 460, y + 12), f"tech {row + 1}")]
    spec.append(("text", (90, 460, 505, 520), "A paragraph after the table that goes on with the chapter, long "
                 "enough to stand alone across the whole column of text."))
    regions = page_regions(_blocks_page(spec))
    tables = [r for r in regions if r.kind == TABLE]
    assert len(tables) == 1 and tables[0].label.startswith("Table:")
    assert (tables[0].box.y0, tables[0].box.y1) == (250, 407) and len(regions) == 3
    # without the title the pieces stay what layout said they were
    assert not any(r.kind == TABLE for r in page_regions(_blocks_page([spec[0], *spec[2:]])))


def test_stacked_pieces_of_one_grid_are_one_region():
    """An annual report's 主营业务 table read as its 分行业 and 分产品 pieces (two blocks, the second overlapping
    the first's last rule) is boxed once; a table under its own caption stays a region of its own, and so
    does a narrower one."""
    spec = [("table", (82, 467, 536, 633), "分行业 | 营业收入 | 毛利率(%)\n生物制药 | 1,573 | 62.95"),
            ("table", (82, 619, 536, 757), "分产品 | 营业收入 | 毛利率(%)\n兽用疫苗 | 1,573 | 62.95")]
    (table,) = page_regions(_blocks_page(spec))
    assert table.kind == TABLE and (table.box.y0, table.box.y1) == (467, 757)
    captioned = [spec[0], ("caption", (82, 640, 300, 652), "表 6：分地区情况"),
                 ("table", (82, 655, 536, 757), "分地区 | 营业收入\n华北 | 300")]
    assert len([r for r in page_regions(_blocks_page(captioned)) if r.kind == TABLE]) == 2
    narrow = [spec[0], ("table", (82, 640, 300, 757), "分地区 | 营业收入\n华北 | 300")]
    assert len([r for r in page_regions(_blocks_page(narrow)) if r.kind == TABLE]) == 2


def test_a_source_line_after_a_bullet_joins_its_chart():
    spec = [("figure", (140, 330, 455, 537), ""), ("text", (103, 547, 492, 556), "▲数据来源：世界银行，国家统计局")]
    (chart,) = page_regions(_blocks_page(spec))
    assert chart.kind == CHART and chart.box.y1 == 556


def test_a_table_unit_makes_printed_figures_comparable():
    assert context_scale("[In thousands (11,062.6 represents 11,062,600)]") == 1e3
    assert context_scale("单位：人民币万元") == 1e4
    assert context_scale("Revenue ($ millions)") is None or context_scale("($ millions)") == 1e6
    answer = q1("$3.2 billion")
    assert same_amount(answer, q1("3,214"), 1e6)           # within the answer's rounding
    assert not same_amount(answer, q1("3,300"), 1e6)
    assert not same_amount(answer, q1("3,214"))             # no stated unit: not the same amount
    assert same_amount(q1("11,062,600"), q1("11,062.6"), 1e3)
    assert same_amount(q1("-3.2%"), q1("3.2"))              # "fell 3.2%" against the printed 3.2


def test_dates_in_any_common_form_meet():
    forms = ["September 20, 2011", "20 September 2011", "2011-09-20", "2011年9月20日", "9/20/2011", "Sept. 20, 2011"]
    assert {dates(f)[0][0] for f in forms} == {"2011-09-20"}
    assert dates("in February 2011")[0][0] == "2011-02"


def test_facts_of_an_answer_weigh_what_the_question_already_says_less():
    facts = answer_facts("What was China's capacity in 2010?", "455,000 metric tons in 2010")
    by_text = {f.text: f for f in facts}
    assert by_text["455,000"].weight == 1.0
    assert by_text["2010"].weight < 0.2                  # a year the question states
    approx = answer_facts("How high was the bar?", "about 1.3 dollars")
    assert next(f for f in approx if f.kind == "amount").weight < 0.5


# -- regions -------------------------------------------------------------------------------------

def _page(corpus, doc: str, page_no: int):
    d = next(d for d in corpus.documents() if d.file_name == doc)
    return corpus.page(f"{d.doc_id}:{page_no}")


def test_regions_are_whole_units_numbered_in_reading_order(synthetic_corpus, synthetic_source):
    from tests.support.synthetic_corpus import ABRASIVES, HARBOR

    page = _page(synthetic_corpus, ABRASIVES, 1)
    regions = page_regions(page)
    assert [r.number for r in regions] == list(range(1, len(regions) + 1))
    assert [r.box.y0 for r in regions] == sorted(r.box.y0 for r in regions)
    tables = [r for r in regions if r.kind == TABLE]
    assert tables, "the ruled production table is one region"
    gold = page.box_pt(*synthetic_source.regions[(ABRASIVES, 1)]["capacity"])
    assert max(t.box.iou(gold) for t in tables) > 0.6
    chart_page = _page(synthetic_corpus, HARBOR, 1)
    charts = [r for r in page_regions(chart_page) if r.kind == CHART]
    caption = [b for b in chart_page.blocks if b.text.lower().startswith(("figure", "chart"))]
    if charts and caption:
        assert any(c.box.contains(caption[0].box, tol=1.0) for c in charts), "a chart takes its caption"


def test_no_region_is_page_furniture(synthetic_corpus):
    from tests.support.synthetic_corpus import SURVEY

    page = _page(synthetic_corpus, SURVEY, 2)
    furniture = [b for b in page.blocks if b.meta.get("furniture")]
    assert furniture
    for r in page_regions(page):
        assert not any(r.box.coverage_of(f.box) > 0.9 and f.block_id in r.block_ids for f in furniture)


# -- grounding -----------------------------------------------------------------------------------

def _case(corpus, rec: dict):
    d = next(d for d in corpus.documents() if d.file_name == rec["doc"])
    gold = [GoldEvidence(f"{d.doc_id}:{b['page']}", corpus.page(f"{d.doc_id}:{b['page']}").box_pt(*b["bbox"]))
            for b in rec["boxes"]]
    gold_ids = {g.page_id for g in gold}
    others = [p for p in corpus.pages() if p.page_id not in gold_ids][:3]
    pages = [corpus.page(pid) for pid in sorted(gold_ids)] + others
    return gold, pages


def _dice(citations, gold, corpus) -> float:
    from docrag.citation.pixel_grounding import question_pixel_score

    system: dict[str, list[Box]] = {}
    for c in citations:
        system.setdefault(c.page_id, []).extend(c.boxes)
    pages = {pid: corpus.page(pid) for pid in {*system, *(g.page_id for g in gold)}}
    score = question_pixel_score(system, gold, pages, {g.page_id for g in gold})
    return score.f1 if score and score.pages else 0.0


def test_grounding_without_model_boxes_cites_the_gold_regions(synthetic_corpus, synthetic_qa):
    scores = {}
    for rec in synthetic_qa:
        gold, pages = _case(synthetic_corpus, rec)
        result = ground(rec["question"], rec["answer"], pages)
        scores[rec["id"]] = _dice(result.citations, gold, synthetic_corpus)
        for cit in result.citations:
            assert len(cit.boxes) <= 5
            page = synthetic_corpus.page(cit.page_id)
            for f in cit.focus:                      # focus boxes lie inside the cited regions
                assert any(b.expanded(1.0).contains(page.to_page_points(f)) for b in cit.boxes)
    mean = sum(scores.values()) / len(scores)
    assert mean >= 0.6, scores
    assert scores["syn-05"] > 0.6 and scores["syn-09"] > 0.6    # the table questions


def test_refine_keeps_a_perfect_model_box_and_fixes_bad_ones(synthetic_corpus, synthetic_qa):
    rec = next(r for r in synthetic_qa if r["id"] == "syn-05")
    gold, pages = _case(synthetic_corpus, rec)
    page = synthetic_corpus.page(gold[0].page_id)
    perfect = [Citation(gold[0].page_id, boxes=[gold[0].box])]
    kept = ground(rec["question"], rec["answer"], pages, model_citations=perfect)
    assert kept.citations[0].boxes == [gold[0].box]
    whole = [Citation(page.page_id, boxes=[page.box_pt(0, 0, page.width_pt, page.height_pt)])]
    fixed = ground(rec["question"], rec["answer"], pages, model_citations=whole)
    assert _dice(fixed.citations, gold, synthetic_corpus) > 0.6
    assert all(b.area < 0.5 * page.width_pt * page.height_pt for c in fixed.citations for b in c.boxes)
    elsewhere = [r for r in page_regions(page) if r.box.iou(gold[0].box) < 0.05]
    wrong = [Citation(page.page_id, boxes=[elsewhere[0].box])]
    moved = ground(rec["question"], rec["answer"], pages, model_citations=wrong)
    assert _dice(moved.citations, gold, synthetic_corpus) > 0.6
    assert any("dropped" in w for w in moved.warnings)


def test_modes_and_declines(synthetic_corpus, synthetic_qa):
    rec = synthetic_qa[0]
    gold, pages = _case(synthetic_corpus, rec)
    model = [Citation(pages[-1].page_id, boxes=[pages[-1].box_pt(10, 10, 50, 50)])]
    assert ground(rec["question"], rec["answer"], pages, model_citations=model, mode="off").citations == model
    replaced = ground(rec["question"], rec["answer"], pages, model_citations=model, mode="replace")
    assert all(b != model[0].boxes[0] for c in replaced.citations for b in c.boxes)
    assert ground(rec["question"], "not enough information", pages).citations == []
    with pytest.raises(ValueError, match="refine, replace, off"):
        ground(rec["question"], rec["answer"], pages, mode="snap")
    assert MODES == ("refine", "replace", "off")


def test_ground_answer_keeps_the_model_citations_for_scoring(synthetic_corpus, synthetic_qa):
    rec = next(r for r in synthetic_qa if r["id"] == "syn-09")
    gold, pages = _case(synthetic_corpus, rec)
    answer = Answer(rec["question"], rec["answer"], citations=[Citation(gold[0].page_id, boxes=[])])
    ground_answer(answer, pages)
    assert answer.meta["model_citations"] == [{"page_id": gold[0].page_id, "image_index": None,
                                                "snapped": False, "boxes": []}]
    assert answer.meta["grounding"]["mode"] == "refine" and answer.meta["grounding"]["confidence"] > 0.5
    assert answer.citations and answer.citations[0].boxes and answer.citations[0].quotes
    assert _dice(answer.citations, gold, synthetic_corpus) > 0.6


def test_chinese_amounts_ground_on_their_table(synthetic_corpus, synthetic_qa):
    rec = next(r for r in synthetic_qa if r["id"] == "syn-11")
    gold, pages = _case(synthetic_corpus, rec)
    result = ground(rec["question"], rec["answer"], pages)
    assert result.citations and result.citations[0].page_id == gold[0].page_id
    assert _dice(result.citations, gold, synthetic_corpus) > 0.5


@pytest.mark.real_corpus
def test_grounding_on_the_real_dev_corpus(dev_corpus, shared_corpus: Path):
    """Measured, not recorded: the gold answer text alone grounds near the human boxes of the real PDFs."""
    recs = [json.loads(line) for line in (shared_corpus / "qa.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()]
    scores = []
    for rec in recs:
        gold, pages = _case(dev_corpus, rec)
        scores.append(_dice(ground(rec["question"], rec["answer"], pages).citations, gold, dev_corpus))
    assert sum(scores) / len(scores) >= 0.6, scores


def test_an_image_behind_most_of_the_text_is_no_figure():
    """CAICT's white papers print a watermark image over each page; read as a figure it swallowed the page."""
    from docrag.ingestion.figures import is_background
    from docrag.types import Word

    w, h = 595.0, 842.0
    lines = [Word(f"line {i} of the body text of the page", Box.points(90, 100 + 20 * i, 500, 112 + 20 * i, w, h))
             for i in range(20)]
    assert is_background(Box.points(93, 90, 502, 718, w, h), lines, w * h)
    assert not is_background(Box.points(115, 135, 470, 321, w, h), lines, w * h)      # a diagram: too small
    assert not is_background(Box.points(93, 90, 502, 718, w, h), lines[:3], w * h)    # a chart with a few labels

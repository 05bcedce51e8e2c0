"""Reading and appending the JSONL record files of a RUN_DIR (typed records of :mod:`docrag.eval.records`).

A run killed mid-append leaves a torn last line: readers skip it, and :meth:`RecordLog.load` (the
runner, before appending again) cuts it off. Any other line that is not JSON, or not a record of
the file's type, is a :class:`~docrag.eval.records.RecordError` naming the file, line and field.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Generic, TypeVar

from docrag.eval.records import (
    AnswerRecord,
    CitationRecord,
    ErrorRecord,
    GenerationRecord,
    JudgementRecord,
    RecordError,
    RetrievalRecord,
)
from docrag.io import append_jsonl, dumps_safe

log = logging.getLogger(__name__)

R = TypeVar("R", RetrievalRecord, AnswerRecord, JudgementRecord, CitationRecord, GenerationRecord, ErrorRecord)


def iter_jsonl(path: Path) -> Iterator[tuple[int, Any]]:
    """``(line number, parsed JSON)`` of a JSONL file; a torn last line (a run killed mid-append) is
    skipped, any other line that is not JSON is a :class:`RecordError`."""
    path = Path(path)
    if not path.exists():
        return
    with open(path, encoding="utf-8") as fh:
        lines = fh.readlines()
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            yield n, json.loads(line)
        except json.JSONDecodeError as exc:
            if n == len(lines) and not line.endswith("\n"):
                return
            raise RecordError(f"{path}:{n}: not valid JSON ({exc.msg})") from None


def read_records(path: Path, kind: type[R]) -> Iterator[R]:
    """The records of one RUN_DIR file, typed (see :func:`iter_jsonl` for torn lines)."""
    for n, d in iter_jsonl(path):
        yield kind.from_json(d, f"{path}:{n}")


class RecordLog(Generic[R]):
    """One stage's records keyed by qid, appended to its JSONL file as they are made (resumable)."""

    def __init__(self, path: Path, kind: type[R]) -> None:
        self.path, self.kind = Path(path), kind
        self.by_qid: dict[str, R] = {}
        self.duplicates = 0

    @classmethod
    def load(cls, path: Path, kind: type[R]) -> RecordLog[R]:
        """Read the finished records (cutting a half-written last line first; the last of a repeated qid wins)."""
        log_ = cls(path, kind)
        drop_torn_tail(log_.path)
        for rec in read_records(log_.path, kind):
            if rec.qid in log_.by_qid:
                log_.duplicates += 1
            log_.by_qid[rec.qid] = rec
        if log_.duplicates:
            log.warning("%s: %d duplicate record(s); the last of each is used", path, log_.duplicates)
        return log_

    def add(self, record: R) -> R:
        """Append ``record``; what is kept (and returned) is the record read back from its JSON line, so
        a fresh run and a resumed one see the very same values (a writer bug fails here, at once)."""
        line = dumps_safe(record.to_json())
        kept = self.kind.from_json(json.loads(line), f"{self.path} (record being written)")
        append_jsonl(self.path, json.loads(line))
        self.by_qid[kept.qid] = kept
        return kept

    def get(self, qid: str) -> R | None:
        return self.by_qid.get(qid)

    def __contains__(self, qid: str) -> bool:
        return qid in self.by_qid

    def __getitem__(self, qid: str) -> R:
        return self.by_qid[qid]


def drop_torn_tail(path: Path) -> None:
    """Cut a half-written last line (a run killed mid-append) so new records start on a fresh line."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with open(path, "rb+") as fh:
        fh.seek(-1, 2)
        if fh.read(1) == b"\n":
            return
        fh.seek(0)
        data = fh.read()
        keep = data.rfind(b"\n") + 1
        log.warning("%s: dropping a half-written last record (%d bytes) from an interrupted run",
                    path, len(data) - keep)
        fh.truncate(keep)

"""``docrag ask CORPUS --questions FILE --out answers.jsonl``: answer a file of questions in one process.

The retriever and generator load once; questions are retrieved in batches (one ``search_batch``
per batch) and answered; each batch's records are appended to the output in one write and fsynced,
so an interrupted run resumes where it stopped (ids already answered are skipped, a torn last line
is cut off first). Each output line is the ``ask --json`` record with the question's ``id`` first;
a question whose answering failed gets ``{"id", "question", "error"}`` and is retried on resume.

Question files: ``.jsonl`` (objects with ``question`` or ``query``, optional ``id``/``qid``; or bare
JSON strings) or plain text (one question a line; blank lines and ``#`` comments skipped). Questions
without an id are numbered by line: ``line-7``.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docrag.apps.commands.ask import answer_record
from docrag.errors import DocragError, InputError
from docrag.io import dumps_safe

log = logging.getLogger(__name__)

ID_KEYS = ("id", "qid", "query_id", "query-id", "_id")
TEXT_KEYS = ("question", "query", "text")


@dataclass(frozen=True)
class Question:
    id: str
    text: str


def read_questions(path: str | Path) -> list[Question]:
    """The questions of ``path`` (see module docstring); bad lines raise :class:`InputError` naming
    the file and line."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such questions file")
    jsonl = path.suffix.lower() in (".jsonl", ".ndjson")
    out: list[Question] = []
    seen: set[str] = set()
    with open(path, encoding="utf-8-sig") as fh:
        for n, raw in enumerate(fh, start=1):
            line = raw.strip()
            if not line or (not jsonl and line.startswith("#")):
                continue
            q = _parse_line(path, n, line) if jsonl else Question(f"line-{n}", line)
            if not q.text.strip():
                raise InputError(f"{path}:{n}: the question is empty")
            if q.id in seen:
                raise InputError(f"{path}:{n}: question id {q.id!r} appears twice; ids must be unique")
            seen.add(q.id)
            out.append(q)
    if not out:
        raise InputError(f"{path}: no questions in this file")
    return out


def _parse_line(path: Path, n: int, line: str) -> Question:
    try:
        rec = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{n}: not JSON ({exc.msg}); write one JSON object per line, or use a .txt "
                         "file with one question per line") from None
    if isinstance(rec, str):
        return Question(f"line-{n}", rec)
    if not isinstance(rec, dict):
        raise InputError(f"{path}:{n}: expected an object with a 'question' field, got {type(rec).__name__}")
    text = next((rec[k] for k in TEXT_KEYS if isinstance(rec.get(k), str)), None)
    if text is None:
        raise InputError(f"{path}:{n}: no 'question' (or 'query') text field")
    qid = next((rec[k] for k in ID_KEYS if rec.get(k) not in (None, "")), None)
    return Question(str(qid) if qid is not None else f"line-{n}", text)


def done_ids(out: Path) -> set[str]:
    """Ids already answered in ``out`` (error records do not count); a torn last line is cut off so
    the next append starts on a fresh line."""
    if not out.exists():
        return set()
    data = out.read_bytes()
    if data and not data.endswith(b"\n"):
        keep = data.rfind(b"\n") + 1
        log.warning("%s: dropping a torn last line (%d bytes) left by an interrupted run", out, len(data) - keep)
        with open(out, "r+b") as fh:
            fh.truncate(keep)
            fh.flush()
            os.fsync(fh.fileno())
        data = data[:keep]
    done: set[str] = set()
    for n, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            raise InputError(f"{out}:{n}: not a JSON record; this is not an answers file from "
                             "'docrag ask --questions' (choose another --out)") from None
        if isinstance(rec, dict) and "id" in rec and "error" not in rec:
            done.add(str(rec["id"]))
    return done


def append_records(out: Path, records: Sequence[dict]) -> None:
    """Append ``records`` as JSON lines in one write, flushed and fsynced."""
    if not records:
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(dumps_safe(r) + "\n" for r in records)
    with open(out, "a", encoding="utf-8") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def _chunks(items: Sequence[Question], size: int) -> Iterator[Sequence[Question]]:
    for s in range(0, len(items), size):
        yield items[s:s + size]


def answer_file(rag: Any, questions: Sequence[Question], out: str | Path, *, k: int | None = None,
                batch_size: int = 16, show_progress: bool = False,
                record: Callable[[Any], dict] | None = None,
                on_answer: Callable[[Question, Any], None] | None = None) -> dict[str, int]:
    """Answer ``questions`` not yet in ``out`` with ``rag`` (a :class:`~docrag.pipeline.RAG`), appending
    one record per question. Returns counts: ``answered``, ``skipped`` (already done), ``failed``."""
    from tqdm import tqdm

    if record is None:
        def record(answer: Any) -> dict:
            return answer_record(answer, rag.corpus)

    out = Path(out)
    done = done_ids(out)
    todo = [q for q in questions if q.id not in done]
    counts = {"answered": 0, "skipped": len(questions) - len(todo), "failed": 0}
    if counts["skipped"]:
        log.info("%s: %d question(s) already answered, %d to go", out, counts["skipped"], len(todo))
    with tqdm(total=len(todo), desc="answering", unit="q", disable=not show_progress) as bar:
        for batch in _chunks(todo, max(1, batch_size)):
            recs = []
            for q, answer, error in _answer_batch(rag, batch, k):
                if error is not None:
                    counts["failed"] += 1
                    recs.append({"id": q.id, "question": q.text, "error": error})
                    continue
                counts["answered"] += 1
                recs.append({"id": q.id, **record(answer)})
                if on_answer is not None:
                    on_answer(q, answer)
            append_records(out, recs)
            bar.update(len(batch))
    return counts


def _answer_batch(rag: Any, batch: Sequence[Question], k: int | None) -> list[tuple[Question, Any, str | None]]:
    """Answers of a batch (one batched retrieval); when the batch fails, each question alone, so one
    bad question costs only its own record."""
    try:
        answers = rag.ask_many([q.text for q in batch], k=k)
        return [(q, a, None) for q, a in zip(batch, answers, strict=True)]
    except DocragError as exc:
        if len(batch) == 1:
            log.warning("question %s failed: %s", batch[0].id, exc)
            return [(batch[0], None, str(exc))]
        log.info("a batch failed (%s); answering its questions one by one", exc)
    out = []
    for q in batch:
        try:
            out.append((q, rag.ask(q.text, k=k), None))
        except DocragError as exc:
            log.warning("question %s failed: %s", q.id, exc)
            out.append((q, None, str(exc)))
    return out

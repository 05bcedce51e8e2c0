"""Persistent verdict cache: an append-only JSONL file, so a rerun asks the judge nothing.

Key = sha256 of (judge cache id, prompt version, full prompt text, evidence image content hashes in
the order shown). Only yes/no verdicts are stored; errors are retried on the next run. Each record
is one line written with a single ``O_APPEND`` write, so concurrent writers never interleave lines;
a torn or corrupt line is skipped with a warning, never fatal.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from collections.abc import Sequence
from pathlib import Path

from docrag.citation.verdict import Verdict, VerdictValue

log = logging.getLogger(__name__)


def verdict_key(cache_id: str, prompt_version: str, prompt: str, image_hashes: Sequence[str]) -> str:
    h = hashlib.sha256()
    for part in (cache_id, prompt_version, prompt, *image_hashes):
        h.update(part.encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()


class VerdictCache:
    """Verdicts by key, in memory and (when ``path`` is given) in a JSONL file."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self._data: dict[str, Verdict] = {}
        self.skipped_lines = 0
        if self.path is not None and self.path.exists():
            self._load()

    def _load(self) -> None:
        assert self.path is not None
        with open(self.path, encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                    value = VerdictValue(rec["value"])
                    key = str(rec["key"])
                except (json.JSONDecodeError, KeyError, ValueError, TypeError):
                    self.skipped_lines += 1
                    log.warning("%s:%d: unreadable verdict cache line skipped", self.path, lineno)
                    continue
                if value is not VerdictValue.ERROR:
                    self._data[key] = Verdict(value, rec.get("raw", ""), usage=dict(rec.get("usage", {})),
                                              source="cache")

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: str) -> bool:
        return key in self._data

    def get(self, key: str) -> Verdict | None:
        v = self._data.get(key)
        if v is None:
            return None
        return Verdict(v.value, v.raw, usage={}, source="cache")

    def put(self, key: str, verdict: Verdict, *, judge: str = "") -> None:
        """Store a yes/no verdict (errors are not cached)."""
        if verdict.is_error:
            return
        self._data[key] = Verdict(verdict.value, verdict.raw, source="cache")
        if self.path is None:
            return
        rec = {"key": key, "value": verdict.value.value, "raw": verdict.raw[:200], "judge": judge,
               "usage": verdict.usage, "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        line = (json.dumps(rec, ensure_ascii=False) + "\n").encode("utf-8")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)


def open_cache(cache: VerdictCache | str | Path | None) -> VerdictCache | None:
    if cache is None or isinstance(cache, VerdictCache):
        return cache
    return VerdictCache(cache)

"""Atomic file writes and append-only JSONL records (nothing half-written is ever visible)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def utf8_safe(text: str) -> str:
    """``text`` with every lone surrogate (a reply cut inside an escaped pair, a file name's
    undecodable byte) replaced by U+FFFD, so that it always encodes as UTF-8; valid pairs are joined."""
    if not _LONE_SURROGATE.search(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def dumps_safe(obj: Any, indent: int | None = None) -> str:
    """``json.dumps`` with non-ASCII kept, made UTF-8-safe (see :func:`utf8_safe`)."""
    return utf8_safe(json.dumps(obj, ensure_ascii=False, indent=indent))


def path_text(path: str | Path) -> str:
    """A path as UTF-8-safe text: undecodable bytes of a file name become ``\\xNN`` escapes."""
    s = str(path)
    if not _LONE_SURROGATE.search(s):
        return s
    return os.fsencode(s).decode("utf-8", "backslashreplace")


def path_bytes_b64(path: str | Path) -> str | None:
    """The raw bytes of a path whose name is not valid UTF-8 (base64), else None: with
    :func:`path_text` this stores such a name losslessly."""
    s = str(path)
    if not _LONE_SURROGATE.search(s):
        return None
    return base64.b64encode(os.fsencode(s)).decode("ascii")


_UMASK: int | None = None


def _file_mode() -> int:
    """The mode ``open()`` would give a new file (0o666 less the umask); ``mkstemp`` alone gives 0600."""
    global _UMASK
    if _UMASK is None:
        _UMASK = os.umask(0o022)
        os.umask(_UMASK)
    return 0o666 & ~_UMASK


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temp file in the same folder and an atomic rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        if hasattr(os, "fchmod"):
            os.fchmod(fd, _file_mode())
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, utf8_safe(text).encode("utf-8"))


def atomic_write_json(path: Path, obj: Any, indent: int | None = 1) -> None:
    atomic_write_text(path, dumps_safe(obj, indent=indent) + "\n")


def read_json(path: Path) -> Any:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def read_versioned_json(path: Path, schema: str, max_version: int, error: type[Exception],
                        missing: str, what: str) -> dict:
    """Read a ``{"schema": ..., "schema_version": ...}`` file, raising ``error`` with a clear message when
    it is absent (``missing`` says how to create it), of another schema, or newer than ``max_version``."""
    path = Path(path)
    if not path.exists():
        raise error(missing)
    data = read_json(path)
    if data.get("schema") != schema:
        raise error(f"{path}: not a docrag {what} (schema {data.get('schema')!r}, expected {schema!r})")
    if int(data.get("schema_version", 0)) > max_version:
        raise error(f"{path}: {what} schema_version {data['schema_version']} is newer than this docrag "
                    f"supports ({max_version}); upgrade docrag")
    return data


def append_jsonl(path: Path, record: Any) -> None:
    """Append one JSON record as a line and flush it to disk (crash-safe resumable logs)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    line = dumps_safe(record) + "\n"
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line)
        fh.flush()
        os.fsync(fh.fileno())


def read_jsonl(path: Path) -> Iterator[dict]:
    """Records of a JSONL file; a torn last line (crash mid-write) is ignored, others must parse."""
    path = Path(path)
    if not path.exists():
        return
    with open(path, encoding="utf-8") as fh:
        lines = fh.readlines()
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            yield json.loads(line)
        except json.JSONDecodeError:
            if i == len(lines) - 1 and not line.endswith("\n"):
                return  # torn final write from an interrupted run
            raise


def write_jsonl(path: Path, records: Iterable[Any]) -> None:
    atomic_write_text(path, "".join(dumps_safe(r) + "\n" for r in records))


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()

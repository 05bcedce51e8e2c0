"""User metadata at ingest (byaldi's ``metadata=``): ``--meta key=value`` for every file of a run,
and/or a sidecar ``<file>.meta.json`` (``report.pdf.meta.json`` or ``report.meta.json``) per file.

The metadata is kept in the document record (``Document.meta["user"]``), attached to every page of
the document when the corpus loads it (``Page.meta``), and usable in search filters:
``--filter year=2011`` or ``--filter meta.year=2011`` (values compared as text). Sidecar values win
over ``--meta`` for their file. Re-ingesting an unchanged file with other metadata updates it
(no re-rendering).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from docrag.errors import InputError
from docrag.ingestion.sources import Source, discover

log = logging.getLogger(__name__)

SIDECAR_SUFFIX = ".meta.json"
_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$")
Scalar = str | int | float | bool


def parse_meta_items(items: Iterable[str]) -> dict[str, str]:
    """``["year=2011", "team=risk"]`` -> ``{"year": "2011", "team": "risk"}`` (usage errors name the item)."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not _KEY.match(key):
            raise InputError(f"--meta {item!r}: expected KEY=VALUE with KEY of letters, digits, _ . - "
                             "(e.g. --meta year=2011)")
        out[key] = value.strip()
    return out


def check_meta(meta: Mapping[str, Any], where: str) -> dict[str, Scalar]:
    """``meta`` as a flat dict of scalars; anything else is an :class:`InputError` naming ``where``."""
    if not isinstance(meta, Mapping):
        raise InputError(f"{where}: metadata must be a JSON object of key: value pairs")
    out: dict[str, Scalar] = {}
    for k, v in meta.items():
        if not isinstance(k, str) or not _KEY.match(k):
            raise InputError(f"{where}: metadata key {k!r} must be letters, digits, _ . - (at most 64)")
        if not isinstance(v, (str, int, float, bool)):
            raise InputError(f"{where}: metadata {k!r} must be a string, number or boolean, got {type(v).__name__}")
        out[k] = v
    return out


def sidecar_for(path: Path) -> Path | None:
    """The sidecar of a source file, when there is one."""
    for cand in (path.with_name(path.name + SIDECAR_SUFFIX), path.with_name(path.stem + SIDECAR_SUFFIX)):
        if cand.is_file():
            return cand
    return None


def read_sidecar(path: Path) -> dict[str, Scalar]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: cannot read this metadata sidecar ({exc})") from None
    return check_meta(data, str(path))


def apply_metadata(corpus: Any, paths: Sequence[str | Path], meta: Mapping[str, Scalar] | None = None) -> int:
    """Attach ``meta`` (and each file's sidecar) to the documents ingested from ``paths``; returns how
    many documents got metadata. Files that are not in the corpus (failed, rejected) are skipped."""
    sources, _ = discover(paths, exclude=Path(corpus.root))
    by_source = corpus.manifest.get("sources", {})
    writer = corpus.writer()
    done = 0
    for src in sources:
        if not isinstance(src, Source):
            continue
        doc_id = by_source.get(str(src.path.resolve()))
        if doc_id is None:
            continue
        side = sidecar_for(src.path)
        user = {**(meta or {}), **(read_sidecar(side) if side else {})}
        if user:
            writer.set_user_meta(doc_id, user)
            done += 1
    return done

"""The RUN_DIR of an evaluation: its identity, ``run.json`` (:class:`~docrag.eval.records.RunMeta`),
and the checks that let a run resume only when it is the same run.

A run's identity is its :meth:`EvalConfig.identity`, the corpus fingerprint, the question set's hash
and, when objects were injected in place of registry lookups (tests, notebooks), a description of
each (``injected``): resuming with another injected index, generator or judge is refused.
"""

from __future__ import annotations

import hashlib
import json
import logging
import platform
import shutil
import time
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from docrag._version import __version__
from docrag.errors import DocragError
from docrag.eval.data import QAItem
from docrag.eval.records import RecordError, RunMeta
from docrag.io import atomic_write_json, sha256_file

log = logging.getLogger(__name__)


class RunDirError(DocragError):
    """A RUN_DIR cannot be used as asked (made with another config, or not a run folder)."""


def component_identity(obj: Any) -> dict[str, Any]:
    """What identifies an injected part: its class, its ``name`` and, for indexes, ``describe()``."""
    out: dict[str, Any] = {"class": f"{type(obj).__module__}.{type(obj).__qualname__}"}
    name = getattr(obj, "name", None)
    if isinstance(name, str):
        out["name"] = name
    describe = getattr(obj, "describe", None)
    if callable(describe):
        try:
            desc = describe()
            json.dumps(desc)
        except (TypeError, ValueError, DocragError) as exc:
            log.debug("%s.describe() not usable as identity: %s", out["class"], exc)
        else:
            out["describe"] = desc
    return out


def run_identity(config_identity: dict, corpus_fingerprint: str, qa: str,
                 injected: dict[str, Any] | None = None) -> dict[str, Any]:
    ident: dict[str, Any] = {"config": config_identity, "corpus_fingerprint": corpus_fingerprint, "qa": qa}
    parts = {k: component_identity(v) for k, v in (injected or {}).items() if v is not None}
    if parts:  # runs without injected parts keep the identity they always had
        ident["injected"] = parts
    return json.loads(json.dumps(ident))   # as run.json holds it (tuples become lists), to compare on resume


def prepare_run_dir(out: Path, ident: dict, *, corpus: str, qa: str | None, overwrite: bool) -> RunMeta:
    """The run's meta: read back when ``out`` holds the same run, else ``out`` is (re)made."""
    meta_path = out / "run.json"
    if out.exists() and any(out.iterdir()):
        if not meta_path.exists():
            if not overwrite:
                raise RunDirError(f"{out}: folder is not empty and is not a docrag eval run; "
                                  "choose a new --out or pass --overwrite")
        else:
            meta = _read_meta(meta_path, overwrite)
            if meta is not None and meta.identity == ident:
                log.info("resuming run in %s", out)
                return meta
            if meta is not None and not overwrite:
                raise RunDirError(f"{out} was made with a different configuration "
                                  f"({describe_diff(meta.identity, ident)}); "
                                  "use a new --out, or --overwrite to discard it")
        log.warning("--overwrite: discarding the previous run in %s", out)
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    meta = RunMeta(identity=ident, corpus=corpus, qa=qa, versions=versions(), created=now())
    atomic_write_json(meta_path, meta.to_json())
    return meta


def _read_meta(path: Path, overwrite: bool) -> RunMeta | None:
    try:
        return RunMeta.read(path)
    except RecordError as exc:
        if overwrite:
            log.warning("%s", exc)
            return None
        raise RunDirError(f"{exc}; use a new --out, or --overwrite to discard it") from None


def describe_diff(old: dict, new: dict) -> str:
    parts = []
    for key in ("config", "corpus_fingerprint", "qa", "injected"):
        a, b = old.get(key), new.get(key)
        if key in ("config", "injected") and isinstance(a, dict) and isinstance(b, dict):
            for f in sorted(set(a) | set(b)):
                if a.get(f) != b.get(f):
                    label = f if key == "config" else f"injected {f}"
                    parts.append(f"{label}: {_short(a.get(f))} -> {_short(b.get(f))}")
        elif a != b:
            parts.append({"corpus_fingerprint": "the corpus changed", "qa": "the question file changed",
                          "config": "the configuration changed",
                          "injected": f"injected parts: {_short(a)} -> {_short(b)}"}[key])
    return "; ".join(parts) or "unknown difference"


def _short(value: Any) -> str:
    if isinstance(value, dict) and "class" in value:   # an injected part: its class and name say enough
        cls = value["class"].rsplit(".", 1)[-1]
        return f"{value['name']!r} ({cls})" if value.get("name") else cls
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_short(v)}" for k, v in value.items()) + "}"
    return repr(value)


def file_or_folder_hash(path: Path) -> str:
    """sha256 of a question file, or of every file of a question folder (a local ViDoRe V3 copy)."""
    if not path.is_dir():
        return sha256_file(path)
    h = hashlib.sha256()
    for f in sorted(p for p in path.rglob("*") if p.is_file()):
        h.update(f"{f.relative_to(path)}:{sha256_file(f)}\n".encode())
    return h.hexdigest()


def items_hash(items: Sequence[QAItem]) -> str:
    blob = json.dumps([it.to_json() for it in items], sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def slug(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_.+" else "_" for c in name) or "run"


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def versions() -> dict[str, str]:
    out = {"docrag": __version__, "python": platform.python_version(), "platform": platform.platform()}
    for pkg in ("torch", "transformers", "colpali-engine", "sentence-transformers", "bm25s", "pymupdf",
                "pytrec-eval-terrier", "rouge-score", "numpy"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "not installed"
    return out

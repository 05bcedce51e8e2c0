"""Shared fixtures: the development corpus in ../shared/corpus, ingested once per session."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_CORPUS = Path(os.environ.get("DOCRAG_SHARED_CORPUS", ROOT.parent / "shared" / "corpus"))

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(scope="session")
def shared_corpus() -> Path:
    """Folder with ``pdfs/`` and ``qa.jsonl``; skips when the shared corpus is not beside the repo."""
    if not (SHARED_CORPUS / "pdfs").is_dir():
        pytest.skip(f"shared development corpus not found at {SHARED_CORPUS}")
    return SHARED_CORPUS


@pytest.fixture(scope="session")
def qa_records(shared_corpus: Path) -> list[dict]:
    with open(shared_corpus / "qa.jsonl", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@pytest.fixture(scope="session")
def dev_corpus_dir(shared_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shared PDFs ingested once per test session (read-only for tests: copy before mutating)."""
    from docrag.ingestion import ingest

    out = tmp_path_factory.mktemp("dev-corpus") / "corpus"
    report = ingest([shared_corpus / "pdfs"], out=out, show_progress=False)
    assert not report.failures, report.failures
    return out


@pytest.fixture(scope="session")
def dev_corpus(dev_corpus_dir: Path):
    from docrag.corpus import Corpus

    return Corpus.open(dev_corpus_dir)

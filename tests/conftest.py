"""Shared fixtures, each built once per session.

* ``synthetic_source`` / ``synthetic_qa`` / ``synthetic_corpus_dir`` / ``synthetic_corpus``: the
  fictional corpus of :mod:`tests.support.synthetic_corpus` (five PDFs written with PyMuPDF, 12
  questions with gold pages and boxes), ingested; needs nothing outside the repository.
* ``shared_corpus`` / ``qa_records`` / ``dev_corpus_dir`` / ``dev_corpus``: the real development
  corpus in ../shared/corpus (``DOCRAG_SHARED_CORPUS`` overrides the path). Only tests of *measured*
  numbers on real PDFs use it; they live in ``tests/test_real_corpus_*.py`` (and a few real-document
  regressions elsewhere), all marked ``real_corpus`` (a test that uses ``shared_corpus`` gets the
  marker automatically). Where the corpus is absent they are deselected, and the run's summary says
  how many and why; ``-m real_corpus`` runs just them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from docrag.sysdeps import MissingSystemPackage

ROOT = Path(__file__).resolve().parents[1]
SHARED_CORPUS = Path(os.environ.get("DOCRAG_SHARED_CORPUS", ROOT.parent / "shared" / "corpus"))

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def _has_shared_corpus() -> bool:
    return (SHARED_CORPUS / "pdfs").is_dir()


_DESELECTED: list[str] = []


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test that uses the real corpus ``real_corpus``; deselect those where it is absent."""
    for item in items:
        if "shared_corpus" in getattr(item, "fixturenames", ()) and not item.get_closest_marker("real_corpus"):
            item.add_marker(pytest.mark.real_corpus)
    if _has_shared_corpus():
        return
    keep, drop = [], []
    for item in items:
        (drop if item.get_closest_marker("real_corpus") else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
        _DESELECTED[:] = [item.nodeid for item in drop]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    """A fixture that needs a missing system package skips the test with the package's install line."""
    try:
        return (yield)
    except MissingSystemPackage as exc:
        pytest.skip(str(exc))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """Same for the test body (:func:`docrag.sysdeps.require` raised in test data builders)."""
    try:
        return (yield)
    except MissingSystemPackage as exc:
        pytest.skip(str(exc))


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    if _DESELECTED:
        files = sorted({nodeid.split("::")[0] for nodeid in _DESELECTED})
        terminalreporter.write_line(
            f"{len(_DESELECTED)} real_corpus test(s) deselected: the real development corpus is not at "
            f"{SHARED_CORPUS} (they measure numbers on its PDFs; files: {', '.join(files)})", yellow=True)


@pytest.fixture(scope="session")
def shared_corpus() -> Path:
    """Folder with ``pdfs/`` and ``qa.jsonl``; skips when the shared corpus is not beside the repo."""
    if not _has_shared_corpus():
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


# -- the synthetic corpus (always available) ------------------------------------------------------

@pytest.fixture(scope="session")
def synthetic_source(tmp_path_factory: pytest.TempPathFactory):
    """The written corpus (:class:`tests.support.synthetic_corpus.SyntheticCorpus`): ``pdfs/``,
    ``qa.jsonl``, the records and the named regions of every page."""
    from tests.support.synthetic_corpus import build_synthetic_corpus

    return build_synthetic_corpus(tmp_path_factory.mktemp("synthetic-source"))


@pytest.fixture(scope="session")
def synthetic_qa(synthetic_source) -> list[dict]:
    """The synthetic corpus' qa.jsonl records (same fields as ../shared/corpus/qa.jsonl, plus ``lang``)."""
    with open(synthetic_source.qa_path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@pytest.fixture(scope="session")
def synthetic_corpus_dir(synthetic_source, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The synthetic PDFs ingested once per session (read-only for tests: copy before mutating)."""
    from docrag.ingestion import ingest

    out = tmp_path_factory.mktemp("synthetic-corpus") / "corpus"
    report = ingest([synthetic_source.pdfs], out=out, show_progress=False)
    assert not report.failures, report.failures
    return out


@pytest.fixture(scope="session")
def synthetic_corpus(synthetic_corpus_dir: Path):
    from docrag.corpus import Corpus

    return Corpus.open(synthetic_corpus_dir)

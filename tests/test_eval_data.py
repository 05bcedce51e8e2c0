"""QA loaders: FinRAGBench-V files over ingested page images, our QA JSONL, and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docrag.corpus import Corpus
from docrag.errors import InputError
from docrag.eval.data import detect_lang, load_finragbench, load_qa, read_qrels_tsv
from docrag.geometry import Space

FIXTURE = Path(__file__).parent / "fixtures" / "finragbench"


@pytest.fixture(scope="module")
def frb_corpus(tmp_path_factory) -> Corpus:
    """The fixture's page images ingested as one-page documents (as a user would)."""
    from docrag.ingestion import ingest

    out = tmp_path_factory.mktemp("frb") / "corpus"
    report = ingest([FIXTURE / "corpus_en", FIXTURE / "corpus_ch"], out=out, show_progress=False)
    assert not report.failures
    return Corpus.open(out)


def _pid(corpus: Corpus, name: str) -> str:
    (doc,) = corpus.find_documents(name)
    return f"{doc.doc_id}:1"


def test_finragbench_queries_and_qrels(frb_corpus):
    items = load_qa(FIXTURE / "queries_en.json", frb_corpus, qrels=FIXTURE / "qrels_en.tsv")
    by = {it.qid: it for it in items}
    assert list(by) == ["ACME_2023_16.png-1", "ACME_2023_17.png-2", "ACME_2023_16.png-3",
                        "Financial Times Europe - 27 August 2024_1.png-6"]
    p16, p17 = _pid(frb_corpus, "ACME_2023_16.png"), _pid(frb_corpus, "ACME_2023_17.png")
    assert by["ACME_2023_16.png-1"].gold_pages == [p16]
    assert by["ACME_2023_17.png-2"].gold_pages == [p17]            # the score-0 row is not gold
    assert by["ACME_2023_16.png-3"].gold_pages == [p16, p17]       # multi-page: two qrels rows
    ft = by["Financial Times Europe - 27 August 2024_1.png-6"]      # no qrels rows: from query-id
    assert ft.gold_pages == [_pid(frb_corpus, "Financial Times Europe - 27 August 2024_1.png")]
    assert ft.category == "Table-Compare and Sort" and ft.answer == "FT Wilshire 5000." and ft.lang == "en"
    assert by["ACME_2023_16.png-3"].answer_type == "long"


def test_finragbench_chinese_file_is_zh(frb_corpus):
    (item,) = load_finragbench(FIXTURE / "queries_ch.json", frb_corpus, qrels=FIXTURE / "qrels_ch.tsv")
    assert item.lang == "zh" and item.category == "文本-信息抽取"
    assert item.gold_pages == [_pid(frb_corpus, "中国建设银行：2024年度人民币国际化报告_29.png")]


def test_finragbench_missing_pages_are_listed(frb_corpus, tmp_path):
    queries = json.loads((FIXTURE / "queries_en.json").read_text(encoding="utf-8"))
    queries.append({"query-id": "OTHER_2020_5.png-1", "query": "q", "answer": "a", "from_pages": "5"})
    (tmp_path / "q.json").write_text(json.dumps(queries), encoding="utf-8")
    qrels = (FIXTURE / "qrels_en.tsv").read_text(encoding="utf-8") + "ACME_2023_16.png-1\tACME_2023_99.png\t1\n"
    (tmp_path / "qrels.tsv").write_text(qrels, encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load_qa(tmp_path / "q.json", frb_corpus, qrels=tmp_path / "qrels.tsv")
    msg = str(exc.value)
    assert "2 question(s)" in msg and "'ACME_2023_99.png' is not in the corpus" in msg
    assert "'OTHER_2020_5.png' is not in the corpus" in msg


def test_qrels_header_is_required(tmp_path):
    (tmp_path / "bad.tsv").write_text("q1\tdoc.png\t1\n", encoding="utf-8")
    with pytest.raises(InputError, match="header"):
        read_qrels_tsv(tmp_path / "bad.tsv")


def _write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def test_qa_jsonl_pages_and_boxes_in_points(frb_corpus, tmp_path):
    rec = {"id": "x1", "question": "Which region had the highest revenue?", "answer": "United States",
           "category": "table", "doc": "ACME_2023_16.png", "pages": [1], "answer_type": "short",
           "boxes": [{"page": 1, "bbox": [50, 40, 10, 20]}]}
    item, with_folder = load_qa(_write_jsonl(tmp_path / "qa.jsonl", [rec, {**rec, "id": "x2",
                                                                          "doc": "corpus_en/ACME_2023_16.png"}]),
                                frb_corpus)
    assert with_folder.gold_pages == item.gold_pages
    page = frb_corpus.page(item.gold_pages[0])
    assert item.gold_pages == [_pid(frb_corpus, "ACME_2023_16.png")] and item.lang == "en"
    box = item.gold_boxes[0].box
    assert box.space is Space.POINT and box.extent == (page.width_pt, page.height_pt)
    assert box.coords == (10, 20, 50, 40)   # reordered corners


def test_qa_jsonl_errors_name_every_bad_question_and_never_match_substrings(frb_corpus, tmp_path):
    good = {"id": "ok", "question": "q", "answer": "a", "doc": "ACME_2023_16.png", "pages": [1]}
    records = [good,
               {**good, "id": "sub", "doc": "ACME_2023_1"},            # substring of a file name
               {**good, "id": "page", "pages": [2]},                  # one-page document
               {**good, "id": "nofield", "pages": None} | {"pages": []},
               {"id": "missing", "question": "q"}]
    with pytest.raises(InputError) as exc:
        load_qa(_write_jsonl(tmp_path / "qa.jsonl", records), frb_corpus)
    msg = str(exc.value)
    assert "4 question(s)" in msg
    assert "'ACME_2023_1' is not in the corpus" in msg
    assert "has 1 page(s); page 2 does not exist" in msg
    assert "'pages' is empty" in msg
    assert "missing field(s) answer, doc, pages" in msg


def test_detect_lang():
    assert detect_lang("2024年跨境人民币收付金额是多少？") == "zh"
    assert detect_lang("What was the revenue of 中国建设银行 in 2024 according to the report?") == "en"


def test_finragbench_end_to_end_eval(frb_corpus, tmp_path):
    """A FinRAGBench-V style run: categories and language carried into the report."""
    from docrag.eval.runner import EvalConfig, Evaluator
    from docrag.generation import get_generator

    gen = get_generator("extractive", embed=False)
    cfg = EvalConfig(index_dir=str(tmp_path / "idx"))
    en = Evaluator.from_files(frb_corpus.root, FIXTURE / "queries_en.json", tmp_path / "en", cfg,
                              qrels=FIXTURE / "qrels_en.tsv", generator=gen, show_progress=False).run()
    groups = en["retrieval"]["groups"]
    assert groups["category:Table-Compare and Sort"]["n"] == 2 and groups["lang:en"]["n"] == 4
    assert groups["overall"]["recall@10"] == 100.0          # 5 pages, k = 10: every gold page is in
    assert en["retrieval"]["pytrec_eval_max_abs_diff"] <= 1e-9
    assert set(en["generation"]["groups"]) == set(groups)
    zh = Evaluator.from_files(frb_corpus.root, FIXTURE / "queries_ch.json", tmp_path / "zh", cfg,
                              qrels=FIXTURE / "qrels_ch.tsv", generator=gen, show_progress=False).run()
    assert zh["generation"]["groups"]["lang:zh"]["n"] == 1
    assert zh["retrieval"]["groups"]["lang:zh"]["mrr@10"] > 0


def test_finragbench_question_without_qrels_or_from_pages_is_skipped_and_counted(frb_corpus, tmp_path, caplog):
    queries = json.loads((FIXTURE / "queries_en.json").read_text(encoding="utf-8"))
    queries.append({"query-id": "no-gold-here", "query": "q?", "answer": "a"})   # no qrels, no from_pages
    queries.append({"query-id": "no-gold-either", "query": "q?", "answer": "a", "from_pages": None})
    (tmp_path / "q.json").write_text(json.dumps(queries), encoding="utf-8")
    with caplog.at_level("WARNING", logger="docrag.eval.data"):
        items = load_qa(tmp_path / "q.json", frb_corpus, qrels=FIXTURE / "qrels_en.tsv")
    assert len(items) == 4 and {"no-gold-here", "no-gold-either"}.isdisjoint(it.qid for it in items)
    assert "2 question(s) skipped" in caplog.text and "no-gold-here" in caplog.text


def test_finragbench_combined_multi_page_ids(frb_corpus, tmp_path):
    p16, p17 = _pid(frb_corpus, "ACME_2023_16.png"), _pid(frb_corpus, "ACME_2023_17.png")
    queries = [{"query-id": "ACME_2023_16_17.png-1", "query": "q", "answer": "a"},
               {"query-id": "ACME_2023_16-17.png-1", "query": "q", "answer": "a"}]
    (tmp_path / "q.json").write_text(json.dumps(queries), encoding="utf-8")
    (tmp_path / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\n"
                                        "ACME_2023_16_17.png-1\tACME_2023_16_17.png\t1\n"
                                        "ACME_2023_16-17.png-1\tACME_2023_16-17.png\t1\n", encoding="utf-8")
    items = load_qa(tmp_path / "q.json", frb_corpus, qrels=tmp_path / "qrels.tsv")
    assert [it.gold_pages for it in items] == [[p16, p17], [p16, p17]]   # its single pages


def test_finragbench_combined_image_in_the_corpus_is_used_as_is(tmp_path):
    from docrag.ingestion import ingest

    folder = tmp_path / "imgs"
    folder.mkdir()
    for name in ("ACME_2023_16.png", "ACME_2023_16_17.png"):
        (folder / name).write_bytes((FIXTURE / "corpus_en" / "ACME_2023_16.png").read_bytes()[:-1] + bytes([len(name)]))
    ingest([folder], out=tmp_path / "c", show_progress=False, ocr="never")
    corpus = Corpus.open(tmp_path / "c")
    (tmp_path / "q.json").write_text(json.dumps([{"query-id": "x-1", "query": "q", "answer": "a"}]), encoding="utf-8")
    (tmp_path / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\nx-1\tACME_2023_16_17.png\t1\n", encoding="utf-8")
    (item,) = load_qa(tmp_path / "q.json", corpus, qrels=tmp_path / "qrels.tsv")
    assert item.gold_pages == [_pid(corpus, "ACME_2023_16_17.png")]

"""``docrag ask --questions FILE --out answers.jsonl``: one process, batched retrieval, resumable,
each line the ``ask --json`` record plus the question's id."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from docrag.apps.batch import answer_file, done_ids, read_questions
from docrag.apps.cli import app
from docrag.errors import InputError


@pytest.fixture(scope="module")
def corpus_dir(synthetic_corpus_dir, tmp_path_factory):
    dst = tmp_path_factory.mktemp("batch") / "corpus"
    shutil.copytree(synthetic_corpus_dir, dst)
    return dst


def _env(tmp_path):
    return {"DOCRAG_CONFIG": str(tmp_path / "none.toml")}


def test_read_questions_jsonl_text_and_errors(tmp_path):
    j = tmp_path / "q.jsonl"
    j.write_text('{"id": "a", "question": "one?"}\n\n{"query": "two?"}\n"three?"\n', encoding="utf-8")
    assert [(q.id, q.text) for q in read_questions(j)] == [("a", "one?"), ("line-3", "two?"), ("line-4", "three?")]
    t = tmp_path / "q.txt"
    t.write_text("# comment\nfirst question\n\nsecond question\n", encoding="utf-8")
    assert [(q.id, q.text) for q in read_questions(t)] == [("line-2", "first question"), ("line-4", "second question")]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "question": "x"}\n{"id": "a", "question": "y"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.jsonl:2: question id 'a' appears twice"):
        read_questions(bad)
    bad.write_text('{"id": "a", "question": "  "}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.jsonl:1: the question is empty"):
        read_questions(bad)
    bad.write_text('{"id": "a", "text_wrong": "x"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.jsonl:1: no 'question'"):
        read_questions(bad)


def test_file_lines_equal_ask_json_and_resume_after_a_torn_write(corpus_dir, synthetic_qa, tmp_path):
    qs = tmp_path / "questions.jsonl"
    qs.write_text("".join(json.dumps({"id": r["id"], "question": r["question"]}) + "\n" for r in synthetic_qa[:4]),
                  encoding="utf-8")
    out = tmp_path / "answers.jsonl"
    args = ["ask", str(corpus_dir), "--questions", str(qs), "--out", str(out), "-r", "bm25", "-g", "extractive",
            "-k", "5"]
    res = CliRunner().invoke(app, args, env=_env(tmp_path), catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "4 answered, 0 already done, 0 failed" in res.stdout
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert [x["id"] for x in lines] == [r["id"] for r in synthetic_qa[:4]]

    single = CliRunner().invoke(app, ["ask", str(corpus_dir), synthetic_qa[1]["question"], "-r", "bm25", "-g",
                                      "extractive", "-k", "5", "--json"], env=_env(tmp_path), catch_exceptions=False)
    assert single.exit_code == 0, single.output
    rec = json.loads(single.stdout.strip().splitlines()[-1])
    assert {k: v for k, v in lines[1].items() if k != "id"} == rec
    assert rec["hits"] and rec["retriever"] == "bm25"

    # simulate a crash: keep two whole records and half of the third
    raw = out.read_text(encoding="utf-8").splitlines(keepends=True)
    out.write_text(raw[0] + raw[1] + raw[2][: len(raw[2]) // 2], encoding="utf-8")
    assert done_ids(out) == {synthetic_qa[0]["id"], synthetic_qa[1]["id"]}  # and the torn tail is cut off
    assert out.read_text(encoding="utf-8").endswith("\n")
    res = CliRunner().invoke(app, args, env=_env(tmp_path), catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "2 answered, 2 already done, 0 failed" in res.stdout
    again = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert [x["id"] for x in again] == [r["id"] for r in synthetic_qa[:4]]
    assert again[:4] == lines  # same records, no duplicates


def test_retrieval_is_batched_and_models_load_once(corpus_dir, synthetic_qa, tmp_path):
    from docrag.apps.batch import Question
    from docrag.pipeline import RAG

    rag = RAG(corpus_dir, retriever="bm25", generator="extractive", show_progress=False)
    calls: list[int] = []
    index = rag.index
    real = index.search_batch

    def counting(queries, k=10, filter=None):
        calls.append(len(queries))
        return real(queries, k=k, filter=filter)

    index.search_batch = counting
    questions = [Question(r["id"], r["question"]) for r in synthetic_qa[:10]]
    counts = answer_file(rag, questions, tmp_path / "a.jsonl", k=3, batch_size=4)
    assert counts == {"answered": 10, "skipped": 0, "failed": 0}
    # one batched search per batch and scope (the documents a question names: docrag.doc_names), never one per
    # question
    expected = []
    for start in range(0, 10, 4):
        scopes = [tuple(sorted(rag.named(q.text))) for q in questions[start:start + 4]]
        expected += [scopes.count(s) for s in dict.fromkeys(scopes)]
    assert calls == expected and sum(calls) == 10 and len(calls) < 10


def test_usage_errors_exit_2(corpus_dir, tmp_path):
    q = tmp_path / "q.txt"
    q.write_text("x?\n", encoding="utf-8")
    for args in (["ask", str(corpus_dir)], ["ask", str(corpus_dir), "--questions", str(q)],
                 ["ask", str(corpus_dir), "q?", "--out", str(tmp_path / "o.jsonl")],
                 ["ask", str(corpus_dir), "--questions", str(q), "--out", str(tmp_path / "o.jsonl"), "--json"],
                 ["ask", str(corpus_dir), "q?", "-r", "bm25+"]):
        res = CliRunner().invoke(app, args, env=_env(tmp_path))
        assert res.exit_code == 2, (args, res.output)

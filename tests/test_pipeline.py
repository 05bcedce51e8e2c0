"""``docrag.RAG``: retrieval + generation over the ingested synthetic corpus, and settings precedence."""

from __future__ import annotations

import json
import shutil

import pytest

from docrag.config import DEFAULT_GENERATOR, DEFAULT_RETRIEVER, load_settings
from docrag.errors import InputError
from docrag.generation.extractive import ExtractiveGenerator
from docrag.pipeline import RAG
from tests.support.openai_server import ScriptedOpenAIServer


@pytest.fixture(scope="module")
def corpus_dir(synthetic_corpus_dir, tmp_path_factory):
    dst = tmp_path_factory.mktemp("pipeline") / "corpus"
    shutil.copytree(synthetic_corpus_dir, dst)
    return dst


@pytest.fixture()
def no_user_config(monkeypatch, tmp_path):
    monkeypatch.setenv("DOCRAG_CONFIG", str(tmp_path / "absent.toml"))
    for var in ("DOCRAG_RETRIEVER", "DOCRAG_GENERATOR", "DOCRAG_K", "DOCRAG_JUDGE", "DOCRAG_COORDS"):
        monkeypatch.delenv(var, raising=False)


def test_ask_answers_from_the_gold_page(corpus_dir, synthetic_qa, no_user_config):
    rag = RAG(corpus_dir, retriever="bm25", generator=ExtractiveGenerator(embed=False), show_progress=False)
    rec = next(r for r in synthetic_qa if r["id"] == "syn-04")   # the Spearman correlation, 0.4127
    ans = rag.ask(rec["question"], k=5)
    assert ans.retriever == "bm25" and ans.generator == "extractive"
    assert 1 <= len(ans.hits) <= 5 and [h.rank for h in ans.hits] == list(range(1, len(ans.hits) + 1))
    cited = {(rag.corpus.document(c.doc_id).file_name, c.page_no) for c in ans.citations}
    assert (rec["doc"], rec["pages"][0]) in cited
    assert "0.4127" in ans.answer


def test_ask_many_keeps_order_and_uses_concurrency(corpus_dir, synthetic_qa, no_user_config):
    questions = [r["question"] for r in synthetic_qa[:4]]

    def reply(req):
        q = [p["text"] for p in req["messages"][0]["content"] if p["type"] == "text"][1]
        return json.dumps({"answer": q.split("Question:")[1].strip(), "coordinates": {"1": [[0, 0, 50, 50]]}})

    with ScriptedOpenAIServer(reply) as srv:
        rag = RAG(corpus_dir, retriever="bm25", generator="openai:m", show_progress=False,
                  generator_options={"base_url": srv.base_url, "api_key": "k", "max_pages": 2, "ground": "off"})
        answers = rag.ask_many(questions, k=3, concurrency=2)
        assert len(srv.requests) == 4
    assert [a.answer for a in answers] == questions
    for a in answers:
        assert a.citations[0].page_id == a.hits[0].page_id     # image 1 = the rank-1 page
        assert a.citations[0].boxes[0].x0 == 0


def test_empty_question_is_an_input_error(corpus_dir, no_user_config):
    rag = RAG(corpus_dir, retriever="bm25", generator=ExtractiveGenerator(embed=False), show_progress=False)
    with pytest.raises(InputError):
        rag.ask("   ")


# -- settings ----------------------------------------------------------------------------------

def test_defaults_live_in_one_place(tmp_path):
    s = load_settings(tmp_path / "absent.toml", environ={})
    assert (s.retriever, s.generator, s.k) == (DEFAULT_RETRIEVER, DEFAULT_GENERATOR, 10)
    assert DEFAULT_RETRIEVER == "bm25" and DEFAULT_GENERATOR == "extractive"


def test_precedence_env_over_file_over_default(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_text('retriever = "bm25"\ngenerator = "openai:gpt-4o"\nk = 4\n'
                   '[generation]\ncoords = "norm1000"\nmax_pages = 3\n'
                   '[openai]\nbase_url = "http://127.0.0.1:9/v1"\napi_key_env = "MY_KEY"\n')
    s = load_settings(cfg, environ={})
    assert (s.retriever, s.generator, s.k) == ("bm25", "openai:gpt-4o", 4)
    s = load_settings(cfg, environ={"DOCRAG_RETRIEVER": "minilm", "DOCRAG_K": "7", "DOCRAG_COORDS": "pixel",
                                    "MY_KEY": "sk-x"})
    assert (s.retriever, s.generator, s.k) == ("minilm", "openai:gpt-4o", 7)
    assert s.source["retriever"] == "DOCRAG_RETRIEVER" and s.source["generator"] == str(cfg)
    assert s.generator_options() == {"coords": "pixel", "max_pages": 3, "base_url": "http://127.0.0.1:9/v1",
                                     "api_key": "sk-x"}
    assert s.generator_options("extractive") == {"max_pages": 3}


def test_cli_flag_beats_env(corpus_dir, monkeypatch, tmp_path):
    monkeypatch.setenv("DOCRAG_CONFIG", str(tmp_path / "absent.toml"))
    monkeypatch.setenv("DOCRAG_RETRIEVER", "no-such-retriever")
    rag = RAG(corpus_dir, retriever="bm25", generator=ExtractiveGenerator(embed=False), show_progress=False)
    assert rag.retriever_name == "bm25"
    assert RAG(corpus_dir, generator=ExtractiveGenerator(embed=False)).retriever_name == "no-such-retriever"


@pytest.mark.parametrize("text, match", [
    ("retriever = ", "not valid TOML"),
    ('colour = "blue"', "unknown key"),
    ('[generation]\nsize = 3', r"unknown key\(s\) in \[generation\]"),
    ("k = 'many'", "k = 'many'"),
])
def test_bad_config_files_name_the_file_and_key(tmp_path, text, match):
    cfg = tmp_path / "config.toml"
    cfg.write_text(text)
    with pytest.raises(InputError, match=match) as info:
        load_settings(cfg, environ={})
    assert str(cfg) in str(info.value)

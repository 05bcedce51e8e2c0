"""A loopback endpoint that fails in every way seen (tests/support/openai_server.Fault), driven
through the backend, ``docrag ask`` and ``docrag eval``: retried, translated to one line, counted."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from docrag.backends import BackendError, get_backend
from docrag.backends.base import ChatMessage
from docrag.errors import DocragError
from tests.support.openai_server import FAULTS, Fault, ScriptedOpenAIServer
from tests.support.pdfs import make_text_pdf

GOOD = '{"answer": "ok", "coordinates": {}}'
TRANSIENT = ("incomplete_read", "bad_status_line", "reset", "non_utf8", "html", "empty_choices", "no_content",
             "http_500")


def _backend(srv, retries=2):
    return get_backend("openai:m", base_url=srv.base_url, api_key="x", max_retries=retries, backoff=0.01,
                       timeout=5)


@pytest.mark.parametrize("kind", TRANSIENT)
def test_transient_faults_are_retried_then_succeed(kind):
    with ScriptedOpenAIServer([Fault(kind), GOOD]) as srv:
        reply = _backend(srv).chat([ChatMessage.user("q")])
    assert reply.text == GOOD and len(srv.requests) == 2


@pytest.mark.parametrize("kind", TRANSIENT + ("http_400",))
def test_persistent_faults_become_one_line_docrag_errors(kind):
    with ScriptedOpenAIServer(Fault(kind)) as srv:
        with pytest.raises(BackendError) as err:
            _backend(srv).chat([ChatMessage.user("q")])
    assert isinstance(err.value, DocragError) and "\n" not in str(err.value)
    assert len(srv.requests) == (1 if kind == "http_400" else 3)   # 400 is not retried


def test_nan_usage_counts_are_dropped_not_fatal():
    with ScriptedOpenAIServer(Fault("nan_usage", GOOD)) as srv:
        reply = _backend(srv).chat([ChatMessage.user("q")])
    assert reply.text == GOOD and reply.usage == {"total_tokens": 3}


def test_every_fault_kind_is_covered():
    assert set(TRANSIENT) | {"http_400", "nan_usage", "slow"} == set(FAULTS)


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory):
    from docrag.ingestion import ingest

    root = tmp_path_factory.mktemp("faulty")
    pdfs = root / "pdfs"
    pdfs.mkdir()
    for i, word in enumerate(("alpha", "bravo", "charlie", "delta")):
        make_text_pdf(pdfs / f"{word}.pdf", f"The {word} revenue was {i + 10} million.", n_pages=2)
    ingest([pdfs], out=root / "corpus", ocr="never", show_progress=False, workers=1)
    qa = root / "qa.jsonl"
    qa.write_text("".join(json.dumps({"id": f"q{i}", "question": f"What was the {w} revenue?",
                                      "answer": f"{i + 10} million", "doc": f"{w}.pdf", "pages": [1]}) + "\n"
                          for i, w in enumerate(("alpha", "bravo", "charlie", "delta"))), encoding="utf-8")
    return root


def _env(tmp_path, srv):
    cfg = tmp_path / "docrag.toml"
    cfg.write_text(f'[openai]\nbase_url = "{srv.base_url}"\nmax_retries = 1\nbackoff = 0.01\ntimeout = 5\n')
    import os

    return {**os.environ, "DOCRAG_CONFIG": str(cfg), "OPENAI_API_KEY": "x"}


def _cli(args, env):
    return subprocess.run([sys.executable, "-c", "from docrag.apps.cli import main; main()", *args],
                          capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.slow
def test_ask_through_a_failing_endpoint_prints_one_line(small_corpus, tmp_path):
    with ScriptedOpenAIServer(Fault("html")) as srv:
        res = _cli(["ask", str(small_corpus / "corpus"), "What was the alpha revenue?",
                    "--retriever", "bm25", "--generator", "openai:m", "--no-progress"], _env(tmp_path, srv))
    assert res.returncode == 1, res.stderr
    lines = [ln for ln in res.stderr.splitlines() if not ln.startswith("WARNING")]
    assert lines and lines[-1].startswith("error: ") and "giving up after 2 attempts" in lines[-1]
    assert "Traceback" not in res.stderr


@pytest.mark.slow
def test_eval_counts_failures_goes_on_and_a_resume_retries_only_them(small_corpus, tmp_path):
    faults = iter(["incomplete_read", "non_utf8", "http_400", "html", "empty_choices", "bad_status_line"])

    def flaky(req):   # questions about bravo and delta always fail, each time in another way
        text = json.dumps(req)
        if "bravo" in text or "delta" in text:
            return Fault(next(faults, "reset"))
        return '{"answer": "10 million", "coordinates": {"1": [[0, 0, 100, 100]]}}'

    out = tmp_path / "run"
    args = ["eval", str(small_corpus / "corpus"), "--qa", str(small_corpus / "qa.jsonl"),
            "--out", str(out), "--retriever", "bm25", "--generator", "openai:m", "--judge", "none",
            "--answer-judge", "proxy", "-k", "2", "--no-progress"]
    with ScriptedOpenAIServer(flaky) as srv:
        res = _cli(args, _env(tmp_path, srv))
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr and "2 question(s) failed" in res.stderr
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["errors"]["n"] == 2 and report["errors"]["by_stage"] == {"generation": 2}
    assert {e["qid"] for e in report["errors"]["questions"]} == {"q1", "q3"}
    assert report["generation"]["groups"]["overall"]["n"] == 2
    with ScriptedOpenAIServer('{"answer": "11 million", "coordinates": {}}') as srv:
        res = _cli(args, _env(tmp_path, srv))
        asked = [json.dumps(r) for r in srv.requests]
    assert res.returncode == 0, res.stderr
    assert len(asked) == 2 and all("bravo" in a or "delta" in a for a in asked)   # only the failed ones
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["errors"]["n"] == 0 and report["generation"]["groups"]["overall"]["n"] == 4


@pytest.mark.slow
def test_eval_judge_failures_are_counted_and_only_they_are_retried(small_corpus, tmp_path):
    def reply(req, fail_on=None):   # answer judge (max_tokens 8): true/false; citation judge: yes/no
        if fail_on and fail_on in json.dumps(req):
            return Fault("http_500")
        return "true" if req.get("max_tokens") == 8 else "yes"

    out = tmp_path / "run"
    args = ["eval", str(small_corpus / "corpus"), "--qa", str(small_corpus / "qa.jsonl"),
            "--out", str(out), "--retriever", "bm25", "--generator", "extractive", "--judge", "openai:judge",
            "--levels", "page", "--answer-judge", "openai:judge", "-k", "2", "--no-progress"]
    with ScriptedOpenAIServer(lambda req: reply(req, "11 million")) as srv:   # both judges fail on q1 (bravo)
        res = _cli(args, _env(tmp_path, srv))
    assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["errors"]["by_stage"] == {"answer_judge": 1}
    assert [e["qid"] for e in report["errors"]["questions"]] == ["q1"]
    rec = [json.loads(x) for x in (out / "generations.jsonl").read_text(encoding="utf-8").splitlines()
           if json.loads(x)["qid"] == "q1"][-1]
    if rec["answer"]["citations"]:   # the offline generator cited something: its judge call failed too
        assert "judge call failed" in rec["citations"]["page"]["errors"][0]
    with ScriptedOpenAIServer(reply) as srv:
        res = _cli(args, _env(tmp_path, srv))
        asked = [json.dumps(r) for r in srv.requests]
    assert res.returncode == 0, res.stderr
    assert asked and all("11 million" in a for a in asked)   # only q1's judges are asked again
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["errors"]["n"] == 0 and report["generation"]["groups"]["overall"]["accuracy"] == 100.0
    assert report["generation"]["groups"]["overall"]["n_judge_errors_page"] == 0


CUT_SURROGATE = '{"answer": "growth \\ud83d'   # a reply cut inside an escaped surrogate pair


@pytest.mark.slow
def test_ask_json_and_eval_records_of_a_cut_surrogate_reply_are_utf8(small_corpus, tmp_path):
    with ScriptedOpenAIServer(CUT_SURROGATE) as srv:
        env = _env(tmp_path, srv)
        res = subprocess.run([sys.executable, "-c", "from docrag.apps.cli import main; main()", "ask",
                              str(small_corpus / "corpus"), "What was the alpha revenue?", "--retriever", "bm25",
                              "--generator", "openai:m", "--json", "--no-progress"],
                             capture_output=True, env=env, timeout=300)
        assert res.returncode == 0, res.stderr.decode("utf-8", "replace")
        record = json.loads(res.stdout.decode("utf-8"))
        assert record["answer"] == "growth \ufffd"
        out = tmp_path / "run"
        args = ["eval", str(small_corpus / "corpus"), "--qa", str(small_corpus / "qa.jsonl"), "--out", str(out),
                "--retriever", "bm25", "--generator", "openai:m", "--judge", "none", "--answer-judge", "proxy",
                "-k", "1", "--no-progress", "--limit", "2"]
        for _ in range(2):   # the resumed run reads the records back
            res = _cli(args, env)
            assert res.returncode == 0, res.stderr
    for f in out.glob("*.jsonl"):
        for line in f.read_bytes().decode("utf-8").splitlines():
            json.loads(line)
    gens = [json.loads(x) for x in (out / "generations.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [g["answer"]["answer"] for g in gens] == ["growth \ufffd"] * 2

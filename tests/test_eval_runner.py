"""End-to-end evaluation on a synthetic corpus (tests/support/eval_corpus.py): pytrec_eval equality,
crash/resume, run identity, typed records, CLI. Measured numbers on the real corpus: test_eval_real_corpus.py."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from docrag.apps.cli import app
from docrag.config import Settings
from docrag.eval.attribution import STAGES
from docrag.eval.compare import compare_runs
from docrag.eval.data import load_qa
from docrag.eval.record_log import read_records
from docrag.eval.records import (
    AnswerRecord,
    CitationRecord,
    ErrorRecord,
    GenerationRecord,
    JudgementRecord,
    RetrievalRecord,
    RunMeta,
)
from docrag.eval.retrieval_metrics import DEFAULT_METRICS, pytrec_eval_scores, read_trec_run
from docrag.eval.runner import EvalConfig, Evaluator, RunDirError
from docrag.types import Answer
from tests.support.eval_corpus import make_eval_corpus
from tests.support.viewer_data import FirstBlockGenerator


@pytest.fixture(scope="module")
def synth(tmp_path_factory):
    """(corpus dir, qa.jsonl, Corpus, qa records) of the synthetic evaluation corpus."""
    from docrag.corpus import Corpus

    corpus_dir, qa, _ = make_eval_corpus(tmp_path_factory.mktemp("eval-corpus"))
    records = [json.loads(line) for line in qa.read_text(encoding="utf-8").splitlines()]
    return corpus_dir, qa, Corpus.open(corpus_dir), records


@pytest.fixture(scope="module")
def fast_parts(synth, tmp_path_factory):
    from docrag.generation import get_generator
    from docrag.index import open_index

    index = open_index(synth[2], "bm25", index_dir=tmp_path_factory.mktemp("idx") / "bm25", show_progress=False)
    return index, get_generator("extractive", embed=False)


def _independent_pytrec(run_file: Path, qa_records: list[dict], corpus) -> dict[str, dict[str, float]]:
    """pytrec_eval on the written run file with qrels built here from qa.jsonl (not from our code)."""
    qrels = {}
    for r in qa_records:
        (doc,) = [d for d in corpus.documents() if d.file_name == r["doc"]]
        qrels[r["id"]] = {f"{doc.doc_id}:{p}": 1 for p in r["pages"]}
    return pytrec_eval_scores(read_trec_run(run_file), qrels, DEFAULT_METRICS)


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.slow
def test_cli_retrieval_numbers_equal_pytrec_eval(synth, tmp_path):
    corpus_dir, qa, corpus, qa_records = synth
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["eval", str(corpus_dir), "--qa", str(qa), "--out", str(out),
                                   "--retriever", "hybrid:bm25+dummy", "--generator", "none",
                                   "--index-dir", str(tmp_path / "idx"), "--no-progress"])
    assert res.exit_code == 0, res.output
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    overall = report["retrieval"]["groups"]["overall"]
    assert overall["n"] == len(qa_records) == 22
    theirs = _independent_pytrec(out / "run.trec", qa_records, corpus)
    for m in DEFAULT_METRICS:
        assert abs(overall[m] - 100 * sum(s[m] for s in theirs.values()) / len(theirs)) <= 1e-9
    # a fusion with the random-vector dummy keeps every gold page in the top 10 but pushes some below rank 1
    assert overall["recall@10"] == 100.0 and 0 < overall["mrr@10"] < 100.0
    assert report["retrieval"]["pytrec_eval_max_abs_diff"] <= 1e-9
    cats = Counter(r["category"] for r in qa_records)
    assert {g: s["n"] for g, s in report["retrieval"]["groups"].items() if g.startswith("category:")} == \
        {f"category:{c}": n for c, n in cats.items()}
    assert report["retrieval"]["groups"]["lang:zh"]["n"] == 2
    assert "Recall@10" in (out / "report.md").read_text(encoding="utf-8")
    assert (out / "recall_at_k.png").stat().st_size > 1000
    assert "retrieval  nDCG@5" in res.output


class CrashAfter:
    """A generator that dies after ``n`` answers, like a run killed mid-way."""

    def __init__(self, inner, n: int) -> None:
        self.inner, self.n, self.calls, self.name = inner, n, 0, inner.name

    def generate(self, question, pages) -> Answer:
        if self.calls >= self.n:
            raise RuntimeError("simulated crash")
        self.calls += 1
        return self.inner.generate(question, pages)


class CountingIndex:
    def __init__(self, inner, crash_after_batches: int | None = None) -> None:
        self.inner, self.queries, self.batches, self.crash = inner, 0, 0, crash_after_batches

    def search_batch(self, queries, k=10, filter=None):
        if self.crash is not None and self.batches >= self.crash:
            raise RuntimeError("simulated crash in retrieval")
        self.batches += 1
        self.queries += len(queries)
        return self.inner.search_batch(queries, k=k)


def test_resume_after_crashes_redoes_nothing_and_gives_the_same_report(synth, fast_parts, tmp_path):
    _, qa, corpus, _ = synth
    index, generator = fast_parts
    items = load_qa(qa, corpus)
    cfg = EvalConfig(retriever="bm25")  # offline: bm25, extractive, grounding judge, proxy accuracy

    def evaluator(out, gen, idx):
        return Evaluator(corpus, items, out, cfg, generator=gen, index=idx, show_progress=False)

    # 1) killed during retrieval (after the first batch of 16 questions)
    with pytest.raises(RuntimeError, match="retrieval"):
        evaluator(tmp_path / "run", CrashAfter(generator, 10_000), CountingIndex(index, crash_after_batches=1)).run()
    assert len(_lines(tmp_path / "run" / "retrieval.jsonl")) == 16
    # 2) killed during generation, with a half-written last line
    idx2 = CountingIndex(index)
    with pytest.raises(RuntimeError, match="simulated crash"):
        evaluator(tmp_path / "run", CrashAfter(generator, 7), idx2).run()
    assert idx2.queries == 6  # only the questions retrieval had not finished
    with open(tmp_path / "run" / "generations.jsonl", "a", encoding="utf-8") as fh:
        fh.write('{"qid": "q0')
    # 3) resumed to the end
    idx3, gen3 = CountingIndex(index), CrashAfter(generator, 10_000)
    report = evaluator(tmp_path / "run", gen3, idx3).run()
    assert idx3.queries == 0 and gen3.calls == 22 - 7
    for name in ("retrieval", "answers", "judgements", "citations", "generations"):
        qids = [r["qid"] for r in _lines(tmp_path / "run" / f"{name}.jsonl")]
        assert sorted(qids) == sorted(it.qid for it in items), name  # each question once, none twice
    meta = RunMeta.read(tmp_path / "run" / "run.json")
    assert [s.resumed for s in meta.sessions] == [False, True, True] and meta.status == "complete"
    assert set(meta.timings) >= {"retrieval", "generation", "report"} and meta.versions["docrag"]
    assert meta.identity["injected"]["generator"]["class"].endswith("CrashAfter")

    # the same run without interruptions gives the very same report
    clean = evaluator(tmp_path / "clean", CrashAfter(generator, 10_000), index).run()
    assert (tmp_path / "run" / "report.json").read_text() == (tmp_path / "clean" / "report.json").read_text()
    assert report == clean
    side = compare_runs([tmp_path / "run", tmp_path / "clean"])
    assert side["runs"][0]["values"] == side["runs"][1]["values"] and side["same_question_count"]

    gen = report["generation"]["groups"]["overall"]
    assert gen["n"] == 22 and report["generation"]["accuracy_is_proxy"]
    assert gen["P_Rec"] is not None and gen["B_Rec"] is not None and gen["n_page"] + gen["n_excluded_page"] == 22
    assert sum(gen["attribution"].values()) == 22
    recs = {r.qid: r for r in read_records(tmp_path / "run" / "generations.jsonl", GenerationRecord)}
    r = recs["q00"]
    assert r.gold.answer == "1,000 million dollars" and r.gold.boxes[0].box.space.value == "pt"
    assert r.answer.question == r.question and "1,000 million dollars" in r.answer.answer
    assert set(r.citations) == {"page", "block"} and r.attribution in STAGES
    ranked = [h.page_id for h in r.retrieval.hits]
    assert r.retrieval.gold_rank == ranked.index(r.gold.pages[0]) + 1 and r.context_pages == ranked
    ious = [x.metrics.iou for x in recs.values()]
    assert all(0.0 <= v <= 1.0 for v in ious) and max(ious) > 0.3
    # accuracy is the proxy verdict, and the mean is recomputable from the records
    acc = [x.metrics.accuracy for x in recs.values()]
    assert gen["accuracy"] == pytest.approx(100 * sum(acc) / len(acc))


def test_records_round_trip_exactly(synth, fast_parts, tmp_path):
    """Every line of every RUN_DIR file reads into its typed record and writes back to the same JSON."""
    _, qa, corpus, _ = synth
    index, _ = fast_parts
    items = load_qa(qa, corpus, limit=4)
    cfg = EvalConfig(retriever="bm25", k=3, answer_judge="proxy")
    Evaluator(corpus, items, tmp_path / "run", cfg, index=index, generator=FirstBlockGenerator(),
              show_progress=False).run()
    kinds = (RetrievalRecord, AnswerRecord, JudgementRecord, CitationRecord, GenerationRecord)
    for kind in kinds:
        lines = _lines(tmp_path / "run" / kind.FILE)
        assert len(lines) == 4, kind.FILE
        assert [rec.to_json() for rec in read_records(tmp_path / "run" / kind.FILE, kind)] == lines, kind.FILE
    raw = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))
    assert RunMeta.from_json(raw).to_json() == raw and raw["schema_version"] == 1
    err = ErrorRecord("q1", "generation", "BackendError: boom", "2026-01-01T00:00:00Z")
    assert ErrorRecord.from_json(json.loads(json.dumps(err.to_json()))) == err
    gen = next(read_records(tmp_path / "run" / "generations.jsonl", GenerationRecord))
    assert gen.context == "retrieved" and gen.metrics.accuracy is gen.answer_verdict.correct
    # records of runs made before pixel grounding and numeric recall existed read with those unset
    old = _lines(tmp_path / "run" / "generations.jsonl")[0]
    old["metrics"] = {k: v for k, v in old["metrics"].items() if k not in ("pixel", "numeric_recall")}
    rec = GenerationRecord.from_json(old)
    assert rec.metrics.pixel is None and rec.metrics.numeric_recall is None and rec.metrics.rouge_l is not None


def _write_lines(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def test_a_bad_record_is_a_clear_error_naming_file_line_and_field(synth, fast_parts, tmp_path):
    from docrag.apps.viewer_runs import load_run

    _, qa, corpus, _ = synth
    index, generator = fast_parts
    items = load_qa(qa, corpus, limit=3)
    cfg = EvalConfig(retriever="bm25", judge="none")

    def run():
        return Evaluator(corpus, items, tmp_path / "run", cfg, index=index, generator=generator,
                         show_progress=False).run()

    run()
    gen_path = tmp_path / "run" / "generations.jsonl"
    rows = _lines(gen_path)
    del rows[1]["attribution"]          # a record of another shape on line 2
    _write_lines(gen_path, rows)
    with pytest.raises(RunDirError, match=r"generations\.jsonl:2: field 'attribution' missing.*--overwrite"):
        run()
    viewed = load_run(tmp_path / "run", corpus)   # the viewer shows the others and names the bad line
    assert [r.qid for r in viewed.records] == ["q00", "q02"]
    assert any("generations.jsonl:2: field 'attribution' missing" in p for p in viewed.problems)

    rows[1]["attribution"] = "correct"
    rows[1]["metrics"]["rouge_l"] = "high"   # a wrong type
    _write_lines(gen_path, rows)
    with pytest.raises(RunDirError, match=r"generations\.jsonl:2: field 'rouge_l' must be int or float or null"):
        run()
    rows[1]["metrics"]["rouge_l"] = 0.5
    rows[1]["metrics"]["correct"] = True     # an alias key of older tools: refused, not guessed
    _write_lines(gen_path, rows)
    with pytest.raises(RunDirError, match=r"generations\.jsonl:2: unknown metric field\(s\) 'correct'"):
        run()

    meta_path = tmp_path / "run" / "run.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    for version, message in ((99, r"schema_version' is 99.*upgrade docrag"),
                             (0, r"schema_version' is 0.*cannot migrate this one.*--overwrite")):
        meta_path.write_text(json.dumps({**meta, "schema_version": version}), encoding="utf-8")
        with pytest.raises(RunDirError, match=message):
            run()
    meta_path.write_text(json.dumps({k: v for k, v in meta.items() if k != "schema_version"}), encoding="utf-8")
    with pytest.raises(RunDirError, match=r"run\.json: field 'schema_version' missing"):
        run()
    # --overwrite discards a run folder it cannot read and starts again
    report = Evaluator(corpus, items, tmp_path / "run", cfg, index=index, generator=generator, show_progress=False,
                       overwrite=True).run()
    assert report["complete"] and len(_lines(gen_path)) == 3


def test_an_injected_index_or_generator_is_part_of_the_run_identity(synth, fast_parts, tmp_path):
    _, qa, corpus, _ = synth
    index, generator = fast_parts
    items = load_qa(qa, corpus, limit=2)
    cfg = EvalConfig(retriever="bm25", judge="none")

    def run(**parts):
        return Evaluator(corpus, items, tmp_path / "run", cfg, show_progress=False, **parts).run()

    run(index=index, generator=generator)
    assert run(index=index, generator=generator)["complete"]          # the same parts: resumes
    with pytest.raises(RunDirError, match=r"injected generator: 'extractive' \(ExtractiveGenerator\) -> "
                                          r"'first-block' \(FirstBlockGenerator\)"):
        run(index=index, generator=FirstBlockGenerator())
    with pytest.raises(RunDirError, match=r"injected index: .* -> 'x'"):
        run(index=_Named(index, "x"), generator=generator)
    with pytest.raises(RunDirError, match="injected parts"):
        run()   # parts from the registry now: not the objects the records were made with


class _Named:
    """An index with a name (identity: class and name)."""

    def __init__(self, inner, name: str) -> None:
        self.inner, self.name = inner, name

    def search_batch(self, queries, k=10, filter=None):
        return self.inner.search_batch(queries, k=k)


def test_settings_are_passed_in_not_read_by_the_runner(synth, fast_parts, tmp_path, monkeypatch):
    """The answer judge's endpoint comes from the Settings given to the Evaluator; the runner never
    reads the config file (a broken one here) or OPENAI_* variables."""
    from tests.support.openai_server import ScriptedOpenAIServer

    _, qa, corpus, _ = synth
    _, generator = fast_parts
    items = load_qa(qa, corpus, limit=3)
    broken = tmp_path / "broken.toml"
    broken.write_text("this is [not toml", encoding="utf-8")
    monkeypatch.setenv("DOCRAG_CONFIG", str(broken))
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with ScriptedOpenAIServer(["true", "no idea", "false"]) as srv:
        settings = Settings(openai={"base_url": srv.base_url, "api_key_env": "JUDGE_KEY"}, environ={"JUDGE_KEY": "k"})
        cfg = EvalConfig(retriever="none", context="oracle", judge="none", answer_judge="openai:judge")
        report = Evaluator(corpus, items, tmp_path / "run", cfg, generator=generator, show_progress=False,
                           settings=settings).run()
        n_calls, prompt, auth = len(srv.requests), srv.texts(0)[0], srv.headers[0].get("Authorization")
    assert n_calls == 3 and f"Question: {items[0].question}" in prompt and auth == "Bearer k"
    ov = report["generation"]["groups"]["overall"]
    assert report["generation"]["accuracy_is_proxy"] is False
    assert (ov["accuracy"], ov["n_accuracy"], ov["n_accuracy_errors"]) == (50.0, 2, 1)
    stages = [r.attribution for r in read_records(tmp_path / "run" / "generations.jsonl", GenerationRecord)]
    assert stages == ["correct", "undetermined", "reasoning_error"]
    assert "Answer-judge errors left out of Acc: 1" in (tmp_path / "run" / "report.md").read_text(encoding="utf-8")


def test_bad_generator_name_fails_before_the_run_dir_is_made(synth, tmp_path):
    corpus_dir, qa, _, _ = synth
    res = CliRunner().invoke(app, ["eval", str(corpus_dir), "--qa", str(qa), "--out", str(tmp_path / "r"),
                                   "--generator", "nope", "--no-progress"])
    assert res.exit_code != 0 and "unknown generator 'nope'" in str(res.exception)
    assert not (tmp_path / "r").exists()


def test_a_run_dir_with_another_config_refuses_to_resume(synth, fast_parts, tmp_path):
    _, qa, corpus, _ = synth
    index, _ = fast_parts
    items = load_qa(qa, corpus, limit=2)
    Evaluator(corpus, items, tmp_path / "run", EvalConfig(retriever="bm25", generator="none"), index=index,
              show_progress=False).run()
    other = EvalConfig(retriever="bm25", generator="none", k=5)
    with pytest.raises(RunDirError, match=r"different configuration \(k: 10 -> 5; metrics: .*\).*--overwrite"):
        Evaluator(corpus, items, tmp_path / "run", other, index=index, show_progress=False).run()
    report = Evaluator(corpus, items, tmp_path / "run", other, index=index, show_progress=False,
                       overwrite=True).run()
    assert report["config"]["k"] == 5
    assert all(len(r["hits"]) <= 5 for r in _lines(tmp_path / "run" / "retrieval.jsonl"))


def test_oracle_context_gives_the_gold_pages(synth, fast_parts, tmp_path):
    _, qa, corpus, _ = synth
    _, generator = fast_parts
    items = load_qa(qa, corpus, limit=3)
    cfg = EvalConfig(retriever="none", context="oracle", judge="none")
    report = Evaluator(corpus, items, tmp_path / "run", cfg, generator=generator, show_progress=False).run()
    assert "retrieval" not in report
    for rec in read_records(tmp_path / "run" / "generations.jsonl", GenerationRecord):
        assert rec.context_pages == rec.gold.pages and rec.citations is None and rec.retrieval is None
        assert rec.attribution in ("correct", "reasoning_error")


def test_cli_clear_error_for_questions_not_in_the_corpus(synth, tmp_path, monkeypatch, capsys):
    from docrag.apps.cli import main

    corpus_dir = synth[0]
    qa = tmp_path / "qa.jsonl"
    rec = {"id": "q1", "question": "?", "answer": "1", "doc": "nope.pdf", "pages": [1]}
    rec2 = {**rec, "id": "q2", "doc": "annual_report_00.pdf", "pages": [3]}
    qa.write_text(json.dumps(rec) + "\n" + json.dumps(rec2) + "\n", encoding="utf-8")
    monkeypatch.setattr("sys.argv", ["docrag", "eval", str(corpus_dir), "--qa", str(qa), "--out", str(tmp_path / "r")])
    with pytest.raises(SystemExit) as exc:
        main()
    assert exc.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "2 question(s)" in err
    assert "document 'nope.pdf' is not in the corpus" in err and "page 3 does not exist" in err
    assert not (tmp_path / "r").exists()  # nothing written for a bad question file


def test_compare_cli_writes_json_and_run_files_equal_to_pytrec_eval(synth, tmp_path):
    corpus_dir, qa, corpus, qa_records = synth
    res = CliRunner().invoke(app, ["compare", str(corpus_dir), "--qa", str(qa), "--retrievers", "bm25,dummy",
                                   "--per-category", "--out", str(tmp_path / "c.json"), "--runs-dir",
                                   str(tmp_path / "runs"), "--index-dir", str(tmp_path / "idx"), "--no-progress"])
    assert res.exit_code == 0, res.output
    result = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    assert list(result["retrievers"]) == ["bm25", "dummy"]
    for name in ("bm25", "dummy"):
        ours = result["retrievers"][name]["groups"]["overall"]
        theirs = _independent_pytrec(tmp_path / "runs" / f"{name}.trec", qa_records, corpus)
        for m in DEFAULT_METRICS:
            assert abs(ours[m] - 100 * sum(s[m] for s in theirs.values()) / len(theirs)) <= 1e-9
    bm25, dummy = (result["retrievers"][n]["groups"]["overall"] for n in ("bm25", "dummy"))
    assert bm25["ndcg@10"] > dummy["ndcg@10"]
    assert "category:table" in res.output and "nDCG@10" in res.output


@pytest.mark.slow
def test_cli_offline_defaults_end_to_end(synth, tmp_path):
    """`docrag eval` with every default (lang-hybrid retriever, extractive, grounding, proxy) on 3 questions."""
    corpus_dir, qa, _, _ = synth
    out = tmp_path / "run"
    args = ["eval", str(corpus_dir), "--qa", str(qa), "--out", str(out), "--limit", "3",
            "--index-dir", str(tmp_path / "idx"), "--no-progress"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert "Acc (proxy)" in res.output and "stages     correct" in res.output
    recs = list(read_records(out / "generations.jsonl", GenerationRecord))
    assert [r.qid for r in recs] == ["q00", "q01", "q02"]
    for r in recs:
        assert r.answer.answer.strip() and r.answer.hits and r.citations["block"]["level"] == "block"
        assert r.metrics.rouge_l is not None and r.answer_verdict.judge == "proxy"
    meta = RunMeta.read(out / "run.json")
    assert meta.identity["config"]["generator"] == "extractive" and meta.status == "complete"
    assert "injected" not in meta.identity   # registry parts only: the identity runs always had
    # grounded citations and the generator's own boxes are both scored, side by side in the report
    answered = [r for r in recs if "model_citations" in r.answer.meta]
    assert answered and all(r.metrics.model_pixel is not None for r in answered if r.metrics.pixel is not None)
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "this run (grounded citations): F1" in report and "the generator's own boxes (before grounding" in report
    # rerun: nothing to do, same report
    before = (out / "report.json").read_text(encoding="utf-8")
    res2 = CliRunner().invoke(app, args)
    assert res2.exit_code == 0, res2.output
    assert RunMeta.read(out / "run.json").sessions[-1].work_done == {
        "retrieval": 0, "answers": 0, "judgements": 0, "citations": 0, "generations": 0}
    assert (out / "report.json").read_text(encoding="utf-8") == before


@pytest.mark.slow
def test_compare_text_only_and_multimodal_retrievers(synth, tmp_path):
    """A random-weight ColQwen2 (reads page images) beside bm25 (reads text): same table, same checks."""
    from docrag.eval.compare import compare_retrievers, render_table
    from tests.support.tiny_colmodels import build_tiny_colmodel

    _, qa, corpus, qa_records = synth
    model = build_tiny_colmodel("colqwen2", tmp_path / "tiny-colqwen2")
    items = load_qa(qa, corpus)
    names = ["bm25", f"colqwen2:{model}"]
    result = compare_retrievers(corpus, items, names, k=10, index_dir=tmp_path / "idx",
                                runs_dir=tmp_path / "runs", show_progress=False)
    assert [result["retrievers"][n]["input"] for n in names] == ["text", "image"]
    for name in names:
        entry = result["retrievers"][name]
        theirs = _independent_pytrec(Path(entry["run_file"]), qa_records, corpus)
        ours = entry["groups"]["overall"]
        for m in DEFAULT_METRICS:
            assert abs(ours[m] - 100 * sum(s[m] for s in theirs.values()) / len(theirs)) <= 1e-9
    table = render_table(result)
    assert table.splitlines()[2].split()[:2] == ["bm25", "text"] and "image" in table.splitlines()[3]

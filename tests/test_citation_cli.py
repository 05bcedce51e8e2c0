"""``docrag cite``: scores saved answers from a JSONL file (oracle judge on the synthetic corpus)."""

from __future__ import annotations

import json

import typer
from typer.testing import CliRunner

from docrag.apps.commands import cite
from docrag.citation import gold_from_qa
from docrag.types import Answer, Citation


def _app() -> typer.Typer:
    app = typer.Typer()
    cite.register(app)

    @app.command("noop")
    def _noop() -> None:  # a second command keeps typer from collapsing into a single-command app
        """Unused."""

    return app


def test_cite_command_scores_saved_answers(synthetic_corpus, synthetic_corpus_dir, synthetic_source, tmp_path):
    qa_records = synthetic_source.records
    gold = gold_from_qa(qa_records, synthetic_corpus)
    lines = []
    for rec in qa_records[:4]:
        ans = Answer(rec["question"], rec["answer"], citations=[Citation(g.page_id, [g.box]) for g in gold[rec["id"]]])
        lines.append(json.dumps({"qid": rec["id"], "answer": ans.to_json()}))
    answers = tmp_path / "answers.jsonl"
    answers.write_text("\n".join(lines) + "\n")
    runner = CliRunner()
    base = ["cite", str(answers), "--corpus", str(synthetic_corpus_dir), "--judge", "oracle",
            "--gold", str(synthetic_source.qa_path), "--no-progress"]
    dry = runner.invoke(_app(), [*base, "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert json.loads(dry.output)["answers"] == 4
    res = runner.invoke(_app(), [*base, "--out", str(tmp_path / "res.jsonl"), "--evidence", str(tmp_path / "ev")])
    assert res.exit_code == 0, res.output
    scores = json.loads(res.output)
    assert scores["P_Rec"] == 100.0 and scores["B_Rec"] == 100.0 and scores["B_Prec"] == 100.0
    assert scores["n"] == 4 and scores["n_excluded"] == 0
    rows = [json.loads(x) for x in (tmp_path / "res.jsonl").read_text().splitlines()]
    assert len(rows) == 8 and {r["qid"] for r in rows} == {r["id"] for r in qa_records[:4]}
    assert (tmp_path / "ev" / qa_records[0]["id"] / "evidence.json").exists()
    bad = runner.invoke(_app(), [*base, "--level", "chapter"])
    assert bad.exit_code == 2 and "page or block" in bad.output

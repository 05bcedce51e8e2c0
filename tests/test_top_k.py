"""``-k/--top-k`` on every command that retrieves, defaulting to the user's ``k`` (DOCRAG_K)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from docrag.apps.cli import app
from tests.support.index_corpus import FINANCE_DOCS, make_corpus


def _env(tmp_path, **extra: str) -> dict[str, str]:
    return {"DOCRAG_CONFIG": str(tmp_path / "no-config.toml"), "DOCRAG_K": "", **extra}


def test_search_and_ask_take_top_k_and_default_to_docrag_k(tmp_path):
    corpus = make_corpus(tmp_path / "corpus", FINANCE_DOCS)
    runner = CliRunner()

    def search(*args: str, **env: str) -> list[dict]:
        res = runner.invoke(app, ["search", str(corpus.root), "production", "-r", "dummy", "--json", *args],
                            env=_env(tmp_path, **env))
        assert res.exit_code == 0, res.output
        return json.loads(res.output)

    assert len(search(DOCRAG_K="3")) == 3
    assert len(search("--top-k", "2", DOCRAG_K="3")) == 2
    assert len(search("-k", "4")) == 4


def test_ask_keeps_the_old_k_spelling_hidden(tmp_path):
    corpus = make_corpus(tmp_path / "corpus", FINANCE_DOCS)
    runner = CliRunner()
    hits = {}
    for args, env in ((["--top-k", "2"], {}), (["--k", "3"], {}), ([], {"DOCRAG_K": "4"}), (["-k", "1"], {})):
        res = runner.invoke(app, ["ask", str(corpus.root), "abrasives production", "-r", "dummy", "--json", *args],
                            env=_env(tmp_path, **env))
        assert res.exit_code == 0, res.output
        hits[" ".join(args) or "DOCRAG_K=4"] = len(json.loads(res.output)["hits"])
    assert hits == {"--top-k 2": 2, "--k 3": 3, "DOCRAG_K=4": 4, "-k 1": 1}
    help_text = runner.invoke(app, ["ask", "--help"], env={"COLUMNS": "200"}).output
    assert "--top-k" in help_text and "--k " not in help_text

"""User metadata at ingest (``--meta key=value``, sidecar ``FILE.meta.json``) on pages and in filters."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from docrag.apps.cli import app
from docrag.corpus import Corpus
from docrag.errors import DocragError, InputError
from docrag.ingestion.metadata import check_meta, parse_meta_items
from tests.support.viewer_data import make_pdf


def test_parse_and_check():
    assert parse_meta_items(["year=2011", "team = risk ", "note=a=b"]) == {"year": "2011", "team": "risk",
                                                                          "note": "a=b"}
    with pytest.raises(InputError, match="KEY=VALUE"):
        parse_meta_items(["novalue"])
    with pytest.raises(InputError, match="must be a string, number or boolean"):
        check_meta({"x": [1, 2]}, "f.meta.json")


def test_ingest_meta_and_sidecar_filter_search(tmp_path):
    src = tmp_path / "pdfs"
    src.mkdir()
    make_pdf(src / "alpha.pdf", "Revenue grew to 42 million dollars in 2011.")
    make_pdf(src / "beta.pdf", "Revenue fell to 30 million dollars in 2010.")
    (src / "beta.meta.json").write_text(json.dumps({"year": 2010, "team": "audit"}), encoding="utf-8")
    out = tmp_path / "corpus"
    env = {"DOCRAG_CONFIG": str(tmp_path / "none.toml")}
    res = CliRunner().invoke(app, ["ingest", str(src), "--out", str(out), "--meta", "source=annual",
                                   "--meta", "year=2011"], env=env)
    assert res.exit_code == 0, res.output  # the sidecar is not an input (no failure)
    assert "2 added" in res.stdout and "0 failed" in res.stdout
    corpus = Corpus.open(out)
    metas = {p.file_name: p.meta for p in corpus.pages()}
    assert metas == {"alpha.pdf": {"source": "annual", "year": "2011"},
                     "beta.pdf": {"source": "annual", "year": 2010, "team": "audit"}}  # the sidecar wins

    from docrag.index import open_index

    idx = open_index(corpus, "bm25", show_progress=False)
    names = lambda hits: sorted(corpus.page(h.page_id).file_name for h in hits)  # noqa: E731
    assert names(idx.search("revenue", k=5, filter={"year": ["2010"]})) == ["beta.pdf"]
    assert names(idx.search("revenue", k=5, filter={"meta.source": "annual"})) == ["alpha.pdf", "beta.pdf"]
    assert names(idx.search("revenue", k=5, filter={"team": "audit", "year": 2010})) == ["beta.pdf"]
    with pytest.raises(DocragError, match="unknown filter field 'teem'.*metadata given at ingest: source, team, year"):
        idx.search("revenue", k=5, filter={"teem": "audit"})

    res = CliRunner().invoke(app, ["search", str(out), "revenue", "-r", "bm25", "--filter", "team=audit"], env=env)
    assert res.exit_code == 0 and "beta.pdf" in res.stdout and "alpha.pdf" not in res.stdout

    # re-ingesting unchanged files with other metadata updates it without re-rendering
    res = CliRunner().invoke(app, ["ingest", str(src / "alpha.pdf"), "--out", str(out), "--meta", "year=2012"],
                             env=env)
    assert res.exit_code == 0 and "1 unchanged" in res.stdout
    fresh = {p.file_name: p.meta for p in Corpus.open(out).pages()}
    assert fresh["alpha.pdf"] == {"year": "2012"} and fresh["beta.pdf"]["team"] == "audit"

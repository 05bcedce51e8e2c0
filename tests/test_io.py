import json

import pytest

from docrag.io import append_jsonl, atomic_write_json, read_json, read_jsonl


def test_atomic_write_replaces_and_leaves_no_temp(tmp_path):
    path = tmp_path / "a" / "m.json"
    atomic_write_json(path, {"x": 1})
    atomic_write_json(path, {"x": 2})
    assert read_json(path) == {"x": 2}
    assert [p.name for p in path.parent.iterdir()] == ["m.json"]


def test_jsonl_tolerates_torn_last_line_only(tmp_path):
    path = tmp_path / "r.jsonl"
    append_jsonl(path, {"i": 1})
    append_jsonl(path, {"i": 2})
    with open(path, "a") as fh:
        fh.write('{"i": 3')  # crash mid-write
    assert [r["i"] for r in read_jsonl(path)] == [1, 2]
    path.write_text('{"i": 1}\n{bad\n{"i": 3}\n')
    with pytest.raises(json.JSONDecodeError):
        list(read_jsonl(path))


def test_read_versioned_json_names_the_problem(tmp_path):
    from docrag.errors import CorpusError
    from docrag.io import read_versioned_json

    path = tmp_path / "corpus.json"
    with pytest.raises(CorpusError, match="make one"):
        read_versioned_json(path, "docrag.corpus", 1, CorpusError, missing="make one", what="corpus")
    atomic_write_json(path, {"schema": "other", "schema_version": 1})
    with pytest.raises(CorpusError, match="not a docrag corpus .*'other'"):
        read_versioned_json(path, "docrag.corpus", 1, CorpusError, missing="", what="corpus")
    atomic_write_json(path, {"schema": "docrag.corpus", "schema_version": 7})
    with pytest.raises(CorpusError, match="schema_version 7 is newer .*upgrade docrag"):
        read_versioned_json(path, "docrag.corpus", 1, CorpusError, missing="", what="corpus")
    atomic_write_json(path, {"schema": "docrag.corpus", "schema_version": 1, "x": 2})
    assert read_versioned_json(path, "docrag.corpus", 1, CorpusError, missing="", what="corpus")["x"] == 2

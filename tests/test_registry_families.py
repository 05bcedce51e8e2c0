"""Registry family declarations: what config, citation and the viewer ask instead of naming families."""

from __future__ import annotations

import sys

import pytest

from docrag.config import load_settings
from docrag.errors import UnknownNameError
from docrag.registry import Family, Registry


def test_declared_families_answer_without_importing_their_modules():
    reg: Registry = Registry("thing", families={
        "local": Family("module_that_must_not_be_imported", offline=True),
        "pair": Family("module_that_must_not_be_imported", "pair:<a>+<b>", offline=True, examples=("pair:x+y",)),
        "gold": Family("module_that_must_not_be_imported", offline=True, offer=False),
        "remote": Family("module_that_must_not_be_imported", "remote:<model>", endpoint=True, options=("a",)),
    })
    assert reg.offline_names() == ["local", "pair:x+y"]
    assert reg.family("remote:gpt").endpoint and reg.family("remote:gpt").options == ("a",)
    assert reg.usage("pair") == "pair:<a>+<b>"
    reg.check_name("remote:gpt")
    with pytest.raises(UnknownNameError, match="remote"):
        reg.check_name("remote")
    with pytest.raises(UnknownNameError, match="valid things"):
        reg.family("nope")
    assert "module_that_must_not_be_imported" not in sys.modules


def test_the_project_registries_declare_what_runs_offline():
    from docrag.citation.judge import JUDGES
    from docrag.generation.registry import GENERATORS, takes_option
    from docrag.index.registry import RETRIEVERS

    assert {"bm25", "minilm", "e5", "dummy", "lang-hybrid:bm25+minilm"} <= set(RETRIEVERS.offline_names())
    assert not any(n.startswith(("colqwen", "dense", "openai")) for n in RETRIEVERS.offline_names())
    assert GENERATORS.offline_names() == ["extractive"]
    assert JUDGES.offline_names() == ["grounding"]          # oracle needs gold evidence: not offered
    assert takes_option("openai:gpt-4o", "coords") and takes_option("qwen-vl:/m", "snap")
    assert not takes_option("extractive", "coords") and not takes_option("nope", "coords")


def test_settings_pass_each_generator_the_options_its_entry_declares(tmp_path):
    from docrag.citation import judge_options

    env = {"DOCRAG_MAX_PAGES": "3", "DOCRAG_CONCURRENCY": "2", "DOCRAG_COORDS": "pixel", "KEY": "secret"}
    cfg = tmp_path / "c.toml"
    cfg.write_text('[openai]\nbase_url = "http://127.0.0.1:9/v1"\napi_key_env = "KEY"\n')
    s = load_settings(cfg, environ=env)
    assert s.generator_options("extractive") == {"max_pages": 3}
    assert s.generator_options("qwen-vl:/m") == {"max_pages": 3, "coords": "pixel"}      # no concurrency
    openai = s.generator_options("openai:gpt-4o")
    assert openai["concurrency"] == 2 and openai["api_key"] == "secret"
    assert openai["base_url"] == "http://127.0.0.1:9/v1"
    assert s.backend_options("grounding") == {} and s.backend_options("openai:x")["api_key"] == "secret"
    assert judge_options("grounding", s) == {} and judge_options("openai:gpt-4o", s)["api_key"] == "secret"
    with pytest.raises(UnknownNameError):
        s.generator_options("nope")

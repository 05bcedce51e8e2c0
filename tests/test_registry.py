import pytest

from docrag.errors import UnknownNameError
from docrag.registry import Registry


def _reg() -> Registry:
    reg: Registry = Registry("retriever")

    @reg.register("plain", help="no argument")
    def _plain(arg, **opts):
        return ("plain", arg, opts)

    @reg.register("fam", needs_arg=True, help="takes a path")
    def _fam(arg, **opts):
        return ("fam", arg, opts)

    return reg


def test_create_passes_argument_and_options():
    reg = _reg()
    assert reg.create("plain", k=1) == ("plain", None, {"k": 1})
    assert reg.create("fam:/models/x:rev") == ("fam", "/models/x:rev", {})


def test_unknown_name_lists_valid_families():
    with pytest.raises(UnknownNameError) as exc:
        _reg().create("nope")
    msg = str(exc.value)
    assert "nope" in msg and "plain" in msg and "fam:<arg>" in msg


def test_argument_rules_are_enforced():
    reg = _reg()
    with pytest.raises(UnknownNameError, match="needs an argument"):
        reg.create("fam")
    with pytest.raises(UnknownNameError, match="takes no argument"):
        reg.create("plain:x")


def test_names_are_checked_with_their_optional_arguments():
    """`docrag compare --retrievers bm25:bigram` was refused ("takes no argument"): the name check ignored
    an argument the family declares optional."""
    from docrag.index.registry import RETRIEVERS

    RETRIEVERS.check_name("bm25:bigram")
    RETRIEVERS.check_name("bm25")
    with pytest.raises(UnknownNameError, match="bm25:jieba"):      # the valid arguments are listed
        RETRIEVERS.check_name("bm25:x")
    with pytest.raises(UnknownNameError, match="takes no argument"):
        RETRIEVERS.check_name("dummy:x")
    with pytest.raises(UnknownNameError, match="needs an argument"):
        RETRIEVERS.check_name("colqwen2")


def test_lazy_module_is_imported_on_first_use(tmp_path, monkeypatch):
    pkg = tmp_path / "lazyfam_mod.py"
    pkg.write_text(
        "from tests.test_registry import LAZY\n"
        "@LAZY.register('lazy')\n"
        "def make(arg, **o):\n    return 'made'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert LAZY.families() == ["lazy"]
    assert LAZY.create("lazy") == "made"


LAZY: Registry = Registry("thing", lazy_modules={"lazy": "lazyfam_mod"})


def test_unknown_name_shows_declared_usage_without_importing(monkeypatch):
    import sys

    reg: Registry = Registry("generator", lazy_modules={"heavy": "module_that_must_not_be_imported"},
                             usage={"heavy": "heavy:<model>"})
    with pytest.raises(UnknownNameError, match=r"valid generators: heavy:<model>"):
        reg.create("nope")
    assert "module_that_must_not_be_imported" not in sys.modules

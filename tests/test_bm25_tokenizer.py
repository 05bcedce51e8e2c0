"""BM25 terms: jieba words for Chinese (default), character bigrams on request, Porter stems (nltk) for
English; every package the tokenizer imports is declared and pinned (a fresh install has it)."""

from __future__ import annotations

import ast
import configparser
import re
from pathlib import Path

from docrag.index.bm25 import tokenize, with_pairs

ROOT = Path(__file__).resolve().parents[1]


def test_chinese_words_with_jieba_bigrams_on_request_and_english_stems():
    assert tokenize("营业收入增长 Revenues grew 11,062 in 2011") == ["营业", "收入", "增长", "revenu", "grew", "11062",
                                                                     "2011"]
    assert tokenize("营业收入", cjk="bigram") == ["营", "业", "收", "入", "营业", "业收", "收入"]
    assert tokenize("营业收入", cjk="jieba+bigram")[-2:] == ["营业", "收入"]
    assert tokenize("the employees were employed") == ["employe", "employ"]     # stop words dropped, stemmed


def test_latin_letters_written_against_chinese_are_their_own_word():
    """A Chinese question writes "VIX期货" where the page writes "VIX 有关的期货" (浙商's C-VIX manual,
    zh-l-023): one run "vix期货" matched no page term, and "c" of "证券C-VIX" was dropped."""
    from docrag.index.bm25 import BM25Retriever
    from docrag.types import Page

    assert tokenize("推出VIX期货和ROE") == ["推出", "vix", "期货", "和", "roe"]
    assert tokenize("浙商证券C-VIX编制手册")[:4] == ["浙商", "证券", "c", "vix"]
    page = Page(doc_id="d", page_no=1, width_pt=612, height_pt=792, text="2004 年,CBOE 开始发行VIX 有关的期货。")
    other = Page(doc_id="d", page_no=2, width_pt=612, height_pt=792, text="上证50ETF期权的隐含波动率。")
    hits = BM25Retriever().index([page, other]).search("CBOE在哪一年推出VIX期货?", k=2)
    assert [h.page_id for h in hits] == [page.page_id]


def test_pages_holding_the_question_phrase_outrank_pages_holding_its_words_apart():
    from docrag.index.bm25 import BM25Retriever
    from docrag.types import Page

    assert with_pairs(["oper", "margin", "2023"]) == ["oper", "margin", "2023", "oper_margin", "margin_2023"]
    assert with_pairs([]) == [] and with_pairs(["a"]) == ["a"]
    apart = Page(doc_id="d", page_no=1, width_pt=612, height_pt=792,
                 text="Gross margin rose in 2023. Operating expenses grew. Net income fell.")
    phrase = Page(doc_id="d", page_no=2, width_pt=612, height_pt=792,
                  text="Net income fell. Operating margin rose in 2023. Gross expenses grew.")
    filler = [Page(doc_id="d", page_no=n, width_pt=612, height_pt=792, text=f"Cash flow note {n} for 2023.")
              for n in range(3, 8)]
    hits = BM25Retriever().index([apart, phrase, *filler]).search("What was the operating margin in 2023?", k=2)
    assert [h.page_id for h in hits][0] == phrase.page_id


def _third_party_imports(path: Path) -> set[str]:
    """Top-level names of the non-docrag, non-stdlib modules ``path`` imports (function-local ones too)."""
    import sys

    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n not in ("docrag", "__future__")}


def test_every_package_the_tokenizer_imports_is_declared_and_pinned():
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    required = {re.split(r"[<>=!~; ]", line.strip())[0].lower()
                for line in cfg["options"]["install_requires"].splitlines() if line.strip()}
    pinned = {line.split("=")[0].strip().lower() for line in (ROOT / "constraints.txt").read_text().splitlines()
              if "==" in line and not line.startswith("#")}
    # the tokenizer's word forms (Porter stems, jieba, OpenCC's Traditional-to-Simplified) live in docrag/words.py,
    # shared with the generator; opencc is the module of the opencc-python-reimplemented distribution
    imported = _third_party_imports(ROOT / "index" / "bm25.py") | _third_party_imports(ROOT / "docrag" / "words.py")
    assert imported == {"jieba", "nltk", "opencc"}
    assert "bm25s" in _third_party_imports(ROOT / "index" / "scorers.py")    # the sparse scorer
    distribution = {"opencc": "opencc-python-reimplemented"}
    for package in (distribution.get(m, m) for m in imported | {"bm25s"}):
        assert package in required, f"{package} is imported but not in setup.cfg install_requires"
        assert package in pinned, f"{package} is imported but not pinned in constraints.txt"

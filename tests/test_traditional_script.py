"""Chinese in Traditional script (Hong Kong and Taiwan filings: 營業收入, 淨利潤) matches questions in Simplified
script (营业收入, 净利润) and the other way round, in the ``bm25`` retriever, the ``extractive`` generator and
grounding; the quoted answer keeps the page's own characters."""

from __future__ import annotations

from docrag.generation import get_generator
from docrag.generation.extractive_cues import missing_nouns
from docrag.grounding import terms_of
from docrag.types import BlockKind
from docrag.words import simplified, simplified_text
from index.bm25 import tokenize as bm25_terms
from tests.support.synthetic_pages import Region, make_page

HK = "截至2025年12月31日止年度，本集團營業收入為人民幣12,345.6萬元，淨虧損為人民幣3,456.7萬元。"


def test_traditional_and_simplified_chinese_give_the_same_terms():
    assert simplified("營業收入") == "营业收入" and simplified("营业收入") == "营业收入"
    assert simplified_text("Revenue 營業收入 2025") == "Revenue 营业收入 2025"
    assert bm25_terms("營業收入和淨利潤") == bm25_terms("营业收入和净利润")
    assert {"营业", "收入"} <= terms_of("本集團營業收入")


def test_a_simplified_question_is_answered_from_a_traditional_page(tmp_path):
    page = make_page(tmp_path, [
        Region((72, 100, 540, 140), (200, 200, 200), HK, BlockKind.TEXT),
        Region((72, 160, 540, 200), (200, 200, 200), "研發團隊共有員工215名，佔員工總數的38.2%。", BlockKind.TEXT),
    ], doc_id="pegbio")
    q = "本集团2025年度的营业收入是多少？"
    assert missing_nouns(q, [page])[0] == []   # 营业收入 is on the page, as 營業收入
    ans = get_generator("extractive", embed=False).generate(q, [page])
    assert "12,345.6" in ans.answer and "營業收入" in ans.answer and ans.citations, ans.answer


def test_a_traditional_row_label_is_named_by_a_simplified_question():
    from docrag.generation.extractive_cues import named_in

    assert named_in("營業收入（萬元）", "2025年营业收入是多少？") and named_in("营业收入", "2025年營業收入是多少？")
    assert not named_in("淨利潤", "2025年营业收入是多少？")

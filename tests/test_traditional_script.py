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


def test_scales_of_hong_kong_filings_are_read():
    """單位：萬元, 人民幣千元 and RMB'000 state a table's scale as 单位：万元 and "in thousands" do."""
    from docrag.generation.extractive_tables import _SCALE
    from docrag.quantities import context_scale

    assert context_scale("單位：萬元") == context_scale("单位：万元") == 1e4
    assert context_scale("人民幣千元") == context_scale("RMB'000") == context_scale("HK$’000") == 1e3
    assert context_scale("單位：人民幣億元") == 1e8 and context_scale("人民幣元") is None
    assert _SCALE.search("2025年 RMB'000").group(0) == "RMB'000" and _SCALE.search("單位：萬元").group(0) == "萬"


def test_a_traditional_question_is_read_as_simplified(tmp_path):
    """"營業收入是多少？" asks what "营业收入是多少？" asks (its words and its cues: 多少, 分別); the answer keeps
    the question as asked."""
    page = make_page(tmp_path, [
        Region((72, 100, 540, 140), (200, 200, 200), "2025年公司营业收入为12,345.6万元，净亏损为3,456.7万元。",
               BlockKind.TEXT),
        Region((72, 160, 540, 200), (200, 200, 200), "研发团队共有员工215名。", BlockKind.TEXT),
    ], doc_id="mainland")
    q = "2025年公司營業收入是多少？"
    gen = get_generator("extractive", embed=False)
    ans = gen.generate(q, [page])
    assert "12,345.6" in ans.answer and ans.question == q, ans.answer
    # a cue in Traditional script (差額, "the difference") asks for the arithmetic its Simplified form asks for
    rows = [["项目", "2025年", "2024年"], ["营业收入", "120.0", "100.0"], ["净利润", "30.0", "25.0"]]
    table = make_page(tmp_path, [Region((72, 160, 540, 300), (200, 200, 200), "\n".join(" | ".join(r) for r in rows),
                                        BlockKind.TABLE)], doc_id="figures")
    table.blocks[-1].meta["rows"] = rows
    ans = gen.generate("2025年营业收入与净利润的差額是多少？", [table])
    assert ans.meta.get("arithmetic", {}).get("op") == "difference", ans.answer

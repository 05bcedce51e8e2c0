"""A sentence cut by a page break (rule 89): joined to its continuation when both pages are read; shaped after
中国信通院's 《中国算力发展指数白皮书》 (page 2 ends "…总规模达到 429", page 3 begins "EFlops，增速达到39%")."""

from __future__ import annotations

from docrag.generation import get_generator
from docrag.generation.extractive_breaks import CONTINUED, join_page_breaks
from docrag.generation.extractive_units import units_of
from docrag.types import BlockKind
from tests.support.synthetic_pages import Region, make_page

GREY = (200, 200, 200)


END = "全球算力规模不断增大。2020年全球算力总规模达到 429"
NEXT = "EFlops，增速达到39%，其中基础算力规模为313 EFlops。"


def _pages(tmp_path, end: str = END, below: list[Region] | None = None):
    first = make_page(tmp_path, [Region((90, 420, 500, 590), GREY, "在数字经济时代，算力正成为新生产力。"),
                                 Region((90, 640, 500, 665), GREY, end), *(below or [])], doc_id="caict", page_no=2)
    second = make_page(tmp_path, [Region((90, 80, 500, 130), GREY, NEXT),
                                  Region((90, 150, 500, 200), GREY, "我国算力总规模达到135 EFlops。")],
                       doc_id="caict", page_no=3)
    return first, second


def test_a_sentence_cut_by_a_page_break_is_quoted_whole_and_cites_both_pages(tmp_path):
    first, second = _pages(tmp_path)
    ans = get_generator("extractive", embed=False).generate("2020年全球算力总规模达到多少？", [first, second])
    assert "429 EFlops，增速达到39%" in ans.answer, ans.answer
    assert {c.page_id for c in ans.citations} == {first.page_id, second.page_id}
    # the generator's own citations (before grounding, which needs the pages' words): the sentence runs over
    # both pages, so both are cited even when the continuation states no figure
    first, second = _pages(tmp_path / "w", end="全球算力规模不断增大。2020年全球算力总规模达到429 EFlops，较2019年")
    second.blocks[0].text = "有较大幅度的增长，基础算力占比有所下降。"
    gen = get_generator("extractive", embed=False, ground="off")
    ans = gen.generate("2020年全球算力总规模达到多少？", [first, second])
    assert "较2019年有较大幅度的增长" in ans.answer, ans.answer
    assert {c.page_id for c in ans.citations} == {first.page_id, second.page_id}


def test_a_sentence_that_ends_or_a_block_below_it_is_not_joined(tmp_path):
    units = [u for p in _pages(tmp_path, end="2020年全球算力总规模达到429 EFlops。") for u in units_of(p, 1)]
    assert join_page_breaks(units) == 0
    table = [Region((90, 680, 500, 720), GREY, "年份 | 算力\n2020 | 429", BlockKind.TABLE)]
    units = [u for p in _pages(tmp_path / "t", below=table) for u in units_of(p, 1)]
    assert join_page_breaks(units) == 0 and not any(CONTINUED in u.extra for u in units)
    first, second = _pages(tmp_path / "n")
    second.page_no = 4   # not the next page
    assert join_page_breaks([*units_of(first, 1), *units_of(second, 2)]) == 0

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


def _table(tmp_path, rows: list[list[str]], page_no: int, box: tuple[float, float, float, float], above: str = ""):
    regions = [Region((72, box[1] - 30, 540, box[1] - 10), GREY, above)] if above else []
    regions.append(Region(box, GREY, "\n".join(" | ".join(r) for r in rows), BlockKind.TABLE))
    page = make_page(tmp_path, regions, doc_id="ys", page_no=page_no)
    page.blocks[-1].meta["rows"] = rows
    return page


HEAD = ["项目", "2024 年度", "2023 年度"]
FIRST = [HEAD, ["营业收入(万元)", "557,412.56", "363,639.23"],
         ["归属于母公司股东的净利润(万元)", "99,474.91", "82,957.51"]]
REST = [["扣除非经常性损益后归属于母公司股东的净利润(万元)", "94,567.18", "79,116.86"],
        ["基本每股收益(元)", "2.76", "2.30"]]


def test_a_table_printed_over_a_page_break_is_one_table(tmp_path):
    """影石创新's prospectus (issue 23, zh-c-016) prints its key figures from the foot of page 1 to the top of page 2:
    "2024年度归属于母公司股东的净利润与扣除非经常性损益后的净利润相差多少" pairs a row of each page under the 2024
    column. Read as two tables, the second row was subtracted from its own 2023 value (rule 123 ``table_over_break``,
    rule 124 ``one_period_asked``, rule 130 ``gap_asked``); the part with no header is read under the first part's,
    which is cited too."""
    from docrag.generation.extractive_breaks import HEADER_ON, join_table_breaks

    first = _table(tmp_path, FIRST, 1, (72, 600, 540, 760), above="六、主要财务数据和财务指标")
    second = _table(tmp_path, REST, 2, (72, 72, 540, 140))
    units = units_of(first, 1) + units_of(second, 2)
    assert join_table_breaks(units) == 1
    rest = [u for u in units if u.cell is not None and u.page is second]
    assert rest and all(u.extra.get(HEADER_ON) is not None for u in rest)
    assert {u.cell.headers[0] for u in rest} == {"2024 年度", "2023 年度"}
    gen = get_generator("extractive", embed=False, ground="off")
    ans = gen.generate("2024年度归属于母公司股东的净利润与扣除非经常性损益后的净利润相差多少？", [first, second])
    assert "4,907.73" in ans.answer and "79,116.86" not in ans.answer, ans.answer
    assert "-4,907.73" not in ans.answer   # "相差多少" asks how far apart: the larger less the smaller (rule 130)
    assert {c.page_id for c in ans.citations} == {first.page_id, second.page_id}
    one = gen.generate("2024年度基本每股收益是多少？", [first, second])   # read under the header of page 1
    assert "2.76" in one.answer and "2.30" not in one.answer, one.answer
    assert {c.page_id for c in one.citations} == {first.page_id, second.page_id}


def test_tables_that_do_not_run_over_the_break_stay_apart(tmp_path):
    from docrag.generation.extractive_breaks import join_table_breaks

    first = _table(tmp_path, FIRST, 1, (72, 600, 540, 760))
    titled = _table(tmp_path / "t", REST, 2, (72, 100, 540, 160), above="非经常性损益项目及金额")
    assert join_table_breaks(units_of(first, 1) + units_of(titled, 2)) == 0     # a table of its own
    wider = _table(tmp_path / "w", [[*r, "1.0"] for r in REST], 2, (72, 72, 540, 140))
    assert join_table_breaks(units_of(first, 1) + units_of(wider, 2)) == 0      # not as many columns
    high = _table(tmp_path / "h", FIRST, 1, (72, 100, 540, 260))
    below = make_page(tmp_path / "h", [Region((72, 300, 540, 340), GREY, "公司财务状况良好。")], doc_id="ys",
                      page_no=1)
    high.blocks.append(below.blocks[0])   # text below the table: it ends there
    assert join_table_breaks(units_of(high, 1) + units_of(_table(tmp_path / "h2", REST, 2, (72, 72, 540, 140)),
                                                          2)) == 0
    far = _table(tmp_path / "f", REST, 3, (72, 72, 540, 140))
    assert join_table_breaks(units_of(first, 1) + units_of(far, 2)) == 0        # not the next page

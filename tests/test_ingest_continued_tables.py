"""Tables continued across a page break get the header printed on the page before
(:mod:`docrag.ingestion.continued_tables`), on pages shaped after 航天电器's and 生物股份's 2019/2020 年报."""

from __future__ import annotations

from docrag.generation import get_generator
from docrag.generation.extractive_units import units_of
from docrag.ingestion.continued_tables import HEADER_KEY, link_continued_tables
from docrag.types import BlockKind
from tests.support.synthetic_pages import Region, make_page

GREY = (200, 200, 200)
EDGES = [57, 137, 216, 296, 376, 455, 534]   # 航天电器's 产销量 table: six columns


def _grid(rows: list[list[str]], top: float, edges: list[float] = EDGES, height: float = 20) -> list[list]:
    return [[[edges[j], top + i * height, edges[j + 1], top + (i + 1) * height] if text else None
             for j, text in enumerate(row)] for i, row in enumerate(rows)]


def _page(tmp_path, page_no: int, regions: list[Region], tables: dict[int, list[list[str]]], edges=EDGES):
    page = make_page(tmp_path, regions, doc_id="ht", page_no=page_no)
    for i, rows in tables.items():
        page.blocks[i].meta["rows"] = [list(r) for r in rows]
        page.blocks[i].meta["cell_boxes"] = _grid(rows, regions[i].box_pt[1], edges)
    return page


HEAD = [["行业分类", "项目", "单位", "2019 年", "2018 年", "同比增减"]]
BEFORE = [["", "销售量", "万只", "788.57", "974", "-19.04%"], ["继电器", "生产量", "万只", "823.43", "926", "-11.08%"]]
AFTER = [["", "销售量", "万只", "64,227.98", "23,122", "177.78%"], ["连接器", "生产量", "万只", "68,953.76", "24,360",
                                                                  "183.06%"]]


def _text(rows):
    return "\n".join(" | ".join(r) for r in rows)


def _two_pages(tmp_path, below: list[Region] | None = None, after=AFTER, edges=EDGES):
    rows_before = HEAD + BEFORE
    first = _page(tmp_path, 1, [Region((57, 100, 534, 130), GREY, "(三) 产销量情况分析表"),
                                Region((57, 600, 534, 600 + 20 * len(rows_before)), GREY, _text(rows_before),
                                       BlockKind.TABLE), *(below or [])], {1: rows_before})
    second = _page(tmp_path, 2, [Region((57, 72, 534, 72 + 20 * len(after)), GREY, _text(after), BlockKind.TABLE),
                                 Region((57, 200, 534, 230), GREY, "相关数据同比发生变动30%以上的原因说明")],
                   {0: after}, edges)
    return first, second


def test_a_table_continued_on_the_next_page_gets_the_header_printed_before(tmp_path):
    first, second = _two_pages(tmp_path)
    assert link_continued_tables([first, second]) == 1
    table = second.blocks[0]
    assert table.meta[HEADER_KEY] == 1 and table.meta["rows"][0] == HEAD[0]
    head_box = table.meta["cell_boxes"][0][3]
    assert head_box[1] == 72 and head_box[3] - head_box[1] <= 0.5   # a band at the table's top: not on this page
    cells = [u for u in units_of(second, 1) if u.cell is not None]
    sold = next(u for u in cells if u.cell.value == "64,227.98")
    assert sold.cell.headers == ["2019 年"] and sold.cell.row.label.startswith("销售量")
    ans = get_generator("extractive", embed=False).generate("2019年连接器的销售量是多少？", [second])
    assert "64,227.98" in ans.answer and "2019 年" in ans.answer, ans.answer
    assert ans.citations[0].page_id == second.page_id


def test_a_header_row_cut_by_the_page_break_is_joined(tmp_path):
    """生物股份: "2020年末 | 2019年末 | 末比上年" printed below the table at the foot of one page, "同期末增减(%)"
    at the top of the next over the rows: one header row."""
    pieces = [Region((296, 665, 376, 675), GREY, "2019年末"), Region((376, 665, 455, 675), GREY, "2018年末"),
              Region((455, 665, 534, 685), GREY, "末比\n上年")]
    after = [["", "", "", "", "", "同期末增减(%)"], ["总资产", "", "", "6,278,282,683.24", "5,585,879,172.02", "12.40"]]
    first, second = _two_pages(tmp_path, below=pieces, after=after)
    assert link_continued_tables([first, second]) == 1
    assert second.blocks[0].meta["rows"][0] == ["", "", "", "2019年末", "2018年末", "末比上年同期末增减(%)"]
    cells = [u for u in units_of(second, 1) if u.cell is not None]
    assert {u.cell.value: u.cell.headers for u in cells}["6,278,282,683.24"] == ["2019年末"]


def test_tables_that_do_not_continue_are_left_alone(tmp_path):
    # columns that do not line up: another table
    first, second = _two_pages(tmp_path, edges=[57, 100, 216, 296, 376, 455, 534])
    assert link_continued_tables([first, second]) == 0
    # a note below the table: the table ended on its page
    note = [Region((57, 665, 534, 695), GREY, "注：销售量含子公司广东华旃电子有限公司的产品，本期新纳入合并范围。")]
    first, second = _two_pages(tmp_path, below=note)
    assert link_continued_tables([first, second]) == 0
    # the part on the next page prints its own header
    first, second = _two_pages(tmp_path, after=HEAD + AFTER)
    assert link_continued_tables([first, second]) == 0 and HEADER_KEY not in second.blocks[0].meta
    # pages that do not follow each other
    first, second = _two_pages(tmp_path)
    second.page_no = 3
    assert link_continued_tables([first, second]) == 0


def test_committing_a_document_links_its_continued_tables(tmp_path):
    """The corpus links them when a document is committed (after marking furniture): what ingest stores."""
    from PIL import Image

    from docrag.corpus import Corpus
    from docrag.types import Document, Page

    first, second = _two_pages(tmp_path / "pages")
    corpus = Corpus.create(tmp_path / "corpus")
    doc = Document(doc_id="ht", file_name="ht.pdf", source_path="/data/ht.pdf", sha256="ab" * 32, n_pages=2)
    staged = corpus.writer().begin(doc)
    for built in (first, second):
        Image.new("RGB", (612, 792), "white").save(staged.staged_image_path(built.page_no, "png"))
        page = Page(doc_id="ht", page_no=built.page_no, width_pt=612.0, height_pt=792.0,
                    image=staged.image_relpath(built.page_no, "png"), image_width=612, image_height=792, dpi=72.0,
                    text=built.text, file_name="ht.pdf")
        page.blocks = built.blocks
        staged.add_page(page)
    staged.commit()
    stored = Corpus.open(tmp_path / "corpus").pages(["ht"])[1].blocks[0]
    assert stored.meta[HEADER_KEY] == 1 and stored.meta["rows"][0] == HEAD[0]


def test_rows_continued_on_the_next_page_stay_in_the_open_section(tmp_path):
    """海翔药业 2019 年报 (zh-d-003, ``continued_section``): 营业收入构成 opens "分产品" at the foot of one page
    (原料药) and runs 染料, 染料中间体 on the next; those rows are 分产品's, not the 分行业 rows named alike above."""
    head = [["", "2019 年 金额", "占营业收入比重", "2018 年 金额", "占营业收入比重", "同比增减"]]
    before = [*head, ["分行业", "", "", "", "", ""], ["染料", "1,316,830,162.67", "44.77%", "1,249,940,574.56",
                                                       "45.98%", "5.35%"],
              ["分产品", "", "", "", "", ""], ["原料药", "1,020,477,644.34", "34.69%", "1,033,340,734.78", "38.01%",
                                              "-1.24%"]]
    after = [["染料", "973,070,914.24", "33.08%", "844,776,715.53", "31.07%", "15.19%"],
             ["分地区", "", "", "", "", ""], ["国内", "1,512,860,024.18", "51.43%", "1,390,967,219.07", "51.16%",
                                            "8.76%"]]
    edges = [57, 160, 240, 320, 400, 470, 534]
    first = _page(tmp_path, 1, [Region((57, 100, 534, 130), GREY, "(1) 营业收入构成 单位：元"),
                                Region((57, 600, 534, 600 + 20 * len(before)), GREY, _text(before), BlockKind.TABLE)],
                  {1: before}, edges)
    second = _page(tmp_path, 2, [Region((57, 72, 534, 72 + 20 * len(after)), GREY, _text(after), BlockKind.TABLE),
                                 Region((57, 200, 534, 230), GREY, "(2) 占公司营业收入或营业利润10%以上的行业")],
                   {0: after}, edges)
    assert link_continued_tables([first, second]) == 1
    labels = {u.cell.value: u.cell.row.label for u in units_of(second, 1) if u.cell is not None}
    assert labels["973,070,914.24"] == "染料 (分产品)" and labels["1,512,860,024.18"] == "国内 (分地区)"
    # the two parts are one table (``table_over_break``, whatever the continued part's title), and the rows listed
    # beside 原料药 (分产品) are read in its section first (``same_section``)
    from docrag.generation.extractive_breaks import join_table_breaks

    units = [u for u in units_of(first, 1) + units_of(second, 2) if u.cell is not None]
    for u in units:
        if u.page is second:
            u.table.title = "同比增减"   # a header piece read as the part's title (海翔药业's page 5)
    assert join_table_breaks(units) == 1
    q = "海翔药业2019年营业收入构成中，按产品划分的“原料药”和“染料”2019年营业收入分别是多少？"
    ans = get_generator("extractive").generate(q, [first, second])
    assert ans.answer.startswith("1,020,477,644.34"), ans.answer
    assert "973,070,914.24" in ans.answer.split("1,316,830,162.67")[0], ans.answer

"""Column headers of tables read from words (rule 65 ``header_reach`` of ``docs/extractive-rules.md``) and the
figures papers print (rule 110: "[.77, .85]", ".83"). Coordinates are those measured on the dev set's real
pages: BLS CPI release Table 1 (2025-07, page 6), 开源证券 表2 (page 7), 航天电器 2019 年报 (page 5, a ruled
grid), Del Negro et al. (JBES 2007) Table 1."""
from __future__ import annotations

from docrag.generation.extractive_span import span_fit
from docrag.generation.extractive_tables import Cell, Row, Table, _cells, _from_words, is_number, parse_number
from docrag.generation.extractive_units import Unit
from docrag.geometry import Box
from docrag.grounding import named_units
from docrag.types import Block, BlockKind, Word
from tests.support.synthetic_pages import Region, make_page


def _cell(text: str, x0: float, x1: float, y: float) -> Cell:
    return Cell(text, Box.points(x0, y, x1, y + 8, 612, 792))


def _table(header: list[list[tuple[str, float, float]]],
           rows: list[tuple[str, list[tuple[str, float, float]]]]) -> Table:
    block = Block(BlockKind.TABLE, Box.points(20, 20, 600, 700, 612, 792))
    lines = [[_cell(t, a, b, 30 + 10 * i) for t, a, b in line] for i, line in enumerate(header)]
    body = [Row(label, _cell(label, 30, 100, 200 + 10 * i), [_cell(t, a, b, 200 + 10 * i) for t, a, b in cells], i)
            for i, (label, cells) in enumerate(rows)]
    return Table(block, "", lines, body)


def _headers(table: Table) -> dict[str, list[str]]:
    return {tc.value: tc.headers for tc in table.cells()}


def test_a_spanning_header_heads_every_column_it_overlaps_and_no_other():
    # "Unadjusted indexes" is centred over three columns and reaches only a few points into the third; the
    # percent-change columns' month headers ("Jul" at 385) sit on a line of their own; "change" continues the
    # header above it over that header's columns
    table = _table(
        [[("Unadjusted percent", 377, 447), ("Seasonally adjusted percent", 464, 565)],
         [("Relative", 213, 242), ("Unadjusted indexes", 274, 345)],
         [("change", 399, 425), ("change", 501, 527)],      # the wrapped second line of the two headers above
         [("Jul", 385, 398), ("Jun.", 425, 440), ("Apr.", 466, 481), ("May", 507, 522), ("Jun.", 548, 563)],
         [("Jul", 262, 274), ("Jun.", 302, 317), ("Jul.", 344, 357), ("2024-", 381, 402), ("2025-", 422, 443),
          ("2025-", 463, 484), ("2025-", 504, 525), ("2025-", 545, 566)],
         [("2024", 259, 277), ("2025", 300, 318), ("2025", 341, 359), ("Jul.", 385, 398), ("Jul.", 426, 439),
          ("May", 466, 481), ("Jun.", 507, 522), ("Jul.", 549, 562)]],
        [("All items", [("100.000", 213, 242), ("314.540", 257, 286), ("322.561", 298, 327), ("323.048", 339, 368),
                        ("2.7", 388, 399), ("0.2", 428, 439), ("0.1", 469, 480), ("0.3", 510, 521),
                        ("0.2b", 551, 562)]),
         ("Food", [("13.634", 217, 242), ("330.561", 257, 286), ("339.498", 298, 327), ("340.036", 339, 368),
                   ("2.9", 388, 399)])])
    heads = _headers(table)
    assert heads["323.048"] == ["Unadjusted indexes", "Jul.", "2025"]
    assert heads["314.540"] == ["Unadjusted indexes", "Jul", "2024"]
    assert heads["2.7"] == ["Unadjusted percent", "change", "Jul", "2024-", "Jul."]
    assert heads["0.2"] == ["Unadjusted percent", "change", "Jun.", "2025-", "Jul."]
    assert heads["0.1"] == ["Seasonally adjusted percent", "change", "Apr.", "2025-", "May"]
    assert heads["100.000"] == ["Relative"]


def test_group_headers_spread_across_the_table_part_the_columns_between_them():
    table = _table(
        [[("多空对冲", 185, 221), ("多头", 427, 445)],
         [("全市场", 103, 130), ("沪深300", 149, 183), ("中证500", 205, 238), ("中证1000", 264, 302),
          ("全市场", 331, 358), ("沪深300", 388, 422), ("中证500", 449, 483), ("中证1000", 508, 547)]],
        [("年化收益率", [("19.58%", 103, 131), ("7.19%", 154, 178), ("5.79%", 210, 233), ("11.70%", 269, 297),
                    ("13.94%", 330, 358), ("8.01%", 393, 417), ("7.88%", 455, 478), ("10.55%", 514, 541)])])
    heads = _headers(table)
    assert heads["19.58%"] == ["多空对冲", "全市场"] and heads["11.70%"] == ["多空对冲", "中证1000"]
    assert heads["13.94%"] == ["多头", "全市场"] and heads["10.55%"] == ["多头", "中证1000"]


def test_a_grid_header_abutting_the_next_column_heads_only_its_own():
    table = _table(
        [[("营业收入比上年", 330, 398), ("营业成本比上年", 398, 467), ("毛利率比上年同", 467, 535)],
         [("营业收入", 125, 193), ("营业成本", 193, 262), ("毛利率", 262, 330)],
         [("同期增减", 330, 398), ("同期增减", 398, 467), ("期增减", 467, 535)]],
        [("电子元器件行业", [("3,505,936,101.26", 129, 192), ("2,292,277,114.02", 198, 260), ("34.62%", 301, 329),
                      ("24.71%", 369, 397), ("28.41%", 438, 465), ("-1.88%", 508, 534)]),
         # a value set flush against the rule, its box a few points over it: a sliver of the next header
         ("继电器", [("313,341,166.12", 136, 192), ("180,769,210.52", 204, 260), ("42.31%", 303, 333)])])
    heads = _headers(table)
    assert heads["34.62%"] == ["毛利率"] and heads["42.31%"] == ["毛利率"]
    assert heads["24.71%"] == ["营业收入比上年同期增减"]   # the wrapped head read as one word (rule 270)


def test_figures_printed_with_a_leading_dot_and_intervals():
    assert is_number(".83") and parse_number(".83") == 0.83 and parse_number("(.12)") == -0.12
    assert parse_number("-.5") == -0.5 and parse_number("v.5") == 5.0
    assert parse_number("[.77, .85]") is None                       # a band, nothing to compute with
    # Del Negro et al. (JBES 2007) Table 1: a row of a paper's table is read as a row, not as more header
    block = Block(BlockKind.TABLE, Box.points(20, 20, 600, 700, 612, 792))
    rows = [("Distribution", "Mean", "Interval"), ("α", "B", ".26", "[.23, .29]"), ("h", "B", ".81", "[.77, .85]")]
    spans = [[(74, 115), (447, 469), (508, 536)], [(32, 37), (91, 97), (459, 470), (506, 537)]]
    lines = [[_cell(t, *x, 40 + 10 * i) for t, x in zip(r, spans[min(i, 1)], strict=True)] for i, r in enumerate(rows)]
    table = _from_words(block, lines, "Table 1")
    assert table is not None and [r.label for r in table.rows] == ["α", "h"]
    assert _headers(table)[".81"] == ["Mean"] and _headers(table)["[.77, .85]"] == ["Interval"]
    # FEDS 2018 Table 3: a band of two figures is one value with a column of its own (not two values read as one)
    bands = _table([[("Mean", 184, 210), ("[05, 95]", 222, 257), ("Mean", 289, 316), ("[05, 95]", 328, 362)]],
                   [("ψπ", [("1.77", 191, 210), ("[ 1.57, 1.99]", 222, 277), ("1.82", 296, 316),
                            ("[ 1.62, 2.19]", 328, 383)])])
    assert _headers(bands)["[ 1.57, 1.99]"] == ["[05, 95]"] and _headers(bands)["1.82"] == ["Mean"]


def test_a_caption_number_followed_by_its_full_stop_names_the_table():
    assert named_units("Table 1. The DSGE Model Parameter Estimates") == {"table:1"}
    assert named_units("Figure 2. Marginal likelihood") == {"figure:2"}
    assert named_units("Table 1.2 reports") == {"table:1.2"}


def test_a_percent_sign_printed_apart_belongs_to_its_figure():
    # NVIDIA 10-Q (Q1 fiscal 2027), operating income by segment: "79 %" under "% Change", the sign a gap apart
    words = [Word(t, Box.points(a, 300, b, 308, 612, 792)) for t, a, b in
             [("Graphics", 19, 60), ("2,941", 319, 340), ("1,640", 401, 421), ("1,301", 482, 502),
              ("79", 549, 556), ("%", 566, 573)]]
    assert [c.text for c in _cells(words)] == ["Graphics", "2,941", "1,640", "1,301", "79 %"]
    assert is_number("79 %") and parse_number("79 %") == 79.0
    assert parse_number("(2.5) %") == -2.5 and parse_number("(2.5)%") == -2.5     # a negative rate


def test_a_wrapped_column_header_is_no_group_header():
    # Microsoft FY25 Q4 release, constant currency reconciliation: "Operating / Income" and "Earnings / per Share"
    # are two columns' headers on two lines, not groups over the columns between them
    table = _table(
        [[("Operating", 386, 429), ("Earnings", 527, 566)],
         [("Revenue", 319, 357), ("Income", 392, 423), ("Net Income", 453, 501), ("per Share", 526, 567)]],
        [("Constant Currency Impact", [("$(485)", 345, 371), ("$(351)", 414, 440), ("$56", 494, 509),
                                       ("$0.01", 555, 577)])])
    heads = _headers(table)
    assert heads["$(485)"] == ["Revenue"] and heads["$(351)"] == ["Operating", "Income"]
    assert heads["$56"] == ["Net Income"] and heads["$0.01"] == ["Earnings", "per Share"]


def test_a_span_named_in_a_table_title_is_the_span_of_its_cells(tmp_path):
    # Microsoft FY25 Q4 release prints "Three Months Ended June 30," and "Twelve Months Ended June 30," as the two
    # reconciliation tables' titles, not over their columns: "fiscal year 2025" asks for the second
    page = make_page(tmp_path, [Region((72, 100, 540, 130), (200, 200, 200), "Constant currency reconciliation")])
    units = []
    for title, value in (("Three Months Ended June 30,", "$619"), ("Twelve Months Ended June 30,", "$(485)")):
        table = _table([[("Revenue", 319, 357)]], [("Constant Currency Impact", [(value, 345, 371)])])
        table.title = title
        tc = table.cells()[0]
        units.append(Unit(value, page, 1, table.block, tc.cell.box, kind="cell", cell=tc, table=table))
    quarter, year = span_fit(units, "What was the constant currency impact on revenue for fiscal year 2025?")
    assert year > 1.0 > quarter


def test_a_year_asked_is_not_a_quarter(tmp_path):
    """``year_not_quarter`` (rule 172, zh-d-001): "2019年营业收入" asks for the year's figure; an annual report's
    分季度主要财务指标 cells (第一季度) lose, the year's column gains nothing; a question naming a quarter, a month or
    no year leaves them alone."""
    page = make_page(tmp_path, [Region((72, 100, 540, 130), (200, 200, 200), "主要会计数据")])
    units = []
    for head, value in (("第一季度", "831,903,896.72"), ("2019年", "2,941,412,770.30")):
        table = _table([[(head, 319, 357)]], [("营业收入", [(value, 345, 371)])])
        tc = table.cells()[0]
        units.append(Unit(value, page, 1, table.block, tc.cell.box, kind="cell", cell=tc, table=table))
    assert span_fit(units, "海翔药业2019年营业收入是多少？") == [0.75, 1.0]
    assert span_fit(units, "海翔药业2019年第一季度营业收入是多少？")[0] > 1.0
    assert span_fit(units, "What was revenue in March 2019?") == [1.0, 1.0]
    assert span_fit(units, "海翔药业的营业收入是多少？") == [1.0, 1.0]


def test_an_amount_in_the_announcing_sentence_gives_the_table_no_scale():
    # 四方科技 2019 年报: "前五名客户销售额32,932.48 万元" announces a table in 元; "单位：万元" does scale one
    from docrag.generation.extractive_table_read import _finish

    def scale(title: str) -> str:
        table = _table([[("客户名称", 145, 231), ("销售额", 231, 420)]], [("第一名", [("86,512,221.40", 347, 415)])])
        table.title = title
        return _finish(table).scale

    assert scale("前五名客户销售额32,932.48 万元,占年度销售总额28.02%") == ""
    assert scale("单位：万元") == "万" and scale("(in millions, except per share data)") == "millions"


def test_a_header_over_two_columns_is_split_between_them_word_by_word():
    # 方正证券 图表1: "Rank IC Rank ICIR" was read as one header over the Rank IC and Rank ICIR columns
    from docrag.generation.extractive_table_read import _split_headers

    table = _table([[("因子名称", 82, 120), ("Rank IC Rank ICIR", 149, 239), ("t值", 253, 266)]],
                   [("随波逐流因子", [("5.89%", 154, 180), ("3.29", 206, 224), ("10.37", 248, 271)])])
    words = [Word(t, Box.points(a, 30, b, 38, 612, 792)) for t, a, b in
             [("因子名称", 82, 120), ("Rank", 149, 168), ("IC", 170, 185), ("Rank", 193, 212), ("ICIR", 214, 239),
              ("t值", 253, 266)]]
    heads = _headers(_split_headers(table, words))
    assert heads["5.89%"] == ["Rank IC"] and heads["3.29"] == ["Rank ICIR"] and heads["10.37"] == ["t值"]

"""Rows of text tables as candidate answers (rule 133, ``docrag.generation.extractive_text_tables``)."""

from __future__ import annotations

from dataclasses import replace

from docrag.generation import get_generator
from docrag.generation.extractive_score import quoted_fit, titled_table
from docrag.generation.extractive_text_tables import is_text_table, table_title, text_table_rows
from docrag.generation.extractive_units import units_of
from docrag.geometry import Box
from docrag.types import Block, BlockKind
from tests.support.synthetic_pages import Region, make_page

GREY = (200, 200, 200)
VOTES = [["Member", "Vote"], ["Dr. Shashanka Bhide", "Yes"], ["Dr. Ashima Goyal", "No"],
         ["Prof. Jayanth R. Varma", "No"], ["Shri Shaktikanta Das", "Yes"]]
# 中国信通院's indicator system: a first-level label set once, beside the middle one of the rows it spans
INDICATORS = [["一级指标", "二级指标", "三级指标", "单位"],
              ["", "基础算力", "服务器算力规模", "EFlops"],
              ["算力规模", "智能算力", "AI 加速器算力规模", "EFlops"],
              ["", "网络环境", "互联网省际出口带宽", "Tbps"],
              ["算力环境", "", "", ""],
              ["", "算力投入", "IT 支出规模", "亿元"],
              ["", "消费应用水平", "移动互联网月均流量", "EB"]]
_PROSE = ("利用 AHP 方法确定指标权重:针对形成评价体系的一级、二级、三级指标,通过层次分析法得到每个一级、二级、三级指标"
          "之间的相对权重。")


def make_box(y0: float = 130, y1: float = 300) -> Box:
    return Box.points(72, y0, 540, y1, 612, 792)


def _page(tmp_path, rows: list[list[str]], title: str):
    text = "\n".join(" | ".join(r) for r in rows)
    page = make_page(tmp_path, [Region((72, 100, 540, 116), GREY, title, BlockKind.TITLE),
                                Region((72, 130, 540, 300), GREY, text, BlockKind.TABLE),
                                Region((72, 320, 540, 360), GREY, _PROSE)],
                     doc_id="t", page_no=1)
    page.blocks[1].meta["rows"] = rows
    return page


def test_a_text_tables_rows_are_scored_with_its_title_and_header_and_the_label_above():
    table = Block(BlockKind.TABLE, make_box(), "", meta={"rows": INDICATORS})
    title = Block(BlockKind.TITLE, make_box(y0=80, y1=95), "表 1 中国算力发展指标体系")
    rows = text_table_rows(table, table_title(table, [title, table]))
    texts = [r.text for r in rows]
    assert not any(t.startswith("一级指标") for t in texts)         # the header names columns, answers nothing
    assert "算力环境" not in texts                                    # a spanning label alone is no row
    invest = rows[texts.index("算力投入 — 三级指标: IT 支出规模; 单位: 亿元")]   # quoted under its headers
    assert invest.context == "表 1 中国算力发展指标体系 一级指标 二级指标 三级指标 单位 算力环境"
    assert invest.box == table.box                                    # a person boxes the table


def test_a_table_of_figures_or_of_too_few_rows_is_no_text_table():
    assert is_text_table(VOTES) and is_text_table(INDICATORS)
    assert not is_text_table([["Segment", "2023", "2022"], ["Cloud", "1,200", "980"], ["Devices", "310", "402"],
                              ["Gaming", "n/a", "77"]])
    assert not is_text_table(VOTES[:2])
    # a label-and-value table whose values are mostly figures stays a table of cells
    assert not is_text_table([["项目", "金额"], ["营业收入", "57,854.21"], ["净利润", "599.40"],
                              ["实收资本", "1,000.00"], ["股东构成", "公司持有其100.00%股权"]])


def test_which_row_of_a_text_table_answers_and_not_its_header(tmp_path):
    """中国信通院's "二级指标“算力投入”对应的三级指标和单位是什么？" was answered with the header row (it names
    二级指标, 三级指标 and 单位): the row of 算力投入, scored with that header, answers."""
    gen = get_generator("extractive", embed=False)
    ans = gen.generate("表1“中国算力发展指标体系”中，二级指标“算力投入”对应的三级指标和单位是什么？",
                       [_page(tmp_path, INDICATORS, "表 1 中国算力发展指标体系")])
    assert "IT 支出规模" in ans.answer and "亿元" in ans.answer, ans.answer
    assert "一级指标" not in ans.answer
    votes = gen.generate("In the voting table, how did Dr. Ashima Goyal vote on the resolution?",
                         [_page(tmp_path, VOTES, "Voting on the Resolution to keep the policy repo rate unchanged")])
    assert votes.answer.startswith("Dr. Ashima Goyal — No"), votes.answer


def test_a_table_named_by_its_title_is_read_wherever_its_page_ranked_and_a_quoted_value_counts(tmp_path):
    """RBI's minutes: "In the voting table ..., which members voted 'No' ..." was answered from the page ranked
    first, whose sentences restate the decision (rule 136: the table named by its title answers as if ranked
    first); 'No' is a stopword a quote makes a value to find (rule 137); "which members" lists both (rule 138)."""
    first = make_page(tmp_path, [Region((72, 100, 540, 160), GREY, "No member voted against keeping the policy repo "
                                        "rate unchanged at 6.50 per cent in the April meeting of the MPC.")],
                      doc_id="rbi", page_no=1)
    second = _page(tmp_path, VOTES, "Voting on the Resolution to keep the policy repo rate unchanged at 6.50 per cent")
    second = replace(second, page_no=2, doc_id="rbi")
    gen = get_generator("extractive", embed=False)
    ans = gen.generate("In the voting table, which member voted 'No' on keeping the policy repo rate unchanged at "
                       "6.50 per cent?", [first, second])
    assert ans.answer.split(" … ")[0] in ("Dr. Ashima Goyal — No", "Prof. Jayanth R. Varma — No"), ans.answer
    assert ans.citations[0].page_id == second.page_id
    both = gen.generate("In the voting table, which members voted 'No' on keeping the policy repo rate unchanged?",
                        [first, second]).answer   # rule 138: every row that fits a plural question
    assert "Dr. Ashima Goyal — No" in both and "Prof. Jayanth R. Varma — No" in both and "Yes" not in both, both
    units = units_of(second, 2) + units_of(first, 1)
    assert [u.page.page_no for u, t in zip(units, titled_table(units, "In the voting table, who voted No?"),
                                           strict=True) if t] == [2] * (len(VOTES) - 1)
    assert not any(titled_table(units, "In the following table, who voted No?"))
    fit = quoted_fit(units, "which member voted 'No'?")
    assert [u.text for u, f in zip(units, fit, strict=True) if f > 1] == [
        "Dr. Ashima Goyal — No", "Prof. Jayanth R. Varma — No", first.blocks[0].text]   # "No" as a word of its own
    assert set(quoted_fit(units, "Who voted for the 'Nothing' option?")) == {1.0}


def test_a_cell_of_a_row_the_question_names_whole_keeps_half_the_rank_prior(tmp_path):
    """Lyft's 10-K (en-a-074, rule 139): "How many Active Riders did Lyft have ..." was answered from sentences
    on the page ranked first; the "Active Riders" row on the page ranked second is named whole. A one-word label
    ("Revenue") or one the question only partly names ("Revenue per Active Rider") is not. A "% Change" column
    named in the table's title is no unit of its figures (18,728 had been quoted as "18,728%")."""
    from docrag.generation.extractive_answer import fmt_cell
    from docrag.generation.extractive_score import ROW_NAMED_PRIOR, row_named

    rows = [["", "2021", "2020", "% Change"], ["Active Riders", "18,728", "12,552", "49%"],
            ["Revenue per Active Rider", "$51.79", "$45.74", "13%"], ["Revenue", "969,917", "570,539", "70%"]]
    page = _page(tmp_path, rows, "Active Riders 2021 2020 % Change (in thousands, except for dollar amounts)")
    cells = [u for u in units_of(page, 2) if u.cell is not None]
    named = row_named(cells, "How many Active Riders did Lyft have in the three months ended December 31, 2021?")
    assert {u.cell.row.label for u, n in zip(cells, named, strict=True) if n} == {"Active Riders"}
    assert 0 < ROW_NAMED_PRIOR < 1
    riders = next(u for u in cells if u.text == "18,728")
    assert fmt_cell(riders) == "18,728 (thousands) — Active Riders, 2021"

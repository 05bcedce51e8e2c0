"""The parts of a question that asks for several facts (docs/extractive-rules.md rules 45, 46)."""
from __future__ import annotations

import pytest

from docrag.generation import get_generator
from docrag.generation.extractive_part_answers import answers_every_part
from docrag.generation.extractive_parts import parts_of
from docrag.types import BlockKind
from tests.support.synthetic_pages import Region, make_page

GREY = (200, 200, 200)


@pytest.mark.parametrize(("question", "parts"), [
    ("What were Apple's growth from 2019 to 2021 and the S&P 500's closing level in 2021?",
     ["What were Apple's growth from 2019 to 2021", "the S&P 500's closing level in 2021"]),
    ("How many wines were analysed, and what is the median ash content of all wines?",
     ["How many wines were analysed", "what is the median ash content of all wines"]),
    # a second question with a pronoun that still names what it asks
    ("What was the segment's revenue in millions for the quarter, and what growth rate did the release give for it "
     "in constant currency?",
     ["What was the segment's revenue in millions for the quarter",
      "what growth rate did the release give for it in constant currency"]),
    ("每个物种有多少个样本？数据是哪一年发表的？", ["每个物种有多少个样本", "数据是哪一年发表的？"]),
    # two subjects of one verb that follows them: each with the verb (rule 128)
    ("By how much did the all items CPI-U and the all items less food and energy index rise over the 12 months?",
     ["By how much did the all items CPI-U rise over the 12 months?",
      "By how much did the all items less food and energy index rise over the 12 months?"]),
    ("How much did revenue and the operating income grow in 2023?",
     ["How much did revenue grow in 2023?", "How much did the operating income grow in 2023?"]),
    # a change with no measure of its own is asked of the measure before it (rule 107)
    ("航天电器2019年连接器的销售量是多少？同比增长多少？",
     ["航天电器2019年连接器的销售量是多少", "航天电器2019年连接器的销售量同比增长多少？"]),
    ("研发费用同比增长了多少？主要原因是什么？", ["研发费用同比增长了多少", "主要原因是什么？"]),
    ("苹果公司股价涨幅是多少，标普500指数收于多少点？", ["苹果公司股价涨幅是多少", "标普500指数收于多少点？"]),
    ("良性肿瘤的平均紧凑度和最差周长均值分别是多少？",
     ["良性肿瘤的平均紧凑度是多少？", "良性肿瘤的最差周长均值是多少？"]),
    ("微软和亚马逊的年末股价分别是多少？", ["微软的年末股价是多少？", "亚马逊的年末股价是多少？"]),
    # three items, the report named before them in its own clause
    ("某报告中，2015年营业收入、归属于母公司所有者的净利润和资产负债率分别是多少？",
     ["某报告中，2015年营业收入是多少？", "某报告中，归属于母公司所有者的净利润是多少？",
      "某报告中，资产负债率是多少？"]),
    # the first item is a measure itself: it takes no measure from the last
    ("截至年末公司总资产和归属于上市公司股东的净资产分别是多少？",
     ["截至年末公司总资产是多少？", "归属于上市公司股东的净资产是多少？"]),
    # names in brackets: the measure of the last applies to every name
    ("局部因子5（高交易占比）和局部因子1（低交易占比）的年化ICIR分别是多少？",
     ["局部因子5（高交易占比）的年化ICIR是多少？", "局部因子1（低交易占比）的年化ICIR是多少？"]),
    # two measures of one subject without 分别
    ("子公司前海影石2024年实现的营业收入和净利润是多少？",
     ["子公司前海影石2024年实现的营业收入是多少？", "子公司前海影石2024年实现的净利润是多少？"]),
    # the items of a clause after a comparison; the title's 与 is not a list
    ("《收益的反转特性与因子构建》报告中，新因子相比传统因子，信息比率和最大回撤分别如何变化？",
     ["《收益的反转特性与因子构建》报告中，新因子相比传统因子，信息比率如何变化？",
      "《收益的反转特性与因子构建》报告中，新因子相比传统因子，最大回撤如何变化？"]),
    # one measure over two spans, the preposition said again
    ("How much did the shelter index rise in July 2025 and over the last 12 months?",
     ["How much did the shelter index rise in July 2025",
      "How much did the shelter index rise over the last 12 months"]),
    # two items, each after "on", the period said once after the second: both parts take the period
    ("How much did Apple spend on repurchases of common stock and on dividends in the quarter ended December 31, 2022?",
     ["How much did Apple spend on repurchases of common stock in the quarter ended December 31, 2022",
      "How much did Apple spend on dividends in the quarter ended December 31, 2022"]),
    # "of" said again: two items of one measure, the period said once after the second (rule 46)
    ("What were revenues of its largest operating segment and of services in 2022?",
     ["What were revenues of its largest operating segment in 2022", "What were revenues of services in 2022"]),
    # two spans, then a question referring back to both
    ("What were the annual inflation rates of goods and of services in May 2023, and how did they compare with April?",
     ["What were the annual inflation rates of goods in May 2023",
      "What were the annual inflation rates of services in May 2023"]),
    # short items of one list after "what were", the owner and the period said once
    ("According to the annual report, what were RIL's revenue and net profit for the year ended March 31, 2022?",
     ["According to the annual report, what were RIL's revenue for the year ended March 31, 2022",
      "According to the annual report, what were RIL's net profit for the year ended March 31, 2022"]),
    # a preposition or "roughly" before the second question word (rule 101); "at what average price" is no span
    ("How many shares did it repurchase in November 2022 and at what average price?",
     ["How many shares did it repurchase in November 2022", "at what average price"]),
    ("How much tax did ACCIONA pay in 2020 in total, and in which country was the tax paid the highest?",
     ["How much tax did ACCIONA pay in 2020 in total", "in which country was the tax paid the highest"]),
    ("What was NVIDIA's Data Center revenue in Q2 and roughly what share of it came from cloud providers?",
     ["What was NVIDIA's Data Center revenue in Q2", "roughly what share of it came from cloud providers"]),
    # "how does A compare with B (and with C)": each thing compared is asked for (rule 103)
    ("In the 10-Q, how does Data Center revenue compare with Compute & Networking segment revenue?",
     ["In the 10-Q, what was Data Center revenue", "In the 10-Q, what was Compute & Networking segment revenue"]),
    ("How does the June growth projection compare with the median survey forecast, and with the April projection?",
     ["what was the June growth projection", "what was the median survey forecast", "what was the April projection"]),
    ("How did organic revenue growth compare with reported revenue growth, and what do the notes say?",
     ["what was organic revenue growth", "what was reported revenue growth", "what do the notes say"]),
    # a clause comparing the figure asked before with another asks for that one too (rule 140 ``parts_gap``)
    ("2024年工作报告提出的2024年地区生产总值增长目标是多少？与2023年实际增速相比相差多少个百分点？",
     ["2024年工作报告提出的2024年地区生产总值增长目标是多少", "2023年实际地区生产总值增长是多少"]),
    ("报告中，2024年计划精细治理背街小巷多少条？比2023年实际治理提升的数量多还是少、相差多少条？",
     ["报告中，2024年计划精细治理背街小巷多少条", "报告中，2023年实际治理提升精细治理背街小巷是多少"]),
    ("预案中，2015年持续经营业务的毛利率与其整体毛利率相比高多少？",
     ["预案中，2015年持续经营业务的毛利率是多少", "预案中，其整体毛利率是多少"]),
    # "A与B两种…下，X相差多少": X under each kind (rule 158 ``two_kinds``)
    ("报告中，基于统计期内推荐成功率与基于近一年内产生超额概率两种分组方式下，0.8-1.0分位组合的年化收益率相差多少？",
     ["报告中，基于统计期内推荐成功率分组方式下，0.8-1.0分位组合的年化收益率是多少",
      "报告中，基于近一年内产生超额概率分组方式下，0.8-1.0分位组合的年化收益率是多少"]),
    # "which is larger: A or B (, and by how much)": each option asked for, the gap computed (rule 140)
    ("Which is larger for the company, its exports or its market capitalisation, and by how much?",
     ["what was its exports for the company", "what was its market capitalisation for the company"]),
    # an ask-only clause stays with the part before it
    ("哪个行业的毛利率最高？是多少？同比变动多少？", ["哪个行业的毛利率最高，是多少", "同比变动多少？"]),
    # asks parted by "、", each of the subject said before the first's 是 / 由 (rule 146); 谁 asks too
    ("白皮书中，欧盟GDPR是哪一年通过、何时正式生效的？",
     ["白皮书中，欧盟GDPR是哪一年通过", "白皮书中，欧盟GDPR何时正式生效的？"]),
    ("白皮书介绍的结算系统由谁研发、服务于哪家清算行，在谁的指导下开展？",
     ["白皮书介绍的结算系统由谁研发", "白皮书介绍的结算系统服务于哪家清算行", "在谁的指导下开展？"]),
    # the measure said once before the items is each item's; the period is the last "in ..." naming one (rule 143)
    ("What was the growth of revenue and operating income in 2023?",
     ["What was the growth of revenue in 2023", "What was the growth of operating income in 2023"]),
    ("What were the year-over-year changes in NVIDIA's Graphics revenue and Graphics operating income in the first "
     "quarter of fiscal 2027?",
     ["What were the year-over-year changes in NVIDIA's Graphics revenue in the first quarter of fiscal 2027",
      "What were the year-over-year changes in NVIDIA's Graphics operating income in the first quarter of fiscal "
      "2027"]),
])
def test_questions_asking_several_facts_are_split(question, parts):
    assert parts_of(question) == parts


@pytest.mark.parametrize("question", [
    "What is the difference in mean alcohol between cultivar 1 and cultivar 2?",   # a comparison
    "What was IBM's price in 2020 and how did it compare with 2019?",              # refers back
    "In which quarter was revenue highest, and what was it?",                      # refers back, nothing of its own
    "What was the change in CPI between July 2024 and July 2025?",                     # one span, two ends
    # "between A and its B": one difference, not two questions (rule 165 ``between_pair``)
    "As of December 31, 2022, how much restricted cash is implied by the difference between Apple's cash flow "
    "statement ending balance and its balance-sheet cash and cash equivalents?",
    "What were Apple's cash and cash equivalents at the end of the quarter?",          # a fixed pair
    "2019年末至2021年末，苹果公司年末股价上涨了百分之多少？",                          # a clause, one question
    "维吉尼亚鸢尾与变色鸢尾的平均花萼宽度相差多少？",
    "A公司和B公司的合计营业收入是多少？",                                              # one summed figure
    "四位实际控制人直接持股比例合计是多少？",
    "What was the ratio of debt and equity in 2023?",                                  # one figure of the two
    "此后共修订了几次、最近一次修订是何时？",     # no subject said before a 是 / 由: the pieces are not asked apart
    # a list across a question mark is no list of one measure
    "“随波逐流”因子与二者合成的因子相比，哪个信息比率最高？",
])
def test_one_fact_questions_stay_whole(question):
    assert parts_of(question) == [question]


def test_an_answer_naming_every_part_needs_no_parts():
    parts = ["报告中，2015年营业收入是多少？", "报告中，资产负债率是多少？"]
    assert answers_every_part("4,810,115.48 — 营业收入, 2015年; 60.37% — 资产负债率, 2015年", parts)
    assert not answers_every_part("4,810,115.48 — 营业收入, 2015年", parts)
    assert not answers_every_part("Revenue was 5.2 million.", ["What was revenue", "how many engineers were hired"])


def test_two_fact_question_cites_evidence_on_both_pages(tmp_path):
    p1 = make_page(tmp_path, [Region((72, 100, 540, 160), GREY, "Revenue in 2011 was 5.2 million dollars, and "
                                                                "revenue growth in 2011 was 12 percent.")],
                   doc_id="a", page_no=1)
    p2 = make_page(tmp_path, [Region((72, 300, 540, 360), GREY, "Our Berlin office had 42 engineers on staff.")],
                   doc_id="a", page_no=2)
    other = make_page(tmp_path, [Region((72, 100, 540, 160), GREY, "Weather was mild across the year.")],
                      doc_id="b", page_no=1)
    question = "What was the revenue in 2011, and how many engineers worked at the Berlin office?"
    ans = get_generator("extractive", embed=False).generate(question, [p1, other, p2])
    assert "5.2 million" in ans.answer and "42 engineers" in ans.answer
    assert {c.page_id for c in ans.citations} == {"a:1", "a:2"}
    assert ans.meta["parts"] == ["What was the revenue in 2011", "how many engineers worked at the Berlin office"]


def test_complementary_evidence_comes_from_the_answers_document(tmp_path):
    revenue = make_page(tmp_path, [Region((72, 100, 540, 160), GREY, "Revenue in 2011 was 5.2 million dollars.")],
                        doc_id="a", page_no=1)
    question = "What was revenue in 2011, the year the Berlin office opened?"
    gen = get_generator("extractive", embed=False)
    for doc, cited in (("a", {"a:1", "a:2"}), ("b", {"b:1"})):
        office = make_page(tmp_path, [Region((72, 300, 540, 360), GREY, "The Berlin office opened in 2011.")],
                           doc_id=doc, page_no=2 if doc == "a" else 1)
        ans = gen.generate(question, [revenue, office])
        assert {c.page_id for c in ans.citations} == cited, doc


NVIDIA_OUTLOOK = ("GAAP and non-GAAP operating expenses are expected to be approximately $4.3 billion and $3.0\n"
                  "billion, respectively. Full-year operating expenses are expected to grow in the mid- to upper 40%\n"
                  "range as we work on developing our next generation of products. GAAP and non-GAAP other\n"
                  "income and expenses are expected to be about $350 million, including gains and losses from\n"
                  "nonaffiliated investments and publicly held equity securities. GAAP and non-GAAP tax rates are\n"
                  "expected to be 17%, plus or minus 1%, excluding any discrete items.")


def test_another_sentence_of_the_quoted_paragraph_completes_the_answer(tmp_path):
    """NVIDIA's Q2 FY25 call (en-c-027): "What GAAP and non-GAAP operating expenses and tax rate did NVIDIA expect"
    is answered by the paragraph's first sentence; the tax rate, in a later sentence of the same paragraph, is
    quoted too (rule 45; the paragraph's box was cited, so its other sentences had been passed over)."""
    page = make_page(tmp_path, [Region((40, 125, 552, 210), GREY, NVIDIA_OUTLOOK)], doc_id="nvda", page_no=6)
    ans = get_generator("extractive", embed=False).generate(
        "What GAAP and non-GAAP operating expenses and tax rate are expected?", [page])
    assert "$4.3 billion" in ans.answer and "17%" in ans.answer, ans.answer
    assert len(ans.citations) == 1


def test_a_sentence_completes_an_answer_with_what_it_says_not_with_its_heading(tmp_path):
    """Kroger's Q2 2023 release (en-a-042): "guidance ... for adjusted net earnings per diluted share and capital
    expenditures" is completed by the capital expenditures bullet, not by a debt ratio sentence whose section
    heading ("Capital Allocation Strategy") says "capital" (rule 45: a sentence adds the terms it says)."""
    page = make_page(tmp_path, [
        Region((72, 80, 540, 100), GREY, "Capital Allocation Strategy", BlockKind.TITLE),
        Region((72, 105, 540, 150), GREY, "Kroger’s net total debt to adjusted EBITDA ratio is 1.31, compared to 1.63 "
                                          "a year ago (Table 5)."),
        Region((72, 170, 540, 190), GREY, "Full-Year 2023 Guidance", BlockKind.TITLE),
        Region((72, 195, 540, 225), GREY, "• Adjusted net earnings per diluted share of $4.45 – $4.60, including an "
                                          "estimated benefit of $0.15 from the 53rd week"),
        Region((72, 230, 540, 250), GREY, "• Adjusted FIFO Operating Profit of $5.0 – $5.2 billion"),
        Region((72, 255, 540, 275), GREY, "• Capital expenditures of $3.4 – $3.6 billion")], doc_id="kroger", page_no=3)
    ans = get_generator("extractive").generate("What full-year 2023 guidance did Kroger reaffirm for adjusted net "
                                               "earnings per diluted share and capital expenditures?", [page])
    assert "$4.45 – $4.60" in ans.answer and "$3.4 – $3.6 billion" in ans.answer, ans.answer
    assert "1.31" not in ans.answer, ans.answer


LYFT_WOVEN = ("On July 13, 2021, we completed a multi-element transaction with Woven Planet, a subsidiary of "
              "Toyota Motor Corporation, for the divestiture of certain assets related to our self-driving vehicle "
              "division, Level 5, as well as commercial agreements for the utilization of Lyft rideshare and fleet "
              "data to accelerate the safety and commercialization of the automated-driving vehicles that Woven "
              "Planet is developing.")
LYFT_CASH = ("We will receive, in total, approximately $515 million in cash in connection with this transaction, with "
             "$165 million paid upfront and $350 million to be paid over a five-year period.")


def test_a_long_first_quote_does_not_cut_off_the_one_holding_the_figure(tmp_path):
    """Lyft's 10-K (en-a-075): the transaction's 430-character sentence filled the answer's 400 characters, and the
    next sentence, with the $515 million asked, was cut off; each quote now keeps its share of the length (rule 45)."""
    from docrag.generation.extractive_sentences import fit_quotes

    text = fit_quotes([LYFT_WOVEN, LYFT_CASH], 400, " … ")
    assert "$515 million" in text and "$350 million" in text and text.startswith("On July 13, 2021"), text
    assert len(text) <= 400 + len(" ...")
    assert fit_quotes(["Short one.", LYFT_CASH], 400, " … ") == "Short one. … " + LYFT_CASH
    assert fit_quotes([LYFT_WOVEN], 100, " … ").endswith(" ...")
    page = make_page(tmp_path, [Region((72, 100, 540, 200), GREY, LYFT_WOVEN + " " + LYFT_CASH)], doc_id="lyft")
    ans = get_generator("extractive").generate("How much cash does Lyft expect to receive in total from its July 2021 "
                                               "transaction with Woven Planet, and how is it split?", [page])
    assert "$515 million" in ans.answer, ans.answer


def test_a_part_is_read_with_what_was_said_before_it_not_after(tmp_path):
    """Table 324 of the Statistical Abstract: "how many arrests for fraud were reported in 2009, and how many of
    them were of females?" The first part is the Total column; "females" of the second part does not pull it
    to the Female column, and the second part reads "of them" with the first part's "arrests for fraud"."""
    rows = [["Offense charged", "Total", "Male", "Female"], ["Fraud", "173.7", "98.4", "75.3"],
            ["Forgery and counterfeiting", "85.8", "53.9", "31.9"], ["Embezzlement", "17.9", "8.7", "9.2"]]
    page = make_page(tmp_path, [Region((72, 120, 540, 150), GREY, "Table 324. Arrests by Sex, 2009", BlockKind.TITLE),
                                Region((72, 160, 540, 300), GREY, "\n".join(" | ".join(r) for r in rows),
                                       BlockKind.TABLE)], doc_id="t324", page_no=1)
    page.blocks[-1].meta["rows"] = rows
    ans = get_generator("extractive", embed=False).generate(
        "How many arrests for fraud were reported in 2009, and how many of them were of females?", [page])
    assert ans.answer.startswith("173.7"), ans.answer
    assert "75.3" in ans.answer and "98.4" not in ans.answer, ans.answer


def test_each_thing_compared_is_answered_with_its_own_figure(tmp_path):
    """RBA minutes: "how did the Wage Price Index growth compare with the liaison measure of private sector wages
    growth?" quotes both figures; the part asking for the first is not read with the second (rule 103)."""
    page = make_page(tmp_path, [Region((72, 100, 540, 300), GREY,
                                       "The liaison measure of private sector wages growth was around 4 per cent in "
                                       "the September quarter to date. Expectations of firms in the liaison program "
                                       "were for wages growth to remain around 4 per cent. The Wage Price Index "
                                       "increased by 3.6 per cent over the year.")], doc_id="rba")
    q = "How did the Wage Price Index growth compare with the liaison measure of private sector wages growth?"
    ans = get_generator("extractive", embed=False).generate(q, [page])
    assert "3.6 per cent" in ans.answer and "around 4 per cent in the September" in ans.answer, ans.answer


def test_an_answer_naming_each_amount_without_figures_does_not_answer_every_part():
    """影石创新's prospectus (issue 23, zh-c-019): "…子公司…营业收入或净利润任一指标占…5%以上" names 营业收入 and 净利润
    but states neither; two amounts asked need two figures before the parts are skipped (rule 109)."""
    parts = ["前海影石2024年实现的营业收入是多少？", "前海影石2024年实现的净利润是多少？"]
    named_only = "其中重要子公司(营业收入或净利润任一指标占发行人合并口径相应指标以上的控股子公司)"
    assert not answers_every_part(named_only, parts)
    assert answers_every_part("25,645.29 — 营业收入, 2024 年度; 4,014.82 — 净利润, 2024 年度", parts)


def test_a_later_part_is_not_answered_again_by_the_unit_of_an_earlier_one(tmp_path):
    """国泰君安's trend-selection note (issue 23, zh-a-047): "年化超额收益、最大回撤、信息比率和胜率分别是多少？回测区间
    是什么？" -- read in the whole question, the last part ranked the summary sentence of the first four first
    again; the sentence naming the 回测区间 answers it (rule 122 ``distinct_parts``)."""
    from docrag.generation.extractive_part_answers import DISTINCT_PART_MIN, distinct_best, own_words
    from docrag.generation.extractive_units import units_of

    page = make_page(tmp_path, [
        Region((72, 100, 540, 140), GREY, "策略的年化超额收益为15.3%，最大回撤5.4%，信息比率1.8，胜率为72.8%。"),
        Region((72, 160, 540, 200), GREY, "本报告以2005年1月至2016年12月为回测区间，构建选股策略。")], doc_id="g")
    summary, span = units_of(page, 1)[:2]
    parts = parts_of("策略的年化超额收益和胜率分别是多少？回测区间是什么？")
    own = own_words(parts)[-1]
    assert "区间" in own
    units, order = [summary, span], [0, 1]
    assert distinct_best(order, [1.0, 0.7], units, {id(summary)}, own) == 1
    assert distinct_best(order, [1.0, DISTINCT_PART_MIN - 0.1], units, {id(summary)}, own) == 0   # too far behind
    assert distinct_best(order, [1.0, 0.7], units, set(), own) == 0          # no earlier part took it
    assert distinct_best(order, [1.0, 0.7], units, {id(summary)}, {"胜率"}) == 0   # it holds the part's own words


def test_the_parts_answers_are_joined_each_quote_once():
    """zh-a-071's three parts were each completed by the same diagram caption, which the answer then quoted three
    times; a quote the parts share is quoted once, where it first came."""
    from docrag.generation.extractive_answer import joined_quotes

    cap = "1 、三联锻造设立以来股本演变情况概图"
    cell = "45.00 万元 — 王芳琴, 认缴出资额, (万元)"
    parts = [f"{cell} … {cap}", f"新增注册资本由新股东三联合伙以每股 4.50 元的价格认购 … {cap}", f"{cell} … {cap}"]
    assert joined_quotes(parts) == f"{cell} … {cap} … 新增注册资本由新股东三联合伙以每股 4.50 元的价格认购"
    assert joined_quotes(["a", "b"]) == "a … b" and joined_quotes(["a", "a"]) == "a"


def test_the_gap_between_two_parts_figures_is_computed_in_one_unit(tmp_path):
    """北京市政府工作报告 (issue 23, zh-b-024): the 2024 target (5% 左右) is on one page, 2023's outcome (5.2%) on
    another; the answer quoted both and never said how far apart they are. Asked "相差多少个百分点", the two parts'
    figures give it, both pages cited (rule 140 ``parts_gap``)."""
    review = make_page(tmp_path, [Region((72, 100, 540, 160), GREY,
                                         "2023年，我们坚持从实际出发，全市地区生产总值增长5.2%，一般公共预算收入增长8.2%。")],
                       doc_id="bj", page_no=1)
    plan = make_page(tmp_path, [Region((72, 300, 540, 360), GREY,
                                       "2024年全市经济社会发展的主要预期目标是：地区生产总值增长5%左右，城镇调查失业率控制在5%以内。")],
                     doc_id="bj", page_no=5)
    q = "2024年地区生产总值增长目标是多少？与2023年实际增速相比相差多少个百分点？"
    ans = get_generator("extractive", embed=False).generate(q, [review, plan])
    assert ans.answer.startswith("0.2个百分点 = 5.2% − 5%"), ans.answer
    assert {c.page_id for c in ans.citations} == {"bj:1", "bj:5"}
    assert ans.meta["arithmetic"]["op"] == "difference"


def test_no_gap_between_figures_of_different_units_or_when_none_is_asked():
    from docrag.generation.extractive_gap import figure_of, gap_asked, parts_gap
    from docrag.generation.extractive_part_answers import own_words

    parts = ["营业收入是多少", "上年营业收入是多少"]
    q = "营业收入与上年相比相差多少？"
    assert parts_gap(q, ["营业收入为 5.2 亿元。", "上年营业收入为 4,800 万元。"], parts) is None
    assert parts_gap("门店数量与上年相比多多少？", ["门店数量为 2,340 家。", "门店数量增长 3.1%。"], parts) is None
    assert parts_gap("营业收入与上年相比相差多少？", ["营业收入为 5.2 亿元。", "上年营业收入为 4.8 亿元。"],
                     parts) == "0.4亿元 = 5.2亿元 − 4.8亿元"
    assert not gap_asked("营业收入是多少？净利润是多少？")
    assert gap_asked("How does Data Center revenue compare with Compute & Networking segment revenue?")
    # a cell's answer gives its first figure; a sentence the figure its words name, never a year
    assert figure_of("75,246 — Data Center (Revenue by Market Platform), Apr 26, 2026", "Data Center revenue").number \
        == "75,246"
    fig = figure_of("In 2023 the store count was 2,340 and revenue grew 5.1%.", "how many stores: the store count")
    assert fig is not None and (fig.number, fig.unit) == ("2,340", "")
    # en-a-054: a number named by the word before it ("Fortune 500") is no figure
    assert figure_of("Reliance Industries Limited (RIL) is a Fortune 500 company.",
                     "what was its exports for Reliance Industries") is None
    # en-b-029: a figure named with another part's own word ("April") is that part's, not this one's
    april = "In the April meeting of the MPC, the YOY real GDP growth for 2024-25 was projected at 7 per cent."
    asked = ["what was the MPC's June real GDP growth projection", "what was the projection at the April meeting"]
    june, then = own_words(asked)
    assert figure_of(april, asked[0], june).number == "7"
    assert figure_of(april, asked[0], june, then) is None
    # en-a-012: a quarter's year ("Q4’23") is no figure, and "$1,076M" is no figure of the unit of "23"
    assert figure_of("8% Q4’23 ORGANIC REVENUE", "what was Twilio's Q4'23 organic revenue growth") is None
    compared = ["what was A revenue", "what was B revenue"]
    q = "How does A revenue compare with B revenue?"
    assert parts_gap(q, ["$1,076M — A revenue", "23 — B revenue"], compared) is None
    assert parts_gap(q, ["$1,076M — A revenue", "$1,001M — B revenue"], compared) == "$75M = $1,076M − $1,001M"


def test_a_figure_compared_is_read_from_a_close_cell_not_a_sentence_naming_none(tmp_path):
    """NVIDIA's 10-Q (issue 23, en-a-036): "how does Data Center revenue compare with Compute & Networking segment
    revenue?" -- the second part ranked a sentence on the segment's operating income first (its only figure, a $4.5
    billion charge, is not what the part names); the segment table's cell a little behind it is the figure compared,
    and the two give the gap (rule 140)."""
    def table(doc: str, page_no: int, title: str, rows: list[list[str]], note: str = ""):
        regions = [Region((72, 100, 540, 130), GREY, title, BlockKind.TITLE),
                   Region((72, 140, 540, 240), GREY, "\n".join(" | ".join(r) for r in rows), BlockKind.TABLE)]
        if note:
            regions.append(Region((72, 260, 540, 320), GREY, note))
        page = make_page(tmp_path, regions, doc_id=doc, page_no=page_no)
        page.blocks[1].meta["rows"] = rows
        return page

    platform = table("nv", 5, "NVIDIA Corporation: Revenue by Market Platform (In millions)",
                     [["", "Apr 26, 2026", "Apr 27, 2025"], ["Data Center", "75,246", "39,112"],
                      ["Gaming", "3,810", "3,763"]])
    segment = table("nv", 7, "NVIDIA Corporation: Revenue by Reportable Segments (In millions)",
                    [["", "Apr 26, 2026", "Apr 27, 2025"], ["Compute & Networking", "74,550", "39,589"],
                     ["Graphics", "7,102", "4,473"]],
                    "In this 10-Q, NVIDIA said Compute & Networking segment revenue growth drove the increase in "
                    "Compute & Networking segment operating income, with the non-recurrence of a $4.5 billion charge "
                    "associated with H20 excess inventory.")
    q = ("In NVIDIA's 10-Q, how does Data Center market-platform revenue compare with Compute & Networking segment "
         "revenue?")
    ans = get_generator("extractive", embed=False).generate(q, [segment, platform])
    assert ans.answer.startswith("696 (millions) = 75,246 (millions) − 74,550 (millions)"), ans.answer
    assert {c.page_id for c in ans.citations} == {"nv:5", "nv:7"}


def test_an_answer_stating_only_rates_does_not_answer_a_part_asking_an_amount():
    """zh-c-006: "连接器的销售量是多少？同比增长多少？" -- the sentence stating the growth rates names 销售量 and
    增长 and has figures enough, but no amount: the parts are answered (rule 109)."""
    parts = parts_of("航天电器2019年连接器的销售量是多少？同比增长多少？")
    rates = "连接器销售量、生产量、库存量同比分别增长 177.78% 、 183.06% 、 314.84%"
    assert not answers_every_part(rates, parts)
    assert answers_every_part("64,227.98 — 销售量 (连接器), 2019 年; 177.78% — 销售量 (连接器), 同比增长", parts)


def test_which_is_larger_asks_each_option_and_states_the_gap(tmp_path):
    """Reliance's highlights page (issue 23, en-a-054): "Which is larger for Reliance Industries in 2021-22: its
    exports or its market capitalisation, and by how much?" -- the market capitalisation alone was quoted. Each
    option is asked for, and the gap is read off the figure each part names by its own word ("EXPORTS"), not the
    "Fortune 500" of the sentence beside it (rule 140)."""
    page = make_page(tmp_path, [
        Region((300, 30, 540, 50), GREY, "Reliance Industries Limited: Integrated Annual Report 2021-22",
               BlockKind.TITLE),
        Region((300, 58, 540, 137), GREY, "RIL is a Fortune 500 company and the largest private sector corporation "
                                          "in India."),
        Region((300, 392, 420, 407), GREY, "BY MARKET CAPITALISATION"),
        Region((300, 408, 446, 440), GREY, "₹ 17,81,841 crore", BlockKind.TITLE),
        Region((300, 480, 375, 495), GREY, "EXPORTS"),
        Region((300, 496, 428, 528), GREY, "₹ 2,54,970 crore", BlockKind.TITLE)], doc_id="ril", page_no=2)
    q = "Which is larger for Reliance Industries in 2021-22: its exports or its market capitalisation, and by how much?"
    ans = get_generator("extractive", embed=False).generate(q, [page])
    assert ans.answer.startswith("1,526,871 = 17,81,841 − 2,54,970"), ans.answer


def test_a_guidance_midpoint_is_compared_with_an_amount_in_another_scale():
    """Twilio's Q1 2024 guidance (en-a-008): "how does the midpoint of the guidance compare with Q4 2023 revenue" is
    the middle of "$1.025 billion to $1.035 billion" against "$1,076M", both in millions: $46 million (rule 161
    ``midpoint``, ``one_scale``). No gap against a percentage, nor against an amount of another currency."""
    from docrag.generation.extractive_gap import figure_of, parts_gap

    q = ("How does the midpoint of Twilio's Q1 2024 total revenue guidance compare with its actual Q4 2023 total "
         "revenue?")
    parts = ["what was the midpoint of Twilio's Q1 2024 total revenue guidance",
             "what was its actual Q4 2023 total revenue"]
    guidance = "● Total revenue: $1.025 billion to $1.035 billion, up 2% to 3% year-over-year."
    mid = figure_of(guidance, parts[0])
    assert mid is not None and (mid.number, mid.unit) == ("1.03", "$billion")
    assert parts_gap(q, [guidance, "$1,076M — Total Revenue, Q4 2023"], parts) == \
        "$46 million = $1,076 million − $1,030 million"
    assert parts_gap(q, [guidance, "5% — Total Revenue Y/Y, Q4 2023"], parts) is None
    assert parts_gap(q, [guidance, "€1,076M — Total Revenue, Q4 2023"], parts) is None   # another currency

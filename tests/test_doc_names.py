"""Which documents a question names (docrag.doc_names) and the pipeline's named-document scope."""

from __future__ import annotations

import pytest

from docrag.doc_names import DocumentNames, candidate_names, identity_text
from docrag.geometry import Box, Space
from docrag.types import Block, BlockKind, Document, Page

# identity texts as identity_text() writes them: lower case, Simplified script
_TEXTS = {
    "sifang": "zh sifang keji 2019 nianbao 江苏四方科技集团股份有限公司 2019 年年度报告",
    "hangtian": "zh hangtian dianqi 2019 nianbao 贵州航天电器股份有限公司 2019 年年度报告全文",
    "jinyu": "zh jinyu shengwu 2020 nianbao 金宇生物技术股份有限公司 2020 年年度报告",
    "paige": "zh paige shengwu 2025 nianbao 派格生物医药 2025 年年度报告",
    "twilio": "en twilio q4 2023 earnings presentation ©2023 twilio inc. all rights reserved",
    "statssa": "en statssa cpi release 2023 05 statistics south africa consumer price index cpi",
    "bls": "en bls cpi release 2025 07 bureau of labor statistics consumer price index",
    "msft": "en microsoft fy25q4 8k earnings release microsoft corporation",
    "alphabet": "en alphabet 2022 annual report alphabet inc.",
}


@pytest.fixture(scope="module")
def names() -> DocumentNames:
    return DocumentNames(_TEXTS)


def test_the_company_of_a_chinese_report_reference_names_its_report(names: DocumentNames) -> None:
    # "年度报告" is in four reports, "四方科技" in one: the most distinctive name decides
    assert names.named("四方科技2019年年度报告中，境外业务营业收入占主营业务收入的比例约为多少？") == {"sifang"}
    assert names.named("根据航天电器2019年年度报告，用归属于上市公司股东的净利润减去非经常性损益合计，得到的是多少？") \
        == {"hangtian"}


def test_a_traditional_reference_is_read_in_simplified(names: DocumentNames) -> None:
    assert names.named("根據航天電器2019年年度報告，營業收入是多少？") == {"hangtian"}


def test_english_references_possessive_owners_and_joined_words(names: DocumentNames) -> None:
    assert names.named("What share of Twilio's Q4 2023 total revenue came from the Communications business?") \
        == {"twilio"}
    # "Stats SA" is written "statssa" in the file name; "CPI" is in two documents and names neither
    assert names.named("In Stats SA's May 2023 CPI release, which group contributed most to inflation?") \
        == {"statssa"}


def test_two_companies_named_alike_are_both_searched(names: DocumentNames) -> None:
    assert names.named("In Microsoft's and Alphabet's annual reports, which company had more revenue?") \
        == {"msft", "alphabet"}


def test_no_reference_or_no_distinctive_name_names_nothing(names: DocumentNames) -> None:
    assert names.named("What was the total revenue in 2011?") == set()   # no reference phrase
    # the reference holds only words every annual report prints
    assert names.named("2019年年度报告中，营业收入是多少？") == set()
    # a company the corpus does not hold
    assert names.named("In Tesla's 2023 annual report, what was the revenue?") == set()


def test_candidate_names_skip_short_and_function_words() -> None:
    got = candidate_names("In Stats SA's May 2023 CPI release")
    assert {"stats", "statssa", "cpi", "may"} <= got
    assert "sa" not in got and "in" not in got


def test_identity_text_reads_the_first_pages_and_furniture_only() -> None:
    doc = Document(doc_id="d", file_name="zh_sifang_keji_2019.pdf", source_path="x", sha256="0", n_pages=3)
    box = Box(0, 0, 10, 10, Space.POINT, (10.0, 10.0))
    header = Block(BlockKind.TEXT, box, "江蘇四方科技 年度報告", meta={"furniture": "repeated"})
    body = Block(BlockKind.TEXT, box, "客户甲 销售额", meta={})
    pages = [Page(doc_id="d", page_no=n, width_pt=10, height_pt=10, text=f"page {n} body",
                  blocks=[header, body]) for n in (1, 2, 3)]
    text = identity_text(doc, pages)
    assert "zh sifang keji 2019 pdf" in text
    assert "page 1 body" in text and "page 2 body" in text and "page 3 body" not in text
    assert "江苏四方科技" in text          # furniture, in Simplified script
    assert "客户甲" not in text             # a body block of a later page names nothing
    mx = Document(doc_id="m", file_name="en_banxico_minutes.pdf", source_path="x", sha256="0", n_pages=1)
    cover = Page(doc_id="m", page_no=1, width_pt=10, height_pt=10, text="Banco de México", blocks=[])
    assert "banco de mexico" in identity_text(mx, [cover])   # accents folded, as a question's names are
    assert {"banco", "mexico"} <= candidate_names("Banco de México's Minutes")


# -- the pipeline's scope, on the real development corpus ---------------------------------------------------

@pytest.fixture(scope="module")
def real_corpus(dev_corpus_dir, tmp_path_factory):
    """A private copy of the ingested dev corpus (the bm25 index is written into it)."""
    import shutil

    from docrag.corpus import Corpus

    root = tmp_path_factory.mktemp("doc-scope") / "corpus"
    shutil.copytree(dev_corpus_dir, root)
    return Corpus.open(root)


_USDA_Q = "In the USDA weekly ag energy report, what were the figures for 2011?"


@pytest.mark.real_corpus
@pytest.mark.parametrize("ask_many", [False, True])
def test_a_question_naming_its_report_searches_that_report_only(real_corpus, ask_many: bool) -> None:
    from docrag.config import Settings
    from docrag.pipeline import RAG

    names = {d.doc_id: d.file_name for d in real_corpus.documents()}
    scoped = RAG(real_corpus, "bm25", "extractive", show_progress=False, settings=Settings())
    usda = {d for d, f in names.items() if f.startswith("usda_")}
    assert scoped.named(_USDA_Q) == usda
    answer = scoped.ask_many([_USDA_Q], k=5)[0] if ask_many else scoped.ask(_USDA_Q, k=5)
    assert answer.hits and {h.doc_id for h in answer.hits} == usda
    assert answer.meta["named_documents"] == [names[d] for d in usda]
    # the same question over every document: "2011" pulls in other reports' pages
    unscoped = RAG(real_corpus, "bm25", "extractive", show_progress=False, settings=Settings(scope="off"))
    assert unscoped.named(_USDA_Q) == set()
    assert {h.doc_id for h in unscoped.retrieve(_USDA_Q, k=5)} - usda
    assert "named_documents" not in unscoped.ask(_USDA_Q, k=5).meta
    # a question naming no report searches them all
    assert scoped.named("What were the figures for 2011?") == set()


def test_a_name_said_anywhere_in_an_english_question_names_the_report_titled_with_it() -> None:
    """No reference phrase ("What share ... did Apple return ...?"): a capitalised name of the question that the
    report's file name or title holds names it; a name only somewhere in a report's first pages does not
    ("Settlement" on the cover of one earnings release), nor does the question's first word."""
    texts = {**_TEXTS, "apple": "en apple q1fy23 condensed financial statements apple inc.",
             "kroger": "en kroger q2 2023 earnings release the kroger co. opioid settlement charge"}
    titles = {d: " ".join(t.split()[:6]) for d, t in texts.items()}
    titles["kroger"] = "en kroger q2 2023 earnings release"
    names = DocumentNames(texts, titles)
    assert names.named("What share of its Q1 fiscal 2023 net income did Apple return to shareholders?") == {"apple"}
    assert names.named("What did the Board decide about the Settlement balances?") == set()
    assert names.named("Apple and pears: which grew?") == set()
    assert names.named("What did the Bureau report about the CPI?") == set()   # "cpi": two titles hold it
    assert DocumentNames(texts).named("How much did Apple spend on repurchases?") == set()   # no titles read



def test_accents_particles_and_numbered_documents_name_their_report() -> None:
    """Banco de México's minutes (en-d-018): the question types "Mexico's" unaccented, the owner is "Banco de México",
    and the reference ends "Minutes number 94"; unread, "Mexico" named three other reports (a tax table, a
    minerals summary and a letter mentioning Mexico) and the minutes' pages were never searched."""
    from docrag.generation.extractive_score import document_reference

    texts = {**_TEXTS, "banxico": "en banxico minutes 94 2022 08 banco de mexico minutes number 94 governing board",
             "acciona": "en acciona sustainability report 2020 country by country tax mexico spain chile",
             "usgs": "usgs mcs2011 abrasives imports for consumption canada china mexico",
             "rba": "en rba board minutes 2023 09 reserve bank of australia minutes of the monetary policy meeting"}
    titles = {d: " ".join(t.split()[:6]) for d, t in texts.items()}
    names = DocumentNames(texts, titles)
    q = "According to Table 1 of Banco de México's Minutes number 94, what were Mexico's core inflation rates?"
    assert document_reference(q)[1].startswith("Banco de México's Minutes number 94")
    assert names.named(q) == {"banxico"}
    assert names.named("Which CPI component in Banco de México's Table 1 rose most?") == {"banxico"}
    # "Board" is in one title (the RBA's), but the minutes of Banco de México hold more of the question's names: no
    # name alone scopes the search; the number does (rule 214: "Minutes number 94" is printed on its first page)
    assert names.named("Who attended the Banco de México Governing Board meeting of Minutes number 94?") == {"banxico"}
    assert names.named("Who attended the Banco de México Governing Board meeting in August 2022?") == set()


def test_a_chinese_question_without_a_reference_is_named_by_its_first_four_characters() -> None:
    """``leading_name``: "海翔药业2019年第四季度…" names the one report holding "海翔药业" (zh-d-002 had read 华锦股份's
    quarterly table); a start two reports hold ("浙商证券" of two broker notes) names neither, and no longer start
    is tried (a longer start named the wrong one of two such notes on every kept question it scoped)."""
    texts = {**_TEXTS, "haixiang": "zh haixiang yaoye 2019 nianbao 浙江海翔药业股份有限公司 2019 年年度报告",
             "huajin": "zh huajin gufen 2019 nianbao 北方华锦化学工业股份有限公司 2019 年年度报告",
             "zs1": "zh zheshang jingu 浙商证券 金股 数据库", "zs2": "zh zheshang celue 浙商证券 策略 周报"}
    names = DocumentNames(texts)
    assert names.named("海翔药业2019年第四季度的营业收入是多少？") == {"haixiang"}
    assert names.named("在海翔药业2019年占营业收入10%以上的产品中，哪个产品的毛利率最高？") == {"haixiang"}
    assert names.named("航天电器2019年连接器的销售量是多少？同比增长多少？") == {"hangtian"}
    assert names.named("浙商证券金股数据库中，哪只股票收益最高？") == set()
    assert names.named("2019年营业收入最高的是哪家公司？") == set()


def test_a_word_of_a_longer_name_names_no_report_that_lacks_the_rest() -> None:
    """Kroger's release prints "Express"; American Express's 10-K extract opens on its tables and never prints its
    own name: "American Express's" names neither (searched everywhere). A name running past the reference
    ("Alphabet Class A" of the owner "Alphabet") still names its report."""
    names = DocumentNames({**_TEXTS, "kroger": "en kroger q2 2023 earnings release kroger express pickup",
                           "amex": "en amex 2022 10k table 1 summary of financial performance"})
    assert names.named("What was American Express's average fee per card in 2022?") == set()
    assert names.named("How many Kroger Express stores did Kroger's release count?") == {"kroger"}
    assert names.named("What peak value did a $100 investment in Alphabet Class A stock reach, per "
                       "Alphabet's annual report?") == {"alphabet"}

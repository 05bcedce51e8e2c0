"""The generated report pairs of the ``fresh7`` split (imported by ``build_fresh7.py``).

Both from the ISO code lists shipped by Debian's ``iso-codes`` 4.15.0 (LGPL-2.1+):

* ``currencies_{en,zh}.pdf``: two pages each, same layout in both languages, from ``iso_4217.json`` (181 currency
  codes): counts in prose, Table 1 of the eight words most often found in currency names (Dollar, Franc, ...:
  currencies, share, example code), a note, on page 2 a vector bar chart of each word's share of all currencies
  with data labels and a caption, Table 2 the codes beginning with X for metals, shared currencies and units of
  account (code, number, name; Chinese names translated by the script: the package's ``zh_CN`` catalog
  mistranslates several of them), a source note.
* ``formercc_{en,zh}.pdf``: two pages each, from ``iso_3166-3.json`` (31 former country names withdrawn from
  ISO 3166-1): counts in prose, Table 1 of the names by decade of withdrawal (withdrawn, with a numeric code,
  share), a note, on page 2 a vector bar chart of each decade's share with data labels and a caption, Table 2 the
  names withdrawn since 1990 (four-letter code, name with the date withdrawn; Chinese names from the package's ``zh_CN``
  catalog ``iso_3166-3.mo``), a source note.

Gold answers are computed from the data as printed (rounded as on the page before any arithmetic); gold
boxes are where the evidence is drawn.
"""

from __future__ import annotations

import collections
import gettext
import re
from pathlib import Path

from build import numbered
from build_fresh import FreshDoc
from build_fresh5_report import _json

SPLIT = "fresh7"
ISO = Path("/usr/share/iso-codes/json")
MO = Path("/usr/share/locale/zh_CN/LC_MESSAGES/iso_3166-3.mo")
STAMP = "iso-codes 4.15.0"
WORDS = [("Dollar", "元"), ("Franc", "法郎"), ("Peso", "比索"), ("Pound", "镑"), ("Dinar", "第纳尔"),
         ("Rupee", "卢比"), ("Rial", "里亚尔"), ("Shilling", "先令")]
X_ZH = {"XAF": "CFA 法郎 BEAC", "XAG": "银", "XAU": "金", "XCD": "东加勒比元", "XDR": "特别提款权（SDR）",
        "XOF": "CFA 法郎 BCEAO", "XPD": "钯", "XPF": "CFP 法郎", "XPT": "铂", "XSU": "苏克雷",
        "XUA": "非洲开发银行记账单位"}


def currency_report(lang: str) -> list[dict]:
    zh = lang == "zh"
    cur = _json("iso_4217.json", "4217")
    t = (lambda en, cn: cn if zh else en)  # noqa: E731
    f2 = lambda v: f"{v:.2f}"  # noqa: E731
    n = len(cur)
    xs = [c for c in cur if c["alpha_3"].startswith("X")]
    listed = [c for c in xs if not c["name"].startswith("Bond Markets") and c["alpha_3"] not in ("XTS", "XXX")]
    fam = {w: [c for c in cur if re.search(rf"\b{w}\b", c["name"])] for w, _ in WORDS}
    share = {w: round(100 * len(fam[w]) / n, 2) for w, _ in WORDS}
    in_fam = sum(len(v) for v in fam.values())
    label = {w: t(w, f"{w}（{cn}）") for w, cn in WORDS}

    name = f"currencies_{lang}"
    d = FreshDoc(name, t("Currency codes of ISO 4217", "ISO 4217 货币代码"),
                 t("Currencies - ISO 4217 summary", "货币 - ISO 4217 概况"), zh, STAMP)
    d.new_page()
    d.y = 70.0
    d.heading(t("The currency codes of ISO 4217", "ISO 4217 的货币代码"))
    b_n = d.para(t(f"ISO 4217 gives {n} currencies and funds a three-letter code and a three-digit number. {len(xs)} "
                   "of the codes begin with the letter X: they belong to no single country and stand for precious "
                   "metals, units of account, shared currencies such as the CFA franc, and codes for testing or "
                   f"for transactions without a currency. {in_fam} currency names contain one of the eight words "
                   "of Table 1.",
                   f"ISO 4217 为{n}种货币和资金分配了三字母代码和三位数字编号。其中{len(xs)}个代码以字母 X 开头："
                   "它们不属于某一个国家，代表贵金属、记账单位、CFA 法郎等共用货币，以及用于测试或不涉及货币的交易的"
                   f"代码。有{in_fam}种货币的名称含有表1中八个词之一。"))
    tab = d.table(t("Table 1. Words most often found in currency names", "表1 货币名称中最常见的词"),
                  [t("Word in the name", "名称中的词"), t("Currencies", "货币数"), t("Share (%)", "占比（%）"),
                   t("Example code", "代码示例")],
                  [[label[w], str(len(fam[w])), f2(share[w]), fam[w][0]["alpha_3"]] for w, _ in WORDS])
    d.para(t("A currency is counted under a word when its English name in ISO 4217 contains that word, as in "
             "Australian Dollar or Swiss Franc. Rial and Riyal are counted apart; funds such as the US Dollar "
             "(Next day) count as currencies.",
             "货币的 ISO 4217 英文名称含有某个词时（例如 Australian Dollar 澳大利亚元、Swiss Franc 瑞士法郎），"
             "该货币计入这个词。Rial 与 Riyal 分开计算；美元（次日）等资金也计为货币。"))
    d.new_page()
    d.y = 70.0
    d.heading(t("Currency names and codes beginning with X", "货币名称与以 X 开头的代码"))
    b_chart = d.bars(t("Figure 1. Share of all ISO 4217 currencies by word in the name (%)",
                       "图1 名称含各词的货币占全部 ISO 4217 货币的比例（%）"),
                     [t(w, cn) for w, cn in WORDS], [share[w] for w, _ in WORDS], "%")
    tab2 = d.table(t("Table 2. Codes beginning with X for metals, shared currencies and units of account",
                     "表2 以 X 开头的贵金属、共用货币和记账单位代码"),
                   [t("Code", "代码"), t("Number", "编号"), t("Name", "名称")],
                   [[c["alpha_3"], c["numeric"], t(c["name"], X_ZH[c["alpha_3"]])] for c in listed], 9)
    d.para(t(f"Source: iso_4217.json of the iso-codes package ({STAMP} as shipped by Debian; LGPL-2.1+).",
             f"资料来源：iso-codes 软件包的 iso_4217.json（Debian 发布的 {STAMP}；LGPL-2.1+）。"), 9)
    doc = d.save()
    r1 = {w: row for (w, _), row in zip(WORDS, tab["rows"][1:], strict=True)}
    r2 = {c["alpha_3"]: row for c, row in zip(listed, tab2["rows"][1:], strict=True)}
    num = {c["alpha_3"]: c["numeric"] for c in cur}
    most = max((w for w, _ in WORDS), key=lambda w: len(fam[w]))
    diff = len(fam["Dollar"]) - len(fam["Franc"])
    qs = {"en": ["How many ISO 4217 codes begin with the letter X?",
                 "How many currencies have the word Dinar in their name?",
                 "Which word is found in the names of the most currencies?",
                 "How many more currency names contain Dollar than contain Franc?",
                 "What is the ISO 4217 number of gold?",
                 "Which three-letter code stands for the Special Drawing Right?",
                 "What share of all currencies have Pound in their name, according to Figure 1?",
                 "How many currencies and funds have an ISO 4217 code, and what is the number of silver?"],
          "zh": ["有多少个 ISO 4217 代码以字母 X 开头？",
                 "名称中含有 Dinar（第纳尔）一词的货币有多少种？",
                 "哪个词出现在最多货币的名称中？",
                 "名称含 Dollar 的货币比名称含 Franc 的货币多多少种？",
                 "黄金（金）的 ISO 4217 编号是多少？",
                 "特别提款权用哪个三字母代码表示？",
                 "根据图1，名称含 Pound（镑）的货币占全部货币的比例是多少？",
                 "共有多少种货币和资金拥有 ISO 4217 代码？银的编号是多少？"]}[lang]
    golds = [(str(len(xs)), [str(len(xs))], "text", [(1, b_n)]),
             (str(len(fam["Dinar"])), [str(len(fam["Dinar"]))], "table", [(1, r1["Dinar"])]),
             (f"{label[most]} ({len(fam[most])})" if not zh else f"{label[most]}，{len(fam[most])}种", [most], "table",
              [(1, r1[most])]),
             (f"{diff} ({len(fam['Dollar'])} - {len(fam['Franc'])})", [str(diff)], "table",
              [(1, r1["Dollar"]), (1, r1["Franc"])]),
             (num["XAU"], [num["XAU"]], "table", [(2, r2["XAU"])]),
             ("XDR", ["XDR"], "table", [(2, r2["XDR"])]),
             (f"{f2(share['Pound'])}%", [f2(share["Pound"])], "chart", [(2, b_chart)]),
             (t(f"{n}; {num['XAG']}", f"{n}种；{num['XAG']}"), [num["XAG"]], "multi_page",
              [(1, b_n), (2, r2["XAG"])])]
    return numbered(golds, qs, doc, name, lang, SPLIT)


def former_report(lang: str) -> list[dict]:
    zh = lang == "zh"
    old = _json("iso_3166-3.json", "3166-3")
    cat = gettext.GNUTranslations(MO.open("rb"))
    t = (lambda en, cn: cn if zh else en)  # noqa: E731
    f2 = lambda v: f"{v:.2f}"  # noqa: E731
    n = len(old)
    year = {c["alpha_4"]: int(c["withdrawal_date"][:4]) for c in old}
    no_num = sum("numeric" not in c for c in old)
    commented = sum("comment" in c for c in old)
    decades = sorted({y // 10 * 10 for y in year.values()})
    per = collections.Counter(y // 10 * 10 for y in year.values())
    with_num = collections.Counter(year[c["alpha_4"]] // 10 * 10 for c in old if "numeric" in c)
    share = {dd: round(100 * per[dd] / n, 2) for dd in decades}
    dlab = {dd: t(f"{dd}s", f"{dd}年代") for dd in decades}
    since = sorted((c for c in old if year[c["alpha_4"]] >= 1990), key=lambda c: c["withdrawal_date"])

    name = f"formercc_{lang}"
    d = FreshDoc(name, t("Former country names of ISO 3166-3", "ISO 3166-3 前国家名称"),
                 t("Former Countries - ISO 3166-3 summary", "前国家 - ISO 3166-3 概况"), zh, STAMP)
    d.new_page()
    d.y = 70.0
    d.heading(t("Country names withdrawn from ISO 3166-1", "从 ISO 3166-1 中撤销的国家名称"))
    b_n = d.para(t(f"ISO 3166-3 keeps {n} country names that have been withdrawn from ISO 3166-1 since it was first "
                   f"published in 1974, each with a four-letter code. {no_num} of them never had a numeric code, and "
                   f"{commented} carry a comment, such as a note on how the territory was split up.",
                   f"ISO 3166-3 保存了自 ISO 3166-1 于1974年首次发布以来被撤销的{n}个国家名称，每个名称都有一个四字母"
                   f"代码。其中{no_num}个名称从未有过数字代码，{commented}个名称附有注释，例如说明该地区如何被分割。"))
    tab = d.table(t("Table 1. Names withdrawn by decade", "表1 各年代撤销的名称数"),
                  [t("Decade", "年代"), t("Names withdrawn", "撤销的名称数"), t("With a numeric code", "有数字代码的"),
                   t("Share (%)", "占比（%）")],
                  [[dlab[dd], str(per[dd]), str(with_num[dd]), f2(share[dd])] for dd in decades])
    d.para(t("The four-letter code of a former country is its old two-letter code followed by two letters for "
             "what replaced it, such as DDDE for the German Democratic Republic, now part of Germany (DE); HH "
             "stands for a territory without a single successor.",
             "前国家的四字母代码由原来的两字母代码加上表示其继承者的两个字母组成，例如德意志民主共和国的 DDDE，"
             "该国现为德国（DE）的一部分；HH 表示没有单一继承者的地区。"))
    d.new_page()
    d.y = 70.0
    d.heading(t("Withdrawals by decade and since 1990", "各年代与1990年以来的撤销"))
    b_chart = d.bars(t("Figure 1. Share of all former country names withdrawn in each decade (%)",
                       "图1 各年代撤销的名称占全部前国家名称的比例（%）"),
                     [dlab[dd] for dd in decades], [share[dd] for dd in decades], "%")
    tab2 = d.table(t("Table 2. Names withdrawn since 1990", "表2 1990年以来撤销的名称"),
                   [t("Code", "代码"), t("Former name (date withdrawn)", "原名称（撤销日期）")],
                   [[c["alpha_4"], t(f"{c['name']} ({c['withdrawal_date']})",
                                     f"{cat.gettext(c['name'])}（{c['withdrawal_date']}）")] for c in since], 9)
    d.para(t(f"Source: iso_3166-3.json of the iso-codes package ({STAMP} as shipped by Debian; LGPL-2.1+); Chinese "
             "names from its zh_CN message catalog.",
             f"资料来源：iso-codes 软件包的 iso_3166-3.json（Debian 发布的 {STAMP}；LGPL-2.1+），中文名称取自其 "
             "zh_CN 消息目录。"), 9)
    doc = d.save()
    r1 = {dd: row for dd, row in zip(decades, tab["rows"][1:], strict=True)}
    r2 = {c["alpha_4"]: row for c, row in zip(since, tab2["rows"][1:], strict=True)}
    by = {c["alpha_4"]: c for c in old}
    most = max(decades, key=lambda dd: per[dd])
    diff = per[1980] - per[1990]
    qs = {"en": ["How many of the former country names never had a numeric code?",
                 "How many country names were withdrawn in the 1970s?",
                 "In which decade were the most country names withdrawn?",
                 "How many more names were withdrawn in the 1980s than in the 1990s?",
                 "On what date was the German Democratic Republic withdrawn?",
                 "What was the four-letter code of Czechoslovakia?",
                 "What share of all former country names were withdrawn in the 1990s, according to Figure 1?",
                 "How many former country names does ISO 3166-3 keep, and on what date was East Timor withdrawn?"],
          "zh": ["前国家名称中有多少个从未有过数字代码？",
                 "1970年代撤销了多少个国家名称？",
                 "哪个年代撤销的国家名称最多？",
                 "1980年代撤销的名称比1990年代多多少个？",
                 "德意志民主共和国是在哪一天被撤销的？",
                 "捷克斯洛伐克的四字母代码是什么？",
                 "根据图1，1990年代撤销的名称占全部前国家名称的比例是多少？",
                 "ISO 3166-3 保存了多少个前国家名称？东帝汶是在哪一天被撤销的？"]}[lang]
    golds = [(str(no_num), [str(no_num)], "text", [(1, b_n)]),
             (str(per[1970]), [str(per[1970])], "table", [(1, r1[1970])]),
             (f"{dlab[most]} ({per[most]})" if not zh else f"{dlab[most]}（{per[most]}个）", [dlab[most]], "table",
              [(1, r1[most])]),
             (f"{diff} ({per[1980]} - {per[1990]})", [str(diff)], "table", [(1, r1[1980]), (1, r1[1990])]),
             (by["DDDE"]["withdrawal_date"], [by["DDDE"]["withdrawal_date"]], "table", [(2, r2["DDDE"])]),
             ("CSHH", ["CSHH"], "table", [(2, r2["CSHH"])]),
             (f"{f2(share[1990])}%", [f2(share[1990])], "chart", [(2, b_chart)]),
             (t(f"{n}; {by['TPTL']['withdrawal_date']}", f"{n}个；{by['TPTL']['withdrawal_date']}"),
              [by["TPTL"]["withdrawal_date"]], "multi_page", [(1, b_n), (2, r2["TPTL"])])]
    return numbered(golds, qs, doc, name, lang, SPLIT)

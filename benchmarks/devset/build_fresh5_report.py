"""The generated report pairs of the ``fresh5`` split (imported by ``build_fresh5.py``).

Both from the ISO code lists shipped by Debian's ``iso-codes`` 4.15.0 (LGPL-2.1+), English names from
``/usr/share/iso-codes/json`` and Chinese country names from its ``zh_CN`` message catalog (``gettext``):

* ``iso639_{en,zh}.pdf``: two pages each, same layout in both languages, from ``iso_639-3.json`` (7,910
  language codes): counts in prose, Table 1 a CROSS TABLE of the codes by language type (rows) and scope
  (columns: individual language / macrolanguage / special, and a total; Chinese 个体语言 / 宏语言 share
  characters) with a note defining the types, on page 2 a vector bar chart of each type's share of all codes
  with data labels and a caption, Table 2 of the eight initial letters with the most codes, a source note.
* ``subdiv_{en,zh}.pdf``: two pages each, from ``iso_3166-2.json`` and ``iso_3166-1.json``: counts in prose,
  Table 1 of the ten countries with the most subdivisions (subdivisions, kinds of subdivision, subdivisions
  under a parent), on page 2 a vector bar chart of the five most common kinds of subdivision (share of all
  subdivisions) with data labels and a caption, Table 2 a DISTRIBUTION (countries by number of subdivisions,
  in five bands) and a source note.

Gold answers are computed from the data as printed (rounded as on the page before any arithmetic); gold
boxes are where the evidence is drawn.
"""

from __future__ import annotations

import collections
import gettext
import json
from pathlib import Path

from build import numbered
from build_fresh import FreshDoc

SPLIT = "fresh5"
ISO = Path("/usr/share/iso-codes/json")
STAMP = "iso-codes 4.15.0"
TYPES = [("L", "Living", "现存语言"), ("E", "Extinct", "灭绝语言"), ("A", "Ancient", "古代语言"),
         ("H", "Historical", "历史语言"), ("C", "Constructed", "人造语言"), ("S", "Special", "特殊代码")]
KINDS_ZH = {"Province": "省", "District": "区", "Municipality": "市镇", "Region": "大区", "State": "州"}


def _json(name: str, key: str) -> list[dict]:
    return json.loads((ISO / name).read_text(encoding="utf-8"))[key]


def iso639_report(lang: str) -> list[dict]:
    zh = lang == "zh"
    codes = _json("iso_639-3.json", "639-3")
    t = (lambda en, cn: cn if zh else en)  # noqa: E731
    f2 = lambda v: f"{v:.2f}"  # noqa: E731
    n = len(codes)
    two = sum("alpha_2" in c for c in codes)
    biblio = sum("bibliographic" in c for c in codes)
    cross = collections.Counter((c["type"], c["scope"]) for c in codes)
    total = {ty: sum(v for (a, _), v in cross.items() if a == ty) for ty, _, _ in TYPES}
    share = {ty: round(100 * total[ty] / n, 2) for ty, _, _ in TYPES}
    letters = collections.Counter(c["alpha_3"][0] for c in codes)
    top = sorted(letters, key=lambda k: (-letters[k], k))[:8]

    name = f"iso639_{lang}"
    d = FreshDoc(name, t("Language codes of ISO 639-3", "ISO 639-3 语言代码"),
                 t("Language Codes - ISO 639-3 summary", "语言代码 - ISO 639-3 概况"), zh, STAMP)
    d.new_page()
    d.y = 70.0
    d.heading(t("The languages of ISO 639-3 by type and scope", "ISO 639-3 中的语言（按类型和范围）"))
    b_n = d.para(t(f"ISO 639-3 assigns a three-letter code to {n:,} languages. {two} of them also have a "
                   f"two-letter code from ISO 639-1, and {biblio} have a separate bibliographic code from "
                   "ISO 639-2.",
                   f"ISO 639-3 为{n}种语言分配了三字母代码。其中{two}种语言还有 ISO 639-1 的两字母代码，"
                   f"{biblio}种语言另有 ISO 639-2 的文献代码。"))
    scopes = [("I", t("Individual", "个体语言")), ("M", t("Macrolanguage", "宏语言")), ("S", t("Special", "特殊"))]
    tab = d.table(t("Table 1. Codes by language type and scope", "表1 各类型和范围的代码数"),
                  [t("Type", "类型"), *(lab for _, lab in scopes), t("Total", "合计")],
                  [[t(en, cn), *(str(cross[(ty, sc)]) for sc, _ in scopes), str(total[ty])]
                   for ty, en, cn in TYPES])
    d.para(t("Living languages are spoken today; extinct languages have died out in recent centuries, ancient "
             "languages before that, and historical ones are earlier stages of a living language. Constructed "
             "languages were invented. A macrolanguage groups closely related individual languages under one "
             "code; special codes are for cases such as undetermined or multiple languages.",
             "现存语言是当今仍在使用的语言；灭绝语言在近几个世纪中消亡，古代语言消亡得更早，历史语言是某种现存语言"
             "的早期形态。人造语言是人为创造的语言。宏语言用一个代码统称若干关系密切的个体语言；特殊代码用于"
             "未确定的语言或多种语言等情形。"))
    d.new_page()
    d.y = 70.0
    d.heading(t("Share of each language type", "各类型语言所占比例"))
    b_chart = d.bars(t("Figure 1. Share of all ISO 639-3 codes by language type (%)",
                       "图1 各类型语言占全部 ISO 639-3 代码的比例（%）"),
                     [t(en, cn) for _, en, cn in TYPES], [share[ty] for ty, _, _ in TYPES], "%")
    tab2 = d.table(t("Table 2. Initial letters with the most codes", "表2 代码最多的首字母"),
                   [t("Initial letter", "首字母"), t("Codes", "代码数"), t("Share (%)", "占比（%）")],
                   [[k, str(letters[k]), f2(round(100 * letters[k] / n, 2))] for k in top])
    d.para(t(f"Source: iso_639-3.json of the iso-codes package ({STAMP} as shipped by Debian; LGPL-2.1+).",
             f"资料来源：iso-codes 软件包的 iso_639-3.json（Debian 发布的 {STAMP}；LGPL-2.1+）。"), 9)
    doc = d.save()
    r1 = {ty: row for (ty, _, _), row in zip(TYPES, tab["rows"][1:], strict=True)}
    r2 = {k: row for k, row in zip(top, tab2["rows"][1:], strict=True)}
    nonliving = max((ty for ty, _, _ in TYPES if ty != "L"), key=lambda ty: total[ty])
    nl_name = {ty: t(en, cn) for ty, en, cn in TYPES}[nonliving]
    diff = total["A"] - total["H"]
    qs = {"en": ["How many of the languages in ISO 639-3 also have a two-letter ISO 639-1 code?",
                 "How many extinct languages does ISO 639-3 list?",
                 "How many living macrolanguages have a code?",
                 "How many constructed languages have an ISO 639-3 code?",
                 "Apart from living languages, which type of language has the most codes?",
                 "How many more ancient languages than historical languages are there?",
                 "What percentage of all codes are extinct languages, according to Figure 1?",
                 "How many codes begin with the letter m?",
                 "Which initial letter do the most codes start with?",
                 "How many languages have an ISO 639-3 code in all, and how many codes begin with the letter b?"],
          "zh": ["ISO 639-3 中有多少种语言还有 ISO 639-1 的两字母代码？",
                 "ISO 639-3 列出了多少种灭绝语言？",
                 "有代码的现存宏语言有多少种？",
                 "有多少种人造语言拥有 ISO 639-3 代码？",
                 "除现存语言外，哪种类型的语言代码最多？",
                 "古代语言比历史语言多多少种？",
                 "根据图1，灭绝语言占全部代码的百分比是多少？",
                 "以字母 m 开头的代码有多少个？",
                 "以哪个首字母开头的代码最多？",
                 "共有多少种语言拥有 ISO 639-3 代码？以字母 b 开头的代码有多少个？"]}[lang]
    golds = [(str(two), [str(two)], "text", [(1, b_n)]),
             (str(total["E"]), [str(total["E"])], "table", [(1, r1["E"])]),
             (str(cross[("L", "M")]), [str(cross[("L", "M")])], "table", [(1, r1["L"])]),
             (str(total["C"]), [str(total["C"])], "table", [(1, r1["C"])]),
             (f"{nl_name} ({total[nonliving]})" if not zh else f"{nl_name}（{total[nonliving]}种）", [nl_name],
              "table", [(1, r1[nonliving])]),
             (f"{diff} ({total['A']} - {total['H']})", [str(diff)], "table", [(1, r1["A"]), (1, r1["H"])]),
             (f"{f2(share['E'])}%", [f2(share["E"])], "chart", [(2, b_chart)]),
             (str(letters["m"]), [str(letters["m"])], "table", [(2, r2["m"])]),
             (f"{top[0]} ({letters[top[0]]})" if not zh else f"{top[0]}（{letters[top[0]]}个）", [top[0]], "table",
              [(2, r2[top[0]])]),
             (t(f"{n:,}; {letters['b']}", f"{n}种；{letters['b']}个"), [str(letters["b"])], "multi_page",
              [(1, b_n), (2, r2["b"])])]
    return numbered(golds, qs, doc, name, lang, SPLIT)


def _band(v: int) -> int:
    return 0 if v < 10 else 1 if v < 20 else 2 if v < 50 else 3 if v < 100 else 4


def subdiv_report(lang: str) -> list[dict]:
    zh = lang == "zh"
    subs = _json("iso_3166-2.json", "3166-2")
    countries = {c["alpha_2"]: c["name"] for c in _json("iso_3166-1.json", "3166-1")}
    tr = gettext.translation("iso_3166-1", "/usr/share/locale", ["zh_CN"]).gettext
    t = (lambda en, cn: cn if zh else en)  # noqa: E731
    f2 = lambda v: f"{v:.2f}"  # noqa: E731
    n = len(subs)
    by = collections.defaultdict(list)
    for s in subs:
        by[s["code"][:2]].append(s)
    under = sum("parent" in s for s in subs)
    top = sorted(by, key=lambda c: (-len(by[c]), c))[:10]
    t1 = {c: [len(by[c]), len({s["type"] for s in by[c]}), sum("parent" in s for s in by[c])] for c in top}
    kinds = collections.Counter(s["type"] for s in subs)
    top_kinds = [k for k, _ in kinds.most_common(5)]
    kshare = {k: round(100 * kinds[k] / n, 2) for k in top_kinds}
    bands = collections.Counter(_band(len(v)) for v in by.values())
    band_lab = [t("Fewer than 10", "少于10个"), t("10 to 19", "10至19个"), t("20 to 49", "20至49个"),
                t("50 to 99", "50至99个"), t("100 or more", "100个及以上")]
    cname = {c: t(countries[c], tr(countries[c])) for c in top}

    name = f"subdiv_{lang}"
    d = FreshDoc(name, t("Country subdivisions in ISO 3166-2", "ISO 3166-2 国家行政区划"),
                 t("Country Subdivisions - ISO 3166-2 summary", "国家行政区划 - ISO 3166-2 概况"), zh, STAMP)
    d.new_page()
    d.y = 70.0
    d.heading(t("Subdivision codes of ISO 3166-2", "ISO 3166-2 行政区划代码"))
    b_n = d.para(t(f"ISO 3166-2 lists {n:,} subdivision codes for {len(by)} of the {len(countries)} countries and "
                   f"territories of ISO 3166-1. {under:,} of these subdivisions lie within another, larger "
                   "subdivision of the same country.",
                   f"ISO 3166-2 为 ISO 3166-1 的{len(countries)}个国家和地区中的{len(by)}个列出了{n}个行政区划"
                   f"代码。其中{under}个行政区划位于同一国家另一个更大的行政区划之内。"))
    tab = d.table(t("Table 1. Countries with the most subdivisions", "表1 行政区划最多的国家"),
                  [t("Country", "国家"), t("Code", "代码"), t("Subdivisions", "行政区划数"),
                   t("Kinds", "区划类型数"), t("Under a parent", "有上级区划数")],
                  [[cname[c], c, *(str(v) for v in t1[c])] for c in top])
    d.para(t("Kinds counts the different kinds of subdivision a country has, such as regions and provinces. "
             "Under a parent counts the subdivisions that lie within a larger subdivision.",
             "区划类型数为该国行政区划的种类数，例如大区和省。有上级区划数为位于更大行政区划之内的区划个数。"))
    d.new_page()
    d.y = 70.0
    d.heading(t("Kinds of subdivision and countries by size", "行政区划类型与各国区划数量"))
    b_chart = d.bars(t("Figure 1. The five most common kinds of subdivision, share of all subdivisions (%)",
                       "图1 五种最常见的行政区划类型占全部区划的比例（%）"),
                     [t(k, KINDS_ZH[k]) for k in top_kinds], [kshare[k] for k in top_kinds], "%")
    tab2 = d.table(t("Table 2. Countries by number of subdivisions", "表2 按行政区划数量划分的国家数"),
                   [t("Subdivisions", "行政区划数"), t("Countries", "国家和地区数"), t("Share (%)", "占比（%）")],
                   [[lab, str(bands[i]), f2(round(100 * bands[i] / len(by), 2))] for i, lab in enumerate(band_lab)])
    d.para(t(f"Source: iso_3166-1.json and iso_3166-2.json of the iso-codes package ({STAMP} as shipped by "
             "Debian; LGPL-2.1+).",
             f"资料来源：iso-codes 软件包的 iso_3166-1.json 和 iso_3166-2.json（Debian 发布的 {STAMP}；"
             "LGPL-2.1+）。"), 9)
    doc = d.save()
    r1 = {c: row for c, row in zip(top, tab["rows"][1:], strict=True)}
    r2 = tab2["rows"][1:]
    most = top[0]
    diff = t1["SI"][0] - t1["LV"][0]
    k_most = top_kinds[0]
    qs = {"en": ["How many of the subdivisions lie within another, larger subdivision?",
                 "Which country has the most subdivisions?",
                 "How many kinds of subdivision does Italy have?",
                 "How many of France's subdivisions lie within a larger subdivision?",
                 "How many more subdivisions does Slovenia have than Latvia?",
                 "How many countries and territories have between 20 and 49 subdivisions?",
                 "What share of all subdivisions are districts, according to Figure 1?",
                 "Which kind of subdivision is the most common in Figure 1?",
                 "How many subdivision codes does ISO 3166-2 list, and how many countries have 100 or more "
                 "subdivisions?",
                 "How many subdivisions does the Philippines have, and what share of all subdivisions are regions?"],
          "zh": ["有多少个行政区划位于另一个更大的行政区划之内？",
                 "哪个国家的行政区划最多？",
                 "意大利有多少种行政区划类型？",
                 "法国有多少个行政区划位于更大的行政区划之内？",
                 "斯洛文尼亚的行政区划比拉脱维亚多多少个？",
                 "有多少个国家和地区拥有20至49个行政区划？",
                 "根据图1，“区”这一类型占全部行政区划的比例是多少？",
                 "图1中哪种行政区划类型最常见？",
                 "ISO 3166-2 共列出多少个行政区划代码？有多少个国家拥有100个及以上的行政区划？",
                 "菲律宾有多少个行政区划？“大区”这一类型占全部行政区划的比例是多少？"]}[lang]
    golds = [(t(f"{under:,}", str(under)), [t(f"{under:,}", str(under))], "text", [(1, b_n)]),
             (f"{cname[most]} ({t1[most][0]})" if not zh else f"{cname[most]}（{t1[most][0]}个）", [cname[most]],
              "table", [(1, r1[most])]),
             (str(t1["IT"][1]), [str(t1["IT"][1])], "table", [(1, r1["IT"])]),
             (str(t1["FR"][2]), [str(t1["FR"][2])], "table", [(1, r1["FR"])]),
             (f"{diff} ({t1['SI'][0]} - {t1['LV'][0]})", [str(diff)], "table", [(1, r1["SI"]), (1, r1["LV"])]),
             (str(bands[2]), [str(bands[2])], "table", [(2, r2[2])]),
             (f"{f2(kshare['District'])}%", [f2(kshare["District"])], "chart", [(2, b_chart)]),
             (t(f"{k_most} ({f2(kshare[k_most])}%)", f"{KINDS_ZH[k_most]}（{f2(kshare[k_most])}%）"),
              [t(k_most, KINDS_ZH[k_most])], "chart", [(2, b_chart)]),
             (t(f"{n:,}; {bands[4]}", f"{n}个；{bands[4]}个"), [str(bands[4])], "multi_page", [(1, b_n), (2, r2[4])]),
             (t(f"{t1['PH'][0]}; {f2(kshare['Region'])}%", f"{t1['PH'][0]}个；{f2(kshare['Region'])}%"),
              [f2(kshare["Region"])], "multi_page", [(1, r1["PH"]), (2, b_chart)])]
    return numbered(golds, qs, doc, name, lang, SPLIT)

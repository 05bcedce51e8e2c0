"""The generated report pair of the ``fresh9`` split (imported by ``build_fresh9.py``).

From the ISO 639-5 language family codes shipped by Debian's ``iso-codes`` 4.15.0 (LGPL-2.1+):

* ``iso639_5_{en,zh}.pdf``: two pages each, same layout in both languages, from ``iso_639-5.json`` (115 codes) and
  ``iso_639-2.json`` (which of them are also ISO 639-2 codes): counts in prose, Table 1 of the codes by the band of
  their first letter (codes, also in ISO 639-2, share, example code), a note, on page 2 a vector bar chart of each
  band's share with data labels and a caption, Table 2 the families whose English name begins with a compass point
  or Central/Eastern/Western (code, name, also in ISO 639-2; Chinese names translated by the script: the package has
  no ``zh_CN`` catalog for ISO 639-5), a source note.

Gold answers are computed from the data as printed (rounded as on the page before any arithmetic); gold
boxes are where the evidence is drawn.
"""

from __future__ import annotations

import re

from build import numbered
from build_fresh import FreshDoc
from build_fresh5_report import _json

SPLIT = "fresh9"
STAMP = "iso-codes 4.15.0"
BANDS = ["a-e", "f-j", "k-o", "p-t", "u-z"]
DIRECTION = re.compile(r"^(East|North|South|West|Central|Eastern|Western) ")
NAME_ZH = {"cai": "中美洲印第安诸语言", "ccn": "北高加索诸语言", "ccs": "南高加索诸语言", "csu": "中苏丹诸语言",
           "gme": "东日耳曼诸语言", "gmq": "北日耳曼诸语言", "gmw": "西日耳曼诸语言", "nai": "北美印第安诸语言",
           "plf": "中马来-波利尼西亚诸语言", "pqe": "东马来-波利尼西亚诸语言", "pqw": "西马来-波利尼西亚诸语言",
           "sai": "南美印第安诸语言", "sdv": "东苏丹诸语言", "zle": "东斯拉夫诸语言", "zls": "南斯拉夫诸语言",
           "zlw": "西斯拉夫诸语言"}


def _band(code: str) -> str:
    return next(b for b in BANDS if b[0] <= code[0] <= b[-1])


def iso639_5_report(lang: str) -> list[dict]:
    zh = lang == "zh"
    codes = _json("iso_639-5.json", "639-5")
    in2 = {c["alpha_3"] for c in _json("iso_639-2.json", "639-2")}
    t = (lambda en, cn: cn if zh else en)  # noqa: E731
    f2 = lambda v: f"{v:.2f}"  # noqa: E731
    yes = lambda c: t("Yes", "是") if c["alpha_3"] in in2 else t("No", "否")  # noqa: E731
    n = len(codes)
    n2 = sum(c["alpha_3"] in in2 for c in codes)
    fam = [c for c in codes if c["name"].endswith("(family)")]
    by_band = {b: [c for c in codes if _band(c["alpha_3"]) == b] for b in BANDS}
    assert sum(len(v) for v in by_band.values()) == n
    share = {b: round(100 * len(by_band[b]) / n, 2) for b in BANDS}
    band2 = {b: sum(c["alpha_3"] in in2 for c in by_band[b]) for b in BANDS}
    direc = [c for c in codes if DIRECTION.match(c["name"])]
    assert set(NAME_ZH) == {c["alpha_3"] for c in direc}
    nm = {c["alpha_3"]: t(c["name"], NAME_ZH.get(c["alpha_3"], "")) for c in direc}

    name = f"iso639_5_{lang}"
    d = FreshDoc(name, t("Language family codes of ISO 639-5", "ISO 639-5 语系代码"),
                 t("Language families - ISO 639-5 summary", "语系 - ISO 639-5 概况"), zh, STAMP)
    d.new_page()
    d.y = 70.0
    d.heading(t("The language family codes of ISO 639-5", "ISO 639-5 的语系代码"))
    b_n = d.para(t(f"ISO 639-5 gives {n} language families and groups a three-letter code. {n2} of these codes are "
                   f"also codes of ISO 639-2, where they stand for groups of languages; the other {n - n2} are found "
                   f"in ISO 639-5 only. {len(fam)} entries are named after a single language with the word (family), "
                   "such as Basque (family) and Chinese (family).",
                   f"ISO 639-5 为{n}个语系和语言组分配了三字母代码。其中{n2}个代码同时也是 ISO 639-2 的代码，"
                   f"在 ISO 639-2 中代表语言组；其余{n - n2}个只见于 ISO 639-5。有{len(fam)}个条目以单一语言命名，"
                   "名称带有 (family)（语系）一词，例如 Basque (family)（巴斯克语系）和 Chinese (family)（汉语族）。"))
    tab = d.table(t("Table 1. ISO 639-5 codes by first letter", "表1 按首字母划分的 ISO 639-5 代码"),
                  [t("First letter", "首字母"), t("Codes", "代码数"), t("In ISO 639-2", "同为 ISO 639-2 代码"),
                   t("Share (%)", "占比（%）"), t("Example code", "代码示例")],
                  [[b, str(len(by_band[b])), str(band2[b]), f2(share[b]), by_band[b][0]["alpha_3"]] for b in BANDS])
    d.para(t("Each code is counted in the row of the first letter of its code, not of its English name: zhx "
             "(Chinese (family)) is counted under u-z. The column In ISO 639-2 counts the codes of the row "
             "that ISO 639-2 gives too.",
             "每个代码按代码本身（而不是英文名称）的首字母计入相应的行：例如 zhx（汉语族）计入 u-z 行。"
             "“同为 ISO 639-2 代码”一列统计该行中 ISO 639-2 也收录的代码数。"))
    d.new_page()
    d.y = 70.0
    d.heading(t("First letters and families named by direction", "首字母与按方位命名的语系"))
    b_chart = d.bars(t("Figure 1. Share of all ISO 639-5 codes by first letter (%)",
                       "图1 各首字母区间的代码占全部 ISO 639-5 代码的比例（%）"), BANDS, [share[b] for b in BANDS], "%")
    tab2 = d.table(t("Table 2. Families whose name begins with a direction", "表2 名称以方位开头的语系"),
                   [t("Code", "代码"), t("Family", "语系"), t("In ISO 639-2", "同为 ISO 639-2 代码")],
                   [[c["alpha_3"], nm[c["alpha_3"]], yes(c)] for c in direc], 9)
    d.para(t(f"Source: iso_639-5.json and iso_639-2.json of the iso-codes package ({STAMP} as shipped by Debian; "
             "LGPL-2.1+). Chinese names translated for this report.",
             f"资料来源：iso-codes 软件包的 iso_639-5.json 和 iso_639-2.json（Debian 发布的 {STAMP}；LGPL-2.1+）。"
             "中文名称为本报告所译。"), 9)
    doc = d.save()
    r1 = dict(zip(BANDS, tab["rows"][1:], strict=True))
    r2 = {c["alpha_3"]: row for c, row in zip(direc, tab2["rows"][1:], strict=True)}
    most = max(BANDS, key=lambda b: len(by_band[b]))
    least = min(BANDS, key=lambda b: share[b])
    assert sum(share[b] == share[least] for b in BANDS) == 1 and sum(len(by_band[b]) == len(by_band[most])
                                                                    for b in BANDS) == 1
    diff = len(by_band["a-e"]) - len(by_band["k-o"])
    qs = {"en": ["How many ISO 639-5 codes have no counterpart among the codes of ISO 639-2?",
                 "How many ISO 639-5 entries carry the word (family) after a single language's name?",
                 "How many ISO 639-5 codes begin with a letter from p to t?",
                 "Of the codes starting with a letter from a to e, how many are also ISO 639-2 codes?",
                 "Which first-letter band of Table 1 holds the most codes?",
                 "In Table 1, how many more codes begin with a-e than with k-o?",
                 "Which code does Table 1 give as its example for the letters f-j?",
                 "What is the ISO 639-5 code of the West Slavic languages?",
                 "Which language family has the code pqe?",
                 "What is the code of the Central Sudanic languages?",
                 "According to Figure 1, what percentage of all ISO 639-5 codes begin with k-o?",
                 "Which first-letter band has the smallest share of the codes in Figure 1?",
                 "How many language families and groups have an ISO 639-5 code, and what is the code of the "
                 "South Slavic languages?"],
          "zh": ["有多少个 ISO 639-5 代码在 ISO 639-2 中没有对应的代码？",
                 "有多少个 ISO 639-5 条目在单一语言名称后带有 (family)（语系）一词？",
                 "有多少个 ISO 639-5 代码以 p 到 t 之间的字母开头？",
                 "以 a 到 e 之间的字母开头的代码中，有多少个同时也是 ISO 639-2 代码？",
                 "表1中哪个首字母区间的代码最多？",
                 "在表1中，以 a-e 开头的代码比以 k-o 开头的代码多多少个？",
                 "表1为首字母 f-j 给出的示例代码是哪个？",
                 "西斯拉夫诸语言的 ISO 639-5 代码是什么？",
                 "代码为 pqe 的是哪个语系？",
                 "中苏丹诸语言的代码是什么？",
                 "根据图1，以 k-o 开头的代码占全部 ISO 639-5 代码的百分之多少？",
                 "在图1中，哪个首字母区间的代码所占比例最小？",
                 "共有多少个语系和语言组拥有 ISO 639-5 代码？南斯拉夫诸语言的代码是什么？"]}[lang]
    golds = [(str(n - n2), [str(n - n2)], "text", [(1, b_n)]),
             (str(len(fam)), [str(len(fam))], "text", [(1, b_n)]),
             (str(len(by_band["p-t"])), [str(len(by_band["p-t"]))], "table", [(1, r1["p-t"])]),
             (str(band2["a-e"]), [str(band2["a-e"])], "table", [(1, r1["a-e"])]),
             (f"{most} ({len(by_band[most])})" if not zh else f"{most}（{len(by_band[most])}个）", [most], "table",
              [(1, r1[most])]),
             (f"{diff} ({len(by_band['a-e'])} - {len(by_band['k-o'])})", [str(diff)], "table",
              [(1, r1["a-e"]), (1, r1["k-o"])]),
             (by_band["f-j"][0]["alpha_3"], [by_band["f-j"][0]["alpha_3"]], "table", [(1, r1["f-j"])]),
             ("zlw", ["zlw"], "table", [(2, r2["zlw"])]),
             (nm["pqe"], [nm["pqe"]], "table", [(2, r2["pqe"])]),
             ("csu", ["csu"], "table", [(2, r2["csu"])]),
             (f"{f2(share['k-o'])}%", [f2(share["k-o"])], "chart", [(2, b_chart)]),
             (t(f"{least} ({f2(share[least])}%)", f"{least}（{f2(share[least])}%）"), [least], "chart", [(2, b_chart)]),
             (t(f"{n}; zls", f"{n}个；zls"), ["zls"], "multi_page", [(1, b_n), (2, r2["zls"])])]
    return numbered(golds, qs, doc, name, lang, SPLIT)

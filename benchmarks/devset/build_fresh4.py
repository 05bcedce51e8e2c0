"""The ``fresh4`` split of the dev set: a fourth parallel English/Chinese held-out set (imported by ``build.py``).

Built after the ``fresh``, ``fresh2`` and ``fresh3`` splits had been used for tuning, with the same conventions
(``build_fresh.py``, ``build_fresh3.py``), on sources used nowhere else in this repository:

* ``systemd_catalog2_{en,zh}``: ten more entries of systemd's message catalog (``systemd.catalog`` and
  ``systemd.zh_CN.catalog``; LGPL-2.1-or-later), none of the ``fresh`` split's, each present and translated
  in both files, laid out as ``build_fresh.py`` lays out the catalog;
* ``goog_{en,zh}`` and ``tzones_{en,zh}``: two-page reports generated from matplotlib's sample ``goog.npz``
  and from the tz database's ``zone.tab`` / ``iso3166.tab`` (``build_fresh4_report.py``).

Every page has a running header, a stamp and a page-number footer. Gold answers come from the source
text or data as printed; gold boxes are the blocks this script drew the evidence in (PDF points, top-left
origin). The questions and golds were committed before any generator ran on these PDFs.
"""

from __future__ import annotations

from build import q
from build_fresh import _CJK2, CATALOG, CATALOG_IDS, FreshDoc, _catalog

SPLIT = "fresh4"
CATALOG2_IDS = ["8d45620c1a4348dbb17410da57c60c66", "3354939424b4456d9802ca8333ed424a",
                "fcbefc5da23d428093f97c82a9290f7b", "e7852bfe46784ed0accde04bc864c2d5",
                "45f82f4aef7a4bbf942ce861d1f20990", "6bbd95ee977941e497c48be27c254128",
                "8811e6df2a8e40f58a94cea26f8ebf14", "641257651c1b4ec9a8624d7a40a9e1e7",
                "be02cf6855d2428ba40df7e9d022f03d", "58432bd3bace477cb514b56381b8a758"]
CATALOG2_QA = {  # (question, message id, token, answer)
    "en": [("In the message about a newly created user session, which placeholder stands for the session's "
            "leading process?", "8d45620c1a4348dbb17410da57c60c66", "@LEADER@", "@LEADER@"),
           ("What has been done to a new seat before it is reported as available?",
            "fcbefc5da23d428093f97c82a9290f7b", "configured", "it has been configured"),
           ("Once a seat has been removed, can it still be used?", "e7852bfe46784ed0accde04bc864c2d5",
            "no longer available", "No, it is no longer available"),
           ("When a process could not be executed, which placeholder gives the error number it returned?",
            "641257651c1b4ec9a8624d7a40a9e1e7", "@ERRNO@", "@ERRNO@"),
           ("When a virtual machine or container has been shut down, which process ID of it does the message "
            "give?", "58432bd3bace477cb514b56381b8a758", "PID", "its leader PID, @LEADER@")],
    "zh": [("在新用户会话建立的消息中，哪个占位符表示该会话的首进程？", "8d45620c1a4348dbb17410da57c60c66",
            "@LEADER@", "@LEADER@"),
           ("一个新的座位在报告为可用之前，已经完成了什么操作？", "fcbefc5da23d428093f97c82a9290f7b", "配置",
            "已被配置"),
           ("座位被移除后还能使用吗？", "e7852bfe46784ed0accde04bc864c2d5", "不再可用", "不能，已不再可用"),
           ("进程无法执行时，哪个占位符给出该进程返回的错误代码？", "641257651c1b4ec9a8624d7a40a9e1e7", "@ERRNO@",
            "@ERRNO@"),
           ("虚拟机或容器被关闭时，消息给出它的哪个进程 ID？", "58432bd3bace477cb514b56381b8a758", "PID",
            "其首进程 PID，@LEADER@")]}


def systemd_catalog2(lang: str) -> list[dict]:
    """Ten catalog entries the ``fresh`` split did not use, laid out as ``build_fresh.systemd_catalog`` does."""
    assert not set(CATALOG2_IDS) & set(CATALOG_IDS)
    zh = lang == "zh"
    cat = _catalog(CATALOG[lang])
    name = f"systemd_catalog2_{lang}"
    d = FreshDoc(name, "systemd message catalog: sessions, seats and jobs" if not zh
                 else "systemd 消息目录：会话、座位与作业",
                 "systemd Journal Message Catalog" if not zh else "systemd 日志消息目录", zh, "systemd 252")
    d.sect("Journal messages about sessions, seats, sleep and units" if not zh
           else "关于会话、座位、睡眠与单元的日志消息", 15)
    for mid in CATALOG2_IDS:
        subject, pars = cat[mid]
        d.sect(subject, 12)
        d.block(f"Message ID {mid}" if not zh else f"消息 ID {mid}", 8.5)
        for par in pars:
            d.block(_CJK2.sub("", par) if zh else par)
    doc = d.save()
    subj = {m: cat[m][0] for m in CATALOG2_IDS}
    return [q(doc, f"{name}-{i:02d}", question, answer, [tok], "text", lang, d.find(subj[mid], tok), SPLIT)
            for i, (question, mid, tok, answer) in enumerate(CATALOG2_QA[lang], start=1)]


UNANSWERABLE = [("What was Google's market capitalisation at the end of 2007?", "en"),
                ("What is the UTC offset of the time zones in the Australia region?", "en"),
                ("How many seats can systemd manage on one machine at most?", "en"),
                ("2007年末谷歌的市值是多少？", "zh"),
                ("澳大利亚地区各时区与 UTC 相差多少小时？", "zh"),
                ("systemd 在一台机器上最多能管理多少个座位？", "zh")]


def fresh4_records() -> list[dict]:
    """All questions of the fresh4 split (writes the six PDFs)."""
    from build_fresh4_report import goog_report, tz_report

    out = []
    for lang in ("en", "zh"):
        out += goog_report(lang) + tz_report(lang) + systemd_catalog2(lang)
    for i, (question, lang) in enumerate(UNANSWERABLE, start=1):
        out.append({"id": f"fresh4-none-{i:02d}", "question": question, "answer": "", "figures": [],
                    "category": "unanswerable", "lang": lang, "doc": "", "pages": [], "boxes": [], "split": SPLIT})
    return out

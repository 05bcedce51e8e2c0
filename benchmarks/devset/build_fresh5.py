"""The ``fresh5`` split of the dev set: a fifth parallel English/Chinese held-out set (imported by ``build.py``).

Built after the ``fresh`` to ``fresh4`` splits had been used for tuning, with the same conventions
(``build_fresh.py``, ``build_fresh2.py``, ``build_fresh3.py``), on sources used nowhere else in this repository:

* ``catman_{en,zh}``: the catman(8) manual page of man-db 2.11.2 as shipped by Debian (``/usr/share/man/man8``
  and its Simplified Chinese translation in ``/usr/share/man/zh_CN/man8``, same version 2.11.2 of 2023-01-08,
  fully translated; GPL-2+), rendered with groff and laid out as ``build_fresh2.py`` lays out a man page;
* ``vimtutor67_{en,zh}``: lessons 6.1-7.3 of the Vim tutor with the lesson 6 and 7 summaries (``tutor`` and
  ``tutor.zh_cn.utf-8`` of Debian's ``vim-runtime`` 9.0; Vim licence), laid out as ``build_fresh.py`` does;
* ``iso639_{en,zh}`` and ``subdiv_{en,zh}``: two-page reports generated from the ISO 639-3 and ISO 3166-2 code
  lists of Debian's ``iso-codes`` 4.15.0 (``build_fresh5_report.py``).

Every page has a running header, a stamp and a page-number footer. Gold answers come from the source
text or data as printed; gold boxes are the blocks this script drew the evidence in (PDF points, top-left
origin). The questions and golds were committed before any generator ran on these PDFs.
"""

from __future__ import annotations

from pathlib import Path

from build import q
from build_fresh2 import ManDoc, layout_man
from build_fresh3 import render_man_tbl, vim_lessons

SPLIT = "fresh5"
MAN = {"en": Path("/usr/share/man/man8/catman.8.gz"), "zh": Path("/usr/share/man/zh_CN/man8/catman.8.gz")}
CATMAN = {  # (question, section, token, must, answer, figures)
    "en": [("Which catman option makes it read a different user configuration file instead of ~/.manpath?",
            "OPTIONS", "-C", "--config-file", "-C file, --config-file=file", ["-C", "--config-file"]),
           ("Which catman option prints debugging information?", "OPTIONS", "-d", "--debug", "-d, --debug",
            ["-d", "--debug"]),
           ("With which catman option can you give another colon-delimited search path of manual page "
            "hierarchies?", "OPTIONS", "-M", "--manpath", "-M path, --manpath=path", ["-M", "--manpath"]),
           ("Which environment variable tells catman which manual sections to search and in what order?",
            "ENVIRONMENT", "MANSECT", "order", "MANSECT", ["MANSECT"]),
           ("Which directive in /etc/manpath.config can override the default list of sections?",
            "ENVIRONMENT", "SECTION", "", "SECTION", ["SECTION"]),
           ("Where is the FSSTND compliant global index database cache kept?", "FILES", "/var/catman",
            "FSSTND", "/var/catman/index.(bt|db|dir|pag)", ["/var/catman"])],
    "zh": [("catman 的哪个选项让它读取另一个用户配置文件，而不是 ~/.manpath？", "选项", "-C", "--config-file",
            "-C 文件, --config-file=文件", ["-C", "--config-file"]),
           ("catman 的哪个选项会打印调试信息？", "选项", "-d", "--debug", "-d, --debug", ["-d", "--debug"]),
           ("用 catman 的哪个选项可以指定另一个以冒号分隔的手册页层次结构搜索路径？", "选项", "-M", "--manpath",
            "-M 路径, --manpath=路径", ["-M", "--manpath"]),
           ("哪个环境变量告诉 catman 要搜索哪些手册章节以及搜索顺序？", "环境", "MANSECT", "顺序", "MANSECT",
            ["MANSECT"]),
           ("/etc/manpath.config 中的哪个指令可以覆盖默认的章节列表？", "环境", "SECTION", "", "SECTION",
            ["SECTION"]),
           ("符合 FSSTND 的全局索引数据库缓存放在哪里？", "文件", "/var/catman", "FSSTND",
            "/var/catman/index.(bt|db|dir|pag)", ["/var/catman"])]}


def catman(lang: str) -> list[dict]:
    """catman(8) as a man page PDF (the block layout of ``build_fresh2.man_page``) and its questions."""
    zh = lang == "zh"
    name = f"catman_{lang}"
    d = ManDoc(name, "catman(8)", f"CATMAN(8) - {'Manual pager utils' if not zh else '手册分页显示工具'}", zh,
               "man-db 2.11.2")
    d.sect("CATMAN(8)", 15)
    layout_man(d, render_man_tbl(MAN[lang]), zh)
    doc = d.save()
    return [q(doc, f"{name}-{i:02d}", question, answer, figs, "text", lang, d.gold(sec, tok, must), SPLIT)
            for i, (question, sec, tok, must, answer, figs) in enumerate(CATMAN[lang], start=1)]


VIM_QA = {  # (question, lesson, token, answer)
    "en": [("Which key opens a new line above the cursor?", "6.1", "O", "O (capital)"),
           ("Which key do you type to replace more than one character at a time?", "6.3", "R", "R (capital)"),
           ("Which operator copies text so that it can be pasted with p?", "6.4", "y", "y"),
           ("Which option do you set so that a search ignores upper and lower case?", "6.5", "ic", ":set ic"),
           ("Besides typing :help, which function key opens the help window?", "7.1", "<F1>", "<F1>"),
           ("While typing a colon command, which key shows a list of the possible completions?", "7.3", "CTRL-D",
            "CTRL-D")],
    "zh": [("按哪个键可以在光标上方打开新的一行？", "6.1", "O", "大写的 O"),
           ("要一次替换多个字符，应输入哪个键？", "6.3", "R", "大写的 R"),
           ("哪个操作符可以复制文本，以便之后用 p 粘贴？", "6.4", "y", "y"),
           ("要让查找时忽略字母大小写，应设置哪个选项？", "6.5", "ic", ":set ic"),
           ("除了输入 :help 之外，按哪个功能键可以打开帮助窗口？", "7.1", "<F1>", "<F1>"),
           ("输入冒号命令时，按哪个键可以列出可能的补全结果？", "7.3", "CTRL-D", "CTRL-D")]}


def vim_tutor67(lang: str) -> list[dict]:
    """Lessons 6.1-7.3 with their summaries (1.1-2.1 are the ``fresh`` split's, 3.1-5.4 ``fresh3``'s)."""
    return vim_lessons(lang, slice(31, 41), f"vimtutor67_{lang}",  # lesson 6.1 .. the lesson 7 summary
                       ("Vim tutor, lessons 6-7", "Vim 教程第六至七讲"),
                       ("Vim Tutor - Lessons 6 and 7", "Vim 教程 - 第六讲和第七讲"),
                       ("Vim Tutor: open, append, copy, options, help and completion",
                        "Vim 教程：打开、附加、复制、选项、帮助与补全"), VIM_QA, SPLIT)


UNANSWERABLE = [("How many of the living languages in ISO 639-3 have more than one million speakers?", "en"),
                ("What exit status does catman return when it cannot format a page?", "en"),
                ("What was the population of the largest subdivision of the United Kingdom in 2020?", "en"),
                ("In which year did Vim first add the completion with CTRL-D and <TAB>?", "en"),
                ("ISO 639-3 的现存语言中有多少种的使用人数超过一百万？", "zh"),
                ("catman 无法格式化某个手册页时返回什么退出状态？", "zh"),
                ("2020年英国人口最多的行政区划有多少人口？", "zh"),
                ("Vim 是在哪一年首次加入用 CTRL-D 和 <TAB> 补全的功能的？", "zh")]


def fresh5_records() -> list[dict]:
    """All questions of the fresh5 split (writes the eight PDFs)."""
    from build_fresh5_report import iso639_report, subdiv_report

    out = []
    for lang in ("en", "zh"):
        out += catman(lang) + vim_tutor67(lang) + iso639_report(lang) + subdiv_report(lang)
    for i, (question, lang) in enumerate(UNANSWERABLE, start=1):
        out.append({"id": f"fresh5-none-{i:02d}", "question": question, "answer": "", "figures": [],
                    "category": "unanswerable", "lang": lang, "doc": "", "pages": [], "boxes": [], "split": SPLIT})
    return out

"""The ``fresh3`` split of the dev set: a third parallel English/Chinese held-out set (imported by ``build.py``).

Built after the ``fresh`` and ``fresh2`` splits had been used for tuning, with the same conventions
(``build_fresh.py``, ``build_fresh2.py``), on sources used nowhere else in this repository:

* ``mandb_{en,zh}`` and ``manpath5_{en,zh}``: the manual pages mandb(8) and manpath(5) of man-db 2.11.2 as
  shipped by Debian (``/usr/share/man/man{8,5}`` and the Simplified Chinese translation in
  ``/usr/share/man/zh_CN/man{8,5}``, same version, fully translated; GPL-2+), rendered to text with groff
  (tables through tbl) and laid out as ``build_fresh2.py`` lays out a man page: section names as headings,
  each option entry (its option line and the indented description) as one block;
* ``vimtutor35_{en,zh}``: lessons 3.1-5.4 and their summaries of the Vim tutor (``tutor`` and
  ``tutor.zh_cn.utf-8`` of Debian's ``vim-runtime``; Vim licence), laid out as ``build_fresh.py`` does;
* ``msft_{en,zh}``: a two-page report generated from matplotlib's sample ``msft.csv`` (``build_fresh3_report.py``).

Every page has a running header, a stamp and a page-number footer. Gold answers come from the source
text or data as printed; gold boxes are the blocks this script drew the evidence in (PDF points, top-left
origin). The questions and golds were committed before any generator ran on these PDFs.
"""

from __future__ import annotations

import gzip
import re
import subprocess
from pathlib import Path

from build import q
from build_fresh import VIM_TUTOR, FreshDoc, _paragraphs
from build_fresh2 import ManDoc, layout_man

SPLIT = "fresh3"
MAN = {"en": Path("/usr/share/man"), "zh": Path("/usr/share/man/zh_CN")}


def render_man_tbl(path: Path) -> list[str]:
    """The man page as text lines, one per filled paragraph (groff with tbl, very long lines, no hyphenation);
    a table's horizontal rule is left out (a line of box-drawing characters only)."""
    roff = subprocess.run(["preconv"], input=gzip.decompress(path.read_bytes()), capture_output=True,
                          check=True).stdout
    out = subprocess.run(["groff", "-t", "-man", "-Tutf8", "-P-cbou", "-rLL=2000n", "-rHY=0"], input=roff,
                         capture_output=True, check=True).stdout.decode("utf-8")
    lines = [ln.rstrip() for ln in out.splitlines() if not re.fullmatch(r"\s*[─━]+\s*", ln)]
    while lines and not lines[-1]:
        lines.pop()
    return lines[1:-1]  # the title and footer lines: drawn as page furniture instead


def man_page(prog: str, sec: int, lang: str, title: str, rows: list[tuple], name: str) -> list[dict]:
    """One man page as a PDF and its questions: rows of (question, section, token, must, answer, figures).
    Same block layout as ``build_fresh2.man_page``."""
    zh = lang == "zh"
    lines = render_man_tbl(MAN[lang] / f"man{sec}" / f"{prog}.{sec}.gz")
    name = f"{name}_{lang}"
    d = ManDoc(name, f"{prog}({sec})", f"{prog.upper()}({sec}) - {title}", zh, "man-db 2.11.2")
    d.sect(f"{prog.upper()}({sec})", 15)
    layout_man(d, lines, zh)
    doc = d.save()
    return [q(doc, f"{name}-{i:02d}", question, answer, figs, "text", lang, d.gold(sec_, tok, must), SPLIT)
            for i, (question, sec_, tok, must, answer, figs) in enumerate(rows, start=1)]


MANDB = {  # (question, section, token, must, answer, figures)
    "en": [("Which mandb option throws away the existing databases and builds them again from nothing?",
            "OPTIONS", "-c", "--create", "-c, --create", ["-c", "--create"]),
           ("What exit status does mandb return when one of its child processes fails?",
            "EXIT STATUS", "3", "child", "3", ["3"]),
           ("Which mandb option only checks the manual pages for correctness and leaves the existing "
            "databases alone?", "OPTIONS", "-t", "--test", "-t, --test", ["-t", "--test"]),
           ("Which mandb option builds only the user databases, even when it could write the system ones?",
            "OPTIONS", "-u", "--user-db", "-u, --user-db", ["-u", "--user-db"]),
           ("When mandb is built with GNU gdbm, what is the index database file called?",
            "DATABASE CACHES", "index.db", "", "index.db", ["index.db"]),
           ("Which file holds man-db's configuration?", "FILES", "/etc/manpath.config", "",
            "/etc/manpath.config", ["/etc/manpath.config"])],
    "zh": [("mandb 的哪个选项会删掉已有的数据库并从头重新生成？", "选项", "-c", "--create", "-c, --create",
            ["-c", "--create"]),
           ("mandb 的某个子进程失败时，它返回什么退出状态？", "退出状态", "3", "子进程", "3", ["3"]),
           ("mandb 的哪个选项只对手册页做正确性检查，而不改动现有的数据库？", "选项", "-t", "--test", "-t, --test",
            ["-t", "--test"]),
           ("mandb 的哪个选项只生成用户数据库，即使有权限写系统数据库？", "选项", "-u", "--user-db",
            "-u, --user-db", ["-u", "--user-db"]),
           ("mandb 使用 GNU gdbm 时，索引数据库文件叫什么名字？", "数据库缓存", "index.db", "", "index.db",
            ["index.db"]),
           ("man-db 的配置文件是哪个文件？", "文件", "/etc/manpath.config", "", "/etc/manpath.config",
            ["/etc/manpath.config"])]}
MANPATH5 = {
    "en": [("By default, below what terminal width are cat pages neither created nor displayed?",
            "FORMAT", "80", "MINCATWIDTH", "80 (MINCATWIDTH)", ["80"]),
           ("Which other name is accepted for the directive that sets the order in which manual sections are "
            "searched?", "FORMAT", "SECTIONS", "", "SECTIONS", ["SECTIONS"]),
           ("Which field type lists a manpath that every automatically generated $MANPATH should contain?",
            "FORMAT", "MANDATORY_MANPATH", "every", "MANDATORY_MANPATH", ["MANDATORY_MANPATH"]),
           ("Which flag stops man from creating cat pages automatically?", "FORMAT", "NOCACHE", "", "NOCACHE",
            ["NOCACHE"]),
           ("Which directive defines miscellaneous configuration variables such as the default paths to "
            "programs like grep and tbl?", "FORMAT", "DEFINE", "", "DEFINE", ["DEFINE"]),
           ("Which setting, when non-zero, makes cat pages always be formatted for a fixed terminal width "
            "whatever the real width is?", "FORMAT", "CATWIDTH", "non-zero", "CATWIDTH", ["CATWIDTH"])],
    "zh": [("默认情况下，终端宽度小于多少时不会创建或显示 cat 页面？", "格式", "80", "MINCATWIDTH",
            "80（MINCATWIDTH）", ["80"]),
           ("用来定义手册章节搜索顺序的指令还接受哪个替代名称？", "格式", "SECTIONS", "", "SECTIONS", ["SECTIONS"]),
           ("哪种字段类型指定每个自动生成的 $MANPATH 都应包含的 manpath？", "格式", "MANDATORY_MANPATH", "每个",
            "MANDATORY_MANPATH", ["MANDATORY_MANPATH"]),
           ("哪个标志可以阻止 man 自动创建 cat 页面？", "格式", "NOCACHE", "", "NOCACHE", ["NOCACHE"]),
           ("哪个指令用来定义各种配置变量，例如 grep 和 tbl 等程序的默认路径？", "格式", "DEFINE", "", "DEFINE",
            ["DEFINE"]),
           ("哪个设置为非零值时，会让 cat 页面总是按固定的终端宽度排版，而不管实际终端有多宽？", "格式",
            "CATWIDTH", "非零", "CATWIDTH", ["CATWIDTH"])]}


VIM_QA = {  # (question, lesson, token, answer)
    "en": [("Which key, typed before the new character, replaces the character under the cursor?", "3.2", "r",
            "r"),
           ("Which command changes the text from the cursor to the end of the word?", "3.3", "ce", "ce"),
           ("Which key combination shows your position in the file and the file status?", "4.1", "CTRL-G",
            "CTRL-G"),
           ("Which key moves the cursor to the matching parenthesis or bracket?", "4.3", "%", "%"),
           ("Which command inserts the contents of a file below the cursor?", "5.4", ":r", ":r FILENAME")],
    "zh": [("要把光标所在位置的字符换成另一个字符，应先按哪个键再输入新字符？", "3.2", "r", "r"),
           ("哪个命令可以更改从光标处到单词末尾的文本？", "3.3", "ce", "ce"),
           ("哪个组合键可以显示光标在文件中的位置以及文件状态？", "4.1", "CTRL-G", "CTRL-G"),
           ("按哪个键可以把光标移到与之配对的括号上？", "4.3", "%", "%"),
           ("哪个命令可以把一个文件的内容插入到光标下方？", "5.4", ":r", ":r FILENAME")]}


def vim_lessons(lang: str, chunks: slice, name: str, titles: tuple[str, str], heads: tuple[str, str],
                sects: tuple[str, str], qa: dict[str, list], split: str) -> list[dict]:
    """Lessons of the Vim tutor (the ``chunks`` between its ~~~ rules), one paragraph a block, under lesson
    headings; gold boxes are every paragraph of the lesson and of its summary that has the answer token."""
    zh = lang == "zh"
    src = VIM_TUTOR[lang].read_text(encoding="utf-8")
    d = FreshDoc(name, titles[zh], heads[zh], zh, "Vim 9.0")
    d.sect(sects[zh], 15)
    for chunk in re.split(r"\n~{20,}\n", src)[chunks]:
        head, _, body = chunk.strip("\n").partition("\n")
        d.sect(re.sub(r"\s+", " ", head.strip()))
        for par in _paragraphs(body, zh):
            d.block(par)
    doc = d.save()
    cn = "一二三四五六七"
    out = []
    for i, (question, lesson, tok, answer) in enumerate(qa[lang], start=1):
        major, minor = lesson.split(".")
        sec = f"Lesson {lesson}" if not zh else f"第{cn[int(major) - 1]}讲第{cn[int(minor) - 1]}节"
        summary = f"Lesson {major} SUMMARY" if not zh else f"第{cn[int(major) - 1]}讲小结"
        out.append(q(doc, f"{name}-{i:02d}", question, answer, [tok], "text", lang,
                     d.find(sec, tok) + d.find(summary, tok), split))
    return out


def vim_tutor35(lang: str) -> list[dict]:
    """Lessons 3.1-5.4 with their summaries (lessons 1.1-2.1 are the ``fresh`` split's), one paragraph a block."""
    return vim_lessons(lang, slice(16, 31), f"vimtutor35_{lang}",  # lesson 3.1 .. the lesson 5 summary
                       ("Vim tutor, lessons 3-5", "Vim 教程第三至五讲"),
                       ("Vim Tutor - Lessons 3 to 5", "Vim 教程 - 第三讲至第五讲"),
                       ("Vim Tutor: put, replace, change, search and files", "Vim 教程：置入、替换、更改、搜索与文件"),
                       VIM_QA, SPLIT)


UNANSWERABLE = [("What was Microsoft's closing share price on 2 January 2003?", "en"),
                ("What is the default value of CATWIDTH in /etc/manpath.config?", "en"),
                ("How long does mandb take to rebuild the databases on a typical system?", "en"),
                ("微软2003年1月2日的收盘价是多少？", "zh"),
                ("/etc/manpath.config 中 CATWIDTH 的默认值是多少？", "zh"),
                ("在一般的系统上，mandb 重建数据库大约需要多长时间？", "zh")]


def fresh3_records() -> list[dict]:
    """All questions of the fresh3 split (writes the eight PDFs)."""
    from build_fresh3_report import msft_report

    out = []
    for lang in ("en", "zh"):
        utils = "Manual pager utils" if lang == "en" else "手册分页显示工具"
        out += man_page("mandb", 8, lang, utils, MANDB[lang], "mandb")
        out += man_page("manpath", 5, lang, "/etc/manpath.config", MANPATH5[lang], "manpath5")
        out += vim_tutor35(lang) + msft_report(lang)
    for i, (question, lang) in enumerate(UNANSWERABLE, start=1):
        out.append({"id": f"fresh3-none-{i:02d}", "question": question, "answer": "", "figures": [],
                    "category": "unanswerable", "lang": lang, "doc": "", "pages": [], "boxes": [], "split": SPLIT})
    return out

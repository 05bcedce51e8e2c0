"""The ``fresh6`` split of the dev set: a sixth parallel English/Chinese held-out set (imported by ``build.py``).

Built after the ``fresh`` to ``fresh5`` splits had been used for tuning, with the same conventions
(``build_fresh.py``, ``build_fresh2.py``, ``build_fresh5.py``), on sources used nowhere else in this repository:

* ``whatis_{en,zh}``: the whatis(1) manual page of man-db 2.11.2 as shipped by Debian (``/usr/share/man/man1``
  and its Simplified Chinese translation in ``/usr/share/man/zh_CN/man1``, same version 2.11.2 of 2023-01-08,
  fully translated; GPL-2+), rendered with groff and laid out as ``build_fresh2.py`` lays out a man page;
* ``mandb_tools_{en,zh}``: four short man-db pages in one PDF, each starting on a new page under its own title
  (manconv(1), man-recode(1), zsoelim(1), accessdb(8); same version and translation as whatis), so the same
  section names (OPTIONS, DESCRIPTION) come back on every page and only the page title tells them apart;
* ``scripts15924_{en,zh}`` and ``leapsec_{en,zh}``: two-page reports generated from the ISO 15924 script codes of
  Debian's ``iso-codes`` 4.15.0 and from the tz database's leap second files of Debian's ``tzdata`` 2025b
  (``build_fresh6_report.py``).

Every page has a running header, a stamp and a page-number footer. Gold answers come from the source
text or data as printed; gold boxes are the blocks this script drew the evidence in (PDF points, top-left
origin). The questions and golds were committed before any generator ran on these PDFs.
"""

from __future__ import annotations

from pathlib import Path

from build import q
from build_fresh2 import ManDoc, layout_man
from build_fresh3 import render_man_tbl

SPLIT = "fresh6"
MAN = {"en": Path("/usr/share/man"), "zh": Path("/usr/share/man/zh_CN")}
TITLE = {"en": "Manual pager utils", "zh": "手册分页显示工具"}
WHATIS = {  # (question, section, token, must, answer, figures)
    "en": [("Which whatis option treats each name as a pattern with shell-style wildcards?", "OPTIONS", "-w",
            "--wildcard", "-w, --wildcard", ["-w", "--wildcard"]),
           ("Which whatis option stops it from cutting its output down to the width of the terminal?", "OPTIONS",
            "-l", "--long", "-l, --long", ["-l", "--long"]),
           ("Which environment variable sets the terminal width that whatis uses?", "ENVIRONMENT", "MANWIDTH", "",
            "MANWIDTH ($MANWIDTH)", ["MANWIDTH"]),
           ("Which C library function does whatis call to find out the current locale?", "OPTIONS", "setlocale",
            "--locale", "setlocale(3)", ["setlocale"]),
           ("If you ask whatis to search section 3, which other sections' pages are included as well?", "OPTIONS",
            "3perl", "--section", "\"3perl\", \"3x\" and so on", ["3perl"]),
           ("What example of a manual page hierarchy does the whatis page give?", "DESCRIPTION", "/usr/man", "",
            "/usr/man", ["/usr/man"])],
    "zh": [("whatis 的哪个选项把每个名称当作包含 shell 风格通配符的模式？", "选项", "-w", "--wildcard",
            "-w, --wildcard", ["-w", "--wildcard"]),
           ("whatis 的哪个选项让它不按终端宽度截断输出？", "选项", "-l", "--long", "-l, --long", ["-l", "--long"]),
           ("哪个环境变量设置 whatis 使用的终端宽度？", "环境", "MANWIDTH", "", "MANWIDTH（$MANWIDTH）", ["MANWIDTH"]),
           ("whatis 调用哪个 C 语言函数来确定当前的区域设置？", "选项", "setlocale", "--locale", "setlocale(3)",
            ["setlocale"]),
           ("如果让 whatis 搜索第 3 章节，还会包含哪些章节中的页面？", "选项", "3perl", "--section",
            "“3perl”、“3x”等", ["3perl"]),
           ("whatis 手册页举了哪个手册页层次结构作为例子？", "描述", "/usr/man", "", "/usr/man", ["/usr/man"])]}
TOOLS = [("manconv", 1), ("man-recode", 1), ("zsoelim", 1), ("accessdb", 8)]
TOOLS_QA = {  # (question, page, section, token, must, answer, figures)
    "en": [("Which manconv option gives the list of input encodings to try one after another?", "manconv",
            "OPTIONS", "-f", "--from-code", "-f encodings, --from-code encodings", ["-f", "--from-code"]),
           ("If you do not tell manconv which input encodings to try, what does it base its guess on?", "manconv",
            "OPTIONS", "file name", "guess", "the file name", ["file name"]),
           ("Which program does manconv resemble, except that it can try several input encodings in turn?",
            "manconv", "DESCRIPTION", "iconv", "Unlike", "iconv", ["iconv"]),
           ("Which man-recode option overwrites every input file with its output?", "man-recode", "OPTIONS",
            "--in-place", "", "--in-place", ["--in-place"]),
           ("Which man-recode option builds each output file name by adding a suffix to the input file name?",
            "man-recode", "OPTIONS", "--suffix", "", "--suffix=suffix", ["--suffix"]),
           ("According to man-recode, into which common encoding do build systems usually recode a set of pages?",
            "man-recode", "DESCRIPTION", "UTF-8", "usually", "UTF-8", ["UTF-8"]),
           ("When a .so request cannot be met, which compressed file extensions does zsoelim try?", "zsoelim",
            "DESCRIPTION", ".gz", "", ".gz, .Z or .z", [".gz"]),
           ("Which zsoelim flag exists only for compatibility with other soelim programs and is ignored?",
            "zsoelim", "OPTIONS", "-C", "--compatible", "-C, --compatible", ["-C", "--compatible"]),
           ("What problems was this version of soelim written to get around?", "zsoelim", "DESCRIPTION",
            "compressed", "circumvent", "problems created by support for compressed manual pages", ["compressed"]),
           ("Unless given an argument, which database file does accessdb dump?", "accessdb", "DESCRIPTION",
            "/var/cache/man/index", "", "/var/cache/man/index.<db-type>", ["/var/cache/man/index.<db-type>"])],
    "zh": [("manconv 的哪个选项给出要依次尝试的输入编码列表？", "manconv", "选项", "-f", "--from-code",
            "-f 编码, --from-code 编码", ["-f", "--from-code"]),
           ("如果不告诉 manconv 要尝试哪些输入编码，它根据什么来猜测？", "manconv", "选项", "文件名", "猜测",
            "根据文件名", ["文件名"]),
           ("manconv 与哪个程序类似，只是它可以依次尝试多个输入编码？", "manconv", "描述", "iconv", "不同",
            "iconv", ["iconv"]),
           ("man-recode 的哪个选项用输出覆写每个输入文件？", "man-recode", "选项", "--in-place", "", "--in-place",
            ["--in-place"]),
           ("man-recode 的哪个选项通过在输入文件名后添加后缀来生成每个输出文件名？", "man-recode", "选项",
            "--suffix", "", "--suffix=后缀", ["--suffix"]),
           ("根据 man-recode 的说明，构建系统通常把一组手册页转码为哪种通用编码？", "man-recode", "描述", "UTF-8",
            "通常", "UTF-8", ["UTF-8"]),
           ("当 .so 请求无法满足时，zsoelim 会尝试哪些压缩文件扩展名？", "zsoelim", "描述", ".gz", "",
            ".gz、.Z 或 .z", [".gz"]),
           ("zsoelim 的哪个标志只是为了与其他 soelim 程序兼容而存在，并且会被忽略？", "zsoelim", "选项", "-C",
            "--compatible", "-C, --compatible", ["-C", "--compatible"]),
           ("这个版本的 soelim 是为了避开什么问题而编写的？", "zsoelim", "描述", "压缩", "避开",
            "支持压缩手册页造成的问题", ["压缩"]),
           ("如果不给参数，accessdb 会转储哪个数据库文件？", "accessdb", "描述", "/var/cache/man/index", "",
            "/var/cache/man/index.<db-type>", ["/var/cache/man/index.<db-type>"])]}


class BookDoc(ManDoc):
    """``ManDoc`` holding several man pages: a block's section is the page's name and the section heading
    (``manconv OPTIONS``), since every page has an OPTIONS and a DESCRIPTION section."""

    prog = ""

    def sect(self, text: str, size: float = 13) -> None:
        super().sect(text, size)
        self.section = f"{self.prog} {text}"


def whatis(lang: str) -> list[dict]:
    """whatis(1) as a man page PDF (the block layout of ``build_fresh2.man_page``) and its questions."""
    zh = lang == "zh"
    name = f"whatis_{lang}"
    d = ManDoc(name, "whatis(1)", f"WHATIS(1) - {TITLE[lang]}", zh, "man-db 2.11.2")
    d.sect("WHATIS(1)", 15)
    layout_man(d, render_man_tbl(MAN[lang] / "man1" / "whatis.1.gz"), zh)
    doc = d.save()
    return [q(doc, f"{name}-{i:02d}", question, answer, figs, "text", lang, d.gold(sec, tok, must), SPLIT)
            for i, (question, sec, tok, must, answer, figs) in enumerate(WHATIS[lang], start=1)]


def mandb_tools(lang: str) -> list[dict]:
    """manconv(1), man-recode(1), zsoelim(1) and accessdb(8) in one PDF, each page from a new PDF page."""
    zh = lang == "zh"
    name = f"mandb_tools_{lang}"
    d = BookDoc(name, "man-db encoding and database tools" if not zh else "man-db 编码与数据库工具",
                f"man-db tools - {TITLE[lang]}", zh, "man-db 2.11.2")
    for prog, sec in TOOLS:
        d.prog = prog
        if d.page is not None:
            d.new_page()
            d.y = 70.0
        d.sect(f"{prog.upper()}({sec})", 15)
        layout_man(d, render_man_tbl(MAN[lang] / f"man{sec}" / f"{prog}.{sec}.gz"), zh)
    doc = d.save()
    return [q(doc, f"{name}-{i:02d}", question, answer, figs, "text", lang, d.gold(f"{page} {sec}", tok, must),
              SPLIT)
            for i, (question, page, sec, tok, must, answer, figs) in enumerate(TOOLS_QA[lang], start=1)]


UNANSWERABLE = [("In which year was the Hangul script given its ISO 15924 code?", "en"),
                ("When will the next leap second be inserted into UTC?", "en"),
                ("What exit status does man-recode return when a page cannot be converted?", "en"),
                ("How many manual page descriptions can whatis search per second?", "en"),
                ("谚文是在哪一年获得 ISO 15924 代码的？", "zh"),
                ("下一个闰秒将在什么时候插入协调世界时？", "zh"),
                ("man-recode 在某个手册页无法转换时返回什么退出状态？", "zh"),
                ("whatis 每秒可以搜索多少条手册页描述？", "zh")]


def fresh6_records() -> list[dict]:
    """All questions of the fresh6 split (writes the eight PDFs)."""
    from build_fresh6_report import leap_report, scripts_report

    out = []
    for lang in ("en", "zh"):
        out += whatis(lang) + mandb_tools(lang) + scripts_report(lang) + leap_report(lang)
    for i, (question, lang) in enumerate(UNANSWERABLE, start=1):
        out.append({"id": f"fresh6-none-{i:02d}", "question": question, "answer": "", "figures": [],
                    "category": "unanswerable", "lang": lang, "doc": "", "pages": [], "boxes": [], "split": SPLIT})
    return out

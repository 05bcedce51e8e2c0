"""The ``fresh9`` split of the dev set: a ninth parallel English/Chinese held-out set (imported by ``build.py``).

Built after the ``fresh`` to ``fresh8`` splits had been used for tuning, with the same conventions
(``build_fresh.py``, ``build_fresh7.py``, ``build_fresh8.py``), on sources used nowhere else in this repository:

* ``ls_help_{en,zh}``: the ``--help`` text of GNU ls (coreutils 9.1 as shipped by Debian), in English and in its
  Simplified Chinese translation (the ``zh_CN`` message catalog ``coreutils.mo`` of the same package; GPL-3+),
  laid out as ``build_fresh7.py`` lays out grep's help: the help's section names as headings, each option with its
  description as one block, the prose lines (SIZE, TIME_STYLE, WHEN, colours, exit status) as paragraphs;
* ``iso639_5_{en,zh}``: a two-page report generated from the ISO 639-5 language family codes of Debian's
  ``iso-codes`` 4.15.0 (``build_fresh9_report.py``).

Every page has a running header, a stamp and a page-number footer. Gold answers come from the source
text or data as printed; gold boxes are the blocks this script drew the evidence in (PDF points, top-left
origin). The questions and golds were committed before any generator ran on these PDFs.
"""

from __future__ import annotations

from build_fresh7 import help_page

SPLIT = "fresh9"

LS_QA = {  # (question, token, must, answer, figures)
    "en": [("Which ls option orders the listing by file size with the biggest files at the top?", "-S",
            "largest first", "-S", ["-S"]),
           ("Which ls option shows the index number of every file?", "-i", "--inode", "-i, --inode",
            ["-i", "--inode"]),
           ("Which ls option reverses the order of the sort?", "-r", "--reverse", "-r, --reverse",
            ["-r", "--reverse"]),
           ("Which ls option also lists the contents of subdirectories, recursively?", "-R", "--recursive",
            "-R, --recursive", ["-R", "--recursive"]),
           ("Which ls option prints human readable sizes in powers of 1000 instead of 1024?", "--si", "", "--si",
            ["--si"]),
           ("Which ls option puts double quotes around entry names?", "-Q", "--quote-name", "-Q, --quote-name",
            ["-Q", "--quote-name"]),
           ("By default, how many columns apart are the tab stops that ls assumes?", "8",
            "--tabsize", "8", ["8"]),
           ("Which ls option lists a single file on each line?", "-1", "one file per line", "-1", ["-1"]),
           ("Which ls option makes a long listing without the owner?", "-g", "do not list owner", "-g", ["-g"]),
           ("Which ls option lists directories ahead of files?", "--group-directories-first", "",
            "--group-directories-first", ["--group-directories-first"]),
           ("Which ls option hides the entries that match a shell pattern, unless -a or -A is given?", "--hide",
            "", "--hide=PATTERN", ["--hide"]),
           ("What exit status does ls return when there is serious trouble, such as an inaccessible "
            "command-line argument?", "2", "serious", "2", ["2"]),
           ("Which environment variable can change the colour settings of ls?", "LS_COLORS", "", "LS_COLORS",
            ["LS_COLORS"]),
           ("What is the WHEN argument of ls when no value is given for it?", "always", "WHEN", "always",
            ["always"]),
           ("What prefix on a TIME_STYLE makes ls apply it only when the locale is not POSIX?", "posix-", "",
            "posix-", ["posix-"])],
    "zh": [("ls 的哪个选项按文件大小排列，最大的文件排在最前面？", "-S", "最大的最前", "-S", ["-S"]),
           ("ls 的哪个选项显示每个文件的索引编号？", "-i", "--inode", "-i, --inode", ["-i", "--inode"]),
           ("ls 的哪个选项把排序的顺序颠倒过来？", "-r", "--reverse", "-r, --reverse", ["-r", "--reverse"]),
           ("ls 的哪个选项会递归地把子目录的内容也列出来？", "-R", "--recursive", "-R, --recursive",
            ["-R", "--recursive"]),
           ("ls 的哪个选项以 1000 而不是 1024 的幂显示易读的大小？", "--si", "", "--si", ["--si"]),
           ("ls 的哪个选项给项目名称加上双引号？", "-Q", "--quote-name", "-Q, --quote-name",
            ["-Q", "--quote-name"]),
           ("ls 默认假定制表位之间相隔多少列？", "8", "--tabsize", "8", ["8"]),
           ("ls 的哪个选项让每一行只显示一个文件？", "-1", "每行只列出一个文件", "-1", ["-1"]),
           ("ls 的哪个选项以长列表格式列出但不显示文件所有者？", "-g", "不列出所有者", "-g", ["-g"]),
           ("ls 的哪个选项把目录排在文件之前？", "--group-directories-first", "", "--group-directories-first",
            ["--group-directories-first"]),
           ("ls 的哪个选项隐藏与 shell 模式匹配的项目（除非指定了 -a 或 -A）？", "--hide", "", "--hide=模式",
            ["--hide"]),
           ("遇到严重问题（例如命令行参数无法访问）时，ls 返回什么退出状态？", "2", "严重", "2", ["2"]),
           ("哪个环境变量可以改变 ls 的颜色设置？", "LS_COLORS", "", "LS_COLORS", ["LS_COLORS"]),
           ("没有给出取值时，ls 的 <何时> 参数默认是什么？", "always", "何时", "always", ["always"]),
           ("给 <时间风格> 加上什么前缀，可以让它仅在区域设置不是 POSIX 时才起作用？", "posix-", "", "posix-",
            ["posix-"])]}

UNANSWERABLE = [("What output width does ls use by default when --width is not given?", "en"),
                ("Which environment variable sets the default block size of ls?", "en"),
                ("In which year was ISO 639-5 first published?", "en"),
                ("How many individual languages belong to the Bantu languages family?", "en"),
                ("未指定 --width 时，ls 默认使用多大的输出宽度？", "zh"),
                ("哪个环境变量设置 ls 默认的块大小？", "zh"),
                ("ISO 639-5 最初是在哪一年发布的？", "zh"),
                ("班图语族共包含多少种个体语言？", "zh")]


def fresh9_records() -> list[dict]:
    """All questions of the fresh9 split (writes the four PDFs)."""
    from build_fresh9_report import iso639_5_report

    out = []
    for lang in ("en", "zh"):
        out += help_page("ls", lang, "GNU coreutils 9.1", LS_QA, SPLIT) + iso639_5_report(lang)
    for i, (question, lang) in enumerate(UNANSWERABLE, start=1):
        out.append({"id": f"fresh9-none-{i:02d}", "question": question, "answer": "", "figures": [],
                    "category": "unanswerable", "lang": lang, "doc": "", "pages": [], "boxes": [], "split": SPLIT})
    return out

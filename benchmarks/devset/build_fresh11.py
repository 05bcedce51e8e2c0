"""The ``fresh11`` split of the dev set: an eleventh parallel English/Chinese held-out set (imported by ``build.py``).

Built after the ``fresh`` to ``fresh10`` splits had been used for tuning, with the same conventions
(``build_fresh.py``, ``build_fresh7.py``, ``build_fresh10.py``), on sources used nowhere else in this repository:

* ``sed_help_{en,zh}``: the ``--help`` text of GNU sed 4.9 as shipped by Debian, in English and in its Simplified
  Chinese translation (the ``zh_CN`` message catalog ``sed.mo`` of the same package; GPL-3+), laid out as a
  reference page: each option (its line, then its indented description lines) as one block, the closing prose
  lines as paragraphs (sed prints an option and its description on separate lines, which ``build_fresh7``'s
  ``layout_help`` does not split, so the layout is drawn here);
* ``ubuntu_releases_{en,zh}``: a two-page report generated from the Ubuntu release list of Debian's
  ``distro-info-data`` 0.58+deb12u6 (``build_fresh11_report.py``).

Every page has a running header, a stamp and a page-number footer. Gold answers come from the source
text or data as printed; gold boxes are the blocks this script drew the evidence in (PDF points, top-left
origin). The questions and golds were committed before any generator ran on these PDFs.
"""

from __future__ import annotations

import re

from build import q
from build_fresh2 import ManDoc, _clean
from build_fresh7 import help_text

SPLIT = "fresh11"
_OPTLINE = re.compile(r"^ {2,6}-")

SED_QA = {  # (question, token, must, answer, figures)
    "en": [("Which sed option stops it from printing the pattern space automatically?", "-n", "--quiet",
            "-n, --quiet, --silent", ["-n", "--quiet"]),
           ("Which sed option annotates how the program executes?", "--debug", "", "--debug", ["--debug"]),
           ("Which sed option reads the commands to run from a file?", "-f", "--file=",
            "-f script-file, --file=script-file", ["-f", "--file"]),
           ("Which sed option edits the files themselves, keeping a backup when a suffix is given?", "-i",
            "--in-place", "-i[SUFFIX], --in-place[=SUFFIX]", ["-i", "--in-place"]),
           ("Which sed option sets the wrap length of lines printed by the l command?", "-l", "--line-length",
            "-l N, --line-length=N", ["-l", "--line-length"]),
           ("Which sed option turns off every GNU extension?", "--posix", "", "--posix", ["--posix"]),
           ("Which sed option makes scripts use extended regular expressions?", "-E", "--regexp-extended",
            "-E, -r, --regexp-extended", ["-E", "--regexp-extended"]),
           ("For portability, which spelling of the extended-regex option does sed's help recommend?", "-E",
            "POSIX", "-E", ["-E"]),
           ("Which sed option handles several input files one by one instead of as one long stream?", "-s",
            "--separate", "-s, --separate", ["-s", "--separate"]),
           ("Which sed option runs it in sandbox mode?", "--sandbox", "", "--sandbox", ["--sandbox"]),
           ("Which commands does sed's sandbox mode disable?", "--sandbox", "", "e/r/w", ["e/r/w"]),
           ("Which sed option reads as little input as possible and flushes its output more often?", "-u",
            "--unbuffered", "-u, --unbuffered", ["-u", "--unbuffered"]),
           ("Which sed option treats the NUL character as the line separator?", "-z", "--null-data",
            "-z, --null-data", ["-z", "--null-data"]),
           ("When sed is given no -e or -f option, which argument does it use as its script?", "--expression",
            "non-option", "the first non-option argument", ["first"]),
           ("Where does sed read its input from when no input file is named?", "--expression", "non-option",
            "the standard input", ["standard input"])],
    "zh": [("sed 的哪个选项让它不再自动打印模式空间？", "-n", "--quiet", "-n, --quiet, --silent", ["-n", "--quiet"]),
           ("sed 的哪个选项对程序的运行过程加以标注？", "--debug", "", "--debug", ["--debug"]),
           ("sed 的哪个选项从文件中读取要运行的命令？", "-f", "--file=", "-f 脚本文件, --file=脚本文件",
            ["-f", "--file"]),
           ("sed 的哪个选项直接修改文件本身，并在给出扩展名时保留备份？", "-i", "--in-place",
            "-i[扩展名], --in-place[=扩展名]", ["-i", "--in-place"]),
           ("sed 的哪个选项设置 l 命令所打印行的换行长度？", "-l", "--line-length", "-l N, --line-length=N",
            ["-l", "--line-length"]),
           ("sed 的哪个选项关闭所有 GNU 扩展？", "--posix", "", "--posix", ["--posix"]),
           ("sed 的哪个选项让脚本使用扩展正则表达式？", "-E", "--regexp-extended", "-E, -r, --regexp-extended",
            ["-E", "--regexp-extended"]),
           ("为了可移植性，sed 的帮助推荐使用扩展正则表达式选项的哪种写法？", "-E", "POSIX", "-E", ["-E"]),
           ("sed 的哪个选项把多个输入文件逐个处理，而不是当作一个长的输入流？", "-s", "--separate",
            "-s, --separate", ["-s", "--separate"]),
           ("sed 的哪个选项让它以沙盒模式运行？", "--sandbox", "", "--sandbox", ["--sandbox"]),
           ("sed 的沙盒模式禁用了哪些命令？", "--sandbox", "", "e/r/w", ["e/r/w"]),
           ("sed 的哪个选项尽量少地读取输入，并更频繁地刷新输出？", "-u", "--unbuffered", "-u, --unbuffered",
            ["-u", "--unbuffered"]),
           ("sed 的哪个选项把 NUL 字符当作行的分隔符？", "-z", "--null-data", "-z, --null-data",
            ["-z", "--null-data"]),
           ("没有给 sed 任何 -e 或 -f 选项时，它把哪个参数当作脚本？", "--expression", "非选项", "第一个非选项参数",
            ["第一个非选项参数"]),
           ("没有指定输入文件时，sed 从哪里读取输入？", "--expression", "非选项", "标准输入", ["标准输入"])]}

UNANSWERABLE = [("What is the default line-wrap length of sed's l command?", "en"),
                ("Which sed option limits the size of the hold space?", "en"),
                ("Which Linux kernel version does Ubuntu 22.04 LTS Jammy Jellyfish ship with?", "en"),
                ("How many people downloaded Ubuntu 24.04 LTS in its first month?", "en"),
                ("sed 的 l 命令默认的换行长度是多少？", "zh"),
                ("sed 的哪个选项限制保持空间的大小？", "zh"),
                ("Ubuntu 22.04 LTS Jammy Jellyfish 附带的是哪个 Linux 内核版本？", "zh"),
                ("Ubuntu 24.04 LTS 在发布后的第一个月有多少人下载？", "zh")]


def sed_page(lang: str) -> list[dict]:
    """sed's ``--help`` as a reference page (option line + description lines = one block), with its questions."""
    zh = lang == "zh"
    name = f"sed_help_{lang}"
    d = ManDoc(name, {"en": "sed --help reference", "zh": "sed --help 参考"}[lang],
               f"GNU sed - {'command-line help' if not zh else '命令行帮助'}", zh, "GNU sed 4.9")
    d.sect("sed --help", 15)
    lines = help_text("sed", lang)
    d.block(_clean(lines[0], zh), 10)  # the usage line
    items: list[tuple[str, list[str]]] = []
    for ln in lines[1:]:
        if not ln.strip():
            items.append(("", []))
        elif _OPTLINE.match(ln):
            items.append(("opt", [ln]))
        elif items and items[-1][0] == "opt" and len(ln) - len(ln.lstrip()) >= 10:
            items[-1][1].append(ln)
        elif items and items[-1][0] == "prose":
            items[-1][1].append(ln)
        else:
            items.append(("prose", [ln]))
    for kind, ent in items:
        if kind == "prose":
            # the home page and bug-report lines each stand alone; the paragraph before them is one block
            para = [ln for ln in ent if not re.search(r"<\S+>", ln)]
            if para:
                d.block(_clean(" ".join(para), zh), 10)
            for ln in ent:
                if ln not in para:
                    d.block(_clean(ln, zh), 10)
        elif kind == "opt":
            head, *rest = ent
            m = re.match(r"^ +(--\S+) {2,}(\S.*)$", head)  # "--help     display this help and exit"
            if m:
                head, rest = m[1], [m[2], *rest]
            d.entry(head.strip(), _clean(" ".join(rest), zh))
    doc = d.save()

    def gold(tok: str, must: str) -> list[tuple[int, tuple[float, ...]]]:
        pat = re.compile(rf"(?<![A-Za-z0-9-]){re.escape(tok)}(?![A-Za-z0-9-])")
        hits = [(p, b) for _, p, b, t in d.drawn if pat.search(t) and must in t]
        if len(hits) != 1:
            raise SystemExit(f"{name}: {len(hits)} blocks have {tok!r} and {must!r}, want one")
        return hits

    return [q(doc, f"{name}-{i:02d}", question, answer, figs, "text", lang, gold(tok, must), SPLIT)
            for i, (question, tok, must, answer, figs) in enumerate(SED_QA[lang], start=1)]


def fresh11_records() -> list[dict]:
    """All questions of the fresh11 split (writes the four PDFs)."""
    from build_fresh11_report import releases_report

    out = []
    for lang in ("en", "zh"):
        out += sed_page(lang) + releases_report(lang)
    for i, (question, lang) in enumerate(UNANSWERABLE, start=1):
        out.append({"id": f"fresh11-none-{i:02d}", "question": question, "answer": "", "figures": [],
                    "category": "unanswerable", "lang": lang, "doc": "", "pages": [], "boxes": [], "split": SPLIT})
    return out

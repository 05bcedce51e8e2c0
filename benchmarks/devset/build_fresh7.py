"""The ``fresh7`` split of the dev set: a seventh parallel English/Chinese held-out set (imported by ``build.py``).

Built after the ``fresh`` to ``fresh6`` splits had been used for tuning, with the same conventions
(``build_fresh.py``, ``build_fresh2.py``, ``build_fresh6.py``), on sources used nowhere else in this repository:

* ``grep_help_{en,zh}``: the ``--help`` text of GNU grep 3.8 as shipped by Debian, in English and in its
  Simplified Chinese translation (the ``zh_CN`` message catalog ``grep.mo`` of the same package, every line
  translated; GPL-3+), laid out as a reference page: the help's section names as headings, each option with its
  description as one block (``build_fresh2.ManDoc.entry``), the prose lines as paragraphs;
* ``diff_help_{en,zh}``: the ``--help`` text of GNU diff (diffutils 3.8, ``diffutils.mo``; GPL-3+), same layout,
  its blank-line groups of options under numbered headings added by this script;
* ``currencies_{en,zh}`` and ``formercc_{en,zh}``: two-page reports generated from the ISO 4217 currency codes and
  the ISO 3166-3 former country names of Debian's ``iso-codes`` 4.15.0 (``build_fresh7_report.py``).

Every page has a running header, a stamp and a page-number footer. Gold answers come from the source
text or data as printed; gold boxes are the blocks this script drew the evidence in (PDF points, top-left
origin). The questions and golds were committed before any generator ran on these PDFs.
"""

from __future__ import annotations

import os
import re
import subprocess

from build import q
from build_fresh2 import ManDoc, _clean

SPLIT = "fresh7"
_OPT = re.compile(r"^ {2,6}(-\S.*?)(?: {2,}|(?<=\S) (?=[^\x00-\x7f]))(\S.*)$")
_HEAD = re.compile(r"^ {2,6}-\S.*[^ ]$")

GREP_QA = {  # (question, token, must, answer, figures)
    "en": [("Which grep option takes the patterns from a file?", "-f", "--file", "-f, --file=FILE", ["-f", "--file"]),
           ("Which grep option makes it match only whole lines?", "-x", "--line-regexp", "-x, --line-regexp",
            ["-x", "--line-regexp"]),
           ("Which grep option prints only a count of the selected lines for each file?", "-c", "--count",
            "-c, --count", ["-c", "--count"]),
           ("Which grep option makes it stop after a given number of selected lines?", "-m", "--max-count",
            "-m, --max-count=NUM", ["-m", "--max-count"]),
           ("Which grep option searches directories recursively and follows all symbolic links?", "-R",
            "--dereference-recursive", "-R, --dereference-recursive", ["-R", "--dereference-recursive"]),
           ("Which grep option prints only the names of files that have no selected lines?", "-L",
            "--files-without-match", "-L, --files-without-match", ["-L", "--files-without-match"]),
           ("What exit status does grep return if an error occurs and -q is not given?", "2", "-q", "2", ["2"]),
           ("Which grep option keeps the CR characters at the end of lines (MSDOS/Windows)?", "-U", "--binary",
            "-U, --binary", ["-U", "--binary"]),
           ("Which grep option sets the separator printed between matches shown with context?",
            "--group-separator", "", "--group-separator=SEP", ["--group-separator"]),
           ("Which single-letter grep option is equivalent to --binary-files=without-match?", "-I", "without-match",
            "-I", ["-I"])],
    "zh": [("grep 的哪个选项从文件中获取模式？", "-f", "--file", "-f, --file=文件", ["-f", "--file"]),
           ("grep 的哪个选项让它仅匹配整行？", "-x", "--line-regexp", "-x, --line-regexp", ["-x", "--line-regexp"]),
           ("grep 的哪个选项只打印每个文件中被选中的行的数量？", "-c", "--count", "-c, --count", ["-c", "--count"]),
           ("grep 的哪个选项让它在选中指定数量的行后停止？", "-m", "--max-count", "-m, --max-count=数值",
            ["-m", "--max-count"]),
           ("grep 的哪个选项递归搜索目录并跟随所有符号链接？", "-R", "--dereference-recursive",
            "-R, --dereference-recursive", ["-R", "--dereference-recursive"]),
           ("grep 的哪个选项只打印没有被选中的行的文件的名称？", "-L", "--files-without-match",
            "-L, --files-without-match", ["-L", "--files-without-match"]),
           ("如果发生错误且未指定 -q 选项，grep 返回什么退出状态？", "2", "-q", "2", ["2"]),
           ("grep 的哪个选项保留行尾的 CR 字符（MSDOS/Windows）？", "-U", "--binary", "-U, --binary",
            ["-U", "--binary"]),
           ("grep 的哪个选项设置在带有上下文的匹配块之间打印的分隔符？", "--group-separator", "",
            "--group-separator=分隔符", ["--group-separator"]),
           ("grep 的哪个单字母选项等价于 --binary-files=without-match？", "-I", "without-match", "-I", ["-I"])]}
DIFF_QA = {
    "en": [("By default, how many lines of copied context does diff -c output?", "3", "--context", "3", ["3"]),
           ("By default, at most how many print columns does diff output with --width?", "130", "--width", "130",
            ["130"]),
           ("Which diff option reports when two files are the same?", "-s", "--report-identical-files",
            "-s, --report-identical-files", ["-s", "--report-identical-files"]),
           ("Which diff option shows which C function each change is in?", "-p", "--show-c-function",
            "-p, --show-c-function", ["-p", "--show-c-function"]),
           ("Which diff option passes the output through pr to paginate it?", "-l", "--paginate", "-l, --paginate",
            ["-l", "--paginate"]),
           ("Which diff option treats absent files as empty?", "-N", "--new-file", "-N, --new-file",
            ["-N", "--new-file"]),
           ("Which diff option ignores white space at the end of lines?", "-Z", "--ignore-trailing-space",
            "-Z, --ignore-trailing-space", ["-Z", "--ignore-trailing-space"]),
           ("Which diff option tries hard to find a smaller set of changes?", "-d", "--minimal", "-d, --minimal",
            ["-d", "--minimal"])],
    "zh": [("默认情况下，diff -c 输出多少行复制上下文？", "3", "--context", "3", ["3"]),
           ("默认情况下，使用 --width 时 diff 每行最多输出多少个字符？", "130", "--width", "130", ["130"]),
           ("diff 的哪个选项在两个文件相同时也报告结果？", "-s", "--report-identical-files",
            "-s, --report-identical-files", ["-s", "--report-identical-files"]),
           ("diff 的哪个选项显示每个变更位于哪个 C 函数中？", "-p", "--show-c-function", "-p, --show-c-function",
            ["-p", "--show-c-function"]),
           ("diff 的哪个选项把输出送至 pr 指令来分页？", "-l", "--paginate", "-l, --paginate", ["-l", "--paginate"]),
           ("diff 的哪个选项把不存在的文件当作空文件处理？", "-N", "--new-file", "-N, --new-file",
            ["-N", "--new-file"]),
           ("diff 的哪个选项忽略每行末端的空格？", "-Z", "--ignore-trailing-space", "-Z, --ignore-trailing-space",
            ["-Z", "--ignore-trailing-space"]),
           ("diff 的哪个选项尽可能找出最小的差异集？", "-d", "--minimal", "-d, --minimal", ["-d", "--minimal"])]}


def help_text(prog: str, lang: str) -> list[str]:
    """``prog --help`` as printed in English or with the Simplified Chinese message catalog."""
    env = {**os.environ, "LANG": "C.UTF-8", "LC_ALL": "", "LANGUAGE": "zh_CN" if lang == "zh" else ""}
    out = subprocess.run([prog, "--help"], capture_output=True, check=True, env=env).stdout.decode("utf-8")
    return out.splitlines()


def layout_help(d: ManDoc, lines: list[str], zh: bool, numbered: str = "") -> None:
    """Draw help lines: an unindented line ending in a colon is a section heading (with ``numbered``, each
    blank-line group of options gets a numbered heading instead), an option line with its continuation lines
    one entry, other lines of a group one paragraph."""
    groups: list[list[str]] = [[]]
    for ln in lines:
        if ln.strip():
            groups[-1].append(ln.rstrip())
        elif groups[-1]:
            groups.append([])
    n = 0
    for grp in (g for g in groups if g):
        if re.match(r"^\S.*[:：]$", grp[0]):
            d.sect(grp[0].rstrip(":："), 12)
            grp = grp[1:]
        elif numbered and _HEAD.match(grp[0]):
            n += 1
            d.sect(numbered.format(n), 12)
        items: list[tuple[str, list[str]]] = []  # ("opt" | "prose", lines), in the order printed
        for ln in grp:
            indent = len(ln) - len(ln.lstrip())
            if _HEAD.match(ln):
                last = items[-1] if items else ("", [])
                if last[0] == "opt" and len(last[1]) == 1 and not _OPT.match(last[1][0]):
                    last[1].append(ln)  # "--color[=WHEN]," then "--colour[=WHEN]  ..."
                else:
                    items.append(("opt", [ln]))
            elif items and items[-1][0] == "opt" and indent >= 20:
                items[-1][1].append(ln)
            elif items and items[-1][0] == "prose":
                items[-1][1].append(ln)
            else:
                items.append(("prose", [ln]))
        for kind, ent in items:
            if kind == "prose":
                d.block(_clean(" ".join(ent), zh), 10)
                continue
            heads, body = [], []
            for ln in ent:
                m = _OPT.match(ln)
                if m and not body:
                    heads.append(m[1].strip())
                    body.append(m[2])
                elif not body:
                    heads.append(ln.strip())
                else:
                    body.append(ln.strip())
            d.entry(" ".join(heads), _clean(" ".join(body), zh))


def help_page(prog: str, lang: str, version: str, rows: dict[str, list[tuple]], split: str = SPLIT,
              numbered: dict[str, str] | None = None) -> list[dict]:
    """The ``--help`` of ``prog`` as a reference page (``numbered``: per language, headings for the option
    groups of a help without sections), with its questions."""
    zh = lang == "zh"
    name = f"{prog}_help_{lang}"
    title = {"en": f"{prog} --help reference", "zh": f"{prog} --help 参考"}[lang]
    d = ManDoc(name, title, f"GNU {prog} - {'command-line help' if not zh else '命令行帮助'}", zh, version)
    d.sect(f"{prog} --help", 15)
    layout_help(d, help_text(prog, lang), zh, (numbered or {}).get(lang, ""))
    doc = d.save()

    def gold(tok: str, must: str) -> list[tuple[int, tuple[float, ...]]]:
        pat = re.compile(rf"(?<![A-Za-z0-9-]){re.escape(tok)}(?![A-Za-z0-9-])")
        hits = [(p, b) for _, p, b, t in d.drawn if pat.search(t) and must in t]
        if not hits:
            raise SystemExit(f"{name}: no block has {tok!r} and {must!r}")
        return hits

    return [q(doc, f"{name}-{i:02d}", question, answer, figs, "text", lang, gold(tok, must), split)
            for i, (question, tok, must, answer, figs) in enumerate(rows[lang], start=1)]


DIFF_PARTS = {"en": "Options, part {}", "zh": "选项（第 {} 部分）"}   # diff's help has no section headings
UNANSWERABLE = [("Which ISO 4217 currency code did the Netherlands Antilles use before the guilder?", "en"),
                ("How many former countries were given a new ISO 3166-1 code in the same year they were withdrawn?",
                 "en"),
                ("What is the largest file size that grep can search?", "en"),
                ("In which year was the --side-by-side option added to diff?", "en"),
                ("荷属安的列斯在使用荷属安的列斯盾之前使用哪个 ISO 4217 货币代码？", "zh"),
                ("有多少个前国家在被撤销的同一年获得了新的 ISO 3166-1 代码？", "zh"),
                ("grep 能搜索的最大文件大小是多少？", "zh"),
                ("diff 的 --side-by-side 选项是在哪一年加入的？", "zh")]


def fresh7_records() -> list[dict]:
    """All questions of the fresh7 split (writes the eight PDFs)."""
    from build_fresh7_report import currency_report, former_report

    out = []
    for lang in ("en", "zh"):
        out += (help_page("grep", lang, "GNU grep 3.8", GREP_QA)
                + help_page("diff", lang, "GNU diffutils 3.8", DIFF_QA, numbered=DIFF_PARTS)
                + currency_report(lang) + former_report(lang))
    for i, (question, lang) in enumerate(UNANSWERABLE, start=1):
        out.append({"id": f"fresh7-none-{i:02d}", "question": question, "answer": "", "figures": [],
                    "category": "unanswerable", "lang": lang, "doc": "", "pages": [], "boxes": [], "split": SPLIT})
    return out

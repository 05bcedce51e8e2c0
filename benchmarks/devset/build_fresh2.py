"""The ``fresh2`` split of the dev set: a second parallel English/Chinese held-out set (imported by ``build.py``).

Built after the ``fresh`` split had been used for tuning, with the same conventions (``build_fresh.py``),
on sources used nowhere else in this repository:

* ``apropos_{en,zh}`` and ``lexgrog_{en,zh}``: the manual pages of man-db 2.11.2 as shipped by Debian
  (``/usr/share/man/man1`` and the Simplified Chinese translation in ``/usr/share/man/zh_CN/man1``; GPL-2+),
  rendered to text with groff and laid out as a man page PDF: section names as headings, each option
  entry (its option line and the indented description) as one block;
* ``gnupg_help_{en,zh}``: the entries of GnuPG's online help (``/usr/share/gnupg/help.txt`` and
  ``help.zh_CN.txt``; GPL-3+) that exist in both languages, each its key as a heading and its paragraphs;
* ``diabetes_{en,zh}``: a two-page report generated from scikit-learn's diabetes data (``build_fresh2_report.py``).

Every page has a running header, a stamp and a page-number footer. Gold answers come from the source
text or data as printed; gold boxes are the blocks this script drew the evidence in (PDF points, top-left
origin). The questions and golds were committed before any generator ran on these PDFs.
"""

from __future__ import annotations

import gzip
import re
import subprocess
from pathlib import Path

import pymupdf
from build import q
from build_fresh import _CJK2, FreshDoc

SPLIT = "fresh2"
MAN = {"en": Path("/usr/share/man/man1"), "zh": Path("/usr/share/man/zh_CN/man1")}
GNUPG = {"en": Path("/usr/share/gnupg/help.txt"), "zh": Path("/usr/share/gnupg/help.zh_CN.txt")}


class ManDoc(FreshDoc):
    """``FreshDoc`` that can draw a man page option entry (tag line, indented description) as one block."""

    def height(self, text: str, size: float, x0: float = 72.0, mono: bool = False) -> float:
        scratch = pymupdf.open()
        page = scratch.new_page(width=612.0, height=792.0)
        font = {"fontname": "cour"} if mono else self.font()
        return 700 - page.insert_textbox(pymupdf.Rect(x0, 0, 540, 700), text, fontsize=size, **font)

    def _draw(self, text: str, size: float, x0: float, mono: bool = False) -> float:
        assert self.page is not None
        h = self.height(text, size, x0, mono)
        font = {"fontname": "cour"} if mono else self.font()
        self.page.insert_textbox(pymupdf.Rect(x0, self.y, 540, self.y + h + 2), text, fontsize=size, **font)
        return h

    def entry(self, head: str, body: str, size: float = 10) -> None:
        hh, hb = self.height(head, size), self.height(body, size, 96.0) if body else 0.0
        self.need(hh + hb + 6)
        top = self.y
        self.y += self._draw(head, size, 72.0) + (2 if body else 0)
        if body:
            self.y += self._draw(body, size, 96.0)
        box = (72.0, round(top, 1), 540.0, round(self.y, 1))
        self.drawn.append((self.section, self.pdf.page_count, box, f"{head} {body}".strip()))
        self.y += 10

    def indented(self, text: str, size: float = 10, mono: bool = False) -> None:
        self.need(self.height(text, size, 96.0, mono) + 6)
        top = self.y
        self.y += self._draw(text, size, 96.0, mono)
        self.drawn.append((self.section, self.pdf.page_count, (72.0, round(top, 1), 540.0, round(self.y, 1)), text))
        self.y += 10

    def gold(self, section: str, token: str, must: str = "") -> list[tuple[int, tuple[float, ...]]]:
        """The blocks of exactly ``section`` that have ``token`` as a separate word (and ``must``, if given)."""
        pat = re.compile(rf"(?<![A-Za-z0-9]){re.escape(token)}(?![A-Za-z0-9])")
        hits = [(p, b) for s, p, b, t in self.drawn if s == section and pat.search(t) and must in t]
        if not hits:
            raise SystemExit(f"{self.name}: no block of section {section!r} has {token!r} and {must!r}")
        return hits


def _clean(text: str, zh: bool) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return _CJK2.sub("", text) if zh else text


def render_man(path: Path) -> list[str]:
    """The man page as text lines, one line per filled paragraph (groff, very long lines, no hyphenation)."""
    roff = subprocess.run(["preconv"], input=gzip.decompress(path.read_bytes()), capture_output=True,
                          check=True).stdout
    out = subprocess.run(["groff", "-man", "-Tutf8", "-P-cbou", "-rLL=2000n", "-rHY=0"], input=roff,
                         capture_output=True, check=True).stdout.decode("utf-8")
    lines = [ln.rstrip() for ln in out.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines[1:-1]  # the title and footer lines: drawn as page furniture instead


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def layout_man(d: ManDoc, lines: list[str], zh: bool) -> None:
    """Draw rendered man-page lines: unindented lines are section headings, an option line with its
    indented description one entry, indented runs paragraphs; examples, tables and line-broken lists
    keep their lines."""
    blocks: list[list[str]] = []
    cur: list[str] = []
    for ln in [*lines, ""]:
        if ln and _indent(ln) == 0:
            blocks += [cur] if cur else []
            blocks.append([ln])
            cur = []
        elif ln:
            cur.append(ln)
        elif cur:
            blocks.append(cur)
            cur = []
    for blk in blocks:
        if len(blk) == 1 and _indent(blk[0]) == 0:
            d.sect(blk[0].strip(), 12)
        elif _indent(blk[0]) == 7 and len(blk) > 1 and all(_indent(x) >= 14 for x in blk[1:]):
            d.entry(blk[0].strip(), _clean(" ".join(blk[1:]), zh))
        elif all(_indent(x) >= 14 for x in blk):
            d.indented(_clean(" ".join(blk), zh))
        elif _indent(blk[0]) == 9 or len(blk) > 1:  # examples, tables, line-broken lists
            d.indented("\n".join(x.strip() for x in blk), 9 if _indent(blk[0]) == 9 else 10, _indent(blk[0]) == 9)
        else:
            d.entry(_clean(blk[0], zh), "")


def man_page(prog: str, lang: str, title: str, rows: list[tuple]) -> list[dict]:
    """One man page as a PDF and its questions: rows of (question, section, token, must, answer, figures)."""
    zh = lang == "zh"
    lines = render_man(MAN[lang] / f"{prog}.1.gz")
    name = f"{prog}_{lang}"
    d = ManDoc(name, f"{prog}(1)", f"{prog.upper()}(1) - {title}", zh, "man-db 2.11.2")
    d.sect(f"{prog.upper()}(1)", 15)
    layout_man(d, lines, zh)
    doc = d.save()
    return [q(doc, f"{name}-{i:02d}", question, answer, figs, "text", lang, d.gold(sec, tok, must), SPLIT)
            for i, (question, sec, tok, must, answer, figs) in enumerate(rows, start=1)]


APROPOS = {
    "en": [("Which apropos option restricts the output to entries that match every one of the keywords?",
            "OPTIONS", "-a", "--and", "-a, --and", ["-a", "--and"]),
           ("What exit status does apropos return when it finds no matching page?",
            "EXIT STATUS", "16", "", "16", ["16"]),
           ("Which program keeps the database that apropos searches up to date?",
            "DESCRIPTION", "mandb", "", "mandb", ["mandb"]),
           ("Unless told otherwise, which user configuration file does apropos use?",
            "OPTIONS", "~/.manpath", "", "~/.manpath", ["~/.manpath"]),
           ("If apropos cannot work out the terminal width in any other way, how many characters wide does it "
            "assume the terminal is?", "ENVIRONMENT", "80", "", "80 characters", ["80"]),
           ("Which environment variable can stand in for the -m option of apropos?",
            "ENVIRONMENT", "SYSTEM", "", "SYSTEM ($SYSTEM)", ["SYSTEM"])],
    "zh": [("apropos 的哪个选项只列出与所有给定关键词都匹配的条目？", "选项", "-a", "--and", "-a, --and",
            ["-a", "--and"]),
           ("apropos 找不到任何匹配的手册页时返回什么退出状态？", "退出状态", "16", "", "16", ["16"]),
           ("apropos 所搜索的数据库由哪个程序负责更新？", "描述", "mandb", "", "mandb", ["mandb"]),
           ("如果不另行指定，apropos 默认使用哪个用户配置文件？", "选项", "~/.manpath", "", "~/.manpath",
            ["~/.manpath"]),
           ("如果 apropos 用其他办法都无法确定终端宽度，它会假定终端有多少个字符宽？", "环境", "80", "", "80 个字符",
            ["80"]),
           ("哪个环境变量可以起到与 apropos 的 -m 选项相同的作用？", "环境", "SYSTEM", "", "SYSTEM（$SYSTEM）",
            ["SYSTEM"])]}
LEXGROG = {
    "en": [("Which exit status tells you that lexgrog could not parse one or more of its input files?",
            "EXIT STATUS", "2", "", "2", ["2"]),
           ("Which lexgrog option treats its input as preformatted cat pages?",
            "OPTIONS", "-c", "--cat", "-c, --cat", ["-c", "--cat"]),
           ("With which option can you override the character set lexgrog guesses for a page?",
            "OPTIONS", "-E", "--encoding", "-E, --encoding", ["-E", "--encoding"]),
           ("Where does lexgrog read from when one of its input files is given as a dash?",
            "DESCRIPTION", "standard input", "", "standard input", ["standard input"]),
           ("Which lexgrog option lists the filters a man page must go through before it is formatted?",
            "OPTIONS", "-f", "--filters", "-f, --filters", ["-f", "--filters"]),
           ("Which program shares its NAME-section parsing code with lexgrog?",
            "WHATIS PARSING", "mandb", "same code", "mandb", ["mandb"])],
    "zh": [("lexgrog 返回哪个退出状态表示有一个或多个输入文件无法解析？", "退出状态", "2", "", "2", ["2"]),
           ("lexgrog 的哪个选项把输入当作预格式化的 cat 页面来解析？", "选项", "-c", "--cat", "-c, --cat",
            ["-c", "--cat"]),
           ("用 lexgrog 的哪个选项可以覆盖它自动推测的页面编码？", "选项", "-E", "--encoding", "-E, --encoding",
            ["-E", "--encoding"]),
           ("如果 lexgrog 的某个输入文件写作一个短横线，它会从哪里读取？", "描述", "标准输入", "", "标准输入",
            ["标准输入"]),
           ("lexgrog 的哪个选项会列出手册页在排版前需要经过的过滤器？", "选项", "-f", "--filters", "-f, --filters",
            ["-f", "--filters"]),
           ("哪个程序与 lexgrog 使用相同的代码来解析 NAME 节？", "WHATIS 解析", "mandb", "相同的代码", "mandb",
            ["mandb"])]}


def _gnupg(path: Path) -> dict[str, list[str]]:
    """Help key -> its paragraphs (comment lines dropped)."""
    out: dict[str, list[str]] = {}
    for m in re.finditer(r"^\.([a-z][\w.-]*)\n(.*?)^\.$", path.read_text(encoding="utf-8"), flags=re.M | re.S):
        body = "\n".join(ln for ln in m.group(2).splitlines() if not ln.startswith("#"))
        out[m.group(1)] = [p for p in re.split(r"\n\s*\n", body) if p.strip()]
    return out


GNUPG_QA = {  # (question, key, token, must, answer, figures)
    "en": [("Which of the algorithms offered when generating a key can only encrypt?",
            "gpg.keygen.algo", "Elgamal", "", "Elgamal", ["Elgamal"]),
           ("When certifying a user ID, which verification level should you pick if you are not sure what to "
            "answer?", "gpg.sign_uid.class", "0", "don't know", "\"0\"", ["0"]),
           ("In what format can a date be typed when you are asked how long a key should stay valid?",
            "gpg.keygen.valid", "YYYY-MM-DD", "", "YYYY-MM-DD (ISO date)", ["YYYY-MM-DD"]),
           ("When the preferences of user IDs are updated, by how much are the timestamps of the affected "
            "self-signatures moved forward?", "gpg.keyedit.updpref.okay", "one second", "", "one second",
            ["one second"])],
    "zh": [("生成密钥时可选的算法中，哪一种只能用于加密？", "gpg.keygen.algo", "Elgamal", "", "Elgamal", ["Elgamal"]),
           ("为用户标识签名时，如果不确定该怎样回答，应选择哪个验证级别？", "gpg.sign_uid.class", "0", "不知道",
            "“0”", ["0"]),
           ("被问到密钥的有效期时，可以按什么格式输入日期？", "gpg.keygen.valid", "YYYY-MM-DD", "",
            "YYYY-MM-DD（ISO 日期格式）", ["YYYY-MM-DD"]),
           ("更新用户标识的首选项时，受影响的自身签名的时间戳会往后调整多少？", "gpg.keyedit.updpref.okay", "一秒",
            "", "一秒钟", ["一秒"])]}


def gnupg_help(lang: str) -> list[dict]:
    zh = lang == "zh"
    helps = {la: _gnupg(p) for la, p in GNUPG.items()}
    keys = [k for k in helps["zh"] if k in helps["en"]  # and more than a yes/no prompt
            and helps["en"][k] != ['Answer "yes" or "no".']]
    name = f"gnupg_help_{lang}"
    d = ManDoc(name, "GnuPG online help" if not zh else "GnuPG 在线帮助",
               "GnuPG - online help texts" if not zh else "GnuPG - 在线帮助文本", zh, "GnuPG 2.2.40")
    d.sect("Help texts shown at gpg prompts" if not zh else "gpg 提示时显示的帮助文本", 15)
    for key in keys:
        d.sect(key, 11)
        for par in helps[lang][key]:
            d.block(_clean(par, zh), 9.5)
    doc = d.save()
    return [q(doc, f"{name}-{i:02d}", question, answer, figs, "text", lang, d.gold(key, tok, must), SPLIT)
            for i, (question, key, tok, must, answer, figs) in enumerate(GNUPG_QA[lang], start=1)]


UNANSWERABLE = [("How many of the patients in the diabetes report were smokers?", "en"),
                ("What key size in bits does GnuPG suggest by default when a new key is generated?", "en"),
                ("In which year was the lexgrog command first written?", "en"),
                ("糖尿病报告中的患者有多少人吸烟？", "zh"),
                ("生成新密钥时，GnuPG 默认建议的密钥长度是多少位？", "zh"),
                ("lexgrog 命令最早是在哪一年编写的？", "zh")]


def fresh2_records() -> list[dict]:
    """All questions of the fresh2 split (writes the eight PDFs)."""
    from build_fresh2_report import diabetes_report

    out = []
    for lang in ("en", "zh"):
        out += man_page("apropos", lang, "Manual pager utils" if lang == "en" else "手册分页显示工具", APROPOS[lang])
        out += man_page("lexgrog", lang, "Manual pager utils" if lang == "en" else "手册分页显示工具", LEXGROG[lang])
        out += gnupg_help(lang) + diabetes_report(lang)
    for i, (question, lang) in enumerate(UNANSWERABLE, start=1):
        out.append({"id": f"fresh2-none-{i:02d}", "question": question, "answer": "", "figures": [],
                    "category": "unanswerable", "lang": lang, "doc": "", "pages": [], "boxes": [], "split": SPLIT})
    return out

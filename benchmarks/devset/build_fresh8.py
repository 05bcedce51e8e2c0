"""The ``fresh8`` split of the dev set: an eighth parallel English/Chinese held-out set (imported by ``build.py``).

Built after the ``fresh`` to ``fresh7`` splits had been used for tuning, with the same conventions
(``build_fresh.py``, ``build_fresh2.py``, ``build_fresh7.py``), on sources used nowhere else in this repository:

* ``sort_help_{en,zh}``: the ``--help`` text of GNU sort (coreutils 9.1 as shipped by Debian), in English and in
  its Simplified Chinese translation (the ``zh_CN`` message catalog ``coreutils.mo`` of the same package; GPL-3+),
  laid out as ``build_fresh7.py`` lays out grep's help: the help's section names as headings, each option with its
  description as one block, the prose lines as paragraphs;
* ``uniq_help_{en,zh}``: the ``--help`` text of GNU uniq (same package and catalog), same layout;
* ``iso639_2_{en,zh}``: a two-page report generated from the ISO 639-2 language codes of Debian's ``iso-codes``
  4.15.0 (``build_fresh8_report.py``).

Every page has a running header, a stamp and a page-number footer. Gold answers come from the source
text or data as printed; gold boxes are the blocks this script drew the evidence in (PDF points, top-left
origin). The questions and golds were committed before any generator ran on these PDFs.
"""

from __future__ import annotations

from build_fresh7 import help_page

SPLIT = "fresh8"

SORT_QA = {  # (question, token, must, answer, figures)
    "en": [("Which sort option compares human readable numbers such as 2K and 1G?", "-h", "--human-numeric-sort",
            "-h, --human-numeric-sort", ["-h", "--human-numeric-sort"]),
           ("Which sort option sorts by month names?", "-M", "--month-sort", "-M, --month-sort",
            ["-M", "--month-sort"]),
           ("Which sort option writes the result to a file instead of standard output?", "-o", "--output",
            "-o, --output=FILE", ["-o", "--output"]),
           ("Which sort option sets the field separator?", "-t", "--field-separator", "-t, --field-separator=SEP",
            ["-t", "--field-separator"]),
           ("Which sort option checks whether the input is sorted but does not report the first bad line?", "-C",
            "--check=quiet", "-C, --check=quiet, --check=silent", ["-C", "--check=quiet"]),
           ("Which sort option changes the number of sorts run concurrently?", "--parallel", "",
            "--parallel=N", ["--parallel"]),
           ("Which sort option compresses temporary files with a program?", "--compress-program", "",
            "--compress-program=PROG", ["--compress-program"]),
           ("Which sort option merges files that are already sorted?", "-m", "--merge", "-m, --merge",
            ["-m", "--merge"]),
           ("Which sort option folds lower case to upper case characters (ignores case)?", "-f", "--ignore-case",
            "-f, --ignore-case", ["-f", "--ignore-case"]),
           ("What environment setting gives the traditional sort order that uses native byte values?",
            "LC_ALL=C", "native", "LC_ALL=C", ["LC_ALL=C"])],
    "zh": [("sort 的哪个选项对可读性较好的数字（例如 2K 1G）进行排序？", "-h", "--human-numeric-sort",
            "-h, --human-numeric-sort", ["-h", "--human-numeric-sort"]),
           ("sort 的哪个选项对月份进行排序？", "-M", "--month-sort", "-M, --month-sort", ["-M", "--month-sort"]),
           ("sort 的哪个选项将结果写入文件而非标准输出？", "-o", "--output", "-o, --output=文件",
            ["-o", "--output"]),
           ("sort 的哪个选项指定字段分隔符？", "-t", "--field-separator", "-t, --field-separator=分隔符",
            ["-t", "--field-separator"]),
           ("sort 的哪个选项检查输入是否有序，但不报告第一个无序行？", "-C", "--check=quiet",
            "-C, --check=quiet, --check=silent", ["-C", "--check=quiet"]),
           ("sort 的哪个选项设置并发执行的排序线程数？", "--parallel", "", "--parallel=N", ["--parallel"]),
           ("sort 的哪个选项使用一个程序压缩临时文件？", "--compress-program", "", "--compress-program=程序",
            ["--compress-program"]),
           ("sort 的哪个选项归并已排序的文件？", "-m", "--merge", "-m, --merge", ["-m", "--merge"]),
           ("sort 的哪个选项忽略大小写？", "-f", "--ignore-case", "-f, --ignore-case", ["-f", "--ignore-case"]),
           ("要按照字节的自然值进行传统的排序，应设置什么环境变量？", "LC_ALL=C", "自然值", "LC_ALL=C",
            ["LC_ALL=C"])]}
UNIQ_QA = {
    "en": [("Which uniq option prefixes lines by the number of occurrences?", "-c", "--count", "-c, --count",
            ["-c", "--count"]),
           ("Which uniq option prints only unique lines?", "-u", "--unique", "-u, --unique", ["-u", "--unique"]),
           ("Which uniq option avoids comparing the first N characters?", "-s", "--skip-chars",
            "-s, --skip-chars=N", ["-s", "--skip-chars"]),
           ("Which uniq option compares no more than N characters in lines?", "-w", "--check-chars",
            "-w, --check-chars=N", ["-w", "--check-chars"]),
           ("Which uniq option prints all duplicate lines?", "-D", "print all duplicate", "-D", ["-D"])],
    "zh": [("uniq 的哪个选项在每行之前加上该行的重复次数作为前缀？", "-c", "--count", "-c, --count",
            ["-c", "--count"]),
           ("uniq 的哪个选项只输出不重复（内容唯一）的行？", "-u", "--unique", "-u, --unique", ["-u", "--unique"]),
           ("uniq 的哪个选项不比较前 N 个字符？", "-s", "--skip-chars", "-s, --skip-chars=N",
            ["-s", "--skip-chars"]),
           ("uniq 的哪个选项每行最多比较 N 个字符？", "-w", "--check-chars", "-w, --check-chars=N",
            ["-w", "--check-chars"]),
           ("uniq 的哪个选项输出所有重复的行？", "-D", "输出所有重复的行", "-D", ["-D"])]}


UNANSWERABLE = [("By default, how many sorts does sort run concurrently when --parallel is not given?", "en"),
                ("In which year did German get its ISO 639-2 bibliographic code ger?", "en"),
                ("未指定 --parallel 时，sort 默认并发执行多少个排序线程？", "zh"),
                ("德语的 ISO 639-2 文献代码 ger 是在哪一年确定的？", "zh")]


def fresh8_records() -> list[dict]:
    """All questions of the fresh8 split (writes the six PDFs)."""
    from build_fresh8_report import iso639_2_report

    out = []
    for lang in ("en", "zh"):
        out += (help_page("sort", lang, "GNU coreutils 9.1", SORT_QA, SPLIT)
                + help_page("uniq", lang, "GNU coreutils 9.1", UNIQ_QA, SPLIT) + iso639_2_report(lang))
    for i, (question, lang) in enumerate(UNANSWERABLE, start=1):
        out.append({"id": f"fresh8-none-{i:02d}", "question": question, "answer": "", "figures": [],
                    "category": "unanswerable", "lang": lang, "doc": "", "pages": [], "boxes": [], "split": SPLIT})
    return out

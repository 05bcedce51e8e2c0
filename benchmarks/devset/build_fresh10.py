"""The ``fresh10`` split of the dev set: a tenth parallel English/Chinese held-out set (imported by ``build.py``).

Built after the ``fresh`` to ``fresh9`` splits had been used for tuning, with the same conventions
(``build_fresh.py``, ``build_fresh7.py``, ``build_fresh9.py``), on sources used nowhere else in this repository:

* ``du_help_{en,zh}``: the ``--help`` text of GNU du (coreutils 9.1 as shipped by Debian), in English and in its
  Simplified Chinese translation (the ``zh_CN`` message catalog ``coreutils.mo`` of the same package; GPL-3+),
  laid out as ``build_fresh7.py`` lays out grep's help: each option with its description as one block, the prose
  lines (display units, SIZE) as paragraphs;
* ``debian_releases_{en,zh}``: a two-page report generated from the Debian release list of Debian's
  ``distro-info-data`` 0.58+deb12u6 (``build_fresh10_report.py``).

Every page has a running header, a stamp and a page-number footer. Gold answers come from the source
text or data as printed; gold boxes are the blocks this script drew the evidence in (PDF points, top-left
origin). The questions and golds were committed before any generator ran on these PDFs.
"""

from __future__ import annotations

from build_fresh7 import help_page

SPLIT = "fresh10"

DU_QA = {  # (question, token, must, answer, figures)
    "en": [("Which du option terminates each line of output with a NUL byte rather than a newline?", "-0", "--null",
            "-0, --null", ["-0", "--null"]),
           ("Which du option reports every file as well, not only directories?", "-a", "--all", "-a, --all",
            ["-a", "--all"]),
           ("Which du option adds a grand total at the end of the output?", "-c", "--total", "-c, --total",
            ["-c", "--total"]),
           ("Which du option prints a directory's total only when it is at most N levels deep below the "
            "argument?", "-d", "--max-depth", "-d, --max-depth=N", ["-d", "--max-depth"]),
           ("Which du option reports inode usage rather than block usage?", "--inodes", "", "--inodes",
            ["--inodes"]),
           ("Which du option counts a hard-linked file's size more than once?", "-l", "--count-links",
            "-l, --count-links", ["-l", "--count-links"]),
           ("Which du option leaves the sizes of subdirectories out of a directory's size?", "-S",
            "--separate-dirs", "-S, --separate-dirs", ["-S", "--separate-dirs"]),
           ("Which du option prints just one total per command-line argument?", "-s", "--summarize",
            "-s, --summarize", ["-s", "--summarize"]),
           ("Which du option skips directories that are on other file systems?", "-x", "--one-file-system",
            "-x, --one-file-system", ["-x", "--one-file-system"]),
           ("Which du option leaves out entries below a given size when that size is positive?", "-t",
            "--threshold", "-t, --threshold=SIZE", ["-t", "--threshold"]),
           ("Which du option takes the NUL-separated names of the files to summarize from a file, or from "
            "standard input?", "--files0-from", "standard input", "--files0-from=F", ["--files0-from"]),
           ("When no block size is set anywhere, how many bytes is one display unit of du?", "1024",
            "POSIXLY_CORRECT", "1024", ["1024"]),
           ("Which environment variable named after du sets the units its values are shown in?",
            "DU_BLOCK_SIZE", "", "DU_BLOCK_SIZE", ["DU_BLOCK_SIZE"]),
           ("Which single-letter du option shows sizes in units of one mebibyte?", "-m", "1M", "-m", ["-m"]),
           ("In a du SIZE argument, is the unit KB a power of 1000 or of 1024?", "1000", "KB", "1000",
            ["1000"])],
    "zh": [("du 的哪个选项用 NUL 字节而不是换行符结束每一行输出？", "-0", "--null", "-0, --null", ["-0", "--null"]),
           ("du 的哪个选项也报告每个文件，而不只是目录？", "-a", "--all", "-a, --all", ["-a", "--all"]),
           ("du 的哪个选项在输出末尾加上一个总计？", "-c", "--total", "-c, --total", ["-c", "--total"]),
           ("du 的哪个选项只在目录位于参数之下至多 N 层时才打印它的总大小？", "-d", "--max-depth",
            "-d, --max-depth=N", ["-d", "--max-depth"]),
           ("du 的哪个选项报告 inode 的使用情况而不是块的使用情况？", "--inodes", "", "--inodes", ["--inodes"]),
           ("du 的哪个选项会把硬链接文件的大小计算多次？", "-l", "--count-links", "-l, --count-links",
            ["-l", "--count-links"]),
           ("du 的哪个选项在目录的大小中不计入子目录的大小？", "-S", "--separate-dirs", "-S, --separate-dirs",
            ["-S", "--separate-dirs"]),
           ("du 的哪个选项对每个命令行参数只打印一个总数？", "-s", "--summarize", "-s, --summarize",
            ["-s", "--summarize"]),
           ("du 的哪个选项跳过位于其他文件系统上的目录？", "-x", "--one-file-system", "-x, --one-file-system",
            ["-x", "--one-file-system"]),
           ("当给定的大小为正值时，du 的哪个选项会略去小于该大小的项？", "-t", "--threshold",
            "-t, --threshold=大小", ["-t", "--threshold"]),
           ("du 的哪个选项从文件（或标准输入）中读取以 NUL 分隔的待统计文件名？", "--files0-from", "标准输入",
            "--files0-from=F", ["--files0-from"]),
           ("在任何地方都没有设置块大小时，du 的一个显示单位是多少字节？", "1024", "POSIXLY_CORRECT", "1024",
            ["1024"]),
           ("哪个以 du 命名的环境变量设置其数值显示所用的单位？", "DU_BLOCK_SIZE", "", "DU_BLOCK_SIZE",
            ["DU_BLOCK_SIZE"]),
           ("du 的哪个单字母选项以 1 MiB 为单位显示大小？", "-m", "1M", "-m", ["-m"]),
           ("在 du 的 <大小> 参数中，单位 KB 是 1000 的幂还是 1024 的幂？", "1000", "KB", "1000", ["1000"])]}

UNANSWERABLE = [("Which du option sorts the output by size?", "en"),
                ("In which year was the --inodes option added to du?", "en"),
                ("Which Linux kernel version does Debian 11 Bullseye ship?", "en"),
                ("How many packages does Debian 12 Bookworm contain?", "en"),
                ("du 的哪个选项按大小对输出排序？", "zh"),
                ("du 的 --inodes 选项是在哪一年加入的？", "zh"),
                ("Debian 11 Bullseye 附带的是哪个 Linux 内核版本？", "zh"),
                ("Debian 12 Bookworm 包含多少个软件包？", "zh")]


def fresh10_records() -> list[dict]:
    """All questions of the fresh10 split (writes the four PDFs)."""
    from build_fresh10_report import releases_report

    out = []
    for lang in ("en", "zh"):
        out += help_page("du", lang, "GNU coreutils 9.1", DU_QA, SPLIT) + releases_report(lang)
    for i, (question, lang) in enumerate(UNANSWERABLE, start=1):
        out.append({"id": f"fresh10-none-{i:02d}", "question": question, "answer": "", "figures": [],
                    "category": "unanswerable", "lang": lang, "doc": "", "pages": [], "boxes": [], "split": SPLIT})
    return out

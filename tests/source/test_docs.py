#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The documentation's shape: README.md is a front page of at most
README_MAX_LINES lines, and every relative link in README.md, tools/README.md
and doc/*.md (markdown links and images, outside code) names a file that exists, and
an anchor (#section) that one of its headings makes.

usage: test_docs.py
"""
import glob
import os
import re
import sys
import tempfile
import unittest

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
README_MAX_LINES = 400
# [text](target) or ![alt](target); the target ends at a space or ")".
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
CODE_SPAN = re.compile(r"`[^`]*`")


def pages():
    """README.md, tools/README.md and every doc/*.md, as paths relative to the source tree."""
    doc = sorted(os.path.relpath(p, SOURCE) for p in glob.glob(os.path.join(SOURCE, "doc", "*.md")))
    return ["README.md", "tools/README.md"] + doc


def prose_lines(root, path):
    """(line number, text) of every line outside fenced code blocks, code spans removed."""
    fenced = False
    with open(os.path.join(root, path), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            if not fenced:
                yield number, CODE_SPAN.sub("", line)


def anchor(heading):
    """The anchor GitHub makes of a heading: lower case, punctuation dropped, spaces to '-'."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(root, path):
    """Every anchor the headings of the markdown file at path make."""
    found = set()
    for _, line in prose_lines(root, path):
        m = re.match(r"#+\s+(.*)", line)
        if m:
            found.add(anchor(m.group(1)))
    return found


def broken_links(root, path):
    """'path:line: target (why)' for every relative link in root/path that leads nowhere."""
    broken = []
    for number, line in prose_lines(root, path):
        for target in LINK.findall(line):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            file_part, _, fragment = target.partition("#")
            linked = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            where = os.path.join(root, linked)
            if linked.startswith(".."):
                broken.append(f"{path}:{number}: {target} (outside the source tree)")
            elif not os.path.exists(where):
                broken.append(f"{path}:{number}: {target} ({linked} does not exist)")
            elif fragment and linked.endswith(".md") and fragment not in anchors(root, linked):
                broken.append(f"{path}:{number}: {target} (no heading in {linked} makes #{fragment})")
    return broken


class Docs(unittest.TestCase):
    def test_readme_is_a_front_page(self):
        with open(os.path.join(SOURCE, "README.md"), encoding="utf-8") as f:
            lines = sum(1 for _ in f)
        self.assertLessEqual(lines, README_MAX_LINES,
                             f"README.md has {lines} lines; measurements and their reasoning go in doc/")

    def test_relative_links_lead_somewhere(self):
        checked = pages()
        self.assertIn("doc/control-quality.md", checked)
        self.assertIn("tools/README.md", checked)
        broken = [b for p in checked for b in broken_links(SOURCE, p)]
        self.assertEqual(broken, [], "broken links:\n" + "\n".join(broken))

    def test_temperatures_as_the_programs_write_them(self):
        """A temperature in °C is written with a space before its unit, as the
        daemon and powerallocctl write it ("71.2 °C"): an example that differs
        from the output is one a reader cannot find in it (the README's STATUS
        line had "71.2°C").  Code blocks and spans too: they quote the output."""
        glued = []
        for page in pages() + sorted(os.path.relpath(p, SOURCE) for p in
                                     glob.glob(os.path.join(SOURCE, "man", "*.scd"))):
            with open(os.path.join(SOURCE, page), encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    if re.search(r"\d°C", line):
                        glued.append(f"{page}:{number}: {line.strip()}")
        self.assertEqual(glued, [], "write \"71.2 °C\", not \"71.2°C\":\n" + "\n".join(glued))

    def test_man_pages_see_each_other(self):
        """Each man page's SEE ALSO names the other two."""
        pages = {"powerallocd.8": "*powerallocd*(8)", "powerallocd.conf.5": "*powerallocd.conf*(5)",
                 "powerallocctl.1": "*powerallocctl*(1)"}
        for page in pages:
            with open(os.path.join(SOURCE, "man", page + ".scd"), encoding="utf-8") as f:
                see_also = f.read().split("# SEE ALSO", 1)[1]
            for other, ref in pages.items():
                if other != page:
                    self.assertIn(ref, see_also, page)

    def test_example_configuration_has_every_daemon_key(self):
        """conf/powerallocd.conf, the installed example, shows every key of
        powerallocd.conf(5)'s DAEMON KEYS (set, or commented out)."""
        with open(os.path.join(SOURCE, "man", "powerallocd.conf.5.scd"), encoding="utf-8") as f:
            section = f.read().split("# DAEMON KEYS", 1)[1].split("\n# ", 1)[0]
        keys = re.findall(r"(?m)^\*(\w+)\* = ", section)
        self.assertIn("metrics_dir", keys)
        with open(os.path.join(SOURCE, "conf", "powerallocd.conf"), encoding="utf-8") as f:
            example = f.read()
        for key in keys:
            self.assertRegex(example, r"(?m)^#? *%s = " % key, key)

    def test_the_checker_sees_a_broken_link(self):
        self.assertEqual(anchor("What it costs"), "what-it-costs")
        self.assertEqual(anchor("Faults and attacks (issue 23)"), "faults-and-attacks-issue-23")
        with tempfile.TemporaryDirectory() as root:
            os.mkdir(os.path.join(root, "doc"))
            with open(os.path.join(root, "doc", "a.md"), "w", encoding="utf-8") as f:
                f.write("# A page\n\n## Its part\n")
            with open(os.path.join(root, "README.md"), "w", encoding="utf-8") as f:
                f.write("# Front\n\n"
                        "[good](doc/a.md) [part](doc/a.md#its-part) [here](#front) ![img](doc/a.md)\n"
                        "[web](https://example.org/x) `[in a span](gone.md)`\n"
                        "```\n[in a block](gone.md)\n```\n"
                        "[missing](doc/b.md) [no part](doc/a.md#other) [up](../x.md)\n")
            broken = broken_links(root, "README.md")
        self.assertEqual(broken, [
            "README.md:8: doc/b.md (doc/b.md does not exist)",
            "README.md:8: doc/a.md#other (no heading in doc/a.md makes #other)",
            "README.md:8: ../x.md (outside the source tree)",
        ])

if __name__ == "__main__":
    sys.exit(unittest.main())

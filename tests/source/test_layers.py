#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The shape of lib/, daemon/ and ctl/ (doc/architecture.md):

- each folder of lib/ includes only its own headers and those of the layers
  under it: control <- platform <- config <- actors <- engine;
- lib/control/ includes nothing but the C library and calls no system call
  or libc I/O; lib/config/, lib/actors/ and lib/engine/ open no file
  themselves (they go through lib/platform/);
- the daemon (daemon/) and its client powerallocctl (ctl/) apart: each
  includes its own headers and lib/'s, none of the other's;
- the daemon's running parts call downwards only (DAEMON_PARTS): the loop,
  the period, the rescan, the stop, the sleep watch, the clock; none calls
  one listed before it, so no two call each other in a circle;
- no source file in lib/, daemon/ or ctl/ over MAX_FILE_LINES lines, no
  function over MAX_FUNCTION_LINES.

usage: test_layers.py
"""
import glob
import os
import re
import sys
import tempfile
import unittest

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAYERS = ["control", "platform", "config", "actors", "engine"]
# Programs over lib/, each in its folder, apart from each other: the daemon
# and its client meet on D-Bus only.
PROGRAMS = ["daemon", "ctl"]
# Headers meson generates in the build tree, which any program may include.
GENERATED = {"build-config.h"}
# The daemon's running parts (daemon/daemon_internal.h), each calling only
# those after it.
DAEMON_PARTS = ["daemon/daemon.c", "daemon/tick.c", "daemon/daemon_rescan.c",
                "daemon/daemon_shutdown.c", "daemon/sleep.c", "daemon/clock.c"]
MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 60

# What lib/control/ may include with <...>: the C library's own headers.
C_LIBRARY = {"assert.h", "ctype.h", "errno.h", "float.h", "inttypes.h", "limits.h", "math.h",
             "stdarg.h", "stdbool.h", "stddef.h", "stdint.h", "stdio.h", "stdlib.h", "string.h"}
# Calls that reach a file, a device or the system (stdio.h stays for snprintf).
SYSTEM_CALLS = {
    "open", "openat", "creat", "read", "pread", "readv", "write", "pwrite", "writev", "close",
    "lseek", "ioctl", "mmap", "stat", "fstat", "lstat", "fstatat", "access", "faccessat",
    "unlink", "rename", "mkdir", "rmdir", "opendir", "fdopendir", "readdir", "closedir",
    "scandir", "socket", "connect", "bind", "send", "recv", "sendmsg", "recvmsg", "poll",
    "select", "syscall", "dup", "dup2", "pipe", "fork", "execve", "system", "popen",
    "fopen", "fdopen", "freopen", "fclose", "fread", "fwrite", "fgets", "fgetc", "getc",
    "getline", "getdelim", "fscanf", "scanf", "fprintf", "printf", "vfprintf", "vprintf",
    "puts", "fputs", "fputc", "putchar", "perror", "fflush", "sleep", "usleep", "nanosleep",
    "clock_gettime", "time", "getenv", "dprintf",
}
# Folders that reach files only through lib/platform/ (config reads its file
# and @includes with sysfs_read_bin(); platform is where files are opened).
NO_FILES = {"control", "config", "actors", "engine"}
FILE_CALLS = {"open", "openat", "creat", "fopen", "fdopen", "freopen", "opendir", "scandir",
              "popen", "pread", "read", "write", "pwrite", "fread", "fwrite"}

INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^>"]+)[>"]', re.M)
CALL = re.compile(r"(?<![\w.>])([a-z_][a-z0-9_]*)\s*\(")


def read(root, path):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        return f.read()


def strip_comments_and_strings(text, strings=True):
    """@text with comments (and, with @strings, string and character
    literals) blanked, lines kept."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    pattern = r"/\*.*?\*/|//[^\n]*"
    if strings:
        pattern += r'|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\''
    return re.sub(pattern, blank, text, flags=re.S)


def sources(root, folders):
    """Every .c and .h under root/folder for each folder, relative to root."""
    found = []
    for folder in folders:
        for ext in ("c", "h"):
            found += glob.glob(os.path.join(root, folder, "**", "*." + ext), recursive=True)
    return sorted(os.path.relpath(p, root) for p in found)


def layer_of(path):
    """The layer of lib/LAYER/..., else None."""
    parts = path.split(os.sep)
    return parts[1] if len(parts) > 2 and parts[0] == "lib" and parts[1] in LAYERS else None


def include_problems(root, path):
    """'path:line: why' for each include of a lib/ file that reaches outside what its layer may use."""
    layer = layer_of(path)
    allowed = LAYERS[:LAYERS.index(layer)]
    here = os.path.dirname(os.path.join(root, path))
    problems = []
    text = strip_comments_and_strings(read(root, path), strings=False)  # include names stay
    for m in INCLUDE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        kind, name = m.group(1), m.group(2)
        if kind == "<":
            if layer == "control" and name not in C_LIBRARY:
                problems.append("%s:%d: <%s> is not the C library's (lib/control/ is pure)"
                                % (path, line, name))
            continue
        if "/" not in name:
            if not os.path.exists(os.path.join(here, name)):
                problems.append('%s:%d: "%s" is not in lib/%s/: name its folder ("LAYER/%s")'
                                % (path, line, name, layer, name))
            continue
        folder = name.split("/")[0]
        if folder == layer:
            problems.append('%s:%d: "%s": within lib/%s/ a header is included by its name alone'
                            % (path, line, name, layer))
        elif folder not in allowed:
            problems.append('%s:%d: "%s": lib/%s/ may include only %s'
                            % (path, line, name, layer,
                               ", ".join("lib/%s/" % a for a in allowed) or "its own headers"))
    return problems


def program_include_problems(root, path):
    """'path:line: why' for each quoted include of a daemon/ or ctl/ file that
    is neither in its own folder nor a lib/ layer's header."""
    program = path.split(os.sep)[0]
    here = os.path.dirname(os.path.join(root, path))
    problems = []
    text = strip_comments_and_strings(read(root, path), strings=False)  # include names stay
    for m in INCLUDE.finditer(text):
        name = m.group(2)
        if m.group(1) == "<" or name in GENERATED:
            continue
        if "/" in name:
            ok = name.split("/")[0] in LAYERS
        else:
            ok = os.path.exists(os.path.join(here, name))
        if not ok:
            line = text.count("\n", 0, m.start()) + 1
            problems.append('%s:%d: "%s" is not in %s/ nor lib/: %s includes only its own '
                            "headers and lib/'s (%s)"
                            % (path, line, name, program, program,
                               ", ".join(p + "/" for p in PROGRAMS if p != program)
                               + " is apart"))
    return problems


def call_problems(root, path, forbidden, why):
    """'path:line: name() why' for each call of a name in @forbidden."""
    text = strip_comments_and_strings(read(root, path))
    problems = []
    for m in CALL.finditer(text):
        if m.group(1) in forbidden:
            line = text.count("\n", 0, m.start()) + 1
            problems.append("%s:%d: %s() %s" % (path, line, m.group(1), why))
    return problems


def functions(text):
    """(name, first line, body lines from brace to brace) of each function
    defined in @text: kernel style, the body's braces at the start of a line."""
    lines = strip_comments_and_strings(text).split("\n")
    found = []
    for i, line in enumerate(lines):
        if line.startswith("{") and i > 0:
            head = i - 1
            while head > 0 and lines[head].startswith((" ", "\t")) and lines[head].strip():
                head -= 1
            m = re.search(r"([A-Za-z_]\w*)\s*\(", lines[head])
            if not m or re.match(r"\s*(struct|enum|union)\b[^(]*$", lines[head]):
                continue
            for j in range(i + 1, len(lines)):
                if lines[j].startswith("}"):
                    found.append((m.group(1), head + 1, j - i + 1))
                    break
    return found


def size_problems(root, path):
    """'path: why' for a file over MAX_FILE_LINES lines or a function over MAX_FUNCTION_LINES."""
    text = read(root, path)
    problems = []
    n = text.count("\n")
    if n > MAX_FILE_LINES:
        problems.append("%s: %d lines (at most %d: split where a second responsibility grew)"
                        % (path, n, MAX_FILE_LINES))
    for name, line, length in functions(text):
        if length > MAX_FUNCTION_LINES:
            problems.append("%s:%d: %s() is %d lines (at most %d)"
                            % (path, line, name, length, MAX_FUNCTION_LINES))
    return problems


def defined_functions(text):
    """Names of the functions @text defines that other files may call (not static)."""
    lines = strip_comments_and_strings(text).split("\n")
    names = set()
    for name, line, _ in functions(text):
        head = lines[line - 1]
        if not re.match(r"\s*static\b", head):
            names.add(name)
    return names


def part_problems(root):
    """'path:line: name() is FILE's' for each call of a daemon part into one listed before it."""
    present = [p for p in DAEMON_PARTS if os.path.exists(os.path.join(root, p))]
    owner = {name: path for path in present for name in defined_functions(read(root, path))}
    order = " > ".join(os.path.basename(p) for p in present)
    problems = []
    for rank, path in enumerate(present):
        text = strip_comments_and_strings(read(root, path))
        for m in CALL.finditer(text):
            callee = owner.get(m.group(1))
            if callee and present.index(callee) < rank:
                problems.append("%s:%d: %s() is %s's (a part calls only those under it: %s)"
                                % (path, text.count("\n", 0, m.start()) + 1, m.group(1),
                                   callee, order))
    return problems


def all_problems(root):
    problems = []
    for path in sources(root, ["lib"]):
        layer = layer_of(path)
        if layer is None:
            problems.append("%s: outside the layer folders (%s)" % (path, ", ".join(LAYERS)))
            continue
        problems += include_problems(root, path)
        if layer == "control":
            problems += call_problems(root, path, SYSTEM_CALLS,
                                      "reaches the system: lib/control/ is pure")
        elif layer in NO_FILES:
            problems += call_problems(root, path, FILE_CALLS,
                                      "opens or reads a file: lib/%s/ goes through lib/platform/"
                                      % layer)
    for path in sources(root, PROGRAMS):
        problems += program_include_problems(root, path)
    for path in sources(root, ["lib"] + PROGRAMS):
        problems += size_problems(root, path)
    problems += part_problems(root)
    return problems


class Tree(unittest.TestCase):
    def test_the_tree_keeps_its_layers_and_sizes(self):
        problems = all_problems(SOURCE)
        self.assertEqual(problems, [], "\n" + "\n".join(problems))


class Checker(unittest.TestCase):
    """The checks catch what they are for, on a tree made here."""

    def tree(self, files):
        root = tempfile.TemporaryDirectory()
        self.addCleanup(root.cleanup)
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root.name, path)), exist_ok=True)
            with open(os.path.join(root.name, path), "w") as f:
                f.write(text)
        return all_problems(root.name)

    def test_pure_folder_that_reads_a_file(self):
        problems = self.tree({"lib/control/pid.c": "int f(void)\n{\n\treturn read(0, 0, 0);\n}\n"})
        self.assertEqual(problems, ["lib/control/pid.c:3: read() reaches the system: "
                                    "lib/control/ is pure"])

    def test_pure_folder_that_includes_a_platform_header(self):
        problems = self.tree({"lib/control/pid.c": '#include "platform/sysfs.h"\n',
                              "lib/platform/sysfs.h": ""})
        self.assertEqual(len(problems), 1)
        self.assertIn('"platform/sysfs.h": lib/control/ may include only its own headers',
                      problems[0])

    def test_pure_folder_that_includes_a_system_header(self):
        problems = self.tree({"lib/control/pid.c": "#include <fcntl.h>\n"})
        self.assertEqual(len(problems), 1)
        self.assertIn("<fcntl.h> is not the C library's", problems[0])

    def test_lower_layer_that_includes_a_higher_one(self):
        problems = self.tree({"lib/platform/sysfs.c": '#include "engine/zone.h"\n',
                              "lib/engine/zone.h": ""})
        self.assertEqual(len(problems), 1)
        self.assertIn("lib/platform/ may include only lib/control/", problems[0])

    def test_engine_that_opens_a_file(self):
        problems = self.tree({"lib/engine/zone.c":
                              'void f(void)\n{\n\tfopen("/sys/x", "r");\n}\n'})
        self.assertEqual(len(problems), 1)
        self.assertIn("fopen() opens or reads a file", problems[0])

    def test_member_calls_and_comments_are_not_calls(self):
        problems = self.tree({"lib/control/pid.c":
                              "/* read(0) */\nint f(struct s *s)\n{\n\treturn s->read(1) + "
                              "s->write(2) + model_read(3);\n}\n"})
        self.assertEqual(problems, [])

    def test_long_function_and_long_file(self):
        body = "int f(void)\n{\n" + "\tx();\n" * 60 + "}\n"
        problems = self.tree({"daemon/a.c": body + "\n" * 500})
        self.assertIn("daemon/a.c:1: f() is 62 lines (at most 60)", problems)
        self.assertTrue(any(p.startswith("daemon/a.c: 563 lines") for p in problems), problems)

    def test_client_that_includes_a_daemon_header(self):
        problems = self.tree({"ctl/ctl_read.c": '#include "ctl_read.h"\n#include "../daemon/bus.h"\n'
                                                '#include "config/config.h"\n',
                              "ctl/ctl_read.h": "", "daemon/bus.h": ""})
        self.assertEqual(problems, ['ctl/ctl_read.c:2: "../daemon/bus.h" is not in ctl/ nor lib/: '
                                    "ctl includes only its own headers and lib/'s (daemon/ is apart)"])

    def test_daemon_that_includes_a_client_header(self):
        problems = self.tree({"daemon/bus.c": '#include "ctl_print.h"\n#include "build-config.h"\n',
                              "ctl/ctl_print.h": ""})
        self.assertEqual(problems, ['daemon/bus.c:1: "ctl_print.h" is not in daemon/ nor lib/: '
                                    "daemon includes only its own headers and lib/'s (ctl/ is apart)"])

    def test_long_function_in_the_client(self):
        body = "int f(void)\n{\n" + "\tx();\n" * 60 + "}\n"
        problems = self.tree({"ctl/a.c": body})
        self.assertEqual(problems, ["ctl/a.c:1: f() is 62 lines (at most 60)"])

    def test_daemon_parts_that_call_each_other_in_a_circle(self):
        problems = self.tree({"daemon/tick.c": "void daemon_on_tick(void)\n{\n\tsleep_before();\n}\n",
                              "daemon/sleep.c": "void sleep_before(void)\n{\n\tdaemon_on_tick();\n}\n"
                                                "static void f(void)\n{\n}\n",
                              "daemon/clock.c": "void now(void)\n{\n\tf();\n}\n"})
        self.assertEqual(problems, ["daemon/sleep.c:3: daemon_on_tick() is daemon/tick.c's "
                                    "(a part calls only those under it: tick.c > sleep.c > clock.c)"])

    def test_file_outside_the_layers(self):
        problems = self.tree({"lib/misc.c": ""})
        self.assertEqual(problems, ["lib/misc.c: outside the layer folders "
                                    "(control, platform, config, actors, engine)"])


if __name__ == "__main__":
    unittest.main(verbosity=2)

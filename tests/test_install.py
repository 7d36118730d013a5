#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`meson install --destdir` places every file where it belongs, and a
second install keeps the administrator's /etc/powerallocd.conf.

usage: test_install.py BUILDDIR
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

BUILD = sys.argv.pop(1) if len(sys.argv) > 1 else "build"


def option(options, name):
    return next(o["value"] for o in options if o["name"] == name)


class Install(unittest.TestCase):
    def setUp(self):
        self.dest = tempfile.mkdtemp(prefix="powerallocd-install.")
        out = subprocess.run(["meson", "introspect", "--buildoptions", BUILD],
                             capture_output=True, text=True, check=True)
        opts = json.loads(out.stdout)
        self.prefix = option(opts, "prefix")
        rel = lambda d: d if d.startswith("/") else os.path.join(self.prefix, d)  # noqa: E731
        self.sysconfdir = rel(option(opts, "sysconfdir"))
        self.mandir = rel(option(opts, "mandir"))
        self.sbindir = rel(option(opts, "sbindir"))
        self.bindir = rel(option(opts, "bindir"))
        self.datadir = rel(option(opts, "datadir"))

    def tearDown(self):
        subprocess.run(["rm", "-rf", self.dest])

    def install(self):
        out = subprocess.run(["meson", "install", "-C", BUILD, "--destdir", self.dest,
                              "--no-rebuild", "--quiet"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        return out.stdout

    def files(self):
        found = set()
        for root, _, names in os.walk(self.dest):
            for n in names:
                found.add("/" + os.path.relpath(os.path.join(root, n), self.dest))
        return found

    def test_files_in_place(self):
        self.install()
        files = self.files()
        expected = {
            os.path.join(self.sbindir, "powerallocd"),
            os.path.join(self.bindir, "powerallocctl"),
            os.path.join(self.sysconfdir, "powerallocd.conf"),
            os.path.join(self.datadir, "dbus-1/system.d/org.powerallocd1.conf"),
            os.path.join(self.mandir, "man8/powerallocd.8"),
            os.path.join(self.mandir, "man5/powerallocd.conf.5"),
            os.path.join(self.mandir, "man1/powerallocctl.1"),
        }
        self.assertTrue(expected <= files, sorted(expected - files))
        units = [f for f in files if f.endswith("/system/powerallocd.service")]
        self.assertEqual(len(units), 1, sorted(files))
        with open(self.dest + units[0]) as f:
            unit = f.read()
        self.assertIn("ExecStart=%s/powerallocd" % self.sbindir, unit)
        self.assertIn("ExecStopPost=%s/powerallocd --restore" % self.sbindir, unit)
        self.assertIn("ExecReload=%s/powerallocctl reload" % self.bindir, unit)
        # Nothing else: no test programs or tools installed.
        self.assertEqual(len(files), len(expected) + 1, sorted(files - expected))

    def test_existing_config_is_kept(self):
        self.install()
        conf = self.dest + os.path.join(self.sysconfdir, "powerallocd.conf")
        with open(conf, "w") as f:
            f.write("log_level = \"debug\";\n")
        out = self.install()
        with open(conf) as f:
            self.assertEqual(f.read(), "log_level = \"debug\";\n")


if __name__ == "__main__":
    unittest.main(verbosity=2)

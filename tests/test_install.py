#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`meson install --destdir` places every file where it belongs, and a
second install keeps the administrator's /etc/powerallocd.conf.  A build
with the project's default options installs where the system looks:
/usr/sbin/powerallocd reading /etc/powerallocd.conf, the D-Bus policy in
/usr/share/dbus-1/system.d.

usage: test_install.py BUILDDIR
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

BUILD = sys.argv.pop(1) if len(sys.argv) > 1 else "build"
SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

# Where a build with no options installs, as dbus, systemd and the man pages expect.
SYSTEM_PATHS = {
    "sbin": "/usr/sbin/powerallocd",
    "config": "/etc/powerallocd.conf",
    "policy": "/usr/share/dbus-1/system.d/org.powerallocd1.conf",
}


def option(options, name):
    return next(o["value"] for o in options if o["name"] == name)


def install_paths(options):
    """The installed daemon, config and D-Bus policy for meson's @options."""
    prefix = option(options, "prefix")
    rel = lambda d: os.path.join(prefix, option(options, d))  # noqa: E731
    return {
        "sbin": os.path.join(rel("sbindir"), "powerallocd"),
        "config": os.path.join(rel("sysconfdir"), "powerallocd.conf"),
        "policy": os.path.join(rel("datadir"), "dbus-1/system.d/org.powerallocd1.conf"),
    }


class Defaults(unittest.TestCase):
    def test_default_options_install_where_the_system_looks(self):
        """The project's default_options, as `meson setup build` sees them."""
        out = subprocess.run(["meson", "introspect", "--buildoptions",
                              os.path.join(SOURCE, "meson.build")],
                             capture_output=True, text=True, check=True)
        self.assertEqual(install_paths(json.loads(out.stdout)), SYSTEM_PATHS)


class Install(unittest.TestCase):
    def setUp(self):
        self.dest = tempfile.mkdtemp(prefix="powerallocd-install.")
        out = subprocess.run(["meson", "introspect", "--buildoptions", BUILD],
                             capture_output=True, text=True, check=True)
        opts = json.loads(out.stdout)
        self.paths = install_paths(opts)
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
        self.assertLessEqual(set(self.paths.values()), files)
        if self.prefix == "/usr" and self.sysconfdir == "/etc":
            self.assertLessEqual(set(SYSTEM_PATHS.values()), files)

    def test_installed_daemon_reads_the_installed_config(self):
        self.install()
        out = subprocess.run([self.dest + self.paths["sbin"], "--help"],
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("(default %s)" % self.paths["config"], out.stdout)

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

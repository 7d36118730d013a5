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
import shutil
import subprocess
import sys
import tempfile
import unittest

BUILD = sys.argv.pop(1) if len(sys.argv) > 1 else "build"
SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

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
            os.path.join(self.bindir, "powerallocd-plot-trace"),
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
        # Nothing else: no test programs, and of the tools only plot-trace.
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

    def test_installed_plot_trace_draws_outside_the_source_tree(self):
        """powerallocd(8) names powerallocd-plot-trace: installed, it runs
        from anywhere (not from tools/, whose deps.sh it cannot source)."""
        with open(os.path.join(SOURCE, "man", "powerallocd.8.scd")) as f:
            self.assertIn("*powerallocd-plot-trace* _TRACE.csv_", f.read())
        self.install()
        tool = self.dest + os.path.join(self.bindir, "powerallocd-plot-trace")
        self.assertTrue(os.access(tool, os.X_OK))
        out = subprocess.run([tool], capture_output=True, text=True, cwd=self.dest)
        self.assertEqual((out.returncode, out.stderr),
                         (2, "usage: powerallocd-plot-trace TRACE.csv OUT.png [ZONE]\n"))
        if not shutil.which("gnuplot"):
            self.skipTest("no gnuplot")
        with open(os.path.join(self.dest, "trace.csv"), "w") as f:
            f.write("time_ms,zone,temp_mc,active,err_mc,err_integral_mc,p_mw,i_mw,d_mw,"
                    "budget_mw,actor,load_pct,freq_khz,req_mw,granted_mw,max_mw,state,"
                    "switch_on_mc,control_mc\n")
            for t in range(10):
                f.write("%d,soc,70000,1,0,0,0,0,0,2000,cpufreq-cpu0,100,1000000,1,700,716,0,"
                        "65000,75000\n" % (t * 100))
        # Relative paths, from a directory of its own: the tool does not move.
        out = subprocess.run([tool, "trace.csv", "out.png"], capture_output=True, text=True,
                             cwd=self.dest, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        with open(os.path.join(self.dest, "out.png"), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

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

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The Debian package: `dpkg-buildpackage -us -uc -b`, in a copy of the
tree, builds powerallocd_<meson version>_<arch>.deb holding the binaries,
the unit (enabled on install), the D-Bus policy, the man pages and
/etc/powerallocd.conf as a conffile.  As root on a machine where the
package is not installed, `dpkg -i` installs it, the installed daemon reads
the installed config on a fake tree, `dpkg -r` leaves only the conffile
and the learnt models (an empty /run/powerallocd goes) and `dpkg -P`
removes those too, and /run/powerallocd whatever it holds.  The package is purged whatever fails.

usage: test_package.py
"""
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "fixtures"))
import fixture  # noqa: E402

PACKAGE = "powerallocd"
CONFFILE = "/etc/powerallocd.conf"
# Every file of the package but the unit, whose directory systemd.pc gives.
FILES = {
    "/usr/sbin/powerallocd",
    "/usr/bin/powerallocctl",
    "/usr/bin/powerallocd-plot-trace",
    CONFFILE,
    "/usr/share/dbus-1/system.d/org.powerallocd1.conf",
    "/usr/share/man/man8/powerallocd.8.gz",
    "/usr/share/man/man5/powerallocd.conf.5.gz",
    "/usr/share/man/man1/powerallocctl.1.gz",
    "/usr/share/doc/powerallocd/copyright",
    "/usr/share/doc/powerallocd/changelog.gz",
}
UNITS = ("/lib/systemd/system/powerallocd.service", "/usr/lib/systemd/system/powerallocd.service")
# What deb-systemd-helper enable makes (WantedBy=multi-user.target), kept until purge.
ENABLED = "/etc/systemd/system/multi-user.target.wants/powerallocd.service"
# The unit's StateDirectory: the learnt thermal models, purged with the package.
STATE_DIR = "/var/lib/powerallocd"
# The unit's RuntimeDirectory (kept after a stop), or the one a powerallocd
# started from a shell makes: the state file's; gone with a removal when
# empty, with a purge whatever it holds.
RUN_DIR = "/run/powerallocd"
POLICY_RC_D = "/usr/sbin/policy-rc.d"
# Held while the package is installed: two test runs on one machine take turns.
LOCK = "/run/lock/powerallocd-package-test.lock"


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def dpkg(*args):
    """dpkg @args, waiting up to 120 s for a lock another dpkg or apt holds."""
    end = time.monotonic() + 120
    while True:
        out = run(["dpkg"] + list(args), env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
        if out.returncode == 0 or "lock" not in out.stderr or time.monotonic() > end:
            return out
        time.sleep(2)


def package_status():
    """dpkg's two-letter state of the package ("ii", "rc"), "" when dpkg knows none."""
    out = run(["dpkg-query", "-W", "-f=${db:Status-Abbrev}", PACKAGE])
    state = out.stdout.strip() if out.returncode == 0 else ""
    return "" if state in ("", "un") else state


def project_version():
    out = run(["meson", "introspect", "--projectinfo", os.path.join(SOURCE, "meson.build")],
              check=True)
    return json.loads(out.stdout)["version"]


def copy_source(dst):
    """The working tree (tracked and untracked files git does not ignore), or
    without git every file but build output."""
    out = run(["git", "-C", SOURCE, "ls-files", "-co", "--exclude-standard", "-z"])
    if out.returncode != 0:
        shutil.copytree(SOURCE, dst, symlinks=True, ignore=shutil.ignore_patterns(
            ".git", "build", "build-*", "obj-*", "__pycache__"))
        return
    for rel in filter(None, out.stdout.split("\0")):
        src = os.path.join(SOURCE, rel)
        if not os.path.lexists(src):
            continue  # tracked, deleted in the working tree
        os.makedirs(os.path.dirname(os.path.join(dst, rel)), exist_ok=True)
        shutil.copy2(src, os.path.join(dst, rel), follow_symlinks=False)


def raise_on_sigterm(signum, frame):
    raise SystemExit("terminated (signal %d)" % signum)


class Package(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="powerallocd-package.")
        src = os.path.join(cls.work, PACKAGE)
        copy_source(src)
        # As a user would build it, on every CPU and without the -dbgsym package.
        env = dict(os.environ, DEB_BUILD_OPTIONS="noddebs parallel=%d" % (os.cpu_count() or 1))
        start = time.monotonic()
        out = run(["dpkg-buildpackage", "-us", "-uc", "-b"], cwd=src, env=env, timeout=600)
        print("dpkg-buildpackage -us -uc -b: exit %d in %.1f s" %
              (out.returncode, time.monotonic() - start), file=sys.stderr)
        cls.build = out
        cls.version = project_version()
        arch = run(["dpkg", "--print-architecture"], check=True).stdout.strip()
        cls.deb = os.path.join(cls.work, "%s_%s_%s.deb" % (PACKAGE, cls.version, arch))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work, ignore_errors=True)

    def setUp(self):
        self.assertEqual(self.build.returncode, 0,
                         (self.build.stdout + self.build.stderr)[-4000:])
        self.assertTrue(os.path.isfile(self.deb), os.listdir(self.work))

    def test_changelog_version_is_the_projects(self):
        out = run(["dpkg-parsechangelog", "-l", os.path.join(SOURCE, "debian/changelog"),
                   "-S", "Version"], check=True)
        self.assertEqual(out.stdout.strip(), self.version)

    def test_contents(self):
        listing = run(["dpkg-deb", "-c", self.deb], check=True).stdout
        files = {line.split(" -> ")[0].split()[-1][1:] for line in listing.splitlines()
                 if line[0] in "-l"}
        units = [u for u in UNITS if u in files]
        self.assertEqual(len(units), 1, sorted(files))
        self.assertEqual(files, FILES | set(units))
        conffiles = run(["dpkg-deb", "-I", self.deb, "conffiles"], check=True).stdout.split()
        self.assertEqual(conffiles, [CONFFILE])
        # powerallocd(8)'s trace drawer, executable, and gnuplot that it runs suggested.
        modes = {line.split()[-1][1:]: line.split()[0] for line in listing.splitlines()
                 if line[0] == "-"}
        self.assertEqual(modes["/usr/bin/powerallocd-plot-trace"], "-rwxr-xr-x")
        suggests = run(["dpkg-deb", "-f", self.deb, "Suggests"], check=True).stdout
        self.assertIn("gnuplot-nox", suggests)

    def test_maintainer_scripts_drive_the_unit(self):
        """Enabled on install, restarted on upgrade, stopped on removal (when
        systemd runs), its state purged with the package."""
        scripts = os.path.join(self.work, "control")
        run(["dpkg-deb", "-e", self.deb, scripts], check=True)

        def script(name):
            with open(os.path.join(scripts, name)) as f:
                return f.read()
        postinst, prerm, postrm = script("postinst"), script("prerm"), script("postrm")
        self.assertIn("deb-systemd-helper enable 'powerallocd.service'", postinst)
        self.assertIn("_dh_action=restart", postinst)
        self.assertIn("deb-systemd-invoke $_dh_action 'powerallocd.service'", postinst)
        self.assertIn('"$1" = remove', prerm)
        self.assertIn("deb-systemd-invoke stop 'powerallocd.service'", prerm)
        self.assertIn("deb-systemd-helper purge 'powerallocd.service'", postrm)
        self.assertIn("rm -rf %s %s" % (STATE_DIR, RUN_DIR), postrm)
        self.assertIn("rmdir " + RUN_DIR, postrm)

    def test_install_check_remove_purge(self):
        if os.geteuid() != 0:
            self.skipTest("dpkg -i needs root")
        signal.signal(signal.SIGTERM, raise_on_sigterm)
        with open(LOCK, "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            state = package_status()
            self.assertEqual(state, "", "%s is known to dpkg (%s): this test would replace it; "
                             "dpkg -P %s to run it" % (PACKAGE, state, PACKAGE))
            # A meson install's files would be taken over, and the purge would
            # delete the administrator's config with them.
            here = [p for p in (CONFFILE, ENABLED, STATE_DIR, RUN_DIR) + UNITS
                    if os.path.lexists(p)]
            if here:
                self.skipTest("%s already here (a meson install?): the package test would take "
                              "them over and purge them" % ", ".join(here))
            policy_written = self.keep_the_service_from_starting()
            try:
                self.install_check_remove_purge()
            finally:
                if package_status():
                    dpkg("-P", PACKAGE)
                if policy_written:
                    os.unlink(POLICY_RC_D)

    def keep_the_service_from_starting(self):
        """Where systemd runs, the postinst would start the daemon on this
        machine's zones: a policy-rc.d that forbids it (exit 101), written
        unless one that does is there.  True when written here."""
        if not os.path.isdir("/run/systemd/system"):
            return False    # no systemd: deb-systemd-invoke is not called
        if os.path.exists(POLICY_RC_D):
            if run([POLICY_RC_D, "powerallocd.service", "start"]).returncode != 101:
                self.skipTest("systemd runs here and %s allows starting services" % POLICY_RC_D)
            return False
        with open(POLICY_RC_D, "w") as f:
            f.write("#!/bin/sh\n# written by powerallocd's tests/package/test_package.py\nexit 101\n")
        os.chmod(POLICY_RC_D, 0o755)
        return True

    def install_check_remove_purge(self):
        out = dpkg("-i", self.deb)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertEqual(package_status(), "ii")
        listed = dpkg("-L", PACKAGE).stdout.split("\n")
        installed = {p for p in listed if p and not os.path.isdir(p)}
        self.assertLessEqual(FILES, installed)
        self.assertEqual(len(installed), len(FILES) + 1, sorted(installed - FILES))
        conffiles = run(["dpkg-query", "-W", "-f=${Conffiles}", PACKAGE]).stdout.split()
        self.assertIn(CONFFILE, conffiles)
        self.assertTrue(os.path.islink(ENABLED), "the unit is not enabled")
        self.check_config_on_a_tree()
        # What the service would have learnt: kept by a removal, gone with a purge.
        os.makedirs(STATE_DIR, mode=0o700)
        open(os.path.join(STATE_DIR, "cpu-thermal.model"), "w").close()
        # What the stopped service leaves: an empty runtime directory.
        os.makedirs(RUN_DIR, mode=0o700)

        out = dpkg("-r", PACKAGE)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertEqual(package_status(), "rc")
        left = {p for p in installed if os.path.lexists(p)}
        self.assertEqual(left, {CONFFILE})
        listed = {p for p in dpkg("-L", PACKAGE).stdout.split("\n") if p and not os.path.isdir(p)}
        self.assertEqual(listed, {CONFFILE})
        self.assertTrue(os.path.isdir(STATE_DIR))
        self.assertFalse(os.path.lexists(RUN_DIR), "removal left an empty " + RUN_DIR)
        # What a powerallocd started from a shell and killed leaves, purged too.
        os.makedirs(RUN_DIR, mode=0o700)
        open(os.path.join(RUN_DIR, "state"), "w").close()

        out = dpkg("-P", PACKAGE)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertEqual(package_status(), "")
        self.assertFalse(os.path.lexists(CONFFILE))
        self.assertFalse(os.path.lexists(ENABLED), "purge left the unit enabled")
        self.assertFalse(os.path.lexists(STATE_DIR), "purge left the learnt models")
        self.assertFalse(os.path.lexists(RUN_DIR), "purge left " + RUN_DIR)

    def check_config_on_a_tree(self):
        """The installed daemon, with no -c, reads the installed config."""
        tree = tempfile.mkdtemp(prefix="powerallocd-tree.")
        try:
            fixture.TREES["rk3399-dt"](fixture.Tree(tree))
            out = run(["umockdev-wrapper", "/usr/sbin/powerallocd", "--check-config"],
                      env=dict(os.environ, UMOCKDEV_DIR=tree), timeout=60)
        finally:
            shutil.rmtree(tree)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn(CONFFILE + ": no zones configured (automatic), 1 zone controllable",
                      out.stdout)
        self.assertIn("zone cpu-thermal: thermal_zone0", out.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)

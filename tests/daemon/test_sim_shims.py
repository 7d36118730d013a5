#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The simulator tells the truth about itself (issue 42, 3): a shim it
preloads into the daemon that does not load stops the run before the
daemon starts, with the ninja command that builds it (ld.so would only
warn, and the run would report a fault never injected and the daemon on
this machine's own thermal netlink); tools/demo builds every shim and
keeps the tree it names.

usage: test_sim_shims.py (POWERALLOCD_SIM names the simulator)
"""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

SIM = os.path.abspath(os.environ.get("POWERALLOCD_SIM", "build/tools/simulator/powerallocd-sim"))
# The build the simulator was made in: build/tools/simulator/powerallocd-sim.
BUILD = os.path.dirname(os.path.dirname(os.path.dirname(SIM)))
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


class Shims(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="test_sim_shims.")
        self.addCleanup(shutil.rmtree, self.work)
        self.tmp = os.path.join(self.work, "tmp")
        os.mkdir(self.tmp)
        self.not_elf = os.path.join(self.work, "not-elf.so")
        with open(self.not_elf, "w") as f:
            f.write("not a shared object\n")

    def run_sim(self, *args, **shims):
        """The simulator, its trees in self.tmp, with @shims (SIM_NETLINK_SHIM=...)."""
        env = dict(os.environ, TMPDIR=self.tmp, **shims)
        out = subprocess.run([SIM, "--quiet", "--speed", "10", "--duration", "1"] + list(args),
                             env=env, capture_output=True, text=True, timeout=120)
        return out.returncode, out.stdout + out.stderr

    def build_targets(self, out):
        """The targets of the ninja command @out gives, after checking it names the build."""
        m = re.search(r"^  ninja -C (\S+)((?: \S+)+)$", out, re.M)
        self.assertIsNotNone(m, out)
        self.assertEqual(os.path.realpath(m.group(1)), os.path.realpath(BUILD), out)
        return m.group(2).split()

    def assert_stopped_before_the_daemon(self, rc, out):
        self.assertEqual(rc, 1, out)
        self.assertIn("nothing run; build what it needs:", out)
        self.assertNotIn("summary:", out)
        self.assertEqual(os.listdir(self.tmp), [], "a tree was made")

    def test_missing_netlink_shim(self):
        """Every run preloads the netlink shim: a file not there stops it,
        with the file, why, and the build command of its target."""
        missing = os.path.join(self.work, "sim-netlink-shim.so")
        rc, out = self.run_sim(SIM_NETLINK_SHIM=missing)
        self.assert_stopped_before_the_daemon(rc, out)
        self.assertIn("the netlink shim named by SIM_NETLINK_SHIM does not load: %s: cannot "
                      "open shared object file" % missing, out)
        self.assertIn("without it the daemon would listen to this machine's thermal netlink", out)
        self.assertEqual(self.build_targets(out), ["tools/simulator/sim-netlink-shim.so"])

    def test_fault_shim_not_loadable(self):
        """A fault made through the fault shim (sensor-eio, cdev-vanish) with
        a shim that is no shared object stops the run, both shims named
        when both fail; a fault without the shim (spike) runs."""
        for fault in ("sensor-eio", "cdev-vanish"):
            rc, out = self.run_sim("--fault", fault, SIM_FAULT_SHIM=self.not_elf)
            self.assert_stopped_before_the_daemon(rc, out)
            self.assertIn("the fault shim of --fault %s named by SIM_FAULT_SHIM does not load: "
                          "%s: " % (fault, self.not_elf), out)
            self.assertIn("without it the fault would not be injected", out)
            self.assertEqual(self.build_targets(out),
                             ["tests/helpers/libpowerallocd-fault-shim.so"])
        rc, out = self.run_sim("--fault", "sensor-eio", SIM_FAULT_SHIM=self.not_elf,
                               SIM_NETLINK_SHIM=self.not_elf)
        self.assert_stopped_before_the_daemon(rc, out)
        self.assertEqual(self.build_targets(out), ["tools/simulator/sim-netlink-shim.so",
                                                   "tests/helpers/libpowerallocd-fault-shim.so"])
        rc, out = self.run_sim("--fault", "spike", SIM_FAULT_SHIM=self.not_elf)
        self.assertEqual(rc, 0, out)
        self.assertIn("fault spike", out)

    def test_the_builds_shims_load(self):
        """The build's own shims: the run goes on, with the fault injected
        (the daemon's log says the sensor failed)."""
        env = dict(os.environ, TMPDIR=self.tmp, SIM_KEEP_TREE="1")
        out = subprocess.run([SIM, "--quiet", "--speed", "10", "--duration", "8", "--fault",
                              "sensor-eio"], env=env, capture_output=True, text=True,
                             timeout=120)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        tree = re.search(r"^kept: (\S+)", out.stdout, re.M).group(1)
        with open(os.path.join(tree, "powerallocd.log")) as f:
            log = f.read()
        self.assertNotIn("cannot be preloaded", log)
        self.assertIn("Input/output error", log)


class Demo(unittest.TestCase):
    """tools/demo, its packages and build stubbed (a ninja that records what it
    is asked for) and its simulator run cut to 3 s."""

    def test_builds_every_shim_and_keeps_its_tree(self):
        """It asks ninja for every target the simulator says a run needs,
        and the tree it names is there after it ends, with the daemon's log
        and trace; the simulator's own line says it is kept."""
        work = tempfile.mkdtemp(prefix="test_sim_shims.")
        self.addCleanup(shutil.rmtree, work)
        missing = os.path.join(work, "missing.so")
        out = subprocess.run([SIM, "--quiet", "--speed", "10", "--duration", "1", "--fault",
                              "sensor-eio"], capture_output=True, text=True,
                             timeout=60, env=dict(os.environ, SIM_NETLINK_SHIM=missing,
                                                  SIM_FAULT_SHIM=missing))
        needs = re.search(r"^  ninja -C \S+((?: \S+)+)$", out.stderr, re.M).group(1).split()
        self.assertEqual(len(needs), 2, out.stderr)
        for d in ("tools", "bin", "tmp", "build/tools/simulator"):
            os.makedirs(os.path.join(work, d))
        shutil.copy(os.path.join(ROOT, "tools", "demo"), os.path.join(work, "tools"))
        scripts = {
            "tools/deps.sh": "POWERALLOCD_DEMO_PACKAGES=()\nensure_packages() { :; }\n"
                             "setup_build() { :; }\n",
            "bin/ninja": "#!/bin/sh\necho \"$@\" >> %s/ninja-args\n" % work,
            "build/tools/simulator/powerallocd-sim":
                "#!/bin/sh\nexec %s \"$@\" --duration 3 --speed 10\n" % SIM,
        }
        for path, text in scripts.items():
            with open(os.path.join(work, path), "w") as f:
                f.write(text)
            os.chmod(os.path.join(work, path), 0o755)
        env = dict(os.environ, PATH=os.path.join(work, "bin") + ":" + os.environ["PATH"],
                   TMPDIR=os.path.join(work, "tmp"))
        env.pop("SIM_KEEP_TREE", None)
        demo = subprocess.run(["bash", os.path.join(work, "tools", "demo")], env=env,
                              capture_output=True, text=True, timeout=180)
        self.assertEqual(demo.returncode, 0, demo.stdout + demo.stderr)
        with open(os.path.join(work, "ninja-args")) as f:
            asked = f.read().split()
        for target in needs:
            self.assertIn(target, asked)
        named = re.search(r"^   ls (\S+)$", demo.stdout, re.M)
        self.assertIsNotNone(named, demo.stdout)
        tree = named.group(1)
        self.assertRegex(demo.stdout, r"(?m)^tree: %s \(.*; kept\)$" % re.escape(tree))
        self.assertTrue(tree.startswith(os.path.join(work, "tmp")), tree)
        for name in ("powerallocd.log", "trace.csv"):
            self.assertTrue(os.path.isfile(os.path.join(tree, name)), name)
        self.assertIn("tools/plot-trace %s/trace.csv" % tree, demo.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Stuck throttled, never (issue 33, 4): every file powerallocd may write
(cooling devices' cur_state, cpufreq's scaling_max_freq, powercap limits,
devfreq's max_freq, the thermal zones' policy) is back at the value it had
before the daemon started, on the RK3399 tree (two zones: cpufreq and
devfreq cooling devices, the fan) and the x86 laptop (a RAPL package limit,
scaling_max_freq caps), after each way the daemon lets go:
  - stop (SIGTERM),
  - a crash (SIGSEGV, SIGKILL), then powerallocd --restore as the unit's
    ExecStopPost runs it (run twice: the second finds nothing to do),
  - a crash, then a new run (which takes the previous run's originals over
    from the state file) and its stop,
  - a zone given up while the daemon runs (a reload without it): its files
    at once, the other zone's still held, then all at the stop.
Another writer changing a value meanwhile is issue 33, 4's other half.

usage: test_restore.py (POWERALLOCD names the binary)
"""
import os
import re
import signal
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_daemon import CDEV, ZONE0, Daemon, Tree, run, wait_for  # noqa: E402

ZONE1 = "sys/devices/virtual/thermal/thermal_zone1/"
# The files powerallocd writes, or could: by name, anywhere under sys/.
WRITTEN = re.compile(r"^(cur_state|policy|scaling_max_freq|max_freq|"
                     r"constraint_\d+_power_limit_uw)$")

RK3399_CPU = """
  { name = "cpu"; sensor = "cpu-thermal"; sustainable_power = 1500; period_ms = 50;
    actors = ( { type = "cpufreq"; cpus = "0-3"; }, { type = "cpufreq"; cpus = "4-5"; } ); }"""
RK3399_GPU = """
  { name = "gpu"; sensor = "gpu-thermal"; switch_on_temp = 65000; control_temp = 75000;
    sustainable_power = 1000; period_ms = 50;
    actors = ( { type = "devfreq"; device = "ff9a0000.gpu"; } ); }"""
RK3399 = "idle_poll_ms = 200;\nzones = (%s,%s );\n" % (RK3399_CPU, RK3399_GPU)
RK3399_CPU_ONLY = "idle_poll_ms = 200;\nzones = (%s );\n" % RK3399_CPU
# The GPU's devfreq cooling device on the RK3399 tree.
GPU_CDEV = 2

X86 = """
zones = ( { name = "package"; sensor = "x86_pkg_temp"; switch_on_temp = 80000;
  control_temp = 90000; sustainable_power = 15000; period_ms = 50;
  actors = ( { type = "powercap"; zone = "intel-rapl:0"; },
             { type = "cpufreq_cap"; cpus = "0-7";
               opps = ( { freq_khz = 800000; power_mw = 400; },
                        { freq_khz = 4700000; power_mw = 5200; } ); } ); } );
"""
RAPL = "sys/devices/virtual/powercap/intel-rapl/intel-rapl:0/constraint_0_power_limit_uw"
MAX_FREQ = "sys/devices/system/cpu/cpufreq/policy%d/scaling_max_freq"


def snapshot(tree):
    """{path under the tree: contents} of every file WRITTEN names, links not followed."""
    files = {}
    for top, dirs, names in os.walk(tree.path("sys")):
        for name in names:
            path = os.path.join(top, name)
            if WRITTEN.match(name) and not os.path.islink(path):
                files[os.path.relpath(path, tree.dir)] = tree.read(os.path.relpath(path,
                                                                                tree.dir))
    return files


class Restore:
    """The matrix for one tree: self.tree, self.config, self.hot() (the
    daemon holds something of every kind of file the test is about)."""

    def setUp(self):
        self.tree = self.make_tree()
        self.original = snapshot(self.tree)
        self.assertGreaterEqual(len(self.original), self.n_files)
        self.daemon = None

    def tearDown(self):
        if self.daemon:
            self.daemon.close()
        self.tree.close()

    def start(self, config=None):
        self.daemon = Daemon(self.tree, config or self.config)
        self.assertTrue(wait_for(lambda: self.daemon.notified("READY=1")), self.daemon.logtext())
        self.assertTrue(wait_for(self.hot, timeout=10), self.changed())

    def changed(self):
        """The files not at their original value: {path: (original, now)}."""
        now = snapshot(self.tree)
        return {p: (v, now.get(p)) for p, v in self.original.items() if now.get(p) != v}

    def assert_restored(self):
        self.assertEqual(self.changed(), {}, self.daemon.logtext() if self.daemon else "")

    def restore(self):
        out = run(self.tree, "--restore", "--state-file", self.daemon.state, "--log-target",
                  "stderr")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertTrue(out.stdout.startswith("restored "), out.stdout)
        return out

    def test_stop(self):
        self.start()
        self.daemon.signal(signal.SIGTERM)
        self.assertEqual(self.daemon.wait(), 0, self.daemon.logtext())
        self.assert_restored()

    def crash_then_restore(self, sig):
        self.start()
        self.daemon.signal(sig)
        self.daemon.wait()
        self.assertNotEqual(self.changed(), {})
        self.restore()
        self.assert_restored()
        out = run(self.tree, "--restore", "--state-file", self.daemon.state)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertTrue(out.stdout.startswith("nothing to restore"), out.stdout)
        self.assert_restored()

    def test_crash_then_exec_stop_post(self):
        self.crash_then_restore(signal.SIGSEGV)

    def test_kill_then_restore(self):
        self.crash_then_restore(signal.SIGKILL)

    def test_kill_then_a_new_run_stops(self):
        self.start()
        state = self.daemon.state
        self.daemon.signal(signal.SIGKILL)
        self.daemon.wait()
        first = self.daemon
        self.daemon = Daemon(self.tree, self.config, state=state)
        try:
            self.assertTrue(wait_for(lambda: self.daemon.notified("READY=1")),
                            self.daemon.logtext())
            self.assertTrue(wait_for(self.hot, timeout=10), self.changed())
            self.daemon.signal(signal.SIGTERM)
            self.assertEqual(self.daemon.wait(), 0, self.daemon.logtext())
        finally:
            first.close()
        self.assert_restored()


class RK3399(Restore, unittest.TestCase):
    config = RK3399
    n_files = 8     # 4 cooling devices, 2 zones' policies, 2 scaling_max_freq

    def make_tree(self):
        tree = Tree()
        tree.write(ZONE0 + "temp", "80000\n")
        tree.write(ZONE1 + "temp", "80000\n")
        return tree

    def hot(self):
        """Both clusters and the GPU held, both zones taken over."""
        return (int(self.tree.read(CDEV % 1)) > 0 and int(self.tree.read(CDEV % GPU_CDEV)) > 0
                and self.tree.read(ZONE0 + "policy") == "user_space"
                and self.tree.read(ZONE1 + "policy") == "user_space")

    def test_zone_given_up(self):
        """A reload without the gpu zone gives it up: its policy and the
        GPU's cooling device back at once, the cpu zone still held."""
        self.start()
        gpu = {p: v for p, v in self.original.items()
               if p.startswith((ZONE1, os.path.dirname(CDEV % GPU_CDEV)))}
        self.assertEqual(len(gpu), 2, gpu)
        with open(self.daemon.config, "w") as f:
            f.write(RK3399_CPU_ONLY)
        self.daemon.signal(signal.SIGHUP)
        self.assertTrue(wait_for(lambda: all(self.tree.read(p) == v for p, v in gpu.items()),
                                 timeout=10), (self.changed(), self.daemon.logtext()))
        changed = self.changed()
        self.assertFalse(set(changed) & set(gpu), changed)
        self.assertIn(CDEV % 1, changed)
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "user_space")

        def state():
            with open(self.daemon.state) as f:
                return f.read()
        # The state file is rewritten just after the files are given back
        # (daemon_rebuild()): waited for, as a slow run (valgrind) can read
        # it in between.
        self.assertTrue(wait_for(lambda: "thermal_zone1" not in state(), timeout=10),
                        state())
        self.daemon.signal(signal.SIGTERM)
        self.assertEqual(self.daemon.wait(), 0, self.daemon.logtext())
        self.assert_restored()


class X86(Restore, unittest.TestCase):
    config = X86
    n_files = 20    # 10 cooling devices, 2 zones' policies, 8 scaling_max_freq, RAPL

    def make_tree(self):
        tree = Tree("x86-laptop", cpus=8)
        tree.write(ZONE1 + "temp", "95000\n")
        return tree

    def hot(self):
        """The package limit and every CPU's cap below their originals."""
        return (int(self.tree.read(RAPL)) < int(self.original[RAPL]) and
                all(int(self.tree.read(MAX_FREQ % p)) < int(self.original[MAX_FREQ % p])
                    for p in range(8)))


if __name__ == "__main__":
    unittest.main(verbosity=2)

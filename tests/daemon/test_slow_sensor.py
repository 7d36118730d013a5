#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""One zone's sensor must not stall the others: the daemon on the RK3399 tree
with both zones hot, gpu-thermal's temp slowed to 1 s a read by the fault
shim (tests/helpers/fault-shim.c, rule slow-read), then replaced by a FIFO.

usage: test_slow_sensor.py (POWERALLOCD names the binary, POWERALLOCD_FAULT_SHIM
the shim)
"""
import contextlib
import os
import re
import signal
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_daemon import CDEV, ZONE0, Daemon, Tree, wait_for  # noqa: E402

ZONE1 = "sys/devices/virtual/thermal/thermal_zone1/"
PERIOD_MS = 100
SLOW_MS = 1000

# Both zones at their period while hot; the gpu zone drives the GPU only, so
# the cpu zone's periods depend on nothing of the gpu zone but the loop.
TWO_ZONES = """
idle_poll_ms = 1000;
zones = (
  { name = "cpu"; sensor = "cpu-thermal"; sustainable_power = 1500; period_ms = %(p)d;
    actors = ( { type = "cpufreq"; cpus = "0-3"; }, { type = "cpufreq"; cpus = "4-5"; } ); },
  { name = "gpu"; sensor = "gpu-thermal"; switch_on_temp = 65000; control_temp = 75000;
    sustainable_power = 1000; period_ms = %(p)d;
    actors = ( { type = "devfreq"; device = "ff9a0000.gpu"; } ); } );
""" % {"p": PERIOD_MS}


@contextlib.contextmanager
def daemon_with_faults(tree, rules):
    """The daemon under the fault shim, with @rules ({rule file: text})."""
    daemon = Daemon(tree, TWO_ZONES, faults=rules)
    try:
        yield daemon
    finally:
        daemon.close()


class SlowSensor(unittest.TestCase):
    def setUp(self):
        self.tree = Tree()
        self.tree.write(ZONE0 + "temp", "80000\n")
        self.tree.write(ZONE1 + "temp", "80000\n")

    def tearDown(self):
        self.tree.close()

    def zone_times(self, daemon, zone):
        """The time_ms of every period of @zone, from the trace."""
        with open(daemon.trace) as f:
            rows = [r.split(",") for r in f.read().splitlines()[1:]]
        return sorted({int(r[0]) for r in rows if len(r) > 1 and r[1] == zone})

    def test_slow_sensor_leaves_the_other_zone_its_period(self):
        with daemon_with_faults(self.tree, {"slow-read": "thermal_zone1/temp %d\n" % SLOW_MS}) \
                as daemon:
            self.assertTrue(wait_for(lambda: daemon.notified("READY=1"), timeout=15),
                            daemon.logtext())
            time.sleep(6)
            cpu = self.zone_times(daemon, "cpu")
            gaps = [b - a for a, b in zip(cpu, cpu[1:])]
            # The first slow read may stall the loop once; never again.
            long_gaps = [g for g in gaps if g >= 2 * PERIOD_MS]
            self.assertLessEqual(len(long_gaps), 1, (long_gaps, daemon.logtext()))
            self.assertGreaterEqual(len(cpu), 6000 // PERIOD_MS * 2 // 3, cpu)
            self.assertTrue(int(self.tree.read(CDEV % 1)) > 0, daemon.logtext())
            # The gpu zone runs at its period too, on the latest reading it has.
            gpu = self.zone_times(daemon, "gpu")
            self.assertGreaterEqual(len(gpu), len(cpu) * 2 // 3, gpu)
            log = daemon.logtext()
            slow = re.findall(r"zone gpu: \S*thermal_zone1/temp took (\d+) ms to read; reading "
                              r"it off the control loop from now on", log)
            self.assertEqual(len(slow), 1, log)
            self.assertGreaterEqual(int(slow[0]), SLOW_MS * 9 // 10)
            self.assertNotIn("holding the current limits", log)
            daemon.signal(signal.SIGTERM)
            self.assertEqual(daemon.wait(), 0, daemon.logtext())
            self.assertEqual(self.tree.read(ZONE1 + "policy"), "step_wise")
            self.assertEqual(self.tree.read(CDEV % 1), "0")

    def test_fifo_sensor_is_refused(self):
        os.unlink(self.tree.path(ZONE1 + "temp"))
        os.mkfifo(self.tree.path(ZONE1 + "temp"))
        with daemon_with_faults(self.tree, {}) as daemon:
            self.assertTrue(wait_for(lambda: daemon.notified("READY=1"), timeout=10),
                            daemon.logtext())
            self.assertTrue(wait_for(lambda: int(self.tree.read(CDEV % 1)) > 0),
                            daemon.logtext())
            log = daemon.logtext()
            self.assertRegex(log, r"zone gpu: \S*thermal_zone1/temp: not a regular file; "
                             r"zone skipped")
            self.assertIn("zone cpu: thermal_zone0", log)
            daemon.signal(signal.SIGTERM)
            self.assertEqual(daemon.wait(), 0, daemon.logtext())
            self.assertEqual(self.tree.read(ZONE0 + "policy"), "step_wise")


if __name__ == "__main__":
    unittest.main(verbosity=2)

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A steady meter is not a stopped one (issue 42, 4): on the simulated
RockPro64, rail meters whose value holds for seconds under a steady draw
stay, where they were dropped as "stopped" for good
(tests/unit/test_meter_fault.c and tests/integration/test_meters.c check
that a meter that holds while its actor's model moves is still dropped).

usage: test_steady_meter.py (POWERALLOCD_SIM names the simulator)
"""
import csv
import os
import re
import shutil
import subprocess
import tempfile
import unittest

SIM = os.environ.get("POWERALLOCD_SIM", "build/tools/simulator/powerallocd-sim")
# lib/control/meter_fault.h's METER_STOP_US, in ms: the old rule's whole wait.
STOP_MS = 3000
METERED = ("cpufreq-cpu0", "cpufreq-cpu4", "devfreq-ff9a0000.gpu")


def longest_hold(rows, actor):
    """The longest time (daemon ms) @actor's measured_mw held one value in the
    trace @rows, and the range of its table's power (table_mw) meanwhile."""
    rs = [r for r in rows if r["actor"] == actor and r["measured_mw"] != ""]
    best, start = (0, None), 0
    for i in range(1, len(rs) + 1):
        if i == len(rs) or rs[i]["measured_mw"] != rs[start]["measured_mw"]:
            held_ms = int(rs[i - 1]["time_ms"]) - int(rs[start]["time_ms"])
            if held_ms > best[0]:
                table = [int(r["table_mw"]) for r in rs[start:i]]
                best = (held_ms, (min(table), max(table)))
            start = i
    return best


class SteadyMeter(unittest.TestCase):
    def test_coarse_meters_kept(self):
        """Full load for 60 s at 10x, each rail's hwmon power in 250 mW steps
        without noise, named to the daemon by hwmon name and label.  The
        little cluster, never throttled, reads one value for 5.5 s of the
        daemon's clock under a steady model (716 mW), the big one holds a
        step for 3.6 s while its model moves within two of them (944-1296
        mW): all three meters stay and read to the end.  Before, both
        clusters' meters were dropped as stopped."""
        work = tempfile.mkdtemp(prefix="test_steady_meter.")
        self.addCleanup(shutil.rmtree, work)
        env = dict(os.environ, TMPDIR=work, SIM_KEEP_TREE="1")
        out = subprocess.run([SIM, "--quiet", "--speed", "10", "--duration", "60",
                              "--workload", "steady", "--meter-config", "hwmon",
                              "--meter-step-mw", "250"], env=env, capture_output=True,
                             text=True, timeout=120)
        text = out.stdout + out.stderr
        self.assertEqual(out.returncode, 0, text)
        self.assertIn("noise 0.0 %, steps 250 mW", out.stdout)
        tree = re.search(r"^kept: (\S+)", out.stdout, re.M).group(1)
        with open(os.path.join(tree, "powerallocd.log")) as f:
            log = f.read()
        with open(os.path.join(tree, "trace.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([line for line in log.splitlines() if "dropped until a reload" in line],
                         [])
        holds = {actor: longest_hold(rows, actor) for actor in METERED}
        # What makes this a test of the rule: a value held longer than the
        # old rule waited, under a steady model (the little cluster's).
        held_ms, (low_mw, high_mw) = holds["cpufreq-cpu0"]
        self.assertGreater(held_ms, STOP_MS, holds)
        self.assertEqual(low_mw, high_mw, holds)
        last = {r["actor"]: r for r in rows}
        for actor in METERED:
            self.assertNotEqual(last[actor]["measured_mw"], "", (actor, holds))


if __name__ == "__main__":
    unittest.main(verbosity=2)

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Suspend and resume (daemon/sleep.c), the daemon run for real on the RK3399
fixture tree.

Logind: on a private system bus with a fake logind (tests/helpers/fake-logind.c):
the daemon takes a delay inhibitor; PrepareForSleep(true) saves the thermal
model, stops the periods and releases the inhibitor; caps "reset by the
firmware" in the tree are written back on PrepareForSleep(false), with one
line, a new inhibitor, and control going on; stopped, every file is back at
its original value.  A clock jump during a logind sleep is one resume, not
two.  Without logind on the bus the daemon says so once and runs.

Clocks: without logind, CLOCK_BOOTTIME made to jump ahead by tests/helpers/fault-shim.c
(boottime-offset-ms) is a resume: the caps are written back, one line.

usage: test_sleep.py (POWERALLOCD, FAKE_LOGIND, POWERALLOCD_FAULT_SHIM name the binaries)
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_bus import PrivateBus  # noqa: E402
from test_daemon import CDEV, ZONE0, Daemon, Tree, wait_for  # noqa: E402

FAKE_LOGIND = os.environ.get("FAKE_LOGIND", "build/tests/helpers/fake-logind")

# Periods of 10 ms: the model fits its first block within a second or two.
# At 95 °C, 20 °C over control, both clusters are held at their deepest state.
CONFIG = """
idle_poll_ms = 200;
zones = ( { name = "cpu"; sensor = "cpu-thermal"; sustainable_power = 1500; period_ms = 10;
  actors = ( { type = "cpufreq"; cpus = "0-3"; }, { type = "cpufreq"; cpus = "4-5"; } ); } );
"""
HOT_MC = 95000
# The cooling devices of the two clusters, and what the tree holds before
# the daemon starts (not 0, so that a restore to 0 would show).
CLUSTERS = (0, 1)
ORIGINAL_STATE = "1"
FILES = [CDEV % i for i in range(4)] + [ZONE0 + "policy"]
RESUMED = "resumed after "
# Let logind's fake be owned and called on the private bus.
LOGIND_POLICY = """<policy context="default">
    <allow own="org.freedesktop.login1"/>
    <allow send_destination="org.freedesktop.login1"/>
  </policy>
  """


class FakeLogind:
    """tests/helpers/fake-logind.c on the current system bus, its lines kept."""

    def __init__(self):
        self.proc = subprocess.Popen([FAKE_LOGIND], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        self.lines = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        assert wait_for(lambda: "ready" in self.lines), self.lines

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line.strip())

    def count(self, prefix):
        return len([line for line in list(self.lines) if line.startswith(prefix)])

    def send(self, what):
        sent = self.count("sent " + what)
        self.proc.stdin.write(what + "\n")
        self.proc.stdin.flush()
        assert wait_for(lambda: self.count("sent " + what) > sent), self.lines

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=10)
        self.reader.join()
        self.proc.stdout.close()


def trace_rows(daemon):
    with open(daemon.trace) as f:
        return f.read().splitlines()[1:]


def trace_time_ms(daemon):
    rows = trace_rows(daemon)
    return int(rows[-1].split(",")[0]) if rows else 0


class Sleep(unittest.TestCase):
    logind = True

    def setUp(self):
        self.models = tempfile.mkdtemp(prefix="powerallocd-models.")
        self.model_file = os.path.join(self.models, "cpu.model")
        self.bus = PrivateBus(extra=LOGIND_POLICY)
        self.fake = FakeLogind() if self.logind else None
        self.tree = Tree()
        self.tree.write(ZONE0 + "temp", "%d\n" % HOT_MC)
        for i in CLUSTERS:
            self.tree.write(CDEV % i, ORIGINAL_STATE + "\n")
        self.original = {f: self.tree.read(f) for f in FILES}
        self.daemon = None

    def tearDown(self):
        if self.daemon:
            self.daemon.close()
        if self.fake:
            self.fake.close()
        self.tree.close()
        self.bus.close()
        shutil.rmtree(self.models)

    def start(self, faults=None):
        self.daemon = Daemon(self.tree, CONFIG, "--log-level", "info", bus="system",
                             models=self.models, faults=faults)
        self.assertTrue(wait_for(lambda: self.daemon.notified("READY=1")), self.daemon.logtext())

    def log(self):
        return self.daemon.logtext()

    def held_states(self):
        """Once the clusters are held deep (above the original state), their states."""
        self.assertTrue(wait_for(lambda: all(int(self.tree.read(CDEV % i)) > 1
                                             for i in CLUSTERS)), self.log())
        return {i: self.tree.read(CDEV % i) for i in CLUSTERS}

    def firmware_reset(self):
        for i in CLUSTERS:
            self.tree.write(CDEV % i, "0\n")

    def resumed_lines(self):
        return [line for line in self.log().splitlines() if RESUMED in line]

    def assert_restored(self, held):
        """The caps the firmware reset are the daemon's again, said in one line."""
        self.assertTrue(wait_for(lambda: len(self.resumed_lines()) >= 1), self.log())
        self.assertTrue(wait_for(lambda: all(self.tree.read(CDEV % i) == held[i]
                                             for i in CLUSTERS)),
                        (held, [self.tree.read(CDEV % i) for i in CLUSTERS], self.log()))
        self.assertEqual(len(self.resumed_lines()), 1, self.log())
        line = self.resumed_lines()[0]
        self.assertIn("1 of 1 zones read afresh", line)
        self.assertIn("cpufreq-cpu0 state %s" % held[0], line)
        self.assertIn("cpufreq-cpu4 state %s" % held[1], line)
        # Control goes on: the trace advances.
        time_ms = trace_time_ms(self.daemon)
        self.assertTrue(wait_for(lambda: trace_time_ms(self.daemon) > time_ms + 100), self.log())

    def stop_and_check_originals(self):
        """Stopped after the resume, every file it wrote holds its original value again."""
        self.daemon.signal(signal.SIGTERM)
        self.assertEqual(self.daemon.wait(), 0, self.log())
        self.assertEqual({f: self.tree.read(f) for f in FILES}, self.original)


class Logind(Sleep):
    def test_suspend_and_resume(self):
        self.start()
        self.assertTrue(wait_for(lambda: self.fake.count("inhibit sleep powerallocd") == 1),
                        (self.fake.lines, self.log()))
        self.assertIn("mode delay", self.fake.lines)
        held = self.held_states()
        # Long enough in the daemon's own time for its model to fit blocks (0.5 s each).
        self.assertTrue(wait_for(lambda: trace_time_ms(self.daemon) > 2500, 15), self.log())
        self.assertFalse(os.path.exists(self.model_file))
        self.fake.send("sleep")
        self.assertTrue(wait_for(lambda: self.fake.count("released powerallocd") == 1),
                        (self.fake.lines, self.log()))
        self.assertTrue(os.path.exists(self.model_file), self.log())
        self.assertIn("going to sleep: thermal models saved, control stopped", self.log())
        # Periods stopped: 0.5 s is 50 periods, and not one row comes.
        rows = len(trace_rows(self.daemon))
        time.sleep(0.5)
        self.assertEqual(len(trace_rows(self.daemon)), rows)
        self.firmware_reset()
        self.fake.send("wake")
        self.assert_restored(held)
        self.assertIn("(seen by logind)", self.resumed_lines()[0])
        # What the firmware reset in the sleep is written over, not taken for
        # another program's write.
        self.assertNotIn("another writer", self.log())
        self.assertTrue(wait_for(lambda: self.fake.count("inhibit sleep powerallocd") == 2),
                        (self.fake.lines, self.log()))
        self.stop_and_check_originals()

    def test_clock_jump_while_logind_sleeps_is_one_resume(self):
        self.start(faults={"boottime-offset-ms": "0"})
        self.assertTrue(wait_for(lambda: self.fake.count("inhibit sleep powerallocd") == 1),
                        (self.fake.lines, self.log()))
        held = self.held_states()
        self.fake.send("sleep")
        self.assertTrue(wait_for(lambda: self.fake.count("released powerallocd") == 1),
                        (self.fake.lines, self.log()))
        self.daemon.fault("boottime-offset-ms", "42000")
        self.firmware_reset()
        self.fake.send("wake")
        self.assert_restored(held)
        self.assertTrue(re.search(r"resumed after 4[12]\.\d s asleep \(seen by logind\)",
                                  self.resumed_lines()[0]), self.resumed_lines())
        # More periods, and still one line.
        time_ms = trace_time_ms(self.daemon)
        self.assertTrue(wait_for(lambda: trace_time_ms(self.daemon) > time_ms + 300), self.log())
        self.assertEqual(len(self.resumed_lines()), 1, self.log())


class NoLogind(Sleep):
    logind = False

    def test_said_once_and_runs(self):
        self.start()
        held = self.held_states()
        self.assertTrue(wait_for(lambda: "a suspend is seen from the clocks alone" in self.log()),
                        self.log())
        self.assertEqual(self.log().count("logind: "), 1, self.log())
        self.assertEqual({i: self.tree.read(CDEV % i) for i in CLUSTERS}, held)


class Clocks(Sleep):
    """CLOCK_BOOTTIME jumps ahead of CLOCK_MONOTONIC, as after a suspend."""
    logind = False

    def test_clock_jump_is_a_resume(self):
        self.start(faults={"boottime-offset-ms": "0"})
        held = self.held_states()
        # Under the threshold (1 s): nothing.
        self.daemon.fault("boottime-offset-ms", "900")
        time_ms = trace_time_ms(self.daemon)
        self.assertTrue(wait_for(lambda: trace_time_ms(self.daemon) > time_ms + 200), self.log())
        self.assertEqual(self.resumed_lines(), [])
        # The firmware resets the caps and the machine "sleeps" 30 s.
        self.firmware_reset()
        self.daemon.fault("boottime-offset-ms", "30900")
        self.assert_restored(held)
        self.assertTrue(re.search(r"resumed after 30\.\d s asleep \(seen by clocks\)",
                                  self.resumed_lines()[0]), self.resumed_lines())
        self.stop_and_check_originals()


if __name__ == "__main__":
    unittest.main()

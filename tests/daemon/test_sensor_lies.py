#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Sensors that lie (issue 33, 3), the daemon run for real on the RK3399 tree
on a private bus (tests/daemon/test_bus.py): a value outside -40..150 °C, a spike
(one reading more than 40 °C from the last) and a stuck sensor (one value
held while the zone's power moved from idle to flat out for 30 s) are each
a sensor fault with its reason: one journal line with the reason, the value
and SENSOR_FAULT=, the zone's SensorFault on D-Bus (signalled) and in
powerallocctl status, handled as a failed read (limits held, then the
sustainable power: limiting reason sensor-fault), and a journal line when
the sensor reads again.

usage: test_sensor_lies.py (POWERALLOCD and POWERALLOCCTL name the binaries)
"""
import os
import re
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_bus import Bus, ctl, properties_changed  # noqa: E402
from test_daemon import CDEV, ZONE0, stop, wait_for  # noqa: E402

# STUCK_MOVED_MS (lib/control/sensor_fault.h), s.
STUCK_S = 30
SENSOR_FILE = "/sys/class/thermal/thermal_zone0/temp"


class SensorLies(Bus):
    temp_mc = 60000     # under switch-on (70 °C): idle, every actor at its maximum

    def zone(self):
        return self.status()["zones"][0]

    def said(self, words):
        return words in self.daemon.logtext()

    def throttled(self):
        return int(self.tree.read(CDEV % 1)) > 0

    def assert_fault_shown(self, fault):
        """SensorFault on D-Bus, in the JSON and in the status text (held 10 s after it ends)."""
        self.assertEqual(self.zone()["sensor_fault"], fault)
        out = ctl("status")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("\n  sensor fault: %s (its readings not taken; the journal says why)\n"
                      % fault, out.stdout)

    def test_out_of_range(self):
        self.assertTrue(wait_for(lambda: self.zone()["temperature_mc"] == 60000))
        self.assertEqual(self.zone()["sensor_fault"], "none")
        signals = properties_changed(lambda: (
            self.tree.write(ZONE0 + "temp", "151000\n"),
            self.assertTrue(wait_for(lambda: self.said("151000 m°C is outside")),
                            self.daemon.logtext())))
        self.assertRegex(signals, r'string "SensorFault"\s*variant\s+string "out-of-range"')
        log = self.daemon.logtext()
        self.assertEqual(log.count("zone cpu: %s: not a plausible temperature: 151000 m°C is "
                                   "outside -40000..150000 m°C; holding the current limits "
                                   "ZONE=cpu TEMPERATURE_MC=60000 SENSOR_FAULT=out-of-range"
                                   % SENSOR_FILE), 1, log)
        # Busy CPUs over the sustainable power: held to it once blind.
        self.assertTrue(wait_for(self.throttled), self.daemon.logtext())
        self.assertTrue(wait_for(lambda: self.zone()["limiting_reason"] == "sensor-fault"))
        self.assert_fault_shown("out-of-range")
        self.assertEqual(self.zone()["temperature_mc"], 60000)   # the last sane reading
        self.tree.write(ZONE0 + "temp", "61000\n")
        self.assertTrue(wait_for(lambda: self.said("reads again (61000 m°C)")))
        self.assertTrue(wait_for(lambda: not self.throttled()), self.daemon.logtext())
        self.assertEqual(self.daemon.logtext().count("SENSOR_FAULT="), 1)
        stop(self, self.daemon)

    def test_spike(self):
        self.assertTrue(wait_for(lambda: self.zone()["temperature_mc"] == 60000))
        self.tree.write(ZONE0 + "temp", "105000\n")
        self.assertTrue(wait_for(lambda: self.said("a spike")), self.daemon.logtext())
        self.tree.write(ZONE0 + "temp", "60000\n")
        log = self.daemon.logtext()
        self.assertEqual(log.count("zone cpu: %s: a spike: 105000 m°C, +45000 m°C from the "
                                   "previous reading, more than the 40000 m°C a zone can change "
                                   "in one period; holding the current limits ZONE=cpu "
                                   "TEMPERATURE_MC=60000 SENSOR_FAULT=spike" % SENSOR_FILE), 1, log)
        # One period, shown for the hold all the same.
        self.assert_fault_shown("spike")
        self.assertTrue(wait_for(lambda: self.zone()["temperature_mc"] == 60000))
        self.assertTrue(wait_for(lambda: not self.throttled()), self.daemon.logtext())
        stop(self, self.daemon)

    def test_stuck(self):
        self.tree.idle.set()
        try:
            self.assertTrue(wait_for(lambda: self.zone()["temperature_mc"] == 60000))
            time.sleep(1)
        finally:
            self.tree.idle.clear()
        # Flat out on the same reading: stuck after 30 s of it, not before.
        start = time.monotonic()
        self.assertTrue(wait_for(lambda: self.said("SENSOR_FAULT=stuck"), timeout=STUCK_S + 30),
                        self.daemon.logtext())
        self.assertGreaterEqual(time.monotonic() - start, STUCK_S - 1)
        log = self.daemon.logtext()
        said = re.findall(r"zone cpu: %s: stuck: 60000 m°C for (\d+) readings while the "
                          r"zone's power moved by up to (\d+) mW \(over 25 %% of its (\d+) mW "
                          r"maximum\) for (\d+) s; holding the current limits ZONE=cpu "
                          r"TEMPERATURE_MC=60000 SENSOR_FAULT=stuck" % SENSOR_FILE, log)
        self.assertEqual(len(said), 1, log)
        readings, moved, maximum, seconds = map(int, said[0])
        self.assertGreaterEqual(readings, 20)
        self.assertGreater(moved * 4, maximum)
        self.assertGreaterEqual(seconds, STUCK_S)   # a stalled period's reading adds its time
        self.assertTrue(wait_for(self.throttled), self.daemon.logtext())
        self.assertTrue(wait_for(lambda: self.zone()["limiting_reason"] == "sensor-fault"))
        self.assert_fault_shown("stuck")
        self.assertIn("zone cpu: no temperature for 3 periods; limiting to the configured "
                      "sustainable power, 1500 mW", self.daemon.logtext())
        # Said once, however long it lasts; a reading that moves ends it.
        time.sleep(1)
        self.assertEqual(self.daemon.logtext().count("SENSOR_FAULT="), 1)
        self.tree.write(ZONE0 + "temp", "60001\n")
        self.assertTrue(wait_for(lambda: self.said("reads again (60001 m°C)")))
        self.assertTrue(wait_for(lambda: not self.throttled()), self.daemon.logtext())
        stop(self, self.daemon)
        self.assertEqual(self.tree.read(CDEV % 1), "0")
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "step_wise")


if __name__ == "__main__":
    unittest.main(verbosity=2)

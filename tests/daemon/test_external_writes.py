#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Other programs writing the files the daemon writes, on the daemon binary,
a private bus and the RK3399 fixture tree held hot: a cooling state
rewritten once is written back at the next period and logged once; one
rewritten in a loop is fought over (a warning, a back-off, counted on D-Bus
and in the metrics); on_external_write = "yield" leaves the actor to the
other writer for good; at stop a file another writer set is left to it; a
zone whose policy another writer changes from user_space is given up, its
devices put back, the policy left to it; --restore after a SIGKILL leaves
a file another program set since (the state file holds what the daemon last
wrote, updated in place), and restores every file from an older state file.
A reload or a rescan after a give-up leaves the zone's devices to the
kernel's governor: what it set stays, even where it equals what the daemon
last wrote there; a reload rejected after its build took the zone over
again puts the other program's governor back.  A write found on a device
also bound to a zone the kernel governs (one not configured, or one given
up) is the kernel's governor's: the device is left to it, said once, not
counted.

usage: test_external_writes.py (POWERALLOCD and POWERALLOCCTL name the binaries)
"""
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_bus import PrivateBus, ctl  # noqa: E402
from test_daemon import CDEV, ZONE0, Daemon, Tree, run, wait_for  # noqa: E402

CONFIG = """
idle_poll_ms = 200;
metrics_dir = "%s";
metrics_interval_ms = 100;
zones = ( { name = "cpu"; sensor = "cpu-thermal"; sustainable_power = 1500; period_ms = 50;
  actors = ( { type = "cpufreq"; cpus = "0-3"; },
             { type = "cpufreq"; cpus = "4-5"; on_external_write = "%s"; } ); } );
"""
BIG = CDEV % 1
BIG_PATH_END = "cooling_device1/cur_state"
# CONFIG with a second zone that cannot be built (no such devfreq device).
BAD_ZONE = CONFIG.replace("} ); } );", """} ); },
  { name = "gpu"; sensor = "gpu-thermal"; sustainable_power = 1500;
    actors = ( { type = "devfreq"; device = "nosuch.gpu"; } ); } );""")
# The GPU (cooling_device2) on the cpu zone too: it is bound to gpu-thermal
# (thermal_zone1), which the kernel's step_wise governs.
GPU_TOO = CONFIG.replace('on_external_write = "%s"; } );', '''on_external_write = "%s"; },
             { type = "devfreq"; device = "ff9a0000.gpu"; } );''')
# The big cluster (bound to cpu-thermal) on a gpu zone too.
BIG_SHARED = CONFIG.replace("} ); } );", """} ); },
  { name = "gpu"; sensor = "gpu-thermal"; sustainable_power = 1500; period_ms = 50;
    actors = ( { type = "devfreq"; device = "ff9a0000.gpu"; },
               { type = "cpufreq"; cpus = "4-5"; } ); } );""")
GPU = CDEV % 2
ZONE1 = ZONE0.replace("thermal_zone0", "thermal_zone1")


class ExternalWrites(unittest.TestCase):
    def setUp(self):
        self.bus = PrivateBus()
        self.tree = Tree()
        self.tree.write(ZONE0 + "temp", "85000\n")
        self.metrics = tempfile.mkdtemp(prefix="powerallocd-metrics.")
        self.daemon = None
        self.max_big = int(self.tree.read("sys/devices/virtual/thermal/cooling_device1/max_state"))

    def tearDown(self):
        if self.daemon:
            self.daemon.close()
        shutil.rmtree(self.metrics, ignore_errors=True)
        self.tree.close()
        self.bus.close()

    def start(self, policy="reassert", config=CONFIG, *args):
        self.daemon = Daemon(self.tree, config % (self.metrics, policy), *args, bus="system")
        self.assertTrue(wait_for(lambda: self.daemon.notified("READY=1")), self.daemon.logtext())
        # Hot: the big cluster goes down to its deepest state and stays there.
        self.assertTrue(wait_for(lambda: self.big() == self.max_big, timeout=10),
                        self.daemon.logtext())

    def big(self):
        text = self.tree.read(BIG)
        return int(text) if text.strip().isdigit() else -1

    def lines(self, text):
        return [line for line in self.daemon.logtext().splitlines() if text in line]

    def actor(self, name):
        out = ctl("status", "--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        actors = [a for z in json.loads(out.stdout)["zones"] for a in z["actors"]]
        return next(a for a in actors if a["name"] == name)

    def metric(self, actor):
        """powerallocd_actor_external_writes_total of @actor, or None."""
        try:
            with open(os.path.join(self.metrics, "powerallocd.prom")) as f:
                for line in f:
                    if line.startswith('powerallocd_actor_external_writes_total{actor="%s"}' % actor):
                        return int(float(line.split()[-1]))
        except FileNotFoundError:
            pass
        return None

    def test_rewritten_once_is_written_back_and_logged_once(self):
        self.start()
        self.tree.write(BIG, "1")
        self.assertTrue(wait_for(lambda: self.big() == self.max_big), self.daemon.logtext())
        found = self.lines("another writer set")
        self.assertEqual(len(found), 1, self.daemon.logtext())
        self.assertIn(BIG_PATH_END + ": another writer set 1 where %d was" % self.max_big, found[0])
        self.assertEqual(self.lines("fought over"), [])
        self.assertEqual(self.actor("cpufreq-cpu4")["external_writes"], 1)
        self.assertEqual(self.actor("cpufreq-cpu0")["external_writes"], 0)
        self.assertTrue(wait_for(lambda: self.metric("cpufreq-cpu4") == 1), self.daemon.logtext())

    def test_rewritten_in_a_loop_backs_off(self):
        self.start()
        stop = threading.Event()
        writes = [0]

        def loop():
            while not stop.is_set():
                if self.big() != 0:
                    self.tree.write(BIG, "0")
                    writes[0] += 1
                time.sleep(0.02)
        writer = threading.Thread(target=loop)
        writer.start()
        try:
            self.assertTrue(wait_for(lambda: self.lines("fought over"), timeout=5),
                            self.daemon.logtext())
            # Backing off: 1 s, then 2 s, then 4 s between our writes back, so
            # ours comes back about 3 times in 4 s, where every period would be 80.
            time.sleep(4)
        finally:
            stop.set()
            writer.join()
        fought = self.lines("fought over")
        self.assertEqual(len(fought), 1, self.daemon.logtext())
        self.assertTrue(fought[0].startswith("warning:"), fought[0])
        count = self.actor("cpufreq-cpu4")["external_writes"]
        self.assertGreaterEqual(count, 3)
        self.assertLess(count, 12)
        self.assertLessEqual(count, writes[0])
        self.assertTrue(wait_for(lambda: (self.metric("cpufreq-cpu4") or 0) >= 3))
        # The loop is over: ours is back within the back-off (at most 8 s now).
        self.assertTrue(wait_for(lambda: self.big() == self.max_big, timeout=10),
                        self.daemon.logtext())

    def test_yield_leaves_the_actor_and_stop_leaves_theirs(self):
        self.start("yield")
        self.tree.write(BIG, "1")
        self.assertTrue(wait_for(lambda: self.lines('on_external_write = "yield"')),
                        self.daemon.logtext())
        periods = len(open(self.daemon.trace).read().splitlines())
        self.assertTrue(wait_for(lambda: len(open(self.daemon.trace).read().splitlines())
                                 - periods > 10, timeout=30), self.daemon.logtext())
        self.assertEqual(self.big(), 1)
        little = self.actor("cpufreq-cpu0")
        self.assertTrue(self.actor("cpufreq-cpu4")["yielded"])
        self.assertFalse(little["yielded"])
        self.assertEqual(self.actor("cpufreq-cpu4")["requested_mw"], 0)
        self.assertGreater(int(self.tree.read(CDEV % 0)), 0)
        self.daemon.signal(signal.SIGTERM)
        self.assertEqual(self.daemon.wait(), 0)
        # Ours (the little cluster's) restored, theirs left, and said.
        self.assertEqual(self.tree.read(CDEV % 0), "0")
        self.assertEqual(self.big(), 1)
        left = self.lines('left "')
        self.assertEqual(len([x for x in left if BIG_PATH_END in x]), 1, self.daemon.logtext())
        self.assertIn('left "1" as another writer set it (ours was "%d", found at start "0")'
                      % self.max_big, left[0])

    def zone(self):
        out = ctl("status", "--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        return json.loads(out.stdout)["zones"][0]

    def test_policy_changed_gives_the_zone_up(self):
        # Found at start: power_allocator, so that step_wise at stop is theirs, not the original.
        self.tree.write(ZONE0 + "policy", "power_allocator")
        self.start()
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "user_space")
        self.assertEqual(self.zone()["given_up_to"], "")
        self.tree.write(ZONE0 + "policy", "step_wise\n")
        self.assertTrue(wait_for(lambda: self.lines("given up"), timeout=60), self.daemon.logtext())
        # Both clusters back as found, at once (the give-up restores them).
        self.assertTrue(wait_for(lambda: self.big() == 0 and self.tree.read(CDEV % 0) == "0",
                                 timeout=10), self.daemon.logtext())
        zone = self.zone()
        self.assertEqual(zone["given_up_to"], "step_wise")
        self.assertTrue(all(a["yielded"] for a in zone["actors"]), zone)
        # Not fought over and not taken back: two seconds of periods change nothing.
        time.sleep(2)
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "step_wise")
        self.assertEqual((self.big(), self.tree.read(CDEV % 0)), (0, "0"))
        given_up = self.lines("given up")
        self.assertEqual(len(given_up), 1, self.daemon.logtext())
        self.assertTrue(given_up[0].startswith("warning:"), given_up[0])
        self.assertIn('another program set thermal_zone0/policy to "step_wise"', given_up[0])
        self.assertIn("3 of its 3 devices put back", given_up[0])
        # A rebuild (a reload) keeps it given up: the governor found is put back.
        self.daemon.signal(signal.SIGHUP)
        self.assertTrue(wait_for(lambda: self.lines("reloaded")), self.daemon.logtext())
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "step_wise")
        self.assertEqual(self.zone()["given_up_to"], "step_wise")
        time.sleep(1)
        self.assertEqual((self.big(), self.tree.read(CDEV % 0)), (0, "0"))
        self.assertEqual(len(self.lines("given up")), 1, self.daemon.logtext())
        # The kernel's governor throttles the big cluster as deep as powerallocd had.
        self.tree.write(BIG, str(self.max_big))
        self.daemon.signal(signal.SIGTERM)
        self.assertEqual(self.daemon.wait(), 0)
        # At stop, theirs stays: the original power_allocator is not put back,
        # nor the state the kernel's governor set.
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "step_wise")
        self.assertEqual((self.big(), self.tree.read(CDEV % 0)), (self.max_big, "0"))
        self.assertIn("%s: left to the kernel's governor" % BIG_PATH_END, self.daemon.logtext())

    def given_up(self, *start):
        """Starts hot with power_allocator found, then another program sets step_wise."""
        self.tree.write(ZONE0 + "policy", "power_allocator")
        self.start(*start)
        self.tree.write(ZONE0 + "policy", "step_wise\n")
        self.assertTrue(wait_for(lambda: self.lines("given up"), timeout=60), self.daemon.logtext())
        self.assertTrue(wait_for(lambda: self.tree.read(CDEV % 0) == "0", timeout=10),
                        self.daemon.logtext())

    def test_rejected_reload_keeps_a_given_up_zone_to_its_governor(self):
        self.given_up()
        # A config with one zone that cannot be built: rejected, after the new
        # engine took thermal_zone0 over (user_space) to build it.
        with open(self.daemon.config, "w") as f:
            f.write(BAD_ZONE % (self.metrics, "reassert"))
        self.daemon.signal(signal.SIGHUP)
        self.assertTrue(wait_for(lambda: self.lines("reload rejected")), self.daemon.logtext())
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "step_wise")
        self.assertEqual(self.zone()["given_up_to"], "step_wise")
        time.sleep(1)
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "step_wise")
        self.assertEqual((self.big(), self.tree.read(CDEV % 0)), (0, "0"))
        self.assertEqual(len(self.lines("given up")), 1, self.daemon.logtext())

    def rebuilt_after_give_up_leaves_the_governors_state(self, rebuild, done, *start):
        self.given_up(*start)
        self.assertTrue(wait_for(lambda: self.big() == 0, timeout=10), self.daemon.logtext())
        # The kernel's step_wise throttles the big cluster to its deepest state,
        # the value powerallocd last wrote there before the give-up.
        self.tree.write(BIG, str(self.max_big))
        before = len(self.lines(done))
        rebuild()
        self.assertTrue(wait_for(lambda: len(self.lines(done)) > before, timeout=20),
                        self.daemon.logtext())
        self.assertEqual(self.big(), self.max_big, self.daemon.logtext())
        time.sleep(1)
        self.assertEqual(self.big(), self.max_big, self.daemon.logtext())
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "step_wise")
        zone = self.zone()
        self.assertEqual(zone["given_up_to"], "step_wise")
        self.assertTrue(all(a["yielded"] for a in zone["actors"]), zone)
        self.assertEqual(len(self.lines("given up")), 1, self.daemon.logtext())

    def test_reload_after_give_up_leaves_the_governors_state(self):
        self.rebuilt_after_give_up_leaves_the_governors_state(
            lambda: self.daemon.signal(signal.SIGHUP), "reloaded")

    def test_rescan_after_give_up_leaves_the_governors_state(self):
        # A configured zone that cannot be built: the engine is rebuilt every 5 s.
        self.rebuilt_after_give_up_leaves_the_governors_state(
            lambda: None, "rescanning", "reassert", BAD_ZONE, "--log-level", "debug")

    def left_to_the_kernel(self, name, path, tz_id):
        """A write found on @name (file @path), bound to thermal_zone@tz_id that
        the kernel governs: left to the kernel, said once, not counted."""
        value = int(self.tree.read(path))
        theirs = 1 if value != 1 else 2
        self.tree.write(path, str(theirs))
        said = "is bound to thermal_zone%d too, which the kernel's governor drives" % tz_id
        self.assertTrue(wait_for(lambda: self.lines(said)), self.daemon.logtext())
        self.assertEqual(len(self.lines(said)), 1, self.daemon.logtext())
        self.assertIn("%s: set to %d where %d was: %s" % (path.split("/", 4)[-1], theirs,
                                                          value, name), self.lines(said)[0])
        self.assertEqual(self.lines("another writer set"), [], self.daemon.logtext())
        actor = self.actor(name)
        self.assertTrue(actor["yielded"], actor)
        self.assertEqual(actor["external_writes"], 0)
        self.assertEqual(actor["requested_mw"], 0)
        # Not written back: the kernel's value stays while the zones go on.
        with open(self.daemon.trace) as f:
            periods = len(f.read().splitlines())

        def more_periods():
            with open(self.daemon.trace) as f:
                return len(f.read().splitlines()) > periods + 10
        self.assertTrue(wait_for(more_periods, timeout=10))
        self.assertEqual(self.tree.read(path), str(theirs))
        self.assertEqual(len(self.lines(said)), 1, self.daemon.logtext())
        self.assertEqual(self.lines(": fought over:"), [])

    def test_a_device_bound_to_a_zone_left_to_the_kernel_is_left_to_it(self):
        self.start("reassert", GPU_TOO)
        self.assertTrue(wait_for(lambda: int(self.tree.read(GPU)) > 0, timeout=10),
                        self.daemon.logtext())
        self.left_to_the_kernel("devfreq-ff9a0000.gpu", GPU, 1)
        self.assertFalse(self.actor("cpufreq-cpu4")["yielded"])
        # A reload keeps it the kernel's, unsaid.
        self.daemon.signal(signal.SIGHUP)
        self.assertTrue(wait_for(lambda: self.lines("reloaded")), self.daemon.logtext())
        self.assertTrue(self.actor("devfreq-ff9a0000.gpu")["yielded"])
        self.assertEqual(len(self.lines("which the kernel's governor drives")), 1)

    def test_a_device_shared_with_a_zone_given_up_is_left_to_its_governor(self):
        self.tree.write(ZONE1 + "temp", "85000\n")
        self.given_up("reassert", BIG_SHARED)
        # The big cluster serves the gpu zone still, and is bound to thermal_zone0.
        self.assertIn("2 of its 3 devices put back", self.lines("given up")[0])
        self.assertFalse(self.actor("cpufreq-cpu4")["yielded"])
        self.left_to_the_kernel("cpufreq-cpu4", BIG, 0)

    def state(self):
        with open(self.daemon.state) as f:
            return f.read()

    def killed_at_max(self):
        """Started hot, killed once the state file says both clusters were written."""
        self.start()
        little = int(self.tree.read("sys/devices/virtual/thermal/cooling_device0/max_state"))
        self.assertTrue(wait_for(lambda: self.tree.read(CDEV % 0) == str(little), timeout=10))
        # What each cycle wrote is in the state file, in place (fixed-width fields).
        self.assertTrue(wait_for(lambda: "/sys/class/thermal/%s\t0\t%-24d\n"
                                 % (BIG_PATH_END, self.max_big) in self.state(), timeout=10),
                        self.state())
        self.assertIn("/sys/class/thermal/cooling_device0/cur_state\t0\t%-24d\n" % little,
                      self.state())
        self.assertIn("/sys/class/thermal/thermal_zone0/policy\tstep_wise\t%-24s\n"
                      % "user_space", self.state())
        self.daemon.signal(signal.SIGKILL)
        self.daemon.wait()

    def restore(self):
        return run(self.tree, "--restore", "--state-file", self.daemon.state,
                   "--log-target", "stderr")

    def test_sigkill_then_restore_leaves_another_writers_value(self):
        self.killed_at_max()
        self.tree.write(BIG, "1")   # another program, after the crash
        out = self.restore()
        self.assertEqual(out.returncode, 0, out.stderr)
        # Ours still there: restored; theirs: left, and said.
        self.assertEqual(self.tree.read(CDEV % 0), "0")
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "step_wise")
        self.assertEqual(self.big(), 1)
        self.assertEqual(out.stdout, "restored 3 of 4 files from %s (1 zone policy, 3 cooling "
                         "states); 1 left with the value another program set since "
                         "powerallocd wrote it (said above)\n" % self.daemon.state)
        self.assertIn('%s: left "1" as another writer set it (ours was "%d", found at start '
                      '"0")' % (BIG_PATH_END, self.max_big), out.stderr)
        self.assertFalse(os.path.exists(self.daemon.state))

    def test_sigkill_then_a_limit_heavier_than_ours_is_put_back(self):
        """A limit heavier than the one the state file says powerallocd left
        (ours gone stale, a write the crash kept from the file, the kernel's
        own clamp seen through the file) is put back to the original: what
        powerallocd may have left never stays."""
        self.killed_at_max()
        noted = "%s\t0\t%-24d\n" % (BIG_PATH_END, self.max_big)
        state = self.state()
        self.assertIn(noted, state)
        with open(self.daemon.state, "w") as f:
            f.write(state.replace(noted, "%s\t0\t%-24d\n" % (BIG_PATH_END, 1)))
        out = self.restore()
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual((self.big(), self.tree.read(CDEV % 0)), (0, "0"))
        self.assertNotIn("left", out.stderr + out.stdout)
        self.assertFalse(os.path.exists(self.daemon.state))

    def test_restore_from_an_older_state_file_restores_everything(self):
        self.killed_at_max()
        # An older powerallocd's file: "path<TAB>value", no ours: restored unconditionally.
        old = "".join("\t".join(line.split("\t")[:2]) + "\n"
                      for line in self.state().splitlines())
        with open(self.daemon.state, "w") as f:
            f.write(old)
        self.tree.write(BIG, "1")
        out = self.restore()
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout, "restored 4 files from %s: 1 zone policy, 3 cooling "
                         "states\n" % self.daemon.state)
        self.assertEqual((self.big(), self.tree.read(CDEV % 0)), (0, "0"))
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "step_wise")


if __name__ == "__main__":
    unittest.main()

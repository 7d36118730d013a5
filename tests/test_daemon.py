#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The powerallocd binary on fixture trees under umockdev-wrapper: options,
--check-config, control with sd_notify, SIGTERM restore, SIGKILL then
--restore, SIGHUP reloads (rejected and accepted), trace and log fields.

usage: test_daemon.py (POWERALLOCD names the binary)
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import contextlib
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fixture  # noqa: E402

POWERALLOCD = os.environ.get("POWERALLOCD", "build/daemon/powerallocd")
# tests/fault-shim.c, preloaded for faults a file cannot make (see Daemon's faults)
FAULT_SHIM = os.environ.get("POWERALLOCD_FAULT_SHIM",
                            "build/tests/libpowerallocd-fault-shim.so")
# e.g. valgrind, put between umockdev-wrapper and powerallocd (meson test --setup valgrindtree)
WRAPPER = os.environ.get("RUN_IN_TREE_WRAPPER", "").split()
CDEV = "sys/devices/virtual/thermal/cooling_device%d/cur_state"
ZONE0 = "sys/devices/virtual/thermal/thermal_zone0/"

HOT_CONFIG = """
idle_poll_ms = 200;
zones = ( { name = "cpu"; sensor = "cpu-thermal"; sustainable_power = 1500; period_ms = 50;
  actors = ( { type = "cpufreq"; cpus = "0-3"; }, { type = "cpufreq"; cpus = "4-5"; } ); } );
"""


def wait_for(predicate, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


class Tree:
    """A fresh RK3399 tree with a load generator keeping every CPU busy."""

    def __init__(self, name="rk3399-dt"):
        self.dir = tempfile.mkdtemp(prefix="powerallocd-daemon.")
        fixture.TREES[name](fixture.Tree(self.dir))
        self.busy = 0
        self.stop = threading.Event()
        self.hold = threading.Event()   # set: /proc/stat stands still
        self.thread = threading.Thread(target=self._load, daemon=True)
        self.thread.start()

    def _load(self):
        while not self.stop.is_set():
            if self.hold.is_set():
                time.sleep(0.01)
                continue
            self.busy += 5
            lines = ["cpu  0 0 0 0 0 0 0 0 0 0"]
            lines += ["cpu%d %d 0 50 1000 0 0 0 0 0 0" % (c, 100 + self.busy) for c in range(6)]
            self.write("proc/stat", "\n".join(lines + ["intr 0", ""]))
            time.sleep(0.01)

    def path(self, rel):
        return os.path.join(self.dir, rel)

    def read(self, rel):
        with open(self.path(rel)) as f:
            return f.read().strip()

    def write(self, rel, text):
        """In place, as the kernel changes a file the daemon keeps open: one
        write over the old contents, then the length; never an empty file."""
        fd = os.open(self.path(rel), os.O_WRONLY)
        try:
            os.pwrite(fd, text.encode(), 0)
            os.ftruncate(fd, len(text.encode()))
        finally:
            os.close(fd)

    def close(self):
        self.stop.set()
        self.thread.join()
        shutil.rmtree(self.dir)


class Daemon:
    """powerallocd on @tree.  @faults: rule files of tests/fault-shim.c
    ({"no-netlink": ""}, ...), written to a folder of the run's and
    changed later with fault(); the shim is preloaded when given."""

    def __init__(self, tree, config, *args, bus="none", faults=None):
        self.tree = tree
        self.work = tempfile.mkdtemp(prefix="powerallocd-run.")
        self.faults = os.path.join(self.work, "faults")
        self.config = os.path.join(self.work, "powerallocd.conf")
        self.state = os.path.join(self.work, "state")
        self.trace = os.path.join(self.work, "trace.csv")
        self.log = os.path.join(self.work, "log")
        with open(self.config, "w") as f:
            f.write(config)
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(os.path.join(self.work, "notify"))
        self.notify.setblocking(False)
        self.messages = []
        env = dict(os.environ, UMOCKDEV_DIR=tree.dir,
                   NOTIFY_SOCKET=os.path.join(self.work, "notify"))
        if faults is not None:
            os.mkdir(self.faults)
            for rule, text in faults.items():
                self.fault(rule, text)
            env.update(POWERALLOCD_FAULT_DIR=self.faults, LD_PRELOAD=os.path.abspath(FAULT_SHIM))
        self.proc = subprocess.Popen(
            ["umockdev-wrapper"] + WRAPPER + [POWERALLOCD, "-c", self.config, "--state-file", self.state,
             "--log-target", "stderr", "--trace", self.trace, "--bus", bus] + list(args),
            env=env, stderr=self._logfile())

    def fault(self, rule, text):
        """Sets a fault-shim rule; None clears it."""
        path = os.path.join(self.faults, rule)
        if text is None:
            os.unlink(path)
        else:
            with open(path, "w") as f:
                f.write(text)

    def _logfile(self):
        self.logfile = open(self.log, "w")
        return self.logfile

    def notified(self, prefix):
        while True:
            try:
                self.messages += self.notify.recv(4096).decode().split("\n")
            except BlockingIOError:
                break
        return [m for m in self.messages if m.startswith(prefix)]

    def logtext(self):
        with open(self.log) as f:
            return f.read()

    def signal(self, sig):
        self.proc.send_signal(sig)

    def wait(self):
        return self.proc.wait(timeout=10)

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.notify.close()
        self.logfile.close()
        shutil.rmtree(self.work)


@contextlib.contextmanager
def running(config, temp_mc=None, tree_name="rk3399-dt", faults=None):
    """A fresh tree (its first zone at @temp_mc) and the daemon on it; both go away after."""
    tree = Tree(tree_name)
    try:
        if temp_mc is not None:
            tree.write(ZONE0 + "temp", "%d\n" % temp_mc)
        daemon = Daemon(tree, config, faults=faults)
        try:
            yield tree, daemon
        finally:
            daemon.close()
    finally:
        tree.close()


def stop(test, daemon):
    """SIGTERM, and the daemon must exit 0."""
    daemon.signal(signal.SIGTERM)
    test.assertEqual(daemon.wait(), 0)


def run(tree, *args):
    env = dict(os.environ, UMOCKDEV_DIR=tree.dir)
    return subprocess.run(["umockdev-wrapper"] + WRAPPER + [POWERALLOCD] + list(args), env=env,
                          capture_output=True, text=True, timeout=30)


class Options(unittest.TestCase):
    def test_version_help_usage(self):
        out = subprocess.run([POWERALLOCD, "--version"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0)
        self.assertRegex(out.stdout, r"^powerallocd \d+\.\d+")
        out = subprocess.run([POWERALLOCD, "--help"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0)
        for option in ("--config", "--check-config", "--log-level", "--trace", "--restore",
                       "--state-file", "--log-target"):
            self.assertIn(option, out.stdout)
        # powerallocd(8) has an entry for every option --help lists.
        with open(os.path.join(HERE, "..", "man", "powerallocd.8.scd")) as f:
            man = f.read()
        options = set(re.findall(r"(--[a-z-]+)", out.stdout))
        self.assertGreaterEqual(len(options), 9)
        for option in options:
            self.assertIn("*%s*" % option, man)
        out = subprocess.run([POWERALLOCD, "--bogus"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 2)
        out = subprocess.run([POWERALLOCD, "--log-level", "loud"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 2)
        self.assertIn("not one of err", out.stderr)


class CheckConfig(unittest.TestCase):
    def setUp(self):
        self.tree = Tree()
        self.work = tempfile.mkdtemp()

    def tearDown(self):
        self.tree.close()
        shutil.rmtree(self.work)

    def conf(self, text):
        path = os.path.join(self.work, "c.conf")
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_prints_zones_and_touches_nothing(self):
        before = {p: self.tree.read(p) for p in (CDEV % 0, CDEV % 1, ZONE0 + "policy")}
        out = run(self.tree, "--check-config", "-c", self.conf(HOT_CONFIG))
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("zone cpu: thermal_zone0", out.stdout)
        self.assertIn("actor cpufreq-cpu4 (cpufreq)", out.stdout)
        self.assertIn("1800000 kHz     1130 mW per CPU", out.stdout)
        self.assertIn("power model: device-tree", out.stdout)
        self.assertIn("controller default, efficiency division", out.stdout)
        self.assertIn("integral cutoff 0 m°C, aims 50 m°C under control\n", out.stdout)
        self.assertIn("step_wise fallback pwm-fan (cooling_device3), states 0-3, trips 55000 "
                      "65000 m°C", out.stdout)
        before[CDEV % 3] = "0"
        self.assertEqual(before, {p: self.tree.read(p) for p in before})

    def test_shipped_example(self):
        """conf/powerallocd.conf as installed, and with its zones uncommented."""
        example = os.path.join(HERE, "..", "conf", "powerallocd.conf")
        out = run(self.tree, "--check-config", "-c", example)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("no zones configured (automatic), 1 zone controllable", out.stdout)
        with open(example) as f:
            text = f.read()
        head, zones = text.split("\n# zones = (", 1)
        zones = re.sub(r"(?m)^# ?", "", "# zones = (" + zones)
        out = run(self.tree, "--check-config", "-c", self.conf(head + "\n" + zones))
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("zone cpu: thermal_zone0", out.stdout)
        self.assertIn("zone gpu: thermal_zone1", out.stdout)
        self.assertIn("actor devfreq-ff9a0000.gpu (devfreq)", out.stdout)

    def test_invalid_config(self):
        out = run(self.tree, "--check-config", "-c", self.conf("zones = ( { name = 1; } );\n"))
        self.assertEqual(out.returncode, 3)
        self.assertIn("c.conf:1: zones[0].name: expected a string", out.stderr)

    def test_zone_that_does_not_exist(self):
        out = run(self.tree, "--check-config", "-c", self.conf(
            'zones = ( { name = "x"; sensor = "nope"; switch_on_temp = 1000; control_temp = 2000;'
            ' actors = ( { type = "cpufreq"; cpus = "0-3"; } ); } );\n'))
        self.assertEqual(out.returncode, 3)
        self.assertIn('no thermal zone "nope"', out.stderr)

    def test_missing_named_config(self):
        out = run(self.tree, "--check-config", "-c", os.path.join(self.work, "absent.conf"))
        self.assertEqual(out.returncode, 3)
        self.assertIn("No such file", out.stderr)


class Control(unittest.TestCase):
    def setUp(self):
        self.tree = Tree()
        self.tree.write(ZONE0 + "temp", "80000\n")

    def tearDown(self):
        self.daemon.close()
        self.tree.close()

    def start(self, config=HOT_CONFIG):
        self.daemon = Daemon(self.tree, config)
        self.assertTrue(wait_for(lambda: self.daemon.notified("READY=1")), self.daemon.logtext())

    def trace_rows(self):
        with open(self.daemon.trace) as f:
            return len(f.read().splitlines())

    def throttled(self):
        return int(self.tree.read(CDEV % 1)) > 0

    def test_controls_then_restores_on_sigterm(self):
        self.start()
        self.assertTrue(wait_for(self.throttled), self.daemon.logtext())
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "user_space")
        self.assertTrue(wait_for(lambda: self.daemon.notified("STATUS=cpu 80.0°C budget")))
        with open(self.daemon.state) as f:
            state = f.read()
        self.assertIn("/sys/class/thermal/thermal_zone0/policy\tstep_wise", state)
        self.assertIn("/sys/class/thermal/cooling_device1/cur_state\t0", state)
        log = self.daemon.logtext()
        self.assertIn("switch-on 70.0°C crossed; controlling ZONE=cpu TEMPERATURE_MC=80000", log)
        self.assertRegex(log, r"(listening to thermal netlink events|polling only)")
        self.assertTrue(wait_for(lambda: self.trace_rows() > 6))
        self.daemon.signal(signal.SIGTERM)
        self.assertEqual(self.daemon.wait(), 0)
        self.assertEqual(self.tree.read(CDEV % 0), "0")
        self.assertEqual(self.tree.read(CDEV % 1), "0")
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "step_wise")
        self.assertFalse(os.path.exists(self.daemon.state))
        with open(self.daemon.trace) as f:
            rows = f.read().splitlines()
        self.assertTrue(rows[0].startswith("time_ms,zone,temp_mc,active,err_mc"))
        self.assertGreater(len(rows), 6)
        # control 75 C less the default controller's 50 m°C margin
        self.assertIn(",cpu,80000,1,-5050,", rows[-1])

    def test_proc_stat_standing_still_is_not_idle(self):
        # Two reads of /proc/stat within one tick see the same counters: no
        # time passed, which is not a load of 0 % (that would lift the limits).
        self.start()
        self.assertTrue(wait_for(self.throttled), self.daemon.logtext())
        self.tree.hold.set()
        try:
            end = time.monotonic() + 0.8
            while time.monotonic() < end:
                self.assertTrue(self.throttled(), self.daemon.logtext())
                time.sleep(0.01)
            # The last periods, all within the hold, kept the cluster's load.
            with open(self.daemon.trace) as f:
                loads = [row.split(",")[11] for row in f.read().splitlines()[1:]
                         if row.split(",")[10] == "cpufreq-cpu4"]
            self.assertGreaterEqual(len(loads), 5, loads)
            self.assertNotIn("0", loads[-5:], loads)
        finally:
            self.tree.hold.clear()

    def test_sigkill_then_restore(self):
        self.start()
        self.assertTrue(wait_for(self.throttled))
        self.daemon.signal(signal.SIGKILL)
        self.daemon.wait()
        self.assertTrue(self.throttled())
        out = run(self.tree, "--restore", "--state-file", self.daemon.state,
                  "--log-target", "stderr")
        self.assertEqual(out.returncode, 0, out.stderr)
        # both clusters, the fan and the zone's policy
        self.assertIn("restored 4 of 4 files", out.stderr)
        self.assertEqual(self.tree.read(CDEV % 1), "0")
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "step_wise")
        self.assertFalse(os.path.exists(self.daemon.state))
        out = run(self.tree, "--restore", "--state-file", self.daemon.state,
                  "--log-target", "stderr")
        self.assertEqual(out.returncode, 0)
        self.assertIn("nothing to restore", out.stderr)

    def test_reload_rejected_then_accepted(self):
        self.start()
        self.assertTrue(wait_for(self.throttled))
        with open(self.daemon.config, "w") as f:
            f.write("zones = ( garbage\n")
        self.daemon.signal(signal.SIGHUP)
        self.assertTrue(wait_for(lambda: "reload rejected" in self.daemon.logtext()))
        self.assertIn("powerallocd.conf:1: syntax error", self.daemon.logtext())
        self.assertIsNone(self.daemon.proc.poll())
        self.assertTrue(wait_for(self.throttled))
        # The new config drops the big cluster: it is released at once.
        with open(self.daemon.config, "w") as f:
            f.write(HOT_CONFIG.replace(', { type = "cpufreq"; cpus = "4-5"; }', ""))
        self.daemon.signal(signal.SIGHUP)
        self.assertTrue(wait_for(lambda: "reloaded" in self.daemon.logtext()),
                        self.daemon.logtext())
        self.assertTrue(wait_for(lambda: self.tree.read(CDEV % 1) == "0"))
        with open(self.daemon.state) as f:
            self.assertNotIn("cooling_device1", f.read())
        self.daemon.signal(signal.SIGTERM)
        self.assertEqual(self.daemon.wait(), 0)
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "step_wise")

    def test_cools_down_and_releases(self):
        self.start()
        self.assertTrue(wait_for(self.throttled))
        self.tree.write(ZONE0 + "temp", "50000\n")
        self.assertTrue(wait_for(lambda: not self.throttled()))
        self.assertTrue(wait_for(lambda: "below switch-on; limits released"
                                 in self.daemon.logtext()))
        self.assertTrue(wait_for(lambda: self.daemon.notified("STATUS=cpu idle")))


GPU_CONFIG = HOT_CONFIG.replace(
    '{ type = "cpufreq"; cpus = "4-5"; }',
    '{ type = "cpufreq"; cpus = "4-5"; }, { type = "devfreq"; device = "ff9a0000.gpu"; }')


class Devices(unittest.TestCase):
    """Cooling devices that are missing at start or appear later."""

    def setUp(self):
        self.tree = Tree()
        self.tree.write(ZONE0 + "temp", "80000\n")
        self.daemon = None

    def tearDown(self):
        if self.daemon:
            self.daemon.close()
        self.tree.close()

    def hide_gpu_cdev(self):
        os.rename(self.tree.path("sys/devices/virtual/thermal/cooling_device2"),
                  self.tree.path("gpu-cdev-away"))

    def show_gpu_cdev(self):
        os.rename(self.tree.path("gpu-cdev-away"),
                  self.tree.path("sys/devices/virtual/thermal/cooling_device2"))

    def state_file(self):
        with open(self.daemon.state) as f:
            return f.read()

    def test_device_appears_later(self):
        self.hide_gpu_cdev()
        self.daemon = Daemon(self.tree, GPU_CONFIG)
        self.assertTrue(wait_for(lambda: self.daemon.notified("READY=1")))
        self.assertIn("the zone runs without it", self.daemon.logtext())
        self.assertNotIn("cooling_device2", self.state_file())
        self.show_gpu_cdev()
        # The daemon looks again every 5 s while a configured device is missing.
        self.assertTrue(wait_for(lambda: "cooling_device2" in self.state_file(), timeout=12),
                        self.daemon.logtext())
        self.assertIn("rescanning", self.daemon.logtext())
        self.daemon.signal(signal.SIGTERM)
        self.assertEqual(self.daemon.wait(), 0)
        self.assertEqual(self.tree.read(CDEV % 2), "0")

    def test_reload_naming_a_missing_device_is_rejected(self):
        self.daemon = Daemon(self.tree, HOT_CONFIG)
        self.assertTrue(wait_for(lambda: self.daemon.notified("READY=1")))
        self.hide_gpu_cdev()
        with open(self.daemon.config, "w") as f:
            f.write(GPU_CONFIG)
        self.daemon.signal(signal.SIGHUP)
        self.assertTrue(wait_for(lambda: "reload rejected" in self.daemon.logtext()),
                        self.daemon.logtext())
        self.assertIsNone(self.daemon.proc.poll())
        self.show_gpu_cdev()
        self.daemon.signal(signal.SIGTERM)
        self.assertEqual(self.daemon.wait(), 0)
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "step_wise")


class Watchdog(unittest.TestCase):
    def test_watchdog_pings_from_the_loop(self):
        tree = Tree()
        try:
            os.environ["WATCHDOG_USEC"] = "200000"
            daemon = Daemon(tree, HOT_CONFIG)
        finally:
            del os.environ["WATCHDOG_USEC"]
        try:
            self.assertTrue(wait_for(lambda: len(daemon.notified("WATCHDOG=1")) >= 3),
                            daemon.messages)
            daemon.signal(signal.SIGTERM)
            self.assertEqual(daemon.wait(), 0)
        finally:
            daemon.close()
            tree.close()


class Fan(unittest.TestCase):
    """The RK3399 tree's pwm-fan (cooling_device3, max_state 3) on cpu-thermal's
    active trips at 55 and 65 °C: the step_wise fallback drives it with idle
    polling off, reading the zone every second while the fan is on."""

    def test_fan_steps_with_idle_polling_off(self):
        # No netlink (the shim refuses the socket): idle_poll_ms = 0 polls every second.
        with running("idle_poll_ms = 0;\n", 60000, faults={"no-netlink": ""}) as (tree, daemon):
            fan = lambda: int(tree.read(CDEV % 3))
            self.assertTrue(wait_for(lambda: daemon.notified("READY=1")))
            # One trip of two crossed: up to ceil(3 / 2) = 2, a step per read.
            self.assertTrue(wait_for(lambda: fan() == 1, timeout=5))
            self.assertTrue(wait_for(lambda: fan() == 2, timeout=5))
            time.sleep(1.5)
            self.assertEqual(fan(), 2)
            tree.write(ZONE0 + "temp", "40000\n")
            self.assertTrue(wait_for(lambda: fan() == 0, timeout=8))
            stop(self, daemon)
            self.assertEqual(fan(), 0)
            # The trace has a row for the fan too, with the state it was put in.
            with open(daemon.trace) as f:
                fan_rows = [r for r in f.read().splitlines() if ",pwm-fan," in r]
            self.assertTrue(any(r.split(",")[16] == "2" for r in fan_rows), fan_rows[:3])


class IdlePolling(unittest.TestCase):
    """Below switch-on a zone is read every idle_poll_ms, unless it has been
    rising fast enough to pass switch-on before the next idle read: then at
    its period, so that a load that starts while it is idle is caught."""

    CONFIG = """
idle_poll_ms = 1000;
zones = ( { name = "cpu"; sensor = "cpu-thermal"; sustainable_power = 1500; period_ms = 50;
  switch_on_temp = 60000; control_temp = 80000;
  actors = ( { type = "cpufreq"; cpus = "0-3"; }, { type = "cpufreq"; cpus = "4-5"; } ); } );
"""

    def reads(self, daemon):
        """(time_ms, temp_mc, active) of every reading of the zone, from the trace."""
        with open(daemon.trace) as f:
            rows = [r.split(",") for r in f.read().splitlines()[1:]]
        return sorted({(int(r[0]), int(r[2]), r[3]) for r in rows if r[1] == "cpu"})

    def test_rising_zone_read_at_its_period(self):
        with running(self.CONFIG, 40000) as (tree, daemon):
            self.assertTrue(wait_for(lambda: daemon.notified("READY=1")))
            time.sleep(2.2)
            idle = self.reads(daemon)
            # At start, then about every second (the wakeup may move by a quarter).
            self.assertIn(len(idle), (2, 3, 4), idle)
            gaps = [b[0] - a[0] for a, b in zip(idle, idle[1:])]
            self.assertTrue(all(g >= 700 for g in gaps), gaps)
            # 12 °C in about a second: 8 °C below switch-on is within one idle poll.
            tree.write(ZONE0 + "temp", "52000\n")
            time.sleep(2.2)
            warm = [r for r in self.reads(daemon) if r[1] == 52000]
            self.assertGreaterEqual(len(warm), 10, warm)
            self.assertTrue(all(r[2] == "0" for r in warm), warm)
            stop(self, daemon)


class NoEvents(unittest.TestCase):
    """idle_poll_ms = 0 waits for the kernel's thermal netlink events; where
    there are none (older kernels, containers: here the shim refuses the
    netlink socket), an idle zone is polled every second all the same."""

    def test_cooled_zone_is_read_again(self):
        config = HOT_CONFIG.replace("idle_poll_ms = 200;", "idle_poll_ms = 0;")
        with running(config, 80000, faults={"no-netlink": ""}) as (tree, daemon):
            self.assertTrue(wait_for(lambda: daemon.notified("READY=1")))
            self.assertTrue(wait_for(lambda: int(tree.read(CDEV % 1)) > 0), daemon.logtext())
            tree.write(ZONE0 + "temp", "40000\n")
            self.assertTrue(wait_for(lambda: daemon.notified("STATUS=cpu idle")))
            self.assertEqual(tree.read(CDEV % 1), "0")
            time.sleep(1.2)
            tree.write(ZONE0 + "temp", "90000\n")
            # Read again within the 1 s poll (it may move by a quarter).
            self.assertTrue(wait_for(lambda: int(tree.read(CDEV % 1)) > 0, timeout=2.5),
                            daemon.logtext())
            log = daemon.logtext()
            self.assertIn("polling only", log)
            self.assertEqual(log.count("idle_poll_ms = 0 waits for thermal netlink events, "
                                       "which are unavailable: polling idle zones every 1000 ms"),
                             1, log)
            stop(self, daemon)


class NoZone(unittest.TestCase):
    def test_keeps_running_without_a_zone(self):
        with running("idle_poll_ms = 100;\n", tree_name="x86-laptop") as (tree, daemon):
            self.assertTrue(wait_for(lambda: daemon.notified("READY=1")))
            self.assertTrue(wait_for(lambda: daemon.notified("STATUS=no controllable zone")))
            time.sleep(0.3)
            self.assertIsNone(daemon.proc.poll())
            stop(self, daemon)


if __name__ == "__main__":
    unittest.main(verbosity=2)

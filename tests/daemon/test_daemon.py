#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The powerallocd binary on fixture trees under umockdev-wrapper: options,
--check-config, control with sd_notify, SIGTERM restore, SIGKILL then
--restore, SIGHUP reloads (rejected and accepted), trace and log fields.

usage: test_daemon.py (POWERALLOCD names the binary)
"""
import os
import re
import resource
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import atexit
import contextlib
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "fixtures"))
import fixture  # noqa: E402

POWERALLOCD = os.environ.get("POWERALLOCD", "build/daemon/powerallocd")
# tests/helpers/fault-shim.c, preloaded for faults a file cannot make (see Daemon's faults)
FAULT_SHIM = os.environ.get("POWERALLOCD_FAULT_SHIM",
                            "build/tests/helpers/libpowerallocd-fault-shim.so")
# e.g. valgrind, put between umockdev-wrapper and powerallocd (meson test --setup valgrindtree)
WRAPPER = os.environ.get("RUN_IN_TREE_WRAPPER", "").split()
CDEV = "sys/devices/virtual/thermal/cooling_device%d/cur_state"
ZONE0 = "sys/devices/virtual/thermal/thermal_zone0/"

HOT_CONFIG = """
idle_poll_ms = 200;
zones = ( { name = "cpu"; sensor = "cpu-thermal"; sustainable_power = 1500; period_ms = 50;
  actors = ( { type = "cpufreq"; cpus = "0-3"; }, { type = "cpufreq"; cpus = "4-5"; } ); } );
"""


# Under valgrind (WRAPPER) the daemon runs 20-50 times slower: waits for
# what it does take up to this many times longer before they give up.
SLOWDOWN = 10 if WRAPPER else 1


def wait_for(predicate, timeout=5.0):
    end = time.monotonic() + timeout * SLOWDOWN
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def read_to_close(fd, timeout=30.0, until=None):
    """What is left to read on the pseudo-terminal (or pipe) @fd until its
    last writer closes it (or, given @until, bytes, until what was read
    holds it); raises AssertionError, with what was read, when that takes
    over @timeout s (a writer that never ends fails, not hangs)."""
    data, end = b"", time.monotonic() + timeout * SLOWDOWN
    while until is None or until not in data:
        left = end - time.monotonic()
        if left <= 0:
            raise AssertionError("still open after %.0f s: %r" % (timeout, data[-500:]))
        if not select.select([fd], [], [], min(left, 0.5))[0]:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:     # EIO: the last writer closed a pseudo-terminal
            return data
        if not chunk:
            return data
        data += chunk
    return data


class Tree:
    """A fresh RK3399 tree (or the tree @name) with a load generator keeping
    every one of its @cpus CPUs busy."""

    def __init__(self, name="rk3399-dt", cpus=6):
        self.dir = tempfile.mkdtemp(prefix="powerallocd-daemon.")
        fixture.TREES[name](fixture.Tree(self.dir))
        self.cpus = cpus
        self.busy = 0
        self.idle_ticks = 0
        self.stop = threading.Event()
        self.hold = threading.Event()   # set: /proc/stat stands still
        self.idle = threading.Event()   # set: the CPUs idle (0 % load)
        self.thread = threading.Thread(target=self._load, daemon=True)
        self.thread.start()

    def _load(self):
        while not self.stop.is_set():
            if self.hold.is_set():
                time.sleep(0.01)
                continue
            if self.idle.is_set():
                self.idle_ticks += 5
            else:
                self.busy += 5
            lines = ["cpu  0 0 0 0 0 0 0 0 0 0"]
            lines += ["cpu%d %d 0 50 %d 0 0 0 0 0 0" % (c, 100 + self.busy, 1000 + self.idle_ticks)
                      for c in range(self.cpus)]
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


# Daemons not closed yet: a test whose setUp fails gets no tearDown, and a
# daemon left running would hold meson's output pipe open until its timeout.
LIVE = set()
atexit.register(lambda: [d.close() for d in list(LIVE)])


class Daemon:
    """powerallocd on @tree; @state, @trace, @models: its state file, trace and
    state directory for the learnt thermal models (default: in a directory of
    its own); @nofile: (soft, hard) RLIMIT_NOFILE to start it with;
    @faults: rule files of tests/helpers/fault-shim.c ({"no-netlink": ""}, ...), written
    to a folder of the run's and changed later with fault(); the shim is
    preloaded when given; @log_target: its --log-target, None for the
    default; @env_changes: variables to set (None: to unset); @stderr: where its
    stderr goes (default: the file logtext() reads); @umask: its umask;
    @shim_first: the fault shim preloaded before umockdev's library, so that
    it sees the calls umockdev wraps (open, read, recvmsg, connect) too."""

    def __init__(self, tree, config, *args, bus="none", state=None, trace=None, nofile=None,
                 faults=None, models=None, log_target="stderr", env_changes=None, stderr=None,
                 umask=None, shim_first=False):
        self.tree = tree
        self.work = tempfile.mkdtemp(prefix="powerallocd-run.")
        self.faults = os.path.join(self.work, "faults")
        self.config = os.path.join(self.work, "powerallocd.conf")
        self.state = state or os.path.join(self.work, "state")
        self.trace = trace or os.path.join(self.work, "trace.csv")
        self.log = os.path.join(self.work, "log")
        self.logfile = None
        with open(self.config, "w") as f:
            f.write(config)
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(os.path.join(self.work, "notify"))
        self.notify.settimeout(0.05)
        self.messages = []
        # Read as they come: the socket queues 10 datagrams at most
        # (net.unix.max_dgram_qlen), and a full queue blocks the daemon's
        # sd_notify() as systemd, which reads at once, never would.
        self.reading = True
        self.reader = threading.Thread(target=self._read_notify, daemon=True)
        self.reader.start()
        env = dict(os.environ, UMOCKDEV_DIR=tree.dir,
                   NOTIFY_SOCKET=os.path.join(self.work, "notify"))
        for name, value in (env_changes or {}).items():
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value
        if faults is not None:
            os.mkdir(self.faults)
            for rule, text in faults.items():
                self.fault(rule, text)
            env.update(POWERALLOCD_FAULT_DIR=self.faults, LD_PRELOAD=os.path.abspath(FAULT_SHIM))
        first = (["env", "LD_PRELOAD=%s:libumockdev-preload.so.0" % os.path.abspath(FAULT_SHIM)]
                 if shim_first else [])
        self.proc = subprocess.Popen(
            ["umockdev-wrapper"] + WRAPPER + first + [POWERALLOCD, "-c", self.config, "--state-file", self.state,
             "--state-directory", models or self.work,
             "--trace", self.trace, "--bus", bus] +
            (["--log-target", log_target] if log_target else []) + list(args),
            env=env, stderr=self._logfile() if stderr is None else stderr,
            preexec_fn=lambda: self._preexec(nofile, umask))
        LIVE.add(self)

    @staticmethod
    def _preexec(nofile, umask):
        if nofile:
            resource.setrlimit(resource.RLIMIT_NOFILE, nofile)
        if umask is not None:
            os.umask(umask)

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

    def _read_notify(self):
        while self.reading:
            try:
                self.messages += self.notify.recv(4096).decode().split("\n")
            except (socket.timeout, OSError):
                pass

    def notified(self, prefix):
        return [m for m in list(self.messages) if m.startswith(prefix)]

    def logtext(self):
        if not os.path.exists(self.log):
            return "(stderr not kept)"
        with open(self.log) as f:
            return f.read()

    def signal(self, sig):
        self.proc.send_signal(sig)

    def wait(self):
        return self.proc.wait(timeout=10)

    def close(self):
        if self.proc is None:
            return
        LIVE.discard(self)
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None
        self.reading = False
        self.reader.join()
        self.notify.close()
        if self.logfile:
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
        with open(os.path.join(HERE, "..", "..", "man", "powerallocd.8.scd")) as f:
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
        self.assertIn("step_wise fallback pwm-fan (cooling_device3), states 0-3\n"
                      "      trips 55000 65000 m°C", out.stdout)
        before[CDEV % 3] = "0"
        self.assertEqual(before, {p: self.tree.read(p) for p in before})

    def test_shipped_example(self):
        """conf/powerallocd.conf as installed, and with its zones uncommented."""
        example = os.path.join(HERE, "..", "..", "conf", "powerallocd.conf")
        out = run(self.tree, "--check-config", "-c", example)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("no zones configured (automatic), 1 zone controllable", out.stdout)
        # gpu-thermal has one passive trip and no sustainable_power: left, and said.
        self.assertIn("notice: thermal_zone1 (gpu-thermal): one passive trip (trip 0, 75.0 °C) "
                      "and no sustainable_power: ", out.stderr)
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
            'zones = ( { name = "x"; sensor = "nope"; switch_on_temp = 60000; control_temp = 70000;'
            ' actors = ( { type = "cpufreq"; cpus = "0-3"; } ); } );\n'))
        self.assertEqual(out.returncode, 3)
        self.assertIn('no thermal zone "nope"', out.stderr)

    def test_combined_sensor_inputs(self):
        """--check-config lists a combined sensor's inputs as found, and
        names the zones whose sensor has an input that is not there."""
        zone = ('{ name = "%s"; sensor = %s; switch_on_temp = 40000; control_temp = 50000;'
                ' actors = ( { type = "cpufreq_cap"; cpus = "0-3"; } ); }')
        good = zone % ("skin", '{ sum = ( { zone = "cpu-thermal"; weight = 0.6; },'
                       ' { zone = "thermal_zone1"; weight = 0.4; } ); offset = -2000; }')
        out = run(self.tree, "--check-config", "-c", self.conf("zones = ( %s );\n" % good))
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("zone skin: sum(0.6*thermal_zone0,0.4*thermal_zone1)-2000, switch-on "
                      "40000 m°C, control 50000 m°C", out.stdout)
        self.assertIn("    sensor sum of cpu-thermal (thermal_zone0, weight 0.6), gpu-thermal "
                      "(thermal_zone1, weight 0.4), offset -2000 m°C", out.stdout)
        bad = [zone % (name, '{ max = [ "cpu-thermal", "%s" ]; }' % missing)
               for name, missing in (("case", "battery"), ("board", "thermal_zone9"))]
        out = run(self.tree, "--check-config", "-c",
                  self.conf("zones = ( %s );\n" % ", ".join([good] + bad)))
        self.assertEqual(out.returncode, 3, out.stdout + out.stderr)
        self.assertIn('zone case: no thermal zone "battery" (an input of its sensor); thermal '
                      'zones: thermal_zone0 (cpu-thermal)', out.stderr)
        self.assertIn("2 of 3 configured zones cannot be controlled (see above): case, board",
                      out.stderr)

    def test_zone_without_user_space_is_refused(self):
        """A kernel without CONFIG_THERMAL_GOV_USER_SPACE cannot hand a zone
        over: a configured one fails the check, an automatic one is skipped,
        both with the option to enable."""
        tree = Tree("rk3399-no-user-space")
        try:
            out = run(tree, "--check-config", "-c", self.conf(HOT_CONFIG))
            self.assertEqual(out.returncode, 3, out.stdout + out.stderr)
            self.assertIn("err: zone cpu: thermal_zone0 (cpu-thermal) offers no user_space policy "
                          "(available_policies: power_allocator step_wise fair_share bang_bang): "
                          "the kernel needs CONFIG_THERMAL_GOV_USER_SPACE=y; zone skipped",
                          out.stderr)
            self.assertIn("1 of 1 configured zones cannot be controlled", out.stderr)
            out = run(tree, "--check-config", "-c", self.conf("log_level = \"info\";\n"))
            self.assertEqual(out.returncode, 5, out.stdout + out.stderr)    # nothing to control
            self.assertIn("0 zones controllable", out.stdout)
            self.assertIn("warning: zone cpu-thermal: thermal_zone0 (cpu-thermal) offers no "
                          "user_space policy", out.stderr)
            self.assertIn("CONFIG_THERMAL_GOV_USER_SPACE=y; not controlled", out.stderr)
        finally:
            tree.close()

    def test_missing_named_config(self):
        out = run(self.tree, "--check-config", "-c", os.path.join(self.work, "absent.conf"))
        self.assertEqual(out.returncode, 3)
        self.assertIn("No such file", out.stderr)

    def test_config_that_cannot_be_read(self):
        """A directory, a FIFO, a device (issue 42, 1): libconfig's scanner
        exited 2 on them ("input in flex scanner failed", no file named)."""
        fifo = os.path.join(self.work, "fifo")
        os.mkfifo(fifo)
        for path in (self.work, fifo, "/dev/zero"):
            out = run(self.tree, "--check-config", "-c", path)
            self.assertEqual(out.returncode, 3, out.stderr)
            self.assertEqual(out.stderr, "%s: cannot read: not a regular file\n" % path)
        out = run(self.tree, "--check-config", "-c", self.conf('@include "%s"\n' % fifo))
        self.assertEqual(out.returncode, 3, out.stderr)
        self.assertIn('c.conf:1: @include "%s": %s: cannot read: not a regular file' % (fifo, fifo),
                      out.stderr)


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

    def last_row(self):
        """The trace's last row, by column name ({} before the first)."""
        with open(self.daemon.trace) as f:
            rows = f.read().splitlines()
        return dict(zip(rows[0].split(","), rows[-1].split(","))) if len(rows) > 1 else {}

    def throttled(self):
        return int(self.tree.read(CDEV % 1)) > 0

    def test_controls_then_restores_on_sigterm(self):
        self.start()
        self.assertTrue(wait_for(self.throttled), self.daemon.logtext())
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "user_space")
        self.assertTrue(wait_for(lambda: self.daemon.notified("STATUS=cpu 80.0 °C budget")))
        with open(self.daemon.state) as f:
            state = f.read()
        self.assertIn("/sys/class/thermal/thermal_zone0/policy\tstep_wise", state)
        self.assertIn("/sys/class/thermal/cooling_device1/cur_state\t0", state)
        log = self.daemon.logtext()
        self.assertIn("zone cpu: 80.00 °C, switch-on 70.00 °C crossed; controlling ZONE=cpu "
                      "TEMPERATURE_MC=80000", log)
        self.assertRegex(log, r"(listening to thermal netlink events|polling only)")
        # Periods enough that the zone is held back by its temperature (at
        # 80 °C its actors end at their lowest states): the first two may not be.
        self.assertTrue(wait_for(lambda: self.trace_rows() > 6 and self.last_row().get("zone_limit")
                                 in ("temperature", "lowest-state")), self.last_row())
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
        # The last columns: that aim, held back by the temperature (at 80 °C its
        # actors end at their lowest states), no cap.
        last = dict(zip(rows[0].split(","), rows[-1].split(",")))
        self.assertEqual((last["aim_mc"], last["cap_mw"], last["power_limit_mw"]),
                         ("74950", "0", "0"), last)
        self.assertIn(last["zone_limit"], ("temperature", "lowest-state"), last)

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
        # Both clusters, the fan and the zone's policy, said on stdout whatever the log
        # target (the journal where systemd runs it); nothing logged.
        self.assertEqual(out.stdout, "restored 4 files from %s: 1 zone policy, 3 cooling "
                         "states\n" % self.daemon.state)
        self.assertEqual(out.stderr, "")
        self.assertEqual(self.tree.read(CDEV % 1), "0")
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "step_wise")
        self.assertFalse(os.path.exists(self.daemon.state))
        out = run(self.tree, "--restore", "--state-file", self.daemon.state,
                  "--log-target", "journal")
        self.assertEqual(out.returncode, 0)
        self.assertEqual(out.stdout, "nothing to restore: no state file %s (powerallocd "
                         "stopped and restored everything itself, or has not run)\n"
                         % self.daemon.state)

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

    def test_reload_of_a_file_that_cannot_be_read_is_rejected(self):
        """The config replaced by a directory, then SIGHUP (issue 42, 1): the
        daemon exited in libconfig's scanner with every limit in place."""
        self.start()
        self.assertTrue(wait_for(self.throttled))
        os.unlink(self.daemon.config)
        os.mkdir(self.daemon.config)
        self.daemon.signal(signal.SIGHUP)
        self.assertTrue(wait_for(lambda: "reload rejected" in self.daemon.logtext()),
                        self.daemon.logtext())
        self.assertIn("reload rejected: %s: cannot read: not a regular file; the running "
                      "config stays" % self.daemon.config, self.daemon.logtext())
        self.assertIsNone(self.daemon.proc.poll())
        self.assertTrue(wait_for(self.throttled))
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "user_space")
        os.rmdir(self.daemon.config)
        with open(self.daemon.config, "w") as f:
            f.write(HOT_CONFIG)
        self.daemon.signal(signal.SIGHUP)
        self.assertTrue(wait_for(lambda: "reloaded" in self.daemon.logtext()),
                        self.daemon.logtext())
        self.daemon.signal(signal.SIGTERM)
        self.assertEqual(self.daemon.wait(), 0)
        self.assertEqual(self.tree.read(CDEV % 1), "0")
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "step_wise")

    def test_sustainable_power_out_of_range_refused_at_start_and_on_reload(self):
        """155 W where the clusters draw at most 2976 mW: the zone is not
        taken at start (the kernel's governor keeps it), and a reload to it
        is rejected with the range while the running config stays."""
        bad = HOT_CONFIG.replace("sustainable_power = 1500;", "sustainable_power = 155000;")
        refused = ("zone cpu: sustainable_power 155000 mW is more than ten times the most its "
                   "actors draw together (2976 mW: cpufreq-cpu0 716 mW, cpufreq-cpu4 2260 mW)")
        self.start(bad)
        self.assertTrue(wait_for(lambda: self.daemon.notified("STATUS=no controllable zone")),
                        self.daemon.logtext())
        self.assertIn(refused, self.daemon.logtext())
        self.assertIn("0 of 1 configured zone is controlled", self.daemon.logtext())
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "step_wise")
        self.assertEqual(self.tree.read(CDEV % 1), "0")
        with open(self.daemon.config, "w") as f:
            f.write(HOT_CONFIG)
        self.daemon.signal(signal.SIGHUP)
        self.assertTrue(wait_for(lambda: "reloaded" in self.daemon.logtext()),
                        self.daemon.logtext())
        self.assertTrue(wait_for(self.throttled))
        with open(self.daemon.config, "w") as f:
            f.write(bad)
        self.daemon.signal(signal.SIGHUP)
        self.assertTrue(wait_for(lambda: "reload rejected" in self.daemon.logtext()),
                        self.daemon.logtext())
        self.assertIn("give 350 to 2976 mW", self.daemon.logtext())
        self.assertIsNone(self.daemon.proc.poll())
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "user_space")
        self.daemon.signal(signal.SIGTERM)
        self.assertEqual(self.daemon.wait(), 0)
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "step_wise")

    def test_cools_down_and_releases(self):
        self.start()
        self.assertTrue(wait_for(self.throttled))
        self.tree.write(ZONE0 + "temp", "50000\n")
        self.assertTrue(wait_for(lambda: not self.throttled()))
        # Said once the zone has stayed under switch-on for 10 s.
        self.assertTrue(wait_for(lambda: "below switch-on for 10 s; limits released"
                                 in self.daemon.logtext(), timeout=15))
        self.assertTrue(wait_for(lambda: self.daemon.notified("STATUS=cpu idle")))


GPU_CONFIG = HOT_CONFIG.replace(
    '{ type = "cpufreq"; cpus = "4-5"; }',
    '{ type = "cpufreq"; cpus = "4-5"; }, { type = "devfreq"; device = "ff9a0000.gpu"; }')
# The GPU may be missing: the zone runs without it meanwhile.
OPTIONAL_GPU_CONFIG = GPU_CONFIG.replace('device = "ff9a0000.gpu";',
                                         'device = "ff9a0000.gpu"; optional = true;')
GPU_MISSING = ("zone cpu: actors[2] (line 4, devfreq): no cooling device devfreq-ff9a0000.gpu; "
               "devfreq devices: ff9a0000.gpu (no cooling device)")


class HotTree(unittest.TestCase):
    """A tree whose zone is at 80 °C, over its switch-on; self.daemon, when
    a test starts one, is closed after it."""

    def setUp(self):
        self.tree = Tree()
        self.tree.write(ZONE0 + "temp", "80000\n")
        self.daemon = None

    def tearDown(self):
        if self.daemon:
            self.daemon.close()
        self.tree.close()

    def throttled(self):
        return int(self.tree.read(CDEV % 1)) > 0


class FaultsOfItsOwn(HotTree):
    """Every way out restores (issue 42, 1): a failed policy write leaves
    the zone to the kernel, and a fault of the process's own puts every
    limit back before it ends."""

    def test_a_policy_that_cannot_be_set_is_not_taken_then_retried(self):
        """The zone was driven under the kernel's step_wise governor for good."""
        self.daemon = Daemon(self.tree, HOT_CONFIG, faults={"eio-write": "thermal_zone0/policy"})
        self.assertTrue(wait_for(lambda: "zone skipped: its policy stays step_wise" in
                                 self.daemon.logtext()), self.daemon.logtext())
        self.assertIn("err: zone cpu: cannot set thermal_zone0/policy to user_space: "
                      "Input/output error; zone skipped: its policy stays step_wise\n",
                      self.daemon.logtext())
        time.sleep(0.5)
        self.assertFalse(self.throttled(), self.daemon.logtext())
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "step_wise")
        self.daemon.fault("eio-write", None)
        # Looked for again every 5 s, as a configured zone that is missing.
        self.assertTrue(wait_for(lambda: self.throttled() and
                                 self.tree.read(ZONE0 + "policy") == "user_space", timeout=15),
                        self.daemon.logtext())
        stop(self, self.daemon)
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "step_wise")

    def test_a_fault_puts_every_limit_back(self):
        """SIGABRT raised by the process (the shim's abort-pread: libconfig 1.5's
        parser on a failed allocation is a SIGSEGV so) left every limit and the
        state file."""
        original = {p: self.tree.read(p) for p in (CDEV % 0, CDEV % 1, ZONE0 + "policy")}
        self.daemon = Daemon(self.tree, HOT_CONFIG, faults={})
        self.assertTrue(wait_for(self.throttled), self.daemon.logtext())
        self.daemon.fault("abort-pread", "thermal_zone0/temp")
        self.assertEqual(self.daemon.wait(), -signal.SIGABRT, self.daemon.logtext())
        self.assertEqual({p: self.tree.read(p) for p in original}, original,
                         self.daemon.logtext())
        self.assertFalse(os.path.exists(self.daemon.state))
        self.assertIn("powerallocd: fatal signal 6 (SIGABRT); every limit goes back: "
                      "powerallocd --restore\n", self.daemon.logtext())


class LogTarget(HotTree):
    """The default --log-target (auto) as systemd's daemons decide: the
    journal where systemd connected stderr to it ($JOURNAL_STREAM names
    stderr's device:inode) and journald runs (its socket exists; the tests
    name a socket of their own), stderr otherwise."""

    def setUp(self):
        super().setUp()
        self.work = tempfile.mkdtemp(prefix="powerallocd-journal.")
        self.addCleanup(shutil.rmtree, self.work)
        self.socket = os.path.join(self.work, "journal-socket")

    def start(self, socket_path, journal_stream=None):
        """The daemon with the default log target; @journal_stream: a
        function of its log file's stat giving $JOURNAL_STREAM (unset when
        None).  Returns what it said on stderr once ready."""
        log = os.path.join(self.work, "stderr")
        with open(log, "w") as f:
            st = os.fstat(f.fileno())
            self.daemon = Daemon(self.tree, HOT_CONFIG, log_target=None, stderr=f, env_changes={
                "POWERALLOCD_JOURNAL_SOCKET": socket_path,
                "JOURNAL_STREAM": journal_stream and journal_stream(st)})
        self.assertTrue(wait_for(lambda: self.daemon.notified("READY=1")))
        stop(self, self.daemon)
        with open(log) as f:
            return f.read()

    def journald(self):
        """A socket where the tests' journald would listen."""
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        s.bind(self.socket)
        self.addCleanup(s.close)

    def assert_on_stderr(self, text):
        self.assertIn("info: zone cpu: 80.00 °C, switch-on 70.00 °C crossed; controlling "
                      "ZONE=cpu TEMPERATURE_MC=80000", text)
        self.assertIn("info: limits released, kernel policies restored", text)
        self.assertNotIn("journald", text)

    def test_default_without_journald_is_stderr(self):
        """A shell, a container, an initramfs: no journald socket."""
        self.assert_on_stderr(self.start(self.socket))

    def test_default_from_a_terminal_where_journald_runs_is_stderr(self):
        self.journald()
        self.assert_on_stderr(self.start(self.socket))
        # $JOURNAL_STREAM inherited, but stderr is not that stream.
        self.assert_on_stderr(self.start(self.socket, lambda st: "%d:%d" % (st.st_dev,
                                                                            st.st_ino + 1)))

    def test_default_under_systemd_is_the_journal(self):
        """stderr is the journal stream systemd connected: the lines go to
        journald, none to stderr; without journald they come to stderr."""
        stream = lambda st: "%d:%d" % (st.st_dev, st.st_ino)  # noqa: E731
        self.assert_on_stderr(self.start(self.socket, stream))
        self.journald()
        self.assertEqual(self.start(self.socket, stream), "")

    def test_journal_without_journald_is_stderr(self):
        log = os.path.join(self.work, "stderr")
        with open(log, "w") as f:
            self.daemon = Daemon(self.tree, HOT_CONFIG, log_target="journal", stderr=f,
                                 env_changes={"POWERALLOCD_JOURNAL_SOCKET": self.socket})
        self.assertTrue(wait_for(lambda: self.daemon.notified("READY=1")))
        stop(self, self.daemon)
        with open(log) as f:
            text = f.read()
        self.assertTrue(text.startswith("notice: no journald (no /run/systemd/journal/socket): "
                                        "logging to stderr\n"), text)
        self.assert_on_stderr(text.split("\n", 1)[1])


class Signals(HotTree):
    """What a shell can send leaves no limit behind: a pipe's reader gone
    (SIGPIPE) and the signals nobody uses are ignored; Ctrl-\\ (SIGQUIT),
    Ctrl-C, SIGTERM and a CPU time limit restore and exit 0."""

    def assert_restored(self):
        self.assertEqual(self.tree.read(CDEV % 1), "0")
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "step_wise")
        self.assertFalse(os.path.exists(self.daemon.state))

    def test_pipe_reader_gone(self):
        """powerallocd 2>&1 | tee log, and tee gone: the next lines (a
        reload's) fail with EPIPE, the daemon carries on and still restores."""
        reader, writer = os.pipe()
        try:
            self.daemon = Daemon(self.tree, HOT_CONFIG, stderr=writer)
        finally:
            os.close(writer)
        os.set_blocking(reader, False)
        with os.fdopen(reader, "rb") as pipe:
            read = []

            def said_controlling():
                with contextlib.suppress(BlockingIOError):
                    read.append(os.read(pipe.fileno(), 65536))
                return b"controlling" in b"".join(read)
            self.assertTrue(wait_for(said_controlling), b"".join(read))
            self.assertTrue(wait_for(self.throttled))
        for n in (2, 3):
            self.daemon.signal(signal.SIGHUP)   # "reloaded ...", to the closed pipe
            self.assertTrue(wait_for(lambda: len(self.daemon.notified("READY=1")) == n),
                            self.daemon.proc.poll())
        for sig in (signal.SIGPIPE, signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM,
                    signal.SIGRTMIN, signal.SIGRTMAX):
            self.daemon.signal(sig)
        self.daemon.signal(signal.SIGHUP)
        self.assertTrue(wait_for(lambda: len(self.daemon.notified("READY=1")) == 4),
                        self.daemon.proc.poll())
        self.assertIsNone(self.daemon.proc.poll())
        self.assertTrue(wait_for(self.throttled))    # still controlling
        stop(self, self.daemon)
        self.assert_restored()

    def test_stop_signals_restore(self):
        for sig, name in ((signal.SIGQUIT, "Quit"), (signal.SIGINT, "Interrupt"),
                          (signal.SIGXCPU, "CPU time limit exceeded")):
            self.daemon = Daemon(self.tree, HOT_CONFIG)
            self.assertTrue(wait_for(self.throttled), self.daemon.logtext())
            self.daemon.signal(sig)
            self.assertEqual(self.daemon.wait(), 0, self.daemon.logtext())
            self.assertIn("info: %s: stopping" % name, self.daemon.logtext())
            self.assert_restored()
            self.daemon.close()


class StateDirectory(HotTree):
    """From a shell, without systemd's RuntimeDirectory: the state file's
    directory is made (0700, whatever the umask), so that a kill -9 can be
    undone; a missing parent is not made, and said."""

    def setUp(self):
        super().setUp()
        self.work = tempfile.mkdtemp(prefix="powerallocd-statedir.")
        self.addCleanup(shutil.rmtree, self.work)

    def test_made_then_kill_and_restore(self):
        run_dir = os.path.join(self.work, "powerallocd")
        state = os.path.join(run_dir, "state")
        # umask 0777: no bit of the mode but those the daemon sets itself
        self.daemon = Daemon(self.tree, HOT_CONFIG, state=state, umask=0o777)
        self.assertTrue(wait_for(self.throttled), self.daemon.logtext())
        self.assertEqual(os.stat(run_dir).st_mode & 0o7777, 0o700)
        self.assertIn("info: %s: made (mode 0700) for the state file" % run_dir,
                      self.daemon.logtext())
        self.assertNotIn("cannot write the state file", self.daemon.logtext())
        with open(state) as f:
            self.assertIn("/sys/class/thermal/thermal_zone0/policy\tstep_wise", f.read())
        self.daemon.signal(signal.SIGKILL)
        self.daemon.wait()
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "user_space")    # left taken
        out = run(self.tree, "--restore", "--state-file", state)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("restored 4 files from %s: " % state, out.stdout)
        self.assertEqual(self.tree.read(CDEV % 1), "0")
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "step_wise")
        self.assertEqual(os.listdir(run_dir), [])

    def test_missing_parent_not_made(self):
        state = os.path.join(self.work, "missing", "powerallocd", "state")
        self.daemon = Daemon(self.tree, HOT_CONFIG, state=state)
        self.assertTrue(wait_for(self.throttled), self.daemon.logtext())
        self.assertIn("err: %s: cannot make the state file's directory: its parent does not "
                      "exist (make it, or name another --state-file)" % os.path.dirname(state),
                      self.daemon.logtext())
        self.assertIn("cannot write the state file", self.daemon.logtext())
        self.assertEqual(os.listdir(self.work), [])
        stop(self, self.daemon)
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "step_wise")


class Devices(HotTree):
    """Cooling devices that are missing at start or appear later."""

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
        """A configured device missing at start: the zone stays with the
        kernel's governor, said once however many times the daemon looks
        again; when the device appears the zone is taken."""
        self.hide_gpu_cdev()
        self.daemon = Daemon(self.tree, GPU_CONFIG, "--log-level", "debug")
        self.assertTrue(wait_for(lambda: self.daemon.notified("READY=1")))
        self.assertIn("err: " + GPU_MISSING + "; zone skipped: the kernel's governor keeps it",
                      self.daemon.logtext())
        self.assertIn("looking for them every 5 s", self.daemon.logtext())
        # Two retries later: still the kernel's, and said once.
        self.assertTrue(wait_for(lambda: self.daemon.logtext().count("rescanning") >= 2,
                                 timeout=12), self.daemon.logtext())
        log = self.daemon.logtext()
        self.assertEqual(log.count(GPU_MISSING), 1, log)
        self.assertEqual(log.count("looking for them every 5 s"), 1, log)
        # A retry is said at debug level only (a device that came or went, at info).
        self.assertNotIn("info: rescanning", log)
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "step_wise")
        self.assertEqual([self.tree.read(CDEV % k) for k in range(2)], ["0", "0"])
        self.show_gpu_cdev()
        self.assertTrue(wait_for(lambda: "cooling_device2" in self.state_file(), timeout=12),
                        self.daemon.logtext())
        self.assertTrue(wait_for(lambda: int(self.tree.read(CDEV % 2)) > 0),
                        self.daemon.logtext())
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "user_space")
        self.daemon.signal(signal.SIGTERM)
        self.assertEqual(self.daemon.wait(), 0)
        self.assertEqual(self.tree.read(CDEV % 2), "0")
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "step_wise")

    def test_optional_device_appears_later(self):
        """optional = true: the zone runs without the device, said once, and
        takes it when it appears."""
        self.hide_gpu_cdev()
        self.daemon = Daemon(self.tree, OPTIONAL_GPU_CONFIG)
        self.assertTrue(wait_for(lambda: self.daemon.notified("READY=1")))
        self.assertIn("warning: " + GPU_MISSING + "; optional: the zone runs without it",
                      self.daemon.logtext())
        self.assertTrue(wait_for(lambda: int(self.tree.read(CDEV % 1)) > 0))
        self.assertNotIn("cooling_device2", self.state_file())
        self.show_gpu_cdev()
        # The daemon looks again every 5 s while a configured device is missing.
        self.assertTrue(wait_for(lambda: "cooling_device2" in self.state_file(), timeout=12),
                        self.daemon.logtext())
        self.assertEqual(self.daemon.logtext().count(GPU_MISSING), 1)
        self.daemon.signal(signal.SIGTERM)
        self.assertEqual(self.daemon.wait(), 0)
        self.assertEqual(self.tree.read(CDEV % 2), "0")

    def test_reload_naming_a_missing_device_is_rejected(self):
        """The reason, with the devices there are, is in the answer."""
        self.daemon = Daemon(self.tree, HOT_CONFIG)
        self.assertTrue(wait_for(lambda: self.daemon.notified("READY=1")))
        self.hide_gpu_cdev()
        with open(self.daemon.config, "w") as f:
            f.write(GPU_CONFIG)
        self.daemon.signal(signal.SIGHUP)
        self.assertTrue(wait_for(lambda: "reload rejected" in self.daemon.logtext()),
                        self.daemon.logtext())
        self.assertIn("reload rejected: %s could not be applied: %s" % (self.daemon.config,
                                                                        GPU_MISSING),
                      self.daemon.logtext())
        self.assertIsNone(self.daemon.proc.poll())
        # Optional, the same device does not reject the reload.
        with open(self.daemon.config, "w") as f:
            f.write(OPTIONAL_GPU_CONFIG)
        self.daemon.signal(signal.SIGHUP)
        self.assertTrue(wait_for(lambda: "reloaded" in self.daemon.logtext()),
                        self.daemon.logtext())
        self.assertEqual(self.daemon.logtext().count("optional: the zone runs without it"), 1)
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


class JournalNotes(unittest.TestCase):
    """What the journal says about a zone, once per episode."""

    def test_a_bursty_zone_logs_one_pair(self):
        with running(HOT_CONFIG, 80000) as (tree, daemon):
            self.assertTrue(wait_for(lambda: daemon.notified("READY=1")))
            # Five bursts across switch-on (70 °C) in 4 s: one episode.
            for k in range(8):
                tree.write(ZONE0 + "temp", "%d\n" % (60000 if k % 2 == 0 else 80000))
                time.sleep(0.5)
            tree.write(ZONE0 + "temp", "60000\n")
            log = daemon.logtext()
            self.assertEqual(log.count("crossed; controlling"), 1, log)
            self.assertNotIn("limits released", log)
            # Released once it stayed under switch-on for 10 s.
            self.assertTrue(wait_for(lambda: "limits released" in daemon.logtext(), timeout=13))
            log = daemon.logtext()
            self.assertIn("zone cpu: 60.00 °C, below switch-on for 10 s; limits released", log)
            self.assertEqual(log.count("limits released"), 1, log)
            self.assertEqual(log.count("crossed; controlling"), 1, log)
            stop(self, daemon)

    def test_over_control_and_lowest_state_said_once(self):
        with running(HOT_CONFIG, 90000) as (tree, daemon):
            self.assertTrue(wait_for(lambda: daemon.notified("READY=1")))
            # 15 °C over control: the budget is 0 and both clusters sit at
            # their deepest state; said after 10 s of it, once.
            self.assertTrue(wait_for(lambda: daemon.logtext().count("at its lowest state") == 2,
                                     timeout=14), daemon.logtext())
            time.sleep(1)
            log = daemon.logtext()
            self.assertEqual(log.count("15.00 °C over control (75.00 °C)"), 1, log)
            self.assertIn("warning: zone cpu: 90.00 °C, 15.00 °C over control", log)
            self.assertIn("zone cpu: cpufreq-cpu4 has been at its lowest state (7) for 10 s", log)
            self.assertEqual(log.count("cpufreq-cpu0 has been at its lowest state"), 1, log)
            # Back under control and over again: a new episode, said again.
            tree.write(ZONE0 + "temp", "74000\n")
            time.sleep(0.5)
            tree.write(ZONE0 + "temp", "77000\n")
            self.assertTrue(wait_for(lambda: "2.00 °C over control" in daemon.logtext()))
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
            # Read again at the next 1 s poll, which dismisses 90 °C, 50 °C over
            # the last reading, as a spike; the zone, its sensor failed, is read
            # again a period (50 ms) later and that reading is taken.  Without
            # the poll it would never be read: 5 s (x10 under valgrind) leaves a
            # loaded machine its margin.
            self.assertTrue(wait_for(lambda: int(tree.read(CDEV % 1)) > 0, timeout=5),
                            daemon.logtext())
            log = daemon.logtext()
            self.assertIn("a spike: 90000 m°C, +50000 m°C from the previous reading", log)
            self.assertIn("polling only", log)
            self.assertEqual(log.count("idle_poll_ms = 0 waits for thermal netlink events, "
                                       "which are unavailable: polling idle zones every 1000 ms"),
                             1, log)
            stop(self, daemon)


class UntrippedSwitchOn(unittest.TestCase):
    """idle_poll_ms = 0 with thermal netlink (here the shim's quiet-netlink: the
    event group joined, no event ever comes): the kernel sends trip events
    only at its trips, so a zone whose switch-on is not one of them is polled
    every second while idle all the same, said once at start (issue 31, 6);
    one whose switch-on is a trip waits for the kernel's event."""

    CONFIG = """
idle_poll_ms = 0;
zones = ( { name = "cpu"; sensor = "cpu-thermal"; sustainable_power = 1500; period_ms = 50;
  switch_on_temp = %d; control_temp = 75000;
  actors = ( { type = "cpufreq"; cpus = "0-3"; }, { type = "cpufreq"; cpus = "4-5"; } ); } );
"""
    NOTE = ("zone cpu: switch-on 60.00 °C is not a trip of thermal_zone0, so no kernel event "
            "says when it is crossed: read every 1000 ms while idle (idle_poll_ms = 0)")

    def test_switch_on_below_the_first_trip_is_noticed(self):
        # cpu-thermal's trips: 55 and 65 °C (fan), 70 and 75 °C (passive), 95 °C.
        with running(self.CONFIG % 60000, 40000, faults={"quiet-netlink": ""}) as (tree, daemon):
            self.assertTrue(wait_for(lambda: daemon.notified("STATUS=cpu idle")),
                            daemon.logtext())
            log = daemon.logtext()
            self.assertIn("listening to thermal netlink events", log)
            self.assertEqual(log.count(self.NOTE), 1, log)
            # Over switch-on, under every trip but the fan's first: read within
            # the 1 s poll (it may move by a quarter), with a margin for a loaded machine.
            tree.write(ZONE0 + "temp", "62000\n")
            self.assertTrue(wait_for(lambda: "switch-on 60.00 °C crossed; controlling"
                                     in daemon.logtext(), timeout=10), daemon.logtext())
            self.assertTrue(wait_for(lambda: daemon.notified("STATUS=cpu 62.0 °C budget")))
            stop(self, daemon)

    def test_switch_on_at_a_trip_waits_for_the_event(self):
        with running(self.CONFIG % 70000, 40000, faults={"quiet-netlink": ""}) as (tree, daemon):
            self.assertTrue(wait_for(lambda: daemon.notified("STATUS=cpu idle")),
                            daemon.logtext())
            with open(daemon.trace) as f:
                rows = len(f.read().splitlines())
            # No event comes, and none is needed on a kernel: it sends one at 70 °C.
            tree.write(ZONE0 + "temp", "72000\n")
            time.sleep(2)
            with open(daemon.trace) as f:
                self.assertEqual(len(f.read().splitlines()), rows)
            self.assertNotIn("crossed; controlling", daemon.logtext())
            self.assertNotIn("while idle", daemon.logtext())
            stop(self, daemon)


class NoZone(unittest.TestCase):
    def test_keeps_running_without_a_zone(self):
        """The QEMU guest's tree: its acpitz zones bind only Processor devices."""
        with running("idle_poll_ms = 100;\n", tree_name="qemu-x86") as (tree, daemon):
            self.assertTrue(wait_for(lambda: daemon.notified("READY=1")))
            self.assertTrue(wait_for(lambda: daemon.notified("STATUS=no controllable zone")))
            time.sleep(0.3)
            self.assertIsNone(daemon.proc.poll())
            stop(self, daemon)


RAPL0 = "sys/devices/virtual/powercap/intel-rapl/intel-rapl:0/constraint_0_power_limit_uw"


class X86Automatic(unittest.TestCase):
    def test_package_zone_limits_rapl_and_restores(self):
        """No zones configured on the x86 laptop: x86_pkg_temp is controlled
        through RAPL, 10 °C under coretemp's TjMax (100 °C).  At 95 °C the
        long-term limit falls from the firmware's 28 W; SIGTERM puts it back."""
        with running("idle_poll_ms = 100;\n", tree_name="x86-laptop") as (tree, daemon):
            self.assertTrue(wait_for(lambda: daemon.notified("READY=1")), daemon.logtext())
            self.assertIn("thermal_zone1 (x86_pkg_temp): package 0, TjMax 100.0 °C", daemon.logtext())
            self.assertEqual(tree.read(RAPL0), "28000000")
            tree.write("sys/devices/virtual/thermal/thermal_zone1/temp", "95000\n")
            self.assertTrue(wait_for(lambda: int(tree.read(RAPL0)) < 28000000, timeout=20),
                            daemon.logtext())
            self.assertEqual(tree.read("sys/devices/virtual/thermal/thermal_zone1/policy"),
                             "user_space")
            stop(self, daemon)
            self.assertEqual(tree.read(RAPL0), "28000000")
            self.assertEqual(tree.read("sys/devices/virtual/thermal/thermal_zone1/policy"),
                             "step_wise")


# The QEMU guest's second acpitz zone (one passive trip, 70 °C) capped through scaling_max_freq.
ACPI_CONFIG = """
idle_poll_ms = 100;
zones = ( { name = "cpu"; sensor = "%s";
  actors = ( { type = "cpufreq_cap"; cpus = "0-1";
    opps = ( { freq_khz = 800000; power_mw = 500; }, { freq_khz = 2400000; power_mw = 2000; } );
  } ); } );
"""


class AcpiZones(unittest.TestCase):
    """The tree of the QEMU guest (two acpitz zones with one passive trip
    each), whose sustainable_power files answer EIO as Debian's kernel's do."""

    def setUp(self):
        self.tree = Tree("qemu-x86", cpus=2)
        self.daemon = Daemon(self.tree, ACPI_CONFIG % "thermal_zone1",
                             faults={"eio-read": "/sustainable_power"})

    def tearDown(self):
        self.daemon.close()
        self.tree.close()

    def test_one_passive_trip_always_on_and_no_warning(self):
        """45 °C, 25 under its only passive trip: controlled all the same (its
        budget is in the status), and no word about sustainable_power at
        start or reload."""
        d = self.daemon
        self.assertTrue(wait_for(lambda: d.notified("STATUS=cpu 45.0 °C budget")), d.logtext())
        self.assertIn("zone cpu: 45.00 °C, one passive trip: no switch-on, controlling at every "
                      "temperature", d.logtext())
        self.assertEqual(self.tree.read("sys/devices/virtual/thermal/thermal_zone1/policy"),
                         "user_space")
        d.signal(signal.SIGHUP)
        self.assertTrue(wait_for(lambda: "reloaded" in d.logtext()), d.logtext())
        self.assertNotIn("sustainable_power", d.logtext())
        stop(self, d)
        self.assertEqual(self.tree.read("sys/devices/virtual/thermal/thermal_zone1/policy"),
                         "step_wise")

    def test_ambiguous_sensor_rejected_on_reload(self):
        d = self.daemon
        self.assertTrue(wait_for(lambda: d.notified("STATUS=cpu")), d.logtext())
        with open(d.config, "w") as f:
            f.write(ACPI_CONFIG % "acpitz")
        d.signal(signal.SIGHUP)
        self.assertTrue(wait_for(lambda: "reload rejected" in d.logtext()), d.logtext())
        self.assertIn('zone cpu: sensor "acpitz" is the type of 2 thermal zones: thermal_zone0 '
                      '(40.0 °C), thermal_zone1 (45.0 °C); name one by its directory name: '
                      'sensor = "thermal_zone0"; zone skipped; the running config stays',
                      d.logtext())
        self.assertIsNone(d.proc.poll())
        self.assertEqual(self.tree.read("sys/devices/virtual/thermal/thermal_zone1/policy"),
                         "user_space")
        stop(self, d)


class NoUserSpaceGovernor(unittest.TestCase):
    def test_zone_is_not_taken(self):
        """The kernel's governor keeps the zone: no policy or cooling state
        written, said once (no retry: the kernel will not change)."""
        with running(HOT_CONFIG, 80000, tree_name="rk3399-no-user-space") as (tree, daemon):
            self.assertTrue(wait_for(lambda: daemon.notified("READY=1")), daemon.logtext())
            self.assertTrue(wait_for(lambda: daemon.notified("STATUS=no controllable zone")))
            time.sleep(5.5)     # past the 5 s retry of a configured zone that is missing
            self.assertEqual(tree.read(ZONE0 + "policy"), "step_wise")
            self.assertEqual([tree.read(CDEV % k) for k in range(4)], ["0"] * 4)
            log = daemon.logtext()
            self.assertEqual(log.count("CONFIG_THERMAL_GOV_USER_SPACE=y; zone skipped"), 1, log)
            self.assertNotIn("rescanning", log)
            stop(self, daemon)


class PreviousRun(unittest.TestCase):
    """A run killed while it throttled (SIGKILL, a crash, an ExecStopPost that
    failed part-way before Restart=on-failure) leaves its state file; the next
    run, started without --restore, takes it over: the originals are written
    back before it reads what it will restore."""

    def setUp(self):
        self.tree = Tree()
        self.tree.write(ZONE0 + "temp", "80000\n")
        self.daemons = []

    def tearDown(self):
        for daemon in reversed(self.daemons):
            daemon.close()
        self.tree.close()

    def start(self, config=HOT_CONFIG, **kwargs):
        daemon = Daemon(self.tree, config, **kwargs)
        self.daemons.append(daemon)
        self.assertTrue(wait_for(lambda: daemon.notified("READY=1")), daemon.logtext())
        return daemon

    def throttled(self):
        return int(self.tree.read(CDEV % 1)) > 0

    def test_unreadable_state_file_is_not_overwritten(self):
        # A state file that cannot be read holds the only copy of the
        # kernel's values: the daemon does not start over it.
        state = os.path.join(self.tree.dir, "state")
        os.mkdir(state)
        daemon = Daemon(self.tree, HOT_CONFIG, state=state)
        self.daemons.append(daemon)
        self.assertTrue(wait_for(lambda: daemon.proc.poll() is not None), daemon.logtext())
        self.assertEqual(daemon.proc.returncode, 1, daemon.logtext())
        self.assertIn("cannot read the state file of a previous run", daemon.logtext())
        self.assertIn("not starting, so that it is not overwritten", daemon.logtext())
        self.assertTrue(os.path.isdir(daemon.state))
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "step_wise")

    def killed_while_throttling(self):
        first = self.start()
        self.assertTrue(wait_for(self.throttled), first.logtext())
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "user_space")
        first.signal(signal.SIGKILL)
        first.wait()
        self.assertTrue(os.path.exists(first.state))
        return first

    def originals(self, cdevs=range(4)):
        return [self.tree.read(CDEV % k) for k in cdevs] + [self.tree.read(ZONE0 + "policy")]

    def test_start_after_a_kill_keeps_the_originals(self):
        first = self.killed_while_throttling()
        second = self.start(state=first.state)
        self.assertTrue(wait_for(self.throttled), second.logtext())
        with open(first.state) as f:
            state = f.read()
        stop(self, second)
        self.assertEqual(self.originals(), ["0", "0", "0", "0", "step_wise"])
        self.assertFalse(os.path.exists(first.state))
        self.assertIn("/sys/class/thermal/thermal_zone0/policy\tstep_wise", state)
        self.assertIn("/sys/class/thermal/cooling_device1/cur_state\t0", state)
        self.assertIn("found the state file of a previous run (%s): 4 originals written back, "
                      "0 kept to restore at stop (could not be written), 0 dropped"
                      % first.state, second.logtext())

    def test_what_the_new_run_does_not_drive_is_released_at_start(self):
        first = self.killed_while_throttling()
        little = HOT_CONFIG.replace(', { type = "cpufreq"; cpus = "4-5"; }', "")
        second = self.start(little, state=first.state)
        # The big cluster is no actor of the new run: released at once, and not its to restore.
        self.assertEqual(self.tree.read(CDEV % 1), "0")
        with open(first.state) as f:
            self.assertNotIn("cooling_device1", f.read())
        self.assertEqual(self.tree.read(ZONE0 + "policy"), "user_space")
        stop(self, second)
        self.assertEqual(self.originals(), ["0", "0", "0", "0", "step_wise"])

    def test_unwritable_originals_kept_and_gone_ones_dropped(self):
        state = os.path.join(self.tree.dir, "state")
        # cooling_device2 (the GPU's, no actor of this config) cannot be written: a directory.
        os.rename(self.tree.path(CDEV % 2), self.tree.path("gpu-cur-state"))
        os.mkdir(self.tree.path(CDEV % 2))
        with open(state, "w") as f:
            f.write("/sys/class/thermal/cooling_device2/cur_state\t0\n"
                    "/sys/class/thermal/cooling_device9/cur_state\t1\n"
                    "/sys/class/thermal/thermal_zone1/policy\tpower_allocator\n")
        daemon = self.start(state=state)
        self.assertIn("(%s): 1 originals written back, 1 kept to restore at stop (could not be "
                      "written), 1 dropped (their files are gone)" % state, daemon.logtext())
        self.assertEqual(self.tree.read("sys/class/thermal/thermal_zone1/policy"),
                         "power_allocator")
        daemon.signal(signal.SIGTERM)
        # The GPU's state still cannot be written: the stop says so, and keeps it.
        self.assertEqual(daemon.wait(), 4)
        self.assertIn("1 of 5 files could not be restored; %s keeps it" % state,
                      daemon.logtext())
        with open(state) as f:
            # What powerallocd last left there is not known (an older file): blank.
            self.assertEqual(f.read().splitlines()[1:],
                             ["/sys/class/thermal/cooling_device2/cur_state\t0\t" + " " * 24])
        self.assertEqual(self.originals((0, 1, 3)), ["0", "0", "0", "step_wise"])


class OpenFiles(unittest.TestCase):
    """A machine with 101 zones needs about 320 descriptors (tree many-zones)."""

    def setUp(self):
        self.tree = Tree("many-zones")
        self.daemon = None

    def tearDown(self):
        if self.daemon:
            self.daemon.close()
        self.tree.close()

    def policies(self):
        return [self.tree.read("sys/class/thermal/thermal_zone%d/policy" % z) for z in range(101)]

    def run_and_stop(self, nofile):
        """Start under @nofile, stop; every file taken over is restored.
        Return: (state file entries, zones taken over)."""
        self.daemon = Daemon(self.tree, "idle_poll_ms = 1000;\n", nofile=nofile)
        self.assertTrue(wait_for(lambda: self.daemon.notified("READY=1"), timeout=20),
                        self.daemon.logtext())
        with open(self.daemon.state) as f:
            entries = [line.split("\t")[0] for line in f.read().splitlines()[1:]]
        taken = self.policies().count("user_space")
        fans = [int(re.search(r"cooling_device(\d+)/", p).group(1)) for p in entries
                if "cur_state" in p]
        for c in fans:
            self.tree.write(CDEV % c, "2")  # another program turned them on
        stop(self, self.daemon)
        self.assertEqual(self.policies(), ["step_wise"] * 101, self.daemon.logtext())
        # A deeper state than powerallocd's (0) is put back to the original: it
        # may be ours gone stale, and nothing powerallocd may have left stays.
        self.assertEqual([self.tree.read(CDEV % c) for c in fans], ["0"] * len(fans))
        self.assertNotIn("as another writer set it", self.daemon.logtext())
        self.assertIn("limits released, kernel policies restored", self.daemon.logtext())
        return len(entries), taken

    @unittest.skipIf("valgrind" in " ".join(WRAPPER),
                     "valgrind gives its client the soft limit as the hard one")
    def test_soft_limit_raised_to_the_hard_one(self):
        entries, taken = self.run_and_stop((64, 1024))
        # 101 policies, 100 fans and the CPUs' cooling device
        self.assertEqual((entries, taken), (202, 101), self.daemon.logtext())

    def test_at_the_hard_limit_zones_are_left_and_all_restored(self):
        entries, taken = self.run_and_stop((96, 96))
        self.assertIn("Too many open files", self.daemon.logtext())
        self.assertGreater(taken, 5)
        self.assertLess(taken, 101)
        self.assertGreater(entries, taken)


class RestoreFailure(unittest.TestCase):
    def test_a_file_that_cannot_be_restored_exits_4(self):
        with running(HOT_CONFIG, 80000) as (tree, daemon):
            self.assertTrue(wait_for(lambda: daemon.notified("READY=1")), daemon.logtext())
            self.assertTrue(wait_for(lambda: int(tree.read(CDEV % 1)) > 0))
            # The big cluster's cur_state can no longer be written: a directory now.
            os.rename(tree.path(CDEV % 1), tree.path("cpu4-cur-state"))
            os.mkdir(tree.path(CDEV % 1))
            daemon.signal(signal.SIGTERM)
            self.assertEqual(daemon.wait(), 4)
            log = daemon.logtext()
            self.assertIn("/sys/class/thermal/cooling_device1/cur_state: cannot restore", log)
            self.assertIn("1 of 4 files could not be restored; %s keeps it for powerallocd "
                          "--restore" % daemon.state, log)
            self.assertNotIn("kernel policies restored", log)
            self.assertEqual(tree.read(ZONE0 + "policy"), "step_wise")
            self.assertEqual(tree.read(CDEV % 0), "0")
            # What is left is in the state file, and --restore finishes the job.
            os.rmdir(tree.path(CDEV % 1))
            os.rename(tree.path("cpu4-cur-state"), tree.path(CDEV % 1))
            out = run(tree, "--restore", "--state-file", daemon.state, "--log-target", "stderr")
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertEqual(out.stdout, "restored 1 file from %s: 1 cooling state\n"
                             % daemon.state)
            self.assertEqual(tree.read(CDEV % 1), "0")


class StateFile(unittest.TestCase):
    """The state file and the trace are made anew, never written through a
    link; --restore writes only the kinds of file powerallocd writes."""

    def setUp(self):
        self.tree = Tree()
        self.victim = os.path.join(self.tree.dir, "victim")
        with open(self.victim, "w") as f:
            f.write("precious\n")

    def tearDown(self):
        self.tree.close()

    def restore(self, text):
        state = os.path.join(self.tree.dir, "state")
        with open(state, "w") as f:
            f.write(text)
        return state, run(self.tree, "--restore", "--state-file", state, "--log-target", "stderr")

    def test_links_are_replaced_not_followed(self):
        work = tempfile.mkdtemp(prefix="powerallocd-links.")
        state, trace = os.path.join(work, "state"), os.path.join(work, "trace.csv")
        # at the final names, and at the temporary name the state file once had
        for name in ("state", "state.new", "trace.csv"):
            os.symlink(self.victim, os.path.join(work, name))
        daemon = Daemon(self.tree, HOT_CONFIG, state=state, trace=trace)
        try:
            self.assertTrue(wait_for(lambda: daemon.notified("READY=1")), daemon.logtext())
            with open(self.victim) as f:
                self.assertEqual(f.read(), "precious\n")
            self.assertFalse(os.path.islink(state))
            self.assertFalse(os.path.islink(trace))
            self.assertEqual(os.stat(state).st_mode & 0o777, 0o600)
            with open(state) as f:
                self.assertIn("thermal_zone0/policy", f.read())
            with open(trace) as f:
                self.assertTrue(f.read().startswith("time_ms,zone"))
            stop(self, daemon)
            with open(self.victim) as f:
                self.assertEqual(f.read(), "precious\n")
            self.assertTrue(os.path.islink(os.path.join(work, "state.new")))
        finally:
            daemon.close()
            shutil.rmtree(work)

    def test_restore_refuses_files_powerallocd_does_not_write(self):
        fixture.Tree(self.tree.dir).write("sys/power/state", "freeze mem disk")
        state, out = self.restore("/sys/power/state\tmem\n"
                                  "/sys/class/thermal/cooling_device1/max_state\t0\n"
                                  "/sys/class/thermal/cooling_device1/cur_state\t2\n")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(self.tree.read("sys/power/state"), "freeze mem disk")
        self.assertEqual(self.tree.read(CDEV % 1), "2")
        self.assertEqual(out.stdout, "restored 1 file from %s: 1 cooling state\n" % state)
        self.assertIn("%s:1: /sys/power/state is not a file powerallocd writes; refused" % state,
                      out.stderr)
        self.assertIn(":2: /sys/class/thermal/cooling_device1/max_state is not a file", out.stderr)

    def test_a_long_line_is_one_entry(self):
        # Over 10000 characters: a reader with a line buffer would find an entry in its tail.
        line = "/" * (327 * 31) + "/sys/class/thermal/cooling_device1/cur_state\t3"
        state, out = self.restore(line + "\n")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(self.tree.read(CDEV % 1), "0")
        self.assertEqual(out.stderr.count("%s:" % state), 1, out.stderr)
        self.assertIn("%s:1: not \"sysfs path<TAB>value\"" % state, out.stderr)
        self.assertEqual(out.stdout, "restored 0 files from %s\n" % state)


class StateFileX86(unittest.TestCase):
    CONFIG = """
zones = ( { name = "package"; sensor = "x86_pkg_temp"; switch_on_temp = 80000;
  control_temp = 90000; sustainable_power = 15000;
  actors = ( { type = "powercap"; zone = "intel-rapl:0"; },
             { type = "cpufreq_cap"; cpus = "0-7";
               opps = ( { freq_khz = 800000; power_mw = 400; },
                        { freq_khz = 4700000; power_mw = 5200; } ); } ); } );
"""

    def test_restore_takes_every_kind_of_file_the_daemon_writes(self):
        """Each file the daemon saves is one --restore writes back."""
        rapl = "sys/devices/virtual/powercap/intel-rapl/intel-rapl:0/constraint_0_power_limit_uw"
        cap = "sys/devices/system/cpu/cpufreq/policy%d/scaling_max_freq"
        with running(self.CONFIG, tree_name="x86-laptop") as (tree, daemon):
            self.assertTrue(wait_for(lambda: daemon.notified("READY=1")), daemon.logtext())
            with open(daemon.state) as f:
                state = f.read()
            self.assertIn("/sys/class/powercap/intel-rapl:0/constraint_0_power_limit_uw\t"
                          "28000000", state)
            self.assertIn("/sys/devices/system/cpu/cpufreq/policy7/scaling_max_freq\t4700000",
                          state)
            daemon.signal(signal.SIGKILL)
            daemon.wait()
            tree.write(rapl, "9000000")
            for p in range(8):
                tree.write(cap % p, "800000")
            # As if the daemon had written them: its values in the state file's "ours" fields
            # (a file holding another value would be left to its writer).
            with open(daemon.state) as f:
                lines = f.read().splitlines(True)
            with open(daemon.state, "w") as f:
                for line in lines:
                    fields = line.split("\t")
                    ours = "9000000" if "powercap" in line else "800000"
                    if len(fields) == 3 and "policy\t" not in line:
                        line = "%s\t%s\t%-24s\n" % (fields[0], fields[1], ours)
                    f.write(line)
            out = run(tree, "--restore", "--state-file", daemon.state, "--log-target", "stderr")
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertEqual(out.stdout, "restored 10 files from %s: 1 zone policy, 8 CPU "
                             "frequency limits, 1 powercap limit\n" % daemon.state)
            self.assertEqual(tree.read(rapl), "28000000")
            self.assertEqual([tree.read(cap % p) for p in range(8)], ["4700000"] * 8)



if __name__ == "__main__":
    unittest.main(verbosity=2)

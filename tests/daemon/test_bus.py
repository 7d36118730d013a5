#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The D-Bus interface and powerallocctl, on a private bus with the system
bus's policy plus conf/org.powerallocd1.conf: what root and an unprivileged
user (nobody, through setpriv) may do, status --json against the tree,
introspection, objects following a reload, PropertiesChanged.

usage: test_bus.py (POWERALLOCD and POWERALLOCCTL name the binaries)
"""
import atexit
import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_daemon import (CDEV, HOT_CONFIG, WRAPPER, ZONE0, Daemon, Tree,  # noqa: E402
                         read_to_close, wait_for)

POWERALLOCCTL = os.environ.get("POWERALLOCCTL", "build/ctl/powerallocctl")
# The trace's columns before the aim, the limiting reasons and the caps were added at its end.
OLD_TRACE_HEADER = ("time_ms,zone,temp_mc,active,err_mc,err_integral_mc,p_mw,i_mw,d_mw,"
                    "budget_mw,actor,load_pct,freq_khz,req_mw,granted_mw,max_mw,state,"
                    "switch_on_mc,control_mc,learned_sp_mw,model_tau_s,model_gain_mk_per_w,"
                    "model_offset_mc,model_confidence,feed_forward_mw,model_tuned")
OWN_NAME = os.environ.get("OWN_NAME", "build/tests/helpers/own-name")
POLICY = os.path.join(HERE, "..", "..", "conf", "org.powerallocd1.conf")
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]

# A bus where anyone may call anything on org.powerallocd1: only the
# daemon's own uid check stands between nobody and Reload.
PERMISSIVE = """<policy context="default">
    <allow send_destination="org.powerallocd1"/>
  </policy>
  <include>@POLICY@</include>"""


class PrivateBus:
    """A private system bus; @permissive: anyone may call org.powerallocd1;
    @extra: more policy, before powerallocd's own."""

    def __init__(self, permissive=False, extra=""):
        self.dir = tempfile.mkdtemp(prefix="powerallocd-bus.")
        os.chmod(self.dir, 0o755)
        with open(os.path.join(HERE, "..", "fixtures", "dbus-system.conf.in")) as f:
            conf = f.read()
        if permissive:
            conf = conf.replace("<include>@POLICY@</include>", PERMISSIVE)
        conf = conf.replace("<include>@POLICY@</include>", extra + "<include>@POLICY@</include>")
        socket_path = os.path.join(self.dir, "socket")
        conf = conf.replace("@SOCKET@", socket_path).replace("@POLICY@", os.path.abspath(POLICY))
        with open(os.path.join(self.dir, "bus.conf"), "w") as f:
            f.write(conf)
        self.log = open(os.path.join(self.dir, "dbus-daemon.log"), "w")
        # --print-address says the address once the bus listens: the socket file
        # alone appears before that, and a client then finds the connection refused.
        self.proc = subprocess.Popen(["dbus-daemon", "--nofork", "--print-address",
                                      "--config-file", os.path.join(self.dir, "bus.conf")],
                                     stdout=subprocess.PIPE, stderr=self.log, text=True)
        # Killed at exit if a failing setUp leaves it (no tearDown then).
        atexit.register(self.proc.kill)
        self.address = "unix:path=" + socket_path
        assert self.proc.stdout.readline().startswith(self.address), self.address
        self.proc.stdout.close()
        os.environ["DBUS_SYSTEM_BUS_ADDRESS"] = self.address

    def close(self):
        del os.environ["DBUS_SYSTEM_BUS_ADDRESS"]
        self.proc.terminate()
        self.proc.wait()
        self.log.close()
        subprocess.run(["rm", "-rf", self.dir])


def properties_changed(action):
    """The PropertiesChanged signals dbus-monitor saw while @action ran."""
    monitor = subprocess.Popen(["dbus-monitor", "--system",
                                "type='signal',interface='org.freedesktop.DBus.Properties'"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        time.sleep(0.3)
        action()
        time.sleep(0.3)
    finally:
        monitor.terminate()
    return monitor.communicate()[0]


def ctl(*args, user=None):
    return subprocess.run((user or []) + [POWERALLOCCTL] + list(args), capture_output=True,
                          text=True, timeout=30)


class Bus(unittest.TestCase):
    permissive = False
    config = HOT_CONFIG
    temp_mc = 80000

    def setUp(self):
        self.bus = PrivateBus(self.permissive)
        self.tree = Tree()
        self.tree.write(ZONE0 + "temp", "%d\n" % self.temp_mc)
        self.daemon = Daemon(self.tree, self.config, bus="system")
        self.assertTrue(wait_for(lambda: self.daemon.notified("READY=1")))
        self.assertTrue(wait_for(lambda: "serving org.powerallocd1" in self.daemon.logtext()),
                        self.daemon.logtext())

    def tearDown(self):
        self.daemon.close()
        self.tree.close()
        self.bus.close()

    def status(self, user=None):
        out = ctl("status", "--json", user=user)
        self.assertEqual(out.returncode, 0, out.stderr)
        return json.loads(out.stdout)


class Access(Bus):
    def test_status_json_matches_the_tree(self):
        self.assertTrue(wait_for(lambda: int(self.tree.read(CDEV % 1)) > 0))
        time.sleep(0.2)
        s = self.status()
        self.assertEqual(s["state"], "controlling")
        zone = s["zones"][0]
        self.assertEqual(zone["name"], "cpu")
        self.assertEqual(zone["sensor"], "thermal_zone0")
        self.assertEqual(zone["temperature_mc"], int(self.tree.read(ZONE0 + "temp")))
        self.assertEqual(zone["control_mc"], 75000)
        self.assertEqual(zone["control_margin_mc"], 50)     # the default controller's default
        self.assertTrue(zone["active"])
        self.assertFalse(zone["always_on"])
        # The thermal model, seconds in: learning, nothing known yet (its
        # values are the prior's): no learnt value or forecast (issue 32,
        # 3); the configured sustainable power given, the first approach's
        # in use: the clusters' lowest power, 4 x 27 + 2 x 121 mW (issue 34, 1).
        self.assertEqual(zone["model_state"], "learning", zone)
        self.assertGreaterEqual(zone["model_confidence"], 0)
        self.assertLess(zone["model_confidence"], 0.05)
        self.assertIsNone(zone["learned_sustainable_power_mw"])
        self.assertIsNone(zone["thermal_time_constant_s"])
        self.assertIsNone(zone["headroom_10s"])
        self.assertEqual((zone["sustainable_power_mw"], zone["sustainable_power_source"]),
                         (1500, "config"))
        self.assertEqual((zone["sustainable_power_in_use_mw"],
                          zone["sustainable_power_in_use_source"]), (350, "lowest"))
        names = [a["name"] for a in zone["actors"]]
        self.assertEqual(names, ["cpufreq-cpu0", "cpufreq-cpu4"])
        # Within a period: the states the tree holds now.
        for k, actor in enumerate(zone["actors"]):
            self.assertEqual(actor["cooling_state"], int(self.tree.read(CDEV % k)))
        self.assertEqual(zone["actors"][1]["cpus"], "4-5")
        self.assertEqual(zone["actors"][1]["max_cooling_state"], 7)
        # The board's fan (cooling_device3, on the 55 and 65 °C active trips)
        # is on the zone's step_wise fallback, at the state the tree holds.
        fans = zone["fallback_devices"]
        self.assertEqual([f["name"] for f in fans], ["pwm-fan"])
        self.assertEqual(fans[0]["kind"], "cooling_device")
        self.assertEqual(fans[0]["max_cooling_state"], 3)
        self.assertEqual(fans[0]["cooling_state"], int(self.tree.read(CDEV % 3)))

    def test_status_says_what_is_in_use(self):
        """The sustainable power the controller runs on and where it came
        from: the first approach's, the actors' lowest power, with the
        configured one beside it, while the model learns ("learning", no
        learnt value or forecast; issue 34, 1), the learnt one once the
        default controller takes it, in the table and the JSON alike (issue
        32, 3)."""
        out = ctl("status").stdout
        self.assertRegex(out, r"\n  (active|idle), budget \d+ mW, first approach from the "
                         r"lowest power, 350 mW,\n  until the model is learnt \(configured "
                         r"1500 mW\); power in mW\n")
        self.assertRegex(out, r"\n  thermal model: learning \(confidence 0\.0\d\)\n")
        self.assertRegex(out, r"\n  headroom -?\d+\.\d\d now \(0 switch-on, 1 control\); "
                         r"in 10 s: learning\n")
        # The tree holds 80 °C whatever the power: the model fits that within
        # seconds (about 5 here), sure enough for the controller to take it.
        self.assertTrue(wait_for(lambda: self.status()["zones"][0]["model_state"] == "in-use",
                                 timeout=60), self.status())
        zone = self.status()["zones"][0]
        self.assertEqual(zone["sustainable_power_in_use_source"], "learnt")
        self.assertGreaterEqual(zone["model_confidence"], 0.05)
        self.assertAlmostEqual(zone["sustainable_power_in_use_mw"],
                               zone["learned_sustainable_power_mw"],
                               delta=zone["learned_sustainable_power_mw"] * 0.02)
        self.assertGreater(zone["thermal_time_constant_s"], 0)
        self.assertIsNotNone(zone["headroom_10s"])
        # The given one stays what it was, with its source.
        self.assertEqual((zone["sustainable_power_mw"], zone["sustainable_power_source"]),
                         (1500, "config"))
        out = ctl("status").stdout
        in_use = re.search(r"\n  active, budget \d+ mW of (\d+) mW sustainable \(learnt\); "
                           r"power in mW\n", out)
        learnt = re.search(r"\n  thermal model: (\d+) mW sustainable, time constant \d+ s, "
                           r"confidence [01]\.\d\d\n", out)
        self.assertTrue(in_use and learnt, out)
        self.assertAlmostEqual(int(in_use.group(1)), int(learnt.group(1)),
                               delta=int(learnt.group(1)) * 0.02)
        self.assertRegex(out, r"\n  headroom -?\d+\.\d\d now, -?\d+\.\d\d in 10 s "
                         r"\(0 switch-on, 1 control\)\n")
        self.assertNotIn("learning", out)

    def busy_table(self):
        """powerallocctl status once the big cluster shows its load: a period
        in which the load generator's /proc/stat did not move (a loaded
        machine) shows 0 %."""
        result = []

        def shown():
            result[:] = [ctl("status")]
            rows = [line.split() for line in result[0].stdout.splitlines()
                    if line.startswith("  cpufreq-cpu4 ")]
            return bool(rows) and rows[0][3].endswith("%") and int(rows[0][3][:-1]) > 50
        wait_for(shown, timeout=20)
        return result[0]

    def test_table(self):
        self.assertTrue(wait_for(lambda: int(self.tree.read(CDEV % 1)) > 0))
        out = self.busy_table()
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("ZONE cpu (thermal_zone0) 80.00 °C\n"
                      "  switch-on 70.0 °C, control 75.0 °C (aims 74.95)\n", out.stdout)
        self.assertRegex(out.stdout, r"thermal model: (learning \(confidence 0\.0\d\)|\d+ mW "
                         r"sustainable, time constant \d+ s, confidence [01]\.\d\d)\n")
        # 80 °C between switch-on and control (the tree's trips): above 1.
        self.assertRegex(out.stdout, r"headroom \d\.\d\d now(, -?\d+\.\d\d in 10 s | )"
                         r"\(0 switch-on, 1 control\)")
        zone = self.status()["zones"][0]
        self.assertAlmostEqual(zone["headroom"], (zone["temperature_mc"] - zone["switch_on_mc"]) /
                               (zone["control_mc"] - zone["switch_on_mc"]), places=3)
        self.assertGreater(zone["headroom"], 1)
        # 80 columns, for a terminal and for mail.
        for line in out.stdout.splitlines():
            self.assertLessEqual(len(line), 80, line)
        rows = {line.split()[0]: line.split() for line in out.stdout.splitlines()
                if line.startswith("  ") and len(line.split()) == 9}
        # The tree's load generator keeps every CPU busy: about 100 % each,
        # shown per CPU (the big cluster has two), not summed.
        big = rows["cpufreq-cpu4"]
        self.assertEqual(big[1:3], ["cpufreq", "4-5"])
        self.assertTrue(big[3].endswith("%") and int(big[3][:-1]) <= 100, big)
        self.assertGreater(int(big[3][:-1]), 50, big)
        # The JSON's load is the table's: per CPU, not summed (issue 32, 4: 200
        # for the two busy CPUs before, against 100 % in the table).
        def big_load():
            return next(a for a in self.status()["zones"][0]["actors"]
                        if a["name"] == "cpufreq-cpu4")["mean_load_pct"]
        self.assertTrue(wait_for(lambda: 50 < big_load() <= 100, timeout=20), big_load())
        # A fan: its state, no frequency or power.
        fan = rows["pwm-fan"]
        self.assertEqual(fan[1:8], ["cdev", "-", "-", "-", "-", "-", "-"])
        self.assertRegex(fan[8], r"^\d+/3$")

    def test_monitor_shows_its_error_after_the_screen(self):
        """On a terminal, the alternate screen is left before the error is
        printed; into a pipe there is no screen (its codes went into the
        pipe, issue 42, 6)."""
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(POWERALLOCCTL, [POWERALLOCCTL, "monitor"])
        data = read_to_close(fd, until=b"Ctrl-C to stop")
        self.assertIn(b"Ctrl-C to stop", data)
        self.daemon.signal(signal.SIGTERM)
        self.assertEqual(self.daemon.wait(), 0)
        data += read_to_close(fd)
        status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        os.close(fd)
        text = data.decode()
        self.assertEqual(status, 3, text)
        self.assertTrue(text.startswith("\033[?1049h"), text[:20])
        left = text.index("\033[?1049l")
        self.assertIn("powerallocd is not running", text[left:])

    def test_monitor_into_a_pipe_writes_no_terminal_codes(self):
        self.daemon.close()
        mon = subprocess.Popen([POWERALLOCCTL, "monitor"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        out, err = mon.communicate(timeout=10)
        self.assertEqual(mon.returncode, 3, err)
        self.assertIn("powerallocd is not running", err)
        self.assertNotIn("\033", out)

    def test_monitor_refreshes_until_interrupted(self):
        mon = subprocess.Popen([POWERALLOCCTL, "monitor"], stdout=subprocess.PIPE, text=True)
        time.sleep(2.5)
        mon.send_signal(signal.SIGINT)
        out = mon.communicate(timeout=10)[0]
        self.assertEqual(mon.returncode, 0)
        self.assertGreaterEqual(out.count("ZONE cpu"), 2)
        # Into a pipe: each refresh after the last, a blank line between, no terminal codes.
        self.assertNotIn("\033", out)
        self.assertRegex(out, r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d, every 1 s; Ctrl-C to stop\n")
        self.assertRegex(out, r"\n\n\d{4}-\d\d-\d\d \d\d:\d\d:\d\d, every 1 s")

    def test_monitor_interrupted_in_a_call_exits_0(self):
        """SIGINT while a call waits for the daemon (stopped here; a loaded
        machine does it too): the call's EINTR is no failure (exited 1 with
        "Interrupted system call" before)."""
        mon = subprocess.Popen([POWERALLOCCTL, "monitor"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        self.daemon.signal(signal.SIGSTOP)
        try:
            time.sleep(1.5)     # the next refresh's call waits for an answer
            mon.send_signal(signal.SIGINT)
            out, err = mon.communicate(timeout=10)
        finally:
            self.daemon.signal(signal.SIGCONT)
        self.assertEqual(mon.returncode, 0, err)
        self.assertEqual(err, "")
        self.assertNotIn("\033", out)

    def test_unprivileged_reads_but_cannot_reload(self):
        s = self.status(user=NOBODY)
        self.assertEqual(s["zones"][0]["name"], "cpu")
        out = ctl("reload", user=NOBODY)
        self.assertEqual(out.returncode, 4, out.stdout + out.stderr)
        self.assertIn("permission denied", out.stderr)
        out = ctl("reload")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertTrue(wait_for(lambda: "reloaded" in self.daemon.logtext()))

    def test_introspection(self):
        env = dict(os.environ)
        out = subprocess.run(NOBODY + ["busctl", "--system", "introspect", "org.powerallocd1",
                                       "/org/powerallocd1/zone/0"], capture_output=True,
                             text=True, env=env)
        self.assertEqual(out.returncode, 0, out.stderr)
        for member in ("org.powerallocd1.Zone", ".Temperature", ".ControlMargin", ".PowerBudget",
                       ".Actors", ".LearnedSustainablePower", ".ThermalTimeConstant",
                       ".ModelConfidence"):
            self.assertIn(member, out.stdout)
        out = subprocess.run(["busctl", "--system", "introspect", "org.powerallocd1",
                              "/org/powerallocd1"], capture_output=True, text=True)
        self.assertIn(".Reload", out.stdout)
        out = subprocess.run(["busctl", "--system", "tree", "org.powerallocd1"],
                             capture_output=True, text=True)
        for path in ("/org/powerallocd1/zone/0", "/org/powerallocd1/actor/1"):
            self.assertIn(path, out.stdout)

    def test_rejected_reload_says_why(self):
        # What `systemctl reload` runs (ExecReload=powerallocctl reload): it
        # must fail, with the reason, when the file is rejected.
        with open(self.daemon.config, "w") as f:
            f.write("zones = ( garbage\n")
        out = ctl("reload")
        self.assertNotEqual(out.returncode, 0, out.stdout)
        self.assertIn("configuration rejected, the running one stays", out.stderr)
        self.assertIn("powerallocd.conf:1: syntax error", out.stderr)
        self.assertEqual(self.status()["state"], "controlling")

    def test_objects_follow_a_reload(self):
        with open(self.daemon.config, "w") as f:
            f.write(HOT_CONFIG.replace(', { type = "cpufreq"; cpus = "4-5"; }', ""))
        self.assertEqual(ctl("reload").returncode, 0)
        out = subprocess.run(["busctl", "--system", "tree", "org.powerallocd1"],
                             capture_output=True, text=True)
        # Left: the little cluster and the zone's fan (step_wise fallback).
        self.assertIn("/org/powerallocd1/actor/1", out.stdout)
        self.assertNotIn("/org/powerallocd1/actor/2", out.stdout)
        self.assertEqual(len(self.status()["zones"][0]["actors"]), 1)

    def test_active_change_is_signalled(self):
        def cool():
            self.tree.write(ZONE0 + "temp", "50000\n")
            self.assertTrue(wait_for(lambda: self.status()["state"] == "idle"))

        seen = properties_changed(cool)
        self.assertIn('string "Active"', seen)
        self.assertIn('string "State"', seen)


class AlwaysOn(Bus):
    """gpu-thermal has one passive trip (75 °C): no switch-on, controlled at
    45 °C, and shown so."""

    config = ('zones = ( { name = "gpu"; sensor = "gpu-thermal";\n'
              '  actors = ( { type = "devfreq"; device = "ff9a0000.gpu"; } ); } );\n')
    temp_mc = 45000

    def test_status_says_always_on(self):
        self.assertTrue(wait_for(lambda: self.status()["state"] == "controlling"))
        zone = self.status()["zones"][0]
        self.assertTrue(zone["always_on"])
        self.assertTrue(zone["active"])
        self.assertEqual(zone["switch_on_mc"], 0)
        self.assertEqual(zone["control_mc"], 75000)
        out = ctl("status")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("ZONE gpu (thermal_zone1) 45.00 °C\n  always on, control 75.0 °C",
                      out.stdout)
        self.assertIn("(0 at 0 °C, 1 control)", out.stdout)
        out = subprocess.run(["busctl", "--system", "get-property", "org.powerallocd1",
                              "/org/powerallocd1/zone/0", "org.powerallocd1.Zone", "AlwaysOn"],
                             capture_output=True, text=True)
        self.assertEqual(out.stdout.strip(), "b true", out.stderr)


class LongNames(Bus):
    """A zone's name too long for the heading's 80 columns: cut, the sensor kept."""

    NAME = "package-temperature-of-the-first-socket-under-the-big-heatsink"
    config = HOT_CONFIG.replace('name = "cpu"', 'name = "%s"' % NAME)

    def test_heading_cut_to_80_columns(self):
        self.assertEqual(len(self.NAME), 62)
        out = ctl("status")
        self.assertEqual(out.returncode, 0, out.stderr)
        # 80 columns: "ZONE ", the name cut to 50 with its "…", " (thermal_zone0) 80.00 °C".
        heading = "ZONE %s… (thermal_zone0) 80.00 °C" % self.NAME[:49]
        self.assertIn("\n%s\n" % heading, out.stdout)
        self.assertEqual(len(heading), 80)
        out = ctl("status", "--summary")
        self.assertEqual(out.stdout.splitlines()[-1].split()[:2],
                         [self.NAME[:15] + "…", "thermal_zone0"])
        # The filter takes the whole name.
        out = ctl("status", "--json", self.NAME)
        self.assertEqual([z["name"] for z in json.loads(out.stdout)["zones"]], [self.NAME])


def on_a_terminal(args, rows, frames=2, timeout=60):
    """powerallocctl @args on a pseudo-terminal of @rows lines and 80
    columns until it drew @frames frames (or @timeout s), then Ctrl-C.
    Return: (exit status, the last frame whole, its lines)."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(POWERALLOCCTL, [POWERALLOCCTL] + args)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, 80, 0, 0))
    data, end = b"", time.monotonic() + timeout
    # A frame is whole once the next one starts (home and clear).
    while data.count(b"\033[H\033[2J") <= frames and time.monotonic() < end:
        if select.select([fd], [], [], 0.1)[0]:
            try:
                data += os.read(fd, 65536)
            except OSError:
                break
    os.kill(pid, signal.SIGINT)
    # Read on until it exits: a monitor blocked writing a full terminal would not.
    end = time.monotonic() + 10
    while True:
        done, wstatus = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > end:
            os.kill(pid, signal.SIGKILL)
        if select.select([fd], [], [], 0.1)[0]:
            try:
                os.read(fd, 65536)
            except OSError:
                pass
    status = os.waitstatus_to_exitcode(wstatus)
    os.close(fd)
    frame = data.decode().split("\033[H\033[2J")[frames].replace("\r", "")
    return status, frame, frame.split("\n")


class ManyZones(unittest.TestCase):
    """101 zones (tree many-zones) with the automatic configuration: the
    status takes some 1100 lines; each fits 80 columns, a zone can be asked
    for by its name, the summary gives one line per zone, and monitor keeps
    its top in view."""

    @classmethod
    def setUpClass(cls):
        cls.bus = PrivateBus()
        cls.tree = Tree("many-zones")
        cls.daemon = Daemon(cls.tree, "idle_poll_ms = 1000;\n", bus="system")
        assert wait_for(lambda: "serving org.powerallocd1" in cls.daemon.logtext(),
                        timeout=30), cls.daemon.logtext()

    @classmethod
    def tearDownClass(cls):
        cls.daemon.close()
        cls.tree.close()
        cls.bus.close()

    def test_every_line_fits_80_columns(self):
        for args in (["status"], ["status", "--summary"]):
            out = ctl(*args)
            self.assertEqual(out.returncode, 0, out.stderr)
            for line in out.stdout.splitlines():
                self.assertLessEqual(len(line), 80, line)
        # The heading took 85 columns with sensor10 (thermal_zone10) on one line.
        self.assertEqual(ctl("status").stdout.count("\nZONE "), 101)
        self.assertIn("\nZONE sensor10 (thermal_zone10) 45.00 °C\n"
                      "  switch-on 80.0 °C, control 90.0 °C (aims 89.95)\n", ctl("status").stdout)

    def test_summary_is_one_line_per_zone(self):
        out = ctl("status", "--summary")
        lines = out.stdout.splitlines()
        self.assertEqual(lines[1], "ZONE             SENSOR         TEMP °C CONTROL HEADROOM "
                         "BUDGET mW LIMITED BY")
        self.assertEqual(len(lines), 2 + 101)
        self.assertEqual([line.split()[0] for line in lines[2:]],
                         ["soc-thermal"] + ["sensor%d" % z for z in range(1, 101)])
        # 45 °C under a switch-on of 80 °C: "cool" (it was -3.50, which read as over a limit).
        self.assertRegex(lines[12], r"^sensor10 +thermal_zone10 +45\.00 +90\.0 +cool +\d+ \w")

    def test_zones_by_name(self):
        out = ctl("status", "sensor99", "sensor10")
        self.assertEqual(out.returncode, 0, out.stderr)
        # In the daemon's order.
        self.assertEqual(re.findall(r"(?m)^ZONE (\S+)", out.stdout), ["sensor10", "sensor99"])
        out = ctl("status", "--json", "sensor7")
        self.assertEqual([z["name"] for z in json.loads(out.stdout)["zones"]], ["sensor7"])
        out = ctl("status", "--summary", "soc-thermal", "sensor1O")
        self.assertEqual((out.returncode, out.stdout), (2, ""))
        self.assertEqual(out.stderr, "powerallocctl: no zone named 'sensor1O': did you mean "
                         "'sensor1'?\n(powerallocctl status --summary lists the zones)\n")

    def test_monitor_keeps_its_top_in_view(self):
        """24 lines: the time, the status's first 22 lines, and what did not fit."""
        total = len(ctl("status").stdout.splitlines())
        status, frame, lines = on_a_terminal(["monitor"], rows=24)
        self.assertEqual(status, 0, frame)
        self.assertRegex(lines[0], r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d, every 1 s; "
                         r"Ctrl-C to stop$")
        self.assertRegex(lines[1], r"^powerallocd \S+: ")
        self.assertEqual(len(lines), 24, lines)
        self.assertEqual(lines[-1], "... %d more lines: monitor --summary, or name the zones "
                         "(monitor ZONE...)" % (total - 22))
        status, frame, lines = on_a_terminal(["monitor", "--summary", "sensor2", "sensor1"],
                                             rows=24)
        self.assertEqual(status, 0, frame)
        self.assertEqual([line.split()[0] for line in lines[3:] if line], ["sensor1", "sensor2"])
        self.assertEqual(lines[2].split()[:2], ["ZONE", "SENSOR"])


class DaemonChecksUid(Bus):
    permissive = True

    def test_reload_refused_by_the_daemon_itself(self):
        out = ctl("reload", user=NOBODY)
        self.assertEqual(out.returncode, 4, out.stdout + out.stderr)
        self.assertIn("Reload is for root only", out.stderr)

    def test_power_limit_refused_by_the_daemon_itself(self):
        out = ctl("limit", "2W", "--lease", "60", user=NOBODY)
        self.assertEqual(out.returncode, 4, out.stdout + out.stderr)
        self.assertIn("SetPowerLimit is for root only", out.stderr)
        out = ctl("limit", "--clear", user=NOBODY)
        self.assertIn("ClearPowerLimit is for root only", out.stderr)
        self.assertEqual(self.status()["power_limit_mw"], 0)


class Flood(Bus):
    """An unprivileged client hammering the daemon while a zone is active:
    64 KiB object paths (sd-bus's own lookup of one took 0.4 s of the
    loop), and every method the bus lets nobody call, from four clients at
    once.  The control period must not notice."""

    PERIOD_MS = 100
    config = HOT_CONFIG.replace("period_ms = 50", "period_ms = %d" % PERIOD_MS)
    LONG = "/" + "/".join(["p"] * 32767)                     # 65535 bytes
    UNDER = "/org/powerallocd1/zone/" + "9" * 60000           # ours, but no such zone
    CALLS = [
        [LONG, "org.freedesktop.DBus.Properties", "Get", "ss", "org.powerallocd1.Zone", "Name"],
        [UNDER, "org.freedesktop.DBus.Properties", "GetAll", "s", "org.powerallocd1.Zone"],
        [LONG, "org.freedesktop.DBus.Introspectable", "Introspect"],
        [LONG, "org.freedesktop.DBus.Peer", "Ping"],
        [LONG, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects"],
        ["/org/powerallocd1/zone/0", "org.freedesktop.DBus.Properties", "GetAll", "s",
         "org.powerallocd1.Zone"],
        ["/org/powerallocd1", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects"],
        ["/", "org.freedesktop.DBus.Introspectable", "Introspect"],
        ["/org/powerallocd1", "org.powerallocd1.Manager", "Reload"],          # refused
        ["/org/powerallocd1/zone/0", "org.freedesktop.DBus.Properties", "Set", "ssv",
         "org.powerallocd1.Zone", "Name", "s", "x"],                          # refused
    ]

    def period_times(self):
        with open(self.daemon.trace) as f:
            rows = [r.split(",") for r in f.read().splitlines()[1:]]
        return sorted({int(r[0]) for r in rows if r[1] == "cpu" and r[3] == "1"})

    def hammer(self, until, answers):
        k = 0
        while time.monotonic() < until:
            call = self.CALLS[k % len(self.CALLS)]
            k += 1
            out = subprocess.run(NOBODY + ["busctl", "--system", "call", "org.powerallocd1"] +
                                 call, capture_output=True, text=True, timeout=30)
            answers.append((call[0][:30], call[2], out.returncode, out.stderr.strip()[:80]))

    # A process that sleeps 10 ms at a time for argv[1] s and prints, in ms,
    # the most it woke late: how long the loaded machine kept a runnable
    # process off its CPUs, which no daemon could help.
    PROBE = ("import sys, time\n"
             "end = time.monotonic() + float(sys.argv[1]); worst = 0.0\n"
             "while time.monotonic() < end:\n"
             "    t = time.monotonic(); time.sleep(0.01)\n"
             "    worst = max(worst, time.monotonic() - t - 0.01)\n"
             "print(int(worst * 1000))\n")

    def test_periods_keep_their_time(self):
        self.assertTrue(wait_for(lambda: len(self.period_times()) >= 3), self.daemon.logtext())
        start_ms = self.period_times()[-1]
        answers = []
        until = time.monotonic() + 4.0
        probe = subprocess.Popen([sys.executable, "-c", self.PROBE, "4.0"],
                                 stdout=subprocess.PIPE, text=True)
        clients = [threading.Thread(target=self.hammer, args=(until, answers)) for _ in range(4)]
        for c in clients:
            c.start()
        for c in clients:
            c.join()
        starved_ms = int(probe.communicate(timeout=60)[0].strip())
        time.sleep(2 * self.PERIOD_MS / 1000)
        times = [t for t in self.period_times() if t >= start_ms]
        gaps = [b - a for a, b in zip(times, times[1:])]
        longest = max(gaps)
        print("flood: %d calls, %d periods, longest gap %d ms, the machine kept a process "
              "waiting %d ms" % (len(answers), len(times), longest, starved_ms), file=sys.stderr)
        # A client must not slow the period: four periods at most, plus twice what
        # the machine's load cost a process beside it (the probe samples every
        # 10 ms and is not the daemon: a loaded 2-core machine once kept the
        # daemon 401 ms where the probe saw under 200).  The flood this guards
        # against held it 2572 ms.
        if not WRAPPER:     # valgrind slows the daemon itself 20-50 times
            self.assertLess(longest, 4 * self.PERIOD_MS + 2 * starved_ms, (gaps, starved_ms))
        self.assertGreaterEqual(len(answers), 40)
        # A long path is answered at once, as no object; the others as always.
        long_get = [a for a in answers if a[1] == "Get"]
        self.assertTrue(long_get and all(a[2] != 0 and "No object" in a[3] for a in long_get),
                        long_get[:3])
        self.assertTrue(any(a[1] == "GetManagedObjects" and a[2] == 0 for a in answers))
        self.assertIsNone(self.daemon.proc.poll())
        self.assertEqual(self.status(user=NOBODY)["zones"][0]["name"], "cpu")


def busctl(*args, user=None):
    return subprocess.run((user or []) + ["busctl", "--system"] + list(args),
                          capture_output=True, text=True, timeout=30)


def manager_property(name):
    out = busctl("--json=short", "get-property", "org.powerallocd1", "/org/powerallocd1",
                 "org.powerallocd1.Manager", name)
    return json.loads(out.stdout)["data"]


class PowerLimit(Bus):
    """Manager.SetPowerLimit with a lease, ClearPowerLimit and powerallocctl
    limit: the zone starts cool (idle, every actor at its maximum) so that
    only the cap holds its budget down."""

    def setUp(self):
        super().setUp()
        self.tree.write(ZONE0 + "temp", "40000\n")
        self.assertTrue(wait_for(lambda: self.status()["state"] == "idle"))
        self.full = self.status()["zones"][0]["budget_mw"]

    def budget(self):
        return self.status()["zones"][0]["budget_mw"]

    def test_budget_follows_the_cap_and_clear_lifts_it(self):
        cap = self.full // 3
        out = ctl("limit", "%dmW" % cap, "--lease", "60")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout, "power limit %d mW for 60 s\n" % cap)
        # Applied at once, not at the idle zone's next poll.
        self.assertTrue(wait_for(lambda: self.budget() == cap, timeout=1), self.status())
        s = self.status()
        self.assertEqual(s["power_limit_mw"], cap)
        self.assertEqual(s["power_limit_unmet"], "")
        zone = s["zones"][0]
        self.assertEqual(s["state"], "idle")       # cool: limited by the cap alone
        self.assertLessEqual(sum(a["granted_mw"] for a in zone["actors"]), cap + 2)
        # The grants went to the devices: some cluster is throttled.
        self.assertTrue(wait_for(lambda: int(self.tree.read(CDEV % 0)) +
                                 int(self.tree.read(CDEV % 1)) > 0))
        left = (s["power_limit_expires_usec"] - time.clock_gettime_ns(time.CLOCK_MONOTONIC)
                // 1000) / 1e6
        self.assertTrue(55 < left <= 60, left)
        # And as a script wants it: seconds left.
        self.assertTrue(55 < s["power_limit_lease_left_s"] <= 60, s)
        self.assertIn("power limit %d mW, lease ends in" % cap, ctl("status").stdout)
        # Another cap moves the budget with it.
        self.assertEqual(ctl("limit", "%dmW" % (cap // 2), "--lease", "60").returncode, 0)
        self.assertTrue(wait_for(lambda: self.budget() == cap // 2, timeout=1), self.status())
        out = ctl("limit", "--clear")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout, "power limit %d mW cleared\n" % (cap // 2))
        self.assertTrue(wait_for(lambda: self.budget() == self.full, timeout=1))
        self.assertEqual(self.status()["power_limit_mw"], 0)
        self.assertIsNone(self.status()["power_limit_lease_left_s"])
        self.assertTrue(wait_for(lambda: int(self.tree.read(CDEV % 0)) +
                                 int(self.tree.read(CDEV % 1)) == 0))
        log = self.daemon.logtext()
        self.assertIn("power limit %u mW for 60 s" % cap, log)
        self.assertIn("power limit %u mW cleared" % (cap // 2), log)

    def test_lease_ends_unless_renewed(self):
        cap = self.full // 3
        self.assertEqual(ctl("limit", "%dmW" % cap, "--lease", "2").returncode, 0)
        self.assertTrue(wait_for(lambda: self.budget() == cap, timeout=1))
        first = manager_property("PowerLimitExpiresUsec")
        time.sleep(1.2)
        # A renewal: the lease starts again.
        self.assertEqual(ctl("limit", "%dmW" % cap, "--lease", "2").returncode, 0)
        renewed = manager_property("PowerLimitExpiresUsec")
        self.assertGreater(renewed - first, 1000000)
        time.sleep(1.2)     # past the first lease's end, within the renewed one
        self.assertEqual(manager_property("PowerLimit"), cap)
        self.assertEqual(self.budget(), cap)
        # Not renewed again: lifted at its end, the zone back to its maximum.
        self.assertTrue(wait_for(lambda: manager_property("PowerLimit") == 0, timeout=3))
        end = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
        self.assertGreaterEqual(end, renewed)
        self.assertEqual(manager_property("PowerLimitExpiresUsec"), 0)
        self.assertTrue(wait_for(lambda: self.budget() == self.full, timeout=1))
        self.assertIn("the lease ended without a renewal; the limit is lifted",
                      self.daemon.logtext())

    def test_unmet_below_the_lowest_states(self):
        def cap():
            self.assertEqual(ctl("limit", "1mW", "--lease", "60").returncode, 0)
            self.assertTrue(wait_for(lambda: manager_property("PowerLimitUnmet") != ""))

        seen = properties_changed(cap)
        for prop in ("PowerLimit", "PowerLimitExpiresUsec", "PowerLimitUnmet"):
            self.assertIn('string "%s"' % prop, seen)
        unmet = manager_property("PowerLimitUnmet")
        self.assertRegex(unmet, r"^the actors' lowest states draw \d+ mW, above the limit "
                         r"of 1 mW$")
        s = self.status()
        self.assertEqual(s["power_limit_unmet"], unmet)
        # Every power actor at its lowest state.
        self.assertTrue(wait_for(lambda: all(
            a["cooling_state"] == a["max_cooling_state"]
            for a in self.status()["zones"][0]["actors"])), self.status())
        self.assertIn("cannot be met", self.daemon.logtext())
        self.assertIn(", unmet:\n  the actors' lowest", ctl("status").stdout)
        # Met again once the cap is above them.
        self.assertEqual(ctl("limit", "--clear").returncode, 0)
        self.assertEqual(manager_property("PowerLimitUnmet"), "")

    def test_bad_arguments_say_why(self):
        for lease in ("0", "86401"):
            out = busctl("call", "org.powerallocd1", "/org/powerallocd1",
                         "org.powerallocd1.Manager", "SetPowerLimit", "uu", "2000", lease)
            self.assertNotEqual(out.returncode, 0)
            self.assertIn("a lease of %s s: it must be 1 to 86400 s" % lease, out.stderr)
        out = busctl("call", "org.powerallocd1", "/org/powerallocd1",
                     "org.powerallocd1.Manager", "SetPowerLimit", "uu", "0", "60")
        self.assertIn("ClearPowerLimit() lifts a limit", out.stderr)
        self.assertEqual(manager_property("PowerLimit"), 0)
        out = ctl("limit", "2W")
        self.assertEqual(out.returncode, 2)
        self.assertIn("limit needs --lease SECONDS", out.stderr)
        for args in (["limit", "-1W", "--lease", "5"], ["limit", "x", "--lease", "5"],
                     ["limit", "2W", "--lease", "-5"], ["limit", "--clear", "--lease", "5"],
                     ["status", "--lease", "5"]):
            self.assertEqual(ctl(*args).returncode, 2, args)
        # Refused before the daemon is asked, as every other bad argument (it
        # was the daemon's refusal, exit status 1, "powerallocd: ...").
        for lease in ("0", "86401"):
            out = ctl("limit", "2W", "--lease", lease)
            self.assertEqual((out.returncode, out.stderr),
                             (2, "powerallocctl: limit needs --lease SECONDS, a whole number of "
                              "seconds (1 to 86400), not \"%s\"\nTry 'powerallocctl --help'.\n"
                              % lease))

    # limit's POWER: with its unit, W or mW.
    POWERS = [("1500mW", 1500), ("1500.0mW", 1500), ("1.5W", 1500),
              ("2W", 2000), ("2.500W", 2500), (".5W", 500), ("0.001W", 1), ("1mW", 1)]

    def max_mw(self):
        """What the actors draw together at most: the status's sum of their maxima."""
        return sum(a["max_mw"] for a in self.status()["zones"][0]["actors"])

    def test_power_units(self):
        for power, mw in self.POWERS:
            out = ctl("limit", power, "--lease", "60")
            self.assertEqual((out.returncode, out.stdout), (0, "power limit %d mW for 60 s\n" % mw),
                             power)
            self.assertEqual(manager_property("PowerLimit"), mw, power)

    def test_cap_below_the_lowest_states_is_said(self):
        """limit 100mW was taken without a word, and the status then said
        it unmet: warned, the cap set all the same (exit status 0)."""
        self.assertTrue(wait_for(lambda: manager_property("LowestPower") > 0))
        lowest = manager_property("LowestPower")
        # What the status's actors draw at their lowest: no less than a tenth of their most.
        self.assertTrue(100 < lowest < self.max_mw(), lowest)
        out = ctl("limit", "100mW", "--lease", "60")
        self.assertEqual((out.returncode, out.stdout), (0, "power limit 100 mW for 60 s\n"))
        self.assertRegex(out.stderr, r"^powerallocctl: limit: warning: 100mW is under the \d+ mW "
                         r"the power actors draw at their lowest states at full load: under a "
                         r"full load the cap holds every one of them there and is still not "
                         r"met \(status says \"unmet\"\)\n$")
        self.assertEqual(manager_property("PowerLimit"), 100)
        # At or above them: no word.
        out = ctl("limit", "%dmW" % self.max_mw(), "--lease", "60")
        self.assertEqual((out.returncode, out.stderr), (0, ""))

    def test_cap_above_what_the_actors_draw_is_refused(self):
        """limit 4500 capped the RK3399 (2976 mW at most) at 4500 W before."""
        top = self.max_mw()
        self.assertEqual(top, 2976)
        for power, mw in (("4500mW", 4500), ("4500W", 4500000), ("%dmW" % (top + 1), top + 1)):
            out = ctl("limit", power, "--lease", "60")
            self.assertEqual(out.returncode, 2, power)
            self.assertEqual(out.stderr, "powerallocctl: limit: %s is %d mW, more than this "
                             "machine's power actors can draw together: give 1mW to 2976mW "
                             "(2.976W)\n" % (power, mw))
            self.assertEqual(manager_property("PowerLimit"), 0)
        out = ctl("limit", "%dmW" % top, "--lease", "60")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(manager_property("PowerLimit"), top)

    def test_clear_says_whether_there_was_a_cap(self):
        out = ctl("limit", "--clear")
        self.assertEqual((out.returncode, out.stdout), (0, "no power limit was set: nothing to "
                                                           "clear\n"))
        self.assertEqual(ctl("limit", "1.5W", "--lease", "60").returncode, 0)
        out = ctl("limit", "--clear")
        self.assertEqual((out.returncode, out.stdout), (0, "power limit 1500 mW cleared\n"))
        self.assertEqual(manager_property("PowerLimit"), 0)

    def test_trace_says_the_cap(self):
        """The trace's last columns: the aim, the zone's and the actor's
        reasons, the zone's share of the cap and the cap; the older columns
        stay where they were (tools/plot-trace and scripts read them)."""
        def rows():
            with open(self.daemon.trace) as f:
                lines = [line.split(",") for line in f.read().splitlines()]
            return lines[0], [dict(zip(lines[0], r)) for r in lines[1:]]

        header, before = rows()
        self.assertEqual(",".join(header[:26]), OLD_TRACE_HEADER)
        self.assertEqual(header[26:31], ["aim_mc", "zone_limit", "actor_limit", "cap_mw",
                                         "power_limit_mw"])
        # Then the meters' (issue 35), at the end too.
        self.assertEqual(header[31:], ["measured_mw", "power_scale", "power_scale_confidence",
                                       "table_mw"])
        # Started at 80 °C (held back then), cooled to 40 °C: idle, nothing held back;
        # the fan (no power model: max_mw 0), turned down a step a period, is on for
        # the temperature until it is off (on a slow machine, in the first idle rows).
        idle = [r for r in before if r["active"] == "0"]
        self.assertTrue(idle)
        for row in idle:
            fan_on = row["max_mw"] == "0" and row["state"] != "0"
            self.assertEqual((row["aim_mc"], row["zone_limit"], row["actor_limit"],
                              row["cap_mw"], row["power_limit_mw"]),
                             ("74950", "none", "temperature" if fan_on else "none", "0", "0"),
                             row)
        cap = self.full // 3
        self.assertEqual(ctl("limit", "%dmW" % cap, "--lease", "60").returncode, 0)
        # A cool zone, throttled by the cap alone: the trace says so.
        self.assertTrue(wait_for(lambda: any(r["actor_limit"] == "power-limit"
                                             for r in rows()[1][len(before):])), rows()[1][-3:])
        capped = [r for r in rows()[1][len(before):] if r["power_limit_mw"] != "0"]
        self.assertTrue(capped)
        for row in capped:
            self.assertEqual((row["power_limit_mw"], row["cap_mw"]), (str(cap), str(cap)), row)
            self.assertEqual(row["active"], "0", row)
        self.assertIn("power-limit", {r["zone_limit"] for r in capped})
        self.assertNotIn("temperature", {r["zone_limit"] for r in capped})

    def test_unprivileged_is_refused(self):
        out = ctl("limit", "2W", "--lease", "60", user=NOBODY)
        self.assertEqual(out.returncode, 4, out.stdout + out.stderr)
        self.assertIn("permission denied", out.stderr)
        self.assertEqual(ctl("limit", "--clear", user=NOBODY).returncode, 4)
        self.assertEqual(manager_property("PowerLimit"), 0)
        # Anyone may read it, and ask a zone's headroom.
        self.assertEqual(self.status(user=NOBODY)["power_limit_mw"], 0)
        out = busctl("call", "org.powerallocd1", "/org/powerallocd1/zone/0",
                     "org.powerallocd1.Zone", "GetHeadroom", "u", "10", user=NOBODY)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertRegex(out.stdout, r"^d -?\d")


class Neighbours(unittest.TestCase):
    """thermald and power-profiles-daemon on the bus (their names, owned by a
    stand-in): powerallocd names them once, with what it shares with each."""

    NAMES = ["org.freedesktop.thermald", "net.hadess.PowerProfiles"]

    def test_other_daemons_named(self):
        extra = '<policy user="root">%s</policy>' % "".join(
            '<allow own="%s"/>' % n for n in self.NAMES)
        bus = PrivateBus(extra=extra)
        tree = Tree()
        others = subprocess.Popen([OWN_NAME] + self.NAMES, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        daemon = None
        try:
            self.assertEqual(others.stdout.readline().strip(), "owned")
            daemon = Daemon(tree, HOT_CONFIG, bus="system")
            self.assertTrue(wait_for(lambda: "power-profiles-daemon is running" in
                                     daemon.logtext() and "thermald is running" in
                                     daemon.logtext()), daemon.logtext())
            log = daemon.logtext()
            self.assertIn("thermald is running (org.freedesktop.thermald): it also writes the "
                          "cooling devices", log)
            self.assertIn("the two will fight over those files, powerallocd writing its value "
                          "back each time it finds theirs", log)
            self.assertIn("systemctl disable --now thermald", log)
            # The unit stops thermald only when it takes over: no Conflicts= to point at.
            self.assertIn("powerallocd.service stops it when it starts with a zone to control",
                          log)
            self.assertNotIn("conflicts", log)
            # What its source writes: none of ours, so no fight, and what it writes instead.
            self.assertIn("power-profiles-daemon is running (net.hadess.PowerProfiles): it "
                          "writes none of the files powerallocd writes (cooling states, "
                          "scaling_max_freq, powercap limits, zone policies), so the two do not "
                          "fight: it writes each cpufreq policy's scaling_governor and "
                          "energy_performance_preference", log)
            self.assertIn("/sys/firmware/acpi/platform_profile", log)
            self.assertNotIn("tuned is running", log)
            self.assertEqual(log.count("thermald is running"), 1)
            daemon.signal(signal.SIGTERM)
            self.assertEqual(daemon.wait(), 0)
        finally:
            if daemon:
                daemon.close()
            others.stdin.close()
            others.wait(timeout=10)
            tree.close()
            bus.close()


POWERALLOCD_SIM = os.environ.get("POWERALLOCD_SIM", "build/tools/simulator/powerallocd-sim")


def start_simulator(args, seconds):
    """The simulator run with @args, its output read up to its @seconds-th simulated
    second: (the process, its tree, or None when it said none)."""
    sim = subprocess.Popen([POWERALLOCD_SIM] + args, stdout=subprocess.PIPE, text=True)
    tree = None
    for line in sim.stdout:
        if line.startswith("tree: "):
            tree = line.split()[1]
        if line.strip().startswith("%d s" % seconds):
            break
    return sim, tree


class Simulator(unittest.TestCase):
    """The daemon run by the simulator, queried over the bus while it runs."""

    def test_status_matches_the_simulated_soc(self):
        bus = PrivateBus()
        # Hot and throttling by 12 s.
        sim, tree = start_simulator(["--duration", "20", "--speed", "1"], 12)
        try:
            self.assertIsNotNone(tree)
            temp = os.path.join(tree, "sys/devices/virtual/thermal/thermal_zone0/temp")
            cdev = os.path.join(tree, "sys/devices/virtual/thermal/cooling_device%d/cur_state")
            matched = False
            for _ in range(10):
                s = json.loads(ctl("status", "--json").stdout)
                zone = s["zones"][0]
                with open(temp) as f:
                    now = int(f.read())
                states = []
                for k in range(3):
                    with open(cdev % k) as f:
                        states.append(int(f.read()))
                got = [a["cooling_state"] for a in zone["actors"]]
                # The daemon's temperature is its last period's: within 0.5 °C of
                # the simulated die; its states are the tree's.
                if abs(zone["temperature_mc"] - now) <= 500 and got == states:
                    matched = True
                    break
                time.sleep(0.03)
            self.assertTrue(matched, (zone, now, states))
            self.assertTrue(zone["active"])
            self.assertEqual([a["name"] for a in zone["actors"]],
                             ["cpufreq-cpu0", "cpufreq-cpu4", "devfreq-ff9a0000.gpu"])
        finally:
            sim.send_signal(signal.SIGINT)
            rest = sim.communicate(timeout=20)[0]
            bus.close()
        self.assertEqual(sim.returncode, 0, rest)
        self.assertIn("limits and policy restored: yes", rest)


class Headroom(unittest.TestCase):
    """Zone.GetHeadroom against the simulated RockPro64 (real time): the
    temperature it forecasts 10 s ahead, at moments through the run, against
    what the simulated die reaches then, under the daemon's control.  The
    model's fit changes at the end of each 5 s block (about 5.1 s, 10.1 s,
    ...), so the moments are 2 s into a block: one on a boundary sees the
    old fit or the new one by a few ms of scheduling.  Forecasts each
    second from 15 s to 38 s (the merge of cap into main, two runs): 15-25
    s missed by up to 2.3 K (the fits of the first five blocks, at the
    power of that moment, which the controller then lowers), 26-30 s by up
    to 0.92 K (the request dithers between OPPs), from 31 s by at most
    0.48 K.  At 17 s it is printed; the assertion is from 32 s.
    Times are the daemon's (its trace), so a loaded machine delaying the
    test moves nothing.  Every forecast is printed.  Under valgrind the
    daemon's periods are late and only the call is checked."""

    AT_S = (17, 32, 37)
    ASSERT_FROM_S = 32
    AHEAD_S = 10
    TOLERANCE_C = 1.0

    @staticmethod
    def readings(trace):
        """(time_ms, temp_mc) of every period in the daemon's trace."""
        with open(trace) as f:
            rows = [r.split(",") for r in f.read().splitlines()[1:]]
        return [(int(r[0]), int(r[2])) for r in rows if len(r) > 2 and r[2].lstrip("-").isdigit()]

    def test_forecast_against_the_simulated_die(self):
        bus = PrivateBus()
        sim, tree = start_simulator(["--duration", "50", "--speed", "1"], self.AT_S[0])
        forecasts, errors = [], []
        try:
            self.assertIsNotNone(tree)
            trace = os.path.join(tree, "trace.csv")
            start = time.monotonic() - self.AT_S[0]
            for at in self.AT_S:
                time.sleep(max(0, start + at - time.monotonic()))
                zone = json.loads(ctl("status", "--json").stdout)["zones"][0]
                # The daemon's clock (its trace's), not ours: a loaded machine delays us.
                now_ms = self.readings(trace)[-1][0]
                out = busctl("call", "org.powerallocd1", "/org/powerallocd1/zone/0",
                             "org.powerallocd1.Zone", "GetHeadroom", "u", str(self.AHEAD_S))
                self.assertEqual(out.returncode, 0, out.stderr)
                h = float(out.stdout.split()[1])
                span = zone["control_mc"] - zone["switch_on_mc"]
                forecasts.append((at, now_ms, zone["switch_on_mc"] + h * span,
                                  zone["temperature_mc"]))
            for at, now_ms, predicted_mc, temp_mc in forecasts:
                then_ms = now_ms + self.AHEAD_S * 1000
                self.assertTrue(wait_for(lambda: self.readings(trace)[-1][0] >= then_ms,
                                         timeout=2 * self.AHEAD_S + 10))
                reached_mc = min(self.readings(trace), key=lambda r: abs(r[0] - then_ms))[1]
                errors.append((predicted_mc - reached_mc) / 1000)
                print("headroom: at %d s %.2f °C, forecast %.2f °C in %d s, reached %.2f °C, "
                      "error %+.2f K" % (at, temp_mc / 1000, predicted_mc / 1000, self.AHEAD_S,
                                         reached_mc / 1000, errors[-1]), file=sys.stderr)
        finally:
            sim.send_signal(signal.SIGINT)
            rest = sim.communicate(timeout=30)[0]
            bus.close()
        self.assertIn("limits and policy restored: yes", rest)
        self.assertEqual(len(errors), len(self.AT_S))
        for at, e in zip(self.AT_S, errors):
            if at >= self.ASSERT_FROM_S and not WRAPPER:
                self.assertLess(abs(e), self.TOLERANCE_C, errors)


class Usage(unittest.TestCase):
    def test_help_and_man_page(self):
        out = ctl("--help")
        self.assertEqual(out.returncode, 0)
        with open(os.path.join(HERE, "..", "..", "man", "powerallocctl.1.scd")) as f:
            man = f.read()
        for word in ("status", "monitor", "reload", "--json", "--summary", "--bus", "limit",
                     "--lease", "--clear"):
            self.assertIn(word, out.stdout)
            self.assertIn("*%s*" % word, man)
        self.assertEqual(ctl("frobnicate").returncode, 2)
        out = ctl("--version")
        self.assertEqual(out.returncode, 0)
        self.assertRegex(out.stdout, r"^powerallocctl \d+\.\d+")
        self.assertEqual(ctl("reload", "--json").returncode, 2)


class CommandLine(unittest.TestCase):
    """What powerallocctl says of a command line it cannot take, before it
    asks the daemon anything (no bus is needed): one line that names what
    is wrong and how to put it right, exit status 2."""

    HINT = "Try 'powerallocctl --help'.\n"

    def assert_usage_error(self, args, message):
        out = ctl(*args)
        self.assertEqual((out.returncode, out.stdout, out.stderr), (2, "", message), args)

    def test_unknown_command_named_with_what_was_meant(self):
        self.assert_usage_error(["stauts"], "powerallocctl: unknown command 'stauts': did you "
                                "mean 'status'?\n" + self.HINT)
        self.assert_usage_error(["monitr"], "powerallocctl: unknown command 'monitr': did you "
                                "mean 'monitor'?\n" + self.HINT)
        self.assert_usage_error(["frobnicate"], "powerallocctl: unknown command 'frobnicate' "
                                "(commands: status, monitor, reload, limit)\n" + self.HINT)

    def test_misplaced_options(self):
        for args, message in (
                (["reload", "--json"], "--json is for status"),
                (["monitor", "--json"], "--json is for status"),
                (["status", "--json", "--summary"],
                 "--summary is for status and monitor, without --json"),
                (["reload", "--summary"], "--summary is for status and monitor, without --json"),
                (["status", "--lease", "5"], "--lease and --clear are for limit"),
                (["reload", "now"], "reload takes no argument \"now\""),
                (["--bus", "user"], "--bus is system or session, not \"user\""),
                (["limit", "--clear", "--lease", "5"], "limit --clear takes no POWER or --lease"),
                (["limit", "2W"], "limit needs --lease SECONDS (the cap lifts when the lease "
                 "ends unless renewed)")):
            self.assert_usage_error(args, "powerallocctl: %s\n%s" % (message, self.HINT))

    def test_version(self):
        for option in ("-V", "--version"):
            out = ctl(option)
            self.assertEqual(out.returncode, 0, option)
            self.assertRegex(out.stdout, r"^powerallocctl \d+\.\d+", option)

    # A POWER limit cannot take, and why: a bare number has no unit (said
    # as it is now: it spoke of what a bare number meant "before").
    REFUSED_POWERS = [
        ("4.5", '"4.5" has no unit: write 4.5W for watts (a power without its unit is '
         'refused: W and mW are a thousand times apart)'),
        ("4500", '"4500" has no unit: write 4500W for watts or 4500mW for milliwatts (a power '
         'without its unit is refused: W and mW are a thousand times apart)'),
        ("x", '"x" is not a power: write it in W (4.5W) or mW (4500mW)'),
        ("W", '"W" is not a power: write it in W (4.5W) or mW (4500mW)'),
        ("4,5W", '"4,5W": the unit must be W or mW (4.5W, 4500mW)'),
        ("4.5kW", '"4.5kW": the unit must be W or mW (4.5W, 4500mW)'),
        ("4500mw", '"4500mw": the unit must be W or mW (4.5W, 4500mW)'),
        ("4500 mW", '"4500 mW": the unit must be W or mW (4.5W, 4500mW)'),
        ("1e3mW", '"1e3mW": the unit must be W or mW (4.5W, 4500mW)'),
        ("4.5005W", '"4.5005W" is finer than 1 mW: give whole mW (4500mW) or W to three '
         'decimals (4.5W)'),
        ("4500.5mW", '"4500.5mW" is finer than 1 mW: give whole mW (4500mW) or W to three '
         'decimals (4.5W)'),
        ("0W", '"0W": a power cap is 1 mW or more; \'powerallocctl limit --clear\' lifts a cap'),
        ("-1W", '"-1W": a power cap is 1 mW or more; \'powerallocctl limit --clear\' lifts a '
         'cap'),
    ]

    def test_power_refused_with_the_reason(self):
        for power, why in self.REFUSED_POWERS:
            # "--": -1W is no option
            out = ctl("limit", "--lease", "60", "--", power)
            self.assertEqual((out.returncode, out.stdout, out.stderr),
                             (2, "", "powerallocctl: limit: %s\n" % why), power)


class NotRunning(unittest.TestCase):
    def test_clear_message(self):
        bus = PrivateBus()
        try:
            out = ctl("status")
            self.assertEqual(out.returncode, 3)
            self.assertIn("powerallocd is not running", out.stderr)
        finally:
            bus.close()
        out = ctl("status")  # no bus at all
        self.assertEqual(out.returncode, 3)

    def test_no_bus_named_with_a_hint(self):
        """No system bus: "cannot connect to the system bus: No such file or
        directory" came without the program's name or what to check."""
        out = subprocess.run([POWERALLOCCTL, "status"], capture_output=True, text=True,
                             timeout=30, env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=
                                                  "unix:path=/nonexistent/socket"))
        self.assertEqual((out.returncode, out.stdout), (3, ""))
        self.assertEqual(out.stderr, "powerallocctl: cannot connect to the system bus "
                         "(unix:path=/nonexistent/socket): No such file or directory; "
                         "powerallocd serves its interface there: is D-Bus running (dbus or "
                         "dbus-broker)? (DBUS_SYSTEM_BUS_ADDRESS names another bus; --bus "
                         "session, a powerallocd on the session bus)\n")


if __name__ == "__main__":
    unittest.main(verbosity=2)

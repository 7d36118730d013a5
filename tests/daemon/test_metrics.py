#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""metrics_dir: the daemon's file for node_exporter's textfile collector.

Debian's prometheus-node-exporter runs on 127.0.0.1 with only the textfile
collector, pointed at the daemon's metrics_dir; /metrics is scraped and the
daemon's series must be there, accepted by node_exporter's own parser
(node_textfile_scrape_error 0), with the values `powerallocctl status --json`
shows.  The zone is held steady for the comparison: its temperature is
fixed and /proc/stat stands still, so that every value either stays or
moves one way (the integral, the throttled counter); a status read before
the file is written and one after the scrape then bracket each value.
The file itself also goes through a strict reader of the text format
(prometheus.io/docs/instrumenting/exposition_formats) and our naming rules,
since promtool (Debian's prometheus, 19 MB, 96 MB installed) is too big to
install for CI.

usage: test_metrics.py (POWERALLOCD and POWERALLOCCTL name the binaries)
"""
import csv
import json
import math
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
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_bus import PrivateBus, busctl, ctl  # noqa: E402
from test_daemon import ZONE0, Daemon, Tree, wait_for  # noqa: E402

NODE_EXPORTER = shutil.which("prometheus-node-exporter") or shutil.which("node_exporter")
INTERVAL_MS = 200
# A zone name with what a label value must escape: a double quote and a backslash.
ZONE = 'cpu "big" \\ little'
CONFIG = """
idle_poll_ms = 200;
metrics_dir = "%s";
metrics_interval_ms = %d;
zones = ( { name = "cpu \\"big\\" \\\\ little"; sensor = "cpu-thermal"; sustainable_power = 1500;
  period_ms = 50;
  actors = ( { type = "cpufreq"; cpus = "0-3"; }, { type = "cpufreq"; cpus = "4-5"; } ); } );
"""
REASONS = ["none", "temperature", "power-limit", "lowest-state", "sensor-fault"]

METRIC_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL_NAME = r"[a-zA-Z_][a-zA-Z0-9_]*"
LABEL_VALUE = r'"(?:[^"\\\n]|\\[\\"n])*"'
SAMPLE = re.compile(r"^(%s)(?:\{((?:%s=%s)(?:,%s=%s)*)?,?\})? (\S+)(?: (-?\d+))?$" %
                    (METRIC_NAME, LABEL_NAME, LABEL_VALUE, LABEL_NAME, LABEL_VALUE))
LABEL = re.compile(r'(%s)=(%s)' % (LABEL_NAME, LABEL_VALUE))


def unescape(quoted):
    return re.sub(r'\\(.)', lambda m: "\n" if m.group(1) == "n" else m.group(1), quoted[1:-1])


def parse_value(text):
    """A sample value as Go's ParseFloat reads it, or AssertionError."""
    if text in ("+Inf", "Inf"):
        return math.inf
    if text == "-Inf":
        return -math.inf
    if text == "NaN":
        return math.nan
    assert re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", text), "not a float: %r" % text
    return float(text)


def parse_exposition(text):
    """The text format, strictly: {name: {"type", "help", "samples": {labels: value}}},
    labels a sorted tuple of (name, value); AssertionError on anything the
    format does not allow (or that Prometheus would take two ways)."""
    assert text.endswith("\n"), "the last line must end with a newline"
    families, order, current = {}, [], None
    for number, line in enumerate(text[:-1].split("\n"), 1):
        where = "line %d: %r" % (number, line)
        if line.startswith("#"):
            m = re.fullmatch(r"# (HELP|TYPE) (%s) (.*)" % METRIC_NAME, line)
            if not m:
                assert not re.match(r"# (HELP|TYPE)", line), where
                continue
            kind, name, rest = m.groups()
            fam = families.setdefault(name, {"samples": {}})
            if name not in order:
                order.append(name)
            current = name
            key = kind.lower()
            assert key not in fam, "second %s for %s, %s" % (kind, name, where)
            if kind == "TYPE":
                assert rest in ("counter", "gauge", "histogram", "summary", "untyped"), where
                assert not fam["samples"], "TYPE after the samples, " + where
            else:
                assert re.fullmatch(r"(?:[^\\]|\\[\\n])*", rest), "bad escape in HELP, " + where
            fam[key] = rest
            continue
        assert line.strip(), "empty line, " + where
        m = SAMPLE.match(line)
        assert m, "not a sample, " + where
        name, labels_text, value_text = m.group(1), m.group(2) or "", m.group(3)
        # A summary's or histogram's samples have suffixes of their own.
        parts = [current + s for s in ("_sum", "_count", "_bucket")] if current and \
            families[current].get("type") in ("summary", "histogram") else []
        assert name == current or name in parts, "%s outside its family's block, %s" % (name, where)
        if name != current:
            families.setdefault(name, {"type": families[current]["type"], "samples": {}})
        labels = tuple(sorted((k, unescape(v)) for k, v in LABEL.findall(labels_text)))
        assert len({k for k, _ in labels}) == len(labels), "repeated label, " + where
        assert all(not k.startswith("__") for k, _ in labels), where
        samples = families[name]["samples"]
        assert labels not in samples, "duplicate series, " + where
        samples[labels] = parse_value(value_text)
    return families


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class NodeExporter:
    """prometheus-node-exporter on 127.0.0.1 with only the textfile collector on @directory."""

    def __init__(self, directory):
        assert NODE_EXPORTER, "prometheus-node-exporter is not installed (tools/deps.sh)"
        self.log = tempfile.TemporaryFile()
        for _ in range(5):     # another process may take the port between the probe and the bind
            self.url = "http://127.0.0.1:%d/metrics" % free_port()
            self.proc = subprocess.Popen(
                [NODE_EXPORTER, "--collector.disable-defaults", "--collector.textfile",
                 "--collector.textfile.directory=" + directory,
                 "--web.listen-address=" + self.url.split("/")[2]],
                stdout=self.log, stderr=self.log)
            if wait_for(self._listening, timeout=10) and self.proc.poll() is None:
                return
            self.stop()
        raise AssertionError("node_exporter did not start: " + self.output())

    def _listening(self):
        if self.proc.poll() is not None:
            return True
        try:
            self.scrape()
            return True
        except OSError:
            return False

    def scrape(self):
        with urllib.request.urlopen(self.url, timeout=10) as r:
            return r.read().decode()

    def output(self):
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-2000:]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
        self.proc.wait(timeout=10)

    def close(self):
        self.stop()
        self.log.close()


def zone_values(z):
    """A zone of status --json as the metrics say it, in base units."""
    v = {
        "powerallocd_zone_temperature_celsius": z["temperature_mc"] / 1000,
        "powerallocd_zone_switch_on_temperature_celsius": z["switch_on_mc"] / 1000,
        "powerallocd_zone_control_temperature_celsius": z["control_mc"] / 1000,
        "powerallocd_zone_active": 1 if z["active"] else 0,
        "powerallocd_zone_budget_watts": z["budget_mw"] / 1000,
        "powerallocd_zone_sustainable_power_watts": z["sustainable_power_mw"] / 1000,
        # null in status while the model is learning (nothing known yet, issue
        # 32, 3); the metric still has the estimate, beside its confidence.
        "powerallocd_zone_learned_sustainable_power_watts":
            None if z["learned_sustainable_power_mw"] is None else
            z["learned_sustainable_power_mw"] / 1000,
        "powerallocd_zone_model_confidence_ratio": z["model_confidence"],
        "powerallocd_zone_throttled_seconds_total": z["throttled_us"] / 1e6,
    }
    labels = {k: (("zone", z["name"]),) for k in v}
    for term, key in (("proportional", "p_mw"), ("integral", "i_mw"), ("derivative", "d_mw")):
        name = ("powerallocd_zone_pid_term_watts", term)
        v[name] = z[key] / 1000
        labels[name] = (("term", term), ("zone", z["name"]))
    for reason in REASONS:
        name = ("powerallocd_zone_limiting_reason", reason)
        v[name] = 1 if z["limiting_reason"] == reason else 0
        labels[name] = (("reason", reason), ("zone", z["name"]))
    return v, labels


def actor_values(a):
    v = {"powerallocd_actor_cooling_state": a["cooling_state"],
         "powerallocd_actor_max_cooling_state": a["max_cooling_state"]}
    if a["kind"] != "cooling_device":
        v.update({"powerallocd_actor_requested_power_watts": a["requested_mw"] / 1000,
                  "powerallocd_actor_granted_power_watts": a["granted_mw"] / 1000,
                  "powerallocd_actor_max_power_watts": a["max_mw"] / 1000})
    labels = {k: (("actor", a["name"]),) for k in v}
    for reason in REASONS:
        name = ("powerallocd_actor_limiting_reason", reason)
        v[name] = 1 if a["limiting_reason"] == reason else 0
        labels[name] = (("actor", a["name"]), ("reason", reason))
    return v, labels


def expected(status):
    """Every series the daemon must export for @status: {(name, labels): value}."""
    out = {}
    for z in status["zones"]:
        for values, labels in [zone_values(z)] + [actor_values(a) for a in
                                                  z["actors"] + z["fallback_devices"]]:
            for key, value in values.items():
                name = key[0] if isinstance(key, tuple) else key
                out[(name, labels[key])] = value
    return out


FAMILIES = ["powerallocd_zone_" + n for n in (
    "info", "temperature_celsius", "switch_on_temperature_celsius", "control_temperature_celsius",
    "active", "budget_watts", "sustainable_power_watts", "learned_sustainable_power_watts",
    "model_confidence_ratio", "throttled_seconds_total", "pid_term_watts", "limiting_reason")] + \
    ["powerallocd_actor_" + n for n in (
        "info", "requested_power_watts", "granted_power_watts", "max_power_watts",
        "cooling_state", "max_cooling_state", "limiting_reason", "external_writes_total")]

# What does not move while the zone is held steady: compared exactly.
STATIC = ("temperature_celsius", "switch_on_temperature_celsius", "control_temperature_celsius",
          "sustainable_power_watts", "max_power_watts", "max_cooling_state", "active",
          "limiting_reason")


class Running(unittest.TestCase):
    """The daemon on a tree at @temp_mc with @controller, on a private bus."""
    temp_mc = 90000         # over control: throttling, at the lowest states soon
    controller = "default"

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="powerallocd-metrics.")
        os.chmod(self.dir, 0o755)
        self.file = os.path.join(self.dir, "powerallocd.prom")
        self.bus = PrivateBus()
        self.tree = Tree()
        self.tree.write(ZONE0 + "temp", "%d\n" % self.temp_mc)
        config = (CONFIG % (self.dir, INTERVAL_MS)).replace(
            "period_ms = 50;", 'period_ms = 50; controller = "%s";' % self.controller)
        self.daemon = Daemon(self.tree, config, bus="system")
        self.exporter = None

    def tearDown(self):
        if self.exporter:
            self.exporter.close()
        self.daemon.close()
        self.tree.close()
        self.bus.close()
        shutil.rmtree(self.dir)

    def status(self):
        out = ctl("status", "--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        return json.loads(out.stdout)

    def written_since(self, inode):
        """Waits for the file to be replaced (a new inode: renamed over)."""
        self.assertTrue(wait_for(lambda: os.path.exists(self.file) and
                                 os.stat(self.file).st_ino != inode), self.daemon.logtext())


class Metrics(Running):
    def test_file_follows_the_text_format_and_our_names(self):
        self.written_since(None)
        st = os.stat(self.file)
        self.assertEqual(st.st_mode & 0o777, 0o644)     # node_exporter runs as its own user
        # Written whole and renamed: no temporary is left for the collector to see.
        with open(self.file) as f:
            text = f.read()
        families = parse_exposition(text)
        # Each in powerallocd(8)'s METRICS.
        with open(os.path.join(HERE, "..", "..", "man", "powerallocd.8.scd")) as f:
            man = f.read()
        self.assertEqual(sorted(families), sorted(FAMILIES))
        for name in families:
            self.assertIn("*%s*" % name, man)
        for name, fam in families.items():
            self.assertTrue(name.startswith("powerallocd_"), name)
            self.assertNotIn("node_thermal_zone", name)
            self.assertIn("type", fam, name)
            self.assertTrue(fam.get("help"), name)
            self.assertTrue(fam["samples"], name)
            self.assertEqual(fam["type"] == "counter", name.endswith("_total"), name)
            self.assertFalse(re.search(r"_(milli|kilo|mega)|_mw$|_mc$|_us$|_ms$|percent", name),
                             name)
            for labels in fam["samples"]:
                keys = {k for k, _ in labels}
                self.assertTrue(keys & {"zone", "actor"}, (name, labels))
        # An enum the Prometheus way: one series per reason, exactly one of them 1.
        for prefix in ("zone", "actor"):
            fam = families["powerallocd_%s_limiting_reason" % prefix]["samples"]
            owners = {dict(k)[prefix] for k in fam}
            for owner in owners:
                ones = [dict(k)["reason"] for k, v in fam.items()
                        if dict(k)[prefix] == owner and v == 1]
                zeros = [dict(k)["reason"] for k, v in fam.items()
                         if dict(k)[prefix] == owner and v == 0]
                self.assertEqual(len(ones), 1, (owner, fam))
                self.assertEqual(sorted(ones + zeros), sorted(REASONS))
        self.assertIn((("zone", ZONE),), families["powerallocd_zone_budget_watts"]["samples"])

    def test_reload_moves_the_file_and_stop_removes_it(self):
        self.written_since(None)
        elsewhere = tempfile.mkdtemp(prefix="powerallocd-metrics2.")
        try:
            with open(self.daemon.config, "w") as f:
                f.write(CONFIG % (elsewhere, INTERVAL_MS))
            self.daemon.signal(signal.SIGHUP)
            moved = os.path.join(elsewhere, "powerallocd.prom")
            self.assertTrue(wait_for(lambda: os.path.exists(moved)), self.daemon.logtext())
            self.assertFalse(os.path.exists(self.file))
            # Without metrics_dir: none written, the last one removed.
            with open(self.daemon.config, "w") as f:
                f.write(CONFIG.replace('metrics_dir = "%s";', "") % INTERVAL_MS)
            self.daemon.signal(signal.SIGHUP)
            self.assertTrue(wait_for(lambda: not os.path.exists(moved)), self.daemon.logtext())
            with open(self.daemon.config, "w") as f:
                f.write(CONFIG % (elsewhere, INTERVAL_MS))
            self.daemon.signal(signal.SIGHUP)
            self.assertTrue(wait_for(lambda: os.path.exists(moved)), self.daemon.logtext())
            self.daemon.signal(signal.SIGTERM)
            self.assertEqual(self.daemon.wait(), 0)
            self.assertEqual(os.listdir(elsewhere), [])
        finally:
            shutil.rmtree(elsewhere)

    def test_unwritable_directory_is_logged_once(self):
        self.written_since(None)
        with open(self.daemon.config, "w") as f:
            f.write(CONFIG % (os.path.join(self.dir, "missing"), INTERVAL_MS))
        self.daemon.signal(signal.SIGHUP)
        said = "cannot write the metrics: No such file or directory"
        self.assertTrue(wait_for(lambda: said in self.daemon.logtext()), self.daemon.logtext())
        time.sleep(5 * INTERVAL_MS / 1000)
        self.assertEqual(self.daemon.logtext().count(said), 1)
        os.mkdir(os.path.join(self.dir, "missing"))
        self.assertTrue(wait_for(lambda: "metrics written again" in self.daemon.logtext()))
        self.assertIsNone(self.daemon.proc.poll())


class Scrape(Running):
    """The kernel's law 1 °C under control: a budget of the sustainable
    power plus 1 °C of k_pu, under what the actors request, that stays."""
    temp_mc = 74000
    controller = "kernel"

    def test_node_exporter_serves_what_status_shows(self):
        self.written_since(None)
        self.exporter = NodeExporter(self.dir)
        # Steady: the load stands still (the temperature already does).
        self.tree.hold.set()
        time.sleep(0.3)
        before = self.status()
        zone = before["zones"][0]
        # Nothing is 0 that a wrong scale or a swapped field could hide behind.
        self.assertEqual(zone["limiting_reason"], "temperature")
        self.assertGreater(zone["p_mw"], 0)
        self.assertGreater(zone["budget_mw"], zone["sustainable_power_mw"])
        self.assertEqual([a["limiting_reason"] for a in zone["actors"]], ["none", "temperature"])
        self.assertLess(zone["actors"][1]["granted_mw"], zone["actors"][1]["requested_mw"])
        self.written_since(os.stat(self.file).st_ino)
        scraped = parse_exposition(self.exporter.scrape())
        after = self.status()
        # node_exporter's own parser took the file.
        errors = scraped["node_textfile_scrape_error"]["samples"]
        self.assertEqual(list(errors.values()), [0.0], self.exporter.output())
        want_before, want_after = expected(before), expected(after)
        self.assertEqual(want_before.keys(), want_after.keys())
        ours = {(name, labels): v for name, fam in scraped.items()
                if name.startswith("powerallocd_") for labels, v in fam["samples"].items()}
        for key, low in want_before.items():
            self.assertIn(key, ours, sorted(ours))
            high = want_after[key]
            if low is None or high is None:
                continue    # status shows no value to compare with
            low, high = min(low, high), max(low, high)
            value = ours[key]
            if key[0].endswith(STATIC):
                self.assertEqual(low, high, key)
            self.assertTrue(low - 1e-9 <= value <= high + 1e-9, (key, low, value, high))
        # The series not in status --json: each zone's and actor's info.
        info = scraped["powerallocd_zone_info"]["samples"]
        self.assertEqual(list(info), [(("controller", "kernel"), ("sensor", "thermal_zone0"),
                                       ("zone", ZONE))])
        actors = {dict(k)["actor"]: dict(k)["kind"]
                  for k in scraped["powerallocd_actor_info"]["samples"]}
        self.assertEqual(actors, {"cpufreq-cpu0": "cpufreq", "cpufreq-cpu4": "cpufreq",
                                  "pwm-fan": "cooling_device"})
        self.assertGreater(ours[("powerallocd_zone_throttled_seconds_total", (("zone", ZONE),))],
                           0)
        print("metrics: %d of our series scraped, %d compared with status --json" %
              (len(ours), len(want_before)), file=sys.stderr)


# The little cluster metered on the INA3221's VDD_CPU_L rail (rk3399-meters), the big one not.
METERED_CONFIG = """
idle_poll_ms = 200;
metrics_dir = "%s";
metrics_interval_ms = %d;
zones = ( { name = "soc"; sensor = "cpu-thermal"; sustainable_power = 1500; period_ms = 50;
  actors = ( { type = "cpufreq"; cpus = "0-3";
               power_meter = { hwmon = "ina3221"; label = "VDD_CPU_L"; }; },
             { type = "cpufreq"; cpus = "4-5"; } ); } );
"""
METER_FAMILIES = ["powerallocd_actor_" + n for n in (
    "measured_power_watts", "power_scale_ratio", "power_scale_offset_watts",
    "power_scale_confidence_ratio", "table_power_watts")]
RAIL = "sys/class/hwmon/hwmon0/curr2_input"     # VDD_CPU_L: 850 mV x 400 mA = 340 mW


class Metered(unittest.TestCase):
    """A meter's reading and the calibration of its actor's table, the same
    on D-Bus, in status (table and --json), the metrics file and the trace
    (issue 35, 3); the meter calibrates the little cluster's table from the
    start, and its CPUs, held idle, give windows under 10 mW of table,
    which move nothing: calibrating, scale 1, confidence 0 whenever each is
    read, its table's power 0 mW beside the 340 measured (busy, the table
    says 716 mW and the first window, a second in, would move the scale
    between one reading and the next).  Then the rail stands still, read so
    while the CPUs are idle, and the CPUs turn busy (a meter that stands
    still is stopped only where its actor's table power moved: here from 0
    to 716 mW): the meter is dropped as stopped, its calibration with it,
    and each says so."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="powerallocd-metrics.")
        os.chmod(self.dir, 0o755)
        self.file = os.path.join(self.dir, "powerallocd.prom")
        self.bus = PrivateBus()
        self.tree = Tree("rk3399-meters")
        self.tree.idle.set()
        self.tree.write(ZONE0 + "temp", "90000\n")
        # The rail's current moves by a milliampere: a meter that holds one value stops.
        self.moving = threading.Event()
        self.moving.set()
        self.stood = threading.Event()  # the mover wrote its last value
        self.done = threading.Event()
        self.mover = threading.Thread(target=self._move, daemon=True)
        self.mover.start()
        self.daemon = Daemon(self.tree, METERED_CONFIG % (self.dir, INTERVAL_MS), bus="system")

    def _move(self):
        k = 0
        while not self.done.is_set():
            if self.moving.is_set():
                k += 1
                self.tree.write(RAIL, "%d\n" % (400 + k % 2))
            else:
                self.stood.set()
            time.sleep(0.01)

    def tearDown(self):
        self.done.set()
        self.mover.join()
        self.daemon.close()
        self.tree.close()
        self.bus.close()
        shutil.rmtree(self.dir)

    def actors(self):
        out = ctl("status", "--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        return {a["name"]: a for a in json.loads(out.stdout)["zones"][0]["actors"]}

    def meter_state(self):
        """The little cluster's MeterState once the daemon is on the bus, else None."""
        out = ctl("status", "--json")
        if out.returncode != 0:
            return None
        return json.loads(out.stdout)["zones"][0]["actors"][0]["meter_state"]

    def little_rows(self):
        """The little cluster's whole rows of the trace so far (the last may be half written)."""
        with open(self.daemon.trace) as f:
            return [r for r in csv.DictReader(f)
                    if r["actor"] == "cpufreq-cpu0" and r["table_mw"] is not None]

    def metrics(self):
        """The metrics file once written anew."""
        inode = os.stat(self.file).st_ino if os.path.exists(self.file) else None
        self.assertTrue(wait_for(lambda: os.path.exists(self.file) and
                                 os.stat(self.file).st_ino != inode), self.daemon.logtext())
        with open(self.file) as f:
            return parse_exposition(f.read())

    def test_reading_then_dropped(self):
        self.assertTrue(wait_for(lambda: self.meter_state() == "reading", timeout=20),
                        self.daemon.logtext())
        little, big = self.actors()["cpufreq-cpu0"], self.actors()["cpufreq-cpu4"]
        self.assertIn(little["measured_mw"], (340, 341))
        self.assertIn('hwmon "ina3221" label "VDD_CPU_L"', little["meter"])
        self.assertEqual((little["meter_fault"], little["calibrating"], little["power_scale"],
                          little["power_scale_offset_mw"], little["power_scale_confidence"],
                          little["table_mw"]), ("", True, 1.0, 0.0, 0.0, 0))
        # The unmetered big cluster's table power is its request.
        self.assertEqual(big["table_mw"], big["requested_mw"])
        self.assertEqual((big["meter"], big["meter_state"], big["measured_mw"],
                          big["power_scale"]), ("", "none", None, 1.0))
        # D-Bus itself: the types powerallocd(8) gives.
        out = busctl("--json=short", "get-property", "org.powerallocd1",
                     "/org/powerallocd1/actor/0", "org.powerallocd1.Actor", "MeasuredPower",
                     "MeterState", "PowerScale", "PowerScaleConfidence", "TablePower")
        self.assertEqual(out.returncode, 0, out.stderr)
        got = [json.loads(line) for line in out.stdout.splitlines()]
        self.assertEqual([g["type"] for g in got], ["u", "s", "d", "d", "u"])
        self.assertIn(got[0]["data"], (340, 341))
        self.assertEqual(got[1:], [{"type": "s", "data": "reading"}, {"type": "d", "data": 1.0},
                                   {"type": "d", "data": 0.0}, {"type": "u", "data": 0}])
        table = ctl("status").stdout
        self.assertRegex(table,
                         r"\n  cpufreq-cpu0         measured 34[01], table 0 mW \(calibrating\)\n")
        self.assertNotIn("cpufreq-cpu4         measured", table)
        families = self.metrics()
        with open(os.path.join(HERE, "..", "..", "man", "powerallocd.8.scd")) as f:
            man = f.read()
        for name in METER_FAMILIES:
            self.assertIn("*%s*" % name, man)
            self.assertEqual(list(families[name]["samples"]), [(("actor", "cpufreq-cpu0"),)], name)
        self.assertIn(families[METER_FAMILIES[0]]["samples"][(("actor", "cpufreq-cpu0"),)],
                      (0.34, 0.341))
        self.assertEqual([families[n]["samples"][(("actor", "cpufreq-cpu0"),)]
                          for n in METER_FAMILIES[1:]], [1, 0, 0, 0])
        with open(self.daemon.trace) as f:
            rows = list(csv.DictReader(f))
        measured = {r["measured_mw"] for r in rows if r["actor"] == "cpufreq-cpu0"}
        self.assertTrue(measured & {"340", "341"}, measured)
        self.assertEqual({(r["measured_mw"], r["power_scale"], r["power_scale_confidence"])
                          for r in rows if r["actor"] == "cpufreq-cpu4"}, {("", "1.0000", "0.000")})
        # table_mw, last: the little cluster's table power (idle: 0), the big one's its request.
        self.assertEqual(list(rows[0])[-1], "table_mw")
        self.assertEqual({r["table_mw"] for r in rows if r["actor"] == "cpufreq-cpu0"}, {"0"})
        self.assertTrue(all(r["table_mw"] == r["req_mw"] for r in rows
                            if r["actor"] == "cpufreq-cpu4"))
        # The rail stands still, and the daemon reads it so while the CPUs are idle for
        # 3.5 s of its trace (a meter is judged from its model's mean once that has run
        # 3 s: METER_MODEL_SETTLE_US), then the CPUs turn busy: stopped after 3 s of the
        # busy table's power, dropped, and said so everywhere.
        self.moving.clear()
        self.assertTrue(self.stood.wait(5))
        still_ms = int(self.little_rows()[-1]["time_ms"])
        self.assertTrue(wait_for(lambda: int(self.little_rows()[-1]["time_ms"]) >= still_ms + 3500,
                                 timeout=30), self.daemon.logtext())
        self.assertEqual({r["table_mw"] for r in self.little_rows()}, {"0"})
        self.tree.idle.clear()
        self.assertTrue(wait_for(lambda: self.meter_state() == "dropped", timeout=20),
                        self.daemon.logtext())
        little = self.actors()["cpufreq-cpu0"]
        self.assertEqual((little["meter"], little["meter_fault"], little["measured_mw"],
                          little["calibrating"], little["power_scale"]),
                         ("", "stopped", None, False, 1.0))
        self.assertIn("\n  cpufreq-cpu0         meter dropped: stopped; from its power table\n",
                      ctl("status").stdout)
        families = self.metrics()
        self.assertNotIn(METER_FAMILIES[0], families)
        self.assertEqual(families[METER_FAMILIES[1]]["samples"], {(("actor", "cpufreq-cpu0"),): 1})
        # Its table's power still shown: the busy cluster's, 716 mW at its top OPP.
        self.assertEqual(list(families[METER_FAMILIES[4]]["samples"]),
                         [(("actor", "cpufreq-cpu0"),)])
        table_w = families[METER_FAMILIES[4]]["samples"][(("actor", "cpufreq-cpu0"),)]
        self.assertGreater(table_w, 0.5)


class Parser(unittest.TestCase):
    """The strict reader refuses what the text format does not allow."""

    def test_refusals(self):
        good = '# HELP a_total A.\n# TYPE a_total counter\na_total{x="1"} 2\n'
        self.assertEqual(parse_exposition(good)["a_total"]["samples"], {(("x", "1"),): 2.0})
        for bad in (good[:-1],                                          # no final newline
                    good + 'a_total{x="1"} 3\n',                        # duplicate series
                    good + '# TYPE a_total gauge\n',                    # second TYPE
                    good.replace('"1"', '"1\\t"'),                      # bad escape
                    good.replace("} 2", "} two"),                       # not a number
                    good + "# TYPE b gauge\nb 1\na_total{x=\"2\"} 1\n",  # family split
                    good.replace('x="1"', 'x="1",x="2"'),               # repeated label
                    good + "\n"):                                       # empty line
            with self.assertRaises(AssertionError, msg=bad):
                parse_exposition(bad)


if __name__ == "__main__":
    unittest.main(verbosity=2)

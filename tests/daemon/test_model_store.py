#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The learnt thermal models kept between runs (daemon/model_store.c).

FixtureTree: the daemon on the RK3399 fixture tree (fast periods, so that
its model fits blocks within a second): saved by the timer, at stop and at
reload; resumed; discarded when the power table, the actors or the control
temperature changed, when the file is corrupt, in another format or a
link, or when its confidence is under the one at which the controller
would take it; no persistence without a usable directory.

Simulated: the real daemon against the simulated RockPro64, configured at
half its true sustainable power: it learns the truth with confidence,
stops, and the next run has it from its first periods (trace and
powerallocctl status --json); with an OPP's voltage changed in the tree the
saved model is discarded.

usage: test_model_store.py [FixtureTree|Simulated] (POWERALLOCD, POWERALLOCCTL,
POWERALLOCD_SIM name the binaries)
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_daemon import POWERALLOCD, ZONE0, Daemon, Tree, wait_for  # noqa: E402

POWERALLOCD_SIM = os.environ.get("POWERALLOCD_SIM", "build/tools/simulator/powerallocd-sim")
# A cluster's OPP in the fixture's and the simulator's device tree: 4 bytes, big-endian.
OPP_MICROVOLT = "sys/firmware/devicetree/base/opp-table-0/opp02/opp-microvolt"

# Periods of 10 ms: the model's blocks are 0.5 s, the first fit after 1 s.
FAST_CONFIG = """
idle_poll_ms = 200;
zones = ( { name = "cpu"; sensor = "cpu-thermal"; sustainable_power = 1500; period_ms = 10;
  %s
  actors = ( { type = "cpufreq"; cpus = "0-3"; }%s ); } );
"""
BOTH = FAST_CONFIG % ("", ', { type = "cpufreq"; cpus = "4-5"; }')
LITTLE_ONLY = FAST_CONFIG % ("", "")
COOLER = FAST_CONFIG % ("control_temp = 70000; switch_on_temp = 60000;",
                        ', { type = "cpufreq"; cpus = "4-5"; }')


def keys(path):
    """The "key = value" lines of a saved model."""
    with open(path) as f:
        return dict(line.split(" = ", 1) for line in f.read().splitlines()
                    if line and not line.startswith("#"))


def bump_opp(tree_dir):
    """One OPP of the first cluster 25 mV higher (its first cell: the
    target voltage): its power table changes."""
    path = os.path.join(tree_dir, OPP_MICROVOLT)
    with open(path, "rb") as f:
        cells = f.read()
    uv = int.from_bytes(cells[:4], "big")
    with open(path, "r+b") as f:
        f.write((uv + 25000).to_bytes(4, "big"))


class FixtureTree(unittest.TestCase):
    def setUp(self):
        self.models = tempfile.mkdtemp(prefix="powerallocd-models.")
        self.file = os.path.join(self.models, "cpu.model")
        self.tree = Tree()
        self.tree.write(ZONE0 + "temp", "80000\n")
        self.daemon = None

    def tearDown(self):
        if self.daemon:
            self.daemon.close()
        self.tree.close()
        shutil.rmtree(self.models)

    def start(self, config=BOTH, *args):
        if self.daemon:
            self.daemon.close()
        self.daemon = Daemon(self.tree, config, "--log-level", "info", *args, models=self.models)
        self.assertTrue(wait_for(lambda: self.daemon.notified("READY=1")), self.daemon.logtext())
        return self.daemon

    def stop(self):
        self.daemon.signal(signal.SIGTERM)
        self.assertEqual(self.daemon.wait(), 0, self.daemon.logtext())

    def said(self, text):
        return wait_for(lambda: text in self.daemon.logtext())

    def learn(self, config=BOTH):
        """A run that saved a model from its timer (every second), then stopped."""
        self.start(config, "--model-save-interval", "1")
        self.assertTrue(wait_for(lambda: os.path.exists(self.file), 10), self.daemon.logtext())
        # Written while it ran: the timer, not the stop.
        self.assertIsNone(self.daemon.proc.poll())
        self.stop()
        saved = keys(self.file)
        self.assertEqual(saved["format"], "1")
        self.assertEqual(saved["sensor"], "cpu-thermal")
        self.assertEqual(saved["period_ms"], "10")
        self.assertGreater(int(saved["updates"]), 0)
        return saved

    def test_saved_and_resumed(self):
        saved = self.learn()
        self.assertEqual(os.stat(self.file).st_mode & 0o777, 0o600)
        with open(self.file) as f:
            mw = int(re.search(r"sustainable power (\d+) mW", f.read()).group(1))
        self.start(BOTH, "--model-save-interval", "1")
        self.assertTrue(self.said("zone cpu: resumed the thermal model saved in %s: "
                                  "sustainable power " % self.file), self.daemon.logtext())
        line = re.search(r"resumed .*sustainable power (\d+) mW, time constant \d+ s, "
                         r"confidence [\d.]+", self.daemon.logtext())
        self.assertLessEqual(abs(int(line.group(1)) - mw), 1, line.group(0))
        # It goes on from where it was: more blocks than the first run's.
        self.assertTrue(wait_for(lambda: int(keys(self.file)["updates"]) >
                                 int(saved["updates"]), 10))
        self.stop()
        self.assertEqual(len(re.findall("resumed", self.daemon.logtext())), 1)

    def test_unconfident_model_not_resumed(self):
        """A model whose information is a thousandth of a learnt one's is
        under the confidence at which the controller would take it: said at
        info level and removed, not resumed (it was, with its 0 mW)."""
        self.learn()
        with open(self.file) as f:
            lines = f.read().splitlines()
        with open(self.file, "w") as f:
            for line in lines:
                key, _, values = line.partition(" = ")
                if key in ("info", "rhs"):
                    line = key + " = " + " ".join(repr(float(v) / 1000) for v in values.split())
                f.write(line + "\n")
        self.start()
        said = re.compile(r"info: zone cpu: the thermal model %s discarded \(confidence "
                          r"0\.0[0-4]\d, under the 0\.05 at which it would be used\); learning "
                          r"anew" % re.escape(self.file))
        self.assertTrue(wait_for(lambda: said.search(self.daemon.logtext())),
                        self.daemon.logtext())
        self.assertFalse(os.path.exists(self.file))
        self.assertNotIn("resumed", self.daemon.logtext())

    def test_power_table_changed(self):
        self.learn()
        bump_opp(self.tree.dir)
        self.start()
        self.assertTrue(self.said("zone cpu: the thermal model %s discarded (power table changed); "
                                  "learning anew" % self.file), self.daemon.logtext())
        self.assertFalse(os.path.exists(self.file))
        self.assertNotIn("resumed", self.daemon.logtext())

    def test_actors_and_control_changed(self):
        self.learn()
        self.start(LITTLE_ONLY)
        self.assertTrue(self.said("discarded (actors changed)"), self.daemon.logtext())
        self.stop()
        self.learn()
        self.start(COOLER)
        self.assertTrue(self.said("discarded (control temperature changed)"),
                        self.daemon.logtext())

    def test_reload(self):
        """A reload that leaves the zone as it was carries its model on and
        writes nothing (no timer here); one that changes its actors ends
        that model: saved, then discarded for the new actors, with the
        reason."""
        self.start(BOTH, "--model-save-interval", "0")
        time.sleep(1.5)
        self.daemon.signal(signal.SIGHUP)
        self.assertTrue(self.said("reloaded"))
        self.assertFalse(os.path.exists(self.file))
        with open(self.daemon.config, "w") as f:
            f.write(LITTLE_ONLY)
        self.daemon.signal(signal.SIGHUP)
        self.assertTrue(self.said("discarded (actors changed)"), self.daemon.logtext())
        self.assertFalse(os.path.exists(self.file))
        time.sleep(1.5)     # a block or two of the new actors' model
        self.stop()
        self.assertTrue(os.path.exists(self.file))    # saved at stop

    def test_corrupt_files_refused(self):
        """Garbage, a truncated file, another format and a link: each said and
        removed, the daemon runs and saves a good model in its place."""
        self.learn()
        with open(self.file) as f:
            good = f.read()
        target = os.path.join(self.models, "target")
        with open(target, "w") as f:
            f.write(good)
        for text, why in (("garbage\n", "line 1: no \"key = value\""),
                          ("\x7fELF\x02\x01\x01\x00\x00", "not text"),
                          (good[:good.index("\ninfo")], "no \"info\" line"),
                          (good.replace("format = 1", "format = 7"),
                           "format 7, not this version's 1"),
                          (good.replace("noise_var = ", "noise_var = -"), "values out of range"),
                          (None, "not a regular file")):
            if text is None:
                os.unlink(self.file)
                os.symlink(target, self.file)
            else:
                with open(self.file, "w") as f:
                    f.write(text)
            self.start(BOTH, "--model-save-interval", "1")
            self.assertTrue(self.said("%s discarded (%s); learning anew" % (self.file, why)),
                            self.daemon.logtext())
            self.assertFalse(os.path.islink(self.file))
            self.assertTrue(wait_for(lambda: os.path.isfile(self.file), 10))
            self.stop()
            self.assertEqual(keys(self.file)["format"], "1")
        with open(target) as f:
            self.assertEqual(f.read(), good)    # the link was not written through

    def test_no_directory(self):
        """A missing directory, a file instead, or none at all: said once,
        nothing kept, the daemon runs."""
        missing = os.path.join(self.models, "missing")
        not_dir = os.path.join(self.models, "file")
        open(not_dir, "w").close()
        for where, said in ((missing, "%s: No such file or directory" % missing),
                            (not_dir, "%s: Not a directory" % not_dir),
                            ("", "no state directory")):
            self.start(BOTH, "--state-directory", where, "--model-save-interval", "1")
            self.assertTrue(self.said(said), self.daemon.logtext())
            time.sleep(1.5)
            self.daemon.signal(signal.SIGHUP)
            self.assertTrue(self.said("reloaded"))
            self.stop()
            self.assertEqual(self.daemon.logtext().count("thermal models are"), 1,
                             self.daemon.logtext())
            self.assertEqual(sorted(os.listdir(self.models)), ["file"])

    def test_bad_interval_refused(self):
        for value in ("-1", "x", "604801"):
            out = subprocess.run([POWERALLOCD, "--model-save-interval", value],
                                 capture_output=True, text=True, timeout=30)
            self.assertEqual(out.returncode, 2, value)
            self.assertIn("--model-save-interval", out.stderr)


def simulate(state_dir, duration, wrapper_lines="", prior=0.5, during=None):
    """The simulated RockPro64 configured at @prior x its true sustainable
    power, its models in @state_dir; @wrapper_lines run before the daemon
    starts (in $UMOCKDEV_DIR, the tree); @during(tree) is called once the
    daemon serves its bus.  Returns (summary, trace rows, daemon log)."""
    work = tempfile.mkdtemp()
    wrapper = os.path.join(work, "powerallocd")
    with open(wrapper, "w") as f:
        f.write("#!/bin/sh\n%s\nexec %s \"$@\"\n" % (wrapper_lines, os.path.abspath(POWERALLOCD)))
    os.chmod(wrapper, 0o755)
    sim = subprocess.Popen([POWERALLOCD_SIM, "--speed", "10", "--duration", str(duration),
                            "--sustainable-power", str(prior), "--state-directory", state_dir,
                            "--powerallocd", wrapper], stdout=subprocess.PIPE, text=True)
    trace = log = None
    try:
        tree = next(line.split()[1] for line in sim.stdout if line.startswith("tree: "))
        # Open them while they exist: the simulator removes its tree at the end.
        while sim.poll() is None and (trace is None or log is None):
            try:
                trace = trace or open(os.path.join(tree, "trace.csv"))
                log = log or open(os.path.join(tree, "powerallocd.log"))
            except FileNotFoundError:
                time.sleep(0.02)
        if during:
            during(tree)
        out = sim.communicate(timeout=120)[0]
        rows = [r.split(",") for r in trace.read().splitlines()]
        return out, rows, log.read()
    finally:
        sim.kill()
        sim.wait()
        for f in (trace, log):
            if f:
                f.close()
        shutil.rmtree(work)


class Simulated(unittest.TestCase):
    """Configured at 1100 mW, the simulated RockPro64 really sustains 2.2 W."""

    TRUTH_MW = 2200

    def setUp(self):
        self.models = tempfile.mkdtemp(prefix="powerallocd-models.")
        self.file = os.path.join(self.models, "soc.model")

    def tearDown(self):
        shutil.rmtree(self.models)

    def column(self, rows, name, row=-1):
        return rows[row][rows[0].index(name)]

    def test_learn_stop_resume_discard(self):
        # Learnt: 2203 mW at confidence 0.99 after 300 s simulated (measured).
        out, rows, log = simulate(self.models, 300)
        self.assertIn("restored: yes", out)
        self.assertEqual(int(self.column(rows, "learned_sp_mw", 1)), 1100)
        saved = keys(self.file)
        with open(self.file) as f:
            head = f.read()
        m = re.search(r"sustainable power (\d+) mW, time constant [\d.]+ s, confidence ([\d.]+)",
                      head)
        learnt_mw, confidence = int(m.group(1)), float(m.group(2))
        self.assertLess(abs(learnt_mw / self.TRUTH_MW - 1), 0.05, head)
        self.assertGreater(confidence, 0.9, head)
        self.assertEqual(saved["period_ms"], "10")     # 100 ms at 10x

        # Resumed: from the first period, on the bus and in the trace.
        seen = {}

        def query(tree):
            from test_bus import ctl
            for _ in range(500):
                out = ctl("status", "--json")
                if out.returncode == 0:
                    seen.update(json.loads(out.stdout)["zones"][0])
                    return
                time.sleep(0.01)

        from test_bus import PrivateBus
        bus = PrivateBus()
        try:
            out, rows, log = simulate(self.models, 30, during=query)
        finally:
            bus.close()
        self.assertIn("restored: yes", out)
        self.assertIn("zone soc: resumed the thermal model saved in %s: sustainable power"
                      % self.file, log)
        first_mw = int(self.column(rows, "learned_sp_mw", 1))
        self.assertLess(abs(first_mw / learnt_mw - 1), 0.01, rows[1])
        self.assertGreater(float(self.column(rows, "model_confidence", 1)), 0.9, rows[1])
        print("saved %d mW at %.3f; resumed: first trace row %d mW at %s, first status "
              "--json %d mW at %.3f" % (learnt_mw, confidence, first_mw,
                                         self.column(rows, "model_confidence", 1),
                                         seen["learned_sustainable_power_mw"],
                                         seen["model_confidence"]), file=sys.stderr)
        self.assertLess(abs(seen["learned_sustainable_power_mw"] / learnt_mw - 1), 0.05, seen)
        self.assertGreater(seen["model_confidence"], 0.9, seen)

        # Another OPP voltage in the tree: another power table, the model discarded.
        out, rows, log = simulate(self.models, 10, "python3 %s --bump-opp \"$UMOCKDEV_DIR\""
                                  % os.path.abspath(__file__))
        self.assertIn("restored: yes", out)
        self.assertIn("zone soc: the thermal model %s discarded (power table changed); "
                      "learning anew" % self.file, log)
        self.assertNotIn("resumed", log)
        self.assertEqual(int(self.column(rows, "learned_sp_mw", 1)), 1100)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--bump-opp"]:
        bump_opp(sys.argv[2])   # the simulated test's wrapper, on its tree
    else:
        unittest.main(verbosity=2)

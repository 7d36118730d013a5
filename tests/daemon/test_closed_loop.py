#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Closed loop: the real powerallocd against the simulated RockPro64, every
workload at 10x real time, and the other boards' steady load.  The temperature must be held near control, the
work delivered must be reported, and the daemon must restore on exit.

usage: test_closed_loop.py (POWERALLOCD_SIM names the simulator)
"""
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

import test_model_store

SIM = os.environ.get("POWERALLOCD_SIM", "build/tools/simulator/powerallocd-sim")
POWERALLOCD = os.path.abspath(os.environ.get("POWERALLOCD", "build/daemon/powerallocd"))


# The request division as the kernel has it: a cluster asks for what it uses.
KERNEL_REQUEST = "saturated_request = false;"

SIMULATOR_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools",
                             "simulator")


def simulate(workload, controller="default", duration=60, fault=None, board=None,
             division=None, sim=None, zone_keys=None, trip_below_mc=None,
             trip_above_mc=None):
    sim = sim or (os.path.join(SIMULATOR_DIR, board + ".sim") if board else None)
    out = subprocess.run([SIM, "--quiet", "--speed", "10", "--duration", str(duration),
                          "--workload", workload, "--controller", controller] +
                         (["--fault", fault] if fault else []) +
                         (["--sim", sim] if sim else []) +
                         (["--division", division] if division else []) +
                         (["--zone-keys", zone_keys] if zone_keys else []) +
                         (["--trip-below", str(trip_below_mc)] if trip_below_mc else []) +
                         (["--trip-above", str(trip_above_mc)] if trip_above_mc else []),
                         capture_output=True, text=True, timeout=120)
    summary = {}
    for key, pattern in (("max", r"maximum temperature\s+([\d.]+)"),
                         ("overshoot", r"max overshoot\s+([\d.]+)"),
                         ("above", r"time above control\s+([\d.]+)"),
                         ("error", r"mean \|error\|, second half\s+([\d.]+)"),
                         ("work", r"work delivered\s+([\d.]+)"),
                         ("fan", r"fan, deepest state\s+(\d+)"),
                         ("gap", r"longest gap, active periods\s+(\d+) ms"),
                         ("lag", r"longest lag, simulator\s+(\d+) ms")):
        m = re.search(pattern, out.stdout)
        summary[key] = float(m.group(1)) if m else None
    summary["restored"] = "restored: yes" in out.stdout
    summary["returncode"] = out.returncode
    summary["output"] = out.stdout + out.stderr
    return summary


class ClosedLoop(unittest.TestCase):
    def check(self, s, max_overshoot):
        self.assertEqual(s["returncode"], 0, s["output"])
        self.assertTrue(s["restored"], s["output"])
        self.assertLess(s["overshoot"], max_overshoot, s["output"])
        self.assertGreater(s["work"], 20, s["output"])

    def test_steady_holds_control(self):
        s = simulate("steady")
        self.check(s, 1.0)
        self.assertLess(s["error"], 1.5, s["output"])
        # Full load needs throttling: without it the die would pass 100 °C.
        self.assertLess(s["work"], 95, s["output"])
        # The daemon ran its periods (100 ms simulated): the simulator read
        # them back from the trace, none missing for long.
        self.assertGreaterEqual(s["gap"], 100, s["output"])
        self.assertLess(s["gap"], 3000, s["output"])
        # Nothing held the simulator up for two simulated seconds (0.2 s of
        # real time at 10x; 1.0 s was seen with two builds beside it).
        self.assertLess(s["lag"], 2000, s["output"])

    def test_lag_is_reported(self):
        # A simulator held up (here stopped for 0.3 s, 3 s simulated at 10x)
        # steps unpaced to catch up; the summary says for how long.
        sim = subprocess.Popen([SIM, "--speed", "10", "--duration", "30",
                                "--workload", "steady"], stdout=subprocess.PIPE, text=True)
        try:
            # Stopped once the plant's clock runs (after the daemon's first
            # period, which a loaded machine may delay past any fixed sleep).
            for line in sim.stdout:
                if re.match(r"\s*2 s\b", line):
                    break
            sim.send_signal(signal.SIGSTOP)
            time.sleep(0.3)
            sim.send_signal(signal.SIGCONT)
            out = sim.communicate(timeout=60)[0]
        finally:
            sim.kill()
            sim.wait()
        m = re.search(r"longest lag, simulator\s+(\d+) ms", out)
        self.assertIsNotNone(m, out)
        self.assertGreaterEqual(int(m.group(1)), 2500, out)
        self.assertIn("restored: yes", out)

    def test_burst(self):
        self.check(simulate("burst"), 2.0)

    def test_shift(self):
        self.check(simulate("shift"), 2.0)

    def test_ambient_step(self):
        self.check(simulate("ambient-step", duration=90), 3.0)

    def test_kernel_controller(self):
        self.check(simulate("steady", controller="kernel"), 1.5)

    def test_step_wise_trip_moved(self):
        """--trip-below and --trip-above move the daemon's trip, not the
        yardstick: step_wise acting 1 °C under control peaks about 1 °C lower
        (74.13 against 75.13 °C, 0.98 against 0.03 °C mean error, in 60 s
        measured) and, 1 °C over it, about 1 °C higher (76.13 °C, 0.99 °C
        mean error), with the overshoot and error still measured against
        control.  Half a degree is the margin: on a loaded 2-core machine late
        periods raised the lower run's peak to 74.43 against 75.12 °C."""
        at_trip = simulate("steady", controller="step_wise")
        under = simulate("steady", controller="step_wise", trip_below_mc=1000)
        over = simulate("steady", controller="step_wise", trip_above_mc=1000)
        for s in (at_trip, under, over):
            self.assertEqual(s["returncode"], 0, s["output"])
            self.assertTrue(s["restored"], s["output"])
        self.assertIn("the daemon's control        74.00", under["output"])
        self.assertLess(under["max"], at_trip["max"] - 0.5, under["output"])
        self.assertEqual(under["overshoot"], 0.0, under["output"])
        self.assertGreater(under["error"], at_trip["error"] + 0.5, under["output"])
        self.assertIn("the daemon's control        76.00", over["output"])
        self.assertGreater(over["max"], at_trip["max"] + 0.5, over["output"])
        self.assertGreater(over["overshoot"], 0.7, over["output"])
        self.assertGreater(over["error"], at_trip["error"] + 0.5, over["output"])

    def test_trip_offset_refused(self):
        """A second trip option is an error, not a silent replacement, and so
        is a value out of 0-5000 m°C."""
        for args in (["--trip-below", "100", "--trip-above", "100"], ["--trip-above", "-5"],
                     ["--trip-below", "5001"], ["--trip-above", "1x"]):
            out = subprocess.run([SIM, "--quiet", "--duration", "1"] + args,
                                 capture_output=True, text=True, timeout=30)
            self.assertNotEqual(out.returncode, 0, args)
            self.assertIn("--trip-", out.stderr, args)


class OtherBoards(unittest.TestCase):
    """The Odroid-XU4 (4+4 big.LITTLE) and the ROCK 5B (three clusters)."""

    def steady_run(self, board, **options):
        """A steady run that ran, restored and stayed within 1 °C of control."""
        s = simulate("steady", board=board, **options)
        self.assertEqual(s["returncode"], 0, s["output"])
        self.assertTrue(s["restored"], s["output"])
        self.assertLess(s["overshoot"], 1.0, s["output"])
        return s

    def check_steady(self, board):
        s = self.steady_run(board)
        self.assertLess(s["error"], 1.5, s["output"])
        self.assertLess(s["work"], 95, s["output"])    # it had to throttle
        return s

    def test_rock5b_steady(self):
        self.check_steady("rk3588-rock5b")

    def test_xu4_efficiency_beats_request(self):
        """On a 4+4 big.LITTLE the little cores do more work per mW: dividing
        by efficiency delivers clearly more than dividing by request as the
        kernel does (82.8 against 70.6-79 % measured).  Much of the request
        division's loss is budget left unspent between OPPs: with
        dither_grants the margin was 1.5 points in 120 s runs (81.0 against
        79.5 %)."""
        efficiency = self.check_steady("odroid-xu4")
        request = simulate("steady", board="odroid-xu4", division="request",
                           zone_keys=KERNEL_REQUEST)
        self.assertTrue(request["restored"], request["output"])
        self.assertGreater(efficiency["work"], request["work"] + 2, request["output"])

    def test_xu4_saturated_request(self):
        """The kernel's request is what a cluster uses now, so the XU4's
        A7s, throttled to their lowest OPP and busy all the time, ask for
        little, get little and stay there.  With saturated_request (the
        default) each saturated CPU asks for the next OPP and the cluster
        climbs: 84.0 against 75.9 % of the work in 60 s measured."""
        climbing = self.steady_run("odroid-xu4", division="request")
        kernel = self.steady_run("odroid-xu4", division="request", zone_keys=KERNEL_REQUEST)
        self.assert_spends_budget(climbing, kernel)

    def test_xu4_dithering_spends_the_budget(self):
        """With the request division the XU4's clusters get grants between
        OPPs: without dither_grants each takes the lower OPP and the budget
        is partly unspent (75.9 % of the work in 60 s measured, against
        84.1 % dithered).  Measured on the kernel's requests: with
        saturated_request the 60 s runs gave 84.1 plain and 82.6 dithered
        (300 s: 76.6 and 77.4 %)."""
        dithered = self.steady_run("odroid-xu4", division="request",
                                   zone_keys="dither_grants = true; " + KERNEL_REQUEST)
        plain = self.steady_run("odroid-xu4", division="request", zone_keys=KERNEL_REQUEST)
        self.assert_spends_budget(dithered, plain)

    # What an XU4 run at request division delivers in 60 s once its budget is
    # spent: 83.9-84.1 % measured, against 76.1 % for a cluster held at the
    # OPP under its grant.
    SPENT_WORK_PCT = 82

    def assert_spends_budget(self, with_it, without):
        """The run @with_it a feature spends the budget: it reaches
        SPENT_WORK_PCT, and the run @without does not beat it.  Without the
        feature the budget usually stays partly unspent (76.1 %), but the
        integral can also settle it on the OPP above (83.5 % seen once in
        tools/check), so the run without is not held to be lower."""
        self.assertGreater(with_it["work"], self.SPENT_WORK_PCT, with_it["output"])
        self.assertGreaterEqual(with_it["work"], without["work"] - 1, without["output"])


MORE_BOARDS = os.path.join(SIMULATOR_DIR, "more-boards")


def run_sim(*args, duration=10):
    """A short steady run with @args; returns (returncode, stdout + stderr)."""
    out = subprocess.run([SIM, "--speed", "10", "--duration", str(duration)] + list(args),
                         capture_output=True, text=True, timeout=120)
    return out.returncode, out.stdout + out.stderr


class PlantOptions(unittest.TestCase):
    """The plant's options reach the daemon as they say."""

    def test_sensor_steps_reach_the_daemon(self):
        """With --sensor-step 1 every temperature the daemon read (its trace)
        is a multiple of 1000 m°C, and the noise moves it between steps."""
        env = dict(os.environ, SIM_KEEP_TREE="1")
        out = subprocess.run([SIM, "--speed", "10", "--duration", "10", "--settled",
                              "--sensor-step", "1", "--sensor-noise", "0.2", "--seed", "5"],
                             capture_output=True, text=True, timeout=120, env=env)
        tree = re.search(r"^tree: (\S+)", out.stdout, re.M).group(1)
        try:
            with open(os.path.join(tree, "trace.csv")) as f:
                rows = [row.rstrip("\n").split(",") for row in f]
        finally:
            subprocess.run(["rm", "-rf", tree], check=True)
        temps = {int(row[2]) for row in rows[1:]}
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("kept: %s (SIM_KEEP_TREE is set)" % tree, out.stdout)
        # The plant's clock, added as the last column: 10 times the daemon's,
        # from the plant's start (within a period of the daemon's first row).
        self.assertEqual(rows[0][-1], "sim_time_ms")
        sim_ms = [int(row[-1]) for row in rows[1:]]
        self.assertLess(abs(sim_ms[0]), 1000, sim_ms[:3])
        self.assertLess(abs(sim_ms[-1] - 10000), 1000, sim_ms[-3:])
        for row in rows[1:]:
            self.assertLess(abs(int(row[-1]) - 10 * int(row[0]) - (sim_ms[0] - 10 * int(rows[1][0]))),
                            2, row)
        self.assertIn("sensor: 1.00 °C steps, noise sd 0.20 °C, seed 5", out.stdout)
        self.assertGreater(len(temps), 1, temps)
        self.assertEqual({t % 1000 for t in temps}, {0}, temps)

    def test_sustainable_power_modes(self):
        """A factor of the true value is configured; none leaves the daemon to
        estimate it; dt gives it the tree's (the ROCK960's 1550 mW)."""
        for args, true_mw, used in (
                (["--sustainable-power", "2"], 2200, "4400 mW (config)"),
                (["--sustainable-power", "0.25", "--thermal-resistance", "25"], 1700,
                 "425 mW (config)"),
                (["--sustainable-power", "none"], 2200, "(estimated)"),
                (["--sustainable-power", "dt", "--sim",
                  os.path.join(MORE_BOARDS, "rk3399-rock960.sim")], 2200, "1550 mW (sysfs)"),
                (["--sustainable-power", "none", "--sim",
                  os.path.join(MORE_BOARDS, "rk3399-rock960.sim")], 2200, "(estimated)")):
            rc, out = run_sim("--quiet", *args, duration=3)
            self.assertEqual(rc, 0, out)
            self.assertRegex(out, r"true sustainable power +%d mW" % true_mw)
            self.assertIn(used, out)

    def test_plant_reported(self):
        """The summary gives the plant as varied: the time constants, the share
        of a kept total, the silicon's scale (its true sustainable power in
        the table's terms), the ambient step."""
        rc, out = run_sim("--quiet", "--die-tau", "2.5", "--case-tau", "30", "--die-share",
                          "0.3", "--power-scale", "1.25", "--ambient-step", "10", duration=3)
        self.assertEqual(rc, 0, out)
        self.assertIn("plant: die tau 2.50 s, case tau 30.0 s, die share 0.30 of 20.0 K/W,\n"
                      "         silicon 1.25 x table, ambient step +10.0 °C", out)
        self.assertIn("2200 mW (1760 mW of the power table's)", out)

    def test_domain_scales(self):
        """--power-scale-domain, over a description's domain_power_scale:
        the summary names each domain's own scale; a domain the board does
        not have is refused, naming those it has."""
        with tempfile.TemporaryDirectory() as d:
            sim = os.path.join(d, "mixed.sim")
            with open(os.path.join(SIMULATOR_DIR, "rk3399-rockpro64.sim")) as f:
                text = f.read()
            with open(sim, "w") as f:
                f.write(text + 'domain_power_scale = "gpu=0.5,cluster0=0.8";\n')
            rc, out = run_sim("--quiet", "--sim", sim, "--power-scale-domain",
                              "cluster1=1.4,gpu=0.7", duration=3)
            self.assertEqual(rc, 0, out)
            self.assertIn("         silicon 1.00 x table, ambient step +0.0 °C\n"
                          "         but cluster0 0.80 x, cluster1 1.40 x, gpu 0.70 x\n", out)
            self.assertRegex(out, r"true sustainable power +2200 mW "
                                  r"\(the domains' scales differ\)")
            rc, out = run_sim("--quiet", "--sim", sim, duration=3)
            self.assertIn("         but cluster0 0.80 x, gpu 0.50 x\n", out)
            with open(sim, "w") as f:
                f.write(text + 'domain_power_scale = "npu=2";\n')
            rc, out = run_sim("--sim", sim, duration=1)
            self.assertEqual(rc, 1, out)
            self.assertIn('simulation description: domain_power_scale: no domain "npu" on '
                          'rk3399-rockpro64 (its domains: cluster0, cluster1, gpu)', out)
        rc, out = run_sim("--power-scale-domain", "cluster1=20", duration=1)
        self.assertEqual(rc, 1, out)
        self.assertIn("--power-scale-domain: cluster1: a number from 0.1 to 10, not \"20\"", out)
        rc, out = run_sim("--quiet", duration=3)
        self.assertNotIn("         but ", out)
        self.assertIn("(2200 mW of the power table's)", out)

    def test_help_names_sim_keep_tree(self):
        out = subprocess.run([SIM, "--help"], capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 0)
        self.assertRegex(out.stdout, r"SIM_KEEP_TREE +set \(to anything\) to keep the simulated tree")
        self.assertIn("sim_time_ms", out.stdout)

    def test_bad_values_refused(self):
        for args in (["--die-tau", "0"], ["--die-share", "1"], ["--case-tau", "x"],
                     ["--sustainable-power", "often"], ["--power-scale", "-1"],
                     ["--sensor-step", "9"], ["stray"]):
            rc, out = run_sim(*args, duration=1)
            self.assertEqual(rc, 2, args)
            self.assertTrue("--" in out or "unexpected" in out, out)


class Meters(unittest.TestCase):
    """The plant's power meters (--meters): the files appear in the run's
    tree, the summary names them, and the daemon's configuration names them
    only behind --meter-config (tests/unit/test_sim_meters.c checks their values
    against the plant's true power)."""

    def run_kept(self, *args, env=None):
        env = dict(env or os.environ, SIM_KEEP_TREE="1")
        out = subprocess.run([SIM, "--quiet", "--speed", "10", "--duration", "3"] + list(args),
                             capture_output=True, text=True, timeout=120, env=env)
        tree = re.search(r"^kept: (\S+)", out.stdout, re.M).group(1)
        self.addCleanup(subprocess.run, ["rm", "-rf", tree], check=True)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        return out.stdout, tree

    def test_meters_in_the_tree(self):
        out, tree = self.run_kept("--meters", "--power-scale", "1.4", "--meter-noise", "2",
                                  "--meter-period-ms", "200")
        self.assertRegex(out, r"meters +sim_rails \(hwmon0\), 200 ms, noise 2\.0 %\n"
                              r" +metered domains +cluster0 cluster1 gpu \(daemon told: none\)\n")
        for line in out.splitlines():
            self.assertLessEqual(len(line), 80, line)
        hwmon = os.path.join(tree, "sys/class/hwmon/hwmon0")
        with open(os.path.join(hwmon, "name")) as f:
            self.assertEqual(f.read(), "sim_rails\n")
        # The sample period on the daemon's clock: 200 ms of the plant's at 10x.
        with open(os.path.join(hwmon, "update_interval")) as f:
            self.assertEqual(f.read(), "20\n")
        for n, rail in ((1, "cluster0"), (2, "cluster1"), (3, "gpu")):
            for attr in ("power%d_label" % n, "in%d_label" % n):
                with open(os.path.join(hwmon, attr)) as f:
                    self.assertEqual(f.read(), "vdd_%s\n" % rail)
            with open(os.path.join(hwmon, "power%d_input" % n)) as f:
                self.assertGreater(int(f.read()), 0)
            with open(os.path.join(hwmon, "energy%d_input" % n)) as f:
                energy = int(f.read())
            with open(os.path.join(tree, "sys/class/powercap/sim-rapl:%d/energy_uj" % (n - 1))) as f:
                # The same counter, noise aside: within 2 %.
                self.assertAlmostEqual(int(f.read()) / energy, 1.0, delta=0.02)
        with open(os.path.join(tree, "powerallocd.conf")) as f:
            self.assertNotIn("power_meter", f.read())

    def test_without_meters_nothing_changes(self):
        out, tree = self.run_kept()
        self.assertRegex(out, r"meters +none")
        self.assertFalse(os.path.exists(os.path.join(tree, "sys/class/hwmon/hwmon0")))

    def test_config_only_when_asked(self):
        plain = subprocess.run([SIM, "--check-config", "--meters"], capture_output=True,
                               text=True, timeout=120).stdout
        self.assertNotIn("power_meter", plain)
        for kind, line in (("hwmon", 'power_meter = { hwmon = "sim_rails"; label = "vdd_gpu"; };'),
                           ("power", 'power_meter = "/sys/class/hwmon/hwmon0/power3_input";'),
                           ("energy_uj", 'power_meter = "/sys/class/powercap/sim-rapl:2/'
                                         'energy_uj";')):
            told = subprocess.run([SIM, "--check-config", "--meter-config", kind],
                                  capture_output=True, text=True, timeout=120).stdout
            # The file the run gives the daemon, before the daemon's view of it.
            conf = told.split("\n\n")[0]
            self.assertIn(line, conf)
            self.assertEqual(conf.count("power_meter = "), 3, told)

    def test_daemon_calibrates(self):
        # The silicon draws 1.4 x its tables, each rail's hwmon power held 1 s
        # with 2 % noise (the benchmark's meters): the daemon's debug line at
        # each calibration window says the scale it learnt, for each actor.
        env = dict(os.environ, SIM_DAEMON_LOG_LEVEL="debug")
        out, tree = self.run_kept("--duration", "100", "--workload", "steady",
                                  "--meter-config", "hwmon", "--meter-noise", "2",
                                  "--meter-period-ms", "1000", "--power-scale", "1.4", env=env)
        with open(os.path.join(tree, "powerallocd.log")) as f:
            log = f.read()
        self.assertNotIn("going on from the power table", log)
        for actor in ("cpufreq-cpu0", "cpufreq-cpu4", "devfreq-ff9a0000.gpu"):
            scales = re.findall(r"^debug: %s: power scale ([\d.]+), offset -?\d+ mW, "
                                r"confidence ([\d.]+) \(meter hwmon \"sim_rails\"" % actor,
                                log, re.M)
            self.assertGreaterEqual(len(scales), 5, log)
            scale, confidence = map(float, scales[-1])
            self.assertAlmostEqual(scale, 1.4, delta=0.05, msg=actor)
            self.assertGreater(confidence, 0.5, actor)

    def test_bad_meter_options_refused(self):
        for args in (["--meter-noise", "60"], ["--meter-period-ms", "5"],
                     ["--meter-config", "rapl"]):
            rc, out = run_sim(*args, duration=1)
            self.assertEqual(rc, 2, args)
            self.assertIn("--meter", out)


class WhatTheDemoShows(unittest.TestCase):
    """tools/demo: --check-config shows the configuration the run uses, and
    the run's lines fit 80 columns."""

    def test_check_config_is_the_runs(self):
        out = subprocess.run([SIM, "--check-config"], capture_output=True, text=True,
                             timeout=120)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        # The file the run gives the daemon, then the daemon's view of it.
        self.assertIn('{ type = "devfreq"; device = "ff9a0000.gpu"; }', out.stdout)
        self.assertIn("sustainable_power = 2200;", out.stdout)
        self.assertIn("configured zones, 1 zone controllable", out.stdout)
        self.assertIn("actor devfreq-ff9a0000.gpu (devfreq)", out.stdout)
        self.assertRegex(out.stdout, r"sustainable power 2200 mW \(config\)")
        self.assertNotIn("warning", out.stdout + out.stderr)
        # Nothing simulated: no summary.
        self.assertNotIn("summary:", out.stdout)
        # Every line in 80 columns but the one that names the file by its path.
        for line in out.stdout.splitlines():
            if "powerallocd.conf: " not in line:
                self.assertLessEqual(len(line), 80, line)
        rc, run = run_sim(duration=3)
        self.assertEqual(rc, 0, run)
        self.assertRegex(run, r"the daemon's sustainable +\d+ mW \(configured 2200 mW\)|"
                              r"the daemon's sustainable +2200 mW \(config\)")

    def test_lines_fit_80_columns(self):
        """On the board with the most domains (RK3588: three clusters) and the
        RockPro64 (two and a GPU)."""
        for board in ("rk3588-rock5b.sim", "rk3399-rockpro64.sim"):
            rc, out = run_sim("--sim", os.path.join(SIMULATOR_DIR, board),
                              duration=3)
            self.assertEqual(rc, 0, out)
            # The heading, then one line per second, each domain's frequency and state.
            self.assertRegex(out, r"(?m)^   time +die +case +power +budget +cluster0")
            self.assertRegex(out, r"(?m)^ +3 s +\d+\.\d\d +\d+\.\d\d +\d+ +\d+ +\d+/s\d+")
            for line in out.splitlines():
                # The lines that give a path as it is.
                if not line.startswith("tree: ") and not line.startswith("simulating "):
                    self.assertLessEqual(len(line), 80, line)


class Fan(unittest.TestCase):
    """The Odroid-XU4 with its fan modelled (tests/fixtures/odroid-xu4-fan.sim):
    the kernel stops driving the fan once the zones are taken over, and the
    step_wise fallback must turn it up, so the CPUs need less throttling, and
    put it back at exit.  Without the fallback the fan stays off."""

    FAN_SIM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures",
                           "odroid-xu4-fan.sim")

    def test_fallback_turns_the_fan_up(self):
        on = simulate("steady", sim=self.FAN_SIM)
        off = simulate("steady", sim=self.FAN_SIM, zone_keys="step_wise_fallback = false;")
        for s in (on, off):
            self.assertEqual(s["returncode"], 0, s["output"])
            self.assertTrue(s["restored"], s["output"])
            self.assertLess(s["overshoot"], 1.0, s["output"])
        self.assertEqual(on["fan"], 3, on["output"])
        self.assertEqual(off["fan"], 0, off["output"])
        # Measured 94.7 against 86.2 %.
        self.assertGreater(on["work"], off["work"] + 4, on["output"] + off["output"])


def true_sustainable_mw(sim_file):
    """The sustainable power a .sim description's plant really has: at its
    control temperature the die, die-to-case and case-to-ambient resistances
    in series carry (control - ambient) / (R_die + R_case) watts, of which
    the static power is not the actors': for the RockPro64,
    (75 - 25) / (2 + 18) - 0.3 = 2.2 W."""
    with open(sim_file) as f:
        text = f.read()

    def number(pattern):
        return float(re.search(pattern, text).group(1))
    r_die = number(r"die = \{[^}]*resistance_k_per_w = ([\d.]+)")
    r_case = number(r"case = \{[^}]*resistance_k_per_w = ([\d.]+)")
    rise = number(r"control_c = ([\d.]+)") - number(r"ambient_c = ([\d.]+)")
    return 1000 * (rise / (r_die + r_case) - number(r"static_power_w = ([\d.]+)"))


def simulate_with_prior(prior_mw, duration):
    """A steady run of the RockPro64 whose daemon is configured with
    @prior_mw of sustainable power (as a device tree off by that much would
    say): test_model_store.simulate()'s wrapper rewrites the configuration
    the simulator writes.  Returns (summary output, trace rows, daemon log)."""
    state_dir = tempfile.mkdtemp(prefix="powerallocd-models.")
    try:
        return test_model_store.simulate(
            state_dir, duration, prior=1,
            wrapper_lines="sed -i 's/sustainable_power = [0-9]*;/sustainable_power = %d;/' "
                          "\"$2\"" % prior_mw)
    finally:
        shutil.rmtree(state_dir)


class ThermalModel(unittest.TestCase):
    """The zone's thermal model learns the simulated RockPro64's real
    sustainable power whatever the configuration says: configured at half
    and at twice the truth (2.2 W, true_sustainable_mw()), the trace's
    learned_sp_mw ends at 2201 mW in both (measured, 300 s simulated; within
    5 % from 60 s on), with confidence 0.99, and the journal says once that
    the configured value is off (+101 % and -50 %)."""

    def check(self, prior_mw):
        truth = true_sustainable_mw(os.path.join(SIMULATOR_DIR, "rk3399-rockpro64.sim"))
        out, rows, log = simulate_with_prior(prior_mw, 300)
        self.assertIn("restored: yes", out)
        header, last = rows[0], rows[-1]
        learned = int(last[header.index("learned_sp_mw")])
        confidence = float(last[header.index("model_confidence")])
        self.assertLess(abs(learned / truth - 1), 0.05, (learned, truth))
        self.assertGreater(confidence, 0.9, last)
        # The default controller runs on what it learnt (lib/control/model_tuning.h).
        self.assertEqual(last[header.index("model_tuned")], "1", last)
        feed_forward = int(last[header.index("feed_forward_mw")])
        self.assertLess(abs(feed_forward / truth - 1), 0.05, (feed_forward, truth))
        # The first rows are the prior, with no confidence.
        self.assertEqual(int(rows[1][header.index("learned_sp_mw")]), prior_mw)
        self.assertEqual(float(rows[1][header.index("model_confidence")]), 0)
        said = [line for line in log.splitlines() if "learned sustainable power" in line]
        self.assertEqual(len(said), 1, log)
        self.assertIn("departs from the configured %d mW" % prior_mw, said[0])
        tuned = [line for line in log.splitlines() if "tuned from its thermal model" in line]
        self.assertTrue(tuned, log)
        self.assertIn("(configured %d mW)" % prior_mw, tuned[0])
        return said[0]

    def test_configured_too_low(self):
        self.assertIn("by +", self.check(1100))

    def test_configured_too_high(self):
        self.assertIn("by -", self.check(4400))

    def test_four_times_too_high_does_not_cycle(self):
        """Configured at 4 x the truth, the gains the kernel's rule gives
        scaled by 3, 6 and 8 made the budget swing between 0 and the
        maximum 223 times a minute (77.6 % of the limit, doc/robustness.md);
        tuned from the model it holds (94.3 %, no swing, measured)."""
        out, rows, log = simulate_with_prior(8800, 120)
        self.assertIn("limit cycle                no", out)
        work = float(re.search(r"work, second half +([0-9.]+) %", out).group(1))
        self.assertGreater(work, 90, out)


class FirstApproach(unittest.TestCase):
    """The first approach to control on a fresh install (issue 34, 1): the
    simulated RockPro64 started settled with its sustainable power
    configured at 4 x the truth (tools/bench-robust's cell c028).  Fed
    forward, that prior kept the budget at the actors' maximum past control:
    0.45 C over (measured, 30 s); fed forward the actors' lowest power
    until the model is confident, it comes up to control on the
    proportional term: 0.00 C, its maximum 74.81 C under 75, and the same
    work (94.6 % of the limit from 15 s on)."""

    def test_prior_four_times_too_high(self):
        rc, out = run_sim("--quiet", "--settled", "--sustainable-power", "4", duration=30)
        self.assertEqual(rc, 0, out)
        self.assertIn("restored: yes", out)

        def number(pattern):
            return float(re.search(pattern, out).group(1))
        self.assertLess(number(r"max overshoot +([\d.]+)"), 0.2, out)
        # It does come up to control, and works as much as before.
        control = number(r"control temperature +([\d.]+)")
        self.assertGreater(number(r"maximum temperature +([\d.]+)"), control - 1, out)
        self.assertGreater(number(r"work, second half +([\d.]+)"), 90, out)


class FaultInjection(unittest.TestCase):
    """Halfway through a steady run: the die never passes control + 5 °C and,
    once the daemon stops (or after SIGKILL, --restore), every cooling state
    and zone policy is back to what it was."""

    def check(self, fault):
        s = simulate("steady", duration=40, fault=fault)
        self.assertEqual(s["returncode"], 0, s["output"])
        self.assertTrue(s["restored"], s["output"])
        self.assertLess(s["overshoot"], 5.0, s["output"])
        return s

    def test_sensor_eio(self):
        self.check("sensor-eio")

    def test_spike(self):
        self.check("spike")

    def test_cooling_device_vanishes(self):
        self.check("cdev-vanish")

    def test_cpu_offline(self):
        self.check("cpu-offline")

    def test_reload_garbage(self):
        self.check("reload-garbage")

    def test_sigkill_then_restore(self):
        self.check("sigkill")


if __name__ == "__main__":
    unittest.main(verbosity=2)

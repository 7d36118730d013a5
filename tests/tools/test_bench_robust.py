#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tools/bench-robust: its options, its plan, its summary and verdicts on a
written results file, and a two-cell run of a few simulated seconds.

usage: test_bench_robust.py (POWERALLOCD_SIM names the simulator)
"""
import os
import re
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "..", "tools", "bench-robust")
FIELDS = ("cell", "seed", "board", "workload", "die_tau", "case_tau", "die_share", "scale", "sp",
          "sensor", "ambient_step", "controller", "work", "overshoot", "above", "swings",
          "limit_cycle", "first_over", "daemon_sp", "gap_ms", "lag_ms", "disturbed", "boot",
          "kernel_late", "first_confidence", "meters")


def bench(*args, timeout=120):
    out = subprocess.run([TOOL] + list(args), capture_output=True, text=True, timeout=timeout,
                         env=dict(os.environ, POWERALLOCD_SIM=os.environ.get(
                             "POWERALLOCD_SIM", "build/tools/simulator/powerallocd-sim")))
    return out.returncode, out.stdout, out.stderr


def row(cell, controller, work, overshoot, workload="steady", sensor="exact", cycle="no",
        sp="1", first_over=0.0, boot="first", kernel_late="no", scale="-", meters="no"):
    values = {"cell": cell, "seed": "1001", "board": "rk3399-rockpro64", "workload": workload,
              "die_tau": "-", "case_tau": "-", "die_share": "-", "scale": scale, "sp": sp,
              "sensor": sensor, "ambient_step": "-", "controller": controller, "work": work,
              "overshoot": overshoot, "above": 0.0, "swings": 12 if cycle == "yes" else 0,
              "limit_cycle": cycle, "first_over": first_over, "daemon_sp": "2200mW(config)", "gap_ms": 140,
              "lag_ms": 30, "disturbed": "no", "boot": boot, "kernel_late": kernel_late,
              "first_confidence": 0.0 if boot == "first" else 0.8, "meters": meters}
    return "\t".join(str(values[k]) for k in FIELDS) + "\n"


def results_file(rows):
    with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as f:
        f.write("# 1 boards, 3 cells; --duration 120 --jobs 2 --seed 1\n")
        f.write("\t".join(FIELDS) + "\n" + "".join(rows))
    return f.name


def summarize(rows, *more):
    path = results_file(rows)
    try:
        return bench("--summarize", path, *more)
    finally:
        os.unlink(path)


class Plan(unittest.TestCase):
    def test_dry_run(self):
        """The default sample: 8 boards, their corners and 16 random cells,
        each run as a first and a second boot, the estimate printed first
        (about 94 min on 2 cores); the same seed gives the same random cells."""
        rc, out, err = bench("--dry-run")
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertRegex(lines[0], r"^8 boards, 147 cells \(131 corners, 16 random\), default, "
                         r"kernel, step_wise; first and second boot; --duration 120")
        self.assertRegex(lines[1], r"^882 runs, estimated \d+ min")
        self.assertLess(int(re.search(r"estimated (\d+) min", lines[1]).group(1)), 120)
        self.assertIn("  c066 mt8183 steady (steady, exact sensor)", out)
        self.assertIn("mt8183 steady, sp dt (steady, exact sensor)", out)
        self.assertNotIn("rk3288 steady, sp dt", out)     # the tree has none
        self.assertEqual(len([l for l in lines if l.startswith("  r")]), 16)
        again = bench("--dry-run")[1]
        self.assertEqual(out, again)
        other = bench("--dry-run", "--seed", "2")[1]
        self.assertNotEqual(out, other)

    def test_dry_run_with_meters(self):
        """--meters: each board's 1.0, 0.7 and 1.4 x cells again, metered,
        beside the originals, and two mixed-scale cells (the big cluster
        1.4 x, the GPU 0.7 x, then the reverse) with their metered twins;
        the rest of the sample as without."""
        rc, out, err = bench("--dry-run", "--boards", "rk3399-rockpro64", "--meters")
        self.assertEqual(rc, 0, err)
        plain = bench("--dry-run", "--boards", "rk3399-rockpro64")[1]
        self.assertRegex(out.splitlines()[0], r"^1 boards, 39 cells .* --meters$")
        self.assertIn("  x001 rk3399-rockpro64 steady, scale cluster1=1.4,gpu=0.7 (steady, exact "
                      "sensor)\n  x001m rk3399-rockpro64 steady, scale cluster1=1.4,gpu=0.7, "
                      "meters (steady, exact sensor)\n"
                      "  x002 rk3399-rockpro64 steady, scale cluster1=0.7,gpu=1.4 (steady, exact "
                      "sensor)\n", out)
        self.assertNotIn(" x0", plain)
        # A board without a GPU mixes its big cluster with the other one.
        xu4 = bench("--dry-run", "--boards", "odroid-xu4", "--meters")[1]
        self.assertIn("  x001 odroid-xu4 steady, scale cluster1=1.4,cluster0=0.7 ", xu4)
        out = "\n".join(l for l in out.splitlines() if not re.match(r"  x\d+m? ", l)) + "\n"
        self.assertRegex(plain.splitlines()[0], r"^1 boards, 32 cells ")
        self.assertIn("  c001 rk3399-rockpro64 steady (steady, exact sensor)\n"
                      "  c001m rk3399-rockpro64 steady, meters (steady, exact sensor)\n", out)
        self.assertIn("  c009m rk3399-rockpro64 steady, scale 0.7, meters (steady, exact", out)
        self.assertIn("  c010m rk3399-rockpro64 steady, scale 1.4, meters (steady, exact", out)
        self.assertEqual([l for l in out.splitlines() if "meters" in l and l.startswith("  ")],
                         [l for l in out.splitlines() if re.match(r"  c\d+m ", l)])
        self.assertEqual(len(re.findall(r"^  c\d+m ", out, re.M)), 3)
        self.assertEqual({l for l in out.splitlines()[2:] if not re.match(r"  c\d+m ", l)},
                         set(plain.splitlines()[2:]))
        told = bench("--dry-run", "--boards", "rk3399-rockpro64", "--meters", "--meter-config",
                     "hwmon")[1]
        self.assertIn("c010m rk3399-rockpro64 steady, scale 1.4, meters (hwmon)", told)
        rc, out, err = bench("--dry-run", "--meter-config", "hwmon")
        self.assertNotEqual(rc, 0)
        self.assertIn("--meter-config needs --meters", err)

    def test_options_checked(self):
        for args in (["--jobs", "0"], ["--controllers", "default,fast"], ["--duration", "1"],
                     ["--boards", "nope"], ["--random", "x"], ["--boots", "second"]):
            rc, out, err = bench("--dry-run", *args)
            self.assertNotEqual(rc, 0, args)


class Summary(unittest.TestCase):
    def test_targets_and_failing_cells(self):
        rows = [row("c001", "default", 99.0, 0.1), row("c001", "kernel", 98.0, 0.0),
                row("c001", "step_wise", 90.0, 0.3),
                row("c002", "default", 94.0, 0.7, sp="4", cycle="yes"),
                row("c002", "kernel", 97.0, 0.0, sp="4"), row("c002", "step_wise", 91.0, 0.2),
                row("c003", "default", 110.0, 0.2, workload="burst"),
                row("c003", "kernel", 112.0, 0.1, workload="burst"),
                row("c003", "step_wise", 111.8, 0.4, workload="burst"),
                row("c004", "default", 96.0, 1.2, sensor="1"),
                row("c004", "kernel", 95.0, 1.6, sensor="1"),
                row("c004", "step_wise", 90.0, 0.9, sensor="1"),
                row("c005", "default", 99.0, 5.0, first_over=4.8, kernel_late="yes"),
                row("c005", "kernel", 99.0, 5.1, first_over=4.8, kernel_late="yes"),
                row("c005", "step_wise", 99.0, 5.2, first_over=4.8, kernel_late="yes")]
        rc, out, err = summarize(rows)
        self.assertEqual(rc, 0, err)
        self.assertIn("steady, exact sensor: 3 cells", out)
        # worst (cell), tail, median: the default's work 94 (c002), 99, 99.
        self.assertRegex(out, r"default +94\.00 \(c002\) +94\.00 +99\.00 +5\.00 \(c005\)")
        self.assertIn("default    T1 MISS median work 99.0, worst 94.0, overshoot over 0.5 in 2 "
                      "cells (1 already at the first active period, the kernel's trip event "
                      "late too)", out)
        self.assertIn("kernel     T1 MISS median work 98.0, worst 97.0, overshoot over 0.5 in 1 "
                      "cells (1 already at the first active period, the kernel's trip event "
                      "late too)", out)
        self.assertIn("c005 rk3399-rockpro64 steady: overshoot 5.00 > 0.5 (4.80 over at the "
                      "first active period, the kernel's trip event late too)", out)
        self.assertIn("default    T2 pass median work 96.0, overshoot <= 1.5", out)
        self.assertIn("kernel     T2 MISS median work 95.0, overshoot over 1.5", out)
        # 110 against the kernel's 112: a miss; step_wise's 111.8 is within 0.5.
        self.assertIn("default    T3 MISS 1 cells miss", out)
        self.assertIn("step_wise  T3 pass 0 cells miss", out)
        self.assertIn("default    T4 MISS 1 of 5 cells limit-cycle", out)
        self.assertNotIn("step_wise  T4", out)
        self.assertIn("c002 rk3399-rockpro64 steady, sp 4: overshoot 0.70 > 0.5; work 94.0 < 95; "
                      "limit cycle (12 swings)", out)
        self.assertIn("c003 rk3399-rockpro64 burst: work 110.0 < the kernel's 112.0", out)
        self.assertIn("tools/sim --quiet --speed 10 --duration 120 --settled --sim "
                      "tools/simulator/rk3399-rockpro64.sim --workload steady --controller "
                      "default --sustainable-power 4", out)
        self.assertRegex(out, r"failing cells, default: 3\n")


    def test_first_active_period_apart_only_where_the_kernel_was_late(self):
        """Over control at the first active period with the kernel's trip
        event on time: the controller's overshoot, not set apart; a second
        boot's steady cell is judged at 0.2 °C (T5)."""
        rows = [row("c001", "default", 99.0, 3.0, first_over=2.9),
                row("c001", "default", 99.0, 0.3, boot="second")]
        rc, out, err = summarize(rows)
        self.assertEqual(rc, 0, err)
        self.assertIn("c001 rk3399-rockpro64 steady: overshoot 3.00 > 0.5\n", out)
        self.assertIn("(0 already at the first active period", out)
        self.assertIn("default    T5 MISS second boot, steady: overshoot over 0.2 in 1 of 1 "
                      "cells", out)
        self.assertIn("failing cells, default, second boot: 1\n  c001 rk3399-rockpro64 steady: "
                      "overshoot 0.30 > 0.2", out)
        self.assertIn("(twice, DIR empty at first)", out)


    def test_table_from_two_files(self):
        """--summarize takes several files (one run per controller) and
        --table prints one Markdown row per controller and boot: median /
        worst work and the worst overshoot per group of cells."""
        default = results_file([row("c001", "default", 99.0, 0.1),
                                row("c002", "default", 97.0, 0.4, sp="4"),
                                row("c001", "default", 99.2, 0.0, boot="second"),
                                row("c002", "default", 98.0, 0.1, sp="4", boot="second"),
                                row("c004", "default", 96.0, 1.2, sensor="1")])
        kernel = results_file([row("c001", "kernel", 98.0, 0.0),
                               row("c002", "kernel", 90.0, 3.5, sp="4", first_over=3.4,
                                   kernel_late="yes"),
                               row("c004", "kernel", 95.0, 1.6, sensor="1")])
        try:
            rc, out, err = bench("--summarize", "%s,%s" % (default, kernel), "--table")
        finally:
            os.unlink(default)
            os.unlink(kernel)
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertEqual(lines[0], "| controller | boot | steady, exact sensor (2 cells) | "
                         "steady, quantised sensor (1 cell) |")
        self.assertEqual(lines[2], "| default | first | 98.0 / 97.0 %, 0.40 °C, none over 0.5 | "
                         "96.0 / 96.0 %, 1.20 °C, none over 1.5 |")
        self.assertEqual(lines[3], "| default | second | 98.6 / 98.0 %, 0.10 °C, none over 0.2 "
                         "| - |")
        # c002's 3.5 °C, over at its first active period with the kernel's event late too.
        self.assertEqual(lines[4], "| kernel | first | 94.0 / 90.0 %, 3.50 °C, 1 over 0.5 (1 late "
                         "with the kernel) | 95.0 / 95.0 %, 1.60 °C, 1 over 1.5 (0 late with the "
                         "kernel) |")
        self.assertEqual(len([l for l in lines if l.startswith("| ")]), 4)
        rc, out, err = bench("--table")
        self.assertEqual(rc, 2)

    def test_mixed_cells_judged_and_rerun(self):
        """A mixed-scale cell is compared with its board's 1.0 x cell (T6
        for the metered one), and its rerun command gives the simulator
        each domain's scale."""
        rc, out, err = summarize([
            row("c001", "default", 97.0, 0.10),
            row("c001m", "default", 97.0, 0.10, meters="hwmon"),
            row("x001", "default", 94.0, 0.30, scale="cluster1=1.4,gpu=0.7"),
            row("x001m", "default", 96.5, 0.20, scale="cluster1=1.4,gpu=0.7", meters="hwmon")])
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r"x001m +rk3399-rockpro64 +scale cluster1=1.4,gpu=0.7 +meters hwmon "
                              r"+work 96.5 \(1.0 x: 97.0, -0.5\), overshoot 0.20 \(1.0 x: 0.10, "
                              r"\+0.10\)\n")
        self.assertRegex(out, r"default    T6 pass .*: all")
        self.assertIn("--power-scale-domain cluster1=1.4,gpu=0.7", out)
        self.assertNotIn("--power-scale cluster1", out)


class Run(unittest.TestCase):
    def test_second_boot(self):
        """The RockPro64 configured at 4 x its true sustainable power, 30 s:
        the first boot learns from the prior (confidence 0 at its first
        active period, 0.45 °C over, measured), the second starts from the
        model it saved (2226 mW at 0.64, 0.00 °C over): both rows in the
        results, the second boot's column and T5 in the summary."""
        with tempfile.TemporaryDirectory() as d:
            results = os.path.join(d, "r.tsv")
            rc, out, err = bench("--boards", "rk3399-rockpro64", "--random", "0", "--cells",
                                 "c012", "--controllers", "default", "--duration", "30",
                                 "--jobs", "1", "--results", results, timeout=300)
            self.assertEqual(rc, 0, out + err)
            with open(results) as f:
                runs = [dict(zip(FIELDS, l.rstrip("\n").split("\t"))) for l in f
                        if l.startswith("c012")]
        self.assertEqual([r["boot"] for r in runs], ["first", "second"], runs)
        first, second = runs
        self.assertLess(float(first["first_confidence"]), 0.1, runs)
        self.assertGreater(float(second["first_confidence"]), 0.5, runs)
        self.assertLessEqual(float(second["overshoot"]), 0.2, runs)
        self.assertRegex(out, r"\n    2nd boot ")
        self.assertRegex(out, r"default    T5 (pass|MISS) second boot, steady: overshoot")

    def test_power_scale_with_and_without_meters(self):
        """Each power-scale cell against its board's 1.0 x cell with the same
        meters; T6 judges the metered ones (1 point, 0.2 °C)."""
        rc, out, err = summarize([
            row("c001", "default", 97.0, 0.10),
            row("c001m", "default", 97.0, 0.10, meters="yes"),
            row("c009", "default", 96.8, 0.05, scale="0.7"),
            row("c009m", "default", 96.5, 0.12, scale="0.7", meters="yes"),
            row("c010", "default", 94.0, 0.70, scale="1.4"),
            row("c010m", "default", 96.5, 0.35, scale="1.4", meters="yes")])
        self.assertEqual(rc, 0, err)
        self.assertIn("power scale: each 0.7, 1.4 x and mixed cell against the same board's "
                      "1.0 x", out)
        self.assertRegex(out, r"c009m +rk3399-rockpro64 +scale 0.7 +meters yes +work 96.5 "
                              r"\(1.0 x: 97.0, -0.5\), overshoot 0.12 \(1.0 x: 0.10, \+0.02\)\n")
        self.assertRegex(out, r"c010m .*overshoot 0.35 \(1.0 x: 0.10, \+0.25\): "
                              r"overshoot 0.35 > 0.10 \+ 0.2\n")
        self.assertRegex(out, r"c010 +rk3399-rockpro64 +scale 1.4 +meters no +work 94.0 .*"
                              r"\(work 94.0 < 97.0 - 1; overshoot 0.70 > 0.10 \+ 0.2\)\n")
        self.assertRegex(out, r"default    T6 MISS with meters, power-scale cells within 1 point "
                              r"and 0.2 °C of the 1.0 x cell: 1 miss")
        rc, out, err = summarize([row("c001", "default", 97.0, 0.10),
                                  row("c010", "default", 94.0, 0.70, scale="1.4")])
        self.assertNotIn("default    T6", out)
        self.assertIn("power scale:", out)

    def test_metered_cell_runs(self):
        """One metered cell (1.4 x), one controller, 6 simulated seconds: the
        TSV says it ran with meters."""
        with tempfile.TemporaryDirectory() as d:
            results = os.path.join(d, "r.tsv")
            rc, out, err = bench("--boards", "rk3399-rockpro64", "--meters", "--cells", "c010m",
                                 "--controllers", "default", "--boots", "first", "--duration",
                                 "6", "--results", results, timeout=300)
            self.assertEqual(rc, 0, out + err)
            with open(results) as f:
                lines = f.read().splitlines()
        header = lines[1].split("\t")
        runs = [dict(zip(header, l.split("\t"))) for l in lines[2:]]
        self.assertEqual([(r["cell"], r["scale"], r["meters"]) for r in runs],
                         [("c010m", "1.4", "yes")], runs)
        self.assertNotEqual(runs[0]["work"], "None", runs)
        self.assertIn("--meters", lines[0])

    def test_two_cells(self):
        """Two random cells, each controller, 6 simulated seconds: every run
        in the results file, the summary after it."""
        with tempfile.TemporaryDirectory() as d:
            results = os.path.join(d, "r.tsv")
            rc, out, err = bench("--no-corners", "--random", "2", "--duration", "6", "--boots",
                                 "first",
                                 "--boards", "rk3399-rockpro64", "--results", results,
                                 timeout=300)
            self.assertEqual(rc, 0, out + err)
            with open(results) as f:
                runs = [l for l in f if l.startswith("r00")]
        self.assertEqual(len(runs), 6, runs)
        self.assertTrue(all(l.split("\t")[FIELDS.index("work")] != "None" for l in runs), runs)
        self.assertIn("targets:", out)
        self.assertIn("failing cells, default:", out)
        self.assertIn("rerun: tools/bench-robust --no-corners --random 2", out)
        self.assertTrue(all(l.split("\t")[FIELDS.index("boot")] == "first" for l in runs), runs)


if __name__ == "__main__":
    unittest.main(verbosity=2)

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tools/bench-claims judges each claim of a bench-control table by its numbers."""
import os
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "..", "tools", "bench-claims")
HEADER = ("board          workload      controller/division  overshoot above (s) |err| °C"
          "  work % of limit %  spread\n")


def row(board, workload, run, overshoot, work, spread=0.0):
    return "%-14s %-13s %-20s %9.2f %9.1f %8.2f %7.2f %10.1f %7.2f\n" % (
        board, workload, run, overshoot, 1.0 if overshoot else 0.0, 0.5, work, 90.0, spread)


def judge(table):
    """Runs the tool on @table; returns (exit status, {(claim, cell): verdict}, stdout)."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(table)
    try:
        out = subprocess.run([TOOL, f.name], capture_output=True, text=True, timeout=60)
    finally:
        os.unlink(f.name)
    verdicts = {}
    for line in out.stdout.splitlines():
        fields = line.split()
        if len(fields) > 5 and fields[0] in ("holds", "tie", "fails"):
            verdicts[(fields[1], " ".join(fields[2:5]).rstrip(":"))] = fields[0]
    return out.returncode, verdicts, out.stdout


class BenchClaims(unittest.TestCase):
    def test_every_claim_holds(self):
        table = HEADER + "".join(row("b", "steady", run, o, w) for run, o, w in (
            ("kernel/request", 0.30, 80.0), ("default/request", 0.10, 81.0),
            ("step_wise", 0.40, 79.0), ("kernel/efficiency", 0.00, 85.0),
            ("default/efficiency", 0.00, 85.5)))
        status, v, out = judge(table)
        self.assertEqual(status, 0, out)
        self.assertEqual(len(v), 6, out)
        self.assertEqual(set(v.values()), {"holds"}, out)
        self.assertIn("default-vs-step_wise   holds 2, tie 0, fails 0", out)

    def test_failures_are_named(self):
        table = HEADER + "".join(row("b", "burst", run, o, w) for run, o, w in (
            # default overshoots more than kernel: fails although it delivers more.
            ("kernel/efficiency", 0.10, 90.0), ("default/efficiency", 0.20, 95.0),
            # step_wise never throttles: the power allocator loses work to it.
            ("step_wise", 0.00, 100.0)))
        status, v, out = judge(table)
        self.assertEqual(status, 1, out)
        self.assertEqual(v[("default-vs-kernel", "b burst efficiency")], "fails")
        self.assertEqual(v[("kernel-vs-step_wise", "b burst efficiency")], "fails")
        self.assertEqual(v[("default-vs-step_wise", "b burst efficiency")], "fails")
        # A division without rows is not judged.
        self.assertNotIn(("default-vs-kernel", "b burst request"), v)

    def test_less_work_or_more_overshoot_fails(self):
        base = [("kernel/request", 0.00, 90.0), ("step_wise", 0.50, 95.0)]
        for default, verdict in (((0.00, 89.9), "fails"), ((0.00, 90.0), "holds"),
                                 ((0.01, 99.0), "fails")):
            table = HEADER + "".join(row("b", "shift", r, o, w) for r, o, w in
                                     base + [("default/request",) + default])
            _, v, out = judge(table)
            self.assertEqual(v[("default-vs-kernel", "b shift request")], verdict, out)

    def test_equal_work_is_a_tie(self):
        table = HEADER + "".join(row("b", "shift", run, 0.0, 100.0) for run in (
            "kernel/request", "default/request", "step_wise"))
        status, v, out = judge(table)
        self.assertEqual(status, 0, out)
        self.assertEqual(v[("kernel-vs-step_wise", "b shift request")], "tie")
        self.assertEqual(v[("default-vs-kernel", "b shift request")], "holds")

    def test_step_wise_at_equal_overshoot(self):
        # Burst: step_wise went over and wins; held under control it still
        # wins (99.2 against 99.0 at 0.00 °C).  Ambient step: default runs
        # 0.06 °C over, where step_wise's work is 70.3 + 0.06/0.17 x 0.1 =
        # 70.34 (to 0.01), under default's 74.0.  Shift: step_wise never went
        # over, so its own row is the one at default's overshoot.
        table = HEADER + "".join(row("b", w, r, o, wk) for w, r, o, wk in (
            ("burst", "default/efficiency", 0.00, 99.0), ("burst", "step_wise", 0.11, 99.3),
            ("burst", "step_wise/under", 0.00, 99.2),
            ("ambient-step", "default/efficiency", 0.06, 74.0),
            ("ambient-step", "kernel/efficiency", 0.39, 73.4),
            ("ambient-step", "step_wise", 0.17, 70.4),
            ("ambient-step", "step_wise/under", 0.00, 70.3),
            ("shift", "default/efficiency", 0.00, 96.6), ("shift", "step_wise", 0.00, 96.7)))
        status, v, out = judge(table)
        self.assertEqual(status, 1, out)
        self.assertEqual(v[("default-vs-step_wise/equal", "b burst efficiency")], "fails")
        self.assertIn("step_wise/equal 0.00 °C over, 99.20 % work", out)
        self.assertEqual(v[("default-vs-step_wise", "b ambient-step efficiency")], "holds")
        self.assertEqual(v[("default-vs-step_wise/equal", "b ambient-step efficiency")],
                         "holds")
        self.assertIn("step_wise/equal 0.06 °C over, 70.34 % work", out)
        # The kernel's law is over step_wise's own overshoot: its own row.
        self.assertIn("kernel 0.39 °C over, 73.40 % work; step_wise/equal 0.17 °C over", out)
        self.assertEqual(v[("default-vs-step_wise/equal", "b shift efficiency")], "fails")
        self.assertIn("default-vs-step_wise/equal holds 1, tie 0, fails 2", out)
        # Without step_wise/under rows there is no such claim.
        _, v, _ = judge(HEADER + row("b", "burst", "default/efficiency", 0.0, 99.0) +
                        row("b", "burst", "step_wise", 0.13, 99.3))
        self.assertNotIn(("default-vs-step_wise/equal", "b burst efficiency"), v)

    def test_step_wise_raised_to_equal_overshoot(self):
        # The kernel's law runs 0.39 °C over, past step_wise's 0.17: against
        # step_wise raised to 0.42 °C its work is read on the line between
        # the two, 70.4 + (0.22 / 0.25) x 1.6 = 71.81, under the kernel's
        # 73.4.  Request division: 0.50 °C is past every step_wise run, so
        # it is judged against the highest and fails on overshoot.
        table = HEADER + "".join(row("b", "ambient-step", r, o, wk) for r, o, wk in (
            ("kernel/efficiency", 0.39, 73.4), ("kernel/request", 0.50, 80.0),
            ("default/efficiency", 0.06, 74.0), ("step_wise", 0.17, 70.4),
            ("step_wise/under", 0.00, 70.3), ("step_wise/over", 0.42, 72.0)))
        status, v, out = judge(table)
        self.assertEqual(status, 1, out)
        self.assertEqual(v[("kernel-vs-step_wise", "b ambient-step efficiency")], "fails")
        self.assertEqual(v[("kernel-vs-step_wise/equal", "b ambient-step efficiency")],
                         "holds")
        self.assertIn("kernel 0.39 °C over, 73.40 % work; step_wise/equal 0.39 °C over, "
                      "71.81 % work", out)
        self.assertEqual(v[("kernel-vs-step_wise/equal", "b ambient-step request")], "fails")
        self.assertIn("kernel 0.50 °C over, 80.00 % work; step_wise/equal 0.42 °C over, "
                      "72.00 % work", out)
        # Under step_wise's own overshoot the under row still counts.
        self.assertIn("default 0.06 °C over, 74.00 % work; step_wise/equal 0.06 °C over, "
                      "70.34 % work", out)
        # An over row alone is enough for the /equal claims (98.75 at 0.2).
        _, v, out = judge(HEADER + row("b", "burst", "kernel/efficiency", 0.2, 99.0) +
                        row("b", "burst", "step_wise", 0.1, 98.0) +
                        row("b", "burst", "step_wise/over", 0.3, 99.5))
        self.assertEqual(v[("kernel-vs-step_wise/equal", "b burst efficiency")], "holds")
        self.assertIn("step_wise/equal 0.20 °C over, 98.75 % work", out)

    def test_differences_inside_the_spread_are_ties(self):
        # Three runs per cell: default 96.59 (spread 0.05) against step_wise
        # 96.62 (0.02) is inside the spread, a tie; the kernel's 96.00
        # (0.10) is 0.62 under, a failure.  default-vs-kernel: 0.59 more,
        # outside 0.10, holds.  Burst: default 0.04 under the kernel, inside
        # its spread of 0.06: a tie, not a loss; at 0.00 °C step_wise/equal
        # is the under run (99.19, spread 0.03): 0.07 more, holds.  The
        # kernel's 0.06 °C reads step_wise on the line, 99.24, with the
        # larger spread of its two runs, 0.08: 0.06 more is a tie.
        table = HEADER + "".join(row("b", w, r, o, wk, sp) for w, r, o, wk, sp in (
            ("shift", "default/efficiency", 0.00, 96.59, 0.05),
            ("shift", "kernel/efficiency", 0.00, 96.00, 0.10),
            ("shift", "step_wise", 0.00, 96.62, 0.02),
            ("burst", "default/efficiency", 0.00, 99.26, 0.06),
            ("burst", "kernel/efficiency", 0.06, 99.30, 0.01),
            ("burst", "step_wise", 0.12, 99.29, 0.08),
            ("burst", "step_wise/under", 0.00, 99.19, 0.03)))
        status, v, out = judge(table)
        self.assertEqual(status, 1, out)
        self.assertEqual(v[("default-vs-step_wise", "b shift efficiency")], "tie")
        self.assertIn("default 0.00 °C over, 96.59 % work (spread 0.05); step_wise 0.00 "
                      "°C over, 96.62 % work (spread 0.02)", out)
        self.assertEqual(v[("kernel-vs-step_wise", "b shift efficiency")], "fails")
        self.assertEqual(v[("default-vs-kernel", "b shift efficiency")], "holds")
        self.assertEqual(v[("default-vs-kernel", "b burst efficiency")], "tie")
        self.assertEqual(v[("default-vs-step_wise/equal", "b burst efficiency")], "holds")
        self.assertIn("step_wise/equal 0.00 °C over, 99.19 % work (spread 0.03)", out)
        self.assertEqual(v[("kernel-vs-step_wise/equal", "b burst efficiency")], "tie")
        self.assertIn("step_wise/equal 0.06 °C over, 99.24 % work (spread 0.08)", out)
        # Just outside the spread the verdict is the difference's.
        _, v, _ = judge(HEADER + row("b", "shift", "default/efficiency", 0.0, 96.70, 0.05) +
                        row("b", "shift", "kernel/efficiency", 0.0, 96.64, 0.05) +
                        row("b", "shift", "step_wise", 0.0, 96.76, 0.05))
        self.assertEqual(v[("default-vs-kernel", "b shift efficiency")], "holds")
        self.assertEqual(v[("default-vs-step_wise", "b shift efficiency")], "fails")
        self.assertEqual(v[("kernel-vs-step_wise", "b shift efficiency")], "fails")

    def test_table_without_spread_column(self):
        # Tables printed before the spread column: judged as one run each.
        table = HEADER + "".join(
            "%-14s %-13s %-20s %9.2f %9.1f %8.2f %7.2f %10.1f\n" % ("b", "steady", r, o, 0.0,
                                                                   0.5, w, 90.0)
            for r, o, w in (("kernel/request", 0.0, 80.0), ("default/request", 0.0, 80.05),
                            ("step_wise", 0.1, 80.1)))
        status, v, out = judge(table)
        self.assertEqual(status, 1, out)
        self.assertEqual(v[("default-vs-kernel", "b steady request")], "holds")
        self.assertEqual(v[("default-vs-step_wise", "b steady request")], "fails")

    def test_not_a_table(self):
        status, _, _ = judge("summary: nothing here\n")
        self.assertEqual(status, 2)
        out = subprocess.run([TOOL, "/nonexistent/table"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 2)
        self.assertIn("/nonexistent/table", out.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)

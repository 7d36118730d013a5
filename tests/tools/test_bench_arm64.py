#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tools/bench-arm64's figures from what the guest gives it, on inputs
written here: the plant's CSV (work, overshoot, time above control, the
second half's mean), the kernel's thermal_power_allocator events and
powerallocd's trace (granted power per period, a period cut by the stop
left out), and its table.  The runs themselves need root and minutes of
QEMU: tools/bench-arm64.

usage: test_bench_arm64.py
"""
import importlib.machinery
import importlib.util
import os
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "..", "tools", "bench-arm64")
loader = importlib.machinery.SourceFileLoader("bench_arm64", TOOL)
spec = importlib.util.spec_from_loader("bench_arm64", loader)
bench = importlib.util.module_from_spec(spec)
loader.exec_module(bench)

# 4 s at 1 s a row: 74 °C, 76 °C for 1 s, then 75.0 and 74.5; work 1, 1, 0.5, 0.5.
PLANT = """guest-plant: cluster 0: 2 CPUs from 0, 408000 kHz 27769 uW
t_s,temp_mc,power_mw,work,freq0_khz,freq1_khz
1.000,74000,2000,1.0000,1200000,1800000
2.000,76000,2000,1.0000,1200000,1800000
3.000,75000,1500,0.5000,600000,1416000
4.000,74500,1500,0.5000,600000,1416000
"""

KERNEL_TRACE = """# tracer: nop
     kworker/1:1-83      [001] .....   100.000000: thermal_power_allocator: thermal_zone_id=0 req_power={{0x590,0x33}} total_req_power=1475 granted_power={{0x590,0x33}} total_granted_power=1700 power_range=1 max_allocatable_power=2500 current_temperature=74000 delta_temperature=1000
     kworker/1:1-83      [001] .....   100.250000: thermal_power_allocator_pid: thermal_zone_id=0 err=400 err_integral=0 p=88 i=0 d=0 output=1755
     kworker/1:1-83      [001] .....   100.250100: thermal_power_allocator: thermal_zone_id=0 req_power={{0x590,0x33}} total_req_power=1475 granted_power={{0x590,0x33}} total_granted_power=1800 power_range=1 max_allocatable_power=2500 current_temperature=74000 delta_temperature=1000
     kworker/1:1-83      [001] .....   100.500000: thermal_power_allocator: thermal_zone_id=0 req_power={{0x590,0x33}} total_req_power=1475 granted_power={{0x590,0x33}} total_granted_power=1760 power_range=1 max_allocatable_power=2500 current_temperature=74000 delta_temperature=1000
"""

HEADER = "time_ms,zone,temp_mc,active,granted_mw,actor\n"


def trace_row(t_ms, actor, granted, active=1):
    return "%d,cpu-thermal,74000,%d,%d,%s\n" % (t_ms, active, granted, actor)


class Figures(unittest.TestCase):
    def test_plant_metrics(self):
        m = bench.plant_metrics(PLANT, 4.0)
        self.assertAlmostEqual(m["work"], 75.0)
        # The second half: the rows at 2 s and later.
        self.assertAlmostEqual(m["work_half"], (1.0 + 0.5 + 0.5) / 3 * 100)
        self.assertAlmostEqual(m["over"], 1.0)
        # Above 75.0 only at the 2 s row: the second from 1 to 2 s counts.
        self.assertAlmostEqual(m["above_s"], 1.0)
        self.assertAlmostEqual(m["mean_half"], (76.0 + 75.0 + 74.5) / 3)

    def test_kernel_grants_after_the_first_event(self):
        self.assertEqual(bench.kernel_grants(KERNEL_TRACE, 0.0), [1700, 1800, 1760])
        self.assertEqual(bench.kernel_grants(KERNEL_TRACE, 0.25), [1800, 1760])
        self.assertEqual(bench.kernel_grants("# tracer: nop\n", 0.0), [])

    def test_daemon_grants_sum_the_actors_of_whole_periods(self):
        text = HEADER + trace_row(0, "cpufreq-cpu0", 240, active=0) + \
            trace_row(0, "cpufreq-cpu2", 2260, active=0)
        for t in (1000, 1250, 1500):
            text += trace_row(t, "cpufreq-cpu0", 100) + trace_row(t, "cpufreq-cpu2", t)
        # The stop cut the last period after its first row.
        text += trace_row(1750, "cpufreq-cpu0", 53)
        self.assertEqual(bench.daemon_grants(text, 0.0), [1100, 1350, 1600])
        self.assertEqual(bench.daemon_grants(text, 0.25), [1350, 1600])

    def test_table_names_each_run_with_its_figures(self):
        m = bench.plant_metrics(PLANT, 4.0)
        m.update(grant_mean=1755.0, grant_sd=16.3, grant_n=200)
        text = bench.table({("right", "kernel-ipa"): m, ("3x", "default"): bench.plant_metrics(
            PLANT, 4.0)}, 4.0)
        self.assertIn("| right (1667 mW) | kernel-ipa | 75.0 | 66.7 | +1.00 | 1.0 | 75.17 | "
                      "1755 ± 16 (200 periods) |", text)
        self.assertIn("| 3x (5000 mW) | default | 75.0 |", text)


if __name__ == "__main__":
    unittest.main(verbosity=2)

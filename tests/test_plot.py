#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tools/plot-trace turns a trace into a PNG (a real one, of the size asked)."""
import os
import struct
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = ("time_ms,zone,temp_mc,active,err_mc,err_integral_mc,p_mw,i_mw,d_mw,budget_mw,"
          "actor,load_pct,freq_khz,req_mw,granted_mw,max_mw,state,switch_on_mc,control_mc")


class PlotTrace(unittest.TestCase):
    def test_png(self):
        with tempfile.TemporaryDirectory() as d:
            trace = os.path.join(d, "trace.csv")
            with open(trace, "w") as f:
                f.write(HEADER + "\n")
                for t in range(100):
                    temp = 70000 + 60 * t
                    for a, grant in (("cpufreq-cpu0", 700 - t), ("cpufreq-cpu4", 2200 - 9 * t)):
                        f.write("%d,soc,%d,1,0,0,0,0,0,%d,%s,100,1000000,1,%d,2260,%d,70000,75000\n"
                                % (100 * t, temp, 2900 - 10 * t, a, grant, t // 20))
            png = os.path.join(d, "out.png")
            out = subprocess.run([os.path.join(HERE, "..", "tools", "plot-trace"), trace, png],
                                 capture_output=True, text=True, timeout=120)
            self.assertEqual(out.returncode, 0, out.stderr)
            with open(png, "rb") as f:
                head = f.read(24)
            self.assertEqual(head[:8], b"\x89PNG\r\n\x1a\n")
            self.assertEqual(struct.unpack(">II", head[16:24]), (1200, 900))
            out = subprocess.run([os.path.join(HERE, "..", "tools", "plot-trace")],
                                 capture_output=True, text=True)
            self.assertEqual(out.returncode, 2)


if __name__ == "__main__":
    unittest.main(verbosity=2)

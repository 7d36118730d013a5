#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tools/plot-trace turns a trace into a PNG (a real one, of the size asked)
whose three panels share one time axis, in simulated seconds when the trace
says so, with cooling states drawn as steps; tools/demo installs only what
the build and the simulator need."""
import os
import re
import struct
import subprocess
import tempfile
import unittest
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(HERE, "..", "tools")
HEADER = ("time_ms,zone,temp_mc,active,err_mc,err_integral_mc,p_mw,i_mw,d_mw,budget_mw,"
          "actor,load_pct,freq_khz,req_mw,granted_mw,max_mw,state,switch_on_mc,control_mc")
# gnuplot's first two line colours: the budget's (1) and the first actor's (2).
ACTOR_RGB = (0, 158, 115)


def read_png(path):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB or RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    bpp = 3 if colour == 2 else 4
    raw, stride, prev, rows = zlib.decompress(idat), width * bpp, bytearray(width * bpp), []
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def frames(width, height, rows):
    """The panels' plot borders: (top, bottom, left, right) pixels, top panel first.
    A border is a dark grey to black vertical run of 100 pixels or more (text
    and coloured data lines have none)."""
    runs = {}
    for x in range(width):
        start = None
        for y in range(height + 1):
            dark = y < height and max(rows[y][x]) < 100
            if dark and start is None:
                start = y
            elif not dark and start is not None:
                if y - start >= 100:
                    runs.setdefault((start, y - 1), []).append(x)
                start = None
    return sorted((top, bottom, min(xs), max(xs)) for (top, bottom), xs in runs.items())


def write_trace(path, rows, sim_clock=False):
    """@rows: (time_ms, temp_mc, budget_mw, ((actor, granted_mw, state), ...))."""
    with open(path, "w") as f:
        f.write(HEADER + (",sim_time_ms" if sim_clock else "") + "\n")
        for t, temp, budget, actors in rows:
            for actor, grant, state in actors:
                f.write("%d,soc,%d,1,0,0,0,0,0,%d,%s,100,1000000,1,%d,2260,%d,70000,75000%s\n"
                        % (t, temp, budget, actor, grant, state,
                           ",%d" % (5 * (t - 40)) if sim_clock else ""))


def plot(trace, png):
    return subprocess.run([os.path.join(TOOLS, "plot-trace"), trace, png],
                          capture_output=True, text=True, timeout=120)


class PlotTrace(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.TemporaryDirectory()
        self.trace = os.path.join(self.work.name, "trace.csv")
        self.png = os.path.join(self.work.name, "out.png")

    def tearDown(self):
        self.work.cleanup()

    def test_png(self):
        write_trace(self.trace, [(100 * t, 70000 + 60 * t, 2900 - 10 * t,
                                  (("cpufreq-cpu0", 700 - t, t // 20),
                                   ("cpufreq-cpu4", 2200 - 9 * t, t // 20))) for t in range(100)])
        out = plot(self.trace, self.png)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("zone soc, 0 to 9.9 s, the daemon's clock (s since it started)", out.stdout)
        with open(self.png, "rb") as f:
            head = f.read(24)
        self.assertEqual(head[:8], b"\x89PNG\r\n\x1a\n")
        self.assertEqual(struct.unpack(">II", head[16:24]), (1200, 900))
        out = subprocess.run([os.path.join(TOOLS, "plot-trace")], capture_output=True, text=True)
        self.assertEqual(out.returncode, 2)

    def test_panels_share_the_time_axis_and_states_are_steps(self):
        """Three panels with the same left and right borders over the same
        times; the state, sampled every 10 s, holds until the next sample
        (a line would be half-way at 15 s)."""
        write_trace(self.trace, [(10000 * k, 70000 + 500 * k, 3000 - 300 * k,
                                  (("cpufreq-cpu0", 900 - 80 * k, k // 2),))
                                 for k in range(5)])
        out = plot(self.trace, self.png)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("0 to 40 s", out.stdout)
        width, height, rows = read_png(self.png)
        panels = frames(width, height, rows)
        self.assertEqual(len(panels), 3, panels)
        self.assertEqual({(left, right) for _, _, left, right in panels}, {panels[0][2:]}, panels)
        top, bottom, left, right = panels[2]

        def state_rows(t_s):
            x = round(left + (right - left) * t_s / 40)
            return [y for y in range(top, bottom) if rows[y][x] == ACTOR_RGB]

        at_5 = state_rows(5)
        self.assertTrue(at_5, "no state line at 5 s")
        self.assertEqual(state_rows(15), at_5)          # state 0 held from 10 s to 20 s
        self.assertLess(max(state_rows(25)), min(at_5))  # state 1 from 20 s, higher up

    def test_simulated_clock(self):
        """A trace with sim_time_ms (the simulator's, 5x faster, plant at 40 ms)."""
        write_trace(self.trace, [(40 + 20 * t, 70000, 2000, (("cpufreq-cpu0", 700, 0),))
                                 for t in range(601)], sim_clock=True)
        out = plot(self.trace, self.png)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("zone soc, 0 to 60 s, simulated time (s)", out.stdout)

    def test_only_gnuplot_is_installed(self):
        with open(os.path.join(TOOLS, "plot-trace")) as f:
            text = f.read()
        self.assertEqual(re.findall(r"ensure_packages.*", text),
                         ["ensure_packages gnuplot-nox"])


class Demo(unittest.TestCase):
    """tools/demo installs what the build and the simulator need, not the
    test suites' packages."""

    def packages(self, name):
        out = subprocess.run(["bash", "-c", '. tools/deps.sh; echo "${%s[@]}"' % name],
                             cwd=os.path.join(TOOLS, ".."), capture_output=True, text=True,
                             timeout=30, check=True)
        return set(out.stdout.split())

    def test_demo_installs_its_own_list(self):
        with open(os.path.join(TOOLS, "demo")) as f:
            text = f.read()
        self.assertEqual(re.findall(r"ensure_packages.*", text),
                         ['ensure_packages "${POWERALLOCD_DEMO_PACKAGES[@]}"'])
        demo = self.packages("POWERALLOCD_DEMO_PACKAGES")
        self.assertIn("umockdev", demo)
        self.assertIn("libconfig-dev", demo)
        # A subset of the full list, without the test suites' tools.
        self.assertLessEqual(demo, self.packages("POWERALLOCD_PACKAGES"))
        for p in ("valgrind", "debhelper", "prometheus-node-exporter", "qemu-system-x86",
                  "mmdebstrap", "gnuplot-nox"):
            self.assertNotIn(p, demo)


if __name__ == "__main__":
    unittest.main(verbosity=2)

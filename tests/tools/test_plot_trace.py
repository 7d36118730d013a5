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
TOOLS = os.path.join(HERE, "..", "..", "tools")
HEADER = ("time_ms,zone,temp_mc,active,err_mc,err_integral_mc,p_mw,i_mw,d_mw,budget_mw,"
          "actor,load_pct,freq_khz,req_mw,granted_mw,max_mw,state,switch_on_mc,control_mc")
# The first actor's colour (plot-trace's palette: Okabe and Ito's blue).
ACTOR_RGB = (0, 114, 178)


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


class InWorkDir(unittest.TestCase):
    """A trace and its PNG in a folder of their own."""

    def setUp(self):
        self.work = tempfile.TemporaryDirectory()
        self.trace = os.path.join(self.work.name, "trace.csv")
        self.png = os.path.join(self.work.name, "out.png")

    def tearDown(self):
        self.work.cleanup()


class PlotTrace(InWorkDir):

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


# The columns powerallocd adds after HEADER's (daemon/trace.h).
LATER_COLUMNS = ("learned_sp_mw,model_tau_s,model_gain_mk_per_w,model_offset_mc,model_confidence,"
                 "feed_forward_mw,model_tuned,aim_mc,zone_limit,actor_limit,cap_mw,power_limit_mw")
# What plot-trace draws them in.
SHADE_RGB = (251, 227, 214)     # a power cap set
AIM_RGB = (178, 24, 43)
SHARE_RGB = (127, 59, 8)        # the zone's share of the cap
CLUSTER_RGB, GPU_RGB, FAN_RGB = (0, 114, 178), (213, 94, 0), (0, 158, 115)


def write_capped_trace(path, measured=None):
    """30 s of a trace as powerallocd writes it now: a cluster, a GPU and
    a fan (no power model: max_mw 0) on zone soc, a cap of 1500 mW from 10 s
    to 20 s that throttles the cluster and the GPU while the zone is cool;
    with @measured ({actor: mW}), the meters' columns too (empty for the
    actors it does not name)."""
    with open(path, "w") as f:
        f.write(HEADER + "," + LATER_COLUMNS +
                (",measured_mw,power_scale,power_scale_confidence,table_mw" if measured else "")
                + "\n")
        for k in range(301):
            t = 100 * k
            cap = 1500 if 10000 <= t < 20000 else 0
            reason = "power-limit" if cap else "none"
            for actor, grant, max_mw, state in (
                    ("cpufreq-cpu0", 400 if cap else 700, 716, 2 if cap else 0),
                    ("devfreq-ff9a0000.gpu", 600 if cap else 900, 2000, 3 if cap else 1),
                    ("pwm-fan", 0, 0, 2)):
                f.write("%d,soc,%d,0,0,0,0,0,0,%d,%s,100,1000000,1,%d,%d,%d,70000,75000,"
                        "2000,30.0,10,40000,0.5,2000,0,74950,%s,%s,%d,%d"
                        % (t, 60000 + 20 * k, cap or 3000, actor, grant, max_mw, state, reason,
                           reason, cap, cap))
                if measured:
                    f.write(",%s,1.0000,0.000,%d" % (measured.get(actor, ""), grant))
                f.write("\n")


def near(rgb, colour, tolerance=40):
    """Whether pixel @rgb is @colour, give or take the anti-aliasing's blend."""
    return sum(abs(a - b) for a, b in zip(rgb, colour)) < tolerance


class CappedTrace(InWorkDir):
    """What a trace with the aim, the limiting reasons and the cap shows: a
    cap is not taken for thermal throttling."""

    def draw(self):
        out = plot(self.trace, self.png)
        self.assertEqual(out.returncode, 0, out.stderr)
        width, height, rows = read_png(self.png)
        panels = frames(width, height, rows)
        self.assertEqual(len(panels), 3, panels)
        return rows, panels

    def test_cap_shaded_aim_drawn_fan_as_its_state(self):
        write_capped_trace(self.trace)
        rows, panels = self.draw()

        def pixels(panel, t_s, colour):
            top, bottom, left, right = panels[panel]
            x = round(left + (right - left) * t_s / 30)
            return [y for y in range(top + 2, bottom - 1) if near(rows[y][x], colour)]

        def anywhere(panel, colour, t_from=0.5, t_to=29.5):
            return any(pixels(panel, t / 10, colour) for t in range(int(t_from * 10),
                                                                    int(t_to * 10)))

        for panel in range(3):
            top, bottom = panels[panel][:2]
            # Shaded from 10 s to 20 s, behind the lines: most of the height.
            self.assertGreater(len(pixels(panel, 15, SHADE_RGB)), (bottom - top) // 2, panel)
            for t_s in (5, 25):
                self.assertEqual(pixels(panel, t_s, SHADE_RGB), [], (panel, t_s))
        # The aim (74.95 °C, dashed) in the temperature panel.
        self.assertTrue(anywhere(0, AIM_RGB))
        # The zone's share of the cap while there is one (dashed), nowhere else.
        self.assertTrue(anywhere(1, SHARE_RGB, 10.5, 19.5))
        self.assertFalse(anywhere(1, SHARE_RGB, 0.5, 9.5))
        self.assertFalse(anywhere(1, SHARE_RGB, 20.5, 29.5))
        # The cluster and the GPU, far apart in colour, in both panels; the fan
        # (no power model) as its state only, not as a 0 mW grant.
        self.assertGreater(sum(abs(a - b) for a, b in zip(CLUSTER_RGB, GPU_RGB)), 300)
        for colour in (CLUSTER_RGB, GPU_RGB):
            self.assertTrue(anywhere(1, colour) and anywhere(2, colour), colour)
        self.assertTrue(anywhere(2, FAN_RGB))
        self.assertFalse(anywhere(1, FAN_RGB))

    def test_measured_beside_granted(self):
        """measured_mw (issue 35): the cluster's meter, 300 mW, dashed in its
        colour well below its 700 mW grant; without the column, only the
        grant.  The GPU has no reading (empty): no line of its own."""
        def cluster_rows(rows, panels):
            top, bottom, left, right = panels[1]
            return {y for t in range(5, 95) for y in range(top + 2, bottom - 1)
                    if near(rows[y][round(left + (right - left) * t / 300)], CLUSTER_RGB)}

        write_capped_trace(self.trace)
        grant = cluster_rows(*self.draw())
        self.assertLess(max(grant) - min(grant), 6, grant)     # one line, 0.5-9.5 s
        write_capped_trace(self.trace, measured={"cpufreq-cpu0": 300})
        both = cluster_rows(*self.draw())
        below = {y for y in both if y > max(grant) + 20}       # 400 mW lower on the axis
        self.assertTrue(below, both)
        self.assertTrue(grant & both, both)

    def test_cooling_states_tick_at_integers(self):
        """States 0 and 3 only: the grid lines between them are at 1 and 2
        (at 0.5, 1, 1.5, 2 and 2.5 before)."""
        write_trace(self.trace, [(100 * t, 70000, 2000, (("cpufreq-cpu0", 700, 0),
                                                          ("cpufreq-cpu4", 2000, 3)))
                                 for t in range(100)])
        rows, panels = self.draw()
        top, bottom, left, right = panels[2]
        across = range(left + 2, right - 1)
        lines = [y for y in range(top + 2, bottom - 1)
                 if sum(max(rows[y][x]) - min(rows[y][x]) > 60 for x in across) > len(across) // 2]
        self.assertEqual(len(lines), 2, lines)      # state 3 above, state 0 below
        grid = [y for y in range(lines[0] + 3, lines[1] - 2)
                if sum(rows[y][x] == (204, 204, 204) for x in across) >= 10]
        third = (lines[1] - lines[0]) / 3
        self.assertEqual(len(grid), 2, grid)
        for y, expected in zip(grid, (lines[0] + third, lines[0] + 2 * third)):
            self.assertLess(abs(y - expected), 3, (grid, lines))


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

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Scale-only or scale and offset for lib/control/power_scale.c: the data.

For each actor of a board (tests/fixtures/boards/*.json), the silicon draws its
dynamic power (the table: dpc x f x V^2, the energy model's formula) plus a
leakage that at a fixed temperature depends on the voltage alone, taken as
k V^3 (the cubic voltage term of the static-power callbacks of the
kernel's cpufreq_cooling / devfreq_cooling, e.g. Juno's SCPI one) and sized
to LEAK_SHARE of the dynamic power at the top OPP.  The controller visits a
few adjacent OPPs under control (VISITED, around the OPP whose power is
SHARE of the top), fully loaded, or at loads from 0.3 to 1.  Each fit is made
over the visited points and judged where the daemon uses it: at the
visited points, at every OPP (a change of load or budget) and at half load.
Prints the worst relative error of each fit, %.

Usage: leakage-fit.py [BOARD.json ...]   (default: the RK3399 RockPro64)
"""
import json
import os
import sys

LEAK_SHARE = 0.20   # leakage / dynamic power at the top OPP, hot die
VISITED = 3         # adjacent OPPs the controller dithers over
SHARE = 0.5         # the visited OPPs' middle is the one nearest this share of the top's power


def actors(board):
    for c in board["clusters"]:
        yield c["name"], c["dynamic_power_coefficient"], len(c["cpus"]), c["opps"]
    if board.get("gpu") and board["gpu"].get("opps"):
        g = board["gpu"]
        yield "gpu", g["dynamic_power_coefficient"], 1, g["opps"]


def fit(points, offset):
    """Least squares of measured = s model (+ o); scale only: the energy ratio."""
    n = len(points)
    sp = sum(p for p, _ in points)
    sm = sum(m for _, m in points)
    if not offset:
        return sm / sp, 0.0
    spp = sum(p * p for p, _ in points)
    spm = sum(p * m for p, m in points)
    var = spp / n - (sp / n) ** 2
    if var <= 1e-12 * spp / n:
        return sm / sp, 0.0     # one power: no line
    s = (spm / n - sp / n * sm / n) / var
    return s, sm / n - s * sp / n


def worst(points, s, o):
    return max(abs(s * p + o - m) / m for p, m in points) * 100


def study(name, dpc, ncpu, opps):
    dyn = [dpc * (o["hz"] / 1e6) * (o["uv"] / 1e3) ** 2 / 1e9 * ncpu for o in opps]
    volt = [o["uv"] / 1e6 for o in opps]
    k = LEAK_SHARE * dyn[-1] / volt[-1] ** 3
    leak = [k * v ** 3 for v in volt]
    mid = min(range(len(dyn)), key=lambda i: abs(dyn[i] - SHARE * dyn[-1]))
    lo = max(0, min(mid - VISITED // 2, len(dyn) - VISITED))
    vis = range(lo, lo + VISITED)
    loads = (1.0,) if ncpu else (0.6,)
    rows = []
    for label, loadset in (("full load", loads), ("loads 0.3-1", (0.3, 0.5, 0.7, 1.0))):
        pts = [(dyn[i] * u, dyn[i] * u + leak[i]) for i in vis for u in loadset]
        every = [(dyn[i], dyn[i] + leak[i]) for i in range(len(dyn))]
        half = [(dyn[i] * 0.5, dyn[i] * 0.5 + leak[i]) for i in vis]
        for offset in (False, True):
            s, o = fit(pts, offset)
            rows.append((label, "scale+offset" if offset else "scale", s, o,
                         worst(pts, s, o), worst(every, s, o), worst(half, s, o)))
    print("%s: OPPs %d-%d of %d visited, dynamic %.0f-%.0f mW, leakage %.0f-%.0f mW"
          % (name, lo, lo + VISITED - 1, len(dyn), dyn[lo], dyn[lo + VISITED - 1],
             leak[lo], leak[lo + VISITED - 1]))
    print("  %-12s %-12s %6s %8s %8s %8s %8s" % ("visited at", "fit", "scale", "offset",
                                                 "visited", "all OPPs", "half load"))
    for r in rows:
        print("  %-12s %-12s %6.3f %6.0f mW %7.1f%% %7.1f%% %7.1f%%" % r)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    paths = sys.argv[1:] or [os.path.join(here, "../../tests/fixtures/boards/rk3399-rockpro64.json")]
    for path in paths:
        with open(path) as f:
            board = json.load(f)
        print("== %s (leakage %.0f %% of dynamic at the top OPP)" % (board["board"],
                                                                    LEAK_SHARE * 100))
        for a in actors(board):
            study(*a)


if __name__ == "__main__":
    main()

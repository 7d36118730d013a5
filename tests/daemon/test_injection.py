#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every way out restores (issue 42, 1), as a property: a fault injected
into one call the daemon makes, one at a time, and the daemon either
carries on (still controlling, a fault said no more than once) or exits,
saying why, with every limit it wrote back at its original value and its
state file gone.  Either way, its stop afterwards restores everything too.

The calls: open, read, pread, write (and pwrite), an allocation (malloc,
calloc, realloc), sendmsg and recvmsg (thermal netlink, the bus,
sd_notify) and connect (the bus), each failed as the machine would fail it
(EIO, ENOMEM, ENOBUFS, ECONNREFUSED) by tests/helpers/fault-inject.c, the
Nth after a trigger, in three phases of the RK3399 tree at 80 °C (its cpu
zone throttled to its lowest states) on a private system bus:
  - start: from the daemon's first call until it controls;
  - reload: from the open of its config file on SIGHUP until it says
    whether the reload was taken;
  - period: from when it controls, for a second of 50 ms periods.
A dry run of each phase counts the calls of each kind; then up to
POWERALLOCD_INJECT_POINTS points of each kind (spread over its count, the
first and last among them; 0 or "all" for every one; 8, or 2 under
valgrind) are failed, each in a fresh daemon on a fresh tree.  The points covered (the call was failed)
are printed, with each that left something behind.

usage: test_injection.py (POWERALLOCD names the binary, POWERALLOCD_FAULT_SHIM the shim)
"""
import os
import signal
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_bus import PrivateBus  # noqa: E402
from test_daemon import CDEV, HOT_CONFIG, ZONE0, Daemon, Tree, wait_for  # noqa: E402
from test_restore import snapshot  # noqa: E402

KINDS = ("open", "read", "pread", "write", "alloc", "sendmsg", "recvmsg", "connect")
PHASES = ("start", "reload", "period")
# Under valgrind (run-in-tree's wrapper) a run takes about 5 s: the first and
# last point of each kind there, for the memory errors of its error paths.
POINTS = os.environ.get("POWERALLOCD_INJECT_POINTS",
                        "2" if os.environ.get("RUN_IN_TREE_WRAPPER") else "8")
# How long a phase may take before its window is closed anyway, s.
PHASE_S = 10.0
# The period phase's window: 20 periods of 50 ms.
PERIOD_WINDOW_S = 1.0


def points(count):
    """The Nth calls to fail of a kind counted @count times in the dry run."""
    if count == 0:
        return []
    if POINTS in ("0", "all"):
        return list(range(1, count + 1))
    k = max(int(POINTS), 1)
    if count <= k:
        return list(range(1, count + 1))
    return sorted({1 + round(i * (count - 1) / (k - 1)) for i in range(k)} if k > 1 else {1})


class Run:
    """One daemon on a fresh hot tree, the fault @fail ((kind, n) or None)
    injected in @phase; its outcome in self.problems (empty: the property
    held), its counts, and whether the call was failed (self.done)."""

    def __init__(self, phase, fail=None):
        self.phase, self.fail = phase, fail
        self.tree = Tree()
        self.tree.write(ZONE0 + "temp", "80000\n")
        self.original = snapshot(self.tree)
        self.problems, self.done, self.counts, self.log = [], "", {}, ""
        faults = {}
        if phase == "start":
            faults["inject-arm"] = "now"
            if fail:
                faults["inject-fail"] = "%s %d" % fail
        self.daemon = Daemon(self.tree, HOT_CONFIG, bus="system", faults=faults,
                             env_changes={"POWERALLOCD_INJECT": "1"}, shim_first=True)
        try:
            self._run()
        finally:
            self.daemon.close()
            self.tree.close()

    def controlling(self):
        return (int(self.tree.read(CDEV % 1)) > 0 and
                self.tree.read(ZONE0 + "policy") == "user_space")

    def exited(self):
        return self.daemon.proc.poll() is not None

    def _arm(self):
        """The trigger of the reload and period phases, once the daemon controls."""
        if not wait_for(self.controlling, timeout=PHASE_S):
            self.problems.append("not controlling before the injection")
            return False
        if self.fail:
            self.daemon.fault("inject-fail", "%s %d" % self.fail)
        if self.phase == "reload":
            self.daemon.fault("inject-arm", "open " + os.path.basename(self.daemon.config))
            self.daemon.signal(signal.SIGHUP)
        else:
            self.daemon.fault("inject-arm", "now")
        return True

    def _window(self):
        """Waits for the end of the phase (or the daemon's)."""
        if self.phase == "start":
            wait_for(lambda: self.exited() or self.controlling(), timeout=PHASE_S)
        elif self.phase == "reload":
            wait_for(lambda: self.exited() or "reload" in self.daemon.logtext(),
                     timeout=PHASE_S)
        else:
            end = time.monotonic() + PERIOD_WINDOW_S
            while time.monotonic() < end and not self.exited():
                time.sleep(0.02)

    def _run(self):
        if self.phase != "start" and not self._arm():
            return
        self._window()
        self.daemon.fault("inject-freeze", "")
        self.done = self._read("inject-done")
        if not self.exited():
            self._carried_on()
        if not self.exited():
            self.daemon.signal(signal.SIGTERM)
        elif not any(line and not line.startswith(("info:", "notice:", "warning:", "debug:"))
                     for line in self.daemon.logtext().splitlines()):
            # An error line, the fault handler's, or one said before logging is set up
            # ("powerallocd.conf: out of memory").
            self.problems.append("exited without saying why")
        try:
            rc = self.daemon.proc.wait(timeout=10)
        except Exception:  # noqa: BLE001 - a daemon that does not stop is the finding
            self.problems.append("did not stop on SIGTERM")
            return
        self.counts = self._counts()
        self.log = self.daemon.logtext()
        changed = {p: (v, now) for p, v in self.original.items()
                   for now in [snapshot(self.tree).get(p)] if now != v}
        if changed:
            self.problems.append("limits left (exit status %d): %s" % (rc, changed))
        if os.path.exists(self.daemon.state):
            self.problems.append("state file left (exit status %d)" % rc)

    def _carried_on(self):
        """Still running: it must control, and have said no fault twice; or
        it was on its way out (a slowed build may still be putting limits
        back when the window closes), which _run then judges as an exit."""
        if not wait_for(lambda: self.controlling() or self.exited(), timeout=PHASE_S):
            self.problems.append("running but not controlling")
        if self.exited():
            return
        said = [line for line in self.daemon.logtext().splitlines()
                if line.startswith(("err:", "warning:"))]
        twice = sorted({line for line in said if said.count(line) > 1})
        if twice:
            self.problems.append("said more than once: %s" % twice)

    def _read(self, rule):
        path = os.path.join(self.daemon.faults, rule)
        if not os.path.exists(path):
            return ""
        with open(path) as f:
            return f.read().strip()

    def _counts(self):
        counts = {}
        for line in self._read("inject-counts").splitlines():
            kind, n = line.split()
            counts[kind] = int(n)
        return counts



class Injection(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.bus = PrivateBus()

    @classmethod
    def tearDownClass(cls):
        cls.bus.close()

    def dry_run(self, phase):
        run = Run(phase)
        self.assertEqual(run.problems, [], "%s dry run" % phase)
        self.assertTrue(run.counts, "%s dry run counted nothing" % phase)
        return run.counts

    def test_every_injected_fault_restores(self):
        covered, tried, found = 0, 0, []
        started = time.monotonic()
        for phase in PHASES:
            counts = self.dry_run(phase)
            print("%s: calls counted %s" % (phase, counts), flush=True)
            for kind in KINDS:
                for n in points(counts.get(kind, 0)):
                    run = Run(phase, (kind, n))
                    tried += 1
                    covered += bool(run.done)
                    if run.problems:
                        found.append("%s %s %d (%s): %s" % (phase, kind, n, run.done or
                                                            "not reached",
                                                            "; ".join(run.problems)))
                        print("FOUND " + found[-1], flush=True)
        print("injection points covered: %d of %d tried, %.0f s; %d left something behind"
              % (covered, tried, time.monotonic() - started, len(found)), flush=True)
        self.assertEqual(found, [])
        self.assertGreater(covered, 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)

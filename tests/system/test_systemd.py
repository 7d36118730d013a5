#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""System suite, second stage: Debian 12 with systemd 252 and dbus on
Debian's kernel (tests/system/ssdt.asl's ACPI machine), the package built from
this tree with dpkg-buildpackage and installed with apt, as users install
it.  thermald runs first, as on an Ubuntu laptop.  The checks run in
order, each on what the one before left: install with nothing to control
(the unit skipped with why, thermald left running), a zone configured (the
service active, READY and STATUS, thermald stopped), powerallocctl as root
and as a user, the zone controlled through the kernel's trip events under
the unit's sandbox, reload, a cap rewritten by a shell loop (counted on the
bus), what a user may not do, stop (thermald back),
SIGKILL (ExecStopPost restores, Restart= restarts), suspend to idle by
logind (the resume said, the caps written again), the
daemon from a root shell, purge (thermald back).

usage: test_systemd.py [unittest args]
"""
import glob
import os
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "package"))
import vm  # noqa: E402
from test_package import copy_source  # noqa: E402
from shell_guest import config, TZ, POLICY, FAN, MAX_KHZ, BACKOFF_MAX_S  # noqa: E402

guest = None
workdir = None
checks_start = 0.0
PAYLOAD = "/root/payload"


def build_deb(workdir):
    """The .deb of this tree, as a user builds it."""
    src = os.path.join(workdir, "powerallocd")
    copy_source(src)
    env = dict(os.environ, DEB_BUILD_OPTIONS="noddebs nocheck parallel=%d" % (os.cpu_count() or 1))
    vm.must(["dpkg-buildpackage", "-us", "-uc", "-b"], cwd=src, env=env, timeout=900)
    debs = glob.glob(os.path.join(workdir, "powerallocd_*.deb"))
    if len(debs) != 1:
        raise RuntimeError("dpkg-buildpackage made %s" % debs)
    return debs[0]


def setUpModule():
    global guest, workdir
    if os.geteuid() != 0:
        raise unittest.SkipTest("mmdebstrap and the root file system's image need root")
    workdir = tempfile.mkdtemp(prefix="powerallocd-vm-systemd.")
    kernel = vm.Kernel()
    with vm.Stages.timed("systemd stage: dpkg-buildpackage"):
        deb = build_deb(workdir)
    image = vm.rootfs_image(kernel)
    payload = os.path.join(workdir, "payload.tar")
    vm.tar_payload(payload, [(deb, "powerallocd.deb")])
    initrd = os.path.join(workdir, "initrd.gz")
    vm.root_initramfs(initrd, kernel)
    with vm.Stages.timed("systemd stage: boot"):
        guest = vm.Guest(workdir, kernel, initrd, memory_mb=1024,
                         drives=[(image + ",snapshot=on", "raw"), (payload, "raw")])
        unittest.addModuleCleanup(guest.stop)
        guest.connect(timeout=600)
        guest.wait("systemctl is-system-running | grep -Eq 'running|degraded'",
                   "systemd to finish booting", timeout=600, interval=2)
        guest.check("mkdir -p %s && tar -xf /dev/vdb -C %s" % (PAYLOAD, PAYLOAD))
        guest.wait_cpufreq()
        start_thermald()
    global checks_start
    checks_start = time.monotonic()


# Debian's thermald.service skips virtual machines (ConditionVirtualization=no)
# and thermald refuses a CPU model it does not know (QEMU's qemu64 is family
# 15): this drop-in lets the real thermald run in the guest.
THERMALD_DROPIN = """[Unit]
ConditionVirtualization=
[Service]
ExecStart=
ExecStart=/usr/sbin/thermald --systemd --dbus-enable --adaptive --ignore-cpuid-check
"""


def start_thermald():
    guest.check("mkdir -p /etc/systemd/system/thermald.service.d && cat > "
                "/etc/systemd/system/thermald.service.d/vmtest.conf <<'EOF'\n%sEOF\n"
                "systemctl daemon-reload && systemctl restart thermald" % THERMALD_DROPIN)
    guest.wait("systemctl is-active thermald", "thermald active", timeout=120, interval=1)


def tearDownModule():
    vm.close_stage("systemd", guest, workdir, checks_start)


class Systemd(unittest.TestCase):
    maxDiff = None

    def tearDown(self):
        if vm.failed(self):
            print("--- the journal's last lines:\n%s\n%s" % (
                guest.run("journalctl -b --no-pager -n 40")[1], guest.console_tail()),
                file=sys.stderr)

    def wait_journal(self, pattern, what, timeout=120):
        """The unit's journal of this boot, once a line matches pattern (grep -E)."""
        guest.wait("journalctl -b -u powerallocd --no-pager -o cat | grep -E -- '%s'"
                   % pattern, what, timeout=timeout, interval=1)
        return guest.check("journalctl -b -u powerallocd --no-pager -o cat")

    def wait_active(self):
        guest.wait("systemctl is-active powerallocd", "powerallocd.service active",
                   timeout=120, interval=1)

    def main_pid(self):
        return int(guest.check("systemctl show -P MainPID powerallocd").strip())

    def assert_restored(self):
        guest.wait("grep -qx step_wise %s/policy && grep -qx step_wise %s/policy" %
                   (TZ % 0, TZ % 1), "both zones back on step_wise", timeout=60)
        for cpu in (0, 1):
            self.assertEqual(int(guest.read(POLICY % cpu)), MAX_KHZ, "cap of CPU %d" % cpu)

    def wait_controlled(self):
        guest.wait("grep -qx user_space %s/policy" % (TZ % 0), "thermal_zone0 taken",
                   timeout=120)
        guest.wait("test $(cat %s) -lt %d" % (POLICY % 0, MAX_KHZ), "CPU 0 capped",
                   timeout=120)

    def thermald_active(self):
        return guest.run("systemctl is-active thermald")[0] == 0

    def test_1_install_with_nothing_to_control_leaves_thermald(self):
        """The shipped example configures nothing, and automatic configuration
        takes none of the guest's ACPI zones (only Processor devices): the
        unit is skipped, not failed, with why in the journal, and the
        thermald that ran before runs on, the same process."""
        thermald_pid = guest.check("systemctl show -P MainPID thermald").strip()
        self.assertNotEqual(thermald_pid, "0")
        out = guest.check("DEBIAN_FRONTEND=noninteractive apt-get install -y "
                          "--no-install-recommends %s/powerallocd.deb 2>&1" % PAYLOAD,
                          timeout=600)
        self.assertIn("Setting up powerallocd", out)
        log = self.wait_journal("nothing to do, powerallocd does not start",
                                "the condition's reason in the journal")
        self.assertIn("cpufreq_cap", log)   # why each ACPI zone is not controlled
        self.assertNotIn("Input/output error", log)
        show = guest.check("systemctl show -p ActiveState -p Result -p UnitFileState "
                           "powerallocd")
        self.assertIn("ActiveState=inactive", show)
        self.assertIn("Result=exec-condition", show)
        self.assertIn("UnitFileState=enabled", show)
        self.assertEqual(guest.run("systemctl is-failed powerallocd")[1].strip(), "inactive")
        self.assertTrue(self.thermald_active())
        self.assertEqual(guest.check("systemctl show -P MainPID thermald").strip(),
                         thermald_pid)
        # Structured fields as sd_journal_send() gives them.
        self.assertIn("PRIORITY=", guest.check(
            "journalctl -b -u powerallocd -o verbose --no-pager | head -40"))

    def test_2_a_zone_to_control_starts_it_and_stops_thermald(self):
        """Switch-on at the kernel's passive trip (60 °C) and no idle poll:
        only the kernel's trip event, through the unit's sandbox, wakes it."""
        guest.check("cat > /etc/powerallocd.conf <<'EOF'\n%sEOF" % config(
            "switch_on_temp = 60000; control_temp = 65000;", "idle_poll_ms = 0;"))
        guest.check("systemctl start powerallocd")
        self.wait_active()
        show = guest.check("systemctl show -p Type -p StatusText -p NRestarts powerallocd")
        self.assertIn("Type=notify", show)
        self.assertRegex(show, r"StatusText=\S")
        self.assertIn("NRestarts=0", show)
        self.wait_journal("listening to thermal netlink events", "the start in the journal")
        guest.wait("! systemctl is-active thermald", "thermald stopped", timeout=60, interval=1)
        guest.check("test -e /run/powerallocd-stopped-thermald")

    def test_3_status_as_root_and_as_a_user(self):
        out = guest.check("powerallocctl status")
        self.assertIn("powerallocd", out.lower())
        out = guest.check("runuser -u tester -- powerallocctl status")
        self.assertIn("powerallocd", out.lower())
        guest.check("runuser -u tester -- powerallocctl status --json | grep -q '\"zones\"'")

    def test_4_configured_zone_controlled_through_trip_events(self):
        """The zone test_2 configured, reloaded."""
        guest.check("systemctl reload powerallocd")
        self.wait_journal("reloaded", "the reload said")
        self.wait_active()
        guest.wait("grep -qx user_space %s/policy" % (TZ % 0), "thermal_zone0 taken")
        guest.set_temp(0, 62000)
        self.wait_journal("switch-on 60\\.00 °C crossed", "the zone woken by the trip event")
        guest.set_temp(0, 72000)
        self.wait_controlled()
        guest.wait("test $(cat %s) = 1" % FAN, "the fan on at 72 °C", timeout=120)
        # A fan on is cooling, not held back (issue 32, 5).
        status = guest.wait("powerallocctl status | grep -E 'Fan.* cooling at '",
                            "the fan cooling", timeout=60)
        self.assertNotIn("lowest-state", status)
        self.assertNotIn("limited", status)

    def test_4a_a_cap_rewritten_by_a_loop_is_counted_on_the_bus(self):
        """The zone test_4 controls: a shell loop rewrites CPU 0's cap every
        0.2 s; the daemon writes its own back, warns once, and the actor's
        ExternalWrites counts it; the loop killed, the cap is ours again."""
        loop = int(guest.check("(while :; do echo %d > %s; sleep 0.2; done) >/dev/null 2>&1 & "
                               "echo $!" % (MAX_KHZ, POLICY % 0)).split()[-1])
        try:
            self.wait_journal("scaling_max_freq: fought over", "the fight in the journal")
        finally:
            # Stopped at once: each fight doubles the back-off, and a slow
            # machine's waits would otherwise let it reach its longest.
            guest.run("kill %d" % loop)
        guest.wait("for a in /org/powerallocd1/actor/0 /org/powerallocd1/actor/1; do "
                   "busctl get-property org.powerallocd1 $a org.powerallocd1.Actor "
                   "ExternalWrites; done | grep -Eq '^u [1-9]'",
                   "ExternalWrites on the bus", timeout=60, interval=1)
        # Ours back within the back-off (at most BACKOFF_MAX_S after the loop's last write).
        try:
            guest.wait("test $(cat %s) -lt %d" % (POLICY % 0, MAX_KHZ), "CPU 0 capped again",
                       timeout=BACKOFF_MAX_S + 60)
        except vm.GuestError as e:
            # On the exception's first line: CI keeps only the first lines of why.
            said = guest.check("journalctl -b -u powerallocd --no-pager -o cat | "
                               "grep -E 'policy0|cpufreq-cap-0|zone cpu' | tail -3")
            raise vm.GuestError("CPU 0 not capped again; the journal last said: %s\n%s"
                                % (" | ".join(said.splitlines()), e))
        log = guest.check("journalctl -b -u powerallocd --no-pager -o cat")
        # Once for the loop's file; the kernel's own frequency limits (the ACPI
        # zone left to the kernel cools the CPUs through the same policies)
        # may show in the files as writes too, and be said apart.
        self.assertEqual(log.count("policy0/scaling_max_freq: fought over"), 1, log[-3000:])
        self.wait_active()

    def test_5_a_user_may_not_reload_or_limit(self):
        rc, out = guest.run("runuser -u tester -- powerallocctl reload")
        self.assertNotEqual(rc, 0, out)
        rc, out = guest.run("runuser -u tester -- powerallocctl limit 500mW --lease 60 2>&1")
        self.assertNotEqual(rc, 0, out)
        self.assertIn("permission denied", out)
        for call in ("Reload", "SetPowerLimit uu 1000 60"):
            rc, out = guest.run("runuser -u tester -- busctl call org.powerallocd1 "
                                "/org/powerallocd1 org.powerallocd1.Manager " + call)
            self.assertNotEqual(rc, 0, out)
            self.assertRegex(out, "(?i)denied|not allowed|permission", out)
        self.assertEqual(guest.check("busctl get-property org.powerallocd1 /org/powerallocd1 "
                                     "org.powerallocd1.Manager PowerLimit").strip(), "u 0")
        self.wait_active()

    def test_6_stop_restores_and_gives_back_to_thermald(self):
        guest.check("systemctl stop powerallocd")
        self.assert_restored()
        guest.wait("systemctl is-active thermald", "thermald started again", timeout=60,
                   interval=1)
        guest.check("systemctl start powerallocd")
        self.wait_active()
        self.wait_controlled()
        guest.wait("! systemctl is-active thermald", "thermald stopped", timeout=60, interval=1)

    def test_7_sigkill_is_restored_by_execstoppost_then_restarted(self):
        pid = self.main_pid()
        guest.check("systemctl kill -s KILL powerallocd")
        # ExecStopPost (powerallocd --restore) puts the limits back, then
        # Restart=on-failure starts a new daemon that takes the zone again.
        self.wait_journal("restored [0-9]+ files? from /run/powerallocd/state",
                          "ExecStopPost's restore in the journal")
        guest.wait("test \"$(systemctl show -P NRestarts powerallocd)\" -ge 1",
                   "the restart", timeout=120, interval=1)
        self.wait_active()
        self.assertNotEqual(self.main_pid(), pid)
        self.wait_controlled()

    @staticmethod
    def console_count(text):
        with open(guest.console, errors="replace") as f:
            return f.read().count(text)

    def suspend_lifted_cap(self, suspend, seen_by):
        """The cap of CPU 0 lifted behind the daemon's back (as firmware
        may do across a suspend), then @suspend started: once the guest's
        console says it suspended, and 5 s on, a command on the agent's
        port (made a wakeup source) wakes it.  The daemon says that it
        resumed, seen by @seen_by, and caps CPU 0 again."""
        self.wait_controlled()
        said = int(guest.check("journalctl -b -u powerallocd --no-pager -o cat | "
                               "grep -c 'resumed after' || true").strip())
        suspended = self.console_count("Suspending console")
        guest.check("echo %d > %s" % (MAX_KHZ, POLICY % 0))
        guest.check("(%s) >/dev/null 2>&1 &" % suspend)
        end = time.monotonic() + 120
        while self.console_count("Suspending console") == suspended:
            self.assertLess(time.monotonic(), end, guest.console_tail())
            time.sleep(0.5)
        time.sleep(5)   # asleep for this long, then woken by the next command
        log = self.wait_journal("resumed after [0-9.]+ s asleep \\(seen by %s\\)" % seen_by,
                                "the resume said", timeout=180)
        self.assertEqual(log.count("resumed after"), said + 1, log)
        self.wait_controlled()
        self.wait_active()
        return log

    def test_7b_a_suspend_to_idle_is_resumed(self):
        """Suspend to idle (s2idle; the guest has no S3).  QEMU raises no
        wakeup for the RTC's alarm outside S3, so the agent's serial port
        is the wakeup source.  Through logind (systemctl suspend with
        SuspendState=freeze) the daemon saves its models and stops before,
        says its resume after and writes its caps again."""
        guest.check("mkdir -p /etc/systemd/sleep.conf.d && printf '[Sleep]\\nSuspendState="
                    "freeze\\n' > /etc/systemd/sleep.conf.d/freeze.conf")
        guest.check("echo enabled > /sys/class/tty/ttyS1/power/wakeup")
        log = self.suspend_lifted_cap("systemctl suspend", "logind")
        self.assertIn("going to sleep: thermal models saved, control stopped", log)
        # Not here: the kernel alone (freeze into /sys/power/state), which
        # the daemon sees only in its clocks.  In this guest s2idle returns
        # within the second and CLOCK_BOOTTIME - CLOCK_MONOTONIC does not
        # grow (logind's resume says "0.0 s asleep"), so there is nothing to
        # see; tests/daemon/test_sleep.py covers it with a faked clock.

    def test_8_from_a_root_shell_logs_on_the_terminal(self):
        guest.check("systemctl stop powerallocd")
        self.assert_restored()
        pid = int(guest.check("powerallocd >/tmp/shell.log 2>&1 & echo $!").split()[-1])
        guest.wait("grep -F 'listening to thermal netlink events' /tmp/shell.log",
                   "the start lines on the terminal", timeout=120)
        guest.check("kill -INT %d" % pid)
        guest.wait("! kill -0 %d 2>/dev/null" % pid, "powerallocd to exit on SIGINT")
        self.assert_restored()
        guest.check("systemctl start powerallocd")
        self.wait_active()
        self.wait_controlled()

    def test_9_purge_restores_and_removes_everything(self):
        guest.check("DEBIAN_FRONTEND=noninteractive apt-get purge -y powerallocd 2>&1",
                    timeout=600)
        self.assert_restored()
        # The thermald the unit stopped runs again.
        guest.wait("systemctl is-active thermald", "thermald started again", timeout=60,
                   interval=1)
        guest.check("test ! -e /run/powerallocd-stopped-thermald")
        left = guest.run("ls -d /etc/powerallocd.conf /var/lib/powerallocd /run/powerallocd "
                         "/usr/sbin/powerallocd /usr/bin/powerallocctl "
                         "/lib/systemd/system/powerallocd.service "
                         "/etc/systemd/system/multi-user.target.wants/powerallocd.service "
                         "/usr/share/dbus-1/system.d/org.powerallocd1.conf 2>/dev/null")[1]
        self.assertEqual(left.strip(), "")
        rc, _ = guest.run("systemctl is-active powerallocd")
        self.assertNotEqual(rc, 0)


if __name__ == "__main__":
    unittest.main(verbosity=2, failfast=True)

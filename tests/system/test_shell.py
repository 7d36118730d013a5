#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""System suite, first stage: the built daemon on Debian 12's kernel in a
busybox initramfs, run as a person runs it from a shell: default log target,
default paths (/etc/powerallocd.conf, /run/powerallocd, /var/lib/powerallocd,
none of which exists at boot), no journald, no D-Bus.  The guest's hardware
is tests/system/ssdt.asl: thermal_zone0 (acpitz, passive 60 °C, the fan at
70 °C), thermal_zone1 (acpitz, passive 80 °C), two CPUs on acpi-cpufreq
(800-2400 MHz), an ACPI fan, an ACPI power meter (acpi_power_meter); the
guest and each test's start are shell_guest.py's.

usage: POWERALLOCD=build/daemon/powerallocd test_shell.py [unittest args]
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shell_guest  # noqa: E402
import vm  # noqa: E402
from shell_guest import (BACKOFF_MAX_S, FAN, LOG, MAX_KHZ, METRICS, OPPS, POLICY, TOP_MW,  # noqa: E402
                         TZ, Shell, config)

guest = None


def setUpModule():
    global guest
    guest = shell_guest.boot()


def tearDownModule():
    shell_guest.stop()


class Logging(Shell):
    def test_default_log_target_prints_on_stderr_without_journald(self):
        """No journald here: the default target (auto) writes to stderr."""
        self.write_config(config("switch_on_temp = 55000; control_temp = 65000;"))
        self.start()
        self.wait_log("thermal netlink", "the start lines on stderr", timeout=60)
        guest.check("kill -TERM %d" % self.pid)
        self.wait_exit("powerallocd to exit on SIGTERM")

    def test_closed_stderr_is_not_given_to_a_file(self):
        """Started with 2>&-: descriptor 2 is /dev/null, not the next file
        opened (a sysfs attribute, the state file), which would get the log."""
        self.write_config(config("switch_on_temp = 55000; control_temp = 65000;"))
        guest.set_temp(0, 72000)
        self.start("-l debug --log-target stderr", "2>&- >/dev/null")
        self.wait_taken()
        self.wait_capped()
        self.assertEqual(guest.check("readlink /proc/%d/fd/2" % self.pid).strip(), "/dev/null")
        self.assertNotIn("debug", guest.check("cat /run/powerallocd/state"))
        guest.check("kill -TERM %d" % self.pid)
        self.wait_exit("powerallocd to exit on SIGTERM")
        self.assert_restored()

    def test_no_warning_for_an_attribute_the_kernel_refuses(self):
        """This kernel answers EIO for an ACPI zone's sustainable_power."""
        rc, out = guest.run("powerallocd --check-config 2>&1")
        self.assertNotIn("sustainable_power", out)
        self.assertNotIn("Input/output error", out)
        self.write_config(config("switch_on_temp = 55000; control_temp = 65000;"))
        rc, out = guest.run("powerallocd --check-config 2>&1")
        self.assertEqual(rc, 0, out)
        self.assertNotIn("Input/output error", out)


class Zones(Shell):
    def test_ambiguous_sensor_is_refused_with_the_zones_to_choose(self):
        self.write_config(config("switch_on_temp = 55000; control_temp = 65000;",
                                 sensor="acpitz"))
        rc, out = guest.run("powerallocd --check-config 2>&1")
        self.assertNotEqual(rc, 0, out)
        self.assertIn('sensor "acpitz" is the type of 2 thermal zones', out)
        self.assertRegex(out, r"thermal_zone0 \([\d.]+ °C\), thermal_zone1")
        self.assertIn('sensor = "thermal_zone0"', out)

    def test_automatic_configuration_says_why_an_acpi_zone_is_left(self):
        """One passive trip, bound to Processor devices without a power
        model: said at the default level, with the keys that would help;
        nothing to control: exit status 5."""
        rc, out = guest.run("powerallocd --check-config 2>&1")
        self.assertEqual(rc, 5, out)
        self.assertNotIn("two needed", out)
        self.assertRegex(out, r"thermal_zone0.*acpitz")
        self.assertIn("cpufreq_cap", out)
        self.assertIn("opps", out)

    def test_single_passive_trip_zone_controls_at_its_trip(self):
        """No switch_on_temp or control_temp: the passive trip (60 °C) is the
        control temperature and the zone is always on, as in the kernel."""
        self.write_config(config())
        rc, out = guest.run("powerallocd --check-config 2>&1")
        self.assertEqual(rc, 0, out)
        self.assertIn("control 60000 m°C", out)
        guest.set_temp(0, 66000)
        self.start("-l debug")
        self.wait_taken()
        self.wait_capped()
        guest.check("kill -TERM %d" % self.pid)
        self.wait_exit("powerallocd to exit on SIGTERM")
        self.assert_restored()

    def test_kernel_trip_events_wake_an_idle_zone(self):
        self.write_config(config("switch_on_temp = 60000; control_temp = 65000;",
                                 "idle_poll_ms = 0;"))
        self.start("-l debug --log-target stderr")
        self.wait_log("listening to thermal netlink events", "netlink", timeout=60)
        self.wait_taken()
        # The kernel sends the event when a poll (every second: _TZP) finds
        # the zone over a trip it was under at the poll before: let it poll
        # 40 °C, set by setUp, before 61 °C (else a zone left at 61 °C by an
        # earlier test would cross nothing).
        guest.check("sleep 3")
        guest.set_temp(0, 61000)
        self.wait_log(r"thermal event tz_trip_up \(zone 0, trip 1", "the kernel's trip event")
        self.wait_log("switch-on 60.00 °C crossed", "the zone woken")
        guest.check("kill -TERM %d" % self.pid)
        self.wait_exit("powerallocd to exit")
        self.assert_restored()

    def test_switch_on_below_the_kernels_first_trip_is_noticed(self):
        """Switch-on at 55 °C, the kernel's first trip at 60 °C, no idle poll:
        57 °C must wake the zone without a trip event."""
        self.write_config(config("switch_on_temp = 55000; control_temp = 65000;",
                                 "idle_poll_ms = 0;"))
        self.start("--log-target stderr")
        self.wait_log("listening to thermal netlink events", "netlink", timeout=60)
        guest.set_temp(0, 57000)
        self.wait_log("switch-on 55.00 °C crossed", "the zone woken at 57 °C", timeout=30)
        guest.check("kill -TERM %d" % self.pid)
        self.wait_exit("powerallocd to exit")

    def test_idle_cpus_in_a_hot_zone_keep_their_caps(self):
        """15 °C over control with both CPUs idle: the caps stay down, no
        grant flips to the maximum and back."""
        self.write_config(config("switch_on_temp = 55000; control_temp = 60000;"))
        guest.set_temp(0, 75000)
        self.start("--log-target stderr --trace /tmp/trace.csv")
        self.wait_capped()
        # 200 periods of 100 ms or more (a line per actor and per fan-like device).
        guest.wait("test $(grep -c ',cpu,' /tmp/trace.csv) -gt 1000", "200 periods traced",
                   timeout=240, interval=2)
        trace = guest.check("cat /tmp/trace.csv")
        guest.check("kill -TERM %d" % self.pid)
        self.wait_exit("powerallocd to exit")
        states = {}
        for line in trace.splitlines():
            f = line.split(",")
            if len(f) > 16 and f[1] == "cpu" and f[3] == "1" and int(f[15]) > 0:
                states.setdefault(f[10], []).append((int(f[14]), int(f[16])))
        self.assertEqual(len(states), 2, trace[:500])
        for actor, rows in states.items():
            rows = rows[len(rows) // 4:]     # after the approach
            changes = sum(1 for a, b in zip(rows, rows[1:]) if a[1] != b[1])
            at_max = sum(1 for granted, _ in rows if granted >= TOP_MW)
            self.assertLessEqual(changes, 2, "%s changed state %d times in %d periods" %
                                 (actor, changes, len(rows)))
            self.assertEqual(at_max, 0, "%s granted its maximum in %d of %d periods" %
                             (actor, at_max, len(rows)))
        self.assert_restored()


class Stopping(Shell):
    def controlled(self, args="", redirect="> %s 2>&1" % LOG):
        """The daemon started from a shell with the default paths, the zone
        at 72 °C: over control with the caps down and the fan (its active
        trip at 70 °C) on; the fan was off at start."""
        self.write_config(config("switch_on_temp = 55000; control_temp = 65000;"))
        self.start(args, redirect)
        self.wait_taken()
        guest.set_temp(0, 72000)
        self.wait_capped()
        guest.wait("test $(cat %s) = 1" % FAN, "powerallocd's fan on at 72 °C", timeout=60)

    def test_state_directory_is_made_and_kill_9_is_restored(self):
        self.controlled()
        mode = guest.check("stat -c %a /run/powerallocd").strip()
        self.assertEqual(mode, "700")
        guest.wait("test -s /run/powerallocd/state", "the state file", timeout=30)
        self.assertNotIn("cannot write the state file", self.log())
        guest.check("kill -KILL %d" % self.pid)
        self.wait_exit("powerallocd killed")
        self.assertEqual(guest.read(TZ % 0 + "/policy"), "user_space")
        # Cool, so that the kernel, once back in charge, leaves the fan off.
        guest.set_temp(0, 40000)
        out = guest.check("powerallocd --restore 2>&1")
        self.assert_restored(fan_state=0, said="powerallocd --restore said: " + out)
        self.assertEqual(guest.check("ls -A /run/powerallocd").strip(), "", out)

    def test_a_closed_pipe_does_not_kill_it(self):
        """powerallocd 2>&1 | head -n 1: the reader gone, the daemon goes on."""
        self.write_config(config("switch_on_temp = 55000; control_temp = 65000;"))
        guest.check("rm -f /tmp/pipe /tmp/head.out; mkfifo /tmp/pipe")
        guest.check("head -n 1 /tmp/pipe > /tmp/head.out &")
        self.start("-l debug --log-target stderr", "> /tmp/pipe 2>&1")
        guest.wait("test -s /tmp/head.out", "head to read its line")
        # Debug lines at every period: each a write to the closed pipe.
        guest.check("sleep 3")
        self.assertTrue(self.alive(), "powerallocd died writing to a closed pipe")
        self.wait_taken()
        guest.set_temp(0, 72000)
        self.wait_capped()
        self.assertTrue(self.alive())
        self.assertEqual(guest.read(TZ % 0 + "/policy"), "user_space")
        guest.check("kill -TERM %d" % self.pid)
        self.wait_exit("powerallocd to exit on SIGTERM")
        self.assert_restored()

    def signal_restores(self, sig):
        self.controlled()
        guest.check("kill -%s %d" % (sig, self.pid))
        self.wait_exit("powerallocd to exit on SIG%s" % sig)
        self.assert_restored()

    def test_sigterm_restores(self):
        self.signal_restores("TERM")

    def test_sigint_restores(self):
        self.signal_restores("INT")

    def test_sigquit_restores(self):
        self.signal_restores("QUIT")

    def test_sighup_reloads_and_goes_on(self):
        self.controlled("--log-target stderr")
        guest.check("kill -HUP %d" % self.pid)
        self.wait_log("reload", "the reload said")
        guest.check("sleep 2")
        self.assertTrue(self.alive())
        self.assertEqual(guest.read(TZ % 0 + "/policy"), "user_space")
        guest.check("kill -TERM %d" % self.pid)
        self.wait_exit("powerallocd to exit")
        self.assert_restored()


def actor_metrics(text, actor):
    """{family: value} of @actor's series in a metrics file."""
    values = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[0].endswith('{actor="%s"}' % actor):
            values[fields[0].split("{")[0]] = float(fields[1])
    return values


class PowerMeter(Shell):
    """ACPI's power meter (ACPI000D in ssdt.asl, acpi_power_meter.ko): its
    hwmon device has no name and no power files, they are in hwmonN/device,
    its ACPI device (name, power1_average in µW); the daemon finds it there."""

    ACTOR = "cpufreq-cap-0-1"
    DEVICE = "/sys/bus/acpi/devices/ACPI000D:00"

    def metered_config(self, zone_keys, daemon_keys=""):
        """One cpufreq_cap actor for both CPUs, metered by the ACPI meter."""
        return """%s
zones = (
  { name = "cpu"; sensor = "thermal_zone0"; %s
    actors = ( { type = "cpufreq_cap"; cpus = "0-1"; opps = ( %s );
                 power_meter = { hwmon = "power_meter"; label = "power1"; }; } ); }
);
""" % (daemon_keys, zone_keys, OPPS)

    def set_power(self, power_mw):
        """Sets the meter and waits until it reads so (the driver re-reads each second)."""
        guest.set_power(power_mw)
        guest.wait("grep -qx %d %s/power1_average" % (power_mw * 1000, self.DEVICE),
                   "power1_average at %d mW" % power_mw, timeout=30)

    def test_check_config_names_the_meter_and_its_reading(self):
        self.set_power(4321)
        self.write_config(self.metered_config("switch_on_temp = 55000; control_temp = 60000;"))
        rc, out = guest.run("powerallocd --check-config 2>&1")
        self.assertEqual(rc, 0, out)
        self.assertRegex(out, r'power meter hwmon "power_meter" label "power1" '
                         r'\(/sys/class/hwmon/hwmon\d+/device/power1_average\): 4321 mW')

    def test_cap_actor_calibrates_its_table_from_it(self):
        """Both CPUs busy (2 x 2600 mW at 2.4 GHz by their table), no cap, the
        meter at 7800 mW: the scale learnt is about 1.5, the maximum grows.
        The meter and the temperature move a little, as live ones do (else
        stopped, stuck); each value held 1.5 s, more than the 1 s the driver
        keeps a reading, so that its re-reads cannot keep finding one."""
        guest.check("mkdir -p /tmp/metrics")
        self.set_power(7800)
        self.write_config(self.metered_config(
            "switch_on_temp = 55000; control_temp = 75000; sustainable_power = 12000;",
            'metrics_dir = "/tmp/metrics"; metrics_interval_ms = 200;'))
        guest.set_temp(0, 60000)
        loop = int(guest.check(
            "(while :; do for k in 1 0; do busybox devmem 0x%x 32 $((7800 + k)); "
            "busybox devmem 0x%x 32 $((3332 + k)); sleep 1.5; done; done) >/dev/null 2>&1 & "
            "echo $!" % (vm.POWER_METER_WORD, vm.TEMP_STORE)).split()[-1])
        try:
            guest.busy_loops(2)
            self.start("--log-target stderr")
            # The first window (4 of the meter's 1 s averages after a 1 s delay),
            # then the table rebuilt: its maximum over the table's 5.2 W.
            guest.wait("awk -v a='{actor=\"%s\"}' "
                       "'$1 == \"powerallocd_actor_power_scale_confidence_ratio\" a { c = $2 } "
                       "$1 == \"powerallocd_actor_max_power_watts\" a { m = $2 } "
                       "END { exit !(c > 0 && m > 5.3) }' %s" % (self.ACTOR, METRICS),
                       "a calibration window and the table calibrated", timeout=120,
                       interval=2)
            values = actor_metrics(guest.check("cat " + METRICS), self.ACTOR)
        finally:
            guest.run("kill %d" % loop)
            guest.stop_busy_loops()
        self.assertNotIn("dropped", self.log())
        # 1.5 at full load and 2.4 GHz; more where the load or the frequency is less.
        self.assertTrue(1.3 <= values["powerallocd_actor_power_scale_ratio"] <= 2.6, values)
        guest.check("kill -TERM %d" % self.pid)
        self.wait_exit("powerallocd to exit on SIGTERM")
        self.assert_restored()


CPU0_WRITES = 'powerallocd_actor_external_writes_total{actor="cpufreq-cap-0"}'


def counted_script(metrics):
    """A guest script that exits 0 once CPU 0's actor has external writes counted."""
    return "awk '$1 == \"%s\" && $2 > 0 { found = 1 } END { exit !found }' %s" % (
        CPU0_WRITES.replace('"', '\\"'), metrics)


class OtherWriters(Shell):
    """Another program on the files the daemon writes: the zone's policy set
    back to step_wise gives the zone up; a cap rewritten by a shell loop is
    written back, fought over once, counted, and held once the loop stops."""

    controlled = Stopping.controlled

    def test_policy_changed_by_another_writer_gives_the_zone_up(self):
        self.controlled("--log-target stderr")
        guest.check("echo step_wise > %s/policy" % (TZ % 0))
        self.wait_log('another program set thermal_zone0/policy to "step_wise": the zone is '
                      "given up", "the zone given up")
        # Its caps back as found, and left: not fought over, not taken back.
        guest.wait("test $(cat %s) = %d && test $(cat %s) = %d" %
                   (POLICY % 0, MAX_KHZ, POLICY % 1, MAX_KHZ), "both caps restored",
                   timeout=60)
        guest.check("sleep 2")
        self.assertEqual(guest.read(TZ % 0 + "/policy"), "step_wise")
        self.assertEqual(int(guest.read(POLICY % 0)), MAX_KHZ)
        self.assertEqual(self.log().count("given up"), 1, self.log())
        guest.check("kill -TERM %d" % self.pid)
        self.wait_exit("powerallocd to exit on SIGTERM")
        self.assert_restored()

    def external_writes(self):
        """powerallocd_actor_external_writes_total of CPU 0's actor, 0 before the first file."""
        rc, out = guest.run("grep '^%s' %s" % (CPU0_WRITES, METRICS))
        return int(float(out.split()[-1])) if rc == 0 and out.split() else 0

    def test_cap_rewritten_by_a_shell_loop_is_reasserted(self):
        guest.check("mkdir -p /tmp/metrics")
        self.write_config(config("switch_on_temp = 55000; control_temp = 65000;",
                                 'metrics_dir = "/tmp/metrics"; metrics_interval_ms = 200;'))
        self.start("--log-target stderr")
        self.wait_taken()
        guest.set_temp(0, 72000)
        self.wait_capped()
        loop = int(guest.check("(while :; do echo %d > %s; sleep 0.2; done) >/dev/null 2>&1 & "
                               "echo $!" % (MAX_KHZ, POLICY % 0)).split()[-1])
        try:
            self.wait_log("scaling_max_freq: fought over", "the fight said", timeout=60)
        finally:
            # Stopped at once: each fight doubles the back-off, and a slow
            # machine's waits would otherwise let it reach its longest.
            guest.run("kill %d" % loop)
        guest.wait(counted_script(METRICS), "the external writes counted", timeout=60)
        # The loop gone: ours back within the back-off (at most BACKOFF_MAX_S), and it holds.
        guest.wait("test $(cat %s) -lt %d" % (POLICY % 0, MAX_KHZ), "CPU 0 capped again",
                   timeout=BACKOFF_MAX_S + 60)
        guest.check("sleep 2")
        self.assertLess(int(guest.read(POLICY % 0)), MAX_KHZ)
        # Once for the loop's file (the kernel's own limits may show in others).
        self.assertEqual(self.log().count("policy0/scaling_max_freq: fought over"), 1,
                         self.log())
        self.assertGreater(self.external_writes(), 0)
        guest.check("kill -TERM %d" % self.pid)
        self.wait_exit("powerallocd to exit on SIGTERM")
        self.assert_restored()


if __name__ == "__main__":
    unittest.main(verbosity=2)

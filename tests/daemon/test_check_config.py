#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Configs users get wrong, through powerallocd --check-config on fixture
trees: each fails (exit status 3) with the fix in the message, the names
that exist listed where a name matched nothing or more than one thing; an
optional actor that is missing passes with a warning; automatic
configuration says why it skips each zone it skips, one line per zone; a
zone's sustainable_power that the kernel refuses to read is no warning.

usage: test_check_config.py (POWERALLOCD names the binary,
POWERALLOCD_FAULT_SHIM the fault shim)
"""
import fcntl
import os
import pty
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "fixtures"))
import fixture  # noqa: E402
from test_daemon import FAULT_SHIM, POWERALLOCD, WRAPPER, read_to_close  # noqa: E402

BAD_CONFIG = 3
NOTHING_CONTROLLABLE = 5

RK3399_ZONE = 'zones = ( { name = "cpu"; sensor = "cpu-thermal";%s\n  actors = ( %s ); } );\n'
RK3399_POLICIES = ("cpufreq policies: policy0 (CPUs 0-3, cooling_device0), "
                   "policy4 (CPUs 4-5, cooling_device1)")


class CheckConfig(unittest.TestCase):
    """A fixture tree (no load, nothing running) and a config file to check."""

    tree_name = "rk3399-dt"

    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="powerallocd-check.")
        self.tree = os.path.join(self.work, "tree")
        fixture.TREES[self.tree_name](fixture.Tree(self.tree))

    def tearDown(self):
        shutil.rmtree(self.work)

    def check(self, config, *args, eio_read=None):
        """--check-config on @config; (exit status, stdout, stderr).  @eio_read:
        a path suffix whose reads fail with EIO (tests/helpers/fault-shim.c)."""
        path = os.path.join(self.work, "powerallocd.conf")
        with open(path, "w") as f:
            f.write(config)
        env = dict(os.environ, UMOCKDEV_DIR=self.tree)
        if eio_read:
            faults = os.path.join(self.work, "faults")
            os.makedirs(faults, exist_ok=True)
            with open(os.path.join(faults, "eio-read"), "w") as f:
                f.write(eio_read)
            env.update(POWERALLOCD_FAULT_DIR=faults, LD_PRELOAD=os.path.abspath(FAULT_SHIM))
        out = subprocess.run(["umockdev-wrapper"] + WRAPPER +
                             [POWERALLOCD, "--check-config", "-c", path] + list(args),
                             env=env, capture_output=True, text=True, timeout=60)
        return out.returncode, out.stdout, out.stderr

    def assert_fails(self, config, *words):
        status, stdout, stderr = self.check(config)
        self.assertEqual(status, BAD_CONFIG, stdout + stderr)
        for w in words:
            self.assertIn(w, stderr)
        return stderr


class Values(CheckConfig):
    def test_float_where_mw_are_meant(self):
        self.assert_fails(RK3399_ZONE % (" sustainable_power = 1.5;",
                                         '{ type = "cpufreq"; cpus = "0-3"; }'),
                          "zones[0].sustainable_power: expected mW, an integer, got 1.5: "
                          "did you mean 1500 (mW)?")

    def test_degrees_where_millidegrees_are_meant(self):
        self.assert_fails(RK3399_ZONE % (" switch_on_temp = 65000; control_temp = 75;",
                                         '{ type = "cpufreq"; cpus = "0-3"; }'),
                          "zones[0].control_temp: 75 m°C is 0.075 °C: did you mean 75000 (m°C)?")

    def test_temperature_below_room(self):
        """0.75 °C: a control temperature no zone is cooled to, refused with
        the likely value; a switch-on there is only said (always on)."""
        self.assert_fails(RK3399_ZONE % (" switch_on_temp = 700; control_temp = 750;",
                                         '{ type = "cpufreq"; cpus = "0-3"; }'),
                          "zones[0].control_temp: 750 m°C is 0.750 °C, below room temperature "
                          "(20 °C): the zone would hold its actors at their lowest power "
                          "whenever it runs; did you mean 75000 (75 °C)? (control_temp is in "
                          "m°C, 20000 to 200000)")
        status, stdout, stderr = self.check(
            RK3399_ZONE % (" switch_on_temp = 700; control_temp = 75000;",
                           '{ type = "cpufreq"; cpus = "0-3"; }'))
        self.assertEqual(status, 0, stdout + stderr)
        self.assertIn("warning: " + os.path.join(self.work, "powerallocd.conf") +
                      ":1: zones[0].switch_on_temp: 700 m°C is 0.700 °C, below room temperature "
                      "(20 °C): the zone is on at any temperature; did you mean 70000 (70 °C)?",
                      stderr)

    def test_unknown_key_names_the_nearest(self):
        self.assert_fails(RK3399_ZONE % (" contol_temp = 75000;",
                                         '{ type = "cpufreq"; cpus = "0-3"; }'),
                          'zones[0].contol_temp: unknown key: did you mean "control_temp"?')
        self.assert_fails(RK3399_ZONE % ("", '{ type = "devfreq"; device = "x"; optionl = true; }'),
                          'zones[0].actors[0].optionl: unknown key: did you mean "optional"?')


RK3399_CLUSTERS = '{ type = "cpufreq"; cpus = "0-3"; }, { type = "cpufreq"; cpus = "4-5"; }'


class SustainablePower(CheckConfig):
    """sustainable_power against what the zone's actors draw together (the
    RK3399's clusters: 350 mW at their lowest, 2976 mW at their highest)."""

    RANGE = "350 to 2976 mW (its actors' lowest to highest power together, every CPU online)"

    def test_a_zero_too_many_is_refused(self):
        self.assert_fails(RK3399_ZONE % (" sustainable_power = 155000;", RK3399_CLUSTERS),
                          "err: zone cpu: sustainable_power 155000 mW is more than ten times "
                          "the most its actors draw together (2976 mW: cpufreq-cpu0 716 mW, "
                          "cpufreq-cpu4 2260 mW): at control_temp the budget would limit none "
                          "of them, and k_po would be 93000.0 mW/°C; give " + self.RANGE +
                          ", or leave it out for the default; zone skipped",
                          "1 of 1 configured zones cannot be controlled")

    def test_gains_of_zero_are_refused(self):
        self.assert_fails(RK3399_ZONE % (" sustainable_power = 2;", RK3399_CLUSTERS),
                          "err: zone cpu: sustainable_power 2 mW is less than a tenth of the "
                          "least its actors draw together (350 mW: cpufreq-cpu0 108 mW, "
                          "cpufreq-cpu4 242 mW): at control_temp the budget would hold them all "
                          "at their lowest state, and k_po would be 0.0 mW/°C (2 mW is 0.002 "
                          "W: did you mean 2000 (mW)?); give " + self.RANGE)

    def test_outside_the_range_is_said(self):
        for sp, words in (("8800", "more than the most its actors draw together (2976 mW"),
                          ("300", "less than the least its actors draw together (350 mW")):
            status, stdout, stderr = self.check(
                RK3399_ZONE % (" sustainable_power = %s;" % sp, RK3399_CLUSTERS))
            self.assertEqual(status, 0, stdout + stderr)
            self.assertIn("warning: zone cpu: sustainable_power %s mW is %s" % (sp, words),
                          stderr)
            self.assertIn("; this zone's range is " + self.RANGE, stderr)
            self.assertIn("sustainable power %s mW (config)" % sp, stdout)
        status, stdout, stderr = self.check(
            RK3399_ZONE % (" sustainable_power = 1500;", RK3399_CLUSTERS))
        self.assertEqual(status, 0, stdout + stderr)
        self.assertNotIn("sustainable_power", stderr)


class ControlAgainstTrips(CheckConfig):
    """A control_temp against its thermal zone's trips (issue 42, 2): on
    the RK3399's cpu-thermal, passive trips 0 and 1 at 70 and 75 °C,
    critical trip 2 at 95 °C.  175 °C passed silently, and a reload ran the
    zone at 97 °C under its "control"."""

    def config(self, control_mc):
        return RK3399_ZONE % (" switch_on_temp = 70000; control_temp = %d;\n"
                              "  sustainable_power = 1500;" % control_mc, RK3399_CLUSTERS)

    def test_at_or_above_the_critical_trip_is_refused(self):
        for control_mc in (175000, 95000):
            self.assert_fails(self.config(control_mc),
                              "err: zone cpu: control_temp %d m°C is at or above the critical "
                              "trip of thermal_zone0 (cpu-thermal) (trip 2, 95000 m°C), where "
                              "the kernel shuts the machine down: the zone would never be held "
                              "at it; give a control_temp under 95000 m°C; zone skipped"
                              % control_mc, "1 of 1 configured zones cannot be controlled")

    def test_above_the_highest_passive_trip_is_said(self):
        status, stdout, stderr = self.check(self.config(85000))
        self.assertEqual(status, 0, stdout + stderr)
        self.assertIn("warning: zone cpu: control_temp 85000 m°C is above the highest passive "
                      "trip of thermal_zone0 (cpu-thermal) (trip 1, 75000 m°C), where its "
                      "firmware has the kernel throttle: the zone is held hotter than its "
                      "firmware asks\n", stderr)
        self.assertEqual(stderr.count("control_temp"), 1, stderr)
        status, stdout, stderr = self.check(self.config(75000))
        self.assertEqual(status, 0, stdout + stderr)
        self.assertNotIn("control_temp", stderr)


class ControlAgainstUnsetTrips(CheckConfig):
    """x86_pkg_temp's passive trips read 0 until thermald writes one: no
    passive trip that a control_temp is above."""

    tree_name = "x86-laptop"

    def test_unset_trips_are_no_passive_trip(self):
        status, stdout, stderr = self.check(
            'zones = ( { name = "pkg"; sensor = "x86_pkg_temp"; switch_on_temp = 60000;\n'
            '  control_temp = 80000; sustainable_power = 28000;\n'
            '  actors = ( { type = "powercap"; zone = "intel-rapl:0"; } ); } );\n')
        self.assertEqual(status, 0, stdout + stderr)
        self.assertEqual(stderr, "")

    def test_temperatures_from_unset_trips_are_asked_for(self):
        """Without switch_on_temp or control_temp the trips would give 0 m°C
        (was: "control 0 m°C is not above switch-on 0 m°C"; with control_temp
        alone, a switch-on at 0 °C taken without a word)."""
        for given, missing in (("", "switch-on or control temperature"),
                               ("control_temp = 80000;", "switch-on temperature"),
                               ("switch_on_temp = 60000;", "control temperature")):
            status, stdout, stderr = self.check(
                'zones = ( { name = "pkg"; sensor = "x86_pkg_temp"; %s\n'
                '  sustainable_power = 28000;\n'
                '  actors = ( { type = "powercap"; zone = "intel-rapl:0"; } ); } );\n' % given)
            self.assertEqual(status, 3, stdout + stderr)
            self.assertIn("err: zone pkg: the passive trips of thermal_zone1 (x86_pkg_temp) read "
                          "0: unset (thermald or the firmware sets them), so they give no %s; "
                          "set control_temp and switch_on_temp; zone skipped\n" % missing, stderr)
        # One trip set by thermald (90 °C), the other still 0: still no switch-on.
        with open(os.path.join(self.tree, "sys/class/thermal/thermal_zone1/trip_point_1_temp"),
                  "w") as f:
            f.write("90000\n")
        status, stdout, stderr = self.check(
            'zones = ( { name = "pkg"; sensor = "x86_pkg_temp"; control_temp = 80000;\n'
            '  sustainable_power = 28000;\n'
            '  actors = ( { type = "powercap"; zone = "intel-rapl:0"; } ); } );\n')
        self.assertEqual(status, 3, stdout + stderr)
        self.assertIn("so they give no switch-on temperature", stderr)


class FirmwareTrips(CheckConfig):
    """The kernel's trips are data (issue 42, 2): a passive trip below 0 °C,
    at or above the critical trip, or out of order is not taken as a
    switch-on or control temperature, said once with the zone and the trip.
    The RK3399's cpu-thermal: passive trips 0 and 1 at 70 and 75 °C,
    critical trip 2 at 95 °C."""

    ZONE0 = "sys/devices/virtual/thermal/thermal_zone0/"
    CONFIG = RK3399_ZONE % (" sustainable_power = 1500;", RK3399_CLUSTERS)

    def set_trip(self, trip, temp_mc):
        with open(os.path.join(self.tree, self.ZONE0, "trip_point_%d_temp" % trip), "w") as f:
            f.write("%d\n" % temp_mc)

    def test_each_absurd_trip_is_left_and_said_once(self):
        for trip, temp_mc, why, control in (
                (0, -273000, "is below 0 °C", 75000),
                (1, 120000, "is at or above its critical trip 2 (95000 m°C)", 70000),
                (1, 65000, "is below passive trip 0 (70000 m°C) before it", 70000)):
            self.set_trip(0, 70000)
            self.set_trip(1, 75000)
            self.set_trip(trip, temp_mc)
            status, stdout, stderr = self.check(self.CONFIG)
            self.assertEqual(status, 0, stdout + stderr)
            said = ("warning: thermal_zone0 (cpu-thermal): passive trip %d (%d m°C) %s: the "
                    "firmware's value is not taken as a switch-on or control temperature\n"
                    % (trip, temp_mc, why))
            self.assertIn(said, stderr)
            self.assertEqual(stderr.count("firmware's value"), 1, stderr)
            # The trip left is control, and the zone always on.
            self.assertIn("zone cpu: thermal_zone0, always on (one passive trip), control "
                          "%d m°C" % control, stdout)

    def test_automatic_zone_on_an_absurd_trip(self):
        """Without zones: the zone with one trip left and no sustainable power in
        sysfs is not taken (the budget on an estimate would hold busy CPUs down)."""
        self.set_trip(0, -273000)
        status, stdout, stderr = self.check("")
        self.assertIn("passive trip 0 (-273000 m°C) is below 0 °C", stderr)
        self.assertNotIn("switch-on -273000", stdout)
        self.assertIn("thermal_zone0 (cpu-thermal): one passive trip (trip 1, 75.0 °C) and no "
                      "sustainable_power", stderr)


class FallingPower(CheckConfig):
    """A power table whose power falls as the frequency rises is refused with
    the OPP named (issue 42, 2): the issue's passed with "sustainable power
    108000 mW (estimated)" beside a cluster whose most is 716 mW."""

    def test_configured_opps(self):
        self.assert_fails(RK3399_ZONE % ("", '{ type = "cpufreq"; cpus = "0-3";\n'
                                         '    opps = ( { freq_khz = 408000; power_mw = 27000; },\n'
                                         '             { freq_khz = 1416000; power_mw = 179; } ); }'),
                          "powerallocd.conf:4: zones[0].actors[0].opps[1].power_mw: the power "
                          "falls as the frequency rises: 179 mW at 1416000 kHz, under opps[0]'s "
                          "27000 mW at 408000 kHz; a device draws more at a higher frequency")

    def test_device_tree_opps(self):
        """The little cluster's OPP at 1008 MHz on 700 mV, under 816 MHz's 850 mV."""
        cell = (700000).to_bytes(4, "big") * 2 + (1250000).to_bytes(4, "big")
        with open(os.path.join(self.tree, "sys/firmware/devicetree/base/opp-table-0/opp03/"
                               "opp-microvolt"), "wb") as f:
            f.write(cell)
        stderr = self.assert_fails(RK3399_ZONE % (" sustainable_power = 1500;", RK3399_CLUSTERS),
                                   "warning: cpu0: the device-tree OPPs do not make a power "
                                   "table: the power falls as the frequency rises, 49 mW at "
                                   "1008000 kHz under 58 mW at 816000 kHz; not taken")
        self.assertIn("err: zone cpu: actors[0] (line 2, cpufreq): cooling_device0 "
                      "(cpufreq-cpu0) cannot be used (see above); zone skipped", stderr)
        self.assertNotIn("no power model", stderr)


class X86SustainablePower(CheckConfig):
    """A RAPL package's range is its powercap constraint's."""

    tree_name = "x86-laptop"

    def test_powercap_range(self):
        self.assert_fails('zones = ( { name = "pkg"; sensor = "x86_pkg_temp"; '
                          'switch_on_temp = 60000;\n  control_temp = 80000; '
                          'sustainable_power = 500000;\n'
                          '  actors = ( { type = "powercap"; zone = "intel-rapl:0"; } ); } );\n',
                          "zone pkg: sustainable_power 500000 mW is more than ten times the "
                          "most its actors draw together (45000 mW: intel-rapl:0 45000 mW)",
                          "give 4500 to 45000 mW (its actors' lowest to highest power "
                          "together), or leave it out")

    def test_watts_where_milliwatts_are_meant(self):
        """28 for 28000 (issue 42, 2): said with the range and the "did you
        mean" that a temperature in °C gets (it had the range alone)."""
        self.assert_fails('zones = ( { name = "pkg"; sensor = "x86_pkg_temp"; '
                          'switch_on_temp = 60000;\n  control_temp = 80000; '
                          'sustainable_power = 28;\n'
                          '  actors = ( { type = "powercap"; zone = "intel-rapl:0"; } ); } );\n',
                          "err: zone pkg: sustainable_power 28 mW is less than a tenth of the "
                          "least its actors draw together (4500 mW: intel-rapl:0 4500 mW): at "
                          "control_temp the budget would hold them all at their lowest state, "
                          "and k_po would be 2.9 mW/°C (28 mW is 0.028 W: did you mean 28000 "
                          "(mW)?); give 4500 to 45000 mW")
        # In watts out of range too (46 W over 45 W): no "did you mean".
        stderr = self.assert_fails(
            'zones = ( { name = "pkg"; sensor = "x86_pkg_temp"; switch_on_temp = 60000;\n'
            '  control_temp = 80000; sustainable_power = 46;\n'
            '  actors = ( { type = "powercap"; zone = "intel-rapl:0"; } ); } );\n',
            "sustainable_power 46 mW is less than a tenth")
        self.assertNotIn("did you mean", stderr)


class Messages(CheckConfig):
    """What a user typed wrong is named with the fix (exit status 3)."""

    def test_whole_number_with_a_decimal_point(self):
        self.assert_fails(RK3399_ZONE % (" control_temp = 75.0;",
                                         '{ type = "cpufreq"; cpus = "0-3"; }'),
                          "zones[0].control_temp: expected m°C, an integer, got 75.0, a number "
                          "with a decimal point: did you mean 75000 (m°C)?")

    def test_misspelt_actor_type_names_the_nearest(self):
        self.assert_fails(RK3399_ZONE % ("", '{ type = "cpufrq"; cpus = "0-3"; }'),
                          'zones[0].actors[0].type: "cpufrq" is not one of: cpufreq, '
                          'cpufreq_cap, devfreq, powercap: did you mean "cpufreq"?')

    def test_valid_keys_leave_the_retired_out(self):
        stderr = self.assert_fails(RK3399_ZONE % (" target = 75000;",
                                                  '{ type = "cpufreq"; cpus = "0-3"; }'),
                                   "zones[0].target: unknown key (valid here: name, sensor,")
        for retired in ("wide_integral_bound", "budget_step_limit", "derivative_filter_ms"):
            self.assertNotIn(retired, stderr)
        # Still recognised: a warning, and the zone runs.
        status, stdout, stderr = self.check(RK3399_ZONE % (" budget_step_limit = 300;",
                                                           '{ type = "cpufreq"; cpus = "0-3"; }'))
        self.assertEqual(status, 0, stdout + stderr)
        self.assertIn("warning: " + os.path.join(self.work, "powerallocd.conf") +
                      ":1: zones[0].budget_step_limit is retired and ignored", stderr)

    def test_list_of_groups_in_square_brackets(self):
        self.assert_fails('log_level = "info";\nzones = [\n'
                          '  { name = "cpu"; sensor = "cpu-thermal";\n'
                          '    actors = ( { type = "cpufreq"; cpus = "0-3"; } ); }\n];\n',
                          "powerallocd.conf:3: syntax error: a list of groups takes parentheses, "
                          "zones = ( { ... }, { ... } ); square brackets [ ] hold only numbers, "
                          "strings or booleans")


class Names(CheckConfig):
    """A sensor or an actor that names what is not there."""

    def test_unknown_sensor_lists_the_thermal_zones(self):
        self.assert_fails(RK3399_ZONE.replace("cpu-thermal", "soc-thermal") %
                          ("", '{ type = "cpufreq"; cpus = "0-3"; }'),
                          'err: zone cpu: no thermal zone "soc-thermal"',
                          "thermal zones: thermal_zone0 (cpu-thermal), thermal_zone1 (gpu-thermal)",
                          "1 of 1 configured zones cannot be controlled")

    def test_cpus_of_no_policy_lists_the_policies(self):
        self.assert_fails(RK3399_ZONE % ("", '{ type = "cpufreq"; cpus = "0-3"; },\n'
                                         '{ type = "cpufreq"; cpus = "4-6"; }'),
                          'err: zone cpu: actors[1] (line 3, cpufreq): cpus "4-6" are not the '
                          "CPUs of one cpufreq policy; " + RK3399_POLICIES + "; zone skipped")

    def test_cap_of_part_of_a_policy_lists_the_policies(self):
        self.assert_fails(RK3399_ZONE % ("", '{ type = "cpufreq_cap"; cpus = "0-1"; }'),
                          'actors[0] (line 2, cpufreq_cap): cpus "0-1" are not whole cpufreq '
                          "policies; " + RK3399_POLICIES)

    def test_missing_devfreq_device_lists_the_devices(self):
        stderr = self.assert_fails(
            RK3399_ZONE % ("", '{ type = "cpufreq"; cpus = "0-3"; },\n'
                           '{ type = "devfreq"; device = "ff9a0000.gpu0"; }'),
            "actors[1] (line 3, devfreq): no cooling device devfreq-ff9a0000.gpu0; "
            "devfreq devices: ff9a0000.gpu (cooling_device2); zone skipped",
            "optional = true on this actor runs the zone without it")
        self.assertEqual(stderr.count("zone skipped"), 1, stderr)

    def test_optional_actor_that_is_missing_passes(self):
        status, stdout, stderr = self.check(
            RK3399_ZONE % ("", '{ type = "cpufreq"; cpus = "0-3"; },\n'
                           '{ type = "devfreq"; device = "ff9a0000.gpu0"; optional = true; }'))
        self.assertEqual(status, 0, stdout + stderr)
        self.assertIn("warning: zone cpu: actors[1] (line 3, devfreq): no cooling device "
                      "devfreq-ff9a0000.gpu0; devfreq devices: ff9a0000.gpu (cooling_device2); "
                      "optional: the zone runs without it", stderr)
        self.assertIn("1 zone controllable", stdout)
        self.assertIn("actor cpufreq-cpu0 (cpufreq)", stdout)
        self.assertNotIn("devfreq-ff9a0000.gpu", stdout)

    def test_only_optional_actors_and_none_usable(self):
        stderr = self.assert_fails(
            RK3399_ZONE % ("", '{ type = "devfreq"; device = "gpu"; optional = true; }'),
            "optional: left out, and the zone is skipped\n",
            "zone cpu: none of its optional actors is usable; zone skipped")
        self.assertNotIn("runs without it", stderr)

    def test_optional_actor_of_a_zone_skipped_for_another(self):
        """An optional actor missing, a later required one unusable: the
        optional one's line said "the zone runs without it" and the next
        line skipped the zone; now it says the zone is skipped, and the
        lines keep the config's order."""
        stderr = self.assert_fails(
            RK3399_ZONE % ("", '{ type = "devfreq"; device = "ff9a0000.gpu0"; optional = true; },\n'
                           '{ type = "cpufreq"; cpus = "0-2"; },\n'
                           '{ type = "cpufreq"; cpus = "4-6"; }'),
            "warning: zone cpu: actors[0] (line 2, devfreq): no cooling device "
            "devfreq-ff9a0000.gpu0; devfreq devices: ff9a0000.gpu (cooling_device2); "
            "optional: left out, and the zone is skipped\n",
            'err: zone cpu: actors[2] (line 4, cpufreq): cpus "4-6" are not the CPUs of one '
            "cpufreq policy; " + RK3399_POLICIES + "; zone skipped")
        self.assertNotIn("runs without it", stderr)
        self.assertEqual(stderr.count("zone skipped"), 1, stderr)
        at = [stderr.index("actors[%d]" % k) for k in range(3)]
        self.assertEqual(at, sorted(at), stderr)

    def test_optional_offered_only_where_it_runs_the_zone(self):
        """The zone's only actor unusable (issue 42, 6): "optional = true on
        this actor runs the zone without it" was offered, and following it
        gave "none of its optional actors is usable; zone skipped"."""
        stderr = self.assert_fails(
            RK3399_ZONE % ("", '{ type = "devfreq"; device = "ff9a0000.gpu0"; }'),
            "err: zone cpu: actors[0] (line 2, devfreq): no cooling device "
            "devfreq-ff9a0000.gpu0; devfreq devices: ff9a0000.gpu (cooling_device2); zone "
            "skipped: the kernel's governor keeps it (it has no other usable actor, so "
            "optional = true would not run it)")
        self.assertNotIn("runs the zone without it", stderr)
        # A usable actor after the unusable one: the hint holds.
        self.assert_fails(RK3399_ZONE % ("", '{ type = "devfreq"; device = "ff9a0000.gpu0"; },\n'
                                         '{ type = "cpufreq"; cpus = "0-3"; }'),
                          "devfreq-ff9a0000.gpu0; devfreq devices: ff9a0000.gpu "
                          "(cooling_device2); zone skipped: the kernel's governor keeps it "
                          "(optional = true on this actor runs the zone without it)")

    def test_every_unusable_actor_said_at_once(self):
        """Two unusable among usable ones: each said, with what exists, and
        the zone skipped once, with the hint for both."""
        stderr = self.assert_fails(
            RK3399_ZONE % ("", '{ type = "devfreq"; device = "ff9a0000.gpu0"; },\n'
                           '{ type = "cpufreq"; cpus = "0-3"; },\n'
                           '{ type = "cpufreq"; cpus = "4-6"; }'),
            "err: zone cpu: actors[0] (line 2, devfreq): no cooling device "
            "devfreq-ff9a0000.gpu0; devfreq devices: ff9a0000.gpu (cooling_device2)\n",
            'err: zone cpu: actors[2] (line 4, cpufreq): cpus "4-6" are not the CPUs of one '
            "cpufreq policy; " + RK3399_POLICIES + "; zone skipped: the kernel's governor "
            "keeps it (optional = true on this actor and the 1 above runs the zone without "
            "them)")
        self.assertEqual(stderr.count("zone skipped"), 1, stderr)


class X86Names(CheckConfig):
    """intel_pstate (a policy per CPU, no cooling devices) and RAPL."""

    tree_name = "x86-laptop"
    ZONE = ('zones = ( { name = "pkg"; sensor = "x86_pkg_temp"; switch_on_temp = 60000;\n'
            '  control_temp = 80000; actors = ( %s ); } );\n')

    def test_missing_powercap_zone_lists_the_zones(self):
        self.assert_fails(self.ZONE % '{ type = "powercap"; zone = "intel-rapl:1"; }',
                          'actors[0] (line 2, powercap): no powercap zone "intel-rapl:1"; '
                          "powercap zones: intel-rapl:0 (package-0); zone skipped")

    def test_cap_without_power_model_says_so_in_its_line(self):
        """intel_pstate lists no frequencies and there is no energy model: the
        line said "cannot be limited (see above)", the cause only above."""
        self.assert_fails(self.ZONE % '{ type = "cpufreq_cap"; cpus = "0-7"; }',
                          "warning: cpu0: no power model",
                          'err: zone pkg: actors[0] (line 2, cpufreq_cap): cpus "0-7" cannot be '
                          "limited: cpu0 has no power model (see above): give this actor its "
                          "opps (freq_khz with power_mw, or voltage_uv with "
                          "dynamic_power_coefficient); zone skipped")

    def test_powercap_zone_by_its_name(self):
        """zone = "package-0", the name the list shows beside intel-rapl:0,
        was refused as no powercap zone."""
        status, stdout, stderr = self.check(
            self.ZONE % '{ type = "powercap"; zone = "package-0"; }')
        self.assertEqual(status, 0, stdout + stderr)
        self.assertIn("actor intel-rapl:0 (powercap)", stdout)
        self.assertEqual(stderr, "")

    def test_powercap_name_of_two_zones(self):
        """Two packages, each with a "core" subzone that has a limit: "core"
        names neither, and the message says which to write."""
        t = fixture.Tree(self.tree)
        core = [("long_term", 10000000, 20000000, 976)]
        fixture.add_powercap_zone(t, "intel-rapl:0:0", "core", 600000000, core)
        fixture.add_powercap_zone(t, "intel-rapl:1", "package-1", 1000000000,
                                  [("long_term", 28000000, 45000000, 27983872)])
        fixture.add_powercap_zone(t, "intel-rapl:1:0", "core", 600000000, core)
        self.assert_fails(self.ZONE % '{ type = "powercap"; zone = "core"; }',
                          'actors[0] (line 2, powercap): "core" is the name of 2 powercap '
                          "zones: intel-rapl:0:0, intel-rapl:1:0; name one by its directory "
                          'name, as zone = "intel-rapl:0:0"; zone skipped')

    def test_powercap_zone_by_both_its_names(self):
        """"intel-rapl:0" and "package-0" in one zone are one device: the
        second was taken without a word (its weight not used)."""
        self.assert_fails(self.ZONE % ('{ type = "powercap"; zone = "intel-rapl:0"; },\n'
                                       '  { type = "powercap"; zone = "package-0"; weight = 2.0; }'),
                          "actors[1] (line 3, powercap): intel-rapl:0 is an actor above too, "
                          "named another way; list it once; zone skipped")

    def test_cpufreq_without_cooling_device_names_cpufreq_cap(self):
        self.assert_fails(self.ZONE % '{ type = "cpufreq"; cpus = "2"; }',
                          'policy2 has no cpufreq cooling device (type = "cpufreq_cap" limits '
                          "it through scaling_max_freq); cpufreq policies: policy0 (CPU 0, no "
                          "cooling device), policy1 (CPU 1, no cooling device)")


class ServerNames(CheckConfig):
    """16 policies of 16 CPUs: the list fits one line and says how many more."""

    tree_name = "server-256"

    def test_long_list_ends_with_how_many_more(self):
        stderr = self.assert_fails(
            'zones = ( { name = "soc"; sensor = "soc-thermal";\n'
            '  actors = ( { type = "cpufreq"; cpus = "0-7"; } ); } );\n',
            'cpus "0-7" are not the CPUs of one cpufreq policy; cpufreq policies: '
            "policy0 (CPUs 0-15, cooling_device0), policy16 (CPUs 16-31, cooling_device1), ")
        line = next(x for x in stderr.splitlines() if "cpufreq policies" in x)
        self.assertRegex(line, r"\), policy\d+ \(CPUs [\d-]+, cooling_device\d+\) and \d+ more; "
                         r"zone skipped")
        self.assertLess(len(line), 1024)


class Automatic(CheckConfig):
    """No zones configured: every zone not taken is said, with why, once."""

    def skipped(self, stderr):
        return [line for line in stderr.splitlines() if line.endswith("not controlled")]

    def test_zone_with_one_passive_trip(self):
        """gpu-thermal's one passive trip binds the GPU, and the tree gives it
        no sustainable_power: always on, its budget would rest on the GPU's
        lowest power and hold it down at any temperature; not taken, said at
        the default level with the keys that would control it."""
        status, stdout, stderr = self.check("")
        self.assertEqual(status, 0, stdout + stderr)
        self.assertIn("1 zone controllable", stdout)
        self.assertIn("zone cpu-thermal: thermal_zone0, switch-on 70000 m°C, control 75000 m°C",
                      stdout)
        self.assertNotIn("gpu-thermal", stdout)
        self.assertEqual(self.skipped(stderr), [
            "notice: thermal_zone1 (gpu-thermal): one passive trip (trip 0, 75.0 °C) and no "
            "sustainable_power: always on, as the kernel's power_allocator would run it, "
            "its budget would hold busy devices down at any temperature; a zone in "
            'powerallocd.conf with sensor = "thermal_zone1" and sustainable_power (mW) '
            "controls it, or switch_on_temp and control_temp; not controlled"])

    def test_zone_with_one_passive_trip_and_sustainable_power(self):
        """With a sustainable_power in sysfs (a device tree's sustainable-power),
        gpu-thermal is taken as the kernel's power_allocator takes it: always
        on, its one passive trip as control."""
        with open(os.path.join(self.tree, "sys/devices/virtual/thermal/thermal_zone1/"
                               "sustainable_power"), "w") as f:
            f.write("1500\n")
        status, stdout, stderr = self.check("")
        self.assertEqual(status, 0, stdout + stderr)
        self.assertIn("2 zones controllable", stdout)
        self.assertIn("zone gpu-thermal: thermal_zone1, always on (one passive trip), "
                      "control 75000 m°C\n    sustainable power 1500 mW", stdout)
        self.assertEqual(self.skipped(stderr), [])

    def test_zone_without_a_power_device_on_its_control_trip(self):
        """cpu-thermal's devices all bound to its first trip instead."""
        zone = os.path.join(self.tree, "sys/devices/virtual/thermal/thermal_zone0")
        for name in os.listdir(zone):
            if name.endswith("_trip_point"):
                with open(os.path.join(zone, name), "w") as f:
                    f.write("0\n")
        status, stdout, stderr = self.check("")
        self.assertEqual(status, NOTHING_CONTROLLABLE, stdout + stderr)
        self.assertIn("0 zones controllable", stdout)
        self.assertEqual(len(self.skipped(stderr)), 2, stderr)
        self.assertIn("notice: thermal_zone0 (cpu-thermal): no cpufreq or devfreq cooling device "
                      "is bound to its control trip (trip 1); not controlled", stderr)
        # The daemon's default level (info) has them too; err only does not.
        status, stdout, stderr = self.check("", "--log-level", "err")
        self.assertEqual(self.skipped(stderr), [])


class X86Automatic(Automatic):
    tree_name = "x86-laptop"
    PKG = "sys/devices/virtual/thermal/thermal_zone1/"
    PKG_LINE = ("zone x86_pkg_temp: thermal_zone1, switch-on %d m°C, control %d m°C\n"
                "    sustainable power 28000 mW (rapl)\n")

    def test_zone_with_one_passive_trip(self):
        """acpitz's one passive trip binds only Processor devices, which have
        no power model: said at the default level, with the keys that would
        control it.  x86_pkg_temp, its trips unset, is controlled through
        RAPL 20 and 10 °C under coretemp's TjMax (100 °C), on the firmware's
        long-term limit (28 W, under the 45 W TDP)."""
        status, stdout, stderr = self.check("")
        self.assertEqual(status, 0, stdout + stderr)
        self.assertIn("1 zone controllable", stdout)
        self.assertIn(self.PKG_LINE % (80000, 90000), stdout)
        self.assertIn("actor intel-rapl:0 (powercap), weight 1.00, sysfs limit\n"
                      "      max 28000 mW", stdout)
        self.assertIn("notice: thermal_zone1 (x86_pkg_temp): package 0, TjMax 100.0 °C "
                      "(coretemp's temp_crit); switch-on 80.0 °C, control 90.0 °C (20 and 10 °C "
                      "under TjMax); actor intel-rapl:0 (package-0), sustainable power 28000 mW "
                      "(its long-term limit, at most its TDP)", stderr)
        self.assertEqual(self.skipped(stderr), [
            "notice: thermal_zone0 (acpitz): the cooling devices on its control trip (trip 0, "
            "95.0 °C) have no power model (8 Processor); a zone in powerallocd.conf with "
            'sensor = "acpitz" and a cpufreq_cap actor (cpus = "0-7", with their opps) or a '
            "powercap actor (powercap zones: intel-rapl:0 (package-0)) can control it; not "
            "controlled"])
        # The daemon's default level (info) has them too; err only does not.
        status, stdout, stderr = self.check("", "--log-level", "err")
        self.assertEqual(self.skipped(stderr), [])

    def write(self, rel, value):
        with open(os.path.join(self.tree, rel), "w") as f:
            f.write("%s\n" % value)

    def test_both_trips_set_are_taken(self):
        self.write(self.PKG + "trip_point_0_temp", 70000)
        self.write(self.PKG + "trip_point_1_temp", 85000)
        status, stdout, stderr = self.check("")
        self.assertEqual(status, 0, stdout + stderr)
        self.assertIn(self.PKG_LINE % (70000, 85000), stdout)
        self.assertIn("control 85.0 °C (its passive trips)", stderr)

    def test_trip_0_alone_is_thermalds_and_left(self):
        """thermald writes its wake-up temperature to trip 0 alone: no range."""
        self.write(self.PKG + "trip_point_0_temp", 95000)
        status, stdout, stderr = self.check("")
        self.assertIn(self.PKG_LINE % (80000, 90000), stdout)
        self.assertIn("notice: thermal_zone1 (x86_pkg_temp): 1 of its 2 passive trips set, not "
                      "a switch-on and a control temperature under TjMax 100.0 °C (thermald "
                      "leaves its wake-up temperature in trip 0); taken from TjMax instead",
                      stderr)

    def test_tjmax_from_coretemp_else_the_default(self):
        """A TjMax of 105 °C controls at 95 °C; without coretemp, thermald's
        default TjMax (100 °C)."""
        hwmon = "sys/devices/platform/coretemp.0/hwmon/hwmon0/"
        for k in (1, 2, 3, 4, 5):
            self.write(hwmon + "temp%d_crit" % k, 105000)
        status, stdout, stderr = self.check("")
        self.assertIn(self.PKG_LINE % (85000, 95000), stdout)
        os.unlink(os.path.join(self.tree, "sys/class/hwmon/hwmon0"))
        status, stdout, stderr = self.check("")
        self.assertIn(self.PKG_LINE % (80000, 90000), stdout)
        self.assertIn("TjMax 100.0 °C (the default, no coretemp)", stderr)

    def test_without_rapl_not_controlled(self):
        os.unlink(os.path.join(self.tree, "sys/class/powercap/intel-rapl:0"))
        status, stdout, stderr = self.check("")
        self.assertIn("0 zones controllable", stdout)
        self.assertIn('notice: thermal_zone1 (x86_pkg_temp): no RAPL powercap zone named '
                      '"package-0"', stderr)

    test_zone_without_a_power_device_on_its_control_trip = None
    test_zone_with_one_passive_trip_and_sustainable_power = None


class CheckControllable(CheckConfig):
    """--check-controllable, the unit's ExecCondition=: 0 with a zone to
    control or zones configured that may yet appear, 1 with none (the unit is
    skipped), 255 when the file is unusable or refuses every zone (the unit
    fails)."""

    def controllable(self, config, tree_name):
        shutil.rmtree(self.tree)
        fixture.TREES[tree_name](fixture.Tree(self.tree))
        status, stdout, stderr = self.check(config)
        return status, stdout + stderr

    def test_exit_status(self):
        status, out = self.controllable("", "x86-laptop")
        self.assertEqual(status, 0, out)
        self.assertIn("notice: %s: 1 zone controllable" % os.path.join(self.work, "powerallocd.conf"),
                      out)
        status, out = self.controllable("", "qemu-x86")
        self.assertEqual(status, 1, out)
        self.assertIn("nothing to do, powerallocd does not start and leaves thermal control as "
                      "it is (thermald keeps running where it runs)", out)
        # A configured zone whose sensor is not there yet (a driver udev loads later):
        # the daemon starts and waits for it, as it always did.
        status, out = self.controllable('zones = ( { name = "a"; sensor = "nope"; actors = '
                                        '( { type = "powercap"; zone = "x"; } ); } );\n',
                                        "qemu-x86")
        self.assertEqual(status, 0, out)
        self.assertIn("none of the 1 configured zones can be controlled yet (see above); "
                      "powerallocd starts and takes them when their devices appear", out)
        # One the machine refuses (no user_space policy): only the file can fix it.
        status, out = self.controllable('zones = ( { name = "a"; sensor = "cpu-thermal"; '
                                        'actors = ( { type = "cpufreq"; cpus = "0-3"; } ); } );\n',
                                        "rk3399-no-user-space")
        self.assertEqual(status, 255, out)
        self.assertIn("no configured zone can be controlled (1 configured", out)
        status, out = self.controllable("zones = ( {\n", "qemu-x86")
        self.assertEqual(status, 255, out)
        self.assertIn("syntax error", out)

    def check(self, config, *args, eio_read=None):
        path = os.path.join(self.work, "powerallocd.conf")
        with open(path, "w") as f:
            f.write(config)
        out = subprocess.run(["umockdev-wrapper"] + WRAPPER +
                             [POWERALLOCD, "--check-controllable", "-c", path,
                              "--log-target", "stderr"] + list(args),
                             env=dict(os.environ, UMOCKDEV_DIR=self.tree), capture_output=True,
                             text=True, timeout=60)
        return out.returncode, out.stdout, out.stderr


class QemuX86(CheckConfig):
    """The QEMU guest of the system tests: two acpitz zones with one passive
    trip each on Processor devices, acpi-cpufreq, no RAPL."""

    tree_name = "qemu-x86"
    CAP = ('{ type = "cpufreq_cap"; cpus = "0-1";\n'
           '  opps = ( { freq_khz = 800000; power_mw = 500; },\n'
           '           { freq_khz = 2400000; power_mw = 2000; } ); }')

    def test_automatic_says_how_to_control_each_zone(self):
        """Nothing controllable: exit status 5, as --check-controllable's 1
        (it was 0, and a CI gate on the check passed)."""
        status, stdout, stderr = self.check("")
        self.assertEqual(status, NOTHING_CONTROLLABLE, stdout + stderr)
        self.assertIn("0 zones controllable", stdout)
        self.assertIn(os.path.join(self.work, "powerallocd.conf") + ": no zones configured and "
                      "none that automatic configuration controls (see above): powerallocd "
                      "would control nothing\n", stderr)
        for zone, trip_c in ((0, "60.0"), (1, "70.0")):
            self.assertIn("notice: thermal_zone%d (acpitz): the cooling devices on its control "
                          "trip (trip 1, %s °C) have no power model (2 Processor); a zone in "
                          'powerallocd.conf with sensor = "thermal_zone%d" and a cpufreq_cap '
                          'actor (cpus = "0-1", with their opps) can control it; not controlled'
                          % (zone, trip_c, zone), stderr)
        self.assertNotIn("two needed", stderr)

    def test_ambiguous_sensor_lists_the_zones(self):
        """sensor = "acpitz" names two zones: refused, each listed with its
        temperature, and the way to name one."""
        self.assert_fails('zones = ( { name = "cpu"; sensor = "acpitz"; switch_on_temp = 50000;\n'
                          "  control_temp = 60000; actors = ( %s ); } );\n" % self.CAP,
                          'err: zone cpu: sensor "acpitz" is the type of 2 thermal zones: '
                          "thermal_zone0 (40.0 °C), thermal_zone1 (45.0 °C); name one by its "
                          'directory name: sensor = "thermal_zone0"; zone skipped',
                          "1 of 1 configured zones cannot be controlled")
        self.assert_fails('zones = ( { name = "skin"; sensor = { max = [ "acpitz" ]; };\n'
                          "  switch_on_temp = 50000; control_temp = 60000; actors = ( %s ); } );\n"
                          % self.CAP,
                          'err: zone skin: input "acpitz" is the type of 2 thermal zones: '
                          "thermal_zone0 (40.0 °C), thermal_zone1 (45.0 °C); name one by its "
                          'directory name, as "thermal_zone0"; zone skipped')

    def test_zone_named_by_directory_is_always_on(self):
        """thermal_zone1 with a cpufreq_cap actor and no temperatures: its one
        passive trip is control, and it has no switch-on."""
        status, stdout, stderr = self.check(
            'zones = ( { name = "cpu"; sensor = "thermal_zone1"; actors = ( %s ); } );\n'
            % self.CAP)
        self.assertEqual(status, 0, stdout + stderr)
        self.assertIn("1 zone controllable", stdout)
        self.assertIn("zone cpu: thermal_zone1, always on (one passive trip), control 70000 m°C",
                      stdout)

    def test_sustainable_power_refused_is_no_warning(self):
        """ACPI zones answer EIO for sustainable_power (no governor parameters):
        taken as unset without a word, configured zone or not."""
        for config, expected in (("", NOTHING_CONTROLLABLE),
                                 ('zones = ( { name = "cpu"; sensor = "thermal_zone1"; '
                                  "actors = ( %s ); } );\n" % self.CAP, 0)):
            status, stdout, stderr = self.check(config, eio_read="/sustainable_power")
            self.assertEqual(status, expected, stdout + stderr)
            self.assertNotIn("sustainable_power", stderr)
            self.assertNotIn("warning", stderr)
        # A value that is there but wrong is still said, for a zone in use.
        with open(os.path.join(self.tree, "sys/devices/virtual/thermal/thermal_zone1/"
                               "sustainable_power"), "w") as f:
            f.write("lots\n")
        status, stdout, stderr = self.check(config)
        self.assertIn("warning: /sys/class/thermal/thermal_zone1/sustainable_power: not a "
                      "number; taken as unset", stderr)
        self.assertEqual(stderr.count("sustainable_power"), 1, stderr)

    METERED_CAP = ('zones = ( { name = "cpu"; sensor = "thermal_zone1";\n'
                   '  actors = ( { type = "cpufreq_cap"; cpus = "0-1"; power_meter = %s;\n'
                   '    opps = ( { freq_khz = 800000; power_mw = 500; },\n'
                   '             { freq_khz = 2400000; power_mw = 2000; } ); } ); } );\n')

    def test_acpi_power_meter_and_its_reading(self):
        """ACPI's power meter registers the old way: no name in hwmon1, its
        power1_average (µW) in hwmon1/device.  Found there, by its channel's
        name or its path, and read."""
        average = "/sys/class/hwmon/hwmon1/device/power1_average"
        status, stdout, stderr = self.check(
            self.METERED_CAP % '{ hwmon = "power_meter"; label = "power1"; }')
        self.assertEqual(status, 0, stdout + stderr)
        self.assertIn('power meter hwmon "power_meter" label "power1" (%s): 4321 mW' % average,
                      stdout)
        status, stdout, stderr = self.check(self.METERED_CAP % ('"%s"' % average))
        self.assertEqual(status, 0, stdout + stderr)
        self.assertIn("power meter %s: 4321 mW" % average, stdout)
        self.assert_fails(self.METERED_CAP % '{ hwmon = "power_meter"; label = "Power1"; }',
                          'hwmon "power_meter" has no channel labelled "Power1" (did you mean '
                          '"power1"?); hwmon devices: acpitz (hwmon0): no power channels; '
                          "power_meter (hwmon1): power1")


class SharedActors(CheckConfig):
    """The Exynos5422's four CPU zones share both clusters (automatic
    configuration): each table was printed under every zone, four times."""

    tree_name = "odroid-xu4"

    def test_each_actor_printed_once(self):
        status, stdout, stderr = self.check("")
        self.assertEqual(status, 0, stdout + stderr)
        self.assertIn("4 zones controllable", stdout)
        for actor in ("cpufreq-cpu0", "cpufreq-cpu4"):
            self.assertEqual(stdout.count("actor %s (cpufreq), weight 1.00, cooling device\n"
                                          % actor), 1, stdout)
            for zone in ("cpu1-thermal", "cpu2-thermal", "cpu3-thermal"):
                self.assertIn("zone %s:" % zone, stdout)
            self.assertEqual(stdout.count("    actor %s (cpufreq), as in zone cpu0-thermal "
                                          "above\n" % actor), 3, stdout)
        self.assertEqual(stdout.count("2000000 kHz"), 1, stdout)


class Counts(CheckConfig):
    def test_one_actor(self):
        """"1 actors" in the zone's line at info level."""
        status, stdout, stderr = self.check(RK3399_ZONE % ("", '{ type = "cpufreq"; cpus = "0-3"; }'),
                                            "--log-level", "info")
        self.assertEqual(status, 0, stdout + stderr)
        self.assertRegex(stderr, r"info: zone cpu: thermal_zone0 \(cpu-thermal\), .*, 1 actor, ")
        self.assertNotIn("1 actors", stderr)


class Terminal(CheckConfig):
    """Messages to a terminal are folded to its width (notices of 300
    characters ran off it on one line); a pipe gets them whole."""

    tree_name = "x86-laptop"

    def on_terminal(self, columns):
        """--check-config with no zones, stderr on a terminal @columns wide; its stderr."""
        path = os.path.join(self.work, "powerallocd.conf")
        with open(path, "w") as f:
            f.write("")
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
        proc = subprocess.Popen(["umockdev-wrapper"] + WRAPPER +
                                [POWERALLOCD, "--check-config", "-c", path],
                                env=dict(os.environ, UMOCKDEV_DIR=self.tree),
                                stdout=subprocess.DEVNULL, stderr=slave)
        os.close(slave)
        try:
            data = read_to_close(master, timeout=60)
        finally:
            os.close(master)
        self.assertEqual(proc.wait(timeout=60), 0)
        return data.decode().replace("\r\n", "\n")

    def test_folded_to_the_width(self):
        status, stdout, whole = self.check("")
        self.assertEqual(status, 0, stdout + whole)
        notice = [line for line in whole.splitlines() if "(acpitz)" in line][0]
        self.assertGreater(len(notice), 250)
        for columns in (80, 60):
            folded = self.on_terminal(columns)
            lines = folded.splitlines()
            self.assertTrue(all(len(line) <= columns for line in lines), folded)
            # The same words, the lines after a message's first indented.
            self.assertEqual(" ".join(w for line in lines for w in line.split()),
                             " ".join(whole.split()))
            start = [i for i, line in enumerate(lines) if "(acpitz)" in line][0]
            self.assertTrue(lines[start].startswith("notice: "))
            self.assertTrue(lines[start + 1].startswith("  ") and lines[start + 1][2] != " ",
                            folded)


METERED = ('zones = ( { name = "soc"; sensor = "cpu-thermal";\n'
           '  switch_on_temp = 60000; control_temp = 75000; sustainable_power = 2500;\n'
           '  power_meter = { hwmon = "scmi_sensors"; label = "SOC_POWER"; };\n'
           '  actors = ( { type = "cpufreq"; cpus = "4-5";\n'
           '               power_meter = { hwmon = "ina3221"; label = "%s"; }; },\n'
           '             { type = "devfreq"; device = "ff9a0000.gpu";\n'
           '               power_meter = "%s"; } ); } );\n')
HWMON_LIST = ("hwmon devices: ina3221 (hwmon0): VDD_CPU_B, VDD_CPU_L, VDD_GPU; "
              "scmi_sensors (hwmon1): SOC_POWER, BIG_CPU_ENERGY, GPU_ENERGY")


class Meters(CheckConfig):
    """Power meters on the RK3399 with an INA3221 and SCMI sensors."""

    tree_name = "rk3399-meters"

    def test_each_meter_and_its_reading(self):
        status, stdout, stderr = self.check(METERED % ("VDD_CPU_B",
                                                       "/sys/class/hwmon/hwmon1/energy2_input"))
        self.assertEqual(status, 0, stdout + stderr)
        # 900 mV x 1500 mA; SCMI's 3.2 W; a counter that does not move in the fake tree.
        self.assertIn('power meter hwmon "ina3221" label "VDD_CPU_B" '
                      '(/sys/class/hwmon/hwmon0/in1_input): 1350 mW', stdout)
        self.assertIn('board\'s power:\n      power meter hwmon "scmi_sensors" label '
                      '"SOC_POWER" (/sys/class/hwmon/hwmon1/power1_input): 3200 mW', stdout)
        self.assertIn("power meter /sys/class/hwmon/hwmon1/energy2_input: no energy counted "
                      "in 100 ms; reading in the first period", stdout)

    def test_a_label_a_typo_away(self):
        stderr = self.assert_fails(METERED % ("VDD_CPU_b", "/sys/class/hwmon/hwmon1/energy2_input"),
                                   'hwmon "ina3221" has no channel labelled "VDD_CPU_b" '
                                   '(did you mean "VDD_CPU_B"?); ' + HWMON_LIST,
                                   "1 configured power meter cannot be read")
        self.assertEqual(stderr.count("did you mean"), 1, stderr)

    def test_a_path_that_does_not_exist(self):
        self.assert_fails(METERED % ("VDD_CPU_B", "/sys/class/hwmon/hwmon2/energy1_input"),
                          '"/sys/class/hwmon/hwmon2/energy1_input": No such file or directory; '
                          + HWMON_LIST)

    def test_an_unknown_hwmon(self):
        self.assert_fails(METERED.replace('"scmi_sensors"', '"scmi"') %
                          ("VDD_CPU_B", "/sys/class/hwmon/hwmon1/energy2_input"),
                          'no hwmon device is named "scmi"; ' + HWMON_LIST)

    def test_malformed_meters(self):
        self.assert_fails(METERED % ("VDD_CPU_B", "/sys/class/hwmon/hwmon0/in1_input"),
                          '"/sys/class/hwmon/hwmon0/in1_input" is no meter: give a hwmon '
                          "powerN_input")
        self.assert_fails(METERED % ("VDD_CPU_B", "hwmon1/energy2_input"),
                          "is not a file under /sys/")
        self.assert_fails(METERED.replace('label = "%s"; ', 'lable = "%s"; ') %
                          ("VDD_CPU_B", "/sys/class/hwmon/hwmon1/energy2_input"),
                          'did you mean "label"?')
        self.assert_fails(RK3399_ZONE % ("", '{ type = "powercap"; zone = "intel-rapl:0"; '
                                         'power_meter = "/sys/class/powercap/intel-rapl:0/'
                                         'energy_uj"; }'),
                          "a powercap actor is measured by its zone's own energy_uj: "
                          "remove power_meter")


class X86Meters(CheckConfig):
    """RAPL: the package's powercap actor is metered by its energy_uj, unasked."""

    tree_name = "x86-laptop"

    def test_powercap_meter_shown(self):
        status, stdout, stderr = self.check("")
        self.assertEqual(status, 0, stdout + stderr)
        self.assertIn("power meter /sys/class/powercap/intel-rapl:0/energy_uj: no energy "
                      "counted in 100 ms; reading in the first period", stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)

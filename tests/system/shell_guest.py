# SPDX-License-Identifier: GPL-2.0-or-later
"""The shell stage's guest and what its tests share: the machine's paths
and limits and a configuration of its zone (test_systemd.py's too), the
guest booted once, and Shell, the base of each of test_shell.py's tests: no
daemon, no state, the zones cool and the kernel in charge at its start.
"""
import os
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vm  # noqa: E402

TZ = "/sys/class/thermal/thermal_zone%d"
POLICY = "/sys/devices/system/cpu/cpufreq/policy%d/scaling_max_freq"
FAN = "/sys/class/thermal/cooling_device2/cur_state"
LOG = "/tmp/powerallocd.log"
MAX_KHZ = 2400000
# Its metrics file in the tests that read it (metrics_dir = "/tmp/metrics").
METRICS = "/tmp/metrics/powerallocd.prom"

# A cpufreq_cap actor with the power of one CPU at each OPP: the ACPI machine
# has no power model of its own.
OPPS = ("{ freq_khz = 800000; power_mw = 500; }, { freq_khz = 1200000; power_mw = 900; }, "
        "{ freq_khz = 1800000; power_mw = 1600; }, { freq_khz = 2400000; power_mw = 2600; }")
TOP_MW = 2600
# The longest back-off before ours is written over another writer's, s
# (EXTERNAL_WRITE_MAX_MS in lib/control/external_write.h): how long the cap
# may stay lifted after a loop that fought over it stops.
BACKOFF_MAX_S = 64


def config(zone_keys="", daemon_keys="", sensor="thermal_zone0"):
    """A configuration of one zone on SENSOR with the two CPUs as actors."""
    actors = ",\n".join('      { type = "cpufreq_cap"; cpus = "%d"; opps = ( %s ); }' % (cpu, OPPS)
                         for cpu in (0, 1))
    return """%s
zones = (
  { name = "cpu"; sensor = "%s"; %s
    actors = (
%s
    ); }
);
""" % (daemon_keys, sensor, zone_keys, actors)


guest = None
workdir = None
checks_start = 0.0


def boot():
    """Boots the guest the shell stage's tests share (once per module); it is
    also this module's guest."""
    global guest, workdir
    daemon = os.environ.get("POWERALLOCD")
    if not daemon or not os.access(daemon, os.X_OK):
        raise unittest.SkipTest("POWERALLOCD names no built daemon")
    workdir = tempfile.mkdtemp(prefix="powerallocd-vm-shell.")
    kernel = vm.Kernel()
    with vm.Stages.timed("shell stage: initramfs"):
        initrd = os.path.join(workdir, "initrd.gz")
        vm.initramfs(initrd, kernel, vm.shell_init(), files=[(daemon, "/usr/sbin/powerallocd")],
                     modules=["fan", "acpi-cpufreq", "acpi_power_meter"])
    with vm.Stages.timed("shell stage: boot"):
        guest = vm.Guest(workdir, kernel, initrd)
        unittest.addModuleCleanup(guest.stop)
        guest.connect(timeout=300)
        guest.wait_cpufreq()
    global checks_start
    checks_start = time.monotonic()
    return guest


def stop():
    vm.close_stage("shell", guest, workdir, checks_start)


class Shell(unittest.TestCase):
    """Each test starts with no daemon, no state, 40 °C in both zones, the
    kernel's step_wise on them, every cooling device at 0 and both caps at
    the top."""

    def setUp(self):
        guest.check("""
killall -9 powerallocd 2>/dev/null
while pidof powerallocd >/dev/null; do sleep 0.1; done
rm -rf /run/powerallocd /var/lib/powerallocd /etc/powerallocd.conf %s /tmp/trace.csv
""" % LOG)
        # Cool first: a zone handed back to step_wise at 72 °C (as a test
        # that ended hot leaves it) has its fan turned back on by the next
        # poll after it is written off.  At 40 °C step_wise only lowers
        # states, one a poll (each second): wait for all of them to be 0.
        guest.set_temp(0, 40000)
        guest.set_temp(1, 40000)
        guest.check("""
for z in 0 1; do echo step_wise > /sys/class/thermal/thermal_zone$z/policy; done
for p in 0 1; do echo %d > /sys/devices/system/cpu/cpufreq/policy$p/scaling_max_freq; done
echo 0 > %s
""" % (MAX_KHZ, FAN))
        guest.wait("! grep -qvx 0 /sys/class/thermal/cooling_device*/cur_state && "
                   "test $(cat %s) = %d && test $(cat %s) = %d" %
                   (POLICY % 0, MAX_KHZ, POLICY % 1, MAX_KHZ),
                   "every cooling device at 0 and both caps at the top", timeout=60)

    def tearDown(self):
        if vm.failed(self):
            print("--- %s:\n%s\n%s" % (LOG, guest.run("tail -40 " + LOG)[1],
                                      guest.console_tail()), file=sys.stderr)

    def write_config(self, text):
        guest.check("cat > /etc/powerallocd.conf <<'EOF'\n%sEOF" % text)

    def start(self, args="", redirect="> %s 2>&1" % LOG):
        """Starts powerallocd ARGS from the shell, in the background; its pid."""
        out = guest.check("powerallocd %s %s & echo $!" % (args, redirect))
        self.pid = int(out.split()[-1])
        return self.pid

    def alive(self, pid=None):
        return guest.run("kill -0 %d" % (pid or self.pid))[0] == 0

    def log(self):
        return guest.run("cat " + LOG)[1]

    def wait_log(self, pattern, what, timeout=60):
        return guest.wait("grep -E '%s' %s" % (pattern, LOG), what, timeout=timeout)

    def wait_taken(self, zone=0):
        guest.wait("grep -qx user_space %s/policy" % (TZ % zone),
                   "thermal_zone%d on user_space" % zone, timeout=60)

    def wait_capped(self):
        guest.wait("test $(cat %s) -lt %d" % (POLICY % 0, MAX_KHZ), "CPU 0 capped", timeout=60)

    def assert_restored(self, fan_state=None, said=""):
        """Both zones back on step_wise and both caps at the top; the fan at
        fan_state where given (the kernel drives it again once restored, so
        only where the zone is below its trip)."""
        guest.wait("grep -qx step_wise %s/policy && grep -qx step_wise %s/policy" %
                   (TZ % 0, TZ % 1), "both zones back on step_wise", timeout=60)
        for cpu in (0, 1):
            self.assertEqual(int(guest.read(POLICY % cpu)), MAX_KHZ, "cap of CPU %d" % cpu)
        if fan_state is not None:
            self.assertEqual(int(guest.read(FAN)), fan_state, "the fan; " + said)

    def wait_exit(self, what, timeout=60):
        guest.wait("! kill -0 %d 2>/dev/null" % self.pid, what, timeout=timeout)

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""System suite, arm64 stage: the daemon cross-built for arm64 on Debian 12's
own arm64 kernel (linux-image-arm64, 6.1) under qemu-system-aarch64 (TCG,
virt, 4 cortex-a57), run from a shell in a busybox initramfs as a person runs
it.  The board is tests/system/arm64-soc.dtsi appended to QEMU's own device
tree: two cpufreq-dt clusters (CPUs 0-1 at 408-1200 MHz, CPUs 2-3 at
408-1800 MHz) with an Energy Model and a cpufreq cooling device each, and the
thermal zone cpu-thermal (passive 60 and 75 °C, critical 95 °C, sustainable
power 1500 mW) on a bcm2711 sensor whose register is a page of RAM the test
writes.  No configuration file: the daemon configures itself from the kernel.

usage: test_arm64.py [unittest args] (as root: the tree is cross-built for
arm64 in tools/cross's chroot), or POWERALLOCD_ARM64=.../powerallocd
POWERALLOCD_ARM64_ROOT=/path/to/arm64-root test_arm64.py: another build,
POWERALLOCD_ARM64_ROOT the root file system it was built against (its
shared libraries and loader are taken from there); POWERALLOCCTL_ARM64
names powerallocctl, by default ctl/powerallocctl of the daemon's build
directory.
"""
import os
import re
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cross  # noqa: E402
import vm  # noqa: E402

TZ = "/sys/class/thermal/thermal_zone0"
POLICY = "/sys/devices/system/cpu/cpufreq/policy%d"
STATE = "/run/powerallocd/state"
LOG = "/tmp/powerallocd.log"
# Each cluster: its first CPU (its policy, its cooling device's type
# cpufreq-cpuN), its OPPs in kHz, as arm64-soc.dtsi gives them.
CLUSTERS = {0: [408000, 600000, 816000, 1008000, 1200000],
            2: [408000, 600000, 816000, 1008000, 1200000, 1416000, 1608000, 1800000]}
MODULES = ["virtio_mmio", "virtio_console", "cpufreq-dt", "bcm2711_thermal"]

guest = None
workdir = None
checks_start = 0.0
cdev = {}       # first CPU of a cluster: its cooling device's directory


def binaries():
    """(daemon, powerallocctl or None, library root): from the environment
    where POWERALLOCD_ARM64 is set, else this tree cross-built for arm64 in
    tools/cross's chroot (root needed), whose libraries the binaries load."""
    daemon = os.environ.get("POWERALLOCD_ARM64")
    if not daemon:
        if os.geteuid() != 0:
            raise unittest.SkipTest("the arm64 cross build needs root; or give POWERALLOCD_ARM64 "
                                    "and POWERALLOCD_ARM64_ROOT")
        build = cross.Build("arm64")
        with vm.Stages.timed("arm64 stage: cross build (tools/cross)"):
            build.compile()
        return (build.binary("daemon/powerallocd"), build.binary("ctl/powerallocctl"),
                build.chroot.root)
    root = os.environ.get("POWERALLOCD_ARM64_ROOT")
    if not os.access(daemon, os.X_OK):
        raise unittest.SkipTest("POWERALLOCD_ARM64 names no arm64 build of powerallocd")
    if not root or not os.path.isdir(root):
        raise unittest.SkipTest("POWERALLOCD_ARM64_ROOT names no arm64 root file system "
                                "(the libraries powerallocd was built against)")
    ctl = os.environ.get("POWERALLOCCTL_ARM64") or os.path.join(
        os.path.dirname(os.path.dirname(daemon)), "ctl", "powerallocctl")
    return daemon, ctl if os.access(ctl, os.X_OK) else None, root


def setUpModule():
    global guest, workdir, checks_start
    daemon, ctl, root = binaries()
    workdir = tempfile.mkdtemp(prefix="powerallocd-vm-arm64.")
    kernel = vm.Kernel("arm64")
    with vm.Stages.timed("arm64 stage: initramfs"):
        initrd = os.path.join(workdir, "initrd.gz")
        files = [(daemon, "/usr/sbin/powerallocd")] + (
            [(ctl, "/usr/bin/powerallocctl")] if ctl else [])
        # The sensor's word holds 40 °C before its driver reads it (0 is not valid: EIO).
        vm.initramfs(initrd, kernel, vm.shell_init("/dev/hvc0", "devmem 0x%x 32 %d" % (
            vm.AVS_TEMP, vm.AVS_VALID | 400)), files=files, modules=MODULES, lib_root=root)
    with vm.Stages.timed("arm64 stage: device tree and boot"):
        guest = vm.Guest(workdir, kernel, initrd)
        unittest.addModuleCleanup(guest.stop)
        guest.connect(timeout=300)
        guest.wait("test -e %s/scaling_max_freq && test -e %s/scaling_max_freq && "
                   "grep -qx cpu-thermal %s/type" % (POLICY % 0, POLICY % 2, TZ),
                   "both cpufreq-dt policies and cpu-thermal", timeout=60)
        for cpu in CLUSTERS:
            out = guest.wait("grep -lx cpufreq-cpu%d /sys/class/thermal/cooling_device*/type"
                             % cpu, "the cooling device of CPU %d's cluster" % cpu)
            cdev[cpu] = os.path.dirname(out.split()[0])
    checks_start = time.monotonic()


def tearDownModule():
    vm.close_stage("arm64", guest, workdir, checks_start)


def capped_script():
    """Exits 0 while a cluster is limited: its cooling state above 0 and its
    scaling_max_freq under its top OPP."""
    return " || ".join("{ [ $(cat %s/cur_state) -gt 0 ] && [ $(cat %s/scaling_max_freq) -lt %d ]; }"
                       % (cdev[cpu], POLICY % cpu, opps[-1]) for cpu, opps in CLUSTERS.items())


def lifted_script():
    """Exits 0 when no cluster is limited: both at state 0 and their top OPP."""
    return " && ".join("[ $(cat %s/cur_state) = 0 ] && [ $(cat %s/scaling_max_freq) = %d ]"
                       % (cdev[cpu], POLICY % cpu, opps[-1]) for cpu, opps in CLUSTERS.items())


class Arm64(unittest.TestCase):
    """Each test starts with no daemon, no state, no busy loop, 40 °C, the
    kernel's step_wise on cpu-thermal and both clusters unlimited."""

    def setUp(self):
        self.started = time.monotonic()
        guest.check("""
killall -9 powerallocd 2>/dev/null
%s
while pidof powerallocd >/dev/null; do sleep 0.1; done
rm -rf /run/powerallocd /var/lib/powerallocd /etc/powerallocd.conf %s
echo step_wise > %s/policy
""" % (vm.Guest.STOP_BUSY_LOOPS, LOG, TZ))
        guest.set_temp(0, 40000)
        # As a person lifts a limit: neither governor lowers a state at a
        # steady temperature (step_wise only while it drops, power_allocator
        # only as it crosses switch-on downwards).
        guest.wait("for c in %s; do echo 0 > $c/cur_state; done; %s" % (
            " ".join(cdev.values()), lifted_script()), "both clusters unlimited at 40 °C")

    def tearDown(self):
        if vm.failed(self):
            print("--- %s:\n%s\n--- thermal:\n%s\n%s" % (
                LOG, guest.run("grep -v 'not a regular file' %s | tail -40" % LOG)[1],
                guest.run("grep . %s/policy %s/temp /sys/class/thermal/cooling_device*/cur_state "
                          "/sys/devices/system/cpu/cpufreq/policy*/scaling_max_freq" % (TZ, TZ))[1],
                guest.console_tail()), file=sys.stderr)
        vm.Stages.taken.append(("arm64 stage: " + self._testMethodName[5:36],
                                time.monotonic() - self.started))

    def busy(self):
        """Four busy loops, one a CPU."""
        guest.busy_loops(4)

    def log(self):
        return guest.run("cat " + LOG)[1]

    def start(self):
        """powerallocd from the shell, in the background, no arguments; its pid."""
        out = guest.check("powerallocd > %s 2>&1 & echo $!" % LOG)
        self.pid = int(out.split()[-1])
        return self.pid

    def wait_exit(self, what):
        guest.wait("! kill -0 %d 2>/dev/null" % self.pid, what, timeout=60)

    def check_config(self):
        rc, out = guest.run("powerallocd --check-config 2>&1", timeout=120)
        self.assertEqual(rc, 0, out)
        return out

    def actor(self, out, cpu):
        """What --check-config says of the actor of CPU cpu's cluster: its
        power model's source and {kHz: mW per CPU}."""
        m = re.search(r"actor cpufreq-cpu%d \(cpufreq\), weight [\d.]+, cooling device\n"
                      r"\s+max (\d+) mW, states 0-(\d+), power model: (\S+)\n((?:\s+\d+ kHz.*\n)+)"
                      % cpu, out)
        self.assertTrue(m, "no actor for CPU %d's cluster in:\n%s" % (cpu, out))
        table = {int(f): int(p) for f, p in re.findall(r"(\d+) kHz\s+(\d+) mW", m.group(4))}
        return int(m.group(1)), int(m.group(2)), m.group(3), table

    def test_automatic_configuration_takes_cpu_thermal(self):
        """No /etc/powerallocd.conf: the zone and its values from the device
        tree's trips and sysfs, both clusters as actors on their cooling
        devices, each OPP in the power table."""
        out = self.check_config()
        self.assertIn("no zones configured (automatic), 1 zone controllable", out)
        self.assertIn("zone cpu-thermal: thermal_zone0, switch-on 60000 m°C, "
                      "control 75000 m°C", out)
        self.assertIn("sustainable power 1500 mW (sysfs)", out)
        for cpu, opps in CLUSTERS.items():
            max_mw, states, _, table = self.actor(out, cpu)
            self.assertEqual(states, len(opps) - 1)
            self.assertEqual(sorted(table), opps)
            self.assertEqual(max_mw, 2 * table[opps[-1]], "two CPUs a cluster")

    def test_power_table_is_the_kernels_energy_model(self):
        """Each actor's power model is the kernel's Energy Model (debugfs
        energy_model/cpuN), said without a warning.  Fails, with "device-tree"
        and a warning per performance state, until lib/platform/sysfs.c reads
        debugfs files (pread gives ESPIPE there; issue 41's fix)."""
        out = self.check_config()
        for cpu in CLUSTERS:
            em = {}     # kHz: µW (this kernel's Energy Model counts microwatts)
            for line in guest.check("for d in /sys/kernel/debug/energy_model/cpu%d/ps:*; do "
                                    "echo $(cat $d/frequency) $(cat $d/power); done"
                                    % cpu).splitlines():
                khz, uw = line.split()
                em[int(khz)] = int(uw)
            _, _, source, table = self.actor(out, cpu)
            self.assertEqual(sorted(table), sorted(em), "CPU %d's cluster's OPPs" % cpu)
            for khz, mw in table.items():
                self.assertAlmostEqual(mw, em[khz] / 1000.0, delta=1.0,
                                       msg="CPU %d's cluster at %d kHz" % (cpu, khz))
            self.assertEqual(source, "energy-model", "CPU %d's cluster's power model" % cpu)
        self.assertNotIn("not a regular file", out)

    def test_kernels_power_allocator_throttles_at_80(self):
        """The plant is real: the kernel's own power_allocator, 5 °C over
        control with every CPU busy, limits a cluster."""
        guest.check("echo power_allocator > %s/policy" % TZ)
        self.busy()
        guest.set_temp(0, 80000)
        guest.wait(capped_script(), "power_allocator to limit a cluster at 80 °C", timeout=60)

    def originals(self):
        """{first CPU of a cluster: the cooling state the state file will restore}."""
        text = guest.wait("test -s %s && cat %s" % (STATE, STATE), "the state file")
        found = dict(line.split("\t")[:2] for line in text.splitlines() if "\t" in line)
        return {cpu: int(found[cdev[cpu] + "/cur_state"]) for cpu in CLUSTERS}

    def test_hot_zone_is_capped_lifted_when_cool_and_sigterm_restores(self):
        """Started at 80 °C, CPUs busy: the zone taken (user_space) and a
        cluster limited; at 50 °C, under switch-on, the limits lifted; SIGTERM
        gives the zone back to the governor it had (power_allocator) and the
        cooling states it found (the kernel's own limits, where it had polled
        80 °C first: power_allocator, at a steady 50 °C, leaves them)."""
        guest.check("echo power_allocator > %s/policy" % TZ)
        self.busy()
        guest.set_temp(0, 80000)
        self.start()
        guest.wait("grep -qx user_space %s/policy" % TZ, "cpu-thermal on user_space")
        found = self.originals()
        guest.wait(capped_script(), "powerallocd to limit a cluster at 80 °C", timeout=90)
        # Debian's arm64 6.1 has no CONFIG_THERMAL_NETLINK: said once, and it polls.
        self.assertEqual(guest.check("grep -c 'thermal netlink events unavailable (the kernel "
                                     "has no thermal netlink family.*polling only' %s" % LOG)
                         .strip(), "1", self.log())
        guest.set_temp(0, 50000)
        guest.wait(lifted_script(), "the limits lifted at 50 °C", timeout=90)
        guest.check("kill -TERM %d" % self.pid)
        self.wait_exit("powerallocd to exit on SIGTERM")
        self.assertEqual(guest.read(TZ + "/policy"), "power_allocator")
        self.assertEqual(guest.run("test -e " + STATE)[0], 1, "the state file is left")
        for cpu, opps in CLUSTERS.items():
            self.assertEqual(int(guest.read(cdev[cpu] + "/cur_state")), found[cpu])
            self.assertEqual(int(guest.read(POLICY % cpu + "/scaling_max_freq")),
                             opps[-1 - found[cpu]], "CPU %d's cluster" % cpu)

    def test_kill_9_then_restore(self):
        """Killed while it limits both clusters: nothing restored, and the
        user_space zone left limited however cool; `powerallocd --restore`
        writes back the governor and the cooling states at once."""
        self.start()
        guest.wait("grep -qx user_space %s/policy" % TZ, "cpu-thermal on user_space")
        guest.wait("test -s " + STATE, "the state file")
        self.busy()
        guest.set_temp(0, 80000)
        guest.wait(capped_script(), "powerallocd to limit a cluster at 80 °C", timeout=90)
        guest.check("kill -KILL %d" % self.pid)
        self.wait_exit("powerallocd killed")
        guest.set_temp(0, 50000)
        guest.check("sleep 2")
        self.assertEqual(guest.read(TZ + "/policy"), "user_space")
        guest.check(capped_script())
        # Read at once: step_wise would take a poll a step to get there.
        out = guest.check("powerallocd --restore 2>&1; cat %s/policy; %s && echo lifted" %
                          (TZ, lifted_script()))
        self.assertIn("1 zone policy, 2 cooling states", out)
        self.assertEqual(out.split()[-2:], ["step_wise", "lifted"], out)
        self.assertEqual(guest.check("ls -A /run/powerallocd").strip(), "", out)

    def test_powerallocctl_runs(self):
        """The arm64 client and its libraries load; without a bus it says so."""
        if guest.run("command -v powerallocctl")[0] != 0:
            self.skipTest("no arm64 powerallocctl (POWERALLOCCTL_ARM64)")
        self.assertRegex(guest.check("powerallocctl --version"), r"^powerallocctl \S+")
        rc, out = guest.run("powerallocctl status 2>&1")
        self.assertNotEqual(rc, 0, out)
        self.assertIn("cannot connect to the system bus", out)


if __name__ == "__main__":
    unittest.main(verbosity=2)

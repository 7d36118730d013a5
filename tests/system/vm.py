# SPDX-License-Identifier: GPL-2.0-or-later
"""The system suite's machinery: Debian 12's packaged kernel under
qemu-system-x86_64 (TCG: no KVM needed), with the ACPI tables of
tests/system/ssdt.asl (two acpitz zones, an ACPI fan, acpi-cpufreq P-states),
booted into a busybox initramfs or a Debian 12 root file system, and a
command channel to a root shell in the guest on its second serial port.

Downloads (the kernel package, the root file system's packages) go through
apt as configured on this machine and are kept in the cache directory
($POWERALLOCD_VMTEST_CACHE, default /var/cache/powerallocd-vmtest as root),
keyed by what they were made from; a clean machine builds them again.
"""
import base64
import contextlib
import hashlib
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
SSDT_ASL = os.path.join(HERE, "ssdt.asl")
AGENT = os.path.join(HERE, "agent.sh")
KERNEL_PACKAGE = "linux-image-amd64"

# The store pc-testdev maps at this address: one 32-bit word per zone, deci-kelvin.
TEMP_STORE = 0xFF000000


def cache_dir():
    path = os.environ.get("POWERALLOCD_VMTEST_CACHE")
    if not path:
        path = ("/var/cache/powerallocd-vmtest" if os.geteuid() == 0 else
                os.path.expanduser("~/.cache/powerallocd-vmtest"))
    os.makedirs(path, exist_ok=True)
    return path


def say(msg):
    print("vmtest: " + msg, file=sys.stderr, flush=True)


def run(cmd, **kw):
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    return subprocess.run(cmd, **kw)


def must(cmd, **kw):
    """Runs cmd; raises with its output when it fails."""
    out = run(cmd, **kw)
    if out.returncode != 0:
        raise RuntimeError("%s: exit %d\n%s%s" % (" ".join(cmd), out.returncode,
                                                  out.stdout or "", out.stderr or ""))
    return out


class Stages:
    """How long each stage took, printed by the suite at its end."""
    taken = []

    @classmethod
    @contextlib.contextmanager
    def timed(cls, name):
        start = time.monotonic()
        say(name + " ...")
        try:
            yield
        finally:
            cls.taken.append((name, time.monotonic() - start))
            say("%s: %.1f s" % (name, cls.taken[-1][1]))

    @classmethod
    def report(cls):
        return "\n".join("  %-44s %6.1f s" % t for t in cls.taken)


def apt_resolve(package):
    """The package linux-image-amd64 depends on, with its version; apt-get
    update once where the lists do not know it."""
    for attempt in range(2):
        out = run(["apt-cache", "depends", "--no-recommends", "--no-suggests", package])
        names = re.findall(r"Depends: (linux-image-\S+)", out.stdout)
        if names:
            ver = run(["apt-cache", "policy", names[0]]).stdout
            m = re.search(r"Candidate: (\S+)", ver)
            if m and m.group(1) != "(none)":
                return names[0], m.group(1)
        if attempt == 0:
            must(["apt-get", "update", "-qq"])
    raise RuntimeError("apt knows no %s: is Debian's archive in the apt sources?" % package)


class Kernel:
    """Debian's packaged kernel, extracted: vmlinuz and its modules."""

    def __init__(self):
        name, version = apt_resolve(KERNEL_PACKAGE)
        self.release = name[len("linux-image-"):]
        self.root = os.path.join(cache_dir(), "kernel", "%s_%s" % (name, version))
        self.vmlinuz = os.path.join(self.root, "boot", "vmlinuz-" + self.release)
        self.modules = os.path.join(self.root, "lib", "modules", self.release)
        if not os.path.exists(os.path.join(self.root, ".complete")):
            with Stages.timed("kernel %s download and extract" % version):
                self._fetch(name)
        self._deps = self._read_deps()

    def _fetch(self, name):
        shutil.rmtree(self.root, ignore_errors=True)
        os.makedirs(self.root)
        with tempfile.TemporaryDirectory() as tmp:
            os.chmod(tmp, 0o755)    # apt's _apt user writes there
            must(["apt-get", "download", "-q", name], cwd=tmp)
            deb = [f for f in os.listdir(tmp) if f.endswith(".deb")][0]
            must(["dpkg-deb", "-x", os.path.join(tmp, deb), self.root])
        must(["depmod", "-b", self.root, self.release])
        open(os.path.join(self.root, ".complete"), "w").close()

    def _read_deps(self):
        deps = {}
        with open(os.path.join(self.modules, "modules.dep")) as f:
            for line in f:
                path, _, rest = line.partition(":")
                deps[os.path.basename(path)[:-3].replace("-", "_")] = (path, rest.split())
        return deps

    def closure(self, names):
        """The modules' files (relative to the modules directory), each after
        the ones it needs."""
        order = []
        by_path = {v[0]: v for v in self._deps.values()}

        def visit(path):
            if path in order:
                return
            for dep in reversed(by_path[path][1]):
                visit(dep)
            order.append(path)
        for name in names:
            visit(self._deps[name.replace("-", "_")][0])
        return order


def compile_ssdt(workdir):
    out = os.path.join(workdir, "ssdt")
    must(["iasl", "-p", out, SSDT_ASL])
    return out + ".aml"


def libraries(binary):
    """The shared objects binary loads (ldd), the loader included."""
    out = must(["ldd", binary]).stdout
    return sorted(set(re.findall(r"(/\S+\.so[.\d]*)", out)))


def write_cpio(tree, out):
    """A gzip'd newc cpio of tree, as the kernel unpacks an initramfs."""
    files = must(["find", "."], cwd=tree).stdout
    with open(out, "wb") as f:
        cpio = subprocess.Popen(["cpio", "-o", "-H", "newc", "--quiet"], cwd=tree,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        gz = subprocess.Popen(["gzip", "-1"], stdin=cpio.stdout, stdout=f)
        cpio.stdout.close()
        cpio.communicate(files.encode())
        if gz.wait() != 0 or cpio.returncode != 0:
            raise RuntimeError("cpio of %s failed" % tree)


def initramfs(out, kernel, init_text, files=(), modules=(), extra=None):
    """An initramfs with busybox, init_text as /init, each (source, guest path)
    of files with the shared objects it loads, and modules (with what they
    need) under /lib/modules/<release>, loaded in order by /etc/modules.order."""
    with tempfile.TemporaryDirectory() as tree:
        def put(src, dst, mode=None):
            path = os.path.join(tree, dst.lstrip("/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            shutil.copy(src, path)
            if mode is not None:
                os.chmod(path, mode)
        put(shutil.which("busybox"), "/bin/busybox")
        for src, dst in files:
            put(src, dst)
            for lib in libraries(src) if os.access(src, os.X_OK) else ():
                put(lib, lib)
        order = kernel.closure(modules)
        for rel in order:
            put(os.path.join(kernel.modules, rel), "/lib/modules/%s/%s" % (kernel.release, rel))
        with open(os.path.join(tree, "modules.order"), "w") as f:
            f.write("".join("/lib/modules/%s/%s\n" % (kernel.release, r) for r in order))
        with open(os.path.join(tree, "init"), "w") as f:
            f.write(init_text)
        os.chmod(os.path.join(tree, "init"), 0o755)
        put(AGENT, "/agent.sh", 0o755)
        if extra:
            extra(tree)
        write_cpio(tree, out)


class GuestError(AssertionError):
    pass


class Guest:
    """One QEMU guest: console on the first serial port (console.log), the
    command channel (tests/system/agent.sh) on the second."""

    def __init__(self, workdir, kernel, initrd, append="", drives=(), memory_mb=512,
                 ssdt=None):
        self.workdir = workdir
        self.console = os.path.join(workdir, "console.log")
        self.sock_path = os.path.join(workdir, "agent.sock")
        self.seq = 0
        self.buf = b""
        cmd = ["qemu-system-x86_64", "-machine", "pc", "-accel", "tcg",
               "-cpu", "qemu64,vendor=GenuineIntel", "-smp", "2", "-m", str(memory_mb),
               "-kernel", kernel.vmlinuz, "-initrd", initrd,
               "-append", "console=ttyS0 panic=-1 " + append,
               "-display", "none", "-monitor", "none", "-no-reboot", "-nodefaults",
               "-device", "pc-testdev", "-acpitable", "file=" + (ssdt or compile_ssdt(workdir)),
               "-chardev", "file,id=con,path=" + self.console,
               "-device", "isa-serial,chardev=con",
               "-chardev", "socket,id=agent,path=%s,server=on,wait=off" % self.sock_path,
               "-device", "isa-serial,chardev=agent"]
        for i, (path, fmt) in enumerate(drives):
            cmd += ["-drive", "file=%s,format=%s,if=virtio,index=%d" % (path, fmt, i)]
        self.qemu_log = open(os.path.join(workdir, "qemu.log"), "w")
        self.qemu = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=self.qemu_log,
                                     stderr=subprocess.STDOUT)
        self.sock = None

    def connect(self, timeout=600):
        """Waits for the agent's READY line (the guest booted)."""
        end = time.monotonic() + timeout
        while self.sock is None:
            self._alive()
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(self.sock_path)
                self.sock = s
            except OSError:
                s.close()
                if time.monotonic() > end:
                    raise GuestError("no agent socket\n" + self.console_tail())
                time.sleep(0.2)
        self._read_until(b"@@READY\n", end, "the guest's agent to start")

    def _alive(self):
        if self.qemu.poll() is not None:
            with open(os.path.join(self.workdir, "qemu.log")) as f:
                qlog = f.read()[-2000:]
            raise GuestError("qemu exited with %d\n%s\n%s" % (self.qemu.returncode, qlog,
                                                               self.console_tail()))

    def _read_until(self, marker, end, what):
        while marker not in self.buf:
            self._alive()
            left = end - time.monotonic()
            if left <= 0:
                raise GuestError("timed out waiting for %s; the channel had: %r\n%s" %
                                 (what, self.buf[-500:], self.console_tail()))
            self.sock.settimeout(min(left, 1.0))
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                continue
            if not data:
                raise GuestError("the agent's channel closed\n" + self.console_tail())
            self.buf += data
        head, _, self.buf = self.buf.partition(marker)
        return head

    def run(self, script, timeout=120):
        """(exit status, output) of a shell script run in the guest as root."""
        self.seq += 1
        seq = self.seq
        line = "%d %s\n" % (seq, base64.b64encode(script.encode()).decode())
        self.sock.sendall(line.encode())
        end = time.monotonic() + timeout
        self._read_until(b"@@BEGIN %d\n" % seq, end, "command %d: %s" % (seq, script[:200]))
        body = self._read_until(b"@@END %d " % seq, end, "command %d: %s" % (seq, script[:200]))
        rc = self._read_until(b"\n", end, "command %d's status" % seq)
        return int(rc), body.decode(errors="replace")

    def check(self, script, timeout=120):
        """Output of script, which must exit 0."""
        rc, out = self.run(script, timeout)
        if rc != 0:
            raise GuestError("in the guest: %s\nexit %d:\n%s" % (script, rc, out[-3000:]))
        return out

    def wait(self, script, what, timeout=60, interval=0.5):
        """Output of script once it exits 0, tried every interval seconds."""
        end = time.monotonic() + timeout
        while True:
            rc, out = self.run(script, timeout=max(30, timeout))
            if rc == 0:
                return out
            if time.monotonic() > end:
                raise GuestError("waited %d s for %s; last (exit %d):\n%s\n%s" %
                                 (timeout, what, rc, out[-3000:], self.console_tail()))
            time.sleep(interval)

    def wait_cpufreq(self):
        """Waits for acpi-cpufreq's second policy (the module loads at boot)."""
        self.wait("test -e /sys/devices/system/cpu/cpufreq/policy1/scaling_max_freq",
                  "acpi-cpufreq", timeout=60)

    def read(self, path):
        return self.check("cat " + path).strip()

    def set_temp(self, zone, temp_mc):
        """Sets ACPI zone TZ<zone>'s _TMP (m°C, rounded to the 0.1 K ACPI has)."""
        dk = int(round(temp_mc / 100.0)) + 2732
        self.check("busybox devmem 0x%x 32 %d" % (TEMP_STORE + 4 * zone, dk))

    def console_tail(self, lines=40):
        try:
            with open(self.console, errors="replace") as f:
                text = f.read().splitlines()
        except OSError:
            return "(no console log)"
        return "--- the guest's serial console, last %d lines:\n%s" % (
            lines, "\n".join(text[-lines:]))

    def stop(self, timeout=60):
        if self.qemu.poll() is None:
            with contextlib.suppress(Exception):
                self.sock.sendall(b"0 %s\n" % base64.b64encode(b"sync; poweroff -f"))
            try:
                self.qemu.wait(timeout)
            except subprocess.TimeoutExpired:
                self.qemu.kill()
                self.qemu.wait()
        if self.sock:
            self.sock.close()
        self.qemu_log.close()


def close_stage(name, guest, workdir, checks_start):
    """Stops the stage's guest, removes its work directory and prints what
    each stage took, the checks timed from checks_start (time.monotonic())."""
    if guest:
        Stages.taken.append(("%s stage: checks" % name, time.monotonic() - checks_start))
        guest.stop()
    if workdir:
        shutil.rmtree(workdir, ignore_errors=True)
    say("what the %s stage took:\n%s" % (name, Stages.report()))


def failed(test):
    """Whether unittest has recorded a failure or error of test (in its tearDown)."""
    result = getattr(getattr(test, "_outcome", None), "result", None)
    return bool(result) and any(t is test for t, _ in result.failures + result.errors)


def digest(*parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else str(p).encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


def file_digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


# The Debian 12 root file system of the systemd stage: what a minimal
# server has, the daemon's run-time libraries (so that `apt install` of the
# .deb needs no network in the guest), busybox for devmem, and thermald
# (Ubuntu's laptops have it: the package must leave it running where it has
# nothing to control).
ROOTFS_PACKAGES = ["systemd", "systemd-sysv", "dbus", "busybox", "kmod", "libconfig9",
                   "libnl-3-200", "libnl-genl-3-200", "libcpupower1", "thermald"]
ROOTFS_MODULES = ["fan", "acpi-cpufreq"]
ROOT_MODULES = ["virtio_pci", "virtio_blk", "crc32c_generic", "ext4"]

AGENT_UNIT = """[Unit]
Description=powerallocd system suite: command channel on ttyS1
After=systemd-journald.service dbus.service

[Service]
ExecStart=/bin/sh /usr/local/sbin/vmtest-agent /dev/ttyS1
Restart=always

[Install]
WantedBy=multi-user.target
"""


def debian_sources():
    """The Debian 12 archive lines this machine's apt uses (bookworm,
    -updates, -security; main)."""
    lines = []
    for m in re.finditer(r"^\s*\d+\s+(\S+)\s+(bookworm(?:-\S+)?)/main\s+\S+\s+Packages",
                         run(["apt-cache", "policy"]).stdout, re.M):
        line = "deb %s %s main" % (m.group(1), m.group(2))
        if line not in lines:
            lines.append(line)
    if not lines:
        raise RuntimeError("apt knows no Debian 12 (bookworm) archive: run apt-get update")
    return lines


def rootfs_image(kernel):
    """A pristine ext4 image of the Debian 12 root file system, made with
    mmdebstrap once per package list, kernel and agent."""
    key = digest(" ".join(ROOTFS_PACKAGES), kernel.release, " ".join(ROOTFS_MODULES),
                 file_digest(AGENT), AGENT_UNIT)
    image = os.path.join(cache_dir(), "rootfs-%s.ext4" % key)
    if os.path.exists(image):
        return image
    with Stages.timed("mmdebstrap Debian 12 root file system"), \
            tempfile.TemporaryDirectory(dir=cache_dir()) as tmp:
        root = os.path.join(tmp, "root")
        must(["mmdebstrap", "--quiet", "--variant=minbase", "--mode=root",
              "--include=" + ",".join(ROOTFS_PACKAGES),
              "--dpkgopt=path-exclude=/usr/share/man/*",
              "--dpkgopt=path-exclude=/usr/share/locale/*",
              "--dpkgopt=path-exclude=/usr/share/doc/*",
              "bookworm", root] + debian_sources(), timeout=1200)
        for rel in kernel.closure(ROOTFS_MODULES):
            dst = os.path.join(root, "lib/modules", kernel.release, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy(os.path.join(kernel.modules, rel), dst)
        must(["depmod", "-b", root, kernel.release])
        with open(os.path.join(root, "etc/modules-load.d/vmtest.conf"), "w") as f:
            f.write("".join(m + "\n" for m in ROOTFS_MODULES))
        shutil.copy(AGENT, os.path.join(root, "usr/local/sbin/vmtest-agent"))
        with open(os.path.join(root, "etc/systemd/system/vmtest-agent.service"), "w") as f:
            f.write(AGENT_UNIT)
        os.symlink("/etc/systemd/system/vmtest-agent.service", os.path.join(
            root, "etc/systemd/system/multi-user.target.wants/vmtest-agent.service"))
        with open(os.path.join(root, "etc/hostname"), "w") as f:
            f.write("vmtest\n")
        with open(os.path.join(root, "etc/fstab"), "w") as f:
            f.write("/dev/vda / ext4 rw,errors=remount-ro 0 1\n")
        # An unprivileged user, as on any machine.
        must(["chroot", root, "useradd", "--create-home", "--shell", "/bin/sh", "tester"])
        # No getty on the console: the agent's port is the only way in.
        must(["chroot", root, "systemctl", "mask", "serial-getty@ttyS0.service",
              "getty@tty1.service"])
        partial = image + ".part"
        must(["mke2fs", "-q", "-t", "ext4", "-d", root, "-L", "vmtest", partial, "2G"])
        os.rename(partial, image)
    return image


ROOT_INIT = """#!/bin/busybox sh
/bin/busybox --install -s /bin
mkdir -p /proc /sys /dev /newroot
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /modules.order); do insmod $m || echo "insmod $m failed"; done
n=0
while [ ! -b /dev/vda ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
mount -t ext4 -o rw /dev/vda /newroot || { echo "cannot mount /dev/vda"; sleep 5; poweroff -f; }
umount /proc /sys
mount --move /dev /newroot/dev
exec switch_root /newroot /sbin/init
"""


def root_initramfs(out, kernel):
    """An initramfs that mounts the first virtio disk as / and starts its
    /sbin/init (systemd)."""
    initramfs(out, kernel, ROOT_INIT, modules=ROOT_MODULES)


def tar_payload(out, files):
    """A tar of (source, name) pairs, read in the guest from its second
    disk: `tar -xf /dev/vdb`."""
    import tarfile
    with tarfile.open(out, "w", format=tarfile.GNU_FORMAT) as tar:
        for src, name in files:
            tar.add(src, arcname=name)
    size = os.path.getsize(out)
    with open(out, "ab") as f:
        f.write(b"\0" * ((-size) % 65536 + 65536))

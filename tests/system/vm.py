# SPDX-License-Identifier: GPL-2.0-or-later
"""The system suite's machinery: Debian 12's packaged kernel under QEMU
with TCG (no KVM needed), booted into a busybox initramfs or a Debian 12
root file system, and a command channel to a root shell in the guest
(tests/system/agent.sh).  Two machines:

- amd64: qemu-system-x86_64's pc with the ACPI tables of
  tests/system/ssdt.asl (two acpitz zones, an ACPI fan, acpi-cpufreq
  P-states, an ACPI power meter); the channel on the second serial port;
- arm64: qemu-system-aarch64's virt (4 cortex-a57) with the device tree QEMU
  makes for it and tests/system/arm64-soc.dtsi appended (two cpufreq-dt
  clusters with Energy Models, a bcm2711 sensor on a page of RAM, the
  thermal zone cpu-thermal); the channel on a virtio console (hvc0).

Downloads (the kernel package, the root file system's packages) go through
apt as configured on this machine and are kept in the cache directory
($POWERALLOCD_VMTEST_CACHE, default /var/cache/powerallocd-vmtest as root),
keyed by what they were made from; a clean machine builds them again.
"""
import base64
import contextlib
import gzip
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
ARM64_DTSI = os.path.join(HERE, "arm64-soc.dtsi")
AGENT = os.path.join(HERE, "agent.sh")
KERNEL_PACKAGE = "linux-image-amd64"

# amd64: the store pc-testdev maps at this address: one 32-bit word per zone, deci-kelvin.
TEMP_STORE = 0xFF000000
# amd64: the store's word the ACPI power meter's _PMM returns, mW.
POWER_METER_WORD = 0xFF000010
# arm64: the bcm2711 sensor's status word (arm64-soc.dtsi: the no-map page at
# 0x7f000000, register 0x200): bit 10 valid, bits 0-9 m°C / 100.
AVS_TEMP = 0x7F000200
AVS_VALID = 1 << 10

# Each Debian architecture's GNU triplet, by the ELF machine readelf names.
TRIPLETS = {"Advanced Micro Devices X86-64": "x86_64-linux-gnu", "AArch64": "aarch64-linux-gnu"}


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
    """Debian's packaged kernel for arch, extracted: vmlinuz and its modules,
    and busybox, the initramfs's shell.  amd64 (this machine's): the
    package apt-get downloads, the host's busybox.  arm64: the same upload
    built for arm64 (linux-image-amd64's ABI name and version with arm64 for
    amd64), and busybox-static:arm64, extracted by mmdebstrap."""

    def __init__(self, arch="amd64"):
        name, version = apt_resolve(KERNEL_PACKAGE)
        name = name[:-len("amd64")] + arch
        self.arch = arch
        self.release = name[len("linux-image-"):]
        self.root = os.path.join(cache_dir(), "kernel", "%s_%s" % (name, version))
        self.vmlinuz = os.path.join(self.root, "boot", "vmlinuz-" + self.release)
        self.modules = os.path.join(self.root, "lib", "modules", self.release)
        self.busybox = (shutil.which("busybox") if arch == "amd64" else
                        os.path.join(self.root, "bin", "busybox"))
        if not os.path.exists(os.path.join(self.root, ".complete")):
            with Stages.timed("kernel %s %s download and extract" % (arch, version)):
                self._fetch(name, version)
        self._deps = self._read_deps()

    def _fetch(self, name, version):
        shutil.rmtree(self.root, ignore_errors=True)
        os.makedirs(self.root)
        with tempfile.TemporaryDirectory(dir=cache_dir()) as tmp:
            os.chmod(tmp, 0o755)    # apt's _apt user writes there
            if self.arch == "amd64":
                must(["apt-get", "download", "-q", name], cwd=tmp)
                deb = [f for f in os.listdir(tmp) if f.endswith(".deb")][0]
                must(["dpkg-deb", "-x", os.path.join(tmp, deb), self.root])
            else:
                # Extracted, not installed: nothing runs, no emulator needed.
                # What they depend on comes too, and goes with tmp.
                out = os.path.join(tmp, "root")
                must(["mmdebstrap", "--quiet", "--variant=extract", "--architectures=" +
                      self.arch, "--include=%s=%s,busybox-static" % (name, version),
                      "bookworm", out] + debian_sources(), timeout=1200)
                for rel in ("boot", "lib/modules", "bin/busybox"):
                    os.makedirs(os.path.dirname(os.path.join(self.root, rel)), exist_ok=True)
                    os.rename(os.path.join(out, rel), os.path.join(self.root, rel))
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


def in_root(root, path):
    """Absolute path as a program chrooted to root finds it, its symbolic
    links followed inside root; None where nothing is there."""
    todo = [p for p in path.split("/") if p]
    real = []
    links = 0
    while todo:
        part = todo.pop(0)
        if part == "..":
            real = real[:-1]
        elif part != ".":
            link = os.path.join(root, *real, part)
            if not os.path.islink(link):
                real.append(part)
                continue
            links += 1
            if links > 40:      # as the kernel's ELOOP
                return None
            target = os.readlink(link)
            if target.startswith("/"):
                real = []
            todo = [p for p in target.split("/") if p] + todo
    full = os.path.join(root, *real)
    return full if os.path.exists(full) else None


def elf(path):
    """(machine, program interpreter or None, DT_NEEDED names, DT_RUNPATH
    or DT_RPATH directories) of an ELF file of any architecture."""
    out = must(["readelf", "-h", "-l", "-d", "-W", path]).stdout
    interp = re.search(r"Requesting program interpreter: (\S+)\]", out)
    runpath = re.search(r"\((?:RUNPATH|RPATH)\)\s+Library r\w*path: \[(\S*)\]", out)
    return (re.search(r"Machine:\s+(.+)", out).group(1).strip(), interp and interp.group(1),
            re.findall(r"\(NEEDED\)\s+Shared library: \[(\S+)\]", out),
            runpath.group(1).split(":") if runpath else [])


def libraries(binary, root="/"):
    """(file, path in the guest) of each shared object binary loads, its
    loader included: its DT_NEEDED, recursively, found as ld.so finds them
    in root (the binary's own $ORIGIN is where it is built, and what is found
    there goes to the guest's library directory); readelf reads a foreign
    architecture's binary, which ldd cannot."""
    machine, interp, needed, runpath = elf(binary)
    triplet = TRIPLETS.get(machine)
    if not triplet:
        raise RuntimeError("%s: no library directories known for %s" % (binary, machine))
    system = ["/lib/" + triplet, "/usr/lib/" + triplet, "/lib", "/usr/lib"]
    found = {}
    if interp:
        found[interp] = in_root(root, interp)
        if not found[interp]:
            raise RuntimeError("%s: its loader %s is not in %s" % (binary, interp, root))

    def search(origin, runpath):
        """Where a DT_NEEDED of an object is looked for: (file or None, guest path) makers."""
        for d in runpath:
            if "$ORIGIN" in d or "${ORIGIN}" in d:
                d = d.replace("${ORIGIN}", "$ORIGIN")
                if origin is None:      # the binary itself, outside root
                    yield lambda n, d=d: (os.path.join(d.replace(
                        "$ORIGIN", os.path.dirname(os.path.abspath(binary))), n),
                        "/usr/lib/%s/%s" % (triplet, n))
                    continue
                d = d.replace("$ORIGIN", origin)
            yield lambda n, d=d: (in_root(root, d + "/" + n), d + "/" + n)
        for d in system:
            yield lambda n, d=d: (in_root(root, d + "/" + n), d + "/" + n)

    todo = [(n, None, runpath) for n in needed]
    seen = {os.path.basename(interp)} if interp else set()    # ld.so is loaded: its soname
    while todo:
        name, origin, rpath = todo.pop(0)
        if name in seen:
            continue
        seen.add(name)
        for where in search(origin, rpath):
            src, guest = where(name)
            if src and os.path.exists(src):
                found[guest] = src
                _, _, more, more_rpath = elf(src)
                todo += [(n, os.path.dirname(guest), more_rpath) for n in more]
                break
        else:
            raise RuntimeError("%s: %s is in none of %s in %s" % (binary, name,
                                                                  rpath + system, root))
    return sorted((src, guest) for guest, src in found.items())


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


SHELL_INIT = """#!/bin/busybox sh
/bin/busybox --install -s /bin
mkdir -p /proc /sys /dev /run /tmp /etc /var/lib
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug
%(before_modules)s
for m in $(cat /modules.order); do insmod $m || echo "insmod $m failed"; done
n=0
while [ ! -e %(tty)s ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
echo "::respawn:/bin/sh /agent.sh %(tty)s" > /etc/inittab
exec /bin/busybox init
"""


def shell_init(agent_tty="/dev/ttyS1", before_modules=""):
    """/init of a busybox initramfs whose shell is the test's: the file
    systems a person's machine has (debugfs too), the modules loaded (after
    the commands before_modules), busybox's init respawning the agent on
    agent_tty once it is there (a virtio console appears with its module)."""
    return SHELL_INIT % {"tty": agent_tty, "before_modules": before_modules}


def initramfs(out, kernel, init_text, files=(), modules=(), extra=None, lib_root="/"):
    """An initramfs with the kernel's busybox, init_text as /init, each
    (source, guest path) of files with the shared objects it loads (from
    lib_root: the root file system it was built for), and modules (with what
    they need) under /lib/modules/<release>, loaded in order by /modules.order."""
    with tempfile.TemporaryDirectory() as tree:
        def put(src, dst, mode=None):
            path = os.path.join(tree, dst.lstrip("/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            shutil.copy(src, path)
            if mode is not None:
                os.chmod(path, mode)
        put(kernel.busybox, "/bin/busybox")
        for src, dst in files:
            put(src, dst)
            for lib, guest_path in libraries(src, lib_root) if os.access(src, os.X_OK) else ():
                put(lib, guest_path)
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


def device_tree(workdir, board, dtsi):
    """A device tree for the board (qemu-system-aarch64's arguments that
    shape it: machine, CPUs, memory): the one QEMU makes for it (dumpdtb),
    dtsi appended, compiled by dtc; the .dts is left beside it."""
    dumped = os.path.join(workdir, "qemu.dtb")
    args = list(board)
    args[args.index("-machine") + 1] += ",dumpdtb=" + dumped
    must(args + ["-display", "none", "-nodefaults"])
    source = os.path.join(workdir, "board.dts")
    with open(dtsi) as f, open(source, "w") as out:
        out.write(must(["dtc", "-q", "-I", "dtb", "-O", "dts", dumped]).stdout)
        out.write("\n/* %s */\n" % os.path.basename(dtsi) + f.read())
    dtb = os.path.join(workdir, "board.dtb")
    must(["dtc", "-q", "-I", "dts", "-O", "dtb", "-o", dtb, source])
    return dtb


class Guest:
    """One QEMU guest of kernel's architecture: console on the first serial
    port (console.log), the command channel (tests/system/agent.sh) on the
    second (amd64) or a virtio console (arm64: /dev/hvc0)."""

    def __init__(self, workdir, kernel, initrd, append="", drives=(), memory_mb=None,
                 ssdt=None, dtsi=ARM64_DTSI):
        self.workdir = workdir
        self.arch = kernel.arch
        self.console = os.path.join(workdir, "console.log")
        self.sock_path = os.path.join(workdir, "agent.sock")
        self.seq = 0
        self.buf = b""
        agent = "socket,id=agent,path=%s,server=on,wait=off" % self.sock_path
        if kernel.arch == "arm64":
            # 1 GiB at 0x40000000: the sensor's page (0x7f000000) is its last MiB but one.
            board = ["qemu-system-aarch64", "-machine", "virt", "-accel", "tcg",
                     "-cpu", "cortex-a57", "-smp", "4", "-m", str(memory_mb or 1024)]
            cmd = board + ["-dtb", device_tree(workdir, board, dtsi),
                           "-chardev", "file,id=con,path=" + self.console,
                           "-serial", "chardev:con",
                           "-device", "virtio-serial-device", "-chardev", agent,
                           "-device", "virtconsole,chardev=agent"]
            console = "ttyAMA0"
        else:
            cmd = ["qemu-system-x86_64", "-machine", "pc", "-accel", "tcg",
                   "-cpu", "qemu64,vendor=GenuineIntel", "-smp", "2", "-m", str(memory_mb or 512),
                   "-device", "pc-testdev",
                   "-acpitable", "file=" + (ssdt or compile_ssdt(workdir)),
                   "-chardev", "file,id=con,path=" + self.console,
                   "-device", "isa-serial,chardev=con",
                   "-chardev", agent, "-device", "isa-serial,chardev=agent"]
            console = "ttyS0"
        cmd += ["-kernel", kernel.vmlinuz, "-initrd", initrd,
                "-append", "console=%s panic=-1 %s" % (console, append),
                "-display", "none", "-monitor", "none", "-no-reboot", "-nodefaults"]
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

    def fetch(self, path, chunk=32768):
        """The contents of a guest file as text, however large: gzip'd,
        base64'd and read a chunk a command, its sha256 checked.  One command's
        output of 150 KB or more was seen cut short on the arm64 guest's
        virtio console, with its end marker intact."""
        size, digest = self.check("gzip -c %s | base64 > /tmp/fetch.b64 && wc -c < /tmp/fetch.b64"
                                  " && sha256sum < %s" % (path, path)).split()[:2]
        data = "".join(self.check("dd if=/tmp/fetch.b64 bs=%d skip=%d count=1 2>/dev/null" %
                                  (chunk, i)) for i in range(-(-int(size) // chunk)))
        self.check("rm -f /tmp/fetch.b64")
        raw = gzip.decompress(base64.b64decode("".join(data.split())))
        if hashlib.sha256(raw).hexdigest() != digest:
            raise GuestError("%s came back damaged (%d bytes)" % (path, len(raw)))
        return raw.decode(errors="replace")

    def busy_loops(self, n):
        """Starts n busy loops (shell loops, one a CPU) at nice 19, so that the
        agent, a daemon and a plant come first; their pids in /tmp/busy.pids.
        Busybox has renice, not nice.  Raises unless all n run."""
        self.check("for i in $(seq %d); do sh -c 'while :; do :; done' >/dev/null 2>&1 & "
                   "echo $! >> /tmp/busy.pids; renice -n 19 -p $! >/dev/null; done; "
                   "n=0; for p in $(cat /tmp/busy.pids); do kill -0 $p && n=$((n + 1)); done; "
                   "[ $n -ge %d ]" % (n, n))

    STOP_BUSY_LOOPS = "[ -s /tmp/busy.pids ] && kill $(cat /tmp/busy.pids) 2>/dev/null; " \
                      "rm -f /tmp/busy.pids"

    def stop_busy_loops(self):
        """Stops the loops busy_loops() started (none: nothing); the shell line
        that does it is STOP_BUSY_LOOPS, for a script of its own."""
        self.run(self.STOP_BUSY_LOOPS)

    def read(self, path):
        return self.check("cat " + path).strip()

    def set_temp(self, zone, temp_mc):
        """Sets the temperature of zone (m°C, rounded to 0.1 °C): amd64: ACPI
        zone TZ<zone>'s _TMP (deci-kelvin); arm64: the bcm2711 sensor's word,
        which cpu-thermal (zone 0, the only one) reads."""
        if self.arch == "arm64":
            assert zone == 0 and 0 <= temp_mc <= 102300, (zone, temp_mc)
            word, value = AVS_TEMP, AVS_VALID | int(round(temp_mc / 100.0))
        else:
            word, value = TEMP_STORE + 4 * zone, int(round(temp_mc / 100.0)) + 2732
        self.check("busybox devmem 0x%x 32 %d" % (word, value))

    def set_power(self, power_mw):
        """Sets what the amd64 guest's ACPI power meter reads (its _PMM, mW)."""
        assert self.arch == "amd64" and 0 <= power_mw < 1 << 32, (self.arch, power_mw)
        self.check("busybox devmem 0x%x 32 %d" % (POWER_METER_WORD, power_mw))

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

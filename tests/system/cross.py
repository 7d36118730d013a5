# SPDX-License-Identifier: GPL-2.0-or-later
"""The project built for arm64 and armhf, as Debian builds it: in a Debian 12
(bookworm) chroot made by mmdebstrap, with Debian's cross compilers
(crossbuild-essential-ARCH) and the build dependencies of the foreign
architecture installed by `apt-get build-dep -a ARCH`.

A chroot, not the host's own multiarch: the host's packages may be newer than
the foreign architecture's index (apt then finds unmet dependencies), and
libcpupower-dev and libcpupower1 are not Multi-Arch, so installing one
architecture's removes the other's.  One chroot serves both architectures:
both libcpupower pairs are kept in it as .debs and the one the build needs is
installed before it (use()).

Inside, the tree is built with meson and the cross file tools/cross-files/TRIPLET.ini
(-Werror), its unit suite runs under qemu-user (the cross file's exe_wrapper),
and `dpkg-buildpackage -a ARCH` makes the .deb.  qemu-user runs the pure unit
tests only: it has no NETLINK_GENERIC sockets, remaps real-time signals and
adds threads of its own, so the daemon is tested on a real arm64 kernel
(tests/system/test_arm64.py).

The chroot is kept in the suite's cache directory (vm.cache_dir()), keyed by
its package list and debian/control, as the system suite's images are.
"""
import contextlib
import fcntl
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vm  # noqa: E402

SOURCE = vm.SOURCE
CONTROL = os.path.join(SOURCE, "debian", "control")

# What each architecture is to Debian, to gcc and meson, and to qemu-user.
ARCHES = {
    "arm64": {"triplet": "aarch64-linux-gnu", "qemu": "qemu-aarch64-static",
              "elf_machine": "AArch64", "elf_class": "ELF64"},
    "armhf": {"triplet": "arm-linux-gnueabihf", "qemu": "qemu-arm-static",
              "elf_machine": "ARM", "elf_class": "ELF32"},
}
# Not Multi-Arch: one architecture's pair is installed at a time.
SWAPPED = ["libcpupower1", "libcpupower-dev"]
# Beside debian/control's Build-Depends: the unit suite's cmocka, and
# qemu-user to run its tests.
EXTRA = ["qemu-user-static"] + ["libcmocka-dev:" + a for a in ARCHES]
# Where the chroot keeps the SWAPPED .debs of each architecture.
DEBS = "/var/cache/powerallocd-cross"


def say(msg):
    vm.say("cross: " + msg)


def build_depends():
    """debian/control's Build-Depends, as text (the chroot's key)."""
    with open(CONTROL) as f:
        m = re.search(r"^Build-Depends:(.*?)^\S", f.read(), re.S | re.M)
    return " ".join(m.group(1).split()) if m else ""


def sources():
    """The Debian 12 archive lines of this machine's apt, but security's: a
    build needs no security update, and its foreign index was seen mid-sync
    (a wrong size, which fails mmdebstrap's apt-get update)."""
    return [line for line in vm.debian_sources() if "-security" not in line]


def source_files(src=SOURCE):
    """The tree's files as git sees them: tracked, and new ones not ignored."""
    out = vm.must(["git", "-C", src, "ls-files", "-z", "--cached", "--others",
                   "--exclude-standard"]).stdout
    return [f for f in out.split("\0") if f and os.path.lexists(os.path.join(src, f))]


def copy_tree(src, dst):
    """Copies src's files into dst, keeping their times (so that ninja rebuilds
    only what changed) and removing those the tree no longer has."""
    files = source_files(src)
    os.makedirs(dst, exist_ok=True)
    tar_out = subprocess.Popen(["tar", "--null", "-T", "-", "-cf", "-"], cwd=src,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    tar_in = subprocess.Popen(["tar", "-xf", "-"], cwd=dst, stdin=tar_out.stdout)
    tar_out.stdout.close()
    tar_out.communicate("\0".join(files).encode())
    if tar_in.wait() != 0 or tar_out.returncode != 0:
        raise RuntimeError("copying %s to %s failed" % (src, dst))
    keep = set(files)
    for root, dirs, names in os.walk(dst):
        rel = os.path.relpath(root, dst)
        dirs[:] = [d for d in dirs if not (rel == "." and d.startswith("build-"))]
        for name in names:
            path = os.path.normpath(os.path.join(rel, name))
            if path not in keep:
                os.unlink(os.path.join(root, name))


class Chroot:
    """The cross-build chroot; commands run in it with /proc mounted in a
    private mount namespace (gone with the command, whatever ends it)."""

    def __init__(self):
        if os.geteuid() != 0:
            raise PermissionError("the cross-build chroot needs root (mmdebstrap, chroot)")
        key = vm.digest(" ".join(sorted(ARCHES)), " ".join(EXTRA), build_depends(),
                        " ".join(SWAPPED), sources())
        self.root = os.path.join(vm.cache_dir(), "cross-" + key)
        self._lock = None
        if not os.path.exists(os.path.join(self.root, ".complete")):
            self._make(key)

    def _make(self, key):
        for old in os.listdir(vm.cache_dir()):
            if old.startswith("cross-") and old != "cross-" + key:
                say("removing the old chroot " + old)
                shutil.rmtree(os.path.join(vm.cache_dir(), old), ignore_errors=True)
        shutil.rmtree(self.root, ignore_errors=True)
        arches = list(ARCHES)
        # build-dep for each architecture in turn: the last one's SWAPPED pair
        # stays installed, each one's is kept as .debs.
        hook = ['mkdir -p "$1/tmp/control/debian"',
                'cp "%s" "$1/tmp/control/debian/control"' % CONTROL]
        for arch in arches:
            hook += ['chroot "$1" apt-get build-dep -y -q -a %s /tmp/control' % arch,
                     'mkdir -p "$1%s/%s"' % (DEBS, arch),
                     'chroot "$1" sh -c "cd %s/%s && apt-get download -q %s"' % (
                         DEBS, arch, " ".join("%s:%s" % (p, arch) for p in SWAPPED))]
        with vm.Stages.timed("cross: mmdebstrap the cross-build chroot (%s)" %
                             ", ".join(arches)):
            self._mmdebstrap(["mmdebstrap", "--quiet", "--variant=buildd", "--mode=root",
                     "--architectures=" + ",".join(["amd64"] + arches),
                     "--include=" + ",".join(["crossbuild-essential-" + a for a in arches] +
                                             EXTRA),
                     "--dpkgopt=path-exclude=/usr/share/man/*",
                     "--dpkgopt=path-exclude=/usr/share/locale/*",
                     "--dpkgopt=path-exclude=/usr/share/doc/*",
                     "--customize-hook=" + " && ".join(hook),
                     "bookworm", self.root] + sources())
        open(os.path.join(self.root, ".complete"), "w").close()

    def _mmdebstrap(self, cmd, tries=3):
        """Runs mmdebstrap, again after a minute where a mirror was mid-sync."""
        for attempt in range(tries):
            out = vm.run(cmd, timeout=1800)
            if out.returncode == 0:
                return
            shutil.rmtree(self.root, ignore_errors=True)
            text = (out.stdout or "") + (out.stderr or "")
            if attempt + 1 == tries or "Mirror sync in progress" not in text:
                raise RuntimeError("mmdebstrap: exit %d\n%s" % (out.returncode, text[-4000:]))
            say("a mirror was mid-sync; again in 60 s")
            time.sleep(60)

    @contextlib.contextmanager
    def locked(self):
        """Held while a build uses the chroot: one architecture's libraries
        are installed at a time."""
        with open(os.path.join(self.root, ".lock"), "w") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            yield

    def run(self, script, timeout=1800):
        """(exit status, output) of a shell script run in the chroot."""
        cmd = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
               'mount -t proc proc "$0/proc" && exec chroot "$0" sh -c "$1"',
               self.root, script]
        out = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, timeout=timeout,
                             env=dict(os.environ, LC_ALL="C.UTF-8"))
        return out.returncode, out.stdout

    def check(self, script, timeout=1800):
        rc, out = self.run(script, timeout)
        if rc != 0:
            raise RuntimeError("in the cross-build chroot: %s\nexit %d:\n%s" %
                               (script, rc, out[-4000:]))
        return out

    def use(self, arch):
        """Installs arch's SWAPPED packages (the other architecture's go)."""
        wanted = " ".join("%s:%s" % (p, arch) for p in SWAPPED)
        self.check("dpkg-query -W -f='${Status}\\n' %s 2>/dev/null | grep -c 'ok installed' |"
                   " grep -qx %d || { dpkg --purge --force-depends %s && dpkg -i %s/%s/*.deb; }"
                   % (wanted, len(SWAPPED), " ".join(
                       "%s:%s" % (p, a) for p in SWAPPED for a in ARCHES if a != arch),
                      DEBS, arch), timeout=300)

    def host_path(self, path):
        return os.path.join(self.root, path.lstrip("/"))


class Build:
    """The tree built for arch in the chroot: a meson build directory (-Werror,
    the tests too) in the chroot's copy of the tree."""

    def __init__(self, arch, src=SOURCE):
        if arch not in ARCHES:
            raise ValueError("no such architecture: %s (%s)" % (arch, ", ".join(ARCHES)))
        self.arch = arch
        self.info = ARCHES[arch]
        self.chroot = Chroot()
        # One copy of the tree per source directory: worktrees do not meet.
        self.work = "/work/" + vm.digest(os.path.realpath(src))
        self.src = self.work + "/src"
        self.dir = self.src + "/build-" + arch
        self.source = src

    def cross_file(self):
        return "tools/cross-files/%s.ini" % self.info["triplet"]

    def compile(self):
        """Copies the tree in and builds it; returns ninja's output (raises
        with it on failure)."""
        with self.chroot.locked():
            self.chroot.use(self.arch)
            copy_tree(self.source, self.chroot.host_path(self.src))
            setup = ("test -f %s/build.ninja || meson setup %s --cross-file %s --werror "
                     ">%s.setup.log 2>&1 || { cat %s.setup.log; exit 1; }" %
                     (self.dir, self.dir, self.cross_file(), self.dir, self.dir))
            return self.chroot.check("cd %s && %s && ninja -C %s" % (
                self.src, setup, self.dir))

    def unit_tests(self):
        """(exit status, output) of the unit suite under qemu-user."""
        with self.chroot.locked():
            self.chroot.use(self.arch)
            return self.chroot.run("cd %s && meson test -C %s --suite unit --print-errorlogs"
                                   % (self.src, self.dir))

    def package(self):
        """Builds the .deb with dpkg-buildpackage -a ARCH from a clean copy of
        the tree; returns its path on the host."""
        pkg = self.work + "/pkg-" + self.arch
        host_pkg = self.chroot.host_path(pkg)
        shutil.rmtree(host_pkg, ignore_errors=True)
        copy_tree(self.source, os.path.join(host_pkg, "powerallocd"))
        with self.chroot.locked():
            self.chroot.use(self.arch)
            self.chroot.check("cd %s/powerallocd && dpkg-buildpackage -a %s -us -uc -b" %
                              (pkg, self.arch))
        debs = [f for f in os.listdir(host_pkg)
                if f.startswith("powerallocd_") and f.endswith("_%s.deb" % self.arch)]
        if len(debs) != 1:
            raise RuntimeError("dpkg-buildpackage -a %s made %s" % (self.arch, debs))
        return os.path.join(host_pkg, debs[0])

    def binary(self, rel):
        """Host path of a built file, e.g. daemon/powerallocd."""
        return self.chroot.host_path(self.dir + "/" + rel)


def elf_header(path):
    """(class, machine) of an ELF file, as readelf -h names them."""
    out = vm.must(["readelf", "-h", path]).stdout
    return (re.search(r"Class:\s+(\S+)", out).group(1),
            re.search(r"Machine:\s+(.+)", out).group(1).strip())

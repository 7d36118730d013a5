#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/helpers/fault-shim.c builds for both offset ABIs (issue 41, 1).

The shim defines pread() and pwrite() with off_t and pread64() and
pwrite64() with off64_t; on a 32-bit machine those differ, and a shim that
gave pread64() an off_t stopped the armhf build with "conflicting types".
Compiles it, as an object, with and without -D_FILE_OFFSET_BITS=64 (meson
passes it), natively and, where the compiler can (gcc-multilib), with -m32;
the 32-bit cases are skipped where it cannot.

usage: test_fault_shim.py CC... -- CFLAGS...
"""
import os
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHIM = os.path.join(SOURCE, "tests", "helpers", "fault-shim.c")
# Its Nth-call injection, in the same module.
INJECT = os.path.join(SOURCE, "tests", "helpers", "fault-inject.c")
CC = ["cc"]
CFLAGS = []


def compile_shim(source, *flags):
    """Compiles @source to an object with @flags; (returncode, stderr)."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = CC + ["-std=gnu11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror", "-fPIC",
                    *CFLAGS, *flags, "-c", source, "-o", os.path.join(tmp, "shim.o")]
        run = subprocess.run(cmd, stderr=subprocess.PIPE, text=True, check=False)
        return run.returncode, run.stderr


def can_m32():
    """Whether the compiler builds a 32-bit object that uses the C library's headers."""
    with tempfile.TemporaryDirectory() as tmp:
        probe = os.path.join(tmp, "probe.c")
        with open(probe, "w", encoding="utf-8") as f:
            f.write("#include <unistd.h>\nint probe(void) { return (int)getpid(); }\n")
        return compile_shim(probe, "-m32")[0] == 0


class Abi(unittest.TestCase):
    def check(self, *flags):
        for source in (SHIM, INJECT):
            code, err = compile_shim(source, *flags)
            self.assertEqual(code, 0, f"{os.path.basename(source)} with {' '.join(flags)}:\n{err}")

    def test_native(self):
        self.check()

    def test_native_file_offset_bits_64(self):
        self.check("-D_FILE_OFFSET_BITS=64")

    @unittest.skipUnless(can_m32(), "the compiler builds no 32-bit object (gcc-multilib)")
    def test_32bit(self):
        self.check("-m32")

    @unittest.skipUnless(can_m32(), "the compiler builds no 32-bit object (gcc-multilib)")
    def test_32bit_file_offset_bits_64(self):
        self.check("-m32", "-D_FILE_OFFSET_BITS=64")


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--" in args:
        split = args.index("--")
        CC, CFLAGS = args[:split] or CC, args[split + 1:]
    unittest.main(argv=sys.argv[:1], verbosity=2)

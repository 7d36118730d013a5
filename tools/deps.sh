# shellcheck shell=bash
# Sourced by tools/check, tools/demo and tools/plot-trace: installs the
# Debian packages the build and the tests need (or the ones named), when
# any is missing.

# What tools/demo needs: the build (the simulator is built with the tests'
# board data, so cmocka too) and umockdev-wrapper.
POWERALLOCD_DEMO_PACKAGES=(
	meson ninja-build pkg-config gcc libc6-dev python3
	libsystemd-dev libnl-3-dev libnl-genl-3-dev libconfig-dev libcpupower-dev
	libcmocka-dev umockdev
)

POWERALLOCD_PACKAGES=(
	meson ninja-build pkg-config gcc libc6-dev python3
	libsystemd-dev libnl-3-dev libnl-genl-3-dev libconfig-dev libcpupower-dev
	libcmocka-dev umockdev libumockdev-dev scdoc valgrind systemd dbus-daemon dbus-bin gnuplot-nox
	# tests/package/test_package.py (debian/rules is a makefile; Rules-Requires-Root: no needs no fakeroot)
	dpkg-dev debhelper make
	# tests/daemon/test_metrics.py scrapes it (4.1 MB, 13 MB installed; promtool's package,
	# prometheus, is 19 MB and 96 MB installed: a strict parser in the test instead)
	prometheus-node-exporter
	# the system suite (tests/system): Debian's kernel under QEMU, ACPI tables compiled
	# with iasl, a busybox initramfs, a Debian 12 root file system by mmdebstrap;
	# the arm64 stage: qemu-system-aarch64, its device tree compiled with dtc
	qemu-system-x86 acpica-tools busybox-static cpio kmod e2fsprogs mmdebstrap
	qemu-system-arm device-tree-compiler
)

# ensure_packages [PACKAGE...]: install those missing of the PACKAGEs (default:
# every package above), with --no-install-recommends.
ensure_packages() {
	local missing=() p
	[ $# -gt 0 ] || set -- "${POWERALLOCD_PACKAGES[@]}"
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0

	local sudo=()
	if [ "$(id -u)" -ne 0 ]; then
		if command -v sudo >/dev/null; then
			sudo=(sudo)
		else
			echo "missing packages: ${missing[*]}; run as root or install sudo" >&2
			return 1
		fi
	fi
	echo "installing: ${missing[*]}"
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
		"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# setup_build DIR [meson options...]: configure DIR, or reconfigure it.
setup_build() {
	local dir=$1
	shift
	if [ -d "$dir/meson-private" ]; then
		meson setup --reconfigure "$dir" "$@"
	else
		meson setup "$dir" "$@"
	fi
}

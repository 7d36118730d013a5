#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Build fake /sys and /proc trees laid out as the kernel lays them out.

usage: fixture.py NAME OUTDIR

NAME is one of the trees in TREES.  The tree goes to OUTDIR/sys and
OUTDIR/proc, ready for UMOCKDEV_DIR=OUTDIR umockdev-wrapper PROGRAM.
Descriptions come from board JSON files (device-tree data) or are built here
from a few parameters; nothing is copied from a real machine.
"""
import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


class Tree:
    """A directory tree with the helpers sysfs layouts need."""

    def __init__(self, root):
        self.root = root

    def path(self, rel):
        return os.path.join(self.root, rel.lstrip("/"))

    def write(self, rel, value):
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        data = value if isinstance(value, bytes) else (str(value) + "\n").encode()
        with open(p, "wb") as f:
            f.write(data)

    def attrs(self, rel, values):
        for name, value in values.items():
            self.write(os.path.join(rel, name), value)

    def link(self, rel, target_rel):
        """A relative symlink at rel pointing at target_rel (both tree paths)."""
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        target = os.path.relpath(self.path(target_rel), os.path.dirname(p))
        if os.path.lexists(p):
            os.unlink(p)
        os.symlink(target, p)


def be32(*cells):
    return b"".join(struct.pack(">I", c) for c in cells)


def be64(value):
    return struct.pack(">II", value >> 32, value & 0xFFFFFFFF)


def cpulist(cpus):
    cpus = sorted(cpus)
    out, start = [], None
    for i, c in enumerate(cpus):
        if start is None:
            start = c
        if i + 1 == len(cpus) or cpus[i + 1] != c + 1:
            out.append(str(start) if start == c else "%d-%d" % (start, c))
            start = None
    return ",".join(out)


# ---------------------------------------------------------------- CPUs

def add_cpus(t, policies, n_possible, online=None, driver="cpufreq-dt"):
    """policies: dicts with cpus, freqs_khz (ascending; [] for none),
    cur_khz, min_khz, max_khz, cluster_id, package_id, capacity, of_node."""
    online = set(range(n_possible)) if online is None else set(online)
    base = "sys/devices/system/cpu"
    t.attrs(base, {"possible": cpulist(range(n_possible)),
                   "present": cpulist(range(n_possible)),
                   "online": cpulist(online), "kernel_max": 4095})
    for pol in policies:
        first = pol["cpus"][0]
        pdir = "%s/cpufreq/policy%d" % (base, first)
        freqs = pol["freqs_khz"]
        t.attrs(pdir, {
            "related_cpus": " ".join(map(str, pol["cpus"])),
            "affected_cpus": " ".join(str(c) for c in pol["cpus"] if c in online),
            "cpuinfo_min_freq": pol["min_khz"], "cpuinfo_max_freq": pol["max_khz"],
            "scaling_min_freq": pol["min_khz"], "scaling_max_freq": pol["max_khz"],
            "scaling_cur_freq": pol["cur_khz"], "cpuinfo_cur_freq": pol["cur_khz"],
            "scaling_driver": driver, "scaling_governor": "schedutil",
            "cpuinfo_transition_latency": 40000,
        })
        if freqs:
            t.write(pdir + "/scaling_available_frequencies", " ".join(map(str, freqs)) + " ")
        for cpu in pol["cpus"]:
            cdir = "%s/cpu%d" % (base, cpu)
            if cpu != 0:
                t.write(cdir + "/online", 1 if cpu in online else 0)
            if cpu in online:
                t.link(cdir + "/cpufreq", pdir)
            t.attrs(cdir + "/topology", {"cluster_id": pol.get("cluster_id", 0),
                                         "package_id": pol.get("package_id", 0),
                                         "core_id": cpu})
            if pol.get("capacity"):
                t.write(cdir + "/cpu_capacity", pol["capacity"])
            if pol.get("of_node"):
                t.link(cdir + "/of_node", "sys/firmware/devicetree/base" + pol["of_node"][cpu])


def add_proc_stat(t, n_cpus, online=None):
    online = set(range(n_cpus)) if online is None else set(online)
    lines = ["cpu  %d 0 %d %d 0 0 0 0 0 0" % (100 * n_cpus, 50 * n_cpus, 1000 * n_cpus)]
    for c in range(n_cpus):
        if c in online:
            lines.append("cpu%d 100 0 50 1000 0 0 0 0 0 0" % c)
    lines += ["intr 0", "ctxt 0", "btime 0", "processes 1", "procs_running 1",
              "procs_blocked 0", "softirq 0 0 0 0 0 0 0 0 0 0 0"]
    t.write("proc/stat", "\n".join(lines))


# ---------------------------------------------------------------- thermal

POLICIES = "power_allocator user_space step_wise fair_share bang_bang"


def add_cooling_device(t, cid, ctype, max_state):
    d = "sys/devices/virtual/thermal/cooling_device%d" % cid
    t.attrs(d, {"type": ctype, "max_state": max_state, "cur_state": 0})
    t.link("sys/class/thermal/cooling_device%d" % cid, d)


def add_thermal_zone(t, zid, ztype, temp_mc, trips, bindings, sustainable_power=0,
                     policy="step_wise"):
    """trips: (type, temp_mc, hyst_mc); bindings: (cdev_id, trip_index, weight)."""
    d = "sys/devices/virtual/thermal/thermal_zone%d" % zid
    t.attrs(d, {"type": ztype, "temp": temp_mc, "policy": policy,
                "available_policies": POLICIES, "mode": "enabled",
                "sustainable_power": sustainable_power, "k_po": 0, "k_pu": 0, "k_i": 0,
                "k_d": 0, "integral_cutoff": 0, "slope": 0, "offset": 0})
    for k, (ttype, temp, hyst) in enumerate(trips):
        t.attrs(d, {"trip_point_%d_type" % k: ttype, "trip_point_%d_temp" % k: temp,
                    "trip_point_%d_hyst" % k: hyst})
    for k, (cdev, trip, weight) in enumerate(bindings):
        t.link("%s/cdev%d" % (d, k), "sys/devices/virtual/thermal/cooling_device%d" % cdev)
        t.attrs(d, {"cdev%d_trip_point" % k: trip, "cdev%d_weight" % k: weight})
    t.link("sys/class/thermal/thermal_zone%d" % zid, d)


# ---------------------------------------------------------------- OPP data

def add_dt_opp_table(t, name, phandle, opps, shared):
    d = "sys/firmware/devicetree/base/" + name
    t.write(d + "/compatible", b"operating-points-v2\0")
    t.write(d + "/phandle", be32(phandle))
    if shared:
        t.write(d + "/opp-shared", b"")
    for o in opps:
        n = "%s/%s" % (d, o["node"])
        t.write(n + "/opp-hz", be64(o["hz"]))
        t.write(n + "/opp-microvolt", be32(*o["opp_microvolt_cells"]))


def add_opp_debugfs(t, dev, opps, aliases=()):
    d = "sys/kernel/debug/opp/" + dev
    for o in opps:
        n = "%s/opp:%d" % (d, o["hz"])
        t.attrs(n, {"rate_hz": o["hz"], "available": "Y", "turbo": "N",
                    "supply-0/u_volt_target": o["uv"], "supply-0/u_volt_min": o["uv_min"],
                    "supply-0/u_volt_max": o["uv_max"], "supply-0/u_amp": 0})
    for a in aliases:
        t.link("sys/kernel/debug/opp/" + a, d)


def add_energy_model(t, pd, power_table, cpus=None):
    d = "sys/kernel/debug/energy_model/" + pd
    if cpus is not None:
        t.write(d + "/cpus", cpulist(cpus))
    t.write(d + "/flags", "0x1")
    for p in power_table:
        t.attrs("%s/ps:%d" % (d, p["khz"]), {"frequency": p["khz"], "power": p["uw"],
                                              "cost": p["uw"], "inefficient": 0})


# ---------------------------------------------------------------- boards

def node_name(cpu_node):
    """'cpu_b0 (cpu@100)' -> 'cpu@100'"""
    return cpu_node.split("(")[1].rstrip(")")


def add_gpu(t, gpu, variant, phandle):
    """The GPU: a platform device with a devfreq device and its OPPs."""
    gdev = gpu["device"]
    gnode = "sys/firmware/devicetree/base/" + gpu["node"].split("(/")[1].rstrip(")")
    t.write(gnode + "/compatible", "".join(c + "\0" for c in gpu["compatible"]).encode())
    if variant != "em":
        t.write(gnode + "/dynamic-power-coefficient", be32(gpu["dynamic_power_coefficient"]))
    if variant == "dt":
        t.write(gnode + "/operating-points-v2", be32(phandle))
        add_dt_opp_table(t, "opp-table-%d" % (phandle - 0x10), phandle, gpu["opps"], False)
    elif variant == "opp-debugfs":
        add_opp_debugfs(t, gdev, gpu["opps"])
    elif variant == "em":
        add_energy_model(t, gdev, gpu["power_table"])
    pdev = "sys/devices/platform/" + gdev
    t.link(pdev + "/of_node", gnode)
    ghz = [o["hz"] for o in gpu["opps"]]
    ddir = pdev + "/devfreq/" + gdev
    t.attrs(ddir, {"cur_freq": ghz[-1], "min_freq": ghz[0], "max_freq": ghz[-1],
                   "available_frequencies": " ".join(map(str, ghz)), "governor": "simple_ondemand",
                   "trans_stat": "     From  :   To\n", "polling_interval": 50})
    t.link(ddir + "/device", pdev)
    t.link("sys/class/devfreq/" + gdev, ddir)


def board_tree(t, name, variant, gpu_device=None):
    """A board from tests/boards/NAME.json: its CPU clusters (cpufreq-dt
    policies with the OPPs from the tree, debugfs or the energy model), the
    GPU when the board has one, a pwm-fan, and every thermal zone with the
    cooling maps the drivers would bind."""
    with open(os.path.join(HERE, "boards", name + ".json")) as f:
        b = json.load(f)
    clusters, gpu = b["clusters"], b.get("gpu")
    n_cpus = sum(len(c["cpus"]) for c in clusters)
    big_max = max(c["opps"][-1]["hz"] // 1000 * c["capacity_dmips_mhz"] for c in clusters)
    policies = []
    for i, c in enumerate(clusters):
        freqs = [o["hz"] // 1000 for o in c["opps"]]
        of_node = {cpu: "/cpus/" + node_name(n) for cpu, n in zip(c["cpus"], c["cpu_nodes"])}
        policies.append({"cpus": c["cpus"], "freqs_khz": freqs, "cur_khz": freqs[-1],
                         "min_khz": freqs[0], "max_khz": freqs[-1], "cluster_id": i,
                         "package_id": 0, "of_node": of_node,
                         "capacity": freqs[-1] * c["capacity_dmips_mhz"] * 1024 // big_max})
        # cpu nodes: the coefficient always, OPP tables in the dt variant only.
        for cpu, n in zip(c["cpus"], c["cpu_nodes"]):
            d = "sys/firmware/devicetree/base/cpus/" + node_name(n)
            t.write(d + "/compatible", (c["compatible"] + "\0").encode())
            t.write(d + "/capacity-dmips-mhz", be32(c["capacity_dmips_mhz"]))
            if variant != "em":
                t.write(d + "/dynamic-power-coefficient", be32(c["dynamic_power_coefficient"]))
            if variant == "dt":
                t.write(d + "/operating-points-v2", be32(0x10 + i))
        if variant == "dt":
            add_dt_opp_table(t, "opp-table-%d" % i, 0x10 + i, c["opps"], c["opp_shared"])
        elif variant == "opp-debugfs":
            add_opp_debugfs(t, "cpu%d" % c["cpus"][0], c["opps"],
                            ["cpu%d" % x for x in c["cpus"][1:]])
        elif variant == "em":
            add_energy_model(t, "cpu%d" % c["cpus"][0], c["power_table"], c["cpus"])
    add_cpus(t, policies, n_cpus)
    add_proc_stat(t, n_cpus)
    if gpu:
        add_gpu(t, dict(gpu, device=gpu_device), variant, 0x10 + len(clusters))

    # Cooling devices in the order the drivers register them: the clusters'
    # (one per policy, on the policy CPU's node), the GPU's, the fan.
    cdev_of = {}
    for i, c in enumerate(clusters):
        cdev_of[c["policy_cpu_node"]] = i
        add_cooling_device(t, i, "cpufreq-cpu%d" % c["policy_cpu"], len(c["opps"]) - 1)
    n = len(clusters)
    if gpu:
        cdev_of["gpu"] = n
        add_cooling_device(t, n, "devfreq-" + gpu_device, len(gpu["opps"]) - 1)
        n += 1
    fan = b.get("fan") or {}
    cdev_of[fan.get("label", "fan")] = n
    add_cooling_device(t, n, "pwm-fan", len(fan.get("cooling_levels", [0, 1, 2, 3])) - 1)

    for zid, z in enumerate(b["thermal_zones"]):
        trips = [(tr["type"], tr["temp_mc"], tr["hyst_mc"]) for tr in z["trips"]]
        index = {tr["name"]: k for k, tr in enumerate(z["trips"])}
        bindings = []
        for m in z["cooling_maps"]:
            seen = set()
            for dev in m["devices"]:
                cdev = cdev_of.get(dev["device"])
                if cdev is None or cdev in seen:
                    continue    # CPUs other than the policy CPU never bind
                seen.add(cdev)
                bindings.append((cdev, index[m["trip"]], m["contribution"] or 0))
        add_thermal_zone(t, zid, z["name"], 45000, trips, bindings,
                         z.get("sustainable_power_mw") or 0)


def add_powercap_zone(t, name, zone_name, energy_uj, constraints=None):
    """A powercap zone; name "intel-rapl:0" or "intel-rapl:0:1" (parent first)."""
    parts = name.split(":")
    rel = "sys/devices/virtual/powercap/intel-rapl/" + ":".join(parts[:2])
    if len(parts) > 2:
        rel += "/" + name
    t.attrs(rel, {"name": zone_name, "energy_uj": energy_uj,
                  "max_energy_range_uj": 262143328850, "enabled": 1})
    for k, (cname, limit_uw, max_uw, window_us) in enumerate(constraints or []):
        t.attrs(rel, {"constraint_%d_name" % k: cname,
                      "constraint_%d_power_limit_uw" % k: limit_uw,
                      "constraint_%d_max_power_uw" % k: max_uw,
                      "constraint_%d_time_window_us" % k: window_us})
    t.link("sys/class/powercap/" + name, rel)


def add_coretemp(t, package, crit_mc, max_mc, temp_mc, n_cores, hwmon=None):
    """coretemp's hwmon device for @package: temp1 is the package, then a
    sensor per core, each with TjMax as tempN_crit."""
    hwmon = package if hwmon is None else hwmon
    rel = "sys/devices/platform/coretemp.%d/hwmon/hwmon%d" % (package, hwmon)
    t.write(rel + "/name", "coretemp")
    for k in range(1 + n_cores):
        label = "Package id %d" % package if k == 0 else "Core %d" % (k - 1)
        t.attrs(rel, {"temp%d_label" % (k + 1): label, "temp%d_input" % (k + 1): temp_mc,
                      "temp%d_crit" % (k + 1): crit_mc, "temp%d_max" % (k + 1): max_mc,
                      "temp%d_crit_alarm" % (k + 1): 0})
    t.link("sys/class/hwmon/hwmon%d" % hwmon, rel)


def add_hwmon(t, n, name, device_rel, attrs):
    """hwmon device hwmonN named @name under the device @device_rel, with @attrs."""
    rel = "%s/hwmon/hwmon%d" % (device_rel, n)
    t.write(rel + "/name", name)
    t.attrs(rel, attrs)
    t.link("sys/class/hwmon/hwmon%d" % n, rel)


# The board's rail monitor: per rail, its label, bus voltage (mV) and current (mA).
INA3221_RAILS = [("VDD_CPU_B", 900, 1500), ("VDD_CPU_L", 850, 400), ("VDD_GPU", 900, 800)]


def add_rail_meters(t):
    """Power meters as an ARM board has them: a TI INA3221 on I2C with a
    rail per channel as drivers/hwmon/ina3221.c names them (inN_label from
    the device tree, inN_input bus voltage in mV, currN_input in mA,
    in4-6_input shunt voltages in uV; the driver has no powerN_input: power
    is volts times amps), and an SCMI firmware's sensors
    (drivers/hwmon/scmi-hwmon.c: energyN_input in uJ and powerN_input in
    uW, each with its label from the firmware)."""
    ina = {"update_interval": 100, "samples": 16}
    for k, (label, mv, ma) in enumerate(INA3221_RAILS, 1):
        ina.update({"in%d_label" % k: label, "in%d_input" % k: mv, "in%d_enable" % k: 1,
                    "curr%d_input" % k: ma, "shunt%d_resistor" % k: 10000,
                    "in%d_input" % (k + 3): ma * 10})
    add_hwmon(t, 0, "ina3221", "sys/devices/platform/ff3d0000.i2c/i2c-4/4-0040", ina)
    add_hwmon(t, 1, "scmi_sensors", "sys/devices/platform/firmware:scmi/scmi_dev.7",
              {"energy1_label": "BIG_CPU_ENERGY", "energy1_input": 5000000000,
               "energy2_label": "GPU_ENERGY", "energy2_input": 2000000000,
               "power1_label": "SOC_POWER", "power1_input": 3200000,
               "temp1_label": "SOC_TEMP", "temp1_input": 45000})


def x86_laptop(t):
    """8 threads on intel_pstate (one policy per CPU, no frequency table), an
    acpitz zone with one passive trip bound to the Processor cooling devices,
    x86_pkg_temp with its two passive trips unset (0, as the driver shows
    them until user space writes them) and nothing bound, coretemp's hwmon
    device (TjMax 100 °C), and a RAPL package with subzones (TDP 45 W,
    long-term limit 28 W)."""
    n = 8
    policies = [{"cpus": [c], "freqs_khz": [], "cur_khz": 2100000, "min_khz": 400000,
                 "max_khz": 4700000, "cluster_id": 0, "package_id": 0} for c in range(n)]
    add_cpus(t, policies, n, driver="intel_pstate")
    add_proc_stat(t, n)
    for c in range(n):
        add_cooling_device(t, c, "Processor", 10)
    add_cooling_device(t, n, "intel_powerclamp", 100)
    add_cooling_device(t, n + 1, "TCC Offset", 63)
    add_thermal_zone(t, 0, "acpitz", 45000,
                     [("passive", 95000, 0), ("critical", 105000, 0)],
                     [(c, 0, 0) for c in range(n)])
    add_thermal_zone(t, 1, "x86_pkg_temp", 50000, [("passive", 0, 0), ("passive", 0, 0)], [])
    add_coretemp(t, 0, 100000, 80000, 50000, n // 2)
    t.write("sys/devices/virtual/powercap/intel-rapl/enabled", 1)
    add_powercap_zone(t, "intel-rapl:0", "package-0", 1000000000,
                      [("long_term", 28000000, 45000000, 27983872),
                       ("short_term", 64000000, 0, 2440)])
    add_powercap_zone(t, "intel-rapl:0:0", "core", 600000000)
    add_powercap_zone(t, "intel-rapl:0:1", "uncore", 100000000)


def qemu_x86(t):
    """What Debian's kernel shows in the QEMU guest of the system tests: 2
    CPUs on acpi-cpufreq (a policy each, three frequencies), a Processor
    cooling device per CPU, an ACPI fan, and two acpitz zones, each with
    ACPI's trips in ACPI's order (critical, passive from _PSV, active from
    _AC0): the _PSL CPUs on the passive trip, the fan on the first zone's
    active trip.  No RAPL, no x86_pkg_temp."""
    n = 2
    freqs = [800000, 1600000, 2400000]
    policies = [{"cpus": [c], "freqs_khz": freqs, "cur_khz": freqs[-1], "min_khz": freqs[0],
                 "max_khz": freqs[-1], "cluster_id": 0, "package_id": 0} for c in range(n)]
    add_cpus(t, policies, n, driver="acpi-cpufreq")
    add_proc_stat(t, n)
    for c in range(n):
        add_cooling_device(t, c, "Processor", 3)
    add_cooling_device(t, n, "Fan", 1)
    add_thermal_zone(t, 0, "acpitz", 40000,
                     [("critical", 105000, 0), ("passive", 60000, 0), ("active", 50000, 0)],
                     [(0, 1, 0), (1, 1, 0), (n, 2, 0)])
    add_thermal_zone(t, 1, "acpitz", 45000,
                     [("critical", 105000, 0), ("passive", 70000, 0)],
                     [(0, 1, 0), (1, 1, 0)])


def server(t, n_policies=16, per_policy=16):
    """An Arm server: 256 CPUs in 16 clusters, each a cpufreq policy with a
    cpufreq cooling device and an energy model; one SoC zone with two passive
    trips binding them all and a sustainable power."""
    dpc = 300
    opps = [(1000000, 700000), (1300000, 750000), (1600000, 800000), (1900000, 850000),
            (2200000, 900000), (2500000, 950000), (2800000, 1000000), (3000000, 1050000)]
    table = [{"khz": khz, "uw": dpc * (uv // 1000) ** 2 * (khz // 1000) // 1000000}
             for khz, uv in opps]
    freqs = [khz for khz, _ in opps]
    policies = []
    for p in range(n_policies):
        cpus = list(range(p * per_policy, (p + 1) * per_policy))
        policies.append({"cpus": cpus, "freqs_khz": freqs, "cur_khz": freqs[-1],
                         "min_khz": freqs[0], "max_khz": freqs[-1], "cluster_id": p,
                         "package_id": 0, "capacity": 1024})
        add_energy_model(t, "cpu%d" % cpus[0], table, cpus)
        add_cooling_device(t, p, "cpufreq-cpu%d" % cpus[0], len(opps) - 1)
    add_cpus(t, policies, n_policies * per_policy)
    add_proc_stat(t, n_policies * per_policy)
    add_thermal_zone(t, 0, "soc-thermal", 45000,
                     [("passive", 80000, 2000), ("passive", 90000, 2000),
                      ("critical", 105000, 0)],
                     [(p, 1, 0) for p in range(n_policies)], sustainable_power=150000)


def many_zones(t, n_zones=100):
    """A machine with many thermal zones (a sensor per core, per DIMM, per
    drive...): the server's CPUs as one cluster of 4, bound to every zone's
    control trip, and a fan of its own on each zone's active trip.  Each zone
    keeps 3 files open in the daemon (its sensor, its fan's state read and
    written): 100 zones take more than 300 descriptors."""
    server(t, n_policies=1, per_policy=4)
    for z in range(1, n_zones + 1):
        add_cooling_device(t, z, "pwm-fan", 3)
        add_thermal_zone(t, z, "sensor%d" % z, 45000,
                         [("passive", 80000, 2000), ("passive", 90000, 2000),
                          ("active", 60000, 2000)],
                         [(0, 1, 0), (z, 2, 0)])


def without_governor(t, governor):
    """A kernel built without @governor (CONFIG_THERMAL_GOV_USER_SPACE=n for
    "user_space"): no zone lists it in available_policies."""
    base = "sys/devices/virtual/thermal"
    for name in sorted(os.listdir(t.path(base))):
        if name.startswith("thermal_zone"):
            rel = "%s/%s/available_policies" % (base, name)
            with open(t.path(rel)) as f:
                t.write(rel, " ".join(p for p in f.read().split() if p != governor))


RK3399_GPU = "ff9a0000.gpu"     # its devfreq device name

TREES = {
    "rk3399-dt": lambda t: board_tree(t, "rk3399-rockpro64", "dt", RK3399_GPU),
    "rk3399-opp-debugfs": lambda t: board_tree(t, "rk3399-rockpro64", "opp-debugfs", RK3399_GPU),
    "rk3399-em": lambda t: board_tree(t, "rk3399-rockpro64", "em", RK3399_GPU),
    "rk3399-meters": lambda t: (board_tree(t, "rk3399-rockpro64", "dt", RK3399_GPU),
                                add_rail_meters(t)),
    "rk3399-no-user-space": lambda t: (board_tree(t, "rk3399-rockpro64", "dt", RK3399_GPU),
                                       without_governor(t, "user_space")),
    "odroid-xu4": lambda t: board_tree(t, "odroid-xu4", "dt"),
    "rk3588-dt": lambda t: board_tree(t, "rk3588-rock5b", "dt"),
    "rk3399-rock960": lambda t: board_tree(t, "rk3399-rock960", "dt", RK3399_GPU),
    "hi3660-hikey960": lambda t: board_tree(t, "hi3660-hikey960", "dt"),
    "mt8183": lambda t: board_tree(t, "mt8183", "dt"),
    "rk3288": lambda t: board_tree(t, "rk3288", "dt"),
    "rk3576": lambda t: board_tree(t, "rk3576", "dt"),
    "x86-laptop": x86_laptop,
    "qemu-x86": qemu_x86,
    "server-256": server,
    "many-zones": many_zones,
}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in TREES:
        sys.exit("usage: fixture.py {%s} OUTDIR" % ",".join(sorted(TREES)))
    TREES[sys.argv[1]](Tree(sys.argv[2]))


if __name__ == "__main__":
    main()

/*
 * The guest's thermal hardware for the system suite (tests/system): two ACPI
 * thermal zones of type acpitz, an ACPI fan on an active trip, and P-states
 * (_PCT/_PSS) so that acpi-cpufreq binds to QEMU's two Processor objects.
 *
 * Temperatures come from QEMU's pc-testdev: its 64 KiB store at 0xff000000
 * holds whatever the guest writes there (busybox devmem), so a test sets a
 * zone's temperature by writing deci-kelvin to TMP0 (0xff000000) or TMP1
 * (0xff000004); 0 (the store at power-on) reads as 40 °C.  The P-state
 * control and status register is pc-testdev's port 0xe0, which reads back
 * the last value written, as a real status register reads the state set.
 *
 * An ACPI 4.0 power meter (ACPI000D), as servers' firmware gives one, for
 * drivers/hwmon/acpi_power_meter.c: it measures (no cap, no trips), in mW,
 * the store's word at 0xff000010 (PMW0), which the test sets.
 */
DefinitionBlock ("ssdt.aml", "SSDT", 2, "PWRALC", "VMTEST", 1)
{
	External (\_SB.CPUS.C000, ProcessorObj)
	External (\_SB.CPUS.C001, ProcessorObj)

	OperationRegion (TSTM, SystemMemory, 0xFF000000, 0x14)
	Field (TSTM, DWordAcc, NoLock, Preserve)
	{
		TMP0, 32,	/* zone 0, deci-kelvin */
		TMP1, 32,	/* zone 1, deci-kelvin */
		Offset (0x10),
		PMW0, 32,	/* the power meter's reading, mW */
	}

	/* deci-kelvin of a store word; 0 (never written) is 40 °C. */
	Method (DKLV, 1, Serialized)
	{
		If (Arg0 == 0) { Return (3132) }
		Return (Arg0)
	}

	/* 2400, 1800, 1200 and 800 MHz; control = status = the state's index. */
	Name (PSSL, Package ()
	{
		Package () { 2400, 15000, 10, 10, 0, 0 },
		Package () { 1800, 9000, 10, 10, 1, 1 },
		Package () { 1200, 5000, 10, 10, 2, 2 },
		Package () { 800, 2500, 10, 10, 3, 3 },
	})
	Name (PCTL, Package ()
	{
		ResourceTemplate () { Register (SystemIO, 16, 0, 0xE0) },
		ResourceTemplate () { Register (SystemIO, 16, 0, 0xE0) },
	})
	Scope (\_SB.CPUS.C000)
	{
		Method (_PCT) { Return (PCTL) }
		Method (_PSS) { Return (PSSL) }
		Method (_PPC) { Return (0) }
	}
	Scope (\_SB.CPUS.C001)
	{
		Method (_PCT) { Return (PCTL) }
		Method (_PSS) { Return (PSSL) }
		Method (_PPC) { Return (0) }
	}

	Scope (\_TZ)
	{
		PowerResource (FPR0, 0, 0)
		{
			Name (FSTA, 0)
			Method (_STA) { Return (FSTA) }
			Method (_ON) { FSTA = 1 }
			Method (_OFF) { FSTA = 0 }
		}
		Device (FAN0)
		{
			Name (_HID, EisaId ("PNP0C0B"))
			Name (_UID, 0)
			Name (_PR0, Package () { FPR0 })
		}

		/* Passive at 60 °C (the CPUs), the fan at 70 °C, critical at 105 °C; polled each second. */
		ThermalZone (TZ0)
		{
			Method (_TMP) { Return (DKLV (TMP0)) }
			Name (_PSV, 3332)
			Name (_PSL, Package () { \_SB.CPUS.C000, \_SB.CPUS.C001 })
			Name (_TC1, 2)
			Name (_TC2, 3)
			Name (_TSP, 10)
			Name (_AC0, 3432)
			Name (_AL0, Package () { FAN0 })
			Name (_CRT, 3782)
			Name (_TZP, 10)
		}

		/* A second zone of the same type: passive at 80 °C, critical at 105 °C. */
		ThermalZone (TZ1)
		{
			Method (_TMP) { Return (DKLV (TMP1)) }
			Name (_PSV, 3532)
			Name (_PSL, Package () { \_SB.CPUS.C000, \_SB.CPUS.C001 })
			Name (_TC1, 2)
			Name (_TC2, 3)
			Name (_TSP, 10)
			Name (_CRT, 3782)
			Name (_TZP, 10)
		}
	}

	/*
	 * The power meter.  The driver wants _PMC (14 elements: 11 integers,
	 * then the model, serial and OEM strings; units 0 = mW, the only ones it
	 * takes), _PMD (without it, it says "Found ACPI power meter" and
	 * registers nothing), _PMM, _GAI and _PAI.  It re-reads _PMM at most
	 * every sampling time (element 4, ms) and registers its hwmon device the
	 * old way: hwmonN has no name, its attributes (name, power1_average in
	 * µW, power1_average_interval in ms) are in hwmonN/device.
	 */
	Scope (\_SB)
	{
		Device (PMTR)
		{
			Name (_HID, "ACPI000D")
			Name (_UID, 0)
			Name (AVGI, 1000)	/* the averaging interval, ms */
			Name (_PMC, Package ()
			{
				1,		/* capabilities: measures */
				0,		/* units: mW */
				0,		/* type: input power */
				95000,		/* accuracy: 95.000 % */
				1000,		/* sampling time, ms */
				1000,		/* shortest averaging interval, ms */
				10000,		/* longest averaging interval, ms */
				0xFFFFFFFF,	/* hysteresis: unknown */
				0,		/* cap not configurable */
				0,		/* lowest cap, mW */
				0,		/* highest cap, mW */
				"PWRALC-PM1",
				"0001",
				"powerallocd system suite",
			})
			Name (_PMD, Package () {})
			Method (_PMM) { Return (PMW0) }
			Method (_GAI) { Return (AVGI) }
			Method (_PAI, 1)
			{
				AVGI = Arg0
				Return (0)
			}
		}
	}
}

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
 */
DefinitionBlock ("ssdt.aml", "SSDT", 2, "PWRALC", "VMTEST", 1)
{
	External (\_SB.CPUS.C000, ProcessorObj)
	External (\_SB.CPUS.C001, ProcessorObj)

	OperationRegion (TSTM, SystemMemory, 0xFF000000, 0x10)
	Field (TSTM, DWordAcc, NoLock, Preserve)
	{
		TMP0, 32,	/* zone 0, deci-kelvin */
		TMP1, 32,	/* zone 1, deci-kelvin */
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
}

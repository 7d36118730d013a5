/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Test helper: owns each NAME given on the system bus ($DBUS_SYSTEM_BUS_ADDRESS),
 * as another daemon would, prints "owned" and holds them until stdin closes.
 *   own-name NAME...
 */
#include <stdio.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	sd_bus *bus = NULL;
	char c;
	int r = sd_bus_open_system(&bus);

	for (int i = 1; r >= 0 && i < argc; i++)
		r = sd_bus_request_name(bus, argv[i], 0);
	if (r < 0) {
		fprintf(stderr, "own-name: %s\n", strerror(-r));
		sd_bus_unref(bus);
		return 1;
	}
	printf("owned\n");
	fflush(stdout);
	while (read(STDIN_FILENO, &c, 1) > 0)
		;
	sd_bus_flush_close_unref(bus);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Test helper: a fake logind on the system bus ($DBUS_SYSTEM_BUS_ADDRESS),
 * as much of org.freedesktop.login1.Manager as powerallocd uses.
 * Inhibit(what, who, why, mode) hands out the write end of a pipe and
 * prints "inhibit WHAT WHO" and "mode MODE"; when every copy of it is closed (the
 * inhibitor released) it prints "released WHO".  Lines on stdin: "sleep"
 * emits PrepareForSleep(true), "wake" PrepareForSleep(false); each prints
 * "sent sleep" or "sent wake".  Prints "ready" once it owns the name; exits
 * when stdin closes.
 *   fake-logind
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#define PATH "/org/freedesktop/login1"
#define MANAGER "org.freedesktop.login1.Manager"

static sd_bus *bus;

/* One line on stdout, at once: the test reads them as they come. */
static void say(const char *a, const char *b, const char *c, const char *d)
{
	printf("%s%s%s%s\n", a, b, c, d);
	fflush(stdout);
}

/* The read end of an inhibitor's pipe hung up: every copy of the write end is closed. */
static int on_released(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	char *who = userdata;

	(void)revents;
	say("released ", who, "", "");
	free(who);
	close(fd);
	sd_event_source_unref(s);
	return 0;
}

static int method_inhibit(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	const char *what, *who, *why, *mode;
	int fds[2], r;
	char *copy;

	(void)userdata, (void)error;
	if ((r = sd_bus_message_read(m, "ssss", &what, &who, &why, &mode)) < 0)
		return r;
	if (pipe2(fds, O_CLOEXEC) < 0 || !(copy = strdup(who)))
		return -errno;
	r = sd_event_add_io(sd_bus_get_event(bus), NULL, fds[0], EPOLLHUP, on_released, copy);
	if (r < 0)
		return r;
	say("inhibit ", what, " ", who);
	say("mode ", mode, "", "");
	r = sd_bus_reply_method_return(m, "h", fds[1]);
	close(fds[1]);
	return r;
}

static const sd_bus_vtable manager_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("Inhibit", "ssss", "h", method_inhibit, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_SIGNAL("PrepareForSleep", "b", 0),
	SD_BUS_VTABLE_END,
};

static int on_stdin(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	char line[64];
	ssize_t n = read(fd, line, sizeof(line) - 1);

	(void)s, (void)revents, (void)userdata;
	if (n <= 0)
		return sd_event_exit(sd_bus_get_event(bus), 0);
	line[n] = '\0';
	for (char *l = strtok(line, "\n"); l; l = strtok(NULL, "\n")) {
		int start = strcmp(l, "sleep") == 0;

		if (!start && strcmp(l, "wake") != 0)
			continue;
		sd_bus_emit_signal(bus, PATH, MANAGER, "PrepareForSleep", "b", start);
		sd_bus_flush(bus);
		say("sent ", l, "", "");
	}
	return 0;
}

int main(void)
{
	sd_event *event = NULL;
	int r = sd_event_default(&event);

	if (r >= 0)
		r = sd_bus_open_system(&bus);
	if (r >= 0)
		r = sd_bus_attach_event(bus, event, 0);
	if (r >= 0)
		r = sd_bus_add_object_vtable(bus, NULL, PATH, MANAGER, manager_vtable, NULL);
	if (r >= 0)
		r = sd_bus_request_name(bus, "org.freedesktop.login1", 0);
	if (r >= 0)
		r = sd_event_add_io(event, NULL, STDIN_FILENO, EPOLLIN, on_stdin, NULL);
	if (r < 0) {
		fprintf(stderr, "fake-logind: %s\n", strerror(-r));
		return 1;
	}
	say("ready", "", "", "");
	r = sd_event_loop(event);
	sd_bus_flush_close_unref(bus);
	sd_event_unref(event);
	return r < 0 ? 1 : 0;
}

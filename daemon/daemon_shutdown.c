/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shutdown and restore: the state file that lets powerallocd --restore undo
 * a killed daemon's limits, and the stop that restores them itself.
 */
#include "daemon_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "config/config.h"
#include "new_file.h"
#include "platform/log.h"

void daemon_make_state_dir(const char *state_path)
{
	char dir[PATH_MAX];
	int r = new_file_make_dir(state_path, dir);

	if (r > 0)
		pa_log(PA_LOG_INFO, "%s: made (mode 0700) for the state file", dir);
	else if (r == -ENOENT)
		pa_log(PA_LOG_ERR, "%s: cannot make the state file's directory: its parent does "
		       "not exist (make it, or name another --state-file)", dir);
	else if (r < 0)
		pa_log(PA_LOG_ERR, "%s: cannot make the state file's directory: %s", dir,
		       strerror(-r));
}

void daemon_save_state(struct daemon *d)
{
	int r = saved_write(&d->saved, d->opts->state_path);

	if (r < 0)
		pa_log(PA_LOG_ERR, "%s: cannot write the state file: %s; a crash would leave the "
		       "limits in place until powerallocd runs again", d->opts->state_path,
		       strerror(-r));
}

size_t daemon_teardown(struct daemon *d)
{
	size_t total = d->saved.n, failed;

	sd_notify(0, "STOPPING=1");
	/* Closed first: the restore opens every file anew, so it has the descriptors. */
	bus_close(d->bus);
	sleep_close(&d->sleep);
	metrics_close(&d->metrics);
	netlink_close(d->netlink);
	trace_close(&d->trace);
	model_store_close(&d->models);
	saved_note_ours(&d->saved, &d->engine);
	engine_free(&d->engine);
	failed = saved_restore(&d->saved);
	if (failed == 0) {
		unlink(d->opts->state_path);
		if (d->saved.left)
			pa_log(PA_LOG_INFO, "limits released, kernel policies restored; "
			       "%zu %s left with the value another program set (see above)",
			       d->saved.left, plural(d->saved.left, "file", "files"));
		else
			pa_log(PA_LOG_INFO, "limits released, kernel policies restored");
	} else {
		daemon_save_state(d);	/* what is left, for powerallocd --restore */
		pa_log(PA_LOG_ERR, "%zu of %zu %s could not be restored; %s keeps %s "
		       "for powerallocd --restore", failed, total, plural(total, "file", "files"),
		       d->opts->state_path, plural(failed, "it", "them"));
	}
	saved_clear(&d->saved);
	sd_event_source_unref(d->tick);
	sd_event_source_unref(d->rescan);
	power_limit_free(&d->limit);
	sd_event_unref(d->event);
	pa_config_free(d->config);
	schedule_free(&d->schedule);
	free(d->was_active);
	free(d->notes);
	free(d->actor_notes);
	return failed;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Contracts that callers must keep stop the process (assert()) instead of
 * being checked silently: an actor index past a zone's actors, a NULL actor
 * registered.  Each is broken in a child, which must die of SIGABRT.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "engine/engine_build.h"
#include "engine/zone.h"

/* Runs @broken in a child; whether that child was aborted. */
static bool aborts(void (*broken)(void))
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		broken();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

static void index_past_the_actors(void)
{
	static struct zone z;	/* no actors */

	zone_holds_saturated(&z, 0);
}

static void null_actor_registered(void)
{
	struct engine e = ENGINE_INIT;

	build_register_actor(&e, NULL);
}

static void test_contracts_abort(void **unused)
{
	(void)unused;
	assert_true(aborts(index_past_the_actors));
	assert_true(aborts(null_actor_registered));
}

int main(void)
{
#ifdef NDEBUG
	return 77;	/* asserts compiled out (-Db_ndebug=true): nothing to test; meson's skip */
#endif
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_contracts_abort),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

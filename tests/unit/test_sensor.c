/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A zone's sensor, on a file in a temporary directory, slowed by the sysfs
 * fault hook: read on the loop while fast; after one slow read, logged once,
 * read by a thread whose latest reading comes back without waiting; a
 * thread stuck in a read makes the reading too old (-ETIME), and stopping
 * it does not wait for that read for ever; a zone opened on the same file
 * (a rebuilt engine's input) takes the reader over.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "platform/log.h"
#include "platform/sensor.h"
#include "platform/sysfs.h"

/* Long enough that a reader starved under valgrind on a loaded machine is not too old. */
#define PERIOD_MS 100

static char dir[] = "/tmp/powerallocd-sensor-XXXXXX";
static char temp_path[256];
/* How long each read of the sensor takes, ms, unless the reads are released. */
static atomic_int read_delay_ms;
static atomic_bool reads_released;
static atomic_int reads_done;
static char logged[4096];

static uint64_t monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* In place, as the kernel changes a value: never an empty file for the reader to see. */
static void put_temp(const char *text)
{
	int fd = open(temp_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, text, strlen(text), 0), (ssize_t)strlen(text));
	assert_int_equal(ftruncate(fd, (off_t)strlen(text)), 0);
	close(fd);
}

/* The sensor's slowness: a wait before the read, which the test can cut short. */
static int slow_hook(const char *path, bool write)
{
	uint64_t end = monotonic_ms() + (uint64_t)atomic_load(&read_delay_ms);

	if (write || strncmp(path, temp_path, strlen(temp_path)) != 0)
		return 0;
	while (monotonic_ms() < end && !atomic_load(&reads_released))
		sleep_ms(2);
	atomic_fetch_add(&reads_done, 1);
	return 0;
}

/* Only the test's thread logs: the reader thread publishes, never logs. */
static void collect(void *userdata, int priority, const char *const *fields, const char *message)
{
	(void)userdata;
	(void)priority;
	(void)fields;
	strncat(logged, message, sizeof(logged) - strlen(logged) - 2);
	strcat(logged, "\n");
}

static size_t count(const char *text, const char *what)
{
	size_t n = 0;

	for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/* The threads of this process. */
/* Threads in /proc/self/task, "." and ".." left out. */
static int tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n - 2;
}

/* The process's threads before any test: 1 natively, 2 under qemu-user, which adds one of its own. */
static int threads_at_start;

/* The test's threads: 1 for its own, plus the sensor readers it started. */
static int threads(void)
{
	return tasks() - threads_at_start + 1;
}

/*
 * The test's threads once a joined reader has left /proc (up to 2 s): under
 * qemu-user a thread is still listed for a while after pthread_join() returns.
 */
static int threads_after_join(int want)
{
	for (int i = 0; i < 400 && threads() != want; i++)
		sleep_ms(5);
	return threads();
}

/* An input of the zone "soc", read every PERIOD_MS unless the test says otherwise. */
struct probe {
	struct sensor_input in;
	uint32_t period_ms;
};

static void open_zone(struct probe *z)
{
	memset(z, 0, sizeof(*z));
	z->period_ms = PERIOD_MS;
	assert_int_equal(sensor_open(&z->in, temp_path), 0);
}

static int read_mc(struct probe *z, int64_t *t)
{
	return sensor_read_mc(&z->in, "soc", z->period_ms, t);
}

/* A zone at 45 °C whose sensor has just been found slow: its reader runs. */
static void open_slow_zone(struct probe *z)
{
	int64_t t = 0;

	put_temp("45000\n");
	open_zone(z);
	atomic_store(&read_delay_ms, 3 * SENSOR_SLOW_MS / 2);
	/* The slow read itself still counts. */
	assert_int_equal(read_mc(z, &t), 0);
	assert_int_equal(t, 45000);
	assert_non_null(z->in.reader);
}

/* Reads until @want comes back (or 2 s pass); each read must not wait for the sensor. */
static void read_until(struct probe *z, int64_t want)
{
	uint64_t end = monotonic_ms() + 2000;
	int64_t t = 0;

	while (monotonic_ms() < end) {
		uint64_t start = monotonic_ms();

		assert_int_equal(read_mc(z, &t), 0);
		assert_true(monotonic_ms() - start < SENSOR_SLOW_MS);
		if (t == want)
			return;
		sleep_ms(5);
	}
	assert_int_equal(t, want);
}

static void test_fast_sensor_stays_on_the_loop(void **unused)
{
	struct probe z;
	int64_t t = 0;

	(void)unused;
	put_temp("45000\n");
	open_zone(&z);
	assert_int_equal(read_mc(&z, &t), 0);
	assert_int_equal(t, 45000);
	put_temp("46000\n");
	assert_int_equal(read_mc(&z, &t), 0);
	assert_int_equal(t, 46000);
	assert_null(z.in.reader);
	assert_false(z.in.slow);
	assert_string_equal(logged, "");
	sensor_close(&z.in);
	assert_int_equal(z.in.attr.fd, -1);
}

static void test_slow_sensor_read_off_the_loop(void **unused)
{
	struct probe z;
	uint64_t start;

	(void)unused;
	open_slow_zone(&z);
	/* Logged with its time; the sensor is the reader's. */
	assert_int_equal(z.in.attr.fd, -1);
	assert_string_equal(z.in.attr.path, temp_path);
	assert_int_equal(count(logged, "took "), 1);
	assert_non_null(strstr(logged, "zone soc: "));
	assert_non_null(strstr(logged, "ms to read; reading it off the control loop from now on"));
	assert_true(atoi(strstr(logged, "took ") + 5) >= SENSOR_SLOW_MS);
	assert_int_equal(threads(), 2);
	/* The thread's readings come back, each without waiting for the sensor. */
	put_temp("52000\n");
	read_until(&z, 52000);
	atomic_store(&read_delay_ms, 0);
	put_temp("53000\n");
	read_until(&z, 53000);
	/* Slow again: logged once only. */
	atomic_store(&read_delay_ms, 3 * SENSOR_SLOW_MS / 2);
	put_temp("54000\n");
	read_until(&z, 54000);
	assert_int_equal(count(logged, "took "), 1);
	/* Stopping waits for the read under way, no more. */
	start = monotonic_ms();
	sensor_close(&z.in);
	assert_true(monotonic_ms() - start < SENSOR_STOP_MS / 2);
	assert_null(z.in.reader);
	assert_null(strstr(logged, "left to end on its own"));
	assert_int_equal(threads_after_join(1), 1);
}

static void test_stuck_reader_is_too_old(void **unused)
{
	struct probe z;
	int64_t t = 0;
	uint64_t start, end;
	int r = 0;

	(void)unused;
	open_slow_zone(&z);
	/* The sensor hangs: after twice its slowest read and SENSOR_STALE_PERIODS, no reading. */
	atomic_store(&read_delay_ms, 60000);
	start = monotonic_ms();
	end = start + 3000;
	while (monotonic_ms() < end && (r = read_mc(&z, &t)) == 0)
		sleep_ms(5);
	assert_int_equal(r, -ETIME);
	assert_true(monotonic_ms() - start >= SENSOR_STALE_PERIODS * PERIOD_MS);
	/* It answers again: so does the reader. */
	put_temp("47000\n");
	atomic_store(&read_delay_ms, 0);
	atomic_store(&reads_released, true);
	end = monotonic_ms() + 2000;
	while (monotonic_ms() < end && ((r = read_mc(&z, &t)) != 0 || t != 47000))
		sleep_ms(5);
	assert_int_equal(r, 0);
	assert_int_equal(t, 47000);
	sensor_close(&z.in);
	assert_int_equal(threads_after_join(1), 1);
}

/* A read the kernel does not give back: the reader is left to end on its own. */
static void test_stuck_reader_is_left_behind(void **unused)
{
	struct probe z;
	uint64_t start;
	int before;

	(void)unused;
	open_slow_zone(&z);
	atomic_store(&read_delay_ms, 60000);
	/* The read under way ends; the next hangs. */
	sleep_ms(3 * SENSOR_SLOW_MS);
	before = atomic_load(&reads_done);
	start = monotonic_ms();
	sensor_close(&z.in);
	assert_true(monotonic_ms() - start >= SENSOR_STOP_MS);
	assert_true(monotonic_ms() - start < 2 * SENSOR_STOP_MS);
	assert_non_null(strstr(logged, "still in a read after"));
	/* The read ends, and the thread with it, freeing what was its own. */
	atomic_store(&reads_released, true);
	for (int i = 0; i < 400 && (atomic_load(&reads_done) == before || threads() > 1); i++)
		sleep_ms(10);
	assert_int_not_equal(atomic_load(&reads_done), before);
	assert_int_equal(threads(), 1);
}

/* A rebuilt engine's zone on the same file takes the reader over: no read on the loop, no log. */
static void test_reader_taken_over(void **unused)
{
	struct probe old, rebuilt, other;
	char other_path[300];

	(void)unused;
	open_slow_zone(&old);
	logged[0] = '\0';
	open_zone(&rebuilt);
	rebuilt.period_ms = 2 * PERIOD_MS;
	assert_ptr_equal(rebuilt.in.reader, old.in.reader);
	assert_int_equal(rebuilt.in.attr.fd, -1);
	sensor_start(&rebuilt.in, "soc", rebuilt.period_ms);
	sensor_close(&old.in);
	assert_int_equal(threads(), 2);
	put_temp("51000\n");
	read_until(&rebuilt, 51000);
	assert_string_equal(logged, "");
	/* Another file is another sensor. */
	snprintf(other_path, sizeof(other_path), "%s2", temp_path);
	fclose(fopen(other_path, "w"));
	memset(&other, 0, sizeof(other));
	assert_int_equal(sensor_open(&other.in, other_path), 0);
	assert_null(other.in.reader);
	sensor_close(&other.in);
	unlink(other_path);
	atomic_store(&read_delay_ms, 0);
	sensor_close(&rebuilt.in);
	assert_int_equal(threads_after_join(1), 1);
}

static int setup(void **unused)
{
	(void)unused;
	if (!mkdtemp(dir))
		return -1;
	snprintf(temp_path, sizeof(temp_path), "%s/temp", dir);
	sysfs_set_fault_hook(slow_hook);
	pa_log_set_handler(collect, NULL);
	return 0;
}

static int reset(void **unused)
{
	(void)unused;
	atomic_store(&read_delay_ms, 0);
	atomic_store(&reads_released, false);
	logged[0] = '\0';
	return 0;
}

static int teardown(void **unused)
{
	char cmd[300];

	(void)unused;
	sysfs_set_fault_hook(NULL);
	pa_log_set_handler(NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_fast_sensor_stays_on_the_loop, reset),
		cmocka_unit_test_setup(test_slow_sensor_read_off_the_loop, reset),
		cmocka_unit_test_setup(test_stuck_reader_is_too_old, reset),
		cmocka_unit_test_setup(test_stuck_reader_is_left_behind, reset),
		cmocka_unit_test_setup(test_reader_taken_over, reset),
	};

	threads_at_start = tasks();
	return cmocka_run_group_tests(tests, setup, teardown);
}

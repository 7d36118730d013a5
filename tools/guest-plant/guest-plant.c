// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * powerallocd-guest-plant: the plant of tools/bench-arm64, in the arm64 guest.
 * Every period it reads each cpufreq policy's scaling_cur_freq and each CPU's
 * busy share from /proc/stat, prices them with the kernel's Energy Model
 * (debugfs, in µW, read with read(): its files refuse pread), steps a first-order
 * thermal model and writes the temperature into the bcm2711 sensor's
 * register through /dev/mem; a CSV line per period on stdout.  Under TCG a
 * frequency does not change the guest's speed, so the work is counted as
 * capacity x frequency share x busy time.
 *
 * usage: powerallocd-guest-plant --sensor-addr ADDR [--ambient-c 45]
 *   [--k-per-w 13.67] [--tau-s 10] [--start-c 45] [--period-ms 100] [--duration-s 120]
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "control/cpu_load.h"
#include "guest_plant.h"

#define CPUFREQ "/sys/devices/system/cpu/cpufreq"
#define EM "/sys/kernel/debug/energy_model"

struct options {
	uint64_t sensor_addr;
	struct gp_thermal thermal;
	double start_c;
	unsigned int period_ms;
	double duration_s;
};

struct machine {
	size_t n_clusters;
	struct gp_cluster cluster[GP_MAX_CLUSTERS];
	int cur_freq_fd[GP_MAX_CLUSTERS];
	int stat_fd;
	volatile uint32_t *sensor;
	struct cpu_stat stat[2];
	double busy[CPUMASK_MAX_CPUS];
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* The whole of a small file with read() (debugfs refuses pread); -errno. */
static ssize_t read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t n = 0;

	if (fd < 0)
		return -errno;
	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	if (n < 0)
		return -errno;
	buf[len] = '\0';
	return (ssize_t)len;
}

static int read_u32(const char *path, uint32_t *value)
{
	char buf[32];
	ssize_t n = read_file(path, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	*value = (uint32_t)strtoul(buf, NULL, 10);
	return 0;
}

static int by_freq(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* The Energy Model of the perf domain whose first CPU is @cpu. */
static int read_energy_model(struct gp_cluster *c, unsigned int cpu)
{
	char dir[96], path[384];
	uint32_t pairs[GP_MAX_STATES][2];
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), EM "/cpu%u", cpu);
	if (!(d = opendir(dir)))
		return -errno;
	c->n_states = 0;
	while ((e = readdir(d)) && c->n_states < GP_MAX_STATES) {
		uint32_t *p = pairs[c->n_states];

		if (strncmp(e->d_name, "ps:", 3) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/frequency", dir, e->d_name);
		if (read_u32(path, &p[0]) < 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/power", dir, e->d_name);
		if (read_u32(path, &p[1]) < 0)
			continue;
		c->n_states++;
	}
	closedir(d);
	qsort(pairs, c->n_states, sizeof(pairs[0]), by_freq);
	for (size_t k = 0; k < c->n_states; k++) {
		c->freq_khz[k] = pairs[k][0];
		c->power_uw[k] = pairs[k][1];
	}
	return c->n_states ? 0 : -ENODATA;
}

/* Policy @name's CPUs, their capacities, its Energy Model and its frequency file. */
static int read_cluster(struct machine *m, const char *name)
{
	struct gp_cluster *c = &m->cluster[m->n_clusters];
	char path[320], buf[128], *p = buf, *end;
	int r;

	snprintf(path, sizeof(path), CPUFREQ "/%s/related_cpus", name);
	if ((r = (int)read_file(path, buf, sizeof(buf))) < 0)
		return r;
	for (c->n_cpus = 0; c->n_cpus < GP_MAX_CPUS; p = end) {
		unsigned long cpu = strtoul(p, &end, 10);

		if (end == p)
			break;
		c->cpu[c->n_cpus] = (unsigned int)cpu;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%lu/cpu_capacity", cpu);
		if (read_u32(path, &c->capacity[c->n_cpus]) < 0)
			c->capacity[c->n_cpus] = 1024;
		c->n_cpus++;
	}
	if (c->n_cpus == 0)
		return -ENODATA;
	if ((r = read_energy_model(c, c->cpu[0])) < 0) {
		fprintf(stderr, "guest-plant: %s: no Energy Model under " EM "/cpu%u: %s\n", name,
			c->cpu[0], strerror(-r));
		return r;
	}
	snprintf(path, sizeof(path), CPUFREQ "/%s/scaling_cur_freq", name);
	if ((m->cur_freq_fd[m->n_clusters] = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	m->n_clusters++;
	return 0;
}

static int read_clusters(struct machine *m)
{
	struct dirent **names;
	int n = scandir(CPUFREQ, &names, NULL, alphasort), r = 0;

	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		if (r == 0 && strncmp(names[i]->d_name, "policy", 6) == 0 &&
		    m->n_clusters < GP_MAX_CLUSTERS)
			r = read_cluster(m, names[i]->d_name);
		free(names[i]);
	}
	free(names);
	return r < 0 ? r : m->n_clusters ? 0 : -ENODEV;
}

static int map_sensor(struct machine *m, uint64_t addr)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t base = addr & ~(uint64_t)(page - 1);
	int fd = open("/dev/mem", O_RDWR | O_SYNC | O_CLOEXEC);
	void *p;

	if (fd < 0)
		return -errno;
	p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)base);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	m->sensor = (volatile uint32_t *)((char *)p + (addr - base));
	return 0;
}

static int read_stat(struct machine *m, struct cpu_stat *s)
{
	static char buf[65536];
	ssize_t n = pread(m->stat_fd, buf, sizeof(buf), 0);

	return n < 0 ? -errno : cpu_stat_parse(buf, (size_t)n, s);
}

/* Each CPU's busy share since @prev; a CPU whose counters did not move keeps its last. */
static void update_busy(struct machine *m, const struct cpu_stat *prev, const struct cpu_stat *cur)
{
	for (unsigned int cpu = 0; cpu < CPUMASK_MAX_CPUS; cpu++) {
		unsigned int last_pct = (unsigned int)(m->busy[cpu] * 100 + 0.5);

		m->busy[cpu] = cpu_load_pct(prev, cur, cpu, last_pct) / 100.0;
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The CPUs' power this period, mW; their work as a share of full speed in
 * @work; each cluster's frequency appended to @freqs as ",KHZ". */
static double period_power_mw(struct machine *m, double *work, char *freqs, size_t size)
{
	double power_mw = 0, done = 0, capacity = 0;
	size_t len = 0;

	for (size_t i = 0; i < m->n_clusters; i++) {
		const struct gp_cluster *c = &m->cluster[i];
		double busy[GP_MAX_CPUS];
		char buf[32];
		uint32_t freq_khz = 0;
		ssize_t n = pread(m->cur_freq_fd[i], buf, sizeof(buf) - 1, 0);

		if (n > 0) {
			buf[n] = '\0';
			freq_khz = (uint32_t)strtoul(buf, NULL, 10);
		}
		for (size_t k = 0; k < c->n_cpus; k++)
			busy[k] = m->busy[c->cpu[k]];
		power_mw += gp_cluster_power_mw(c, freq_khz, busy);
		done += gp_cluster_work(c, freq_khz, busy);
		capacity += gp_cluster_capacity(c);
		if (len < size)
			len += (size_t)snprintf(freqs + len, size - len, ",%" PRIu32, freq_khz);
	}
	*work = capacity > 0 ? done / capacity : 0;
	return power_mw;
}

/* Runs the plant until the duration ends or a signal comes. */
static int run(struct machine *m, const struct options *o)
{
	struct timespec next;
	double start_s = now_s(), last_s = start_s, temp_c = o->start_c;
	int cur = 0, r;

	*m->sensor = gp_sensor_word((int64_t)(temp_c * 1000));
	if ((r = read_stat(m, &m->stat[cur])) < 0)
		return r;
	printf("t_s,temp_mc,power_mw,work");
	for (size_t i = 0; i < m->n_clusters; i++)
		printf(",freq%zu_khz", i);
	printf("\n");
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!stop && last_s - start_s < o->duration_s) {
		char freqs[256] = "";
		double work, power_mw, t_s;

		next.tv_nsec += (long)o->period_ms * 1000000L;
		next.tv_sec += next.tv_nsec / 1000000000L;
		next.tv_nsec %= 1000000000L;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		if (read_stat(m, &m->stat[!cur]) == 0) {
			update_busy(m, &m->stat[cur], &m->stat[!cur]);
			cur = !cur;
		}
		power_mw = period_power_mw(m, &work, freqs, sizeof(freqs));
		t_s = now_s();
		temp_c = gp_thermal_step(&o->thermal, temp_c, power_mw, t_s - last_s);
		last_s = t_s;
		*m->sensor = gp_sensor_word((int64_t)(temp_c * 1000));
		printf("%.3f,%.0f,%.0f,%.4f%s\n", t_s - start_s, temp_c * 1000, power_mw, work, freqs);
		fflush(stdout);
	}
	return 0;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longs[] = {
		{ "sensor-addr", required_argument, NULL, 'a' },
		{ "ambient-c", required_argument, NULL, 'A' },
		{ "k-per-w", required_argument, NULL, 'R' },
		{ "tau-s", required_argument, NULL, 'T' },
		{ "start-c", required_argument, NULL, 's' },
		{ "period-ms", required_argument, NULL, 'p' },
		{ "duration-s", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct options){ 0, { 45.0, 13.67, 10.0 }, 45.0, 100, 120.0 };
	while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		switch (c) {
		case 'a': o->sensor_addr = strtoull(optarg, NULL, 0); break;
		case 'A': o->thermal.ambient_c = atof(optarg); break;
		case 'R': o->thermal.k_per_w = atof(optarg); break;
		case 'T': o->thermal.tau_s = atof(optarg); break;
		case 's': o->start_c = atof(optarg); break;
		case 'p': o->period_ms = (unsigned int)strtoul(optarg, NULL, 10); break;
		case 'd': o->duration_s = atof(optarg); break;
		default: return -EINVAL;
		}
	}
	if (o->sensor_addr == 0 || o->period_ms == 0 || o->thermal.tau_s <= 0 ||
	    o->thermal.k_per_w <= 0 || o->duration_s <= 0)
		return -EINVAL;
	return 0;
}

int main(int argc, char **argv)
{
	static struct machine m;
	struct options o;
	int r;

	if (parse_options(argc, argv, &o) < 0) {
		fprintf(stderr, "usage: powerallocd-guest-plant --sensor-addr ADDR [--ambient-c C] "
			"[--k-per-w K] [--tau-s S] [--start-c C] [--period-ms MS] [--duration-s S]\n");
		return 2;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	if ((r = read_clusters(&m)) < 0) {
		fprintf(stderr, "guest-plant: cpufreq policies: %s\n", strerror(-r));
		return 1;
	}
	if ((m.stat_fd = open("/proc/stat", O_RDONLY | O_CLOEXEC)) < 0 ||
	    (r = map_sensor(&m, o.sensor_addr)) < 0) {
		fprintf(stderr, "guest-plant: /proc/stat or /dev/mem at 0x%" PRIx64 ": %s\n",
			o.sensor_addr, strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < m.n_clusters; i++) {
		fprintf(stderr, "guest-plant: cluster %zu: %zu CPUs from %u,", i,
			m.cluster[i].n_cpus, m.cluster[i].cpu[0]);
		for (size_t k = 0; k < m.cluster[i].n_states; k++)
			fprintf(stderr, " %" PRIu32 " kHz %" PRIu32 " uW", m.cluster[i].freq_khz[k],
				m.cluster[i].power_uw[k]);
		fprintf(stderr, "\n");
	}
	r = run(&m, &o);
	if (r < 0)
		fprintf(stderr, "guest-plant: %s\n", strerror(-r));
	return r < 0 ? 1 : 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * ndk-roced: start-up, the main loop and the orderly shutdown.
 *
 * Start: configuration (exit 2 on any error in it), EAL, ports and
 * adapters with their pollers, packet capture (rte_pdump), telemetry, the
 * echo service. The main thread then runs the echo service (and polls the
 * adapters itself when the EAL gave no worker lcore) until SIGTERM or
 * SIGINT.
 *
 * Shutdown drains before it closes: the echo connections are disconnected
 * (bounded wait for the peers), telemetry lets go of the adapters, the
 * pollers stop, the daemon stays idle linger-ms so memif peers can stop
 * polling too, and only then the adapters and ports close. After
 * rte_eal_cleanup() the file prefix's hugepage files and runtime directory
 * are removed (the EAL leaves them). Exit 0.
 *
 * A start failure always says why: a file prefix in use by another
 * primary is named before the EAL starts, otherwise rte_errno (which some
 * EAL failures leave 0).
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_pdump.h>

#include "roced.h"

RTE_LOG_REGISTER(roced_logtype, ndk.roced, INFO);

/* Idle main loop: how long it sleeps between rounds (microseconds). */
#define ROCED_IDLE_US 200

static volatile sig_atomic_t stop_signal;

static void
on_signal(int sig)
{
	stop_signal = sig;
}

static void
signals_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static void
print_ports(const struct roced_ports *ps)
{
	char ip[INET_ADDRSTRLEN];

	for (unsigned int i = 0; i < ps->n; i++) {
		const struct roced_port *p = &ps->port[i];
		const uint8_t *m = p->info.mac;

		ROCED_LOG(INFO, "port %s: %s (ethdev %u), %s/%u, MAC "
			  "%02x:%02x:%02x:%02x:%02x:%02x, path MTU %u, "
			  "%u queue(s), lcore %u%s", p->cfg->name,
			  p->cfg->device, p->port_id,
			  roced_ip_str(p->info.ipv4, ip), p->cfg->prefix_len,
			  m[0], m[1], m[2], m[3], m[4], m[5],
			  p->info.max_path_mtu, p->info.nb_queues, p->lcore,
			  ps->main_polls ? " (main thread)" : "");
	}
}

/* An EAL option among the arguments (alone or as --opt=value). */
static bool
eal_arg(const struct roced_config *cfg, const char *opt)
{
	size_t n = strlen(opt);

	for (int i = 1; i < cfg->eal_argc; i++)
		if (strncmp(cfg->eal_strings[i], opt, n) == 0 &&
		    (cfg->eal_strings[i][n] == '\0' ||
		     cfg->eal_strings[i][n] == '='))
			return true;
	return false;
}

/*
 * Without --in-memory (or --no-shconf) the EAL keeps the file prefix's
 * shared files: the runtime directory and the hugepage files.
 */
static bool
shared_files(const struct roced_config *cfg)
{
	return !eal_arg(cfg, "--in-memory") && !eal_arg(cfg, "--no-shconf");
}

/* The runtime directory the EAL makes for @p prefix (as DPDK 22.11 does). */
static void
runtime_dir(const char *prefix, char *buf, size_t len)
{
	const char *base = "/var/run";

	if (getuid() != 0) {
		base = getenv("XDG_RUNTIME_DIR");
		if (base == NULL)
			base = "/tmp";
	}
	snprintf(buf, len, "%s/dpdk/%s", base, prefix);
}

/*
 * The pid of another process holding a primary's lock on the prefix's
 * <runtime dir>/config, 0 if none. Only before the EAL starts or after it
 * stopped: closing the file drops this process's own locks on it.
 */
static pid_t
prefix_holder(const char *rundir)
{
	struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char path[PATH_MAX];
	pid_t pid = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/config", rundir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fcntl(fd, F_GETLK, &l) == 0 && l.l_type == F_WRLCK)
		pid = l.l_pid;
	close(fd);
	return pid;
}

static void
say_prefix_in_use(const char *prefix, const char *rundir, pid_t pid)
{
	fprintf(stderr, "ndk-roced: cannot start the EAL: another ndk-roced "
		"(or DPDK primary process, pid %d) seems to run with file "
		"prefix '%s' (it holds %s/config): stop it, or give this one "
		"another [eal] file-prefix\n", (int)pid, prefix, rundir);
}

/*
 * The EAL: its own argument errors end with status 2 as ours do; any
 * other failure says why (the EAL leaves rte_errno 0 on some of its
 * failures, which strerror calls "Success").
 */
static int
eal_start(struct roced_config *cfg)
{
	const char *prefix = roced_config_file_prefix(cfg);
	char rundir[PATH_MAX];
	pid_t holder;

	runtime_dir(prefix, rundir, sizeof(rundir));
	/* Refused before the EAL touches the other daemon's files. */
	if (shared_files(cfg)) {
		holder = prefix_holder(rundir);
		if (holder != 0) {
			say_prefix_in_use(prefix, rundir, holder);
			return -1;
		}
	}
	rte_errno = 0;
	if (rte_eal_init(cfg->eal_argc, cfg->eal_argv) >= 0)
		return 0;
	if (rte_errno == EINVAL) {
		fprintf(stderr, "ndk-roced: the EAL refused its arguments "
			"(see its message above)\n");
		exit(ROCED_EXIT_USAGE);
	}
	holder = shared_files(cfg) ? prefix_holder(rundir) : 0;
	if (holder != 0)
		say_prefix_in_use(prefix, rundir, holder);
	else if (rte_errno != 0)
		fprintf(stderr, "ndk-roced: cannot start the EAL: %s (error "
			"%d; its messages above say more)\n",
			rte_strerror(rte_errno), rte_errno);
	else
		fprintf(stderr, "ndk-roced: cannot start the EAL: it gave no "
			"error code; its last message above says what "
			"failed\n");
	return -1;
}

/* "<prefix>map_<digits>": a hugepage file of the EAL with this prefix. */
static bool
hugepage_file(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *d;

	if (strncmp(name, prefix, n) != 0 || strncmp(name + n, "map_", 4))
		return false;
	d = name + n + 4;
	if (*d == '\0')
		return false;
	for (; *d != '\0'; d++)
		if (*d < '0' || *d > '9')
			return false;
	return true;
}

/* Remove the prefix's hugepage files from every hugetlbfs mount. */
static unsigned int
remove_hugepage_files(const char *prefix)
{
	unsigned int removed = 0;
	struct mntent *me;
	FILE *mounts = setmntent("/proc/mounts", "r");

	if (mounts == NULL)
		return 0;
	while ((me = getmntent(mounts)) != NULL) {
		struct dirent *de;
		DIR *d;

		if (strcmp(me->mnt_type, "hugetlbfs") != 0)
			continue;
		d = opendir(me->mnt_dir);
		if (d == NULL)
			continue;
		while ((de = readdir(d)) != NULL)
			if (hugepage_file(de->d_name, prefix) &&
			    unlinkat(dirfd(d), de->d_name, 0) == 0)
				removed++;
		closedir(d);
	}
	endmntent(mounts);
	return removed;
}

/* The runtime directory's files (config, fbarrays, sockets), then it. */
static void
remove_runtime_dir(const char *rundir)
{
	struct dirent *de;
	DIR *d = opendir(rundir);

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL)
		if (de->d_type != DT_DIR)
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
	rmdir(rundir);
}

/*
 * After rte_eal_cleanup() on a clean stop: the EAL leaves the prefix's
 * hugepage files and runtime directory behind until the next start on
 * the prefix (which reclaims a SIGKILLed daemon's). Nothing is removed
 * when another primary holds the prefix already. With --in-memory only an
 * empty runtime directory goes: another in-memory process may use the
 * same one.
 */
static void
remove_eal_files(const struct roced_config *cfg, const char *rundir)
{
	const char *prefix = roced_config_file_prefix(cfg);
	unsigned int n;

	if (rundir[0] == '\0')
		return;
	if (!shared_files(cfg)) {
		rmdir(rundir);
		return;
	}
	if (prefix_holder(rundir) != 0) {
		ROCED_LOG(NOTICE, "another process holds file prefix %s now: "
			  "its files stay", prefix);
		return;
	}
	n = remove_hugepage_files(prefix);
	remove_runtime_dir(rundir);
	ROCED_LOG(INFO, "removed %u hugepage file(s) and %s", n, rundir);
}

/* Attached applications' server, or NULL without the multi-process mode. */
static struct roced_attach *attach;

static void
serve(const struct roced_config *cfg, struct roced_ports *ps,
      struct roced_echo *echo)
{
	RTE_SET_USED(cfg);
	while (stop_signal == 0) {
		unsigned int work;

		roced_ports_poll(ps);
		work = roced_echo_run(echo);
		work += roced_attach_run(attach);
		if (work == 0 && !ps->main_polls)
			rte_delay_us_sleep(ROCED_IDLE_US);
	}
}

static void
shutdown_all(const struct roced_config *cfg, struct roced_ports *ps,
	     struct roced_echo *echo, bool pdump)
{
	roced_attach_stop(attach);
	attach = NULL;
	roced_echo_stop(echo, ps);
	roced_telemetry_detach(ps);
	roced_ports_stop_polling(ps);
	/* Let memif peers stop polling before the links go (memif crash). */
	rte_delay_us_sleep((uint64_t)cfg->linger_ms * 1000);
	roced_ports_close(ps);
	if (pdump)
		rte_pdump_uninit();
}

int
main(int argc, char **argv)
{
	struct roced_config cfg;
	struct roced_ports ports;
	struct roced_echo *echo = NULL;
	char rundir[PATH_MAX] = "";
	bool pdump;
	int rc;

	roced_config_parse(argc, argv, &cfg);
	if (cfg.check_only) {
		roced_config_print(&cfg, stdout);
		printf("configuration OK\n");
		roced_config_free(&cfg);
		return 0;
	}
	signals_init();
	if (eal_start(&cfg) != 0) {
		roced_config_free(&cfg);
		return 1;
	}
	/* Kept for after rte_eal_cleanup(). */
	snprintf(rundir, sizeof(rundir), "%s", rte_eal_get_runtime_dir());
	rc = roced_ports_start(&cfg, &ports);
	if (rc != 0) {
		roced_ports_close(&ports);
		rte_eal_cleanup();
		remove_eal_files(&cfg, rundir);
		roced_config_free(&cfg);
		return rc == -EINVAL ? ROCED_EXIT_USAGE : 1;
	}
	print_ports(&ports);
	/* dpdk-dumpcap/dpdk-pdump attach as secondary processes. */
	pdump = rte_pdump_init() == 0;
	if (!pdump)
		ROCED_LOG(NOTICE, "packet capture unavailable (%s): it needs "
			  "the multi-process mode (hugetlbfs, no --in-memory)",
			  rte_strerror(rte_errno));
	if (cfg.telemetry && roced_telemetry_init(&ports) != 0)
		ROCED_LOG(WARNING, "cannot register the /ndk telemetry "
			  "commands");
	rc = cfg.echo ? roced_echo_start(&cfg, &ports, &echo) : 0;
	if (rc != 0) {
		/* -EIO follows the port's own message; -ENOMEM has none */
		ROCED_LOG(ERR, "cannot start the echo service: %s",
			  strerror(-rc));
		shutdown_all(&cfg, &ports, NULL, pdump);
		rte_eal_cleanup();
		remove_eal_files(&cfg, rundir);
		roced_config_free(&cfg);
		return 1;
	}
	roced_attach_start(&cfg, &ports, &attach);
	ROCED_LOG(NOTICE, "ready: %u port(s), echo service %s, attach %s, "
		  "pid %d", ports.n, cfg.echo ? "on" : "off",
		  attach != NULL ? "on" : "off", (int)getpid());
	serve(&cfg, &ports, echo);
	ROCED_LOG(NOTICE, "%s: shutting down", strsignal(stop_signal));
	shutdown_all(&cfg, &ports, echo, pdump);
	rte_eal_cleanup();
	remove_eal_files(&cfg, rundir);
	roced_config_free(&cfg);
	ROCED_LOG(NOTICE, "stopped");
	return 0;
}

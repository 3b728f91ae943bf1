/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_ROCED_H
#define NDK_ROCED_H

/*
 * ndk-roced: the ndk-roce transport daemon. It owns the DPDK ports, the
 * polling lcores and the hugepages; each configured port becomes an NDK
 * adapter polled by a dedicated lcore. See README.md beside this file.
 *
 *   roced_config.c     command line and INI file -> struct roced_config,
 *                      EAL argument vector (errors exit with status 2);
 *                      the INI file in roced_config_file.c, the forms of
 *                      values and a port's keys in roced_config_values.c
 *   roced_ports.c      port ownership: find or probe the devices, open
 *                      the adapters, start and stop the pollers, close
 *   roced_telemetry.c  /ndk/adapters, /ndk/qps, /ndk/qp, /ndk/port
 *                      (rte_telemetry)
 *   roced_echo.c       built-in echo service: connections accepted with
 *                      NDK listeners, every message sent back
 *   roced_attach.c     attached applications (DPDK secondary processes):
 *                      objects over rte_mp, liveness, clean-up
 *   roced_attach_app.c per application: doorbell ring, buffer heap
 *   roced_main.c       start-up, signals, main loop, orderly shutdown
 */

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_log.h>

#include "ndk.h"
#include "ndk_netem.h"

/** The daemon's log type (ndk.roced). */
extern int roced_logtype;

/** Log after the EAL started: ROCED_LOG(ERR, "fmt", ...). */
#define ROCED_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, roced_logtype, "ndk-roced: " fmt "\n", \
		##__VA_ARGS__)

#define ROCED_MAX_PORTS 8
#define ROCED_NAME_LEN 32
#define ROCED_DEV_LEN 256
#define ROCED_MAX_EAL_ARGS 64
#define ROCED_MAX_QUEUES 16          /**< queues per port (power of 2) */

/** Exit status for a bad configuration file or bad arguments. */
#define ROCED_EXIT_USAGE 2

/** Default TCP-space port of the echo service (RDMA-CM port space). */
#define ROCED_ECHO_PORT 7471

/** One port as configured: [port NAME] or --port NAME,... */
struct roced_port_cfg {
	char name[ROCED_NAME_LEN];   /**< adapter name in telemetry */
	/**
	 * Device: the name of an ethdev the EAL arguments created
	 * (net_memif0, 0000:03:00.0), or devargs to probe after EAL start
	 * (net_memif0,role=server,socket=/run/x.sock), or a PCI address
	 * (allowed on the EAL command line with -a).
	 */
	char device[ROCED_DEV_LEN];
	bool pci;                    /**< device is a PCI address */
	uint32_t ipv4;               /**< network byte order; 0: none */
	uint8_t prefix_len;          /**< netmask as a prefix length */
	uint8_t ipv6[16];            /**< ip6 = addr[/len] */
	bool has_ipv6;
	uint8_t prefix6;             /**< its prefix length (64) */
	uint32_t mtu;                /**< largest RDMA path MTU, bytes */
	int lcore;                   /**< polling lcore, -1 = first worker */
	/**
	 * lcore = A:B:...: queue q is polled by lcores[q % n_lcores]
	 * (lcores[0] == lcore); one lcore polls every queue.
	 */
	unsigned int n_lcores;
	int lcores[ROCED_MAX_QUEUES];
	uint16_t queues;             /**< queues = N: adapter queues (1) */
	uint8_t mac[6];              /**< all-zero: the port's own */
	/** adaptive_rto = off: strict IB local ACK timeout only (on). */
	bool strict_rto;
	/** rto_floor_us = N: smallest adaptive timeout (0: provider's). */
	uint32_t rto_floor_us;
	/** cc = off|dcqcn|delay: congestion control (enum ndk_cc_mode). */
	uint32_t cc;
	/** cc_line_mbps = N: DCQCN's line rate (0: the port's speed). */
	uint32_t cc_line_mbps;
	/** cnp_interval_us = N: least gap between a QP's CNPs (0: scaled
	 *  default, ndk_adapter_config.cnp_interval_us). */
	uint32_t cnp_interval_us;
	/** cc_delay_us = N: delay mode's allowed queueing (0: default). */
	uint32_t cc_delay_us;
	/** cc_window_init = N: delay mode's first window, packets (0: 16). */
	uint32_t cc_window_init;
	/** cc_start_mbps = N: DCQCN's first rate (0: the line rate). */
	uint32_t cc_start_mbps;
	/**
	 * drop_ppm, dup_ppm, reorder_ppm: link impairment on every receive
	 * queue of the port (lib/netem), for soak and loss tests.
	 */
	struct ndk_netem_config netem;
	bool netem_on;               /**< one of them non-zero */
	/**
	 * Connection manager parameters (cm_retry_count, cm_rnr_retry_count,
	 * qp_retry_count, local_ack_timeout, cm_response_timeout,
	 * max_cm_retries); NDK_CM_PARAMS_DEFAULT where not given.
	 */
	struct ndk_cm_params cm;
	bool cm_set;                 /**< one of them given */
	char where[ROCED_DEV_LEN];   /**< "file:line" or "--port" for errors */
	/** Where the address and the prefix were given, for errors. */
	char ip_where[ROCED_DEV_LEN * 2];
	char prefix_where[ROCED_DEV_LEN * 2];
};

/** Everything the daemon was told. */
struct roced_config {
	const char *file;            /**< INI file, or NULL */
	bool check_only;             /**< --check: validate and exit */
	bool telemetry;              /**< rte_telemetry socket on */
	uint32_t max_qp, max_cq, max_mr;  /**< 0 = provider default */
	bool echo;                   /**< built-in echo service on */
	uint16_t echo_port;
	uint32_t echo_msg_size;      /**< largest echoed message */
	uint32_t echo_depth;         /**< receives posted per connection */
	uint32_t linger_ms;          /**< idle before ports close */
	uint32_t app_heap_mb;        /**< each attached application's heap */
	unsigned int n_ports;
	struct roced_port_cfg ports[ROCED_MAX_PORTS];
	/** EAL arguments (argv[0] first), built by roced_config_parse(). */
	int eal_argc;
	char *eal_argv[ROCED_MAX_EAL_ARGS];
	/**
	 * The same strings, owned here: rte_eal_init() reorders eal_argv
	 * and writes argv[0] over one of its slots.
	 */
	char *eal_strings[ROCED_MAX_EAL_ARGS];
};

/** A running port: its configuration, ethdev and adapter. */
struct roced_port {
	const struct roced_port_cfg *cfg;
	uint16_t port_id;
	bool probed;                 /**< we hot-plugged the device */
	unsigned int lcore;          /**< lcore polling it (queue 0) */
	unsigned int lcores[ROCED_MAX_QUEUES]; /**< lcore of each queue */
	struct ndk_adapter *ad;
	struct ndk_adapter_info info;
	/** Impairment of each receive queue (cfg->netem_on), or NULL. */
	struct ndk_netem *netem[ROCED_MAX_QUEUES];
};

/** The daemon's ports and pollers (roced_ports.c). */
struct roced_ports {
	unsigned int n;
	struct roced_port port[ROCED_MAX_PORTS];
	unsigned int n_pollers;
	struct ndk_poller *poller[ROCED_MAX_PORTS * ROCED_MAX_QUEUES];
	/** The main thread polls these itself (no worker lcore left). */
	bool main_polls;
};

/**
 * Parse the daemon's command line (after "--", or all of it when there is
 * no "--") and the INI file it names, and build the EAL arguments
 * (@p eal_argv: the part before "--", appended after those the file asks
 * for). On a bad argument or file it prints what and where on stderr and
 * exits with ROCED_EXIT_USAGE. Runs before the EAL starts.
 */
void roced_config_parse(int argc, char **argv, struct roced_config *cfg);

/** Free what roced_config_parse() allocated (the EAL arguments). */
void roced_config_free(struct roced_config *cfg);

/**
 * The EAL file prefix the arguments give (--file-prefix), or DPDK's
 * default "rte".
 */
const char *roced_config_file_prefix(const struct roced_config *cfg);

/** Print the configuration (--check, and at start-up). */
void roced_config_print(const struct roced_config *cfg, FILE *f);

/** "a.b.c.d" of a network-order address into @p buf (16 bytes). */
const char *roced_ip_str(uint32_t ip, char *buf);

/* roced_addr6.c */

/**
 * Parse the `ip6` key, "addr" or "addr/len" (len 1..127, default 64): a
 * unicast host address. @return NULL (set in @p p), or why it is refused.
 */
const char *roced_ip6_parse(struct roced_port_cfg *p, const char *s);

/** The text of IPv6 address @p ip6 in @p buf (INET6_ADDRSTRLEN bytes). */
const char *roced_ip6_str(const uint8_t ip6[16], char *buf);

/**
 * Find or probe every configured port, open an adapter on each and start
 * the pollers. @return 0, -EINVAL for a configuration the machine cannot
 * honour (message printed: exit status 2), other negative errno on a
 * failure.
 */
int roced_ports_start(const struct roced_config *cfg, struct roced_ports *p);

/** Poll every adapter once, if the main thread is their poller. */
void roced_ports_poll(struct roced_ports *p);

/** Stop polling (pollers and main thread): the first half of a close. */
void roced_ports_stop_polling(struct roced_ports *p);

/** Close the adapters and the ports, remove probed devices. */
void roced_ports_close(struct roced_ports *p);

/**
 * Register the /ndk telemetry commands over @p p. Safe to call once;
 * the commands answer null once roced_telemetry_detach() ran.
 */
int roced_telemetry_init(struct roced_ports *p);

/**
 * Make the telemetry commands stop touching the ports (before close);
 * polls @p p meanwhile if the main thread is their poller.
 */
void roced_telemetry_detach(struct roced_ports *p);

struct roced_echo;

/** Start the echo service on every port. @return 0 or negative errno. */
int roced_echo_start(const struct roced_config *cfg, struct roced_ports *p,
		     struct roced_echo **echo);

/**
 * Serve: accept new connections, echo completed receives, close ended
 * connections (main thread). @return work done (0 when idle).
 */
unsigned int roced_echo_run(struct roced_echo *echo);

/**
 * Disconnect every connection (waiting a bounded time for the peers),
 * close the listeners and free the service. Needs the adapters polled.
 */
void roced_echo_stop(struct roced_echo *echo, struct roced_ports *p);

struct roced_attach;

/** Period of the attached applications' liveness check. */
#define ROCED_ATTACH_CHECK_MS 100
/** Default buffer heap of an attached application ([attach] heap-mb). */
#define ROCED_APP_HEAP_MB 32
/** When stopping: between telling applications and closing their objects. */
#define ROCED_ATTACH_GRACE_MS 50

/**
 * Serve attached applications (rte_mp action NDK_ATTACH_MP_NAME).
 * @return 0, or negative errno (-ENOTSUP without the multi-process mode:
 *   logged, the daemon runs on without them).
 */
int roced_attach_start(const struct roced_config *cfg, struct roced_ports *p,
		       struct roced_attach **att);

/**
 * Main thread, often: every ROCED_ATTACH_CHECK_MS close the objects of
 * applications that died. @return applications found dead.
 */
unsigned int roced_attach_run(struct roced_attach *att);

/** Stop serving and close every attached application's objects. */
void roced_attach_stop(struct roced_attach *att);

#endif /* NDK_ROCED_H */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 ndk-roce authors
 */

#ifndef NDK_NVMF_H
#define NDK_NVMF_H

/**
 * @file
 * An embeddable NVMe over Fabrics (RDMA) target on an NDK adapter.
 *
 * The embedder opens an adapter (ndk_adapter_open()), creates a target on
 * it, adds subsystems (NQN, allowed hosts), namespaces (hugepage memory or
 * a file / block device) and listeners (IPv4 address, port 4420), then
 * calls ndk_nvmf_tgt_poll() in a loop on one lcore. Everything the target
 * does happens inside ndk_nvmf_tgt_poll(): accepting connections, moving
 * data with RDMA READ / WRITE, answering with SEND (or SEND with
 * Invalidate when the host asked for it), keep-alive expiry. A file back
 * end does its system calls on a worker thread of its own (io_uring), never
 * on the polling lcore.
 *
 * Threading: the configuration calls (ndk_nvmf_tgt_add_*,
 * ndk_nvmf_subsystem_*, ndk_nvmf_tgt_listen) and ndk_nvmf_tgt_destroy()
 * are made either before polling starts or from the polling thread; the
 * target takes no locks. ndk_nvmf_tgt_get_stats() may be called from any
 * thread (the counters are read without tearing, not as one snapshot).
 *
 * Errors are negative errno values.
 */

#include <stdbool.h>
#include <stdint.h>

#include "ndk.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A target: listeners, subsystems and their controllers on one adapter. */
struct ndk_nvmf_tgt;
/** An NVM subsystem of a target (its NQN, hosts and namespaces). */
struct ndk_nvmf_subsystem;

/** Target configuration; zero fields take the defaults given. */
struct ndk_nvmf_tgt_config {
	/** The adapter (open; the target does not close it). */
	struct ndk_adapter *adapter;
	/**
	 * true: ndk_nvmf_tgt_poll() also polls the adapter
	 * (ndk_adapter_poll()); false: a poller of the embedder does.
	 */
	bool poll_adapter;
	/** Queue pairs (admin and I/O, all hosts) at once; default 32. */
	uint32_t max_qpairs;
	/** Controllers at once; default 16. */
	uint32_t max_ctrlrs;
	/** I/O queues a controller may have; default 8. */
	uint32_t max_io_queues;
	/** Entries of an I/O queue (CAP.MQES + 1); default 128, max 1024. */
	uint32_t max_queue_depth;
	/** In-capsule data bytes a command may carry; default 4096 (0 is
	 *  the default: use in_capsule_off to advertise none). */
	uint32_t in_capsule_data_size;
	/** Advertise no in-capsule data (IOCCSZ 4). */
	bool in_capsule_off;
	/** Largest transfer (MDTS), a power of 2 from 4 KiB; default
	 *  128 KiB. */
	uint32_t max_io_size;
	/** Registered data buffers of max_io_size (RDMA READ/WRITE bounce
	 *  buffers) shared by all queues; default 64. Transfers up to 8 KiB
	 *  take one of 2 x max_queue_depth 8 KiB buffers first. */
	uint32_t nb_data_buffers;
	/** Model number reported by Identify (default "ndk-roce NVMe-oF"). */
	const char *model;
	/** NUMA socket of the target's memory; SOCKET_ID_ANY (-1) is any. */
	int socket_id;
};

/** Queue ids ndk_nvmf_tgt_stats::qid_commands tells apart. */
#define NDK_NVMF_STATS_QIDS 16

/** Counters of a target (monotonic, except the "now" fields). */
struct ndk_nvmf_tgt_stats {
	uint64_t connects;          /**< RDMA connections accepted */
	uint64_t connect_rejects;   /**< refused at the RDMA CM level */
	uint64_t disconnects;       /**< queue pairs torn down */
	uint64_t commands;          /**< commands received */
	uint64_t errors;            /**< commands completed with an error */
	uint64_t read_ops;          /**< Read commands completed */
	uint64_t write_ops;         /**< Write commands completed */
	uint64_t read_bytes;        /**< bytes read by hosts */
	uint64_t write_bytes;       /**< bytes written by hosts */
	uint64_t remote_invalidates;/**< responses sent with Invalidate */
	uint64_t keep_alive_expiries; /**< controllers ended by KATO */
	uint64_t buffer_waits;      /**< commands that waited for a buffer */
	uint64_t polls;             /**< ndk_nvmf_tgt_poll() calls */
	/** Of those, the ones that found nothing to do while a queue pair
	 *  was connected. */
	uint64_t idle_polls;
	/** Commands received per queue id (0: admin queues), over every
	 *  controller; the last element also counts every higher id. */
	uint64_t qid_commands[NDK_NVMF_STATS_QIDS];
	uint32_t ctrlrs_now;        /**< controllers now */
	uint32_t qpairs_now;        /**< queue pairs now */
	uint32_t inflight_now;      /**< commands in flight now */
	/** Most I/O queues one controller has had connected at once. */
	uint32_t io_queues_max;
};

/** Back ends of a namespace. */
enum ndk_nvmf_ns_type {
	/** Hugepage memory, zeroed (lost when the target ends). */
	NDK_NVMF_NS_MEM = 0,
	/** A file or block device, through io_uring on a worker thread. */
	NDK_NVMF_NS_FILE = 1,
};

/** A namespace to add. */
struct ndk_nvmf_ns_config {
	enum ndk_nvmf_ns_type type;
	/** MEM: bytes (a multiple of block_size). FILE: 0 = the file's or
	 *  device's size, else the size used (at most the file's). */
	uint64_t size;
	/** FILE: path of the file or block device (must exist). */
	const char *path;
	/** Logical block size: 512 or 4096; 0 = 512. */
	uint32_t block_size;
	/** NSID wanted, 1..32; 0 = the lowest free one. */
	uint32_t nsid;
};

/**
 * Create a target on @p cfg->adapter: its protection domain, registered
 * buffers (hugepage memory) and the discovery subsystem
 * (nqn.2014-08.org.nvmexpress.discovery).
 * @return 0, -EINVAL (bad configuration), -ENOMEM, -EIO (NDK failure).
 */
int ndk_nvmf_tgt_create(const struct ndk_nvmf_tgt_config *cfg,
			struct ndk_nvmf_tgt **tgt);

/**
 * Disconnect every host, free every queue pair, controller, namespace and
 * buffer, close the listeners. Polls the adapter (when the target polls
 * it) until the queue pairs are drained, at most a few seconds.
 */
void ndk_nvmf_tgt_destroy(struct ndk_nvmf_tgt *tgt);

/**
 * Add an NVM subsystem.
 * @param nqn its NQN (at most 223 bytes, not the discovery NQN).
 * @param serial serial number (at most 20 characters; NULL: derived from
 *   the NQN).
 * @param allow_any_host true: any host NQN may connect; false: only those
 *   added with ndk_nvmf_subsystem_add_host().
 * @return 0, -EINVAL, -EEXIST (NQN in use), -ENOSPC (too many).
 */
int ndk_nvmf_tgt_add_subsystem(struct ndk_nvmf_tgt *tgt, const char *nqn,
			       const char *serial, bool allow_any_host,
			       struct ndk_nvmf_subsystem **subsys);

/**
 * Allow @p hostnqn to connect to @p subsys (and see it in discovery).
 * @return 0, -EINVAL, -EEXIST, -ENOSPC.
 */
int ndk_nvmf_subsystem_add_host(struct ndk_nvmf_subsystem *subsys,
				const char *hostnqn);

/**
 * Add a namespace. Controllers already connected get a namespace
 * attribute notice (asynchronous event, changed namespace log).
 * @param nsid set to the namespace's NSID (may be NULL).
 * @return 0, -EINVAL, -EEXIST (NSID in use), -ENOSPC, -ENOMEM, -ENOENT
 *   (no such file), -ENOTSUP (file back end not built), or the errno of
 *   opening the file.
 */
int ndk_nvmf_subsystem_add_ns(struct ndk_nvmf_subsystem *subsys,
			      const struct ndk_nvmf_ns_config *cfg,
			      uint32_t *nsid);

/**
 * Listen on @p ipv4 (network byte order; 0 = any address of the adapter)
 * and @p port (host order; 0 = 4420). The listener also appears in the
 * discovery log page with the adapter's address.
 * @return 0, -EINVAL, -ENOSPC, -EADDRINUSE, -EIO.
 */
int ndk_nvmf_tgt_listen(struct ndk_nvmf_tgt *tgt, uint32_t ipv4,
			uint16_t port);

/**
 * Do the target's work: poll the adapter (when configured to), accept and
 * tear down connections, process completions and commands, expire
 * keep-alive timers. Call it in a loop on one lcore.
 * @return the number of events handled (0 when idle).
 */
unsigned int ndk_nvmf_tgt_poll(struct ndk_nvmf_tgt *tgt);

/** Read the target's counters. */
void ndk_nvmf_tgt_get_stats(const struct ndk_nvmf_tgt *tgt,
			    struct ndk_nvmf_tgt_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* NDK_NVMF_H */

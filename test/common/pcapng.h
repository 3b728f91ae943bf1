/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NDK_TEST_PCAPNG_H
#define NDK_TEST_PCAPNG_H

/**
 * @file
 * Minimal capture-file reader for tests: pcapng (Section Header, Interface
 * Description, Enhanced and Simple Packet blocks; other blocks skipped;
 * either byte order, several sections) and classic pcap (microsecond or
 * nanosecond magic, either byte order). The whole file is read into memory;
 * packets point into it.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Link type of Ethernet captures (LINKTYPE_ETHERNET). */
#define NDK_PCAP_LINKTYPE_ETHERNET 1

/** Most interfaces remembered per pcapng section. */
#define NDK_PCAP_MAX_IF 16

/** An open capture file. Fields are private to pcapng.c. */
struct ndk_pcap {
	uint8_t *buf;      /**< whole file */
	size_t len;
	size_t pos;        /**< next block/record */
	int is_ng;         /**< pcapng (1) or classic pcap (0) */
	int swap;          /**< current section is opposite-endian */
	uint32_t linktype; /**< classic pcap: link type of every packet */
	uint32_t n_if;     /**< pcapng: interfaces in the current section */
	uint16_t if_linktype[NDK_PCAP_MAX_IF];
};

/** One captured packet (pointing into the file buffer). */
struct ndk_pcap_pkt {
	const uint8_t *data;
	uint32_t caplen;   /**< bytes in @p data */
	uint32_t origlen;  /**< length on the wire */
	uint32_t linktype; /**< LINKTYPE_* of its interface */
};

/** Open and read @p path. @return 0, or -1 (message on stderr). */
int ndk_pcap_open(struct ndk_pcap *pc, const char *path);

/**
 * Next packet.
 * @return 1 with @p pkt filled, 0 at the end, -1 on a malformed file.
 */
int ndk_pcap_next(struct ndk_pcap *pc, struct ndk_pcap_pkt *pkt);

/** Free the file buffer. */
void ndk_pcap_close(struct ndk_pcap *pc);

/** A packet copied out of a capture into its own exact-size heap block. */
struct ndk_pcap_frame {
	uint8_t *data;
	uint32_t len;
};

/**
 * Read every complete (not snapped) packet of link type @p linktype from
 * @p path into a malloc()ed array of exact-size copies, so that a tool such
 * as valgrind catches any read past a packet's end.
 * @return the number of packets (*frames set), or -1 (message on stderr).
 */
int ndk_pcap_load(const char *path, uint32_t linktype,
		  struct ndk_pcap_frame **frames);

/** Free what ndk_pcap_load() returned. */
void ndk_pcap_free_frames(struct ndk_pcap_frame *frames, unsigned int n);

#ifdef __cplusplus
}
#endif

#endif /* NDK_TEST_PCAPNG_H */

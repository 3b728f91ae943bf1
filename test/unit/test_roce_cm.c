/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Unit tests of lib/roce, part 3: the CM MAD codec and RDMA-CM's IP header,
 * on the connection-manager MADs Linux rxe exchanged in the captures (rping,
 * udaddy, ib_write_lat -R), on known field values read by tshark, on random
 * messages and on malformed MADs. The case table and main() are in
 * test_roce.c.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include "ndk_roce.h"
#include "ndk_test.h"
#include "pcapng.h"
#include "test_roce.h"

/* The QP1 MADs of a capture, in order. */
struct mad_list {
	struct ndk_pcap_frame *frames;
	int n_frames;
	unsigned int n;
	const uint8_t *mad[64];
	uint32_t len[64];     /* MAD bytes in the packet (payload) */
};

static void
mads_free(struct mad_list *l)
{
	ndk_pcap_free_frames(l->frames, (unsigned int)l->n_frames);
	memset(l, 0, sizeof(*l));
}

/*
 * Load the UD SEND_ONLY packets to QP1 of the vm-to-vm capture, checking
 * each one's headers on the way (P_Key, DETH Q_Key and source QP).
 */
static int
mads_load(struct mad_list *l)
{
	char path[1024];

	memset(l, 0, sizeof(*l));
	snprintf(path, sizeof(path), "%s/rxe-vm-to-vm.pcapng",
		 ndk_test_data_dir());
	l->n_frames = ndk_pcap_load(path, NDK_PCAP_LINKTYPE_ETHERNET,
				    &l->frames);
	TEST_ASSERT(l->n_frames > 0, "load %s", path);
	for (int i = 0; i < l->n_frames; i++) {
		const struct ndk_pcap_frame *f = &l->frames[i];
		struct ndk_roce_pkt p;
		const struct ndk_roce_deth *deth;
		struct rte_mbuf *m;
		enum ndk_roce_parse_err e;
		uint16_t pkey = 0;

		/*
		 * The packet's BTH pointer points into the mbuf, so read it
		 * before the mbuf is freed (parse_flat() frees its own).
		 */
		m = chain_build(f->data, f->len, f->len, f->len, true);
		e = ndk_roce_parse(m, &p, true);
		if (e == NDK_ROCE_PARSE_OK)
			pkey = rte_be_to_cpu_16(p.bth->pkey);
		chain_free(m, true);
		p.m = NULL;
		p.bth = NULL;
		if (e != NDK_ROCE_PARSE_OK)
			continue;
		if (p.opcode != NDK_ROCE_OP_UD_SEND_ONLY ||
		    p.qpn != NDK_ROCE_GSI_QPN)
			continue;
		deth = (const struct ndk_roce_deth *)(f->data + p.payload_off -
						      NDK_ROCE_DETH_LEN);
		TEST_ASSERT_EQ(rte_be_to_cpu_32(deth->qkey), NDK_ROCE_GSI_QKEY,
			       "frame %d Q_Key", i + 1);
		TEST_ASSERT_EQ(rte_be_to_cpu_32(deth->sqp) & 0xFFFFFF, 1u,
			       "frame %d source QP", i + 1);
		TEST_ASSERT_EQ(pkey, 0xFFFF, "frame %d P_Key", i + 1);
		TEST_ASSERT(l->n < RTE_DIM(l->mad), "too many MADs");
		l->mad[l->n] = f->data + p.payload_off;
		l->len[l->n] = p.payload_len;
		l->n++;
	}
	return 0;
}

/* Every CM MAD of the capture decodes and re-encodes to the same bytes. */
int
test_cm_capture(void)
{
	unsigned int count[0x20] = { 0 };
	struct mad_list l;
	uint8_t out[NDK_ROCE_MAD_LEN];

	if (mads_load(&l) != 0)
		return -1;
	TEST_ASSERT(l.n >= 17, "%u QP1 MADs (17 expected)", l.n);
	for (unsigned int i = 0; i < l.n; i++) {
		struct ndk_roce_cm_msg m;
		int rc = ndk_roce_cm_decode(l.mad[i], l.len[i], &m);
		uint16_t attr = get_be16(l.mad[i] + 16);

		TEST_ASSERT_EQ(l.len[i], (uint32_t)NDK_ROCE_MAD_LEN, "MAD %u", i);
		if (attr == NDK_ROCE_CM_SIDR_REQ || attr == NDK_ROCE_CM_SIDR_REP) {
			TEST_ASSERT_EQ(rc, -ENOTSUP, "MAD %u %s", i,
				       ndk_roce_cm_attr_str(attr));
			count[attr & 0x1F]++;
			continue;
		}
		TEST_ASSERT_EQ(rc, 0, "MAD %u decode", i);
		ndk_roce_cm_encode(&m, out);
		if (memcmp(out, l.mad[i], NDK_ROCE_MAD_LEN) != 0) {
			for (unsigned int b = 0; b < NDK_ROCE_MAD_LEN; b++)
				if (out[b] != l.mad[i][b])
					printf("  MAD %u (%s) byte %u: %02x != "
					       "%02x\n", i,
					       ndk_roce_cm_attr_str(attr), b,
					       out[b], l.mad[i][b]);
			TEST_FAIL("MAD %u re-encoded differently", i);
		}
		count[attr & 0x1F]++;
	}
	printf("  REQ %u REP %u RTU %u DREQ %u DREP %u SIDR %u/%u\n",
	       count[0x10], count[0x13], count[0x14], count[0x15], count[0x16],
	       count[0x17], count[0x18]);
	TEST_ASSERT(count[0x10] >= 3 && count[0x13] >= 3 && count[0x14] >= 3 &&
		    count[0x15] >= 3 && count[0x16] >= 3, "attribute mix");
	mads_free(&l);
	return 0;
}

/* The rping REQ/REP/DREQ, field by field (values as tshark 4.0 shows). */
int
test_cm_fields(void)
{
	static const uint8_t gid12[16] = { [10] = 0xFF, [11] = 0xFF, 10, 77,
					   0, 12 };
	static const uint8_t gid11[16] = { [10] = 0xFF, [11] = 0xFF, 10, 77,
					   0, 11 };
	struct ndk_roce_cm_msg m;
	struct ndk_roce_cma_hdr h;
	struct mad_list l;

	if (mads_load(&l) != 0)
		return -1;
	/* MAD 0: rping's REQ (frame 659). */
	TEST_ASSERT_EQ(ndk_roce_cm_decode(l.mad[0], l.len[0], &m), 0, "REQ");
	TEST_ASSERT_EQ(m.attr_id, NDK_ROCE_CM_REQ, "attr");
	TEST_ASSERT(m.tid == 0x00000002634d5b16ull, "tid");
	TEST_ASSERT_EQ(m.local_comm_id, 0x165b4d63u, "comm id");
	TEST_ASSERT(m.service_id == (NDK_ROCE_CM_SID_TCP | 7174), "sid");
	TEST_ASSERT(m.local_ca_guid == 0x505400fffee0a744ull, "guid");
	TEST_ASSERT_EQ(m.local_qpn, 0x24u, "qpn");
	TEST_ASSERT_EQ(m.responder_resources, 1, "resp res");
	TEST_ASSERT_EQ(m.initiator_depth, 1, "init depth");
	TEST_ASSERT_EQ(m.remote_cm_response_timeout, 0x14, "rcm timeout");
	TEST_ASSERT_EQ(m.transport_type, 0, "RC");
	TEST_ASSERT_EQ(m.starting_psn, 0xa2341cu, "psn");
	TEST_ASSERT_EQ(m.local_cm_response_timeout, 0x14, "lcm timeout");
	TEST_ASSERT_EQ(m.retry_count, 7, "retry");
	TEST_ASSERT_EQ(m.pkey, 0xFFFF, "pkey");
	TEST_ASSERT_EQ(m.path_mtu, NDK_ROCE_MTU_1024, "mtu");
	TEST_ASSERT_EQ(m.rnr_retry_count, 7, "rnr");
	TEST_ASSERT_EQ(m.max_cm_retries, 15, "cm retries");
	TEST_ASSERT_EQ(m.primary.local_lid, 0xFFFF, "slid");
	TEST_ASSERT_EQ(m.primary.remote_lid, 0xFFFF, "dlid");
	TEST_ASSERT(memcmp(m.primary.local_gid, gid12, 16) == 0, "sgid");
	TEST_ASSERT(memcmp(m.primary.remote_gid, gid11, 16) == 0, "dgid");
	/* tshark 4.0 shows flow label 0xa4 and rate 0x0a here: its bit
	 * masks for this word are off by a byte. The bytes are 0a 4d b0 00:
	 * label = the first 20 bits, rate = the last 6. */
	TEST_ASSERT_EQ(m.primary.flow_label, 0x0a4dbu, "flow label");
	TEST_ASSERT_EQ(m.primary.packet_rate, 0, "rate");
	TEST_ASSERT_EQ(m.primary.hop_limit, 0x40, "hop limit");
	TEST_ASSERT_EQ(m.primary.local_ack_timeout, 0x13, "ack timeout");
	TEST_ASSERT_EQ(m.alternate.local_lid, 0, "no alternate path");
	TEST_ASSERT_EQ(ndk_roce_gid_to_ipv4(m.primary.local_gid),
		       rte_cpu_to_be_32(0x0A4D000C), "sgid as IPv4");
	TEST_ASSERT_EQ(ndk_roce_cma_hdr_decode(m.pdata, &h), 0, "cma hdr");
	TEST_ASSERT_EQ(h.ip_version, 4, "ip version");
	TEST_ASSERT_EQ(h.src_port, 0x888b, "src port");
	TEST_ASSERT_EQ(h.src_ip, rte_cpu_to_be_32(0x0A4D000C), "src ip");
	TEST_ASSERT_EQ(h.dst_ip, rte_cpu_to_be_32(0x0A4D000B), "dst ip");

	/* MAD 1: the REP. */
	TEST_ASSERT_EQ(ndk_roce_cm_decode(l.mad[1], l.len[1], &m), 0, "REP");
	TEST_ASSERT_EQ(m.attr_id, NDK_ROCE_CM_REP, "attr");
	TEST_ASSERT_EQ(m.local_comm_id, 0x5a93e6fbu, "local id");
	TEST_ASSERT_EQ(m.remote_comm_id, 0x165b4d63u, "remote id");
	TEST_ASSERT_EQ(m.local_qpn, 0x24u, "qpn");
	TEST_ASSERT_EQ(m.starting_psn, 0x1e4365u, "psn");
	TEST_ASSERT_EQ(m.target_ack_delay, 0x0f, "ack delay");
	TEST_ASSERT_EQ(m.rnr_retry_count, 7, "rnr");
	TEST_ASSERT(m.local_ca_guid == 0x505400fffea8282full, "guid");
	TEST_ASSERT_EQ(ndk_roce_cm_pdata_len(m.attr_id), 196u, "pdata");

	/* A DREQ names the receiver's QP. */
	for (unsigned int i = 0; i < l.n; i++) {
		if (get_be16(l.mad[i] + 16) != NDK_ROCE_CM_DREQ)
			continue;
		TEST_ASSERT_EQ(ndk_roce_cm_decode(l.mad[i], l.len[i], &m), 0,
			       "DREQ");
		TEST_ASSERT_EQ(m.local_comm_id, 0x165b4d63u, "DREQ local");
		TEST_ASSERT_EQ(m.remote_comm_id, 0x5a93e6fbu, "DREQ remote");
		TEST_ASSERT_EQ(m.remote_qpn, 0x24u, "DREQ qpn");
		break;
	}
	mads_free(&l);
	return 0;
}

/* Random messages of every attribute survive encode/decode/encode. */
int
test_cm_roundtrip(void)
{
	static const uint16_t attrs[] = { NDK_ROCE_CM_REQ, NDK_ROCE_CM_MRA,
		NDK_ROCE_CM_REJ, NDK_ROCE_CM_REP, NDK_ROCE_CM_RTU,
		NDK_ROCE_CM_DREQ, NDK_ROCE_CM_DREP };
	static const uint32_t pdata[] = { 92, 222, 148, 196, 224, 220, 224 };

	for (unsigned int a = 0; a < RTE_DIM(attrs); a++) {
		TEST_ASSERT_EQ(ndk_roce_cm_pdata_len(attrs[a]), pdata[a], "%s",
			       ndk_roce_cm_attr_str(attrs[a]));
		for (int iter = 0; iter < 200; iter++) {
			struct ndk_roce_cm_msg m, d;
			uint8_t e1[NDK_ROCE_MAD_LEN], e2[NDK_ROCE_MAD_LEN];
			uint8_t *raw = (uint8_t *)&m;

			for (size_t i = 0; i < sizeof(m); i++)
				raw[i] = (uint8_t)rng();
			m.attr_id = attrs[a];
			ndk_roce_cm_encode(&m, e1);
			TEST_ASSERT_EQ(ndk_roce_cm_decode(e1, sizeof(e1), &d), 0,
				       "decode");
			ndk_roce_cm_encode(&d, e2);
			TEST_ASSERT(memcmp(e1, e2, sizeof(e1)) == 0,
				    "%s re-encode", ndk_roce_cm_attr_str(attrs[a]));
			/* Fields keep their value within their width. */
			TEST_ASSERT_EQ(d.local_comm_id, m.local_comm_id, "id");
			TEST_ASSERT(d.tid == m.tid, "tid");
			TEST_ASSERT(memcmp(d.pdata, m.pdata, pdata[a]) == 0,
				    "pdata");
			if (attrs[a] == NDK_ROCE_CM_REQ) {
				TEST_ASSERT_EQ(d.local_qpn, m.local_qpn & 0xFFFFFF,
					       "qpn");
				TEST_ASSERT_EQ(d.path_mtu, m.path_mtu & 0xF, "mtu");
				TEST_ASSERT(d.service_id == m.service_id, "sid");
				TEST_ASSERT_EQ(d.primary.flow_label,
					       m.primary.flow_label & 0xFFFFF,
					       "flow label");
			}
			if (attrs[a] == NDK_ROCE_CM_REJ) {
				TEST_ASSERT_EQ(d.reason, m.reason, "reason");
				TEST_ASSERT(memcmp(d.ari, m.ari, sizeof(d.ari)) == 0,
					    "ari");
			}
		}
	}
	return 0;
}

/* Malformed and foreign MADs are refused; helpers give known values. */
int
test_cm_errors(void)
{
	struct ndk_roce_cm_msg m = { .attr_id = NDK_ROCE_CM_RTU };
	struct ndk_roce_cma_hdr h = { .ip_version = 4, .src_port = 0x1234,
				      .src_ip = RTE_BE32(0x0A000001),
				      .dst_ip = RTE_BE32(0x0A000002) };
	const struct rte_ether_addr mac = {{ 0x52, 0x54, 0x00, 0xe0, 0xa7,
					     0x44 }};
	uint8_t mad[NDK_ROCE_MAD_LEN], pd[NDK_ROCE_CMA_HDR_LEN];
	struct ndk_roce_cma_hdr g;

	ndk_roce_cm_encode(&m, mad);
	TEST_ASSERT_EQ(ndk_roce_cm_decode(mad, sizeof(mad), &m), 0, "valid");
	TEST_ASSERT_EQ(ndk_roce_cm_decode(mad, sizeof(mad) - 1, &m), -EINVAL,
		       "short");
	for (int b = 0; b < 4; b++) {
		mad[b] ^= 0x40;
		TEST_ASSERT_EQ(ndk_roce_cm_decode(mad, sizeof(mad), &m),
			       -EINVAL, "header byte %d", b);
		mad[b] ^= 0x40;
	}
	mad[17] = NDK_ROCE_CM_LAP;
	TEST_ASSERT_EQ(ndk_roce_cm_decode(mad, sizeof(mad), &m), -ENOTSUP,
		       "LAP");
	mad[17] = 0x99;
	TEST_ASSERT_EQ(ndk_roce_cm_decode(mad, sizeof(mad), &m), -ENOTSUP,
		       "unknown");
	TEST_ASSERT(strcmp(ndk_roce_cm_attr_str(0x99), "?") == 0, "name");
	TEST_ASSERT(strcmp(ndk_roce_cm_attr_str(NDK_ROCE_CM_APR), "APR") == 0,
		    "APR");

	ndk_roce_cma_hdr_encode(pd, &h);
	TEST_ASSERT_EQ(ndk_roce_cma_hdr_decode(pd, &g), 0, "cma");
	TEST_ASSERT(g.src_port == h.src_port && g.src_ip == h.src_ip &&
		    g.dst_ip == h.dst_ip, "cma fields");
	pd[1] = 0x50;
	TEST_ASSERT_EQ(ndk_roce_cma_hdr_decode(pd, &g), -EAFNOSUPPORT, "IPv5");
	pd[1] = 0x40;
	pd[0] = 1;
	TEST_ASSERT_EQ(ndk_roce_cma_hdr_decode(pd, &g), -EPROTO, "version");

	TEST_ASSERT(ndk_roce_guid_from_mac(&mac) == 0x505400fffee0a744ull,
		    "guid");
	TEST_ASSERT_EQ(ndk_roce_mtu_bytes(NDK_ROCE_MTU_4096), 4096u, "4096");
	TEST_ASSERT_EQ(ndk_roce_mtu_bytes(0), 0u, "code 0");
	TEST_ASSERT_EQ(ndk_roce_mtu_bytes(6), 0u, "code 6");
	TEST_ASSERT_EQ(ndk_roce_mtu_from_bytes(1024), NDK_ROCE_MTU_1024, "1024");
	TEST_ASSERT_EQ(ndk_roce_mtu_from_bytes(1500), 0, "1500");
	return 0;
}

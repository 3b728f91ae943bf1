/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * CM MAD codec: IB communication manager messages (IBTA vol. 1, 12.6) and
 * RDMA-CM's IP header (Annex A11), between wire bytes and
 * struct ndk_roce_cm_msg.
 *
 * Each attribute is described by a table of fields, each a bit range of
 * the 232-byte message body (bit 0 is the most significant bit of byte 0,
 * as in IBTA's figures) bound to a member of the structure, so encoder and
 * decoder cannot disagree. The control path runs this a few times per
 * connection: clarity wins over speed.
 */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include "ndk_roce.h"

/** Body of a CM MAD (after the common MAD header). */
#define CM_BODY_LEN (NDK_ROCE_MAD_LEN - NDK_ROCE_MAD_HDR_LEN)

/** A field: bits [bit, bit + width) of the body, or bytes when width 0. */
struct cm_field {
	uint16_t bit;       /**< first bit, from the MSB of body byte 0 */
	uint16_t width;     /**< bits; 0 = a byte array of `size` bytes */
	uint16_t off;       /**< member offset in struct ndk_roce_cm_msg */
	uint16_t size;      /**< member size in bytes */
};

#define M_(member) offsetof(struct ndk_roce_cm_msg, member), \
	sizeof(((struct ndk_roce_cm_msg *)0)->member)
/* An integer field at body byte B, bit b of that byte, w bits wide. */
#define FI(B, b, w, member) { (B) * 8 + (b), (w), M_(member) }
/* A byte array at body byte B. */
#define FB(B, member) { (B) * 8, 0, M_(member) }

/* A path's fields at body byte P (primary 52, alternate 96). */
#define PATH(P, p) \
	FI((P) + 0, 0, 16, p.local_lid), \
	FI((P) + 2, 0, 16, p.remote_lid), \
	FB((P) + 4, p.local_gid), \
	FB((P) + 20, p.remote_gid), \
	FI((P) + 36, 0, 20, p.flow_label), \
	FI((P) + 39, 2, 6, p.packet_rate), \
	FI((P) + 40, 0, 8, p.traffic_class), \
	FI((P) + 41, 0, 8, p.hop_limit), \
	FI((P) + 42, 0, 4, p.sl), \
	FI((P) + 42, 4, 1, p.subnet_local), \
	FI((P) + 43, 0, 5, p.local_ack_timeout)

static const struct cm_field req_fields[] = {
	FI(0, 0, 32, local_comm_id),
	FI(5, 0, 24, vendor_id),
	FI(8, 0, 64, service_id),
	FI(16, 0, 64, local_ca_guid),
	FI(28, 0, 32, local_qkey),
	FI(32, 0, 24, local_qpn),
	FI(35, 0, 8, responder_resources),
	FI(36, 0, 24, local_eecn),
	FI(39, 0, 8, initiator_depth),
	FI(40, 0, 24, remote_eecn),
	FI(43, 0, 5, remote_cm_response_timeout),
	FI(43, 5, 2, transport_type),
	FI(43, 7, 1, flow_control),
	FI(44, 0, 24, starting_psn),
	FI(47, 0, 5, local_cm_response_timeout),
	FI(47, 5, 3, retry_count),
	FI(48, 0, 16, pkey),
	FI(50, 0, 4, path_mtu),
	FI(50, 4, 1, rdc_exists),
	FI(50, 5, 3, rnr_retry_count),
	FI(51, 0, 4, max_cm_retries),
	FI(51, 4, 1, srq),
	FI(51, 5, 3, ext_transport),
	PATH(52, primary),
	PATH(96, alternate),
};

static const struct cm_field rep_fields[] = {
	FI(0, 0, 32, local_comm_id),
	FI(4, 0, 32, remote_comm_id),
	FI(8, 0, 32, local_qkey),
	FI(12, 0, 24, local_qpn),
	FI(16, 0, 24, local_eecn),
	FI(20, 0, 24, starting_psn),
	FI(24, 0, 8, responder_resources),
	FI(25, 0, 8, initiator_depth),
	FI(26, 0, 5, target_ack_delay),
	FI(26, 5, 2, failover_accepted),
	FI(26, 7, 1, flow_control),
	FI(27, 0, 3, rnr_retry_count),
	FI(27, 3, 1, srq),
	FI(28, 0, 64, local_ca_guid),
};

static const struct cm_field rej_fields[] = {
	FI(0, 0, 32, local_comm_id),
	FI(4, 0, 32, remote_comm_id),
	FI(8, 0, 2, msg_code),
	FI(9, 0, 7, reject_info_len),
	FI(10, 0, 16, reason),
	FB(12, ari),
};

static const struct cm_field mra_fields[] = {
	FI(0, 0, 32, local_comm_id),
	FI(4, 0, 32, remote_comm_id),
	FI(8, 0, 2, msg_code),
	FI(9, 0, 5, service_timeout),
};

static const struct cm_field dreq_fields[] = {
	FI(0, 0, 32, local_comm_id),
	FI(4, 0, 32, remote_comm_id),
	FI(8, 0, 24, remote_qpn),
};

/* RTU and DREP: the two communication IDs only. */
static const struct cm_field ids_fields[] = {
	FI(0, 0, 32, local_comm_id),
	FI(4, 0, 32, remote_comm_id),
};

/** Layout of one attribute. */
struct cm_layout {
	uint16_t attr_id;
	const char *name;
	const struct cm_field *fields;
	uint16_t n_fields;
	uint16_t pdata_off;       /**< body offset of the private data */
};

#define L_(id, name, f, pd) { id, name, f, RTE_DIM(f), pd }

static const struct cm_layout layouts[] = {
	L_(NDK_ROCE_CM_REQ, "REQ", req_fields, 140),
	L_(NDK_ROCE_CM_MRA, "MRA", mra_fields, 10),
	L_(NDK_ROCE_CM_REJ, "REJ", rej_fields, 84),
	L_(NDK_ROCE_CM_REP, "REP", rep_fields, 36),
	L_(NDK_ROCE_CM_RTU, "RTU", ids_fields, 8),
	L_(NDK_ROCE_CM_DREQ, "DREQ", dreq_fields, 12),
	L_(NDK_ROCE_CM_DREP, "DREP", ids_fields, 8),
};

static const struct cm_layout *
cm_layout(uint16_t attr_id)
{
	for (size_t i = 0; i < RTE_DIM(layouts); i++)
		if (layouts[i].attr_id == attr_id)
			return &layouts[i];
	return NULL;
}

uint32_t
ndk_roce_cm_pdata_len(uint16_t attr_id)
{
	const struct cm_layout *l = cm_layout(attr_id);

	return l != NULL ? CM_BODY_LEN - l->pdata_off : 0;
}

const char *
ndk_roce_cm_attr_str(uint16_t attr_id)
{
	static const char *const others[] = {
		[NDK_ROCE_CM_SIDR_REQ - NDK_ROCE_CM_SIDR_REQ] = "SIDR_REQ",
		[NDK_ROCE_CM_SIDR_REP - NDK_ROCE_CM_SIDR_REQ] = "SIDR_REP",
		[NDK_ROCE_CM_LAP - NDK_ROCE_CM_SIDR_REQ] = "LAP",
		[NDK_ROCE_CM_APR - NDK_ROCE_CM_SIDR_REQ] = "APR",
	};
	const struct cm_layout *l = cm_layout(attr_id);

	if (l != NULL)
		return l->name;
	if (attr_id >= NDK_ROCE_CM_SIDR_REQ && attr_id <= NDK_ROCE_CM_APR)
		return others[attr_id - NDK_ROCE_CM_SIDR_REQ];
	return "?";
}

/* ------------------------------------------------------------------ */
/* Bit fields                                                          */
/* ------------------------------------------------------------------ */

static uint64_t
bits_get(const uint8_t *d, uint32_t bit, uint32_t width)
{
	uint64_t v = 0;

	for (uint32_t i = bit; i < bit + width; i++)
		v = (v << 1) | ((d[i >> 3] >> (7 - (i & 7))) & 1u);
	return v;
}

static void
bits_put(uint8_t *d, uint32_t bit, uint32_t width, uint64_t v)
{
	for (uint32_t i = bit + width; i-- > bit; v >>= 1) {
		uint8_t mask = (uint8_t)(1u << (7 - (i & 7)));

		d[i >> 3] = (v & 1u) ? (d[i >> 3] | mask) : (d[i >> 3] & ~mask);
	}
}

static uint64_t
member_get(const struct ndk_roce_cm_msg *m, const struct cm_field *f)
{
	const uint8_t *p = (const uint8_t *)m + f->off;
	uint64_t v64;
	uint32_t v32;
	uint16_t v16;

	switch (f->size) {
	case 1:
		return *p;
	case 2:
		memcpy(&v16, p, 2);
		return v16;
	case 4:
		memcpy(&v32, p, 4);
		return v32;
	default:
		memcpy(&v64, p, 8);
		return v64;
	}
}

static void
member_put(struct ndk_roce_cm_msg *m, const struct cm_field *f, uint64_t v)
{
	uint8_t *p = (uint8_t *)m + f->off;
	uint32_t v32 = (uint32_t)v;
	uint16_t v16 = (uint16_t)v;

	switch (f->size) {
	case 1:
		*p = (uint8_t)v;
		break;
	case 2:
		memcpy(p, &v16, 2);
		break;
	case 4:
		memcpy(p, &v32, 4);
		break;
	default:
		memcpy(p, &v, 8);
		break;
	}
}

/* ------------------------------------------------------------------ */
/* MADs                                                                */
/* ------------------------------------------------------------------ */

static inline uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

static inline void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

int
ndk_roce_cm_decode(const uint8_t *mad, uint32_t len,
		   struct ndk_roce_cm_msg *m)
{
	const uint8_t *body = mad + NDK_ROCE_MAD_HDR_LEN;
	const struct cm_layout *l;

	if (len < NDK_ROCE_MAD_LEN ||
	    mad[0] != NDK_ROCE_MAD_BASE_VERSION ||
	    mad[1] != NDK_ROCE_MGMT_CLASS_CM ||
	    mad[2] != NDK_ROCE_CM_CLASS_VERSION ||
	    mad[3] != NDK_ROCE_MAD_METHOD_SEND)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->status = get16(mad + 4);
	m->tid = (uint64_t)get32(mad + 8) << 32 | get32(mad + 12);
	m->attr_id = get16(mad + 16);
	m->attr_mod = get32(mad + 20);
	l = cm_layout(m->attr_id);
	if (l == NULL)
		return -ENOTSUP;
	for (uint16_t i = 0; i < l->n_fields; i++) {
		const struct cm_field *f = &l->fields[i];

		if (f->width == 0)
			memcpy((uint8_t *)m + f->off, body + f->bit / 8,
			       f->size);
		else
			member_put(m, f, bits_get(body, f->bit, f->width));
	}
	memcpy(m->pdata, body + l->pdata_off, CM_BODY_LEN - l->pdata_off);
	/* A REP's VendorID is in three bytes that pad 24-bit fields. */
	if (m->attr_id == NDK_ROCE_CM_REP)
		m->vendor_id = (uint32_t)body[15] << 16 |
			(uint32_t)body[19] << 8 | body[23];
	return 0;
}

void
ndk_roce_cm_encode(const struct ndk_roce_cm_msg *m,
		   uint8_t mad[NDK_ROCE_MAD_LEN])
{
	uint8_t *body = mad + NDK_ROCE_MAD_HDR_LEN;
	const struct cm_layout *l = cm_layout(m->attr_id);

	memset(mad, 0, NDK_ROCE_MAD_LEN);
	mad[0] = NDK_ROCE_MAD_BASE_VERSION;
	mad[1] = NDK_ROCE_MGMT_CLASS_CM;
	mad[2] = NDK_ROCE_CM_CLASS_VERSION;
	mad[3] = NDK_ROCE_MAD_METHOD_SEND;
	put16(mad + 4, m->status);
	put32(mad + 8, (uint32_t)(m->tid >> 32));
	put32(mad + 12, (uint32_t)m->tid);
	put16(mad + 16, m->attr_id);
	put32(mad + 20, m->attr_mod);
	if (l == NULL)
		return;
	for (uint16_t i = 0; i < l->n_fields; i++) {
		const struct cm_field *f = &l->fields[i];

		if (f->width == 0)
			memcpy(body + f->bit / 8, (const uint8_t *)m + f->off,
			       f->size);
		else
			bits_put(body, f->bit, f->width, member_get(m, f));
	}
	memcpy(body + l->pdata_off, m->pdata, CM_BODY_LEN - l->pdata_off);
	if (m->attr_id == NDK_ROCE_CM_REP) {
		body[15] = (uint8_t)(m->vendor_id >> 16);
		body[19] = (uint8_t)(m->vendor_id >> 8);
		body[23] = (uint8_t)m->vendor_id;
	}
}

/* ------------------------------------------------------------------ */
/* RDMA-CM IP header, GUIDs                                            */
/* ------------------------------------------------------------------ */

/* cma_hdr: version, IP version in the high nibble, port, two 16-byte
 * addresses (IPv4: 12 zero bytes, then the address). */
#define CMA_OFF_SRC 4
#define CMA_OFF_DST 20
#define CMA_IPV4_PAD 12

int
ndk_roce_cma_hdr_decode(const uint8_t *pdata, struct ndk_roce_cma_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->cma_version = pdata[0];
	h->ip_version = pdata[1] >> 4;
	h->src_port = get16(pdata + 2);
	if (h->cma_version != 0)
		return -EPROTO;
	if (h->ip_version == 6) {
		memcpy(h->src_ip6, pdata + CMA_OFF_SRC, 16);
		memcpy(h->dst_ip6, pdata + CMA_OFF_DST, 16);
		return 0;
	}
	if (h->ip_version != 4)
		return -EAFNOSUPPORT;
	memcpy(&h->src_ip, pdata + CMA_OFF_SRC + CMA_IPV4_PAD, 4);
	memcpy(&h->dst_ip, pdata + CMA_OFF_DST + CMA_IPV4_PAD, 4);
	return 0;
}

void
ndk_roce_cma_hdr_encode(uint8_t *pdata, const struct ndk_roce_cma_hdr *h)
{
	memset(pdata, 0, NDK_ROCE_CMA_HDR_LEN);
	pdata[0] = h->cma_version;
	pdata[1] = (uint8_t)(h->ip_version << 4);
	put16(pdata + 2, h->src_port);
	if (h->ip_version == 6) {
		memcpy(pdata + CMA_OFF_SRC, h->src_ip6, 16);
		memcpy(pdata + CMA_OFF_DST, h->dst_ip6, 16);
		return;
	}
	memcpy(pdata + CMA_OFF_SRC + CMA_IPV4_PAD, &h->src_ip, 4);
	memcpy(pdata + CMA_OFF_DST + CMA_IPV4_PAD, &h->dst_ip, 4);
}

uint64_t
ndk_roce_guid_from_mac(const struct rte_ether_addr *mac)
{
	const uint8_t *a = mac->addr_bytes;

	/* Modified EUI-64: flip the universal/local bit, insert FF:FE. */
	return (uint64_t)(a[0] ^ 0x02) << 56 | (uint64_t)a[1] << 48 |
		(uint64_t)a[2] << 40 | 0xFFull << 32 | 0xFEull << 24 |
		(uint64_t)a[3] << 16 | (uint64_t)a[4] << 8 | a[5];
}

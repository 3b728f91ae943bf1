/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Fuzz target: the RoCEv2 packet parser (lib/roce/roce_pkt.c) with the
 * ICRC paths of lib/roce/roce_crc.c, and the CM MAD and RDMA-CM header
 * decoders (lib/roce/roce_cm.c).
 *
 * Input: one control byte, two segment cuts, then a frame.
 *   control bit 0: recompute the frame's ICRC first (so that mutated
 *                  frames reach everything past the check);
 *           bit 1: also decode the frame bytes themselves as a MAD.
 * Checks beyond "no memory error": a frame whose ICRC was recomputed
 * parses OK; the one-pass checks (pkt_copy_check, icrc_hdr + pieces +
 * icrc_end) agree with pkt_icrc_ok and copy the payload exactly; a decoded
 * MAD encodes into one that decodes to the same message.
 */

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "ndk_roce.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FRAME 9216

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (fuzz_eal_init("fuzz_packet", "0") != 0)
		exit(1);
	fuzz_pool();
	return 0;
}

/* Decode a MAD; if it decodes, its re-encoding must decode the same. */
static void
mad_check(const uint8_t *mad, size_t len)
{
	struct ndk_roce_cm_msg a, b;
	struct ndk_roce_cma_hdr h;
	uint8_t enc[NDK_ROCE_MAD_LEN];

	memset(&a, 0, sizeof(a));
	if (ndk_roce_cm_decode(mad, (uint32_t)len, &a) != 0)
		return;
	(void)ndk_roce_cm_attr_str(a.attr_id);
	if (a.attr_id == NDK_ROCE_CM_REQ)
		(void)ndk_roce_cma_hdr_decode(a.pdata, &h);
	ndk_roce_cm_encode(&a, enc);
	memset(&b, 0, sizeof(b));
	FUZZ_CHECK(ndk_roce_cm_decode(enc, sizeof(enc), &b) == 0,
		   "a decoded %s does not decode once encoded",
		   ndk_roce_cm_attr_str(a.attr_id));
	FUZZ_CHECK(memcmp(&a, &b, sizeof(a)) == 0,
		   "%s: decode(encode(decode(x))) != decode(x)",
		   ndk_roce_cm_attr_str(a.attr_id));
}

/* The parsed packet's ICRC checks, one against the others. */
static void
pkt_check(const struct ndk_roce_pkt *p, const uint8_t *frame)
{
	static uint8_t out[MAX_FRAME];
	bool ok = ndk_roce_pkt_icrc_ok(p);
	uint32_t crc, done = 0, step = 1;

	FUZZ_CHECK(p->payload_off + p->payload_len <= p->m->pkt_len,
		   "payload %u+%u beyond the packet (%u)", p->payload_off,
		   p->payload_len, p->m->pkt_len);
	FUZZ_CHECK(ndk_roce_pkt_copy_check(p, out) == ok,
		   "pkt_copy_check disagrees with pkt_icrc_ok (%d)", ok);
	FUZZ_CHECK(memcmp(out, frame + p->payload_off, p->payload_len) == 0,
		   "pkt_copy_check copied other bytes");
	/* The same in uneven pieces, as a receiver filling SGEs does. */
	crc = ndk_roce_pkt_icrc_hdr(p);
	while (done < p->payload_len) {
		uint32_t n = RTE_MIN(step, p->payload_len - done);

		crc = ndk_roce_crc32_copy_mbuf(crc, out + done, p->m,
					       p->payload_off + done, n);
		done += n;
		step = step * 3 + 1;
	}
	FUZZ_CHECK(ndk_roce_pkt_icrc_end(p, crc) == ok,
		   "piecewise ICRC disagrees with pkt_icrc_ok (%d)", ok);
	if (p->opcode == NDK_ROCE_OP_UD_SEND_ONLY &&
	    p->payload_len >= NDK_ROCE_MAD_LEN)
		mad_check(frame + p->payload_off, p->payload_len);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t frame[MAX_FRAME];
	struct ndk_roce_pkt p;
	enum ndk_roce_parse_err e;
	struct rte_mbuf *m;
	uint32_t ctl, seg0, seg1;
	bool fixed = false;

	ctl = fuzz_take(&data, &size, 1);
	seg0 = fuzz_take(&data, &size, 2);
	seg1 = fuzz_take(&data, &size, 2);
	if (size > MAX_FRAME)
		return 0;
	memcpy(frame, data, size);
	if (ctl & 1)
		fixed = fuzz_fix_icrc(frame, size);
	if (ctl & 2)
		mad_check(frame, size);
	m = fuzz_mbuf(frame, size, seg0 % (size + 1), seg1);
	if (m == NULL)
		return 0;
	memset(&p, 0, sizeof(p));
	e = ndk_roce_parse(m, &p, true);
	(void)ndk_roce_parse_err_str(e);
	if (fixed)
		FUZZ_CHECK(e == NDK_ROCE_PARSE_OK || e == NDK_ROCE_PARSE_TRUNCATED,
			   "ICRC recomputed, yet %s", ndk_roce_parse_err_str(e));
	if (e == NDK_ROCE_PARSE_OK || e == NDK_ROCE_PARSE_BAD_ICRC)
		pkt_check(&p, frame);
	rte_pktmbuf_free(m);
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef SWROCE_XSTATS_H
#define SWROCE_XSTATS_H

/**
 * @file
 * swroce's own counters: the list, the struct the driver increments
 * (SWR_STAT(); one per queue and one adapter-wide, summed by
 * swr_stats_sum()), and their export as NDK extended counters
 * (ndk_adapter_xstats_get_names() and friends, swroce_xstats.c) and as the
 * generic struct ndk_adapter_stats. Adding a counter here changes no
 * public header: applications find it by name.
 */

#include <stdint.h>

#include "ndk_provider.h"

/**
 * X-macro of swroce's counters: X(name, description). struct swr_stats has
 * one uint64_t per entry, in this order, which is the order of the
 * extended counters; the names are the xstat names.
 */
#define SWR_XSTATS(X) \
	X(rx_packets, "frames received") \
	X(rx_bytes, "bytes received") \
	X(tx_packets, "frames transmitted") \
	X(tx_bytes, "bytes transmitted") \
	X(tx_full, "transmit attempts refused by a full TX queue") \
	X(rx_not_roce, "frames that are neither RoCEv2 nor ARP/ICMP echo " \
		"for this adapter, or malformed ARP/ICMP (dropped)") \
	X(rx_truncated, "truncated frames (dropped)") \
	X(rx_bad_header, "bad IPv4/UDP/BTH headers (dropped)") \
	X(rx_bad_opcode, "undefined or unsupported opcodes (dropped)") \
	X(rx_icrc_errors, "ICRC mismatches (dropped)") \
	X(rx_icrc_read_sink, "of those, READ responses found bad while " \
		"copied into their READ's sink (not accepted: read again)") \
	X(rx_wrong_address, "not addressed to this adapter (dropped)") \
	X(rx_unknown_qpn, "destination QP does not exist (dropped)") \
	X(rx_qp_state, "QP not in a state to accept the packet (dropped)") \
	X(rx_bad_length, "payload length wrong for the opcode") \
	X(rx_duplicate, "duplicate requests (re-ACKed or replayed)") \
	X(rx_out_of_seq, "requests ahead of the expected PSN") \
	X(rx_ghost_resp, "responses/ACKs for nothing outstanding (dropped)") \
	X(nak_seq_sent, "PSN sequence NAKs sent") \
	X(nak_rnr_sent, "RNR NAKs sent") \
	X(nak_inv_sent, "invalid-request NAKs sent") \
	X(nak_access_sent, "remote-access NAKs sent") \
	X(nak_op_sent, "remote-operational NAKs sent") \
	X(nak_seq_rcvd, "PSN sequence NAKs received") \
	X(sr_held, "requests kept past a missing one (selective repeat)") \
	X(sr_dup_held, "requests arriving again while kept") \
	X(sack_sent, "selective acknowledgements sent") \
	X(sack_rcvd, "selective acknowledgements received") \
	X(sr_resent, "request packets sent again alone after a SACK or an expiry") \
	X(sack_spurious, "SACK rounds whose first resent request was " \
		"acknowledged sooner than half a round trip after: the " \
		"original was late, not lost (the reorder window grows)") \
	X(sack_deferred, "SACKs whose holes waited for the reorder window " \
		"(reordering seen)") \
	X(nak_rnr_rcvd, "RNR NAKs received") \
	X(nak_fatal_rcvd, "fatal NAKs received") \
	X(acks_sent, "ACK packets sent") \
	X(acks_rcvd, "ACK packets received") \
	X(read_resp_sent, "READ response packets sent") \
	X(read_replay_dropped, "duplicate READs not replayed: region gone") \
	X(read_replays, "duplicate READs re-executed from a kept resource") \
	X(read_dup_ignored, "duplicate READs too old or not matching (dropped)") \
	X(inv_remote, "tokens invalidated by a peer's SEND with Invalidate") \
	X(inv_rejected, "SEND with Invalidate naming a bad token (aborted)") \
	X(tx_bursts, "rte_eth_tx_burst calls that sent frames") \
	X(retransmit_timeouts, "retransmission timer expiries") \
	X(retransmit_packets, "packets retransmitted") \
	X(read_gap_retries, "READ ranges re-asked at once for lost responses") \
	X(read_resp_ahead, "READ responses placed while an older READ waited") \
	X(read_resp_ooo, "READ responses placed past a missing one of their " \
		"READ") \
	X(read_spurious, "READ ranges asked again whose responses then " \
		"came twice: reordering taken for loss (the reorder window " \
		"grows)") \
	X(read_resp_ooo_dropped, "READ responses past a missing one, beyond " \
		"the out-of-order window (dropped)") \
	X(rto_deferred, "timer expiries re-armed: this side was not polled") \
	X(adaptive_retransmits, "early retransmissions by the adaptive timer " \
		"(before the QP's ACK timeout; no retry spent)") \
	X(adaptive_deferred, "adaptive expiries re-armed: this side was not " \
		"polled") \
	X(nak_seq_deferred, "sequence NAKs that waited for the reorder " \
		"window (reordering seen)") \
	X(nak_seq_late, "... of which the request turned out late, not " \
		"lost (nothing sent again)") \
	X(nak_seq_stale, "sequence NAKs for the PSN a sequence NAK went " \
		"back to less than a retransmission timeout before: sent " \
		"before the resend arrived (ignored)") \
	X(nak_seq_rewinds, "sequence NAKs that went back N although a gap " \
		"re-read was pending (they used to be ignored)") \
	X(rto_read_tail, "timer expiries (adaptive or not) with the oldest " \
		"READ's last responses missing and nothing after to show it") \
	X(rto_read_reread, "timer expiries after a gap re-read: the re-read " \
		"or its responses were lost") \
	X(rto_read_unanswered, "timer expiries with no response at all for " \
		"the oldest READ") \
	X(rto_ack_missing, "timer expiries with the oldest SEND or WRITE " \
		"unacknowledged") \
	X(rto_no_rtt, "timer expiries (adaptive or not) of a QP without an " \
		"RTT estimate: it waited for the full local ACK timeout") \
	X(rto_wait_us, "microseconds from the last progress to each timer " \
		"expiry (adaptive or not), summed: time spent waiting for " \
		"the timer") \
	X(rtt_samples, "round-trip time samples taken (adaptive " \
		"retransmission's estimator)") \
	X(rd_ord_wait_us, "microseconds requesters had a READ to send and " \
		"were held by the READs still outstanding (ORD), summed") \
	X(rd_ord_loss_us, "... of which the oldest READ was waiting for a " \
		"range it had asked again (a loss held the READs out)") \
	X(read_reread_lost, "READ ranges asked again because a READ " \
		"request sent after the last ask was answered first (RACK): " \
		"the ask or its answer was lost") \
	X(read_ord_freed, "READs sent beyond ORD READs not completed: " \
		"the older ones had all their responses and only waited to " \
		"complete in order (selective repeat peers)") \
	X(rtt_nak_samples, "... of which from a sequence NAK: the time since " \
		"the first transmission of the request after the one it " \
		"names, which made the responder send it (go-back-N)") \
	X(rtt_voided, "RTT samples given up: their request, or one before " \
		"it that their answer waits for, was sent again (Karn)") \
	X(rnr_waits, "RNR back-offs taken") \
	X(qp_timer_fires, "QP timers (RTO, RNR) taken off a queue's timer " \
		"wheel: expiries, ones moved later and ones disarmed since") \
	X(qp_errors, "QPs moved to the error state") \
	X(wqe_completed, "work requests completed (incl. flushed)") \
	X(wqe_flushed, "work requests completed with STATUS_CANCELLED") \
	X(cq_overflows, "completions lost to a full CQ") \
	X(mbuf_alloc_fail, "packet buffer allocation failures") \
	X(tx_zcopy, "frames sent with their payload attached from the " \
		"registered region, not copied (zero-copy transmit)") \
	X(rx_icrc_trusted, "frames accepted without an ICRC check " \
		"(trust_link_crc on a memory-to-memory link)") \
	X(arp_requests_rcvd, "ARP requests for this adapter's address") \
	X(arp_replies_sent, "ARP replies sent") \
	X(arp_requests_sent, "ARP requests sent (resolution and probes)") \
	X(arp_replies_rcvd, "ARP replies addressed to this adapter") \
	X(icmp_echo_replied, "ICMP echo requests answered") \
	X(nd_solicits_rcvd, "IPv6 neighbour solicitations for this " \
		"adapter's address") \
	X(nd_adverts_sent, "IPv6 neighbour advertisements sent") \
	X(nd_solicits_sent, "IPv6 neighbour solicitations sent " \
		"(resolution and probes)") \
	X(nd_adverts_rcvd, "IPv6 neighbour advertisements received") \
	X(icmp6_echo_replied, "ICMPv6 echo requests answered") \
	X(neigh_pending_drops, "frames dropped waiting for a neighbour") \
	X(neigh_failed, "neighbour resolutions that failed") \
	X(cm_rx, "CM MADs received on QP1") \
	X(cm_tx, "CM MADs sent (first transmissions)") \
	X(cm_retransmits, "CM MADs retransmitted") \
	X(cm_rx_dropped, "QP1 packets dropped: not CM, malformed, bad Q_Key " \
		"or P_Key, or for no connection") \
	X(cm_rejects_sent, "REJs sent") \
	X(cm_backlog_rejects, "REQs refused: the listener's backlog was full") \
	X(cm_timeouts, "CM handshakes given up after retries") \
	X(rx_steered_out, "frames received on one queue and handed to the " \
		"queue of their QP (or to queue 0)") \
	X(rx_steered_in, "frames taken from other queues' hand-over") \
	X(rx_steer_drops, "frames dropped: a queue's inbound ring was full") \
	X(rx_ce, "frames received marked CE (congestion experienced)") \
	X(cnp_sent, "congestion notification packets (CNPs) sent") \
	X(cnp_rcvd, "CNPs received") \
	X(cnp_rate_cuts, "CNPs that cut a QP's rate (DCQCN on)") \
	X(cnp_ignored, "CNPs for no QP, a QP not connected, or with " \
	  "congestion control off") \
	X(cc_pace_waits, "polls a paced QP with frames to send waited for " \
	  "its deadline") \
	X(cc_wnd_waits, "polls a QP with frames to send waited for its " \
	  "congestion window (delay-based)") \
	X(cc_wnd_cuts, "delay-based window cuts (round trip above target)")

/** swroce's counters, see SWR_XSTATS (plain fields: SWR_STAT()). */
struct swr_stats {
#define SWR_STATS_FIELD_(f, d) uint64_t f;
	SWR_XSTATS(SWR_STATS_FIELD_)
#undef SWR_STATS_FIELD_
};

struct swr_adapter;

/**
 * The generic counters from swroce's: rx_errors are rx_truncated,
 * rx_bad_header, rx_bad_opcode, rx_icrc_errors and rx_bad_length;
 * rx_dropped rx_not_roce, rx_wrong_address, rx_unknown_qpn, rx_qp_state,
 * rx_ghost_resp and rx_steer_drops; tx_errors mbuf_alloc_fail and
 * neigh_pending_drops; retransmits retransmit_packets; the others the
 * counters of the same name.
 */
void swr_stats_generic(const struct swr_stats *s,
		       struct ndk_adapter_stats *out);

/**
 * Fill @p values (n entries) from @p s, as ndk_adapter_xstats_get().
 * @return the number of counters (nothing filled when larger than @p n).
 */
int swr_xstats_fill(const struct swr_stats *s, struct ndk_xstat *values,
		    unsigned int n);

/** ndk_adapter_xstats_get_names() (the same for every swroce adapter). */
int swr_xstats_get_names(struct ndk_adapter *adapter,
			 struct ndk_xstat_name *names, unsigned int n);

/** ndk_adapter_xstats_get(): the sum of every queue's and the adapter's. */
int swr_xstats_get(struct ndk_adapter *adapter, struct ndk_xstat *values,
		   unsigned int n);

/** ndk_adapter_queue_xstats_get(): one queue's counters. */
int swr_queue_xstats_get(struct ndk_adapter *adapter, uint16_t queue,
			 struct ndk_xstat *values, unsigned int n);

#endif /* SWROCE_XSTATS_H */

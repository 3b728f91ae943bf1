/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * swroce connection manager, its tables (struct swr_cm): what finds a
 * connection for a message, a duplicate REQ, a due timer or a port in
 * use, each in constant time whatever the number of connections
 * (doc/cm.md, "Scale"). Polling thread only, like the rest of the CM.
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>
#include <rte_mempool.h>
#include <rte_random.h>

#include "swroce_adapter.h"
#include "swroce_cm.h"

/* Number the pool's objects: a local ID names its connection's slot. */
static void
cm_slot_init(struct rte_mempool *mp, void *arg, void *obj, unsigned int idx)
{
	struct swr_cm *cm = arg;
	struct swr_conn *c = obj;

	RTE_SET_USED(mp);
	c->slot = idx;
	c->gen = 0;
	c->listed = false;
	cm->slots[idx] = c;
}

int
swr_cm_tables_init(struct swr_adapter *ad, struct swr_cm *cm, uint32_t n)
{
	char name[RTE_MEMPOOL_NAMESIZE];

	cm->n_slots = n;
	cm->slot_bits = rte_log2_u32(n);
	cm->req_mask = (1u << cm->slot_bits) - 1;
	cm->id_xor = (uint32_t)rte_rand();
	cm->slots = rte_zmalloc_socket("swr_cm_slots", n * sizeof(void *), 0,
				       ad->socket_id);
	cm->req_tbl = rte_zmalloc_socket("swr_cm_req",
					 (size_t)(cm->req_mask + 1) *
					 sizeof(void *), 0, ad->socket_id);
	cm->port_use = rte_zmalloc_socket("swr_cm_ports",
					  2 * 65536 * sizeof(uint32_t), 0,
					  ad->socket_id);
	snprintf(name, sizeof(name), "ndkcm_%.16s", ad->name);
	if (cm->slots != NULL && cm->req_tbl != NULL && cm->port_use != NULL)
		cm->pool = rte_mempool_create(name, n, sizeof(struct swr_conn),
					      0, 0, NULL, NULL, NULL, NULL,
					      ad->socket_id, 0);
	if (cm->pool == NULL) {
		swr_cm_tables_fini(cm);
		return -ENOMEM;
	}
	rte_mempool_obj_iter(cm->pool, cm_slot_init, cm);
	return 0;
}

void
swr_cm_tables_fini(struct swr_cm *cm)
{
	rte_mempool_free(cm->pool);
	rte_free(cm->slots);
	rte_free(cm->req_tbl);
	rte_free(cm->port_use);
	cm->pool = NULL;
	cm->slots = cm->req_tbl = NULL;
	cm->port_use = NULL;
}

/*
 * The ID's low bits are the slot, the rest must match what the slot's
 * connection was given (an ID of an earlier life of the slot does not).
 */
struct swr_conn *
swr_cm_find(struct swr_adapter *ad, uint32_t local_id, const uint8_t rip[16])
{
	struct swr_cm *cm = ad->cm;
	uint32_t slot = (local_id ^ cm->id_xor) &
		((1u << cm->slot_bits) - 1);
	struct swr_conn *c;

	if (slot >= cm->n_slots)
		return NULL;
	c = cm->slots[slot];
	if (c->listed && c->state != SWR_CM_IDLE && c->local_id == local_id &&
	    memcmp(c->rip, rip, 16) == 0)
		return c;
	return NULL;
}

/* Bucket of the REQ table for (@p remote_id, @p rip). */
static inline uint32_t
cm_req_bucket(const struct swr_cm *cm, uint32_t remote_id,
	      const uint8_t rip[16])
{
	return rte_hash_crc(rip, 16, remote_id) & cm->req_mask;
}

struct swr_conn *
swr_cm_find_req(struct swr_adapter *ad, uint32_t remote_id,
		const uint8_t rip[16])
{
	struct swr_cm *cm = ad->cm;
	uint32_t b = cm_req_bucket(cm, remote_id, rip);

	for (struct swr_conn *c = cm->req_tbl[b]; c != NULL; c = c->h_next)
		if (c->remote_id == remote_id && memcmp(c->rip, rip, 16) == 0)
			return c;
	return NULL;
}

void
swr_cm_req_insert(struct swr_conn *c)
{
	struct swr_cm *cm = c->ad->cm;
	struct swr_conn **b = &cm->req_tbl[cm_req_bucket(cm, c->remote_id,
							 c->rip)];

	c->h_next = *b;
	*b = c;
	c->hashed = true;
}

/* Take @p c out of the REQ table (if in it). */
static void
cm_req_remove(struct swr_conn *c)
{
	struct swr_cm *cm = c->ad->cm;
	struct swr_conn **pp;

	if (!c->hashed)
		return;
	for (pp = &cm->req_tbl[cm_req_bucket(cm, c->remote_id, c->rip)];
	     *pp != NULL; pp = &(*pp)->h_next) {
		if (*pp == c) {
			*pp = c->h_next;
			break;
		}
	}
	c->hashed = false;
}

void
swr_cm_txq_push(struct swr_conn *c)
{
	struct swr_cm *cm = c->ad->cm;

	if (c->tx_queued)
		return;
	c->tx_queued = true;
	c->tx_next = NULL;
	c->tx_prev = cm->tx_tail;
	if (cm->tx_tail != NULL)
		cm->tx_tail->tx_next = c;
	else
		cm->tx_head = c;
	cm->tx_tail = c;
}

/* Take @p c off the transmit queue (if on it). */
static void
cm_txq_remove(struct swr_conn *c)
{
	struct swr_cm *cm = c->ad->cm;

	if (!c->tx_queued)
		return;
	if (c->tx_prev != NULL)
		c->tx_prev->tx_next = c->tx_next;
	else
		cm->tx_head = c->tx_next;
	if (c->tx_next != NULL)
		c->tx_next->tx_prev = c->tx_prev;
	else
		cm->tx_tail = c->tx_prev;
	c->tx_queued = false;
}

struct swr_conn *
swr_cm_txq_pop(struct swr_cm *cm)
{
	struct swr_conn *c = cm->tx_head;

	if (c != NULL)
		cm_txq_remove(c);
	return c;
}

void
swr_cm_link(struct swr_conn *c)
{
	struct swr_cm *cm = c->ad->cm;

	c->prev = NULL;
	c->next = cm->conns;
	if (cm->conns != NULL)
		cm->conns->prev = c;
	cm->conns = c;
	c->listed = true;
}

void
swr_cm_new_local_id(struct swr_conn *c)
{
	struct swr_cm *cm = c->ad->cm;

	c->gen++;
	c->local_id = ((c->gen << cm->slot_bits) | c->slot) ^ cm->id_xor;
}

/* Index of (@p ip's family, @p port) in swr_cm::port_use. */
static inline uint32_t
cm_port_index(const uint8_t ip[16], uint16_t port)
{
	return (swr_cm_addr_v4(ip) ? 0u : 65536u) + port;
}

void
swr_cm_port_count(struct swr_adapter *ad, const uint8_t ip[16], uint16_t port,
		  int delta)
{
	ad->cm->port_use[cm_port_index(ip, port)] += (uint32_t)delta;
}

void
swr_cm_port_hold(struct swr_conn *c)
{
	c->ad->cm->port_use[cm_port_index(c->lip, c->lport)]++;
	c->port_held = true;
}

bool
swr_cm_port_used(const struct swr_adapter *ad, const uint8_t ip[16],
		 uint16_t port)
{
	const uint32_t *use = ad->cm->port_use;

	if (swr_ip6_is_zero(ip))
		return use[port] != 0 || use[65536u + port] != 0;
	return use[cm_port_index(ip, port)] != 0;
}

void
swr_cm_unlink(struct swr_conn *c)
{
	struct swr_cm *cm = c->ad->cm;

	if (c->listed) {
		if (c->prev != NULL)
			c->prev->next = c->next;
		else
			cm->conns = c->next;
		if (c->next != NULL)
			c->next->prev = c->prev;
		c->listed = false;
	}
	swr_cm_disarm(c);
	cm_txq_remove(c);
	cm_req_remove(c);
	swr_cm_answered(c);
	if (c->port_held) {
		cm->port_use[cm_port_index(c->lip, c->lport)]--;
		c->port_held = false;
	}
	c->next = c->prev = NULL;
}


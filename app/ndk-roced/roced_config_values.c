/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * ndk-roced configuration: the forms of values, the same in the file and
 * on the command line (numbers, yes/no, IPv4 addresses and netmasks,
 * MACs, devices, lcores, file prefixes), and a port's keys, which the
 * file's [port NAME] sections and --port options share. A value that
 * does not fit is refused with its place (cfg_die()).
 */

#include <arpa/inet.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "roced.h"
#include "roced_config_priv.h"

const char *
roced_ip_str(uint32_t ip, char *buf)
{
	return inet_ntop(AF_INET, &ip, buf, INET_ADDRSTRLEN);
}

/*
 * Every number of the file and the options has one form: decimal without
 * a leading zero ("0", "4096"), or hexadecimal after 0x ("0x1000"). No
 * sign (a leading '+' or '-' is refused), no octal (strtoul would read
 * "010" as 8), no spaces, nothing after the digits.
 */
bool
cfg_parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	uint64_t v = 0;
	unsigned int base = 10;
	const char *c;

	if (s == NULL || s[0] == '\0')
		return false;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (s[0] == '\0')
			return false;
	} else if (s[0] == '0' && s[1] != '\0') {
		return false;                  /* a leading zero: octal? */
	}
	for (c = s; *c != '\0'; c++) {
		unsigned int d;

		if (isdigit((unsigned char)*c))
			d = (unsigned int)(*c - '0');
		else if (base == 16 && isxdigit((unsigned char)*c))
			d = (unsigned int)(tolower((unsigned char)*c) - 'a' +
					   10);
		else
			return false;
		v = v * base + d;
		if (v > UINT32_MAX)
			return false;
	}
	if (v < lo || v > hi)
		return false;
	*out = (uint32_t)v;
	return true;
}

uint32_t
cfg_u32(const char *where, const char *what, const char *s, uint32_t lo,
	uint32_t hi)
{
	uint32_t v;

	if (!cfg_parse_u32(s, lo, hi, &v))
		cfg_die(where, "%s '%s': not a whole number in %u..%u "
			"(decimal, or hex after 0x)", what, s, lo, hi);
	return v;
}

bool
cfg_bool(const char *where, const char *what, const char *s)
{
	static const char *const yes[] = { "yes", "on", "true", "1" };
	static const char *const no[] = { "no", "off", "false", "0" };

	for (unsigned int i = 0; i < RTE_DIM(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0)
			return true;
		if (strcasecmp(s, no[i]) == 0)
			return false;
	}
	cfg_die(where, "%s '%s': say yes or no (on/off, true/false, 1/0)", what,
		s);
}

/*
 * A netmask, dotted ("255.255.255.0") or a prefix length ("24"). /0 and
 * /32 pass here and are refused by cfg_port_check_addr() with the address.
 */
static uint8_t
need_netmask(const char *where, const char *s)
{
	struct in_addr a;
	uint32_t m, len;

	if (cfg_parse_u32(s[0] == '/' ? s + 1 : s, 0, 32, &len))
		return (uint8_t)len;
	if (inet_pton(AF_INET, s, &a) != 1)
		cfg_die(where, "netmask '%s': neither a.b.c.d nor a prefix "
			"length 0..32", s);
	m = ~ntohl(a.s_addr);       /* host bits: must be 0...01...1 */
	if ((m & (m + 1)) != 0)
		cfg_die(where, "netmask '%s': its ones are not contiguous", s);
	return (uint8_t)(32 - __builtin_popcount(m));
}

/* "a.b.c.d" or "a.b.c.d/len": the adapter address (and prefix). */
static void
set_ip(struct roced_port_cfg *p, const char *where, const char *s)
{
	char buf[64];
	char *slash;
	struct in_addr a;

	if (strlen(s) >= sizeof(buf))
		cfg_die(where, "ip '%s': too long", s);
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash != NULL) {
		*slash = '\0';
		p->prefix_len = need_netmask(where, slash + 1);
		snprintf(p->prefix_where, sizeof(p->prefix_where), "%s",
			 where);
	}
	if (inet_pton(AF_INET, buf, &a) != 1)
		cfg_die(where, "ip '%s': not an IPv4 address", s);
	if (a.s_addr == 0 || a.s_addr == INADDR_BROADCAST ||
	    IN_MULTICAST(ntohl(a.s_addr)))
		cfg_die(where, "ip '%s': not a unicast address", s);
	p->ipv4 = a.s_addr;
	snprintf(p->ip_where, sizeof(p->ip_where), "%s", where);
}

/*
 * The address with its prefix, once the port's keys are all read (ip and
 * netmask may come in any order). The adapter reaches every peer by ARP
 * on its own network (there is no router), so it needs a network with
 * room for a peer: /1 to /31 (/31: the two ends of a point-to-point link,
 * RFC 3021). A /0 is no network and a /32 leaves no peer on the link.
 * From /1 to /30 the address may not be the network's own address (host
 * part all zeros) nor its broadcast address (all ones).
 */
void
cfg_port_check_addr(const struct roced_port_cfg *p)
{
	const char *pw = p->prefix_where[0] != '\0' ? p->prefix_where :
			 p->ip_where;
	char ip[INET_ADDRSTRLEN];
	uint32_t host, a;

	if (p->ipv4 == 0)
		return;                 /* "no ip" is said by the caller */
	roced_ip_str(p->ipv4, ip);
	if (p->prefix_len == 0)
		cfg_die(pw, "prefix /0 for %s: not a network (give the prefix "
			"of the link's network, e.g. /24)", ip);
	if (p->prefix_len == 32)
		cfg_die(pw, "prefix /32 for %s: no peer could be on the link "
			"(the adapter reaches its peers by ARP on its own "
			"network; use /31 for a point-to-point link)", ip);
	if (p->prefix_len == 31)
		return;
	host = ~0u >> p->prefix_len;
	a = ntohl(p->ipv4);
	if ((a & host) == 0)
		cfg_die(p->ip_where, "ip %s/%u: the network's own address, not "
			"a host's", ip, p->prefix_len);
	if ((a & host) == host)
		cfg_die(p->ip_where, "ip %s/%u: the network's broadcast "
			"address, not a host's", ip, p->prefix_len);
}

static int
hex_digit(char c)
{
	if (isdigit((unsigned char)c))
		return c - '0';
	if (isxdigit((unsigned char)c))
		return tolower((unsigned char)c) - 'a' + 10;
	return -1;
}

/* xx:xx:xx:xx:xx:xx, two hex digits each; a unicast, non-zero address. */
static void
set_mac(struct roced_port_cfg *p, const char *where, const char *s)
{
	uint8_t b[6];
	bool zero = true;

	if (strlen(s) != 17)
		cfg_die(where, "mac '%s': not xx:xx:xx:xx:xx:xx", s);
	for (unsigned int i = 0; i < 6; i++) {
		int hi = hex_digit(s[3 * i]), lo = hex_digit(s[3 * i + 1]);

		if (hi < 0 || lo < 0 || (i < 5 && s[3 * i + 2] != ':'))
			cfg_die(where, "mac '%s': not xx:xx:xx:xx:xx:xx", s);
		b[i] = (uint8_t)(hi << 4 | lo);
		zero = zero && b[i] == 0;
	}
	if (b[0] & 1)
		cfg_die(where, "mac '%s': a multicast address", s);
	if (zero)
		cfg_die(where, "mac '%s': all zero, not an interface's address "
			"(leave mac out to keep the port's own)", s);
	memcpy(p->mac, b, sizeof(b));
}

/* A PCI address, full (0000:03:00.0) or short (03:00.0), normalised. */
static bool
pci_addr(const char *s, char *out, size_t len)
{
	unsigned int dom = 0, bus, dev, fn;
	char end;

	if (sscanf(s, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &end) != 4) {
		dom = 0;
		if (sscanf(s, "%x:%x.%x%c", &bus, &dev, &fn, &end) != 3)
			return false;
	}
	if (dom > 0xffff || bus > 0xff || dev > 0x1f || fn > 7)
		return false;
	snprintf(out, len, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return true;
}

void
cfg_device(struct roced_port_cfg *p, const char *where, const char *s)
{
	char norm[32];

	if (s[0] == '\0' || strlen(s) >= sizeof(p->device))
		cfg_die(where, "device '%s': empty or too long", s);
	if (strchr(s, ' ') != NULL)
		cfg_die(where, "device '%s': no spaces in device arguments", s);
	/* A PCI address, maybe with devargs after a comma. */
	if (pci_addr(s, norm, sizeof(norm)) ||
	    (strchr(s, ',') != NULL && isxdigit((unsigned char)s[0]) &&
	     strchr(s, ':') != NULL && strchr(s, ':') < strchr(s, ','))) {
		p->pci = true;
		if (pci_addr(s, norm, sizeof(norm)))
			s = norm;
	}
	strcpy(p->device, s);
}

/* lcore = N, or N:M:... to give the queues of the port lcores of their own. */
static void
set_lcores(struct roced_port_cfg *p, const char *where, const char *s)
{
	char buf[128], *tok, *save = NULL;

	if (strlen(s) >= sizeof(buf))
		cfg_die(where, "lcore '%s': too long", s);
	strcpy(buf, s);
	p->n_lcores = 0;
	for (tok = strtok_r(buf, ":", &save); tok != NULL;
	     tok = strtok_r(NULL, ":", &save)) {
		if (p->n_lcores == ROCED_MAX_QUEUES)
			cfg_die(where, "lcore '%s': more than %u lcores", s,
				ROCED_MAX_QUEUES);
		p->lcores[p->n_lcores] = (int)cfg_u32(where, "lcore", tok, 0,
						      RTE_MAX_LCORE - 1);
		for (unsigned int i = 0; i < p->n_lcores; i++)
			if (p->lcores[i] == p->lcores[p->n_lcores])
				cfg_die(where, "lcore '%s': lcore %s twice", s,
					tok);
		p->n_lcores++;
	}
	if (p->n_lcores == 0)
		cfg_die(where, "lcore '%s': no lcore", s);
	p->lcore = p->lcores[0];
}

/*
 * A connection manager key of a port (struct ndk_cm_params, ranges from
 * its field docs); false if @p key is not one.
 */
static bool
cm_set(struct roced_port_cfg *p, const char *where, const char *key,
       const char *val)
{
	static const struct {
		const char *key;
		size_t off;
		uint32_t hi;
	} keys[] = {
		{ "cm_retry_count",
		  offsetof(struct ndk_cm_params, retry_count), 7 },
		{ "cm_rnr_retry_count",
		  offsetof(struct ndk_cm_params, rnr_retry_count), 7 },
		{ "qp_retry_count",
		  offsetof(struct ndk_cm_params, qp_retry_count), 7 },
		{ "local_ack_timeout",
		  offsetof(struct ndk_cm_params, local_ack_timeout), 31 },
		{ "cm_response_timeout",
		  offsetof(struct ndk_cm_params, cm_response_timeout), 31 },
		{ "max_cm_retries",
		  offsetof(struct ndk_cm_params, max_cm_retries), 15 },
	};

	if (strcmp(key, "cm_listen_backlog") == 0) {
		p->cm.listen_backlog = cfg_u32(where, key, val, 1, 1u << 20);
		p->cm_set = true;
		return true;
	}
	for (unsigned int i = 0; i < RTE_DIM(keys); i++)
		if (strcmp(key, keys[i].key) == 0) {
			((uint8_t *)&p->cm)[keys[i].off] = (uint8_t)
				cfg_u32(where, key, val, 0, keys[i].hi);
			p->cm_set = true;
			return true;
		}
	return false;
}

/* One key of a port, from the file or a --port option. */
void
cfg_port_set(struct roced_port_cfg *p, const char *where, const char *key,
	     const char *val)
{
	if (strcmp(key, "device") == 0)
		cfg_device(p, where, val);
	else if (strcmp(key, "ip") == 0)
		set_ip(p, where, val);
	else if (strcmp(key, "ip6") == 0) {
		const char *why = roced_ip6_parse(p, val);

		if (why != NULL)
			cfg_die(where, "ip6 '%s': %s", val, why);
	}
	else if (strcmp(key, "netmask") == 0) {
		p->prefix_len = need_netmask(where, val);
		snprintf(p->prefix_where, sizeof(p->prefix_where), "%s",
			 where);
	}
	else if (strcmp(key, "mtu") == 0) {
		p->mtu = cfg_u32(where, "mtu", val, 256, 4096);
		if (!rte_is_power_of_2(p->mtu))
			cfg_die(where, "mtu '%s': the RDMA path MTU is 256, "
				"512, 1024, 2048 or 4096", val);
	} else if (strcmp(key, "lcore") == 0)
		set_lcores(p, where, val);
	else if (strcmp(key, "queues") == 0) {
		p->queues = (uint16_t)cfg_u32(where, "queues", val, 1,
					      ROCED_MAX_QUEUES);
		if (!rte_is_power_of_2(p->queues))
			cfg_die(where, "queues '%s': a power of 2 up to %u",
				val, ROCED_MAX_QUEUES);
	} else if (strcmp(key, "mac") == 0)
		set_mac(p, where, val);
	else if (strcmp(key, "adaptive_rto") == 0) {
		if (strcmp(val, "on") == 0)
			p->strict_rto = false;
		else if (strcmp(val, "off") == 0)
			p->strict_rto = true;
		else
			cfg_die(where, "adaptive_rto '%s': on or off", val);
	} else if (strcmp(key, "rto_floor_us") == 0)
		p->rto_floor_us = cfg_u32(where, "rto_floor_us", val, 1,
					  1000000);
	else if (strcmp(key, "cc") == 0) {
		if (strcmp(val, "off") == 0)
			p->cc = NDK_CC_NONE;
		else if (strcmp(val, "dcqcn") == 0)
			p->cc = NDK_CC_DCQCN;
		else if (strcmp(val, "delay") == 0)
			p->cc = NDK_CC_DELAY;
		else
			cfg_die(where, "cc '%s': off, dcqcn or delay", val);
	} else if (strcmp(key, "cc_line_mbps") == 0)
		p->cc_line_mbps = cfg_u32(where, key, val, 1, 1000000);
	else if (strcmp(key, "cnp_interval_us") == 0)
		p->cnp_interval_us = cfg_u32(where, key, val, 1, 1000000);
	else if (strcmp(key, "cc_delay_us") == 0)
		p->cc_delay_us = cfg_u32(where, key, val, 1, 1000000);
	else if (strcmp(key, "cc_window_init") == 0)
		p->cc_window_init = cfg_u32(where, key, val, 1, 65535);
	else if (strcmp(key, "cc_start_mbps") == 0)
		p->cc_start_mbps = cfg_u32(where, key, val, 1, 1000000);
	else if (strcmp(key, "drop_ppm") == 0)
		p->netem.drop_ppm = cfg_u32(where, key, val, 0, 1000000);
	else if (strcmp(key, "dup_ppm") == 0)
		p->netem.dup_ppm = cfg_u32(where, key, val, 0, 1000000);
	else if (strcmp(key, "reorder_ppm") == 0)
		p->netem.reorder_ppm = cfg_u32(where, key, val, 0, 1000000);
	else if (!cm_set(p, where, key, val))
		cfg_die(where, "unknown port key '%s' (device, ip, netmask, "
			"mtu, lcore, queues, mac, adaptive_rto, rto_floor_us, "
			"cc, cc_line_mbps, cnp_interval_us, cc_delay_us, "
			"cc_window_init, cc_start_mbps, "
			"drop_ppm, dup_ppm, reorder_ppm, cm_retry_count, "
			"cm_rnr_retry_count, qp_retry_count, "
			"local_ack_timeout, cm_response_timeout, "
			"max_cm_retries)", key);
	p->netem_on = (p->netem.drop_ppm | p->netem.dup_ppm |
		       p->netem.reorder_ppm) != 0;
}

void
cfg_port_init(struct roced_port_cfg *p, const char *name, const char *where)
{
	memset(p, 0, sizeof(*p));
	p->lcore = -1;
	p->queues = 1;
	p->prefix_len = 24;
	p->mtu = 4096;
	p->cm = (struct ndk_cm_params)NDK_CM_PARAMS_DEFAULT;
	if (name[0] == '\0' || strlen(name) >= sizeof(p->name))
		cfg_die(where, "port name '%s': empty or longer than %zu", name,
			sizeof(p->name) - 1);
	for (const char *c = name; *c != '\0'; c++)
		if (!isalnum((unsigned char)*c) && strchr("_-.:", *c) == NULL)
			cfg_die(where, "port name '%s': use letters, digits, "
				"_ - . :", name);
	strcpy(p->name, name);
	snprintf(p->where, sizeof(p->where), "%s", where);
}

/*
 * The file prefix names DPDK's runtime directory /var/run/dpdk/<prefix>
 * (removed at a clean stop) and the hugepage files <prefix>map_N: a name,
 * not a path. Letters, digits, '_', '-' and '.', not starting with '.',
 * short enough for the Unix socket paths under the runtime directory.
 */
#define FILE_PREFIX_MAX 48

void
cfg_check_file_prefix(const char *where, const char *s)
{
	if (s[0] == '\0' || strlen(s) > FILE_PREFIX_MAX)
		cfg_die(where, "file-prefix '%s': empty or longer than %d", s,
			FILE_PREFIX_MAX);
	if (strchr(s, '/') != NULL || strstr(s, "..") != NULL || s[0] == '.')
		cfg_die(where, "file-prefix '%s': a name, not a path (no '/', "
			"no '..', no leading '.')", s);
	for (const char *c = s; *c != '\0'; c++)
		if (!isalnum((unsigned char)*c) && strchr("_-.", *c) == NULL)
			cfg_die(where, "file-prefix '%s': use letters, digits, "
				"_ - .", s);
}

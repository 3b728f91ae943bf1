/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * ndk-roced configuration: the command line and the INI file (read with
 * rte_cfgfile), checked completely before the EAL starts. Every error
 * names the file and line (or the option), says what is wrong and exits
 * with status 2.
 *
 * rte_cfgfile gives no line numbers and accepts some malformed lines
 * silently, so the file is first scanned line by line here: that scan
 * rejects malformed lines, unknown sections and keys and duplicates, and
 * remembers where each key stands for the messages of the value checks.
 */

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cfgfile.h>
#include <rte_common.h>

#include "roced.h"

#define SCAN_MAX_KEYS 512
#define LINE_MAX_LEN 1024

/* Where each key of the file stands. */
struct key_pos {
	char section[CFG_NAME_LEN];
	char key[CFG_NAME_LEN];
	int line;
};

static struct {
	const char *file;
	unsigned int n;
	struct key_pos pos[SCAN_MAX_KEYS];
} scan;

/*
 * What a parse holds while it runs, released by die() before it exits:
 * a refusal leaves nothing allocated behind (LeakSanitizer, and the
 * configuration fuzz target, which returns from die()'s exit()).
 */
static struct {
	FILE *f;                     /* the file scan_file() reads */
	char *line;                  /* its getline() buffer */
	struct rte_cfgfile *cfgfile; /* load_file()'s */
	char **dargv;                /* roced_config_parse()'s */
	struct roced_config *cfg;    /* its EAL strings */
} held;

static void
release_held(void)
{
	if (held.f != NULL)
		fclose(held.f);
	free(held.line);
	if (held.cfgfile != NULL)
		rte_cfgfile_close(held.cfgfile);
	free(held.dargv);
	if (held.cfg != NULL)
		roced_config_free(held.cfg);
	memset(&held, 0, sizeof(held));
}

static void __rte_format_printf(2, 3) __rte_noreturn
die(const char *where, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ndk-roced: ");
	if (where != NULL && where[0] != '\0')
		fprintf(stderr, "%s: ", where);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	release_held();
	exit(ROCED_EXIT_USAGE);
}

const char *
roced_ip_str(uint32_t ip, char *buf)
{
	return inet_ntop(AF_INET, &ip, buf, INET_ADDRSTRLEN);
}

/* ------------------------------------------------------------------ */
/* Values                                                              */
/* ------------------------------------------------------------------ */

/*
 * Every number of the file and the options has one form: decimal without
 * a leading zero ("0", "4096"), or hexadecimal after 0x ("0x1000"). No
 * sign (a leading '+' or '-' is refused), no octal (strtoul would read
 * "010" as 8), no spaces, nothing after the digits.
 */
static bool
parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
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

static uint32_t
need_u32(const char *where, const char *what, const char *s, uint32_t lo,
	 uint32_t hi)
{
	uint32_t v;

	if (!parse_u32(s, lo, hi, &v))
		die(where, "%s '%s': not a whole number in %u..%u (decimal, "
		    "or hex after 0x)", what, s, lo, hi);
	return v;
}

static bool
need_bool(const char *where, const char *what, const char *s)
{
	static const char *const yes[] = { "yes", "on", "true", "1" };
	static const char *const no[] = { "no", "off", "false", "0" };

	for (unsigned int i = 0; i < RTE_DIM(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0)
			return true;
		if (strcasecmp(s, no[i]) == 0)
			return false;
	}
	die(where, "%s '%s': say yes or no (on/off, true/false, 1/0)", what,
	    s);
}

/*
 * A netmask, dotted ("255.255.255.0") or a prefix length ("24"). /0 and
 * /32 pass here and are refused by port_check_addr() with the address.
 */
static uint8_t
need_netmask(const char *where, const char *s)
{
	struct in_addr a;
	uint32_t m, len;

	if (parse_u32(s[0] == '/' ? s + 1 : s, 0, 32, &len))
		return (uint8_t)len;
	if (inet_pton(AF_INET, s, &a) != 1)
		die(where, "netmask '%s': neither a.b.c.d nor a prefix length "
		    "0..32", s);
	m = ~ntohl(a.s_addr);       /* host bits: must be 0...01...1 */
	if ((m & (m + 1)) != 0)
		die(where, "netmask '%s': its ones are not contiguous", s);
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
		die(where, "ip '%s': too long", s);
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash != NULL) {
		*slash = '\0';
		p->prefix_len = need_netmask(where, slash + 1);
		snprintf(p->prefix_where, sizeof(p->prefix_where), "%s",
			 where);
	}
	if (inet_pton(AF_INET, buf, &a) != 1)
		die(where, "ip '%s': not an IPv4 address", s);
	if (a.s_addr == 0 || a.s_addr == INADDR_BROADCAST ||
	    IN_MULTICAST(ntohl(a.s_addr)))
		die(where, "ip '%s': not a unicast address", s);
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
static void
port_check_addr(const struct roced_port_cfg *p)
{
	const char *pw = p->prefix_where[0] != '\0' ? p->prefix_where :
			 p->ip_where;
	char ip[INET_ADDRSTRLEN];
	uint32_t host, a;

	if (p->ipv4 == 0)
		return;                 /* "no ip" is said by the caller */
	roced_ip_str(p->ipv4, ip);
	if (p->prefix_len == 0)
		die(pw, "prefix /0 for %s: not a network (give the prefix of "
		    "the link's network, e.g. /24)", ip);
	if (p->prefix_len == 32)
		die(pw, "prefix /32 for %s: no peer could be on the link (the "
		    "adapter reaches its peers by ARP on its own network; "
		    "use /31 for a point-to-point link)", ip);
	if (p->prefix_len == 31)
		return;
	host = ~0u >> p->prefix_len;
	a = ntohl(p->ipv4);
	if ((a & host) == 0)
		die(p->ip_where, "ip %s/%u: the network's own address, not a "
		    "host's", ip, p->prefix_len);
	if ((a & host) == host)
		die(p->ip_where, "ip %s/%u: the network's broadcast address, "
		    "not a host's", ip, p->prefix_len);
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
		die(where, "mac '%s': not xx:xx:xx:xx:xx:xx", s);
	for (unsigned int i = 0; i < 6; i++) {
		int hi = hex_digit(s[3 * i]), lo = hex_digit(s[3 * i + 1]);

		if (hi < 0 || lo < 0 || (i < 5 && s[3 * i + 2] != ':'))
			die(where, "mac '%s': not xx:xx:xx:xx:xx:xx", s);
		b[i] = (uint8_t)(hi << 4 | lo);
		zero = zero && b[i] == 0;
	}
	if (b[0] & 1)
		die(where, "mac '%s': a multicast address", s);
	if (zero)
		die(where, "mac '%s': all zero, not an interface's address "
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

static void
set_device(struct roced_port_cfg *p, const char *where, const char *s)
{
	char norm[32];

	if (s[0] == '\0' || strlen(s) >= sizeof(p->device))
		die(where, "device '%s': empty or too long", s);
	if (strchr(s, ' ') != NULL)
		die(where, "device '%s': no spaces in device arguments", s);
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
		die(where, "lcore '%s': too long", s);
	strcpy(buf, s);
	p->n_lcores = 0;
	for (tok = strtok_r(buf, ":", &save); tok != NULL;
	     tok = strtok_r(NULL, ":", &save)) {
		if (p->n_lcores == ROCED_MAX_QUEUES)
			die(where, "lcore '%s': more than %u lcores", s,
			    ROCED_MAX_QUEUES);
		p->lcores[p->n_lcores] = (int)need_u32(where, "lcore", tok, 0,
						       RTE_MAX_LCORE - 1);
		for (unsigned int i = 0; i < p->n_lcores; i++)
			if (p->lcores[i] == p->lcores[p->n_lcores])
				die(where, "lcore '%s': lcore %s twice", s,
				    tok);
		p->n_lcores++;
	}
	if (p->n_lcores == 0)
		die(where, "lcore '%s': no lcore", s);
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
		p->cm.listen_backlog = need_u32(where, key, val, 1, 1u << 20);
		p->cm_set = true;
		return true;
	}
	for (unsigned int i = 0; i < RTE_DIM(keys); i++)
		if (strcmp(key, keys[i].key) == 0) {
			((uint8_t *)&p->cm)[keys[i].off] = (uint8_t)
				need_u32(where, key, val, 0, keys[i].hi);
			p->cm_set = true;
			return true;
		}
	return false;
}

/* One key of a port, from the file or a --port option. */
static void
port_set(struct roced_port_cfg *p, const char *where, const char *key,
	 const char *val)
{
	if (strcmp(key, "device") == 0)
		set_device(p, where, val);
	else if (strcmp(key, "ip") == 0)
		set_ip(p, where, val);
	else if (strcmp(key, "ip6") == 0) {
		const char *why = roced_ip6_parse(p, val);

		if (why != NULL)
			die(where, "ip6 '%s': %s", val, why);
	}
	else if (strcmp(key, "netmask") == 0) {
		p->prefix_len = need_netmask(where, val);
		snprintf(p->prefix_where, sizeof(p->prefix_where), "%s",
			 where);
	}
	else if (strcmp(key, "mtu") == 0) {
		p->mtu = need_u32(where, "mtu", val, 256, 4096);
		if (!rte_is_power_of_2(p->mtu))
			die(where, "mtu '%s': the RDMA path MTU is 256, 512, "
			    "1024, 2048 or 4096", val);
	} else if (strcmp(key, "lcore") == 0)
		set_lcores(p, where, val);
	else if (strcmp(key, "queues") == 0) {
		p->queues = (uint16_t)need_u32(where, "queues", val, 1,
					       ROCED_MAX_QUEUES);
		if (!rte_is_power_of_2(p->queues))
			die(where, "queues '%s': a power of 2 up to %u", val,
			    ROCED_MAX_QUEUES);
	} else if (strcmp(key, "mac") == 0)
		set_mac(p, where, val);
	else if (strcmp(key, "adaptive_rto") == 0) {
		if (strcmp(val, "on") == 0)
			p->strict_rto = false;
		else if (strcmp(val, "off") == 0)
			p->strict_rto = true;
		else
			die(where, "adaptive_rto '%s': on or off", val);
	} else if (strcmp(key, "rto_floor_us") == 0)
		p->rto_floor_us = need_u32(where, "rto_floor_us", val, 1,
					   1000000);
	else if (strcmp(key, "cc") == 0) {
		if (strcmp(val, "off") == 0)
			p->cc = NDK_CC_NONE;
		else if (strcmp(val, "dcqcn") == 0)
			p->cc = NDK_CC_DCQCN;
		else if (strcmp(val, "delay") == 0)
			p->cc = NDK_CC_DELAY;
		else
			die(where, "cc '%s': off, dcqcn or delay", val);
	} else if (strcmp(key, "cc_line_mbps") == 0)
		p->cc_line_mbps = need_u32(where, key, val, 1, 1000000);
	else if (strcmp(key, "cnp_interval_us") == 0)
		p->cnp_interval_us = need_u32(where, key, val, 1, 1000000);
	else if (strcmp(key, "cc_delay_us") == 0)
		p->cc_delay_us = need_u32(where, key, val, 1, 1000000);
	else if (strcmp(key, "drop_ppm") == 0)
		p->netem.drop_ppm = need_u32(where, key, val, 0, 1000000);
	else if (strcmp(key, "dup_ppm") == 0)
		p->netem.dup_ppm = need_u32(where, key, val, 0, 1000000);
	else if (strcmp(key, "reorder_ppm") == 0)
		p->netem.reorder_ppm = need_u32(where, key, val, 0, 1000000);
	else if (!cm_set(p, where, key, val))
		die(where, "unknown port key '%s' (device, ip, netmask, mtu, "
		    "lcore, queues, mac, adaptive_rto, rto_floor_us, "
		    "cc, cc_line_mbps, cnp_interval_us, cc_delay_us, "
		    "drop_ppm, dup_ppm, reorder_ppm, "
		    "cm_retry_count, cm_rnr_retry_count, qp_retry_count, "
		    "local_ack_timeout, cm_response_timeout, max_cm_retries)",
		    key);
	p->netem_on = (p->netem.drop_ppm | p->netem.dup_ppm |
		       p->netem.reorder_ppm) != 0;
}

static void
port_init(struct roced_port_cfg *p, const char *name, const char *where)
{
	memset(p, 0, sizeof(*p));
	p->lcore = -1;
	p->queues = 1;
	p->prefix_len = 24;
	p->mtu = 4096;
	p->cm = (struct ndk_cm_params)NDK_CM_PARAMS_DEFAULT;
	if (name[0] == '\0' || strlen(name) >= sizeof(p->name))
		die(where, "port name '%s': empty or longer than %zu", name,
		    sizeof(p->name) - 1);
	for (const char *c = name; *c != '\0'; c++)
		if (!isalnum((unsigned char)*c) && strchr("_-.:", *c) == NULL)
			die(where, "port name '%s': use letters, digits, "
			    "_ - . :", name);
	strcpy(p->name, name);
	snprintf(p->where, sizeof(p->where), "%s", where);
}

/* ------------------------------------------------------------------ */
/* The file: scan, then values                                         */
/* ------------------------------------------------------------------ */

static const char *const known_keys[][12] = {
	{ "eal", "lcores", "main-lcore", "file-prefix", "hugepages",
	  "memory", "in-memory", "huge-dir", "args", NULL },
	{ "daemon", "telemetry", "linger-ms", NULL },
	{ "limits", "max-qp", "max-cq", "max-mr", NULL },
	{ "echo", "enabled", "port", "msg-size", "depth", NULL },
	{ "attach", "heap-mb", NULL },
	{ "log", NULL },   /* any key: a log type pattern */
};

/* Index in known_keys, RTE_DIM for a port section, -1 if unknown. */
static int
section_kind(const char *sec)
{
	for (unsigned int i = 0; i < RTE_DIM(known_keys); i++)
		if (strcmp(sec, known_keys[i][0]) == 0)
			return (int)i;
	if (strncmp(sec, "port ", 5) == 0)
		return (int)RTE_DIM(known_keys);
	return -1;
}

static bool
key_known(int kind, const char *key)
{
	if (kind == (int)RTE_DIM(known_keys) || strcmp(known_keys[kind][0],
						       "log") == 0)
		return true;  /* port keys are checked by port_set() */
	for (unsigned int i = 1; known_keys[kind][i] != NULL; i++)
		if (strcmp(key, known_keys[kind][i]) == 0)
			return true;
	return false;
}

static char *
trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static void
scan_line(char *l, int lineno, char *sec)
{
	char where[ROCED_DEV_LEN];
	char *eq, *key;
	int kind;

	snprintf(where, sizeof(where), "%s:%d", scan.file, lineno);
	l[strcspn(l, ";#")] = '\0';       /* comments, as rte_cfgfile */
	l = trim(l);
	if (l[0] == '\0')
		return;
	if (l[0] == '[') {
		char *close = strchr(l, ']');

		if (close == NULL || trim(close + 1)[0] != '\0')
			die(where, "a section header is [name] alone");
		*close = '\0';
		l = trim(l + 1);
		if (strlen(l) >= CFG_NAME_LEN || l[0] == '\0')
			die(where, "section name empty or too long");
		if (section_kind(l) < 0)
			die(where, "unknown section [%s] (eal, daemon, limits, "
			    "log, echo, attach, port NAME)", l);
		for (unsigned int i = 0; i < scan.n; i++)
			if (strcmp(scan.pos[i].section, l) == 0 &&
			    scan.pos[i].key[0] == '\0')
				die(where, "section [%s] again (first at "
				    "line %d)", l, scan.pos[i].line);
		strcpy(sec, l);
		key = (char *)"";
	} else {
		eq = strchr(l, '=');
		if (eq == NULL)
			die(where, "expected key = value, got '%s'", l);
		*eq = '\0';
		key = trim(l);
		if (sec[0] == '\0')
			die(where, "'%s' before any [section]", key);
		if (key[0] == '\0' || strlen(key) >= CFG_NAME_LEN)
			die(where, "key empty or too long");
		if (trim(eq + 1)[0] == '\0')
			die(where, "[%s] %s has no value", sec, key);
		if (strlen(trim(eq + 1)) >= CFG_VALUE_LEN)
			die(where, "[%s] %s: value longer than %d", sec, key,
			    CFG_VALUE_LEN - 1);
		kind = section_kind(sec);
		if (!key_known(kind, key))
			die(where, "unknown key '%s' in [%s]", key, sec);
		for (unsigned int i = 0; i < scan.n; i++)
			if (strcmp(scan.pos[i].section, sec) == 0 &&
			    strcmp(scan.pos[i].key, key) == 0)
				die(where, "[%s] %s given twice (first at "
				    "line %d)", sec, key, scan.pos[i].line);
	}
	if (scan.n == SCAN_MAX_KEYS)
		die(where, "more than %d keys", SCAN_MAX_KEYS);
	strcpy(scan.pos[scan.n].section, sec);
	strcpy(scan.pos[scan.n].key, key);
	scan.pos[scan.n++].line = lineno;
}

/*
 * Lines are read with their length, so a NUL byte inside one is seen:
 * C strings (and rte_cfgfile) would end the line there and silently drop
 * what follows ("ip = 10.1.0.1\0junk").
 */
static void
scan_file(const char *file)
{
	char sec[CFG_NAME_LEN] = "";
	size_t cap = 0;
	ssize_t n;
	int lineno = 0;

	held.f = fopen(file, "r");
	if (held.f == NULL)
		die(NULL, "cannot read config file %s: %s", file,
		    strerror(errno));
	scan.file = file;
	scan.n = 0;
	while ((n = getline(&held.line, &cap, held.f)) >= 0) {
		lineno++;
		if (n > LINE_MAX_LEN)
			die(NULL, "%s:%d: line longer than %d", file, lineno,
			    LINE_MAX_LEN);
		if (memchr(held.line, '\0', (size_t)n) != NULL)
			die(NULL, "%s:%d: a NUL byte in the line (text after "
			    "it would be ignored)", file, lineno);
		scan_line(held.line, lineno, sec);
	}
	free(held.line);
	held.line = NULL;
	fclose(held.f);
	held.f = NULL;
}

/* "file:line: [section] key = 'value'" of a key of the file. */
static const char *
where_key(const char *sec, const char *key, const char *val, char *buf,
	  size_t len)
{
	int line = 0;

	for (unsigned int i = 0; i < scan.n; i++)
		if (strcmp(scan.pos[i].section, sec) == 0 &&
		    strcmp(scan.pos[i].key, key) == 0)
			line = scan.pos[i].line;
	snprintf(buf, len, "%s:%d: [%s] %s = %s", scan.file, line, sec, key,
		 val);
	return buf;
}

static void
eal_add(struct roced_config *cfg, const char *where, const char *arg)
{
	char *copy;

	if (cfg->eal_argc >= ROCED_MAX_EAL_ARGS - 1)
		die(where, "more than %d EAL arguments", ROCED_MAX_EAL_ARGS);
	copy = strdup(arg);
	if (copy == NULL)
		die(where, "out of memory");
	cfg->eal_strings[cfg->eal_argc] = copy;
	cfg->eal_argv[cfg->eal_argc++] = copy;
}

static void
eal_add2(struct roced_config *cfg, const char *where, const char *opt,
	 const char *val)
{
	char buf[ROCED_DEV_LEN + 32];

	if (opt[1] != '-') {          /* short options take a separate value */
		eal_add(cfg, where, opt);
		eal_add(cfg, where, val);
		return;
	}
	snprintf(buf, sizeof(buf), "%s=%s", opt, val);
	eal_add(cfg, where, buf);
}

/*
 * The file prefix names DPDK's runtime directory /var/run/dpdk/<prefix>
 * (removed at a clean stop) and the hugepage files <prefix>map_N: a name,
 * not a path. Letters, digits, '_', '-' and '.', not starting with '.',
 * short enough for the Unix socket paths under the runtime directory.
 */
#define FILE_PREFIX_MAX 48

static void
need_file_prefix(const char *where, const char *s)
{
	if (s[0] == '\0' || strlen(s) > FILE_PREFIX_MAX)
		die(where, "file-prefix '%s': empty or longer than %d", s,
		    FILE_PREFIX_MAX);
	if (strchr(s, '/') != NULL || strstr(s, "..") != NULL || s[0] == '.')
		die(where, "file-prefix '%s': a name, not a path (no '/', no "
		    "'..', no leading '.')", s);
	for (const char *c = s; *c != '\0'; c++)
		if (!isalnum((unsigned char)*c) && strchr("_-.", *c) == NULL)
			die(where, "file-prefix '%s': use letters, digits, "
			    "_ - .", s);
}

static const char *const log_levels[] = {
	"emergency", "alert", "critical", "error", "warning", "notice",
	"info", "debug",
};

static void
need_level(const char *where, const char *s)
{
	uint32_t n;

	if (parse_u32(s, 1, 8, &n))
		return;
	for (unsigned int i = 0; i < RTE_DIM(log_levels); i++)
		if (strcmp(s, log_levels[i]) == 0)
			return;
	die(where, "log level '%s': emergency, alert, critical, error, "
	    "warning, notice, info, debug or 1..8", s);
}

static void
file_eal(struct rte_cfgfile *f, struct roced_config *cfg)
{
	struct rte_cfgfile_entry e[16];
	char where[ROCED_DEV_LEN * 2], num[16];
	bool no_huge = false, in_mem = false;
	int n = rte_cfgfile_section_entries(f, "eal", e, RTE_DIM(e));

	for (int i = 0; i < n; i++) {
		const char *k = e[i].name, *v = e[i].value;

		where_key("eal", k, v, where, sizeof(where));
		if (strcmp(k, "lcores") == 0) {
			/* "(0-2)@(0-1)": an lcore map, more lcores than CPUs */
			eal_add2(cfg, where,
				 strchr(v, '@') != NULL ? "--lcores" : "-l", v);
		} else if (strcmp(k, "main-lcore") == 0) {
			/* The EAL gets the number in decimal, as it was read */
			snprintf(num, sizeof(num), "%u",
				 need_u32(where, "main-lcore", v, 0,
					  RTE_MAX_LCORE - 1));
			eal_add2(cfg, where, "--main-lcore", num);
		} else if (strcmp(k, "file-prefix") == 0) {
			need_file_prefix(where, v);
			eal_add2(cfg, where, "--file-prefix", v);
		} else if (strcmp(k, "hugepages") == 0) {
			no_huge = !need_bool(where, "hugepages", v);
			if (no_huge)
				eal_add(cfg, where, "--no-huge");
		} else if (strcmp(k, "memory") == 0) {
			/* the EAL reads -m with atoi(): no hex for it */
			snprintf(num, sizeof(num), "%u",
				 need_u32(where, "memory (MB)", v, 64,
					  1u << 20));
			eal_add2(cfg, where, "-m", num);
		} else if (strcmp(k, "in-memory") == 0) {
			in_mem = need_bool(where, "in-memory", v);
			if (in_mem)
				eal_add(cfg, where, "--in-memory");
		} else if (strcmp(k, "huge-dir") == 0) {
			eal_add2(cfg, where, "--huge-dir", v);
		} else if (strcmp(k, "args") == 0) {
			char buf[CFG_VALUE_LEN];

			strcpy(buf, v);
			for (char *t = strtok(buf, " \t"); t != NULL;
			     t = strtok(NULL, " \t"))
				eal_add(cfg, where, t);
		}
	}
	if (no_huge && in_mem)
		die(scan.file, "[eal] hugepages = no and in-memory = yes "
		    "cannot go together (the EAL refuses --no-huge "
		    "--in-memory): use memory and a file-prefix instead");
}

static uint32_t
file_u32(struct rte_cfgfile *f, const char *sec, const char *key,
	 uint32_t lo, uint32_t hi, uint32_t def)
{
	const char *v = rte_cfgfile_get_entry(f, sec, key);
	char where[ROCED_DEV_LEN * 2];

	if (v == NULL)
		return def;
	return need_u32(where_key(sec, key, v, where, sizeof(where)), key, v,
			lo, hi);
}

static bool
file_bool(struct rte_cfgfile *f, const char *sec, const char *key, bool def)
{
	const char *v = rte_cfgfile_get_entry(f, sec, key);
	char where[ROCED_DEV_LEN * 2];

	if (v == NULL)
		return def;
	return need_bool(where_key(sec, key, v, where, sizeof(where)), key,
			 v);
}

static void
file_log(struct rte_cfgfile *f, struct roced_config *cfg)
{
	struct rte_cfgfile_entry e[32];
	char where[ROCED_DEV_LEN * 2], arg[CFG_NAME_LEN + CFG_VALUE_LEN + 16];
	int n = rte_cfgfile_section_entries(f, "log", e, RTE_DIM(e));

	for (int i = 0; i < n; i++) {
		where_key("log", e[i].name, e[i].value, where, sizeof(where));
		need_level(where, e[i].value);
		if (strcmp(e[i].name, "level") == 0)
			snprintf(arg, sizeof(arg), "--log-level=%.255s",
				 e[i].value);
		else
			snprintf(arg, sizeof(arg), "--log-level=%.63s:%.255s",
				 e[i].name, e[i].value);
		eal_add(cfg, where, arg);
	}
}

static void
file_ports(struct rte_cfgfile *f, struct roced_config *cfg)
{
	struct rte_cfgfile_entry e[16];
	char where[ROCED_DEV_LEN * 2];

	for (unsigned int i = 0; i < scan.n; i++) {
		const char *sec = scan.pos[i].section;
		struct roced_port_cfg *p;
		int n;

		if (scan.pos[i].key[0] != '\0' || strncmp(sec, "port ", 5))
			continue;
		snprintf(where, sizeof(where), "%s:%d: [%s]", scan.file,
			 scan.pos[i].line, sec);
		if (cfg->n_ports == ROCED_MAX_PORTS)
			die(where, "more than %d ports", ROCED_MAX_PORTS);
		p = &cfg->ports[cfg->n_ports++];
		port_init(p, trim((char *)(uintptr_t)sec + 5), where);
		n = rte_cfgfile_section_entries(f, sec, e, RTE_DIM(e));
		for (int k = 0; k < n; k++)
			port_set(p, where_key(sec, e[k].name, e[k].value,
					      where, sizeof(where)),
				 e[k].name, e[k].value);
		snprintf(where, sizeof(where), "%s:%d: [%s]", scan.file,
			 scan.pos[i].line, sec);
		if (p->device[0] == '\0')
			die(where, "no device (an ethdev name, devargs or a "
			    "PCI address)");
		if (p->ipv4 == 0 && !p->has_ipv6)
			die(where, "no ip (a.b.c.d/len) or ip6 (addr/len)");
		port_check_addr(p);
	}
}

static void
load_file(struct roced_config *cfg)
{
	struct rte_cfgfile *f;

	scan_file(cfg->file);
	f = rte_cfgfile_load(cfg->file, 0);
	if (f == NULL)
		die(NULL, "%s: rte_cfgfile could not load it", cfg->file);
	held.cfgfile = f;
	file_eal(f, cfg);
	file_log(f, cfg);
	cfg->telemetry = file_bool(f, "daemon", "telemetry", true);
	cfg->linger_ms = file_u32(f, "daemon", "linger-ms", 0, 60000,
				  cfg->linger_ms);
	cfg->max_qp = file_u32(f, "limits", "max-qp", 1, 1u << 20, 0);
	cfg->max_cq = file_u32(f, "limits", "max-cq", 1, 1u << 20, 0);
	cfg->max_mr = file_u32(f, "limits", "max-mr", 1, 1u << 24, 0);
	cfg->echo = file_bool(f, "echo", "enabled", cfg->echo);
	cfg->echo_port = (uint16_t)file_u32(f, "echo", "port", 1, 65535,
					    cfg->echo_port);
	cfg->echo_msg_size = file_u32(f, "echo", "msg-size", 1, 1u << 20,
				      cfg->echo_msg_size);
	cfg->echo_depth = file_u32(f, "echo", "depth", 1, 1024,
				   cfg->echo_depth);
	cfg->app_heap_mb = file_u32(f, "attach", "heap-mb", 2, 4096,
				    cfg->app_heap_mb);
	file_ports(f, cfg);
	held.cfgfile = NULL;
	rte_cfgfile_close(f);
}

/* ------------------------------------------------------------------ */
/* The command line                                                    */
/* ------------------------------------------------------------------ */

static void
usage(FILE *f)
{
	fprintf(f,
"usage: ndk-roced [EAL options --] [options]\n"
"\n"
"The ndk-roce transport daemon: owns DPDK ports and polling lcores and\n"
"serves RoCEv2 on them (ARP, ICMP echo, an RDMA echo service), with\n"
"counters and QP state over rte_telemetry (/ndk/adapters, /ndk/qps,\n"
"/ndk/qp,<qpn>[,<port>]). EAL options go before \"--\"; without \"--\"\n"
"every argument is the daemon's.\n"
"\n"
"  -f, --config FILE     INI configuration (see config/ndk-roced.conf)\n"
"  -p, --port SPEC       a port the EAL options created, e.g.\n"
"                        net_memif0,ip=10.0.0.1/24[,mtu=4096][,lcore=1]\n"
"                        [,mac=02:00:00:00:00:01][,netmask=24]\n"
"                        [,queues=2][,lcore=1:2] (an lcore per queue)\n"
"                        [,adaptive_rto=on|off][,rto_floor_us=50]\n"
"                        [,cm_retry_count=7][,cm_rnr_retry_count=7]\n"
"                        [,qp_retry_count=6][,local_ack_timeout=0]\n"
"                        [,cm_response_timeout=20][,max_cm_retries=15]\n"
"                        [,cm_listen_backlog=4096]\n"
"      --max-qp N        QPs per adapter (also --max-cq, --max-mr)\n"
"      --max-cq N\n"
"      --max-mr N\n"
"      --echo-port N     port of the echo service (default %u)\n"
"      --no-echo         no echo service\n"
"      --no-telemetry    no telemetry socket\n"
"      --check           check the configuration, print it and exit\n"
"  -h, --help            this text\n"
"\n"
"Exit status: 0 after SIGTERM/SIGINT, 2 for a bad file or argument,\n"
"1 for a failure at run time.\n", ROCED_ECHO_PORT);
}

enum {
	OPT_MAX_QP = 256, OPT_MAX_CQ, OPT_MAX_MR, OPT_ECHO_PORT, OPT_NO_ECHO,
	OPT_NO_TELEMETRY, OPT_CHECK,
};

static const struct option long_opts[] = {
	{ "config", required_argument, NULL, 'f' },
	{ "port", required_argument, NULL, 'p' },
	{ "max-qp", required_argument, NULL, OPT_MAX_QP },
	{ "max-cq", required_argument, NULL, OPT_MAX_CQ },
	{ "max-mr", required_argument, NULL, OPT_MAX_MR },
	{ "echo-port", required_argument, NULL, OPT_ECHO_PORT },
	{ "no-echo", no_argument, NULL, OPT_NO_ECHO },
	{ "no-telemetry", no_argument, NULL, OPT_NO_TELEMETRY },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* --port NAME,key=value,...: the first field names an existing ethdev. */
static void
opt_port(struct roced_config *cfg, const char *spec)
{
	char buf[ROCED_DEV_LEN], where[ROCED_DEV_LEN + 16];
	struct roced_port_cfg *p;
	char *tok, *save = NULL;

	snprintf(where, sizeof(where), "--port %s", spec);
	if (strlen(spec) >= sizeof(buf))
		die(where, "too long");
	if (cfg->n_ports == ROCED_MAX_PORTS)
		die(where, "more than %d ports", ROCED_MAX_PORTS);
	strcpy(buf, spec);
	tok = strtok_r(buf, ",", &save);
	if (tok == NULL || strchr(tok, '=') != NULL)
		die(where, "start with the port's ethdev name "
		    "(net_memif0,ip=...)");
	p = &cfg->ports[cfg->n_ports++];
	port_init(p, tok, where);
	set_device(p, where, tok);
	while ((tok = strtok_r(NULL, ",", &save)) != NULL) {
		char *eq = strchr(tok, '=');

		if (eq == NULL)
			die(where, "'%s': expected key=value", tok);
		*eq = '\0';
		if (strcmp(tok, "device") == 0)
			die(where, "device: the first field is the device");
		port_set(p, where, tok, eq + 1);
	}
	if (p->ipv4 == 0 && !p->has_ipv6)
		die(where, "no ip=a.b.c.d/len or ip6=addr/len");
	port_check_addr(p);
}

/* Options that override the file, applied after it is read. */
struct overrides {
	uint32_t max_qp, max_cq, max_mr;
	int echo_port;                /* -1: not given */
	bool no_echo, no_telemetry;
	unsigned int n_port_opts;
	const char *port_opts[ROCED_MAX_PORTS + 1];
};

static void
parse_opts(int argc, char **argv, struct roced_config *cfg,
	   struct overrides *o)
{
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":f:p:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			cfg->file = optarg;
			break;
		case 'p':
			if (o->n_port_opts == ROCED_MAX_PORTS)
				die("--port", "more than %d ports",
				    ROCED_MAX_PORTS);
			o->port_opts[o->n_port_opts++] = optarg;
			break;
		case OPT_MAX_QP:
			o->max_qp = need_u32("--max-qp", "value", optarg, 1,
					     1u << 20);
			break;
		case OPT_MAX_CQ:
			o->max_cq = need_u32("--max-cq", "value", optarg, 1,
					     1u << 20);
			break;
		case OPT_MAX_MR:
			o->max_mr = need_u32("--max-mr", "value", optarg, 1,
					     1u << 24);
			break;
		case OPT_ECHO_PORT:
			o->echo_port = (int)need_u32("--echo-port", "value",
						     optarg, 1, 65535);
			break;
		case OPT_NO_ECHO:
			o->no_echo = true;
			break;
		case OPT_NO_TELEMETRY:
			o->no_telemetry = true;
			break;
		case OPT_CHECK:
			cfg->check_only = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			die(NULL, "option %s needs a value (--help for usage)",
			    argv[optind - 1]);
		default:
			die(NULL, "unknown option '%s' (EAL options go before "
			    "\"--\"; --help for usage)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		die(NULL, "unexpected argument '%s' (--help for usage)",
		    argv[optind]);
}

/* Two ports may not share a name, a device or an address. */
static void
check_ports(const struct roced_config *cfg)
{
	char ip[INET_ADDRSTRLEN], ip6[INET6_ADDRSTRLEN];

	if (cfg->n_ports == 0)
		die(NULL, "no ports: give --config FILE with [port NAME] "
		    "sections, or --port (--help for usage)");
	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		const struct roced_port_cfg *a = &cfg->ports[i];

		if (a->n_lcores > a->queues)
			die(a->where, "port %s: %u lcores for %u queue(s): "
			    "give queues = N (one lcore per queue at most)",
			    a->name, a->n_lcores, a->queues);
		for (unsigned int j = 0; j < i; j++) {
			const struct roced_port_cfg *b = &cfg->ports[j];

			if (strcmp(a->name, b->name) == 0)
				die(a->where, "port name %s used twice",
				    a->name);
			if (strcmp(a->device, b->device) == 0)
				die(a->where, "device %s is port %s already",
				    a->device, b->name);
			if (a->ipv4 != 0 && a->ipv4 == b->ipv4)
				die(a->where, "address %s is port %s's already",
				    roced_ip_str(a->ipv4, ip), b->name);
			if (a->has_ipv6 && b->has_ipv6 &&
			    memcmp(a->ipv6, b->ipv6, 16) == 0)
				die(a->where, "address %s is port %s's already",
				    roced_ip6_str(a->ipv6, ip6), b->name);
		}
	}
}

static bool
eal_has(const struct roced_config *cfg, const char *opt)
{
	size_t n = strlen(opt);

	for (int i = 1; i < cfg->eal_argc; i++)
		if (strncmp(cfg->eal_argv[i], opt, n) == 0 &&
		    (cfg->eal_argv[i][n] == '\0' || cfg->eal_argv[i][n] == '='))
			return true;
	return false;
}

/* PCI ports are allowed by address; with none, the PCI bus stays off. */
static void
eal_pci(struct roced_config *cfg)
{
	bool any = false;

	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		if (!cfg->ports[i].pci)
			continue;
		any = true;
		eal_add2(cfg, cfg->ports[i].where, "--allow",
			 cfg->ports[i].device);
	}
	if (!any && !eal_has(cfg, "--no-pci") && !eal_has(cfg, "-a") &&
	    !eal_has(cfg, "--allow") && !eal_has(cfg, "-b") &&
	    !eal_has(cfg, "--block"))
		eal_add(cfg, NULL, "--no-pci");
}

void
roced_config_parse(int argc, char **argv, struct roced_config *cfg)
{
	struct overrides o = { .echo_port = -1 };
	int split = -1, n_eal;

	memset(cfg, 0, sizeof(*cfg));
	held.cfg = cfg;
	cfg->telemetry = true;
	cfg->echo = true;
	cfg->echo_port = ROCED_ECHO_PORT;
	cfg->echo_msg_size = 4096;
	cfg->echo_depth = 16;
	cfg->linger_ms = 500;
	cfg->app_heap_mb = ROCED_APP_HEAP_MB;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			split = i;
			break;
		}
	n_eal = split < 0 ? 0 : split - 1;
	/* The daemon's options: argv[0], then what follows "--". */
	{
		int n = split < 0 ? argc : argc - split;
		char **dargv = calloc((size_t)n + 1, sizeof(char *));

		if (dargv == NULL)
			die(NULL, "out of memory");
		held.dargv = dargv;
		dargv[0] = argv[0];
		for (int i = 1; i < n; i++)
			dargv[i] = argv[(split < 0 ? 0 : split) + i];
		parse_opts(n, dargv, cfg, &o);
		held.dargv = NULL;
		free(dargv);
	}
	eal_add(cfg, NULL, argv[0]);
	if (cfg->file != NULL)
		load_file(cfg);
	for (int i = 0; i < n_eal; i++)
		eal_add(cfg, "EAL arguments", argv[1 + i]);
	for (unsigned int i = 0; i < o.n_port_opts; i++)
		opt_port(cfg, o.port_opts[i]);
	if (o.max_qp != 0)
		cfg->max_qp = o.max_qp;
	if (o.max_cq != 0)
		cfg->max_cq = o.max_cq;
	if (o.max_mr != 0)
		cfg->max_mr = o.max_mr;
	if (o.echo_port >= 0)
		cfg->echo_port = (uint16_t)o.echo_port;
	if (o.no_echo)
		cfg->echo = false;
	if (o.no_telemetry)
		cfg->telemetry = false;
	check_ports(cfg);
	if (cfg->echo_depth * 2 > 16384)
		die(cfg->file, "[echo] depth too large");
	eal_pci(cfg);
	/* [eal] args and the EAL command line may name a prefix too. */
	for (int i = 1; i < cfg->eal_argc; i++) {
		const char *a = cfg->eal_argv[i];

		if (strncmp(a, "--file-prefix=", 14) == 0)
			need_file_prefix("EAL arguments", a + 14);
		else if (strcmp(a, "--file-prefix") == 0 &&
			 i + 1 < cfg->eal_argc)
			need_file_prefix("EAL arguments", cfg->eal_argv[i + 1]);
	}
	if (!cfg->telemetry && !eal_has(cfg, "--no-telemetry"))
		eal_add(cfg, NULL, "--no-telemetry");
	cfg->eal_argv[cfg->eal_argc] = NULL;
	held.cfg = NULL;
}

void
roced_config_free(struct roced_config *cfg)
{
	for (int i = 0; i < cfg->eal_argc; i++) {
		free(cfg->eal_strings[i]);
		cfg->eal_strings[i] = NULL;
		cfg->eal_argv[i] = NULL;
	}
	cfg->eal_argc = 0;
}

const char *
roced_config_file_prefix(const struct roced_config *cfg)
{
	const char *prefix = "rte";    /* the EAL's default */

	/* The last one counts, as for the EAL's getopt (original order). */
	for (int i = 1; i < cfg->eal_argc; i++) {
		const char *a = cfg->eal_strings[i];

		if (strncmp(a, "--file-prefix=", 14) == 0)
			prefix = a + 14;
		else if (strcmp(a, "--file-prefix") == 0 &&
			 i + 1 < cfg->eal_argc)
			prefix = cfg->eal_strings[++i];
	}
	return prefix;
}

void
roced_config_print(const struct roced_config *cfg, FILE *f)
{
	char ip[INET_ADDRSTRLEN], ip6[INET6_ADDRSTRLEN];

	fprintf(f, "EAL arguments:");
	for (int i = 1; i < cfg->eal_argc; i++)
		fprintf(f, " %s", cfg->eal_argv[i]);
	fprintf(f, "\nlimits: max-qp %u, max-cq %u, max-mr %u (0 = default)"
		"\ntelemetry %s; echo service %s (port %u, %u B, depth %u)"
		"\nattached applications: %u MB heap each\n",
		cfg->max_qp, cfg->max_cq, cfg->max_mr,
		cfg->telemetry ? "on" : "off", cfg->echo ? "on" : "off",
		cfg->echo_port, cfg->echo_msg_size, cfg->echo_depth,
		cfg->app_heap_mb);
	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		const struct roced_port_cfg *p = &cfg->ports[i];

		fprintf(f, "port %s: device %s%s, ip %s/%u, mtu %u, queues %u"
			", adaptive_rto %s (floor %u us), lcore ", p->name,
			p->device, p->pci ? " (PCI)" : "",
			roced_ip_str(p->ipv4, ip), p->prefix_len, p->mtu,
			p->queues, p->strict_rto ? "off" : "on",
			p->rto_floor_us != 0 ? p->rto_floor_us :
			NDK_ADAPTIVE_RTO_FLOOR_US);
		if (p->lcore < 0)
			fprintf(f, "first worker\n");
		for (unsigned int k = 0; k < p->n_lcores; k++)
			fprintf(f, "%d%s", p->lcores[k],
				k + 1 < p->n_lcores ? ":" : "\n");
		if (p->has_ipv6)
			fprintf(f, "port %s: ip6 %s/%u\n", p->name,
				roced_ip6_str(p->ipv6, ip6), p->prefix6);
		fprintf(f, "port %s: cm_retry_count %u, cm_rnr_retry_count %u"
			", qp_retry_count %u, local_ack_timeout %u%s"
			", cm_response_timeout %u, max_cm_retries %u"
			", cm_listen_backlog %u\n",
			p->name, p->cm.retry_count, p->cm.rnr_retry_count,
			p->cm.qp_retry_count, p->cm.local_ack_timeout,
			p->cm.local_ack_timeout == 0 ? " (derived)" : "",
			p->cm.cm_response_timeout, p->cm.max_cm_retries,
			p->cm.listen_backlog);
		if (p->netem_on)
			fprintf(f, "port %s: receive impaired: drop_ppm %u, "
				"dup_ppm %u, reorder_ppm %u\n", p->name,
				p->netem.drop_ppm, p->netem.dup_ppm,
				p->netem.reorder_ppm);
	}
}

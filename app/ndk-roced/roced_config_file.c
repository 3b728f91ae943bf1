/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * ndk-roced configuration: the INI file. rte_cfgfile gives no line
 * numbers and accepts some malformed lines silently, so the file is first
 * scanned line by line here: that scan rejects malformed lines, unknown
 * sections and keys and duplicates, and remembers where each key stands
 * for the messages of the value checks. Then rte_cfgfile reads it, and
 * each section's values are checked (their forms: roced_config_values.c)
 * into struct roced_config.
 */

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cfgfile.h>
#include <rte_common.h>

#include "roced.h"
#include "roced_config_priv.h"

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
		return true;  /* port keys are checked by cfg_port_set() */
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
			cfg_die(where, "a section header is [name] alone");
		*close = '\0';
		l = trim(l + 1);
		if (strlen(l) >= CFG_NAME_LEN || l[0] == '\0')
			cfg_die(where, "section name empty or too long");
		if (section_kind(l) < 0)
			cfg_die(where, "unknown section [%s] (eal, daemon, "
				"limits, log, echo, attach, port NAME)", l);
		for (unsigned int i = 0; i < scan.n; i++)
			if (strcmp(scan.pos[i].section, l) == 0 &&
			    scan.pos[i].key[0] == '\0')
				cfg_die(where, "section [%s] again (first at "
					"line %d)", l, scan.pos[i].line);
		strcpy(sec, l);
		key = (char *)"";
	} else {
		eq = strchr(l, '=');
		if (eq == NULL)
			cfg_die(where, "expected key = value, got '%s'", l);
		*eq = '\0';
		key = trim(l);
		if (sec[0] == '\0')
			cfg_die(where, "'%s' before any [section]", key);
		if (key[0] == '\0' || strlen(key) >= CFG_NAME_LEN)
			cfg_die(where, "key empty or too long");
		if (trim(eq + 1)[0] == '\0')
			cfg_die(where, "[%s] %s has no value", sec, key);
		if (strlen(trim(eq + 1)) >= CFG_VALUE_LEN)
			cfg_die(where, "[%s] %s: value longer than %d", sec,
				key, CFG_VALUE_LEN - 1);
		kind = section_kind(sec);
		if (!key_known(kind, key))
			cfg_die(where, "unknown key '%s' in [%s]", key, sec);
		for (unsigned int i = 0; i < scan.n; i++)
			if (strcmp(scan.pos[i].section, sec) == 0 &&
			    strcmp(scan.pos[i].key, key) == 0)
				cfg_die(where, "[%s] %s given twice (first at "
					"line %d)", sec, key, scan.pos[i].line);
	}
	if (scan.n == SCAN_MAX_KEYS)
		cfg_die(where, "more than %d keys", SCAN_MAX_KEYS);
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

	cfg_held.f = fopen(file, "r");
	if (cfg_held.f == NULL)
		cfg_die(NULL, "cannot read config file %s: %s", file,
			strerror(errno));
	scan.file = file;
	scan.n = 0;
	while ((n = getline(&cfg_held.line, &cap, cfg_held.f)) >= 0) {
		lineno++;
		if (n > LINE_MAX_LEN)
			cfg_die(NULL, "%s:%d: line longer than %d", file,
				lineno, LINE_MAX_LEN);
		if (memchr(cfg_held.line, '\0', (size_t)n) != NULL)
			cfg_die(NULL, "%s:%d: a NUL byte in the line (text "
				"after it would be ignored)", file, lineno);
		scan_line(cfg_held.line, lineno, sec);
	}
	free(cfg_held.line);
	cfg_held.line = NULL;
	fclose(cfg_held.f);
	cfg_held.f = NULL;
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

static const char *const log_levels[] = {
	"emergency", "alert", "critical", "error", "warning", "notice",
	"info", "debug",
};

static void
need_level(const char *where, const char *s)
{
	uint32_t n;

	if (cfg_parse_u32(s, 1, 8, &n))
		return;
	for (unsigned int i = 0; i < RTE_DIM(log_levels); i++)
		if (strcmp(s, log_levels[i]) == 0)
			return;
	cfg_die(where, "log level '%s': emergency, alert, critical, error, "
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
			cfg_eal_add2(cfg, where, strchr(v, '@') != NULL ?
				     "--lcores" : "-l", v);
		} else if (strcmp(k, "main-lcore") == 0) {
			/* The EAL gets the number in decimal, as it was read */
			snprintf(num, sizeof(num), "%u",
				 cfg_u32(where, "main-lcore", v, 0,
					 RTE_MAX_LCORE - 1));
			cfg_eal_add2(cfg, where, "--main-lcore", num);
		} else if (strcmp(k, "file-prefix") == 0) {
			cfg_check_file_prefix(where, v);
			cfg_eal_add2(cfg, where, "--file-prefix", v);
		} else if (strcmp(k, "hugepages") == 0) {
			no_huge = !cfg_bool(where, "hugepages", v);
			if (no_huge)
				cfg_eal_add(cfg, where, "--no-huge");
		} else if (strcmp(k, "memory") == 0) {
			/* the EAL reads -m with atoi(): no hex for it */
			snprintf(num, sizeof(num), "%u",
				 cfg_u32(where, "memory (MB)", v, 64,
					 1u << 20));
			cfg_eal_add2(cfg, where, "-m", num);
		} else if (strcmp(k, "in-memory") == 0) {
			in_mem = cfg_bool(where, "in-memory", v);
			if (in_mem)
				cfg_eal_add(cfg, where, "--in-memory");
		} else if (strcmp(k, "huge-dir") == 0) {
			cfg_eal_add2(cfg, where, "--huge-dir", v);
		} else if (strcmp(k, "args") == 0) {
			char buf[CFG_VALUE_LEN];

			strcpy(buf, v);
			for (char *t = strtok(buf, " \t"); t != NULL;
			     t = strtok(NULL, " \t"))
				cfg_eal_add(cfg, where, t);
		}
	}
	if (no_huge && in_mem)
		cfg_die(scan.file, "[eal] hugepages = no and in-memory = yes "
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
	return cfg_u32(where_key(sec, key, v, where, sizeof(where)), key, v,
		       lo, hi);
}

static bool
file_bool(struct rte_cfgfile *f, const char *sec, const char *key, bool def)
{
	const char *v = rte_cfgfile_get_entry(f, sec, key);
	char where[ROCED_DEV_LEN * 2];

	if (v == NULL)
		return def;
	return cfg_bool(where_key(sec, key, v, where, sizeof(where)), key,
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
		cfg_eal_add(cfg, where, arg);
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
			cfg_die(where, "more than %d ports", ROCED_MAX_PORTS);
		p = &cfg->ports[cfg->n_ports++];
		cfg_port_init(p, trim((char *)(uintptr_t)sec + 5), where);
		n = rte_cfgfile_section_entries(f, sec, e, RTE_DIM(e));
		for (int k = 0; k < n; k++)
			cfg_port_set(p, where_key(sec, e[k].name, e[k].value,
						  where, sizeof(where)),
				 e[k].name, e[k].value);
		snprintf(where, sizeof(where), "%s:%d: [%s]", scan.file,
			 scan.pos[i].line, sec);
		if (p->device[0] == '\0')
			cfg_die(where, "no device (an ethdev name, devargs or "
				"a PCI address)");
		if (p->ipv4 == 0 && !p->has_ipv6)
			cfg_die(where, "no ip (a.b.c.d/len) or ip6 (addr/len)");
		cfg_port_check_addr(p);
	}
}

void
cfg_load_file(struct roced_config *cfg)
{
	struct rte_cfgfile *f;

	scan_file(cfg->file);
	f = rte_cfgfile_load(cfg->file, 0);
	if (f == NULL)
		cfg_die(NULL, "%s: rte_cfgfile could not load it", cfg->file);
	cfg_held.cfgfile = f;
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
	cfg_held.cfgfile = NULL;
	rte_cfgfile_close(f);
}

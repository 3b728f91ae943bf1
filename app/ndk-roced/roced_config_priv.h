/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef ROCED_CONFIG_PRIV_H
#define ROCED_CONFIG_PRIV_H

/*
 * What the configuration parser's three files share, and nothing else
 * includes: roced_config.c (entry points, command line, the refusal),
 * roced_config_file.c (the INI file) and roced_config_values.c (the forms
 * of values, a port's keys). Every check that fails calls cfg_die(),
 * which never returns; @p where is the place it names ("file:line:
 * [section] key = value", "--port SPEC", ...; NULL or "" for none).
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>

#include "roced.h"

struct rte_cfgfile;

/*
 * What a parse holds while it runs, released by cfg_die() before it
 * exits (roced_config.c).
 */
struct cfg_held {
	FILE *f;                     /* the file the line scan reads */
	char *line;                  /* its getline() buffer */
	struct rte_cfgfile *cfgfile; /* cfg_load_file()'s */
	char **dargv;                /* roced_config_parse()'s */
	struct roced_config *cfg;    /* its EAL strings */
};

extern struct cfg_held cfg_held;

/* roced_config.c */

/* Print "ndk-roced: WHERE: message", release what is held, exit(2). */
void cfg_die(const char *where, const char *fmt, ...)
	__rte_format_printf(2, 3) __rte_noreturn;

/* Release what cfg_held holds (cfg_die()). */
void cfg_release(void);

/* Append @p arg to the EAL arguments. */
void cfg_eal_add(struct roced_config *cfg, const char *where,
		 const char *arg);

/* Append option @p opt with @p val ("--opt=val", or "-o" "val"). */
void cfg_eal_add2(struct roced_config *cfg, const char *where,
		  const char *opt, const char *val);

/* roced_config_file.c */

/* Scan, check and read cfg->file into @p cfg. */
void cfg_load_file(struct roced_config *cfg);

/* roced_config_values.c */

/*
 * A number in its one form (decimal without a leading zero, or hex after
 * 0x) within [@p lo, @p hi]. @return false if @p s is not one.
 */
bool cfg_parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out);

/* cfg_parse_u32(), or refused as "WHAT 'S': not a whole number ...". */
uint32_t cfg_u32(const char *where, const char *what, const char *s,
		 uint32_t lo, uint32_t hi);

/* yes/no, on/off, true/false, 1/0; anything else refused. */
bool cfg_bool(const char *where, const char *what, const char *s);

/* A file prefix: a name, not a path (refused otherwise). */
void cfg_check_file_prefix(const char *where, const char *s);

/* A port named @p name with every key at its default. */
void cfg_port_init(struct roced_port_cfg *p, const char *name,
		   const char *where);

/* One key of a port, from the file or a --port option. */
void cfg_port_set(struct roced_port_cfg *p, const char *where,
		  const char *key, const char *val);

/* The port's device (an ethdev name, devargs or a PCI address). */
void cfg_device(struct roced_port_cfg *p, const char *where, const char *s);

/* The port's IPv4 address with its prefix, once all its keys are read. */
void cfg_port_check_addr(const struct roced_port_cfg *p);

#endif /* ROCED_CONFIG_PRIV_H */

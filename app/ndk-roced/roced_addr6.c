/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * ndk-roced: a port's IPv6 address (the `ip6` key): parsing and checks,
 * apart from roced_config.c, which reports the refusals with their place.
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roced.h"

const char *
roced_ip6_parse(struct roced_port_cfg *p, const char *s)
{
	static const uint8_t loop[16] = { [15] = 1 };
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	char buf[INET6_ADDRSTRLEN + 8];
	unsigned long len = 64;
	uint8_t a[16];
	char *slash, *end;

	if (strlen(s) >= sizeof(buf))
		return "too long";
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash != NULL) {
		*slash = '\0';
		len = strtoul(slash + 1, &end, 10);
		if (slash[1] == '\0' || *end != '\0' || len < 1 || len > 127)
			return "the prefix length is not 1..127 (/128 leaves no "
				"peer on the link)";
	}
	if (inet_pton(AF_INET6, buf, a) != 1)
		return "not an IPv6 address";
	if (a[0] == 0xff || memcmp(a, loop, 16) == 0 ||
	    memcmp(a, mapped, sizeof(mapped)) == 0 ||
	    memcmp(a, (const uint8_t[16]){ 0 }, 16) == 0)
		return "not a unicast host address (::, ::1, multicast and "
			"IPv4-mapped addresses are not)";
	memcpy(p->ipv6, a, sizeof(p->ipv6));
	p->has_ipv6 = true;
	p->prefix6 = (uint8_t)len;
	return NULL;
}

const char *
roced_ip6_str(const uint8_t ip6[16], char *buf)
{
	if (inet_ntop(AF_INET6, ip6, buf, INET6_ADDRSTRLEN) == NULL)
		snprintf(buf, INET6_ADDRSTRLEN, "?");
	return buf;
}

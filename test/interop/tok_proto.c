/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The control protocol of the tokens_rxe test: line I/O over a TCP socket,
 * key=value parsing and the test pattern (tok_proto.h). Built into both the
 * host program and the guest's verbs program.
 */

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "tok_proto.h"

void
tok_fill(void *p, size_t n, uint32_t seed, uint64_t i0)
{
	uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		b[i] = tok_pattern_byte(seed, i0 + i);
}

long
tok_diff(const void *p, size_t n, uint32_t seed, uint64_t i0)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != tok_pattern_byte(seed, i0 + i))
			return (long)i;
	return -1;
}

int
tok_send_line(int fd, const char *fmt, ...)
{
	char line[TOK_LINE_MAX];
	size_t put = 0, len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line) - 1) {
		errno = EMSGSIZE;
		return -1;
	}
	line[n] = '\n';
	len = (size_t)n + 1;
	while (put < len) {
		/* MSG_NOSIGNAL: a peer that left is an error, not SIGPIPE. */
		ssize_t k = send(fd, line + put, len - put, MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		put += (size_t)k;
	}
	return 0;
}

static int64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Byte by byte: the protocol alternates strictly, so nothing after the
 * newline may be consumed, and the lines are few.
 */
int
tok_recv_line(int fd, char *buf, size_t size, int timeout_ms)
{
	int64_t end = mono_ms() + timeout_ms;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t got = 0;

	for (;;) {
		int64_t left = end - mono_ms();
		ssize_t k;
		char c;
		int rc;

		if (left < 0)
			left = 0;
		rc = poll(&p, 1, (int)left);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			return -1;
		if (rc == 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		k = recv(fd, &c, 1, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0) {
			errno = EPIPE;
			return -1;
		}
		if (c == '\n')
			break;
		if (got + 1 >= size) {
			errno = EMSGSIZE;
			return -1;
		}
		buf[got++] = c;
	}
	if (got > 0 && buf[got - 1] == '\r')
		got--;
	buf[got] = '\0';
	return (int)got;
}

/* Start of the value of @p key in @p line, or NULL. */
static const char *
kv_find(const char *line, const char *key)
{
	size_t klen = strlen(key);
	const char *p = strchr(line, ' ');

	while (p != NULL) {
		while (*p == ' ')
			p++;
		if (strncmp(p, key, klen) == 0 && p[klen] == '=')
			return p + klen + 1;
		p = strchr(p, ' ');
	}
	return NULL;
}

bool
tok_kv_str(const char *line, const char *key, char *out, size_t size)
{
	const char *v = kv_find(line, key);
	size_t n;

	if (v == NULL || size == 0)
		return false;
	n = strcspn(v, " ");
	if (n >= size)
		n = size - 1;
	memcpy(out, v, n);
	out[n] = '\0';
	return true;
}

/*
 * A number of @p line: signed (into *sv) or unsigned (into *uv); neither
 * is touched unless the whole value parses.
 */
static bool
kv_number(const char *line, const char *key, int64_t *sv, uint64_t *uv)
{
	char buf[32], *end;
	long long s = 0;
	unsigned long long u = 0;

	if (!tok_kv_str(line, key, buf, sizeof(buf)) || buf[0] == '\0' ||
	    (uv != NULL && buf[0] == '-'))
		return false;
	errno = 0;
	if (sv != NULL)
		s = strtoll(buf, &end, 0);
	else
		u = strtoull(buf, &end, 0);
	if (errno != 0 || *end != '\0')
		return false;
	if (sv != NULL)
		*sv = s;
	else
		*uv = u;
	return true;
}

bool
tok_kv_i64(const char *line, const char *key, int64_t *v)
{
	return kv_number(line, key, v, NULL);
}

bool
tok_kv_u64(const char *line, const char *key, uint64_t *v)
{
	return kv_number(line, key, NULL, v);
}

bool
tok_is_verb(const char *line, const char *verb)
{
	size_t n = strlen(verb);

	return strncmp(line, verb, n) == 0 &&
		(line[n] == '\0' || line[n] == ' ');
}

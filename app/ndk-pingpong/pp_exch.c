/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The out-of-band exchange of ibv_rc_pingpong, wire-compatible with it:
 *
 *   client -> server  "LLLL:QQQQQQ:PPPPPP:GGGG...GGGG\0"   (52 bytes)
 *   server -> client  the same, after the server connected its QP
 *   client -> server  "done\0"                             (5 bytes)
 *
 * LID, QPN and PSN in lower-case hex, zero-padded to 4, 6 and 6 digits;
 * the GID as 32 hex digits in wire (byte) order. ibv_srq_pingpong sends
 * PP_SRQ_TABLE (256) such messages each way instead of one, whatever its
 * -q: its first num_qp are its QPs, the rest all zeros. ibv_rc_pingpong then
 * closes the socket; ndk-pingpong keeps it for a closing handshake (one
 * "fin\0" each way, see ndk_pingpong.c) and falls back gracefully when the
 * peer is an ibv_rc_pingpong that has gone.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pingpong.h"

#define PP_MSG_LEN (sizeof("0000:000000:000000:" \
			   "00000000000000000000000000000000"))
#define PP_DONE_MSG "done"
#define PP_DONE_LEN (sizeof(PP_DONE_MSG))

static const uint8_t v4_mapped_prefix[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
};

void
pp_gid_from_ipv4(uint8_t gid[16], uint32_t ipv4)
{
	memcpy(gid, v4_mapped_prefix, sizeof(v4_mapped_prefix));
	memcpy(gid + 12, &ipv4, 4);
}

int
pp_gid_to_ipv4(const uint8_t gid[16], uint32_t *ipv4)
{
	if (memcmp(gid, v4_mapped_prefix, sizeof(v4_mapped_prefix)) != 0)
		return -1;
	memcpy(ipv4, gid + 12, 4);
	return *ipv4 != 0 ? 0 : -1;
}

void
pp_print_dest(const char *which, const struct pp_dest *d)
{
	char gid[INET6_ADDRSTRLEN];

	if (inet_ntop(AF_INET6, d->gid, gid, sizeof(gid)) == NULL)
		snprintf(gid, sizeof(gid), "?");
	printf("  %s LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s\n", which,
	       d->lid, d->qpn, d->psn, gid);
}

/* ------------------------------------------------------------------ */
/* Messages                                                            */
/* ------------------------------------------------------------------ */

static void
dest_format(const struct pp_dest *d, char msg[PP_MSG_LEN])
{
	int n = snprintf(msg, PP_MSG_LEN, "%04x:%06x:%06x:", d->lid & 0xffff,
			 d->qpn & 0xffffff, d->psn & 0xffffff);

	for (unsigned int i = 0; i < 16; i++)
		n += snprintf(msg + n, PP_MSG_LEN - (size_t)n, "%02x",
			      d->gid[i]);
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* @p n hex digits at @p s. @return 0 or -1. */
static int
hexfield(const char *s, unsigned int n, uint32_t *out)
{
	uint32_t v = 0;

	for (unsigned int i = 0; i < n; i++) {
		int h = hexval(s[i]);

		if (h < 0)
			return -1;
		v = v << 4 | (uint32_t)h;
	}
	*out = v;
	return 0;
}

static int
dest_parse(const char msg[PP_MSG_LEN], struct pp_dest *d)
{
	uint32_t b;

	if (msg[4] != ':' || msg[11] != ':' || msg[18] != ':' ||
	    msg[PP_MSG_LEN - 1] != '\0' ||
	    hexfield(msg, 4, &d->lid) != 0 ||
	    hexfield(msg + 5, 6, &d->qpn) != 0 ||
	    hexfield(msg + 12, 6, &d->psn) != 0)
		return -1;
	for (unsigned int i = 0; i < 16; i++) {
		if (hexfield(msg + 19 + 2 * i, 2, &b) != 0)
			return -1;
		d->gid[i] = (uint8_t)b;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Socket helpers                                                      */
/* ------------------------------------------------------------------ */

/* @return bytes read: @p len, less on EOF, -1 on error. */
static ssize_t
read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = recv(fd, (char *)buf + got, len - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static int
write_full(int fd, const void *buf, size_t len)
{
	size_t put = 0;

	while (put < len) {
		/* MSG_NOSIGNAL: a peer that closed is an error, not SIGPIPE. */
		ssize_t n = send(fd, (const char *)buf + put, len - put,
				 MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		put += (size_t)n;
	}
	return 0;
}

static int
bind_local(int fd, const char *addr)
{
	struct sockaddr_in sin;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1)
		return -1;
	return bind(fd, (struct sockaddr *)&sin, sizeof(sin));
}

/* Our @p n addresses. @return 0 or -1 (reason printed). */
static int
dests_send(int fd, const struct pp_dest *my, uint32_t n)
{
	char msg[PP_MSG_LEN];

	for (uint32_t i = 0; i < n; i++) {
		dest_format(&my[i], msg);
		if (write_full(fd, msg, sizeof(msg)) != 0) {
			fprintf(stderr, "Couldn't send local address %u: %s\n",
				i, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* The peer's @p n addresses. @return 0 or -1 (reason printed). */
static int
dests_recv(int fd, struct pp_dest *rem, uint32_t n, const char *peer)
{
	char msg[PP_MSG_LEN];
	ssize_t got;

	for (uint32_t i = 0; i < n; i++) {
		got = read_full(fd, msg, sizeof(msg));
		if (got != (ssize_t)sizeof(msg)) {
			fprintf(stderr, "%zd/%zu: Couldn't read remote address "
				"%u (the %s closed the connection: did it fail, "
				"or is it the other pingpong?)\n", got,
				sizeof(msg), i, peer);
			return -1;
		}
		if (dest_parse(msg, &rem[i]) != 0) {
			fprintf(stderr, "Malformed address %u from the %s: "
				"'%.*s'\n", i, peer, (int)sizeof(msg) - 1, msg);
			return -1;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Client                                                              */
/* ------------------------------------------------------------------ */

int
pp_client_exch(const struct pp_opts *o, const struct pp_dest *my,
	       struct pp_dest *rem, uint32_t n)
{
	struct addrinfo hints, *res, *t;
	char service[8];
	int fd = -1, rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = o->tcp_bind != NULL ? AF_INET : AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(service, sizeof(service), "%u", o->tcp_port);
	rc = getaddrinfo(o->servername, service, &hints, &res);
	if (rc != 0) {
		fprintf(stderr, "%s for %s:%u\n", gai_strerror(rc),
			o->servername, o->tcp_port);
		return -1;
	}
	for (t = res; t != NULL; t = t->ai_next) {
		fd = socket(t->ai_family, t->ai_socktype, t->ai_protocol);
		if (fd < 0)
			continue;
		if ((o->tcp_bind == NULL || bind_local(fd, o->tcp_bind) == 0) &&
		    connect(fd, t->ai_addr, t->ai_addrlen) == 0)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		fprintf(stderr, "Couldn't connect to %s:%u: %s\n",
			o->servername, o->tcp_port, strerror(errno));
		return -1;
	}

	if (dests_send(fd, my, n) != 0 ||
	    dests_recv(fd, rem, n, "server") != 0)
		goto fail;
	if (write_full(fd, PP_DONE_MSG, PP_DONE_LEN) != 0) {
		fprintf(stderr, "Couldn't write \"done\": %s\n",
			strerror(errno));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

/* ------------------------------------------------------------------ */
/* Server                                                              */
/* ------------------------------------------------------------------ */

static int
server_listen(const struct pp_opts *o)
{
	struct addrinfo hints, *res, *t;
	char service[8];
	int fd = -1, rc, one = 1;

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = AI_PASSIVE;
	hints.ai_family = o->tcp_bind != NULL ? AF_INET : AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(service, sizeof(service), "%u", o->tcp_port);
	rc = getaddrinfo(o->tcp_bind, service, &hints, &res);
	if (rc != 0) {
		fprintf(stderr, "%s for port %u\n", gai_strerror(rc),
			o->tcp_port);
		return -1;
	}
	for (t = res; t != NULL; t = t->ai_next) {
		fd = socket(t->ai_family, t->ai_socktype, t->ai_protocol);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, t->ai_addr, t->ai_addrlen) == 0 &&
		    listen(fd, 1) == 0)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		fprintf(stderr, "Couldn't listen to port %u: %s\n",
			o->tcp_port, strerror(errno));
	return fd;
}

int
pp_server_exch(const struct pp_opts *o, const struct pp_dest *my,
	       struct pp_dest *rem, uint32_t n, pp_connect_fn connect_qp,
	       void *arg)
{
	char msg[PP_DONE_LEN];
	int lfd, fd;

	lfd = server_listen(o);
	if (lfd < 0)
		return -1;
	do {
		fd = accept(lfd, NULL, NULL);
	} while (fd < 0 && errno == EINTR);
	close(lfd);
	if (fd < 0) {
		fprintf(stderr, "accept() failed: %s\n", strerror(errno));
		return -1;
	}

	if (dests_recv(fd, rem, n, "client") != 0)
		goto fail;
	/* Like ibv_rc_pingpong: connect before answering. */
	if (connect_qp(arg, rem) != 0) {
		fprintf(stderr, "Couldn't connect to remote QP\n");
		goto fail;
	}
	if (dests_send(fd, my, n) != 0)
		goto fail;
	/* Exactly "done\0": anything after it is the closing handshake. */
	if (read_full(fd, msg, PP_DONE_LEN) != (ssize_t)PP_DONE_LEN) {
		fprintf(stderr, "Couldn't read \"done\" from the client\n");
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

/* ------------------------------------------------------------------ */
/* Closing handshake                                                   */
/* ------------------------------------------------------------------ */

int
pp_fin_send(int fd)
{
	return write_full(fd, PP_FIN_MSG, PP_FIN_LEN);
}

int
pp_fin_poll(int fd, struct pp_fin_rx *rx, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;
	int rc;

	while (rx->got < PP_FIN_LEN) {
		rc = poll(&p, 1, timeout_ms);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			return -1;
		if (rc == 0)
			return 0;
		n = recv(fd, rx->buf + rx->got, PP_FIN_LEN - rx->got,
			 MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return -1;
		rx->got += (uint32_t)n;
	}
	return memcmp(rx->buf, PP_FIN_MSG, PP_FIN_LEN) == 0 ? 1 : -1;
}

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
pp_wait_eof(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int64_t end = now_ms() + timeout_ms;
	char scratch[64];

	for (;;) {
		int64_t left = end - now_ms();
		ssize_t n;
		int rc;

		if (left <= 0)
			return -1;
		rc = poll(&p, 1, (int)left);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0)
			return -1;
		n = recv(fd, scratch, sizeof(scratch), MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno == ECONNRESET))
			return 0;
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			return -1;
	}
}

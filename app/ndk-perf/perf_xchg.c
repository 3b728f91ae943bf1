/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * perftest's "Ethernet" data exchange over TCP, reimplemented from its
 * documented wire behaviour (no perftest code): every message has a fixed
 * size, the client (the side given a server address) writes first and
 * the server reads first, and each message is one write(2) because
 * perftest reads each with a single read(2) of exactly that size.
 *
 *   versions      16 B  NUL-padded version string ("6.06")
 *   page size      4 B  big-endian int   \ only if the peer's
 *   cache line     4 B  big-endian int   / version >= 5.32
 *   MTU            2 B  "%d" of enum ibv_mtu (1..5), 4 B before 5.31
 *   keys         108 B  "%04x:%04x:%06x:%06x:%08x:%016llx:" LID, out_reads,
 *                       QPN, PSN, RKey, VAddr, then 16 x "%02x:" GID bytes
 *                       and "%08x:" SRQN, NUL-terminated
 *   BW report    8+8+8+8+8 B  size, iters (4 B before 5.33), peak, average,
 *                       message rate; integers big-endian, doubles
 *                       byte-swapped
 *   close        a key message each way, then 5 B "done\0"
 *
 * After "done" ndk-perf adds an ordering of its own, harmless to perftest
 * (which has closed by then): the server stops its port and then closes
 * the connection; the client stops its port only once it saw that (see
 * perf_main.c), so a memif link is never torn down from both ends at once.
 *
 * While a message is awaited the idle callback runs (the adapter must be
 * polled when no lcore polls it: the peer may be moving data through us).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "perf.h"

#define XCHG_CONNECT_RETRY_S 10
#define XCHG_DONE_WAIT_MS 2000
#define XCHG_IDLE_ROUNDS 256

static double
xchg_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
xchg_nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int
perf_xchg_open(struct perf_xchg *x, const char *servername, uint16_t port)
{
	struct addrinfo hints, *res = NULL, *t;
	char service[8];
	int fd = -1, rc;

	memset(x, 0, sizeof(*x));
	x->fd = -1;
	x->server = servername == NULL;
	snprintf(service, sizeof(service), "%u", port);
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	if (x->server)
		hints.ai_flags = AI_PASSIVE;
	rc = getaddrinfo(servername, service, &hints, &res);
	if (rc != 0) {
		fprintf(stderr, "%s for %s:%u\n", gai_strerror(rc),
			servername != NULL ? servername : "*", port);
		return -1;
	}

	if (x->server) {
		int lfd = -1, one = 1;

		for (t = res; t != NULL; t = t->ai_next) {
			lfd = socket(t->ai_family, t->ai_socktype,
				     t->ai_protocol);
			if (lfd < 0)
				continue;
			setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one,
				   sizeof(one));
			if (bind(lfd, t->ai_addr, t->ai_addrlen) == 0)
				break;
			close(lfd);
			lfd = -1;
		}
		freeaddrinfo(res);
		if (lfd < 0 || listen(lfd, 1) != 0) {
			fprintf(stderr, "Couldn't listen to port %u\n", port);
			if (lfd >= 0)
				close(lfd);
			return -1;
		}
		do {
			fd = accept(lfd, NULL, NULL);
		} while (fd < 0 && errno == EINTR);
		close(lfd);
		if (fd < 0) {
			perror("server accept");
			return -1;
		}
	} else {
		double end = xchg_now() + XCHG_CONNECT_RETRY_S;

		for (;;) {
			for (t = res; t != NULL; t = t->ai_next) {
				fd = socket(t->ai_family, t->ai_socktype,
					    t->ai_protocol);
				if (fd < 0)
					continue;
				if (connect(fd, t->ai_addr, t->ai_addrlen) == 0)
					break;
				close(fd);
				fd = -1;
			}
			if (fd >= 0 || xchg_now() > end)
				break;
			usleep(100 * 1000);
		}
		freeaddrinfo(res);
		if (fd < 0) {
			fprintf(stderr, "Couldn't connect to %s:%u\n",
				servername, port);
			return -1;
		}
	}
	xchg_nodelay(fd);
	x->fd = fd;
	return 0;
}

void
perf_xchg_close(struct perf_xchg *x)
{
	if (x->fd >= 0)
		close(x->fd);
	x->fd = -1;
}

/* One message, one write. */
static int
xchg_write(struct perf_xchg *x, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (x->msg_send != NULL)
		return x->msg_send(x->msg_arg, buf, len);
	while (len > 0) {
		ssize_t n = send(x->fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			perror("client write");
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Read exactly @p len bytes, running the idle callback while nothing has
 * arrived. @p timeout_ms < 0 waits forever.
 * @return 0, -1 on error, 1 on end of stream, 2 on timeout.
 */
static int
xchg_read(struct perf_xchg *x, void *buf, size_t len, int timeout_ms)
{
	uint8_t *p = buf;
	double end = timeout_ms < 0 ? 0 : xchg_now() + timeout_ms / 1000.0;

	if (x->msg_recv != NULL)
		return x->msg_recv(x->msg_arg, buf, len, timeout_ms);
	while (len > 0) {
		ssize_t n = recv(x->fd, p, len, MSG_DONTWAIT);

		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n == 0)
			return 1;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return errno == ECONNRESET ? 1 : -1;
		if (timeout_ms >= 0 && xchg_now() > end)
			return 2;
		if (x->idle != NULL) {
			for (int i = 0; i < XCHG_IDLE_ROUNDS; i++)
				x->idle(x->idle_arg);
		} else {
			struct pollfd pfd = { .fd = x->fd, .events = POLLIN };

			poll(&pfd, 1, 100);
		}
	}
	return 0;
}

/* ctx_xchg_data: the client writes then reads, the server the reverse. */
static int
xchg_data(struct perf_xchg *x, const void *mine, void *theirs, size_t len)
{
	int rc;

	if (!x->server && xchg_write(x, mine, len) != 0)
		return -1;
	rc = xchg_read(x, theirs, len, -1);
	if (rc != 0) {
		fprintf(stderr, rc == 1 ? " The peer closed the connection\n" :
			" Couldn't read from the peer\n");
		return -1;
	}
	if (x->server && xchg_write(x, mine, len) != 0)
		return -1;
	return 0;
}

/* enum ibv_mtu of a byte count (256 -> 1 .. 4096 -> 5), 0 if none. */
static int
xchg_mtu_enum(unsigned int bytes)
{
	for (int e = 1; e <= 5; e++)
		if (bytes == 128u << e)
			return e;
	return 0;
}

int
perf_xchg_start(struct perf_xchg *x, unsigned int *mtu)
{
	char mine[PERF_VERSION_LEN], theirs[PERF_VERSION_LEN];

	memset(mine, 0, sizeof(mine));
	strncpy(mine, PERF_VERSION, sizeof(mine) - 1);
	if (xchg_data(x, mine, theirs, sizeof(theirs)) != 0) {
		fprintf(stderr, " Failed to exchange data between server and "
			"clients\n");
		return -1;
	}
	memcpy(x->rem_version_str, theirs, PERF_VERSION_LEN);
	x->rem_version_str[PERF_VERSION_LEN] = '\0';
	x->rem_version = atof(x->rem_version_str);
	if (x->rem_version < 5.70) {
		fprintf(stderr, "Current implementation is not compatible with "
			"versions older than 5.70 (peer: \"%s\")\n",
			x->rem_version_str);
		return -1;
	}

	/* check_sys_data: the larger page and cache line sizes win. */
	if (x->rem_version >= 5.32) {
		uint32_t v[2] = { htonl(4096), htonl(64) }, r[2];

		if (xchg_data(x, &v[0], &r[0], 4) != 0 ||
		    xchg_data(x, &v[1], &r[1], 4) != 0) {
			fprintf(stderr, " Failed to exchange Page Size data "
				"between server and client\n");
			return -1;
		}
	}

	/* check_mtu: each side takes the smaller of both. */
	if (x->rem_version >= 5.1) {
		char cur[4] = { 0 }, rem[4] = { 0 };
		size_t len = x->rem_version >= 5.31 ? 2 : 4;
		int e = xchg_mtu_enum(*mtu), re;

		snprintf(cur, sizeof(cur), "%d", e);
		if (xchg_data(x, cur, rem, len) != 0) {
			fprintf(stderr, " Failed to exchange data between "
				"server and clients\n");
			return -1;
		}
		rem[sizeof(rem) - 1] = '\0';
		re = (int)strtol(rem, NULL, 10);
		if (re >= 1 && re <= 5 && re < e)
			*mtu = 128u << re;
	}
	return 0;
}

static void
xchg_format_keys(const struct perf_dest *d, char msg[PERF_KEY_MSG_LEN])
{
	const uint8_t *g = d->gid;

	memset(msg, 0, PERF_KEY_MSG_LEN);
	snprintf(msg, PERF_KEY_MSG_LEN,
		 "%04x:%04x:%06x:%06x:%08x:%016llx:"
		 "%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:"
		 "%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:%08x:",
		 d->lid & 0xffff, d->out_reads & 0xffff, d->qpn & 0xffffff,
		 d->psn & 0xffffff, d->rkey, (unsigned long long)d->vaddr,
		 g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9],
		 g[10], g[11], g[12], g[13], g[14], g[15], d->srqn);
}

/* Parse a key message: 23 colon-terminated hexadecimal fields. */
static int
xchg_parse_keys(const char msg[PERF_KEY_MSG_LEN], struct perf_dest *d)
{
	unsigned long long f[23];
	const char *p = msg;

	for (int i = 0; i < 23; i++) {
		char *end;

		if (p >= msg + PERF_KEY_MSG_LEN)
			return -1;
		f[i] = strtoull(p, &end, 16);
		if (end == p || *end != ':')
			return -1;
		p = end + 1;
	}
	d->lid = (uint32_t)f[0];
	d->out_reads = (uint32_t)f[1];
	d->qpn = (uint32_t)f[2];
	d->psn = (uint32_t)f[3];
	d->rkey = (uint32_t)f[4];
	d->vaddr = f[5];
	for (int i = 0; i < 16; i++)
		d->gid[i] = (uint8_t)f[6 + i];
	d->srqn = (uint32_t)f[22];
	return 0;
}

static void
xchg_put32(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

static uint32_t
xchg_get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

/*
 * -R's key message: struct pingpong_dest as perftest sends it over
 * rdma_cm (x86-64 layout, fields big-endian): lid, out_reads, qpn, psn,
 * rkey, 4 bytes of padding, vaddr, GID, srqn, gid_index.
 */
static void
xchg_format_cm_keys(const struct perf_dest *d, uint8_t m[PERF_CM_KEYS_LEN])
{
	memset(m, 0, PERF_CM_KEYS_LEN);
	xchg_put32(m + 0, d->lid);
	xchg_put32(m + 4, d->out_reads);
	xchg_put32(m + 8, d->qpn);
	xchg_put32(m + 12, d->psn);
	xchg_put32(m + 16, d->rkey);
	xchg_put32(m + 24, (uint32_t)(d->vaddr >> 32));
	xchg_put32(m + 28, (uint32_t)d->vaddr);
	memcpy(m + 32, d->gid, 16);
	xchg_put32(m + 48, d->srqn);
}

static void
xchg_parse_cm_keys(const uint8_t m[PERF_CM_KEYS_LEN], struct perf_dest *d)
{
	d->lid = xchg_get32(m + 0);
	d->out_reads = xchg_get32(m + 4);
	d->qpn = xchg_get32(m + 8);
	d->psn = xchg_get32(m + 12);
	d->rkey = xchg_get32(m + 16);
	d->vaddr = (uint64_t)xchg_get32(m + 24) << 32 | xchg_get32(m + 28);
	memcpy(d->gid, m + 32, 16);
	d->srqn = xchg_get32(m + 48);
}

int
perf_xchg_keys(struct perf_xchg *x, const struct perf_dest *my,
	       struct perf_dest *rem)
{
	char out[PERF_KEY_MSG_LEN], in[PERF_KEY_MSG_LEN];

	if (x->msg_send != NULL) {
		uint8_t bout[PERF_CM_KEYS_LEN], bin[PERF_CM_KEYS_LEN];

		xchg_format_cm_keys(my, bout);
		if (xchg_data(x, bout, bin, sizeof(bin)) != 0) {
			fprintf(stderr, " Failed to exchange data between "
				"server and clients\n");
			return -1;
		}
		xchg_parse_cm_keys(bin, rem);
		return 0;
	}
	xchg_format_keys(my, out);
	if (xchg_data(x, out, in, sizeof(in)) != 0) {
		fprintf(stderr, " Failed to exchange data between server and "
			"clients\n");
		return -1;
	}
	if (xchg_parse_keys(in, rem) != 0) {
		fprintf(stderr, "Couldn't parse line <%.*s>\n",
			(int)sizeof(in), in);
		return -1;
	}
	return 0;
}

static uint64_t
xchg_bswap_double(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return __builtin_bswap64(u);
}

static double
xchg_double(uint64_t wire)
{
	uint64_t u = __builtin_bswap64(wire);
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

int
perf_xchg_bw_reports(struct perf_xchg *x, const struct perf_bw_rep *my,
		     struct perf_bw_rep *rem)
{
	uint64_t out[5], in[5] = { 0 };
	size_t iters_len = x->rem_version >= 5.33 ? 8 : 4;
	uint32_t iters32 = htonl((uint32_t)my->iters), riters32 = 0;
	int rc = 0;

	out[0] = __builtin_bswap64(my->size);
	out[1] = __builtin_bswap64(my->iters);
	out[2] = xchg_bswap_double(my->bw_peak);
	out[3] = xchg_bswap_double(my->bw_avg);
	out[4] = xchg_bswap_double(my->msg_rate);

	rc |= xchg_data(x, &out[0], &in[0], 8);
	if (rc == 0 && iters_len == 8)
		rc |= xchg_data(x, &out[1], &in[1], 8);
	else if (rc == 0)
		rc |= xchg_data(x, &iters32, &riters32, 4);
	for (int i = 2; i < 5 && rc == 0; i++)
		rc |= xchg_data(x, &out[i], &in[i], 8);
	if (rc != 0) {
		fprintf(stderr, " Failed to exchange data between server and "
			"clients\n");
		return -1;
	}
	rem->size = __builtin_bswap64(in[0]);
	rem->iters = iters_len == 8 ? __builtin_bswap64(in[1]) :
		ntohl(riters32);
	rem->bw_peak = xchg_double(in[2]);
	rem->bw_avg = xchg_double(in[3]);
	rem->msg_rate = xchg_double(in[4]);
	return 0;
}

int
perf_xchg_finish(struct perf_xchg *x, const struct perf_dest *my,
		 void (*quiesce)(void *), void *arg, bool eof_ok)
{
	char out[PERF_KEY_MSG_LEN], in[PERF_KEY_MSG_LEN];
	char done[5] = "done", theirs[5];
	int rc;

	/*
	 * The handshake: we keep polling while the peer finishes (it may
	 * still be moving data through us).
	 */
	if (x->msg_send != NULL) {
		/* -R: the handshake alone (ctx_close_connection); the end
		 * is the CM's (perf_cm_end()), nothing quiesced here. */
		uint8_t bout[PERF_CM_KEYS_LEN], bin[PERF_CM_KEYS_LEN];

		xchg_format_cm_keys(my, bout);
		if (!x->server && xchg_write(x, bout, sizeof(bout)) != 0 &&
		    !eof_ok)
			goto fail;
		rc = xchg_read(x, bin, sizeof(bin), -1);
		if (rc == 1 && eof_ok)
			return 0;       /* write_lat: the peer just left */
		if (rc != 0 || (x->server &&
				xchg_write(x, bout, sizeof(bout)) != 0))
			goto fail;
		return 0;
	}
	xchg_format_keys(my, out);
	if (!x->server && xchg_write(x, out, sizeof(out)) != 0 && !eof_ok)
		goto fail;
	rc = xchg_read(x, in, sizeof(in), -1);
	if (rc == 1 && eof_ok) {
		/* perftest's write_lat just exits: that is its "done". */
		if (quiesce != NULL)
			quiesce(arg);
		x->idle = NULL;
		return 0;
	}
	if (rc != 0)
		goto fail;
	if (x->server && xchg_write(x, out, sizeof(out)) != 0)
		goto fail;

	/*
	 * Both sides are past their tests: stop polling before saying
	 * "done", so that a peer that has read it knows we no longer touch
	 * the link (see perf_xchg_wait_eof()).
	 */
	if (quiesce != NULL)
		quiesce(arg);
	x->idle = NULL;
	if (xchg_write(x, done, sizeof(done)) != 0)
		return 0;       /* perftest may close as soon as it wrote its */
	/* Theirs (perftest sends it, then closes without reading ours). */
	rc = xchg_read(x, theirs, sizeof(theirs), XCHG_DONE_WAIT_MS);
	if (rc == 0 && memcmp(theirs, done, sizeof(done)) != 0)
		fprintf(stderr, " Unexpected closing message from the peer\n");
	return 0;

fail:
	fprintf(stderr, "Failed to close connection between server and "
		"client\n");
	if (quiesce != NULL)
		quiesce(arg);
	x->idle = NULL;
	perf_xchg_close(x);
	return -1;
}

int
perf_xchg_bytes(struct perf_xchg *x, const void *mine, void *theirs,
		size_t len)
{
	return xchg_data(x, mine, theirs, len);
}

int
perf_xchg_send(struct perf_xchg *x, const void *buf, size_t len)
{
	return xchg_write(x, buf, len);
}

int
perf_xchg_recv(struct perf_xchg *x, void *buf, size_t len, int timeout_ms)
{
	int rc = xchg_read(x, buf, len, timeout_ms);

	if (rc == 1)
		fprintf(stderr, " The peer closed the connection\n");
	return rc == 0 ? 0 : rc == 2 ? 1 : -1;
}

bool
perf_xchg_ready(struct perf_xchg *x, size_t len)
{
	char probe[256];
	ssize_t n;

	if (len > sizeof(probe))
		len = sizeof(probe);
	n = recv(x->fd, probe, len, MSG_PEEK | MSG_DONTWAIT);
	/* End of stream or an error: let the caller's read report it. */
	return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
			  errno != EINTR) || (n > 0 && (size_t)n >= len);
}

void
perf_xchg_shutdown(struct perf_xchg *x)
{
	if (x->fd >= 0)
		shutdown(x->fd, SHUT_WR);
}

int
perf_xchg_wait_eof(struct perf_xchg *x, int timeout_ms)
{
	double end = xchg_now() + timeout_ms / 1000.0;
	char sink[64];

	if (x->fd < 0)
		return 0;
	x->idle = NULL;
	while (xchg_now() < end) {
		int left = (int)((end - xchg_now()) * 1000) + 1;
		int rc = xchg_read(x, sink, sizeof(sink), left);

		if (rc == 1)
			return 0;
		if (rc != 0)
			break;
	}
	return -1;
}

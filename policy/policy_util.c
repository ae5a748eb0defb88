/*
 * policy_util.c: small helpers of the policy library: name checks, quoting
 * user input for messages, a bounded output buffer, and the bounded,
 * non-blocking reader of nodeox.conf and the speed table. Every string the library
 * builds goes through nodeox_buf_t, so no result can overrun its field and an
 * overflow is noticed instead of silently cutting a constraint in half.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/policy_internal.h"

bool nodeox_util_eq(const char *s, size_t n, const char *word)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!word[i] || tolower((unsigned char)s[i]) != tolower((unsigned char)word[i]))
			return false;
	return word[n] == '\0';
}

bool nodeox_util_name_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n >= NODEOX_NAME_MAX)
		return false;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!isalnum(c) && c != '_' && c != '.' && c != '-' && c != '@')
			return false;
	}
	return true;
}

void nodeox_util_quote(char *dst, size_t cap, const char *s, size_t n)
{
	size_t i, max = n;
	bool cut = false;

	if (!cap)
		return;
	if (max > 40) { /* enough to recognise the bad part */
		max = 40;
		cut = true;
	}
	if (max + 4 > cap) {
		max = cap > 4 ? cap - 4 : 0;
		cut = true;
	}
	for (i = 0; i < max && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		dst[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	if (cut && cap >= 4) {
		memcpy(dst + i, "...", 3);
		i += 3;
	}
	dst[i] = '\0';
}

void nodeox_buf_init(nodeox_buf_t *b, char *buf, size_t cap)
{
	b->buf = buf;
	b->cap = cap;
	b->len = 0;
	b->overflow = false;
	if (cap)
		buf[0] = '\0';
}

void nodeox_buf_putn(nodeox_buf_t *b, const char *s, size_t n)
{
	if (b->overflow || !b->cap)
		return;
	if (b->len + n >= b->cap) {
		b->overflow = true;
		return;
	}
	memcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len] = '\0';
}

void nodeox_buf_puts(nodeox_buf_t *b, const char *s)
{
	nodeox_buf_putn(b, s, strlen(s));
}

void nodeox_buf_printf(nodeox_buf_t *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->overflow || !b->cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->buf + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= b->cap - b->len) {
		b->buf[b->len] = '\0';
		b->overflow = true;
		return;
	}
	b->len += (size_t)n;
}

/* "1 MiB", "8 MiB", or bytes when not a whole number of MiB. */
static void util_size_text(char *dst, size_t cap, size_t max)
{
	if (max % (1u << 20) == 0)
		snprintf(dst, cap, "%zu MiB", max >> 20);
	else
		snprintf(dst, cap, "%zu bytes", max);
}

/*
 * Read a whole text file: opened non-blocking and close-on-exec, and read
 * only if it is a regular file of at most max bytes, so that a FIFO, a device
 * (/dev/zero) or a directory at the path fails at once with a clear message
 * instead of blocking or filling memory (the plugin reads nodeox.conf and the
 * speed table inside slurmctld with its locks held). A NUL byte refuses it.
 */
int nodeox_util_read_file(const char *path, size_t max, char **text_out, char *err, size_t errlen)
{
	struct stat st;
	char *text, sz[32];
	size_t n = 0;
	int fd;

	*text_out = NULL;
	util_size_text(sz, sizeof(sz), max);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
		if (fstat(fd, &st) != 0)
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		else if (!S_ISREG(st.st_mode))
			snprintf(err, errlen, "%s: not a regular file", path);
		else
			snprintf(err, errlen, "%s: larger than %s", path, sz);
		close(fd);
		return -1;
	}
	text = malloc(max + 1);
	if (!text) {
		close(fd);
		snprintf(err, errlen, "%s:0: out of memory", path);
		return -1;
	}
	while (n <= max) { /* one byte more than allowed: tells "too large" */
		ssize_t got = read(fd, text + n, max + 1 - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
			close(fd);
			free(text);
			return -1;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	if (n > max) {
		snprintf(err, errlen, "%s: larger than %s", path, sz);
		free(text);
		return -1;
	}
	text[n] = '\0';
	if (memchr(text, '\0', n)) {
		snprintf(err, errlen, "%s:0: contains a NUL byte (not a text file)", path);
		free(text);
		return -1;
	}
	*text_out = text;
	return 0;
}

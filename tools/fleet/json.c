// SPDX-License-Identifier: MIT
/* The JSON writer and member reader of json.h. */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

void json_out_init(struct json_out *j)
{
	memset(j, 0, sizeof(*j));
}

void json_out_free(struct json_out *j)
{
	free(j->buf);
	json_out_init(j);
}

int json_out_ok(const struct json_out *j)
{
	return !j->failed && j->buf;
}

static void put(struct json_out *j, const char *s, size_t n)
{
	if (j->failed)
		return;
	if (j->len + n + 1 > j->cap) {
		size_t cap = j->cap ? j->cap : 256;
		char *buf;

		while (j->len + n + 1 > cap)
			cap *= 2;
		buf = realloc(j->buf, cap);
		if (!buf) {
			j->failed = 1;
			return;
		}
		j->buf = buf;
		j->cap = cap;
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

static void put_string(struct json_out *j, const char *s)
{
	put(j, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char esc[8];

		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			put(j, esc, 2);
		} else if (c < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			put(j, esc, 6);
		} else {
			put(j, s, 1);
		}
	}
	put(j, "\"", 1);
}

/* The comma before a member or element, and its key. */
static void put_key(struct json_out *j, const char *key)
{
	if (j->need_comma)
		put(j, ",", 1);
	j->need_comma = 1;
	if (key) {
		put_string(j, key);
		put(j, ":", 1);
	}
}

void json_out_begin(struct json_out *j, const char *key, char open)
{
	put_key(j, key);
	put(j, &open, 1);
	j->need_comma = 0;
}

void json_out_end(struct json_out *j, char close)
{
	put(j, &close, 1);
	j->need_comma = 1;
}

void json_out_key_str(struct json_out *j, const char *key, const char *s)
{
	put_key(j, key);
	put_string(j, s);
}

void json_out_key_u64(struct json_out *j, const char *key, uint64_t v)
{
	char num[24];

	put_key(j, key);
	put(j, num, (size_t)snprintf(num, sizeof(num), "%" PRIu64, v));
}

void json_out_key_i64(struct json_out *j, const char *key, int64_t v)
{
	char num[24];

	put_key(j, key);
	put(j, num, (size_t)snprintf(num, sizeof(num), "%" PRId64, v));
}

void json_out_key_f(struct json_out *j, const char *key, double v)
{
	char num[32];

	put_key(j, key);
	/* JSON has no NaN or infinity: they travel as null. */
	if (v != v || v > 1e308 || v < -1e308)
		put(j, "null", 4);
	else
		put(j, num, (size_t)snprintf(num, sizeof(num), "%.9g", v));
}

void json_out_key_null(struct json_out *j, const char *key)
{
	put_key(j, key);
	put(j, "null", 4);
}

void json_out_key_raw(struct json_out *j, const char *key, const char *raw, size_t len)
{
	put_key(j, key);
	put(j, raw, len);
}

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* Past the string that starts at @p (its '"'); NULL if it does not end. */
static const char *skip_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

/* Past the value that starts at @p; NULL when it is cut short. */
static const char *skip_value(const char *p, const char *end)
{
	int depth = 0;

	while (p < end) {
		char c = *p;

		if (c == '"') {
			p = skip_string(p, end);
			if (!p || !depth)
				return p;
			continue;
		}
		if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (!depth)
				return p;	/* a scalar, the object's last member */
			if (--depth == 0)
				return p + 1;
		} else if (!depth && (c == ',' || c == ' ' || c == '\t' || c == '\n' ||
				      c == '\r')) {
			return p;
		}
		p++;
	}
	return depth ? NULL : p;
}

int json_get(const char *text, size_t len, const char *key, const char **val,
	     size_t *val_len)
{
	const char *p = text, *end = text + len, *k, *v;
	size_t klen = strlen(key);

	p = skip_ws(p, end);
	if (p >= end || *p != '{')
		return -1;
	p = skip_ws(p + 1, end);
	while (p < end && *p == '"') {
		k = p + 1;
		p = skip_string(p, end);
		if (!p)
			return -1;
		p = skip_ws(p, end);
		if (p >= end || *p != ':')
			return -1;
		v = skip_ws(p + 1, end);
		p = skip_value(v, end);
		if (!p)
			return -1;
		if ((size_t)(p - v) && k + klen + 1 <= end && !memcmp(k, key, klen) &&
		    k[klen] == '"') {
			*val = v;
			*val_len = (size_t)(p - v);
			return 0;
		}
		p = skip_ws(p, end);
		if (p < end && *p == ',')
			p = skip_ws(p + 1, end);
	}
	return -1;
}

int json_get_num(const char *text, size_t len, const char *key, double *v)
{
	char num[40], *tail;
	const char *val;
	size_t n;

	if (json_get(text, len, key, &val, &n) || n == 0 || n >= sizeof(num))
		return -1;
	memcpy(num, val, n);
	num[n] = '\0';
	*v = strtod(num, &tail);
	return tail == num || *tail ? -1 : 0;
}

int json_get_str(const char *text, size_t len, const char *key, char *out, size_t size)
{
	const char *val;
	size_t n, i, o = 0;

	if (json_get(text, len, key, &val, &n) || n < 2 || val[0] != '"' || !size)
		return -1;
	for (i = 1; i + 1 < n && o + 1 < size; i++) {
		char c = val[i];

		if (c == '\\') {
			c = val[++i];
			if (c != '"' && c != '\\')
				c = '?';
		}
		out[o++] = c;
	}
	out[o] = '\0';
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * The little JSON the fleet's messages need (json.c): a writer into a
 * growing buffer for the publisher, and a reader of one object's members
 * for qpu-fleet, which takes the numbers and strings it shows and skips the
 * rest (nested values included).
 */
#ifndef QPU_TOOLS_JSON_H
#define QPU_TOOLS_JSON_H

#include <stddef.h>
#include <stdint.h>

/* A JSON text being written; @failed after an allocation failed. */
struct json_out {
	char *buf;
	size_t len, cap;
	int failed;
	int need_comma;
};

void json_out_init(struct json_out *j);
void json_out_free(struct json_out *j);
/* Whether every write fitted; the text is then @buf, @len bytes. */
int json_out_ok(const struct json_out *j);
/*
 * Open an object ('{') or array ('['), a member @key of the enclosing
 * object, or an element (@key NULL); json_out_end() closes it.
 */
void json_out_begin(struct json_out *j, const char *key, char open);
void json_out_end(struct json_out *j, char close);
/* The members (or, @key NULL, elements) of each type. */
void json_out_key_str(struct json_out *j, const char *key, const char *s);
void json_out_key_u64(struct json_out *j, const char *key, uint64_t v);
void json_out_key_i64(struct json_out *j, const char *key, int64_t v);
void json_out_key_f(struct json_out *j, const char *key, double v);
void json_out_key_null(struct json_out *j, const char *key);
/* @raw, already JSON, as a member. */
void json_out_key_raw(struct json_out *j, const char *key, const char *raw, size_t len);

/*
 * json_get() - find member @key of the object @text (@len bytes) and point
 * @val at its value's text, @val_len bytes. Return: 0, or -1 when @text is
 * no object or has no such member.
 */
int json_get(const char *text, size_t len, const char *key, const char **val,
	     size_t *val_len);
/* The member as a number; -1 when absent, null or no number. */
int json_get_num(const char *text, size_t len, const char *key, double *v);
/* The member as a string (escapes other than \" and \\ as '?'), cut to @size. */
int json_get_str(const char *text, size_t len, const char *key, char *out, size_t size);

#endif /* QPU_TOOLS_JSON_H */

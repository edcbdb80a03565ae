/* HTTP requests for the server stores, with libcurl: one handle per
 * connection (kept alive between intervals), short connect timeout. */
#ifndef SCORCH_STORE_HTTP_H
#define SCORCH_STORE_HTTP_H

#include <stddef.h>

struct http;

struct http_reply {
	long status;  /* HTTP status, 0 when no reply came (transport failure) */
	char *body;   /* malloc'd, NUL-terminated */
	size_t len;
	char error[256]; /* libcurl's message when status is 0 */
};

struct http *http_new(void);
void http_free(struct http *h);
/* POST body to url with extra headers (NULL-terminated "Name: value"
 * list, may be NULL). 0 when a reply came (any status), -1 when none did
 * (r->error says why). r is always filled; release it with http_reply_release. */
int http_post(struct http *h, const char *url, const char *const *headers, const void *body, size_t len,
	      struct http_reply *r);
/* The same with body as a multipart form field (file name fname). */
int http_post_form(struct http *h, const char *url, const char *field, const char *fname, const void *body,
		   size_t len, struct http_reply *r);
void http_reply_release(struct http_reply *r);
/* s percent-encoded for a URL's query (malloc'd). */
char *http_escape(const char *s, size_t n);
/* A server's text made safe to print: control bytes as '?', at most max
 * bytes, no trailing newline (static-free: writes into out, of max+4). */
void http_printable(const char *s, size_t n, char *out, size_t max);

#endif

/* libcurl behind store/http.h. */
#include "store/http.h"

#include "base/alloc.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct http {
	CURL *curl;
};

struct http *http_new(void)
{
	static int initialised; /* curl_global_init once per process, before any thread */
	if (!initialised) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		initialised = 1;
	}
	struct http *h = xcalloc(1, sizeof(*h));
	h->curl = curl_easy_init();
	if (!h->curl) {
		free(h);
		return NULL;
	}
	return h;
}

void http_free(struct http *h)
{
	if (!h)
		return;
	curl_easy_cleanup(h->curl);
	free(h);
}

static size_t collect(char *p, size_t size, size_t n, void *ctx)
{
	struct http_reply *r = ctx;
	size_t add = size * n;
	r->body = xrealloc(r->body, r->len + add + 1);
	memcpy(r->body + r->len, p, add);
	r->len += add;
	r->body[r->len] = 0;
	return add;
}

static int perform(struct http *h, const char *url, struct curl_slist *hdrs, struct http_reply *r)
{
	CURL *c = h->curl;
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 3L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 120L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, r->error);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	CURLcode rc = curl_easy_perform(c);
	if (rc != CURLE_OK) {
		if (!r->error[0])
			snprintf(r->error, sizeof(r->error), "%s", curl_easy_strerror(rc));
		r->status = 0;
		return -1;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
	return 0;
}

int http_post(struct http *h, const char *url, const char *const *headers, const void *body, size_t len,
	      struct http_reply *r)
{
	*r = (struct http_reply){ 0 };
	r->body = xcalloc(1, 1);
	struct curl_slist *hdrs = curl_slist_append(NULL, "Content-Type: application/octet-stream");
	for (size_t i = 0; headers && headers[i]; i++)
		hdrs = curl_slist_append(hdrs, headers[i]);
	curl_easy_reset(h->curl);
	curl_easy_setopt(h->curl, CURLOPT_POST, 1L);
	curl_easy_setopt(h->curl, CURLOPT_POSTFIELDS, body ? body : "");
	curl_easy_setopt(h->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	int ret = perform(h, url, hdrs, r);
	curl_slist_free_all(hdrs);
	return ret;
}

int http_post_form(struct http *h, const char *url, const char *field, const char *fname, const void *body,
		   size_t len, struct http_reply *r)
{
	*r = (struct http_reply){ 0 };
	r->body = xcalloc(1, 1);
	curl_easy_reset(h->curl);
	curl_mime *mime = curl_mime_init(h->curl);
	curl_mimepart *part = curl_mime_addpart(mime);
	curl_mime_name(part, field);
	curl_mime_filename(part, fname);
	curl_mime_type(part, "application/octet-stream");
	curl_mime_data(part, body, len);
	curl_easy_setopt(h->curl, CURLOPT_MIMEPOST, mime);
	int ret = perform(h, url, NULL, r);
	curl_mime_free(mime);
	return ret;
}

void http_reply_release(struct http_reply *r)
{
	free(r->body);
	r->body = NULL;
}

char *http_escape(const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	char *out = xmalloc(3 * n + 1), *o = out;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
		    c == '_' || c == '.' || c == '~') {
			*o++ = (char)c;
		} else {
			*o++ = '%';
			*o++ = hex[c >> 4];
			*o++ = hex[c & 15];
		}
	}
	*o = 0;
	return out;
}

void http_printable(const char *s, size_t n, char *out, size_t max)
{
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
		n--;
	size_t k = 0;
	for (size_t i = 0; i < n && k < max; i++) {
		unsigned char c = (unsigned char)s[i];
		out[k++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	if (k < n)
		memcpy(out + k, "...", 3), k += 3;
	out[k] = 0;
}

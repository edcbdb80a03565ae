/* libcurl behind store/http.h, loaded when a server store is first used:
 * linked, libcurl brings 27 more libraries (TLS, LDAP, Kerberos, SSH...)
 * whose loading and relocation cost every scorch command about 14 M
 * instructions at start, a tenth of a whole flamegraph of 12 MB (bench/NOTES.md). */
#include "store/http.h"

#include "base/alloc.h"
#include "base/error.h"

#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CURL_LIB "libcurl.so.4"

#define CURL_FUNCS(X)                                                                              \
	X(curl_global_init)                                                                        \
	X(curl_easy_init)                                                                          \
	X(curl_easy_cleanup)                                                                       \
	X(curl_easy_reset)                                                                         \
	X(curl_easy_setopt)                                                                        \
	X(curl_easy_perform)                                                                       \
	X(curl_easy_getinfo)                                                                       \
	X(curl_easy_strerror)                                                                      \
	X(curl_slist_append)                                                                       \
	X(curl_slist_free_all)                                                                     \
	X(curl_mime_init)                                                                          \
	X(curl_mime_addpart)                                                                       \
	X(curl_mime_name)                                                                          \
	X(curl_mime_filename)                                                                      \
	X(curl_mime_type)                                                                          \
	X(curl_mime_data)                                                                          \
	X(curl_mime_free)

static struct curl_lib {
#define CURL_FIELD(f) __typeof__(f) *f;
	CURL_FUNCS(CURL_FIELD)
#undef CURL_FIELD
} lib; /* filled once, by curl_lib_load, before any thread; the process keeps the library */

static int curl_lib_load(void)
{
	if (lib.curl_easy_init)
		return 0;
	void *h = dlopen(CURL_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return error("server stores need libcurl: cannot load %s (%s; Debian: libcurl4)", CURL_LIB,
			     dlerror());
	struct curl_lib l;
#define CURL_SYM(f)                                                                               \
	if (!(*(void **)&l.f = dlsym(h, #f)))                                                      \
		return error("%s has no %s", CURL_LIB, #f);
	CURL_FUNCS(CURL_SYM)
#undef CURL_SYM
	if (l.curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return error("libcurl could not initialise");
	lib = l;
	return 0;
}

struct http {
	CURL *curl;
};

struct http *http_new(void)
{
	if (curl_lib_load())
		return NULL;
	struct http *h = xcalloc(1, sizeof(*h));
	h->curl = lib.curl_easy_init();
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
	lib.curl_easy_cleanup(h->curl);
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
	lib.curl_easy_setopt(c, CURLOPT_URL, url);
	lib.curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	lib.curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	lib.curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
	lib.curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 3L);
	lib.curl_easy_setopt(c, CURLOPT_TIMEOUT, 120L);
	lib.curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	lib.curl_easy_setopt(c, CURLOPT_ERRORBUFFER, r->error);
	lib.curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	CURLcode rc = lib.curl_easy_perform(c);
	if (rc != CURLE_OK) {
		if (!r->error[0])
			snprintf(r->error, sizeof(r->error), "%s", lib.curl_easy_strerror(rc));
		r->status = 0;
		return -1;
	}
	lib.curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
	return 0;
}

int http_post(struct http *h, const char *url, const char *const *headers, const void *body, size_t len,
	      struct http_reply *r)
{
	*r = (struct http_reply){ 0 };
	r->body = xcalloc(1, 1);
	struct curl_slist *hdrs = lib.curl_slist_append(NULL, "Content-Type: application/octet-stream");
	for (size_t i = 0; headers && headers[i]; i++)
		hdrs = lib.curl_slist_append(hdrs, headers[i]);
	lib.curl_easy_reset(h->curl);
	lib.curl_easy_setopt(h->curl, CURLOPT_POST, 1L);
	lib.curl_easy_setopt(h->curl, CURLOPT_POSTFIELDS, body ? body : "");
	lib.curl_easy_setopt(h->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	int ret = perform(h, url, hdrs, r);
	lib.curl_slist_free_all(hdrs);
	return ret;
}

int http_post_form(struct http *h, const char *url, const char *field, const char *fname, const void *body,
		   size_t len, struct http_reply *r)
{
	*r = (struct http_reply){ 0 };
	r->body = xcalloc(1, 1);
	lib.curl_easy_reset(h->curl);
	curl_mime *mime = lib.curl_mime_init(h->curl);
	curl_mimepart *part = lib.curl_mime_addpart(mime);
	lib.curl_mime_name(part, field);
	lib.curl_mime_filename(part, fname);
	lib.curl_mime_type(part, "application/octet-stream");
	lib.curl_mime_data(part, body, len);
	lib.curl_easy_setopt(h->curl, CURLOPT_MIMEPOST, mime);
	int ret = perform(h, url, NULL, r);
	lib.curl_mime_free(mime);
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

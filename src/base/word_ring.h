/* A queue of messages made of 32-bit words, from one producing thread to
 * one consuming thread (or, without a thread, handled as each one is put:
 * the same code either way). A message is a handler's business: the
 * producer reserves room for it, puts its words and commits it; the
 * consumer's handler takes exactly the words of one message. Committed
 * messages reach the consumer in batches (fewer shared-cache writes), all
 * of them at word_ring_sync and word_ring_stop. */
#ifndef SCORCH_BASE_WORD_RING_H
#define SCORCH_BASE_WORD_RING_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct word_ring;

/* Takes the words of one message (word_ring_take) and acts on them. */
typedef void word_ring_handler(void *arg, struct word_ring *r);

struct word_ring {
	uint32_t *words; /* the ring: size words */
	size_t mask;
	bool threaded;
	word_ring_handler *handler;
	void *arg;
	/* the producer's */
	size_t put;           /* words put */
	size_t committed;     /* of them, those of whole messages */
	size_t put_published; /* of those, the ones the consumer is shown */
	size_t room_to;       /* put may reach this without looking at taken */
	/* the consumer's */
	size_t take, take_limit; /* next word; words published as far as it knows */
	size_t take_shown;       /* the producer is shown the words before it handled */
	/* shared: positions as the other side may see them */
	_Alignas(64) atomic_size_t published;
	_Alignas(64) atomic_size_t taken; /* messages before it are handled */
	_Alignas(64) atomic_bool consumer_sleeps, producer_sleeps, done;
	pthread_mutex_t mu;
	pthread_cond_t wake_consumer, wake_producer;
	pthread_t thread;
};

/* A ring of 2^log2_words words whose messages go to handler(arg): on a
 * thread of its own when threaded (at the lowest priority: it is to use
 * what the producer leaves of the CPUs), else as each is committed. The
 * largest message must fit in the ring. */
void word_ring_start(struct word_ring *r, unsigned log2_words, bool threaded, word_ring_handler *handler,
		     void *arg);

/* Handle every message committed, stop the thread; r is released. */
void word_ring_stop(struct word_ring *r);

/* Wait until every message committed so far has been handled: after this
 * (and until the next commit) the producer may touch what the handler
 * touches. */
void word_ring_sync(struct word_ring *r);

/* ---- the producer --------------------------------------------------------- */

/* Slow path of word_ring_reserve: waits for the consumer. */
void word_ring_wait_room(struct word_ring *r, size_t n);

/* Room for n more words of the message being put (the whole message may
 * be reserved at once, or piece by piece). */
static inline void word_ring_reserve(struct word_ring *r, size_t n)
{
	if (r->put + n > r->room_to)
		word_ring_wait_room(r, n);
}

/* Put a word reserved. */
static inline void word_ring_put(struct word_ring *r, uint32_t w)
{
	r->words[r->put++ & r->mask] = w;
}

/* The message put is complete. */
void word_ring_commit(struct word_ring *r);

/* ---- the handler ------------------------------------------------------------ */

/* The next word of the message being handled. */
static inline uint32_t word_ring_take(struct word_ring *r)
{
	return r->words[r->take++ & r->mask];
}

#endif

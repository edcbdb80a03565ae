/* A queue of word messages from one thread to another (see word_ring.h).
 * Each side keeps its position to itself and shows it to the other side
 * now and then: the producer what it has committed (every BATCH words,
 * and before it waits), the consumer what it has handled (when it runs
 * out of messages). A side with nothing to do spins a little, then sleeps
 * on a condition variable; the other side wakes it after showing a new
 * position if it says it sleeps. Positions and "sleeps" flags are
 * sequentially consistent atomics, so of a sleeper's "I sleep; is there
 * news?" and the other side's "here is news; does it sleep?" one sees the
 * other's write: no wake-up is lost. */
#include "base/word_ring.h"

#include "base/alloc.h"

#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { BATCH = 1024,          /* words committed before the consumer is shown them */
       TAKEN_BATCH = 16 * 1024, /* words handled before the producer is shown them */
       WAKE_BATCH = 64 * 1024,  /* words waiting before a sleeping consumer is woken */
       SPINS = 64 };            /* looks before a side sleeps */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static void wake(struct word_ring *r, atomic_bool *sleeps, pthread_cond_t *cond)
{
	if (atomic_load(sleeps)) {
		pthread_mutex_lock(&r->mu);
		pthread_cond_signal(cond);
		pthread_mutex_unlock(&r->mu);
	}
}

/* ---- the producer's side ---------------------------------------------------------- */

/* Show the consumer the messages committed; wake it if it sleeps and
 * they are many, or when the producer is to wait for it (now). Waking
 * costs the producer a system call: at every batch it cost more than the
 * other thread saved (4,000 wake-ups in a 0.2 s run). */
static void publish(struct word_ring *r, bool now)
{
	if (r->committed != r->put_published) {
		r->put_published = r->committed;
		atomic_store(&r->published, r->committed);
	}
	if (atomic_load(&r->consumer_sleeps) && (now || r->committed - atomic_load(&r->taken) >= WAKE_BATCH)) {
		pthread_mutex_lock(&r->mu);
		pthread_cond_signal(&r->wake_consumer);
		pthread_mutex_unlock(&r->mu);
	}
}

/* Wait until the consumer has handled the words before pos. */
static void wait_taken(struct word_ring *r, size_t pos)
{
	for (int i = 0; i < SPINS; i++) {
		if (atomic_load(&r->taken) >= pos)
			return;
		cpu_relax();
	}
	pthread_mutex_lock(&r->mu);
	atomic_store(&r->producer_sleeps, true);
	while (atomic_load(&r->taken) < pos)
		pthread_cond_wait(&r->wake_producer, &r->mu);
	atomic_store(&r->producer_sleeps, false);
	pthread_mutex_unlock(&r->mu);
}

void word_ring_wait_room(struct word_ring *r, size_t n)
{
	size_t size = r->mask + 1;
	/* a message larger than the ring: the caller's bug */
	if (!r->threaded || r->put + n - r->committed > size)
		abort();
	publish(r, true); /* the consumer makes room by handling these */
	wait_taken(r, r->put + n - size);
	r->room_to = atomic_load(&r->taken) + size;
}

void word_ring_commit(struct word_ring *r)
{
	r->committed = r->put;
	if (!r->threaded) {
		r->handler(r->arg, r); /* takes the message: take == put */
		r->room_to = r->take + r->mask + 1;
		return;
	}
	if (r->committed - r->put_published >= BATCH)
		publish(r, false);
}

void word_ring_sync(struct word_ring *r)
{
	if (!r->threaded)
		return;
	publish(r, true);
	wait_taken(r, r->committed);
}

/* ---- the consumer's side ---------------------------------------------------------- */

/* Whether there is a message to handle: waits for one, and returns false
 * once the producer has stopped and every message is handled. */
static void show_taken(struct word_ring *r)
{
	r->take_shown = r->take;
	atomic_store(&r->taken, r->take);
	wake(r, &r->producer_sleeps, &r->wake_producer);
}

static bool more(struct word_ring *r)
{
	if (r->take < r->take_limit) {
		if (r->take - r->take_shown >= TAKEN_BATCH)
			show_taken(r); /* a producer waiting for room may go on */
		return true;
	}
	show_taken(r); /* all handled */
	for (int i = 0; i < SPINS; i++) {
		r->take_limit = atomic_load(&r->published);
		if (r->take < r->take_limit)
			return true;
		cpu_relax();
	}
	pthread_mutex_lock(&r->mu);
	atomic_store(&r->consumer_sleeps, true);
	while ((r->take_limit = atomic_load(&r->published)) == r->take && !atomic_load(&r->done))
		pthread_cond_wait(&r->wake_consumer, &r->mu);
	atomic_store(&r->consumer_sleeps, false);
	pthread_mutex_unlock(&r->mu);
	/* done is set after the last words are published */
	r->take_limit = atomic_load(&r->published);
	return r->take < r->take_limit;
}

/* The consumer runs at the lowest priority (nice 19, allowed to any
 * thread): the producer's work is the longer path, and where the CPUs are
 * short (report's kernel-symbol reader, consumer and producer on 2 cores)
 * it keeps its own. */
static void lower_priority(void)
{
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19); /* a hint: failure changes nothing */
}

static void *consumer_main(void *arg)
{
	struct word_ring *r = arg;
	lower_priority();
	while (more(r))
		r->handler(r->arg, r);
	return NULL;
}

/* ---- both ------------------------------------------------------------------------- */

void word_ring_start(struct word_ring *r, unsigned log2_words, bool threaded, word_ring_handler *handler,
		     void *arg)
{
	size_t size = (size_t)1 << log2_words;
	*r = (struct word_ring){ .words = xreallocarray(NULL, size, sizeof(uint32_t)), .mask = size - 1,
				 .threaded = threaded, .handler = handler, .arg = arg, .room_to = size };
	atomic_init(&r->published, 0);
	atomic_init(&r->taken, 0);
	atomic_init(&r->consumer_sleeps, false);
	atomic_init(&r->producer_sleeps, false);
	atomic_init(&r->done, false);
	if (!threaded)
		return;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->wake_consumer, NULL);
	pthread_cond_init(&r->wake_producer, NULL);
	if (pthread_create(&r->thread, NULL, consumer_main, r) != 0) {
		/* no thread: handle each message as it is committed */
		pthread_mutex_destroy(&r->mu);
		pthread_cond_destroy(&r->wake_consumer);
		pthread_cond_destroy(&r->wake_producer);
		r->threaded = false;
	}
}

void word_ring_stop(struct word_ring *r)
{
	if (r->threaded) {
		publish(r, false);
		pthread_mutex_lock(&r->mu);
		atomic_store(&r->done, true);
		pthread_cond_signal(&r->wake_consumer);
		pthread_mutex_unlock(&r->mu);
		pthread_join(r->thread, NULL);
		pthread_mutex_destroy(&r->mu);
		pthread_cond_destroy(&r->wake_consumer);
		pthread_cond_destroy(&r->wake_producer);
	}
	free(r->words);
	r->words = NULL;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * worker_pool.c - a pool of threads that run reclaim jobs (see actuator.h).
 *
 * Design, in the manner of Redis's bio.c: one mutex, one condition variable and one bounded FIFO
 * per pool. The main thread submits and never waits for a write; workers pop a job, run it
 * without the lock held, then append it to the finished list and write the pool's eventfd so the
 * sd-event loop wakes up and drains it. A job is cancelled by setting its flag and sending
 * SIGUSR1 to the worker running it: the handler does nothing, but because it is installed
 * without SA_RESTART a blocked memory.reclaim write returns EINTR (the kernel checks
 * signal_pending() between reclaim batches, mm/memcontrol.c).
 *
 * For one pool per NUMA node: workers can be pinned to the node's CPUs (and re-pinned on CPU
 * hotplug); only `allowed` of them take jobs at a time, so the agent can widen concurrency once
 * it has seen the node idle, without starting or stopping threads; and an optional token bucket
 * limits the bytes per second the pool's jobs ask memory.reclaim for, taken chunk by chunk through
 * the job's throttle hook. Jobs waiting for tokens sleep on a second condition variable so that a
 * submit's signal, meant for an idle worker, is never consumed by one of them.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>

#include "reclaimd/actuator.h"

struct worker_pool {
	pthread_mutex_t lock;
	pthread_cond_t wake;        /* idle workers: a job was queued, `allowed` rose, stopping */
	int node;
	bool stopping;

	/* Adaptive concurrency: at most `allowed` workers run jobs, `busy` do now. */
	unsigned n_workers, allowed, busy;

	/* Token bucket; rate 0: unlimited. */
	pthread_cond_t tokens_wake; /* jobs waiting for tokens: refill due, rate changed, cancel */
	uint64_t rate_bytes_per_sec;
	double tokens_bytes;
	usec_t refill_us;
	unsigned throttled;

	/* Counters for worker_pool_get_stats(). */
	uint64_t jobs_done, bytes_reclaimed, jobs_dropped, throttle_waits, tokens_taken_bytes;

	/* Test hooks (worker_pool_set_test_hooks()). */
	void (*run)(struct reclaim_job *job);
	usec_t (*clock)(void);

	/* Bounded FIFO of queued jobs (ring buffer). */
	struct reclaim_job **queue;
	unsigned queue_len, head, count;

	/* Jobs being run, for cancel and kick: a small array, one slot per worker. */
	struct reclaim_job **running;

	/* Finished jobs, oldest first. */
	struct reclaim_job *done_head, *done_tail;
	int event_fd;

	pthread_t *threads;
	unsigned n_threads;
};

static void cancel_signal_handler(int sig _unused_) {}

static int cancel_signal_result;

static void install_cancel_signal_once(void)
{
	/* No SA_RESTART: the point of the signal is to make the write return EINTR. */
	struct sigaction sa = { .sa_handler = cancel_signal_handler };

	sigemptyset(&sa.sa_mask);
	cancel_signal_result = sigaction(SIGUSR1, &sa, NULL) < 0 ? -errno : 0;
}

static int install_cancel_signal(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, install_cancel_signal_once);
	return cancel_signal_result;
}

/* Adds the tokens earned since the last refill; the bucket holds one second's worth, or the
 * chunk being asked for when that is larger (else a chunk above the rate could never pass). */
static void bucket_refill(struct worker_pool *p, uint64_t chunk_bytes)
{
	usec_t now = p->clock();

	if (now > p->refill_us) {
		p->tokens_bytes += (double)(now - p->refill_us) * (double)p->rate_bytes_per_sec /
				   (double)USEC_PER_SEC;
		p->refill_us = now;
	}
	p->tokens_bytes = MIN(p->tokens_bytes, (double)MAX(p->rate_bytes_per_sec, chunk_bytes));
}

/* Waits on tokens_wake for at most wait_us of real (monotonic) time. */
static void tokens_timedwait(struct worker_pool *p, usec_t wait_us)
{
	struct timespec ts;
	usec_t ns;

	/* A rate change, cancel or stop wakes the waiter; the bound only keeps the sum in range. */
	wait_us = MIN(wait_us, 3600 * USEC_PER_SEC);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ns = (usec_t)ts.tv_nsec + (wait_us % USEC_PER_SEC) * 1000;
	ts.tv_sec += (time_t)(wait_us / USEC_PER_SEC + ns / 1000000000);
	ts.tv_nsec = (long)(ns % 1000000000);
	pthread_cond_timedwait(&p->tokens_wake, &p->lock, &ts);
}

/* The job's throttle hook: takes chunk_bytes from the bucket, waiting until it holds that many.
 * Returns false when the job is cancelled (checked under the lock that cancel takes, so the
 * wake-up cannot be missed). */
static bool pool_throttle(struct reclaim_job *job, uint64_t chunk_bytes)
{
	struct worker_pool *p = job->throttle_userdata;
	bool waited = false, ok = true;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		double deficit;

		if (atomic_load(&job->cancel)) {
			ok = false;
			break;
		}
		if (p->rate_bytes_per_sec == 0)
			break;
		bucket_refill(p, chunk_bytes);
		if (p->tokens_bytes >= (double)chunk_bytes) {
			p->tokens_bytes -= (double)chunk_bytes;
			p->tokens_taken_bytes += chunk_bytes;
			break;
		}
		if (!waited) {
			waited = true;
			p->throttle_waits++;
			p->throttled++;
		}
		deficit = (double)chunk_bytes - p->tokens_bytes;
		tokens_timedwait(p, (usec_t)(deficit * (double)USEC_PER_SEC /
					     (double)p->rate_bytes_per_sec) + 1);
	}
	if (waited)
		p->throttled--;
	pthread_mutex_unlock(&p->lock);
	return ok;
}

struct worker_arg {
	struct worker_pool *pool;
	unsigned slot;
};

static void *worker_main(void *userdata)
{
	struct worker_arg *arg = userdata;
	struct worker_pool *p = arg->pool;
	unsigned slot = arg->slot;
	sigset_t ss;

	free(arg);
	{
		/* "reclaimd-n<node>-w<slot>" in /proc/<pid>/task/<tid>/comm (15 characters at most). */
		char name[32];

		if (p->node >= 0)
			snprintf(name, sizeof(name), "reclaimd-n%d-w%u", p->node % 100, slot % 100);
		else
			snprintf(name, sizeof(name), "reclaimd-w%u", slot % 1000);
		name[15] = '\0'; /* TASK_COMM_LEN: longer names are refused */
		pthread_setname_np(pthread_self(), name);
	}
	/* The main thread blocks the signals sd-event handles; this thread only takes SIGUSR1. */
	sigfillset(&ss);
	pthread_sigmask(SIG_BLOCK, &ss, NULL);
	sigemptyset(&ss);
	sigaddset(&ss, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &ss, NULL);

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct reclaim_job *job;
		uint64_t one = 1;

		void (*run)(struct reclaim_job *job);

		/* A worker that finishes a job loops back here itself, so no wake-up is owed to the
		 * others when `busy` drops. */
		while (!p->stopping && (p->count == 0 || p->busy >= p->allowed))
			pthread_cond_wait(&p->wake, &p->lock);
		if (p->stopping)
			break;

		job = p->queue[p->head];
		p->head = (p->head + 1) % p->queue_len;
		p->count--;
		job->worker = pthread_self();
		job->running = true;
		job->throttle = pool_throttle;
		job->throttle_userdata = p;
		p->running[slot] = job;
		p->busy++;
		run = p->run;
		pthread_mutex_unlock(&p->lock);

		if (atomic_load(&job->cancel)) {
			job->outcome = JOB_CANCELLED;
			job->started_us = job->finished_us = now_us();
		} else {
			run(job);
		}

		pthread_mutex_lock(&p->lock);
		job->running = false;
		p->running[slot] = NULL;
		p->busy--;
		p->jobs_done++;
		p->bytes_reclaimed += job->reclaimed_bytes;
		job->next = NULL;
		if (p->done_tail)
			p->done_tail->next = job;
		else
			p->done_head = job;
		p->done_tail = job;
		/* An eventfd write only fails on counter overflow, impossible here. */
		(void)!write(p->event_fd, &one, sizeof(one));
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int worker_pool_new(unsigned n_workers, unsigned queue_len, int node, const cpu_set_t *cpus,
		    struct worker_pool **ret)
{
	pthread_condattr_t cattr;
	pthread_attr_t attr;
	struct worker_pool *p;
	int r;

	if (n_workers == 0 || queue_len == 0 || (cpus && CPU_COUNT(cpus) == 0))
		return -EINVAL;
	r = install_cancel_signal();
	if (r < 0)
		return r;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	/* Token waits are bounded in monotonic time, immune to wall-clock steps. */
	pthread_condattr_init(&cattr);
	pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
	pthread_cond_init(&p->tokens_wake, &cattr);
	pthread_condattr_destroy(&cattr);
	p->node = node;
	p->n_workers = n_workers;
	p->allowed = 1;
	p->run = reclaim_job_run;
	p->clock = now_us;
	p->event_fd = -1;
	p->queue_len = queue_len;
	p->queue = calloc(queue_len, sizeof(*p->queue));
	p->running = calloc(n_workers, sizeof(*p->running));
	p->threads = calloc(n_workers, sizeof(*p->threads));
	if (!p->queue || !p->running || !p->threads) {
		worker_pool_free(p);
		return -ENOMEM;
	}
	p->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->event_fd < 0) {
		r = -errno;
		worker_pool_free(p);
		return r;
	}

	/* Pinned from birth: a worker never runs a single instruction off the node. */
	r = pthread_attr_init(&attr);
	if (r == 0 && cpus)
		r = pthread_attr_setaffinity_np(&attr, sizeof(*cpus), cpus);
	if (r != 0) {
		worker_pool_free(p);
		return -r;
	}
	for (unsigned i = 0; i < n_workers; i++) {
		struct worker_arg *arg = malloc(sizeof(*arg));

		if (!arg) {
			r = ENOMEM;
			break;
		}
		arg->pool = p;
		arg->slot = i;
		r = pthread_create(&p->threads[i], &attr, worker_main, arg);
		if (r != 0) {
			free(arg);
			break;
		}
		p->n_threads++;
	}
	pthread_attr_destroy(&attr);
	if (r != 0) {
		worker_pool_free(p);
		return -r;
	}
	*ret = p;
	return 0;
}

int worker_pool_set_cpus(struct worker_pool *p, const cpu_set_t *cpus)
{
	int r = 0;

	if (!cpus || CPU_COUNT(cpus) == 0)
		return -EINVAL;
	pthread_mutex_lock(&p->lock);
	if (p->stopping)
		r = ESHUTDOWN;
	for (unsigned i = 0; r == 0 && i < p->n_threads; i++)
		r = pthread_setaffinity_np(p->threads[i], sizeof(*cpus), cpus);
	pthread_mutex_unlock(&p->lock);
	return -r;
}

void worker_pool_set_allowed(struct worker_pool *p, unsigned allowed)
{
	pthread_mutex_lock(&p->lock);
	p->allowed = MIN(MAX(allowed, 1u), p->n_workers);
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);
}

void worker_pool_set_rate_limit(struct worker_pool *p, uint64_t bytes_per_sec)
{
	pthread_mutex_lock(&p->lock);
	if (p->rate_bytes_per_sec == 0) {
		/* Newly limited: the bucket starts full. */
		p->tokens_bytes = (double)bytes_per_sec;
		p->refill_us = p->clock();
	} else {
		/* Tokens earned so far at the old rate are kept, up to one second at the new one. */
		bucket_refill(p, 0);
		p->tokens_bytes = MIN(p->tokens_bytes, (double)bytes_per_sec);
	}
	p->rate_bytes_per_sec = bytes_per_sec;
	pthread_cond_broadcast(&p->tokens_wake);
	pthread_mutex_unlock(&p->lock);
}

void worker_pool_get_stats(struct worker_pool *p, struct worker_pool_stats *ret)
{
	pthread_mutex_lock(&p->lock);
	*ret = (struct worker_pool_stats){
		.node = p->node,
		.n_workers = p->n_workers,
		.allowed = p->allowed,
		.busy = p->busy,
		.queued = p->count,
		.throttled = p->throttled,
		.jobs_done = p->jobs_done,
		.bytes_reclaimed = p->bytes_reclaimed,
		.jobs_dropped = p->jobs_dropped,
		.rate_limit_bytes_per_sec = p->rate_bytes_per_sec,
		.throttle_waits = p->throttle_waits,
		.tokens_taken_bytes = p->tokens_taken_bytes,
	};
	pthread_mutex_unlock(&p->lock);
}

void worker_pool_set_test_hooks(struct worker_pool *p, void (*run)(struct reclaim_job *job),
				usec_t (*clock)(void))
{
	pthread_mutex_lock(&p->lock);
	p->run = run ? run : reclaim_job_run;
	p->clock = clock ? clock : now_us;
	p->refill_us = p->clock();
	pthread_mutex_unlock(&p->lock);
}

int worker_pool_submit(struct worker_pool *p, struct reclaim_job *job)
{
	int r = 0;

	pthread_mutex_lock(&p->lock);
	if (p->stopping) {
		r = -ESHUTDOWN;
	} else if (p->count == p->queue_len) {
		r = -EAGAIN;
		p->jobs_dropped++;
	} else {
		job->queued_us = now_us();
		p->queue[(p->head + p->count) % p->queue_len] = job;
		p->count++;
		pthread_cond_signal(&p->wake);
	}
	pthread_mutex_unlock(&p->lock);
	return r;
}

void worker_pool_cancel(struct worker_pool *p, struct reclaim_job *job)
{
	pthread_mutex_lock(&p->lock);
	atomic_store(&job->cancel, true);
	if (job->running) {
		pthread_kill(job->worker, SIGUSR1);
		pthread_cond_broadcast(&p->tokens_wake); /* if it waits for tokens */
	}
	pthread_mutex_unlock(&p->lock);
}

unsigned worker_pool_kick(struct worker_pool *p)
{
	unsigned n = 0;

	pthread_mutex_lock(&p->lock);
	for (unsigned i = 0; i < p->n_threads; i++) {
		struct reclaim_job *job = p->running[i];

		if (job && atomic_load(&job->cancel)) {
			pthread_kill(job->worker, SIGUSR1);
			n++;
		}
	}
	pthread_mutex_unlock(&p->lock);
	return n;
}

int worker_pool_event_fd(const struct worker_pool *p)
{
	return p->event_fd;
}

struct reclaim_job *worker_pool_drain(struct worker_pool *p)
{
	struct reclaim_job *list;
	uint64_t counter;

	pthread_mutex_lock(&p->lock);
	(void)!read(p->event_fd, &counter, sizeof(counter));
	list = p->done_head;
	p->done_head = p->done_tail = NULL;
	pthread_mutex_unlock(&p->lock);
	return list;
}

unsigned worker_pool_pending(struct worker_pool *p)
{
	unsigned n;

	pthread_mutex_lock(&p->lock);
	n = p->count;
	for (unsigned i = 0; i < p->n_threads; i++)
		n += p->running[i] != NULL;
	pthread_mutex_unlock(&p->lock);
	return n;
}

void worker_pool_stop(struct worker_pool *p)
{
	pthread_mutex_lock(&p->lock);
	if (p->stopping && p->n_threads == 0) {
		pthread_mutex_unlock(&p->lock);
		return;
	}
	p->stopping = true;
	for (unsigned i = 0; i < p->count; i++)
		atomic_store(&p->queue[(p->head + i) % p->queue_len]->cancel, true);
	for (unsigned i = 0; i < p->n_threads; i++)
		if (p->running && p->running[i]) {
			atomic_store(&p->running[i]->cancel, true);
			pthread_kill(p->running[i]->worker, SIGUSR1);
		}
	pthread_cond_broadcast(&p->wake);
	pthread_cond_broadcast(&p->tokens_wake);
	pthread_mutex_unlock(&p->lock);

	/* Re-signal until every running write has returned (see worker_pool_kick()). */
	for (;;) {
		unsigned busy = 0;

		pthread_mutex_lock(&p->lock);
		for (unsigned i = 0; i < p->n_threads; i++)
			if (p->running[i]) {
				pthread_kill(p->running[i]->worker, SIGUSR1);
				busy++;
			}
		pthread_mutex_unlock(&p->lock);
		if (!busy)
			break;
		usleep(20000);
	}
	for (unsigned i = 0; i < p->n_threads; i++)
		pthread_join(p->threads[i], NULL);
	p->n_threads = 0;
}

void worker_pool_free(struct worker_pool *p)
{
	struct reclaim_job *job;

	if (!p)
		return;
	worker_pool_stop(p);
	for (unsigned i = 0; i < p->count; i++)
		reclaim_job_free(p->queue[(p->head + i) % p->queue_len]);
	while ((job = p->done_head)) {
		p->done_head = job->next;
		reclaim_job_free(job);
	}
	if (p->event_fd >= 0)
		close(p->event_fd);
	free(p->queue);
	free(p->running);
	free(p->threads);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->wake);
	pthread_cond_destroy(&p->tokens_wake);
	free(p);
}

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
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/eventfd.h>

#include "reclaimd/actuator.h"

struct worker_pool {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int node;
	bool stopping;

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

		while (!p->stopping && p->count == 0)
			pthread_cond_wait(&p->wake, &p->lock);
		if (p->stopping)
			break;

		job = p->queue[p->head];
		p->head = (p->head + 1) % p->queue_len;
		p->count--;
		job->worker = pthread_self();
		job->running = true;
		p->running[slot] = job;
		pthread_mutex_unlock(&p->lock);

		if (atomic_load(&job->cancel)) {
			job->outcome = JOB_CANCELLED;
			job->started_us = job->finished_us = now_us();
		} else {
			reclaim_job_run(job);
		}

		pthread_mutex_lock(&p->lock);
		job->running = false;
		p->running[slot] = NULL;
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

int worker_pool_new(unsigned n_workers, unsigned queue_len, int node, struct worker_pool **ret)
{
	struct worker_pool *p;
	int r;

	if (n_workers == 0 || queue_len == 0)
		return -EINVAL;
	r = install_cancel_signal();
	if (r < 0)
		return r;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	p->node = node;
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

	for (unsigned i = 0; i < n_workers; i++) {
		struct worker_arg *arg = malloc(sizeof(*arg));

		if (!arg) {
			worker_pool_free(p);
			return -ENOMEM;
		}
		arg->pool = p;
		arg->slot = i;
		r = pthread_create(&p->threads[i], NULL, worker_main, arg);
		if (r != 0) {
			free(arg);
			worker_pool_free(p);
			return -r;
		}
		p->n_threads++;
	}
	*ret = p;
	return 0;
}

int worker_pool_submit(struct worker_pool *p, struct reclaim_job *job)
{
	int r = 0;

	pthread_mutex_lock(&p->lock);
	if (p->stopping) {
		r = -ESHUTDOWN;
	} else if (p->count == p->queue_len) {
		r = -EAGAIN;
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
	if (job->running)
		pthread_kill(job->worker, SIGUSR1);
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
	free(p);
}

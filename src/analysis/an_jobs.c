// SPDX-License-Identifier: MIT
/* Several analyses at once, their results used in order (an_jobs.h). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "analysis/an_jobs.h"

#define AN_JOBS_MAX 64

struct an_jobs {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t n, next, done; /* items; the next to start; items the caller is done with */
	unsigned jobs, nthreads;
	int stop;
	void **res;
	unsigned char *ready;
	void *(*work)(void *arg, size_t i);
	void (*drop)(void *arg, void *res);
	void *arg;
	pthread_t threads[AN_JOBS_MAX];
};

static void *worker(void *arg)
{
	struct an_jobs *j = arg;
	pthread_mutex_lock(&j->mu);
	for (;;) {
		while (!j->stop && j->next < j->n && j->next >= j->done + j->jobs)
			pthread_cond_wait(&j->cv, &j->mu);
		if (j->stop || j->next >= j->n)
			break;
		const size_t i = j->next++;
		pthread_mutex_unlock(&j->mu);
		void *r = j->work(j->arg, i);
		pthread_mutex_lock(&j->mu);
		j->res[i] = r;
		j->ready[i] = 1;
		pthread_cond_broadcast(&j->cv);
	}
	pthread_mutex_unlock(&j->mu);
	return NULL;
}

struct an_jobs *an_jobs_new(size_t n, unsigned jobs, void *(*work)(void *arg, size_t i),
			    void (*drop)(void *arg, void *res), void *arg)
{
	struct an_jobs *j = calloc(1, sizeof(*j));
	if (!j)
		return NULL;
	j->n = n;
	j->jobs = jobs < 1 ? 1 : jobs > AN_JOBS_MAX ? AN_JOBS_MAX : jobs;
	j->work = work;
	j->drop = drop;
	j->arg = arg;
	if (j->jobs < 2 || n < 2)
		return j; /* (one after the other, on the caller's thread) */
	j->res = calloc(n, sizeof(*j->res));
	j->ready = calloc(n, 1);
	if (!j->res || !j->ready) {
		free(j->res);
		free(j->ready);
		free(j);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&j->mu, NULL);
	pthread_cond_init(&j->cv, NULL);
	const unsigned want = j->jobs < n ? j->jobs : (unsigned)n;
	/* (a thread that cannot be made leaves its share to the others) */
	while (j->nthreads < want && pthread_create(&j->threads[j->nthreads], NULL, worker, j) == 0)
		j->nthreads++;
	if (!j->nthreads) { /* no thread at all: one after the other here */
		pthread_cond_destroy(&j->cv);
		pthread_mutex_destroy(&j->mu);
		free(j->res);
		free(j->ready);
		j->res = NULL;
		j->ready = NULL;
	}
	return j;
}

int an_jobs_threaded(const struct an_jobs *j)
{
	return j->nthreads > 0;
}

void *an_jobs_take(struct an_jobs *j, size_t i)
{
	if (!j->nthreads)
		return j->work(j->arg, i);
	pthread_mutex_lock(&j->mu);
	while (!j->ready[i])
		pthread_cond_wait(&j->cv, &j->mu);
	void *r = j->res[i];
	j->res[i] = NULL;
	j->ready[i] = 0;
	pthread_mutex_unlock(&j->mu);
	return r;
}

void an_jobs_done(struct an_jobs *j, size_t i)
{
	if (!j->nthreads)
		return;
	pthread_mutex_lock(&j->mu);
	if (i + 1 > j->done)
		j->done = i + 1;
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
}

void an_jobs_free(struct an_jobs *j)
{
	if (!j)
		return;
	if (j->nthreads) {
		pthread_mutex_lock(&j->mu);
		j->stop = 1;
		pthread_cond_broadcast(&j->cv);
		pthread_mutex_unlock(&j->mu);
		for (unsigned t = 0; t < j->nthreads; t++)
			pthread_join(j->threads[t], NULL);
		for (size_t i = 0; i < j->n; i++)
			if (j->ready[i] && j->drop)
				j->drop(j->arg, j->res[i]);
		pthread_cond_destroy(&j->cv);
		pthread_mutex_destroy(&j->mu);
	}
	free(j->res);
	free(j->ready);
	free(j);
}

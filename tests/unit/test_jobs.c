// SPDX-License-Identifier: MIT
/* Several analyses at once, used in order (analysis/an_jobs.h): every
 * item's result comes back to the caller in item order, each once, made by
 * the pool's threads with several jobs and by the caller's with one; no
 * more than `jobs` results are ever made and not yet done with (items
 * that finish out of order, the later ones first, wait for the caller);
 * stopping early drops each result made and not taken, once. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "analysis/an_jobs.h"
#include "check.h"

struct ctx {
	pthread_mutex_t mu;
	unsigned started, outstanding, most; /* results made or being made, not yet done with */
	unsigned dropped;
	pthread_t caller;
	int on_caller; /* items worked on by the caller's thread */
	size_t n;
};

static void *work(void *arg, size_t i)
{
	struct ctx *c = arg;
	pthread_mutex_lock(&c->mu);
	c->started++;
	if (++c->outstanding > c->most)
		c->most = c->outstanding;
	c->on_caller += pthread_equal(pthread_self(), c->caller) != 0;
	pthread_mutex_unlock(&c->mu);
	/* the early items take longest: later ones finish first */
	struct timespec ts = { 0, (long)(c->n - i) * 200000L };
	nanosleep(&ts, NULL);
	size_t *r = malloc(sizeof(*r));
	if (r)
		*r = i * 7 + 1;
	return r;
}

static void drop(void *arg, void *res)
{
	struct ctx *c = arg;
	pthread_mutex_lock(&c->mu);
	c->dropped++;
	pthread_mutex_unlock(&c->mu);
	free(res);
}

static void done_with(struct ctx *c)
{
	pthread_mutex_lock(&c->mu);
	c->outstanding--;
	pthread_mutex_unlock(&c->mu);
}

/* n items on jobs, all taken: in order, each once, at most jobs at once. */
static void all(size_t n, unsigned jobs)
{
	struct ctx c = { .mu = PTHREAD_MUTEX_INITIALIZER, .caller = pthread_self(), .n = n };
	struct an_jobs *j = an_jobs_new(n, jobs, work, drop, &c);
	CHECK(j != NULL);
	if (!j)
		return;
	CHECK_EQ(an_jobs_threaded(j), jobs > 1 && n > 1);
	for (size_t i = 0; i < n; i++) {
		size_t *r = an_jobs_take(j, i);
		CHECK(r != NULL);
		CHECK_EQ(r ? *r : 0, i * 7 + 1);
		free(r);
		done_with(&c);
		an_jobs_done(j, i);
	}
	an_jobs_free(j);
	CHECK_EQ(c.started, n);
	CHECK_EQ(c.dropped, 0);
	CHECK(c.most <= (jobs < 1 ? 1 : jobs));
	if (jobs > 1 && n > jobs)
		CHECK(c.most >= 2); /* (they did run at once) */
	CHECK_EQ(c.on_caller, jobs > 1 && n > 1 ? 0 : n);
}

/* Stopped after k of n items: those made and not taken are dropped. */
static void early(size_t n, unsigned jobs, size_t k)
{
	struct ctx c = { .mu = PTHREAD_MUTEX_INITIALIZER, .caller = pthread_self(), .n = n };
	struct an_jobs *j = an_jobs_new(n, jobs, work, drop, &c);
	CHECK(j != NULL);
	if (!j)
		return;
	for (size_t i = 0; i < k; i++) {
		free(an_jobs_take(j, i));
		done_with(&c);
		an_jobs_done(j, i);
	}
	an_jobs_free(j);
	CHECK(c.started >= k);
	CHECK(c.started <= k + jobs); /* (no more than jobs ahead of the caller) */
	CHECK_EQ(c.dropped, c.started - k);
}

int main(void)
{
	all(0, 4);
	all(1, 4);
	all(9, 1);
	all(9, 2);
	all(9, 3);
	all(20, 8);
	all(3, 64);
	early(12, 3, 4);
	early(12, 2, 0);
	early(5, 1, 2);
	return check_done("test_jobs");
}

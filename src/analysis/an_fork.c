// SPDX-License-Identifier: MIT
/*
 * A forked child starts from its parent's map as it stood at the fork.
 *
 * The parent's replay passes its children's forks long before their own
 * replays start (parents are replayed before children), so what it hands
 * each child waits. A copy of the whole map per child made a shell that ran
 * 3,000 commands hold 30M objects at once (3 GB, past the file's bound: "a
 * damaged file?"). Instead, at each fork the parent keeps what changed
 * since its previous fork: the objects gone and the objects new, by (layer,
 * start), against a sorted list of its map as it stood then. A child's map
 * is made when its replay starts, from the parent's list brought to its
 * fork by those changes (kept for the parent, one list at a time, moved
 * from fork to fork). A shell's map changes little between its forks: the
 * changes cost a few objects each, the list one map's worth.
 *
 * Replayed at once (an_procs.c), a child starts once its parent's replay
 * has ended: its state, whose classes name the list's objects, changes no
 * more; the child's classes are made from the parent's (an_par_class).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_int.h"

/* A list of objects by (layer, lo): each layer's ranges never overlap
 * (an MP_VEC's fields, named). */
struct an_fork_list {
	struct an_objmap_item *v;
	size_t n, cap;
};

/* What changed in the parent's map from one fork to the next. */
struct an_fork_delta {
	struct an_fork_list gone, added;
};

/* A parent's side: the list as its last fork saw it, the changes at each
 * of its forks (by its kids' order), and the list brought to one of them
 * for children starting. */
struct an_forks {
	struct an_fork_list last; /* the map at its latest fork */
	struct an_fork_delta *delta; /* by place in kids */
	struct an_fork_list at; /* the map at fork at_k - 1 (at_k 0: empty) */
	struct an_fork_list spare; /* (apply's and fork_note's) */
	uint32_t at_k, started; /* children that made their maps */
	pthread_mutex_t mu; /* at, started: children replayed at once */
};

static int before(const struct an_objmap_item *a, const struct an_objmap_item *b)
{
	return a->layer != b->layer ? a->layer < b->layer : a->lo < b->lo;
}

static int same(const struct an_objmap_item *a, const struct an_objmap_item *b)
{
	return a->layer == b->layer && a->lo == b->lo && a->hi == b->hi && a->cls == b->cls;
}

struct collect {
	struct an_fork_list *l;
	int err;
};

static void collect_one(void *arg, const struct an_obj *o)
{
	struct collect *c = arg;
	const struct an_objmap_item fo = { o->lo, o->hi, o->cls, o->layer };
	if (!c->err)
		c->err = mp_vec_push(c->l, fo);
}

/* What turns list a into list b, both sorted: into d. */
static int diff(const struct an_fork_list *a, const struct an_fork_list *b, struct an_fork_delta *d)
{
	size_t i = 0, j = 0;
	int err = 0;
	while (!err && (i < a->n || j < b->n)) {
		if (j == b->n || (i < a->n && before(&a->v[i], &b->v[j])))
			err = mp_vec_push(&d->gone, a->v[i++]);
		else if (i == a->n || before(&b->v[j], &a->v[i]))
			err = mp_vec_push(&d->added, b->v[j++]);
		else if (same(&a->v[i], &b->v[j]))
			i++, j++;
		else {
			err = mp_vec_push(&d->gone, a->v[i++]);
			if (!err)
				err = mp_vec_push(&d->added, b->v[j++]);
		}
	}
	return err;
}

/* l with the objects of gone taken out and those of added put in (both
 * sorted, gone's all in l), in place of l; spare is where it is made,
 * and holds the old l after (two buffers, not one made and freed at each
 * step: each of a shell's children's lists, a fresh page fault at every
 * page, took a third of its report). */
static int apply(struct an_fork_list *l, struct an_fork_list *spare, const struct an_fork_list *gone,
		 const struct an_fork_list *added)
{
	if (mp_vec_reserve(spare, l->n + added->n))
		return -ENOMEM;
	size_t i = 0, g = 0, a = 0, n = 0;
	while (i < l->n || a < added->n) {
		if (i < l->n && g < gone->n && same(&l->v[i], &gone->v[g])) {
			i++, g++;
			continue;
		}
		if (a == added->n || (i < l->n && before(&l->v[i], &added->v[a])))
			spare->v[n++] = l->v[i++];
		else
			spare->v[n++] = added->v[a++];
	}
	spare->n = n;
	const struct an_fork_list t = *l;
	*l = *spare;
	*spare = t;
	return 0;
}

static void forks_free(struct an_forks *f)
{
	if (!f)
		return;
	mp_vec_free(&f->last);
	mp_vec_free(&f->at);
	mp_vec_free(&f->spare);
	pthread_mutex_destroy(&f->mu);
	free(f->delta);
	free(f);
}

void an_fork_fini(struct an_proc *p)
{
	if (p->forks)
		for (uint32_t k = 0; k < p->nkids; k++) {
			mp_vec_free(&p->forks->delta[k].gone);
			mp_vec_free(&p->forks->delta[k].added);
		}
	forks_free(p->forks);
	p->forks = NULL;
}

/* The changes since the parent's last fork, kept for child k. */
static int fork_note(struct an_proc *p, uint32_t k)
{
	struct an_forks *f = p->forks;
	if (!f) {
		f = p->forks = calloc(1, sizeof(*f));
		if (!f || !(f->delta = calloc(p->nkids, sizeof(*f->delta)))) {
			forks_free(f);
			p->forks = NULL;
			return -ENOMEM;
		}
		pthread_mutex_init(&f->mu, NULL);
	}
	/* (the map now into spare, then spare and last swap) */
	f->spare.n = 0;
	struct collect c = { &f->spare, 0 };
	an_objmap_each(&p->map, collect_one, &c); /* (layer by layer, by start) */
	if (!c.err)
		c.err = diff(&f->last, &f->spare, &f->delta[k]);
	const struct an_fork_list t = f->last;
	f->last = f->spare;
	f->spare = t;
	return c.err;
}

void an_fork_passed(struct an_state *st, uint32_t pi, uint64_t epoch)
{
	struct an_proc *p = &st->procs.v[pi];
	for (; p->kids_next < p->nkids && st->procs.v[p->kids[p->kids_next]].fork_epoch <= epoch; p->kids_next++) {
		struct an_proc *c = &st->procs.v[p->kids[p->kids_next]];
		if (fork_note(p, p->kids_next))
			st->oom = 1;
		c->roi_depth = p->roi_depth; /* fork copies an open region too */
		an_proc_inherit_modules(st, c, p);
	}
	if (p->kids_next == p->nkids && p->forks && p->forks->last.v) {
		/* (no fork to come: only the changes stay) */
		mp_vec_free(&p->forks->last);
		mp_vec_free(&p->forks->spare);
	}
}

/* The list at child k's fork, in f->at: forward by the changes, or back
 * by their inverse (siblings' replays may come in another order than
 * their forks: a pipeline's two commands). */
static int bring_to(struct an_forks *f, uint32_t k)
{
	int err = 0;
	for (; !err && f->at_k > k + 1; f->at_k--)
		err = apply(&f->at, &f->spare, &f->delta[f->at_k - 1].added, &f->delta[f->at_k - 1].gone);
	for (; !err && f->at_k <= k; f->at_k++)
		err = apply(&f->at, &f->spare, &f->delta[f->at_k].gone, &f->delta[f->at_k].added);
	return err;
}

int an_fork_inherit(struct an_state *st, uint32_t ci)
{
	struct an_proc *c = &st->procs.v[ci];
	if (c->parent_at == UINT32_MAX)
		return 0;
	struct an_proc *p = &st->procs.v[c->parent_at];
	struct an_forks *f = p->forks;
	const uint32_t k = c->kid_at;
	if (!f || k >= p->kids_next)
		return 0; /* (a fork its parent's replay never passed) */
	/* replayed at once: the parent's state, whose classes the list names,
	 * and the child's own, to make them in */
	struct an_state *from = st->par ? an_par_state(st->par, c->parent_at) : NULL;
	uint32_t *cls_to = from ? calloc(from->classes.n + 1, sizeof(*cls_to)) : NULL;
	if (from && !cls_to)
		return -ENOMEM;
	pthread_mutex_lock(&f->mu);
	int err = bring_to(f, k);
	const size_t live = c->map.live;
	if (!err && an_map_room(st, f->at.n)) {
		/* (replayed at once, the list, which siblings share, is copied
		 * with the child's classes) */
		struct an_objmap_item *v = f->at.v;
		if (from && !(v = malloc((f->at.n ? f->at.n : 1) * sizeof(*v))))
			err = -ENOMEM;
		for (size_t i = 0; from && v && i < f->at.n; i++) {
			uint32_t cls = f->at.v[i].cls;
			if (!cls_to[cls])
				cls_to[cls] = an_par_class(from, st, cls) + 1;
			v[i] = f->at.v[i];
			v[i].cls = cls_to[cls] - 1;
		}
		if (v)
			err = an_objmap_load(&c->map, v, f->at.n);
		if (v != f->at.v)
			free(v);
	}
	const int last = ++f->started == p->kids_next && p->kids_next == p->nkids;
	pthread_mutex_unlock(&f->mu);
	free(cls_to);
	st->objects_live += (uint64_t)c->map.live - live;
	if (last && !err)
		an_fork_fini(p); /* (every child has its map) */
	return err;
}

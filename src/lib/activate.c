/*
 * activate.c - who gives way when a reservation activates on a slice that
 * is not free (jobtree/activate.h): structural cuts (spares, then malleable
 * groups), then the published lottery over whole gangs, in the slice's
 * first alternative the holders can cover.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/activate.h"
#include "jobtree/cover.h"
#include "jobtree/lottery.h"
#include "util/strbuf.h"

const char *jt_cut_kind_str (jt_cut_kind_t k)
{
    switch (k) {
    case JT_CUT_SPARE:
        return "DropSpare";
    case JT_CUT_SHRINK:
        return "Shrink";
    case JT_CUT_LOTTERY:
        return "RandomPreempt";
    }
    return "?";
}

void jt_activation_free (jt_activation_t *a)
{
    if (!a)
        return;
    free (a->cuts);
    free (a->draws);
    memset (a, 0, sizeof (*a));
}

/* A run of the holders: its holders are order[first .. first + n). */
typedef struct gang {
    const char *id, *owner;
    size_t first, n;
    int64_t left;               /* GPUs it still holds (spares excluded) */
    int64_t min;
    bool taken;
} gang_t;

typedef struct work {
    const jt_activation_req_t *req;
    const jt_slice_alt_t *alt;
    size_t *order;              /* holder indexes by (run, group) */
    ssize_t *need_of;           /* holder -> need index in alt, or -1 */
    bool *cut;                  /* holder already ended */
    int64_t *short_;            /* per need: GPUs still missing */
    gang_t *gangs;
    size_t ngangs;
    jt_activation_t *out;
} work_t;

static int by_run_group (const void *a, const void *b, void *arg)
{
    const jt_holder_t *hs = arg;
    const jt_holder_t *x = &hs[*(const size_t *) a];
    const jt_holder_t *y = &hs[*(const size_t *) b];
    int c = strcmp (x->run, y->run);

    if (c)
        return c;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return x->pool < y->pool ? -1 : x->pool > y->pool;
}

static bool any_short (const work_t *w)
{
    for (size_t i = 0; i < w->alt->nneeds; i++)
        if (w->short_[i] > 0)
            return true;
    return false;
}

/* Is holder h in a pool that is still short? */
static bool in_short (const work_t *w, size_t h)
{
    return w->need_of[h] >= 0 && w->short_[w->need_of[h]] > 0;
}

static int cut (work_t *w, size_t h, jt_cut_kind_t kind, size_t draw)
{
    jt_activation_t *o = w->out;
    const jt_holder_t *x = &w->req->holders[h];
    jt_cut_t *c = realloc (o->cuts, (o->ncuts + 1) * sizeof (*c));

    if (!c)
        return -1;
    o->cuts = c;
    o->cuts[o->ncuts++] = (jt_cut_t){ h, kind, draw };
    w->cut[h] = true;
    if (w->need_of[h] >= 0) {
        w->short_[w->need_of[h]] -= x->gpus;
        o->freed += x->gpus;
    }
    return 0;
}

/* 1. Spare leases in short pools, by run then group. */
static int cut_spares (work_t *w)
{
    for (size_t k = 0; k < w->req->nholders && any_short (w); k++) {
        size_t h = w->order[k];
        if (w->req->holders[h].role == JT_ROLE_SPARE && !w->cut[h] && in_short (w, h)
            && cut (w, h, JT_CUT_SPARE, 0) < 0)
            return -1;
    }
    return 0;
}

/* 2. Malleable runs give up whole groups in short pools, highest first,
 * never below their minimum; runs by id. */
static int cut_shrink (work_t *w)
{
    for (size_t g = 0; g < w->ngangs && any_short (w); g++) {
        gang_t *r = &w->gangs[g];
        for (size_t k = r->n; k-- > 0 && any_short (w);) {
            size_t h = w->order[r->first + k];
            const jt_holder_t *x = &w->req->holders[h];
            if (x->role == JT_ROLE_SPARE || w->cut[h] || !in_short (w, h)
                || r->left - x->gpus < r->min)
                continue;
            if (cut (w, h, JT_CUT_SHRINK, 0) < 0)
                return -1;
            r->left -= x->gpus;
        }
    }
    return 0;
}

/* GPUs run g would free in short pools now. */
static int64_t gain (const work_t *w, const gang_t *r)
{
    int64_t sum = 0;

    for (size_t k = 0; k < r->n; k++) {
        size_t h = w->order[r->first + k];
        if (!w->cut[h] && in_short (w, h))
            sum += w->req->holders[h].gpus;
    }
    return sum;
}

static int by_str (const void *a, const void *b)
{
    return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Several pools short (a reclaim: the envelope and the domain): when the
 * gangs holding GPUs in every short pool can cover every one of them, the
 * others are left out, so a gang that frees funding where the run cannot
 * go is not taken while one that frees both exists. */
static void keep_complete (const work_t *w, bool *in)
{
    const jt_slice_alt_t *alt = w->alt;
    int64_t *cover = calloc (alt->nneeds, sizeof (*cover));
    bool *all = calloc (w->ngangs + 1, sizeof (*all));
    bool enough = true;

    if (!cover || !all)
        goto out;               /* no narrowing: the plain conflict set */
    for (size_t g = 0; g < w->ngangs; g++) {
        const gang_t *r = &w->gangs[g];
        int64_t *held = NULL;
        if (!in[g])
            continue;
        if (!(held = calloc (alt->nneeds, sizeof (*held))))
            goto out;
        for (size_t k = 0; k < r->n; k++) {
            size_t h = w->order[r->first + k];
            if (!w->cut[h] && w->need_of[h] >= 0)
                held[w->need_of[h]] += w->req->holders[h].gpus;
        }
        all[g] = true;
        for (size_t i = 0; i < alt->nneeds; i++)
            if (w->short_[i] > 0 && held[i] <= 0)
                all[g] = false;
        for (size_t i = 0; all[g] && i < alt->nneeds; i++)
            cover[i] += held[i];
        free (held);
    }
    for (size_t i = 0; i < alt->nneeds; i++)
        if (w->short_[i] > 0 && cover[i] < w->short_[i])
            enough = false;
    if (enough)
        for (size_t g = 0; g < w->ngangs; g++)
            in[g] = in[g] && all[g];
out:
    free (cover);
    free (all);
}

/* 3. The lottery over whole gangs. */
static int lottery (work_t *w)
{
    jt_activation_t *o = w->out;
    jt_lottery_t lot;
    const char **owners = calloc (w->ngangs + 1, sizeof (*owners));
    size_t *cand = calloc (w->ngangs + 1, sizeof (*cand));
    bool *in = calloc (w->ngangs + 1, sizeof (*in));
    int rc = -1;

    if (!owners || !cand || !in)
        goto out;
    jt_lottery_init (&lot, o->rho);
    while (any_short (w)) {
        int64_t need = 0, local = 0;
        size_t nown = 0, nrun = 0, pick = 0;
        jt_draw_t *d;
        bool only_local;

        for (size_t i = 0; i < w->alt->nneeds; i++)
            if (w->short_[i] > 0)
                need += w->short_[i];
        /* the conflict set, and whether its local runs can cover alone */
        for (size_t g = 0; g < w->ngangs; g++) {
            int64_t gn = w->gangs[g].taken ? 0 : gain (w, &w->gangs[g]);
            in[g] = gn > 0;
            if (in[g] && gn >= w->gangs[g].left - gn)
                local += gn;
        }
        only_local = local >= need;
        for (size_t g = 0; g < w->ngangs; g++)
            if (in[g] && only_local) {
                int64_t gn = gain (w, &w->gangs[g]);
                in[g] = gn >= w->gangs[g].left - gn;
            }
        if (w->alt->nneeds > 1)
            keep_complete (w, in);
        for (size_t g = 0; g < w->ngangs; g++)
            if (in[g])
                owners[nown++] = w->gangs[g].owner;
        if (!nown)
            break;                              /* nothing left to take */
        qsort (owners, nown, sizeof (*owners), by_str);
        {
            size_t m = 0;
            for (size_t i = 0; i < nown; i++)
                if (!m || strcmp (owners[m - 1], owners[i]))
                    owners[m++] = owners[i];
            nown = m;
        }
        d = realloc (o->draws, (o->ndraws + 1) * sizeof (*d));
        if (!d)
            goto out;
        o->draws = d;
        d = &o->draws[o->ndraws];
        d->nowners = nown;
        d->owner = (size_t) jt_lottery_below (&lot, nown);
        /* the owner's runs, by id (gangs are sorted by id already) */
        for (size_t g = 0; g < w->ngangs; g++)
            if (in[g] && !strcmp (w->gangs[g].owner, owners[d->owner]))
                cand[nrun++] = g;
        d->nruns = nrun;
        d->run = (size_t) jt_lottery_below (&lot, nrun);
        pick = cand[d->run];
        d->run_id = w->gangs[pick].id;
        o->ndraws++;
        w->gangs[pick].taken = true;
        for (size_t k = 0; k < w->gangs[pick].n; k++) {
            size_t h = w->order[w->gangs[pick].first + k];
            if (!w->cut[h] && cut (w, h, JT_CUT_LOTTERY, o->ndraws - 1) < 0)
                goto out;
        }
    }
    rc = 0;
out:
    free (owners);
    free (cand);
    free (in);
    return rc;
}

/* Could the holders cover every need of alt at all? */
static bool coverable (const jt_activation_req_t *req, const jt_slice_alt_t *alt)
{
    for (size_t i = 0; i < alt->nneeds; i++) {
        int64_t have = 0;
        if (alt->needs[i].deficit <= 0)
            continue;
        for (size_t h = 0; h < req->nholders; h++)
            if (req->holders[h].pool == alt->needs[i].pool)
                have += req->holders[h].gpus;
        if (have < alt->needs[i].deficit)
            return false;
    }
    return true;
}

static int resolve (work_t *w)
{
    const jt_activation_req_t *req = w->req;
    size_t n = req->nholders;

    for (size_t i = 0; i < w->alt->nneeds; i++) {
        w->short_[i] = w->alt->needs[i].deficit;
        if (w->short_[i] > 0)
            w->out->deficit += w->short_[i];
    }
    for (size_t h = 0; h < n; h++) {
        w->need_of[h] = -1;
        for (size_t i = 0; i < w->alt->nneeds; i++)
            if (req->holders[h].pool == w->alt->needs[i].pool)
                w->need_of[h] = (ssize_t) i;
    }
    if (cut_spares (w) < 0 || cut_shrink (w) < 0 || lottery (w) < 0)
        return -1;
    w->out->resolved = !any_short (w);
    return 0;
}

int jt_activate (const jt_activation_req_t *req, jt_activation_t *out,
                 jt_error_t *err)
{
    work_t w = { .req = req, .out = out };
    size_t n = req->nholders, maxneeds = 1;
    int rc = -1;

    memset (out, 0, sizeof (*out));
    for (size_t h = 0; h < n; h++)
        if (!req->holders[h].run || !req->holders[h].owner
            || req->holders[h].gpus < 0)
            return jt_errprintf (err, "activation: holder %zu without run, "
                                 "owner or with negative GPUs", h);
    for (size_t a = 0; a < req->nalts; a++)
        if (req->alts[a].nneeds > maxneeds)
            maxneeds = req->alts[a].nneeds;
    if (jt_lottery_seed (req->scope, req->resv_id, req->time, &out->rho, err) < 0)
        return -1;
    w.order = calloc (n + 1, sizeof (*w.order));
    w.need_of = calloc (n + 1, sizeof (*w.need_of));
    w.cut = calloc (n + 1, sizeof (*w.cut));
    w.gangs = calloc (n + 1, sizeof (*w.gangs));
    w.short_ = calloc (maxneeds, sizeof (*w.short_));
    if (!w.order || !w.need_of || !w.cut || !w.gangs || !w.short_) {
        jt_errprintf (err, "activation: out of memory");
        goto out;
    }
    for (size_t h = 0; h < n; h++)
        w.order[h] = h;
    if (n)
        qsort_r (w.order, n, sizeof (*w.order), by_run_group,
                 (void *) req->holders);
    for (size_t k = 0; k < n; k++) {
        const jt_holder_t *x = &req->holders[w.order[k]];
        gang_t *g = w.ngangs ? &w.gangs[w.ngangs - 1] : NULL;
        if (!g || strcmp (g->id, x->run)) {
            g = &w.gangs[w.ngangs++];
            *g = (gang_t){ .id = x->run, .owner = x->owner, .first = k,
                           .left = x->run_gpus, .min = x->run_min_gpus };
        }
        g->n++;
    }
    out->alt = req->nalts;
    for (size_t a = 0; a < req->nalts; a++)
        if (coverable (req, &req->alts[a])) {
            out->alt = a;
            w.alt = &req->alts[a];
            break;
        }
    if (!w.alt) {
        rc = 0;
        goto out;
    }
    if (resolve (&w) < 0) {
        jt_errprintf (err, "activation: out of memory");
        goto out;
    }
    rc = 0;
out:
    free (w.order);
    free (w.need_of);
    free (w.cut);
    free (w.gangs);
    free (w.short_);
    if (rc < 0)
        jt_activation_free (out);
    return rc;
}

char *jt_activation_dump (const jt_activation_t *a, const jt_activation_req_t *req)
{
    jt_strbuf_t b = JT_STRBUF_INIT;

    jt_strbuf_printf (&b, "%s alt=%zu deficit=%" PRId64 " freed=%" PRId64
                      " rho=%016" PRIx64, a->resolved ? "resolved" : "unresolved",
                      a->alt, a->deficit, a->freed, a->rho);
    for (size_t i = 0; i < a->ncuts; i++) {
        const jt_cut_t *c = &a->cuts[i];
        const jt_holder_t *h = &req->holders[c->holder];
        jt_strbuf_printf (&b, " | %s %s/%d", jt_cut_kind_str (c->kind), h->run,
                          h->group);
        if (c->kind == JT_CUT_LOTTERY) {
            const jt_draw_t *d = &a->draws[c->draw];
            jt_strbuf_printf (&b, " draw %zu owner %zu/%zu run %zu/%zu", c->draw,
                              d->owner, d->nowners, d->run, d->nruns);
        }
    }
    return jt_strbuf_take (&b);
}

/* ---- A reserved run's slice in a live snapshot ---- */

void jt_activation_slice_free (jt_activation_slice_t *sl)
{
    if (!sl)
        return;
    for (size_t i = 0; i < sl->npools; i++)
        free (sl->pools[i]);
    free (sl->pools);
    free (sl->alt_cand);
    free (sl->scope);
    free (sl->alts);
    free (sl->needs);
    free (sl->holders);
    memset (sl, 0, sizeof (*sl));
}

/* Per snapshot node: the one lease on it, or -1 (none), or -2 (several). */
static ssize_t *node_owners (const jt_snapshot_t *s)
{
    ssize_t *own = malloc ((s->nnodes + 1) * sizeof (*own));

    if (!own)
        return NULL;
    for (size_t k = 0; k < s->nnodes; k++)
        own[k] = -1;
    for (size_t l = 0; l < s->nleases; l++)
        for (size_t j = 0; j < s->leases[l].nnodes; j++) {
            ssize_t k = jt_snapshot_node_index (s, s->leases[l].nodes[j]);
            if (k >= 0)
                own[k] = own[k] == -1 ? (ssize_t) l : -2;
        }
    return own;
}

/* GPUs lease l frees on set c: its nodes there that nothing else uses. */
static int64_t lease_frees (const jt_snapshot_t *s, const ssize_t *own, size_t l,
                            const jt_node_set_t *c)
{
    const jt_lease_t *le = &s->leases[l];
    int64_t share = le->nnodes ? le->gpus / (int64_t) le->nnodes : 0, sum = 0;

    for (size_t j = 0; j < c->nnodes; j++) {
        const jt_node_t *n = &s->nodes[c->nodes[j]];
        if (own[c->nodes[j]] == (ssize_t) l && n->state == JT_NODE_UP
            && n->used_gpus <= share)
            sum += n->gpus;
    }
    return sum;
}

static int lease_by_run (const void *a, const void *b, void *arg)
{
    const jt_snapshot_t *s = arg;
    size_t x = *(const size_t *) a, y = *(const size_t *) b;
    int c = strcmp (s->leases[x].run, s->leases[y].run);

    return c ? c : (x > y) - (x < y);
}

/* Does lease le count for this slice: a run that may give way and, when
 * reclaiming, a lease the envelope pays for another owner. */
static bool slice_lease (const jt_lease_t *le, const jt_reclaim_t *fund)
{
    if (fund && fund->cap) {    /* any lease one of the cap's envelopes pays */
        for (size_t j = 0; le->envelope && j < fund->cap->nenvelopes; j++)
            if (!strcmp (le->envelope, fund->cap->envelopes[j]))
                return true;
        return false;
    }
    return !fund || (le->envelope && !strcmp (le->envelope, fund->envelope)
                     && (!le->owner || strcmp (le->owner, fund->owner)));
}

int jt_activation_slice (const jt_snapshot_t *s, const jt_node_set_t *cands,
                         size_t ncands, uint32_t cand_nodes, const char *flavor,
                         const jt_reclaim_t *fund, const char *self,
                         const char *resv_id, int64_t time, bool structural,
                         jt_yield_fn yield, void *arg,
                         jt_activation_slice_t *out, jt_error_t *err)
{
    int64_t gpn = jt_snapshot_gpus_per_node (s, flavor);
    int64_t *run_gpus = NULL, *run_min = NULL;
    ssize_t *own = NULL;
    size_t *dom_alt = NULL;
    jt_strbuf_t scope = JT_STRBUF_INIT;
    size_t nh = 0, base = fund ? 1 : 0, nalts = 0, nneeds = 0;

    memset (out, 0, sizeof (*out));
    if (fund && (fund->deficit <= 0 || !fund->envelope || !fund->owner))
        return jt_errprintf (err, "activation: a reclaim without envelope, "
                             "owner or deficit");
    if (!(own = node_owners (s))
        || !(out->pools = calloc (ncands + 2, sizeof (*out->pools)))
        || !(out->alt_cand = calloc (ncands + 1, sizeof (*out->alt_cand)))
        || !(out->alts = calloc (ncands + 1, sizeof (*out->alts)))
        || !(out->needs = calloc (2 * (ncands + 1), sizeof (*out->needs)))
        || !(dom_alt = calloc (ncands + 1, sizeof (*dom_alt)))
        || !(run_gpus = calloc (s->nleases + 1, sizeof (*run_gpus)))
        || !(run_min = calloc (s->nleases + 1, sizeof (*run_min))))
        goto nomem;
    if (fund) {
        if (fund->cap)
            jt_strbuf_printf (&scope, "cap:%s", fund->cap->name);
        else
            jt_strbuf_printf (&scope, "envelope:%s", fund->envelope);
        if (!(out->pools[0] = jt_strbuf_take (&scope)))
            goto nomem;
        out->npools = 1;
    }
    /* alternatives: single-domain sets that are short of room (or, when
     * reclaiming, every single-domain set: the funding is short) */
    for (size_t i = 0; i < ncands; i++) {
        const jt_node_set_t *c = &cands[i];
        int64_t free_gpus = 0, room;
        size_t pool = out->npools;
        jt_need_t *nd = &out->needs[nneeds];
        if (c->domain < 0 || (size_t) c->domain >= s->ndomains)
            continue;
        /* one alternative per domain (a pool is named by its domain): of
         * several sets in one domain (group-by classes), the first */
        bool seen = false;
        for (size_t a = 0; a < nalts && !seen; a++)
            seen = cands[out->alt_cand[a]].domain == c->domain;
        if (seen)
            continue;
        for (size_t j = 0; j < c->nnodes; j++) {
            const jt_node_t *n = &s->nodes[c->nodes[j]];
            if (n->state == JT_NODE_UP && n->used_gpus == 0)
                free_gpus += n->gpus;
        }
        room = (int64_t) cand_nodes * gpn - free_gpus;
        if (room <= 0 && !fund)
            continue;
        if (!(out->pools[pool] = strdup (s->domains[c->domain].name)))
            goto nomem;
        out->npools++;
        out->alt_cand[nalts] = i;
        dom_alt[nalts] = pool;
        if (fund)
            nd[0] = (jt_need_t){ 0, fund->deficit };
        nd[base] = (jt_need_t){ pool, room };
        out->alts[nalts] = (jt_slice_alt_t){ nd, base + 1 };
        nneeds += base + 1;
        nalts++;
    }
    /* each yielding run's GPUs (its global cost) and minimum, per lease:
     * leases sorted by run, one yield() per run */
    {
        size_t *ord = malloc ((s->nleases + 1) * sizeof (*ord));
        if (!ord)
            goto nomem;
        for (size_t l = 0; l < s->nleases; l++)
            ord[l] = l;
        if (s->nleases)
            qsort_r (ord, s->nleases, sizeof (*ord), lease_by_run, (void *) s);
        for (size_t i = 0, j; i < s->nleases; i = j) {
            const char *run = s->leases[ord[i]].run;
            int64_t total = 0, min;
            for (j = i; j < s->nleases && !strcmp (s->leases[ord[j]].run, run); j++)
                if (!structural || s->leases[ord[j]].role != JT_ROLE_SPARE)
                    total += s->leases[ord[j]].gpus;
            min = total;
            if (!strcmp (run, self) || total <= 0 || !yield (run, &min, arg))
                continue;
            for (size_t k = i; k < j; k++) {
                run_gpus[ord[k]] = total;
                run_min[ord[k]] = structural && min >= 0 && min <= total ? min : total;
            }
        }
        free (ord);
    }
    if (!(out->holders = calloc ((s->nleases + 1) * (out->npools + 1),
                                 sizeof (*out->holders))))
        goto nomem;
    for (size_t l = 0; l < s->nleases; l++) {
        const jt_lease_t *le = &s->leases[l];
        jt_holder_t h = {
            .run = le->run, .owner = le->owner ? le->owner : "",
            .group = le->group,
            .role = structural ? le->role
                    : le->role == JT_ROLE_SPARE ? JT_ROLE_ACTIVE : le->role,
            .run_gpus = run_gpus[l], .run_min_gpus = run_min[l],
        };
        if (!run_gpus[l] || !slice_lease (le, fund))
            continue;
        if (fund && le->gpus > 0) {             /* what it uses of the envelope */
            h.gpus = le->gpus;
            h.pool = 0;
            out->holders[nh++] = h;
        }
        for (size_t a = 0; a < nalts; a++) {
            h.gpus = lease_frees (s, own, l, &cands[out->alt_cand[a]]);
            h.pool = dom_alt[a];
            if (h.gpus > 0)
                out->holders[nh++] = h;
        }
    }
    /* Only the alternatives the holders could clear are the slice's
     * scope: a domain nobody may leave (a plain job, a run not offered) is
     * no candidate, whether the caller's node set showed it busy or left
     * it out, so slurmctld and `jobtree plan --activate` publish the same
     * scope and seed. */
    {
        size_t kept = 0;
        if (fund)
            jt_strbuf_printf (&scope, "%s", out->pools[0]);
        for (size_t a = 0; a < nalts; a++) {
            const jt_slice_alt_t *alt = &out->alts[a];
            bool can = true;
            for (size_t i = 0; i < alt->nneeds && can; i++) {
                int64_t have = 0;
                for (size_t h = 0; h < nh; h++)
                    if (out->holders[h].pool == alt->needs[i].pool)
                        have += out->holders[h].gpus;
                can = alt->needs[i].deficit <= 0 || have >= alt->needs[i].deficit;
            }
            if (!can)
                continue;
            jt_strbuf_printf (&scope, "%s%s", fund || kept ? "," : "",
                              out->pools[dom_alt[a]]);
            out->alts[kept] = out->alts[a];
            out->alt_cand[kept] = out->alt_cand[a];
            dom_alt[kept] = dom_alt[a];
            kept++;
        }
        nalts = kept;
    }
    if (!(out->scope = jt_strbuf_take (&scope)))
        goto nomem;
    out->req = (jt_activation_req_t){
        .scope = out->scope, .resv_id = resv_id, .time = time,
        .alts = out->alts, .nalts = nalts,
        .holders = out->holders, .nholders = nh,
    };
    free (own);
    free (dom_alt);
    free (run_gpus);
    free (run_min);
    return 0;
nomem:
    free (jt_strbuf_take (&scope));
    free (own);
    free (dom_alt);
    free (run_gpus);
    free (run_min);
    jt_activation_slice_free (out);
    return jt_errprintf (err, "activation: out of memory");
}

/* What a candidate is short of: its own concurrency, lent to other owners
 * (a reclaim), or an aggregate cap's, in use (a cap wait). */
typedef enum { SHORT_LENT, SHORT_CAP } short_of_t;

/* The walk jt_reclaim_need and jt_cap_need share: Cover's candidates for r
 * in order (a reclaim: the owner's own envelopes; a cap wait: all but
 * sponsors'). 0 at the first whose headroom funds gpus (nothing need give
 * way), or when none qualifies; 1 at the first short of `of` whose
 * shortfall the GPUs held there (lent away, or active under the cap) would
 * make up: *out its envelope, deficit gpus - headroom, and the cap; -1
 * with err. */
static int first_short (const jt_budgets_t *b, const jt_usage_t *u,
                        const jt_run_t *r, int64_t gpus, int64_t now, short_of_t of,
                        jt_reclaim_t *out, jt_error_t *err)
{
    jt_coverer_t *c = jt_coverer_create (b, u, r, now, err);
    int rc = 0;

    memset (out, 0, sizeof (*out));
    if (!c)
        return -1;
    for (size_t i = 0; i < jt_coverer_count (c); i++) {
        const jt_cover_cand_t *cand = jt_coverer_cand (c, i);
        const jt_envelope_t *e = cand->env;
        const jt_aggcap_t *cap = NULL;
        int64_t h, held = 0;
        if (of == SHORT_LENT ? cand->source != JT_SRC_OWNER : cand->source == JT_SRC_SPONSOR)
            continue;
        h = jt_coverer_headroom (c, i, NULL);
        if (h >= gpus)
            break;                      /* a candidate funds it: none */
        if ((size_t) e->id >= u->nenv)
            continue;
        if (of == SHORT_LENT) {
            /* the owner's own concurrency binds, full or not: with 8 GPUs
             * free and 16 lent, a 16-GPU run reclaims 8 */
            if (jt_coverer_bound (c, i) != JT_INSUFFICIENT_CAPACITY)
                continue;
            held = u->lent_active[e->id];
        } else {
            if (!(cap = jt_coverer_cap_binding (c, i))
                || e->concurrency - u->active[e->id] < gpus)
                continue;
            for (size_t j = 0; j < cap->nenvelopes; j++)
                if (cap->env_ids && cap->env_ids[j] < u->nenv)
                    held += u->active[cap->env_ids[j]];
        }
        if (h + held < gpus)
            continue;
        *out = (jt_reclaim_t){ e->name, r->owner, gpus - h, cap };
        rc = 1;
        break;
    }
    jt_coverer_destroy (c);
    return rc;
}

int jt_reclaim_need (const jt_budgets_t *b, const jt_usage_t *u,
                     const jt_run_t *r, int64_t gpus, int64_t now,
                     jt_reclaim_t *out, jt_error_t *err)
{
    return first_short (b, u, r, gpus, now, SHORT_LENT, out, err);
}

int jt_cap_need (const jt_budgets_t *b, const jt_usage_t *u,
                 const jt_run_t *r, int64_t gpus, int64_t now,
                 jt_reclaim_t *out, jt_error_t *err)
{
    return first_short (b, u, r, gpus, now, SHORT_CAP, out, err);
}

const char **jt_activation_runs (const jt_activation_t *a,
                                 const jt_activation_req_t *req, size_t *n,
                                 jt_error_t *err)
{
    const char **v;

    *n = 0;
    if (!a->ncuts)
        return NULL;
    if (!(v = calloc (a->ncuts, sizeof (*v)))) {
        jt_errprintf (err, "activation: out of memory");
        return NULL;
    }
    for (size_t i = 0; i < a->ncuts; i++) {
        const char *run = req->holders[a->cuts[i].holder].run;
        bool seen = false;
        for (size_t k = 0; k < *n && !seen; k++)
            seen = !strcmp (v[k], run);
        if (!seen)
            v[(*n)++] = run;
    }
    return v;
}

int jt_activation_applies (const jt_sched_request_t *now_req, jt_answer_t *e,
                           jt_reclaim_t *fund, jt_error_t *err)
{
    jt_sched_request_t req = *now_req;
    jt_usage_t u;
    int rc;

    memset (fund, 0, sizeof (*fund));
    req.tense = JT_TENSE_ESTIMATE;
    if (jt_sched_answer (&req, e, err) < 0)
        return -1;
    if (e->kind != JT_ANSWER_ESTIMATE)
        return 0;
    if (e->not_before == 0)
        return 1;                       /* funded now: room is missing */
    if (jt_usage_from_snapshot (&u, req.budgets, req.snap, req.now, NULL) < 0) {
        jt_answer_free (e);
        return jt_errprintf (err, "activation: out of memory");
    }
    if (req.closed_hours)
        req.closed_hours (&u, req.budgets, req.closed_hours_arg);
    rc = jt_reclaim_need (req.budgets, &u, req.run, e->cand_gpus, req.now, fund, err);
    if (rc == 1) {
        rc = 2;                         /* a reclaim, at once */
    } else if (rc == 0) {
        /* held by an aggregate cap: activated at MaxWait, like room */
        rc = jt_cap_need (req.budgets, &u, req.run, e->cand_gpus, req.now, fund, err);
    }
    jt_usage_free (&u);
    if (rc < 0)
        jt_answer_free (e);
    return rc < 0 ? -1 : rc;
}

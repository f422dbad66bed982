/*
 * activate_slice.c - a reserved run's activation request in a live
 * snapshot (jt_activation_slice: its single-domain estimate sets as the
 * alternatives, the snapshot's leases as the holders) and the funding a
 * slice may reclaim (jt_reclaim_need: what the run's owner lent away;
 * jt_cap_need: what an aggregate cap holds). Who gives way on it is
 * activate.c's (jt_activate).
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/activate.h"
#include "jobtree/cover.h"
#include "util/strbuf.h"

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

/* ---- the nodes an activation clears for its run ---- */

static bool run_cut (const jt_activation_t *a, const jt_activation_req_t *req,
                     const char *run)
{
    for (size_t i = 0; run && i < a->ncuts; i++)
        if (a->cuts[i].holder < req->nholders
            && !strcmp (req->holders[a->cuts[i].holder].run, run))
            return true;
    return false;
}

int jt_activation_cleared (const jt_snapshot_t *s, const jt_node_set_t *set,
                           const jt_activation_t *a, const jt_activation_req_t *req,
                           jt_node_set_t *out, jt_error_t *err)
{
    bool *kept, *cut;

    memset (out, 0, sizeof (*out));
    out->domain = set->domain;
    kept = calloc (s->nnodes ? s->nnodes : 1, sizeof (*kept));
    cut = calloc (s->nnodes ? s->nnodes : 1, sizeof (*cut));
    out->nodes = malloc ((set->nnodes ? set->nnodes : 1) * sizeof (*out->nodes));
    if (!kept || !cut || !out->nodes) {
        free (kept);
        free (cut);
        free (out->nodes);
        memset (out, 0, sizeof (*out));
        return jt_errprintf (err, "activation: out of memory");
    }
    for (size_t i = 0; i < s->nleases; i++) {
        const jt_lease_t *l = &s->leases[i];
        bool gone = run_cut (a, req, l->run);
        for (size_t j = 0; j < l->nnodes; j++) {
            ssize_t k = jt_snapshot_node_index (s, l->nodes[j]);
            if (k >= 0)
                *(gone ? &cut[k] : &kept[k]) = true;
        }
    }
    for (size_t i = 0; i < set->nnodes; i++) {
        size_t k = set->nodes[i];
        if (k < s->nnodes && !kept[k] && (cut[k] || s->nodes[k].used_gpus == 0))
            out->nodes[out->nnodes++] = k;
    }
    free (kept);
    free (cut);
    return 0;
}

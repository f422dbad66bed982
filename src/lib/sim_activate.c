/*
 * sim_activate.c - activation in the simulator (sim_engine.h), decided as
 * slurmctld's adapter (plugins/select/activation.c) decides it: when a
 * reserved run may not start now, jt_activation_applies says whether an
 * activation is due (room at the reservation's creation + MaxWait, once;
 * a reclaim of what its owner lent, at once, once), jt_activation_slice
 * builds the choice from the run's estimate sets and the snapshot's
 * leases, and jt_activate picks who gives way by the published lottery,
 * seeded by the reservation's id and the activation instant. The runs it
 * takes are requeued whole (PreemptMode=REQUEUE); spare drops and shrinks
 * are not modelled (an adapter that ends whole jobs: structural false).
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "jobtree/activate.h"
#include "sim_engine.h"

/* Every running run may give way (preempt/jobtree offers Jobtree runs
 * only, and plain jobs hold no leases); none is malleable here. */
static int may_yield (const char *run, int64_t *min_gpus, void *arg)
{
    (void) run;
    (void) min_gpus;
    (void) arg;
    return 1;
}

/* The job whose id is `id`, by binary search over m->by_id. */
static ssize_t job_of (const sim_t *m, const char *id)
{
    size_t lo = 0, hi = m->t->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp (id, m->t->jobs[m->by_id[mid]].id);
        if (c == 0)
            return (ssize_t) m->by_id[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return -1;
}

int jt_simx_activate (sim_t *m, size_t j, const jt_sched_request_t *now_req,
                      int64_t now, jt_error_t *err)
{
    const jt_run_t *run = m->run[j];
    bool due_room, due_reclaim;
    jt_activation_slice_t sl;
    jt_activation_t a;
    jt_reclaim_t reclaim, *fund = NULL;
    const char **runs = NULL;
    size_t nruns = 0;
    jt_answer_t e;
    char resv[512];
    int64_t at;
    int rc = 0, kind;

    if (!m->p->preempt || m->created[j] < 0)
        return 0;
    due_room = m->p->max_wait > 0 && now >= m->created[j] + m->p->max_wait
               && !(m->activated[j] & 1);
    due_reclaim = !(m->activated[j] & 2);
    if (!due_room && !due_reclaim)
        return 0;
    memset (&sl, 0, sizeof (sl));
    memset (&a, 0, sizeof (a));
    m->r->answers++;
    if ((kind = jt_activation_applies (now_req, &e, &reclaim, err)) < 0)
        return -1;
    if (kind == 0 || (kind == 1 && !due_room) || (kind == 2 && !due_reclaim))
        goto out;
    if (kind == 2) {
        fund = &reclaim;
        at = m->created[j];
    } else
        at = m->created[j] + m->p->max_wait;
    snprintf (resv, sizeof (resv), "%s:resv:%" PRId64, run->id, m->o->epoch + m->created[j]);
    if (jt_activation_slice (m->s, e.cands, e.ncands, e.cand_nodes, run->flavor,
                             fund, run->id, resv, m->o->epoch + at, false,
                             may_yield, NULL, &sl, err) < 0) {
        rc = -1;
        goto out;
    }
    if (jt_activate (&sl.req, &a, err) < 0) {
        rc = -1;
        goto out;
    }
    if (!sl.req.nalts || !a.resolved)
        goto out;
    m->activated[j] |= kind == 2 ? 2 : 1;
    runs = jt_activation_runs (&a, &sl.req, &nruns, err);
    for (size_t i = 0; i < nruns && rc >= 0; i++) {
        ssize_t v = job_of (m, runs[i]);
        if (v < 0 || (size_t) v == j || m->r->state[v] != SIM_RUNNING)
            continue;
        if (jt_simx_evict (m, (size_t) v, now, err) < 0)
            rc = -1;
        else
            rc++;
    }
out:
    free (runs);
    jt_activation_free (&a);
    jt_activation_slice_free (&sl);
    jt_answer_free (&e);
    return rc;
}

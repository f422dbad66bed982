/*
 * job_submit_jobtree.c - job_submit/jobtree: admission of Jobtree runs.
 *
 * slurmctld calls job_submit() for every new job, holding the config, job,
 * node and partition read locks (so the node table may be read, never
 * locked). For a job that carries Jobtree options (from the SPANK plugin,
 * in its SPANK environment) -- or any GPU job with PlainGpuJobs=jobtree --
 * it builds the Run (owner = account, flavor = GPU type, totalGPUs from the
 * GPU request), checks it is well formed and that some envelope could ever
 * fund it (jt_cover_ever), and records the Run and its intended funding in
 * admin_comment (format in include/jobtree/record.h and the admin guide).
 * Everything else passes through untouched.
 *
 * Refusals are one line each, "jobtree: ...", returned to sbatch through
 * err_msg with an ESLURM code. Nothing here may exit, abort or fatal():
 * a bad budget file keeps the last good budgets (plugins/common/state.c).
 */
#include "config.h"             /* Slurm's, via -iquote $(SLURM_SRC) */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm_errno.h"
#include "src/common/slurm_xlator.h"
#include "src/common/assoc_mgr.h"
#include "src/common/uid.h"
#include "src/slurmctld/slurmctld.h"

#include "jobtree/budget.h"
#include "jobtree/config.h"
#include "jobtree/cover.h"
#include "jobtree/gres.h"
#include "jobtree/options.h"
#include "jobtree/record.h"
#include "jobtree/run.h"

#include "state.h"

const char plugin_name[] = "Jobtree admission (budgets, groups, options)";
const char plugin_type[] = "job_submit/jobtree";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

static jt_pstate_t state = { .who = "job_submit/jobtree" };

extern int init (void)
{
    jt_pstate_refresh (&state);
    return SLURM_SUCCESS;
}

extern int fini (void)
{
    jt_pstate_fini (&state);
    return SLURM_SUCCESS;
}

/* Refuse the job: one line to the user, the same line in the log. */
static int refuse (char **err_msg, int code, uint32_t uid, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));
static int refuse (char **err_msg, int code, uint32_t uid, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (buf, sizeof (buf), fmt, ap);
    va_end (ap);
    info ("%s: refused job of uid %u: %s", plugin_type, uid, buf);
    if (err_msg)
        *err_msg = xstrdup (buf);
    return code;
}

/* A run no envelope can fund: refused, or passed through as a plain Slurm
 * job under UnfundedPolicy=passthrough (gradual rollout). */
static int unfunded (char **err_msg, int code, uint32_t uid, const char *why)
{
    if (state.conf && state.conf->unfunded_policy == JT_UNFUNDED_PASSTHROUGH) {
        info ("%s: UnfundedPolicy=passthrough: job of uid %u runs as plain "
              "Slurm: %s", plugin_type, uid, why);
        return SLURM_SUCCESS;
    }
    return refuse (err_msg, code, uid, "%s", why);
}

/* The GPU request: which string, its type and count. Returns 1 found, 0
 * none, -1 malformed or out of range. */
static int gpu_request (const job_desc_msg_t *jd, char *type, size_t len,
                        int64_t *count, jt_gres_scope_t *scope)
{
    struct { const char *s; jt_gres_scope_t scope; } v[] = {
        { jd->tres_per_job, JT_GRES_PER_JOB },
        { jd->tres_per_node, JT_GRES_PER_NODE },
        { jd->tres_per_socket, JT_GRES_PER_SOCKET },
    };

    for (size_t i = 0; i < sizeof (v) / sizeof (v[0]); i++) {
        int rc = jt_gres_gpu_req (v[i].s, type, len, count);
        if (rc != 0) {
            *scope = v[i].scope;
            return rc;
        }
    }
    return 0;
}

/* The account charged: --account, else the user's default account (the
 * accounting database's, as slurmctld fills it in after job_submit), else
 * (no accounting database) the user's name. xmalloc'd, or NULL. */
static char *owner_of (const job_desc_msg_t *jd, uint32_t uid)
{
    assoc_mgr_lock_t locks = { .user = READ_LOCK };
    slurmdb_user_rec_t user;
    char *owner = NULL;

    if (jd->account && jd->account[0])
        return xstrdup (jd->account);
    if (jd->user_id != NO_VAL)
        uid = jd->user_id;
    /* locked=true: with no user list loaded it answers "no default"
     * instead of querying the database under slurmctld's locks. */
    memset (&user, 0, sizeof (user));
    user.uid = uid;
    assoc_mgr_lock (&locks);
    if (assoc_mgr_fill_in_user (NULL, &user, 0, NULL, true) == SLURM_SUCCESS
        && user.default_acct && user.default_acct[0])
        owner = xstrdup (user.default_acct);
    assoc_mgr_unlock (&locks);
    if (!owner)
        owner = uid_to_string_or_null ((uid_t)uid);
    return owner;
}

static int64_t job_nodes (const job_desc_msg_t *jd)
{
    if (jd->min_nodes != NO_VAL && jd->min_nodes > 0)
        return jd->min_nodes;
    return 1;
}

extern int job_submit (job_desc_msg_t *jd, uint32_t submit_uid, char **err_msg)
{
    jt_run_t *r = NULL;
    jt_error_t e;
    jt_groups_t groups = { NULL, 0, false };
    jt_usage_t usage;
    jt_cover_t cover;
    char type[128] = "", detail[JT_ERRMSG_MAX] = "", why[1200];
    jt_gres_scope_t scope = JT_GRES_PER_NODE;
    char *record = NULL, *owner = NULL;
    int64_t count = 0, total, gpn, nodes = job_nodes (jd);
    int nopts, gpu, rc = SLURM_SUCCESS;
    jt_reason_t reason;
    time_t now = time (NULL);
    bool usage_ok = false, cover_ok = false;

    memset (&cover, 0, sizeof (cover));
    if (!(r = jt_run_create ()))
        return refuse (err_msg, ENOMEM, submit_uid, "jobtree: out of memory");
    nopts = jt_opts_from_env (r, jd->spank_job_env, jd->spank_job_env_size, &e);
    if (nopts < 0) {
        rc = refuse (err_msg, ESLURM_INVALID_GRES, submit_uid, "jobtree: %s", e.text);
        goto done;
    }
    gpu = gpu_request (jd, type, sizeof (type), &count, &scope);
    jt_pstate_refresh (&state);
    if (nopts == 0 && (gpu <= 0 || !state.conf || !state.conf->plain_gpu_jobs))
        goto done;              /* not a Jobtree run: untouched */
    if (gpu < 0) {
        rc = refuse (err_msg, ESLURM_INVALID_GRES, submit_uid,
                     "jobtree: cannot read the GPU request (%s): one GPU type "
                     "and a count of at most %" PRId64 ", e.g. --gres=gpu:h100:8",
                     jd->tres_per_node ? jd->tres_per_node
                     : jd->tres_per_job ? jd->tres_per_job
                     : jd->tres_per_socket ? jd->tres_per_socket : "?",
                     (int64_t) JT_GRES_COUNT_MAX);
        goto done;
    }
    if (gpu == 0 || count <= 0) {
        rc = refuse (err_msg, ESLURM_INVALID_GRES, submit_uid,
                     "jobtree: Jobtree options need a GPU request, e.g. "
                     "--gres=gpu:h100:8 -N 4");
        goto done;
    }
    if (type[0] == '\0' && jt_pstate_only_flavor (&state, type, sizeof (type)) < 0) {
        rc = refuse (err_msg, ESLURM_INVALID_GRES_TYPE, submit_uid,
                     "jobtree: name the GPU type (the flavor), e.g. "
                     "--gres=gpu:h100:8");
        goto done;
    }
    if ((gpn = jt_pstate_gpus_per_node (&state, type)) <= 0) {
        rc = refuse (err_msg, ESLURM_INVALID_GRES_TYPE, submit_uid,
                     "jobtree: unknown GPU flavor %s: no node has gres gpu:%s",
                     type, type);
        goto done;
    }
    if (scope == JT_GRES_PER_SOCKET
        && (jd->sockets_per_node == NO_VAL16 || jd->sockets_per_node == 0)) {
        rc = refuse (err_msg, ESLURM_INVALID_GRES, submit_uid,
                     "jobtree: --gpus-per-socket needs --sockets-per-node; "
                     "ask per node instead, e.g. --gres=gpu:%s:%" PRId64, type, gpn);
        goto done;
    }
    if (jt_gres_total (count, scope, nodes, scope == JT_GRES_PER_SOCKET
                       ? (int64_t) jd->sockets_per_node : 0, &total) < 0) {
        rc = refuse (err_msg, ESLURM_INVALID_GRES, submit_uid,
                     "jobtree: the job asks for more than %" PRId64 " GPUs "
                     "(%" PRId64 " GPUs x %" PRId64 " nodes); ask for what the "
                     "run needs, e.g. -N 4 --gres=gpu:%s:%" PRId64,
                     (int64_t) JT_RUN_GPUS_MAX, count, nodes, type, gpn);
        goto done;
    }
    if (r->group_gpus > 0 && r->group_gpus % gpn != 0) {
        rc = refuse (err_msg, ESLURM_INVALID_GRES, submit_uid,
                     "jobtree: --group-gpus=%" PRId64 " is not a multiple of the %"
                     PRId64 " GPUs per %s node, e.g. --group-gpus=%" PRId64,
                     r->group_gpus, gpn, type,
                     (r->group_gpus / gpn + 1) * gpn);
        goto done;
    }
    if (r->group_gpus > 0 && scope == JT_GRES_PER_NODE && count != gpn) {
        rc = refuse (err_msg, ESLURM_INVALID_GRES, submit_uid,
                     "jobtree: --group-gpus needs whole nodes: ask for all %"
                     PRId64 " GPUs of each node, e.g. --gres=gpu:%s:%" PRId64
                     " (got %" PRId64 " per node)", gpn, type, gpn, count);
        goto done;
    }
    if (r->malleable && (total < r->min_gpus || total > r->max_gpus)) {
        rc = refuse (err_msg, ESLURM_INVALID_NODE_COUNT, submit_uid,
                     "jobtree: --malleable=%" PRId64 ":%" PRId64 ": the job asks "
                     "for %" PRId64 " GPUs, outside MIN..MAX; ask for %" PRId64
                     " to %" PRId64 " GPUs, e.g. -N %" PRId64 " --gres=gpu:%s:%"
                     PRId64, r->min_gpus, r->max_gpus, total, r->min_gpus,
                     r->max_gpus, (r->min_gpus + gpn - 1) / gpn, type, gpn);
        goto done;
    }

    owner = owner_of (jd, submit_uid);
    free (r->owner);
    free (r->flavor);
    r->owner = strdup (owner ? owner : "");
    r->flavor = strdup (type);
    r->total_gpus = total;
    if (jd->time_limit != NO_VAL && jd->time_limit != INFINITE)
        r->time_limit_s = (int64_t)jd->time_limit * 60;
    if (!r->owner || !r->flavor) {
        rc = refuse (err_msg, ENOMEM, submit_uid, "jobtree: out of memory");
        goto done;
    }
    if (jt_run_validate (r, gpn, &e) < 0) {
        rc = refuse (err_msg, ESLURM_INVALID_GRES, submit_uid, "jobtree: %s", e.text);
        goto done;
    }

    if (!state.budgets) {
        snprintf (why, sizeof (why), "jobtree: no budgets are loaded (BudgetDir %s; "
                  "see the slurmctld log)", state.conf ? state.conf->budget_dir : "?");
        rc = unfunded (err_msg, ESLURM_INVALID_ACCOUNT, submit_uid, why);
        goto done;
    }
    if (!jt_budgets_owner (state.budgets, r->owner)) {
        snprintf (why, sizeof (why), "jobtree: account %s has no budget (no budget "
                  "file names owner %s); use --account=ACCOUNT", r->owner, r->owner);
        rc = unfunded (err_msg, ESLURM_INVALID_ACCOUNT, submit_uid, why);
        goto done;
    }
    reason = jt_cover_ever (state.budgets, r, (int64_t)now, detail, sizeof (detail));
    if (reason != JT_OK) {
        snprintf (why, sizeof (why), "jobtree: no envelope could ever fund this run "
                  "(%s): %s", jt_reason_str (reason), detail);
        rc = unfunded (err_msg, reason == JT_UNKNOWN_FLAVOR ? ESLURM_INVALID_GRES_TYPE
                       : ESLURM_ACCOUNTING_POLICY, submit_uid, why);
        goto done;
    }

    /* The intended funding: Cover now with no other usage. */
    if (jt_run_compile (r, r->total_gpus, &groups, &e) < 0) {
        rc = refuse (err_msg, ESLURM_INVALID_GRES, submit_uid, "jobtree: %s", e.text);
        goto done;
    }
    if (jt_usage_init (&usage, state.budgets) == 0) {
        usage_ok = true;
        if (jt_cover (state.budgets, &usage, r, &groups, (int64_t)now, &cover, &e) >= 0)
            cover_ok = true;
    }
    if (!(record = jt_jobrec_format (r, cover_ok ? &cover : NULL))) {
        rc = refuse (err_msg, ENOMEM, submit_uid, "jobtree: out of memory");
        goto done;
    }
    xfree (jd->admin_comment);
    jd->admin_comment = xstrdup (record);
    info ("%s: uid %u account %s: %" PRId64 " %s GPUs in %zu group(s), %" PRId64
          " funded at submission (%s)", plugin_type, submit_uid, r->owner,
          r->total_gpus, r->flavor, groups.n, cover_ok ? cover.funded_gpus : 0,
          jt_reason_str (cover_ok ? cover.reason : JT_OK));
    if (state.conf && state.conf->debug)
        info ("%s: record: %s", plugin_type, record);
done:
    free (record);
    if (cover_ok)
        jt_cover_free (&cover);
    if (usage_ok)
        jt_usage_free (&usage);
    jt_groups_free (&groups);
    xfree (owner);
    jt_run_destroy (r);
    return rc;
}

extern int job_modify (job_desc_msg_t *jd, job_record_t *job_ptr,
                       uint32_t submit_uid)
{
    /* Size changes of a Jobtree run are the select plugin's business
     * (malleable runs move by whole groups); nothing to check here yet. */
    return SLURM_SUCCESS;
}

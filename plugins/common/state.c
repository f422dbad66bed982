/*
 * state.c - jobtree.conf and budgets inside slurmctld (see state.h).
 */
#include "config.h"             /* Slurm's, via -iquote $(SLURM_SRC) */

#include <stdio.h>
#include <string.h>

#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"

#include <jobtree/gres.h>
#include "state.h"

static void log_diags (const jt_pstate_t *st, const jt_diags_t *d)
{
    for (size_t i = 0; i < d->n; i++) {
        char line[1024];
        jt_diag_format (&d->v[i], line, sizeof (line));
        error ("%s: %s", st->who, line);
    }
}

int jt_pstate_reload (jt_pstate_t *st)
{
    char *path = get_extra_conf_path (JT_CONFIG_FILE);
    jt_config_t *conf;
    jt_budgets_t *b;
    jt_diags_t d;
    int rc = 0;

    jt_diags_init (&d);
    conf = jt_config_load (path, true, &d);
    if (conf) {
        jt_config_destroy (st->conf);
        st->conf = conf;
    } else {
        log_diags (st, &d);
        error ("%s: %s has errors: keeping the %s configuration", st->who, path,
               st->conf ? "previous" : "default");
        rc = -1;
        if (!st->conf)
            st->conf = jt_config_create ();
    }
    jt_diags_free (&d);
    xfree (path);
    if (!st->conf)
        return -1;

    jt_diags_init (&d);
    b = jt_budgets_load_dir (st->conf->budget_dir, &d);
    if (b) {
        jt_budgets_destroy (st->budgets);
        st->budgets = b;
        info ("%s: loaded %zu budget file(s), %zu envelope(s) from %s", st->who,
              b->n, b->nenv, st->conf->budget_dir);
    } else {
        log_diags (st, &d);
        if (st->budgets)
            error ("%s: budget directory %s has errors: keeping the last good "
                   "budgets (%zu owner(s))", st->who, st->conf->budget_dir,
                   st->budgets->n);
        else
            error ("%s: budget directory %s has errors: no budgets loaded",
                   st->who, st->conf->budget_dir);
        rc = -1;
    }
    jt_diags_free (&d);
    st->loaded = true;
    return rc;
}

void jt_pstate_refresh (jt_pstate_t *st)
{
    time_t now = time (NULL);

    /* last_update has one-second resolution: a reconfigure in the second
     * we loaded in would leave it unchanged, so a load made in the same
     * second as the config read is repeated once, a second later. */
    if (st->loaded && st->seen_update == slurm_conf.last_update
        && !(st->loaded_at <= st->seen_update && now > st->loaded_at))
        return;
    st->seen_update = slurm_conf.last_update;
    st->loaded_at = now;
    (void)jt_pstate_reload (st);
}

void jt_pstate_fini (jt_pstate_t *st)
{
    jt_config_destroy (st->conf);
    jt_budgets_destroy (st->budgets);
    st->conf = NULL;
    st->budgets = NULL;
    st->loaded = false;
}

/* The node's configured GRES string ("gpu:h100:8"). */
static const char *node_gres (node_record_t *node)
{
    if (node->config_ptr && node->config_ptr->gres)
        return node->config_ptr->gres;
    return node->gres;
}

int64_t jt_pstate_gpus_per_node (const jt_pstate_t *st, const char *flavor)
{
    int64_t best = st->conf ? jt_config_gpus_per_node (st->conf, flavor) : 0;
    node_record_t *node;

    if (best > 0 || !flavor)
        return best;
    for (int i = 0; (node = next_node (&i)); i++) {
        char type[128];
        int64_t n;
        if (jt_gres_gpu_req (node_gres (node), type, sizeof (type), &n) == 1
            && strcmp (type, flavor) == 0 && n > best)
            best = n;
    }
    return best;
}

int jt_pstate_only_flavor (const jt_pstate_t *st, char *buf, size_t len)
{
    node_record_t *node;
    int found = 0;

    (void)st;
    for (int i = 0; (node = next_node (&i)); i++) {
        char type[128];
        int64_t n;
        if (jt_gres_gpu_req (node_gres (node), type, sizeof (type), &n) != 1
            || type[0] == '\0')
            continue;
        if (found && strcmp (type, buf) != 0)
            return -1;
        if (!found && strlen (type) < len) {
            strcpy (buf, type);
            found = 1;
        }
    }
    return found ? 0 : -1;
}

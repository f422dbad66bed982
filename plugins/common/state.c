/*
 * state.c - jobtree.conf and budgets inside slurmctld (see state.h): when
 * to reload and logging through Slurm; the reload itself is jt_reload.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#include "config.h"             /* Slurm's: plugins have no -I to ours */

#include <stdio.h>
#include <string.h>

#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include <jobtree/gres.h>
#include "state.h"

/* The last good set on disk too, in StateSaveLocation, one file per
 * plugin ("jobtree-job_submit.last-good.json"), so a new slurmctld starts
 * from it (24.11's reconfigure execs one: docs/slurm-24.11.md). */
static void keep_on_disk (jtsub_state_t *st)
{
    const char *dir = slurm_conf.state_save_location;
    size_t n = strcspn (st->who, "/");
    char *kp;
    jt_error_t err;

    if (!dir || !*dir)
        return;
    kp = xstrdup_printf ("%s/jobtree-%.*s.last-good.json", dir, (int) n, st->who);
    if (jt_reload_keep_file (st->set, kp, &err) < 0)
        error ("%s: %s", st->who, err.text);
    xfree (kp);
}

int jtsub_state_reload (jtsub_state_t *st)
{
    char *path = get_extra_conf_path (JT_CONFIG_FILE);
    jt_reload_result_t res;
    int rc;

    if (!st->set && !(st->set = jt_reload_create ())) {
        error ("%s: out of memory: no configuration", st->who);
        xfree (path);
        return -1;
    }
    if (!jt_reload_keep_path (st->set))
        keep_on_disk (st);
    rc = jt_reload (st->set, path, &res);
    for (size_t i = 0; i < res.nlines; i++) {
        if (res.lines[i].level == JT_RELOAD_ERROR)
            error ("%s: %s", st->who, res.lines[i].text);
        else
            info ("%s: %s", st->who, res.lines[i].text);
    }
    jt_reload_result_free (&res);
    xfree (path);
    st->loaded = true;
    return rc;
}

void jtsub_state_refresh (jtsub_state_t *st)
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
    (void)jtsub_state_reload (st);
}

void jtsub_state_fini (jtsub_state_t *st)
{
    jt_reload_destroy (st->set);
    st->set = NULL;
    st->loaded = false;
}

const jt_config_t *jtsub_state_conf (const jtsub_state_t *st)
{
    return jt_reload_conf (st->set);
}

const jt_budgets_t *jtsub_state_budgets (const jtsub_state_t *st)
{
    return jt_reload_budgets (st->set);
}

/* The node's configured GRES string ("gpu:h100:8"). */
static const char *node_gres (node_record_t *node)
{
    if (node->config_ptr && node->config_ptr->gres)
        return node->config_ptr->gres;
    return node->gres;
}

int64_t jtsub_state_node_gpus (void *arg, const char *flavor)
{
    node_record_t *node;
    int64_t best = 0;

    (void)arg;
    if (!flavor)
        return 0;
    for (int i = 0; (node = next_node (&i)); i++) {
        char type[128];
        int64_t n;
        if (jt_gres_gpu_req (node_gres (node), type, sizeof (type), &n) == 1
            && strcmp (type, flavor) == 0 && n > best)
            best = n;
    }
    return best;
}

int jtsub_state_only_flavor (void *arg, char *buf, size_t len)
{
    node_record_t *node;
    int found = 0;

    (void)arg;
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

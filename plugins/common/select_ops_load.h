/*
 * select_ops_load.h - the wrapped cons_tres, loaded once, lazily, and
 * unloaded at fini: the part of every release's select adapter that only
 * differs in the call that loads it. Included once, by the release's
 * select_ops_<release>.c, after it defines syms[] and:
 *
 *   JTC_CONS_CTX_T        the handle's type
 *   JTC_CONS_LOAD()       an expression loading select/cons_tres into
 *                         jtsel_ops by syms[], the handle or NULL
 *   JTC_CONS_UNLOAD(ctx)  a statement unloading it, setting int rc
 *
 * Lazy, because init() may run before slurmctld has read its configuration.
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#ifndef JT_PLUGIN_SELECT_OPS_LOAD_H
#define JT_PLUGIN_SELECT_OPS_LOAD_H

#include <pthread.h>

_Static_assert (sizeof (syms) == sizeof (slurm_select_ops_t),
                "syms[] must match slurm_select_ops_t");

slurm_select_ops_t jtsel_ops;
static JTC_CONS_CTX_T g_context;
static pthread_mutex_t g_context_lock = PTHREAD_MUTEX_INITIALIZER;
static bool g_ready;

int jtsel_ops_ready (void)
{
    int rc = 0;

    if (g_ready)
        return 0;
    slurm_mutex_lock (&g_context_lock);
    if (!g_context) {
        g_context = JTC_CONS_LOAD ();
        if (!g_context) {
            error ("%s: cannot load select/cons_tres to wrap", plugin_type);
            rc = -1;
        } else
            g_ready = true;
    }
    slurm_mutex_unlock (&g_context_lock);
    return rc;
}

int jtsel_ops_unload (void)
{
    int rc = SLURM_SUCCESS;

    slurm_mutex_lock (&g_context_lock);
    if (g_context)
        JTC_CONS_UNLOAD (g_context);
    g_context = NULL;
    g_ready = false;
    slurm_mutex_unlock (&g_context_lock);
    return rc;
}

#endif /* JT_PLUGIN_SELECT_OPS_LOAD_H */

/*
 * bench_plan.c - latency of the pack view build and of Pack (and of Cover)
 * on generated clusters of 1k, 16k and 64k nodes, against a baseline of
 * one linear pass over all nodes. Built and run by `make bench`; never part
 * of `make check`. See contrib/bench/README.md for the results.
 *
 * Clusters: 8-GPU h100 nodes, 32 per fast-fabric domain, half of them busy
 * (chosen with a fixed splitmix64 seed). Runs: 8 GPUs (one 8-GPU group),
 * 256 and 4,096 GPUs (groups of 64).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jobtree/pack.h"

static uint64_t rng_state;

static uint64_t splitmix64 (void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double now_us (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
}

static int dbl_cmp (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

struct stat {
    double med, p99;
};

static struct stat stats (double *v, int n)
{
    struct stat s;

    qsort (v, (size_t) n, sizeof (double), dbl_cmp);
    s.med = v[n / 2];
    s.p99 = v[(int) ((n - 1) * 0.99)];
    return s;
}

static jt_snapshot_t *make_cluster (int nnodes)
{
    jt_snapshot_t *s = jt_snapshot_create ();
    unsigned char *busy = calloc ((size_t) nnodes, 1);
    int *perm = malloc ((size_t) nnodes * sizeof (int));
    jt_error_t err;
    char name[32], dom[32];

    rng_state = 20260301;
    for (int i = 0; i < nnodes; i++)
        perm[i] = i;
    for (int i = nnodes - 1; i > 0; i--) {
        int j = (int) (splitmix64 () % (uint64_t) (i + 1));
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int i = 0; i < nnodes / 2; i++)
        busy[perm[i]] = 1;
    for (int i = 0; i < nnodes; i++) {
        jt_labels_t l = JT_LABELS_INIT;
        snprintf (name, sizeof (name), "gpu%05d", i);
        snprintf (dom, sizeof (dom), "D%04d", i / 32);
        jt_labels_set (&l, JT_LABEL_REGION, "west");
        jt_labels_set (&l, JT_LABEL_CLUSTER, "c1");
        jt_labels_set (&l, JT_LABEL_FABRIC, dom);
        if (jt_snapshot_add_node (s, name, &l, "h100", 8, busy[i] ? 8 : 0,
                                  JT_NODE_UP, &err) < 0) {
            fprintf (stderr, "add: %s\n", err.text);
            exit (1);
        }
        jt_labels_free (&l);
    }
    if (jt_snapshot_finalize (s, &err) < 0) {
        fprintf (stderr, "finalize: %s\n", err.text);
        exit (1);
    }
    free (perm);
    free (busy);
    return s;
}

/* The baseline: one pass over every node doing what any per-node scan must
 * (state, usage and flavor checks), summing the free GPUs. */
static volatile int64_t sink;

static void baseline_pass (const jt_snapshot_t *s)
{
    int64_t f = 0;

    for (size_t i = 0; i < s->nnodes; i++) {
        const jt_node_t *n = &s->nodes[i];
        if (n->state == JT_NODE_UP && n->used_gpus == 0 && n->flavor
            && strcmp (n->flavor, "h100") == 0)
            f += n->gpus;
    }
    sink = f;
}

struct run {
    const char *name;
    int64_t total;
    int64_t group;
};

static const struct run runs[] = {
    { "8 GPUs (1x8)", 8, 8 },
    { "256 GPUs (4x64)", 256, 64 },
    { "4096 GPUs (64x64)", 4096, 64 },
};
#define NRUNS (sizeof (runs) / sizeof (runs[0]))

int main (int argc, char **argv)
{
    static const int sizes[] = { 1024, 16384, 65536 };
    int reps = argc > 1 ? atoi (argv[1]) : 200;
    double base_med[3], pack_med[3][NRUNS], view_med[3];

    if (reps < 10)
        reps = 10;
    double *t = malloc ((size_t) reps * sizeof (double));
    printf ("bench_plan: %d repetitions per figure, times in microseconds "
            "(median / p99), x = ratio of the median to one linear pass "
            "over all nodes\n\n", reps);
    printf ("%-7s %-28s %10s %10s %9s\n", "nodes", "what", "median", "p99",
            "x pass");
    for (int si = 0; si < 3; si++) {
        jt_snapshot_t *s = make_cluster (sizes[si]);
        jt_error_t err;
        struct stat st;

        for (int r = 0; r < reps; r++) {
            double t0 = now_us ();
            baseline_pass (s);
            t[r] = now_us () - t0;
        }
        st = stats (t, reps);
        base_med[si] = st.med;
        printf ("%-7d %-28s %10.2f %10.2f %9.2f\n", sizes[si],
                "linear pass (baseline)", st.med, st.p99, 1.0);

        for (int r = 0; r < reps; r++) {
            double t0 = now_us ();
            jt_pack_view_t *v = jt_pack_view_create (s, "h100", &err);
            t[r] = now_us () - t0;
            if (!v) {
                fprintf (stderr, "view: %s\n", err.text);
                return 1;
            }
            jt_pack_view_destroy (v);
        }
        st = stats (t, reps);
        view_med[si] = st.med;
        printf ("%-7d %-28s %10.2f %10.2f %9.2f\n", sizes[si], "view build",
                st.med, st.p99, st.med / base_med[si]);

        jt_pack_view_t *v = jt_pack_view_create (s, "h100", &err);
        for (size_t ri = 0; ri < NRUNS; ri++) {
            int64_t groups[128];
            size_t ng = 0;
            for (int64_t left = runs[ri].total; left > 0; left -= runs[ri].group)
                groups[ng++] = left < runs[ri].group ? left : runs[ri].group;
            jt_pack_request_t req = { .groups = groups, .ngroups = ng,
                                      .only_domain = -1,
                                      .policy = JT_PACK_TO_EMPTY };
            char what[64];
            int last = 0;
            for (int r = 0; r < reps; r++) {
                jt_placement_t p;
                double t0 = now_us ();
                int rc = jt_pack (v, &req, &p, &err);
                t[r] = now_us () - t0;
                if (rc < 0) {
                    fprintf (stderr, "pack %s on %d nodes: %s\n",
                             runs[ri].name, sizes[si], err.text);
                    return 1;
                }
                last = rc;
                jt_pack_unplace (v, &p);
                jt_placement_free (&p);
            }
            st = stats (t, reps);
            pack_med[si][ri] = st.med;
            /* a run larger than the free domains can hold is a None:
             * timed all the same (it includes giving the groups back) */
            snprintf (what, sizeof (what), "Pack %s%s", runs[ri].name,
                      last ? " None" : "");
            printf ("%-7d %-28s %10.2f %10.2f %9.2f\n", sizes[si], what,
                    st.med, st.p99, st.med / base_med[si]);
        }
        jt_pack_view_destroy (v);
        jt_snapshot_destroy (s);
        printf ("\n");
    }
    printf ("scaling of the median, 1k -> 16k -> 64k nodes (x16 -> x64 nodes):\n");
    printf ("  %-24s 1 -> %.1f -> %.1f\n", "linear pass",
            base_med[1] / base_med[0], base_med[2] / base_med[0]);
    printf ("  %-24s 1 -> %.1f -> %.1f\n", "view build",
            view_med[1] / view_med[0], view_med[2] / view_med[0]);
    for (size_t ri = 0; ri < NRUNS; ri++)
        printf ("  Pack %-19s 1 -> %.1f -> %.1f\n", runs[ri].name,
                pack_med[1][ri] / pack_med[0][ri],
                pack_med[2][ri] / pack_med[0][ri]);
    free (t);
    return 0;
}

/*
 * sync_probe.c - what a bulk write beside it does to a small write and
 * fdatasync in a loop (the ledger's group commit), on the disk of DIR: the
 * experiment behind contrib/bench/README.md's "Acks: the tail was the id
 * index's stamp". A 64 MiB file is mapped and allocated, every page of it
 * dirtied, then written back as MODE says while a thread appends 12,800
 * bytes and syncs, every 0.7 ms, to another file:
 *
 *   0  nothing beside the syncs (the baseline)
 *   1  sync_file_range in 256 KiB slices, each waited for, then msync (the
 *      daemon's stamp, src/ledgerd/ids.c), PACE_US microseconds after each
 *   2  one msync of the whole mapping
 *   3  a sequential O_DIRECT copy of the mapping into a new file, 1 MiB a
 *      write, PACE_US after each, then fdatasync
 *
 * It prints how long the write-back took and the syncs' p50, p99 and
 * largest from 1 s before it to 1 s after. Built on demand, run by hand
 * (from the build directory):
 *   make contrib/bench/sync_probe && ./contrib/bench/sync_probe DIR MODE [PACE_US]
 *
 * Copyright (C) 2026 The Jobtree authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 * Licensed under the GNU General Public License, version 2 or later,
 * with the OpenSSL linking exception of LICENSE.OpenSSL.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define TABLE (64u << 20)
#define SLICE (256u << 10)
#define MAXLAT 1000000

static const char *dir;
static volatile int stop;
static double *lat;
static size_t nlat;

static double now (void)
{
    struct timespec t;
    clock_gettime (CLOCK_MONOTONIC, &t);
    return (double) t.tv_sec + (double) t.tv_nsec / 1e9;
}

static void die (const char *what)
{
    perror (what);
    exit (1);
}

static void *syncer (void *arg)
{
    char path[4096], buf[12800];
    (void) arg;
    snprintf (path, sizeof (path), "%s/probe.ledger", dir);
    int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
    if (fd < 0)
        die (path);
    memset (buf, 'x', sizeof (buf));
    while (!stop && nlat < MAXLAT) {
        double t = now ();
        if (write (fd, buf, sizeof (buf)) != (ssize_t) sizeof (buf) || fdatasync (fd) < 0)
            die ("write/fdatasync");
        lat[nlat++] = now () - t;
        usleep (700);
    }
    close (fd);
    unlink (path);
    return NULL;
}

static int cmp (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

int main (int argc, char **argv)
{
    char tpath[4096], spath[4096];
    if (argc < 3) {
        fprintf (stderr, "usage: sync_probe DIR MODE(0-3) [PACE_US]\n");
        return 2;
    }
    dir = argv[1];
    int mode = atoi (argv[2]);
    long pace = argc > 3 ? atol (argv[3]) : 0;
    if (mode < 0 || mode > 3 || pace < 0 || pace > 1000000) {
        fprintf (stderr, "sync_probe: MODE is 0 to 3, PACE_US 0 to 1000000\n");
        return 2;
    }
    if (!(lat = malloc (MAXLAT * sizeof (*lat))))
        die ("malloc");
    snprintf (tpath, sizeof (tpath), "%s/probe.table", dir);
    snprintf (spath, sizeof (spath), "%s/probe.copy", dir);
    int tfd = open (tpath, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (tfd < 0 || ftruncate (tfd, TABLE) < 0)
        die (tpath);
    unsigned char *m = mmap (NULL, TABLE, PROT_READ | PROT_WRITE, MAP_SHARED, tfd, 0);
    if (m == MAP_FAILED)
        die ("mmap");
    for (size_t i = 0; i < TABLE; i += 4096) /* allocated, then clean */
        m[i] = 1;
    if (msync (m, TABLE, MS_SYNC) < 0)
        die ("msync");
    pthread_t th;
    if (pthread_create (&th, NULL, syncer, NULL))
        die ("pthread_create");
    sleep (1);
    double t0 = now (), t1;
    if (mode > 0) {
        for (size_t i = 0; i < TABLE; i += 4096) /* every page dirty */
            m[i + (i / 4096) % 4000] = 2;
        if (mode == 1) {
            for (off_t o = 0; o < (off_t) TABLE; o += SLICE) {
                if (sync_file_range (tfd, o, SLICE,
                                     SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE
                                         | SYNC_FILE_RANGE_WAIT_AFTER)
                    < 0)
                    die ("sync_file_range");
                if (pace)
                    usleep ((useconds_t) pace);
            }
            if (msync (m, TABLE, MS_SYNC) < 0)
                die ("msync");
        } else if (mode == 2) {
            if (msync (m, TABLE, MS_SYNC) < 0)
                die ("msync");
        } else {
            int dfd = open (spath, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0600);
            void *b;
            if (dfd < 0 || posix_memalign (&b, 4096, 1u << 20))
                die (spath);
            for (size_t o = 0; o < TABLE; o += 1u << 20) {
                memcpy (b, m + o, 1u << 20);
                if (pwrite (dfd, b, 1u << 20, (off_t) o) != 1 << 20)
                    die ("pwrite");
                if (pace)
                    usleep ((useconds_t) pace);
            }
            if (fdatasync (dfd) < 0)
                die ("fdatasync");
            close (dfd);
            free (b);
            unlink (spath);
        }
    }
    t1 = now ();
    sleep (1);
    stop = 1;
    pthread_join (th, NULL);
    size_t n = nlat;
    qsort (lat, n, sizeof (*lat), cmp);
    printf ("mode %d pace %ld us: write-back %.0f ms; %zu syncs: p50 %.2f ms, p99 %.2f ms, "
            "largest %.2f ms\n",
            mode, pace, (t1 - t0) * 1e3, n, lat[n / 2] * 1e3, lat[n * 99 / 100] * 1e3,
            lat[n - 1] * 1e3);
    munmap (m, TABLE);
    close (tfd);
    unlink (tpath);
    free (lat);
    return 0;
}

/*
 * gres_req.h - the GPU part of a Slurm TRES request string, without Slurm.
 *
 * sbatch turns --gres=gpu:h100:8, --gpus=h100:64, --gpus-per-node=h100:8
 * into strings like "gres:gpu:h100:8" (older forms drop "gres:"), several
 * entries separated by ',' or ';'. Shared by the job_submit and select
 * plugins, unit-tested in tests/unit/gres_req.c.
 */
#ifndef JOBTREE_PLUGINS_GRES_REQ_H
#define JOBTREE_PLUGINS_GRES_REQ_H

#include <stdint.h>
#include <stddef.h>

/* Find the "gpu" entry of tres. On success *count is the GPU count (1 when
 * not given) and type (len bytes) holds the GPU type, "" when untyped.
 * Returns 1 when a GPU entry was found, 0 when none, -1 when it is malformed
 * or names two different types. */
int jt_gres_gpu_req (const char *tres, char *type, size_t len, int64_t *count);

#endif /* JOBTREE_PLUGINS_GRES_REQ_H */

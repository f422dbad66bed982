/*
 * gres_req.c - unit tests of the GPU request parser shared by the plugins
 * (plugins/common/gres_req.h): the strings sbatch makes of --gres, --gpus,
 * --gpus-per-node, and the node GRES configuration.
 */
#include <string.h>

#include "gres_req.h"
#include "tap.h"

static void check (const char *tres, int rc, const char *type, int64_t count)
{
    char t[64] = "?";
    int64_t c = -1;
    int got = jt_gres_gpu_req (tres, t, sizeof (t), &c);

    is_int (got, rc, "'%s' -> %d", tres ? tres : "(null)", rc);
    if (rc == 1) {
        is (t, type, "'%s' type %s", tres, type);
        is_int (c, count, "'%s' count", tres);
    }
}

int main (void)
{
    check ("gres:gpu:h100:8", 1, "h100", 8);
    check ("gpu:h100:8", 1, "h100", 8);
    check ("gres/gpu:h100=8", 1, "h100", 8);
    check ("gres:gpu:8", 1, "", 8);
    check ("gres:gpu", 1, "", 1);
    check ("gres:gpu:h100", 1, "h100", 1);
    check ("gres:nic:2,gres:gpu:a100:4", 1, "a100", 4);
    check ("gres:gpu:h100:4;gres:gpu:h100:4", 1, "h100", 8);
    check ("gres:nic:2", 0, "", 0);
    check ("", 0, "", 0);
    check (NULL, 0, "", 0);
    check ("gres:gpu:h100:8,gres:gpu:a100:8", -1, "", 0);
    check ("gres:gpu:h100:x:8", -1, "", 0);
    check ("gres:gpu:a:b:c:d", -1, "", 0);
    {
        char t[4];
        int64_t c;
        is_int (jt_gres_gpu_req ("gpu:h100:8", t, sizeof (t), &c), -1,
                "type longer than the buffer is an error");
    }
    return done_testing ();
}

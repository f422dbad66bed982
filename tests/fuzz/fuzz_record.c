/* fuzz_record.c - the Jobtree record in a job's admin_comment, as the
 * select plugin and jobtree snapshot read it back (plugins/common/record.c,
 * plugins/select/record_parse.c: Slurm-free, compiled in here). */
#include "config.h"

#include "jobtree/error.h"
#include "record.h"
#include "record_parse.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char *s = fuzz_cstr (data, size);
    jt_error_t err;
    if (!s)
        return 0;
    jt_acrec_t a;
    if (jt_acrec_parse (s, &a, &err) == 0)
        jt_acrec_free (&a);
    jt_rec_t r;
    if (jt_rec_parse (s, &r, &err) == 0)
        jt_rec_free (&r);
    free (s);
    return 0;
}

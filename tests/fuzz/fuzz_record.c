/* fuzz_record.c - the Jobtree record in a job's admin_comment, as the
 * select plugin and jobtree snapshot read it back (src/lib/record.c), and
 * re-formatted from what was read (what job_submit writes). */
#include "config.h"

#include "jobtree/error.h"
#include "jobtree/record.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char *s = fuzz_cstr (data, size);
    jt_error_t err;
    jt_jobrec_t r;

    if (!s)
        return 0;
    if (jt_jobrec_parse (s, &r, &err) == 0) {
        free (jt_jobrec_format (r.run, NULL));
        jt_jobrec_free (&r);
    }
    free (s);
    return 0;
}

/*
 * check.h: the reporting the conformance programs share (conformance.c,
 * models.c): one line per check, "ok" or "FAIL" with the host's message,
 * counted for the summary line "conformance: N passed, M failed" that
 * tests/conformance/run and tests/cann read.
 *
 * A header of static functions, included once per program: each program is
 * one translation unit.
 */
#ifndef ACLWASM_CONFORMANCE_CHECK_H
#define ACLWASM_CONFORMANCE_CHECK_H

#include <stdio.h>

#include <acl/acl.h>

static int passed, failed;

static void report(int ok, int line, const char *what, const char *detail)
{
    if (ok) {
        passed++;
        printf("ok   %4d %s\n", line, what);
    } else {
        failed++;
        printf("FAIL %4d %s: %s\n", line, what, detail);
    }
}

static void expect_code(int line, const char *what, aclError got, aclError want)
{
    char detail[600];
    if (got == want) {
        report(1, line, what, "");
        return;
    }
    snprintf(detail, sizeof detail, "got %s (%d), want %s (%d); message: %s", aclErrorName(got), got,
             aclErrorName(want), want, aclGetRecentErrMsg());
    report(0, line, what, detail);
}

static void expect_true(int line, const char *what, int cond)
{
    report(cond, line, what, "condition is false");
}

/* EXPECT(call, code): the call returns exactly code. */
#define EXPECT(call, want) expect_code(__LINE__, #call " == " #want, (call), (want))
/* OK(call): the call succeeds. */
#define OK(call) expect_code(__LINE__, #call, (call), ACL_SUCCESS)
/* CHECK(cond): a value check. */
#define CHECK(cond) expect_true(__LINE__, #cond, (cond))
/* FAILS(call): the call returns some error (the ABI does not fix which). */
#define FAILS(call) expect_true(__LINE__, #call " != ACL_SUCCESS", (call) != ACL_SUCCESS)

static void section(const char *name)
{
    printf("== %s\n", name);
}

/* The summary line; the program's exit status. */
static int summary(void)
{
    printf("conformance: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}

#endif

/* test_protocol_timing.c: the "timing" section of protocol files
 * (harness/protocol/protocol_timing.c) as it sets timing to a precision: max_iterations turns it
 * on, with the default target; the least counts are checked only for the steps that are timed;
 * each error names its key. The other timing keys and their defaults are checked by
 * test_protocol.c, and the invalid files of tests/protocols/invalid/ by test_protocol.c and the
 * protocol_invalid_* tests. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "protocol.h"
#include "protocol_parse.h"



static void test_precision(void)
{
	const char *head = "{\"format_version\": 1, \"points\": [{\"op\": \"fwd\", \"shapes\": "
	                   "[{\"d_in\": 8, \"d_out\": 8}], \"tokens\": 7, \"dtypes\": {\"out\": "
	                   "\"bf16\"}}], \"arms\": {\"incumbent\": {\"fwd\": \"host:ref\"}}, "
	                   "\"timing\": ";
	char t[1024];
	gq_protocol p;
	gq_error err;
	/* op only: groups 3 is no least count of anything timed */
	snprintf(t, sizeof(t), "%s{\"iterations\": 50, \"groups\": 3, \"max_iterations\": 5000}}",
	         head);
	gq_status s = parse(t, &p, &err);
	CHECK_MSG(s == GQ_OK, "%s", err.message);
	if (s == GQ_OK) {
		CHECK(p.timing.max_iterations == 5000 && p.timing.target_rel_ci == 0.0025);
		CHECK(p.timing.iterations == 50 && p.timing.groups == 3);
		gq_protocol_free(&p);
	}
	snprintf(t, sizeof(t),
	         "%s{\"steps\": [\"op\", \"2fwd+bwd\"], \"max_iterations\": 100, "
	         "\"target_rel_ci\": 0.01}}",
	         head);
	s = parse(t, &p, &err);
	CHECK_MSG(s == GQ_OK, "%s", err.message);
	if (s == GQ_OK) {
		CHECK(p.timing.max_iterations == 100 && p.timing.target_rel_ci == 0.01);
		gq_protocol_free(&p);
	}
	/* the default iterations (100) exceed the cap: named at max_iterations */
	snprintf(t, sizeof(t), "%s{\"max_iterations\": 99}}", head);
	expect_error(t, (const char *const[]){"$.timing.max_iterations: ",
	                                      "must be at least iterations (100)", NULL});
	/* steps bwd only: the default groups (15) is the least count, iterations is not checked */
	snprintf(t, sizeof(t), "%s{\"steps\": \"bwd\", \"max_iterations\": 99}}", head);
	s = parse(t, &p, &err);
	CHECK_MSG(s == GQ_OK, "%s", err.message);
	if (s == GQ_OK)
		gq_protocol_free(&p);
	snprintf(t, sizeof(t), "%s{\"steps\": \"bwd\", \"max_iterations\": 14}}", head);
	expect_error(t, (const char *const[]){
	                    "$.timing.max_iterations: ", "must be at least groups (15)", NULL});
	snprintf(t, sizeof(t), "%s{\"iterations\": 9, \"max_iterations\": 99}}", head);
	expect_error(t,
	             (const char *const[]){"$.timing.iterations: ", "at least 10 (got 9)", NULL});
	snprintf(t, sizeof(t), "%s{\"max_iterations\": 1000, \"target_rel_ci\": 0.6}}", head);
	expect_error(t, (const char *const[]){"$.timing.target_rel_ci: ", "(got 0.6)", NULL});
	snprintf(t, sizeof(t), "%s{\"max_iterations\": 100001}}", head);
	expect_error(t, (const char *const[]){
	                    "$.timing.max_iterations: ", "an integer from 1 to 100000", NULL});
	snprintf(t, sizeof(t), "%s{\"target_rel_ci\": 0.0025}}", head);
	expect_error(
	    t, (const char *const[]){"$.timing.target_rel_ci: ", "needs max_iterations", NULL});
}

/* timing.sota_programs: the default nine library programs, a list of its own, [] for no sota;
 * accuracy.sota_seeds: all seeds by default, 0 … seeds. */
static void test_sota(void)
{
	const char *head = "{\"format_version\": 1, \"points\": [{\"op\": \"fwd\", \"shapes\": "
	                   "[{\"d_in\": 8, \"d_out\": 8}], \"tokens\": 7, \"dtypes\": {\"out\": "
	                   "\"bf16\"}}], \"arms\": {\"incumbent\": {\"fwd\": \"host:ref\"}}";
	char t[1024];
	gq_protocol p;
	gq_error err;
	snprintf(t, sizeof(t), "%s, \"accuracy\": {\"seeds\": 4}}", head);
	gq_status s = parse(t, &p, &err);
	CHECK_MSG(s == GQ_OK, "%s", err.message);
	if (s == GQ_OK) {
		CHECK(p.timing.sota_program_count == 9 && p.sota_seeds == 4);
		CHECK(!strcmp(p.timing.sota_programs[0], "cublas:default") &&
		      !strcmp(p.timing.sota_programs[8], "cublaslt:algo:7"));
		gq_protocol_free(&p);
	}
	snprintf(t, sizeof(t),
	         "%s, \"accuracy\": {\"seeds\": 4, \"sota_seeds\": 1}, \"timing\": "
	         "{\"sota_programs\": [\"host:wrong:0\", \"cal:slow:50:host:ref\"]}}",
	         head);
	s = parse(t, &p, &err);
	CHECK_MSG(s == GQ_OK, "%s", err.message);
	if (s == GQ_OK) {
		CHECK(p.timing.sota_program_count == 2 && p.sota_seeds == 1);
		CHECK(!strcmp(p.timing.sota_programs[1], "cal:slow:50:host:ref"));
		gq_protocol_free(&p);
	}
	snprintf(t, sizeof(t), "%s, \"timing\": {\"sota_programs\": []}}", head);
	s = parse(t, &p, &err);
	CHECK_MSG(s == GQ_OK, "%s", err.message);
	if (s == GQ_OK) {
		CHECK(p.timing.sota_program_count == 0);
		gq_protocol_free(&p);
	}
	snprintf(t, sizeof(t), "%s, \"timing\": {\"sota_programs\": [\"host:ref\", \"host:ref\"]}}",
	         head);
	expect_error(t, (const char *const[]){"$.timing.sota_programs[1]: ", "appears twice",
	                                      NULL});
	snprintf(t, sizeof(t), "%s, \"timing\": {\"sota_programs\": [\"cublas:nope\"]}}", head);
	expect_error(t, (const char *const[]){"$.timing.sota_programs[0]: ", NULL});
	snprintf(t, sizeof(t), "%s, \"timing\": {\"sota_programs\": \"host:ref\"}}", head);
	expect_error(t, (const char *const[]){"$.timing.sota_programs: ", "a list", NULL});
	snprintf(t, sizeof(t), "%s, \"accuracy\": {\"seeds\": 3, \"sota_seeds\": 4}}", head);
	expect_error(t, (const char *const[]){"$.accuracy.sota_seeds: ", NULL});
}

int main(void)
{
	test_precision();
	test_sota();
	return gq_check_exit("test_protocol_timing");
}

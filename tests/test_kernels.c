/* test_kernels.c: what the gemmq:* programs promise without a GPU (their GPU behaviour is
 * tests/gpu/test_gpu_kernels.c): the families and their patterns, strict name parsing, the
 * declared determinism, and supports() refusing points they cannot run before any device query.
 */
#include <string.h>

#include "check.h"
#include "kernels.h"

/* Open name, expecting success; returns the program (NULL on failure). */
static gemmq_program *open_ok(const char *name)
{
	gemmq_program *prog = NULL;
	gq_error err;
	gq_error_clear(&err);
	gq_status s = gq_kernels_open(name, &prog, &err);
	CHECK_MSG(s == GQ_OK && prog, "%s: %s", name, err.message);
	if (s != GQ_OK)
		return NULL;
	CHECK(prog->abi_version == GEMMQ_PROGRAM_ABI_VERSION);
	CHECK(strcmp(prog->name, name) == 0);
	CHECK(prog->supports && prog->prepare && prog->launch && prog->release && prog->destroy);
	CHECK((prog->flags & (GEMMQ_PROGRAM_HOST | GEMMQ_PROGRAM_PLANTED)) == 0);
	return prog;
}

static void test_families(void)
{
	int count = 0;
	const gq_program_family *f = gq_kernel_families(&count);
	CHECK(count == 3);
	CHECK(strcmp(f[0].pattern, "gemmq:det") == 0 && f[0].deterministic == 1);
	CHECK(strcmp(f[1].pattern, "gemmq:split:n<64|128|256>:s<1..4>") == 0 &&
	      f[1].deterministic == 0);
	CHECK(strcmp(f[2].pattern, "gemmq:streamk") == 0 && f[2].deterministic == 1);
	for (int i = 0; i < count; i++)
		CHECK(f[i].host == 0 && f[i].planted == 0 && f[i].open == gq_kernels_open &&
		      f[i].description && f[i].description[0]);
}

static void test_names(void)
{
	static const char *const good[] = {"gemmq:det",           "gemmq:streamk",
	                                   "gemmq:split:n64:s1",  "gemmq:split:n128:s2",
	                                   "gemmq:split:n256:s3", "gemmq:split:n256:s4"};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		gq_error err;
		gq_error_clear(&err);
		CHECK_MSG(gq_kernels_check(good[i], &err) == GQ_OK, "%s: %s", good[i], err.message);
		gemmq_program *prog = open_ok(good[i]);
		if (prog)
			prog->destroy(prog->ctx);
	}
	static const char *const bad[] = {
	    "gemmq:split:n96:s2",   "gemmq:split:n128:s5",  "gemmq:split:n128:s0",
	    "gemmq:split:n128",     "gemmq:split:n128:s2x", "gemmq:split:n0128:s2",
	    "gemmq:split:n+128:s2", "gemmq:split::s2",      "gemmq:split:",
	    "gemmq:dett",           "gemmq:det:1",          "gemmq:streamk:2",
	    "gemmq:split:n128:s12", "gemmq:split:s2:n128",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		gemmq_program *prog = NULL;
		gq_error err;
		gq_error_clear(&err);
		CHECK_MSG(gq_kernels_check(bad[i], &err) == GQ_ERR_INPUT, "%s accepted", bad[i]);
		gq_error_clear(&err);
		CHECK_MSG(gq_kernels_open(bad[i], &prog, &err) == GQ_ERR_INPUT && !prog,
		          "%s opened", bad[i]);
		CHECK(err.message[0] != '\0');
	}
	gq_error err;
	gq_error_clear(&err);
	gq_kernels_check("gemmq:split:n96:s2", &err);
	CHECK_MSG(strstr(err.message, "gemmq:split:n<64|128|256>:s<1..4>") != NULL,
	          "the message should give the pattern: %s", err.message);
}

/* det and streamk reduce in a fixed order; split adds with atomics unless it has one split. */
static void test_determinism_flags(void)
{
	static const struct {
		const char *name;
		int deterministic;
	} cases[] = {{"gemmq:det", 1},           {"gemmq:streamk", 1},
	             {"gemmq:split:n128:s1", 1}, {"gemmq:split:n128:s2", 0},
	             {"gemmq:split:n64:s4", 0},  {"gemmq:split:n256:s3", 0}};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gemmq_program *prog = open_ok(cases[i].name);
		if (!prog)
			continue;
		CHECK_MSG(!!(prog->flags & GEMMQ_PROGRAM_DETERMINISTIC) == cases[i].deterministic,
		          "%s", cases[i].name);
		prog->destroy(prog->ctx);
	}
}

/* Points no device could run are refused with GQ_ERR_UNSUPPORTED and a message. */
static void test_supports_refuses(void)
{
	gemmq_program *prog = open_ok("gemmq:det");
	if (!prog)
		return;
	const gemmq_problem ok = {.op = 2,
	                          .in_dtype = 0,
	                          .out_dtype = 0,
	                          .a_trans = 1,
	                          .b_trans = 0,
	                          .d_in = 4096,
	                          .d_out = 32,
	                          .t = 1025,
	                          .m = 32,
	                          .n = 4096,
	                          .k = 1025};
	gemmq_problem bad[5];
	for (int i = 0; i < 5; i++)
		bad[i] = ok;
	bad[0].in_dtype = 1;  /* FP32 in */
	bad[1].out_dtype = 2; /* unknown dtype */
	bad[2].m = 36,
	bad[2].d_out = 36; /* wgrad: A's contiguous dimension M not a multiple of 8 */
	bad[3].a_trans = 1, bad[3].b_trans = 1; /* no op has this layout */
	bad[4].k = 0;                           /* empty */
	for (int i = 0; i < 5; i++) {
		char msg[512] = "";
		int rc = prog->supports(prog->ctx, &bad[i], msg, sizeof(msg));
		CHECK_MSG(rc == GQ_ERR_UNSUPPORTED && strstr(msg, "gemmq:det"), "case %d: %d %s", i,
		          rc, msg);
	}
	prog->destroy(prog->ctx);
}

int main(void)
{
	test_families();
	test_names();
	test_determinism_flags();
	test_supports_refuses();
	return gq_check_exit("test_kernels");
}

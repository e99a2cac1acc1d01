/* test_registry.c: program names, families, errors, opening without a GPU, plugins, and the check
 * macros of cuda_check.h that the library programs report through. */
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include <cupti.h>

#include "check.h"
#include "cuda_check.h"
#include "programs_cublas.h"
#include "registry.h"

#define CONTAINS(hay, needle) (strstr((hay), (needle)) != NULL)

/* A tiny fwd problem, out [3,5], K = 8 (d_out 5 is no multiple of 8: no program here cares). */
static gemmq_problem small_problem(int out_dtype)
{
	gemmq_problem p;
	memset(&p, 0, sizeof(p));
	p.op = 0, p.in_dtype = 0, p.out_dtype = out_dtype, p.a_trans = 0, p.b_trans = 1;
	p.d_in = 8, p.d_out = 5, p.t = 3;
	p.m = 3, p.n = 5, p.k = 8;
	p.heads = p.batch = 1;
	p.lda = 8, p.ldb = 8, p.ldc = 5;
	p.stride_a = 24, p.stride_b = 40, p.stride_c = 15;
	return p;
}

/* The name of a program of family f for the tests: the pattern with its parameter filled in. */
static const char *example_name(const char *pattern)
{
	if (strcmp(pattern, "host:wrong:<seed>") == 0)
		return "host:wrong:7";
	if (strcmp(pattern, "host:crash:<T>") == 0)
		return "host:crash:65";
	if (strcmp(pattern, "host:slow-above:<T>") == 0)
		return "host:slow-above:65";
	if (strcmp(pattern, "planted:fault:<T>") == 0)
		return "planted:fault:1025";
	if (strcmp(pattern, "planted:swap:<k>") == 0)
		return "planted:swap:8";
	if (strcmp(pattern, "cublaslt:algo:<i>") == 0)
		return "cublaslt:algo:3";
	if (strcmp(pattern, "cal:<kind>:<base>") == 0)
		return "cal:nan:cublas:default"; /* the family lists its flags: GPU, planted */
	if (strchr(pattern, '<'))
		return NULL;
	return pattern;
}

static void test_families(void)
{
	int count = 0;
	const gq_program_family *f = gq_registry_families(&count);
	CHECK(f != NULL);
	CHECK(count == 17);
	/* Host (reference) families come first. */
	int seen_device = 0, host_after_device = 0;
	for (int i = 0; i < count; i++) {
		if (!f[i].host)
			seen_device = 1;
		else if (seen_device)
			host_after_device = 1;
	}
	CHECK(host_after_device == 0);
	CHECK(strcmp(f[0].pattern, "host:ref") == 0);
	const char *expected[] = {"host:ref",
	                          "host:split",
	                          "host:wrong:<seed>",
	                          "host:unwritten",
	                          "host:crash:<T>",
	                          "host:slow-above:<T>",
	                          "planted:swap:<k>",
	                          "gemmq:det",
	                          "gemmq:split:n<64|128|256|320>:s<1..4>",
	                          "gemmq:streamk",
	                          "cublas:default",
	                          "cublaslt:heuristic",
	                          "cublaslt:top8",
	                          "cublaslt:algo:<i>",
	                          "planted:fault:<T>",
	                          "cal:<kind>:<base>",
	                          "plugin:<path>:<name>"};
	for (int i = 0; i < 17 && i < count; i++) {
		CHECK_MSG(strcmp(f[i].pattern, expected[i]) == 0, "family %d is %s", i,
		          f[i].pattern);
		CHECK(f[i].description && f[i].description[0]);
		CHECK(f[i].open != NULL);
	}
	/* Each family's example program carries the flags the family lists. No GPU is touched. */
	for (int i = 0; i < count; i++) {
		const char *name = example_name(f[i].pattern);
		if (!name)
			continue;
		gemmq_program *p = NULL;
		gq_error err;
		gq_error_clear(&err);
		CHECK_MSG(gq_program_open(name, &p, &err) == GQ_OK, "%s: %s", name, err.message);
		if (!p)
			continue;
		CHECK(p->abi_version == GEMMQ_PROGRAM_ABI_VERSION);
		CHECK_MSG(strcmp(p->name, name) == 0, "%s vs %s", p->name, name);
		CHECK(!!(p->flags & GEMMQ_PROGRAM_HOST) == f[i].host);
		CHECK(!!(p->flags & GEMMQ_PROGRAM_DETERMINISTIC) == f[i].deterministic);
		CHECK(!!(p->flags & GEMMQ_PROGRAM_PLANTED) == f[i].planted);
		CHECK(gq_program_is_host(p) == f[i].host);
		CHECK(p->prepare && p->launch && p->release && p->destroy && p->supports);
		gq_program_close(p);
	}
	CHECK(gq_program_is_host(NULL) == 0);
}

static void expect_ok(const char *name)
{
	gq_error err;
	gq_error_clear(&err);
	CHECK_MSG(gq_registry_check_name(name, &err) == GQ_OK, "'%s': %s", name, err.message);
}

/* name must be refused with GQ_ERR_INPUT, by check and by open, with a message holding text. */
static void expect_bad(const char *name, const char *text)
{
	gq_error err;
	gq_error_clear(&err);
	CHECK_MSG(gq_registry_check_name(name, &err) == GQ_ERR_INPUT, "'%s' passed", name);
	CHECK_MSG(err.status == GQ_ERR_INPUT && CONTAINS(err.message, text),
	          "'%s': message '%s' lacks '%s'", name, err.message, text);
	gemmq_program *p = (gemmq_program *)1;
	gq_error_clear(&err);
	CHECK(gq_program_open(name, &p, &err) == GQ_ERR_INPUT);
	CHECK(p == NULL);
	CHECK_MSG(CONTAINS(err.message, text), "open '%s': '%s'", name, err.message);
}

static void test_names(void)
{
	expect_ok("host:ref");
	expect_ok("host:split");
	expect_ok("host:wrong:0");
	expect_ok("host:wrong:18446744073709551615");
	expect_ok("host:unwritten");
	expect_ok("cublas:default");
	expect_ok("cublaslt:heuristic");
	expect_ok("cublaslt:algo:0");
	expect_ok("cublaslt:algo:7");
	/* Plugin names: syntax only, nothing is loaded. */
	expect_ok("plugin:/nonexistent/x.so:foo");
	expect_ok("plugin:/a:b/c.so:foo");
	expect_ok("plugin:libx.so:y");

	const char *known =
	    "known programs: host:ref, host:split, host:wrong:<seed>, host:unwritten, "
	    "host:crash:<T>, host:slow-above:<T>, planted:swap:<k>, "
	    "gemmq:det, gemmq:split:n<64|128|256|320>:s<1..4>, gemmq:streamk, cublas:default, "
	    "cublaslt:heuristic, cublaslt:top8, cublaslt:algo:<i> (i = 0..7), "
	    "planted:fault:<T>, cal:<kind>:<base>, plugin:<path>:<name>";
	expect_bad("foo:bar", "unknown program 'foo:bar'; ");
	expect_bad("foo:bar", known);
	expect_bad("", "unknown program ''");
	expect_ok("host:crash:65");
	expect_bad("host:crash:0", "host:crash:<T> must be a decimal integer ≥ 1");
	expect_bad("host:crash:x", "host:crash:<T>");
	expect_ok("planted:fault:1025");
	expect_bad("planted:fault:", "planted:fault:<T> with T a decimal token count ≥ 1");
	expect_bad("planted:fault:-3", "planted:fault:<T>");
	expect_bad("planted:fault:12x", "planted:fault:<T>");
	expect_ok("planted:swap:8");
	expect_bad("planted:swap:0", "planted:swap:<k> with k a decimal integer ≥ 1");
	expect_bad("host:ref:x", "unknown program 'host:ref:x'");
	expect_bad("host:REF", "unknown program");
	expect_bad(" host:ref", "unknown program");
	expect_bad("cublas:Default", "unknown program");
	expect_bad("cublaslt", "unknown program");
	expect_bad("cublaslt:algo:9", "must be 0..7");
	expect_bad("cublaslt:algo:8", "must be 0..7");
	expect_bad("cublaslt:algo:", "must be 0..7");
	expect_bad("cublaslt:algo:01", "must be 0..7");
	expect_bad("cublaslt:algo:-1", "must be 0..7");
	expect_bad("cublaslt:algo:x", "must be 0..7");
	expect_bad("host:wrong:x", "program 'host:wrong:x': the seed");
	expect_bad("host:wrong:", "the seed");
	expect_bad("host:wrong:-1", "the seed");
	expect_bad("host:wrong:+1", "the seed");
	expect_bad("host:wrong:1 ", "the seed");
	expect_bad("host:wrong:18446744073709551616", "the seed");
	expect_bad("plugin:", "plugin:<path>:<name>");
	expect_bad("plugin:/x.so", "plugin:<path>:<name>");
	expect_bad("plugin:/x.so:", "plugin:<path>:<name>");
	expect_bad("plugin::foo", "plugin:<path>:<name>");

	gq_error err;
	gq_error_clear(&err);
	CHECK(gq_registry_check_name(NULL, &err) == GQ_ERR_INPUT);
	CHECK(gq_registry_check_name("nope", NULL) == GQ_ERR_INPUT);
}

/* cuBLAS programs open without a GPU; their supports/prepare either work (a GPU is here) or fail
 * with the failing call and the library's error text. */
static void test_library_programs_without_gpu(void)
{
	int devices = 0;
	const int have_gpu = cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
	gemmq_problem p = small_problem(1);
	char msg[1024];

	gemmq_program *prog = NULL;
	CHECK(gq_program_open("cublas:default", &prog, NULL) == GQ_OK);
	if (prog) {
		/* supports needs no GPU for cublas:default. */
		CHECK(prog->supports(prog->ctx, &p, msg, sizeof(msg)) == 0);
		gemmq_problem q = p;
		q.in_dtype = 1;
		msg[0] = '\0';
		CHECK(prog->supports(prog->ctx, &q, msg, sizeof(msg)) == GQ_ERR_UNSUPPORTED);
		CHECK_MSG(CONTAINS(msg, "cublas:default: ") && CONTAINS(msg, "BF16"), "%s", msg);
		if (!have_gpu) {
			void *inst = (void *)1;
			gemmq_operands io = {0};
			msg[0] = '\0';
			CHECK(prog->prepare(prog->ctx, &p, &io, &inst, msg, sizeof(msg)) ==
			      GQ_ERR_DEVICE);
			CHECK(inst == NULL);
			CHECK_MSG(CONTAINS(msg, "cublas:default: ") &&
			              CONTAINS(msg, "cudaMalloc(") &&
			              CONTAINS(msg, "failed: cudaError"),
			          "%s", msg);
		}
		gq_program_close(prog);
	}

	prog = NULL;
	CHECK(gq_program_open("cublaslt:algo:5", &prog, NULL) == GQ_OK);
	if (prog) {
		msg[0] = '\0';
		int rc = prog->supports(prog->ctx, &p, msg, sizeof(msg));
		if (!have_gpu)
			CHECK_MSG(rc == GQ_ERR_DEVICE && CONTAINS(msg, "cublaslt:algo:5: ") &&
			              CONTAINS(msg, "failed: "),
			          "rc %d: %s", rc, msg);
		else
			CHECK_MSG(rc == 0 || rc == GQ_ERR_UNSUPPORTED, "rc %d: %s", rc, msg);
		gq_program_close(prog);
	}

	char buf[64];
	CHECK(gq_cublaslt_describe(NULL, buf, sizeof(buf)) == -1);
	CHECK(CONTAINS(buf, "not a cuBLASLt instance"));
}

/* The check macros: file:line, the expression and the library's error name and text. */
static gq_status cuda_fails(gq_error *err)
{
	GQ_CUDA_CHECK(cudaErrorInvalidValue, err);
	return GQ_OK;
}

static gq_status cublas_fails(gq_error *err)
{
	GQ_CUBLAS_CHECK(CUBLAS_STATUS_NOT_SUPPORTED, err);
	return GQ_OK;
}

static gq_status cupti_fails(gq_error *err)
{
	GQ_CUPTI_CHECK(CUPTI_ERROR_INVALID_PARAMETER, err);
	return GQ_OK;
}

static gq_status all_succeed(gq_error *err)
{
	GQ_CUDA_CHECK(cudaSuccess, err);
	GQ_CUBLAS_CHECK(CUBLAS_STATUS_SUCCESS, err);
	GQ_CUPTI_CHECK(CUPTI_SUCCESS, err);
	return GQ_OK;
}

static void test_check_macros(void)
{
	gq_error err;
	gq_error_clear(&err);
	CHECK(cuda_fails(&err) == GQ_ERR_DEVICE);
	CHECK(err.status == GQ_ERR_DEVICE);
	CHECK_MSG(CONTAINS(err.where, "test_registry.c:"), "%s", err.where);
	CHECK_MSG(strcmp(err.message,
	                 "cudaErrorInvalidValue failed: cudaErrorInvalidValue: invalid "
	                 "argument") == 0,
	          "%s", err.message);

	gq_error_clear(&err);
	CHECK(cublas_fails(&err) == GQ_ERR_DEVICE);
	CHECK_MSG(CONTAINS(err.message, "CUBLAS_STATUS_NOT_SUPPORTED failed: "
	                                "CUBLAS_STATUS_NOT_SUPPORTED: "),
	          "%s", err.message);

	gq_error_clear(&err);
	CHECK(cupti_fails(&err) == GQ_ERR_DEVICE);
	CHECK_MSG(CONTAINS(err.message, "CUPTI_ERROR_INVALID_PARAMETER failed: "
	                                "CUPTI_ERROR_INVALID_PARAMETER ("),
	          "%s", err.message);

	gq_error_clear(&err);
	CHECK(all_succeed(&err) == GQ_OK);
	CHECK(err.status == GQ_OK);
	CHECK(cuda_fails(NULL) == GQ_ERR_DEVICE);
}

#ifdef GQ_TEST_PLUGIN_OK
static void expect_plugin_error(const char *name, const char *text)
{
	gq_error err;
	gq_error_clear(&err);
	gemmq_program *p = NULL;
	CHECK_MSG(gq_registry_check_name(name, &err) == GQ_OK, "syntax of %s: %s", name,
	          err.message);
	CHECK(gq_program_open(name, &p, &err) == GQ_ERR_INPUT);
	CHECK(p == NULL);
	CHECK_MSG(CONTAINS(err.message, text), "%s: '%s' lacks '%s'", name, err.message, text);
}

static void test_plugins(void)
{
	/* Hold the plugin open ourselves so its destroy counter survives gq_program_close. */
	void *lib = dlopen(GQ_TEST_PLUGIN_OK, RTLD_NOW | RTLD_LOCAL);
	CHECK_MSG(lib != NULL, "%s", dlerror());
	if (!lib)
		return;
	int (*destroyed)(void);
	*(void **)(&destroyed) = dlsym(lib, "gemmq_test_plugin_destroyed");
	CHECK(destroyed != NULL);
	if (!destroyed) {
		dlclose(lib);
		return;
	}

	char name[1024];
	snprintf(name, sizeof(name), "plugin:%s:constant", GQ_TEST_PLUGIN_OK);
	gemmq_program *p = NULL;
	gq_error err;
	gq_error_clear(&err);
	CHECK_MSG(gq_program_open(name, &p, &err) == GQ_OK, "%s", err.message);
	if (p) {
		CHECK(strcmp(p->name, name) == 0);
		CHECK(p->abi_version == GEMMQ_PROGRAM_ABI_VERSION);
		CHECK(p->flags ==
		      (GEMMQ_PROGRAM_HOST | GEMMQ_PROGRAM_PLANTED | GEMMQ_PROGRAM_DETERMINISTIC));
		CHECK(gq_program_is_host(p));
		CHECK(strcmp(p->description, "writes 2.0 everywhere") == 0);
		gemmq_problem prob = small_problem(1);
		float out[15] = {0};
		uint16_t a[24] = {0}, b[40] = {0};
		gemmq_operands io = {.a = a, .b = b, .out = out};
		char msg[256] = "";
		void *inst = NULL;
		/* The wrapper must hand the plugin its own ctx back, or these fail. */
		CHECK_MSG(p->supports(p->ctx, &prob, msg, sizeof(msg)) == 0, "%s", msg);
		CHECK_MSG(p->prepare(p->ctx, &prob, &io, &inst, msg, sizeof(msg)) == 0, "%s", msg);
		if (inst) {
			CHECK(p->launch(inst, &io, NULL, msg, sizeof(msg)) == 0);
			int all = 1;
			for (int i = 0; i < 15; i++)
				all &= out[i] == 2.0f;
			CHECK(all);
			p->release(inst);
		}
		int before = destroyed();
		gq_program_close(p);
		CHECK(destroyed() == before + 1);
	}

	snprintf(name, sizeof(name), "plugin:%s:never", GQ_TEST_PLUGIN_OK);
	p = NULL;
	CHECK(gq_program_open(name, &p, NULL) == GQ_OK);
	if (p) {
		gemmq_problem prob = small_problem(0);
		char msg[256] = "";
		CHECK(p->supports(p->ctx, &prob, msg, sizeof(msg)) == GQ_ERR_UNSUPPORTED);
		CHECK(strcmp(msg, "never: supports no point") == 0);
		CHECK(gq_program_is_host(p) == 1);
		gq_program_close(p); /* no destroy, no release in the plugin: the wrapper copes */
	}
	dlclose(lib);

	snprintf(name, sizeof(name), "plugin:%s:nope", GQ_TEST_PLUGIN_OK);
	char text[1200];
	snprintf(text, sizeof(text), "plugin %s: no program 'nope'; it has: constant, never",
	         GQ_TEST_PLUGIN_OK);
	expect_plugin_error(name, text);

	snprintf(name, sizeof(name), "plugin:%s:x", GQ_TEST_PLUGIN_BAD_ABI);
	snprintf(text, sizeof(text), "plugin %s: ABI version %u, gemmq expects %u",
	         GQ_TEST_PLUGIN_BAD_ABI, GEMMQ_PROGRAM_ABI_VERSION + 1, GEMMQ_PROGRAM_ABI_VERSION);
	expect_plugin_error(name, text);
	gq_error_clear(&err);
	p = NULL;
	gq_program_open(name, &p, &err);
	CHECK_MSG(strcmp(err.message, text) == 0, "'%s'", err.message);

	/* a plugin built for version 1, before the proj ops changed gemmq_problem: refused with
	 * both versions, though it hands over its program */
	CHECK(GEMMQ_PROGRAM_ABI_VERSION == 2);
	snprintf(name, sizeof(name), "plugin:%s:old", GQ_TEST_PLUGIN_V1);
	snprintf(text, sizeof(text), "plugin %s: ABI version 1, gemmq expects 2",
	         GQ_TEST_PLUGIN_V1);
	expect_plugin_error(name, text);
	gq_error_clear(&err);
	p = NULL;
	CHECK(gq_program_open(name, &p, &err) != GQ_OK && p == NULL);
	CHECK_MSG(strcmp(err.message, text) == 0, "'%s'", err.message);

	snprintf(name, sizeof(name), "plugin:%s:x", GQ_TEST_PLUGIN_NO_ENTRY);
	snprintf(text, sizeof(text), "plugin %s: no entry point 'gemmq_plugin_programs'",
	         GQ_TEST_PLUGIN_NO_ENTRY);
	expect_plugin_error(name, text);

	expect_plugin_error("plugin:/nonexistent/libnothing.so:x",
	                    "plugin /nonexistent/libnothing.so: cannot load it: ");
}
#endif

int main(void)
{
	test_families();
	test_names();
	test_library_programs_without_gpu();
	test_check_macros();
#ifdef GQ_TEST_PLUGIN_OK
	test_plugins();
#else
	CHECK_MSG(
	    0,
	    "built without the test plugins: tests/CMakeLists.txt must add_subdirectory(plugins) "
	    "after the test executables");
#endif
	return gq_check_exit("test_registry");
}

/* registry.c: program names → programs (see registry.h).
 *
 * A name belongs to the family whose pattern it matches: a pattern without '<' must equal the
 * name; a pattern with one ("cublaslt:algo:<i>") claims every name that starts with the text
 * before the '<', and the family's module then checks the parameters, so "cublaslt:algo:9" is
 * a bad parameter of a known family rather than an unknown program. Every family's open returns
 * a program that its own destroy(ctx) frees, gemmq_program included; gq_program_close relies on it.
 */
#include "registry.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "calibration.h"
#include "kernels.h"
#include "problem.h"
#include "plugin.h"
#include "programs_cublas.h"
#include "programs_host.h"
#include "programs_planted.h"

/* Host (reference) families first, then the libraries, then plugins. */
static const gq_program_family base_families[] = {
    {.pattern = "host:ref",
     .description = "host backend: FP32 accumulation in K order (the CPU reference program)",
     .host = 1,
     .deterministic = 1,
     .planted = 0,
     .open = gq_programs_host_open},
    {.pattern = "host:split",
     .description = "host backend: split-K into 4 slices, added in an order that changes on every "
                    "launch (not bitwise stable)",
     .host = 1,
     .deterministic = 0,
     .planted = 0,
     .open = gq_programs_host_open},
    {.pattern = "host:wrong:<seed>",
     .description = "host:ref, except on inputs of seed <seed> output element M*N/2 is off by 5 % "
                    "of max|out|",
     .host = 1,
     .deterministic = 1,
     .planted = 1,
     .open = gq_programs_host_open},
    {.pattern = "host:unwritten",
     .description = "host:ref that never writes output element 0",
     .host = 1,
     .deterministic = 1,
     .planted = 1,
     .open = gq_programs_host_open},
    {.pattern = "host:crash:<T>",
     .description = "host:ref, except that a launch at token count <T> kills its process with "
                    "SIGSEGV (tests gemmq time's workers)",
     .host = 1,
     .deterministic = 1,
     .planted = 1,
     .open = gq_programs_host_open},
    {.pattern = "host:slow-above:<T>",
     .description = "host:ref, except that launches at token counts above <T> take 3 times as "
                    "long (tests gemmq qualify --refine-edges)",
     .host = 1,
     .deterministic = 1,
     .planted = 1,
     .open = gq_programs_host_open},
    {.pattern = "planted:swap:<k>",
     .description = "host:ref with the k-th and (k+1)-th largest elements of output row M/2 "
                    "swapped (tests the router top-k check)",
     .host = 1,
     .deterministic = 1,
     .planted = 1,
     .open = gq_programs_planted_open},
    {.pattern = "cublas:default",
     .description = "cublasGemmEx with CUBLAS_GEMM_DEFAULT, FP32 compute (what torch.mm does)",
     .host = 0,
     .deterministic = 1,
     .planted = 0,
     .open = gq_programs_cublas_open},
    {.pattern = "cublaslt:heuristic",
     .description = "cublasLtMatmul with the heuristic's top-1 algorithm, 32 MiB workspace",
     .host = 0,
     .deterministic = 0,
     .planted = 0,
     .open = gq_programs_cublas_open},
    {.pattern = "cublaslt:top8",
     .description = "cublasLtMatmul with the fastest of the heuristic's top 8 on the point, timed "
                    "at prepare, 32 MiB workspace",
     .host = 0,
     .deterministic = 0,
     .planted = 0,
     .open = gq_programs_cublas_open},
    {.pattern = "cublaslt:algo:<i>",
     .description = "cublasLtMatmul with the i-th (i = 0..7) of the heuristic's top 8, 32 MiB "
                    "workspace",
     .host = 0,
     .deterministic = 0,
     .planted = 0,
     .open = gq_programs_cublas_open},
    {.pattern = "planted:fault:<T>",
     .description = "cublas:default, except that at token count <T> it writes to an illegal "
                    "address (tests gemmq time's fault handling)",
     .host = 0,
     .deterministic = 1,
     .planted = 1,
     .open = gq_programs_planted_open},
    {.pattern = "cal:<kind>:<base>",
     .description = "calibration programs wrapping any base program, on its backend: "
                    "cal:twin:<base>, cal:slow:<pct>:<base>, cal:wrong:<seed>:<base>, "
                    "cal:nondet:<base>, cal:unwritten:<base>, cal:nan:<base>, cal:input:<base>, "
                    "cal:before:<base>, cal:after:<base> "
                    "(kernels/calibration/calibration.h)",
     .host = 0,
     .deterministic = 0,
     .planted = 1,
     .open = gq_calibration_open},
    {.pattern = "plugin:<path>:<name>",
     .description = "program <name> of the shared library <path> (a gemmq plugin)",
     .host = 0,
     .deterministic = 0,
     .planted = 0,
     .open = gq_plugin_open},
};

#define BASE_COUNT ((int)(sizeof(base_families) / sizeof(base_families[0])))
#define HOST_FAMILIES 7 /* our own kernels are listed after the host families */

/* The syntax check of each family, in the order of families[], and a hint for error messages. */
typedef struct family_syntax {
	gq_status (*check)(const char *name, gq_error *err);
	const char *hint;
} family_syntax;

static const family_syntax base_syntax[] = {
    {gq_programs_host_check, ""},
    {gq_programs_host_check, ""},
    {gq_programs_host_check, ""},
    {gq_programs_host_check, ""},
    {gq_programs_host_check, ""},
    {gq_programs_host_check, ""},
    {gq_programs_planted_check, ""},
    {gq_programs_cublas_check, ""},
    {gq_programs_cublas_check, ""},
    {gq_programs_cublas_check, ""},
    {gq_programs_cublas_check, " (i = 0..7)"},
    {gq_programs_planted_check, ""},
    {gq_calibration_check, ""},
    {gq_plugin_check, ""},
};

_Static_assert(sizeof(base_syntax) / sizeof(base_syntax[0]) ==
                   sizeof(base_families) / sizeof(base_families[0]),
               "one syntax entry per family");

int gq_family_available(const gq_program_family *f, int is_host, const char *arch, char *buf,
                        size_t size)
{
	if (f->host != is_host)
		snprintf(buf, size, "%s", f->host ? "a host-backend program: run it with --device host"
		                                  : "needs a CUDA GPU");
	else if (f->arch && strcmp(f->arch, arch) != 0)
		snprintf(buf, size, "needs %s (built for %sa only); this part is %s", f->arch, f->arch,
		         arch);
	else {
		snprintf(buf, size, "%s", "");
		return 1;
	}
	return 0;
}

/* All families: the host ones, our kernels (kernels/kernels.h), then libraries and plugins. */
#define MAX_FAMILIES 64
static gq_program_family families[MAX_FAMILIES];
static family_syntax syntax[MAX_FAMILIES];
static int family_count;
static pthread_once_t families_once = PTHREAD_ONCE_INIT;

static void build_families(void)
{
	int kernel_count = 0;
	const gq_program_family *kernel = gq_kernel_families(&kernel_count);
	for (int i = 0; i < BASE_COUNT; i++) {
		if (i == HOST_FAMILIES)
			for (int k = 0; k < kernel_count && family_count < MAX_FAMILIES; k++) {
				families[family_count] = kernel[k];
				syntax[family_count] = (family_syntax){gq_kernels_check, ""};
				family_count++;
			}
		if (family_count < MAX_FAMILIES) {
			families[family_count] = base_families[i];
			syntax[family_count] = base_syntax[i];
			family_count++;
		}
	}
}

#define FAMILY_COUNT (pthread_once(&families_once, build_families), family_count)

const gq_program_family *gq_registry_families(int *count)
{
	if (count)
		*count = FAMILY_COUNT;
	return families;
}

/* 1 when name belongs to the family of pattern (see the comment at the top). */
static int matches(const char *pattern, const char *name)
{
	const char *param = strchr(pattern, '<');
	if (!param)
		return strcmp(pattern, name) == 0;
	return strncmp(pattern, name, (size_t)(param - pattern)) == 0;
}

/* The family index of name, or -1 (with an error listing the known programs). */
static int find_family(const char *name, gq_error *err)
{
	for (int i = 0; name && i < FAMILY_COUNT; i++)
		if (matches(families[i].pattern, name))
			return i;
	char known[1024] = "";
	size_t used = 0;
	for (int i = 0; i < FAMILY_COUNT && used < sizeof(known); i++)
		used += (size_t)snprintf(known + used, sizeof(known) - used, "%s%s%s",
		                         i ? ", " : "", families[i].pattern, syntax[i].hint);
	gq_error_set(err, GQ_ERR_INPUT, NULL, "unknown program '%s'; known programs: %s",
	             name ? name : "(null)", known);
	return -1;
}

gq_status gq_registry_check_name(const char *name, gq_error *err)
{
	int i = find_family(name, err);
	if (i < 0)
		return GQ_ERR_INPUT;
	return syntax[i].check(name, err);
}

gq_status gq_program_open(const char *name, gemmq_program **out, gq_error *err)
{
	*out = NULL;
	int i = find_family(name, err);
	if (i < 0)
		return GQ_ERR_INPUT;
	gq_status s = syntax[i].check(name, err);
	if (s != GQ_OK)
		return s;
	s = families[i].open(name, out, err);
	if (s != GQ_OK)
		return s;
	const uint32_t version = (*out)->abi_version;
	if (version != GEMMQ_PROGRAM_ABI_VERSION) {
		gq_program_close(*out);
		*out = NULL;
		return gq_error_set(err, GQ_ERR_INTERNAL, GQ_HERE,
		                    "program '%s' was filled for ABI version %u, gemmq expects %u",
		                    name, version, GEMMQ_PROGRAM_ABI_VERSION);
	}
	return GQ_OK;
}

void gq_program_close(gemmq_program *program)
{
	if (program && program->destroy)
		program->destroy(program->ctx);
}

int gq_program_is_host(const gemmq_program *program)
{
	return program && (program->flags & GEMMQ_PROGRAM_HOST) != 0;
}

void gq_program_problem(const gq_problem *p, uint64_t seed, gemmq_problem *out)
{
	gq_gemm g;
	gq_problem_gemm(p, &g);
	memset(out, 0, sizeof(*out));
	out->op = (int32_t)p->op;
	out->in_dtype = (int32_t)p->in_dtype;
	out->out_dtype = (int32_t)p->out_dtype;
	out->a_trans = g.a_trans;
	out->b_trans = g.b_trans;
	out->d_in = p->d_in;
	out->d_out = p->d_out;
	out->t = p->t;
	out->m = g.m;
	out->n = g.n;
	out->k = g.k;
	out->seed = seed;
	out->weight_layout = gq_op_is_proj(p->op) ? (int32_t)p->weight_layout : 0;
	out->heads = gq_problem_heads(p);
	out->batch = g.batch;
	out->lda = g.lda;
	out->ldb = g.ldb;
	out->ldc = g.ldc;
	out->stride_a = g.stride_a;
	out->stride_b = g.stride_b;
	out->stride_c = g.stride_c;
	out->a_dtype = (int32_t)g.a_dtype;
	out->b_dtype = (int32_t)g.b_dtype;
}

int gq_program_fail(gq_status status, char *msg, size_t msg_size, const char *fmt, ...)
{
	if (msg && msg_size) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(msg, msg_size, fmt, ap);
		va_end(ap);
	}
	return (int)status;
}

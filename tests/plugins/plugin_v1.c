/* plugin_v1.c: a plugin as it was built against ABI version 1 of gemmq_program.h, before
 * gemmq_problem gained the batch of the proj ops (heads, layout, leading dimensions, strides):
 * its own copy of the version-1 structs, no include of today's header. It hands over its program
 * whatever version gemmq asks for, as a careless plugin would; gemmq must refuse it by the version
 * it returns, naming both, before reading a program through structs of another layout. */
#include <stddef.h>
#include <stdint.h>

#define V1_ABI_VERSION 1u

typedef struct v1_problem {
	int32_t op, in_dtype, out_dtype, a_trans, b_trans, reserved;
	int64_t d_in, d_out, t;
	int64_t m, n, k;
	uint64_t seed;
} v1_problem;

typedef struct v1_operands {
	const void *a, *b;
	void *out;
} v1_operands;

typedef struct v1_program {
	uint32_t abi_version;
	const char *name, *description;
	uint32_t flags;
	void *ctx;
	int (*supports)(void *ctx, const v1_problem *p, char *msg, size_t msg_size);
	int (*prepare)(void *ctx, const v1_problem *p, const v1_operands *io, void **instance,
	               char *msg, size_t msg_size);
	int (*launch)(void *instance, const v1_operands *io, void *stream, char *msg,
	              size_t msg_size);
	void (*release)(void *instance);
	void (*destroy)(void *ctx);
} v1_program;

static int v1_supports(void *ctx, const v1_problem *p, char *msg, size_t msg_size)
{
	(void)ctx, (void)p, (void)msg, (void)msg_size;
	return 0;
}

static const v1_program programs[] = {{.abi_version = V1_ABI_VERSION,
                                       .name = "old",
                                       .description = "a plugin of ABI version 1",
                                       .flags = 2u, /* host */
                                       .supports = v1_supports}};

uint32_t gemmq_plugin_programs(uint32_t host_abi_version, const v1_program **out, int *count)
{
	(void)host_abi_version;
	*out = programs;
	*count = 1;
	return V1_ABI_VERSION;
}

/* plugin_bad_abi.c: a plugin built for the next ABI version; gemmq must refuse it, naming both. */
#include <stddef.h>
#include <stdint.h>

#include "gemmq_program.h"

uint32_t gemmq_plugin_programs(uint32_t host_abi_version, const gemmq_program **out, int *count)
{
	(void)host_abi_version;
	*out = NULL;
	*count = 0;
	return GEMMQ_PROGRAM_ABI_VERSION + 1;
}

/* fuzz_bench.c: libFuzzer target for the reader of bench files: the input, as a file, goes
 * through gemmq bench --render (gq_document_load with the bench schema, then the Markdown).
 * Built with GQ_FUZZ; scripts/test --sanitize seeds it with a committed bench file cut to a few
 * points. */
#include "commands.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[256], md[256];
	fuzz_file("bench.json", data, size, path, sizeof(path));
	snprintf(md, sizeof(md), "%s/bench.md", fuzz_dir());
	char *render[] = {"bench", "--render", path, "--md", md, NULL};
	fuzz_reset_getopt();
	(void)gq_cmd_bench(FUZZ_ARGC(render), render, FUZZ_ARGC(render), render);
	return 0;
}

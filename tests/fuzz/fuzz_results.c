/* fuzz_results.c: libFuzzer target for every reader of results files: the input, as a file, goes
 * through gq_results_load (JSON, kind, schema, names) and, when it is accepted, through gemmq
 * table (Markdown and TSV), plan (JSON and C), compare (against itself) and merge, each as the
 * command runs. Built with GQ_FUZZ; scripts/test --sanitize seeds it with committed results
 * files. A reader that crashes, leaks or hits undefined behaviour on any input is a finding. */
#include <jansson.h>

#include "fuzz_common.h"
#include "report.h"
#include "results_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[256], out[256];
	fuzz_file("results.json", data, size, path, sizeof(path));
	snprintf(out, sizeof(out), "%s/out", fuzz_dir());
	json_t *doc = NULL;
	gq_error err;
	gq_error_clear(&err);
	if (gq_results_load(path, &doc, &err) != GQ_OK)
		return 0;
	json_decref(doc);
	char *table[] = {"table", path, NULL};
	char *tsv[] = {"table", "--format", "tsv", path, NULL};
	char *plan[] = {"plan", path, "-o", out, NULL};
	char *plan_c[] = {"plan", "--format", "c", path, "-o", out, NULL};
	char *compare[] = {"compare", path, path, NULL};
	char *merge[] = {"merge", path, "-o", out, NULL};
	fuzz_reset_getopt();
	(void)gq_cmd_table(FUZZ_ARGC(table), table);
	fuzz_reset_getopt();
	(void)gq_cmd_table(FUZZ_ARGC(tsv), tsv);
	fuzz_reset_getopt();
	(void)gq_cmd_plan(FUZZ_ARGC(plan), plan);
	fuzz_reset_getopt();
	(void)gq_cmd_plan(FUZZ_ARGC(plan_c), plan_c);
	fuzz_reset_getopt();
	(void)gq_cmd_compare(FUZZ_ARGC(compare), compare);
	fuzz_reset_getopt();
	(void)gq_cmd_merge(FUZZ_ARGC(merge), merge, FUZZ_ARGC(merge), merge);
	return 0;
}

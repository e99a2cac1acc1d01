/* test_layer_checks.c: the router top-k check and batch invariance (harness/accuracy/
 * layer_checks.c), on rows built by hand, then end to end through `gemmq accuracy --device host`:
 *
 * - top-k (tests/protocols/e2e/layer-topk.json): planted:swap:8 trades the 8th and 9th largest
 *   logits of row M/2; under a loose budget it fails by the top-k check alone, its message naming
 *   the row and both index sets; host:ref passes with every row checked. With a tie margin no
 *   two logits reach (layer-topk-ties.json) every row is a near tie and skipped: both pass.
 * - batch invariance (layer-batch.json, against a 64-token call): host:ref differs in 0 elements
 *   at every point and seed where it applies, host:split in more than 0 (fwd, router_fwd,
 *   proj_fwd, proj_dgrad, router_dgrad with an FP32 g); recorded, never failing a program; wgrad
 *   says "not applicable", with no count; T = 65 above 64 says "not measured". */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "e2e.h"
#include "layer_checks.h"

static char tmpdir[256];

/* Rows built by hand, k = 2, margin 0.5:
 *   row 0  [5, 1, 4, 3]   top-2 {0, 2}; r_2 − r_3 = 4 − 3 = 1 ≥ 0.5: checked
 *   row 1  [1, 2, 2.2, 0] top-2 {1, 2}; r_2 − r_3 = 2 − 1 = 1: checked
 *   row 2  [3, 3.1, 3.3, 0] r_2 − r_3 = 3.1 − 3 = 0.1 < 0.5: a near tie, skipped */
static void test_topk_rows(void)
{
	const double ref[12] = {5, 1, 4, 3, 1, 2, 2.2, 0, 3, 3.1, 3.3, 0};
	gq_topk_ref r;
	gq_error err;
	gq_error_clear(&err);
	CHECK(gq_topk_ref_init(ref, 3, 4, 2, 0.5, &r, &err) == GQ_OK);
	CHECK(r.skipped == 1 && r.tie[2] == 1 && r.tie[0] == 0 && r.tie[1] == 0);
	CHECK(r.set[0] == 0 && r.set[1] == 2 && r.set[2] == 1 && r.set[3] == 2);
	/* the reference's own values pass; other values with the same order too */
	float out[12] = {5, 1, 4, 3, 1, 2, 2.2f, 0, 3, 3.1f, 3.3f, 0};
	gq_topk_result res;
	CHECK(gq_topk_check(&r, out, &res, &err) == GQ_OK);
	CHECK(res.checked == 2 && res.skipped == 1 && res.differing == 0 && res.first_row == -1);
	/* row 1 becomes [2.1, 2, 1, 0]: its top-2 {0, 1} is not the reference's {1, 2}; row 2, a
	 * near tie, may do anything */
	out[4] = 2.1f, out[6] = 1;
	out[8] = 9; /* row 2: skipped */
	CHECK(gq_topk_check(&r, out, &res, &err) == GQ_OK);
	CHECK_MSG(res.differing == 1 && res.first_row == 1, "%lld at %lld",
	          (long long)res.differing, (long long)res.first_row);
	CHECK_MSG(strstr(res.detail, "row 1: top-2 {0, 1} vs the reference's {1, 2}"), "%s",
	          res.detail);
	gq_topk_ref_free(&r);
	/* k ≥ E: every column is in the set, nothing to skip or differ */
	CHECK(gq_topk_ref_init(ref, 3, 4, 8, 0.5, &r, &err) == GQ_OK);
	CHECK(r.k == 4 && r.skipped == 0);
	CHECK(gq_topk_check(&r, out, &res, &err) == GQ_OK && res.differing == 0 &&
	      res.checked == 3);
	gq_topk_ref_free(&r);
	CHECK(gq_batch_invariance_applies(GQ_OP_FWD) &&
	      gq_batch_invariance_applies(GQ_OP_PROJ_DGRAD));
	CHECK(!gq_batch_invariance_applies(GQ_OP_WGRAD) &&
	      !gq_batch_invariance_applies(GQ_OP_ROUTER_WGRAD) &&
	      !gq_batch_invariance_applies(GQ_OP_PROJ_WGRAD));
}

/* Run gemmq accuracy on tests/protocols/e2e/<name>.json; its exit status and results. */
static int run_accuracy(const char *name, json_t **results)
{
	char out[512], cmd[2048];
	snprintf(out, sizeof(out), "%s/%s.json", tmpdir, name);
	snprintf(cmd, sizeof(cmd),
	         "'%s' accuracy '%s/tests/protocols/e2e/%s.json' --device host -o '%s' -q",
	         GQ_GEMMQ_BIN, GQ_SOURCE_DIR, name, out);
	int status = system(cmd);
	json_error_t jerr;
	*results = json_load_file(out, 0, &jerr);
	CHECK_MSG(*results != NULL, "%s: results not readable: %s", name, jerr.text);
	snprintf(cmd, sizeof(cmd), "'%s' check-results '%s' >/dev/null", GQ_GEMMQ_BIN, out);
	CHECK_MSG(system(cmd) == 0, "%s: the results do not validate", name);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* 1 when `gemmq table` of results <name>.json prints text (in its method caption). */
static int caption_has(const char *name, const char *text)
{
	char cmd[1024], line[8192];
	snprintf(cmd, sizeof(cmd), "'%s' table '%s/%s.json'", GQ_GEMMQ_BIN, tmpdir, name);
	FILE *f = popen(cmd, "r");
	int found = 0;
	while (f && fgets(line, sizeof(line), f))
		found |= strstr(line, text) != NULL;
	if (f)
		pclose(f);
	return found;
}

static json_t *record(json_t *doc, size_t point, const char *program)
{
	return e2e_program_at(doc, point, program);
}

static void test_topk_e2e(void)
{
	json_t *doc = NULL;
	CHECK(run_accuracy("layer-topk", &doc) == 1); /* a failure was found */
	for (size_t i = 0; doc && i < 2; i++) {
		json_t *pt = json_array_get(json_object_get(doc, "points"), i);
		int64_t t = json_integer_value(json_object_get(pt, "t"));
		json_t *tk = json_object_get(json_object_get(pt, "accuracy"), "router_topk");
		CHECK(json_integer_value(json_object_get(tk, "k")) == 8);
		json_t *ref = record(doc, i, "host:ref"), *swap = record(doc, i, "planted:swap:8");
		CHECK_MSG(!strcmp(e2e_str(ref, "status"), "pass"), "host:ref: %s",
		          e2e_str(ref, "message"));
		CHECK_MSG(!strcmp(e2e_str(swap, "status"), "fail"), "planted: %s",
		          e2e_str(swap, "status"));
		char want[64];
		snprintf(want, sizeof(want), "first row %lld: top-8 {", (long long)(t / 2));
		CHECK_MSG(strstr(e2e_str(swap, "message"), "router top-k: 1 of ") &&
		              strstr(e2e_str(swap, "message"), want) &&
		              strstr(e2e_str(swap, "message"), "vs the reference's {"),
		          "%s", e2e_str(swap, "message"));
		json_t *s0 = json_array_get(json_object_get(ref, "seeds"), 0);
		json_t *rt = json_object_get(s0, "router_topk");
		int64_t checked = json_integer_value(json_object_get(rt, "rows_checked")),
		        skipped = json_integer_value(json_object_get(rt, "rows_skipped"));
		CHECK(checked + skipped == t && checked > 0);
		CHECK(json_integer_value(json_object_get(rt, "rows_differing")) == 0);
		/* the planted program passed the budget: the top-k check failed it */
		json_t *w0 =
		    json_object_get(json_array_get(json_object_get(swap, "seeds"), 0), "worst");
		CHECK(json_number_value(json_object_get(w0, "rel_fro")) < 1);
	}
	json_decref(doc);
	doc = NULL;
	/* the table's caption states the method: budgets, k and the tie margin */
	CHECK(caption_has("layer-topk", "router custom {\"max_rel_fro\":1}"));
	CHECK(caption_has("layer-topk",
	                  "every row's top-8 expert set equal to the FP64 "
	                  "reference's, rows whose k-th and (k+1)-th reference logits "
	                  "are within 0.0001 skipped as near ties"));
	CHECK(run_accuracy("layer-topk-ties", &doc) == 0);
	for (size_t i = 0; doc && i < 2; i++) {
		json_t *pt = json_array_get(json_object_get(doc, "points"), i);
		int64_t t = json_integer_value(json_object_get(pt, "t"));
		json_t *swap = record(doc, i, "planted:swap:8");
		CHECK_MSG(!strcmp(e2e_str(swap, "status"), "pass"), "%s", e2e_str(swap, "message"));
		json_t *rt = json_object_get(json_array_get(json_object_get(swap, "seeds"), 1),
		                             "router_topk");
		CHECK(json_integer_value(json_object_get(rt, "rows_skipped")) == t &&
		      json_integer_value(json_object_get(rt, "rows_checked")) == 0);
	}
	json_decref(doc);
}

static void test_batch_e2e(void)
{
	json_t *doc = NULL;
	CHECK(run_accuracy("layer-batch", &doc) == 0); /* recorded, not judged */
	size_t i;
	json_t *pt;
	int measured = 0;
	json_array_foreach(json_object_get(doc, "points"), i, pt)
	{
		const char *id = e2e_str(pt, "id");
		json_t *bi = json_object_get(json_object_get(pt, "accuracy"), "batch_invariance");
		CHECK_MSG(json_integer_value(json_object_get(bi, "reference_tokens")) == 64, "%s",
		          id);
		json_t *ref = record(doc, i, "host:ref"), *split = record(doc, i, "host:split");
		CHECK_MSG(!strcmp(e2e_str(ref, "status"), "pass") &&
		              !strcmp(e2e_str(split, "status"), "pass"),
		          "%s: %s / %s", id, e2e_str(ref, "message"), e2e_str(split, "message"));
		int wgrad = !strcmp(e2e_str(pt, "op"), "wgrad");
		int above = json_integer_value(json_object_get(pt, "t")) > 64;
		if (wgrad || above) {
			CHECK_MSG(json_is_false(json_object_get(bi, "applicable")) &&
			              strstr(e2e_str(bi, "why"),
			                     wgrad ? "not applicable" : "not measured"),
			          "%s", id);
			json_t *s0 = json_array_get(json_object_get(ref, "seeds"), 0);
			CHECK_MSG(json_object_get(s0, "batch_invariance_differing") == NULL, "%s",
			          id);
			continue;
		}
		CHECK_MSG(json_is_true(json_object_get(bi, "applicable")), "%s", id);
		for (size_t s = 0; s < 2; s++) {
			json_t *rs = json_array_get(json_object_get(ref, "seeds"), s),
			       *ss = json_array_get(json_object_get(split, "seeds"), s);
			json_t *rd = json_object_get(rs, "batch_invariance_differing"),
			       *sd = json_object_get(ss, "batch_invariance_differing");
			CHECK_MSG(json_is_integer(rd) && json_integer_value(rd) == 0, "%s seed %zu",
			          id, s);
			CHECK_MSG(json_is_integer(sd) && json_integer_value(sd) > 0,
			          "%s seed %zu: %lld", id, s, (long long)json_integer_value(sd));
		}
		measured++;
	}
	CHECK(measured == 5); /* fwd, router_fwd, proj_fwd, proj_dgrad, router_dgrad */
	json_decref(doc);
	CHECK(caption_has("layer-batch", "router router_fp32 (rel-RMS ≤ 5e-05, router_wgrad ≤ "
	                                 "2e-06)"));
	CHECK(caption_has("layer-batch",
	                  "batch invariance recorded, not judged: output elements "
	                  "whose bits differ from the same tokens of a 64-token call"));
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/gq_layer_checks_XXXXXX");
	CHECK(mkdtemp(tmpdir) != NULL);
	test_topk_rows();
	test_topk_e2e();
	test_batch_e2e();
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	CHECK(system(cmd) == 0);
	return gq_check_exit("test_layer_checks");
}

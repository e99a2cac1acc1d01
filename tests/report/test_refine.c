/* test_refine.c: gq_refine_entries on hand-made results: an open edge halved at the middle K
 * block with the qualified side's program; an exact edge (adjacent K blocks) left; an edge
 * between two programs left and counted; with k-block parity each half on its own, the new T in
 * the half's parity; curves of other shapes (and heads) apart. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "refine.h"

/* A point of curve wgrad 4096 x d_out: qualified for program, or (program NULL) slower. */
static json_t *point(int d_out, long long t, const char *program)
{
	json_t *rec = json_pack("{s:s, s:[s], s:s}", "program", program ? program : "gemmq:split:n64:s1",
	                        "arms", "candidate", "status", "pass");
	return json_pack("{s:s, s:i, s:i, s:I, s:s, s:s, s:{s:[o]}, s:{s:s}}", "op", "wgrad", "d_in",
	                 4096, "d_out", d_out, "t", (json_int_t)t, "in", "bf16", "out", "fp32",
	                 "accuracy", "programs", rec, "verdict", "status",
	                 program ? "qualified" : "slower");
}

static json_t *doc_of(json_t *points)
{
	return json_pack("{s:o}", "points", points);
}

/* The T and candidate of entry k. */
static long long entry_t(const json_t *entries, size_t k)
{
	return json_integer_value(
	    json_array_get(json_object_get(json_array_get(entries, k), "tokens"), 0));
}

static const char *entry_program(const json_t *entries, size_t k)
{
	return json_string_value(json_object_get(
	    json_object_get(json_array_get(entries, k), "candidate"), "wgrad"));
}

static void test_plain(void)
{
	/* d_out 32: qualified at 1 (kb 1) and 129 (kb 3), slower at 2049 (kb 33): one open edge,
	 * new T at kb 3 + ⌊30/2⌋ = 18; d_out 64: 577 (kb 10) and 641 (kb 11), exact; d_out 128:
	 * two programs meet */
	json_t *doc = doc_of(json_pack(
	    "[o, o, o, o, o, o, o]", point(32, 2049, NULL), point(32, 1, "P"), point(32, 129, "P"),
	    point(64, 577, "Q"), point(64, 641, NULL), point(128, 1025, "P"),
	    point(128, 2049, "Q")));
	int open, exact, mixed;
	/* a pending point (another shard's) between 129 and 2049 is no neighbour */
	json_array_append_new(json_object_get(doc, "points"), point(32, 1025, NULL));
	json_object_set_new(json_object_get(json_array_get(json_object_get(doc, "points"), 7),
	                                    "verdict"),
	                    "status", json_string("pending"));
	json_t *e = gq_refine_entries(doc, 0, &open, &exact, &mixed);
	CHECK(e && open == 1 && exact == 1 && mixed == 1);
	CHECK(json_array_size(e) == 1);
	if (json_array_size(e) == 1) {
		CHECK_MSG(entry_t(e, 0) == 64 * 17 + 1, "T %lld", entry_t(e, 0));
		CHECK(!strcmp(entry_program(e, 0), "P"));
		const json_t *sh = json_array_get(json_object_get(json_array_get(e, 0), "shapes"), 0);
		CHECK(json_integer_value(json_object_get(sh, "d_out")) == 32);
	}
	json_decref(e);
	json_decref(doc);
}

static void test_parity(void)
{
	/* kb 1, 3, 33 (odd) and 2, 34 (even): odd half qualified at kb 1 and 3, slower at 33 →
	 * new kb 3 + 2·⌊30/4⌋ = 17 (odd); even half qualified at kb 2, slower at 34 → kb 2 +
	 * 2·⌊32/4⌋ = 18 (even). Without parity the T's interleave and give other edges. */
	json_t *doc = doc_of(json_pack("[o, o, o, o, o]", point(32, 1, "P"), point(32, 129, "P"),
	                               point(32, 2049, NULL), point(32, 65, "P"),
	                               point(32, 2113, NULL)));
	int open, exact, mixed;
	json_t *e = gq_refine_entries(doc, 1, &open, &exact, &mixed);
	CHECK(e && open == 2 && exact == 0 && mixed == 0 && json_array_size(e) == 2);
	for (size_t k = 0; e && k < json_array_size(e); k++) {
		long long kb = (entry_t(e, k) + 63) / 64;
		CHECK_MSG(kb == 17 || kb == 18, "kb %lld", kb);
	}
	json_decref(e);
	e = gq_refine_entries(doc, 0, &open, &exact, &mixed);
	/* no parity: 1, 65, 129 qualified, 2049 slower (kb 3 → 33): one edge */
	CHECK(e && open == 1 && json_array_size(e) == 1 && entry_t(e, 0) == 64 * 17 + 1);
	json_decref(e);
	json_decref(doc);
}

/* Proj points of one d_in × d_out but other heads are other curves, and a new entry keeps the
 * heads and layout of its curve. */
static void test_heads(void)
{
	json_t *a = point(32, 1, "P"), *b = point(32, 2049, NULL), *c = point(32, 2049, NULL);
	json_t *pts[] = {a, b, c};
	const int heads[] = {16, 8, 16};
	for (int k = 0; k < 3; k++) {
		json_object_set_new(pts[k], "op", json_string("proj_fwd"));
		json_object_set_new(pts[k], "heads", json_integer(heads[k]));
		json_object_set_new(pts[k], "weight_layout", json_string("out_in"));
	}
	json_t *doc = doc_of(json_pack("[o, o, o]", a, b, c));
	int open, exact, mixed;
	json_t *e = gq_refine_entries(doc, 0, &open, &exact, &mixed);
	CHECK(e && open == 1 && json_array_size(e) == 1); /* heads 16 only: 8 has no neighbour */
	const json_t *sh = json_array_get(json_object_get(json_array_get(e, 0), "shapes"), 0);
	CHECK(json_integer_value(json_object_get(sh, "heads")) == 16 &&
	      !strcmp(json_string_value(json_object_get(sh, "weight_layout")), "out_in"));
	json_decref(e);
	json_decref(doc);
}

int main(void)
{
	test_heads();
	test_plain();
	test_parity();
	return gq_check_exit("test_refine");
}

/* test_results_read.c: the reference records of results files read back for resumption
 * (harness/verdict/results_read.c, gq_results_restore_accuracy): a gpu reference's audit and an
 * openblas point come back as written, a file without accuracy.reference (earlier versions) reads
 * as openblas without an audit, and the caption text names the references the points used. */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "accuracy.h"
#include "check.h"
#include "device.h"
#include "protocol.h"
#include "results.h"
#include "results_read.h"

static const char protocol_text[] =
    "{\"format_version\": 1, \"name\": \"restore\",\n"
    " \"points\": [{\"op\": \"wgrad\", \"shapes\": [{\"d_in\": 16, \"d_out\": 8}], "
    "\"tokens\": [65, 66], \"dtypes\": {\"out\": \"fp32\"}}],\n"
    " \"arms\": {\"incumbent\": {\"wgrad\": \"host:ref\"}},\n"
    " \"accuracy\": {\"seeds\": 2, \"reruns\": 1, \"sota_seeds\": 0}}";

/* Mark every point of run done, its program passing, and give point 0 a gpu reference audited on
 * seed 0 (element 37 of 16 x 8: row 2, col 5) and point 1 openblas. */
static void finish_run(gq_accuracy_run *run)
{
	for (int i = 0; i < run->point_count; i++) {
		gq_point_record *pr = &run->points[i];
		pr->done = 1;
		pr->programs[0].status = GQ_ACC_PASS;
		pr->programs[0].seed_count = 2;
	}
	gq_reference_record *r = &run->points[0].reference;
	r->kind = GQ_REFERENCE_GPU;
	r->audited = 1;
	r->audit_seed = 0;
	r->audit_seconds = 1.5;
	r->audit = (gq_audit){.count = 128,
	                      .max_rel_diff = 3.25e-15,
	                      .index = 37,
	                      .authority = 2.5,
	                      .audited = 2.5000000000000004,
	                      .absprod = 40.0};
}

int main(void)
{
	gq_protocol proto;
	gq_error err;
	gq_error_clear(&err);
	gq_device dev;
	if (gq_protocol_parse(protocol_text, sizeof(protocol_text) - 1, "restore.json", &proto,
	                      &err) != GQ_OK ||
	    gq_device_open("host", &dev, &err) != GQ_OK) {
		CHECK_MSG(0, "%s", err.message);
		return gq_check_exit("test_results_read");
	}
	gq_accuracy_run run, back;
	CHECK(gq_accuracy_init(&proto, NULL, 0, &run, &err) == GQ_OK);
	CHECK(run.reference.kind == GQ_REFERENCE_OPENBLAS && run.point_count == 2);
	finish_run(&run);
	char *argv[] = {"gemmq"};
	gq_run_meta meta = {.command = "accuracy", .argc = 1, .argv = argv};
	json_t *doc = gq_results_build(&meta, &proto, &dev, &run, 1);

	const json_t *audit = json_object_get(
	    json_object_get(
	        json_object_get(json_array_get(json_object_get(doc, "points"), 0), "accuracy"),
	        "reference"),
	    "audit");
	CHECK(json_integer_value(json_object_get(audit, "row")) == 2 &&
	      json_integer_value(json_object_get(audit, "col")) == 5);
	CHECK(json_is_true(json_object_get(audit, "pass")));
	CHECK(json_real_value(json_object_get(audit, "difference")) == 2.5000000000000004 - 2.5);

	int restored = 0;
	CHECK(gq_accuracy_init(&proto, NULL, 0, &back, &err) == GQ_OK);
	CHECK(gq_results_restore_accuracy(doc, &proto, &back, &restored, &err) == GQ_OK);
	CHECK(restored == 2);
	const gq_reference_record *r = &back.points[0].reference;
	CHECK(r->kind == GQ_REFERENCE_GPU && r->audited && r->audit_seed == 0);
	CHECK(r->audit.index == 37 && r->audit_seconds == 1.5);
	CHECK(fabs(r->audit.max_rel_diff / 3.25e-15 - 1) < 1e-8 && gq_audit_passes(&r->audit));
	CHECK(r->audit.authority == 2.5 && fabs(r->audit.audited - 2.5) < 1e-8);
	CHECK(back.points[1].reference.kind == GQ_REFERENCE_OPENBLAS &&
	      !back.points[1].reference.audited);

	char text[320];
	gq_results_reference_text(doc, text, sizeof(text));
	CHECK_MSG(!strcmp(text, "FP64 references by OpenBLAS (1 point) and cuBLAS on the GPU (1 "
	                        "point), audited against OpenBLAS on one seed per point (largest "
	                        "difference 3.2e-15·|A||B|, limit 1e-12)"),
	          "%s", text);

	/* A file of an earlier version has no accuracy.reference: openblas, no audit. */
	json_t *points = json_object_get(doc, "points");
	for (size_t i = 0; i < json_array_size(points); i++)
		json_object_del(json_object_get(json_array_get(points, i), "accuracy"),
		                "reference");
	gq_accuracy_free(&back);
	CHECK(gq_accuracy_init(&proto, NULL, 0, &back, &err) == GQ_OK);
	CHECK(gq_results_restore_accuracy(doc, &proto, &back, &restored, &err) == GQ_OK);
	CHECK(restored == 2 && back.points[0].reference.kind == GQ_REFERENCE_OPENBLAS &&
	      !back.points[0].reference.audited);
	gq_results_reference_text(doc, text, sizeof(text));
	CHECK_MSG(!strcmp(text, "an FP64 OpenBLAS reference"), "%s", text);

	json_decref(doc);
	gq_accuracy_free(&back);
	gq_accuracy_free(&run);
	gq_protocol_free(&proto);
	return gq_check_exit("test_results_read");
}

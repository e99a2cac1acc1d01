/* test_plan_diff.c: gq_plan_diff on hand-made plans, one curve per kind of change: a window kept
 * as it was, one whose edges moved, one that went to another program, one added where nothing
 * was routed, one removed, and a curve only the old plan has; curves differ by part and parity
 * too. The Markdown lists the changes and not the unchanged window. Documents that are not
 * plans are refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "plan_diff.h"

static json_t *route(const char *part, int d_out, int parity, long long t_min, long long t_max,
                     const char *program)
{
	return json_pack("{s:s, s:s, s:i, s:i, s:s, s:s, s:I, s:I, s:i, s:s}", "part", part, "op",
	                 "wgrad", "d_in", 4096, "d_out", d_out, "in", "bf16", "out", "fp32",
	                 "t_min", (json_int_t)t_min, "t_max", (json_int_t)t_max, "kblock_parity",
	                 parity, "program", program);
}

static json_t *plan(json_t *routes)
{
	return json_pack("{s:i, s:s, s:o}", "format_version", 2, "kind", "gemmq-plan", "routes",
	                 routes);
}

/* The entry for the curve (part, d_out, parity) whose new window starts at t_min (or, for
 * t_min < 0, whose change is "removed"). */
static const json_t *find(const json_t *diff, const char *part, int d_out, int parity,
                          long long t_min)
{
	size_t i;
	const json_t *e;
	json_array_foreach(json_object_get(diff, "changes"), i, e)
	{
		const json_t *nw = json_object_get(e, "new");
		if (strcmp(json_string_value(json_object_get(e, "part")), part) != 0 ||
		    json_integer_value(json_object_get(e, "d_out")) != d_out ||
		    json_integer_value(json_object_get(e, "kblock_parity")) != parity)
			continue;
		if (t_min < 0 ? json_is_null(nw)
		              : json_integer_value(json_object_get(nw, "t_min")) == t_min)
			return e;
	}
	return NULL;
}

static int is_change(const json_t *e, const char *change, size_t olds)
{
	return e && !strcmp(json_string_value(json_object_get(e, "change")), change) &&
	       json_array_size(json_object_get(e, "old")) == olds;
}

int main(void)
{
	json_t *old_routes = json_array(), *new_routes = json_array();
	/* d_out 32: kept */
	json_array_append_new(old_routes, route("h100", 32, -1, 1025, 16384, "split:a"));
	json_array_append_new(new_routes, route("h100", 32, -1, 1025, 16384, "split:a"));
	/* d_out 64: the same program, the upper edge moved down */
	json_array_append_new(old_routes, route("h100", 64, -1, 1025, 65537, "split:a"));
	json_array_append_new(new_routes, route("h100", 64, -1, 1025, 16384, "split:a"));
	/* d_out 128, odd parity: the window's T went from one program to another, and a second
	 * window was added above it */
	json_array_append_new(old_routes, route("h100", 128, 1, 1025, 4097, "split:a"));
	json_array_append_new(new_routes, route("h100", 128, 1, 1025, 4097, "split:b"));
	json_array_append_new(new_routes, route("h100", 128, 1, 16173, 65537, "split:b"));
	/* d_out 128, even parity (another curve): removed */
	json_array_append_new(old_routes, route("h100", 128, 0, 1088, 4096, "split:a"));
	/* the same shape on another part: only the old plan has it */
	json_array_append_new(old_routes, route("h200", 32, -1, 1025, 16384, "split:c"));
	json_t *old_plan = plan(old_routes), *new_plan = plan(new_routes), *diff = NULL;
	gq_error err;
	gq_error_clear(&err);
	CHECK_MSG(gq_plan_diff(old_plan, new_plan, &diff, &err) == GQ_OK, "%s", err.message);
	const json_t *sum = json_object_get(diff, "summary");
	CHECK_MSG(json_integer_value(json_object_get(sum, "unchanged")) == 1 &&
	              json_integer_value(json_object_get(sum, "moved")) == 1 &&
	              json_integer_value(json_object_get(sum, "changed")) == 1 &&
	              json_integer_value(json_object_get(sum, "added")) == 1 &&
	              json_integer_value(json_object_get(sum, "removed")) == 2,
	          "summary %s", json_dumps(sum, JSON_COMPACT));
	CHECK(json_array_size(json_object_get(diff, "changes")) == 6);
	CHECK(is_change(find(diff, "h100", 32, -1, 1025), "unchanged", 1));
	const json_t *moved = find(diff, "h100", 64, -1, 1025);
	CHECK(is_change(moved, "moved", 1) &&
	      json_integer_value(json_object_get(json_array_get(json_object_get(moved, "old"), 0),
	                                         "t_max")) == 65537);
	const json_t *changed = find(diff, "h100", 128, 1, 1025);
	CHECK(is_change(changed, "changed", 1) &&
	      !strcmp(json_string_value(json_object_get(
	                  json_array_get(json_object_get(changed, "old"), 0), "program")),
	              "split:a"));
	CHECK(is_change(find(diff, "h100", 128, 1, 16173), "added", 0));
	CHECK(is_change(find(diff, "h100", 128, 0, -1), "removed", 1));
	CHECK(is_change(find(diff, "h200", 32, -1, -1), "removed", 1));

	char *md = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&md, &size);
	gq_plan_diff_markdown(diff, f);
	fclose(f);
	CHECK_MSG(strstr(md, "Route changes: 1 moved, 1 changed program, 1 added, 2 removed; 1 "
	                     "unchanged.\n") &&
	              strstr(md,
	                     "| moved | h100 | wgrad | 4096x64 | bf16-fp32 | any | [1025, 65537] "
	                     "split:a | [1025, 16384] split:a |\n") &&
	              strstr(md, "| removed | h100 | wgrad | 4096x128 | bf16-fp32 | even | [1088, "
	                         "4096] split:a | – |\n") &&
	              !strstr(md, "| unchanged |"),
	          "%s", md);
	free(md);
	json_decref(diff);

	/* not plans */
	json_t *results = json_pack("{s:s}", "kind", "gemmq-results");
	gq_error_clear(&err);
	CHECK(gq_plan_diff(results, new_plan, &diff, &err) == GQ_ERR_INPUT && !diff &&
	      strstr(err.where, "old plan"));
	gq_error_clear(&err);
	CHECK(gq_plan_diff(old_plan, results, &diff, &err) == GQ_ERR_INPUT &&
	      strstr(err.where, "new plan"));
	json_decref(results);
	json_decref(old_plan);
	json_decref(new_plan);
	return gq_check_exit("test_plan_diff");
}

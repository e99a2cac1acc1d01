/* cmd_refine.c: `gemmq refine`: exact window edges for a qualified results file.
 *
 * Round after round (at most decision.refine_points_per_edge), the points that halve every open
 * window edge (report/refine.h) are written as a protocol of their own, FILE without .json plus
 * .refine/round<r>.json (the base protocol with those points: same arms, accuracy, timing and
 * decision), qualified in this process (gemmq qualify, into .refine/round<r>-results.json), and
 * joined with what came before (gq_report_join) into FILE, written after every round. Every
 * step is a pure function of the files before it, so a second run regenerates the same round
 * protocols, and each round's qualify resumes its own results file: nothing is measured twice.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmdline.h"
#include "commands.h"
#include "protocol.h"
#include "refine.h"
#include "report.h"
#include "results_read.h"
#include "results.h"

static const char usage_refine[] =
    "usage: gemmq refine RESULTS [--device N|host] [-o FILE] [-q]\n"
    "       gemmq refine --check RESULTS\n"
    "\n"
    "Find where each planner window really ends. An edge is a pair of neighbouring token\n"
    "counts on a curve (op, shape, dtypes; split by k-block parity when the protocol's\n"
    "decision.k_block_parity is set) where the candidate is qualified at one and not at the\n"
    "other. While their numbers of 64-token K blocks differ by more than one (two within a\n"
    "parity half), gemmq qualifies the T at the middle K block, with the same protocol\n"
    "settings and the qualified side's program, and looks again: each round halves every open\n"
    "edge, for at most decision.refine_points_per_edge rounds (default 10). The new points are\n"
    "joined to the results into FILE (the A/A band and every verdict made again over the\n"
    "whole), so that gemmq plan FILE ends windows at exact edges. Run it again to resume.\n"
    "\n"
    "  --device N|host   where to measure (default: 0); the part of RESULTS\n"
    "  -o, --output FILE the joined results (default: RESULTS without .json, plus -refined.json);\n"
    "                    the rounds' protocols and results go to FILE without .json, plus\n"
    "                    .refine/\n"
    "  -q, --quiet       no progress on stderr\n"
    "  --check           measure nothing: list the edges of RESULTS that are not exact (each\n"
    "                    with its curve, program and the T that would halve it); exit 1 if any\n"
    "\n"
    "exit status: 0 every edge exact or the round limit reached (--check: every edge exact), 1\n"
    "some new point is error or inaccurate (--check: an edge is open), 2 bad usage or input, 3\n"
    "internal or device error\n";

/* FILE without .json, plus suffix, into buf. */
static void sibling(const char *file, const char *suffix, char *buf, size_t size)
{
	size_t n = strlen(file);
	if (n > 5 && !strcmp(file + n - 5, ".json"))
		n -= 5;
	snprintf(buf, size, "%.*s%s", (int)n, file, suffix);
}

/* Round r's protocol: the base's content with entries as its points. */
static gq_status write_round(const json_t *base, const json_t *entries, int r, const char *path,
                             gq_error *err)
{
	json_t *c = json_deep_copy(json_object_get(
	    json_object_get(json_object_get(base, "meta"), "protocol"), "content"));
	if (!c)
		return gq_error_set(err, GQ_ERR_INPUT, path, "the results hold no protocol");
	char name[200];
	snprintf(name, sizeof(name), "%s-refine%d", gq_json_str(c, "name"), r);
	json_object_set_new(c, "name", json_string(name));
	json_object_set(c, "points", (json_t *)entries);
	int rc = json_dump_file(c, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(c);
	return rc == 0 ? GQ_OK
	               : gq_error_set(err, GQ_ERR_INPUT, path, "cannot write the round's protocol");
}

/* Read a qualified results file and its protocol (*doc NULL and no protocol on failure). */
static gq_status load_input(const char *input, json_t **doc, gq_protocol *proto, gq_error *err)
{
	gq_status s = gq_results_load(input, doc, err);
	if (s == GQ_OK && !json_object_get(*doc, "qualification"))
		s = gq_error_set(err, GQ_ERR_INPUT, input,
		                 "has no verdicts: refine takes the results of gemmq qualify");
	if (s == GQ_OK)
		s = gq_results_protocol(*doc, input, proto, err);
	if (s != GQ_OK) {
		json_decref(*doc);
		*doc = NULL;
	}
	return s;
}

/* --check: the open edges of a results file, one line each. */
static int check_edges(const char *input)
{
	gq_error err;
	gq_error_clear(&err);
	json_t *doc = NULL;
	gq_protocol proto;
	if (load_input(input, &doc, &proto, &err) != GQ_OK)
		return gq_cmdline_error("refine", &err);
	int open = 0, exact = 0, mixed = 0;
	json_t *e = gq_refine_entries(doc, proto.decision.k_block_parity, &open, &exact, &mixed);
	size_t i;
	const json_t *x;
	json_array_foreach(e, i, x)
	{
		const json_t *sh = json_array_get(json_object_get(x, "shapes"), 0);
		printf("open: %s %lldx%lld %s->%s: %s, halved at T=%lld\n", gq_json_str(x, "op"),
		       gq_json_int(sh, "d_in"), gq_json_int(sh, "d_out"),
		       gq_json_str(json_object_get(x, "dtypes"), "in"),
		       gq_json_str(json_object_get(x, "dtypes"), "out"),
		       gq_json_str(json_object_get(x, "candidate"), gq_json_str(x, "op")),
		       (long long)json_integer_value(json_array_get(json_object_get(x, "tokens"), 0)));
	}
	printf("gemmq refine --check: %s: %d edges exact, %d open, %d between two programs\n",
	       input, exact, open, mixed);
	json_decref(e);
	json_decref(doc);
	gq_protocol_free(&proto);
	return open ? GQ_EXIT_FAILURE : GQ_EXIT_OK;
}

int gq_cmd_refine(int argc, char **argv, int full_argc, char **full_argv)
{
	static const struct option opts[] = {{"device", required_argument, NULL, 'd'},
	                                     {"output", required_argument, NULL, 'o'},
	                                     {"quiet", no_argument, NULL, 'q'},
	                                     {"check", no_argument, NULL, 'c'},
	                                     {"help", no_argument, NULL, 'h'},
	                                     {NULL, 0, NULL, 0}};
	const char *spec = "0", *output = NULL;
	int quiet = 0, check = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:o:qh", opts, NULL)) != -1) {
		if (c == 'd')
			spec = optarg;
		else if (c == 'o')
			output = optarg;
		else if (c == 'q')
			quiet = 1;
		else if (c == 'c')
			check = 1;
		else if (c == 'h') {
			fputs(usage_refine, stdout);
			return GQ_EXIT_OK;
		} else
			return gq_cmdline_usage_error("refine", usage_refine, "%s", "unknown option");
	}
	if (argc - optind != 1)
		return gq_cmdline_usage_error("refine", usage_refine, "%s",
		                              "give one results file of gemmq qualify");
	const char *input = argv[optind];
	if (check)
		return check_edges(input);
	char out[4096], dir[4200];
	if (output)
		snprintf(out, sizeof(out), "%s", output);
	else
		sibling(input, "-refined.json", out, sizeof(out));
	sibling(out, ".refine", dir, sizeof(dir));
	gq_error err;
	gq_error_clear(&err);
	json_t *base = NULL;
	gq_protocol proto;
	gq_status s = load_input(input, &base, &proto, &err);
	const int have_proto = s == GQ_OK;
	if (s == GQ_OK && (gq_cmdline_make_parent_dir(out) != 0 || gq_cmdline_make_dir(dir) != 0))
		s = gq_error_set(&err, GQ_ERR_INPUT, dir, "cannot create the refinement folder");
	const int rounds = have_proto ? proto.decision.refine_points_per_edge : 0;
	const int parity = have_proto && proto.decision.k_block_parity;
	json_t *cur = base ? json_incref(base) : NULL;
	int failures = 0, open = 0, exact = 0, mixed = 0;
	for (int r = 1; s == GQ_OK; r++) {
		json_t *entries = gq_refine_entries(cur, parity, &open, &exact, &mixed);
		if (!entries) {
			s = gq_error_set(&err, GQ_ERR_INTERNAL, GQ_HERE, "out of memory");
			break;
		}
		if (!quiet)
			fprintf(stderr,
			        "gemmq refine: %d window edges exact to one K block, %d open, %d "
			        "between two programs (left)%s\n",
			        exact, open, mixed,
			        open && r > rounds ? "; the round limit is reached" : "");
		if (json_array_size(entries) == 0 || r > rounds) {
			json_decref(entries);
			break;
		}
		char rp[4400], rr[4400];
		snprintf(rp, sizeof(rp), "%s/round%d.json", dir, r);
		snprintf(rr, sizeof(rr), "%s/round%d-results.json", dir, r);
		s = write_round(base, entries, r, rp, &err);
		json_decref(entries);
		if (s != GQ_OK)
			break;
		if (!quiet)
			fprintf(stderr, "gemmq refine: round %d: qualifying %d points (%s)\n", r, open,
			        rp);
		char *qargv[] = {"qualify", rp, "--device", (char *)spec, "-o", rr, "-q", NULL};
		char *qfull[] = {"gemmq", "qualify", rp, "--device", (char *)spec, "-o", rr, "-q",
		                 NULL};
		int rc = gq_cmd_qualify(7, qargv, 8, qfull);
		if (rc != GQ_EXIT_OK && rc != GQ_EXIT_FAILURE) {
			s = gq_error_set(&err, rc == GQ_EXIT_USAGE ? GQ_ERR_INPUT : GQ_ERR_INTERNAL, rr,
			                 "round %d's gemmq qualify failed (exit status %d)", r, rc);
			break;
		}
		failures |= rc == GQ_EXIT_FAILURE;
		json_t *extra = NULL, *joined = NULL;
		s = gq_results_load(rr, &extra, &err);
		if (s == GQ_OK)
			s = gq_report_join(cur, r == 1 ? input : out, extra, rr, full_argc, full_argv,
			                   &joined, &err);
		json_decref(extra);
		if (s == GQ_OK)
			s = gq_results_write(joined, out, &err);
		json_decref(cur);
		cur = joined;
	}
	if (s == GQ_OK && cur == base) /* no round: the file as it was, verdicts and all */
		s = gq_results_write(base, out, &err);
	if (s == GQ_OK && !quiet)
		printf("gemmq refine: %s: %d edges exact, %d open, %d between two programs; "
		       "results: %s\n",
		       input, exact, open, mixed, out);
	json_decref(cur);
	json_decref(base);
	if (have_proto)
		gq_protocol_free(&proto);
	if (s != GQ_OK)
		return gq_cmdline_error("refine", &err);
	return failures ? GQ_EXIT_FAILURE : GQ_EXIT_OK;
}

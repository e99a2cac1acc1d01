/* cells.c: see cells.h. */
#include "cells.h"

#include "results_read.h"

#include <math.h>

void gq_cells_num(char *buf, size_t size, double v, const char *fmt, const char *missing)
{
	if (isfinite(v))
		snprintf(buf, size, fmt, v);
	else
		snprintf(buf, size, "%s", missing);
}

void gq_cells_row(FILE *out, int tsv, int n, const char *const *cells)
{
	for (int k = 0; k < n; k++) {
		if (tsv)
			fprintf(out, "%s%s", k ? "\t" : "", cells[k]);
		else
			fprintf(out, "| %s ", cells[k]);
	}
	fputs(tsv ? "\n" : "|\n", out);
}

void gq_cells_header(FILE *out, int tsv, int n, const char *const *cells)
{
	gq_cells_row(out, tsv, n, cells);
	if (tsv)
		return;
	for (int k = 0; k < n; k++)
		fputs("|---", out);
	fputs("|\n", out);
}

void gq_cells_minmax(double v, double *lo, double *hi)
{
	if (!isfinite(v))
		return;
	if (!(v >= *lo))
		*lo = v;
	if (!(v <= *hi))
		*hi = v;
}

const char *gq_cells_sota_label(json_t *const *docs, int n)
{
	for (int f = 0; f < n; f++)
		if (gq_json_int(json_object_get(json_object_get(docs[f], "qualification"), "sota"),
		                "checked_points") > 0)
			return "SOTA (accurate)";
	return "sota";
}

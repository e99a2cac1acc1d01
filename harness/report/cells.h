/* cells.h: the cells of the report commands' tables: a number, or what stands for a missing one;
 * a row of cells as Markdown or TSV, and a header row; a running minimum and maximum. */
#ifndef GQ_CELLS_H
#define GQ_CELLS_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#ifdef __cplusplus
extern "C" {
#endif

/* v printed with fmt into buf, or missing when v is not finite. */
void gq_cells_num(char *buf, size_t size, double v, const char *fmt, const char *missing);

/* One row: "| a | b |" (Markdown) or "a\tb" (TSV), then a newline. */
void gq_cells_row(FILE *out, int tsv, int n, const char *const *cells);

/* A header row, followed in Markdown by its "|---|---|" line. */
void gq_cells_header(FILE *out, int tsv, int n, const char *const *cells);

/* Widen [*lo, *hi] to hold v when v is finite (start both at NAN). */
void gq_cells_minmax(double v, double *lo, double *hi);

/* The sota arm's name in tables and plots: "SOTA (accurate)" when the accuracy phase of some of
 * docs[0..n) checked the sota programs (qualification.sota.checked_points > 0), else "sota" (the
 * fastest library program of any accuracy). */
const char *gq_cells_sota_label(json_t *const *docs, int n);

#ifdef __cplusplus
}
#endif
#endif

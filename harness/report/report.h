/* report.h: the commands that read results files and make what people read from them: plan
 * (planner windows as JSON or a C table), table (the PR tables), plot (gnuplot), compare (the
 * nightly regression check) and merge (shards of one protocol joined).
 *
 * Each takes its own argv (argv[0] is the command's name) and returns the exit status: 0 ok,
 * 1 the run found a failure or a regression, 2 bad usage or input, 3 internal error.
 * full_argc/full_argv are the whole command line, for the merged results' meta.
 */
#ifndef GQ_REPORT_H
#define GQ_REPORT_H

#ifdef __cplusplus
extern "C" {
#endif

int gq_cmd_plan(int argc, char **argv);
int gq_cmd_table(int argc, char **argv);
int gq_cmd_plot(int argc, char **argv);
int gq_cmd_compare(int argc, char **argv);
int gq_cmd_merge(int argc, char **argv, int full_argc, char **full_argv);

#ifdef __cplusplus
}
#endif
#endif

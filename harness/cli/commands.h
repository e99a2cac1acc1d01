/* commands.h: the commands that run programs: qualify (accuracy, timing and verdicts in one
 * results file) and bench, the benchmark of programs against cuBLASLt and the HBM floor. The
 * commands that read results files are in report/report.h; time is in cmd_time.h.
 *
 * Each takes its own argv (argv[0] is the command's name) and returns the exit status: 0 ok,
 * 1 the run found a failure or a regression, 2 bad usage or input, 3 internal or device error.
 * full_argc/full_argv are the whole command line, for the results' meta.
 */
#ifndef GQ_COMMANDS_H
#define GQ_COMMANDS_H

#ifdef __cplusplus
extern "C" {
#endif

int gq_cmd_qualify(int argc, char **argv, int full_argc, char **full_argv);
int gq_cmd_bench(int argc, char **argv, int full_argc, char **full_argv);
int gq_cmd_refine(int argc, char **argv, int full_argc, char **full_argv);

#ifdef __cplusplus
}
#endif
#endif

/* Runs one command and reports what that command used, and nothing else: CPU time (user + system, in
 * microseconds, from wait4) and peak RSS (KB), then its exit status, into a file.
 *
 * The problem it solves: bench/run.py must time processes that last about a millisecond. Timing them
 * through GNU time adds time's own start-up (about 2 ms) to every figure, and its %U/%S have only 10 ms
 * resolution; a child forked straight from Python inherits Python's RSS high-water mark. This launcher
 * is tiny, so the mark its child inherits is small, and it reports the child's own rusage exactly.
 *
 * Usage: measure OUTFILE COMMAND [ARGS...]   (OUTFILE gets "cpu_us maxrss_kb status") */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s OUTFILE COMMAND [ARGS...]\n", argv[0]);
    return 2;
  }
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    return 2;
  }
  if (pid == 0) {
    execvp(argv[2], argv + 2);
    perror(argv[2]);
    _exit(127);
  }
  int status = 0;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) < 0) {
    perror("wait4");
    return 2;
  }
  long long cpu = (long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec +
                  (long long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec;
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  FILE *f = fopen(argv[1], "w");
  if (!f) {
    perror(argv[1]);
    return 2;
  }
  fprintf(f, "%lld %ld %d\n", cpu, ru.ru_maxrss, code);
  fclose(f);
  return code;
}

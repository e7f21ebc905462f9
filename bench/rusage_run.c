/* rusage_run OUT CMD ARGS...: runs CMD, forwards SIGTERM and SIGINT to it, and when it ends
 * writes "user_s sys_s maxrss_kb exit_status" of CMD to OUT; exits with CMD's status.
 *
 * Why a C program between bench/runtime_bench.py and the engine: Linux keeps a process's
 * peak RSS (ru_maxrss) across exec, so a child forked from the Python harness starts with the
 * harness's resident size as its peak, and an engine smaller than the harness would report the
 * harness's size. Forked from this small program, the engine's figure is its own. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile pid_t child = 0;

static void forward(int sig) {
  if (child > 0) kill(child, sig);
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: rusage_run OUT CMD [ARGS...]\n");
    return 2;
  }
  struct sigaction sa = {0};
  sa.sa_handler = forward;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  child = fork();
  if (child < 0) return 111;
  if (child == 0) {
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    execvp(argv[2], argv + 2);
    perror("rusage_run: exec");
    _exit(127);
  }
  int status = 0;
  struct rusage ru;
  while (wait4(child, &status, 0, &ru) < 0) {
    if (errno != EINTR) return 111;
  }
  FILE* out = fopen(argv[1], "w");
  if (!out) return 111;
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  fprintf(out, "%.6f %.6f %ld %d\n", ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
          ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss, code);
  fclose(out);
  return code;
}

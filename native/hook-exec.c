/*
 * hook-exec: runs one hook process and reports what Linux accounts for it, as Go's os/exec gives
 * shell-operator through wait4: user and system CPU seconds and the maximum resident set size of
 * the process and of the children it waited for.
 *
 *   hook-exec FILE [ARG...]
 *
 * FILE runs with this process's environment, directory and stdio, except fd 3: there hook-exec
 * writes one line when the hook has ended, "usage MAXRSS_KIB USER_SECONDS SYS_SECONDS", or, when
 * FILE could not be started, "exec ERRNO" (and exits 127). Its own exit status is the hook's; a hook
 * killed by a signal is reported by hook-exec ending with the same signal. The spawner's helper
 * (src/hooks/spawner.ts) uses it when it was built (scripts/build-native.mjs) and starts hooks
 * directly otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: hook-exec FILE [ARG...]\n");
    return 2;
  }
  /* an exec error travels through a close-on-exec pipe: nothing arrives when exec succeeds */
  int errpipe[2];
  if (pipe(errpipe) != 0) return 126;
  pid_t pid = fork();
  if (pid < 0) return 126;
  if (pid == 0) {
    close(errpipe[0]);
    close(3);
    fcntl(errpipe[1], F_SETFD, FD_CLOEXEC);
    execv(argv[1], argv + 1);
    int e = errno;
    ssize_t w = write(errpipe[1], &e, sizeof e);
    (void)w;
    _exit(127);
  }
  close(errpipe[1]);
  /* a signal sent to the group reaches the hook itself; this process waits to report it */
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  int execErr = 0;
  ssize_t n;
  do n = read(errpipe[0], &execErr, sizeof execErr);
  while (n < 0 && errno == EINTR);
  close(errpipe[0]);
  int status = 0;
  struct rusage ru;
  pid_t r;
  do r = wait4(pid, &status, 0, &ru);
  while (r < 0 && errno == EINTR);
  if (n == (ssize_t)sizeof execErr) {
    dprintf(3, "exec %d\n", execErr);
    return 127;
  }
  if (r == pid) {
    dprintf(3, "usage %ld %ld.%06ld %ld.%06ld\n", ru.ru_maxrss, (long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec,
            (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec);
  }
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    signal(sig, SIG_DFL);
    kill(getpid(), sig);
    return 128 + sig;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

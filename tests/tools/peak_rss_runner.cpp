// embpriv_peak_rss PROGRAM [ARGS...]: runs PROGRAM in a child of its own, its output discarded,
// and prints the child's peak resident memory in bytes (ru_maxrss from wait4, which Linux gives
// in KiB); it exits with the child's exit code (128 + the signal if a signal ended it).
//
// Why a process between the test and the run: Linux carries a process's resident-memory
// high-water mark through fork and exec (fork copies the parent's resident pages into the child's
// counts; exec keeps the old address space's high-water mark in the process's maxrss). A run
// forked straight from a test process that holds a few GB reports at least those GB. Forked
// from this small program, the run's ru_maxrss is its own peak.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: embpriv_peak_rss PROGRAM [ARGS...]\n");
    return 2;
  }
  const pid_t child = fork();
  if (child < 0) {
    std::perror("embpriv_peak_rss: fork");
    return 1;
  }
  if (child == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execv(argv[1], argv + 1);
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  if (wait4(child, &status, 0, &usage) != child) {
    std::perror("embpriv_peak_rss: wait4");
    return 1;
  }
  std::printf("%lld\n", static_cast<long long>(usage.ru_maxrss) * 1024LL);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

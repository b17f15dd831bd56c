/*===- faults.c - make one file-system call of a run fail ------------------===
 *
 * An LD_PRELOAD library for testing what kfuse leaves behind when writing
 * goes wrong. It counts the calls a run makes that change files (opening a
 * file to write, write to a file, fsync, rename, link, unlink, mkdir,
 * rmdir, chmod), and with
 *
 *   KFUSE_FAULT=CALL:N:WHAT
 *
 * the Nth such call (CALL one of the names above, or "any" for every kind)
 * fails with errno WHAT (EIO, ENOSPC, EACCES, EPERM, EXDEV, EROFS, EDQUOT,
 * EMLINK) without running, or the process gets signal WHAT (SIGINT,
 * SIGTERM, SIGHUP, SIGKILL) just before it. With KFUSE_FAULT_LOG=FILE each
 * counted call appends "CALL PATH" to FILE, so a harness learns how many
 * calls there are to aim at. Writes to standard output and error are not
 * counted. WHAT may also be SLEEP: the call waits a second first (to hold a
 * run inside its commit while another starts).
 *
 * With KFUSE_FAULT_EDIT=PATH:N, the Nth time the run closes PATH after
 * opening it to read, a line is appended to PATH: an editor saving the
 * file after kfuse read it and before kfuse is done. With KFUSE_FAULT_LOG,
 * each such close is logged as "read PATH".
 *
 * Written for kfuse's tests; POSIX and glibc only.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const Calls[] = {"open", "write", "fsync", "rename", "link",
                                    "unlink", "mkdir", "rmdir", "chmod"};
enum { NumCalls = sizeof(Calls) / sizeof(Calls[0]) };

static int Configured;
static int TargetCall = -2; /* -1: any kind; -2: none */
static long TargetIndex;
static int TargetErrno, TargetSignal, TargetSleep;
static char EditPath[4096];
static long EditAt, EditCloses;
static int EditFD = -1, Edited;
static long Counts[NumCalls + 1];
static const char *LogPath;

static int callIndex(const char *Name) {
  for (int I = 0; I < NumCalls; ++I)
    if (strcmp(Calls[I], Name) == 0)
      return I;
  return strcmp(Name, "any") == 0 ? -1 : -2;
}

static int errnoNamed(const char *Name) {
  static const struct { const char *Name; int Value; } Table[] = {
      {"EIO", EIO},   {"ENOSPC", ENOSPC}, {"EACCES", EACCES}, {"EPERM", EPERM},
      {"EXDEV", EXDEV}, {"EROFS", EROFS}, {"EDQUOT", EDQUOT}, {"EMLINK", EMLINK}};
  for (unsigned I = 0; I < sizeof(Table) / sizeof(Table[0]); ++I)
    if (strcmp(Table[I].Name, Name) == 0)
      return Table[I].Value;
  return 0;
}

static int signalNamed(const char *Name) {
  if (strcmp(Name, "SIGINT") == 0)
    return SIGINT;
  if (strcmp(Name, "SIGTERM") == 0)
    return SIGTERM;
  if (strcmp(Name, "SIGHUP") == 0)
    return SIGHUP;
  if (strcmp(Name, "SIGKILL") == 0)
    return SIGKILL;
  return 0;
}

static void configure(void) {
  if (Configured)
    return;
  Configured = 1;
  LogPath = getenv("KFUSE_FAULT_LOG");
  const char *Edit = getenv("KFUSE_FAULT_EDIT");
  if (Edit) {
    const char *Colon = strrchr(Edit, ':');
    size_t Length = Colon ? (size_t)(Colon - Edit) : strlen(Edit);
    if (Length < sizeof EditPath) {
      memcpy(EditPath, Edit, Length);
      EditAt = Colon ? atol(Colon + 1) : 1;
    }
  }
  const char *Spec = getenv("KFUSE_FAULT");
  if (!Spec)
    return;
  char Call[16], What[16];
  long Index;
  if (sscanf(Spec, "%15[a-z]:%ld:%15[A-Z0-9]", Call, &Index, What) != 3)
    return;
  TargetCall = callIndex(Call);
  TargetIndex = Index;
  TargetErrno = errnoNamed(What);
  TargetSignal = signalNamed(What);
  TargetSleep = strcmp(What, "SLEEP") == 0;
}

/* Counts a call of kind K on PATH; nonzero when it is the one to fail. */
static int strike(int K, const char *Path) {
  configure();
  long Own = ++Counts[K];
  long Any = ++Counts[NumCalls];
  if (LogPath) {
    int Saved = errno;
    static int (*RealOpen)(const char *, int, ...);
    if (!RealOpen)
      RealOpen = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
    int FD = RealOpen(LogPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (FD >= 0) {
      char Line[4200];
      int N = snprintf(Line, sizeof Line, "%s %s\n", Calls[K], Path ? Path : "-");
      static ssize_t (*RealWrite)(int, const void *, size_t);
      if (!RealWrite)
        RealWrite = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
      if (N > 0)
        RealWrite(FD, Line, (size_t)(N < (int)sizeof Line ? N : (int)sizeof Line - 1));
      close(FD);
    }
    errno = Saved;
  }
  int Hit = (TargetCall == K && Own == TargetIndex) || (TargetCall == -1 && Any == TargetIndex);
  if (!Hit)
    return 0;
  if (TargetSleep) {
    sleep(1);
    return 0;
  }
  if (TargetSignal) {
    raise(TargetSignal);
    return 0; /* A handled signal: the call goes on. */
  }
  errno = TargetErrno ? TargetErrno : EIO;
  return 1;
}

/* The next definition of Name (libc's), looked up once. */
#define REAL(Name)                                                               \
  static __typeof__(Name) *Real##Name;                                         \
  if (!Real##Name)                                                             \
  Real##Name = (__typeof__(Name) *)dlsym(RTLD_NEXT, #Name)

static int writes(int Flags) { return (Flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) != 0; }

/* Notes a descriptor opened to read the file KFUSE_FAULT_EDIT names. */
static int opened(const char *Path, int Flags, int FD) {
  configure();
  if (FD >= 0 && EditPath[0] && !Edited && !writes(Flags) && strcmp(Path, EditPath) == 0)
    EditFD = FD;
  return FD;
}

int close(int FD) {
  REAL(close);
  int Result = Realclose(FD);
  if (FD == EditFD && !Edited) {
    EditFD = -1;
    if (LogPath) {
      REAL(open);
      REAL(write);
      int Log = Realopen(LogPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      if (Log >= 0) {
        char Line[4200];
        int N = snprintf(Line, sizeof Line, "read %s\n", EditPath);
        if (N > 0 && N < (int)sizeof Line)
          Realwrite(Log, Line, (size_t)N);
        Realclose(Log);
      }
    }
    if (++EditCloses != EditAt)
      return Result;
    Edited = 1;
    REAL(open);
    REAL(write);
    int Out = Realopen(EditPath, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (Out >= 0) {
      static const char Line[] = "// saved while kfuse ran\n";
      Realwrite(Out, Line, sizeof Line - 1);
      Realclose(Out);
    }
  }
  return Result;
}

/* The mode an open that may create passes after its flags. */
#define MODE_AFTER(Flags, Mode)                                                \
  do {                                                                         \
    if ((Flags) & (O_CREAT | O_TMPFILE)) {                                     \
      va_list Args;                                                            \
      va_start(Args, Flags);                                                   \
      Mode = va_arg(Args, mode_t);                                             \
      va_end(Args);                                                            \
    }                                                                          \
  } while (0)

/* Each open: a write-open may fail; a read-open of the edited file is noted. */
#define OPEN_BODY(Name, ...)                                                   \
  REAL(Name);                                                                  \
  mode_t Mode = 0;                                                             \
  MODE_AFTER(Flags, Mode);                                                     \
  if (writes(Flags) && strike(0, Path))                                        \
    return -1;                                                                 \
  return opened(Path, Flags, Real##Name(__VA_ARGS__))

int open(const char *Path, int Flags, ...) { OPEN_BODY(open, Path, Flags, Mode); }

int open64(const char *Path, int Flags, ...) { OPEN_BODY(open64, Path, Flags, Mode); }

int openat(int Dir, const char *Path, int Flags, ...) {
  OPEN_BODY(openat, Dir, Path, Flags, Mode);
}

ssize_t write(int FD, const void *Data, size_t Size) {
  REAL(write);
  if (FD > 2 && strike(1, NULL))
    return -1;
  return Realwrite(FD, Data, Size);
}

int fsync(int FD) {
  REAL(fsync);
  if (strike(2, NULL))
    return -1;
  return Realfsync(FD);
}

int rename(const char *From, const char *To) {
  REAL(rename);
  if (strike(3, To))
    return -1;
  return Realrename(From, To);
}

int renameat(int FromDir, const char *From, int ToDir, const char *To) {
  REAL(renameat);
  if (strike(3, To))
    return -1;
  return Realrenameat(FromDir, From, ToDir, To);
}

int link(const char *From, const char *To) {
  REAL(link);
  if (strike(4, To))
    return -1;
  return Reallink(From, To);
}

int linkat(int FromDir, const char *From, int ToDir, const char *To, int Flags) {
  REAL(linkat);
  if (strike(4, To))
    return -1;
  return Reallinkat(FromDir, From, ToDir, To, Flags);
}

int unlink(const char *Path) {
  REAL(unlink);
  if (strike(5, Path))
    return -1;
  return Realunlink(Path);
}

int unlinkat(int Dir, const char *Path, int Flags) {
  REAL(unlinkat);
  if (strike(5, Path))
    return -1;
  return Realunlinkat(Dir, Path, Flags);
}

int mkdir(const char *Path, mode_t Mode) {
  REAL(mkdir);
  if (strike(6, Path))
    return -1;
  return Realmkdir(Path, Mode);
}

int rmdir(const char *Path) {
  REAL(rmdir);
  if (strike(7, Path))
    return -1;
  return Realrmdir(Path);
}

int chmod(const char *Path, mode_t Mode) {
  REAL(chmod);
  if (strike(8, Path))
    return -1;
  return Realchmod(Path, Mode);
}

int fchmod(int FD, mode_t Mode) {
  REAL(fchmod);
  if (strike(8, NULL))
    return -1;
  return Realfchmod(FD, Mode);
}

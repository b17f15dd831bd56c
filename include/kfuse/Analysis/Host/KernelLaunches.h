//===- KernelLaunches.h - the kernel launches of a program's host code -*- C++ -*-===//
//
// Read from the host-side parse of a file: every launch (<<<...>>>,
// cudaLaunchKernel, cudaLaunchKernelEx), with its kernel, grid, block,
// dynamic shared memory, stream and arguments as written and, where the
// function shows them, as values; the buffer each pointer argument points
// into; and which launches that follow one another could run side by side.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_ANALYSIS_KERNELLAUNCHES_H
#define KFUSE_ANALYSIS_KERNELLAUNCHES_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/Frontend/ASTUnit.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kfuse {

class RejectedCode;
struct Rejection;

enum class LaunchSyntax { Chevrons, LaunchKernel, LaunchKernelEx };
/// "<<<>>>", "cudaLaunchKernel" or "cudaLaunchKernelEx".
const char *spelling(LaunchSyntax S);

/// A value host code passes to a launch: as written and, where the function
/// shows it, what it is.
struct LaunchedValue {
  std::string Text;             ///< As written; empty when the launch omits it.
  std::optional<int64_t> Value; ///< Integers that are constant in the function.
  std::optional<double> Real;   ///< Floating-point values that are.
  /// Pointers: the buffer they point into, named by the variable (and
  /// members) they are read from: "d_out", "bufs.a". Empty when kfuse
  /// cannot follow the pointer.
  std::string Buffer;
  bool Offset = false; ///< Points past the buffer's start (d_a + n, &d_a[i]).
  /// The bytes a cudaMalloc of the function gave the buffer, when constant.
  std::optional<uint64_t> AllocatedBytes;
  /// The size of that cudaMalloc as written, when it is not constant.
  std::string AllocatedText;
  /// Without a value (or, for a pointer, its allocation's size): why, where
  /// the callers of the launching function give it (LaunchShape::Several).
  std::string Several;
  bool IsPointer = false;
  /// The buffers a pointer may point into, each named by the variable (or
  /// member) that received it: one for a pointer the function allocates or
  /// receives and never reassigns, several for one it assigns more than one.
  std::vector<std::string> Roots;
  /// kfuse cannot follow the pointer: it may point into any buffer.
  bool AnyBuffer = false;
  std::string Unfollowed; ///< Why, when AnyBuffer.
  /// A root is a pointer the function receives (a parameter, or a global
  /// it never assigns): distinct from others only if its callers keep it
  /// so, and kfuse did not see every caller pass buffers it holds apart.
  bool Received = false;
};

/// A grid or block: as written and, where constant, its three extents.
struct LaunchShape {
  std::string Text;
  std::optional<std::array<uint64_t, 3>> Value;
  /// Without a value, where the source gives several: "the calls of 'step'
  /// pass [256] at app.cu:13:3 and [128] at app.cu:14:3".
  std::string Several;
};

struct KernelLaunch {
  const clang::Expr *Site = nullptr;
  clang::SourceLocation Loc; ///< Where the launch is written (the file's own line).
  LaunchSyntax Syntax = LaunchSyntax::Chevrons;
  /// The kernel (the instantiation, for a template); null when the launch
  /// calls through a pointer kfuse cannot follow.
  const clang::FunctionDecl *Kernel = nullptr;
  std::string KernelName; ///< Qualified, with template arguments.
  const clang::FunctionDecl *Caller = nullptr;
  LaunchShape Grid, Block;
  LaunchedValue Shared;
  LaunchedValue Stream;      ///< Text empty when the launch omits it.
  bool DefaultStream = true; ///< Omitted, 0 or a null pointer.
  std::vector<LaunchedValue> Args;
  /// False when the arguments are an array kfuse cannot read.
  bool ArgsKnown = true;
  /// The statement of the launch in the block that runs it, and its place
  /// there: launches of one block are candidates to run side by side.
  const clang::CompoundStmt *Scope = nullptr;
  unsigned Position = 0;
  bool InLoop = false;
  /// The launch runs whenever its statement in Scope does: it is not in a
  /// branch of an expression, a lambda, a case or a label of its own.
  bool Straight = true;
  /// Why Clang rejects part of the calling function, whose launches are
  /// then read from what it could parse; null when it does not.
  const Rejection *CallerRejected = nullptr;
};

/// The launches in the host functions of \p HostUnit outside system headers,
/// in source order. \p Rejected holds the bodies Clang rejects: their
/// launches are read from what Clang parsed of them.
std::vector<KernelLaunch> findLaunches(clang::ASTUnit &HostUnit, const RejectedCode &Rejected);

/// How a kernel uses one parameter, from its device-side accesses.
enum class ParamUse { None, Read, Written, ReadWritten, Unknown };
inline bool reads(ParamUse U) { return U != ParamUse::None && U != ParamUse::Written; }
inline bool writes(ParamUse U) { return U != ParamUse::None && U != ParamUse::Read; }
/// Both uses together.
ParamUse combine(ParamUse A, ParamUse B);

/// A __device__, __managed__ or __constant__ variable a kernel uses.
struct VariableUse {
  std::string Name; ///< Qualified.
  ParamUse Use = ParamUse::None;
};

/// What a kernel's launch shares with other launches.
struct KernelUses {
  /// Per parameter: how the kernel uses the buffer a pointer parameter
  /// points into (Unknown where kfuse cannot classify a use); None for
  /// every other parameter.
  std::vector<ParamUse> Params;
  /// Variables it reaches, itself or through what it calls.
  std::vector<VariableUse> DeviceVariables;
  /// Memory no argument names: reached through pointers the arguments
  /// hold, or some way kfuse cannot follow. It may be any buffer.
  ParamUse Unseen = ParamUse::None;
  /// The first such access as written, and how it reaches that memory.
  std::string UnseenAt, UnseenWhy;
};

/// How \p Kernel, a device-side definition in \p DeviceUnit, uses what its
/// launches share.
KernelUses kernelUses(clang::ASTUnit &DeviceUnit, const clang::FunctionDecl &Kernel,
                      const RejectedCode &Rejected);

/// Why two launches cannot run side by side.
struct LaunchConflict {
  enum Kind {
    ReadAfterWrite,  ///< The second reads a buffer the first writes.
    WriteAfterRead,  ///< The second writes a buffer the first reads.
    WriteAfterWrite, ///< Both write a buffer.
    HostUse, ///< Host code between them uses a buffer one of them writes or the second reads.
    /// A wait between them also waits for work queued earlier on another
    /// stream that may use Buffer (Other: the work; Wait: the wait).
    PendingWork,
    /// Host code between them may change, through another name, a variable
    /// a launch is given (Buffer: the variable, why, and the write).
    AliasedWrite,
    UnknownKernel, ///< A launch through a pointer, or of arguments kfuse cannot read.
  } What;
  std::string Buffer;        ///< The buffer, or the launch that is not known.
  clang::SourceLocation Loc; ///< The host use, for HostUse.
  /// For a buffer: what the second launch names, when it is not Buffer,
  /// and why the two may be one ("kfuse cannot follow 'x.data()'").
  std::string Other, MayAlias;
  std::string Wait; ///< For PendingWork: the wait, and where it is.
};

/// What kfuse took on trust when it called two launches independent.
struct LaunchAssumption {
  enum Kind {
    /// Pointers the launching function receives (its parameters, globals it
    /// does not assign) point to different buffers: its callers decide.
    DistinctBuffers,
    HostWaits, ///< Host code between them waits for the GPU; fusing moves the second before it.
    /// A wait between them would also wait for work the launching function's
    /// callers queued on other streams: it touches neither launch's buffers.
    CallersWork,
    OtherStreams, ///< On different streams, they may already overlap without fusion.
    RejectedHost, ///< Clang rejects part of the host function; read from what it parsed.
  } What;
  std::string Subject;
  clang::SourceLocation Loc;
};

/// Host calls that change no program state a launch is given and touch no
/// GPU memory: error queries, printing, waiting, exiting.
bool inertHostCall(llvm::StringRef Name);

/// "file.cu:12:3": where \p Loc is written, for messages.
std::string launchLocation(const clang::SourceManager &SM, clang::SourceLocation Loc);

/// The conflict or assumption in words, for two launches the messages call
/// \p First and \p Second: "b reads 'x', which a writes".
std::string describe(const LaunchConflict &X, const std::string &First, const std::string &Second,
                     const clang::SourceManager &SM);
std::string describe(const LaunchAssumption &X, const std::string &First, const std::string &Second,
                     const clang::SourceManager &SM);

/// Two launches that follow one another on every path through one block
/// of host code: nothing between them branches, loops, jumps or launches.
/// A buffer two launches name, one of them writing it: what a vertical
/// fusion gives both kernels as one parameter, and passes from one kernel to
/// the next in the thread (or the block) instead of through memory where the
/// first writes it and the second only reads it.
struct LaunchFlow {
  size_t FromArg = 0,
         ToArg = 0;   ///< The first's argument that names it, the second's.
  std::string Buffer; ///< As host code names it.
  /// Nothing reads it after the second launch (nor the first before it
  /// writes it), so a fusion need not store it at all.
  bool Dead = false;
  std::string Live;          ///< Why it may be read after, when not Dead.
  bool SecondWrites = false; ///< The second writes it too: it stays in memory.
};

struct LaunchPair {
  size_t First = 0, Second = 0;          ///< Indices into the launches.
  std::vector<LaunchConflict> Conflicts; ///< Empty: they can run side by side.
  std::vector<LaunchAssumption> Assumptions;
  /// Launches that depend on each other only through buffers both name
  /// through one argument each: those buffers, and the scalar arguments
  /// (first's, second's) that carry one value.
  std::vector<LaunchFlow> Flows;
  std::vector<std::pair<size_t, size_t>> SameArgs;
  /// Why the dependent launches cannot run one after the other in each
  /// thread instead; empty when they can (or are independent).
  std::string NotChainable;
  bool independent() const { return Conflicts.empty(); }
  bool chainable() const { return !independent() && NotChainable.empty() && !Flows.empty(); }
};

/// A flow between two launches of a chain: the launches (indices into the
/// launches) and the arguments.
struct ChainFlow {
  size_t From = 0, To = 0;
  LaunchFlow Flow;
};

/// Three or more launches that follow one another, each of which may run
/// after the ones before it in each thread (a vertical fusion): every two of
/// them independent or a chain.
struct LaunchChain {
  std::vector<size_t> Launches; ///< Indices into the launches.
  /// Per buffer one kernel names after another, from each launch that names
  /// it to the next that does.
  std::vector<ChainFlow> Flows;
  /// Scalar arguments that carry one value: groups of (launch, argument).
  std::vector<std::vector<std::pair<size_t, size_t>>> Same;
  /// What every two of them took on trust, each kind once.
  std::vector<LaunchAssumption> Assumptions;
};

struct LaunchRelations {
  /// Launches that follow one another in a block (no launch between them).
  std::vector<LaunchPair> Pairs;
  /// Runs of three or more launches that follow one another, every two of
  /// them independent: indices into the launches.
  std::vector<std::vector<size_t>> Groups;
  /// Runs of three or more that each thread could run one after the other,
  /// at least two of them dependent.
  std::vector<LaunchChain> Chains;
  /// How many pairs of launches were related to find these: the work, which
  /// grows with the launches (a group is at most a fused block of warps).
  size_t Related = 0;
};

/// The dependences between launches of one block. \p Uses holds what each
/// launch's kernel uses; nothing for a kernel with no visible body.
LaunchRelations relateLaunches(clang::ASTUnit &HostUnit, const std::vector<KernelLaunch> &Launches,
                               const std::vector<std::optional<KernelUses>> &Uses);

/// The chain of launches \p Run (indices into \p Launches, in program
/// order, each following the one before), or nothing with \p Why.
std::optional<LaunchChain> relateChain(clang::ASTUnit &HostUnit,
                                       const std::vector<KernelLaunch> &Launches,
                                       const std::vector<std::optional<KernelUses>> &Uses,
                                       const std::vector<size_t> &Run, std::string &Why);

} // namespace kfuse

#endif

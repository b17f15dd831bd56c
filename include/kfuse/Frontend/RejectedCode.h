//===- RejectedCode.h - function bodies Clang rejects -----------*- C++ -*-===//
//
// nvcc accepts code that Clang 19 does not: unqualified min/max in host code,
// a launch spelled `<< <grid, block >> >`, a device intrinsic reached from a
// host function through a macro, attribute orders EDG allows. kfuse needs the
// kernels and what they reach, not the rest of the file, so an error inside a
// function body only marks that function (and the functions around it) as
// rejected; a kernel that needs one is refused with Clang's message. An error
// anywhere else still fails the parse.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_FRONTEND_REJECTEDCODE_H
#define KFUSE_FRONTEND_REJECTEDCODE_H

#include "clang/AST/Decl.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Frontend/ASTUnit.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kfuse {

/// Clang's first error inside a function's body.
struct Rejection {
  clang::SourceLocation Loc;
  std::string Message;
};

/// The function definitions of one parsed file whose bodies hold an error.
class RejectedCode {
public:
  /// Why Clang rejects \p F (any declaration of it, or of the template it
  /// was instantiated from), or null when it does not.
  const Rejection *of(const clang::FunctionDecl &F) const;
  /// Every rejected definition, in source order.
  const std::vector<std::pair<const clang::FunctionDecl *, Rejection>> &all() const {
    return Functions;
  }
  bool empty() const { return Functions.empty(); }
  /// Whether \p Loc lies in the body of a rejected function.
  bool contains(const clang::SourceManager &SM, clang::SourceLocation Loc) const;

  void add(const clang::FunctionDecl &F, Rejection Why);

private:
  std::vector<std::pair<const clang::FunctionDecl *, Rejection>> Functions;
  std::map<const clang::FunctionDecl *, size_t> Index; ///< By canonical declaration.
};

/// The diagnostics to show once the errors inside rejected bodies are set
/// aside: everything outside those bodies but errors and their notes.
std::vector<clang::StoredDiagnostic>
outsideRejected(const std::vector<clang::StoredDiagnostic> &All, const RejectedCode &Rejected,
                const clang::SourceManager &SM);

/// Attributes the errors among \p Diagnostics (each error with the notes
/// after it) to the function bodies of \p Unit that contain them. Returns
/// nothing when an error lies outside every function body or is fatal, so
/// that the parse must fail.
std::optional<RejectedCode>
attributeErrors(clang::ASTUnit &Unit, const std::vector<clang::StoredDiagnostic> &Diagnostics);

} // namespace kfuse

#endif

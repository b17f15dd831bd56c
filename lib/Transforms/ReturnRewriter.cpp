//===- ReturnRewriter.cpp - a return leaves only its own body -------------===//
//
// In a kernel a return jumps to the end of the kernel's part, so the thread
// goes on to the launcher's end; in an inlined function it stores the value
// and jumps to the end of the inlined body; in a copy of a function it stays.
//
//===----------------------------------------------------------------------===//

#include "kfuse/Transforms/KernelRewrites.h"

namespace kfuse {

bool rewriteReturns(const KernelModel &Model, const ReturnPlan &Plan, EditSet &Edits) {
  bool Ok = true;
  for (const Return &R : Model.Returns) {
    const clang::Expr *Value = R.Stmt->getRetValue();
    auto Prefix = Plan.Prefixes.find(R.Stmt);
    if (Plan.EndLabel.empty()) {
      // A copy of a function returns as the function did.
      if (Prefix != Plan.Prefixes.end())
        Ok &= Edits.replaceStatement(*R.Stmt,
                                     "{\n" + Prefix->second +
                                         Edits.rewrittenText(R.Stmt->getSourceRange()) + ";\n}",
                                     "return");
      continue;
    }
    if (!Value && Prefix == Plan.Prefixes.end()) {
      Ok &= Edits.replaceRange(R.Stmt->getSourceRange(), "goto " + Plan.EndLabel, "return");
      continue;
    }
    std::string Text = "{\n";
    if (Prefix != Plan.Prefixes.end())
      Text += Prefix->second;
    if (Value && !Value->getType()->isVoidType()) {
      std::string ValueText = Edits.rewrittenText(Value->getSourceRange());
      Text += Plan.ResultName.empty() ? "(void)(" + ValueText + ");\n"
                                      : Plan.ResultName + " = " + ValueText + ";\n";
    } else if (Value && Prefix == Plan.Prefixes.end()) {
      Text += Edits.rewrittenText(Value->getSourceRange()) + ";\n";
    }
    Text += "goto " + Plan.EndLabel + ";\n}";
    Ok &= Edits.replaceStatement(*R.Stmt, Text, "return");
  }
  return Ok;
}

} // namespace kfuse

//===- HorizontalFuser.cpp - several kernels side by side in one block ----===//

#include "kfuse/Transforms/HorizontalFuser.h"

#include "kfuse/Transforms/KernelRewrites.h"

#include "clang/Basic/IdentifierTable.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/Support/Path.h"

namespace kfuse {

void NameAllocator::reserveIdentifiersOf(clang::ASTUnit &Unit) {
  for (const auto &Entry : Unit.getPreprocessor().getIdentifierTable())
    Taken.insert(Entry.getKey().str());
}

std::string NameAllocator::allocate(const std::string &Wanted) {
  std::string Name = Wanted;
  for (unsigned Suffix = 1; Taken.count(Name); ++Suffix)
    Name = Wanted + "_" + std::to_string(Suffix);
  Taken.insert(Name);
  return Name;
}

namespace {

std::string origin(const FusionMember &M) {
  const clang::SourceManager &SM = M.Unit->getSourceManager();
  clang::SourceLocation Loc = SM.getExpansionLoc(M.Model.Decl->getLocation());
  return M.Spec->File + ":" + std::to_string(SM.getExpansionLineNumber(Loc));
}

/// The parameter as the user declared it, under its new name. Falls back to
/// Clang's spelling of the type when the declaration comes from a macro.
std::string paramDeclaration(const clang::ParmVarDecl &P, const std::string &Name,
                             clang::ASTUnit &Unit) {
  const clang::SourceManager &SM = Unit.getSourceManager();
  clang::CharSourceRange Range = clang::Lexer::makeFileCharRange(
      clang::CharSourceRange::getTokenRange(P.getSourceRange()), SM, Unit.getLangOpts());
  clang::SourceLocation NameLoc = P.getLocation();
  if (Range.isValid() && P.getIdentifier() && NameLoc.isFileID()) {
    std::string Text = clang::Lexer::getSourceText(Range, SM, Unit.getLangOpts()).str();
    unsigned Offset = SM.getFileOffset(NameLoc) - SM.getFileOffset(Range.getBegin());
    if (Offset + P.getName().size() <= Text.size())
      return Text.replace(Offset, P.getName().size(), Name);
  }
  std::string Printed;
  llvm::raw_string_ostream OS(Printed);
  P.getOriginalType().print(OS, Unit.getASTContext().getPrintingPolicy(), Name);
  return Printed;
}

class SectionBuilder {
public:
  SectionBuilder(const FusionMember &M, const ThreadRange &Range, NameAllocator &Names,
                 Reporter &Diags)
      : M(M), Range(Range), Names(Names), Diags(Diags) {}

  std::optional<FusedSection> build() {
    const KernelModel &Model = M.Model;
    const std::string &Prefix = M.Spec->Id;
    FusedSection S;
    S.KernelId = Prefix;
    S.KernelName = Model.Name;
    S.Origin = origin(M);
    S.Range = Range;
    S.Resizable = M.Spec->AnyBlockSize;
    S.OriginalBlock = M.Spec->Block;
    S.Block = S.Resizable ? std::array<unsigned, 3>{Range.Size, 1, 1} : M.Spec->Block;
    S.UsesDynamicShared = Model.usesDynamicShared();
    S.LaunchName = Names.allocate(Prefix + "_launch");

    RenameMap Renames;
    for (const clang::ParmVarDecl *P : Model.Params) {
      std::string Name = Names.allocate(Prefix + "_" + (P->getIdentifier() ? P->getName().str()
                                                                          : "arg"));
      Renames[P] = Name;
      S.Params.push_back({paramDeclaration(*P, Name, *M.Unit), Name});
    }
    for (const clang::VarDecl *V : Model.Locals)
      Renames[V] = Names.allocate(Prefix + "_" + V->getName().str());
    for (const clang::LabelDecl *L : Model.Labels)
      Renames[L] = Names.allocate(Prefix + "_" + L->getName().str());
    if (Model.uses(BuiltinVar::ThreadIdx))
      S.ThreadIdxName = Names.allocate(Prefix + "_threadIdx");
    if (Model.uses(BuiltinVar::BlockDim))
      S.BlockDimName = Names.allocate(Prefix + "_blockDim");
    if (!Model.Returns.empty())
      S.EndLabel = Names.allocate(Prefix + "_end");

    EditSet Edits(*M.Unit, Diags);
    bool Ok = renameSymbols(Model, Renames, Edits);
    Ok &= rewriteThreadIndices(Model, S.ThreadIdxName, S.BlockDimName, Edits);
    Ok &= rewriteBarriers(Model, Range.BarrierId, Range.Size, Edits);
    Ok &= rewriteReturns(Model, S.EndLabel, Edits);
    if (!Ok)
      return std::nullopt;
    S.Body = Edits.rewrittenText(Model.Decl->getBody()->getSourceRange());
    return S;
  }

private:
  const FusionMember &M;
  const ThreadRange &Range;
  NameAllocator &Names;
  Reporter &Diags;
};

} // namespace

std::optional<FusedKernel> fuseHorizontally(const std::string &Fusion,
                                            const std::vector<FusionMember> &Members,
                                            const PartitionPlan &Plan, NameAllocator &Names,
                                            Reporter &Diags) {
  FusedKernel K;
  K.Fusion = Fusion;
  K.KernelName = Fusion + "_fused";
  K.LauncherName = Fusion + "_launch";
  K.BlockThreads = Plan.BlockThreads;
  Names.reserve(K.KernelName);
  Names.reserve(K.LauncherName);
  Names.reserve("kfuse_tid");
  bool Ok = true;
  for (size_t I = 0; I < Members.size(); ++I) {
    std::optional<FusedSection> S = SectionBuilder(Members[I], Plan.Ranges[I], Names, Diags).build();
    Ok &= S.has_value();
    if (S)
      K.Sections.push_back(std::move(*S));
  }
  if (!Ok)
    return std::nullopt;
  return K;
}

} // namespace kfuse

//===- SuggestionPrinter.cpp - kfuse suggest's table and config -----------===//

#include "kfuse/Emission/SuggestionPrinter.h"

#include "kfuse/Config/Config.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <iterator>
#include <set>

namespace kfuse {

namespace {

/// How many dimensions a shape spells: trailing 1s are left out.
unsigned rankOf(const std::array<uint64_t, 3> &D) { return D[2] != 1 ? 3 : D[1] != 1 ? 2 : 1; }

std::string dims(const std::optional<std::array<uint64_t, 3>> &D, const std::string &Text) {
  if (!D)
    return Text.empty() ? "?" : Text;
  std::string S = std::to_string((*D)[0]);
  for (unsigned I = 1; I < rankOf(*D); ++I)
    S += "x" + std::to_string((*D)[I]);
  return S;
}

std::string times(double X) {
  std::string S;
  llvm::raw_string_ostream(S) << llvm::format("%.2fx", X);
  return S;
}

std::string profileText(const ProfiledKernel &P) {
  std::string S;
  llvm::raw_string_ostream(S) << llvm::format("%.1f us", P.MedianUs) << " x " << P.Launches
                              << llvm::format(", memory %.0f%% / SM %.0f%%", P.MemoryPercent,
                                              P.ComputePercent)
                              << " (" << spelling(P.limit()) << ")";
  return S;
}

std::string members(const Suggestions &S, const Candidate &C) {
  std::string M;
  for (size_t I : C.Members)
    M += (M.empty() ? "" : " + ") + S.Launches[I].Id;
  return M;
}

/// "512 B", "4.0 KiB", "64.0 MiB", "1.5 GiB".
std::string byteSize(uint64_t Bytes) {
  if (Bytes < 1024)
    return std::to_string(Bytes) + " B";
  static const char *const Units[] = {"KiB", "MiB", "GiB", "TiB"};
  double Value = Bytes / 1024.0;
  size_t Unit = 0;
  while (Value >= 1024 && Unit + 1 < std::size(Units)) {
    Value /= 1024;
    ++Unit;
  }
  std::string S;
  llvm::raw_string_ostream(S) << llvm::format("%.1f ", Value) << Units[Unit];
  return S;
}

/// What a vertical fusion saves: a launch per later kernel, and the
/// intermediates' loads (and stores, where they are temporary).
std::string removed(const Candidate &C) {
  std::string Launches =
      std::to_string(C.Members.size() - 1) + (C.Members.size() == 2 ? " launch" : " launches");
  if (std::optional<uint64_t> Bytes = C.removedBytes())
    return Launches + " and " + byteSize(*Bytes) +
           " of memory traffic (each intermediate's load, and its store where temporary)";
  return Launches + ", and each intermediate's load (and store, where temporary), of a size "
                    "the source does not show";
}

std::string verdict(const Candidate &C) {
  if (!C.fusable())
    return "dependent";
  if (!C.Checked)
    return "not checked";
  if (!C.Refusals.empty())
    return "refused";
  return C.Mode == FusionMode::Vertical ? "fuses vertically" : "fuses";
}

/// Memory + compute, or what limits each member.
std::string limits(const Suggestions &S, const Candidate &C) {
  std::string L;
  for (size_t I : C.Members) {
    const auto &P = S.Launches[I].Profile;
    L += (L.empty() ? "" : " + ") + std::string(P ? spelling(P->limit()) : "?");
  }
  return L;
}

class TablePrinter {
public:
  TablePrinter(const Suggestions &S, TableFormat Format, llvm::raw_ostream &OS)
      : S(S), Markdown(Format == TableFormat::Markdown), OS(OS) {}

  void print() {
    unsigned Ready = 0;
    for (const Candidate &C : S.Candidates)
      Ready += C.ready();
    OS << (Markdown ? "## " : "") << "kfuse suggest: " << S.Launches.size() << " launch"
       << (S.Launches.size() == 1 ? "" : "es") << ", " << S.Candidates.size() << " candidate"
       << (S.Candidates.size() == 1 ? "" : "s") << ", " << Ready << " kfuse can fuse\n\n";
    printLaunches();
    printCandidates();
  }

private:
  const Suggestions &S;
  bool Markdown;
  llvm::raw_ostream &OS;

  void row(const std::vector<std::string> &Cells, const std::vector<size_t> &Widths) {
    if (Markdown) {
      OS << "|";
      for (const std::string &C : Cells)
        OS << " " << C << " |";
      OS << "\n";
      return;
    }
    std::string Line = " ";
    for (size_t I = 0; I < Cells.size(); ++I) {
      Line += " " + Cells[I];
      if (I + 1 < Cells.size() && Cells[I].size() < Widths[I])
        Line += std::string(Widths[I] - Cells[I].size(), ' ');
    }
    OS << Line << "\n";
  }

  void table(const std::vector<std::string> &Head,
             const std::vector<std::vector<std::string>> &Rows) {
    std::vector<size_t> Widths(Head.size());
    for (size_t I = 0; I < Head.size(); ++I) {
      Widths[I] = Head[I].size();
      for (const auto &R : Rows)
        Widths[I] = std::max(Widths[I], R[I].size());
    }
    row(Head, Widths);
    if (Markdown)
      row(std::vector<std::string>(Head.size(), "---"), Widths);
    for (const auto &R : Rows)
      row(R, Widths);
    OS << "\n";
  }

  /// Where fusions overlap, which of them the config fuses.
  void printChoice() {
    std::string Taken, Alternatives;
    for (const Candidate &C : S.Candidates) {
      if (!C.ready())
        continue;
      std::string &List = C.AlternativeTo.empty() ? Taken : Alternatives;
      List += (List.empty() ? "" : ", ") + C.Name;
    }
    if (Alternatives.empty())
      return;
    OS << (Markdown ? "\n" : "") << "config: fuses " << Taken
       << "; keeps as alternatives for tune (each shares a launch with one of those): "
       << Alternatives << "\n";
  }

  void printLaunches() {
    OS << (Markdown ? "### Launches\n\n" : "launches:\n");
    std::vector<std::vector<std::string>> Rows;
    for (const SuggestedLaunch &L : S.Launches)
      Rows.push_back({L.Id, L.Kernel, L.Where, L.Syntax,
                      dims(L.Grid, L.GridText) + (L.GridFromProfile ? " (profile)" : ""),
                      dims(L.Block, L.BlockText) + (L.BlockFromProfile ? " (profile)" : ""),
                      L.Stream.empty() ? "default" : L.Stream,
                      L.Profile    ? profileText(*L.Profile)
                      : S.Profiled ? "not in the profile"
                                   : "-"});
    table({"id", "kernel", "where", "syntax", "grid", "block", "stream", "profile"}, Rows);
  }

  void printCandidates() {
    // Without a profile nothing estimates them, and the order says so.
    const char *Order = S.Profiled ? "best first"
                                   : "those kfuse fuses first, then by the memory traffic "
                                     "and the launches they remove, then in source order "
                                     "(--profile ranks them by estimate)";
    OS << (Markdown ? "### Candidates, " : "candidates, ") << Order << (Markdown ? "\n\n" : ":\n");
    std::vector<std::vector<std::string>> Rows;
    for (size_t I = 0; I < S.Candidates.size(); ++I) {
      const Candidate &C = S.Candidates[I];
      Rows.push_back({std::to_string(I + 1), C.Name, members(S, C), verdict(C),
                      C.Bound ? times(C.Bound->Speedup) : "-",
                      C.Bound ? times(C.Bound->Overlap) : "-", S.Profiled ? limits(S, C) : "-"});
    }
    table({"rank", "fusion", "launches", "verdict", "estimate", "overlap", "limits"}, Rows);
    for (size_t I = 0; I < S.Candidates.size(); ++I) {
      const Candidate &C = S.Candidates[I];
      if (C.Conflicts.empty() && C.Refusals.empty() && C.Assumptions.empty() && C.Replace.empty())
        continue;
      OS << (Markdown ? "- **" : "  ") << I + 1 << ". " << C.Name << (Markdown ? "**" : "")
         << ":\n";
      auto Item = [&](const char *What, const std::string &Text) {
        OS << (Markdown ? "  - " : "      ") << What << Text << "\n";
      };
      if (C.Mode == FusionMode::Vertical) {
        Item("removes: ", removed(C));
        // The dependences are the flows a vertical fusion keeps in the thread.
        for (const SuggestedFlow &F : C.Flows)
          Item("flow: ",
               S.Launches[F.From].Id + "." + F.FromParam + " -> " + S.Launches[F.To].Id + "." +
                   F.ToParam + " ('" + F.Buffer + "'): " +
                   (F.Temporary ? "in registers, nothing reads it after" : "stored, " + F.Kept));
      } else {
        for (const std::string &Why : C.Conflicts)
          Item("dependent: ", Why);
      }
      for (const std::string &Why : C.Refusals)
        Item("kfuse check: ", Why);
      for (const std::string &What : C.Assumptions)
        Item("assumed: ", What);
      for (const std::string &File : C.Replace)
        Item("replace: ", File + ": its kernels read variables the program writes, so the fused "
                                 "file is compiled in its place");
    }
    printChoice();
    if (S.Profiled)
      OS << (Markdown ? "\n" : "")
         << "estimate: (T1 + T2) over the fused time, at least each kernel's time with the warps "
            "the fused block leaves it and all kernels' memory and compute work at the peaks "
            "(docs/suggest.md); overlap: (T1 + T2) / max(T1, T2)\n";
  }
};

/// A YAML scalar, or FILL with what the source computes there.
struct Field {
  std::string Value;
  std::string Note;
};

class ConfigPrinter {
public:
  ConfigPrinter(const Suggestions &S, ConfigContent Content) : S(S), Content(Content) {}

  std::string print() {
    std::vector<const Candidate *> Chosen;
    std::set<size_t> Used;
    for (const Candidate &C : S.Candidates)
      if (Content == ConfigContent::Kernels ? C.fusable() : C.ready()) {
        Chosen.push_back(&C);
        Used.insert(C.Members.begin(), C.Members.end());
      }
    Out += "# Written by kfuse suggest: the launches below could run side by side";
    if (llvm::any_of(Chosen, [](const Candidate *C) { return C->Mode == FusionMode::Vertical; }))
      Out += "\n# (or, 'mode: vertical', one after the other in each thread)";
    Out += Content == ConfigContent::Launches ? "\n# and kfuse fuses them. " : ".\n# ";
    Out += "Values the source does not show are FILL: give them before kfuse tune.\n";
    Out += "kernels:\n";
    for (size_t I : Used)
      kernel(S.Launches[I]);
    Out += "fusions:\n";
    std::vector<std::string> Replace;
    // The fusions first, never two with one launch; then the alternatives.
    std::stable_partition(Chosen.begin(), Chosen.end(),
                          [](const Candidate *C) { return C->AlternativeTo.empty(); });
    bool Alternatives = false;
    for (const Candidate *C : Chosen) {
      if (!C->AlternativeTo.empty() && !Alternatives) {
        Alternatives = true;
        Out += "  # Alternatives: each shares a launch with a fusion above. kfuse tune measures\n"
               "  # them too; fuse --tuning rewrites one where it saved more time than the\n"
               "  # fusions it overlaps, and untuned fuse leaves their launches alone.\n";
      }
      fusion(*C);
      for (const std::string &F : C->Replace)
        if (std::find(Replace.begin(), Replace.end(), F) == Replace.end())
          Replace.push_back(F);
    }
    if (!Replace.empty()) {
      Out += "# The program writes __device__/__constant__ variables these kernels read: the\n"
             "# fused file is compiled in place of these files, so it reads the same ones.\n"
             "replace: [";
      for (size_t I = 0; I < Replace.size(); ++I)
        Out += (I ? ", " : "") + Replace[I];
      Out += "]\n";
    }
    return Out;
  }

private:
  const Suggestions &S;
  ConfigContent Content;
  std::string Out;

  static std::string list(const std::array<uint64_t, 3> &D) {
    std::string T = "[";
    for (unsigned I = 0; I < rankOf(D); ++I)
      T += (I ? ", " : "") + std::to_string(D[I]);
    return T + "]";
  }

  static Field shape(const std::optional<std::array<uint64_t, 3>> &D, const std::string &Text,
                     bool FromProfile) {
    if (D)
      return {list(*D), FromProfile ? "as the profile measured it" : ""};
    return {std::string("[") + FillMarker + "]", "the source computes " + Text};
  }

  void line(unsigned Indent, const std::string &Text, const std::string &Note) {
    Out += std::string(Indent, ' ') + Text;
    if (!Note.empty())
      Out += "  # " + Note;
    Out += "\n";
  }

  void kernel(const SuggestedLaunch &L) {
    line(2, "- name: " + L.Id, "launched at " + L.Where);
    line(4, "file: " + (L.File.empty() ? std::string(FillMarker) : L.File),
         L.File.empty() ? "no file given defines it" : "");
    line(4, "kernel: " + L.Kernel, "");
    if (!L.Site.empty())
      line(4, "site: " + L.Site, "the launch kfuse fuse --rewrite-launches replaces");
    Field Block = shape(L.Block, L.BlockText, L.BlockFromProfile);
    line(4, "block: " + Block.Value, Block.Note);
    if (Content == ConfigContent::Launches)
      launch(L);
  }

  void launch(const SuggestedLaunch &L) {
    line(4, "launch:", "");
    Field Grid = shape(L.Grid, L.GridText, L.GridFromProfile);
    if (!L.Grid && !L.GridSeveral.empty())
      Grid.Note += ": " + L.GridSeveral;
    line(6, "grid: " + Grid.Value, Grid.Note);
    if (!L.SharedBytes)
      line(6, std::string("shared_bytes: ") + FillMarker, "the source computes " + L.SharedText);
    else if (*L.SharedBytes)
      line(6, "shared_bytes: " + std::to_string(*L.SharedBytes), "");
    if (!L.ArgsKnown) {
      line(6, std::string("args: ") + FillMarker, "an argument array kfuse cannot read");
      return;
    }
    // A kernel without parameters: an empty list, which YAML needs spelled.
    line(6, L.Args.empty() ? "args: []" : "args:", "");
    for (const SuggestedArg &A : L.Args)
      arg(A);
  }

  void arg(const SuggestedArg &A) {
    std::string Note = A.Param + " = " + A.Text;
    if (!A.Buffer) {
      line(8, "- {value: " + A.Value.value_or(FillMarker) + "}",
           Note + (A.Value             ? ""
                   : A.Several.empty() ? ": not constant in the source"
                                       : ": " + A.Several));
      return;
    }
    std::string Count = A.Count ? std::to_string(*A.Count) : FillMarker;
    std::string Fill = A.Written ? ", fill: zero" : "";
    std::string Cause =
        !A.Several.empty() ? ": " + A.Several
        : A.AllocatedText.empty()
            ? ": its allocation is not in the launching function"
            : ": allocated with " + A.AllocatedText + " bytes, not constant in the source";
    line(8, "- {buffer: " + std::string(elementName(A.Type)) + ", count: " + Count + Fill + "}",
         Note + (A.Count ? "" : Cause));
  }

  void fusion(const Candidate &C) {
    std::string Kernels;
    for (size_t I : C.Members)
      Kernels += (Kernels.empty() ? "" : ", ") + S.Launches[I].Id;
    std::string Note;
    if (C.Bound)
      Note =
          "estimated " + times(C.Bound->Speedup) + ", perfect overlap " + times(C.Bound->Overlap);
    std::string Alternative = C.AlternativeTo.empty() ? "" : ", alternative: true";
    if (!C.AlternativeTo.empty())
      Note += (Note.empty() ? "" : "; ") + std::string("shares a launch with ") + C.AlternativeTo;
    // The rewrite needs the promise 'assumed:' spells, which only the user
    // can make: the line is there to uncomment, never made for them.
    const char *Promise = "# distinct_buffers: true";
    const char *Why = "the callers' promise 'assumed:' spells, which fuse --rewrite-launches "
                      "needs: uncomment it if they keep it";
    if (C.Mode != FusionMode::Vertical) {
      if (!C.CallersPromise) {
        line(2, "- {name: " + C.Name + ", kernels: [" + Kernels + "]" + Alternative + "}", Note);
        return;
      }
      line(2, "- name: " + C.Name, Note);
      line(4, "kernels: [" + Kernels + "]", "");
      if (!Alternative.empty())
        line(4, "alternative: true", "");
      line(4, Promise, Why);
      return;
    }
    line(2, "- name: " + C.Name, Note);
    line(4, "mode: vertical", "each thread runs the kernels one after the other");
    if (!Alternative.empty())
      line(4, "alternative: true", "");
    line(4, "kernels: [" + Kernels + "]", "");
    if (C.CallersPromise)
      line(4, Promise, Why);
    line(4, "flows:", "");
    for (const SuggestedFlow &F : C.Flows)
      line(6,
           "- {from: " + S.Launches[F.From].Id + "." + F.FromParam + ", to: " +
               S.Launches[F.To].Id + "." + F.ToParam + (F.Temporary ? ", temporary: true}" : "}"),
           "'" + F.Buffer + "'" + (F.Temporary ? ": nothing reads it after" : ": " + F.Kept));
    if (C.Same.empty())
      return;
    line(4, "same:", "");
    for (const SuggestedSame &X : C.Same)
      line(6,
           "- [" + S.Launches[X.First].Id + "." + X.FirstParam + ", " + S.Launches[X.Second].Id +
               "." + X.SecondParam + "]",
           "");
  }
};

} // namespace

void printSuggestions(const Suggestions &S, TableFormat Format, llvm::raw_ostream &OS) {
  TablePrinter(S, Format, OS).print();
}

std::string printSuggestedConfig(const Suggestions &S, ConfigContent Content) {
  return ConfigPrinter(S, Content).print();
}

} // namespace kfuse

//===- CompileDatabase.cpp - compile_commands.json, checked ---------------===//

#include "kfuse/Frontend/CompileDatabase.h"

#include "kfuse/Diagnostics/InputFiles.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"

#include <optional>

namespace kfuse {

namespace {

namespace yaml = llvm::yaml;

/// Whether a command in a shell's syntax closes every quote it opens, as
/// Clang splits it: backslashes escape outside single quotes.
bool quotesClosed(llvm::StringRef Command) {
  char Open = 0;
  for (size_t I = 0; I < Command.size(); ++I) {
    char C = Command[I];
    if (Open == '\'') {
      Open = C == '\'' ? 0 : Open;
    } else if (C == '\\') {
      ++I;
    } else if (Open == '"') {
      Open = C == '"' ? 0 : Open;
    } else if (C == '\'' || C == '"') {
      Open = C;
    }
  }
  return Open == 0;
}

class Reader {
public:
  Reader(llvm::StringRef Text, const std::string &Path) : Path(Path) {
    Sources.setDiagHandler(&Reader::syntaxError, this);
    Stream.emplace(Text, Sources, /*ShowColors=*/false);
  }

  DatabaseIndex read() {
    readEntries();
    if (Syntax)
      Index.Problems = {*Syntax};
    return std::move(Index);
  }

private:
  void readEntries() {
    yaml::document_iterator Doc = Stream->begin();
    yaml::Node *Root = Doc == Stream->end() ? nullptr : Doc->getRoot();
    auto *Entries = llvm::dyn_cast_or_null<yaml::SequenceNode>(Root);
    if (!Entries) {
      problem(Root, "it must be a JSON array of compile commands");
      return;
    }
    bool Any = false;
    for (yaml::Node &Entry : *Entries) {
      readEntry(Entry);
      Any = true;
    }
    if (!Any)
      problem(Root, "it lists no compile commands");
  }

  std::string Path;
  llvm::SourceMgr Sources;
  std::optional<yaml::Stream> Stream;
  DatabaseIndex Index;
  /// The first syntax error, which explains every problem after it.
  std::optional<diag::Problem> Syntax;

  static void syntaxError(const llvm::SMDiagnostic &D, void *Context) {
    auto *Self = static_cast<Reader *>(Context);
    // The parser repeats itself after the first error; one is enough.
    if (Self->Syntax)
      return;
    Self->Syntax = diag::Problem{diag::ID::CompileDatabase,
                                 static_cast<unsigned>(D.getLineNo()),
                                 static_cast<unsigned>(D.getColumnNo() + 1),
                                 {Self->Path, "malformed JSON: " + D.getMessage().str()}};
  }

  std::pair<unsigned, unsigned> position(const yaml::Node *N) {
    if (!N || !N->getSourceRange().Start.isValid())
      return {1, 1};
    return Sources.getLineAndColumn(N->getSourceRange().Start);
  }

  void problem(const yaml::Node *N, std::string Reason) {
    auto [Line, Column] = position(N);
    Index.Problems.push_back({diag::ID::CompileDatabase, Line, Column, {Path, std::move(Reason)}});
  }

  std::optional<std::string> scalar(yaml::Node *N, llvm::StringRef Key) {
    auto *S = llvm::dyn_cast_or_null<yaml::ScalarNode>(N);
    if (!S) {
      problem(N, "'" + Key.str() + "' must be a string");
      return std::nullopt;
    }
    llvm::SmallString<128> Storage;
    return S->getValue(Storage).str();
  }

  /// The arguments' count, or nothing after reporting that it is no list
  /// of strings.
  std::optional<size_t> arguments(yaml::Node *N) {
    auto *List = llvm::dyn_cast_or_null<yaml::SequenceNode>(N);
    if (!List) {
      problem(N, "'arguments' must be a list of strings");
      return std::nullopt;
    }
    size_t Count = 0;
    for (yaml::Node &A : *List) {
      if (!llvm::isa<yaml::ScalarNode>(A)) {
        problem(&A, "'arguments' must be a list of strings");
        return std::nullopt;
      }
      ++Count;
    }
    return Count;
  }

  void readEntry(yaml::Node &Node) {
    auto *Map = llvm::dyn_cast<yaml::MappingNode>(&Node);
    if (!Map) {
      problem(&Node, "each entry must be a JSON object");
      return;
    }
    std::optional<std::string> Directory, File, Command;
    std::optional<size_t> Arguments;
    yaml::Node *CommandNode = nullptr;
    bool Ok = true;
    for (yaml::KeyValueNode &KV : *Map) {
      auto *KeyNode = llvm::dyn_cast_or_null<yaml::ScalarNode>(KV.getKey());
      if (!KeyNode) {
        problem(KV.getKey(), "an entry's keys must be strings");
        return;
      }
      llvm::SmallString<16> Storage;
      std::string Key = KeyNode->getValue(Storage).str();
      yaml::Node *Value = KV.getValue();
      bool Read = true;
      if (Key == "directory") {
        Read = (Directory = scalar(Value, Key)).has_value();
      } else if (Key == "file") {
        Read = (File = scalar(Value, Key)).has_value();
      } else if (Key == "command") {
        CommandNode = Value;
        Read = (Command = scalar(Value, Key)).has_value();
      } else if (Key == "arguments") {
        CommandNode = Value;
        Read = (Arguments = arguments(Value)).has_value();
      } else if (Key == "output") {
        Read = scalar(Value, Key).has_value();
      } else {
        problem(KeyNode, "unknown key '" + Key + "' in an entry");
        Read = false;
      }
      Ok &= Read;
    }
    if (!Ok)
      return;
    for (auto [Key, Given] :
         {std::pair{"directory", Directory.has_value()}, std::pair{"file", File.has_value()},
          std::pair{"command' or 'arguments", CommandNode != nullptr}})
      if (!Given) {
        problem(Map, std::string("an entry needs the key '") + Key + "'");
        Ok = false;
      }
    if (!Ok)
      return;
    auto [Line, Column] = position(Map);
    DatabaseEntry E{Line, Column, ""};
    if ((Command && llvm::StringRef(*Command).trim().empty()) || (Arguments && *Arguments == 0))
      E.CommandProblem = "it is empty";
    else if (Command && !quotesClosed(*Command))
      E.CommandProblem = "a quote in it is never closed";
    Index.Entries.emplace(databaseKey(*Directory, *File), std::move(E));
  }
};

} // namespace

std::string databaseKey(llvm::StringRef Directory, llvm::StringRef File) {
  llvm::SmallString<256> Key(File);
  if (!llvm::sys::path::is_absolute(Key)) {
    Key = Directory;
    llvm::sys::path::append(Key, File);
  }
  llvm::sys::path::remove_dots(Key, /*remove_dot_dot=*/true);
  return std::string(Key);
}

DatabaseIndex indexCompileDatabase(llvm::StringRef Text, const std::string &Path) {
  // The YAML parser recurses once per level, as Clang's own loader does.
  if (std::optional<std::pair<unsigned, unsigned>> Deep = jsonTooDeep(Text)) {
    DatabaseIndex Index;
    Index.Problems.push_back(
        {diag::ID::CompileDatabase,
         Deep->first,
         Deep->second,
         {Path, "arrays and objects nest more than " + std::to_string(JsonDepthLimit) +
                    " deep here; a compile database nests two"}});
    return Index;
  }
  return Reader(Text, Path).read();
}

} // namespace kfuse

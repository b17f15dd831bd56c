//===- InputFiles.cpp - reading the files kfuse parses itself -------------===//

#include "kfuse/Diagnostics/InputFiles.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/xxhash.h"

#include <tuple>
#include <unistd.h>

namespace kfuse {

std::pair<diag::ID, std::string> unreadable(const std::string &Path) {
  namespace fs = llvm::sys::fs;
  fs::file_status Status;
  if (fs::status(Path, Status) || !fs::exists(Status))
    return {diag::ID::FileNotFound, "no such file"};
  if (fs::is_directory(Status))
    return {diag::ID::FileUnreadable, "it is a directory"};
  if (!fs::is_regular_file(Status))
    return {diag::ID::FileUnreadable, "it is a device, a FIFO or a socket, not a regular file"};
  if (::access(Path.c_str(), R_OK) != 0)
    return {diag::ID::FileUnreadable, "permission denied"};
  return {diag::ID::FileNotFound, ""};
}

InputText readInput(const std::string &Path, uint64_t Limit) {
  InputText In;
  std::tie(In.Id, In.Why) = unreadable(Path);
  if (!In.Why.empty())
    return In;
  uint64_t Size = 0;
  if (std::error_code EC = llvm::sys::fs::file_size(Path, Size)) {
    In.Why = EC.message();
    return In;
  }
  In.Id = diag::ID::FileUnreadable;
  if (Size > Limit) {
    In.Why = "it holds " + std::to_string(Size) + " bytes, more than kfuse reads (" +
             std::to_string(Limit) + ")";
    return In;
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buffer) {
    In.Why = Buffer.getError().message();
    return In;
  }
  // It may have grown since it was measured.
  if ((*Buffer)->getBufferSize() > Limit) {
    In.Why = "it holds more bytes than kfuse reads (" + std::to_string(Limit) + ")";
    return In;
  }
  In.Buffer = std::move(*Buffer);
  return In;
}

std::optional<std::pair<unsigned, unsigned>> jsonTooDeep(llvm::StringRef Json, unsigned Limit) {
  unsigned Depth = 0, Line = 1, Column = 0;
  bool InString = false, Escaped = false;
  for (char C : Json) {
    ++Column;
    if (C == '\n') {
      ++Line;
      Column = 0;
    }
    if (InString) {
      if (Escaped)
        Escaped = false;
      else if (C == '\\')
        Escaped = true;
      else if (C == '"')
        InString = false;
      continue;
    }
    if (C == '"')
      InString = true;
    else if (C == '[' || C == '{') {
      if (++Depth > Limit)
        return std::make_pair(Line, Column);
    } else if ((C == ']' || C == '}') && Depth > 0)
      --Depth;
  }
  return std::nullopt;
}

uint64_t contentHash(llvm::StringRef Content) {
  return llvm::xxh3_64bits(llvm::arrayRefFromStringRef(Content));
}

} // namespace kfuse

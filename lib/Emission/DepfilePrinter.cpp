//===- DepfilePrinter.cpp - Make-syntax dependency files ------------------===//

#include "kfuse/Emission/Depfile.h"

namespace kfuse {
namespace {

/// Make reads spaces and '#' as syntax and '$' as a variable.
std::string escaped(const std::string &Path) {
  std::string Out;
  for (char C : Path) {
    if (C == ' ' || C == '#')
      Out += '\\';
    else if (C == '$')
      Out += '$';
    Out += C;
  }
  return Out;
}

} // namespace

std::string printDepfile(const std::string &Target, const std::vector<std::string> &Inputs) {
  std::string Out = escaped(Target) + ":";
  for (const std::string &I : Inputs)
    Out += " \\\n  " + escaped(I);
  Out += "\n";
  for (const std::string &I : Inputs)
    Out += "\n" + escaped(I) + ":\n";
  return Out;
}

} // namespace kfuse

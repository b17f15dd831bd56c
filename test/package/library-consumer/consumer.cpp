// Prints the versions through the library, as `kfuse --version` does.
#include "kfuse/Driver/Commands.h"

int main() {
  kfuse::ParseSettings Settings;
  return kfuse::runVersion(Settings, llvm::outs());
}

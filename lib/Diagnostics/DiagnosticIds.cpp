//===- DiagnosticIds.cpp - stable names of kfuse diagnostics --------------===//

#include "kfuse/Diagnostics/DiagnosticIds.h"

namespace kfuse::diag {

const char *stableName(ID Id) {
  switch (Id) {
#define KFUSE_DIAG(Name, Level, StableId, Format)                                                  \
  case ID::Name:                                                                                   \
    return StableId;
#include "kfuse/Diagnostics/Diagnostics.def"
  }
  return "";
}

} // namespace kfuse::diag

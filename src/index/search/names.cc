// The names of search modes and fusion methods, as the CLI, the MCP server and
// the mount's search directories spell them; apart from index.cc so that the
// mount's query-name parser and its fuzz target need none of the index itself.
#include <string>
#include <string_view>

#include "vexfs/index.h"

namespace vexfs {

const char* SearchModeName(SearchMode mode) {
  switch (mode) {
    case SearchMode::kLexical: return "lexical";
    case SearchMode::kDense: return "dense";
    case SearchMode::kHybrid: break;
  }
  return "hybrid";
}

const char* FusionMethodName(FusionMethod method) {
  return method == FusionMethod::kScoreMix ? "mix" : "rrf";
}

Result<SearchMode> ParseSearchMode(std::string_view name) {
  for (SearchMode m : {SearchMode::kHybrid, SearchMode::kLexical, SearchMode::kDense}) {
    if (name == SearchModeName(m)) return m;
  }
  return Status::InvalidArgument("unknown search mode '" + std::string(name) +
                                 "' (known: hybrid, lexical, dense)");
}

Result<FusionMethod> ParseFusionMethod(std::string_view name) {
  for (FusionMethod m : {FusionMethod::kRrf, FusionMethod::kScoreMix}) {
    if (name == FusionMethodName(m)) return m;
  }
  return Status::InvalidArgument("unknown fusion method '" + std::string(name) +
                                 "' (known: rrf, mix)");
}

}  // namespace vexfs

// Unified diffs by dtl (the diff template library), line by line.
#include "mcp/text_diff.h"

#include <dtl/dtl.hpp>

#include <sstream>
#include <vector>

namespace vexfs::mcp {
namespace {

std::vector<std::string> Lines(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    out.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace

std::string UnifiedDiff(std::string_view path, std::string_view before, std::string_view after) {
  if (before == after) return "";
  std::vector<std::string> a = Lines(before), b = Lines(after);
  dtl::Diff<std::string, std::vector<std::string>> diff(a, b);
  diff.onHuge();  // bounded memory on long files (dtl's documented switch)
  diff.compose();
  diff.composeUnifiedHunks();
  std::ostringstream out;
  out << "--- a/" << path << "\n+++ b/" << path << "\n";
  diff.printUnifiedFormat(out);
  return out.str();
}

}  // namespace vexfs::mcp

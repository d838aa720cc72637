// Passage splitting (see passages.h). Greedy: from the current start, look at the
// window [start + target/2, start + max] and cut at the best boundary in it,
// preferring stronger boundaries, and among equal ones the one nearest the target.
#include "index/indexing/passages.h"

#include <algorithm>

#include "index/indexing/text_detect.h"

namespace vexfs::index {
namespace {

// Boundary strength of a cut just before `pos` (higher is better; 0 = none).
int BoundaryStrength(std::string_view text, size_t pos) {
  if (pos == 0 || pos >= text.size()) return 0;
  char prev = text[pos - 1];
  char next = text[pos];
  bool line_start = prev == '\n';
  if (line_start && next == '#') return 5;                       // Markdown heading
  if (line_start && pos >= 2 && text[pos - 2] == '\n') return 4;  // after a blank line
  if (line_start) return 3;
  if ((prev == ' ') && pos >= 2 &&
      (text[pos - 2] == '.' || text[pos - 2] == '!' || text[pos - 2] == '?')) {
    return 2;  // sentence end
  }
  if (prev == ' ' || prev == '\t') return 1;
  return 0;
}

size_t ChooseCut(std::string_view text, size_t start, const PassageOptions& o) {
  size_t hard_end = std::min(text.size(), start + o.max_bytes);
  if (hard_end == text.size()) return text.size();
  size_t lo = start + o.target_bytes / 2;
  size_t target = start + o.target_bytes;
  size_t best = 0;
  int best_strength = 0;
  size_t best_distance = 0;
  for (size_t pos = lo; pos <= hard_end; ++pos) {
    int s = BoundaryStrength(text, pos);
    if (s == 0) continue;
    size_t distance = pos > target ? pos - target : target - pos;
    if (s > best_strength || (s == best_strength && distance < best_distance)) {
      best = pos;
      best_strength = s;
      best_distance = distance;
    }
  }
  if (best != 0) return best;
  size_t cut = Utf8BoundaryAtOrBefore(text, hard_end);
  return cut > start ? cut : hard_end;  // a cut must make progress
}

bool OnlyWhitespace(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
  });
}

}  // namespace

std::vector<Passage> SplitPassages(std::string_view text, const PassageOptions& options) {
  PassageOptions o = options;
  o.max_bytes = std::max<size_t>(o.max_bytes, 8);
  o.target_bytes = std::clamp<size_t>(o.target_bytes, 4, o.max_bytes);
  std::vector<Passage> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = ChooseCut(text, start, o);
    if (!OnlyWhitespace(text.substr(start, end - start))) out.push_back({start, end - start});
    start = end;
  }
  return out;
}

}  // namespace vexfs::index

// ParseQueryName: see query_name.h for the grammar.
#include "fuse/query_name.h"

#include "common/percent_encoding.h"

#include <charconv>
#include <optional>

namespace vexfs::fuse {
namespace {

constexpr size_t kMaxK = 1000;  // a directory of more links than this helps nobody

// Applies one "key=value" (or "passages") to `request`.
Status ApplyOption(std::string_view option, SearchRequest* request) {
  if (option == "passages") {
    request->passages = true;
    return Status::Ok();
  }
  if (option == "feedback") {
    request->feedback = true;
    return Status::Ok();
  }
  size_t eq = option.find('=');
  if (eq == std::string_view::npos) {
    return Status::InvalidArgument("unknown search option '" + std::string(option) + "'");
  }
  std::string_view key = option.substr(0, eq);
  VEXFS_ASSIGN_OR_RETURN(std::string value, PercentDecode(option.substr(eq + 1)));
  if (key == "k") {
    size_t k = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), k);
    if (ec != std::errc() || end != value.data() + value.size() || k == 0 || k > kMaxK) {
      return Status::InvalidArgument("k must be 1-" + std::to_string(kMaxK) + ", not '" + value +
                                     "'");
    }
    request->k = k;
  } else if (key == "mode") {
    VEXFS_ASSIGN_OR_RETURN(request->mode, ParseSearchMode(value));
  } else if (key == "fusion") {
    VEXFS_ASSIGN_OR_RETURN(request->fusion, ParseFusionMethod(value));
  } else if (key == "under") {
    request->under = value;
  } else if (key == "at") {
    request->snapshot = value;
  } else if (key == "where") {
    size_t inner = value.find('=');
    if (inner == std::string::npos || inner == 0) {
      return Status::InvalidArgument("where needs KEY=VALUE, not '" + value + "'");
    }
    request->where[value.substr(0, inner)] = value.substr(inner + 1);
  } else {
    return Status::InvalidArgument("unknown search option '" + std::string(key) + "'");
  }
  return Status::Ok();
}

// `request` with every option of `options` ("k=5,under=x") applied, or nullopt if
// any part is not an option.
std::optional<SearchRequest> ParseOptions(std::string_view options, SearchRequest request) {
  if (options.empty()) return std::nullopt;
  while (!options.empty()) {
    size_t comma = options.find(',');
    std::string_view option = options.substr(0, comma);
    if (!ApplyOption(option, &request).ok()) return std::nullopt;
    options = comma == std::string_view::npos ? "" : options.substr(comma + 1);
  }
  return request;
}

}  // namespace

Result<SearchRequest> ParseQueryName(std::string_view name) {
  std::string_view text = name;
  SearchRequest request;
  size_t at = name.rfind('@');
  if (at != std::string_view::npos) {
    // A malformed option list means the '@' was part of the query. But a list
    // that is well formed except for a bad value is an error worth reporting.
    auto parsed = ParseOptions(name.substr(at + 1), request);
    if (parsed) {
      request = std::move(*parsed);
      text = name.substr(0, at);
    } else {
      std::string_view tail = name.substr(at + 1);
      std::string_view first = tail.substr(0, tail.find(','));
      if (first.substr(0, 2) == "k=") {
        SearchRequest checked;  // only checked: the whole name stays the query
        VEXFS_RETURN_IF_ERROR(ApplyOption(first, &checked));
      }
    }
  }
  VEXFS_ASSIGN_OR_RETURN(request.query, PercentDecode(text));
  if (request.query.find_first_not_of(" \t") == std::string::npos) {
    return Status::InvalidArgument("the search query is empty");
  }
  return request;
}

}  // namespace vexfs::fuse

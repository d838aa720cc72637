// The checks every fuzzed search-directory name goes through (see the header).
#include "fuzz/query_name_fuzz_body.h"

#include "common/percent_encoding.h"
#include "fuse/query_name.h"

namespace vexfs::fuse::fuzz {
namespace {

// The fields a directory name can set, and only those.
bool SameAsked(const SearchRequest& a, const SearchRequest& b) {
  return a.query == b.query && a.k == b.k && a.mode == b.mode && a.fusion == b.fusion &&
         a.feedback == b.feedback && a.passages == b.passages && a.under == b.under &&
         a.snapshot == b.snapshot && a.where == b.where;
}

}  // namespace

std::string EncodeQueryName(const SearchRequest& request) {
  std::vector<std::string> options = {"k=" + std::to_string(request.k)};
  if (request.mode) options.push_back(std::string("mode=") + SearchModeName(*request.mode));
  options.push_back(std::string("fusion=") + FusionMethodName(request.fusion));
  if (!request.under.empty()) options.push_back("under=" + PercentEncode(request.under));
  if (!request.snapshot.empty()) options.push_back("at=" + PercentEncode(request.snapshot));
  for (const auto& [key, value] : request.where) {
    options.push_back("where=" + PercentEncode(key + "=" + value));
  }
  if (request.passages) options.push_back("passages");
  if (request.feedback) options.push_back("feedback");
  std::string name = PercentEncode(request.query, " ") + "@";
  for (size_t i = 0; i < options.size(); ++i) name += (i ? "," : "") + options[i];
  return name;
}

std::string CheckQueryName(std::string_view name) {
  auto parsed = ParseQueryName(name);
  if (!parsed.ok()) {
    if (parsed.status().code() != StatusCode::kInvalidArgument) {
      return "a refusal is not kInvalidArgument: " + parsed.status().ToString();
    }
    return parsed.status().message().empty() ? "a refusal says nothing" : "";
  }
  if (parsed->query.find_first_not_of(" \t") == std::string::npos) {
    return "an accepted name asks for a blank query";
  }
  if (parsed->k < 1 || parsed->k > 1000) return "an accepted name asks for k out of 1..1000";
  const std::string again = EncodeQueryName(*parsed);
  auto reparsed = ParseQueryName(again);
  if (!reparsed.ok()) {
    return "the request's own name '" + again + "' is refused: " + reparsed.status().ToString();
  }
  if (!SameAsked(*parsed, *reparsed)) return "the request's own name '" + again + "' asks otherwise";
  return "";
}

std::vector<std::string> QueryNameSeeds() {
  return {
      "release notes",
      "deploy checklist@k=5",
      "what I learned about caching@k=3,mode=dense,fusion=mix,passages,feedback",
      "notes@under=projects%2Fvexfs,at=before-replan,where=lang=en,where=team=infra",
      "meet @ noon",
      "100%25 sure%2C really %40home@mode=lexical",
  };
}

}  // namespace vexfs::fuse::fuzz

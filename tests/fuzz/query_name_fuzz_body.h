// What the search-directory name fuzzer does with every input, shared with the
// regression test that replays seeds and saved inputs
// (query_name_fuzz_regression_test.cc). The decoder is ParseQueryName
// (src/fuse/query_name): any process may look up any name under a mount's
// .vexfs/search/, so its bytes are outside input.
#ifndef VEXFS_TESTS_FUZZ_QUERY_NAME_FUZZ_BODY_H_
#define VEXFS_TESTS_FUZZ_QUERY_NAME_FUZZ_BODY_H_

#include <string>
#include <string_view>
#include <vector>

#include "vexfs/index.h"

namespace vexfs::fuse::fuzz {

// The directory name that asks for exactly `request`'s query and options
// (text and values percent-encoded), as a user would type it.
std::string EncodeQueryName(const SearchRequest& request);

// Parses `name`. A refusal must be kInvalidArgument with a message; an accepted
// name must ask for a query with a non-blank character and k in 1..1000, and
// its request, encoded again, must parse to the same request. Returns "" when
// all holds, else what broke.
std::string CheckQueryName(std::string_view name);

// Names that parse: a bare query, every option, escapes, and a query whose '@'
// is part of the text.
std::vector<std::string> QueryNameSeeds();

}  // namespace vexfs::fuse::fuzz

#endif  // VEXFS_TESTS_FUZZ_QUERY_NAME_FUZZ_BODY_H_

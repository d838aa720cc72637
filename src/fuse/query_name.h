// Names of directories under .vexfs/search/: a query and optional settings.
//
//   <query text>[@option,option,...]
//   options: k=N  under=PATH  where=KEY=VALUE (repeatable)  at=SNAPSHOT  passages
//            mode=hybrid|lexical|dense  fusion=rrf|mix  feedback
//
// A path component cannot hold '/', so text and values are percent-decoded:
// "under=notes%2Fdaily" means notes/daily; %40 is '@' and %2C is ','. The split is
// at the last '@' and only if everything after it parses as options; otherwise the
// whole name is the query ("meet @ noon" searches for exactly that).
#ifndef VEXFS_FUSE_QUERY_NAME_H_
#define VEXFS_FUSE_QUERY_NAME_H_

#include <string>
#include <string_view>

#include "vexfs/index.h"

namespace vexfs::fuse {

// The search a directory name asks for. kInvalidArgument names what is wrong
// (a bad k, an empty query, a malformed escape).
Result<SearchRequest> ParseQueryName(std::string_view name);

}  // namespace vexfs::fuse

#endif  // VEXFS_FUSE_QUERY_NAME_H_

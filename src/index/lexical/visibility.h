// Admits only the passages of the searched view while Xapian matches: a posting
// source over the view's bitmap of lexical ids, used as the filter of a query.
//
// A lexical index is several Xapian databases searched together (the checkpoint
// and the in-memory tail). Xapian hands each shard its own copy of the source
// with that shard's local document ids, so every shard records in its metadata
// (kShardBaseKey) the lexical id of its document 1: local document d is lexical
// id base + d - 1. A shard without the key starts at id 0 (checkpoints written
// before the key existed, which always start there).
#ifndef VEXFS_INDEX_LEXICAL_VISIBILITY_H_
#define VEXFS_INDEX_LEXICAL_VISIBILITY_H_

#include <xapian.h>

#include <cstdint>
#include <string_view>
#include <vector>

namespace vexfs::index {

inline constexpr std::string_view kShardBaseKey = "vexfs:base";

// A filter query admitting exactly the ids whose bit is set in `visible` (which
// must outlive every search that uses the query). `visible_count` is the number
// of set bits and `total` the ids the index holds, for Xapian's estimates.
Xapian::Query VisibleIdsQuery(const std::vector<uint8_t>& visible, uint64_t visible_count,
                              uint64_t total);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_LEXICAL_VISIBILITY_H_

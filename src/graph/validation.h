// The checks every item of a graph write passes before anything is written:
// kinds, bounds, JSON properties, time ranges and KV spans. Each error names the
// item (its place in the batch) and what is wrong with it.
#ifndef VEXFS_GRAPH_VALIDATION_H_
#define VEXFS_GRAPH_VALIDATION_H_

#include <string>
#include <string_view>

#include "vexfs/graph.h"

namespace vexfs::graph {

// `properties` as canonical JSON (sorted keys, no spaces): equal objects are
// equal bytes, so writing the same item twice changes nothing. kInvalidArgument
// for text that is not a JSON object or is past kMaxGraphProperties.
Result<std::string> CanonicalProperties(std::string_view properties, std::string_view item);
// Checks a node to add; `item` names it in errors ("item 3 (turn)").
Status CheckNodeSpec(const NodeSpec& spec, std::string_view item);
Status CheckEdgeSpec(const EdgeSpec& spec, std::string_view item);
// kInvalidArgument if [from, to) is empty or reversed.
Status CheckValidTime(TimeNs from, TimeNs to, std::string_view item);

}  // namespace vexfs::graph

#endif  // VEXFS_GRAPH_VALIDATION_H_

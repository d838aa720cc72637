// The "objects.N" sections of an agent bundle: store objects one after another,
// each as its 32-byte id, a varint length and the bytes the store keeps
// (docs/agent-bundle.md, "Object packs"). Decoding takes outside bytes: a
// record that runs past the section, or an empty one, is kCorruption naming
// its offset. The objects themselves are proven by ObjectImport.
#ifndef VEXFS_AGENT_OBJECT_PACK_H_
#define VEXFS_AGENT_OBJECT_PACK_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "vexfs/object_transfer.h"

namespace vexfs::agent {

// The bytes before an object's stored bytes in a pack.
std::string PackRecordHead(const ObjectId& id, uint64_t stored_length);
// The bytes a record of `stored_length` takes in a pack.
uint64_t PackRecordLength(uint64_t stored_length);

// Calls `visit` with each object of `pack`, in order. `section` names the pack
// in messages.
Status DecodePack(std::string_view pack, std::string_view section, const StoredObjectVisitor& visit);

}  // namespace vexfs::agent

#endif  // VEXFS_AGENT_OBJECT_PACK_H_

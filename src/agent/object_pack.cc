// Encoding and decoding the object packs of an agent bundle (object_pack.h).
#include "agent/object_pack.h"

#include "common/coding.h"

namespace vexfs::agent {
namespace {

// Larger than any object a store writes (chunks, trees, commits, graph
// nodes): a length beyond it is damage, not an object.
constexpr uint64_t kMaxStoredObject = 1ull << 30;

}  // namespace

std::string PackRecordHead(const ObjectId& id, uint64_t stored_length) {
  Encoder e;
  e.PutId(id);
  e.PutVarint(stored_length);
  return e.Take();
}

uint64_t PackRecordLength(uint64_t stored_length) {
  return PackRecordHead(ObjectId(), stored_length).size() + stored_length;
}

Status DecodePack(std::string_view pack, std::string_view section, const StoredObjectVisitor& visit) {
  Decoder d(pack);
  while (!d.done()) {
    const uint64_t offset = pack.size() - d.remaining();
    auto bad = [&](const std::string& what) {
      return Status::Corruption("bundle section " + std::string(section) + ": the object record at offset " +
                                std::to_string(offset) + " " + what);
    };
    ObjectId id;
    uint64_t length = 0;
    std::string_view stored;
    if (!d.GetId(&id) || !d.GetVarint(&length)) return bad("is cut short");
    if (length == 0 || length > kMaxStoredObject) return bad("has an impossible length " + std::to_string(length));
    if (!d.GetRaw(length, &stored)) return bad("runs past the section's end");
    VEXFS_RETURN_IF_ERROR(visit(id, stored));
  }
  return Status::Ok();
}

}  // namespace vexfs::agent

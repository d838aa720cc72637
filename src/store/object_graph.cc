// Object references and graph roots (see object_graph.h).
#include "store/object_graph.h"

#include "store/store_impl.h"

namespace vexfs::internal {

Status AppendReferences(ObjectType type, std::string_view payload,
                        std::vector<ObjectId>* out) {
  switch (type) {
    case ObjectType::kChunk: return Status::Ok();
    case ObjectType::kManifest: {
      Manifest m;
      VEXFS_RETURN_IF_ERROR(DecodeManifest(payload, &m));
      for (const ObjectId& id : m.chunks) {
        if (!id.IsZero()) out->push_back(id);
      }
      return Status::Ok();
    }
    case ObjectType::kTree: {
      Tree t;
      VEXFS_RETURN_IF_ERROR(DecodeTree(payload, &t));
      for (const TreeEntry& e : t.entries) out->push_back(e.id);
      return Status::Ok();
    }
    case ObjectType::kCommit: {
      Commit c;
      VEXFS_RETURN_IF_ERROR(DecodeCommit(payload, &c));
      out->push_back(c.tree);
      out->insert(out->end(), c.parents.begin(), c.parents.end());
      for (const auto& [name, id] : c.roots) out->push_back(id);
      return Status::Ok();
    }
    case ObjectType::kNode: {
      Node n;
      VEXFS_RETURN_IF_ERROR(DecodeNode(payload, &n));
      out->insert(out->end(), n.refs.begin(), n.refs.end());
      return Status::Ok();
    }
  }
  return Status::Corruption("unknown object type");
}

Status AppendStoredReferences(const ObjectId& id, std::string_view stored,
                              std::vector<ObjectId>* out) {
  if (!stored.empty() && stored[0] == static_cast<char>(ObjectType::kChunk)) return Status::Ok();
  ObjectType type;
  std::string payload;
  VEXFS_RETURN_IF_ERROR(VerifyStoredObject(id, stored, &type, &payload));
  return AppendReferences(type, payload, out).WithContext("object " + id.ToHex());
}

Status CollectRootIds(const Txn& txn, const Databases& dbs, std::vector<ObjectId>* out) {
  VEXFS_ASSIGN_OR_RETURN(auto refs, ScanPrefix(txn, dbs.refs, ""));
  for (const auto& [key, value] : refs) {
    if (key.rfind(kSnapshotRefPrefix, 0) == 0 && value.size() == 32) {
      out->push_back(ObjectId::FromBytes(value));
    } else if (key.rfind(kBranchRefPrefix, 0) == 0) {
      BranchRecord rec;
      if (DecodeBranch(value, &rec).ok() && rec.head) out->push_back(*rec.head);
    }
  }
  VEXFS_ASSIGN_OR_RETURN(auto inodes, ScanPrefix(txn, dbs.inodes, ""));
  for (const auto& [key, value] : inodes) {
    InodeRecord rec;
    if (DecodeInode(value, &rec).ok() && rec.cached) out->push_back(*rec.cached);
  }
  VEXFS_ASSIGN_OR_RETURN(auto chunks, ScanPrefix(txn, dbs.chunks, ""));
  for (const auto& [key, value] : chunks) {
    if (value.size() == 32) out->push_back(ObjectId::FromBytes(value));
  }
  return Status::Ok();
}

}  // namespace vexfs::internal

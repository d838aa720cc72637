// CheckStoreRecord and its seeds (see store_records_fuzz_body.h).
#include "fuzz/store_records_fuzz_body.h"

#include "common/sha256.h"
#include "store/objects.h"
#include "store/records.h"

namespace vexfs::internal::fuzz {
namespace {

enum Selector : uint8_t {
  kInode, kBranch, kDirent, kManifest, kTree, kCommit, kStored, kNode, kCount
};

// Decode, encode, decode again: the second encoding must equal the first.
template <typename T, typename DecodeFn, typename EncodeFn>
std::string RoundTrip(std::string_view input, DecodeFn decode, EncodeFn encode,
                      const char* what, bool* decoded) {
  T value;
  if (!decode(input, &value).ok()) return "";
  *decoded = true;
  std::string once = encode(value);
  T again;
  Status st = decode(once, &again);
  if (!st.ok()) return std::string(what) + ": its own encoding does not decode: " + st.ToString();
  if (encode(again) != once) return std::string(what) + ": encoding is not stable";
  return "";
}

std::string CheckStored(std::string_view input, bool* decoded) {
  if (input.size() < 32) return "";
  ObjectId id = ObjectId::FromBytes(input.substr(0, 32));
  std::string whole;
  for (Verify depth : {Verify::kChecksum, Verify::kFullHash}) {
    ObjectType type;
    std::string payload;
    Status st = VerifyStoredObject(id, input.substr(32), &type, &payload, depth);
    if (st.ok() && ComputeObjectId(type, payload) != id && depth == Verify::kFullHash) {
      return "stored object verified although its hash differs";
    }
    if (st.ok()) whole = payload;
    if (st.ok() && depth == Verify::kFullHash) *decoded = true;
  }
  // A ranged read (a page or two of a chunk) returns the same bytes as the whole.
  ObjectType type;
  std::string scratch;
  std::string_view part;
  Status st = VerifyStoredRange(id, input.substr(32), &type, &scratch, 4000, 9000, &part,
                                Verify::kChecksum);
  if (st.ok() && !whole.empty() && part != std::string_view(whole).substr(std::min<size_t>(
                                                4000, whole.size()), 5000)) {
    return "a ranged read returned other bytes than the whole read";
  }
  return "";
}

TreeEntry SampleEntry(const char* name, FileType type, uint64_t rdev) {
  TreeEntry e;
  e.name = name;
  e.type = type;
  e.mode = 0640;
  e.uid = 1000;
  e.mtime = 1700000000000000000;
  e.id = Sha256Of(name);
  e.rdev = rdev;
  return e;
}

}  // namespace

std::string CheckStoreRecord(std::string_view bytes, bool* decoded) {
  bool ignored = false;
  if (decoded == nullptr) decoded = &ignored;
  *decoded = false;
  if (bytes.empty()) return "";
  std::string_view in = bytes.substr(1);
  switch (static_cast<uint8_t>(bytes[0]) % kCount) {
    case kInode: return RoundTrip<InodeRecord>(in, DecodeInode, EncodeInode, "inode", decoded);
    case kBranch: return RoundTrip<BranchRecord>(in, DecodeBranch, EncodeBranch, "branch", decoded);
    case kDirent: return RoundTrip<DirentValue>(in, DecodeDirent, EncodeDirent, "dirent", decoded);
    case kManifest: return RoundTrip<Manifest>(in, DecodeManifest, EncodeManifest, "manifest", decoded);
    case kTree: return RoundTrip<Tree>(in, DecodeTree, EncodeTree, "tree", decoded);
    case kCommit: return RoundTrip<Commit>(in, DecodeCommit, EncodeCommit, "commit", decoded);
    case kNode: return RoundTrip<Node>(in, DecodeNode, EncodeNode, "node", decoded);
    default: return CheckStored(in, decoded);
  }
}

std::vector<std::string> StoreRecordSeeds() {
  auto with = [](Selector s, const std::string& body) { return std::string(1, char(s)) + body; };
  InodeRecord dev;
  dev.type = FileType::kCharDevice;
  dev.rdev = (uint64_t{136} << 8) | 3;
  dev.parents = {1, 7};
  dev.cached = Sha256Of("cached");
  InodeRecord link;
  link.type = FileType::kSymlink;
  link.symlink_target = "a/target";
  BranchRecord branch;
  branch.head = Sha256Of("head");
  Manifest manifest;
  manifest.size = 70000;
  manifest.chunks = {Sha256Of("c0"), ObjectId{}};
  manifest.xattrs = {{"user.k", "v"}};
  Tree tree;
  tree.entries = {SampleEntry("a", FileType::kRegular, 0), SampleEntry("b", FileType::kFifo, 0),
                  SampleEntry("c", FileType::kBlockDevice, 2049)};
  tree.xattrs = {{"user.d", "x"}};
  Commit commit;
  commit.tree = Sha256Of("tree");
  commit.root = SampleEntry("", FileType::kDirectory, 0);
  commit.parents = {Sha256Of("p")};
  commit.branch = "main";
  commit.message = "m";
  commit.meta = {{"k", "v"}};
  Commit with_roots = commit;  // format 2: roots besides the file tree
  with_roots.roots = {{"graph", Sha256Of("graph root")}, {"journal", Sha256Of("journal")}};
  Node node;
  node.refs = {Sha256Of("line 1"), Sha256Of("line 2")};
  node.data = "opaque extension bytes";
  // A stored chunk as the object table writes it, raw and compressed, in one
  // page (one checksum) and in several (a checksum per page).
  std::string stored_seeds[4];
  for (int seed = 0; seed < 4; ++seed) {
    bool compressed = seed % 2 == 1, paged = seed >= 2;
    std::string payload = compressed ? std::string(4096, 'z') : "plain chunk bytes";
    if (paged) {
      payload = compressed ? std::string(10000, 'y')
                           : std::string(9000, 'p') + std::string(1000, 'q') + "end";
      if (!compressed) {
        for (size_t i = 0; i < payload.size(); i += 7) payload[i] = static_cast<char>(i * 31);
      }
    }
    ObjectId id = ComputeObjectId(ObjectType::kChunk, payload);
    stored_seeds[seed] = with(
        kStored, std::string(id.AsBytes()) + EncodeStoredObject(id, ObjectType::kChunk, payload));
  }
  return {with(kInode, EncodeInode(dev)),      with(kInode, EncodeInode(link)),
          with(kBranch, EncodeBranch(branch)), with(kDirent, EncodeDirent({9, FileType::kSocket})),
          with(kManifest, EncodeManifest(manifest)), with(kTree, EncodeTree(tree)),
          with(kCommit, EncodeCommit(commit)), with(kCommit, EncodeCommit(with_roots)),
          with(kNode, EncodeNode(node)), with(kNode, EncodeNode({})), stored_seeds[0],
          stored_seeds[1], stored_seeds[2], stored_seeds[3]};
}

}  // namespace vexfs::internal::fuzz

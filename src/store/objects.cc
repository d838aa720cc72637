// Object encodings and the verified, compressed object table.
#include "store/objects.h"

#include <xxhash.h>
#if defined(__x86_64__)
#include <xxh_x86dispatch.h>  // AVX2 or AVX-512 where the CPU has them (digests.cc)
#endif
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <thread>

#include "common/coding.h"
#include "common/parallel.h"
#include "common/sha256.h"
#include "store/records.h"

namespace vexfs::internal {
namespace {

constexpr uint8_t kFormatV1 = 1;
// Commits with roots besides the file tree (store format 2).
constexpr uint8_t kCommitV2 = 2;
// Encodings 0 and 1 are checked on read by recomputing the SHA-256 id. 2 and 3
// are the same bodies after an XXH3-64 checksum of the payload, seeded with the
// id: a read checks that at memory speed (SHA-256 costs more than the rest of a
// read together) and still notices bytes stored under the wrong key.
constexpr uint8_t kEncodingRaw = 0;
constexpr uint8_t kEncodingZstd = 1;
constexpr uint8_t kEncodingRawChecked = 2;
constexpr uint8_t kEncodingZstdChecked = 3;
// 4 and 5 carry one checksum per kPageBytes of payload instead of one for the
// whole: a read of part of a chunk checks only the pages it returns, so a random
// 4 KiB read of a 64 KiB chunk hashes 4 KiB, not 64. Written for chunks of more
// than one page.
constexpr uint8_t kEncodingRawPaged = 4;
constexpr uint8_t kEncodingZstdPaged = 5;
constexpr uint64_t kPageBytes = 4096;
// Payloads smaller than this are never worth a compression attempt.
constexpr size_t kMinCompressSize = 128;
// No object expands past this; a larger claimed size is corruption, not a request
// to allocate.
constexpr uint64_t kMaxPayloadSize = uint64_t{1} << 30;

void PutXattrs(Encoder* e, const XattrMap& xattrs) {
  e->PutVarint(xattrs.size());
  for (const auto& [k, v] : xattrs) {
    e->PutBytes(k);
    e->PutBytes(v);
  }
}

bool GetXattrs(Decoder* d, XattrMap* xattrs) {
  uint64_t n;
  if (!d->GetVarint(&n) || n > d->remaining()) return false;
  for (uint64_t i = 0; i < n; ++i) {
    std::string_view k, v;
    if (!d->GetBytes(&k) || !d->GetBytes(&v)) return false;
    (*xattrs)[std::string(k)] = std::string(v);
  }
  return true;
}

void PutEntry(Encoder* e, const TreeEntry& entry) {
  e->PutBytes(entry.name);
  e->PutU8(static_cast<uint8_t>(entry.type));
  e->PutVarint(entry.mode);
  e->PutVarint(entry.uid);
  e->PutVarint(entry.gid);
  e->PutSignedVarint(entry.mtime);
  e->PutVarint(entry.size);
  e->PutId(entry.id);
  if (IsDeviceFile(entry.type)) e->PutVarint(entry.rdev);
}

bool GetEntry(Decoder* d, TreeEntry* entry) {
  std::string_view name;
  uint8_t type;
  if (!d->GetBytes(&name) || !d->GetU8(&type)) return false;
  if (!IsFileTypeByte(type)) return false;
  entry->name = std::string(name);
  entry->type = static_cast<FileType>(type);
  entry->rdev = 0;
  bool ok = d->GetVarint32(&entry->mode) && d->GetVarint32(&entry->uid) &&
            d->GetVarint32(&entry->gid) && d->GetSignedVarint(&entry->mtime) &&
            d->GetVarint(&entry->size) && d->GetId(&entry->id);
  if (!ok || (IsDeviceFile(entry->type) && !d->GetVarint(&entry->rdev))) return false;
  // A special file has no content: a size would be bytes nothing can read.
  return !IsSpecialFile(entry->type) || entry->size == 0;
}

uint64_t ChecksumSeed(const ObjectId& id, ObjectType type) {
  uint64_t seed = 0;
  for (int i = 7; i >= 0; --i) seed = seed << 8 | id.bytes[i];
  return seed ^ static_cast<uint8_t>(type);
}

uint64_t Xxh3(std::string_view bytes, uint64_t seed) {
#if defined(__x86_64__)
  return XXH3_64bits_withSeed_dispatch(bytes.data(), bytes.size(), seed);
#else
  return XXH3_64bits_withSeed(bytes.data(), bytes.size(), seed);
#endif
}

// XXH3-64 of page `page` of the payload, seeded as the whole-payload checksum
// XOR the page number above the type tag: a page stored at the wrong place, or
// under the wrong key, fails it.
uint64_t PageChecksum(const ObjectId& id, ObjectType type, std::string_view payload,
                      uint64_t page) {
  std::string_view bytes = payload.substr(page * kPageBytes, kPageBytes);
  return Xxh3(bytes, ChecksumSeed(id, type) ^ (page << 8));
}

uint64_t PageCount(uint64_t payload_size) { return (payload_size + kPageBytes - 1) / kPageBytes; }

// XXH3-64 of the payload, seeded with the id's first 8 bytes (little-endian)
// XOR the type tag: like the id, it covers the type and names the object.
uint64_t PayloadChecksum(const ObjectId& id, ObjectType type, std::string_view payload) {
  uint64_t seed = ChecksumSeed(id, type);
  return Xxh3(payload, seed);
}

Status Malformed(const char* what) {
  return Status::Corruption(std::string("malformed ") + what + " object");
}

struct ZstdCCtxFree {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};

// Compressed bytes if that saves at least 1/16 of the payload, else empty.
std::string MaybeCompress(std::string_view payload) {
  if (payload.size() < kMinCompressSize) return {};
  thread_local std::unique_ptr<ZSTD_CCtx, ZstdCCtxFree> cctx(ZSTD_createCCtx());
  // Room for just what is worth keeping: a frame that does not fit is an error,
  // which means "store it raw". The scratch space is reused, not zeroed for
  // every chunk (on incompressible data that zeroing was a pass of its own).
  const size_t worth = payload.size() - payload.size() / 16;
  thread_local std::unique_ptr<char[]> scratch;
  thread_local size_t scratch_size = 0;
  if (scratch_size < worth) {
    scratch = std::make_unique_for_overwrite<char[]>(worth);
    scratch_size = worth;
  }
  size_t n = ZSTD_compressCCtx(cctx.get(), scratch.get(), worth, payload.data(), payload.size(), 1);
  if (ZSTD_isError(n)) return {};
  return std::string(scratch.get(), n);
}

}  // namespace

std::string EncodeManifest(const Manifest& m) {
  Encoder e;
  e.PutU8(kFormatV1);
  e.PutVarint(m.size);
  e.PutVarint(m.chunk_size);
  e.PutVarint(m.chunks.size());
  for (const ObjectId& id : m.chunks) e.PutId(id);
  PutXattrs(&e, m.xattrs);
  return e.Take();
}

Status DecodeManifest(std::string_view payload, Manifest* m) {
  Decoder d(payload);
  uint8_t version;
  uint64_t n;
  if (!d.GetU8(&version) || version != kFormatV1 || !d.GetVarint(&m->size) ||
      !d.GetVarint(&m->chunk_size) || !d.GetVarint(&n) || m->chunk_size == 0 ||
      n > d.remaining() / 32) {
    return Malformed("manifest");
  }
  if (n != (m->size + m->chunk_size - 1) / m->chunk_size) return Malformed("manifest");
  m->chunks.resize(n);
  for (auto& id : m->chunks) {
    if (!d.GetId(&id)) return Malformed("manifest");
  }
  if (!GetXattrs(&d, &m->xattrs) || !d.done()) return Malformed("manifest");
  return Status::Ok();
}

std::string EncodeTree(const Tree& t) {
  Encoder e;
  e.PutU8(kFormatV1);
  e.PutVarint(t.entries.size());
  for (const TreeEntry& entry : t.entries) PutEntry(&e, entry);
  PutXattrs(&e, t.xattrs);
  return e.Take();
}

Status DecodeTree(std::string_view payload, Tree* t) {
  Decoder d(payload);
  uint8_t version;
  uint64_t n;
  if (!d.GetU8(&version) || version != kFormatV1 || !d.GetVarint(&n) ||
      n > d.remaining()) {
    return Malformed("tree");
  }
  t->entries.resize(n);
  for (size_t i = 0; i < n; ++i) {
    if (!GetEntry(&d, &t->entries[i])) return Malformed("tree");
    if (i > 0 && !(t->entries[i - 1].name < t->entries[i].name)) return Malformed("tree");
  }
  if (!GetXattrs(&d, &t->xattrs) || !d.done()) return Malformed("tree");
  return Status::Ok();
}

std::string EncodeCommit(const Commit& c) {
  Encoder e;
  e.PutU8(c.roots.empty() ? kFormatV1 : kCommitV2);
  e.PutId(c.tree);
  PutEntry(&e, c.root);
  e.PutVarint(c.parents.size());
  for (const ObjectId& p : c.parents) e.PutId(p);
  e.PutSignedVarint(c.time);
  e.PutBytes(c.branch);
  e.PutBytes(c.message);
  PutXattrs(&e, c.meta);
  if (c.roots.empty()) return e.Take();
  e.PutVarint(c.roots.size());
  for (const auto& [name, id] : c.roots) {
    e.PutBytes(name);
    e.PutId(id);
  }
  return e.Take();
}

namespace {

// Roots: extension names, strictly increasing, each with an id.
bool GetRoots(Decoder* d, std::map<std::string, ObjectId>* roots) {
  uint64_t n;
  if (!d->GetVarint(&n) || n == 0 || n > d->remaining() / 34) return false;
  std::string previous;
  for (uint64_t i = 0; i < n; ++i) {
    std::string_view name;
    ObjectId id;
    if (!d->GetBytes(&name) || !IsExtensionName(name) || (i > 0 && !(previous < name)) ||
        !d->GetId(&id)) {
      return false;
    }
    previous = std::string(name);
    (*roots)[previous] = id;
  }
  return true;
}

}  // namespace

Status DecodeCommit(std::string_view payload, Commit* c) {
  Decoder d(payload);
  uint8_t version;
  uint64_t n;
  if (!d.GetU8(&version) || (version != kFormatV1 && version != kCommitV2) ||
      !d.GetId(&c->tree) || !GetEntry(&d, &c->root) || !d.GetVarint(&n) ||
      n > d.remaining() / 32) {
    return Malformed("commit");
  }
  c->parents.resize(n);
  for (auto& p : c->parents) {
    if (!d.GetId(&p)) return Malformed("commit");
  }
  std::string_view branch, message;
  if (!d.GetSignedVarint(&c->time) || !d.GetBytes(&branch) || !d.GetBytes(&message) ||
      !GetXattrs(&d, &c->meta)) {
    return Malformed("commit");
  }
  c->roots.clear();
  if ((version == kCommitV2 && !GetRoots(&d, &c->roots)) || !d.done()) return Malformed("commit");
  c->branch = std::string(branch);
  c->message = std::string(message);
  return Status::Ok();
}

std::string EncodeNode(const Node& n) {
  Encoder e;
  e.PutU8(kFormatV1);
  e.PutVarint(n.refs.size());
  for (const ObjectId& id : n.refs) e.PutId(id);
  e.PutBytes(n.data);
  return e.Take();
}

Status DecodeNode(std::string_view payload, Node* n) {
  Decoder d(payload);
  uint8_t version;
  uint64_t count;
  if (!d.GetU8(&version) || version != kFormatV1 || !d.GetVarint(&count) ||
      count > d.remaining() / 32) {
    return Malformed("node");
  }
  n->refs.resize(count);
  for (ObjectId& id : n->refs) {
    if (!d.GetId(&id)) return Malformed("node");
  }
  std::string_view data;
  if (!d.GetBytes(&data) || !d.done()) return Malformed("node");
  n->data = std::string(data);
  return Status::Ok();
}

ObjectId ComputeObjectId(ObjectType type, std::string_view payload) {
  Sha256 hasher;
  char tag = static_cast<char>(type);
  hasher.Update(std::string_view(&tag, 1));
  hasher.Update(payload);
  return hasher.Finish();
}

StoredParts EncodeStoredParts(const ObjectId& id, ObjectType type, std::string_view payload) {
  StoredParts parts;
  parts.compressed = MaybeCompress(payload);
  const bool raw = parts.compressed.empty();
  Encoder e;
  e.PutU8(static_cast<uint8_t>(type));
  if (type == ObjectType::kChunk && payload.size() > kPageBytes) {
    e.PutU8(raw ? kEncodingRawPaged : kEncodingZstdPaged);
    e.PutVarint(payload.size());
    for (uint64_t page = 0; page < PageCount(payload.size()); ++page) {
      e.PutFixed64LE(PageChecksum(id, type, payload, page));
    }
  } else {
    e.PutU8(raw ? kEncodingRawChecked : kEncodingZstdChecked);
    e.PutFixed64LE(PayloadChecksum(id, type, payload));
    if (!raw) e.PutVarint(payload.size());
  }
  parts.header = e.Take();
  return parts;
}

std::string EncodeStoredObject(const ObjectId& id, ObjectType type, std::string_view payload) {
  StoredParts parts = EncodeStoredParts(id, type, payload);
  return parts.header.append(parts.Body(payload));
}

std::vector<PreparedObject> PrepareObjects(ObjectType type,
                                           const std::vector<std::string_view>& payloads) {
  // Below this many payloads a thread costs more than it saves.
  constexpr size_t kPayloadsPerThread = 4;
  constexpr size_t kMaxThreads = 8;
  std::vector<PreparedObject> out(payloads.size());
  std::atomic<size_t> next{0};
  RunOnThreads(ThreadsFor(payloads.size(), kPayloadsPerThread, kMaxThreads), [&] {
    for (size_t i = next++; i < payloads.size(); i = next++) {
      out[i].id = ComputeObjectId(type, payloads[i]);
      out[i].parts = EncodeStoredParts(out[i].id, type, payloads[i]);
      out[i].payload = payloads[i];
    }
  });
  return out;
}

Status ObjectTable::PutPrepared(const PreparedObject& object) {
  VEXFS_ASSIGN_OR_RETURN(auto existing, txn_->Get(dbi_, object.id.AsBytes()));
  if (existing) return Status::Ok();
  return txn_->PutJoined(dbi_, object.id.AsBytes(),
                         {object.parts.header, object.parts.Body(object.payload)});
}

Result<ObjectId> ObjectTable::Put(ObjectType type, std::string_view payload) {
  ObjectId id = ComputeObjectId(type, payload);
  VEXFS_ASSIGN_OR_RETURN(auto existing, txn_->Get(dbi_, id.AsBytes()));
  if (existing) return id;
  StoredParts parts = EncodeStoredParts(id, type, payload);
  VEXFS_RETURN_IF_ERROR(txn_->PutJoined(dbi_, id.AsBytes(), {parts.header, parts.Body(payload)}));
  return id;
}

namespace {

// "object <id>", for error messages: built only when something is wrong, as
// every read of a chunk passes through here.
std::string Named(const ObjectId& id) { return "object " + id.ToHex(); }

// Inflates a zstd frame of `raw_size` bytes of object `id` into `scratch`.
Status Inflate(const ObjectId& id, std::string_view frame, uint64_t raw_size,
               std::string* scratch) {
  // The frame states its size too (the writer always records it): a damaged
  // length must not make a reader allocate up to the limit before failing.
  if (ZSTD_getFrameContentSize(frame.data(), frame.size()) != raw_size) {
    return Status::Corruption(Named(id) + " has a bad length");
  }
  scratch->resize(raw_size);
  size_t n = ZSTD_decompress(scratch->data(), raw_size, frame.data(), frame.size());
  if (ZSTD_isError(n) || n != raw_size) {
    return Status::Corruption(Named(id) + " does not decompress");
  }
  return Status::Ok();
}

}  // namespace

Status VerifyStoredRange(const ObjectId& id, std::string_view stored, ObjectType* type,
                         std::string* scratch, uint64_t from, uint64_t to,
                         std::string_view* payload, Verify depth) {
  Decoder d(stored);
  uint8_t tag, encoding;
  if (!d.GetU8(&tag) || !d.GetU8(&encoding)) {
    return Status::Corruption(Named(id) + " is truncated");
  }
  if (tag != 'c' && tag != 'f' && tag != 't' && tag != 'm' && tag != 'n') {
    return Status::Corruption(Named(id) + " has an unknown type tag");
  }
  *type = static_cast<ObjectType>(tag);
  const bool paged = encoding == kEncodingRawPaged || encoding == kEncodingZstdPaged;
  const bool checked = encoding == kEncodingRawChecked || encoding == kEncodingZstdChecked;
  uint64_t checksum = 0;
  uint64_t paged_size = 0;
  std::string_view page_sums;
  if (checked) {
    if (!d.GetFixed64LE(&checksum)) return Status::Corruption(Named(id) + " is truncated");
    encoding -= kEncodingRawChecked;  // the body is encoded as in 0 and 1
  } else if (paged) {
    if (!d.GetVarint(&paged_size) || paged_size > kMaxPayloadSize ||
        !d.GetRaw(PageCount(paged_size) * 8, &page_sums)) {
      return Status::Corruption(Named(id) + " has a bad length");
    }
    encoding -= kEncodingRawPaged;  // the body is the payload, raw or as a zstd frame
  }
  std::string_view body;
  d.GetRaw(d.remaining(), &body);
  if (paged && encoding == kEncodingRaw) {
    if (body.size() != paged_size) return Status::Corruption(Named(id) + " has a bad length");
    *payload = body;  // no copy: raw payloads are read where LMDB maps them
  } else if (paged && encoding == kEncodingZstd) {
    VEXFS_RETURN_IF_ERROR(Inflate(id, body, paged_size, scratch));
    *payload = *scratch;
  } else if (encoding == kEncodingRaw) {
    *payload = body;
  } else if (encoding == kEncodingZstd) {
    Decoder zd(body);
    uint64_t raw_size;
    if (!zd.GetVarint(&raw_size) || raw_size > kMaxPayloadSize) {
      return Status::Corruption(Named(id) + " has a bad length");
    }
    zd.GetRaw(zd.remaining(), &body);
    VEXFS_RETURN_IF_ERROR(Inflate(id, body, raw_size, scratch));
    *payload = *scratch;
  } else {
    return Status::Corruption(Named(id) + " has an unknown encoding");
  }
  const bool whole = depth == Verify::kFullHash;
  from = whole ? 0 : std::min<uint64_t>(from, payload->size());
  to = whole ? payload->size() : std::min<uint64_t>(to, payload->size());
  if (paged) {
    // Only the pages that hold [from, to) are checked, and only they returned.
    uint64_t first = from / kPageBytes, last = PageCount(to);
    for (uint64_t page = first; page < last && from < to; ++page) {
      uint64_t want = 0;
      Decoder(page_sums.substr(page * 8, 8)).GetFixed64LE(&want);
      if (PageChecksum(id, *type, *payload, page) != want) {
        return Status::Corruption(Named(id) + " does not match its checksum (page " +
                                  std::to_string(page) + ")");
      }
    }
  } else if (checked && PayloadChecksum(id, *type, *payload) != checksum) {
    return Status::Corruption(Named(id) + " does not match its checksum");
  }
  if ((!(checked || paged) || whole) && ComputeObjectId(*type, *payload) != id) {
    return Status::Corruption(Named(id) + " does not match its hash");
  }
  *payload = payload->substr(from, to - from);
  return Status::Ok();
}

Status VerifyStoredObjectView(const ObjectId& id, std::string_view stored, ObjectType* type,
                              std::string* scratch, std::string_view* payload, Verify depth) {
  return VerifyStoredRange(id, stored, type, scratch, 0, UINT64_MAX, payload, depth);
}

Status VerifyStoredObject(const ObjectId& id, std::string_view stored, ObjectType* type,
                          std::string* payload, Verify depth) {
  std::string scratch;
  std::string_view view;
  VEXFS_RETURN_IF_ERROR(VerifyStoredObjectView(id, stored, type, &scratch, &view, depth));
  if (view.data() == scratch.data()) {
    *payload = std::move(scratch);
  } else {
    payload->assign(view);
  }
  return Status::Ok();
}

Result<std::string_view> ObjectTable::View(const ObjectId& id, ObjectType expected,
                                           std::string* scratch) const {
  VEXFS_ASSIGN_OR_RETURN(auto stored, txn_->Get(dbi_, id.AsBytes()));
  if (!stored) return Status::NotFound(Named(id) + " is missing");
  ObjectType type;
  std::string_view payload;
  VEXFS_RETURN_IF_ERROR(VerifyStoredObjectView(id, *stored, &type, scratch, &payload));
  if (type != expected) {
    return Status::Corruption(Named(id) + " has an unexpected type");
  }
  return payload;
}

Result<std::string_view> ObjectTable::ViewRange(const ObjectId& id, ObjectType expected,
                                                uint64_t from, uint64_t to,
                                                std::string* scratch) const {
  VEXFS_ASSIGN_OR_RETURN(auto stored, txn_->Get(dbi_, id.AsBytes()));
  if (!stored) return Status::NotFound(Named(id) + " is missing");
  ObjectType type;
  std::string_view part;
  VEXFS_RETURN_IF_ERROR(
      VerifyStoredRange(id, *stored, &type, scratch, from, to, &part, Verify::kChecksum));
  if (type != expected) {
    return Status::Corruption(Named(id) + " has an unexpected type");
  }
  return part;
}

Result<std::string> ObjectTable::Get(const ObjectId& id, ObjectType expected) const {
  VEXFS_ASSIGN_OR_RETURN(auto stored, txn_->Get(dbi_, id.AsBytes()));
  if (!stored) return Status::NotFound(Named(id) + " is missing");
  ObjectType type;
  std::string payload;
  VEXFS_RETURN_IF_ERROR(VerifyStoredObject(id, *stored, &type, &payload));
  if (type != expected) {
    return Status::Corruption(Named(id) + " has type '" +
                              std::string(1, static_cast<char>(type)) + "', expected '" +
                              std::string(1, static_cast<char>(expected)) + "'");
  }
  return payload;
}

Result<bool> ObjectTable::Contains(const ObjectId& id) const {
  VEXFS_ASSIGN_OR_RETURN(auto stored, txn_->Get(dbi_, id.AsBytes()));
  return stored.has_value();
}

Result<Manifest> ObjectTable::GetManifest(const ObjectId& id) const {
  VEXFS_ASSIGN_OR_RETURN(std::string payload, Get(id, ObjectType::kManifest));
  Manifest m;
  VEXFS_RETURN_IF_ERROR(DecodeManifest(payload, &m).WithContext(id.ToHex()));
  return m;
}

Result<Tree> ObjectTable::GetTree(const ObjectId& id) const {
  VEXFS_ASSIGN_OR_RETURN(std::string payload, Get(id, ObjectType::kTree));
  Tree t;
  VEXFS_RETURN_IF_ERROR(DecodeTree(payload, &t).WithContext(id.ToHex()));
  return t;
}

Result<Commit> ObjectTable::GetCommit(const ObjectId& id) const {
  VEXFS_ASSIGN_OR_RETURN(std::string payload, Get(id, ObjectType::kCommit));
  Commit c;
  VEXFS_RETURN_IF_ERROR(DecodeCommit(payload, &c).WithContext(id.ToHex()));
  return c;
}

}  // namespace vexfs::internal

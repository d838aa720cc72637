// Tests for the on-disk encodings: inode, branch and directory-entry records and
// the manifest, tree and commit objects. Each must round-trip exactly, and every
// truncation or malformed variant must decode to kCorruption, never to a value.
// Also the object table's verification and key ordering.
#include <gtest/gtest.h>
#include <xxhash.h>

#include <set>
#include <string>
#include <vector>

#include "common/coding.h"
#include "common/sha256.h"
#include "store/objects.h"
#include "store/records.h"
#include "store/store_impl.h"
#include "test_util.h"

namespace vexfs::internal {
namespace {

ObjectId IdOf(std::string_view text) { return Sha256Of(text); }

// Every proper prefix of `encoded` must fail to decode.
template <typename T, typename DecodeFn>
void ExpectPrefixesRejected(const std::string& encoded, DecodeFn decode) {
  for (size_t n = 0; n < encoded.size(); ++n) {
    T value;
    EXPECT_CODE(decode(std::string_view(encoded).substr(0, n), &value),
                StatusCode::kCorruption)
        << "prefix of " << n << " bytes";
  }
  T value;
  EXPECT_CODE(decode(encoded + "x", &value), StatusCode::kCorruption) << "trailing byte";
}

InodeRecord SampleInode() {
  InodeRecord r;
  r.type = FileType::kSymlink;
  r.mode = 0777;
  r.uid = 1000;
  r.gid = 100;
  r.size = 11;
  r.nlink = 3;
  r.atime = -5;
  r.mtime = 1700000000123456789;
  r.ctime = 42;
  r.dirty = false;
  r.cached = IdOf("cached");
  r.parents = {1, 77, uint64_t{1} << 40};
  r.symlink_target = "some/target";
  return r;
}

TEST(RecordsTest, InodeRoundTrip) {
  InodeRecord in = SampleInode();
  InodeRecord out;
  ASSERT_OK(DecodeInode(EncodeInode(in), &out));
  EXPECT_EQ(out.type, in.type);
  EXPECT_EQ(out.mode, in.mode);
  EXPECT_EQ(out.uid, in.uid);
  EXPECT_EQ(out.gid, in.gid);
  EXPECT_EQ(out.size, in.size);
  EXPECT_EQ(out.nlink, in.nlink);
  EXPECT_EQ(out.atime, in.atime);
  EXPECT_EQ(out.mtime, in.mtime);
  EXPECT_EQ(out.ctime, in.ctime);
  EXPECT_EQ(out.dirty, in.dirty);
  EXPECT_EQ(out.cached, in.cached);
  EXPECT_EQ(out.parents, in.parents);
  EXPECT_EQ(out.symlink_target, in.symlink_target);
  // Decoding into a used record must not keep stale fields.
  InodeRecord plain;
  plain.dirty = true;
  ASSERT_OK(DecodeInode(EncodeInode(plain), &out));
  EXPECT_FALSE(out.cached.has_value());
  EXPECT_TRUE(out.dirty);
  EXPECT_TRUE(out.parents.empty());
  EXPECT_TRUE(out.symlink_target.empty());
}

TEST(RecordsTest, InodeDamageRejected) {
  std::string encoded = EncodeInode(SampleInode());
  ExpectPrefixesRejected<InodeRecord>(encoded, DecodeInode);
  InodeRecord out;
  std::string bad_type = encoded;
  bad_type[1] = 0;
  EXPECT_CODE(DecodeInode(bad_type, &out), StatusCode::kCorruption);
  std::string bad_version = encoded;
  bad_version[0] = 9;
  EXPECT_CODE(DecodeInode(bad_version, &out), StatusCode::kCorruption);
}

TEST(RecordsTest, BranchRoundTripAndDamage) {
  for (bool with_head : {false, true}) {
    BranchRecord in;
    in.id = 7;
    in.next_ino = 123456;
    in.created = 99;
    if (with_head) in.head = IdOf("head");
    std::string encoded = EncodeBranch(in);
    BranchRecord out;
    out.head = IdOf("stale");
    ASSERT_OK(DecodeBranch(encoded, &out));
    EXPECT_EQ(out.id, in.id);
    EXPECT_EQ(out.next_ino, in.next_ino);
    EXPECT_EQ(out.created, in.created);
    EXPECT_EQ(out.head, in.head);
    ExpectPrefixesRejected<BranchRecord>(encoded, DecodeBranch);
  }
}

TEST(RecordsTest, DirentRoundTripAndDamage) {
  DirentValue in{1ull << 50, FileType::kDirectory};
  std::string encoded = EncodeDirent(in);
  DirentValue out;
  ASSERT_OK(DecodeDirent(encoded, &out));
  EXPECT_EQ(out.ino, in.ino);
  EXPECT_EQ(out.type, in.type);
  ExpectPrefixesRejected<DirentValue>(encoded, DecodeDirent);
  std::string bad = encoded;
  bad.back() = 8;  // one past the last file type (block device)
  EXPECT_CODE(DecodeDirent(bad, &out), StatusCode::kCorruption);
  bad.back() = 0;
  EXPECT_CODE(DecodeDirent(bad, &out), StatusCode::kCorruption);
}

TEST(RecordsTest, DeviceInodesKeepTheirNumberAndOtherTypesStoreNone) {
  InodeRecord dev = SampleInode();
  dev.type = FileType::kBlockDevice;
  dev.symlink_target.clear();
  dev.size = 0;
  dev.rdev = (uint64_t{259} << 32) | 7;  // a number wider than 32 bits
  std::string encoded = EncodeInode(dev);
  InodeRecord out;
  ASSERT_OK(DecodeInode(encoded, &out));
  EXPECT_EQ(out.type, FileType::kBlockDevice);
  EXPECT_EQ(out.rdev, dev.rdev);
  ExpectPrefixesRejected<InodeRecord>(encoded, DecodeInode);  // a missing rdev too
  // A FIFO has no device number: none is written, and decoding clears a stale one.
  InodeRecord fifo = dev;
  fifo.type = FileType::kFifo;
  ASSERT_OK(DecodeInode(EncodeInode(fifo), &out));
  EXPECT_EQ(out.type, FileType::kFifo);
  EXPECT_EQ(out.rdev, 0u);
  EXPECT_LT(EncodeInode(fifo).size(), encoded.size());
  std::string bad_type = encoded;
  bad_type[1] = 8;
  EXPECT_CODE(DecodeInode(bad_type, &out), StatusCode::kCorruption);
}

TEST(RecordsTest, KeysSortNumerically) {
  EXPECT_LT(ChunkKey(1, 5, 255), ChunkKey(1, 5, 256));
  EXPECT_LT(InodeKey(1, 255), InodeKey(1, 256));
  EXPECT_LT(InodeKey(1, UINT64_MAX), InodeKey(2, 0));
  // Every key of a directory starts with its prefix, and no other directory's does.
  EXPECT_EQ(DirentKey(3, 9, "name").rfind(DirentPrefix(3, 9), 0), 0u);
  EXPECT_NE(DirentKey(3, 10, "name").rfind(DirentPrefix(3, 9), 0), 0u);
  EXPECT_EQ(DecodeBE64(std::string_view(InodeKey(3, 4242)).substr(4)), 4242u);
  EXPECT_EQ(BranchRef("x"), "branch/x");
  EXPECT_EQ(SnapshotRef("y"), "snap/y");
}

Manifest SampleManifest() {
  Manifest m;
  m.size = 3 * kChunkSize + 1;
  m.chunks = {IdOf("a"), ObjectId(), IdOf("c"), IdOf("d")};
  m.xattrs = {{"user.a", "1"}, {"user.b", std::string("\0\1", 2)}};
  return m;
}

TEST(ObjectsTest, ManifestRoundTripAndDamage) {
  Manifest in = SampleManifest();
  std::string encoded = EncodeManifest(in);
  Manifest out;
  ASSERT_OK(DecodeManifest(encoded, &out));
  EXPECT_EQ(out.size, in.size);
  EXPECT_EQ(out.chunk_size, in.chunk_size);
  EXPECT_EQ(out.chunks, in.chunks);
  EXPECT_EQ(out.xattrs, in.xattrs);
  ExpectPrefixesRejected<Manifest>(encoded, DecodeManifest);
  // A chunk count that does not fit the size is malformed.
  Manifest wrong = in;
  wrong.chunks.pop_back();
  EXPECT_CODE(DecodeManifest(EncodeManifest(wrong), &out), StatusCode::kCorruption);
  Manifest zero_chunk = in;
  zero_chunk.chunk_size = 0;
  EXPECT_CODE(DecodeManifest(EncodeManifest(zero_chunk), &out), StatusCode::kCorruption);
}

Tree SampleTree() {
  Tree t;
  t.entries.push_back({"a-dir", FileType::kDirectory, 0755, 1, 2, 10, 0, IdOf("t")});
  t.entries.push_back({"b-file", FileType::kRegular, 0644, 1, 2, -10, 12345, IdOf("f")});
  t.entries.push_back({"c-link", FileType::kSymlink, 0777, 0, 0, 0, 3, IdOf("l")});
  t.xattrs = {{"user.dir", "x"}};
  return t;
}

TEST(ObjectsTest, TreeRoundTripAndDamage) {
  Tree in = SampleTree();
  std::string encoded = EncodeTree(in);
  Tree out;
  ASSERT_OK(DecodeTree(encoded, &out));
  ASSERT_EQ(out.entries.size(), in.entries.size());
  for (size_t i = 0; i < in.entries.size(); ++i) {
    EXPECT_EQ(out.entries[i].name, in.entries[i].name);
    EXPECT_EQ(out.entries[i].type, in.entries[i].type);
    EXPECT_EQ(out.entries[i].mode, in.entries[i].mode);
    EXPECT_EQ(out.entries[i].mtime, in.entries[i].mtime);
    EXPECT_EQ(out.entries[i].size, in.entries[i].size);
    EXPECT_EQ(out.entries[i].id, in.entries[i].id);
  }
  EXPECT_EQ(out.xattrs, in.xattrs);
  ExpectPrefixesRejected<Tree>(encoded, DecodeTree);
  // Entries out of order or duplicated would break lookups by binary search.
  Tree unsorted = in;
  std::swap(unsorted.entries[0], unsorted.entries[1]);
  EXPECT_CODE(DecodeTree(EncodeTree(unsorted), &out), StatusCode::kCorruption);
  Tree duplicate = in;
  duplicate.entries[1].name = duplicate.entries[0].name;
  EXPECT_CODE(DecodeTree(EncodeTree(duplicate), &out), StatusCode::kCorruption);
}

TEST(ObjectsTest, TreeEntriesOfSpecialFilesCarryDevicesAndNoContent) {
  Tree in;
  in.entries.push_back({"a-fifo", FileType::kFifo, 0600, 1, 2, 5, 0, IdOf("m")});
  in.entries.push_back({"b-tty", FileType::kCharDevice, 0620, 0, 5, 6, 0, IdOf("m"),
                        (uint64_t{136} << 8) | 3});
  in.entries.push_back({"c-sock", FileType::kSocket, 0755, 0, 0, 7, 0, IdOf("m")});
  std::string encoded = EncodeTree(in);
  Tree out;
  ASSERT_OK(DecodeTree(encoded, &out));
  ASSERT_EQ(out.entries.size(), 3u);
  EXPECT_EQ(out.entries[0].type, FileType::kFifo);
  EXPECT_EQ(out.entries[1].type, FileType::kCharDevice);
  EXPECT_EQ(out.entries[1].rdev, in.entries[1].rdev);
  EXPECT_EQ(out.entries[2].type, FileType::kSocket);
  EXPECT_EQ(out.entries[2].rdev, 0u);
  ExpectPrefixesRejected<Tree>(encoded, DecodeTree);
  // A special file with a size would claim bytes that nothing can read.
  Tree sized = in;
  sized.entries[0].size = 1;
  EXPECT_CODE(DecodeTree(EncodeTree(sized), &out), StatusCode::kCorruption);
}

TEST(ObjectsTest, CommitRoundTripAndDamage) {
  Commit in;
  in.tree = IdOf("root");
  in.root = {"", FileType::kDirectory, 0755, 0, 0, 5, 0, in.tree};
  in.parents = {IdOf("p1"), IdOf("p2")};
  in.time = 123;
  in.branch = "main";
  in.message = "why";
  in.meta = {{"k", "v"}};
  std::string encoded = EncodeCommit(in);
  Commit out;
  ASSERT_OK(DecodeCommit(encoded, &out));
  EXPECT_EQ(out.tree, in.tree);
  EXPECT_EQ(out.root.id, in.root.id);
  EXPECT_EQ(out.parents, in.parents);
  EXPECT_EQ(out.time, in.time);
  EXPECT_EQ(out.branch, in.branch);
  EXPECT_EQ(out.message, in.message);
  EXPECT_EQ(out.meta, in.meta);
  ExpectPrefixesRejected<Commit>(encoded, DecodeCommit);
}

// Format 2: roots besides the file tree. Without them a commit keeps format 1's
// bytes (and so its id); with them every prefix and a bad root name are rejected.
TEST(ObjectsTest, CommitWithRootsRoundTripsAndStaysFormat1WithoutThem) {
  Commit in;
  in.tree = IdOf("root");
  in.root = {"", FileType::kDirectory, 0755, 0, 0, 5, 0, in.tree};
  std::string plain = EncodeCommit(in);
  EXPECT_EQ(plain[0], 1) << "a commit without extra roots is written as version 1";
  in.roots = {{"graph", IdOf("g")}, {"journal", IdOf("j")}};
  std::string encoded = EncodeCommit(in);
  EXPECT_EQ(encoded[0], 2);
  Commit out;
  ASSERT_OK(DecodeCommit(encoded, &out));
  EXPECT_EQ(out.roots, in.roots);
  ExpectPrefixesRejected<Commit>(encoded, DecodeCommit);
  ASSERT_OK(DecodeCommit(plain, &out));
  EXPECT_TRUE(out.roots.empty()) << "decoding clears roots left in the output";
  Commit bad = in;
  bad.roots = {{"Graph", IdOf("g")}};
  EXPECT_CODE(DecodeCommit(EncodeCommit(bad), &out), StatusCode::kCorruption);
  bad.roots = {{std::string(65, 'a'), IdOf("g")}};
  EXPECT_CODE(DecodeCommit(EncodeCommit(bad), &out), StatusCode::kCorruption);
}

TEST(ObjectsTest, NodeRoundTripAndDamage) {
  Node in;
  in.refs = {IdOf("a"), IdOf("b")};
  in.data = "extension bytes";
  std::string encoded = EncodeNode(in);
  Node out;
  ASSERT_OK(DecodeNode(encoded, &out));
  EXPECT_EQ(out.refs, in.refs);
  EXPECT_EQ(out.data, in.data);
  ExpectPrefixesRejected<Node>(encoded, DecodeNode);
  EXPECT_CODE(DecodeNode(encoded + "x", &out), StatusCode::kCorruption);
}

TEST(ObjectsTest, ObjectIdCoversTypeAndPayload) {
  EXPECT_EQ(ComputeObjectId(ObjectType::kChunk, "abc"), Sha256Of("cabc"));
  EXPECT_NE(ComputeObjectId(ObjectType::kChunk, "abc"),
            ComputeObjectId(ObjectType::kTree, "abc"));
}

class ObjectTableTest : public test::StoreTest {};

TEST_F(ObjectTableTest, PutIsIdempotentAndGetVerifies) {
  Txn txn;
  ASSERT_OK(internal::ImplOf(&store())->BeginTxn(&txn, true));
  ObjectTable objects(&txn, internal::ImplOf(&store())->dbs().objects);
  const std::string text(10000, 'z');  // compressible
  const std::string random = test::RandomBytes(1, 10000);
  ASSIGN_OR_FAIL(ObjectId a, objects.Put(ObjectType::kChunk, text));
  ASSIGN_OR_FAIL(ObjectId again, objects.Put(ObjectType::kChunk, text));
  ASSIGN_OR_FAIL(ObjectId b, objects.Put(ObjectType::kChunk, random));
  EXPECT_EQ(a, again);
  ASSIGN_OR_FAIL(std::string got_a, objects.Get(a, ObjectType::kChunk));
  ASSIGN_OR_FAIL(std::string got_b, objects.Get(b, ObjectType::kChunk));
  EXPECT_EQ(got_a, text);
  EXPECT_EQ(got_b, random);
  ASSIGN_OR_FAIL(auto stored, txn.Get(internal::ImplOf(&store())->dbs().objects, a.AsBytes()));
  ASSERT_TRUE(stored.has_value());
  EXPECT_LT(stored->size(), text.size() / 10);  // stored compressed
  EXPECT_CODE(objects.Get(a, ObjectType::kTree), StatusCode::kCorruption);
  EXPECT_CODE(objects.Get(IdOf("absent"), ObjectType::kChunk), StatusCode::kNotFound);
  EXPECT_CODE(objects.GetTree(a), StatusCode::kCorruption);
  ASSIGN_OR_FAIL(bool has, objects.Contains(b));
  EXPECT_TRUE(has);
  // Empty payloads are legal objects.
  ASSIGN_OR_FAIL(ObjectId empty, objects.Put(ObjectType::kChunk, ""));
  ASSIGN_OR_FAIL(std::string got_empty, objects.Get(empty, ObjectType::kChunk));
  EXPECT_EQ(got_empty, "");
}

// Put and PutPrepared copy header and body straight into the map: what they
// store must be exactly the one-string encoding, in each of the four encodings
// (raw or zstd; one checksum or one per page), and an empty payload too.
TEST_F(ObjectTableTest, PutsStoreExactlyTheEncodedObject) {
  Txn txn;
  ASSERT_OK(internal::ImplOf(&store())->BeginTxn(&txn, true));
  const MDB_dbi dbi = internal::ImplOf(&store())->dbs().objects;
  ObjectTable objects(&txn, dbi);
  const std::vector<std::string> payloads = {
      std::string(3000, 'a'), test::RandomBytes(2, 3000),     // one checksum
      std::string(70000, 'b'), test::RandomBytes(3, 70000),  // a checksum per page
      ""};
  auto expect_stored = [&](const ObjectId& id, const std::string& payload) {
    ASSIGN_OR_FAIL(auto stored, txn.Get(dbi, id.AsBytes()));
    ASSERT_TRUE(stored.has_value());
    EXPECT_EQ(*stored, EncodeStoredObject(id, ObjectType::kChunk, payload));
  };
  std::set<char> encodings;
  for (const std::string& payload : payloads) {
    ASSIGN_OR_FAIL(ObjectId id, objects.Put(ObjectType::kChunk, payload));
    expect_stored(id, payload);
    encodings.insert(EncodeStoredObject(id, ObjectType::kChunk, payload)[1]);
  }
  EXPECT_EQ(encodings.size(), 4u) << "the payloads should cover every encoding";
  std::vector<std::string> fresh;
  for (const std::string& payload : payloads) fresh.push_back(payload + "!");
  std::vector<std::string_view> views(fresh.begin(), fresh.end());
  std::vector<PreparedObject> prepared = PrepareObjects(ObjectType::kChunk, views);
  for (size_t i = 0; i < prepared.size(); ++i) {
    ASSERT_OK(objects.PutPrepared(prepared[i]));
    expect_stored(prepared[i].id, fresh[i]);
  }
}

// What Put writes now: a checksum (encodings 2 and 3). Every single-bit flip of
// a stored object that changes its payload, and the right bytes under another id,
// fail the fast check.
TEST_F(ObjectTableTest, ChecksummedObjectsRejectEveryFlippedBit) {
  Txn txn;
  ASSERT_OK(internal::ImplOf(&store())->BeginTxn(&txn, true));
  ObjectTable objects(&txn, internal::ImplOf(&store())->dbs().objects);
  const std::string compressible(300, 'q');
  const std::string incompressible = test::RandomBytes(3, 200);
  for (const std::string& payload : {compressible, incompressible}) {
    ASSIGN_OR_FAIL(ObjectId id, objects.Put(ObjectType::kChunk, payload));
    ASSIGN_OR_FAIL(auto stored, txn.Get(internal::ImplOf(&store())->dbs().objects, id.AsBytes()));
    ASSERT_TRUE(stored.has_value());
    const std::string good(*stored);
    EXPECT_EQ(good[1], payload == compressible ? 3 : 2);  // zstd / raw, checksummed
    ObjectType type;
    std::string out;
    ASSERT_OK(VerifyStoredObject(id, good, &type, &out));
    EXPECT_EQ(out, payload);
    for (size_t bit = 0; bit < good.size() * 8; ++bit) {
      std::string flipped = good;
      flipped[bit / 8] ^= static_cast<char>(1 << (bit % 8));
      Status st = VerifyStoredObject(id, flipped, &type, &out);
      // A few bits of a zstd frame's header do not change what it decodes to;
      // such a flip damages nothing and reads the exact payload.
      bool harmless = st.ok() && out == payload && payload == compressible;
      if (!harmless) {
        EXPECT_CODE(st, StatusCode::kCorruption) << "bit " << bit;
      }
    }
    ObjectId other = ComputeObjectId(ObjectType::kChunk, "another object");
    EXPECT_CODE(VerifyStoredObject(other, good, &type, &out), StatusCode::kCorruption);
  }
}

// A checksum that agrees with changed bytes (only a deliberate forgery gets
// there) fools the fast check; the full check, fsck's, recomputes the SHA-256 id.
// A chunk as encoding 2 stores it (the documented layout: tag, encoding 2,
// XXH3-64 little-endian of the payload seeded with the id's first 8 bytes
// little-endian XOR the tag, payload), with the checksum of `checked` and `body`
// as the payload.
std::string Encoding2Chunk(const ObjectId& id, const std::string& checked,
                           const std::string& body) {
  uint64_t seed = 0;
  for (int i = 7; i >= 0; --i) seed = seed << 8 | id.bytes[i];
  seed ^= 'c';
  uint64_t sum = XXH3_64bits_withSeed(checked.data(), checked.size(), seed);
  std::string le;
  for (int i = 0; i < 8; ++i) le.push_back(static_cast<char>(sum >> (8 * i)));
  return std::string("c\x02", 2) + le + body;
}

TEST_F(ObjectTableTest, FullVerifyRecomputesTheHash) {
  Txn txn;
  ASSERT_OK(internal::ImplOf(&store())->BeginTxn(&txn, true));
  ObjectTable objects(&txn, internal::ImplOf(&store())->dbs().objects);
  const std::string payload = test::RandomBytes(4, 200);
  ASSIGN_OR_FAIL(ObjectId id, objects.Put(ObjectType::kChunk, payload));
  ASSIGN_OR_FAIL(auto stored, txn.Get(internal::ImplOf(&store())->dbs().objects, id.AsBytes()));
  auto checksummed = [&](const std::string& bytes) { return Encoding2Chunk(id, bytes, bytes); };
  EXPECT_EQ(std::string(*stored), checksummed(payload));
  std::string changed = payload;
  changed[0] ^= 0x55;
  ObjectType type;
  std::string out;
  EXPECT_OK(VerifyStoredObject(id, checksummed(changed), &type, &out));
  EXPECT_CODE(VerifyStoredObject(id, checksummed(changed), &type, &out, Verify::kFullHash),
              StatusCode::kCorruption);
  EXPECT_OK(VerifyStoredObject(id, *stored, &type, &out, Verify::kFullHash));
}

// Chunks that stores wrote before page checksums (encoding 2, one checksum for the
// whole payload) still read in ranges, each range checked against that checksum.
TEST_F(ObjectTableTest, ChunksWithOneChecksumStillReadInRanges) {
  Txn txn;
  ASSERT_OK(internal::ImplOf(&store())->BeginTxn(&txn, true));
  ObjectTable objects(&txn, internal::ImplOf(&store())->dbs().objects);
  const std::string payload = test::RandomBytes(51, 64 * 1024);
  const ObjectId id = ComputeObjectId(ObjectType::kChunk, payload);
  // `bytes` stored under the checksum the writer recorded for `payload`.
  auto encoding2 = [&](const std::string& bytes) { return Encoding2Chunk(id, payload, bytes); };
  ASSERT_OK(txn.Put(internal::ImplOf(&store())->dbs().objects, id.AsBytes(), encoding2(payload)));
  std::string scratch;
  ASSIGN_OR_FAIL(std::string_view part, objects.ViewRange(id, ObjectType::kChunk, 5000, 9000,
                                                          &scratch));
  EXPECT_EQ(part, std::string_view(payload).substr(5000, 4000));
  // Damage far from the range still fails it: the one checksum covers it all.
  std::string damaged = payload;
  damaged[60000] ^= 1;
  ASSERT_OK(txn.Put(internal::ImplOf(&store())->dbs().objects, id.AsBytes(), encoding2(damaged)));
  EXPECT_CODE(objects.ViewRange(id, ObjectType::kChunk, 5000, 9000, &scratch),
              StatusCode::kCorruption);
}

// Encodings 0 and 1 (no checksum, as early stores hold them) are still read, and
// checked by recomputing the SHA-256 id.
TEST(VerifyStoredObjectTest, RejectsDamage) {
  const std::string payload = "payload bytes";
  const ObjectId id = ComputeObjectId(ObjectType::kChunk, payload);
  ObjectType type;
  std::string out;
  const std::string good = std::string("c\x00", 2) + payload;
  ASSERT_OK(VerifyStoredObject(id, good, &type, &out));
  EXPECT_EQ(type, ObjectType::kChunk);
  EXPECT_EQ(out, payload);
  for (size_t n = 0; n < good.size(); ++n) {
    EXPECT_CODE(VerifyStoredObject(id, good.substr(0, n), &type, &out),
                StatusCode::kCorruption);
  }
  std::string flipped = good;
  flipped[5] ^= 1;
  EXPECT_CODE(VerifyStoredObject(id, flipped, &type, &out), StatusCode::kCorruption);
  std::string retagged = good;
  retagged[0] = 't';  // right bytes, wrong type: the id covers the type too
  EXPECT_CODE(VerifyStoredObject(id, retagged, &type, &out), StatusCode::kCorruption);
  std::string bad_encoding = good;
  bad_encoding[1] = 7;
  EXPECT_CODE(VerifyStoredObject(id, bad_encoding, &type, &out), StatusCode::kCorruption);
}

TEST(VerifyStoredObjectTest, ACompressedObjectsLengthMustMatchItsFrame) {
  // A tree: chunks of more than a page carry page checksums (encoding 5, below).
  const std::string payload(8192, 'z');  // compresses well, so it is stored zstd
  const ObjectId id = ComputeObjectId(ObjectType::kTree, payload);
  const std::string good = EncodeStoredObject(id, ObjectType::kTree, payload);
  ObjectType type;
  std::string out;
  ASSERT_OK(VerifyStoredObject(id, good, &type, &out));
  ASSERT_EQ(good[1], 3) << "expected the zstd, checksummed encoding";
  EXPECT_EQ(out, payload);
  // The length varint after the checksum claims 1 GiB: refused before the
  // reader allocates it, because the frame says 8192.
  Encoder lying;
  lying.PutRaw(std::string_view(good).substr(0, 10));
  lying.PutVarint(uint64_t{1} << 30);
  Decoder d(std::string_view(good).substr(10));
  uint64_t real_size = 0;
  ASSERT_TRUE(d.GetVarint(&real_size));
  EXPECT_EQ(real_size, payload.size());
  std::string_view frame;
  d.GetRaw(d.remaining(), &frame);
  lying.PutRaw(frame);
  Status st = VerifyStoredObject(id, lying.data(), &type, &out);
  EXPECT_EQ(st.code(), StatusCode::kCorruption);
  EXPECT_NE(st.message().find("bad length"), std::string::npos) << st.ToString();
}

// `payload` as the object table stores a chunk, checked to be in `encoding` and
// to read back whole.
std::string StoredChunk(const std::string& payload, char encoding) {
  const ObjectId id = ComputeObjectId(ObjectType::kChunk, payload);
  std::string stored = EncodeStoredObject(id, ObjectType::kChunk, payload);
  EXPECT_EQ(stored[1], encoding) << "an unexpected encoding";
  ObjectType type;
  std::string out;
  EXPECT_OK(VerifyStoredObject(id, stored, &type, &out, Verify::kFullHash));
  EXPECT_EQ(out, payload);
  return stored;
}

// Chunks of more than a page are stored with a checksum per 4 KiB page
// (encodings 4 and 5): a ranged read checks only the pages it returns.
TEST(VerifyStoredObjectTest, PageChecksumsCheckWhatARangedReadReturns) {
  const std::string payload = test::RandomBytes(41, 16 * 4096 + 100);  // 17 pages
  const ObjectId id = ComputeObjectId(ObjectType::kChunk, payload);
  const std::string good = StoredChunk(payload, 4);  // raw, paged
  ObjectType type;
  std::string out, scratch;
  std::string_view part;
  ASSERT_OK(VerifyStoredRange(id, good, &type, &scratch, 3 * 4096 + 5, 5 * 4096, &part,
                              Verify::kChecksum));
  EXPECT_EQ(part, std::string_view(payload).substr(3 * 4096 + 5, 2 * 4096 - 5));
  ASSERT_OK(VerifyStoredRange(id, good, &type, &scratch, 16 * 4096, UINT64_MAX, &part,
                              Verify::kChecksum));
  EXPECT_EQ(part, std::string_view(payload).substr(16 * 4096));  // short at the end
  // A damaged byte in page 10: reads that return it fail and name the page; a
  // read of other pages returns good bytes; full reads and fsck fail.
  const size_t header = good.size() - payload.size();
  std::string damaged = good;
  damaged[header + 10 * 4096 + 77] ^= 0x20;
  EXPECT_CODE(VerifyStoredObject(id, damaged, &type, &out), StatusCode::kCorruption);
  EXPECT_CODE(VerifyStoredObject(id, damaged, &type, &out, Verify::kFullHash),
              StatusCode::kCorruption);
  Status st = VerifyStoredRange(id, damaged, &type, &scratch, 10 * 4096 + 70, 10 * 4096 + 80,
                                &part, Verify::kChecksum);
  EXPECT_EQ(st.code(), StatusCode::kCorruption);
  EXPECT_NE(st.message().find("page 10"), std::string::npos) << st.ToString();
  ASSERT_OK(VerifyStoredRange(id, damaged, &type, &scratch, 0, 4096, &part, Verify::kChecksum));
  EXPECT_EQ(part, std::string_view(payload).substr(0, 4096));
  // Two pages swapped with their checksums: each checksum is seeded with its
  // page number, so both are caught.
  std::string swapped = good;
  swapped.replace(header + 2 * 4096, 4096, payload, 4 * 4096, 4096);
  swapped.replace(header + 4 * 4096, 4096, payload, 2 * 4096, 4096);
  std::string sums = swapped.substr(header - 17 * 8, 17 * 8);
  swapped.replace(header - 17 * 8 + 2 * 8, 8, sums, 4 * 8, 8);
  swapped.replace(header - 17 * 8 + 4 * 8, 8, sums, 2 * 8, 8);
  EXPECT_CODE(VerifyStoredRange(id, swapped, &type, &scratch, 2 * 4096, 3 * 4096, &part,
                                Verify::kChecksum),
              StatusCode::kCorruption);
  // Every truncation is refused.
  for (size_t n = 0; n < good.size(); n += 97) {
    EXPECT_CODE(VerifyStoredObject(id, good.substr(0, n), &type, &out), StatusCode::kCorruption)
        << n;
  }
}

TEST(VerifyStoredObjectTest, APagedCompressedChunkIsRefusedBeforeAHugeAllocation) {
  const std::string payload(12000, 'w');
  const ObjectId id = ComputeObjectId(ObjectType::kChunk, payload);
  const std::string good = StoredChunk(payload, 5);  // zstd, paged
  ObjectType type;
  std::string out, scratch;
  std::string_view part;
  ASSERT_OK(VerifyStoredRange(id, good, &type, &scratch, 5000, 6000, &part, Verify::kChecksum));
  EXPECT_EQ(part, std::string(1000, 'w'));
  // The length claims more than there are checksums, or more than the frame holds.
  for (uint64_t claim : {uint64_t{1} << 30, uint64_t{12001}, uint64_t{4097}}) {
    Encoder lying;
    lying.PutRaw(std::string_view(good).substr(0, 2));
    lying.PutVarint(claim);
    Decoder d(std::string_view(good).substr(2));
    uint64_t real = 0;
    ASSERT_TRUE(d.GetVarint(&real));
    std::string_view rest;
    d.GetRaw(d.remaining(), &rest);
    lying.PutRaw(rest);
    Status st = VerifyStoredObject(id, lying.data(), &type, &out);
    EXPECT_EQ(st.code(), StatusCode::kCorruption) << claim;
    EXPECT_NE(st.message().find("bad length"), std::string::npos) << st.ToString();
  }
}

// Snapshots (record to tree entry), restores (tree entry to record) and stat
// (record or tree entry to Attributes) all copy through CopySharedAttributes:
// every shared field must arrive, each a value no default holds.
TEST(RecordsTest, SharedAttributesSurviveEveryConversion) {
  InodeRecord rec;
  rec.type = FileType::kBlockDevice;
  rec.mode = 0640;
  rec.uid = 1001;
  rec.gid = 1002;
  rec.mtime = 1700000000123456789;
  rec.size = 4242;
  rec.rdev = (uint64_t{8} << 8) | 1;
  TreeEntry entry;
  CopySharedAttributes(rec, &entry);
  InodeRecord restored;
  CopySharedAttributes(entry, &restored);
  Attributes from_entry;
  CopySharedAttributes(entry, &from_entry);
  for (const Attributes& a : {restored.ToAttributes(7), from_entry}) {
    EXPECT_EQ(a.type, FileType::kBlockDevice);
    EXPECT_EQ(a.mode, 0640u);
    EXPECT_EQ(a.uid, 1001u);
    EXPECT_EQ(a.gid, 1002u);
    EXPECT_EQ(a.mtime, 1700000000123456789);
    EXPECT_EQ(a.size, 4242u);
    EXPECT_EQ(a.rdev, (uint64_t{8} << 8) | 1);
  }
  EXPECT_EQ(restored.ToAttributes(7).ino, 7u);
}

}  // namespace
}  // namespace vexfs::internal

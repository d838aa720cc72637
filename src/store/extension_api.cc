// The free functions of the public extension interface (vexfs/extension.h): key
// prefixes, change entries, feed subscriptions, registering and attaching.
#include "common/coding.h"
#include "store/change_feed.h"
#include "store/extension.h"
#include "store/records.h"
#include "store/store_impl.h"

namespace vexfs {

std::string BranchKeyPrefix(uint32_t branch) { return internal::BranchPrefix(branch); }

std::string InodeKeyPrefix(uint32_t branch, uint64_t ino) {
  return internal::InodeKey(branch, ino);
}

bool DecodeInodeKeyPrefix(std::string_view key, uint32_t* branch, uint64_t* ino) {
  Decoder d(key);
  return d.GetFixed32BE(branch) && d.GetFixed64BE(ino);
}

std::string FileChangeEntry(uint32_t branch, uint64_t ino) {
  return static_cast<char>(ChangeKind::kFile) + InodeKeyPrefix(branch, ino);
}

std::string TreeChangeEntry(uint32_t branch) {
  return static_cast<char>(ChangeKind::kTree) + BranchKeyPrefix(branch);
}

std::string SnapshotChangeEntry(const ObjectId& commit) {
  return static_cast<char>(ChangeKind::kSnapshot) + std::string(commit.AsBytes());
}

namespace {

// Posting and consuming need a subscription and a transaction that runs.
Status CheckUsable(const FeedSubscription& sub, const StoreTxn& txn) {
  if (!sub.valid()) return Status::InvalidArgument("not a feed subscription");
  if (!txn.active()) return Status::InvalidArgument("the transaction has not begun or has ended");
  return Status::Ok();
}

}  // namespace

Status FeedSubscription::Post(StoreTxn* txn, std::string_view entry) const {
  VEXFS_RETURN_IF_ERROR(CheckUsable(*this, *txn));
  return internal::FeedSet(feed_.handle(), id_).Post(&internal::StoreTxnAccess::txn(*txn), entry);
}

Result<bool> FeedSubscription::ConsumeIfUnchanged(StoreTxn* txn, std::string_view entry,
                                                  std::string_view stamp) const {
  VEXFS_RETURN_IF_ERROR(CheckUsable(*this, *txn));
  return internal::FeedSet(feed_.handle(), id_)
      .ConsumeIfUnchanged(&internal::StoreTxnAccess::txn(*txn), entry, stamp);
}

Result<std::vector<FeedItem>> FeedSubscription::Peek(const StoreTxn& txn, std::string_view prefix,
                                                     size_t limit) const {
  internal::FeedSet set(feed_.handle(), id_);
  std::string start = set.Key(prefix);
  TableCursor cursor;
  VEXFS_RETURN_IF_ERROR(cursor.Open(txn, feed_));
  VEXFS_ASSIGN_OR_RETURN(bool more, cursor.Seek(start));
  std::vector<FeedItem> out;
  while (more && out.size() < limit && cursor.key().starts_with(start)) {
    out.push_back({std::string(set.EntryOf(cursor.key())), std::string(cursor.value())});
    VEXFS_ASSIGN_OR_RETURN(more, cursor.Next());
  }
  return out;
}

Result<uint64_t> FeedSubscription::Pending(const StoreTxn& txn) const {
  if (!txn.active()) return Status::InvalidArgument("the transaction has not begun or has ended");
  return internal::FeedSet(feed_.handle(), id_).Pending(internal::StoreTxnAccess::txn(txn));
}

Result<std::vector<Table>> RegisterTables(Store* store, const std::vector<TableSpec>& specs) {
  VEXFS_ASSIGN_OR_RETURN(auto dbis, internal::ImplOf(store)->RegisterTables(specs));
  std::vector<Table> out;
  out.reserve(dbis.size());
  for (MDB_dbi dbi : dbis) out.emplace_back(dbi);
  return out;
}

Status AttachExtension(Store* store, std::shared_ptr<Extension> extension) {
  return internal::ImplOf(store)->Attach(std::move(extension));
}

std::shared_ptr<Extension> FindExtension(Store* store, std::string_view name) {
  return internal::ImplOf(store)->FindExtension(name);
}

bool IsReadOnly(Store* store) { return internal::ImplOf(store)->lmdb().read_only(); }

Result<std::vector<ExtensionRegistration>> RegisteredExtensions(Store* store) {
  return internal::ImplOf(store)->RegisteredExtensions();
}

}  // namespace vexfs

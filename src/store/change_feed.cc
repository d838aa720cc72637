// The change feed's keys, subscriptions, posting and consuming.
#include "store/change_feed.h"

#include <algorithm>

#include "common/coding.h"
#include "store/extension.h"
#include "store/records.h"
#include "store/store_impl.h"

namespace vexfs::internal {
namespace {

std::string TxnStamp(const Txn& txn) {
  Encoder e;
  e.PutFixed64BE(mdb_txn_id(txn.raw()));
  return e.Take();
}

std::string SubscriberPrefix(uint16_t id) {
  std::string out(2, '\0');
  out[0] = static_cast<char>(id >> 8);
  out[1] = static_cast<char>(id & 0xff);
  return out;
}

Result<uint16_t> DecodeSubscriberId(std::string_view key, std::string_view raw) {
  if (raw.size() != 2) return Status::Corruption("store meta '" + std::string(key) + "' is malformed");
  return static_cast<uint16_t>((static_cast<uint8_t>(raw[0]) << 8) | static_cast<uint8_t>(raw[1]));
}

Result<uint16_t> AllocateSubscriberId(Txn* txn, const Databases& dbs) {
  VEXFS_ASSIGN_OR_RETURN(auto raw, txn->Get(dbs.meta, kMetaNextFeedId));
  uint16_t id = 1;
  if (raw) {
    VEXFS_ASSIGN_OR_RETURN(id, DecodeSubscriberId(kMetaNextFeedId, *raw));
  }
  if (id == 0xffff) return Status::NoSpace("the store has 65534 feed subscribers already");
  VEXFS_RETURN_IF_ERROR(txn->Put(dbs.meta, kMetaNextFeedId, SubscriberPrefix(id + 1)));
  return id;
}

}  // namespace

uint32_t BranchOfEntry(std::string_view entry) {
  Decoder d(entry.substr(std::min<size_t>(1, entry.size())));
  uint32_t id = 0;
  return d.GetFixed32BE(&id) ? id : 0;
}

Result<std::pair<uint16_t, bool>> Subscribe(Txn* txn, const Databases& dbs,
                                            std::string_view name) {
  VEXFS_RETURN_IF_ERROR(ValidateExtensionName(name, "feed subscriber"));
  std::string key = std::string(kMetaFeedPrefix) + std::string(name);
  VEXFS_ASSIGN_OR_RETURN(auto raw, txn->Get(dbs.meta, key));
  if (raw) {
    VEXFS_ASSIGN_OR_RETURN(uint16_t id, DecodeSubscriberId(key, *raw));
    return std::pair<uint16_t, bool>(id, false);
  }
  VEXFS_ASSIGN_OR_RETURN(uint16_t id, AllocateSubscriberId(txn, dbs));
  VEXFS_RETURN_IF_ERROR(txn->Put(dbs.meta, key, SubscriberPrefix(id)));
  return std::pair<uint16_t, bool>(id, true);
}

Result<std::optional<uint16_t>> FindSubscriber(const Txn& txn, const Databases& dbs,
                                               std::string_view name) {
  std::string key = std::string(kMetaFeedPrefix) + std::string(name);
  VEXFS_ASSIGN_OR_RETURN(auto raw, txn.Get(dbs.meta, key));
  if (!raw) return std::optional<uint16_t>();
  VEXFS_ASSIGN_OR_RETURN(uint16_t id, DecodeSubscriberId(key, *raw));
  return std::optional<uint16_t>(id);
}

Status Unsubscribe(Txn* txn, const Databases& dbs, std::string_view name) {
  VEXFS_ASSIGN_OR_RETURN(auto id, FindSubscriber(*txn, dbs, name));
  if (!id) return Status::Ok();
  VEXFS_RETURN_IF_ERROR(DeletePrefix(txn, dbs.feed, SubscriberPrefix(*id)));
  std::string key = std::string(kMetaFeedPrefix) + std::string(name);
  return txn->Delete(dbs.meta, key).status();
}

Result<std::vector<uint16_t>> ListSubscribers(const Txn& txn, const Databases& dbs) {
  VEXFS_ASSIGN_OR_RETURN(auto rows, ScanPrefix(txn, dbs.meta, kMetaFeedPrefix));
  std::vector<uint16_t> out;
  for (const auto& [key, value] : rows) {
    VEXFS_ASSIGN_OR_RETURN(uint16_t id, DecodeSubscriberId(key, value));
    out.push_back(id);
  }
  return out;
}

Status PostToAll(Txn* txn, const Databases& dbs, const std::vector<uint16_t>& subscribers,
                 std::string_view entry) {
  for (uint16_t id : subscribers) {
    VEXFS_RETURN_IF_ERROR(FeedSet(dbs.feed, id).Post(txn, entry));
  }
  return Status::Ok();
}

Status PostToBehind(Txn* txn, const Databases& dbs, uint32_t branch, std::string_view entry) {
  VEXFS_ASSIGN_OR_RETURN(auto subscribers, ListSubscribers(*txn, dbs));
  for (uint16_t id : subscribers) {
    FeedSet sub(dbs.feed, id);
    VEXFS_ASSIGN_OR_RETURN(bool behind, sub.HasBranchChanges(*txn, branch));
    if (behind) VEXFS_RETURN_IF_ERROR(sub.Post(txn, entry));
  }
  return Status::Ok();
}

FeedSet::FeedSet(MDB_dbi feed, uint16_t id)
    : feed_(feed), prefix_(SubscriberPrefix(id)) {}

std::string FeedSet::Key(std::string_view entry) const {
  std::string key = prefix_;
  key.append(entry);
  return key;
}

Status FeedSet::Post(Txn* txn, std::string_view entry) const {
  return txn->Put(feed_, Key(entry), TxnStamp(*txn));
}

Result<bool> FeedSet::ConsumeIfUnchanged(Txn* txn, std::string_view entry,
                                                  std::string_view stamp) const {
  std::string key = Key(entry);
  VEXFS_ASSIGN_OR_RETURN(auto now, txn->Get(feed_, key));
  if (!now || *now != stamp) return false;
  return txn->Delete(feed_, key);
}

Result<uint64_t> FeedSet::Pending(const Txn& txn) const {
  Cursor cursor;
  VEXFS_RETURN_IF_ERROR(cursor.Open(txn, feed_));
  VEXFS_ASSIGN_OR_RETURN(bool more, cursor.Seek(prefix_));
  uint64_t n = 0;
  while (more && cursor.key().starts_with(prefix_)) {
    ++n;
    VEXFS_ASSIGN_OR_RETURN(more, cursor.Next());
  }
  return n;
}

Result<bool> FeedSet::HasBranchChanges(const Txn& txn, uint32_t branch) const {
  VEXFS_ASSIGN_OR_RETURN(auto whole, txn.Get(feed_, Key(TreeChangeEntry(branch))));
  if (whole) return true;
  Cursor cursor;
  VEXFS_RETURN_IF_ERROR(cursor.Open(txn, feed_));
  std::string files = Key(static_cast<char>(ChangeKind::kFile) + BranchPrefix(branch));
  VEXFS_ASSIGN_OR_RETURN(bool found, cursor.Seek(files));
  return found && cursor.key().starts_with(files);
}

}  // namespace vexfs::internal

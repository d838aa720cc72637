// The change feed: for each subscriber, a durable set of what write transactions
// changed that it has not consumed yet. The store posts to it inside the very
// transaction that makes the change, so a crash can never lose the fact that
// something changed; a subscriber (the search index, anything derived from the
// files) consumes entries at its own pace and removes each only if nobody posted
// it again meanwhile. Entries are a set, not a log: a file changed a thousand
// times before its subscriber looks is one entry.
//
// Layout (docs/format.md): table "feed", key = be16 subscriber id + entry, value =
// the LMDB id of the transaction that last posted it (be64, the "stamp").
// Subscribers are recorded in meta as "feed/<name>" -> be16 id.
//
// Entries start with their kind (ChangeKind and its encoders are public, in
// vexfs/extension.h); a subscriber may post its own work items to its own set
// with any other first byte.
#ifndef VEXFS_STORE_CHANGE_FEED_H_
#define VEXFS_STORE_CHANGE_FEED_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/lmdb.h"
#include "vexfs/extension.h"
#include "vexfs/status.h"
#include "vexfs/types.h"

namespace vexfs::internal {

// The branch of a kFile or kTree entry (0 if the entry is too short).
uint32_t BranchOfEntry(std::string_view entry);

// Subscribes `name` (1-64 bytes of [a-z0-9_]). Returns its id and whether the
// subscription is new: a new subscriber has missed everything before it.
Result<std::pair<uint16_t, bool>> Subscribe(Txn* txn, const Databases& dbs,
                                            std::string_view name);
// The id of subscriber `name`, or nullopt if it never subscribed.
Result<std::optional<uint16_t>> FindSubscriber(const Txn& txn, const Databases& dbs,
                                               std::string_view name);
// Ends subscription `name` and deletes everything waiting in its set; a no-op
// if it does not exist. Its id is never given out again.
Status Unsubscribe(Txn* txn, const Databases& dbs, std::string_view name);
// Every subscriber's id.
Result<std::vector<uint16_t>> ListSubscribers(const Txn& txn, const Databases& dbs);

// Posting, by the store. `subscribers` is ListSubscribers of this transaction.
Status PostToAll(Txn* txn, const Databases& dbs, const std::vector<uint16_t>& subscribers,
                 std::string_view entry);
// Posts `entry` to each subscriber that still has a kFile or kTree entry of
// `branch`: what it has not consumed may have changed by the time it reads.
Status PostToBehind(Txn* txn, const Databases& dbs, uint32_t branch, std::string_view entry);

// One subscriber's view of its set (the public FeedSubscription wraps it).
class FeedSet {
 public:
  FeedSet() = default;
  FeedSet(MDB_dbi feed, uint16_t id);

  std::string Key(std::string_view entry) const;  // the table key of `entry`
  std::string_view EntryOf(std::string_view key) const { return key.substr(2); }
  const std::string& prefix() const { return prefix_; }
  MDB_dbi table() const { return feed_; }

  // Adds `entry` (or re-stamps it) in this subscriber's set.
  Status Post(Txn* txn, std::string_view entry) const;
  // Removes `entry` if its stamp is still `stamp`; true if it did.
  Result<bool> ConsumeIfUnchanged(Txn* txn, std::string_view entry,
                                  std::string_view stamp) const;
  // Entries waiting.
  Result<uint64_t> Pending(const Txn& txn) const;
  // True if a kFile or kTree entry of `branch` waits.
  Result<bool> HasBranchChanges(const Txn& txn, uint32_t branch) const;

 private:
  MDB_dbi feed_ = 0;
  std::string prefix_;
};

}  // namespace vexfs::internal

#endif  // VEXFS_STORE_CHANGE_FEED_H_

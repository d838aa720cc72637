// StoreTxn and TableCursor (vexfs/extension.h): the public face of a store
// transaction, over the private Txn and TxnScope.
#include <algorithm>

#include "common/coding.h"
#include "store/change_feed.h"
#include "store/extension.h"
#include "store/records.h"
#include "store/store_impl.h"

namespace vexfs {

// A transaction is owned (Begin, BeginOnBranch) or lent by the store's own code
// (an extension hook, TransactionOf); `txn` and `scope` point at whichever.
struct StoreTxn::Rep {
  internal::StoreImpl* impl = nullptr;
  internal::Txn own_txn;
  std::unique_ptr<internal::TxnScope> own_scope;
  internal::Txn* txn = nullptr;
  internal::TxnScope* scope = nullptr;  // the bound working tree, or null
  bool lent = false;
};

namespace {

Status NotBound() {
  return Status::InvalidArgument("the transaction is not bound to a working tree");
}

Status NotActive() { return Status::InvalidArgument("the transaction has not begun or has ended"); }

// Format 1 stores' own settings, which no extension may read or remove.
bool IsStoreSetting(std::string_view key) {
  return key == internal::kMetaFormat || key == internal::kMetaNextBranchId ||
         key == internal::kMetaNextFeedId;
}

Status CheckLegacySettingKey(std::string_view key) {
  if (internal::IsExtensionName(key) && !IsStoreSetting(key)) return Status::Ok();
  return Status::InvalidArgument("'" + std::string(key) + "' is not an extension's setting");
}

}  // namespace

StoreTxn::StoreTxn() = default;
StoreTxn::~StoreTxn() = default;
StoreTxn::StoreTxn(StoreTxn&& other) noexcept = default;
StoreTxn& StoreTxn::operator=(StoreTxn&& other) noexcept = default;

Status StoreTxn::Begin(Store* store, bool write) {
  auto rep = std::make_unique<Rep>();
  rep->impl = internal::ImplOf(store);
  VEXFS_RETURN_IF_ERROR(rep->impl->BeginTxn(&rep->own_txn, write));
  rep->txn = &rep->own_txn;
  rep_ = std::move(rep);
  return Status::Ok();
}

Status StoreTxn::BeginOnBranch(Store* store, bool write, std::string_view branch) {
  auto rep = std::make_unique<Rep>();
  rep->impl = internal::ImplOf(store);
  rep->own_scope = std::make_unique<internal::TxnScope>(rep->impl);
  VEXFS_RETURN_IF_ERROR(rep->own_scope->Begin(write, branch));
  rep->scope = rep->own_scope.get();
  rep->txn = &rep->scope->txn();
  rep_ = std::move(rep);
  return Status::Ok();
}

Status StoreTxn::Commit() {
  if (!active()) return NotActive();
  if (rep_->lent) return Status::InvalidArgument("a lent transaction is committed by its owner");
  Status st = rep_->own_scope ? rep_->own_scope->Commit() : rep_->own_txn.Commit();
  rep_.reset();
  return st;
}

void StoreTxn::Abort() {
  if (rep_ && !rep_->lent) rep_.reset();
}

bool StoreTxn::active() const { return rep_ != nullptr && rep_->txn->raw() != nullptr; }
bool StoreTxn::writable() const { return active() && rep_->txn->writable(); }

Result<std::optional<std::string_view>> StoreTxn::Get(Table table, std::string_view key) const {
  if (!active()) return NotActive();
  return rep_->txn->Get(table.handle(), key);
}

Status StoreTxn::Put(Table table, std::string_view key, std::string_view value) {
  if (!active()) return NotActive();
  return rep_->txn->Put(table.handle(), key, value);
}

Result<bool> StoreTxn::PutIfAbsent(Table table, std::string_view key, std::string_view value) {
  if (!active()) return NotActive();
  return rep_->txn->PutIfAbsent(table.handle(), key, value);
}

Result<bool> StoreTxn::Delete(Table table, std::string_view key) {
  if (!active()) return NotActive();
  return rep_->txn->Delete(table.handle(), key);
}

Status StoreTxn::DeletePrefix(Table table, std::string_view prefix) {
  if (!active()) return NotActive();
  return internal::DeletePrefix(rep_->txn, table.handle(), prefix);
}

Result<std::vector<std::pair<std::string, std::string>>> StoreTxn::Scan(
    Table table, std::string_view prefix) const {
  if (!active()) return NotActive();
  return internal::ScanPrefix(*rep_->txn, table.handle(), prefix);
}

Result<std::optional<std::string>> StoreTxn::ReadLegacySetting(std::string_view key) const {
  if (!active()) return NotActive();
  VEXFS_RETURN_IF_ERROR(CheckLegacySettingKey(key));
  VEXFS_ASSIGN_OR_RETURN(auto raw, rep_->txn->Get(rep_->impl->dbs().meta, key));
  if (!raw) return std::optional<std::string>();
  return std::optional<std::string>(std::string(*raw));
}

Status StoreTxn::DeleteLegacySetting(std::string_view key) {
  if (!active()) return NotActive();
  VEXFS_RETURN_IF_ERROR(CheckLegacySettingKey(key));
  return rep_->txn->Delete(rep_->impl->dbs().meta, key).status();
}

Result<std::pair<FeedSubscription, bool>> StoreTxn::Subscribe(std::string_view name) {
  if (!active()) return NotActive();
  const internal::Databases& dbs = rep_->impl->dbs();
  VEXFS_ASSIGN_OR_RETURN(auto subscribed, internal::Subscribe(rep_->txn, dbs, name));
  return std::make_pair(FeedSubscription(Table(dbs.feed), subscribed.first), subscribed.second);
}

Result<std::optional<FeedSubscription>> StoreTxn::FindSubscription(std::string_view name) const {
  if (!active()) return NotActive();
  const internal::Databases& dbs = rep_->impl->dbs();
  VEXFS_ASSIGN_OR_RETURN(auto id, internal::FindSubscriber(*rep_->txn, dbs, name));
  if (!id) return std::optional<FeedSubscription>();
  return std::optional<FeedSubscription>(FeedSubscription(Table(dbs.feed), *id));
}

Status StoreTxn::Unsubscribe(std::string_view name) {
  if (!active()) return NotActive();
  return internal::Unsubscribe(rep_->txn, rep_->impl->dbs(), name);
}

Result<std::vector<BranchRef>> StoreTxn::Branches() const {
  if (!active()) return NotActive();
  VEXFS_ASSIGN_OR_RETURN(auto refs, internal::ScanPrefix(*rep_->txn, rep_->impl->dbs().refs,
                                                         internal::kBranchRefPrefix));
  std::vector<BranchRef> out;
  for (const auto& [key, value] : refs) {
    internal::BranchRecord rec;
    VEXFS_RETURN_IF_ERROR(internal::DecodeBranch(value, &rec));
    out.push_back({key.substr(internal::kBranchRefPrefix.size()), rec.id});
  }
  return out;
}

Result<std::vector<ObjectId>> StoreTxn::SnapshotCommits() const {
  if (!active()) return NotActive();
  VEXFS_ASSIGN_OR_RETURN(auto refs, internal::ScanPrefix(*rep_->txn, rep_->impl->dbs().refs,
                                                         internal::kSnapshotRefPrefix));
  std::vector<ObjectId> out;
  for (const auto& [key, value] : refs) {
    if (value.size() != ObjectId{}.bytes.size()) {
      return Status::Corruption("snapshot ref '" + key + "' is malformed");
    }
    out.push_back(ObjectId::FromBytes(value));
  }
  return out;
}

Result<ObjectId> StoreTxn::ResolveCommit(std::string_view name_or_id) const {
  if (!active()) return NotActive();
  return internal::ResolveCommit(*rep_->txn, rep_->impl->dbs(), name_or_id);
}

Result<ObjectId> StoreTxn::CommitTree(const ObjectId& commit) const {
  if (!active()) return NotActive();
  internal::ObjectTable objects(rep_->txn, rep_->impl->dbs().objects);
  VEXFS_ASSIGN_OR_RETURN(internal::Commit c, objects.GetCommit(commit));
  return c.tree;
}

Result<std::vector<StoredEntry>> StoreTxn::ReadTree(const ObjectId& tree) const {
  if (!active()) return NotActive();
  internal::ObjectTable objects(rep_->txn, rep_->impl->dbs().objects);
  VEXFS_ASSIGN_OR_RETURN(internal::Tree t, objects.GetTree(tree));
  std::vector<StoredEntry> out;
  out.reserve(t.entries.size());
  for (internal::TreeEntry& e : t.entries) {
    StoredEntry entry;
    entry.name = std::move(e.name);
    internal::CopySharedAttributes(e, &entry.attr);
    entry.id = e.id;
    out.push_back(std::move(entry));
  }
  return out;
}

Result<bool> StoreTxn::WorkingTreeIsEmpty(uint32_t branch) const {
  if (!active()) return NotActive();
  internal::Cursor cursor;
  VEXFS_RETURN_IF_ERROR(cursor.Open(*rep_->txn, rep_->impl->dbs().dirents));
  std::string prefix = internal::DirentPrefix(branch, kRootIno);
  VEXFS_ASSIGN_OR_RETURN(bool found, cursor.Seek(prefix));
  return !found || !cursor.key().starts_with(prefix);
}

Result<uint64_t> StoreTxn::VersionSize(const ObjectId& version) const {
  if (!active()) return NotActive();
  internal::ObjectTable objects(rep_->txn, rep_->impl->dbs().objects);
  VEXFS_ASSIGN_OR_RETURN(internal::Manifest m, objects.GetManifest(version));
  return m.size;
}

Result<std::string> StoreTxn::ReadVersion(const ObjectId& version, uint64_t offset,
                                          uint64_t length) const {
  if (!active()) return NotActive();
  internal::ObjectTable objects(rep_->txn, rep_->impl->dbs().objects);
  VEXFS_ASSIGN_OR_RETURN(internal::Manifest m, objects.GetManifest(version));
  return internal::ReadManifestRange(objects, m, offset, length);
}

Result<XattrMap> StoreTxn::VersionXattrs(const ObjectId& version) const {
  if (!active()) return NotActive();
  internal::ObjectTable objects(rep_->txn, rep_->impl->dbs().objects);
  VEXFS_ASSIGN_OR_RETURN(internal::Manifest m, objects.GetManifest(version));
  return std::move(m.xattrs);
}

Result<std::optional<Attributes>> StoreTxn::FindInode(uint32_t branch, uint64_t ino) const {
  if (!active()) return NotActive();
  VEXFS_ASSIGN_OR_RETURN(auto raw, rep_->txn->Get(rep_->impl->dbs().inodes,
                                                  internal::InodeKey(branch, ino)));
  if (!raw) return std::optional<Attributes>();
  internal::InodeRecord rec;
  VEXFS_RETURN_IF_ERROR(internal::DecodeInode(*raw, &rec));
  return std::optional<Attributes>(rec.ToAttributes(ino));
}

Result<std::vector<Attributes>> StoreTxn::ListInodes(uint32_t branch) const {
  if (!active()) return NotActive();
  std::string prefix = internal::BranchPrefix(branch);
  internal::Cursor cursor;
  VEXFS_RETURN_IF_ERROR(cursor.Open(*rep_->txn, rep_->impl->dbs().inodes));
  VEXFS_ASSIGN_OR_RETURN(bool more, cursor.Seek(prefix));
  std::vector<Attributes> out;
  while (more && cursor.key().starts_with(prefix)) {
    internal::InodeRecord rec;
    VEXFS_RETURN_IF_ERROR(internal::DecodeInode(cursor.value(), &rec));
    out.push_back(rec.ToAttributes(DecodeBE64(cursor.key().substr(prefix.size()))));
    VEXFS_ASSIGN_OR_RETURN(more, cursor.Next());
  }
  return out;
}

uint32_t StoreTxn::branch_id() const {
  return rep_ && rep_->scope ? rep_->scope->branch_id() : 0;
}

const std::string& StoreTxn::branch_name() const {
  static const std::string kNone;
  return rep_ && rep_->scope ? rep_->scope->branch_name() : kNone;
}

Result<uint64_t> StoreTxn::Resolve(std::string_view path) {
  if (!active()) return NotActive();
  if (!rep_->scope) return NotBound();
  return rep_->scope->Resolve(path);
}

Result<Attributes> StoreTxn::Stat(uint64_t ino) {
  if (!active()) return NotActive();
  if (!rep_->scope) return NotBound();
  VEXFS_ASSIGN_OR_RETURN(internal::InodeRecord rec, rep_->scope->LoadInode(ino));
  return rec.ToAttributes(ino);
}

Result<std::vector<TreeEditor::NameEntry>> StoreTxn::ListDir(uint64_t ino) {
  if (!active()) return NotActive();
  if (!rep_->scope) return NotBound();
  return TreeEditor(rep_->scope).ListNames(ino);
}

Result<ObjectId> StoreTxn::FileVersion(uint64_t ino) {
  if (!active()) return NotActive();
  if (!rep_->scope) return NotBound();
  VEXFS_ASSIGN_OR_RETURN(internal::InodeRecord rec, rep_->scope->LoadInode(ino));
  if (rec.type != FileType::kRegular) {
    return Status::InvalidArgument("inode " + std::to_string(ino) + " is not a regular file");
  }
  VEXFS_ASSIGN_OR_RETURN(internal::Manifest m, rep_->scope->BuildManifest(ino, rec));
  return internal::ComputeObjectId(internal::ObjectType::kManifest, internal::EncodeManifest(m));
}

Result<std::string> StoreTxn::ReadFile(uint64_t ino, uint64_t offset, uint64_t length) {
  if (!active()) return NotActive();
  if (!rep_->scope) return NotBound();
  return TreeEditor(rep_->scope).Read(ino, offset, length);
}

Result<XattrMap> StoreTxn::InodeXattrs(uint32_t branch, uint64_t ino) const {
  if (!active()) return NotActive();
  std::string prefix = internal::XattrPrefix(branch, ino);
  VEXFS_ASSIGN_OR_RETURN(auto rows, internal::ScanPrefix(*rep_->txn, rep_->impl->dbs().xattrs, prefix));
  XattrMap out;
  for (auto& [key, value] : rows) out[key.substr(prefix.size())] = std::move(value);
  return out;
}

Result<ObjectId> StoreTxn::PutBlob(std::string_view bytes) {
  if (!active()) return NotActive();
  internal::ObjectTable objects(rep_->txn, rep_->impl->dbs().objects);
  return objects.Put(internal::ObjectType::kChunk, bytes);
}

Result<ObjectId> StoreTxn::PutNode(const StoredNode& node) {
  if (!active()) return NotActive();
  internal::ObjectTable objects(rep_->txn, rep_->impl->dbs().objects);
  return objects.Put(internal::ObjectType::kNode, internal::EncodeNode({node.refs, node.data}));
}

Result<std::string> StoreTxn::GetBlob(const ObjectId& id) const {
  if (!active()) return NotActive();
  internal::ObjectTable objects(rep_->txn, rep_->impl->dbs().objects);
  return objects.Get(id, internal::ObjectType::kChunk);
}

Result<StoredNode> StoreTxn::GetNode(const ObjectId& id) const {
  if (!active()) return NotActive();
  internal::ObjectTable objects(rep_->txn, rep_->impl->dbs().objects);
  VEXFS_ASSIGN_OR_RETURN(std::string payload, objects.Get(id, internal::ObjectType::kNode));
  internal::Node node;
  VEXFS_RETURN_IF_ERROR(internal::DecodeNode(payload, &node));
  return StoredNode{std::move(node.refs), std::move(node.data)};
}

TableCursor::TableCursor() = default;
TableCursor::~TableCursor() = default;

Status TableCursor::Open(const StoreTxn& txn, Table table) {
  if (!txn.active()) return NotActive();
  cursor_ = std::make_unique<internal::Cursor>();
  return cursor_->Open(internal::StoreTxnAccess::txn(txn), table.handle());
}

namespace {
Status NotOpen() { return Status::InvalidArgument("the cursor is not open"); }
}  // namespace

Result<bool> TableCursor::Seek(std::string_view key) {
  if (!cursor_) return NotOpen();
  return cursor_->Seek(key);
}

Result<bool> TableCursor::First() {
  if (!cursor_) return NotOpen();
  return cursor_->First();
}

Result<bool> TableCursor::Next() {
  if (!cursor_) return NotOpen();
  return cursor_->Next();
}

std::string_view TableCursor::key() const { return cursor_ ? cursor_->key() : std::string_view(); }
std::string_view TableCursor::value() const {
  return cursor_ ? cursor_->value() : std::string_view();
}

Status TableCursor::DeleteCurrent() {
  if (!cursor_) return NotOpen();
  return cursor_->DeleteCurrent();
}

namespace internal {

StoreTxn StoreTxnAccess::Lend(StoreImpl* impl, Txn* txn, TxnScope* scope) {
  StoreTxn out;
  out.rep_ = std::make_unique<StoreTxn::Rep>();
  out.rep_->impl = impl;
  out.rep_->txn = txn;
  out.rep_->scope = scope;
  out.rep_->lent = true;
  return out;
}

Txn& StoreTxnAccess::txn(const StoreTxn& txn) { return *txn.rep_->txn; }

}  // namespace internal

StoreTxn TransactionOf(TreeEditor& editor) {
  internal::TxnScope* scope = internal::ScopeOf(editor);
  return internal::StoreTxnAccess::Lend(scope->impl(), &scope->txn(), scope);
}

}  // namespace vexfs

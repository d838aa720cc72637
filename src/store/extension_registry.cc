// The store's registry of extension tables and attached extensions (extension.h):
// durable registrations in meta, the open table handles, and the per-inode
// records the store drops with their inode.
#include <algorithm>
#include <map>

#include "store/records.h"
#include "store/store_impl.h"

namespace vexfs::internal {
namespace {

// Flag bits of an "ext/<name>" record.
constexpr char kKeepsObjects = 1;
constexpr char kVersionsData = 2;

std::string TableMetaKey(std::string_view name) {
  return std::string(kMetaTablePrefix) + std::string(name);
}

std::string ExtensionMetaKey(std::string_view name) {
  return std::string(kMetaExtensionPrefix) + std::string(name);
}

Result<TableScope> DecodeScope(std::string_view key, std::string_view raw) {
  if (raw.size() != 1 || static_cast<uint8_t>(raw[0]) > static_cast<uint8_t>(TableScope::kPerBranch)) {
    return Status::Corruption("store meta '" + std::string(key) + "' is malformed");
  }
  return static_cast<TableScope>(raw[0]);
}

}  // namespace

Status ValidateExtensionName(std::string_view name, const char* what) {
  if (IsExtensionName(name)) return Status::Ok();
  return Status::InvalidArgument(std::string(what) + " name '" + std::string(name) +
                                 "' must be 1-64 bytes of [a-z0-9_]");
}

Result<MDB_dbi> StoreImpl::OpenTable(Txn* txn, const TableSpec& spec, bool create) {
  MDB_dbi dbi = 0;
  int rc = mdb_dbi_open(txn->raw(), spec.name.c_str(), create ? MDB_CREATE : 0, &dbi);
  VEXFS_RETURN_IF_ERROR(LmdbStatus(rc, "open table '" + spec.name + "'"));
  return dbi;
}

Status StoreImpl::OpenRegisteredTables() {
  std::lock_guard<std::mutex> registering(registration_mu_);
  Txn txn;
  VEXFS_RETURN_IF_ERROR(BeginTxn(&txn, /*write=*/false));
  VEXFS_ASSIGN_OR_RETURN(auto rows, ScanPrefix(txn, dbs().meta, kMetaTablePrefix));
  auto tables = std::make_shared<std::vector<RegisteredTable>>();
  for (const auto& [key, value] : rows) {
    TableSpec spec{key.substr(kMetaTablePrefix.size()), TableScope::kGlobal};
    VEXFS_ASSIGN_OR_RETURN(spec.scope, DecodeScope(key, value));
    VEXFS_ASSIGN_OR_RETURN(MDB_dbi dbi, OpenTable(&txn, spec, /*create=*/false));
    tables->push_back({spec.name, dbi, spec.scope});
  }
  // Committing (also a read transaction) keeps the handles open in the
  // environment; aborting would close them.
  VEXFS_RETURN_IF_ERROR(txn.Commit());
  std::lock_guard<std::mutex> lock(registry_mu_);
  tables_ = std::move(tables);
  return Status::Ok();
}

Result<std::vector<MDB_dbi>> StoreImpl::RegisterTables(const std::vector<TableSpec>& specs) {
  for (const TableSpec& spec : specs) {
    VEXFS_RETURN_IF_ERROR(ValidateExtensionName(spec.name, "table"));
    if (IsStoreTableName(spec.name)) {
      return Status::InvalidArgument("table name '" + spec.name + "' is the store's own");
    }
  }
  // Registrations are serialised by registration_mu_, taken before the write
  // transaction; registry_mu_ is held only to read and to publish the list, never
  // while waiting for LMDB's writer lock (a writer may need it for tables()).
  std::lock_guard<std::mutex> registering(registration_mu_);
  bool write = !lmdb_.read_only();
  auto tables = std::make_shared<std::vector<RegisteredTable>>(*this->tables());
  Txn txn;
  VEXFS_RETURN_IF_ERROR(BeginTxn(&txn, write));
  std::vector<MDB_dbi> out;
  for (const TableSpec& spec : specs) {
    std::string key = TableMetaKey(spec.name);
    VEXFS_ASSIGN_OR_RETURN(auto recorded, txn.Get(dbs().meta, key));
    if (recorded) {
      VEXFS_ASSIGN_OR_RETURN(TableScope scope, DecodeScope(key, *recorded));
      if (scope != spec.scope) {
        return Status::InvalidArgument("table '" + spec.name +
                                       "' is registered already with another scope");
      }
    } else if (write) {
      VEXFS_RETURN_IF_ERROR(txn.Put(dbs().meta, key, std::string(1, static_cast<char>(spec.scope))));
    }
    auto opened = OpenTable(&txn, spec, /*create=*/write);
    bool absent = !write && !opened.ok() && opened.status().IsNotFound();
    if (!opened.ok() && !absent) return opened.status();
    MDB_dbi dbi = absent ? kAbsentTable : *opened;
    out.push_back(dbi);
    if (dbi == kAbsentTable) continue;  // read-only and never created: reads see it empty
    auto same = [&](const RegisteredTable& t) { return t.name == spec.name; };
    if (std::none_of(tables->begin(), tables->end(), same)) {
      tables->push_back({spec.name, dbi, spec.scope});
    }
  }
  VEXFS_RETURN_IF_ERROR(txn.Commit());  // also read-only: keeps the handles open
  std::lock_guard<std::mutex> lock(registry_mu_);
  tables_ = std::move(tables);
  return out;
}

std::shared_ptr<const std::vector<RegisteredTable>> StoreImpl::tables() const {
  std::lock_guard<std::mutex> lock(registry_mu_);
  return tables_;
}

Status StoreImpl::Attach(std::shared_ptr<Extension> extension) {
  VEXFS_RETURN_IF_ERROR(ValidateExtensionName(extension->name(), "extension"));
  std::lock_guard<std::mutex> registering(registration_mu_);  // see RegisterTables
  if (FindExtension(extension->name()) != nullptr) {
    return Status::AlreadyExists("extension '" + extension->name() + "' is attached already");
  }
  if (!lmdb_.read_only()) {
    Txn txn;
    VEXFS_RETURN_IF_ERROR(BeginTxn(&txn, /*write=*/true));
    std::string flags(1, static_cast<char>((extension->keeps_objects() ? kKeepsObjects : 0) |
                                           (extension->versions_data() ? kVersionsData : 0)));
    VEXFS_ASSIGN_OR_RETURN(auto recorded, txn.Get(dbs().meta, ExtensionMetaKey(extension->name())));
    if (!recorded || *recorded != flags) {
      VEXFS_RETURN_IF_ERROR(txn.Put(dbs().meta, ExtensionMetaKey(extension->name()), flags));
      VEXFS_RETURN_IF_ERROR(txn.Commit());
    }
  }
  std::lock_guard<std::mutex> lock(registry_mu_);
  extensions_.push_back(std::move(extension));
  return Status::Ok();
}

std::shared_ptr<Extension> StoreImpl::FindExtension(std::string_view name) const {
  std::lock_guard<std::mutex> lock(registry_mu_);
  for (const auto& e : extensions_) {
    if (e->name() == name) return e;
  }
  return nullptr;
}

Result<std::vector<ExtensionRegistration>> StoreImpl::RegisteredExtensions() {
  Txn txn;
  VEXFS_RETURN_IF_ERROR(BeginTxn(&txn, /*write=*/false));
  VEXFS_ASSIGN_OR_RETURN(auto rows, ScanPrefix(txn, dbs().meta, kMetaExtensionPrefix));
  std::vector<ExtensionRegistration> out;
  for (const auto& [key, value] : rows) {
    if (value.size() != 1) return Status::Corruption("store meta '" + key + "' is malformed");
    ExtensionRegistration r;
    r.name = key.substr(kMetaExtensionPrefix.size());
    r.keeps_objects = (value[0] & kKeepsObjects) != 0;
    r.versions_data = (value[0] & kVersionsData) != 0;
    r.attached = FindExtension(r.name) != nullptr;
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<std::shared_ptr<Extension>> StoreImpl::extensions() const {
  std::lock_guard<std::mutex> lock(registry_mu_);
  return extensions_;
}

Status DeleteInodeRecords(Txn* txn, const std::vector<RegisteredTable>& tables,
                          uint32_t branch, uint64_t ino) {
  std::string prefix = InodeKey(branch, ino);
  for (const RegisteredTable& t : tables) {
    if (t.scope == TableScope::kPerInode) VEXFS_RETURN_IF_ERROR(DeletePrefix(txn, t.dbi, prefix));
  }
  return Status::Ok();
}

namespace {

// kNotSupported naming the first registered extension with `flag` that is not
// attached to `impl`; `consequence` says why that matters.
Status RequireAttached(const Txn& txn, const StoreImpl& impl, char flag, const char* what,
                       const char* consequence) {
  VEXFS_ASSIGN_OR_RETURN(auto rows, ScanPrefix(txn, impl.dbs().meta, kMetaExtensionPrefix));
  for (const auto& [key, value] : rows) {
    std::string name = key.substr(kMetaExtensionPrefix.size());
    bool has = !value.empty() && (value[0] & flag);
    if (has && impl.FindExtension(name) == nullptr) {
      return Status::NotSupported("extension '" + name + "' " + what +
                                  " but is not attached here; " + consequence);
    }
  }
  return Status::Ok();
}

}  // namespace

Status RequireObjectKeepers(const Txn& txn, const StoreImpl& impl) {
  return RequireAttached(txn, impl, kKeepsObjects, "keeps objects alive",
                         "gc without its roots would delete them");
}

Status RequireVersioners(const Txn& txn, const StoreImpl& impl) {
  return RequireAttached(txn, impl, kVersionsData, "versions data in snapshots",
                         "a snapshot or restore without it would leave its data out");
}

Result<std::map<std::string, ObjectId>> SnapshotExtensionRoots(TxnScope* scope) {
  VEXFS_RETURN_IF_ERROR(RequireVersioners(scope->txn(), *scope->impl()));
  std::map<std::string, ObjectId> roots;
  StoreTxn lent = StoreTxnAccess::Lend(scope->impl(), &scope->txn(), scope);
  for (const auto& extension : scope->impl()->extensions()) {
    if (!extension->versions_data()) continue;
    std::string what = "snapshot root of extension '" + extension->name() + "'";
    auto root = extension->SnapshotRoot(lent);
    VEXFS_RETURN_IF_ERROR(root.status().WithContext(what));
    if (!*root) continue;
    VEXFS_ASSIGN_OR_RETURN(auto stored, scope->txn().Get(scope->dbs().objects, (*root)->AsBytes()));
    if (!stored) return Status::InvalidArgument(what + " names object " + (*root)->ToHex() + ", which is not stored");
    roots[extension->name()] = **root;
  }
  return roots;
}

Status RestoreExtensionRoots(TxnScope* scope, const Commit& commit) {
  VEXFS_RETURN_IF_ERROR(RequireVersioners(scope->txn(), *scope->impl()));
  std::map<std::string, std::shared_ptr<Extension>> versioners;
  for (const auto& extension : scope->impl()->extensions()) {
    if (extension->versions_data()) versioners[extension->name()] = extension;
  }
  for (const auto& [name, id] : commit.roots) {
    if (!versioners.count(name)) {
      return Status::NotSupported("the snapshot holds data of extension '" + name +
                                  "', which is not attached here; restoring without it would lose it");
    }
  }
  StoreTxn lent = StoreTxnAccess::Lend(scope->impl(), &scope->txn(), scope);
  for (const auto& [name, extension] : versioners) {
    auto it = commit.roots.find(name);
    std::optional<ObjectId> root;
    if (it != commit.roots.end()) root = it->second;
    VEXFS_RETURN_IF_ERROR(extension->RestoreRoot(lent, root).WithContext(
        "restore data of extension '" + name + "'"));
  }
  return Status::Ok();
}

}  // namespace vexfs::internal

// The C API (vexfs/vexfs.h) over the C++ library: handles own the C++ objects,
// every call turns a Status into an error code and the thread's last message,
// and nothing (an exception included) crosses back into C.
#include "vexfs/vexfs.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "capi/c_handles.h"
#include "vexfs/db.h"
#include "vexfs/index.h"
#include "vexfs/local_files.h"
#include "vexfs/store.h"
#include "vexfs/tree_ops.h"

struct vexfs_search_result {
  vexfs::SearchResult result;
};

namespace {

using vexfs::Result;
using vexfs::Status;
using vexfs::capi::CopyOut;
using vexfs::capi::Fail;
using vexfs::capi::FailInvalid;
using vexfs::capi::Guard;
using vexfs::capi::OrEmpty;

int TypeOf(vexfs::FileType type) {
  switch (type) {
    case vexfs::FileType::kRegular: return VEXFS_TYPE_FILE;
    case vexfs::FileType::kDirectory: return VEXFS_TYPE_DIRECTORY;
    case vexfs::FileType::kSymlink: return VEXFS_TYPE_SYMLINK;
    default: return VEXFS_TYPE_OTHER;
  }
}

int OpenOrCreate(bool create, const char* path, const vexfs_store_params* params,
                 vexfs_store** out) {
  if (path == nullptr || out == nullptr) return FailInvalid("path and out must not be NULL");
  *out = nullptr;
  vexfs_store_params p = params ? *params : vexfs_store_default_params();
  vexfs::DbOptions options = vexfs::DefaultDbOptions();
  options.read_only = p.read_only != 0;
  options.map_size = p.map_size;
  options.background_indexing = p.background_indexing != 0;
  auto db = create ? vexfs::Db::Create(path, options) : vexfs::Db::Open(path, options);
  if (!db.ok()) return Fail(db.status());
  auto handle = std::make_unique<vexfs_store>();
  handle->db = std::move(*db);
  handle->branch = OrEmpty(p.branch);
  *out = handle.release();
  return VEXFS_OK;
}

Result<vexfs::SearchRequest> RequestOf(vexfs_store* s, const char* query,
                                       const vexfs_search_params& p) {
  vexfs::SearchRequest r;
  r.query = query;
  r.k = p.k;
  switch (p.mode) {
    case VEXFS_SEARCH_DEFAULT: break;
    case VEXFS_SEARCH_HYBRID: r.mode = vexfs::SearchMode::kHybrid; break;
    case VEXFS_SEARCH_LEXICAL: r.mode = vexfs::SearchMode::kLexical; break;
    case VEXFS_SEARCH_DENSE: r.mode = vexfs::SearchMode::kDense; break;
    default: return Status::InvalidArgument("search mode " + std::to_string(p.mode) + " is not one of enum vexfs_search_mode");
  }
  r.under = OrEmpty(p.under);
  r.snapshot = OrEmpty(p.at);
  if (r.snapshot.empty()) r.branch = s->branch;
  return r;
}

int ChangeOf(vexfs::DiffEntry::Kind kind) {
  switch (kind) {
    case vexfs::DiffEntry::Kind::kAdded: return VEXFS_CHANGE_ADDED;
    case vexfs::DiffEntry::Kind::kRemoved: return VEXFS_CHANGE_REMOVED;
    case vexfs::DiffEntry::Kind::kModified: return VEXFS_CHANGE_MODIFIED;
    case vexfs::DiffEntry::Kind::kRenamed: return VEXFS_CHANGE_RENAMED;
    case vexfs::DiffEntry::Kind::kTypeChanged: break;
  }
  return VEXFS_CHANGE_TYPE_CHANGED;
}

}  // namespace

extern "C" {

const char* vexfs_strerror(int code) {
  if (code == VEXFS_OK) return "ok";
  if (code < VEXFS_ERR_PERMISSION_DENIED || code > 0) return "unknown error code";
  return vexfs::StatusCodeName(static_cast<vexfs::StatusCode>(-code));
}

const char* vexfs_last_error(void) { return vexfs::capi::LastError().c_str(); }

void vexfs_free(void* p) { std::free(p); }

vexfs_store_params vexfs_store_default_params(void) { return {0, 0, nullptr, 1}; }

int vexfs_store_create(const char* path, const vexfs_store_params* params, vexfs_store** out) {
  return Guard([&]() -> int { return OpenOrCreate(true, path, params, out); });
}

int vexfs_store_open(const char* path, const vexfs_store_params* params, vexfs_store** out) {
  return Guard([&]() -> int { return OpenOrCreate(false, path, params, out); });
}

void vexfs_store_free(vexfs_store* store) { delete store; }

int vexfs_write_file(vexfs_store* s, const char* path, const void* data, size_t size) {
  return Guard([&]() -> int {
    if (s == nullptr || path == nullptr || (data == nullptr && size > 0)) {
      return FailInvalid("store, path and data must not be NULL");
    }
    vexfs::PutOptions options;
    options.branch = s->branch;
    auto put = vexfs::PutBytes(s->db->store(), path,
                               std::string_view(static_cast<const char*>(data), size), options);
    return put.ok() ? VEXFS_OK : Fail(put.status());
  });
}

int vexfs_read_file(vexfs_store* s, const char* path, const char* at, char** data, size_t* size) {
  return Guard([&]() -> int {
    if (s == nullptr || path == nullptr || data == nullptr || size == nullptr) {
      return FailInvalid("store, path, data and size must not be NULL");
    }
    *data = nullptr;
    *size = 0;
    auto view = s->db->store().OpenView(OrEmpty(at), s->branch);
    if (!view.ok()) return Fail(view.status());
    auto bytes = (*view)->ReadAll(path);
    if (!bytes.ok()) return Fail(bytes.status());
    *data = CopyOut(*bytes);
    if (*data == nullptr) return Fail(Status::NoSpace("out of memory for the file's bytes"));
    *size = bytes->size();
    return VEXFS_OK;
  });
}

int vexfs_remove(vexfs_store* s, const char* path, int recursive) {
  return Guard([&]() -> int {
    if (s == nullptr || path == nullptr) return FailInvalid("store and path must not be NULL");
    auto tree = s->db->store().Tree(s->branch);
    if (!tree.ok()) return Fail(tree.status());
    Status st = (*tree)->Edit(
        [&](vexfs::TreeEditor& ed) { return vexfs::RemovePath(ed, path, recursive != 0); });
    return st.ok() ? VEXFS_OK : Fail(st);
  });
}

int vexfs_list(vexfs_store* s, const char* dir, const char* at,
               int (*fn)(void* ctx, const vexfs_entry* entry), void* ctx) {
  return Guard([&]() -> int {
    if (s == nullptr || fn == nullptr) return FailInvalid("store and fn must not be NULL");
    auto view = s->db->store().OpenView(OrEmpty(at), s->branch);
    if (!view.ok()) return Fail(view.status());
    auto entries = (*view)->List(OrEmpty(dir));
    if (!entries.ok()) return Fail(entries.status());
    for (const vexfs::DirEntry& e : *entries) {
      vexfs_entry entry{e.name.c_str(), TypeOf(e.attr.type), e.attr.size, e.attr.mtime};
      if (int stop = fn(ctx, &entry); stop != 0) return stop;
    }
    return VEXFS_OK;
  });
}

vexfs_search_params vexfs_search_default_params(void) {
  return {10, VEXFS_SEARCH_DEFAULT, nullptr, nullptr, 1};
}

int vexfs_search(vexfs_store* s, const char* query, const vexfs_search_params* params,
                 vexfs_search_result** out) {
  return Guard([&]() -> int {
    if (s == nullptr || query == nullptr || out == nullptr) {
      return FailInvalid("store, query and out must not be NULL");
    }
    *out = nullptr;
    vexfs_search_params p = params ? *params : vexfs_search_default_params();
    auto request = RequestOf(s, query, p);
    if (!request.ok()) return Fail(request.status());
    // A read-only store searches what was indexed; it cannot index more.
    auto found = s->db->Search(*request, /*wait=*/p.wait != 0);
    if (!found.ok()) return Fail(found.status());
    *out = new vexfs_search_result{std::move(*found)};
    return VEXFS_OK;
  });
}

size_t vexfs_search_result_count(const vexfs_search_result* r) {
  return r == nullptr ? 0 : r->result.hits.size();
}

vexfs_hit vexfs_search_result_hit(const vexfs_search_result* r, size_t i) {
  if (r == nullptr || i >= r->result.hits.size()) return {"", 0, 0, 0.0f, ""};
  const vexfs::SearchHit& h = r->result.hits[i];
  return {h.path.c_str(), h.offset, h.length, h.score, h.snippet.c_str()};
}

void vexfs_search_result_free(vexfs_search_result* r) { delete r; }

int vexfs_snapshot_create(vexfs_store* s, const char* name, const char* message, char id_hex[65]) {
  return Guard([&]() -> int {
    if (s == nullptr || name == nullptr) return FailInvalid("store and name must not be NULL");
    auto commit = s->db->store().CreateSnapshot(name, OrEmpty(message), {}, s->branch);
    if (!commit.ok()) return Fail(commit.status());
    if (id_hex != nullptr) std::snprintf(id_hex, 65, "%s", commit->id.ToHex().c_str());
    return VEXFS_OK;
  });
}

int vexfs_restore(vexfs_store* s, const char* snapshot) {
  return Guard([&]() -> int {
    if (s == nullptr || snapshot == nullptr) return FailInvalid("store and snapshot must not be NULL");
    Status st = s->db->store().Restore(snapshot, s->branch);
    return st.ok() ? VEXFS_OK : Fail(st);
  });
}

int vexfs_diff(vexfs_store* s, const char* from, const char* to,
               int (*fn)(void* ctx, int change, const char* path, const char* old_path),
               void* ctx) {
  return Guard([&]() -> int {
    if (s == nullptr || from == nullptr || to == nullptr || fn == nullptr) {
      return FailInvalid("store, from, to and fn must not be NULL");
    }
    auto changes = s->db->store().Diff(from, to);
    if (!changes.ok()) return Fail(changes.status());
    for (const vexfs::DiffEntry& e : *changes) {
      const char* old_path = e.kind == vexfs::DiffEntry::Kind::kRenamed ? e.old_path.c_str() : nullptr;
      if (int stop = fn(ctx, ChangeOf(e.kind), e.path.c_str(), old_path); stop != 0) return stop;
    }
    return VEXFS_OK;
  });
}

int vexfs_log(vexfs_store* s, const char* from, size_t limit,
              int (*fn)(void* ctx, const vexfs_commit* commit), void* ctx) {
  return Guard([&]() -> int {
    if (s == nullptr || fn == nullptr) return FailInvalid("store and fn must not be NULL");
    auto history = s->db->store().Log(from != nullptr ? std::string(from) : s->branch, limit);
    if (!history.ok()) return Fail(history.status());
    for (const vexfs::CommitInfo& c : *history) {
      std::string id = c.id.ToHex();
      std::string parent = c.parents.empty() ? "" : c.parents.front().ToHex();
      std::vector<const char*> names;
      for (const std::string& name : c.names) names.push_back(name.c_str());
      vexfs_commit commit{};
      commit.id = id.c_str();
      commit.parent = c.parents.empty() ? nullptr : parent.c_str();
      commit.branch = c.branch.c_str();
      commit.message = c.message.c_str();
      commit.time_ns = c.time;
      commit.names = names.data();
      commit.name_count = names.size();
      if (int stop = fn(ctx, &commit); stop != 0) return stop;
    }
    return VEXFS_OK;
  });
}

int vexfs_branch_create(vexfs_store* s, const char* name, const char* from) {
  return Guard([&]() -> int {
    if (s == nullptr || name == nullptr) return FailInvalid("store and name must not be NULL");
    std::optional<std::string> snapshot;
    if (from != nullptr) snapshot = from;
    Status st = s->db->store().CreateBranch(name, snapshot, s->branch);
    return st.ok() ? VEXFS_OK : Fail(st);
  });
}

int vexfs_checkout(vexfs_store* s, const char* branch) {
  return Guard([&]() -> int {
    if (s == nullptr || branch == nullptr) return FailInvalid("store and branch must not be NULL");
    Status st = s->db->store().Checkout(branch);
    return st.ok() ? VEXFS_OK : Fail(st);
  });
}

int vexfs_branch_delete(vexfs_store* s, const char* branch) {
  return Guard([&]() -> int {
    if (s == nullptr || branch == nullptr) return FailInvalid("store and branch must not be NULL");
    Status st = s->db->store().DeleteBranch(branch);
    return st.ok() ? VEXFS_OK : Fail(st);
  });
}

int vexfs_branch_list(vexfs_store* s, int (*fn)(void* ctx, const vexfs_branch* branch),
                      void* ctx) {
  return Guard([&]() -> int {
    if (s == nullptr || fn == nullptr) return FailInvalid("store and fn must not be NULL");
    auto branches = s->db->store().ListBranches();
    if (!branches.ok()) return Fail(branches.status());
    for (const vexfs::BranchInfo& b : *branches) {
      std::string head = b.head ? b.head->ToHex() : "";
      vexfs_branch branch{b.name.c_str(), b.head ? head.c_str() : nullptr, b.current ? 1 : 0};
      if (int stop = fn(ctx, &branch); stop != 0) return stop;
    }
    return VEXFS_OK;
  });
}

}  // extern "C"

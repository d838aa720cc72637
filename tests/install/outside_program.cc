// A small program using only the installed VexFS library: it creates a store,
// puts a file, takes a snapshot, changes the file, reads both versions back,
// searches the snapshot, keeps a note about the file in a table of its own
// (the store's extension interface: written in the same edit as the file) and
// prints what it found as JSON. The install test runs
// it once built through find_package(vexfs) and once through pkg-config.
#include <iostream>
#include <string>

#include "vexfs/db.h"
#include "vexfs/extension.h"
#include "vexfs/index.h"
#include "vexfs/json.h"
#include "vexfs/local_files.h"
#include "vexfs/store.h"

namespace {

int Fail(const vexfs::Status& status) {
  std::cerr << "outside_program: " << status.ToString() << "\n";
  return 1;
}

// Registers a per-inode "outside_notes" table, writes `path` and a note about it
// in one edit, and reads the note back in a new transaction.
vexfs::Result<std::string> NoteBesideFile(vexfs::Store* store, const std::string& path) {
  auto tables = vexfs::RegisterTables(store, {{"outside_notes", vexfs::TableScope::kPerInode}});
  if (!tables.ok()) return tables.status();
  vexfs::Table notes = (*tables)[0];
  auto tree = store->Tree();
  if (!tree.ok()) return tree.status();
  uint64_t ino = 0;
  vexfs::Status st = (*tree)->Edit([&](vexfs::TreeEditor& editor) -> vexfs::Status {
    auto made = editor.PutFile(path, "a file with a note", {});
    if (!made.ok()) return made.status();
    ino = made->ino;
    vexfs::StoreTxn txn = vexfs::TransactionOf(editor);
    return txn.Put(notes, vexfs::InodeKeyPrefix(txn.branch_id(), ino), "noted from outside");
  });
  if (!st.ok()) return st;
  vexfs::StoreTxn txn;
  if (st = txn.BeginOnBranch(store, false, ""); !st.ok()) return st;
  auto note = txn.Get(notes, vexfs::InodeKeyPrefix(txn.branch_id(), ino));
  if (!note.ok()) return note.status();
  if (!note->has_value()) return vexfs::Status::NotFound("the note was not kept");
  return std::string(**note);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: outside_program STORE_DIR\n";
    return 2;
  }
  // The one door: the store with its search index attached; "hash" needs no
  // vector file. The program searches with wait, so it needs no indexer thread.
  vexfs::DbOptions options = vexfs::DefaultDbOptions();
  options.embedder = "hash";
  options.background_indexing = false;
  auto db = vexfs::Db::Create(argv[1], options);
  if (!db.ok()) return Fail(db.status());
  vexfs::Store* store = &(*db)->store();
  auto put = vexfs::PutBytes(*store, "notes/plan.md", "the lighthouse keeper trims the wick");
  if (!put.ok()) return Fail(put.status());
  auto snapshot = store->CreateSnapshot("before", "first plan", {});
  if (!snapshot.ok()) return Fail(snapshot.status());
  put = vexfs::PutBytes(*store, "notes/plan.md", "replanned: sail at dawn");
  if (!put.ok()) return Fail(put.status());

  auto then = store->OpenView("before");
  auto now = store->OpenView("");
  if (!then.ok()) return Fail(then.status());
  if (!now.ok()) return Fail(now.status());
  auto old_text = (*then)->ReadAll("notes/plan.md");
  auto new_text = (*now)->ReadAll("notes/plan.md");
  if (!old_text.ok()) return Fail(old_text.status());
  if (!new_text.ok()) return Fail(new_text.status());

  vexfs::SearchRequest request;
  request.query = "lighthouse wick";
  request.snapshot = "before";
  auto found = (*db)->Search(request, /*wait=*/true);
  if (!found.ok()) return Fail(found.status());

  auto note = NoteBesideFile(store, "notes/noted.md");
  if (!note.ok()) return Fail(note.status());

  nlohmann::json out = {{"snapshot", vexfs::CommitJson(*snapshot)},
                        {"note", *note},
                        {"then", *old_text},
                        {"now", *new_text},
                        {"search", vexfs::SearchResultJson(*found)}};
  std::cout << out.dump() << "\n";
  return 0;
}

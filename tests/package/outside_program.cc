// A small program using only the installed VexFS library: it creates a store,
// puts a file, takes a snapshot, changes the file, reads both versions back,
// searches the snapshot and prints what it found as JSON. The package test runs
// it once built through find_package(vexfs) and once through pkg-config.
#include <iostream>
#include <string>

#include "vexfs/index.h"
#include "vexfs/json.h"
#include "vexfs/local_files.h"
#include "vexfs/store.h"

namespace {

int Fail(const vexfs::Status& status) {
  std::cerr << "outside_program: " << status.ToString() << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: outside_program STORE_DIR\n";
    return 2;
  }
  auto store = vexfs::Store::Create(argv[1]);
  if (!store.ok()) return Fail(store.status());
  auto put = vexfs::PutBytes(**store, "notes/plan.md", "the lighthouse keeper trims the wick");
  if (!put.ok()) return Fail(put.status());
  auto snapshot = (*store)->CreateSnapshot("before", "first plan", {});
  if (!snapshot.ok()) return Fail(snapshot.status());
  put = vexfs::PutBytes(**store, "notes/plan.md", "replanned: sail at dawn");
  if (!put.ok()) return Fail(put.status());

  auto then = (*store)->OpenView("before");
  auto now = (*store)->OpenView("");
  if (!then.ok()) return Fail(then.status());
  if (!now.ok()) return Fail(now.status());
  auto old_text = (*then)->ReadAll("notes/plan.md");
  auto new_text = (*now)->ReadAll("notes/plan.md");
  if (!old_text.ok()) return Fail(old_text.status());
  if (!new_text.ok()) return Fail(new_text.status());

  vexfs::IndexOptions index_options;
  index_options.embedder = "hash";  // needs no vector file
  auto index = vexfs::Index::Open(store->get(), index_options);
  if (!index.ok()) return Fail(index.status());
  if (vexfs::Status st = (*index)->Wait(); !st.ok()) return Fail(st);
  vexfs::SearchRequest request;
  request.query = "lighthouse wick";
  request.snapshot = "before";
  auto found = (*index)->Search(request);
  if (!found.ok()) return Fail(found.status());

  nlohmann::json out = {{"snapshot", vexfs::CommitJson(*snapshot)},
                        {"then", *old_text},
                        {"now", *new_text},
                        {"search", vexfs::SearchResultJson(*found)}};
  std::cout << out.dump() << "\n";
  return 0;
}

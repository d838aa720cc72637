/* A C program using only the installed VexFS library and vexfs/vexfs.h: it
 * creates a store with the default embedder (whose vectors the install ships),
 * writes a note, snapshots, changes it, reads the old version back and finds
 * it by search in the snapshot, by words and by meaning. Prints "ok" or says
 * what failed and exits 1. Usage: outside_program_c STORE_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vexfs/vexfs.h"

static void Expect(int ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "outside_program_c: %s (%s)\n", what, vexfs_last_error());
    exit(1);
  }
}

/* Searches snapshot "before" in `mode` and expects the note as the best hit. */
static void ExpectFoundThen(vexfs_store* store, int mode, const char* query) {
  struct vexfs_search_params params = vexfs_search_default_params();
  vexfs_search_result* found = NULL;
  params.mode = mode;
  params.at = "before";
  Expect(vexfs_search(store, query, &params, &found) == VEXFS_OK, "search");
  Expect(vexfs_search_result_count(found) >= 1, "the snapshot's note is found");
  Expect(strcmp(vexfs_search_result_hit(found, 0).path, "notes/plan.md") == 0,
         "the note is the best hit");
  vexfs_search_result_free(found);
}

int main(int argc, char** argv) {
  static const char kThen[] = "the lighthouse keeper trims the wick before the storm";
  static const char kNow[] = "replanned: sail at dawn";
  struct vexfs_store_params params = vexfs_store_default_params();
  vexfs_store* store = NULL;
  char* bytes = NULL;
  size_t size = 0;
  if (argc != 2) {
    fprintf(stderr, "usage: outside_program_c STORE_DIR\n");
    return 2;
  }
  params.background_indexing = 0;
  Expect(vexfs_store_create(argv[1], &params, &store) == VEXFS_OK, "create the store");
  Expect(vexfs_write_file(store, "notes/plan.md", kThen, strlen(kThen)) == VEXFS_OK, "write");
  Expect(vexfs_snapshot_create(store, "before", "first plan", NULL) == VEXFS_OK, "snapshot");
  Expect(vexfs_write_file(store, "notes/plan.md", kNow, strlen(kNow)) == VEXFS_OK, "rewrite");
  Expect(vexfs_read_file(store, "notes/plan.md", "before", &bytes, &size) == VEXFS_OK,
         "read the snapshot");
  Expect(size == strlen(kThen) && memcmp(bytes, kThen, size) == 0, "the old version is kept");
  vexfs_free(bytes);
  ExpectFoundThen(store, VEXFS_SEARCH_LEXICAL, "lighthouse wick");
  ExpectFoundThen(store, VEXFS_SEARCH_DENSE, "lamp tower guardian");
  vexfs_store_free(store);
  printf("ok\n");
  return 0;
}

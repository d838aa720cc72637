/* The C agent of one_store_test.py: through vexfs/vexfs.h alone, on the shared
 * store, it finds what the MCP agent wrote, writes its own note, snapshots,
 * changes the note, diffs and restores. Usage: c_agent STORE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vexfs/vexfs.h"

static void Expect(int ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "c_agent: %s (%s)\n", what, vexfs_last_error());
    exit(1);
  }
}

static int CountChange(void* ctx, int change, const char* path, const char* old_path) {
  (void)old_path;
  Expect(change == VEXFS_CHANGE_MODIFIED && strcmp(path, "notes/c.md") == 0,
         "the diff shows exactly the changed note");
  ++*(int*)ctx;
  return 0;
}

int main(int argc, char** argv) {
  static const char kNote[] = "the c agent remembers the cassowary\n";
  vexfs_store* store = NULL;
  vexfs_search_result* found = NULL;
  char* bytes = NULL;
  size_t size = 0;
  int changes = 0;
  if (argc != 2) return 2;
  Expect(vexfs_store_open(argv[1], NULL, &store) == VEXFS_OK, "open the store");
  Expect(vexfs_search(store, "bandicoot", NULL, &found) == VEXFS_OK, "search");
  Expect(vexfs_search_result_count(found) == 1 &&
             strcmp(vexfs_search_result_hit(found, 0).path, "notes/mcp.md") == 0,
         "the MCP agent's note is found");
  vexfs_search_result_free(found);
  Expect(vexfs_write_file(store, "notes/c.md", kNote, strlen(kNote)) == VEXFS_OK, "write");
  Expect(vexfs_snapshot_create(store, "c-snap", "written in C", NULL) == VEXFS_OK, "snapshot");
  Expect(vexfs_write_file(store, "notes/c.md", "forgotten\n", 10) == VEXFS_OK, "write again");
  Expect(vexfs_diff(store, "c-snap", "WORKING", CountChange, &changes) == VEXFS_OK && changes == 1,
         "diff");
  Expect(vexfs_restore(store, "c-snap") == VEXFS_OK, "restore");
  Expect(vexfs_read_file(store, "notes/c.md", NULL, &bytes, &size) == VEXFS_OK, "read");
  Expect(size == strlen(kNote) && memcmp(bytes, kNote, size) == 0, "the restore brought the note back");
  vexfs_free(bytes);
  vexfs_store_free(store);
  puts("c_agent: wrote, searched, snapshotted, diffed and restored");
  return 0;
}

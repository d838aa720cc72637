/* A C program using VexFS through its C API only (vexfs/vexfs.h, linked against
 * libvexfs.so): it writes, reads, lists, searches, snapshots, diffs and restores
 * a store, reads its history, branches it and works on a branch through a handle
 * opened on it, checks that bad input comes back as the documented error codes
 * with a message, and that a read-only store refuses writes. Exits 0 when every check
 * holds; otherwise prints each failed check. Usage: capi_test SCRATCH_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vexfs/vexfs.h"

static int failures = 0;

#define CHECK(cond)                                                           \
  do {                                                                        \
    if (!(cond)) {                                                            \
      fprintf(stderr, "%s:%d: check failed: %s (last error: %s)\n", __FILE__, \
              __LINE__, #cond, vexfs_last_error());                           \
      ++failures;                                                             \
    }                                                                         \
  } while (0)

struct listing {
  int files;
  int dirs;
  int saw_plan;
};

static int count_entry(void* ctx, const struct vexfs_entry* e) {
  struct listing* l = ctx;
  if (e->type == VEXFS_TYPE_DIRECTORY) ++l->dirs;
  if (e->type == VEXFS_TYPE_FILE) ++l->files;
  if (strcmp(e->name, "plan.md") == 0 && e->size == 7) l->saw_plan = 1;
  return 0;
}

static int stop_at_first(void* ctx, const struct vexfs_entry* e) {
  (void)e;
  ++*(int*)ctx;
  return 42;
}

struct changes {
  int added;
  int modified;
  int other;
};

static int count_change(void* ctx, int change, const char* path, const char* old_path) {
  struct changes* c = ctx;
  (void)old_path;
  if (change == VEXFS_CHANGE_ADDED && strcmp(path, "notes/new.md") == 0) ++c->added;
  else if (change == VEXFS_CHANGE_MODIFIED && strcmp(path, "notes/plan.md") == 0) ++c->modified;
  else ++c->other;
  return 0;
}

struct history {
  int count;
  char newest_id[65];
  char newest_parent[65];
  int newest_has_parent;
  char newest_name[32];
  char newest_message[32];
  char newest_branch[32];
};

static int note_commit(void* ctx, const struct vexfs_commit* c) {
  struct history* h = ctx;
  if (h->count++ == 0) {
    snprintf(h->newest_id, sizeof(h->newest_id), "%s", c->id);
    h->newest_has_parent = c->parent != NULL;
    snprintf(h->newest_parent, sizeof(h->newest_parent), "%s", c->parent ? c->parent : "");
    snprintf(h->newest_name, sizeof(h->newest_name), "%s", c->name_count ? c->names[0] : "");
    snprintf(h->newest_message, sizeof(h->newest_message), "%s", c->message);
    snprintf(h->newest_branch, sizeof(h->newest_branch), "%s", c->branch);
  }
  return 0;
}

struct branches {
  int count;
  char names[8][32];
  int has_head[8];
  char current[32];
};

static int note_branch(void* ctx, const struct vexfs_branch* b) {
  struct branches* l = ctx;
  if (l->count < 8) {
    snprintf(l->names[l->count], sizeof(l->names[0]), "%s", b->name);
    l->has_head[l->count] = b->head != NULL && strlen(b->head) == 64;
  }
  if (b->current) snprintf(l->current, sizeof(l->current), "%s", b->name);
  ++l->count;
  return 0;
}

static struct branches list_branches(vexfs_store* store) {
  struct branches l;
  memset(&l, 0, sizeof(l));
  CHECK(vexfs_branch_list(store, note_branch, &l) == VEXFS_OK);
  return l;
}

static char* read_text(vexfs_store* store, const char* path, const char* at) {
  char* data = NULL;
  size_t size = 0;
  if (vexfs_read_file(store, path, at, &data, &size) != VEXFS_OK) return NULL;
  return data;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: capi_test SCRATCH_DIR\n");
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof(path), "%s/store", argv[1]);

  vexfs_store* store = NULL;
  struct vexfs_store_params params = vexfs_store_default_params();
  CHECK(vexfs_store_create(path, &params, &store) == VEXFS_OK);
  if (store == NULL) return 1;
  vexfs_store* again = (vexfs_store*)1;
  CHECK(vexfs_store_create(path, &params, &again) == VEXFS_ERR_ALREADY_EXISTS && again == NULL);

  const char* plan = "plan A\n";
  CHECK(vexfs_write_file(store, "notes/plan.md", plan, strlen(plan)) == VEXFS_OK);
  const char* keeper = "The lighthouse keeper trims the wick at dusk.\n";
  CHECK(vexfs_write_file(store, "notes/keeper.md", keeper, strlen(keeper)) == VEXFS_OK);
  char* text = read_text(store, "notes/plan.md", NULL);
  CHECK(text != NULL && strcmp(text, plan) == 0);
  vexfs_free(text);

  struct listing l = {0, 0, 0};
  CHECK(vexfs_list(store, "notes", NULL, count_entry, &l) == VEXFS_OK);
  CHECK(l.files == 2 && l.dirs == 0 && l.saw_plan);
  int calls = 0;
  CHECK(vexfs_list(store, "", NULL, stop_at_first, &calls) == 42 && calls == 1);

  vexfs_search_result* found = NULL;
  struct vexfs_search_params sp = vexfs_search_default_params();
  sp.k = 3;
  CHECK(vexfs_search(store, "lighthouse wick", &sp, &found) == VEXFS_OK);
  CHECK(vexfs_search_result_count(found) >= 1);
  if (vexfs_search_result_count(found) >= 1) {
    struct vexfs_hit hit = vexfs_search_result_hit(found, 0);
    CHECK(strcmp(hit.path, "notes/keeper.md") == 0);
    CHECK(strstr(hit.snippet, "wick") != NULL);
    CHECK(hit.length > 0);
  }
  vexfs_search_result_free(found);

  char id[65] = {0};
  CHECK(vexfs_snapshot_create(store, "s1", "plan A", id) == VEXFS_OK);
  CHECK(strlen(id) == 64);
  const char* plan_b = "plan B\n";
  CHECK(vexfs_write_file(store, "notes/plan.md", plan_b, strlen(plan_b)) == VEXFS_OK);
  CHECK(vexfs_write_file(store, "notes/new.md", "x", 1) == VEXFS_OK);
  struct changes c = {0, 0, 0};
  CHECK(vexfs_diff(store, "s1", "WORKING", count_change, &c) == VEXFS_OK);
  CHECK(c.added == 1 && c.modified == 1 && c.other == 0);
  text = read_text(store, "notes/plan.md", "s1");
  CHECK(text != NULL && strcmp(text, plan) == 0);
  vexfs_free(text);

  CHECK(vexfs_restore(store, "s1") == VEXFS_OK);
  text = read_text(store, "notes/plan.md", NULL);
  CHECK(text != NULL && strcmp(text, plan) == 0);
  vexfs_free(text);
  CHECK(read_text(store, "notes/new.md", NULL) == NULL);
  CHECK(vexfs_remove(store, "notes", 0) == VEXFS_ERR_IS_DIRECTORY);
  CHECK(vexfs_remove(store, "notes/keeper.md", 0) == VEXFS_OK);

  /* History: s1 is the whole of main's. */
  struct history h;
  memset(&h, 0, sizeof(h));
  CHECK(vexfs_log(store, NULL, 0, note_commit, &h) == VEXFS_OK);
  CHECK(h.count == 1 && strcmp(h.newest_id, id) == 0 && !h.newest_has_parent);
  CHECK(strcmp(h.newest_name, "s1") == 0 && strcmp(h.newest_message, "plan A") == 0 &&
        strcmp(h.newest_branch, "main") == 0);

  /* Branches: a copy of the working tree (with what is not snapshotted), and
   * one from a snapshot; the current branch stays main. */
  const char* draft = "draft, not snapshotted\n";
  CHECK(vexfs_write_file(store, "notes/draft.md", draft, strlen(draft)) == VEXFS_OK);
  CHECK(vexfs_branch_create(store, "experiment", NULL) == VEXFS_OK);
  CHECK(vexfs_branch_create(store, "from-s1", "s1") == VEXFS_OK);
  CHECK(vexfs_branch_create(store, "experiment", NULL) == VEXFS_ERR_ALREADY_EXISTS);
  CHECK(vexfs_branch_create(store, "bad/name", NULL) == VEXFS_ERR_INVALID_ARGUMENT);
  CHECK(vexfs_branch_create(store, "other", "no-such-snapshot") == VEXFS_ERR_NOT_FOUND);
  CHECK(strstr(vexfs_last_error(), "no-such-snapshot") != NULL);
  struct branches b = list_branches(store);
  CHECK(b.count == 3 && strcmp(b.current, "main") == 0);
  CHECK(strcmp(b.names[0], "experiment") == 0 && strcmp(b.names[1], "from-s1") == 0 &&
        strcmp(b.names[2], "main") == 0);
  CHECK(b.has_head[0] && b.has_head[1] && b.has_head[2]);
  vexfs_store_free(store);

  /* A handle on the experiment branch: its writes and snapshots stay there, and
   * a branch made from it copies it, not the current branch. */
  params.branch = "experiment";
  CHECK(vexfs_store_open(path, &params, &store) == VEXFS_OK);
  if (store == NULL) return 1;
  text = read_text(store, "notes/draft.md", NULL);
  CHECK(text != NULL && strcmp(text, draft) == 0);
  vexfs_free(text);
  const char* idea = "an idea tried on a branch\n";
  CHECK(vexfs_write_file(store, "notes/idea.md", idea, strlen(idea)) == VEXFS_OK);
  char e1[65] = {0};
  CHECK(vexfs_snapshot_create(store, "e1", "tried", e1) == VEXFS_OK);
  memset(&h, 0, sizeof(h));
  CHECK(vexfs_log(store, NULL, 0, note_commit, &h) == VEXFS_OK);
  CHECK(h.count == 2 && strcmp(h.newest_id, e1) == 0 && strcmp(h.newest_parent, id) == 0);
  CHECK(strcmp(h.newest_branch, "experiment") == 0);
  memset(&h, 0, sizeof(h));
  CHECK(vexfs_log(store, "main", 1, note_commit, &h) == VEXFS_OK);
  CHECK(h.count == 1 && strcmp(h.newest_id, id) == 0);
  CHECK(vexfs_branch_create(store, "fork", NULL) == VEXFS_OK);
  vexfs_store_free(store);
  params.branch = "fork";
  CHECK(vexfs_store_open(path, &params, &store) == VEXFS_OK);
  if (store == NULL) return 1;
  text = read_text(store, "notes/idea.md", NULL);
  CHECK(text != NULL && strcmp(text, idea) == 0);
  vexfs_free(text);
  vexfs_store_free(store);
  params.branch = NULL;
  CHECK(vexfs_store_open(path, &params, &store) == VEXFS_OK);
  if (store == NULL) return 1;
  CHECK(read_text(store, "notes/idea.md", NULL) == NULL);

  /* Checkout moves the current branch; the current one cannot be deleted. */
  CHECK(vexfs_checkout(store, "experiment") == VEXFS_OK);
  CHECK(strcmp(list_branches(store).current, "experiment") == 0);
  text = read_text(store, "notes/idea.md", NULL);
  CHECK(text != NULL && strcmp(text, idea) == 0);
  vexfs_free(text);
  CHECK(vexfs_branch_delete(store, "experiment") == VEXFS_ERR_INVALID_ARGUMENT);
  CHECK(vexfs_checkout(store, "no-such-branch") == VEXFS_ERR_NOT_FOUND);
  CHECK(vexfs_checkout(store, "main") == VEXFS_OK);
  CHECK(vexfs_branch_delete(store, "experiment") == VEXFS_OK);
  CHECK(vexfs_branch_delete(store, "fork") == VEXFS_OK);
  CHECK(vexfs_branch_delete(store, "from-s1") == VEXFS_OK);
  CHECK(vexfs_branch_delete(store, "from-s1") == VEXFS_ERR_NOT_FOUND);
  b = list_branches(store);
  CHECK(b.count == 1 && strcmp(b.current, "main") == 0);
  text = read_text(store, "notes/idea.md", "e1"); /* a deleted branch's snapshots stay */
  CHECK(text != NULL && strcmp(text, idea) == 0);
  vexfs_free(text);
  CHECK(vexfs_remove(store, "notes/draft.md", 0) == VEXFS_OK);

  /* Bad input: error codes, a message naming the problem, nothing changed. */
  CHECK(vexfs_write_file(store, "../escape", "x", 1) == VEXFS_ERR_INVALID_ARGUMENT);
  CHECK(strlen(vexfs_last_error()) > 0);
  CHECK(vexfs_restore(store, "no-such-snapshot") == VEXFS_ERR_NOT_FOUND);
  CHECK(strstr(vexfs_last_error(), "no-such-snapshot") != NULL);
  CHECK(vexfs_write_file(store, NULL, "x", 1) == VEXFS_ERR_INVALID_ARGUMENT);
  sp.k = 0;
  CHECK(vexfs_search(store, "x", &sp, &found) == VEXFS_ERR_INVALID_ARGUMENT && found == NULL);
  sp = vexfs_search_default_params();
  sp.mode = 99;
  CHECK(vexfs_search(store, "x", &sp, &found) == VEXFS_ERR_INVALID_ARGUMENT);
  CHECK(strcmp(vexfs_strerror(VEXFS_ERR_NOT_FOUND), "not found") == 0);
  CHECK(strcmp(vexfs_strerror(-999), "unknown error code") == 0);
  char* none = NULL;
  size_t none_size = 0;
  CHECK(vexfs_read_file(store, "missing.md", NULL, &none, &none_size) == VEXFS_ERR_NOT_FOUND &&
        none == NULL);

  /* The memory graph, in JSON both ways. */
  char* answer = NULL;
  CHECK(vexfs_graph_add(store,
                        "{\"nodes\":[{\"kind\":\"fact\",\"text\":\"standup at 9\",\"key\":\"standup\","
                        "\"valid_from\":\"2026-01-01\"},{\"kind\":\"entity\",\"text\":\"Team Blue\"},"
                        "{\"kind\":\"pending_action\",\"text\":\"email\",\"key\":\"email-1\"}],"
                        "\"links\":[{\"from\":\"#0\",\"kind\":\"mentions\",\"to\":\"#1\"}]}",
                        &answer) == VEXFS_OK);
  CHECK(answer != NULL && strstr(answer, "\"records_changed\"") != NULL);
  vexfs_free(answer);
  CHECK(vexfs_snapshot_create(store, "g1", "graph", NULL) == VEXFS_OK);
  CHECK(vexfs_graph_add(store, "{\"nodes\":[{\"kind\":\"fact\",\"text\":\"standup at 10\",\"key\":\"s2\","
                        "\"valid_from\":\"2026-06-01\"}],\"links\":[{\"from\":\"#0\",\"kind\":\"supersedes\","
                        "\"to\":\"key:standup\"}]}", NULL) == VEXFS_OK);
  CHECK(vexfs_graph_set_action(store, "key:email-1", "done", NULL) == VEXFS_OK);
  CHECK(vexfs_graph_set_action(store, "key:email-1", "started", NULL) == VEXFS_ERR_INVALID_ARGUMENT);
  CHECK(strstr(vexfs_last_error(), "must not run again") != NULL);
  CHECK(vexfs_graph_get(store, "key:standup", NULL, 0, &answer) == VEXFS_ERR_NOT_FOUND);
  CHECK(vexfs_graph_get(store, "key:standup", NULL, 1, &answer) == VEXFS_OK);
  CHECK(strstr(answer, "standup at 9") != NULL);
  vexfs_free(answer);
  CHECK(vexfs_graph_get(store, "key:standup", "g1", 0, &answer) == VEXFS_OK); /* valid as of g1 */
  vexfs_free(answer);
  CHECK(vexfs_graph_neighbors(store, "entity:team blue", 1, "g1", &answer) == VEXFS_OK);
  CHECK(strstr(answer, "standup at 9") != NULL);
  vexfs_free(answer);
  CHECK(vexfs_graph_diff(store, "g1", "WORKING", &answer) == VEXFS_OK);
  CHECK(strstr(answer, "\"superseded\"") != NULL && strstr(answer, "\"action\"") != NULL);
  vexfs_free(answer);
  CHECK(vexfs_graph_actions(store, "done", NULL, &answer) == VEXFS_OK);
  CHECK(strstr(answer, "email-1") != NULL);
  vexfs_free(answer);
  /* Search: the current fact now, the superseded one as of g1, files with them. */
  CHECK(vexfs_graph_search(store, "{\"query\":\"standup\",\"kinds\":[\"fact\"]}", &answer) == VEXFS_OK);
  CHECK(strstr(answer, "standup at 10") != NULL && strstr(answer, "standup at 9") == NULL);
  CHECK(strstr(answer, "\"node\"") != NULL);
  vexfs_free(answer);
  CHECK(vexfs_graph_search(store, "{\"query\":\"standup\",\"at\":\"g1\"}", &answer) == VEXFS_OK);
  CHECK(strstr(answer, "standup at 9") != NULL && strstr(answer, "standup at 10") == NULL);
  vexfs_free(answer);
  CHECK(vexfs_graph_search(store, "{\"query\":\"plan standup\",\"files\":true}", &answer) == VEXFS_OK);
  CHECK(strstr(answer, "\"path\":\"notes/plan.md\"") != NULL && strstr(answer, "\"node\"") != NULL);
  vexfs_free(answer);
  CHECK(vexfs_graph_search(store, "{\"query\":\"x\",\"kinds\":\"fact\"}", &answer) ==
        VEXFS_ERR_INVALID_ARGUMENT);
  CHECK(strstr(vexfs_last_error(), "kinds") != NULL);
  const char* chat = "{\"role\":\"user\",\"content\":\"hi\"}\n{\"role\":\"assistant\",\"content\":\"hello\"}\n";
  CHECK(vexfs_graph_import(store, chat, "openai", "chat", NULL) == VEXFS_OK);
  CHECK(vexfs_graph_export(store, "chat", "openai", NULL, &answer) == VEXFS_OK);
  CHECK(strstr(answer, "\"hello\"") != NULL);
  vexfs_free(answer);
  CHECK(vexfs_graph_add(store, "{\"links\":[{\"from\":\"key:standup\",\"kind\":\"mentions\","
                        "\"to\":\"key:missing\"}]}", NULL) == VEXFS_ERR_NOT_FOUND);
  CHECK(vexfs_graph_add(store, "not json", NULL) == VEXFS_ERR_INVALID_ARGUMENT);
  CHECK(vexfs_graph_import(store, "{\"role\":\"tool\",\"tool_call_id\":\"x\"}\n", "openai", "t", NULL) ==
        VEXFS_ERR_INVALID_ARGUMENT);
  CHECK(strstr(vexfs_last_error(), "line 1") != NULL);
  vexfs_store_free(store);

  /* A read-only store reads and searches, and refuses writes. */
  params.read_only = 1;
  CHECK(vexfs_store_open(path, &params, &store) == VEXFS_OK);
  text = read_text(store, "notes/plan.md", NULL);
  CHECK(text != NULL && strcmp(text, plan) == 0);
  vexfs_free(text);
  CHECK(vexfs_write_file(store, "x.md", "x", 1) == VEXFS_ERR_READ_ONLY);
  CHECK(vexfs_graph_add(store, "{\"nodes\":[{\"kind\":\"fact\"}]}", NULL) == VEXFS_ERR_READ_ONLY);
  CHECK(vexfs_search(store, "plan", NULL, &found) == VEXFS_OK);
  vexfs_search_result_free(found);
  vexfs_store_free(store);
  CHECK(vexfs_store_open("/nonexistent/store", NULL, &store) == VEXFS_ERR_NOT_FOUND && store == NULL);

  if (failures == 0) printf("capi_test: every check holds\n");
  return failures == 0 ? 0 : 1;
}

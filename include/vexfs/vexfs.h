/* The C API of VexFS: a store's files, search, snapshots, branches and memory graph from C (and from any
 * language with a C FFI), in the style of LMDB and llama.cpp: opaque handles with
 * create/free pairs, parameter structs filled by *_default_params(), integer
 * error codes (vexfs_strerror names them; vexfs_last_error gives the message of
 * the calling thread's last failure), and no C++ type across the boundary.
 *
 * Memory: what a function returns through an out-pointer belongs to the caller
 * and is released with the matching free function (vexfs_free for bytes and
 * strings). Strings are NUL-terminated UTF-8 (store paths may hold any bytes but
 * NUL and '/').
 *
 * Threads: a store handle may be used from several threads at once; a search
 * result only from one at a time. Every write is one durable transaction, also
 * with other processes on the same store.
 */
#ifndef VEXFS_VEXFS_H_
#define VEXFS_VEXFS_H_

#include <stddef.h>
#include <stdint.h>

/* The public API: exported from libvexfs.so, built with hidden visibility. */
#pragma GCC visibility push(default)

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes: 0 is success, every failure is negative. */
enum vexfs_error {
  VEXFS_OK = 0,
  VEXFS_ERR_NOT_FOUND = -1,         /* a path, snapshot, branch or object does not exist */
  VEXFS_ERR_CORRUPTION = -2,        /* stored bytes fail their hash or do not decode */
  VEXFS_ERR_IO = -3,                /* the operating system refused a read, write or sync */
  VEXFS_ERR_INVALID_ARGUMENT = -4,  /* a malformed name, path or parameter */
  VEXFS_ERR_ALREADY_EXISTS = -5,
  VEXFS_ERR_NOT_EMPTY = -6,
  VEXFS_ERR_NOT_DIRECTORY = -7,
  VEXFS_ERR_IS_DIRECTORY = -8,
  VEXFS_ERR_NO_SPACE = -9,
  VEXFS_ERR_READ_ONLY = -10,
  VEXFS_ERR_BUSY = -11,
  VEXFS_ERR_NAME_TOO_LONG = -12,
  VEXFS_ERR_FILE_TOO_LARGE = -13,
  VEXFS_ERR_NOT_SUPPORTED = -14,
  VEXFS_ERR_PERMISSION_DENIED = -15,
};

/* A short, static description of an error code ("not found"). */
const char* vexfs_strerror(int code);
/* The message of the calling thread's last failed call ("" if none): it names
 * what was wrong. Valid until the thread's next call into this API. */
const char* vexfs_last_error(void);
/* Releases bytes or a string this API returned. */
void vexfs_free(void* p);

/* ---- Stores ---------------------------------------------------------- */

typedef struct vexfs_store vexfs_store;

struct vexfs_store_params {
  int read_only;        /* open without writing (0: read and write) */
  uint64_t map_size;    /* most the store may hold, bytes (0: the default, 256 GiB) */
  const char* branch;   /* the branch file calls work on (NULL: the current one) */
  int background_indexing; /* index what any process commits in a background thread
                              while the handle is open (default 1; 0: searches with
                              `wait` index what is queued) */
};
struct vexfs_store_params vexfs_store_default_params(void);

/* Creates a new store in `path` (a new or empty directory). On failure *out is
 * set to NULL. */
int vexfs_store_create(const char* path, const struct vexfs_store_params* params,
                       vexfs_store** out);
/* Opens an existing store. VEXFS_ERR_BUSY if this process has it open already
 * (LMDB allows one open per process: share the handle, which is thread-safe). */
int vexfs_store_open(const char* path, const struct vexfs_store_params* params,
                     vexfs_store** out);
/* Closes the store (NULL is allowed). */
void vexfs_store_free(vexfs_store* store);

/* ---- Files ------------------------------------------------------------ */

/* Creates or replaces the file at `path`, creating missing parent directories. */
int vexfs_write_file(vexfs_store* store, const char* path, const void* data, size_t size);
/* The whole file at `path`: of the working tree, or of snapshot `at` when it is
 * not NULL. *data (NUL-terminated, for text; free with vexfs_free) and *size. */
int vexfs_read_file(vexfs_store* store, const char* path, const char* at, char** data,
                    size_t* size);
/* Removes a file, or a directory with everything in it when `recursive`. */
int vexfs_remove(vexfs_store* store, const char* path, int recursive);

enum vexfs_file_type {
  VEXFS_TYPE_FILE = 0,
  VEXFS_TYPE_DIRECTORY = 1,
  VEXFS_TYPE_SYMLINK = 2,
  VEXFS_TYPE_OTHER = 3, /* FIFO, socket, device */
};

struct vexfs_entry {
  const char* name;
  int type;       /* enum vexfs_file_type */
  uint64_t size;  /* bytes */
  int64_t mtime_ns;
};
/* Calls `fn` once per entry of directory `dir` ("" for the root) of the working
 * tree, or of snapshot `at`, in name order. The entry is valid during the call;
 * a non-zero return from `fn` stops the listing and is returned. */
int vexfs_list(vexfs_store* store, const char* dir, const char* at,
               int (*fn)(void* ctx, const struct vexfs_entry* entry), void* ctx);

/* ---- Search ----------------------------------------------------------- */

enum vexfs_search_mode {
  VEXFS_SEARCH_DEFAULT = 0, /* the library's default */
  VEXFS_SEARCH_HYBRID = 1,
  VEXFS_SEARCH_LEXICAL = 2,
  VEXFS_SEARCH_DENSE = 3,
};

struct vexfs_search_params {
  uint32_t k;         /* hits wanted, 1-10000 (default 10) */
  int mode;           /* enum vexfs_search_mode */
  const char* under;  /* only paths at or below this directory (NULL: all) */
  const char* at;     /* search this snapshot (NULL: the working tree) */
  int wait;           /* index pending changes first (default 1) */
};
struct vexfs_search_params vexfs_search_default_params(void);

typedef struct vexfs_search_result vexfs_search_result;

struct vexfs_hit {
  const char* path;
  uint64_t offset;  /* the passage's byte range in the file */
  uint64_t length;
  float score;      /* higher is better */
  const char* snippet;
};

/* Searches by words and meaning. *out holds the hits, best first. */
int vexfs_search(vexfs_store* store, const char* query, const struct vexfs_search_params* params,
                 vexfs_search_result** out);
size_t vexfs_search_result_count(const vexfs_search_result* result);
/* Hit `i` (< count); its strings live as long as the result. */
struct vexfs_hit vexfs_search_result_hit(const vexfs_search_result* result, size_t i);
void vexfs_search_result_free(vexfs_search_result* result);

/* ---- Versions --------------------------------------------------------- */

/* Snapshots the working tree as `name`; `id_hex` (may be NULL) receives the
 * commit id as 64 hex digits and a NUL. */
int vexfs_snapshot_create(vexfs_store* store, const char* name, const char* message,
                          char id_hex[65]);
/* Makes the working tree the snapshot's (what was written since is replaced). */
int vexfs_restore(vexfs_store* store, const char* snapshot);

enum vexfs_change {
  VEXFS_CHANGE_ADDED = 0,
  VEXFS_CHANGE_REMOVED = 1,
  VEXFS_CHANGE_MODIFIED = 2,
  VEXFS_CHANGE_RENAMED = 3,
  VEXFS_CHANGE_TYPE_CHANGED = 4,
};
/* Calls `fn` once per change from `from` to `to` (snapshot names or ids, or
 * "WORKING"); `old_path` is NULL except for renames. A non-zero return from
 * `fn` stops and is returned. */
int vexfs_diff(vexfs_store* store, const char* from, const char* to,
               int (*fn)(void* ctx, int change, const char* path, const char* old_path),
               void* ctx);

/* ---- History ---------------------------------------------------------- */
struct vexfs_commit {
  const char* id;           /* 64 hex digits */
  const char* parent;       /* the previous snapshot's id; NULL for the first */
  const char* branch;       /* the branch it was taken on */
  const char* message;
  int64_t time_ns;          /* when it was taken */
  const char* const* names; /* the snapshot names pointing at it */
  size_t name_count;
};
/* Calls `fn` once per snapshot in the history of `from` (a branch or a
 * snapshot; NULL: this handle's branch), newest first, at most `limit` (0: all).
 * The commit is valid during the call; a non-zero return from `fn` stops and is
 * returned. */
int vexfs_log(vexfs_store* store, const char* from, size_t limit,
              int (*fn)(void* ctx, const struct vexfs_commit* commit), void* ctx);
/* ---- Branches ---------------------------------------------------------- */
/* Creates branch `name` (1-255 bytes of [A-Za-z0-9._-], not starting with '.'
 * or '-', not "WORKING"): from snapshot `from` (a name or id), or, when `from` is NULL,
 * as a copy of this handle's branch's working tree, changes not yet snapshotted
 * included. The store's current branch does not change; open a handle with
 * `branch` set (or check it out) to work on the new one. */
int vexfs_branch_create(vexfs_store* store, const char* name, const char* from);
/* Makes `branch` the store's current branch: the one handles opened without a
 * branch work on from their next call, and the CLI's default. */
int vexfs_checkout(vexfs_store* store, const char* branch);
/* Deletes a branch and its working tree; its snapshots stay. Neither the current
 * branch (VEXFS_ERR_INVALID_ARGUMENT) nor one a writable mount serves
 * (VEXFS_ERR_BUSY) can be deleted. */
int vexfs_branch_delete(vexfs_store* store, const char* branch);
struct vexfs_branch {
  const char* name;
  const char* head; /* 64 hex digits of the last snapshot taken on it; NULL if none */
  int current;      /* 1 for the store's current branch */
};
/* Calls `fn` once per branch, in name order. The branch is valid during the
 * call; a non-zero return from `fn` stops the listing and is returned. */
int vexfs_branch_list(vexfs_store* store, int (*fn)(void* ctx, const struct vexfs_branch* branch),
                      void* ctx);

/* ---- Memory graph (docs/graph.md) --------------------------------------- */
/* Graph calls speak JSON (the encoding of docs/graph.md and the CLI's --json):
 * each returns its answer through a char** as a NUL-terminated JSON text the
 * caller releases with vexfs_free. Nodes are named by 32 hex digits, "key:KEY"
 * or "entity:NAME"; `at` names a snapshot (NULL: this handle's working graph). */

/* Writes `request_json`, {"nodes": [...], "links": [...]}, all or none;
 * `result_json` (may be NULL) receives the ids written and records_changed. */
int vexfs_graph_add(vexfs_store* store, const char* request_json, char** result_json);
/* A node or edge; VEXFS_ERR_NOT_FOUND if there is none valid now (all != 0:
 * also invalid and retired ones). */
int vexfs_graph_get(vexfs_store* store, const char* ref, const char* at, int all, char** node_json);
/* Nodes within `depth` (1-8) edges of `ref`: {"nodes": [...], "edges": [...]}. */
int vexfs_graph_neighbors(vexfs_store* store, const char* ref, int depth, const char* at,
                          char** json);
/* Finds nodes by the words and meaning of their texts. `request_json`:
 * {"query": "...", "k": 10, "mode": "lexical"|"dense"|"hybrid", "kinds": [...],
 * "thread": "...", "properties": {KEY: VALUE}, "files": true (rank the files
 * with them), "at": SNAPSHOT, "valid_at": TIME, "all": true}, all but query
 * optional. `result_json`: the search's JSON, a node's hit with "node" (its id)
 * instead of "path". Pending changes are indexed first. */
int vexfs_graph_search(vexfs_store* store, const char* request_json, char** result_json);
/* What changed from `from` to `to` (snapshots, or "WORKING"): {"changes": [...]}. */
int vexfs_graph_diff(vexfs_store* store, const char* from, const char* to, char** json);
/* Pending actions in `state` ("planned", "started", "done", "failed"; NULL:
 * any), as a JSON array. */
int vexfs_graph_actions(vexfs_store* store, const char* state, const char* at, char** json);
/* Moves a pending action to `state`, naming its result node (may be NULL). */
int vexfs_graph_set_action(vexfs_store* store, const char* ref, const char* state,
                           const char* result_ref);
/* Imports JSON lines of a conversation (`format`: "openai" or "anthropic")
 * into `thread`; importing the same text twice adds nothing. */
int vexfs_graph_import(vexfs_store* store, const char* jsonl, const char* format,
                       const char* thread, char** result_json);
/* Writes an imported thread back as JSON lines. */
int vexfs_graph_export(vexfs_store* store, const char* thread, const char* format, const char* at,
                       char** jsonl);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

#endif /* VEXFS_VEXFS_H_ */

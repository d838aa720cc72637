// Which VexFS a program runs against: the version of the library it loaded
// (libvexfs.so), for a program to log or to refuse a library older than it needs.
// Versions follow major.minor.patch; before 1.0 a minor release may change the
// library's ABI, so the soname carries major.minor (libvexfs.so.0.1).
//
// Thread-safety: pure functions.
#ifndef VEXFS_VERSION_H_
#define VEXFS_VERSION_H_

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs {

// "0.1.0": the version the library was built as. Static storage; never null.
const char* Version();

}  // namespace vexfs

#pragma GCC visibility pop

#endif  // VEXFS_VERSION_H_

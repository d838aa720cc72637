// Where VexFS finds the files it ships beside its code (llama.cpp's libraries,
// llama.cpp's tokenizer vocabularies, the default GloVe vectors): relative to
// the library or module this code was loaded from, so a prefix install and a
// Python wheel run wherever they are put, with no path of the build machine.
//
// Each is looked for, in order: in the environment variable named below; beside
// the loaded object in the layout of a prefix install (PREFIX/lib/libvexfs.so,
// PREFIX/lib/vexfs/llama/, PREFIX/share/vexfs/...) and of a Python wheel
// (site-packages/vexfs/_vexfs*.so, .../vexfs/llama/, .../vexfs/glove/...);
// last where this build's own setup put it (a build used in place: tests,
// benchmarks, the demo).
#ifndef VEXFS_COMMON_SHIPPED_FILES_H_
#define VEXFS_COMMON_SHIPPED_FILES_H_

#include <string>

namespace vexfs {

// The directory of the file holding this code: libvexfs.so, the Python module,
// or a program that links VexFS statically. Absolute; computed once.
const std::string& LoadedObjectDir();

// The directory of llama.cpp's libraries and its ggml backends ($VEXFS_LLAMA_LIB_DIR).
std::string ShippedLlamaLibraryDir();

// The directory of llama.cpp's tokenizer-only GGUF files ($VEXFS_LLAMA_VOCAB_DIR).
std::string ShippedLlamaVocabularyDir();

// The default embedder's GloVe vectors file ($VEXFS_GLOVE).
std::string ShippedGlovePath();

}  // namespace vexfs

#endif  // VEXFS_COMMON_SHIPPED_FILES_H_

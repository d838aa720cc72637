#include "kv/kv_test_util.h"

#include <sys/stat.h>
#include <unistd.h>

#include <memory>

#include "kv/gguf_ptr.h"
#include "kv/llama_runtime.h"
#include "vexfs/kv/model_init.h"

namespace vexfs::kv::test {
namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// The real Qwen2 tokenizer with its first two merges swapped (a different merge
// priority: another tokenizer that still loads).
std::string VariantVocab(const std::string& dir) {
  const std::string out = dir + "/vocab-qwen2-swapped-merges.gguf";
  if (Exists(out)) return out;
  gguf_init_params p{true, nullptr};
  GgufPtr src(gguf_init_from_file(VocabPath("qwen2").c_str(), p));
  if (!src) return "";
  GgufPtr dst(gguf_init_empty());
  gguf_set_kv(dst.get(), src.get());
  const int64_t k = gguf_find_key(src.get(), "tokenizer.ggml.merges");
  std::vector<std::string> merges;
  for (size_t i = 0; i < gguf_get_arr_n(src.get(), k); ++i) merges.push_back(gguf_get_arr_str(src.get(), k, i));
  std::swap(merges[0], merges[1]);
  std::vector<const char*> ptrs;
  for (const std::string& m : merges) ptrs.push_back(m.c_str());
  gguf_set_arr_str(dst.get(), "tokenizer.ggml.merges", ptrs.data(), ptrs.size());
  const std::string tmp = out + ".tmp." + std::to_string(::getpid());
  if (!gguf_write_to_file(dst.get(), tmp.c_str(), false)) return "";
  std::rename(tmp.c_str(), out.c_str());
  return out;
}

}  // namespace

std::string TinyModelPath(uint64_t seed, int tokenizer_variant) {
  const std::string dir = VEXFS_KV_TEST_MODEL_DIR;
  ::mkdir(dir.c_str(), 0755);
  const std::string path = dir + "/tiny-seed" + std::to_string(seed) + "-tok" +
                           std::to_string(tokenizer_variant) + ".gguf";
  if (Exists(path)) return path;
  ModelInitOptions o;
  o.shape = *ParseModelShape("tiny");
  o.seed = seed;
  o.stdev = 0.2f;
  o.output_path = path;
  if (tokenizer_variant == 1) o.vocab_path = VariantVocab(dir);
  Status s = InitRandomModel(o);
  return s.ok() ? path : "";
}

const std::string& PromptText() {
  static const std::string text =
      "The lighthouse keeper wrote in his log every evening. On the first night of the storm "
      "he noted that the barometer had fallen faster than at any time in the previous twenty "
      "years, that the supply boat had not come, and that the lamp needed a new wick before "
      "morning. He listed what remained in the store room: four tins of oil, a sack of flour, "
      "dried fish, candles, and a crate of books left by the engineer who had repaired the "
      "clockwork in the spring. By midnight the waves were breaking over the lower gallery. "
      "He climbed the stairs every hour to wind the mechanism and to wipe the salt from the "
      "glass, and each time he came down he added a line about the wind, the sea and the "
      "ships he could see, which were none. In the morning the storm had passed and the "
      "supply boat arrived with letters, coffee and news from the mainland.";
  return text;
}

RuntimeSettings TestSettings(CacheType k, CacheType v, bool flash_attn) {
  RuntimeSettings s;
  s.k_type = k;
  s.v_type = v;
  s.flash_attn = flash_attn;
  s.threads = 1;
  return s;
}

}  // namespace vexfs::kv::test

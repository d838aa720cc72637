// Reading and writing llama.cpp's per-sequence state blob (see blob_format.h).
// Every read is bounds-checked and a failure names the field it was reading.
#include "vexfs/kv/blob_format.h"

#include <cstring>

namespace vexfs::kv {
namespace {

constexpr uint32_t kSeqMagic = 0xaf143cd8u;

// Bounds-checked little-endian reads over the blob; every failure names the field.
class BlobReader {
 public:
  explicit BlobReader(std::string_view b) : b_(b) {}
  template <typename T>
  Result<T> Read(const char* what) {
    if (b_.size() - pos_ < sizeof(T)) return Short(what);
    T v;
    std::memcpy(&v, b_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  Result<std::string_view> Bytes(uint64_t n, const char* what) {
    if (b_.size() - pos_ < n) return Short(what);
    std::string_view v = b_.substr(pos_, n);
    pos_ += n;
    return v;
  }
  size_t remaining() const { return b_.size() - pos_; }

 private:
  Status Short(const char* what) const {
    return Status::Corruption(std::string("llama.cpp state blob ends inside ") + what);
  }
  std::string_view b_;
  size_t pos_ = 0;
};

template <typename T>
void Put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

Status Bad(const std::string& what) {
  return Status::Corruption("llama.cpp state blob: " + what);
}

Result<CacheType> ReadType(BlobReader& r, const char* what) {
  VEXFS_ASSIGN_OR_RETURN(int32_t t, r.Read<int32_t>(what));
  if (!IsCacheType(t)) {
    return Status::NotSupported("llama.cpp state blob: " + std::string(what) + " is ggml type " +
                                std::to_string(t) + " (f32, f16, bf16 and q8_0 are supported)");
  }
  return static_cast<CacheType>(t);
}

Status ReadCells(BlobReader& r, uint32_t count, int32_t seq_id, SeqState& s) {
  // Each cell takes at least 12 bytes: a count the blob cannot hold is refused
  // before anything is sized by it.
  if (uint64_t{count} * 12 > r.remaining()) {
    return Bad(std::to_string(count) + " cells do not fit in the blob (it ends inside the cells)");
  }
  s.positions.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    VEXFS_ASSIGN_OR_RETURN(int32_t pos, r.Read<int32_t>("cell position"));
    VEXFS_ASSIGN_OR_RETURN(uint32_t n_seq, r.Read<uint32_t>("cell sequence count"));
    if (n_seq != 1) return Status::NotSupported("llama.cpp state blob: a cell shared by sequences");
    VEXFS_ASSIGN_OR_RETURN(int32_t cell_seq, r.Read<int32_t>("cell sequence id"));
    if (cell_seq != seq_id) return Bad("cell of sequence " + std::to_string(cell_seq));
    s.positions.push_back(pos);
  }
  return Status::Ok();
}

Status ReadRows(BlobReader& r, uint32_t cells, uint32_t row, bool is_k, BlobLayer& layer) {
  const char* what = is_k ? "K type" : "V type";
  VEXFS_ASSIGN_OR_RETURN(CacheType type, ReadType(r, what));
  VEXFS_ASSIGN_OR_RETURN(uint64_t row_bytes, r.Read<uint64_t>(is_k ? "K row size" : "V row size"));
  if (row % 32 != 0 && type == CacheType::kQ8_0) return Bad("q8_0 row not a multiple of 32");
  if (row_bytes != CacheBytes(type, row)) {
    return Bad(std::string(is_k ? "K" : "V") + " row is " + std::to_string(row_bytes) +
               " bytes; the model's layer needs " + std::to_string(CacheBytes(type, row)));
  }
  VEXFS_ASSIGN_OR_RETURN(std::string_view data, r.Bytes(row_bytes * cells, is_k ? "K rows" : "V rows"));
  (is_k ? layer.k_type : layer.v_type) = type;
  (is_k ? layer.k : layer.v) = data;
  return Status::Ok();
}

Status ReadTransposedV(BlobReader& r, uint32_t cells, uint32_t row, BlobLayer& layer) {
  VEXFS_ASSIGN_OR_RETURN(CacheType type, ReadType(r, "V type"));
  if (type == CacheType::kQ8_0) return Bad("transposed V cannot be q8_0");
  VEXFS_ASSIGN_OR_RETURN(uint32_t el, r.Read<uint32_t>("V element size"));
  VEXFS_ASSIGN_OR_RETURN(uint32_t n_embd, r.Read<uint32_t>("V row elements"));
  if (el != CacheBytes(type, 1)) return Bad("V element size " + std::to_string(el));
  if (n_embd != row) return Bad("V row of " + std::to_string(n_embd) + " elements");
  VEXFS_ASSIGN_OR_RETURN(layer.v, r.Bytes(uint64_t{el} * row * cells, "transposed V"));
  layer.v_type = type;
  return Status::Ok();
}

Status ReadData(BlobReader& r, uint32_t cells, const BlobShape& shape, SeqState& s) {
  VEXFS_ASSIGN_OR_RETURN(uint32_t v_trans, r.Read<uint32_t>("v_trans"));
  VEXFS_ASSIGN_OR_RETURN(uint32_t n_layer, r.Read<uint32_t>("layer count"));
  if (v_trans > 1) return Bad("v_trans " + std::to_string(v_trans));
  if (n_layer != shape.n_layers) {
    return Bad(std::to_string(n_layer) + " layers; the model has " + std::to_string(shape.n_layers));
  }
  s.v_trans = v_trans == 1;
  s.layers.resize(n_layer);
  for (auto& layer : s.layers) VEXFS_RETURN_IF_ERROR(ReadRows(r, cells, shape.k_row, true, layer));
  for (auto& layer : s.layers) {
    VEXFS_RETURN_IF_ERROR(s.v_trans ? ReadTransposedV(r, cells, shape.v_row, layer)
                                    : ReadRows(r, cells, shape.v_row, false, layer));
  }
  return Status::Ok();
}

}  // namespace

const char* CacheTypeName(CacheType t) {
  switch (t) {
    case CacheType::kF32: return "f32";
    case CacheType::kF16: return "f16";
    case CacheType::kBF16: return "bf16";
    case CacheType::kQ8_0: return "q8_0";
  }
  return "unknown";
}

Result<CacheType> ParseCacheType(std::string_view name) {
  for (CacheType t : {CacheType::kF32, CacheType::kF16, CacheType::kBF16, CacheType::kQ8_0}) {
    if (name == CacheTypeName(t)) return t;
  }
  return Status::InvalidArgument("cache type '" + std::string(name) +
                                 "': expected f32, f16, bf16 or q8_0");
}

bool IsCacheType(int32_t t) { return t == 0 || t == 1 || t == 8 || t == 30; }

uint64_t CacheBytes(CacheType t, uint64_t elements) {
  switch (t) {
    case CacheType::kF32: return elements * 4;
    case CacheType::kQ8_0: return elements / 32 * 34;
    default: return elements * 2;
  }
}

Result<SeqState> ParseSeqState(std::string_view blob, const BlobShape& shape) {
  BlobReader r(blob);
  SeqState s;
  VEXFS_ASSIGN_OR_RETURN(uint32_t magic, r.Read<uint32_t>("magic"));
  if (magic != kSeqMagic) return Bad("wrong magic (not a sequence state)");
  VEXFS_ASSIGN_OR_RETURN(s.seq_id, r.Read<int32_t>("sequence id"));
  VEXFS_ASSIGN_OR_RETURN(s.n_stream, r.Read<uint32_t>("stream count"));
  if (s.n_stream == 0 || s.n_stream > 4096) return Bad(std::to_string(s.n_stream) + " streams");
  bool found = false;
  for (uint32_t stream = 0; stream < s.n_stream; ++stream) {
    VEXFS_ASSIGN_OR_RETURN(uint32_t cells, r.Read<uint32_t>("cell count"));
    if (cells == 0) continue;
    if (found) return Status::NotSupported("llama.cpp state blob: cells in more than one stream");
    found = true;
    s.stream = stream;
    VEXFS_RETURN_IF_ERROR(ReadCells(r, cells, s.seq_id, s));
    VEXFS_RETURN_IF_ERROR(ReadData(r, cells, shape, s));
  }
  if (!found) return Status::InvalidArgument("the sequence holds no tokens");
  if (r.remaining() != 0) return Bad(std::to_string(r.remaining()) + " bytes after the last stream");
  return s;
}

Result<std::string> BuildSeqState(const SeqState& s, const BlobShape& shape) {
  const uint32_t cells = static_cast<uint32_t>(s.positions.size());
  if (s.stream >= s.n_stream) return Status::InvalidArgument("target stream out of range");
  if (s.layers.size() != shape.n_layers) return Status::InvalidArgument("layer count mismatch");
  for (const BlobLayer& l : s.layers) {
    if (l.k.size() != CacheBytes(l.k_type, shape.k_row) * cells ||
        l.v.size() != CacheBytes(l.v_type, shape.v_row) * cells) {
      return Status::InvalidArgument("a layer's K or V bytes do not match its cells");
    }
  }
  uint64_t total = 12 + 4 * uint64_t{s.n_stream} + 12 * uint64_t{cells} + 8;
  for (const BlobLayer& l : s.layers) total += 24 + l.k.size() + l.v.size();
  std::string out;
  out.reserve(total);  // one allocation: the cache is most of it
  Put(out, kSeqMagic);
  Put(out, s.seq_id);
  Put(out, s.n_stream);
  for (uint32_t stream = 0; stream < s.n_stream; ++stream) {
    Put(out, stream == s.stream ? cells : 0u);
    if (stream != s.stream) continue;
    for (int32_t pos : s.positions) {
      Put(out, pos);
      Put(out, 1u);
      Put(out, s.seq_id);
    }
    Put(out, s.v_trans ? 1u : 0u);
    Put(out, shape.n_layers);
    for (const BlobLayer& l : s.layers) {
      Put(out, static_cast<int32_t>(l.k_type));
      Put(out, CacheBytes(l.k_type, shape.k_row));
      out.append(l.k);
    }
    for (const BlobLayer& l : s.layers) {
      Put(out, static_cast<int32_t>(l.v_type));
      if (s.v_trans) {
        Put(out, static_cast<uint32_t>(CacheBytes(l.v_type, 1)));
        Put(out, shape.v_row);
      } else {
        Put(out, CacheBytes(l.v_type, shape.v_row));
      }
      out.append(l.v);
    }
  }
  return out;
}

}  // namespace vexfs::kv

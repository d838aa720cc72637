// Capture (see capture.h): a prefilled sequence's state blob made canonical, with
// its KV metadata, and written as a state file with the source's reference.
#include "vexfs/kv/capture.h"

#include <sys/stat.h>


#include "kv/stopwatch.h"
#include "vexfs/kv/blob_format.h"

namespace vexfs::kv {
namespace {

// Positions go into the metadata as a start when they run 0.., 1.., else one by one.
void SetPositions(usxf::KvCacheInfo& info, const std::vector<int32_t>& positions) {
  bool contiguous = true;
  for (size_t i = 1; i < positions.size(); ++i) contiguous &= positions[i] == positions[0] + int32_t(i);
  info.positions_contiguous = contiguous;
  if (contiguous) {
    info.position_start = positions.empty() ? 0 : positions[0];
  } else {
    info.positions = positions;
  }
}

}  // namespace

Result<StateBundle> CaptureBundle(const Model& model, ModelContext& context,
                                  const std::vector<int32_t>& tokens, uint32_t block_size) {
  VEXFS_ASSIGN_OR_RETURN(std::string blob, context.ReadSeqState());
  const BlobShape shape = model.shape().blob();
  VEXFS_ASSIGN_OR_RETURN(SeqState state, ParseSeqState(blob, shape));
  if (state.positions.size() != tokens.size()) {
    return Status::InvalidArgument("the sequence holds " + std::to_string(state.positions.size()) +
                                   " cells for " + std::to_string(tokens.size()) + " tokens");
  }
  const CacheLayout layout = context.settings().Layout(model.shape());
  StateBundle b;
  VEXFS_ASSIGN_OR_RETURN(b.kv, ToCanonical(state, shape, layout.k_rotation, layout.v_rotation));
  b.info = model.DescribeKv();
  b.info.token_ids = tokens;
  SetPositions(b.info, state.positions);
  b.info.block_size = block_size;
  b.info.ComputeBlockHashes();
  b.info.k_rotation = b.kv.k_rotation;
  b.info.v_rotation = b.kv.v_rotation;
  b.next_logits = context.pending_logits();
  return b;
}

Result<CaptureReport> Capture(const Model& model, const CaptureOptions& o) {
  if (o.tokens.empty()) return Status::InvalidArgument("capture: the prompt has no tokens");
  CaptureReport report;
  const uint32_t n_ctx = static_cast<uint32_t>(o.tokens.size()) + o.reference_steps + 1;
  VEXFS_ASSIGN_OR_RETURN(auto context, ModelContext::Create(model, o.settings, n_ctx));
  Stopwatch clock;
  VEXFS_RETURN_IF_ERROR(context->Prefill(o.tokens, o.progress));
  report.prefill_seconds = clock.Seconds();

  clock.Restart();
  VEXFS_ASSIGN_OR_RETURN(StateBundle bundle, CaptureBundle(model, *context, o.tokens, o.block_size));
  report.capture_seconds = clock.Seconds();

  if (o.reference_steps > 0) {
    VEXFS_ASSIGN_OR_RETURN(Continuation c, context->Greedy(o.reference_steps));
    Reference ref;
    ref.settings = o.settings.Describe();
    for (size_t i = 0; i < c.tokens.size(); ++i) {
      ref.steps.push_back(MakeReferenceStep(c.tokens[i], c.logits[i], o.reference_top_k));
    }
    bundle.reference = std::move(ref);
    report.reference_tokens = c.tokens;
  }
  clock.Restart();
  VEXFS_RETURN_IF_ERROR(WriteStateFile(o.output_path, bundle, o.signer));
  report.write_seconds = clock.Seconds();

  report.n_tokens = static_cast<uint32_t>(o.tokens.size());
  report.type = bundle.kv.type;
  report.kv_bytes = bundle.kv.data.size();
  struct stat st;
  if (::stat(o.output_path.c_str(), &st) == 0) report.file_bytes = static_cast<uint64_t>(st.st_size);
  return report;
}

}  // namespace vexfs::kv

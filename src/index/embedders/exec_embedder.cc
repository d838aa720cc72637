// The exec embedder's side of the JSON-lines protocol (see exec_embedder.h):
// encoding requests, checking the handshake and every response, restarting.
#include "index/embedders/exec_embedder.h"

#include <nlohmann/json.hpp>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <utility>

namespace vexfs::index {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kInfoRequest = "{\"op\":\"info\"}\n";
constexpr size_t kMaxQuoted = 80;  // how much of a command or a bad line a message shows

// `text` for an error message: at most kMaxQuoted bytes, in quotes.
std::string Quote(std::string_view text) {
  if (text.size() <= kMaxQuoted) return "'" + std::string(text) + "'";
  return "'" + std::string(text.substr(0, kMaxQuoted)) + "...'";
}

// nlohmann says why a line is not JSON (a syntax error, or a number beyond double
// range such as 1e999) only in an exception; it stops here, at the boundary.
Result<Json> ParseLine(const std::string& line) {
  try {
    return Json::parse(line);
  } catch (const Json::exception& e) {
    std::string_view reason = e.what();
    size_t tag_end = reason.find("] ");  // drops "[json.exception.parse_error.101] "
    if (tag_end != std::string_view::npos) reason.remove_prefix(tag_end + 2);
    return Status::IOError("not valid JSON (" + std::string(reason) + "): " + Quote(line));
  }
}

bool IsValidModelName(std::string_view name) {
  if (name.empty() || name.size() > kMaxExecModelName) return false;
  for (unsigned char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == ':' || c == '-';
    if (!ok) return false;
  }
  return true;
}

Result<Metric> DecodeMetric(const Json& answer) {
  auto it = answer.find("metric");
  if (it == answer.end()) return Metric::kInnerProduct;
  if (it->is_string() && *it == "ip") return Metric::kInnerProduct;
  if (it->is_string() && *it == "l2") return Metric::kL2;
  return Status::IOError("\"metric\" must be \"ip\" or \"l2\", not " + Quote(it->dump()));
}

// Whether the model declares that it embeds sentences (the default search mode
// follows it: docs/search.md, "Modes").
Result<bool> DecodeSentenceKind(const Json& answer) {
  auto it = answer.find("kind");
  if (it == answer.end()) return false;
  if (it->is_string() && *it == "sentence") return true;
  if (it->is_string() && *it == "words") return false;
  return Status::IOError("\"kind\" must be \"sentence\" or \"words\", not " + Quote(it->dump()));
}

// The model a handshake answer declares, with the default fingerprint filled in.
Result<ModelInfo> DecodeInfo(const std::string& line, const std::string& command) {
  VEXFS_ASSIGN_OR_RETURN(Json answer, ParseLine(line));
  if (!answer.is_object()) return Status::IOError("answer is not a JSON object: " + Quote(line));
  ModelInfo info;
  auto model = answer.find("model");
  if (model == answer.end() || !model->is_string()) {
    return Status::IOError("answer has no string \"model\": " + Quote(line));
  }
  info.name = model->get<std::string>();
  if (!IsValidModelName(info.name)) {
    return Status::IOError("model name " + Quote(info.name) + " is not 1-" +
                           std::to_string(kMaxExecModelName) + " characters of [A-Za-z0-9._:-]");
  }
  auto dim = answer.find("dim");
  if (dim == answer.end() || !dim->is_number_unsigned() || dim->get<uint64_t>() < 1 ||
      dim->get<uint64_t>() > kMaxExecDim) {
    return Status::IOError("\"dim\" must be an integer from 1 to " +
                           std::to_string(kMaxExecDim) + ": " + Quote(line));
  }
  info.dim = static_cast<uint32_t>(dim->get<uint64_t>());
  VEXFS_ASSIGN_OR_RETURN(info.metric, DecodeMetric(answer));
  VEXFS_ASSIGN_OR_RETURN(info.sentence, DecodeSentenceKind(answer));
  auto fingerprint = answer.find("fingerprint");
  if (fingerprint == answer.end()) {
    info.fingerprint = "exec:" + command + ":" + info.name + ":" + std::to_string(info.dim);
  } else if (fingerprint->is_string() && !fingerprint->get<std::string>().empty()) {
    info.fingerprint = fingerprint->get<std::string>();
  } else {
    return Status::IOError("\"fingerprint\" must be a non-empty string: " + Quote(line));
  }
  return info;
}

// One response line into dim floats at `dst`.
Status DecodeVector(const std::string& line, uint32_t dim, float* dst) {
  VEXFS_ASSIGN_OR_RETURN(Json response, ParseLine(line));
  const Json* values = &response;
  if (response.is_object()) {
    auto it = response.find("vector");
    if (it == response.end()) return Status::IOError("object has no \"vector\": " + Quote(line));
    values = &*it;
  }
  if (!values->is_array()) {
    return Status::IOError("expected {\"vector\":[...]} or [...]: " + Quote(line));
  }
  if (values->size() != dim) {
    return Status::IOError("vector has " + std::to_string(values->size()) + " values, not " +
                           std::to_string(dim));
  }
  for (uint32_t i = 0; i < dim; ++i) {
    const Json& x = (*values)[i];
    if (!x.is_number()) return Status::IOError("value " + std::to_string(i) + " is not a number");
    // A double beyond float range would become infinity (or be undefined to
    // convert): JSON cannot say NaN, but 1e999 parses as infinity.
    double d = x.get<double>();
    if (!std::isfinite(d) || std::fabs(d) > FLT_MAX) {
      char shown[32];
      std::snprintf(shown, sizeof shown, "%g", d);
      return Status::IOError("value " + std::to_string(i) + " (" + shown +
                             ") is not a finite 32-bit float");
    }
    dst[i] = static_cast<float>(d);
  }
  return Status::Ok();
}

// One {"text":...} line per text. Invalid UTF-8 becomes U+FFFD rather than an
// exception: the texts come from files, and the protocol promises valid JSON.
std::string EncodeRequests(const std::vector<std::string_view>& texts) {
  std::string requests;
  for (std::string_view text : texts) {
    Json request = Json::object();
    request["text"] = std::string(text);
    requests += request.dump(-1, ' ', false, Json::error_handler_t::replace);
    requests += '\n';
  }
  return requests;
}

bool SameModel(const ModelInfo& a, const ModelInfo& b) {
  return a.name == b.name && a.dim == b.dim && a.metric == b.metric &&
         a.fingerprint == b.fingerprint;
}

std::string Describe(const ModelInfo& m) {
  return "'" + m.name + "' (dim " + std::to_string(m.dim) + ", metric " + MetricName(m.metric) +
         ", fingerprint " + Quote(m.fingerprint) + ")";
}

}  // namespace

ExecEmbedder::ExecEmbedder(std::string command, std::chrono::milliseconds timeout)
    : command_(std::move(command)), timeout_(timeout) {}

Status ExecEmbedder::Start() {
  if (child_ && child_->alive()) return Status::Ok();
  return Launch();
}

Status ExecEmbedder::Embed(const std::vector<std::string_view>& texts, std::vector<float>* out) {
  if (texts.empty()) return Status::Ok();
  VEXFS_RETURN_IF_ERROR(EnsureRunning());
  std::vector<float> vectors(texts.size() * info_.dim);
  VEXFS_RETURN_IF_ERROR(EmbedBatch(texts, &vectors));
  out->insert(out->end(), vectors.begin(), vectors.end());
  return Status::Ok();
}

Status ExecEmbedder::EnsureRunning() {
  if (child_) {
    Status idle = child_->CheckIdle();
    if (!idle.ok()) return Fail(idle);
    if (child_->alive()) return Status::Ok();
  }
  return Launch();
}

Status ExecEmbedder::Launch() {
  child_.reset();
  auto started = ChildProcess::Start(command_);
  if (!started.ok()) return Fail(started.status());
  child_ = std::move(started).value();
  VEXFS_ASSIGN_OR_RETURN(ModelInfo reported, Handshake());
  if (info_.dim != 0 && !SameModel(info_, reported)) {
    return Fail(Status::IOError("restarted process reports model " + Describe(reported) +
                                ", not " + Describe(info_)));
  }
  info_ = std::move(reported);
  return Status::Ok();
}

Result<ModelInfo> ExecEmbedder::Handshake() {
  std::vector<std::string> lines;
  Status exchanged = child_->Exchange(kInfoRequest, 1, timeout_, &lines);
  if (!exchanged.ok()) return Fail(exchanged.WithContext("handshake"));
  auto info = DecodeInfo(lines[0], command_);
  if (!info.ok()) return Fail(info.status().WithContext("handshake"));
  return info;
}

Status ExecEmbedder::EmbedBatch(const std::vector<std::string_view>& texts,
                                std::vector<float>* vectors) {
  std::vector<std::string> lines;
  lines.reserve(texts.size());
  Status exchanged = child_->Exchange(EncodeRequests(texts), texts.size(), timeout_, &lines);
  if (!exchanged.ok()) return Fail(exchanged);
  const uint32_t dim = info_.dim;
  for (size_t i = 0; i < lines.size(); ++i) {
    Status decoded = DecodeVector(lines[i], dim, vectors->data() + i * dim);
    if (!decoded.ok()) {
      return Fail(decoded.WithContext("response line " + std::to_string(i + 1) + " of " +
                                      std::to_string(texts.size())));
    }
  }
  return Status::Ok();
}

Status ExecEmbedder::Fail(const Status& error) {
  if (child_) child_->Kill();
  child_.reset();
  return error.WithContext("embedder command " + Quote(command_));
}

Result<std::unique_ptr<Embedder>> MakeExecEmbedder(std::string command,
                                                   std::chrono::milliseconds timeout) {
  auto embedder = std::make_unique<ExecEmbedder>(std::move(command), timeout);
  VEXFS_RETURN_IF_ERROR(embedder->Start());
  return std::unique_ptr<Embedder>(std::move(embedder));
}

}  // namespace vexfs::index

// A stand-in for an external embedding program, for exec_embedder_test. It speaks
// the exec protocol (see src/index/embedders/exec_embedder.h) and misbehaves on request.
//
//   fake_embedder [--starts FILE] MODE [ARG]
//
// --starts FILE   append "start PID" to FILE at every start (tests count restarts
//                 and check that processes are gone)
// MODE:
//   good DIM         vectors [byte length, byte 0, byte 1, ...] (bytes cycle; all 0
//                    after the length for an empty text), as {"vector":[...]}
//   bare DIM         the same vectors as bare arrays
//   wrong-dim DIM    DIM + 1 values
//   nan DIM          1e999 as first value (overflows to infinity)
//   garbage DIM      a line that is not JSON
//   crash-after N    dim 4; answers N texts, then exits at once with status 3
//   hang             dim 4; after the handshake never reads nor answers
//   slow-start MS    dim 4; sleeps MS milliseconds before the handshake answer
//   exit-now         exits with status 7 before the handshake
//   handshake LINE   answers the handshake with LINE verbatim, then acts as good 4
//   fickle           model "fickle-K" for the K-th start (needs --starts); answers
//                    one text, then exits with status 0
//
// In every mode, a text that is one of these triggers overrides the mode for that
// text: __garbage__, __nan__, __huge__ (-1e39: a finite double, too big for a
// float), __wrongdim__, __string__ (a string among the
// numbers), __novector__ (an object without "vector"), __crash__ (exit 3),
// __signal__ (killed by SIGTERM), __hang__, __crlf__ (the line ends in "\r\n"),
// __long__ (17 MiB of spaces before the answer), __extra__ (two answers at once),
// __late_extra__ (the answer, then 100 ms later an unasked line).
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace {

using Json = nlohmann::json;

struct Options {
  std::string starts_file;
  std::string mode;
  std::string arg;
};

// Starts recorded so far, this one included.
int RecordStart(const std::string& file) {
  if (file.empty()) return 1;
  std::ofstream(file, std::ios::app) << "start " << ::getpid() << "\n";
  std::ifstream in(file);
  int count = 0;
  for (std::string line; std::getline(in, line);) ++count;
  return count;
}

// Writes `line` and a newline with one write(), so it arrives whole.
void Send(const std::string& line) {
  std::string data = line + "\n";
  if (::write(STDOUT_FILENO, data.data(), data.size()) != static_cast<ssize_t>(data.size())) {
    std::exit(9);
  }
}

// The vector for `text`, as JSON number tokens.
std::vector<std::string> VectorFor(const std::string& text, int dim) {
  std::vector<std::string> v(dim, "0");
  v[0] = std::to_string(text.size());
  for (int i = 1; i < dim && !text.empty(); ++i) {
    v[i] = std::to_string(static_cast<unsigned char>(text[(i - 1) % text.size()]));
  }
  return v;
}

std::string Array(const std::vector<std::string>& tokens) {
  std::string s = "[";
  for (size_t i = 0; i < tokens.size(); ++i) s += (i ? "," : "") + tokens[i];
  return s + "]";
}

std::string Object(const std::vector<std::string>& tokens) {
  return "{\"vector\":" + Array(tokens) + "}";
}

[[noreturn]] void Hang() {
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

// The answer to one text, by `behaviour` (a mode or a trigger name).
void Answer(const std::string& behaviour, const std::string& text, int dim) {
  std::vector<std::string> v = VectorFor(text, dim);
  if (behaviour == "crash") std::exit(3);
  if (behaviour == "signal") ::kill(::getpid(), SIGTERM);
  if (behaviour == "hang") Hang();
  if (behaviour == "garbage") return Send("this is not json");
  if (behaviour == "nan") v[0] = "1e999";
  if (behaviour == "huge") v[0] = "-1e39";
  if (behaviour == "string") v[0] = "\"x\"";
  if (behaviour == "wrongdim" || behaviour == "wrong-dim") v.push_back("1");
  if (behaviour == "novector") return Send("{\"vectors\":" + Array(v) + "}");
  if (behaviour == "bare") return Send(Array(v));
  if (behaviour == "crlf") return Send(Object(v) + "\r");
  if (behaviour == "long") return Send(std::string(size_t{17} << 20, ' ') + Object(v));
  if (behaviour == "extra") return Send(Object(v) + "\n" + Object(v));
  Send(Object(v));
  if (behaviour == "late_extra") {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    Send(Object(v));
  }
}

// A text "__name__" names a trigger; anything else leaves the mode in force.
std::string BehaviourFor(const std::string& mode, const std::string& text) {
  if (text.size() > 4 && text.starts_with("__") && text.ends_with("__")) {
    return text.substr(2, text.size() - 4);
  }
  return mode;
}

void AnswerHandshake(const Options& o, int start, int dim) {
  if (o.mode == "slow-start") {
    std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(o.arg.c_str())));
  }
  if (o.mode == "handshake") return Send(o.arg);
  std::string model = o.mode == "fickle" ? "fickle-" + std::to_string(start) : "fake-" + o.mode;
  Send(Json{{"model", model}, {"dim", dim}}.dump());
  if (o.mode == "hang") Hang();
}

int Serve(const Options& o, int start) {
  bool dim_in_arg = o.mode == "good" || o.mode == "bare" || o.mode == "wrong-dim" ||
                    o.mode == "nan" || o.mode == "garbage";
  int dim = dim_in_arg ? std::atoi(o.arg.c_str()) : 4;
  // crash-after and fickle end after a number of answers, with these statuses.
  long answers_left = o.mode == "crash-after" ? std::atol(o.arg.c_str())
                      : o.mode == "fickle"    ? 1
                                              : -1;
  int end_status = o.mode == "fickle" ? 0 : 3;
  for (std::string line; std::getline(std::cin, line);) {
    Json request = Json::parse(line, nullptr, false);
    if (request.is_discarded() || !request.is_object()) return 8;
    if (request.contains("op")) {
      AnswerHandshake(o, start, dim);
      continue;
    }
    std::string text = request["text"].get<std::string>();
    Answer(BehaviourFor(o.mode, text), text, dim);
    if (answers_left > 0 && --answers_left == 0) return end_status;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  int i = 1;
  if (i + 1 < argc && std::string(argv[i]) == "--starts") {
    o.starts_file = argv[i + 1];
    i += 2;
  }
  if (i >= argc) {
    std::fprintf(stderr, "usage: fake_embedder [--starts FILE] MODE [ARG]\n");
    return 2;
  }
  o.mode = argv[i];
  if (i + 1 < argc) o.arg = argv[i + 1];
  int start = RecordStart(o.starts_file);
  if (o.mode == "exit-now") return 7;
  return Serve(o, start);
}

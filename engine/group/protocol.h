// The engine <-> collviz-rank protocol. Every message is one JSON object with
// a "type". Shared memory travels as a memfd over the channel.
//
//   worker -> engine  {"type":"hello","rank":r,"pid":p}
//   worker -> engine  {"type":"store_set","key":k,"value":hex}    (no reply)
//   worker -> engine  {"type":"store_get","key":k}
//   engine -> worker  {"type":"store_value","found":bool,"value":hex}
//   worker -> engine  {"type":"ready","backend":{...}} | {"type":"error","message":m,"text":t}
//                     (backend: "name","version", the English "devices","transport",
//                     "notes" and each one's message as "devices_text", ...)
//                     (m: the English; t: the message id and arguments,
//                     {"id":s,"args":[t...]} or {"lit":s}, engine/text.h)
//   engine -> worker  {"type":"map","bytes":n}  + memfd      -> {"type":"mapped"}
//   engine -> worker  {"type":"run","op","ranks","elems","dtype","redop","root",
//                      "in_offset","out_offset","warmup","iters","timeout_ms"}
//   worker -> engine  {"type":"done","op_us":t,"copy_us":c[,"copies":page-locked or
//                      pageable (why),"copies_text":its message, GPU only]} | {"type":"error",...}
//   engine -> worker  {"type":"rounds","algo","op","ranks","elems","dtype","redop","root",
//                      "in_offset","work_offset","from","to","warmup","iters"}
//                     (rounds [from, to) of the algorithm's schedule, engine/algo/)
//   engine -> worker  {"type":"schedule","text":t,"last":bool}   (an MSCCL file's run, before
//                     its round 1: the rank's part of the lowered schedule,
//                     engine/algo/schedule_wire.h, as JSON text cut in frames of
//                     at most 8 MiB; "rounds" then carries "from_file": true)
//   worker -> engine  after the last frame: {"type":"done"} | {"type":"error",...}
//   worker -> engine  {"type":"done","op_us","copy_us","sent","received"} | {"type":"error",...}
//   engine -> worker  {"type":"exit"}
//
// `collviz-rank --probe` prints {"backends":[{"name","available","reason",
// "version","devices","transport","notes","gpus","dtypes":[..],"redops":[..],
// "max_ranks","max_rank_bytes"}]} and exits. NCCL's object adds
// "version_code", "cuda_runtime" and "gpu_memory":[{"gpu","name","total",
// "free" (bytes) or "error", "source" ("nvml", or "cuda (why not NVML)")}],
// one per visible GPU.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/text.h"

namespace collviz::protocol {

nlohmann::json textToJson(const Text& t);
Text textFromJson(const nlohmann::json& j);  // anything malformed: an empty Text
// {"type":"error","message":english,"text":...}
nlohmann::json errorMessage(const Error& e);
// The Error a {"type":"error"} message carries (its text, else its message
// as a literal); `body` when it is not JSON at all.
Error errorFrom(const std::string& body);

std::string toHex(const std::vector<char>& bytes);
std::vector<char> fromHex(const std::string& hex);

}  // namespace collviz::protocol

namespace collviz {

// What the engine asks of a rank's run (the "run" and "rounds" messages).
// A fault inside one round of an algorithm (COLLVIZ_FAULT round_*, see
// worker/fault.h), acted on by the round runner on every backend.
struct RoundFault {
  enum class Kind : uint8_t { none, skip_recv, corrupt, swap, skip_reduce };
  Kind kind = Kind::none;
  int round = 0;  // 1-based: the schedule's round it hits
};

struct RunOptions {
  int warmup = 0;  // untimed iterations first
  int iters = 1;   // timed iterations; times are their average
  int timeout_ms = 0;  // one op's deadline (scaled with its bytes); 0: init's
  RoundFault round_fault = {};  // runRounds only; none unless COLLVIZ_FAULT asks
  // Whether the ranks meet (MPI: an untimed barrier, big ops only) before the
  // first timed call. A run split into single calls (the fault wrapper) asks
  // for it on the call that would have been the first timed one, so that
  // every rank makes the same sequence of MPI calls.
  bool meet = true;
};

// How long the engine waits for a group to join (spawn to every "ready"). A
// worker keeps its whole init (rendezvous and communicator set-up) inside
// 90 % of it, counted from its own start, so it reports first.
inline std::chrono::milliseconds joinBudget(std::chrono::milliseconds deadline) {
  return std::max(deadline, std::chrono::milliseconds(10000));
}

}  // namespace collviz

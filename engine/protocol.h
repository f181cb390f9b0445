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

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/status.h"
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

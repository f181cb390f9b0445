#include "engine/worker/mpi/common.h"

#include <cstdint>

#include "engine/worker/reduce_kind.h"
#include "engine/worker/reduce_ops.h"

namespace collviz {
namespace {

using reduce_ops::CombineKind;
using reduce_ops::Elem;
using reduce_ops::ElemKind;

// MPI's user function: inout[i] = inout[i] op in[i].
template <ElemKind K, CombineKind C>
void halfOp(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const uint16_t*>(in);
  auto* b = static_cast<uint16_t*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = Elem<K>::template combine<C>(b[i], a[i]);
}

template <ElemKind K>
void createFor(MPI_Op (&ops)[4]) {
  MPI_Op_create(&halfOp<K, CombineKind::sum>, 1, &ops[0]);
  MPI_Op_create(&halfOp<K, CombineKind::prod>, 1, &ops[1]);
  MPI_Op_create(&halfOp<K, CombineKind::min>, 1, &ops[2]);
  MPI_Op_create(&halfOp<K, CombineKind::max>, 1, &ops[3]);
}

MPI_Op builtin(RedOp r) {
  switch (r) {
    case RedOp::sum:
    case RedOp::avg: return MPI_SUM;
    case RedOp::prod: return MPI_PROD;
    case RedOp::min: return MPI_MIN;
    case RedOp::max: return MPI_MAX;
  }
  return MPI_SUM;
}

}  // namespace

MpiOps::~MpiOps() {
  int finalized = 1;
  MPI_Finalized(&finalized);
  if (!created_ || finalized) return;
  for (auto& row : half_)
    for (MPI_Op& op : row) MPI_Op_free(&op);
}

void MpiOps::create() {
  if (created_) return;
  createFor<ElemKind::f16>(half_[0]);
  createFor<ElemKind::bf16>(half_[1]);
  created_ = true;
}

MpiTypeOp MpiOps::of(DType t, RedOp r) const {
  const int c = int(combineKind(r));
  switch (t) {
    case DType::f32: return {MPI_FLOAT, builtin(r)};
    case DType::f64: return {MPI_DOUBLE, builtin(r)};
    case DType::i32: return {MPI_INT32_T, builtin(r)};
    case DType::i64: return {MPI_INT64_T, builtin(r)};
    case DType::u8: return {MPI_UINT8_T, builtin(r)};
    case DType::f16: return {MPI_UINT16_T, half_[0][c]};
    case DType::bf16: return {MPI_UINT16_T, half_[1][c]};
  }
  return {};
}

Text mpiErrorText(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) return say("MPI error {0}", code);
  return lit(std::string(text, std::size_t(len)));
}

}  // namespace collviz

//===- TwoProcessAmax.cpp - Amax reduction over NCCL, one process per GPU -===//
//
// Part of te. Usage: te-two-process-amax [nranks] (default 2). Forks one
// process per GPU before any CUDA call; rank 0 creates the NCCL unique id and
// sends it to the others through pipes. Every rank quantizes its shard (a
// block of rows) of a deterministic tensor with current scaling, with amax
// reduction (te_rt_comm_quantize), and the delayed-scaling update
// (te_rt_comm_update_scale); rank 0 also quantizes the gathered tensor on
// the cpu backend. Each rank checks, bit for bit: the reduced amax, the
// scale_inv and its rows of the rowwise data against the gathered cast, and
// the updated delayed scale; then NVFP4 with the RHT (both usages, bf16):
// the amax buffers and its part of every data and scale buffer of the
// gathered cast (checkNVFP4). Exit status 0 when every rank passes, 77 when
// the machine cannot run it (fewer GPUs than ranks, no NCCL), 1 otherwise.
//
//===----------------------------------------------------------------------===//

#include "te_rt_comm.h"

#include <cuda_runtime.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

constexpr int64_t kRows = 256, kCols = 512; // per shard

float element(int64_t row, int64_t col) {
  // Deterministic, distinct magnitudes per row block: the largest amax is
  // on the last rank.
  uint32_t h = static_cast<uint32_t>(row * 2654435761u ^ col * 40503u);
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  float u = (h & 0xFFFFFF) / float(1 << 24) - 0.5f;
  return u * (1.0f + float(row / kRows));
}

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      std::fprintf(stderr, "rank %d: ", rank);                                 \
      std::fprintf(stderr, __VA_ARGS__);                                       \
      std::fprintf(stderr, " (%s)\n", te_rt_last_error());                     \
      return 1;                                                                \
    }                                                                          \
  } while (0)

/// The host bytes of a buffer of `q` (context memory of `ctx`).
std::vector<uint8_t> download(te_rt_context *ctx, const te_rt_qtensor &q,
                              int i) {
  std::vector<uint8_t> b(static_cast<size_t>(q.buffers[i].size_bytes));
  te_rt_memcpy(ctx, b.data(), q.buffers[i].data, b.size(),
               TE_RT_DEVICE_TO_HOST);
  return b;
}

/// `rows` rows of `width` bytes of `a` (row stride `sa`, from byte `oa`)
/// equal those of `b` (stride `sb`, from `ob`).
bool sameRows(const std::vector<uint8_t> &a, int64_t sa, int64_t oa,
              const std::vector<uint8_t> &b, int64_t sb, int64_t ob,
              int64_t rows, int64_t width) {
  for (int64_t r = 0; r < rows; ++r)
    if (std::memcmp(a.data() + oa + r * sa, b.data() + ob + r * sb, width))
      return false;
  return true;
}

/// NVFP4 with the RHT, both usages, bf16 input: every rank's shard cast
/// with amax reduction must be its part of the gathered cast (cpu backend):
/// the amax buffers, the rowwise data and scales (its rows), the columnwise
/// data and scales (its columns of x^T; 256-row shards keep the RHT's
/// 16-element chunks and the 16-element groups inside a shard).
int checkNVFP4(int rank, int n, te_rt_context *cpu, te_rt_context *gpu,
               te_rt_comm *comm, const std::vector<float> &x) {
  const int64_t M = n * kRows, K = kCols;
  // bf16 = the upper half of the float (the oracle reads the same bytes).
  std::vector<uint16_t> xb(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    uint32_t u;
    std::memcpy(&u, &x[i], 4);
    xb[i] = static_cast<uint16_t>(u >> 16);
  }
  te_rt_quantizer qz;
  te_rt_quantizer_init_default(&qz);
  qz.recipe = TE_RT_RECIPE_NVFP4;
  qz.dtype = TE_RT_E2M1X2;
  qz.rht = 1;
  qz.rht_sign_mask = 0xD7E8;
  int64_t wshape[2] = {M, K}, sshape[2] = {kRows, K};
  te_rt_qtensor whole, shard;
  CHECK(te_rt_qtensor_alloc(cpu, &whole, &qz, 2, wshape,
                            TE_RT_ROWWISE_AND_COLUMNWISE,
                            TE_RT_SM90) == TE_RT_OK,
        "nvfp4 alloc");
  te_rt_tensor wt{xb.data(), TE_RT_BF16, 2, {M, K}};
  CHECK(te_rt_quantize(cpu, &wt, &whole, nullptr) == TE_RT_OK,
        "nvfp4 cpu cast");
  CHECK(te_rt_qtensor_alloc(gpu, &shard, &qz, 2, sshape,
                            TE_RT_ROWWISE_AND_COLUMNWISE,
                            TE_RT_SM90) == TE_RT_OK,
        "nvfp4 alloc");
  void *dx = nullptr;
  size_t bytes = static_cast<size_t>(kRows * K) * 2;
  CHECK(te_rt_malloc(gpu, bytes, &dx) == TE_RT_OK, "malloc");
  te_rt_memcpy(gpu, dx, xb.data() + rank * kRows * K, bytes,
               TE_RT_HOST_TO_DEVICE);
  te_rt_tensor st{dx, TE_RT_BF16, 2, {kRows, K}};
  CHECK(te_rt_comm_quantize(gpu, comm, &st, &shard, nullptr) == TE_RT_OK,
        "te_rt_comm_quantize nvfp4");
  CHECK(te_rt_synchronize(gpu, nullptr) == TE_RT_OK, "sync");
  te_rt_buffer_desc wd[TE_RT_MAX_BUFFERS], sd[TE_RT_MAX_BUFFERS];
  int32_t nw = 0, ns = 0;
  te_rt_qtensor_layout(&qz, 2, wshape, TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM90,
                       wd, TE_RT_MAX_BUFFERS, &nw);
  te_rt_qtensor_layout(&qz, 2, sshape, TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM90,
                       sd, TE_RT_MAX_BUFFERS, &ns);
  CHECK(nw == ns, "buffer counts");
  for (int i = 0; i < nw; ++i) {
    std::vector<uint8_t> w = download(cpu, whole, i),
                         s = download(gpu, shard, i);
    const te_rt_buffer_desc &W = wd[i], &S = sd[i];
    bool ok;
    if (W.rank == 1) { // the amaxes: the gathered tensor's
      ok = w == s;
    } else {
      // Bytes per element: 2 E2M1 codes per byte, or 1-byte E4M3 scales.
      int64_t sw = static_cast<int64_t>(w.size()) / W.shape[0];
      int64_t ss = static_cast<int64_t>(s.size()) / S.shape[0];
      if (!W.columnwise) // rows [rank * kRows, +kRows)
        ok = sameRows(w, sw, rank * kRows * sw, s, ss, 0, kRows, ss);
      else // x^T: for every k, columns [rank * kRows, +kRows) of M
        ok = sameRows(w, sw, rank * ss, s, ss, 0, S.shape[0], ss);
    }
    CHECK(ok, "nvfp4 %s differs from the gathered cast's part", W.name);
  }
  te_rt_free(gpu, dx);
  te_rt_qtensor_free(gpu, &shard);
  te_rt_qtensor_free(cpu, &whole);
  return 0;
}

int runRank(int rank, int n, const te_rt_comm_unique_id &id) {
  CHECK(cudaSetDevice(rank) == cudaSuccess, "cudaSetDevice failed");
  const int64_t M = n * kRows, K = kCols;
  std::vector<float> x(static_cast<size_t>(M * K));
  for (int64_t r = 0; r < M; ++r)
    for (int64_t c = 0; c < K; ++c)
      x[r * K + c] = element(r, c);
  float handAmax = 0.0f;
  for (float v : x)
    handAmax = std::fmax(handAmax, std::fabs(v));

  // Oracle: the gathered tensor on the cpu backend.
  te_rt_context *cpu = nullptr, *gpu = nullptr;
  CHECK(te_rt_context_create(TE_RT_BACKEND_CPU, &cpu) == TE_RT_OK, "cpu ctx");
  CHECK(te_rt_context_create(TE_RT_BACKEND_CUDA, &gpu) == TE_RT_OK, "cuda ctx");
  te_rt_quantizer qz;
  te_rt_quantizer_init_default(&qz);
  int64_t wshape[2] = {M, K}, sshape[2] = {kRows, K};
  te_rt_qtensor whole, shard;
  CHECK(te_rt_qtensor_alloc(cpu, &whole, &qz, 2, wshape, TE_RT_ROWWISE,
                            TE_RT_SM90) == TE_RT_OK,
        "alloc");
  te_rt_tensor wt{x.data(), TE_RT_F32, 2, {M, K}};
  CHECK(te_rt_quantize(cpu, &wt, &whole, nullptr) == TE_RT_OK, "cpu cast");

  te_rt_comm *comm = nullptr;
  CHECK(te_rt_comm_create_nccl(&id, rank, n, &comm) == TE_RT_OK,
        "te_rt_comm_create_nccl");
  CHECK(te_rt_qtensor_alloc(gpu, &shard, &qz, 2, sshape, TE_RT_ROWWISE,
                            TE_RT_SM90) == TE_RT_OK,
        "alloc");
  void *dx = nullptr, *damax = nullptr;
  size_t bytes = static_cast<size_t>(kRows * K) * 4;
  CHECK(te_rt_malloc(gpu, bytes, &dx) == TE_RT_OK, "malloc");
  CHECK(te_rt_malloc(gpu, 4, &damax) == TE_RT_OK, "malloc");
  CHECK(te_rt_memcpy(gpu, dx, x.data() + rank * kRows * K, bytes,
                     TE_RT_HOST_TO_DEVICE) == TE_RT_OK,
        "memcpy");
  te_rt_tensor st{dx, TE_RT_F32, 2, {kRows, K}};
  te_rt_quantize_args a;
  te_rt_quantize_args_init(&a);
  a.amax = static_cast<float *>(damax);
  CHECK(te_rt_comm_quantize(gpu, comm, &st, &shard, &a) == TE_RT_OK,
        "te_rt_comm_quantize");
  CHECK(te_rt_synchronize(gpu, nullptr) == TE_RT_OK, "sync");
  float reduced = -1.0f, sInvShard = 0.0f, sInvWhole = 0.0f;
  te_rt_memcpy(gpu, &reduced, damax, 4, TE_RT_DEVICE_TO_HOST);
  CHECK(reduced == handAmax, "reduced amax %a, gathered %a", reduced, handAmax);
  // Per-tensor FP8 rowwise: buffers[0] _data, buffers[1] _scale_inv.
  te_rt_memcpy(gpu, &sInvShard, shard.buffers[1].data, 4, TE_RT_DEVICE_TO_HOST);
  std::memcpy(&sInvWhole, whole.buffers[1].data, 4);
  CHECK(sInvShard == sInvWhole, "scale_inv %a, gathered %a", sInvShard,
        sInvWhole);
  std::vector<uint8_t> data(static_cast<size_t>(kRows * K));
  te_rt_memcpy(gpu, data.data(), shard.buffers[0].data, data.size(),
               TE_RT_DEVICE_TO_HOST);
  CHECK(std::memcmp(data.data(),
                    static_cast<uint8_t *>(whole.buffers[0].data) +
                        rank * kRows * K,
                    data.size()) == 0,
        "rowwise data differs from the gathered cast's rows");

  // Delayed scaling: history row 0 = this rank's amax, reduced, updated.
  te_rt_quantizer dq = qz;
  dq.recipe = TE_RT_RECIPE_DELAYED;
  dq.history_length = 2;
  float hist[2] = {0.0f, 0.25f}, scale = 1.0f;
  float local = 0.0f;
  for (int64_t i = 0; i < kRows * K; ++i)
    local = std::fmax(local, std::fabs(x[rank * kRows * K + i]));
  hist[0] = local;
  void *dh = nullptr, *ds = nullptr;
  CHECK(te_rt_malloc(gpu, 8, &dh) == TE_RT_OK &&
            te_rt_malloc(gpu, 4, &ds) == TE_RT_OK,
        "malloc");
  te_rt_memcpy(gpu, dh, hist, 8, TE_RT_HOST_TO_DEVICE);
  te_rt_memcpy(gpu, ds, &scale, 4, TE_RT_HOST_TO_DEVICE);
  CHECK(te_rt_comm_update_scale(gpu, comm, &dq, static_cast<float *>(dh),
                                static_cast<float *>(ds), 2, 1) == TE_RT_OK,
        "te_rt_comm_update_scale");
  CHECK(te_rt_synchronize(gpu, nullptr) == TE_RT_OK, "sync");
  te_rt_memcpy(gpu, &scale, ds, 4, TE_RT_DEVICE_TO_HOST);
  CHECK(scale == 448.0f / handAmax, "delayed scale %a, expected %a", scale,
        448.0f / handAmax);

  if (int r = checkNVFP4(rank, n, cpu, gpu, comm, x))
    return r;

  te_rt_comm_destroy(comm);
  std::printf("rank %d: ok (amax %a)\n", rank, reduced);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 2;
  if (!te_rt_comm_nccl_available()) {
    std::printf("SKIP: NCCL is not available on this machine\n");
    return 77;
  }
  // Counting devices initialises CUDA in this process: do it in a child.
  pid_t probe = fork();
  if (probe == 0) {
    int count = 0;
    _exit(cudaGetDeviceCount(&count) == cudaSuccess
              ? (count > 255 ? 255 : count)
              : 0);
  }
  int st = 0;
  waitpid(probe, &st, 0);
  int gpus = WIFEXITED(st) ? WEXITSTATUS(st) : 0;
  if (gpus < n) {
    std::printf("SKIP: %d ranks need %d GPUs, this machine has %d\n", n, n,
                gpus);
    return 77;
  }
  std::vector<int> pipes(2 * n);
  std::vector<pid_t> pids(n);
  for (int r = 0; r < n; ++r) {
    if (pipe(&pipes[2 * r]) != 0)
      return 1;
    pids[r] = fork();
    if (pids[r] == 0) {
      te_rt_comm_unique_id id;
      if (read(pipes[2 * r], &id, sizeof(id)) != sizeof(id))
        _exit(1);
      int rc = runRank(r, n, id);
      std::fflush(stdout); // _exit does not flush the rank's report
      _exit(rc);
    }
  }
  // The parent makes the id (no CUDA needed) and sends it to every rank.
  te_rt_comm_unique_id id;
  if (te_rt_comm_nccl_get_unique_id(&id) != TE_RT_OK) {
    std::fprintf(stderr, "ncclGetUniqueId: %s\n", te_rt_last_error());
    for (pid_t p : pids)
      kill(p, SIGKILL);
    return 1;
  }
  for (int r = 0; r < n; ++r)
    if (write(pipes[2 * r + 1], &id, sizeof(id)) != sizeof(id))
      return 1;
  int failed = 0;
  for (int r = 0; r < n; ++r) {
    int s = 0;
    waitpid(pids[r], &s, 0);
    if (!WIFEXITED(s) || WEXITSTATUS(s) != 0) {
      std::fprintf(stderr, "rank %d failed\n", r);
      failed = 1;
    }
  }
  std::printf(failed ? "FAIL\n" : "PASS: %d ranks\n", n);
  return failed;
}

//===- Comm.cpp - Amax all-reduce: CPU group and dlopen'd NCCL -----------===//
//
// Part of te. Implements te_rt_comm.h. NCCL is never linked: libnccl.so.2 is
// loaded with dlopen and the few entry points used are declared here.
//
//===----------------------------------------------------------------------===//

#include "te_rt_comm.h"

#include "Error.h"
#include "te/Format/Quantizer.h"

#include <dlfcn.h>

#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

using te::rt::fail;

namespace {

//===----------------------------------------------------------------------===//
// NCCL, declared by hand (nccl.h, NCCL 2.x ABI)
//===----------------------------------------------------------------------===//

typedef struct ncclComm *ncclComm_t;
typedef struct {
  char internal[TE_RT_COMM_UNIQUE_ID_BYTES];
} ncclUniqueId;
typedef int ncclResult_t; // ncclSuccess = 0
constexpr int kNcclFloat32 = 7;
constexpr int kNcclMax = 2;

struct Nccl {
  void *handle = nullptr;
  ncclResult_t (*getUniqueId)(ncclUniqueId *) = nullptr;
  ncclResult_t (*commInitRank)(ncclComm_t *, int, ncclUniqueId, int) = nullptr;
  ncclResult_t (*allReduce)(const void *, void *, size_t, int, int, ncclComm_t,
                            void *) = nullptr;
  ncclResult_t (*commDestroy)(ncclComm_t) = nullptr;
  const char *(*getErrorString)(ncclResult_t) = nullptr;
};

std::mutex ncclMutex;
Nccl ncclLib; // loaded once successfully; retried while it fails

const char *ncclLibraryName() {
  const char *env = std::getenv("TE_RT_NCCL_LIBRARY");
  return env && *env ? env : "libnccl.so.2";
}

/// Loads NCCL; on failure returns false and sets *why.
bool loadNccl(std::string *why) {
  std::lock_guard<std::mutex> lock(ncclMutex);
  if (ncclLib.handle)
    return true;
  const char *name = ncclLibraryName();
  void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    *why = std::string("NCCL is not available: cannot load ") + name + " (" +
           (e ? e : "unknown error") + ")";
    return false;
  }
  Nccl n;
  n.handle = h;
  n.getUniqueId =
      reinterpret_cast<decltype(n.getUniqueId)>(dlsym(h, "ncclGetUniqueId"));
  n.commInitRank =
      reinterpret_cast<decltype(n.commInitRank)>(dlsym(h, "ncclCommInitRank"));
  n.allReduce =
      reinterpret_cast<decltype(n.allReduce)>(dlsym(h, "ncclAllReduce"));
  n.commDestroy =
      reinterpret_cast<decltype(n.commDestroy)>(dlsym(h, "ncclCommDestroy"));
  n.getErrorString = reinterpret_cast<decltype(n.getErrorString)>(
      dlsym(h, "ncclGetErrorString"));
  if (!n.getUniqueId || !n.commInitRank || !n.allReduce || !n.commDestroy ||
      !n.getErrorString) {
    dlclose(h);
    *why = std::string("NCCL is not available: ") + name +
           " lacks ncclGetUniqueId/ncclCommInitRank/ncclAllReduce/"
           "ncclCommDestroy/ncclGetErrorString";
    return false;
  }
  ncclLib = n;
  return true;
}

te_rt_status ncclFail(const char *what, ncclResult_t r) {
  return fail(TE_RT_INTERNAL, std::string(what) +
                                  " failed: " + ncclLib.getErrorString(r) +
                                  " (" + std::to_string(r) + ")");
}

//===----------------------------------------------------------------------===//
// CPU group
//===----------------------------------------------------------------------===//

/// One in-process group: a reusable rendezvous. A round gathers every
/// rank's buffer into `acc` (elementwise fmaxf), then lets every rank copy
/// the result out; the next round starts when the last rank has left.
struct CpuGroup {
  explicit CpuGroup(int size) : size(size), taken(size, false) {}
  const int size;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<bool> taken;
  int arrived = 0;
  bool draining = false;
  bool mismatch = false;
  int64_t n = 0;
  std::vector<float> acc;

  te_rt_status allReduceMax(float *buf, int64_t count) {
    std::unique_lock<std::mutex> l(mu);
    cv.wait(l, [&] { return !draining; });
    if (arrived == 0) {
      n = count;
      mismatch = false;
      acc.assign(buf, buf + count);
    } else if (count != n) {
      mismatch = true;
    } else {
      for (int64_t i = 0; i < count; ++i)
        acc[i] = std::fmax(acc[i], buf[i]);
    }
    int64_t first = n;
    ++arrived;
    if (arrived == size) {
      draining = true;
      cv.notify_all();
    } else {
      cv.wait(l, [&] { return draining; });
    }
    bool ok = !mismatch;
    if (ok)
      std::memcpy(buf, acc.data(), static_cast<size_t>(count) * sizeof(float));
    if (--arrived == 0) {
      draining = false;
      cv.notify_all();
    }
    if (!ok)
      return fail(TE_RT_INVALID_ARGUMENT,
                  "te_rt_allreduce_max: ranks passed different element "
                  "counts (" +
                      std::to_string(first) + " and " + std::to_string(count) +
                      ")");
    return TE_RT_OK;
  }
};

template <typename F> te_rt_status guard(F &&f) {
  try {
    return f();
  } catch (const std::bad_alloc &) {
    return fail(TE_RT_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception &e) {
    return fail(TE_RT_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return fail(TE_RT_INTERNAL, "internal error");
  }
}

} // namespace

struct te_rt_comm_cpu_group {
  std::shared_ptr<CpuGroup> group;
};

struct te_rt_comm {
  te_rt_comm_kind kind;
  int rank;
  int size;
  std::shared_ptr<CpuGroup> group; // CPU
  ncclComm_t nccl = nullptr;       // NCCL
};

extern "C" {

int te_rt_comm_nccl_available(void) {
  std::string why;
  return loadNccl(&why) ? 1 : 0;
}

te_rt_status te_rt_comm_nccl_get_unique_id(te_rt_comm_unique_id *out) {
  return guard([&]() -> te_rt_status {
    if (!out)
      return fail(TE_RT_INVALID_ARGUMENT, "out is null");
    std::string why;
    if (!loadNccl(&why))
      return fail(TE_RT_BACKEND_UNAVAILABLE, why);
    ncclUniqueId id;
    if (ncclResult_t r = ncclLib.getUniqueId(&id))
      return ncclFail("ncclGetUniqueId", r);
    std::memcpy(out->internal, id.internal, sizeof(id.internal));
    return TE_RT_OK;
  });
}

te_rt_status te_rt_comm_create_nccl(const te_rt_comm_unique_id *id, int rank,
                                    int size, te_rt_comm **out) {
  return guard([&]() -> te_rt_status {
    if (!id || !out)
      return fail(TE_RT_INVALID_ARGUMENT, !id ? "id is null" : "out is null");
    *out = nullptr;
    if (size < 1 || rank < 0 || rank >= size)
      return fail(TE_RT_INVALID_ARGUMENT, "rank " + std::to_string(rank) +
                                              " is not in [0, " +
                                              std::to_string(size) + ")");
    std::string why;
    if (!loadNccl(&why))
      return fail(TE_RT_BACKEND_UNAVAILABLE, why);
    ncclUniqueId nid;
    std::memcpy(nid.internal, id->internal, sizeof(nid.internal));
    ncclComm_t c = nullptr;
    if (ncclResult_t r = ncclLib.commInitRank(&c, size, nid, rank))
      return ncclFail("ncclCommInitRank", r);
    auto *comm = new te_rt_comm{TE_RT_COMM_NCCL, rank, size, nullptr, c};
    *out = comm;
    return TE_RT_OK;
  });
}

/// The most ranks of an in-process group (te_rt_comm.h).
constexpr int kMaxCpuGroupSize = 4096;

te_rt_status te_rt_comm_cpu_group_create(int size, te_rt_comm_cpu_group **out) {
  return guard([&]() -> te_rt_status {
    if (!out)
      return fail(TE_RT_INVALID_ARGUMENT, "out is null");
    *out = nullptr;
    if (size < 1 || size > kMaxCpuGroupSize)
      return fail(TE_RT_INVALID_ARGUMENT,
                  "group size " + std::to_string(size) + " is not in 1.." +
                      std::to_string(kMaxCpuGroupSize) +
                      " (one rank is one thread of this process)");
    *out = new te_rt_comm_cpu_group{std::make_shared<CpuGroup>(size)};
    return TE_RT_OK;
  });
}

te_rt_status te_rt_comm_cpu_group_destroy(te_rt_comm_cpu_group *g) {
  delete g; // communicators keep the group alive
  return TE_RT_OK;
}

te_rt_status te_rt_comm_create_cpu(te_rt_comm_cpu_group *g, int rank,
                                   te_rt_comm **out) {
  return guard([&]() -> te_rt_status {
    if (!g || !out)
      return fail(TE_RT_INVALID_ARGUMENT, !g ? "group is null" : "out is null");
    *out = nullptr;
    CpuGroup &G = *g->group;
    if (rank < 0 || rank >= G.size)
      return fail(TE_RT_INVALID_ARGUMENT, "rank " + std::to_string(rank) +
                                              " is not in [0, " +
                                              std::to_string(G.size) + ")");
    {
      std::lock_guard<std::mutex> l(G.mu);
      if (G.taken[rank])
        return fail(TE_RT_INVALID_ARGUMENT,
                    "rank " + std::to_string(rank) +
                        " of the group already has a communicator");
      G.taken[rank] = true;
    }
    *out = new te_rt_comm{TE_RT_COMM_CPU, rank, G.size, g->group, nullptr};
    return TE_RT_OK;
  });
}

te_rt_status te_rt_comm_destroy(te_rt_comm *comm) {
  return guard([&]() -> te_rt_status {
    if (!comm)
      return TE_RT_OK;
    te_rt_status s = TE_RT_OK;
    if (comm->kind == TE_RT_COMM_NCCL && comm->nccl) {
      if (ncclResult_t r = ncclLib.commDestroy(comm->nccl))
        s = ncclFail("ncclCommDestroy", r);
    } else if (comm->group) {
      std::lock_guard<std::mutex> l(comm->group->mu);
      comm->group->taken[comm->rank] = false;
    }
    delete comm;
    return s;
  });
}

te_rt_status te_rt_comm_info(const te_rt_comm *comm, te_rt_comm_kind *kind,
                             int *rank, int *size) {
  if (!comm)
    return fail(TE_RT_INVALID_ARGUMENT, "comm is null");
  if (kind)
    *kind = comm->kind;
  if (rank)
    *rank = comm->rank;
  if (size)
    *size = comm->size;
  return TE_RT_OK;
}

te_rt_status te_rt_allreduce_max(te_rt_comm *comm, float *buf, int64_t n,
                                 void *stream) {
  return guard([&]() -> te_rt_status {
    if (!comm)
      return fail(TE_RT_INVALID_ARGUMENT, "comm is null");
    if (n < 0)
      return fail(TE_RT_INVALID_ARGUMENT,
                  "element count " + std::to_string(n) + " is negative");
    if (n > 0 && !buf)
      return fail(TE_RT_INVALID_ARGUMENT, "buf is null");
    if (reinterpret_cast<uintptr_t>(buf) % alignof(float))
      return fail(TE_RT_INVALID_ARGUMENT, "buf is not aligned to 4 bytes");
    if (comm->kind == TE_RT_COMM_CPU)
      return comm->group->allReduceMax(buf, n);
    if (ncclResult_t r =
            ncclLib.allReduce(buf, buf, static_cast<size_t>(n), kNcclFloat32,
                              kNcclMax, comm->nccl, stream))
      return ncclFail("ncclAllReduce", r);
    return TE_RT_OK;
  });
}

} // extern "C"

namespace {

te_rt_status checkPair(te_rt_context *ctx, te_rt_comm *comm) {
  if (!comm)
    return fail(TE_RT_INVALID_ARGUMENT, "comm is null");
  te_rt_backend b;
  if (te_rt_status s = te_rt_context_get_backend(ctx, &b))
    return s;
  te_rt_backend want =
      comm->kind == TE_RT_COMM_CPU ? TE_RT_BACKEND_CPU : TE_RT_BACKEND_CUDA;
  if (b != want)
    return fail(TE_RT_INVALID_ARGUMENT,
                comm->kind == TE_RT_COMM_CPU
                    ? "a CPU-group communicator needs a cpu context"
                    : "an NCCL communicator needs a cuda context");
  return TE_RT_OK;
}

/// Context memory for `n` floats, freed on scope exit.
struct Scratch {
  te_rt_context *ctx;
  float *p = nullptr;
  ~Scratch() { te_rt_free(ctx, p); }
  te_rt_status alloc(int64_t n) {
    void *v = nullptr;
    te_rt_status s = te_rt_malloc(ctx, static_cast<size_t>(n) * 4, &v);
    p = static_cast<float *>(v);
    if (!s)
      s = te_rt_memset_zero(ctx, p, static_cast<size_t>(n) * 4);
    return s;
  }
};

int bufferIndex(const te_rt_qtensor *q, const char *name) {
  te_rt_buffer_desc d[TE_RT_MAX_BUFFERS];
  int32_t nb = 0;
  if (te_rt_qtensor_layout(&q->quantizer, q->rank, q->shape, q->usage,
                           q->target, d, TE_RT_MAX_BUFFERS, &nb))
    return -1;
  for (int i = 0; i < nb; ++i)
    if (std::strcmp(d[i].name, name) == 0)
      return i;
  return -1;
}

} // namespace

extern "C" {

te_rt_status te_rt_comm_quantize(te_rt_context *ctx, te_rt_comm *comm,
                                 const te_rt_tensor *x, te_rt_qtensor *q,
                                 const te_rt_quantize_args *args) {
  return guard([&]() -> te_rt_status {
    if (te_rt_status s = checkPair(ctx, comm))
      return s;
    if (!q)
      return fail(TE_RT_INVALID_ARGUMENT, "q is null");
    te_rt_quantize_args a;
    te_rt_quantize_args_init(&a);
    if (args)
      a = *args;
    if (a.amax_in)
      return fail(TE_RT_INVALID_ARGUMENT,
                  "te_rt_comm_quantize computes args->amax_in itself; pass "
                  "NULL");
    // Recipes whose amax is not reducible quantize locally; an unknown
    // recipe value reaches te_rt_quantize, which names it.
    const int raw = static_cast<int>(q->quantizer.recipe);
    if (raw < 0 || raw >= te::format::kNumRecipes)
      return te_rt_quantize(ctx, x, q, &a);
    const auto recipe = static_cast<te::format::Recipe>(raw);
    if (!te::format::recipeTraits(recipe).groupAmax)
      return te_rt_quantize(ctx, x, q, &a);
    if (te::format::recipeTraits(recipe).amaxInputs == 1) {
      // Per-tensor current scaling: the amax of the input, reduced.
      Scratch amax{ctx};
      if (te_rt_status s = amax.alloc(1))
        return s;
      if (te_rt_status s = te_rt_amax(ctx, x, amax.p))
        return s;
      if (te_rt_status s = te_rt_allreduce_max(comm, amax.p, 1, a.stream))
        return s;
      a.amax_in = amax.p;
      return te_rt_quantize(ctx, x, q, &a);
    }
    {
      // Per-row global amaxes are not one number to reduce.
      if (q->quantizer.row_scaled)
        return fail(TE_RT_UNSUPPORTED,
                    "amax reduction is not supported for row-scaled nvfp4");
      // NVFP4: a local cast writes the local rowwise / columnwise (post-RHT)
      // amaxes into the tensor's amax buffers; reduce them, cast again.
      if (te_rt_status s = te_rt_quantize(ctx, x, q, &a))
        return s;
      Scratch amax{ctx};
      if (te_rt_status s = amax.alloc(2))
        return s;
      const char *names[2] = {"_amax_rowwise", "_amax_columnwise"};
      for (int i = 0; i < 2; ++i) {
        int b = bufferIndex(q, names[i]);
        if (b >= 0)
          if (te_rt_status s = te_rt_memcpy(ctx, amax.p + i, q->buffers[b].data,
                                            4, TE_RT_DEVICE_TO_DEVICE))
            return s;
      }
      if (te_rt_status s = te_rt_allreduce_max(comm, amax.p, 2, a.stream))
        return s;
      a.amax_in = amax.p;
      return te_rt_quantize(ctx, x, q, &a);
    }
  });
}

te_rt_status te_rt_comm_update_scale(te_rt_context *ctx, te_rt_comm *comm,
                                     const te_rt_quantizer *q,
                                     float *amax_history, float *scale,
                                     int64_t history_length,
                                     int64_t num_scales) {
  return guard([&]() -> te_rt_status {
    if (te_rt_status s = checkPair(ctx, comm))
      return s;
    if (!amax_history)
      return fail(TE_RT_INVALID_ARGUMENT, "amax_history is null");
    if (num_scales < 0)
      return fail(TE_RT_INVALID_ARGUMENT, "num_scales is negative");
    if (te_rt_status s =
            te_rt_allreduce_max(comm, amax_history, num_scales, nullptr))
      return s;
    return te_rt_update_scale(ctx, q, amax_history, scale, history_length,
                              num_scales);
  });
}

} // extern "C"

//===----------------------------------------------------------------------===//
// The group registry (per thread)
//===----------------------------------------------------------------------===//

namespace {
std::map<std::string, te_rt_comm *> &registry() {
  thread_local std::map<std::string, te_rt_comm *> groups;
  return groups;
}
} // namespace

extern "C" {

te_rt_status te_rt_comm_register_group(const char *name, te_rt_comm *comm) {
  return guard([&]() -> te_rt_status {
    if (!name || !*name)
      return fail(TE_RT_INVALID_ARGUMENT, "group name is null or empty");
    if (!comm)
      return fail(TE_RT_INVALID_ARGUMENT, "comm is null");
    if (!registry().emplace(name, comm).second)
      return fail(TE_RT_INVALID_ARGUMENT,
                  std::string("process group '") + name +
                      "' is already registered on this thread");
    return TE_RT_OK;
  });
}

te_rt_status te_rt_comm_unregister_group(const char *name) {
  return guard([&]() -> te_rt_status {
    if (!name || !*name)
      return fail(TE_RT_INVALID_ARGUMENT, "group name is null or empty");
    if (registry().erase(name) == 0)
      return fail(TE_RT_INVALID_ARGUMENT,
                  std::string("process group '") + name +
                      "' is not registered on this thread");
    return TE_RT_OK;
  });
}

te_rt_status te_rt_comm_lookup_group(const char *name, te_rt_comm **out) {
  return guard([&]() -> te_rt_status {
    if (!out)
      return fail(TE_RT_INVALID_ARGUMENT, "out is null");
    *out = nullptr;
    if (!name || !*name)
      return fail(TE_RT_INVALID_ARGUMENT, "group name is null or empty");
    auto it = registry().find(name);
    if (it == registry().end())
      return fail(TE_RT_INVALID_ARGUMENT,
                  std::string("no communicator is registered for process "
                              "group '") +
                      name +
                      "' on this thread (te_rt_comm_register_group; te-run "
                      "--comm-group " +
                      name + "=cpu:1)");
    *out = it->second;
    return TE_RT_OK;
  });
}

} // extern "C"

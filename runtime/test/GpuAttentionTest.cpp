//===- GpuAttentionTest.cpp - The cuda backend's flash attention ----------===//
//
// Part of te. The cuda backend's Backend::attention / attentionGrad
// (runtime/cuda/attention) against a double-precision oracle written here
// (PyTorch SDPA's semantics: top-left causal, additive and boolean masks
// broadcast by size-1 dimensions, grouped-query heads, a row with no key
// gives O = 0 and LSE = -inf): ragged lengths, L > S and L < S, head dims 64
// and 128, bf16 and f16, strided layouts; and the cases the kernels refuse.
// Skips itself without a GPU.
//
// Tolerances follow from where the kernels round: P and dS are rounded to
// the input type before their products, O and the gradients once when
// stored, the backward's rowsum(dO * O) reads the rounded O. With eps the
// type's machine epsilon, an element of O may differ from the oracle by
// eps * (2 * sum_j P_ij |V_jd| + |O_id|); dV by eps * (2 * sum_i P_ij
// |dO_id| + |dV_jd|); dK and dQ by eps * (2 * mag + |ref|) with mag = scale *
// sum P (|dP| + sum_d |dO O|) |Q or K|: twice the bound of each rounding,
// plus a 1e-5 floor for the fp32 sums.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"
#include "Error.h"
#include "attention/FlashAttention.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

using te::format::DType;
using te::rt::AttentionMask;
using te::rt::Backend;

constexpr double kInf = std::numeric_limits<double>::infinity();

/// TE_ATTN_NEW_KERNELS=1: also check the kernels not yet made the default
/// (FlashAttention.h: the warp-specialized forward, the 128-key backward).
bool newKernels() {
  const char *v = std::getenv("TE_ATTN_NEW_KERNELS");
  return v && std::string(v) == "1";
}

uint16_t encode(float x, DType t) {
  uint16_t u;
  if (t == DType::BF16) {
    __nv_bfloat16 b = __float2bfloat16(x);
    std::memcpy(&u, &b, 2);
  } else {
    __half h = __float2half(x);
    std::memcpy(&u, &h, 2);
  }
  return u;
}

double decode(uint16_t u, DType t) {
  if (t == DType::BF16) {
    __nv_bfloat16 b;
    std::memcpy(&b, &u, 2);
    return __bfloat162float(b);
  }
  __half h;
  std::memcpy(&h, &u, 2);
  return __half2float(h);
}

struct Problem {
  int B = 1, Hq = 1, Hkv = 1, L = 1, S = 1, D = 64;
  DType dtype = DType::BF16;
  bool causal = false;
  AttentionMask maskKind = AttentionMask::None;
  DType maskType = DType::F32;
  int maskShape[4] = {1, 1, 1, 1}; ///< last entry: 1 or S
  /// Device layout [B, L, H, D] (strides of a transposed view) instead of
  /// [B, H, L, D]; rowPad extra elements at the end of each row.
  bool bshd = false;
  int rowPad = 0;
  /// Fraction of mask entries that exclude their key; rows listed in
  /// maskedRows exclude every key.
  double maskDrop = 0.25;
  std::vector<int> maskedRows;
  bool saveLse = true;
  uint64_t seed = 1;
};

/// A device buffer for one [B, H, R, C] operand in the problem's layout.
struct DevTensor {
  int B = 0, H = 0, R = 0, C = 0;
  int64_t strides[4] = {0, 0, 0, 1};
  size_t elems = 0;
  void *ptr = nullptr;

  void init(int b, int h, int r, int c, bool bshd, int pad) {
    B = b, H = h, R = r, C = c;
    const int64_t row = c + pad;
    if (bshd) {
      strides[2] = h * row; // [B, R, H, C]
      strides[1] = row;
      strides[0] = int64_t(r) * h * row;
    } else {
      strides[2] = row;
      strides[1] = int64_t(r) * row;
      strides[0] = int64_t(h) * r * row;
    }
    strides[3] = 1;
    elems = size_t(b) * h * r * row;
    ASSERT_EQ(cudaMalloc(&ptr, elems * 2 + 16), cudaSuccess);
    // 0xFFFF: NaN in bf16 and f16, so an element nobody wrote shows.
    ASSERT_EQ(cudaMemset(ptr, 0xFF, elems * 2 + 16), cudaSuccess);
  }
  ~DevTensor() {
    if (ptr)
      cudaFree(ptr);
  }
  int64_t offset(int b, int h, int r, int c) const {
    return b * strides[0] + h * strides[1] + r * strides[2] + c;
  }
  void upload(const std::vector<uint16_t> &logical) {
    std::vector<uint16_t> buf(elems, 0xFFFF);
    for (int b = 0; b < B; ++b)
      for (int h = 0; h < H; ++h)
        for (int r = 0; r < R; ++r)
          for (int c = 0; c < C; ++c)
            buf[offset(b, h, r, c)] =
                logical[((size_t(b) * H + h) * R + r) * C + c];
    ASSERT_EQ(cudaMemcpy(ptr, buf.data(), elems * 2, cudaMemcpyHostToDevice),
              cudaSuccess);
  }
  std::vector<uint16_t> download() const {
    std::vector<uint16_t> buf(elems), logical(size_t(B) * H * R * C);
    EXPECT_EQ(cudaMemcpy(buf.data(), ptr, elems * 2, cudaMemcpyDeviceToHost),
              cudaSuccess);
    for (int b = 0; b < B; ++b)
      for (int h = 0; h < H; ++h)
        for (int r = 0; r < R; ++r)
          for (int c = 0; c < C; ++c)
            logical[((size_t(b) * H + h) * R + r) * C + c] =
                buf[offset(b, h, r, c)];
    return logical;
  }
  te::rt::AttentionOperand operand() const {
    te::rt::AttentionOperand o;
    o.data = ptr;
    o.shape[0] = B, o.shape[1] = H, o.shape[2] = R, o.shape[3] = C;
    for (int i = 0; i < 4; ++i)
      o.strides[i] = strides[i];
    return o;
  }
};

class GpuAttention : public ::testing::Test {
protected:
  void SetUp() override {
    if (!te::rt::cudaBackendAvailable())
      GTEST_SKIP() << "no usable GPU";
    std::string error;
    backend = te::rt::createCudaBackend(&error);
    ASSERT_TRUE(backend) << error;
  }

  /// Runs the forward (and, with `grad`, the backward) of `pb` on the GPU
  /// and checks every result against the oracle.
  void check(const Problem &pb, bool grad = true);

  std::unique_ptr<Backend> backend;
};

void GpuAttention::check(const Problem &pb, bool grad) {
  const int B = pb.B, Hq = pb.Hq, Hkv = pb.Hkv, L = pb.L, S = pb.S, D = pb.D;
  const int group = Hq / Hkv;
  const DType t = pb.dtype;
  const double scale = 1.0 / std::sqrt(double(D));
  const double eps =
      t == DType::BF16 ? std::ldexp(1.0, -7) : std::ldexp(1.0, -10);
  std::mt19937_64 rng(pb.seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<double> uni(0.0, 1.0);

  auto randomTensor = [&](size_t n, std::vector<uint16_t> &bits,
                          std::vector<double> &vals) {
    bits.resize(n);
    vals.resize(n);
    for (size_t i = 0; i < n; ++i) {
      bits[i] = encode(normal(rng), t);
      vals[i] = decode(bits[i], t);
    }
  };
  std::vector<uint16_t> qb, kb, vb, dob;
  std::vector<double> q, k, v, dout;
  randomTensor(size_t(B) * Hq * L * D, qb, q);
  randomTensor(size_t(B) * Hkv * S * D, kb, k);
  randomTensor(size_t(B) * Hkv * S * D, vb, v);
  randomTensor(size_t(B) * Hq * L * D, dob, dout);

  // The mask, as the oracle reads it (additive value, or -inf).
  const int *ms = pb.maskShape;
  const size_t maskElems = size_t(ms[0]) * ms[1] * ms[2] * ms[3];
  std::vector<double> maskVal(maskElems, 0.0);
  std::vector<uint8_t> maskBytes;
  if (pb.maskKind != AttentionMask::None) {
    maskBytes.resize(maskElems * 4);
    for (size_t i = 0; i < maskElems; ++i) {
      const int r = int(i / ms[3] % ms[2]);
      bool drop = uni(rng) < pb.maskDrop;
      for (int mr : pb.maskedRows)
        drop = drop || (ms[2] > 1 && r == mr);
      if (pb.maskKind == AttentionMask::Boolean) {
        maskBytes[i] = drop ? 0 : uint8_t(1 + rng() % 255);
        maskVal[i] = drop ? -kInf : 0.0;
        continue;
      }
      float x = drop ? -INFINITY : float(uni(rng) * 4.0 - 2.0);
      if (pb.maskType == DType::F32) {
        std::memcpy(&maskBytes[4 * i], &x, 4);
        maskVal[i] = x;
      } else {
        uint16_t u = encode(x, pb.maskType);
        std::memcpy(&maskBytes[2 * i], &u, 2);
        maskVal[i] = decode(u, pb.maskType);
      }
    }
  }
  auto maskAt = [&](int b, int h, int i, int j) {
    if (pb.maskKind == AttentionMask::None)
      return 0.0;
    const size_t idx =
        ((size_t(ms[0] > 1 ? b : 0) * ms[1] + (ms[1] > 1 ? h : 0)) * ms[2] +
         (ms[2] > 1 ? i : 0)) *
            ms[3] +
        (ms[3] > 1 ? j : 0);
    return maskVal[idx];
  };

  // The oracle: forward and backward in double.
  std::vector<double> oRef(size_t(B) * Hq * L * D, 0.0), oMag(oRef.size(), 0.0),
      lseRef(size_t(B) * Hq * L), dqRef(oRef.size(), 0.0),
      dqMag(oRef.size(), 0.0), dkRef(k.size(), 0.0), dkMag(k.size(), 0.0),
      dvRef(v.size(), 0.0), dvMag(v.size(), 0.0);
  std::vector<double> p(S), dp(S);
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < Hq; ++h) {
      const int hk = h / group;
      for (int i = 0; i < L; ++i) {
        const double *qi = &q[((size_t(b) * Hq + h) * L + i) * D];
        const double *doi = &dout[((size_t(b) * Hq + h) * L + i) * D];
        double mx = -kInf;
        for (int j = 0; j < S; ++j) {
          const double *kj = &k[((size_t(b) * Hkv + hk) * S + j) * D];
          double s = 0;
          for (int d = 0; d < D; ++d)
            s += qi[d] * kj[d];
          s = s * scale + maskAt(b, h, i, j);
          if (pb.causal && j > i)
            s = -kInf;
          p[j] = s;
          mx = std::max(mx, s);
        }
        const size_t row = (size_t(b) * Hq + h) * L + i;
        if (mx == -kInf) { // no key: O = 0, LSE = -inf, no gradient
          lseRef[row] = -kInf;
          continue;
        }
        double sum = 0;
        for (int j = 0; j < S; ++j)
          sum += p[j] = std::exp(p[j] - mx);
        lseRef[row] = mx + std::log(sum);
        for (int j = 0; j < S; ++j)
          p[j] /= sum;
        double *oi = &oRef[row * D];
        for (int j = 0; j < S; ++j) {
          const double *vj = &v[((size_t(b) * Hkv + hk) * S + j) * D];
          for (int d = 0; d < D; ++d) {
            oi[d] += p[j] * vj[d];
            oMag[row * D + d] += p[j] * std::abs(vj[d]);
          }
        }
        double delta = 0, deltaMag = 0;
        for (int d = 0; d < D; ++d) {
          delta += doi[d] * oi[d];
          deltaMag += std::abs(doi[d] * oi[d]);
        }
        for (int j = 0; j < S; ++j) {
          const size_t kv = ((size_t(b) * Hkv + hk) * S + j) * D;
          double x = 0;
          for (int d = 0; d < D; ++d)
            x += doi[d] * v[kv + d];
          dp[j] = x;
          const double ds = p[j] * (x - delta);
          const double dsMag = p[j] * (std::abs(x) + deltaMag);
          for (int d = 0; d < D; ++d) {
            dvRef[kv + d] += p[j] * doi[d];
            dvMag[kv + d] += p[j] * std::abs(doi[d]);
            dkRef[kv + d] += scale * ds * qi[d];
            dkMag[kv + d] += scale * dsMag * std::abs(qi[d]);
            dqRef[row * D + d] += scale * ds * k[kv + d];
            dqMag[row * D + d] += scale * dsMag * std::abs(k[kv + d]);
          }
        }
      }
    }

  // The GPU.
  DevTensor dq, dk, dv, dq_, dk_, dv_, o, dO;
  dq.init(B, Hq, L, D, pb.bshd, pb.rowPad);
  dk.init(B, Hkv, S, D, pb.bshd, pb.rowPad);
  dv.init(B, Hkv, S, D, pb.bshd, pb.rowPad);
  o.init(B, Hq, L, D, pb.bshd, pb.rowPad);
  dO.init(B, Hq, L, D, pb.bshd, pb.rowPad);
  dq_.init(B, Hq, L, D, pb.bshd, pb.rowPad);
  dk_.init(B, Hkv, S, D, pb.bshd, pb.rowPad);
  dv_.init(B, Hkv, S, D, pb.bshd, pb.rowPad);
  dq.upload(qb);
  dk.upload(kb);
  dv.upload(vb);
  dO.upload(dob);
  float *lse = nullptr;
  void *mask = nullptr;
  ASSERT_EQ(cudaMalloc(&lse, lseRef.size() * 4 + 4), cudaSuccess);
  ASSERT_EQ(cudaMemset(lse, 0xFF, lseRef.size() * 4 + 4), cudaSuccess);
  if (!maskBytes.empty()) {
    ASSERT_EQ(cudaMalloc(&mask, maskBytes.size()), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(mask, maskBytes.data(), maskBytes.size(),
                         cudaMemcpyHostToDevice),
              cudaSuccess);
  }

  te::rt::Attention a;
  a.dtype = t;
  a.q = dq.operand();
  a.k = dk.operand();
  a.v = dv.operand();
  a.o = o.operand();
  a.lse = pb.saveLse ? lse : nullptr;
  a.scale = float(scale);
  a.causal = pb.causal;
  a.maskKind = pb.maskKind;
  a.maskType = pb.maskKind == AttentionMask::Boolean ? DType::U8 : pb.maskType;
  if (mask) {
    a.mask.data = mask;
    int64_t stride = 1;
    for (int d = 3; d >= 0; --d) {
      a.mask.shape[d] = ms[d];
      a.mask.strides[d] = ms[d] == 1 ? 0 : stride;
      stride *= ms[d];
    }
  }
  auto compare = [&](const char *what, const std::vector<uint16_t> &got,
                     const std::vector<double> &ref,
                     const std::vector<double> &mag) {
    int bad = 0;
    double worst = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      const double x = decode(got[i], t);
      const double tol = eps * (2 * mag[i] + std::abs(ref[i])) + 1e-5;
      const double err = std::abs(x - ref[i]);
      if (!(err <= tol)) {
        if (bad++ < 5)
          ADD_FAILURE() << what << "[" << i << "] = " << x << ", oracle "
                        << ref[i] << " (tolerance " << tol << ")";
      }
      worst = std::max(worst, err / tol);
    }
    EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << ref.size()
                      << " elements off";
    return worst;
  };
  // Each forward kernel the device runs (FlashAttention.h).
  std::vector<te::rt::cuda::attn::ForwardKernel> kernels = {
      te::rt::cuda::attn::ForwardKernel::MmaSync};
  if (te::rt::cuda::attn::wgmmaForwardAvailable()) {
    kernels.push_back(te::rt::cuda::attn::ForwardKernel::Wgmma);
    kernels.push_back(te::rt::cuda::attn::ForwardKernel::WgmmaOverlap);
    if (newKernels())
      kernels.push_back(te::rt::cuda::attn::ForwardKernel::WgmmaWs);
  }
  for (auto kernel : kernels) {
    SCOPED_TRACE("forward kernel " + std::to_string(static_cast<int>(kernel)) +
                 " (FlashAttention.h: 1 mma.sync, 2 wgmma, 3 wgmma "
                 "overlapped, 4 wgmma warp-specialized)");
    te::rt::cuda::attn::setForwardKernel(kernel);
    ASSERT_EQ(cudaMemset(o.ptr, 0xFF, o.elems * 2), cudaSuccess);
    ASSERT_EQ(cudaMemset(lse, 0xFF, lseRef.size() * 4), cudaSuccess);
    const te_rt_status st = backend->attention(a);
    te::rt::cuda::attn::setForwardKernel(
        te::rt::cuda::attn::ForwardKernel::Auto);
    ASSERT_EQ(st, TE_RT_OK) << te::rt::lastErrorMessage();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    compare("O", o.download(), oRef, oMag);
    if (pb.saveLse) {
      std::vector<float> lseGot(lseRef.size());
      ASSERT_EQ(cudaMemcpy(lseGot.data(), lse, lseGot.size() * 4,
                           cudaMemcpyDeviceToHost),
                cudaSuccess);
      int bad = 0;
      for (size_t i = 0; i < lseRef.size(); ++i) {
        const bool ok = lseRef[i] == -kInf
                            ? lseGot[i] == -INFINITY
                            : std::abs(lseGot[i] - lseRef[i]) <=
                                  1e-4 * (1 + std::abs(lseRef[i]));
        if (!ok && bad++ < 5)
          ADD_FAILURE() << "lse[" << i << "] = " << lseGot[i] << ", oracle "
                        << lseRef[i];
      }
      EXPECT_EQ(bad, 0) << "LSE: " << bad << " rows off";
    }
  }
  if (grad) {
    te::rt::AttentionGrad g;
    g.forward = a;
    g.forward.lse = lse;
    g.dout = dO.operand();
    g.dq = dq_.operand();
    g.dk = dk_.operand();
    g.dv = dv_.operand();
    // Each backward key-block kernel (FlashAttention.h).
    std::vector<te::rt::cuda::attn::BackwardKernel> bwdKernels = {
        te::rt::cuda::attn::BackwardKernel::Keys64};
    if (newKernels())
      bwdKernels.push_back(te::rt::cuda::attn::BackwardKernel::Keys128);
    for (auto kernel : bwdKernels) {
      SCOPED_TRACE("backward kernel " +
                   std::to_string(static_cast<int>(kernel)) +
                   " (FlashAttention.h: 0 64-key CTAs, 1 128-key CTAs)");
      for (const DevTensor *x : {&dq_, &dk_, &dv_})
        ASSERT_EQ(cudaMemset(x->ptr, 0xFF, x->elems * 2), cudaSuccess);
      te::rt::cuda::attn::setBackwardKernel(kernel);
      const te_rt_status st = backend->attentionGrad(g);
      te::rt::cuda::attn::setBackwardKernel(
          te::rt::cuda::attn::BackwardKernel::Keys64);
      ASSERT_EQ(st, TE_RT_OK) << te::rt::lastErrorMessage();
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      compare("dQ", dq_.download(), dqRef, dqMag);
      compare("dK", dk_.download(), dkRef, dkMag);
      compare("dV", dv_.download(), dvRef, dvMag);
    }
  }
  cudaFree(lse);
  if (mask)
    cudaFree(mask);
}

TEST_F(GpuAttention, RaggedD64) {
  Problem pb;
  pb.B = 2, pb.Hq = 2, pb.Hkv = 2, pb.L = 100, pb.S = 77, pb.D = 64;
  check(pb);
}

TEST_F(GpuAttention, RaggedD128F16) {
  Problem pb;
  pb.B = 1, pb.Hq = 3, pb.Hkv = 3, pb.L = 70, pb.S = 200, pb.D = 128;
  pb.dtype = DType::F16;
  check(pb);
}

TEST_F(GpuAttention, CausalLongerQueries) {
  // L > S: top-left causal keeps every key for the rows past S.
  Problem pb;
  pb.B = 1, pb.Hq = 2, pb.Hkv = 2, pb.L = 200, pb.S = 130, pb.D = 128;
  pb.causal = true;
  check(pb);
}

TEST_F(GpuAttention, CausalLongerKeysF16) {
  Problem pb;
  pb.B = 2, pb.Hq = 1, pb.Hkv = 1, pb.L = 90, pb.S = 257, pb.D = 64;
  pb.dtype = DType::F16;
  pb.causal = true;
  check(pb);
}

TEST_F(GpuAttention, GroupedQueryHeadsCausal) {
  Problem pb;
  pb.B = 2, pb.Hq = 6, pb.Hkv = 2, pb.L = 129, pb.S = 129, pb.D = 64;
  pb.causal = true;
  check(pb);
}

TEST_F(GpuAttention, GroupedQueryHeadsD128) {
  Problem pb;
  pb.B = 1, pb.Hq = 4, pb.Hkv = 1, pb.L = 64, pb.S = 192, pb.D = 128;
  check(pb);
}

TEST_F(GpuAttention, AdditiveMaskF32Broadcast) {
  // [1, 1, L, S]: one mask for every batch and head; two rows fully masked.
  Problem pb;
  pb.B = 2, pb.Hq = 2, pb.Hkv = 1, pb.L = 80, pb.S = 100, pb.D = 64;
  pb.maskKind = AttentionMask::Additive;
  pb.maskType = DType::F32;
  pb.maskShape[2] = pb.L, pb.maskShape[3] = pb.S;
  pb.maskedRows = {3, 79};
  check(pb);
}

TEST_F(GpuAttention, AdditiveMaskBF16PerBatch) {
  // [B, 1, 1, S] (a padding mask) with causal.
  Problem pb;
  pb.B = 3, pb.Hq = 2, pb.Hkv = 2, pb.L = 65, pb.S = 65, pb.D = 128;
  pb.causal = true;
  pb.maskKind = AttentionMask::Additive;
  pb.maskType = DType::BF16;
  pb.maskShape[0] = pb.B, pb.maskShape[3] = pb.S;
  check(pb);
}

TEST_F(GpuAttention, AdditiveMaskF16PerHead) {
  Problem pb;
  pb.B = 1, pb.Hq = 4, pb.Hkv = 2, pb.L = 33, pb.S = 150, pb.D = 64;
  pb.dtype = DType::F16;
  pb.maskKind = AttentionMask::Additive;
  pb.maskType = DType::F16;
  pb.maskShape[1] = pb.Hq, pb.maskShape[2] = pb.L, pb.maskShape[3] = pb.S;
  check(pb);
}

TEST_F(GpuAttention, BooleanMaskFullShapeWithMaskedRows) {
  Problem pb;
  pb.B = 2, pb.Hq = 2, pb.Hkv = 2, pb.L = 70, pb.S = 90, pb.D = 128;
  pb.maskKind = AttentionMask::Boolean;
  pb.maskShape[0] = pb.B, pb.maskShape[1] = pb.Hq, pb.maskShape[2] = pb.L,
  pb.maskShape[3] = pb.S;
  pb.maskDrop = 0.6;
  pb.maskedRows = {0, 69};
  check(pb);
}

TEST_F(GpuAttention, BooleanMaskWithCausal) {
  Problem pb;
  pb.B = 1, pb.Hq = 2, pb.Hkv = 1, pb.L = 140, pb.S = 140, pb.D = 64;
  pb.causal = true;
  pb.maskKind = AttentionMask::Boolean;
  pb.maskShape[2] = pb.L, pb.maskShape[3] = pb.S;
  pb.maskDrop = 0.5;
  check(pb);
}

TEST_F(GpuAttention, StridedLayoutBSHDPadded) {
  // Operands as [B, L, H, D] memory viewed as [B, H, L, D], rows padded.
  Problem pb;
  pb.B = 2, pb.Hq = 4, pb.Hkv = 2, pb.L = 75, pb.S = 75, pb.D = 64;
  pb.causal = true;
  pb.bshd = true;
  pb.rowPad = 8;
  check(pb);
}

TEST_F(GpuAttention, StridedLayoutD128WithoutLse) {
  Problem pb;
  pb.B = 1, pb.Hq = 2, pb.Hkv = 2, pb.L = 47, pb.S = 300, pb.D = 128;
  pb.bshd = true;
  pb.saveLse = false;
  check(pb, /*grad=*/false);
}

TEST_F(GpuAttention, ManyKeyBlocksCausalGroupedD128) {
  // Several 128-key blocks per CTA (the copy stages wrap around more than
  // once), query blocks with and without a diagonal, GQA.
  Problem pb;
  pb.B = 1, pb.Hq = 4, pb.Hkv = 2, pb.L = 700, pb.S = 700, pb.D = 128;
  pb.causal = true;
  pb.seed = 3;
  check(pb);
}

TEST_F(GpuAttention, ManyKeyBlocksD64F16) {
  Problem pb;
  pb.B = 2, pb.Hq = 2, pb.Hkv = 1, pb.L = 130, pb.S = 1000, pb.D = 64;
  pb.dtype = DType::F16;
  pb.seed = 4;
  check(pb);
}

TEST_F(GpuAttention, NoKeys) {
  // S = 0: every row has no key (O = 0, LSE = -inf, dQ = 0).
  Problem pb;
  pb.B = 1, pb.Hq = 2, pb.Hkv = 2, pb.L = 20, pb.S = 0, pb.D = 64;
  check(pb);
}

TEST_F(GpuAttention, SingleQueryRow) {
  Problem pb;
  pb.B = 2, pb.Hq = 2, pb.Hkv = 1, pb.L = 1, pb.S = 513, pb.D = 128;
  check(pb);
  pb.causal = true; // the one row sees key 0 only
  pb.seed = 2;
  check(pb);
}

/// The cases the kernels refuse, each with its message.
class GpuAttentionUnsupported : public GpuAttention {
protected:
  te::rt::Attention valid() {
    te::rt::Attention a;
    a.dtype = DType::BF16;
    for (te::rt::AttentionOperand *x : {&a.q, &a.k, &a.v, &a.o}) {
      x->data = x == &a.o ? static_cast<char *>(buffer) + (1 << 19) : buffer;
      const int64_t shape[4] = {1, 1, 16, 64};
      for (int i = 0; i < 4; ++i)
        x->shape[i] = shape[i];
      x->strides[0] = x->strides[1] = 16 * 64;
      x->strides[2] = 64;
      x->strides[3] = 1;
    }
    a.scale = 0.125f;
    return a;
  }
  void SetUp() override {
    GpuAttention::SetUp();
    if (!backend)
      return;
    ASSERT_EQ(cudaMalloc(&buffer, 1 << 20), cudaSuccess);
    ASSERT_EQ(cudaMemset(buffer, 0, 1 << 20), cudaSuccess);
  }
  void TearDown() override {
    if (buffer)
      cudaFree(buffer);
  }
  void expectUnsupported(const te::rt::Attention &a, const std::string &msg) {
    EXPECT_EQ(backend->attention(a), TE_RT_UNSUPPORTED);
    EXPECT_NE(std::string(te::rt::lastErrorMessage()).find(msg),
              std::string::npos)
        << te::rt::lastErrorMessage();
    te::rt::AttentionGrad g;
    g.forward = a;
    g.forward.lse = static_cast<float *>(buffer);
    g.dout = g.dq = a.q;
    g.dk = a.k;
    g.dv = a.v;
    EXPECT_EQ(backend->attentionGrad(g), TE_RT_UNSUPPORTED);
    EXPECT_NE(std::string(te::rt::lastErrorMessage()).find(msg),
              std::string::npos)
        << te::rt::lastErrorMessage();
  }
  void *buffer = nullptr;
};

TEST_F(GpuAttentionUnsupported, Messages) {
  te::rt::Attention a = valid();
  ASSERT_EQ(backend->attention(a), TE_RT_OK) << te::rt::lastErrorMessage();

  a.dtype = DType::F32;
  expectUnsupported(a, "the kernels take bf16 and f16 inputs");

  a = valid();
  for (te::rt::AttentionOperand *x : {&a.q, &a.k, &a.v, &a.o})
    x->shape[3] = 96;
  expectUnsupported(a, "equal head dims of 64 or 128");

  a = valid();
  a.v.shape[3] = a.o.shape[3] = 128;
  a.v.strides[2] = a.o.strides[2] = 128;
  expectUnsupported(a, "head dims 64 (query, key) and 128 (value)");

  a = valid();
  a.k.strides[2] = 68; // rows 136 bytes apart
  expectUnsupported(a, "strides that are multiples of 8 elements");

  a = valid();
  a.q.data = static_cast<char *>(buffer) + 2;
  expectUnsupported(a, "16-byte aligned data");

  a = valid();
  a.maskKind = AttentionMask::Additive;
  a.maskType = DType::E4M3;
  a.mask.data = buffer;
  a.mask.shape[3] = 16;
  expectUnsupported(a, "an additive mask is f32, bf16 or f16");
}

TEST_F(GpuAttentionUnsupported, BackwardNeedsLseAndAlignedGradients) {
  te::rt::Attention a = valid();
  te::rt::AttentionGrad g;
  g.forward = a;
  g.dout = g.dq = a.q;
  g.dk = a.k;
  g.dv = a.v;
  EXPECT_EQ(backend->attentionGrad(g), TE_RT_INVALID_ARGUMENT);
  EXPECT_NE(std::string(te::rt::lastErrorMessage())
                .find("the forward's lse is required"),
            std::string::npos);
  g.forward.lse = static_cast<float *>(buffer);
  g.dq.strides[2] = 60;
  EXPECT_EQ(backend->attentionGrad(g), TE_RT_UNSUPPORTED);
  EXPECT_NE(std::string(te::rt::lastErrorMessage())
                .find("dout, dq, dk and dv need 16-byte aligned data"),
            std::string::npos);
}

} // namespace

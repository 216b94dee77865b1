//===- Call.h - Signatures and call frames of compiled entries --*- C++ -*-===//
//
// Part of te. Plain C++17 (no MLIR, no CUDA): the C++ side of libte_call
// (te_call.h), linked into te-run and te-aot-run and exported to Python
// through te_call.h's C API.
//
//===----------------------------------------------------------------------===//

#ifndef TE_RUNTIME_CALL_CALL_H
#define TE_RUNTIME_CALL_CALL_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace te::call {

struct TensorType {
  std::string elementType;    ///< "f32", "bf16", ...
  std::vector<int64_t> shape; ///< -1: dynamic
  bool scalar = false;        ///< a scalar, e.g. `f32`
  int64_t elementBytes() const;
  bool isFloat() const;   ///< f32 / f64 / f16 / bf16
  bool isInteger() const; ///< i1 / i8 / i16 / i32 / i64
  /// The values of an integer type: i1 0..1, iN -2^(N-1)..2^(N-1)-1.
  void integerRange(int64_t &lo, int64_t &hi) const;
  std::string str() const;
};

struct Signature {
  std::vector<TensorType> args, results;
  /// The compiled entry checks that its operands agree in their dynamic
  /// sizes (te-check-shapes: the module's `te.shape_checks`), so each `?`
  /// may take its own size.
  bool shapeChecks = false;
  std::string str() const;
};

/// Parses `f32[32,64], bf16[?,64] -> f32[32,64]`.
bool parseSignature(const std::string &text, Signature &out,
                    std::string *error);

/// Parses a signature file (scripts/te-aot.sh compile): the signature on the
/// first line, then `key value` lines; `target T` is the target the module
/// was compiled for (`cpu` if absent), `shape-checks on|off` whether it
/// checks its dynamic sizes (`off` if absent).
bool parseSignatureFile(const std::string &text, Signature &out,
                        std::string &target, std::string *error);

/// Whether `target` (a te-pipeline target) is a GPU target (sm_90, sm_100).
bool isGpuTarget(const std::string &target);

/// The name of the packed wrapper of `entry`.
std::string packedName(const std::string &entry);
/// The name of the NUL-terminated string that holds `entry`'s signature
/// (Signature::str()) in a lowered module.
std::string signatureSymbolName(const std::string &entry);
/// The name of the NUL-terminated string naming the target the module was
/// compiled for.
std::string targetSymbolName(const std::string &entry);
/// The name of the byte a lowered module holds when it checks its shapes
/// (te-check-shapes).
std::string shapeChecksSymbolName(const std::string &entry);

/// Whether the C interface takes the results struct as its first parameter:
/// for a memref result or several results (a single scalar is returned by
/// value).
bool resultsByPointer(const Signature &sig);
/// The number of slots of the packed wrapper's argument array for `sig`.
size_t packedSlots(const Signature &sig);

/// Parses a decimal or 0x-hex integer in [min, max] exactly: no leading
/// space, no trailing text, out of range is false (never saturated).
bool parseInteger(const std::string &text, int64_t min, int64_t max,
                  int64_t &out);
/// The same for a uint64 (no sign).
bool parseUnsigned(const std::string &text, uint64_t &out);

/// The descriptors, slots and results struct of one call of an entry.
class Frame {
public:
  explicit Frame(Signature sig);
  const Signature &signature() const { return sig; }

  /// Argument `i` is the memref at `data` with `shape` and `strides`
  /// (elements; empty: row-major). The rank and static sizes must be the
  /// signature's.
  bool setTensor(size_t i, void *data, const std::vector<int64_t> &shape,
                 const std::vector<int64_t> &strides, std::string *error);
  /// Scalar argument `i` is the elementBytes() bytes at `value`.
  bool setScalar(size_t i, const void *value, std::string *error);
  /// Every argument set, and the `?` sizes agree unless the entry checks
  /// them; then the slots to call the packed wrapper with.
  bool prepare(void ***slots, std::string *error);
  /// prepare() and a call of `packed`.
  bool invoke(void *packed, std::string *error);

  struct Result {
    bool scalar = false;
    uint8_t value[8] = {};
    void *allocated = nullptr, *aligned = nullptr;
    int64_t offset = 0;
    std::vector<int64_t> shape, strides;
    /// A buffer the call handed over, to be released once by the caller.
    bool owned = false;
    /// The first element's address: aligned + offset elements.
    void *data(int64_t elementBytes) const {
      return static_cast<uint8_t *>(aligned) + offset * elementBytes;
    }
  };
  /// Result `r` of the last call.
  bool result(size_t r, Result &out, std::string *error) const;

private:
  Signature sig;
  std::vector<bool> set;
  std::vector<std::vector<int64_t>> descriptors; // per argument
  std::vector<void *> descriptorPointers;
  std::vector<std::vector<uint8_t>> scalars;
  std::vector<size_t> offsets; // of each result in the results struct
  std::vector<int64_t> resultStruct;
  void *resultsPointer = nullptr;
  std::vector<void *> slotArray;
};

} // namespace te::call

#endif // TE_RUNTIME_CALL_CALL_H

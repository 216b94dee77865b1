//===- AttentionMatch.h - Expression trees of linalg chains -----*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// The expression trees te-raise-attention matches: a tensor value written by
// elementwise linalg ops, seen as one scalar expression per element of an
// iteration space. Elementwise producers are inlined (their bodies become
// nodes, their inputs' indexing maps composed into the space), unit-dim
// reshapes are looked through; what is left -- reductions, contractions,
// function arguments -- are leaves: a tensor and the map from the space to
// its dimensions.
//
//===----------------------------------------------------------------------===//

#ifndef TE_DIALECT_TE_TRANSFORMS_ATTENTIONMATCH_H
#define TE_DIALECT_TE_TRANSFORMS_ATTENTIONMATCH_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Value.h"

#include "mlir/Support/LogicalResult.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace mlir::te::attention {

struct Node;
using NodeRef = std::shared_ptr<Node>;

/// One scalar expression of the space's indices.
struct Node {
  enum class Kind {
    /// `tensor[map(indices)]`, a tensor no elementwise op produced.
    Leaf,
    /// A scalar constant (`value`).
    Const,
    /// A loop index: `index`, an expression of the space's dimensions.
    Index,
    /// A scalar op of some linalg body applied to `operands`.
    Op,
    /// A scalar the matcher cannot see into: `opaque`, a value defined
    /// outside the op (a function argument), equal to itself; or, with
    /// `opaque` null, a value of the body (an accumulator, an op with
    /// regions), equal to nothing else.
    Opaque,
  };
  Kind kind;
  Value tensor;
  AffineMap map;
  Attribute value;
  AffineExpr index;
  Operation *op = nullptr;
  SmallVector<NodeRef> operands;
  Value opaque;
  /// For an Op node that is the element of a tensor an elementwise op
  /// produced: that tensor and the map into it (a mask the matcher does not
  /// read into can still be passed as data).
  Value origin;
  AffineMap originMap;

  bool isLeaf() const { return kind == Kind::Leaf; }
  bool isOp(StringRef name) const;
  /// The constant as a double, if it is a float or integer constant.
  std::optional<double> constant() const;
};

/// Structural equality: same ops with the same attributes (fastmath flags
/// aside), same leaves and maps, same constants.
bool equal(const NodeRef &a, const NodeRef &b);

/// A short text naming the node's op or kind, for remarks.
std::string describe(const NodeRef &n);

/// The tree of `tensor` in a space of `map.getNumDims()` loops, `map` taking
/// the space to the tensor's dimensions.
NodeRef buildTree(Value tensor, AffineMap map);

/// The tree of the scalar `v` of `op`'s body, op's loops taken to the outer
/// space by `loopMap` (result d: loop d's index in the outer space).
NodeRef buildBodyTree(linalg::LinalgOp op, Value v, AffineMap loopMap);

/// The constant a splat or scalar defines, if `v` is one.
std::optional<Attribute> constantOf(Value v);

/// The outcome of a match: yes, a near miss (`why` says what is off), or
/// nothing like it.
enum class Match { Yes, NearMiss, No };

/// Matches `p` (a tree in a rank-`rank` space) as softmax(x) over the last
/// dimension -- `linalg.softmax`, or max / exp (exp2) / sum / divide (or a
/// reciprocal's product) -- and sets `x`. A near miss once `p` is
/// recognisably a softmax (or holds one, as dropout's product does).
Match matchSoftmax(NodeRef p, int64_t rank, NodeRef &x, std::string &why);

/// A tensor mask read at `map` from the space: additive, or boolean (true:
/// the key takes part; `negated`: true masks it out, TransformerEngine's
/// convention).
struct TensorMask {
  Value tensor;
  AffineMap map;
  bool isBool = false;
  bool negated = false;
};

/// What lies between the softmax and the scores' leaf.
struct Scores {
  NodeRef leaf;
  double scale = 1.0;
  bool causal = false;
  std::optional<TensorMask> mask;
};

/// Peels float casts, constant scales and masks (causal predicates on the
/// last two indices, additive float tensors, boolean tensors selecting
/// -inf) off `x` down to a leaf `isScores` accepts.
LogicalResult matchScores(NodeRef x, int64_t rank,
                          std::function<bool(const NodeRef &)> isScores,
                          Scores &s, std::string &why);

} // namespace mlir::te::attention

#endif // TE_DIALECT_TE_TRANSFORMS_ATTENTIONMATCH_H

//===- SoftmaxMatch.cpp - The softmax and scores of attention --*- C++ -*-===/
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-raise-attention's matchers on expression trees (AttentionMatch.h): the
// softmax over the last dimension in each form it is written in, and the
// scores under it -- a scale, masks, the product of Q and K.
//
//===----------------------------------------------------------------------===//

#include "AttentionMatch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>

using namespace mlir;
using namespace mlir::te::attention;

namespace {

//===----------------------------------------------------------------------===//
// The softmax
//===----------------------------------------------------------------------===//

/// A reduction over the last loop of a rank-`rank` space that a leaf reads
/// as a row value (broadcast along the last dimension).
struct RowReduction {
  NodeRef inner; // what is combined, in the space
  StringRef combiner;
  Attribute init;
};

/// Whether `leaf` reads a reduction of `rank` loops whose last loop is the
/// only reduced one, at the row of the space; `why` when it is a reduction
/// that does not fit.
std::optional<RowReduction> rowReduction(const NodeRef &leaf, int64_t rank,
                                         std::string &why) {
  if (!leaf->isLeaf())
    return std::nullopt;
  auto result = dyn_cast<OpResult>(leaf->tensor);
  if (!result)
    return std::nullopt;
  auto op = dyn_cast<linalg::LinalgOp>(result.getOwner());
  if (!op || !op.hasPureTensorSemantics() || op.getNumReductionLoops() != 1 ||
      linalg::isaContractionOpInterface(op))
    return std::nullopt;
  SmallVector<unsigned> reduced;
  op.getReductionDims(reduced);
  OpOperand *init = op.getDpsInitOperand(result.getResultNumber());
  AffineMap out = op.getMatchingIndexingMap(init);
  if (op.getNumLoops() != rank || out != leaf->map) {
    why = "a reduction the softmax reads is not indexed like its rows";
    return std::nullopt;
  }
  if (reduced[0] != rank - 1) {
    why = "the softmax's reduction is over dimension " +
          std::to_string(reduced[0]) + ", not the last (key) dimension";
    return std::nullopt;
  }
  auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
  Operation *combine =
      yield.getOperand(result.getResultNumber()).getDefiningOp();
  BlockArgument acc = op.getMatchingBlockArgument(init);
  if (!combine || combine->getNumOperands() != 2 ||
      combine->getBlock() != op.getBlock() ||
      (combine->getOperand(0) != acc && combine->getOperand(1) != acc)) {
    why = "a reduction in the softmax is not a combination with its "
          "accumulator";
    return std::nullopt;
  }
  Value other = combine->getOperand(0) == acc ? combine->getOperand(1)
                                              : combine->getOperand(0);
  RowReduction r;
  r.combiner = combine->getName().getStringRef();
  r.inner = buildBodyTree(
      op, other, AffineMap::getMultiDimIdentityMap(rank, op.getContext()));
  Value initValue = init->get();
  if (auto fill = initValue.getDefiningOp<linalg::FillOp>())
    initValue = fill.getInputs()[0];
  if (std::optional<Attribute> c = constantOf(initValue))
    r.init = *c;
  return r;
}

bool isNegInf(Attribute a) {
  auto f = dyn_cast_or_null<FloatAttr>(a);
  return f && f.getValue().isInfinity() && f.getValue().isNegative();
}

bool isLowest(Attribute a) {
  auto f = dyn_cast_or_null<FloatAttr>(a);
  return f && f.getValue() == APFloat::getLargest(f.getValue().getSemantics(),
                                                  /*Negative=*/true);
}

/// Whether a reduction's init is the max's identity for `combiner`.
bool isMaxInit(const RowReduction &r) {
  auto f = dyn_cast_or_null<FloatAttr>(r.init);
  if (!f)
    return false;
  if (r.combiner == "arith.maxnumf" && f.getValue().isNaN())
    return true;
  return isNegInf(r.init) || isLowest(r.init);
}

/// Removes float casts at the top of `n`.
NodeRef stripCasts(NodeRef n) {
  while (n->isOp("arith.extf") || n->isOp("arith.truncf"))
    n = n->operands[0];
  return n;
}

/// Whether `n` has a softmax inside (a division by a reduction, or a
/// linalg.softmax): the chain is a near miss rather than no attention.
bool containsSoftmax(const NodeRef &n, int depth = 0) {
  if (depth > 32)
    return false;
  if (n->isLeaf())
    return n->tensor.getDefiningOp<linalg::SoftmaxOp>() != nullptr;
  if (n->isOp("arith.divf") && n->operands[1]->isLeaf()) {
    auto red = n->operands[1]->tensor.getDefiningOp<linalg::LinalgOp>();
    if (red && red.getNumReductionLoops() > 0)
      return true;
  }
  for (const NodeRef &o : n->operands)
    if (containsSoftmax(o, depth + 1))
      return true;
  return false;
}

} // namespace

Match mlir::te::attention::matchSoftmax(NodeRef p, int64_t rank, NodeRef &x,
                                        std::string &why) {
  p = stripCasts(p);
  if (p->isLeaf()) {
    auto softmax = p->tensor.getDefiningOp<linalg::SoftmaxOp>();
    if (!softmax)
      return Match::No;
    if (!p->map.isIdentity() || p->map.getNumDims() != rank) {
      why = "the softmax's result is read transposed";
      return Match::NearMiss;
    }
    if (softmax.getDimension() != static_cast<uint64_t>(rank - 1)) {
      why = "the softmax is over dimension " +
            std::to_string(softmax.getDimension()) +
            ", not the last (key) dimension";
      return Match::NearMiss;
    }
    x = buildTree(softmax.getInput(), p->map);
    return Match::Yes;
  }
  // e / sum, e * (1 / sum), (1 / sum) * e.
  NodeRef e, sum;
  if (p->isOp("arith.divf")) {
    e = p->operands[0];
    sum = p->operands[1];
  } else if (p->isOp("arith.mulf")) {
    for (int i = 0; i < 2; ++i) {
      NodeRef r = p->operands[i];
      if (r->isOp("arith.divf") && r->operands[0]->constant() == 1.0) {
        e = p->operands[1 - i];
        sum = r->operands[1];
        break;
      }
    }
  }
  if (!e) {
    if (containsSoftmax(p)) {
      why = "the probabilities go through " + describe(p) +
            " between the softmax and the product with V (dropout?)";
      return Match::NearMiss;
    }
    return Match::No;
  }
  std::optional<RowReduction> s = rowReduction(sum, rank, why);
  if (!s)
    return why.empty() ? Match::No : Match::NearMiss;
  if (s->combiner != "arith.addf") {
    if (containsSoftmax(p)) {
      why = "the probabilities are divided by a reduction that is not a sum";
      return Match::NearMiss;
    }
    return Match::No;
  }
  if (!(s->init && isa<FloatAttr>(s->init) &&
        cast<FloatAttr>(s->init).getValue().isZero())) {
    why = "the softmax's sum does not start from 0";
    return Match::NearMiss;
  }
  if (!equal(s->inner, e)) {
    why = "the softmax's sum is not over the values it divides";
    return Match::NearMiss;
  }
  // exp(x - max) or exp2((x - max) * log2(e)).
  NodeRef diff;
  if (e->isOp("math.exp")) {
    diff = e->operands[0];
  } else if (e->isOp("math.exp2") && e->operands[0]->isOp("arith.mulf")) {
    NodeRef m = e->operands[0];
    for (int i = 0; i < 2; ++i)
      if (std::optional<double> c = m->operands[i]->constant();
          c && std::abs(*c - M_LOG2E) < 1e-6)
        diff = m->operands[1 - i];
  }
  if (!diff || !diff->isOp("arith.subf")) {
    why = "the softmax's numerator is " + describe(e) + ", not exp(x - max(x))";
    return Match::NearMiss;
  }
  std::string maxWhy;
  std::optional<RowReduction> mx =
      rowReduction(diff->operands[1], rank, maxWhy);
  if (!mx ||
      (mx->combiner != "arith.maximumf" && mx->combiner != "arith.maxnumf")) {
    why = maxWhy.empty() ? "the value subtracted before the exponential is "
                           "not the row's maximum"
                         : maxWhy;
    return Match::NearMiss;
  }
  if (!isMaxInit(*mx)) {
    why = "the softmax's maximum does not start from -inf, the lowest "
          "value, or NaN (maxnumf)";
    return Match::NearMiss;
  }
  x = diff->operands[0];
  if (!equal(mx->inner, x)) {
    why = "the row maximum is taken over other values than the exponential "
          "reads (a mask added after the max?)";
    return Match::NearMiss;
  }
  return Match::Yes;
}

//===----------------------------------------------------------------------===//
// The scores: scale, masks, the product
//===----------------------------------------------------------------------===//

namespace {

/// `ci·i + cj·j + c0`, i and j the space's last two indices.
struct Linear {
  int64_t ci = 0, cj = 0, c0 = 0;
  bool subtracts = false;
  Linear operator-() const { return {-ci, -cj, -c0, true}; }
  Linear operator+(const Linear &o) const {
    return {ci + o.ci, cj + o.cj, c0 + o.c0, subtracts || o.subtracts};
  }
};

std::optional<Linear> linearIndex(const NodeRef &n, int64_t rank) {
  if (n->kind == Node::Kind::Index) {
    if (auto c = dyn_cast<AffineConstantExpr>(n->index))
      return Linear{0, 0, c.getValue()};
    auto d = dyn_cast<AffineDimExpr>(n->index);
    if (d && d.getPosition() == rank - 2)
      return Linear{1, 0, 0};
    if (d && d.getPosition() == rank - 1)
      return Linear{0, 1, 0};
    return std::nullopt;
  }
  if (std::optional<double> c = n->constant())
    return Linear{0, 0, static_cast<int64_t>(*c), *c < 0};
  if (n->kind != Node::Kind::Op)
    return std::nullopt;
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp, arith::SIToFPOp, arith::UIToFPOp>(n->op))
    return linearIndex(n->operands[0], rank);
  if (isa<arith::AddIOp, arith::SubIOp>(n->op)) {
    auto a = linearIndex(n->operands[0], rank);
    auto b = linearIndex(n->operands[1], rank);
    if (!a || !b)
      return std::nullopt;
    return isa<arith::AddIOp>(n->op) ? *a + *b : *a + (-*b);
  }
  return std::nullopt;
}

/// The keys a predicate keeps, as `e <= 0` (`keepWhenTrue` false: the keys
/// where it is false).
std::optional<Linear> keptSet(const NodeRef &cond, bool keepWhenTrue,
                              int64_t rank) {
  if (cond->isOp("arith.xori")) {
    for (int i = 0; i < 2; ++i)
      if (std::optional<double> c = cond->operands[i]->constant(); c && *c != 0)
        return keptSet(cond->operands[1 - i], !keepWhenTrue, rank);
    return std::nullopt;
  }
  if (cond->kind != Node::Kind::Op || cond->operands.size() != 2)
    return std::nullopt;
  auto a = linearIndex(cond->operands[0], rank);
  auto b = linearIndex(cond->operands[1], rank);
  if (!a || !b)
    return std::nullopt;
  Linear one{0, 0, 1};
  Linear e;
  bool isUnsigned = false;
  if (auto cmp = dyn_cast<arith::CmpIOp>(cond->op)) {
    using P = arith::CmpIPredicate;
    switch (cmp.getPredicate()) {
    case P::ule:
      isUnsigned = true;
      [[fallthrough]];
    case P::sle:
      e = *a + (-*b);
      break;
    case P::ult:
      isUnsigned = true;
      [[fallthrough]];
    case P::slt:
      e = *a + (-*b) + one;
      break;
    case P::uge:
      isUnsigned = true;
      [[fallthrough]];
    case P::sge:
      e = *b + (-*a);
      break;
    case P::ugt:
      isUnsigned = true;
      [[fallthrough]];
    case P::sgt:
      e = *b + (-*a) + one;
      break;
    default:
      return std::nullopt;
    }
  } else if (auto cmp = dyn_cast<arith::CmpFOp>(cond->op)) {
    using P = arith::CmpFPredicate;
    switch (cmp.getPredicate()) {
    case P::OLE:
    case P::ULE:
      e = *a + (-*b);
      break;
    case P::OLT:
    case P::ULT:
      e = *a + (-*b) + one;
      break;
    case P::OGE:
    case P::UGE:
      e = *b + (-*a);
      break;
    case P::OGT:
    case P::UGT:
      e = *b + (-*a) + one;
      break;
    default:
      return std::nullopt;
    }
  } else {
    return std::nullopt;
  }
  // Unsigned comparisons of differences wrap; only sums compare as numbers.
  if (isUnsigned && (a->subtracts || b->subtracts))
    return std::nullopt;
  if (!keepWhenTrue)
    e = -e + one;
  return e;
}

std::string describeKept(const Linear &e) {
  auto offset = [](int64_t k) {
    return k == 0 ? std::string()
                  : (k > 0 ? " + " : " - ") + std::to_string(std::abs(k));
  };
  if (e.cj == 1 && e.ci == -1)
    return "j <= i" + offset(-e.c0);
  if (e.cj == -1 && e.ci == 1)
    return "j >= i" + offset(e.c0);
  return std::to_string(e.ci) + "·i + " + std::to_string(e.cj) + "·j + " +
         std::to_string(e.c0) + " <= 0";
}

/// Whether `n` is a fill for masked scores: -inf, or (with `finiteOk`) a
/// constant low enough that exp of it minus any score is 0 in f32.
bool isMaskFill(const NodeRef &n, bool finiteOk) {
  std::optional<double> c = n->constant();
  if (!c)
    return false;
  if (std::isinf(*c) && *c < 0)
    return true;
  return finiteOk && *c <= -1e30;
}

class ScoreMatcher {
public:
  ScoreMatcher(int64_t rank, std::function<bool(const NodeRef &)> isScores)
      : rank(rank), isScores(std::move(isScores)) {}

  /// Peels scale and masks off `x` down to the scores' leaf.
  LogicalResult match(NodeRef x, Scores &s, std::string &why) {
    bool scaled = false;
    while (true) {
      if (x->isOp("arith.extf") || x->isOp("arith.truncf")) {
        x = x->operands[0];
        continue;
      }
      if (x->isLeaf()) {
        if (!isScores(x)) {
          why = "the softmax's input is not a batched product of the query "
                "and the key";
          return failure();
        }
        s.leaf = x;
        return success();
      }
      if (x->isOp("arith.mulf") || x->isOp("arith.divf")) {
        bool div = x->isOp("arith.divf");
        int ci = -1;
        for (int i = div ? 1 : 0; i < 2; ++i)
          if (x->operands[i]->constant())
            ci = i;
        if (ci < 0) {
          why = std::string("the scores are ") +
                (div ? "divided" : "multiplied") +
                " by a value that is not a constant";
          return failure();
        }
        double c = *x->operands[ci]->constant();
        if (!(c > 0) || std::isinf(c)) {
          why = "the scale on the scores is not a positive finite constant";
          return failure();
        }
        s.scale = div ? s.scale / c : s.scale * c;
        scaled = true;
        x = x->operands[1 - ci];
        continue;
      }
      if (x->isOp("arith.addf")) {
        int si = reachesScores(x->operands[0]) ? 0 : 1;
        if (!reachesScores(x->operands[si])) {
          why = "the softmax's input is not a batched product of the query "
                "and the key";
          return failure();
        }
        if (reachesScores(x->operands[1 - si])) {
          why = "the scores are added to a value computed from them";
          return failure();
        }
        if (failed(addMask(x->operands[1 - si], scaled, s, why)))
          return failure();
        x = x->operands[si];
        continue;
      }
      if (x->isOp("arith.select")) {
        NodeRef cond = x->operands[0];
        int si;
        if (reachesScores(x->operands[1]) && !reachesScores(x->operands[2]))
          si = 1;
        else if (reachesScores(x->operands[2]) &&
                 !reachesScores(x->operands[1]))
          si = 2;
        else {
          why = "a select on the scores does not choose between the scores "
                "and a fill";
          return failure();
        }
        NodeRef fill = x->operands[si == 1 ? 2 : 1];
        if (failed(selectMask(cond, fill, si == 1, s, why)))
          return failure();
        x = x->operands[si];
        continue;
      }
      if (x->kind == Node::Kind::Op)
        why = "the scores go through " + describe(x) +
              ", which te.attention does not compute (a softcap or clamp?)";
      else
        why = "the softmax's input is " + describe(x) +
              ", not a product of the query and the key";
      return failure();
    }
  }

private:
  bool reachesScores(const NodeRef &n, int depth = 0) {
    if (depth > 32)
      return false;
    if (n->isLeaf())
      return isScores(n);
    for (const NodeRef &o : n->operands)
      if (reachesScores(o, depth + 1))
        return true;
    return false;
  }

  /// A causal predicate: key j kept for query i iff j <= i.
  LogicalResult causal(const NodeRef &cond, bool keepWhenTrue, Scores &s,
                       std::string &why) {
    std::optional<Linear> e = keptSet(cond, keepWhenTrue, rank);
    if (!e) {
      why = "the mask's predicate is not a comparison of the query and key "
            "positions plus a constant";
      return failure();
    }
    if (e->ci != -1 || e->cj != 1 || e->c0 != 0) {
      why = "the mask keeps key j for query i iff " + describeKept(*e) +
            "; te.attention's causal is j <= i (PyTorch's top-left is_causal)";
      return failure();
    }
    s.causal = true;
    return success();
  }

  LogicalResult setTensorMask(TensorMask m, bool scaled, Scores &s,
                              std::string &why) {
    if (s.mask) {
      why = "the scores have more than one mask tensor";
      return failure();
    }
    if (scaled && !m.isBool) {
      why = "the mask tensor is added before the scale (scale · (QKᵀ + "
            "mask)); te.attention adds it to the scaled scores";
      return failure();
    }
    s.mask = m;
    return success();
  }

  /// `x + m`: m is a causal mask (a select of 0 and -inf on a predicate) or
  /// a float tensor.
  LogicalResult addMask(NodeRef m, bool scaled, Scores &s, std::string &why) {
    NodeRef top = m;
    while (m->isOp("arith.extf") || m->isOp("arith.truncf"))
      m = m->operands[0];
    if (m->isOp("arith.select")) {
      std::optional<double> a = m->operands[1]->constant();
      std::optional<double> b = m->operands[2]->constant();
      NodeRef cond = m->operands[0];
      bool predicate = !cond->isLeaf();
      if (predicate && a == 0.0 && isMaskFill(m->operands[2], true))
        return causal(cond, true, s, why);
      if (predicate && b == 0.0 && isMaskFill(m->operands[1], true))
        return causal(cond, false, s, why);
      if (!predicate && a == 0.0 && isMaskFill(m->operands[2], false))
        return setTensorMask({cond->tensor, cond->map, true}, scaled, s, why);
      if (!predicate && b == 0.0 && isMaskFill(m->operands[1], false))
        return setTensorMask({cond->tensor, cond->map, true, true}, scaled, s,
                             why);
    }
    if (m->isLeaf() && isa<FloatType>(getElementTypeOrSelf(m->tensor)))
      return setTensorMask({m->tensor, m->map, false}, scaled, s, why);
    for (NodeRef n : {top, m})
      if (n->kind == Node::Kind::Op && n->origin)
        return setTensorMask({n->origin, n->originMap, false}, scaled, s, why);
    why = "the term added to the scores is " + describe(m) +
          ", not a mask tensor or a causal predicate";
    return failure();
  }

  /// `select(cond, scores, fill)` (`keepWhenTrue`) or `select(cond, fill,
  /// scores)`.
  LogicalResult selectMask(const NodeRef &cond, const NodeRef &fill,
                           bool keepWhenTrue, Scores &s, std::string &why) {
    if (cond->isLeaf()) {
      if (!isMaskFill(fill, false)) {
        why = "the boolean mask fills with " + describe(fill) +
              " other than -inf (a row it masks fully would average V, "
              "te.attention gives 0)";
        return failure();
      }
      return setTensorMask({cond->tensor, cond->map, true, !keepWhenTrue},
                           false, s, why);
    }
    if (!isMaskFill(fill, true)) {
      why =
          "the masked scores are filled with " + describe(fill) + ", not -inf";
      return failure();
    }
    return causal(cond, keepWhenTrue, s, why);
  }

  int64_t rank;
  std::function<bool(const NodeRef &)> isScores;
};

} // namespace

LogicalResult
mlir::te::attention::matchScores(NodeRef x, int64_t rank,
                                 std::function<bool(const NodeRef &)> isScores,
                                 Scores &s, std::string &why) {
  return ScoreMatcher(rank, std::move(isScores)).match(std::move(x), s, why);
}

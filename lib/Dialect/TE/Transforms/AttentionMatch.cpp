//===- AttentionMatch.cpp - Expression trees of linalg chains ---*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Builds and compares the expression trees of AttentionMatch.h.
//
//===----------------------------------------------------------------------===//

#include "AttentionMatch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::te::attention;

bool Node::isOp(StringRef name) const {
  return kind == Kind::Op && op->getName().getStringRef() == name;
}

std::optional<double> Node::constant() const {
  if (kind != Kind::Const)
    return std::nullopt;
  if (auto f = dyn_cast<FloatAttr>(value))
    return f.getValue().convertToDouble();
  if (auto i = dyn_cast<IntegerAttr>(value))
    return static_cast<double>(i.getValue().getSExtValue());
  return std::nullopt;
}

std::optional<Attribute> mlir::te::attention::constantOf(Value v) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  if (auto splat = dyn_cast<SplatElementsAttr>(attr))
    return splat.getSplatValue<Attribute>();
  if (isa<FloatAttr, IntegerAttr>(attr))
    return attr;
  return std::nullopt;
}

namespace {

NodeRef makeLeaf(Value tensor, AffineMap map) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Kind::Leaf;
  n->tensor = tensor;
  n->map = map;
  return n;
}

NodeRef makeScalar(Value v) {
  auto n = std::make_shared<Node>();
  if (std::optional<Attribute> c = constantOf(v)) {
    n->kind = Node::Kind::Const;
    n->value = *c;
  } else {
    n->kind = Node::Kind::Opaque;
    n->opaque = v;
  }
  return n;
}

/// Whether `op` computes each element of its results from the inputs'
/// elements at that point only: all loops parallel, identity output maps,
/// the outputs' initial values unread.
bool isElementwise(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() ||
      op.getNumLoops() != op.getNumParallelLoops())
    return false;
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!op.getMatchingIndexingMap(&init).isIdentity() ||
        op.payloadUsesValueFromOperand(&init))
      return false;
  return true;
}

/// For a reshape whose every reassociation group has at most one dimension
/// that is not a static 1, the map into the source from `map` into the
/// result (`collapse`: the result is the collapsed side).
std::optional<AffineMap> throughUnitReshape(AffineMap map,
                                            ArrayRef<int64_t> srcShape,
                                            ArrayRef<int64_t> dstShape,
                                            ArrayRef<ReassociationIndices> re,
                                            bool collapse) {
  MLIRContext *ctx = map.getContext();
  SmallVector<AffineExpr> results(srcShape.size(),
                                  getAffineConstantExpr(0, ctx));
  for (auto [g, group] : llvm::enumerate(re)) {
    ArrayRef<int64_t> members = collapse ? srcShape : dstShape;
    int64_t nonUnit = -1;
    for (int64_t d : group)
      if (members[d] != 1) {
        if (nonUnit >= 0)
          return std::nullopt;
        nonUnit = d;
      }
    if (collapse) {
      // result dim g <- source dims `group`.
      if (nonUnit >= 0)
        results[nonUnit] = map.getResult(g);
    } else {
      // source dim g -> result dims `group`.
      if (nonUnit >= 0)
        results[g] = map.getResult(nonUnit);
    }
  }
  return AffineMap::get(map.getNumDims(), 0, results, ctx);
}

} // namespace

namespace {

/// The nodes one tree may have: a DAG of elementwise ops that reads values
/// several times would otherwise unfold exponentially. Past it, tensors
/// stay leaves and body values opaque (still what they are, read as
/// values: nothing matches that would not have).
constexpr int64_t kMaxNodes = 4096;

NodeRef buildTreeImpl(Value tensor, AffineMap map, int64_t &budget);

NodeRef buildBodyTreeImpl(linalg::LinalgOp op, Value v, AffineMap loopMap,
                          int64_t &budget) {
  // A value of the body the tree does not look into is equal to nothing
  // else: the same value read at other indices would compare equal.
  auto unique = [] {
    auto n = std::make_shared<Node>();
    n->kind = Node::Kind::Opaque;
    return n;
  };
  if (--budget < 0)
    return unique();
  Block *body = op.getBlock();
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (arg.getOwner() != body)
      return makeScalar(v);
    OpOperand *operand = op.getMatchingOpOperand(arg);
    if (op.isDpsInit(operand))
      return unique(); // an accumulator
    Value in = operand->get();
    if (!isa<ShapedType>(in.getType()))
      return makeScalar(in);
    return buildTreeImpl(
        in, op.getMatchingIndexingMap(operand).compose(loopMap), budget);
  }
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != body)
    return makeScalar(v);
  if (auto index = dyn_cast<linalg::IndexOp>(def)) {
    auto n = std::make_shared<Node>();
    n->kind = Node::Kind::Index;
    n->index = loopMap.getResult(index.getDim());
    return n;
  }
  if (auto c = constantOf(v)) {
    auto n = std::make_shared<Node>();
    n->kind = Node::Kind::Const;
    n->value = *c;
    return n;
  }
  if (def->getNumResults() != 1 || def->getNumRegions() != 0)
    return unique();
  auto n = std::make_shared<Node>();
  n->kind = Node::Kind::Op;
  n->op = def;
  for (Value operand : def->getOperands())
    n->operands.push_back(buildBodyTreeImpl(op, operand, loopMap, budget));
  return n;
}

NodeRef buildTreeImpl(Value tensor, AffineMap map, int64_t &budget) {
  if (--budget < 0)
    return makeLeaf(tensor, map);
  if (std::optional<Attribute> c = constantOf(tensor)) {
    auto n = std::make_shared<Node>();
    n->kind = Node::Kind::Const;
    n->value = *c;
    return n;
  }
  if (auto result = dyn_cast<OpResult>(tensor)) {
    Operation *def = result.getOwner();
    if (auto op = dyn_cast<linalg::LinalgOp>(def);
        op && isElementwise(op) && map.getNumResults() == op.getNumLoops()) {
      auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
      NodeRef n = buildBodyTreeImpl(
          op, yield.getOperand(result.getResultNumber()), map, budget);
      if (n->kind == Node::Kind::Op) {
        n->origin = tensor;
        n->originMap = map;
      }
      return n;
    }
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(def)) {
      if (auto m = throughUnitReshape(map, expand.getSrcType().getShape(),
                                      expand.getResultType().getShape(),
                                      expand.getReassociationIndices(),
                                      /*collapse=*/false))
        return buildTreeImpl(expand.getSrc(), *m, budget);
    }
    if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(def)) {
      if (auto m = throughUnitReshape(map, collapse.getSrcType().getShape(),
                                      collapse.getResultType().getShape(),
                                      collapse.getReassociationIndices(),
                                      /*collapse=*/true))
        return buildTreeImpl(collapse.getSrc(), *m, budget);
    }
    if (auto cast = dyn_cast<tensor::CastOp>(def))
      return buildTreeImpl(cast.getSource(), map, budget);
  }
  return makeLeaf(tensor, map);
}

} // namespace

NodeRef mlir::te::attention::buildTree(Value tensor, AffineMap map) {
  int64_t budget = kMaxNodes;
  return buildTreeImpl(tensor, map, budget);
}

NodeRef mlir::te::attention::buildBodyTree(linalg::LinalgOp op, Value v,
                                           AffineMap loopMap) {
  int64_t budget = kMaxNodes;
  return buildBodyTreeImpl(op, v, loopMap, budget);
}

bool mlir::te::attention::equal(const NodeRef &a, const NodeRef &b) {
  if (a == b)
    return true;
  if (a->kind != b->kind)
    return false;
  switch (a->kind) {
  case Node::Kind::Leaf:
    return a->tensor == b->tensor && a->map == b->map;
  case Node::Kind::Const:
    return a->value == b->value;
  case Node::Kind::Index:
    return a->index == b->index;
  case Node::Kind::Opaque:
    return a->opaque && a->opaque == b->opaque;
  case Node::Kind::Op: {
    if (a->op->getName() != b->op->getName() ||
        a->op->getResultTypes() != b->op->getResultTypes() ||
        a->operands.size() != b->operands.size())
      return false;
    for (NamedAttribute attr : a->op->getAttrs())
      if (attr.getName() != "fastmath" &&
          b->op->getAttr(attr.getName()) != attr.getValue())
        return false;
    for (auto [x, y] : llvm::zip(a->operands, b->operands))
      if (!equal(x, y))
        return false;
    return true;
  }
  }
  return false;
}

std::string mlir::te::attention::describe(const NodeRef &n) {
  switch (n->kind) {
  case Node::Kind::Leaf:
    return "a tensor";
  case Node::Kind::Const:
    return "a constant";
  case Node::Kind::Index:
    return "a loop index";
  case Node::Kind::Opaque:
    return "a value that is not a constant";
  case Node::Kind::Op:
    return "`" + n->op->getName().getStringRef().str() + "`";
  }
  return "?";
}

//===- StripBinaryProperties.cpp - Reproducible gpu.binary objects --------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-strip-binary-properties: drops the properties gpu-module-to-binary
// records on each object of a gpu.binary (the time ptxas took, ...), so that
// te-pipeline's output depends on its input only.
//
//===----------------------------------------------------------------------===//

#include "te/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#define DEBUG_TYPE "te-strip-binary-properties"

namespace mlir::te {
#define GEN_PASS_DEF_TESTRIPBINARYPROPERTIES
#include "te/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;

namespace {

struct TEStripBinaryPropertiesPass
    : public te::impl::TEStripBinaryPropertiesBase<
          TEStripBinaryPropertiesPass> {
  void runOnOperation() override {
    getOperation().walk([](gpu::BinaryOp binary) {
      SmallVector<Attribute> objects;
      for (Attribute a : binary.getObjects()) {
        auto o = cast<gpu::ObjectAttr>(a);
        objects.push_back(gpu::ObjectAttr::get(o.getContext(), o.getTarget(),
                                               o.getFormat(), o.getObject(),
                                               nullptr, o.getKernels()));
      }
      binary.setObjectsAttr(ArrayAttr::get(binary.getContext(), objects));
    });
  }
};

} // namespace

// RUN: te-opt %s --split-input-file | te-opt --split-input-file | FileCheck %s
// RUN: te-opt %s --split-input-file --mlir-print-op-generic | te-opt --split-input-file | FileCheck %s
// RUN: te-opt %s --split-input-file --canonicalize | FileCheck %s --check-prefix=CANON

// te.check_size: round trip of both relations; the canonicalizer removes a
// check that holds at compile time and keeps one that fails or is unknown.

// CHECK-LABEL: func.func @relations
// CANON-LABEL: func.func @relations
func.func @relations(%a: index, %b: index) {
  // CHECK: te.check_size %{{.*}} eq %{{.*}}, "dimension 0 of operand 1"
  te.check_size %a eq %b, "dimension 0 of operand 1"
  // CHECK: te.check_size %{{.*}} ge %{{.*}}, "the slice's end"
  te.check_size %a ge %b, "the slice's end"
  // CHECK: te.check_size %{{.*}} le %{{.*}}, "dimension 0 of the tensor.empty"
  te.check_size %a le %b, "dimension 0 of the tensor.empty"
  // CANON: te.check_size %{{.*}} eq %{{.*}}, "dimension 0 of operand 1"
  // CANON: te.check_size %{{.*}} ge %{{.*}}, "the slice's end"
  // CANON: te.check_size %{{.*}} le %{{.*}}, "dimension 0 of the tensor.empty"
  return
}

// -----

// CANON-LABEL: func.func @folded
func.func @folded(%a: index) {
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  // CANON-NOT: te.check_size %{{.*}}, "holds
  te.check_size %c4 eq %c4, "holds: equal constants"
  te.check_size %c5 ge %c4, "holds: at least"
  te.check_size %a eq %a, "holds: one value"
  te.check_size %a ge %a, "holds: one value, at least"
  te.check_size %c4 le %c5, "holds: at most"
  te.check_size %a le %a, "holds: one value, at most"
  // A check that fails at run time stays (te-check-shapes reports it at
  // compile time instead of placing it).
  // CANON: te.check_size %[[C4:.*]] ge %[[C5:.*]], "fails"
  te.check_size %c4 ge %c5, "fails"
  // CANON: te.check_size %[[C4]] eq %[[C5]], "fails too"
  te.check_size %c4 eq %c5, "fails too"
  // CANON: te.check_size %[[C5]] le %[[C4]], "fails, at most"
  te.check_size %c5 le %c4, "fails, at most"
  return
}
